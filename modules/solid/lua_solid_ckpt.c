/*
 * lua_solid_ckpt.c -- checkpoint hooks of tide.TetMesh (see docs/output.md
 * "Checkpoints").  State table:
 *   dim, nper, rest (nv, d), x (nv, d), v (nv, d), elements (ne, nper) i32
 *   1-based, Dminv (ne, d, d) and rest_volume (ne) (volume meshes), and with
 *   a material: material = {model, mu, lambda, gamma, spline_lo, spline_hi,
 *   spline_klo, spline_khi, fiber_k, fiber {3}, damping_alpha,
 *   damping_beta, density, gravity {3}, rayleigh_mass, rayleigh_stiffness,
 *   mass (nv), pinned u8 (nv), target (nv, d), force (nv, d), rotations
 *   (ne, d, d), contact_force (nv), contact_collider i32 (nv) (the lag of
 *   step_newton's friction; absent in older checkpoints)[, ipc = {kappa,
 *   dhat, kappa_option} (IPC's adaptive kappa, kept across steps for those
 *   step options)][, fibers (ne, d)][, plasticity = {yield, limit, isochoric, Fpinv,
 *   Dminv_eff[, goal]}]}; meshes with shells or rods (thin.h) add thin =
 *   {part tables: kind, the membrane model's fields, thickness, bending,
 *   stretch, twist, density, damping, bend_yield, bend_model, poisson,
 *   nodes0, nodes1, n1, n2, n3, s1, r1, a1, s2, r2, w2, s3, w3, r3, h3 (the
 *   part's own arrays, 0-based)} and bound, bound_elem (0-based); their
 *   material state is set directly (no volume material attach).
 * Integrator workspaces (matrices, factorizations, the corotational Kt) are
 * rebuilt on the next step; they hold no state that changes its result
 * (the adaptive kappa they once held is the fem's ipc_kappa, stored with
 * ipc_dmin, the contact distance its update compares with next).
 */
#include "grid/lua_grid_ckpt.h"
#include "solid/fem.h"
#include "solid/thin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FN "tide.fileio.restore (tide.TetMesh)"

/* the fields of a tide_material into the table at the top */
static void push_model(lua_State *L, const tide_material *t) {
  lua_pushstring(L, tide_model_name(t->model));
  lua_setfield(L, -2, "model");
  tide_ckpt_setnum(L, "mu", t->mu);
  tide_ckpt_setnum(L, "lambda", t->lambda);
  tide_ckpt_setnum(L, "gamma", t->gamma);
  tide_ckpt_setnum(L, "spline_lo", t->spline_lo);
  tide_ckpt_setnum(L, "spline_hi", t->spline_hi);
  tide_ckpt_setnum(L, "spline_klo", t->spline_klo);
  tide_ckpt_setnum(L, "spline_khi", t->spline_khi);
  tide_ckpt_setnum(L, "fiber_k", t->fiber_k);
  tide_ckpt_setvec(L, "fiber", t->fiber, 3);
  tide_ckpt_setnum(L, "damping_alpha", t->damp_alpha);
  tide_ckpt_setnum(L, "damping_beta", t->damp_beta);
  lua_pushboolean(L, t->plane_stress);
  lua_setfield(L, -2, "plane_stress");
}

