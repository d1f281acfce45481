/* particles.c -- particle sets: storage, seeding, advection, sorting by cell
 * (see particles.h). */
#include "liquid/particles.h"
#include "liquid/mac_view.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ storage */

static int remake_views(tide_particles *ps) {
  tide_array_release(ps->x);
  tide_array_release(ps->v);
  tide_array_release(ps->c);
  ps->x = tide_array_slice(ps->xs, 0, 0, ps->n, 1);
  ps->v = tide_array_slice(ps->vs, 0, 0, ps->n, 1);
  ps->c = ps->apic ? tide_array_slice(ps->cs, 0, 0, ps->n, 1) : NULL;
  if (!ps->x || !ps->v || (ps->apic && !ps->c)) return tide_fail(TIDE_ENOMEM, "particle views");
  return TIDE_OK;
}

static int alloc_storage(int dim, int apic, int64_t cap, tide_array **xs, tide_array **vs,
                         tide_array **cs) {
  *xs = tide_array_new2(TIDE_F64, cap, dim);
  *vs = tide_array_new2(TIDE_F64, cap, dim);
  *cs = apic ? tide_array_new3(TIDE_F64, cap, dim, dim) : NULL;
  if (!*xs || !*vs || (apic && !*cs)) {
    tide_array_release(*xs);
    tide_array_release(*vs);
    tide_array_release(*cs);
    return TIDE_ENOMEM;
  }
  return TIDE_OK;
}

int tide_particles_new(int dim, int64_t cap, int apic, tide_particles **out) {
  if (dim != 2 && dim != 3) return tide_fail(TIDE_EINVAL, "particle dimension must be 2 or 3, got %d", dim);
  if (cap < 0 || cap > ((int64_t)1 << 40)) return tide_fail(TIDE_EINVAL, "capacity out of range");
  if (cap < 16) cap = 16;
  tide_particles *ps = calloc(1, sizeof *ps);
  if (!ps) return tide_fail(TIDE_ENOMEM, "out of memory");
  ps->dim = dim;
  ps->apic = apic != 0;
  ps->cap = cap;
  int st = alloc_storage(dim, ps->apic, cap, &ps->xs, &ps->vs, &ps->cs);
  if (!st) st = remake_views(ps);
  if (st) {
    tide_particles_free(ps);
    return st;
  }
  *out = ps;
  return TIDE_OK;
}

static void free_ws(tide_particles *ps) {
  tide_free(ps->cell_start, (size_t)(ps->ws_cells + 1) * sizeof(int64_t));
  tide_free(ps->order, (size_t)ps->ws_cap * sizeof(int64_t));
  tide_free(ps->cell_of, (size_t)ps->ws_cap * sizeof(int64_t));
  tide_free(ps->order2, (size_t)ps->ws_cap * sizeof(int64_t));
  ps->cell_start = ps->order = ps->cell_of = ps->order2 = NULL;
  ps->ws_cells = ps->ws_cap = 0;
  ps->bin_valid = 0;
  ps->built_n = 0;
}

void *tide_particles_scratch(tide_particles *ps, size_t bytes) {
  if (bytes <= ps->scratch_bytes) return ps->scratch;
  tide_free(ps->scratch, ps->scratch_bytes);
  ps->scratch_bytes = 0;
  ps->scratch = tide_alloc(bytes);
  if (ps->scratch) ps->scratch_bytes = bytes;
  return ps->scratch;
}

void tide_particles_free(tide_particles *ps) {
  if (!ps) return;
  tide_array_release(ps->x);
  tide_array_release(ps->v);
  tide_array_release(ps->c);
  tide_array_release(ps->xs);
  tide_array_release(ps->vs);
  tide_array_release(ps->cs);
  tide_array_release(ps->xs2);
  tide_array_release(ps->vs2);
  tide_array_release(ps->cs2);
  free_ws(ps);
  tide_free(ps->scratch, ps->scratch_bytes);
  free(ps);
}

int64_t tide_particles_bytes(const tide_particles *ps) {
  int64_t per = 2 * ps->dim + (ps->apic ? ps->dim * ps->dim : 0);
  int64_t spare_rows = ps->xs2 ? ps->xs2->shape[0] : 0;
  return (ps->cap + spare_rows) * per * 8 + ps->ws_cap * (ps->order2 ? 24 : 16) + (ps->ws_cells + 1) * 8 +
         (int64_t)ps->scratch_bytes;
}

int tide_particles_reserve(tide_particles *ps, int64_t cap) {
  if (cap <= ps->cap) return TIDE_OK;
  if (cap > ((int64_t)1 << 40)) return tide_fail(TIDE_EINVAL, "particle capacity out of range");
  int64_t nc = ps->cap * 2 > cap ? ps->cap * 2 : cap;
  tide_array *xs, *vs, *cs;
  int st = alloc_storage(ps->dim, ps->apic, nc, &xs, &vs, &cs);
  if (st) return st;
  int dim = ps->dim;
  memcpy(TIDE_F64P(xs), TIDE_F64P(ps->xs), (size_t)(ps->n * dim) * sizeof(double));
  memcpy(TIDE_F64P(vs), TIDE_F64P(ps->vs), (size_t)(ps->n * dim) * sizeof(double));
  if (ps->apic) memcpy(TIDE_F64P(cs), TIDE_F64P(ps->cs), (size_t)(ps->n * dim * dim) * sizeof(double));
  tide_array_release(ps->xs);
  tide_array_release(ps->vs);
  tide_array_release(ps->cs);
  ps->xs = xs;
  ps->vs = vs;
  ps->cs = cs;
  ps->cap = nc;
  return remake_views(ps);
}

