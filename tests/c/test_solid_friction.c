/* test_solid_friction.c -- IPC's smoothed lagged friction (friction.h):
 * the mollifier (f0' = f1, C^1 joins at eps), the tangent basis, and the
 * per-contact potential's gradient and Hessian against central finite
 * differences for every stencil size (1..4 nodes), 2D and 3D, at rest, in
 * the static (y < eps) and the sliding (y > eps) regime; the Hessian is
 * PSD, the sliding force has the Coulomb magnitude mu lambda, a normal
 * displacement meets no friction.  Fixed seeds; relative error <= 1e-5. */
#include "check.h"
#include "solid/friction.h"
#include "solid/small.h"
#include "tide.h"

#include <string.h>

static uint64_t ctr = 0;
static double rnd(void) { return 2 * tide_rand01(1234, ctr++) - 1; } /* [-1, 1) */

static void test_mollifier(void) {
  double eps = 0.37;
  for (int i = 1; i < 200; i++) {
    double y = i * 0.01, h = 1e-6;
    double fd = (tide_friction_f0(y + h, eps) - tide_friction_f0(y - h, eps)) / (2 * h);
    CHECK(fabs(fd - tide_friction_f1(y, eps)) < 1e-8, "f0' = f1 at y = %g", y);
    double fd1 = (tide_friction_f1(y + h, eps) - tide_friction_f1(y - h, eps)) / (2 * h);
    double f1p = y < eps ? 2 / eps - 2 * y / (eps * eps) : 0;
    if (fabs(y - eps) > 2 * h) CHECK(fabs(fd1 - f1p) < 1e-7, "f1' at y = %g", y);
    CHECK(fabs(tide_friction_f1_over_y(y, eps) * y - tide_friction_f1(y, eps)) < 1e-14, "f1/y");
    CHECK(fabs(tide_friction_f2(y, eps) - f1p) < 1e-14, "f2 = f1' at y = %g", y);
    CHECK(tide_friction_f1(y, eps) >= 0 && tide_friction_f1(y, eps) <= 1, "0 <= f1 <= 1");
  }
  /* joins at eps: value and first derivative continuous, f0(eps) = eps */
  CHECK_NEAR(tide_friction_f0(eps * (1 - 1e-12), eps), eps, 1e-12);
  CHECK_NEAR(tide_friction_f1(eps * (1 - 1e-12), eps), 1, 1e-11);
  CHECK_NEAR(tide_friction_f0(0, eps), eps / 3, 1e-15);
  CHECK_NEAR(tide_friction_f1(0, eps), 0, 0);
  CHECK_NEAR(tide_friction_f1_over_y(0, eps), 2 / eps, 1e-14);
}

static void random_unit(int d, double *N) {
  double l;
  do {
    l = 0;
    for (int k = 0; k < d; k++) {
      N[k] = rnd();
      l += N[k] * N[k];
    }
  } while (l < 0.05);
  for (int k = 0; k < d; k++)
    N[k] /= sqrt(l);
}

static void test_basis(void) {
  for (int d = 2; d <= 3; d++)
    for (int trial = 0; trial < 50; trial++) {
      double N[3], P[6];
      random_unit(d, N);
      if (trial < 3) { /* axis-aligned normals */
        memset(N, 0, sizeof N);
        N[trial % d] = trial % 2 ? -1 : 1;
      }
      tide_friction_tangent_basis(d, N, P);
      int t = d - 1;
      for (int a = 0; a < t; a++) {
        double pn = 0;
        for (int k = 0; k < d; k++)
          pn += P[k * t + a] * N[k];
        CHECK(fabs(pn) < 1e-14, "tangent %d perpendicular to N (d=%d)", a, d);
        for (int b = 0; b < t; b++) {
          double pp = 0;
          for (int k = 0; k < d; k++)
            pp += P[k * t + a] * P[k * t + b];
          CHECK(fabs(pp - (a == b)) < 1e-14, "orthonormal tangents (d=%d)", d);
        }
      }
    }
}

static double min_eig(int n, const double *A) {
  double w[12], Q[144];
  tide_sym_eig(n, A, w, Q);
  return w[n - 1];
}

/* a random contact and a displacement with slip |u| = ratio * eps */
static void random_case(int n, int d, double ratio, double eps, tide_friction_contact *c,
                        double *du) {
  double N[3], w[4];
  random_unit(d, N);
  for (int a = 0; a < n; a++)
    w[a] = a == 0 ? 1 : -(0.2 + 0.6 * fabs(rnd()));
  tide_friction_contact_set(c, n, d, w, N, 0.3 + 0.5 * fabs(rnd()), 2 + 10 * fabs(rnd()));
  int nd = n * d;
  for (int i = 0; i < nd; i++)
    du[i] = rnd();
  double u[2] = {0, 0};
  tide_friction_slip(c, du, u);
  double y = sqrt(u[0] * u[0] + u[1] * u[1]);
  for (int i = 0; i < nd; i++)
    du[i] *= ratio * eps / y;
}

