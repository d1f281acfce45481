/*
 * bench/fem.c -- one backward-Euler Newton step of a neo-Hookean block
 * (incremental potential, fem.h / integrate.h): seconds for assembly
 * (gradient, PSD-projected Hessian, CSR value refill), CHOLMOD factorization
 * (with and without reuse of the symbolic analysis) and solve, on 1 and 2
 * threads, each next to a bound measured in the same run:
 *   - assembly and solve: the time to stream their data once through memory
 *     at the triad bandwidth measured here;
 *   - factorization: the flop rate CHOLMOD reaches on a dense SPD matrix
 *     (BLAS-3 bound for the supernodal method).
 * A whole Newton step of the integrator is timed too (one thread), with the
 * symbolic analysis reused across iterations and steps, and without.
 *
 *   make bench && build/bench_fem [nx ny nz]      (default 20 20 10: 24000 tets)
 */
#include "linalg/linalg.h"
#include "solid/integrate.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* STREAM-like triad a = b + s c over n doubles; returns GB/s (best of 5) */
static double triad_bandwidth(void) {
  int64_t n = 1 << 24;
  double *a = tide_alloc((size_t)n * 8), *b = tide_alloc((size_t)n * 8),
         *c = tide_alloc((size_t)n * 8);
  if (!a || !b || !c) return 0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++)
    a[i] = 0, b[i] = 1, c[i] = 2;
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    double t0 = tide_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      a[i] = b[i] + 3.0 * c[i];
    double t = tide_wtime() - t0;
    if (t < best) best = t;
  }
  double gbs = 4.0 * 8 * (double)n / best / 1e9; /* a, b, c and the write-allocate of a */
  tide_free(a, (size_t)n * 8), tide_free(b, (size_t)n * 8), tide_free(c, (size_t)n * 8);
  return gbs;
}

/* CHOLMOD supernodal Cholesky rate on a dense SPD matrix of order n [GFLOP/s] */
static double dense_cholesky_rate(int n) {
  int64_t nnz = (int64_t)n * (n + 1) / 2;
  int *I = malloc((size_t)nnz * sizeof(int)), *J = malloc((size_t)nnz * sizeof(int));
  double *V = malloc((size_t)nnz * sizeof(double));
  int64_t t = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++, t++) {
      I[t] = i, J[t] = j;
      V[t] = i == j ? n + 1.0 : 1.0 / (1 + i + j);
    }
  tide_csr *A = NULL;
  tide_factor *F = NULL;
  double rate = 0;
  if (!tide_csr_from_triplets(n, n, nnz, I, J, V, TIDE_CSR_UPPER, &A) &&
      !tide_factor_new(A, TIDE_FACTOR_CHOLESKY, &F)) {
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
      double t0 = tide_wtime();
      tide_factor_refactor(F, A);
      double dt = tide_wtime() - t0;
      if (dt < best) best = dt;
    }
    tide_factor_stats fs;
    tide_factor_info(F, &fs);
    rate = fs.flops / best / 1e9;
  }
  tide_factor_free(F);
  tide_csr_free(A);
  free(I), free(J), free(V);
  return rate;
}

/* the 1-minute load average (the machine may be shared) */
static const char *load_average(void) {
  static char buf[32] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%31s", buf) != 1) strcpy(buf, "?");
    fclose(f);
  }
  return buf;
}

static double best_of(double *t, int n) {
  double b = t[0];
  for (int i = 1; i < n; i++)
    if (t[i] < b) b = t[i];
  return b;
}

