/*
 * lua_grid_levelset.c -- the level-set part of tide.grid: shapes
 * (tide.Shape, also reachable as tide.shape), signed distances from shapes,
 * particles and meshes, fast-marching redistancing, extrapolation, volume
 * correction (tide.VolumeTracker), monotone cubic sampling and level-set
 * advection.  Argument checks and marshalling only; the numerics are in
 * sdf*.c, fastmarch.c and levelset*.c.  Registered by luaopen_tide_grid
 * through tide_lua_grid_levelset_open().  Lua API: docs/levelsets.md.
 */
#include "grid/levelset.h"
#include "grid/lua_grid_opts.h"
#include "grid/sdf.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define VT_T "tide.VolumeTracker"

void tide_lua_grid_levelset_open(lua_State *L);
int tide_lua_mac_advect_opts(lua_State *L, tide_mac *q, tide_mac *vel, double dt, int idx,
                             const char *fn);
int tide_lua_shape_open(lua_State *L);

static tide_grid *checkgrid(lua_State *L, int idx) {
  return tide_lua_checkobj(L, idx, TIDE_GRID_T);
}
static tide_shape *checkshape(lua_State *L, int idx) {
  return tide_lua_checkobj(L, idx, TIDE_SHAPE_T);
}

/* a cell array over g: the given one (checked) or a new one pushed */
static tide_array *cell_out(lua_State *L, const tide_grid *g, tide_array *given, const char *fn,
                            const char *what) {
  if (given) {
    tide_lua_check(L, tide_grid_check_cells(g, given, TIDE_F64, what), fn);
    tide_lua_pusharray(L, tide_array_retain(given));
    return given;
  }
  tide_array *a = tide_grid_cell_array(g, TIDE_F64);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, a);
  return a;
}

/* ================================================================ shapes */

static void pushshape(lua_State *L, tide_shape *s) { tide_lua_pushobj(L, TIDE_SHAPE_T, s); }

/* a point of dim coordinates from option key (required) */
static int opt_point(tide_opts *o, const char *key, int dmin, int dmax, double *out) {
  out[0] = out[1] = out[2] = 0;
  if (!tide_opt_has(o, key)) tide_lua_error(o->L, "%s: missing option '%s'", o->fname, key);
  return tide_opt_vec(o, key, dmin, dmax, out);
}

static const char *const box_keys[] = {"min", "max", NULL};
/* tide.shape.box{ min = {x, y[, z]}, max = {x, y[, z]} } */
static int l_box(lua_State *L) {
  const char *fn = "tide.shape.box";
  tide_opts o = tide_lua_opts(L, 1, fn, box_keys);
  double lo[3], hi[3];
  int d = opt_point(&o, "min", 2, 3, lo);
  if (opt_point(&o, "max", d, d, hi) != d)
    tide_lua_error(L, "%s: min and max differ in length", fn);
  tide_shape *s;
  tide_lua_check(L, tide_shape_box(d, lo, hi, &s), fn);
  pushshape(L, s);
  return 1;
}

static const char *const sphere_keys[] = {"center", "radius", NULL};
/* tide.shape.sphere{ center = {x, y[, z]}, radius = r } (a disk in 2D) */
static int l_sphere(lua_State *L) {
  const char *fn = "tide.shape.sphere";
  tide_opts o = tide_lua_opts(L, 1, fn, sphere_keys);
  double c[3];
  int d = opt_point(&o, "center", 2, 3, c);
  double r = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  tide_shape *s;
  tide_lua_check(L, tide_shape_sphere(d, c, r, &s), fn);
  pushshape(L, s);
  return 1;
}

static const char *const seg_keys[] = {"a", "b", "radius", NULL};
static int segment(lua_State *L, const char *fn, int capsule) {
  tide_opts o = tide_lua_opts(L, 1, fn, seg_keys);
  double a[3], b[3];
  int d = opt_point(&o, "a", 2, 3, a);
  if (opt_point(&o, "b", d, d, b) != d) tide_lua_error(L, "%s: a and b differ in length", fn);
  double r = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  tide_shape *s;
  tide_lua_check(
      L, capsule ? tide_shape_capsule(d, a, b, r, &s) : tide_shape_cylinder(d, a, b, r, &s), fn);
  pushshape(L, s);
  return 1;
}
/* tide.shape.cylinder{ a = {..}, b = {..}, radius = r }: capped, axis a -> b */
static int l_cylinder(lua_State *L) { return segment(L, "tide.shape.cylinder", 0); }
/* tide.shape.capsule{ a = {..}, b = {..}, radius = r } */
static int l_capsule(lua_State *L) { return segment(L, "tide.shape.capsule", 1); }

static const char *const plane_keys[] = {"point", "normal", NULL};
/* tide.shape.plane{ point = {..}, normal = {..} }: inside is behind the normal */
static int l_plane(lua_State *L) {
  const char *fn = "tide.shape.plane";
  tide_opts o = tide_lua_opts(L, 1, fn, plane_keys);
  double p[3], n[3];
  int d = opt_point(&o, "point", 2, 3, p);
  if (opt_point(&o, "normal", d, d, n) != d)
    tide_lua_error(L, "%s: point and normal differ in length", fn);
  tide_shape *s;
  tide_lua_check(L, tide_shape_plane(d, p, n, &s), fn);
  pushshape(L, s);
  return 1;
}

static const char *const torus_keys[] = {"center", "axis", "R", "r", NULL};
/* tide.shape.torus{ center = {..}, axis = {..} (3D), R = major, r = minor }
 * (an annulus in 2D) */
static int l_torus(lua_State *L) {
  const char *fn = "tide.shape.torus";
  tide_opts o = tide_lua_opts(L, 1, fn, torus_keys);
  double c[3], ax[3] = {0, 0, 1};
  int d = opt_point(&o, "center", 2, 3, c);
  if (d == 3)
    opt_point(&o, "axis", 3, 3, ax);
  else if (tide_opt_has(&o, "axis"))
    tide_lua_error(L, "%s: a 2D torus (annulus) has no axis", fn);
  double R = tide_opt_reqnum(&o, "R", 0, HUGE_VAL), r = tide_opt_reqnum(&o, "r", 0, HUGE_VAL);
  if (!(R > r)) tide_lua_error(L, "%s: radii must satisfy R > r", fn);
  tide_shape *s;
  tide_lua_check(L, tide_shape_torus(d, c, ax, R, r, &s), fn);
  pushshape(L, s);
  return 1;
}

static const char *const mesh_keys[] = {"vertices", "faces", NULL};
/* tide.shape.mesh{ vertices = Array (nv, dim), faces = Array (nf, dim) of
 * 1-based vertex indices (i32 or f64) }: a closed triangle mesh (3D,
 * counter-clockwise seen from outside) or polygon (2D, counter-clockwise) */
