/* krylov.c -- PCG, MINRES and BiCGSTAB on abstract operators, and the
 * CSR-bound solver object (preconditioner + work vectors reused). */
#include "linalg.h"
#include "linalg_impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

const char *tide_krylov_name(int method) {
  switch (method) {
  case TIDE_KRYLOV_PCG:
    return "pcg";
  case TIDE_KRYLOV_MINRES:
    return "minres";
  case TIDE_KRYLOV_BICGSTAB:
    return "bicgstab";
  default:
    return "unknown";
  }
}

tide_solve_opts tide_solve_opts_default(void) {
  tide_solve_opts o = {1e-8, 0, 0, 0};
  return o;
}

/* Restarts from the true residual when the recurrence claims convergence but
 * b - A x does not meet the tolerance (rounding drift). */
#define MAX_RESTARTS 3

/* ------------------------------------------------------ vector kernels */

/* Deterministic blocked reductions as in tide_dot (same blocking). */
#define NB(n) (((n) + TIDE_RBLOCK - 1) / TIDE_RBLOCK)

/* x += a p; r -= a q; returns r.r (fused, one pass). */
static double axpy2_norm(int64_t n, double a, const double *p, const double *q, double *x,
                         double *r) {
  int64_t nb = NB(n);
  double s = 0;
  if (nb <= 1) {
    for (int64_t i = 0; i < n; i++) {
      x[i] += a * p[i];
      r[i] -= a * q[i];
      s += r[i] * r[i];
    }
    return s;
  }
  double stackpart[256];
  double *part = nb <= 256 ? stackpart : tide_alloc((size_t)nb * sizeof(double));
  if (!part) {
    for (int64_t i = 0; i < n; i++) {
      x[i] += a * p[i];
      r[i] -= a * q[i];
    }
    return tide_norm2sq(n, r);
  }
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int64_t b = 0; b < nb; b++) {
    int64_t lo = b * TIDE_RBLOCK, hi = lo + TIDE_RBLOCK < n ? lo + TIDE_RBLOCK : n;
    double t = 0;
    for (int64_t i = lo; i < hi; i++) {
      x[i] += a * p[i];
      r[i] -= a * q[i];
      t += r[i] * r[i];
    }
    part[b] = t;
  }
  for (int64_t b = 0; b < nb; b++)
    s += part[b];
  if (part != stackpart) tide_free(part, (size_t)nb * sizeof(double));
  return s;
}

static void vcopy(int64_t n, const double *x, double *y) {
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int64_t i = 0; i < n; i++)
    y[i] = x[i];
}

static void vzero(int64_t n, double *y) {
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int64_t i = 0; i < n; i++)
    y[i] = 0;
}

/* y = x + b y */
static void xpby(int64_t n, const double *x, double b, double *y) {
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int64_t i = 0; i < n; i++)
    y[i] = x[i] + b * y[i];
}

/* y += a x */
static void axpy(int64_t n, double a, const double *x, double *y) {
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int64_t i = 0; i < n; i++)
    y[i] += a * x[i];
}

/* remove the mean (constant null space) */
static void project_mean(int64_t n, double *x) {
  if (n == 0) return;
  double m = tide_sum(n, x) / (double)n;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int64_t i = 0; i < n; i++)
    x[i] -= m;
}

/* z = M r (or z = r without a preconditioner).  With a null space the
 * constant is removed from z: after M only, or always when `always`. */
static int precondition(int64_t n, tide_linop_fn M, void *mctx, const double *r, double *z,
                        int nullspace, int always) {
  if (M) {
    int s = M(mctx, r, z);
    if (s) return s;
  } else {
    vcopy(n, r, z);
  }
  if (nullspace && (M || always)) project_mean(n, z);
  return TIDE_OK;
}

static int nonfinite_at(int64_t n, const double *x) {
  int64_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (TIDE_LA_PAR(n))
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(x[i])) bad = i < bad ? i : bad;
  return bad < n ? (int)bad : -1;
}

/* r = b - A x (projected if nullspace); returns ||r||. */
static int true_residual(int64_t n, tide_linop_fn A, void *actx, const double *b, const double *x,
                         int nullspace, double *r, double *norm) {
  int st = A(actx, x, r);
  if (st) return st;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int64_t i = 0; i < n; i++)
    r[i] = b[i] - r[i];
  if (nullspace) project_mean(n, r);
  *norm = sqrt(tide_norm2sq(n, r));
  return TIDE_OK;
}

