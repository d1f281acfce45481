/*
 * lua_fileio_3d.c -- tide.fileio.png3d (3D frames by the software renderer)
 * and tide.fileio.isosurface (marching cubes).  Registered by lua_fileio.c.
 */
#include "tide_lua.h"

#include "fileio/fileio.h"
#include "fileio/lua_fileio_util.h"
#include "solid/mesh.h"

#include <math.h>
#include <string.h>

#define FN "tide.fileio"

/* the 3D cell field phi on a grid given by `grid` (3D tide.Grid) or
 * dx/origin; the array gives the cell counts */
static void field3d_opts(lua_State *L, tide_opts *o, const char *F, tide_array *phi,
                         tide_field3d *f) {
  if (phi->ndim != 3) tide_lua_error(L, "%s: option 'phi' must be a 3D cell array (ni, nj, nk)", F);
  tide_grid *g = tide_opt_obj(o, "grid", TIDE_GRID_T);
  double org[3] = {0, 0, 0};
  if (g) {
    if (g->dim != 3) tide_lua_error(L, "%s: option 'grid' must be a 3D grid", F);
    for (int d = 0; d < 3; d++)
      if (phi->shape[d] != g->n[d])
        tide_lua_error(L,
                       "%s: option 'phi' has shape (%I, %I, %I), the grid has (%d, %d, %d) cells",
                       F, (lua_Integer)phi->shape[0], (lua_Integer)phi->shape[1],
                       (lua_Integer)phi->shape[2], g->n[0], g->n[1], g->n[2]);
    if (tide_opt_has(o, "dx") || tide_opt_has(o, "origin"))
      tide_lua_error(L, "%s: give either 'grid' or 'dx'/'origin', not both", F);
    f->dx = g->dx;
    memcpy(org, g->origin, sizeof org);
  } else {
    if (!tide_opt_has(o, "dx"))
      tide_lua_error(L, "%s: the cell size is unknown: give 'grid' or 'dx'", F);
    f->dx = tide_opt_num(o, "dx", 1, 0, HUGE_VAL);
    if (!(f->dx > 0)) tide_lua_error(L, "%s: option 'dx' must be positive", F);
    tide_opt_vec(o, "origin", 3, 3, org);
  }
  for (int d = 0; d < 3; d++) {
    if (phi->shape[d] < 1 || phi->shape[d] > (1 << 20))
      tide_lua_error(L, "%s: phi has an empty axis", F);
    f->n[d] = (int)phi->shape[d];
    f->origin[d] = org[d];
  }
  int64_t shp[3] = {-1, -1, -1};
  f->v = tide_lua_fileio_f64(L, phi, F, "phi", 3, shp);
  int64_t n = (int64_t)f->n[0] * f->n[1] * f->n[2];
  for (int64_t k = 0; k < n; k++)
    if (!isfinite(f->v[k]))
      tide_lua_error(L, "%s: option 'phi' holds a non-finite value at entry %I", F,
                     (lua_Integer)(k + 1));
}

/* tide.fileio.isosurface{ phi =, grid = | dx =, origin =, iso = 0, close = true }
 *   -> vertices (nv, 3), normals (nv, 3), triangles (nt, 3) i32 (0-based) */
static const char *const iso_keys[] = {"phi", "grid", "dx", "origin", "iso", "close", NULL};

/* the surface of option 'phi' (with grid/dx/origin/iso/close) pushed as
 * three arrays; *f receives the field's grid */
static void push_isosurface(lua_State *L, tide_opts *o, const char *F, tide_array *phi,
                            tide_field3d *f, tide_array **V, tide_array **N, tide_array **T) {
  field3d_opts(L, o, F, phi, f);
  double iso = tide_opt_num(o, "iso", 0, -HUGE_VAL, HUGE_VAL);
  int close = tide_opt_bool(o, "close", 1);
  tide_lua_check(L, tide_isosurface(f, iso, close, V, N, T), F);
  tide_lua_pusharray(L, *V);
  tide_lua_pusharray(L, *N);
  tide_lua_pusharray(L, *T);
}