int tide_particles_resize(tide_particles *ps, int64_t n) {
  if (n < 0) return tide_fail(TIDE_EINVAL, "particle count must be >= 0, got %lld", (long long)n);
  int st = tide_particles_reserve(ps, n);
  if (st) return st;
  if (n > ps->n) {
    int dim = ps->dim;
    int64_t m = n - ps->n;
    memset(TIDE_F64P(ps->xs) + ps->n * dim, 0, (size_t)(m * dim) * sizeof(double));
    memset(TIDE_F64P(ps->vs) + ps->n * dim, 0, (size_t)(m * dim) * sizeof(double));
    if (ps->apic) memset(TIDE_F64P(ps->cs) + ps->n * dim * dim, 0, (size_t)(m * dim * dim) * sizeof(double));
  }
  ps->n = n;
  return remake_views(ps);
}

int tide_particles_max_speed(const tide_particles *ps, double *out) {
  const double *v = TIDE_F64P(ps->v);
  int64_t m = ps->n * ps->dim;
  double best = 0;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(max : best) reduction(| : bad) if (m > TIDE_PAR_MIN)
  for (int64_t i = 0; i < m; i++) {
    double s = fabs(v[i]);
    if (!(s <= 1e300)) bad = 1;
    else if (s > best) best = s;
  }
  if (bad) return tide_fail(TIDE_ENONFINITE, "particle velocities hold non-finite values");
  *out = best;
  return TIDE_OK;
}

int tide_particles_max_norm(const tide_particles *ps, double *out) {
  int d = ps->dim;
  int64_t n = ps->n;
  const double *v = TIDE_F64P(ps->v);
  double mx = 0;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(max : mx) reduction(| : bad) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) {
    double s = 0;
    for (int a = 0; a < d; a++)
      s += v[p * d + a] * v[p * d + a];
    if (!isfinite(s)) bad = 1;
    else if (s > mx) mx = s;
  }
  *out = sqrt(mx);
  if (bad) return tide_fail(TIDE_ENONFINITE, "a particle velocity is not finite");
  return TIDE_OK;
}

/* ------------------------------------------------------------ seeding */

static int inside(const tide_shape *s, const tide_lattice *phi, const double *x) {
  if (s && !(tide_shape_eval(s, x) < 0)) return 0;
  if (phi->f && !(tide_lattice_interp(phi, x) < 0)) return 0;
  return 1;
}

/* candidate s of cell (i, j, k): position into x */
static void candidate(const tide_grid *g, int i, int j, int k, int s, int per_cell, int r,
                      double jitter, uint64_t stream, double *x) {
  int64_t cell = tide_grid_idx(g, i, j, k);
  uint64_t ctr = ((uint64_t)cell * (uint64_t)per_cell + (uint64_t)s) * 3u;
  int c[3] = {i, j, k};
  int sub[3] = {0, 0, 0};
  if (r > 0) {
    sub[0] = s % r;
    sub[1] = (s / r) % r;
    sub[2] = s / (r * r);
  }
  double h = r > 0 ? g->dx / r : g->dx;
  for (int d = 0; d < 3; d++) {
    x[d] = 0;
    if (d >= g->dim) continue;
    double u = tide_rand01(stream, ctr + (uint64_t)d);
    x[d] = g->origin[d] + c[d] * g->dx + (sub[d] + 0.5 + jitter * (u - 0.5)) * h;
  }
}

