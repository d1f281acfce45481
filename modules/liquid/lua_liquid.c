/*
 * lua_liquid.c -- tide.liquid: particle sets (tide.Particles), seeding,
 * advection, PIC/FLIP/APIC transfers, cell labels and the pressure
 * projection.  Argument checks and marshalling only (numerics in
 * particles.c, transfer.c, project.c).  See docs/liquids.md.
 */
#include "liquid/particles.h"
#include "liquid/project.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int luaopen_tide_array(lua_State *L);
int luaopen_tide_grid(lua_State *L);
void tide_lua_liquid_physics_open(lua_State *L); /* lua_liquid_physics.c */

static tide_particles *checkps(lua_State *L, int idx) {
  return tide_lua_checkobj(L, idx, TIDE_PARTICLES_T);
}

static void pushps(lua_State *L, tide_particles *ps) {
  tide_lua_pushobj(L, TIDE_PARTICLES_T, ps);
  tide_lua_gcaccount(L);
}

static const char *const particles_keys[] = {"dim", "capacity", "apic", NULL};

/* tide.liquid.particles{ dim = 2|3 [, capacity = 0] [, apic = false] } */
static int l_particles(lua_State *L) {
  const char *fn = "tide.liquid.particles";
  tide_opts o = tide_lua_opts(L, 1, fn, particles_keys);
  if (!tide_opt_has(&o, "dim")) tide_lua_error(L, "%s: missing option 'dim'", fn);
  int dim = (int)tide_opt_int(&o, "dim", 2, 2, 3);
  int64_t cap = tide_opt_int(&o, "capacity", 0, 0, (lua_Integer)1 << 36);
  int apic = tide_opt_bool(&o, "apic", 0);
  tide_particles *ps;
  tide_lua_check(L, tide_particles_new(dim, cap, apic, &ps), fn);
  pushps(L, ps);
  return 1;
}

static const char *const seed_keys[] = {"particles", "grid", "box",    "sphere",   "phi",   "per_cell",
                                        "jitter",    "stream", "velocity", "labels", "apic", NULL};

/* shape from the options: box = {min = {..}, max = {..}}, sphere = {center = {..}, radius = r}, phi = array */
static void shape_from_opts(tide_opts *o, const tide_grid *g, tide_shape *s) {
  lua_State *L = o->L;
  const char *fn = o->fname;
  int nshape = tide_opt_has(o, "box") + tide_opt_has(o, "sphere") + tide_opt_has(o, "phi");
  if (nshape != 1) tide_lua_error(L, "%s: give exactly one of 'box', 'sphere', 'phi'", fn);
  memset(s, 0, sizeof *s);
  int dim = g->dim;
  if (tide_opt_has(o, "box")) {
    static const char *const keys[] = {"min", "max", NULL};
    lua_getfield(L, o->idx, "box");
    tide_opts b = tide_lua_opts(L, -1, "tide.liquid.seed (box)", keys);
    if (!tide_opt_has(&b, "min") || !tide_opt_has(&b, "max")) tide_lua_error(L, "%s: box needs 'min' and 'max'", fn);
    tide_opt_vec(&b, "min", dim, dim, s->lo);
    tide_opt_vec(&b, "max", dim, dim, s->hi);
    lua_pop(L, 1);
    s->kind = TIDE_SHAPE_BOX;
  } else if (tide_opt_has(o, "sphere")) {
    static const char *const keys[] = {"center", "radius", NULL};
    lua_getfield(L, o->idx, "sphere");
    tide_opts b = tide_lua_opts(L, -1, "tide.liquid.seed (sphere)", keys);
    if (!tide_opt_has(&b, "center")) tide_lua_error(L, "%s: sphere needs 'center'", fn);
    tide_opt_vec(&b, "center", dim, dim, s->center);
    s->radius = tide_opt_reqnum(&b, "radius", 0, 1e300);
    lua_pop(L, 1);
    s->kind = TIDE_SHAPE_SPHERE;
  } else {
    s->phi = tide_opt_array(o, "phi");
    tide_lua_check(L, tide_grid_check_cells(g, s->phi, TIDE_F64, "phi"), fn);
    s->kind = TIDE_SHAPE_PHI;
  }
}

