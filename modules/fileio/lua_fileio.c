/*
 * lua_fileio.c -- tide.fileio: PNG frames of 2D scenes, PNG read/write of
 * arrays, and (through the lua_fileio_*.c parts) 3D views, plots, VTK,
 * PLY/OBJ/npy exports and checkpoints.  The Lua API is documented in
 * docs/output.md.
 */
#include "tide_lua.h"

#include "fileio/fileio.h"
#include "fileio/lua_fileio_util.h"
#include "liquid/particles.h"
#include "solid/mesh.h"

#include <math.h>
#include <string.h>

#define FN "tide.fileio"

/* ------------------------------------------------------------ helpers */

const double *tide_lua_fileio_f64(lua_State *L, tide_array *a, const char *fname, const char *what,
                                  int ndim, const int64_t *shape) {
  if (a->ndim != ndim)
    tide_lua_error(L, "%s: %s must have %d dimensions, got %d", fname, what, ndim, a->ndim);
  for (int d = 0; d < ndim; d++)
    if (shape[d] >= 0 && a->shape[d] != shape[d])
      tide_lua_error(L, "%s: %s has extent %I along axis %d, expected %I", fname, what,
                     (lua_Integer)a->shape[d], d + 1, (lua_Integer)shape[d]);
  if (a->dtype == TIDE_F64 && tide_array_contiguous(a)) return TIDE_F64P(a);
  tide_array *c = tide_array_clone(a, TIDE_F64);
  if (!c) tide_lua_error(L, "%s: %s: %s", fname, what, tide_errmsg());
  tide_lua_pusharray(L, c); /* owned by the Lua stack until the call returns */
  return TIDE_F64P(c);
}

void tide_lua_fileio_color(tide_opts *o, const char *key, const float def[3], float out[3]) {
  double v[4];
  int n = tide_opt_vec(o, key, 3, 3, v);
  if (!n) {
    out[0] = def[0], out[1] = def[1], out[2] = def[2];
    return;
  }
  for (int d = 0; d < 3; d++) {
    if (v[d] < 0 || v[d] > 1)
      tide_lua_error(o->L, "%s: option '%s' must hold 3 numbers in [0, 1], got %f at %d", o->fname,
                     key, v[d], d + 1);
    out[d] = (float)v[d];
  }
}

int tide_lua_fileio_cmap(tide_opts *o, const char *key, const char *def) {
  return tide_opt_choice(o, key, def, tide_cmap_names);
}

/* {lo, hi} with lo < hi; returns 0 when absent */
int tide_lua_fileio_range(tide_opts *o, const char *key, double out[2]) {
  int n = tide_opt_vec(o, key, 2, 2, out);
  if (n && !(out[1] > out[0]))
    tide_lua_error(o->L, "%s: option '%s' must be {lo, hi} with lo < hi, got {%f, %f}", o->fname,
                   key, out[0], out[1]);
  return n;
}

/* range of the finite values of v[0..n) widened when flat; returns 0 when none */
int tide_lua_fileio_autorange(const double *v, int64_t n, double out[2]) {
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t k = 0; k < n; k++)
    if (isfinite(v[k])) {
      if (v[k] < lo) lo = v[k];
      if (v[k] > hi) hi = v[k];
    }
  if (!(lo <= hi)) {
    out[0] = 0, out[1] = 1;
    return 0;
  }
  if (hi == lo) {
    double d = lo == 0 ? 1 : 0.5 * fabs(lo);
    lo -= d, hi += d;
  }
  out[0] = lo, out[1] = hi;
  return 1;
}

tide_array *tide_lua_fileio_points(tide_opts *o, const char *key, tide_array **vel) {
  if (vel) *vel = NULL;
  if (!tide_opt_has(o, key)) return NULL;
  lua_getfield(o->L, o->idx, key);
  tide_array *a = tide_lua_testarray(o->L, -1);
  tide_particles *ps = a ? NULL : tide_lua_testobj(o->L, -1, TIDE_PARTICLES_T);
  if (!a && !ps)
    tide_lua_error(o->L, "%s: option '%s' must be a tide.Array (n, d) or a %s, got %s", o->fname,
                   key, TIDE_PARTICLES_T, luaL_typename(o->L, -1));
  lua_pop(o->L, 1); /* still referenced by the options table */
  if (ps) {
    if (vel) *vel = ps->v;
    return ps->x;
  }
  return a;
}

const char *tide_lua_fileio_barlabel(tide_opts *o, const char *key) {
  if (tide_opt_has(o, "colorbar_label")) return tide_opt_str(o, "colorbar_label", NULL);
  if (!key || !tide_opt_has(o, key)) return NULL;
  lua_getfield(o->L, o->idx, key);
  int speed = lua_type(o->L, -1) == LUA_TSTRING && !strcmp(lua_tostring(o->L, -1), "speed");
  lua_pop(o->L, 1);
  return speed ? "speed [m/s]" : NULL;
}

