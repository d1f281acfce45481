/* open.c -- open domain boundaries, emitters and sinks (see open.h). */
#include "liquid/open.h"

#include <math.h>
#include <string.h>

int tide_open_check(const tide_grid *g, unsigned open) {
  if (open >> (2 * g->dim))
    return tide_fail(TIDE_EINVAL, "open sides beyond the %dD domain", g->dim);
  return TIDE_OK;
}

int tide_liquid_open_cells(const tide_grid *g, unsigned open, tide_array *labels) {
  int st;
  if ((st = tide_open_check(g, open))) return st;
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  uint8_t *lab = TIDE_U8P(labels);
  int64_t nc = tide_grid_ncells(g);
  if (!open) return TIDE_OK;
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int64_t q = tide_grid_idx(g, i, j, k);
        if (lab[q] != TIDE_CELL_SOLID && tide_open_layer(g, open, i, j, k)) lab[q] = TIDE_CELL_AIR;
      }
  return TIDE_OK;
}

int tide_liquid_open_phi(const tide_grid *g, unsigned open, tide_array *phi) {
  int st;
  if ((st = tide_open_check(g, open))) return st;
  if ((st = tide_grid_check_cells(g, phi, TIDE_F64, "phi"))) return st;
  if (tide_array_nonfinite(phi)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
  double *f = TIDE_F64P(phi);
  for (int a = 0; a < g->dim; a++) {
    int n = g->n[a];
    if (n < 2) continue;
    int64_t sa = a == 0 ? (int64_t)g->n[1] * g->n[2] : a == 1 ? g->n[2] : 1;
    int b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2; /* the two other axes */
    int64_t s1 = b1 == 0 ? (int64_t)g->n[1] * g->n[2] : b1 == 1 ? g->n[2] : 1;
    int64_t s2 = b2 == 1 ? g->n[2] : 1;
    for (int hi = 0; hi < 2; hi++) {
      if (!(open & TIDE_SIDE_BIT(a, hi))) continue;
      int64_t edge = hi ? (int64_t)(n - 1) * sa : 0, in = hi ? -sa : sa;
      int m1 = g->n[b1], m2 = g->n[b2];
#pragma omp parallel for schedule(static) if ((int64_t)m1 * m2 > TIDE_PAR_MIN)
      for (int s = 0; s < m1; s++)
        for (int t = 0; t < m2; t++) {
          int64_t q = edge + s * s1 + t * s2;
          f[q] = n >= 3 ? 2 * f[q + in] - f[q + 2 * in] : f[q + in];
        }
    }
  }
  return TIDE_OK;
}

int tide_liquid_region(const tide_grid *g, const tide_shape *s, const tide_array *solid,
                       tide_array *mask) {
  int st;
  if (!s) return tide_fail(TIDE_EINVAL, "region needs a shape");
  if (s->dim != g->dim)
    return tide_fail(TIDE_EINVAL, "shape is %dD but the grid is %dD", s->dim, g->dim);
  if ((st = tide_grid_check_cells(g, mask, TIDE_U8, "mask"))) return st;
  if (solid && (st = tide_grid_check_cells(g, solid, TIDE_U8, "solid"))) return st;
  uint8_t *m = TIDE_U8P(mask);
  const uint8_t *sol = solid ? TIDE_U8P(solid) : NULL;
  int64_t nc = tide_grid_ncells(g);
  memset(m, 0, (size_t)nc);
  /* the cells whose centres can lie in the shape's bounding box */
  int lo[3] = {0, 0, 0}, hi[3] = {g->n[0], g->n[1], g->n[2]};
  double blo[3], bhi[3];
  if (tide_shape_bounds(s, blo, bhi))
    for (int a = 0; a < g->dim; a++) {
      double l = floor((blo[a] - g->origin[a]) / g->dx - 0.5),
             h = ceil((bhi[a] - g->origin[a]) / g->dx + 0.5);
      lo[a] = l < 0 ? 0 : l > g->n[a] ? g->n[a] : (int)l;
      hi[a] = h < 0 ? 0 : h > g->n[a] ? g->n[a] : (int)h;
    }
  int64_t work = (int64_t)(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
#pragma omp parallel for schedule(static) if (work > TIDE_PAR_MIN / 8)
  for (int i = lo[0]; i < hi[0]; i++)
    for (int j = lo[1]; j < hi[1]; j++)
      for (int k = lo[2]; k < hi[2]; k++) {
        int64_t q = tide_grid_idx(g, i, j, k);
        if (sol && sol[q] == TIDE_CELL_SOLID) continue;
        double x[3];
        tide_grid_center(g, i, j, k, x);
        m[q] = tide_shape_eval(s, x) < 0;
      }
  return TIDE_OK;
}

/* ------------------------------------------------------------- removal */

/* is particle position x to be deleted: outside the domain, in the open
 * layer or in a sink cell? */
static inline int doomed(const tide_grid *g, unsigned open, const uint8_t *sink, const double *x) {
  int c[3] = {0, 0, 0};
  for (int a = 0; a < g->dim; a++) {
    double s = (x[a] - g->origin[a]) / g->dx;
    if (!(s >= 0 && s < g->n[a])) return 1; /* also NaN */
    c[a] = (int)s;
    if (c[a] >= g->n[a]) c[a] = g->n[a] - 1;
  }
  if (open && tide_open_layer(g, open, c[0], c[1], c[2])) return 1;
  return sink && sink[tide_grid_idx(g, c[0], c[1], c[2])];
}

/* Stable parallel compaction into the spare storage (ps->xs2 ...: the
 * reordering storage of particles.c, kept at >= cap rows), which is then
 * swapped in: blocks of COMPACT_BLOCK particles (a count independent of the
 * threads) count their survivors, a prefix sum gives each block its output
 * offset, and every block copies its survivors there.  *m: survivors. */
#define COMPACT_BLOCK 8192
static int compact_parallel(tide_particles *ps, const tide_grid *g, unsigned open,
                            const uint8_t *sk, int64_t first, int64_t *m) {
  int dim = ps->dim, cdim = ps->apic ? dim * dim : 0;
  int64_t n = ps->n, cap = ps->cap;
  if (!ps->xs2 || ps->xs2->shape[0] < cap) {
    tide_array_release(ps->xs2);
    tide_array_release(ps->vs2);
    tide_array_release(ps->cs2);
    ps->xs2 = tide_array_new2(TIDE_F64, cap, dim);
    ps->vs2 = tide_array_new2(TIDE_F64, cap, dim);
    ps->cs2 = ps->apic ? tide_array_new3(TIDE_F64, cap, dim, dim) : NULL;
    if (!ps->xs2 || !ps->vs2 || (ps->apic && !ps->cs2)) {
      tide_array_release(ps->xs2);
      tide_array_release(ps->vs2);
      tide_array_release(ps->cs2);
      ps->xs2 = ps->vs2 = ps->cs2 = NULL;
      return TIDE_ENOMEM;
    }
  }
  int64_t nb = (n - first + COMPACT_BLOCK - 1) / COMPACT_BLOCK;
  int64_t *off = tide_alloc((size_t)(nb + 1) * sizeof(int64_t));
  if (!off) return TIDE_ENOMEM;
  const double *x = TIDE_F64P(ps->xs), *v = TIDE_F64P(ps->vs),
               *c = ps->apic ? TIDE_F64P(ps->cs) : NULL;
  double *x2 = TIDE_F64P(ps->xs2), *v2 = TIDE_F64P(ps->vs2),
         *c2 = ps->apic ? TIDE_F64P(ps->cs2) : NULL;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < nb; b++) {
    int64_t p1 = first + (b + 1) * COMPACT_BLOCK < n ? first + (b + 1) * COMPACT_BLOCK : n, k = 0;
    for (int64_t p = first + b * COMPACT_BLOCK; p < p1; p++)
      k += !doomed(g, open, sk, x + p * dim);
    off[b + 1] = k;
  }
  off[0] = first;
  for (int64_t b = 0; b < nb; b++)
    off[b + 1] += off[b];
#pragma omp parallel
  {
    /* the untouched head, then the survivors of each block */
#pragma omp for schedule(static)
    for (int64_t p = 0; p < first; p++) {
      memcpy(x2 + p * dim, x + p * dim, (size_t)dim * sizeof(double));
      memcpy(v2 + p * dim, v + p * dim, (size_t)dim * sizeof(double));
      if (c) memcpy(c2 + p * cdim, c + p * cdim, (size_t)cdim * sizeof(double));
    }
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
      int64_t p1 = first + (b + 1) * COMPACT_BLOCK < n ? first + (b + 1) * COMPACT_BLOCK : n,
              q = off[b];
      for (int64_t p = first + b * COMPACT_BLOCK; p < p1; p++) {
        if (doomed(g, open, sk, x + p * dim)) continue;
        memcpy(x2 + q * dim, x + p * dim, (size_t)dim * sizeof(double));
        memcpy(v2 + q * dim, v + p * dim, (size_t)dim * sizeof(double));
        if (c) memcpy(c2 + q * cdim, c + p * cdim, (size_t)cdim * sizeof(double));
        q++;
      }
    }
  }
  *m = off[nb];
  tide_free(off, (size_t)(nb + 1) * sizeof(int64_t));
  /* swap the storage (the views are remade by the caller's resize) */
  tide_array *t;
  t = ps->xs, ps->xs = ps->xs2, ps->xs2 = t;
  t = ps->vs, ps->vs = ps->vs2, ps->vs2 = t;
  t = ps->cs, ps->cs = ps->cs2, ps->cs2 = t;
  ps->cap = ps->xs->shape[0];
  return TIDE_OK;
}

