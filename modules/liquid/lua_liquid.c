/*
 * lua_liquid.c -- tide.liquid: particle sets (tide.Particles), seeding,
 * advection, PIC/FLIP/APIC transfers, cell labels and the pressure
 * projection.  Argument checks and marshalling only (numerics in
 * particles.c, transfer.c, project.c).  See docs/liquids.md.
 */
#include "liquid/lua_liquid.h"
#include "liquid/open.h"
#include "liquid/particles.h"
#include "liquid/project.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int luaopen_tide_array(lua_State *L);
int luaopen_tide_grid(lua_State *L);

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

/* shape from the options: box = {min = {..}, max = {..}}, sphere = {center = {..}, radius = r}
 * (a new tide_shape, anchored on the stack by a sentinel userdata), and/or phi = array */
typedef struct {
  tide_shape *s;
} shape_box;

static int shape_box_gc(lua_State *L) {
  shape_box *b = lua_touserdata(L, 1);
  tide_shape_release(b->s);
  b->s = NULL;
  return 0;
}

static tide_shape *shape_from_opts(tide_opts *o, const tide_grid *g, tide_array **phi) {
  lua_State *L = o->L;
  const char *fn = o->fname;
  int nshape = tide_opt_has(o, "box") + tide_opt_has(o, "sphere");
  *phi = tide_opt_array(o, "phi");
  if (nshape > 1 || (nshape == 0 && !*phi))
    tide_lua_error(L, "%s: give one of 'box' or 'sphere', and/or 'phi'", fn);
  if (*phi) tide_lua_check(L, tide_grid_check_cells(g, *phi, TIDE_F64, "phi"), fn);
  if (!nshape) return NULL;
  /* a userdata with __gc owns the shape, so an error below cannot leak it */
  shape_box *sb = lua_newuserdatauv(L, sizeof *sb, 0);
  sb->s = NULL;
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, shape_box_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  int dim = g->dim;
  if (tide_opt_has(o, "box")) {
    static const char *const keys[] = {"min", "max", NULL};
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    lua_getfield(L, o->idx, "box");
    tide_opts b = tide_lua_opts(L, -1, "tide.liquid.seed (box)", keys);
    if (!tide_opt_has(&b, "min") || !tide_opt_has(&b, "max")) tide_lua_error(L, "%s: box needs 'min' and 'max'", fn);
    tide_opt_vec(&b, "min", dim, dim, lo);
    tide_opt_vec(&b, "max", dim, dim, hi);
    lua_pop(L, 1);
    tide_lua_check(L, tide_shape_box(dim, lo, hi, &sb->s), fn);
  } else {
    static const char *const keys[] = {"center", "radius", NULL};
    double c[3] = {0, 0, 0};
    lua_getfield(L, o->idx, "sphere");
    tide_opts b = tide_lua_opts(L, -1, "tide.liquid.seed (sphere)", keys);
    if (!tide_opt_has(&b, "center")) tide_lua_error(L, "%s: sphere needs 'center'", fn);
    tide_opt_vec(&b, "center", dim, dim, c);
    double r = tide_opt_reqnum(&b, "radius", 0, 1e300);
    lua_pop(L, 1);
    tide_lua_check(L, tide_shape_sphere(dim, c, r, &sb->s), fn);
  }
  return sb->s;
}

