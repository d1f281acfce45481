/*
 * barrier.c -- the IPC log barrier and its derivatives (see barrier.h).
 */
#include "solid/barrier.h"

#include <math.h>

double tide_barrier(double d, double dhat) {
  if (d >= dhat) return 0;
  if (!(d > 0)) return INFINITY;
  double r = d - dhat;
  return -r * r * log(d / dhat);
}

double tide_barrier_gradient(double d, double dhat) {
  if (d >= dhat) return 0;
  if (!(d > 0)) return -INFINITY;
  return (dhat - d) * (2 * log(d / dhat) - dhat / d + 1);
}

double tide_barrier_hessian(double d, double dhat) {
  if (d >= dhat) return 0;
  if (!(d > 0)) return INFINITY;
  return (dhat - d) * (3 * d + dhat) / (d * d) - 2 * log(d / dhat);
}

void tide_barrier_eval(double d, double dhat, double *b, double *db, double *ddb) {
  if (b) *b = tide_barrier(d, dhat);
  if (db) *db = tide_barrier_gradient(d, dhat);
  if (ddb) *ddb = tide_barrier_hessian(d, dhat);
}

double tide_barrier_kappa_min(double mavg, double bbox, double dhat) {
  double d0 = 1e-8 * bbox;
  d0 *= d0;
  if (!(d0 > 0) || d0 > 0.5 * dhat) d0 = 0.5 * dhat;
  double h = 4 * d0 * tide_barrier_hessian(d0, dhat);
  return h > 0 ? 1e11 * mavg / h : 1e11 * mavg;
}

double tide_barrier_kappa_init(long n, const double *gE, const double *gB, double kappa_min) {
  double num = 0, den = 0;
  for (long i = 0; i < n; i++) {
    num += gE[i] * gB[i];
    den += gB[i] * gB[i];
  }
  if (!(den > 0)) return kappa_min;
  double k = -num / den;
  if (!(k > kappa_min)) k = kappa_min;
  if (k > 100 * kappa_min) k = 100 * kappa_min;
  return k;
}
