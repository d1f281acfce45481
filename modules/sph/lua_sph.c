/* lua_sph.c -- the Lua module tide.sph (see sph.h): argument checks and
 * marshalling only. */
#include "sph/sph.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SPH_T "tide.SPH"

static tide_sph *checksph(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, SPH_T); }

static const char *const kernel_names[] = {"cubic", "wendland", NULL};

static const char *const new_keys[] = {
    "grid",        "kernel",        "support",   "density",
    "gravity",     "sound_speed",   "viscosity", "boundary_viscosity",
    "renormalize", "wall_pressure", NULL};
static const char *const wall_names[] = {"mirror", "hydrostatic", NULL};
/* tide.sph.new{grid = g, kernel = "cubic", support = 2, density = 1000, gravity,
 *   sound_speed = 10 sqrt(2 |g| height), viscosity = 0.05, boundary_viscosity = 0,
 *   renormalize = false, wall_pressure = "mirror" | "hydrostatic"} */
static int l_new(lua_State *L) {
  const char *fn = "tide.sph.new";
  tide_opts o = tide_lua_opts(L, 1, fn, new_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_sph_params prm;
  memset(&prm, 0, sizeof prm);
  prm.kernel = tide_opt_choice(&o, "kernel", "cubic", kernel_names);
  prm.support = tide_opt_num(&o, "support", 2, 1.0001, 6);
  prm.rho0 = tide_opt_num(&o, "density", 1000, 1e-12, HUGE_VAL);
  prm.gravity[1] = -9.81;
  tide_opt_vec(&o, "gravity", g->dim, g->dim, prm.gravity);
  double gn = 0;
  for (int a = 0; a < g->dim; a++)
    gn += prm.gravity[a] * prm.gravity[a];
  double height = g->n[1] * g->dx;
  double cdef = 10 * sqrt(2 * sqrt(gn) * height);
  prm.c = tide_opt_num(&o, "sound_speed", cdef > 0 ? cdef : 1, 1e-12, HUGE_VAL);
  prm.alpha_visc = tide_opt_num(&o, "viscosity", 0.05, 0, 10);
  prm.alpha_bound = tide_opt_num(&o, "boundary_viscosity", 0, 0, 10);
  prm.renormalize = tide_opt_bool(&o, "renormalize", 0);
  prm.wall_hydrostatic = tide_opt_choice(&o, "wall_pressure", "mirror", wall_names);
  tide_sph *s;
  tide_lua_check(L, tide_sph_new(g, &prm, &s), fn);
  tide_lua_pushobj(L, SPH_T, s);
  tide_lua_gcaccount(L);
  return 1;
}

static const char *const kern_keys[] = {"kernel", "dim", "support", "r", NULL};
/* tide.sph.kernel{kernel = "cubic", dim = 2, support = H, r = number} -> W, dW/dr */
static int l_kernel(lua_State *L) {
  const char *fn = "tide.sph.kernel";
  tide_opts o = tide_lua_opts(L, 1, fn, kern_keys);
  int kind = tide_opt_choice(&o, "kernel", "cubic", kernel_names);
  int dim = (int)tide_opt_int(&o, "dim", 2, 2, 3);
  double H = tide_opt_reqnum(&o, "support", 1e-300, HUGE_VAL);
  double r = tide_opt_reqnum(&o, "r", 0, HUGE_VAL);
  tide_sph_kernel k;
  tide_lua_check(L, tide_sph_kernel_init(&k, kind, dim, H), fn);
  lua_pushnumber(L, tide_sph_W(&k, r));
  lua_pushnumber(L, tide_sph_dW(&k, r));
  return 2;
}

static const char *const seed_keys[] = {"shape", "jitter", "velocity", "stream", NULL};
/* S:seed{shape =, jitter = 0, velocity = {..}, stream = 0} -> particles added */
static int m_seed(lua_State *L) {
  const char *fn = "SPH:seed";
  tide_sph *s = checksph(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, seed_keys);
  tide_shape *sh = tide_opt_reqobj(&o, "shape", TIDE_SHAPE_T);
  double jit = tide_opt_num(&o, "jitter", 0, 0, 1);
  uint64_t stream = (uint64_t)tide_opt_int(&o, "stream", 0, 0, LUA_MAXINTEGER);
  double vel[3] = {0, 0, 0};
  int hv = tide_opt_vec(&o, "velocity", s->dim, s->dim, vel);
  if (sh->dim != s->dim)
    tide_lua_error(L, "%s: shape is %dD but the SPH state is %dD", fn, sh->dim, s->dim);
  int64_t added = 0;
  tide_lua_check(L, tide_sph_seed(s, sh, jit, stream, hv ? vel : NULL, &added), fn);
  if (added == 0) tide_lua_error(L, "%s: the shape holds no cell centre of the grid", fn);
  tide_lua_gcaccount(L);
  lua_pushinteger(L, added);
  return 1;
}

static const char *const bound_keys[] = {"shape", "layers", "side", NULL};
static const char *const side_names[] = {"inside", "outside", NULL};
/* S:boundary{shape =, layers = ceil(support), side = "outside" | "inside"} -> count, set index */
static int m_boundary(lua_State *L) {
  const char *fn = "SPH:boundary";
  tide_sph *s = checksph(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, bound_keys);
  tide_shape *sh = tide_opt_reqobj(&o, "shape", TIDE_SHAPE_T);
  int layers = (int)tide_opt_int(&o, "layers", (lua_Integer)ceil(s->K.H / s->g.dx - 1e-9), 1, 16);
  int outside = tide_opt_choice(&o, "side", "outside", side_names);
  if (sh->dim != s->dim)
    tide_lua_error(L, "%s: shape is %dD but the SPH state is %dD", fn, sh->dim, s->dim);
  int64_t added = 0;
  tide_lua_check(L, tide_sph_boundary(s, sh, layers, outside, &added), fn);
  if (added == 0) tide_lua_error(L, "%s: no cell centre of the grid lies in the boundary band", fn);
  lua_pushinteger(L, added);
  lua_pushinteger(L, s->nset); /* the set's index (1-based) for S:boundary_force */
  return 2;
}

static const char *const wall_keys[] = {"shape", "side", "velocity", "method", "map_resolution",
                                        "map_lattice", "angular_velocity", "centre", NULL};
static const char *const wall_methods[] = {"harada", "map", "auto", NULL};
/* S:sdf_boundary{shape =, side = "outside" | "inside", velocity = 0,
 * method = "harada" | "map", map_resolution = 2} -> index (1-based): the
 * shape's surface is a wall (Harada et al. 2007's wall weight, or Koschier &
 * Bender 2017's density map), the solid outside the shape (a tank; a box
 * tank under harada: its 2d faces) or inside it (an obstacle), translating
 * at velocity */
static int m_sdf_boundary(lua_State *L) {
  const char *fn = "SPH:sdf_boundary";
  tide_sph *s = checksph(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, wall_keys);
  tide_shape *sh = tide_opt_reqobj(&o, "shape", TIDE_SHAPE_T);
  int outside = tide_opt_choice(&o, "side", "outside", side_names);
  double vel[3] = {0, 0, 0};
  tide_opt_vec(&o, "velocity", s->dim, s->dim, vel);
  int method = tide_opt_choice(&o, "method", "auto", wall_methods);
  double res = tide_opt_num(&o, "map_resolution", 4, 0.5, 16);
  s->map_lattice = tide_opt_bool(&o, "map_lattice", 1);
  double om[3] = {0, 0, 0}, cen[3] = {0, 0, 0};
  int has_om = tide_opt_has(&o, "angular_velocity");
  if (s->dim == 2)
    om[2] = tide_opt_num(&o, "angular_velocity", 0, -HUGE_VAL, HUGE_VAL);
  else
    tide_opt_vec(&o, "angular_velocity", 3, 3, om);
  int has_c = tide_opt_vec(&o, "centre", s->dim, s->dim, cen) > 0;
  if (sh->dim != s->dim)
    tide_lua_error(L, "%s: shape is %dD but the SPH state is %dD", fn, sh->dim, s->dim);
  int idx = -1;
  tide_lua_check(L, tide_sph_sdf_boundary(s, sh, outside, vel, method, res, &idx), fn);
  if (has_om || has_c)
    tide_lua_check(L, tide_sph_sdf_rotation(s, idx, has_c ? cen : NULL, om), fn);
  lua_pushinteger(L, idx + 1);
  return 1;
}

/* the angular velocity argument at idx (2D a number about z, 3D {wx, wy, wz}) into om */
static void check_omega(lua_State *L, int idx, const char *fn, const tide_sph *s, double om[3]) {
  if (s->dim == 2)
    om[2] = tide_lua_checkfinite(L, idx, fn, "angular velocity");
  else
    tide_lua_checkvec(L, idx, fn, "angular velocity", 3, 3, om);
}

/* push a vector (d numbers) and a rotation (2D the angle of R, 3D its 9
 * entries) or an angular velocity (2D w[2], 3D 3 numbers): 2 results */
static int push_vec_turn(lua_State *L, const tide_sph *s, const double *c, const double *R,
                         const double *w) {
  tide_lua_pushnumbers(L, c, s->dim);
  if (s->dim == 2)
    lua_pushnumber(L, R ? atan2(R[3], R[0]) : w[2]);
  else
    tide_lua_pushnumbers(L, R ? R : w, R ? 9 : 3);
  return 2;
}

/* S:set_sdf_velocity(i, {vx, vy[, vz]}[, omega]): the velocity of SDF
 * boundary i and (optional) its angular velocity (2D a number, 3D {wx, wy, wz}) */
static int m_set_sdf_velocity(lua_State *L) {
  const char *fn = "SPH:set_sdf_velocity";
  tide_sph *s = checksph(L, 1);
  int i = (int)tide_lua_checkrange(L, 2, fn, "SDF boundary index", 1, s->ngroup > 0 ? s->ngroup : 1);
  if (s->ngroup == 0) tide_lua_error(L, "%s: the state has no SDF boundary", fn);
  double v[3] = {0, 0, 0};
  tide_lua_checkvec(L, 3, fn, "velocity", s->dim, s->dim, v);
  double om[3] = {0, 0, 0};
  int has_om = !lua_isnoneornil(L, 4);
  if (has_om) check_omega(L, 4, fn, s, om);
  tide_lua_check(L, tide_sph_sdf_velocity(s, i - 1, v), fn);
  if (has_om) tide_lua_check(L, tide_sph_sdf_rotation(s, i - 1, NULL, om), fn);
  return 0;
}

/* S:set_sdf_acceleration(i, {ax, ay[, az]}[, alpha]): the acceleration of SDF
 * boundary i and (optional) its angular acceleration, for the hydrostatic
 * wall pressure (tide_sph_sdf_acceleration) */
static int m_set_sdf_acceleration(lua_State *L) {
  const char *fn = "SPH:set_sdf_acceleration";
  tide_sph *s = checksph(L, 1);
  if (s->ngroup == 0) tide_lua_error(L, "%s: the state has no SDF boundary", fn);
  int i = (int)tide_lua_checkrange(L, 2, fn, "SDF boundary index", 1, s->ngroup);
  double a[3] = {0, 0, 0}, al[3] = {0, 0, 0};
  tide_lua_checkvec(L, 3, fn, "acceleration", s->dim, s->dim, a);
  if (!lua_isnoneornil(L, 4)) {
    if (s->dim == 2)
      al[2] = tide_lua_checkfinite(L, 4, fn, "angular acceleration");
    else
      tide_lua_checkvec(L, 4, fn, "angular acceleration", 3, 3, al);
  }
  tide_lua_check(L, tide_sph_sdf_acceleration(s, i - 1, a, al), fn);
  return 0;
}

/* S:set_boundary_velocity(k, {vx, vy[, vz]} [, omega [, centre]]): boundary
 * particle set k moves rigidly (tide_sph_set_motion) */
static int m_set_boundary_velocity(lua_State *L) {
  const char *fn = "SPH:set_boundary_velocity";
  tide_sph *s = checksph(L, 1);
  if (s->nset == 0) tide_lua_error(L, "%s: the state has no boundary particle set", fn);
  int k = (int)tide_lua_checkrange(L, 2, fn, "boundary set index", 1, s->nset);
  double v[3] = {0, 0, 0}, om[3] = {0, 0, 0}, c[3] = {0, 0, 0};
  tide_lua_checkvec(L, 3, fn, "velocity", s->dim, s->dim, v);
  if (!lua_isnoneornil(L, 4)) check_omega(L, 4, fn, s, om);
  int has_c = !lua_isnoneornil(L, 5);
  if (has_c) tide_lua_checkvec(L, 5, fn, "centre", s->dim, s->dim, c);
  tide_lua_check(L, tide_sph_set_motion(s, k - 1, has_c ? c : NULL, v, om), fn);
  return 0;
}

/* S:boundary_pose(k) -> centre {x, y[, z]}, rotation (2D the angle, 3D 9 numbers) */
static int m_boundary_pose(lua_State *L) {
  const char *fn = "SPH:boundary_pose";
  tide_sph *s = checksph(L, 1);
  if (s->nset == 0) tide_lua_error(L, "%s: the state has no boundary particle set", fn);
  int k = (int)tide_lua_checkrange(L, 2, fn, "boundary set index", 1, s->nset);
  double c[3], R[9];
  tide_lua_check(L, tide_sph_set_pose(s, k - 1, c, R), fn);
  return push_vec_turn(L, s, c, R, NULL);
}

/* S:set_sdf_dynamics(i, mass [, inertia]): SDF boundary i becomes a rigid
 * body of the DFSPH solves (mass [kg, 2D per m]; inertia about its centre in
 * the simulation frame: 2D a number, 3D a 3 x 3 table), mass 0: a kinematic
 * wall again (tide_sph_sdf_dynamics) */
static int m_set_sdf_dynamics(lua_State *L) {
  const char *fn = "SPH:set_sdf_dynamics";
  tide_sph *s = checksph(L, 1);
  if (s->ngroup == 0) tide_lua_error(L, "%s: the state has no SDF boundary", fn);
  int i = (int)tide_lua_checkrange(L, 2, fn, "SDF boundary index", 1, s->ngroup);
  double mass = tide_lua_checkfinite(L, 3, fn, "mass"), I[9] = {0};
  if (mass < 0) tide_lua_error(L, "%s: mass must be >= 0, got %f", fn, mass);
  if (mass > 0) {
    if (s->dim == 2) {
      I[8] = tide_lua_checkfinite(L, 4, fn, "inertia");
    } else {
      luaL_checktype(L, 4, LUA_TTABLE);
      for (int a = 0; a < 3; a++) {
        if (lua_geti(L, 4, a + 1) != LUA_TTABLE)
          tide_lua_error(L, "%s: inertia must be a 3 x 3 table of rows", fn);
        double row[3];
        tide_lua_checkvec(L, -1, fn, "inertia row", 3, 3, row);
        for (int b = 0; b < 3; b++)
          I[a * 3 + b] = row[b];
        lua_pop(L, 1);
      }
    }
  }
  tide_lua_check(L, tide_sph_sdf_dynamics(s, i - 1, mass, I), fn);
  return 0;
}

/* S:sdf_velocity(i) -> velocity {vx, vy[, vz]}, angular velocity (2D a
 * number, 3D {wx, wy, wz}) of SDF boundary i (after a coupled DFSPH solve:
 * the body's) */
static int m_sdf_velocity(lua_State *L) {
  const char *fn = "SPH:sdf_velocity";
  tide_sph *s = checksph(L, 1);
  if (s->ngroup == 0) tide_lua_error(L, "%s: the state has no SDF boundary", fn);
  int i = (int)tide_lua_checkrange(L, 2, fn, "SDF boundary index", 1, s->ngroup);
  double v[3], om[3];
  tide_lua_check(L, tide_sph_sdf_motion(s, i - 1, v, om), fn);
  return push_vec_turn(L, s, v, NULL, om);
}

/* the reaction of the fluid on a boundary: S:wall_force(i [, centre]) (SDF
 * boundary i) and S:boundary_force(k [, centre]) (boundary particle set k)
 * -> fx, fy[, fz], torque (2D a number about z, 3D {tx, ty, tz}) about
 * centre (default the body's: tide_sph_body_centre) */
static int body_force(lua_State *L, int kind) {
  const char *fn = kind == 0 ? "SPH:wall_force" : "SPH:boundary_force";
  tide_sph *s = checksph(L, 1);
  int nb = kind == 0 ? s->ngroup : s->nset;
  if (nb == 0)
    tide_lua_error(L, "%s: the state has no %s", fn,
                   kind == 0 ? "SDF boundary" : "boundary particle set");
  int i = (int)tide_lua_checkrange(L, 2, fn, kind == 0 ? "SDF boundary index" : "boundary set index",
                                   1, nb);
  double F[3], T[3], c0[3], c[3] = {0, 0, 0};
  tide_lua_check(L, tide_sph_body_force(s, kind, i - 1, F, T), fn);
  tide_lua_check(L, tide_sph_body_centre(s, kind, i - 1, c0), fn);
  if (!lua_isnoneornil(L, 3)) {
    tide_lua_checkvec(L, 3, fn, "centre", s->dim, s->dim, c);
    /* T_c = T_0 + (c0 - c) x F */
    double r[3] = {c0[0] - c[0], c0[1] - c[1], s->dim == 3 ? c0[2] - c[2] : 0};
    if (s->dim == 3) {
      T[0] += r[1] * F[2] - r[2] * F[1];
      T[1] += r[2] * F[0] - r[0] * F[2];
    }
    T[2] += r[0] * F[1] - r[1] * F[0];
  }
  for (int a = 0; a < s->dim; a++)
    lua_pushnumber(L, F[a]);
  if (s->dim == 2)
    lua_pushnumber(L, T[2]);
  else
    tide_lua_pushnumbers(L, T, 3);
  return s->dim + 1;
}
static int m_wall_force(lua_State *L) { return body_force(L, 0); }
static int m_boundary_force(lua_State *L) { return body_force(L, 1); }

/* S:sdf_pose(i) -> centre {x, y[, z]} (the rotation centre in the simulation
 * frame), rotation (2D the angle [rad], 3D the row-major 3 x 3 matrix as 9 numbers) */
static int m_sdf_pose(lua_State *L) {
  const char *fn = "SPH:sdf_pose";
  tide_sph *s = checksph(L, 1);
  if (s->ngroup == 0) tide_lua_error(L, "%s: the state has no SDF boundary", fn);
  int i = (int)tide_lua_checkrange(L, 2, fn, "SDF boundary index", 1, s->ngroup);
  double c[3], R[9];
  tide_lua_check(L, tide_sph_sdf_pose(s, i - 1, c, R), fn);
  return push_vec_turn(L, s, c, R, NULL);
}

static double checkdt(lua_State *L, int idx, const char *fn) {
  double dt = tide_lua_checkfinite(L, idx, fn, "time step");
  if (!(dt > 0)) tide_lua_error(L, "%s: time step must be > 0, got %f", fn, dt);
  return dt;
}

static int m_search(lua_State *L) {
  tide_lua_check(L, tide_sph_search(checksph(L, 1)), "SPH:search");
  return 0;
}
static int m_density(lua_State *L) {
  tide_lua_check(L, tide_sph_density(checksph(L, 1)), "SPH:density");
  return 0;
}
static int m_tait(lua_State *L) {
  tide_lua_check(L, tide_sph_tait(checksph(L, 1)), "SPH:tait");
  return 0;
}
static int m_dfsph_factor(lua_State *L) {
  tide_lua_check(L, tide_sph_dfsph_factor(checksph(L, 1)), "SPH:dfsph_factor");
  return 0;
}

static const char *const force_keys[] = {"pressure", "viscosity", NULL};
/* S:forces{pressure = true, viscosity = true}: S.a = g + pressure + viscosity */
static int m_forces(lua_State *L) {
  const char *fn = "SPH:forces";
  tide_sph *s = checksph(L, 1);
  tide_opts o = tide_lua_optopts(L, 2, fn, force_keys);
  int pr = tide_opt_bool(&o, "pressure", 1), vi = tide_opt_bool(&o, "viscosity", 1);
  tide_lua_check(L, tide_sph_forces(s, pr, vi), fn);
  return 0;
}
static int m_kick(lua_State *L) {
  tide_sph *s = checksph(L, 1);
  tide_lua_check(L, tide_sph_kick(s, checkdt(L, 2, "SPH:kick")), "SPH:kick");
  return 0;
}
static int m_drift(lua_State *L) {
  tide_sph *s = checksph(L, 1);
  tide_lua_check(L, tide_sph_drift(s, checkdt(L, 2, "SPH:drift")), "SPH:drift");
  lua_pushinteger(L, s->clamped);
  lua_pushinteger(L, s->projected);
  return 2;
}

static const char *const solve_keys[] = {"tol", "maxit", "warm_start", NULL};
/* S:density_solve(dt [, {tol = 1e-4, maxit = 100}]) -> iterations, error, converged */
static int solve(lua_State *L, int divergence) {
  const char *fn = divergence ? "SPH:divergence_solve" : "SPH:density_solve";
  tide_sph *s = checksph(L, 1);
  double dt = checkdt(L, 2, fn);
  tide_opts o = tide_lua_optopts(L, 3, fn, solve_keys);
  double tol = tide_opt_num(&o, "tol", divergence ? 1e-3 : 1e-4, 1e-14, 1);
  int maxit = (int)tide_opt_int(&o, "maxit", 100, 1, 100000);
  if (!divergence)
    s->warm = tide_opt_num(&o, "warm_start", 0.5, 0, 1);
  else if (tide_opt_has(&o, "warm_start"))
    tide_lua_error(L, "%s: warm_start is an option of the density solve", fn);
  int it = 0, conv = 0;
  double err = 0;
  int st = divergence ? tide_sph_divergence_solve(s, dt, tol, maxit, &it, &err, &conv)
                      : tide_sph_density_solve(s, dt, tol, maxit, &it, &err, &conv);
  tide_lua_check(L, st, fn);
  lua_pushinteger(L, it);
  lua_pushnumber(L, err);
  lua_pushboolean(L, conv);
  return 3;
}
static int m_density_solve(lua_State *L) { return solve(L, 0); }
static int m_divergence_solve(lua_State *L) { return solve(L, 1); }

static const char *const grad_keys[] = {"form", NULL};
static const char *const form_names[] = {"difference", "symmetric", NULL};
/* S:gradient(A (n) [, {form = "difference" | "symmetric"}]) -> (n, d) */
static int m_gradient(lua_State *L) {
  const char *fn = "SPH:gradient";
  tide_sph *s = checksph(L, 1);
  int64_t shape[1] = {s->ps->n};
  tide_array *A = tide_lua_checkarrayof(L, 2, "field", TIDE_F64, 1, shape);
  tide_opts o = tide_lua_optopts(L, 3, fn, grad_keys);
  int sym = tide_opt_choice(&o, "form", "difference", form_names);
  tide_array *out = tide_array_new2(TIDE_F64, s->ps->n, s->dim);
  if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, out);
  tide_lua_check(L, tide_sph_gradient(s, TIDE_F64P(A), sym, TIDE_F64P(out)), fn);
  return 1;
}

