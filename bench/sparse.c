/*
 * bench/sparse.c -- general sparse (CSR) solvers of tide.linalg against
 * bounds measured in the same run.
 *
 *   build/bench_sparse [--quick] [--big]
 *
 * 1. Memory bandwidth: STREAM-like triad a = b + s c and a read-only sum over
 *    3 x 128 MB (best of 8), GB/s; BLAS dgemm rate (n = 1500), GFlop/s.
 * 2. Matrices: 3D 7-point Poisson (Dirichlet box) at 32^3, 64^3, 128^3
 *    (128^3 skipped with --quick) and 3D 27-point (Q1 finite elements) at
 *    24^3, 48^3 (the sparsity of a solid FEM stiffness matrix).
 *    - SpMV: time against the triad-bandwidth time of its traffic
 *      (values + columns + row pointers + x + y);
 *    - PCG with none / Jacobi / IC(0) / MIC(0), BiCGSTAB-ILU(0), MINRES:
 *      set-up seconds, iterations to 1e-6 relative residual, seconds, seconds
 *      per iteration and its ratio to the bandwidth-bound time of the traffic
 *      the implementation moves per iteration;
 *    - the IC(0) application alone with 1 and 2 threads (level scheduling);
 *    - CHOLMOD Cholesky (32^3 7-point, 20^3 and 40^3 27-point; the 64^3
 *      7-point factorization only with --big): analysis and factorization
 *      seconds, nnz(L), GFlop/s against the dgemm rate, solve seconds;
 *      UMFPACK LU at 32^3.
 * The right-hand side is b = A u with u a fixed pseudo-random vector.
 */
#define _GNU_SOURCE
#include "linalg/linalg.h"
#include "version.h"

#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dgemm from the BLAS CHOLMOD loaded (looked up at run time: the benchmark
 * is not linked against BLAS itself) */
typedef void (*dgemm_fn)(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                         const double *alpha, const double *a, const int *lda, const double *b,
                         const int *ldb, const double *beta, double *c, const int *ldc);

static double g_triad, g_read, g_dgemm;

/* the machine's load average: numbers taken on a busy machine say so */
static void print_load(const char *when) {
  FILE *f = fopen("/proc/loadavg", "r");
  double l1 = 0;
  if (f && fscanf(f, "%lf", &l1) == 1) printf("load average %s: %.2f\n", when, l1);
  if (f) fclose(f);
}

static void bandwidth(void) {
  const int64_t n = (int64_t)1 << 24; /* 128 MB per array */
  double *a = tide_alloc((size_t)n * 8), *b = tide_alloc((size_t)n * 8),
         *c = tide_alloc((size_t)n * 8);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++)
    a[i] = 0, b[i] = 1, c[i] = 2;
  double best = 1e30, bestr = 1e30, sum = 0;
  for (int rep = 0; rep < 8; rep++) {
    double t = tide_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      a[i] = b[i] + 3.0 * c[i];
    t = tide_wtime() - t;
    best = t < best ? t : best;
    t = tide_wtime();
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < n; i++)
      s += a[i] + c[i];
    t = tide_wtime() - t;
    sum += s;
    bestr = t < bestr ? t : bestr;
  }
  g_triad = 24.0 * n / best / 1e9;
  g_read = 16.0 * n / bestr / 1e9;
  tide_free(a, (size_t)n * 8), tide_free(b, (size_t)n * 8), tide_free(c, (size_t)n * 8);
  /* dgemm */
  dgemm_fn dgemm_ = (dgemm_fn)dlsym(RTLD_DEFAULT, "dgemm_");
  if (!dgemm_) {
    printf("BLAS: dgemm_ not found\n");
    return;
  }
  const int m = 1500;
  double *x = tide_alloc((size_t)m * m * 8), *y = tide_alloc((size_t)m * m * 8),
         *z = tide_alloc((size_t)m * m * 8);
  for (int64_t i = 0; i < (int64_t)m * m; i++)
    x[i] = tide_rand01(1, i), y[i] = tide_rand01(2, i), z[i] = 0;
  double one = 1, zero = 0, bt = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double t = tide_wtime();
    dgemm_("N", "N", &m, &m, &m, &one, x, &m, y, &m, &zero, z, &m);
    t = tide_wtime() - t;
    bt = t < bt ? t : bt;
  }
  g_dgemm = 2.0 * m * m * (double)m / bt / 1e9;
  tide_free(x, (size_t)m * m * 8), tide_free(y, (size_t)m * m * 8), tide_free(z, (size_t)m * m * 8);
  printf("memory bandwidth: triad %.1f GB/s, read %.1f GB/s (%d threads, %s)\n", g_triad, g_read,
         omp_get_max_threads(), sum > 0 ? "ok" : "?");
  printf("BLAS: %s\n      dgemm %d^3: %.1f GFlop/s\n\n", tide_blas_info(), m, g_dgemm);
}

