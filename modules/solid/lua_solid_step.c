/*
 * lua_solid_step.c -- the stepping part of tide.solid: integrators as
 * TetMesh methods (step_linear, step_newmark, step_newton, collide,
 * plastic_flow), the matrices the couplings need (stiffness, ip_hessian),
 * and collision objects (userdata "tide.solid.Collider" holding a
 * tide_collider *).  Registered by lua_solid.c.
 */
#include "solid/integrate.h"
#include "solid/lua_solid.h"

#include <string.h>

#define COLL_T TIDE_SOLID_COLLIDER_T

static tide_collider *checkcoll(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, COLL_T); }

/* ------------------------------------------------------------ colliders */

static void set_motion(lua_State *L, tide_opts *o, tide_collider *c) {
  int d = c->dim;
  double t[3] = {0, 0, 0};
  if (tide_opt_vec(o, "position", d, d, t)) memcpy(c->pos, t, sizeof t);
  memset(t, 0, sizeof t);
  if (tide_opt_vec(o, "velocity", d, d, t)) memcpy(c->vel, t, sizeof t);
  if (tide_opt_has(o, "omega")) {
    if (d == 2) {
      c->omega[0] = c->omega[1] = 0;
      c->omega[2] = tide_opt_num(o, "omega", 0, -HUGE_VAL, HUGE_VAL);
    } else {
      double w[3];
      tide_opt_vec(o, "omega", 3, 3, w);
      memcpy(c->omega, w, sizeof w);
    }
  }
  if (tide_opt_has(o, "mu")) c->mu = tide_opt_num(o, "mu", 0, 0, HUGE_VAL);
  if (tide_opt_has(o, "thickness")) c->thickness = tide_opt_num(o, "thickness", 0, 0, HUGE_VAL);
  (void)L;
}

static const char *const coll_keys[] = {"shape",    "grid",  "phi",       "mu", "position",
                                        "velocity", "omega", "thickness", NULL};
/* S.collider{shape = tide.Shape | grid = tide.Grid, phi = Array,
 *            mu = 0, position = {..}, velocity = {..}, omega = w, thickness = 0} */
static int l_collider(lua_State *L) {
  const char *fn = "tide.solid.collider";
  tide_opts o = tide_lua_opts(L, 1, fn, coll_keys);
  tide_shape *s = tide_opt_obj(&o, "shape", TIDE_SHAPE_T);
  tide_grid *g = tide_opt_obj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_array(&o, "phi");
  if (!!s == !!g) tide_lua_error(L, "%s: give either shape or grid (with phi)", fn);
  if (g && !phi) tide_lua_error(L, "%s: a grid collider needs phi", fn);
  if (s && phi) tide_lua_error(L, "%s: phi goes with grid, not shape", fn);
  double mu = tide_opt_num(&o, "mu", 0, 0, HUGE_VAL);
  tide_collider *c = NULL;
  int st = s ? tide_collider_new_shape(s, mu, &c) : tide_collider_new_grid(g, phi, mu, &c);
  tide_lua_check(L, st, fn);
  tide_lua_pushobj(L, COLL_T, c);
  set_motion(L, &o, c);
  return 1;
}

static const char *const motion_keys[] = {"position", "velocity", "omega", "mu", "thickness", NULL};
/* c:set{position =, velocity =, omega =, mu =, thickness =} */
static int c_set(lua_State *L) {
  tide_collider *c = checkcoll(L, 1);
  tide_opts o = tide_lua_opts(L, 2, "Collider:set", motion_keys);
  set_motion(L, &o, c);
  lua_settop(L, 1);
  return 1;
}

/* c:advance(dt): move with the current velocities */
static int c_advance(lua_State *L) {
  tide_collider *c = checkcoll(L, 1);
  double dt = tide_lua_checkfinite(L, 2, "Collider:advance", "dt");
  tide_lua_check(L, tide_collider_advance(c, dt), "Collider:advance");
  lua_settop(L, 1);
  return 1;
}

/* c:phi(x) -> distance, {normal}, {body velocity} */
static int c_phi(lua_State *L) {
  tide_collider *c = checkcoll(L, 1);
  double x[3] = {0, 0, 0}, N[3], vb[3];
  tide_lua_checkvec(L, 2, "Collider:phi", "point", c->dim, c->dim, x);
  lua_pushnumber(L, tide_collider_phi(c, x, N));
  tide_collider_velocity(c, x, vb);
  for (int t = 0; t < 2; t++) {
    lua_createtable(L, c->dim, 0);
    for (int k = 0; k < c->dim; k++) {
      lua_pushnumber(L, t ? vb[k] : N[k]);
      lua_rawseti(L, -2, k + 1);
    }
  }
  return 3;
}

