/*
 * sdf_particles.c -- level sets of particle sets on a grid's cell centres:
 * Zarifi's union of spheres (thesis Sec. 4.5) and the smoother Zhu--Bridson
 * average-position surface (Zhu & Bridson 2005, Sec. 6.1).
 *
 * Particles are counting-sorted into buckets (one per cell); each cell then
 * gathers from the buckets around it, visiting them in shells of growing
 * Chebyshev distance so the union of spheres stops as soon as no farther
 * bucket can hold a closer particle.  Gathering has no write races and gives
 * results independent of the thread count.
 */
#include "sdf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t ncell, np;
  int64_t *start; /* ncell + 1 offsets into xs */
  double *xs;     /* positions sorted by cell, np x 3 (z = 0 in 2D) */
} buckets;

static size_t xs_bytes(int64_t np) { return (size_t)(np > 0 ? np : 1) * 3 * sizeof(double); }

static void buckets_free(buckets *b) {
  tide_free(b->start, (size_t)(b->ncell + 1) * sizeof(int64_t));
  tide_free(b->xs, xs_bytes(b->np));
}

static int64_t cell_of(const tide_grid *g, const double *x) {
  int c[3] = {0, 0, 0};
  for (int a = 0; a < g->dim; a++) {
    double s = floor((x[a] - g->origin[a]) / g->dx);
    c[a] = s < 0 ? 0 : s > g->n[a] - 1 ? g->n[a] - 1 : (int)s;
  }
  return tide_grid_idx(g, c[0], c[1], c[2]);
}

/* counting sort of the particles by cell (stable), positions copied in that
 * order so that a cell's gather reads contiguous memory */
static int buckets_build(const tide_grid *g, int64_t np, const double *x, buckets *b) {
  b->ncell = tide_grid_ncells(g);
  b->np = np;
  b->start = tide_calloc((size_t)(b->ncell + 1) * sizeof(int64_t));
  b->xs = tide_alloc(xs_bytes(np));
  size_t cb = (size_t)(np > 0 ? np : 1) * sizeof(int64_t);
  int64_t *cell = tide_alloc(cb);
  if (!b->start || !b->xs || !cell) {
    tide_free(cell, cell ? cb : 0);
    buckets_free(b);
    return TIDE_ENOMEM;
  }
  int dim = g->dim;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < np; p++)
    cell[p] = cell_of(g, x + p * dim);
  for (int64_t p = 0; p < np; p++)
    b->start[cell[p] + 1]++;
  for (int64_t c = 0; c < b->ncell; c++)
    b->start[c + 1] += b->start[c];
  /* the fill pointers reuse the start array shifted by one cell */
  for (int64_t p = 0; p < np; p++) {
    int64_t q = b->start[cell[p]]++;
    for (int a = 0; a < 3; a++)
      b->xs[3 * q + a] = a < dim ? x[p * dim + a] : 0.0;
  }
  for (int64_t c = b->ncell; c > 0; c--)
    b->start[c] = b->start[c - 1];
  b->start[0] = 0;
  tide_free(cell, cb);
  return TIDE_OK;
}

static int check_particles(const char *fn, const tide_grid *g, int64_t np, const double *x,
                           double *phi) {
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, fn);
  if (st) return st;
  if (np < 0 || (np > 0 && !x) || !phi)
    return tide_fail(TIDE_EINVAL, "%s: missing particles or output", fn);
  int64_t bad = 0;
  int64_t n = np * g->dim;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (int64_t i = 0; i < n; i++)
    bad += !isfinite(x[i]);
  if (bad)
    return tide_fail(TIDE_ENONFINITE, "%s: %lld non-finite particle coordinates", fn,
                     (long long)bad);
  return TIDE_OK;
}

/* phi of cell (i, j, k): R is the Zhu--Bridson kernel radius (0 for the
 * union of spheres), wker = ceil(R / dx), wmax the shell limit. */
