/* test_mg_poisson.c -- the MAC-grid Poisson problem and its grid solvers:
 * matrix-free operator == assembled CSR, MGPCG / MIC(0) / CG on problems
 * with known solutions (Dirichlet ring, ghost-fluid free surface, Neumann
 * solids, sphere obstacle, closed container), iteration counts and
 * thread-count independence. */
#include "check.h"
#include "linalg/mgpcg.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

typedef struct prob {
  tide_grid g;
  uint8_t *lab;
  double *w[3], *th[3];
  tide_mac_poisson P;
} prob;

static prob prob_new(int dim, int ni, int nj, int nk, double dx) {
  prob p;
  memset(&p, 0, sizeof p);
  p.g.dim = dim;
  p.g.n[0] = ni;
  p.g.n[1] = nj;
  p.g.n[2] = dim == 3 ? nk : 1;
  p.g.dx = dx;
  p.lab = calloc((size_t)tide_grid_ncells(&p.g), 1);
  p.P = tide_mac_poisson_make(&p.g, p.lab);
  return p;
}

static void prob_faces(prob *p, int weights, int theta) {
  for (int a = 0; a < p->g.dim; a++) {
    int d[3];
    tide_grid_face_dims(&p->g, a, d);
    size_t nf = (size_t)d[0] * d[1] * d[2];
    if (weights) {
      p->w[a] = malloc(nf * sizeof(double));
      for (size_t f = 0; f < nf; f++)
        p->w[a][f] = 0.2 + 0.8 * tide_rand01(10 + a, f);
      p->P.weight[a] = p->w[a];
    }
    if (theta) {
      p->th[a] = malloc(nf * sizeof(double));
      for (size_t f = 0; f < nf; f++)
        p->th[a][f] = 0.05 + 0.95 * tide_rand01(20 + a, f);
      p->P.theta[a] = p->th[a];
    }
  }
}

static void prob_free(prob *p) {
  free(p->lab);
  for (int a = 0; a < 3; a++)
    free(p->w[a]), free(p->th[a]);
}

static int64_t ncells(const prob *p) { return tide_grid_ncells(&p->g); }

/* pool: solid walls (one layer), liquid below height frac of the box, air
 * above; optional sphere obstacle of radius r (fraction of the box) at c */
static void label_pool(prob *p, double frac, double r, const double *ctr) {
  const tide_grid *g = &p->g;
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        int wall =
            i == 0 || i == g->n[0] - 1 || j == 0 || (g->dim == 3 && (k == 0 || k == g->n[2] - 1));
        double x = (i + 0.5) / g->n[0], y = (j + 0.5) / g->n[1], z = (k + 0.5) / g->n[2];
        double d2 = (x - ctr[0]) * (x - ctr[0]) + (y - ctr[1]) * (y - ctr[1]) +
                    (g->dim == 3 ? (z - ctr[2]) * (z - ctr[2]) : 0);
        if (wall || (r > 0 && d2 < r * r))
          p->lab[c] = TIDE_CELL_SOLID;
        else
          p->lab[c] = y < frac ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
      }
}

static double maxabs_diff(int64_t n, const double *a, const double *b) {
  double m = 0;
  for (int64_t i = 0; i < n; i++)
    m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static double maxabs(int64_t n, const double *a) {
  double m = 0;
  for (int64_t i = 0; i < n; i++)
    m = fmax(m, fabs(a[i]));
  return m;
}

/* ||b - A x|| / ||b|| over liquid cells, with the matrix-free operator */
static double relres(const prob *p, const double *b, const double *x) {
  int64_t n = ncells(p);
  double *y = malloc((size_t)n * sizeof(double));
  tide_mac_poisson_apply(&p->P, x, y);
  double rr = 0, bb = 0;
  for (int64_t c = 0; c < n; c++)
    if (p->lab[c] == TIDE_CELL_LIQUID) rr += (b[c] - y[c]) * (b[c] - y[c]), bb += b[c] * b[c];
  free(y);
  return sqrt(rr / bb);
}

/* ------------------------------------------------ operator == matrix */

static void test_assembled(int dim, int weights, int theta) {
  int n = dim == 3 ? 9 : 23;
  prob p = prob_new(dim, n, n + 2, n + 1, 0.1);
  const double ctr[3] = {0.5, 0.45, 0.5};
  label_pool(&p, 0.7, 0.2, ctr);
  /* sprinkle air and solid cells to make the pattern irregular */
  for (int64_t c = 0; c < ncells(&p); c++) {
    double u = tide_rand01(3, c);
    if (u < 0.08)
      p.lab[c] = TIDE_CELL_AIR;
    else if (u < 0.12)
      p.lab[c] = TIDE_CELL_SOLID;
  }
  prob_faces(&p, weights, theta);
  int64_t nc = ncells(&p);
  int *rowof = malloc((size_t)nc * sizeof(int)), m = 0;
  CHECK(tide_mac_poisson_number(&p.P, rowof, &m) == TIDE_OK, "number");
  for (int stype = TIDE_CSR_GENERAL; stype <= TIDE_CSR_UPPER; stype++) {
    tide_csr *A = NULL;
    int st = tide_mac_poisson_assemble(&p.P, rowof, m, stype, &A);
    CHECK(st == TIDE_OK, "assemble: %s", tide_errmsg());
    if (st) continue;
    double asym = -1;
    if (stype == TIDE_CSR_GENERAL) {
      tide_csr_asymmetry(A, &asym);
      CHECK(asym == 0, "assembled matrix symmetric (asymmetry %g)", asym);
    }
    double *x = malloc((size_t)nc * sizeof(double)), *y = malloc((size_t)nc * sizeof(double));
    double *xs = malloc((size_t)m * sizeof(double)), *ys = malloc((size_t)m * sizeof(double));
    for (int64_t c = 0; c < nc; c++) {
      x[c] = tide_rand01(7, c) - 0.5;
      if (rowof[c] >= 0) xs[rowof[c]] = x[c];
    }
    tide_mac_poisson_apply(&p.P, x, y);
    tide_csr_mul(A, xs, ys);
    double err = 0, mag = 0;
    for (int64_t c = 0; c < nc; c++) {
      if (rowof[c] >= 0) {
        err = fmax(err, fabs(y[c] - ys[rowof[c]]));
        mag = fmax(mag, fabs(y[c]));
      } else {
        CHECK(y[c] == 0, "apply is 0 at non-liquid cells");
      }
    }
    CHECK(err <= 1e-12 * mag, "%dD w=%d th=%d stype=%d: matrix-free == assembled (%g of %g)", dim,
          weights, theta, stype, err, mag);
    free(x), free(y), free(xs), free(ys);
    tide_csr_free(A);
  }
  free(rowof);
  prob_free(&p);
}

/* the solver's internal operator equals tide_mac_poisson_apply: one CG
 * iteration from x0 = 0 on b = e_c gives x proportional to b */
static void test_solver_operator(int dim, int weights, int theta) {
  int n = dim == 3 ? 12 : 40;
  prob p = prob_new(dim, n, n, n, 0.05);
  const double ctr[3] = {0.5, 0.4, 0.5};
  label_pool(&p, 0.8, 0.2, ctr);
  prob_faces(&p, weights, theta);
  int64_t nc = ncells(&p);
  double *xe = malloc((size_t)nc * sizeof(double)), *b = malloc((size_t)nc * sizeof(double)),
         *x = malloc((size_t)nc * sizeof(double));
  for (int64_t c = 0; c < nc; c++)
    xe[c] = p.lab[c] == TIDE_CELL_LIQUID ? sin(0.1 * c) + 0.3 : 0;
  tide_mac_poisson_apply(&p.P, xe, b);
  for (int method = 0; method < 3; method++) {
    tide_mac_solver_opts so = tide_mac_solver_opts_default();
    so.method = method;
    tide_solve_opts o = tide_solve_opts_default();
    o.tol = 1e-10;
    tide_solve_stats st;
    memset(x, 0, (size_t)nc * sizeof(double));
    int s = tide_mac_solve(&p.P, &so, b, x, &o, &st);
    CHECK(s == TIDE_OK, "%s: %s", tide_mac_method_name(method), tide_errmsg());
    double rr = relres(&p, b, x), err = maxabs_diff(nc, x, xe);
    CHECK(rr <= 1.01e-10, "%dD %s w=%d th=%d: true residual %g", dim, tide_mac_method_name(method),
          weights, theta, rr);
    CHECK(err <= 1e-6, "%dD %s w=%d th=%d: solution error %g (%d iterations)", dim,
          tide_mac_method_name(method), weights, theta, err, st.iterations);
  }
  free(xe), free(b), free(x);
  prob_free(&p);
}

/* ------------------------------------------------ analytic solutions */

/* 2D/3D: -lap p = f on the unit box with p = 0 on its boundary, the boundary
 * at the centres of a ring of air cells; p = prod sin(pi x_a). */
static double dirichlet_error(int dim, int n, int method, int *iters) {
  int m = n + 2;
  double h = 1.0 / (n + 1);
  prob p = prob_new(dim, m, m, m, h);
  int64_t nc = ncells(&p);
  double *b = calloc((size_t)nc, sizeof(double)), *x = calloc((size_t)nc, sizeof(double));
  double *pe = calloc((size_t)nc, sizeof(double));
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < (dim == 3 ? m : 1); k++) {
        int64_t c = tide_grid_idx(&p.g, i, j, k);
        int edge =
            i == 0 || j == 0 || i == m - 1 || j == m - 1 || (dim == 3 && (k == 0 || k == m - 1));
        p.lab[c] = edge ? TIDE_CELL_AIR : TIDE_CELL_LIQUID;
        double s = sin(PI * i * h) * sin(PI * j * h) * (dim == 3 ? sin(PI * k * h) : 1);
        pe[c] = edge ? 0 : s;
        b[c] = edge ? 0 : dim * PI * PI * s;
      }
  tide_mac_solver_opts so = tide_mac_solver_opts_default();
  so.method = method;
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-10;
  tide_solve_stats st;
  int s = tide_mac_solve(&p.P, &so, b, x, &o, &st);
  CHECK(s == TIDE_OK, "dirichlet solve: %s", tide_errmsg());
  *iters = st.iterations;
  double err = maxabs_diff(nc, x, pe);
  free(b), free(x), free(pe);
  prob_free(&p);
  return err;
}

