/*
 * lua_fileio_ckpt.c -- tide.fileio.checkpoint / tide.fileio.restore.
 *
 * A checkpoint stores one Lua table: numbers (integers and floats exactly),
 * strings, booleans, nested tables (string or integer keys) and tide.Arrays
 * (dtype, shape and raw values), plus native objects that contribute their
 * state: a userdata whose metatable has __checkpoint(obj) -> table is stored
 * as (its __name, that table), and restored by the __restore(table) -> obj
 * function of the metatable registered under that name.
 *
 * Payload encoding (little endian), one tag byte per value:
 *   'F' false, 'T' true, 'i' int64, 'd' float64, 's' u64 length + bytes,
 *   't' u64 pair count + (key, value) pairs in sorted key order (integers
 *       ascending, then strings bytewise), 'a' u8 dtype, u8 ndim, int64
 *       shape[ndim], raw values in C order, 'o' u64 length + type name,
 *       then the state table.
 * The top level is a table {format = "tide checkpoint", tide = version,
 * data = the user's table}.  Writing validates everything first (raising
 * Lua errors before any file is touched), then streams the values into the
 * container of checkpoint.c.  Shared references are stored once per use.
 */
#include "tide_lua.h"

#include "fileio/fileio.h"
#include "fileio/lua_fileio_util.h"

#include <stdlib.h>
#include <string.h>

#define FN "tide.fileio"
#define MAXDEPTH 64

/* ------------------------------------------------------------ keys */

typedef struct ckey {
  int isint;
  lua_Integer i;
  const char *s;
  size_t len;
} ckey;

static int ckey_cmp(const void *a, const void *b) {
  const ckey *x = a, *y = b;
  if (x->isint != y->isint) return x->isint ? -1 : 1;
  if (x->isint) return x->i < y->i ? -1 : x->i > y->i;
  size_t m = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->s, y->s, m);
  return c ? c : (x->len < y->len ? -1 : x->len > y->len);
}

/* the keys of the table at idx, sorted, in a userdata pushed on the stack */
static ckey *sorted_keys(lua_State *L, int idx, size_t *n) {
  idx = lua_absindex(L, idx);
  size_t cnt = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    cnt++;
  }
  ckey *k = lua_newuserdatauv(L, sizeof(ckey) * (cnt ? cnt : 1), 0);
  size_t q = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_isinteger(L, -1)) {
      k[q].isint = 1;
      k[q].i = lua_tointeger(L, -1);
    } else {
      k[q].isint = 0;
      k[q].s = lua_tolstring(L, -1, &k[q].len); /* a string key (checked before) */
    }
    q++;
  }
  qsort(k, cnt, sizeof *k, ckey_cmp);
  *n = cnt;
  return k;
}

static void push_key(lua_State *L, const ckey *k) {
  if (k->isint)
    lua_pushinteger(L, k->i);
  else
    lua_pushlstring(L, k->s, k->len);
}

/* ---------------------------------------------------- validation pass */

typedef struct walker {
  lua_State *L;
  int cache;    /* table: object -> its __checkpoint state */
  int visiting; /* table: tables on the current path (cycles) */
  char path[512];
} walker;

static void path_push(walker *w, lua_State *L, int kidx, size_t *mark) {
  *mark = strlen(w->path);
  size_t room = sizeof w->path - *mark;
  if (lua_isinteger(L, kidx))
    snprintf(w->path + *mark, room, "[%lld]", (long long)lua_tointeger(L, kidx));
  else
    snprintf(w->path + *mark, room, ".%s", lua_tostring(L, kidx));
}

