/*
 * mac_poisson.h -- the MAC-grid pressure Poisson problem: a description
 * (labels, cut-cell face weights, ghost-fluid free-surface fractions) that
 * feeds both the matrix-free operator used by the grid solvers (mgpcg.h) and
 * an explicit sparse matrix (tide_csr) for the coupled solvers that append
 * solid blocks to it (Zarifi 2017, Eq. 4.39 and 5.25).
 *
 * Unknowns are the pressures of the LIQUID cells.  For a liquid cell c
 *
 *   (A p)_c = 1/dx^2 * sum over the 4 (2D) or 6 (3D) faces f of c of
 *               w_f (p_c - p_n)           n liquid   (interior face)
 *               w_f / max(theta_f, theta_min) p_c
 *                                         n air      (ghost fluid: p = 0 at
 *                                                     the interface, Gibou et
 *                                                     al. 2002; Zarifi 4.3.2)
 *               0                         n solid or outside the grid
 *                                                    (Neumann: dp/dn = 0)
 *
 * where n is the neighbour of c across f.  A is symmetric positive
 * semi-definite; it is definite when every connected liquid region touches
 * air through a face of positive weight (otherwise the region's pressure is
 * defined up to a constant; the grid solvers remove that null space).
 *
 * Face weights w_f are the open (liquid) area fractions of the faces in
 * [0, 1] from cut cells (Batty, Bertails & Bridson 2007; Zarifi Eq. 4.31);
 * NULL means w = 1.  Faces touching a SOLID cell or the domain boundary are
 * always closed (the domain boundary is a solid wall).  theta_f in (0, 1] is
 * the fraction of the distance between the centre of the liquid cell and the
 * centre of the air cell that lies in liquid, e.g. phi_l / (phi_l - phi_a)
 * from a level set; NULL means theta = 1 (p = 0 at the air cell centre, the
 * plain voxelized free surface).
 *
 * Arrays follow grid.h: labels are u8 over cells {ni, nj[, nk]}; weight[a]
 * and theta[a] are over the faces of axis a, e.g. weight[0] has shape
 * (ni+1, nj[, nk]).  In 2D only axes 0 and 1 are used.  Units: A is in
 * 1/m^2; p and b are whatever the caller scales them to (for a projection
 * b = -(rho/dt) div u*, p in Pa).
 */
#ifndef TIDE_MAC_POISSON_H
#define TIDE_MAC_POISSON_H

#include "grid/grid.h"
#include "linalg/linalg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default lower clamp of theta (Gibou et al. use a small clamp to keep the
 * diagonal bounded; Bridson's book suggests 0.01). */
#define TIDE_MAC_THETA_MIN 0.01

typedef struct tide_mac_poisson {
  tide_grid grid;          /* extents and dx (origin unused) */
  const uint8_t *labels;   /* ncells: TIDE_CELL_AIR / LIQUID / SOLID */
  const double *weight[3]; /* per axis, face arrays or NULL (open = 1) */
  const double *theta[3];  /* per axis, face arrays or NULL (theta = 1) */
  double theta_min;        /* clamp of theta from below (0: TIDE_MAC_THETA_MIN) */
  int checked;             /* nonzero: the caller guarantees labels in {AIR, LIQUID,
                              SOLID}, weights finite and >= 0 and theta finite
                              (tide_mac_poisson_check skips its scans of every
                              cell and face; 0 from tide_mac_poisson_make) */
} tide_mac_poisson;

/* A problem over grid g with the given labels, unit weights and theta = 1. */
tide_mac_poisson tide_mac_poisson_make(const tide_grid *g, const uint8_t *labels);

/* Check extents, labels in {AIR, LIQUID, SOLID}, weights finite and >= 0,
 * theta finite, dx > 0 (the label, weight and theta scans only when
 * P->checked is 0). */
int tide_mac_poisson_check(const tide_mac_poisson *P);

