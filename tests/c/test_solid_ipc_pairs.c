/* test_solid_ipc_pairs.c -- the contact potential among a mesh's primitives
 * (ipc.h) with lagged friction between the pairs (tide_ipc_friction_lag):
 * two 3 x 3 cloths, the upper one a fraction of dhat above the lower and
 * slightly rotated (point-triangle and edge-edge pairs), fixed seeds:
 *   - gradient of the barrier + friction potential vs central differences
 *     of its energy (relative <= 1e-5) at points displaced tangentially and
 *     normally from the lag point (sliding and sticking friction);
 *   - the lag: at least the 16 upper nodes' pairs are frictional, its
 *     change measure is 1 from none and 0 for the same lag again, mu = 0
 *     turns friction off; the barrier's forces on the two cloths are equal
 *     and opposite;
 *   - the Hessian triplets hold the barrier and the friction blocks;
 * and two exactly parallel rods (no triangles: the edge-edge barrier is
 * mollified to 0), the upper a fraction of dhat above the lower, its nodes
 * over the lower's nodes or over its segments' middles: the point-edge
 * pairs repel (equal and opposite forces, upward on the upper rod), their
 * gradient matches central differences, and the CCD step bound stops the
 * upper rod pushed down through the lower one short of contact.  Both again
 * with a contact offset xi (Codimensional IPC's thickness: rods of radius
 * 5 mm, shells of thickness 1 mm) and the gap beyond it a fraction of dhat:
 * the same checks on the gap (gradient, Hessian along p and friction vs
 * FD, the CCD stop short of the offset), and a rod moved inside the offset
 * is reported touching with the gap -xi/2 and an infinite barrier. */
#include "check.h"
#include "solid/distance.h"
#include "solid/integrate.h"
#include "solid/ipc.h"
#include "solid/thin.h"
#include "solid/thingen.h"
#include "tide.h"

#include <stdlib.h>
#include <string.h>

static tide_tetmesh *two_cloths(double gap) {
  double o1[3] = {0, 0, 0}, u1[3] = {0.3, 0, 0}, v1[3] = {0, 0, 0.3};
  double o2[3] = {0.04, gap, 0.03}, u2[3] = {0.2, 0, 0.02}, v2[3] = {-0.02, 0, 0.2};
  tide_tetmesh *a = NULL, *b = NULL, *m = NULL;
  CHECK(!tide_mesh_sheet(o1, u1, v1, 3, 3, 1, NULL, NULL, 0, &a), "sheet");
  CHECK(!tide_mesh_sheet(o2, u2, v2, 3, 3, 1, NULL, NULL, 0, &b), "sheet");
  double lam, mu;
  tide_lame(1e5, 0.3, &lam, &mu);
  tide_thin_params p = {0};
  p.kind = TIDE_THIN_SHELL;
  p.mat = tide_material_default(TIDE_MODEL_NEOHOOKEAN, mu, lam);
  p.thickness = 1e-3;
  p.bending = 1e-5;
  p.density = 0.5;
  CHECK(!tide_thin_attach(a, &p) && !tide_thin_attach(b, &p), "attach");
  tide_tetmesh *ms[2] = {a, b};
  CHECK(!tide_thin_merge(ms, 2, &m), "merge");
  tide_tetmesh_free(a);
  tide_tetmesh_free(b);
  return m;
}

/* central differences (h = 1e-7) of the contact energy at x into fd (N),
 * xp scratch */
static void fd_gradient(const tide_ipc *c, const double *x, int64_t N, double *xp, double *fd) {
  for (int64_t q = 0; q < N; q++) {
    double h = 1e-7;
    memcpy(xp, x, (size_t)N * sizeof(double));
    xp[q] += h;
    double Ep = tide_ipc_energy(c, xp);
    xp[q] -= 2 * h;
    fd[q] = (Ep - tide_ipc_energy(c, xp)) / (2 * h);
  }
}

/* the barrier's upward force on nodes n0.. nv-1 (the upper body) and its
 * downward force on nodes 0 .. n0-1, from the gradient g */