const double *tide_lua_fileio_attribute(tide_opts *o, const char *key, int64_t n, tide_array *vel) {
  lua_State *L = o->L;
  if (!tide_opt_has(o, key)) return NULL;
  lua_getfield(L, o->idx, key);
  if (lua_type(L, -1) == LUA_TSTRING) {
    const char *what = lua_tostring(L, -1);
    if (strcmp(what, "speed") != 0)
      tide_lua_error(L, "%s: option '%s' must be an array or \"speed\", got \"%s\"", o->fname, key,
                     what);
    if (!vel)
      tide_lua_error(L, "%s: option '%s' = \"speed\" needs a %s", o->fname, key, TIDE_PARTICLES_T);
    lua_pop(L, 1);
    int64_t shp[2] = {n, -1};
    const double *v = tide_lua_fileio_f64(L, vel, o->fname, "particle velocities", 2, shp);
    int d = (int)vel->shape[1];
    tide_array *sp = tide_array_new1(TIDE_F64, n);
    if (!sp) tide_lua_error(L, "%s: %s", o->fname, tide_errmsg());
    tide_lua_pusharray(L, sp);
    for (int64_t k = 0; k < n; k++) {
      double s2 = 0;
      for (int q = 0; q < d; q++)
        s2 += v[k * d + q] * v[k * d + q];
      TIDE_F64P(sp)[k] = sqrt(s2);
    }
    return TIDE_F64P(sp);
  }
  lua_pop(L, 1);
  tide_array *a = tide_opt_array(o, key);
  int64_t s1[1] = {n};
  return tide_lua_fileio_f64(L, a, o->fname, key, 1, s1);
}

tide_tetmesh *tide_lua_fileio_mesh(lua_State *L, int idx) {
  return tide_lua_testobj(L, idx, TIDE_TETMESH_T);
}

/* ---------------------------------------------------- tide.fileio.png2d */

static const char *const png2d_keys[] = {
    "path", "grid", "domain", "n", "dx", "width", "height", "background", "foreground", "title",
    "font_scale", "frame",
    /* field */
    "field", "range", "colormap", "interpolate", "colorbar", "colorbar_label",
    /* level set */
    "phi", "liquid_color", "liquid_alpha", "contour_color", "contour_width",
    /* cells */
    "labels", "solid_color",
    /* particles */
    "particles", "particle_color", "particle_range", "particle_colormap", "particle_rgb", "radius",
    "radius_px",
    /* arrows */
    "arrows", "arrow_vectors", "arrow_scale", "arrow_stride", "arrow_color", "arrow_width",
    /* meshes */
    "vertices", "triangles", "segments", "mesh", "mesh_color", "edge_color", "edge_width",
    "index_base", NULL};

typedef struct frame_grid {
  int have; /* a cell grid is known */
  int ni, nj;
  double dx, origin[2];
} frame_grid;

static void grid_from_array(lua_State *L, frame_grid *fg, tide_array *a, const char *what) {
  if (a->ndim != 2)
    tide_lua_error(L, FN ".png2d: option '%s' must be a 2D cell array (ni, nj), got %d dimensions",
                   what, a->ndim);
  if (!fg->have) {
    fg->ni = (int)a->shape[0];
    fg->nj = (int)a->shape[1];
    fg->have = 2; /* extents known, cell size maybe not */
  } else if (a->shape[0] != fg->ni || a->shape[1] != fg->nj) {
    tide_lua_error(L, FN ".png2d: option '%s' has shape (%I, %I), the grid has (%d, %d) cells",
                   what, (lua_Integer)a->shape[0], (lua_Integer)a->shape[1], fg->ni, fg->nj);
  }
}

/* the connectivity array (m, k) as 0-based int32 indices checked against nv */
const int32_t *tide_lua_fileio_index(lua_State *L, tide_array *a, const char *fname,
                                     const char *what, int k, int64_t nv, int base, int64_t *m) {
  if (a->ndim != 2 || a->shape[1] != k)
    tide_lua_error(L, "%s: option '%s' must have shape (m, %d)", fname, what, k);
  *m = a->shape[0];
  tide_array *c = tide_array_clone(a, TIDE_I32);
  if (!c) tide_lua_error(L, "%s: %s: %s", fname, what, tide_errmsg());
  tide_lua_pusharray(L, c);
  int32_t *p = TIDE_I32P(c);
  for (int64_t q = 0; q < *m * k; q++) {
    double orig = tide_array_getlin(a, q);
    if (orig != floor(orig) || fabs(orig) > 2e9)
      tide_lua_error(L, "%s: option '%s' holds a non-integral or huge index %f", fname, what, orig);
    p[q] -= base;
    if (p[q] < 0 || p[q] >= nv)
      tide_lua_error(
          L, "%s: option '%s' row %I refers to vertex %d, outside %d..%I (index_base = %d)", fname,
          what, (lua_Integer)(q / k + 1), p[q] + base, base, (lua_Integer)(nv - 1 + base), base);
  }
  return p;
}

