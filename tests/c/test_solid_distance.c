/* test_solid_distance.c -- IPC's primitive distances (distance.h):
 * point-triangle and edge-edge (3D), point-edge (2D, 3D) and the edge-edge
 * mollifier.  For random configurations of every distance type (fixed
 * seeds): the squared distance equals the minimum over a dense sampling of
 * the primitives (never above it, within the sampling's resolution), the
 * gradient and Hessian match central differences to a relative error
 * <= 1e-5 (configurations away from type boundaries), and every type
 * occurs.  Parallel edges take an endpoint pair. */
#include "check.h"
#include "solid/distance.h"
#include "tide.h"

#include <string.h>

static uint64_t ctr = 0;
static double rnd(void) { return 2 * tide_rand01(99, ctr++) - 1; }

typedef int (*dist_fn)(const double *x, double *d2, double *g, double *H);

static double fd_errors(dist_fn f, int n, const double *x0, double *eg, double *eH) {
  double x[12], d2, g[12], H[144], gfd[12], Hfd[144];
  memcpy(x, x0, sizeof(double) * (size_t)n);
  int kind = f(x, &d2, g, H);
  double h = 1e-6;
  for (int i = 0; i < n; i++) {
    double dp, dm, gp[12], gm[12];
    x[i] = x0[i] + h;
    int k1 = f(x, &dp, gp, NULL);
    x[i] = x0[i] - h;
    int k2 = f(x, &dm, gm, NULL);
    x[i] = x0[i];
    if (k1 != kind || k2 != kind) return -1; /* straddles a type boundary */
    gfd[i] = (dp - dm) / (2 * h);
    for (int j = 0; j < n; j++) Hfd[j * n + i] = (gp[j] - gm[j]) / (2 * h);
  }
  *eg = check_relerr(n, g, gfd, 1e-12);
  *eH = check_relerr(n * n, H, Hfd, 1e-12);
  return d2;
}

/* brute force: min over samples of |P(s..) - Q(t..)|^2 */
static double brute_pt(const double *x) {
  double best = HUGE_VAL;
  int N = 400;
  for (int i = 0; i <= N; i++)
    for (int j = 0; i + j <= N; j++) {
      double u = (double)i / N, v = (double)j / N, q[3], s = 0;
      for (int k = 0; k < 3; k++) {
        q[k] = x[3 + k] + u * (x[6 + k] - x[3 + k]) + v * (x[9 + k] - x[3 + k]);
        s += (x[k] - q[k]) * (x[k] - q[k]);
      }
      if (s < best) best = s;
    }
  return best;
}

static double brute_ee(const double *x) {
  double best = HUGE_VAL;
  int N = 1000;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++) {
      double u = (double)i / N, v = (double)j / N, s = 0;
      for (int k = 0; k < 3; k++) {
        double p = x[k] + u * (x[3 + k] - x[k]), q = x[6 + k] + v * (x[9 + k] - x[6 + k]);
        s += (p - q) * (p - q);
      }
      if (s < best) best = s;
    }
  return best;
}

static void test_point_triangle(void) {
  int seen[4] = {0, 0, 0, 0};
  for (int trial = 0; trial < 300; trial++) {
    double x[12];
    for (int i = 0; i < 12; i++) x[i] = rnd();
    x[3] = 0, x[4] = 0, x[5] = 0; /* a */
    double d2, g[12], H[144];
    int kind = tide_dist_point_triangle(x, &d2, g, H);
    double eg, eH;
    if (fd_errors(tide_dist_point_triangle, 12, x, &eg, &eH) < 0) continue;
    seen[kind]++;
    CHECK(eg <= 1e-5 && eH <= 1e-5, "point-triangle type %d: gradient %.3g Hessian %.3g", kind, eg,
          eH);
    if (trial < 60) {
      double b = brute_pt(x);
      CHECK(d2 <= b + 1e-12 && d2 >= b - 2e-2 * sqrt(b) - 1e-4, "point-triangle %.9g vs sampled %.9g",
            d2, b);
    }
  }
  printf("point-triangle types seen: PP %d, PE %d, PT %d\n", seen[0], seen[1], seen[2]);
  CHECK(seen[TIDE_DIST_PP] && seen[TIDE_DIST_PE] && seen[TIDE_DIST_PT], "all point-triangle types (%d %d %d)",
        seen[0], seen[1], seen[2]);
}

