/*
 * sdf.h -- small analytic signed distance functions for tide.solid: the
 * shapes meshes are cut from (tide_mesh_bcc) and collision objects are made
 * of (collide.h).  Negative inside, positive outside, in metres.
 *
 * Shapes (d = 2 or 3; 2D shapes ignore z):
 *   sphere    centre c, radius r                 |x - c| - r (a disk in 2D)
 *   box       centre c, half extents h            exact box distance
 *   plane     point p, unit normal n              (x - p).n  (solid below)
 *   torus     centre c, radii R > r, axis (0,1,2)  |(rho - R, h)| - r with rho
 *             the distance from the axis and h the height along it; in 2D an
 *             annulus ||x - c| - R| - r
 *   cylinder  centre c, radius r, half height h, axis (3D; capped)
 *   grid      cell-centred samples on a tide_grid (trilinear; outside the
 *             grid the distance to the grid box is added)
 *   union / intersection / difference of two shapes (min, max, max(a, -b);
 *             exact outside for unions, a bound elsewhere, as usual for CSG)
 * Gradients are analytic (for the active child in CSG), unit length except
 * at the medial axis; grid gradients are those of the interpolant.
 */
#ifndef TIDE_SOLID_SDF_H
#define TIDE_SOLID_SDF_H

#include "grid/grid.h"
#include "tide.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TIDE_SDF_SPHERE = 0,
  TIDE_SDF_BOX,
  TIDE_SDF_PLANE,
  TIDE_SDF_TORUS,
  TIDE_SDF_CYLINDER,
  TIDE_SDF_GRID,
  TIDE_SDF_UNION,
  TIDE_SDF_INTERSECTION,
  TIDE_SDF_DIFFERENCE
} tide_sdf_kind;

typedef struct tide_sdf {
  int kind;
  int dim;
  double p[8];           /* parameters, see the constructors */
  int axis;              /* torus / cylinder axis (0, 1, 2) */
  struct tide_sdf *a, *b;/* CSG children (references held) */
  tide_grid grid;        /* grid shapes */
  tide_array *phi;       /* grid samples (retained) */
  int refcount;
} tide_sdf;

int tide_sdf_sphere(int dim, const double *c, double r, tide_sdf **out);
int tide_sdf_box(int dim, const double *c, const double *half, tide_sdf **out);
int tide_sdf_plane(int dim, const double *p, const double *n, tide_sdf **out);
int tide_sdf_torus(int dim, const double *c, double R, double r, int axis, tide_sdf **out);
int tide_sdf_cylinder(const double *c, double r, double half_height, int axis, tide_sdf **out);
/* phi: cell field of g (shape {ni, nj[, nk]}, f64, contiguous), retained. */
int tide_sdf_grid(const tide_grid *g, tide_array *phi, tide_sdf **out);
/* kind: TIDE_SDF_UNION, _INTERSECTION, _DIFFERENCE (a minus b); children
 * must have the same dimension; references to a and b are taken. */
int tide_sdf_csg(int kind, tide_sdf *a, tide_sdf *b, tide_sdf **out);

tide_sdf *tide_sdf_retain(tide_sdf *s);
void tide_sdf_release(tide_sdf *s);

/* Axis-aligned bounds of the region phi < 0: returns 1 and fills lo, hi
 * (s->dim entries) for bounded shapes, 0 for unbounded ones (planes, and
 * CSG combinations that are unbounded). */
int tide_sdf_bounds(const tide_sdf *s, double *lo, double *hi);

/* phi(x) for a point x of s->dim coordinates; grad (may be NULL) receives
 * d phi / dx.  Thread-safe (no state). */
double tide_sdf_eval(const tide_sdf *s, const double *x, double *grad);

#ifdef __cplusplus
}
#endif
#endif
