/* Fast-marching redistancing (first-order convergence on circles and
 * spheres from non-distance level sets, exact planes, narrow band) and
 * extrapolation along the normal (linear tangential fields reproduced on
 * cells and MAC faces), plus Zarifi's solid constraint. */
#include "check.h"
#include "grid/levelset.h"
#include "grid/sdf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const tide_redistance_opts O1 = {0, 1, TIDE_REDISTANCE_INIT_LINEAR, TIDE_REDISTANCE_FMM, 0, 0};
static const tide_redistance_opts O2 = {0, 2, TIDE_REDISTANCE_INIT_CUBIC, TIDE_REDISTANCE_FMM, 0, 0};

typedef struct {
  double l1, in, out; /* mean |error| over |d| < 0.25; max inside; max outside [m] */
  double shift;       /* max crossing displacement along the grid lines [dx] */
} fmm_err;

enum { DISTORTED, QUADRATIC, DISTANCE };

/* sphere of radius .3 around c: the level set of the given kind */
static double sphere_phi(int kind, int dim, const double *x, const double *c, double r,
                         double *exact) {
  double d2 = 0;
  for (int a = 0; a < dim; a++)
    d2 += (x[a] - c[a]) * (x[a] - c[a]);
  *exact = sqrt(d2) - r;
  if (kind == DISTORTED) return (d2 - r * r) * (2 + sin(7 * x[0]) * cos(5 * x[1]));
  if (kind == QUADRATIC) return d2 - r * r;
  return *exact;
}

/* root in [0, 1] of the cubic through f(-1), f(0), f(1), f(2) (f(0), f(1)
 * of opposite signs): the crossing the height-function curvature uses */
static double cubic_root(const double f[4]) {
  double lo = 0, hi = 1;
  for (int it = 0; it < 60; it++) {
    double t = .5 * (lo + hi);
    double v = -t * (t - 1) * (t - 2) / 6 * f[0] + (t + 1) * (t - 1) * (t - 2) / 2 * f[1] -
               (t + 1) * t * (t - 2) / 2 * f[2] + (t + 1) * t * (t - 1) / 6 * f[3];
    if ((v < 0) == (f[1] < 0))
      lo = t;
    else
      hi = t;
  }
  return .5 * (lo + hi);
}

/* largest displacement [dx] of the crossings between a and b along the grid
 * lines of axis a where the sphere's normal has |n_a| >= 1/2 (the lines the
 * height functions use; a line grazing the sphere has no well-posed root) */
static double crossing_shift(const tide_grid *g, const double *c, const double *a,
                             const double *b) {
  double worst = 0;
  const int64_t st[3] = {(int64_t)g->n[1] * g->n[2], g->n[2], 1};
  for (int ax = 0; ax < g->dim; ax++)
    for (int i = 0; i < g->n[0]; i++)
      for (int j = 0; j < g->n[1]; j++)
        for (int k = 0; k < g->n[2]; k++) {
          int ijk[3] = {i, j, k};
          if (ijk[ax] < 1 || ijk[ax] + 2 >= g->n[ax]) continue;
          int64_t id = tide_grid_idx(g, i, j, k);
          if ((a[id] < 0) == (a[id + st[ax]] < 0)) continue;
          double x[3], r2 = 0;
          tide_grid_center(g, i, j, k, x);
          for (int q = 0; q < g->dim; q++)
            r2 += (x[q] - c[q]) * (x[q] - c[q]);
          if (fabs(x[ax] - c[ax]) < .5 * sqrt(r2)) continue;
          double fa[4], fb[4];
          for (int p = 0; p < 4; p++)
            fa[p] = a[id + (p - 1) * st[ax]], fb[p] = b[id + (p - 1) * st[ax]];
          worst = fmax(worst, fabs(cubic_root(fa) - cubic_root(fb)));
        }
  return worst;
}

/* redistance a circle/sphere level set of the given kind; errors against
 * the exact distance and the crossing displacement */
