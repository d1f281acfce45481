/* test_mpm.c -- exact identities of the material point method (mpm.h):
 * the updated-Lagrangian F update under an affine velocity field, mass and
 * momentum of the transfers, conservation of linear and angular momentum in
 * free flight with elastic stress, energy that never grows, and
 * bit-identical results for 1 and 2 threads and for the sparse block grid
 * against the dense one.  Quadratic and cubic
 * B-splines, 2D and 3D. */
#include "check.h"
#include "mpm/mpm.h"
#include "solid/small.h"
#include "tide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static tide_mpm *make(int dim, int order, int n, double mu, double lambda, const double *vel,
                      const double *A, double lo, double hi) {
  tide_grid g = {dim, {n, n, dim == 3 ? n : 1}, 1.0 / n, {0, 0, 0}};
  tide_mpm *m = NULL;
  if (tide_mpm_new(&g, order, &m)) return NULL;
  tide_mpm_material mt;
  memset(&mt, 0, sizeof mt);
  mt.elastic = tide_material_default(TIDE_MODEL_FIXED_COROTATED, mu, lambda);
  mt.rho = 1000;
  int idx;
  tide_shape *box;
  double blo[3] = {lo, lo, lo}, bhi[3] = {hi, hi * 0.9, hi};
  if (tide_mpm_add_material(m, &mt, &idx) || tide_shape_box(dim, blo, bhi, &box)) return NULL;
  int64_t added;
  int st = tide_mpm_seed(m, box, dim == 3 ? 8 : 4, 1, 7, idx, vel, A, &added);
  tide_shape_release(box);
  if (st || added == 0) return NULL;
  return m;
}

/* an affine velocity field v = b + A (x - c) is transported exactly:
 * v_p, C_p = A and F <- (I + dt A) F to round-off, for every particle */
static void affine(int dim, int order) {
  double b[3] = {0.3, -0.2, 0.1}, A[9];
  for (int i = 0; i < dim * dim; i++)
    A[i] = 0.7 * sin(1.3 * i + 0.4);
  tide_mpm *m = make(dim, order, 16, 0, 0, b, A, 0.3, 0.7);
  CHECK(m != NULL, "set-up %dD order %d: %s", dim, order, tide_errmsg());
  if (!m) return;
  int d = dim;
  int64_t n = m->ps->n;
  double dt = 1e-2;
  /* pre-distort F so the product is tested, not just I + dt A */
  double *F = TIDE_F64P(m->F);
  for (int64_t p = 0; p < n; p++)
    for (int i = 0; i < d * d; i++)
      F[p * d * d + i] = (i % (d + 1) == 0) + 0.1 * cos(p + i);
  double *F0 = malloc(sizeof(double) * (size_t)(n * d * d)),
         *x0 = malloc(sizeof(double) * (size_t)(n * d));
  memcpy(F0, F, sizeof(double) * (size_t)(n * d * d));
  memcpy(x0, TIDE_F64P(m->ps->x), sizeof(double) * (size_t)(n * d));
  double pm0, pp0[3], gm, gp[3];
  tide_mpm_diagnostics(m, NULL, NULL, pp0, NULL, &pm0);
  CHECK(tide_mpm_p2g(m, dt) == TIDE_OK, "p2g: %s", tide_errmsg());
  tide_mpm_grid_sums(m, &gm, gp);
  CHECK(fabs(gm - pm0) <= 1e-13 * pm0, "%dD order %d: node mass %.17g vs particle mass %.17g", dim,
        order, gm, pm0);
  for (int a = 0; a < d; a++)
    CHECK(fabs(gp[a] - pp0[a]) <= 1e-12 * pm0, "%dD order %d: node momentum %d %.17g vs %.17g", dim,
          order, a, gp[a], pp0[a]);
  CHECK(tide_mpm_g2p(m, dt) == TIDE_OK, "g2p: %s", tide_errmsg());
  /* the centroid of the seeded particles */
  double c[3] = {0, 0, 0};
  for (int64_t p = 0; p < n; p++)
    for (int a = 0; a < d; a++)
      c[a] += x0[p * d + a];
  for (int a = 0; a < d; a++)
    c[a] /= (double)n;
  const double *x = TIDE_F64P(m->ps->x), *v = TIDE_F64P(m->ps->v), *C = TIDE_F64P(m->ps->c);
  double ev = 0, ec = 0, ef = 0, ex = 0;
  for (int64_t p = 0; p < n; p++) {
    for (int a = 0; a < d; a++) {
      double want = b[a];
      for (int k = 0; k < d; k++)
        want += A[a * d + k] * (x0[p * d + k] - c[k]);
      ev = fmax(ev, fabs(v[p * d + a] - want));
      ex = fmax(ex, fabs(x[p * d + a] - (x0[p * d + a] + dt * v[p * d + a])));
      for (int k = 0; k < d; k++) {
        ec = fmax(ec, fabs(C[(p * d + a) * d + k] - A[a * d + k]));
        double f = F0[(p * d + a) * d + k];
        for (int q = 0; q < d; q++)
          f += dt * A[a * d + q] * F0[(p * d + q) * d + k];
        ef = fmax(ef, fabs(F[(p * d + a) * d + k] - f));
      }
    }
  }
  CHECK(ev < 1e-13 && ec < 1e-12 && ef < 1e-14 && ex < 1e-15,
        "%dD order %d: affine transport errors v %.3g C %.3g F %.3g x %.3g", dim, order, ev, ec, ef,
        ex);
  free(F0);
  free(x0);
  tide_mpm_free(m);
}

