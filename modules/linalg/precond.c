/* precond.c -- Jacobi, IC(0), MIC(0) and ILU(0) preconditioners for CSR
 * matrices, with level-scheduled (parallel, deterministic) triangular
 * solves.
 *
 * IC(0)/MIC(0) are computed right-looking on the pattern of triu(A) (Saad,
 * "Iterative Methods for Sparse Linear Systems", sec. 10.3; the modified
 * variant as in Bridson, "Fluid Simulation for Computer Graphics", 2nd ed.,
 * sec. 5.2.6, generalised from the grid to any pattern): when column k is
 * eliminated, the update -l_ik l_jk of a position (i, j) outside the pattern
 * is dropped; MIC(0) moves tau times it to the diagonals of rows i and j,
 * which keeps the row sums of M = U^T U close to those of A.  ILU(0) is the
 * IKJ variant (Saad Alg. 10.4).
 *
 * Triangular solves are level-scheduled (Saad sec. 11.6.3): level(i) = 1 +
 * max level of the rows i depends on; the rows of one level are independent
 * and solved in parallel; runs of short levels are done by one thread to
 * save barriers.  The schedule is computed once per pattern. */
#include "linalg.h"
#include "linalg_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Levels shorter than this run serially (several per barrier). */
#define LEVEL_PAR_MIN 96
/* Below this dimension the whole solve runs on one thread. */
#define TRISOLVE_PAR_MIN 4096

typedef struct {
  int n, nlev;
  int forward; /* dependencies have smaller (1) or larger (0) row numbers */
  int *rows;   /* n rows in level order, ascending within a level */
  int *lptr;   /* nlev + 1 */
  /* the rows' entries copied in level order (parallel solves stream them):
   * row rows[t] has entries optr[t] .. optr[t+1]-1, oval[q] = w[osrc[q]] */
  int64_t onz;
  int *optr, *ocol, *osrc;
  double *oval;
  int nseg;    /* segments: a parallel level or a run of short levels */
  int *segptr; /* nseg + 1, bounds in rows[] */
  char *segpar;
} levels;

/* Serial or level-parallel application, chosen by measurement.  Both give
 * bit-identical results (each row is computed the same way), so the choice
 * never changes the numbers, only the time.  A level schedule costs a
 * barrier per level: on dedicated cores that is about a microsecond, but
 * when the cores are oversubscribed a barrier can wait for a time slice and
 * the parallel solve becomes far slower than the serial one.  The first two
 * applications time both variants; afterwards the faster one runs, and the
 * other is timed again once the time spent since the last probe exceeds ten
 * times its last measured cost (so probing costs at most ~10%). */
typedef struct trisolve_tuner {
  int count, mode; /* mode 0 serial, 1 parallel */
  int forced;      /* -1 automatic, else the mode to use */
  double t[2];     /* last measured seconds per application */
  double spent;    /* seconds in the chosen mode since the last probe */
} trisolve_tuner;

struct tide_precond {
  int kind, n;
  int abs_jacobi;
  double *dinv; /* n: inverse diagonal (Jacobi, IC/MIC, ILU) */
  /* working factor on a pattern with the diagonal first (IC: triu(A)) or
   * in place (ILU: the pattern of A) */
  int64_t wnz;
  int *wptr, *wcol, *wdiag; /* wptr n+1, wcol wnz, wdiag n (position of the diagonal) */
  double *wval;
  int *amap;     /* wnz: position in A of each factor entry */
  int *ubeg;     /* n: first strict-upper position in row i (wdiag[i] + 1) */
  double *adiag; /* n: the diagonal of A (MIC safeguard) */
  /* IC: strict lower L = transpose of the strict upper part of w */
  int64_t lnz;
  int *lptr, *lcol, *lsrc; /* lsrc: position in w */
  double *lval;
  levels fwd, bwd;
  struct trisolve_tuner *tuner; /* mutable timing state of the (const) apply */
  double shift;                 /* IC: diagonal shift of the last factorization */
};

double tide_precond_shift(const tide_precond *P) { return P ? P->shift : 0; }

