/* test_physics_tension.c -- curvature of circles and spheres (cells,
 * crossings, level sets from the height functions), the ghost-fluid jump
 * against the Young-Laplace pressure (2D and 3D) through the liquid module's
 * projection, the balanced-force Liu band keeping a drop at rest, and both
 * methods on periodic axes (shift invariance across the wrap faces, the
 * Laplace pressure through the periodic projection). */
#include "check.h"
#include "liquid/periodic.h"
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
        for (int d = 0; d < g->dim; d++)
          r2 += (x[d] - c[d]) * (x[d] - c[d]);
        TIDE_F64P(phi)[tide_grid_idx(g, i, j, k)] = sqrt(r2) - R;
      }
}

/* phi of a disk of radius R about c on a periodic 2D grid (distance to the
 * nearest image) */
static void disk_periodic(const tide_grid *g, const double c[2], double R, tide_array *phi) {
  double L[2] = {g->n[0] * g->dx, g->n[1] * g->dx};
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++) {
      double x[3], r2 = 0;
      tide_grid_center(g, i, j, 0, x);
      for (int d = 0; d < 2; d++) {
        double e = x[d] - c[d];
        e -= L[d] * floor(e / L[d] + 0.5);
        r2 += e * e;
      }
      TIDE_F64P(phi)[tide_grid_idx(g, i, j, 0)] = sqrt(r2) - R;
    }
}

/* Periodic axes: a drop across the corner of a periodic box gets the same
 * impulses as the drop in the middle, shifted by half the box (the wrap
 * faces are ordinary faces), for the ghost-fluid jump and Liu's band; and
 * the jump for a projection with p = 0 at the air centres (projection
 * "labels") with the periodic projection gives the Laplace pressure. */
