/*
 * lua_liquid_physics.c -- the "more physics" part of tide.liquid: implicit
 * viscosity, surface tension, curvature, periodic boundaries (tide.Periodic)
 * and the kinetic energy.  Argument checks and marshalling only (numerics
 * in viscosity.c, surface_tension.c, periodic.c).  Registered into the
 * tide.liquid table by lua_liquid.c.  See docs/liquids-physics.md.
 */
#include "grid/lua_grid_opts.h"
#include "liquid/lua_liquid.h"
#include "liquid/open.h"
#include "liquid/extend.h"
#include "liquid/periodic.h"
#include "linalg/mac_poisson.h"
#include "liquid/surface_tension.h"
#include "liquid/viscosity.h"
#include "tide_lua.h"

#include <math.h>
#include <string.h>

#define TIDE_PERIODIC_T "tide.Periodic"
#define TIDE_VSOLVER_T "tide.ViscositySolver"


static tide_mac *checkmac(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, TIDE_MAC_T); }

/* periodic = {true, false[, ..]} (dim booleans) into per; absent: all 0 */
static void opt_periodic(tide_opts *o, int dim, int per[3]) {
  lua_State *L = o->L;
  per[0] = per[1] = per[2] = 0;
  if (!tide_opt_has(o, "periodic")) return;
  lua_getfield(L, o->idx, "periodic");
  if (!lua_istable(L, -1)) tide_lua_error(L, "%s: option 'periodic' must be a list of %d booleans", o->fname, dim);
  lua_Integer len = luaL_len(L, -1);
  if (len != dim) tide_lua_error(L, "%s: option 'periodic' must be a list of %d booleans (got %d entries)", o->fname, dim, (int)len);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 || lua_tointeger(L, -2) > dim)
      tide_lua_error(L, "%s: option 'periodic' must be a list of %d booleans", o->fname, dim);
    lua_pop(L, 1);
  }
  for (int d = 0; d < dim; d++) {
    lua_geti(L, -1, d + 1);
    if (!lua_isboolean(L, -1)) tide_lua_error(L, "%s: option 'periodic' entry %d must be a boolean", o->fname, d + 1);
    per[d] = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static const char *const WALLS[] = {"noslip", "freeslip", NULL};

static void push_vstats(lua_State *L, const tide_viscosity_stats *s) {
  lua_createtable(L, 0, 3);
  lua_pushinteger(L, s->iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushnumber(L, s->residual);
  lua_setfield(L, -2, "residual");
  lua_pushinteger(L, (lua_Integer)s->unknowns);
  lua_setfield(L, -2, "unknowns");
}

static const tide_array *opt_cells(tide_opts *o, const char *key, const tide_grid *g, tide_dtype t) {
  tide_array *a = tide_opt_array(o, key);
  if (a) tide_lua_check(o->L, tide_grid_check_cells(g, a, t, key), o->fname);
  return a;
}

/* the option 'out' (cells of dtype t, pushed) or a new cell array (pushed);
 * `avoid` (may be NULL) must not share its memory */
/* --------------------------------------------------------------- viscosity */

static tide_viscosity_solver *opt_solver(tide_opts *o) {
  return tide_opt_obj(o, "solver", TIDE_VSOLVER_T);
}

static const char *const diffuse_keys[] = {"nu", "dt", "labels", "periodic", "wall", "tol", "maxit", "solver", NULL};

/* tide.liquid.diffuse(u, {nu =, dt = [, labels, periodic, wall = "noslip", tol = 1e-8, maxit]})
 *   -> u, stats */
static int l_diffuse(lua_State *L) {
  const char *fn = "tide.liquid.diffuse";
  tide_mac *u = checkmac(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, diffuse_keys);
  tide_diffuse_opts d = tide_diffuse_opts_default();
  d.nu = tide_opt_reqnum(&o, "nu", 0, HUGE_VAL);
  d.dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  if (!(d.dt > 0)) tide_lua_error(L, "%s: dt must be positive", fn);
  d.labels = opt_cells(&o, "labels", &u->grid, TIDE_U8);
  opt_periodic(&o, u->grid.dim, d.periodic);
  d.wall = tide_opt_choice(&o, "wall", "noslip", WALLS);
  d.tol = tide_opt_num(&o, "tol", 1e-8, 1e-300, 0.999);
  d.maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1 << 30);
  d.solver = opt_solver(&o);
  tide_viscosity_stats st;
  tide_lua_check(L, tide_liquid_diffuse(u, &d, &st), fn);
  lua_settop(L, 1);
  push_vstats(L, &st);
  return 2;
}

static const char *const visc_keys[] = {"mu", "nu", "rho", "dt", "phi", "labels", "periodic", "wall",
                                        "subdivision", "vol_min", "tol", "maxit", "precond", "solver", NULL};
static const char *const VPRECONDS[] = {"ic0", "jacobi", "none", NULL};

/* tide.liquid.viscosity(u, {mu = Pa s (number or f64 cells) | nu = m^2/s, rho =, dt = [, phi,
 *   labels, periodic, wall = "noslip", subdivision = 2, vol_min = 1e-3, tol = 1e-8, maxit,
 *   precond = "ic0"]}) -> u, stats */
static int l_viscosity(lua_State *L) {
  const char *fn = "tide.liquid.viscosity";
  tide_mac *u = checkmac(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, visc_keys);
  tide_viscosity_opts v = tide_viscosity_opts_default();
  const tide_grid *g = &u->grid;
  v.rho = tide_opt_reqnum(&o, "rho", 0, HUGE_VAL);
  if (!(v.rho > 0)) tide_lua_error(L, "%s: rho must be positive", fn);
  v.dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  if (!(v.dt > 0)) tide_lua_error(L, "%s: dt must be positive", fn);
  int hm = tide_opt_has(&o, "mu"), hn = tide_opt_has(&o, "nu");
  if (hm + hn != 1) tide_lua_error(L, "%s: give exactly one of 'mu' (Pa s) and 'nu' (m^2/s)", fn);
  if (hn) {
    v.mu = v.rho * tide_opt_num(&o, "nu", 0, 0, HUGE_VAL);
  } else {
    lua_getfield(L, o.idx, "mu");
    int isnum = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    if (isnum)
      v.mu = tide_opt_num(&o, "mu", 0, 0, HUGE_VAL);
    else
      v.mu_cells = opt_cells(&o, "mu", g, TIDE_F64);
  }
  v.phi = opt_cells(&o, "phi", g, TIDE_F64);
  v.labels = opt_cells(&o, "labels", g, TIDE_U8);
  opt_periodic(&o, g->dim, v.periodic);
  v.wall = tide_opt_choice(&o, "wall", "noslip", WALLS);
  v.subdivision = (int)tide_opt_int(&o, "subdivision", 2, 1, 16);
  v.vol_min = tide_opt_num(&o, "vol_min", 1e-3, 1e-12, 1);
  v.tol = tide_opt_num(&o, "tol", 1e-8, 1e-300, 0.999);
  v.maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1 << 30);
  int pc = tide_opt_choice(&o, "precond", "ic0", VPRECONDS);
  v.precond = pc == 0 ? TIDE_PRECOND_IC0 : pc == 1 ? TIDE_PRECOND_JACOBI : TIDE_PRECOND_NONE;
  v.solver = opt_solver(&o);
  tide_viscosity_stats st;
  tide_lua_check(L, tide_liquid_viscosity(u, &v, &st), fn);
  lua_settop(L, 1);
  push_vstats(L, &st);
  return 2;
}