static int c_index(lua_State *L) {
  tide_collider *c = checkcoll(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "position"))
    tide_lua_pushnumbers(L, c->pos, c->dim);
  else if (!strcmp(k, "velocity"))
    tide_lua_pushnumbers(L, c->vel, c->dim);
  else if (!strcmp(k, "omega")) {
    if (c->dim == 2)
      lua_pushnumber(L, c->omega[2]);
    else
      tide_lua_pushnumbers(L, c->omega, 3);
  } else if (!strcmp(k, "rotation")) {
    lua_createtable(L, c->dim, 0);
    for (int i = 0; i < c->dim; i++) {
      tide_lua_pushnumbers(L, c->rot + 3 * i, c->dim);
      lua_rawseti(L, -2, i + 1);
    }
  } else if (!strcmp(k, "mu"))
    lua_pushnumber(L, c->mu);
  else if (!strcmp(k, "dim"))
    lua_pushinteger(L, c->dim);
  else {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int c_free(lua_State *L) {
  tide_collider_free(tide_lua_takeobj(L, 1, COLL_T));
  return 0;
}

static int c_tostring(lua_State *L) {
  tide_collider *c = tide_lua_testobj(L, 1, COLL_T);
  if (!c)
    lua_pushstring(L, COLL_T " (freed)");
  else
    lua_pushfstring(L, COLL_T " %dD %s, mu = %f", c->dim,
                    c->shape ? tide_shape_kind_name(c->shape->kind) : "grid", c->mu);
  return 1;
}

static const luaL_Reg coll_methods[] = {
    {"set", c_set}, {"advance", c_advance}, {"phi", c_phi}, {"free", c_free}, {NULL, NULL}};
static const luaL_Reg coll_meta[] = {{"__gc", c_free},
                                     {"__close", c_free},
                                     {"__tostring", c_tostring},
                                     {"__index", c_index},
                                     {NULL, NULL}};

/* ------------------------------------------------------------- stepping */

/* colliders = {c1, c2, ...} (or one collider) into a GC-owned array */
tide_collider **tide_lua_solid_colliders(lua_State *L, tide_opts *o, int *n) {
  *n = 0;
  lua_getfield(L, o->idx, "colliders");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return NULL;
  }
  tide_collider *one = tide_lua_testobj(L, -1, COLL_T);
  if (one) {
    tide_collider **a = lua_newuserdatauv(L, sizeof *a, 0);
    a[0] = one;
    lua_remove(L, -2); /* the array stays on the stack (GC anchor) */
    *n = 1;
    return a;
  }
  if (!lua_istable(L, -1))
    tide_lua_error(L, "%s: colliders must be a collider or a list of them, got %s", o->fname,
                   luaL_typename(L, -1));
  lua_Integer k = luaL_len(L, -1);
  if (k > 1024) tide_lua_error(L, "%s: too many colliders", o->fname);
  tide_collider **a = lua_newuserdatauv(L, (size_t)(k ? k : 1) * sizeof *a, 0);
  lua_insert(L, -2); /* keep the array below the list */
  for (lua_Integer i = 1; i <= k; i++) {
    lua_geti(L, -1, i);
    a[i - 1] = tide_lua_testobj(L, -1, COLL_T);
    if (!a[i - 1]) tide_lua_error(L, "%s: colliders[%I] is not a " COLL_T, o->fname, i);
    lua_pop(L, 1);
  }
  lua_pop(L, 1); /* the list; the array userdata stays on the stack (GC anchor) */
  *n = (int)k;
  return a;
}

