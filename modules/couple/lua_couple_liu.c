/* lua_couple_liu.c -- tide.couple functions of the liu coupling (see couple.h,
 * liu.h and docs/couple-liu.md). */
#include "couple/couple.h"
#include "couple/liu.h"
#include "tide_lua.h"

static const char *const interp_names[] = {"linear", "quadratic", NULL};

/* x: an f64 array {n, dim} of vertex positions (contiguous). */
static tide_array *check_points(lua_State *L, tide_opts *o, const char *key, const tide_grid *g,
                                const char *fn) {
  tide_array *x = tide_opt_reqarray(o, key);
  int64_t shape[2] = {-1, g->dim};
  tide_lua_check(L, tide_array_expect(x, key, TIDE_F64, 2, shape), fn);
  return x;
}

/* tide.couple.liu_distance{ grid = g, phi = phi, x = X [, interp = "quadratic"] }
 *   -> d (f64 {n}): the distance of Liu Eq. 14-16 of every vertex (rows of X,
 *   {n, dim} in metres) to the liquid {phi < 0}, > 0 outside it. */
static int l_liu_distance(lua_State *L) {
  const char *fn = "tide.couple.liu_distance";
  static const char *const keys[] = {"grid", "phi", "x", "interp", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_reqarray(&o, "phi");
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  tide_array *x = check_points(L, &o, "x", g, fn);
  int interp = 1 + tide_opt_choice(&o, "interp", "quadratic", interp_names);
  tide_array *d = tide_array_new1(TIDE_F64, x->shape[0]);
  if (!d) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, d);
  tide_lua_check(
      L, tide_liu_distances(g, TIDE_F64P(phi), interp, x->shape[0], TIDE_F64P(x), TIDE_F64P(d)),
      fn);
  return 1;
}

static const luaL_Reg funcs[] = {{"liu_distance", l_liu_distance}, {NULL, NULL}};

void tide_lua_couple_liu_open(lua_State *L, int module) {
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