static int l_png2d(lua_State *L) {
  const char *F = FN ".png2d";
  tide_opts o = tide_lua_opts(L, 1, F, png2d_keys);
  const char *path = tide_opt_str(&o, "path", NULL);
  if (!path) tide_lua_error(L, "%s: missing option 'path'", F);
  if (!*path) tide_lua_error(L, "%s: option 'path' is empty", F);

  /* ---- the cell grid and the world box */
  frame_grid fg = {0, 0, 0, 0, {0, 0}};
  tide_grid *grid = tide_opt_obj(&o, "grid", TIDE_GRID_T);
  if (grid) {
    if (grid->dim != 2)
      tide_lua_error(L, "%s: option 'grid' must be a 2D grid (use tide.fileio.png3d for 3D)", F);
    fg.have = 1;
    fg.ni = grid->n[0], fg.nj = grid->n[1];
    fg.dx = grid->dx;
    fg.origin[0] = grid->origin[0], fg.origin[1] = grid->origin[1];
  }
  double nn[2];
  if (tide_opt_vec(&o, "n", 2, 2, nn)) {
    if (grid) tide_lua_error(L, "%s: give either 'grid' or 'n', not both", F);
    if (nn[0] < 1 || nn[1] < 1 || nn[0] != floor(nn[0]) || nn[1] != floor(nn[1]) ||
        nn[0] > 1 << 24 || nn[1] > 1 << 24)
      tide_lua_error(L, "%s: option 'n' must hold two positive integers", F);
    fg.have = 2;
    fg.ni = (int)nn[0], fg.nj = (int)nn[1];
  }
  double dxo = tide_opt_num(&o, "dx", 0, 0, HUGE_VAL);
  if (tide_opt_has(&o, "dx")) {
    if (grid) tide_lua_error(L, "%s: give either 'grid' or 'dx', not both", F);
    if (!(dxo > 0)) tide_lua_error(L, "%s: option 'dx' must be positive", F);
  }
  double dom_o[2] = {0, 0}, dom_s[2] = {0, 0};
  int have_domain = 0;
  if (tide_opt_has(&o, "domain")) {
    lua_getfield(L, o.idx, "domain");
    static const char *const dkeys[] = {"origin", "size", NULL};
    tide_opts d = tide_lua_opts(L, -1, F, dkeys);
    d.fname = F;
    if (tide_opt_vec(&d, "origin", 2, 2, dom_o) == 0) dom_o[0] = dom_o[1] = 0;
    if (tide_opt_vec(&d, "size", 2, 2, dom_s) == 0)
      tide_lua_error(L, "%s: option 'domain' needs size = {width, height}", F);
    if (!(dom_s[0] > 0) || !(dom_s[1] > 0))
      tide_lua_error(L, "%s: domain size must be positive, got {%f, %f}", F, dom_s[0], dom_s[1]);
    lua_pop(L, 1);
    have_domain = 1;
  }

  tide_array *field = tide_opt_array(&o, "field");
  tide_array *phi = tide_opt_array(&o, "phi");
  tide_array *labels = tide_opt_array(&o, "labels");
  if (field) grid_from_array(L, &fg, field, "field");
  if (phi) grid_from_array(L, &fg, phi, "phi");
  if (labels) grid_from_array(L, &fg, labels, "labels");
  if (labels && labels->dtype != TIDE_U8)
    tide_lua_error(L, "%s: option 'labels' must be a u8 array", F);
  if (labels && !tide_array_contiguous(labels)) {
    labels = tide_array_clone(labels, TIDE_U8);
    if (!labels) tide_lua_error(L, "%s: labels: %s", F, tide_errmsg());
    tide_lua_pusharray(L, labels);
  }
  if (fg.have == 2) { /* extents known: cell size from dx or from the domain */
    if (dxo > 0) {
      fg.dx = dxo;
      fg.origin[0] = dom_o[0], fg.origin[1] = dom_o[1];
    } else if (have_domain) {
      fg.dx = dom_s[0] / fg.ni;
      double dy = dom_s[1] / fg.nj;
      if (fabs(dy - fg.dx) > 1e-9 * fg.dx)
        tide_lua_error(L, "%s: domain size {%f, %f} does not give square cells for (%d, %d) cells",
                       F, dom_s[0], dom_s[1], fg.ni, fg.nj);
      fg.origin[0] = dom_o[0], fg.origin[1] = dom_o[1];
    } else {
      tide_lua_error(L, "%s: the cell size is unknown: give 'grid', 'dx' or 'domain'", F);
    }
    fg.have = 1;
  }
  double wx0, wy0, wx1, wy1; /* world box shown */
  if (have_domain) {
    wx0 = dom_o[0], wy0 = dom_o[1], wx1 = dom_o[0] + dom_s[0], wy1 = dom_o[1] + dom_s[1];
  } else if (fg.have) {
    wx0 = fg.origin[0], wy0 = fg.origin[1];
    wx1 = wx0 + fg.ni * fg.dx, wy1 = wy0 + fg.nj * fg.dx;
  } else {
    tide_lua_error(L,
                   "%s: nothing tells the picture's extent: give 'grid', 'domain', or a cell "
                   "array with 'dx'",
                   F);
    return 0;
  }

  /* ---- layout */
  int width = (int)tide_opt_int(&o, "width", 512, 16, 16384);
  int height = (int)tide_opt_int(&o, "height", 0, 0, 16384);
  if (tide_opt_has(&o, "height") && height < 16)
    tide_lua_error(L, "%s: option 'height' must be >= 16", F);
  int fs = (int)tide_opt_int(&o, "font_scale", width >= 700 ? 2 : 1, 1, 16);
  static const float white[3] = {1, 1, 1}, black[3] = {0, 0, 0};
  float bg[3], fgc[3];
  tide_lua_fileio_color(&o, "background", white, bg);
  tide_lua_fileio_color(&o, "foreground", black, fgc);
  const char *title = tide_opt_str(&o, "title", NULL);
  int frame = tide_opt_bool(&o, "frame", 1);

  const double *fv = NULL;
  double frange[2] = {0, 1};
  int cmap = tide_lua_fileio_cmap(&o, "colormap", "viridis");
  int interp = tide_opt_bool(&o, "interpolate", 0);
  if (field) {
    int64_t shp[2] = {fg.ni, fg.nj};
    fv = tide_lua_fileio_f64(L, field, F, "field", 2, shp);
    if (!tide_lua_fileio_range(&o, "range", frange))
      tide_lua_fileio_autorange(fv, (int64_t)fg.ni * fg.nj, frange);
  } else if (tide_opt_has(&o, "range")) {
    tide_lua_fileio_range(&o, "range", frange);
  }
  /* particles and their colour values (the colour bar shows them when there is no field) */
  tide_array *pvel;
  tide_array *parts = tide_lua_fileio_points(&o, "particles", &pvel);
  const double *pp = NULL, *pc = NULL;
  int64_t np = 0;
  double prange[2] = {0, 1};
  int pmap = tide_lua_fileio_cmap(&o, "particle_colormap", "viridis");
  if (parts) {
    int64_t shp[2] = {-1, 2};
    pp = tide_lua_fileio_f64(L, parts, F, "particles", 2, shp);
    np = parts->shape[0];
    pc = tide_lua_fileio_attribute(&o, "particle_color", np, pvel);
    if (pc && !tide_lua_fileio_range(&o, "particle_range", prange))
      tide_lua_fileio_autorange(pc, np, prange);
  } else if (tide_opt_has(&o, "particle_color")) {
    tide_lua_error(L, "%s: option 'particle_color' needs 'particles'", F);
  }
  int colorbar = tide_opt_bool(&o, "colorbar", field != NULL || pc != NULL);
  const char *cblabel = tide_lua_fileio_barlabel(&o, field ? NULL : "particle_color");
  if (colorbar && !field && !pc && !tide_opt_has(&o, "range") && !tide_opt_has(&o, "particle_range"))
    tide_lua_error(L, "%s: a colour bar needs 'field', 'particle_color', 'range' or 'particle_range'", F);

  /* colour bar width: bar, ticks and the widest tick label */
  int pad = 6 * fs, cbw = 0;
  double cbrange[2] = {frange[0], frange[1]};
  int cbmap = cmap;
  if (colorbar) {
    if (!field && (pc || tide_opt_has(&o, "particle_range")) && !tide_opt_has(&o, "range")) {
      if (pc)
        memcpy(cbrange, prange, sizeof prange);
      else
        tide_lua_fileio_range(&o, "particle_range", cbrange);
      cbmap = pmap;
    }
    double t[64], step;
    int nt;
    tide_nice_ticks(cbrange[0], cbrange[1], 6, t, 64, &nt, &step);
    int lw = 0;
    for (int k = 0; k < nt; k++) {
      char buf[48];
      tide_format_tick(t[k], step, buf, sizeof buf);
      int tw = tide_text_width(buf, fs);
      if (tw > lw) lw = tw;
    }
    cbw = 10 * fs + 12 * fs + 5 * fs + lw + 4 * fs;
    /* and its label above it, clear of the plot's frame */
    if (cblabel && *cblabel) {
      int lbw = tide_text_width(cblabel, fs) + 6 * fs;
      if (lbw > cbw) cbw = lbw;
    }
  }
  int th = title && *title ? 12 * fs : 0;
  double ww = wx1 - wx0, wh = wy1 - wy0;
  int pw = width - 2 * pad - cbw;
  if (pw < 8) tide_lua_error(L, "%s: width %d leaves no room for the picture", F, width);
  double s = pw / ww;
  if (height == 0) {
    height = (int)ceil(th + 2 * pad + s * wh);
    if (colorbar && height < th + 2 * pad + 60 * fs) height = th + 2 * pad + 60 * fs;
  } else {
    double ph = height - th - 2 * pad;
    if (ph < 8) tide_lua_error(L, "%s: height %d leaves no room for the picture", F, height);
    if (ph / wh < s) s = ph / wh;
  }
  tide_view2d view = {wx0, wy0, wx1, wy1, 0, 0, s};
  view.px = pad + 0.5 * (pw - s * ww);
  view.py = th + pad + 0.5 * (height - th - 2 * pad - s * wh);
  if (view.py < th + pad) view.py = th + pad;

  /* ---- everything else is checked before drawing */
  tide_field2d f2 = {fg.ni, fg.nj, fg.dx, {fg.origin[0], fg.origin[1]}, fv};
  const double *phiv = NULL;
  if (phi) {
    int64_t shp[2] = {fg.ni, fg.nj};
    phiv = tide_lua_fileio_f64(L, phi, F, "phi", 2, shp);
  }
  static const float liquid_def[3] = {0.25f, 0.52f, 0.90f}, contour_def[3] = {0.05f, 0.20f, 0.55f};
  float liquid[3], contour[3];
  tide_lua_fileio_color(&o, "liquid_color", liquid_def, liquid);
  tide_lua_fileio_color(&o, "contour_color", contour_def, contour);
  double liquid_alpha = tide_opt_num(&o, "liquid_alpha", field ? 0 : 1, 0, 1);
  double contour_w = tide_opt_num(&o, "contour_width", 1.5 * fs, 0, 100);
  static const float solid_def[3] = {0.55f, 0.55f, 0.57f};
  float solid[3];
  tide_lua_fileio_color(&o, "solid_color", solid_def, solid);

  static const float prgb_def[3] = {0.10f, 0.35f, 0.80f};
  float prgb[3];
  tide_lua_fileio_color(&o, "particle_rgb", prgb_def, prgb);
  double radius_px = 0;
  if (parts) {
    double r = tide_opt_num(&o, "radius", 0, 0, HUGE_VAL);
    if (tide_opt_has(&o, "radius") && !(r > 0))
      tide_lua_error(L, "%s: option 'radius' must be positive", F);
    if (tide_opt_has(&o, "radius_px")) {
      if (tide_opt_has(&o, "radius"))
        tide_lua_error(L, "%s: give 'radius' or 'radius_px', not both", F);
      radius_px = tide_opt_num(&o, "radius_px", 1, 0.05, 1000);
    } else if (r > 0) {
      radius_px = r * s;
    } else {
      radius_px = fg.have ? 0.25 * fg.dx * s : 2.0;
      if (radius_px < 1) radius_px = 1;
    }
  }

  /* arrows: a tide.Mac, or positions (n, 2) with arrow_vectors (n, 2) */
  const double *apos = NULL, *avec = NULL;
  int64_t na = 0;
  int astride = 1;
  if (tide_opt_has(&o, "arrows")) {
    lua_getfield(L, o.idx, "arrows");
    tide_mac *mac = tide_lua_testobj(L, -1, TIDE_MAC_T);
    tide_array *apa = tide_lua_testarray(L, -1);
    lua_pop(L, 1);
    if (mac) {
      if (mac->grid.dim != 2) tide_lua_error(L, "%s: option 'arrows' must be a 2D MAC field", F);
      int stride = (int)tide_opt_int(&o, "arrow_stride",
                                     mac->grid.n[0] > 24 ? mac->grid.n[0] / 24 : 1, 1, 1 << 20);
      astride = stride;
      int64_t cap = (int64_t)((mac->grid.n[0] + stride - 1) / stride + 1) *
                    ((mac->grid.n[1] + stride - 1) / stride + 1);
      tide_array *buf = tide_array_new2(TIDE_F64, 2 * cap, 2);
      if (!buf) tide_lua_error(L, "%s: %s", F, tide_errmsg());
      tide_lua_pusharray(L, buf);
      double *b = TIDE_F64P(buf);
      tide_lua_check(L, tide_mac_centres2d(mac, stride, b, b + 2 * cap, &na), F);
      apos = b, avec = b + 2 * cap;
      if (tide_opt_has(&o, "arrow_vectors"))
        tide_lua_error(L, "%s: 'arrow_vectors' is for position arrays, not a MAC field", F);
    } else if (apa) {
      int64_t shp[2] = {-1, 2};
      apos = tide_lua_fileio_f64(L, apa, F, "arrows", 2, shp);
      na = apa->shape[0];
      tide_array *av = tide_opt_array(&o, "arrow_vectors");
      if (!av) tide_lua_error(L, "%s: option 'arrows' as positions needs 'arrow_vectors'", F);
      int64_t s2[2] = {na, 2};
      avec = tide_lua_fileio_f64(L, av, F, "arrow_vectors", 2, s2);
      if (tide_opt_has(&o, "arrow_stride"))
        tide_lua_error(L, "%s: 'arrow_stride' applies to a MAC field only", F);
    } else {
      lua_getfield(L, o.idx, "arrows");
      tide_lua_error(L, "%s: option 'arrows' must be a tide.Mac or a tide.Array (n, 2), got %s", F,
                     luaL_typename(L, -1));
    }
    if (na > 0) {
      for (int64_t k = 0; k < 2 * na; k++)
        if (!isfinite(apos[k]) || !isfinite(avec[k]))
          tide_lua_error(L, "%s: arrows: non-finite position or vector at entry %I", F,
                         (lua_Integer)(k / 2 + 1));
    }
  } else if (tide_opt_has(&o, "arrow_vectors")) {
    tide_lua_error(L, "%s: option 'arrow_vectors' needs 'arrows'", F);
  }
  double ascale = 0;
  if (na > 0) {
    double vmax = 0;
    for (int64_t k = 0; k < na; k++)
      vmax = fmax(vmax, hypot(avec[2 * k], avec[2 * k + 1]));
    double spacing = fg.have ? fg.dx : 0.04 * fmax(ww, wh);
    ascale = tide_opt_num(&o, "arrow_scale", 0, 0, HUGE_VAL);
    if (!tide_opt_has(&o, "arrow_scale")) {
      ascale = vmax > 0 ? 0.9 * astride * spacing / vmax : 0;
    }
  }
  static const float arrow_def[3] = {0.1f, 0.1f, 0.1f};
  float acol[3];
  tide_lua_fileio_color(&o, "arrow_color", arrow_def, acol);
  double awidth = tide_opt_num(&o, "arrow_width", 1.2 * fs, 0.1, 100);

  /* triangle / segment meshes over `vertices` (nv, 2) */
  tide_array *verts = tide_opt_array(&o, "vertices");
  tide_array *tris = tide_opt_array(&o, "triangles");
  tide_array *segs = tide_opt_array(&o, "segments");
  if (tide_opt_has(&o, "mesh")) { /* a 2D tide.TetMesh: its triangles and boundary */
    if (verts || tris || segs)
      tide_lua_error(L, "%s: give 'mesh' or 'vertices'/'triangles'/'segments', not both", F);
    lua_getfield(L, o.idx, "mesh");
    tide_tetmesh *m = tide_lua_fileio_mesh(L, -1);
    if (!m)
      tide_lua_error(L, "%s: option 'mesh' must be a %s, got %s", F, TIDE_TETMESH_T,
                     luaL_typename(L, -1));
    lua_pop(L, 1);
    if (m->dim != 2) tide_lua_error(L, "%s: option 'mesh' must be a 2D mesh (use png3d for 3D)", F);
    verts = m->x;
    if (m->nper == 3) tris = m->elem;
    if (m->nper == 2) segs = m->elem; /* a rod network: its segments */
    else if (m->nb > 0) segs = m->bound;
  }
  int base = (int)tide_opt_int(&o, "index_base", 0, 0, 1);
  const double *vv = NULL;
  const int32_t *tv = NULL, *sv = NULL;
  int64_t nv = 0, nt = 0, ns = 0;
  if ((tris || segs) && !verts) tide_lua_error(L, "%s: 'triangles'/'segments' need 'vertices'", F);
  if (verts) {
    int64_t shp[2] = {-1, 2};
    vv = tide_lua_fileio_f64(L, verts, F, "vertices", 2, shp);
    nv = verts->shape[0];
    if (tris) tv = tide_lua_fileio_index(L, tris, F, "triangles", 3, nv, base, &nt);
    if (segs) sv = tide_lua_fileio_index(L, segs, F, "segments", 2, nv, base, &ns);
  }
  static const float mesh_def[3] = {0.85f, 0.55f, 0.30f}, edge_def[3] = {0.25f, 0.15f, 0.08f};
  float mcol[3], ecol[3];
  tide_lua_fileio_color(&o, "mesh_color", mesh_def, mcol);
  tide_lua_fileio_color(&o, "edge_color", edge_def, ecol);
  double ew = tide_opt_num(&o, "edge_width", 1.0 * fs, 0, 100);

  /* ---- draw */
  tide_canvas *cv;
  tide_lua_check(L, tide_canvas_new(width, height, bg, &cv), F);
  int st = TIDE_OK;
  if (fv) st = tide_draw_field(cv, &view, &f2, frange[0], frange[1], (tide_cmap)cmap, interp);
  if (!st && phiv) {
    tide_field2d p2 = f2;
    p2.v = phiv;
    st = tide_draw_levelset(cv, &view, &p2, liquid, (float)liquid_alpha, contour, contour_w, NULL);
  }
  if (!st && labels) /* solids drawn over the liquid: they are obstacles */
    st = tide_draw_cells(cv, &view, fg.ni, fg.nj, fg.dx, fg.origin, TIDE_U8P(labels),
                         TIDE_CELL_SOLID, solid, 1);
  if (!st && nv > 0) {
    tide_array *pix = tide_array_new2(TIDE_F64, nv, 2);
    if (!pix)
      st = TIDE_ENOMEM;
    else {
      double *q = TIDE_F64P(pix);
      for (int64_t k = 0; k < nv; k++) {
        q[2 * k] = tide_view2d_x(&view, vv[2 * k]);
        q[2 * k + 1] = tide_view2d_y(&view, vv[2 * k + 1]);
      }
      if (nt) st = tide_canvas_triangles(cv, nv, q, nt, tv, mcol, 1, 1);
      if (!st && ew > 0) {
        for (int64_t k = 0; k < nt; k++)
          for (int e = 0; e < 3; e++) {
            int a = tv[3 * k + e], b = tv[3 * k + (e + 1) % 3];
            tide_canvas_line(cv, q[2 * a], q[2 * a + 1], q[2 * b], q[2 * b + 1], ew, ecol, 1);
          }
        for (int64_t k = 0; k < ns; k++) {
          int a = sv[2 * k], b = sv[2 * k + 1];
          tide_canvas_line(cv, q[2 * a], q[2 * a + 1], q[2 * b], q[2 * b + 1], fmax(ew, 1.5 * fs),
                           ecol, 1);
        }
      }
      tide_array_release(pix);
    }
  }
  if (!st && np > 0)
    st = tide_draw_particles(cv, &view, np, pp, pc, prange[0], prange[1], (tide_cmap)pmap,
                             radius_px, prgb, 1);
  if (!st && na > 0) st = tide_draw_arrows(cv, &view, na, apos, avec, ascale, awidth, acol, 1);
  if (!st && frame) {
    double x0 = tide_view2d_x(&view, wx0), x1 = tide_view2d_x(&view, wx1);
    double y0 = tide_view2d_y(&view, wy1), y1 = tide_view2d_y(&view, wy0);
    tide_canvas_line(cv, x0, y0, x1, y0, 1, fgc, 1);
    tide_canvas_line(cv, x0, y1, x1, y1, 1, fgc, 1);
    tide_canvas_line(cv, x0, y0, x0, y1, 1, fgc, 1);
    tide_canvas_line(cv, x1, y0, x1, y1, 1, fgc, 1);
  }
  if (!st && colorbar) {
    double ph = s * wh;
    double bh = fmax(ph - 24.0 * fs, 40.0 * fs);
    double bx = width - cbw + 10 * fs;
    double by = view.py + 0.5 * (ph - bh);
    if (by < th + 14 * fs) by = th + 14 * fs;
    st = tide_draw_colorbar(cv, bx, by, 12 * fs, bh, cbrange[0], cbrange[1], (tide_cmap)cbmap, 6,
                            fs, cblabel, fgc);
  }
  if (!st && th) tide_canvas_text(cv, 0.5 * width, 3 * fs, title, fs, 0.5, fgc);
  if (!st) st = tide_canvas_write_png(cv, path);
  tide_canvas_free(cv);
  tide_lua_check(L, st, F);
  lua_pushstring(L, path);
  return 1;
}