/* --------------------------------------------------------- surface tension */

static const char *const curv_keys[] = {"periodic", "out", "method", "band", "contact_angle", NULL};

/* contact_angle = degrees in (0, 180) (default 90) into radians */
static double opt_contact_angle(tide_opts *o) {
  if (!tide_opt_has(o, "contact_angle")) return 0;
  double deg = tide_opt_num(o, "contact_angle", 90, 0, 180);
  if (!(deg > 0 && deg < 180))
    tide_lua_error(o->L, "%s: option 'contact_angle' must be in (0, 180) degrees", o->fname);
  return deg * M_PI / 180;
}
static const char *const KMETHODS[] = {"cells", "heights", NULL};

/* tide.liquid.curvature(grid, phi [, {periodic, out = f64 cells, method = "cells" | "heights",
 *   band = 3 dx (heights)}]) -> kappa (f64 cells, 1/m): "cells" by central differences,
 *   "heights" the surface's height-function curvature extended along the normals to |phi| < band */
static int l_curvature(lua_State *L) {
  const char *fn = "tide.liquid.curvature";
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_array *phi = tide_lua_checkarray(L, 2);
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  if (tide_array_nonfinite(phi)) tide_lua_error(L, "%s: phi holds non-finite values", fn);
  tide_opts o = tide_lua_optopts(L, 3, fn, curv_keys);
  int per[3];
  opt_periodic(&o, g->dim, per);
  int method = tide_opt_choice(&o, "method", "cells", KMETHODS);
  if (method == 0 && tide_opt_has(&o, "band")) tide_lua_error(L, "%s: 'band' belongs to method 'heights'", fn);
  double band = tide_opt_num(&o, "band", 0, 0, HUGE_VAL);
  tide_surface_walls w = {{per[0], per[1], per[2]}, opt_contact_angle(&o)};
  tide_array *out = tide_lua_liquid_out_cells(&o, g, TIDE_F64, "out", phi);
  if (method == 1)
    tide_lua_check(L, tide_liquid_curvature_heights_walls(g, TIDE_F64P(phi), &w, band, TIDE_F64P(out)), fn);
  else
    tide_lua_check(L, tide_liquid_curvature_walls(g, TIDE_F64P(phi), &w, TIDE_F64P(out)), fn);
  return 1;
}

static const char *const fcurv_keys[] = {"periodic", "out", "contact_angle", NULL};

/* tide.liquid.curvature_faces(grid, phi [, {periodic, out = f64 Mac}]) -> kappa (f64 Mac, 1/m):
 * height-function curvature at the interface crossing of each face whose cells
 * have phi of opposite signs, 0 on the other faces */