/* Ghost-fluid free surface: a liquid column (2D, periodic-free: walls left
 * and right are Neumann) with the surface at height H between cell centres;
 * -p'' = 1, p(H) = 0, p'(0) = 0  =>  p = (H^2 - y^2) / 2.  With theta the
 * discretization is second-order; the plain voxel surface (theta = 1) puts
 * the surface at the air cell centre and errs by O(h). */
static double freesurface_error(int n, int use_theta, int method) {
  double h = 1.0 / n, H = 0.63;
  prob p = prob_new(2, 4, n + 1, 1, h); /* a floor of solid cells: row j = 0 */
  int64_t nc = ncells(&p);
  int d[3];
  tide_grid_face_dims(&p.g, 1, d);
  double *thv = malloc((size_t)d[0] * d[1] * sizeof(double));
  for (int i = 0; i < d[0] * d[1]; i++)
    thv[i] = 1;
  double *b = calloc((size_t)nc, sizeof(double)), *x = calloc((size_t)nc, sizeof(double));
  double *pe = calloc((size_t)nc, sizeof(double));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j <= n; j++) {
      int64_t c = tide_grid_idx(&p.g, i, j, 0);
      double y = (j - 0.5) * h; /* the floor is the face y = 0 between rows 0 and 1 */
      if (j == 0) {
        p.lab[c] = TIDE_CELL_SOLID;
        continue;
      }
      p.lab[c] = y < H ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
      if (y < H) {
        b[c] = 1;
        pe[c] = 0.5 * (H * H - y * y);
        if (y + h >= H) thv[tide_grid_fidx(&p.g, 1, i, j + 1, 0)] = (H - y) / h;
      }
    }
  if (use_theta) p.P.theta[1] = thv;
  tide_mac_solver_opts so = tide_mac_solver_opts_default();
  so.method = method;
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-12;
  tide_solve_stats st;
  int s = tide_mac_solve(&p.P, &so, b, x, &o, &st);
  CHECK(s == TIDE_OK, "free-surface solve: %s", tide_errmsg());
  double err = maxabs_diff(nc, x, pe);
  free(b), free(x), free(pe), free(thv);
  prob_free(&p);
  return err;
}

/* ---------------------------------------- pools, sphere, determinism */

typedef struct runres {
  int it;
  double res, err;
  int status;
} runres;

/* Discrete manufactured solution on a pool with an optional sphere: b = A pe,
 * solve to tol with the given threads, return iterations and errors. */
