/* bench/sph.c -- SPH throughput (tide.sph): the Morton-sorted cell-list
 * neighbour search and a full WCSPH step (search, density, Tait, forces,
 * kick, drift), in seconds per million particles, 2D and 3D, 1 and 2
 * threads, beside the bound the memory bandwidth measured in the same run
 * sets.  Bound of the search: sorting gathers every particle's state (x, v,
 * a: 3d doubles; rho, p, alpha, kappa, kappa sum: 5) once, read and
 * written, plus keys, indices and cell ids (32 B), and the neighbour lists
 * are written once (4 B per neighbour): bytes_s = 16 (3d + 5) + 32 + 4 k
 * per particle, k the mean neighbour count.  A step adds, per force
 * pass (density, forces), the reads of the lists (4 k B) and of the
 * particle's own state; we count 3 passes over the lists: bytes_step =
 * bytes_s + 12 k + 8 (4 d + 4).  Neighbour positions are reused from cache
 * (Morton order), so the bound is optimistic.  Scene: a dam-break block
 * filling 1/4 of the box at H = 2 dx.
 * Second bound, the arithmetic: the density and force passes cost per
 * neighbour pair about 18 + 46 flops in 3D, 15 + 38 in 2D (distance 3d - 1,
 * sqrt 1, kernel 9 or dW 8, divide 1, gradient d, pressure term 5,
 * viscosity 2d + 8, accumulation 2d; sqrt and divide counted as one flop
 * though they cost several), times the pairs (fluid and boundary) over the
 * flop rate of a vectorised multiply-add loop in L1 measured in the same
 * run.  The search's distance tests are not counted, so this bound is
 * optimistic too; the figure says which of the two bounds the step is near.
 *   build/bench_sph [--quick] */
#include "sph/sph.h"
#include "bench_util.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* multiply-add rate of an L1-resident vectorisable loop [GFLOP/s] */
static double flop_rate(int reps) {
  static double y[1024];
  for (int i = 0; i < 1024; i++)
    y[i] = 1e-3 * i;
  double best = 1e30, a = 0.999999, b = 1e-7;
  for (int r = 0; r < reps; r++) {
    double t = tide_wtime();
    for (int k = 0; k < 20000; k++) {
      for (int i = 0; i < 1024; i++)
        y[i] = y[i] * a + b;
      __asm__ volatile("" ::"r"(y) : "memory");
    }
    t = tide_wtime() - t;
    best = t < best ? t : best;
  }
  return 2.0 * 1024 * 20000 / best / 1e9;
}

static void run(int dim, int n, int steps, double *t_search, double *t_step, int64_t *np,
                double *kmean, double *pairs) {
  tide_grid g = {dim, {n, n, dim == 3 ? n : 1}, 1.0 / n, {0, 0, 0}};
  tide_sph_params prm = {TIDE_SPH_CUBIC, 2, 1000, {0, -9.81, 0}, 20, 0.05, 0, 0, 0};
  tide_sph *s;
  if (tide_sph_new(&g, &prm, &s)) return;
  tide_shape *box, *tank;
  double lo[3] = {2.0 / n, 2.0 / n, 2.0 / n}, hi[3] = {0.5, 0.5, 1 - 2.0 / n};
  double tlo[3] = {2.0 / n, 2.0 / n, 2.0 / n}, thi[3] = {1 - 2.0 / n, 1 - 2.0 / n, 1 - 2.0 / n};
  tide_shape_box(dim, lo, hi, &box);
  tide_shape_box(dim, tlo, thi, &tank);
  int64_t added;
  tide_sph_seed(s, box, 0.2, 1, NULL, &added);
  tide_sph_boundary(s, tank, 2, 1, &added);
  tide_shape_release(box);
  tide_shape_release(tank);
  double dt = 0.2 * 0.5 * s->K.H / s->c;
  tide_sph_search(s); /* warm-up */
  double t = tide_wtime();
  for (int k = 0; k < steps; k++)
    tide_sph_search(s);
  *t_search = (tide_wtime() - t) / steps;
  t = tide_wtime();
  for (int k = 0; k < steps; k++) {
    tide_sph_search(s);
    tide_sph_density(s);
    tide_sph_tait(s);
    tide_sph_forces(s, 1, 1);
    tide_sph_kick(s, dt);
    tide_sph_drift(s, dt);
  }
  *t_step = (tide_wtime() - t) / steps;
  *np = s->ps->n;
  tide_sph_search(s);
  *kmean = (double)s->nstart[s->ps->n] / (double)s->ps->n;
  *pairs = (double)(s->nstart[s->ps->n] + s->bstart[s->ps->n]);
  tide_sph_free(s);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  printf("bench_sph: Morton cell-list search and WCSPH step, cubic spline H = 2 dx, double "
         "precision (Tide %s)\n",
         tide_version_string());
  for (int threads = 1; threads <= 2; threads++) {
    tide_threads_set(threads);
    double gbs = bench_triad_gbs((int64_t)1 << (quick ? 22 : 25), quick ? 3 : 5);
    double gfs = flop_rate(quick ? 3 : 5) * threads;
    printf("\n-- %d thread%s: triad bandwidth %.1f GB/s, multiply-add rate %.1f GFLOP/s (one core "
           "times threads)\n",
           threads, threads > 1 ? "s" : "", gbs, gfs);
    for (int dim = 2; dim <= 3; dim++) {
      int n = dim == 2 ? (quick ? 256 : 1024) : (quick ? 48 : 128);
      int64_t np = 1;
      double ts = 0, tstep = 0, k = 0, pairs = 0;
      run(dim, n, quick ? 3 : 10, &ts, &tstep, &np, &k, &pairs);
      double bs = 16.0 * (3 * dim + 5) + 32 + 4 * k, bstep = bs + 12 * k + 8.0 * (4 * dim + 4);
      double per = 1e6 / (double)np;
      printf("  %dD, %lld particles, %.1f neighbours: search %.3f s per M particles (bound %.4f s, "
             "%.0f B/particle), step %.3f s per M particles (bound %.4f s, %.0f B/particle)\n",
             dim, (long long)np, k, ts * per, bs * 1e6 / (gbs * 1e9), bs, tstep * per,
             bstep * 1e6 / (gbs * 1e9), bstep);
      double fl = (dim == 3 ? 64.0 : 53.0) * pairs / (double)np;
      printf("     arithmetic bound of the step %.4f s per M particles (%.0f flop/particle)\n",
             fl * 1e6 / (gfs * 1e9), fl);
    }
  }
  return 0;
}