const char *tide_precond_name(int kind) {
  switch (kind) {
  case TIDE_PRECOND_NONE:
    return "none";
  case TIDE_PRECOND_JACOBI:
    return "jacobi";
  case TIDE_PRECOND_IC0:
    return "ic0";
  case TIDE_PRECOND_MIC0:
    return "mic0";
  case TIDE_PRECOND_ILU0:
    return "ilu0";
  default:
    return "unknown";
  }
}

/* ------------------------------------------------------------- levels */

static void levels_free(levels *lv) {
  tide_free(lv->optr, lv->optr ? (size_t)(lv->n + 1) * sizeof(int) : 0);
  tide_free(lv->ocol, lv->ocol ? (size_t)lv->onz * sizeof(int) : 0);
  tide_free(lv->osrc, lv->osrc ? (size_t)lv->onz * sizeof(int) : 0);
  tide_free(lv->oval, lv->oval ? (size_t)lv->onz * sizeof(double) : 0);
  tide_free(lv->rows, lv->rows ? (size_t)(lv->n > 0 ? lv->n : 1) * sizeof(int) : 0);
  tide_free(lv->lptr, lv->lptr ? (size_t)(lv->nlev + 1) * sizeof(int) : 0);
  tide_free(lv->segptr, lv->segptr ? (size_t)(lv->nseg + 1) * sizeof(int) : 0);
  tide_free(lv->segpar, lv->segpar ? (size_t)(lv->nseg > 0 ? lv->nseg : 1) : 0);
  memset(lv, 0, sizeof *lv);
}

/* Levels of a triangular solve whose row i reads x[col[p]] for p in
 * [beg[i], end[i]).  forward: dependencies have col < i; else col > i. */
static int levels_build(levels *lv, int n, const int *beg, const int *end, const int *col,
                        int forward) {
  memset(lv, 0, sizeof *lv);
  lv->n = n;
  lv->forward = forward;
  int *lev = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (!lev) return TIDE_ENOMEM;
  int nlev = 0;
  for (int t = 0; t < n; t++) {
    int i = forward ? t : n - 1 - t, l = 0;
    for (int p = beg[i]; p < end[i]; p++)
      if (lev[col[p]] + 1 > l) l = lev[col[p]] + 1;
    lev[i] = l;
    if (l + 1 > nlev) nlev = l + 1;
  }
  lv->nlev = nlev;
  lv->lptr = tide_calloc((size_t)(nlev + 1) * sizeof(int));
  lv->rows = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  int *next = tide_alloc((size_t)(nlev + 1) * sizeof(int));
  if (!lv->lptr || !lv->rows || !next) {
    tide_free(lev, (size_t)(n > 0 ? n : 1) * sizeof(int));
    tide_free(next, next ? (size_t)(nlev + 1) * sizeof(int) : 0);
    levels_free(lv);
    return TIDE_ENOMEM;
  }
  for (int i = 0; i < n; i++)
    lv->lptr[lev[i] + 1]++;
  for (int l = 0; l < nlev; l++)
    lv->lptr[l + 1] += lv->lptr[l];
  memcpy(next, lv->lptr, (size_t)(nlev + 1) * sizeof(int));
  for (int i = 0; i < n; i++)
    lv->rows[next[lev[i]]++] = i;
  tide_free(next, (size_t)(nlev + 1) * sizeof(int));
  tide_free(lev, (size_t)(n > 0 ? n : 1) * sizeof(int));
  /* segments */
  int nseg = 0;
  for (int l = 0; l < nlev; l++) {
    int big = lv->lptr[l + 1] - lv->lptr[l] >= LEVEL_PAR_MIN;
    int prevbig = l > 0 && lv->lptr[l] - lv->lptr[l - 1] >= LEVEL_PAR_MIN;
    if (l == 0 || big || prevbig) nseg++;
  }
  lv->nseg = nseg;
  lv->segptr = tide_alloc((size_t)(nseg + 1) * sizeof(int));
  lv->segpar = tide_alloc((size_t)(nseg > 0 ? nseg : 1));
  if (!lv->segptr || !lv->segpar) {
    levels_free(lv);
    return TIDE_ENOMEM;
  }
  int s = -1;
  for (int l = 0; l < nlev; l++) {
    int big = lv->lptr[l + 1] - lv->lptr[l] >= LEVEL_PAR_MIN;
    int prevbig = l > 0 && lv->lptr[l] - lv->lptr[l - 1] >= LEVEL_PAR_MIN;
    if (l == 0 || big || prevbig) {
      s++;
      lv->segptr[s] = lv->lptr[l];
      lv->segpar[s] = (char)big;
    }
  }
  lv->segptr[nseg] = n;
  return TIDE_OK;
}

