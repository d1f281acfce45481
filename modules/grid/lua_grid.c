/*
 * lua_grid.c -- tide.grid: uniform 2D/3D grids (tide.Grid) and MAC fields
 * (tide.Mac).  Argument checks and marshalling only; the numerics are in
 * grid.c, interp.c and macops.c.  Indices are 1-based here, 0-based in C.
 */
#include "grid/grid.h"
#include "grid/sdf.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int luaopen_tide_array(lua_State *L);
void tide_lua_grid_levelset_open(lua_State *L); /* lua_grid_levelset.c */
void tide_lua_grid_ckpt_open(lua_State *L);     /* lua_grid_ckpt.c: checkpoint hooks */
/* lua_grid_levelset.c: Mac:advect with an options table */
int tide_lua_mac_advect_opts(lua_State *L, tide_mac *q, tide_mac *vel, double dt, int idx,
                             const char *fn);

static const char *const AXES[] = {"u", "v", "w"};

/* ---------------------------------------------------------------- Grid */

static tide_grid *checkgrid(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, TIDE_GRID_T); }

static void pushgrid(lua_State *L, const tide_grid *g) {
  tide_grid *p = malloc(sizeof *p);
  if (!p) tide_lua_error(L, "tide.grid: out of memory");
  *p = *g;
  tide_lua_pushobj(L, TIDE_GRID_T, p);
}

static const char *const new_keys[] = {"size", "dx", "origin", NULL};

/* tide.grid.new{ size = {ni, nj[, nk]}, dx = h [, origin = {x, y[, z]}] } */
static int l_new(lua_State *L) {
  const char *fn = "tide.grid.new";
  tide_opts o = tide_lua_opts(L, 1, fn, new_keys);
  double sz[3] = {0, 0, 0}, org[3] = {0, 0, 0};
  if (!tide_opt_has(&o, "size")) tide_lua_error(L, "%s: missing option 'size'", fn);
  int dim = tide_opt_vec(&o, "size", 2, 3, sz);
  int n[3] = {1, 1, 1};
  for (int d = 0; d < dim; d++) {
    if (sz[d] != floor(sz[d]) || sz[d] < 1 || sz[d] > (1 << 20))
      tide_lua_error(L, "%s: size[%d] must be an integer in 1..%d, got %f", fn, d + 1, 1 << 20, sz[d]);
    n[d] = (int)sz[d];
  }
  double dx = tide_opt_reqnum(&o, "dx", 1e-300, 1e300);
  if (!(dx > 0)) tide_lua_error(L, "%s: dx must be positive", fn);
  int no = tide_opt_vec(&o, "origin", dim, dim, org);
  (void)no;
  tide_grid g;
  tide_lua_check(L, tide_grid_init(&g, dim, n, dx, org), fn);
  pushgrid(L, &g);
  return 1;
}

static int g_free(lua_State *L) {
  free(tide_lua_takeobj(L, 1, TIDE_GRID_T));
  return 0;
}

static int g_tostring(lua_State *L) {
  tide_grid *g = tide_lua_testobj(L, 1, TIDE_GRID_T);
  if (!g) {
    lua_pushstring(L, "tide.Grid (freed)");
    return 1;
  }
  if (g->dim == 2)
    lua_pushfstring(L, "tide.Grid 2D %d x %d, dx = %f, origin (%f, %f)", g->n[0], g->n[1], g->dx,
                    g->origin[0], g->origin[1]);
  else
    lua_pushfstring(L, "tide.Grid 3D %d x %d x %d, dx = %f, origin (%f, %f, %f)", g->n[0], g->n[1],
                    g->n[2], g->dx, g->origin[0], g->origin[1], g->origin[2]);
  return 1;
}

static void pushvec(lua_State *L, const double *v, int n) {
  lua_createtable(L, n, 0);
  for (int d = 0; d < n; d++) {
    lua_pushnumber(L, v[d]);
    lua_rawseti(L, -2, d + 1);
  }
}

static void pushivec(lua_State *L, const int *v, int n) {
  lua_createtable(L, n, 0);
  for (int d = 0; d < n; d++) {
    lua_pushinteger(L, v[d]);
    lua_rawseti(L, -2, d + 1);
  }
}

