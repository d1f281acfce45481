/*
 * small.c -- symmetric eigensolver and inversion-aware SVD (see small.h).
 */
/* the 4-lane kernels below must round exactly as the scalar ones: no
 * contraction of a * b + c into an FMA (GCC's default in ISO C mode), also in
 * the inline helpers of the headers (tide_det3) */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#include "solid/small.h"

#include <math.h>
#ifdef __AVX__
#include <immintrin.h>
#endif
#include <stdint.h>
#include <string.h>

#define EIG_MAXN TIDE_SYM_EIG_MAXN

/* Householder tridiagonalization and implicit-shift QR on the tridiagonal
 * (Golub & Van Loan, Matrix Computations, 8.3): A = Q T Q^T, then Wilkinson-
 * shifted Givens sweeps chase the bulge down each unreduced block of T until
 * every off-diagonal entry is below eps (|t_kk| + |t_k+1,k+1|).  About
 * 4/3 n^3 + 6 n^3 flops with the vectors against cyclic Jacobi's ~6 n^3 per
 * sweep times 7-10 sweeps; measured with the PSD projection around it: a
 * 12 x 12 shell hinge 4-5x, a 30 x 30 Liu vertex-phi pair ~4x faster
 * (2.8 -> 0.72 ms, loaded machine).  Eigenvalues of A in w, vectors in Q
 * (unsorted); the Givens sweeps stop after 60 n (never reached in the tests). */
static void eig_tridiag_qr(int n, const double *A, double *w, double *Q) {
  double a[EIG_MAXN * EIG_MAXN];
  memcpy(a, A, sizeof(double) * (size_t)(n * n));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) Q[i * n + j] = i == j;
  double v[EIG_MAXN], p[EIG_MAXN];
  for (int k = 0; k + 2 < n; k++) {
    /* reflect a[k+1.., k] onto e_{k+1}: H = I - 2 v v^T, |v| = 1 */
    int m = n - k - 1;
    double norm2 = 0;
    for (int i = 0; i < m; i++) {
      v[i] = a[(k + 1 + i) * n + k];
      norm2 += v[i] * v[i];
    }
    double tail = norm2 - v[0] * v[0];
    if (!(tail > 0)) continue; /* already tridiagonal in this column */
    double alpha = v[0] > 0 ? -sqrt(norm2) : sqrt(norm2);
    v[0] -= alpha;
    double vn = sqrt(v[0] * v[0] + tail);
    for (int i = 0; i < m; i++) v[i] /= vn;
    /* B <- H B H for the trailing block B = a[k+1.., k+1..]:
     * p = B v, w = p - (v^T p) v, B <- B - 2 v w^T - 2 w v^T */
    double vp = 0;
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int j = 0; j < m; j++) s += a[(k + 1 + i) * n + k + 1 + j] * v[j];
      p[i] = s;
      vp += v[i] * s;
    }
    for (int i = 0; i < m; i++) p[i] -= vp * v[i];
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) a[(k + 1 + i) * n + k + 1 + j] -= 2 * (v[i] * p[j] + p[i] * v[j]);
    a[(k + 1) * n + k] = a[k * n + k + 1] = alpha;
    for (int i = 1; i < m; i++) a[(k + 1 + i) * n + k] = a[k * n + k + 1 + i] = 0;
    /* Q <- Q H */
    for (int r = 0; r < n; r++) {
      double s = 0;
      for (int j = 0; j < m; j++) s += Q[r * n + k + 1 + j] * v[j];
      for (int j = 0; j < m; j++) Q[r * n + k + 1 + j] -= 2 * s * v[j];
    }
  }
  /* the tridiagonal as d (diagonal) and e (e[i] = t_{i+1,i}) */
  double d[EIG_MAXN], e[EIG_MAXN];
  for (int i = 0; i < n; i++) {
    d[i] = a[i * n + i];
    e[i] = i + 1 < n ? a[(i + 1) * n + i] : 0;
  }
  const double eps = 2.220446049250313e-16;
  for (int iter = 0, hi = n - 1; hi > 0 && iter < 60 * n; iter++) {
    /* deflate: drop the converged bottom, find the unreduced block [lo, hi] */
    while (hi > 0 && fabs(e[hi - 1]) <= eps * (fabs(d[hi - 1]) + fabs(d[hi]))) e[--hi] = 0;
    if (hi == 0) break;
    int lo = hi - 1;
    while (lo > 0 && fabs(e[lo - 1]) > eps * (fabs(d[lo - 1]) + fabs(d[lo]))) lo--;
    /* Wilkinson shift from the trailing 2 x 2 */
    double dd = 0.5 * (d[hi - 1] - d[hi]), eh = e[hi - 1];
    double mu = d[hi] - eh * eh / (dd + (dd >= 0 ? 1 : -1) * sqrt(dd * dd + eh * eh));
    double x = d[lo] - mu, z = e[lo];
    for (int k = lo; k < hi; k++) {
      /* Givens G = [c s; -s c] with G^T (x, z) = (r, 0), applied as T <- G^T T G */
      double r = sqrt(x * x + z * z);
      double c = r > 0 ? x / r : 1, s = r > 0 ? -z / r : 0;
      if (k > lo) e[k - 1] = r;
      double dk = d[k], dk1 = d[k + 1], ek = e[k];
      d[k] = c * c * dk - 2 * c * s * ek + s * s * dk1;
      d[k + 1] = s * s * dk + 2 * c * s * ek + c * c * dk1;
      e[k] = c * s * (dk - dk1) + (c * c - s * s) * ek;
      if (k + 1 < hi) {
        x = e[k];
        z = -s * e[k + 1];
        e[k + 1] *= c;
      }
      for (int row = 0; row < n; row++) {
        double qk = Q[row * n + k], qk1 = Q[row * n + k + 1];
        Q[row * n + k] = c * qk - s * qk1;
        Q[row * n + k + 1] = s * qk + c * qk1;
      }
    }
  }
  for (int i = 0; i < n; i++) w[i] = d[i];
}

