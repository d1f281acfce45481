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
  tide_advect_opts o = {2, 0, TIDE_ADVECT_SL, TIDE_ADVECT_CLAMP_REVERT, NULL};
  return o;
}

void tide_advect_work_release(tide_advect_work *w) {
  if (!w) return;
  tide_free(w->buf, w->bytes);
  w->buf = NULL;
  w->bytes = 0;
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

/* The samples being advected: the cell centres (axis < 0) or the faces of
 * axis a (grid.h), as a lattice over the field f. */
static void sample_lattice(const tide_grid *g, int axis, const double *f, tide_lattice *L) {
  if (axis < 0)
    tide_lattice_cells(g, f, L);
  else
    tide_lattice_faces(g, axis, f, L);
}

static inline int64_t lattice_size(const tide_lattice *L) {
  return (int64_t)L->n[0] * L->n[1] * L->n[2];
}

/* Range marks of the corrected schemes: lo > hi means "use the SL value". */
#define RANGE_VOID_LO INFINITY
#define RANGE_VOID_HI (-INFINITY)

/* One semi-Lagrangian step of the samples of `axis` (see sample_lattice):
 * out(x) = I f (x0(x)).  With lo/hi (mark = 0) each sample also receives
 * the range of the 2^dim samples of f around x0, or the void range where
 * valid (may be NULL) fails at the sample or any of those 2^dim samples;
 * with mark = 1 only that validity test is applied (voiding lo/hi, which
 * otherwise keep their values). */
static void sl_step(const tide_grid *g, const tide_mac *vel, const tide_advect_opts *o, int axis,
                    const double *f, double dt, double *out, double *lo, double *hi,
                    const uint8_t *valid, int mark, const uint8_t *sel) {
  tide_lattice L;
  sample_lattice(g, axis, f, &L);
  const int n0 = L.n[0], n1 = L.n[1], n2 = L.n[2];
  const int64_t s0 = (int64_t)n1 * n2, s1 = n2;
  const double dx = g->dx;
#pragma omp parallel for collapse(2) schedule(static) if (lattice_size(&L) > TIDE_PAR_MIN)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        if (sel && !sel[i * s0 + j * s1 + k]) continue; /* outside the region */
        /* cell centre, or face centre (integer offset along the face axis) */
        double x[3] = {0, 0, 0}, x0[3] = {0, 0, 0};
        int c3[3] = {i, j, k};
        for (int d = 0; d < g->dim; d++)
          x[d] = g->origin[d] + (c3[d] + (d == axis ? 0.0 : 0.5)) * dx;
        backtrace(vel, o->rk, x, dt, x0);
        int64_t c = i * s0 + j * s1 + k;
        out[c] = o->cubic ? tide_lattice_interp_cubic(&L, x0) : tide_lattice_interp(&L, x0);
        if (!lo) continue;
        int b[3];
        double t[3];
        tide_lattice_locate(&L, x0, b, t);
        double mn = INFINITY, mx = -INFINITY;
        int ok = !valid || valid[c];
        for (int di = 0; di < 2; di++)
          for (int dj = 0; dj < 2; dj++)
            for (int dk = 0; dk < 2; dk++) {
              int ii = b[0] + di, jj = b[1] + dj, kk = b[2] + dk;
              if (ii >= n0 || jj >= n1 || kk >= n2) continue;
              int64_t q = ii * s0 + jj * s1 + kk;
              double v = f[q];
              mn = v < mn ? v : mn;
              mx = v > mx ? v : mx;
              if (valid && !valid[q]) ok = 0;
            }
        if (!ok) {
          lo[c] = RANGE_VOID_LO;
          hi[c] = RANGE_VOID_HI;
        } else if (!mark) {
          lo[c] = mn;
          hi[c] = mx;
        }
      }
}

/* the corrected value v of a sample whose SL value is sl, range lo..hi */
static inline double limit(double v, double sl, double lo, double hi, int clamp) {
  if (lo > hi) return sl; /* void range: a trace left the valid samples */
  if (clamp == TIDE_ADVECT_CLAMP_REVERT) return v < lo || v > hi ? sl : v;
  if (clamp == TIDE_ADVECT_CLAMP_EXTREMA) return v < lo ? lo : v > hi ? hi : v;
  return v;
}

