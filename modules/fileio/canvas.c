/* canvas.c -- an RGB float canvas with anti-aliased primitives and bitmap
 * text (see fileio.h). */
#include "fileio.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int tide_canvas_new(int w, int h, const float bg[3], tide_canvas **out) {
  *out = NULL;
  if (w <= 0 || h <= 0 || w > 32768 || h > 32768)
    return tide_fail(TIDE_EINVAL, "canvas size %d x %d out of range 1..32768", w, h);
  tide_canvas *c = tide_alloc(sizeof *c);
  if (!c) return TIDE_ENOMEM;
  c->w = w;
  c->h = h;
  c->rgb = tide_alloc((size_t)w * h * 3 * sizeof(float));
  if (!c->rgb) {
    tide_free(c, sizeof *c);
    return TIDE_ENOMEM;
  }
  int64_t n = (int64_t)w * h;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    c->rgb[3 * i] = bg[0];
    c->rgb[3 * i + 1] = bg[1];
    c->rgb[3 * i + 2] = bg[2];
  }
  *out = c;
  return TIDE_OK;
}

void tide_canvas_free(tide_canvas *c) {
  if (!c) return;
  tide_free(c->rgb, (size_t)c->w * c->h * 3 * sizeof(float));
  tide_free(c, sizeof *c);
}

static uint8_t to8(float v) {
  v = v < 0 ? 0 : v > 1 ? 1 : v;
  return (uint8_t)lrintf(v * 255.0f);
}

int tide_canvas_to_array(const tide_canvas *c, tide_array **out) {
  tide_array *a = tide_array_new3(TIDE_U8, c->h, c->w, 3);
  if (!a) return TIDE_ENOMEM;
  uint8_t *p = TIDE_U8P(a);
  int64_t n = (int64_t)c->w * c->h * 3;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++)
    p[i] = to8(c->rgb[i]);
  *out = a;
  return TIDE_OK;
}

int tide_canvas_write_png(const tide_canvas *c, const char *path) {
  tide_array *a;
  int st = tide_canvas_to_array(c, &a);
  if (st) return st;
  st = tide_png_write(path, c->w, c->h, 3, TIDE_U8P(a));
  tide_array_release(a);
  return st;
}

void tide_canvas_blend(tide_canvas *c, int x, int y, const float col[3], float a) {
  if (x < 0 || y < 0 || x >= c->w || y >= c->h || !(a > 0)) return;
  if (a > 1) a = 1;
  float *p = c->rgb + 3 * ((int64_t)y * c->w + x);
  p[0] += a * (col[0] - p[0]);
  p[1] += a * (col[1] - p[1]);
  p[2] += a * (col[2] - p[2]);
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static float cover(double d) { return (float)(d <= 0 ? 0 : d >= 1 ? 1 : d); }

void tide_canvas_rect(tide_canvas *c, double x0, double y0, double x1, double y1,
                      const float col[3], float alpha) {
  if (!(x1 > x0) || !(y1 > y0)) return;
  int i0 = clampi((int)floor(x0), 0, c->w), i1 = clampi((int)ceil(x1), 0, c->w);
  int j0 = clampi((int)floor(y0), 0, c->h), j1 = clampi((int)ceil(y1), 0, c->h);
  for (int j = j0; j < j1; j++) {
    double cy = fmin(y1, j + 1.0) - fmax(y0, (double)j);
    for (int i = i0; i < i1; i++) {
      double cx = fmin(x1, i + 1.0) - fmax(x0, (double)i);
      tide_canvas_blend(c, i, j, col, alpha * cover(cx) * cover(cy));
    }
  }
}

/* distance from (px, py) to the segment (x0, y0)-(x1, y1) */
static double seg_dist(double px, double py, double x0, double y0, double x1, double y1) {
  double dx = x1 - x0, dy = y1 - y0, l2 = dx * dx + dy * dy;
  double t = l2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / l2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  double ex = px - (x0 + t * dx), ey = py - (y0 + t * dy);
  return sqrt(ex * ex + ey * ey);
}

void tide_canvas_line(tide_canvas *c, double x0, double y0, double x1, double y1, double width,
                      const float col[3], float alpha) {
  if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1) || !(width > 0)) return;
  double hw = 0.5 * width;
  double r = hw + 1;
  int i0 = clampi((int)floor(fmin(x0, x1) - r), 0, c->w),
      i1 = clampi((int)ceil(fmax(x0, x1) + r), 0, c->w);
  int j0 = clampi((int)floor(fmin(y0, y1) - r), 0, c->h),
      j1 = clampi((int)ceil(fmax(y0, y1) + r), 0, c->h);
  /* thin lines keep their weight: a width below one pixel lowers opacity */
  float a = alpha * (float)fmin(1.0, width);
  double h = fmax(hw, 0.5);
  for (int j = j0; j < j1; j++)
    for (int i = i0; i < i1; i++) {
      double d = seg_dist(i + 0.5, j + 0.5, x0, y0, x1, y1);
      tide_canvas_blend(c, i, j, col, a * cover(h + 0.5 - d));
    }
}