/* ------------------------------------------------ PNG of arrays, reading */

/* a file name argument: a non-empty string (numbers are not coerced) */
const char *tide_lua_fileio_path(lua_State *L, int idx, const char *fname) {
  if (lua_type(L, idx) != LUA_TSTRING)
    tide_lua_error(L, "%s: path must be a string, got %s", fname, luaL_typename(L, idx));
  const char *p = lua_tostring(L, idx);
  if (!*p) tide_lua_error(L, "%s: path is empty", fname);
  return p;
}

/* tide.fileio.png_write(path, image): image u8 (h, w) or (h, w, c), c = 1..4 */
static int l_png_write(lua_State *L) {
  const char *F = FN ".png_write";
  const char *path = tide_lua_fileio_path(L, 1, F);
  tide_array *a = tide_lua_checkarray(L, 2);
  if (a->dtype != TIDE_U8)
    tide_lua_error(L, "%s: image must be a u8 array, got %s", F, tide_dtype_name(a->dtype));
  if (a->ndim != 2 && a->ndim != 3)
    tide_lua_error(L, "%s: image must have shape (h, w) or (h, w, channels)", F);
  int ch = a->ndim == 3 ? (int)a->shape[2] : 1;
  if (ch < 1 || ch > 4) tide_lua_error(L, "%s: image must have 1..4 channels, got %d", F, ch);
  tide_array *c = a;
  if (!tide_array_contiguous(a)) {
    c = tide_array_clone(a, TIDE_U8);
    if (!c) tide_lua_error(L, "%s: %s", F, tide_errmsg());
    tide_lua_pusharray(L, c);
  }
  if (a->shape[0] < 1 || a->shape[1] < 1) tide_lua_error(L, "%s: empty image", F);
  tide_lua_check(L, tide_png_write(path, (int)a->shape[1], (int)a->shape[0], ch, TIDE_U8P(c)), F);
  lua_pushstring(L, path);
  return 1;
}