static int m_max_speed(lua_State *L) {
  double v;
  tide_lua_check(L, tide_sph_max_speed(checksph(L, 1), &v), "SPH:max_speed");
  lua_pushnumber(L, v);
  return 1;
}

static const char *const dt_keys[] = {"cfl", "method", NULL};
static const char *const method_names[] = {"wcsph", "dfsph", NULL};
/* S:max_dt{cfl = 0.4, method = "wcsph" | "dfsph"} -> dt:
 *   wcsph  cfl h / (c + max|v|)      (h = H/2; Monaghan 1992)
 *   dfsph  cfl dx / max|v|           (Bender & Koschier 2015; inf at rest) */
static int m_max_dt(lua_State *L) {
  const char *fn = "SPH:max_dt";
  tide_sph *s = checksph(L, 1);
  tide_opts o = tide_lua_optopts(L, 2, fn, dt_keys);
  double cfl = tide_opt_num(&o, "cfl", 0.4, 1e-9, 10);
  int method = tide_opt_choice(&o, "method", "wcsph", method_names);
  double v;
  tide_lua_check(L, tide_sph_max_speed(s, &v), fn);
  double dt =
      method == 0 ? cfl * 0.5 * s->K.H / (s->c + v) : (v > 0 ? cfl * s->g.dx / v : HUGE_VAL);
  lua_pushnumber(L, dt);
  return 1;
}

