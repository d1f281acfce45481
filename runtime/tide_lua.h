/*
 * tide_lua.h -- helpers for the thin Lua bindings (modules/<m>/lua_<m>.c).
 *
 * Only binding files include this header (and lua.h).  A binding checks its
 * arguments, unwraps userdata, calls the plain-C core and turns a failed
 * status into one Lua error:
 *
 *   static int l_solve(lua_State *L) {
 *     tide_opts o = tide_lua_opts(L, 1, "tide.linalg.solve", solve_keys);
 *     double tol = tide_opt_num(&o, "tol", 1e-8, 0, 1);
 *     ...
 *     tide_lua_check(L, tide_linalg_pcg(...), "tide.linalg.solve");
 *   }
 *
 * Errors raised with these helpers carry the calling scene's file:line.
 */
#ifndef TIDE_LUA_H
#define TIDE_LUA_H

#include "tide.h"

#include <lauxlib.h>
#include <lua.h>

/* Metatable names (shown in "tide.Array expected, got number") and what the
 * box of each holds, so any binding can unwrap any module's objects:
 *   tide.Array      tide_array *          (runtime/tide.h)
 *   tide.Grid       tide_grid *           (modules/grid/grid.h)
 *   tide.Mac        tide_mac *            (modules/grid/grid.h)
 *   tide.Particles  tide_particles *      (modules/liquid/particles.h)
 *   tide.Matrix     tide_csr *            (modules/linalg/linalg.h)
 *   tide.Factor     CHOLMOD/UMFPACK factor (modules/linalg/linalg.h)
 *   tide.TetMesh    tide_tetmesh *         (modules/solid/mesh.h)
 *   tide.Shape      tide_shape *           (modules/grid/sdf.h)  */
#define TIDE_ARRAY_T "tide.Array"
#define TIDE_GRID_T "tide.Grid"
#define TIDE_MAC_T "tide.Mac"
#define TIDE_PARTICLES_T "tide.Particles"
#define TIDE_MATRIX_T "tide.Matrix"
#define TIDE_FACTOR_T "tide.Factor"
#define TIDE_TETMESH_T "tide.TetMesh"
#define TIDE_SHAPE_T "tide.Shape"

/* ------------------------------------------------------------ objects */

/* Register a named metatable with methods (reached through __index) and
 * metamethods.  __name is set so wrong-type errors read naturally.  If the
 * metamethods do not give __index, methods become __index. */
void tide_lua_newtype(lua_State *L, const char *tname, const luaL_Reg *methods,
                      const luaL_Reg *metamethods);
/* Push a userdata box holding ptr with the metatable tname. */
void tide_lua_pushobj(lua_State *L, const char *tname, void *ptr);
/* The pointer held by the box at idx; raises "tname expected, got ..." or
 * "tname has been freed". */
void *tide_lua_checkobj(lua_State *L, int idx, const char *tname);
/* The pointer or NULL if idx is not a (live) box of tname. */
void *tide_lua_testobj(lua_State *L, int idx, const char *tname);
/* Take the pointer out of the box (for __gc/free); NULL if already freed. */
void *tide_lua_takeobj(lua_State *L, int idx, const char *tname);

/* Arrays: push takes over the caller's reference. */
void tide_lua_pusharray(lua_State *L, tide_array *a);
tide_array *tide_lua_checkarray(lua_State *L, int idx);
/* Push a view of the first n rows of a (rows of contiguous entries),
 * shaped (n, tail[0], ..., tail[ndim - 2]): per-particle attributes stored
 * with spare capacity. */
void tide_lua_pushrows(lua_State *L, tide_array *a, int64_t n, int ndim, const int64_t *tail);
/* Push the Lua list {v[0], ..., v[n-1]}. */
void tide_lua_pushnumbers(lua_State *L, const double *v, int n);
tide_array *tide_lua_testarray(lua_State *L, int idx);
/* Check a contiguous array of dtype t with shape (entries < 0 = any). */
tide_array *tide_lua_checkarrayof(lua_State *L, int idx, const char *what, tide_dtype t, int ndim,
                                  const int64_t *shape);

/* ------------------------------------------------------------- errors */

/* If status != TIDE_OK raise "<fname>: <message>" at the caller's position. */
void tide_lua_check(lua_State *L, int status, const char *fname);
/* Raise a formatted error at the position of the user's code: the first
 * stack frame (from the caller of the binding up) that is a Lua chunk outside
 * Tide's own library lua/tide/ (so an error raised for a scene's call through
 * a recipe like tide.flip names the scene's file:line, not flip.lua).  Never
 * returns. */