static tide_dtype optdtype(lua_State *L, int idx, const char *fn) {
  if (lua_isnoneornil(L, idx)) return TIDE_F64;
  const char *s = luaL_checkstring(L, idx);
  int t = tide_dtype_parse(s);
  if (t < 0) tide_lua_error(L, "%s: unknown dtype '%s' (f64, f32, i32, u8)", fn, s);
  return (tide_dtype)t;
}

/* g:cells([dtype [, value]]): a new cell array {ni, nj[, nk]} */
static int g_cells(lua_State *L) {
  tide_grid *g = checkgrid(L, 1);
  tide_dtype t = optdtype(L, 2, "Grid:cells");
  double v = lua_isnoneornil(L, 3) ? 0 : tide_lua_checkfinite(L, 3, "Grid:cells", "value");
  tide_array *a = tide_grid_cell_array(g, t);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, "Grid:cells");
  if (v != 0) tide_array_fill(a, v);
  tide_lua_pusharray(L, a);
  return 1;
}

static void pushmac(lua_State *L, tide_mac *m) {
  tide_lua_pushobj(L, TIDE_MAC_T, m);
  tide_lua_gcaccount(L);
}

/* g:mac([dtype [, value]]): a new MAC field, zero (or value) on every face */
static int g_mac(lua_State *L) {
  tide_grid *g = checkgrid(L, 1);
  tide_dtype t = optdtype(L, 2, "Grid:mac");
  double v = lua_isnoneornil(L, 3) ? 0 : tide_lua_checkfinite(L, 3, "Grid:mac", "value");
  tide_mac *m;
  tide_lua_check(L, tide_mac_new(g, t, &m), "Grid:mac");
  if (v != 0) tide_mac_fill(m, v);
  pushmac(L, m);
  return 1;
}

/* g:centers(): cell centres, array {ni, nj[, nk], dim} */
static int g_centers(lua_State *L) {
  tide_grid *g = checkgrid(L, 1);
  tide_array *a;
  tide_lua_check(L, tide_grid_centers(g, &a), "Grid:centers");
  tide_lua_pusharray(L, a);
  return 1;
}

/* g:center(i, j[, k]): x, y[, z] of the centre of cell (i, j, k) (1-based) */
static int g_center(lua_State *L) {
  tide_grid *g = checkgrid(L, 1);
  int c[3] = {0, 0, 0};
  for (int d = 0; d < g->dim; d++) {
    char what[16];
    snprintf(what, sizeof what, "index %d", d + 1);
    c[d] = (int)tide_lua_checkrange(L, 2 + d, "Grid:center", what, 1, g->n[d]) - 1;
  }
  double x[3];
  tide_grid_center(g, c[0], c[1], c[2], x);
  for (int d = 0; d < g->dim; d++) lua_pushnumber(L, x[d]);
  return g->dim;
}

/* g:cell(x, y[, z]): 1-based indices of the cell holding the point (clamped) */
static int g_cell(lua_State *L) {
  tide_grid *g = checkgrid(L, 1);
  double x[3] = {0, 0, 0};
  for (int d = 0; d < g->dim; d++) x[d] = tide_lua_checkfinite(L, 2 + d, "Grid:cell", "coordinate");
  int c[3];
  tide_grid_locate(g, x, c);
  for (int d = 0; d < g->dim; d++) lua_pushinteger(L, c[d] + 1);
  return g->dim;
}

/* g:bounds(): {lo}, {hi} corners of the domain [m] */
static int g_bounds(lua_State *L) {
  tide_grid *g = checkgrid(L, 1);
  double hi[3];
  for (int d = 0; d < 3; d++) hi[d] = g->origin[d] + g->n[d] * g->dx;
  pushvec(L, g->origin, g->dim);
  pushvec(L, hi, g->dim);
  return 2;
}

static tide_array *newarr(lua_State *L, const char *fn, int nd, const int64_t *shape) {
  tide_array *a = tide_array_new(TIDE_F64, nd, shape);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, a); /* anchored */
  return a;
}

/* g:sample(field, points [, out]): field (cell array) at points (n, dim) -> (n) */
static int g_sample(lua_State *L) {
  const char *fn = "Grid:sample";
  tide_grid *g = checkgrid(L, 1);
  tide_array *f = tide_lua_checkarray(L, 2);
  tide_array *x = tide_lua_checkarray(L, 3);
  tide_lua_check(L, tide_grid_check_cells(g, f, TIDE_F64, "field"), fn);
  int64_t ps[2] = {-1, g->dim};
  tide_lua_check(L, tide_array_expect(x, "points", TIDE_F64, 2, ps), fn);
  tide_array *out;
  if (lua_isnoneornil(L, 4)) {
    out = newarr(L, fn, 1, x->shape);
  } else {
    out = tide_lua_checkarray(L, 4);
    lua_pushvalue(L, 4);
  }
  tide_lua_check(L, tide_grid_sample(g, f, x, out), fn);
  return 1;
}