static runres pool_run(int dim, int n, double sphere, int method, double tol, int threads,
                       double *xout) {
  prob p = prob_new(dim, n, n, n, 1.0 / n);
  const double ctr[3] = {0.5, 0.3, 0.5};
  label_pool(&p, 0.5, sphere, ctr);
  int64_t nc = ncells(&p);
  double *pe = malloc((size_t)nc * sizeof(double)), *b = malloc((size_t)nc * sizeof(double));
  double *x = xout ? xout : malloc((size_t)nc * sizeof(double));
  for (int64_t c = 0; c < nc; c++)
    pe[c] = p.lab[c] == TIDE_CELL_LIQUID ? tide_rand01(5, c) : 0;
  tide_mac_poisson_apply(&p.P, pe, b);
  memset(x, 0, (size_t)nc * sizeof(double));
  tide_mac_solver_opts so = tide_mac_solver_opts_default();
  so.method = method;
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = tol;
  tide_solve_stats st;
  int nt = omp_get_max_threads();
  omp_set_num_threads(threads);
  runres r;
  r.status = tide_mac_solve(&p.P, &so, b, x, &o, &st);
  omp_set_num_threads(nt);
  r.it = st.iterations;
  r.res = relres(&p, b, x);
  r.err = maxabs_diff(nc, x, pe);
  free(pe), free(b);
  if (!xout) free(x);
  prob_free(&p);
  return r;
}

/* Cut cells: a sphere obstacle with fractional face weights and a
 * ghost-fluid free surface; the grid solvers and CHOLMOD on the assembled
 * matrix give the same pressure. */
static int test_cutcell_vs_cholmod(int dim, int n) {
  int mg_iters = -1;
  prob p = prob_new(dim, n, n, n, 1.0 / n);
  const tide_grid *g = &p.g;
  const double ctr[3] = {0.5, 0.35, 0.5}, R = 0.2, H = 0.61;
  /* solid where the cell centre is inside the sphere or in the walls */
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double x = (i + 0.5) / n, y = (j + 0.5) / n, z = (k + 0.5) / n;
        double d = sqrt((x - ctr[0]) * (x - ctr[0]) + (y - ctr[1]) * (y - ctr[1]) +
                        (dim == 3 ? (z - ctr[2]) * (z - ctr[2]) : 0));
        int wall = i == 0 || i == n - 1 || j == 0 || (dim == 3 && (k == 0 || k == n - 1));
        p.lab[tide_grid_idx(g, i, j, k)] = wall || d < R ? TIDE_CELL_SOLID
                                           : y < H       ? TIDE_CELL_LIQUID
                                                         : TIDE_CELL_AIR;
      }
  /* open fraction of each face from the sphere's distance at the face centre,
   * theta from the surface height */
  prob_faces(&p, 1, 1);
  for (int a = 0; a < dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    for (int i = 0; i < d[0]; i++)
      for (int j = 0; j < d[1]; j++)
        for (int k = 0; k < d[2]; k++) {
          double f[3] = {(i + 0.5) / n, (j + 0.5) / n, (k + 0.5) / n};
          f[a] -= 0.5 / n;
          double dist = sqrt((f[0] - ctr[0]) * (f[0] - ctr[0]) + (f[1] - ctr[1]) * (f[1] - ctr[1]) +
                             (dim == 3 ? (f[2] - ctr[2]) * (f[2] - ctr[2]) : 0)) -
                        R;
          double w = 0.5 + dist * n;
          int64_t fi = tide_grid_fidx(g, a, i, j, k);
          p.w[a][fi] = w < 0.05 ? 0.05 : w > 1 ? 1 : w;
          double ylo = (j - 0.5) / n; /* centre of the cell below a v face */
          p.th[a][fi] = a == 1 ? (H - ylo) * n : 1;
        }
  }
  int64_t nc = ncells(&p);
  double *b = malloc((size_t)nc * sizeof(double)), *x = calloc((size_t)nc, sizeof(double));
  for (int64_t c = 0; c < nc; c++)
    b[c] = p.lab[c] == TIDE_CELL_LIQUID ? tide_rand01(9, c) - 0.3 : 0;
  int *rowof = malloc((size_t)nc * sizeof(int)), m;
  tide_mac_poisson_number(&p.P, rowof, &m);
  tide_csr *A = NULL;
  CHECK(tide_mac_poisson_assemble(&p.P, rowof, m, TIDE_CSR_UPPER, &A) == TIDE_OK, "assemble");
  double *bs = malloc((size_t)m * sizeof(double)), *xs = malloc((size_t)m * sizeof(double));
  for (int64_t c = 0; c < nc; c++)
    if (rowof[c] >= 0) bs[rowof[c]] = b[c];
  int st = tide_solve_direct(A, TIDE_FACTOR_CHOLESKY, bs, xs);
  CHECK(st == TIDE_OK, "CHOLMOD: %s", tide_errmsg());
  double xmax = 0;
  for (int r = 0; r < m; r++)
    xmax = fmax(xmax, fabs(xs[r]));
  for (int method = 0; method < 2; method++) {
    tide_mac_solver_opts so = tide_mac_solver_opts_default();
    so.method = method;
    tide_solve_opts o = tide_solve_opts_default();
    o.tol = 1e-12;
    tide_solve_stats ss;
    st = tide_mac_solve(&p.P, &so, b, x, &o, &ss);
    CHECK(st == TIDE_OK, "cut-cell %s: %s", tide_mac_method_name(method), tide_errmsg());
    double err = 0;
    for (int64_t c = 0; c < nc; c++)
      if (rowof[c] >= 0) err = fmax(err, fabs(x[c] - xs[rowof[c]]));
    printf("cut cells %dD %d: %s %d iterations, |x - x_cholmod| / |x| = %.2g\n", dim, n,
           tide_mac_method_name(method), ss.iterations, err / xmax);
    CHECK(err <= 1e-8 * xmax, "%dD cut cells: %s matches CHOLMOD (%g)", dim,
          tide_mac_method_name(method), err / xmax);
    if (method == TIDE_MAC_MGPCG) {
      CHECK(ss.iterations <= (dim == 2 ? 30 : 25), "%dD %d cut cells: MGPCG iterations %d", dim, n,
            ss.iterations);
      mg_iters = ss.iterations;
    }
  }
  tide_csr_free(A);
  free(b), free(x), free(rowof), free(bs), free(xs);
  prob_free(&p);
  return mg_iters;
}

/* tide_mac_poisson_theta against its definition, face by face, on random
 * labels and level set (3D rows and the 2D path) */