static fmm_err sphere_error(int dim, int n, int kind, const tide_redistance_opts *o) {
  tide_grid g = {dim, {n, n, dim == 3 ? n : 1}, 1.0 / n, {0, 0, 0}};
  int64_t N = tide_grid_ncells(&g);
  double *phi = malloc(N * sizeof(double)), *ex = malloc(N * sizeof(double));
  double *in = malloc(N * sizeof(double));
  double c[3] = {.51, .48, dim == 3 ? .53 : 0}, r = .3;
  for (int i = 0; i < g.n[0]; i++)
    for (int j = 0; j < g.n[1]; j++)
      for (int k = 0; k < g.n[2]; k++) {
        double x[3];
        tide_grid_center(&g, i, j, k, x);
        int64_t id = tide_grid_idx(&g, i, j, k);
        phi[id] = in[id] = sphere_phi(kind, dim, x, c, r, &ex[id]);
      }
  CHECK(tide_levelset_redistance_ex(&g, phi, o, NULL) == TIDE_OK, "redistance %dD n=%d", dim, n);
  int64_t signs = 0, cnt = 0;
  fmm_err e = {0, 0, 0, 0};
  for (int64_t id = 0; id < N; id++) {
    if ((phi[id] < 0) != (in[id] < 0)) signs++;
    if (fabs(ex[id]) > .25) continue;
    double d = fabs(phi[id] - ex[id]);
    e.l1 += d;
    cnt++;
    if (ex[id] < 0)
      e.in = fmax(e.in, d);
    else
      e.out = fmax(e.out, d);
  }
  e.l1 /= cnt;
  e.shift = crossing_shift(&g, c, in, phi);
  CHECK(signs == 0, "signs kept (%lld changed)", (long long)signs);
  free(phi);
  free(ex);
  free(in);
  return e;
}

/* Orders of accuracy on the distorted circle (|x - c|^2 - r^2)(2 + sin 7x
 * cos 5y), r = 0.3, over |d| < 0.25.  First order + linear interface:
 * outside the circle rate 1 (0.21 dx); inside, where the characteristics
 * converge on the centre, the error in cells grows slowly (0.42 ... 0.62 dx
 * for n = 32 ... 1024), a rate a little below 1.  Second order + cubic
 * interface (measured, n = 64/128/256): mean error 0.0046/0.0026/0.0014 dx
 * (rates 1.83, 1.92), max outside 0.011/0.006/0.003 dx (1.94, 1.94), max
 * inside 0.075/0.051/0.029 dx (rates 1.55, 1.81: the centre again). */
