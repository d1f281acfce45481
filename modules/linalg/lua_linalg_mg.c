/*
 * lua_linalg_mg.c -- the MAC-grid pressure Poisson solvers in tide.linalg:
 *
 *   tide.linalg.poisson_solve{ grid = g | n = {ni, nj[, nk]}, dx = h,
 *       labels = Array u8, rhs = Array, p = Array (initial guess, output),
 *       weights = {wu, wv[, ww]} | Mac, theta = {tu, tv[, tw]} | Mac
 *       or phi = Array (liquid level set on cells), theta_min = 0.01, method = "mgpcg" | "mic0" |
 * "cg", tol = 1e-6, maxit = auto, must_converge = true, smooth =, boundary_sweeps =, band = }
 *     -> stats { iterations, residual, seconds, setup_seconds, converged,
 *                levels, method }
 *   tide.linalg.poisson_solver{ problem keys..., method =, smooth =, ... }
 *     -> tide.PoissonSolver with :solve{ rhs =, p =, tol =, maxit =,
 *        must_converge = }, :update{ problem keys... }, :info(), :free()
 *   tide.linalg.poisson_apply{ problem keys..., x = Array, y = Array } -> y
 *   tide.linalg.poisson_matrix{ problem keys..., upper = false }
 *     -> tide.Matrix A over the liquid cells, Array i32 rows (1-based row of
 *        each cell, 0 for non-liquid cells)
 *
 * Argument checks and marshalling only; the numerics are mac_poisson.c,
 * mgpcg.c and mg_mic0.c.  Registered by lua_linalg.c through
 * tide_lua_linalg_mg_open.
 */
#include "linalg/mgpcg.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define POISSON_T "tide.PoissonSolver"

void tide_lua_linalg_mg_open(lua_State *L);

static const char *const METHODS[] = {"mgpcg", "mic0", "cg", NULL};

/* the problem keys shared by every function */
#define PROBLEM_KEYS "grid", "n", "dx", "labels", "weights", "theta", "phi", "theta_min"

/* Read one face-array option (weights or theta): a list of dim f64 Arrays of
 * the face shapes, or a tide.Mac on the same grid. */
