/* direct.c -- sparse direct solvers through SuiteSparse: CHOLMOD supernodal
 * Cholesky and simplicial LDL^T, UMFPACK LU; symbolic analysis reused
 * across numeric refactorizations.
 *
 * A tide_csr is handed over without copies: its CSR arrays are the CSC
 * arrays of A^T.  For the symmetric kinds that is A itself, whose upper
 * triangle (in CSR) is the lower triangle in CSC (CHOLMOD stype = -1).  For
 * LU, UMFPACK factors A^T and solves with its transpose (UMFPACK_At).
 *
 * Each factor owns its cholmod_common, so factors are independent; the
 * memory CHOLMOD reports in use (memory_inuse) and UMFPACK's object sizes
 * are counted in tide_mem_bytes(). */
#include "linalg_impl.h"

#include <cholmod.h>
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>
#include <umfpack.h>

/* Factorizations below this many flops run single-threaded (see
 * blas_threads_begin). */
#define SMALL_FACTOR_FLOPS 2e9
/* Supernodal Cholesky runs its BLAS on several threads only when its
 * largest dense front holds this much work (a front of ~1450 columns).
 * CHOLMOD calls BLAS once per supernode and update; the OpenMP OpenBLAS
 * forks a parallel region for every call, and a sparse factorization of a
 * mesh is thousands of calls on fronts of tens to hundreds of columns: with
 * 2 threads, bench/fem's 14553-unknown factorization took 0.83 s instead of
 * 0.32 s (passive wait policy) and 5.0 s instead of 0.14 s (spinning) on
 * shared cores.  Only the top fronts of big 3D meshes gain from threads. */
#define LARGE_FRONT_FLOPS 3e9
/* LDL^T goes supernodal (ldlt_super.c) only when CHOLMOD's analysis chose it and the
 * factorization has this much work: below it the simplicial method takes under ~25 ms and
 * the small systems (e.g. the solids' Newton steps under 1000 unknowns) keep the factor
 * they always had. */
#define LDLT_SUPER_FLOPS 5e7
/* Triangular solves with factors smaller than this run single-threaded. */
#define SMALL_SOLVE_NNZ 4000000

struct tide_factor {
  int kind, n;
  tide_csr *A; /* copy of the matrix factored (pattern check, LU refinement) */
  /* CHOLMOD */
  cholmod_common c;
  int started;
  cholmod_factor *L;
  cholmod_dense *X, *Y, *E; /* cholmod_solve2 workspaces */
  tide_ldlt_super *S;       /* LDL^T whose analysis chose supernodal: its numeric half */
  int s_ok;                 /* S holds a valid factorization */
  /* UMFPACK */
  void *sym, *num;
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  int *wi;
  double *w, *xb;
  int64_t accounted; /* bytes counted in tide_mem_account for SuiteSparse */
  tide_factor_stats stats;
};

const char *tide_factor_name(int kind) {
  switch (kind) {
  case TIDE_FACTOR_CHOLESKY:
    return "cholesky";
  case TIDE_FACTOR_LDLT:
    return "ldlt";
  case TIDE_FACTOR_LU:
    return "lu";
  default:
    return "unknown";
  }
}

/* The OpenMP build of OpenBLAS threads every BLAS call with
 * omp_get_max_threads() threads; a small factorization is thousands of tiny
 * calls where forking costs more than it gains (and much more on shared
 * cores), so it runs on one thread.  Returns the thread count to restore. */
static int blas_threads_begin(double work, double small) {
#ifdef _OPENMP
  int nth = omp_get_max_threads();
  if (work < small) omp_set_num_threads(1);
  return nth;
#else
  (void)work, (void)small;
  return 1;
#endif
}

static void blas_threads_end(int nth) {
#ifdef _OPENMP
  omp_set_num_threads(nth);
#else
  (void)nth;
#endif
}

