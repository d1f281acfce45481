/*
 * bench/poisson.c -- the MAC-grid pressure Poisson solve against the memory
 * bandwidth of this machine, measured in the same run.
 *
 *   build/bench_poisson [--quick] [--no256] [--threads N]
 *
 * 1. STREAM-like triad a = b + s c over 3 x 256 MB (best of 10), GB/s, and
 *    again (best of 5) before each case, whose bounds use that value.
 * 2. For 2D 512^2, 1024^2 and 3D 64^3, 128^3 (256^3 unless --no256) grids,
 *    each as a half-full pool (solid walls, free surface) and the same pool
 *    with a sphere obstacle:
 *    - one matrix-free Laplacian application and one CG iteration: time and
 *      the bandwidth-bound time of the bytes they move (traffic model of
 *      tide_mac_solver_info: each array streamed once over the active cells);
 *    - MIC(0)-PCG, MGPCG (and CHOLMOD up to 64^3): set-up seconds, iterations
 *      to 1e-6 relative residual, solve seconds, seconds per iteration and
 *      its ratio to the bandwidth bound of one iteration.
 * The right-hand side is a fixed pseudo-random field on the liquid cells.
 */
#include "bench_util.h"
#include "linalg/mg_internal.h"
#include "version.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 3 x 256 MB arrays */
static double triad_gbs(int reps) { return bench_triad_gbs((int64_t)1 << 25, reps); }

typedef struct scene {
  tide_grid g;
  uint8_t *lab;
  double *b, *x;
} scene;

static scene scene_new(int dim, int n, int sphere) {
  scene s;
  memset(&s, 0, sizeof s);
  s.g.dim = dim;
  s.g.n[0] = s.g.n[1] = n;
  s.g.n[2] = dim == 3 ? n : 1;
  s.g.dx = 1.0 / n;
  int64_t nc = tide_grid_ncells(&s.g);
  s.lab = tide_alloc((size_t)nc);
  s.b = tide_alloc((size_t)nc * 8);
  s.x = tide_alloc((size_t)nc * 8);
  const tide_grid *g = &s.g;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        int wall = i == 0 || i == n - 1 || j == 0 || (dim == 3 && (k == 0 || k == n - 1));
        double x = (i + 0.5) / n - 0.5, y = (j + 0.5) / n - 0.25, z = (k + 0.5) / n - 0.5;
        double d2 = x * x + y * y + (dim == 3 ? z * z : 0);
        uint8_t l = (j + 0.5) / n < 0.5 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
        if (wall || (sphere && d2 < 0.15 * 0.15)) l = TIDE_CELL_SOLID;
        s.lab[c] = l;
        s.b[c] = l == TIDE_CELL_LIQUID ? 2 * tide_rand01(1, c) - 1 : 0;
        s.x[c] = 0;
      }
  return s;
}

static void scene_free(scene *s) {
  int64_t nc = tide_grid_ncells(&s->g);
  tide_free(s->lab, (size_t)nc), tide_free(s->b, (size_t)nc * 8), tide_free(s->x, (size_t)nc * 8);
}

static double gbs; /* triad bandwidth, GB/s */