/* Shared prologue: validate, x0, ||b|| (of the projected b).  Returns 1 in
 * *done when b = 0 (x = 0 is the answer). */
static int prologue(const char *name, int64_t n, const double *b, double *x,
                    const tide_solve_opts *o, double *tmp, double *bnorm, int *maxit,
                    tide_solve_stats *st, int *done) {
  *done = 0;
  memset(st, 0, sizeof *st);
  if (n < 0) return tide_fail(TIDE_EINVAL, "%s: negative size %lld", name, (long long)n);
  if (!(o->tol > 0) || !(o->tol < 1))
    return tide_fail(TIDE_EINVAL, "%s: tolerance %g outside (0, 1)", name, o->tol);
  if (o->maxit < 0) return tide_fail(TIDE_EINVAL, "%s: maxit %d < 0", name, o->maxit);
  int k = nonfinite_at(n, b);
  if (k >= 0) return tide_fail(TIDE_ENONFINITE, "%s: b[%d] is %g", name, k, b[k]);
  if (o->use_x0) {
    k = nonfinite_at(n, x);
    if (k >= 0) return tide_fail(TIDE_ENONFINITE, "%s: initial guess x[%d] is %g", name, k, x[k]);
  } else {
    vzero(n, x);
  }
  *maxit =
      o->maxit > 0 ? o->maxit : (n > 500 ? (int)(2 * n < 1000000000 ? 2 * n : 1000000000) : 1000);
  if (o->nullspace) {
    vcopy(n, b, tmp);
    project_mean(n, tmp);
    *bnorm = sqrt(tide_norm2sq(n, tmp));
  } else {
    *bnorm = sqrt(tide_norm2sq(n, b));
  }
  if (*bnorm == 0) {
    vzero(n, x);
    st->converged = 1;
    *done = 1;
  }
  return TIDE_OK;
}

static int finish(const char *name, int64_t n, double *x, const tide_solve_opts *o, double rel,
                  int it, double t0, tide_solve_stats *st) {
  if (o->nullspace) project_mean(n, x);
  st->iterations = it;
  st->residual = rel;
  st->converged = rel <= o->tol;
  st->seconds = tide_wtime() - t0;
  if (!st->converged)
    return tide_fail(TIDE_ENOCONV,
                     "%s did not converge: relative residual %.3g after %d iterations (tolerance "
                     "%.3g)",
                     name, rel, it, o->tol);
  return TIDE_OK;
}

/* ---------------------------------------------------------------- PCG */

int tide_pcg_op(int64_t n, tide_linop_fn A, void *actx, tide_linop_fn M, void *mctx,
                const double *b, double *x, double *work, const tide_solve_opts *o,
                tide_solve_stats *st) {
  const char *name = "pcg";
  double t0 = tide_wtime();
  double *r = work, *z = work + n, *p = work + 2 * n, *q = work + 3 * n;
  double bnorm = 0;
  int maxit = 0, done = 0;
  int s = prologue(name, n, b, x, o, q, &bnorm, &maxit, st, &done);
  if (s || done) {
    st->seconds = tide_wtime() - t0;
    return s;
  }
  double rnorm = 0;
  int it = 0;
  for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
    if ((s = true_residual(n, A, actx, b, x, o->nullspace, r, &rnorm))) return s;
    if (rnorm <= o->tol * bnorm || it >= maxit) break;
    if ((s = precondition(n, M, mctx, r, z, o->nullspace, 0))) return s;
    vcopy(n, z, p);
    double rz = tide_dot(n, r, z);
    while (it < maxit) {
      if (tide_interrupted()) {
        st->iterations = it;
        st->residual = rnorm / bnorm;
        st->seconds = tide_wtime() - t0;
        return tide_fail(TIDE_EINTR, "%s interrupted after %d iterations", name, it);
      }
      if ((s = A(actx, p, q))) return s;
      double pq = tide_dot(n, p, q);
      if (!(pq > 0)) {
        st->iterations = it;
        st->residual = rnorm / bnorm;
        st->seconds = tide_wtime() - t0;
        if (!isfinite(pq))
          return tide_fail(TIDE_ENONFINITE, "%s: non-finite p'Ap at iteration %d", name, it);
        return tide_fail(TIDE_ENOTSPD,
                         "%s: p'Ap = %g <= 0 at iteration %d: the matrix (or preconditioner) is "
                         "not symmetric positive definite",
                         name, pq, it);
      }
      double alpha = rz / pq;
      rnorm = sqrt(axpy2_norm(n, alpha, p, q, x, r));
      it++;
      if (!isfinite(rnorm)) {
        st->iterations = it;
        st->seconds = tide_wtime() - t0;
        return tide_fail(TIDE_ENONFINITE, "%s: non-finite residual at iteration %d", name, it);
      }
      if (rnorm <= o->tol * bnorm) break;
      if ((s = precondition(n, M, mctx, r, z, o->nullspace, 0))) return s;
      double rz1 = tide_dot(n, r, z);
      xpby(n, z, rz1 / rz, p);
      rz = rz1;
    }
  }
  return finish(name, n, x, o, rnorm / bnorm, it, t0, st);
}

