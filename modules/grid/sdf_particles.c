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
  int64_t *start;   /* ncell + 1 offsets into xs (the caller's when given) */
  int given;        /* start and xs belong to the caller */
  const double *xs; /* positions in cell order, np x dim: the input itself when it is in cell order */
  double *own;      /* otherwise this sorted copy */
} buckets;

static size_t xs_bytes(int64_t np, int dim) { return (size_t)(np > 0 ? np : 1) * dim * sizeof(double); }

static void buckets_free(buckets *b, int dim) {
  if (b->given) return;
  tide_free(b->start, (size_t)(b->ncell + 1) * sizeof(int64_t));
  if (b->own) tide_free(b->own, xs_bytes(b->np, dim));
}

/* cell of x: s = (x - origin) / dx rounded down, clamped into the grid
 * (computed with 1/dx as the particle binning of tide.liquid, so particle
 * sets it sorted are recognised as sorted) */
static inline int64_t cell_of(const tide_grid *g, double inv, const double *x) {
  int c[3] = {0, 0, 0};
  for (int a = 0; a < g->dim; a++) {
    double s = (x[a] - g->origin[a]) * inv, top = g->n[a] - 1;
    c[a] = !(s > 0) ? 0 : s >= top ? (int)top : (int)s;
  }
  return tide_grid_idx(g, c[0], c[1], c[2]);
}

/* Bucket the particles by cell (stable).  Counts the non-finite coordinates
 * into *bad first (nothing else is done then).  When the particles already
 * come in cell order (as tide.liquid keeps them) the buckets are ranges of
 * x itself; otherwise a counting sort copies the positions in that order so
 * that a cell's gather reads contiguous memory. */
static int buckets_build(const tide_grid *g, int64_t np, const double *x, buckets *b, int64_t *bad) {
  int dim = g->dim;
  double inv = 1.0 / g->dx;
  int64_t nbad = 0;
  int unsorted = 0;
  /* blocks of particles, each comparing its first one with the one before */
  const int64_t B = 4096, nblk = (np + B - 1) / B;
#pragma omp parallel for schedule(static) reduction(+ : nbad) reduction(| : unsorted) if (nblk > 1)
  for (int64_t k = 0; k < nblk; k++) {
    int64_t p1 = (k + 1) * B < np ? (k + 1) * B : np, prev = k > 0 ? cell_of(g, inv, x + (k * B - 1) * dim) : 0;
    for (int64_t p = k * B; p < p1; p++) {
      for (int a = 0; a < dim; a++)
        nbad += !isfinite(x[p * dim + a]);
      int64_t c = cell_of(g, inv, x + p * dim);
      unsorted |= c < prev;
      prev = c;
    }
  }
  *bad = nbad;
  if (nbad) return TIDE_OK;
  b->ncell = tide_grid_ncells(g);
  b->np = np;
  b->own = NULL;
  b->given = 0;
  b->start = tide_alloc((size_t)(b->ncell + 1) * sizeof(int64_t));
  if (!b->start) return TIDE_ENOMEM;
  int64_t *start = b->start, nc = b->ncell;
  if (!unsorted) {
    /* cell c starts at the first particle of a cell >= c: each entry is
     * written once, where the cell index passes it */
#pragma omp parallel for schedule(static) if (nblk > 1)
    for (int64_t k = 0; k < nblk; k++) {
      int64_t p1 = (k + 1) * B < np ? (k + 1) * B : np, prev = k > 0 ? cell_of(g, inv, x + (k * B - 1) * dim) : -1;
      for (int64_t p = k * B; p < p1; p++) {
        int64_t c1 = cell_of(g, inv, x + p * dim);
        for (int64_t c = prev + 1; c <= c1; c++)
          start[c] = p;
        prev = c1;
      }
    }
    for (int64_t c = np > 0 ? cell_of(g, inv, x + (np - 1) * dim) + 1 : 0; c <= nc; c++)
      start[c] = np;
    b->xs = x;
    return TIDE_OK;
  }
  size_t cb = (size_t)(np > 0 ? np : 1) * sizeof(int64_t);
  int64_t *cell = tide_alloc(cb);
  b->own = tide_alloc(xs_bytes(np, dim));
  if (!cell || !b->own) {
    tide_free(cell, cell ? cb : 0);
    if (!b->own) tide_free(b->start, (size_t)(nc + 1) * sizeof(int64_t));
    else buckets_free(b, dim);
    return TIDE_ENOMEM;
  }
#pragma omp parallel for schedule(static) if (np > 8192)
  for (int64_t p = 0; p < np; p++)
    cell[p] = cell_of(g, inv, x + p * dim);
  memset(start, 0, (size_t)(nc + 1) * sizeof(int64_t));
  for (int64_t p = 0; p < np; p++)
    start[cell[p] + 1]++;
  for (int64_t c = 0; c < nc; c++)
    start[c + 1] += start[c];
  /* the fill pointers reuse the start array shifted by one cell */
  for (int64_t p = 0; p < np; p++) {
    int64_t q = start[cell[p]]++;
    for (int a = 0; a < dim; a++)
      b->own[q * dim + a] = x[p * dim + a];
  }
  for (int64_t c = nc; c > 0; c--)
    start[c] = start[c - 1];
  start[0] = 0;
  tide_free(cell, cb);
  b->xs = b->own;
  return TIDE_OK;
}

