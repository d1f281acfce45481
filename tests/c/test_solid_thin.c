/* test_solid_thin.c -- the thin-solid kernels of thin.h against central
 * finite differences: membrane (StVK, neo-Hookean, fixed corotated,
 * neo-Hookean (J-1)^2, rotated linear; stretched, compressed, sheared,
 * rotated out of plane), hinge bending (flat, folded, creased rest angles),
 * rod stretching and bending (2D/3D, straight and curved rest shapes);
 * every gradient and unprojected Hessian to a relative error <= 1e-5,
 * projected Hessians PSD; plus the physical calibration: membrane stress
 * under uniaxial stretch equals the analytic plane-stress value, the hinge
 * energy of a cylindrically bent right-triangle grid is D/2 kappa^2 per
 * area, a rod arc has (EI/2) c^2 per length.  Fixed seeds. */
#include "check.h"
#include "solid/small.h"
#include "solid/thin.h"

#include <stdlib.h>
#include <string.h>

static uint64_t ctr = 0;
static double rnd(void) { return 2 * tide_rand01(4242, ctr++) - 1; } /* [-1, 1) */

static double min_eig(int n, const double *A) {
  double w[36], Q[36 * 36];
  tide_sym_eig(n, A, w, Q);
  return w[n - 1];
}

typedef void (*energy_fn)(void *ctx, const double *x, int project, double *E, double *g,
                          double *H);

/* FD of gradient (from E) and Hessian (from the gradient) at x (n <= 36) */
static void fd_check(energy_fn f, void *ctx, int n, const double *x0, double h, const char *what) {
  double x[36], E, g[36], H[1296], gfd[36], Hfd[1296];
  memcpy(x, x0, sizeof(double) * (size_t)n);
  f(ctx, x, 0, &E, g, H);
  for (int i = 0; i < n; i++) {
    double Ep, Em, gp[36], gm[36];
    x[i] = x0[i] + h;
    f(ctx, x, 0, &Ep, gp, NULL);
    x[i] = x0[i] - h;
    f(ctx, x, 0, &Em, gm, NULL);
    x[i] = x0[i];
    gfd[i] = (Ep - Em) / (2 * h);
    for (int j = 0; j < n; j++) Hfd[j * n + i] = (gp[j] - gm[j]) / (2 * h);
  }
  double eg = check_relerr(n, g, gfd, 1e-12), eH = check_relerr(n * n, H, Hfd, 1e-12);
  if (getenv("VERBOSE")) printf("%s: %.3g %.3g\n", what, eg, eH);
  CHECK(eg <= 1e-5, "%s: gradient rel. error %.3g", what, eg);
  CHECK(eH <= 1e-5, "%s: Hessian rel. error %.3g", what, eH);
  double asym = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) asym = fmax(asym, fabs(H[i * n + j] - H[j * n + i]));
  CHECK(asym <= 1e-9 * (1 + fabs(H[0])), "%s: Hessian symmetric (%.3g)", what, asym);
  double Hp[1296];
  f(ctx, x, 1, NULL, NULL, Hp);
  double scale = 0;
  for (int i = 0; i < n * n; i++) scale = fmax(scale, fabs(Hp[i]));
  CHECK(min_eig(n, Hp) >= -1e-10 * (scale + 1e-300), "%s: projected Hessian PSD (%.3g)", what,
        min_eig(n, Hp));
}

/* ------------------------------------------------------------ membrane */

typedef struct {
  tide_material m;
  double Dminv[4], vol;
} mem_ctx;

static void mem_fn(void *c, const double *x, int project, double *E, double *g, double *H) {
  mem_ctx *m = c;
  tide_shell_membrane(&m->m, x, m->Dminv, m->vol, project, E, g, H);
}

