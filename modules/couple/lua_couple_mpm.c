/* lua_couple_mpm.c -- tide.couple.mpm_project (see mpm_flip.h): argument
 * checks and marshalling only. */
#include "couple/mpm_flip.h"
#include "linalg/mac_poisson.h"
#include "tide_lua.h"

#include <math.h>

static const char *const keys[] = {"mpm",     "u",     "density",   "labels",   "dt",    "rho",
                                   "per_cell", "phi",  "tol",       "maxit",    "theta_min",
                                   "valid",   "pressure", "body_radius", "body_phi", NULL};

static void setnum(lua_State *L, int t, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, t, k);
}

/* tide.couple.mpm_project{mpm =, u =, density =, labels =, dt =, rho = 1000, per_cell = 2^dim,
 *   phi =, body_radius = dx/4, tol = 1e-8, maxit = 0, theta_min = 0.01, valid =, pressure =, body_phi =} -> stats */
static int l_mpm_project(lua_State *L) {
  const char *fn = "tide.couple.mpm_project";
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_mpm *m = tide_opt_reqobj(&o, "mpm", "tide.MPM");
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T);
  tide_array *density = tide_opt_reqarray(&o, "density");
  tide_array *labels = tide_opt_reqarray(&o, "labels");
  tide_mpm_flip_opts co = tide_mpm_flip_opts_default();
  co.dt = tide_opt_reqnum(&o, "dt", 0, HUGE_VAL);
  if (!(co.dt > 0)) tide_lua_error(L, "%s: dt must be positive", fn);
  co.rho = tide_opt_num(&o, "rho", 1000, 1e-300, HUGE_VAL);
  co.per_cell = tide_opt_num(&o, "per_cell", u->grid.dim == 3 ? 8 : 4, 1e-300, HUGE_VAL);
  co.phi = tide_opt_array(&o, "phi");
  co.tol = tide_opt_num(&o, "tol", 1e-8, 1e-300, 0.5);
  co.maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1000000000);
  co.theta_min = tide_opt_num(&o, "theta_min", TIDE_MAC_THETA_MIN, 1e-12, 1);
  co.body_radius = tide_opt_num(&o, "body_radius", 0.25 * u->grid.dx, 1e-300, HUGE_VAL);
  tide_mac *valid = tide_opt_obj(&o, "valid", TIDE_MAC_T);
  tide_array *pressure = tide_opt_array(&o, "pressure");
  tide_array *body_phi = tide_opt_array(&o, "body_phi");
  tide_mpm_flip_stats st;
  tide_lua_check(L, tide_couple_mpm_flip_project(m, u, density, labels, &co, valid, pressure, body_phi, &st),
                 fn);
  lua_createtable(L, 0, 8);
  int t = lua_gettop(L);
  lua_pushinteger(L, st.iterations);
  lua_setfield(L, t, "iterations");
  setnum(L, t, "residual", st.residual);
  lua_pushboolean(L, st.converged);
  lua_setfield(L, t, "converged");
  lua_pushinteger(L, (lua_Integer)st.unknowns);
  lua_setfield(L, t, "unknowns");
  lua_pushinteger(L, (lua_Integer)st.body_cells);
  lua_setfield(L, t, "body_cells");
  lua_pushboolean(L, st.nullspace);
  lua_setfield(L, t, "nullspace");
  setnum(L, t, "div_before", st.div_before);
  setnum(L, t, "div_after", st.div_after);
  return 1;
}

static const luaL_Reg funcs[] = {{"mpm_project", l_mpm_project}, {NULL, NULL}};

void tide_lua_couple_mpm_open(lua_State *L, int module) {
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
