/* lua_util.c -- shared helpers of the Lua bindings (see tide_lua.h). */
#include "tide_lua.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct box {
  void *p;
} box;

static int get_field(lua_State *L) {
  lua_gettable(L, 1);
  return 1;
}

/* obj.k = v on an object without settable fields: say what k is and how to
 * change it, instead of Lua's "attempt to index a tide.X value". */
static int default_newindex(lua_State *L) {
  const char *tname = luaL_typename(L, 1);
  if (luaL_getmetafield(L, 1, "__name") == LUA_TSTRING) tname = lua_tostring(L, -1);
  if (lua_type(L, 2) != LUA_TSTRING)
    return tide_lua_error(L, "%s: fields cannot be assigned (it has no settable fields; use its methods)", tname);
  const char *k = lua_tostring(L, 2);
  lua_pushcfunction(L, get_field);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  int ok = lua_pcall(L, 2, 1, 0) == LUA_OK;
  if (ok && tide_lua_testarray(L, -1))
    return tide_lua_error(L,
                          "%s: field '%s' cannot be assigned: it is a view of the object's data; write "
                          "into it with obj.%s:copy(array), obj.%s:fill(value) or obj.%s:set(i, ..., v)",
                          tname, k, k, k, k);
  if (ok && lua_isfunction(L, -1))
    return tide_lua_error(L, "%s: '%s' is a method and cannot be assigned", tname, k);
  if (ok && !lua_isnil(L, -1))
    return tide_lua_error(L, "%s: field '%s' is read-only (set it through the constructor's options or the methods)",
                          tname, k);
  return tide_lua_error(L, "%s has no field '%s' (its fields cannot be assigned; use its methods)", tname, k);
}

void tide_lua_newtype(lua_State *L, const char *tname, const luaL_Reg *methods,
                      const luaL_Reg *metamethods) {
  if (!luaL_newmetatable(L, tname)) {
    lua_pop(L, 1);
    return;
  }
  if (metamethods) luaL_setfuncs(L, metamethods, 0);
  if (lua_getfield(L, -1, "__newindex") == LUA_TNIL) {
    lua_pushcfunction(L, default_newindex);
    lua_setfield(L, -3, "__newindex");
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "__index");
  int has_index = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (methods) {
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    if (!has_index) {
      lua_setfield(L, -2, "__index");
    } else {
      lua_setfield(L, -2, "methods");
    }
  }
  lua_pop(L, 1);
}

void tide_lua_pushobj(lua_State *L, const char *tname, void *ptr) {
  box *b = lua_newuserdatauv(L, sizeof *b, 1);
  b->p = ptr;
  luaL_setmetatable(L, tname);
}

void *tide_lua_checkobj(lua_State *L, int idx, const char *tname) {
  box *b = luaL_checkudata(L, idx, tname);
  if (!b->p) tide_lua_error(L, "%s has been freed", tname);
  return b->p;
}

void *tide_lua_testobj(lua_State *L, int idx, const char *tname) {
  box *b = luaL_testudata(L, idx, tname);
  return b ? b->p : NULL;
}

void *tide_lua_takeobj(lua_State *L, int idx, const char *tname) {
  box *b = luaL_checkudata(L, idx, tname);
  void *p = b->p;
  b->p = NULL;
  return p;
}

void tide_lua_array_register(lua_State *L); /* lua_array.c */

void tide_lua_pusharray(lua_State *L, tide_array *a) {
  if (luaL_getmetatable(L, TIDE_ARRAY_T) == LUA_TNIL) tide_lua_array_register(L);
  lua_pop(L, 1);
  tide_lua_pushobj(L, TIDE_ARRAY_T, a);
  tide_lua_gcaccount(L);
}

void tide_lua_pushrows(lua_State *L, tide_array *a, int64_t n, int ndim, const int64_t *tail) {
  tide_array *s = tide_array_slice(a, 0, 0, n, 1);
  int64_t shape[4] = {n, 1, 1, 1};
  for (int k = 1; k < ndim && k < 4; k++)
    shape[k] = tail[k - 1];
  tide_array *r = s ? tide_array_reshape(s, ndim, shape) : NULL;
  tide_array_release(s);
  if (!r) tide_lua_error(L, "%s", tide_errmsg());
  tide_lua_pusharray(L, r);
}