static void push_material(lua_State *L, const tide_tetmesh *m) {
  const tide_fem *f = m->fem;
  lua_createtable(L, 0, 24);
  push_model(L, &f->mat);
  tide_ckpt_setnum(L, "density", f->rho);
  tide_ckpt_setvec(L, "gravity", f->gravity, 3);
  tide_ckpt_setnum(L, "rayleigh_mass", f->tau_m);
  tide_ckpt_setnum(L, "rayleigh_stiffness", f->tau_k);
  tide_ckpt_setarray(L, "mass", f->mass);
  tide_ckpt_setarray(L, "pinned", f->pinned);
  tide_ckpt_setarray(L, "target", f->target);
  tide_ckpt_setarray(L, "force", f->force);
  if (tide_fem_nvol(m)) tide_ckpt_setarray(L, "rotations", f->R);
  tide_ckpt_setarray(L, "contact_force", f->contact_force);
  tide_ckpt_setarray(L, "contact_collider", f->contact_collider);
  if (f->ipc_kappa > 0) { /* IPC's adaptive kappa and the options it is for */
    lua_createtable(L, 0, 3);
    tide_ckpt_setnum(L, "kappa", f->ipc_kappa);
    tide_ckpt_setnum(L, "dhat", f->ipc_kappa_dhat);
    tide_ckpt_setnum(L, "kappa_option", f->ipc_kappa_opt);
    tide_ckpt_setnum(L, "dmin", f->ipc_dmin);
    lua_setfield(L, -2, "ipc");
  }
  tide_ckpt_setarray(L, "fibers", f->fiber);
  if (f->Fpinv) {
    lua_createtable(L, 0, 5);
    tide_ckpt_setnum(L, "yield", f->yield);
    tide_ckpt_setnum(L, "limit", f->plastic_limit);
    lua_pushboolean(L, f->isochoric);
    lua_setfield(L, -2, "isochoric");
    tide_ckpt_setarray(L, "Fpinv", f->Fpinv);
    tide_ckpt_setarray(L, "Dminv_eff", f->Dminv_eff);
    tide_ckpt_setarray(L, "goal", f->Fpgoal);
    lua_setfield(L, -2, "plasticity");
  }
  lua_setfield(L, -2, "material");
}

/* the thin parts as a list of tables (their arrays shared; node indices
 * 0-based as stored: they are the part's own data, not user-facing) */
static void push_thin(lua_State *L, const tide_thin *t) {
  lua_createtable(L, t->nparts, 0);
  for (int i = 0; i < t->nparts; i++) {
    const tide_thin_part *p = &t->parts[i];
    lua_createtable(L, 0, 32);
    lua_pushstring(L, p->p.kind == TIDE_THIN_SHELL ? "shell" : "rod");
    lua_setfield(L, -2, "kind");
    push_model(L, &p->p.mat);
    tide_ckpt_setnum(L, "thickness", p->p.thickness);
    tide_ckpt_setnum(L, "bending", p->p.bending);
    tide_ckpt_setnum(L, "stretch", p->p.stretch);
    tide_ckpt_setnum(L, "twist", p->p.twist);
    tide_ckpt_setnum(L, "density", p->p.density);
    tide_ckpt_setnum(L, "damping", p->p.damping);
    tide_ckpt_setnum(L, "bend_yield", p->p.bend_yield);
    tide_ckpt_setint(L, "bend_model", p->p.bend_model);
    tide_ckpt_setnum(L, "poisson", p->p.poisson);
    tide_ckpt_setint(L, "nodes0", p->nodes0);
    tide_ckpt_setint(L, "nodes1", p->nodes1);
    tide_ckpt_setint(L, "n1", p->n1);
    tide_ckpt_setint(L, "n2", p->n2);
    tide_ckpt_setint(L, "n3", p->n3);
    if (p->n1) tide_ckpt_setarray(L, "s1", p->s1), tide_ckpt_setarray(L, "r1", p->r1);
    if (p->n1 && p->a1) tide_ckpt_setarray(L, "a1", p->a1);
    if (p->n2) {
      tide_ckpt_setarray(L, "s2", p->s2);
      tide_ckpt_setarray(L, "r2", p->r2);
      tide_ckpt_setarray(L, "w2", p->w2);
    }
    if (p->n3) {
      tide_ckpt_setarray(L, "s3", p->s3);
      tide_ckpt_setarray(L, "w3", p->w3);
      if (p->r3) tide_ckpt_setarray(L, "r3", p->r3);
      if (p->h3) tide_ckpt_setarray(L, "h3", p->h3);
    }
    lua_rawseti(L, -2, i + 1);
  }
}

