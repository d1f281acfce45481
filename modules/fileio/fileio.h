/*
 * fileio.h -- pictures and files: atomic file writing, PNG (libpng), an
 * anti-aliased 2D canvas with a built-in bitmap font, colour maps, and the
 * layers of a 2D frame (colour-mapped cell fields, level-set contours by
 * marching squares, solid cells, particles, arrows, triangle/segment meshes,
 * colour bars).
 *
 * Plain C, no Lua.  The Lua API (tide.fileio.*) is in lua_fileio.c and
 * documented in docs/output.md.
 *
 * Conventions
 *   - Pixel coordinates: x to the right, y down, pixel (i, j) covers
 *     [i, i+1) x [j, j+1); its centre is (i + 1/2, j + 1/2).
 *   - World coordinates: SI metres, y up (tide_view2d maps one to the other).
 *   - Colours are sRGB triples in [0, 1]; blending is done in sRGB space.
 */
#ifndef TIDE_FILEIO_H
#define TIDE_FILEIO_H

#include <stdio.h>

#include "grid/grid.h"
#include "tide.h"

/* ------------------------------------------------------- atomic files */

/* Create the missing parent directories of `path` (like mkdir -p of its
 * directory part).  TIDE_EIO with the failing directory named otherwise. */
int tide_fileio_mkdirs(const char *path);

/* A file written under a temporary name in the same directory and renamed
 * over `path` on commit, so an interrupted or failed write never leaves a
 * partial file and keeps the previous one intact.
 *
 *   tide_afile af;
 *   if ((st = tide_afile_open(&af, path))) return st;
 *   fwrite(..., af.f);
 *   return tide_afile_commit(&af);     (or tide_afile_abort(&af) on error)
 *
 * open creates missing parent directories.  commit checks the stream for
 * write errors, flushes, fsyncs, closes and renames; on any failure it
 * removes the temporary file and returns TIDE_EIO. */
typedef struct tide_afile {
  FILE *f;
  char path[4096];
  char tmp[4096 + 64];
} tide_afile;

int tide_afile_open(tide_afile *af, const char *path);
/* Remove the temporaries tide_afile_open names <dir>/.<name>.tmp-<pid>-<n>
 * below dir (8 levels deep): those of processes that no longer run (a run
 * killed while writing), or with own != 0 those of this process (writers
 * left by an error).  Files of other live processes are never touched.
 * *count and *bytes receive what was removed; a missing dir is no error. */
int tide_fileio_clean_temps(const char *dir, int own, int64_t *count, int64_t *bytes);
int tide_afile_commit(tide_afile *af);
void tide_afile_abort(tide_afile *af);

/* ---------------------------------------------------------------- PNG */

/* Write an 8-bit image of h rows of w pixels with `channels` samples each
 * (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA), rows top to bottom, through
 * libpng's simplified API, atomically (see tide_afile). */
int tide_png_write(const char *path, int w, int h, int channels, const uint8_t *pixels);

/* Read a PNG file as 8-bit RGBA (any PNG colour type is converted).
 * *rgba is a new array of shape (h, w, 4) u8. */
int tide_png_read(const char *path, tide_array **rgba);

/* ------------------------------------------------------------- colour maps */

typedef enum {
  TIDE_CMAP_VIRIDIS = 0,
  TIDE_CMAP_MAGMA,
  TIDE_CMAP_INFERNO,
  TIDE_CMAP_PLASMA,
  TIDE_CMAP_TURBO,
  TIDE_CMAP_COOLWARM,
  TIDE_CMAP_GRAY,
  TIDE_CMAP_BLUES,
  TIDE_CMAP_COUNT
} tide_cmap;

/* NULL-terminated names in the order of tide_cmap ("viridis", ...). */
extern const char *const tide_cmap_names[];

/* Colour of t in [0, 1] (clamped) under map m.
 *   viridis, magma, inferno, plasma: degree-6 polynomial fits of the
 *     matplotlib maps (van der Walt & Smith 2015), max error about 1/255 * 3;
 *   turbo: Google's degree-5 polynomial approximation (Mikhailov 2019);
 *   coolwarm: Moreland's diverging map, interpolated in Msh space between
 *     (59, 76, 192) and (180, 4, 38) through white (Moreland, "Diverging
 *     Color Maps for Scientific Visualization", ISVC 2009);
 *   gray: black to white; blues: white to dark blue (linear in sRGB). */