static int l_curvature_faces(lua_State *L) {
  const char *fn = "tide.liquid.curvature_faces";
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_array *phi = tide_lua_checkarray(L, 2);
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  if (tide_array_nonfinite(phi)) tide_lua_error(L, "%s: phi holds non-finite values", fn);
  tide_opts o = tide_lua_optopts(L, 3, fn, fcurv_keys);
  int per[3];
  opt_periodic(&o, g->dim, per);
  tide_surface_walls w = {{per[0], per[1], per[2]}, opt_contact_angle(&o)};
  tide_mac *out = tide_opt_obj(&o, "out", TIDE_MAC_T);
  if (out) {
    tide_lua_check(L, tide_mac_check(out, g, TIDE_F64, "out"), fn);
    lua_getfield(L, 3, "out");
  } else {
    tide_lua_check(L, tide_mac_new(g, TIDE_F64, &out), fn);
    tide_lua_pushobj(L, TIDE_MAC_T, out);
    tide_lua_gcaccount(L);
  }
  double *kf[3] = {NULL, NULL, NULL};
  for (int a = 0; a < g->dim; a++) kf[a] = TIDE_F64P(out->u[a]);
  tide_lua_check(L, tide_liquid_curvature_faces_walls(g, TIDE_F64P(phi), &w, kf), fn);
  return 1;
}

static const char *const CURVS[] = {"heights", "cells", NULL};
static const char *const st_keys[] = {"sigma", "rho", "dt", "method", "labels", "kappa", "theta_min", "curvature",
                                      "band", "side", "width", "projection", "periodic", "pjump", "tol", "maxit", "solver",
                                      "contact_angle", "solid_phi", "kappa_phi", NULL};
static const char *const SIDES[] = {"both", "liquid", NULL};
static const char *const WIDTHS[] = {"fixed", "local", NULL};
static const char *const PROJS[] = {"ghost", "labels", NULL};
static const char *const ST_METHODS[] = {"ghost", "liu", NULL};

/* tide.liquid.surface_tension(u, phi, {sigma =, rho =, dt = [, method = "ghost" | "liu", labels,
 *   kappa, curvature = "heights" | "cells", projection = "ghost" | "labels", theta_min = 0.01 (ghost
 *   projection), periodic, pjump (ghost), kappa_phi (ghost: the level set the curvature is read from), band = 3 dx, side = "both" | "liquid", width = "local" | "fixed", tol, maxit, solver (liu)]})
 *   -> u [, stats (liu)] */
static int l_surface_tension(lua_State *L) {
  const char *fn = "tide.liquid.surface_tension";
  tide_mac *u = checkmac(L, 1);
  tide_array *phi = tide_lua_checkarray(L, 2);
  const tide_grid *g = &u->grid;
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  tide_opts o = tide_lua_opts(L, 3, fn, st_keys);
  double sigma = tide_opt_reqnum(&o, "sigma", 0, HUGE_VAL);
  double rho = tide_opt_reqnum(&o, "rho", 0, HUGE_VAL);
  double dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  if (!(rho > 0) || !(dt > 0)) tide_lua_error(L, "%s: rho and dt must be positive", fn);
  int method = tide_opt_choice(&o, "method", "ghost", ST_METHODS);
  const tide_array *labels = opt_cells(&o, "labels", g, TIDE_U8);
  const tide_array *kappa = opt_cells(&o, "kappa", g, TIDE_F64);
  int per[3];
  opt_periodic(&o, g->dim, per);
  int curv = tide_opt_choice(&o, "curvature", "heights", CURVS);
  int cell_surface = tide_opt_choice(&o, "projection", "ghost", PROJS);
  double angle = opt_contact_angle(&o);
  const tide_array *solid_phi = opt_cells(&o, "solid_phi", g, TIDE_F64);
  const tide_array *kappa_phi = opt_cells(&o, "kappa_phi", g, TIDE_F64);
  if (kappa && kappa_phi) tide_lua_error(L, "%s: 'kappa' and 'kappa_phi' exclude each other", fn);
  if (cell_surface && tide_opt_has(&o, "theta_min"))
    tide_lua_error(L, "%s: 'theta_min' belongs to projection 'ghost'", fn);
  double theta_min = tide_opt_num(&o, "theta_min", 0.01, 1e-12, 1);
  if (method == 0) {
    if (tide_opt_has(&o, "band") || tide_opt_has(&o, "side") || tide_opt_has(&o, "width") || tide_opt_has(&o, "tol") ||
        tide_opt_has(&o, "maxit") || tide_opt_has(&o, "solver"))
      tide_lua_error(L, "%s: 'band', 'side', 'width', 'tol', 'maxit' and 'solver' belong to method 'liu'", fn);
    tide_tension_opts t = tide_tension_opts_default();
    t.sigma = sigma, t.rho = rho, t.dt = dt, t.labels = labels, t.kappa = kappa;
    memcpy(t.periodic, per, sizeof per);
    t.theta_min = theta_min;
    t.cell_curvature = curv;
    t.cell_surface = cell_surface;
    t.contact_angle = angle, t.solid_phi = solid_phi, t.kappa_phi = kappa_phi;
    const tide_array *pj = opt_cells(&o, "pjump", g, TIDE_F64);
    tide_lua_check(L, tide_liquid_surface_tension_jump(u, phi, &t, (tide_array *)pj), fn);
    lua_settop(L, 1);
    return 1;
  }
  if (tide_opt_has(&o, "pjump")) tide_lua_error(L, "%s: 'pjump' belongs to method 'ghost'", fn);
  if (kappa_phi) tide_lua_error(L, "%s: 'kappa_phi' belongs to method 'ghost'", fn);
  tide_tension_liu_opts t = tide_tension_liu_opts_default();
  t.sigma = sigma, t.rho = rho, t.dt = dt, t.labels = labels, t.kappa = kappa;
  memcpy(t.periodic, per, sizeof per);
  t.band = tide_opt_num(&o, "band", 0, 0, HUGE_VAL);
  t.one_sided = tide_opt_choice(&o, "side", "both", SIDES);
  t.local_width = tide_opt_choice(&o, "width", "local", WIDTHS);
  t.cell_curvature = curv;
  t.cell_surface = cell_surface;
  t.contact_angle = angle, t.solid_phi = solid_phi;
  t.theta_min = theta_min;
  t.tol = tide_opt_num(&o, "tol", 1e-8, 1e-300, 0.999);
  t.maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1 << 30);
  t.solver = opt_solver(&o);
  tide_viscosity_stats st;
  tide_lua_check(L, tide_liquid_surface_tension_liu(u, phi, &t, &st), fn);
  lua_settop(L, 1);
  push_vstats(L, &st);
  return 2;
}