static void test_convergence(void) {
  fmm_err e[3], f[3];
  for (int r = 0; r < 3; r++) {
    e[r] = sphere_error(2, 64 << r, DISTORTED, &O1);
    f[r] = sphere_error(2, 64 << r, DISTORTED, &O2);
  }
  printf("2D distorted circle, errors in dx units (mean / max inside / max outside):\n");
  for (int r = 0; r < 3; r++) {
    double n = 64 << r;
    printf("  n=%4.0f order 1 + linear %.4f / %.3f / %.3f   order 2 + cubic %.4f / %.3f / %.3f\n",
           n, e[r].l1 * n, e[r].in * n, e[r].out * n, f[r].l1 * n, f[r].in * n, f[r].out * n);
    CHECK(e[r].in < .7 / n && e[r].out < .25 / n, "order 1: 2D error within a cell");
    CHECK(f[r].l1 < .006 / n && f[r].in < .1 / n && f[r].out < .015 / n,
          "order 2: 2D errors %g %g %g dx", f[r].l1 * n, f[r].in * n, f[r].out * n);
  }
  for (int r = 0; r < 2; r++) {
    double oi = log2(e[r].in / e[r + 1].in), oo = log2(e[r].out / e[r + 1].out);
    double o1 = log2(e[r].l1 / e[r + 1].l1);
    double pi = log2(f[r].in / f[r + 1].in), po = log2(f[r].out / f[r + 1].out);
    double p1 = log2(f[r].l1 / f[r + 1].l1);
    printf("  orders (mean / inside / outside): order 1 %.2f / %.2f / %.2f, order 2 %.2f / %.2f / "
           "%.2f\n",
           o1, oi, oo, p1, pi, po);
    CHECK(oi > 0.75 && oo > 0.95 && o1 > 0.85 && o1 < 1.2, "2D first-order convergence: %g %g %g",
          o1, oi, oo);
    CHECK(p1 > 1.75 && po > 1.85 && pi > 1.45, "2D second-order convergence: %g %g %g", p1, pi, po);
  }
  fmm_err e3[2], f3[2];
  for (int r = 0; r < 2; r++) {
    e3[r] = sphere_error(3, 32 << r, DISTORTED, &O1);
    f3[r] = sphere_error(3, 32 << r, DISTORTED, &O2);
  }
  printf("3D distorted sphere, dx units: order 1 n=32 %.4f / %.2f / %.2f, 64 %.4f / %.2f / %.2f; "
         "order 2 n=32 %.4f / %.3f / %.3f, 64 %.4f / %.3f / %.3f\n",
         e3[0].l1 * 32, e3[0].in * 32, e3[0].out * 32, e3[1].l1 * 64, e3[1].in * 64, e3[1].out * 64,
         f3[0].l1 * 32, f3[0].in * 32, f3[0].out * 32, f3[1].l1 * 64, f3[1].in * 64,
         f3[1].out * 64);
  double oi = log2(e3[0].in / e3[1].in), oo = log2(e3[0].out / e3[1].out);
  double p1 = log2(f3[0].l1 / f3[1].l1), po = log2(f3[0].out / f3[1].out);
  printf("  3D orders: order 1 inside %.2f outside %.2f; order 2 mean %.2f outside %.2f\n", oi, oo,
         p1, po);
  CHECK(e3[0].in < .9 / 32 && e3[1].in < .9 / 64 && e3[0].out < .4 / 32 && e3[1].out < .4 / 64,
        "3D error within a cell");
  CHECK(oi > 0.65 && oo > 0.9, "3D first-order convergence: %g %g", oi, oo);
  /* measured 0.0083 / 0.0055 dx mean, 0.025 / 0.015 dx outside: rates 1.6, 1.74 */
  CHECK(p1 > 1.45 && po > 1.6, "3D second order: %g %g", p1, po);
  CHECK(f3[1].l1 < .008 / 64 && f3[1].out < .025 / 64, "3D order 2 errors");
}

/* The zero crossings along the grid lines (the cubic roots the height-
 * function curvature uses) before and after redistancing.  Measured on the
 * smooth circle |x - c|^2 - r^2 (r = 9.6 and 19.2 cells): order 2 + cubic
 * moves them by 8.3e-5 / 1.1e-5 dx, order 1 + linear by 1.5e-2 / 9.4e-3 dx;
 * an exact distance: 1.2e-4 / 1.5e-5 dx vs 6.6e-3 / 4.2e-3 dx; the sphere
 * (9.6 cells): 8.4e-5 vs 1.8e-2 dx. */
static void test_interface_shift(void) {
  for (int kind = QUADRATIC; kind <= DISTANCE; kind++)
    for (int n = 32; n <= 64; n *= 2) {
      fmm_err a = sphere_error(2, n, kind, &O1), b = sphere_error(2, n, kind, &O2);
      printf("crossing shift, %s circle n=%d: order 1 + linear %.2e dx, order 2 + cubic %.2e dx\n",
             kind == QUADRATIC ? "|x|^2 - r^2" : "distance", n, a.shift, b.shift);
      CHECK(b.shift < 3e-4 && b.shift < .05 * a.shift, "order 2: interface kept: %g dx (was %g)",
            b.shift, a.shift);
    }
  fmm_err a = sphere_error(3, 32, QUADRATIC, &O1), b = sphere_error(3, 32, QUADRATIC, &O2);
  printf("crossing shift, |x|^2 - r^2 sphere n=32: order 1 %.2e dx, order 2 %.2e dx\n", a.shift,
         b.shift);
  CHECK(b.shift < 3e-4 && b.shift < .05 * a.shift, "3D interface kept: %g dx (was %g)", b.shift,
        a.shift);
}

