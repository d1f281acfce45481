/*
 * lua_liquid_probe.c -- tide.liquid.front / elevation / measure: the probes
 * of a liquid state (numerics in probe.c; docs/liquids-physics.md,
 * "Probes").  Argument checks and marshalling only.  Registered into the
 * tide.liquid table by lua_liquid.c.
 */
#include "liquid/lua_liquid.h"
#include "liquid/probe.h"
#include "tide_lua.h"

#include <math.h>
#include <string.h>

/* a side name "x-", "y+", ... -> axis, hi; raises otherwise */
static void check_side(lua_State *L, const char *fn, const char *what, const char *s, int dim, int *axis, int *hi) {
  if (s && strlen(s) == 2 && s[0] >= 'x' && s[0] < 'x' + dim && (s[1] == '-' || s[1] == '+')) {
    *axis = s[0] - 'x';
    *hi = s[1] == '+';
    return;
  }
  tide_lua_error(L, "%s: %s must be a side \"x-\", \"x+\", \"y-\", \"y+\"%s, got %s", fn, what,
                 dim == 3 ? ", \"z-\", \"z+\"" : "", s ? s : "nothing");
}

static void push_found(lua_State *L, double v, int found) {
  if (found) lua_pushnumber(L, v);
  else lua_pushnil(L);
}

/* the level set (f64 cells of g) or the particles at idx */
static const double *phi_or_particles(lua_State *L, int idx, const tide_grid *g, const char *fn,
                                      tide_particles **ps) {
  *ps = tide_lua_testobj(L, idx, TIDE_PARTICLES_T);
  if (*ps) return NULL;
  tide_array *phi = tide_lua_testarray(L, idx);
  if (!phi) tide_lua_error(L, "%s: argument 2 must be a level set (f64 cells) or a %s", fn, TIDE_PARTICLES_T);
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  return TIDE_F64P(phi);
}

static const char *const front_keys[] = {"wall", "direction", "layer", NULL};

/* tide.liquid.front(g, phi | ps, {wall = "y-", direction = "x+" [, layer = dx (particles)]})
 * -> the farthest position of the liquid along direction in the cell layer next to wall
 * [m], or nil when that layer holds none */
static int l_front(lua_State *L) {
  const char *fn = "tide.liquid.front";
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_particles *ps;
  const double *phi = phi_or_particles(L, 2, g, fn, &ps);
  tide_opts o = tide_lua_optopts(L, 3, fn, front_keys);
  int w, whi, a, ahi;
  check_side(L, fn, "wall", tide_opt_str(&o, "wall", "y-"), g->dim, &w, &whi);
  check_side(L, fn, "direction", tide_opt_str(&o, "direction", "x+"), g->dim, &a, &ahi);
  double v;
  int found;
  if (ps) {
    double layer = tide_opt_num(&o, "layer", g->dx, 0, HUGE_VAL);
    tide_lua_check(L, tide_liquid_front_particles(g, ps, w, whi, a, ahi ? 1 : -1, layer, &v, &found), fn);
  } else {
    if (tide_opt_has(&o, "layer")) tide_lua_error(L, "%s: layer is for particles", fn);
    tide_lua_check(L, tide_liquid_front_phi(g, phi, w, whi, a, ahi ? 1 : -1, &v, &found), fn);
  }
  push_found(L, v, found);
  return 1;
}

static const char *const elev_keys[] = {"at", "wall", "up", "half_width", NULL};

/* tide.liquid.elevation(g, phi | ps, {at = x | {x, z} [, wall = "x-", up = "y", half_width = dx/2]})
 * -> the height [m] of the topmost free surface above the point at (the coordinates of the
 * other axes), or nil where the column holds no liquid; wall = "x-": at the centre of the
 * first column of cells at that wall (3D: at = the coordinate along the wall) */