static const char *const cext_keys[] = {"solid_phi", "contact_angle", "periodic", "band", "out", NULL};

/* tide.liquid.contact_extend(grid, phi, {solid_phi = f64 cells [, contact_angle = 90 (degrees), periodic,
 *   band = 4 dx, out = f64 cells]}) -> phi continued into the solid (solid_phi < 0) by the contact angle */
static int l_contact_extend(lua_State *L) {
  const char *fn = "tide.liquid.contact_extend";
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_array *phi = tide_lua_checkarray(L, 2);
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  if (tide_array_nonfinite(phi)) tide_lua_error(L, "%s: phi holds non-finite values", fn);
  tide_opts o = tide_lua_opts(L, 3, fn, cext_keys);
  if (!tide_opt_has(&o, "solid_phi")) tide_lua_error(L, "%s: option 'solid_phi' is required", fn);
  const tide_array *sp = opt_cells(&o, "solid_phi", g, TIDE_F64);
  int per[3];
  opt_periodic(&o, g->dim, per);
  tide_surface_walls w = {{per[0], per[1], per[2]}, opt_contact_angle(&o)};
  double band = tide_opt_num(&o, "band", 0, 0, HUGE_VAL);
  tide_array *out = tide_lua_liquid_out_cells(&o, g, TIDE_F64, "out", NULL);
  if (out == phi) tide_lua_error(L, "%s: 'out' must not be phi", fn);
  tide_lua_check(L, tide_liquid_contact_extend(g, TIDE_F64P(phi), TIDE_F64P(sp), &w, band, TIDE_F64P(out)), fn);
  return 1;
}

static const char *const ext_keys[] = {"maxdist", NULL};

/* tide.liquid.extend(u, phi, valid [, {maxdist = 0}]) -> u: linear extension of u from the valid
 * faces into the air along the normals of phi (Aslam 2004); valid (u8 Mac) updated */
static int l_extend(lua_State *L) {
  const char *fn = "tide.liquid.extend";
  tide_mac *u = checkmac(L, 1);
  tide_array *phi = tide_lua_checkarray(L, 2);
  tide_mac *valid = checkmac(L, 3);
  tide_lua_check(L, tide_grid_check_cells(&u->grid, phi, TIDE_F64, "phi"), fn);
  tide_lua_check(L, tide_mac_check(valid, &u->grid, TIDE_U8, "valid"), fn);
  tide_opts o = tide_lua_optopts(L, 4, fn, ext_keys);
  double maxdist = tide_opt_num(&o, "maxdist", 0, 0, HUGE_VAL);
  tide_lua_check(L, tide_liquid_extend_linear(u, TIDE_F64P(phi), maxdist, valid), fn);
  lua_settop(L, 1);
  return 1;
}

static const char *const lphi_keys[] = {"solid", "out", "open", NULL};

/* tide.liquid.label_phi(grid, phi [, {solid = u8 cells, out = u8 cells, open = sides}]) -> labels:
 * liquid where phi < 0, solid where solid is, air elsewhere and in the
 * outermost cell layer of the open sides */
static int l_label_phi(lua_State *L) {
  const char *fn = "tide.liquid.label_phi";
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_array *phi = tide_lua_checkarray(L, 2);
  tide_opts o = tide_lua_optopts(L, 3, fn, lphi_keys);
  const tide_array *solid = opt_cells(&o, "solid", g, TIDE_U8);
  tide_array *out = tide_lua_liquid_out_cells(&o, g, TIDE_U8, "out", NULL);
  unsigned open = tide_opt_sides(&o, "open", g->dim);
  tide_lua_check(L, tide_liquid_label_phi(g, phi, solid, out), fn);
  if (open) tide_lua_check(L, tide_liquid_open_cells(g, open, out), fn);
  return 1;
}

