/* lua_couple_zarifi.c -- tide.couple functions of the zarifi coupling (see couple.h). */
#include "couple/couple.h"
#include "tide_lua.h"

static const luaL_Reg funcs[] = {{NULL, NULL}};

void tide_lua_couple_zarifi_open(lua_State *L, int module) {
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