static int check_opts(const tide_advect_opts *o, const char *fn) {
  if (o->rk != 2 && o->rk != 3)
    return tide_fail(TIDE_EINVAL, "%s: rk must be 2 or 3, got %d", fn, o->rk);
  if (o->cubic != 0 && o->cubic != 1)
    return tide_fail(TIDE_EINVAL, "%s: cubic must be 0 or 1, got %d", fn, o->cubic);
  if (o->scheme < TIDE_ADVECT_SL || o->scheme > TIDE_ADVECT_BFECC)
    return tide_fail(TIDE_EINVAL, "%s: unknown scheme %d", fn, o->scheme);
  if (o->clamp < TIDE_ADVECT_CLAMP_NONE || o->clamp > TIDE_ADVECT_CLAMP_EXTREMA)
    return tide_fail(TIDE_EINVAL, "%s: unknown limiter %d", fn, o->clamp);
  if (o->region && o->scheme == TIDE_ADVECT_BFECC)
    return tide_fail(TIDE_EINVAL,
                     "%s: a region needs the SL or MacCormack scheme (BFECC reads twice as far)",
                     fn);
  return TIDE_OK;
}

/* at least 4 n doubles in w, and 2 n bytes more with a region */
static int work_reserve(tide_advect_work *w, int64_t n, int region) {
  return tide_advect_work_reserve(w, (size_t)n * (4 * sizeof(double) + (region ? 2 : 0)));
}

/* The region's samples of lattice `axis` (cells, or faces with a region
 * cell on either side) in sel, and in grown the same grown by r samples
 * along every axis (a box of half-width r: separable passes per axis). */
static void region_samples(const tide_grid *g, int axis, const uint8_t *region, int r, uint8_t *sel,
                           uint8_t *grown) {
  int n[3] = {g->n[0], g->n[1], g->dim == 3 ? g->n[2] : 1};
  if (axis >= 0) n[axis] += 1;
  const int64_t s[3] = {(int64_t)n[1] * n[2], n[2], 1};
  const int64_t cs[3] = {(int64_t)g->n[1] * (g->dim == 3 ? g->n[2] : 1), g->dim == 3 ? g->n[2] : 1,
                         1};
  const int64_t N = (int64_t)n[0] * n[1] * n[2];
#pragma omp parallel for collapse(2) schedule(static) if (N > TIDE_PAR_MIN)
  for (int i = 0; i < n[0]; i++)
    for (int j = 0; j < n[1]; j++)
      for (int k = 0; k < n[2]; k++) {
        int c[3] = {i, j, k}, in = 0;
        for (int side = 0; side < (axis >= 0 ? 2 : 1) && !in; side++) {
          int q[3] = {i, j, k};
          if (axis >= 0) q[axis] -= side; /* face i: cells i - 1 and i */
          if (axis >= 0 && (q[axis] < 0 || q[axis] >= g->n[axis])) continue;
          in = region[q[0] * cs[0] + q[1] * cs[1] + q[2] * cs[2]] != 0;
        }
        sel[c[0] * s[0] + c[1] * s[1] + c[2]] = (uint8_t)in;
      }
  memcpy(grown, sel, (size_t)N);
  /* per axis: mark every sample within r of a marked one along the axis
   * (distance to the last mark forward, then backward) */
  for (int a = 0; a < 3; a++) {
    if (n[a] == 1 || r <= 0) continue;
    int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2; /* the two other axes */
#pragma omp parallel for collapse(2) schedule(static) if (N > TIDE_PAR_MIN)
    for (int p = 0; p < n[b0]; p++)
      for (int q = 0; q < n[b1]; q++) {
        int64_t base = (int64_t)p * s[b0] + (int64_t)q * s[b1];
        int last = -(1 << 30);
        uint8_t *line_mark = grown;
        /* forward: within r after a mark (marks of this pass's input only) */
        for (int t = 0; t < n[a]; t++) {
          int64_t c = base + (int64_t)t * s[a];
          if (line_mark[c] & 1) last = t;
          if (t - last <= r) line_mark[c] |= 2;
        }
        last = 1 << 30;
        for (int t = n[a] - 1; t >= 0; t--) {
          int64_t c = base + (int64_t)t * s[a];
          if (line_mark[c] & 1) last = t;
          if (last - t <= r) line_mark[c] |= 2;
        }
        for (int t = 0; t < n[a]; t++) {
          int64_t c = base + (int64_t)t * s[a];
          line_mark[c] = (line_mark[c] & 2) ? 1 : 0;
        }
      }
  }
}

