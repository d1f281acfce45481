/* condest.c -- 1-norm and condition number estimates without forming the
 * inverse: Hager's method with Higham's refinements (Higham 1988, ACM TOMS
 * 14(4), Alg. 4.1; the reverse-communication LAPACK routine dlacn2).
 *
 * Zarifi's Table 6.2 reports log10 of the 1-norm condition number of the
 * indefinite (5.17) and SPD (5.25) coupled matrices estimated with MATLAB's
 * condest; tide_condest1 is that estimate with block size 1, computed from a
 * sparse factorization (one solve with A or A^T per product). */
#include "linalg.h"

#include <math.h>
#include <stdlib.h>

int tide_csr_norm1(const tide_csr *A, double *out) {
  double *cs = calloc((size_t)(A->ncols > 0 ? A->ncols : 1), sizeof(double));
  if (!cs) return tide_fail(TIDE_ENOMEM, "norm1: out of memory");
  for (int i = 0; i < A->nrows; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      const double a = fabs(A->val[p]);
      cs[A->col[p]] += a;
      if (A->stype == TIDE_CSR_UPPER && A->col[p] != i) cs[i] += a; /* the mirrored entry */
    }
  double m = 0;
  int bad = 0;
  for (int j = 0; j < A->ncols; j++) {
    bad |= !isfinite(cs[j]);
    if (cs[j] > m) m = cs[j];
  }
  free(cs);
  if (bad) return tide_fail(TIDE_ENONFINITE, "norm1: the matrix holds non-finite values");
  *out = m;
  return TIDE_OK;
}

static double asum(int n, const double *x) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += fabs(x[i]);
  return s;
}

/* first index of the largest |x_i| (idamax) */
static int iamax(int n, const double *x) {
  int j = 0;
  for (int i = 1; i < n; i++)
    if (fabs(x[i]) > fabs(x[j])) j = i;
  return j;
}

int tide_normest1(int n, tide_linop_fn apply, tide_linop_fn apply_t, void *ctx, double *est,
                  int *products) {
  if (n < 1) return tide_fail(TIDE_EINVAL, "normest1: n = %d must be positive", n);
  const int itmax = 5;
  double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
  int *sgn = malloc((size_t)n * sizeof(int));
  int st = TIDE_OK, np = 0;
  double e = 0;
  if (!x || !y || !sgn) {
    st = tide_fail(TIDE_ENOMEM, "normest1: out of memory");
    goto done;
  }
#define PRODUCT(f, in, out)                                                                        \
  do {                                                                                             \
    np++;                                                                                          \
    if ((st = f(ctx, in, out))) goto done;                                                         \
  } while (0)
  /* x = (1/n, ..., 1/n): ||B x||_1 is a first lower bound */
  for (int i = 0; i < n; i++)
    x[i] = 1.0 / n;
  PRODUCT(apply, x, y);
  if (n == 1) {
    e = fabs(y[0]);
    goto done;
  }
  e = asum(n, y);
  for (int i = 0; i < n; i++) {
    sgn[i] = y[i] >= 0 ? 1 : -1;
    x[i] = sgn[i];
  }
  PRODUCT(apply_t, x, y); /* the subgradient z = B^T sign(B x) */
  int j = iamax(n, y), iter = 2;
  for (;;) {
    /* x = e_j, the vertex of the unit 1-ball where z is largest */
    for (int i = 0; i < n; i++)
      x[i] = 0;
    x[j] = 1;
    PRODUCT(apply, x, y);
    const double eold = e;
    e = asum(n, y);
    int same = 1;
    for (int i = 0; i < n && same; i++)
      same = (y[i] >= 0 ? 1 : -1) == sgn[i];
    if (same || e <= eold) { /* repeated sign vector (converged) or cycling */
      if (e < eold) e = eold;
      break;
    }
    for (int i = 0; i < n; i++) {
      sgn[i] = y[i] >= 0 ? 1 : -1;
      x[i] = sgn[i];
    }
    PRODUCT(apply_t, x, y);
    const int jlast = j;
    j = iamax(n, y);
    if (!(y[jlast] != fabs(y[j]) && iter < itmax)) break;
    iter++;
  }
  /* Higham's extra estimate from the alternating vector */
  for (int i = 0; i < n; i++)
    x[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + (double)i / (n - 1));
  PRODUCT(apply, x, y);
  const double alt = 2 * asum(n, y) / (3.0 * n);
  if (alt > e) e = alt;
#undef PRODUCT
done:
  free(x);
  free(y);
  free(sgn);
  if (!st && !isfinite(e)) st = tide_fail(TIDE_ENONFINITE, "normest1: the estimate is not finite");
  if (!st) *est = e;
  if (products) *products = np;
  return st;
}

static int solve_fn(void *ctx, const double *x, double *y) {
  return tide_factor_solve((tide_factor *)ctx, x, y);
}
static int solve_t_fn(void *ctx, const double *x, double *y) {
  return tide_factor_solve_transpose((tide_factor *)ctx, x, y);
}

int tide_condest1(const tide_csr *A, tide_factor *F, double *cond, double *norm_A, double *norm_inv,
                  int *solves) {
  tide_factor_stats fs;
  tide_factor_info(F, &fs);
  if (A->nrows != A->ncols || A->nrows != fs.n)
    return tide_fail(TIDE_EINVAL, "condest: the matrix is %d x %d, the factorization %d x %d",
                     A->nrows, A->ncols, fs.n, fs.n);
  if (fs.n == 0) return tide_fail(TIDE_EINVAL, "condest: the matrix is empty");
  double na, ni;
  int st = tide_csr_norm1(A, &na);
  if (st) return st;
  if ((st = tide_normest1(fs.n, solve_fn, solve_t_fn, F, &ni, solves))) return st;
  *cond = na * ni;
  if (norm_A) *norm_A = na;
  if (norm_inv) *norm_inv = ni;
  return TIDE_OK;
}