/* tide.liquid.capillary_dt(dx, sigma, rho) -> sqrt(rho dx^3 / (2 pi sigma)) [s] */
static int l_capillary_dt(lua_State *L) {
  const char *fn = "tide.liquid.capillary_dt";
  double dx = tide_lua_checkfinite(L, 1, fn, "dx");
  double sigma = tide_lua_checkfinite(L, 2, fn, "sigma");
  double rho = tide_lua_checkfinite(L, 3, fn, "rho");
  if (!(dx > 0) || !(sigma >= 0) || !(rho > 0)) tide_lua_error(L, "%s: need dx > 0, sigma >= 0, rho > 0", fn);
  lua_pushnumber(L, tide_liquid_capillary_dt(dx, sigma, rho));
  return 1;
}

static const char *const ke_keys[] = {"periodic", "mask", NULL};

/* tide.liquid.kinetic_energy(u [, {periodic, mask = u8 cells}]) -> 1/2 sum u^2 dx^dim */
static int l_kinetic_energy(lua_State *L) {
  const char *fn = "tide.liquid.kinetic_energy";
  tide_mac *u = checkmac(L, 1);
  tide_opts o = tide_lua_optopts(L, 2, fn, ke_keys);
  int per[3];
  opt_periodic(&o, u->grid.dim, per);
  const tide_array *mask = opt_cells(&o, "mask", &u->grid, TIDE_U8);
  double e;
  tide_lua_check(L, tide_mac_kinetic_energy(u, per, mask, &e), fn);
  lua_pushnumber(L, e);
  return 1;
}

/* ---------------------------------------------------------- tide.Periodic */

static tide_periodic *checkper(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, TIDE_PERIODIC_T); }

static const char *const periodic_keys[] = {"grid", "periodic", "precond", NULL};
static const char *const PPRECONDS[] = {"mic0", "ic0", "jacobi", "none", NULL};

/* tide.liquid.periodic{grid = g [, periodic = {true, true[, true]}, precond = "mic0"]}
 *   -> tide.Periodic */