void tide_canvas_disc(tide_canvas *c, double cx, double cy, double r, const float col[3],
                      float alpha, double ow, const float oc[3]) {
  if (!isfinite(cx) || !isfinite(cy) || !(r > 0)) return;
  /* a disc smaller than a pixel keeps its area: draw r = 0.5 with less opacity */
  float a = alpha;
  if (r < 0.5) {
    a *= (float)(r * r / 0.25);
    r = 0.5;
  }
  int i0 = clampi((int)floor(cx - r - 1), 0, c->w), i1 = clampi((int)ceil(cx + r + 1), 0, c->w);
  int j0 = clampi((int)floor(cy - r - 1), 0, c->h), j1 = clampi((int)ceil(cy + r + 1), 0, c->h);
  for (int j = j0; j < j1; j++)
    for (int i = i0; i < i1; i++) {
      double dx = i + 0.5 - cx, dy = j + 0.5 - cy, d = sqrt(dx * dx + dy * dy);
      float outer = cover(r + 0.5 - d);
      if (outer <= 0) continue;
      if (ow > 0 && oc) {
        float inner = cover(r - ow + 0.5 - d);
        tide_canvas_blend(c, i, j, oc, a * outer);
        tide_canvas_blend(c, i, j, col, a * inner);
      } else {
        tide_canvas_blend(c, i, j, col, a * outer);
      }
    }
}

void tide_canvas_arrow(tide_canvas *c, double x0, double y0, double x1, double y1, double width,
                       double head, const float col[3], float alpha) {
  double dx = x1 - x0, dy = y1 - y0, l = sqrt(dx * dx + dy * dy);
  if (!(l > 0) || !isfinite(l)) return;
  double ux = dx / l, uy = dy / l;
  if (head > 0.6 * l) head = 0.6 * l;
  double bx = x1 - head * ux, by = y1 - head * uy; /* base of the head */
  tide_canvas_line(c, x0, y0, bx, by, width, col, alpha);
  double hw = 0.5 * head;
  double xy[6] = {x1, y1, bx - hw * uy, by + hw * ux, bx + hw * uy, by - hw * ux};
  int32_t tri[3] = {0, 1, 2};
  tide_canvas_triangles(c, 3, xy, 1, tri, col, 1, alpha);
}

void tide_thread_band(int n, int *b0, int *b1) {
#ifdef _OPENMP
  int nt = omp_get_num_threads(), id = omp_get_thread_num();
#else
  int nt = 1, id = 0;
#endif
  *b0 = (int)((int64_t)n * id / nt);
  *b1 = (int)((int64_t)n * (id + 1) / nt);
}

/* ------------------------------------------------------------ triangles */

#define SS 4 /* subsamples per axis */

/* edge function; > 0 inside for the oriented triangle */
static inline double edgef(double ax, double ay, double bx, double by, double px, double py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}
/* a sample exactly on an edge belongs to one of the two triangles sharing it */
static inline int owns(double ax, double ay, double bx, double by) {
  double dx = bx - ax, dy = by - ay;
  return dy > 0 || (dy == 0 && dx < 0);
}

