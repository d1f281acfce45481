/* draw2d.c -- the layers of a 2D frame: colour-mapped cell fields, level
 * sets (filled, and contoured by marching squares), labelled cells,
 * particles, arrows and colour bars (see fileio.h). */
#include "fileio.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LUTN 1024

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int check_field(const tide_field2d *f, const char *what) {
  if (!f || !f->v) return tide_fail(TIDE_EINVAL, "%s: no values", what);
  if (f->ni < 1 || f->nj < 1) return tide_fail(TIDE_EINVAL, "%s: empty grid", what);
  if (!(f->dx > 0) || !isfinite(f->dx))
    return tide_fail(TIDE_EINVAL, "%s: cell size must be positive and finite", what);
  return TIDE_OK;
}

/* pixel range [i0, i1) x [j0, j1) covered by the world box [x0,x1]x[y0,y1] */
static void pixel_box(const tide_canvas *c, const tide_view2d *v, double x0, double y0, double x1,
                      double y1, int *i0, int *i1, int *j0, int *j1) {
  *i0 = clampi((int)floor(tide_view2d_x(v, x0)), 0, c->w);
  *i1 = clampi((int)ceil(tide_view2d_x(v, x1)), 0, c->w);
  *j0 = clampi((int)floor(tide_view2d_y(v, y1)), 0, c->h);
  *j1 = clampi((int)ceil(tide_view2d_y(v, y0)), 0, c->h);
}

/* bilinear interpolation of cell-centre values at fractional cell
 * coordinates (fi, fj) (clamped to the centres), with its gradient in
 * cell units */
static double bilinear(const tide_field2d *f, double fi, double fj, double *gi, double *gj) {
  double mi = f->ni - 1, mj = f->nj - 1;
  int ci = 0, cj = 0; /* clamped directions have zero derivative */
  if (fi < 0) fi = 0, ci = 1;
  if (fi > mi) fi = mi, ci = 1;
  if (fj < 0) fj = 0, cj = 1;
  if (fj > mj) fj = mj, cj = 1;
  int i = (int)fi, j = (int)fj;
  if (i > f->ni - 2) i = f->ni - 2;
  if (j > f->nj - 2) j = f->nj - 2;
  if (i < 0) i = 0;
  if (j < 0) j = 0;
  double s = fi - i, t = fj - j;
  int i1 = f->ni > 1 ? i + 1 : i, j1 = f->nj > 1 ? j + 1 : j;
  double a = f->v[(int64_t)i * f->nj + j], b = f->v[(int64_t)i1 * f->nj + j];
  double cc = f->v[(int64_t)i * f->nj + j1], d = f->v[(int64_t)i1 * f->nj + j1];
  if (gi) *gi = ci || f->ni == 1 ? 0 : (1 - t) * (b - a) + t * (d - cc);
  if (gj) *gj = cj || f->nj == 1 ? 0 : (1 - s) * (cc - a) + s * (d - b);
  return (1 - s) * (1 - t) * a + s * (1 - t) * b + (1 - s) * t * cc + s * t * d;
}

int tide_draw_field(tide_canvas *c, const tide_view2d *v, const tide_field2d *f, double lo,
                    double hi, tide_cmap m, int interp) {
  int st = check_field(f, "field");
  if (st) return st;
  if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
    return tide_fail(TIDE_EINVAL, "field range [%g, %g] must be finite with lo < hi", lo, hi);
  float lut[3 * LUTN];
  tide_cmap_lut(m, LUTN, lut);
  double X1 = f->origin[0] + f->ni * f->dx, Y1 = f->origin[1] + f->nj * f->dx;
  int i0, i1, j0, j1;
  pixel_box(c, v, f->origin[0], f->origin[1], X1, Y1, &i0, &i1, &j0, &j1);
  double inv = 1.0 / (hi - lo);
#pragma omp parallel for schedule(static)
  for (int j = j0; j < j1; j++) {
    double y = v->y1 - (j + 0.5 - v->py) / v->s;
    double fj = (y - f->origin[1]) / f->dx;
    if (fj < 0 || fj >= f->nj) continue;
    for (int i = i0; i < i1; i++) {
      double x = v->x0 + (i + 0.5 - v->px) / v->s;
      double fi = (x - f->origin[0]) / f->dx;
      if (fi < 0 || fi >= f->ni) continue;
      double val = interp ? bilinear(f, fi - 0.5, fj - 0.5, NULL, NULL)
                          : f->v[(int64_t)(int)fi * f->nj + (int)fj];
      if (isnan(val)) continue;
      double t = (val - lo) * inv;
      int k = t <= 0 ? 0 : t >= 1 ? LUTN - 1 : (int)lrint(t * (LUTN - 1));
      float *p = c->rgb + 3 * ((int64_t)j * c->w + i);
      p[0] = lut[3 * k], p[1] = lut[3 * k + 1], p[2] = lut[3 * k + 2];
    }
  }
  return TIDE_OK;
}

