/*
 * lua_array.c -- tide.array: typed n-dimensional arrays shared zero-copy
 * between C and Lua.
 *
 * Indices are 1-based in Lua and converted once here.  #a is the extent of
 * the first axis (like len() of a NumPy array); a:size() is the element count.
 */
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FN "tide.array"

/* shape from an integer or a list of integers at idx */
static int check_shape(lua_State *L, int idx, const char *fname, int64_t *shape) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    shape[0] = tide_lua_checkrange(L, idx, fname, "shape", 0, INT64_MAX / 16);
    return 1;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    tide_lua_error(L, "%s: shape must be an integer or a list of integers, got %s", fname,
                   luaL_typename(L, idx));
  lua_Integer n = luaL_len(L, idx);
  if (n < 1 || n > TIDE_MAXDIM)
    tide_lua_error(L, "%s: shape must have 1..%d entries, got %I", fname, TIDE_MAXDIM, n);
  for (int d = 0; d < n; d++) {
    lua_geti(L, idx, d + 1);
    char what[32];
    snprintf(what, sizeof what, "shape[%d]", d + 1);
    shape[d] = tide_lua_checkrange(L, -1, fname, what, 0, INT64_MAX / 16);
    lua_pop(L, 1);
  }
  return (int)n;
}

static tide_dtype check_dtype(lua_State *L, int idx, const char *fname) {
  if (lua_isnoneornil(L, idx)) return TIDE_F64;
  const char *s = luaL_checkstring(L, idx);
  int t = tide_dtype_parse(s);
  if (t < 0) tide_lua_error(L, "%s: unknown dtype '%s' (f64, f32, i32, u8)", fname, s);
  return (tide_dtype)t;
}

static tide_array *newarray(lua_State *L, const char *fname, tide_dtype t, int ndim,
                            const int64_t *shape) {
  tide_array *a = tide_array_new(t, ndim, shape);
  if (!a) tide_lua_error(L, "%s: %s", fname, tide_errmsg());
  return a;
}

/* tide.array.zeros(shape [, dtype]) */
static int l_zeros(lua_State *L) {
  int64_t shape[TIDE_MAXDIM];
  int nd = check_shape(L, 1, FN ".zeros", shape);
  tide_dtype t = check_dtype(L, 2, FN ".zeros");
  tide_lua_pusharray(L, newarray(L, FN ".zeros", t, nd, shape));
  return 1;
}

/* tide.array.full(shape, value [, dtype]) */
static int l_full(lua_State *L) {
  int64_t shape[TIDE_MAXDIM];
  int nd = check_shape(L, 1, FN ".full", shape);
  double v = tide_lua_checkfinite(L, 2, FN ".full", "value");
  tide_dtype t = check_dtype(L, 3, FN ".full");
  tide_array *a = newarray(L, FN ".full", t, nd, shape);
  tide_array_fill(a, v);
  tide_lua_pusharray(L, a);
  return 1;
}

/* tide.array.linspace(a, b, n): n points from a to b inclusive */
static int l_linspace(lua_State *L) {
  double a = tide_lua_checkfinite(L, 1, FN ".linspace", "start");
  double b = tide_lua_checkfinite(L, 2, FN ".linspace", "stop");
  int64_t n = tide_lua_checkrange(L, 3, FN ".linspace", "count", 1, INT64_MAX / 16);
  tide_array *x = newarray(L, FN ".linspace", TIDE_F64, 1, &n);
  double *p = TIDE_F64P(x);
  for (int64_t i = 0; i < n; i++) p[i] = n == 1 ? a : a + (b - a) * (double)i / (double)(n - 1);
  tide_lua_pusharray(L, x);
  return 1;
}