static void vertical_forces(const double *g, int d, int64_t n0, int64_t nv, double *up,
                            double *down) {
  *up = *down = 0;
  for (int64_t i = n0; i < nv; i++)
    *up -= g[i * d + 1];
  for (int64_t i = 0; i < n0; i++)
    *down += g[i * d + 1];
}

/* two parallel rods of 4 segments along x, the upper gap above the lower,
 * shifted by `shift` along x */
static tide_tetmesh *two_rods(int d, double gap, double shift) {
  double P[30];
  for (int i = 0; i < 5; i++) {
    P[i * d] = 0.1 * i, P[i * d + 1] = 0, P[i * d + d - 1] = d == 3 ? 0 : P[i * d + 1];
    P[(5 + i) * d] = 0.1 * i + shift, P[(5 + i) * d + 1] = gap;
    if (d == 3) P[(5 + i) * d + 2] = 0;
  }
  int64_t start[3] = {0, 5, 10};
  tide_tetmesh *m = NULL;
  CHECK(!tide_mesh_rods(d, 10, P, 2, start, NULL, &m), "rods");
  tide_thin_params p = {0};
  p.kind = TIDE_THIN_ROD;
  p.stretch = 10;
  p.bending = 1e-4;
  p.density = 0.01;
  CHECK(!tide_thin_attach(m, &p), "attach rods");
  return m;
}

