/* plot.c -- line plots to a canvas (see fileio.h). */
#include "fileio.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const tide_marker_names[] = {"none", "o", "s", "^", "d", "x", "+", NULL};

typedef struct axis {
  int log;
  double lo, hi; /* data range (log10 of it on log axes) */
  double p0, p1; /* pixel positions of lo and hi */
} axis;

static double ax_map(const axis *a, double v) {
  double t = a->log ? log10(v) : v;
  return a->p0 + (t - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static int usable(const axis *a, double v) { return isfinite(v) && (!a->log || v > 0); }

/* data range of one coordinate over all series */
static int data_range(const tide_plot *p, int ycoord, int logax, double r[2]) {
  double lo = INFINITY, hi = -INFINITY;
  for (int s = 0; s < p->nseries; s++) {
    const tide_series *se = &p->s[s];
    for (int64_t k = 0; k < se->n; k++) {
      double x = se->x[k], y = se->y[k];
      if (!isfinite(x) || !isfinite(y)) continue;
      if ((p->xlog && !(x > 0)) || (p->ylog && !(y > 0))) continue;
      double v = ycoord ? y : x;
      lo = fmin(lo, v);
      hi = fmax(hi, v);
    }
  }
  if (!(lo <= hi)) return 0;
  if (logax) {
    lo = floor(log10(lo) + 1e-9);
    hi = ceil(log10(hi) - 1e-9);
    if (hi <= lo) hi = lo + 1;
    r[0] = lo, r[1] = hi;
    return 1;
  }
  if (hi == lo) {
    double d = lo == 0 ? 1 : 0.1 * fabs(lo);
    lo -= d, hi += d;
  }
  double pad = 0.04 * (hi - lo);
  r[0] = lo - pad, r[1] = hi + pad;
  return 1;
}

/* tick values of an axis (in data units) with their labels */
typedef struct ticks {
  int n;
  double v[64];
  int major[64];
  char label[64][32];
} ticks;

static void make_ticks(const axis *a, int target, ticks *t) {
  t->n = 0;
  if (a->log) {
    int d0 = (int)floor(a->lo + 1e-9), d1 = (int)ceil(a->hi - 1e-9);
    int span = d1 - d0, every = span > 8 ? (span + 7) / 8 : 1;
    for (int d = d0; d <= d1 && t->n < 60; d++)
      for (int m = 1; m <= 9 && t->n < 64; m++) {
        double lv = d + log10((double)m);
        if (lv < a->lo - 1e-9 || lv > a->hi + 1e-9) continue;
        if (m > 1 && span > 8) continue; /* minor ticks only on short spans */
        t->v[t->n] = pow(10.0, lv);
        t->major[t->n] = m == 1 && (d - d0) % every == 0;
        t->label[t->n][0] = '\0';
        if (t->major[t->n]) {
          if (d >= 0 && d <= 3)
            snprintf(t->label[t->n], 32, "%g", pow(10.0, d));
          else
            snprintf(t->label[t->n], 32, "1e%d", d);
        }
        t->n++;
      }
    return;
  }
  double step, v[64];
  int n;
  if (tide_nice_ticks(a->lo, a->hi, target, v, 64, &n, &step)) return;
  for (int k = 0; k < n; k++) {
    t->v[k] = v[k];
    t->major[k] = 1;
    tide_format_tick(v[k], step, t->label[k], 32);
  }
  t->n = n;
}

/* a polyline segment with a dash pattern; phase carries along the line */
static void dashed(tide_canvas *c, double ax, double ay, double bx, double by, double w, int dash,
                   const float col[3], double *phase) {
  double len = hypot(bx - ax, by - ay);
  if (dash == 0 || len == 0) {
    tide_canvas_line(c, ax, ay, bx, by, w, col, 1);
    return;
  }
  double on = dash == 1 ? 6 * w + 4 : 1.2 * w, off = dash == 1 ? 3 * w + 3 : 2 * w + 2,
         period = on + off;
  /* dashes cover [a, a + on] for a = -phase + m * period along the segment */
  for (double a = -*phase; a < len; a += period) {
    double s0 = fmax(a, 0), s1 = fmin(a + on, len);
    if (s1 <= s0) continue;
    double t0 = s0 / len, t1 = s1 / len;
    tide_canvas_line(c, ax + t0 * (bx - ax), ay + t0 * (by - ay), ax + t1 * (bx - ax),
                     ay + t1 * (by - ay), w, col, 1);
  }
  *phase = fmod(*phase + len, period);
}

static void marker(tide_canvas *c, int m, double x, double y, double sz, const float col[3]) {
  double r = 0.5 * sz;
  static const float white[3] = {1, 1, 1};
  switch (m) {
  case TIDE_MARK_CIRCLE:
    tide_canvas_disc(c, x, y, r, white, 1, 1.5, col);
    break;
  case TIDE_MARK_SQUARE:
    tide_canvas_rect(c, x - r, y - r, x + r, y + r, col, 1);
    tide_canvas_rect(c, x - r + 1.5, y - r + 1.5, x + r - 1.5, y + r - 1.5, white, 1);
    break;
  case TIDE_MARK_TRIANGLE:
  case TIDE_MARK_DIAMOND: {
    double xy[8];
    int32_t tri[6] = {0, 1, 2, 0, 2, 3};
    int ntri = 1;
    if (m == TIDE_MARK_TRIANGLE) {
      double h = 1.15 * r;
      double t[6] = {x, y - h, x - h * 0.866, y + 0.5 * h, x + h * 0.866, y + 0.5 * h};
      memcpy(xy, t, sizeof t);
    } else {
      double d[8] = {x, y - 1.2 * r, x + r, y, x, y + 1.2 * r, x - r, y};
      memcpy(xy, d, sizeof d);
      ntri = 2;
    }
    tide_canvas_triangles(c, m == TIDE_MARK_TRIANGLE ? 3 : 4, xy, ntri, tri, col, 1, 1);
    break;
  }
  case TIDE_MARK_CROSS:
    tide_canvas_line(c, x - r, y - r, x + r, y + r, 1.5, col, 1);
    tide_canvas_line(c, x - r, y + r, x + r, y - r, 1.5, col, 1);
    break;
  case TIDE_MARK_PLUS:
    tide_canvas_line(c, x - r, y, x + r, y, 1.5, col, 1);
    tide_canvas_line(c, x, y - r, x, y + r, 1.5, col, 1);
    break;
  default:
    break;
  }
}

int tide_plot_draw(const tide_plot *p, tide_canvas **out) {
  *out = NULL;
  if (p->width < 64 || p->height < 48)
    return tide_fail(TIDE_EINVAL, "plot: size %d x %d too small (64 x 48 at least)", p->width,
                     p->height);
  if (p->nseries < 0) return tide_fail(TIDE_EINVAL, "plot: negative series count");
  for (int s = 0; s < p->nseries; s++) {
    const tide_series *se = &p->s[s];
    if (se->n < 0 || (se->n > 0 && (!se->x || !se->y)))
      return tide_fail(TIDE_EINVAL, "plot: series %d has no data", s + 1);
    if (se->marker < 0 || se->marker > TIDE_MARK_PLUS)
      return tide_fail(TIDE_EINVAL, "plot: series %d: bad marker", s + 1);
    if (!(se->width >= 0) || !(se->msize >= 0))
      return tide_fail(TIDE_EINVAL, "plot: series %d: bad width", s + 1);
  }
  axis ax = {p->xlog, 0, 1, 0, 1}, ay = {p->ylog, 0, 1, 0, 1};
  double r[2];
  if (p->xfixed) {
    if (!(p->xr[1] > p->xr[0]) || (p->xlog && !(p->xr[0] > 0)))
      return tide_fail(TIDE_EINVAL,
                       "plot: x range [%g, %g] must have lo < hi (and lo > 0 on a log axis)",
                       p->xr[0], p->xr[1]);
    ax.lo = p->xlog ? log10(p->xr[0]) : p->xr[0];
    ax.hi = p->xlog ? log10(p->xr[1]) : p->xr[1];
  } else if (data_range(p, 0, p->xlog, r)) {
    ax.lo = r[0], ax.hi = r[1];
  }
  if (p->yfixed) {
    if (!(p->yr[1] > p->yr[0]) || (p->ylog && !(p->yr[0] > 0)))
      return tide_fail(TIDE_EINVAL,
                       "plot: y range [%g, %g] must have lo < hi (and lo > 0 on a log axis)",
                       p->yr[0], p->yr[1]);
    ay.lo = p->ylog ? log10(p->yr[0]) : p->yr[0];
    ay.hi = p->ylog ? log10(p->yr[1]) : p->yr[1];
  } else if (data_range(p, 1, p->ylog, r)) {
    ay.lo = r[0], ay.hi = r[1];
  }
  int fs = p->fs < 1 ? 1 : p->fs;
  ticks tx, ty;
  make_ticks(&ax, p->width / (90 * fs) < 3 ? 3 : p->width / (90 * fs), &tx);
  make_ticks(&ay, p->height / (60 * fs) < 3 ? 3 : p->height / (60 * fs), &ty);
  int ylw = 0;
  for (int k = 0; k < ty.n; k++) {
    int w = tide_text_width(ty.label[k], fs);
    if (w > ylw) ylw = w;
  }
  int pad = 10 * fs;
  double left = pad + ylw + 8 * fs + (p->ylabel && *p->ylabel ? 12 * fs : 0);
  double right = p->width - pad - 0.5 * tide_text_width(tx.n ? tx.label[tx.n - 1] : "", fs);
  double top = pad + (p->title && *p->title ? 14 * fs : 0);
  double bottom = p->height - pad - 12 * fs - (p->xlabel && *p->xlabel ? 12 * fs : 0);
  if (right - left < 20 || bottom - top < 20)
    return tide_fail(TIDE_EINVAL, "plot: no room for the axes at %d x %d", p->width, p->height);
  /* the box lines on pixel centres: crisp one-pixel axes */
  left = floor(left) + 0.5, right = floor(right) + 0.5, top = floor(top) + 0.5,
  bottom = floor(bottom) + 0.5;
  ax.p0 = left, ax.p1 = right;
  ay.p0 = bottom, ay.p1 = top;
  float white[3] = {1, 1, 1}, black[3] = {0, 0, 0}, light[3] = {0.88f, 0.88f, 0.88f},
        mid[3] = {0.3f, 0.3f, 0.3f};
  tide_canvas *c;
  int st = tide_canvas_new(p->width, p->height, white, &c);
  if (st) return st;
  /* grid and ticks */
  for (int k = 0; k < tx.n; k++) {
    double x = ax_map(&ax, tx.v[k]);
    if (p->grid && tx.major[k]) tide_canvas_line(c, x, top, x, bottom, 1, light, 1);
    tide_canvas_line(c, x, bottom, x, bottom - (tx.major[k] ? 5 : 3) * fs, 1, black, 1);
    if (tx.label[k][0]) tide_canvas_text(c, x, bottom + 4 * fs, tx.label[k], fs, 0.5, black);
  }
  for (int k = 0; k < ty.n; k++) {
    double y = ax_map(&ay, ty.v[k]);
    if (p->grid && ty.major[k]) tide_canvas_line(c, left, y, right, y, 1, light, 1);
    tide_canvas_line(c, left, y, left + (ty.major[k] ? 5 : 3) * fs, y, 1, black, 1);
    if (ty.label[k][0]) tide_canvas_text(c, left - 4 * fs, y - 3.5 * fs, ty.label[k], fs, 1, black);
  }
  /* series, clipped to the axes box */
  for (int s = 0; s < p->nseries; s++) {
    const tide_series *se = &p->s[s];
    double phase = 0;
    if (se->width > 0)
      for (int64_t k = 0; k + 1 < se->n; k++) {
        if (!usable(&ax, se->x[k]) || !usable(&ay, se->y[k]) || !usable(&ax, se->x[k + 1]) ||
            !usable(&ay, se->y[k + 1]))
          continue;
        double x0 = ax_map(&ax, se->x[k]), y0 = ax_map(&ay, se->y[k]);
        double x1 = ax_map(&ax, se->x[k + 1]), y1 = ax_map(&ay, se->y[k + 1]);
        if (tide_clip_segment(&x0, &y0, &x1, &y1, left, top, right, bottom))
          dashed(c, x0, y0, x1, y1, se->width, se->dash, se->color, &phase);
      }
    if (se->marker)
      for (int64_t k = 0; k < se->n; k++) {
        if (!usable(&ax, se->x[k]) || !usable(&ay, se->y[k])) continue;
        double x = ax_map(&ax, se->x[k]), y = ax_map(&ay, se->y[k]);
        if (x < left - 0.5 || x > right + 0.5 || y < top - 0.5 || y > bottom + 0.5) continue;
        marker(c, se->marker, x, y, se->msize, se->color);
      }
  }
  /* axes box, labels, title */
  tide_canvas_line(c, left, top, right, top, 1, black, 1);
  tide_canvas_line(c, left, bottom, right, bottom, 1, black, 1);
  tide_canvas_line(c, left, top, left, bottom, 1, black, 1);
  tide_canvas_line(c, right, top, right, bottom, 1, black, 1);
  if (p->xlabel && *p->xlabel)
    tide_canvas_text(c, 0.5 * (left + right), bottom + 16 * fs, p->xlabel, fs, 0.5, black);
  if (p->ylabel && *p->ylabel)
    tide_canvas_text_up(c, pad, 0.5 * (top + bottom), p->ylabel, fs, -0.5, black);
  if (p->title && *p->title)
    tide_canvas_text(c, 0.5 * (left + right), pad, p->title, fs, 0.5, black);
  /* legend */
  int nl = 0, lw = 0;
  for (int s = 0; s < p->nseries; s++)
    if (p->s[s].label && *p->s[s].label) {
      nl++;
      int w = tide_text_width(p->s[s].label, fs);
      if (w > lw) lw = w;
    }
  if (p->legend && nl) {
    double sw = 28 * fs, rowh = 11 * fs, bw = sw + 10 * fs + lw + 8 * fs, bh = nl * rowh + 8 * fs;
    double bx = p->legend == TIDE_LEGEND_UL || p->legend == TIDE_LEGEND_LL ? left + 8 * fs
                                                                           : right - 8 * fs - bw;
    double by = p->legend == TIDE_LEGEND_UL || p->legend == TIDE_LEGEND_UR ? top + 8 * fs
                                                                           : bottom - 8 * fs - bh;
    tide_canvas_rect(c, bx, by, bx + bw, by + bh, white, 0.9f);
    tide_canvas_line(c, bx, by, bx + bw, by, 1, mid, 1);
    tide_canvas_line(c, bx, by + bh, bx + bw, by + bh, 1, mid, 1);
    tide_canvas_line(c, bx, by, bx, by + bh, 1, mid, 1);
    tide_canvas_line(c, bx + bw, by, bx + bw, by + bh, 1, mid, 1);
    int row = 0;
    for (int s = 0; s < p->nseries; s++) {
      const tide_series *se = &p->s[s];
      if (!se->label || !*se->label) continue;
      double y = by + 4 * fs + (row + 0.5) * rowh;
      double phase = 0;
      if (se->width > 0)
        dashed(c, bx + 5 * fs, y, bx + 5 * fs + sw, y, se->width, se->dash, se->color, &phase);
      if (se->marker) marker(c, se->marker, bx + 5 * fs + 0.5 * sw, y, se->msize, se->color);
      tide_canvas_text(c, bx + 5 * fs + sw + 6 * fs, y - 3.5 * fs, se->label, fs, 0, black);
      row++;
    }
  }
  *out = c;
  return TIDE_OK;
}

int tide_loglog_fit(int64_t n, const double *x, const double *y, double *slope, double *b) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int64_t m = 0;
  for (int64_t k = 0; k < n; k++) {
    if (!(x[k] > 0) || !(y[k] > 0) || !isfinite(x[k]) || !isfinite(y[k])) continue;
    double lx = log10(x[k]), ly = log10(y[k]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    m++;
  }
  double den = m * sxx - sx * sx;
  if (m < 2 || !(fabs(den) > 0))
    return tide_fail(TIDE_EINVAL,
                     "loglog fit: at least two positive points with different x needed");
  *slope = (m * sxy - sx * sy) / den;
  *b = (sy - *slope * sx) / m;
  return TIDE_OK;
}