void tide_cmap_eval(tide_cmap m, double t, float rgb[3]);

/* n >= 2 samples of the map at t = i / (n - 1) into lut[3n]. */
void tide_cmap_lut(tide_cmap m, int n, float *lut);

/* ---------------------------------------------------------------- canvas */

typedef struct tide_canvas {
  int w, h;
  float *rgb; /* h * w * 3, rows top to bottom */
} tide_canvas;

int tide_canvas_new(int w, int h, const float bg[3], tide_canvas **out);
void tide_canvas_free(tide_canvas *c);
/* Convert to 8-bit RGB (h * w * 3 bytes, rounded) and write a PNG. */
int tide_canvas_write_png(const tide_canvas *c, const char *path);
/* 8-bit RGB copy as an array of shape (h, w, 3) u8. */
int tide_canvas_to_array(const tide_canvas *c, tide_array **out);

/* Blend colour col with opacity a in [0,1] into pixel (x, y); outside pixels
 * are ignored. */
void tide_canvas_blend(tide_canvas *c, int x, int y, const float col[3], float a);
/* Axis-aligned rectangle [x0, x1) x [y0, y1) in pixels, filled. */
void tide_canvas_rect(tide_canvas *c, double x0, double y0, double x1, double y1,
                      const float col[3], float alpha);
/* Anti-aliased segment of the given width (pixels) with round caps: the
 * coverage of a pixel is 1/2 + (w/2 - d) clamped to [0, 1], d the distance
 * of its centre to the segment. */
void tide_canvas_line(tide_canvas *c, double x0, double y0, double x1, double y1, double width,
                      const float col[3], float alpha);
/* Anti-aliased disc of radius r; an outline of width ow in colour oc when
 * ow > 0. */
void tide_canvas_disc(tide_canvas *c, double cx, double cy, double r, const float col[3],
                      float alpha, double ow, const float oc[3]);
/* Arrow from (x0, y0) to (x1, y1) with a filled head of length head px. */
void tide_canvas_arrow(tide_canvas *c, double x0, double y0, double x1, double y1, double width,
                       double head, const float col[3], float alpha);

/* Filled triangles, anti-aliased by 4x4 supersampling with a shared-edge
 * (top-left) rule, so triangles of a mesh tile without seams.  xy holds
 * pixel positions (2 per vertex), tri 3 vertex indices per triangle (0
 * based), colors either one colour (ncol = 1) or one per triangle (ncol =
 * ntri). */
int tide_canvas_triangles(tide_canvas *c, int64_t nv, const double *xy, int64_t ntri,
                          const int32_t *tri, const float *colors, int64_t ncol, float alpha);

/* Rows [*b0, *b1) of n for the calling thread of an OpenMP team (all of
 * them outside a parallel region): band-parallel drawing, in which each
 * thread draws every primitive clipped to its band, gives pictures that do
 * not depend on the thread count. */
void tide_thread_band(int n, int *b0, int *b1);

/* Text with the built-in 5x7 bitmap font (printable ASCII; other bytes draw
 * as '?').  Each font pixel is scale x scale canvas pixels; a glyph advances
 * 6*scale pixels, a line is 9*scale pixels.  (x, y) is the top-left corner
 * shifted by -align * width (align 0 left, 0.5 centred, 1 right). */
void tide_canvas_text(tide_canvas *c, double x, double y, const char *s, int scale, double align,
                      const float col[3]);
/* The same text turned 90 degrees counter-clockwise (reading upwards):
 * (x, y) is the lower-left corner of the first glyph, shifted up by
 * align * width. */
void tide_canvas_text_up(tide_canvas *c, double x, double y, const char *s, int scale, double align,
                         const float col[3]);
/* Width in pixels of the widest line of s. */
int tide_text_width(const char *s, int scale);
/* The 7 rows (5 low bits each, bit 4 = leftmost column) of glyph ch. */
const uint8_t *tide_font_glyph(int ch);