static void face_arrays(tide_opts *o, const char *key, const tide_grid *g, const double *out[3]) {
  lua_State *L = o->L;
  out[0] = out[1] = out[2] = NULL;
  if (lua_getfield(L, o->idx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  tide_mac *m = tide_lua_testobj(L, -1, TIDE_MAC_T);
  if (!m && lua_type(L, -1) != LUA_TTABLE)
    tide_lua_error(L, "%s: %s must be a list of %d face Arrays or a tide.Mac, got %s", o->fname,
                   key, g->dim, luaL_typename(L, -1));
  if (!m && luaL_len(L, -1) != g->dim)
    tide_lua_error(L, "%s: %s must hold %d face Arrays (one per axis), got %d", o->fname, key,
                   g->dim, (int)luaL_len(L, -1));
  for (int a = 0; a < g->dim; a++) {
    char what[64];
    snprintf(what, sizeof what, "%s: %s[%d]", o->fname, key, a + 1);
    tide_array *arr;
    if (m) {
      arr = m->u[a];
    } else {
      lua_geti(L, -1, a + 1);
      arr = tide_lua_testarray(L, -1);
      if (!arr) tide_lua_error(L, "%s must be a tide.Array, got %s", what, luaL_typename(L, -1));
      lua_pop(L, 1);
    }
    int d[3];
    tide_grid_face_dims(g, a, d);
    int64_t shape[3] = {d[0], d[1], d[2]};
    if (tide_array_expect(arr, what, TIDE_F64, g->dim, shape))
      tide_lua_error(L, "%s", tide_errmsg());
    out[a] = TIDE_F64P(arr);
  }
  lua_pop(L, 1);
}

/* The problem from the named arguments: grid or n/dx, labels, weights,
 * theta, theta_min.  The arrays stay owned by Lua (anchored in the options
 * table for the duration of the call). */
static tide_mac_poisson check_problem(tide_opts *o, int64_t cshape[3]) {
  lua_State *L = o->L;
  const char *fn = o->fname;
  tide_grid g;
  memset(&g, 0, sizeof g);
  tide_grid *gp = tide_opt_obj(o, "grid", TIDE_GRID_T);
  if (gp) {
    if (tide_opt_has(o, "n") || tide_opt_has(o, "dx"))
      tide_lua_error(L, "%s: give either grid or n and dx, not both", fn);
    g = *gp;
  } else {
    if (!tide_opt_has(o, "n")) tide_lua_error(L, "%s: missing option 'grid' (or 'n' and 'dx')", fn);
    double n[3];
    g.dim = tide_opt_vec(o, "n", 2, 3, n);
    g.n[2] = 1;
    for (int a = 0; a < g.dim; a++) {
      if (n[a] != floor(n[a]) || n[a] < 1 || n[a] > (1 << 20))
        tide_lua_error(L, "%s: n[%d] must be an integer in 1..%d, got %f", fn, a + 1, 1 << 20,
                       n[a]);
      g.n[a] = (int)n[a];
    }
    g.dx = tide_opt_reqnum(o, "dx", 0, 1e300);
    if (!(g.dx > 0)) tide_lua_error(L, "%s: dx must be positive", fn);
  }
  for (int a = 0; a < 3; a++)
    cshape[a] = g.n[a];
  tide_array *lab = tide_opt_reqarray(o, "labels");
  char what[64];
  snprintf(what, sizeof what, "%s: labels", fn);
  if (tide_array_expect(lab, what, TIDE_U8, g.dim, cshape)) tide_lua_error(L, "%s", tide_errmsg());
  tide_mac_poisson P = tide_mac_poisson_make(&g, TIDE_U8P(lab));
  P.theta_min = tide_opt_num(o, "theta_min", TIDE_MAC_THETA_MIN, 1e-12, 1);
  face_arrays(o, "weights", &g, P.weight);
  face_arrays(o, "theta", &g, P.theta);
  tide_array *phi = tide_opt_array(o, "phi");
  if (phi) {
    if (P.theta[0]) tide_lua_error(L, "%s: give either theta or phi, not both", fn);
    snprintf(what, sizeof what, "%s: phi", fn);
    if (tide_array_expect(phi, what, TIDE_F64, g.dim, cshape))
      tide_lua_error(L, "%s", tide_errmsg());
    /* theta on faces from phi, in arrays anchored on the stack */
    double *th[3] = {NULL, NULL, NULL};
    for (int a = 0; a < g.dim; a++) {
      int d[3];
      tide_grid_face_dims(&g, a, d);
      tide_array *t = tide_array_new3(TIDE_F64, d[0], d[1], d[2]);
      if (!t) tide_lua_error(L, "%s: %s", fn, tide_errmsg());
      tide_lua_pusharray(L, t);
      th[a] = TIDE_F64P(t);
      P.theta[a] = th[a];
    }
    tide_lua_check(L, tide_mac_poisson_theta(&g, P.labels, TIDE_F64P(phi), th), fn);
  }
  tide_lua_check(L, tide_mac_poisson_check(&P), fn);
  return P;
}

/* a f64 cell array option of the problem's shape */
static tide_array *cell_array(tide_opts *o, const char *key, const tide_mac_poisson *P,
                              const int64_t cshape[3]) {
  tide_array *a = tide_opt_reqarray(o, key);
  char what[64];
  snprintf(what, sizeof what, "%s: %s", o->fname, key);
  if (tide_array_expect(a, what, TIDE_F64, P->grid.dim, cshape))
    tide_lua_error(o->L, "%s", tide_errmsg());
  return a;
}

static tide_mac_solver_opts solver_opts(tide_opts *o) {
  tide_mac_solver_opts so = tide_mac_solver_opts_default();
  so.method = tide_opt_choice(o, "method", "mgpcg", METHODS);
  so.smooth = (int)tide_opt_int(o, "smooth", so.smooth, 1, 16);
  so.boundary_sweeps = (int)tide_opt_int(o, "boundary_sweeps", so.boundary_sweeps, 0, 64);
  so.band = (int)tide_opt_int(o, "band", so.band, 0, 16);
  return so;
}

static void push_stats(lua_State *L, const tide_solve_stats *st, const tide_mac_solver *S) {
  tide_mac_solver_info info;
  tide_mac_solver_info_get(S, &info);
  lua_createtable(L, 0, 7);
  lua_pushinteger(L, st->iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushnumber(L, st->residual);
  lua_setfield(L, -2, "residual");
  lua_pushnumber(L, st->seconds);
  lua_setfield(L, -2, "seconds");
  lua_pushnumber(L, info.setup_seconds);
  lua_setfield(L, -2, "setup_seconds");
  lua_pushboolean(L, st->converged);
  lua_setfield(L, -2, "converged");
  lua_pushinteger(L, info.levels);
  lua_setfield(L, -2, "levels");
  lua_pushstring(L, tide_mac_method_name(info.method));
  lua_setfield(L, -2, "method");
}

/* solve with S (anchored on the stack by the caller): rhs, p, tol, maxit,
 * must_converge from o; pushes the stats */
static void do_solve(tide_opts *o, tide_mac_solver *S, const tide_mac_poisson *P,
                     const int64_t cshape[3]) {
  lua_State *L = o->L;
  tide_array *rhs = cell_array(o, "rhs", P, cshape);
  tide_array *p = cell_array(o, "p", P, cshape);
  if (rhs->buf == p->buf) tide_lua_error(L, "%s: rhs and p must not share memory", o->fname);
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = tide_opt_num(o, "tol", 1e-6, 1e-300, 0.999999);
  so.maxit = (int)tide_opt_int(o, "maxit", 0, 0, INT32_MAX);
  so.use_x0 = 1;
  int must = tide_opt_bool(o, "must_converge", 1);
  tide_solve_stats st;
  int s = tide_mac_solver_solve(S, TIDE_F64P(rhs), TIDE_F64P(p), &so, &st);
  if (s == TIDE_ENOCONV && !must) s = TIDE_OK;
  tide_lua_check(L, s, o->fname);
  push_stats(L, &st, S);
}

static const char *const solve_keys[] = {
    PROBLEM_KEYS,      "rhs",  "p", "method", "tol", "maxit", "must_converge", "smooth",
    "boundary_sweeps", "band", NULL};

/* ------------------------------------------------------ tide.PoissonSolver */

typedef struct psolver {
  tide_mac_solver *S;
  tide_mac_poisson P; /* grid and options of the last analysis (arrays not kept) */
} psolver;

static const char *const solver_keys[] = {PROBLEM_KEYS,      "method", "smooth",
                                          "boundary_sweeps", "band",   NULL};

/* a new solver for P, pushed as a tide.PoissonSolver (so errors raised later
 * leave it to the GC) */
static psolver *push_solver(tide_opts *o, const tide_mac_poisson *P) {
  lua_State *L = o->L;
  tide_mac_solver_opts so = solver_opts(o);
  psolver *ps = tide_alloc(sizeof *ps);
  if (!ps) tide_lua_error(L, "%s: out of memory", o->fname);
  memset(ps, 0, sizeof *ps);
  int s = tide_mac_solver_new(P, &so, &ps->S);
  if (s) {
    tide_free(ps, sizeof *ps);
    tide_lua_check(L, s, o->fname);
  }
  ps->P = *P;
  ps->P.labels = NULL;
  for (int a = 0; a < 3; a++)
    ps->P.weight[a] = ps->P.theta[a] = NULL;
  tide_lua_pushobj(L, POISSON_T, ps);
  tide_lua_gcaccount(L);
  return ps;
}

/* tide.linalg.poisson_solver{...} */
static int l_poisson_solver(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, "tide.linalg.poisson_solver", solver_keys);
  int64_t cshape[3];
  tide_mac_poisson P = check_problem(&o, cshape);
  push_solver(&o, &P);
  return 1;
}

static int m_free(lua_State *L);

/* tide.linalg.poisson_solve{...}: a solver used once */
static int l_poisson_solve(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, "tide.linalg.poisson_solve", solve_keys);
  int64_t cshape[3];
  tide_mac_poisson P = check_problem(&o, cshape);
  /* check the vectors before building the solver */
  cell_array(&o, "rhs", &P, cshape);
  cell_array(&o, "p", &P, cshape);
  psolver *ps = push_solver(&o, &P);
  int box = lua_gettop(L);
  do_solve(&o, ps->S, &P, cshape);
  lua_pushvalue(L, box);
  lua_pushcfunction(L, m_free);
  lua_insert(L, -2);
  lua_call(L, 1, 0); /* release the memory now rather than at the next GC */
  return 1;
}

static psolver *checksolver(lua_State *L) { return tide_lua_checkobj(L, 1, POISSON_T); }

static const char *const psolve_keys[] = {"rhs", "p", "tol", "maxit", "must_converge", NULL};

/* solver:solve{ rhs =, p =, tol =, maxit =, must_converge = } -> stats */
static int m_solve(lua_State *L) {
  psolver *ps = checksolver(L);
  tide_opts o = tide_lua_opts(L, 2, "PoissonSolver:solve", psolve_keys);
  int64_t cshape[3] = {ps->P.grid.n[0], ps->P.grid.n[1], ps->P.grid.n[2]};
  do_solve(&o, ps->S, &ps->P, cshape);
  return 1;
}

static const char *const update_keys[] = {PROBLEM_KEYS, NULL};

/* solver:update{ labels =, weights =, theta =, ... } on the same grid */
static int m_update(lua_State *L) {
  psolver *ps = checksolver(L);
  tide_opts o = tide_lua_opts(L, 2, "PoissonSolver:update", update_keys);
  int64_t cshape[3];
  tide_mac_poisson P = check_problem(&o, cshape);
  tide_lua_check(L, tide_mac_solver_update(ps->S, &P), o.fname);
  ps->P.grid = P.grid;
  lua_settop(L, 1);
  return 1;
}

/* solver:info() -> { method, levels, cells = {...}, liquid = {...}, band = {...}, bottom,
 *                    floating, wavefronts, bytes, setup_seconds } */
static int m_info(lua_State *L) {
  psolver *ps = checksolver(L);
  tide_mac_solver_info info;
  tide_mac_solver_info_get(ps->S, &info);
  lua_createtable(L, 0, 10);
  lua_pushstring(L, tide_mac_method_name(info.method));
  lua_setfield(L, -2, "method");
  lua_pushinteger(L, info.levels);
  lua_setfield(L, -2, "levels");
  const char *names[3] = {"cells", "liquid", "band"};
  const int64_t *vals[3] = {info.cells, info.liquid, info.band};
  for (int q = 0; q < 3; q++) {
    lua_createtable(L, info.levels, 0);
    for (int l = 0; l < info.levels; l++) {
      lua_pushinteger(L, vals[q][l]);
      lua_rawseti(L, -2, l + 1);
    }
    lua_setfield(L, -2, names[q]);
  }
  lua_pushinteger(L, info.bottom);
  lua_setfield(L, -2, "bottom");
  lua_pushinteger(L, info.floating);
  lua_setfield(L, -2, "floating");
  lua_pushinteger(L, info.wavefronts);
  lua_setfield(L, -2, "wavefronts");
  lua_pushinteger(L, info.bytes);
  lua_setfield(L, -2, "bytes");
  lua_pushnumber(L, info.setup_seconds);
  lua_setfield(L, -2, "setup_seconds");
  return 1;
}

static int m_free(lua_State *L) {
  psolver *ps = tide_lua_takeobj(L, 1, POISSON_T);
  if (ps) {
    tide_mac_solver_free(ps->S);
    tide_free(ps, sizeof *ps);
  }
  return 0;
}

static int m_tostring(lua_State *L) {
  psolver *ps = tide_lua_testobj(L, 1, POISSON_T);
  if (!ps) {
    lua_pushstring(L, POISSON_T " (freed)");
    return 1;
  }
  tide_mac_solver_info info;
  tide_mac_solver_info_get(ps->S, &info);
  const tide_grid *g = &ps->P.grid;
  if (g->dim == 3)
    lua_pushfstring(L, POISSON_T " %s %dx%dx%d, %I liquid cells", tide_mac_method_name(info.method),
                    g->n[0], g->n[1], g->n[2], (lua_Integer)info.liquid[0]);
  else
    lua_pushfstring(L, POISSON_T " %s %dx%d, %I liquid cells", tide_mac_method_name(info.method),
                    g->n[0], g->n[1], (lua_Integer)info.liquid[0]);
  return 1;
}

/* ------------------------------------------------------ apply and matrix */

static const char *const apply_keys[] = {PROBLEM_KEYS, "x", "y", NULL};

/* tide.linalg.poisson_apply{ ..., x =, y = } -> y = A x */
static int l_poisson_apply(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, "tide.linalg.poisson_apply", apply_keys);
  int64_t cshape[3];
  tide_mac_poisson P = check_problem(&o, cshape);
  tide_array *x = cell_array(&o, "x", &P, cshape), *y = cell_array(&o, "y", &P, cshape);
  if (x->buf == y->buf) tide_lua_error(L, "%s: x and y must be different arrays", o.fname);
  tide_lua_check(L, tide_mac_poisson_apply(&P, TIDE_F64P(x), TIDE_F64P(y)), o.fname);
  lua_getfield(L, 1, "y");
  return 1;
}