int tide_advect_work_reserve(tide_advect_work *w, size_t bytes) {
  if (w->bytes >= bytes) return TIDE_OK;
  tide_advect_work_release(w);
  w->buf = tide_alloc(bytes);
  if (!w->buf) return TIDE_ENOMEM;
  w->bytes = bytes;
  return TIDE_OK;
}

/* Advect the samples of `axis` holding f into out (arguments checked; for
 * the corrected schemes w holds 4 lattice sizes of doubles). */
static void advect_lattice(const tide_grid *g, const tide_mac *vel, int axis, const double *f,
                           double dt, const tide_advect_opts *o, const uint8_t *valid,
                           tide_advect_work *w, double *out) {
  tide_lattice L;
  sample_lattice(g, axis, f, &L);
  const int64_t N = lattice_size(&L);
  double *f1 = w->buf, *f0 = f1 + N, *lo = f0 + N, *hi = lo + N;
  uint8_t *sel = NULL, *grown = NULL;
  if (o->region) {
    /* samples of the region, and those the second pass can read: grown by
     * the largest displacement and the cubic stencil */
    double vmax = 0;
    for (int a = 0; a < g->dim; a++) {
      double m = 0;
      const double *ua = TIDE_F64P(vel->u[a]);
      int64_t na = tide_array_size(vel->u[a]);
#pragma omp parallel for reduction(max : m) schedule(static) if (na > TIDE_PAR_MIN)
      for (int64_t c = 0; c < na; c++)
        m = fmax(m, fabs(ua[c]));
      vmax += m * m;
    }
    double reach = sqrt(vmax) * fabs(dt) / g->dx;
    int r = o->scheme == TIDE_ADVECT_SL ? 0 : (int)fmin(ceil(reach), 1e6) + 3;
    sel = (uint8_t *)(hi + N), grown = sel + N;
    if (o->scheme == TIDE_ADVECT_SL) sel = (uint8_t *)w->buf, grown = sel + N;
    region_samples(g, axis, o->region, r, sel, grown);
#pragma omp parallel for schedule(static) if (N > TIDE_PAR_MIN)
    for (int64_t c = 0; c < N; c++)
      if (!sel[c]) out[c] = f[c];
  }
  if (o->scheme == TIDE_ADVECT_SL) {
    sl_step(g, vel, o, axis, f, dt, out, NULL, NULL, NULL, 0, sel);
    return;
  }
  const int ranged = o->clamp != TIDE_ADVECT_CLAMP_NONE || valid;
  /* forward: SL values and the range around the backtraced points (the
   * same x0 for every forward step); backward: validity of the forward
   * traces only */
  sl_step(g, vel, o, axis, f, dt, f1, ranged ? lo : NULL, hi, valid, 0, grown);
  sl_step(g, vel, o, axis, f1, -dt, f0, valid ? lo : NULL, hi, valid, 1, sel);
  if (o->scheme == TIDE_ADVECT_MACCORMACK) {
#pragma omp parallel for schedule(static) if (N > TIDE_PAR_MIN)
    for (int64_t c = 0; c < N; c++) {
      if (sel && !sel[c]) continue;
      double v = f1[c] + 0.5 * (f[c] - f0[c]);
      out[c] = ranged ? limit(v, f1[c], lo[c], hi[c], o->clamp) : v;
    }
    return;
  }
  /* BFECC (no region: check_opts): f0 <- f + (f - f0) / 2, then forward again */
#pragma omp parallel for schedule(static) if (N > TIDE_PAR_MIN)
  for (int64_t c = 0; c < N; c++)
    f0[c] = f[c] + 0.5 * (f[c] - f0[c]);
  sl_step(g, vel, o, axis, f0, dt, out, NULL, NULL, NULL, 0, NULL);
  if (ranged) {
#pragma omp parallel for schedule(static) if (N > TIDE_PAR_MIN)
    for (int64_t c = 0; c < N; c++)
      out[c] = limit(out[c], f1[c], lo[c], hi[c], o->clamp);
  }
}