int tide_particles_remove(tide_particles *ps, const tide_grid *g, unsigned open,
                          const tide_array *sink, int64_t *removed) {
  int st;
  if (g->dim != ps->dim)
    return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", g->dim, ps->dim);
  if ((st = tide_open_check(g, open))) return st;
  if (sink && (st = tide_grid_check_cells(g, sink, TIDE_U8, "sink"))) return st;
  const uint8_t *sk = sink ? TIDE_U8P(sink) : NULL;
  int dim = ps->dim, cdim = ps->apic ? dim * dim : 0;
  int64_t n = ps->n, first = n;
  double *x = TIDE_F64P(ps->x), *v = TIDE_F64P(ps->v), *c = ps->apic ? TIDE_F64P(ps->c) : NULL;
  /* the first particle to go (nothing before it moves) */
#pragma omp parallel for schedule(static) reduction(min : first) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++)
    if (p < first && doomed(g, open, sk, x + p * dim)) first = p;
  if (first == n) {
    if (removed) *removed = 0;
    return TIDE_OK;
  }
  int64_t m;
  if (n - first < 4 * COMPACT_BLOCK) {
    /* few to look at: a serial forward copy in place (each write lands at
     * or before the entry read) */
    m = first;
    for (int64_t p = first; p < n; p++) {
      if (doomed(g, open, sk, x + p * dim)) continue;
      if (m != p) {
        memcpy(x + m * dim, x + p * dim, (size_t)dim * sizeof(double));
        memcpy(v + m * dim, v + p * dim, (size_t)dim * sizeof(double));
        if (c) memcpy(c + m * cdim, c + p * cdim, (size_t)cdim * sizeof(double));
      }
      m++;
    }
  } else if ((st = compact_parallel(ps, g, open, sk, first, &m))) {
    return st;
  }
  if (removed) *removed = n - m;
  return tide_particles_resize(ps, m);
}