int tide_lua_error(lua_State *L, const char *fmt, ...);
/* Push "file:line: " of that frame, searching from level up (luaL_where's
 * answer for level when no such frame exists). */
void tide_lua_where(lua_State *L, int level);
/* Stack level of that frame, -1 if none. */
int tide_lua_userlevel(lua_State *L, int level);
/* An error message positioned inside the library ("flip.lua:235: ...", a
 * runtime error in a recipe) prefixed with the user's position
 * ("scene.lua:12: flip.lua:235: ..."), pushed; else msg unchanged (nothing
 * pushed).  For message handlers. */
const char *tide_lua_userposition(lua_State *L, const char *msg);
/* 1 when source (a lua_Debug source, "@path") is a chunk of Tide's library. */
int tide_lua_islibrary(lua_State *L, const char *source);
/* Record the library's Lua directory (<dir>/tide/ *.lua are library chunks). */
void tide_lua_setlibdir(lua_State *L, const char *dir);
/* luaL_error in the bindings reports the user's position too. */
#define luaL_error tide_lua_error
/* A finite number at idx (error names the argument otherwise). */
double tide_lua_checkfinite(lua_State *L, int idx, const char *fname, const char *what);
/* An integer in [lo, hi]. */
lua_Integer tide_lua_checkrange(lua_State *L, int idx, const char *fname, const char *what,
                                lua_Integer lo, lua_Integer hi);

/* Collect garbage when memory outside the Lua heap grew past a threshold
 * (called by constructors of big objects). */
void tide_lua_gcaccount(lua_State *L);

/* ------------------------------------------------ named-argument tables */

typedef struct tide_opts {
  lua_State *L;
  int idx;            /* absolute stack index of the table, 0 if absent */
  const char *fname;  /* function name for messages */
} tide_opts;

/* Check that idx holds a table (or nil/none when optional != 0) whose keys
 * are all in the NULL-terminated list keys; unknown keys raise an error
 * naming the key and the accepted ones. */
tide_opts tide_lua_opts(lua_State *L, int idx, const char *fname, const char *const *keys);
tide_opts tide_lua_optopts(lua_State *L, int idx, const char *fname, const char *const *keys);

int tide_opt_has(tide_opts *o, const char *key);
/* Typed getters: default when absent; range-checked; finite numbers only. */
double tide_opt_num(tide_opts *o, const char *key, double def, double lo, double hi);
lua_Integer tide_opt_int(tide_opts *o, const char *key, lua_Integer def, lua_Integer lo,
                         lua_Integer hi);
int tide_opt_bool(tide_opts *o, const char *key, int def);
const char *tide_opt_str(tide_opts *o, const char *key, const char *def);
/* Index of the value in the NULL-terminated list choices (default def). */
int tide_opt_choice(tide_opts *o, const char *key, const char *def, const char *const *choices);
/* Required variants raise "missing option 'key'" when absent. */
double tide_opt_reqnum(tide_opts *o, const char *key, double lo, double hi);
/* Array option, NULL when absent (nil). */
tide_array *tide_opt_array(tide_opts *o, const char *key);
tide_array *tide_opt_reqarray(tide_opts *o, const char *key);
/* Object option (metatable tname), NULL when absent. */
void *tide_opt_obj(tide_opts *o, const char *key, const char *tname);
void *tide_opt_reqobj(tide_opts *o, const char *key, const char *tname);
/* Fixed-length list of numbers {a, b, c}: fills out[0..n-1]; returns the
 * count found (between nmin and nmax) or raises.  0 when absent. */
int tide_opt_vec(tide_opts *o, const char *key, int nmin, int nmax, double *out);

/* Domain sides (open boundaries): nil/none -> 0, a side name or a list of
 * them, names "x-", "x+", "y-", "y+" and, when dim == 3, "z-", "z+".
 * Returns the bit mask with bit 2a + hi per side (axis a, hi = 1 for the
 * "+" side; TIDE_SIDE_BIT of modules/grid/grid.h).  Unknown names, z sides
 * in 2D and other types raise an error naming fname and what. */
unsigned tide_lua_checksides(lua_State *L, int idx, const char *fname, const char *what, int dim);
/* The same for option key of o (0 when absent). */
unsigned tide_opt_sides(tide_opts *o, const char *key, int dim);

/* Read a Lua list of numbers at idx into out (nmin..nmax entries); returns n. */
int tide_lua_checkvec(lua_State *L, int idx, const char *fname, const char *what, int nmin,
                      int nmax, double *out);

/* Register a native submodule: package.preload[name] = f. */
void tide_lua_preload(lua_State *L, const char *name, lua_CFunction f);

#endif
