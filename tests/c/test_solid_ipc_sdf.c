/* test_solid_ipc_sdf.c -- SDF colliders as IPC barriers (ipc.h,
 * tide_ipc_sdf_*): the node-collider barrier kappa b(d^2, dhat^2) against
 * a sphere and a tilted plane, fixed seeds:
 *   - gradient vs central differences of the energy (relative <= 1e-5);
 *   - Hessian blocks: exact for the plane (vs FD of the gradient, <= 1e-5);
 *     for the sphere the Gauss-Newton block plus the documented dropped
 *     curvature term kappa 2 d b' (I - N N^T) / |x - c| is the FD Hessian;
 *   - pinned and massless nodes are left out;
 *   - normal forces lambda = |grad| / dt^2 and the pressing collider;
 *   - the conservative-advancement step bound: 400 random motions, no
 *     sampled point of the path inside, head-on motions step 0.9 of the
 *     time of impact (plane and sphere, where the distance is linear). */
#include "check.h"
#include "solid/barrier.h"
#include "solid/ipc.h"
#include "tide.h"

#include <string.h>

#define NV 6

static tide_collider *sphere_c, *plane_c;
static const double C[3] = {0.1, -0.2, 0.05}, R = 0.3;
static double PN[3] = {0.3, 1, 0.2}, PP[3] = {0, -0.6, 0};

static void setup(void) {
  tide_shape *s = NULL, *p = NULL;
  double l = sqrt(PN[0] * PN[0] + PN[1] * PN[1] + PN[2] * PN[2]);
  for (int k = 0; k < 3; k++)
    PN[k] /= l;
  CHECK(!tide_shape_sphere(3, C, R, &s) && !tide_collider_new_shape(s, 0.3, &sphere_c), "sphere");
  CHECK(!tide_shape_plane(3, PP, PN, &p) && !tide_collider_new_shape(p, 0.5, &plane_c), "plane");
  tide_shape_release(s);
  tide_shape_release(p);
}

/* node i near collider which (0 sphere, 1 plane) at distance t dhat, a
 * random direction / in-plane offset (seeded) */
static void place(int which, int i, double t, double dhat, double *x) {
  double u[3];
  for (int k = 0; k < 3; k++)
    u[k] = 2 * tide_rand01(71, (uint64_t)(i * 3 + k + which * 100)) - 1;
  if (which == 0) {
    double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++)
      x[k] = C[k] + (R + t * dhat) * u[k] / l;
  } else {
    double un = u[0] * PN[0] + u[1] * PN[1] + u[2] * PN[2];
    for (int k = 0; k < 3; k++)
      x[k] = PP[k] + 0.2 * (u[k] - un * PN[k]) + t * dhat * PN[k];
  }
}

