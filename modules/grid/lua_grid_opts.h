/*
 * lua_grid_opts.h -- option readers of tide.grid shared with the bindings of
 * other modules (e.g. tide.Periodic in modules/liquid).  Binding only (Lua).
 */
#ifndef TIDE_LUA_GRID_OPTS_H
#define TIDE_LUA_GRID_OPTS_H

#include "grid/levelset.h"
#include "tide_lua.h"

/* The advection scheme options of tide.grid.advect_scalar / advect_mac read
 * from o: rk = 2 | 3, interp = "linear" | "cubic", scheme = "sl" |
 * "maccormack" | "bfecc", clamp = "revert" | "extrema" | "none" (true =
 * "revert", false = "none").  Absent keys take tide_advect_opts_default();
 * the caller lists the keys in its allowed-key list. */
tide_advect_opts tide_lua_advect_opts(tide_opts *o);

#endif
