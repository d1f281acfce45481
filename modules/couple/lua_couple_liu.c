/* lua_couple_liu.c -- tide.couple functions of the liu coupling (see couple.h). */
#include "couple/couple.h"
#include "tide_lua.h"

static const luaL_Reg funcs[] = {{NULL, NULL}};

void tide_lua_couple_liu_open(lua_State *L, int module) {
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
