/*
 * sph.c -- SPH kernels, Morton-sorted cell-list neighbour search, WCSPH and
 * DFSPH with boundary particles (see sph.h).
 */
#include "sph/sph.h"

#include "tide.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------- kernels */

int tide_sph_kernel_init(tide_sph_kernel *k, int kind, int dim, double H) {
  if (dim != 2 && dim != 3)
    return tide_fail(TIDE_EINVAL, "SPH: dimension must be 2 or 3, got %d", dim);
  if (!(H > 0 && isfinite(H)))
    return tide_fail(TIDE_EINVAL, "SPH: kernel support must be > 0, got %g", H);
  k->kind = kind;
  k->dim = dim;
  k->H = H;
  if (kind == TIDE_SPH_CUBIC) {
    double h = 0.5 * H;
    k->sigma = dim == 2 ? 10.0 / (7.0 * M_PI * h * h) : 1.0 / (M_PI * h * h * h);
  } else if (kind == TIDE_SPH_WENDLAND) {
    k->sigma = dim == 2 ? 7.0 / (M_PI * H * H) : 21.0 / (2.0 * M_PI * H * H * H);
  } else {
    return tide_fail(TIDE_EINVAL, "SPH: unknown kernel %d", kind);
  }
  return TIDE_OK;
}

double tide_sph_W(const tide_sph_kernel *k, double r) { return tide_sph_kernel_W(k, r); }

double tide_sph_dW(const tide_sph_kernel *k, double r) { return tide_sph_kernel_dW(k, r); }

/* -------------------------------------------------------------- Morton */

uint64_t tide_sph_morton(int dim, int i, int j, int k) { return tide_morton(dim, i, j, k); }

/* ------------------------------------------------------- construction */

static int reserve(tide_sph *s, int64_t cap);
static void map_free(tide_sph_map *m);

int tide_sph_new(const tide_grid *g, const tide_sph_params *prm, tide_sph **out) {
  *out = NULL;
  int st;
  if ((st = tide_sdf_check_grid(g, TIDE_AT_CELLS, "tide.sph"))) return st;
  if (!(prm->support > 1 && prm->support <= 6))
    return tide_fail(TIDE_EINVAL, "SPH: support must be in (1, 6] particle spacings, got %g",
                     prm->support);
  if (!(prm->rho0 > 0 && isfinite(prm->rho0)))
    return tide_fail(TIDE_EINVAL, "SPH: rest density must be > 0, got %g", prm->rho0);
  if (!(prm->c > 0 && isfinite(prm->c)))
    return tide_fail(TIDE_EINVAL, "SPH: speed of sound must be > 0, got %g", prm->c);
  if (!(prm->alpha_visc >= 0 && isfinite(prm->alpha_visc) && prm->alpha_bound >= 0 &&
        isfinite(prm->alpha_bound)))
    return tide_fail(TIDE_EINVAL, "SPH: viscosities must be finite and >= 0, got %g and %g",
                     prm->alpha_visc, prm->alpha_bound);
  tide_sph *s = tide_calloc(sizeof *s);
  if (!s) return TIDE_ENOMEM;
  s->dim = g->dim;
  s->g = *g;
  if ((st = tide_sph_kernel_init(&s->K, prm->kernel, g->dim, prm->support * g->dx))) {
    tide_free(s, sizeof *s);
    return st;
  }
  s->rho0 = prm->rho0;
  for (int a = 0; a < 3; a++)
    s->gravity[a] = a < g->dim ? prm->gravity[a] : 0;
  s->c = prm->c;
  s->gamma = 7;
  s->warm = 0.5;
  s->map_lattice = 1;
  s->alpha_visc = prm->alpha_visc;
  s->alpha_bound = prm->alpha_bound;
  s->wvisc = prm->alpha_bound > 0;
  s->renormalize = prm->renormalize != 0;
  s->wall_hydrostatic = prm->wall_hydrostatic != 0;
  s->ncells = 1;
  int mx = 1;
  for (int a = 0; a < 3; a++) {
    s->nc[a] = a < g->dim ? (int)ceil(g->n[a] * g->dx / s->K.H - 1e-9) : 1;
    if (s->nc[a] < 1) s->nc[a] = 1;
    s->ncells *= s->nc[a];
    if (s->nc[a] > mx) mx = s->nc[a];
  }
  int b = 1;
  while ((1 << b) < mx)
    b++;
  if (b > (g->dim == 3 ? 21 : 31)) {
    tide_free(s, sizeof *s);
    return tide_fail(TIDE_EINVAL, "SPH: too many neighbour cells per axis (%d)", mx);
  }
  s->morton_bits = g->dim * b;
  /* particle mass: the rest density is exact on the seeding lattice */
  {
    double sum = 0, dx = g->dx;
    int R = (int)ceil(s->K.H / dx) + 1, kz = g->dim == 3 ? R : 0;
    for (int i = -R; i <= R; i++)
      for (int j = -R; j <= R; j++)
        for (int k = -kz; k <= kz; k++)
          sum += tide_sph_kernel_W(&s->K, dx * sqrt((double)(i * i + j * j + k * k)));
    s->mass = prm->rho0 / sum;
  }
  s->fbeg = tide_calloc(sizeof(int64_t) * (size_t)s->ncells);
  s->fend = tide_calloc(sizeof(int64_t) * (size_t)s->ncells);
  s->bbeg = tide_calloc(sizeof(int64_t) * (size_t)s->ncells);
  s->bend = tide_calloc(sizeof(int64_t) * (size_t)s->ncells);
  if (!s->fbeg || !s->fend || !s->bbeg || !s->bend ||
      (st = tide_particles_new(g->dim, 1024, 0, &s->ps)) || (st = reserve(s, 1024))) {
    tide_sph_free(s);
    return st ? st : TIDE_ENOMEM;
  }
  *out = s;
  return TIDE_OK;
}

void tide_sph_free(tide_sph *s) {
  if (!s) return;
  size_t nc = (size_t)s->ncells;
  tide_particles_free(s->ps);
  tide_array *arrs[] = {s->rho, s->p, s->a, s->alpha, s->kap, s->err, s->ksum, s->ren, s->wall};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    tide_array_release(arrs[i]);
  for (int w = 0; w < s->nwall; w++) {
    tide_shape_release(s->wshape[w]);
    map_free(s->wmap[w]);
  }
  tide_free(s->bx, sizeof(double) * (size_t)(s->bcap * s->dim));
  tide_free(s->psi, sizeof(double) * (size_t)s->bcap);
  tide_free(s->bkind, sizeof(double) * (size_t)s->bcap);
  tide_free(s->bset, sizeof(double) * (size_t)s->bcap);
  tide_free(s->by, sizeof(double) * (size_t)(s->bcap * s->dim));
  tide_free(s->bv, sizeof(double) * (size_t)(s->bcap * s->dim));
  tide_free(s->wgrp, sizeof(double) * (size_t)s->wgcap);
  tide_free(s->nstart, sizeof(int64_t) * (size_t)s->nscap);
  tide_free(s->bstart, sizeof(int64_t) * (size_t)s->nscap);
  tide_free(s->nbr, sizeof(int32_t) * (size_t)s->lcap);
  tide_free(s->bnbr, sizeof(int32_t) * (size_t)s->blcap);
  tide_free(s->scr, sizeof(int32_t) * (size_t)s->scap);
  tide_free(s->fbeg, sizeof(int64_t) * nc);
  tide_free(s->fend, sizeof(int64_t) * nc);
  tide_free(s->bbeg, sizeof(int64_t) * nc);
  tide_free(s->bend, sizeof(int64_t) * nc);
  tide_free(s->key, sizeof(uint64_t) * (size_t)s->wscap);
  tide_free(s->key2, sizeof(uint64_t) * (size_t)s->wscap);
  tide_free(s->idx, sizeof(int64_t) * (size_t)s->wscap);
  tide_free(s->idx2, sizeof(int64_t) * (size_t)s->wscap);
  tide_free(s->cellid, sizeof(int64_t) * (size_t)s->wscap);
  tide_free(s->tmp, s->tmp_bytes);
  tide_free(s, sizeof *s);
}

int64_t tide_sph_bytes(const tide_sph *s) {
  int64_t b = tide_particles_bytes(s->ps) + (int64_t)sizeof *s;
  const tide_array *arrs[] = {s->rho, s->p, s->a, s->alpha, s->kap, s->err, s->ksum, s->ren, s->wall};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    if (arrs[i]) b += tide_array_size(arrs[i]) * (int64_t)tide_dtype_size(arrs[i]->dtype);
  b += (int64_t)(s->bcap * (s->dim + 3)) * 8 + s->wgcap * 8 + 2 * s->nscap * 8 +
       4 * (s->lcap + s->blcap + s->scap) + 4 * s->ncells * 8 + 5 * s->wscap * 8 +
       (int64_t)s->tmp_bytes;
  for (int w = 0; w < s->nwall; w++)
    if (s->wmap[w])
      b += (int64_t)s->wmap[w]->n[0] * s->wmap[w]->n[1] * s->wmap[w]->n[2] * s->wmap[w]->nv * 8 +
           (int64_t)sizeof(tide_sph_map);
  return b;
}

static int grow_arr(tide_array **a, int64_t n, int64_t cap, int64_t cols) {
  tide_array *b = tide_array_new2(TIDE_F64, cap, cols);
  if (!b) return TIDE_ENOMEM;
  memset(tide_array_ptr(b), 0, sizeof(double) * (size_t)(cap * cols));
  if (*a) memcpy(tide_array_ptr(b), tide_array_ptr(*a), sizeof(double) * (size_t)(n * cols));
  tide_array_release(*a);
  *a = b;
  return TIDE_OK;
}

/* columns of the per-particle wall terms: rho_w, -tr T_w, sum v_w . G_w, G_w (d),
 * T_w (d x d); WALL_G the column of G_w */
#define WALL_COLS(d) (3 + (d) + (d) * (d))
#define WALL_G 3
/* the wall terms of one boundary with the viscosity tensor V_w (d x d)
 * after T_w: the per-boundary slots and the maps carry it when s->wvisc */
#define WALL_VCOLS(d) (WALL_COLS(d) + (d) * (d))
#define WALL_MAXV (3 + 3 + 9 + 9)
/* the terms of one boundary (maps' nodes, wall_row's scratch) and the
 * values of a per-boundary slot (index, G_w, T_w[, V_w]) */
static inline int term_cols(const tide_sph *s) {
  return s->wvisc ? WALL_VCOLS(s->dim) : WALL_COLS(s->dim);
}
static inline int slot_cols(const tide_sph *s) { return term_cols(s) - 2; }
/* the regularisation of Monaghan's viscosity, 0.01 h^2 (h = H/2) */
static inline double visc_eps(const tide_sph *s) { return 0.01 * 0.25 * s->K.H * s->K.H; }

/* room for cap fluid particles in every attribute and workspace */
static int reserve(tide_sph *s, int64_t cap) {
  int st, d = s->dim;
  if (cap <= s->cap) return TIDE_OK;
  int64_t n = s->ps->n < s->cap ? s->ps->n : s->cap;
  if ((st = tide_particles_reserve(s->ps, cap))) return st;
  if ((st = grow_arr(&s->rho, n, cap, 1)) || (st = grow_arr(&s->p, n, cap, 1)) ||
      (st = grow_arr(&s->a, n, cap, d)) || (st = grow_arr(&s->alpha, n, cap, 1)) ||
      (st = grow_arr(&s->kap, n, cap, 1)) || (st = grow_arr(&s->err, n, cap, 1)) ||
      (st = grow_arr(&s->ksum, n, cap, 1)) || (st = grow_arr(&s->ren, n, cap, 1)) ||
      (st = grow_arr(&s->wall, n, cap, WALL_COLS(d))))
    return st;
  s->cap = cap;
  return TIDE_OK;
}

/* sort workspace for m items, tmp for m rows of d doubles */
static int workspace(tide_sph *s, int64_t m) {
  if (m <= s->wscap) return TIDE_OK;
  int64_t c = m + m / 2 + 64;
  tide_free(s->key, sizeof(uint64_t) * (size_t)s->wscap);
  tide_free(s->key2, sizeof(uint64_t) * (size_t)s->wscap);
  tide_free(s->idx, sizeof(int64_t) * (size_t)s->wscap);
  tide_free(s->idx2, sizeof(int64_t) * (size_t)s->wscap);
  tide_free(s->cellid, sizeof(int64_t) * (size_t)s->wscap);
  tide_free(s->tmp, s->tmp_bytes);
  s->key = tide_alloc(sizeof(uint64_t) * (size_t)c);
  s->key2 = tide_alloc(sizeof(uint64_t) * (size_t)c);
  s->idx = tide_alloc(sizeof(int64_t) * (size_t)c);
  s->idx2 = tide_alloc(sizeof(int64_t) * (size_t)c);
  s->cellid = tide_alloc(sizeof(int64_t) * (size_t)c);
  s->tmp_bytes = sizeof(double) * (size_t)(c * s->dim);
  s->tmp = tide_alloc(s->tmp_bytes);
  s->wscap = c;
  if (!s->key || !s->key2 || !s->idx || !s->idx2 || !s->cellid || !s->tmp) {
    s->wscap = 0;
    return TIDE_ENOMEM;
  }
  return TIDE_OK;
}

/* cell coordinates of point x; 0 when outside the box or not finite */
static inline int cell_of(const tide_sph *s, const double *x, int c[3]) {
  c[1] = c[2] = 0;
  for (int a = 0; a < s->dim; a++) {
    double f = (x[a] - s->g.origin[a]) / s->K.H;
    if (!(f >= 0 && f < s->nc[a])) {
      /* the box's far face belongs to the last cell */
      if (f == s->nc[a])
        f = s->nc[a] - 1;
      else
        return 0;
    }
    c[a] = (int)f;
  }
  return 1;
}

static inline int64_t cell_index(const tide_sph *s, const int c[3]) {
  return ((int64_t)c[0] * s->nc[1] + c[1]) * s->nc[2] + c[2];
}

/* Stable LSD radix sort of (key, idx) over fixed blocks: the result does
 * not depend on the thread count.  Sorted pairs end in s->key / s->idx. */
#define RS_BLOCKS 64
static void radix_sort(tide_sph *s, int64_t m) {
  uint64_t *k0 = s->key, *k1 = s->key2;
  int64_t *i0 = s->idx, *i1 = s->idx2;
  int passes = (s->morton_bits + 7) / 8;
  int64_t bs = (m + RS_BLOCKS - 1) / RS_BLOCKS;
  static const int NB = RS_BLOCKS;
  for (int pass = 0; pass < passes; pass++) {
    int sh = 8 * pass;
    int64_t hist[RS_BLOCKS][256];
#pragma omp parallel for schedule(static) if (m > TIDE_PAR_MIN)
    for (int b = 0; b < NB; b++) {
      memset(hist[b], 0, sizeof hist[b]);
      int64_t lo = b * bs, hi = lo + bs < m ? lo + bs : m;
      for (int64_t q = lo; q < hi; q++)
        hist[b][(k0[q] >> sh) & 255]++;
    }
    int64_t run = 0;
    for (int dg = 0; dg < 256; dg++)
      for (int b = 0; b < NB; b++) {
        int64_t c = hist[b][dg];
        hist[b][dg] = run;
        run += c;
      }
#pragma omp parallel for schedule(static) if (m > TIDE_PAR_MIN)
    for (int b = 0; b < NB; b++) {
      int64_t lo = b * bs, hi = lo + bs < m ? lo + bs : m;
      for (int64_t q = lo; q < hi; q++) {
        int dg = (int)((k0[q] >> sh) & 255);
        int64_t o = hist[b][dg]++;
        k1[o] = k0[q];
        i1[o] = i0[q];
      }
    }
    uint64_t *tk = k0;
    k0 = k1, k1 = tk;
    int64_t *ti = i0;
    i0 = i1, i1 = ti;
  }
  s->key = k0, s->key2 = k1, s->idx = i0, s->idx2 = i1;
}