static void validate(walker *w, int idx, int depth) {
  lua_State *L = w->L;
  idx = lua_absindex(L, idx);
  const char *F = FN ".checkpoint";
  if (depth > MAXDEPTH)
    tide_lua_error(L, "%s: tables nested deeper than %d at %s", F, MAXDEPTH, w->path);
  switch (lua_type(L, idx)) {
  case LUA_TBOOLEAN:
  case LUA_TNUMBER:
  case LUA_TSTRING:
    return;
  case LUA_TTABLE: {
    lua_pushvalue(L, idx);
    if (lua_rawget(L, w->visiting) != LUA_TNIL)
      tide_lua_error(L, "%s: the table at %s contains itself (cycles cannot be stored)", F,
                     w->path);
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, w->visiting);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      int kt = lua_type(L, -2);
      if (!(kt == LUA_TSTRING || lua_isinteger(L, -2)))
        tide_lua_error(L, "%s: key of type %s at %s (only strings and integers)", F,
                       kt == LUA_TNUMBER ? "float" : luaL_typename(L, -2), w->path);
      size_t mark;
      path_push(w, L, -2, &mark);
      validate(w, -1, depth + 1);
      w->path[mark] = '\0';
      lua_pop(L, 1);
    }
    lua_pushvalue(L, idx);
    lua_pushnil(L);
    lua_rawset(L, w->visiting);
    return;
  }
  case LUA_TUSERDATA: {
    if (tide_lua_testarray(L, idx)) return;
    if (luaL_testudata(L, idx, TIDE_ARRAY_T))
      tide_lua_error(L, "%s: a freed tide.Array at %s", F, w->path);
    if (luaL_getmetafield(L, idx, "__checkpoint") == LUA_TNIL) {
      const char *tn =
          luaL_getmetafield(L, idx, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : "userdata";
      tide_lua_error(L, "%s: %s at %s cannot be stored (no __checkpoint)", F, tn, w->path);
    }
    if (luaL_getmetafield(L, idx, "__name") != LUA_TSTRING)
      tide_lua_error(L, "%s: object at %s has no type name (__name)", F, w->path);
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1); /* state = __checkpoint(obj) */
    if (!lua_istable(L, -1))
      tide_lua_error(L, "%s: __checkpoint of the object at %s returned %s, not a table", F, w->path,
                     luaL_typename(L, -1));
    validate(w, -1, depth + 1);
    lua_pushvalue(L, idx);
    lua_insert(L, -2);
    lua_rawset(L, w->cache);
    return;
  }
  default:
    tide_lua_error(L, "%s: a %s at %s cannot be stored", F, luaL_typename(L, idx), w->path);
  }
}

/* ------------------------------------------------------- writing pass */

static void put_u8(tide_ckpt_writer *c, uint8_t v) { tide_ckpt_put(c, &v, 1); }
static void put_u64(tide_ckpt_writer *c, uint64_t v) {
  uint8_t b[8];
  for (int k = 0; k < 8; k++)
    b[k] = (uint8_t)(v >> (8 * k));
  tide_ckpt_put(c, b, 8);
}
static void put_str(tide_ckpt_writer *c, const char *s, size_t n) {
  put_u64(c, n);
  tide_ckpt_put(c, s, n);
}

/* only after validate(): raises no error except on memory exhaustion */
static void write_value(walker *w, tide_ckpt_writer *c, int idx) {
  lua_State *L = w->L;
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
  case LUA_TBOOLEAN:
    put_u8(c, lua_toboolean(L, idx) ? 'T' : 'F');
    return;
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      put_u8(c, 'i');
      put_u64(c, (uint64_t)lua_tointeger(L, idx));
    } else {
      double d = lua_tonumber(L, idx);
      uint64_t bits;
      memcpy(&bits, &d, 8);
      put_u8(c, 'd');
      put_u64(c, bits);
    }
    return;
  case LUA_TSTRING: {
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    put_u8(c, 's');
    put_str(c, s, n);
    return;
  }
  case LUA_TTABLE: {
    size_t n;
    ckey *k = sorted_keys(L, idx, &n);
    put_u8(c, 't');
    put_u64(c, n);
    for (size_t q = 0; q < n; q++) {
      push_key(L, &k[q]);
      write_value(w, c, -1);
      lua_gettable(L, idx);
      write_value(w, c, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1); /* the keys */
    return;
  }
  case LUA_TUSERDATA: {
    tide_array *a = tide_lua_testarray(L, idx);
    if (a) {
      put_u8(c, 'a');
      put_u8(c, (uint8_t)a->dtype);
      put_u8(c, (uint8_t)a->ndim);
      for (int d = 0; d < a->ndim; d++)
        put_u64(c, (uint64_t)a->shape[d]);
      tide_array *cc =
          tide_array_contiguous(a) ? tide_array_retain(a) : tide_array_clone(a, a->dtype);
      if (!cc) {
        c->err = 1;
        return;
      }
      tide_ckpt_put(c, tide_array_ptr(cc),
                    (size_t)tide_array_size(cc) * tide_dtype_size(cc->dtype));
      tide_array_release(cc);
      return;
    }
    luaL_getmetafield(L, idx, "__name");
    size_t n;
    const char *tn = lua_tolstring(L, -1, &n);
    put_u8(c, 'o');
    put_str(c, tn, n);
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
    lua_rawget(L, w->cache);
    write_value(w, c, -1);
    lua_pop(L, 1);
    return;
  }
  default:
    c->err = 1; /* excluded by validate() */
  }
}