static void push_stats(lua_State *L, const tide_step_stats *s) {
  lua_createtable(L, 0, 14);
  lua_pushinteger(L, s->iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushinteger(L, s->linear_iterations);
  lua_setfield(L, -2, "linear_iterations");
  lua_pushinteger(L, s->line_search);
  lua_setfield(L, -2, "line_search");
  lua_pushnumber(L, s->residual);
  lua_setfield(L, -2, "residual");
  lua_pushboolean(L, s->converged);
  lua_setfield(L, -2, "converged");
  lua_pushinteger(L, s->contacts);
  lua_setfield(L, -2, "contacts");
  lua_pushinteger(L, s->plastic);
  lua_setfield(L, -2, "plastic");
  lua_pushnumber(L, s->assemble_seconds);
  lua_setfield(L, -2, "assemble_seconds");
  lua_pushnumber(L, s->factor_seconds);
  lua_setfield(L, -2, "factor_seconds");
  lua_pushnumber(L, s->solve_seconds);
  lua_setfield(L, -2, "solve_seconds");
  lua_pushnumber(L, s->total_seconds);
  lua_setfield(L, -2, "seconds");
  lua_pushinteger(L, s->analyses);
  lua_setfield(L, -2, "analyses");
  lua_pushinteger(L, s->friction_iterations);
  lua_setfield(L, -2, "friction_iterations");
  lua_pushnumber(L, s->friction_change);
  lua_setfield(L, -2, "friction_change");
  lua_pushinteger(L, s->ccd_limited);
  lua_setfield(L, -2, "ccd_limited");
  if (s->kappa > 0) { /* solid contact on */
    lua_pushnumber(L, s->kappa);
    lua_setfield(L, -2, "kappa");
    lua_pushinteger(L, s->kappa_updates);
    lua_setfield(L, -2, "kappa_updates");
    lua_pushnumber(L, s->min_distance);
    lua_setfield(L, -2, "min_distance");
    lua_pushinteger(L, s->prescribed_rounds);
    lua_setfield(L, -2, "prescribed_rounds");
    lua_pushnumber(L, s->prescribed_error);
    lua_setfield(L, -2, "prescribed_error");
    lua_pushinteger(L, s->ccd_iterations);
    lua_setfield(L, -2, "ccd_iterations");
    lua_pushinteger(L, s->ccd_capped);
    lua_setfield(L, -2, "ccd_capped");
    lua_pushnumber(L, s->broad_seconds);
    lua_setfield(L, -2, "broad_seconds");
    lua_pushnumber(L, s->ccd_seconds);
    lua_setfield(L, -2, "ccd_seconds");
  }
}

static const char *const contact_choices[] = {"friction", "simple", NULL};
static const char *const newton_contact_choices[] = {"friction", "simple", "barrier", NULL};
static const char *const solver_choices[] = {"auto", "cholmod", "ldlt", "pcg", NULL};
static const char *const direct_choices[] = {"auto", "cholmod", "ldlt", NULL};

static tide_step_opts parse_common(lua_State *L, tide_opts *o, tide_collider ***cs) {
  tide_step_opts so = tide_step_opts_default();
  so.dt = tide_opt_reqnum(o, "dt", 0, HUGE_VAL);
  if (!(so.dt > 0)) tide_lua_error(L, "%s: dt must be positive", o->fname);
  int n;
  *cs = tide_lua_solid_colliders(L, o, &n);
  so.colliders = *cs;
  so.ncolliders = n;
  so.maxit = (int)tide_opt_int(o, "maxit", 0, 0, 100000000);
  return so;
}

static const char *const linear_keys[] = {
    "dt", "colliders", "contact", "corotational", "solver", "tol", "maxit", "reuse", NULL};
/* m:step_linear{dt =, corotational = true, solver = "auto"|"cholmod"|"ldlt"|"pcg", tol =,
 *               colliders =, contact = "friction"|"simple", reuse = true} -> stats */
static int m_step_linear(lua_State *L) {
  const char *fn = "TetMesh:step_linear";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  tide_opts o = tide_lua_opts(L, 2, fn, linear_keys);
  tide_collider **cs;
  tide_step_opts so = parse_common(L, &o, &cs);
  so.contact = tide_opt_choice(&o, "contact", "friction", contact_choices);
  so.corotational = tide_opt_bool(&o, "corotational", 1);
  so.solver = tide_opt_choice(&o, "solver", "auto", solver_choices);
  so.tol = tide_opt_num(&o, "tol", 1e-8, 1e-300, 0.999);
  so.reuse = tide_opt_bool(&o, "reuse", 1);
  tide_step_stats st;
  tide_lua_check(L, tide_solid_step_linear(m, &so, &st), fn);
  tide_lua_gcaccount(L);
  push_stats(L, &st);
  return 1;
}

static const char *const newmark_keys[] = {"dt", "colliders", "tol", "maxit", NULL};
/* m:step_newmark{dt =, colliders =, tol = 1e-10 (CG), maxit =} -> stats */
static int m_step_newmark(lua_State *L) {
  const char *fn = "TetMesh:step_newmark";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  tide_opts o = tide_lua_opts(L, 2, fn, newmark_keys);
  tide_collider **cs;
  tide_step_opts so = parse_common(L, &o, &cs);
  so.tol = tide_opt_num(&o, "tol", 1e-10, 1e-300, 0.999);
  tide_step_stats st;
  tide_lua_check(L, tide_solid_step_newmark(m, &so, &st), fn);
  push_stats(L, &st);
  return 1;
}

static const char *const newton_keys[] = {
    "dt",           "colliders", "contact",        "tol",   "maxit",
    "project",      "reuse",     "solver",         "eps_v", "friction_iterations",
    "friction_tol", "guess",     "dhat",           "kappa", "mu",
    "kappa_adapt",  "check",     "contact_offset", NULL};
static const char *const guess_choices[] = {"predicted", "start", NULL};
/* m:step_newton{dt =, tol = 1e-6 (|dx|_inf/dt), maxit = 50, project = true,
 *               reuse = true, solver = "auto"|"cholmod"|"ldlt", colliders =,
 *               contact = "friction"|"simple"|"barrier", eps_v = 1e-4,
 *               friction_iterations = 2,
 *               friction_tol = 0.02, guess = "predicted"|"start",
 *               dhat = 0 (> 0: contact among the mesh's primitives, ipc.h),
 *               kappa = IPC's kappa_min, mu = 0 (friction between the
 *               mesh's primitives), kappa_adapt = true, check = false} -> stats */
static int m_step_newton(lua_State *L) {
  const char *fn = "TetMesh:step_newton";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  tide_opts o = tide_lua_opts(L, 2, fn, newton_keys);
  tide_collider **cs;
  tide_step_opts so = parse_common(L, &o, &cs);
  so.contact = tide_opt_choice(&o, "contact", "friction", newton_contact_choices);
  so.tol = tide_opt_num(&o, "tol", 1e-6, 1e-300, HUGE_VAL);
  so.project = tide_opt_bool(&o, "project", 1);
  so.reuse = tide_opt_bool(&o, "reuse", 1);
  so.solver = tide_opt_choice(&o, "solver", "auto", direct_choices);
  so.eps_v = tide_opt_num(&o, "eps_v", 1e-4, 1e-300, HUGE_VAL);
  so.friction_iterations = (int)tide_opt_int(&o, "friction_iterations", 2, 1, 1000);
  so.friction_tol = tide_opt_num(&o, "friction_tol", 0.02, 1e-300, HUGE_VAL);
  so.guess = tide_opt_choice(&o, "guess", "predicted", guess_choices);
  so.dhat = tide_opt_num(&o, "dhat", 0, 0, HUGE_VAL);
  so.kappa = tide_opt_num(&o, "kappa", 0, 0, HUGE_VAL);
  so.contact_offset = tide_opt_num(&o, "contact_offset", 0, 0, HUGE_VAL);
  so.mu = tide_opt_num(&o, "mu", 0, 0, HUGE_VAL);
  so.kappa_adapt = tide_opt_bool(&o, "kappa_adapt", 1);
  so.check = tide_opt_bool(&o, "check", 0);
  tide_step_stats st;
  tide_lua_check(L, tide_solid_step_newton(m, &so, &st), fn);
  tide_lua_gcaccount(L);
  push_stats(L, &st);
  return 1;
}

static const char *const collide_keys[] = {"dt", "colliders", "contact", NULL};
/* m:collide{dt =, colliders =, contact = "friction"|"simple"} -> count:
 * project penetrating nodes out and fix their velocities */
static int m_collide(lua_State *L) {
  const char *fn = "TetMesh:collide";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, collide_keys);
  tide_collider **cs;
  tide_step_opts so = parse_common(L, &o, &cs);
  int simple = tide_opt_choice(&o, "contact", "friction", contact_choices);
  int64_t n = 0;
  tide_lua_check(L, tide_solid_collide_project(m, cs, so.ncolliders, so.dt, simple, &n), fn);
  lua_pushinteger(L, n);
  return 1;
}