static void test_derivatives(int which) {
  double dhat = 1e-2, kappa = 3.7, x[NV * 3], mass[NV] = {1, 1, 1, 1, 1, 0};
  uint8_t pinned[NV] = {0, 0, 0, 0, 1, 0};
  double tmp[NV];
  tide_collider *cs[1] = {which ? plane_c : sphere_c};
  const double ts[NV] = {0.05, 0.2, 0.5, 0.93, 0.3, 0.3};
  for (int i = 0; i < NV; i++)
    place(which, i, ts[i], dhat, x + 3 * i);
  tide_ipc_sdf s = {cs, 1, dhat, kappa, 3, NV, pinned, mass, tmp};
  double g[NV * 3] = {0}, V[NV * 9] = {0};
  tide_ipc_sdf_derivatives(&s, x, g, V);
  /* pinned (4) and massless (5) nodes left out */
  for (int k = 0; k < 3; k++)
    CHECK(g[12 + k] == 0 && g[15 + k] == 0, "left-out nodes");
  double worst_g = 0, worst_h = 0;
  for (int i = 0; i < 4; i++) {
    double fd[3], H[9], N[3];
    for (int a = 0; a < 3; a++) {
      double h = 1e-6 * dhat, xp[NV * 3], xm[NV * 3];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[i * 3 + a] += h, xm[i * 3 + a] -= h;
      fd[a] = (tide_ipc_sdf_energy(&s, xp) - tide_ipc_sdf_energy(&s, xm)) / (2 * h);
      double gp[NV * 3] = {0}, gm[NV * 3] = {0};
      tide_ipc_sdf_derivatives(&s, xp, gp, NULL);
      tide_ipc_sdf_derivatives(&s, xm, gm, NULL);
      for (int b = 0; b < 3; b++)
        H[b * 3 + a] = (gp[i * 3 + b] - gm[i * 3 + b]) / (2 * h);
    }
    double e = check_relerr(3, g + 3 * i, fd, 0);
    worst_g = fmax(worst_g, e);
    CHECK(e <= 1e-5, "%s node %d: gradient vs FD %.3g", which ? "plane" : "sphere", i, e);
    double Hm[9];
    memcpy(Hm, V + 9 * i, sizeof Hm);
    if (which == 0) { /* add the dropped curvature term of the sphere */
      double d = tide_collider_phi(sphere_c, x + 3 * i, N), r = d + R;
      double db = tide_barrier_gradient(d * d, dhat * dhat);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          Hm[a * 3 + b] += kappa * 2 * d * db * ((a == b) - N[a] * N[b]) / r;
    }
    e = check_relerr(9, Hm, H, 0);
    worst_h = fmax(worst_h, e);
    CHECK(e <= 1e-5, "%s node %d: Hessian vs FD %.3g", which ? "plane" : "sphere", i, e);
    /* PSD: N^T V N >= 0 and the block is rank one along N */
    tide_collider_phi(cs[0], x + 3 * i, N);
    double nvn = 0;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        nvn += N[a] * V[9 * i + a * 3 + b] * N[b];
    CHECK(nvn > 0, "positive normal stiffness");
  }
  printf("%s: worst gradient FD error %.2e, Hessian %.2e\n", which ? "plane" : "sphere", worst_g,
         worst_h);
  /* normal forces */
  double lam[NV], dt = 0.01;
  int32_t body[NV];
  int64_t n = tide_ipc_sdf_forces(&s, x, dt, lam, body);
  CHECK(n == 4, "4 nodes in contact, got %lld", (long long)n);
  for (int i = 0; i < 4; i++) {
    double gl =
        sqrt(g[3 * i] * g[3 * i] + g[3 * i + 1] * g[3 * i + 1] + g[3 * i + 2] * g[3 * i + 2]);
    CHECK_NEAR(lam[i] * dt * dt, gl, 1e-12 * gl);
    CHECK(body[i] == 1, "pressing collider");
  }
  CHECK(lam[4] == 0 && body[4] == 0 && body[5] == 0, "no force on left-out nodes");
  /* the energy is infinite at contact and inside */
  double xi[NV * 3];
  memcpy(xi, x, sizeof xi);
  place(which, 0, -0.1, dhat, xi);
  CHECK(isinf(tide_ipc_sdf_energy(&s, xi)), "inside: +inf");
  double d0 = tide_ipc_sdf_min_distance(&s, x, NULL, NULL);
  CHECK_NEAR(d0, 0.05 * dhat, 1e-9 * dhat);
}

static void test_step_bound(void) {
  double dhat = 1e-2, mass[1] = {1}, tmp[1];
  int bad = 0;
  double worst_head = 0;
  for (int which = 0; which < 2; which++) {
    tide_collider *cs[1] = {which ? plane_c : sphere_c};
    tide_ipc_sdf s = {cs, 1, dhat, 1, 3, 1, NULL, mass, tmp};
    for (int k = 0; k < 200; k++) {
      double x[3], p[3];
      place(which, 1000 + k, 0.01 + 2 * tide_rand01(72, (uint64_t)k), dhat, x);
      double sc = dhat * pow(10, 2 * tide_rand01(73, (uint64_t)k));
      for (int q = 0; q < 3; q++)
        p[q] = sc * (2 * tide_rand01(74, (uint64_t)(k * 3 + q)) - 1);
      double t = tide_ipc_sdf_step_bound(&s, x, p, 1);
      CHECK(t > 0 && t <= 1, "step in (0, 1]: %g", t);
      for (int j = 0; j <= 1000; j++) {
        double y[3];
        for (int q = 0; q < 3; q++)
          y[q] = x[q] + t * j / 1000.0 * p[q];
        if (!(tide_collider_phi(cs[0], y, NULL) > 0)) bad++;
      }
    }
    /* head-on: the distance is linear along the path, the bound 0.9 of the
     * time of impact */
    for (int k = 0; k < 20; k++) {
      double x[3], N[3], p[3];
      place(which, 2000 + k, 0.5, dhat, x);
      double d = tide_collider_phi(cs[0], x, N);
      for (int q = 0; q < 3; q++)
        p[q] = -3 * d * N[q];
      double t = tide_ipc_sdf_step_bound(&s, x, p, 1);
      worst_head = fmax(worst_head, fabs(t - 0.9 / 3) / (0.9 / 3));
    }
  }
  CHECK(bad == 0, "%d sampled path points inside a collider", bad);
  CHECK(worst_head <= 1e-6, "head-on step 0.9 of the impact time: rel err %.3g", worst_head);
  printf("step bound: 400 random motions, %d path points inside; head-on rel err %.2e\n", bad,
         worst_head);
}

int main(void) {
  setup();
  test_derivatives(0);
  test_derivatives(1);
  test_step_bound();
  tide_collider_free(sphere_c);
  tide_collider_free(plane_c);
  return check_report();
}
