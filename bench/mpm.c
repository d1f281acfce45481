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
 * The reference, "a plain C quadratic MLS-MPM loop, 3D single
 * precision, ~8.4 M particle-substeps/s on one core", is measured here
 * rather than quoted: bench/mpm_ref.h is that loop (the textbook mpm88 loop
 * in 3D, array-of-structures particles, P2G serial), in float and double,
 * compiled -O3 -ffp-contract=fast (CMakeLists.txt; Tide's kernel keeps the
 * project's -O2), run on the same 3D particles as Tide's case, alternated
 * with Tide over rounds (medians per CPU-second, the 1-minute load printed)
 * and checked against Tide's particles after the same substeps.
 *   build/bench_mpm [--quick] [--only D|dense|sparse|ref] [--rounds R] [--threads T]
 * --only D runs just the dimension-D throughput (one thread, or T threads with
 * --threads T, which alone runs both dimensions at T threads), --only dense /
 * sparse just one side of the sparse-grid comparison, --only ref just the
 * reference comparison (R rounds, default 5) (for a profiler:
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

/* the scene: an elastic block filling 1/8 of the box at 4 (2D) / 8 (3D)
 * particles per cell, sorted, not yet stepped */
static tide_mpm *scene(int dim, int n) {
  int idx;
  tide_mpm *m = state(dim, n, 0, &idx);
  if (!m) return NULL;
  tide_shape *box;
  double lo[3] = {0.25, 0.25, 0.25}, hi[3] = {0.75, 0.75, 0.75};
  tide_shape_box(dim, lo, hi, &box);
  int64_t added;
  tide_mpm_seed(m, box, dim == 3 ? 8 : 4, 1, 1, idx, NULL, NULL, &added);
  tide_shape_release(box);
  tide_mpm_sort(m);
  return m;
}

#define BENCH_DT 1e-4

/* particle-substeps per wall second; *per_cpu: per CPU second; keep !=
 * NULL: the state after the 1 + steps substeps (else freed) */
static double run(int dim, int n, int steps, int64_t *np, double *per_cpu, tide_mpm **keep) {
  tide_mpm *m = scene(dim, n);
  if (!m) return 0;
  double dt = BENCH_DT;
  tide_mpm_step(m, dt); /* warm-up */
  double t = tide_wtime(), c = cpu_seconds();
  for (int s = 0; s < steps; s++)
    tide_mpm_step(m, dt);
  t = tide_wtime() - t;
  c = cpu_seconds() - c;
  *np = m->ps->n;
  if (keep)
    *keep = m;
  else
    tide_mpm_free(m);
  *per_cpu = (double)(*np) * steps / c;
  return (double)(*np) * steps / t;
}

/* the plain C reference loop, float and double (bench/mpm_ref.h) */
#define REF_T float
#define REF_SFX f
#include "mpm_ref.h"
#undef REF_T
#undef REF_SFX
#define REF_T double
#define REF_SFX d
#include "mpm_ref.h"
#undef REF_T
#undef REF_SFX

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  double s[64];
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* one timed run of variant `which` (0: Tide, 1: plain float, 2: plain
 * double) on the 3D n^3 scene: wall rate, *cpu the CPU-second rate */
static double variant(int which, int n, int steps, double *cpu) {
  int64_t np = 0;
  if (which == 0) return run(3, n, steps, &np, cpu, NULL);
  tide_mpm *m0 = scene(3, n);
  *cpu = 0;
  if (!m0) return 0;
  double w = which == 1 ? ref_run_f(m0, steps, BENCH_DT, cpu, NULL, NULL, NULL)
                        : ref_run_d(m0, steps, BENCH_DT, cpu, NULL, NULL, NULL);
  tide_mpm_free(m0);
  return w;
}

/* variants 0 .. nv-1 alternated over `rounds` rounds, the order rotating */
static void alternate(int nv, int n, int steps, int rounds, double cpu[][64], double wall[][64]) {
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < nv; k++) {
      int which = (r + k) % nv;
      wall[which][r] = variant(which, n, steps, &cpu[which][r]);
    }
}

/* Tide's 3D double path against the plain loop in float and double, one
 * thread, the three alternated over `rounds` rounds (the order rotating),
 * medians; the plain loops checked against Tide's particles */
static void reference(int n, int steps, int rounds) {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 0) load[0] = -1;
  tide_threads_set(1);
  double gbs = bench_triad_gbs((int64_t)1 << 25, 5);
  printf("\n-- 3D %d^3, 1 thread: Tide (double) against the plain C quadratic MLS-MPM loop "
         "(bench/mpm_ref.h, serial) in float and double, %d alternated rounds of %d substeps, "
         "load %.2f, triad %.1f GB/s:\n",
         n, rounds, steps, load[0], gbs);
  static const char *name[3] = {"Tide double", "plain float", "plain double"};
  /* bytes per particle-substep: Tide's (main's formula), the plain loop's
   * 24 numbers read in P2G, read and written in G2P */
  double bytes[3] = {8.0 * 27 + 4 + 16.0 * 24, 4.0 * 72, 8.0 * 72};
  double cpu[3][64], wall[3][64];
  if (rounds > 64) rounds = 64;
  int64_t np = 0;
  alternate(3, n, steps, rounds, cpu, wall);
  double med[3];
  for (int w = 0; w < 3; w++) {
    med[w] = median(cpu[w], rounds);
    printf("  %-12s: %.2f M particle-substeps per CPU-second (median; wall %.2f M/s), rounds", name[w],
           med[w] / 1e6, median(wall[w], rounds) / 1e6);
    for (int r = 0; r < rounds; r++)
      printf(" %.2f", cpu[w][r] / 1e6);
    printf("; bandwidth bound %.1f M/s (%.0f B) -> %.0f%%\n", gbs * 1e9 / bytes[w] / 1e6, bytes[w],
           100 * med[w] / (gbs * 1e9 / bytes[w]));
  }
  printf("  ratios: Tide double / plain float %.2f, Tide double / plain double %.2f, plain float / "
         "plain double %.2f; the issue's figure for the plain float loop: ~8.4 M/s\n",
         med[0] / med[1], med[0] / med[2], med[1] / med[2]);
  /* 2 threads: Tide's P2G colours its slabs, the plain loop's P2G stays serial (its grid update
   * and G2P take both threads); the wall clock (the CPU-second rate of a partly serial loop
   * says nothing about its 2-thread throughput) */
  tide_threads_set(2);
  double c2[2][64], w2[2][64];
  alternate(2, n, steps, rounds, c2, w2);
  double m2[2];
  for (int w = 0; w < 2; w++) {
    m2[w] = median(w2[w], rounds);
    printf("  2 threads, %-12s: %.2f M particle-substeps/s (median wall), %.2f M per CPU-second%s\n",
           name[w], m2[w] / 1e6, median(c2[w], rounds) / 1e6,
           w ? " (P2G serial: one thread's CPU time there)" : "");
  }
  printf("  2 threads: Tide / plain float %.2f by the wall clock (on a shared machine mostly the "
         "other jobs' share; OMP_WAIT_POLICY=passive, or spinning threads count as CPU time)\n",
         m2[0] / m2[1]);
  tide_threads_set(1);
  /* the loops compute the same motion: each against Tide after 1 + steps substeps */
  tide_mpm *after = NULL;
  run(3, n, steps, &np, &cpu[0][0], &after);
  tide_mpm *m0 = scene(3, n);
  if (!after || !m0) return;
  double exf = 0, evf = 0, exd = 0, evd = 0, c;
  ref_run_f(m0, steps, BENCH_DT, &c, after, &exf, &evf);
  ref_run_d(m0, steps, BENCH_DT, &c, after, &exd, &evd);
  printf("  same motion: after %d substeps, largest difference from Tide's particles: float %.1e "
         "cells in x, %.1e of the top speed in v; double %.1e cells, %.1e\n",
         steps + 1, exf, evf, exd, evd);
  tide_mpm_free(m0);
  tide_mpm_free(after);
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
  /* Tide's OpenMP wait policy unless the caller chose one (docs/performance.md) */
  tide_omp_wait_default(argv);
  int quick = 0, only = 0, rounds = 0, nthreads = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--quick")) quick = 1;
    if (!strcmp(argv[a], "--threads") && a + 1 < argc) nthreads = atoi(argv[++a]);
    if (!strcmp(argv[a], "--rounds") && a + 1 < argc) rounds = atoi(argv[++a]);
    if (!strcmp(argv[a], "--only") && a + 1 < argc) {
      a++;
      only = !strcmp(argv[a], "dense")    ? 4
             : !strcmp(argv[a], "sparse") ? 5
             : !strcmp(argv[a], "ref")    ? 6
                                          : atoi(argv[a]);
    }
  }
  if (rounds < 1) rounds = quick ? 1 : 5;
  printf("bench_mpm: explicit MLS-MPM, quadratic B-splines, double precision (Tide %s)\n",
         tide_version_string());
  int t0 = nthreads > 0 ? nthreads : 1, t1 = nthreads > 0 ? nthreads : only ? 1 : 2;
  for (int threads = t0; threads <= t1 && only < 4; threads++) {
    tide_threads_set(threads);
    double gbs = bench_triad_gbs((int64_t)1 << (quick ? 22 : 25), quick ? 3 : 5);
    printf("\n-- %d thread%s: triad bandwidth %.1f GB/s\n", threads, threads > 1 ? "s" : "", gbs);
    for (int dim = 2; dim <= 3; dim++) {
      if (only && dim != only) continue;
      int n = dim == 2 ? (quick ? 128 : 512) : (quick ? 32 : 64);
      int64_t np = 0;
      double cpu_rate = 0, rate = run(dim, n, quick ? 5 : 20, &np, &cpu_rate, NULL);
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
  if (only == 2 || only == 3 || nthreads > 0) return 0;
  if (only != 4 && only != 5) reference(quick ? 32 : 64, quick ? 5 : 20, rounds);
  if (only == 6) return 0;
  sparse_vs_dense(quick ? 48 : 128, quick ? 5 : 20, only ? only - 4 : -1);
  return 0;
}
