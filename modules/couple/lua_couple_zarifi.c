/* lua_couple_zarifi.c -- tide.couple functions of the zarifi coupling (see
 * couple.h, zarifi.h).  Argument checks and marshalling only.
 *
 *   tide.couple.clip{ grid = g, solid = m [, x = Array (nv, d)] } -> table
 *     { n, cell = Array i32 (n, d) 1-based cell (i, j[, k]), face = Array i32 (n)
 *       1-based boundary face, area = Array (n) [m^2, m in 2D], normal = Array
 *       (n, d) unit INTO the solid, bary = Array (n, d), centroid = Array (n, d)
 *       [m], outside = area dropped outside the grid, total = boundary area,
 *       N = Matrix (n*d x ncells), C = Matrix (n*d x nv*d), J = N^T C Matrix
 *       (ncells x nv*d) }   (Zarifi section 5.1.1, Eq. 5.7-5.13)
 *
 *   tide.couple.contact_dt{ solids =, colliders =, dt = } -> the largest step <= dt that keeps
 *     every free node a tenth of its gap to every collider (zarifi.h)
 *
 *   tide.couple.project{ u = Mac (u*, projected in place), labels = Array u8,
 *       solids = { m1, ... } | m, dt =, rho = 1000, phi = Array | nil,
 *       fractions = Mac | nil, formulation = "spd" | "indefinite" | "factored",
 *       solver = "pcg" | "cholmod" (spd, factored) | "bicgstab" | "minres" |
 *       "ldlt" (indefinite) | "mgpcg" (spd, factored: PCG with the multigrid-in-block
 *       preconditioner, zarifi.h), ring = 1 (its interface layers), interface_solve =
 *       "auto" | "augmented" | "assembled" (its interface block's factor, zarifi.h), sigma = 0.9, alpha = "auto" | number, tol = 1e-10,
 *       maxit = auto, rotate = true, elastic = true, elastic_force = true, sampling = "cell" |
 *       "linear" (pressure felt by the clipped pieces, zarifi.h), theta_min = 0.01,
 *       pressure = Array out, valid = Mac u8 out, matrix = false,
 *       must_converge = true (false: a Krylov solve that does not converge, breaks
 *       down or meets a non-finite iterate returns converged = false and stats.error
 *       instead of raising), colliders = c | { c1, ... }, dhat = 0 [m] (> 0: the
 *       colliders' IPC barrier on the solid nodes inside the solve, zarifi.h),
 *       kappa = auto, warm = false (true: the Krylov solve of the spd / indefinite form starts
 *       from `pressure`'s values and the solids' current velocities, zarifi.h) }
 *     -> stats { unknowns, liquid, solid_dofs, nonzeros, pieces, dead, iterations,
 *       residual, system_residual, refinements, converged, alpha
 *       [, interface, interface_factor, interface_solve ("augmented" | "assembled": the one
 *       used), precond_seconds, precond_cpu (mgpcg)]
 *       [, contact_nodes, contact_lifted, contact_gap, contact_kappa (dhat > 0)],
 *       geometry_seconds, assembly_seconds,
 *       solve_seconds, geometry_cpu, assembly_cpu, solve_cpu, formulation,
 *       solver [, matrix] }
 *     (Zarifi Eq. 5.17, 5.25-5.36, 5.37-5.45; Alg. 4 line 7)
 *     keep = true: stats.system = the projection's system (geometry, matrix, solver set-up) for
 *     tide.couple.resolve; system:free() releases it
 *
 *   tide.couple.resolve{ system =, u =, solids = [, pressure, valid, elastic_force = true,
 *       barrier = true | false | "stiffness", warm = true, tol = 1e-10, maxit, must_converge = true] } -> stats
 *     another right side (u*, the solids' v and forces) against the kept system, one solve
 *     (zarifi.h: tide_zarifi_resolve)
 */
#include "couple/zarifi.h"
#include "solid/fem.h"
#include "solid/lua_solid.h"
#include "tide_lua.h"

#include "linalg/mac_poisson.h"

#include <math.h>
#include <string.h>

