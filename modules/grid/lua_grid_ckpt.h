/*
 * lua_grid_ckpt.h -- helpers of the __checkpoint / __restore hooks that let
 * native objects take part in tide.fileio.checkpoint / restore (see
 * modules/fileio/lua_fileio_ckpt.c and docs/output.md "Checkpoints").
 * Binding only (Lua).
 *
 * A hook's state table holds numbers, booleans, strings, lists of numbers
 * and tide.Arrays.  __restore receives such a table, possibly tampered
 * with, so every reader below checks its field and raises one Lua error
 * "<fn>: field 'key' ..." naming the type being restored.
 */
#ifndef TIDE_LUA_GRID_CKPT_H
#define TIDE_LUA_GRID_CKPT_H

#include "grid/grid.h"
#include "tide_lua.h"

/* The value at idx is a table whose keys are all in the NULL-terminated
 * list keys. */
void tide_ckpt_keys(lua_State *L, int idx, const char *fn, const char *const *keys);
/* Required fields of the table at idx. */
double tide_ckpt_num(lua_State *L, int idx, const char *fn, const char *key, double lo, double hi);
lua_Integer tide_ckpt_int(lua_State *L, int idx, const char *fn, const char *key, lua_Integer lo,
                          lua_Integer hi);
int tide_ckpt_bool(lua_State *L, int idx, const char *fn, const char *key);
/* A list of exactly n finite numbers into out. */
void tide_ckpt_vec(lua_State *L, int idx, const char *fn, const char *key, int n, double *out);
/* A contiguous array field of dtype t, rank ndim, extents shape (< 0: any);
 * finite != 0 also rejects NaN/inf (float dtypes).  optional != 0: NULL
 * when the field is absent. */
tide_array *tide_ckpt_array(lua_State *L, int idx, const char *fn, const char *key, tide_dtype t,
                            int ndim, const int64_t *shape, int finite, int optional);
/* Copy the values of src (checked to have dst's size and dtype) into dst. */
void tide_ckpt_copy(tide_array *dst, const tide_array *src);

/* Writers: set field key of the table at the top of the stack. */
void tide_ckpt_setnum(lua_State *L, const char *key, double v);
void tide_ckpt_setint(lua_State *L, const char *key, lua_Integer v);
void tide_ckpt_setvec(lua_State *L, const char *key, const double *v, int n);
/* stores a reference to a (shares memory; the checkpoint copies the values) */
void tide_ckpt_setarray(lua_State *L, const char *key, tide_array *a);

/* A grid as a state table {dim, size, dx, origin} (pushed), and back
 * (validated by tide_grid_init). */
void tide_ckpt_pushgrid(lua_State *L, const tide_grid *g);
void tide_ckpt_checkgrid(lua_State *L, int idx, const char *fn, tide_grid *g);

#endif