/* CHOLMOD supernodal Cholesky of the assembled matrix (linalg.h) */
static void run_cholmod(scene *s) {
  tide_mac_poisson P = tide_mac_poisson_make(&s->g, s->lab);
  int64_t nc = tide_grid_ncells(&s->g);
  int *rowof = tide_alloc((size_t)nc * sizeof(int)), n = 0;
  tide_mac_poisson_number(&P, rowof, &n);
  double t0 = tide_wtime();
  tide_csr *A = NULL;
  if (tide_mac_poisson_assemble(&P, rowof, n, TIDE_CSR_UPPER, &A)) {
    printf("  cholmod  assembly failed: %s\n", tide_errmsg());
    tide_free(rowof, (size_t)nc * sizeof(int));
    return;
  }
  double tasm = tide_wtime() - t0;
  double *b = tide_alloc((size_t)n * 8), *x = tide_alloc((size_t)n * 8);
  for (int64_t c = 0; c < nc; c++)
    if (rowof[c] >= 0) b[rowof[c]] = s->b[c];
  tide_factor *F = NULL;
  t0 = tide_wtime();
  int st = tide_factor_new(A, TIDE_FACTOR_CHOLESKY, &F);
  double tfac = tide_wtime() - t0;
  if (st) {
    printf("  cholmod  factorization failed: %s\n", tide_errmsg());
  } else {
    t0 = tide_wtime();
    tide_factor_solve(F, b, x);
    double tsol = tide_wtime() - t0;
    tide_factor_stats fs;
    tide_factor_info(F, &fs);
    /* relative residual through the matrix-free operator */
    for (int64_t c = 0; c < nc; c++)
      s->x[c] = rowof[c] >= 0 ? x[rowof[c]] : 0;
    double *y = tide_alloc((size_t)nc * 8);
    tide_mac_poisson_apply(&P, s->x, y);
    double rr = 0, bb = 0;
    for (int64_t c = 0; c < nc; c++)
      if (rowof[c] >= 0) rr += (s->b[c] - y[c]) * (s->b[c] - y[c]), bb += s->b[c] * s->b[c];
    tide_free(y, (size_t)nc * 8);
    printf("  %-8s assemble %.3f s  analyse %.3f s  factor %.3f s (%.1f GFLOP/s)  solve %.3f s  "
           "nnz(L) %.1fM  memory %.0f MB  res %.1e\n",
           "cholmod", tasm, fs.analyze_seconds, fs.factor_seconds,
           fs.flops / (fs.factor_seconds > 0 ? fs.factor_seconds : 1) / 1e9, tsol,
           fs.nnz_factor / 1e6, fs.bytes / 1e6, sqrt(rr / bb));
    (void)tfac;
  }
  tide_factor_free(F);
  tide_csr_free(A);
  tide_free(b, (size_t)n * 8), tide_free(x, (size_t)n * 8);
  tide_free(rowof, (size_t)nc * sizeof(int));
}

/* solve with one method; prints a row */
static void run_method(const char *name, scene *s, int method, int maxit, double *apply_out) {
  tide_mac_poisson P = tide_mac_poisson_make(&s->g, s->lab);
  tide_mac_solver_opts so = tide_mac_solver_opts_default();
  so.method = method;
  tide_mac_solver *S = NULL;
  double t0 = tide_wtime();
  if (tide_mac_solver_new(&P, &so, &S)) {
    printf("  %-8s failed: %s\n", name, tide_errmsg());
    return;
  }
  double tnew = tide_wtime() - t0;
  tide_mac_solver_info inf;
  tide_mac_solver_info_get(S, &inf);
  if (apply_out) {
    /* bare operator: best of several applications on level 0 */
    mg_level *L = &S->lev[0];
    for (int64_t c = 0; c < L->size; c++)
      S->vp[c] = L->label[c] == TIDE_CELL_LIQUID ? 1.0 : 0.0;
    double best = 1e30;
    for (int rep = 0; rep < 20; rep++) {
      double t = tide_wtime();
      mg_apply(L, S->d3, S->vp, S->vq);
      t = tide_wtime() - t;
      if (t < best) best = t;
    }
    double bound = inf.apply_bytes / (gbs * 1e9);
    printf("  %-8s apply %8.3f ms   bound %8.3f ms   ratio %5.2f   (%.1f MB moved)\n", "Ax",
           best * 1e3, bound * 1e3, best / bound, inf.apply_bytes / 1e6);
    *apply_out = best;
    memset(S->vp, 0, (size_t)L->size * 8);
    memset(S->vq, 0, (size_t)L->size * 8);
  }
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-6;
  o.maxit = maxit;
  tide_solve_stats st;
  memset(&st, 0, sizeof st);
  memset(s->x, 0, (size_t)tide_grid_ncells(&s->g) * 8);
  /* one warm-up solve (first touch, page faults), then the timed one */
  int status = TIDE_OK;
  double best = 1e30;
  const int reps = tide_grid_ncells(&s->g) > (1 << 22) ? 1 : 2;
  for (int rep = 0; rep < reps; rep++) { /* best of two below 4M cells */
    tide_solve_stats s1;
    status = tide_mac_solver_solve(S, s->b, s->x, &o, &s1);
    if (s1.seconds < best) best = s1.seconds, st = s1;
  }
  double per = st.seconds / (st.iterations > 0 ? st.iterations : 1);
  double bound = inf.iteration_bytes / (gbs * 1e9);
  printf("  %-8s setup %7.3f s  iters %4d%s  solve %8.3f s  per-iter %8.3f ms  bound %7.3f ms  "
         "ratio %5.2f  res %.1e\n",
         name, tnew, st.iterations, status == TIDE_ENOCONV ? "+" : " ", st.seconds, per * 1e3,
         bound * 1e3, per / bound, st.residual);
  tide_mac_solver_free(S);
}