static int l_mesh(lua_State *L) {
  const char *fn = "tide.shape.mesh";
  tide_opts o = tide_lua_opts(L, 1, fn, mesh_keys);
  tide_array *V = tide_opt_reqarray(&o, "vertices");
  tide_array *F = tide_opt_reqarray(&o, "faces");
  if (V->ndim != 2 || (V->shape[1] != 2 && V->shape[1] != 3))
    tide_lua_error(L, "%s: vertices must be an (nv, 2) or (nv, 3) array", fn);
  int d = (int)V->shape[1];
  int64_t vs[2] = {-1, d};
  tide_lua_check(L, tide_array_expect(V, "vertices", TIDE_F64, 2, vs), fn);
  if (F->ndim != 2 || F->shape[1] != d)
    tide_lua_error(L, "%s: faces must be an (nf, %d) array for %dD vertices", fn, d, d);
  if (F->dtype != TIDE_I32 && F->dtype != TIDE_F64)
    tide_lua_error(L, "%s: faces must be i32 or f64", fn);
  int64_t nf = F->shape[0], nv = V->shape[0];
  tide_array *F0 = tide_array_new2(TIDE_I32, nf > 0 ? nf : 1, d);
  if (!F0) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, F0); /* anchored */
  int32_t *f0 = TIDE_I32P(F0);
  for (int64_t q = 0; q < nf * d; q++) {
    double v = tide_array_getlin(F, q);
    if (v != floor(v) || v < 1 || v > (double)nv)
      tide_lua_error(L, "%s: face %I refers to vertex %f, not an integer in 1..%I", fn,
                     (lua_Integer)(q / d + 1), v, (lua_Integer)nv);
    f0[q] = (int32_t)v - 1;
  }
  tide_sdf_mesh *m;
  tide_lua_check(L, tide_sdf_mesh_new(d, nv, TIDE_F64P(V), nf, f0, &m), fn);
  tide_shape *s;
  int st = tide_shape_mesh(m, &s);
  tide_sdf_mesh_release(m);
  tide_lua_check(L, st, fn);
  pushshape(L, s);
  tide_lua_gcaccount(L);
  return 1;
}

/* n-ary CSG: op(a, b, c, ...) folded left */
static int csg(lua_State *L, tide_shape_kind op, const char *fn, int nmin) {
  int n = lua_gettop(L);
  if (n < nmin) tide_lua_error(L, "%s: needs at least %d shapes, got %d", fn, nmin, n);
  tide_shape *acc = tide_shape_retain(checkshape(L, 1));
  for (int i = 2; i <= n; i++) {
    tide_shape *b = tide_lua_testobj(L, i, TIDE_SHAPE_T), *r;
    if (!b) {
      tide_shape_release(acc);
      checkshape(L, i); /* raises */
    }
    int st = tide_shape_csg(op, acc, b, &r);
    tide_shape_release(acc);
    tide_lua_check(L, st, fn);
    acc = r;
  }
  pushshape(L, acc);
  return 1;
}
/* tide.shape.union(a, b, ...), intersection(a, b, ...), difference(a, b, ...)
 * (a minus the others), complement(a); also a + b, a * b, a - b, -a */
static int l_union(lua_State *L) { return csg(L, TIDE_SHAPE_UNION, "tide.shape.union", 2); }
static int l_intersection(lua_State *L) {
  return csg(L, TIDE_SHAPE_INTERSECTION, "tide.shape.intersection", 2);
}
static int l_difference(lua_State *L) {
  return csg(L, TIDE_SHAPE_DIFFERENCE, "tide.shape.difference", 2);
}
static int l_complement(lua_State *L) {
  const char *fn = "tide.shape.complement";
  tide_shape *a = checkshape(L, 1), *r;
  if (lua_gettop(L) > 1) tide_lua_error(L, "%s: takes one shape", fn);
  tide_lua_check(L, tide_shape_csg(TIDE_SHAPE_COMPLEMENT, a, NULL, &r), fn);
  pushshape(L, r);
  return 1;
}

static const char *const moved_keys[] = {"translation", "rotation", NULL};
/* s:moved{ translation = {..}, rotation = R }: the shape rotated about the
 * origin, then translated.  R is a list of dim rows (orthonormal, det +1),
 * an angle [rad] (2D, counter-clockwise) or { axis = {..}, angle = a } (3D,
 * right-hand rule). */
static int s_moved(lua_State *L) {
  const char *fn = "Shape:moved";
  tide_shape *s = checkshape(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, moved_keys);
  int d = s->dim;
  double t[3] = {0, 0, 0}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  tide_opt_vec(&o, "translation", d, d, t);
  if (tide_opt_has(&o, "rotation")) {
    lua_getfield(L, 2, "rotation");
    int ri = lua_gettop(L);
    if (lua_type(L, ri) == LUA_TNUMBER) {
      if (d != 2)
        tide_lua_error(L, "%s: a rotation angle alone needs a 2D shape; use {axis=, angle=}", fn);
      double th = tide_lua_checkfinite(L, ri, fn, "rotation");
      R[0] = R[4] = cos(th), R[1] = -sin(th), R[3] = sin(th);
    } else if (lua_type(L, ri) == LUA_TTABLE && (lua_getfield(L, ri, "angle"), !lua_isnil(L, -1))) {
      double th = tide_lua_checkfinite(L, -1, fn, "rotation.angle"), ax[3] = {0, 0, 1};
      lua_getfield(L, ri, "axis");
      if (d == 3)
        tide_lua_checkvec(L, -1, fn, "rotation.axis", 3, 3, ax);
      else if (!lua_isnil(L, -1))
        tide_lua_error(L, "%s: a 2D rotation has no axis", fn);
      double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
      if (!(l > 0)) tide_lua_error(L, "%s: rotation axis must be nonzero", fn);
      for (int k = 0; k < 3; k++)
        ax[k] /= l;
      /* Rodrigues: R = c I + sin [ax]_x + (1 - c) ax ax^T */
      double c = cos(th), sn = sin(th);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          R[3 * i + j] = (i == j) * c + (1 - c) * ax[i] * ax[j];
      R[1] -= sn * ax[2], R[2] += sn * ax[1];
      R[3] += sn * ax[2], R[5] -= sn * ax[0];
      R[6] -= sn * ax[1], R[7] += sn * ax[0];
    } else if (lua_type(L, ri) == LUA_TTABLE) {
      if (luaL_len(L, ri) != d) tide_lua_error(L, "%s: rotation must be a list of %d rows", fn, d);
      for (int i = 0; i < d; i++) {
        lua_geti(L, ri, i + 1);
        double row[3];
        tide_lua_checkvec(L, -1, fn, "rotation row", d, d, row);
        for (int j = 0; j < d; j++)
          R[3 * i + j] = row[j];
        lua_pop(L, 1);
      }
    } else {
      tide_lua_error(L, "%s: rotation must be rows, an angle or {axis=, angle=}, got %s", fn,
                     luaL_typename(L, ri));
    }
    lua_settop(L, 2);
  }
  tide_shape *r;
  tide_lua_check(L, tide_shape_transform(s, R, t, &r), fn);
  pushshape(L, r);
  return 1;
}

static const char *const AT[] = {"cells", "nodes", "u", "v", "w", NULL};
static const char *const sdf_keys[] = {"at", "out", "band", NULL};
/* s:sdf(g [, { at = "cells" | "nodes" | "u" | "v" | "w", out = Array }]):
 * phi at the samples of grid g (cells: {ni, nj[, nk]}, nodes: n + 1 per
 * axis, faces: the MAC component shapes) */
