/*
 * lua_liquid_ckpt.c -- checkpoint hooks of tide.Particles (see
 * docs/output.md "Checkpoints"):
 *   {dim, apic, capacity, x (n, dim), v (n, dim)[, c (n, dim, dim)]}
 * The sort-by-cell workspace is rebuilt on the next transfer.
 */
#include "grid/lua_grid_ckpt.h"
#include "liquid/lua_liquid.h"
#include "liquid/particles.h"

static int ps_checkpoint(lua_State *L) {
  tide_particles *ps = tide_lua_checkobj(L, 1, TIDE_PARTICLES_T);
  lua_createtable(L, 0, 6);
  tide_ckpt_setint(L, "dim", ps->dim);
  lua_pushboolean(L, ps->apic);
  lua_setfield(L, -2, "apic");
  tide_ckpt_setint(L, "capacity", ps->cap);
  tide_ckpt_setarray(L, "x", ps->x);
  tide_ckpt_setarray(L, "v", ps->v);
  if (ps->apic) tide_ckpt_setarray(L, "c", ps->c);
  return 1;
}

static const char *const ps_keys[] = {"dim", "apic", "capacity", "x", "v", "c", NULL};

static int ps_restore(lua_State *L) {
  const char *fn = "tide.fileio.restore (tide.Particles)";
  tide_ckpt_keys(L, 1, fn, ps_keys);
  int dim = (int)tide_ckpt_int(L, 1, fn, "dim", 2, 3);
  int apic = tide_ckpt_bool(L, 1, fn, "apic");
  int64_t cap = tide_ckpt_int(L, 1, fn, "capacity", 0, (lua_Integer)1 << 36);
  int64_t sx[2] = {-1, dim};
  tide_array *x = tide_ckpt_array(L, 1, fn, "x", TIDE_F64, 2, sx, 1, 0);
  int64_t n = x->shape[0];
  int64_t sv[2] = {n, dim}, sc[3] = {n, dim, dim};
  tide_array *v = tide_ckpt_array(L, 1, fn, "v", TIDE_F64, 2, sv, 1, 0);
  tide_array *c = tide_ckpt_array(L, 1, fn, "c", TIDE_F64, 3, sc, 1, !apic);
  if (!apic && c) tide_lua_error(L, "%s: field 'c' given but 'apic' is false", fn);
  if (cap < n) tide_lua_error(L, "%s: capacity %I is below the particle count %I", fn,
                              (lua_Integer)cap, (lua_Integer)n);
  /* the capacity is only a reserve (storage grows on demand): a file cannot
   * make restore reserve more than twice its own particles plus 2^16 */
  if (cap > 2 * n + ((int64_t)1 << 16)) cap = 2 * n + ((int64_t)1 << 16);
  tide_particles *ps;
  tide_lua_check(L, tide_particles_new(dim, cap, apic, &ps), fn);
  tide_lua_pushobj(L, TIDE_PARTICLES_T, ps); /* owns ps from here on */
  tide_lua_check(L, tide_particles_resize(ps, n), fn);
  tide_ckpt_copy(ps->x, x);
  tide_ckpt_copy(ps->v, v);
  if (apic) tide_ckpt_copy(ps->c, c);
  tide_lua_gcaccount(L);
  return 1;
}

/* called by luaopen_tide_liquid after the metatable exists */
void tide_lua_liquid_ckpt_open(lua_State *L) {
  luaL_getmetatable(L, TIDE_PARTICLES_T);
  lua_pushcfunction(L, ps_checkpoint);
  lua_setfield(L, -2, "__checkpoint");
  lua_pushcfunction(L, ps_restore);
  lua_setfield(L, -2, "__restore");
  lua_pop(L, 1);
}