static void need_matrix_type(lua_State *L) {
  lua_getglobal(L, "require"); /* tide.Matrix's metatable lives in tide.linalg */
  lua_pushstring(L, "tide.linalg");
  lua_call(L, 1, 0);
}

static void push_matrix(lua_State *L, tide_csr *A) {
  tide_lua_pushobj(L, TIDE_MATRIX_T, A);
  tide_lua_gcaccount(L);
}

/* a zeroed clip held by a userdata on the stack (freed by its __gc even when
 * an error is raised) */
static int clip_gc(lua_State *L) {
  tide_zclip *c = lua_touserdata(L, 1);
  tide_zclip_free(c);
  return 0;
}

static tide_zclip *push_clip(lua_State *L) {
  tide_zclip *c = lua_newuserdatauv(L, sizeof(tide_zclip), 0);
  memset(c, 0, sizeof *c);
  if (luaL_newmetatable(L, "tide.couple.clip_scratch")) {
    lua_pushcfunction(L, clip_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return c;
}

/* positions x (nv, d) of mesh m from option key, or NULL */
static const double *opt_positions(tide_opts *o, const tide_tetmesh *m) {
  tide_array *x = tide_opt_array(o, "x");
  if (!x) return NULL;
  int64_t shape[2] = {m->nv, m->dim};
  char what[64];
  snprintf(what, sizeof what, "%s: x", o->fname);
  if (tide_array_expect(x, what, TIDE_F64, 2, shape)) tide_lua_error(o->L, "%s", tide_errmsg());
  if (tide_array_nonfinite(x)) tide_lua_error(o->L, "%s: x contains NaN/Inf", o->fname);
  return TIDE_F64P(x);
}

static const char *const clip_keys[] = {"grid", "solid", "x", NULL};

static int l_clip(lua_State *L) {
  const char *fn = "tide.couple.clip";
  tide_opts o = tide_lua_opts(L, 1, fn, clip_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_tetmesh *m = tide_opt_reqobj(&o, "solid", TIDE_TETMESH_T);
  if (m->surface || m->dim != g->dim)
    tide_lua_error(L, "%s: solid must be a %dD volume mesh like the grid, got a %dD %s", fn, g->dim,
                   m->dim, m->surface ? "surface" : "mesh");
  const double *x = opt_positions(&o, m);
  need_matrix_type(L);
  tide_zclip *c = push_clip(L);
  int sc = lua_gettop(L);
  tide_lua_check(L, tide_zarifi_clip(g, m, x, c), fn);
  int d = c->dim;
  int64_t n = c->n;
  lua_createtable(L, 0, 12);
  int t = lua_gettop(L);
  lua_pushinteger(L, n);
  lua_setfield(L, t, "n");
  lua_pushnumber(L, c->outside);
  lua_setfield(L, t, "outside");
  lua_pushnumber(L, c->total);
  lua_setfield(L, t, "total");
  tide_array *cell = tide_array_new2(TIDE_I32, n, d), *face = tide_array_new1(TIDE_I32, n);
  tide_array *area = tide_array_new1(TIDE_F64, n), *nrm = tide_array_new2(TIDE_F64, n, d);
  tide_array *bar = tide_array_new2(TIDE_F64, n, d), *cen = tide_array_new2(TIDE_F64, n, d);
  tide_array *arrs[6] = {cell, face, area, nrm, bar, cen};
  const char *names[6] = {"cell", "face", "area", "normal", "bary", "centroid"};
  for (int k = 0; k < 6; k++) {
    if (!arrs[k]) {
      for (int j = k; j < 6; j++)
        if (arrs[j]) tide_array_release(arrs[j]);
      tide_lua_check(L, TIDE_ENOMEM, fn);
    }
    tide_lua_pusharray(L, arrs[k]);
    lua_setfield(L, t, names[k]);
  }
  int32_t *ci = TIDE_I32P(cell), *fi = TIDE_I32P(face);
  int n1 = g->n[1], n2 = g->n[2];
  for (int64_t q = 0; q < n; q++) {
    int64_t cq = c->cell[q];
    int ijk[3] = {(int)(cq / ((int64_t)n1 * n2)), (int)(cq / n2 % n1), (int)(cq % n2)};
    for (int k = 0; k < d; k++)
      ci[q * d + k] = ijk[k] + 1;
    fi[q] = c->face[q] + 1;
  }
  memcpy(TIDE_F64P(area), c->area, (size_t)n * sizeof(double));
  memcpy(TIDE_F64P(nrm), c->normal, (size_t)(n * d) * sizeof(double));
  memcpy(TIDE_F64P(bar), c->bary, (size_t)(n * d) * sizeof(double));
  memcpy(TIDE_F64P(cen), c->centroid, (size_t)(n * d) * sizeof(double));
  tide_csr *N = NULL, *C = NULL, *J = NULL;
  tide_lua_check(L, tide_zarifi_nc(g, c, m, &N, &C), fn);
  push_matrix(L, N);
  lua_setfield(L, t, "N");
  push_matrix(L, C);
  lua_setfield(L, t, "C");
  tide_triplets *T = NULL;
  tide_lua_check(L, tide_triplets_new((int)tide_grid_ncells(g), (int)(m->nv * d), &T), fn);
  tide_zarifi_j_triplets(c, m, NULL, 0, 1.0, T);
  int s = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &J);
  tide_triplets_free(T);
  tide_lua_check(L, s, fn);
  push_matrix(L, J);
  lua_setfield(L, t, "J");
  lua_remove(L, sc); /* the scratch clip (freed by the GC) */
  return 1;
}

static const char *const FORMS[] = {"spd", "indefinite", "factored", NULL};
static const char *const SAMPLINGS[] = {"cell", "linear", NULL};
static const char *const IFACES[] = {"auto", "augmented", "assembled", NULL};
static const char *const SOLVERS[] = {"pcg",  "cholmod", "minres", "bicgstab",
                                      "ldlt", "mgpcg",   NULL};

static const char *const project_keys[] = {
    "u",           "labels",   "solids", "dt",     "rho",           "phi",   "fractions",
    "formulation", "solver",   "sigma",  "alpha",  "tol",           "maxit", "rotate",
    "theta_min",   "pressure", "valid",  "matrix", "must_converge", "elastic", "elastic_force", "sampling", "ring", "relative",
    "interface_solve", "colliders",   "dhat",     "kappa",  "keep", "workspace", "warm", NULL};

static void setnum(lua_State *L, int t, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, t, k);
}

static void setint(lua_State *L, int t, const char *k, int64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, t, k);
}