/* m:plastic_flow() -> elements that yielded (return mapping at the current positions) */
static int m_plastic_flow(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkfem(L, 1, "TetMesh:plastic_flow");
  int64_t n;
  tide_lua_check(L, tide_fem_plastic_flow(m, TIDE_F64P(m->x), &n), "TetMesh:plastic_flow");
  lua_pushinteger(L, n);
  return 1;
}

/* m:total_energy() -> kinetic + elastic + gravitational potential [J] */
static int m_total_energy(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkfem(L, 1, "TetMesh:total_energy");
  double E;
  tide_lua_check(L, tide_solid_total_energy(m, &E), "TetMesh:total_energy");
  lua_pushnumber(L, E);
  return 1;
}

static void push_matrix_copy(lua_State *L, const tide_csr *A, const char *fn) {
  lua_getglobal(L, "require"); /* tide.Matrix's metatable lives in tide.linalg */
  lua_pushstring(L, "tide.linalg");
  lua_call(L, 1, 0);
  tide_csr *C = NULL;
  tide_lua_check(L, tide_csr_clone(A, &C), fn);
  tide_lua_pushobj(L, TIDE_MATRIX_T, C);
  tide_lua_gcaccount(L);
}

static const char *const stiff_keys[] = {"rotate", NULL};
/* m:stiffness{rotate = true} -> K (tide.Matrix, nv*d square), b (Array (nv, d)):
 * Zarifi's corotated K = sum R Kt R^T and b = sum R Kt X at the current
 * positions (Eq. 3.53-3.54) */
