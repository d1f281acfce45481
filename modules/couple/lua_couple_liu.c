/* lua_couple_liu.c -- tide.couple functions of the liu coupling (see couple.h,
 * liu.h and docs/couple-liu.md). */
#include "couple/couple.h"
#include "couple/liu.h"
#include "solid/fem.h"
#include "solid/mesh.h"
#include "solid/thin.h"
#include "tide_lua.h"

#include <string.h>

#define VT_T "tide.VolumeTracker" /* modules/grid/lua_grid_levelset.c */

static const char *const interp_names[] = {"linear", "quadratic", NULL};

/* x: an f64 array {n, dim} of vertex positions (contiguous). */
static tide_array *check_points(lua_State *L, tide_opts *o, const char *key, const tide_grid *g,
                                const char *fn) {
  tide_array *x = tide_opt_reqarray(o, key);
  int64_t shape[2] = {-1, g->dim};
  tide_lua_check(L, tide_array_expect(x, key, TIDE_F64, 2, shape), fn);
  return x;
}

/* tide.couple.liu_distance{ grid = g, phi = phi, x = X [, interp = "quadratic"] }
 *   -> d (f64 {n}): the distance of Liu Eq. 14-16 of every vertex (rows of X,
 *   {n, dim} in metres) to the liquid {phi < 0}, > 0 outside it. */
static int l_liu_distance(lua_State *L) {
  const char *fn = "tide.couple.liu_distance";
  static const char *const keys[] = {"grid", "phi", "x", "interp", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_reqarray(&o, "phi");
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  tide_array *x = check_points(L, &o, "x", g, fn);
  int interp = 1 + tide_opt_choice(&o, "interp", "quadratic", interp_names);
  tide_array *d = tide_array_new1(TIDE_F64, x->shape[0]);
  if (!d) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, d);
  tide_lua_check(
      L, tide_liu_distances(g, TIDE_F64P(phi), interp, x->shape[0], TIDE_F64P(x), TIDE_F64P(d)),
      fn);
  return 1;
}

static void set_num(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}
static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

/* tide.couple.liu_solve{ grid, phi, phi_star, x, x_star, mass, dt [, fixed, tracker,
 *   interp, dhat, kappa, rho, band, tol, vol_tol, max_iter, line_search, solver,
 *   ccd = "common" | "paper", hessian = "gauss_newton" | "projected",
 *   stencil_mass = "liquid" | "lagged"] }
 *   or with solid = m (a tide.solid mesh with a material: volume, shells, rods
 *   or a merge of them) instead of x,
 *   x_star, mass and fixed: the mesh's nodes are the vertices, its positions
 *   m.x are updated in place, its incremental potential (inertia, elasticity,
 *   damping, gravity; pinned nodes fixed) is the solid term of Eq. 22
 *   -> stats.  The constrained optimization of Liu Eq. 22 (liu.h): phi (cells,
 *   phi^n in, phi^{n+1} out) and x ({nv, dim}, x^n in, x^{n+1} out) in place.
 *   tracker (tide.grid.volume_tracker): relabelled on phi_star, one volume
 *   constraint per component with its reference volume; nil: no constraint. */