/* the solids argument at stack index idx: one TetMesh or a list -> array in a userdata pushed
 * on the stack (kept alive by it), *ns its length */
static tide_tetmesh **check_solids(lua_State *L, int idx, const char *fn, int *ns) {
  tide_tetmesh **solids = NULL;
  *ns = 0;
  if (tide_lua_testobj(L, idx, TIDE_TETMESH_T)) {
    *ns = 1;
    solids = lua_newuserdatauv(L, sizeof(tide_tetmesh *), 0);
    solids[0] = tide_lua_testobj(L, idx, TIDE_TETMESH_T);
  } else if (lua_istable(L, idx)) {
    *ns = (int)luaL_len(L, idx);
    solids = lua_newuserdatauv(L, sizeof(tide_tetmesh *) * (size_t)(*ns > 0 ? *ns : 1), 0);
    for (int k = 0; k < *ns; k++) {
      lua_geti(L, idx, k + 1);
      solids[k] = tide_lua_testobj(L, -1, TIDE_TETMESH_T);
      if (!solids[k])
        tide_lua_error(L, "%s: solids[%d] must be a tide.TetMesh, got %s", fn, k + 1,
                       luaL_typename(L, -1));
      lua_pop(L, 1);
    }
  } else {
    tide_lua_error(L, "%s: solids must be a tide.TetMesh or a list of them, got %s", fn,
                   luaL_typename(L, idx));
  }
  return solids;
}

/* the options' solids (check_solids), each with a material */
static tide_tetmesh **material_solids(lua_State *L, const char *fn, int *ns) {
  lua_getfield(L, 1, "solids");
  tide_tetmesh **solids = check_solids(L, lua_gettop(L), fn, ns);
  for (int k = 0; k < *ns; k++)
    if (!solids[k]->fem)
      tide_lua_error(L, "%s: solids[%d] has no material (m:material{...})", fn, k + 1);
  return solids;
}