/* ------------------------------------------------------------- MINRES */

int tide_minres_op(int64_t n, tide_linop_fn A, void *actx, tide_linop_fn M, void *mctx,
                   const double *b, double *x, double *work, const tide_solve_opts *o,
                   tide_solve_stats *st) {
  const char *name = "minres";
  double t0 = tide_wtime();
  double *r1 = work, *r2 = work + n, *y = work + 2 * n, *v = work + 3 * n, *w = work + 4 * n,
         *w1 = work + 5 * n, *w2 = work + 6 * n;
  double bnorm = 0;
  int maxit = 0, done = 0;
  int s = prologue(name, n, b, x, o, y, &bnorm, &maxit, st, &done);
  if (s || done) {
    st->seconds = tide_wtime() - t0;
    return s;
  }
  double rnorm = 0;
  int it = 0;
  for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
    if ((s = true_residual(n, A, actx, b, x, o->nullspace, r1, &rnorm))) return s;
    if (rnorm <= o->tol * bnorm || it >= maxit) break;
    if ((s = precondition(n, M, mctx, r1, y, o->nullspace, 0))) return s;
    double beta1 = tide_dot(n, r1, y);
    if (!(beta1 > 0))
      return tide_fail(TIDE_ENOTSPD,
                       "%s: r'M^-1 r = %g: the preconditioner is not positive "
                       "definite",
                       name, beta1);
    beta1 = sqrt(beta1);
    /* phibar estimates ||r||_{M^-1}; its ratio to the initial value
     * estimates the relative residual reduction. */
    double r0norm = rnorm;
    double oldb = 0, beta = beta1, dbar = 0, epsln = 0, phibar = beta1, cs = -1, sn = 0;
    vzero(n, w);
    vzero(n, w2);
    vcopy(n, r1, r2);
    while (it < maxit) {
      if (tide_interrupted()) {
        st->iterations = it;
        st->residual = rnorm / bnorm;
        st->seconds = tide_wtime() - t0;
        return tide_fail(TIDE_EINTR, "%s interrupted after %d iterations", name, it);
      }
      double sc = 1.0 / beta;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
      for (int64_t i = 0; i < n; i++)
        v[i] = sc * y[i];
      if ((s = A(actx, v, y))) return s;
      if (o->nullspace) project_mean(n, y);
      if (oldb != 0) axpy(n, -beta / oldb, r1, y);
      double alfa = tide_dot(n, v, y);
      axpy(n, -alfa / beta, r2, y);
      double *tmp = r1;
      r1 = r2;
      r2 = y;
      y = tmp;
      if ((s = precondition(n, M, mctx, r2, y, o->nullspace, 0))) return s;
      oldb = beta;
      double bb = tide_dot(n, r2, y);
      if (bb < 0)
        return tide_fail(TIDE_ENOTSPD, "%s: the preconditioner is not positive definite", name);
      beta = sqrt(bb);
      double oldeps = epsln;
      double delta = cs * dbar + sn * alfa;
      double gbar = sn * dbar - cs * alfa;
      epsln = sn * beta;
      dbar = -cs * beta;
      double gamma = hypot(gbar, beta);
      if (gamma < DBL_MIN) gamma = DBL_MIN;
      cs = gbar / gamma;
      sn = beta / gamma;
      double phi = cs * phibar;
      phibar *= sn;
      double den = 1.0 / gamma;
      tmp = w1;
      w1 = w2;
      w2 = w;
      w = tmp;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
      for (int64_t i = 0; i < n; i++) {
        w[i] = (v[i] - oldeps * w1[i] - delta * w2[i]) * den;
        x[i] += phi * w[i];
      }
      it++;
      rnorm = r0norm * phibar / beta1;
      if (!isfinite(rnorm)) {
        st->iterations = it;
        st->seconds = tide_wtime() - t0;
        return tide_fail(TIDE_ENONFINITE, "%s: non-finite residual at iteration %d", name, it);
      }
      if (rnorm <= o->tol * bnorm || beta == 0) break;
    }
  }
  return finish(name, n, x, o, rnorm / bnorm, it, t0, st);
}