void tide_sym_eig(int n, const double *A, double *w, double *Q) {
  double a[EIG_MAXN * EIG_MAXN];
  /* above 12 x 12 (Liu's vertex-phi pairs, up to 30): tridiagonal QR.  Up to
   * 12 (SVDs, rod and hinge stencils, IPC pairs) Jacobi, which keeps exact
   * zeros: a symmetric configuration stays exactly symmetric (with QR's
   * 1e-19 m of rounding a rod dropped exactly onto a parallel rod, an
   * unstable rest, rolled off within the impact step: test_solid_ipc_rods);
   * QR is 4-5x faster on a 12 x 12 hinge (docs/couple.md, bench/liu case c) */
  if (n > 12) {
    eig_tridiag_qr(n, A, w, Q);
    goto sort;
  }
  memcpy(a, A, sizeof(double) * (size_t)(n * n));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) Q[i * n + j] = i == j;
  double total = 0;
  for (int i = 0; i < n * n; i++) total += a[i] * a[i];
  for (int sweep = 0; sweep < 60 && total > 0; sweep++) {
    double off = 0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += a[p * n + q] * a[p * n + q];
    if (off <= 1e-32 * total) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        double apq = a[p * n + q];
        if (apq == 0) continue;
        double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) {
          double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {
          double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        a[p * n + q] = a[q * n + p] = 0;
        for (int k = 0; k < n; k++) {
          double qkp = Q[k * n + p], qkq = Q[k * n + q];
          Q[k * n + p] = c * qkp - s * qkq;
          Q[k * n + q] = s * qkp + c * qkq;
        }
      }
  }
  for (int i = 0; i < n; i++) w[i] = a[i * n + i];
sort:
  /* sort decreasing (selection sort keeps it simple for n <= EIG_MAXN) */
  for (int i = 0; i < n; i++) {
    int best = i;
    for (int j = i + 1; j < n; j++)
      if (w[j] > w[best]) best = j;
    if (best != i) {
      double t = w[i];
      w[i] = w[best];
      w[best] = t;
      for (int k = 0; k < n; k++) {
        t = Q[k * n + i];
        Q[k * n + i] = Q[k * n + best];
        Q[k * n + best] = t;
      }
    }
  }
}