static const char *const solid_faces_keys[] = {"u", "fractions", "solids", "layers", NULL};

/* tide.couple.solid_faces{ u =, fractions =, solids = [, layers = 2] } -> count */
static int l_solid_faces(lua_State *L) {
  const char *fn = "tide.couple.solid_faces";
  tide_opts o = tide_lua_opts(L, 1, fn, solid_faces_keys);
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T);
  tide_mac *fr = tide_opt_reqobj(&o, "fractions", TIDE_MAC_T);
  int layers = (int)tide_opt_int(&o, "layers", 2, 0, 64);
  lua_getfield(L, 1, "solids");
  int ns;
  tide_tetmesh **solids = check_solids(L, lua_gettop(L), fn, &ns);
  int64_t count;
  tide_lua_check(L, tide_zarifi_solid_faces(u, fr, solids, ns, layers, &count), fn);
  lua_pushinteger(L, (lua_Integer)count);
  return 1;
}

static const char *const flip_increment_keys[] = {"u",       "old",    "valid",  "fractions",
                                                   "weights", "per_cell", "cap", "dt",
                                                   "gravity", "out",    "labels", "phi",
                                                   "theta_min", "reference", "solid_mass", "rho", NULL};

/* tide.couple.flip_increment{ u =, old =, valid =, weights =, per_cell =, dt =, out =
 * [, fractions] [, gravity] [, cap] [, labels, phi [, theta_min]] [, reference] [, solid_mass, rho] }
 * -> { orphan = {..}, uniform = {..}, orphans =, max_scale = }, out filled (zarifi.h) */
static int l_flip_increment(lua_State *L) {
  const char *fn = "tide.couple.flip_increment";
  tide_opts o = tide_lua_opts(L, 1, fn, flip_increment_keys);
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T);
  tide_mac *old = tide_opt_reqobj(&o, "old", TIDE_MAC_T);
  tide_mac *valid = tide_opt_reqobj(&o, "valid", TIDE_MAC_T);
  tide_mac *w = tide_opt_reqobj(&o, "weights", TIDE_MAC_T);
  tide_mac *fr = tide_opt_obj(&o, "fractions", TIDE_MAC_T);
  double per_cell = tide_opt_reqnum(&o, "per_cell", 1e-300, HUGE_VAL);
  double cap = tide_opt_num(&o, "cap", HUGE_VAL, 1e-300, HUGE_VAL);
  double dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  const int d = u->grid.dim;
  double grav[3] = {0, -9.81, 0};
  if (d == 2) grav[2] = 0;
  if (tide_opt_has(&o, "gravity")) tide_opt_vec(&o, "gravity", d, d, grav);
  tide_mac *out = tide_opt_reqobj(&o, "out", TIDE_MAC_T);
  tide_array *labels = tide_opt_array(&o, "labels"), *phi = tide_opt_array(&o, "phi");
  if (!labels != !phi) tide_lua_error(L, "%s: labels and phi go together (the ghost-fluid surface)", fn);
  double theta_min = tide_opt_num(&o, "theta_min", TIDE_MAC_THETA_MIN, 1e-12, 1);
  tide_mac *ref = tide_opt_obj(&o, "reference", TIDE_MAC_T);
  double solid_mass = tide_opt_num(&o, "solid_mass", 0, 0, HUGE_VAL);
  double rho = tide_opt_num(&o, "rho", 1000, 1e-300, HUGE_VAL);
  tide_zarifi_increment_stats s;
  tide_lua_check(L, tide_zarifi_flip_increment(u, old, valid, fr, w, per_cell, cap, dt, grav, labels, phi,
                                               theta_min, ref, solid_mass, rho, out, &s), fn);
  lua_createtable(L, 0, 4);
  lua_createtable(L, d, 0);
  for (int a = 0; a < d; a++) {
    lua_pushnumber(L, s.orphan[a]);
    lua_rawseti(L, -2, a + 1);
  }
  lua_setfield(L, -2, "orphan");
  lua_createtable(L, d, 0);
  for (int a = 0; a < d; a++) {
    lua_pushnumber(L, s.uniform[a]);
    lua_rawseti(L, -2, a + 1);
  }
  lua_setfield(L, -2, "uniform");
  lua_pushinteger(L, (lua_Integer)s.orphans);
  lua_setfield(L, -2, "orphans");
  lua_pushnumber(L, s.max_scale);
  lua_setfield(L, -2, "max_scale");
  return 1;
}