static int l_isosurface(lua_State *L) {
  const char *F = FN ".isosurface";
  tide_opts o = tide_lua_opts(L, 1, F, iso_keys);
  tide_array *phi = tide_opt_reqarray(&o, "phi"), *V, *N, *T;
  tide_field3d f;
  push_isosurface(L, &o, F, phi, &f, &V, &N, &T);
  return 3;
}

/* ----------------------------------------------------------- png3d */

static const char *const png3d_keys[] = {
    "path", "width", "height", "antialias", "camera", "background", "title", "font_scale",
    "foreground", "bounds", "view", "colorbar", "colorbar_label",
    /* liquid surface */
    "phi", "grid", "dx", "origin", "iso", "close", "liquid_color", "liquid_specular",
    /* particles */
    "particles", "particle_color", "particle_range", "particle_colormap", "particle_rgb", "radius",
    /* meshes */
    "meshes",
    /* environment */
    "ground", "ground_y", "ground_tile", "box", "box_color", "lights", "ambient", "shadows",
    "shadow_res", NULL};

static const char *const mesh_keys[] = {
    "mesh",     "vertices", "triangles", "normals", "color",      "values",     "range",
    "colormap", "specular", "shininess", "wire",    "wire_color", "index_base", NULL};
static const char *const cam_keys[] = {"position", "target", "up", "fov", "ortho", NULL};
static const char *const light_keys[] = {"dir", "color", NULL};

/* {min = {x, y, z}, max = {..}} at the top of the stack -> lo, hi (checked) */
static void read_box(lua_State *L, const char *F, const char *what, double lo[3], double hi[3]) {
  static const char *const keys[] = {"min", "max", NULL};
  tide_opts b = tide_lua_opts(L, lua_gettop(L), F, keys);
  if (tide_opt_vec(&b, "min", 3, 3, lo) != 3 || tide_opt_vec(&b, "max", 3, 3, hi) != 3)
    tide_lua_error(L, "%s: %s needs 'min' and 'max' with 3 entries", F, what);
  for (int d = 0; d < 3; d++)
    if (!(lo[d] <= hi[d])) tide_lua_error(L, "%s: %s: min[%d] > max[%d]", F, what, d + 1, d + 1);
}

