/*
 * liu.h -- penetration-free coupling of a level-set liquid with solid
 * vertices (Liu et al., "Penetration-free coupling of level-set liquids with
 * thin and volumetric solids", Sec. 4.3, Eq. 14-23).
 *
 * The liquid is {phi < 0} of a cell-centred level set on a tide_grid
 * (levelset.h); a solid is a set of vertices (tet boundary vertices, shell
 * or rod vertices, free or fixed points).  Contact is a barrier between each
 * vertex and the liquid's level set, evaluated through a distance metric
 * that interpolates phi at the primal cells around the vertex, and the
 * positions x of the vertices and the narrow-band values of phi are found
 * together by one Newton solve (Eq. 22).
 *
 * Plain C (no Lua); binding: lua_couple_liu.c.  Units SI; x in metres.
 */
#ifndef TIDE_COUPLE_LIU_H
#define TIDE_COUPLE_LIU_H

#include "grid/grid.h"
#include "grid/levelset.h"

/* ----------------------------------------------------------- distance (Eq. 14-16, 21) */

enum {
  TIDE_LIU_LINEAR = 1,   /* multilinear over the dual cell holding x (Fig. 5, Eq. 15):
                            2^dim cells; C0 across dual-cell faces, so the stencil is
                            fixed per Newton solve (Sec. 4.3.3, Fig. 7) and x may leave
                            it (the weights then extrapolate) */
  TIDE_LIU_QUADRATIC = 2 /* tensor-product quadratic B-spline over the 3^dim cells around
                            the cell holding x: C1 everywhere, so the stencil follows x */
};

#define TIDE_LIU_MAXST 27 /* largest stencil (quadratic, 3D) */

/* The distance of one vertex to the liquid surface and its derivatives,
 * d(phi, x) = sum_c w_c(x) phi_c over the stencil cells c (Eq. 14-15):
 *   dd/dphi_c = w_c,  dd/dx = sum_c phi_c dw_c/dx  (Eq. 21),
 *   d2d/dphi_c dx = dw_c/dx,  d2d/dx2 = sum_c phi_c d2w_c/dx2,  d2d/dphi2 = 0.
 * 1D weights at t = (x - x_base) / dx (x_base the centre of the base cell):
 *   linear     w_0 = 1 - t, w_1 = t                       (base: lower cell)
 *   quadratic  w_-1 = (1/2 - t)^2 / 2, w_0 = 3/4 - t^2,
 *              w_1 = (1/2 + t)^2 / 2                        (base: nearest cell)
 * and their tensor products.  Both reproduce a linear phi exactly, so for a
 * signed distance to a plane d is the distance.  Stencil cells outside the
 * grid are clamped onto its boundary cells (constant continuation; the same
 * cell may then appear more than once in cell[]). */
typedef struct tide_liu_dist {
  int n;                          /* stencil cells: 2^dim or 3^dim */
  int64_t cell[TIDE_LIU_MAXST];   /* their linear cell indices */
  double w[TIDE_LIU_MAXST];       /* dd/dphi_c */
  double dwdx[TIDE_LIU_MAXST][3]; /* d2d / dphi_c dx [1/m] */
  double d;                       /* distance [m], > 0 outside the liquid */
  double grad[3];                 /* dd/dx (1 / |grad phi| for a distance) */
  double hess[3][3];              /* d2d/dx2 [1/m] */
} tide_liu_dist;

/* Base cell of the stencil of x: linear, the lower cell of the dual cell
 * holding x (floor of (x - origin) / dx - 1/2 per axis); quadratic, the cell
 * holding x.  Not clamped (may lie outside the grid). */
void tide_liu_stencil_base(const tide_grid *g, int interp, const double *x, int base[3]);

/* Evaluate d and its derivatives at x with the stencil based at base (from
 * tide_liu_stencil_base of this or an earlier position: x may lie outside
 * it, the weights then extrapolate).  interp: TIDE_LIU_LINEAR / _QUADRATIC. */
void tide_liu_distance_at(const tide_grid *g, const double *phi, int interp, const int base[3],
                          const double *x, tide_liu_dist *out);

/* d at np vertices x (np x dim, row major) with their own stencils, into
 * d[np]; OpenMP over vertices.  TIDE_EINVAL on a bad interp, TIDE_ENONFINITE
 * on a non-finite x. */
int tide_liu_distances(const tide_grid *g, const double *phi, int interp, int64_t np,
                       const double *x, double *d);

#endif