/* S:diagnostics() -> {kinetic, momentum, density_error (mean), density_error_max, clamped,
 * projected} */
static int m_diagnostics(lua_State *L) {
  tide_sph *s = checksph(L, 1);
  double ke, mom[3] = {0, 0, 0}, me, mx;
  tide_lua_check(L, tide_sph_diagnostics(s, &ke, mom, &me, &mx), "SPH:diagnostics");
  lua_createtable(L, 0, 6);
  lua_pushnumber(L, ke);
  lua_setfield(L, -2, "kinetic");
  tide_lua_pushnumbers(L, mom, s->dim);
  lua_setfield(L, -2, "momentum");
  lua_pushnumber(L, me);
  lua_setfield(L, -2, "density_error");
  lua_pushnumber(L, mx);
  lua_setfield(L, -2, "density_error_max");
  lua_pushinteger(L, s->clamped);
  lua_setfield(L, -2, "clamped");
  lua_pushinteger(L, s->projected);
  lua_setfield(L, -2, "projected");
  return 1;
}

/* S:neighbours(i) -> list of 1-based fluid neighbour indices, list of boundary ones */
static int m_neighbours(lua_State *L) {
  const char *fn = "SPH:neighbours";
  tide_sph *s = checksph(L, 1);
  int64_t i = tide_lua_checkrange(L, 2, fn, "particle index", 1, s->ps->n > 0 ? s->ps->n : 1) - 1;
  if (!s->nvalid || s->ps->n == 0)
    tide_lua_error(L, "%s: the neighbour lists are out of date (call S:search())", fn);
  lua_createtable(L, (int)(s->nstart[i + 1] - s->nstart[i]), 0);
  for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
    lua_pushinteger(L, s->nbr[q] + 1);
    lua_rawseti(L, -2, (lua_Integer)(q - s->nstart[i] + 1));
  }
  lua_createtable(L, (int)(s->bstart[i + 1] - s->bstart[i]), 0);
  for (int64_t q = s->bstart[i]; q < s->bstart[i + 1]; q++) {
    lua_pushinteger(L, s->bnbr[q] + 1);
    lua_rawseti(L, -2, (lua_Integer)(q - s->bstart[i] + 1));
  }
  return 2;
}

