/*
 * lua_liquid.h -- the parts of the tide.liquid binding shared by its files
 * (lua_liquid.c registers the others through their *_open functions).
 * Binding only (Lua).
 */
#ifndef TIDE_LUA_LIQUID_H
#define TIDE_LUA_LIQUID_H

#include "grid/grid.h"
#include "grid/sdf.h"
#include "liquid/project.h"
#include "tide_lua.h"

void tide_lua_liquid_physics_open(lua_State *L); /* lua_liquid_physics.c */
void tide_lua_liquid_ckpt_open(lua_State *L);    /* lua_liquid_ckpt.c: checkpoint hooks */
void tide_lua_liquid_open_open(lua_State *L);    /* lua_liquid_open.c: open boundaries, emitters */
void tide_lua_liquid_probe_open(lua_State *L);   /* lua_liquid_probe.c: front, elevation, measure */

/* Push the statistics of a projection as the table { iterations, residual,
 * unknowns, div_before, div_after } (tide.liquid.project, Periodic:project). */
void tide_lua_push_project_stats(lua_State *L, const tide_project_stats *st);

/* The optional "out" cell array of the options o: checked against grid g
 * and dtype t (errors name it `what`; and not sharing memory with avoid,
 * may be NULL) and pushed, or a new zeroed cell array pushed when absent;
 * returns it. */
tide_array *tide_lua_liquid_out_cells(tide_opts *o, const tide_grid *g, tide_dtype t, const char *what,
                                      const tide_array *avoid);

/* Raise "<fn>: <what> <nothing>" for a call that would do nothing (no
 * particle seeded, no cell in a region): when the shape s (may be NULL) lies
 * outside the grid the message says so with both boxes, else it adds hint. */
int tide_lua_liquid_nothing(lua_State *L, const char *fn, const tide_grid *g, const tide_shape *s,
                            const char *what, const char *nothing, const char *hint);

#endif