int tide_particles_seed(tide_particles *ps, const tide_grid *g, const tide_shape *shape,
                        const tide_array *phi, int per_cell, double jitter, uint64_t stream,
                        const double *vel, const tide_array *labels, int64_t *added) {
  int st;
  if (g->dim != ps->dim) return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", g->dim, ps->dim);
  if (per_cell < 1 || per_cell > 4096) return tide_fail(TIDE_EINVAL, "per_cell must be in 1..4096, got %d", per_cell);
  if (!(jitter >= 0 && jitter <= 1)) return tide_fail(TIDE_EINVAL, "jitter must be in [0, 1]");
  if (labels && (st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (!shape && !phi) return tide_fail(TIDE_EINVAL, "seeding needs a shape or a level set");
  if (shape && shape->dim != g->dim) return tide_fail(TIDE_EINVAL, "shape is %dD but the grid is %dD", shape->dim, g->dim);
  tide_lattice lphi = {0};
  if (phi) {
    if ((st = tide_grid_check_cells(g, phi, TIDE_F64, "phi"))) return st;
    if (tide_array_nonfinite(phi)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
    tide_lattice_cells(g, TIDE_F64P(phi), &lphi);
  }
  int dim = g->dim;
  for (int d = 0; d < dim; d++)
    if (vel && !isfinite(vel[d])) return tide_fail(TIDE_EINVAL, "velocity is not finite");
  /* stratify when per_cell = r^dim */
  int r = (int)lround(pow((double)per_cell, 1.0 / dim));
  int rp = 1;
  for (int d = 0; d < dim; d++) rp *= r;
  if (rp != per_cell) r = 0;

  int64_t nc = tide_grid_ncells(g);
  int64_t *start = tide_alloc((size_t)(nc + 1) * sizeof(int64_t));
  if (!start) return TIDE_ENOMEM;
  const uint8_t *lab = labels ? TIDE_U8P(labels) : NULL;
  int nj = g->n[1], nk = g->n[2];
  /* pass 1: kept candidates per cell */
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        int64_t cnt = 0;
        if (!lab || lab[c] != TIDE_CELL_SOLID)
          for (int s = 0; s < per_cell; s++) {
            double x[3];
            candidate(g, i, j, k, s, per_cell, r, jitter, stream, x);
            cnt += inside(shape, &lphi, x);
          }
        start[c + 1] = cnt;
      }
  start[0] = 0;
  for (int64_t c = 0; c < nc; c++) start[c + 1] += start[c];
  int64_t n0 = ps->n, m = start[nc];
  if ((st = tide_particles_resize(ps, n0 + m))) {
    tide_free(start, (size_t)(nc + 1) * sizeof(int64_t));
    return st;
  }
  double *px = TIDE_F64P(ps->x), *pv = TIDE_F64P(ps->v);
  /* pass 2: write them in cell order */
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        if (start[c + 1] == start[c]) continue;
        int64_t q = n0 + start[c];
        for (int s = 0; s < per_cell; s++) {
          double x[3];
          candidate(g, i, j, k, s, per_cell, r, jitter, stream, x);
          if (!inside(shape, &lphi, x)) continue;
          for (int d = 0; d < dim; d++) {
            px[q * dim + d] = x[d];
            pv[q * dim + d] = vel ? vel[d] : 0;
          }
          q++;
        }
      }
  tide_free(start, (size_t)(nc + 1) * sizeof(int64_t));
  if (added) *added = m;
  return TIDE_OK;
}

/* ------------------------------------------------------------ advection */

static inline int is_solid(const tide_grid *g, const uint8_t *lab, const double *x) {
  int c[3];
  tide_grid_locate(g, x, c);
  return lab[tide_grid_idx(g, c[0], c[1], c[2])] == TIDE_CELL_SOLID;
}

/* Move x out of its solid cell onto the nearest face shared with a
 * non-solid neighbour cell (just inside it); 0 if there is none. */
static int push_out(const tide_grid *g, const uint8_t *lab, double *x, double eps) {
  int c[3];
  tide_grid_locate(g, x, c);
  double best = INFINITY;
  int bd = -1, bs = 0;
  for (int d = 0; d < g->dim; d++)
    for (int s = -1; s <= 1; s += 2) {
      int nb[3] = {c[0], c[1], c[2]};
      nb[d] += s;
      if (nb[d] < 0 || nb[d] >= g->n[d]) continue;
      if (lab[tide_grid_idx(g, nb[0], nb[1], nb[2])] == TIDE_CELL_SOLID) continue;
      double face = g->origin[d] + (c[d] + (s > 0)) * g->dx;
      double dist = fabs(x[d] - face);
      if (dist < best) best = dist, bd = d, bs = s;
    }
  if (bd < 0) return 0;
  x[bd] = g->origin[bd] + (c[bd] + (bs > 0)) * g->dx + bs * eps;
  return 1;
}

/* push x out of the solid level set to phi = eps along its normal */
static inline void push_out_phi(const tide_lattice *L, double *x, double eps, double h) {
  for (int it = 0; it < 2; it++) {
    double phi = tide_lattice_interp(L, x);
    if (!(phi < eps)) return;
    double n[3] = {0, 0, 0}, len = 0;
    for (int d = 0; d < L->dim; d++) {
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[d] += h;
      xm[d] -= h;
      n[d] = tide_lattice_interp(L, xp) - tide_lattice_interp(L, xm);
      len += n[d] * n[d];
    }
    if (!(len > 0)) return;
    len = sqrt(len);
    for (int d = 0; d < L->dim; d++) x[d] += (eps - phi) * n[d] / len;
  }
}

int tide_particles_advect(tide_particles *ps, const tide_mac *vel, double dt, int order,
                          const tide_array *labels, double margin) {
  return tide_particles_advect_solid(ps, vel, dt, order, labels, NULL, margin);
}

/* particle advection through one velocity field, resolved once */
typedef struct {
  const tide_grid *g;
  tide_mac_view V;
  double dt, eps, lo[3], hi[3];
  int order;
  const uint8_t *lab;
  int has_sphi;
  tide_lattice sphi;
} advect_ctx;

static int advect_prepare(const tide_particles *ps, const tide_mac *vel, double dt, int order,
                          const tide_array *labels, const tide_array *solid_phi, double margin, advect_ctx *A) {
  int st;
  if ((st = tide_mac_check(vel, NULL, TIDE_F64, "velocity"))) return st;
  const tide_grid *g = &vel->grid;
  if (g->dim != ps->dim) return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", g->dim, ps->dim);
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if (order < 1 || order > 3) return tide_fail(TIDE_EINVAL, "order must be 1, 2 or 3, got %d", order);
  if (!(margin >= 0 && margin < 0.5)) return tide_fail(TIDE_EINVAL, "margin must be in [0, 0.5)");
  if (labels && (st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (solid_phi) {
    if ((st = tide_grid_check_cells(g, solid_phi, TIDE_F64, "solid_phi"))) return st;
    if (tide_array_nonfinite(solid_phi)) return tide_fail(TIDE_ENONFINITE, "solid_phi holds non-finite values");
  }
  A->g = g;
  tide_mac_view_init(vel, &A->V);
  A->dt = dt;
  A->order = order;
  A->lab = labels ? TIDE_U8P(labels) : NULL;
  A->has_sphi = solid_phi != NULL;
  if (solid_phi) tide_lattice_cells(g, TIDE_F64P(solid_phi), &A->sphi);
  A->eps = margin * g->dx;
  for (int d = 0; d < 3; d++) {
    A->lo[d] = g->origin[d] + A->eps;
    A->hi[d] = g->origin[d] + g->n[d] * g->dx - A->eps;
  }
  return TIDE_OK;
}

/* move the particle at x, where the velocity is k1 = u(x); returns 1 (and
 * leaves x as it was) when the new position is not finite */
static inline __attribute__((always_inline)) int advect_one(const advect_ctx *A, double *x, const double *k1) {
  const tide_grid *g = A->g;
  int dim = g->dim;
  double dt = A->dt;
  double x0[3] = {0, 0, 0}, k2[3] = {0, 0, 0}, k3[3] = {0, 0, 0}, y[3] = {0, 0, 0};
  for (int d = 0; d < dim; d++) x0[d] = x[d];
  if (A->order == 1) {
    for (int d = 0; d < dim; d++) y[d] = x0[d] + dt * k1[d];
  } else if (A->order == 2) {
    for (int d = 0; d < dim; d++) y[d] = x0[d] + 0.5 * dt * k1[d];
    tide_mac_view_velocity(&A->V, y, k2);
    for (int d = 0; d < dim; d++) y[d] = x0[d] + dt * k2[d];
  } else { /* Ralston's third-order method */
    for (int d = 0; d < dim; d++) y[d] = x0[d] + 0.5 * dt * k1[d];
    tide_mac_view_velocity(&A->V, y, k2);
    for (int d = 0; d < dim; d++) y[d] = x0[d] + 0.75 * dt * k2[d];
    tide_mac_view_velocity(&A->V, y, k3);
    for (int d = 0; d < dim; d++) y[d] = x0[d] + dt * (2 * k1[d] + 3 * k2[d] + 4 * k3[d]) / 9;
  }
  /* every stage's velocity counts: a NaN midpoint would be located at the
   * grid's corner and give a finite k2 */
  for (int d = 0; d < dim; d++)
    if (!isfinite(y[d]) || !isfinite(k1[d]) || !isfinite(k2[d]) || !isfinite(k3[d]))
      return 1; /* an error, never clamped to the wall */
  for (int d = 0; d < dim; d++) {
    if (y[d] < A->lo[d]) y[d] = A->lo[d];
    if (y[d] > A->hi[d]) y[d] = A->hi[d];
  }
  if (A->has_sphi) {
    push_out_phi(&A->sphi, y, A->eps, 0.25 * g->dx);
    for (int d = 0; d < dim; d++) {
      if (!(y[d] >= A->lo[d])) y[d] = A->lo[d];
      if (y[d] > A->hi[d]) y[d] = A->hi[d];
    }
  }
  if (A->lab && is_solid(g, A->lab, y) && !push_out(g, A->lab, y, A->eps > 0 ? A->eps : 1e-6 * g->dx))
    for (int d = 0; d < dim; d++) y[d] = x0[d];
  for (int d = 0; d < dim; d++) x[d] = y[d];
  return 0;
}

/* the error for particle p (0-based), whose advection gave a non-finite
 * position: was the position already broken, or the velocity? */
static int advect_nonfinite(const advect_ctx *A, const double *x, int64_t p) {
  int dim = A->g->dim;
  double k[3] = {0, 0, 0};
  int xbad = 0;
  for (int d = 0; d < dim; d++) xbad |= !isfinite(x[d]);
  if (xbad)
    return tide_fail(TIDE_ENONFINITE, "particle %lld has a non-finite position (%g, %g, %g) before advection",
                     (long long)p + 1, x[0], x[1], dim > 2 ? x[2] : 0.0);
  tide_mac_view_velocity(&A->V, x, k);
  return tide_fail(TIDE_ENONFINITE,
                   "particle %lld at (%g, %g, %g) would move to a non-finite position (velocity (%g, %g, %g), dt = %g)",
                   (long long)p + 1, x[0], x[1], dim > 2 ? x[2] : 0.0, k[0], k[1], dim > 2 ? k[2] : 0.0, A->dt);
}

int tide_particles_advect_solid(tide_particles *ps, const tide_mac *vel, double dt, int order,
                                const tide_array *labels, const tide_array *solid_phi, double margin) {
  advect_ctx A;
  int st = advect_prepare(ps, vel, dt, order, labels, solid_phi, margin, &A);
  if (st) return st;
  ps->bin_valid = 0; /* the particles move: P2G bins them again instead of trusting the last binning */
  int dim = ps->dim;
  double *px = TIDE_F64P(ps->x);
  int64_t n = ps->n, first = n;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : first) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) {
    double k1[3] = {0, 0, 0};
    tide_mac_view_velocity(&A.V, px + p * dim, k1);
    if (advect_one(&A, px + p * dim, k1) && p < first) first = p;
  }
  return first < n ? advect_nonfinite(&A, px + first * dim, first) : TIDE_OK;
}

int tide_liquid_g2p_advect(tide_particles *ps, const tide_mac *u, const tide_mac *u_old, tide_transfer scheme,
                           double flip, double dt, int order, const tide_array *labels,
                           const tide_array *solid_phi, double margin) {
  tide_g2p_ctx G;
  advect_ctx A;
  int st = tide_g2p_prepare(ps, u, u_old, scheme, flip, &G);
  if (st || (st = advect_prepare(ps, u, dt, order, labels, solid_phi, margin, &A))) return st;
  ps->bin_valid = 0;
  int dim = ps->dim;
  double *px = TIDE_F64P(ps->x), *pv = TIDE_F64P(ps->v);
  double *pc = ps->apic ? TIDE_F64P(ps->c) : NULL;
  int64_t n = ps->n, first = n;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : first) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) {
    double k1[3] = {0, 0, 0};
    tide_axis_loc loc[3];
    tide_grid_locate_axes(&u->grid, px + p * dim, loc);
    tide_g2p_one(&G, loc, pv + p * dim, pc ? pc + p * dim * dim : NULL, k1);
    if (advect_one(&A, px + p * dim, k1) && p < first) first = p;
  }
  return first < n ? advect_nonfinite(&A, px + first * dim, first) : TIDE_OK;
}