/* a spinning, translating elastic block in free flight (no gravity, no
 * walls): linear and angular momentum conserved to round-off, the total
 * energy never grows, 1 and 2 threads bit-identical */
static void free_flight(int dim, int order) {
  double b[3] = {0.5, 0.2, -0.1}, A[9] = {0};
  if (dim == 2) {
    A[1] = -3, A[2] = 3;
  } else {
    A[1] = -3, A[3] = 3, A[5] = 1, A[7] = -1;
  }
  A[0] = 0.5; /* a stretching part too, so the block vibrates */
  double out[2][8];
  double *xs[2] = {NULL, NULL};
  int64_t n = 0;
  for (int t = 0; t < 2; t++) {
    tide_threads_set(t + 1);
    tide_mpm *m = make(dim, order, dim == 3 ? 16 : 32, 2e3, 3e3, b, A, 0.35, 0.6);
    CHECK(m != NULL, "set-up: %s", tide_errmsg());
    if (!m) return;
    int d = dim;
    double E0, P0[3], L0[3], ke, ee, P[3], L[3], E;
    tide_mpm_diagnostics(m, &ke, &ee, P0, L0, NULL);
    E0 = ke + ee;
    double Emax = E0, dt = 5e-4;
    int steps = dim == 3 ? 40 : 150, ok = 1;
    for (int s = 0; s < steps && ok; s++) {
      ok = tide_mpm_step(m, dt) == TIDE_OK;
      tide_mpm_diagnostics(m, &ke, &ee, NULL, NULL, NULL);
      if (ke + ee > Emax) Emax = ke + ee;
    }
    CHECK(ok, "step: %s", tide_errmsg());
    tide_mpm_diagnostics(m, &ke, &ee, P, L, NULL);
    E = ke + ee;
    double pscale = 0, lscale = 0;
    for (int a = 0; a < 3; a++) {
      pscale += P0[a] * P0[a];
      lscale += L0[a] * L0[a];
    }
    pscale = sqrt(pscale), lscale = sqrt(lscale);
    double ep = 0, el = 0;
    for (int a = 0; a < d; a++)
      ep = fmax(ep, fabs(P[a] - P0[a]));
    for (int a = 0; a < 3; a++)
      el = fmax(el, fabs(L[a] - L0[a]));
    CHECK(ep <= 1e-12 * pscale, "%dD order %d: linear momentum drift %.3g of %.3g", dim, order, ep,
          pscale);
    CHECK(el <= 1e-11 * lscale, "%dD order %d: angular momentum drift %.3g of %.3g", dim, order, el,
          lscale);
    /* symplectic Euler: the energy oscillates at O(dt) about a slowly
     * decaying mean (APIC's dissipation); it never rises above E0 by more
     * than 1e-4 relative (measured: 2e-5 at dt = 5e-4) */
    CHECK(Emax <= E0 * (1 + 1e-4), "%dD order %d: energy grew to %.12g from %.12g", dim, order,
          Emax, E0);
    CHECK(E <= E0 * (1 + 1e-4) && E > 0.9 * E0, "%dD order %d: energy %.9g of %.9g", dim, order, E,
          E0);
    if (t == 0)
      printf("%dD order %d: %lld particles, energy %.6f of %.6f after %d steps, drifts P %.2g L "
             "%.2g\n",
             dim, order, (long long)m->ps->n, E, E0, steps, ep, el);
    out[t][0] = E;
    n = m->ps->n;
    xs[t] = malloc(sizeof(double) * (size_t)(n * d));
    memcpy(xs[t], TIDE_F64P(m->ps->x), sizeof(double) * (size_t)(n * d));
    tide_mpm_free(m);
  }
  CHECK(memcmp(xs[0], xs[1], sizeof(double) * (size_t)(n * dim)) == 0 && out[0][0] == out[1][0],
        "%dD order %d: 1 and 2 threads differ", dim, order);
  free(xs[0]);
  free(xs[1]);
  tide_threads_set(2);
}

