/*
 * bench/ipc.c -- what solid contact (IPC, ipc.h) costs in step_newton: a
 * square cloth (n x n cells, discrete shell) 1 mm above a sphere collider falls onto it
 * and folds over it, stepped with self-contact on (dhat) and the sphere a
 * barrier (contact = "barrier", friction from the barrier forces, mu = 0.3
 * between the cloth's own primitives too), with self-contact on and the
 * sphere a projected constraint, and, on an identical copy, without
 * self-contact -- the bound: the same mesh, the same integrator, no solid
 * contact.  Per Newton iteration: total, element assembly (+ the contact
 * blocks), factorization (with contact a fresh analysis each iteration, the
 * pattern changes), solve, broad phase, CCD step bounds and the rest (barrier
 * values and gradients, line search energies), on 1 and 2 threads.  Run:
 *   make bench && build/bench_ipc [n = 100] [steps = 6] [threads = 12]
 * (threads: the thread counts to run, digits: "1", "2", "12"; n = 150 is the
 * issue's 20k-vertex cloth, 22801 vertices)
 */
#include "grid/sdf.h"
#include "solid/integrate.h"
#include "solid/thin.h"
#include "solid/thingen.h"
#include "version.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static tide_tetmesh *cloth(int n) {
  double o[3] = {-0.5, 0.451, -0.5}, u[3] = {1, 0, 0}, v[3] = {0, 0, 1};
  tide_tetmesh *m = NULL;
  if (tide_mesh_sheet(o, u, v, n, n, 1, NULL, NULL, 0, &m)) return NULL;
  double lam, mu;
  tide_lame(2e5, 0.3, &lam, &mu);
  tide_thin_params p = {0};
  p.kind = TIDE_THIN_SHELL;
  p.mat = tide_material_default(TIDE_MODEL_NEOHOOKEAN, mu, lam);
  p.thickness = 5e-4;
  p.bending = 2e5 * 1.25e-10 / (12 * 0.91);
  p.density = 0.2;
  if (tide_thin_attach(m, &p)) return NULL;
  return m;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, steps = argc > 2 ? atoi(argv[2]) : 6;
  const char *tl = argc > 3 ? argv[3] : "12";
  if (n < 2 || steps < 1) {
    fprintf(stderr, "usage: bench_ipc [n >= 2] [steps >= 1] [threads: digits, e.g. 12]\n");
    return 2;
  }
  printf("bench_ipc: %s, cloth %d x %d cells (%d vertices) onto a sphere, %d steps of 1/100 s\n",
         tide_version_string(), n, n, (n + 1) * (n + 1), steps);
  tide_shape *ball = NULL;
  double c[3] = {0, 0.2, 0};
  if (tide_shape_sphere(3, c, 0.25, &ball)) return 1;
  tide_collider *col = NULL;
  if (tide_collider_new_shape(ball, 0.3, &col)) return 1;
  for (const char *tc = tl; *tc; tc++) {
    int threads = *tc - '0';
    if (threads < 1 || threads > 9) continue;
    omp_set_num_threads(threads);
    for (int contact = 2; contact >= 0; contact--) {
      tide_tetmesh *m = cloth(n);
      if (!m) return 1;
      tide_step_opts o = tide_step_opts_default();
      o.dt = 0.01;
      o.colliders = &col;
      o.ncolliders = 1;
      o.tol = 1e-4;
      o.maxit = 60;
      o.dhat = contact ? 0.5 / n : 0;
      if (contact == 2) o.contact = TIDE_CONTACT_BARRIER, o.mu = 0.3;
      double tot = 0, as = 0, fa = 0, so = 0, bp = 0, cc = 0;
      int its = 0, conv = 0, lim = 0;
      for (int s = 0; s < steps; s++) {
        tide_step_stats st;
        if (tide_solid_step_newton(m, &o, &st)) {
          printf("  step failed: %s\n", tide_errmsg());
          break;
        }
        tot += st.total_seconds, as += st.assemble_seconds, fa += st.factor_seconds;
        so += st.solve_seconds, its += st.iterations, conv += st.converged, lim += st.ccd_limited;
        bp += st.broad_seconds, cc += st.ccd_seconds;
      }
      its = its > 0 ? its : 1;
      printf(
          "  %d thread%s, %-32s: %4d Newton iterations (%d/%d steps converged, CCD shortened %d): "
          "per iteration %.4f s = assembly %.4f + factorization %.4f + solve %.4f + broad phase "
          "%.4f "
          "+ CCD %.4f + rest (barrier, line search) %.4f\n",
          threads, threads > 1 ? "s" : " ",
          contact == 2 ? "self-contact, barrier sphere, mu"
          : contact    ? "self-contact, projected sphere"
                       : "no self-contact (bound)",
          its, conv, steps, lim, tot / its, as / its, fa / its, so / its, bp / its, cc / its,
          (tot - as - fa - so - bp - cc) / its);
      fflush(stdout);
      tide_tetmesh_free(m);
    }
  }
  tide_collider_free(col);
  tide_shape_release(ball);
  return 0;
}
