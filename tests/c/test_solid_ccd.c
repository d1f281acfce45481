/* test_solid_ccd.c -- additive CCD (ccd.h) on adversarial pairs: a point
 * shot through a triangle's interior, through an edge and a vertex, moving
 * parallel to the face at a tiny gap, touching exactly at t = 1, tiny
 * motions; edges crossing at high speed, parallel edges closing, edges
 * sliding along each other; 2D point-edge the same; random motions (fixed
 * seeds).  Every returned step is checked: along the straight path up to
 * it, at 2000 samples and at the end, the distance (distance.h, exact
 * closest features) stays positive, and at the end >= s d0; the step is
 * 1 for tiny motions far from contact, positive for tangential motion at a
 * tiny gap, and for a head-on crossing within a factor 0.9 (1 - s) of the
 * exact time of impact (no needless shortening).  The same with a minimum
 * separation xi (tide_ccd_pair_offset): never within xi, the gap beyond
 * xi kept the same way. */
#include "check.h"
#include "solid/ccd.h"
#include "solid/distance.h"
#include "tide.h"

#include <math.h>
#include <string.h>

static uint64_t ctr = 0;

/* t minus its component along n */
static void reject3(double *t, const double *n) {
  double tn = t[0] * n[0] + t[1] * n[1] + t[2] * n[2], nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
  for (int k = 0; k < 3; k++)
    t[k] -= tn / nn * n[k];
}
static double rnd(void) { return 2 * tide_rand01(5151, ctr++) - 1; }

typedef int (*dist_fn)(const double *x, double *d2, double *g, double *H);
typedef double (*ccd_fn)(const double *x, const double *dx, double s, double tmax, int max_iter);

/* the minimum distance along [0, t] (samples) and at t */
static double min_along(dist_fn f, int n, const double *x, const double *dx, double t,
                        double *dend) {
  double y[12], d2, m = HUGE_VAL;
  for (int k = 0; k <= 2000; k++) {
    double tt = t * k / 2000.0;
    for (int i = 0; i < n; i++)
      y[i] = x[i] + tt * dx[i];
    f(y, &d2, NULL, NULL);
    m = fmin(m, d2);
    if (k == 2000) *dend = sqrt(d2);
  }
  return sqrt(m);
}

static double check_case(dist_fn f, ccd_fn c, int n, const double *x, const double *dx,
                         const char *what) {
  double s = 0.1, d2;
  f(x, &d2, NULL, NULL);
  double t = c(x, dx, s, 1.0, 10000), dend;
  double m = min_along(f, n, x, dx, t, &dend);
  CHECK(t >= 0 && t <= 1, "%s: step %.3g in [0, 1]", what, t);
  CHECK(m > 0, "%s: the pair stays apart up to t = %.6g (min distance %.3g)", what, t, m);
  CHECK(dend >= s * sqrt(d2) * (1 - 1e-12), "%s: at t the distance %.3g >= s d0 = %.3g", what, dend,
        s * sqrt(d2));
  return t;
}

/* with minimum separation xi: the distance stays > xi along [0, t] and
 * ends >= xi + s (d0 - xi) */
static double check_work(dist_fn f, int kind, int n, const double *x, const double *dx, double xi,
                         int max_iter, tide_ccd_work *w, const char *what) {
  double s = 0.1, d2;
  f(x, &d2, NULL, NULL);
  double t = tide_ccd_pair_offset(kind, x, dx, xi, s, 1.0, max_iter, w), dend;
  double m = min_along(f, n, x, dx, t, &dend), g0 = sqrt(d2) - xi;
  CHECK(t >= 0 && t <= 1, "%s: step %.3g in [0, 1]", what, t);
  CHECK(m > xi, "%s: beyond the offset %.3g up to t = %.6g (min distance %.3g)", what, xi, t, m);
  CHECK(dend - xi >= s * g0 * (1 - 1e-9), "%s: at t the gap %.3g >= s (d0 - xi) = %.3g", what,
        dend - xi, s * g0);
  return t;
}