static const char *const contact_dt_keys[] = {"solids", "colliders", "dt", NULL};

/* tide.couple.contact_dt{ solids =, colliders =, dt = } -> the largest step <= dt keeping every
 * free node a tenth of its gap to every collider (zarifi.h) */
static int l_contact_dt(lua_State *L) {
  const char *fn = "tide.couple.contact_dt";
  tide_opts o = tide_lua_opts(L, 1, fn, contact_dt_keys);
  double dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  if (!(dt > 0)) tide_lua_error(L, "%s: dt must be positive", fn);
  int nc;
  tide_collider **c = tide_lua_solid_colliders(L, &o, &nc);
  int ns;
  tide_tetmesh **solids = material_solids(L, fn, &ns);
  double t;
  tide_lua_check(L, tide_zarifi_contact_dt(solids, ns, c, nc, dt, &t), fn);
  lua_pushnumber(L, t);
  return 1;
}

/* the statistics table of a projection or resolve (s its status, err its soft error) */
static void push_stats(lua_State *L, const tide_zarifi_stats *st, int s, const tide_zarifi_opts *zo,
                       const char *err) {
  lua_createtable(L, 0, 16);
  int t = lua_gettop(L);
  setint(L, t, "unknowns", st->unknowns);
  setint(L, t, "liquid", st->liquid);
  setint(L, t, "solid_dofs", st->solid_dofs);
  setint(L, t, "nonzeros", st->nonzeros);
  setint(L, t, "pieces", st->pieces);
  setint(L, t, "dead", st->dead);
  setint(L, t, "iterations", st->iterations);
  setnum(L, t, "residual", st->residual);
  setnum(L, t, "system_residual", st->system_residual);
  setint(L, t, "refinements", st->refinements);
  lua_pushboolean(L, s == TIDE_OK && st->converged);
  lua_setfield(L, t, "converged");
  setnum(L, t, "alpha", st->alpha);
  if (zo->solver == TIDE_ZARIFI_MGPCG) {
    setint(L, t, "interface", st->interface);
    setint(L, t, "interface_factor", st->interface_factor);
    lua_pushstring(L, IFACES[st->interface_augmented ? TIDE_ZARIFI_IFACE_AUGMENTED
                                                     : TIDE_ZARIFI_IFACE_ASSEMBLED]);
    lua_setfield(L, t, "interface_solve");
    setnum(L, t, "precond_seconds", st->precond_seconds);
    setnum(L, t, "precond_cpu", st->precond_cpu);
  }
  if (zo->ncolliders > 0 && zo->contact_dhat > 0) {
    setint(L, t, "contact_nodes", st->contact_nodes);
    setint(L, t, "contact_lifted", st->contact_lifted);
    setnum(L, t, "contact_gap", st->contact_gap);
    setnum(L, t, "contact_kappa", st->contact_kappa);
  }
  setnum(L, t, "geometry_seconds", st->geometry_seconds);
  setnum(L, t, "assembly_seconds", st->assembly_seconds);
  setnum(L, t, "solve_seconds", st->solve_seconds);
  setnum(L, t, "geometry_cpu", st->geometry_cpu);
  setnum(L, t, "assembly_cpu", st->assembly_cpu);
  setnum(L, t, "solve_cpu", st->solve_cpu);
  lua_pushstring(L, FORMS[zo->formulation]);
  lua_setfield(L, t, "formulation");
  lua_pushstring(L, SOLVERS[zo->solver]);
  lua_setfield(L, t, "solver");
  if (err[0]) {
    lua_pushstring(L, err);
    lua_setfield(L, t, "error");
  }
}

/* the kept system of couple.project{ keep = true }: a userdata holding the system, its solids
 * (kept alive as its user value) and what couple.resolve needs to know */