/* The contribution of face (a, i, j, k) -- the low face of cell (i, j, k)
 * along axis a, between cell lo = (i, j, k) - e_a and hi = (i, j, k) -- to A,
 * in units of 1/dx^2 (multiply by 1/dx^2 for A):
 *   *off  coupling between lo and hi (A_lo,hi = A_hi,lo = -off/dx^2),
 *   *dlo  addition to A_lo,lo, *dhi addition to A_hi,hi.
 * Cells are given by their labels (SOLID for outside the grid). */
static inline void tide_mac_poisson_face(const tide_mac_poisson *P, int a, int64_t f, uint8_t lo,
                                         uint8_t hi, double *off, double *dlo, double *dhi) {
  *off = *dlo = *dhi = 0;
  if (lo == TIDE_CELL_SOLID || hi == TIDE_CELL_SOLID) return;
  if (lo != TIDE_CELL_LIQUID && hi != TIDE_CELL_LIQUID) return;
  double w = P->weight[a] ? P->weight[a][f] : 1.0;
  if (lo == TIDE_CELL_LIQUID && hi == TIDE_CELL_LIQUID) {
    *off = w;
    *dlo = w;
    *dhi = w;
    return;
  }
  double th = P->theta[a] ? P->theta[a][f] : 1.0;
  double tmin = P->theta_min > 0 ? P->theta_min : TIDE_MAC_THETA_MIN;
  if (!(th >= tmin)) th = tmin;
  if (lo == TIDE_CELL_LIQUID)
    *dlo = w / th;
  else
    *dhi = w / th;
}

/* The diagonal A_cc of liquid cell (i, j, k) in units of 1/dx^2 (the sum of
 * its faces' contributions, tide_mac_poisson_face; the domain boundary is a
 * wall): 0 when every face of the cell is closed -- a LIQUID cell whose row of
 * A is zero. */
double tide_mac_poisson_diag(const tide_mac_poisson *P, int i, int j, int k);

/* Ghost-fluid fractions from a liquid level set phi (cells, negative in
 * liquid): on each face between a liquid cell l and an air cell a,
 * theta = phi_l / (phi_l - phi_a) when phi changes sign across the face, else
 * 1; theta = 1 on every other face.  theta[a] are face arrays of the grid
 * (axes 0 .. dim-1) filled by this call.  phi must be finite. */
int tide_mac_poisson_theta(const tide_grid *g, const uint8_t *labels, const double *phi,
                           double *theta[3]);

/* y = A x (matrix-free, OpenMP).  x, y: ncells doubles over the grid's
 * cells; y is 0 at non-liquid cells and x is read at liquid cells only. */
int tide_mac_poisson_apply(const tide_mac_poisson *P, const double *x, double *y);

/* Number the liquid cells in grid order: rowof[c] = row of cell c or -1
 * (ncells ints), *n = number of liquid cells. */
int tide_mac_poisson_number(const tide_mac_poisson *P, int *rowof, int *n);

/* Assemble A over the liquid cells numbered by tide_mac_poisson_number into
 * a new CSR matrix (stype TIDE_CSR_GENERAL or TIDE_CSR_UPPER), with the same
 * face coefficients as the matrix-free operator.  Rows and columns in
 * liquid-cell order; explicit zeros (faces of weight 0 between liquid cells)
 * are kept so the pattern depends on the labels only. */
int tide_mac_poisson_assemble(const tide_mac_poisson *P, const int *rowof, int n, int stype,
                              tide_csr **out);
/* The same into the storage of *spare where it has room (tide_csr_recycle: a matrix assembled
 * every step keeps its arrays); *spare is taken on every path (reused, or freed on an error) and
 * is NULL afterwards; spare may be NULL. */
int tide_mac_poisson_assemble_reuse(const tide_mac_poisson *P, const int *rowof, int n, int stype,
                                    tide_csr **spare, tide_csr **out);

#ifdef __cplusplus
}
#endif
#endif
