/* test_physics_viscosity.c -- implicit viscosity (viscosity.h) against
 * discrete eigenmodes, the rigid-rotation property of the variational solve
 * with a free surface, and volume fractions. */
#include "check.h"
#include "liquid/viscosity.h"

#include <math.h>
#include <string.h>

static tide_mac *new_mac(int dim, int n0, int n1, int n2, double dx, double ox, double oy) {
  tide_grid g;
  int n[3] = {n0, n1, n2};
  double o[3] = {ox, oy, 0};
  tide_grid_init(&g, dim, n, dx, o);
  tide_mac *m;
  tide_mac_new(&g, TIDE_F64, &m);
  return m;
}

/* fill with f(axis, x, y, z) at the face centres */
static void fill(tide_mac *m, double (*f)(int, const double *)) {
  const tide_grid *g = &m->grid;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *u = TIDE_F64P(m->u[a]);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int I[3] = {i, j, k};
          double x[3];
          for (int d = 0; d < 3; d++) x[d] = g->origin[d] + (I[d] + (d == a ? 0.0 : 0.5)) * g->dx;
          u[tide_grid_fidx(g, a, i, j, k)] = f(a, x);
        }
  }
}

/* max over faces of |m - s * f| (s a scale) */
static double maxdiff(const tide_mac *m, double (*f)(int, const double *), double s) {
  tide_mac *r = new_mac(m->grid.dim, m->grid.n[0], m->grid.n[1], m->grid.n[2], m->grid.dx,
                        m->grid.origin[0], m->grid.origin[1]);
  fill(r, f);
  double e = 0;
  for (int a = 0; a < m->grid.dim; a++) {
    int64_t nf = tide_array_size(m->u[a]);
    for (int64_t q = 0; q < nf; q++) e = fmax(e, fabs(TIDE_F64P(m->u[a])[q] - s * TIDE_F64P(r->u[a])[q]));
  }
  tide_mac_free(r);
  return e;
}

static double tg(int a, const double *x) { return a == 0 ? sin(x[0]) * cos(x[1]) : -cos(x[0]) * sin(x[1]); }

static double H = 1.0;
static double chan_sin(int a, const double *x) { return a == 0 ? sin(M_PI * x[1] / H) : 0; }
static double chan_cos(int a, const double *x) { return a == 0 ? cos(M_PI * x[1] / H) : 0; }

static double omega = 2.0, xc = 0.5, yc = 0.5;
static double rot(int a, const double *x) { return a == 0 ? -omega * (x[1] - yc) : omega * (x[0] - xc); }