static const char *const matrix_keys[] = {PROBLEM_KEYS, "upper", NULL};

/* tide.linalg.poisson_matrix{ ..., upper = false } -> Matrix, rows */
static int l_poisson_matrix(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, "tide.linalg.poisson_matrix", matrix_keys);
  int64_t cshape[3];
  tide_mac_poisson P = check_problem(&o, cshape);
  int upper = tide_opt_bool(&o, "upper", 0);
  luaL_getmetatable(L, TIDE_MATRIX_T);
  int have = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (!have) tide_lua_error(L, "%s: tide.Matrix is not available", o.fname);
  tide_array *rows = tide_array_new(TIDE_I32, P.grid.dim, cshape);
  if (!rows) tide_lua_error(L, "%s: %s", o.fname, tide_errmsg());
  tide_lua_pusharray(L, rows); /* anchored */
  int32_t *r = TIDE_I32P(rows);
  int n = 0;
  tide_lua_check(L, tide_mac_poisson_number(&P, r, &n), o.fname);
  tide_csr *A = NULL;
  tide_lua_check(L,
                 tide_mac_poisson_assemble(&P, r, n, upper ? TIDE_CSR_UPPER : TIDE_CSR_GENERAL, &A),
                 o.fname);
  int64_t nc = tide_grid_ncells(&P.grid);
  for (int64_t c = 0; c < nc; c++)
    r[c] += 1; /* 1-based rows, 0 for non-liquid cells */
  tide_lua_pushobj(L, TIDE_MATRIX_T, A);
  lua_insert(L, -2);
  tide_lua_gcaccount(L);
  return 2;
}

void tide_lua_linalg_mg_open(lua_State *L) {
  static const luaL_Reg methods[] = {
      {"solve", m_solve}, {"update", m_update}, {"info", m_info}, {"free", m_free}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
      {"__gc", m_free}, {"__close", m_free}, {"__tostring", m_tostring}, {NULL, NULL}};
  tide_lua_newtype(L, POISSON_T, methods, meta);
  static const luaL_Reg funcs[] = {{"poisson_solve", l_poisson_solve},
                                   {"poisson_solver", l_poisson_solver},
                                   {"poisson_apply", l_poisson_apply},
                                   {"poisson_matrix", l_poisson_matrix},
                                   {NULL, NULL}};
  luaL_setfuncs(L, funcs, 0);
}