int tide_canvas_triangles(tide_canvas *c, int64_t nv, const double *xy, int64_t ntri,
                          const int32_t *tri, const float *colors, int64_t ncol, float alpha) {
  if (ntri <= 0) return TIDE_OK;
  if (ncol != 1 && ncol != ntri)
    return tide_fail(TIDE_EINVAL, "triangle colours: 1 or %lld expected, got %lld", (long long)ntri,
                     (long long)ncol);
  for (int64_t t = 0; t < 3 * ntri; t++)
    if (tri[t] < 0 || tri[t] >= nv)
      return tide_fail(TIDE_EINVAL, "triangle %lld: vertex index %d out of range 0..%lld",
                       (long long)(t / 3), tri[t], (long long)nv - 1);
  /* per pixel: sum of sample colours and sample count */
  int w = c->w, h = c->h;
  size_t bytes = (size_t)w * h * 4 * sizeof(float);
  float *acc = tide_calloc(bytes);
  if (!acc) return TIDE_ENOMEM;
    /* rows in bands, one band per thread: each band sees every triangle in
     * order, so the result does not depend on the thread count */
#pragma omp parallel
  {
    int band0, band1;
    tide_thread_band(h, &band0, &band1);
    for (int64_t t = 0; t < ntri; t++) {
      const double *A = xy + 2 * tri[3 * t], *B = xy + 2 * tri[3 * t + 1],
                   *C = xy + 2 * tri[3 * t + 2];
      double ax = A[0], ay = A[1], bx = B[0], by = B[1], cx = C[0], cy = C[1];
      if (!isfinite(ax + ay + bx + by + cx + cy)) continue;
      double area = edgef(ax, ay, bx, by, cx, cy);
      if (area == 0) continue;
      if (area < 0) { /* orient so that inside is positive */
        double tx = bx, ty = by;
        bx = cx, by = cy, cx = tx, cy = ty;
      }
      int i0 = clampi((int)floor(fmin(ax, fmin(bx, cx))), 0, w);
      int i1 = clampi((int)ceil(fmax(ax, fmax(bx, cx))) + 1, 0, w);
      int j0 = clampi((int)floor(fmin(ay, fmin(by, cy))), band0, band1);
      int j1 = clampi((int)ceil(fmax(ay, fmax(by, cy))) + 1, band0, band1);
      int o0 = owns(bx, by, cx, cy), o1 = owns(cx, cy, ax, ay), o2 = owns(ax, ay, bx, by);
      const float *col = colors + 3 * (ncol == 1 ? 0 : t);
      for (int j = j0; j < j1; j++)
        for (int i = i0; i < i1; i++) {
          int cnt = 0;
          for (int sj = 0; sj < SS; sj++)
            for (int si = 0; si < SS; si++) {
              double px = i + (si + 0.5) / SS, py = j + (sj + 0.5) / SS;
              double e0 = edgef(bx, by, cx, cy, px, py);
              double e1 = edgef(cx, cy, ax, ay, px, py);
              double e2 = edgef(ax, ay, bx, by, px, py);
              if ((e0 > 0 || (e0 == 0 && o0)) && (e1 > 0 || (e1 == 0 && o1)) &&
                  (e2 > 0 || (e2 == 0 && o2)))
                cnt++;
            }
          if (!cnt) continue;
          float *p = acc + 4 * ((int64_t)j * w + i);
          p[0] += cnt * col[0];
          p[1] += cnt * col[1];
          p[2] += cnt * col[2];
          p[3] += (float)cnt;
        }
    }
  }
  int64_t n = (int64_t)w * h;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; k++) {
    float *p = acc + 4 * k;
    if (p[3] <= 0) continue;
    float frac = p[3] > SS * SS ? 1.0f : p[3] / (SS * SS);
    float col[3] = {p[0] / p[3], p[1] / p[3], p[2] / p[3]};
    tide_canvas_blend(c, (int)(k % w), (int)(k / w), col, alpha * frac);
  }
  tide_free(acc, bytes);
  return TIDE_OK;
}

/* ----------------------------------------------------------------- text */

void tide_canvas_text_up(tide_canvas *c, double x, double y, const char *s, int scale, double align,
                         const float col[3]) {
  if (scale < 1) scale = 1;
  int len = (int)strlen(s), w = len ? (len * 6 - 1) * scale : 0;
  int x0 = (int)lround(x), y0 = (int)lround(y - align * w);
  for (int k = 0; k < len; k++) {
    const uint8_t *g = tide_font_glyph((unsigned char)s[k]);
    for (int r = 0; r < 7; r++)
      for (int q = 0; q < 5; q++)
        if (g[r] & (0x10 >> q))
          for (int a = 0; a < scale; a++)
            for (int b = 0; b < scale; b++)
              tide_canvas_blend(c, x0 + r * scale + a, y0 - (k * 6 + q) * scale - b - 1, col, 1);
  }
}

int tide_text_width(const char *s, int scale) {
  int best = 0, cur = 0;
  for (; *s; s++) {
    if (*s == '\n') {
      cur = 0;
      continue;
    }
    cur++;
    if (cur > best) best = cur;
  }
  return best > 0 ? (best * 6 - 1) * scale : 0;
}

void tide_canvas_text(tide_canvas *c, double x, double y, const char *s, int scale, double align,
                      const float col[3]) {
  if (scale < 1) scale = 1;
  const char *line = s;
  int row = 0;
  while (*line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    int lw = len ? ((int)len * 6 - 1) * scale : 0;
    int x0 = (int)lround(x - align * lw), y0 = (int)lround(y) + row * 9 * scale;
    for (size_t k = 0; k < len; k++) {
      const uint8_t *g = tide_font_glyph((unsigned char)line[k]);
      for (int r = 0; r < 7; r++)
        for (int q = 0; q < 5; q++)
          if (g[r] & (0x10 >> q))
            for (int a = 0; a < scale; a++)
              for (int b = 0; b < scale; b++)
                tide_canvas_blend(c, x0 + ((int)k * 6 + q) * scale + b, y0 + r * scale + a, col, 1);
    }
    if (!end) break;
    line = end + 1;
    row++;
  }
}