/* nested tables -> shape (rectangular) */
static int table_shape(lua_State *L, int idx, int64_t *shape, int depth) {
  if (depth >= TIDE_MAXDIM) tide_lua_error(L, FN ".from: nesting deeper than %d", TIDE_MAXDIM);
  shape[depth] = (int64_t)luaL_len(L, idx);
  int64_t nkeys = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    nkeys++;
  }
  if (nkeys != shape[depth])
    tide_lua_error(L, FN ".from: a list of numbers (or of lists) expected, got a table with other keys");
  if (shape[depth] == 0) return depth + 1;
  lua_geti(L, idx, 1);
  int nd = depth + 1;
  if (lua_type(L, -1) == LUA_TTABLE) nd = table_shape(L, lua_gettop(L), shape, depth + 1);
  lua_pop(L, 1);
  return nd;
}

static void table_fill(lua_State *L, int idx, tide_array *a, int depth, int64_t *pos) {
  int64_t n = (int64_t)luaL_len(L, idx);
  if (n != a->shape[depth]) tide_lua_error(L, FN ".from: ragged table (rows of different length)");
  for (int64_t i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    if (depth + 1 < a->ndim) {
      if (lua_type(L, -1) != LUA_TTABLE) tide_lua_error(L, FN ".from: ragged table");
      table_fill(L, lua_gettop(L), a, depth + 1, pos);
    } else {
      if (lua_type(L, -1) != LUA_TNUMBER)
        tide_lua_error(L, FN ".from: entry %I is %s, not a number", (lua_Integer)(*pos + 1),
                       luaL_typename(L, -1));
      tide_array_setlin(a, (*pos)++, lua_tonumber(L, -1));
    }
    lua_pop(L, 1);
  }
}

/* tide.array.from(table [, dtype]): nested Lua lists -> array */
static int l_from(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  tide_dtype t = check_dtype(L, 2, FN ".from");
  int64_t shape[TIDE_MAXDIM];
  int nd = table_shape(L, 1, shape, 0);
  tide_array *a = newarray(L, FN ".from", t, nd, shape);
  tide_lua_pusharray(L, a); /* anchored for the GC before filling can raise */
  int64_t pos = 0;
  table_fill(L, 1, a, 0, &pos);
  return 1;
}

/* ---------------------------------------------------------------- methods */

static tide_array *self(lua_State *L) { return tide_lua_checkarray(L, 1); }

/* 1-based multi-index from stack positions first..first+ndim-1 */
static void check_index(lua_State *L, const tide_array *a, int first, int64_t *idx,
                        const char *fname) {
  for (int d = 0; d < a->ndim; d++) {
    char what[32];
    snprintf(what, sizeof what, "index %d", d + 1);
    idx[d] = tide_lua_checkrange(L, first + d, fname, what, 1, a->shape[d]) - 1;
  }
}

static int m_get(lua_State *L) {
  tide_array *a = self(L);
  int64_t idx[TIDE_MAXDIM];
  check_index(L, a, 2, idx, "Array:get");
  double v = tide_array_get(a, idx);
  if (a->dtype == TIDE_I32 || a->dtype == TIDE_U8)
    lua_pushinteger(L, (lua_Integer)v);
  else
    lua_pushnumber(L, v);
  return 1;
}

static int m_set(lua_State *L) {
  tide_array *a = self(L);
  int64_t idx[TIDE_MAXDIM];
  check_index(L, a, 2, idx, "Array:set");
  double v = luaL_checknumber(L, 2 + a->ndim);
  tide_array_set(a, idx, v);
  return 0;
}

static int m_fill(lua_State *L) {
  tide_array *a = self(L);
  tide_array_fill(a, tide_lua_checkfinite(L, 2, "Array:fill", "value"));
  lua_settop(L, 1);
  return 1;
}

/* a:copy(src): copy src's values into a (same element count) */
static int m_copy(lua_State *L) {
  tide_array *a = self(L);
  tide_array *b = tide_lua_checkarray(L, 2);
  tide_lua_check(L, tide_array_copy(a, b), "Array:copy");
  lua_settop(L, 1);
  return 1;
}

static int m_clone(lua_State *L) {
  tide_array *a = self(L);
  tide_dtype t = lua_isnoneornil(L, 2) ? a->dtype : check_dtype(L, 2, "Array:clone");
  tide_array *c = tide_array_clone(a, t);
  if (!c) tide_lua_check(L, TIDE_ENOMEM, "Array:clone");
  tide_lua_pusharray(L, c);
  return 1;
}