/* gather rows of `cols` doubles by order into tmp and copy back */
static void permute(tide_sph *s, double *a, int64_t m, int cols) {
  double *t = s->tmp;
  const int64_t *o = s->idx;
#pragma omp parallel for schedule(static) if (m > TIDE_PAR_MIN)
  for (int64_t q = 0; q < m; q++)
    for (int c = 0; c < cols; c++)
      t[q * cols + c] = a[o[q] * cols + c];
  memcpy(a, t, sizeof(double) * (size_t)(m * cols));
}

/* Sort m points x (m, d) by Morton code of their cell (permuting x and
 * the extra arrays), and fill the cell ranges beg/end.  Returns nonzero
 * when a point is outside the box or not finite. */
static int sort_points(tide_sph *s, int64_t m, double *x, double **extra, const int *cols,
                       int nextra, int64_t *beg, int64_t *end) {
  int d = s->dim, bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (m > TIDE_PAR_MIN)
  for (int64_t p = 0; p < m; p++) {
    int c[3];
    if (!cell_of(s, x + p * d, c)) {
      bad = 1;
      s->key[p] = 0;
      s->cellid[p] = 0;
    } else {
      s->key[p] = tide_sph_morton(d, c[0], c[1], c[2]);
      s->cellid[p] = cell_index(s, c);
    }
    s->idx[p] = p;
  }
  if (bad) return 1;
  radix_sort(s, m);
  permute(s, x, m, d);
  for (int e = 0; e < nextra; e++)
    permute(s, extra[e], m, cols[e]);
  /* the cell ids in sorted order (idx2 is free after the sort) */
  int64_t *cid = s->idx2;
#pragma omp parallel for schedule(static) if (m > TIDE_PAR_MIN)
  for (int64_t q = 0; q < m; q++)
    cid[q] = s->cellid[s->idx[q]];
  int64_t nc = s->ncells;
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++)
    beg[c] = end[c] = 0;
#pragma omp parallel for schedule(static) if (m > TIDE_PAR_MIN)
  for (int64_t q = 0; q < m; q++) {
    if (q == 0 || cid[q - 1] != cid[q]) beg[cid[q]] = q;
    if (q == m - 1 || cid[q + 1] != cid[q]) end[cid[q]] = q + 1;
  }
  return 0;
}

/* Visit the points of the set (beg/end, positions y) within H of x:
 * count them and write the indices of the first `cap` of them to list
 * (list NULL: count only); skip index `self`. */
static inline int64_t gather(const tide_sph *s, const double *x, const int64_t *beg,
                             const int64_t *end, const double *y, int64_t self, int32_t *list,
                             int64_t cap) {
  int d = s->dim, c[3];
  cell_of(s, x, c);
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int a = 0; a < d; a++) {
    lo[a] = c[a] > 0 ? c[a] - 1 : 0;
    hi[a] = c[a] < s->nc[a] - 1 ? c[a] + 1 : s->nc[a] - 1;
  }
  double H2 = s->K.H * s->K.H;
  int64_t cnt = 0;
  int cc[3];
  for (cc[0] = lo[0]; cc[0] <= hi[0]; cc[0]++)
    for (cc[1] = lo[1]; cc[1] <= hi[1]; cc[1]++)
      for (cc[2] = lo[2]; cc[2] <= hi[2]; cc[2]++) {
        int64_t id = cell_index(s, cc);
        for (int64_t q = beg[id]; q < end[id]; q++) {
          if (q == self) continue;
          double r2 = 0;
          for (int a = 0; a < d; a++) {
            double t = x[a] - y[q * d + a];
            r2 += t * t;
          }
          if (r2 < H2) {
            if (list && cnt < cap) list[cnt] = (int32_t)q;
            cnt++;
          }
        }
      }
  return cnt;
}

/* ------------------------------------------------------------ seeding */

int tide_sph_seed(tide_sph *s, const tide_shape *shape, double jitter, uint64_t stream,
                  const double *vel, int64_t *added) {
  int st;
  if (added) *added = 0;
  if (!shape) return tide_fail(TIDE_EINVAL, "SPH: seeding needs a shape");
  if (!(jitter >= 0 && jitter <= 1)) return tide_fail(TIDE_EINVAL, "SPH: jitter must be in [0, 1]");
  int64_t n0 = s->ps->n, got = 0;
  if ((st = tide_particles_seed(s->ps, &s->g, shape, NULL, 1, jitter, stream, vel, NULL, &got)))
    return st;
  if (s->ps->n >= INT32_MAX) return tide_fail(TIDE_EINVAL, "SPH: at most 2^31 - 1 particles");
  if ((st = reserve(s, s->ps->cap > s->ps->n ? s->ps->cap : s->ps->n))) return st;
  double *rho = TIDE_F64P(s->rho);
  double *ren = TIDE_F64P(s->ren);
  for (int64_t p = n0; p < s->ps->n; p++) {
    rho[p] = s->rho0;
    ren[p] = 1;
  }
  s->nvalid = 0;
  if (added) *added = got;
  return TIDE_OK;
}

int tide_sph_boundary(tide_sph *s, const tide_shape *shape, int layers, int outside,
                      int64_t *added) {
  int st, d = s->dim;
  if (added) *added = 0;
  if (!shape) return tide_fail(TIDE_EINVAL, "SPH: boundary particles need a shape");
  if (layers < 1) return tide_fail(TIDE_EINVAL, "SPH: layers must be >= 1, got %d", layers);
  if (s->nset >= TIDE_SPH_MAXSET)
    return tide_fail(TIDE_EINVAL, "SPH: at most %d boundary particle sets", TIDE_SPH_MAXSET);
  int64_t nc = tide_grid_ncells(&s->g);
  size_t pb = sizeof(double) * (size_t)nc;
  double *phi = tide_alloc(pb);
  if (!phi) return TIDE_ENOMEM;
  if ((st = tide_shape_sdf(shape, &s->g, TIDE_AT_CELLS, phi))) {
    tide_free(phi, pb);
    return st;
  }
  double w = layers * s->g.dx;
  int64_t cnt = 0;
  for (int64_t c = 0; c < nc; c++)
    cnt += outside ? (phi[c] >= 0 && phi[c] < w) : (phi[c] <= 0 && phi[c] > -w);
  int64_t nb = s->nb + cnt;
  if (nb >= INT32_MAX) {
    tide_free(phi, pb);
    return tide_fail(TIDE_EINVAL, "SPH: at most 2^31 - 1 boundary particles");
  }
  if (nb > s->bcap) {
    double *bx = tide_alloc(sizeof(double) * (size_t)(nb * d));
    double *psi = tide_alloc(sizeof(double) * (size_t)nb);
    double *bk = tide_alloc(sizeof(double) * (size_t)nb);
    double *bset = tide_alloc(sizeof(double) * (size_t)nb);
    double *by = tide_alloc(sizeof(double) * (size_t)(nb * d));
    double *bv = tide_alloc(sizeof(double) * (size_t)(nb * d));
    if (!bx || !psi || !bk || !bset || !by || !bv) {
      tide_free(by, sizeof(double) * (size_t)(nb * d));
      tide_free(bv, sizeof(double) * (size_t)(nb * d));
      tide_free(bx, sizeof(double) * (size_t)(nb * d));
      tide_free(psi, sizeof(double) * (size_t)nb);
      tide_free(bk, sizeof(double) * (size_t)nb);
      tide_free(bset, sizeof(double) * (size_t)nb);
      tide_free(phi, pb);
      return TIDE_ENOMEM;
    }
    if (s->nb) memcpy(bx, s->bx, sizeof(double) * (size_t)(s->nb * d));
    if (s->nb) memcpy(bk, s->bkind, sizeof(double) * (size_t)s->nb);
    if (s->nb) memcpy(bset, s->bset, sizeof(double) * (size_t)s->nb);
    if (s->nb) memcpy(by, s->by, sizeof(double) * (size_t)(s->nb * d));
    if (s->nb) memcpy(bv, s->bv, sizeof(double) * (size_t)(s->nb * d));
    tide_free(s->by, sizeof(double) * (size_t)(s->bcap * d));
    tide_free(s->bv, sizeof(double) * (size_t)(s->bcap * d));
    s->by = by, s->bv = bv;
    tide_free(s->bx, sizeof(double) * (size_t)(s->bcap * d));
    tide_free(s->psi, sizeof(double) * (size_t)s->bcap);
    tide_free(s->bkind, sizeof(double) * (size_t)s->bcap);
    tide_free(s->bset, sizeof(double) * (size_t)s->bcap);
    s->bx = bx, s->psi = psi, s->bkind = bk, s->bset = bset, s->bcap = nb;
  }
  int64_t q = s->nb;
  double cen[3] = {0, 0, 0};
  for (int64_t c = 0; c < nc; c++) {
    int in = outside ? (phi[c] >= 0 && phi[c] < w) : (phi[c] <= 0 && phi[c] > -w);
    if (!in) continue;
    int ijk[3] = {(int)(c / ((int64_t)s->g.n[1] * s->g.n[2])), (int)((c / s->g.n[2]) % s->g.n[1]),
                  (int)(c % s->g.n[2])};
    for (int a = 0; a < d; a++)
      s->bx[q * d + a] = s->g.origin[a] + (ijk[a] + 0.5) * s->g.dx;
    for (int a = 0; a < d; a++)
      cen[a] += s->bx[q * d + a];
    s->bset[q] = s->nset;
    q++;
  }
  for (int a = 0; a < 3; a++)
    s->bcen[s->nset][a] = cnt > 0 && a < d ? cen[a] / (double)cnt : 0;
  for (int64_t b = s->nb; b < nb; b++)
    for (int a = 0; a < d; a++) {
      s->by[b * d + a] = s->bx[b * d + a] - s->bcen[s->nset][a];
      s->bv[b * d + a] = 0;
    }
  for (int a = 0; a < 9; a++)
    s->brot[s->nset][a] = a % 4 == 0;
  for (int a = 0; a < 3; a++)
    s->bvel[s->nset][a] = s->bom[s->nset][a] = 0;
  s->bmoving[s->nset] = 0;
  if (cnt > 0) s->nset++;
  tide_free(phi, pb);
  s->nb = nb;
  /* sort the boundary by Morton code, then Psi_b = rho0 / sum_b' W_bb' */
  if ((st = workspace(s, nb))) return st;
  {
    int thick = layers * s->g.dx >= s->K.H * (1 - 1e-9);
    for (int64_t b = nb - cnt; b < nb; b++)
      s->bkind[b] = thick;
  }
  double *bex[4] = {s->bkind, s->bset, s->by, s->bv};
  int ones[4] = {1, 1, d, d};
  if (sort_points(s, nb, s->bx, bex, ones, 4, s->bbeg, s->bend))
    return tide_fail(TIDE_EINVAL, "SPH: a boundary particle lies outside the box");
  const double *bx = s->bx;
#pragma omp parallel for schedule(static) if (nb > 1024)
  for (int64_t b = 0; b < nb; b++) {
    const double *xb = bx + b * d;
    int c[3];
    cell_of(s, xb, c);
    double sum = tide_sph_kernel_W(&s->K, 0);
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, cc[3];
    for (int a = 0; a < d; a++) {
      lo[a] = c[a] > 0 ? c[a] - 1 : 0;
      hi[a] = c[a] < s->nc[a] - 1 ? c[a] + 1 : s->nc[a] - 1;
    }
    for (cc[0] = lo[0]; cc[0] <= hi[0]; cc[0]++)
      for (cc[1] = lo[1]; cc[1] <= hi[1]; cc[1]++)
        for (cc[2] = lo[2]; cc[2] <= hi[2]; cc[2]++) {
          int64_t id = cell_index(s, cc);
          for (int64_t k = s->bbeg[id]; k < s->bend[id]; k++) {
            if (k == b) continue;
            double r2 = 0;
            for (int a = 0; a < d; a++) {
              double t = xb[a] - bx[k * d + a];
              r2 += t * t;
            }
            sum += tide_sph_kernel_W(&s->K, sqrt(r2));
          }
        }
    /* a band at least as thick as the support fills every fluid
     * particle's kernel beyond the wall: more of the lattice, Psi = m */
    s->psi[b] = s->bkind[b] > 0 ? s->mass : s->rho0 / sum;
  }
  s->nvalid = 0;
  if (added) *added = cnt;
  return TIDE_OK;
}

/* ------------------------------------------------- moving particle sets */

/* v = vel + omega x r (2D omega[2] about z) */
static inline void rigid_vel(int d, const double *vel, const double *om, const double *r,
                             double *v) {
  double rr[3] = {r[0], r[1], d == 3 ? r[2] : 0};
  v[0] = vel[0] + om[1] * rr[2] - om[2] * rr[1];
  v[1] = vel[1] + om[2] * rr[0] - om[0] * rr[2];
  if (d == 3) v[2] = vel[2] + om[0] * rr[1] - om[1] * rr[0];
}

/* the particles of every moving set at c + R y with velocity vel + omega x (x - c) */
static void sets_place(tide_sph *s) {
  int d = s->dim;
  for (int64_t b = 0; b < s->nb; b++) {
    int k = (int)s->bset[b];
    if (!s->bmoving[k]) continue;
    const double *R = s->brot[k], *y = s->by + b * d, *c = s->bcen[k];
    double r[3] = {0, 0, 0};
    for (int a = 0; a < d; a++) {
      for (int e = 0; e < d; e++)
        r[a] += R[a * 3 + e] * y[e];
      s->bx[b * d + a] = c[a] + r[a];
    }
    rigid_vel(d, s->bvel[k], s->bom[k], r, s->bv + b * d);
  }
}

int tide_sph_set_motion(tide_sph *s, int k, const double *centre, const double *vel,
                        const double *omega) {
  int d = s->dim;
  if (k < 0 || k >= s->nset)
    return tide_fail(TIDE_EINVAL, "SPH: no boundary particle set %d (there are %d)", k + 1,
                     s->nset);
  for (int a = 0; a < 3; a++)
    if ((vel && a < d && !isfinite(vel[a])) || (omega && !isfinite(omega[a])) ||
        (centre && a < d && !isfinite(centre[a])))
      return tide_fail(TIDE_EINVAL, "SPH: boundary set motion not finite");
  if (centre) { /* y = R^T (x - c) about the new centre */
    for (int64_t b = 0; b < s->nb; b++) {
      if ((int)s->bset[b] != k) continue;
      for (int a = 0; a < d; a++) {
        double y = 0;
        for (int e = 0; e < d; e++)
          y += s->brot[k][e * 3 + a] * (s->bx[b * d + e] - centre[e]);
        s->by[b * d + a] = y;
      }
    }
    for (int a = 0; a < d; a++)
      s->bcen[k][a] = centre[a];
  }
  for (int a = 0; a < 3; a++) {
    s->bvel[k][a] = vel && a < d ? vel[a] : 0;
    s->bom[k][a] = omega && (d == 3 || a == 2) ? omega[a] : 0;
  }
  s->bmoving[k] = 1;
  sets_place(s); /* the velocities (positions unchanged until the drift) */
  return TIDE_OK;
}