/* x[i] = (rhs[i] - sum_p val[p] x[col[p]]) * (dinv ? dinv[i] : 1), rows in
 * level order. */
static inline void trisolve_row(int i, const int *beg, const int *end, const int *col,
                                const double *val, const double *dinv, const double *rhs,
                                double *x) {
  double s = rhs[i];
  for (int p = beg[i]; p < end[i]; p++)
    s -= val[p] * x[col[p]];
  x[i] = dinv ? s * dinv[i] : s;
}

/* Whether the level schedule has enough rows per level to run in parallel
 * at all. */
static int levels_wide(const levels *lv) {
  return lv->n >= TRISOLVE_PAR_MIN &&
         (double)lv->n / (lv->nlev > 0 ? lv->nlev : 1) >= LEVEL_PAR_MIN;
}

static int levels_parallel(const levels *lv) { return lv->optr && tide_threads_get() > 1; }

/* Level-ordered copy of the entries of a wide schedule; src maps an entry
 * position p (in col) to its position in the factor's value array w (NULL:
 * the same position). */
static int levels_reorder(levels *lv, const int *beg, const int *end, const int *col,
                          const int *src) {
  if (!levels_wide(lv)) return TIDE_OK;
  int n = lv->n;
  int64_t m = 0;
  for (int i = 0; i < n; i++)
    m += end[i] - beg[i];
  lv->onz = m;
  lv->optr = tide_alloc((size_t)(n + 1) * sizeof(int));
  lv->ocol = tide_alloc((size_t)m * sizeof(int));
  lv->osrc = tide_alloc((size_t)m * sizeof(int));
  lv->oval = tide_alloc((size_t)m * sizeof(double));
  if (!lv->optr || !lv->ocol || !lv->osrc || !lv->oval) return TIDE_ENOMEM;
  int q = 0;
  lv->optr[0] = 0;
  for (int t = 0; t < n; t++) {
    int i = lv->rows[t];
    for (int p = beg[i]; p < end[i]; p++) {
      lv->ocol[q] = col[p];
      lv->osrc[q++] = src ? src[p] : p;
    }
    lv->optr[t + 1] = q;
  }
  return TIDE_OK;
}

/* new numbers: oval from the factor values w */
static void levels_refresh(levels *lv, const double *w) {
  if (!lv->optr) return;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(lv->onz))
  for (int64_t q = 0; q < lv->onz; q++)
    lv->oval[q] = w[lv->osrc[q]];
}

/* row rows[t] of a level-ordered copy */
static inline void trisolve_orow(const levels *lv, int t, const double *dinv, const double *rhs,
                                 double *x) {
  int i = lv->rows[t];
  double s = rhs[i];
  for (int q = lv->optr[t]; q < lv->optr[t + 1]; q++)
    s -= lv->oval[q] * x[lv->ocol[q]];
  x[i] = dinv ? s * dinv[i] : s;
}

static void trisolve(const levels *lv, int par, const int *beg, const int *end, const int *col,
                     const double *val, const double *dinv, const double *rhs, double *x) {
  const int *rows = lv->rows;
  if (!par) {
    /* serially the natural order is a valid order too, and streams the
     * matrix and vectors instead of jumping between wavefronts */
    if (lv->forward)
      for (int i = 0; i < lv->n; i++)
        trisolve_row(i, beg, end, col, val, dinv, rhs, x);
    else
      for (int i = lv->n - 1; i >= 0; i--)
        trisolve_row(i, beg, end, col, val, dinv, rhs, x);
    return;
  }
  (void)rows;
#pragma omp parallel
  for (int s = 0; s < lv->nseg; s++) {
    int t0 = lv->segptr[s], t1 = lv->segptr[s + 1];
    if (lv->segpar[s]) {
#pragma omp for schedule(static)
      for (int t = t0; t < t1; t++)
        trisolve_orow(lv, t, dinv, rhs, x);
    } else {
#pragma omp single
      for (int t = t0; t < t1; t++)
        trisolve_orow(lv, t, dinv, rhs, x);
    }
  }
}