/* ------------------------------------------------------------ binning */

static inline int64_t cell_index(const tide_grid *g, double inv, const double *x) {
  return tide_particles_cell(g, g->dim, inv, x);
}

static int bin_from_cells(tide_particles *ps, int64_t nc, int changed);

int tide_particles_bin_cells(tide_particles *ps, const tide_grid *g, int changed) {
  int64_t nc = tide_grid_ncells(g);
  if (g->dim != ps->dim || !ps->cell_of || nc != ps->ws_cells || ps->n > ps->ws_cap)
    return tide_fail(TIDE_EINVAL, "tide_particles_bin_cells: no binning workspace of this grid to reuse");
  return bin_from_cells(ps, nc, changed);
}

int tide_particles_bin(tide_particles *ps, const tide_grid *g) {
  if (g->dim != ps->dim) return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", g->dim, ps->dim);
  int64_t nc = tide_grid_ncells(g), n = ps->n;
  if (nc != ps->ws_cells || n > ps->ws_cap) {
    int64_t cap = n > ps->ws_cap ? ps->cap : ps->ws_cap;
    free_ws(ps);
    ps->cell_start = tide_alloc((size_t)(nc + 1) * sizeof(int64_t));
    ps->order = tide_alloc((size_t)cap * sizeof(int64_t));
    ps->cell_of = tide_alloc((size_t)cap * sizeof(int64_t));
    if (!ps->cell_start || !ps->order || !ps->cell_of) {
      tide_free(ps->cell_start, (size_t)(nc + 1) * sizeof(int64_t));
      tide_free(ps->order, (size_t)cap * sizeof(int64_t));
      tide_free(ps->cell_of, (size_t)cap * sizeof(int64_t));
      ps->cell_start = ps->order = ps->cell_of = NULL;
      return TIDE_ENOMEM;
    }
    ps->ws_cells = nc;
    ps->ws_cap = cap;
  }
  const double *px = TIDE_F64P(ps->x);
  int64_t *cell_of = ps->cell_of;
  int dim = ps->dim;
  /* the cells of the particles: the same as last time? */
  int changed = 0;
  int64_t first = n; /* the first particle at a non-finite position */
  double inv = 1.0 / g->dx;
#pragma omp parallel for schedule(dynamic, 8192) reduction(| : changed) reduction(min : first) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) {
    const double *x = px + p * dim;
    /* (the 3D case with compile-time trip counts: this pass runs every MPM substep) */
    int64_t c = dim == 3 ? tide_particles_cell(g, 3, inv, x) : cell_index(g, inv, x);
    if (c != cell_of[p]) cell_of[p] = c, changed = 1;
    int bad = dim == 3 ? !isfinite(x[0]) | !isfinite(x[1]) | !isfinite(x[2]) : 0;
    for (int d = dim == 3 ? 3 : 0; d < dim; d++) bad |= !isfinite(x[d]);
    if (bad && p < first) first = p;
  }
  if (first < n) {
    ps->bin_valid = 0;
    const double *x = px + first * dim;
    return tide_fail(TIDE_ENONFINITE, "particle %lld has a non-finite position (%g, %g, %g)", (long long)first + 1,
                     x[0], x[1], dim > 2 ? x[2] : 0.0);
  }
  return bin_from_cells(ps, nc, changed);
}