int tide_sph_set_pose(const tide_sph *s, int k, double c[3], double R[9]) {
  if (k < 0 || k >= s->nset)
    return tide_fail(TIDE_EINVAL, "SPH: no boundary particle set %d (there are %d)", k + 1,
                     s->nset);
  memcpy(c, s->bcen[k], sizeof(double) * 3);
  memcpy(R, s->brot[k], sizeof(double) * 9);
  return TIDE_OK;
}

/* ------------------------------------------------------- SDF boundaries */

static int add_wall(tide_sph *s, tide_shape *shape, int outside, const double *vel) {
  if (s->nwall >= TIDE_SPH_MAXWALL)
    return tide_fail(TIDE_EINVAL, "SPH: at most %d SDF boundary surfaces", TIDE_SPH_MAXWALL);
  int w = s->nwall;
  s->wshape[w] = shape;
  s->wside[w] = outside != 0;
  s->wgroup[w] = s->ngroup;
  s->wmap[w] = NULL;
  for (int a = 0; a < 3; a++) {
    s->wvel[w][a] = vel && a < s->dim ? vel[a] : 0;
    s->wofs[w][a] = s->wom[w][a] = s->wcen[w][a] = 0;
  }
  for (int a = 0; a < 9; a++)
    s->wrot[w][a] = a % 4 == 0;
  s->wrotates[w] = 0;
  s->nwall++;
  return TIDE_OK;
}

/* the first wall (surface) of SDF boundary g */
static int group_wall(const tide_sph *s, int g) {
  for (int w = 0; w < s->nwall; w++)
    if (s->wgroup[w] == g) return w;
  return 0;
}

/* gdv: every SDF boundary's velocity and angular velocity now minus at the
 * search (the wall rows' sum v_w . G_w is of the search), gcen its centre */
static void group_delta(tide_sph *s) {
  s->gmoved = 0;
  for (int g = 0; g < s->ngroup; g++) {
    int w = group_wall(s, g);
    for (int a = 0; a < 3; a++) {
      s->gdv[g][a] = s->wvel[w][a] - s->gv0[g][a];
      s->gdv[g][3 + a] = s->wom[w][a] - s->gv0[g][3 + a];
      s->gcen[g][a] = s->wcen[w][a] + s->wofs[w][a];
      if (s->gdv[g][a] != 0 || s->gdv[g][3 + a] != 0) s->gmoved = 1;
    }
  }
}

static int check_vel(const tide_sph *s, const double *vel) {
  for (int a = 0; vel && a < s->dim; a++)
    if (!isfinite(vel[a])) return tide_fail(TIDE_EINVAL, "SPH: wall velocity not finite");
  return TIDE_OK;
}

int tide_sph_sdf_velocity(tide_sph *s, int boundary, const double *vel) {
  int st;
  if (boundary < 0 || boundary >= s->ngroup)
    return tide_fail(TIDE_EINVAL, "SPH: no SDF boundary %d (there are %d)", boundary + 1,
                     s->ngroup);
  if ((st = check_vel(s, vel))) return st;
  for (int w = 0; w < s->nwall; w++)
    if (s->wgroup[w] == boundary)
      for (int a = 0; a < s->dim; a++)
        s->wvel[w][a] = vel[a];
  /* the wall does not move until the drift: the lists stay valid, the
   * DFSPH density change takes the new velocity by group_delta */
  group_delta(s);
  return TIDE_OK;
}

int tide_sph_sdf_acceleration(tide_sph *s, int boundary, const double *acc, const double *alpha) {
  if (boundary < 0 || boundary >= s->ngroup)
    return tide_fail(TIDE_EINVAL, "SPH: no SDF boundary %d (there are %d)", boundary + 1,
                     s->ngroup);
  for (int a = 0; a < 3; a++)
    if ((acc && !isfinite(acc[a])) || (alpha && !isfinite(alpha[a])))
      return tide_fail(TIDE_EINVAL, "SPH: wall acceleration not finite");
  for (int w = 0; w < s->nwall; w++) {
    if (s->wgroup[w] != boundary) continue;
    for (int a = 0; a < 3; a++) {
      s->wacc[w][a] = acc && a < s->dim ? acc[a] : 0;
      s->wacc[w][3 + a] = alpha && (s->dim == 3 || a == 2) ? alpha[a] : 0;
    }
    s->waccel[w] = 1;
  }
  return TIDE_OK;
}

int tide_sph_sdf_dynamics(tide_sph *s, int boundary, double mass, const double *inertia) {
  if (boundary < 0 || boundary >= s->ngroup)
    return tide_fail(TIDE_EINVAL, "SPH: no SDF boundary %d (there are %d)", boundary + 1,
                     s->ngroup);
  if (!(mass >= 0 && isfinite(mass)))
    return tide_fail(TIDE_EINVAL, "SPH: body mass must be >= 0 and finite, got %g", mass);
  double I[9] = {0};
  if (mass > 0) {
    if (!inertia) return tide_fail(TIDE_EINVAL, "SPH: a body needs its inertia");
    for (int a = 0; a < 9; a++) {
      if (!isfinite(inertia[a])) return tide_fail(TIDE_EINVAL, "SPH: body inertia not finite");
      I[a] = inertia[a];
    }
    if (s->dim == 2 ? !(I[8] > 0)
                    : !(I[0] > 0 && I[4] > 0 && I[8] > 0 && I[0] * I[4] - I[1] * I[3] > 0 &&
                        I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
                                I[2] * (I[3] * I[7] - I[4] * I[6]) >
                            0))
      return tide_fail(TIDE_EINVAL, "SPH: body inertia must be positive definite");
  }
  s->gmass[boundary] = mass;
  memcpy(s->ginert[boundary], I, sizeof I);
  return TIDE_OK;
}

int tide_sph_sdf_motion(const tide_sph *s, int boundary, double vel[3], double omega[3]) {
  if (boundary < 0 || boundary >= s->ngroup)
    return tide_fail(TIDE_EINVAL, "SPH: no SDF boundary %d (there are %d)", boundary + 1,
                     s->ngroup);
  int w = group_wall(s, boundary);
  for (int a = 0; a < 3; a++) {
    vel[a] = s->wvel[w][a];
    omega[a] = s->wom[w][a];
  }
  return TIDE_OK;
}

static int map_build(tide_sph *s, int w, double res);

int tide_sph_sdf_boundary(tide_sph *s, tide_shape *shape, int outside, const double *vel,
                          int method, double resolution, int *boundary) {
  if (boundary) *boundary = -1;
  if (!shape) return tide_fail(TIDE_EINVAL, "SPH: an SDF boundary needs a shape");
  int st, d = s->dim;
  if (shape->dim != d)
    return tide_fail(TIDE_EINVAL, "SPH: the boundary shape is %dD but the SPH state is %dD",
                     shape->dim, d);
  if ((st = check_vel(s, vel))) return st;
  if (method != TIDE_SPH_WALL_HARADA && method != TIDE_SPH_WALL_MAP && method != TIDE_SPH_WALL_AUTO)
    return tide_fail(TIDE_EINVAL, "SPH: unknown SDF boundary method %d", method);
  if (method == TIDE_SPH_WALL_AUTO)
    method = shape->kind == TIDE_SHAPE_PLANE || (shape->kind == TIDE_SHAPE_BOX && outside)
                 ? TIDE_SPH_WALL_HARADA
                 : TIDE_SPH_WALL_MAP;
  if (!(resolution <= 0 || (resolution >= 0.5 && resolution <= 16)))
    return tide_fail(TIDE_EINVAL, "SPH: density map resolution %g not in [0.5, 16] nodes per dx",
                     resolution);
  s->nvalid = 0;
  if (method == TIDE_SPH_WALL_MAP) {
    if ((st = add_wall(s, shape, outside, vel))) return st;
    tide_shape_retain(shape);
    if ((st = map_build(s, s->nwall - 1, resolution > 0 ? resolution : 4))) {
      s->nwall--;
      tide_shape_release(shape);
      return st;
    }
  } else if (shape->kind == TIDE_SHAPE_BOX && outside) {
    /* a box tank: its 2d faces as planar walls, their edges and corners
     * by inclusion-exclusion (wall_row) */
    if (s->nwall + 2 * d > TIDE_SPH_MAXWALL)
      return tide_fail(TIDE_EINVAL, "SPH: at most %d SDF boundary surfaces (a box tank takes %d)",
                       TIDE_SPH_MAXWALL, 2 * d);
    for (int a = 0; a < d; a++)
      for (int hi = 0; hi < 2; hi++) {
        double pt[3] = {0, 0, 0}, n[3] = {0, 0, 0};
        for (int c = 0; c < d; c++)
          pt[c] = shape->p[hi ? 3 + c : c];
        n[a] = hi ? 1 : -1;
        tide_shape *pl;
        if ((st = tide_shape_plane(d, pt, n, &pl))) return st;
        if ((st = add_wall(s, pl, 1, vel))) {
          tide_shape_release(pl);
          return st;
        }
      }
  } else {
    if ((st = add_wall(s, shape, outside, vel))) return st;
    tide_shape_retain(shape);
  }
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  if (tide_shape_bounds(shape, lo, hi))
    for (int w = 0; w < s->nwall; w++)
      if (s->wgroup[w] == s->ngroup)
        for (int a = 0; a < d; a++)
          s->wcen[w][a] = 0.5 * (lo[a] + hi[a]);
  if (boundary) *boundary = s->ngroup;
  s->ngroup++;
  return TIDE_OK;
}

int tide_sph_sdf_rotation(tide_sph *s, int boundary, const double *centre, const double *omega) {
  if (boundary < 0 || boundary >= s->ngroup)
    return tide_fail(TIDE_EINVAL, "SPH: no SDF boundary %d (there are %d)", boundary + 1,
                     s->ngroup);
  for (int a = 0; a < 3; a++)
    if ((omega && !isfinite(omega[a])) || (centre && a < s->dim && !isfinite(centre[a])))
      return tide_fail(TIDE_EINVAL, "SPH: wall rotation not finite");
  for (int w = 0; w < s->nwall; w++) {
    if (s->wgroup[w] != boundary) continue;
    for (int a = 0; a < 3; a++) {
      if (omega) s->wom[w][a] = s->dim == 2 && a < 2 ? 0 : omega[a];
      if (centre && a < s->dim) s->wcen[w][a] = centre[a];
    }
    if (omega && (omega[0] != 0 || omega[1] != 0 || omega[2] != 0)) s->wrotates[w] = 1;
  }
  if (centre) s->nvalid = 0; /* a new centre moves a turned shape */
  group_delta(s);
  return TIDE_OK;
}

/* Distance of x from wall w on the fluid's side (the shape translated by
 * the wall's offset; band as tide_shape_eval_band) and, when n is not NULL,
 * the unit normal into the fluid. */
/* x (the simulation frame) in wall w's shape frame: y = c + R^T (x - c - wofs) */
static void to_body(const tide_sph *s, int w, const double *x, double *y) {
  int d = s->dim;
  y[0] = y[1] = y[2] = 0;
  if (!s->wrotates[w]) {
    for (int a = 0; a < d; a++)
      y[a] = x[a] - s->wofs[w][a];
    return;
  }
  const double *R = s->wrot[w], *c = s->wcen[w];
  double r[3] = {0, 0, 0};
  for (int a = 0; a < d; a++)
    r[a] = x[a] - c[a] - s->wofs[w][a];
  for (int a = 0; a < d; a++) {
    y[a] = c[a];
    for (int b = 0; b < d; b++)
      y[a] += R[b * 3 + a] * r[b];
  }
}

/* v = R v (a vector of the shape's frame into the simulation frame) */
static void rot_vec(const tide_sph *s, int w, double *v) {
  if (!s->wrotates[w]) return;
  int d = s->dim;
  const double *R = s->wrot[w];
  double u[3] = {0, 0, 0};
  for (int a = 0; a < d; a++)
    for (int b = 0; b < d; b++)
      u[a] += R[a * 3 + b] * v[b];
  for (int a = 0; a < d; a++)
    v[a] = u[a];
}

/* the velocity of wall w at x: vel + omega x (x - c - wofs) */
static void wall_vel(const tide_sph *s, int w, const double *x, double *v) {
  int d = s->dim;
  const double *om = s->wom[w];
  double r[3] = {0, 0, 0};
  for (int a = 0; a < 3; a++)
    v[a] = s->wvel[w][a];
  if (!s->wrotates[w]) return;
  for (int a = 0; a < d; a++)
    r[a] = x[a] - s->wcen[w][a] - s->wofs[w][a];
  v[0] += om[1] * r[2] - om[2] * r[1];
  v[1] += om[2] * r[0] - om[0] * r[2];
  if (d == 3) v[2] += om[0] * r[1] - om[1] * r[0];
}

/* the acceleration of wall w at x: acc + alpha x r + omega x (omega x r), r = x - c - wofs */
static void wall_acc(const tide_sph *s, int w, const double *x, double *out) {
  int d = s->dim;
  const double *om = s->wom[w], *al = s->wacc[w] + 3;
  double r[3] = {0, 0, 0}, u[3];
  for (int a = 0; a < d; a++)
    r[a] = x[a] - s->wcen[w][a] - s->wofs[w][a];
  u[0] = om[1] * r[2] - om[2] * r[1]; /* omega x r */
  u[1] = om[2] * r[0] - om[0] * r[2];
  u[2] = om[0] * r[1] - om[1] * r[0];
  out[0] = s->wacc[w][0] + al[1] * r[2] - al[2] * r[1] + om[1] * u[2] - om[2] * u[1];
  out[1] = s->wacc[w][1] + al[2] * r[0] - al[0] * r[2] + om[2] * u[0] - om[0] * u[2];
  out[2] = d == 3 ? s->wacc[w][2] + al[0] * r[1] - al[1] * r[0] + om[0] * u[1] - om[1] * u[0] : 0;
}

static double wall_dist(const tide_sph *s, int w, const double *x, double band, double *n) {
  double y[3];
  to_body(s, w, x, y);
  double phi = tide_shape_eval_band(s->wshape[w], y, band), sg = s->wside[w] ? -1 : 1;
  if (n) {
    tide_shape_normal(s->wshape[w], y, 0.25 * s->g.dx, n);
    rot_vec(s, w, n);
    for (int a = 0; a < 3; a++)
      n[a] *= sg;
  }
  return sg * phi;
}

/* ----------------------------------------------------- density maps */