static int mesh_checkpoint(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkobj(L, 1, TIDE_TETMESH_T);
  lua_createtable(L, 0, 12);
  tide_ckpt_setint(L, "dim", m->dim);
  tide_ckpt_setint(L, "nper", m->nper);
  tide_ckpt_setarray(L, "rest", m->rest);
  tide_ckpt_setarray(L, "x", m->x);
  tide_ckpt_setarray(L, "v", m->v);
  tide_array *e = tide_array_new2(TIDE_I32, m->ne, m->nper); /* 1-based, as m:elements() */
  if (!e) tide_lua_check(L, TIDE_ENOMEM, "TetMesh checkpoint");
  const int32_t *src = TIDE_I32P(m->elem);
  int32_t *dst = TIDE_I32P(e);
  for (int64_t k = 0; k < m->ne * m->nper; k++) dst[k] = src[k] + 1;
  tide_lua_pusharray(L, e);
  lua_setfield(L, -2, "elements");
  tide_ckpt_setarray(L, "Dminv", m->Dminv);
  tide_ckpt_setarray(L, "rest_volume", m->vol);
  if (m->fem) push_material(L, m);
  if (m->fem && m->fem->thin) {
    push_thin(L, m->fem->thin);
    lua_setfield(L, -2, "thin");
    if (m->nb) { /* a merged mesh's boundary holds its shells' triangles */
      tide_ckpt_setarray(L, "bound", m->bound);
      tide_ckpt_setarray(L, "bound_elem", m->bound_elem);
    }
  }
  return 1;
}

static const char *const plastic_keys[] = {"yield", "limit", "isochoric", "Fpinv", "Dminv_eff", "goal", NULL};
static const char *const mat_keys[] = {
    "model",        "mu",       "lambda",        "gamma",         "spline_lo",          "spline_hi",
    "spline_klo",   "spline_khi", "fiber_k",     "fiber",         "damping_alpha",      "damping_beta",
    "density",      "gravity",  "rayleigh_mass", "rayleigh_stiffness", "mass",          "pinned",
    "target",       "force",    "rotations",     "fibers",        "plasticity",
    "contact_force", "contact_collider", "plane_stress", "ipc", NULL};
static const char *const ipc_keys[] = {"kappa", "dhat", "kappa_option", "dmin", NULL};

/* the tide_material fields of the table at idx */
static void read_model(lua_State *L, int idx, const char *fn, tide_material *out) {
  if (lua_getfield(L, idx, "model") != LUA_TSTRING)
    tide_lua_error(L, "%s: field 'model' must be a string", fn);
  tide_material t;
  memset(&t, 0, sizeof t);
  t.model = -1;
  for (int k = 0; k < TIDE_MODEL_COUNT; k++)
    if (!strcmp(tide_model_name(k), lua_tostring(L, -1))) t.model = k;
  if (t.model < 0) tide_lua_error(L, "%s: unknown model '%s'", fn, lua_tostring(L, -1));
  lua_pop(L, 1);
  const double H = HUGE_VAL;
  t.mu = tide_ckpt_num(L, idx, fn, "mu", 0, H);
  t.lambda = tide_ckpt_num(L, idx, fn, "lambda", -H, H);
  t.gamma = tide_ckpt_num(L, idx, fn, "gamma", -H, H);
  t.spline_lo = tide_ckpt_num(L, idx, fn, "spline_lo", -H, H);
  t.spline_hi = tide_ckpt_num(L, idx, fn, "spline_hi", -H, H);
  t.spline_klo = tide_ckpt_num(L, idx, fn, "spline_klo", -H, H);
  t.spline_khi = tide_ckpt_num(L, idx, fn, "spline_khi", -H, H);
  t.fiber_k = tide_ckpt_num(L, idx, fn, "fiber_k", 0, H);
  tide_ckpt_vec(L, idx, fn, "fiber", 3, t.fiber);
  t.damp_alpha = tide_ckpt_num(L, idx, fn, "damping_alpha", 0, H);
  t.damp_beta = tide_ckpt_num(L, idx, fn, "damping_beta", 0, H);
  lua_getfield(L, idx, "plane_stress"); /* absent in checkpoints of older versions */
  int has_ps = !lua_isnil(L, -1);
  lua_pop(L, 1);
  t.plane_stress = has_ps ? tide_ckpt_bool(L, idx, fn, "plane_stress") : 0;
  *out = t;
}