/* 3D stencil matrix on an m^3 grid (Dirichlet box): 7-point finite
 * differences [6, -1], or the 27-point stiffness of trilinear (Q1) elements
 * for -Laplace, h/12 * [32 centre, 0 faces (stored), -2 edges, -1 corners]. */
static tide_csr *stencil3d(int m, int pts) {
  int64_t n = (int64_t)m * m * m, cap = n * pts, k = 0;
  int *I = malloc(cap * sizeof(int)), *J = malloc(cap * sizeof(int));
  double *V = malloc(cap * sizeof(double));
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++)
      for (int c = 0; c < m; c++) {
        int r = (a * m + b) * m + c;
        for (int da = -1; da <= 1; da++)
          for (int db = -1; db <= 1; db++)
            for (int dc = -1; dc <= 1; dc++) {
              int nz = abs(da) + abs(db) + abs(dc);
              if (pts == 7 && nz > 1) continue;
              double v;
              if (pts == 7)
                v = nz == 0 ? 6 : -1;
              else
                v = nz == 0 ? 32 : nz == 1 ? 0 : nz == 2 ? -2 : -1;
              int aa = a + da, bb = b + db, cc = c + dc;
              if (aa < 0 || aa >= m || bb < 0 || bb >= m || cc < 0 || cc >= m) continue;
              I[k] = r, J[k] = (aa * m + bb) * m + cc, V[k++] = v;
            }
      }
  tide_csr *A = NULL;
  if (tide_csr_from_triplets((int)n, (int)n, k, I, J, V, TIDE_CSR_GENERAL, &A)) {
    fprintf(stderr, "%s\n", tide_errmsg());
    exit(1);
  }
  free(I), free(J), free(V);
  return A;
}

/* bytes of one SpMV: values, columns, row pointers, x (once), y */
static double spmv_bytes(const tide_csr *A) {
  return 12.0 * tide_csr_nnz(A) + 4.0 * (A->nrows + 1) + 16.0 * A->nrows;
}

/* bytes of one preconditioner application as implemented */
static double precond_bytes(const tide_csr *A, int pc) {
  double n = A->nrows, nnz = (double)tide_csr_nnz(A), off = (nnz - n) / 2;
  switch (pc) {
  case TIDE_PRECOND_NONE:
    return 16 * n;
  case TIDE_PRECOND_JACOBI:
    return 24 * n;
  case TIDE_PRECOND_IC0:
  case TIDE_PRECOND_MIC0:
    /* forward: L (12 B/entry) + row pointers + level order + r + dinv + z;
     * backward: U + pointers + order + z read/write + dinv */
    return (12 * off + 4 * n + 4 * n + 24 * n) + (12 * off + 8 * n + 4 * n + 24 * n);
  case TIDE_PRECOND_ILU0:
    return 12 * nnz + 8 * n + 8 * n + 8 * n + 8 * n + 24 * n + 8 * n;
  default:
    return 0;
  }
}