typedef struct lsystem {
  tide_zarifi_system *S;
  tide_zarifi_opts o; /* formulation, solver, ncolliders, contact_dhat */
} lsystem;

/* ------------------------------------------------- tide.couple.workspace
 * tide.couple.workspace(grid) -> W: the MG-in-block hierarchy kept between projections on grid's
 * cells (zarifi.h, tide_zarifi_work); couple.project{ workspace = W }.  Freed by the collector
 * only: a kept system holds on to it (its uservalue). */
#define WORK_T "tide.couple.Workspace"

static int work_gc(lua_State *L) {
  tide_zarifi_work_free(tide_lua_takeobj(L, 1, WORK_T));
  return 0;
}

static int work_tostring(lua_State *L) {
  tide_zarifi_work *w = tide_lua_checkobj(L, 1, WORK_T);
  const tide_grid *g = tide_zarifi_work_grid(w);
  lua_pushfstring(L, "tide.couple.Workspace(%dx%dx%d cells, %d bytes)", g->n[0], g->n[1], g->n[2],
                  (int)tide_zarifi_work_bytes(w));
  return 1;
}

static int l_workspace(lua_State *L) {
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_zarifi_work *w = NULL;
  tide_lua_check(L, tide_zarifi_work_new(g, &w), "tide.couple.workspace");
  tide_lua_pushobj(L, WORK_T, w);
  return 1;
}

static const luaL_Reg work_methods[] = {{NULL, NULL}};
static const luaL_Reg work_meta[] = {{"__gc", work_gc}, {"__tostring", work_tostring}, {NULL, NULL}};

static int system_gc(lua_State *L) {
  lsystem *b = luaL_checkudata(L, 1, "tide.couple.System");
  tide_zarifi_system_free(b->S);
  b->S = NULL;
  return 0;
}

/* t.system = the kept system (t the stats table on top, the solids at field "solids" of arg 1) */
static void push_system(lua_State *L, tide_zarifi_system *S, const tide_zarifi_opts *zo) {
  int t = lua_gettop(L);
  lsystem *b = lua_newuserdatauv(L, sizeof *b, 2);
  b->S = S;
  b->o = *zo;
  b->o.colliders = NULL;
  b->o.system = NULL;
  b->o.keep = NULL;
  if (luaL_newmetatable(L, "tide.couple.System")) {
    lua_pushcfunction(L, system_gc);
    lua_setfield(L, -2, "__gc");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, system_gc);
    lua_setfield(L, -2, "free");
    lua_setfield(L, -2, "__index");
  }
  lua_setmetatable(L, -2);
  lua_getfield(L, 1, "solids");
  lua_setiuservalue(L, -2, 1);
  lua_getfield(L, 1, "workspace"); /* its multigrid hierarchy: kept alive with the system */
  lua_setiuservalue(L, -2, 2);
  tide_lua_gcaccount(L);
  lua_setfield(L, t, "system");
}