/* the material table at idx onto the new mesh m (anchored on the stack);
 * thin != 0: the mesh's shells and rods are restored after it (their
 * material state is set directly, as tide_thin_merge does) */
static void restore_material(lua_State *L, int idx, tide_tetmesh *m, int thin) {
  const char *fn = FN " material";
  idx = lua_absindex(L, idx);
  tide_ckpt_keys(L, idx, fn, mat_keys);
  if (m->surface && !thin) tide_lua_error(L, "%s: a surface mesh cannot have a material", fn);
  int d = m->dim;
  const double H = HUGE_VAL;
  tide_material t;
  read_model(L, idx, fn, &t);
  double rho = tide_ckpt_num(L, idx, fn, "density", 0, H);
  double g[3];
  tide_ckpt_vec(L, idx, fn, "gravity", 3, g);
  double tm = tide_ckpt_num(L, idx, fn, "rayleigh_mass", 0, H);
  double tk = tide_ckpt_num(L, idx, fn, "rayleigh_stiffness", 0, H);
  int64_t s1[1] = {m->nv}, s2[2] = {m->nv, d}, se[3] = {m->ne, d, d}, sf[2] = {m->ne, d};
  tide_array *mass = tide_ckpt_array(L, idx, fn, "mass", TIDE_F64, 1, s1, 1, 0);
  tide_array *pinned = tide_ckpt_array(L, idx, fn, "pinned", TIDE_U8, 1, s1, 0, 0);
  tide_array *target = tide_ckpt_array(L, idx, fn, "target", TIDE_F64, 2, s2, 1, 0);
  tide_array *force = tide_ckpt_array(L, idx, fn, "force", TIDE_F64, 2, s2, 1, 0);
  tide_array *rot = tide_ckpt_array(L, idx, fn, "rotations", TIDE_F64, 3, se, 1, tide_fem_nvol(m) == 0);
  tide_array *fib = tide_ckpt_array(L, idx, fn, "fibers", TIDE_F64, 2, sf, 1, 1);
  tide_array *cf = tide_ckpt_array(L, idx, fn, "contact_force", TIDE_F64, 1, s1, 1, 1);
  tide_array *cc = tide_ckpt_array(L, idx, fn, "contact_collider", TIDE_I32, 1, s1, 0, 1);
  for (int64_t i = 0; i < m->nv; i++)
    if (TIDE_U8P(pinned)[i] > 1)
      tide_lua_error(L, "%s: field 'pinned' must hold 0 or 1, got %d at node %I", fn,
                     (int)TIDE_U8P(pinned)[i], (lua_Integer)i + 1);
  for (int64_t i = 0; i < m->nv; i++)
    if (!(TIDE_F64P(mass)[i] >= 0))
      tide_lua_error(L, "%s: field 'mass' is negative at node %I", fn, (lua_Integer)i + 1);
  tide_array *Fpinv = NULL, *Dme = NULL, *goal = NULL;
  double yield = 0, limit = 0;
  int isochoric = 0;
  int t_pl = lua_getfield(L, idx, "plasticity");
  if (t_pl != LUA_TNIL) {
    const char *fp = FN " plasticity";
    tide_ckpt_keys(L, -1, fp, plastic_keys);
    yield = tide_ckpt_num(L, -1, fp, "yield", 0, H);
    limit = tide_ckpt_num(L, -1, fp, "limit", 1, H);
    lua_getfield(L, -1, "isochoric"); /* absent in checkpoints of older versions */
    isochoric = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (isochoric) isochoric = tide_ckpt_bool(L, -1, fp, "isochoric");
    Fpinv = tide_ckpt_array(L, -1, fp, "Fpinv", TIDE_F64, 3, se, 1, 0);
    Dme = tide_ckpt_array(L, -1, fp, "Dminv_eff", TIDE_F64, 3, se, 1, 0);
    goal = tide_ckpt_array(L, -1, fp, "goal", TIDE_F64, 3, se, 1, 1);
  }
  lua_pop(L, 1); /* the arrays stay referenced by the state table */
  double kap[4] = {0, 0, 0, 0}; /* absent in older checkpoints: the next step starts anew */
  if (lua_getfield(L, idx, "ipc") != LUA_TNIL) {
    const char *fi = FN " material.ipc";
    tide_ckpt_keys(L, -1, fi, ipc_keys);
    kap[0] = tide_ckpt_num(L, -1, fi, "kappa", 0, H);
    kap[1] = tide_ckpt_num(L, -1, fi, "dhat", 0, H);
    kap[2] = tide_ckpt_num(L, -1, fi, "kappa_option", 0, H);
    if (!(kap[0] > 0)) tide_lua_error(L, "%s: field 'kappa' must be positive", fi);
    /* the last contact distance (0: none; absent in older checkpoints) */
    if (lua_getfield(L, -1, "dmin") != LUA_TNIL) kap[3] = tide_ckpt_num(L, -2, fi, "dmin", 0, H);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (thin && (fib || Fpinv)) tide_lua_error(L, "%s: a mesh with shells or rods has no fibres or plasticity", fn);
  if (thin) {
    if (!(rho > 0)) tide_lua_error(L, "%s: field 'density' must be positive", fn);
    tide_lua_check(L, tide_fem_alloc(m), fn);
    m->fem->mat = t;
    m->fem->rho = rho;
  } else {
    tide_lua_check(L, tide_fem_attach(m, &t, rho), fn);
  }
  tide_fem *f = m->fem;
  f->tau_m = tm;
  f->tau_k = tk;
  memcpy(f->gravity, g, sizeof g);
  if (d == 2) f->gravity[2] = 0;
  tide_ckpt_copy(f->mass, mass);
  tide_ckpt_copy(f->pinned, pinned);
  tide_ckpt_copy(f->target, target);
  tide_ckpt_copy(f->force, force);
  if (rot) tide_ckpt_copy(f->R, rot);
  if (cf) tide_ckpt_copy(f->contact_force, cf);
  if (cc) tide_ckpt_copy(f->contact_collider, cc);
  f->ipc_kappa = kap[0], f->ipc_kappa_dhat = kap[1], f->ipc_kappa_opt = kap[2], f->ipc_dmin = kap[3];
  if (fib) {
    tide_lua_check(L, tide_fem_set_fibers(m, TIDE_F64P(fib)), fn);
    tide_ckpt_copy(f->fiber, fib); /* exactly as stored (already unit length) */
  }
  if (Fpinv) {
    tide_lua_check(L, tide_fem_set_plasticity(m, yield, limit, goal ? TIDE_F64P(goal) : NULL,
                                                      isochoric), fn);
    tide_ckpt_copy(f->Fpinv, Fpinv);
    tide_ckpt_copy(f->Dminv_eff, Dme);
    if (goal) tide_ckpt_copy(f->Fpgoal, goal);
  }
}

static const char *const part_keys[] = {
    "kind",      "model",      "mu",         "lambda",     "gamma",         "spline_lo",
    "spline_hi", "spline_klo", "spline_khi", "fiber_k",    "fiber",         "damping_alpha",
    "damping_beta", "plane_stress", "thickness", "bending", "stretch",       "twist",
    "density",   "damping",    "bend_yield", "bend_model", "poisson",       "nodes0",
    "nodes1",    "n1",         "n2",         "n3",         "s1",            "r1",
    "a1",        "s2",         "r2",         "w2",         "s3",            "w3",
    "r3",        "h3",         NULL};

/* the optional array field key of dtype t, rank ndim (shape: < 0 any),
 * borrowed from the state table (NULL when absent) */
static void part_array(lua_State *L, int idx, const char *fn, const char *key, tide_dtype t,
                       int ndim, const int64_t *shape, tide_array **out) {
  *out = tide_ckpt_array(L, idx, fn, key, t, ndim, shape, t == TIDE_F64, 1);
}

/* the part's own contiguous copies of its borrowed arrays (empty sets
 * present); 0 when out of memory (then it holds nothing) */
static int part_own(tide_thin_part *p) {
  tide_array **a[] = {&p->s1, &p->s2, &p->r1, &p->a1, &p->r2, &p->w2, &p->s3, &p->r3, &p->w3, &p->h3};
  int ok = 1;
  for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
    tide_array *src = *a[k];
    *a[k] = src ? tide_array_clone(src, src->dtype) : NULL;
    if (src && !*a[k]) ok = 0;
  }
  int shell = p->p.kind == TIDE_THIN_SHELL;
  if (!p->s2) p->s2 = tide_array_new2(TIDE_I32, 0, shell ? 4 : 3);
  if (!p->r2) p->r2 = tide_array_new1(TIDE_F64, 0);
  if (!p->w2) p->w2 = tide_array_new1(TIDE_F64, 0);
  if (!p->s2 || !p->r2 || !p->w2) ok = 0;
  if (!ok) tide_thin_part_clear(p);
  return ok;
}

