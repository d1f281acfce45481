/* test_linalg_mats.h -- test matrices with known properties for the
 * tide.linalg C tests (included by tests/c/test_linalg_*.c). */
#ifndef TEST_LINALG_MATS_H
#define TEST_LINALG_MATS_H
#include "check.h"
#include "linalg/linalg.h"

#include <stdlib.h>

enum { TM_AIR = 0, TM_LIQUID = 1, TM_SOLID = 2 };

/* h^2-scaled finite-volume Laplacian -div grad over the cells of an
 * nx x ny x nz box (nz = 1: 2D; ny = nz = 1: 1D) whose label is TM_LIQUID
 * (label NULL: all liquid).  Across a face to a TM_AIR cell the unknown is
 * 0 (Dirichlet, free surface); faces to TM_SOLID cells carry no flux
 * (Neumann); faces on the box boundary are Dirichlet if dirichlet_box, else
 * Neumann.  Unknowns are numbered in cell order; index[c] is the row of cell
 * c or -1 (index may be NULL).  Assembled from an OpenMP loop through a
 * triplet list, one diagonal triplet per face (duplicates summed). */
static inline tide_csr *tm_laplacian(int nx, int ny, int nz, const unsigned char *label,
                                     int dirichlet_box, int *index) {
  int nc = nx * ny * nz, nrow = 0;
  int *idx = index ? index : malloc(nc * sizeof(int));
  for (int c = 0; c < nc; c++)
    idx[c] = (!label || label[c] == TM_LIQUID) ? nrow++ : -1;
  tide_triplets *T = NULL;
  tide_triplets_new(nrow, nrow, &T);
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++) {
    if (idx[c] < 0) continue;
    int ijk[3] = {c / (ny * nz), (c / nz) % ny, c % nz}, n3[3] = {nx, ny, nz};
    int stride[3] = {ny * nz, nz, 1};
    for (int a = 0; a < 3; a++) {
      if (n3[a] == 1) continue;
      for (int s = -1; s <= 1; s += 2) {
        int q = ijk[a] + s;
        if (q < 0 || q >= n3[a]) {
          if (dirichlet_box) tide_triplets_add(T, idx[c], idx[c], 1.0);
          continue;
        }
        int d = c + s * stride[a];
        int ld = label ? label[d] : TM_LIQUID;
        if (ld == TM_SOLID) continue;
        tide_triplets_add(T, idx[c], idx[c], 1.0);
        if (ld == TM_LIQUID) tide_triplets_add(T, idx[c], idx[d], -1.0);
      }
    }
  }
  tide_csr *A = NULL;
  int st = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &A);
  CHECK(st == TIDE_OK, "tm_laplacian: %s", tide_errmsg());
  tide_triplets_free(T);
  if (!index) free(idx);
  return A;
}

/* A random sparse symmetric matrix (fixed seed stream): about k
 * off-diagonal entries per row in [-1, 1], diagonal = shift + sum of |row|
 * times dominance.  dominance > 1 with shift >= 0: SPD; shift < 0 large
 * enough: indefinite. */
static inline tide_csr *tm_random_sym(int n, int k, double dominance, double shift,
                                      uint64_t stream) {
  int64_t cap = (int64_t)n * (2 * k + 1), m = 0;
  int *I = malloc(cap * sizeof(int)), *J = malloc(cap * sizeof(int));
  double *V = malloc(cap * sizeof(double)), *rs = calloc(n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int t = 0; t < k / 2 + 1; t++) {
      int j = (int)(tide_rand01(stream, 3 * ((uint64_t)i * k + t)) * n);
      if (j == i) continue;
      double v = 2 * tide_rand01(stream, 3 * ((uint64_t)i * k + t) + 1) - 1;
      I[m] = i, J[m] = j, V[m++] = v;
      I[m] = j, J[m] = i, V[m++] = v;
      rs[i] += fabs(v), rs[j] += fabs(v);
    }
  for (int i = 0; i < n; i++)
    I[m] = i, J[m] = i, V[m++] = dominance * rs[i] + shift;
  tide_csr *A = NULL;
  CHECK(tide_csr_from_triplets(n, n, m, I, J, V, TIDE_CSR_GENERAL, &A) == TIDE_OK, "%s",
        tide_errmsg());
  free(I), free(J), free(V), free(rs);
  return A;
}

/* 2D convection-diffusion -Lap u + Pe (u_x + u_y) (upwind), h^2-scaled, on
 * an m x m Dirichlet grid: nonsymmetric, M-matrix. */
static inline tide_csr *tm_convdiff(int m, double peh) {
  int n = m * m;
  int64_t cap = 5 * (int64_t)n, k = 0;
  int *I = malloc(cap * sizeof(int)), *J = malloc(cap * sizeof(int));
  double *V = malloc(cap * sizeof(double));
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      int r = a * m + b;
      I[k] = r, J[k] = r, V[k++] = 4 + 2 * peh;
      if (a > 0) I[k] = r, J[k] = r - m, V[k++] = -1 - peh;
      if (a < m - 1) I[k] = r, J[k] = r + m, V[k++] = -1;
      if (b > 0) I[k] = r, J[k] = r - 1, V[k++] = -1 - peh;
      if (b < m - 1) I[k] = r, J[k] = r + 1, V[k++] = -1;
    }
  tide_csr *A = NULL;
  CHECK(tide_csr_from_triplets(n, n, k, I, J, V, TIDE_CSR_GENERAL, &A) == TIDE_OK, "%s",
        tide_errmsg());
  free(I), free(J), free(V);
  return A;
}

static inline double tm_relerr(int64_t n, const double *x, const double *y) {
  double e = 0, s = 0;
  for (int64_t i = 0; i < n; i++)
    e += (x[i] - y[i]) * (x[i] - y[i]), s += y[i] * y[i];
  return sqrt(e / s);
}

/* ||b - A x|| / ||b|| */
static inline double tm_residual(const tide_csr *A, const double *x, const double *b) {
  int n = A->nrows;
  double *r = malloc((n > 0 ? n : 1) * sizeof(double));
  tide_csr_mul(A, x, r);
  double e = 0, s = 0;
  for (int i = 0; i < n; i++)
    e += (b[i] - r[i]) * (b[i] - r[i]), s += b[i] * b[i];
  free(r);
  return sqrt(e / s);
}

/* x[i] = uniform in [-1/2, 1/2) from a stream */
static inline double *tm_randvec(int64_t n, uint64_t stream) {
  double *x = malloc((n > 0 ? n : 1) * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    x[i] = tide_rand01(stream, i) - 0.5;
  return x;
}
#endif