static int l_liu_solve(lua_State *L) {
  const char *fn = "tide.couple.liu_solve";
  static const char *const keys[] = {
      "grid",     "phi",         "phi_star", "x",     "x_star",  "mass",  "fixed",        "tracker",
      "dt",       "interp",      "dhat",     "kappa", "rho",     "band",  "tol",          "vol_tol",
      "max_iter", "line_search", "solver",   "ccd",   "hessian", "solid", "stencil_mass", NULL};
  static const char *const solvers[] = {"cholmod", "bicgstab", "pcg", NULL};
  static const char *const ccds[] = {"common", "paper", NULL};
  static const char *const hessians[] = {"gauss_newton", "projected", NULL};
  static const char *const stencil_masses[] = {"liquid", "lagged", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_reqarray(&o, "phi"), *ps = tide_opt_reqarray(&o, "phi_star");
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  tide_lua_check(L, tide_grid_check_cells(g, ps, TIDE_F64, "phi_star"), fn);
  tide_tetmesh *mesh = tide_opt_obj(&o, "solid", TIDE_TETMESH_T);
  tide_array *x = NULL, *xs = NULL, *mass = NULL, *fixed = NULL;
  int64_t nv;
  double mconst = 0;
  int mnum = 0;
  if (mesh) {
    static const char *const excl[] = {"x", "x_star", "mass", "fixed", NULL};
    for (int k = 0; excl[k]; k++) {
      lua_getfield(L, o.idx, excl[k]);
      if (!lua_isnil(L, -1))
        tide_lua_error(L, "%s: '%s' comes from the solid mesh: give solid or %s, not both", fn,
                       excl[k], excl[k]);
      lua_pop(L, 1);
    }
    if (!mesh->fem) tide_lua_error(L, "%s: the solid mesh has no material (m:material{...})", fn);
    if (mesh->dim != g->dim)
      tide_lua_error(L, "%s: the solid mesh is %dD, the grid %dD", fn, mesh->dim, g->dim);
    x = mesh->x;
    nv = mesh->nv;
  } else {
    x = check_points(L, &o, "x", g, fn), xs = check_points(L, &o, "x_star", g, fn);
    nv = x->shape[0];
    int64_t shp[1] = {nv};
    if (xs->shape[0] != nv) tide_lua_error(L, "%s: x_star must have as many rows as x", fn);
    fixed = tide_opt_array(&o, "fixed");
    lua_getfield(L, o.idx, "mass");
    mnum = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    if (mnum) {
      mconst = tide_opt_num(&o, "mass", 0, 0, HUGE_VAL);
    } else {
      mass = tide_opt_reqarray(&o, "mass");
      tide_lua_check(L, tide_array_expect(mass, "mass", TIDE_F64, 1, shp), fn);
    }
    if (fixed) tide_lua_check(L, tide_array_expect(fixed, "fixed", TIDE_U8, 1, shp), fn);
  }
  tide_volume_tracker *t = tide_opt_obj(&o, "tracker", VT_T);
  tide_liu_params p = tide_liu_params_default();
  p.dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  p.interp = 1 + tide_opt_choice(&o, "interp", "quadratic", interp_names);
  p.dhat = tide_opt_num(&o, "dhat", 0, 0, HUGE_VAL);
  p.kappa = tide_opt_num(&o, "kappa", 0, 0, HUGE_VAL);
  p.rho = tide_opt_num(&o, "rho", 1000, 0, HUGE_VAL);
  p.band = tide_opt_num(&o, "band", 0, 0, HUGE_VAL);
  p.tol = tide_opt_num(&o, "tol", 0, 0, HUGE_VAL);
  p.vol_tol = tide_opt_num(&o, "vol_tol", 1e-4, 0, 1);
  p.max_iter = (int)tide_opt_int(&o, "max_iter", 30, 1, 10000);
  p.line_search = tide_opt_bool(&o, "line_search", 1);
  p.solver = tide_opt_choice(&o, "solver", "cholmod", solvers);
  p.ccd = tide_opt_choice(&o, "ccd", "common", ccds);
  p.hessian = tide_opt_choice(&o, "hessian", "projected", hessians);
  p.stencil_mass = tide_opt_choice(&o, "stencil_mass", "liquid", stencil_masses);
  if (!(p.vol_tol > 0)) tide_lua_error(L, "%s: vol_tol must be positive", fn);
  int64_t N = tide_grid_ncells(g);
  /* scratch: phi* copy is not needed (read only); mass buffer if a number */
  double *mbuf = NULL;
  if (mnum) {
    mbuf = lua_newuserdatauv(L, (size_t)(nv > 0 ? nv : 1) * sizeof(double), 0);
    for (int64_t v = 0; v < nv; v++)
      mbuf[v] = mconst;
  }
  int32_t *labels;
  int ncomp = 0;
  double *target = NULL;
  if (t) {
    if (!tide_grid_same(&t->grid, g)) tide_lua_error(L, "%s: tracker is over another grid", fn);
    tide_lua_check(L, tide_volume_tracker_update(t, TIDE_F64P(ps)), fn);
    tide_volume_params vp;
    tide_lua_check(L, tide_volume_tracker_resolved(t, &vp), fn);
    p.k = vp.k, p.air_density = vp.air_density;
    labels = t->labels, ncomp = t->ncomp, target = t->vol;
  } else {
    labels = lua_newuserdatauv(L, (size_t)N * sizeof(int32_t), 0);
    for (int64_t c = 0; c < N; c++)
      labels[c] = -1;
    p.k = 1 / g->dx;
  }
  tide_liu_solid S = {nv, NULL, NULL, NULL, NULL, NULL};
  if (mesh) {
    /* x* = the mesh's prediction (gravity, external forces, pinned targets),
     * fixed = pinned or massless nodes, x^n for the damping */
    size_t bytes = (size_t)(nv > 0 ? nv : 1) * g->dim * sizeof(double);
    double *xhat = lua_newuserdatauv(L, bytes, 0), *xn = lua_newuserdatauv(L, bytes, 0);
    uint8_t *fx = lua_newuserdatauv(L, (size_t)(nv > 0 ? nv : 1), 0);
    tide_lua_check(L, tide_fem_predict(mesh, p.dt, xhat), fn);
    memcpy(xn, TIDE_F64P(mesh->x), (size_t)nv * g->dim * sizeof(double));
    /* shells' and rods' Rayleigh damping: H(x^n) of the step's start, as step_newton does */
    tide_lua_check(L, tide_thin_damping_prepare(mesh, xn), fn);
    const double *mm = TIDE_F64P(mesh->fem->mass);
    const uint8_t *pin = TIDE_U8P(mesh->fem->pinned);
    for (int64_t v = 0; v < nv; v++)
      fx[v] = pin[v] || !(mm[v] > 0);
    S.x_star = xhat, S.mass = mm, S.fixed = fx, S.mesh = mesh, S.xn = xn;
  } else {
    S.x_star = TIDE_F64P(xs), S.mass = mnum ? mbuf : TIDE_F64P(mass);
    S.fixed = fixed ? TIDE_U8P(fixed) : NULL;
  }
  tide_liu_stats st;
  tide_lua_check(L,
                 tide_liu_solve(g, TIDE_F64P(ps), labels, ncomp, target, &S, &p, TIDE_F64P(phi),
                                TIDE_F64P(x), &st),
                 fn);
  lua_createtable(L, 0, 24);
  set_int(L, "iterations", st.iterations);
  lua_pushboolean(L, st.converged);
  lua_setfield(L, -2, "converged");
  lua_pushboolean(L, st.diverged);
  lua_setfield(L, -2, "diverged");
  set_int(L, "nphi", st.nphi);
  set_int(L, "nx", st.nx);
  set_int(L, "pairs", st.pairs);
  set_int(L, "dropped", st.dropped);
  set_int(L, "rebased", st.rebased);
  set_int(L, "shifted", st.shifted);
  set_int(L, "penetrating", st.penetrating);
  set_int(L, "halvings", st.halvings);
  set_int(L, "ccd_limited", st.ccd_limited);
  set_int(L, "components", ncomp);
  set_int(L, "krylov_iterations", st.krylov_iters);
  set_num(L, "min_d", st.min_d);
  set_num(L, "step", st.step);
  set_num(L, "alpha", st.alpha);
  set_num(L, "vol_err", st.vol_err);
  set_num(L, "t_assemble", st.t_assemble);
  set_num(L, "t_solve", st.t_solve);
  set_num(L, "c_assemble", st.c_assemble);
  set_num(L, "c_solve", st.c_solve);
  set_num(L, "t_ccd", st.t_ccd);
  set_num(L, "t_search", st.t_search);
  return 1;
}

/* tide.couple.liu_contact_faces{ grid, phi, x, v, u, fixed [, dhat, interp, air, slip] } -> n:
 *   the velocity correction with contact (Eq. 23, Fig. 8): the liquid-air
 *   faces (air = true: and the air faces) of the dual cells of the vertices
 *   within dhat of the liquid get the weighted vertex velocity in u (f64 Mac)
 *   and 1 in fixed (u8 Mac), for tide.liquid.project{fixed = ...}; returns
 *   the number of faces set. */
static int l_liu_contact_faces(lua_State *L) {
  const char *fn = "tide.couple.liu_contact_faces";
  static const char *const keys[] = {"grid", "phi",    "x",   "v",    "u", "fixed",
                                     "dhat", "interp", "air", "slip", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_reqarray(&o, "phi");
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  tide_array *x = check_points(L, &o, "x", g, fn), *v = check_points(L, &o, "v", g, fn);
  if (v->shape[0] != x->shape[0]) tide_lua_error(L, "%s: v must have as many rows as x", fn);
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T),
           *fx = tide_opt_reqobj(&o, "fixed", TIDE_MAC_T);
  double dhat = tide_opt_num(&o, "dhat", 0.5 * g->dx, 0, HUGE_VAL);
  int interp = 1 + tide_opt_choice(&o, "interp", "quadratic", interp_names);
  int air = tide_opt_bool(&o, "air", 0);
  int slip = tide_opt_bool(&o, "slip", 0);
  int64_t n;
  tide_lua_check(L,
                 tide_liu_contact_faces(g, TIDE_F64P(phi), interp, dhat, air, slip, x->shape[0],
                                        TIDE_F64P(x), TIDE_F64P(v), u, fx, &n),
                 fn);
  lua_pushinteger(L, n);
  return 1;
}

/* tide.couple.liu_contact_segments{ grid, x, v, u, fixed, radius [, segments, slip] } -> n:
 *   Tide's stronger velocity correction for rods (liu.h): every face within
 *   radius [m] of a segment (segments: i32 {ns, 2}, 1-based vertex indices,
 *   e.g. a rod mesh's elements) or of a vertex gets the solid's velocity at
 *   the closest point in u and 1 in fixed; returns the number of faces set. */
static int l_liu_contact_segments(lua_State *L) {
  const char *fn = "tide.couple.liu_contact_segments";
  static const char *const keys[] = {"grid", "x", "v", "u", "fixed", "radius", "segments", "slip", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *x = check_points(L, &o, "x", g, fn), *v = check_points(L, &o, "v", g, fn);
  if (v->shape[0] != x->shape[0]) tide_lua_error(L, "%s: v must have as many rows as x", fn);
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T),
           *fx = tide_opt_reqobj(&o, "fixed", TIDE_MAC_T);
  double rc = tide_opt_num(&o, "radius", 0, 0, HUGE_VAL);
  if (!(rc > 0)) tide_lua_error(L, "%s: radius must be > 0 [m]", fn);
  int slip = tide_opt_bool(&o, "slip", 0);
  tide_array *sg = tide_opt_array(&o, "segments");
  int64_t ns = 0, nv = x->shape[0];
  int32_t *seg = NULL;
  if (sg) {
    int64_t shape[2] = {-1, 2};
    tide_lua_check(L, tide_array_expect(sg, "segments", TIDE_I32, 2, shape), fn);
    ns = sg->shape[0];
    seg = lua_newuserdatauv(L, (size_t)(ns > 0 ? 2 * ns : 1) * sizeof(int32_t), 0);
    const int32_t *s1 = TIDE_I32P(sg);
    for (int64_t q = 0; q < 2 * ns; q++) {
      if (s1[q] < 1 || s1[q] > nv)
        tide_lua_error(L, "%s: segments row %lld: vertex %d outside 1..%lld", fn, (long long)(q / 2 + 1),
                       (int)s1[q], (long long)nv);
      seg[q] = s1[q] - 1;
    }
  }
  int64_t n;
  tide_lua_check(L,
                 tide_liu_contact_segments(g, rc, slip, nv, TIDE_F64P(x), TIDE_F64P(v), ns, seg, u, fx, &n),
                 fn);
  lua_pushinteger(L, n);
  return 1;
}

static const luaL_Reg funcs[] = {{"liu_distance", l_liu_distance},
                                 {"liu_solve", l_liu_solve},
                                 {"liu_contact_faces", l_liu_contact_faces},
                                 {"liu_contact_segments", l_liu_contact_segments},
                                 {NULL, NULL}};

void tide_lua_couple_liu_open(lua_State *L, int module) {
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