static int l_periodic(lua_State *L) {
  const char *fn = "tide.liquid.periodic";
  tide_opts o = tide_lua_opts(L, 1, fn, periodic_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  int per[3] = {1, 1, g->dim == 3};
  if (tide_opt_has(&o, "periodic")) opt_periodic(&o, g->dim, per);
  tide_periodic *P;
  int pc = tide_opt_choice(&o, "precond", "mic0", PPRECONDS);
  tide_lua_check(L, tide_periodic_new(g, per, &P), fn);
  P->precond = pc == 0 ? TIDE_PRECOND_MIC0 : pc == 1 ? TIDE_PRECOND_IC0 : pc == 2 ? TIDE_PRECOND_JACOBI : TIDE_PRECOND_NONE;
  tide_lua_pushobj(L, TIDE_PERIODIC_T, P);
  tide_lua_gcaccount(L);
  return 1;
}

static int per_free(lua_State *L) {
  tide_periodic *P = tide_lua_takeobj(L, 1, TIDE_PERIODIC_T);
  tide_periodic_free(P);
  return 0;
}

static int per_tostring(lua_State *L) {
  tide_periodic *P = tide_lua_testobj(L, 1, TIDE_PERIODIC_T);
  if (!P) {
    lua_pushstring(L, "tide.Periodic (freed)");
    return 1;
  }
  const tide_grid *g = &P->grid;
  const char *ax = "xyz";
  char axes[4] = {0, 0, 0, 0};
  int m = 0;
  for (int d = 0; d < g->dim; d++)
    if (P->per[d]) axes[m++] = ax[d];
  if (g->dim == 2)
    lua_pushfstring(L, "tide.Periodic(%d x %d, periodic in %s)", g->n[0], g->n[1], axes);
  else
    lua_pushfstring(L, "tide.Periodic(%d x %d x %d, periodic in %s)", g->n[0], g->n[1], g->n[2], axes);
  return 1;
}

static const char *const SCHEMES[] = {"pic", "flip", "apic", NULL};
static const char *const p2g_keys[] = {"scheme", "weights", NULL};

/* P:p2g(ps, u [, {scheme = "flip", weights = f64 or u8 Mac}]) -> u */
static int per_p2g(lua_State *L) {
  const char *fn = "Periodic:p2g";
  tide_periodic *P = checkper(L, 1);
  tide_particles *ps = tide_lua_checkobj(L, 2, TIDE_PARTICLES_T);
  tide_mac *u = checkmac(L, 3);
  tide_opts o = tide_lua_optopts(L, 4, fn, p2g_keys);
  int scheme = tide_opt_choice(&o, "scheme", "flip", SCHEMES);
  tide_mac *w = tide_opt_obj(&o, "weights", TIDE_MAC_T);
  tide_lua_check(L, tide_periodic_p2g(P, ps, u, scheme == TIDE_TRANSFER_APIC, w), fn);
  lua_settop(L, 3);
  return 1;
}

static const char *const g2p_keys[] = {"scheme", "old", "flip", NULL};

/* P:g2p(u, ps [, {scheme = "flip", old = Mac, flip = 0.97}]) -> ps */
static int per_g2p(lua_State *L) {
  const char *fn = "Periodic:g2p";
  tide_periodic *P = checkper(L, 1);
  tide_mac *u = checkmac(L, 2);
  tide_particles *ps = tide_lua_checkobj(L, 3, TIDE_PARTICLES_T);
  tide_opts o = tide_lua_optopts(L, 4, fn, g2p_keys);
  int scheme = tide_opt_choice(&o, "scheme", "flip", SCHEMES);
  tide_mac *old = tide_opt_obj(&o, "old", TIDE_MAC_T);
  double flip = tide_opt_num(&o, "flip", 0.97, 0, 1);
  if (scheme == TIDE_TRANSFER_FLIP && !old) tide_lua_error(L, "%s: scheme 'flip' needs option 'old'", fn);
  if (scheme == TIDE_TRANSFER_APIC && !ps->apic) tide_lua_error(L, "%s: scheme 'apic' needs particles made with apic = true", fn);
  tide_lua_check(L, tide_periodic_g2p(P, ps, u, old, (tide_transfer)scheme, flip), fn);
  lua_settop(L, 3);
  return 1;
}

static const char *const adv_keys[] = {"order", NULL};

/* P:advect_particles(ps, u, dt [, {order = 2}]) -> ps (positions wrapped) */
static int per_advect_particles(lua_State *L) {
  const char *fn = "Periodic:advect_particles";
  tide_periodic *P = checkper(L, 1);
  tide_particles *ps = tide_lua_checkobj(L, 2, TIDE_PARTICLES_T);
  tide_mac *u = checkmac(L, 3);
  double dt = tide_lua_checkfinite(L, 4, fn, "dt");
  tide_opts o = tide_lua_optopts(L, 5, fn, adv_keys);
  int order = (int)tide_opt_int(&o, "order", 2, 1, 3);
  tide_lua_check(L, tide_periodic_advect_particles(P, ps, u, dt, order), fn);
  lua_settop(L, 2);
  return 1;
}

static const char *const advm_keys[] = {"rk", "interp", "scheme", "clamp", "out", NULL};

/* P:advect(vel, q, dt [, {rk = 2, interp = "linear", scheme = "sl", clamp =
 * "revert", out = Mac}]) -> out: q advected by vel on the torus, the options
 * of tide.grid.advect_mac */
static int per_advect(lua_State *L) {
  const char *fn = "Periodic:advect";
  tide_periodic *P = checkper(L, 1);
  tide_mac *vel = checkmac(L, 2), *q = checkmac(L, 3);
  double dt = tide_lua_checkfinite(L, 4, fn, "dt");
  tide_opts o = tide_lua_optopts(L, 5, fn, advm_keys);
  tide_advect_opts ao = tide_lua_advect_opts(&o);
  tide_mac *out = tide_opt_obj(&o, "out", TIDE_MAC_T);
  if (out) {
    if (out == q || out == vel) tide_lua_error(L, "%s: out must differ from the velocity and the field", fn);
    lua_getfield(L, 5, "out");
  } else {
    tide_lua_check(L, tide_mac_new(&P->grid, TIDE_F64, &out), fn);
    tide_lua_pushobj(L, TIDE_MAC_T, out);
    tide_lua_gcaccount(L);
  }
  tide_lua_check(L, tide_periodic_advect_mac(P, vel, q, dt, &ao, out), fn);
  return 1;
}

static const char *const advc_keys[] = {"rk", "interp", "scheme", "clamp", "out", NULL};

/* P:advect_cells(vel, f, dt [, {rk, interp, scheme, clamp, out}]) -> out:
 * the options of tide.grid.advect_scalar, on the torus */
static int per_advect_cells(lua_State *L) {
  const char *fn = "Periodic:advect_cells";
  tide_periodic *P = checkper(L, 1);
  tide_mac *vel = checkmac(L, 2);
  tide_array *f = tide_lua_checkarray(L, 3);
  tide_lua_check(L, tide_grid_check_cells(&P->grid, f, TIDE_F64, "field"), fn);
  double dt = tide_lua_checkfinite(L, 4, fn, "dt");
  tide_opts o = tide_lua_optopts(L, 5, fn, advc_keys);
  tide_advect_opts ao = tide_lua_advect_opts(&o);
  tide_array *out = tide_lua_liquid_out_cells(&o, &P->grid, TIDE_F64, "out", f);
  tide_lua_check(L, tide_periodic_advect_cells(P, vel, TIDE_F64P(f), dt, &ao, TIDE_F64P(out)), fn);
  return 1;
}

static const char *const proj_keys[] = {"dt", "rho", "labels", "phi", "theta_min", "tol", "maxit", "valid", "pressure", NULL};

/* P:project(u, {dt =, rho = [, labels, phi, theta_min = 0.01, tol = 1e-8, maxit, valid = u8 Mac,
 * pressure = f64 cells]}) -> u, stats; phi (f64 cells): the ghost-fluid surface (p = 0 at the
 * interface); valid receives the projected faces */
static int per_project(lua_State *L) {
  const char *fn = "Periodic:project";
  tide_periodic *P = checkper(L, 1);
  tide_mac *u = checkmac(L, 2);
  tide_opts o = tide_lua_opts(L, 3, fn, proj_keys);
  double dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  double rho = tide_opt_reqnum(&o, "rho", 0, HUGE_VAL);
  if (!(dt > 0) || !(rho > 0)) tide_lua_error(L, "%s: dt and rho must be positive", fn);
  const tide_array *lab = opt_cells(&o, "labels", &P->grid, TIDE_U8);
  const tide_array *phi = opt_cells(&o, "phi", &P->grid, TIDE_F64);
  double tmin = tide_opt_num(&o, "theta_min", TIDE_MAC_THETA_MIN, 1e-6, 1);
  double tol = tide_opt_num(&o, "tol", 1e-8, 1e-300, 0.999);
  int maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1 << 30);
  tide_array *p = (tide_array *)opt_cells(&o, "pressure", &P->grid, TIDE_F64);
  tide_mac *valid = tide_opt_obj(&o, "valid", TIDE_MAC_T);
  tide_project_stats st;
  tide_lua_check(L, tide_periodic_project_ghost(P, u, lab, phi, tmin, dt, rho, tol, maxit, valid, p, &st), fn);
  lua_settop(L, 2);
  tide_lua_push_project_stats(L, &st);
  return 2;
}