static void periodic_checks(void) {
  const double sigma = 0.07, rho = 1000, R = 0.3;
  int n = 40, h = n / 2, nn[3] = {n, n, 1}, per[3] = {1, 1, 0};
  double dx = 1.0 / n, o[3] = {0, 0, 0};
  tide_grid g;
  tide_grid_init(&g, 2, nn, dx, o);
  tide_array *phi[2], *lab[2];
  tide_mac *u[2];
  /* centres off the cell lattice so that no cell centre lies on the circle */
  double cen[2][2] = {{0.5 + 0.37 * dx, 0.5 + 0.13 * dx}, {0.37 * dx, 0.13 * dx}};
  for (int m = 0; m < 2; m++) {
    phi[m] = tide_grid_cell_array(&g, TIDE_F64);
    lab[m] = tide_grid_cell_array(&g, TIDE_U8);
    disk_periodic(&g, cen[m], R, phi[m]);
    tide_liquid_label_phi(&g, phi[m], NULL, lab[m]);
    tide_mac_new(&g, TIDE_F64, &u[m]);
  }
  for (int method = 0; method < 2; method++) {
    double dmax = 0, umax = 0;
    for (int m = 0; m < 2; m++) {
      tide_mac_fill(u[m], 0);
      if (method == 0) {
        tide_tension_opts t = tide_tension_opts_default();
        t.sigma = sigma, t.rho = rho, t.dt = 1e-3, t.labels = lab[m];
        memcpy(t.periodic, per, sizeof per);
        CHECK(tide_liquid_surface_tension_jump(u[m], phi[m], &t, NULL) == TIDE_OK, "%s",
              tide_errmsg());
      } else {
        tide_tension_liu_opts l = tide_tension_liu_opts_default();
        l.sigma = sigma, l.rho = rho, l.dt = 1e-3, l.labels = lab[m], l.one_sided = 1,
        l.tol = 1e-13;
        memcpy(l.periodic, per, sizeof per);
        tide_viscosity_stats st;
        CHECK(tide_liquid_surface_tension_liu(u[m], phi[m], &l, &st) == TIDE_OK, "%s",
              tide_errmsg());
      }
    }
    for (int a = 0; a < 2; a++) {
      const double *u0 = TIDE_F64P(u[0]->u[a]), *u1 = TIDE_F64P(u[1]->u[a]);
      for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++) {
          int F[2] = {i, j};
          if (F[1 - a] == n) continue;
          int S[2] = {(i + h) % n, (j + h) % n};
          if (a == 0) S[1] = (j + h) % n;
          double v0 = u0[tide_grid_fidx(&g, a, F[0], F[1], 0)];
          double v1 = u1[tide_grid_fidx(&g, a, S[0], S[1], 0)];
          dmax = fmax(dmax, fabs(v0 - v1));
          umax = fmax(umax, fabs(v0));
        }
      /* face n duplicates face 0 */
      for (int j = 0; j < n; j++) {
        int F0[2] = {j, j}, Fn[2] = {j, j};
        F0[a] = 0, Fn[a] = n;
        CHECK(u1[tide_grid_fidx(&g, a, F0[0], F0[1], 0)] ==
                  u1[tide_grid_fidx(&g, a, Fn[0], Fn[1], 0)],
              "%s: wrap face %d of axis %d", method ? "liu" : "ghost", j, a);
      }
    }
    CHECK(umax > 0 && dmax < (method ? 1e-9 : 1e-12) * umax,
          "%s, periodic: across the corner vs centred %g (of %g)", method ? "liu" : "ghost", dmax,
          umax);
    printf("periodic %s: impulse of the drop across the corner vs centred, max difference %.2e of "
           "%.2e\n",
           method ? "liu" : "ghost", dmax, umax);
  }
  /* projection "labels": p = 0 at the air centres, theta = 1, with the periodic projection */
  {
    tide_periodic *P;
    CHECK(tide_periodic_new(&g, per, &P) == TIDE_OK, "%s", tide_errmsg());
    tide_mac_fill(u[1], 0);
    tide_tension_opts t = tide_tension_opts_default();
    t.sigma = sigma, t.rho = rho, t.dt = 1e-3, t.labels = lab[1], t.cell_surface = 1;
    memcpy(t.periodic, per, sizeof per);
    CHECK(tide_liquid_surface_tension_jump(u[1], phi[1], &t, NULL) == TIDE_OK, "%s", tide_errmsg());
    tide_array *p = tide_grid_cell_array(&g, TIDE_F64);
    tide_project_stats ps;
    CHECK(tide_periodic_project(P, u[1], lab[1], t.dt, rho, 1e-12, 0, p, &ps) == TIDE_OK, "%s",
          tide_errmsg());
    double pc = TIDE_F64P(p)[tide_grid_idx(&g, 0, 0, 0)], want = sigma / R, um;
    tide_mac_max_speed(u[1], &um);
    CHECK(fabs(pc / want - 1) < 0.01, "periodic projection: pressure %g vs sigma/R = %g", pc, want);
    printf("periodic projection with the jump (projection \"labels\"): centre pressure %.4f vs "
           "sigma/R %.4f\n",
           pc, want);
    tide_array_release(p);
    tide_periodic_free(P);
  }
  /* projection "ghost": the jump at the interface and the periodic projection with the same
   * phi (tide_periodic_project_ghost) on the drop across the corner give the pressure and
   * velocity of the ordinary ghost-fluid projection (tide_liquid_project with phi, walls) on
   * the centred drop, shifted; and the Laplace pressure */
  {
    tide_periodic *P;
    CHECK(tide_periodic_new(&g, per, &P) == TIDE_OK, "%s", tide_errmsg());
    tide_array *p[2];
    for (int m = 0; m < 2; m++) {
      p[m] = tide_grid_cell_array(&g, TIDE_F64);
      tide_mac_fill(u[m], 0);
      tide_tension_opts t = tide_tension_opts_default();
      t.sigma = sigma, t.rho = rho, t.dt = 1e-3, t.labels = lab[m];
      if (m == 1) memcpy(t.periodic, per, sizeof per);
      CHECK(tide_liquid_surface_tension_jump(u[m], phi[m], &t, NULL) == TIDE_OK, "%s", tide_errmsg());
    }
    tide_project_opts po = {.dt = 1e-3, .rho = rho, .tol = 1e-13, .theta_min = 0.01, .phi = phi[0]};
    tide_project_stats ps;
    CHECK(tide_liquid_project(u[0], lab[0], &po, NULL, NULL, p[0], &ps) == TIDE_OK, "%s", tide_errmsg());
    tide_mac *valid;
    tide_mac_new(&g, TIDE_U8, &valid);
    /* twice: the second call refills the diagonal on the kept pattern */
    for (int rep = 0; rep < 2; rep++) {
      tide_mac *uu;
      tide_mac_new(&g, TIDE_F64, &uu);
      tide_mac_copy(uu, u[1]);
      CHECK(tide_periodic_project_ghost(P, uu, lab[1], phi[1], 0, 1e-3, rho, 1e-13, 0, valid, p[1], &ps) ==
                TIDE_OK,
            "%s", tide_errmsg());
      if (rep == 1) tide_mac_copy(u[1], uu);
      tide_mac_free(uu);
    }
    double dp = 0, pm = 0, du = 0, um = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double a0 = TIDE_F64P(p[0])[tide_grid_idx(&g, i, j, 0)];
        double a1 = TIDE_F64P(p[1])[tide_grid_idx(&g, (i + h) % n, (j + h) % n, 0)];
        dp = fmax(dp, fabs(a0 - a1));
        pm = fmax(pm, fabs(a0));
      }
    int nvalid = 0;
    for (int a = 0; a < 2; a++)
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          int S[2] = {(i + h) % n, (j + h) % n};
          double v0 = TIDE_F64P(u[0]->u[a])[tide_grid_fidx(&g, a, i, j, 0)];
          double v1 = TIDE_F64P(u[1]->u[a])[tide_grid_fidx(&g, a, S[0], S[1], 0)];
          du = fmax(du, fabs(v0 - v1));
          um = fmax(um, fabs(v0));
          nvalid += TIDE_U8P(valid->u[a])[tide_grid_fidx(&g, a, S[0], S[1], 0)];
        }
    double pc = TIDE_F64P(p[1])[tide_grid_idx(&g, 0, 0, 0)], want = sigma / R;
    CHECK(dp < 1e-9 * pm, "ghost projection: periodic across the corner vs walls centred, pressure %g of %g", dp, pm);
    CHECK(du < 1e-9 * fmax(um, 1e-30) + 1e-15, "ghost projection: velocity difference %g of %g", du, um);
    CHECK(fabs(pc / want - 1) < 0.002, "ghost projection: centre pressure %g vs sigma/R = %g", pc, want);
    CHECK(nvalid > 0, "valid faces marked");
    printf("periodic ghost-fluid projection with the jump: centre pressure %.5f vs sigma/R %.5f (%+.3f%%); "
           "vs the wall-bounded projection of the centred drop: pressure %.1e of %.1e, velocity %.1e of %.1e\n",
           pc, want, 100 * (pc / want - 1), dp, pm, du, um);
    tide_mac_free(valid);
    for (int m = 0; m < 2; m++) tide_array_release(p[m]);
    tide_periodic_free(P);
  }
  for (int m = 0; m < 2; m++) {
    tide_array_release(phi[m]);
    tide_array_release(lab[m]);
    tide_mac_free(u[m]);
  }
}