/* the parts (list at idx) onto m; their checks are tide_thin_install's */
static void restore_thin(lua_State *L, int idx, tide_tetmesh *m) {
  const char *fn = FN " thin part";
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) tide_lua_error(L, "%s: field 'thin' must be a list", FN);
  int n = (int)luaL_len(L, idx);
  if (n < 1 || n > 1 << 20) tide_lua_error(L, "%s: field 'thin' must list 1 or more parts", FN);
  tide_thin_part *parts = lua_newuserdatauv(L, (size_t)n * sizeof *parts, 0);
  memset(parts, 0, (size_t)n * sizeof *parts);
  int top = lua_gettop(L);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, idx, i + 1);
    int pi = lua_gettop(L);
    tide_ckpt_keys(L, pi, fn, part_keys);
    tide_thin_part *p = &parts[i];
    if (lua_getfield(L, pi, "kind") != LUA_TSTRING) tide_lua_error(L, "%s: field 'kind' must be a string", fn);
    const char *kind = lua_tostring(L, -1);
    p->p.kind = !strcmp(kind, "shell") ? TIDE_THIN_SHELL : !strcmp(kind, "rod") ? TIDE_THIN_ROD : 0;
    if (!p->p.kind) tide_lua_error(L, "%s: unknown kind '%s'", fn, kind);
    lua_pop(L, 1);
    read_model(L, pi, fn, &p->p.mat);
    const double H = HUGE_VAL;
    p->p.thickness = tide_ckpt_num(L, pi, fn, "thickness", 0, H);
    p->p.bending = tide_ckpt_num(L, pi, fn, "bending", 0, H);
    p->p.stretch = tide_ckpt_num(L, pi, fn, "stretch", 0, H);
    p->p.twist = tide_ckpt_num(L, pi, fn, "twist", 0, H);
    p->p.density = tide_ckpt_num(L, pi, fn, "density", 0, H);
    p->p.damping = tide_ckpt_num(L, pi, fn, "damping", 0, H);
    p->p.bend_yield = tide_ckpt_num(L, pi, fn, "bend_yield", 0, H);
    p->p.bend_model = (int)tide_ckpt_int(L, pi, fn, "bend_model", 0, 2);
    p->p.poisson = tide_ckpt_num(L, pi, fn, "poisson", -1, 0.5);
    p->nodes0 = tide_ckpt_int(L, pi, fn, "nodes0", 0, m->nv);
    p->nodes1 = tide_ckpt_int(L, pi, fn, "nodes1", 0, m->nv);
    p->n1 = tide_ckpt_int(L, pi, fn, "n1", 0, INT32_MAX);
    p->n2 = tide_ckpt_int(L, pi, fn, "n2", 0, INT32_MAX);
    p->n3 = tide_ckpt_int(L, pi, fn, "n3", 0, INT32_MAX);
    int shell = p->p.kind == TIDE_THIN_SHELL, mor = p->p.bend_model == TIDE_BEND_MORLEY;
    int64_t s1[2] = {p->n1, shell ? 3 : 2}, s2[2] = {p->n2, shell ? 4 : 3},
            s3[2] = {-1, shell ? (mor ? 12 : 6) : 4}, v1[1] = {p->n1}, v2[1] = {p->n2},
            v3[1] = {-1}, r1[3] = {p->n1, 2, 2}, w3[3] = {-1, mor ? 9 : 3, mor ? 9 : 3},
            h3[2] = {-1, mor ? 9 : 3};
    part_array(L, pi, fn, "s1", TIDE_I32, 2, s1, &p->s1);
    part_array(L, pi, fn, "r1", TIDE_F64, shell ? 3 : 1, shell ? r1 : v1, &p->r1);
    part_array(L, pi, fn, "a1", TIDE_F64, 1, v1, &p->a1);
    part_array(L, pi, fn, "s2", TIDE_I32, 2, s2, &p->s2);
    part_array(L, pi, fn, "r2", TIDE_F64, 1, v2, &p->r2);
    part_array(L, pi, fn, "w2", TIDE_F64, 1, v2, &p->w2);
    part_array(L, pi, fn, "s3", TIDE_I32, 2, s3, &p->s3);
    part_array(L, pi, fn, "w3", TIDE_F64, shell ? 3 : 1, shell ? w3 : v3, &p->w3);
    part_array(L, pi, fn, "r3", TIDE_F64, 1, v3, &p->r3);
    part_array(L, pi, fn, "h3", TIDE_I32, 2, h3, &p->h3);
    if (!p->s1) tide_lua_error(L, "%s %d: field 's1' (its elements) missing", fn, i + 1);
    lua_settop(L, top);
  }
  /* from here on no Lua error until the parts are owned or cleared */
  int st = TIDE_OK;
  for (int k = 0; k < n; k++)
    if (!part_own(&parts[k])) st = TIDE_ENOMEM;
  if (!st) st = tide_thin_install(m, parts, n);
  if (st) {
    for (int k = 0; k < n; k++) tide_thin_part_clear(&parts[k]);
    tide_lua_check(L, st, fn);
  }
  lua_pop(L, 1);
}