/* a fluid particle keeps only J: F = J^(1/d) I after the step, with
 * det F = det((I + dt C) F) */
static void fluid_J(void) {
  tide_grid g = {2, {16, 16, 1}, 1.0 / 16, {0, 0, 0}};
  tide_mpm *m;
  CHECK(tide_mpm_new(&g, 2, &m) == TIDE_OK, "new");
  tide_mpm_material mt;
  memset(&mt, 0, sizeof mt);
  mt.elastic = tide_material_default(TIDE_MODEL_FIXED_COROTATED, 0, 1e4);
  mt.plastic = TIDE_MPM_FLUID;
  mt.rho = 1000;
  int idx;
  CHECK(tide_mpm_add_material(m, &mt, &idx) == TIDE_OK, "fluid material: %s", tide_errmsg());
  mt.elastic.mu = 1;
  CHECK(tide_mpm_add_material(m, &mt, &idx) == TIDE_EINVAL,
        "a fluid with shear modulus is refused");
  tide_shape *box;
  double lo[3] = {0.3, 0.3, 0}, hi[3] = {0.7, 0.7, 0}, A[4] = {0.4, 0.9, -0.3, 0.2};
  tide_shape_box(2, lo, hi, &box);
  int64_t added;
  CHECK(tide_mpm_seed(m, box, 4, 1, 3, 0, NULL, A, &added) == TIDE_OK && added > 0, "seed");
  tide_shape_release(box);
  double dt = 1e-3, J0 = (1 + dt * 0.4) * (1 + dt * 0.2) - dt * dt * 0.9 * -0.3;
  CHECK(tide_mpm_p2g(m, 0) == TIDE_OK && tide_mpm_g2p(m, dt) == TIDE_OK, "step");
  const double *F = TIDE_F64P(m->F);
  double e = 0;
  for (int64_t p = 0; p < m->ps->n; p++) {
    double J = tide_det(2, F + 4 * p);
    e = fmax(e, fabs(J - J0) + fabs(F[4 * p + 1]) + fabs(F[4 * p + 2]) +
                    fabs(F[4 * p] - F[4 * p + 3]));
  }
  CHECK(e < 1e-13, "fluid F = J^(1/2) I with J = det(I + dt A): error %.3g", e);
  tide_mpm_free(m);
}

