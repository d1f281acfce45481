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

#endif