void tide_lua_pushnumbers(lua_State *L, const double *v, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushnumber(L, v[k]);
    lua_rawseti(L, -2, k + 1);
  }
}

tide_array *tide_lua_checkarray(lua_State *L, int idx) {
  return tide_lua_checkobj(L, idx, TIDE_ARRAY_T);
}

tide_array *tide_lua_testarray(lua_State *L, int idx) { return tide_lua_testobj(L, idx, TIDE_ARRAY_T); }

tide_array *tide_lua_checkarrayof(lua_State *L, int idx, const char *what, tide_dtype t, int ndim,
                                  const int64_t *shape) {
  tide_array *a = tide_lua_checkarray(L, idx);
  int st = tide_array_expect(a, what, t, ndim, shape);
  if (st) tide_lua_error(L, "%s", tide_errmsg());
  return a;
}

/* ------------------------------------------------------------- errors */

/* Chunks of Tide's own Lua library ("@<lua dir>/tide/..."), whose frames
 * error positions skip: the registry holds the prefix (tide_lua_openall). */
#define LIBSRC_KEY "tide.libsrc"

void tide_lua_setlibdir(lua_State *L, const char *dir) {
  lua_pushfstring(L, "@%s/tide/", dir);
  lua_setfield(L, LUA_REGISTRYINDEX, LIBSRC_KEY);
}

int tide_lua_islibrary(lua_State *L, const char *source) {
  lua_getfield(L, LUA_REGISTRYINDEX, LIBSRC_KEY);
  const char *lib = lua_tostring(L, -1);
  int r = lib && source && strncmp(source, lib, strlen(lib)) == 0;
  lua_pop(L, 1);
  return r;
}

int tide_lua_userlevel(lua_State *L, int level) {
  lua_Debug ar;
  for (int l = level; lua_getstack(L, l, &ar); l++) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline <= 0) continue; /* a C function: no position */
    if (tide_lua_islibrary(L, ar.source)) continue;
    return l;
  }
  return -1;
}

/* An error raised inside Tide's Lua library (a runtime error in a recipe,
 * "flip.lua:235: attempt to ...") also names the scene's line that led
 * there: "scene.lua:12: flip.lua:235: attempt to ...". */
const char *tide_lua_userposition(lua_State *L, const char *msg) {
  int user = tide_lua_userlevel(L, 1);
  if (user < 0) return msg;
  lua_Debug ar;
  for (int l = 1; l < user && lua_getstack(L, l, &ar); l++) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline <= 0 || !tide_lua_islibrary(L, ar.source)) continue;
    const char *pos = lua_pushfstring(L, "%s:%d:", ar.short_src, ar.currentline);
    int match = strncmp(msg, pos, strlen(pos)) == 0;
    lua_pop(L, 1);
    if (match) {
      luaL_where(L, user);
      lua_pushstring(L, msg);
      lua_concat(L, 2);
      return lua_tostring(L, -1);
    }
  }
  return msg;
}

void tide_lua_where(lua_State *L, int level) {
  int l = tide_lua_userlevel(L, level);
  luaL_where(L, l >= 0 ? l : level);
}

int tide_lua_error(lua_State *L, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tide_lua_where(L, 1);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_concat(L, 2);
  return lua_error(L);
}

void tide_lua_check(lua_State *L, int status, const char *fname) {
  if (status == TIDE_OK) return;
  if (status == TIDE_EINTR) {
    int sig = tide_interrupt_flag;
    tide_interrupt_clear();
    if (sig == 15) tide_lua_error(L, "%s: %s: terminated (SIGTERM)", fname, tide_errmsg());
    if (sig == 14) tide_lua_error(L, "%s: %s: sandbox: time limit reached", fname, tide_errmsg());
  }
  tide_lua_error(L, "%s: %s", fname, tide_errmsg());
}