/* S:wall_terms(x (n, d)) -> Array (n, 3 + d + d^2): the SDF boundaries'
 * terms at the points (rho_w, -tr T_w, sum v_w . G_w, G_w, T_w) */
static int m_wall_terms(lua_State *L) {
  const char *fn = "SPH:wall_terms";
  tide_sph *s = checksph(L, 1);
  int64_t shape[2] = {-1, s->dim};
  tide_array *X = tide_lua_checkarrayof(L, 2, "points", TIDE_F64, 2, shape);
  int64_t np = X->shape[0];
  tide_array *out = tide_array_new2(TIDE_F64, np, 3 + s->dim + s->dim * s->dim);
  if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, out);
  if (tide_array_nonfinite(X)) tide_lua_error(L, "%s: a point is not finite", fn);
  tide_lua_check(L, tide_sph_wall_rows(s, np, TIDE_F64P(X), TIDE_F64P(out)), fn);
  return 1;
}

/* S:sdf_map(i) -> {nodes, computed, spacing, seconds, bytes} or nil (harada) */
static int m_sdf_map(lua_State *L) {
  const char *fn = "SPH:sdf_map";
  tide_sph *s = checksph(L, 1);
  if (s->ngroup == 0) tide_lua_error(L, "%s: the state has no SDF boundary", fn);
  int i = (int)tide_lua_checkrange(L, 2, fn, "SDF boundary index", 1, s->ngroup);
  const tide_sph_map *m = tide_sph_boundary_map(s, i - 1);
  if (!m) {
    lua_pushnil(L);
    return 1;
  }
  int64_t nn = (int64_t)m->n[0] * m->n[1] * m->n[2];
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, nn);
  lua_setfield(L, -2, "nodes");
  lua_pushinteger(L, m->computed);
  lua_setfield(L, -2, "computed");
  lua_pushnumber(L, m->h);
  lua_setfield(L, -2, "spacing");
  lua_pushnumber(L, m->seconds);
  lua_setfield(L, -2, "seconds");
  lua_pushinteger(L, nn * m->nv * 8);
  lua_setfield(L, -2, "bytes");
  return 1;
}