/* Koschier & Bender 2017's density map of wall w (sph.h, tide_sph_map):
 * the boundary terms of a point integrated over the solid and stored on a
 * grid in the shape's frame.  The quadrature is a 2^d-tree over the cube
 * [-H, H]^d around the node x: the integrals of the terms over every block
 * of every level are tabulated once (3-point Gauss-Legendre per axis in the
 * leaves, of side dq = 2H / 2^levels; a block is the sum of its children).
 * Per node a block whose centre y has |phi(y)| above its half diagonal
 * lies on one side (the SDF is 1-Lipschitz and bounds the distance from
 * below): all solid, its integral, or all fluid, nothing; else its children
 * are visited, and a leaf cut by the surface takes the solid's share chi =
 * clamp(1/2 - phi_f(y)/dq, 0, 1) of its integral (phi_f the SDF on the
 * fluid's side; exact for a face parallel to the leaves).  Blocks outside
 * the support (|y - x| >= H everywhere) are skipped. */

static int map_levels(int d) { return d == 2 ? 6 : 4; }

static void map_free(tide_sph_map *m) {
  if (!m) return;
  int64_t nn = (int64_t)m->n[0] * m->n[1] * m->n[2];
  tide_free(m->v, sizeof(double) * (size_t)(nn * m->nv));
  tide_free(m, sizeof *m);
}

/* fluid-side distance of y (the shape's frame) from the surface of sh
 * (outside: the solid is outside sh) */
static double side_dist(const tide_shape *sh, int outside, const double *y, double band) {
  double phi = tide_shape_eval_band(sh, y, band);
  return outside ? -phi : phi;
}

/* the block tables: per level l (2^l blocks per axis, from lev[l]) the
 * integrals (nv each) of the terms over the block within the support, and
 * whether the block meets the support */
typedef struct map_tree {
  int d, L, nv;
  int64_t lev[8];
  double *val;
  unsigned char *in;
  int64_t total;
} map_tree;

static int64_t ipow(int64_t b, int e) {
  int64_t r = 1;
  while (e-- > 0)
    r *= b;
  return r;
}

static int tree_build(const tide_sph *s, map_tree *t) {
  int d = s->dim, L = map_levels(d), nv = term_cols(s);
  double H = s->K.H, c = s->mass / pow(s->g.dx, d), eps = visc_eps(s);
  t->d = d, t->L = L, t->nv = nv, t->total = 0;
  for (int l = 0; l <= L; l++) {
    t->lev[l] = t->total;
    t->total += ipow(ipow(2, l), d);
  }
  t->val = tide_calloc(sizeof(double) * (size_t)(t->total * nv));
  t->in = tide_calloc((size_t)t->total);
  if (!t->val || !t->in) return TIDE_ENOMEM;
  /* leaves: Gauss-Legendre 3 points per axis */
  const double gx[3] = {-0.7745966692414834, 0, 0.7745966692414834},
               gw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
  int64_t N = ipow(2, L), nleaf = ipow(N, d);
  double dq = 2 * H / (double)N;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < nleaf; b++) {
    int64_t ib[3] = {b % N, (b / N) % N, d == 3 ? b / (N * N) : 0};
    double *out = t->val + (t->lev[L] + b) * nv, lo2 = 0;
    for (int a = 0; a < d; a++) { /* nearest point of the leaf to the centre */
      double l0 = -H + ib[a] * dq, l1 = l0 + dq, q = l0 > 0 ? l0 : (l1 < 0 ? l1 : 0);
      lo2 += q * q;
    }
    if (lo2 >= H * H) continue;
    t->in[t->lev[L] + b] = 1;
    int kz = d == 3 ? 3 : 1;
    for (int k = 0; k < kz; k++)
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
          int g3[3] = {i, j, k};
          double o[3] = {0, 0, 0}, wt = 1;
          for (int a = 0; a < d; a++) {
            o[a] = -H + (ib[a] + 0.5 + 0.5 * gx[g3[a]]) * dq;
            wt *= 0.5 * dq * gw[g3[a]];
          }
          double r = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
          if (r >= H) continue;
          double W = tide_sph_kernel_W(&s->K, r), dW = tide_sph_kernel_dW(&s->K, r);
          double q = r > 0 ? dW / r : 0, cw = c * wt;
          out[0] += cw * W;
          out[1] -= cw * dW * r;
          for (int a = 0; a < d; a++) {
            out[WALL_G + a] -= cw * q * o[a]; /* x - y = -o */
            for (int e = 0; e < d; e++)
              out[WALL_G + d + a * d + e] += cw * q * o[a] * o[e];
          }
          if (s->wvisc) /* V_w = c int_S W'(r)/r (y - x)(x)(y - x)/(r^2 + eps) */
            for (int a = 0; a < d; a++)
              for (int e = 0; e < d; e++)
                out[WALL_COLS(d) + a * d + e] += cw * q * o[a] * o[e] / (r * r + eps);
        }
  }
  /* the levels above: sums of the children (fixed order) */
  for (int l = L - 1; l >= 0; l--) {
    int64_t n = ipow(2, l), nb = ipow(n, d);
    for (int64_t b = 0; b < nb; b++) {
      int64_t ib[3] = {b % n, (b / n) % n, d == 3 ? b / (n * n) : 0};
      double *out = t->val + (t->lev[l] + b) * nv;
      for (int ch = 0; ch < (1 << d); ch++) {
        int64_t cb = 0, cn = 2 * n;
        for (int a = d - 1; a >= 0; a--)
          cb = cb * cn + 2 * ib[a] + ((ch >> a) & 1);
        int64_t ci = t->lev[l + 1] + cb;
        if (!t->in[ci]) continue;
        t->in[t->lev[l] + b] = 1;
        for (int v = 0; v < nv; v++)
          out[v] += t->val[ci * nv + v];
      }
    }
  }
  return TIDE_OK;
}

static void tree_free(map_tree *t) {
  tide_free(t->val, sizeof(double) * (size_t)(t->total * t->nv));
  tide_free(t->in, (size_t)t->total);
}

/* the terms of node x by the tree (out zeroed, nv values); returns the
 * number of SDF evaluations */
static int64_t tree_node(const tide_sph *s, const tide_shape *sh, int outside, const map_tree *t,
                         const double *x, double *out) {
  int d = t->d, L = t->L, nv = t->nv, sp = 0;
  double H = s->K.H, band = 2 * H;
  int64_t evals = 0, stk[64][4];
  stk[sp][0] = 0, stk[sp][1] = stk[sp][2] = stk[sp][3] = 0, sp++;
  while (sp > 0) {
    sp--;
    int l = (int)stk[sp][0];
    int64_t ib[3] = {stk[sp][1], stk[sp][2], stk[sp][3]}, n = (int64_t)1 << l, b = 0;
    for (int a = d - 1; a >= 0; a--)
      b = b * n + ib[a];
    int64_t bi = t->lev[l] + b;
    if (!t->in[bi]) continue;
    double size = 2 * H / (double)n, y[3] = {x[0], x[1], x[2]};
    for (int a = 0; a < d; a++)
      y[a] += -H + (ib[a] + 0.5) * size;
    double f = side_dist(sh, outside, y, band), hd = 0.5 * size * sqrt((double)d);
    evals++;
    if (f >= hd) continue;
    const double *val = t->val + bi * nv;
    if (f <= -hd || l == L) {
      double chi = f <= -hd ? 1 : 0.5 - f / size;
      if (chi <= 0) continue;
      if (chi > 1) chi = 1;
      for (int v = 0; v < nv; v++)
        out[v] += chi * val[v];
      continue;
    }
    for (int ch = (1 << d) - 1; ch >= 0; ch--) { /* children, the first popped first */
      stk[sp][0] = l + 1;
      for (int a = 0; a < 3; a++)
        stk[sp][1 + a] = a < d ? 2 * ib[a] + ((ch >> a) & 1) : 0;
      sp++;
    }
  }
  return evals;
}

/* Harada's flat-wall lattice terms at a signed distance d, not clamped (d <
 * 0: x behind the wall, the sites from d + dx/2 on): rho_w, -tr T_w, G_n
 * (G_w = G_n n), T_n, T_t, V_n, V_t (the orthant of one wall, continued) */
static void flat_lattice(const tide_sph *s, double d, double out[7]) {
  int dm = s->dim, R = (int)ceil(s->K.H / s->g.dx), kz = dm == 3 ? R : 0;
  double dx = s->g.dx, H = s->K.H, w = 0, tr = 0, gn = 0, tn = 0, tt = 0, vn = 0, vt = 0;
  double eps = visc_eps(s);
  int lmax = (int)ceil((H - d) / dx) + 1;
  for (int l = 0; l <= lmax; l++) {
    double hl = d + (l + 0.5) * dx;
    if (fabs(hl) >= H) continue;
    for (int j = -R; j <= R; j++)
      for (int k = -kz; k <= kz; k++) {
        double r2 = hl * hl + (double)(j * j + k * k) * dx * dx;
        if (r2 >= H * H) continue;
        double r = sqrt(r2), dw = tide_sph_kernel_dW(&s->K, r), q = r > 0 ? dw / r : 0;
        w += tide_sph_kernel_W(&s->K, r);
        tr -= dw * r;
        gn += q * hl;
        tn += q * hl * hl;
        tt += q * (double)(j * j) * dx * dx;
        vn += q * hl * hl / (r2 + eps);
        vt += q * (double)(j * j) * dx * dx / (r2 + eps);
      }
  }
  double m = s->mass;
  out[0] = m * w, out[1] = m * tr, out[2] = m * gn, out[3] = m * tn, out[4] = m * tt;
  out[5] = m * vn, out[6] = m * vt;
}

/* The lattice correction of a map (method map): the flat wall's lattice
 * terms (flat_lattice: what the Harada path and a thick band of boundary
 * particles give, consistent with the fluid's own lattice sums) minus the
 * flat wall's continuum terms (the tree on a plane), tabulated over signed
 * distances [-2H, H] (nc entries of spacing dc, LAT_COLS values as flat_lattice). */
#define LAT_COLS 7
static int lattice_table(const tide_sph *s, const map_tree *t, double **tab, int *nc,
                         double *dc) {
  int st, d = s->dim, nv = WALL_COLS(d);
  double H = s->K.H, pt[3] = {0, 0, 0}, nrm[3] = {1, 0, 0};
  *dc = s->g.dx / 64;
  *nc = (int)ceil(3 * H / *dc) + 1;
  tide_shape *pl;
  if ((st = tide_shape_plane(d, pt, nrm, &pl))) return st;
  *tab = tide_alloc(sizeof(double) * LAT_COLS * (size_t)*nc);
  if (!*tab) {
    tide_shape_release(pl);
    return TIDE_ENOMEM;
  }
  double *tb = *tab, step = *dc;
  int n = *nc;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    double dd = -2 * H + i * step, x[3] = {dd, 0, 0}, c[WALL_MAXV] = {0}, lat[LAT_COLS];
    tree_node(s, pl, 0, t, x, c); /* the solid: x < 0, the fluid's normal +x */
    flat_lattice(s, dd, lat);
    double *e = tb + LAT_COLS * i;
    e[0] = lat[0] - c[0];
    e[1] = lat[1] - c[1];
    e[2] = lat[2] - c[WALL_G];
    e[3] = lat[3] - c[WALL_G + d];
    e[4] = lat[4] - c[WALL_G + d + d + 1];
    /* V_w: the ratios lattice / integral (a congruence below keeps V_w <= 0) */
    double vn = c[WALL_COLS(d)], vt = c[WALL_COLS(d) + d + 1];
    e[5] = s->wvisc && vn < 0 ? lat[5] / vn : 0;
    e[6] = s->wvisc && vt < 0 ? lat[6] / vt : 0;
  }
  (void)nv;
  tide_shape_release(pl);
  return TIDE_OK;
}

/* add the lattice correction at node x (fluid-side distance f0) to out */
static void lattice_add(const tide_sph *s, int w, const double *tab, int nc, double dc,
                        const double *x, double f0, double *out) {
  int d = s->dim;
  double H = s->K.H;
  if (f0 >= H) return;
  double u = (f0 + 2 * H) / dc, c[LAT_COLS];
  if (u < 0) u = 0;
  int i = (int)floor(u);
  if (i > nc - 2) i = nc - 2;
  double a = u - i;
  for (int k = 0; k < LAT_COLS; k++)
    c[k] = (1 - a) * tab[LAT_COLS * i + k] + a * tab[LAT_COLS * (i + 1) + k];
  double n[3];
  tide_shape_normal(s->wshape[w], x, 0.25 * s->g.dx, n);
  if (s->wside[w])
    for (int k = 0; k < 3; k++)
      n[k] = -n[k];
  out[0] += c[0];
  out[1] += c[1];
  for (int p = 0; p < d; p++) {
    out[WALL_G + p] += c[2] * n[p];
    for (int q = 0; q < d; q++)
      out[WALL_G + d + p * d + q] += (c[3] - c[4]) * n[p] * n[q] + (p == q ? c[4] : 0);
  }
  if (!s->wvisc) return;
  /* V_w <- S V_w S, S = sqrt(r_n) n n^T + sqrt(r_t) (I - n n^T) (r the flat
   * wall's lattice / integral ratios): the flat wall's lattice V_w exactly,
   * and negative semi-definite for any shape (an additive correction, 45 %
   * of the integral at the first layer, turned V_w positive at convex
   * curved surfaces: anti-dissipative) */
  double sn = sqrt(c[5] > 0 ? c[5] : 0), st = sqrt(c[6] > 0 ? c[6] : 0), S[9], V[9];
  double *Vo = out + WALL_COLS(d);
  for (int p = 0; p < d; p++)
    for (int q = 0; q < d; q++) {
      S[p * d + q] = (sn - st) * n[p] * n[q] + (p == q ? st : 0);
      V[p * d + q] = Vo[p * d + q];
    }
  for (int p = 0; p < d; p++)
    for (int q = 0; q < d; q++) {
      double v = 0;
      for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++)
          v += S[p * d + a] * V[a * d + b] * S[b * d + q];
      Vo[p * d + q] = v;
    }
}

static int map_build(tide_sph *s, int w, double res) {
  int st, d = s->dim, nv = term_cols(s);
  double t0 = tide_wtime(), dx = s->g.dx, H = s->K.H, h = dx / res;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, margin = H + 3 * h;
  if (!tide_shape_bounds(s->wshape[w], lo, hi))
    for (int a = 0; a < d; a++) { /* unbounded: the grid's box */
      lo[a] = s->g.origin[a];
      hi[a] = s->g.origin[a] + s->g.n[a] * dx;
    }
  tide_sph_map *m = tide_calloc(sizeof *m);
  if (!m) return TIDE_ENOMEM;
  m->dim = d, m->nv = nv, m->h = h;
  int64_t nn = 1;
  for (int a = 0; a < 3; a++) {
    m->n[a] = a < d ? (int)ceil((hi[a] - lo[a] + 2 * margin) / h) + 1 : 1;
    m->lo[a] = a < d ? lo[a] - margin : 0;
    nn *= m->n[a];
  }
  if (nn * nv > ((int64_t)1 << 28)) {
    tide_free(m, sizeof *m);
    return tide_fail(TIDE_EINVAL,
                     "SPH: a density map of %lld nodes is too large (lower the resolution or "
                     "bound the shape)",
                     (long long)nn);
  }
  map_tree t = {0};
  m->v = tide_calloc(sizeof(double) * (size_t)(nn * nv));
  if (!m->v || (st = tree_build(s, &t))) {
    tree_free(&t);
    map_free(m);
    return TIDE_ENOMEM;
  }
  double *tab = NULL, dc = 0;
  int nc = 0;
  if (s->map_lattice && (st = lattice_table(s, &t, &tab, &nc, &dc))) {
    tree_free(&t);
    map_free(m);
    return st;
  }
  int64_t computed = 0;
  double *mv = m->v, reach = H * (1 + 1e-12);
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : computed)
  for (int64_t node = 0; node < nn; node++) {
    int64_t ix = node % m->n[0], iy = (node / m->n[0]) % m->n[1], iz = node / (m->n[0] * m->n[1]);
    double x[3] = {m->lo[0] + ix * h, m->lo[1] + iy * h, m->lo[2] + iz * h}, *out = mv + node * nv;
    double f0 = side_dist(s->wshape[w], s->wside[w], x, 2 * H);
    if (f0 >= reach) continue; /* no solid within the support */
    if (f0 <= -reach) {        /* the whole support in the solid */
      for (int v = 0; v < nv; v++)
        out[v] = t.val[v];
    } else {
      tree_node(s, s->wshape[w], s->wside[w], &t, x, out);
      computed++;
    }
    if (tab) lattice_add(s, w, tab, nc, dc, x, f0, out);
  }
  tide_free(tab, sizeof(double) * LAT_COLS * (size_t)nc);
  tree_free(&t);
  m->computed = computed;
  m->seconds = tide_wtime() - t0;
  s->wmap[w] = m;
  return TIDE_OK;
}