/* bytes of one Krylov iteration besides matvec and preconditioner */
static double vector_bytes(int method, double n) {
  switch (method) {
  case TIDE_KRYLOV_PCG:
    return n * (16 + 48 + 16 + 24); /* pq, x/r update, rz, p */
  case TIDE_KRYLOV_MINRES:
    return n * (16 + 24 + 16 + 24 + 16 + 40); /* v, r1 term, alfa, r2 term, beta, w/x */
  default:
    return n * (16 + 40 + 16 + 24 + 16 + 16 + 48 + 16); /* 2 matvec+precond counted apart */
  }
}

static void run_krylov(const tide_csr *A, const double *b, double *x, int method, int pc) {
  double t0 = tide_wtime();
  tide_krylov *S = NULL;
  if (tide_krylov_new(A, method, pc, &S)) {
    printf("  %-8s %-6s  set-up failed: %s\n", tide_krylov_name(method), tide_precond_name(pc),
           tide_errmsg());
    return;
  }
  double setup = tide_wtime() - t0;
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-6;
  o.maxit = 5000;
  tide_solve_stats st;
  int s = tide_krylov_solve(S, A, b, x, &o, &st);
  double n = A->nrows;
  int mv = method == TIDE_KRYLOV_BICGSTAB ? 2 : 1;
  double bytes = mv * (spmv_bytes(A) + precond_bytes(A, pc)) + vector_bytes(method, n);
  double bound = bytes / (g_triad * 1e9), per = st.seconds / (st.iterations ? st.iterations : 1);
  printf("  %-8s %-6s  set-up %7.3f s  %5d it  %8.3f s  %8.2f ms/it  bound %6.2f ms  x%5.2f%s\n",
         tide_krylov_name(method), tide_precond_name(pc), setup, st.iterations, st.seconds,
         per * 1e3, bound * 1e3, per / bound, s ? "  (not converged)" : "");
  tide_krylov_free(S);
}