static int s_sdf(lua_State *L) {
  const char *fn = "Shape:sdf";
  tide_shape *s = checkshape(L, 1);
  tide_grid *g = checkgrid(L, 2);
  tide_opts o = tide_lua_optopts(L, 3, fn, sdf_keys);
  int at = tide_opt_choice(&o, "at", "cells", AT);
  double band = tide_opt_num(&o, "band", INFINITY, 0, INFINITY);
  if (!(band > 0)) tide_lua_error(L, "%s: band must be > 0", fn);
  if (at == TIDE_AT_FACES_Z && g->dim == 2) tide_lua_error(L, "%s: no w faces on a 2D grid", fn);
  int d[3];
  tide_grid_sample_dims(g, at, d);
  int64_t shape[3] = {d[0], d[1], d[2]};
  tide_array *out = tide_opt_array(&o, "out");
  if (out) {
    tide_lua_check(L, tide_array_expect(out, "out", TIDE_F64, g->dim, shape), fn);
    tide_lua_pusharray(L, tide_array_retain(out));
  } else {
    out = tide_array_new(TIDE_F64, g->dim, shape);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
  }
  tide_lua_check(L, tide_shape_sdf_band(s, g, at, band, TIDE_F64P(out)), fn);
  return 1;
}

/* s:eval(x, y[, z]) -> phi; s:eval({x, y[, z]}) -> phi, {outward normal};
 * s:eval(points (n, >= dim)) -> Array (n) */
static int s_eval(lua_State *L) {
  const char *fn = "Shape:eval";
  tide_shape *s = checkshape(L, 1);
  tide_array *P = tide_lua_testarray(L, 2);
  if (P) {
    if (P->ndim != 2 || P->shape[1] < s->dim)
      tide_lua_error(L, "%s: points must be an (n, %d) array", fn, s->dim);
    int64_t ps[2] = {-1, P->shape[1]};
    tide_lua_check(L, tide_array_expect(P, "points", TIDE_F64, 2, ps), fn);
    tide_array *out = tide_array_new1(TIDE_F64, P->shape[0]);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
    tide_lua_check(
        L, tide_shape_sdf_points(s, P->shape[0], (int)P->shape[1], TIDE_F64P(P), TIDE_F64P(out)),
        fn);
    return 1;
  }
  double x[3] = {0, 0, 0};
  if (lua_type(L, 2) == LUA_TTABLE) { /* s:eval({x, y[, z]}) -> phi, {normal} */
    double n[3];
    tide_lua_checkvec(L, 2, fn, "point", s->dim, s->dim, x);
    lua_pushnumber(L, tide_shape_eval(s, x));
    tide_shape_normal(s, x, 0, n);
    lua_createtable(L, s->dim, 0);
    for (int a = 0; a < s->dim; a++) {
      lua_pushnumber(L, n[a]);
      lua_rawseti(L, -2, a + 1);
    }
    return 2;
  }
  for (int a = 0; a < s->dim; a++)
    x[a] = tide_lua_checkfinite(L, 2 + a, fn, "coordinate");
  lua_pushnumber(L, tide_shape_eval(s, x));
  return 1;
}