static void test_theta(int dim) {
  prob p = prob_new(dim, 13, 11, 9, 0.1);
  const tide_grid *g = &p.g;
  int64_t nc = ncells(&p);
  double *phi = malloc((size_t)nc * sizeof(double));
  for (int64_t c = 0; c < nc; c++) {
    double r = tide_rand01(30, c);
    p.lab[c] = r < 0.45 ? TIDE_CELL_LIQUID : r < 0.9 ? TIDE_CELL_AIR : TIDE_CELL_SOLID;
    phi[c] = (p.lab[c] == TIDE_CELL_LIQUID ? -1 : 1) * tide_rand01(31, c) + 0.2 * (tide_rand01(32, c) - 0.5);
  }
  double *th[3] = {NULL, NULL, NULL};
  for (int a = 0; a < dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    th[a] = malloc((size_t)d[0] * d[1] * d[2] * sizeof(double));
  }
  CHECK(tide_mac_poisson_theta(g, p.lab, phi, th) == TIDE_OK, "theta");
  int bad = 0, cut = 0;
  for (int a = 0; a < dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    for (int i = 0; i < d[0]; i++)
      for (int j = 0; j < d[1]; j++)
        for (int k = 0; k < d[2]; k++) {
          int q[3] = {i, j, k};
          double t = 1;
          if (q[a] > 0 && q[a] < g->n[a]) {
            int64_t hi = tide_grid_idx(g, i, j, k);
            q[a]--;
            int64_t lo = tide_grid_idx(g, q[0], q[1], q[2]), cl = -1, ca = -1;
            if (p.lab[lo] == TIDE_CELL_LIQUID && p.lab[hi] == TIDE_CELL_AIR) cl = lo, ca = hi;
            if (p.lab[hi] == TIDE_CELL_LIQUID && p.lab[lo] == TIDE_CELL_AIR) cl = hi, ca = lo;
            if (cl >= 0 && phi[cl] <= 0 && phi[ca] > 0) t = phi[cl] / (phi[cl] - phi[ca]), cut++;
          }
          bad += th[a][tide_grid_fidx(g, a, i, j, k)] != t;
        }
  }
  CHECK(bad == 0 && cut > 20, "%dD theta matches its definition (%d faces differ, %d cut)", dim, bad,
        cut);
  for (int a = 0; a < 3; a++)
    free(th[a]);
  free(phi);
  prob_free(&p);
}

/* A baffle thinner than a cell, present only in the face weights (closed
 * x faces above a gap at the bottom, liquid on both sides): the coarse
 * levels must see it through their coarsened face fractions, and the cells
 * next to it are smoothed with the boundary band.  Returns the MGPCG
 * iterations to tol; checks the solution against CHOLMOD and the thread-count
 * independence. */
static int baffle_run(int dim, int n, int face, double tol) {
  prob p = prob_new(dim, n, n, n, 1.0 / n);
  const tide_grid *g = &p.g;
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++)
        p.lab[tide_grid_idx(g, i, j, k)] =
            (j + 0.5) / n < 0.6 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
  prob_faces(&p, 1, 0);
  for (int a = 0; a < dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    for (int i = 0; i < d[0]; i++)
      for (int j = 0; j < d[1]; j++)
        for (int k = 0; k < d[2]; k++)
          p.w[a][tide_grid_fidx(g, a, i, j, k)] =
              a == 0 && i == face && (j + 0.5) / n > 0.15 ? 0.0 : 1.0;
  }
  int64_t nc = ncells(&p);
  double *b = malloc((size_t)nc * sizeof(double)), *x1 = calloc((size_t)nc, sizeof(double)),
         *x2 = calloc((size_t)nc, sizeof(double));
  for (int64_t c = 0; c < nc; c++)
    b[c] = p.lab[c] == TIDE_CELL_LIQUID ? tide_rand01(12, c) - 0.5 : 0;
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = tol;
  tide_solve_stats s1, s2;
  omp_set_num_threads(1);
  int st1 = tide_mac_solve(&p.P, NULL, b, x1, &o, &s1);
  omp_set_num_threads(2);
  int st2 = tide_mac_solve(&p.P, NULL, b, x2, &o, &s2);
  omp_set_num_threads(1);
  CHECK(st1 == TIDE_OK && st2 == TIDE_OK && relres(&p, b, x1) <= 1.01 * tol,
        "%dD baffle at face %d converges", dim, face);
  CHECK(memcmp(x1, x2, (size_t)nc * sizeof(double)) == 0, "%dD baffle: 1 == 2 threads", dim);
  /* against CHOLMOD on the assembled matrix */
  int *rowof = malloc((size_t)nc * sizeof(int)), m;
  tide_mac_poisson_number(&p.P, rowof, &m);
  tide_csr *A = NULL;
  CHECK(tide_mac_poisson_assemble(&p.P, rowof, m, TIDE_CSR_UPPER, &A) == TIDE_OK, "assemble");
  double *bs = malloc((size_t)m * sizeof(double)), *xs = malloc((size_t)m * sizeof(double));
  for (int64_t c = 0; c < nc; c++)
    if (rowof[c] >= 0) bs[rowof[c]] = b[c];
  CHECK(tide_solve_direct(A, TIDE_FACTOR_CHOLESKY, bs, xs) == TIDE_OK, "CHOLMOD");
  double err = 0, xmax = 0;
  for (int64_t c = 0; c < nc; c++)
    if (rowof[c] >= 0) {
      err = fmax(err, fabs(x1[c] - xs[rowof[c]]));
      xmax = fmax(xmax, fabs(xs[rowof[c]]));
    }
  CHECK(err <= 1e3 * tol * xmax, "%dD baffle: matches CHOLMOD (%g)", dim, err / xmax);
  tide_csr_free(A);
  free(b), free(x1), free(x2), free(rowof), free(bs), free(xs);
  prob_free(&p);
  return s1.iterations;
}

/* Closed container (pure Neumann) region next to a grounded one: the
 * floating region's pressure is defined up to a constant; b is projected and
 * x has zero mean there. */