/* ----------------------------------------------------------- BiCGSTAB */

int tide_bicgstab_op(int64_t n, tide_linop_fn A, void *actx, tide_linop_fn M, void *mctx,
                     const double *b, double *x, double *work, const tide_solve_opts *o,
                     tide_solve_stats *st) {
  const char *name = "bicgstab";
  double t0 = tide_wtime();
  double *r = work, *r0 = work + n, *p = work + 2 * n, *v = work + 3 * n, *ph = work + 4 * n,
         *sv = work + 5 * n, *sh = work + 6 * n, *t = work + 7 * n;
  double bnorm = 0;
  int maxit = 0, done = 0;
  int s = prologue(name, n, b, x, o, t, &bnorm, &maxit, st, &done);
  if (s || done) {
    st->seconds = tide_wtime() - t0;
    return s;
  }
  double rnorm = 0;
  int it = 0;
  /* breakdowns (rho or omega = 0) restart from the true residual too */
  for (int restart = 0; restart <= MAX_RESTARTS + 10; restart++) {
    if ((s = true_residual(n, A, actx, b, x, o->nullspace, r, &rnorm))) return s;
    if (rnorm <= o->tol * bnorm || it >= maxit) break;
    vcopy(n, r, r0);
    double rho = 1, alpha = 1, omega = 1;
    int first = 1, converged = 0, breakdown = 0;
    while (it < maxit) {
      if (tide_interrupted()) {
        st->iterations = it;
        st->residual = rnorm / bnorm;
        st->seconds = tide_wtime() - t0;
        return tide_fail(TIDE_EINTR, "%s interrupted after %d iterations", name, it);
      }
      double rho1 = tide_dot(n, r0, r);
      if (rho1 == 0 || !isfinite(rho1)) {
        breakdown = 1;
        break;
      }
      if (first) {
        vcopy(n, r, p);
        first = 0;
      } else {
        double beta = (rho1 / rho) * (alpha / omega);
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
        for (int64_t i = 0; i < n; i++)
          p[i] = r[i] + beta * (p[i] - omega * v[i]);
      }
      if ((s = precondition(n, M, mctx, p, ph, o->nullspace, 1))) return s;
      if ((s = A(actx, ph, v))) return s;
      double r0v = tide_dot(n, r0, v);
      if (r0v == 0 || !isfinite(r0v)) {
        breakdown = 1;
        break;
      }
      alpha = rho1 / r0v;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
      for (int64_t i = 0; i < n; i++)
        sv[i] = r[i] - alpha * v[i];
      double snorm = sqrt(tide_norm2sq(n, sv));
      it++;
      if (snorm <= o->tol * bnorm) {
        axpy(n, alpha, ph, x);
        rnorm = snorm;
        converged = 1;
        break;
      }
      if ((s = precondition(n, M, mctx, sv, sh, o->nullspace, 1))) return s;
      if ((s = A(actx, sh, t))) return s;
      double tt = tide_dot(n, t, t);
      omega = tt > 0 ? tide_dot(n, t, sv) / tt : 0;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
      for (int64_t i = 0; i < n; i++) {
        x[i] += alpha * ph[i] + omega * sh[i];
        r[i] = sv[i] - omega * t[i];
      }
      rnorm = sqrt(tide_norm2sq(n, r));
      if (!isfinite(rnorm)) {
        st->iterations = it;
        st->seconds = tide_wtime() - t0;
        return tide_fail(TIDE_ENONFINITE, "%s: non-finite residual at iteration %d", name, it);
      }
      if (rnorm <= o->tol * bnorm) {
        converged = 1;
        break;
      }
      if (omega == 0) {
        breakdown = 1;
        break;
      }
      rho = rho1;
    }
    (void)converged;
    (void)breakdown;
  }
  return finish(name, n, x, o, rnorm / bnorm, it, t0, st);
}

/* ------------------------------------------------- CSR solver object */

struct tide_krylov {
  int method, precond, n;
  tide_precond *P;
  double *work;
  size_t wbytes;
};

static int op_csr(void *ctx, const double *x, double *y) {
  return tide_csr_mul((const tide_csr *)ctx, x, y);
}

static int op_precond(void *ctx, const double *r, double *z) {
  return tide_precond_apply((const tide_precond *)ctx, r, z);
}