/* tide.fileio.checkpoint(path, table) */
static int l_checkpoint(lua_State *L) {
  const char *F = FN ".checkpoint";
  const char *path = tide_lua_fileio_path(L, 1, F);
  if (!lua_istable(L, 2))
    tide_lua_error(L, "%s: a table of values to store expected, got %s", F, luaL_typename(L, 2));
  lua_settop(L, 2);
  /* the stored top level */
  lua_createtable(L, 0, 3);
  lua_pushliteral(L, "tide checkpoint");
  lua_setfield(L, -2, "format");
  lua_pushstring(L, TIDE_VERSION);
  lua_setfield(L, -2, "tide");
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "data");
  int top = lua_gettop(L);
  walker w;
  w.L = L;
  lua_newtable(L);
  w.cache = lua_gettop(L);
  lua_newtable(L);
  w.visiting = lua_gettop(L);
  snprintf(w.path, sizeof w.path, "data");
  lua_pushvalue(L, 2);
  validate(&w, -1, 0);
  lua_pop(L, 1);
  tide_ckpt_writer c;
  tide_lua_check(L, tide_ckpt_begin(&c, path), F);
  write_value(&w, &c, top);
  tide_lua_check(L, tide_ckpt_end(&c), F);
  lua_pushstring(L, path);
  return 1;
}

/* ------------------------------------------------------------ reading */

typedef struct reader {
  const uint8_t *p, *end;
  const char *path;
} reader;

typedef struct payload_box {
  uint8_t *p;
} payload_box;

static int payload_gc(lua_State *L) {
  payload_box *b = lua_touserdata(L, 1);
  free(b->p);
  b->p = NULL;
  return 0;
}

static void need(lua_State *L, reader *r, uint64_t n) {
  if ((uint64_t)(r->end - r->p) < n)
    tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: payload ends early", r->path);
}
static uint8_t get_u8(lua_State *L, reader *r) {
  need(L, r, 1);
  return *r->p++;
}
static uint64_t get_u64(lua_State *L, reader *r) {
  need(L, r, 8);
  uint64_t v = 0;
  for (int k = 0; k < 8; k++)
    v |= (uint64_t)r->p[k] << (8 * k);
  r->p += 8;
  return v;
}