static void test_floating(int method) {
  int n = 64;
  prob p = prob_new(2, n, n, 1, 1.0 / n);
  const tide_grid *g = &p.g;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int wall = i == 0 || i == n - 1 || j == 0 || j == n - 1 || i == n / 2;
      p.lab[tide_grid_idx(g, i, j, 0)] = wall                           ? TIDE_CELL_SOLID
                                         : (i < n / 2 && j > 3 * n / 4) ? TIDE_CELL_AIR
                                                                        : TIDE_CELL_LIQUID;
    }
  p.lab[tide_grid_idx(g, n - 5, 4, 0)] = TIDE_CELL_SOLID; /* a little obstacle */
  int64_t nc = ncells(&p);
  double *b = malloc((size_t)nc * sizeof(double)), *x = calloc((size_t)nc, sizeof(double));
  double *bp = malloc((size_t)nc * sizeof(double));
  double mean = 0;
  int cnt = 0;
  for (int64_t c = 0; c < nc; c++) {
    b[c] = p.lab[c] == TIDE_CELL_LIQUID ? tide_rand01(4, c) : 0;
    if (p.lab[c] == TIDE_CELL_LIQUID && c / n > n / 2) mean += b[c], cnt++;
  }
  mean /= cnt;
  for (int64_t c = 0; c < nc; c++)
    bp[c] = b[c] - (p.lab[c] == TIDE_CELL_LIQUID && c / n > n / 2 ? mean : 0);
  tide_mac_solver_opts so = tide_mac_solver_opts_default();
  so.method = method;
  tide_mac_solver *S = NULL;
  CHECK(tide_mac_solver_new(&p.P, &so, &S) == TIDE_OK, "new: %s", tide_errmsg());
  tide_mac_solver_info info;
  tide_mac_solver_info_get(S, &info);
  CHECK(info.floating == 1, "one floating region found (%d)", info.floating);
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-9;
  tide_solve_stats ss;
  int st = tide_mac_solver_solve(S, b, x, &o, &ss);
  CHECK(st == TIDE_OK, "floating %s: %s", tide_mac_method_name(method), tide_errmsg());
  double xm = 0;
  for (int64_t c = 0; c < nc; c++)
    if (p.lab[c] == TIDE_CELL_LIQUID && c / n > n / 2) xm += x[c];
  CHECK(fabs(xm / cnt) < 1e-12, "zero mean in the floating region (%g)", xm / cnt);
  double rr = relres(&p, bp, x);
  CHECK(rr < 1.01e-9, "%s: residual of the projected system %g (%d iterations)",
        tide_mac_method_name(method), rr, ss.iterations);
  /* a new label configuration on the same solver: the chamber gets air */
  for (int j = 3 * n / 4; j < n - 1; j++)
    for (int i = n / 2 + 1; i < n - 1; i++)
      p.lab[tide_grid_idx(g, i, j, 0)] = TIDE_CELL_AIR;
  CHECK(tide_mac_solver_update(S, &p.P) == TIDE_OK, "update");
  tide_mac_solver_info_get(S, &info);
  CHECK(info.floating == 0, "no floating region after the update");
  for (int64_t c = 0; c < nc; c++)
    b[c] = p.lab[c] == TIDE_CELL_LIQUID ? b[c] : 0;
  st = tide_mac_solver_solve(S, b, x, &o, &ss);
  CHECK(st == TIDE_OK && relres(&p, b, x) < 1.01e-9, "solve after update");
  /* an updated solver gives exactly what a fresh one gives */
  double *x2 = calloc((size_t)nc, sizeof(double));
  tide_mac_solve(&p.P, &so, b, x2, &o, &ss);
  CHECK(memcmp(x, x2, (size_t)nc * sizeof(double)) == 0, "%s: update == new",
        tide_mac_method_name(method));
  free(x2);
  tide_mac_solver_free(S);
  free(b), free(x), free(bp);
  prob_free(&p);
}

/* Odd, anisotropic and degenerate extents: random labels, every method
 * reaches the tolerance on the true residual; empty problems give 0. */
static void test_shapes(void) {
  const int shapes[][4] = {{3, 37, 53, 29}, {2, 101, 77, 1}, {3, 40, 30, 1}, {3, 1, 1, 1},
                           {2, 1, 5, 1},    {2, 300, 3, 1},  {3, 5, 70, 9}};
  for (size_t q = 0; q < sizeof shapes / sizeof shapes[0]; q++) {
    prob p = prob_new(shapes[q][0], shapes[q][1], shapes[q][2], shapes[q][3], 0.3);
    int64_t nc = ncells(&p);
    double *b = malloc((size_t)nc * sizeof(double)), *x = malloc((size_t)nc * sizeof(double));
    for (int64_t c = 0; c < nc; c++) {
      double u = tide_rand01(30 + q, c);
      p.lab[c] = u < 0.15 ? TIDE_CELL_AIR : u < 0.25 ? TIDE_CELL_SOLID : TIDE_CELL_LIQUID;
      b[c] = tide_rand01(40 + q, c) - 0.5;
    }
    p.lab[0] = TIDE_CELL_LIQUID;
    for (int method = 0; method < 3; method++) {
      tide_mac_solver_opts so = tide_mac_solver_opts_default();
      so.method = method;
      tide_solve_opts o = tide_solve_opts_default();
      o.tol = 1e-9;
      tide_solve_stats st;
      memset(x, 0, (size_t)nc * sizeof(double));
      int s = tide_mac_solve(&p.P, &so, b, x, &o, &st);
      CHECK(s == TIDE_OK, "shape %d: %s: %s", (int)q, tide_mac_method_name(method), tide_errmsg());
      /* floating regions: compare against the projected rhs via the residual
       * of A x, which has zero mean on each floating region anyway */
      tide_mac_solver *S = NULL;
      tide_mac_solver_new(&p.P, &so, &S);
      tide_mac_solver_info info;
      tide_mac_solver_info_get(S, &info);
      tide_mac_solver_free(S);
      if (info.floating == 0)
        CHECK(relres(&p, b, x) <= 1.01e-9, "shape %d %s: residual %g", (int)q,
              tide_mac_method_name(method), relres(&p, b, x));
      else
        CHECK(st.residual <= 1e-9, "shape %d %s: projected residual %g", (int)q,
              tide_mac_method_name(method), st.residual);
    }
    /* nothing liquid: x = 0 */
    memset(p.lab, TIDE_CELL_AIR, (size_t)nc);
    for (int64_t c = 0; c < nc; c++)
      x[c] = 1;
    tide_solve_stats st;
    CHECK(tide_mac_solve(&p.P, NULL, b, x, NULL, &st) == TIDE_OK && maxabs(nc, x) == 0,
          "no liquid: x = 0");
    free(b), free(x);
    prob_free(&p);
  }
}

/* tide_mac_poisson_assemble_reuse: into a spare with room the same matrix as a fresh assembly
 * (entries bit for bit) in the spare's arrays; a bigger problem grows it (an eighth more room);
 * tide_mem_bytes() returns to its start once all is freed (the row room is freed with it). */
static int same_csr(const tide_csr *A, const tide_csr *B) {
  if (A->nrows != B->nrows || A->ncols != B->ncols || A->stype != B->stype) return 0;
  if (memcmp(A->rowptr, B->rowptr, (size_t)(A->nrows + 1) * sizeof(int))) return 0;
  int64_t nz = tide_csr_nnz(A);
  return !memcmp(A->col, B->col, (size_t)nz * sizeof(int)) &&
         !memcmp(A->val, B->val, (size_t)nz * sizeof(double));
}

