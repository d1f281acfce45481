/* test_grid_interp.c -- interpolation, advection, divergence, walls and
 * extrapolation on MAC grids (modules/grid), 2D and 3D. */
#include "check.h"
#include "grid/grid.h"

#include <math.h>

/* affine test function */
static double affine(const double *x, int comp) {
  return 0.3 + comp + (1.5 - comp) * x[0] - 0.7 * x[1] + (comp == 2 ? 2.0 : 0.25) * x[2];
}

static void fill_faces(tide_mac *m) {
  const tide_grid *g = &m->grid;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *u = TIDE_F64P(m->u[a]);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          double x[3] = {g->origin[0] + (i + 0.5 * (a != 0)) * g->dx, g->origin[1] + (j + 0.5 * (a != 1)) * g->dx,
                         g->dim == 3 ? g->origin[2] + (k + 0.5 * (a != 2)) * g->dx : 0};
          u[((int64_t)i * fd[1] + j) * fd[2] + k] = affine(x, a);
        }
  }
}

static void test_dim(int dim) {
  tide_grid g;
  int n[3] = {7, 5, 6};
  double org[3] = {-0.3, 0.2, 0.1};
  CHECK(tide_grid_init(&g, dim, n, 0.1, org) == TIDE_OK, "init");
  /* cell field: exact for affine functions inside the lattice of centres */
  tide_array *f = tide_grid_cell_array(&g, TIDE_F64);
  double *pf = TIDE_F64P(f);
  for (int i = 0; i < g.n[0]; i++)
    for (int j = 0; j < g.n[1]; j++)
      for (int k = 0; k < g.n[2]; k++) {
        double x[3];
        tide_grid_center(&g, i, j, k, x);
        pf[tide_grid_idx(&g, i, j, k)] = affine(x, 0);
      }
  tide_lattice L;
  tide_lattice_cells(&g, pf, &L);
  double maxerr = 0;
  for (int s = 0; s < 200; s++) {
    double x[3] = {0, 0, 0};
    for (int d = 0; d < dim; d++)
      x[d] = g.origin[d] + g.dx * (0.5 + (g.n[d] - 1) * tide_rand01(7, (uint64_t)(s * 3 + d)));
    maxerr = fmax(maxerr, fabs(tide_lattice_interp(&L, x) - affine(x, 0)));
  }
  CHECK(maxerr < 1e-13, "cell interpolation of an affine field is exact (%dD): err %g", dim, maxerr);
  /* outside: clamped to the nearest sample line */
  double far[3] = {g.origin[0] - 5, g.origin[1] + 0.5 * g.dx, dim == 3 ? g.origin[2] + 0.5 * g.dx : 0};
  double near[3] = {g.origin[0] + 0.5 * g.dx, far[1], far[2]};
  CHECK_NEAR(tide_lattice_interp(&L, far), affine(near, 0), 1e-13);

  /* MAC field: exact for affine components anywhere inside the domain
   * (face lattices cover the domain, clamped half cells aside) */
  tide_mac *m;
  CHECK(tide_mac_new(&g, TIDE_F64, &m) == TIDE_OK, "mac");
  fill_faces(m);
  maxerr = 0;
  for (int s = 0; s < 200; s++) {
    double x[3] = {0, 0, 0}, v[3];
    for (int d = 0; d < dim; d++)
      x[d] = g.origin[d] + g.dx * (0.5 + (g.n[d] - 1) * tide_rand01(8, (uint64_t)(s * 3 + d)));
    tide_mac_velocity(m, x, v);
    for (int a = 0; a < dim; a++) maxerr = fmax(maxerr, fabs(v[a] - affine(x, a)));
  }
  CHECK(maxerr < 1e-13, "MAC interpolation of an affine field is exact (%dD): err %g", dim, maxerr);

  /* divergence of the affine field = trace of its gradient */
  tide_array *div = tide_grid_cell_array(&g, TIDE_F64);
  CHECK(tide_mac_divergence(m, div) == TIDE_OK, "divergence");
  double tr = 1.5 + 0.7 * 0 + (-0.7) + (dim == 3 ? 2.0 : 0); /* d/dx u0 + d/dy u1 + d/dz u2 */
  double lo, hi;
  tide_array_minmax(div, &lo, &hi);
  CHECK(fabs(lo - tr) < 1e-11 && fabs(hi - tr) < 1e-11, "divergence %g..%g vs %g", lo, hi, tr);

  /* advection of the affine cell field by a uniform velocity: f(x - U dt) */
  tide_mac *vel;
  tide_mac_new(&g, TIDE_F64, &vel);
  double U[3] = {0.31, -0.17, 0.11};
  tide_mac_add_accel(vel, U, 1.0);
  tide_array *out = tide_grid_cell_array(&g, TIDE_F64);
  double dt = 0.05;
  CHECK(tide_grid_advect(&g, vel, f, dt, out) == TIDE_OK, "advect");
  maxerr = 0;
  for (int i = 2; i < g.n[0] - 2; i++)
    for (int j = 2; j < g.n[1] - 2; j++)
      for (int k = dim == 3 ? 2 : 0; k < (dim == 3 ? g.n[2] - 2 : 1); k++) {
        double x[3];
        tide_grid_center(&g, i, j, k, x);
        for (int d = 0; d < dim; d++) x[d] -= U[d] * dt;
        maxerr = fmax(maxerr, fabs(TIDE_F64P(out)[tide_grid_idx(&g, i, j, k)] - affine(x, 0)));
      }
  CHECK(maxerr < 1e-12, "semi-Lagrangian advection exact for affine f, uniform u (%dD): %g", dim, maxerr);
  CHECK(tide_grid_advect(&g, vel, f, dt, f) != TIDE_OK, "aliasing rejected");

  /* MAC self-advection of a uniform field leaves it unchanged */
  tide_mac *adv;
  tide_mac_new(&g, TIDE_F64, &adv);
  CHECK(tide_mac_advect(vel, vel, 0.3, adv) == TIDE_OK, "mac advect");
  double s0, s1;
  tide_mac_max_speed(adv, &s0);
  tide_mac_max_speed(vel, &s1);
  CHECK_NEAR(s0, s1, 1e-14);
  CHECK(tide_mac_advect(vel, vel, 0.3, vel) != TIDE_OK, "aliasing rejected (mac)");

  /* walls: normal velocity zero on the boundary and around a solid cell */
  tide_array *lab = tide_grid_cell_array(&g, TIDE_U8);
  TIDE_U8P(lab)[tide_grid_idx(&g, 3, 2, dim == 3 ? 2 : 0)] = TIDE_CELL_SOLID;
  CHECK(tide_mac_enforce_walls(vel, lab, 0) == TIDE_OK, "walls");
  int kk = dim == 3 ? 2 : 0;
  CHECK(TIDE_F64P(vel->u[0])[tide_grid_fidx(&g, 0, 3, 2, kk)] == 0 &&
            TIDE_F64P(vel->u[0])[tide_grid_fidx(&g, 0, 4, 2, kk)] == 0 &&
            TIDE_F64P(vel->u[1])[tide_grid_fidx(&g, 1, 3, 3, kk)] == 0,
        "solid cell faces zeroed");
  CHECK(TIDE_F64P(vel->u[0])[tide_grid_fidx(&g, 0, 5, 2, kk)] == U[0], "other faces kept");
  CHECK(TIDE_F64P(vel->u[0])[tide_grid_fidx(&g, 0, g.n[0], 1, kk)] == 0 &&
            TIDE_F64P(vel->u[1])[tide_grid_fidx(&g, 1, 1, 0, kk)] == 0,
        "domain walls zeroed");

  /* extrapolation: valid only on one face of u; after enough layers every
   * face holds its value; after 1 layer only the neighbours */
  tide_mac *e, *valid;
  tide_mac_new(&g, TIDE_F64, &e);
  tide_mac_new(&g, TIDE_U8, &valid);
  int64_t f0 = tide_grid_fidx(&g, 0, 3, 2, kk);
  TIDE_F64P(e->u[0])[f0] = 2.5;
  TIDE_U8P(valid->u[0])[f0] = 1;
  CHECK(tide_mac_extrapolate(e, valid, 1, 0) == TIDE_OK, "extrapolate");
  double sum;
  tide_array_sum(e->u[0], &sum);
  CHECK_NEAR(sum, 2.5 * (1 + 2 * dim), 1e-12);
  CHECK(tide_mac_extrapolate(e, valid, 100, 1) == TIDE_OK, "extrapolate");
  tide_array_minmax(e->u[0], &lo, &hi);
  CHECK(lo == 2.5 && hi == 2.5, "constant extrapolated everywhere: %g..%g", lo, hi);
  tide_array_minmax(valid->u[0], &lo, &hi);
  CHECK(lo == 1, "all faces valid");
  tide_array_minmax(valid->u[1], &lo, &hi);
  CHECK(hi == 0, "no valid v face stays invalid (no source)");

  tide_mac_free(e);
  tide_mac_free(valid);
  tide_mac_free(adv);
  tide_mac_free(vel);
  tide_mac_free(m);
  tide_array_release(lab);
  tide_array_release(out);
  tide_array_release(div);
  tide_array_release(f);
}

int main(void) {
  test_dim(2);
  test_dim(3);
  tide_grid g;
  int bad[3] = {0, 4, 4};
  double org[3] = {0, 0, 0};
  CHECK(tide_grid_init(&g, 2, bad, 0.1, org) == TIDE_EINVAL, "size 0 rejected");
  int ok[3] = {4, 4, 4};
  CHECK(tide_grid_init(&g, 4, ok, 0.1, org) == TIDE_EINVAL, "dim 4 rejected");
  CHECK(tide_grid_init(&g, 2, ok, NAN, org) == TIDE_EINVAL, "NaN dx rejected");
  return check_report();
}