/* seed into ps (created when NULL); leaves ps and the count on the stack */
static int do_seed(lua_State *L, int optidx, tide_particles *ps, int psidx, const char *fn) {
  tide_opts o = tide_lua_opts(L, optidx, fn, seed_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  int dim = g->dim;
  tide_shape shape;
  shape_from_opts(&o, g, &shape);
  int per_cell = (int)tide_opt_int(&o, "per_cell", dim == 2 ? 4 : 8, 1, 4096);
  double jitter = tide_opt_num(&o, "jitter", 1, 0, 1);
  double vel[3] = {0, 0, 0};
  tide_opt_vec(&o, "velocity", dim, dim, vel);
  tide_array *labels = tide_opt_array(&o, "labels");
  if (labels) tide_lua_check(L, tide_grid_check_cells(g, labels, TIDE_U8, "labels"), fn);
  if (!ps) {
    int apic = tide_opt_bool(&o, "apic", 0);
    tide_lua_check(L, tide_particles_new(dim, 0, apic, &ps), fn);
    pushps(L, ps);
    psidx = lua_gettop(L);
  } else if (tide_opt_has(&o, "apic")) {
    tide_lua_error(L, "%s: 'apic' only applies when new particles are created", fn);
  }
  if (ps->dim != dim) tide_lua_error(L, "%s: grid is %dD but the particles are %dD", fn, dim, ps->dim);
  lua_Integer stream = tide_opt_int(&o, "stream", (lua_Integer)ps->n + 1, 0, LUA_MAXINTEGER);
  int64_t added = 0;
  tide_lua_check(L, tide_particles_seed(ps, g, &shape, per_cell, jitter, (uint64_t)stream, vel, labels, &added), fn);
  tide_lua_gcaccount(L);
  lua_pushvalue(L, psidx);
  lua_pushinteger(L, added);
  return 2;
}

/* tide.liquid.seed{ grid = g, box = {min =, max =} | sphere = {center =, radius =} | phi = a,
 *   [particles = ps] [, per_cell = 2^dim] [, jitter = 1] [, stream] [, velocity = {..}]
 *   [, labels = u8 cells] [, apic = false] } -> particles, number added */
static int l_seed(lua_State *L) {
  const char *fn = "tide.liquid.seed";
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "particles");
  tide_particles *ps = NULL;
  int psidx = 0;
  if (!lua_isnil(L, -1)) {
    ps = tide_lua_testobj(L, -1, TIDE_PARTICLES_T);
    if (!ps) tide_lua_error(L, "%s: option 'particles' must be a %s", fn, TIDE_PARTICLES_T);
    psidx = lua_gettop(L);
  }
  return do_seed(L, 1, ps, psidx, fn);
}