/* order and cell_start from cell_of[0 .. n) (the binning kept when no cell
 * changed since the last one) */
static int bin_patch(tide_particles *ps, int64_t nc);
static int bin_from_cells(tide_particles *ps, int64_t nc, int changed) {
  int64_t n = ps->n, *cell_of = ps->cell_of, *start = ps->cell_start, *order = ps->order;
  if (!changed && ps->bin_valid && ps->bin_n == n) return TIDE_OK;
  ps->bin_valid = 0;
  int st;
  /* (the patch is serial: with more threads the counting sort below runs in parallel) */
  int serial = n <= TIDE_PAR_MIN || omp_get_max_threads() == 1;
  if (serial && ps->built_n == n && n > 0 && (st = bin_patch(ps, nc)) >= 0) return st;
  ps->built_n = 0;
  /* is the storage already in cell order (as reseeding and sorting leave it)? */
  int unsorted = 0;
#pragma omp parallel for schedule(static) reduction(| : unsorted) if (n > TIDE_PAR_MIN)
  for (int64_t p = 1; p < n; p++) unsorted |= cell_of[p] < cell_of[p - 1];
  ps->sorted = !unsorted;
  if (!unsorted) {
    /* cell c starts at the first particle of a cell >= c: every start entry
     * is written once, by the particle where the cell index passes it */
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
    for (int64_t p = 0; p < n; p++) {
      int64_t c0 = p > 0 ? cell_of[p - 1] : -1;
      for (int64_t c = c0 + 1; c <= cell_of[p]; c++) start[c] = p;
      order[p] = p;
    }
    for (int64_t c = n > 0 ? cell_of[n - 1] + 1 : 0; c <= nc; c++) start[c] = n;
  } else {
    /* stable counting sort in T chunks of particles; chunk t counts over
     * its own cell range [lo_t, hi_t] (narrow for nearly sorted sets), cell
     * c's particles go chunk by chunk, each in index order */
    enum { TMAX = 16 };
    int T = n > TIDE_PAR_MIN ? omp_get_max_threads() : 1;
    if (T > TMAX) T = TMAX;
    int64_t lo[TMAX], hi[TMAX], base[TMAX + 1];
#pragma omp parallel for schedule(static, 1) if (T > 1)
    for (int t = 0; t < T; t++) {
      int64_t a = lo[t] = nc, b = hi[t] = -1;
      for (int64_t p = t * n / T; p < (t + 1) * n / T; p++) {
        if (cell_of[p] < a) a = cell_of[p];
        if (cell_of[p] > b) b = cell_of[p];
      }
      lo[t] = a, hi[t] = b;
    }
    base[0] = 0;
    for (int t = 0; t < T; t++) base[t + 1] = base[t] + (hi[t] >= lo[t] ? hi[t] - lo[t] + 1 : 0);
    int64_t *cnt = tide_particles_scratch(ps, (size_t)(base[T] > 0 ? base[T] : 1) * sizeof(int64_t));
    if (!cnt) return TIDE_ENOMEM;
#pragma omp parallel for schedule(static, 1) if (T > 1)
    for (int t = 0; t < T; t++) {
      int64_t *ct = cnt + base[t] - lo[t];
      for (int64_t c = lo[t]; c <= hi[t]; c++) ct[c] = 0;
      for (int64_t p = t * n / T; p < (t + 1) * n / T; p++) ct[cell_of[p]]++;
    }
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
    for (int64_t c = 0; c < nc; c++) {
      int64_t m = 0;
      for (int t = 0; t < T; t++)
        if (c >= lo[t] && c <= hi[t]) m += cnt[base[t] + c - lo[t]];
      start[c + 1] = m;
    }
    start[0] = 0;
    for (int64_t c = 0; c < nc; c++) start[c + 1] += start[c];
    /* the counts become each chunk's first slot in the cell */
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
    for (int64_t c = 0; c < nc; c++) {
      int64_t run = start[c];
      for (int t = 0; t < T; t++)
        if (c >= lo[t] && c <= hi[t]) {
          int64_t m = cnt[base[t] + c - lo[t]];
          cnt[base[t] + c - lo[t]] = run;
          run += m;
        }
    }
#pragma omp parallel for schedule(static, 1) if (T > 1)
    for (int t = 0; t < T; t++) {
      int64_t *ct = cnt + base[t] - lo[t];
      for (int64_t p = t * n / T; p < (t + 1) * n / T; p++) order[ct[cell_of[p]]++] = p;
    }
  }
  ps->bin_valid = 1;
  ps->bin_n = ps->built_n = n;
  return TIDE_OK;
}

