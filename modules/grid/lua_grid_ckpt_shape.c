/*
 * lua_grid_ckpt_shape.c -- checkpoint hooks of tide.Shape (modules/grid/sdf.h):
 *   primitives {kind, dim, p = {12 parameters}},
 *   union / intersection / difference {kind, dim, a = Shape, b = Shape},
 *   complement {kind, dim, a}, transform {kind, dim, a, p = {R (9), t (3)}}.
 * Children are stored as shapes (their own hooks).  Restore rebuilds each
 * node with its constructor (which checks radii, bounds, normals and the
 * rotation) and then takes the stored parameters bit for bit, after checking
 * they agree with the constructor's to 1e-12.  Mesh shapes are not stored.
 */
#include "grid/lua_grid_ckpt.h"
#include "grid/sdf.h"

#include <math.h>
#include <string.h>

static const char *const KINDS[] = {"box",          "sphere",     "cylinder",   "plane",
                                    "capsule",      "torus",      "mesh",       "union",
                                    "intersection", "difference", "complement", "transform",
                                    NULL};

static int shape_checkpoint(lua_State *L) {
  tide_shape *s = tide_lua_checkobj(L, 1, TIDE_SHAPE_T);
  if (s->kind == TIDE_SHAPE_MESH)
    tide_lua_error(L, "tide.fileio.checkpoint: a tide.Shape made from a mesh cannot be stored "
                      "(store its vertices and faces and rebuild it)");
  lua_createtable(L, 0, 5);
  lua_pushstring(L, KINDS[s->kind]);
  lua_setfield(L, -2, "kind");
  tide_ckpt_setint(L, "dim", s->dim);
  if (s->kind < TIDE_SHAPE_MESH || s->kind == TIDE_SHAPE_TRANSFORM)
    tide_ckpt_setvec(L, "p", s->p, 12);
  if (s->a) {
    tide_lua_pushobj(L, TIDE_SHAPE_T, tide_shape_retain(s->a));
    lua_setfield(L, -2, "a");
  }
  if (s->b) {
    tide_lua_pushobj(L, TIDE_SHAPE_T, tide_shape_retain(s->b));
    lua_setfield(L, -2, "b");
  }
  return 1;
}

static const char *const shape_keys[] = {"kind", "dim", "p", "a", "b", NULL};

static tide_shape *child(lua_State *L, const char *fn, const char *key, int dim) {
  lua_getfield(L, 1, key);
  tide_shape *c = tide_lua_testobj(L, -1, TIDE_SHAPE_T);
  if (!c) tide_lua_error(L, "%s: field '%s' must be a tide.Shape, got %s", fn, key, luaL_typename(L, -1));
  lua_pop(L, 1); /* referenced by the state table */
  if (c->dim != dim) tide_lua_error(L, "%s: field '%s' is %dD, the shape %dD", fn, key, c->dim, dim);
  return c;
}

static int shape_restore(lua_State *L) {
  const char *fn = "tide.fileio.restore (tide.Shape)";
  tide_ckpt_keys(L, 1, fn, shape_keys);
  if (lua_getfield(L, 1, "kind") != LUA_TSTRING) tide_lua_error(L, "%s: field 'kind' must be a string", fn);
  int kind = -1;
  for (int k = 0; KINDS[k]; k++)
    if (!strcmp(KINDS[k], lua_tostring(L, -1))) kind = k;
  if (kind < 0 || kind == TIDE_SHAPE_MESH)
    tide_lua_error(L, "%s: unknown or unstorable kind '%s'", fn, lua_tostring(L, -1));
  lua_pop(L, 1);
  int dim = (int)tide_ckpt_int(L, 1, fn, "dim", 2, 3);
  double p[12] = {0};
  int hasp = kind < TIDE_SHAPE_MESH || kind == TIDE_SHAPE_TRANSFORM;
  if (hasp) tide_ckpt_vec(L, 1, fn, "p", 12, p);
  tide_shape *a = NULL, *b = NULL, *s = NULL;
  if (kind > TIDE_SHAPE_MESH) a = child(L, fn, "a", dim);
  if (kind >= TIDE_SHAPE_UNION && kind <= TIDE_SHAPE_DIFFERENCE) b = child(L, fn, "b", dim);
  int st;
  switch (kind) {
  case TIDE_SHAPE_BOX: st = tide_shape_box(dim, p, p + 3, &s); break;
  case TIDE_SHAPE_SPHERE: st = tide_shape_sphere(dim, p, p[3], &s); break;
  case TIDE_SHAPE_CYLINDER: st = tide_shape_cylinder(dim, p, p + 3, p[6], &s); break;
  case TIDE_SHAPE_PLANE: st = tide_shape_plane(dim, p, p + 3, &s); break;
  case TIDE_SHAPE_CAPSULE: st = tide_shape_capsule(dim, p, p + 3, p[6], &s); break;
  case TIDE_SHAPE_TORUS: st = tide_shape_torus(dim, p, p + 3, p[6], p[7], &s); break;
  case TIDE_SHAPE_TRANSFORM: st = tide_shape_transform(a, p, p + 9, &s); break;
  default: st = tide_shape_csg((tide_shape_kind)kind, a, b, &s); break;
  }
  tide_lua_check(L, st, fn);
  tide_lua_pushobj(L, TIDE_SHAPE_T, s); /* owns s */
  if (hasp) {
    for (int k = 0; k < 12; k++)
      if (!(fabs(s->p[k] - p[k]) <= 1e-12 * (1 + fabs(p[k]))))
        tide_lua_error(L, "%s: parameter %d (%f) is inconsistent (not normalised?)", fn, k + 1, p[k]);
    memcpy(s->p, p, sizeof p); /* exactly as stored */
  }
  return 1;
}

/* set the hooks on the tide.Shape metatable (creating it if no module has
 * yet; tide_lua_shape_open completes it) */
void tide_lua_shape_ckpt_open(lua_State *L) {
  luaL_newmetatable(L, TIDE_SHAPE_T);
  lua_pushcfunction(L, shape_checkpoint);
  lua_setfield(L, -2, "__checkpoint");
  lua_pushcfunction(L, shape_restore);
  lua_setfield(L, -2, "__restore");
  lua_pop(L, 1);
}