static int tuner_pick(trisolve_tuner *tu, int eligible) {
  if (!eligible) return 0;
  if (tu->forced >= 0) return tu->forced;
  if (tu->count < 2) return tu->count; /* probe serial, then parallel */
  int other = 1 - tu->mode;
  if (tu->spent > 10 * tu->t[other]) return other;
  return tu->mode;
}

static void tuner_record(trisolve_tuner *tu, int eligible, int used, double seconds) {
  if (!eligible) return;
  tu->t[used] = seconds;
  if (tu->count < 2 || used != tu->mode)
    tu->spent = 0;
  else
    tu->spent += seconds;
  tu->count++;
  tu->mode = tu->t[1] < tu->t[0] ? 1 : 0;
}

/* ------------------------------------------------------------ helpers */

static int64_t diag_pos(const tide_csr *A, int i) { return tide_csr_find(A, i, i); }

static int find_in_row(const int *col, int lo, int hi, int c) {
  hi--;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (col[mid] < c)
      lo = mid + 1;
    else if (col[mid] > c)
      hi = mid - 1;
    else
      return mid;
  }
  return -1;
}

void tide_precond_free(tide_precond *P) {
  if (!P) return;
  int n = P->n;
  size_t nb = (size_t)(n > 0 ? n : 1);
  tide_free(P->dinv, P->dinv ? nb * sizeof(double) : 0);
  tide_free(P->wptr, P->wptr ? (size_t)(n + 1) * sizeof(int) : 0);
  tide_free(P->wcol, P->wcol ? (size_t)P->wnz * sizeof(int) : 0);
  tide_free(P->wdiag, P->wdiag ? nb * sizeof(int) : 0);
  tide_free(P->wval, P->wval ? (size_t)P->wnz * sizeof(double) : 0);
  tide_free(P->amap, P->amap ? (size_t)P->wnz * sizeof(int) : 0);
  tide_free(P->ubeg, P->ubeg ? nb * sizeof(int) : 0);
  tide_free(P->adiag, P->adiag ? nb * sizeof(double) : 0);
  tide_free(P->lptr, P->lptr ? (size_t)(n + 1) * sizeof(int) : 0);
  tide_free(P->lcol, P->lcol ? (size_t)P->lnz * sizeof(int) : 0);
  tide_free(P->lsrc, P->lsrc ? (size_t)P->lnz * sizeof(int) : 0);
  tide_free(P->lval, P->lval ? (size_t)P->lnz * sizeof(double) : 0);
  levels_free(&P->fwd);
  levels_free(&P->bwd);
  tide_free(P->tuner, P->tuner ? sizeof *P->tuner : 0);
  tide_free(P, sizeof *P);
}

void tide_precond_set_parallel(tide_precond *P, int mode) {
  P->tuner->forced = mode < 0 ? -1 : mode > 0;
}

void tide_precond_levels(const tide_precond *P, int *forward, int *backward) {
  *forward = P->fwd.nlev;
  *backward = P->bwd.nlev;
}

/* --------------------------------------------------------- numerics */

static int jacobi_numeric(tide_precond *P, const tide_csr *A) {
  tide_csr_diag(A, P->dinv);
  for (int i = 0; i < P->n; i++) {
    double d = P->abs_jacobi ? fabs(P->dinv[i]) : P->dinv[i];
    if (d == 0)
      return tide_fail(TIDE_ESINGULAR, "Jacobi preconditioner: diagonal entry %d is zero", i);
    P->dinv[i] = 1.0 / d;
  }
  return TIDE_OK;
}

/* IC(0) / MIC(0), right-looking on the upper pattern w (diagonal first in
 * each row).  Row k of w holds column k of L = U^T.  The factorization of
 * A + shift diag(A) (shift 0 first); returns 0 if it broke down (IC0: a
 * pivot <= 1e-12 A_kk, whose row has already grown without bound on
 * matrices far from M-matrices; both: a non-finite factor entry). */