/* ---------------------------------------------------------------- 2D frames */

/* Map from world coordinates (metres, y up) to pixels of a canvas: the
 * world box [x0, x1] x [y0, y1] fills the pixel box [px, px + s (x1 - x0)] x
 * [py, py + s (y1 - y0)] with y flipped. */
typedef struct tide_view2d {
  double x0, y0, x1, y1; /* world box */
  double px, py;         /* pixel position of the world's top-left corner (x0, y1) */
  double s;              /* pixels per metre */
} tide_view2d;

static inline double tide_view2d_x(const tide_view2d *v, double x) {
  return v->px + (x - v->x0) * v->s;
}
static inline double tide_view2d_y(const tide_view2d *v, double y) {
  return v->py + (v->y1 - y) * v->s;
}

/* A cell field's grid: ni x nj cells of size dx, lower corner origin
 * (only the first two axes of a 2D tide_grid are used). */
typedef struct tide_field2d {
  int ni, nj;
  double dx;
  double origin[2];
  const double *v; /* ni * nj values, cell (i, j) at i * nj + j */
} tide_field2d;

/* Colour-mapped cell field: each pixel takes the colour of the value at its
 * centre (nearest cell, or bilinear between cell centres when interp != 0),
 * mapped linearly from [lo, hi] to [0, 1].  NaN values are left blank. */
int tide_draw_field(tide_canvas *c, const tide_view2d *v, const tide_field2d *f, double lo,
                    double hi, tide_cmap m, int interp);

/* Level set phi (negative inside) sampled at cell centres.  The interior is
 * filled with fill (opacity fill_alpha; skipped when fill_alpha <= 0) using
 * the bilinear interpolant of phi and a one-pixel-wide coverage ramp
 * (phi / |grad phi| in pixels); the zero contour is traced by marching
 * squares (linear interpolation along cell-centre edges, saddles resolved by
 * the cell-average value; the border values are extended by half a cell so
 * the contour reaches the domain walls) and drawn as lines of width line_w
 * (skipped when line_w <= 0).  *nseg (may be NULL) receives the number of
 * contour segments drawn. */
int tide_draw_levelset(tide_canvas *c, const tide_view2d *v, const tide_field2d *phi,
                       const float fill[3], float fill_alpha, const float line[3], double line_w,
                       int64_t *nseg);

/* Clip the segment (ax, ay)-(bx, by) to the box [x0, x1] x [y0, y1]
 * (Liang-Barsky); 0 when it lies outside. */
int tide_clip_segment(double *ax, double *ay, double *bx, double *by, double x0, double y0,
                      double x1, double y1);

/* Marching squares on the cell-centre lattice of f at level iso: segments
 * (x0, y0, x1, y1) in world coordinates into seg (capacity cap segments,
 * 4 * (ni-1) * (nj-1) always suffices); *n receives the count. */
int tide_marching_squares(const tide_field2d *f, double iso, double *seg, int64_t cap, int64_t *n);

/* Cells whose label equals `label` (u8, ni * nj) drawn as filled squares. */
int tide_draw_cells(tide_canvas *c, const tide_view2d *v, int ni, int nj, double dx,
                    const double origin[2], const uint8_t *labels, uint8_t label,
                    const float col[3], float alpha);

/* Discs at world positions pos (n x 2) of radius r pixels; coloured by
 * values (n, may be NULL: then col) through map m over [lo, hi]. */
int tide_draw_particles(tide_canvas *c, const tide_view2d *v, int64_t n, const double *pos,
                        const double *values, double lo, double hi, tide_cmap m, double r,
                        const float col[3], float alpha);

/* Arrows from pos (n x 2, world) along vec (n x 2) scaled by `scale`
 * (world length per unit of vec); arrows shorter than half a pixel are
 * skipped. */
int tide_draw_arrows(tide_canvas *c, const tide_view2d *v, int64_t n, const double *pos,
                     const double *vec, double scale, double width, const float col[3],
                     float alpha);