/* 100 redistancings in a row of a disk of 15 cells radius: the area (cell
 * fractions clamp(1/2 - phi/dx, 0, 1), second order for a distance) and the
 * crossings barely move. */
static void test_repeated(void) {
  const int n = 40;
  tide_grid g = {2, {n, n, 1}, 1.0 / n, {0, 0, 0}};
  int64_t N = tide_grid_ncells(&g);
  double *phi = malloc(N * sizeof(double)), *first = malloc(N * sizeof(double));
  double c[3] = {.503, .489, 0}, r = 15.0 / n, ex;
  tide_advect_work w = {0};
  for (int o = 0; o < 2; o++) {
    const tide_redistance_opts *opt = o ? &O2 : &O1;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double x[3];
        tide_grid_center(&g, i, j, 0, x);
        phi[tide_grid_idx(&g, i, j, 0)] = sphere_phi(DISTANCE, 2, x, c, r, &ex);
      }
    double area[2] = {0, 0};
    int ok = 1;
    for (int it = 0; it < 100; it++) {
      ok &= tide_levelset_redistance_ex(&g, phi, opt, &w) == TIDE_OK;
      if (it == 0) memcpy(first, phi, N * sizeof(double));
    }
    for (int64_t q = 0; q < N; q++) {
      area[0] += fmin(fmax(.5 - first[q] / g.dx, 0), 1);
      area[1] += fmin(fmax(.5 - phi[q] / g.dx, 0), 1);
    }
    double drift = area[1] / area[0] - 1, shift = crossing_shift(&g, c, first, phi);
    printf("100 redistancings, order %d: area %+.4f%%, crossings moved %.2e dx (area of the disk "
           "%+.3f%% off pi r^2)\n",
           opt->order, 100 * drift, shift, 100 * (area[1] * g.dx * g.dx / (M_PI * r * r) - 1));
    CHECK(ok, "redistanced");
    if (o == 1) {
      CHECK(fabs(drift) < 1e-4, "order 2: area drift %g", drift);
      CHECK(shift < 5e-3, "order 2: crossings after 100 redistancings: %g dx", shift);
    }
  }
  tide_advect_work_release(&w);
  free(phi);
  free(first);
}

/* Robustness and determinism: random values (every cell an interface cell,
 * the cubic closest points mostly fail over), a thin sheet one cell thick,
 * the same bits for 1 and 2 threads and with a reused workspace. */
static void test_rough(void) {
  tide_grid g = {3, {20, 18, 16}, .1, {0, 0, 0}};
  int64_t N = tide_grid_ncells(&g);
  double *phi = malloc(N * sizeof(double)), *a = malloc(N * sizeof(double));
  double *b = malloc(N * sizeof(double));
  for (int64_t q = 0; q < N; q++)
    phi[q] = 2 * tide_rand01(7, (uint64_t)q) - 1;
  tide_advect_work w = {0};
  for (int kind = 0; kind < 2; kind++) {
    if (kind == 1) /* a sheet between x = 0.93 and 1.0 (one cell), and a ball */
      for (int i = 0; i < 20; i++)
        for (int j = 0; j < 18; j++)
          for (int k = 0; k < 16; k++) {
            double x[3];
            tide_grid_center(&g, i, j, k, x);
            double s = fabs(x[0] - .965) - .035;
            double ball = sqrt((x[0] - .5) * (x[0] - .5) + (x[1] - .9) * (x[1] - .9) +
                               (x[2] - .8) * (x[2] - .8)) -
                          .31;
            phi[tide_grid_idx(&g, i, j, k)] = fmin(s, ball);
          }
    memcpy(a, phi, N * sizeof(double));
    memcpy(b, phi, N * sizeof(double));
    tide_threads_set(1);
    CHECK(tide_levelset_redistance_ex(&g, a, &O2, NULL) == TIDE_OK, "rough field");
    tide_threads_set(2);
    CHECK(tide_levelset_redistance_ex(&g, b, &O2, &w) == TIDE_OK, "rough field, 2 threads");
    CHECK(memcmp(a, b, N * sizeof(double)) == 0, "same bits for 1 and 2 threads (kind %d)", kind);
    int64_t bad = 0;
    for (int64_t q = 0; q < N; q++)
      bad += !isfinite(a[q]) || (a[q] < 0) != (phi[q] < 0) || fabs(a[q]) > 3;
    CHECK(bad == 0, "finite, signs kept, bounded (%lld bad)", (long long)bad);
    if (kind == 1) {
      /* the sheet's cells (centres x = 0.95, 0.02 from the face at 0.93)
       * away from the ball (y < 0.4) */
      double worst = 0;
      for (int j = 0; j < 4; j++)
        for (int k = 0; k < 16; k++)
          worst = fmax(worst, fabs(a[tide_grid_idx(&g, 9, j, k)] + .02));
      printf("thin sheet: distance of its cells within %.3g dx of 0.2 dx\n", worst / g.dx);
      CHECK(worst < .05 * g.dx, "thin sheet: %g", worst);
    }
  }
  tide_advect_work_release(&w);
  free(phi);
  free(a);
  free(b);
}