/* add wall w's map at x (the simulation frame) to row: tensor cubic
 * Lagrange interpolation of the node values; a point outside the map is
 * clamped into it (a tank or an unbounded shape: deep in the solid), or
 * beyond the support of a bounded obstacle (nothing added) */
static int map_add(const tide_sph *s, int w, const double *xi, double *row) {
  const tide_sph_map *m = s->wmap[w];
  int d = s->dim, nv = m->nv, base[3] = {0, 0, 0};
  double L[3][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}}, y[3];
  to_body(s, w, xi, y);
  for (int a = 0; a < d; a++) {
    double u = (y[a] - m->lo[a]) / m->h;
    if (u < 1 || u > m->n[a] - 2) {
      if (!s->wside[w]) return 0; /* an obstacle's map covers its support */
      u = u < 1 ? 1 : m->n[a] - 2;
    }
    int i0 = (int)floor(u) - 1;
    if (i0 > m->n[a] - 4) i0 = m->n[a] - 4;
    double t = u - (i0 + 1);
    base[a] = i0;
    L[a][0] = -t * (t - 1) * (t - 2) / 6;
    L[a][1] = (t + 1) * (t - 1) * (t - 2) / 2;
    L[a][2] = -(t + 1) * t * (t - 2) / 2;
    L[a][3] = (t + 1) * t * (t - 1) / 6;
  }
  double acc[WALL_MAXV] = {0};
  int kz = d == 3 ? 4 : 1;
  for (int k = 0; k < kz; k++)
    for (int j = 0; j < 4; j++) {
      double wjk = L[1][j] * L[2][k];
      const double *rowv =
          m->v + ((int64_t)(base[2] + k) * m->n[1] + base[1] + j) * m->n[0] * nv + base[0] * nv;
      for (int i = 0; i < 4; i++) {
        double wt = wjk * L[0][i];
        for (int v = 0; v < nv; v++)
          acc[v] += wt * rowv[i * nv + v];
      }
    }
  if (s->wrotates[w]) { /* G_w = R G, T_w = R T R^T (V_w alike) */
    const double *R = s->wrot[w];
    rot_vec(s, w, acc + WALL_G);
    for (int m2 = 0; m2 < (nv > WALL_COLS(d) ? 2 : 1); m2++) {
      double *Tm = acc + WALL_G + d + m2 * d * d, T0[9];
      memcpy(T0, Tm, sizeof(double) * (size_t)(d * d));
      for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
          double t = 0;
          for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++)
              t += R[a * 3 + i] * T0[i * d + j] * R[b * 3 + j];
          Tm[a * d + b] = t;
        }
    }
  }
  double vw[3];
  wall_vel(s, w, xi, vw);
  for (int v = 0; v < nv; v++)
    row[v] += acc[v];
  for (int a = 0; a < d; a++)
    row[2] += vw[a] * acc[WALL_G + a];
  return 1;
}

const tide_sph_map *tide_sph_boundary_map(const tide_sph *s, int boundary) {
  for (int w = 0; w < s->nwall; w++)
    if (s->wgroup[w] == boundary) return s->wmap[w];
  return NULL;
}

/* Harada et al. 2007's wall weight over an orthant of k mutually orthogonal
 * planar walls at distances dist[k] (k = 1: one wall; 2: the edge region
 * behind two walls; 3: a corner): the lattice sites behind every wall at
 * normal offsets h_a = dist_a + (l_a + 1/2) dx along -n_a, the other d - k
 * axes on the lattice through x_i (sph.h, "SDF boundaries").  Returns rho_w
 * in out[0], -tr T_w in out[1]; G_w = sum_a gc[a] n_a; T_w = sum_ab
 * tc[a k + b] n_a n_b^T + *tt (I - sum_a n_a n_a^T). */
static void orthant(const tide_sph *s, int k, const double *dist, double out[2], double *gc,
                    double *tc, double *tt, double *vc, double *vt) {
  int d = s->dim, R = (int)ceil(s->K.H / s->g.dx);
  double dx = s->g.dx, H = s->K.H, m = s->mass, H2 = H * H, eps = visc_eps(s);
  double w = 0, tr = 0, t = 0, tv = 0, dd[3];
  for (int a = 0; a < k; a++) {
    dd[a] = dist[a] > 0 ? dist[a] : 0;
    gc[a] = 0;
    for (int b = 0; b < k; b++)
      tc[a * k + b] = vc[a * k + b] = 0;
  }
  int c[3] = {0, 0, 0}; /* odometer: l_a in [0, R] for a < k, j in [-R, R] after */
  for (int a = k; a < d; a++)
    c[a] = -R;
  for (;;) {
    double h[3], r2 = 0;
    for (int a = 0; a < d; a++) {
      h[a] = a < k ? dd[a] + (c[a] + 0.5) * dx : c[a] * dx;
      r2 += h[a] * h[a];
    }
    if (r2 < H2) {
      double r = sqrt(r2), dw = tide_sph_kernel_dW(&s->K, r), q = dw / r, qv = q / (r2 + eps);
      w += tide_sph_kernel_W(&s->K, r);
      tr -= dw * r;
      for (int a = 0; a < k; a++) {
        gc[a] += q * h[a];
        for (int b = 0; b < k; b++) {
          tc[a * k + b] += q * h[a] * h[b];
          vc[a * k + b] += qv * h[a] * h[b];
        }
      }
      if (k < d) {
        t += q * h[k] * h[k];
        tv += qv * h[k] * h[k];
      }
    }
    int a = 0;
    for (; a < d; a++) {
      if (++c[a] <= R) break;
      c[a] = a < k ? 0 : -R;
    }
    if (a == d) break;
  }
  out[0] = m * w;
  out[1] = m * tr;
  for (int a = 0; a < k; a++) {
    gc[a] *= m;
    for (int b = 0; b < k; b++) {
      tc[a * k + b] *= m;
      vc[a * k + b] *= m;
    }
  }
  *tt = m * t;
  *vt = m * tv;
}

void tide_sph_wall_terms(const tide_sph *s, double d, double out[5]) {
  double o[2], gc, tc, tt, vc, vt;
  orthant(s, 1, &d, o, &gc, &tc, &tt, &vc, &vt);
  out[0] = o[0], out[1] = gc, out[2] = tc, out[3] = tt, out[4] = o[1];
}

/* add sign times the orthant terms of the walls sel[k] (normals n, distances dist; wall[]
 * the walls' indices) to row */
static void add_orthant(const tide_sph *s, int k, const int *sel, const int *wall,
                        const double (*n)[3], const double *dist, double sign, const double *xi,
                        double *row) {
  int d = s->dim;
  double dk[3], o[2], gc[3], tc[9], tt, vc[9], vt, v[3] = {0, 0, 0};
  for (int a = 0; a < k; a++) {
    double vw[3];
    dk[a] = dist[sel[a]];
    wall_vel(s, wall[sel[a]], xi, vw);
    for (int x = 0; x < d; x++) /* the orthant moves with the mean of its walls */
      v[x] += vw[x] / k;
  }
  orthant(s, k, dk, o, gc, tc, &tt, vc, &vt);
  row[0] += sign * o[0];
  row[1] += sign * o[1];
  for (int x = 0; x < d; x++) {
    double g = 0;
    for (int a = 0; a < k; a++)
      g += gc[a] * n[sel[a]][x];
    row[WALL_G + x] += sign * g;
    row[2] += sign * g * v[x];
    for (int y = 0; y < d; y++) {
      double T = x == y ? tt : 0;
      for (int a = 0; a < k; a++) {
        T -= tt * n[sel[a]][x] * n[sel[a]][y];
        for (int b = 0; b < k; b++)
          T += tc[a * k + b] * n[sel[a]][x] * n[sel[b]][y];
      }
      row[WALL_G + d + x * d + y] += sign * T;
      if (!s->wvisc) continue;
      double V = x == y ? vt : 0; /* V_w: the same structure as T_w */
      for (int a = 0; a < k; a++) {
        V -= vt * n[sel[a]][x] * n[sel[a]][y];
        for (int b = 0; b < k; b++)
          V += vc[a * k + b] * n[sel[a]][x] * n[sel[b]][y];
      }
      row[WALL_COLS(d) + x * d + y] += sign * V;
    }
  }
}

/* add the wall terms t (WALL_COLS(d)) of SDF boundary g to row and to g's
 * slot (slot NULL: none kept); 1 when every slot holds another boundary */
static int deposit(const tide_sph *s, double *row, double *slot, int g, const double *t) {
  int d = s->dim, nc = WALL_COLS(d), sc = slot_cols(s);
  double any = 0;
  for (int c = 0; c < nc; c++) {
    row[c] += t[c];
    any += fabs(t[c]);
  }
  if (!slot || any == 0) return 0;
  for (int j = 0; j < s->wslots; j++) {
    double *sl = slot + j * sc;
    if (sl[0] < 0) sl[0] = g;
    if (sl[0] != g) continue;
    for (int v = 0; v < sc - 1; v++) /* G_w, T_w[, V_w] */
      sl[1 + v] += t[WALL_G + v];
    return 0;
  }
  return 1;
}

/* The wall terms of particle i summed over the SDF boundaries into row
 * (WALL_COLS(d)): every wall within H as a half space, minus the edge
 * orthant of every orthogonal pair, plus the corner orthant of every
 * orthogonal triple (inclusion-exclusion: the solid is the union of the
 * half spaces, as the band of boundary particles of a box tank).  slot (may
 * be NULL) receives G_w, T_w (and V_w when s->wvisc) per SDF boundary (an edge or corner orthant
 * counts for the boundary of its first wall); returns 1 when the particle
 * meets more boundaries than slots. */
static int wall_row(const tide_sph *s, const double *xi, double *row, double *slot) {
  int d = s->dim, k = 0, wall[TIDE_SPH_MAXWALL], nc = term_cols(s), over = 0, sc = slot_cols(s);
  double H = s->K.H, n[TIDE_SPH_MAXWALL][3], dist[TIDE_SPH_MAXWALL], t[WALL_MAXV];
  for (int c = 0; c < WALL_COLS(d); c++)
    row[c] = 0;
  if (slot)
    for (int j = 0; j < s->wslots * sc; j++)
      slot[j] = j % sc == 0 ? -1 : 0;
  for (int w = 0; w < s->nwall; w++) {
    if (s->wmap[w]) {
      for (int c = 0; c < nc; c++)
        t[c] = 0;
      if (map_add(s, w, xi, t)) over |= deposit(s, row, slot, s->wgroup[w], t);
      continue;
    }
    double dw = wall_dist(s, w, xi, 2 * H, NULL);
    if (dw >= H) continue;
    wall_dist(s, w, xi, 2 * H, n[k]);
    dist[k] = dw;
    wall[k] = w;
    int one[1] = {k};
    for (int c = 0; c < nc; c++)
      t[c] = 0;
    add_orthant(s, 1, one, wall, (const double(*)[3])n, dist, 1, xi, t);
    over |= deposit(s, row, slot, s->wgroup[w], t);
    k++;
  }
  const double orth = 1e-9;
  for (int p = 0; p < k; p++)
    for (int q = p + 1; q < k; q++) {
      double pq = 0;
      for (int a = 0; a < d; a++)
        pq += n[p][a] * n[q][a];
      if (fabs(pq) > orth) continue;
      int two[2] = {p, q};
      for (int c = 0; c < nc; c++)
        t[c] = 0;
      add_orthant(s, 2, two, wall, (const double(*)[3])n, dist, -1, xi, t);
      over |= deposit(s, row, slot, s->wgroup[wall[p]], t);
      for (int r = q + 1; r < k && d == 3; r++) {
        double pr = 0, qr = 0;
        for (int a = 0; a < d; a++) {
          pr += n[p][a] * n[r][a];
          qr += n[q][a] * n[r][a];
        }
        if (fabs(pr) > orth || fabs(qr) > orth) continue;
        int three[3] = {p, q, r};
        for (int c = 0; c < nc; c++)
          t[c] = 0;
        add_orthant(s, 3, three, wall, (const double(*)[3])n, dist, 1, xi, t);
        over |= deposit(s, row, slot, s->wgroup[wall[p]], t);
      }
    }
  return over;
}

int tide_sph_wall_rows(const tide_sph *s, int64_t np, const double *x, double *out) {
  int d = s->dim;
#pragma omp parallel for schedule(static) if (np > 256)
  for (int64_t i = 0; i < np; i++)
    wall_row(s, x + i * d, out + i * WALL_COLS(d), NULL);
  return TIDE_OK;
}

/* ------------------------------------------------------------- search */

/* grow a CSR list to m entries */
static int grow_list(int32_t **l, int64_t *cap, int64_t m) {
  if (m <= *cap) return TIDE_OK;
  int64_t c = m + m / 4 + 1024;
  tide_free(*l, sizeof(int32_t) * (size_t)*cap);
  *l = tide_alloc(sizeof(int32_t) * (size_t)c);
  *cap = *l ? c : 0;
  return *l ? TIDE_OK : TIDE_ENOMEM;
}