static void project_psd(int n, double *A, int qr) {
  double w[EIG_MAXN], Q[EIG_MAXN * EIG_MAXN];
  if (qr && n >= 6)
    eig_tridiag_qr(n, A, w, Q);
  else
    tide_sym_eig(n, A, w, Q);
  int neg = 0;
  for (int i = 0; i < n; i++) neg |= w[i] < 0;
  if (!neg) return;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++)
        if (w[k] > 0) s += Q[i * n + k] * w[k] * Q[j * n + k];
      A[i * n + j] = A[j * n + i] = s;
    }
}

void tide_sym_project_psd(int n, double *A) { project_psd(n, A, 0); }

void tide_sym_project_psd_qr(int n, double *A) { project_psd(n, A, 1); }

/* B <- (W x I3) B (W x I3) on a 12 x 12 B, W = [[1,1,1,1],[1,-1,1,-1],
 * [1,1,-1,-1],[1,-1,-1,1]] / 2 (symmetric, orthogonal, its own inverse): a
 * 4-point Walsh-Hadamard butterfly over the node index of the rows, then of
 * the columns; the two halvings are one exact quartering at the end */
static void hadamard4x3(double *B) {
  for (int c = 0; c < 12; c++)
    for (int q = 0; q < 3; q++) {
      double *b0 = B + q * 12 + c, *b1 = b0 + 36, *b2 = b0 + 72, *b3 = b0 + 108;
      double s01 = *b0 + *b1, d01 = *b0 - *b1, s23 = *b2 + *b3, d23 = *b2 - *b3;
      *b0 = s01 + s23, *b1 = d01 + d23, *b2 = s01 - s23, *b3 = d01 - d23;
    }
  for (int r = 0; r < 12; r++)
    for (int q = 0; q < 3; q++) {
      double *b = B + r * 12 + q;
      double s01 = b[0] + b[3], d01 = b[0] - b[3], s23 = b[6] + b[9], d23 = b[6] - b[9];
      b[0] = 0.25 * (s01 + s23), b[3] = 0.25 * (d01 + d23);
      b[6] = 0.25 * (s01 - s23), b[9] = 0.25 * (d01 - d23);
    }
}

void tide_sym_project_psd_stencil4(double *A) {
  /* in the basis (W x I3) the first 3 coordinates are the translations
   * (the nodes' mean, times 2), which A annihilates: project the 9 x 9 rest */
  double B[144], R[81], w[9], Q[81];
  memcpy(B, A, sizeof B);
  hadamard4x3(B);
  for (int i = 0; i < 9; i++)
    for (int j = 0; j < 9; j++) R[i * 9 + j] = B[(3 + i) * 12 + 3 + j];
  eig_tridiag_qr(9, R, w, Q);
  int neg = 0;
  for (int i = 0; i < 9; i++) neg |= w[i] < 0;
  if (!neg) return;
  memset(B, 0, sizeof B);
  for (int i = 0; i < 9; i++)
    for (int j = i; j < 9; j++) {
      double s = 0;
      for (int k = 0; k < 9; k++)
        if (w[k] > 0) s += Q[i * 9 + k] * w[k] * Q[j * 9 + k];
      B[(3 + i) * 12 + 3 + j] = B[(3 + j) * 12 + 3 + i] = s;
    }
  hadamard4x3(B);
  memcpy(A, B, sizeof B);
}

/* a unit vector orthogonal to unit u (3D) */
static void any_orthogonal(const double *u, double *out) {
  /* cross with the coordinate axis least aligned with u */
  int k = 0;
  if (fabs(u[1]) < fabs(u[k])) k = 1;
  if (fabs(u[2]) < fabs(u[k])) k = 2;
  double e[3] = {0, 0, 0};
  e[k] = 1;
  tide_cross3(u, e, out);
  double l = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
  for (int i = 0; i < 3; i++) out[i] /= l;
}