/* random rotation (3x3) from a random unit quaternion */
static void random_rotation(double *R) {
  double q[4], l = 0;
  for (int i = 0; i < 4; i++) {
    q[i] = rnd();
    l += q[i] * q[i];
  }
  l = sqrt(l);
  for (int i = 0; i < 4; i++) q[i] /= l;
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

static void test_membrane(void) {
  int models[] = {TIDE_MODEL_STVK, TIDE_MODEL_NEOHOOKEAN, TIDE_MODEL_FIXED_COROTATED,
                  TIDE_MODEL_NEOHOOKEAN_J, TIDE_MODEL_ROTATED_LINEAR};
  for (int mi = 0; mi < 5; mi++)
    for (int trial = 0; trial < 8; trial++) {
      mem_ctx c;
      double lam, mu;
      tide_lame(2e5, 0.3, &lam, &mu);
      c.m = tide_material_default(models[mi], mu, lam);
      c.m.plane_stress = 1;
      double X[9], x[9], A;
      for (int i = 0; i < 9; i++) X[i] = (i == 3 || i == 7) + 0.3 * rnd();
      CHECK(tide_shell_rest(X, c.Dminv, &A) == TIDE_OK, "rest frame");
      c.vol = 1e-3 * A;
      /* deformed: stretch/compress in plane, then a random rotation */
      double R[9], amp = trial < 4 ? 0.15 : 0.4;
      random_rotation(R);
      for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++) {
          double s = 0;
          for (int k = 0; k < 3; k++) s += R[i * 3 + k] * X[a * 3 + k] * (1 + amp * rnd());
          x[a * 3 + i] = s;
        }
      char what[96];
      snprintf(what, sizeof what, "membrane %s trial %d", tide_model_name(models[mi]), trial);
      fd_check(mem_fn, &c, 9, x, 1e-6, what);
    }
  /* rigid motion: zero energy and force */
  mem_ctx c;
  double lam, mu;
  tide_lame(1e6, 0.4, &lam, &mu);
  c.m = tide_material_default(TIDE_MODEL_NEOHOOKEAN, mu, lam);
  c.m.plane_stress = 1;
  double X[9] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0}, x[9], R[9], A, E, g[9];
  tide_shell_rest(X, c.Dminv, &A);
  c.vol = A * 1e-3;
  CHECK_NEAR(A, 0.4, 1e-15);
  random_rotation(R);
  for (int a = 0; a < 3; a++)
    for (int i = 0; i < 3; i++) {
      x[a * 3 + i] = 0.5;
      for (int k = 0; k < 3; k++) x[a * 3 + i] += R[i * 3 + k] * X[a * 3 + k];
    }
  tide_shell_membrane(&c.m, x, c.Dminv, c.vol, 0, &E, g, NULL);
  CHECK(fabs(E) < 1e-9 && check_relerr(9, g, (double[9]){0}, 1) < 1e-9, "rigid motion: E %g",
        E);
}

/* uniaxial stretch of a unit square patch (two triangles) by s along x,
 * free to contract along y (plane stress): the force on the stretched edge
 * (per unit width, per thickness) against the analytic first
 * Piola-Kirchhoff stress of the model with its transverse stretch found by
 * the same condition P_yy = 0 solved here in closed form for StVK */