/* S:set_gravity{gx, gy[, gz]} */
static int m_set_gravity(lua_State *L) {
  tide_sph *s = checksph(L, 1);
  double g[3] = {0, 0, 0};
  tide_lua_checkvec(L, 2, "SPH:set_gravity", "gravity", s->dim, s->dim, g);
  for (int a = 0; a < 3; a++)
    s->gravity[a] = g[a];
  return 0;
}

static int m_free(lua_State *L) {
  tide_sph *s = tide_lua_takeobj(L, 1, SPH_T);
  if (s) tide_sph_free(s);
  return 0;
}

static int mm_tostring(lua_State *L) {
  tide_sph *s = checksph(L, 1);
  lua_pushfstring(L,
                  "tide.SPH(%dD, %s kernel, H = %f m, %I fluid + %I boundary particles, %d SDF wall "
                  "surfaces)",
                  s->dim, kernel_names[s->K.kind], s->K.H, (lua_Integer)s->ps->n,
                  (lua_Integer)s->nb, s->nwall);
  return 1;
}

/* the first n rows of a (cap, cols) attribute, shaped (n) or (n, d) */
static void push_rows(lua_State *L, tide_sph *s, tide_array *a, int vector) {
  int64_t tail[1] = {s->dim};
  tide_lua_pushrows(L, a, s->ps->n, vector ? 2 : 1, tail);
}