/* g:advect(field, vel, dt [, out]): semi-Lagrangian RK2 advection of a cell field */
static int g_advect(lua_State *L) {
  const char *fn = "Grid:advect";
  tide_grid *g = checkgrid(L, 1);
  tide_array *f = tide_lua_checkarray(L, 2);
  tide_mac *vel = tide_lua_checkobj(L, 3, TIDE_MAC_T);
  double dt = tide_lua_checkfinite(L, 4, fn, "dt");
  tide_lua_check(L, tide_grid_check_cells(g, f, TIDE_F64, "field"), fn);
  tide_array *out;
  if (lua_isnoneornil(L, 5)) {
    out = tide_grid_cell_array(g, TIDE_F64);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
  } else {
    out = tide_lua_checkarray(L, 5);
    lua_pushvalue(L, 5);
  }
  tide_lua_check(L, tide_grid_advect(g, vel, f, dt, out), fn);
  return 1;
}


static const char *const frac_keys[] = {"clamp", "out", "solid", "exact", "depth", "band", NULL};

/* g:face_fractions(solid [, {clamp = {0.01, 0.99}, exact = false, depth = 5, out = f64 Mac,
 * solid = u8 cells}]) -> open face fractions (tide.Mac), solid cell labels.
 * solid is a tide.Shape (negative inside the solid) or its signed distance
 * at the nodes, an array (ni+1, nj+1[, nk+1]).  exact (shapes only): the
 * adaptively clipped areas, subdivided `depth` levels.  band [m] (shapes, not
 * exact): the node distances exact only within band (tide_shape_sdf_band). */
static int g_face_fractions(lua_State *L) {
  const char *fn = "Grid:face_fractions";
  tide_grid *g = checkgrid(L, 1);
  tide_shape *shape = tide_lua_testobj(L, 2, TIDE_SHAPE_T);
  tide_array *nodes = shape ? NULL : tide_lua_testarray(L, 2);
  if (!shape && !nodes)
    tide_lua_error(L, "%s: solid must be a %s or an array of node distances, got %s", fn, TIDE_SHAPE_T,
                   luaL_typename(L, 2));
  tide_opts o = tide_lua_optopts(L, 3, fn, frac_keys);
  double clamp[2] = {0.01, 0.99};
  tide_opt_vec(&o, "clamp", 2, 2, clamp);
  tide_mac *out = tide_opt_obj(&o, "out", TIDE_MAC_T);
  tide_array *solid = tide_opt_array(&o, "solid");
  int exact = tide_opt_bool(&o, "exact", 0);
  int depth = (int)tide_opt_int(&o, "depth", 5, 0, 12);
  if (exact && !shape) tide_lua_error(L, "%s: 'exact' needs a tide.Shape, not node distances", fn);
  double band = tide_opt_num(&o, "band", INFINITY, 0, INFINITY);
  if (tide_opt_has(&o, "band") && (exact || !shape))
    tide_lua_error(L, "%s: 'band' is for a tide.Shape with exact = false", fn);
  if (!(band > 0)) tide_lua_error(L, "%s: band must be > 0", fn);
  if (shape && !exact) {
    if (shape->dim != g->dim) tide_lua_error(L, "%s: shape is %dD but the grid is %dD", fn, shape->dim, g->dim);
    int64_t sh[3] = {g->n[0] + 1, g->n[1] + 1, g->n[2] + 1};
    nodes = tide_array_new(TIDE_F64, g->dim, sh);
    if (!nodes) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, nodes); /* anchored */
    tide_lua_check(L, tide_shape_sdf_band(shape, g, TIDE_AT_NODES, band, TIDE_F64P(nodes)), fn);
  }
  if (out) {
    lua_getfield(L, 3, "out");
  } else {
    tide_lua_check(L, tide_mac_new(g, TIDE_F64, &out), fn);
    pushmac(L, out);
  }
  if (solid) {
    lua_getfield(L, 3, "solid");
  } else {
    solid = tide_grid_cell_array(g, TIDE_U8);
    if (!solid) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, solid);
  }
  if (exact)
    tide_lua_check(L, tide_mac_face_fractions_shape(g, shape, depth, clamp[0], clamp[1], out, solid), fn);
  else
    tide_lua_check(L, tide_mac_face_fractions(g, nodes, clamp[0], clamp[1], out, solid), fn);
  return 2;
}

