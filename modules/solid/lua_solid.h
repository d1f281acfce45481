/*
 * lua_solid.h -- shared declarations of the tide.solid binding files
 * (lua_solid.c, lua_solid_step.c).  Binding only.
 */
#ifndef TIDE_LUA_SOLID_H
#define TIDE_LUA_SOLID_H

#include "solid/fem.h"
#include "grid/sdf.h"
#include "tide_lua.h"

#include <math.h>

#define TIDE_SOLID_COLLIDER_T "tide.solid.Collider"

tide_tetmesh *tide_lua_checkmesh(lua_State *L, int idx);
/* the mesh with a material attached (raises otherwise) */
tide_tetmesh *tide_lua_checkfem(lua_State *L, int idx, const char *fname);

/* the grid module's shape constructors (tide.shape), pushed as a table */
int tide_lua_shape_open(lua_State *L);
/* add the stepping methods to the TetMesh method table at the top of the
 * stack, and the collider constructors to the module table below it */
void tide_lua_solid_step_open(lua_State *L, int methods, int module);
/* colliders = c | {c1, ...} of an options table: a GC-owned array left on
 * the stack, its length in *n (NULL, 0 without colliders) */
struct tide_collider;
struct tide_collider **tide_lua_solid_colliders(lua_State *L, tide_opts *o, int *n);
/* add the static-solve, load and selection methods (lua_solid_static.c) */
void tide_lua_solid_static_open(lua_State *L, int methods);
/* a node selection at index idx (a function of the current coordinates, a
 * tide.Shape (phi <= 0), a list or Array of 1-based indices, or a region
 * {min =, max =}) into mask (nv) */
void tide_lua_solid_select_nodes(lua_State *L, int idx, tide_tetmesh *m, uint8_t *mask,
                                 const char *fn);

#endif
