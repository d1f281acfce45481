/*
 * ccd.c -- additive CCD (see ccd.h).
 */
#include "solid/ccd.h"
#include "solid/distance.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef int (*dist_fn)(const double *x, double *d2, double *g, double *H);

enum { KIND_PT = 0, KIND_EE = 1, KIND_PE = 2 };

/* The separating-plane bound.  For any unit n, the distance between the
 * two primitives (the convex hulls of their points) is at least
 *     L(tau) = min_{j in B} n . y_j(tau) - max_{i in A} n . y_i(tau)
 *            = min_{i, j} c_ij + tau v_ij,   c_ij = n . (y_j - y_i), v_ij = n . (p_j - p_i),
 * along the straight motion y + tau p: concave and piecewise linear, so the
 * largest tau with L >= target on all of [0, tau] is a minimum of linear
 * roots.  Each c_ij and v_ij is lowered by a bound on its rounding
 * (componentwise).  Returns 0 when L(0) < target, HUGE_VAL when L never
 * falls. */
static double plane_step(int d, int np, int n1, const double *y, const double *p, const double *n,
                         double target) {
  double tau = HUGE_VAL;
  for (int i = 0; i < n1; i++)
    for (int j = n1; j < np; j++) {
      double c = 0, v = 0, ec = 0, ev = 0;
      for (int k = 0; k < d; k++) {
        double a = fabs(n[k]);
        c += n[k] * (y[j * d + k] - y[i * d + k]);
        v += n[k] * (p[j * d + k] - p[i * d + k]);
        ec += a * (fabs(y[j * d + k]) + fabs(y[i * d + k]));
        ev += a * (fabs(p[j * d + k]) + fabs(p[i * d + k]));
      }
      c -= 16 * DBL_EPSILON * ec;
      v -= 16 * DBL_EPSILON * ev;
      if (!(c >= target)) return 0;
      if (v < 0) tau = fmin(tau, (c - target) / -v);
    }
  return tau;
}

static int unit(int d, double *n) {
  double l = 0;
  for (int k = 0; k < d; k++)
    l += n[k] * n[k];
  l = sqrt(l);
  if (!(l > 0) || !isfinite(l)) return 0;
  for (int k = 0; k < d; k++)
    n[k] /= l;
  return 1;
}

static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* n minus its component along e (d = 2 or 3) */
static void reject(int d, double *n, const double *e) {
  double ne = 0, ee = 0;
  for (int k = 0; k < d; k++)
    ne += n[k] * e[k], ee += e[k] * e[k];
  if (ee > 0)
    for (int k = 0; k < d; k++)
      n[k] -= ne / ee * e[k];
}

/* The step from y (positions at the current time) kept by the better of
 * two separating directions: the closest points' direction r (from the
 * gradient g of d^2: minus its sum over the first primitive's points), and
 * the feature's own normal, which rounding leaves accurate at tiny gaps
 * (r's tangential error is ~eps |y| / d): the triangle's normal
 * (point-triangle), e_a x e_b (edge-edge; parallel edges: r without its
 * component along the edge) or r without its component along the segment
 * (point-edge).  Any unit direction bounds the distance, so neither has to
 * be exact. */
static double plane_bound(int kind, int d, int np, int n1, const double *y, const double *p,
                          const double *g, double target) {
  double r[3] = {0, 0, 0}, n[3] = {0, 0, 0}, e[3], f[3], best = 0;
  for (int i = 0; i < n1; i++)
    for (int k = 0; k < d; k++)
      r[k] -= g[i * d + k];
  if (!unit(d, r)) return 0;
  best = plane_step(d, np, n1, y, p, r, target);
  const double *o0 = y, *o1 = y + d; /* n is oriented from o0 to o1 */
  if (kind == KIND_PT) {
    for (int k = 0; k < 3; k++)
      e[k] = y[6 + k] - y[3 + k], f[k] = y[9 + k] - y[3 + k];
    cross(e, f, n);
  } else if (kind == KIND_EE) {
    double ee = 0, ff = 0, nn;
    for (int k = 0; k < 3; k++)
      e[k] = y[3 + k] - y[k], f[k] = y[9 + k] - y[6 + k], ee += e[k] * e[k], ff += f[k] * f[k];
    cross(e, f, n);
    nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (!(nn > 1e-20 * ee * ff)) memcpy(n, r, sizeof r), reject(3, n, e);
    o1 = y + 6;
  } else {
    for (int k = 0; k < d; k++)
      e[k] = y[2 * d + k] - y[d + k], n[k] = r[k];
    reject(d, n, e);
  }
  if (!unit(d, n)) return best;
  double side = 0;
  for (int k = 0; k < d; k++)
    side += n[k] * (o1[k] - o0[k]);
  if (side < 0)
    for (int k = 0; k < d; k++)
      n[k] = -n[k];
  return fmax(best, plane_step(d, np, n1, y, p, n, target));
}