/* ps:seed{ grid = g, box = .. } (same options as tide.liquid.seed) */
static int p_seed(lua_State *L) {
  tide_particles *ps = checkps(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_getfield(L, 2, "particles");
  if (!lua_isnil(L, -1)) tide_lua_error(L, "Particles:seed: option 'particles' is the receiver itself");
  lua_pop(L, 1);
  return do_seed(L, 2, ps, 1, "Particles:seed");
}

static const char *const advect_keys[] = {"order", "labels", "margin", NULL};

/* ps:advect(vel, dt [, {order = 2, labels = solid u8 cells, margin = 1e-3}]) */
static int p_advect(lua_State *L) {
  const char *fn = "Particles:advect";
  tide_particles *ps = checkps(L, 1);
  tide_mac *vel = tide_lua_checkobj(L, 2, TIDE_MAC_T);
  double dt = tide_lua_checkfinite(L, 3, fn, "dt");
  tide_opts o = tide_lua_optopts(L, 4, fn, advect_keys);
  int order = (int)tide_opt_int(&o, "order", 2, 1, 3);
  tide_array *labels = tide_opt_array(&o, "labels");
  double margin = tide_opt_num(&o, "margin", 1e-3, 0, 0.49);
  tide_lua_check(L, tide_particles_advect(ps, vel, dt, order, labels, margin), fn);
  lua_settop(L, 1);
  return 1;
}

static int p_count(lua_State *L) {
  lua_pushinteger(L, checkps(L, 1)->n);
  return 1;
}

static int p_resize(lua_State *L) {
  tide_particles *ps = checkps(L, 1);
  int64_t n = tide_lua_checkrange(L, 2, "Particles:resize", "n", 0, (lua_Integer)1 << 36);
  tide_lua_check(L, tide_particles_resize(ps, n), "Particles:resize");
  tide_lua_gcaccount(L);
  lua_settop(L, 1);
  return 1;
}

static int p_reserve(lua_State *L) {
  tide_particles *ps = checkps(L, 1);
  int64_t n = tide_lua_checkrange(L, 2, "Particles:reserve", "capacity", 0, (lua_Integer)1 << 36);
  tide_lua_check(L, tide_particles_reserve(ps, n), "Particles:reserve");
  tide_lua_gcaccount(L);
  lua_settop(L, 1);
  return 1;
}

static int p_free(lua_State *L) {
  tide_particles_free(tide_lua_takeobj(L, 1, TIDE_PARTICLES_T));
  return 0;
}

static int p_tostring(lua_State *L) {
  tide_particles *ps = tide_lua_testobj(L, 1, TIDE_PARTICLES_T);
  if (!ps) {
    lua_pushstring(L, "tide.Particles (freed)");
    return 1;
  }
  lua_pushfstring(L, "tide.Particles %dD, %I particles%s", ps->dim, (lua_Integer)ps->n,
                  ps->apic ? " (APIC)" : "");
  return 1;
}

static int p_len(lua_State *L) { return p_count(L); }

static int p_index(lua_State *L) {
  tide_particles *ps = checkps(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "x")) {
    tide_lua_pusharray(L, tide_array_retain(ps->x));
  } else if (!strcmp(k, "v")) {
    tide_lua_pusharray(L, tide_array_retain(ps->v));
  } else if (!strcmp(k, "c")) {
    if (ps->c)
      tide_lua_pusharray(L, tide_array_retain(ps->c));
    else
      lua_pushnil(L);
  } else if (!strcmp(k, "dim")) {
    lua_pushinteger(L, ps->dim);
  } else if (!strcmp(k, "apic")) {
    lua_pushboolean(L, ps->apic);
  } else if (!strcmp(k, "capacity")) {
    lua_pushinteger(L, ps->cap);
  } else {
    luaL_getmetatable(L, TIDE_PARTICLES_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg ps_methods[] = {{"seed", p_seed},       {"advect", p_advect},   {"count", p_count},
                                      {"resize", p_resize},   {"reserve", p_reserve},
                                      {"free", p_free},       {NULL, NULL}};

static const luaL_Reg ps_meta[] = {{"__gc", p_free},   {"__close", p_free}, {"__tostring", p_tostring},
                                   {"__len", p_len},   {"__index", p_index}, {NULL, NULL}};

/* ------------------------------------------------------------ transfers */

static const char *const SCHEMES[] = {"pic", "flip", "apic", NULL};
static const char *const p2g_keys[] = {"scheme", "weights", NULL};

/* tide.liquid.p2g(ps, mac [, {scheme = "flip", weights = f64 or u8 Mac}]) -> mac */
static int l_p2g(lua_State *L) {
  const char *fn = "tide.liquid.p2g";
  tide_particles *ps = checkps(L, 1);
  tide_mac *u = tide_lua_checkobj(L, 2, TIDE_MAC_T);
  tide_opts o = tide_lua_optopts(L, 3, fn, p2g_keys);
  int scheme = tide_opt_choice(&o, "scheme", "flip", SCHEMES);
  tide_mac *w = tide_opt_obj(&o, "weights", TIDE_MAC_T);
  tide_lua_check(L, tide_liquid_p2g(ps, u, scheme == TIDE_TRANSFER_APIC, w), fn);
  lua_settop(L, 2);
  return 1;
}

static const char *const g2p_keys[] = {"scheme", "old", "flip", NULL};

/* tide.liquid.g2p(mac, ps [, {scheme = "flip", old = mac_before, flip = 0.97}]) -> ps */
static int l_g2p(lua_State *L) {
  const char *fn = "tide.liquid.g2p";
  tide_mac *u = tide_lua_checkobj(L, 1, TIDE_MAC_T);
  tide_particles *ps = checkps(L, 2);
  tide_opts o = tide_lua_optopts(L, 3, fn, g2p_keys);
  int scheme = tide_opt_choice(&o, "scheme", "flip", SCHEMES);
  tide_mac *old = tide_opt_obj(&o, "old", TIDE_MAC_T);
  double flip = tide_opt_num(&o, "flip", 0.97, 0, 1);
  if (scheme == TIDE_TRANSFER_FLIP && !old) tide_lua_error(L, "%s: scheme 'flip' needs option 'old' (the grid velocity before the update)", fn);
  tide_lua_check(L, tide_liquid_g2p(ps, u, old, (tide_transfer)scheme, flip), fn);
  lua_settop(L, 2);
  return 1;
}

static const char *const label_keys[] = {"solid", "out", "counts", NULL};

/* tide.liquid.label(ps, g [, {solid = u8 cells, out = u8 cells, counts = i32 cells}]) -> labels */
static int l_label(lua_State *L) {
  const char *fn = "tide.liquid.label";
  tide_particles *ps = checkps(L, 1);
  tide_grid *g = tide_lua_checkobj(L, 2, TIDE_GRID_T);
  tide_opts o = tide_lua_optopts(L, 3, fn, label_keys);
  tide_array *solid = tide_opt_array(&o, "solid");
  tide_array *out = tide_opt_array(&o, "out");
  tide_array *counts = tide_opt_array(&o, "counts");
  if (out) {
    lua_getfield(L, 3, "out");
  } else {
    out = tide_grid_cell_array(g, TIDE_U8);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
  }
  tide_lua_check(L, tide_liquid_label(ps, g, solid, out, counts), fn);
  return 1;
}

static const luaL_Reg funcs[] = {{"particles", l_particles}, {"seed", l_seed}, {"p2g", l_p2g},
                                 {"g2p", l_g2p},             {"label", l_label}, {NULL, NULL}};

int luaopen_tide_liquid(lua_State *L) {
  luaL_requiref(L, "tide.array", luaopen_tide_array, 0);
  luaL_requiref(L, "tide.grid", luaopen_tide_grid, 0);
  lua_pop(L, 2);
  tide_lua_newtype(L, TIDE_PARTICLES_T, ps_methods, ps_meta);
  luaL_newlib(L, funcs);
  tide_lua_liquid_physics_open(L);
  lua_pushinteger(L, TIDE_CELL_AIR);
  lua_setfield(L, -2, "AIR");
  lua_pushinteger(L, TIDE_CELL_LIQUID);
  lua_setfield(L, -2, "LIQUID");
  lua_pushinteger(L, TIDE_CELL_SOLID);
  lua_setfield(L, -2, "SOLID");
  return 1;
}