static void test_potential(void) {
  const double ratios[] = {0, 1e-3, 0.3, 0.8, 1.4, 5, 300};
  double eps = 1e-3;
  double worst_g = 0, worst_h = 0;
  for (int d = 2; d <= 3; d++)
    for (int n = 1; n <= 4; n++)
      for (int r = 0; r < 7; r++)
        for (int trial = 0; trial < 4; trial++) {
          tide_friction_contact c;
          double du[12], E, g[12], H[144];
          random_case(n, d, ratios[r] > 0 ? ratios[r] : 1, eps, &c, du);
          if (ratios[r] == 0) memset(du, 0, sizeof du);
          int nd = n * d;
          tide_friction_eval(&c, eps, du, &E, g, H);
          /* central differences of E (gradient) and of the gradient (Hessian) */
          double h = 1e-7 * eps, gfd[12], Hfd[144];
          for (int i = 0; i < nd; i++) {
            double xp[12], xm[12], Ep, Em, gp[12], gm[12];
            memcpy(xp, du, sizeof xp);
            memcpy(xm, du, sizeof xm);
            xp[i] += h;
            xm[i] -= h;
            tide_friction_eval(&c, eps, xp, &Ep, gp, NULL);
            tide_friction_eval(&c, eps, xm, &Em, gm, NULL);
            gfd[i] = (Ep - Em) / (2 * h);
            for (int j = 0; j < nd; j++)
              Hfd[j * nd + i] = (gp[j] - gm[j]) / (2 * h);
          }
          /* the Hessian relative to its natural scale mu lambda / max(|u|, eps)
           * (2D sliding: H = 0, the differences are rounding) */
          double y = ratios[r] * eps;
          double eg = check_relerr(nd, g, gfd, 0);
          double eh = check_relerr(nd * nd, H, Hfd, c.mu_lambda / fmax(y, eps));
          if (ratios[r] > 0) { /* at 0 the slip's direction is undefined for FD of E */
            worst_g = fmax(worst_g, eg);
            CHECK(eg <= 1e-5, "gradient FD n=%d d=%d |u|/eps=%g: %g", n, d, ratios[r], eg);
          }
          worst_h = fmax(worst_h, eh);
          CHECK(eh <= 1e-5, "Hessian FD n=%d d=%d |u|/eps=%g: %g", n, d, ratios[r], eh);
          double sym = 0;
          for (int i = 0; i < nd; i++)
            for (int j = 0; j < nd; j++)
              sym = fmax(sym, fabs(H[i * nd + j] - H[j * nd + i]));
          CHECK(sym == 0, "Hessian symmetric");
          double hmax = 0;
          for (int i = 0; i < nd * nd; i++)
            hmax = fmax(hmax, fabs(H[i]));
          CHECK(min_eig(nd, H) >= -1e-12 * hmax, "Hessian PSD (n=%d d=%d ratio %g)", n, d,
                ratios[r]);
          /* sliding: the force on the slip has the Coulomb magnitude mu lambda:
           * u^T (T^T T)^-1 ... measured on the first node of a 1-node stencil */
          if (n == 1 && ratios[r] > 1) {
            double gn = 0;
            for (int k = 0; k < d; k++)
              gn += g[k] * g[k];
            CHECK(fabs(sqrt(gn) - c.mu_lambda) < 1e-12 * c.mu_lambda, "Coulomb magnitude %g vs %g",
                  sqrt(gn), c.mu_lambda);
            CHECK_NEAR(E, c.mu_lambda * ratios[r] * eps, 1e-12 * E);
          }
        }
  printf("worst relative FD error: gradient %.2e, Hessian %.2e (bound 1e-5)\n", worst_g, worst_h);
}

/* rest and normal displacement: no force, the static stiffness 2 mu lambda/eps */
static void test_rest(void) {
  for (int d = 2; d <= 3; d++) {
    double N[3] = {0.6, 0.8, 0}, du[3], g[3], H[9], E;
    if (d == 3) N[1] = 0, N[2] = 0.8;
    tide_friction_contact c;
    tide_friction_contact_set(&c, 1, d, NULL, N, 0.5, 4);
    for (int k = 0; k < d; k++)
      du[k] = 0.7 * N[k];
    tide_friction_eval(&c, 1e-2, du, &E, g, H);
    for (int k = 0; k < d; k++)
      CHECK(fabs(g[k]) < 1e-12, "no friction from normal motion: %g", g[k]);
    CHECK_NEAR(E, 2 * 1e-2 / 3, 1e-15);
    /* H = 2 mu lambda / eps (I - N N^T) */
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++)
        CHECK_NEAR(H[i * d + j], 2 * 2 / 1e-2 * ((i == j) - N[i] * N[j]), 1e-10);
  }
}

int main(void) {
  test_mollifier();
  test_basis();
  test_potential();
  test_rest();
  return check_report();
}