/* tide.fileio.png_read(path) -> u8 array (h, w, 4) RGBA, or nil, message */
static int l_png_read(lua_State *L) {
  const char *path = tide_lua_fileio_path(L, 1, FN ".png_read");
  tide_array *a;
  int st = tide_png_read(path, &a);
  if (st) {
    lua_pushnil(L);
    lua_pushstring(L, tide_errmsg());
    return 2;
  }
  tide_lua_pusharray(L, a);
  return 1;
}

/* tide.fileio.colormap(name, t) -> r, g, b in [0, 1] */
static int l_colormap(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING)
    tide_lua_error(L, FN ".colormap: name must be a string, got %s", luaL_typename(L, 1));
  const char *name = lua_tostring(L, 1);
  double t = tide_lua_checkfinite(L, 2, FN ".colormap", "t");
  for (int m = 0; tide_cmap_names[m]; m++)
    if (!strcmp(name, tide_cmap_names[m])) {
      float rgb[3];
      tide_cmap_eval((tide_cmap)m, t, rgb);
      for (int d = 0; d < 3; d++)
        lua_pushnumber(L, rgb[d]);
      return 3;
    }
  return tide_lua_error(L, FN ".colormap: unknown colour map '%s'", name);
}

/* tide.fileio.clean_temps(dir [, {own = false}]) -> count, bytes: remove the
 * temporaries of dead writers (or, own = true, of this process) below dir */
