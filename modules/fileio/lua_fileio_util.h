/* lua_fileio_util.h -- helpers shared by the tide.fileio binding files
 * (lua_fileio*.c only; includes Lua). */
#ifndef TIDE_LUA_FILEIO_UTIL_H
#define TIDE_LUA_FILEIO_UTIL_H

#include "tide_lua.h"

/* The values of array a (any dtype, any strides) as contiguous doubles,
 * after checking ndim and shape (entries < 0 match any extent).  A converted
 * copy is pushed on the Lua stack (so the garbage collector owns it) and
 * stays valid until the calling C function returns. */
const double *tide_lua_fileio_f64(lua_State *L, tide_array *a, const char *fname, const char *what,
                                  int ndim, const int64_t *shape);
/* Colour option {r, g, b} in [0, 1] (def when absent). */
void tide_lua_fileio_color(tide_opts *o, const char *key, const float def[3], float out[3]);
/* Colour-map option by name (index into tide_cmap_names). */
int tide_lua_fileio_cmap(tide_opts *o, const char *key, const char *def);
/* Range option {lo, hi} with lo < hi; 0 when absent. */
int tide_lua_fileio_range(tide_opts *o, const char *key, double out[2]);
/* Range of the finite values (widened when flat); 0 when there are none. */
int tide_lua_fileio_autorange(const double *v, int64_t n, double out[2]);

/* Connectivity array a (m, k) of integral values as 0-based int32 indices
 * (after subtracting base), each checked against nv vertices; the copy is
 * pushed on the Lua stack.  *m receives the row count. */
const int32_t *tide_lua_fileio_index(lua_State *L, tide_array *a, const char *fname,
                                     const char *what, int k, int64_t nv, int base, int64_t *m);
/* Registration of the other binding parts into the module table on top of
 * the stack. */
void tide_lua_fileio_3d_open(lua_State *L);
void tide_lua_fileio_data_open(lua_State *L);
void tide_lua_fileio_ckpt_open(lua_State *L);
void tide_lua_fileio_plot_open(lua_State *L);
/* A file name argument at idx: a non-empty string (numbers not coerced). */
const char *tide_lua_fileio_path(lua_State *L, int idx, const char *fname);

/* Option key as point positions: a tide.Array (n, d) or a tide.Particles
 * (its positions; *vel, may be NULL, receives its velocities, else NULL).
 * NULL when absent. */
tide_array *tide_lua_fileio_points(tide_opts *o, const char *key, tide_array **vel);
/* Per-point values of option key: an array (n) or the string "speed" (the
 * norm of the velocities vel, which may be NULL: then an error).  NULL when
 * absent. */
const double *tide_lua_fileio_attribute(tide_opts *o, const char *key, int64_t n, tide_array *vel);
/* The colour bar's label: option colorbar_label, else "speed [m/s]" when the
 * option key (may be NULL) is "speed", else NULL. */
const char *tide_lua_fileio_barlabel(tide_opts *o, const char *key);
/* The tide_tetmesh at idx or NULL (modules/solid/mesh.h). */
struct tide_tetmesh *tide_lua_fileio_mesh(lua_State *L, int idx);

#endif