static void parallel_rods(int d, double shift, double xi) {
  double dhat = 0.02;
  tide_tetmesh *m = two_rods(d, xi + 0.3 * dhat, shift);
  int64_t nv = m->nv, N = nv * d;
  tide_ipc *c = NULL;
  CHECK(!tide_ipc_new(m, dhat, 50, &c) && !tide_ipc_set_offset(c, xi), "ipc (rods)");
  CHECK(tide_ipc_set_offset(c, -1) == TIDE_EINVAL && tide_ipc_offset(c) == xi, "offset < 0 refused");
  double *x = malloc((size_t)N * sizeof(double)), *g = calloc((size_t)N, sizeof(double));
  double *xp = malloc((size_t)N * sizeof(double)), *fd = malloc((size_t)N * sizeof(double));
  memcpy(x, TIDE_F64P(m->x), (size_t)N * sizeof(double));
  CHECK(!tide_ipc_update(c, x, 0), "update (rods)");
  tide_ipc_gradient(c, x, g);
  double up, down;
  vertical_forces(g, d, 5, nv, &up, &down);
  CHECK(up > 0 && fabs(up - down) <= 1e-9 * up,
        "%dD parallel rods (shift %g): the barrier pushes them apart, equal and opposite: %g %g", d,
        shift, up, down);
  fd_gradient(c, x, N, xp, fd);
  double worst = check_relerr((int)N, g, fd, 0);
  CHECK(worst <= 1e-5, "%dD parallel rods (shift %g, xi %g): gradient vs FD %.3g", d, shift, xi,
        worst);
  int64_t n;
  int *I, *J;
  double *V;
  CHECK(!tide_ipc_hessian(c, x, NULL, &n, &I, &J, &V) && n > 0 && n % (d == 3 ? 144 : 64) == 0,
        "parallel rods: Hessian triplets %lld", (long long)n);
  /* the upper rod pushed down by twice its gap (beyond the offset) and
   * through the offset: the CCD bound stops it short of the offset */
  double *p = calloc((size_t)N, sizeof(double));
  for (int64_t i = 5; i < nv; i++)
    p[i * d + 1] = -0.6 * dhat - xi;
  /* the curvature along p (the pairs' normals: there the projected
   * Hessian is the exact one) vs differences of the gradient */
  double pHp = 0, fdc = 0, hh = 1e-9;
  for (int64_t t = 0; t < n; t++)
    pHp += V[t] * p[I[t]] * p[J[t]];
  for (int sg = -1; sg <= 1; sg += 2) {
    for (int64_t q = 0; q < N; q++)
      xp[q] = x[q] + sg * hh * p[q], fd[q] = 0;
    tide_ipc_gradient(c, xp, fd);
    for (int64_t q = 0; q < N; q++)
      fdc += sg * fd[q] * p[q] / (2 * hh);
  }
  CHECK(fabs(pHp - fdc) <= 1e-5 * fabs(fdc), "%dD parallel rods: p^T H p %.8g vs FD %.8g", d, pHp,
        fdc);
  tide_ipc_triplets_free(n, I, J, V);
  CHECK(!tide_ipc_update(c, x, 0.6 * dhat + xi), "update (motion)");
  double alpha = tide_ipc_step_bound(c, x, p);
  CHECK(alpha > 0 && alpha < 0.5, "%dD parallel rods (shift %g): CCD step %g in (0, 0.5)", d, shift,
        alpha);
  for (int64_t q = 0; q < N; q++)
    xp[q] = x[q] + alpha * p[q];
  int touching = 1, kind = -1;
  int32_t nd[4] = {-1, -1, -1, -1};
  double dmin = tide_ipc_min_distance(c, xp, &touching, &kind, nd);
  CHECK(!touching && dmin > 0.09 * 0.3 * dhat,
        "parallel rods: after the bounded step %g apart beyond the offset %g", dmin, xi);
  /* no pair touches: kind and nodes name the closest pair (nodes of both
   * rods, at the reported gap beyond the offset) */
  {
    int np = kind == 1 ? 4 : 3, ok = kind == 1 || kind == 2;
    double y[12] = {0}, d2 = HUGE_VAL;
    for (int a = 0; ok && a < np; a++) {
      ok = nd[a] >= 0 && nd[a] < nv;
      for (int k = 0; ok && k < d; k++)
        y[a * 3 + k] = xp[nd[a] * d + k];
    }
    ok = ok && (nd[0] < 5) != (nd[np - 1] < 5);
    if (ok) (kind == 1 ? tide_dist_edge_edge : tide_dist_point_edge_3d)(y, &d2, NULL, NULL);
    double dp = sqrt(d2) - xi;
    CHECK(ok && fabs(dp - dmin) <= 1e-12 + 1e-9 * dmin,
          "%dD parallel rods (offset %g): the closest pair reported (kind %d, nodes %d %d | %d, gap "
          "%g vs %g)",
          d, xi, kind, nd[0] + 1, nd[1] + 1, nd[2] + 1, dp, dmin);
  }
  CHECK(isfinite(tide_ipc_energy(c, xp)), "parallel rods: finite barrier after the bounded step");
  if (xi > 0) {
    /* inside the offset (the centrelines apart by xi / 2): the barrier is
     * infinite and the pair is reported touching */
    for (int64_t q = 0; q < N; q++)
      xp[q] = x[q] + (0.3 * dhat + 0.5 * xi) / (0.6 * dhat + xi) * p[q];
    double din = tide_ipc_min_distance(c, xp, &touching, &kind, nd);
    CHECK(touching && din < 0 && fabs(din + 0.5 * xi) < 1e-9,
          "%dD rods inside the offset: touching, gap %g (expected %g)", d, din, -0.5 * xi);
    CHECK(isinf(tide_ipc_energy(c, xp)), "%dD rods inside the offset: infinite barrier", d);
  }
  printf(
      "%dD parallel rods, shift %g, offset %g: force %.4g, gradient FD %.2e, CCD step %.4f, then "
      "%.3g apart beyond the offset\n",
      d, shift, xi, up, worst, alpha, dmin);
  free(p), free(x), free(g), free(xp), free(fd);
  tide_ipc_free(c);
  tide_tetmesh_free(m);
}

/* the two cloths a fraction of dhat apart beyond the offset xi: friction
 * lag, equal and opposite barrier forces, gradient vs FD, triplets */
