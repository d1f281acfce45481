/* bench/mpm.c -- explicit MLS-MPM throughput (tide.mpm), quadratic
 * B-splines, 2D and 3D, 1 and 2 threads, in particle-substeps per second,
 * next to the bound the memory bandwidth measured in the same run sets:
 * a substep must read every particle's state for P2G (x, v, C, F, V0, m,
 * J_p: 2d + 2d^2 + 3 doubles and a 4-byte material id) and read and write
 * it again in G2P (x, v, C, F), so at least
 *   bytes_p = 8 (2d + 2d^2 + 3) + 4 + 8 * 2 (2d + 2 d^2)
 * cross the memory bus per particle-substep (the node arrays are small and
 * stay in cache for sorted particles).  The bound is triad bandwidth /
 * bytes_p.  Scene: an elastic fixed-corotated block filling 1/8 of the box
 * at 4 (2D) / 8 (3D) particles per cell, sorted once.
 *   build/bench_mpm [--quick] [--only D]
 * --only D runs just the one-thread dimension-D throughput, --only dense /
 * sparse just one side of the sparse-grid comparison (for a profiler:
 * valgrind --tool=callgrind --toggle-collect=tide_mpm_step counts the
 * instructions of steps + 1 substeps, the warm-up included). */
#include "mpm/mpm.h"
#include "bench_util.h"
#include "version.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* an MPM state on an n^dim grid with one elastic material, separating
 * walls and gravity (no particles yet) */
static tide_mpm *state(int dim, int n, int sparse, int *idx) {
  tide_grid g = {dim, {n, n, dim == 3 ? n : 1}, 1.0 / n, {0, 0, 0}};
  tide_mpm *m;
  if (tide_mpm_new(&g, 2, &m)) return NULL;
  tide_mpm_set_sparse(m, sparse);
  tide_mpm_material mt;
  memset(&mt, 0, sizeof mt);
  mt.elastic = tide_material_default(TIDE_MODEL_FIXED_COROTATED, 1e4, 1e4);
  mt.rho = 1000;
  tide_mpm_add_material(m, &mt, idx);
  for (int s = 0; s < 2 * dim; s++)
    m->wall_bc[s] = TIDE_MPM_SEPARATE;
  m->gravity[1] = -9.81;
  return m;
}

/* CPU seconds of the whole process (all threads): on a shared machine the
 * wall clock counts the time other jobs hold the cores, this does not */
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* particle-substeps per wall second; *per_cpu: per CPU second */
static double run(int dim, int n, int steps, int64_t *np, double *per_cpu) {
  int idx;
  tide_mpm *m = state(dim, n, 0, &idx);
  if (!m) return 0;
  tide_shape *box;
  double lo[3] = {0.25, 0.25, 0.25}, hi[3] = {0.75, 0.75, 0.75};
  tide_shape_box(dim, lo, hi, &box);
  int64_t added;
  tide_mpm_seed(m, box, dim == 3 ? 8 : 4, 1, 1, idx, NULL, NULL, &added);
  tide_shape_release(box);
  tide_mpm_sort(m);
  double dt = 1e-4;
  tide_mpm_step(m, dt); /* warm-up */
  double t = tide_wtime(), c = cpu_seconds();
  for (int s = 0; s < steps; s++)
    tide_mpm_step(m, dt);
  t = tide_wtime() - t;
  c = cpu_seconds() - c;
  *np = m->ps->n;
  tide_mpm_free(m);
  *per_cpu = (double)(*np) * steps / c;
  return (double)(*np) * steps / t;
}

/* sparse block grid against the dense one: a ball filling 5% of the box
 * (3D), node bytes and seconds per step */