static int ic_factor(tide_precond *P, const tide_csr *A, double shift) {
  int n = P->n, replaced = 0;
  const int *wptr = P->wptr, *wcol = P->wcol;
  double *w = P->wval;
  double tau = P->kind == TIDE_PRECOND_MIC0 ? TIDE_MIC_TAU : 0.0;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(P->wnz))
  for (int64_t q = 0; q < P->wnz; q++)
    w[q] = A->val[P->amap[q]];
  for (int i = 0; i < n; i++) {
    P->adiag[i] = w[wptr[i]];
    w[wptr[i]] *= 1 + shift;
  }
  for (int k = 0; k < n; k++) {
    int dk = wptr[k];
    double d = w[dk], akk = P->adiag[k];
    if (P->kind == TIDE_PRECOND_MIC0 ? d < TIDE_MIC_SIGMA * akk : d <= 1e-12 * akk) {
      d = akk;
      replaced += P->kind == TIDE_PRECOND_IC0;
    }
    double ukk = sqrt(d), inv = 1.0 / ukk;
    w[dk] = ukk;
    P->dinv[k] = inv;
    int p0 = dk + 1, p1 = wptr[k + 1];
    for (int p = p0; p < p1; p++)
      w[p] *= inv;
    for (int p = p0; p < p1; p++) {
      int i = wcol[p];
      double lik = w[p];
      w[wptr[i]] -= lik * lik;
      for (int q = p + 1; q < p1; q++) {
        int j = wcol[q];
        double f = lik * w[q];
        int pos = find_in_row(wcol, wptr[i] + 1, wptr[i + 1], j);
        if (pos >= 0) {
          w[pos] -= f;
        } else if (tau != 0) {
          w[wptr[i]] -= tau * f;
          w[wptr[j]] -= tau * f;
        }
      }
    }
  }
  int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad) if (TIDE_LA_PAR(P->wnz))
  for (int64_t q = 0; q < P->wnz; q++)
    bad += !isfinite(w[q]);
  return bad == 0 && replaced == 0;
}

static int ic_numeric(tide_precond *P, const tide_csr *A) {
  /* breakdown: retry with a growing diagonal shift (Manteuffel 1980; the
   * strategy of Lin & More 1999 as in Eigen's IncompleteCholesky) */
  double shift = 0;
  while (!ic_factor(P, A, shift)) {
    shift = shift > 0 ? 2 * shift : 1e-3;
    if (shift > 1e6)
      return tide_fail(TIDE_ENOTSPD, "%s: breakdown even with a diagonal shift",
                       tide_precond_name(P->kind));
  }
  P->shift = shift;
  /* the transpose L for the forward solve */
  const double *w = P->wval;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(P->lnz))
  for (int64_t q = 0; q < P->lnz; q++)
    P->lval[q] = w[P->lsrc[q]];
  return TIDE_OK;
}

/* ILU(0), IKJ variant, in place on the pattern of A. */
static int ilu_numeric(tide_precond *P, const tide_csr *A, int *marker) {
  int n = P->n;
  const int *wptr = P->wptr, *wcol = P->wcol, *wdiag = P->wdiag;
  double *w = P->wval;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(P->wnz))
  for (int64_t q = 0; q < P->wnz; q++)
    w[q] = A->val[q];
  for (int i = 0; i < n; i++)
    marker[i] = -1;
  for (int i = 0; i < n; i++) {
    for (int p = wptr[i]; p < wptr[i + 1]; p++)
      marker[wcol[p]] = p;
    for (int p = wptr[i]; p < wdiag[i]; p++) {
      int k = wcol[p];
      double lik = w[p] * P->dinv[k];
      w[p] = lik;
      for (int q = wdiag[k] + 1; q < wptr[k + 1]; q++) {
        int m = marker[wcol[q]];
        if (m >= 0) w[m] -= lik * w[q];
      }
    }
    for (int p = wptr[i]; p < wptr[i + 1]; p++)
      marker[wcol[p]] = -1;
    double d = w[wdiag[i]];
    if (d == 0 || !isfinite(d)) return tide_fail(TIDE_ESINGULAR, "ILU(0): zero pivot in row %d", i);
    P->dinv[i] = 1.0 / d;
  }
  return TIDE_OK;
}

