/*
 * friction.c -- IPC's smoothed lagged friction potential (see friction.h;
 * Li et al. 2020, section 5).
 */
#include "solid/friction.h"

#include <math.h>
#include <string.h>

double tide_friction_f0(double y, double eps) {
  if (y >= eps) return y;
  return y * y * (1 - y / (3 * eps)) / eps + eps / 3;
}

double tide_friction_f1(double y, double eps) {
  if (y >= eps) return 1;
  return y * (2 - y / eps) / eps;
}

double tide_friction_f1_over_y(double y, double eps) {
  if (y >= eps) return 1 / y;
  return (2 - y / eps) / eps;
}

double tide_friction_f2(double y, double eps) {
  if (y >= eps) return 0;
  return 2 * (1 - y / eps) / eps;
}

void tide_friction_tangent_basis(int d, const double *N, double *P) {
  if (d == 2) {
    P[0] = -N[1];
    P[1] = N[0];
    return;
  }
  /* the coordinate axis least aligned with N */
  int e = 0;
  double a0 = fabs(N[0]), a1 = fabs(N[1]), a2 = fabs(N[2]);
  if (a1 < a0 && a1 <= a2)
    e = 1;
  else if (a2 < a0 && a2 < a1)
    e = 2;
  double E[3] = {0, 0, 0}, t1[3], t2[3];
  E[e] = 1;
  t1[0] = N[1] * E[2] - N[2] * E[1];
  t1[1] = N[2] * E[0] - N[0] * E[2];
  t1[2] = N[0] * E[1] - N[1] * E[0];
  double l = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
  for (int k = 0; k < 3; k++)
    t1[k] /= l;
  t2[0] = N[1] * t1[2] - N[2] * t1[1];
  t2[1] = N[2] * t1[0] - N[0] * t1[2];
  t2[2] = N[0] * t1[1] - N[1] * t1[0];
  l = sqrt(t2[0] * t2[0] + t2[1] * t2[1] + t2[2] * t2[2]);
  for (int k = 0; k < 3; k++) {
    P[k * 2 + 0] = t1[k];
    P[k * 2 + 1] = t2[k] / l;
  }
}

void tide_friction_contact_set(tide_friction_contact *c, int n, int d, const double *w,
                               const double *N, double mu, double lambda) {
  double P[6];
  int t = d - 1;
  memset(c, 0, sizeof *c);
  c->n = n;
  c->d = d;
  c->mu_lambda = mu * lambda;
  tide_friction_tangent_basis(d, N, P);
  for (int a = 0; a < n; a++) {
    double wa = w ? w[a] : 1;
    for (int k = 0; k < d; k++)
      for (int j = 0; j < t; j++)
        c->T[(a * d + k) * t + j] = wa * P[k * t + j];
  }
}

void tide_friction_slip(const tide_friction_contact *c, const double *du, double *u) {
  int t = c->d - 1, nd = c->n * c->d;
  for (int j = 0; j < t; j++) {
    double s = 0;
    for (int i = 0; i < nd; i++)
      s += c->T[i * t + j] * du[i];
    u[j] = s;
  }
}

void tide_friction_eval(const tide_friction_contact *c, double eps_u, const double *du, double *E,
                        double *grad, double *hess) {
  int t = c->d - 1, nd = c->n * c->d;
  double u[2] = {0, 0};
  tide_friction_slip(c, du, u);
  double y = sqrt(u[0] * u[0] + u[1] * u[1]), ml = c->mu_lambda;
  if (E) *E = ml * tide_friction_f0(y, eps_u);
  if (!grad && !hess) return;
  double f1y = tide_friction_f1_over_y(y, eps_u);
  if (grad) {
    /* mu lambda f1(y)/y T u */
    for (int i = 0; i < nd; i++) {
      double s = 0;
      for (int j = 0; j < t; j++)
        s += c->T[i * t + j] * u[j];
      grad[i] = ml * f1y * s;
    }
  }
  if (hess) {
    /* H_u = mu lambda (f1'(y) uh uh^T + f1(y)/y (I - uh uh^T)), uh = u/y,
     * written as sum_k c_k v_k v_k^T over its eigenvectors so that T H_u T^T
     * = sum_k c_k (T v_k)(T v_k)^T is symmetric and PSD to the last bit */
    double uh[2] = {1, 0}, c2[2], v2[2][2], r[TIDE_FRICTION_MAXND];
    if (y > 0) uh[0] = u[0] / y, uh[1] = u[1] / y;
    int nk = t;
    c2[0] = ml * (y > 0 ? tide_friction_f2(y, eps_u) : f1y);
    v2[0][0] = uh[0], v2[0][1] = uh[1];
    c2[1] = ml * f1y;
    v2[1][0] = -uh[1], v2[1][1] = uh[0];
    memset(hess, 0, (size_t)nd * nd * sizeof(double));
    for (int k = 0; k < nk; k++) {
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int a = 0; a < t; a++)
          s += c->T[i * t + a] * v2[k][a];
        r[i] = s;
      }
      for (int i = 0; i < nd; i++)
        for (int j = 0; j < nd; j++)
          hess[i * nd + j] += c2[k] * (r[i] * r[j]);
    }
  }
}