static int g_index(lua_State *L) {
  tide_grid *g = checkgrid(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "dim")) {
    lua_pushinteger(L, g->dim);
  } else if (!strcmp(k, "size")) {
    pushivec(L, g->n, g->dim);
  } else if (!strcmp(k, "dx")) {
    lua_pushnumber(L, g->dx);
  } else if (!strcmp(k, "origin")) {
    pushvec(L, g->origin, g->dim);
  } else if (!strcmp(k, "ncells")) {
    lua_pushinteger(L, tide_grid_ncells(g));
  } else {
    luaL_getmetatable(L, TIDE_GRID_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int g_eq(lua_State *L) {
  tide_grid *a = tide_lua_testobj(L, 1, TIDE_GRID_T), *b = tide_lua_testobj(L, 2, TIDE_GRID_T);
  lua_pushboolean(L, a && b && tide_grid_same(a, b));
  return 1;
}

static const luaL_Reg grid_methods[] = {
    {"cells", g_cells},   {"mac", g_mac},       {"centers", g_centers}, {"center", g_center},
    {"cell", g_cell},     {"bounds", g_bounds}, {"sample", g_sample},   {"advect", g_advect},
    {"face_fractions", g_face_fractions}, {"free", g_free}, {NULL, NULL}};

static const luaL_Reg grid_meta[] = {{"__gc", g_free},   {"__close", g_free}, {"__tostring", g_tostring},
                                     {"__index", g_index}, {"__eq", g_eq},    {NULL, NULL}};

/* ---------------------------------------------------------------- Mac */

static tide_mac *checkmac(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, TIDE_MAC_T); }

static int m_free(lua_State *L) {
  tide_mac_free(tide_lua_takeobj(L, 1, TIDE_MAC_T));
  return 0;
}

static int m_tostring(lua_State *L) {
  tide_mac *m = tide_lua_testobj(L, 1, TIDE_MAC_T);
  if (!m) {
    lua_pushstring(L, "tide.Mac (freed)");
    return 1;
  }
  const tide_grid *g = &m->grid;
  char buf[256];
  int len = snprintf(buf, sizeof buf, "tide.Mac %s %dD on %d x %d", tide_dtype_name(m->u[0]->dtype), g->dim,
                     g->n[0], g->n[1]);
  if (g->dim == 3) len += snprintf(buf + len, sizeof buf - len, " x %d", g->n[2]);
  if (m->u[0]->dtype == TIDE_F64) {
    double s;
    if (tide_mac_max_speed(m, &s) == TIDE_OK)
      snprintf(buf + len, sizeof buf - len, ", max |u| = %.6g m/s", s);
    else
      snprintf(buf + len, sizeof buf - len, ", non-finite values");
  }
  lua_pushstring(L, buf);
  return 1;
}

/* the other MAC field at idx, on the same grid and of dtype t */
static tide_mac *checkmac_like(lua_State *L, int idx, const tide_mac *m, tide_dtype t, const char *fn,
                               const char *what) {
  tide_mac *o = checkmac(L, idx);
  tide_lua_check(L, tide_mac_check(o, &m->grid, t, what), fn);
  return o;
}

/* m:sample(points [, out]): velocities (n, dim) at points (n, dim) */
static int m_sample(lua_State *L) {
  const char *fn = "Mac:sample";
  tide_mac *m = checkmac(L, 1);
  tide_lua_check(L, tide_mac_check(m, NULL, TIDE_F64, "mac"), fn);
  tide_array *x = tide_lua_checkarray(L, 2);
  int64_t ps[2] = {-1, m->grid.dim};
  tide_lua_check(L, tide_array_expect(x, "points", TIDE_F64, 2, ps), fn);
  tide_array *out;
  if (lua_isnoneornil(L, 3)) {
    int64_t sh[2] = {x->shape[0], m->grid.dim};
    out = newarr(L, fn, 2, sh);
  } else {
    out = tide_lua_checkarray(L, 3);
    lua_pushvalue(L, 3);
  }
  tide_lua_check(L, tide_mac_sample(m, x, out), fn);
  return 1;
}

/* m:advect(vel, dt [, out | {rk, interp, scheme, clamp, valid, work, out}]):
 * advection of m by vel (m may be vel), semi-Lagrangian RK2 multilinear by
 * default, the options of tide.grid.advect_mac with a table; returns the
 * advected field (a new tide.Mac or out) */
static int m_advect(lua_State *L) {
  const char *fn = "Mac:advect";
  tide_mac *q = checkmac(L, 1);
  tide_lua_check(L, tide_mac_check(q, NULL, TIDE_F64, "field"), fn);
  tide_mac *vel = checkmac_like(L, 2, q, TIDE_F64, fn, "vel");
  double dt = tide_lua_checkfinite(L, 3, fn, "dt");
  if (lua_istable(L, 4)) return tide_lua_mac_advect_opts(L, q, vel, dt, 4, fn);
  tide_mac *out;
  if (lua_isnoneornil(L, 4)) {
    tide_lua_check(L, tide_mac_new(&q->grid, TIDE_F64, &out), fn);
    pushmac(L, out);
  } else {
    out = checkmac_like(L, 4, q, TIDE_F64, fn, "out");
    lua_pushvalue(L, 4);
  }
  tide_lua_check(L, tide_mac_advect(vel, q, dt, out), fn);
  return 1;
}

/* m:add_gravity(dt [, g]): u += dt g on every face, g = {0, -9.81[, 0]} by default */
static int m_add_gravity(lua_State *L) {
  const char *fn = "Mac:add_gravity";
  tide_mac *m = checkmac(L, 1);
  double dt = tide_lua_checkfinite(L, 2, fn, "dt");
  double acc[3] = {0, -9.81, 0};
  if (!lua_isnoneornil(L, 3)) tide_lua_checkvec(L, 3, fn, "g", m->grid.dim, m->grid.dim, acc);
  tide_lua_check(L, tide_mac_add_accel(m, acc, dt), fn);
  lua_settop(L, 1);
  return 1;
}

static int m_max_speed(lua_State *L) {
  double s;
  tide_lua_check(L, tide_mac_max_speed(checkmac(L, 1), &s), "Mac:max_speed");
  lua_pushnumber(L, s);
  return 1;
}

/* m:divergence([out]): cell array of the discrete divergence [1/s] */
static int m_divergence(lua_State *L) {
  const char *fn = "Mac:divergence";
  tide_mac *m = checkmac(L, 1);
  tide_array *out;
  if (lua_isnoneornil(L, 2)) {
    out = tide_grid_cell_array(&m->grid, TIDE_F64);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
  } else {
    out = tide_lua_checkarray(L, 2);
    lua_pushvalue(L, 2);
  }
  tide_lua_check(L, tide_mac_divergence(m, out), fn);
  return 1;
}

/* m:enforce_walls([labels [, separating = false [, fractions [, open]]]]):
 * zero normal velocity on the domain walls, on faces of solid cells (u8
 * labels) and on faces of open fraction 0 (f64 Mac); separating keeps
 * velocities pointing away from the wall (u.n >= 0); open (a side name or a
 * list, e.g. {"x+", "y+"}) lists the open domain sides, whose boundary faces
 * copy the next face inward instead */
static int m_enforce_walls(lua_State *L) {
  tide_mac *m = checkmac(L, 1);
  tide_array *lab = lua_isnoneornil(L, 2) ? NULL : tide_lua_checkarray(L, 2);
  int sep = 0;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TBOOLEAN);
    sep = lua_toboolean(L, 3);
  }
  tide_mac *fr = lua_isnoneornil(L, 4) ? NULL : checkmac(L, 4);
  unsigned open = tide_lua_checksides(L, 5, "Mac:enforce_walls", "open", m->grid.dim);
  tide_lua_check(L, tide_mac_enforce_walls_open(m, lab, fr, sep, open), "Mac:enforce_walls");
  lua_settop(L, 1);
  return 1;
}