static const char *const pext_keys[] = {"linear", "maxdist", NULL};

/* P:extend(u, phi, valid [, {linear = true, maxdist = 0}]) -> u: the velocity of the valid faces
 * extended into the air along the normals of phi on the torus (linear: tide.liquid.extend,
 * else constant as tide.grid.extrapolate); valid updated */
static int per_extend(lua_State *L) {
  const char *fn = "Periodic:extend";
  tide_periodic *P = checkper(L, 1);
  tide_mac *u = checkmac(L, 2);
  tide_array *phi = tide_lua_checkarray(L, 3);
  tide_mac *valid = checkmac(L, 4);
  tide_opts o = tide_lua_optopts(L, 5, fn, pext_keys);
  int linear = tide_opt_bool(&o, "linear", 1);
  double maxdist = tide_opt_num(&o, "maxdist", 0, 0, HUGE_VAL);
  tide_lua_check(L, tide_periodic_extend(P, u, phi, valid, linear, maxdist), fn);
  lua_settop(L, 2);
  return 1;
}

/* P:extrapolate(u, valid [, layers = 2 [, clear = false]]) -> u: Mac:extrapolate on the torus */
static int per_extrapolate(lua_State *L) {
  const char *fn = "Periodic:extrapolate";
  tide_periodic *P = checkper(L, 1);
  tide_mac *u = checkmac(L, 2);
  tide_mac *valid = checkmac(L, 3);
  int layers = lua_isnoneornil(L, 4) ? 2 : (int)tide_lua_checkrange(L, 4, fn, "layers", 0, 1 << 20);
  int clear = 0;
  if (!lua_isnoneornil(L, 5)) {
    luaL_checktype(L, 5, LUA_TBOOLEAN);
    clear = lua_toboolean(L, 5);
  }
  tide_lua_check(L, tide_periodic_extrapolate(P, u, valid, layers, clear), fn);
  lua_settop(L, 2);
  return 1;
}

/* P:enforce_walls(u [, labels]) -> u: zero normal velocity on the non-periodic walls and the faces
 * of solid cells (labels u8 cells, 2 = solid) */
static int per_enforce_walls(lua_State *L) {
  const char *fn = "Periodic:enforce_walls";
  tide_periodic *P = checkper(L, 1);
  tide_mac *u = checkmac(L, 2);
  tide_array *lab = lua_isnoneornil(L, 3) ? NULL : tide_lua_checkarray(L, 3);
  tide_lua_check(L, tide_periodic_enforce_walls(P, u, lab), fn);
  lua_settop(L, 2);
  return 1;
}

static const char *const predist_keys[] = {"band", NULL};

/* P:redistance(phi [, {band = 0}]) -> phi: signed distance on the torus (tide.grid.redistance) */
static int per_redistance(lua_State *L) {
  const char *fn = "Periodic:redistance";
  tide_periodic *P = checkper(L, 1);
  tide_array *phi = tide_lua_checkarray(L, 2);
  tide_opts o = tide_lua_optopts(L, 3, fn, predist_keys);
  double band = tide_opt_num(&o, "band", 0, 0, HUGE_VAL);
  tide_lua_check(L, tide_periodic_redistance(P, phi, band), fn);
  lua_settop(L, 2);
  return 1;
}

/* P:sync(u) -> u: duplicated faces of the periodic axes get their mean */
static int per_sync(lua_State *L) {
  tide_periodic *P = checkper(L, 1);
  tide_mac *u = checkmac(L, 2);
  tide_lua_check(L, tide_periodic_sync(P, u), "Periodic:sync");
  lua_settop(L, 2);
  return 1;
}

