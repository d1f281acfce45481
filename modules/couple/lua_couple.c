/* lua_couple.c -- the Lua module tide.couple (see couple.h).
 *
 * The module table is built here; each coupling registers its functions into
 * it from its own binding file (lua_couple_<part>.c), so the couplings grow
 * side by side without touching each other's files. */
#include "couple/couple.h"
#include "tide_lua.h"

void tide_lua_couple_zarifi_open(lua_State *L, int module);    /* lua_couple_zarifi.c */
void tide_lua_couple_liu_open(lua_State *L, int module);       /* lua_couple_liu.c */
void tide_lua_couple_mpm_open(lua_State *L, int module);       /* lua_couple_mpm.c */
void tide_lua_couple_mpm_solid_open(lua_State *L, int module); /* lua_couple_mpm_solid.c */

int luaopen_tide_couple(lua_State *L) {
  /* arrays pushed by this module need tide.Array's metatable */
  lua_getglobal(L, "require");
  lua_pushstring(L, "tide.array");
  lua_call(L, 1, 0);
  lua_newtable(L);
  int module = lua_gettop(L);
  tide_lua_couple_zarifi_open(L, module);
  tide_lua_couple_liu_open(L, module);
  tide_lua_couple_mpm_open(L, module);
  tide_lua_couple_mpm_solid_open(L, module);
  return 1;
}