static void test_assemble_reuse(void) {
  int64_t mem0 = tide_mem_bytes();
  tide_csr *spare = NULL;
  const double fills[3] = {0.5, 0.4, 0.95};
  for (int t = 0; t < 3; t++) {
    prob p = prob_new(3, 12, 11, 10, 0.1);
    prob_faces(&p, 1, 1);
    int64_t nc = ncells(&p);
    for (int64_t c = 0; c < nc; c++)
      p.lab[c] = tide_rand01(90 + t, c) < fills[t] ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
    int *rowof = malloc((size_t)nc * sizeof(int)), m = 0;
    CHECK(tide_mac_poisson_number(&p.P, rowof, &m) == TIDE_OK, "number");
    tide_csr *A = NULL, *R = NULL;
    CHECK(tide_mac_poisson_assemble(&p.P, rowof, m, TIDE_CSR_GENERAL, &A) == TIDE_OK, "fresh");
    const double *keep = spare ? spare->val : NULL;
    int rows = spare ? (spare->rowcap > spare->nrows ? spare->rowcap : spare->nrows) : 0;
    int room = spare && spare->nzmax >= (int64_t)7 * m && rows >= m;
    CHECK(tide_mac_poisson_assemble_reuse(&p.P, rowof, m, TIDE_CSR_GENERAL, &spare, &R) ==
                  TIDE_OK &&
              !spare,
          "reuse: %s", tide_errmsg());
    CHECK(same_csr(A, R), "step %d: assembled into the spare == fresh", t);
    if (t == 1) CHECK(room && R->val == keep, "a smaller problem reuses the spare's storage");
    if (t == 2) CHECK(!room && R->nzmax > (int64_t)7 * m, "a bigger one grows it, with room");
    if (t == 0) { /* the spare is taken on an error path too (a numbering that does not match) */
      tide_csr *S2 = NULL, *X = NULL;
      CHECK(tide_csr_recycle(&S2, 5, 5, 10, &X) == TIDE_OK && X, "recycle from nothing");
      rowof[0] = rowof[0] >= 0 ? -1 : 0;
      CHECK(tide_mac_poisson_assemble_reuse(&p.P, rowof, m, TIDE_CSR_GENERAL, &X, &S2) ==
                    TIDE_EINVAL &&
                !X && !S2,
            "a bad numbering refused, the spare freed");
    }
    tide_csr_free(A);
    spare = R; /* as a freed system gives its B back */
    free(rowof);
    prob_free(&p);
  }
  tide_csr_free(spare);
  CHECK(tide_mem_bytes() == mem0, "memory returned (%lld bytes left)",
        (long long)(tide_mem_bytes() - mem0));
}

/* tide_mac_solver_precondition_rows on a compact numbering of the liquid cells (as the
 * coupled preconditioner's rows) is tide_mac_solver_precondition bit for bit, scaled and added
 * to z, for every method and floating regions too; the map marks cells the solver does not
 * hold as liquid -1; bad maps, cells and non-finite r are refused.  Its _ex form with fixed
 * rows and assign equals it on the changed r. */
static void test_precondition_rows(int dim) {
  int n = dim == 3 ? 14 : 40;
  prob p = prob_new(dim, n, n, dim == 3 ? n : 1, 1.0 / n);
  prob_faces(&p, 1, 0);
  int64_t nc = ncells(&p);
  for (int64_t c = 0; c < nc; c++) {
    double u = tide_rand01(71 + dim, c);
    p.lab[c] = u < 0.1 ? TIDE_CELL_AIR : u < 0.2 ? TIDE_CELL_SOLID : TIDE_CELL_LIQUID;
  }
  const size_t nb = nc > 0 ? (size_t)nc : 1;
  int *cells = malloc(nb * sizeof(int)), *pad = malloc(nb * sizeof(int));
  double *r = malloc(nb * sizeof(double)), *rc = calloc(nb, sizeof(double));
  double *zc = malloc(nb * sizeof(double)), *z = malloc(nb * sizeof(double));
  /* rows: the liquid cells and, as the coupled rows may, cells the solver holds as solid */
  int m = 0;
  for (int64_t c = nc - 1; c >= 0; c--)
    if (p.lab[c] == TIDE_CELL_LIQUID || c % 17 == 0) cells[m++] = (int)c;
  for (int q = 0; q < m; q++) {
    r[q] = tide_rand01(80 + dim, q) - 0.5;
    if (p.lab[cells[q]] == TIDE_CELL_LIQUID) rc[cells[q]] = r[q];
  }
  for (int method = 0; method < 3; method++) {
    tide_mac_solver_opts so = tide_mac_solver_opts_default();
    so.method = method;
    tide_mac_solver *S = NULL;
    CHECK(tide_mac_solver_new(&p.P, &so, &S) == TIDE_OK, "new: %s", tide_errmsg());
    CHECK(tide_mac_solver_row_map(S, m, cells, pad) == TIDE_OK, "row map: %s", tide_errmsg());
    int held = 0, ok = 1;
    for (int q = 0; q < m; q++) {
      held += pad[q] >= 0;
      ok &= (pad[q] >= 0) == (p.lab[cells[q]] == TIDE_CELL_LIQUID);
    }
    CHECK(ok && held > 0, "%dD: the map holds exactly the liquid cells (%d)", dim, held);
    CHECK(tide_mac_solver_precondition(S, rc, zc) == TIDE_OK, "precondition: %s", tide_errmsg());
    const double c = 0.375;
    for (int q = 0; q < m; q++)
      z[q] = q;
    CHECK(tide_mac_solver_precondition_rows(S, m, pad, r, z, c) == TIDE_OK, "rows: %s",
          tide_errmsg());
    int same = 1;
    for (int q = 0; q < m; q++)
      same &= z[q] == (double)q + (pad[q] >= 0 ? c * zc[cells[q]] : 0.0);
    CHECK(same, "%dD %s: the rows' preconditioner is the cells' bit for bit", dim,
          tide_mac_method_name(method));
    /* _ex: r fixed at every 7th row (and at one row twice over, the last value winning) is the
     * plain call on the changed r; assign overwrites z (0 at rows the solver does not hold) */
    {
      int nfix = 0;
      int *fix = malloc(((size_t)m / 7 + 3) * sizeof(int));
      double *fixv = malloc(((size_t)m / 7 + 3) * sizeof(double));
      double *r2 = malloc((size_t)m * sizeof(double)), *z2 = malloc((size_t)m * sizeof(double));
      memcpy(r2, r, (size_t)m * sizeof(double));
      for (int q = 3; q < m; q += 7) {
        fix[nfix] = q;
        fixv[nfix++] = r2[q] = 2.0 * tide_rand01(90 + dim, q) - 1.0;
      }
      fix[nfix] = 3;
      fixv[nfix++] = r2[3] = 0.125;
      for (int q = 0; q < m; q++)
        z[q] = 0, z2[q] = 1e300;
      CHECK(tide_mac_solver_precondition_rows(S, m, pad, r2, z, c) == TIDE_OK, "changed r");
      CHECK(tide_mac_solver_precondition_rows_ex(S, m, pad, r, nfix, fix, fixv, z2, c, 1) ==
                TIDE_OK,
            "ex: %s", tide_errmsg());
      int eq = 1;
      for (int q = 0; q < m; q++)
        eq &= z2[q] == z[q];
      CHECK(eq, "%dD %s: fixed rows and assign equal the plain call on the changed r", dim,
            tide_mac_method_name(method));
      fix[0] = m;
      CHECK(tide_mac_solver_precondition_rows_ex(S, m, pad, r, nfix, fix, fixv, z2, c, 1) ==
                    TIDE_EINVAL &&
                strstr(tide_errmsg(), "fixed rows outside"),
            "a fixed row outside refused");
      fix[0] = 3;
      int qf = 0;
      while (qf < nfix && pad[fix[qf]] < 0)
        qf++;
      if (qf < nfix) {
        double keepv = fixv[qf];
        fixv[qf] = INFINITY;
        CHECK(tide_mac_solver_precondition_rows_ex(S, m, pad, r, nfix, fix, fixv, z2, c, 1) ==
                  TIDE_ENONFINITE,
              "a non-finite fixed value refused");
        fixv[qf] = keepv;
      }
      free(fix), free(fixv), free(r2), free(z2);
    }
    /* refused: a non-finite r, a map entry outside the grid, a cell outside it */
    int q0 = 0;
    while (pad[q0] < 0)
      q0++;
    double r0 = r[q0];
    r[q0] = NAN;
    CHECK(tide_mac_solver_precondition_rows(S, m, pad, r, z, c) == TIDE_ENONFINITE,
          "non-finite r refused");
    r[q0] = r0;
    int keep = pad[0];
    pad[0] = INT32_MAX;
    CHECK(tide_mac_solver_precondition_rows(S, m, pad, r, z, c) == TIDE_EINVAL &&
              strstr(tide_errmsg(), "outside the grid"),
          "a map entry outside the grid refused");
    pad[0] = keep;
    int cell0 = cells[0];
    cells[0] = (int)nc;
    CHECK(tide_mac_solver_row_map(S, m, cells, pad) == TIDE_EINVAL, "a cell outside refused");
    cells[0] = cell0;
    tide_mac_solver_free(S);
  }
  free(cells), free(pad), free(r), free(rc), free(zc), free(z);
  prob_free(&p);
}