static void test_edge_edge(void) {
  int seen[4] = {0, 0, 0, 0};
  for (int trial = 0; trial < 300; trial++) {
    double x[12];
    for (int i = 0; i < 12; i++) x[i] = rnd();
    if (trial % 3 == 0) /* b crossing near a's middle: interiors closest */
      for (int k = 0; k < 3; k++) {
        double mid = 0.5 * (x[k] + x[3 + k]) + 0.2 * rnd();
        x[6 + k] = mid - 0.5 * x[9 + k];
        x[9 + k] = mid + 0.5 * x[9 + k];
      }
    double d2, g[12], H[144], eg, eH;
    int kind = tide_dist_edge_edge(x, &d2, g, H);
    if (fd_errors(tide_dist_edge_edge, 12, x, &eg, &eH) < 0) continue;
    seen[kind]++;
    CHECK(eg <= 1e-5 && eH <= 1e-5, "edge-edge type %d: gradient %.3g Hessian %.3g", kind, eg, eH);
    if (trial < 40) {
      double b = brute_ee(x);
      CHECK(d2 <= b + 1e-12 && d2 >= b - 1e-2 * sqrt(b) - 1e-5, "edge-edge %.9g vs sampled %.9g", d2, b);
    }
  }
  printf("edge-edge types seen: PP %d, PE %d, EE %d\n", seen[0], seen[1], seen[3]);
  CHECK(seen[TIDE_DIST_PP] && seen[TIDE_DIST_PE] && seen[TIDE_DIST_EE], "all edge-edge types (%d %d %d)",
        seen[0], seen[1], seen[3]);
  /* parallel edges: an endpoint-edge pair, the right distance */
  double x[12] = {0, 0, 0, 1, 0, 0, 0.5, 0.3, 0, 1.5, 0.3, 0}, d2;
  tide_dist_edge_edge(x, &d2, NULL, NULL);
  CHECK_NEAR(d2, 0.09, 1e-15);
  /* crossing skew edges: the gap */
  double y[12] = {-1, 0, 0, 1, 0, 0, 0, -1, 0.2, 0, 1, 0.2};
  CHECK(tide_dist_edge_edge(y, &d2, NULL, NULL) == TIDE_DIST_EE, "skew interiors");
  CHECK_NEAR(d2, 0.04, 1e-15);
}

static void test_point_edge(void) {
  for (int d = 2; d <= 3; d++) {
    dist_fn f = d == 2 ? tide_dist_point_edge_2d : tide_dist_point_edge_3d;
    int seen[2] = {0, 0};
    for (int trial = 0; trial < 200; trial++) {
      double x[9], eg, eH, d2;
      for (int i = 0; i < 3 * d; i++) x[i] = rnd();
      int kind = f(x, &d2, NULL, NULL);
      if (fd_errors(f, 3 * d, x, &eg, &eH) < 0) continue;
      seen[kind]++;
      CHECK(eg <= 1e-5 && eH <= 1e-5, "point-edge %dD type %d: %.3g %.3g", d, kind, eg, eH);
      /* against the closest point computed directly */
      double t = 0, l2 = 0;
      for (int k = 0; k < d; k++) {
        t += (x[k] - x[d + k]) * (x[2 * d + k] - x[d + k]);
        l2 += (x[2 * d + k] - x[d + k]) * (x[2 * d + k] - x[d + k]);
      }
      t = t / l2 < 0 ? 0 : (t / l2 > 1 ? 1 : t / l2);
      double s = 0;
      for (int k = 0; k < d; k++) {
        double q = x[d + k] + t * (x[2 * d + k] - x[d + k]);
        s += (x[k] - q) * (x[k] - q);
      }
      CHECK(fabs(d2 - s) <= 1e-13 * (1 + s), "point-edge %dD value %.17g vs %.17g", d, d2, s);
    }
    CHECK(seen[0] && seen[1], "point-edge %dD: both types", d);
  }
}

static void test_mollifier(void) {
  for (int trial = 0; trial < 40; trial++) {
    double x[12], rest[12];
    for (int i = 0; i < 12; i++) rest[i] = rnd();
    /* nearly parallel current edges */
    for (int i = 0; i < 12; i++) x[i] = rest[i];
    for (int k = 0; k < 3; k++) {
      x[9 + k] = x[6 + k] + (x[3 + k] - x[k]) * 0.8 + 0.01 * rnd();
    }
    double eps = tide_edge_mollifier_eps(rest), m, g[12], H[144];
    tide_edge_mollifier(x, eps, &m, g, H);
    double h = 1e-7, gfd[12], Hfd[144], xx[12];
    memcpy(xx, x, sizeof xx);
    for (int i = 0; i < 12; i++) {
      double mp, mm, gp[12], gm[12];
      xx[i] = x[i] + h;
      tide_edge_mollifier(xx, eps, &mp, gp, NULL);
      xx[i] = x[i] - h;
      tide_edge_mollifier(xx, eps, &mm, gm, NULL);
      xx[i] = x[i];
      gfd[i] = (mp - mm) / (2 * h);
      for (int j = 0; j < 12; j++) Hfd[j * 12 + i] = (gp[j] - gm[j]) / (2 * h);
    }
    double eg = check_relerr(12, g, gfd, 1e-9), eH = check_relerr(144, H, Hfd, 1e-9);
    CHECK(m >= 0 && m <= 1, "mollifier in [0, 1]");
    CHECK(eg <= 1e-5 && eH <= 1e-5, "mollifier trial %d (m = %.3g): %.3g %.3g", trial, m, eg, eH);
  }
}

int main(void) {
  test_point_triangle();
  test_edge_edge();
  test_point_edge();
  test_mollifier();
  return check_report();
}