static int m_scale(lua_State *L) {
  tide_array *a = self(L);
  tide_array_scale(a, tide_lua_checkfinite(L, 2, "Array:scale", "factor"));
  lua_settop(L, 1);
  return 1;
}

/* y:axpy(alpha, x): y += alpha*x */
static int m_axpy(lua_State *L) {
  tide_array *y = self(L);
  double alpha = tide_lua_checkfinite(L, 2, "Array:axpy", "alpha");
  tide_array *x = tide_lua_checkarray(L, 3);
  tide_lua_check(L, tide_array_axpy(y, alpha, x), "Array:axpy");
  lua_settop(L, 1);
  return 1;
}

static int m_dot(lua_State *L) {
  double v;
  tide_array *a = self(L), *b = tide_lua_checkarray(L, 2);
  tide_lua_check(L, tide_array_dot(a, b, &v), "Array:dot");
  lua_pushnumber(L, v);
  return 1;
}

static int m_sum(lua_State *L) {
  double v;
  tide_lua_check(L, tide_array_sum(self(L), &v), "Array:sum");
  lua_pushnumber(L, v);
  return 1;
}

static int m_norm(lua_State *L) {
  double v;
  tide_lua_check(L, tide_array_norm(self(L), &v), "Array:norm");
  lua_pushnumber(L, v);
  return 1;
}

static int m_min(lua_State *L) {
  double lo, hi;
  tide_lua_check(L, tide_array_minmax(self(L), &lo, &hi), "Array:min");
  lua_pushnumber(L, lo);
  return 1;
}

static int m_max(lua_State *L) {
  double lo, hi;
  tide_lua_check(L, tide_array_minmax(self(L), &lo, &hi), "Array:max");
  lua_pushnumber(L, hi);
  return 1;
}

static int m_nonfinite(lua_State *L) {
  lua_pushinteger(L, tide_array_nonfinite(self(L)));
  return 1;
}

static int m_size(lua_State *L) {
  lua_pushinteger(L, tide_array_size(self(L)));
  return 1;
}

static int m_shape(lua_State *L) {
  tide_array *a = self(L);
  lua_createtable(L, a->ndim, 0);
  for (int d = 0; d < a->ndim; d++) {
    lua_pushinteger(L, a->shape[d]);
    lua_rawseti(L, -2, d + 1);
  }
  return 1;
}

/* a:slice(axis, first, last [, step]): inclusive 1-based range, a view */
static int m_slice(lua_State *L) {
  tide_array *a = self(L);
  int axis = (int)tide_lua_checkrange(L, 2, "Array:slice", "axis", 1, a->ndim) - 1;
  int64_t first = tide_lua_checkrange(L, 3, "Array:slice", "first", 1, a->shape[axis] + 1);
  int64_t last = lua_isnoneornil(L, 4)
                     ? a->shape[axis]
                     : tide_lua_checkrange(L, 4, "Array:slice", "last", first - 1, a->shape[axis]);
  int64_t step = lua_isnoneornil(L, 5) ? 1 : tide_lua_checkrange(L, 5, "Array:slice", "step", 1, INT64_MAX);
  tide_array *v = tide_array_slice(a, axis, first - 1, last, step);
  if (!v) tide_lua_check(L, TIDE_EINVAL, "Array:slice");
  tide_lua_pusharray(L, v);
  return 1;
}

/* a:select(axis, i): the sub-array at index i along axis (drops the axis) */
static int m_select(lua_State *L) {
  tide_array *a = self(L);
  if (a->ndim < 2) tide_lua_error(L, "Array:select: needs an array of rank >= 2");
  int axis = (int)tide_lua_checkrange(L, 2, "Array:select", "axis", 1, a->ndim) - 1;
  int64_t i = tide_lua_checkrange(L, 3, "Array:select", "index", 1, a->shape[axis]);
  tide_array *v = tide_array_select(a, axis, i - 1);
  if (!v) tide_lua_check(L, TIDE_EINVAL, "Array:select");
  tide_lua_pusharray(L, v);
  return 1;
}