double tide_lua_checkfinite(lua_State *L, int idx, const char *fname, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    tide_lua_error(L, "%s: %s must be a number, got %s", fname, what, luaL_typename(L, idx));
  double v = lua_tonumber(L, idx);
  if (!isfinite(v)) tide_lua_error(L, "%s: %s must be finite, got %f", fname, what, v);
  return v;
}

lua_Integer tide_lua_checkrange(lua_State *L, int idx, const char *fname, const char *what,
                                lua_Integer lo, lua_Integer hi) {
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, idx, &isint);
  if (!isint)
    tide_lua_error(L, "%s: %s must be an integer, got %s", fname, what,
                   lua_type(L, idx) == LUA_TNUMBER ? "a non-integral number" : luaL_typename(L, idx));
  if (v < lo || v > hi)
    tide_lua_error(L, "%s: %s must be in %I..%I, got %I", fname, what, lo, hi, v);
  return v;
}

void tide_lua_gcaccount(lua_State *L) {
  static const char key[] = "tide.gcmark";
  int64_t now = tide_mem_bytes();
  lua_getfield(L, LUA_REGISTRYINDEX, key);
  int64_t mark = (int64_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  /* collect when external memory doubled (and is at least 64 MB) since the
   * last collection; follow it down when objects were freed explicitly */
  if (now > 2 * mark && now > ((int64_t)64 << 20)) {
    lua_gc(L, LUA_GCCOLLECT);
    mark = tide_mem_bytes();
  } else if (now < mark) {
    mark = now;
  }
  lua_pushinteger(L, mark);
  lua_setfield(L, LUA_REGISTRYINDEX, key);
}

/* ------------------------------------------------ named-argument tables */

static tide_opts opts_common(lua_State *L, int idx, const char *fname, const char *const *keys,
                             int optional) {
  tide_opts o = {L, 0, fname};
  idx = lua_absindex(L, idx);
  if (optional && lua_isnoneornil(L, idx)) return o;
  if (lua_type(L, idx) != LUA_TTABLE)
    tide_lua_error(L, "%s: table of named arguments expected, got %s", fname, luaL_typename(L, idx));
  o.idx = idx;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    int ok = 0;
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      for (const char *const *p = keys; *p; p++)
        if (!strcmp(*p, k)) {
          ok = 1;
          break;
        }
    }
    if (!ok) {
      luaL_Buffer b;
      luaL_buffinit(L, &b);
      for (const char *const *p = keys; *p; p++) {
        if (p != keys) luaL_addstring(&b, ", ");
        luaL_addstring(&b, *p);
      }
      luaL_pushresult(&b);
      const char *list = lua_tostring(L, -1);
      if (lua_type(L, -2) == LUA_TSTRING)
        tide_lua_error(L, "%s: unknown option '%s' (accepted: %s)", fname, lua_tostring(L, -2), list);
      else
        tide_lua_error(L, "%s: unexpected positional entry in options (accepted: %s)", fname, list);
    }
  }
  return o;
}

tide_opts tide_lua_opts(lua_State *L, int idx, const char *fname, const char *const *keys) {
  return opts_common(L, idx, fname, keys, 0);
}
tide_opts tide_lua_optopts(lua_State *L, int idx, const char *fname, const char *const *keys) {
  return opts_common(L, idx, fname, keys, 1);
}

/* push o[key]; returns 0 (and pushes nothing) when absent */
static int opt_get(tide_opts *o, const char *key) {
  if (!o->idx) return 0;
  if (lua_getfield(o->L, o->idx, key) == LUA_TNIL) {
    lua_pop(o->L, 1);
    return 0;
  }
  return 1;
}

int tide_opt_has(tide_opts *o, const char *key) {
  if (!opt_get(o, key)) return 0;
  lua_pop(o->L, 1);
  return 1;
}

static void opt_typeerr(tide_opts *o, const char *key, const char *want) {
  tide_lua_error(o->L, "%s: option '%s' must be %s, got %s", o->fname, key, want,
                 luaL_typename(o->L, -1));
}

