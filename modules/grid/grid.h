/*
 * grid.h -- uniform 2D/3D grids, cell labels and MAC (staggered) vector
 * fields.  Shared by every module that works on grids (linalg's MAC Poisson
 * operators, liquid, couple, fileio).
 *
 * Conventions (docs/conventions.md):
 *   - SI units, y up, gravity (0, -9.81[, 0]).
 *   - Cell (i, j, k) has its centre at origin + (i + 1/2, j + 1/2, k + 1/2) dx.
 *   - Cell fields are arrays of shape {ni, nj} (2D) or {ni, nj, nk} (3D), row
 *     major: cell (i, j, k) is at (i*nj + j)*nk + k, with nk = 1 in 2D.
 *   - MAC face velocities: u has shape (ni+1, nj[, nk]) and sits at the centre
 *     of the face between cells (i-1, j, k) and (i, j, k), i.e. at
 *     origin + (i, j + 1/2, k + 1/2) dx; v is (ni, nj+1[, nk]), w is
 *     (ni, nj, nk+1), likewise.
 */
#ifndef TIDE_GRID_H
#define TIDE_GRID_H

#include "tide.h"

/* Cell labels (u8 arrays over cells). */
enum { TIDE_CELL_AIR = 0, TIDE_CELL_LIQUID = 1, TIDE_CELL_SOLID = 2 };

typedef struct tide_grid {
  int dim;          /* 2 or 3 */
  int n[3];         /* cells per axis; n[2] == 1 in 2D */
  double dx;        /* cell size [m] */
  double origin[3]; /* lower corner of cell (0,0,0) [m]; origin[2] == 0 in 2D */
} tide_grid;

static inline int64_t tide_grid_ncells(const tide_grid *g) {
  return (int64_t)g->n[0] * g->n[1] * g->n[2];
}

/* Linear index of cell (i, j, k) (k = 0 in 2D). */
static inline int64_t tide_grid_idx(const tide_grid *g, int i, int j, int k) {
  return ((int64_t)i * g->n[1] + j) * g->n[2] + k;
}

/* Extents of the face array of axis a (0: u, 1: v, 2: w). */
static inline void tide_grid_face_dims(const tide_grid *g, int a, int out[3]) {
  out[0] = g->n[0];
  out[1] = g->n[1];
  out[2] = g->n[2];
  out[a] += 1;
}

/* Linear index of face (i, j, k) of axis a: the face on the low side of cell
 * (i, j, k) along a. */
static inline int64_t tide_grid_fidx(const tide_grid *g, int a, int i, int j, int k) {
  int n1 = g->n[1] + (a == 1), n2 = g->n[2] + (a == 2);
  return ((int64_t)i * n1 + j) * n2 + k;
}

/* A MAC vector field: one face array per axis (u[2] == NULL in 2D). */
typedef struct tide_mac {
  tide_grid grid;
  tide_array *u[3];
} tide_mac;

#endif