/* ------------------------------------------------------------- emitters */

int tide_liquid_emit(tide_particles *ps, const tide_grid *g, const tide_array *region, int per_cell,
                     const double *vel, uint64_t stream, int64_t *added, int64_t *removed) {
  int st;
  if (g->dim != ps->dim)
    return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", g->dim, ps->dim);
  if ((st = tide_grid_check_cells(g, region, TIDE_U8, "region"))) return st;
  if (per_cell < 1 || per_cell > 4096)
    return tide_fail(TIDE_EINVAL, "per_cell must be in 1..4096, got %d", per_cell);
  int dim = g->dim;
  for (int d = 0; d < dim; d++)
    if (!vel || !isfinite(vel[d])) return tide_fail(TIDE_EINVAL, "emitter velocity must be finite");
  int64_t gone = 0;
  if ((st = tide_particles_remove(ps, g, 0, region, &gone))) return st;
  if (removed) *removed = gone;
  /* the region cells in grid order */
  const uint8_t *rg = TIDE_U8P(region);
  int64_t nc = tide_grid_ncells(g), nreg = 0;
  for (int64_t q = 0; q < nc; q++)
    nreg += rg[q] != 0;
  if (added) *added = 0;
  if (!nreg) return TIDE_OK;
  int64_t *cells = tide_alloc((size_t)nreg * sizeof(int64_t));
  if (!cells) return TIDE_ENOMEM;
  for (int64_t q = 0, r = 0; q < nc; q++)
    if (rg[q]) cells[r++] = q;
  int64_t n0 = ps->n;
  if ((st = tide_particles_resize(ps, n0 + nreg * per_cell))) {
    tide_free(cells, (size_t)nreg * sizeof(int64_t));
    return st;
  }
  /* stratify when per_cell = r^dim */
  int r = (int)lround(pow((double)per_cell, 1.0 / dim)), rp = 1;
  for (int d = 0; d < dim; d++)
    rp *= r;
  if (rp != per_cell) r = 0;
  double *px = TIDE_F64P(ps->x), *pv = TIDE_F64P(ps->v);
  int nj = g->n[1], nk = g->n[2];
#pragma omp parallel for schedule(static) if (nreg * per_cell > TIDE_PAR_MIN)
  for (int64_t e = 0; e < nreg; e++) {
    int64_t q = cells[e];
    int c[3] = {(int)(q / ((int64_t)nj * nk)), (int)(q / nk % nj), (int)(q % nk)};
    for (int s = 0; s < per_cell; s++) {
      int sub[3] = {0, 0, 0};
      if (r) sub[0] = s % r, sub[1] = (s / r) % r, sub[2] = s / (r * r);
      double h = r ? g->dx / r : g->dx;
      uint64_t ctr = ((uint64_t)q * (uint64_t)per_cell + (uint64_t)s) * 3u;
      int64_t p = n0 + e * per_cell + s;
      for (int d = 0; d < dim; d++) {
        px[p * dim + d] =
            g->origin[d] + c[d] * g->dx + (sub[d] + tide_rand01(stream, ctr + (uint64_t)d)) * h;
        pv[p * dim + d] = vel[d];
      }
    }
  }
  tide_free(cells, (size_t)nreg * sizeof(int64_t));
  if (added) *added = nreg * per_cell;
  return TIDE_OK;
}

