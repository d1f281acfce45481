/* test_solid_static.c -- the pressure face kernel of the static solver
 * (static.h, tide_pressure_face): the consistent nodal force of a pressure
 * on a segment (2D) / triangle (3D) sums to -p n A, and its derivative (the
 * follower tangent) matches central finite differences of the force for
 * random faces.  Fixed seeds; relative error <= 1e-7. */
#include "check.h"
#include "solid/static.h"
#include "tide.h"

#include <math.h>

static uint64_t ctr = 0;
static double rnd(void) { return 2 * tide_rand01(4321, ctr++) - 1; } /* [-1, 1) */

static void test_face(int d) {
  double worst = 0;
  for (int rep = 0; rep < 50; rep++) {
    double xf[9], f[3], D[27], p = 1 + 1000 * fabs(rnd());
    for (int k = 0; k < d * d; k++)
      xf[k] = rnd();
    tide_pressure_face(d, xf, p, f, D);
    /* the total force d f = -p c, |c| = face area */
    double c[3] = {0, 0, 0}, A = 0;
    if (d == 3) {
      double u[3], w[3];
      for (int k = 0; k < 3; k++)
        u[k] = xf[3 + k] - xf[k], w[k] = xf[6 + k] - xf[k];
      c[0] = 0.5 * (u[1] * w[2] - u[2] * w[1]);
      c[1] = 0.5 * (u[2] * w[0] - u[0] * w[2]);
      c[2] = 0.5 * (u[0] * w[1] - u[1] * w[0]);
    } else {
      c[0] = xf[3] - xf[1], c[1] = -(xf[2] - xf[0]);
    }
    for (int k = 0; k < d; k++)
      A += c[k] * c[k];
    A = sqrt(A);
    for (int k = 0; k < d; k++)
      CHECK_NEAR(d * f[k], -p * c[k], 1e-12 * p * (1 + A));
    /* follower tangent vs central differences */
    double scale = 0;
    for (int k = 0; k < d * d * d; k++)
      scale = fmax(scale, fabs(D[k]));
    for (int b = 0; b < d; b++)
      for (int k = 0; k < d; k++) {
        double h = 1e-6, xp[9], xm[9], fp[3], fm[3];
        for (int q = 0; q < d * d; q++)
          xp[q] = xm[q] = xf[q];
        xp[b * d + k] += h, xm[b * d + k] -= h;
        tide_pressure_face(d, xp, p, fp, NULL);
        tide_pressure_face(d, xm, p, fm, NULL);
        for (int r = 0; r < d; r++) {
          double fd = (fp[r] - fm[r]) / (2 * h), an = D[b * d * d + r * d + k];
          double e = fabs(fd - an) / scale;
          worst = fmax(worst, e);
          CHECK(e < 1e-7, "%dD face %d: df_%d/dx_%d,%d = %g, finite differences %g", d, rep, r, b,
                k, an, fd);
        }
      }
  }
  printf("%dD pressure face: worst relative tangent error %.2e (bound 1e-7)\n", d, worst);
}

int main(void) {
  test_face(2);
  test_face(3);
  return check_report();
}
