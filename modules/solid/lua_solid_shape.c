/*
 * lua_solid_shape.c -- tide.solid.shape: signed distance functions for mesh
 * generation and collision objects (userdata "tide.solid.Shape" holding a
 * tide_sdf *).  Registered by lua_solid.c.
 */
#include "solid/lua_solid.h"

#include <string.h>

#define SHAPE_T TIDE_SOLID_SHAPE_T

tide_sdf *tide_lua_checkshape(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, SHAPE_T); }

static void push_shape(lua_State *L, int st, tide_sdf *s, const char *fname) {
  tide_lua_check(L, st, fname);
  tide_lua_pushobj(L, SHAPE_T, s);
}

/* dimension from the length of a required vector option */
static int vec_dim(tide_opts *o, const char *key, double *out) {
  int n = tide_opt_vec(o, key, 2, 3, out);
  if (!n) tide_lua_error(o->L, "%s: missing option '%s'", o->fname, key);
  return n;
}

static int axis_opt(tide_opts *o) {
  static const char *const axes[] = {"x", "y", "z", NULL};
  return tide_opt_choice(o, "axis", "y", axes);
}

static const char *const sphere_keys[] = {"center", "radius", NULL};
/* shape.sphere{center = {x, y[, z]}, radius = r}: a ball (disk in 2D) */
static int l_sphere(lua_State *L) {
  const char *fn = "tide.solid.shape.sphere";
  tide_opts o = tide_lua_opts(L, 1, fn, sphere_keys);
  double c[3] = {0};
  int d = vec_dim(&o, "center", c);
  double r = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  tide_sdf *s;
  int st_ = tide_sdf_sphere(d, c, r, &s);
  push_shape(L, st_, s, fn);
  return 1;
}

static const char *const box_keys[] = {"center", "half", "min", "max", NULL};
/* shape.box{min = {...}, max = {...}} or shape.box{center = ..., half = ...} */
static int l_box(lua_State *L) {
  const char *fn = "tide.solid.shape.box";
  tide_opts o = tide_lua_opts(L, 1, fn, box_keys);
  double c[3] = {0}, h[3] = {0}, lo[3] = {0}, hi[3] = {0};
  int d;
  if (tide_opt_has(&o, "min") || tide_opt_has(&o, "max")) {
    if (tide_opt_has(&o, "center") || tide_opt_has(&o, "half"))
      tide_lua_error(L, "%s: give either min/max or center/half", fn);
    d = vec_dim(&o, "min", lo);
    if (vec_dim(&o, "max", hi) != d) tide_lua_error(L, "%s: min and max differ in length", fn);
    for (int k = 0; k < d; k++) c[k] = 0.5 * (lo[k] + hi[k]), h[k] = 0.5 * (hi[k] - lo[k]);
  } else {
    d = vec_dim(&o, "center", c);
    if (vec_dim(&o, "half", h) != d) tide_lua_error(L, "%s: center and half differ in length", fn);
  }
  tide_sdf *s;
  int st_ = tide_sdf_box(d, c, h, &s);
  push_shape(L, st_, s, fn);
  return 1;
}

static const char *const plane_keys[] = {"point", "normal", NULL};
/* shape.plane{point = p, normal = n}: the half-space below the plane */
static int l_plane(lua_State *L) {
  const char *fn = "tide.solid.shape.plane";
  tide_opts o = tide_lua_opts(L, 1, fn, plane_keys);
  double p[3] = {0}, n[3] = {0};
  int d = vec_dim(&o, "point", p);
  if (vec_dim(&o, "normal", n) != d) tide_lua_error(L, "%s: point and normal differ in length", fn);
  tide_sdf *s;
  int st_ = tide_sdf_plane(d, p, n, &s);
  push_shape(L, st_, s, fn);
  return 1;
}

static const char *const torus_keys[] = {"center", "R", "r", "axis", NULL};
/* shape.torus{center = c, R = major, r = minor, axis = "y"} (2D: annulus) */
static int l_torus(lua_State *L) {
  const char *fn = "tide.solid.shape.torus";
  tide_opts o = tide_lua_opts(L, 1, fn, torus_keys);
  double c[3] = {0};
  int d = vec_dim(&o, "center", c);
  double R = tide_opt_reqnum(&o, "R", 0, HUGE_VAL), r = tide_opt_reqnum(&o, "r", 0, HUGE_VAL);
  int axis = axis_opt(&o);
  tide_sdf *s;
  int st_ = tide_sdf_torus(d, c, R, r, axis, &s);
  push_shape(L, st_, s, fn);
  return 1;
}

