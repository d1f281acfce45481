/*
 * lua_grid_ckpt.c -- checkpoint hooks of tide.Grid and tide.Mac, and the
 * state-table helpers every module's hooks use (lua_grid_ckpt.h).
 *
 *   tide.Grid  {dim, size = {ni, nj[, nk]}, dx, origin = {..}}
 *   tide.Mac   {grid = <Grid state>, dtype, u, v[, w] = face arrays}
 * (tide.Shape: lua_grid_ckpt_shape.c)
 */
#include "grid/lua_grid_ckpt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ readers */

void tide_ckpt_keys(lua_State *L, int idx, const char *fn, const char *const *keys) {
  if (!lua_istable(L, idx))
    tide_lua_error(L, "%s: state table expected, got %s", fn, luaL_typename(L, idx));
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    int ok = 0;
    if (lua_type(L, -1) == LUA_TSTRING)
      for (int k = 0; keys[k] && !ok; k++) ok = !strcmp(keys[k], lua_tostring(L, -1));
    if (!ok) {
      lua_pushvalue(L, -1);
      tide_lua_error(L, "%s: unknown field '%s' in the state table", fn, luaL_tolstring(L, -1, NULL));
    }
  }
}

static void getfield(lua_State *L, int idx, const char *fn, const char *key, int type) {
  int t = lua_getfield(L, idx, key);
  if (t != type)
    tide_lua_error(L, "%s: field '%s' must be a %s, got %s", fn, key, lua_typename(L, type),
                   lua_typename(L, t));
}

double tide_ckpt_num(lua_State *L, int idx, const char *fn, const char *key, double lo, double hi) {
  getfield(L, idx, fn, key, LUA_TNUMBER);
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (!(v >= lo && v <= hi))
    tide_lua_error(L, "%s: field '%s' = %f outside [%f, %f]", fn, key, v, lo, hi);
  return v;
}

lua_Integer tide_ckpt_int(lua_State *L, int idx, const char *fn, const char *key, lua_Integer lo,
                          lua_Integer hi) {
  getfield(L, idx, fn, key, LUA_TNUMBER);
  int isint;
  lua_Integer v = lua_tointegerx(L, -1, &isint);
  lua_pop(L, 1);
  if (!isint || v < lo || v > hi)
    tide_lua_error(L, "%s: field '%s' must be an integer in %I..%I", fn, key, lo, hi);
  return v;
}

int tide_ckpt_bool(lua_State *L, int idx, const char *fn, const char *key) {
  getfield(L, idx, fn, key, LUA_TBOOLEAN);
  int v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

void tide_ckpt_vec(lua_State *L, int idx, const char *fn, const char *key, int n, double *out) {
  getfield(L, idx, fn, key, LUA_TTABLE);
  if (luaL_len(L, -1) != n)
    tide_lua_error(L, "%s: field '%s' must list %d numbers", fn, key, n);
  for (int k = 0; k < n; k++) {
    lua_geti(L, -1, k + 1);
    int ok = lua_type(L, -1) == LUA_TNUMBER;
    out[k] = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!ok || !isfinite(out[k]))
      tide_lua_error(L, "%s: field '%s' entry %d must be a finite number", fn, key, k + 1);
  }
  lua_pop(L, 1);
}

tide_array *tide_ckpt_array(lua_State *L, int idx, const char *fn, const char *key, tide_dtype t,
                            int ndim, const int64_t *shape, int finite, int optional) {
  lua_getfield(L, idx, key);
  if (optional && lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return NULL;
  }
  tide_array *a = tide_lua_testarray(L, -1);
  if (!a)
    tide_lua_error(L, "%s: field '%s' must be a tide.Array, got %s", fn, key, luaL_typename(L, -1));
  lua_pop(L, 1); /* still referenced by the state table */
  char what[160];
  snprintf(what, sizeof what, "%s: field '%s'", fn, key);
  if (tide_array_expect(a, what, t, ndim, shape)) tide_lua_error(L, "%s", tide_errmsg());
  if (finite && (t == TIDE_F64 || t == TIDE_F32)) {
    int64_t n = tide_array_size(a);
    for (int64_t k = 0; k < n; k++) {
      double v = t == TIDE_F64 ? TIDE_F64P(a)[k] : (double)((const float *)tide_array_ptr(a))[k];
      if (!isfinite(v))
        tide_lua_error(L, "%s: field '%s' holds a non-finite value at entry %I", fn, key,
                       (lua_Integer)k + 1);
    }
  }
  return a;
}

void tide_ckpt_copy(tide_array *dst, const tide_array *src) {
  size_t n = (size_t)tide_array_size(src) * tide_dtype_size(src->dtype);
  if (n) memcpy(tide_array_ptr(dst), tide_array_ptr(src), n);
}

/* ------------------------------------------------------------ writers */

void tide_ckpt_setnum(lua_State *L, const char *key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}

void tide_ckpt_setint(lua_State *L, const char *key, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, key);
}