int main(void) {
  const double nu = 0.1, dt = 0.05;

  /* 1. Taylor-Green on the torus: both solves scale the mode by
   *    1 / (1 + nu dt lambda_h), lambda_h = 2 (2 - 2 cos dx) / dx^2 */
  {
    int n = 32;
    double dx = 2 * M_PI / n;
    double lam = 2 * (2 - 2 * cos(dx)) / (dx * dx);
    double fac = 1 / (1 + nu * dt * lam);
    tide_mac *m = new_mac(2, n, n, 1, dx, 0, 0);
    fill(m, tg);
    tide_diffuse_opts o = tide_diffuse_opts_default();
    o.nu = nu;
    o.dt = dt;
    o.periodic[0] = o.periodic[1] = 1;
    o.tol = 1e-13;
    tide_viscosity_stats st;
    CHECK(tide_liquid_diffuse(m, &o, &st) == TIDE_OK, "%s", tide_errmsg());
    double e = maxdiff(m, tg, fac);
    CHECK(e < 1e-11, "diffuse TG mode error %g", e);
    CHECK(st.unknowns == 2 * n * n, "unknowns %lld", (long long)st.unknowns);

    fill(m, tg);
    tide_viscosity_opts v = tide_viscosity_opts_default();
    v.mu = nu * 1000;
    v.rho = 1000;
    v.dt = dt;
    v.periodic[0] = v.periodic[1] = 1;
    v.tol = 1e-13;
    CHECK(tide_liquid_viscosity(m, &v, &st) == TIDE_OK, "%s", tide_errmsg());
    e = maxdiff(m, tg, fac);
    CHECK(e < 1e-11, "variational TG mode error %g", e);
    printf("TG mode: factor %.6f, iterations %d\n", fac, st.iterations);

    /* a workspace gives the same numbers, building each pattern once */
    tide_viscosity_solver *S;
    CHECK(tide_viscosity_solver_new(&S) == TIDE_OK, "solver");
    tide_mac *m2 = new_mac(2, n, n, 1, dx, 0, 0);
    for (int rep = 0; rep < 3; rep++) {
      fill(m, tg);
      fill(m2, tg);
      tide_viscosity_opts v1 = v, v2 = v;
      v2.solver = S;
      tide_diffuse_opts d1 = o, d2 = o;
      d2.solver = S;
      CHECK(tide_liquid_viscosity(m, &v1, &st) == TIDE_OK && tide_liquid_viscosity(m2, &v2, &st) == TIDE_OK, "%s",
            tide_errmsg());
      CHECK(tide_liquid_diffuse(m, &d1, &st) == TIDE_OK && tide_liquid_diffuse(m2, &d2, &st) == TIDE_OK, "%s",
            tide_errmsg());
      double dmax = 0;
      for (int a = 0; a < 2; a++)
        for (int64_t q = 0; q < tide_array_size(m->u[a]); q++)
          dmax = fmax(dmax, fabs(TIDE_F64P(m->u[a])[q] - TIDE_F64P(m2->u[a])[q]));
      CHECK(dmax == 0, "workspace changes the result by %g", dmax);
    }
    int64_t builds, refills;
    tide_viscosity_solver_counts(S, &builds, &refills);
    CHECK(builds == 3 && refills == 6, "builds %lld (3: viscosity + 2 axes), refills %lld", (long long)builds,
          (long long)refills);
    CHECK(tide_viscosity_solver_bytes(S) > 0, "bytes");
    tide_viscosity_solver_free(S);
    tide_mac_free(m2);
    tide_mac_free(m);
  }

  /* 2. channel periodic in x, walls in y: no-slip keeps sin(pi y/H) an
   *    eigenmode (ghost -u), free slip keeps cos(pi y/H) one */
  {
    int nx = 8, ny = 16;
    double dx = H / ny;
    double lam = (2 - 2 * cos(M_PI * dx / H)) / (dx * dx);
    double fac = 1 / (1 + nu * dt * lam);
    for (int wall = 0; wall < 2; wall++) {
      double (*f)(int, const double *) = wall == TIDE_WALL_NOSLIP ? chan_sin : chan_cos;
      for (int variational = 0; variational < 2; variational++) {
        tide_mac *m = new_mac(2, nx, ny, 1, dx, 0, 0);
        fill(m, f);
        tide_viscosity_stats st;
        int s;
        if (!variational) {
          tide_diffuse_opts o = tide_diffuse_opts_default();
          o.nu = nu, o.dt = dt, o.periodic[0] = 1, o.wall = wall, o.tol = 1e-13;
          s = tide_liquid_diffuse(m, &o, &st);
        } else {
          tide_viscosity_opts v = tide_viscosity_opts_default();
          v.mu = nu, v.rho = 1, v.dt = dt, v.periodic[0] = 1, v.wall = wall, v.tol = 1e-13;
          s = tide_liquid_viscosity(m, &v, &st);
        }
        CHECK(s == TIDE_OK, "%s", tide_errmsg());
        double e = maxdiff(m, f, fac);
        CHECK(e < 1e-11, "channel wall %d variational %d: mode error %g", wall, variational, e);
        tide_mac_free(m);
      }
    }
  }

  /* 3. a rotating liquid disk with a free surface: the variational solve
   *    keeps the rigid rotation (no strain, traction-free surface); the
   *    per-component diffusion with a Neumann surface slows it down */
  {
    int n = 32;
    double dx = 1.0 / n, R = 0.3;
    tide_grid g;
    int nn[3] = {n, n, 1};
    double o0[3] = {0, 0, 0};
    tide_grid_init(&g, 2, nn, dx, o0);
    tide_array *phi = tide_grid_cell_array(&g, TIDE_F64), *lab = tide_grid_cell_array(&g, TIDE_U8);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double x = (i + 0.5) * dx - xc, y = (j + 0.5) * dx - yc;
        double p = sqrt(x * x + y * y) - R;
        TIDE_F64P(phi)[tide_grid_idx(&g, i, j, 0)] = p;
        TIDE_U8P(lab)[tide_grid_idx(&g, i, j, 0)] = p < 0 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
      }
    tide_mac *m = new_mac(2, n, n, 1, dx, 0, 0);
    fill(m, rot);
    tide_viscosity_opts v = tide_viscosity_opts_default();
    v.mu = 1.0, v.rho = 1, v.dt = 0.1, v.phi = phi, v.tol = 1e-12; /* nu dt / dx^2 ~ 100 */
    tide_viscosity_stats st;
    CHECK(tide_liquid_viscosity(m, &v, &st) == TIDE_OK, "%s", tide_errmsg());
    double e = maxdiff(m, rot, 1.0);
    CHECK(e < 1e-7 * omega * R, "variational rotation changed by %g", e);
    printf("rotating disk, variational: max change %.3g (omega R = %g), %lld unknowns, %d iterations\n", e,
           omega * R, (long long)st.unknowns, st.iterations);
    /* voxel fractions from the labels give a rigid rotation too */
    fill(m, rot);
    v.phi = NULL;
    v.labels = lab;
    CHECK(tide_liquid_viscosity(m, &v, &st) == TIDE_OK, "%s", tide_errmsg());
    e = maxdiff(m, rot, 1.0);
    CHECK(e < 1e-7 * omega * R, "variational (labels) rotation changed by %g", e);

    fill(m, rot);
    tide_diffuse_opts o = tide_diffuse_opts_default();
    o.nu = 1.0, o.dt = 0.1, o.labels = lab, o.tol = 1e-12;
    CHECK(tide_liquid_diffuse(m, &o, &st) == TIDE_OK, "%s", tide_errmsg());
    /* speed at the rim: per-component diffusion with zero normal derivative
     * drives each component towards its mean, i.e. spins the disk down */
    double e2 = maxdiff(m, rot, 1.0);
    CHECK(e2 > 0.1 * omega * R, "per-component diffusion should damp the rotation (change %g)", e2);
    printf("rotating disk, per-component: max change %.3g\n", e2);
    tide_mac_free(m);

    /* 4. volume fractions: area of the disk */
    double *Vc = tide_alloc((size_t)n * n * sizeof(double));
    int per0[3] = {0, 0, 0};
    double off[3] = {0.5, 0.5, 0.5};
    CHECK(tide_liquid_fractions(&g, TIDE_F64P(phi), per0, off, g.n, 8, Vc) == TIDE_OK, "%s", tide_errmsg());
    double area = 0;
    for (int q = 0; q < n * n; q++) area += Vc[q] * dx * dx;
    CHECK(fabs(area - M_PI * R * R) < 0.01 * M_PI * R * R, "disk area %g vs %g", area, M_PI * R * R);
    /* a plane phi = y - 0.40625 (between sub-samples) cuts exactly */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) TIDE_F64P(phi)[tide_grid_idx(&g, i, j, 0)] = (j + 0.5) * dx - 0.4;
    CHECK(tide_liquid_fractions(&g, TIDE_F64P(phi), per0, off, g.n, 5, Vc) == TIDE_OK, "%s", tide_errmsg());
    area = 0;
    for (int q = 0; q < n * n; q++) area += Vc[q] * dx * dx;
    CHECK(fabs(area - 0.4) < 1e-12, "plane area %.15g", area);
    tide_free(Vc, (size_t)n * n * sizeof(double));
    tide_array_release(phi);
    tide_array_release(lab);
  }

  /* 5. 3D: the TG-like mode u = sin x cos y, v = -cos x sin y, w = 0 on a
   *    periodic cube (z periodic too) */
  {
    int n = 12;
    double dx = 2 * M_PI / n;
    double lam = 2 * (2 - 2 * cos(dx)) / (dx * dx);
    double fac = 1 / (1 + nu * dt * lam);
    tide_mac *m = new_mac(3, n, n, n, dx, 0, 0);
    fill(m, tg);
    memset(TIDE_F64P(m->u[2]), 0, (size_t)tide_array_size(m->u[2]) * sizeof(double));
    tide_viscosity_opts v = tide_viscosity_opts_default();
    v.mu = nu, v.rho = 1, v.dt = dt, v.tol = 1e-13;
    v.periodic[0] = v.periodic[1] = v.periodic[2] = 1;
    tide_viscosity_stats st;
    CHECK(tide_liquid_viscosity(m, &v, &st) == TIDE_OK, "%s", tide_errmsg());
    double e = 0;
    tide_mac *r = new_mac(3, n, n, n, dx, 0, 0);
    fill(r, tg);
    for (int a = 0; a < 2; a++)
      for (int64_t q = 0; q < tide_array_size(m->u[a]); q++)
        e = fmax(e, fabs(TIDE_F64P(m->u[a])[q] - fac * TIDE_F64P(r->u[a])[q]));
    for (int64_t q = 0; q < tide_array_size(m->u[2]); q++) e = fmax(e, fabs(TIDE_F64P(m->u[2])[q]));
    CHECK(e < 1e-11, "3D variational mode error %g", e);
    tide_mac_free(r);
    tide_mac_free(m);
  }

  /* 6. argument checks */
  {
    tide_mac *m = new_mac(2, 4, 4, 1, 0.1, 0, 0);
    tide_viscosity_stats st;
    tide_diffuse_opts o = tide_diffuse_opts_default();
    o.nu = -1, o.dt = 0.1;
    CHECK(tide_liquid_diffuse(m, &o, &st) == TIDE_EINVAL, "negative nu");
    o.nu = 1, o.dt = NAN;
    CHECK(tide_liquid_diffuse(m, &o, &st) == TIDE_EINVAL, "NaN dt");
    o.dt = 0.1, o.periodic[2] = 1;
    CHECK(tide_liquid_diffuse(m, &o, &st) == TIDE_EINVAL, "periodic z in 2D");
    tide_viscosity_opts v = tide_viscosity_opts_default();
    v.mu = 1, v.dt = 0.1, v.precond = TIDE_PRECOND_MIC0;
    CHECK(tide_liquid_viscosity(m, &v, &st) == TIDE_EINVAL, "mic0 rejected");
    tide_mac_free(m);
  }
  return check_report();
}