static int numeric(tide_precond *P, const tide_csr *A) {
  int st = TIDE_OK;
  switch (P->kind) {
  case TIDE_PRECOND_JACOBI:
    return jacobi_numeric(P, A);
  case TIDE_PRECOND_IC0:
  case TIDE_PRECOND_MIC0:
    st = ic_numeric(P, A);
    break;
  case TIDE_PRECOND_ILU0: {
    int *marker = tide_alloc((size_t)(P->n > 0 ? P->n : 1) * sizeof(int));
    if (!marker) return TIDE_ENOMEM;
    st = ilu_numeric(P, A, marker);
    tide_free(marker, (size_t)(P->n > 0 ? P->n : 1) * sizeof(int));
    break;
  }
  default:
    return TIDE_OK;
  }
  if (!st) {
    levels_refresh(&P->fwd, P->wval);
    levels_refresh(&P->bwd, P->wval);
  }
  return st;
}

/* ---------------------------------------------------------- symbolic */

static int ic_symbolic(tide_precond *P, const tide_csr *A) {
  int n = P->n;
  /* w = triu(A) pattern (diagonal first since columns ascend) */
  int64_t m = 0;
  for (int i = 0; i < n; i++) {
    int64_t dp = diag_pos(A, i);
    if (dp < 0)
      return tide_fail(TIDE_EINVAL, "%s: diagonal entry %d is missing from the pattern",
                       tide_precond_name(P->kind), i);
    if (!(A->val[dp] > 0))
      return tide_fail(TIDE_ENOTSPD,
                       "%s: diagonal entry %d is %g; incomplete Cholesky needs a symmetric "
                       "matrix with positive diagonal",
                       tide_precond_name(P->kind), i, A->val[dp]);
    m += A->rowptr[i + 1] - dp;
  }
  if (A->stype != TIDE_CSR_UPPER) {
    double asym = 0, amax = 0;
    int st = tide_csr_asymmetry(A, &asym);
    if (st) return st;
    for (int64_t p = 0; p < tide_csr_nnz(A); p++)
      if (fabs(A->val[p]) > amax) amax = fabs(A->val[p]);
    if (asym > 1e-10 * amax)
      return tide_fail(TIDE_EINVAL,
                       "%s: matrix is not symmetric (max |A - A^T| = %g, max |A| = %g); use "
                       "ilu0 with bicgstab for nonsymmetric systems",
                       tide_precond_name(P->kind), asym, amax);
  }
  P->wnz = m;
  P->wptr = tide_alloc((size_t)(n + 1) * sizeof(int));
  P->wcol = tide_alloc((size_t)m * sizeof(int));
  P->wval = tide_alloc((size_t)m * sizeof(double));
  P->amap = tide_alloc((size_t)m * sizeof(int));
  P->ubeg = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  P->adiag = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  P->lptr = tide_calloc((size_t)(n + 1) * sizeof(int));
  P->lnz = m - n;
  P->lcol = tide_alloc((size_t)P->lnz * sizeof(int));
  P->lsrc = tide_alloc((size_t)P->lnz * sizeof(int));
  P->lval = tide_alloc((size_t)P->lnz * sizeof(double));
  if (!P->wptr || !P->wcol || !P->wval || !P->amap || !P->ubeg || !P->adiag || !P->lptr ||
      !P->lcol || !P->lsrc || !P->lval)
    return tide_fail(TIDE_ENOMEM, "%s: out of memory", tide_precond_name(P->kind));
  int q = 0;
  P->wptr[0] = 0;
  for (int i = 0; i < n; i++) {
    for (int p = (int)diag_pos(A, i); p < A->rowptr[i + 1]; p++) {
      P->wcol[q] = A->col[p];
      P->amap[q++] = p;
    }
    P->wptr[i + 1] = q;
    P->ubeg[i] = P->wptr[i] + 1;
  }
  /* L = transpose of the strict upper part; rows of L ascend in column */
  for (int i = 0; i < n; i++)
    for (int p = P->wptr[i] + 1; p < P->wptr[i + 1]; p++)
      P->lptr[P->wcol[p] + 1]++;
  for (int i = 0; i < n; i++)
    P->lptr[i + 1] += P->lptr[i];
  int *next = tide_alloc((size_t)(n + 1) * sizeof(int));
  if (!next) return TIDE_ENOMEM;
  memcpy(next, P->lptr, (size_t)(n + 1) * sizeof(int));
  for (int i = 0; i < n; i++)
    for (int p = P->wptr[i] + 1; p < P->wptr[i + 1]; p++) {
      int t = next[P->wcol[p]]++;
      P->lcol[t] = i;
      P->lsrc[t] = p;
    }
  tide_free(next, (size_t)(n + 1) * sizeof(int));
  int st = levels_build(&P->fwd, n, P->lptr, P->lptr + 1, P->lcol, 1);
  if (!st) st = levels_build(&P->bwd, n, P->ubeg, P->wptr + 1, P->wcol, 0);
  if (!st) st = levels_reorder(&P->fwd, P->lptr, P->lptr + 1, P->lcol, P->lsrc);
  if (!st) st = levels_reorder(&P->bwd, P->ubeg, P->wptr + 1, P->wcol, NULL);
  return st;
}