/* Velocity of a 2D MAC field at cell centres (averages of the two faces),
 * every `stride` cells, as positions and vectors for tide_draw_arrows.
 * pos and vec need room for ceil(ni/stride) * ceil(nj/stride) * 2 values. */
int tide_mac_centres2d(const tide_mac *u, int stride, double *pos, double *vec, int64_t *n);

/* Colour bar: a vertical gradient in the pixel box (x, y, w, h), low values
 * at the bottom, with about nticks "nice" tick values labelled at its right
 * in the font at `scale`, and an optional label above it. */
int tide_draw_colorbar(tide_canvas *c, double x, double y, double w, double h, double lo, double hi,
                       tide_cmap m, int nticks, int scale, const char *label, const float fg[3]);

/* "Nice" tick values covering [lo, hi] (1, 2, 5 times a power of ten):
 * at most cap values into t, count in *n, step in *step. */
int tide_nice_ticks(double lo, double hi, int target, double *t, int cap, int *n, double *step);
/* Format a tick value with the precision its step needs ("0.25", "1e-05"). */
void tide_format_tick(double v, double step, char *buf, size_t cap);

/* ---------------------------------------------------------------- 3D */

/* A cell-centred scalar field on n[0] x n[1] x n[2] cells of size dx with
 * lower corner origin; value of cell (i, j, k) at (i*n[1] + j)*n[2] + k. */
typedef struct tide_field3d {
  int n[3];
  double dx;
  double origin[3];
  const double *v;
} tide_field3d;

/* Triangulated iso-surface {phi = iso} of a cell-centred field by marching
 * cubes over the lattice of cell centres (face-consistent, watertight; see
 * mc.c).  With close != 0 the field is padded by mirrored values so that a
 * region touching the domain border is closed exactly on the border walls.
 * Outputs: verts (nv, 3) f64 positions [m], normals (nv, 3) f64 unit
 * gradients of phi (pointing to increasing phi, i.e. out of the liquid),
 * tris (nt, 3) i32 0-based, counter-clockwise seen from the side normals
 * point to.  Deterministic for any thread count. */
int tide_isosurface(const tide_field3d *f, double iso, int close, tide_array **verts,
                    tide_array **normals, tide_array **tris);

/* Camera: looks from pos at target with up roughly up.  Perspective with a
 * vertical field of view fov [degrees] when ortho <= 0, otherwise
 * orthographic showing ortho metres vertically. */
typedef struct tide_camera3d {
  double pos[3], target[3], up[3];
  double fov;
  double ortho;
} tide_camera3d;

/* A triangle mesh to render: positions v (nv x 3), optional unit vertex
 * normals n (nv x 3; NULL: area-weighted smooth normals are computed),
 * triangles t (nt x 3, 0-based), one colour or per-vertex colours vcolor
 * (nv x 3, may be NULL), Blinn-Phong specular weight and exponent.
 * wire > 0 draws the edges in wire_color, wire pixels wide. */
typedef struct tide_mesh3d {
  int64_t nv;
  const double *v;
  const double *n;
  int64_t nt;
  const int32_t *t;
  float color[3];
  const float *vcolor;
  float specular, shininess;
  float wire;
  float wire_color[3];
} tide_mesh3d;

typedef struct tide_render3d {
  int width, height; /* output pixels */
  int ss;            /* supersampling per axis (1..4): ss^2 samples per pixel */
  tide_camera3d cam;
  int nmesh;
  const tide_mesh3d *mesh;
  /* particles: shaded spheres of radius pradius [m] at pp (np x 3), with
   * colours pcolor (np x 3, or NULL: prgb) */
  int64_t np;
  const double *pp;
  double pradius;
  const float *pcolor;
  float prgb[3];
  float pspecular;
  /* a checkered ground plane y = ground_y of squares ground_tile [m] */
  int ground;
  double ground_y, ground_tile;
  float ground_color[2][3];
  /* the domain box [box_lo, box_hi] drawn as lines (hidden edges dimmed) */
  int box;
  double box_lo[3], box_hi[3];
  float box_color[3];
  double box_width; /* output pixels */
  /* one or two directional lights: dir points towards the light */
  int nlight;
  double light_dir[2][3];
  float light_color[2][3];
  float ambient; /* hemispherical: sky above, ground bounce below */
  int shadows;   /* shadow map of light 0 */
  int shadow_res;
  float bg_top[3], bg_bottom[3];
} tide_render3d;