/* m:extrapolate(valid [, layers = 2 [, clear = false]]): neighbour-average
 * extrapolation from the faces marked in the u8 MAC field valid (updated in
 * place); clear zeroes the faces still invalid afterwards */
static int m_extrapolate(lua_State *L) {
  const char *fn = "Mac:extrapolate";
  tide_mac *m = checkmac(L, 1);
  tide_mac *valid = checkmac_like(L, 2, m, TIDE_U8, fn, "valid");
  int layers = lua_isnoneornil(L, 3) ? 2 : (int)tide_lua_checkrange(L, 3, fn, "layers", 0, 1 << 20);
  int clear = 0;
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TBOOLEAN);
    clear = lua_toboolean(L, 4);
  }
  tide_lua_check(L, tide_mac_extrapolate(m, valid, layers, clear), fn);
  lua_settop(L, 1);
  return 1;
}

static int m_copy(lua_State *L) {
  tide_mac *m = checkmac(L, 1);
  tide_mac *src = checkmac(L, 2);
  tide_lua_check(L, tide_mac_copy(m, src), "Mac:copy");
  lua_settop(L, 1);
  return 1;
}

static int m_clone(lua_State *L) {
  tide_mac *m = checkmac(L, 1), *c;
  tide_lua_check(L, tide_mac_new(&m->grid, m->u[0]->dtype, &c), "Mac:clone");
  pushmac(L, c);
  tide_lua_check(L, tide_mac_copy(c, m), "Mac:clone");
  return 1;
}

