/* test_couple_liu_distance.c -- the distance metric of Liu et al. (Eq. 14-16,
 * 21), linear and quadratic, 2D and 3D:
 *  - a signed distance to a plane is reproduced exactly (both schemes
 *    reproduce linear data), with gradient the plane's normal;
 *  - dd/dx, d2d/dx2 and d2d/dphi dx against central differences (relative
 *    error <= 1e-6) at seeded random points of a random phi, including
 *    linear stencils evaluated off their dual cell (extrapolation, Fig. 7);
 *  - dd/dphi (the weights) sum to 1, and d is linear in phi;
 *  - the quadratic d is C1 across cell borders, the linear one only C0;
 *  - tide_liu_distance_value gives exactly (bit for bit) the d of every
 *    evaluation above. */
#include "check.h"
#include "couple/liu.h"
#include "tide.h"

static double rnd(uint64_t *s) { return tide_rand01(7, (*s)++); }

static void eval(const tide_grid *g, const double *phi, int interp, const int *base,
                 const double *x, tide_liu_dist *r) {
  int b[3];
  if (base) {
    b[0] = base[0], b[1] = base[1], b[2] = base[2];
  } else {
    tide_liu_stencil_base(g, interp, x, b);
  }
  tide_liu_distance_at(g, phi, interp, b, x, r);
  double d = tide_liu_distance_value(g, phi, interp, b, x);
  CHECK(d == r->d, "distance value %.17g, distance_at %.17g (dim %d interp %d)", d, r->d, g->dim, interp);
}

static void test_plane(int dim, int interp) {
  tide_grid g;
  int n[3] = {12, 10, dim == 3 ? 9 : 1};
  double o[3] = {-0.3, 0.1, 0.0};
  tide_grid_init(&g, dim, n, 0.05, o);
  double nrm[3] = {0.6, -0.48, dim == 3 ? 0.64 : 0};
  double l = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
  for (int a = 0; a < 3; a++)
    nrm[a] /= l;
  int64_t N = tide_grid_ncells(&g);
  double *phi = tide_alloc((size_t)N * sizeof(double));
  for (int i = 0; i < n[0]; i++)
    for (int j = 0; j < n[1]; j++)
      for (int k = 0; k < n[2]; k++) {
        double c[3] = {o[0] + (i + 0.5) * g.dx, o[1] + (j + 0.5) * g.dx,
                       dim == 3 ? o[2] + (k + 0.5) * g.dx : 0};
        phi[tide_grid_idx(&g, i, j, k)] = nrm[0] * c[0] + nrm[1] * c[1] + nrm[2] * c[2] - 0.01;
      }
  uint64_t s = 100 * dim + interp;
  double maxe = 0, maxg = 0;
  for (int t = 0; t < 50; t++) {
    /* interior points (2 cells from the border: no clamping) */
    double x[3] = {o[0] + (2 + rnd(&s) * (n[0] - 4)) * g.dx,
                   o[1] + (2 + rnd(&s) * (n[1] - 4)) * g.dx,
                   dim == 3 ? o[2] + (2 + rnd(&s) * (n[2] - 4)) * g.dx : 0};
    tide_liu_dist r;
    eval(&g, phi, interp, NULL, x, &r);
    double want = nrm[0] * x[0] + nrm[1] * x[1] + nrm[2] * x[2] - 0.01;
    maxe = fmax(maxe, fabs(r.d - want));
    for (int a = 0; a < dim; a++)
      maxg = fmax(maxg, fabs(r.grad[a] - nrm[a]));
    double ws = 0;
    for (int c = 0; c < r.n; c++)
      ws += r.w[c];
    CHECK_NEAR(ws, 1, 1e-14);
    CHECK(r.n == (interp == TIDE_LIU_LINEAR ? (dim == 2 ? 4 : 8) : (dim == 2 ? 9 : 27)),
          "stencil size %d", r.n);
  }
  CHECK(maxe < 1e-14, "plane distance error %g (dim %d interp %d)", maxe, dim, interp);
  CHECK(maxg < 1e-12, "plane normal error %g (dim %d interp %d)", maxg, dim, interp);
  tide_free(phi, (size_t)N * sizeof(double));
}