/* Fill r with defaults: 640 x 480, ss 2, two lights, ambient 0.25, shadows,
 * grey background gradient, grey checker ground, dark box lines; camera and
 * geometry unset (the caller sets them). */
void tide_render3d_defaults(tide_render3d *r);

/* Camera looking at the box [lo, hi] from the front-right-above, framing it
 * for a vertical field of view fov and aspect width/height. */
void tide_camera3d_frame(tide_camera3d *c, const double lo[3], const double hi[3], double fov,
                         double aspect);

/* Render the scene into a new canvas of width x height: z-buffered
 * rasterization into a supersampled G-buffer (tiles of 32 x 32 samples in
 * parallel, each drawing its primitives in order, so the picture does not
 * depend on the thread count), Lambert + Blinn-Phong shading with a
 * hemispherical ambient term and an optional 3x3-PCF shadow map of light 0,
 * depth-tested box lines, and a box-filter downsample. */
int tide_render3d_draw(const tide_render3d *r, tide_canvas **out);

/* ------------------------------------------------------- data files */

/* A named attribute: values per point (or cell) of shape (n) or (n, c),
 * any dtype (written in its own type). */
typedef struct tide_attr {
  const char *name;
  const tide_array *a;
} tide_attr;

/* NumPy .npy (format 1.0, little endian, C order) of any array: '<f8',
 * '<f4', '<i4' or '|u1'.  Views are written as contiguous copies. */
int tide_npy_write(const char *path, const tide_array *a);
/* Read a .npy file of one of those types (C order, any rank up to 4). */
int tide_npy_read(const char *path, tide_array **out);

/* PLY, binary little endian: an element `vertex` (x, y, z as float, or
 * double when dbl != 0; 2D positions get z = 0) with one property per
 * attribute component (scalar attributes by name, vector attributes as
 * name_x, name_y, name_z, or name_0.. for more than 3 components), then
 * an element `face` (list uchar int vertex_indices) when nf > 0 and fk == 3,
 * or an element `edge` (int vertex1, int vertex2) when fk == 2.  Opens in
 * Blender, Houdini, MeshLab, ParaView. */
int tide_ply_write(const char *path, int64_t nv, int dim, const double *pos, int nattr,
                   const tide_attr *attr, int64_t nf, int fk, const int32_t *faces, int dbl);

/* Wavefront OBJ (text): v lines, vn lines when normals != NULL, and f lines
 * (fk == 3, 1-based, v//vn when normals are given) or l lines (fk == 2). */
int tide_obj_write(const char *path, int64_t nv, int dim, const double *pos, const double *normals,
                   int64_t nf, int fk, const int32_t *faces);

/* VTK XML files (ParaView, VisIt), raw binary appended data with UInt64
 * headers, little endian.
 *
 * .vti image data of grid g: cell attributes of shape (ni, nj[, nk]) or
 * (ni, nj[, nk], c), point (node) attributes (ni+1, nj+1[, nk+1][, c]). */
int tide_vti_write(const char *path, const tide_grid *g, int ncell, const tide_attr *cell,
                   int npoint, const tide_attr *point);
/* .vtp poly data: points pos (np x dim, dim 2 or 3), a vertex cell per
 * point when verts != 0 (particles), triangles and line segments
 * (0-based), point attributes (np) or (np, c), cell attributes over the
 * cells in the order verts, lines, triangles (VTK's order). */
int tide_vtp_write(const char *path, int64_t np, int dim, const double *pos, int verts,
                   int64_t nseg, const int32_t *seg, int64_t ntri, const int32_t *tri, int npa,
                   const tide_attr *pa, int nca, const tide_attr *ca);
/* .vtu unstructured grid of cells with k = 2 (lines), 3 (triangles) or 4
 * (tetrahedra, VTK node order) nodes each. */