static void test_uniaxial(void) {
  double E = 1e6, nu = 0.3, h = 1e-3, lam, mu;
  tide_lame(E, nu, &lam, &mu);
  tide_material m = tide_material_default(TIDE_MODEL_STVK, mu, lam);
  m.plane_stress = 1;
  double s = 1.2;
  /* plane-stress StVK: lam* = 2 lam mu / (lam + 2 mu); S = 2 mu Eg + lam* tr(Eg) I;
   * S_yy = 0 -> Eyy = -lam* Exx / (2 mu + lam*) */
  double ls = 2 * lam * mu / (lam + 2 * mu), Exx = 0.5 * (s * s - 1);
  double Eyy = -ls * Exx / (2 * mu + ls), t = sqrt(1 + 2 * Eyy);
  double Sxx = 2 * mu * Exx + ls * (Exx + Eyy), Pxx = s * Sxx;
  double X[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, Dminv[4], A;
  tide_shell_rest(X, Dminv, &A);
  double x[9] = {0, 0, 0, s, 0, 0, 0, t, 0}, Ev, g[9];
  tide_shell_membrane(&m, x, Dminv, h * A, 0, &Ev, g, NULL);
  /* homogeneous state: the force on node 1 along x is P_xx h (edge share):
   * grad = h A P g, node 1's shape gradient is (1, 0) */
  CHECK(fabs(g[3] / (h * A) - Pxx) < 1e-9 * Pxx, "StVK uniaxial P_xx %.9g vs %.9g", g[3] / (h * A),
        Pxx);
  CHECK(fabs(g[7]) < 1e-9 * Pxx, "StVK uniaxial: no transverse stress (%.3g)", g[7] / (h * A));
  /* the energy density too: psi = mu E:E + (lam* / 2) tr(E)^2 */
  double psi = mu * (Exx * Exx + Eyy * Eyy) + 0.5 * ls * (Exx + Eyy) * (Exx + Eyy);
  CHECK(fabs(Ev / (h * A) - psi) < 1e-9 * psi, "StVK energy %.9g vs %.9g", Ev / (h * A), psi);
}

/* --------------------------------------------------------------- hinge */

typedef struct {
  double theta0, k;
} hinge_ctx;

static void hinge_fn(void *c, const double *x, int project, double *E, double *g, double *H) {
  hinge_ctx *h = c;
  tide_shell_hinge(x, h->theta0, h->k, project, E, g, H);
}

static void test_hinge(void) {
  for (int trial = 0; trial < 24; trial++) {
    /* edge along x, wings at fold angle phi */
    double phi = (trial % 6) * 0.5 - 1.2, x[12];
    double base[12] = {0, 0, 0, 1, 0, 0, 0.4, 0.9, 0, 0.6, -0.8, 0};
    base[10] = -0.8 * cos(phi), base[11] = -0.8 * sin(phi);
    double R[9];
    random_rotation(R);
    for (int a = 0; a < 4; a++)
      for (int i = 0; i < 3; i++) {
        double s = 0.1 * rnd();
        for (int k = 0; k < 3; k++) s += R[i * 3 + k] * (base[a * 3 + k] + 0.1 * rnd());
        x[a * 3 + i] = s;
      }
    hinge_ctx c = {trial < 12 ? 0 : 0.3 * rnd(), 2.5};
    char what[64];
    snprintf(what, sizeof what, "hinge trial %d", trial);
    fd_check(hinge_fn, &c, 12, x, 1e-6, what);
  }
  /* angle sign and value: wing 3 folded by phi about the edge */
  double phi = 0.7, x[12] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -cos(phi), -sin(phi)};
  CHECK_NEAR(fabs(tide_shell_dihedral(x)), phi, 1e-14);
  x[11] = 0;
  x[10] = -1;
  CHECK_NEAR(tide_shell_dihedral(x), 0, 1e-15);
}

/* the hinge energy on a right-triangle grid (squares split by the
 * diagonal (i,j)-(i+1,j+1)) bent into a cylinder of curvature kappa about
 * the y (then the x) axis: sum over interior edges of
 * (D/2) |e0|^2/(A1+A2) theta^2 against D/2 kappa^2 * area */
