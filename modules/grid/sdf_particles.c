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

typedef struct {
  int64_t ncell;
  int64_t *start; /* ncell + 1 offsets into idx */
  int64_t *idx;   /* particle ids sorted by cell */
} buckets;

static void buckets_free(buckets *b, int64_t np) {
  tide_free(b->start, (size_t)(b->ncell + 1) * sizeof(int64_t));
  tide_free(b->idx, (size_t)np * sizeof(int64_t));
}

static int64_t cell_of(const tide_grid *g, const double *x) {
  int c[3] = {0, 0, 0};
  for (int a = 0; a < g->dim; a++) {
    double s = floor((x[a] - g->origin[a]) / g->dx);
    c[a] = s < 0 ? 0 : s > g->n[a] - 1 ? g->n[a] - 1 : (int)s;
  }
  return tide_grid_idx(g, c[0], c[1], c[2]);
}

static int buckets_build(const tide_grid *g, int64_t np, const double *x, buckets *b) {
  b->ncell = tide_grid_ncells(g);
  b->start = tide_calloc((size_t)(b->ncell + 1) * sizeof(int64_t));
  b->idx = tide_alloc((size_t)(np > 0 ? np : 1) * sizeof(int64_t));
  if (!b->start || !b->idx) {
    buckets_free(b, np);
    return TIDE_ENOMEM;
  }
  /* idx temporarily holds each particle's cell */
  int64_t *cell = b->idx;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < np; p++)
    cell[p] = cell_of(g, x + p * g->dim);
  for (int64_t p = 0; p < np; p++)
    b->start[cell[p] + 1]++;
  for (int64_t c = 0; c < b->ncell; c++)
    b->start[c + 1] += b->start[c];
  /* stable placement in a second array, then move back */
  int64_t *sorted = tide_alloc((size_t)(np > 0 ? np : 1) * sizeof(int64_t));
  int64_t *fill = tide_alloc((size_t)b->ncell * sizeof(int64_t));
  if (!sorted || !fill) {
    tide_free(sorted, (size_t)(np > 0 ? np : 1) * sizeof(int64_t));
    tide_free(fill, (size_t)b->ncell * sizeof(int64_t));
    buckets_free(b, np);
    return TIDE_ENOMEM;
  }
  for (int64_t c = 0; c < b->ncell; c++)
    fill[c] = b->start[c];
  for (int64_t p = 0; p < np; p++)
    sorted[fill[cell[p]]++] = p;
  for (int64_t p = 0; p < np; p++)
    b->idx[p] = sorted[p];
  tide_free(sorted, (size_t)(np > 0 ? np : 1) * sizeof(int64_t));
  tide_free(fill, (size_t)b->ncell * sizeof(int64_t));
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
  int ijk[3] = {i, j, k};
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
    int lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
      int ss = a < dim ? s : 0;
      lo[a] = ijk[a] - ss < 0 ? 0 : ijk[a] - ss;
      hi[a] = ijk[a] + ss > g->n[a] - 1 ? g->n[a] - 1 : ijk[a] + ss;
    }
    for (int bi = lo[0]; bi <= hi[0]; bi++)
      for (int bj = lo[1]; bj <= hi[1]; bj++)
        for (int bk = lo[2]; bk <= hi[2]; bk++) {
          int di = abs(bi - i), dj = abs(bj - j), dk = abs(bk - k);
          int cheb = di > dj ? di : dj;
          cheb = cheb > dk ? cheb : dk;
          if (cheb != s) continue;
          int64_t cb = tide_grid_idx(g, bi, bj, bk);
          for (int64_t q = b->start[cb]; q < b->start[cb + 1]; q++) {
            const double *xp = x + b->idx[q] * dim;
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
  int wker = R > 0 ? (int)ceil(R / g->dx) : 0;
  int wmax = (int)ceil(reach / g->dx);
  if (wmax < wker) wmax = wker;
  if (wmax > 64) return tide_fail(TIDE_EINVAL, "%s: reach %g is more than 64 cells", fn, reach);
  buckets b;
  if ((st = buckets_build(g, np, x, &b))) return st;
  int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2];
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++)
        phi[tide_grid_idx(g, i, j, k)] = gather(g, &b, x, i, j, k, r, R, reach, wmax, wker);
  buckets_free(&b, np);
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
