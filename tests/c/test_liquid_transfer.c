/* test_liquid_transfer.c -- seeding, advection, P2G/G2P (PIC, FLIP, APIC)
 * on MAC grids: conservation, exactness for affine fields, determinism
 * across thread counts (modules/liquid). */
#include "check.h"
#include "liquid/particles.h"

#include <math.h>
#include <string.h>

static double affine(const double *x, int a) {
  static const double A[3][3] = {{0.4, -1.2, 0.3}, {0.9, -0.4, 0.7}, {-0.5, 0.6, 0.0}};
  static const double b[3] = {0.25, -1.0, 0.5};
  return b[a] + A[a][0] * x[0] + A[a][1] * x[1] + A[a][2] * x[2];
}

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}

static uint64_t mac_hash(const tide_mac *m) {
  uint64_t h = 1469598103934665603ULL;
  for (int a = 0; a < m->grid.dim; a++)
    h = hash_bytes(tide_array_ptr(m->u[a]), (size_t)tide_array_size(m->u[a]) * 8, h);
  return h;
}

static void test_dim(int dim) {
  tide_grid g;
  int n[3] = {12, 10, 9};
  double org[3] = {0.1, -0.2, 0.3};
  tide_grid_init(&g, dim, n, 0.05, org);
  int ppc = dim == 2 ? 4 : 8;

  /* seeding: a cell-aligned box gets exactly ppc particles per cell */
  tide_particles *ps;
  CHECK(tide_particles_new(dim, 0, 1, &ps) == TIDE_OK, "new");
  double blo[3], bhi[3];
  for (int d = 0; d < 3; d++) {
    blo[d] = g.origin[d];
    bhi[d] = g.origin[d] + g.n[d] * g.dx;
  }
  tide_shape *box;
  CHECK(tide_shape_box(dim, blo, bhi, &box) == TIDE_OK, "box");
  int64_t added = 0;
  CHECK(tide_particles_seed(ps, &g, box, NULL, ppc, 1.0, 3, NULL, NULL, &added) == TIDE_OK, "seed");
  tide_shape_release(box);
  CHECK(added == tide_grid_ncells(&g) * ppc && ps->n == added, "filled: %lld particles", (long long)added);
  tide_array *cnt = tide_grid_cell_array(&g, TIDE_I32), *lab = tide_grid_cell_array(&g, TIDE_U8);
  CHECK(tide_liquid_label(ps, &g, NULL, lab, cnt) == TIDE_OK, "label");
  double lo, hi;
  tide_array_minmax(cnt, &lo, &hi);
  CHECK(lo == ppc && hi == ppc, "stratified: %g..%g per cell", lo, hi);
  tide_array_minmax(lab, &lo, &hi);
  CHECK(lo == TIDE_CELL_LIQUID && hi == TIDE_CELL_LIQUID, "all liquid");

  /* give every particle an affine velocity and C = its gradient */
  double *px = TIDE_F64P(ps->x), *pv = TIDE_F64P(ps->v), *pc = TIDE_F64P(ps->c);
  static const double A[3][3] = {{0.4, -1.2, 0.3}, {0.9, -0.4, 0.7}, {-0.5, 0.6, 0.0}};
  for (int64_t p = 0; p < ps->n; p++)
    for (int a = 0; a < dim; a++) {
      double x[3] = {px[p * dim], px[p * dim + 1], dim == 3 ? px[p * dim + 2] : 0};
      pv[p * dim + a] = affine(x, a);
      for (int d = 0; d < dim; d++) pc[(p * dim + a) * dim + d] = A[a][d];
    }

  /* P2G momentum conservation: sum_f w_f u_f = sum_p v_p per component */
  tide_mac *u, *w, *uold;
  tide_mac_new(&g, TIDE_F64, &u);
  tide_mac_new(&g, TIDE_F64, &w);
  tide_mac_new(&g, TIDE_F64, &uold);
  CHECK(tide_liquid_p2g(ps, u, 0, w) == TIDE_OK, "p2g pic");
  for (int a = 0; a < dim; a++) {
    double gm = 0, pm = 0, ws = 0;
    int64_t nf = tide_array_size(u->u[a]);
    for (int64_t f = 0; f < nf; f++) gm += TIDE_F64P(w->u[a])[f] * TIDE_F64P(u->u[a])[f], ws += TIDE_F64P(w->u[a])[f];
    for (int64_t p = 0; p < ps->n; p++) pm += pv[p * dim + a];
    CHECK(fabs(gm - pm) < 1e-10 * (1 + fabs(pm)), "P2G conserves momentum (axis %d): %.15g vs %.15g", a, gm, pm);
    CHECK_NEAR(ws, (double)ps->n, 1e-9); /* partition of unity: mass */
  }

  /* APIC P2G of an affine field is exact on every reached face */
  CHECK(tide_liquid_p2g(ps, u, 1, w) == TIDE_OK, "p2g apic");
  double maxerr = 0;
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(&g, a, fd);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
          if (TIDE_F64P(w->u[a])[f] == 0) continue;
          double x[3] = {g.origin[0] + (i + 0.5 * (a != 0)) * g.dx, g.origin[1] + (j + 0.5 * (a != 1)) * g.dx,
                         dim == 3 ? g.origin[2] + (k + 0.5 * (a != 2)) * g.dx : 0};
          maxerr = fmax(maxerr, fabs(TIDE_F64P(u->u[a])[f] - affine(x, a)));
        }
  }
  CHECK(maxerr < 1e-12, "APIC P2G exact for affine velocities (%dD): %g", dim, maxerr);

  /* APIC G2P of the affine grid field: v and C recovered exactly */
  memset(pv, 0, (size_t)(ps->n * dim) * sizeof(double));
  memset(pc, 0, (size_t)(ps->n * dim * dim) * sizeof(double));
  CHECK(tide_liquid_g2p(ps, u, NULL, TIDE_TRANSFER_APIC, 0) == TIDE_OK, "g2p apic");
  double verr = 0, cerr = 0;
  for (int64_t p = 0; p < ps->n; p++) {
    double x[3] = {px[p * dim], px[p * dim + 1], dim == 3 ? px[p * dim + 2] : 0};
    /* faces reach half a cell past the outermost centre lines: stay inside */
    int in = 1;
    for (int d = 0; d < dim; d++)
      in &= x[d] > g.origin[d] + 0.5 * g.dx && x[d] < g.origin[d] + (g.n[d] - 0.5) * g.dx;
    if (!in) continue;
    for (int a = 0; a < dim; a++) {
      verr = fmax(verr, fabs(pv[p * dim + a] - affine(x, a)));
      for (int d = 0; d < dim; d++) cerr = fmax(cerr, fabs(pc[(p * dim + a) * dim + d] - A[a][d]));
    }
  }
  CHECK(verr < 1e-12 && cerr < 1e-11, "APIC G2P exact (%dD): v %g, C %g", dim, verr, cerr);

  /* FLIP: a uniform grid change dv is added to every particle exactly;
   * PIC: particles take the grid value */
  tide_mac_copy(uold, u);
  double dv[3] = {0.5, -0.25, 0.125};
  tide_mac_add_accel(u, dv, 1.0);
  double *v0 = tide_alloc((size_t)(ps->n * dim) * sizeof(double));
  memcpy(v0, pv, (size_t)(ps->n * dim) * sizeof(double));
  CHECK(tide_liquid_g2p(ps, u, uold, TIDE_TRANSFER_FLIP, 1.0) == TIDE_OK, "g2p flip");
  double ferr = 0;
  for (int64_t p = 0; p < ps->n; p++)
    for (int a = 0; a < dim; a++) ferr = fmax(ferr, fabs(pv[p * dim + a] - v0[p * dim + a] - dv[a]));
  CHECK(ferr < 1e-12, "FLIP adds the grid change: %g", ferr);
  tide_free(v0, (size_t)(ps->n * dim) * sizeof(double));

  /* determinism: P2G with 1 and 2 threads is bit-identical */
  tide_threads_set(1);
  tide_liquid_p2g(ps, u, 1, NULL);
  uint64_t h1 = mac_hash(u);
  tide_threads_set(2);
  tide_liquid_p2g(ps, u, 1, NULL);
  uint64_t h2 = mac_hash(u);
  CHECK(h1 == h2, "P2G bit-identical for 1 and 2 threads");

  /* advection: uniform velocity moves particles by U dt; clamped at walls */
  tide_mac *vel;
  tide_mac_new(&g, TIDE_F64, &vel);
  double U[3] = {0.2, -0.1, 0.05};
  tide_mac_add_accel(vel, U, 1.0);
  tide_particles *q;
  tide_particles_new(dim, 4, 0, &q);
  tide_particles_resize(q, 2);
  double *qx = TIDE_F64P(q->x);
  for (int d = 0; d < dim; d++) {
    qx[d] = g.origin[d] + 0.5 * g.n[d] * g.dx;
    qx[dim + d] = g.origin[d] + (g.n[d] - 0.1) * g.dx;
  }
  CHECK(tide_particles_advect(q, vel, 0.1, 2, NULL, 1e-3) == TIDE_OK, "advect");
  CHECK_NEAR(qx[0], g.origin[0] + 0.5 * g.n[0] * g.dx + 0.02, 1e-14);
  CHECK_NEAR(qx[1], g.origin[1] + 0.5 * g.n[1] * g.dx - 0.01, 1e-14);
  CHECK_NEAR(qx[dim], g.origin[0] + (g.n[0] - 1e-3) * g.dx, 1e-14);
  /* a particle driven into a solid cell is pushed back out */
  tide_array *sol = tide_grid_cell_array(&g, TIDE_U8);
  int kk = dim == 3 ? 4 : 0;
  TIDE_U8P(sol)[tide_grid_idx(&g, 6, 5, kk)] = TIDE_CELL_SOLID;
  double xs[3] = {g.origin[0] + 5.95 * g.dx, g.origin[1] + 5.5 * g.dx, dim == 3 ? g.origin[2] + 4.5 * g.dx : 0};
  for (int d = 0; d < dim; d++) qx[d] = xs[d];
  tide_mac_fill(vel, 0);
  double ux[3] = {1, 0, 0};
  tide_mac_add_accel(vel, ux, 1.0);
  CHECK(tide_particles_advect(q, vel, 0.01, 2, sol, 1e-3) == TIDE_OK, "advect with solid");
  CHECK(qx[0] < g.origin[0] + 6 * g.dx, "pushed out of the solid cell: x = %g", qx[0]);

  tide_array_release(sol);
  tide_particles_free(q);
  tide_mac_free(vel);
  tide_mac_free(u);
  tide_mac_free(w);
  tide_mac_free(uold);
  tide_array_release(cnt);
  tide_array_release(lab);
  tide_particles_free(ps);
}