static void test_hinge_calibration(void) {
  int n = 16;
  double L = 1.0, hgrid = L / n, kappa = 0.8, D = 1.0;
  for (int axis = 0; axis < 2; axis++) {
    double Etot = 0;
    /* interior edges: vertical (i,j)-(i,j+1), horizontal, diagonal */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        for (int kind = 0; kind < 3; kind++) {
          /* nodes of the hinge in grid coordinates (edge p0 p1, wings p2 p3) */
          int p[4][2];
          if (kind == 0) { /* diagonal of square (i,j): (i,j)-(i+1,j+1), wings (i+1,j), (i,j+1) */
            int q[4][2] = {{i, j}, {i + 1, j + 1}, {i, j + 1}, {i + 1, j}};
            memcpy(p, q, sizeof p);
          } else if (kind == 1) { /* vertical edge x = i+1 between squares i and i+1 */
            if (i + 1 >= n) continue;
            int q[4][2] = {{i + 1, j}, {i + 1, j + 1}, {i, j}, {i + 2, j + 1}};
            memcpy(p, q, sizeof p);
          } else { /* horizontal edge y = j+1 */
            if (j + 1 >= n) continue;
            int q[4][2] = {{i + 1, j + 1}, {i, j + 1}, {i + 1, j + 2}, {i, j}};
            memcpy(p, q, sizeof p);
          }
          double x[12], X[12];
          for (int a = 0; a < 4; a++) {
            double u = p[a][0] * hgrid, v = p[a][1] * hgrid;
            X[a * 3] = u, X[a * 3 + 1] = v, X[a * 3 + 2] = 0;
            double s = axis == 0 ? u : v; /* arc-length coordinate */
            double t = axis == 0 ? v : u;
            double px = sin(kappa * s) / kappa, pz = (1 - cos(kappa * s)) / kappa;
            x[a * 3 + (axis == 0 ? 0 : 1)] = px;
            x[a * 3 + (axis == 0 ? 1 : 0)] = t;
            x[a * 3 + 2] = pz;
          }
          double e2 = 0, nA[3], nB[3], e[3], a[3], b[3];
          for (int k = 0; k < 3; k++) {
            e[k] = X[3 + k] - X[k];
            a[k] = X[6 + k] - X[k];
            b[k] = X[9 + k] - X[k];
            e2 += e[k] * e[k];
          }
          tide_cross3(e, a, nA);
          tide_cross3(b, e, nB);
          double A1 = 0.5 * sqrt(nA[0] * nA[0] + nA[1] * nA[1] + nA[2] * nA[2]);
          double A2 = 0.5 * sqrt(nB[0] * nB[0] + nB[1] * nB[1] + nB[2] * nB[2]);
          CHECK(fabs(tide_shell_dihedral(X)) < 1e-14 && nA[2] * nB[2] > 0,
                "hinge %d consistently oriented", kind);
          double Eh;
          tide_shell_hinge(x, 0, 0.5 * D * e2 / (A1 + A2), 0, &Eh, NULL, NULL);
          Etot += Eh;
        }
    /* the interior region carrying the curvature: the hinge energy lives on
     * interior edges; compare per the interior strip width (n-1 columns of
     * vertical edges, each standing for one cell width) */
    double area = L * (L - hgrid), ref = 0.5 * D * kappa * kappa * area;
    double err = (Etot - ref) / ref;
    printf("calib %d err %.4g%%\n", axis, 100 * err);
    CHECK(fabs(err) < 0.01, "hinge calibration axis %d: %.6g vs %.6g (%.3g%%)", axis, Etot, ref,
          100 * err);
  }
}

/* ----------------------------------------------------------------- rods */

typedef struct {
  int d;
  double L0, EA, kbar, k;
} rod_ctx;

static void stretch_fn(void *c, const double *x, int project, double *E, double *g, double *H) {
  rod_ctx *r = c;
  tide_rod_stretch(r->d, x, r->L0, r->EA, project, E, g, H);
}
static void bend_fn(void *c, const double *x, int project, double *E, double *g, double *H) {
  rod_ctx *r = c;
  tide_rod_bend(r->d, x, r->kbar, r->k, project, E, g, H);
}

static void test_rods(void) {
  for (int d = 2; d <= 3; d++)
    for (int trial = 0; trial < 12; trial++) {
      double x[9];
      for (int i = 0; i < 2 * d; i++) x[i] = (i == d) + 0.3 * rnd();
      rod_ctx c = {d, trial % 2 ? 0.8 : 1.3, 50, 0, 0};
      char what[64];
      snprintf(what, sizeof what, "rod stretch %dD trial %d", d, trial);
      fd_check(stretch_fn, &c, 2 * d, x, 1e-6, what);
      /* bends: nearly straight, curved, strongly bent */
      double ang = (trial % 4) * 0.6 + 0.05;
      for (int i = 0; i < 3 * d; i++) x[i] = 0;
      x[d] = 1, x[2 * d] = 1 + cos(ang), x[2 * d + 1] = sin(ang);
      for (int i = 0; i < 3 * d; i++) x[i] += 0.05 * rnd();
      c.k = 3;
      c.kbar = trial < 6 ? 0 : (d == 2 ? 0.7 * rnd() : 0.2 + 0.5 * fabs(rnd()));
      snprintf(what, sizeof what, "rod bend %dD trial %d kbar %.2f", d, trial, c.kbar);
      fd_check(bend_fn, &c, 3 * d, x, 1e-6, what);
    }
  /* a straight rod: curvature 0, zero force */
  double x[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2}, E, g[9];
  tide_rod_bend(3, x, 0, 1, 0, &E, g, NULL);
  CHECK(E == 0 && check_relerr(9, g, (double[9]){0}, 1) == 0, "straight rod: no bending");
  /* calibration: a circular arc of curvature c sampled at spacing s has
   * per interior node (EI / (2s)) (2 tan(c s / 2))^2 -> (EI/2) c^2 s */
  double c = 2.0, s = 0.01, EI = 3.0, th = c * s, pts[9];
  for (int a = 0; a < 3; a++) {
    pts[a * 3] = sin((a - 1) * th) / c;
    pts[a * 3 + 1] = (1 - cos((a - 1) * th)) / c;
    pts[a * 3 + 2] = 0;
  }
  double chord = 2 * sin(th / 2) / c;
  tide_rod_bend(3, pts, 0, EI / (2 * chord), 0, &E, NULL, NULL);
  CHECK(fabs(E / (0.5 * EI * c * c * s) - 1) < 1e-4, "rod arc energy %.8g vs %.8g", E,
        0.5 * EI * c * c * s);
}