/* Bring the count of SuiteSparse memory up to date. */
static void account(tide_factor *F) {
  int64_t now = 0;
  if (F->started) now += (int64_t)F->c.memory_inuse;
  if (F->sym) now += (int64_t)(F->info[UMFPACK_SYMBOLIC_SIZE] * F->info[UMFPACK_SIZE_OF_UNIT]);
  if (F->num) now += (int64_t)(F->info[UMFPACK_NUMERIC_SIZE] * F->info[UMFPACK_SIZE_OF_UNIT]);
  if (now < 0) now = 0;
  tide_mem_account(now - F->accounted);
  F->accounted = now;
  F->stats.bytes = now + (int64_t)tide_csr_bytes(F->A) + (int64_t)sizeof *F + tide_ldlt_super_bytes(F->S);
  if (F->wi) F->stats.bytes += (int64_t)F->n * (int64_t)(sizeof(int) + 6 * sizeof(double));
}

/* The CSR arrays of A as a CHOLMOD matrix (no copy). */
static cholmod_sparse wrap(const tide_csr *A) {
  cholmod_sparse s;
  memset(&s, 0, sizeof s);
  s.nrow = (size_t)A->ncols;
  s.ncol = (size_t)A->nrows;
  s.nzmax = (size_t)tide_csr_nnz(A);
  s.p = A->rowptr;
  s.i = A->col;
  s.x = A->val;
  s.stype = -1;
  s.itype = CHOLMOD_INT;
  s.xtype = CHOLMOD_REAL;
  s.dtype = CHOLMOD_DOUBLE;
  s.sorted = 1;
  s.packed = 1;
  return s;
}

static int check_input(const tide_csr *A, int kind, const char *fname) {
  if (A->nrows != A->ncols)
    return tide_fail(TIDE_EINVAL, "%s: matrix is %d x %d, not square", fname, A->nrows, A->ncols);
  int st = tide_csr_check(A, fname);
  if (st) return st;
  if (kind != TIDE_FACTOR_LU && A->stype == TIDE_CSR_GENERAL) {
    double asym = 0, amax = 0;
    if ((st = tide_csr_asymmetry(A, &asym))) return st;
    for (int64_t p = 0; p < tide_csr_nnz(A); p++)
      if (fabs(A->val[p]) > amax) amax = fabs(A->val[p]);
    if (asym > 1e-12 * amax)
      return tide_fail(TIDE_EINVAL,
                       "%s: matrix is not symmetric (max |A - A^T| = %g, max |A| = %g); use lu "
                       "for nonsymmetric systems",
                       fname, asym, amax);
  }
  return TIDE_OK;
}

static int ldlt_zero_pivot(int step, int n) {
  return tide_fail(TIDE_ESINGULAR,
                   "ldlt: zero pivot at step %d of %d in the fill-reducing order (matrix singular "
                   "or not quasi-definite); use lu",
                   step, n);
}