void tide_svd_signed(int d, const double *F, double *U, double *s, double *V) {
  double C[9] = {0}, w[3];
  tide_matmul_tn(d, F, F, C);
  tide_sym_eig(d, C, w, V);
  if (tide_det(d, V) < 0)
    for (int i = 0; i < d; i++) V[i * d + d - 1] = -V[i * d + d - 1];
  /* columns b_k = F v_k */
  double b[3][3] = {{0}};
  for (int k = 0; k < d; k++)
    for (int i = 0; i < d; i++) {
      double t = 0;
      for (int j = 0; j < d; j++) t += F[i * d + j] * V[j * d + k];
      b[k][i] = t;
    }
  double u[3][3] = {{0}};
  double n0 = 0;
  for (int i = 0; i < d; i++) n0 += b[0][i] * b[0][i];
  n0 = sqrt(n0);
  if (n0 > 0) {
    for (int i = 0; i < d; i++) u[0][i] = b[0][i] / n0;
  } else {
    u[0][0] = 1; /* F = 0: U = I */
  }
  if (d == 2) {
    u[1][0] = -u[0][1];
    u[1][1] = u[0][0];
    s[0] = n0;
    s[1] = u[1][0] * b[1][0] + u[1][1] * b[1][1];
  } else {
    double proj = u[0][0] * b[1][0] + u[0][1] * b[1][1] + u[0][2] * b[1][2];
    double r[3], rn = 0;
    for (int i = 0; i < 3; i++) {
      r[i] = b[1][i] - proj * u[0][i];
      rn += r[i] * r[i];
    }
    rn = sqrt(rn);
    if (rn > 1e-14 * n0 && rn > 0) {
      for (int i = 0; i < 3; i++) u[1][i] = r[i] / rn;
    } else if (n0 > 0) {
      any_orthogonal(u[0], u[1]);
    } else {
      u[1][1] = 1;
    }
    tide_cross3(u[0], u[1], u[2]);
    s[0] = n0;
    s[1] = u[1][0] * b[1][0] + u[1][1] * b[1][1] + u[1][2] * b[1][2];
    s[2] = u[2][0] * b[2][0] + u[2][1] * b[2][1] + u[2][2] * b[2][2];
  }
  for (int i = 0; i < d; i++)
    for (int k = 0; k < d; k++) U[i * d + k] = u[k][i];
}

void tide_polar_rotation(int d, const double *F, double *R) {
  double U[9], s[3], V[9];
  tide_svd_signed(d, F, U, s, V);
  tide_matmul_nt(d, U, V, R);
}

void tide_polar_rotation_fast(int d, const double *F, double *R) {
  if (d == 2) {
    double a = F[0] + F[3], b = F[2] - F[1], r = sqrt(a * a + b * b);
    if (!(r > 0)) {
      tide_polar_rotation(d, F, R);
      return;
    }
    double c = a / r, s = b / r;
    R[0] = c, R[1] = -s, R[2] = s, R[3] = c;
    return;
  }
  double J = tide_det3(F), X[9];
  if (!(J > 1e-12)) {
    tide_polar_rotation(d, F, R);
    return;
  }
  memcpy(X, F, sizeof X);
  double step = HUGE_VAL;
  for (int it = 0; it < 30; it++) {
    /* cofactor matrix: X^-T = cof(X) / det X */
    double C[9] = {X[4] * X[8] - X[5] * X[7], X[5] * X[6] - X[3] * X[8], X[3] * X[7] - X[4] * X[6],
                   X[2] * X[7] - X[1] * X[8], X[0] * X[8] - X[2] * X[6], X[1] * X[6] - X[0] * X[7],
                   X[1] * X[5] - X[2] * X[4], X[2] * X[3] - X[0] * X[5], X[0] * X[4] - X[1] * X[3]};
    double det = X[0] * C[0] + X[1] * C[1] + X[2] * C[2];
    if (!(det > 0)) break;
    /* determinant scaling where it speeds up convergence (z ~ 1 otherwise) */
    double z = step > 1e-2 && fabs(det - 1) > 0.05 ? cbrt(1 / det) : 1, a = 0.5 * z, b = 0.5 / (z * det);
    step = 0;
    _Pragma("GCC unroll 16")
    for (int k = 0; k < 9; k++) {
      double y = a * X[k] + b * C[k], e = y - X[k];
      step += e * e;
      X[k] = y;
    }
    step = sqrt(step);
    /* quadratic convergence: X is now within ~step^2 / 2 of R */
    if (step <= 1e-8) {
      memcpy(R, X, sizeof X);
      return;
    }
  }
  tide_polar_rotation(d, F, R);
}

/* four doubles / lane masks, element-wise IEEE (GCC/Clang vector
 * extension); locals only: a 32-byte vector argument or result of a
 * function has an AVX-dependent ABI */