double tide_opt_num(tide_opts *o, const char *key, double def, double lo, double hi) {
  if (!opt_get(o, key)) return def;
  if (lua_type(o->L, -1) != LUA_TNUMBER) opt_typeerr(o, key, "a number");
  double v = lua_tonumber(o->L, -1);
  lua_pop(o->L, 1);
  if (!isfinite(v)) tide_lua_error(o->L, "%s: option '%s' must be finite, got %f", o->fname, key, v);
  if (v < lo || v > hi) { /* lua_pushfstring has no %g: format the numbers here */
    char range[96];
    snprintf(range, sizeof range, "[%g, %g], got %g", lo, hi, v);
    tide_lua_error(o->L, "%s: option '%s' must be in %s", o->fname, key, range);
  }
  return v;
}

double tide_opt_reqnum(tide_opts *o, const char *key, double lo, double hi) {
  if (!tide_opt_has(o, key)) tide_lua_error(o->L, "%s: missing option '%s'", o->fname, key);
  return tide_opt_num(o, key, 0, lo, hi);
}

lua_Integer tide_opt_int(tide_opts *o, const char *key, lua_Integer def, lua_Integer lo,
                         lua_Integer hi) {
  if (!opt_get(o, key)) return def;
  int isint = 0;
  lua_Integer v = lua_tointegerx(o->L, -1, &isint);
  if (!isint) opt_typeerr(o, key, "an integer");
  lua_pop(o->L, 1);
  if (v < lo || v > hi)
    tide_lua_error(o->L, "%s: option '%s' must be in %I..%I, got %I", o->fname, key, lo, hi, v);
  return v;
}

int tide_opt_bool(tide_opts *o, const char *key, int def) {
  if (!opt_get(o, key)) return def;
  if (lua_type(o->L, -1) != LUA_TBOOLEAN) opt_typeerr(o, key, "a boolean");
  int v = lua_toboolean(o->L, -1);
  lua_pop(o->L, 1);
  return v;
}

const char *tide_opt_str(tide_opts *o, const char *key, const char *def) {
  if (!opt_get(o, key)) return def;
  if (lua_type(o->L, -1) != LUA_TSTRING) opt_typeerr(o, key, "a string");
  const char *s = lua_tostring(o->L, -1);
  lua_pop(o->L, 1); /* still referenced by the options table */
  return s;
}

int tide_opt_choice(tide_opts *o, const char *key, const char *def, const char *const *choices) {
  const char *s = tide_opt_str(o, key, def);
  for (int i = 0; choices[i]; i++)
    if (!strcmp(s, choices[i])) return i;
  luaL_Buffer b;
  luaL_buffinit(o->L, &b);
  for (int i = 0; choices[i]; i++) {
    if (i) luaL_addstring(&b, ", ");
    luaL_addstring(&b, choices[i]);
  }
  luaL_pushresult(&b);
  return tide_lua_error(o->L, "%s: option '%s' must be one of %s, got '%s'", o->fname, key,
                        lua_tostring(o->L, -1), s);
}

tide_array *tide_opt_array(tide_opts *o, const char *key) {
  if (!opt_get(o, key)) return NULL;
  tide_array *a = tide_lua_testarray(o->L, -1);
  if (!a) opt_typeerr(o, key, "a " TIDE_ARRAY_T);
  lua_pop(o->L, 1);
  return a;
}

tide_array *tide_opt_reqarray(tide_opts *o, const char *key) {
  tide_array *a = tide_opt_array(o, key);
  if (!a) tide_lua_error(o->L, "%s: missing option '%s'", o->fname, key);
  return a;
}

void *tide_opt_obj(tide_opts *o, const char *key, const char *tname) {
  if (!opt_get(o, key)) return NULL;
  void *p = tide_lua_testobj(o->L, -1, tname);
  if (!p) {
    char want[128];
    snprintf(want, sizeof want, "a %s", tname);
    opt_typeerr(o, key, want);
  }
  lua_pop(o->L, 1);
  return p;
}