/* a:reshape(shape) or a:reshape(n0, n1, ...) */
static int m_reshape(lua_State *L) {
  tide_array *a = self(L);
  int64_t shape[TIDE_MAXDIM];
  int nd;
  if (lua_type(L, 2) == LUA_TTABLE) {
    nd = check_shape(L, 2, "Array:reshape", shape);
  } else {
    nd = lua_gettop(L) - 1;
    if (nd < 1 || nd > TIDE_MAXDIM) tide_lua_error(L, "Array:reshape: 1..%d extents expected", TIDE_MAXDIM);
    for (int d = 0; d < nd; d++) shape[d] = tide_lua_checkrange(L, 2 + d, "Array:reshape", "extent", 0, INT64_MAX / 16);
  }
  tide_array *v = tide_array_reshape(a, nd, shape);
  if (!v) tide_lua_check(L, TIDE_EINVAL, "Array:reshape");
  tide_lua_pusharray(L, v);
  return 1;
}

static void push_nested(lua_State *L, const tide_array *a, int depth, int64_t *pos) {
  lua_createtable(L, (int)a->shape[depth], 0);
  for (int64_t i = 0; i < a->shape[depth]; i++) {
    if (depth + 1 < a->ndim) {
      push_nested(L, a, depth + 1, pos);
    } else {
      double v = tide_array_getlin(a, (*pos)++);
      if (a->dtype == TIDE_I32 || a->dtype == TIDE_U8)
        lua_pushinteger(L, (lua_Integer)v);
      else
        lua_pushnumber(L, v);
    }
    lua_rawseti(L, -2, i + 1);
  }
}

/* a:totable(): nested Lua lists (for small arrays) */
static int m_totable(lua_State *L) {
  tide_array *a = self(L);
  if (tide_array_size(a) > (1 << 24)) tide_lua_error(L, "Array:totable: array too large for a Lua table");
  int64_t pos = 0;
  push_nested(L, a, 0, &pos);
  return 1;
}

/* a:checksum(): FNV-1a over the values in C order, as a hex string */
static int m_checksum(lua_State *L) {
  tide_array *a = self(L);
  uint64_t h = 1469598103934665603ULL;
  size_t es = tide_dtype_size(a->dtype);
  int64_t n = tide_array_size(a);
  const unsigned char *base = a->buf->data;
  int contig = tide_array_contiguous(a);
  for (int64_t k = 0; k < n; k++) {
    const unsigned char *p;
    unsigned char tmp[8];
    if (contig) {
      p = base + (size_t)(a->offset + k) * es;
    } else {
      double v = tide_array_getlin(a, k);
      memcpy(tmp, &v, 8);
      p = tmp;
    }
    for (size_t b = 0; b < (contig ? es : 8); b++) {
      h ^= p[b];
      h *= 1099511628211ULL;
    }
  }
  char s[17];
  snprintf(s, sizeof s, "%016llx", (unsigned long long)h);
  lua_pushstring(L, s);
  return 1;
}

static int m_free(lua_State *L) {
  tide_array *a = tide_lua_takeobj(L, 1, TIDE_ARRAY_T);
  tide_array_release(a);
  return 0;
}

static int mm_gc(lua_State *L) { return m_free(L); }

static int mm_len(lua_State *L) {
  tide_array *a = self(L);
  lua_pushinteger(L, a->shape[0]);
  return 1;
}