/* s:bounds() -> {lo}, {hi} containing the inside, or nil if unbounded */
static int s_bounds(lua_State *L) {
  tide_shape *s = checkshape(L, 1);
  double lo[3], hi[3];
  if (!tide_shape_bounds(s, lo, hi)) {
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

/* s:normal(x, y[, z]) -> nx, ny[, nz]: outward unit normal (grad phi) */
static int s_normal(lua_State *L) {
  const char *fn = "Shape:normal";
  tide_shape *s = checkshape(L, 1);
  double x[3] = {0, 0, 0}, n[3];
  for (int a = 0; a < s->dim; a++)
    x[a] = tide_lua_checkfinite(L, 2 + a, fn, "coordinate");
  tide_shape_normal(s, x, 0, n);
  for (int a = 0; a < s->dim; a++)
    lua_pushnumber(L, n[a]);
  return s->dim;
}

static int s_free(lua_State *L) {
  tide_shape_release(tide_lua_takeobj(L, 1, TIDE_SHAPE_T));
  return 0;
}

static int s_tostring(lua_State *L) {
  tide_shape *s = tide_lua_testobj(L, 1, TIDE_SHAPE_T);
  if (!s)
    lua_pushstring(L, "tide.Shape (freed)");
  else
    lua_pushfstring(L, "tide.Shape %s %dD", tide_shape_kind_name(s->kind), s->dim);
  return 1;
}

static int s_index(lua_State *L) {
  tide_shape *s = checkshape(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "dim")) {
    lua_pushinteger(L, s->dim);
  } else if (!strcmp(k, "kind")) {
    lua_pushstring(L, tide_shape_kind_name(s->kind));
  } else if (!strcmp(k, "closed") && s->kind == TIDE_SHAPE_MESH) {
    lua_pushboolean(L, tide_sdf_mesh_closed(s->mesh)); /* a cycle: each edge both ways equally */
  } else {
    luaL_getmetatable(L, TIDE_SHAPE_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int s_add(lua_State *L) { return csg(L, TIDE_SHAPE_UNION, "Shape + Shape (union)", 2); }
static int s_mul(lua_State *L) {
  return csg(L, TIDE_SHAPE_INTERSECTION, "Shape * Shape (intersection)", 2);
}
static int s_sub(lua_State *L) {
  return csg(L, TIDE_SHAPE_DIFFERENCE, "Shape - Shape (difference)", 2);
}
static int s_unm(lua_State *L) {
  lua_settop(L, 1);
  return l_complement(L);
}

static const luaL_Reg shape_methods[] = {{"sdf", s_sdf},
                                         {"eval", s_eval},
                                         {"normal", s_normal},
                                         {"moved", s_moved},
                                         {"bounds", s_bounds},
                                         {"union", l_union},
                                         {"intersection", l_intersection},
                                         {"difference", l_difference},
                                         {"free", s_free},
                                         {NULL, NULL}};
static const luaL_Reg shape_meta[] = {
    {"__gc", s_free},     {"__close", s_free}, {"__tostring", s_tostring},
    {"__index", s_index}, {"__add", s_add},    {"__mul", s_mul},
    {"__sub", s_sub},     {"__unm", s_unm},    {NULL, NULL}};
static const luaL_Reg shape_funcs[] = {{"box", l_box},
                                       {"sphere", l_sphere},
                                       {"cylinder", l_cylinder},
                                       {"plane", l_plane},
                                       {"capsule", l_capsule},
                                       {"torus", l_torus},
                                       {"mesh", l_mesh},
                                       {"union", l_union},
                                       {"intersection", l_intersection},
                                       {"difference", l_difference},
                                       {"complement", l_complement},
                                       {NULL, NULL}};

/* Register (or complete) the tide.Shape metatable and push the table of
 * shape constructors.  Any module that hands out shapes may call this; the
 * methods are the same whichever module registers the type first. */
int tide_lua_shape_open(lua_State *L) {
  luaL_newmetatable(L, TIDE_SHAPE_T); /* new, or the one another module made */
  luaL_setfuncs(L, shape_meta, 0);
  lua_newtable(L);
  luaL_setfuncs(L, shape_methods, 0);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
  luaL_newlib(L, shape_funcs);
  return 1;
}

/* ======================================================= particle level set */

static const char *const psdf_keys[] = {"grid",   "points", "radius", "method",
                                        "kernel", "reach",  "out",    NULL};
static const char *const PMETHODS[] = {"union", "zhu_bridson", NULL};
/* tide.grid.particle_sdf{ grid = g, points = Array (n, dim), radius = r
 *   [, method = "union" | "zhu_bridson", kernel = R, reach = m, out = phi ] } */
static int l_particle_sdf(lua_State *L) {
  const char *fn = "tide.grid.particle_sdf";
  tide_opts o = tide_lua_opts(L, 1, fn, psdf_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *P = tide_opt_reqarray(&o, "points");
  int64_t ps[2] = {-1, g->dim};
  tide_lua_check(L, tide_array_expect(P, "points", TIDE_F64, 2, ps), fn);
  double r = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  int method = tide_opt_choice(&o, "method", "union", PMETHODS);
  double R = tide_opt_num(&o, "kernel", 0, 0, HUGE_VAL);
  if (method == 0 && tide_opt_has(&o, "kernel"))
    tide_lua_error(L, "%s: kernel is an option of method = \"zhu_bridson\"", fn);
  double reach = tide_opt_num(&o, "reach", 0, 0, HUGE_VAL);
  tide_array *out = cell_out(L, g, tide_opt_array(&o, "out"), fn, "out");
  int st = method == 0
               ? tide_sdf_particles_union(g, P->shape[0], TIDE_F64P(P), r, reach, TIDE_F64P(out))
               : tide_sdf_particles_zhu_bridson(g, P->shape[0], TIDE_F64P(P), r, R, reach,
                                                TIDE_F64P(out));
  tide_lua_check(L, st, fn);
  return 1;
}

/* ============================================================ redistancing */

static tide_array *checkcells(lua_State *L, int idx, const tide_grid *g, const char *fn,
                              const char *what) {
  tide_array *a = tide_lua_checkarray(L, idx);
  tide_lua_check(L, tide_grid_check_cells(g, a, TIDE_F64, what), fn);
  return a;
}

static const char *const redist_keys[] = {"band", "order", "init", "method", "iterations", "closest", "work", NULL};
static const char *const REDIST_METHODS[] = {"fmm", "russo_smereka", NULL};
static const char *const REDIST_INITS[] = {"linear", "cubic", "subcell", NULL};
/* tide.grid.redistance(g, phi [, { band = m, order = 1 | 2,
 *   init = "linear" | "cubic" | "subcell", method = "fmm" | "russo_smereka",
 *   iterations = 10, closest = 0, work = tide.grid.advect_work() }]): phi
 * becomes the signed distance to its zero level (fast marching, in place);
 * returns phi */
static int l_redistance(lua_State *L) {
  const char *fn = "tide.grid.redistance";
  tide_grid *g = checkgrid(L, 1);
  tide_array *phi = checkcells(L, 2, g, fn, "phi");
  tide_opts o = tide_lua_optopts(L, 3, fn, redist_keys);
  tide_redistance_opts ro = tide_redistance_opts_default();
  ro.band = tide_opt_num(&o, "band", 0, 0, HUGE_VAL);
  ro.order = (int)tide_opt_int(&o, "order", ro.order, 1, 2);
  ro.init = tide_opt_choice(&o, "init", REDIST_INITS[ro.init], REDIST_INITS);
  ro.method = tide_opt_choice(&o, "method", REDIST_METHODS[ro.method], REDIST_METHODS);
  ro.iterations = (int)tide_opt_int(&o, "iterations", ro.iterations, 1, 100000);
  ro.closest = tide_opt_num(&o, "closest", ro.closest, 0, HUGE_VAL);
  tide_advect_work *w = tide_opt_obj(&o, "work", "tide.AdvectWork");
  tide_lua_check(L, tide_levelset_redistance_ex(g, TIDE_F64P(phi), &ro, w), fn);
  lua_settop(L, 2);
  return 1;
}

/* ============================================================ extrapolation */

static const char *const ext_keys[] = {"grid",      "phi",     "field", "valid",
                                       "direction", "maxdist", NULL};
/* tide.grid.extrapolate{ phi = phi, field = cell Array or tide.Mac,
 *   valid = u8 cell Array or u8 tide.Mac [, grid = g (cell fields),
 *   direction = 1 | -1, maxdist = m ] }: in place along the normal; valid is
 * updated; returns field */
static int l_extrapolate(lua_State *L) {
  const char *fn = "tide.grid.extrapolate";
  tide_opts o = tide_lua_opts(L, 1, fn, ext_keys);
  tide_array *phi = tide_opt_reqarray(&o, "phi");
  int dir = (int)tide_opt_int(&o, "direction", 1, -1, 1);
  if (dir == 0) tide_lua_error(L, "%s: direction must be 1 or -1", fn);
  double maxdist = tide_opt_num(&o, "maxdist", 0, 0, HUGE_VAL);
  if (!tide_opt_has(&o, "field")) tide_lua_error(L, "%s: missing option 'field'", fn);
  lua_getfield(L, 1, "field");
  tide_mac *m = tide_lua_testobj(L, -1, TIDE_MAC_T);
  lua_pop(L, 1);
  if (m) {
    tide_mac *valid = tide_opt_reqobj(&o, "valid", TIDE_MAC_T);
    tide_grid *g = tide_opt_obj(&o, "grid", TIDE_GRID_T);
    if (g && !tide_grid_same(g, &m->grid))
      tide_lua_error(L, "%s: grid differs from the field's", fn);
    tide_lua_check(L, tide_grid_check_cells(&m->grid, phi, TIDE_F64, "phi"), fn);
    tide_lua_check(L, tide_levelset_extrapolate_mac(m, TIDE_F64P(phi), dir, maxdist, valid), fn);
  } else {
    tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
    tide_array *f = tide_opt_reqarray(&o, "field");
    tide_array *v = tide_opt_reqarray(&o, "valid");
    tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
    tide_lua_check(L, tide_grid_check_cells(g, f, TIDE_F64, "field"), fn);
    tide_lua_check(L, tide_grid_check_cells(g, v, TIDE_U8, "valid"), fn);
    tide_lua_check(
        L, tide_levelset_extrapolate(g, TIDE_F64P(phi), dir, maxdist, TIDE_F64P(f), TIDE_U8P(v)),
        fn);
  }
  lua_getfield(L, 1, "field");
  return 1;
}

/* tide.grid.valid_faces(g, phi [, out]): u8 tide.Mac, 1 on faces next to a
 * cell with phi < 0 */
static int l_valid_faces(lua_State *L) {
  const char *fn = "tide.grid.valid_faces";
  tide_grid *g = checkgrid(L, 1);
  tide_array *phi = checkcells(L, 2, g, fn, "phi");
  tide_mac *v;
  if (lua_isnoneornil(L, 3)) {
    tide_lua_check(L, tide_mac_new(g, TIDE_U8, &v), fn);
    tide_lua_pushobj(L, TIDE_MAC_T, v);
    tide_lua_gcaccount(L);
  } else {
    v = tide_lua_checkobj(L, 3, TIDE_MAC_T);
    tide_lua_check(L, tide_mac_check(v, g, TIDE_U8, "out"), fn);
    lua_pushvalue(L, 3);
  }
  tide_lua_check(L, tide_levelset_valid_faces(TIDE_F64P(phi), v), fn);
  return 1;
}

/* tide.grid.band_mask(g, phi, lo, hi [, out]) -> u8 cells, 1 where lo < phi < hi */
static int l_band_mask(lua_State *L) {
  const char *fn = "tide.grid.band_mask";
  tide_grid *g = checkgrid(L, 1);
  tide_array *phi = checkcells(L, 2, g, fn, "phi");
  double lo = luaL_checknumber(L, 3), hi = luaL_checknumber(L, 4);
  tide_array *m;
  if (lua_isnoneornil(L, 5)) {
    m = tide_grid_cell_array(g, TIDE_U8);
    if (!m) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, m);
  } else {
    m = tide_lua_checkarray(L, 5);
    tide_lua_check(L, tide_grid_check_cells(g, m, TIDE_U8, "out"), fn);
    lua_pushvalue(L, 5);
  }
  tide_lua_check(L, tide_levelset_band_mask(g, TIDE_F64P(phi), lo, hi, TIDE_U8P(m)), fn);
  return 1;
}

static const char *const con_keys[] = {"mac", "keep", "solid_phi", "solid_velocity", NULL};
/* tide.grid.constrain_mac{ mac = u, keep = u8 Mac, solid_phi = Array at
 *   cells or nodes [, solid_velocity = Mac ] }: Zarifi's constraint, in place */
static int l_constrain_mac(lua_State *L) {
  const char *fn = "tide.grid.constrain_mac";
  tide_opts o = tide_lua_opts(L, 1, fn, con_keys);
  tide_mac *m = tide_opt_reqobj(&o, "mac", TIDE_MAC_T);
  tide_mac *keep = tide_opt_reqobj(&o, "keep", TIDE_MAC_T);
  tide_array *sp = tide_opt_reqarray(&o, "solid_phi");
  tide_mac *sv = tide_opt_obj(&o, "solid_velocity", TIDE_MAC_T);
  const tide_grid *g = &m->grid;
  int at = TIDE_AT_CELLS;
  if (tide_grid_check_cells(g, sp, TIDE_F64, "solid_phi") != TIDE_OK) {
    int d[3];
    tide_grid_sample_dims(g, TIDE_AT_NODES, d);
    int64_t shape[3] = {d[0], d[1], d[2]};
    if (tide_array_expect(sp, "solid_phi", TIDE_F64, g->dim, shape) != TIDE_OK)
      tide_lua_error(L, "%s: solid_phi must be an f64 array at the cells or the nodes of the grid",
                     fn);
    at = TIDE_AT_NODES;
  }
  tide_lua_check(L, tide_levelset_constrain_mac(m, keep, TIDE_F64P(sp), at, sv), fn);
  lua_getfield(L, 1, "mac");
  return 1;
}

/* ======================================================== volume correction */

static const char *const vol_keys[] = {"band", "k", NULL};
/* tide.grid.components(g, phi [, { band = m }]) -> labels (i32 cells: 1..n,
 * 0 = far air), n */
static int l_components(lua_State *L) {
  const char *fn = "tide.grid.components";
  tide_grid *g = checkgrid(L, 1);
  tide_array *phi = checkcells(L, 2, g, fn, "phi");
  tide_opts o = tide_lua_optopts(L, 3, fn, vol_keys);
  double band = tide_opt_num(&o, "band", 3 * g->dx, 0, HUGE_VAL);
  if (tide_opt_has(&o, "k")) tide_lua_error(L, "%s: k is not an option here", fn);
  tide_array *lab = tide_grid_cell_array(g, TIDE_I32);
  if (!lab) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, lab);
  int n;
  tide_lua_check(L, tide_levelset_components(g, TIDE_F64P(phi), band, TIDE_I32P(lab), &n), fn);
  int32_t *p = TIDE_I32P(lab);
  int64_t N = tide_grid_ncells(g);
  for (int64_t c = 0; c < N; c++)
    p[c] += 1;
  lua_pushinteger(L, n);
  return 2;
}

/* labels (1-based, 0 = none) from Lua -> 0-based copy */
static int32_t *labels0(lua_State *L, const tide_grid *g, tide_array *lab, int n, const char *fn) {
  tide_lua_check(L, tide_grid_check_cells(g, lab, TIDE_I32, "labels"), fn);
  int64_t N = tide_grid_ncells(g);
  tide_array *c = tide_array_new1(TIDE_I32, N);
  if (!c) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, c); /* anchored */
  int32_t *p = TIDE_I32P(c), *q = TIDE_I32P(lab);
  for (int64_t i = 0; i < N; i++) {
    if (q[i] < 0 || q[i] > n) tide_lua_error(L, "%s: labels must be in 0..%d", fn, n);
    p[i] = q[i] - 1;
  }
  return p;
}

static const char *const volw_keys[] = {"band", "k", "weights", NULL};
/* the weights option (f64 cells in [0, 1]) or NULL */
static const double *opt_weights(lua_State *L, tide_opts *o, const tide_grid *g, const char *fn) {
  tide_array *w = tide_opt_array(o, "weights");
  if (!w) return NULL;
  tide_lua_check(L, tide_grid_check_cells(g, w, TIDE_F64, "weights"), fn);
  return TIDE_F64P(w);
}

/* tide.grid.volume(g, phi [, { band = m, k = 1/m, weights = f64 cells }]) -> sum w H(phi) dx^dim
 * over the liquid cells and the air cells within band of them: the smoothed volume of Liu Eq. 10-11
 * as the volume correction measures it (band 3 dx, k = 3 / band by default) */
static int l_volume(lua_State *L) {
  const char *fn = "tide.grid.volume";
  tide_grid *g = checkgrid(L, 1);
  tide_array *phi = checkcells(L, 2, g, fn, "phi");
  tide_opts o = tide_lua_optopts(L, 3, fn, volw_keys);
  const double *w = opt_weights(L, &o, g, fn);
  double band = tide_opt_num(&o, "band", 3 * g->dx, 1e-300, HUGE_VAL);
  double k = tide_opt_num(&o, "k", 3 / band, 1e-300, HUGE_VAL);
  int64_t N = tide_grid_ncells(g);
  tide_array *lab = tide_array_new1(TIDE_I32, N);
  if (!lab) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, lab);
  int n;
  int32_t *q = TIDE_I32P(lab);
  tide_lua_check(L, tide_levelset_components(g, TIDE_F64P(phi), band, q, &n), fn);
  for (int64_t c = 0; c < N; c++)
    q[c] = q[c] >= 0 ? 0 : -1;
  double v = 0;
  if (n > 0)
    tide_lua_check(L, tide_levelset_volumes_weighted(g, TIDE_F64P(phi), q, 1, k, w, &v), fn);
  lua_pushnumber(L, v);
  return 1;
}

static const char *const param_keys[] = {"grid",     "phi",         "band",
                                         "k",        "air_density", "tol",
                                         "max_iter", "redistance",  "redistance_band",
                                         "passes",   "target",      "labels",
                                         "weights",  NULL};

static tide_volume_params read_params(tide_opts *o) {
  tide_volume_params p = tide_volume_params_default();
  p.band = tide_opt_num(o, "band", 0, 0, HUGE_VAL);
  p.k = tide_opt_num(o, "k", 0, 0, HUGE_VAL);
  p.air_density = tide_opt_num(o, "air_density", p.air_density, 1e-12, 1);
  p.tol = tide_opt_num(o, "tol", p.tol, 0, 1);
  p.max_iter = (int)tide_opt_int(o, "max_iter", p.max_iter, 1, 10000);
  p.redistance = tide_opt_bool(o, "redistance", p.redistance);
  p.redistance_band = tide_opt_num(o, "redistance_band", 0, 0, HUGE_VAL);
  p.passes = (int)tide_opt_int(o, "passes", p.passes, 1, 100);
  return p;
}

static void push_stats(lua_State *L, const tide_volume_stats *s) {
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, s->iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushinteger(L, s->passes);
  lua_setfield(L, -2, "passes");
  lua_pushinteger(L, s->ncomp);
  lua_setfield(L, -2, "components");
  lua_pushnumber(L, s->err_before);
  lua_setfield(L, -2, "error_before");
  lua_pushnumber(L, s->err_newton);
  lua_setfield(L, -2, "error_newton");
  lua_pushnumber(L, s->err_after);
  lua_setfield(L, -2, "error");
}

/* tide.grid.correct_volume{ grid = g, phi = phi, target = V0 (all liquid as
 *   one body) or {V1, ..., Vn} with labels = (from components) [, band, k,
 *   air_density, tol, max_iter, redistance, redistance_band, passes, weights ] }
 *   -> stats; phi corrected in place */
static int l_correct_volume(lua_State *L) {
  const char *fn = "tide.grid.correct_volume";
  tide_opts o = tide_lua_opts(L, 1, fn, param_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_reqarray(&o, "phi");
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  tide_volume_params p = read_params(&o);
  p.weight = opt_weights(L, &o, g, fn);
  if (!tide_opt_has(&o, "target")) tide_lua_error(L, "%s: missing option 'target'", fn);
  lua_getfield(L, 1, "target");
  int tidx = lua_gettop(L);
  tide_array *lab = tide_opt_array(&o, "labels");
  int64_t N = tide_grid_ncells(g);
  tide_volume_stats st;
  if (lua_type(L, tidx) == LUA_TNUMBER) {
    if (lab) tide_lua_error(L, "%s: labels go with a list of targets", fn);
    double V0 = tide_opt_num(&o, "target", 0, 0, HUGE_VAL);
    /* one body: every labelled cell in component 0 */
    tide_array *l = tide_array_new1(TIDE_I32, N);
    if (!l) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, l);
    int n;
    double band = p.band > 0 ? p.band : 3 * g->dx;
    tide_lua_check(L, tide_levelset_components(g, TIDE_F64P(phi), band, TIDE_I32P(l), &n), fn);
    int32_t *q = TIDE_I32P(l);
    for (int64_t c = 0; c < N; c++)
      q[c] = q[c] >= 0 ? 0 : -1;
    tide_lua_check(L, tide_levelset_correct_volume(g, TIDE_F64P(phi), q, n > 0, &V0, &p, &st), fn);
  } else if (lua_type(L, tidx) == LUA_TTABLE) {
    if (!lab) tide_lua_error(L, "%s: a list of targets needs labels (tide.grid.components)", fn);
    lua_Integer n = luaL_len(L, tidx);
    if (n < 0 || n > INT32_MAX / 2) tide_lua_error(L, "%s: bad target list", fn);
    tide_array *T = tide_array_new1(TIDE_F64, n > 0 ? n : 1);
    if (!T) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, T);
    for (lua_Integer i = 0; i < n; i++) {
      lua_geti(L, tidx, i + 1);
      double v = lua_tonumber(L, -1);
      if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(v) || v < 0)
        tide_lua_error(L, "%s: target[%I] must be a finite number >= 0", fn, i + 1);
      TIDE_F64P(T)[i] = v;
      lua_pop(L, 1);
    }
    int32_t *l0 = labels0(L, g, lab, (int)n, fn);
    tide_lua_check(
        L, tide_levelset_correct_volume(g, TIDE_F64P(phi), l0, (int)n, TIDE_F64P(T), &p, &st), fn);
  } else {
    tide_lua_error(L, "%s: target must be a number or a list of numbers, got %s", fn,
                   luaL_typename(L, tidx));
  }
  push_stats(L, &st);
  return 1;
}