/* Numeric factorization with the kept analysis. */
static int numeric(tide_factor *F) {
  const char *fname = tide_factor_name(F->kind);
  double t0 = tide_wtime();
  if (F->kind == TIDE_FACTOR_LU) {
    if (F->num) umfpack_di_free_numeric(&F->num);
    int nth = blas_threads_begin(F->info[UMFPACK_FLOPS_ESTIMATE], SMALL_FACTOR_FLOPS);
#ifdef _OPENMP
    F->stats.threads = omp_get_max_threads();
#else
    F->stats.threads = 1;
#endif
    int s = umfpack_di_numeric(F->A->rowptr, F->A->col, F->A->val, F->sym, &F->num, F->control,
                               F->info);
    blas_threads_end(nth);
    F->stats.factor_seconds = tide_wtime() - t0;
    account(F);
    if (s == UMFPACK_WARNING_singular_matrix)
      return tide_fail(TIDE_ESINGULAR, "lu: the matrix is singular (a zero pivot in U)");
    if (s == UMFPACK_ERROR_out_of_memory)
      return tide_fail(TIDE_ENOMEM, "lu: out of memory in the numeric factorization");
    if (s != UMFPACK_OK) return tide_fail(TIDE_EINVAL, "lu: UMFPACK numeric failed (status %d)", s);
    F->stats.nnz_factor = (int64_t)(F->info[UMFPACK_LNZ] + F->info[UMFPACK_UNZ]);
    F->stats.flops = F->info[UMFPACK_FLOPS];
    double used = F->info[UMFPACK_ORDERING_USED];
    F->stats.ordering = used == UMFPACK_ORDERING_AMD     ? TIDE_ORDER_AMD
                        : used == UMFPACK_ORDERING_METIS ? TIDE_ORDER_METIS
                                                         : TIDE_ORDER_AUTO;
  } else {
    cholmod_sparse As = wrap(F->A);
    double work = F->stats.front_flops >= LARGE_FRONT_FLOPS ? F->stats.flops : 0;
    int nth = blas_threads_begin(work, SMALL_FACTOR_FLOPS);
#ifdef _OPENMP
    F->stats.threads = omp_get_max_threads();
#else
    F->stats.threads = 1;
#endif
    int failed = -1, ss = TIDE_OK;
    if (F->S) {
      F->s_ok = 0;
      ss = tide_ldlt_super_factor(F->S, F->A, &failed);
      F->s_ok = !ss;
    } else
      cholmod_factorize(&As, F->L, &F->c);
    blas_threads_end(nth);
    if (F->S) {
      F->stats.factor_seconds = tide_wtime() - t0;
      account(F);
      if (ss && ss != TIDE_ESINGULAR) return ss;
      if (ss) return ldlt_zero_pivot(failed + 1, F->n);
      F->stats.refactors++;
      return TIDE_OK;
    }
    F->stats.factor_seconds = tide_wtime() - t0;
    account(F);
    if (F->c.status == CHOLMOD_OUT_OF_MEMORY)
      return tide_fail(TIDE_ENOMEM, "%s: out of memory in the numeric factorization", fname);
    if (F->c.status == CHOLMOD_NOT_POSDEF || (size_t)F->L->minor < F->L->n) {
      if (F->kind == TIDE_FACTOR_CHOLESKY)
        return tide_fail(TIDE_ENOTSPD,
                         "cholesky: the matrix is not positive definite (non-positive pivot at "
                         "step %d of %d in the fill-reducing order); use ldlt for quasi-definite "
                         "or lu for general matrices",
                         (int)F->L->minor + 1, F->n);
      return ldlt_zero_pivot((int)F->L->minor + 1, F->n);
    }
    if (F->c.status < 0)
      return tide_fail(TIDE_EINVAL, "%s: CHOLMOD factorize failed (status %d)", fname, F->c.status);
  }
  F->stats.refactors++;
  return TIDE_OK;
}

int tide_factor_new(const tide_csr *A, int kind, tide_factor **out) {
  return tide_factor_new_ordered(A, kind, TIDE_ORDER_AUTO, out);
}

