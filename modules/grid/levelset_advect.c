/*
 * levelset_advect.c -- monotone cubic interpolation and semi-Lagrangian,
 * MacCormack and BFECC advection of cell fields (see levelset.h).
 */
#include "levelset.h"
#include "sdf.h"

#include <math.h>
#include <string.h>

/* limited Hermite cubic through f0 (t = 0) and f1 (t = 1) with neighbours
 * fm (t = -1) and f2 (t = 2) */
static inline double mcubic(double fm, double f0, double f1, double f2, double t) {
  double D = f1 - f0;
  double d0 = 0.5 * (f1 - fm), d1 = 0.5 * (f2 - f0);
  if (D == 0) {
    d0 = d1 = 0;
  } else {
    if (d0 * D <= 0) d0 = 0;
    if (d1 * D <= 0) d1 = 0;
    if (d0 / D > 3) d0 = 3 * D;
    if (d1 / D > 3) d1 = 3 * D;
  }
  double t2 = t * t, t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * f0 + (t3 - 2 * t2 + t) * d0 + (-2 * t3 + 3 * t2) * f1 +
         (t3 - t2) * d1;
}

double tide_lattice_interp_cubic(const tide_lattice *L, const double *x) {
  int b[3];
  double t[3];
  tide_lattice_locate(L, x, b, t);
  /* stencil indices per axis, clamped to the lattice */
  int64_t off[3][4];
  int64_t stride[3] = {(int64_t)L->n[1] * L->n[2], L->n[2], 1};
  for (int d = 0; d < 3; d++)
    for (int s = 0; s < 4; s++) {
      int q = b[d] - 1 + s;
      q = q < 0 ? 0 : q > L->n[d] - 1 ? L->n[d] - 1 : q;
      off[d][s] = q * stride[d];
    }
  /* 2D lattices (n[2] == 1) reduce along z trivially: t[2] = 0 gives f0 */
  double row[4][4];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      const double *p = L->f + off[0][i] + off[1][j];
      row[i][j] =
          L->n[2] > 1 ? mcubic(p[off[2][0]], p[off[2][1]], p[off[2][2]], p[off[2][3]], t[2]) : p[0];
    }
  double col[4];
  for (int i = 0; i < 4; i++)
    col[i] = mcubic(row[i][0], row[i][1], row[i][2], row[i][3], t[1]);
  return mcubic(col[0], col[1], col[2], col[3], t[0]);
}

int tide_grid_sample_cubic(const tide_grid *g, const double *f, int64_t np, const double *x,
                           double *out) {
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, "sample (cubic)");
  if (st) return st;
  if (np < 0 || !f || (np > 0 && (!x || !out)))
    return tide_fail(TIDE_EINVAL, "sample (cubic): missing field, points or output");
  tide_lattice L;
  tide_lattice_cells(g, f, &L);
  int dim = g->dim;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < np; p++) {
    double y[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      y[a] = x[p * dim + a];
    out[p] = tide_lattice_interp_cubic(&L, y);
  }
  return TIDE_OK;
}

tide_advect_opts tide_advect_opts_default(void) {
  tide_advect_opts o = {2, 0, TIDE_ADVECT_SL, 1};
  return o;
}

/* backtrace x through vel over dt: RK2 midpoint or Ralston RK3 */
static inline void backtrace(const tide_mac *vel, int rk, const double *x, double dt, double *x0) {
  int dim = vel->grid.dim;
  double k1[3] = {0, 0, 0}, k2[3] = {0, 0, 0}, y[3] = {x[0], x[1], x[2]};
  tide_mac_velocity(vel, x, k1);
  if (rk == 2) {
    for (int d = 0; d < dim; d++)
      y[d] = x[d] - 0.5 * dt * k1[d];
    tide_mac_velocity(vel, y, k2);
    for (int d = 0; d < dim; d++)
      x0[d] = x[d] - dt * k2[d];
    return;
  }
  double k3[3] = {0, 0, 0};
  for (int d = 0; d < dim; d++)
    y[d] = x[d] - 0.5 * dt * k1[d];
  tide_mac_velocity(vel, y, k2);
  for (int d = 0; d < dim; d++)
    y[d] = x[d] - 0.75 * dt * k2[d];
  tide_mac_velocity(vel, y, k3);
  for (int d = 0; d < dim; d++)
    x0[d] = x[d] - dt * (2.0 / 9 * k1[d] + 3.0 / 9 * k2[d] + 4.0 / 9 * k3[d]);
}