static int m_stiffness(lua_State *L) {
  const char *fn = "TetMesh:stiffness";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  tide_opts o = tide_lua_optopts(L, 2, fn, stiff_keys);
  int rot = tide_opt_bool(&o, "rotate", 1);
  const tide_csr *K;
  const double *b;
  tide_lua_check(L, tide_solid_corot_matrices(m, TIDE_F64P(m->x), rot, &K, &b), fn);
  push_matrix_copy(L, K, fn);
  tide_array *ba = tide_array_new2(TIDE_F64, m->nv, m->dim);
  if (!ba) tide_lua_check(L, TIDE_ENOMEM, fn);
  memcpy(TIDE_F64P(ba), b, (size_t)(m->nv * m->dim) * sizeof(double));
  tide_lua_pusharray(L, ba);
  return 2;
}

static const char *const hess_keys[] = {"dt", "xhat", "project", "pinned", NULL};
/* m:ip_hessian{dt =, xhat = Array (nv, d) [, project = true, pinned = false]}
 * -> H (tide.Matrix, upper storage), E, gradient (Array): the incremental
 * potential at the current positions (fem.h; Liu et al. Eq. 22, solid part);
 * the start positions for damping are the rest positions if none moved. */
static int m_ip_hessian(lua_State *L) {
  const char *fn = "TetMesh:ip_hessian";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  tide_opts o = tide_lua_opts(L, 2, fn, hess_keys);
  double dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  if (!(dt > 0)) tide_lua_error(L, "%s: dt must be positive", fn);
  tide_array *xh = tide_opt_reqarray(&o, "xhat");
  int64_t shape[2] = {m->nv, m->dim};
  if (tide_array_expect(xh, "xhat", TIDE_F64, 2, shape))
    tide_lua_error(L, "%s: %s", fn, tide_errmsg());
  if (tide_array_nonfinite(xh)) tide_lua_error(L, "%s: xhat contains NaN/Inf", fn);
  int flags = (tide_opt_bool(&o, "project", 1) ? TIDE_FEM_PROJECT : 0) |
              (tide_opt_bool(&o, "pinned", 0) ? TIDE_FEM_PINNED : 0);
  const double *x = TIDE_F64P(m->x);
  tide_ip ip = {dt, TIDE_F64P(xh), x};
  const tide_csr *H;
  tide_lua_check(L, tide_solid_ip_matrix(m, &ip, x, flags, &H), fn);
  push_matrix_copy(L, H, fn);
  double E;
  tide_lua_check(L, tide_fem_ip_value(m, &ip, x, &E), fn);
  lua_pushnumber(L, E);
  tide_array *g = tide_array_new2(TIDE_F64, m->nv, m->dim);
  if (!g) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, g);
  tide_lua_check(L, tide_fem_ip_gradient(m, &ip, x, TIDE_F64P(g)), fn);
  return 3;
}

static const luaL_Reg step_methods[] = {{"step_linear", m_step_linear},
                                        {"step_newmark", m_step_newmark},
                                        {"step_newton", m_step_newton},
                                        {"collide", m_collide},
                                        {"plastic_flow", m_plastic_flow},
                                        {"total_energy", m_total_energy},
                                        {"stiffness", m_stiffness},
                                        {"ip_hessian", m_ip_hessian},
                                        {NULL, NULL}};

void tide_lua_solid_step_open(lua_State *L, int methods, int module) {
  lua_pushvalue(L, methods);
  luaL_setfuncs(L, step_methods, 0);
  lua_pop(L, 1);
  tide_lua_newtype(L, COLL_T, coll_methods, coll_meta);
  lua_pushcfunction(L, l_collider);
  lua_setfield(L, module, "collider");
}