/* ------------------------------------------------- bending triangles */

typedef struct {
  double theta0[3], K[9];
} tri_ctx;

static void tri_fn(void *c, const double *x, int project, double *E, double *g, double *H) {
  tri_ctx *t = c;
  tide_shell_bend_triangle(x, t->theta0, t->K, project, E, g, H);
}

/* a flat stencil base (nn nodes, z = 0) with the nodes after the first three
 * folded out of plane by up to zamp, all jittered, rotated and shifted */
static void perturbed_stencil(const double *base, int nn, double zamp, double *x) {
  double R[9];
  random_rotation(R);
  for (int a = 0; a < nn; a++) {
    double z = a >= 3 ? zamp * rnd() : 0;
    for (int i = 0; i < 3; i++) {
      double s = 0.1 * rnd();
      for (int k = 0; k < 3; k++) s += R[i * 3 + k] * (base[a * 3 + k] + (k == 2 ? z : 0) + 0.05 * rnd());
      x[a * 3 + i] = s;
    }
  }
}

/* FD checks of the shape-operator bending of one triangle with three, two
 * and one neighbours, flat and creased rest angles, folded wings */
static void test_bend_triangle_fd(void) {
  for (int trial = 0; trial < 24; trial++) {
    /* triangle (0,0,0) (1,0,0) (0.3,0.9,0); wings across the edges
     * opposite nodes 0, 1, 2, folded out of plane */
    double base[18] = {0, 0, 0, 1, 0, 0, 0.3, 0.9, 0, 1.1, 0.8, 0, -0.4, 0.3, 0, 0.6, -0.7, 0};
    int present = trial < 12 ? 7 : trial < 18 ? 6 : 2;
    double K0[9];
    CHECK(tide_shell_bend_triangle_rest(base, present, 0.3, K0) == TIDE_OK, "bend triangle rest");
    double x[18];
    perturbed_stencil(base, 6, 0.4, x);
    tri_ctx c;
    for (int i = 0; i < 3; i++) c.theta0[i] = trial % 2 ? 0.3 * rnd() : 0;
    for (int i = 0; i < 9; i++) c.K[i] = 1.7 * K0[i];
    char what[64];
    snprintf(what, sizeof what, "bend triangle trial %d (edges %d)", trial, present);
    fd_check(tri_fn, &c, 18, x, 1e-6, what);
  }
}

/* ------------------------------------------------- Morley bending */

typedef struct {
  double theta0[9], K[81];
} morley_ctx;

static void morley_fn(void *c, const double *x, int project, double *E, double *g, double *H) {
  morley_ctx *t = c;
  tide_shell_bend_morley(x, t->theta0, t->K, project, E, g, H);
}

/* FD checks of the Morley bending stencil (the triangle, its three wings,
 * the neighbours' six): all present, a neighbour's wings missing, a whole
 * neighbour missing (a free edge), flat and creased, folded wings */