/* one semi-Lagrangian step; lo/hi (optional) receive the range of the 2^dim
 * samples around each backtraced point */
static void sl_step(const tide_grid *g, const tide_mac *vel, const tide_advect_opts *o,
                    const double *f, double dt, double *out, double *lo, double *hi) {
  tide_lattice L;
  tide_lattice_cells(g, f, &L);
  const int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2];
  const int64_t s0 = (int64_t)n1 * n2, s1 = n2;
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        double x[3], x0[3] = {0, 0, 0};
        tide_grid_center(g, i, j, k, x);
        backtrace(vel, o->rk, x, dt, x0);
        int64_t c = tide_grid_idx(g, i, j, k);
        out[c] = o->cubic ? tide_lattice_interp_cubic(&L, x0) : tide_lattice_interp(&L, x0);
        if (lo) {
          int b[3];
          double t[3];
          tide_lattice_locate(&L, x0, b, t);
          double mn = INFINITY, mx = -INFINITY;
          for (int di = 0; di < 2; di++)
            for (int dj = 0; dj < 2; dj++)
              for (int dk = 0; dk < 2; dk++) {
                int ii = b[0] + di, jj = b[1] + dj, kk = b[2] + dk;
                if (ii >= n0 || jj >= n1 || kk >= n2) continue;
                double v = f[ii * s0 + jj * s1 + kk];
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
              }
          lo[c] = mn;
          hi[c] = mx;
        }
      }
}

int tide_levelset_advect(const tide_grid *g, const tide_mac *vel, const double *f, double dt,
                         const tide_advect_opts *oin, double *out) {
  const char *fn = "advect";
  tide_advect_opts o = oin ? *oin : tide_advect_opts_default();
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, fn);
  if (st) return st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "%s: dt must be finite", fn);
  if ((st = tide_mac_check(vel, g, TIDE_F64, "velocity"))) return st;
  if (!f || !out) return tide_fail(TIDE_EINVAL, "%s: missing field or output", fn);
  if (f == out) return tide_fail(TIDE_EINVAL, "%s: out must not alias the field", fn);
  if (o.rk != 2 && o.rk != 3)
    return tide_fail(TIDE_EINVAL, "%s: rk must be 2 or 3, got %d", fn, o.rk);
  if (o.scheme < TIDE_ADVECT_SL || o.scheme > TIDE_ADVECT_BFECC)
    return tide_fail(TIDE_EINVAL, "%s: unknown scheme %d", fn, o.scheme);
  int64_t N = tide_grid_ncells(g);
  if (o.scheme == TIDE_ADVECT_SL) {
    sl_step(g, vel, &o, f, dt, out, NULL, NULL);
    return TIDE_OK;
  }
  size_t bytes = (size_t)N * sizeof(double);
  double *f1 = tide_alloc(bytes), *f0 = tide_alloc(bytes);
  double *lo = o.clamp ? tide_alloc(bytes) : NULL, *hi = o.clamp ? tide_alloc(bytes) : NULL;
  if (!f1 || !f0 || (o.clamp && (!lo || !hi))) {
    st = TIDE_ENOMEM;
    goto done;
  }
  /* lo/hi: range of f around the backtraced points (the same x0 for every
   * forward step) */
  sl_step(g, vel, &o, f, dt, f1, lo, hi);
  sl_step(g, vel, &o, f1, -dt, f0, NULL, NULL);
  if (o.scheme == TIDE_ADVECT_MACCORMACK) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < N; c++) {
      double v = f1[c] + 0.5 * (f[c] - f0[c]);
      if (o.clamp && (v < lo[c] || v > hi[c])) v = f1[c];
      out[c] = v;
    }
  } else {
    /* f0 <- f + (f - f0) / 2, then forward again */
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < N; c++)
      f0[c] = f[c] + 0.5 * (f[c] - f0[c]);
    sl_step(g, vel, &o, f0, dt, out, NULL, NULL);
    if (o.clamp) {
#pragma omp parallel for schedule(static)
      for (int64_t c = 0; c < N; c++)
        if (out[c] < lo[c] || out[c] > hi[c]) out[c] = f1[c];
    }
  }
done:
  tide_free(f1, bytes);
  tide_free(f0, bytes);
  tide_free(lo, lo ? bytes : 0);
  tide_free(hi, hi ? bytes : 0);
  return st;
}