static int by_cell_index(const void *a, const void *b) {
  const int64_t *u = a, *v = b;
  return u[0] != v[0] ? (u[0] > v[0]) - (u[0] < v[0]) : (u[1] > v[1]) - (u[1] < v[1]);
}

/* the binning of cell_of from the one in order / cell_start (built_n = n,
 * of the cells before) when few particles changed cell: they leave their
 * old cells' lists and join their new cells' in index order -- the
 * counting sort's result, in two passes without counting; returns -1
 * (nothing built) when more than n / 64 moved */
static int bin_patch(tide_particles *ps, int64_t nc) {
  int64_t n = ps->n, *cell_of = ps->cell_of, *start = ps->cell_start, *order = ps->order;
  int64_t kmax = n / 64 + 1, k = 0;
  if (!ps->order2 && !(ps->order2 = tide_alloc((size_t)ps->ws_cap * sizeof(int64_t)))) return TIDE_ENOMEM;
  int64_t *mv = tide_particles_scratch(ps, (size_t)kmax * 2 * sizeof(int64_t)), *o2 = ps->order2;
  if (!mv) return TIDE_ENOMEM;
  /* the particles away from their listed cell: (new cell, index) pairs, -1 in order */
  for (int64_t c = 0; c < nc; c++)
    for (int64_t q = start[c]; q < start[c + 1]; q++) {
      int64_t p = order[q];
      if (cell_of[p] == c) continue;
      if (k == kmax) return -1; /* (the fallbacks rewrite order whole) */
      mv[2 * k] = cell_of[p], mv[2 * k + 1] = p, k++;
      order[q] = -1;
    }
  qsort(mv, (size_t)k, 2 * sizeof(int64_t), by_cell_index);
  /* merge, cell by cell, the kept particles and the arrivals */
  int64_t w = 0, j = 0, unsorted = 0, q0 = 0;
  for (int64_t c = 0; c < nc; c++) {
    int64_t q1 = start[c + 1]; /* (start[c] is already the new one) */
    for (int64_t q = q0; q < q1; q++) {
      int64_t p = order[q];
      if (p < 0) continue;
      for (; j < k && mv[2 * j] == c && mv[2 * j + 1] < p; j++, w++) unsorted |= (o2[w] = mv[2 * j + 1]) ^ w;
      unsorted |= (o2[w] = p) ^ w, w++;
    }
    for (; j < k && mv[2 * j] == c; j++, w++) unsorted |= (o2[w] = mv[2 * j + 1]) ^ w;
    start[c + 1] = w;
    q0 = q1;
  }
  ps->order2 = order, ps->order = o2;
  ps->sorted = !unsorted;
  ps->bin_valid = 1;
  ps->bin_n = n;
  return TIDE_OK;
}