int main(int argc, char **argv) {
  /* Tide's OpenMP wait policy unless the caller chose one, as the tide program
   * (spinning waits were 20x slower on shared cores: docs/performance.md) */
  tide_omp_wait_default(argv);
  int quick = 0, with256 = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick"))
      quick = 1, with256 = 0;
    else if (!strcmp(argv[i], "--no256"))
      with256 = 0;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      omp_set_num_threads(atoi(argv[++i]));
    else {
      fprintf(stderr, "usage: %s [--quick] [--no256] [--threads N]\n", argv[0]);
      return 2;
    }
  }
  printf("Tide %s (%s)  threads %d  BLAS: %s  SuiteSparse %s\n", tide_version_string(),
         tide_git_revision(), omp_get_max_threads(), tide_blas_info(), tide_suitesparse_version());
  FILE *la = fopen("/proc/loadavg", "r");
  char load[64] = "?";
  if (la) {
    if (!fgets(load, sizeof load, la)) strcpy(load, "?");
    fclose(la);
    load[strcspn(load, "\n")] = 0;
  }
  printf("load average before the run: %s  OpenMP wait: %s\n", load, tide_omp_wait_info());
  double gbs0 = triad_gbs(10);
  printf("triad bandwidth: %.1f GB/s (3 x 256 MB, best of 10)\n\n", gbs0);
  struct {
    int dim, n;
  } cases[] = {{2, 512}, {2, 1024}, {3, 64}, {3, 128}, {3, 256}};
  int ncase = with256 ? 5 : 4;
  if (quick) ncase = 3;
  for (int q = 0; q < ncase; q++)
    for (int sphere = 0; sphere <= 1; sphere++) {
      /* the bound of each case uses a triad measured just before it: on a
       * shared machine the available bandwidth varies during the run */
      gbs = triad_gbs(5);
      scene s = scene_new(cases[q].dim, cases[q].n, sphere);
      int64_t nl = 0, nc = tide_grid_ncells(&s.g);
      for (int64_t c = 0; c < nc; c++)
        nl += s.lab[c] == TIDE_CELL_LIQUID;
      printf("%dD %d^%d %s: %lld liquid cells (%.0f%% of the box), triad now %.1f GB/s\n",
             cases[q].dim, cases[q].n, cases[q].dim, sphere ? "pool + sphere" : "pool",
             (long long)nl, 100.0 * nl / nc, gbs);
      double tapply;
      run_method("cg(20)", &s, TIDE_MAC_CG, 20, &tapply);
      if (tide_grid_ncells(&s.g) <= (1 << 21)) run_method("cg", &s, TIDE_MAC_CG, 20000, NULL);
      run_method("mic0", &s, TIDE_MAC_MIC0, 0, NULL);
      run_method("mgpcg", &s, TIDE_MAC_MGPCG, 0, NULL);
      if (cases[q].dim == 2 || cases[q].n <= 64) run_cholmod(&s);
      scene_free(&s);
      fflush(stdout);
    }
  return 0;
}