/* running state of one cell's gather */
typedef struct {
  double best2, sw, swx[3];
} gather_t;

/* fold the particles of bucket cb into the gather around centre c */
static inline void visit(const buckets *b, int64_t cb, int dim, const double *c, double R2, gather_t *st) {
  for (int64_t q = b->start[cb]; q < b->start[cb + 1]; q++) {
    const double *xp = b->xs + dim * q;
    double d2 = 0;
    for (int a = 0; a < dim; a++)
      d2 += (xp[a] - c[a]) * (xp[a] - c[a]);
    if (d2 < st->best2) st->best2 = d2;
    if (d2 < R2) {
      double t = 1 - d2 / R2, w = t * t * t;
      st->sw += w;
      for (int a = 0; a < dim; a++)
        st->swx[a] += w * xp[a];
    }
  }
}

static double finish(const gather_t *st, int dim, const double *c, double r, double reach) {
  if (st->sw > 0) {
    double d2 = 0;
    for (int a = 0; a < dim; a++) {
      double xa = st->swx[a] / st->sw - c[a];
      d2 += xa * xa;
    }
    return sqrt(d2) - r;
  }
  double d = sqrt(st->best2);
  return (d < reach ? d : reach) - r;
}

/* The buckets around a cell in increasing order of the lower bound lb2 of
 * the squared distance from the cell's centre to a point of the bucket (in
 * dx^2): a gather visits them in this order and stops at the first one that
 * can neither be closer than the best so far nor inside the kernel. */
typedef struct {
  int d[3];
  int cheb; /* Chebyshev norm of d */
  double lb2;
} offset_t;

static int offset_cmp(const void *pa, const void *pb) {
  const offset_t *a = pa, *b = pb;
  if (a->lb2 != b->lb2) return a->lb2 < b->lb2 ? -1 : 1;
  for (int k = 0; k < 3; k++)
    if (a->d[k] != b->d[k]) return a->d[k] < b->d[k] ? -1 : 1;
  return 0;
}

/* at most this many cells of reach use the sorted offsets, farther reaches
 * the shells */
#define SORTED_REACH 8

static int offsets_build(int dim, int w, offset_t **out, int *count) {
  int side = 2 * w + 1, n = side * side * (dim == 3 ? side : 1);
  offset_t *o = tide_alloc((size_t)n * sizeof(offset_t));
  if (!o) return TIDE_ENOMEM;
  int m = 0, w2 = dim == 3 ? w : 0;
  for (int i = -w; i <= w; i++)
    for (int j = -w; j <= w; j++)
      for (int k = -w2; k <= w2; k++) {
        int d[3] = {i, j, k};
        double lb2 = 0;
        for (int a = 0; a < 3; a++) {
          double e = abs(d[a]) - 0.5;
          if (e > 0) lb2 += e * e;
        }
        o[m].d[0] = i, o[m].d[1] = j, o[m].d[2] = k, o[m].lb2 = lb2;
        o[m].cheb = abs(i) > abs(j) ? abs(i) : abs(j);
        if (abs(k) > o[m].cheb) o[m].cheb = abs(k);
        m++;
      }
  qsort(o, (size_t)m, sizeof(offset_t), offset_cmp);
  *out = o;
  *count = m;
  return TIDE_OK;
}