static int m_fill(lua_State *L) {
  tide_mac *m = checkmac(L, 1);
  tide_lua_check(L, tide_mac_fill(m, tide_lua_checkfinite(L, 2, "Mac:fill", "value")), "Mac:fill");
  lua_settop(L, 1);
  return 1;
}

/* y:axpy(alpha, x): y += alpha x */
static int m_axpy(lua_State *L) {
  tide_mac *y = checkmac(L, 1);
  double alpha = tide_lua_checkfinite(L, 2, "Mac:axpy", "alpha");
  tide_mac *x = checkmac(L, 3);
  tide_lua_check(L, tide_mac_axpy(y, alpha, x), "Mac:axpy");
  lua_settop(L, 1);
  return 1;
}

/* m:component(a): face array of axis a (1..dim), a view sharing memory */
static int m_component(lua_State *L) {
  tide_mac *m = checkmac(L, 1);
  int a = (int)tide_lua_checkrange(L, 2, "Mac:component", "axis", 1, m->grid.dim) - 1;
  tide_lua_pusharray(L, tide_array_retain(m->u[a]));
  return 1;
}

static int m_index(lua_State *L) {
  tide_mac *m = checkmac(L, 1);
  const char *k = luaL_checkstring(L, 2);
  for (int a = 0; a < m->grid.dim; a++)
    if (!strcmp(k, AXES[a])) {
      tide_lua_pusharray(L, tide_array_retain(m->u[a]));
      return 1;
    }
  if (!strcmp(k, "grid")) {
    pushgrid(L, &m->grid);
  } else if (!strcmp(k, "dim")) {
    lua_pushinteger(L, m->grid.dim);
  } else if (!strcmp(k, "dtype")) {
    lua_pushstring(L, tide_dtype_name(m->u[0]->dtype));
  } else {
    luaL_getmetatable(L, TIDE_MAC_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg mac_methods[] = {
    {"sample", m_sample},       {"advect", m_advect},           {"add_gravity", m_add_gravity},
    {"max_speed", m_max_speed}, {"divergence", m_divergence},   {"enforce_walls", m_enforce_walls},
    {"extrapolate", m_extrapolate}, {"copy", m_copy},           {"clone", m_clone},
    {"fill", m_fill},           {"axpy", m_axpy},               {"component", m_component},
    {"free", m_free},           {NULL, NULL}};

static const luaL_Reg mac_meta[] = {{"__gc", m_free},         {"__close", m_free},
                                    {"__tostring", m_tostring}, {"__index", m_index},
                                    {NULL, NULL}};

/* tide.grid.mac(g [, dtype [, value]]) == g:mac(...) */
static const luaL_Reg funcs[] = {{"new", l_new}, {"mac", g_mac}, {NULL, NULL}};

int luaopen_tide_grid(lua_State *L) {
  /* arrays handed out by this module need the tide.Array metatable */
  luaL_requiref(L, "tide.array", luaopen_tide_array, 0);
  lua_pop(L, 1);
  tide_lua_newtype(L, TIDE_GRID_T, grid_methods, grid_meta);
  tide_lua_newtype(L, TIDE_MAC_T, mac_methods, mac_meta);
  tide_lua_grid_ckpt_open(L);
  luaL_newlib(L, funcs);
  tide_lua_grid_levelset_open(L);
  return 1;
}