static int l_project(lua_State *L) {
  const char *fn = "tide.couple.project";
  tide_opts o = tide_lua_opts(L, 1, fn, project_keys);
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T);
  const tide_grid *g = &u->grid;
  tide_array *labels = tide_opt_reqarray(&o, "labels");
  if (tide_grid_check_cells(g, labels, TIDE_U8, "labels"))
    tide_lua_error(L, "%s: %s", fn, tide_errmsg());
  tide_zarifi_opts zo = tide_zarifi_opts_default();
  zo.dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  if (!(zo.dt > 0)) tide_lua_error(L, "%s: dt must be positive", fn);
  zo.rho = tide_opt_num(&o, "rho", 1000, 1e-300, HUGE_VAL);
  zo.phi = tide_opt_array(&o, "phi");
  zo.fractions = tide_opt_obj(&o, "fractions", TIDE_MAC_T);
  zo.formulation = tide_opt_choice(&o, "formulation", "spd", FORMS);
  const char *defsolver = zo.formulation == TIDE_ZARIFI_INDEFINITE ? "bicgstab" : "pcg";
  zo.solver = tide_opt_choice(&o, "solver", defsolver, SOLVERS);
  zo.sigma = tide_opt_num(&o, "sigma", 0.9, 1e-12, 1 - 1e-12);
  if (tide_opt_has(&o, "alpha")) {
    lua_getfield(L, 1, "alpha");
    int isauto = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "auto");
    lua_pop(L, 1);
    if (!isauto) {
      zo.alpha = tide_opt_num(&o, "alpha", 0, 1e-300, HUGE_VAL);
      if (!(zo.alpha > 0)) tide_lua_error(L, "%s: alpha must be \"auto\" or a positive number", fn);
    }
  }
  zo.tol = tide_opt_num(&o, "tol", 1e-10, 1e-300, 0.5);
  zo.maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1000000000);
  zo.rotate = tide_opt_bool(&o, "rotate", 1);
  zo.elastic = tide_opt_bool(&o, "elastic", 1);
  zo.elastic_force = tide_opt_bool(&o, "elastic_force", 1);
  zo.sampling = tide_opt_choice(&o, "sampling", "cell", SAMPLINGS);
  zo.relative = tide_opt_obj(&o, "relative", TIDE_MAC_T);
  if (zo.relative && (tide_mac_check(zo.relative, g, TIDE_F64, "relative")))
    tide_lua_error(L, "%s: %s", fn, tide_errmsg());
  zo.ring = (int)tide_opt_int(&o, "ring", 1, 0, 64);
  zo.interface_solve = tide_opt_choice(&o, "interface_solve", "auto", IFACES);
  zo.theta_min = tide_opt_num(&o, "theta_min", TIDE_MAC_THETA_MIN, 1e-12, 1);
  zo.colliders = tide_lua_solid_colliders(L, &o, &zo.ncolliders);
  zo.contact_dhat = tide_opt_num(&o, "dhat", 0, 0, HUGE_VAL);
  zo.contact_kappa = tide_opt_num(&o, "kappa", 0, 0, HUGE_VAL);
  if (zo.ncolliders > 0 && zo.contact_dhat > 0 && zo.formulation == TIDE_ZARIFI_FACTORED)
    tide_lua_error(L, "%s: the wall barrier (colliders with dhat > 0) needs formulation spd or "
                      "indefinite, not factored", fn);
  tide_array *pressure = tide_opt_array(&o, "pressure");
  tide_mac *valid = tide_opt_obj(&o, "valid", TIDE_MAC_T);
  int want_matrix = tide_opt_bool(&o, "matrix", 0);
  lua_getfield(L, 1, "workspace");
  if (!lua_isnil(L, -1)) {
    zo.work = tide_lua_testobj(L, -1, WORK_T);
    if (!zo.work)
      tide_lua_error(L, "%s: workspace must be a tide.couple.workspace(grid), got %s", fn,
                     luaL_typename(L, -1));
    const tide_grid *wg = tide_zarifi_work_grid(zo.work);
    if (wg->dim != g->dim || wg->n[0] != g->n[0] || wg->n[1] != g->n[1] || wg->n[2] != g->n[2])
      tide_lua_error(L, "%s: the workspace is for a %dx%dx%d grid, u is on %dx%dx%d", fn, wg->n[0],
                     wg->n[1], wg->n[2], g->n[0], g->n[1], g->n[2]);
  }
  lua_pop(L, 1);
  tide_zarifi_system *kept = NULL;
  if (tide_opt_bool(&o, "keep", 0)) zo.keep = &kept;
  zo.warm = tide_opt_bool(&o, "warm", 0);
  if (zo.warm && !pressure)
    tide_lua_error(L, "%s: warm = true starts from the pressure array: give pressure =", fn);
  int must = tide_opt_bool(&o, "must_converge", 1);
  /* the solids: a list of TetMesh or one */
  int ns;
  tide_tetmesh **solids = material_solids(L, fn, &ns);
  tide_csr *sys = NULL;
  if (want_matrix) {
    need_matrix_type(L);
    zo.system = &sys;
  }
  tide_zarifi_stats st;
  int s = tide_zarifi_project(u, labels, solids, ns, &zo, pressure, valid, &st);
  /* must_converge = false: a Krylov solver's failure to converge, its breakdown or a
   * non-finite iterate is returned as converged = false (with the message in stats.error),
   * so the caller can retry with a direct solver; u and the solids are unchanged then */
  int krylov = zo.solver != TIDE_ZARIFI_CHOLMOD && zo.solver != TIDE_ZARIFI_LDLT;
  int soft = s == TIDE_ENOCONV || (krylov && (s == TIDE_ENONFINITE || s == TIDE_ENOTSPD));
  char err[256] = "";
  if (s && soft && !must) snprintf(err, sizeof err, "%s", tide_errmsg());
  if (s && !(soft && !must)) {
    tide_csr_free(sys);
    tide_lua_check(L, s, fn);
  }
  push_stats(L, &st, s, &zo, err);
  int t = lua_gettop(L);
  if (kept) push_system(L, kept, &zo);
  if (sys) {
    push_matrix(L, sys);
    lua_setfield(L, t, "matrix");
  }
  return 1;
}