int tide_liquid_inflow(tide_mac *u, const tide_array *region, const double *vel, tide_mac *fixed) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "velocity"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = tide_grid_check_cells(g, region, TIDE_U8, "region"))) return st;
  if (fixed && (st = tide_mac_check(fixed, g, TIDE_U8, "fixed"))) return st;
  for (int d = 0; d < g->dim; d++)
    if (!vel || !isfinite(vel[d])) return tide_fail(TIDE_EINVAL, "inflow velocity must be finite");
  const uint8_t *rg = TIDE_U8P(region);
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *ua = TIDE_F64P(u->u[a]), va = vel[a];
    uint8_t *xa = fixed ? TIDE_U8P(fixed->u[a]) : NULL;
    int64_t sa = a == 0 ? (int64_t)g->n[1] * g->n[2] : a == 1 ? g->n[2] : 1;
#pragma omp parallel for schedule(static) if ((int64_t)fd[0] * fd[1] * fd[2] > TIDE_PAR_MIN)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int e = a == 0 ? i : a == 1 ? j : k;
          if (e == 0 || e == g->n[a]) continue; /* domain boundary: walls or open sides decide */
          int64_t hi = tide_grid_idx(g, i, j, k);
          if (!rg[hi] && !rg[hi - sa]) continue;
          int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
          ua[f] = va;
          if (xa) xa[f] = 1;
        }
  }
  return TIDE_OK;
}