static int work_vectors(int method) {
  return method == TIDE_KRYLOV_PCG ? 4 : method == TIDE_KRYLOV_MINRES ? 7 : 8;
}

int tide_krylov_new(const tide_csr *A, int method, int precond, tide_krylov **out) {
  *out = NULL;
  if (method < TIDE_KRYLOV_PCG || method > TIDE_KRYLOV_BICGSTAB)
    return tide_fail(TIDE_EINVAL, "tide_krylov_new: unknown method %d", method);
  if (precond < TIDE_PRECOND_NONE || precond > TIDE_PRECOND_ILU0)
    return tide_fail(TIDE_EINVAL, "tide_krylov_new: unknown preconditioner %d", precond);
  const char *mn = tide_krylov_name(method), *pn = tide_precond_name(precond);
  if (method == TIDE_KRYLOV_PCG && precond == TIDE_PRECOND_ILU0)
    return tide_fail(TIDE_EINVAL, "pcg needs a symmetric preconditioner (none, jacobi, ic0, "
                                  "mic0), not ilu0; use bicgstab with ilu0");
  if (method == TIDE_KRYLOV_MINRES && precond != TIDE_PRECOND_NONE &&
      precond != TIDE_PRECOND_JACOBI)
    return tide_fail(TIDE_EINVAL,
                     "minres needs a positive definite preconditioner (none or jacobi), not %s",
                     pn);
  if (A->nrows != A->ncols)
    return tide_fail(TIDE_EINVAL, "%s: matrix is %d x %d, not square", mn, A->nrows, A->ncols);
  tide_krylov *S = tide_calloc(sizeof *S);
  if (!S) return TIDE_ENOMEM;
  S->method = method;
  S->precond = precond;
  S->n = A->nrows;
  int st = tide_precond_new_ex(A, precond, method == TIDE_KRYLOV_MINRES, &S->P);
  if (!st) {
    S->wbytes = (size_t)work_vectors(method) * (size_t)(S->n > 0 ? S->n : 1) * sizeof(double);
    S->work = tide_alloc(S->wbytes);
    if (!S->work) st = tide_fail(TIDE_ENOMEM, "%s: out of memory for work vectors", mn);
  }
  if (st) {
    tide_krylov_free(S);
    return st;
  }
  *out = S;
  return TIDE_OK;
}

int tide_krylov_refactor(tide_krylov *S, const tide_csr *A) {
  return tide_precond_refactor(S->P, A);
}

const tide_precond *tide_krylov_precond(const tide_krylov *S) { return S->P; }

int tide_krylov_solve(tide_krylov *S, const tide_csr *A, const double *b, double *x,
                      const tide_solve_opts *o, tide_solve_stats *st) {
  tide_solve_opts def = tide_solve_opts_default();
  if (!o) o = &def;
  memset(st, 0, sizeof *st);
  const char *mn = tide_krylov_name(S->method);
  if (A->nrows != S->n || A->ncols != S->n)
    return tide_fail(TIDE_EINVAL, "%s: matrix is %d x %d, the solver was made for %d x %d", mn,
                     A->nrows, A->ncols, S->n, S->n);
  int s = tide_csr_check(A, mn);
  if (s) return s;
  tide_linop_fn M = S->precond == TIDE_PRECOND_NONE ? NULL : op_precond;
  void *mctx = S->P;
  switch (S->method) {
  case TIDE_KRYLOV_PCG:
    return tide_pcg_op(S->n, op_csr, (void *)A, M, mctx, b, x, S->work, o, st);
  case TIDE_KRYLOV_MINRES:
    return tide_minres_op(S->n, op_csr, (void *)A, M, mctx, b, x, S->work, o, st);
  default:
    return tide_bicgstab_op(S->n, op_csr, (void *)A, M, mctx, b, x, S->work, o, st);
  }
}

void tide_krylov_free(tide_krylov *S) {
  if (!S) return;
  tide_precond_free(S->P);
  tide_free(S->work, S->work ? S->wbytes : 0);
  tide_free(S, sizeof *S);
}

int tide_solve_krylov(const tide_csr *A, int method, int precond, const double *b, double *x,
                      const tide_solve_opts *o, tide_solve_stats *st) {
  memset(st, 0, sizeof *st);
  tide_krylov *S = NULL;
  int s = tide_krylov_new(A, method, precond, &S);
  if (s) return s;
  s = tide_krylov_solve(S, A, b, x, o, st);
  tide_krylov_free(S);
  return s;
}