static void read_value(lua_State *L, reader *r, int depth) {
  if (depth > MAXDEPTH + 2)
    tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: nesting too deep", r->path);
  luaL_checkstack(L, 8, "restore");
  uint8_t tag = get_u8(L, r);
  switch (tag) {
  case 'F':
  case 'T':
    lua_pushboolean(L, tag == 'T');
    return;
  case 'i':
    lua_pushinteger(L, (lua_Integer)get_u64(L, r));
    return;
  case 'd': {
    uint64_t bits = get_u64(L, r);
    double d;
    memcpy(&d, &bits, 8);
    lua_pushnumber(L, d);
    return;
  }
  case 's': {
    uint64_t n = get_u64(L, r);
    need(L, r, n);
    lua_pushlstring(L, (const char *)r->p, (size_t)n);
    r->p += n;
    return;
  }
  case 't': {
    uint64_t n = get_u64(L, r);
    need(L, r, 2 * n); /* at least two tag bytes per pair */
    lua_createtable(L, 0, n < 1024 ? (int)n : 1024);
    for (uint64_t q = 0; q < n; q++) {
      read_value(L, r, depth + 1);
      if (!lua_isinteger(L, -1) && lua_type(L, -1) != LUA_TSTRING)
        tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: bad table key", r->path);
      read_value(L, r, depth + 1);
      lua_rawset(L, -3);
    }
    return;
  }
  case 'a': {
    uint8_t dt = get_u8(L, r), nd = get_u8(L, r);
    if (dt > TIDE_U8 || nd < 1 || nd > TIDE_MAXDIM)
      tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: bad array header", r->path);
    int64_t shape[TIDE_MAXDIM];
    uint64_t count = 1;
    for (int d = 0; d < nd; d++) {
      uint64_t e = get_u64(L, r);
      if (e > ((uint64_t)1 << 40))
        tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: bad array shape", r->path);
      shape[d] = (int64_t)e;
      count *= e;
      if (count > ((uint64_t)1 << 40))
        tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: array too large", r->path);
    }
    uint64_t bytes = count * tide_dtype_size((tide_dtype)dt);
    need(L, r, bytes);
    tide_array *a = tide_array_new((tide_dtype)dt, nd, shape);
    if (!a) tide_lua_error(L, FN ".restore: %s", tide_errmsg());
    if (bytes) memcpy(tide_array_ptr(a), r->p, (size_t)bytes);
    r->p += bytes;
    tide_lua_pusharray(L, a);
    return;
  }
  case 'o': {
    uint64_t n = get_u64(L, r);
    need(L, r, n);
    lua_pushlstring(L, (const char *)r->p, (size_t)n);
    r->p += n;
    const char *tn = lua_tostring(L, -1);
    read_value(L, r, depth + 1); /* the state table */
    if (luaL_getmetatable(L, tn) != LUA_TTABLE || lua_getfield(L, -1, "__restore") != LUA_TFUNCTION)
      tide_lua_error(L,
                     FN ".restore: checkpoint '%s' holds a %s, which has no __restore in this Tide "
                        "(load its module first)",
                     r->path, tn);
    lua_remove(L, -2); /* metatable */
    lua_insert(L, -2); /* __restore, state */
    lua_call(L, 1, 1);
    lua_remove(L, -2); /* the type name */
    return;
  }
  default:
    tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: unknown value tag %d", r->path,
                   tag);
  }
}

/* tide.fileio.restore(path) -> data, info {tide = version written by};
 * nil, message when the file does not exist; errors when it is damaged */
static int l_restore(lua_State *L) {
  const char *path = tide_lua_fileio_path(L, 1, FN ".restore");
  payload_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->p = NULL;
  lua_newtable(L);
  lua_pushcfunction(L, payload_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  size_t n;
  if (tide_path_allowed(path, 0)) tide_lua_error(L, FN ".restore: %s", tide_errmsg()); /* before probing */
  FILE *exists = fopen(path, "rb");
  if (!exists) { /* an expected failure (no checkpoint yet): nil, message */
    lua_pushnil(L);
    lua_pushfstring(L, "no checkpoint '%s'", path);
    return 2;
  }
  fclose(exists);
  tide_lua_check(L, tide_ckpt_read(path, &b->p, &n), FN ".restore");
  reader r = {b->p, b->p + n, path};
  read_value(L, &r, 0);
  if (r.p != r.end || !lua_istable(L, -1))
    tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: trailing payload bytes", path);
  int top = lua_gettop(L);
  lua_getfield(L, top, "format");
  if (!lua_isstring(L, -1) || strcmp(lua_tostring(L, -1), "tide checkpoint") != 0)
    tide_lua_error(L, FN ".restore: '%s' holds no Tide checkpoint data", path);
  if (lua_getfield(L, top, "data") != LUA_TTABLE)
    tide_lua_error(L, FN ".restore: checkpoint '%s' is corrupted: its data is a %s, not a table",
                   path, luaL_typename(L, -1));
  lua_createtable(L, 0, 1);
  lua_getfield(L, top, "tide");
  lua_setfield(L, -2, "tide");
  free(b->p); /* decoded: release the payload now rather than at collection */
  b->p = NULL;
  return 2;
}

static const luaL_Reg funcs_ckpt[] = {
    {"checkpoint", l_checkpoint}, {"restore", l_restore}, {NULL, NULL}};

void tide_lua_fileio_ckpt_open(lua_State *L) { luaL_setfuncs(L, funcs_ckpt, 0); }
