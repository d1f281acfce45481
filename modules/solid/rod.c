/*
 * rod.c -- discrete rod kernels (see thin.h): segment stretching and
 * centreline bending on the curvature binormal of Bergou et al. 2008 (no
 * twist, as Liu et al. 2024 Sec. 4.1 use it).
 */
#include "solid/small.h"
#include "solid/thin.h"

#include <math.h>
#include <string.h>

void tide_rod_stretch(int d, const double *x, double L0, double EA, int project, double *E,
                      double *grad, double *hess) {
  double e[3] = {0, 0, 0}, l2 = 0;
  for (int k = 0; k < d; k++) {
    e[k] = x[d + k] - x[k];
    l2 += e[k] * e[k];
  }
  double l = sqrt(l2), c = EA / L0;
  if (E) *E = 0.5 * c * (l - L0) * (l - L0);
  double eh[3] = {0, 0, 0};
  for (int k = 0; k < d; k++) eh[k] = l > 0 ? e[k] / l : 0;
  if (grad)
    for (int k = 0; k < d; k++) {
      grad[d + k] = c * (l - L0) * eh[k];
      grad[k] = -grad[d + k];
    }
  if (!hess) return;
  /* K = c (e^ e^T + (1 - L0/l)(I - e^ e^T)); eigenvalues c and c (1 - L0/l) */
  double t = l > 0 ? 1 - L0 / l : 0;
  if (project && t < 0) t = 0;
  int n = 2 * d;
  for (int i = 0; i < d; i++)
    for (int k = 0; k < d; k++) {
      double K = c * (eh[i] * eh[k] + t * ((i == k) - eh[i] * eh[k]));
      hess[i * n + k] = hess[(d + i) * n + d + k] = K;
      hess[i * n + d + k] = hess[(d + i) * n + k] = -K;
    }
}

/* s = |a||b| + a.b with its gradient (2d, over y = (a, b)) and Hessian */
static void s_derivs(int d, const double *a, const double *b, double *s, double *gs, double *Hs) {
  double la = 0, lb = 0, ab = 0;
  for (int k = 0; k < d; k++) {
    la += a[k] * a[k];
    lb += b[k] * b[k];
    ab += a[k] * b[k];
  }
  la = sqrt(la), lb = sqrt(lb);
  *s = la * lb + ab;
  int n = 2 * d;
  double ah[3], bh[3];
  for (int k = 0; k < d; k++) {
    ah[k] = a[k] / la;
    bh[k] = b[k] / lb;
    gs[k] = lb * ah[k] + b[k];
    gs[d + k] = la * bh[k] + a[k];
  }
  for (int i = 0; i < d; i++)
    for (int k = 0; k < d; k++) {
      Hs[i * n + k] = lb / la * ((i == k) - ah[i] * ah[k]);
      Hs[(d + i) * n + d + k] = la / lb * ((i == k) - bh[i] * bh[k]);
      Hs[i * n + d + k] = ah[i] * bh[k] + (i == k);
      Hs[(d + k) * n + i] = Hs[i * n + d + k];
    }
}

static double cross_z(const double *a, const double *b) { return a[0] * b[1] - a[1] * b[0]; }

double tide_rod_curvature(int d, const double *x) {
  double a[3], b[3], s = 0;
  for (int k = 0; k < d; k++) {
    a[k] = x[d + k] - x[k];
    b[k] = x[2 * d + k] - x[d + k];
  }
  double la = 0, lb = 0;
  for (int k = 0; k < d; k++) {
    la += a[k] * a[k];
    lb += b[k] * b[k];
    s += a[k] * b[k];
  }
  s += sqrt(la * lb);
  if (d == 2) return 2 * cross_z(a, b) / s;
  double c[3];
  tide_cross3(a, b, c);
  return 2 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) / s;
}

/* the curvature r (3D |kb|, 2D signed kb) with gradient and Hessian over
 * y = (a, b); returns 0 when r's derivatives do not exist (3D, kb = 0:
 * then gr, Hr hold those of q = r^2 instead and *is_q = 1) */