int tide_factor_new_ordered(const tide_csr *A, int kind, int ordering, tide_factor **out) {
  *out = NULL;
  if (kind < TIDE_FACTOR_CHOLESKY || kind > TIDE_FACTOR_LU)
    return tide_fail(TIDE_EINVAL, "tide_factor_new: unknown factorization %d", kind);
  if (ordering < TIDE_ORDER_AUTO || ordering > TIDE_ORDER_METIS)
    return tide_fail(TIDE_EINVAL, "tide_factor_new: unknown ordering %d", ordering);
  const char *fname = tide_factor_name(kind);
  int st = check_input(A, kind, fname);
  if (st) return st;
  tide_factor *F = tide_calloc(sizeof *F);
  if (!F) return TIDE_ENOMEM;
  F->kind = kind;
  F->n = A->nrows;
  st = kind == TIDE_FACTOR_LU && A->stype == TIDE_CSR_UPPER ? tide_csr_expand(A, &F->A)
                                                            : tide_csr_clone(A, &F->A);
  if (st) {
    tide_free(F, sizeof *F);
    return st;
  }
  F->stats.kind = kind;
  F->stats.n = F->n;
  double t0 = tide_wtime();
  if (kind == TIDE_FACTOR_LU) {
    umfpack_di_defaults(F->control);
    F->control[UMFPACK_PRL] = 0;
    if (ordering != TIDE_ORDER_AUTO)
      F->control[UMFPACK_ORDERING] =
          ordering == TIDE_ORDER_AMD ? UMFPACK_ORDERING_AMD : UMFPACK_ORDERING_METIS;
    F->stats.nnz_A = tide_csr_nnz(F->A);
    F->wi = tide_alloc((size_t)(F->n > 0 ? F->n : 1) * sizeof(int));
    F->w = tide_alloc((size_t)(F->n > 0 ? F->n : 1) * 5 * sizeof(double));
    F->xb = tide_alloc((size_t)(F->n > 0 ? F->n : 1) * sizeof(double));
    if (!F->wi || !F->w || !F->xb) {
      tide_factor_free(F);
      return tide_fail(TIDE_ENOMEM, "lu: out of memory");
    }
    int s = umfpack_di_symbolic(F->n, F->n, F->A->rowptr, F->A->col, F->A->val, &F->sym, F->control,
                                F->info);
    if (s != UMFPACK_OK) {
      tide_factor_free(F);
      if (s == UMFPACK_ERROR_out_of_memory) return tide_fail(TIDE_ENOMEM, "lu: out of memory");
      return tide_fail(TIDE_EINVAL, "lu: UMFPACK symbolic analysis failed (status %d)", s);
    }
  } else {
    cholmod_start(&F->c);
    F->started = 1;
    F->c.print = 0;
    F->c.error_handler = NULL;
    F->c.itype = CHOLMOD_INT;
    if (kind == TIDE_FACTOR_CHOLESKY) {
      F->c.supernodal = CHOLMOD_SUPERNODAL;
      F->c.final_ll = 1;
    } else {
      /* supernodal when CHOLMOD's analysis finds the fronts dense enough (flops / nnz(L) >= 40,
       * its supernodal_switch), its numeric half then ldlt_super.c; simplicial otherwise */
      F->c.supernodal = CHOLMOD_AUTO;
      F->c.final_ll = 0;
    }
    cholmod_sparse As = wrap(F->A);
    F->stats.nnz_A = F->A->stype == TIDE_CSR_UPPER ? tide_csr_nnz(F->A) : 0;
    if (!F->stats.nnz_A)
      for (int i = 0; i < F->n; i++)
        for (int p = F->A->rowptr[i]; p < F->A->rowptr[i + 1]; p++)
          F->stats.nnz_A += F->A->col[p] >= i;
    if (ordering != TIDE_ORDER_AUTO) {
      F->c.nmethods = 1;
      F->c.method[0].ordering = ordering == TIDE_ORDER_AMD ? CHOLMOD_AMD : CHOLMOD_METIS;
    }
    F->L = cholmod_analyze(&As, &F->c);
    if (!F->L) {
      int oom = F->c.status == CHOLMOD_OUT_OF_MEMORY;
      int cs = F->c.status;
      tide_factor_free(F);
      if (oom) return tide_fail(TIDE_ENOMEM, "%s: out of memory in the analysis", fname);
      return tide_fail(TIDE_EINVAL, "%s: CHOLMOD analysis failed (status %d)", fname, cs);
    }
    if (kind == TIDE_FACTOR_LDLT && F->L->is_super && F->c.fl < LDLT_SUPER_FLOPS &&
        !cholmod_change_factor(CHOLMOD_PATTERN, 0, 0, 1, 1, F->L, &F->c)) {
      int cs = F->c.status;
      tide_factor_free(F);
      return tide_fail(cs == CHOLMOD_OUT_OF_MEMORY ? TIDE_ENOMEM : TIDE_EINVAL,
                       "%s: CHOLMOD could not make the analysis simplicial (status %d)", fname, cs);
    }
    F->stats.nnz_factor = (int64_t)F->c.lnz;
    F->stats.flops = F->c.fl;
    {
      int used = F->c.method[F->c.selected].ordering;
      F->stats.ordering = used == CHOLMOD_AMD ? TIDE_ORDER_AMD
                          : used == CHOLMOD_METIS || used == CHOLMOD_NESDIS ? TIDE_ORDER_METIS
                                                                            : TIDE_ORDER_AUTO;
    }
    F->stats.supernodal = F->L->is_super;
    /* the largest dense front: ncols^2 nrows multiply-adds per supernode */
    if (F->L->is_super) {
      const int *sup = F->L->super, *pi = F->L->pi;
      for (size_t k = 0; k < F->L->nsuper; k++) {
        double nc = sup[k + 1] - sup[k], nr = pi[k + 1] - pi[k];
        F->stats.front_flops = fmax(F->stats.front_flops, nc * nc * nr);
      }
    }
  }
  if (kind == TIDE_FACTOR_LDLT && F->L->is_super &&
      (st = tide_ldlt_super_new(F->A, (int)F->L->nsuper, F->L->super, F->L->pi, F->L->px,
                                F->L->s, F->L->Perm, F->L->maxcsize, &F->S))) {
    tide_factor_free(F);
    return st;
  }
  F->stats.blocks = tide_ldlt_super_blocks(F->S);
  F->stats.subtrees = tide_ldlt_super_subtrees(F->S);
  F->stats.analyze_seconds = tide_wtime() - t0;
  account(F);
  st = numeric(F);
  if (st) {
    tide_factor_free(F);
    return st;
  }
  *out = F;
  return TIDE_OK;
}

