/*
 * lua_liquid_open.c -- open boundaries, emitters and sinks in tide.liquid
 * (numerics in open.c, see open.h and docs/liquids.md):
 *
 *   tide.liquid.region(g, shape [, {solid = u8 cells, out = u8 cells}]) -> mask
 *   tide.liquid.emit(ps, g, {region = mask | shape = Shape, velocity = {..},
 *       per_cell = 2^dim, stream = n, solid = u8 cells}) -> added, removed
 *   tide.liquid.inflow(u, {region = mask | shape = Shape, velocity = {..},
 *       fixed = u8 Mac, solid = u8 cells}) -> u
 *   tide.liquid.remove(ps, g [, {open = sides, region = mask | shape = Shape,
 *       solid = u8 cells}]) -> removed
 *   tide.liquid.open_cells(g, labels, open) -> labels
 *   tide.liquid.open_phi(g, phi, open) -> phi
 *
 * Registered by lua_liquid.c through tide_lua_liquid_open_open.
 */
#include "liquid/lua_liquid.h"
#include "liquid/open.h"
#include "tide_lua.h"


static tide_array *check_cells(lua_State *L, tide_array *a, const tide_grid *g, tide_dtype t,
                               const char *fn, const char *what) {
  tide_lua_check(L, tide_grid_check_cells(g, a, t, what), fn);
  return a;
}

/* 1 when the u8 cell mask m has a nonzero cell */
static int any_cell(const tide_array *m) {
  const uint8_t *a = TIDE_U8P(m);
  for (int64_t q = 0, n = tide_array_size(m); q < n; q++)
    if (a[q]) return 1;
  return 0;
}

/* the region of an options table: `region` (u8 mask) or `shape` (a
 * tide.Shape, made into a mask anchored on the stack), not both; NULL when
 * neither is given and required == 0 */
static const tide_array *opt_region(tide_opts *o, const tide_grid *g, int required) {
  lua_State *L = o->L;
  tide_array *mask = tide_opt_array(o, "region");
  tide_shape *s = tide_opt_obj(o, "shape", TIDE_SHAPE_T);
  if (mask && s) tide_lua_error(L, "%s: give either 'region' or 'shape', not both", o->fname);
  if (!mask && !s) {
    if (required)
      tide_lua_error(L, "%s: missing option 'region' (u8 cells) or 'shape' (a %s)", o->fname,
                     TIDE_SHAPE_T);
    return NULL;
  }
  tide_array *solid = tide_opt_array(o, "solid");
  if (solid) check_cells(L, solid, g, TIDE_U8, o->fname, "solid");
  if (mask) {
    check_cells(L, mask, g, TIDE_U8, o->fname, "region");
    if (!any_cell(mask)) tide_lua_error(L, "%s: option 'region' holds no cell (all zero)", o->fname);
    if (!solid) return mask;
    /* the mask without the solid cells */
    tide_array *m2 = tide_grid_cell_array(g, TIDE_U8);
    if (!m2) tide_lua_check(L, TIDE_ENOMEM, o->fname);
    tide_lua_pusharray(L, m2);
    const uint8_t *a = TIDE_U8P(mask), *b = TIDE_U8P(solid);
    uint8_t *c = TIDE_U8P(m2);
    for (int64_t q = 0, n = tide_grid_ncells(g); q < n; q++)
      c[q] = a[q] && b[q] != TIDE_CELL_SOLID;
    if (!any_cell(m2)) tide_lua_error(L, "%s: option 'region' holds only solid cells", o->fname);
    return m2;
  }
  tide_array *m = tide_grid_cell_array(g, TIDE_U8);
  if (!m) tide_lua_check(L, TIDE_ENOMEM, o->fname);
  tide_lua_pusharray(L, m);
  tide_lua_check(L, tide_liquid_region(g, s, solid, m), o->fname);
  if (!any_cell(m))
    tide_lua_liquid_nothing(L, o->fname, g, s, "the shape", "covers no cell centre of the grid",
                            solid ? "its cells are solid or it is thinner than a cell" : "it is thinner than a cell");
  return m;
}

static const char *const region_keys[] = {"solid", "out", NULL};

/* tide.liquid.region(g, shape [, {solid, out}]) -> u8 mask of the cells whose centre is in shape */
static int l_region(lua_State *L) {
  const char *fn = "tide.liquid.region";
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_shape *s = tide_lua_checkobj(L, 2, TIDE_SHAPE_T);
  tide_opts o = tide_lua_optopts(L, 3, fn, region_keys);
  tide_array *solid = tide_opt_array(&o, "solid");
  tide_array *out = tide_lua_liquid_out_cells(&o, g, TIDE_U8, "out", NULL);
  tide_lua_check(L, tide_liquid_region(g, s, solid, out), fn);
  return 1;
}

static const char *const emit_keys[] = {"region", "shape", "velocity", "per_cell",
                                        "stream", "solid", NULL};