static const char *const cyl_keys[] = {"center", "radius", "half_height", "axis", NULL};
/* shape.cylinder{center = c, radius = r, half_height = h, axis = "y"} (3D) */
static int l_cylinder(lua_State *L) {
  const char *fn = "tide.solid.shape.cylinder";
  tide_opts o = tide_lua_opts(L, 1, fn, cyl_keys);
  double c[3] = {0};
  if (vec_dim(&o, "center", c) != 3) tide_lua_error(L, "%s: a cylinder is 3D (center needs 3 entries)", fn);
  double r = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  double h = tide_opt_reqnum(&o, "half_height", 0, HUGE_VAL);
  int axis = axis_opt(&o);
  tide_sdf *s;
  int st_ = tide_sdf_cylinder(c, r, h, axis, &s);
  push_shape(L, st_, s, fn);
  return 1;
}

static const char *const grid_keys[] = {"grid", "phi", NULL};
/* shape.grid{grid = tide.Grid, phi = cell array}: a sampled distance field */
static int l_grid(lua_State *L) {
  const char *fn = "tide.solid.shape.grid";
  tide_opts o = tide_lua_opts(L, 1, fn, grid_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_reqarray(&o, "phi");
  tide_sdf *s;
  int st_ = tide_sdf_grid(g, phi, &s);
  push_shape(L, st_, s, fn);
  return 1;
}

static int csg(lua_State *L, int kind, const char *fn) {
  tide_sdf *a = tide_lua_checkshape(L, 1), *b = tide_lua_checkshape(L, 2), *s;
  int st_ = tide_sdf_csg(kind, a, b, &s);
  push_shape(L, st_, s, fn);
  return 1;
}
static int l_union(lua_State *L) { return csg(L, TIDE_SDF_UNION, "tide.solid.shape.union"); }
static int l_intersection(lua_State *L) {
  return csg(L, TIDE_SDF_INTERSECTION, "tide.solid.shape.intersection");
}
static int l_difference(lua_State *L) {
  return csg(L, TIDE_SDF_DIFFERENCE, "tide.solid.shape.difference");
}

/* s:eval(x) -> phi, {grad}: x a list of dim numbers */
static int m_eval(lua_State *L) {
  tide_sdf *s = tide_lua_checkshape(L, 1);
  double x[3], g[3];
  int n = tide_lua_checkvec(L, 2, "Shape:eval", "point", s->dim, s->dim, x);
  double v = tide_sdf_eval(s, x, g);
  lua_pushnumber(L, v);
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushnumber(L, g[k]);
    lua_rawseti(L, -2, k + 1);
  }
  return 2;
}

/* s:bounds() -> {lo}, {hi} or nil for unbounded shapes */
static int m_bounds(lua_State *L) {
  tide_sdf *s = tide_lua_checkshape(L, 1);
  double lo[3], hi[3];
  if (!tide_sdf_bounds(s, lo, hi)) {
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
  tide_sdf_release(tide_lua_takeobj(L, 1, SHAPE_T));
  return 0;
}

static int mm_tostring(lua_State *L) {
  tide_sdf *s = tide_lua_testobj(L, 1, SHAPE_T);
  static const char *kinds[] = {"sphere", "box",          "plane",     "torus",     "cylinder",
                                "grid",   "union", "intersection", "difference"};
  if (!s)
    lua_pushstring(L, SHAPE_T " (freed)");
  else
    lua_pushfstring(L, SHAPE_T " %s %dD", kinds[s->kind], s->dim);
  return 1;
}

static int mm_dim(lua_State *L) {
  tide_sdf *s = tide_lua_checkshape(L, 1);
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
                                         {"union", l_union},
                                         {"intersection", l_intersection},
                                         {"difference", l_difference},
                                         {"free", m_free},
                                         {NULL, NULL}};
static const luaL_Reg shape_meta[] = {{"__gc", m_free},          {"__close", m_free},
                                      {"__tostring", mm_tostring}, {"__index", mm_dim},
                                      {"__add", l_union},          {"__sub", l_difference},
                                      {"__mul", l_intersection},   {NULL, NULL}};

static const luaL_Reg shape_funcs[] = {{"sphere", l_sphere},
                                       {"box", l_box},
                                       {"plane", l_plane},
                                       {"torus", l_torus},
                                       {"cylinder", l_cylinder},
                                       {"grid", l_grid},
                                       {"union", l_union},
                                       {"intersection", l_intersection},
                                       {"difference", l_difference},
                                       {NULL, NULL}};

/* leaves the tide.solid.shape table on the stack */
void tide_lua_solid_shape_open(lua_State *L) {
  tide_lua_newtype(L, SHAPE_T, shape_methods, shape_meta);
  luaL_newlib(L, shape_funcs);
}