static void box_text(int dim, const double lo[3], const double hi[3], char *buf, size_t n) {
  if (dim == 3)
    snprintf(buf, n, "(%g, %g, %g) .. (%g, %g, %g)", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
  else
    snprintf(buf, n, "(%g, %g) .. (%g, %g)", lo[0], lo[1], hi[0], hi[1]);
}

int tide_lua_liquid_nothing(lua_State *L, const char *fn, const tide_grid *g, const tide_shape *s,
                            const char *what, const char *nothing, const char *hint) {
  double lo[3], hi[3], glo[3], ghi[3];
  int dim = g->dim, outside = 0;
  for (int d = 0; d < dim; d++) {
    glo[d] = g->origin[d];
    ghi[d] = g->origin[d] + g->n[d] * g->dx;
  }
  if (s && tide_shape_bounds(s, lo, hi))
    for (int d = 0; d < dim; d++) outside |= hi[d] <= glo[d] || lo[d] >= ghi[d];
  if (outside) {
    char a[160], b[160];
    box_text(dim, lo, hi, a, sizeof a);
    box_text(dim, glo, ghi, b, sizeof b);
    return tide_lua_error(L, "%s: %s %s: it lies outside the grid (its bounds %s, the grid spans %s)", fn,
                          what, nothing, a, b);
  }
  return tide_lua_error(L, "%s: %s %s (%s)", fn, what, nothing, hint);
}

/* seed into ps (created when NULL); leaves ps and the count on the stack */
static int do_seed(lua_State *L, int optidx, tide_particles *ps, int psidx, const char *fn) {
  tide_opts o = tide_lua_opts(L, optidx, fn, seed_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  int dim = g->dim;
  tide_array *phi;
  tide_shape *shape = shape_from_opts(&o, g, &phi);
  int per_cell = (int)tide_opt_int(&o, "per_cell", dim == 2 ? 4 : 8, 1, 4096);
  double jitter = tide_opt_num(&o, "jitter", 0.5, 0, 1);
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
  tide_lua_check(L, tide_particles_seed(ps, g, shape, phi, per_cell, jitter, (uint64_t)stream, vel, labels, &added), fn);
  if (added == 0) /* a region that seeds nothing is a mistake, not a no-op */
    tide_lua_liquid_nothing(L, fn, g, shape, shape ? (tide_opt_has(&o, "box") ? "the box" : "the sphere") : "phi < 0",
                            "seeds no particle",
                            phi ? "no seed point where phi < 0 inside the shape; check phi's sign and the labels"
                                : "no seed point inside it: it is thinner than the particle spacing or its cells "
                                  "are solid in 'labels'");
  tide_lua_gcaccount(L);
  lua_pushvalue(L, psidx);
  lua_pushinteger(L, added);
  return 2;
}

/* tide.liquid.seed{ grid = g, box = {min =, max =} | sphere = {center =, radius =} | phi = a,
 *   [particles = ps] [, per_cell = 2^dim] [, jitter = 0.5] [, stream] [, velocity = {..}]
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

static const char *const advect_keys[] = {"order", "labels", "solid_phi", "margin", NULL};

/* ps:advect(vel, dt [, {order = 2, labels = solid u8 cells, solid_phi = f64 cells, margin = 1e-3}]) */
static int p_advect(lua_State *L) {
  const char *fn = "Particles:advect";
  tide_particles *ps = checkps(L, 1);
  tide_mac *vel = tide_lua_checkobj(L, 2, TIDE_MAC_T);
  double dt = tide_lua_checkfinite(L, 3, fn, "dt");
  tide_opts o = tide_lua_optopts(L, 4, fn, advect_keys);
  int order = (int)tide_opt_int(&o, "order", 2, 1, 3);
  tide_array *labels = tide_opt_array(&o, "labels");
  tide_array *sphi = tide_opt_array(&o, "solid_phi");
  double margin = tide_opt_num(&o, "margin", 1e-3, 0, 0.49);
  tide_lua_check(L, tide_particles_advect_solid(ps, vel, dt, order, labels, sphi, margin), fn);
  lua_settop(L, 1);
  return 1;
}

static int p_count(lua_State *L) {
  lua_pushinteger(L, checkps(L, 1)->n);
  return 1;
}

/* ps:max_speed() -> max_p max_d |v_p,d| [m/s] */
static int p_max_speed(lua_State *L) {
  double s = 0;
  tide_lua_check(L, tide_particles_max_speed(checkps(L, 1), &s), "Particles:max_speed");
  lua_pushnumber(L, s);
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


static const char *const ls_keys[] = {"method", "radius", "kernel", "reach", "out", NULL};
static const char *const LS_METHODS[] = {"zhu_bridson", "union", NULL};

/* ps:level_set(g [, {method = "zhu_bridson"|"union", radius = dx (r), kernel = 2 r (R),
 *   reach = 0 (default 3 dx + R), out = f64 cells}]) -> phi (cells, < 0 inside) */
static int p_level_set(lua_State *L) {
  const char *fn = "Particles:level_set";
  tide_particles *ps = checkps(L, 1);
  tide_grid *g = tide_lua_checkobj(L, 2, TIDE_GRID_T);
  tide_opts o = tide_lua_optopts(L, 3, fn, ls_keys);
  if (g->dim != ps->dim) tide_lua_error(L, "%s: grid is %dD but the particles are %dD", fn, g->dim, ps->dim);
  int method = tide_opt_choice(&o, "method", "zhu_bridson", LS_METHODS);
  double r = tide_opt_num(&o, "radius", g->dx, 1e-300, 1e300);
  double R = tide_opt_num(&o, "kernel", 2 * r, 1e-300, 1e300);
  double reach = tide_opt_num(&o, "reach", 0, 0, 1e300);
  tide_array *out = tide_lua_liquid_out_cells(&o, g, TIDE_F64, "out", NULL);
  const double *x = TIDE_F64P(ps->x);
  /* the set's own binning when it is in cell order (checked by the gather) */
  const int64_t *start = ps->bin_valid && ps->sorted && ps->bin_n == ps->n && ps->ws_cells == tide_grid_ncells(g)
                             ? ps->cell_start : NULL;
  tide_lua_check(L, tide_sdf_particles_binned(g, ps->n, x, start, r, method == 0 ? R : 0, reach, TIDE_F64P(out)), fn);
  return 1;
}


/* ps:density(g [, out]): particles per cell by the tent kernel at cell centres */
static int p_density(lua_State *L) {
  const char *fn = "Particles:density";
  tide_particles *ps = checkps(L, 1);
  tide_grid *g = tide_lua_checkobj(L, 2, TIDE_GRID_T);
  if (g->dim != ps->dim) tide_lua_error(L, "%s: grid is %dD but the particles are %dD", fn, g->dim, ps->dim);
  tide_array *out;
  if (lua_isnoneornil(L, 3)) {
    out = tide_grid_cell_array(g, TIDE_F64);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
  } else {
    out = tide_lua_checkarray(L, 3);
    lua_pushvalue(L, 3);
  }
  tide_lua_check(L, tide_liquid_density(ps, g, out), fn);
  return 1;
}


static const char *const reseed_keys[] = {"min", "max", "stream", NULL};

/* ps:reseed(vel, labels, {min = 2^dim, max = 2^(dim+1) [, stream]}) -> added, removed */
static int p_reseed(lua_State *L) {
  const char *fn = "Particles:reseed";
  tide_particles *ps = checkps(L, 1);
  tide_mac *vel = tide_lua_checkobj(L, 2, TIDE_MAC_T);
  tide_array *labels = tide_lua_checkarray(L, 3);
  tide_opts o = tide_lua_optopts(L, 4, fn, reseed_keys);
  int lo = (int)tide_opt_int(&o, "min", 1 << ps->dim, 0, 1 << 20);
  int hi = (int)tide_opt_int(&o, "max", 2 << ps->dim, 1, 1 << 20);
  lua_Integer stream = tide_opt_int(&o, "stream", (lua_Integer)ps->n + 7919, 0, LUA_MAXINTEGER);
  int64_t added = 0, removed = 0;
  tide_lua_check(L, tide_particles_reseed(ps, vel, labels, lo, hi, (uint64_t)stream, &added, &removed), fn);
  tide_lua_gcaccount(L);
  lua_pushinteger(L, added);
  lua_pushinteger(L, removed);
  return 2;
}


/* ps:sort(g): reorder the particles by cell of g (stable) */
static int p_sort(lua_State *L) {
  tide_particles *ps = checkps(L, 1);
  tide_grid *g = tide_lua_checkobj(L, 2, TIDE_GRID_T);
  if (g->dim != ps->dim) tide_lua_error(L, "Particles:sort: grid is %dD but the particles are %dD", g->dim, ps->dim);
  tide_lua_check(L, tide_particles_sort(ps, g), "Particles:sort");
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
                                      {"resize", p_resize},   {"reserve", p_reserve}, {"level_set", p_level_set},
                                      {"density", p_density}, {"reseed", p_reseed}, {"sort", p_sort},
                                      {"max_speed", p_max_speed}, {"free", p_free},       {NULL, NULL}};

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

static const char *const g2p_keys[] = {"scheme", "old", "flip", "advect", "order", "labels", "solid_phi", "margin", NULL};

/* tide.liquid.g2p(u, ps [, {scheme = "flip", old = u_old, flip = 0.97, advect = dt, order = 2,
 *   labels, solid_phi, margin}]) -> ps; with advect = dt the particles then move as
 *   ps:advect(u, dt, {order, labels, solid_phi, margin}) in the same pass */
static int l_g2p(lua_State *L) {
  const char *fn = "tide.liquid.g2p";
  tide_mac *u = tide_lua_checkobj(L, 1, TIDE_MAC_T);
  tide_particles *ps = checkps(L, 2);
  tide_opts o = tide_lua_optopts(L, 3, fn, g2p_keys);
  int scheme = tide_opt_choice(&o, "scheme", "flip", SCHEMES);
  tide_mac *old = tide_opt_obj(&o, "old", TIDE_MAC_T);
  double flip = tide_opt_num(&o, "flip", 0.97, 0, 1);
  if (scheme == TIDE_TRANSFER_FLIP && !old) tide_lua_error(L, "%s: scheme 'flip' needs option 'old' (the grid velocity before the update)", fn);
  int advect = tide_opt_has(&o, "advect");
  if (!advect)
    for (int k = 4; g2p_keys[k]; k++)
      if (tide_opt_has(&o, g2p_keys[k])) tide_lua_error(L, "%s: option '%s' needs option 'advect' (dt)", fn, g2p_keys[k]);
  if (advect) {
    double dt = tide_opt_num(&o, "advect", 0, -1e300, 1e300);
    int order = (int)tide_opt_int(&o, "order", 2, 1, 3);
    tide_array *labels = tide_opt_array(&o, "labels");
    tide_array *sphi = tide_opt_array(&o, "solid_phi");
    double margin = tide_opt_num(&o, "margin", 1e-3, 0, 0.49);
    tide_lua_check(L, tide_liquid_g2p_advect(ps, u, old, (tide_transfer)scheme, flip, dt, order, labels, sphi, margin), fn);
  } else {
    tide_lua_check(L, tide_liquid_g2p(ps, u, old, (tide_transfer)scheme, flip), fn);
  }
  lua_settop(L, 2);
  return 1;
}

static const char *const label_keys[] = {"solid", "solid_phi", "out", "counts", "open", NULL};

/* tide.liquid.label(ps, g [, {solid = u8 cells, solid_phi = f64 cells (cut cells), out = u8 cells,
 *   counts = i32 cells, open = sides (their outermost cell layer is air)}]) -> labels */
static int l_label(lua_State *L) {
  const char *fn = "tide.liquid.label";
  tide_particles *ps = checkps(L, 1);
  tide_grid *g = tide_lua_checkobj(L, 2, TIDE_GRID_T);
  tide_opts o = tide_lua_optopts(L, 3, fn, label_keys);
  tide_array *solid = tide_opt_array(&o, "solid");
  tide_array *counts = tide_opt_array(&o, "counts");
  tide_array *sphi = tide_opt_array(&o, "solid_phi");
  unsigned open = tide_opt_sides(&o, "open", g->dim);
  tide_array *out = tide_lua_liquid_out_cells(&o, g, TIDE_U8, "labels", NULL);
  if (sphi)
    tide_lua_check(L, tide_liquid_label_cut(ps, g, solid, sphi, out, counts), fn);
  else
    tide_lua_check(L, tide_liquid_label(ps, g, solid, out, counts), fn);
  if (open) tide_lua_check(L, tide_liquid_open_cells(g, open, out), fn);
  return 1;
}


static const char *const project_keys[] = {"dt", "rho", "tol", "maxit", "theta_min", "phi", "fractions",
                                           "valid", "pressure", "target", "method", "projector",
                                           "solid_velocity", "fixed", NULL};
static const char *const METHODS[] = {"pcg", "mgpcg", "mic0", NULL};
#define TIDE_PROJECTOR_T "tide.Projector"

/* tide.liquid.project(mac, labels, { dt = , rho = 1000, tol = 1e-8, maxit = 0, theta_min = 0.01,
 *   method = "pcg"|"mgpcg"|"mic0", projector = tide.Projector, phi = level set cells,
 *   fractions = open face fractions (f64 Mac), valid = u8 Mac out, pressure = f64 cells out,
 *   target = divergence target f64 cells [1/s], solid_velocity = f64 Mac [m/s],
 *   fixed = u8 Mac of prescribed-velocity faces })
 * -> { iterations, residual, unknowns, div_before, div_after } */
static int l_project(lua_State *L) {
  const char *fn = "tide.liquid.project";
  tide_mac *u = tide_lua_checkobj(L, 1, TIDE_MAC_T);
  tide_array *labels = tide_lua_checkarray(L, 2);
  tide_opts o = tide_lua_opts(L, 3, fn, project_keys);
  tide_project_opts po;
  po.dt = tide_opt_reqnum(&o, "dt", 0, 1e300);
  if (!(po.dt > 0)) tide_lua_error(L, "%s: option 'dt' must be positive", fn);
  po.rho = tide_opt_num(&o, "rho", 1000, 1e-300, 1e300);
  po.tol = tide_opt_num(&o, "tol", 1e-8, 1e-300, 0.5);
  po.maxit = (int)tide_opt_int(&o, "maxit", 0, 0, 1 << 30);
  po.theta_min = tide_opt_num(&o, "theta_min", 0.01, 1e-6, 1);
  po.method = tide_opt_choice(&o, "method", "pcg", METHODS);
  po.phi = tide_opt_array(&o, "phi");
  po.fractions = tide_opt_obj(&o, "fractions", TIDE_MAC_T);
  po.target = tide_opt_array(&o, "target");
  po.solid_velocity = tide_opt_obj(&o, "solid_velocity", TIDE_MAC_T);
  po.fixed = tide_opt_obj(&o, "fixed", TIDE_MAC_T);
  tide_projector *work = tide_opt_obj(&o, "projector", TIDE_PROJECTOR_T);
  tide_mac *valid = tide_opt_obj(&o, "valid", TIDE_MAC_T);
  tide_array *pressure = tide_opt_array(&o, "pressure");
  tide_project_stats ps;
  tide_lua_check(L, tide_liquid_project(u, labels, &po, work, valid, pressure, &ps), fn);
  tide_lua_push_project_stats(L, &ps);
  return 1;
}

static const char *const div_keys[] = {"u", "labels", "fractions", "solid_velocity", "out", NULL};

/* tide.liquid.divergence{ u = Mac, labels = u8 cells [, fractions = f64 Mac]
 *   [, solid_velocity = f64 Mac] [, out = f64 cells] } -> area-weighted divergence [1/s] */
static int l_divergence(lua_State *L) {
  const char *fn = "tide.liquid.divergence";
  tide_opts o = tide_lua_opts(L, 1, fn, div_keys);
  tide_mac *u = tide_opt_reqobj(&o, "u", TIDE_MAC_T);
  tide_array *labels = tide_opt_reqarray(&o, "labels");
  tide_mac *fr = tide_opt_obj(&o, "fractions", TIDE_MAC_T);
  tide_mac *us = tide_opt_obj(&o, "solid_velocity", TIDE_MAC_T);
  tide_array *out = tide_lua_liquid_out_cells(&o, &u->grid, TIDE_F64, "out", NULL);
  tide_lua_check(L, tide_liquid_divergence(u, labels, fr, us, out), fn);
  return 1;
}

tide_array *tide_lua_liquid_out_cells(tide_opts *o, const tide_grid *g, tide_dtype t, const char *what,
                                      const tide_array *avoid) {
  lua_State *L = o->L;
  tide_array *out = tide_opt_array(o, "out");
  if (out) {
    tide_lua_check(L, tide_grid_check_cells(g, out, t, what), o->fname);
    if (avoid && out->buf == avoid->buf) tide_lua_error(L, "%s: out must not share memory with the input", o->fname);
    lua_getfield(L, o->idx, "out");
    return out;
  }
  out = tide_grid_cell_array(g, t);
  if (!out) tide_lua_check(L, TIDE_ENOMEM, o->fname);
  tide_lua_pusharray(L, out);
  return out;
}

void tide_lua_push_project_stats(lua_State *L, const tide_project_stats *st) {
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, st->iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushnumber(L, st->residual);
  lua_setfield(L, -2, "residual");
  lua_pushinteger(L, (lua_Integer)st->unknowns);
  lua_setfield(L, -2, "unknowns");
  lua_pushnumber(L, st->div_before);
  lua_setfield(L, -2, "div_before");
  lua_pushnumber(L, st->div_after);
  lua_setfield(L, -2, "div_after");
}


static const char *const dt_keys[] = {"rho", "labels", "fractions", "per_cell", "band", "rate", "mean", "cut", "solid_phi", "out", NULL};

/* tide.liquid.density_target{ rho = f64 cells (particles per cell), labels = u8 cells,
 *   per_cell = n, rate = 1/s [, band = 0.3] [, mean = false] [, fractions = f64 Mac]
 *   [, cut = false | true | "off" | "open" | "kernel"] [, solid_phi = f64 cells] [, out = f64 cells] }
 * -> divergence target [1/s], mean interior density (per_cell units) */
static int l_density_target(lua_State *L) {
  const char *fn = "tide.liquid.density_target";
  tide_opts o = tide_lua_opts(L, 1, fn, dt_keys);
  tide_array *rho = tide_opt_reqarray(&o, "rho");
  tide_array *labels = tide_opt_reqarray(&o, "labels");
  double per_cell = tide_opt_reqnum(&o, "per_cell", 1e-300, 1e300);
  double rate = tide_opt_reqnum(&o, "rate", 0, 1e300);
  double band = tide_opt_num(&o, "band", 0.3, 0, 1e300);
  int mean = tide_opt_bool(&o, "mean", 0);
  static const char *const cut_modes[] = {"off", "open", "kernel", NULL}; /* TIDE_DENSITY_CUT_* */
  lua_getfield(L, 1, "cut");
  int cut_bool = lua_type(L, -1) == LUA_TBOOLEAN; /* true = "open" */
  lua_pop(L, 1);
  int cut = cut_bool ? tide_opt_bool(&o, "cut", 0) : tide_opt_choice(&o, "cut", "off", cut_modes);
  tide_mac *fr = tide_opt_obj(&o, "fractions", TIDE_MAC_T);
  tide_array *sphi = tide_opt_array(&o, "solid_phi");
  tide_array *out = tide_opt_array(&o, "out");
  if (out) {
    lua_getfield(L, 1, "out");
  } else {
    out = tide_array_new(TIDE_F64, labels->ndim, labels->shape);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
  }
  double avg;
  tide_lua_check(L, tide_liquid_density_target(rho, labels, fr, per_cell, band, rate, mean, cut, sphi, out, &avg), fn);
  lua_pushnumber(L, avg);
  return 2;
}


/* tide.liquid.projector(g): workspace of repeated projections on grid g
 * (the matrix-free solver's multigrid hierarchy is built once) */
static int l_projector(lua_State *L) {
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_projector *w;
  tide_lua_check(L, tide_projector_new(g, &w), "tide.liquid.projector");
  tide_lua_pushobj(L, TIDE_PROJECTOR_T, w);
  tide_lua_gcaccount(L);
  return 1;
}

static int pj_free(lua_State *L) {
  tide_projector_free(tide_lua_takeobj(L, 1, TIDE_PROJECTOR_T));
  return 0;
}

static int pj_bytes(lua_State *L) {
  lua_pushinteger(L, tide_projector_bytes(tide_lua_checkobj(L, 1, TIDE_PROJECTOR_T)));
  return 1;
}

static int pj_tostring(lua_State *L) {
  tide_projector *w = tide_lua_testobj(L, 1, TIDE_PROJECTOR_T);
  if (!w)
    lua_pushstring(L, "tide.Projector (freed)");
  else
    lua_pushfstring(L, "tide.Projector (%I bytes)", (lua_Integer)tide_projector_bytes(w));
  return 1;
}

static const luaL_Reg pj_methods[] = {{"bytes", pj_bytes}, {"free", pj_free}, {NULL, NULL}};
static const luaL_Reg pj_meta[] = {{"__gc", pj_free}, {"__close", pj_free}, {"__tostring", pj_tostring}, {NULL, NULL}};

static const luaL_Reg funcs[] = {{"particles", l_particles}, {"seed", l_seed}, {"p2g", l_p2g},
                                 {"g2p", l_g2p},             {"label", l_label}, {"project", l_project}, {"projector", l_projector}, {"divergence", l_divergence},
                                 {"density_target", l_density_target},
                                 {NULL, NULL}};

int luaopen_tide_liquid(lua_State *L) {
  luaL_requiref(L, "tide.array", luaopen_tide_array, 0);
  luaL_requiref(L, "tide.grid", luaopen_tide_grid, 0);
  lua_pop(L, 2);
  tide_lua_newtype(L, TIDE_PARTICLES_T, ps_methods, ps_meta);
  tide_lua_newtype(L, TIDE_PROJECTOR_T, pj_methods, pj_meta);
  tide_lua_liquid_ckpt_open(L);
  luaL_newlib(L, funcs);
  tide_lua_liquid_physics_open(L);
  tide_lua_liquid_open_open(L);
  tide_lua_liquid_probe_open(L);
  lua_pushinteger(L, TIDE_CELL_AIR);
  lua_setfield(L, -2, "AIR");
  lua_pushinteger(L, TIDE_CELL_LIQUID);
  lua_setfield(L, -2, "LIQUID");
  lua_pushinteger(L, TIDE_CELL_SOLID);
  lua_setfield(L, -2, "SOLID");
  return 1;
}