/* ------------------------------------------------------------ reseeding */

/* spare storage of at least n rows; a new one gets 1/8 more than n (and at
 * least the current capacity), so that a slowly growing set does not get
 * fresh storage (page faults) at every reseeding */
static int spare(tide_particles *ps, int64_t n) {
  if (ps->xs2 && ps->xs2->shape[0] >= n) return TIDE_OK;
  tide_array_release(ps->xs2);
  tide_array_release(ps->vs2);
  tide_array_release(ps->cs2);
  ps->xs2 = ps->vs2 = ps->cs2 = NULL;
  int64_t cap = n + n / 8 > ps->cap ? n + n / 8 : ps->cap;
  return alloc_storage(ps->dim, ps->apic, cap, &ps->xs2, &ps->vs2, &ps->cs2);
}

/* swap the spare storage in as the storage of n particles */
static int swap_storage(tide_particles *ps, int64_t n) {
  tide_array *t;
  t = ps->xs, ps->xs = ps->xs2, ps->xs2 = t;
  t = ps->vs, ps->vs = ps->vs2, ps->vs2 = t;
  t = ps->cs, ps->cs = ps->cs2, ps->cs2 = t;
  ps->cap = ps->xs->shape[0];
  ps->n = n;
  return remake_views(ps);
}

/* Rebuild the set in cell order from the binned particles: cell c gets
 * keep[c] of its particles (the first ones in index order) followed by
 * add[c] new ones placed by place(); out[c] are the output offsets. */
typedef struct {
  const tide_mac *vel;
  uint64_t stream;
  int lo;
} newpart;

static int rebuild(tide_particles *ps, const tide_grid *g, const int64_t *keep, const int64_t *add,
                   int64_t *out, const newpart *np, int verify, int *stale) {
  int64_t nc = tide_grid_ncells(g), total = 0;
  for (int64_t c = 0; c < nc; c++) {
    out[c] = total;
    total += keep[c] + add[c];
  }
  int st = spare(ps, total);
  if (st) return st;
  ps->built_n = 0; /* order and cell_of are rewritten */
  int dim = ps->dim;
  int64_t dd = (int64_t)dim * dim;
  const double *sx = TIDE_F64P(ps->xs), *sv = TIDE_F64P(ps->vs), *sc = ps->apic ? TIDE_F64P(ps->cs) : NULL;
  double *dx_ = TIDE_F64P(ps->xs2), *dv = TIDE_F64P(ps->vs2), *dc = ps->apic ? TIDE_F64P(ps->cs2) : NULL;
  const int64_t *start = ps->cell_start, *order = ps->order;
  int64_t stride[3] = {(int64_t)g->n[1] * g->n[2], g->n[2], 1};
  /* the binning of the new storage comes out with it: cell_of of every
   * slot (a new particle whose position rounds into another cell spoils it) */
  int64_t *cell_of = ps->cell_of, *order2 = NULL, cap2 = ps->xs2->shape[0];
  if (total > ps->ws_cap) { /* a larger workspace, installed after the copy (order is read in it) */
    cell_of = tide_alloc((size_t)cap2 * sizeof(int64_t));
    order2 = tide_alloc((size_t)cap2 * sizeof(int64_t));
    if (!cell_of || !order2) {
      tide_free(cell_of, cell_of ? (size_t)cap2 * sizeof(int64_t) : 0);
      tide_free(order2, order2 ? (size_t)cap2 * sizeof(int64_t) : 0);
      cell_of = order2 = NULL;
    }
  }
  double inv = 1.0 / g->dx;
  int strays = 0;
#pragma omp parallel for schedule(dynamic, 512) reduction(| : strays) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++) {
    int64_t w = out[c];
    if (verify) /* the binning is trusted: is every particle of the cell (kept or not) in it? */
      for (int64_t q = start[c]; q < start[c + 1]; q++) strays |= 2 * (cell_index(g, inv, sx + order[q] * dim) != c);
    for (int64_t q = start[c]; q < start[c] + keep[c]; q++, w++) {
      int64_t p = order[q];
      if (cell_of) cell_of[w] = c;
      for (int d = 0; d < dim; d++) {
        dx_[w * dim + d] = sx[p * dim + d];
        dv[w * dim + d] = sv[p * dim + d];
      }
      if (dc)
        for (int64_t e = 0; e < dd; e++) dc[w * dd + e] = sc[p * dd + e];
    }
    if (add[c] <= 0) continue;
    int64_t idx[3] = {c / stride[0], (c / stride[1]) % g->n[1], c % g->n[2]};
    for (int64_t k = 0; k < add[c]; k++, w++) {
      double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
      uint64_t ctr = ((uint64_t)c * (uint64_t)(np->lo + 1) + (uint64_t)k) * 3u;
      for (int d = 0; d < dim; d++) x[d] = g->origin[d] + (idx[d] + tide_rand01(np->stream, ctr + d)) * g->dx;
      tide_mac_velocity(np->vel, x, v);
      if (cell_of) {
        cell_of[w] = cell_index(g, inv, x);
        strays |= cell_of[w] != c;
      }
      for (int d = 0; d < dim; d++) {
        dx_[w * dim + d] = x[d];
        dv[w * dim + d] = v[d];
      }
      if (dc)
        for (int64_t e = 0; e < dd; e++) dc[w * dd + e] = 0;
    }
  }
  *stale = (strays & 2) != 0;
  if (*stale) {
    if (order2) {
      tide_free(cell_of, (size_t)cap2 * sizeof(int64_t));
      tide_free(order2, (size_t)cap2 * sizeof(int64_t));
    }
    ps->bin_valid = 0;
    return TIDE_OK;
  }
  ps->bin_valid = 0;
  if (order2) {
    tide_free(ps->order, (size_t)ps->ws_cap * sizeof(int64_t));
    tide_free(ps->cell_of, (size_t)ps->ws_cap * sizeof(int64_t));
    tide_free(ps->order2, (size_t)ps->ws_cap * sizeof(int64_t));
    ps->order2 = NULL;
    ps->order = order2;
    ps->cell_of = cell_of;
    ps->ws_cap = cap2;
  }
  if ((st = swap_storage(ps, total))) return st;
  if (cell_of && !(strays & 1)) {
    int64_t *cs = ps->cell_start, *ord = ps->order;
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
    for (int64_t c = 0; c < nc; c++) cs[c] = out[c];
    cs[nc] = total;
#pragma omp parallel for schedule(static) if (total > TIDE_PAR_MIN)
    for (int64_t p = 0; p < total; p++) ord[p] = p;
    ps->sorted = 1;
    ps->bin_valid = 1;
    ps->bin_n = ps->built_n = total;
  }
  return TIDE_OK;
}