int tide_levelset_band_mask(const tide_grid *g, const double *phi, double lo, double hi,
                            uint8_t *mask) {
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, "band mask");
  if (st) return st;
  if (!phi || !mask) return tide_fail(TIDE_EINVAL, "band mask: missing phi or mask");
  if (isnan(lo) || isnan(hi)) return tide_fail(TIDE_EINVAL, "band mask: NaN bound");
  const int64_t N = tide_grid_ncells(g);
#pragma omp parallel for schedule(static) if (N > TIDE_PAR_MIN)
  for (int64_t c = 0; c < N; c++)
    mask[c] = phi[c] > lo && phi[c] < hi;
  return TIDE_OK;
}

int tide_levelset_advect(const tide_grid *g, const tide_mac *vel, const double *f, double dt,
                         const tide_advect_opts *o, double *out) {
  return tide_levelset_advect_cells(g, vel, f, dt, o, NULL, NULL, out);
}

int tide_levelset_advect_cells(const tide_grid *g, const tide_mac *vel, const double *f, double dt,
                               const tide_advect_opts *oin, const uint8_t *valid,
                               tide_advect_work *work, double *out) {
  const char *fn = "advect";
  tide_advect_opts o = oin ? *oin : tide_advect_opts_default();
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, fn);
  if (st) return st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "%s: dt must be finite", fn);
  if ((st = tide_mac_check(vel, g, TIDE_F64, "velocity"))) return st;
  if (!f || !out) return tide_fail(TIDE_EINVAL, "%s: missing field or output", fn);
  if (f == out) return tide_fail(TIDE_EINVAL, "%s: out must not alias the field", fn);
  if ((st = check_opts(&o, fn))) return st;
  tide_advect_work tmp = {NULL, 0}, *w = work ? work : &tmp;
  if ((o.scheme != TIDE_ADVECT_SL || o.region) &&
      (st = work_reserve(w, tide_grid_ncells(g), o.region != NULL)))
    return st;
  advect_lattice(g, vel, -1, f, dt, &o, valid, w, out);
  tide_advect_work_release(&tmp);
  return TIDE_OK;
}

int tide_levelset_advect_mac(const tide_mac *vel, const tide_mac *q, double dt,
                             const tide_advect_opts *oin, const tide_mac *valid,
                             tide_advect_work *work, tide_mac *out) {
  const char *fn = "advect";
  tide_advect_opts o = oin ? *oin : tide_advect_opts_default();
  int st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "%s: dt must be finite", fn);
  if ((st = tide_mac_check(vel, NULL, TIDE_F64, "velocity"))) return st;
  const tide_grid *g = &vel->grid;
  if ((st = tide_mac_check(q, g, TIDE_F64, "field"))) return st;
  if ((st = tide_mac_check(out, g, TIDE_F64, "out"))) return st;
  if (valid && (st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if ((st = check_opts(&o, fn))) return st;
  for (int a = 0; a < g->dim; a++)
    for (int b = 0; b < g->dim; b++)
      if (out->u[a]->buf == q->u[b]->buf || out->u[a]->buf == vel->u[b]->buf)
        return tide_fail(TIDE_EINVAL,
                         "%s: out must not share memory with the advected field or the velocity",
                         fn);
  tide_advect_work tmp = {NULL, 0}, *w = work ? work : &tmp;
  if (o.scheme != TIDE_ADVECT_SL || o.region) {
    int64_t nmax = 0;
    for (int a = 0; a < g->dim; a++) {
      int64_t n = tide_array_size(q->u[a]);
      nmax = n > nmax ? n : nmax;
    }
    if ((st = work_reserve(w, nmax, o.region != NULL))) return st;
  }
  for (int a = 0; a < g->dim; a++)
    advect_lattice(g, vel, a, TIDE_F64P(q->u[a]), dt, &o, valid ? TIDE_U8P(valid->u[a]) : NULL, w,
                   TIDE_F64P(out->u[a]));
  tide_advect_work_release(&tmp);
  return TIDE_OK;
}