int tide_sph_search(tide_sph *s) {
  int st, d = s->dim;
  int64_t n = s->ps->n;
  if ((st = workspace(s, n))) return st;
  if (n + 1 > s->nscap) {
    int64_t c = n + n / 2 + 64;
    tide_free(s->nstart, sizeof(int64_t) * (size_t)s->nscap);
    tide_free(s->bstart, sizeof(int64_t) * (size_t)s->nscap);
    s->nstart = tide_alloc(sizeof(int64_t) * (size_t)c);
    s->bstart = tide_alloc(sizeof(int64_t) * (size_t)c);
    s->nscap = c;
    if (!s->nstart || !s->bstart) {
      s->nscap = 0;
      return TIDE_ENOMEM;
    }
  }
  double *x = TIDE_F64P(s->ps->x);
  if (tide_array_nonfinite(s->ps->x) || tide_array_nonfinite(s->ps->v))
    return tide_fail(TIDE_ENONFINITE, "SPH: a particle position or velocity is not finite");
  double *extra[8] = {TIDE_F64P(s->ps->v), TIDE_F64P(s->rho),   TIDE_F64P(s->p),
                      TIDE_F64P(s->a),     TIDE_F64P(s->alpha), TIDE_F64P(s->kap),
                      TIDE_F64P(s->ksum),  TIDE_F64P(s->ren)};
  int cols[8] = {d, 1, 1, d, 1, 1, 1, 1};
  if (sort_points(s, n, x, extra, cols, 8, s->fbeg, s->fend))
    return tide_fail(TIDE_EINVAL, "SPH: a particle left the box of the grid");
  s->ps->bin_valid = 0;
  int64_t *ns = s->nstart, *bs = s->bstart;
  const double *bx = s->bx;
  /* One gathering pass writes each particle's neighbours into a strided
   * scratch (kstride fluid, kstride boundary entries per particle, the
   * stride from the largest count of the last search); the prefix sums
   * place them in the CSR lists by a copy.  Particles with more neighbours
   * than the stride are gathered again (and the stride grows for the next
   * search).  Same lists, in the same order, as two full passes. */
  int64_t K = s->kstride > 0 ? s->kstride : (d == 3 ? 48 : 16);
  if (2 * K * n > s->scap) {
    int64_t c = 2 * K * (n + n / 4 + 64);
    tide_free(s->scr, sizeof(int32_t) * (size_t)s->scap);
    s->scr = tide_alloc(sizeof(int32_t) * (size_t)c);
    s->scap = s->scr ? c : 0;
    if (!s->scr) return TIDE_ENOMEM;
  }
  int32_t *scr = s->scr;
  int64_t kmax = 0;
  ns[0] = bs[0] = 0;
#pragma omp parallel for schedule(static) reduction(max : kmax) if (n > 1024)
  for (int64_t i = 0; i < n; i++) {
    int32_t *row = scr + 2 * K * i;
    int64_t cf = gather(s, x + i * d, s->fbeg, s->fend, x, i, row, K);
    int64_t cb = s->nb ? gather(s, x + i * d, s->bbeg, s->bend, bx, -1, row + K, K) : 0;
    ns[i + 1] = cf;
    bs[i + 1] = cb;
    kmax = cf > kmax ? cf : kmax;
    kmax = cb > kmax ? cb : kmax;
  }
  for (int64_t i = 0; i < n; i++) {
    ns[i + 1] += ns[i];
    bs[i + 1] += bs[i];
  }
  if ((st = grow_list(&s->nbr, &s->lcap, ns[n] > 0 ? ns[n] : 1)) ||
      (st = grow_list(&s->bnbr, &s->blcap, bs[n] > 0 ? bs[n] : 1)))
    return st;
  int32_t *nbr = s->nbr, *bnbr = s->bnbr;
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t i = 0; i < n; i++) {
    int64_t cf = ns[i + 1] - ns[i], cb = bs[i + 1] - bs[i];
    const int32_t *row = scr + 2 * K * i;
    if (cf <= K)
      memcpy(nbr + ns[i], row, sizeof(int32_t) * (size_t)cf);
    else
      gather(s, x + i * d, s->fbeg, s->fend, x, i, nbr + ns[i], INT64_MAX);
    if (cb <= K)
      memcpy(bnbr + bs[i], row + K, sizeof(int32_t) * (size_t)cb);
    else
      gather(s, x + i * d, s->bbeg, s->bend, bx, -1, bnbr + bs[i], INT64_MAX);
  }
  if (kmax > K || kmax + 8 < K / 2) s->kstride = (int)(kmax + kmax / 4 + 4);
  if (s->nwall && n > 0) {
    int ws = s->ngroup < TIDE_SPH_WSLOTS ? s->ngroup : TIDE_SPH_WSLOTS, sc = slot_cols(s);
    if ((int64_t)ws * sc * n > s->wgcap) {
      int64_t c = (int64_t)ws * sc * (n + n / 4 + 64);
      tide_free(s->wgrp, sizeof(double) * (size_t)s->wgcap);
      s->wgrp = tide_alloc(sizeof(double) * (size_t)c);
      s->wgcap = s->wgrp ? c : 0;
      if (!s->wgrp) return TIDE_ENOMEM;
    }
    s->wslots = ws;
    double *wr = TIDE_F64P(s->wall), *wg = s->wgrp;
    int over = 0;
#pragma omp parallel for schedule(static) reduction(| : over) if (n > 1024)
    for (int64_t i = 0; i < n; i++)
      over |= wall_row(s, x + i * d, wr + i * WALL_COLS(d), wg + i * ws * sc);
    if (over)
      return tide_fail(TIDE_EINVAL,
                       "SPH: a particle lies within the support of more than %d SDF boundaries "
                       "(the force on each boundary keeps %d apart)",
                       TIDE_SPH_WSLOTS, TIDE_SPH_WSLOTS);
  }
  for (int g = 0; g < s->ngroup; g++) { /* the velocities of the rows' v_w . G_w */
    int w = group_wall(s, g);
    for (int a = 0; a < 3; a++) {
      s->gv0[g][a] = s->wvel[w][a];
      s->gv0[g][3 + a] = s->wom[w][a];
    }
  }
  group_delta(s);
  s->nvalid = 1;
  return TIDE_OK;
}

static int need_lists(const tide_sph *s, const char *what) {
  if (!s->nvalid)
    return tide_fail(TIDE_EINVAL,
                     "SPH %s: the neighbour lists are out of date (run the search after moving or "
                     "adding particles)",
                     what);
  return TIDE_OK;
}

/* ----------------------------------------------------------- densities */

/* x_i - x_j and |x_i - x_j| */
static inline double diff(int d, const double *xi, const double *xj, double *xij) {
  double r2 = 0;
  for (int a = 0; a < d; a++) {
    xij[a] = xi[a] - xj[a];
    r2 += xij[a] * xij[a];
  }
  return sqrt(r2);
}

int tide_sph_density(tide_sph *s) {
  int st, d = s->dim;
  if ((st = need_lists(s, "density"))) return st;
  int64_t n = s->ps->n;
  const double *x = TIDE_F64P(s->ps->x);
  double *rho = TIDE_F64P(s->rho), *ren = TIDE_F64P(s->ren), m = s->mass;
  double W0 = tide_sph_kernel_W(&s->K, 0);
  int renorm = s->renormalize, nw = s->nwall;
  const double *wr = TIDE_F64P(s->wall);
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t i = 0; i < n; i++) {
    /* f, b: the density sums; tf, tb: the traces of the first moment,
     * sum m (-dW/dr) r = tr sum m grad W_ij (x) (x_j - x_i) */
    double f = W0, b = 0, tf = 0, tb = 0, xij[3];
    for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
      double r = diff(d, x + i * d, x + (int64_t)s->nbr[q] * d, xij);
      f += tide_sph_kernel_W(&s->K, r);
      if (renorm) tf -= tide_sph_kernel_dW(&s->K, r) * r;
    }
    for (int64_t q = s->bstart[i]; q < s->bstart[i + 1]; q++) {
      int64_t k = s->bnbr[q];
      double r = diff(d, x + i * d, s->bx + k * d, xij);
      b += s->psi[k] * tide_sph_kernel_W(&s->K, r);
      if (renorm) tb -= s->psi[k] * tide_sph_kernel_dW(&s->K, r) * r;
    }
    if (nw) {
      b += wr[i * WALL_COLS(d)];
      tb += wr[i * WALL_COLS(d) + 1];
    }
    rho[i] = m * f + b;
    /* l_i = d / tr M_i, tr M_i / d clamped below at 1/4 (few neighbours) */
    double t = (m * tf + tb) / (rho[i] * d);
    ren[i] = renorm ? 1 / (t > 0.25 ? t : 0.25) : 1;
  }
  return TIDE_OK;
}

int tide_sph_tait(tide_sph *s) {
  int64_t n = s->ps->n;
  double *rho = TIDE_F64P(s->rho), *p = TIDE_F64P(s->p);
  double B = s->rho0 * s->c * s->c / s->gamma, r0 = s->rho0, gm = s->gamma;
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t i = 0; i < n; i++) {
    double v = B * (pow(rho[i] / r0, gm) - 1);
    p[i] = v > 0 ? v : 0;
  }
  return TIDE_OK;
}

/* -------------------------------------------------------------- forces */

/* The reactions (sph.h, "Forces on the boundaries"): every wall term of a
 * fluid particle's force or velocity update is added, negated and times m,
 * to the accumulator of its body in the particle's fixed block (blocks of
 * ceil(n / TIDE_SPH_FBLOCKS) particles in storage order, one thread each);
 * the blocks are summed in order afterwards: the same bits for any thread
 * count.  Torques about the body's centre, the force applied at x_i (the
 * pair forces are central: the same as at x_b). */

/* torque centres of the bodies in the simulation frame */
static void body_centres(const tide_sph *s, double (*cen)[3]) {
  for (int b = 0; b < TIDE_SPH_NBODY; b++)
    cen[b][0] = cen[b][1] = cen[b][2] = 0;
  for (int w = s->nwall - 1; w >= 0; w--) /* the group's first wall last */
    for (int a = 0; a < 3; a++)
      cen[s->wgroup[w]][a] = s->wcen[w][a] + s->wofs[w][a];
  for (int k = 0; k < s->nset; k++)
    for (int a = 0; a < 3; a++)
      cen[TIDE_SPH_MAXWALL + k][a] = s->bcen[k][a];
}

/* acc += (F, (x - c) x F) */
static inline void react(int d, double *acc, const double *x, const double *c, const double *F) {
  double r[3] = {0, 0, 0};
  for (int a = 0; a < d; a++) {
    acc[a] += F[a];
    r[a] = x[a] - c[a];
  }
  if (d == 3) {
    acc[3] += r[1] * F[2] - r[2] * F[1];
    acc[4] += r[2] * F[0] - r[0] * F[2];
  }
  acc[5] += r[0] * F[1] - r[1] * F[0];
}

/* bforce += the blocks' accumulators, in block order */
static void reduce_bodies(tide_sph *s) {
  int nb = TIDE_SPH_MAXWALL + s->nset;
  for (int b = 0; b < nb; b++)
    for (int c = 0; c < 6; c++) {
      double sum = s->bforce[b][c];
      for (int k = 0; k < TIDE_SPH_FBLOCKS; k++)
        sum += s->bacc[k][b][c];
      s->bforce[b][c] = sum;
    }
}

/* the body of boundary `index` of kind 0 (SDF) or 1 (particle set) into *b */
static int body_index(const tide_sph *s, int kind, int index, int *b) {
  if (kind == 0) {
    if (index < 0 || index >= s->ngroup)
      return tide_fail(TIDE_EINVAL, "SPH: no SDF boundary %d (there are %d)", index + 1, s->ngroup);
    *b = index;
    return TIDE_OK;
  }
  if (index < 0 || index >= s->nset)
    return tide_fail(TIDE_EINVAL, "SPH: no boundary particle set %d (there are %d)", index + 1,
                     s->nset);
  *b = TIDE_SPH_MAXWALL + index;
  return TIDE_OK;
}

int tide_sph_body_force(const tide_sph *s, int kind, int index, double F[3], double T[3]) {
  int b = 0, st;
  if ((st = body_index(s, kind, index, &b))) return st;
  for (int a = 0; a < 3; a++) {
    F[a] = s->bforce[b][a];
    T[a] = s->bforce[b][3 + a];
  }
  return TIDE_OK;
}

int tide_sph_body_centre(const tide_sph *s, int kind, int index, double c[3]) {
  int b = 0, st;
  if ((st = body_index(s, kind, index, &b))) return st;
  double cen[TIDE_SPH_NBODY][3];
  body_centres(s, cen);
  for (int a = 0; a < 3; a++)
    c[a] = cen[b][a];
  return TIDE_OK;
}

int tide_sph_sdf_pose(const tide_sph *s, int boundary, double c[3], double R[9]) {
  int st;
  if ((st = tide_sph_body_centre(s, 0, boundary, c))) return st;
  for (int w = 0; w < s->nwall; w++)
    if (s->wgroup[w] == boundary) {
      memcpy(R, s->wrot[w], sizeof(double) * 9);
      break;
    }
  return TIDE_OK;
}