int main(void) {
  /* Most checks run on one thread so the test stays fast on a loaded
   * machine (OpenMP barriers suffer when cores are oversubscribed); the
   * parallel paths are checked against the serial ones bit for bit below. */
  omp_set_num_threads(1);
  test_precondition_rows(2);
  test_precondition_rows(3);
  test_assemble_reuse();
  /* matrix-free == assembled, all coefficient kinds */
  for (int dim = 2; dim <= 3; dim++)
    for (int w = 0; w <= 1; w++)
      for (int t = 0; t <= 1; t++) {
        test_assembled(dim, w, t);
        test_solver_operator(dim, w, t);
      }

  /* Dirichlet: second-order convergence to the analytic solution */
  for (int dim = 2; dim <= 3; dim++) {
    int it1, it2;
    int n1 = dim == 2 ? 31 : 15;
    double e1 = dirichlet_error(dim, n1, TIDE_MAC_MGPCG, &it1);
    double e2 = dirichlet_error(dim, 2 * n1 + 1, TIDE_MAC_MGPCG, &it2);
    printf("dirichlet %dD: err %.3g -> %.3g (ratio %.2f), iterations %d -> %d\n", dim, e1, e2,
           e1 / e2, it1, it2);
    CHECK(e1 / e2 > 3.5 && e1 / e2 < 4.5, "%dD Dirichlet: second order (ratio %g)", dim, e1 / e2);
    CHECK(e2 < 2e-3, "%dD Dirichlet error %g", dim, e2);
    int itm;
    double em = dirichlet_error(dim, n1, TIDE_MAC_MIC0, &itm);
    CHECK(fabs(em - e1) < 1e-8, "%dD Dirichlet: MIC(0) and MGPCG agree (%g vs %g)", dim, em, e1);
  }

  /* ghost-fluid free surface */
  {
    double e1 = freesurface_error(32, 1, TIDE_MAC_MGPCG),
           e2 = freesurface_error(64, 1, TIDE_MAC_MGPCG);
    double v1 = freesurface_error(32, 0, TIDE_MAC_MGPCG),
           v2 = freesurface_error(64, 0, TIDE_MAC_MGPCG);
    double m2 = freesurface_error(64, 1, TIDE_MAC_MIC0);
    printf("free surface: ghost fluid %.3g -> %.3g, voxel %.3g -> %.3g\n", e1, e2, v1, v2);
    CHECK(e2 < 2e-4, "ghost-fluid free surface error %g", e2);
    CHECK(v2 > 10 * e2, "theta improves on the voxel surface (%g vs %g)", v2, e2);
    CHECK(fabs(m2 - e2) < 1e-9, "MIC(0) agrees");
  }

  test_shapes();
  test_theta(2);
  test_theta(3);
  {
    /* the sphere's cut cells at two resolutions (a thin band of fractions: the coarse levels
     * barely matter here, 18 -> 19 / 18 -> 20 with the coarsened fractions, 18 -> 20 / 19 -> 21
     * with unweighted coarse faces) */
    int c2a = test_cutcell_vs_cholmod(2, 96), c2b = test_cutcell_vs_cholmod(2, 192);
    int c3a = test_cutcell_vs_cholmod(3, 24), c3b = test_cutcell_vs_cholmod(3, 48);
    printf("cut cells, MGPCG iterations to 1e-12: 2D 96^2 %d, 192^2 %d; 3D 24^3 %d, 48^3 %d\n", c2a,
           c2b, c3a, c3b);
  }
  {
    /* a baffle in the face weights (inside coarse cells) at two resolutions: with the
     * coarsened fractions 2D 16 -> 21, 3D 13 -> 15 iterations; coarse levels that ignore the
     * weights (coarse faces fully open) took 22 -> 31 and 14 -> 18 */
    int n2[2] = {128, 256}, n3[2] = {16, 32}, b2[2], b3[2];
    for (int q = 0; q < 2; q++)
      b2[q] = baffle_run(2, n2[q], n2[q] / 2 - 3, 1e-8), b3[q] = baffle_run(3, n3[q], n3[q] / 2 - 3, 1e-8);
    printf("baffle inside coarse cells, MGPCG iterations to 1e-8: 2D 128^2 %d, 256^2 %d; 3D 16^3 "
           "%d, 32^3 %d\n",
           b2[0], b2[1], b3[0], b3[1]);
    CHECK(b2[0] <= 18 && b2[1] <= 24 && b3[0] <= 16 && b3[1] <= 17,
          "baffle at two resolutions: MGPCG iterations 2D %d, %d; 3D %d, %d", b2[0], b2[1], b3[0],
          b3[1]);
  }
  {
    /* baffle on a face of every level (index 64 / 16) and inside a coarse cell (odd index):
     * without coarsened fractions and the band next to partly open faces these took
     * 27-32 iterations; with the mean fraction but no series links inside the coarse
     * cells 22 and 18 for the odd faces */
    int i2 = baffle_run(2, 128, 64, 1e-8), i2o = baffle_run(2, 128, 61, 1e-8);
    int i3 = baffle_run(3, 32, 16, 1e-8), i3o = baffle_run(3, 32, 13, 1e-8);
    printf("baffle in the face weights: MGPCG iterations to 1e-8: 2D 128^2 %d (face 64), %d (face "
           "61); 3D 32^3 %d (face 16), %d (face 13)\n",
           i2, i2o, i3, i3o);
    CHECK(i2 <= 16 && i3 <= 16, "baffle on coarse faces: MGPCG iterations %d (2D), %d (3D)", i2, i3);
    CHECK(i2o <= 20 && i3o <= 20, "baffle inside coarse cells: MGPCG iterations %d, %d", i2o, i3o);
  }
  for (int method = 0; method < 3; method++)
    test_floating(method);

  /* pools: iteration counts flat in n for MGPCG */
  {
    runres r2[3], r3[2];
    int n2[3] = {64, 128, 256}, n3[2] = {32, 64};
    for (int q = 0; q < 3; q++) {
      r2[q] = pool_run(2, n2[q], 0.12, TIDE_MAC_MGPCG, 1e-6, 1, NULL);
      printf("2D pool+sphere %d^2: mgpcg %d iterations, res %.2g\n", n2[q], r2[q].it, r2[q].res);
      CHECK(r2[q].status == TIDE_OK && r2[q].res <= 1e-6, "2D pool converged");
    }
    for (int q = 0; q < 2; q++) {
      r3[q] = pool_run(3, n3[q], 0.15, TIDE_MAC_MGPCG, 1e-6, 1, NULL);
      printf("3D pool+sphere %d^3: mgpcg %d iterations, res %.2g\n", n3[q], r3[q].it, r3[q].res);
      CHECK(r3[q].status == TIDE_OK && r3[q].res <= 1e-6, "3D pool converged");
    }
    CHECK(r2[2].it <= r2[0].it + 3, "2D MGPCG iterations flat: %d -> %d", r2[0].it, r2[2].it);
    CHECK(r2[0].it >= 4 && r2[2].it <= 14, "2D MGPCG iterations in range");
    CHECK(r3[0].it >= 4 && r3[1].it <= 14, "3D MGPCG iterations in range");
    CHECK(r3[1].it <= r3[0].it + 3, "3D MGPCG iterations flat: %d -> %d", r3[0].it, r3[1].it);
    runres m = pool_run(3, 32, 0.15, TIDE_MAC_MIC0, 1e-6, 1, NULL);
    runres c = pool_run(3, 32, 0.15, TIDE_MAC_CG, 1e-6, 1, NULL);
    printf("3D pool+sphere 32^3: mic0 %d, cg %d iterations\n", m.it, c.it);
    CHECK(m.status == TIDE_OK && m.res <= 1e-6 && m.it >= 15 && m.it <= 40, "MIC(0) converged");
    CHECK(c.status == TIDE_OK && c.res <= 1e-6 && c.it >= 60 && c.it <= 200, "CG converged");
  }

  /* long pencils (1024 cells) on a flat box: converges, same result on 1 and
   * 2 threads */
  {
    prob p = prob_new(3, 6, 64, 1024, 1.0 / 64);
    const double ctr[3] = {0.5, 0.3, 0.5};
    label_pool(&p, 0.5, 0.2, ctr);
    int64_t nc = ncells(&p);
    double *b = malloc((size_t)nc * sizeof(double)), *x1 = calloc((size_t)nc, sizeof(double)),
           *x2 = calloc((size_t)nc, sizeof(double));
    for (int64_t c = 0; c < nc; c++) b[c] = p.lab[c] == TIDE_CELL_LIQUID ? tide_rand01(8, c) : 0;
    tide_solve_opts o = tide_solve_opts_default();
    o.tol = 1e-8;
    tide_solve_stats s1, s2;
    omp_set_num_threads(1);
    int st1 = tide_mac_solve(&p.P, NULL, b, x1, &o, &s1);
    omp_set_num_threads(2);
    int st2 = tide_mac_solve(&p.P, NULL, b, x2, &o, &s2);
    omp_set_num_threads(1);
    CHECK(st1 == TIDE_OK && st2 == TIDE_OK && relres(&p, b, x1) <= 1.01e-8,
          "long pencils converge (%d iterations)", s1.iterations);
    CHECK(memcmp(x1, x2, (size_t)nc * sizeof(double)) == 0, "long pencils: 1 == 2 threads");
    free(b), free(x1), free(x2);
    prob_free(&p);
  }

  /* Ctrl-C: the solve stops with TIDE_EINTR and the flag can be cleared */
  {
    prob p = prob_new(2, 64, 64, 1, 1.0 / 64);
    const double ctr[3] = {0.5, 0.3, 0.5};
    label_pool(&p, 0.5, 0.1, ctr);
    int64_t nc = ncells(&p);
    double *b = malloc((size_t)nc * sizeof(double)), *x = calloc((size_t)nc, sizeof(double));
    for (int64_t c = 0; c < nc; c++) b[c] = p.lab[c] == TIDE_CELL_LIQUID ? 1 : 0;
    tide_interrupt_flag = 1;
    tide_solve_stats st;
    int s = tide_mac_solve(&p.P, NULL, b, x, NULL, &st);
    CHECK(s == TIDE_EINTR && st.iterations == 0, "interrupted solve returns TIDE_EINTR (%d)", s);
    tide_interrupt_clear();
    CHECK(tide_mac_solve(&p.P, NULL, b, x, NULL, &st) == TIDE_OK, "runs again after clearing");
    free(b), free(x);
    prob_free(&p);
  }

  /* deterministic across thread counts */
  for (int dim = 2; dim <= 3; dim++)
    for (int method = 0; method < 2; method++) {
      int n = dim == 2 ? 256 : 48; /* 3D: band > MG_PAR_MIN / 2, parallel slabs */
      int64_t nc = (int64_t)n * n * (dim == 3 ? n : 1);
      double *x1 = malloc((size_t)nc * sizeof(double)), *x2 = malloc((size_t)nc * sizeof(double));
      runres a = pool_run(dim, n, 0.2, method, 1e-8, 1, x1);
      runres b = pool_run(dim, n, 0.2, method, 1e-8, 2, x2);
      CHECK(a.it == b.it && memcmp(x1, x2, (size_t)nc * sizeof(double)) == 0,
            "%dD %s: bit-identical with 1 and 2 threads", dim, tide_mac_method_name(method));
      free(x1), free(x2);
    }
  return check_report();
}
