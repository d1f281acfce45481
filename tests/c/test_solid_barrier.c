/* test_solid_barrier.c -- the IPC log barrier b(d, dhat) = -(d-dhat)^2 ln(d/dhat):
 * first and second derivatives against central finite differences (relative
 * error <= 1e-5, fixed sample points over 6 decades of dhat and d/dhat in
 * (1e-4, 1)), C2 continuity at dhat, sign/monotonicity/convexity, the
 * limits at 0 and the adaptive stiffness kappa. */
#include "check.h"
#include "solid/barrier.h"
#include "tide.h"

static void test_derivatives(void) {
  const double dhats[] = {1e-6, 1e-3, 1, 1e2};
  for (int a = 0; a < 4; a++)
    for (int k = 0; k < 40; k++) {
      double dhat = dhats[a];
      /* d/dhat log-spread over (1e-4, 0.999) plus a random jitter (seeded) */
      double t = pow(10, -4 + 4 * (k + tide_rand01(15, (uint64_t)(a * 40 + k))) / 40.0);
      if (t > 0.999) t = 0.999;
      double d = t * dhat, h = 1e-6 * fmin(d, dhat - d);
      double b, db, ddb;
      tide_barrier_eval(d, dhat, &b, &db, &ddb);
      double fd1 = (tide_barrier(d + h, dhat) - tide_barrier(d - h, dhat)) / (2 * h);
      double fd2 =
          (tide_barrier_gradient(d + h, dhat) - tide_barrier_gradient(d - h, dhat)) / (2 * h);
      double e1 = fabs(fd1 - db) / fabs(db), e2 = fabs(fd2 - ddb) / fabs(ddb);
      CHECK(e1 <= 1e-5, "b' vs FD at d/dhat=%g dhat=%g: rel err %.3g", t, dhat, e1);
      CHECK(e2 <= 1e-5, "b'' vs FD at d/dhat=%g dhat=%g: rel err %.3g", t, dhat, e2);
      CHECK(b > 0 && db < 0 && ddb > 0, "positive, decreasing, convex at d/dhat=%g", t);
    }
}

static void test_limits(void) {
  double dhat = 1e-3;
  /* zero (with both derivatives) at and beyond dhat: C2 there */
  CHECK(tide_barrier(dhat, dhat) == 0 && tide_barrier_gradient(dhat, dhat) == 0 &&
            tide_barrier_hessian(dhat, dhat) == 0,
        "b, b', b'' vanish at dhat");
  CHECK(tide_barrier(2 * dhat, dhat) == 0 && tide_barrier_hessian(5, dhat) == 0,
        "zero beyond dhat");
  double e = 1e-9 * dhat;
  CHECK(fabs(tide_barrier(dhat - e, dhat)) < 1e-12 * dhat * dhat, "b -> 0 from below");
  CHECK(fabs(tide_barrier_gradient(dhat - e, dhat)) < 1e-8 * dhat, "b' -> 0 from below");
  CHECK(fabs(tide_barrier_hessian(dhat - e, dhat)) < 1e-7, "b'' -> 0 from below");
  /* unbounded at 0, infinite at and below */
  CHECK(tide_barrier(1e-300, dhat) > 1e-3 * dhat * dhat * 600, "grows as d -> 0");
  CHECK(isinf(tide_barrier(0, dhat)) && tide_barrier(0, dhat) > 0, "b(0) = +inf");
  CHECK(isinf(tide_barrier(-1, dhat)) && isinf(tide_barrier_gradient(-1, dhat)) &&
            tide_barrier_gradient(-1, dhat) < 0 && isinf(tide_barrier_hessian(-1, dhat)),
        "d < 0 is infinitely penalised");
  CHECK(isinf(tide_barrier(NAN, dhat)), "NaN distance is not feasible");
}

static void test_kappa(void) {
  double mavg = 0.01, bbox = 1, dhat = 1e-6;
  double kmin = tide_barrier_kappa_min(mavg, bbox, dhat);
  double d0 = 1e-16;
  CHECK_NEAR(kmin, 1e11 * mavg / (4 * d0 * tide_barrier_hessian(d0, dhat)), 1e-12 * kmin);
  double gE[3] = {0, -5, 0}, gB[3] = {0, 1e-3, 0};
  double k = tide_barrier_kappa_init(3, gE, gB, kmin);
  double want = 5e3 > 100 * kmin ? 100 * kmin : (5e3 < kmin ? kmin : 5e3);
  CHECK_NEAR(k, want, 1e-9 * want);
  double z[3] = {0, 0, 0};
  CHECK(tide_barrier_kappa_init(3, gE, z, kmin) == kmin, "no barrier gradient: kappa_min");
  double gE2[3] = {0, 5, 0};
  CHECK(tide_barrier_kappa_init(3, gE2, gB, kmin) == kmin, "aligned gradients: kappa_min");
}

int main(void) {
  test_derivatives();
  test_limits();
  test_kappa();
  return check_report();
}