static int mm_tostring(lua_State *L) {
  tide_array *a = tide_lua_testobj(L, 1, TIDE_ARRAY_T);
  if (!a) {
    lua_pushstring(L, "tide.Array (freed)");
    return 1;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char tmp[96];
  snprintf(tmp, sizeof tmp, "tide.Array %s (", tide_dtype_name(a->dtype));
  luaL_addstring(&b, tmp);
  for (int d = 0; d < a->ndim; d++) {
    snprintf(tmp, sizeof tmp, d ? ", %lld" : "%lld", (long long)a->shape[d]);
    luaL_addstring(&b, tmp);
  }
  luaL_addstring(&b, ")");
  if (tide_array_size(a) > 0) {
    double lo, hi;
    tide_array_minmax(a, &lo, &hi);
    int64_t bad = tide_array_nonfinite(a);
    snprintf(tmp, sizeof tmp, " range [%.6g, %.6g]", lo, hi);
    luaL_addstring(&b, tmp);
    if (bad) {
      snprintf(tmp, sizeof tmp, " (%lld non-finite)", (long long)bad);
      luaL_addstring(&b, tmp);
    }
  }
  if (!tide_array_contiguous(a)) luaL_addstring(&b, " view");
  luaL_pushresult(&b);
  return 1;
}

static const luaL_Reg methods[] = {
    {"get", m_get},         {"set", m_set},           {"fill", m_fill},     {"copy", m_copy},
    {"clone", m_clone},     {"scale", m_scale},       {"axpy", m_axpy},     {"dot", m_dot},
    {"sum", m_sum},         {"norm", m_norm},         {"min", m_min},       {"max", m_max},
    {"nonfinite", m_nonfinite}, {"size", m_size},     {"shape", m_shape},   {"slice", m_slice},
    {"select", m_select},   {"reshape", m_reshape},   {"totable", m_totable},
    {"checksum", m_checksum}, {"free", m_free},       {NULL, NULL}};

/* a.dtype, a.ndim, a.shape as fields; a[i] on a 1-d array; methods otherwise */
static int mm_index(lua_State *L) {
  tide_array *a = self(L);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    if (a->ndim != 1) {
      int64_t i = tide_lua_checkrange(L, 2, "Array[]", "index", 1, a->shape[0]);
      tide_array *v = tide_array_select(a, 0, i - 1);
      if (!v) tide_lua_check(L, TIDE_EINVAL, "Array[]");
      tide_lua_pusharray(L, v);
      return 1;
    }
    int64_t i = tide_lua_checkrange(L, 2, "Array[]", "index", 1, a->shape[0]) - 1;
    double v = tide_array_get(a, &i);
    if (a->dtype == TIDE_I32 || a->dtype == TIDE_U8)
      lua_pushinteger(L, (lua_Integer)v);
    else
      lua_pushnumber(L, v);
    return 1;
  }
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "dtype")) {
    lua_pushstring(L, tide_dtype_name(a->dtype));
    return 1;
  }
  if (!strcmp(k, "ndim")) {
    lua_pushinteger(L, a->ndim);
    return 1;
  }
  if (!strcmp(k, "shape")) return m_shape(L);
  luaL_getmetatable(L, TIDE_ARRAY_T);
  lua_getfield(L, -1, "methods");
  lua_getfield(L, -1, k);
  return 1;
}

static int mm_newindex(lua_State *L) {
  tide_array *a = self(L);
  if (a->ndim != 1) tide_lua_error(L, "Array[]: assignment by a[i] needs a 1-d array (use a:set(i, j, ..., v))");
  int64_t i = tide_lua_checkrange(L, 2, "Array[]", "index", 1, a->shape[0]) - 1;
  tide_array_set(a, &i, luaL_checknumber(L, 3));
  return 0;
}

static const luaL_Reg metamethods[] = {{"__gc", mm_gc},         {"__close", mm_gc},
                                       {"__len", mm_len},       {"__tostring", mm_tostring},
                                       {"__index", mm_index},   {"__newindex", mm_newindex},
                                       {NULL, NULL}};

static const luaL_Reg funcs[] = {{"zeros", l_zeros},     {"full", l_full}, {"from", l_from},
                                 {"linspace", l_linspace}, {NULL, NULL}};

/* Register the tide.Array metatable (idempotent): any binding may push an
 * array before tide.array itself was required. */
void tide_lua_array_register(lua_State *L) { tide_lua_newtype(L, TIDE_ARRAY_T, methods, metamethods); }

int luaopen_tide_array(lua_State *L) {
  tide_lua_array_register(L);
  luaL_newlib(L, funcs);
  return 1;
}