int tide_factor_refactor(tide_factor *F, const tide_csr *A) {
  const char *fname = tide_factor_name(F->kind);
  int st = check_input(A, F->kind, fname);
  if (st) return st;
  /* same pattern as analysed (the stored copy, expanded for LU) */
  const tide_csr *S = F->A;
  tide_csr *E = NULL;
  if (F->kind == TIDE_FACTOR_LU && A->stype == TIDE_CSR_UPPER) {
    if ((st = tide_csr_expand(A, &E))) return st;
    A = E;
  }
  int64_t nnz = tide_csr_nnz(A);
  if (A->nrows != F->n || A->stype != S->stype || nnz != tide_csr_nnz(S) ||
      memcmp(A->rowptr, S->rowptr, (size_t)(F->n + 1) * sizeof(int)) != 0 ||
      memcmp(A->col, S->col, (size_t)nnz * sizeof(int)) != 0) {
    tide_csr_free(E);
    return tide_fail(TIDE_EINVAL,
                     "%s refactor: the matrix pattern differs from the one analysed (make a new "
                     "factor)",
                     fname);
  }
  memcpy(F->A->val, A->val, (size_t)nnz * sizeof(double));
  tide_csr_free(E);
  return numeric(F);
}

static int factor_solve(tide_factor *F, const double *b, double *x, int transpose);

int tide_factor_solve(tide_factor *F, const double *b, double *x) {
  return factor_solve(F, b, x, 0);
}

int tide_factor_solve_transpose(tide_factor *F, const double *b, double *x) {
  return factor_solve(F, b, x, 1);
}

/* x = A^{-1} b, or A^{-T} b with transpose (the same for the symmetric
 * kinds; UMFPACK factored A^T, so A^{-T} b is its UMFPACK_A system). */
