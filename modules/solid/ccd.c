/*
 * ccd.c -- additive CCD (see ccd.h).
 */
#include "solid/ccd.h"
#include "solid/distance.h"

#include <math.h>
#include <string.h>

typedef int (*dist_fn)(const double *x, double *d2, double *g, double *H);

/* ACCD for a pair of np points of dimension d, the first n1 of them the
 * first primitive */
static double accd(dist_fn dist, int d, int np, int n1, const double *x0, const double *dx,
                   double xi, double s, double tmax, int max_iter, tide_ccd_work *work) {
  double p[12], x[12], mean[3] = {0, 0, 0};
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
  dist(x, &d2, NULL, NULL);
  double d0 = sqrt(d2) - xi; /* the gap beyond the offset */
  if (!(d0 > 0)) return 0;
  double gap = s * d0; /* the distance kept */
  double t = 0, tl = (1 - s) * d0 / lp;
  int it = 0;
  for (; it < max_iter; it++) {
    for (int i = 0; i < n; i++)
      x[i] += tl * p[i];
    dist(x, &d2, NULL, NULL);
    double dc = sqrt(d2) - xi;
    if (t > 0 && dc < gap) break; /* the last advance went below the kept gap: not taken */
    t += tl;
    if (t >= tmax) break;
    tl = 0.9 * dc / lp; /* the distance stays >= 0.1 dc > 0 over this advance */
  }
  if (work) work->iterations += it + (it < max_iter), work->capped += it == max_iter;
  return t < tmax ? t : tmax;
}

double tide_ccd_point_triangle(const double *x, const double *dx, double s, double tmax,
                               int max_iter) {
  return accd(tide_dist_point_triangle, 3, 4, 1, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_edge_edge(const double *x, const double *dx, double s, double tmax, int max_iter) {
  return accd(tide_dist_edge_edge, 3, 4, 2, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_point_edge_2d(const double *x, const double *dx, double s, double tmax,
                              int max_iter) {
  return accd(tide_dist_point_edge_2d, 2, 3, 1, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_point_edge_3d(const double *x, const double *dx, double s, double tmax,
                              int max_iter) {
  return accd(tide_dist_point_edge_3d, 3, 3, 1, x, dx, 0, s, tmax, max_iter, NULL);
}

double tide_ccd_pair_offset(int kind, const double *x, const double *dx, double xi, double s,
                            double tmax, int max_iter, tide_ccd_work *work) {
  if (kind == 0) return accd(tide_dist_point_triangle, 3, 4, 1, x, dx, xi, s, tmax, max_iter, work);
  if (kind == 1) return accd(tide_dist_edge_edge, 3, 4, 2, x, dx, xi, s, tmax, max_iter, work);
  return accd(tide_dist_point_edge_3d, 3, 3, 1, x, dx, xi, s, tmax, max_iter, work);
}
