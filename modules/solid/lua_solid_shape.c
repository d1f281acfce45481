/*
 * lua_solid_shape.c -- tide.solid.shape: signed distance shapes for mesh
 * generation (tide.solid.bcc) and collision objects, as userdata "tide.Shape"
 * holding a tide_shape * of modules/grid/sdf.h (the grid module's shapes,
 * shared by every module).  Registered by lua_solid.c.
 */
#include "solid/lua_solid.h"

#include <string.h>

tide_shape *tide_lua_checkshape(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, TIDE_SHAPE_T); }

static void push_shape(lua_State *L, int st, tide_shape *s, const char *fname) {
  tide_lua_check(L, st, fname);
  tide_lua_pushobj(L, TIDE_SHAPE_T, s);
}

/* a required vector option of 2 or 3 numbers (3 entries written, z = 0) */
static int vec_opt(tide_opts *o, const char *key, int dim, double *out) {
  out[0] = out[1] = out[2] = 0;
  int n = tide_opt_vec(o, key, dim ? dim : 2, dim ? dim : 3, out);
  if (!n) tide_lua_error(o->L, "%s: missing option '%s'", o->fname, key);
  return n;
}

static const char *const sphere_keys[] = {"center", "radius", NULL};
/* shape.sphere{center = {x, y[, z]}, radius = r}: a ball (a disk in 2D) */
static int l_sphere(lua_State *L) {
  const char *fn = "tide.solid.shape.sphere";
  tide_opts o = tide_lua_opts(L, 1, fn, sphere_keys);
  double c[3];
  int d = vec_opt(&o, "center", 0, c);
  double r = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  tide_shape *s = NULL;
  int st = tide_shape_sphere(d, c, r, &s);
  push_shape(L, st, s, fn);
  return 1;
}

static const char *const box_keys[] = {"min", "max", NULL};
/* shape.box{min = {...}, max = {...}} */
static int l_box(lua_State *L) {
  const char *fn = "tide.solid.shape.box";
  tide_opts o = tide_lua_opts(L, 1, fn, box_keys);
  double lo[3], hi[3];
  int d = vec_opt(&o, "min", 0, lo);
  vec_opt(&o, "max", d, hi);
  tide_shape *s = NULL;
  int st = tide_shape_box(d, lo, hi, &s);
  push_shape(L, st, s, fn);
  return 1;
}

static const char *const plane_keys[] = {"point", "normal", NULL};
/* shape.plane{point = p, normal = n}: the half space (x - p).n < 0 */
static int l_plane(lua_State *L) {
  const char *fn = "tide.solid.shape.plane";
  tide_opts o = tide_lua_opts(L, 1, fn, plane_keys);
  double p[3], n[3];
  int d = vec_opt(&o, "point", 0, p);
  vec_opt(&o, "normal", d, n);
  tide_shape *s = NULL;
  int st = tide_shape_plane(d, p, n, &s);
  push_shape(L, st, s, fn);
  return 1;
}

static const char *const torus_keys[] = {"center", "axis", "R", "r", NULL};
/* shape.torus{center = c, R = major, r = minor [, axis = {0, 1, 0}]}
 * (2D: the annulus R - r < |x - c| < R + r) */
static int l_torus(lua_State *L) {
  const char *fn = "tide.solid.shape.torus";
  tide_opts o = tide_lua_opts(L, 1, fn, torus_keys);
  double c[3], ax[3] = {0, 1, 0};
  int d = vec_opt(&o, "center", 0, c);
  if (d == 3 && tide_opt_has(&o, "axis")) vec_opt(&o, "axis", 3, ax);
  double R = tide_opt_reqnum(&o, "R", 0, HUGE_VAL), r = tide_opt_reqnum(&o, "r", 0, HUGE_VAL);
  if (!(R > r)) tide_lua_error(L, "%s: radii must satisfy R > r", fn);
  tide_shape *s = NULL;
  int st = tide_shape_torus(d, c, ax, R, r, &s);
  push_shape(L, st, s, fn);
  return 1;
}

static const char *const seg_keys[] = {"a", "b", "radius", NULL};
static int segment(lua_State *L, int capsule, const char *fn) {
  tide_opts o = tide_lua_opts(L, 1, fn, seg_keys);
  double a[3], b[3];
  int d = vec_opt(&o, "a", 0, a);
  vec_opt(&o, "b", d, b);
  double r = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  tide_shape *s = NULL;
  int st = capsule ? tide_shape_capsule(d, a, b, r, &s) : tide_shape_cylinder(d, a, b, r, &s);
  push_shape(L, st, s, fn);
  return 1;
}
/* shape.cylinder{a = p, b = q, radius = r}: capped, axis a -> b */
static int l_cylinder(lua_State *L) { return segment(L, 0, "tide.solid.shape.cylinder"); }
/* shape.capsule{a = p, b = q, radius = r} */
static int l_capsule(lua_State *L) { return segment(L, 1, "tide.solid.shape.capsule"); }

