/* liu_distance.c -- the vertex-to-liquid distance metric of Liu et al.
 * (Sec. 4.3.1, Eq. 14-16, 21): phi interpolated at the primal cells around a
 * vertex, linearly (Fig. 5) or by quadratic B-splines, with its derivatives
 * with respect to the vertex position and the level-set values (liu.h). */
#include "couple/liu.h"

#include <math.h>

void tide_liu_stencil_base(const tide_grid *g, int interp, const double *x, int base[3]) {
  for (int a = 0; a < 3; a++) {
    base[a] = 0;
    if (a >= g->dim) continue;
    double s = (x[a] - g->origin[a]) / g->dx - 0.5; /* in cell-centre units */
    if (!(s > -1e9)) s = -1e9;                      /* also NaN */
    if (s > 1e9) s = 1e9;
    base[a] = interp == TIDE_LIU_LINEAR ? (int)floor(s) : (int)floor(s + 0.5);
  }
}

/* 1D weights, slopes (d/dt) and curvatures (d2/dt2) at t. */
static int weights1(int interp, double t, double w[3], double dw[3], double ddw[3]) {
  if (interp == TIDE_LIU_LINEAR) {
    w[0] = 1 - t, w[1] = t;
    dw[0] = -1, dw[1] = 1;
    ddw[0] = ddw[1] = 0;
    return 2;
  }
  w[0] = 0.5 * (0.5 - t) * (0.5 - t), w[1] = 0.75 - t * t, w[2] = 0.5 * (0.5 + t) * (0.5 + t);
  dw[0] = t - 0.5, dw[1] = -2 * t, dw[2] = t + 0.5;
  ddw[0] = 1, ddw[1] = -2, ddw[2] = 1;
  return 3;
}

static int clampi(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

/* the per-axis weights, slopes and curvatures (d/dx) of the stencil at x;
 * m: the stencil's extent per axis */
static void stencil_weights(const tide_grid *g, int interp, const int base[3], const double *x,
                            double w[3][3], double dw[3][3], double ddw[3][3], int m[3]) {
  double inv = 1.0 / g->dx;
  for (int a = 0; a < 3; a++) {
    m[a] = 1;
    if (a < g->dim) {
      double t = (x[a] - (g->origin[a] + (base[a] + 0.5) * g->dx)) * inv;
      m[a] = weights1(interp, t, w[a], dw[a], ddw[a]);
      for (int k = 0; k < m[a]; k++)
        dw[a][k] *= inv, ddw[a][k] *= inv * inv;
    } else {
      w[a][0] = 1, dw[a][0] = 0, ddw[a][0] = 0;
    }
  }
}

void tide_liu_distance_at(const tide_grid *g, const double *phi, int interp, const int base[3],
                          const double *x, tide_liu_dist *out) {
  double w[3][3], dw[3][3], ddw[3][3];
  int m[3], off = interp == TIDE_LIU_LINEAR ? 0 : -1;
  stencil_weights(g, interp, base, x, w, dw, ddw, m);
  out->n = m[0] * m[1] * m[2];
  out->d = 0;
  for (int a = 0; a < 3; a++) {
    out->grad[a] = 0;
    for (int b = 0; b < 3; b++)
      out->hess[a][b] = 0;
  }
  int c = 0;
  for (int i = 0; i < m[0]; i++)
    for (int j = 0; j < m[1]; j++)
      for (int k = 0; k < m[2]; k++, c++) {
        int ii = clampi(base[0] + off + i, g->n[0]);
        int jj = clampi(base[1] + off + j, g->n[1]);
        int kk = g->dim == 3 ? clampi(base[2] + off + k, g->n[2]) : 0;
        int64_t id = tide_grid_idx(g, ii, jj, kk);
        int idx[3] = {i, j, k};
        double val[3], der[3], sec[3];
        for (int a = 0; a < 3; a++)
          val[a] = w[a][idx[a]], der[a] = dw[a][idx[a]], sec[a] = ddw[a][idx[a]];
        double wc = val[0] * val[1] * val[2];
        double gw[3] = {der[0] * val[1] * val[2], val[0] * der[1] * val[2],
                        val[0] * val[1] * der[2]};
        double p = phi[id];
        out->cell[c] = id;
        out->w[c] = wc;
        out->d += wc * p;
        for (int a = 0; a < 3; a++) {
          out->dwdx[c][a] = gw[a];
          out->grad[a] += p * gw[a];
          for (int b = 0; b < 3; b++) {
            double h = 1;
            for (int e = 0; e < 3; e++)
              h *= (e == a && e == b) ? sec[e] : (e == a || e == b) ? der[e] : val[e];
            out->hess[a][b] += p * h;
          }
        }
      }
}

double tide_liu_distance_value(const tide_grid *g, const double *phi, int interp,
                               const int base[3], const double *x) {
  double w[3][3], dw[3][3], ddw[3][3];
  int m[3], off = interp == TIDE_LIU_LINEAR ? 0 : -1;
  stencil_weights(g, interp, base, x, w, dw, ddw, m);
  double d = 0;
  for (int i = 0; i < m[0]; i++)
    for (int j = 0; j < m[1]; j++)
      for (int k = 0; k < m[2]; k++) {
        int ii = clampi(base[0] + off + i, g->n[0]);
        int jj = clampi(base[1] + off + j, g->n[1]);
        int kk = g->dim == 3 ? clampi(base[2] + off + k, g->n[2]) : 0;
        double wc = w[0][i] * w[1][j] * w[2][k];
        d += wc * phi[tide_grid_idx(g, ii, jj, kk)];
      }
  return d;
}

int tide_liu_distances(const tide_grid *g, const double *phi, int interp, int64_t np,
                       const double *x, double *d) {
  const char *fn = "liu distances";
  if (interp != TIDE_LIU_LINEAR && interp != TIDE_LIU_QUADRATIC)
    return tide_fail(TIDE_EINVAL, "%s: interp must be linear (1) or quadratic (2), got %d", fn,
                     interp);
  int dim = g->dim;
  for (int64_t v = 0; v < np * dim; v++)
    if (!isfinite(x[v]))
      return tide_fail(TIDE_ENONFINITE, "%s: vertex %lld has a non-finite coordinate", fn,
                       (long long)(v / dim + 1));
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < np; v++) {
    double p[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      p[a] = x[v * dim + a];
    int base[3];
    tide_liu_dist r;
    tide_liu_stencil_base(g, interp, p, base);
    tide_liu_distance_at(g, phi, interp, base, p, &r);
    d[v] = r.d;
  }
  return TIDE_OK;
}