/* Conservative advancement for a pair of np points of dimension d, the
 * first n1 of them the first primitive: from the current time t the pair
 * advances by the larger of ACCD's Lipschitz step, 0.9 d / l_p (the first
 * (1 - s) d0 / l_p), and the separating-plane step (plane_bound, which a
 * sliding pair at a tiny gap passes in one go); an ACCD advance that ends
 * below the kept gap is not taken. */
static double accd(dist_fn dist, int kind, int d, int np, int n1, const double *x0,
                   const double *dx, double xi, double s, double tmax, int max_iter,
                   tide_ccd_work *work) {
  double p[12], x[12], g[12], mean[3] = {0, 0, 0};
  int n = np * d;
  for (int a = 0; a < np; a++)
    for (int k = 0; k < d; k++)
      mean[k] += dx[a * d + k] / np;
  for (int a = 0; a < np; a++)
    for (int k = 0; k < d; k++)
      p[a * d + k] = dx[a * d + k] - mean[k];
  double l1 = 0, l2 = 0;
  for (int a = 0; a < np; a++) {
    double l = 0;
    for (int k = 0; k < d; k++)
      l += p[a * d + k] * p[a * d + k];
    l = sqrt(l);
    if (a < n1)
      l1 = fmax(l1, l);
    else
      l2 = fmax(l2, l);
  }
  double lp = l1 + l2;
  if (!(lp > 0)) return tmax; /* rigid translation: the distance cannot change */
  memcpy(x, x0, sizeof(double) * (size_t)n);
  double d2;
  dist(x, &d2, g, NULL);
  double d0 = sqrt(d2) - xi; /* the gap beyond the offset */
  if (!(d0 > 0)) return 0;
  double gap = s * d0; /* the distance kept */
  double t = 0, dc = d0;
  int it = 0, capped = 1;
  while (capped && it < max_iter) {
    it++;
    double tp = plane_bound(kind, d, np, n1, x, p, g, xi + gap);
    double ta = (t > 0 ? 0.9 * dc : (1 - s) * d0) / lp; /* the gap stays >= 0.1 dc > 0 */
    double tn = t + fmax(tp, ta);
    if (tn >= tmax) {
      t = tmax, capped = 0;
    } else if (tp < ta && t > 0 && dc - gap < 0.1 * (d0 - gap)) {
      /* 90% of the allowed closing used, the plane bound stopped by its
       * rounding margin or the tilt: ACCD would creep on to the kept gap
       * (a pair closing much slower than l_p), so stop here */
      capped = 0;
    } else {
      for (int i = 0; i < n; i++)
        x[i] = x0[i] + tn * dx[i]; /* where the caller's step puts the points */
      dist(x, &d2, g, NULL);
      double dn = sqrt(d2) - xi;
      /* an advance that ends below the kept gap is not taken, but for
       * ACCD's first, which ends >= s d0 by construction (rounding may put
       * it a hair below when the pair closes at exactly l_p) */
      if (dn < gap && (t > 0 || tp >= ta))
        capped = 0;
      else
        t = tn, dc = dn;
    }
  }
  if (work) work->iterations += it, work->capped += capped; /* capped: the loop ran out */
  return t < tmax ? t : tmax;
}

double tide_ccd_point_triangle(const double *x, const double *dx, double s, double tmax,
                               int max_iter) {
  return accd(tide_dist_point_triangle, KIND_PT, 3, 4, 1, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_edge_edge(const double *x, const double *dx, double s, double tmax, int max_iter) {
  return accd(tide_dist_edge_edge, KIND_EE, 3, 4, 2, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_point_edge_2d(const double *x, const double *dx, double s, double tmax,
                              int max_iter) {
  return accd(tide_dist_point_edge_2d, KIND_PE, 2, 3, 1, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_point_edge_3d(const double *x, const double *dx, double s, double tmax,
                              int max_iter) {
  return accd(tide_dist_point_edge_3d, KIND_PE, 3, 3, 1, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_pair_offset(int kind, const double *x, const double *dx, double xi, double s,
                            double tmax, int max_iter, tide_ccd_work *work) {
  if (kind == 0)
    return accd(tide_dist_point_triangle, KIND_PT, 3, 4, 1, x, dx, xi, s, tmax, max_iter, work);
  if (kind == 1)
    return accd(tide_dist_edge_edge, KIND_EE, 3, 4, 2, x, dx, xi, s, tmax, max_iter, work);
  return accd(tide_dist_point_edge_3d, KIND_PE, 3, 3, 1, x, dx, xi, s, tmax, max_iter, work);
}
