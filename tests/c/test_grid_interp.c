/* test_grid_interp.c -- interpolation, advection (plain and with the
 * MacCormack/BFECC/RK3/cubic options), divergence, walls and extrapolation
 * on MAC grids (modules/grid), 2D and 3D. */
#include "check.h"
#include "grid/grid.h"
#include "grid/levelset.h"

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

/* tide_levelset_advect_mac: every scheme / backtrace / interpolation moves an
 * affine MAC field exactly in a uniform flow (away from the inflow sides);
 * the defaults are tide_mac_advect bit for bit; the workspace is reused;
 * bad options are rejected. */
static void test_mac_schemes(int dim) {
  tide_grid g;
  int n[3] = {18, 16, dim == 3 ? 15 : 1};
  double org[3] = {0.1, -0.2, 0};
  tide_grid_init(&g, dim, n, 0.1, org);
  tide_mac *vel, *q, *out, *ref, *valid;
  tide_mac_new(&g, TIDE_F64, &vel);
  tide_mac_new(&g, TIDE_F64, &q);
  tide_mac_new(&g, TIDE_F64, &out);
  tide_mac_new(&g, TIDE_F64, &ref);
  tide_mac_new(&g, TIDE_U8, &valid);
  const double U[3] = {0.3, -0.2, 0.15};
  for (int a = 0; a < dim; a++) tide_array_fill(vel->u[a], U[a]);
  fill_faces(q);
  const double dt = 0.25;
  tide_advect_work w = {NULL, 0};
  for (int scheme = TIDE_ADVECT_SL; scheme <= TIDE_ADVECT_BFECC; scheme++)
    for (int rk = 2; rk <= 3; rk++)
      for (int cubic = 0; cubic <= 1; cubic++) {
        tide_advect_opts o = {rk, cubic, scheme, TIDE_ADVECT_CLAMP_EXTREMA, NULL};
        CHECK(tide_levelset_advect_mac(vel, q, dt, &o, NULL, &w, out) == TIDE_OK, "advect_mac");
        double worst = 0;
        for (int a = 0; a < dim; a++) {
          int fd[3];
          tide_grid_face_dims(&g, a, fd);
          const double *u = TIDE_F64P(out->u[a]);
          /* away from the ends, where the clamped stencils (up to 3
           * traces of 2 samples for cubic BFECC) are not affine */
          for (int i = 6; i < fd[0] - 6; i++)
            for (int j = 6; j < fd[1] - 6; j++)
              for (int k = dim == 3 ? 6 : 0; k < (dim == 3 ? fd[2] - 6 : 1); k++) {
                double x[3] = {g.origin[0] + (i + 0.5 * (a != 0)) * g.dx, g.origin[1] + (j + 0.5 * (a != 1)) * g.dx,
                               dim == 3 ? g.origin[2] + (k + 0.5 * (a != 2)) * g.dx : 0};
                for (int d = 0; d < dim; d++) x[d] -= U[d] * dt;
                double e = fabs(u[((int64_t)i * fd[1] + j) * fd[2] + k] - affine(x, a));
                worst = e > worst ? e : worst;
              }
        }
        CHECK(worst < 1e-12, "%dD scheme %d rk %d cubic %d: affine field exact, error %g", dim, scheme, rk,
              cubic, worst);
      }
  size_t bytes = w.bytes;
  int64_t nmax = tide_array_size(q->u[0]);
  for (int a = 1; a < dim; a++) nmax = tide_array_size(q->u[a]) > nmax ? tide_array_size(q->u[a]) : nmax;
  CHECK(bytes == (size_t)nmax * 4 * sizeof(double), "workspace: four doubles per face of the largest axis");
  /* defaults == tide_mac_advect, bit for bit (a non-uniform velocity) */
  fill_faces(vel);
  CHECK(tide_levelset_advect_mac(vel, q, dt, NULL, NULL, &w, out) == TIDE_OK, "defaults");
  CHECK(tide_mac_advect(vel, q, dt, ref) == TIDE_OK, "tide_mac_advect");
  int same = 1;
  for (int a = 0; a < dim; a++)
    for (int64_t f = 0; f < tide_array_size(q->u[a]); f++)
      same &= TIDE_F64P(out->u[a])[f] == TIDE_F64P(ref->u[a])[f];
  CHECK(same, "%dD: the defaults are tide_mac_advect", dim);
  CHECK(w.bytes == bytes, "workspace kept");
  /* valid nowhere: the MacCormack result is the SL one */
  tide_advect_opts mc = {2, 0, TIDE_ADVECT_MACCORMACK, TIDE_ADVECT_CLAMP_NONE, NULL};
  CHECK(tide_levelset_advect_mac(vel, q, dt, &mc, valid, &w, out) == TIDE_OK, "valid");
  same = 1;
  for (int a = 0; a < dim; a++)
    for (int64_t f = 0; f < tide_array_size(q->u[a]); f++)
      same &= TIDE_F64P(out->u[a])[f] == TIDE_F64P(ref->u[a])[f];
  CHECK(same, "%dD: no valid face -> SL everywhere", dim);
  /* region: its samples bit for bit those of the whole grid's advection,
   * every other sample the field's (a non-affine field, a non-uniform
   * velocity of up to 1.2 cells per step, a region of cells within 4 of the
   * centre, valid faces only for i >= 5) */
  {
    tide_mac *q2, *full, *vmask;
    tide_mac_new(&g, TIDE_F64, &q2);
    tide_mac_new(&g, TIDE_F64, &full);
    tide_mac_new(&g, TIDE_U8, &vmask);
    for (int a = 0; a < dim; a++) {
      int fd[3];
      tide_grid_face_dims(&g, a, fd);
      for (int i = 0; i < fd[0]; i++)
        for (int j = 0; j < fd[1]; j++)
          for (int k = 0; k < fd[2]; k++) {
            int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
            TIDE_F64P(q2->u[a])[f] = sin(0.7 * i + 0.3 * a) * cos(0.5 * j) + 0.1 * k * k;
            TIDE_F64P(vel->u[a])[f] *= 0.12;
            TIDE_U8P(vmask->u[a])[f] = i >= 5;
          }
    }
    tide_array *reg = tide_grid_cell_array(&g, TIDE_U8), *cf = tide_grid_cell_array(&g, TIDE_F64),
               *cfull = tide_grid_cell_array(&g, TIDE_F64),
               *cout = tide_grid_cell_array(&g, TIDE_F64);
    uint8_t *r = TIDE_U8P(reg);
    for (int i = 0; i < n[0]; i++)
      for (int j = 0; j < n[1]; j++)
        for (int k = 0; k < n[2]; k++) {
          int64_t c = tide_grid_idx(&g, i, j, k);
          double di = i - n[0] / 2, dj = j - n[1] / 2, dk = dim == 3 ? k - n[2] / 2 : 0;
          r[c] = di * di + dj * dj + dk * dk <= 16;
          TIDE_F64P(cf)[c] = sin(0.9 * i) * cos(0.4 * j + 0.2 * k);
        }
    for (int scheme = TIDE_ADVECT_SL; scheme <= TIDE_ADVECT_MACCORMACK; scheme++)
      for (int cubic = 0; cubic <= 1; cubic++)
        for (int useval = 0; useval <= 1; useval++) {
          tide_advect_opts o = {2, cubic, scheme, TIDE_ADVECT_CLAMP_REVERT, NULL};
          tide_mac *vm = useval ? vmask : NULL;
          CHECK(tide_levelset_advect_mac(vel, q2, dt, &o, vm, &w, full) == TIDE_OK, "region: full");
          o.region = r;
          CHECK(tide_levelset_advect_mac(vel, q2, dt, &o, vm, &w, out) == TIDE_OK, "region: mac");
          int64_t in = 0, bad = 0;
          for (int a = 0; a < dim; a++) {
            int fd[3];
            tide_grid_face_dims(&g, a, fd);
            for (int i = 0; i < fd[0]; i++)
              for (int j = 0; j < fd[1]; j++)
                for (int k = 0; k < fd[2]; k++) {
                  int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
                  int c0[3] = {i, j, k}, c1[3] = {i, j, k}, sel = 0;
                  c0[a] -= 1;
                  if (c0[a] >= 0) sel |= r[tide_grid_idx(&g, c0[0], c0[1], c0[2])];
                  if (c1[a] < n[a]) sel |= r[tide_grid_idx(&g, c1[0], c1[1], c1[2])];
                  double v = TIDE_F64P(out->u[a])[f];
                  in += sel;
                  bad += sel ? v != TIDE_F64P(full->u[a])[f] : v != TIDE_F64P(q2->u[a])[f];
                }
          }
          CHECK(
              bad == 0 && in > 0,
              "%dD scheme %d cubic %d valid %d: region faces bit-identical (%lld in, %lld differ)",
              dim, scheme, cubic, useval, (long long)in, (long long)bad);
          o.region = NULL;
          CHECK(tide_levelset_advect_cells(&g, vel, TIDE_F64P(cf), dt, &o, NULL, &w,
                                           TIDE_F64P(cfull)) == TIDE_OK,
                "region: full cells");
          o.region = r;
          CHECK(tide_levelset_advect_cells(&g, vel, TIDE_F64P(cf), dt, &o, NULL, &w,
                                           TIDE_F64P(cout)) == TIDE_OK,
                "region: cells");
          bad = 0;
          for (int64_t c = 0; c < tide_grid_ncells(&g); c++)
            bad += r[c] ? TIDE_F64P(cout)[c] != TIDE_F64P(cfull)[c]
                        : TIDE_F64P(cout)[c] != TIDE_F64P(cf)[c];
          CHECK(bad == 0, "%dD scheme %d cubic %d: region cells bit-identical (%lld differ)", dim,
                scheme, cubic, (long long)bad);
        }
    tide_advect_opts bf = {2, 1, TIDE_ADVECT_BFECC, TIDE_ADVECT_CLAMP_REVERT, r};
    CHECK(tide_levelset_advect_mac(vel, q2, dt, &bf, NULL, &w, out) != TIDE_OK,
          "BFECC with a region rejected");
    tide_array_release(reg);
    tide_array_release(cf);
    tide_array_release(cfull);
    tide_array_release(cout);
    tide_mac_free(q2);
    tide_mac_free(full);
    tide_mac_free(vmask);
  }
  /* errors */
  tide_advect_opts bad = mc;
  bad.rk = 4;
  CHECK(tide_levelset_advect_mac(vel, q, dt, &bad, NULL, &w, out) != TIDE_OK, "rk 4 rejected");
  bad = mc;
  bad.clamp = 7;
  CHECK(tide_levelset_advect_mac(vel, q, dt, &bad, NULL, &w, out) != TIDE_OK, "limiter 7 rejected");
  CHECK(tide_levelset_advect_mac(vel, q, dt, &mc, ref, &w, out) != TIDE_OK, "f64 valid rejected");
  CHECK(tide_levelset_advect_mac(vel, q, NAN, &mc, NULL, &w, out) != TIDE_OK, "NaN dt rejected");
  CHECK(tide_levelset_advect_mac(vel, q, dt, &mc, NULL, &w, q) != TIDE_OK, "out = field rejected");
  tide_advect_work_release(&w);
  CHECK(w.buf == NULL && w.bytes == 0, "workspace released");
  tide_mac_free(vel);
  tide_mac_free(q);
  tide_mac_free(out);
  tide_mac_free(ref);
  tide_mac_free(valid);
}

int main(void) {
  test_dim(2);
  test_dim(3);
  test_mac_schemes(2);
  test_mac_schemes(3);
  tide_grid g;
  int bad[3] = {0, 4, 4};
  double org[3] = {0, 0, 0};
  CHECK(tide_grid_init(&g, 2, bad, 0.1, org) == TIDE_EINVAL, "size 0 rejected");
  int ok[3] = {4, 4, 4};
  CHECK(tide_grid_init(&g, 4, ok, 0.1, org) == TIDE_EINVAL, "dim 4 rejected");
  CHECK(tide_grid_init(&g, 2, ok, NAN, org) == TIDE_EINVAL, "NaN dx rejected");
  return check_report();
}