static int ilu_symbolic(tide_precond *P, const tide_csr *A) {
  int n = P->n;
  if (A->stype == TIDE_CSR_UPPER)
    return tide_fail(TIDE_EINVAL, "ilu0: needs general storage (tide_csr_expand the matrix)");
  int64_t m = tide_csr_nnz(A);
  P->wnz = m;
  P->wptr = tide_alloc((size_t)(n + 1) * sizeof(int));
  P->wcol = tide_alloc((size_t)m * sizeof(int));
  P->wval = tide_alloc((size_t)m * sizeof(double));
  P->wdiag = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  P->ubeg = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (!P->wptr || !P->wcol || !P->wval || !P->wdiag || !P->ubeg)
    return tide_fail(TIDE_ENOMEM, "ilu0: out of memory");
  memcpy(P->wptr, A->rowptr, (size_t)(n + 1) * sizeof(int));
  memcpy(P->wcol, A->col, (size_t)m * sizeof(int));
  for (int i = 0; i < n; i++) {
    int64_t dp = diag_pos(A, i);
    if (dp < 0)
      return tide_fail(TIDE_EINVAL, "ilu0: diagonal entry %d is missing from the pattern", i);
    P->wdiag[i] = (int)dp;
    P->ubeg[i] = (int)dp + 1;
  }
  int st = levels_build(&P->fwd, n, P->wptr, P->wdiag, P->wcol, 1);
  if (!st) st = levels_build(&P->bwd, n, P->ubeg, P->wptr + 1, P->wcol, 0);
  if (!st) st = levels_reorder(&P->fwd, P->wptr, P->wdiag, P->wcol, NULL);
  if (!st) st = levels_reorder(&P->bwd, P->ubeg, P->wptr + 1, P->wcol, NULL);
  return st;
}

int tide_precond_new_ex(const tide_csr *A, int kind, int abs_jacobi, tide_precond **out) {
  *out = NULL;
  if (kind < TIDE_PRECOND_NONE || kind > TIDE_PRECOND_ILU0)
    return tide_fail(TIDE_EINVAL, "tide_precond_new: unknown preconditioner %d", kind);
  if (A->nrows != A->ncols)
    return tide_fail(TIDE_EINVAL, "%s: matrix is %d x %d, not square", tide_precond_name(kind),
                     A->nrows, A->ncols);
  int st = tide_csr_check(A, tide_precond_name(kind));
  if (st) return st;
  tide_precond *P = tide_calloc(sizeof *P);
  if (!P) return TIDE_ENOMEM;
  P->kind = kind;
  P->n = A->nrows;
  P->abs_jacobi = abs_jacobi;
  P->tuner = tide_calloc(sizeof *P->tuner);
  if (!P->tuner)
    st = TIDE_ENOMEM;
  else
    P->tuner->forced = -1;
  if (!st && kind != TIDE_PRECOND_NONE) {
    P->dinv = tide_alloc((size_t)(P->n > 0 ? P->n : 1) * sizeof(double));
    if (!P->dinv) st = TIDE_ENOMEM;
  }
  if (!st && (kind == TIDE_PRECOND_IC0 || kind == TIDE_PRECOND_MIC0)) st = ic_symbolic(P, A);
  if (!st && kind == TIDE_PRECOND_ILU0) st = ilu_symbolic(P, A);
  if (!st) st = numeric(P, A);
  if (st) {
    tide_precond_free(P);
    return st;
  }
  *out = P;
  return TIDE_OK;
}