static void test_plane_and_band(void) {
  /* axis-aligned plane scaled by 3: recovered exactly */
  tide_grid g = {2, {20, 16, 1}, .1, {-1, -1, 0}};
  int64_t N = tide_grid_ncells(&g);
  double *phi = malloc(N * sizeof(double)), *full = malloc(N * sizeof(double));
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 16; j++) {
      double x[3];
      tide_grid_center(&g, i, j, 0, x);
      phi[tide_grid_idx(&g, i, j, 0)] = 3 * (x[1] - .234);
    }
  tide_levelset_redistance(&g, phi, 0);
  double worst = 0;
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 16; j++) {
      double x[3];
      tide_grid_center(&g, i, j, 0, x);
      worst = fmax(worst, fabs(phi[tide_grid_idx(&g, i, j, 0)] - (x[1] - .234)));
    }
  CHECK(worst < 1e-12, "axis-aligned plane exact: %g", worst);

  /* oblique plane: the interface cells are exact (intercept formula) */
  double nx = .6, ny = .8;
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 16; j++) {
      double x[3];
      tide_grid_center(&g, i, j, 0, x);
      phi[tide_grid_idx(&g, i, j, 0)] = 5 * (nx * x[0] + ny * x[1] - .05);
    }
  memcpy(full, phi, N * sizeof(double));
  tide_levelset_redistance(&g, phi, 0);
  worst = 0;
  double far = 0;
  for (int i = 1; i < 19; i++)
    for (int j = 1; j < 15; j++) {
      int64_t c = tide_grid_idx(&g, i, j, 0);
      double x[3];
      tide_grid_center(&g, i, j, 0, x);
      double d = nx * x[0] + ny * x[1] - .05;
      int iface = (full[c] < 0) != (full[c + 16] < 0) || (full[c] < 0) != (full[c - 16] < 0) ||
                  (full[c] < 0) != (full[c + 1] < 0) || (full[c] < 0) != (full[c - 1] < 0);
      if (iface)
        worst = fmax(worst, fabs(phi[c] - d));
      else
        far = fmax(far, fabs(phi[c] - d));
    }
  CHECK(worst < 1e-12, "oblique plane: interface cells exact %g", worst);
  /* the two-neighbour update is exact for a plane; cells on the domain
   * walls lack an upwind neighbour and take the one-axis update, off by
   * (1 - max_a |n_a|) dx = 0.2 dx, which then propagates */
  CHECK(far < .2 * g.dx + 1e-12, "oblique plane: far cells within 0.2 dx: %g", far / g.dx);

  /* narrow band: same values inside the band, +-band beyond */
  memcpy(full, phi, N * sizeof(double));
  tide_levelset_redistance(&g, full, 0);
  for (int64_t c = 0; c < N; c++)
    phi[c] *= 2.5;
  double band = .35;
  tide_levelset_redistance(&g, phi, band);
  int ok = 1;
  for (int64_t c = 0; c < N; c++) {
    if (fabs(full[c]) <= band)
      ok &= fabs(phi[c] - full[c]) < 1e-12;
    else
      ok &= fabs(phi[c]) == band && (phi[c] < 0) == (full[c] < 0);
  }
  CHECK(ok, "narrow band matches the full march inside, +-band outside");

  /* no interface: unchanged; NaN rejected */
  for (int64_t c = 0; c < N; c++)
    phi[c] = 1 + c;
  tide_levelset_redistance(&g, phi, 0);
  CHECK(phi[7] == 8, "no interface leaves phi");
  phi[3] = NAN;
  CHECK(tide_levelset_redistance(&g, phi, 0) == TIDE_ENONFINITE, "NaN rejected");
  free(phi);
  free(full);
}