typedef double pv4 __attribute__((vector_size(32)));
typedef int64_t pm4 __attribute__((vector_size(32)));
#define PV4(a) ((pv4){(a), (a), (a), (a)})
/* bit l set when lane l of mask m is true */

typedef double pv4u __attribute__((vector_size(32), aligned(8))); /* unaligned in memory */
#define PM4_ANY(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)

void tide_polar_rotation_fast4(int n, const double *const F[4], double Fs[9][4], double Rs[9][4]) {
  static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double *f0 = F[0], *f1 = n > 1 ? F[1] : I3, *f2 = n > 2 ? F[2] : I3, *f3 = n > 3 ? F[3] : I3;
  pv4 X[9], Rv[9];
  _Pragma("GCC unroll 16")
  for (int k = 0; k < 9; k++) {
    X[k] = (pv4){f0[k], f1[k], f2[k], f3[k]};
    *(pv4u *)Fs[k] = X[k];
  }
  /* lane by lane the arithmetic of tide_polar_rotation_fast (tide_det3,
   * the cofactors, the scaled Newton step) */
  pv4 J = X[0] * (X[4] * X[8] - X[5] * X[7]) - X[1] * (X[3] * X[8] - X[5] * X[6]) +
          X[2] * (X[3] * X[7] - X[4] * X[6]);
  pm4 live = J > 1e-12, fallback = ~live; /* lanes still iterating / for the SVD */
  /* the others iterate on I (a fixed point) */
  _Pragma("GCC unroll 16")
  for (int k = 0; k < 9; k++) {
    X[k] = (pv4)(((pm4)X[k] & live) | ((pm4)PV4(k % 4 == 0 ? 1.0 : 0.0) & ~live));
    Rv[k] = X[k];
  }
  pv4 step = PV4(HUGE_VAL);
  for (int it = 0; it < 30 && PM4_ANY(live); it++) {
    pv4 C[9] = {X[4] * X[8] - X[5] * X[7], X[5] * X[6] - X[3] * X[8], X[3] * X[7] - X[4] * X[6],
                X[2] * X[7] - X[1] * X[8], X[0] * X[8] - X[2] * X[6], X[1] * X[6] - X[0] * X[7],
                X[1] * X[5] - X[2] * X[4], X[2] * X[3] - X[0] * X[5], X[0] * X[4] - X[1] * X[3]};
    pv4 det = X[0] * C[0] + X[1] * C[1] + X[2] * C[2];
    pm4 pos = det > 0;
    fallback |= live & ~pos;
    live &= pos;
    pv4 dm1 = det - 1;
    pm4 scale = (step > 1e-2) & ((dm1 > 0.05) | (dm1 < -0.05)) & live;
    pv4 z = PV4(1.0);
    if (PM4_ANY(scale)) {
      _Pragma("GCC unroll 4")
      for (int l = 0; l < 4; l++)
        if (scale[l]) z[l] = cbrt(1 / det[l]);
    }
    pv4 a = 0.5 * z, b = 0.5 / (z * det), s = PV4(0.0);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < 9; k++) {
      pv4 y = a * X[k] + b * C[k], e = y - X[k];
      s += e * e;
      X[k] = y;
    }
#ifdef __AVX__
    step = (pv4)_mm256_sqrt_pd((__m256d)s);
#else
    _Pragma("GCC unroll 4")
    for (int l = 0; l < 4; l++)
      step[l] = sqrt(s[l]);
#endif
    /* converged lanes keep this X */
    pm4 done = (step <= 1e-8) & live;
    _Pragma("GCC unroll 16")
    for (int k = 0; k < 9; k++)
      Rv[k] = (pv4)(((pm4)X[k] & done) | ((pm4)Rv[k] & ~done));
    live &= ~done;
  }
  fallback |= live;
  _Pragma("GCC unroll 16")
  for (int k = 0; k < 9; k++)
    *(pv4u *)Rs[k] = Rv[k];
  for (int l = 0; l < n; l++)
    if (fallback[l]) {
      double R[9];
      tide_polar_rotation(3, F[l], R);
      for (int k = 0; k < 9; k++)
        Rs[k][l] = R[k];
    }
}