static void test_fd(int dim, int interp, int offcell) {
  tide_grid g;
  int n[3] = {8, 7, dim == 3 ? 6 : 1};
  double o[3] = {0.2, -0.1, 0.3};
  tide_grid_init(&g, dim, n, 0.1, o);
  int64_t N = tide_grid_ncells(&g);
  double *phi = tide_alloc((size_t)N * sizeof(double));
  uint64_t s = 1000 + 10 * dim + interp + 100 * offcell;
  for (int64_t c = 0; c < N; c++)
    phi[c] = rnd(&s) - 0.4;
  double e1 = 0, e2 = 0, e3 = 0, elin = 0;
  for (int t = 0; t < 40; t++) {
    double x[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      x[a] = o[a] + (2 + rnd(&s) * (n[a] - 4)) * g.dx;
    int base[3];
    tide_liu_stencil_base(&g, interp, x, base);
    if (offcell)
      for (int a = 0; a < dim; a++)
        x[a] += (rnd(&s) - 0.5) * 1.2 * g.dx; /* leave the stencil's cell: extrapolation */
    const int *bp = interp == TIDE_LIU_LINEAR || offcell ? base : NULL;
    tide_liu_dist r, rp, rm;
    eval(&g, phi, interp, bp, x, &r);
    double h = 1e-6 * g.dx;
    for (int a = 0; a < dim; a++) {
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[a] += h, xm[a] -= h;
      eval(&g, phi, interp, base, xp, &rp);
      eval(&g, phi, interp, base, xm, &rm);
      double fd = (rp.d - rm.d) / (2 * h);
      e1 = fmax(e1, fabs(fd - r.grad[a]) / (fabs(r.grad[a]) + 1));
      for (int b = 0; b < dim; b++) {
        double fh = (rp.grad[b] - rm.grad[b]) / (2 * h);
        e2 = fmax(e2, fabs(fh - r.hess[a][b]) / (fabs(r.hess[a][b]) + 1 / g.dx));
      }
    }
    /* mixed derivative d2d/dphi_c dx by perturbing phi_c; d linear in phi */
    for (int c = 0; c < r.n; c++) {
      double save = phi[r.cell[c]], hp = 1e-3;
      int dup = 0;
      for (int q = 0; q < r.n; q++)
        dup += r.cell[q] == r.cell[c];
      if (dup > 1) continue;
      phi[r.cell[c]] = save + hp;
      eval(&g, phi, interp, base, x, &rp);
      phi[r.cell[c]] = save - hp;
      eval(&g, phi, interp, base, x, &rm);
      phi[r.cell[c]] = save;
      elin = fmax(elin, fabs((rp.d - rm.d) / (2 * hp) - r.w[c]));
      for (int a = 0; a < dim; a++)
        e3 = fmax(e3, fabs((rp.grad[a] - rm.grad[a]) / (2 * hp) - r.dwdx[c][a]) * g.dx);
    }
  }
  CHECK(e1 < 1e-6, "dd/dx vs FD: %g (dim %d interp %d off %d)", e1, dim, interp, offcell);
  CHECK(e2 < 1e-6, "d2d/dx2 vs FD: %g (dim %d interp %d off %d)", e2, dim, interp, offcell);
  CHECK(e3 < 1e-9, "d2d/dphi dx vs FD: %g (dim %d interp %d)", e3, dim, interp);
  CHECK(elin < 1e-9, "dd/dphi vs FD: %g (dim %d interp %d)", elin, dim, interp);
  tide_free(phi, (size_t)N * sizeof(double));
}

/* Across a cell border (a dual-cell border for linear) at x = border: the
 * one-sided slopes agree for quadratic and differ for linear. */
static void test_smoothness(void) {
  tide_grid g;
  int n[3] = {8, 8, 1};
  double o[3] = {0, 0, 0};
  tide_grid_init(&g, 2, n, 1.0, o);
  double phi[64];
  uint64_t s = 99;
  for (int c = 0; c < 64; c++)
    phi[c] = rnd(&s);
  for (int interp = 1; interp <= 2; interp++) {
    /* linear: dual-cell borders at cell centres (x = 3.5); quadratic: at faces (x = 4) */
    double xb = interp == TIDE_LIU_LINEAR ? 3.5 : 4.0, e = 1e-9;
    double xl[3] = {xb - e, 3.3, 0}, xr[3] = {xb + e, 3.3, 0};
    tide_liu_dist a, b;
    eval(&g, phi, interp, NULL, xl, &a);
    eval(&g, phi, interp, NULL, xr, &b);
    CHECK(fabs(a.d - b.d) < 1e-8, "C0 across the border (interp %d)", interp);
    double jump = fabs(a.grad[0] - b.grad[0]) + fabs(a.grad[1] - b.grad[1]);
    if (interp == TIDE_LIU_QUADRATIC)
      CHECK(jump < 1e-7, "quadratic: gradient continuous (jump %g)", jump);
    else
      CHECK(jump > 1e-3, "linear: gradient jumps (jump %g)", jump);
  }
}

int main(void) {
  for (int dim = 2; dim <= 3; dim++)
    for (int interp = 1; interp <= 2; interp++) {
      test_plane(dim, interp);
      test_fd(dim, interp, 0);
      test_fd(dim, interp, 1);
    }
  test_smoothness();
  double x[4] = {0.5, 0.5, NAN, 0};
  tide_grid g;
  int n[3] = {4, 4, 1};
  double o[3] = {0, 0, 0};
  tide_grid_init(&g, 2, n, 0.25, o);
  double phi[16] = {0}, d[2];
  CHECK(tide_liu_distances(&g, phi, 3, 2, x, d) == TIDE_EINVAL, "bad interp rejected");
  CHECK(tide_liu_distances(&g, phi, 1, 2, x, d) == TIDE_ENONFINITE, "NaN vertex rejected");
  CHECK(tide_liu_distances(&g, phi, 2, 1, x, d) == TIDE_OK && d[0] == 0, "one vertex");
  return check_report();
}