static int factor_solve(tide_factor *F, const double *b, double *x, int transpose) {
  const char *fname = tide_factor_name(F->kind);
  int n = F->n;
  for (int i = 0; i < n; i++)
    if (!isfinite(b[i])) return tide_fail(TIDE_ENONFINITE, "%s solve: b[%d] is %g", fname, i, b[i]);
  if (n == 0) return TIDE_OK;
  if (F->kind == TIDE_FACTOR_LU) {
    if (!F->num) return tide_fail(TIDE_EINVAL, "lu solve: no valid factorization");
    memcpy(F->xb, b, (size_t)n * sizeof(double));
    int s = umfpack_di_wsolve(transpose ? UMFPACK_A : UMFPACK_At, F->A->rowptr, F->A->col,
                              F->A->val, x, F->xb, F->num, F->control, F->info, F->wi, F->w);
    if (s == UMFPACK_WARNING_singular_matrix)
      return tide_fail(TIDE_ESINGULAR, "lu solve: the matrix is singular");
    if (s != UMFPACK_OK) return tide_fail(TIDE_EINVAL, "lu solve: UMFPACK failed (status %d)", s);
    return TIDE_OK;
  }
  if (F->S) {
    if (!F->s_ok) return tide_fail(TIDE_EINVAL, "%s solve: no valid factorization (it failed)", fname);
    /* BLAS on one thread below SMALL_SOLVE_NNZ; the subtrees of one tree (or a forest's
     * blocks) still side by side on the caller's threads */
    int nth = blas_threads_begin((double)F->stats.nnz_factor, SMALL_SOLVE_NNZ);
    tide_ldlt_super_solve(F->S, b, x, nth);
    blas_threads_end(nth);
    return TIDE_OK;
  }
  if ((size_t)F->L->minor < F->L->n)
    return tide_fail(TIDE_EINVAL, "%s solve: no valid factorization (it failed)", fname);
  cholmod_dense B;
  memset(&B, 0, sizeof B);
  B.nrow = (size_t)n;
  B.ncol = 1;
  B.nzmax = (size_t)n;
  B.d = (size_t)n;
  B.x = (void *)b;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  int nth = blas_threads_begin((double)F->stats.nnz_factor, SMALL_SOLVE_NNZ);
  int ok = cholmod_solve2(CHOLMOD_A, F->L, &B, NULL, &F->X, NULL, &F->Y, &F->E, &F->c);
  blas_threads_end(nth);
  account(F);
  if (!ok || !F->X)
    return tide_fail(F->c.status == CHOLMOD_OUT_OF_MEMORY ? TIDE_ENOMEM : TIDE_EINVAL,
                     "%s solve: CHOLMOD failed (status %d)", fname, F->c.status);
  memcpy(x, F->X->x, (size_t)n * sizeof(double));
  return TIDE_OK;
}

void tide_factor_info(const tide_factor *F, tide_factor_stats *out) { *out = F->stats; }

void tide_factor_free(tide_factor *F) {
  if (!F) return;
  tide_ldlt_super_free(F->S);
  if (F->started) {
    cholmod_free_factor(&F->L, &F->c);
    cholmod_free_dense(&F->X, &F->c);
    cholmod_free_dense(&F->Y, &F->c);
    cholmod_free_dense(&F->E, &F->c);
    cholmod_finish(&F->c);
  }
  if (F->num) umfpack_di_free_numeric(&F->num);
  if (F->sym) umfpack_di_free_symbolic(&F->sym);
  tide_mem_account(-F->accounted);
  size_t nb = (size_t)(F->n > 0 ? F->n : 1);
  tide_free(F->wi, F->wi ? nb * sizeof(int) : 0);
  tide_free(F->w, F->w ? nb * 5 * sizeof(double) : 0);
  tide_free(F->xb, F->xb ? nb * sizeof(double) : 0);
  tide_csr_free(F->A);
  tide_free(F, sizeof *F);
}

int tide_solve_direct(const tide_csr *A, int kind, const double *b, double *x) {
  tide_factor *F = NULL;
  int st = tide_factor_new(A, kind, &F);
  if (st) return st;
  st = tide_factor_solve(F, b, x);
  tide_factor_free(F);
  return st;
}