int tide_vtu_write(const char *path, int64_t np, int dim, const double *pos, int64_t nc, int k,
                   const int32_t *cells, int npa, const tide_attr *pa, int nca,
                   const tide_attr *ca);

/* Add (or replace) the data set `file` at time t in the ParaView collection
 * `pvd` (created when missing); entries stay sorted by time and the file is
 * rewritten atomically.  `file` is stored relative to the .pvd's directory
 * when it lies below it. */
int tide_pvd_add(const char *pvd, double t, const char *file);

/* ---------------------------------------------------------- checkpoints */

/* A checkpoint file: a 32-byte header (magic "TIDECKPT", format version,
 * payload length, CRC-32 of the payload, CRC-32 of the header), the
 * payload, and the trailer "TIDE.END".  Written under a temporary name,
 * flushed, fsynced and renamed, so a crash leaves the previous checkpoint.
 * The payload format (values, tables, arrays, objects) is the binding's
 * (lua_fileio_ckpt.c, docs/output.md). */
#define TIDE_CKPT_VERSION 1

typedef struct tide_ckpt_writer {
  tide_afile af;
  uint64_t n;   /* payload bytes so far */
  uint32_t crc; /* running CRC-32 of the payload */
  int err;      /* a write failed */
} tide_ckpt_writer;

int tide_ckpt_begin(tide_ckpt_writer *w, const char *path);
void tide_ckpt_put(tide_ckpt_writer *w, const void *p, size_t n);
/* Patch the header, write the trailer, commit. */
int tide_ckpt_end(tide_ckpt_writer *w);
void tide_ckpt_abort(tide_ckpt_writer *w);

/* Read and verify a checkpoint; *payload (malloc'ed, release with free())
 * holds *n bytes.  Errors name the problem: not a checkpoint (TIDE_EFORMAT),
 * a newer format version, a truncated file, a checksum mismatch. */
int tide_ckpt_read(const char *path, uint8_t **payload, size_t *n);

/* ---------------------------------------------------------------- plots */

enum {
  TIDE_MARK_NONE = 0,
  TIDE_MARK_CIRCLE,
  TIDE_MARK_SQUARE,
  TIDE_MARK_TRIANGLE,
  TIDE_MARK_DIAMOND,
  TIDE_MARK_CROSS,
  TIDE_MARK_PLUS
};
/* NULL-terminated marker names in enum order ("none", "o", "s", "^", "d", "x", "+") */
extern const char *const tide_marker_names[];
enum { TIDE_LEGEND_NONE = 0, TIDE_LEGEND_UR, TIDE_LEGEND_UL, TIDE_LEGEND_LL, TIDE_LEGEND_LR };

typedef struct tide_series {
  int64_t n;
  const double *x, *y; /* non-finite points (and non-positive ones on log axes) break the line */
  const char *label;   /* NULL: not in the legend */
  float color[3];
  double width; /* line width [px]; 0: markers only */
  int dash;     /* 0 solid, 1 dashed, 2 dotted */
  int marker;   /* TIDE_MARK_* */
  double msize; /* marker size [px] */
} tide_series;

typedef struct tide_plot {
  int width, height, fs; /* pixels, font scale */
  const char *title, *xlabel, *ylabel;
  int xlog, ylog;
  int xfixed, yfixed; /* ranges given, else from the data */
  double xr[2], yr[2];
  int legend; /* TIDE_LEGEND_* */
  int grid;   /* light grid lines at the major ticks */
  int nseries;
  const tide_series *s;
} tide_plot;

/* Draw a line plot: axes with "nice" ticks (decades and 2..9 minor ticks on
 * log axes), tick labels, axis labels (the y label reading upwards), title,
 * series as clipped anti-aliased polylines (solid, dashed, dotted) and/or
 * markers, and a legend box.  Ranges are padded by 4% (linear) or to whole
 * decades (log) when not given. */
int tide_plot_draw(const tide_plot *p, tide_canvas **out);

/* Least-squares line through (log10 x, log10 y) over the points with x, y > 0:
 * y ~ 10^b x^slope (the order of convergence of errors vs resolution). */
int tide_loglog_fit(int64_t n, const double *x, const double *y, double *slope, double *b);

#endif
