/* test_physics_periodic.c -- periodic boundaries (periodic.h): padding,
 * translation invariance of P2G/G2P on the torus, advection across the
 * seam, the periodic projection. */
#include "check.h"
#include "liquid/periodic.h"

#include <math.h>
#include <string.h>

static double macdiff(const tide_mac *a, const tide_mac *b) {
  double e = 0;
  for (int d = 0; d < a->grid.dim; d++)
    for (int64_t q = 0; q < tide_array_size(a->u[d]); q++)
      e = fmax(e, fabs(TIDE_F64P(a->u[d])[q] - TIDE_F64P(b->u[d])[q]));
  return e;
}

/* b = a shifted by m cells along x on the torus: b(i) = a(i - m) */
static void shift_x(const tide_mac *a, int m, tide_mac *b) {
  const tide_grid *g = &a->grid;
  for (int d = 0; d < g->dim; d++) {
    int fd[3];
    tide_grid_face_dims(g, d, fd);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++) {
        int si = tide_periodic_index(i - m, g->n[0], 1);
        TIDE_F64P(b->u[d])[tide_grid_fidx(g, d, i, j, 0)] = TIDE_F64P(a->u[d])[tide_grid_fidx(g, d, si, j, 0)];
      }
  }
}

int main(void) {
  int n = 16;
  double L = 1.0, dx = L / n;
  tide_grid g;
  int nn[3] = {n, n, 1};
  double o[3] = {0, 0, 0};
  tide_grid_init(&g, 2, nn, dx, o);
  int per[3] = {1, 1, 0};
  tide_periodic *P;
  CHECK(tide_periodic_new(&g, per, &P) == TIDE_OK, "%s", tide_errmsg());

  /* 1. fill / extract round trip and the padded grid */
  {
    tide_mac *m, *r;
    tide_mac_new(&g, TIDE_F64, &m);
    tide_mac_new(&g, TIDE_F64, &r);
    for (int a = 0; a < 2; a++)
      for (int64_t q = 0; q < tide_array_size(m->u[a]); q++) TIDE_F64P(m->u[a])[q] = tide_rand01(7, (uint64_t)(q + 1000 * a));
    tide_periodic_sync(P, m);
    tide_grid pg;
    CHECK(tide_periodic_padded_grid(&g, per, 3, &pg) == TIDE_OK, "padded");
    CHECK(pg.n[0] == n + 6 && pg.n[1] == n + 6 && fabs(pg.origin[0] + 3 * dx) < 1e-15, "padded grid");
    tide_mac *pm;
    tide_mac_new(&pg, TIDE_F64, &pm);
    CHECK(tide_periodic_fill_mac(m, per, 3, pm) == TIDE_OK, "%s", tide_errmsg());
    /* ghost u face at padded i = 0 is face n - 3 */
    CHECK(TIDE_F64P(pm->u[0])[tide_grid_fidx(&pg, 0, 0, 3, 0)] == TIDE_F64P(m->u[0])[tide_grid_fidx(&g, 0, n - 3, 0, 0)],
          "wrapped ghost");
    CHECK(tide_periodic_extract_mac(pm, per, 3, r) == TIDE_OK, "%s", tide_errmsg());
    CHECK(macdiff(m, r) == 0, "round trip %g", macdiff(m, r));
    tide_mac_free(pm);
    tide_mac_free(m);
    tide_mac_free(r);
  }

  /* 2. P2G and G2P on the torus commute with a shift by whole cells */
  {
    tide_particles *ps, *qs;
    tide_particles_new(2, 0, 1, &ps);
    tide_particles_new(2, 0, 1, &qs);
    /* 2 x 2 jittered particles per cell */
    int64_t np = (int64_t)4 * n * n;
    tide_particles_resize(ps, np);
    for (int64_t p = 0; p < np; p++) {
      int64_t c = p / 4, sub = p % 4;
      double *x = TIDE_F64P(ps->x) + 2 * p;
      x[0] = ((double)(c / n) + 0.5 * (double)(sub / 2) + 0.5 * tide_rand01(3, (uint64_t)(2 * p))) * dx;
      x[1] = ((double)(c % n) + 0.5 * (double)(sub % 2) + 0.5 * tide_rand01(3, (uint64_t)(2 * p + 1))) * dx;
    }
    tide_particles_resize(qs, np);
    int m = 5;
    for (int64_t p = 0; p < np; p++) {
      double *x = TIDE_F64P(ps->x) + 2 * p, *v = TIDE_F64P(ps->v) + 2 * p, *c = TIDE_F64P(ps->c) + 4 * p;
      v[0] = sin(2 * M_PI * x[0]) + 0.3 * cos(2 * M_PI * x[1]);
      v[1] = cos(4 * M_PI * x[0]) * sin(2 * M_PI * x[1]);
      for (int t = 0; t < 4; t++) c[t] = tide_rand01(11, (uint64_t)(4 * p + t)) - 0.5;
      double *y = TIDE_F64P(qs->x) + 2 * p;
      y[0] = fmod(x[0] + m * dx, L);
      y[1] = x[1];
      memcpy(TIDE_F64P(qs->v) + 2 * p, v, 2 * sizeof(double));
      memcpy(TIDE_F64P(qs->c) + 4 * p, c, 4 * sizeof(double));
    }
    tide_mac *u, *w, *s;
    tide_mac_new(&g, TIDE_F64, &u);
    tide_mac_new(&g, TIDE_F64, &w);
    tide_mac_new(&g, TIDE_F64, &s);
    CHECK(tide_periodic_p2g(P, ps, u, 1, NULL) == TIDE_OK, "%s", tide_errmsg());
    CHECK(tide_periodic_p2g(P, qs, w, 1, NULL) == TIDE_OK, "%s", tide_errmsg());
    shift_x(u, m, s);
    double e = macdiff(s, w);
    CHECK(e < 1e-12, "P2G shift invariance %g", e);
    /* every face got particles (the seam too) */
    tide_mac *wt;
    tide_mac_new(&g, TIDE_U8, &wt);
    CHECK(tide_periodic_p2g(P, ps, u, 1, wt) == TIDE_OK, "%s", tide_errmsg());
    int64_t zero = 0;
    for (int a = 0; a < 2; a++)
      for (int64_t q = 0; q < tide_array_size(wt->u[a]); q++) zero += TIDE_U8P(wt->u[a])[q] == 0;
    CHECK(zero == 0, "%lld faces without weight", (long long)zero);
    tide_mac_free(wt);
    /* G2P of the shifted field at the shifted particles gives the same v, C */
    CHECK(tide_periodic_g2p(P, ps, u, NULL, TIDE_TRANSFER_APIC, 0) == TIDE_OK, "%s", tide_errmsg());
    CHECK(tide_periodic_g2p(P, qs, s, NULL, TIDE_TRANSFER_APIC, 0) == TIDE_OK, "%s", tide_errmsg());
    double ev = 0;
    for (int64_t p = 0; p < np; p++) {
      for (int t = 0; t < 2; t++) ev = fmax(ev, fabs(TIDE_F64P(ps->v)[2 * p + t] - TIDE_F64P(qs->v)[2 * p + t]));
      for (int t = 0; t < 4; t++) ev = fmax(ev, fabs(TIDE_F64P(ps->c)[4 * p + t] - TIDE_F64P(qs->c)[4 * p + t]));
    }
    CHECK(ev < 1e-10, "G2P shift invariance %g", ev);

    /* 3. particles advected by a uniform velocity wrap around */
    tide_mac_fill(u, 0);
    double acc[3] = {1, 0.5, 0};
    tide_mac_add_accel(u, acc, 1);
    double x0 = TIDE_F64P(ps->x)[0], y0 = TIDE_F64P(ps->x)[1];
    for (int s2 = 0; s2 < 10; s2++) CHECK(tide_periodic_advect_particles(P, ps, u, 0.13, 2) == TIDE_OK, "%s", tide_errmsg());
    double xe = fmod(x0 + 1.3, L), ye = fmod(y0 + 0.65, L);
    CHECK(fabs(TIDE_F64P(ps->x)[0] - xe) < 1e-12 && fabs(TIDE_F64P(ps->x)[1] - ye) < 1e-12, "wrapped advection (%g %g) vs (%g %g)",
          TIDE_F64P(ps->x)[0], TIDE_F64P(ps->x)[1], xe, ye);
    int inside = 1;
    for (int64_t p = 0; p < 2 * np; p++) inside &= TIDE_F64P(ps->x)[p] >= 0 && TIDE_F64P(ps->x)[p] < L;
    CHECK(inside, "positions wrapped into the box");

    /* 4. MAC advection by a whole number of cells is an exact shift */
    tide_mac *q, *out;
    tide_mac_new(&g, TIDE_F64, &q);
    tide_mac_new(&g, TIDE_F64, &out);
    for (int a = 0; a < 2; a++)
      for (int64_t f = 0; f < tide_array_size(q->u[a]); f++) TIDE_F64P(q->u[a])[f] = tide_rand01(5, (uint64_t)(f + 977 * a));
    tide_periodic_sync(P, q);
    tide_mac_fill(u, 0);
    double ax[3] = {1, 0, 0};
    tide_mac_add_accel(u, ax, 1);
    CHECK(tide_periodic_advect_mac(P, u, q, 3 * dx, NULL, out) == TIDE_OK, "%s", tide_errmsg());
    shift_x(q, 3, s);
    e = macdiff(out, s);
    CHECK(e < 1e-12, "MAC advection shift %g", e);
    /* cell field with BFECC: a shift by 2 cells is exact too */
    double *f = tide_alloc((size_t)n * n * sizeof(double)), *fo = tide_alloc((size_t)n * n * sizeof(double));
    for (int c = 0; c < n * n; c++) f[c] = tide_rand01(9, (uint64_t)c);
    tide_advect_opts ao = tide_advect_opts_default();
    ao.scheme = TIDE_ADVECT_BFECC;
    CHECK(tide_periodic_advect_cells(P, u, f, 2 * dx, &ao, fo) == TIDE_OK, "%s", tide_errmsg());
    e = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) e = fmax(e, fabs(fo[i * n + j] - f[tide_periodic_index(i - 2, n, 1) * n + j]));
    CHECK(e < 1e-12, "BFECC shift %g", e);
    tide_free(f, (size_t)n * n * sizeof(double));
    tide_free(fo, (size_t)n * n * sizeof(double));
    tide_mac_free(q);
    tide_mac_free(out);
    tide_mac_free(u);
    tide_mac_free(w);
    tide_mac_free(s);
    tide_particles_free(ps);
    tide_particles_free(qs);
  }

  /* 5. projection on the torus: divergence-free result, idempotent, shift
   *    invariant, exact for a discrete Taylor-Green field */
  {
    tide_mac *u, *v, *s;
    tide_mac_new(&g, TIDE_F64, &u);
    tide_mac_new(&g, TIDE_F64, &v);
    tide_mac_new(&g, TIDE_F64, &s);
    for (int a = 0; a < 2; a++)
      for (int64_t f = 0; f < tide_array_size(u->u[a]); f++) TIDE_F64P(u->u[a])[f] = tide_rand01(13, (uint64_t)(f + 1000 * a)) - 0.5;
    tide_periodic_sync(P, u);
    shift_x(u, 7, s);
    tide_project_stats st;
    CHECK(tide_periodic_project(P, u, NULL, 0.1, 1000, 1e-12, 0, NULL, &st) == TIDE_OK, "%s", tide_errmsg());
    CHECK(st.div_after < 1e-9 * st.div_before, "div %g -> %g", st.div_before, st.div_after);
    CHECK(st.unknowns == n * n, "unknowns");
    tide_mac_copy(v, u);
    CHECK(tide_periodic_project(P, v, NULL, 0.1, 1000, 1e-12, 0, NULL, &st) == TIDE_OK, "%s", tide_errmsg());
    CHECK(macdiff(u, v) < 1e-10, "idempotent %g", macdiff(u, v));
    CHECK(tide_periodic_project(P, s, NULL, 0.1, 1000, 1e-12, 0, NULL, &st) == TIDE_OK, "%s", tide_errmsg());
    tide_mac *su;
    tide_mac_new(&g, TIDE_F64, &su);
    shift_x(u, 7, su);
    CHECK(macdiff(su, s) < 1e-10, "projection shift invariance %g", macdiff(su, s));
    tide_mac_free(su);
    /* the uniform part (mean flow) survives: not a gradient on the torus */
    tide_mac_fill(u, 0);
    double acc[3] = {0.7, -0.2, 0};
    tide_mac_add_accel(u, acc, 1);
    tide_mac_copy(v, u);
    CHECK(tide_periodic_project(P, u, NULL, 0.1, 1000, 1e-12, 0, NULL, &st) == TIDE_OK, "%s", tide_errmsg());
    CHECK(macdiff(u, v) < 1e-14, "uniform flow kept");
    /* with air cells (p = 0 there) the problem is definite */
    tide_array *lab = tide_grid_cell_array(&g, TIDE_U8);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) TIDE_U8P(lab)[i * n + j] = j < n / 2 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
    for (int a = 0; a < 2; a++)
      for (int64_t f = 0; f < tide_array_size(u->u[a]); f++) TIDE_F64P(u->u[a])[f] = tide_rand01(17, (uint64_t)(f + 1000 * a)) - 0.5;
    tide_array *p = tide_grid_cell_array(&g, TIDE_F64);
    CHECK(tide_periodic_project(P, u, lab, 0.1, 1000, 1e-12, 0, p, &st) == TIDE_OK, "%s", tide_errmsg());
    CHECK(st.unknowns == n * n / 2 && st.div_after < 1e-9 * st.div_before, "free surface: div %g", st.div_after);
    CHECK(TIDE_F64P(p)[n / 2 + 1] == 0, "air pressure 0");
    double ke;
    CHECK(tide_mac_kinetic_energy(u, per, NULL, &ke) == TIDE_OK && ke > 0, "kinetic energy");
    tide_array_release(lab);
    tide_array_release(p);
    tide_mac_free(u);
    tide_mac_free(v);
    tide_mac_free(s);
  }

  /* 6. errors */
  {
    int none[3] = {0, 0, 0}, bad[3] = {0, 0, 1};
    tide_periodic *Q;
    CHECK(tide_periodic_new(&g, none, &Q) == TIDE_EINVAL, "no axis");
    CHECK(tide_periodic_new(&g, bad, &Q) == TIDE_EINVAL, "z in 2D");
  }
  tide_periodic_free(P);
  return check_report();
}
