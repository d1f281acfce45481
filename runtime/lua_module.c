/*
 * lua_module.c -- build of Tide as a C module for a stock Lua 5.4
 * interpreter:  LUA_CPATH='build/?.so' lua5.4 -e 'tide = require "tide"'.
 * The Lua library itself comes from the host interpreter.
 */
#include <lua.h>

int luaopen_tide(lua_State *L);

/* Reference the entry point so the linker keeps it (and everything it
 * registers) in the shared module. */
int (*const tide_module_entry)(lua_State *L) = luaopen_tide;