static int l_clean_temps(lua_State *L) {
  const char *F = FN ".clean_temps";
  const char *dir = tide_lua_fileio_path(L, 1, F);
  static const char *const keys[] = {"own", NULL};
  tide_opts o = tide_lua_optopts(L, 2, F, keys);
  int own = tide_opt_bool(&o, "own", 0);
  int64_t n, b;
  tide_lua_check(L, tide_fileio_clean_temps(dir, own, &n, &b), F);
  lua_pushinteger(L, (lua_Integer)n);
  lua_pushinteger(L, (lua_Integer)b);
  return 2;
}

/* tide.fileio.mkdirs(path): create the missing parent directories of path */
static int l_mkdirs(lua_State *L) {
  tide_lua_check(L, tide_fileio_mkdirs(tide_lua_fileio_path(L, 1, FN ".mkdirs")), FN ".mkdirs");
  return 0;
}

static const luaL_Reg funcs[] = {{"png2d", l_png2d},       {"png_write", l_png_write},
                                 {"png_read", l_png_read}, {"colormap", l_colormap},
                                 {"mkdirs", l_mkdirs},     {"clean_temps", l_clean_temps},     {NULL, NULL}};

int luaopen_tide_fileio(lua_State *L) {
  luaL_newlib(L, funcs);
  lua_newtable(L);
  for (int m = 0; tide_cmap_names[m]; m++) {
    lua_pushstring(L, tide_cmap_names[m]);
    lua_rawseti(L, -2, m + 1);
  }
  lua_setfield(L, -2, "colormaps");
  tide_lua_fileio_3d_open(L);
  tide_lua_fileio_data_open(L);
  tide_lua_fileio_ckpt_open(L);
  tide_lua_fileio_plot_open(L);
  return 1;
}