/* phi of cell (i, j, k) visiting the buckets in the sorted order; no
 * bucket closer than Chebyshev distance dmin holds a particle */
static double gather_sorted(const tide_grid *g, const buckets *b, const offset_t *off, int noff, int i,
                            int j, int k, int dmin, double r, double R, double reach) {
  double c[3];
  tide_grid_sample_pos(g, TIDE_AT_CELLS, i, j, k, c);
  int dim = g->dim, ijk[3] = {i, j, k};
  double dx2 = g->dx * g->dx, R2 = R * R;
  gather_t st = {INFINITY, 0, {0, 0, 0}};
  for (int e = 0; e < noff; e++) {
    double lb2 = off[e].lb2 * dx2;
    if (lb2 >= R2 && (st.sw > 0 || lb2 >= st.best2)) break;
    if (off[e].cheb < dmin) continue;
    int bb[3];
    int in = 1;
    for (int a = 0; a < 3; a++) {
      bb[a] = ijk[a] + off[e].d[a];
      in &= bb[a] >= 0 && bb[a] < g->n[a];
    }
    if (in) visit(b, tide_grid_idx(g, bb[0], bb[1], bb[2]), dim, c, R2, &st);
  }
  return finish(&st, dim, c, r, reach);
}

/* phi of cell (i, j, k) by shells of growing Chebyshev distance: R is the
 * Zhu--Bridson kernel radius (0 for the union of spheres), wker =
 * ceil(R / dx), wmax the shell limit. */
static double gather_shells(const tide_grid *g, const buckets *b, int i, int j, int k, double r, double R,
                            double reach, int wmax, int wker) {
  double c[3];
  tide_grid_sample_pos(g, TIDE_AT_CELLS, i, j, k, c);
  int dim = g->dim;
  double R2 = R * R;
  gather_t st = {INFINITY, 0, {0, 0, 0}};
  for (int s = 0; s <= wmax; s++) {
    /* no bucket at Chebyshev distance s holds a point closer than (s - 1/2) dx */
    double lb = (s - 0.5) * g->dx;
    if (R > 0 && s <= wker) {
      /* inside the kernel support: every bucket counts */
    } else if (st.sw > 0) {
      break;
    } else if (lb > 0 && st.best2 <= lb * lb) {
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
          if (lb2 >= st.best2 && lb2 >= R2) continue;
          visit(b, tide_grid_idx(g, bi, bj, bk), dim, c, R2, &st);
        }
      }
    }
  }
  return finish(&st, dim, c, r, reach);
}

/* one step of Chebyshev dilation of the 0/1 mask m in place: byte-wise ORs
 * of the neighbours along k (m -> t1), j (t1 -> t2) and i (t2 -> m) */
static void dilate1(const tide_grid *g, uint8_t *m, uint8_t *t1, uint8_t *t2) {
  int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2];
  int64_t s0 = (int64_t)n1 * n2;
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < (int64_t)n0 * n1; row++) {
    const uint8_t *a = m + row * n2;
    uint8_t *o = t1 + row * n2;
    for (int k = 0; k < n2; k++)
      o[k] = a[k] | (k > 0 ? a[k - 1] : 0) | (k + 1 < n2 ? a[k + 1] : 0);
  }
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++) {
      const uint8_t *a = t1 + i * s0 + (int64_t)j * n2;
      const uint8_t *lo = j > 0 ? a - n2 : a, *hi = j + 1 < n1 ? a + n2 : a;
      uint8_t *o = t2 + i * s0 + (int64_t)j * n2;
      for (int k = 0; k < n2; k++)
        o[k] = a[k] | lo[k] | hi[k];
    }
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n0; i++) {
    const uint8_t *a = t2 + i * s0, *lo = i > 0 ? a - s0 : a, *hi = i + 1 < n0 ? a + s0 : a;
    uint8_t *o = m + i * s0;
    for (int64_t q = 0; q < s0; q++)
      o[q] = a[q] | lo[q] | hi[q];
  }
}

/* The level set; start (may be NULL) gives the caller's bucketing of x in
 * cell order, trusted and checked: a particle outside its bucket or not
 * finite sets *stale (phi is then undefined). */
