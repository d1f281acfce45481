/*
 * small.h -- small dense matrices for the element kernels (tide.solid):
 * determinants, inverses, symmetric eigendecomposition, and the
 * inversion-aware singular value decomposition of Irving (thesis 2.5).
 *
 * Matrices are row-major flat arrays: A[i*d + j] = A_ij, d = 2 or 3.
 */
#ifndef TIDE_SOLID_SMALL_H
#define TIDE_SOLID_SMALL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline double tide_det2(const double *A) { return A[0] * A[3] - A[1] * A[2]; }
static inline double tide_det3(const double *A) {
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
         A[2] * (A[3] * A[7] - A[4] * A[6]);
}
static inline double tide_det(int d, const double *A) { return d == 2 ? tide_det2(A) : tide_det3(A); }

static inline void tide_cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Cofactor matrix cof(A) = det(A) A^-T, a polynomial in A (defined for
 * singular A too); d(det A)/dA = cof(A). */
static inline void tide_cofactor(int d, const double *A, double *C) {
  if (d == 2) {
    C[0] = A[3];
    C[1] = -A[2];
    C[2] = -A[1];
    C[3] = A[0];
    return;
  }
  C[0] = A[4] * A[8] - A[5] * A[7];
  C[1] = A[5] * A[6] - A[3] * A[8];
  C[2] = A[3] * A[7] - A[4] * A[6];
  C[3] = A[2] * A[7] - A[1] * A[8];
  C[4] = A[0] * A[8] - A[2] * A[6];
  C[5] = A[1] * A[6] - A[0] * A[7];
  C[6] = A[1] * A[5] - A[2] * A[4];
  C[7] = A[2] * A[3] - A[0] * A[5];
  C[8] = A[0] * A[4] - A[1] * A[3];
}

/* Ainv = A^-1 (A must be invertible; the caller checks det). */
static inline void tide_mat_inv(int d, const double *A, double *Ainv) {
  double C[9];
  tide_cofactor(d, A, C);
  double det = tide_det(d, A);
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) Ainv[i * d + j] = C[j * d + i] / det;
}

/* C = A B for d x d matrices (C must not alias A or B). */
static inline void tide_matmul(int d, const double *A, const double *B, double *C) {
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      double s = 0;
      for (int k = 0; k < d; k++) s += A[i * d + k] * B[k * d + j];
      C[i * d + j] = s;
    }
}
/* C = A B^T */
static inline void tide_matmul_nt(int d, const double *A, const double *B, double *C) {
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      double s = 0;
      for (int k = 0; k < d; k++) s += A[i * d + k] * B[j * d + k];
      C[i * d + j] = s;
    }
}
/* C = A^T B */
static inline void tide_matmul_tn(int d, const double *A, const double *B, double *C) {
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      double s = 0;
      for (int k = 0; k < d; k++) s += A[k * d + i] * B[k * d + j];
      C[i * d + j] = s;
    }
}

#define TIDE_SYM_EIG_MAXN 36 /* largest n of tide_sym_eig / tide_sym_project_psd */

/* Symmetric eigendecomposition of an n x n matrix (n <= TIDE_SYM_EIG_MAXN) by cyclic
 * Jacobi rotations for n <= 12 (Golub & Van Loan, Matrix Computations, 8.5;
 * keeps exact zeros, so symmetric configurations stay symmetric) and by
 * Householder tridiagonalization + implicit Wilkinson-shifted QR above
 * (8.3; ~4x faster at 30 x 30): A = Q
 * diag(w) Q^T with the eigenvalues w sorted in decreasing order and the
 * eigenvectors in the columns of Q (Q[i*n + k] = component i of vector k).
 * A is not modified.  Robust for repeated and zero eigenvalues. */
void tide_sym_eig(int n, const double *A, double *w, double *Q);

/* Replace the symmetric n x n matrix A (n <= TIDE_SYM_EIG_MAXN) by its projection onto the
 * positive semidefinite cone: Q max(w, 0) Q^T. */
void tide_sym_project_psd(int n, double *A);

/* The same projection by the tridiagonal QR at every n >= 6 (4-5x faster on
 * 12 x 12; its rounding does not keep exact zeros, so an exactly symmetric
 * configuration is symmetric only to ~1e-16 relative): the shell hinges. */
void tide_sym_project_psd_qr(int n, double *A);

/* The same projection (tridiagonal QR) of the 12 x 12 Hessian A of an energy
 * of 4 nodes in 3D that is invariant under translation (A annihilates the
 * translations): A's eigenvectors of nonzero eigenvalue lie in the 9D
 * complement of the translations, where A is projected (a 9 x 9 eigenproblem,
 * ~2.4x fewer flops than 12 x 12); the translations' rounding residue
 * (~1e-16 of A) is dropped.  A is left as it is when it has no negative
 * eigenvalue there.  The shell hinges. */
void tide_sym_project_psd_stencil4(double *A);

/* Inversion-aware SVD F = U diag(s) V^T of a d x d matrix (Irving, thesis
 * 2.5; Irving, Teran & Fedkiw 2004):
 *   - U and V are rotations (det U = det V = +1);
 *   - |s_0| >= |s_1| (>= |s_2|), s_0, s_1 >= 0 (3D: s_0, s_1 >= 0);
 *   - the last entry (smallest magnitude) is negative exactly when
 *     det F < 0, i.e. an inverted element is taken as inverted along its
 *     thinnest direction.
 * V comes from the eigenvectors of F^T F (Jacobi), then U from a
 * Gram-Schmidt QR of F V, so small singular values stay accurate and flat
 * or point-collapsed F (rank 2, 1, 0) give finite results: a column of U
 * whose singular value vanishes is chosen orthogonal to the others (U = I
 * for F = 0). */
void tide_svd_signed(int d, const double *F, double *U, double *s, double *V);

/* Rotation part R = U V^T of the polar decomposition F = R S computed from
 * the signed SVD (Irving 2.5.1), a proper rotation also for inverted F. */
void tide_polar_rotation(int d, const double *F, double *R);

/* The same rotation, faster: in 2D the closed form R = rot(atan2(F10 - F01,
 * F00 + F11)) (the rotation maximizing tr(R^T F), which is U V^T of the
 * signed SVD); in 3D for det F > 0 Higham's Newton iteration
 * X <- (z X + X^-T / z) / 2 (z = |det X|^(-1/3) while far from
 * converged and det X is not near 1), stopped when a step changes X by <= 1e-8 (quadratic
 * convergence: the result is then exact to round-off).  Inverted, flat or
 * non-converging F fall back to tide_polar_rotation. */
void tide_polar_rotation_fast(int d, const double *F, double *R);

/* tide_polar_rotation_fast in 3D for n <= 4 matrices F[0 .. n-1] at once,
 * lane-wise (structure of arrays): Fs[k][l] = F[l][k] and Rs[k][l] entry k
 * of lane l's rotation (lanes l >= n: the identity).  The Newton iteration
 * runs in 4 SIMD lanes, a lane frozen once it has converged, each lane
 * rounding as the scalar code does: every lane's rotation is bit-identical
 * to tide_polar_rotation_fast(3, F[l], R). */
void tide_polar_rotation_fast4(int n, const double *const F[4], double Fs[9][4], double Rs[9][4]);

#ifdef __cplusplus
}
#endif
#endif