/* binning: random, cell-ordered and unchanged sets give the stable sort by
 * cell; the result does not depend on the thread count */
static int bin_ok(const tide_particles *ps, const tide_grid *g) {
  const double *x = tide_array_ptr(ps->x);
  int64_t nc = tide_grid_ncells(g), prev = -1;
  if (ps->cell_start[0] != 0 || ps->cell_start[nc] != ps->n) return 0;
  for (int64_t c = 0; c < nc; c++)
    for (int64_t q = ps->cell_start[c]; q < ps->cell_start[c + 1]; q++) {
      int64_t p = ps->order[q];
      int ijk[3];
      tide_grid_locate(g, x + p * g->dim, ijk);
      if (tide_grid_idx(g, ijk[0], ijk[1], ijk[2]) != c) return 0;
      if (q > ps->cell_start[c] && p <= prev) return 0; /* stable */
      prev = p;
    }
  return 1;
}

static void test_bin(void) {
  tide_grid g;
  int n[3] = {23, 17, 11};
  double org[3] = {-0.3, 0.1, 0.2};
  tide_grid_init(&g, 3, n, 0.04, org);
  int64_t np = 40000;
  uint64_t h[2];
  for (int t = 0; t < 2; t++) {
    tide_threads_set(t + 1);
    tide_particles *ps;
    tide_particles_new(3, np, 0, &ps);
    tide_particles_resize(ps, np);
    double *x = tide_array_ptr(ps->x);
    for (int64_t p = 0; p < 3 * np; p++) /* some outside the grid (clamped into it) */
      x[p] = org[p % 3] - 0.05 + (n[p % 3] * 0.04 + 0.1) * tide_rand01(5, (uint64_t)p);
    CHECK(tide_particles_bin(ps, &g) == TIDE_OK && !ps->sorted && bin_ok(ps, &g), "random set binned (%d threads)", t + 1);
    h[t] = hash_bytes(ps->order, (size_t)np * 8, hash_bytes(ps->cell_start, (size_t)(tide_grid_ncells(&g) + 1) * 8, 1));
    /* unchanged: kept; one particle moved to another cell: rebinned */
    CHECK(tide_particles_bin(ps, &g) == TIDE_OK && bin_ok(ps, &g), "unchanged set");
    x[3 * 777] += 0.2;
    CHECK(tide_particles_bin(ps, &g) == TIDE_OK && bin_ok(ps, &g), "moved particle rebinned");
    /* in cell order: the parallel start pass */
    CHECK(tide_particles_sort(ps, &g) == TIDE_OK && tide_particles_bin(ps, &g) == TIDE_OK, "sort");
    CHECK(ps->sorted && bin_ok(ps, &g), "sorted set binned in place");
    /* P2G trusts the binning the sort left; a particle moved behind its back
     * (a raw write) is found by the scatter, and the result is that of a
     * freshly binned copy */
    x = tide_array_ptr(ps->x);
    x[3 * 123] += 0.13;
    tide_mac *u1, *u2;
    tide_mac_new(&g, TIDE_F64, &u1);
    tide_mac_new(&g, TIDE_F64, &u2);
    tide_particles *cp;
    tide_particles_new(3, ps->n, 0, &cp);
    tide_particles_resize(cp, ps->n);
    memcpy(tide_array_ptr(cp->x), x, (size_t)ps->n * 24);
    double *v = tide_array_ptr(ps->v);
    for (int64_t p = 0; p < 3 * ps->n; p++) v[p] = sin(0.01 * p);
    memcpy(tide_array_ptr(cp->v), v, (size_t)ps->n * 24);
    CHECK(ps->bin_valid && tide_liquid_p2g(ps, u1, 0, NULL) == TIDE_OK && tide_liquid_p2g(cp, u2, 0, NULL) == TIDE_OK,
          "P2G with a stale binning");
    CHECK(mac_hash(u1) == mac_hash(u2) && bin_ok(ps, &g), "stale binning detected, P2G as from scratch");
    /* reseeding trusts the binning as well and checks it while copying */
    tide_array *lab = tide_grid_cell_array(&g, TIDE_U8);
    memset(tide_array_ptr(lab), TIDE_CELL_LIQUID, (size_t)tide_grid_ncells(&g));
    x = tide_array_ptr(ps->x);
    x[3 * 456 + 1] -= 0.09;
    memcpy(tide_array_ptr(cp->x), x, (size_t)ps->n * 24);
    memcpy(tide_array_ptr(cp->v), tide_array_ptr(ps->v), (size_t)ps->n * 24);
    cp->bin_valid = 0;
    int64_t a1 = -1, r1 = -1, a2 = -2, r2 = -2;
    CHECK(ps->bin_valid && tide_particles_reseed(ps, u1, lab, 2, 4, 9, &a1, &r1) == TIDE_OK &&
              tide_particles_reseed(cp, u1, lab, 2, 4, 9, &a2, &r2) == TIDE_OK,
          "reseed with a stale binning");
    CHECK(a1 == a2 && r1 == r2 && ps->n == cp->n &&
              memcmp(tide_array_ptr(ps->x), tide_array_ptr(cp->x), (size_t)ps->n * 24) == 0,
          "stale binning detected, reseeding as from scratch (%lld added, %lld removed)", (long long)a1, (long long)r1);
    tide_array_release(lab);
    tide_mac_free(u1);
    tide_mac_free(u2);
    tide_particles_free(cp);
    /* fewer particles, same cells */
    tide_particles_resize(ps, np / 2);
    CHECK(tide_particles_bin(ps, &g) == TIDE_OK && bin_ok(ps, &g), "shrunk set");
    tide_particles_free(ps);
  }
  CHECK(h[0] == h[1], "binning bit-identical with 1 and 2 threads");
}

int main(void) {
  test_bin();
  test_dim(2);
  test_dim(3);
  /* seeding is independent of the thread count */
  tide_grid g;
  int n[3] = {16, 16, 1};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, 2, n, 1.0 / 16, org);
  tide_shape *sph;
  double cen[3] = {0.5, 0.5, 0};
  tide_shape_sphere(2, cen, 0.3, &sph);
  uint64_t h[2];
  for (int t = 0; t < 2; t++) {
    tide_threads_set(t + 1);
    tide_particles *ps;
    tide_particles_new(2, 0, 0, &ps);
    tide_particles_seed(ps, &g, sph, NULL, 5, 1.0, 9, NULL, NULL, NULL);
    h[t] = hash_bytes(tide_array_ptr(ps->x), (size_t)ps->n * 16, 1469598103934665603ULL);
    double area = ps->n / 5.0 * g.dx * g.dx;
    CHECK(fabs(area - M_PI * 0.09) < 0.03 * M_PI * 0.09, "disk area from particle count: %g", area);
    tide_particles_free(ps);
  }
  tide_shape_release(sph);
  CHECK(h[0] == h[1], "seeding identical for 1 and 2 threads");
  return check_report();
}