static void test_bend_morley_fd(void) {
  const double base[36] = {0,    0,   0, 1,    0,    0, 0.3,  0.9,  0, 1.1, 0.8,  0,
                           -0.4, 0.3, 0, 0.6,  -0.7, 0, 1.6,  0.2,  0, 0.8, 1.5,  0,
                           -0.3, 1.1, 0, -0.6, -0.3, 0, -0.2, -0.6, 0, 1.3, -0.6, 0};
  const int presents[4] = {0xff8, 0xff8 & ~(1 << 6) & ~(1 << 9), 0xff8 & ~(1 << 5) & ~(3 << 10),
                           0xff8 & ~(1 << 3) & ~(3 << 6) & ~(1 << 10)};
  for (int trial = 0; trial < 16; trial++) {
    int present = presents[trial / 4];
    double K0[81];
    CHECK(tide_shell_bend_morley_rest(base, present, 0.3, K0) == TIDE_OK, "Morley rest %d", trial);
    double x[36];
    perturbed_stencil(base, 12, 0.3, x);
    morley_ctx c;
    for (int i = 0; i < 9; i++) c.theta0[i] = trial % 2 ? 0.3 * rnd() : 0;
    for (int i = 0; i < 81; i++) c.K[i] = 1.7 * K0[i];
    char what[64];
    snprintf(what, sizeof what, "Morley trial %d (present %#x)", trial, present);
    fd_check(morley_fn, &c, 36, x, 1e-6, what);
  }
}

/* the third node of the triangle (of nt) with edge (u, v) whose third node
 * is not excl; -1 when none */
static int opposite(int (*tri)[3], int nt, int u, int v, int excl) {
  for (int o = 0; o < nt; o++) {
    int hu = -1, hv = -1;
    for (int l = 0; l < 3; l++) {
      if (tri[o][l] == u) hu = l;
      if (tri[o][l] == v) hv = l;
    }
    if (hu >= 0 && hv >= 0 && tri[o][3 - hu - hv] != excl) return tri[o][3 - hu - hv];
  }
  return -1;
}

/* the shape-operator bending on the sheet generator's grids ("same" and
 * "alternate" diagonals, square and 4:1 cells): a height field of constant
 * curvature S0, w = (a x^2 + 2 b x y + c y^2) / 2 with small a, b, c,
 * gives per interior triangle the plate energy
 * (D A / 2) ((1 - nu) S0:S0 + nu tr(S0)^2) (twist included, which the
 * hinges get wrong on these grids); so does the Morley bending of every
 * triangle with a complete 12-node stencil */