static const char *const mesh_keys[] = {"dim",   "nper",        "rest",     "x",        "v",
                                        "elements", "Dminv",   "rest_volume", "material",
                                        "thin",  "bound",       "bound_elem", NULL};

static int mesh_restore(lua_State *L) {
  const char *fn = FN;
  tide_ckpt_keys(L, 1, fn, mesh_keys);
  int d = (int)tide_ckpt_int(L, 1, fn, "dim", 2, 3);
  int nper = (int)tide_ckpt_int(L, 1, fn, "nper", 2, 4);
  if (nper != d + 1 && nper != 2 && !(d == 3 && nper == 3))
    tide_lua_error(L, "%s: %d nodes per element in %dD (expected %d%s or 2 for segments)", fn,
                   nper, d, d + 1, d == 3 ? ", 3 for a surface" : "");
  int64_t sx[2] = {-1, d};
  tide_array *rest = tide_ckpt_array(L, 1, fn, "rest", TIDE_F64, 2, sx, 1, 0);
  int64_t nv = rest->shape[0];
  if (nv > INT32_MAX) tide_lua_error(L, "%s: too many nodes", fn);
  sx[0] = nv;
  tide_array *x = tide_ckpt_array(L, 1, fn, "x", TIDE_F64, 2, sx, 1, 0);
  tide_array *v = tide_ckpt_array(L, 1, fn, "v", TIDE_F64, 2, sx, 1, 0);
  int64_t se[2] = {-1, nper};
  tide_array *el = tide_ckpt_array(L, 1, fn, "elements", TIDE_I32, 2, se, 0, 0);
  int64_t ne = el->shape[0];
  const int32_t *ev = TIDE_I32P(el);
  int32_t *e0 = lua_newuserdatauv(L, (size_t)(ne * nper > 0 ? ne * nper : 1) * sizeof(int32_t), 0);
  for (int64_t k = 0; k < ne * nper; k++) {
    if (ev[k] < 1 || ev[k] > nv)
      tide_lua_error(L, "%s: element %I refers to node %d outside 1..%I", fn,
                     (lua_Integer)(k / nper) + 1, (int)ev[k], (lua_Integer)nv);
    e0[k] = ev[k] - 1;
  }
  int vm = nper == d + 1;
  int64_t sd[3] = {ne, d, d}, sv[1] = {ne};
  tide_array *Dm = tide_ckpt_array(L, 1, fn, "Dminv", TIDE_F64, 3, sd, 1, !vm);
  tide_array *vol = tide_ckpt_array(L, 1, fn, "rest_volume", TIDE_F64, 1, sv, 1, !vm);
  tide_tetmesh *m = NULL;
  tide_lua_check(L, tide_tetmesh_new(d, nper, nv, TIDE_F64P(rest), ne, e0, "checkpoint", NULL, &m),
                 fn);
  tide_lua_pushobj(L, TIDE_TETMESH_T, m); /* owns m from here on */
  tide_ckpt_copy(m->x, x);
  tide_ckpt_copy(m->v, v);
  /* the stored rest-shape data, exactly (e.g. after writes to m.rest) */
  if (Dm && m->Dminv) tide_ckpt_copy(m->Dminv, Dm);
  if (vol && m->vol) {
    for (int64_t e = 0; e < ne; e++)
      if (!(TIDE_F64P(vol)[e] > 0))
        tide_lua_error(L, "%s: field 'rest_volume' is not positive at element %I", fn,
                       (lua_Integer)e + 1);
    tide_ckpt_copy(m->vol, vol);
  }
  int thin = lua_getfield(L, 1, "thin") != LUA_TNIL;
  lua_pop(L, 1);
  if (lua_getfield(L, 1, "material") != LUA_TNIL) restore_material(L, -1, m, thin);
  else if (thin) tide_lua_error(L, "%s: shells or rods without a material", fn);
  lua_pop(L, 1);
  if (thin) {
    lua_getfield(L, 1, "thin");
    restore_thin(L, -1, m);
    lua_pop(L, 1);
    /* a merged mesh's boundary (its shells' triangles joined), exactly */
    int64_t sb[2] = {-1, 3};
    tide_array *b = tide_ckpt_array(L, 1, fn, "bound", TIDE_I32, 2, sb, 0, 1);
    if (b) {
      int64_t sbe[1] = {b->shape[0]};
      tide_array *be = tide_ckpt_array(L, 1, fn, "bound_elem", TIDE_I32, 1, sbe, 0, 0);
      if (d != 3) tide_lua_error(L, "%s: field 'bound' is for 3D meshes", fn);
      for (int64_t k = 0; k < tide_array_size(b); k++)
        if (TIDE_I32P(b)[k] < 0 || TIDE_I32P(b)[k] >= nv)
          tide_lua_error(L, "%s: field 'bound' refers to a node outside the mesh", fn);
      for (int64_t k = 0; k < b->shape[0]; k++)
        if (TIDE_I32P(be)[k] < -1 || TIDE_I32P(be)[k] >= ne)
          tide_lua_error(L, "%s: field 'bound_elem' refers to an element outside the mesh", fn);
      tide_array *b2 = tide_array_clone(b, TIDE_I32), *be2 = tide_array_clone(be, TIDE_I32);
      if (!b2 || !be2) {
        tide_array_release(b2);
        tide_array_release(be2);
        tide_lua_check(L, TIDE_ENOMEM, fn);
      }
      tide_array_release(m->bound);
      tide_array_release(m->bound_elem);
      m->bound = b2, m->bound_elem = be2, m->nb = b->shape[0];
    }
  }
  tide_lua_gcaccount(L);
  return 1;
}

void tide_lua_shape_ckpt_open(lua_State *L); /* modules/grid/lua_grid_ckpt_shape.c */

/* called by luaopen_tide_solid after the metatable exists */
void tide_lua_solid_ckpt_open(lua_State *L) {
  tide_lua_shape_ckpt_open(L); /* tide.solid.shape hands out shapes too */
  luaL_getmetatable(L, TIDE_TETMESH_T);
  lua_pushcfunction(L, mesh_checkpoint);
  lua_setfield(L, -2, "__checkpoint");
  lua_pushcfunction(L, mesh_restore);
  lua_setfield(L, -2, "__restore");
  lua_pop(L, 1);
}