static double check_offset(dist_fn f, int kind, int n, const double *x, const double *dx, double xi,
                           const char *what) {
  return check_work(f, kind, n, x, dx, xi, 10000, NULL, what);
}

/* a pair at a tiny gap moving mostly tangentially: safe (check_work),
 * the step expected (t == 1, or within the factor of the head-on tests of
 * the exact time texact of reaching s d0), at most maxit iterations, none
 * capped.  ACCD alone needs ~l_p / d iterations here (~1e8). */
static void check_slide(dist_fn f, int kind, int n, const double *x, const double *dx, double xi,
                        double texact, int maxit, const char *what) {
  tide_ccd_work w = {0, 0};
  double t = check_work(f, kind, n, x, dx, xi, 100000, &w, what);
  if (texact >= 1)
    CHECK(t == 1, "%s: the full step (t = %.9g)", what, t);
  else
    CHECK(t >= 0.9 * texact && t <= texact, "%s: t = %.9g vs reaching s d0 at %.9g", what, t,
          texact);
  CHECK(w.iterations <= maxit && w.capped == 0, "%s: %lld iterations (<= %d), %lld capped", what,
        (long long)w.iterations, maxit, (long long)w.capped);
}

int main(void) {
  /* point shot through the triangle's interior at high speed: TOI 0.1 */
  double T[12] = {0.2, 0.2, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  double V[12] = {0, 0, -10, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double t =
      check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, T, V, "point through face");
  CHECK(t >= 0.9 * 0.1 * 0.999 && t < 0.1, "point through face: t = %.6g vs TOI 0.1", t);
  /* ... through an edge and through a vertex */
  double Te[12] = {0.5, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, Te, V, "point through edge");
  double Tv[12] = {0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, Tv, V, "point through vertex");
  /* parallel to the face at a tiny gap: never collides; the Lipschitz
   * bound cannot tell tangential from normal motion, so the step is short
   * but positive (the line search's backtracking takes it from there) */
  double Tp[12] = {-1, 0.3, 1e-9, 0, 0, 0, 1, 0, 0, 0, 1, 0}, Vp[12] = {3, 0, 0};
  t = check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, Tp, Vp, "parallel at 1e-9");
  CHECK(t > 0, "parallel motion: a positive step (t = %.6g)", t);
  /* touching exactly at t = 1 */
  double Vt[12] = {0, 0, -1};
  t = check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, T, Vt, "touch at t = 1");
  CHECK(t < 1, "touching at t = 1 is not allowed (t = %.6g)", t);
  /* tiny motion far from contact */
  double Vs[12] = {1e-12, -1e-12, 1e-12, 0, 0, 0, 0, 0, 0, 0, 0, 1e-12};
  t = check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, T, Vs, "tiny motion");
  CHECK(t == 1, "tiny motion: full step");
  /* the triangle moving onto the point (relative motion) */
  double Vm[12] = {0, 0, 0, 0, 0, 5, 0, 0, 5, 0, 0, 5};
  check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, T, Vm, "triangle onto point");
  /* edges crossing at high speed */
  double E[12] = {-1, 0, 0, 1, 0, 0, 0, -1, 0.5, 0, 1, 0.5},
         VE[12] = {0, 0, 0, 0, 0, 0, 0, 0, -20, 0, 0, -20};
  t = check_case(tide_dist_edge_edge, tide_ccd_edge_edge, 12, E, VE, "edges crossing");
  CHECK(t >= 0.9 * 0.025 * 0.999 && t < 0.025, "edges crossing: t = %.6g vs TOI 0.025", t);
  /* parallel edges closing */
  double P[12] = {0, 0, 0, 1, 0, 0, 0.3, 0.2, 0, 1.3, 0.2, 0},
         VP[12] = {0, 0, 0, 0, 0, 0, 0, -1, 0, 0, -1, 0};
  check_case(tide_dist_edge_edge, tide_ccd_edge_edge, 12, P, VP, "parallel edges closing");
  /* sliding along each other at a small gap: no collision */
  double VS[12] = {0, 0, 0, 0, 0, 0, 2, 0, 0, 2, 0, 0};
  double Ps[12] = {0, 0, 0, 1, 0, 0, 0.3, 1e-6, 0, 1.3, 1e-6, 0};
  t = check_case(tide_dist_edge_edge, tide_ccd_edge_edge, 12, Ps, VS, "edges sliding");
  CHECK(t > 0, "sliding edges: a positive step (t = %.6g)", t);
  /* 2D point-edge */
  double Q[6] = {0.5, 1, 0, 0, 1, 0}, VQ[6] = {0, -3, 0, 0, 0, 0};
  t = check_case(tide_dist_point_edge_2d, tide_ccd_point_edge_2d, 6, Q, VQ,
                 "2D point through edge");
  CHECK(t < 1.0 / 3, "2D: stops before the edge (t = %.6g)", t);
  /* 3D point-edge (a rod's node against another rod's segment): shot
   * through the segment's interior, through its endpoint, and sliding
   * along it at 1e-9 */
  double R[9] = {0.5, 1, 0, 0, 0, 0, 1, 0, 0}, VR[9] = {0, -3, 0, 0, 0, 0, 0, 0, 0};
  t = check_case(tide_dist_point_edge_3d, tide_ccd_point_edge_3d, 9, R, VR,
                 "3D point through edge");
  CHECK(t < 1.0 / 3, "3D point-edge: stops before the edge (t = %.6g)", t);
  double Rv[9] = {1, 1, 0, 0, 0, 0, 1, 0, 0};
  check_case(tide_dist_point_edge_3d, tide_ccd_point_edge_3d, 9, Rv, VR,
             "3D point through endpoint");
  double Rs[9] = {-0.5, 1e-9, 0, 0, 0, 0, 1, 0, 0}, VRs[9] = {2, 0, 0, 0, 0, 0, 0, 0, 0};
  t = check_case(tide_dist_point_edge_3d, tide_ccd_point_edge_3d, 9, Rs, VRs,
                 "3D point sliding along");
  CHECK(t > 0, "3D point sliding along an edge: a positive step (t = %.6g)", t);
  /* random motions */
  for (int trial = 0; trial < 300; trial++) {
    double x[12], dx[12];
    for (int i = 0; i < 12; i++)
      x[i] = rnd(), dx[i] = 2 * rnd();
    char what[64];
    snprintf(what, sizeof what, "random trial %d", trial);
    if (trial % 2)
      check_case(tide_dist_point_triangle, tide_ccd_point_triangle, 12, x, dx, what);
    else
      check_case(tide_dist_edge_edge, tide_ccd_edge_edge, 12, x, dx, what);
  }
  /* minimum separation xi (a contact offset): the point through the face,
   * the crossing edges, the 3D point through a segment and random pairs
   * starting beyond xi never come within xi along the step, end at >= xi +
   * s (d0 - xi), and the head-on step is within 0.9 (1 - s) of the exact
   * time of reaching xi */
  static const dist_fn fk[3] = {tide_dist_point_triangle, tide_dist_edge_edge,
                                tide_dist_point_edge_3d};
  t = check_offset(fk[0], 0, 12, T, V, 0.3, "offset: point through face");
  CHECK(t >= 0.9 * 0.9 * 0.07 * 0.999 && t < 0.07, "offset: t = %.6g vs reaching xi at 0.07", t);
  t = check_offset(fk[1], 1, 12, E, VE, 0.1, "offset: edges crossing");
  CHECK(t >= 0.9 * 0.9 * 0.02 * 0.999 && t < 0.02, "offset edges: t = %.6g vs 0.02", t);
  check_offset(fk[2], 2, 9, R, VR, 0.5, "offset: 3D point through edge");
  check_offset(fk[1], 1, 12, Ps, VS, 0.5e-6, "offset: edges sliding at xi / 2 beyond");
  for (int trial = 0; trial < 300; trial++) {
    double x[12], dx[12], d2;
    for (int i = 0; i < 12; i++)
      x[i] = rnd(), dx[i] = 2 * rnd();
    int kind = trial % 3;
    fk[kind](x, &d2, NULL, NULL);
    char what[64];
    snprintf(what, sizeof what, "offset random trial %d", trial);
    check_offset(fk[kind], kind, kind == 2 ? 9 : 12, x, dx, 0.5 * sqrt(d2), what);
  }
  /* tiny gaps (1e-11 m), tangential motion 1e-3 m (two sheets resting at
   * a small kappa): point over a face, sliding and also closing by 5e-12 m
   * (never below s d0) or by 2e-11 m (s d0 reached at t = 0.45), also
   * beyond an offset xi = 1e-3; skew edges in parallel planes sliding;
   * parallel edges sliding along and across; a point sliding along a
   * segment (3D) and past a 2D edge */
  static const double gs = 1e-11;
  double St[12] = {0.2, 0.2, gs, 0, 0, 0, 1, 0, 0, 0, 1, 0}, SV[12] = {1e-3, 5e-4, 0};
  check_slide(fk[0], 0, 12, St, SV, 0, 1, 2, "slide: point over a face");
  SV[2] = -5e-12;
  check_slide(fk[0], 0, 12, St, SV, 0, 1, 2, "slide: point over a face, closing by d0 / 2");
  SV[2] = -2e-11;
  check_slide(fk[0], 0, 12, St, SV, 0, 0.45, 3, "slide: point over a face, closing by 2 d0");
  double Sx[12] = {0.2, 0.2, 1e-3 + gs, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  check_slide(fk[0], 0, 12, Sx, SV, 1e-3, 0.45, 3, "slide: beyond xi = 1e-3, closing by 2 d0");
  double Se[12] = {0, 0, 0, 1, 0, 0, 0.5, -0.5, gs, 0.5, 0.5, gs},
         SeV[12] = {0, 0, 0, 0, 0, 0, 1e-3, 7e-4, 0, 1e-3, 7e-4, 0};
  check_slide(fk[1], 1, 12, Se, SeV, 0, 1, 2, "slide: skew edges");
  double Sp[12] = {0, 0, 0, 1, 0, 0, 0.3, 0, gs, 1.3, 0, gs},
         SpV[12] = {0, 0, 0, 0, 0, 0, 1e-3, 3e-4, 0, 1e-3, 3e-4, 0};
  check_slide(fk[1], 1, 12, Sp, SpV, 0, 1, 2, "slide: parallel edges");
  double Sr[9] = {0.3, gs, 0, 0, 0, 0, 1, 0, 0}, SrV[9] = {1e-3, 0, 4e-4};
  check_slide(fk[2], 2, 9, Sr, SrV, 0, 1, 2, "slide: point along a segment");
  double S2[6] = {0.3, gs, 0, 0, 1, 0}, S2V[6] = {1e-3, 0, 0, 0, 0, 0};
  tide_ccd_work w2 = {0, 0};
  t = check_case(tide_dist_point_edge_2d, tide_ccd_point_edge_2d, 6, S2, S2V, "slide: 2D");
  CHECK(t == 1, "slide: 2D point along an edge, the full step (t = %.9g)", t);
  /* random tiny-gap slides: a random triangle / edge pair, the point (the
   * second edge) at a gap 1e-12..1e-8 above the face's interior (in a
   * parallel plane through the first edge's interior) moving tangentially
   * by ~1e-3 with a normal component in (-3, 1) d0 and a random
   * deformation of 1e-3 d0: always safe, at most 10 iterations (ACCD alone:
   * ~1e-3 / d0, up to 1e9) */
  int64_t slide_it = 0, slide_n = 0, slide_full = 0;
  for (int trial = 0; trial < 400; trial++) {
    double x[12], dx[12], nrm[3], e1[3], e2[3];
    for (int i = 0; i < 12; i++)
      x[i] = rnd();
    double gap0 = pow(10, -12 + 4 * (0.5 + 0.5 * rnd()));
    if (trial % 2 == 0) { /* point-triangle: p = a + u e1 + v e2 + gap0 n */
      for (int k = 0; k < 3; k++)
        e1[k] = x[6 + k] - x[3 + k], e2[k] = x[9 + k] - x[3 + k];
      nrm[0] = e1[1] * e2[2] - e1[2] * e2[1], nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
      nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
      double u = 0.3 + 0.2 * rnd() * 0.5, v = 0.3 + 0.2 * rnd() * 0.5;
      double l = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
      for (int k = 0; k < 3; k++)
        x[k] = x[3 + k] + u * e1[k] + v * e2[k] + gap0 * nrm[k] / l;
    } else { /* edge-edge: b0, b1 through a point at gap0 above a's midpoint along a x e_b */
      double mid[3], eb[3];
      for (int k = 0; k < 3; k++)
        e1[k] = x[3 + k] - x[k], eb[k] = x[9 + k] - x[6 + k], mid[k] = 0.5 * (x[k] + x[3 + k]);
      nrm[0] = e1[1] * eb[2] - e1[2] * eb[1], nrm[1] = e1[2] * eb[0] - e1[0] * eb[2];
      nrm[2] = e1[0] * eb[1] - e1[1] * eb[0];
      double l = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
      for (int k = 0; k < 3; k++) {
        double c = mid[k] + gap0 * nrm[k] / l;
        x[6 + k] = c - 0.5 * eb[k], x[9 + k] = c + 0.5 * eb[k];
      }
    }
    double d2;
    int kind = trial % 2;
    fk[kind](x, &d2, NULL, NULL);
    double d0 = sqrt(d2), tang[3], vn = d0 * (-1 + 2 * rnd());
    for (int k = 0; k < 3; k++)
      tang[k] = 1e-3 * rnd();
    reject3(tang, nrm);
    for (int a = 0; a < 4; a++)
      for (int k = 0; k < 3; k++) {
        int moving = kind == 0 ? a == 0 : a >= 2;
        dx[3 * a + k] =
            (moving
                 ? tang[k] + vn * nrm[k] / sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2])
                 : 0) +
            1e-3 * d0 * rnd();
      }
    char what[64];
    snprintf(what, sizeof what, "slide random trial %d (gap %.2g)", trial, d0);
    tide_ccd_work w = {0, 0};
    double tt = check_work(fk[kind], kind, 12, x, dx, 0, 100000, &w, what);
    CHECK(w.capped == 0 && w.iterations <= 10, "%s: %lld iterations (t = %.6g)", what,
          (long long)w.iterations, tt);
    slide_it += w.iterations, slide_n++, slide_full += tt == 1;
  }
  printf("random tiny-gap slides: %lld searches, %.2f iterations each, %lld full steps\n",
         (long long)slide_n, (double)slide_it / (double)slide_n, (long long)slide_full);
  /* what the plane bound does not help: a triangle see-sawing under a point
   * at 1e-11 (its vertices' normal motions +-1e-3 m, the foot of the point
   * barely moving): the search hits the cap, says so (capped), and its
   * step is the safe t reached */
  double Sw[12] = {0.25, 0.25, gs, 0, 0, 0, 1, 0, 0, 0, 1, 0},
         SwV[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1e-3, 0, 0, -1e-3};
  t = check_work(fk[0], 0, 12, Sw, SwV, 0, 1000, &w2, "see-saw");
  CHECK(w2.capped == 1 && w2.iterations == 1000 && t > 0 && t < 1,
        "see-saw: capped %lld after %lld iterations, the safe step t = %.3g reached",
        (long long)w2.capped, (long long)w2.iterations, t);
  double z2;
  tide_dist_point_triangle(T, &z2, NULL, NULL);
  CHECK(tide_ccd_pair_offset(0, T, V, sqrt(z2), 0.1, 1, 100, NULL) == 0,
        "offset: a pair at distance xi returns 0");
  return check_report();
}