/* A liquid cell whose centre lies on the surface (theta at its clamp on all
 * its liquid-air faces): the jump gives its faces nearly the same
 * curvature (the blend towards the cell's mean), although the height
 * functions of their crossings differ; else the projection would turn the
 * difference, times 1/theta_min, into flow. */
static void small_theta_check(void) {
  int n = 24, nn[3] = {n, n, n}, per[3] = {0, 0, 0};
  double dx = 1.0 / n, o[3] = {0, 0, 0}, R = 0.3;
  tide_grid g;
  tide_grid_init(&g, 3, nn, dx, o);
  /* cell (17, 15, 14): centre at distance R - 0.003 dx from c, nearly diagonal in x, y */
  int C[3] = {17, 15, 14};
  double xc[3], dir[3] = {0.7, 0.66, 0.27}, dl = 0, c[3];
  tide_grid_center(&g, C[0], C[1], C[2], xc);
  for (int d = 0; d < 3; d++)
    dl += dir[d] * dir[d];
  for (int d = 0; d < 3; d++)
    c[d] = xc[d] - (R - 3e-3 * dx) * dir[d] / sqrt(dl);
  tide_array *phi = tide_grid_cell_array(&g, TIDE_F64);
  ball(&g, c, R, phi);
  /* wrinkles of 0.03 dx on the other cells, so that the height functions of
   * the cell's crossings differ as on an advected surface */
  int64_t q0 = tide_grid_idx(&g, C[0], C[1], C[2]);
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++)
    if (q != q0) TIDE_F64P(phi)[q] += 0.03 * dx * (2 * tide_rand01(7, (uint64_t)q) - 1);
  tide_mac *u;
  tide_mac_new(&g, TIDE_F64, &u);
  tide_tension_opts t = tide_tension_opts_default();
  t.sigma = 0.07, t.rho = 1000, t.dt = 1e-3;
  CHECK(tide_liquid_surface_tension_jump(u, phi, &t, NULL) == TIDE_OK, "%s", tide_errmsg());
  double *kf[3];
  int64_t nfa[3];
  for (int a = 0; a < 3; a++) {
    int fd[3];
    tide_grid_face_dims(&g, a, fd);
    nfa[a] = (int64_t)fd[0] * fd[1] * fd[2];
    kf[a] = tide_alloc((size_t)nfa[a] * sizeof(double));
  }
  CHECK(tide_liquid_curvature_faces(&g, TIDE_F64P(phi), per, kf) == TIDE_OK, "%s", tide_errmsg());
  /* the cell's faces towards air: |u| theta / (dt sigma / (rho dx)) is kappa_G */
  double kmin = INFINITY, kmax = -INFINITY, hmin = INFINITY, hmax = -INFINITY;
  int nair = 0;
  for (int a = 0; a < 3; a++)
    for (int sd = 0; sd <= 1; sd++) {
      int N[3] = {C[0], C[1], C[2]}, F[3] = {C[0], C[1], C[2]};
      N[a] += sd ? 1 : -1;
      F[a] += sd;
      double pa = TIDE_F64P(phi)[tide_grid_idx(&g, N[0], N[1], N[2])], pl = TIDE_F64P(phi)[q0];
      if (!(pa >= 0)) continue;
      int64_t f = tide_grid_fidx(&g, a, F[0], F[1], F[2]);
      double th = fmax(0.01, pl / (pl - pa));
      double k = fabs(TIDE_F64P(u->u[a])[f]) * th / (t.dt * t.sigma / (t.rho * dx));
      kmin = fmin(kmin, k), kmax = fmax(kmax, k);
      hmin = fmin(hmin, kf[a][f]), hmax = fmax(hmax, kf[a][f]);
      nair++;
    }
  CHECK(nair >= 2, "the cell has %d air faces", nair);
  CHECK(hmax - hmin > 0.002 * hmax && kmax - kmin < 0.1 * (hmax - hmin) &&
            fabs(kmin * R / 2 - 1) < 0.05,
        "small theta: jump curvatures %g..%g, crossings %g..%g", kmin, kmax, hmin, hmax);
  printf("cell on the surface (%d air faces): jump curvatures %.6f..%.6f, their crossings' "
         "%.6f..%.6f (2/R = %.4f)\n",
         nair, kmin, kmax, hmin, hmax, 2 / R);
  for (int a = 0; a < 3; a++)
    tide_free(kf[a], (size_t)nfa[a] * sizeof(double));
  tide_mac_free(u);
  tide_array_release(phi);
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
    CHECK(tide_liquid_curvature(&g, TIDE_F64P(phi), per, TIDE_F64P(kap)) == TIDE_OK, "%s",
          tide_errmsg());
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
      CHECK(tide_liquid_curvature_faces(&g, TIDE_F64P(phi), per, kf) == TIDE_OK, "%s",
            tide_errmsg());
      double herr = 0;
      int nx = 0;
      for (int a = 0; a < dim; a++)
        for (int64_t f = 0; f < nfa[a]; f++)
          if (kf[a][f] != 0) {
            herr = fmax(herr, fabs(kf[a][f] * R / (dim - 1) - 1));
            nx++;
          }
      CHECK(nx > 50 && herr < (dim == 2 ? 0.003 : 0.015),
            "%dD height-function curvature error %g (%d faces)", dim, herr, nx);
      printf("%dD: height-function curvature error %.2e on %d crossings\n", dim, herr, nx);
      for (int a = 0; a < dim; a++)
        tide_free(kf[a], (size_t)nfa[a] * sizeof(double));
    }

    /* 1c. level-set curvature from the height functions: (dim - 1) / (R + phi)
     *     (the level sets of the distance) within the band, 3 cells */
    {
      CHECK(tide_liquid_curvature_heights(&g, TIDE_F64P(phi), per, 0, TIDE_F64P(kap)) == TIDE_OK,
            "%s", tide_errmsg());
      double lerr = 0;
      int nb = 0;
      for (int64_t q = 0; q < tide_grid_ncells(&g); q++) {
        double ph = TIDE_F64P(phi)[q];
        if (fabs(ph) < 3 * dx) {
          lerr = fmax(lerr, fabs(TIDE_F64P(kap)[q] * (R + ph) / (dim - 1) - 1));
          nb++;
        }
      }
      CHECK(nb > 100 && lerr < (dim == 2 ? 0.003 : 0.03),
            "%dD level-set curvature from heights: error %g (%d cells)", dim, lerr, nb);
      printf("%dD: level-set curvature from heights, error %.2e on %d band cells\n", dim, lerr, nb);
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
    printf(
        "%dD: curvature error %.2e, Laplace pressure error %.2e, parasitic %.2e of the impulse\n",
        dim, kerr, perr, umax / scale);

    /* 3. Liu's band in balanced-force form keeps a drop at rest: the force of a
     *    uniform curvature is a discrete gradient of the ghost-fluid projection
     *    (H(0) at theta dx on the liquid-air faces), removed by it exactly */
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
      CHECK(before > 0 && umax < 1e-5 * before, "%dD liu side %d: %g -> %g", dim, side, before,
            umax);
      /* the pressure holds the part of the jump the band puts in the liquid:
       * all of it (liquid side) or half (both sides, the air half is lost) */
      double pc = TIDE_F64P(p)[tide_grid_idx(&g, n / 2, n / 2, dim == 3 ? n / 2 : 0)];
      double want = (side ? 1.0 : 0.5) * pex;
      CHECK(fabs(pc / want - 1) < 1e-4, "%dD liu side %d: centre pressure %g vs %g", dim, side, pc,
            want);
      printf("%dD Liu (side %d): force impulse %.3e, after projection %.3e, centre pressure %.4f "
             "(%.4f)\n",
             dim, side, before, umax, pc, want);
    }
    tide_mac_free(u);
    tide_array_release(phi);
    tide_array_release(kap);
    tide_array_release(lab);
    tide_array_release(p);
  }
  periodic_checks();
  small_theta_check();
  /* capillary time step */
  CHECK_NEAR(tide_liquid_capillary_dt(1e-3, 0.07, 1000), sqrt(1000 * 1e-9 / (2 * M_PI * 0.07)),
             1e-15);
  return check_report();
}