static void test_bend_triangle_grid(void) {
  enum { N = 6 };
  const double nu = 0.3, D = 2.0, eps = 1e-4;
  const double S0s[4][3] = {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0.7, -0.4, 0.3}};
  for (int alt = 0; alt < 2; alt++)
    for (int aspect = 1; aspect <= 4; aspect += 3)
      for (int q = 0; q < 4; q++) {
        double hx = 0.1 * aspect, hy = 0.1, a = eps * S0s[q][0], b = eps * S0s[q][1],
               c = eps * S0s[q][2];
        double X[(N + 1) * (N + 1) * 3], x[(N + 1) * (N + 1) * 3];
        int tri[2 * N * N][3], nt = 0;
        for (int i = 0; i <= N; i++)
          for (int j = 0; j <= N; j++) {
            double *p = X + (i * (N + 1) + j) * 3, *r = x + (i * (N + 1) + j) * 3;
            p[0] = r[0] = i * hx;
            p[1] = r[1] = j * hy;
            p[2] = 0;
            r[2] = 0.5 * (a * p[0] * p[0] + 2 * b * p[0] * p[1] + c * p[1] * p[1]);
          }
        for (int i = 0; i < N; i++)
          for (int j = 0; j < N; j++) {
            int n00 = i * (N + 1) + j, n10 = n00 + N + 1, n01 = n00 + 1, n11 = n10 + 1;
            if (!alt || (i + j) % 2 == 0) {
              int t1[3] = {n00, n10, n11}, t2[3] = {n00, n11, n01};
              memcpy(tri[nt++], t1, sizeof t1);
              memcpy(tri[nt++], t2, sizeof t2);
            } else {
              int t1[3] = {n00, n10, n01}, t2[3] = {n10, n11, n01};
              memcpy(tri[nt++], t1, sizeof t1);
              memcpy(tri[nt++], t2, sizeof t2);
            }
          }
        double Etot = 0, Aint = 0, Emor = 0, Amor = 0;
        for (int t = 0; t < nt; t++) {
          /* Morley: where the 12-node stencil is complete */
          int sm[12], ok = 1;
          for (int k = 0; k < 3; k++) sm[k] = tri[t][k];
          for (int k = 0; k < 3 && ok; k++) {
            int u = tri[t][(k + 1) % 3], v = tri[t][(k + 2) % 3];
            sm[3 + k] = opposite(tri, nt, u, v, tri[t][k]);
            ok = sm[3 + k] >= 0;
            if (!ok) break;
            sm[6 + 2 * k] = opposite(tri, nt, u, sm[3 + k], v);
            sm[7 + 2 * k] = opposite(tri, nt, sm[3 + k], v, u);
            ok = sm[6 + 2 * k] >= 0 && sm[7 + 2 * k] >= 0;
          }
          if (ok) {
            double Xm[36], xm[36], Km[81], Em, th9[9] = {0};
            for (int k = 0; k < 12; k++)
              for (int l = 0; l < 3; l++) {
                Xm[k * 3 + l] = X[sm[k] * 3 + l];
                xm[k * 3 + l] = x[sm[k] * 3 + l];
              }
            CHECK(tide_shell_bend_morley_rest(Xm, 0xff8, nu, Km) == TIDE_OK, "Morley grid rest");
            for (int k = 0; k < 81; k++) Km[k] *= D;
            tide_shell_bend_morley(xm, th9, Km, 0, &Em, NULL, NULL);
            Emor += Em;
            Amor += 0.5 * hx * hy;
          }
          /* wings: the third node of the other triangle on each edge */
          int st[6], present = 0;
          for (int k = 0; k < 3; k++) {
            st[k] = tri[t][k];
            st[3 + k] = tri[t][0];
            int u = tri[t][(k + 1) % 3], v = tri[t][(k + 2) % 3];
            for (int o = 0; o < nt; o++) {
              if (o == t) continue;
              int hu = -1, hv = -1;
              for (int l = 0; l < 3; l++) {
                if (tri[o][l] == u) hu = l;
                if (tri[o][l] == v) hv = l;
              }
              if (hu >= 0 && hv >= 0) {
                st[3 + k] = tri[o][3 - hu - hv];
                present |= 1 << k;
              }
            }
          }
          if (present != 7) continue;
          double Xt[18], xs[18], K[9], E, th0[3] = {0, 0, 0};
          for (int k = 0; k < 6; k++)
            for (int l = 0; l < 3; l++) Xt[k * 3 + l] = X[st[k] * 3 + l];
          for (int k = 0; k < 6; k++)
            for (int l = 0; l < 3; l++) xs[k * 3 + l] = x[st[k] * 3 + l];
          tide_shell_bend_triangle_rest(Xt, 7, nu, K);
          for (int k = 0; k < 9; k++) K[k] *= D;
          tide_shell_bend_triangle(xs, th0, K, 0, &E, NULL, NULL);
          Etot += E;
          Aint += 0.5 * hx * hy;
        }
        double tr = a + c, ss = a * a + 2 * b * b + c * c;
        double ref = 0.5 * D * Aint * ((1 - nu) * ss + nu * tr * tr);
        double err = Etot / ref - 1;
        if (getenv("VERBOSE")) printf("bend triangle grid alt %d aspect %d S0 %d: %.3g\n", alt, aspect, q, err);
        CHECK(fabs(err) < 1e-5, "bend triangle grid (alternate %d, aspect %d, S0 %d): %.6g vs %.6g (%.3g)",
              alt, aspect, q, Etot, ref, err);
        double refm = 0.5 * D * Amor * ((1 - nu) * ss + nu * tr * tr), errm = Emor / refm - 1;
        if (getenv("VERBOSE")) printf("Morley grid alt %d aspect %d S0 %d: %.3g\n", alt, aspect, q, errm);
        CHECK(Amor > 0 && fabs(errm) < 1e-5, "Morley grid (alternate %d, aspect %d, S0 %d): %.6g vs %.6g (%.3g)",
              alt, aspect, q, Emor, refm, errm);
      }
}

int main(void) {
  test_membrane();
  test_uniaxial();
  test_hinge();
  test_hinge_calibration();
  test_bend_triangle_fd();
  test_bend_triangle_grid();
  test_bend_morley_fd();
  test_rods();
  return check_report();
}