static void cloths(double xi) {
  double dhat = 0.02, dt = 0.01;
  tide_tetmesh *m = two_cloths(xi + 0.3 * dhat);
  int64_t nv = m->nv, N = nv * 3;
  tide_ipc *c = NULL;
  CHECK(!tide_ipc_new(m, dhat, 50, &c) && !tide_ipc_set_offset(c, xi), "ipc");
  double *xr = malloc((size_t)N * sizeof(double)), *x = malloc((size_t)N * sizeof(double));
  double *g = malloc((size_t)N * sizeof(double)), *xp = malloc((size_t)N * sizeof(double));
  memcpy(xr, TIDE_F64P(m->x), (size_t)N * sizeof(double));
  /* the lag at xr; its normal forces against the barrier's gradient */
  double change = 0;
  CHECK(!tide_ipc_friction_lag(c, xr, xr, 0.4, dt, 1e-2, &change), "lag");
  int64_t nfr = tide_ipc_friction_count(c);
  CHECK(nfr >= 16, "frictional pairs: %lld", (long long)nfr);
  CHECK(change == 1, "first lag: change 1 (from none), got %g", change);
  /* the barrier alone: friction off, then its upward force on the upper cloth */
  double chk;
  CHECK(!tide_ipc_friction_lag(c, xr, xr, 0, dt, 1e-2, &chk) && tide_ipc_friction_count(c) == 0,
        "mu = 0: no friction");
  memset(g, 0, (size_t)N * sizeof(double));
  tide_ipc_gradient(c, xr, g);
  double up, down;
  vertical_forces(g, 3, 16, nv, &up, &down);
  CHECK(up > 0 && fabs(up - down) <= 1e-9 * up, "equal and opposite: %g %g", up, down);
  CHECK(!tide_ipc_friction_lag(c, xr, xr, 0.4, dt, 1e-2, &chk), "lag again");
  CHECK(chk <= 1e-12, "the same lag: no change (%g)", chk);
  /* gradient vs FD at displaced points: sliding (large tangential), sticking
   * (within eps_u), and normal */
  const double scale[3] = {3e-3, 2e-5, 0};
  double worst = 0;
  for (int t = 0; t < 3; t++) {
    memcpy(x, xr, (size_t)N * sizeof(double));
    for (int64_t i = 16; i < nv; i++) {
      x[i * 3] += scale[t] * (1 + 0.3 * tide_rand01(81, (uint64_t)i));
      x[i * 3 + 2] += scale[t] * (0.5 - tide_rand01(82, (uint64_t)i));
      x[i * 3 + 1] += 1e-3 * dhat * (tide_rand01(83, (uint64_t)(i + 100 * t)) - 0.5);
    }
    CHECK(!tide_ipc_update(c, x, 0), "update");
    memset(g, 0, (size_t)N * sizeof(double));
    tide_ipc_gradient(c, x, g);
    double *fd = malloc((size_t)N * sizeof(double));
    fd_gradient(c, x, N, xp, fd);
    double e = check_relerr((int)N, g, fd, 0);
    worst = fmax(worst, e);
    CHECK(e <= 1e-5, "displacement %d: gradient vs FD %.3g", t, e);
    free(fd);
    /* the triplets: barrier blocks and one friction block per pair */
    int64_t n;
    int *I, *J;
    double *V;
    CHECK(!tide_ipc_hessian(c, x, NULL, &n, &I, &J, &V), "hessian");
    CHECK(n >= nfr * 144 && n % 144 == 0, "triplets %lld", (long long)n);
    tide_ipc_triplets_free(n, I, J, V);
  }
  printf("cloths, offset %g: %lld frictional pairs; worst gradient FD error %.2e\n", xi,
         (long long)nfr, worst);
  free(xr), free(x), free(g), free(xp);
  tide_ipc_free(c);
  tide_tetmesh_free(m);
}

int main(void) {
  parallel_rods(3, 0, 0);
  parallel_rods(3, 0.05, 0);
  parallel_rods(2, 0, 0); /* 2D: IPC's point-edge pairs */
  parallel_rods(2, 0.05, 0);
  /* with a contact offset (two rods of radius 5 mm: xi = 1 cm = dhat / 2) */
  parallel_rods(3, 0, 0.01);
  parallel_rods(3, 0.05, 0.01);
  parallel_rods(2, 0, 0.01);
  parallel_rods(2, 0.05, 0.01);
  cloths(0);
  cloths(1e-3); /* two shells of thickness 1 mm: xi = 2 x 0.5 mm */
  return check_report();
}