static int csg(lua_State *L, tide_shape_kind kind, const char *fn) {
  tide_shape *a = tide_lua_checkshape(L, 1), *b = tide_lua_checkshape(L, 2), *s = NULL;
  int st = tide_shape_csg(kind, a, b, &s);
  push_shape(L, st, s, fn);
  return 1;
}
static int l_union(lua_State *L) { return csg(L, TIDE_SHAPE_UNION, "tide.solid.shape.union"); }
static int l_intersection(lua_State *L) {
  return csg(L, TIDE_SHAPE_INTERSECTION, "tide.solid.shape.intersection");
}
static int l_difference(lua_State *L) {
  return csg(L, TIDE_SHAPE_DIFFERENCE, "tide.solid.shape.difference");
}

/* s:moved{rotation = {{...}, ...} (3x3 or 2x2 rows), translation = {...}} */
static const char *const move_keys[] = {"rotation", "translation", NULL};
static int m_moved(lua_State *L) {
  const char *fn = "Shape:moved";
  tide_shape *a = tide_lua_checkshape(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, move_keys);
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0, 0, 0};
  int d = a->dim;
  if (tide_opt_has(&o, "rotation")) {
    lua_getfield(L, 2, "rotation");
    if (!lua_istable(L, -1) || luaL_len(L, -1) != d)
      tide_lua_error(L, "%s: rotation must be a list of %d rows", fn, d);
    for (int i = 0; i < d; i++) {
      lua_geti(L, -1, i + 1);
      double row[3];
      tide_lua_checkvec(L, -1, fn, "rotation row", d, d, row);
      for (int j = 0; j < d; j++) R[3 * i + j] = row[j];
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  tide_opt_vec(&o, "translation", d, d, t);
  tide_shape *s = NULL;
  int st = tide_shape_transform(a, R, t, &s);
  push_shape(L, st, s, fn);
  return 1;
}

/* s:eval(x) -> phi, {normal}: x a list of dim numbers */
static int m_eval(lua_State *L) {
  tide_shape *s = tide_lua_checkshape(L, 1);
  double x[3] = {0, 0, 0}, n[3];
  tide_lua_checkvec(L, 2, "Shape:eval", "point", s->dim, s->dim, x);
  lua_pushnumber(L, tide_shape_eval(s, x));
  tide_shape_normal(s, x, 0, n);
  lua_createtable(L, s->dim, 0);
  for (int k = 0; k < s->dim; k++) {
    lua_pushnumber(L, n[k]);
    lua_rawseti(L, -2, k + 1);
  }
  return 2;
}

/* s:bounds() -> {lo}, {hi}, or nil for unbounded shapes */
static int m_bounds(lua_State *L) {
  tide_shape *s = tide_lua_checkshape(L, 1);
  double lo[3], hi[3];
  if (!tide_solid_shape_bounds(s, lo, hi)) {
    lua_pushnil(L);
    return 1;
  }
  for (int t = 0; t < 2; t++) {
    lua_createtable(L, s->dim, 0);
    for (int k = 0; k < s->dim; k++) {
      lua_pushnumber(L, t ? hi[k] : lo[k]);
      lua_rawseti(L, -2, k + 1);
    }
  }
  return 2;
}

static int m_free(lua_State *L) {
  tide_shape_release(tide_lua_takeobj(L, 1, TIDE_SHAPE_T));
  return 0;
}

static int mm_tostring(lua_State *L) {
  tide_shape *s = tide_lua_testobj(L, 1, TIDE_SHAPE_T);
  if (!s)
    lua_pushstring(L, TIDE_SHAPE_T " (freed)");
  else
    lua_pushfstring(L, TIDE_SHAPE_T " %s %dD", tide_shape_kind_name(s->kind), s->dim);
  return 1;
}

static int mm_index(lua_State *L) {
  tide_shape *s = tide_lua_checkshape(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "dim")) {
    lua_pushinteger(L, s->dim);
    return 1;
  }
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "methods");
  lua_getfield(L, -1, k);
  return 1;
}

static const luaL_Reg shape_methods[] = {{"eval", m_eval},
                                         {"bounds", m_bounds},
                                         {"moved", m_moved},
                                         {"union", l_union},
                                         {"intersection", l_intersection},
                                         {"difference", l_difference},
                                         {"free", m_free},
                                         {NULL, NULL}};
static const luaL_Reg shape_meta[] = {{"__gc", m_free},          {"__close", m_free},
                                      {"__tostring", mm_tostring}, {"__index", mm_index},
                                      {"__add", l_union},          {"__sub", l_difference},
                                      {"__mul", l_intersection},   {NULL, NULL}};

static const luaL_Reg shape_funcs[] = {{"sphere", l_sphere},
                                       {"box", l_box},
                                       {"plane", l_plane},
                                       {"torus", l_torus},
                                       {"cylinder", l_cylinder},
                                       {"capsule", l_capsule},
                                       {"union", l_union},
                                       {"intersection", l_intersection},
                                       {"difference", l_difference},
                                       {NULL, NULL}};

/* leaves the tide.solid.shape table on the stack */
void tide_lua_solid_shape_open(lua_State *L) {
  tide_lua_newtype(L, TIDE_SHAPE_T, shape_methods, shape_meta);
  luaL_newlib(L, shape_funcs);
}