int tide_precond_new(const tide_csr *A, int kind, tide_precond **out) {
  return tide_precond_new_ex(A, kind, 0, out);
}

int tide_precond_refactor(tide_precond *P, const tide_csr *A) {
  const char *nm = tide_precond_name(P->kind);
  if (A->nrows != P->n || A->ncols != P->n)
    return tide_fail(TIDE_EINVAL, "%s refactor: matrix is %d x %d, the preconditioner %d x %d", nm,
                     A->nrows, A->ncols, P->n, P->n);
  int st = tide_csr_check(A, nm);
  if (st) return st;
  /* same pattern? */
  int bad = 0;
  if (P->kind == TIDE_PRECOND_IC0 || P->kind == TIDE_PRECOND_MIC0) {
    /* row i of w must be exactly the entries of row i of A from the
     * diagonal on: same first (diagonal) and last positions, same columns */
    int64_t nnz = tide_csr_nnz(A);
#pragma omp parallel for schedule(static) reduction(| : bad) if (TIDE_LA_PAR(P->wnz))
    for (int i = 0; i < P->n; i++) {
      int q0 = P->wptr[i], q1 = P->wptr[i + 1];
      if (P->amap[q1 - 1] != A->rowptr[i + 1] - 1 || P->amap[q0] < A->rowptr[i]) {
        bad = 1;
        continue;
      }
      for (int q = q0; q < q1; q++)
        bad |= P->amap[q] >= nnz || A->col[P->amap[q]] != P->wcol[q];
    }
  } else if (P->kind == TIDE_PRECOND_ILU0) {
    bad = tide_csr_nnz(A) != P->wnz ||
          memcmp(A->rowptr, P->wptr, (size_t)(P->n + 1) * sizeof(int)) != 0 ||
          memcmp(A->col, P->wcol, (size_t)P->wnz * sizeof(int)) != 0;
  }
  if (bad)
    return tide_fail(TIDE_EINVAL,
                     "%s refactor: the matrix pattern differs from the one analysed (make a new "
                     "preconditioner)",
                     nm);
  return numeric(P, A);
}

int tide_precond_apply(const tide_precond *P, const double *r, double *z) {
  int n = P->n;
  switch (P->kind) {
  case TIDE_PRECOND_NONE:
    memcpy(z, r, (size_t)n * sizeof(double));
    return TIDE_OK;
  case TIDE_PRECOND_JACOBI:
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
    for (int i = 0; i < n; i++)
      z[i] = r[i] * P->dinv[i];
    return TIDE_OK;
  case TIDE_PRECOND_IC0:
  case TIDE_PRECOND_MIC0:
  case TIDE_PRECOND_ILU0: {
    int eligible = levels_parallel(&P->fwd) || levels_parallel(&P->bwd);
    int par = tuner_pick(P->tuner, eligible);
    double t0 = eligible ? tide_wtime() : 0;
    if (P->kind == TIDE_PRECOND_ILU0) {
      /* L y = r (unit diagonal), then U z = y */
      trisolve(&P->fwd, par && levels_parallel(&P->fwd), P->wptr, P->wdiag, P->wcol, P->wval, NULL,
               r, z);
      trisolve(&P->bwd, par && levels_parallel(&P->bwd), P->ubeg, P->wptr + 1, P->wcol, P->wval,
               P->dinv, z, z);
    } else {
      /* U^T y = r (forward, rows of L = U^T), then U z = y in place */
      trisolve(&P->fwd, par && levels_parallel(&P->fwd), P->lptr, P->lptr + 1, P->lcol, P->lval,
               P->dinv, r, z);
      trisolve(&P->bwd, par && levels_parallel(&P->bwd), P->ubeg, P->wptr + 1, P->wcol, P->wval,
               P->dinv, z, z);
    }
    tuner_record(P->tuner, eligible, par, eligible ? tide_wtime() - t0 : 0);
    return TIDE_OK;
  }
  default:
    return tide_fail(TIDE_EINVAL, "tide_precond_apply: unknown preconditioner");
  }
}