int tide_clip_segment(double *ax, double *ay, double *bx, double *by, double x0, double y0,
                      double x1, double y1) {
  double t0 = 0, t1 = 1, dx = *bx - *ax, dy = *by - *ay;
  double p[4] = {-dx, dx, -dy, dy}, q[4] = {*ax - x0, x1 - *ax, *ay - y0, y1 - *ay};
  for (int k = 0; k < 4; k++) {
    if (p[k] == 0) {
      if (q[k] < 0) return 0;
      continue;
    }
    double r = q[k] / p[k];
    if (p[k] < 0) {
      if (r > t1) return 0;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return 0;
      if (r < t1) t1 = r;
    }
  }
  double ox = *ax, oy = *ay;
  *ax = ox + t0 * dx, *ay = oy + t0 * dy;
  *bx = ox + t1 * dx, *by = oy + t1 * dy;
  return 1;
}

/* ------------------------------------------------------- marching squares */

int tide_marching_squares(const tide_field2d *f, double iso, double *seg, int64_t cap, int64_t *n) {
  int st = check_field(f, "marching squares");
  if (st) return st;
  int64_t k = 0;
  int nj = f->nj;
  for (int i = 0; i + 1 < f->ni; i++)
    for (int j = 0; j + 1 < nj; j++) {
      /* corners counter-clockwise: 0 (i,j), 1 (i+1,j), 2 (i+1,j+1), 3 (i,j+1) */
      double c[4] = {f->v[(int64_t)i * nj + j], f->v[(int64_t)(i + 1) * nj + j],
                     f->v[(int64_t)(i + 1) * nj + j + 1], f->v[(int64_t)i * nj + j + 1]};
      if (!isfinite(c[0] + c[1] + c[2] + c[3])) continue;
      int code = (c[0] < iso) | (c[1] < iso) << 1 | (c[2] < iso) << 2 | (c[3] < iso) << 3;
      if (code == 0 || code == 15) continue;
      static const int ci[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      double px[4], py[4]; /* crossing on edge e between corners e and e+1 */
      for (int e = 0; e < 4; e++) {
        int a = e, b = (e + 1) & 3;
        if ((c[a] < iso) == (c[b] < iso)) continue;
        double t = (iso - c[a]) / (c[b] - c[a]);
        double ai = i + ci[a][0], aj = j + ci[a][1], bi = i + ci[b][0], bj = j + ci[b][1];
        px[e] = f->origin[0] + (ai + t * (bi - ai) + 0.5) * f->dx;
        py[e] = f->origin[1] + (aj + t * (bj - aj) + 0.5) * f->dx;
      }
      int pairs[2][2], np = 0;
      if (code == 5 || code == 10) { /* saddle: decide by the cell average */
        int centre_in = 0.25 * (c[0] + c[1] + c[2] + c[3]) < iso;
        /* cut off corners 1 and 3 (edges 0-1, 2-3) or corners 0 and 2 (3-0, 1-2) */
        int cut13 = (code == 5) == centre_in;
        if (cut13) {
          pairs[0][0] = 0, pairs[0][1] = 1, pairs[1][0] = 2, pairs[1][1] = 3;
        } else {
          pairs[0][0] = 3, pairs[0][1] = 0, pairs[1][0] = 1, pairs[1][1] = 2;
        }
        np = 2;
      } else {
        int e0 = -1, e1 = -1;
        for (int e = 0; e < 4; e++)
          if ((c[e] < iso) != (c[(e + 1) & 3] < iso)) {
            if (e0 < 0)
              e0 = e;
            else
              e1 = e;
          }
        pairs[0][0] = e0, pairs[0][1] = e1;
        np = 1;
      }
      for (int q = 0; q < np; q++) {
        if (k < cap) {
          seg[4 * k] = px[pairs[q][0]];
          seg[4 * k + 1] = py[pairs[q][0]];
          seg[4 * k + 2] = px[pairs[q][1]];
          seg[4 * k + 3] = py[pairs[q][1]];
        }
        k++;
      }
    }
  *n = k;
  if (k > cap)
    return tide_fail(TIDE_EINVAL, "marching squares: %lld segments, room for %lld", (long long)k,
                     (long long)cap);
  return TIDE_OK;
}

int tide_draw_levelset(tide_canvas *c, const tide_view2d *v, const tide_field2d *phi,
                       const float fill[3], float fill_alpha, const float line[3], double line_w,
                       int64_t *nseg) {
  int st = check_field(phi, "level set");
  if (st) return st;
  if (nseg) *nseg = 0;
  if (fill_alpha > 0) {
    int i0, i1, j0, j1;
    pixel_box(c, v, phi->origin[0], phi->origin[1], phi->origin[0] + phi->ni * phi->dx,
              phi->origin[1] + phi->nj * phi->dx, &i0, &i1, &j0, &j1);
    double cells_per_px = 1.0 / (v->s * phi->dx);
#pragma omp parallel for schedule(static)
    for (int j = j0; j < j1; j++) {
      double y = v->y1 - (j + 0.5 - v->py) / v->s;
      double fj = (y - phi->origin[1]) / phi->dx;
      if (fj < 0 || fj > phi->nj) continue;
      for (int i = i0; i < i1; i++) {
        double x = v->x0 + (i + 0.5 - v->px) / v->s;
        double fi = (x - phi->origin[0]) / phi->dx;
        if (fi < 0 || fi > phi->ni) continue;
        double gi, gj;
        double p = bilinear(phi, fi - 0.5, fj - 0.5, &gi, &gj);
        if (isnan(p)) continue;
        /* signed distance in pixels: phi / |grad phi| (per cell) / cells per pixel */
        double g = sqrt(gi * gi + gj * gj);
        double a;
        if (g > 1e-12 * fabs(p) && g > 0)
          a = 0.5 - (p / g) / cells_per_px;
        else
          a = p < 0 ? 1 : 0;
        a = a < 0 ? 0 : a > 1 ? 1 : a;
        if (a > 0) {
          float *q = c->rgb + 3 * ((int64_t)j * c->w + i);
          float fa = fill_alpha * (float)a;
          q[0] += fa * (fill[0] - q[0]);
          q[1] += fa * (fill[1] - q[1]);
          q[2] += fa * (fill[2] - q[2]);
        }
      }
    }
  }
  if (line_w > 0) {
    /* the lattice extended by one node on each side holding the border
     * values (constant extrapolation), so the contour runs on to the
     * domain walls; segments are clipped to the domain */
    int ni = phi->ni + 2, nj = phi->nj + 2;
    size_t vbytes = sizeof(double) * (size_t)ni * nj;
    int64_t cap = 2 * (int64_t)(ni - 1) * (nj - 1), n = 0;
    size_t bytes = (size_t)cap * 4 * sizeof(double);
    double *ext = tide_alloc(vbytes), *seg = tide_alloc(bytes);
    if (!ext || !seg) {
      tide_free(ext, vbytes);
      tide_free(seg, bytes);
      return TIDE_ENOMEM;
    }
    for (int i = 0; i < ni; i++)
      for (int j = 0; j < nj; j++) {
        int ci = i - 1 < 0 ? 0 : i - 1 >= phi->ni ? phi->ni - 1 : i - 1;
        int cj = j - 1 < 0 ? 0 : j - 1 >= phi->nj ? phi->nj - 1 : j - 1;
        ext[(int64_t)i * nj + j] = phi->v[(int64_t)ci * phi->nj + cj];
      }
    tide_field2d e = {ni, nj, phi->dx, {phi->origin[0] - phi->dx, phi->origin[1] - phi->dx}, ext};
    st = tide_marching_squares(&e, 0.0, seg, cap, &n);
    double X0 = phi->origin[0], Y0 = phi->origin[1];
    double X1 = X0 + phi->ni * phi->dx, Y1 = Y0 + phi->nj * phi->dx;
    int64_t drawn = 0;
    if (!st)
      for (int64_t k = 0; k < n; k++) {
        double *q = seg + 4 * k;
        if (!tide_clip_segment(&q[0], &q[1], &q[2], &q[3], X0, Y0, X1, Y1)) continue;
        if (q[0] == q[2] && q[1] == q[3]) continue;
        tide_canvas_line(c, tide_view2d_x(v, q[0]), tide_view2d_y(v, q[1]), tide_view2d_x(v, q[2]),
                         tide_view2d_y(v, q[3]), line_w, line, 1);
        drawn++;
      }
    tide_free(ext, vbytes);
    tide_free(seg, bytes);
    if (nseg) *nseg = drawn;
  }
  return st;
}

int tide_draw_cells(tide_canvas *c, const tide_view2d *v, int ni, int nj, double dx,
                    const double origin[2], const uint8_t *labels, uint8_t label,
                    const float col[3], float alpha) {
  if (ni < 1 || nj < 1 || !(dx > 0)) return tide_fail(TIDE_EINVAL, "cells: bad grid");
  /* coverage of the union of the cells by 4 x 4 samples per pixel, so
   * neighbouring cells meet without seams */
  int i0, i1, j0, j1;
  pixel_box(c, v, origin[0], origin[1], origin[0] + ni * dx, origin[1] + nj * dx, &i0, &i1, &j0,
            &j1);
#pragma omp parallel for schedule(static)
  for (int j = j0; j < j1; j++)
    for (int i = i0; i < i1; i++) {
      int hits = 0;
      for (int sj = 0; sj < 4; sj++) {
        double y = v->y1 - (j + (sj + 0.5) / 4 - v->py) / v->s;
        double fj = (y - origin[1]) / dx;
        if (fj < 0 || fj >= nj) continue;
        for (int si = 0; si < 4; si++) {
          double x = v->x0 + (i + (si + 0.5) / 4 - v->px) / v->s;
          double fi = (x - origin[0]) / dx;
          if (fi < 0 || fi >= ni) continue;
          hits += labels[(int64_t)(int)fi * nj + (int)fj] == label;
        }
      }
      if (hits) tide_canvas_blend(c, i, j, col, alpha * hits / 16.0f);
    }
  return TIDE_OK;
}

int tide_draw_particles(tide_canvas *c, const tide_view2d *v, int64_t n, const double *pos,
                        const double *values, double lo, double hi, tide_cmap m, double r,
                        const float col[3], float alpha) {
  if (n < 0) return tide_fail(TIDE_EINVAL, "particles: negative count");
  if (!(r > 0) || !isfinite(r)) return tide_fail(TIDE_EINVAL, "particles: radius must be positive");
  if (values && (!isfinite(lo) || !isfinite(hi) || !(hi > lo)))
    return tide_fail(TIDE_EINVAL, "particle colour range [%g, %g] must have lo < hi", lo, hi);
  float lut[3 * LUTN];
  tide_cmap_lut(m, LUTN, lut);
  double inv = values ? 1.0 / (hi - lo) : 0;
  /* row bands, one per thread, each drawing all discs in order: the same
   * picture for any thread count */
#pragma omp parallel
  {
    int b0, b1;
    tide_thread_band(c->h, &b0, &b1);
    for (int64_t p = 0; p < n; p++) {
      double cx = tide_view2d_x(v, pos[2 * p]), cy = tide_view2d_y(v, pos[2 * p + 1]);
      if (!isfinite(cx) || !isfinite(cy)) continue;
      if (cy + r + 1 < b0 || cy - r - 1 > b1) continue;
      const float *cc = col;
      if (values) {
        double t = (values[p] - lo) * inv;
        if (isnan(t)) continue;
        int k = t <= 0 ? 0 : t >= 1 ? LUTN - 1 : (int)lrint(t * (LUTN - 1));
        cc = lut + 3 * k;
      }
      /* draw the part of the disc inside this band */
      double rr = r < 0.5 ? 0.5 : r;
      float a = r < 0.5 ? alpha * (float)(r * r / 0.25) : alpha;
      int i0 = clampi((int)floor(cx - rr - 1), 0, c->w),
          i1 = clampi((int)ceil(cx + rr + 1), 0, c->w);
      int j0 = clampi((int)floor(cy - rr - 1), b0, b1), j1 = clampi((int)ceil(cy + rr + 1), b0, b1);
      for (int j = j0; j < j1; j++)
        for (int i = i0; i < i1; i++) {
          double dx = i + 0.5 - cx, dy = j + 0.5 - cy, d = sqrt(dx * dx + dy * dy);
          double cov = rr + 0.5 - d;
          if (cov <= 0) continue;
          tide_canvas_blend(c, i, j, cc, a * (float)(cov > 1 ? 1 : cov));
        }
    }
  }
  return TIDE_OK;
}

int tide_draw_arrows(tide_canvas *c, const tide_view2d *v, int64_t n, const double *pos,
                     const double *vec, double scale, double width, const float col[3],
                     float alpha) {
  if (!isfinite(scale)) return tide_fail(TIDE_EINVAL, "arrows: scale must be finite");
  for (int64_t k = 0; k < n; k++) {
    double x0 = tide_view2d_x(v, pos[2 * k]), y0 = tide_view2d_y(v, pos[2 * k + 1]);
    double x1 = tide_view2d_x(v, pos[2 * k] + scale * vec[2 * k]);
    double y1 = tide_view2d_y(v, pos[2 * k + 1] + scale * vec[2 * k + 1]);
    double l = hypot(x1 - x0, y1 - y0);
    if (!(l >= 0.5) || !isfinite(l)) continue;
    tide_canvas_arrow(c, x0, y0, x1, y1, width, fmin(3 + 2.5 * width, 0.4 * l), col, alpha);
  }
  return TIDE_OK;
}

int tide_mac_centres2d(const tide_mac *u, int stride, double *pos, double *vec, int64_t *n) {
  const tide_grid *g = &u->grid;
  if (g->dim != 2) return tide_fail(TIDE_EINVAL, "arrows: a 2D MAC field expected");
  if (stride < 1) return tide_fail(TIDE_EINVAL, "arrows: stride must be >= 1");
  int ni = g->n[0], nj = g->n[1];
  for (int a = 0; a < 2; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    int64_t shp[2] = {d[0], d[1]};
    int st = tide_array_expect(u->u[a], a ? "v" : "u", TIDE_F64, 2, shp);
    if (st) return st;
  }
  const double *U = TIDE_F64P(u->u[0]), *V = TIDE_F64P(u->u[1]);
  int64_t k = 0;
  for (int i = stride / 2; i < ni; i += stride)
    for (int j = stride / 2; j < nj; j += stride) {
      pos[2 * k] = g->origin[0] + (i + 0.5) * g->dx;
      pos[2 * k + 1] = g->origin[1] + (j + 0.5) * g->dx;
      /* u(i, j) is the face on the low x side of cell (i, j); shape (ni+1, nj) */
      vec[2 * k] = 0.5 * (U[(int64_t)i * nj + j] + U[(int64_t)(i + 1) * nj + j]);
      /* v shape (ni, nj+1) */
      vec[2 * k + 1] = 0.5 * (V[(int64_t)i * (nj + 1) + j] + V[(int64_t)i * (nj + 1) + j + 1]);
      k++;
    }
  *n = k;
  return TIDE_OK;
}

/* ------------------------------------------------------------ colour bars */

int tide_nice_ticks(double lo, double hi, int target, double *t, int cap, int *n, double *step) {
  *n = 0;
  if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
    return tide_fail(TIDE_EINVAL, "ticks: range [%g, %g] must have lo < hi", lo, hi);
  if (target < 1) target = 1;
  double raw = (hi - lo) / target;
  double mag = pow(10.0, floor(log10(raw)));
  double r = raw / mag, s;
  if (r < 1.5)
    s = 1;
  else if (r < 3)
    s = 2;
  else if (r < 7)
    s = 5;
  else
    s = 10;
  s *= mag;
  *step = s;
  double eps = 1e-9 * s;
  for (double k = ceil((lo - eps) / s); k * s <= hi + eps && *n < cap; k++) {
    double v = k * s;
    if (fabs(v) < eps) v = 0;
    t[(*n)++] = v;
  }
  return TIDE_OK;
}

void tide_format_tick(double v, double step, char *buf, size_t cap) {
  if (v == 0) {
    snprintf(buf, cap, "0");
    return;
  }
  double av = fabs(v);
  if (av >= 1e5 || av < 1e-3) {
    /* mantissa digits the step needs at this exponent */
    int e = (int)floor(log10(av));
    int d = (int)ceil(e - log10(step) - 1e-9);
    if (d < 0) d = 0;
    if (d > 6) d = 6;
    snprintf(buf, cap, "%.*e", d, v);
    /* 1.5e-05 -> 1.5e-5 */
    char *ep = strchr(buf, 'e');
    if (ep) {
      char *q = ep + 1;
      if (*q == '+' || *q == '-') q++;
      char *z = q;
      while (*z == '0' && z[1])
        z++;
      if (z != q) memmove(q, z, strlen(z) + 1);
      if (ep[1] == '+') memmove(ep + 1, ep + 2, strlen(ep + 2) + 1);
    }
    return;
  }
  int dec = (int)ceil(-log10(step) - 1e-9);
  if (dec < 0) dec = 0;
  if (dec > 9) dec = 9;
  snprintf(buf, cap, "%.*f", dec, v);
}

int tide_draw_colorbar(tide_canvas *c, double x, double y, double w, double h, double lo, double hi,
                       tide_cmap m, int nticks, int scale, const char *label, const float fg[3]) {
  if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
    return tide_fail(TIDE_EINVAL, "colour bar range [%g, %g] must have lo < hi", lo, hi);
  if (!(w > 0) || !(h > 1)) return tide_fail(TIDE_EINVAL, "colour bar: empty box");
  int j0 = (int)lround(y), j1 = (int)lround(y + h);
  for (int j = j0; j < j1; j++) {
    float col[3];
    tide_cmap_eval(m, 1.0 - (j + 0.5 - y) / h, col);
    tide_canvas_rect(c, x, j, x + w, j + 1, col, 1);
  }
  /* frame */
  tide_canvas_line(c, x, y, x + w, y, 1, fg, 1);
  tide_canvas_line(c, x, y + h, x + w, y + h, 1, fg, 1);
  tide_canvas_line(c, x, y, x, y + h, 1, fg, 1);
  tide_canvas_line(c, x + w, y, x + w, y + h, 1, fg, 1);
  double t[64], step;
  int n;
  int st = tide_nice_ticks(lo, hi, nticks, t, 64, &n, &step);
  if (st) return st;
  for (int k = 0; k < n; k++) {
    double py = y + h * (1 - (t[k] - lo) / (hi - lo));
    tide_canvas_line(c, x + w, py, x + w + 3 * scale, py, 1, fg, 1);
    char buf[48];
    tide_format_tick(t[k], step, buf, sizeof buf);
    tide_canvas_text(c, x + w + 5 * scale, py - 3.5 * scale, buf, scale, 0, fg);
  }
  if (label && *label) {
    /* from the bar's left edge, moved left only as far as the canvas needs; above the top
       tick's text */
    double lw = tide_text_width(label, scale), lx = x;
    if (lx + lw > c->w - 2) lx = c->w - 2 - lw;
    tide_canvas_text(c, lx, y - 13 * scale, label, scale, 0, fg);
  }
  return TIDE_OK;
}