void tide_ckpt_setvec(lua_State *L, const char *key, const double *v, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushnumber(L, v[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, key);
}

void tide_ckpt_setarray(lua_State *L, const char *key, tide_array *a) {
  if (!a) return;
  tide_lua_pusharray(L, tide_array_retain(a));
  lua_setfield(L, -2, key);
}

/* --------------------------------------------------------------- Grid */

void tide_ckpt_pushgrid(lua_State *L, const tide_grid *g) {
  lua_createtable(L, 0, 4);
  tide_ckpt_setint(L, "dim", g->dim);
  double n[3] = {g->n[0], g->n[1], g->n[2]};
  tide_ckpt_setvec(L, "size", n, g->dim);
  tide_ckpt_setnum(L, "dx", g->dx);
  tide_ckpt_setvec(L, "origin", g->origin, g->dim);
}

static const char *const grid_keys[] = {"dim", "size", "dx", "origin", NULL};

void tide_ckpt_checkgrid(lua_State *L, int idx, const char *fn, tide_grid *g) {
  idx = lua_absindex(L, idx);
  tide_ckpt_keys(L, idx, fn, grid_keys);
  int dim = (int)tide_ckpt_int(L, idx, fn, "dim", 2, 3);
  double sz[3], org[3] = {0, 0, 0};
  tide_ckpt_vec(L, idx, fn, "size", dim, sz);
  int n[3] = {1, 1, 1};
  for (int d = 0; d < dim; d++) {
    if (sz[d] != floor(sz[d]) || sz[d] < 1 || sz[d] > (1 << 20))
      tide_lua_error(L, "%s: size[%d] must be an integer in 1..%d", fn, d + 1, 1 << 20);
    n[d] = (int)sz[d];
  }
  double dx = tide_ckpt_num(L, idx, fn, "dx", 1e-300, 1e300);
  tide_ckpt_vec(L, idx, fn, "origin", dim, org);
  tide_lua_check(L, tide_grid_init(g, dim, n, dx, org), fn);
}

static int grid_checkpoint(lua_State *L) {
  tide_ckpt_pushgrid(L, tide_lua_checkobj(L, 1, TIDE_GRID_T));
  return 1;
}

static int grid_restore(lua_State *L) {
  tide_grid g;
  tide_ckpt_checkgrid(L, 1, "tide.fileio.restore (tide.Grid)", &g);
  tide_grid *p = malloc(sizeof *p);
  if (!p) tide_lua_error(L, "tide.fileio.restore (tide.Grid): out of memory");
  *p = g;
  tide_lua_pushobj(L, TIDE_GRID_T, p);
  return 1;
}

/* ---------------------------------------------------------------- Mac */

static const char *const AXES[] = {"u", "v", "w"};

static int mac_checkpoint(lua_State *L) {
  tide_mac *m = tide_lua_checkobj(L, 1, TIDE_MAC_T);
  lua_createtable(L, 0, 5);
  tide_ckpt_pushgrid(L, &m->grid);
  lua_setfield(L, -2, "grid");
  lua_pushstring(L, tide_dtype_name(m->u[0]->dtype));
  lua_setfield(L, -2, "dtype");
  for (int a = 0; a < m->grid.dim; a++) tide_ckpt_setarray(L, AXES[a], m->u[a]);
  return 1;
}

static const char *const mac_keys[] = {"grid", "dtype", "u", "v", "w", NULL};

static int mac_restore(lua_State *L) {
  const char *fn = "tide.fileio.restore (tide.Mac)";
  tide_ckpt_keys(L, 1, fn, mac_keys);
  getfield(L, 1, fn, "grid", LUA_TTABLE);
  tide_grid g;
  tide_ckpt_checkgrid(L, -1, fn, &g);
  lua_pop(L, 1);
  getfield(L, 1, fn, "dtype", LUA_TSTRING);
  int t = tide_dtype_parse(lua_tostring(L, -1));
  if (t < 0) tide_lua_error(L, "%s: unknown dtype '%s'", fn, lua_tostring(L, -1));
  lua_pop(L, 1);
  tide_array *src[3] = {NULL, NULL, NULL};
  for (int a = 0; a < 3; a++) {
    if (a == g.dim) {
      if (lua_getfield(L, 1, AXES[a]) != LUA_TNIL)
        tide_lua_error(L, "%s: field 'w' in a 2D MAC field", fn);
      lua_pop(L, 1);
      break;
    }
    int n[3];
    tide_grid_face_dims(&g, a, n);
    int64_t shape[3] = {n[0], n[1], n[2]};
    src[a] = tide_ckpt_array(L, 1, fn, AXES[a], (tide_dtype)t, g.dim, shape, 1, 0);
  }
  tide_mac *m;
  tide_lua_check(L, tide_mac_new(&g, (tide_dtype)t, &m), fn);
  for (int a = 0; a < g.dim; a++) tide_ckpt_copy(m->u[a], src[a]);
  tide_lua_pushobj(L, TIDE_MAC_T, m);
  tide_lua_gcaccount(L);
  return 1;
}

static void set_hooks(lua_State *L, const char *tname, lua_CFunction save, lua_CFunction load) {
  luaL_getmetatable(L, tname);
  lua_pushcfunction(L, save);
  lua_setfield(L, -2, "__checkpoint");
  lua_pushcfunction(L, load);
  lua_setfield(L, -2, "__restore");
  lua_pop(L, 1);
}

void tide_lua_shape_ckpt_open(lua_State *L); /* lua_grid_ckpt_shape.c */

/* called by luaopen_tide_grid after the metatables exist */
void tide_lua_grid_ckpt_open(lua_State *L) {
  tide_lua_shape_ckpt_open(L);
  set_hooks(L, TIDE_GRID_T, grid_checkpoint, grid_restore);
  set_hooks(L, TIDE_MAC_T, mac_checkpoint, mac_restore);
}