static void test_extrapolation(void) {
  /* 3D: planar phi with normal n, q linear along the plane: exact (the
   * outside corner touches only the high domain walls, so every upwind
   * neighbour is in the grid) */
  tide_grid g = {3, {14, 12, 10}, .1, {0, 0, 0}};
  int64_t N = tide_grid_ncells(&g);
  double n[3] = {.48, .6, .64}, t[3] = {.8, -.64, 0}; /* t . n = 0 */
  double *phi = malloc(N * sizeof(double)), *q = malloc(N * sizeof(double));
  uint8_t *valid = malloc(N);
  for (int i = 0; i < 14; i++)
    for (int j = 0; j < 12; j++)
      for (int k = 0; k < 10; k++) {
        double x[3];
        tide_grid_center(&g, i, j, k, x);
        int64_t c = tide_grid_idx(&g, i, j, k);
        phi[c] = n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - 1.45;
        valid[c] = phi[c] < 0;
        q[c] = valid[c] ? 2 + t[0] * x[0] + t[1] * x[1] : -99;
      }
  CHECK(tide_levelset_extrapolate(&g, phi, 1, 0, q, valid) == TIDE_OK, "extrapolate");
  double worst = 0;
  int all = 1;
  for (int i = 0; i < 14; i++)
    for (int j = 0; j < 12; j++)
      for (int k = 0; k < 10; k++) {
        double x[3];
        tide_grid_center(&g, i, j, k, x);
        int64_t c = tide_grid_idx(&g, i, j, k);
        all &= valid[c];
        worst = fmax(worst, fabs(q[c] - (2 + t[0] * x[0] + t[1] * x[1])));
      }
  CHECK(all, "every cell filled");
  CHECK(worst < 1e-12, "linear tangential field reproduced: %g", worst);

  /* maxdist and direction -1: fill the inside from the outside, one band */
  for (int64_t c = 0; c < N; c++)
    valid[c] = phi[c] >= 0, q[c] = valid[c] ? 5 : -1;
  tide_levelset_extrapolate(&g, phi, -1, .15, q, valid);
  int ok = 1;
  for (int64_t c = 0; c < N; c++) {
    if (phi[c] >= 0 || phi[c] >= -.15)
      ok &= valid[c] && q[c] == 5;
    else
      ok &= !valid[c] && q[c] == -1;
  }
  CHECK(ok, "direction -1 with maxdist fills exactly the band");
  CHECK(tide_levelset_extrapolate(&g, phi, 0, 0, q, valid) == TIDE_EINVAL, "bad direction");

  /* MAC: each component linear along a planar interface in 2D */
  tide_grid g2;
  int n2[3] = {16, 12, 1};
  double o2[3] = {0, 0, 0};
  tide_grid_init(&g2, 2, n2, .1, o2);
  tide_mac *m, *v;
  tide_mac_new(&g2, TIDE_F64, &m);
  tide_mac_new(&g2, TIDE_U8, &v);
  double nn[2] = {.6, .8}, tt[2] = {-.8, .6};
  double *phi2 = malloc(16 * 12 * sizeof(double));
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 12; j++) {
      double x[3];
      tide_grid_center(&g2, i, j, 0, x);
      phi2[tide_grid_idx(&g2, i, j, 0)] = nn[0] * x[0] + nn[1] * x[1] - 1.1;
    }
  CHECK(tide_levelset_valid_faces(phi2, v) == TIDE_OK, "valid faces");
  for (int a = 0; a < 2; a++) {
    int fd[3];
    tide_grid_face_dims(&g2, a, fd);
    double *u = TIDE_F64P(m->u[a]);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++) {
        double x[3];
        tide_grid_sample_pos(&g2, TIDE_AT_FACES_X + a, i, j, 0, x);
        int64_t f = (int64_t)i * fd[1] + j;
        u[f] = TIDE_U8P(v->u[a])[f] ? (a + 1) * (tt[0] * x[0] + tt[1] * x[1]) + a : 1e9;
      }
  }
  CHECK(tide_levelset_extrapolate_mac(m, phi2, 1, 0, v) == TIDE_OK, "extrapolate mac");
  worst = 0;
  for (int a = 0; a < 2; a++) {
    int fd[3];
    tide_grid_face_dims(&g2, a, fd);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++) {
        double x[3];
        tide_grid_sample_pos(&g2, TIDE_AT_FACES_X + a, i, j, 0, x);
        double e =
            fabs(TIDE_F64P(m->u[a])[i * fd[1] + j] - ((a + 1) * (tt[0] * x[0] + tt[1] * x[1]) + a));
        worst = fmax(worst, e);
      }
  }
  CHECK(worst < 1e-12, "MAC components reproduced: %g", worst);

  /* Zarifi's constraint: a wall x < 0.55 (solid SDF at nodes), liquid at
   * x > 0.75 moving with (1, 1); after the neighbour-average extrapolation,
   * the faces filled inside the solid lose their normal (x) velocity */
  tide_mac *keep;
  tide_mac_new(&g2, TIDE_U8, &keep);
  for (int a = 0; a < 2; a++) {
    int fd[3];
    tide_grid_face_dims(&g2, a, fd);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++) {
        double x[3];
        tide_grid_sample_pos(&g2, TIDE_AT_FACES_X + a, i, j, 0, x);
        int64_t f = (int64_t)i * fd[1] + j;
        TIDE_U8P(v->u[a])[f] = TIDE_U8P(keep->u[a])[f] = x[0] > .75;
        TIDE_F64P(m->u[a])[f] = x[0] > .75 ? 1 : 0;
      }
  }
  double *sphi = malloc(17 * 13 * sizeof(double));
  for (int i = 0; i <= 16; i++)
    for (int j = 0; j <= 12; j++)
      sphi[i * 13 + j] = i * .1 - .55;
  CHECK(tide_mac_extrapolate(m, v, 10, 0) == TIDE_OK, "neighbour-average extrapolation");
  CHECK(tide_levelset_constrain_mac(m, keep, sphi, TIDE_AT_NODES, NULL) == TIDE_OK, "constrain");
  int okc = 1;
  for (int i = 0; i <= 16; i++)
    for (int j = 0; j < 12; j++) {
      double xu = i * .1, uu = TIDE_F64P(m->u[0])[i * 12 + j];
      okc &= xu < .55 ? fabs(uu) < 1e-12 : uu == 1;
    }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j <= 12; j++)
      okc &= TIDE_F64P(m->u[1])[i * 13 + j] == 1;
  CHECK(okc, "normal velocity zero in the solid, tangential kept");
  tide_mac_free(m);
  tide_mac_free(v);
  tide_mac_free(keep);
  free(sphi);
  free(phi2);
  free(phi);
  free(q);
  free(valid);
}

int main(void) {
  int64_t base = tide_mem_bytes();
  test_convergence();
  test_interface_shift();
  test_repeated();
  test_rough();
  test_plane_and_band();
  test_extrapolation();
  CHECK(tide_mem_bytes() == base, "all memory returned (%lld left)",
        (long long)(tide_mem_bytes() - base));
  return check_report();
}
