/* test_physics_tension.c -- curvature of circles and spheres, the
 * ghost-fluid jump against the Young-Laplace pressure (2D and 3D) through
 * the liquid module's projection, and the balanced-force Liu band keeping a
 * drop at rest. */
#include "check.h"
#include "liquid/project.h"
#include "liquid/surface_tension.h"

#include <math.h>
#include <string.h>

static void ball(const tide_grid *g, const double c[3], double R, tide_array *phi) {
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double x[3];
        tide_grid_center(g, i, j, k, x);
        double r2 = 0;
        for (int d = 0; d < g->dim; d++) r2 += (x[d] - c[d]) * (x[d] - c[d]);
        TIDE_F64P(phi)[tide_grid_idx(g, i, j, k)] = sqrt(r2) - R;
      }
}

int main(void) {
  const double sigma = 0.07, rho = 1000;
  for (int dim = 2; dim <= 3; dim++) {
    int n = dim == 2 ? 48 : 24;
    double R = dim == 2 ? 0.3 : 0.3, dx = 1.0 / n;
    tide_grid g;
    int nn[3] = {n, n, dim == 3 ? n : 1};
    double o[3] = {0, 0, 0}, c[3] = {0.5, 0.5, dim == 3 ? 0.5 : 0};
    tide_grid_init(&g, dim, nn, dx, o);
    tide_array *phi = tide_grid_cell_array(&g, TIDE_F64), *kap = tide_grid_cell_array(&g, TIDE_F64);
    tide_array *lab = tide_grid_cell_array(&g, TIDE_U8), *p = tide_grid_cell_array(&g, TIDE_F64);
    ball(&g, c, R, phi);
    int per[3] = {0, 0, 0};

    /* 1. curvature (dim - 1) / r within 1% near the surface */
    CHECK(tide_liquid_curvature(&g, TIDE_F64P(phi), per, TIDE_F64P(kap)) == TIDE_OK, "%s", tide_errmsg());
    double kerr = 0;
    for (int64_t q = 0; q < tide_grid_ncells(&g); q++) {
      double r = TIDE_F64P(phi)[q] + R;
      if (fabs(r - R) < 2 * dx) kerr = fmax(kerr, fabs(TIDE_F64P(kap)[q] * r / (dim - 1) - 1));
    }
    CHECK(kerr < 0.01, "%dD curvature relative error %g", dim, kerr);

    /* 1b. height-function curvature at the crossings (dim - 1) / R */
    {
      double *kf[3] = {NULL, NULL, NULL};
      int64_t nfa[3] = {0, 0, 0};
      for (int a = 0; a < dim; a++) {
        int fd[3];
        tide_grid_face_dims(&g, a, fd);
        nfa[a] = (int64_t)fd[0] * fd[1] * fd[2];
        kf[a] = tide_alloc((size_t)nfa[a] * sizeof(double));
      }
      CHECK(tide_liquid_curvature_faces(&g, TIDE_F64P(phi), per, kf) == TIDE_OK, "%s", tide_errmsg());
      double herr = 0;
      int nx = 0;
      for (int a = 0; a < dim; a++)
        for (int64_t f = 0; f < nfa[a]; f++)
          if (kf[a][f] != 0) {
            herr = fmax(herr, fabs(kf[a][f] * R / (dim - 1) - 1));
            nx++;
          }
      CHECK(nx > 50 && herr < (dim == 2 ? 0.003 : 0.015), "%dD height-function curvature error %g (%d faces)", dim,
            herr, nx);
      printf("%dD: height-function curvature error %.2e on %d crossings\n", dim, herr, nx);
      for (int a = 0; a < dim; a++) tide_free(kf[a], (size_t)nfa[a] * sizeof(double));
    }

    /* 2. jump + ghost-fluid projection: p = (dim - 1) sigma / R inside, no flow */
    CHECK(tide_liquid_label_phi(&g, phi, NULL, lab) == TIDE_OK, "%s", tide_errmsg());
    tide_mac *u;
    tide_mac_new(&g, TIDE_F64, &u);
    tide_tension_opts t = tide_tension_opts_default();
    t.sigma = sigma, t.rho = rho, t.dt = 1e-3, t.labels = lab;
    CHECK(tide_liquid_surface_tension_jump(u, phi, &t, NULL) == TIDE_OK, "%s", tide_errmsg());
    tide_project_opts po;
    memset(&po, 0, sizeof po);
    po.dt = t.dt, po.rho = rho, po.tol = 1e-12, po.theta_min = 0.01, po.phi = phi;
    tide_project_stats ps;
    CHECK(tide_liquid_project(u, lab, &po, NULL, NULL, p, &ps) == TIDE_OK, "%s", tide_errmsg());
    double pex = (dim - 1) * sigma / R, perr = 0, umax = 0;
    for (int64_t q = 0; q < tide_grid_ncells(&g); q++)
      if (TIDE_U8P(lab)[q] == TIDE_CELL_LIQUID) perr = fmax(perr, fabs(TIDE_F64P(p)[q] / pex - 1));
    tide_mac_max_speed(u, &umax);
    CHECK(perr < 0.01, "%dD Laplace pressure off by %g", dim, perr);
    /* the impulse itself is sigma/(rho R) dt / dx-sized; what is left is a tiny fraction */
    double scale = t.dt * pex / (rho * dx);
    CHECK(umax < 0.01 * scale, "%dD parasitic velocity %g (impulse scale %g)", dim, umax, scale);
    printf("%dD: curvature error %.2e, Laplace pressure error %.2e, parasitic %.2e of the impulse\n", dim, kerr, perr,
           umax / scale);

    /* 3. Liu's band in balanced-force form keeps a drop at rest: the force of a
     *    uniform curvature is a discrete gradient, removed by the projection */
    for (int side = 0; side < 2; side++) {
      tide_mac_fill(u, 0);
      tide_tension_liu_opts l = tide_tension_liu_opts_default();
      l.sigma = sigma, l.rho = rho, l.dt = 1e-3, l.labels = lab, l.one_sided = side, l.tol = 1e-12;
      /* uniform kappa: the exact curvature of the sphere */
      tide_array_fill(kap, (dim - 1) / R);
      l.kappa = kap;
      tide_viscosity_stats st;
      CHECK(tide_liquid_surface_tension_liu(u, phi, &l, &st) == TIDE_OK, "%s", tide_errmsg());
      double before;
      tide_mac_max_speed(u, &before);
      tide_mac *valid;
      tide_mac_new(&g, TIDE_U8, &valid);
      CHECK(tide_liquid_project(u, lab, &po, NULL, valid, p, &ps) == TIDE_OK, "%s", tide_errmsg());
      /* largest speed on the projected (liquid) faces */
      umax = 0;
      for (int a = 0; a < dim; a++)
        for (int64_t f = 0; f < tide_array_size(u->u[a]); f++)
          if (TIDE_U8P(valid->u[a])[f]) umax = fmax(umax, fabs(TIDE_F64P(u->u[a])[f]));
      tide_mac_free(valid);
      CHECK(before > 0 && umax < 0.05 * before, "%dD liu side %d: %g -> %g", dim, side, before, umax);
      /* the pressure holds the part of the jump the band puts in the liquid:
       * all of it (liquid side) or half (both sides, the air half is lost) */
      double pc = TIDE_F64P(p)[tide_grid_idx(&g, n / 2, n / 2, dim == 3 ? n / 2 : 0)];
      double want = (side ? 1.0 : 0.5) * pex;
      CHECK(fabs(pc / want - 1) < 0.03, "%dD liu side %d: centre pressure %g vs %g", dim, side, pc, want);
      printf("%dD Liu (side %d): force impulse %.3e, after projection %.3e, centre pressure %.4f (%.4f)\n", dim, side,
             before, umax, pc, want);
    }
    tide_mac_free(u);
    tide_array_release(phi);
    tide_array_release(kap);
    tide_array_release(lab);
    tide_array_release(p);
  }
  /* capillary time step */
  CHECK_NEAR(tide_liquid_capillary_dt(1e-3, 0.07, 1000), sqrt(1000 * 1e-9 / (2 * M_PI * 0.07)), 1e-15);
  return check_report();
}