static int l_elevation(lua_State *L) {
  const char *fn = "tide.liquid.elevation";
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_particles *ps;
  const double *phi = phi_or_particles(L, 2, g, fn, &ps);
  tide_opts o = tide_lua_opts(L, 3, fn, elev_keys);
  const char *ups = tide_opt_str(&o, "up", "y");
  if (!ups || strlen(ups) != 1 || ups[0] < 'x' || ups[0] >= 'x' + g->dim)
    tide_lua_error(L, "%s: up must be an axis name (\"x\", \"y\"%s)", fn, g->dim == 3 ? ", \"z\"" : "");
  int up = ups[0] - 'x';
  int others[2], no = 0;
  for (int d = 0; d < g->dim; d++)
    if (d != up) others[no++] = d;
  double pos[3] = {0, 0, 0}, at[2] = {0, 0};
  int wall = tide_opt_has(&o, "wall");
  int nat = 0;
  if (tide_opt_has(&o, "at")) {
    lua_getfield(L, o.idx, "at");
    int isnum = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    if (isnum) {
      at[0] = tide_opt_num(&o, "at", 0, -HUGE_VAL, HUGE_VAL);
      nat = 1;
    } else {
      nat = tide_opt_vec(&o, "at", 1, 2, at);
    }
  }
  if (wall) {
    int w, whi;
    check_side(L, fn, "wall", tide_opt_str(&o, "wall", NULL), g->dim, &w, &whi);
    if (w == up) tide_lua_error(L, "%s: wall must be a side wall (not across the up axis)", fn);
    if (nat != no - 1) tide_lua_error(L, "%s: with wall, at must give %d coordinate%s along the wall", fn, no - 1, no == 2 ? "" : "s");
    pos[w] = g->origin[w] + (whi ? g->n[w] - 0.5 : 0.5) * g->dx;
    if (no == 2) pos[w == others[0] ? others[1] : others[0]] = at[0];
  } else {
    if (nat != no) tide_lua_error(L, "%s: at must give the %d coordinate%s of the other axes", fn, no, no == 1 ? "" : "s");
    for (int m = 0; m < no; m++) pos[others[m]] = at[m];
  }
  double v;
  int found;
  if (ps) {
    double hw = tide_opt_num(&o, "half_width", 0.5 * g->dx, 0, HUGE_VAL);
    tide_lua_check(L, tide_liquid_elevation_particles(g, ps, up, pos, hw, &v, &found), fn);
  } else {
    if (tide_opt_has(&o, "half_width")) tide_lua_error(L, "%s: half_width is for particles", fn);
    tide_lua_check(L, tide_liquid_elevation_phi(g, phi, up, pos, &v, &found), fn);
  }
  push_found(L, v, found);
  return 1;
}

static const char *const measure_keys[] = {"u", "phi", "particles", "grid", "per_cell", "rho", "gravity", NULL};

/* tide.liquid.measure{u =, phi = | particles =, grid =, per_cell = [, rho = 1000, gravity]}
 * -> {volume, kinetic, potential, max_speed} of the liquid (probe.h) */
static int l_measure(lua_State *L) {
  const char *fn = "tide.liquid.measure";
  tide_opts o = tide_lua_opts(L, 1, fn, measure_keys);
  double rho = tide_opt_num(&o, "rho", 1000, 0, HUGE_VAL);
  if (!(rho > 0)) tide_lua_error(L, "%s: rho must be positive", fn);
  tide_particles *ps = tide_opt_obj(&o, "particles", TIDE_PARTICLES_T);
  tide_liquid_stats s;
  double gr[3] = {0, 0, 0};
  int dim;
  if (ps) {
    if (tide_opt_has(&o, "u") || tide_opt_has(&o, "phi")) tide_lua_error(L, "%s: give particles or u and phi, not both", fn);
    tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
    if (g->dim != ps->dim) tide_lua_error(L, "%s: grid is %dD but the particles are %dD", fn, g->dim, ps->dim);
    dim = g->dim;
    double pc = tide_opt_reqnum(&o, "per_cell", 0, HUGE_VAL);
    if (!(pc > 0)) tide_lua_error(L, "%s: per_cell must be positive", fn);
    if (tide_opt_has(&o, "gravity") && tide_opt_vec(&o, "gravity", dim, dim, gr) != dim)
      tide_lua_error(L, "%s: gravity must have %d components", fn, dim);
    tide_lua_check(L, tide_liquid_stats_particles(ps, pow(g->dx, dim) / pc, rho, gr, &s), fn);
  } else {
    if (tide_opt_has(&o, "grid") || tide_opt_has(&o, "per_cell")) tide_lua_error(L, "%s: grid and per_cell are for particles", fn);
    tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T);
    tide_array *phi = tide_opt_reqarray(&o, "phi");
    tide_lua_check(L, tide_grid_check_cells(&u->grid, phi, TIDE_F64, "phi"), fn);
    dim = u->grid.dim;
    if (tide_opt_has(&o, "gravity") && tide_opt_vec(&o, "gravity", dim, dim, gr) != dim)
      tide_lua_error(L, "%s: gravity must have %d components", fn, dim);
    tide_lua_check(L, tide_liquid_stats_grid(u, TIDE_F64P(phi), rho, gr, &s), fn);
  }
  lua_createtable(L, 0, 4);
  lua_pushnumber(L, s.volume);
  lua_setfield(L, -2, "volume");
  lua_pushnumber(L, s.kinetic);
  lua_setfield(L, -2, "kinetic");
  lua_pushnumber(L, s.potential);
  lua_setfield(L, -2, "potential");
  lua_pushnumber(L, s.max_speed);
  lua_setfield(L, -2, "max_speed");
  return 1;
}

static const luaL_Reg funcs[] = {{"front", l_front}, {"elevation", l_elevation}, {"measure", l_measure}, {NULL, NULL}};

void tide_lua_liquid_probe_open(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