/* tide.liquid.emit(ps, g, {region | shape, velocity, per_cell, stream, solid}) -> added, removed */
static int l_emit(lua_State *L) {
  const char *fn = "tide.liquid.emit";
  tide_particles *ps = tide_lua_checkobj(L, 1, TIDE_PARTICLES_T);
  tide_grid *g = tide_lua_checkobj(L, 2, TIDE_GRID_T);
  tide_opts o = tide_lua_opts(L, 3, fn, emit_keys);
  if (g->dim != ps->dim)
    tide_lua_error(L, "%s: grid is %dD but the particles are %dD", fn, g->dim, ps->dim);
  double vel[3] = {0, 0, 0};
  if (!tide_opt_vec(&o, "velocity", g->dim, g->dim, vel))
    tide_lua_error(L, "%s: missing option 'velocity'", fn);
  int per_cell = (int)tide_opt_int(&o, "per_cell", 1 << g->dim, 1, 4096);
  lua_Integer stream = tide_opt_int(&o, "stream", (lua_Integer)ps->n + 104729, 0, LUA_MAXINTEGER);
  const tide_array *region = opt_region(&o, g, 1);
  int64_t added = 0, removed = 0;
  tide_lua_check(
      L, tide_liquid_emit(ps, g, region, per_cell, vel, (uint64_t)stream, &added, &removed), fn);
  tide_lua_gcaccount(L);
  lua_pushinteger(L, added);
  lua_pushinteger(L, removed);
  return 2;
}

static const char *const inflow_keys[] = {"region", "shape", "velocity", "fixed", "solid", NULL};

/* tide.liquid.inflow(u, {region | shape, velocity, fixed = u8 Mac, solid}) -> u */
static int l_inflow(lua_State *L) {
  const char *fn = "tide.liquid.inflow";
  tide_mac *u = tide_lua_checkobj(L, 1, TIDE_MAC_T);
  tide_opts o = tide_lua_opts(L, 2, fn, inflow_keys);
  double vel[3] = {0, 0, 0};
  if (!tide_opt_vec(&o, "velocity", u->grid.dim, u->grid.dim, vel))
    tide_lua_error(L, "%s: missing option 'velocity'", fn);
  tide_mac *fixed = tide_opt_obj(&o, "fixed", TIDE_MAC_T);
  const tide_array *region = opt_region(&o, &u->grid, 1);
  tide_lua_check(L, tide_liquid_inflow(u, region, vel, fixed), fn);
  lua_settop(L, 1);
  return 1;
}

static const char *const remove_keys[] = {"open", "region", "shape", "solid", NULL};

/* tide.liquid.remove(ps, g [, {open = sides, region | shape, solid}]) -> removed */
static int l_remove(lua_State *L) {
  const char *fn = "tide.liquid.remove";
  tide_particles *ps = tide_lua_checkobj(L, 1, TIDE_PARTICLES_T);
  tide_grid *g = tide_lua_checkobj(L, 2, TIDE_GRID_T);
  tide_opts o = tide_lua_optopts(L, 3, fn, remove_keys);
  if (g->dim != ps->dim)
    tide_lua_error(L, "%s: grid is %dD but the particles are %dD", fn, g->dim, ps->dim);
  unsigned open = tide_opt_sides(&o, "open", g->dim);
  const tide_array *sink = opt_region(&o, g, 0);
  if (!sink && tide_opt_has(&o, "solid"))
    tide_lua_error(L, "%s: 'solid' applies to a 'region' or 'shape'", fn);
  int64_t removed = 0;
  tide_lua_check(L, tide_particles_remove(ps, g, open, sink, &removed), fn);
  lua_pushinteger(L, removed);
  return 1;
}

/* f(g, array, open) with arguments (g, array, open sides); returns the array */
static int open_op(lua_State *L, const char *fn,
                   int (*f)(const tide_grid *, unsigned, tide_array *)) {
  tide_grid *g = tide_lua_checkobj(L, 1, TIDE_GRID_T);
  tide_array *a = tide_lua_checkarray(L, 2);
  if (lua_isnoneornil(L, 3)) tide_lua_error(L, "%s: argument 3 (open sides) expected", fn);
  unsigned open = tide_lua_checksides(L, 3, fn, "open", g->dim);
  tide_lua_check(L, f(g, open, a), fn);
  lua_settop(L, 2);
  return 1;
}

/* tide.liquid.open_cells(g, labels, open) -> labels: the open layer becomes air */
static int l_open_cells(lua_State *L) {
  return open_op(L, "tide.liquid.open_cells", tide_liquid_open_cells);
}

/* tide.liquid.open_phi(g, phi, open) -> phi continued linearly into the open layer */
static int l_open_phi(lua_State *L) {
  return open_op(L, "tide.liquid.open_phi", tide_liquid_open_phi);
}

static const luaL_Reg funcs[] = {{"region", l_region},
                                 {"emit", l_emit},
                                 {"inflow", l_inflow},
                                 {"remove", l_remove},
                                 {"open_cells", l_open_cells},
                                 {"open_phi", l_open_phi},
                                 {NULL, NULL}};

/* add the functions to the module table on top of the stack */
void tide_lua_liquid_open_open(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