static const char *const resolve_keys[] = {"system", "u",       "solids", "pressure", "valid",
                                            "elastic_force", "barrier", "warm", "tol", "maxit",
                                            "must_converge", NULL};

/* tide.couple.resolve{ system = (couple.project{ keep = true }).system, u =, solids =
 * [, pressure, valid, elastic_force = true, barrier = true, warm = true, tol = 1e-10, maxit,
 * must_converge = true] } -> stats (zarifi.h: tide_zarifi_resolve) */
static int l_resolve(lua_State *L) {
  const char *fn = "tide.couple.resolve";
  tide_opts o = tide_lua_opts(L, 1, fn, resolve_keys);
  lua_getfield(L, 1, "system");
  lsystem *b = luaL_testudata(L, -1, "tide.couple.System");
  if (!b) tide_lua_error(L, "%s: system must be the system of couple.project{ keep = true }", fn);
  if (!b->S) tide_lua_error(L, "%s: the system was freed", fn);
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T);
  tide_zarifi_resolve_opts ro = tide_zarifi_resolve_opts_default();
  ro.elastic_force = tide_opt_bool(&o, "elastic_force", 1);
  static const char *const BARRIER[] = {"off", "on", "stiffness", NULL};
  lua_getfield(L, 1, "barrier");
  int bt = lua_type(L, -1);
  lua_pop(L, 1);
  ro.barrier = bt == LUA_TSTRING ? tide_opt_choice(&o, "barrier", "on", BARRIER)
                                 : tide_opt_bool(&o, "barrier", 1);
  ro.warm = tide_opt_bool(&o, "warm", 1);
  ro.tol = tide_opt_num(&o, "tol", 1e-10, 1e-300, 0.5);
  ro.maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1000000000);
  int must = tide_opt_bool(&o, "must_converge", 1);
  tide_array *pressure = tide_opt_array(&o, "pressure");
  tide_mac *valid = tide_opt_obj(&o, "valid", TIDE_MAC_T);
  int ns;
  tide_tetmesh **solids = material_solids(L, fn, &ns);
  tide_zarifi_stats st;
  int s = tide_zarifi_resolve(b->S, u, solids, ns, &ro, pressure, valid, &st);
  int krylov = b->o.solver != TIDE_ZARIFI_CHOLMOD && b->o.solver != TIDE_ZARIFI_LDLT;
  int soft = s == TIDE_ENOCONV || (krylov && (s == TIDE_ENONFINITE || s == TIDE_ENOTSPD));
  char err[256] = "";
  if (s && soft && !must) snprintf(err, sizeof err, "%s", tide_errmsg());
  if (s && !(soft && !must)) tide_lua_check(L, s, fn);
  push_stats(L, &st, s, &b->o, err);
  return 1;
}

static const luaL_Reg funcs[] = {{"clip", l_clip}, {"project", l_project}, {"resolve", l_resolve}, {"solid_faces", l_solid_faces}, {"flip_increment", l_flip_increment}, {"contact_dt", l_contact_dt}, {"workspace", l_workspace}, {NULL, NULL}};

void tide_lua_couple_zarifi_open(lua_State *L, int module) {
  tide_lua_newtype(L, WORK_T, work_methods, work_meta);
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