/* bad input: NaN state, particle outside the grid, bad order, bad material */
static void errors(void) {
  tide_grid g = {2, {16, 16, 1}, 1.0 / 16, {0, 0, 0}};
  tide_mpm *m;
  CHECK(tide_mpm_new(&g, 4, &m) == TIDE_EINVAL, "order 4 refused");
  tide_grid small = {2, {4, 16, 1}, 1.0 / 16, {0, 0, 0}};
  CHECK(tide_mpm_new(&small, 2, &m) == TIDE_EINVAL, "a 4-cell axis refused");
  double b[3] = {0, 0, 0};
  m = make(2, 2, 16, 1e3, 1e3, b, NULL, 0.3, 0.7);
  CHECK(m != NULL, "set-up");
  if (!m) return;
  double *x = TIDE_F64P(m->ps->x);
  double keep = x[0];
  x[0] = NAN;
  CHECK(tide_mpm_step(m, 1e-3) == TIDE_ENONFINITE, "NaN position is an error");
  x[0] = -5;
  CHECK(tide_mpm_step(m, 1e-3) == TIDE_EINVAL, "a particle outside the grid is an error");
  x[0] = keep;
  /* every entry is checked (the vectorized test and its scalar tail) */
  int64_t n = m->ps->n;
  for (int64_t k = 0; k < 5 && k < n; k++) {
    double *c = TIDE_F64P(m->ps->c), *v = TIDE_F64P(m->ps->v), *F = TIDE_F64P(m->F);
    double *at[3] = {c + n * 4 - 1 - k, v + n * 2 - 1 - 3 * k, F + n * 4 - 1 - 2 * k};
    for (int q = 0; q < 3; q++) {
      double was = *at[q];
      *at[q] = q == 1 ? NAN : -INFINITY;
      CHECK(tide_mpm_step(m, 1e-3) == TIDE_ENONFINITE, "non-finite entry %lld of %s is an error",
            (long long)(at[q] - (q == 0 ? c : q == 1 ? v : F)), q == 0 ? "C" : q == 1 ? "v" : "F");
      *at[q] = was;
    }
  }
  TIDE_F64P(m->F)[3] = INFINITY;
  CHECK(tide_mpm_step(m, 1e-3) == TIDE_ENONFINITE, "non-finite F is an error");
  TIDE_F64P(m->F)[3] = 1;
  CHECK(tide_mpm_step(m, 1e-3) == TIDE_OK, "recovers: %s", tide_errmsg());
  tide_mpm_material mt;
  memset(&mt, 0, sizeof mt);
  mt.elastic = tide_material_default(TIDE_MODEL_LINEAR, 1, 1);
  mt.rho = 1;
  int idx;
  CHECK(tide_mpm_add_material(m, &mt, &idx) == TIDE_EINVAL, "the linear model is refused");
  tide_mpm_free(m);
}

/* the sparse block grid gives the dense grid's particles bit for bit: a
 * block falling onto the floor (separating walls with friction, gravity, a
 * collider), 2D and 3D, quadratic and cubic */
static void sparse_vs_dense(int dim, int order) {
  tide_mpm *m[2];
  int n = dim == 2 ? 48 : 24;
  double v0[3] = {1.0, -0.5, 0.2};
  for (int k = 0; k < 2; k++) {
    m[k] = make(dim, order, n, 2e4, 2e4, v0, NULL, 0.3, 0.55);
    if (!m[k]) {
      CHECK(0, "set-up");
      return;
    }
    for (int s = 0; s < 2 * dim; s++)
      m[k]->wall_bc[s] = TIDE_MPM_SEPARATE;
    m[k]->wall_friction = 0.3;
    m[k]->gravity[1] = -9.81;
    CHECK(tide_mpm_set_sparse(m[k], k) == TIDE_OK, "sparse mode");
  }
  int64_t most = 0;
  for (int step = 0; step < 60; step++)
    for (int k = 0; k < 2; k++) {
      int st = tide_mpm_step(m[k], 2e-3);
      if (st) CHECK(0, "step: %s", tide_errmsg());
      if (k == 1 && m[1]->nact > most) most = m[1]->nact;
    }
  int64_t np = m[0]->ps->n, d = dim;
  int same = m[1]->ps->n == np &&
             !memcmp(TIDE_F64P(m[0]->ps->x), TIDE_F64P(m[1]->ps->x), sizeof(double) * (size_t)(np * d)) &&
             !memcmp(TIDE_F64P(m[0]->ps->v), TIDE_F64P(m[1]->ps->v), sizeof(double) * (size_t)(np * d)) &&
             !memcmp(TIDE_F64P(m[0]->ps->c), TIDE_F64P(m[1]->ps->c), sizeof(double) * (size_t)(np * d * d)) &&
             !memcmp(TIDE_F64P(m[0]->F), TIDE_F64P(m[1]->F), sizeof(double) * (size_t)(np * d * d));
  printf("%dD order %d: sparse blocks %lld of %lld (most in a step), particles %s\n", dim, order,
         (long long)most, (long long)m[1]->nbtot, same ? "bit-identical" : "DIFFER");
  CHECK(same, "%dD order %d: sparse and dense grids give bit-identical particles", dim, order);
  CHECK(most < m[1]->nbtot / 2, "the sparse grid allocates only blocks near particles");
  tide_mpm_free(m[0]);
  tide_mpm_free(m[1]);
}