/* ---------------------------------------------------------- tracker */

static tide_volume_tracker *checkvt(lua_State *L, int idx) {
  return tide_lua_checkobj(L, idx, VT_T);
}

/* tide.grid.volume_tracker{ grid = g, phi = phi [, band, k, air_density,
 *   tol, max_iter, redistance, redistance_band, passes, weights ] }: records the
 *   components of phi and their reference volumes */
static int l_volume_tracker(lua_State *L) {
  const char *fn = "tide.grid.volume_tracker";
  tide_opts o = tide_lua_opts(L, 1, fn, param_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_array *phi = tide_opt_reqarray(&o, "phi");
  tide_lua_check(L, tide_grid_check_cells(g, phi, TIDE_F64, "phi"), fn);
  if (tide_opt_has(&o, "target") || tide_opt_has(&o, "labels"))
    tide_lua_error(L, "%s: target and labels are options of tide.grid.correct_volume", fn);
  tide_volume_params p = read_params(&o);
  p.weight = opt_weights(L, &o, g, fn); /* copied by the tracker */
  tide_volume_tracker *t;
  tide_lua_check(L, tide_volume_tracker_new(g, TIDE_F64P(phi), &p, &t), fn);
  tide_lua_pushobj(L, VT_T, t);
  tide_lua_gcaccount(L);
  return 1;
}

/* vt:correct(phi) -> stats: relabel, match, correct, redistance (in place) */
static int vt_correct(lua_State *L) {
  const char *fn = "VolumeTracker:correct";
  tide_volume_tracker *t = checkvt(L, 1);
  tide_array *phi = checkcells(L, 2, &t->grid, fn, "phi");
  tide_volume_stats st;
  tide_lua_check(L, tide_volume_tracker_correct(t, TIDE_F64P(phi), &st), fn);
  push_stats(L, &st);
  return 1;
}

/* vt:keep(phi [, depth]) -> n: gather (in place) the tracked components phi
 * has lost, and those with no cell depth [m] (dx / 4) deep */
static int vt_keep(lua_State *L) {
  const char *fn = "VolumeTracker:keep";
  tide_volume_tracker *t = checkvt(L, 1);
  tide_array *phi = checkcells(L, 2, &t->grid, fn, "phi");
  double depth = luaL_optnumber(L, 3, 0.25 * t->grid.dx);
  if (!(depth >= 0 && depth <= t->grid.dx))
    tide_lua_error(L, "%s: depth must be in [0, dx], got %g m", fn, depth);
  int n;
  tide_lua_check(L, tide_volume_tracker_keep(t, TIDE_F64P(phi), depth, &n), fn);
  lua_pushinteger(L, n);
  return 1;
}

/* vt:add(body, volume): a body written into phi since the last correction
 * (body: its own level set) becomes a component of reference volume [m^dim] */
static int vt_add(lua_State *L) {
  const char *fn = "VolumeTracker:add";
  tide_volume_tracker *t = checkvt(L, 1);
  tide_array *body = checkcells(L, 2, &t->grid, fn, "body");
  double vol = luaL_checknumber(L, 3);
  if (!(vol >= 0) || !isfinite(vol))
    tide_lua_error(L, "%s: volume must be a finite number >= 0 [m^dim], got %g", fn, vol);
  tide_lua_check(L, tide_volume_tracker_add(t, TIDE_F64P(body), vol), fn);
  return 0;
}

/* vt:set_weights(w | nil): the cells' volume weights (f64 cells in [0, 1], copied; nil: none) */
static int vt_set_weights(lua_State *L) {
  const char *fn = "VolumeTracker:set_weights";
  tide_volume_tracker *t = checkvt(L, 1);
  const double *w = NULL;
  if (!lua_isnoneornil(L, 2)) w = TIDE_F64P(checkcells(L, 2, &t->grid, fn, "weights"));
  tide_lua_check(L, tide_volume_tracker_set_weights(t, w), fn);
  return 0;
}

/* vt:volumes() -> { V1, ..., Vn } reference volumes [m^dim] */
static int vt_volumes(lua_State *L) {
  tide_volume_tracker *t = checkvt(L, 1);
  lua_createtable(L, t->ncomp, 0);
  for (int c = 0; c < t->ncomp; c++) {
    lua_pushnumber(L, t->vol[c]);
    lua_rawseti(L, -2, c + 1);
  }
  return 1;
}

static int vt_free(lua_State *L) {
  tide_volume_tracker_free(tide_lua_takeobj(L, 1, VT_T));
  return 0;
}

static int vt_tostring(lua_State *L) {
  tide_volume_tracker *t = tide_lua_testobj(L, 1, VT_T);
  if (!t) {
    lua_pushstring(L, VT_T " (freed)");
    return 1;
  }
  char buf[128];
  snprintf(buf, sizeof buf, VT_T " %d component%s, volume %.6g", t->ncomp, t->ncomp == 1 ? "" : "s",
           tide_volume_tracker_total(t));
  lua_pushstring(L, buf);
  return 1;
}

static int vt_index(lua_State *L) {
  tide_volume_tracker *t = checkvt(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "volume")) {
    lua_pushnumber(L, tide_volume_tracker_total(t));
  } else if (!strcmp(k, "components")) {
    lua_pushinteger(L, t->ncomp);
  } else {
    luaL_getmetatable(L, VT_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg vt_methods[] = {{"correct", vt_correct}, {"keep", vt_keep}, {"add", vt_add},
                                      {"set_weights", vt_set_weights},
                                      {"volumes", vt_volumes}, {"free", vt_free}, {NULL, NULL}};
static const luaL_Reg vt_meta[] = {{"__gc", vt_free},
                                   {"__close", vt_free},
                                   {"__tostring", vt_tostring},
                                   {"__index", vt_index},
                                   {NULL, NULL}};

/* ================================================= interpolation, advection */

/* tide.grid.sample_cubic(g, field, points [, out]) -> Array (n) */
static int l_sample_cubic(lua_State *L) {
  const char *fn = "tide.grid.sample_cubic";
  tide_grid *g = checkgrid(L, 1);
  tide_array *f = checkcells(L, 2, g, fn, "field");
  tide_array *x = tide_lua_checkarray(L, 3);
  int64_t ps[2] = {-1, g->dim};
  tide_lua_check(L, tide_array_expect(x, "points", TIDE_F64, 2, ps), fn);
  tide_array *out;
  if (lua_isnoneornil(L, 4)) {
    out = tide_array_new1(TIDE_F64, x->shape[0]);
    if (!out) tide_lua_check(L, TIDE_ENOMEM, fn);
    tide_lua_pusharray(L, out);
  } else {
    out = tide_lua_checkarray(L, 4);
    tide_lua_check(L, tide_array_expect(out, "out", TIDE_F64, 1, x->shape), fn);
    lua_pushvalue(L, 4);
  }
  tide_lua_check(
      L, tide_grid_sample_cubic(g, TIDE_F64P(f), x->shape[0], TIDE_F64P(x), TIDE_F64P(out)), fn);
  return 1;
}

/* ---------------------------------------------------------- advection */

#define AW_T "tide.AdvectWork"

static const char *const INTERP[] = {"linear", "cubic", NULL};
static const char *const SCHEMES[] = {"sl", "maccormack", "bfecc", NULL};
static const char *const CLAMPS[] = {"none", "revert", "extrema", NULL};

/* tide.grid.advect_work() -> tide.AdvectWork: scratch memory of the
 * MacCormack/BFECC advections, passed as `work` and reused between calls */
static int l_advect_work(lua_State *L) {
  for (int i = 1; i <= lua_gettop(L); i++)
    if (!lua_isnil(L, i))
      tide_lua_error(L, "tide.grid.advect_work: takes no arguments, got a %s", luaL_typename(L, i));
  tide_advect_work *w = tide_alloc(sizeof *w);
  if (!w) tide_lua_check(L, TIDE_ENOMEM, "tide.grid.advect_work");
  w->buf = NULL;
  w->bytes = 0;
  tide_lua_pushobj(L, AW_T, w);
  return 1;
}

static int aw_free(lua_State *L) {
  tide_advect_work *w = tide_lua_takeobj(L, 1, AW_T);
  if (w) {
    tide_advect_work_release(w);
    tide_free(w, sizeof *w);
  }
  return 0;
}

static int aw_bytes(lua_State *L) {
  tide_advect_work *w = tide_lua_checkobj(L, 1, AW_T);
  lua_pushinteger(L, (lua_Integer)w->bytes);
  return 1;
}

static int aw_tostring(lua_State *L) {
  tide_advect_work *w = tide_lua_testobj(L, 1, AW_T);
  if (!w)
    lua_pushstring(L, AW_T " (freed)");
  else
    lua_pushfstring(L, AW_T " holding %I bytes", (lua_Integer)w->bytes);
  return 1;
}

static const luaL_Reg aw_methods[] = {{"bytes", aw_bytes}, {"free", aw_free}, {NULL, NULL}};
static const luaL_Reg aw_meta[] = {
    {"__gc", aw_free}, {"__close", aw_free}, {"__tostring", aw_tostring}, {NULL, NULL}};

/* the scheme options shared by the advections (lua_grid_opts.h) */
tide_advect_opts tide_lua_advect_opts(tide_opts *o) {
  tide_advect_opts a = tide_advect_opts_default();
  a.rk = (int)tide_opt_int(o, "rk", 2, 2, 3);
  a.cubic = tide_opt_choice(o, "interp", "linear", INTERP);
  a.scheme = tide_opt_choice(o, "scheme", "sl", SCHEMES);
  int t = LUA_TNIL;
  if (o->idx) {
    t = lua_getfield(o->L, o->idx, "clamp");
    lua_pop(o->L, 1);
  }
  if (t == LUA_TBOOLEAN)
    a.clamp = tide_opt_bool(o, "clamp", 1) ? TIDE_ADVECT_CLAMP_REVERT : TIDE_ADVECT_CLAMP_NONE;
  else if (t != LUA_TNIL && t != LUA_TSTRING)
    tide_lua_error(o->L,
                   "%s: option 'clamp' must be a boolean or one of none, revert, extrema, got %s",
                   o->fname, lua_typename(o->L, t));
  else
    a.clamp = tide_opt_choice(o, "clamp", "revert", CLAMPS);
  return a;
}

static const char *const adv_keys[] = {"grid",   "velocity", "field", "dt",    "rk",
                                       "interp", "scheme",   "clamp", "valid", "work",
                                       "region", "out",      NULL};
/* tide.grid.advect_scalar{ grid = g, velocity = Mac, field = Array, dt = s
 *   [, rk = 2 | 3, interp = "linear" | "cubic", scheme = "sl" |
 *   "maccormack" | "bfecc", clamp = "revert" | "extrema" | "none" (true =
 *   "revert", false = "none"), valid = u8 cells, work = AdvectWork,
 *   region = u8 cells (only these advected, the rest copied; levelset.h),
 *   out = Array ] } -> out */
static int l_advect_scalar(lua_State *L) {
  const char *fn = "tide.grid.advect_scalar";
  tide_opts o = tide_lua_opts(L, 1, fn, adv_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_mac *vel = tide_opt_reqobj(&o, "velocity", TIDE_MAC_T);
  tide_array *f = tide_opt_reqarray(&o, "field");
  tide_lua_check(L, tide_grid_check_cells(g, f, TIDE_F64, "field"), fn);
  double dt = tide_opt_reqnum(&o, "dt", -HUGE_VAL, HUGE_VAL);
  tide_advect_opts a = tide_lua_advect_opts(&o);
  tide_array *valid = tide_opt_array(&o, "valid");
  if (valid) tide_lua_check(L, tide_grid_check_cells(g, valid, TIDE_U8, "valid"), fn);
  tide_advect_work *w = tide_opt_obj(&o, "work", AW_T);
  tide_array *region = tide_opt_array(&o, "region");
  if (region) {
    tide_lua_check(L, tide_grid_check_cells(g, region, TIDE_U8, "region"), fn);
    a.region = TIDE_U8P(region);
  }
  tide_array *out = cell_out(L, g, tide_opt_array(&o, "out"), fn, "out");
  if (out->buf == f->buf) tide_lua_error(L, "%s: out must not share memory with field", fn);
  tide_lua_check(L,
                 tide_levelset_advect_cells(g, vel, TIDE_F64P(f), dt, &a,
                                            valid ? TIDE_U8P(valid) : NULL, w, TIDE_F64P(out)),
                 fn);
  return 1;
}

/* Advect the MAC field q by vel over dt with the options in o (rk, interp,
 * scheme, clamp, valid, work, out); pushes and returns the result (out or a
 * new tide.Mac).  Used by tide.grid.advect_mac and Mac:advect. */
static void advect_mac_opts(lua_State *L, tide_opts *o, tide_mac *vel, tide_mac *q, double dt) {
  const char *fn = o->fname;
  tide_lua_check(L, tide_mac_check(q, NULL, TIDE_F64, "field"), fn);
  tide_lua_check(L, tide_mac_check(vel, &q->grid, TIDE_F64, "velocity"), fn);
  tide_advect_opts a = tide_lua_advect_opts(o);
  tide_mac *valid = tide_opt_obj(o, "valid", TIDE_MAC_T);
  if (valid) tide_lua_check(L, tide_mac_check(valid, &q->grid, TIDE_U8, "valid"), fn);
  tide_advect_work *w = tide_opt_obj(o, "work", AW_T);
  tide_array *region = tide_opt_array(o, "region");
  if (region) {
    tide_lua_check(L, tide_grid_check_cells(&q->grid, region, TIDE_U8, "region"), fn);
    a.region = TIDE_U8P(region);
  }
  tide_mac *out = tide_opt_obj(o, "out", TIDE_MAC_T);
  if (out) {
    tide_lua_check(L, tide_mac_check(out, &q->grid, TIDE_F64, "out"), fn);
    lua_getfield(L, o->idx, "out");
  } else {
    tide_lua_check(L, tide_mac_new(&q->grid, TIDE_F64, &out), fn);
    tide_lua_pushobj(L, TIDE_MAC_T, out);
    tide_lua_gcaccount(L);
  }
  tide_lua_check(L, tide_levelset_advect_mac(vel, q, dt, &a, valid, w, out), fn);
}

static const char *const advm_keys[] = {"velocity", "field", "dt",   "rk",     "interp", "scheme",
                                        "clamp",    "valid", "work", "region", "out",    NULL};
/* tide.grid.advect_mac{ velocity = Mac, field = Mac, dt = s [, rk, interp,
 *   scheme, clamp, valid = u8 Mac, work, region = u8 cells, out = Mac] } -> out: the options of
 *   advect_scalar, applied to every face lattice of field */
static int l_advect_mac(lua_State *L) {
  const char *fn = "tide.grid.advect_mac";
  tide_opts o = tide_lua_opts(L, 1, fn, advm_keys);
  tide_mac *vel = tide_opt_reqobj(&o, "velocity", TIDE_MAC_T);
  tide_mac *q = tide_opt_reqobj(&o, "field", TIDE_MAC_T);
  double dt = tide_opt_reqnum(&o, "dt", -HUGE_VAL, HUGE_VAL);
  advect_mac_opts(L, &o, vel, q, dt);
  return 1;
}

static const char *const advmm_keys[] = {"rk",   "interp", "scheme", "clamp", "valid",
                                         "work", "region", "out",    NULL};
/* Mac:advect(vel, dt, {options}) (lua_grid.c): the table form, options as
 * tide.grid.advect_mac without velocity/field/dt */
int tide_lua_mac_advect_opts(lua_State *L, tide_mac *q, tide_mac *vel, double dt, int idx,
                             const char *fn) {
  tide_opts o = tide_lua_opts(L, idx, fn, advmm_keys);
  advect_mac_opts(L, &o, vel, q, dt);
  return 1;
}

/* ================================================================= open */

static const luaL_Reg funcs[] = {{"particle_sdf", l_particle_sdf},
                                 {"redistance", l_redistance},
                                 {"extrapolate", l_extrapolate},
                                 {"valid_faces", l_valid_faces},
                                 {"band_mask", l_band_mask},
                                 {"constrain_mac", l_constrain_mac},
                                 {"components", l_components},
                                 {"volume", l_volume},
                                 {"correct_volume", l_correct_volume},
                                 {"volume_tracker", l_volume_tracker},
                                 {"sample_cubic", l_sample_cubic},
                                 {"advect_scalar", l_advect_scalar},
                                 {"advect_mac", l_advect_mac},
                                 {"advect_work", l_advect_work},
                                 {NULL, NULL}};

void tide_lua_grid_levelset_open(lua_State *L) {
  tide_lua_newtype(L, VT_T, vt_methods, vt_meta);
  tide_lua_newtype(L, AW_T, aw_methods, aw_meta);
  luaL_setfuncs(L, funcs, 0);
  tide_lua_shape_open(L);
  lua_setfield(L, -2, "shape");
}