int tide_particles_reseed(tide_particles *ps, const tide_mac *vel, const tide_array *labels, int lo,
                          int hi, uint64_t stream, int64_t *added, int64_t *removed) {
  int st;
  if ((st = tide_mac_check(vel, NULL, TIDE_F64, "velocity"))) return st;
  const tide_grid *g = &vel->grid;
  if (g->dim != ps->dim) return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", g->dim, ps->dim);
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (lo < 0 || hi < 1 || lo > hi || hi > 1 << 20) return tide_fail(TIDE_EINVAL, "need 0 <= lo <= hi, got %d, %d", lo, hi);
  int64_t nc = tide_grid_ncells(g);
  const uint8_t *lab = TIDE_U8P(labels);
  int dim = g->dim;
  int64_t stride[3] = {(int64_t)g->n[1] * g->n[2], g->n[2], 1};
  /* the binning of the last operator (labelling) is trusted and checked
   * while the set is rebuilt; a particle outside its cell means: bin, redo */
  int trusted = ps->bin_valid && ps->bin_n == ps->n && ps->ws_cells == nc;
  for (;;) {
    if (!trusted && (st = tide_particles_bin(ps, g))) return st;
    const int64_t *start = ps->cell_start;
    int64_t *keep = tide_particles_scratch(ps, (size_t)nc * sizeof(int64_t) * 3);
    if (!keep) return TIDE_ENOMEM;
    int64_t *add = keep + nc, *out = add + nc;
    int64_t nrem = 0, nadd = 0;
#pragma omp parallel for schedule(static) reduction(+ : nrem, nadd) if (nc > TIDE_PAR_MIN)
    for (int64_t c = 0; c < nc; c++) {
      int64_t m = start[c + 1] - start[c];
      keep[c] = m;
      add[c] = 0;
      if (lab[c] != TIDE_CELL_LIQUID) continue;
      if (m > hi) {
        keep[c] = hi;
        nrem += m - hi;
      } else if (m < lo) {
        int64_t idx[3] = {c / stride[0], (c / stride[1]) % g->n[1], c % g->n[2]};
        int surface = 0;
        for (int a = 0; a < dim && !surface; a++) {
          if (idx[a] > 0 && lab[c - stride[a]] == TIDE_CELL_AIR) surface = 1;
          if (idx[a] + 1 < g->n[a] && lab[c + stride[a]] == TIDE_CELL_AIR) surface = 1;
        }
        if (!surface) add[c] = lo - m, nadd += lo - m;
      }
    }
    newpart np = {vel, stream, lo};
    int stale = 0;
    if ((st = rebuild(ps, g, keep, add, out, &np, trusted, &stale))) return st;
    if (stale) {
      trusted = 0;
      continue;
    }
    if (added) *added = nadd;
    if (removed) *removed = nrem;
    return TIDE_OK;
  }
}

int tide_particles_sort(tide_particles *ps, const tide_grid *g) {
  int st;
  if ((st = tide_particles_bin(ps, g))) return st;
  int64_t nc = tide_grid_ncells(g);
  int64_t *keep = tide_particles_scratch(ps, (size_t)nc * sizeof(int64_t) * 3);
  if (!keep) return TIDE_ENOMEM;
  int64_t *add = keep + nc, *out = add + nc;
  for (int64_t c = 0; c < nc; c++) {
    keep[c] = ps->cell_start[c + 1] - ps->cell_start[c];
    add[c] = 0;
  }
  newpart np = {NULL, 0, 0};
  int stale = 0;
  st = rebuild(ps, g, keep, add, out, &np, 0, &stale);
  return st;
}