static void curvature_derivs(int d, const double *a, const double *b, double *r, double *gr,
                             double *Hr, int *is_q) {
  int n = 2 * d;
  double s, gs[6], Hs[36];
  s_derivs(d, a, b, &s, gs, Hs);
  *is_q = 0;
  if (d == 2) {
    double c = cross_z(a, b), gc[4] = {b[1], -b[0], -a[1], a[0]};
    double Hc[16] = {0};
    Hc[0 * 4 + 3] = Hc[3 * 4 + 0] = 1;  /* a_x b_y */
    Hc[1 * 4 + 2] = Hc[2 * 4 + 1] = -1; /* a_y b_x */
    *r = 2 * c / s;
    for (int i = 0; i < n; i++) gr[i] = 2 * gc[i] / s - 2 * c * gs[i] / (s * s);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        Hr[i * n + j] = 2 * Hc[i * n + j] / s - 2 * (gc[i] * gs[j] + gs[i] * gc[j]) / (s * s) +
                        4 * c * gs[i] * gs[j] / (s * s * s) - 2 * c * Hs[i * n + j] / (s * s);
    return;
  }
  double c[3];
  tide_cross3(a, b, c);
  /* Jc (3 x 6): dc/da = -[b]x, dc/db = [a]x */
  double Jc[18];
  double Bx[9] = {0, -b[2], b[1], b[2], 0, -b[0], -b[1], b[0], 0};
  double Ax[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      Jc[i * 6 + k] = -Bx[i * 3 + k];
      Jc[i * 6 + 3 + k] = Ax[i * 3 + k];
    }
  double C = c[0] * c[0] + c[1] * c[1] + c[2] * c[2], gC[6], HC[36];
  for (int j = 0; j < 6; j++) {
    double t = 0;
    for (int i = 0; i < 3; i++) t += Jc[i * 6 + j] * c[i];
    gC[j] = 2 * t;
  }
  for (int j = 0; j < 6; j++)
    for (int l = 0; l < 6; l++) {
      double t = 0;
      for (int i = 0; i < 3; i++) t += Jc[i * 6 + j] * Jc[i * 6 + l];
      HC[j * 6 + l] = 2 * t;
    }
  /* sum_i c_i d2c_i / da_j db_k = sum_i c_i eps_ijk */
  static const int eps[3][3][3] = {{{0, 0, 0}, {0, 0, 1}, {0, -1, 0}},
                                   {{0, 0, -1}, {0, 0, 0}, {1, 0, 0}},
                                   {{0, 1, 0}, {-1, 0, 0}, {0, 0, 0}}};
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) {
      double t = 0;
      for (int i = 0; i < 3; i++) t += c[i] * eps[i][j][k];
      HC[j * 6 + 3 + k] += 2 * t;
      HC[(3 + k) * 6 + j] += 2 * t;
    }
  /* q = 4 C / s^2 */
  double q = 4 * C / (s * s), gq[6], Hq[36];
  for (int i = 0; i < 6; i++) gq[i] = 4 * gC[i] / (s * s) - 8 * C * gs[i] / (s * s * s);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++)
      Hq[i * 6 + j] = 4 * HC[i * 6 + j] / (s * s) -
                      8 * (gC[i] * gs[j] + gs[i] * gC[j]) / (s * s * s) +
                      24 * C * gs[i] * gs[j] / (s * s * s * s) - 8 * C * Hs[i * 6 + j] / (s * s * s);
  double rr = sqrt(q);
  *r = rr;
  if (!(rr > 1e-150)) {
    memcpy(gr, gq, sizeof gq);
    memcpy(Hr, Hq, sizeof Hq);
    *is_q = 1;
    return;
  }
  for (int i = 0; i < 6; i++) gr[i] = gq[i] / (2 * rr);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++)
      Hr[i * 6 + j] = Hq[i * 6 + j] / (2 * rr) - gq[i] * gq[j] / (4 * rr * rr * rr);
}

void tide_rod_bend(int d, const double *x, double kbar, double k, int project, double *E,
                   double *grad, double *hess) {
  double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
  for (int i = 0; i < d; i++) {
    a[i] = x[d + i] - x[i];
    b[i] = x[2 * d + i] - x[d + i];
  }
  if (!grad && !hess) {
    double r = tide_rod_curvature(d, x);
    if (E) *E = k * (r - kbar) * (r - kbar);
    return;
  }
  int n = 2 * d;
  double r, gr[6], Hr[36], gE[6], HE[36];
  int is_q;
  curvature_derivs(d, a, b, &r, gr, Hr, &is_q);
  if (E) *E = k * (r - kbar) * (r - kbar);
  if (is_q || (d == 3 && kbar == 0)) {
    /* E = k q (+ k kbar^2 at kb = 0): the smooth form */
    if (!is_q) { /* convert r-derivatives back to q = r^2 */
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) Hr[i * n + j] = 2 * (gr[i] * gr[j] + r * Hr[i * n + j]);
      for (int i = 0; i < n; i++) gr[i] *= 2 * r;
    }
    for (int i = 0; i < n; i++) gE[i] = k * gr[i];
    for (int i = 0; i < n * n; i++) HE[i] = k * Hr[i];
  } else {
    for (int i = 0; i < n; i++) gE[i] = 2 * k * (r - kbar) * gr[i];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        HE[i * n + j] = 2 * k * (gr[i] * gr[j] + (r - kbar) * Hr[i * n + j]);
  }
  /* y = (a, b) -> nodes: a = x1 - x0, b = x2 - x1 */
  static const double ca[3] = {-1, 1, 0}, cb[3] = {0, -1, 1};
  if (grad)
    for (int p = 0; p < 3; p++)
      for (int i = 0; i < d; i++) grad[p * d + i] = ca[p] * gE[i] + cb[p] * gE[d + i];
  if (!hess) return;
  int m = 3 * d;
  for (int p = 0; p < 3; p++)
    for (int i = 0; i < d; i++)
      for (int q = 0; q < 3; q++)
        for (int j = 0; j < d; j++)
          hess[(p * d + i) * m + q * d + j] =
              ca[p] * ca[q] * HE[i * n + j] + ca[p] * cb[q] * HE[i * n + d + j] +
              cb[p] * ca[q] * HE[(d + i) * n + j] + cb[p] * cb[q] * HE[(d + i) * n + d + j];
  if (project) tide_sym_project_psd(m, hess);
}