static void bench_matrix(const char *name, tide_csr *A, int direct, int lu) {
  int64_t n = A->nrows;
  printf("%s: n = %lld, nnz = %lld\n", name, (long long)n, (long long)tide_csr_nnz(A));
  double *u = malloc(n * 8), *b = malloc(n * 8), *x = malloc(n * 8), *z = malloc(n * 8);
  for (int64_t i = 0; i < n; i++)
    u[i] = tide_rand01(9, i) - 0.5;
  tide_csr_mul(A, u, b);
  /* SpMV */
  double best = 1e30;
  for (int rep = 0; rep < 10; rep++) {
    double t = tide_wtime();
    tide_csr_mul(A, u, x);
    t = tide_wtime() - t;
    best = t < best ? t : best;
  }
  double bound = spmv_bytes(A) / (g_triad * 1e9);
  printf("  SpMV                %8.3f ms  bound %6.3f ms  x%5.2f\n", best * 1e3, bound * 1e3,
         best / bound);
  /* IC(0) application, 1 and 2 threads */
  tide_precond *P = NULL;
  if (!tide_precond_new(A, TIDE_PRECOND_IC0, &P)) {
    int fl, bl;
    tide_precond_levels(P, &fl, &bl);
    double tt[2];
    int nth0 = omp_get_max_threads();
    for (int th = 1; th <= 2; th++) {
      omp_set_num_threads(th);
      tide_precond_set_parallel(P, th - 1);
      double bt = 1e30;
      for (int rep = 0; rep < 5; rep++) {
        double t = tide_wtime();
        tide_precond_apply(P, b, z);
        t = tide_wtime() - t;
        bt = t < bt ? t : bt;
      }
      tt[th - 1] = bt;
    }
    omp_set_num_threads(nth0);
    double pb = precond_bytes(A, TIDE_PRECOND_IC0) / (g_triad * 1e9);
    printf("  IC(0) apply         %8.3f ms (1 thread) %8.3f ms (2 threads, %d levels)  bound "
           "%6.3f ms  x%5.2f\n",
           tt[0] * 1e3, tt[1] * 1e3, fl, pb * 1e3, tt[1] / pb);
    tide_precond_free(P);
  }
  int pcs[] = {TIDE_PRECOND_NONE, TIDE_PRECOND_JACOBI, TIDE_PRECOND_IC0, TIDE_PRECOND_MIC0};
  for (int k = 0; k < 4; k++)
    run_krylov(A, b, x, TIDE_KRYLOV_PCG, pcs[k]);
  run_krylov(A, b, x, TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0);
  run_krylov(A, b, x, TIDE_KRYLOV_MINRES, TIDE_PRECOND_JACOBI);
  if (direct) {
    tide_factor *F = NULL;
    int64_t mem0 = tide_mem_bytes();
    if (tide_factor_new(A, TIDE_FACTOR_CHOLESKY, &F)) {
      printf("  cholesky failed: %s\n", tide_errmsg());
    } else {
      int64_t mem = tide_mem_bytes() - mem0;
      double t = tide_wtime();
      tide_factor_solve(F, b, x);
      double ts = tide_wtime() - t;
      t = tide_wtime();
      tide_factor_refactor(F, A);
      double tr = tide_wtime() - t;
      tide_factor_stats fs;
      tide_factor_info(F, &fs);
      double err = 0, un = 0;
      for (int64_t i = 0; i < n; i++)
        err += (x[i] - u[i]) * (x[i] - u[i]), un += u[i] * u[i];
      printf("  cholesky  analyse %6.3f s  factor %7.3f s (refactor %7.3f s)  nnz(L) %lld  %.1f "
             "GFlop/s (dgemm %.1f)  %.0f MB  solve %.3f s  error %.1e\n",
             fs.analyze_seconds, fs.factor_seconds, tr, (long long)fs.nnz_factor,
             fs.flops / tr / 1e9, g_dgemm, mem / 1e6, ts, sqrt(err / un));
      tide_factor_free(F);
    }
  }
  if (lu) {
    tide_factor *F = NULL;
    double t = tide_wtime();
    if (tide_factor_new(A, TIDE_FACTOR_LU, &F)) {
      printf("  lu failed: %s\n", tide_errmsg());
    } else {
      double tf = tide_wtime() - t;
      tide_factor_stats fs;
      tide_factor_info(F, &fs);
      t = tide_wtime();
      tide_factor_solve(F, b, x);
      printf("  lu (umfpack)  analyse+factor %7.3f s  nnz(L+U) %lld  %.1f GFlop/s  solve %.3f s\n",
             tf, (long long)fs.nnz_factor, fs.flops / fs.factor_seconds / 1e9, tide_wtime() - t);
      tide_factor_free(F);
    }
  }
  printf("\n");
  free(u), free(b), free(x), free(z);
}

int main(int argc, char **argv) {
  int quick = 0, big = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else if (!strcmp(argv[i], "--big"))
      big = 1;
    else {
      fprintf(stderr, "usage: %s [--quick] [--big]\n", argv[0]);
      return 2;
    }
  }
  tide_seed_set(1);
  if (omp_get_max_threads() > 2 && !getenv("OMP_NUM_THREADS")) omp_set_num_threads(2);
  print_load("at start");
  bandwidth();
  int sizes7[] = {32, 64, 128};
  for (int s = 0; s < (quick ? 2 : 3); s++) {
    char name[64];
    snprintf(name, sizeof name, "7-point 3D Poisson %d^3", sizes7[s]);
    tide_csr *A = stencil3d(sizes7[s], 7);
    bench_matrix(name, A, sizes7[s] <= 32 || (big && sizes7[s] <= 64), sizes7[s] == 32);
    tide_csr_free(A);
  }
  int sizes27[] = {20, 40};
  for (int s = 0; s < 2; s++) {
    char name[64];
    snprintf(name, sizeof name, "27-point 3D (Q1 FEM) %d^3", sizes27[s]);
    tide_csr *A = stencil3d(sizes27[s], 27);
    bench_matrix(name, A, 1, 0);
    tide_csr_free(A);
  }
  print_load("at end");
  return 0;
}