int main(int argc, char **argv) {
  /* Tide's OpenMP wait policy unless the caller chose one, as the tide program
   * (spinning waits were 20x slower on shared cores: docs/performance.md) */
  tide_omp_wait_default(argv);
  int cells[3] = {20, 20, 10};
  if (argc == 4)
    for (int k = 0; k < 3; k++)
      cells[k] = atoi(argv[k + 1]);
  double lo[3] = {0, 0, 0}, hi[3] = {cells[0] * 0.05, cells[1] * 0.05, cells[2] * 0.05};
  tide_tetmesh *m = NULL;
  if (tide_mesh_box(3, lo, hi, cells, &m)) {
    fprintf(stderr, "bench_fem: %s\n", tide_errmsg());
    return 1;
  }
  tide_material mat = tide_material_default(TIDE_MODEL_NEOHOOKEAN, 0, 0);
  tide_lame(1e5, 0.3, &mat.lambda, &mat.mu);
  mat.spline_klo = mat.spline_khi = 20 * mat.mu;
  if (tide_fem_attach(m, &mat, 1000)) {
    fprintf(stderr, "bench_fem: %s\n", tide_errmsg());
    return 1;
  }
  /* clamp the bottom, start from a sheared state so the Hessian is not trivial */
  double *x = TIDE_F64P(m->x);
  uint8_t *pin = TIDE_U8P(m->fem->pinned);
  for (int64_t i = 0; i < m->nv; i++) {
    if (x[3 * i + 1] < 1e-9) pin[i] = 1;
    x[3 * i] += 0.1 * x[3 * i + 1] * x[3 * i + 1];
  }
  memcpy(TIDE_F64P(m->fem->target), x, (size_t)(m->nv * 3) * sizeof(double));
  int64_t N = m->nv * 3, nnz = tide_fem_ip_nnz(m);
  printf("bench_fem: neo-Hookean block %dx%dx%d cells, %lld tetrahedra, %lld nodes, %lld unknowns, "
         "%lld Hessian triplets\n",
         cells[0], cells[1], cells[2], (long long)m->ne, (long long)m->nv, (long long)N,
         (long long)nnz);
  printf("BLAS: %s   OpenMP wait: %s\n", tide_blas_info(), tide_omp_wait_info());
  double refac[2] = {0, 0};

  for (int threads = 1; threads <= 2; threads++) {
    tide_threads_set(threads);
    double bw = triad_bandwidth();
    double dense = dense_cholesky_rate(1500);
    printf("\n-- %d thread%s: triad bandwidth %.1f GB/s, CHOLMOD dense Cholesky (n = 1500) %.1f "
           "GFLOP/s\n",
           threads, threads > 1 ? "s" : "", bw, dense);
    /* the pieces of one Newton iteration, timed separately (best of 3) */
    int *I = tide_alloc((size_t)nnz * sizeof(int)), *J = tide_alloc((size_t)nnz * sizeof(int));
    double *V = tide_alloc((size_t)nnz * sizeof(double)), *xh = tide_alloc((size_t)N * 8),
           *g = tide_alloc((size_t)N * 8), *p = tide_alloc((size_t)N * 8);
    tide_fem_predict(m, 0.01, xh);
    tide_ip ip = {0.01, xh, x};
    tide_tripletbuf tb = {I, J, V, 0, 0};
    tide_fem_ip_gradient_hessian(m, &ip, x, TIDE_FEM_PROJECT | TIDE_FEM_PINNED, g, &tb);
    tide_csr *A = NULL;
    if (tide_csr_from_triplets((int)N, (int)N, nnz, I, J, V, TIDE_CSR_UPPER, &A)) {
      fprintf(stderr, "bench_fem: %s\n", tide_errmsg());
      return 1;
    }
    double ta[3], tf_new[3], tf_re[3], ts[3];
    tide_factor *F = NULL;
    for (int r = 0; r < 3; r++) {
      double t0 = tide_wtime();
      tide_fem_ip_gradient_hessian(m, &ip, x, TIDE_FEM_PROJECT | TIDE_FEM_PINNED, g, &tb);
      tide_csr_set_triplet_values(A, nnz, V);
      ta[r] = tide_wtime() - t0;
      tide_factor_free(F);
      F = NULL;
      t0 = tide_wtime();
      if (tide_factor_new(A, TIDE_FACTOR_CHOLESKY, &F)) {
        fprintf(stderr, "bench_fem: %s\n", tide_errmsg());
        return 1;
      }
      tf_new[r] = tide_wtime() - t0;
      t0 = tide_wtime();
      tide_factor_refactor(F, A);
      tf_re[r] = tide_wtime() - t0;
      for (int64_t q = 0; q < N; q++)
        g[q] = -g[q];
      t0 = tide_wtime();
      tide_factor_solve(F, g, p);
      ts[r] = tide_wtime() - t0;
    }
    tide_factor_stats fs;
    tide_factor_info(F, &fs);
    double a = best_of(ta, 3), fn = best_of(tf_new, 3), fr = best_of(tf_re, 3), s = best_of(ts, 3);
    /* streaming bounds: triplets written once and read once by the refill
     * (4 + 4 + 8 bytes each, twice) plus the CSR values; the solve reads the
     * values of L twice (supernodal: dense blocks, no index per entry) */
    double abytes = (double)nnz * 16 * 2 + (double)tide_csr_nnz(A) * 8;
    double sbytes = (double)fs.nnz_factor * 8 * 2;
    printf("assembly (gradient + projected Hessian + CSR refill): %8.4f s   streaming bound %.4f s "
           "(%.0fx)   %.2f us per element\n",
           a, abytes / (bw * 1e9), a / (abytes / (bw * 1e9)), a / (double)m->ne * 1e6);
    printf("factorization, new analysis each time:                %8.4f s   (analysis %.4f s)\n",
           fn, fs.analyze_seconds);
    printf("factorization, symbolic analysis reused:               %8.4f s   %.1f GFLOP/s, dense "
           "bound %.1f GFLOP/s (%.0f%%)   reuse saves %.0f%%\n",
           fr, fs.flops / fr / 1e9, dense, 100 * fs.flops / fr / 1e9 / dense, 100 * (1 - fr / fn));
    printf("  BLAS threads used: %d (largest front %.2g flops; threads only above 3e9, see "
           "linalg/direct.c)\n",
           fs.threads, fs.front_flops);
    refac[threads - 1] = fr;
    printf("solve:                                                 %8.4f s   streaming bound %.4f "
           "s (%.1fx)   nnz(L) = %lld\n",
           s, sbytes / (bw * 1e9), s / (sbytes / (bw * 1e9)), (long long)fs.nnz_factor);
    tide_factor_free(F);
    tide_csr_free(A);
    tide_free(I, (size_t)nnz * sizeof(int)), tide_free(J, (size_t)nnz * sizeof(int));
    tide_free(V, (size_t)nnz * sizeof(double)), tide_free(xh, (size_t)N * 8);
    tide_free(g, (size_t)N * 8), tide_free(p, (size_t)N * 8);

    /* a whole step of the integrator, reuse on and off (second step timed);
     * on one thread only, to keep the benchmark short */
    for (int reuse = 1; reuse >= 0 && threads == 1; reuse--) {
      tide_step_opts o = tide_step_opts_default();
      o.dt = 0.01;
      o.solver = TIDE_SOLID_CHOLMOD;
      o.reuse = reuse;
      o.tol = 1e-5;
      tide_step_stats st;
      memcpy(x, TIDE_F64P(m->fem->target), (size_t)N * sizeof(double));
      tide_array_fill(m->v, 0);
      if (tide_solid_step_newton(m, &o, &st) || tide_solid_step_newton(m, &o, &st)) {
        fprintf(stderr, "bench_fem: %s\n", tide_errmsg());
        return 1;
      }
      printf("Newton step, reuse %-3s: %d iterations, %d analyses: assembly %.3f s, factor %.3f s, "
             "solve %.3f s, total %.3f s\n",
             reuse ? "on" : "off", st.iterations, st.analyses, st.assemble_seconds,
             st.factor_seconds, st.solve_seconds, st.total_seconds);
    }
  }
  printf("\nfactorization (analysis reused) with 2 threads / with 1 thread: %.2f (target <= 1; "
         "load average %s)\n",
         refac[1] / refac[0], load_average());
  tide_tetmesh_free(m);
  return 0;
}