/* G2P records the particles' cells for the next P2G's binning; a position
 * changed between the steps (a particle moved 3 cells, another swapped with
 * a far one) makes P2G find it away from its listed cell and bin afresh:
 * bit-identical to a state binned from the positions every step */
static void recorded_cells(int dim) {
  tide_mpm *m[2];
  double v0[3] = {0.8, -0.5, 0.3};
  for (int k = 0; k < 2; k++) {
    m[k] = make(dim, 2, dim == 2 ? 48 : 24, 2e4, 2e4, v0, NULL, 0.3, 0.55);
    if (!m[k]) {
      CHECK(0, "set-up");
      return;
    }
    m[k]->gravity[1] = -9.81;
  }
  int64_t np = m[0]->ps->n, d = dim;
  int recorded = 1, listed = 1;
  for (int step = 0; step < 30; step++) {
    for (int k = 0; k < 2; k++) {
      double *x = TIDE_F64P(m[k]->ps->x), dx = m[k]->g.dx;
      if (step % 10 == 5) x[0] += 3 * dx;
      if (step % 10 == 7)
        for (int a = 0; a < dim; a++) {
          double t = x[d + a];
          x[d + a] = x[(np - 1) * d + a], x[(np - 1) * d + a] = t;
        }
      if (k == 1) m[1]->cells_current = 0; /* the reference: binned from x */
      if (tide_mpm_p2g(m[k], 2e-3)) CHECK(0, "p2g: %s", tide_errmsg());
      /* the binning P2G used lists particle 0 in its cell */
      const tide_particles *ps = m[k]->ps;
      int64_t c = tide_particles_cell(&m[k]->g, dim, 1 / m[k]->g.dx, x), in = 0;
      for (int64_t q = ps->cell_start[c]; q < ps->cell_start[c + 1]; q++) in |= ps->order[q] == 0;
      listed &= (int)in;
      if (tide_mpm_grid_update(m[k], 2e-3) || tide_mpm_g2p(m[k], 2e-3)) CHECK(0, "step: %s", tide_errmsg());
    }
    recorded &= m[0]->cells_current;
  }
  int same = !memcmp(TIDE_F64P(m[0]->ps->x), TIDE_F64P(m[1]->ps->x), sizeof(double) * (size_t)(np * d)) &&
             !memcmp(TIDE_F64P(m[0]->ps->v), TIDE_F64P(m[1]->ps->v), sizeof(double) * (size_t)(np * d)) &&
             !memcmp(TIDE_F64P(m[0]->F), TIDE_F64P(m[1]->F), sizeof(double) * (size_t)(np * d * d));
  printf("%dD: cells recorded by G2P %s, particles %s the binning from positions\n", dim,
         recorded ? "every step" : "NOT every step", same ? "bit-identical to" : "DIFFER from");
  CHECK(recorded, "%dD: G2P records the cells of the moved particles", dim);
  CHECK(listed, "%dD: the binning lists particle 0 in its cell", dim);
  CHECK(same, "%dD: binning from recorded cells (moved particles found) = binning from positions", dim);
  tide_mpm_free(m[0]);
  tide_mpm_free(m[1]);
}

int main(void) {
  tide_threads_set(2);
  for (int order = 2; order <= 3; order++)
    for (int dim = 2; dim <= 3; dim++)
      sparse_vs_dense(dim, order);
  for (int order = 2; order <= 3; order++) {
    affine(2, order);
    affine(3, order);
    free_flight(2, order);
  }
  free_flight(3, 2);
  fluid_J();
  recorded_cells(2);
  recorded_cells(3);
  errors();
  return check_report();
}