int tide_sph_forces(tide_sph *s, int pressure, int viscosity) {
  int st, d = s->dim;
  if ((st = need_lists(s, "forces"))) return st;
  int64_t n = s->ps->n;
  const double *x = TIDE_F64P(s->ps->x), *v = TIDE_F64P(s->ps->v);
  const double *rho = TIDE_F64P(s->rho), *p = TIDE_F64P(s->p);
  const double *ren = TIDE_F64P(s->ren);
  double *acc = TIDE_F64P(s->a), m = s->mass, h = 0.5 * s->K.H, eps = 0.01 * h * h;
  double av = viscosity ? s->alpha_visc : 0, ab = viscosity ? s->alpha_bound : 0;
  int hydro = s->wall_hydrostatic, nw = s->nwall, ws = s->wslots, sc = slot_cols(s);
  int wv = ab > 0 && s->wvisc;
  const double *wr = TIDE_F64P(s->wall), *wg = s->wgrp;
  double cen[TIDE_SPH_NBODY][3];
  body_centres(s, cen);
  memset(s->bforce, 0, sizeof s->bforce);
  int64_t bsz = (n + TIDE_SPH_FBLOCKS - 1) / TIDE_SPH_FBLOCKS;
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int blk = 0; blk < TIDE_SPH_FBLOCKS; blk++) {
    double(*acc6)[6] = s->bacc[blk];
    memset(acc6, 0, sizeof s->bacc[blk]);
    int64_t i0 = blk * bsz, i1 = i0 + bsz < n ? i0 + bsz : n;
  for (int64_t i = i0; i < i1; i++) {
    const double *xi = x + i * d, *vi = v + i * d;
    double ai[3] = {s->gravity[0], s->gravity[1], s->gravity[2]}, xij[3], gw[3], fb[3];
    double pi = pressure ? p[i] / (rho[i] * rho[i]) * ren[i] : 0;
    for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
      int64_t j = s->nbr[q];
      double r = diff(d, xi, x + j * d, xij);
      tide_sph_gradW(&s->K, d, xij, r, gw);
      double c = pressure ? pi + p[j] / (rho[j] * rho[j]) * ren[j] : 0;
      if (av > 0) {
        double vx = 0;
        for (int a = 0; a < d; a++)
          vx += (vi[a] - v[j * d + a]) * xij[a];
        if (vx < 0) c -= 2 * av * h * s->c / (rho[i] + rho[j]) * vx / (r * r + eps);
      }
      for (int a = 0; a < d; a++)
        ai[a] -= m * c * gw[a];
    }
    for (int64_t q = s->bstart[i]; q < s->bstart[i + 1]; q++) {
      int64_t k = s->bnbr[q];
      double r = diff(d, xi, s->bx + k * d, xij);
      tide_sph_gradW(&s->K, d, xij, r, gw);
      double c = 2 * pi; /* mirrored: p_b = p_i, rho_b = rho_i */
      if (hydro) {
        /* p_b = p_i + rho_i g . (x_b - x_i): clamped at 0 with the
         * pressure, unclamped alone (DFSPH's non-pressure pass) */
        double gd = 0;
        for (int a = 0; a < d; a++)
          gd -= s->gravity[a] * xij[a];
        if (pressure) {
          double pb = p[i] + rho[i] * gd;
          c = pi + (pb > 0 ? pb : 0) / (rho[i] * rho[i]) * ren[i];
        } else {
          c = gd / rho[i] * ren[i];
        }
      }
      if (ab > 0) {
        double vx = 0;
        for (int a = 0; a < d; a++)
          vx += (vi[a] - s->bv[k * d + a]) * xij[a];
        if (vx < 0) c -= ab * h * s->c / rho[i] * vx / (r * r + eps);
      }
      for (int a = 0; a < d; a++) {
        double f = s->psi[k] * c * gw[a];
        ai[a] -= f;
        fb[a] = m * f; /* the reaction on the set's body */
      }
      int bb = TIDE_SPH_MAXWALL + (int)s->bset[k];
      react(d, acc6[bb], xi, cen[bb], fb);
    }
    if (nw) {
      /* SDF walls: -l_i 2 p_i/rho_i^2 G_w (mirrored), + l_i T_w g / rho_i
       * (hydrostatic wall pressure: sum_b Psi_b g.(x_b - x_i) grad W_ib = -T_w g) */
      const double *G = wr + i * WALL_COLS(d) + WALL_G, *T = G + d;
      for (int a = 0; a < d; a++) {
        ai[a] -= 2 * pi * G[a];
        if (hydro) {
          double tg = 0;
          for (int b = 0; b < d; b++)
            tg += T[a * d + b] * s->gravity[b];
          ai[a] += tg / rho[i] * ren[i];
        }
      }
      /* the reactions per boundary: m (2 p_i/rho_i^2 l_i G_g - l_i T_g g / rho_i),
       * and the wall viscosity of each boundary (sph.h, "Wall viscosity"):
       * u = 1/2 alpha_b h c/rho_i V_g (v_i - v_g(x_i)) on the fluid, -m u on the body */
      const double *sl = wg + i * ws * sc;
      double cv = wv ? 0.5 * ab * h * s->c / rho[i] : 0;
      for (int j = 0; j < ws && sl[j * sc] >= 0; j++) {
        int bb = (int)sl[j * sc];
        const double *Gg = sl + j * sc + 1, *Tg = Gg + d, *Vg = Tg + d * d;
        double u[3] = {0, 0, 0}, ta[3] = {0, 0, 0};
        int accel = hydro && s->waccel[group_wall(s, bb)];
        if (accel) { /* the wall's acceleration: g - a_w(x_i) (tide_sph_sdf_acceleration) */
          double aw[3];
          wall_acc(s, group_wall(s, bb), xi, aw);
          for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++)
              ta[a] += Tg[a * d + b] * aw[b];
            ta[a] *= ren[i] / rho[i];
            ai[a] -= ta[a];
          }
        }
        if (wv) {
          double vw[3], dv[3];
          wall_vel(s, group_wall(s, bb), xi, vw);
          for (int a = 0; a < d; a++)
            dv[a] = vi[a] - vw[a];
          for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++)
              u[a] += Vg[a * d + b] * dv[b];
            u[a] *= cv;
            ai[a] += u[a];
          }
        }
        for (int a = 0; a < d; a++) {
          double f = 2 * pi * Gg[a];
          if (hydro) {
            double tg = 0;
            for (int b = 0; b < d; b++)
              tg += Tg[a * d + b] * s->gravity[b];
            f -= tg / rho[i] * ren[i];
          }
          if (wv) f -= u[a];
          if (accel) f += ta[a];
          fb[a] = m * f;
        }
        react(d, acc6[bb], xi, cen[bb], fb);
      }
    }
    for (int a = 0; a < d; a++)
      acc[i * d + a] = ai[a];
  }
  }
  reduce_bodies(s);
  return TIDE_OK;
}

static int check_dt(double dt) {
  if (!(dt > 0 && isfinite(dt)))
    return tide_fail(TIDE_EINVAL, "SPH: time step must be finite and > 0, got %g", dt);
  return TIDE_OK;
}

int tide_sph_kick(tide_sph *s, double dt) {
  int st;
  if ((st = check_dt(dt))) return st;
  int64_t m = s->ps->n * s->dim;
  double *v = TIDE_F64P(s->ps->v);
  const double *a = TIDE_F64P(s->a);
#pragma omp parallel for schedule(static) if (m > TIDE_PAR_MIN)
  for (int64_t i = 0; i < m; i++)
    v[i] += dt * a[i];
  return TIDE_OK;
}

/* A particle that crossed the surface of an SDF boundary (d < 0) is moved
 * back along the normal to d = dx/10 (a few passes: corners of a shape, or
 * two walls) and loses its velocity into the wall (relative to the wall's);
 * the momentum it loses, divided by dt, is added to the wall's body in acc
 * (about the centres cen; acc NULL: not counted).  1 when moved. */
static int project(const tide_sph *s, double *x, double *v, double (*acc)[6],
                   const double (*cen)[3], double dt) {
  int d = s->dim, moved = 0;
  double dmin = 0.1 * s->g.dx;
  for (int pass = 0; pass < 4; pass++) {
    int any = 0;
    for (int w = 0; w < s->nwall; w++) {
      double dist = wall_dist(s, w, x, s->K.H, NULL);
      if (dist >= 0) continue;
      double n[3], vn = 0, vw[3];
      wall_dist(s, w, x, s->K.H, n);
      wall_vel(s, w, x, vw);
      for (int a = 0; a < d; a++) {
        x[a] += (dmin - dist) * n[a];
        vn += (v[a] - vw[a]) * n[a];
      }
      if (vn < 0) {
        double fb[3];
        for (int a = 0; a < d; a++) {
          v[a] -= vn * n[a];
          fb[a] = s->mass * vn * n[a] / dt;
        }
        int bb = s->wgroup[w];
        if (acc) react(d, acc[bb], x, cen[bb], fb);
      }
      any = moved = 1;
    }
    if (!any) break;
  }
  return moved;
}

/* R = Q R, Q the rotation by dt |omega| about omega (Rodrigues) */
static void turn(double *R, const double *om, double dt) {
  double th = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) * dt;
  if (th == 0) return;
  double k[3] = {om[0] * dt / th, om[1] * dt / th, om[2] * dt / th}, c = cos(th), sn = sin(th);
  double Q[9], K[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0}, N[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      Q[i * 3 + j] = (i == j ? c : 0) + sn * K[i * 3 + j] + (1 - c) * k[i] * k[j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      N[i * 3 + j] = Q[i * 3] * R[j] + Q[i * 3 + 1] * R[3 + j] + Q[i * 3 + 2] * R[6 + j];
  memcpy(R, N, sizeof N);
}

int tide_sph_drift(tide_sph *s, double dt) {
  int st, d = s->dim;
  if ((st = check_dt(dt))) return st;
  int64_t n = s->ps->n, cl = 0;
  double *x = TIDE_F64P(s->ps->x);
  const double *v = TIDE_F64P(s->ps->v);
  double lo[3], hi[3];
  for (int a = 0; a < d; a++) {
    lo[a] = s->g.origin[a] + 0.5 * s->g.dx;
    hi[a] = s->g.origin[a] + (s->g.n[a] - 0.5) * s->g.dx;
  }
  int64_t pr = 0;
  double *vw = TIDE_F64P(s->ps->v);
  for (int w = 0; w < s->nwall; w++) { /* the walls move first: x(t + dt) out of them */
    for (int a = 0; a < d; a++)
      s->wofs[w][a] += dt * s->wvel[w][a];
    if (s->wrotates[w]) turn(s->wrot[w], s->wom[w], dt);
  }
  int sets = 0; /* moving boundary particle sets: the pose, the particles, the cells */
  for (int k = 0; k < s->nset; k++) {
    if (!s->bmoving[k]) continue;
    sets = 1;
    for (int a = 0; a < d; a++)
      s->bcen[k][a] += dt * s->bvel[k][a];
    turn(s->brot[k], s->bom[k], dt);
  }
  if (sets) {
    sets_place(s);
    if ((st = workspace(s, s->nb))) return st;
    double *bex[5] = {s->bkind, s->bset, s->psi, s->by, s->bv};
    int cols[5] = {1, 1, 1, d, d};
    if (sort_points(s, s->nb, s->bx, bex, cols, 5, s->bbeg, s->bend))
      return tide_fail(TIDE_EINVAL, "SPH: a moving boundary particle left the box of the grid");
  }
  double cen[TIDE_SPH_NBODY][3];
  body_centres(s, cen);
  int64_t bsz = (n + TIDE_SPH_FBLOCKS - 1) / TIDE_SPH_FBLOCKS;
#pragma omp parallel for schedule(static) reduction(+ : cl, pr) if (n > TIDE_PAR_MIN)
  for (int blk = 0; blk < TIDE_SPH_FBLOCKS; blk++) {
    double(*acc6)[6] = s->bacc[blk];
    memset(acc6, 0, sizeof s->bacc[blk]);
    int64_t i0 = blk * bsz, i1 = i0 + bsz < n ? i0 + bsz : n;
    for (int64_t i = i0; i < i1; i++) {
      int c = 0;
      for (int a = 0; a < d; a++) {
        double y = x[i * d + a] + dt * v[i * d + a];
        if (y < lo[a]) y = lo[a], c = 1;
        if (y > hi[a]) y = hi[a], c = 1;
        x[i * d + a] = y;
      }
      cl += c;
      if (s->nwall) pr += project(s, x + i * d, vw + i * d, acc6, (const double(*)[3])cen, dt);
    }
  }
  reduce_bodies(s);
  s->clamped = cl;
  s->projected = pr;
  s->nvalid = 0;
  s->ps->bin_valid = 0;
  return TIDE_OK;
}

/* --------------------------------------------------------------- DFSPH */

int tide_sph_dfsph_factor(tide_sph *s) {
  int st, d = s->dim;
  if ((st = need_lists(s, "dfsph_factor"))) return st;
  int64_t n = s->ps->n;
  const double *x = TIDE_F64P(s->ps->x), *rho = TIDE_F64P(s->rho);
  double *al = TIDE_F64P(s->alpha), m = s->mass;
  const double *ren = TIDE_F64P(s->ren), *wr = TIDE_F64P(s->wall);
  int nw = s->nwall;
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t i = 0; i < n; i++) {
    const double *xi = x + i * d;
    double Gf[3] = {0, 0, 0}, Gb[3] = {0, 0, 0}, sq = 0, xij[3], gw[3];
    for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
      double r = diff(d, xi, x + (int64_t)s->nbr[q] * d, xij);
      tide_sph_gradW(&s->K, d, xij, r, gw);
      for (int a = 0; a < d; a++) {
        Gf[a] += m * gw[a];
        sq += m * m * gw[a] * gw[a];
      }
    }
    for (int64_t q = s->bstart[i]; q < s->bstart[i + 1]; q++) {
      int64_t k = s->bnbr[q];
      double r = diff(d, xi, s->bx + k * d, xij);
      tide_sph_gradW(&s->K, d, xij, r, gw);
      for (int a = 0; a < d; a++)
        Gb[a] += s->psi[k] * gw[a];
    }
    if (nw)
      for (int a = 0; a < d; a++)
        Gb[a] += wr[i * WALL_COLS(d) + WALL_G + a];
    double dot = 0;
    for (int a = 0; a < d; a++)
      dot += (Gf[a] + Gb[a]) * (Gf[a] + 2 * Gb[a]);
    double den = ((dot > 0 ? dot : 0) + sq) * ren[i];
    al[i] = den > 0 ? rho[i] / den : 0;
  }
  return TIDE_OK;
}

/* sum_j m v_ij . grad W_ij + sum_b Psi_b v_i . grad W_ib */
static inline double drho(const tide_sph *s, int64_t i, const double *x, const double *v) {
  int d = s->dim;
  const double *xi = x + i * d, *vi = v + i * d;
  double sum = 0, xij[3], gw[3];
  for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
    int64_t j = s->nbr[q];
    double r = diff(d, xi, x + j * d, xij);
    tide_sph_gradW(&s->K, d, xij, r, gw);
    for (int a = 0; a < d; a++)
      sum += s->mass * (vi[a] - v[j * d + a]) * gw[a];
  }
  for (int64_t q = s->bstart[i]; q < s->bstart[i + 1]; q++) {
    int64_t k = s->bnbr[q];
    double r = diff(d, xi, s->bx + k * d, xij);
    tide_sph_gradW(&s->K, d, xij, r, gw);
    for (int a = 0; a < d; a++)
      sum += s->psi[k] * (vi[a] - s->bv[k * d + a]) * gw[a];
  }
  if (s->nwall) {
    const double *row = TIDE_F64P(s->wall) + i * WALL_COLS(d), *G = row + WALL_G;
    sum -= row[2]; /* (v_i - v_w) . G_w */
    for (int a = 0; a < d; a++)
      sum += vi[a] * G[a];
    if (s->gmoved) { /* boundaries whose velocity changed since the search */
      int sc = slot_cols(s);
      const double *sl = s->wgrp + i * s->wslots * sc;
      for (int j = 0; j < s->wslots && sl[j * sc] >= 0; j++) {
        int g = (int)sl[j * sc];
        const double *dq = s->gdv[g], *c = s->gcen[g], *Gg = sl + j * sc + 1;
        double r[3] = {0, 0, 0}, u[3];
        for (int a = 0; a < d; a++)
          r[a] = xi[a] - c[a];
        u[0] = dq[0] + dq[4] * r[2] - dq[5] * r[1];
        u[1] = dq[1] + dq[5] * r[0] - dq[3] * r[2];
        u[2] = dq[2] + dq[3] * r[1] - dq[4] * r[0];
        for (int a = 0; a < d; a++)
          sum -= u[a] * Gg[a];
      }
    }
  }
  return sum;
}

/* v_i -= dt (sum_j m (l_i k_i/rho_i + l_j k_j/rho_j) grad W_ij + sum_b Psi_b 2 l_i k_i/rho_i grad
 * W_ib) */