static void sparse_vs_dense(int n, int steps, int which) {
  printf("\n-- sparse 4^3-node blocks vs dense nodes (node storage: mass, velocity and P2G's 4-lane scratch), 3D %d^3 grid, a ball filling 5%% of the box:\n", n);
  for (int sparse = 0; sparse < 2; sparse++) {
    if (which >= 0 && sparse != which) continue;
    int idx;
    tide_mpm *m = state(3, n, sparse, &idx);
    if (!m) return;
    tide_shape *ball;
    double c[3] = {0.5, 0.5, 0.5}, r = cbrt(0.05 * 3 / (4 * M_PI));
    tide_shape_sphere(3, c, r, &ball);
    int64_t added;
    tide_mpm_seed(m, ball, 8, 1, 1, idx, NULL, NULL, &added);
    tide_shape_release(ball);
    tide_mpm_sort(m);
    tide_mpm_step(m, 1e-4);
    double t = tide_wtime();
    for (int s = 0; s < steps; s++)
      tide_mpm_step(m, 1e-4);
    t = (tide_wtime() - t) / steps;
    double nodeb = (double)m->node_cap * 8 * 4 + (double)m->acc_cap * 32 +
                   (sparse ? (double)m->nbtot * 5 + m->actcap * 8 : 0);
    printf("  %s: %lld particles, %lld nodes held (%.1f MB node storage%s), %.2f ms per step, %lld B "
           "total\n",
           sparse ? "sparse" : "dense ", (long long)m->ps->n, (long long)m->nn, nodeb / 1e6,
           sparse ? " incl. page table" : "", 1e3 * t, (long long)tide_mpm_bytes(m));
    tide_mpm_free(m);
  }
}

int main(int argc, char **argv) {
  int quick = 0, only = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--quick")) quick = 1;
    if (!strcmp(argv[a], "--only") && a + 1 < argc) {
      a++;
      only = !strcmp(argv[a], "dense") ? 4 : !strcmp(argv[a], "sparse") ? 5 : atoi(argv[a]);
    }
  }
  printf("bench_mpm: explicit MLS-MPM, quadratic B-splines, double precision (Tide %s)\n",
         tide_version_string());
  for (int threads = 1; threads <= (only ? 1 : 2) && only < 4; threads++) {
    tide_threads_set(threads);
    double gbs = bench_triad_gbs((int64_t)1 << (quick ? 22 : 25), quick ? 3 : 5);
    printf("\n-- %d thread%s: triad bandwidth %.1f GB/s\n", threads, threads > 1 ? "s" : "", gbs);
    for (int dim = 2; dim <= 3; dim++) {
      if (only && dim != only) continue;
      int n = dim == 2 ? (quick ? 128 : 512) : (quick ? 32 : 64);
      int64_t np = 0;
      double cpu_rate = 0, rate = run(dim, n, quick ? 5 : 20, &np, &cpu_rate);
      double bytes = 8.0 * (2 * dim + 2 * dim * dim + 3) + 4 + 16.0 * (2 * dim + 2 * dim * dim);
      double bound = gbs * 1e9 / bytes;
      /* cpu: the rate with the cores to itself, threads x per CPU-second */
      double cpu = threads * cpu_rate;
      printf("  %dD %d^%d grid, %lld particles: %.2f M particle-substeps/s (%.2f M per CPU-second); "
             "bandwidth bound %.1f M/s (%.0f B per particle-substep) -> %.0f%% of the bound (%.0f%% "
             "at %d x the CPU-second rate)\n",
             dim, n, dim, (long long)np, rate / 1e6, cpu_rate / 1e6, bound / 1e6, bytes,
             100 * rate / bound, 100 * cpu / bound, threads);
    }
  }
  tide_threads_set(1);
  if (only == 2 || only == 3) return 0;
  sparse_vs_dense(quick ? 48 : 128, quick ? 5 : 20, only ? only - 4 : -1);
  printf("\nreference: a plain C quadratic MLS-MPM loop, 3D single precision, one core of this "
         "machine class: "
         "~8.4 M particle-substeps/s (issue 17)\n");
  return 0;
}