static int particles_sdf(const char *fn, const tide_grid *g, int64_t np, const double *x, double r,
                         double R, double reach, double *phi, const int64_t *start, int *stale) {
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, fn);
  if (st) return st;
  if (np < 0 || (np > 0 && !x) || !phi) return tide_fail(TIDE_EINVAL, "%s: missing particles or output", fn);
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
  if (start) {
    int64_t nc = tide_grid_ncells(g);
    if (start[0] != 0 || start[nc] != np) {
      *stale = 1;
      return TIDE_OK;
    }
    b = (buckets){nc, np, (int64_t *)start, 1, x, NULL};
  } else {
    int64_t bad = 0;
    if ((st = buckets_build(g, np, x, &b, &bad))) return st;
    if (bad)
      return tide_fail(TIDE_ENONFINITE, "%s: %lld non-finite particle coordinates", fn, (long long)bad);
  }
  offset_t *off = NULL;
  int noff = 0;
  if (wmax <= SORTED_REACH && (st = offsets_build(g->dim, wmax, &off, &noff))) {
    buckets_free(&b, g->dim);
    return st;
  }
  /* level[c]: the Chebyshev distance (in buckets) to the nearest occupied
   * bucket, 255 beyond wmax: those cells are farther than reach and get
   * reach - r without a search, the others skip the nearer buckets */
  int64_t N = tide_grid_ncells(g);
  uint8_t *level = tide_alloc((size_t)N * 4);
  if (!level) {
    tide_free(off, off ? (size_t)noff * sizeof(offset_t) : 0);
    buckets_free(&b, g->dim);
    return TIDE_ENOMEM;
  }
  uint8_t *m = level + N, *t1 = m + N, *t2 = t1 + N;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < N; c++) {
    m[c] = b.start[c + 1] > b.start[c];
    level[c] = m[c] ? 0 : 255;
  }
  for (int w = 1; w <= wmax; w++) {
    dilate1(g, m, t1, t2);
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < N; c++)
      if (m[c] && level[c] == 255) level[c] = (uint8_t)w;
  }
  int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2], strays = 0, dim = g->dim;
  double inv = 1.0 / g->dx;
#pragma omp parallel for collapse(2) schedule(dynamic, 4) reduction(| : strays)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        if (b.given) /* the caller's buckets: every particle checked in its own cell */
          for (int64_t q = b.start[c]; q < b.start[c + 1]; q++) {
            const double *xq = x + q * dim;
            int fin = 1;
            for (int a = 0; a < dim; a++) fin &= isfinite(xq[a]) != 0;
            strays |= !fin || cell_of(g, inv, xq) != c;
          }
        phi[c] = level[c] == 255 ? reach - r
                 : off           ? gather_sorted(g, &b, off, noff, i, j, k, level[c], r, R, reach)
                                 : gather_shells(g, &b, i, j, k, r, R, reach, wmax, wker);
      }
  tide_free(level, (size_t)N * 4);
  if (strays) *stale = 1;
  tide_free(off, off ? (size_t)noff * sizeof(offset_t) : 0);
  buckets_free(&b, g->dim);
  return TIDE_OK;
}

int tide_sdf_particles_union(const tide_grid *g, int64_t np, const double *x, double r,
                             double reach, double *phi) {
  return tide_sdf_particles_binned(g, np, x, NULL, r, 0, reach, phi);
}

int tide_sdf_particles_zhu_bridson(const tide_grid *g, int64_t np, const double *x, double r,
                                   double R, double reach, double *phi) {
  if (!(R > 0)) R = 2 * r;
  return tide_sdf_particles_binned(g, np, x, NULL, r, R, reach, phi);
}

int tide_sdf_particles_binned(const tide_grid *g, int64_t np, const double *x, const int64_t *start,
                              double r, double R, double reach, double *phi) {
  const char *fn = R > 0 ? "particle sdf (zhu-bridson)" : "particle sdf (union)";
  if (g && !(reach > 0)) reach = 3 * g->dx + (R > 0 ? R : r);
  if (!isfinite(R) || R < 0) return tide_fail(TIDE_EINVAL, "%s: kernel radius must be >= 0 and finite", fn);
  int stale = 0;
  int st = particles_sdf(fn, g, np, x, r, R, reach, phi, start, &stale);
  if (st || !stale || !start) return st;
  return particles_sdf(fn, g, np, x, r, R, reach, phi, NULL, &stale);
}