static void pressure_update(tide_sph *s, double dt, const double *kap) {
  int d = s->dim;
  int64_t n = s->ps->n;
  const double *x = TIDE_F64P(s->ps->x), *rho = TIDE_F64P(s->rho);
  double *v = TIDE_F64P(s->ps->v), m = s->mass;
  const double *ren = TIDE_F64P(s->ren), *wg = s->wgrp;
  int ws = s->wslots, sc = slot_cols(s);
  double cen[TIDE_SPH_NBODY][3];
  body_centres(s, cen);
  int64_t bsz = (n + TIDE_SPH_FBLOCKS - 1) / TIDE_SPH_FBLOCKS;
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int blk = 0; blk < TIDE_SPH_FBLOCKS; blk++) {
    double(*acc6)[6] = s->bacc[blk];
    memset(acc6, 0, sizeof s->bacc[blk]);
    int64_t i0 = blk * bsz, i1 = i0 + bsz < n ? i0 + bsz : n;
  for (int64_t i = i0; i < i1; i++) {
    const double *xi = x + i * d;
    double ki = kap[i] / rho[i] * ren[i], dv[3] = {0, 0, 0}, xij[3], gw[3], fb[3];
    for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
      int64_t j = s->nbr[q];
      double c = ki + kap[j] / rho[j] * ren[j];
      if (c == 0) continue;
      double r = diff(d, xi, x + j * d, xij);
      tide_sph_gradW(&s->K, d, xij, r, gw);
      for (int a = 0; a < d; a++)
        dv[a] += m * c * gw[a];
    }
    if (ki != 0)
      for (int64_t q = s->bstart[i]; q < s->bstart[i + 1]; q++) {
        int64_t k = s->bnbr[q];
        double r = diff(d, xi, s->bx + k * d, xij);
        tide_sph_gradW(&s->K, d, xij, r, gw);
        for (int a = 0; a < d; a++) {
          double f = s->psi[k] * 2 * ki * gw[a];
          dv[a] += f;
          fb[a] = m * f; /* the fluid's force -m f: the reaction on the set's body */
        }
        int bb = TIDE_SPH_MAXWALL + (int)s->bset[k];
        react(d, acc6[bb], xi, cen[bb], fb);
      }
    if (ki != 0 && s->nwall) {
      const double *G = TIDE_F64P(s->wall) + i * WALL_COLS(d) + WALL_G;
      for (int a = 0; a < d; a++)
        dv[a] += 2 * ki * G[a];
      const double *sl = wg + i * ws * sc;
      for (int j = 0; j < ws && sl[j * sc] >= 0; j++) {
        int bb = (int)sl[j * sc];
        for (int a = 0; a < d; a++)
          fb[a] = m * (2 * ki * sl[j * sc + 1 + a]);
        react(d, acc6[bb], xi, cen[bb], fb);
      }
    }
    for (int a = 0; a < d; a++)
      v[i * d + a] -= dt * dv[a];
  }
  }
  reduce_bodies(s);
}

/* ------------------------------------- rigid bodies in the DFSPH solves */

/* A body's generalized velocity q and force: 2D (vx, vy, wz) and (Fx, Fy,
 * Tz), 3D (v, w) and (F, T) -- nq = 3 or 6 entries. */
static int body_nq(int d) { return d == 2 ? 3 : 6; }

static void body_q(const tide_sph *s, int g, double *q) {
  int w = group_wall(s, g);
  if (s->dim == 2) {
    q[0] = s->wvel[w][0], q[1] = s->wvel[w][1], q[2] = s->wom[w][2];
    return;
  }
  for (int a = 0; a < 3; a++)
    q[a] = s->wvel[w][a], q[3 + a] = s->wom[w][a];
}

static void body_force_q(const tide_sph *s, int g, double *f) {
  if (s->dim == 2) {
    f[0] = s->bforce[g][0], f[1] = s->bforce[g][1], f[2] = s->bforce[g][5];
    return;
  }
  for (int a = 0; a < 6; a++)
    f[a] = s->bforce[g][a];
}

static void body_set_q(tide_sph *s, int g, const double *q) {
  int d = s->dim;
  for (int w = 0; w < s->nwall; w++) {
    if (s->wgroup[w] != g) continue;
    for (int a = 0; a < d; a++)
      s->wvel[w][a] = q[a];
    if (d == 2)
      s->wom[w][2] = q[2];
    else
      for (int a = 0; a < 3; a++)
        s->wom[w][a] = q[3 + a];
    if (s->wom[w][0] != 0 || s->wom[w][1] != 0 || s->wom[w][2] != 0) s->wrotates[w] = 1;
  }
}

/* the generalized mass M_b (nq x nq, row major) of body g */
static void body_mass(const tide_sph *s, int g, double *Mb) {
  int nq = body_nq(s->dim);
  for (int a = 0; a < nq * nq; a++)
    Mb[a] = 0;
  for (int a = 0; a < s->dim; a++)
    Mb[a * nq + a] = s->gmass[g];
  if (s->dim == 2)
    Mb[8] = s->ginert[g][8];
  else
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        Mb[(3 + a) * 6 + 3 + b] = s->ginert[g][a * 3 + b];
}

/* K_g = sum_i 2 m l_i alpha_i/rho_i J_i^T J_i over the particles within H
 * of the bodies (J_i = [G ; (x_i - c) x G], G the body's wall gradient):
 * the impulse by which the fluid's next Jacobi iteration answers a change
 * of the body's velocity, serial (the same bits for any thread count) */
static void body_stiffness(const tide_sph *s, double (*K)[36]) {
  int d = s->dim, nq = body_nq(d), sc = slot_cols(s);
  int64_t n = s->ps->n;
  const double *x = TIDE_F64P(s->ps->x), *rho = TIDE_F64P(s->rho), *al = TIDE_F64P(s->alpha);
  const double *ren = TIDE_F64P(s->ren);
  for (int g = 0; g < s->ngroup; g++)
    for (int a = 0; a < 36; a++)
      K[g][a] = 0;
  for (int64_t i = 0; i < n; i++) {
    const double *sl = s->wgrp + i * s->wslots * sc;
    for (int j = 0; j < s->wslots && sl[j * sc] >= 0; j++) {
      int g = (int)sl[j * sc];
      if (!(s->gmass[g] > 0)) continue;
      const double *G = sl + j * sc + 1, *c = s->gcen[g];
      double r[3] = {0, 0, 0}, J[6];
      for (int a = 0; a < d; a++)
        r[a] = x[i * d + a] - c[a];
      if (d == 2) {
        J[0] = G[0], J[1] = G[1], J[2] = r[0] * G[1] - r[1] * G[0];
      } else {
        J[0] = G[0], J[1] = G[1], J[2] = G[2];
        J[3] = r[1] * G[2] - r[2] * G[1];
        J[4] = r[2] * G[0] - r[0] * G[2];
        J[5] = r[0] * G[1] - r[1] * G[0];
      }
      double ci = 2 * s->mass * ren[i] * al[i] / rho[i];
      for (int a = 0; a < nq; a++)
        for (int b = 0; b < nq; b++)
          K[g][a * nq + b] += ci * J[a] * J[b];
    }
  }
}

/* solve A z = b in place (A symmetric positive definite, n <= 6; Cholesky) */
static void spd_solve(int n, double *A, double *b) {
  for (int j = 0; j < n; j++) {
    double dj = A[j * n + j];
    for (int k = 0; k < j; k++)
      dj -= A[j * n + k] * A[j * n + k];
    dj = sqrt(dj > 0 ? dj : 1e-300);
    A[j * n + j] = dj;
    for (int i = j + 1; i < n; i++) {
      double v = A[i * n + j];
      for (int k = 0; k < j; k++)
        v -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = v / dj;
    }
  }
  for (int i = 0; i < n; i++) { /* L y = b */
    for (int k = 0; k < i; k++)
      b[i] -= A[i * n + k] * b[k];
    b[i] /= A[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) { /* L^T z = y */
    for (int k = i + 1; k < n; k++)
      b[i] -= A[k * n + i] * b[k];
    b[i] /= A[i * n + i];
  }
}

/* every coupled body: q += (M_b + K)^-1 (M_b (q0 - q) + dt (F - F0)); the
 * density change of the next iteration sees the new wall velocities */
static void bodies_update(tide_sph *s, double dt, const double (*K)[36], const double (*q0)[6],
                          const double (*F0)[6]) {
  int nq = body_nq(s->dim);
  for (int g = 0; g < s->ngroup; g++) {
    if (!(s->gmass[g] > 0)) continue;
    double Mb[36], A[36], q[6], f[6], rhs[6];
    body_mass(s, g, Mb);
    body_q(s, g, q);
    body_force_q(s, g, f);
    for (int a = 0; a < nq; a++) {
      rhs[a] = dt * (f[a] - F0[g][a]);
      for (int b = 0; b < nq; b++) {
        rhs[a] += Mb[a * nq + b] * (q0[g][b] - q[b]);
        A[a * nq + b] = Mb[a * nq + b] + K[g][a * nq + b];
      }
    }
    spd_solve(nq, A, rhs);
    for (int a = 0; a < nq; a++)
      q[a] += rhs[a];
    body_set_q(s, g, q);
  }
  group_delta(s);
}

/* one of the two DFSPH solvers: divergence = 0 constant density, 1 divergence free */
static int dfsph_solve(tide_sph *s, double dt, double eta, int maxit, int divergence, int *iters,
                       double *error, int *converged) {
  int st;
  if ((st = check_dt(dt))) return st;
  if ((st = need_lists(s, divergence ? "divergence_solve" : "density_solve"))) return st;
  if (!(eta > 0)) return tide_fail(TIDE_EINVAL, "SPH: tolerance must be > 0, got %g", eta);
  int64_t n = s->ps->n;
  const double *x = TIDE_F64P(s->ps->x), *rho = TIDE_F64P(s->rho), *al = TIDE_F64P(s->alpha);
  double *v = TIDE_F64P(s->ps->v), *kap = TIDE_F64P(s->kap), *err = TIDE_F64P(s->err);
  double *p = TIDE_F64P(s->p), r0 = s->rho0;
  int minit = divergence ? 1 : 2, l = 0;
  double mean = 0, *ks = TIDE_F64P(s->ksum);
  /* rigid bodies coupled into the iteration (tide_sph_sdf_dynamics) */
  int nbody = 0;
  double K[TIDE_SPH_MAXWALL][36], q0[TIDE_SPH_MAXWALL][6], F0[TIDE_SPH_MAXWALL][6];
  group_delta(s);
  for (int g = 0; g < s->ngroup; g++)
    if (s->gmass[g] > 0) {
      nbody++;
      body_q(s, g, q0[g]);
      body_force_q(s, g, F0[g]);
    }
  if (nbody) body_stiffness(s, K);
  s->bodies_iters = 0;
  int rising = 0;
  double last = 0;
  if (!divergence) {
    /* warm start [Bender & Koschier 2015, Sec. 4.3; 2017, Sec. 3.3]: the
     * fraction s->warm of the last step's stiffness sum (kappa/rho =
     * p/rho^2 does not depend on dt), only where the density predicted
     * from v* exceeds rho0: elsewhere a warm pressure could only expand,
     * and the compression-only iteration could not take it back */
    double w = s->warm;
#pragma omp parallel for schedule(static) if (n > 1024)
    for (int64_t i = 0; i < n; i++)
      kap[i] = w > 0 && rho[i] + dt * drho(s, i, x, v) > r0 ? w * ks[i] : 0;
    pressure_update(s, dt, kap);
    if (nbody) {
      bodies_update(s, dt, (const double(*)[36])K, (const double(*)[6])q0,
                    (const double(*)[6])F0);
      s->bodies_iters++;
    }
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
      ks[i] = kap[i];
      p[i] = rho[i] * kap[i];
    }
  }
  for (;;) {
#pragma omp parallel for schedule(static) if (n > 1024)
    for (int64_t i = 0; i < n; i++) {
      double D = drho(s, i, x, v);
      if (divergence) {
        D = D > 0 ? D : 0;
        err[i] = D * dt / r0;
        kap[i] = D / dt * al[i];
      } else {
        double rs = rho[i] + dt * D;
        rs = rs > r0 ? rs : r0;
        err[i] = (rs - r0) / r0;
        kap[i] = (rs - r0) / (dt * dt) * al[i];
      }
    }
    mean = n > 0 ? tide_sum(n, err) / (double)n : 0;
    if ((l >= minit && mean <= eta) || l >= maxit) break;
    /* a diverging Jacobi iteration (the error up 4 iterations running:
     * particles stacked between two walls, off-diagonal over diagonal)
     * stops; the solve reports non-convergence */
    rising = l > 0 && mean > last ? rising + 1 : 0;
    last = mean;
    if (rising >= 4) break;
    pressure_update(s, dt, kap);
    if (nbody) {
      bodies_update(s, dt, (const double(*)[36])K, (const double(*)[6])q0,
                    (const double(*)[6])F0);
      s->bodies_iters++;
    }
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
      p[i] += rho[i] * kap[i];
      if (!divergence) ks[i] += kap[i];
    }
    l++;
  }
  if (nbody) /* the body's velocity from its impulse: fluid + body momentum exact */
    for (int g = 0; g < s->ngroup; g++) {
      if (!(s->gmass[g] > 0)) continue;
      int nq = body_nq(s->dim);
      double Mb[36], q[6], f[6];
      body_mass(s, g, Mb);
      body_force_q(s, g, f);
      for (int a = 0; a < nq; a++)
        f[a] = dt * (f[a] - F0[g][a]);
      spd_solve(nq, Mb, f);
      for (int a = 0; a < nq; a++)
        q[a] = q0[g][a] + f[a];
      body_set_q(s, g, q);
      group_delta(s);
    }
  *iters = l;
  *error = mean;
  *converged = mean <= eta;
  return TIDE_OK;
}

int tide_sph_density_solve(tide_sph *s, double dt, double eta, int maxit, int *iters, double *error,
                           int *converged) {
  return dfsph_solve(s, dt, eta, maxit, 0, iters, error, converged);
}

int tide_sph_divergence_solve(tide_sph *s, double dt, double eta, int maxit, int *iters,
                              double *error, int *converged) {
  return dfsph_solve(s, dt, eta, maxit, 1, iters, error, converged);
}

/* ------------------------------------------------------------ gradients */

int tide_sph_gradient(const tide_sph *s, const double *A, int symmetric, double *out) {
  int st, d = s->dim;
  if ((st = need_lists(s, "gradient"))) return st;
  int64_t n = s->ps->n;
  const double *x = TIDE_F64P(s->ps->x), *rho = TIDE_F64P(s->rho);
  double m = s->mass;
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t i = 0; i < n; i++) {
    const double *xi = x + i * d;
    double gsum[3] = {0, 0, 0}, xij[3], gw[3];
    for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
      int64_t j = s->nbr[q];
      double r = diff(d, xi, x + j * d, xij);
      tide_sph_gradW(&s->K, d, xij, r, gw);
      double c = symmetric ? m * (A[i] / (rho[i] * rho[i]) + A[j] / (rho[j] * rho[j]))
                           : m / rho[j] * (A[j] - A[i]);
      for (int a = 0; a < d; a++)
        gsum[a] += c * gw[a];
    }
    for (int a = 0; a < d; a++)
      out[i * d + a] = symmetric ? rho[i] * gsum[a] : gsum[a];
  }
  return TIDE_OK;
}

/* --------------------------------------------------------- diagnostics */

int tide_sph_max_speed(const tide_sph *s, double *out) {
  if (tide_particles_max_norm(s->ps, out))
    return tide_fail(TIDE_ENONFINITE, "SPH: a particle velocity is not finite");
  return TIDE_OK;
}

int tide_sph_diagnostics(const tide_sph *s, double *kinetic, double *momentum, double *mean_err,
                         double *max_err) {
  int d = s->dim;
  int64_t n = s->ps->n;
  const double *v = TIDE_F64P(s->ps->v), *rho = TIDE_F64P(s->rho);
  double ke = 0, mom[3] = {0, 0, 0}, se = 0, me = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = (rho[i] - s->rho0) / s->rho0;
    se += e;
    if (fabs(e) > me) me = fabs(e);
    for (int a = 0; a < d; a++) {
      ke += 0.5 * s->mass * v[i * d + a] * v[i * d + a];
      mom[a] += s->mass * v[i * d + a];
    }
  }
  if (kinetic) *kinetic = ke;
  if (momentum)
    for (int a = 0; a < d; a++)
      momentum[a] = mom[a];
  if (mean_err) *mean_err = n > 0 ? se / (double)n : 0;
  if (max_err) *max_err = me;
  return TIDE_OK;
}