static double gather(const tide_grid *g, const buckets *b, const double *x, int i, int j, int k,
                     double r, double R, double reach, int wmax, int wker) {
  double c[3];
  tide_grid_sample_pos(g, TIDE_AT_CELLS, i, j, k, c);
  int dim = g->dim;
  double best2 = INFINITY, sw = 0, swx[3] = {0, 0, 0};
  for (int s = 0; s <= wmax; s++) {
    /* no bucket at Chebyshev distance s holds a point closer than (s - 1/2) dx */
    double lb = (s - 0.5) * g->dx;
    if (R > 0 && s <= wker) {
      /* inside the kernel support: every bucket counts */
    } else if (sw > 0) {
      break;
    } else if (lb > 0 && best2 <= lb * lb) {
      break;
    }
    /* the buckets at Chebyshev distance exactly s: whole (i, j) rows on the
     * shell's faces, the two end buckets on rows inside it */
    int s2 = dim == 3 ? s : 0;
    for (int bi = i - s; bi <= i + s; bi++) {
      if (bi < 0 || bi >= g->n[0]) continue;
      for (int bj = j - s; bj <= j + s; bj++) {
        if (bj < 0 || bj >= g->n[1]) continue;
        int face = abs(bi - i) == s || abs(bj - j) == s;
        if (!face && s2 == 0) continue; /* 2D: inside the shell */
        int step = face ? 1 : 2 * s2;
        for (int bk = k - s2; bk <= k + s2; bk += step) {
          if (bk < 0 || bk >= g->n[2]) continue;
          /* nearest point of the bucket's box: skip it if it can neither be
           * closer than the best so far nor inside the kernel */
          double e[3] = {abs(bi - i) - 0.5, abs(bj - j) - 0.5, abs(bk - k) - 0.5}, lb2 = 0;
          for (int a = 0; a < dim; a++)
            if (e[a] > 0) lb2 += e[a] * e[a];
          lb2 *= g->dx * g->dx;
          if (lb2 >= best2 && lb2 >= R * R) continue;
          int64_t cb = tide_grid_idx(g, bi, bj, bk);
          for (int64_t q = b->start[cb]; q < b->start[cb + 1]; q++) {
            const double *xp = b->xs + 3 * q;
            double d2 = 0;
            for (int a = 0; a < dim; a++)
              d2 += (xp[a] - c[a]) * (xp[a] - c[a]);
            if (d2 < best2) best2 = d2;
            if (R > 0 && d2 < R * R) {
              double t = 1 - d2 / (R * R), w = t * t * t;
              sw += w;
              for (int a = 0; a < dim; a++)
                swx[a] += w * xp[a];
            }
          }
        }
      }
    }
  }
  if (sw > 0) {
    double d2 = 0;
    for (int a = 0; a < dim; a++) {
      double xa = swx[a] / sw - c[a];
      d2 += xa * xa;
    }
    return sqrt(d2) - r;
  }
  double d = sqrt(best2);
  return (d < reach ? d : reach) - r;
}

static int particles_sdf(const char *fn, const tide_grid *g, int64_t np, const double *x, double r,
                         double R, double reach, double *phi) {
  int st = check_particles(fn, g, np, x, phi);
  if (st) return st;
  if (!(r > 0) || !isfinite(r))
    return tide_fail(TIDE_EINVAL, "%s: radius must be > 0, got %g", fn, r);
  if (!isfinite(R) || !isfinite(reach))
    return tide_fail(TIDE_EINVAL, "%s: kernel radius and reach must be finite", fn);
  if (reach < r) return tide_fail(TIDE_EINVAL, "%s: reach %g must be >= radius %g", fn, reach, r);
  /* a bucket at Chebyshev distance s holds no point closer than (s - 1/2) dx:
   * the kernel needs shells s < R / dx + 1/2, the union those < reach / dx + 1/2 */
  int wker = R > 0 ? (int)ceil(R / g->dx + 0.5) - 1 : 0;
  int wmax = (int)ceil(reach / g->dx + 0.5) - 1;
  if (wmax < wker) wmax = wker;
  if (wmax > 64) return tide_fail(TIDE_EINVAL, "%s: reach %g is more than 64 cells", fn, reach);
  buckets b;
  if ((st = buckets_build(g, np, x, &b))) return st;
  /* near[c]: some particle within wmax buckets (Chebyshev); the others are
   * farther than reach and get reach - r without a search.  Separable
   * running maximum of the occupancy, one axis at a time. */
  int64_t N = tide_grid_ncells(g);
  uint8_t *near = tide_alloc((size_t)N), *tmp = tide_alloc((size_t)N);
  if (!near || !tmp) {
    tide_free(near, near ? (size_t)N : 0);
    tide_free(tmp, tmp ? (size_t)N : 0);
    buckets_free(&b);
    return TIDE_ENOMEM;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < N; c++)
    near[c] = b.start[c + 1] > b.start[c];
  const int64_t stride[3] = {(int64_t)g->n[1] * g->n[2], g->n[2], 1};
  for (int a = 0; a < g->dim; a++) {
    int na = g->n[a];
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < N; c++) {
      int p = (int)((c / stride[a]) % na);
      uint8_t m = 0;
      for (int q = p - wmax < 0 ? 0 : p - wmax; q <= p + wmax && q < na && !m; q++)
        m = near[c + (q - p) * stride[a]];
      tmp[c] = m;
    }
    memcpy(near, tmp, (size_t)N);
  }
  int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2];
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        phi[c] = near[c] ? gather(g, &b, x, i, j, k, r, R, reach, wmax, wker) : reach - r;
      }
  tide_free(near, (size_t)N);
  tide_free(tmp, (size_t)N);
  buckets_free(&b);
  return TIDE_OK;
}

int tide_sdf_particles_union(const tide_grid *g, int64_t np, const double *x, double r,
                             double reach, double *phi) {
  if (g && !(reach > 0)) reach = 3 * g->dx + r;
  return particles_sdf("particle sdf (union)", g, np, x, r, 0, reach, phi);
}

int tide_sdf_particles_zhu_bridson(const tide_grid *g, int64_t np, const double *x, double r,
                                   double R, double reach, double *phi) {
  if (!(R > 0)) R = 2 * r;
  if (g && !(reach > 0)) reach = 3 * g->dx + R;
  return particles_sdf("particle sdf (zhu-bridson)", g, np, x, r, R, reach, phi);
}