/* P:wrap(ps | positions (n, dim) array) -> the argument, positions wrapped into the box */
static int per_wrap(lua_State *L) {
  tide_periodic *P = checkper(L, 1);
  tide_particles *ps = tide_lua_testobj(L, 2, TIDE_PARTICLES_T);
  tide_array *x = ps ? ps->x : tide_lua_testarray(L, 2);
  if (!x) tide_lua_error(L, "Periodic:wrap: argument 2 must be a tide.Particles or a positions tide.Array");
  tide_lua_check(L, tide_periodic_wrap(P, x), "Periodic:wrap");
  lua_settop(L, 2);
  return 1;
}

static int per_index(lua_State *L) {
  tide_periodic *P = checkper(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "periodic")) {
    lua_createtable(L, P->grid.dim, 0);
    for (int d = 0; d < P->grid.dim; d++) {
      lua_pushboolean(L, P->per[d]);
      lua_rawseti(L, -2, d + 1);
    }
  } else if (!strcmp(k, "bytes")) {
    lua_pushinteger(L, (lua_Integer)tide_periodic_bytes(P));
  } else {
    luaL_getmetatable(L, TIDE_PERIODIC_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg per_methods[] = {{"p2g", per_p2g},
                                       {"g2p", per_g2p},
                                       {"advect_particles", per_advect_particles},
                                       {"advect", per_advect},
                                       {"advect_cells", per_advect_cells},
                                       {"project", per_project},
                                       {"extend", per_extend},
                                       {"extrapolate", per_extrapolate},
                                       {"enforce_walls", per_enforce_walls},
                                       {"redistance", per_redistance},
                                       {"sync", per_sync},
                                       {"wrap", per_wrap},
                                       {"free", per_free},
                                       {NULL, NULL}};
static const luaL_Reg per_meta[] = {{"__gc", per_free},
                                    {"__close", per_free},
                                    {"__tostring", per_tostring},
                                    {"__index", per_index},
                                    {NULL, NULL}};

/* ---------------------------------------------------- tide.ViscositySolver */

/* tide.liquid.viscosity_solver() -> a workspace for diffuse / viscosity /
 * surface_tension{method = "liu"} (option solver = S) */
static int l_viscosity_solver(lua_State *L) {
  if (!lua_isnone(L, 1)) tide_lua_error(L, "tide.liquid.viscosity_solver: takes no arguments");
  tide_viscosity_solver *S;
  tide_lua_check(L, tide_viscosity_solver_new(&S), "tide.liquid.viscosity_solver");
  tide_lua_pushobj(L, TIDE_VSOLVER_T, S);
  return 1;
}

static int vs_free(lua_State *L) {
  tide_viscosity_solver_free(tide_lua_takeobj(L, 1, TIDE_VSOLVER_T));
  return 0;
}

static int vs_tostring(lua_State *L) {
  tide_viscosity_solver *S = tide_lua_testobj(L, 1, TIDE_VSOLVER_T);
  if (!S) {
    lua_pushstring(L, "tide.ViscositySolver (freed)");
    return 1;
  }
  int64_t b, r;
  tide_viscosity_solver_counts(S, &b, &r);
  lua_pushfstring(L, "tide.ViscositySolver(%d patterns built, %d refills, %d bytes)", (int)b, (int)r,
                  (int)tide_viscosity_solver_bytes(S));
  return 1;
}

static int vs_index(lua_State *L) {
  tide_viscosity_solver *S = tide_lua_checkobj(L, 1, TIDE_VSOLVER_T);
  const char *k = luaL_checkstring(L, 2);
  int64_t b, r;
  tide_viscosity_solver_counts(S, &b, &r);
  if (!strcmp(k, "builds")) {
    lua_pushinteger(L, (lua_Integer)b);
  } else if (!strcmp(k, "refills")) {
    lua_pushinteger(L, (lua_Integer)r);
  } else if (!strcmp(k, "bytes")) {
    lua_pushinteger(L, (lua_Integer)tide_viscosity_solver_bytes(S));
  } else {
    luaL_getmetatable(L, TIDE_VSOLVER_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg vs_methods[] = {{"free", vs_free}, {NULL, NULL}};
static const luaL_Reg vs_meta[] = {{"__gc", vs_free},
                                   {"__close", vs_free},
                                   {"__tostring", vs_tostring},
                                   {"__index", vs_index},
                                   {NULL, NULL}};

static const luaL_Reg funcs[] = {{"diffuse", l_diffuse},
                                 {"viscosity", l_viscosity},
                                 {"curvature", l_curvature},
                                 {"curvature_faces", l_curvature_faces},
                                 {"contact_extend", l_contact_extend},
                                 {"extend", l_extend},
                                 {"surface_tension", l_surface_tension},
                                 {"capillary_dt", l_capillary_dt},
                                 {"label_phi", l_label_phi},
                                 {"kinetic_energy", l_kinetic_energy},
                                 {"periodic", l_periodic},
                                 {"viscosity_solver", l_viscosity_solver},
                                 {NULL, NULL}};

void tide_lua_liquid_physics_open(lua_State *L) {
  tide_lua_newtype(L, TIDE_PERIODIC_T, per_methods, per_meta);
  tide_lua_newtype(L, TIDE_VSOLVER_T, vs_methods, vs_meta);
  luaL_setfuncs(L, funcs, 0);
}