/* fields: dim n nb nwall dx H mass rho0 gravity sound_speed renormalize wall_pressure valid x v rho p a
 * alpha boundary_x psi */
static int mm_index(lua_State *L) {
  tide_sph *s = checksph(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "dim"))
    lua_pushinteger(L, s->dim);
  else if (!strcmp(k, "n"))
    lua_pushinteger(L, s->ps->n);
  else if (!strcmp(k, "nb"))
    lua_pushinteger(L, s->nb);
  else if (!strcmp(k, "nwall"))
    lua_pushinteger(L, s->nwall);
  else if (!strcmp(k, "dx"))
    lua_pushnumber(L, s->g.dx);
  else if (!strcmp(k, "H"))
    lua_pushnumber(L, s->K.H);
  else if (!strcmp(k, "mass"))
    lua_pushnumber(L, s->mass);
  else if (!strcmp(k, "rho0"))
    lua_pushnumber(L, s->rho0);
  else if (!strcmp(k, "sound_speed"))
    lua_pushnumber(L, s->c);
  else if (!strcmp(k, "gravity"))
    tide_lua_pushnumbers(L, s->gravity, s->dim);
  else if (!strcmp(k, "renormalize"))
    lua_pushboolean(L, s->renormalize);
  else if (!strcmp(k, "wall_pressure"))
    lua_pushstring(L, wall_names[s->wall_hydrostatic]);
  else if (!strcmp(k, "valid"))
    lua_pushboolean(L, s->nvalid);
  else if (!strcmp(k, "x"))
    tide_lua_pusharray(L, tide_array_retain(s->ps->x));
  else if (!strcmp(k, "v"))
    tide_lua_pusharray(L, tide_array_retain(s->ps->v));
  else if (!strcmp(k, "rho"))
    push_rows(L, s, s->rho, 0);
  else if (!strcmp(k, "p"))
    push_rows(L, s, s->p, 0);
  else if (!strcmp(k, "a"))
    push_rows(L, s, s->a, 1);
  else if (!strcmp(k, "alpha"))
    push_rows(L, s, s->alpha, 0);
  else if (!strcmp(k, "boundary_x") || !strcmp(k, "psi")) {
    int vec = k[0] == 'b';
    tide_array *a =
        vec ? tide_array_new2(TIDE_F64, s->nb, s->dim) : tide_array_new1(TIDE_F64, s->nb);
    if (!a) tide_lua_check(L, TIDE_ENOMEM, "tide.SPH");
    if (s->nb)
      memcpy(tide_array_ptr(a), vec ? s->bx : s->psi,
             sizeof(double) * (size_t)(s->nb * (vec ? s->dim : 1)));
    tide_lua_pusharray(L, a);
  } else {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int mm_newindex(lua_State *L) {
  checksph(L, 1);
  const char *k = luaL_checkstring(L, 2);
  return tide_lua_error(L,
                        "tide.SPH: field '%s' cannot be assigned (write into its array, e.g. "
                        "S.v:set(...), or use the methods)",
                        k);
}

static const luaL_Reg methods[] = {{"seed", m_seed},
                                   {"boundary", m_boundary},
                                   {"sdf_boundary", m_sdf_boundary},
                                   {"set_sdf_velocity", m_set_sdf_velocity},
                                   {"set_sdf_acceleration", m_set_sdf_acceleration},
                                   {"set_sdf_dynamics", m_set_sdf_dynamics},
                                   {"sdf_velocity", m_sdf_velocity},
                                   {"set_boundary_velocity", m_set_boundary_velocity},
                                   {"boundary_pose", m_boundary_pose},
                                   {"search", m_search},
                                   {"density", m_density},
                                   {"tait", m_tait},
                                   {"forces", m_forces},
                                   {"kick", m_kick},
                                   {"drift", m_drift},
                                   {"dfsph_factor", m_dfsph_factor},
                                   {"density_solve", m_density_solve},
                                   {"divergence_solve", m_divergence_solve},
                                   {"gradient", m_gradient},
                                   {"max_speed", m_max_speed},
                                   {"max_dt", m_max_dt},
                                   {"diagnostics", m_diagnostics},
                                   {"neighbours", m_neighbours},
                                   {"wall_terms", m_wall_terms},
                                   {"sdf_map", m_sdf_map},
                                   {"wall_force", m_wall_force},
                                   {"boundary_force", m_boundary_force},
                                   {"sdf_pose", m_sdf_pose},
                                   {"set_gravity", m_set_gravity},
                                   {"free", m_free},
                                   {NULL, NULL}};
static const luaL_Reg meta[] = {
    {"__gc", m_free},      {"__close", m_free},         {"__tostring", mm_tostring},
    {"__index", mm_index}, {"__newindex", mm_newindex}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"new", l_new}, {"kernel", l_kernel}, {NULL, NULL}};

int luaopen_tide_sph(lua_State *L) {
  lua_getglobal(L, "require");
  lua_pushstring(L, "tide.array");
  lua_call(L, 1, 0);
  tide_lua_newtype(L, SPH_T, methods, meta);
  luaL_newlib(L, funcs);
  return 1;
}