void *tide_opt_reqobj(tide_opts *o, const char *key, const char *tname) {
  void *p = tide_opt_obj(o, key, tname);
  if (!p) tide_lua_error(o->L, "%s: missing option '%s'", o->fname, key);
  return p;
}

int tide_lua_checkvec(lua_State *L, int idx, const char *fname, const char *what, int nmin,
                      int nmax, double *out) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE)
    tide_lua_error(L, "%s: %s must be a list of %d..%d numbers, got %s", fname, what, nmin, nmax,
                   luaL_typename(L, idx));
  lua_Integer n = luaL_len(L, idx);
  if (n < nmin || n > nmax)
    tide_lua_error(L, "%s: %s must have %d..%d entries, got %I", fname, what, nmin, nmax, n);
  for (int i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    if (lua_type(L, -1) != LUA_TNUMBER)
      tide_lua_error(L, "%s: %s[%d] must be a number, got %s", fname, what, i + 1,
                     luaL_typename(L, -1));
    out[i] = lua_tonumber(L, -1);
    if (!isfinite(out[i])) tide_lua_error(L, "%s: %s[%d] must be finite", fname, what, i + 1);
    lua_pop(L, 1);
  }
  return (int)n;
}

int tide_opt_vec(tide_opts *o, const char *key, int nmin, int nmax, double *out) {
  if (!opt_get(o, key)) return 0;
  char what[96];
  snprintf(what, sizeof what, "option '%s'", key);
  int n = tide_lua_checkvec(o->L, -1, o->fname, what, nmin, nmax, out);
  lua_pop(o->L, 1);
  return n;
}

/* bit of one side name, or -1 */
static int side_bit(const char *s, int dim) {
  static const char *const names[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
  for (int b = 0; b < 2 * dim; b++)
    if (!strcmp(s, names[b])) return b;
  return -1;
}

unsigned tide_lua_checksides(lua_State *L, int idx, const char *fname, const char *what, int dim) {
  idx = lua_absindex(L, idx);
  const char *list = dim == 3 ? "x-, x+, y-, y+, z-, z+" : "x-, x+, y-, y+";
  if (lua_isnoneornil(L, idx)) return 0;
  if (lua_type(L, idx) == LUA_TSTRING) {
    int b = side_bit(lua_tostring(L, idx), dim);
    if (b < 0)
      tide_lua_error(L, "%s: %s: unknown side '%s' (sides of a %dD domain: %s)", fname, what,
                     lua_tostring(L, idx), dim, list);
    return 1u << b;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    tide_lua_error(L, "%s: %s must be a side name or a list of them (%s), got %s", fname, what,
                   list, luaL_typename(L, idx));
  lua_Integer n = luaL_len(L, idx);
  unsigned mask = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    if (lua_type(L, -1) != LUA_TSTRING)
      tide_lua_error(L, "%s: %s[%I] must be a side name (%s), got %s", fname, what, i, list,
                     luaL_typename(L, -1));
    int b = side_bit(lua_tostring(L, -1), dim);
    if (b < 0)
      tide_lua_error(L, "%s: %s: unknown side '%s' (sides of a %dD domain: %s)", fname, what,
                     lua_tostring(L, -1), dim, list);
    mask |= 1u << b;
    lua_pop(L, 1);
  }
  /* only a list: a table with other keys is a mistake ({xmax = "open"}) */
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    lua_Integer k = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
    if (k < 1 || k > n)
      tide_lua_error(L, "%s: %s must be a list of side names (%s)", fname, what, list);
  }
  return mask;
}

unsigned tide_opt_sides(tide_opts *o, const char *key, int dim) {
  if (!opt_get(o, key)) return 0;
  char what[96];
  snprintf(what, sizeof what, "option '%s'", key);
  unsigned m = tide_lua_checksides(o->L, -1, o->fname, what, dim);
  lua_pop(o->L, 1);
  return m;
}

void tide_lua_preload(lua_State *L, const char *name, lua_CFunction f) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, f);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}