static void set_vec(lua_State *L, const char *key, const double *v, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushnumber(L, v[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, key);
}

/* Record the framing of this picture in the view table at vi (empty until
 * the first frame of a sequence fills it): camera, bounds, ground_y. */
static void view_store(lua_State *L, int vi, const tide_render3d *r, const double lo[3],
                       const double hi[3]) {
  lua_createtable(L, 0, 5);
  set_vec(L, "position", r->cam.pos, 3);
  set_vec(L, "target", r->cam.target, 3);
  set_vec(L, "up", r->cam.up, 3);
  if (r->cam.ortho > 0) {
    lua_pushnumber(L, r->cam.ortho);
    lua_setfield(L, -2, "ortho");
  } else {
    lua_pushnumber(L, r->cam.fov);
    lua_setfield(L, -2, "fov");
  }
  lua_setfield(L, vi, "camera");
  lua_createtable(L, 0, 2);
  set_vec(L, "min", lo, 3);
  set_vec(L, "max", hi, 3);
  lua_setfield(L, vi, "bounds");
  if (r->ground) {
    lua_pushnumber(L, r->ground_y);
    lua_setfield(L, vi, "ground_y");
  }
}

static int l_png3d(lua_State *L) {
  const char *F = FN ".png3d";
  tide_opts o = tide_lua_opts(L, 1, F, png3d_keys);
  const char *path = tide_opt_str(&o, "path", NULL);
  if (!path || !*path) tide_lua_error(L, "%s: missing option 'path'", F);
  tide_render3d r;
  tide_render3d_defaults(&r);
  r.width = (int)tide_opt_int(&o, "width", 640, 16, 8192);
  r.height = (int)tide_opt_int(&o, "height", r.width * 3 / 4, 16, 8192);
  r.ss = (int)tide_opt_int(&o, "antialias", 2, 1, 4);
  int fs = (int)tide_opt_int(&o, "font_scale", r.width >= 900 ? 2 : 1, 1, 16);
  const char *title = tide_opt_str(&o, "title", NULL);
  static const float black[3] = {0, 0, 0};
  float fg[3];
  tide_lua_fileio_color(&o, "foreground", black, fg);
  if (tide_opt_has(&o, "background")) {
    float bg[3];
    tide_lua_fileio_color(&o, "background", black, bg);
    memcpy(r.bg_top, bg, sizeof bg);
    memcpy(r.bg_bottom, bg, sizeof bg);
  }

  /* scene box: the grid's, or the bounds of what is drawn */
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  int have_box = 0;

  /* liquid surface */
  tide_mesh3d meshes[17];
  int nmesh = 0;
  double cbr[2] = {0, 1}; /* colour bar: range, colour map (-1: none), label */
  int cbm = -1;
  const char *cbl = NULL;
  tide_array *phi = tide_opt_array(&o, "phi");
  if (phi) {
    tide_field3d f;
    tide_array *V, *N, *T;
    push_isosurface(L, &o, F, phi, &f, &V, &N, &T);
    tide_mesh3d *m = &meshes[nmesh++];
    memset(m, 0, sizeof *m);
    m->nv = V->shape[0];
    m->v = TIDE_F64P(V);
    m->n = TIDE_F64P(N);
    m->nt = T->shape[0];
    m->t = TIDE_I32P(T);
    static const float water[3] = {0.22f, 0.50f, 0.92f};
    tide_lua_fileio_color(&o, "liquid_color", water, m->color);
    m->specular = (float)tide_opt_num(&o, "liquid_specular", 0.6, 0, 10);
    m->shininess = 60;
    for (int d = 0; d < 3; d++) {
      lo[d] = f.origin[d];
      hi[d] = f.origin[d] + f.n[d] * f.dx;
    }
    have_box = 1;
  } else {
    for (const char *const *k = (const char *const[]){"grid", "dx", "origin", "iso", "close", NULL};
         *k; k++)
      if (tide_opt_has(&o, *k) && strcmp(*k, "grid"))
        tide_lua_error(L, "%s: option '%s' needs 'phi'", F, *k);
    tide_grid *g = tide_opt_obj(&o, "grid", TIDE_GRID_T);
    if (g) {
      for (int d = 0; d < 3; d++) {
        lo[d] = g->origin[d];
        hi[d] = g->origin[d] + (d < g->dim ? g->n[d] * g->dx : 0);
      }
      have_box = 1;
    }
  }

  /* the picture's box: 'bounds' (the scene's domain), else a view's
   * recorded bounds (a sequence keeps the framing of its first frame),
   * else the grid's, else what is drawn */
  int domain = have_box, vi = 0, view_set = 0;
  if (tide_opt_has(&o, "view")) {
    lua_getfield(L, o.idx, "view");
    if (!lua_istable(L, -1))
      tide_lua_error(L, "%s: option 'view' must be a table (empty before the first frame)", F);
    vi = lua_gettop(L);
    view_set = lua_getfield(L, vi, "camera") != LUA_TNIL;
    lua_pop(L, 1);
  }
  if (tide_opt_has(&o, "bounds")) {
    lua_getfield(L, o.idx, "bounds");
    read_box(L, F, "option 'bounds'", lo, hi);
    lua_pop(L, 1);
    have_box = domain = 1;
  } else if (view_set) {
    if (lua_getfield(L, vi, "bounds") != LUA_TTABLE) tide_lua_error(L, "%s: view.bounds missing", F);
    read_box(L, F, "view.bounds", lo, hi);
    lua_pop(L, 1);
    have_box = 1;
  }

  /* meshes = { {vertices =, triangles =, ...}, ... } */
  if (tide_opt_has(&o, "meshes")) {
    lua_getfield(L, o.idx, "meshes");
    if (!lua_istable(L, -1))
      tide_lua_error(L, "%s: option 'meshes' must be a list of mesh tables", F);
    int mt = lua_gettop(L);
    lua_Integer n = luaL_len(L, mt);
    if (n > 16) tide_lua_error(L, "%s: at most 16 meshes, got %I", F, n);
    for (lua_Integer q = 1; q <= n; q++) {
      lua_geti(L, mt, q);
      int ti = lua_gettop(L);
      char fname[64];
      snprintf(fname, sizeof fname, "%s: meshes[%d]", F, (int)q);
      /* a tide.TetMesh alone, or a table {mesh = TetMesh | vertices =, triangles =, ...} */
      if (tide_lua_fileio_mesh(L, ti)) {
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, ti);
        lua_setfield(L, -2, "mesh");
        lua_replace(L, ti);
      }
      tide_opts mo = tide_lua_opts(L, ti, fname, mesh_keys);
      tide_mesh3d *m = &meshes[nmesh++];
      memset(m, 0, sizeof *m);
      tide_array *va, *ta;
      int base = 0;
      if (tide_opt_has(&mo, "mesh")) {
        if (tide_opt_has(&mo, "vertices") || tide_opt_has(&mo, "triangles"))
          tide_lua_error(L, "%s: give 'mesh' or 'vertices'/'triangles', not both", fname);
        lua_getfield(L, ti, "mesh");
        tide_tetmesh *tm = tide_lua_fileio_mesh(L, -1);
        if (!tm)
          tide_lua_error(L, "%s: 'mesh' must be a %s, got %s", fname, TIDE_TETMESH_T,
                         luaL_typename(L, -1));
        lua_pop(L, 1);
        if (tm->dim != 3) tide_lua_error(L, "%s: 'mesh' must be a 3D mesh", fname);
        va = tm->x;
        ta =
            tm->surface ? tm->elem : tm->bound; /* shells: their triangles; volumes: the boundary */
      } else {
        va = tide_opt_reqarray(&mo, "vertices");
        ta = tide_opt_reqarray(&mo, "triangles");
        base = (int)tide_opt_int(&mo, "index_base", 0, 0, 1);
      }
      int64_t s3[2] = {-1, 3};
      m->v = tide_lua_fileio_f64(L, va, fname, "vertices", 2, s3);
      m->nv = va->shape[0];
      m->t = tide_lua_fileio_index(L, ta, fname, "triangles", 3, m->nv, base, &m->nt);
      tide_array *na = tide_opt_array(&mo, "normals");
      if (na) {
        int64_t sn[2] = {m->nv, 3};
        m->n = tide_lua_fileio_f64(L, na, fname, "normals", 2, sn);
      }
      static const float solid[3] = {0.85f, 0.55f, 0.30f}, wire[3] = {0.1f, 0.1f, 0.1f};
      tide_lua_fileio_color(&mo, "color", solid, m->color);
      tide_array *vals = tide_opt_array(&mo, "values");
      if (vals) { /* per-vertex attribute through a colour map */
        int64_t s1[1] = {m->nv};
        const double *vv = tide_lua_fileio_f64(L, vals, fname, "values", 1, s1);
        double rg[2];
        if (!tide_lua_fileio_range(&mo, "range", rg)) tide_lua_fileio_autorange(vv, m->nv, rg);
        int cm = tide_lua_fileio_cmap(&mo, "colormap", "viridis");
        if (cbm < 0) { /* the colour bar shows the first mesh's values (particles' when coloured) */
          memcpy(cbr, rg, sizeof rg);
          cbm = cm;
        }
        tide_array *ca = tide_array_new2(TIDE_F32, m->nv, 3);
        if (!ca) tide_lua_error(L, "%s: %s", fname, tide_errmsg());
        tide_lua_pusharray(L, ca);
        float *cp = TIDE_F32P(ca);
        for (int64_t v = 0; v < m->nv; v++)
          tide_cmap_eval((tide_cmap)cm, (vv[v] - rg[0]) / (rg[1] - rg[0]), cp + 3 * v);
        m->vcolor = cp;
      } else if (tide_opt_has(&mo, "range") || tide_opt_has(&mo, "colormap")) {
        tide_lua_error(L, "%s: 'range'/'colormap' need 'values'", fname);
      }
      m->specular = (float)tide_opt_num(&mo, "specular", 0.25, 0, 10);
      m->shininess = (float)tide_opt_num(&mo, "shininess", 30, 1, 10000);
      m->wire = (float)tide_opt_num(&mo, "wire", 0, 0, 100);
      tide_lua_fileio_color(&mo, "wire_color", wire, m->wire_color);
      for (int64_t v = 0; v < m->nv; v++)
        for (int d = 0; d < 3; d++) {
          if (!isfinite(m->v[3 * v + d]))
            tide_lua_error(L, "%s: vertex %I is not finite", fname, (lua_Integer)(v + 1));
          if (!have_box) {
            lo[d] = fmin(lo[d], m->v[3 * v + d]);
            hi[d] = fmax(hi[d], m->v[3 * v + d]);
          }
        }
      lua_remove(L, ti); /* the mesh table (still held by the list); converted arrays stay */
    }
    /* the list stays on the stack: it anchors the meshes' arrays */
  }
  r.nmesh = nmesh;
  r.mesh = meshes;

  /* particles */
  tide_array *pvel;
  tide_array *parts = tide_lua_fileio_points(&o, "particles", &pvel);
  if (parts) {
    int64_t s3[2] = {-1, 3};
    r.pp = tide_lua_fileio_f64(L, parts, F, "particles", 2, s3);
    r.np = parts->shape[0];
    for (int64_t k = 0; k < 3 * r.np; k++)
      if (!isfinite(r.pp[k]))
        tide_lua_error(L, "%s: particle %I has a non-finite position", F, (lua_Integer)(k / 3 + 1));
    const double *vv = tide_lua_fileio_attribute(&o, "particle_color", r.np, pvel);
    if (vv) {
      double rg[2];
      if (!tide_lua_fileio_range(&o, "particle_range", rg)) tide_lua_fileio_autorange(vv, r.np, rg);
      int cm = tide_lua_fileio_cmap(&o, "particle_colormap", "viridis");
      memcpy(cbr, rg, sizeof rg);
      cbm = cm;
      cbl = tide_lua_fileio_barlabel(&o, "particle_color");
      tide_array *ca = tide_array_new2(TIDE_F32, r.np, 3);
      if (!ca) tide_lua_error(L, "%s: %s", F, tide_errmsg());
      tide_lua_pusharray(L, ca);
      float *cp = TIDE_F32P(ca);
      for (int64_t k = 0; k < r.np; k++)
        tide_cmap_eval((tide_cmap)cm, (vv[k] - rg[0]) / (rg[1] - rg[0]), cp + 3 * k);
      r.pcolor = cp;
    }
    static const float pdef[3] = {0.20f, 0.45f, 0.85f};
    tide_lua_fileio_color(&o, "particle_rgb", pdef, r.prgb);
    if (!have_box)
      for (int64_t k = 0; k < r.np; k++)
        for (int d = 0; d < 3; d++) {
          lo[d] = fmin(lo[d], r.pp[3 * k + d]);
          hi[d] = fmax(hi[d], r.pp[3 * k + d]);
        }
  } else if (tide_opt_has(&o, "particle_color")) {
    tide_lua_error(L, "%s: option 'particle_color' needs 'particles'", F);
  }
  if (!(lo[0] <= hi[0]))
    tide_lua_error(L, "%s: nothing to draw: give 'phi', 'particles', 'meshes' or 'grid'", F);
  double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                     (hi[2] - lo[2]) * (hi[2] - lo[2]));
  if (!(diag > 0)) diag = 1;
  double rad_def = r.np > 0 ? 0.004 * diag : 0.01;
  if (phi)
    rad_def = 0.25 * (hi[0] - lo[0]) / phi->shape[0];
  else {
    tide_grid *g = tide_opt_obj(&o, "grid", TIDE_GRID_T);
    if (g) rad_def = 0.25 * g->dx;
  }
  r.pradius = tide_opt_num(&o, "radius", rad_def, 0, HUGE_VAL);
  if (!(r.pradius > 0)) tide_lua_error(L, "%s: option 'radius' must be positive", F);

  /* environment */
  r.box = tide_opt_bool(&o, "box", domain);
  memcpy(r.box_lo, lo, sizeof lo);
  memcpy(r.box_hi, hi, sizeof hi);
  static const float boxc[3] = {0.15f, 0.15f, 0.15f};
  tide_lua_fileio_color(&o, "box_color", boxc, r.box_color);
  /* the ground lies where the scene says (ground_y), at the bottom of its
   * domain (grid, phi, bounds), or where the first frame of a view put it;
   * a picture of bare meshes/particles has none (the drawn bounds are no floor) */
  double gy = lo[1];
  int view_ground = 0;
  if (view_set) {
    view_ground = lua_getfield(L, vi, "ground_y") == LUA_TNUMBER;
    if (view_ground) gy = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  r.ground = tide_opt_bool(&o, "ground", domain || view_ground || tide_opt_has(&o, "ground_y"));
  r.ground_y = tide_opt_num(&o, "ground_y", gy, -HUGE_VAL, HUGE_VAL);
  r.ground_tile = tide_opt_num(&o, "ground_tile", pow(10, floor(log10(diag / 4))), 1e-12, HUGE_VAL);
  r.ambient = (float)tide_opt_num(&o, "ambient", 0.25, 0, 10);
  r.shadows = tide_opt_bool(&o, "shadows", 1);
  r.shadow_res = (int)tide_opt_int(&o, "shadow_res", 2048, 64, 8192);
  if (tide_opt_has(&o, "lights")) {
    lua_getfield(L, o.idx, "lights");
    if (!lua_istable(L, -1))
      tide_lua_error(L, "%s: option 'lights' must be a list of {dir =, color =}", F);
    int lt = lua_gettop(L);
    lua_Integer n = luaL_len(L, lt);
    if (n > 2) tide_lua_error(L, "%s: at most 2 lights, got %I", F, n);
    r.nlight = (int)n;
    for (int q = 0; q < n; q++) {
      lua_geti(L, lt, q + 1);
      char fname[64];
      snprintf(fname, sizeof fname, "%s: lights[%d]", F, q + 1);
      tide_opts lo2 = tide_lua_opts(L, -1, fname, light_keys);
      double dir[3];
      if (!tide_opt_vec(&lo2, "dir", 3, 3, dir)) tide_lua_error(L, "%s: missing 'dir'", fname);
      double l = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
      if (!(l > 0)) tide_lua_error(L, "%s: 'dir' must not be zero", fname);
      for (int d = 0; d < 3; d++)
        r.light_dir[q][d] = dir[d] / l;
      static const float white[3] = {0.85f, 0.85f, 0.85f};
      float c[3];
      double cv[3];
      if (tide_opt_vec(&lo2, "color", 3, 3, cv)) {
        for (int d = 0; d < 3; d++) {
          if (!(cv[d] >= 0 && cv[d] <= 10))
            tide_lua_error(L, "%s: 'color' entries must be in [0, 10]", fname);
          c[d] = (float)cv[d];
        }
      } else {
        memcpy(c, white, sizeof c);
      }
      memcpy(r.light_color[q], c, sizeof c);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }

  /* camera: framed on the box unless given */
  tide_camera3d_frame(&r.cam, lo, hi, 35, (double)r.width / r.height);
  int cam_opt = tide_opt_has(&o, "camera");
  if (cam_opt || view_set) {
    if (cam_opt)
      lua_getfield(L, o.idx, "camera");
    else
      lua_getfield(L, vi, "camera");
    tide_opts co = tide_lua_opts(L, -1, F, cam_keys);
    co.fname = F;
    double v[3];
    double fov = tide_opt_num(&co, "fov", r.cam.fov, 1, 170);
    if (tide_opt_has(&co, "fov") && tide_opt_has(&co, "ortho"))
      tide_lua_error(
          L, "%s: camera: give 'fov' (perspective) or 'ortho' (height in metres), not both", F);
    int have_pos = tide_opt_vec(&co, "position", 3, 3, v);
    if (tide_opt_vec(&co, "target", 3, 3, r.cam.target) == 0 && have_pos) {
      /* keep the framed target */
    }
    if (have_pos) {
      memcpy(r.cam.pos, v, sizeof v);
    } else if (tide_opt_has(&co, "fov")) {
      /* re-frame for the new field of view */
      double t[3];
      memcpy(t, r.cam.target, sizeof t);
      tide_camera3d_frame(&r.cam, lo, hi, fov, (double)r.width / r.height);
      memcpy(r.cam.target, t, sizeof t);
    }
    r.cam.fov = fov;
    if (tide_opt_vec(&co, "up", 3, 3, v)) memcpy(r.cam.up, v, sizeof v);
    r.cam.ortho = tide_opt_num(&co, "ortho", 0, 0, HUGE_VAL);
    if (tide_opt_has(&co, "ortho") && !(r.cam.ortho > 0))
      tide_lua_error(L, "%s: camera 'ortho' must be positive", F);
    double dd[3] = {r.cam.target[0] - r.cam.pos[0], r.cam.target[1] - r.cam.pos[1],
                    r.cam.target[2] - r.cam.pos[2]};
    if (!(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2] > 0))
      tide_lua_error(L, "%s: camera position equals its target", F);
    lua_pop(L, 1);
  }

  if (vi && !view_set) view_store(L, vi, &r, lo, hi);
  int colorbar = tide_opt_bool(&o, "colorbar", cbm >= 0);
  if (colorbar && cbm < 0)
    tide_lua_error(L, "%s: a colour bar needs 'particle_color' or a mesh with 'values'", F);
  if (tide_opt_has(&o, "colorbar_label")) cbl = tide_opt_str(&o, "colorbar_label", NULL);

  tide_canvas *cv;
  tide_lua_check(L, tide_render3d_draw(&r, &cv), F);
  if (title && *title) tide_canvas_text(cv, 0.5 * r.width, 4 * fs, title, fs, 0.5, fg);
  int st = TIDE_OK;
  if (colorbar) { /* at the right edge, with its ticks and label */
    double t[64], step;
    int nt, lw = 0;
    st = tide_nice_ticks(cbr[0], cbr[1], 6, t, 64, &nt, &step);
    for (int k = 0; !st && k < nt; k++) {
      char buf[48];
      tide_format_tick(t[k], step, buf, sizeof buf);
      int tw = tide_text_width(buf, fs);
      if (tw > lw) lw = tw;
    }
    double bw = 10 * fs, bh = 0.6 * r.height, bx = r.width - bw - 5 * fs - lw - 6 * fs;
    double by = 0.5 * (r.height - bh) + 6 * fs;
    if (!st) st = tide_draw_colorbar(cv, bx, by, bw, bh, cbr[0], cbr[1], (tide_cmap)cbm, 6, fs, cbl, fg);
  }
  if (!st) st = tide_canvas_write_png(cv, path);
  tide_canvas_free(cv);
  tide_lua_check(L, st, F);
  lua_pushstring(L, path);
  return 1;
}

static const luaL_Reg funcs3d[] = {{"png3d", l_png3d}, {"isosurface", l_isosurface}, {NULL, NULL}};

void tide_lua_fileio_3d_open(lua_State *L) { luaL_setfuncs(L, funcs3d, 0); }
