/* test_couple_zarifi.c -- Zarifi's coupled projection (couple/zarifi.h):
 * the ghost-fluid gradient G against the liquid divergence and the Poisson
 * matrix (div_A(G p) = -A p); the three formulations (indefinite 5.17, SPD
 * 5.25-5.36, stress-factored 5.37-5.45) with every solver give the same
 * pressure and solid velocities on small 2D and 3D systems (one solid, two
 * solids, pinned nodes); the SPD matrix is symmetric and its Cholesky
 * factorization succeeds; the answer does not depend on the scaling alpha;
 * K = R^T R for the stiffness factor; the projected liquid satisfies the
 * coupled mass balance E u = J v; the multigrid-in-block preconditioner is
 * symmetric positive definite and its PCG gives the same answer. */
#include "check.h"
#include "couple/zarifi.h"
#include "grid/sdf.h"
#include "linalg/mac_poisson.h"
#include "liquid/project.h"
#include "solid/fem.h"
#include "solid/integrate.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 2463534242ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

#define DIE(x)                                                                                     \
  do {                                                                                             \
    if (x) {                                                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, tide_errmsg());                           \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

typedef struct scene {
  tide_grid g;
  tide_mac *u0, *frac;
  tide_array *labels, *phi;
  tide_tetmesh *solids[2];
  double *x0[2], *v0[2];
  int ns;
} scene;

/* liquid below y = level, boxes of solid (cut cells from their SDF), random
 * u* and v*, solids partly submerged; pinned: pin the top nodes of solid 1 */
static void make_scene(scene *S, int d, int n, int ns, int pinned) {
  memset(S, 0, sizeof *S);
  int nn[3] = {n, n, d == 3 ? n : 1};
  double o[3] = {0, 0, 0};
  tide_grid_init(&S->g, d, nn, 1.0 / n, o);
  tide_grid *g = &S->g;
  DIE(tide_mac_new(g, TIDE_F64, &S->u0));
  DIE(tide_mac_new(g, TIDE_F64, &S->frac));
  S->labels = tide_grid_cell_array(g, TIDE_U8);
  S->phi = tide_grid_cell_array(g, TIDE_F64);
  double lo[2][3] = {{0.23, 0.41, 0.31}, {0.61, 0.22, 0.35}};
  double hi[2][3] = {{0.52, 0.77, 0.66}, {0.83, 0.47, 0.71}};
  tide_shape *sh = NULL;
  for (int k = 0; k < ns; k++) {
    tide_shape *b;
    DIE(tide_shape_box(d, lo[k], hi[k], &b));
    if (sh) {
      tide_shape *u;
      DIE(tide_shape_csg(TIDE_SHAPE_UNION, sh, b, &u));
      tide_shape_release(sh);
      tide_shape_release(b);
      sh = u;
    } else {
      sh = b;
    }
    int cells[3] = {3, 4, 3};
    DIE(tide_mesh_box(d, lo[k], hi[k], cells, &S->solids[k]));
    tide_material mat = tide_material_default(TIDE_MODEL_LINEAR, 2000.0 * (k + 1), 3000.0);
    DIE(tide_fem_attach(S->solids[k], &mat, k ? 700 : 1300));
    tide_tetmesh *m = S->solids[k];
    m->fem->tau_m = 0.2 * k;
    m->fem->tau_k = 0.01 * (1 - k);
    int64_t nvd = m->nv * d;
    double *v = TIDE_F64P(m->v), *x = TIDE_F64P(m->x);
    for (int64_t q = 0; q < nvd; q++)
      v[q] = 0.3 * (2 * urand() - 1);
    /* a slightly deformed, rotated state: K x* - b != 0 */
    for (int64_t q = 0; q < nvd; q++)
      x[q] += 0.004 * (2 * urand() - 1);
    if (pinned && k == 0) {
      uint8_t *pin = TIDE_U8P(m->fem->pinned);
      double *tg = TIDE_F64P(m->fem->target);
      for (int64_t i = 0; i < m->nv; i++)
        if (x[i * d + 1] > hi[k][1] - 0.01) {
          pin[i] = 1;
          for (int c = 0; c < d; c++)
            tg[i * d + c] = x[i * d + c] + 0.002 * (c + 1);
        }
    }
    S->x0[k] = malloc((size_t)nvd * sizeof(double));
    S->v0[k] = malloc((size_t)nvd * sizeof(double));
    memcpy(S->x0[k], x, (size_t)nvd * sizeof(double));
    memcpy(S->v0[k], v, (size_t)nvd * sizeof(double));
  }
  S->ns = ns;
  tide_array *solid = tide_grid_cell_array(g, TIDE_U8);
  DIE(tide_mac_face_fractions_shape(g, sh, 0, 0.01, 0.99, S->frac, solid));
  tide_shape_release(sh);
  uint8_t *lab = TIDE_U8P(S->labels);
  double *phi = TIDE_F64P(S->phi);
  int n2 = d == 3 ? n : 1;
  double level = 0.63;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n2; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        double y = (j + 0.5) * g->dx;
        phi[c] = y - level;
        lab[c] = TIDE_U8P(solid)[c] == TIDE_CELL_SOLID ? TIDE_CELL_SOLID
                 : phi[c] < 0                          ? TIDE_CELL_LIQUID
                                                       : TIDE_CELL_AIR;
      }
  tide_array_release(solid);
  for (int a = 0; a < d; a++) {
    double *uu = TIDE_F64P(S->u0->u[a]);
    for (int64_t f = 0; f < tide_array_size(S->u0->u[a]); f++)
      uu[f] = 0.5 * (2 * urand() - 1);
  }
}

static void free_scene(scene *S) {
  tide_mac_free(S->u0);
  tide_mac_free(S->frac);
  tide_array_release(S->labels);
  tide_array_release(S->phi);
  for (int k = 0; k < S->ns; k++) {
    tide_tetmesh_free(S->solids[k]);
    free(S->x0[k]);
    free(S->v0[k]);
  }
}

typedef struct result {
  double *p, *v, *u;
  int64_t np, nv, nu;
  tide_zarifi_stats st;
} result;

static void run(scene *S, int form, int solver, double alpha, tide_csr **sys, result *r) {
  tide_grid *g = &S->g;
  tide_mac *u;
  DIE(tide_mac_new(g, TIDE_F64, &u));
  tide_mac_copy(u, S->u0);
  int d = g->dim;
  for (int k = 0; k < S->ns; k++) {
    tide_tetmesh *m = S->solids[k];
    memcpy(TIDE_F64P(m->x), S->x0[k], (size_t)(m->nv * d) * sizeof(double));
    memcpy(TIDE_F64P(m->v), S->v0[k], (size_t)(m->nv * d) * sizeof(double));
  }
  tide_array *p = tide_grid_cell_array(g, TIDE_F64);
  tide_zarifi_opts o = tide_zarifi_opts_default();
  o.dt = 0.01;
  o.rho = 1000;
  o.formulation = form;
  o.solver = solver;
  o.alpha = alpha;
  o.tol = 1e-12;
  o.phi = S->phi;
  o.fractions = S->frac;
  o.system = sys;
  int s = tide_zarifi_project(u, S->labels, S->solids, S->ns, &o, p, NULL, &r->st);
  CHECK(s == TIDE_OK, "projection form %d solver %d: %s", form, solver, s ? tide_errmsg() : "");
  r->np = tide_grid_ncells(g);
  r->p = malloc((size_t)r->np * sizeof(double));
  memcpy(r->p, TIDE_F64P(p), (size_t)r->np * sizeof(double));
  r->nv = 0;
  for (int k = 0; k < S->ns; k++)
    r->nv += S->solids[k]->nv * d;
  r->v = malloc((size_t)r->nv * sizeof(double));
  int64_t at = 0;
  for (int k = 0; k < S->ns; k++) {
    tide_tetmesh *m = S->solids[k];
    memcpy(r->v + at, TIDE_F64P(m->v), (size_t)(m->nv * d) * sizeof(double));
    at += m->nv * d;
  }
  r->nu = tide_zarifi_nfaces(g);
  r->u = malloc((size_t)r->nu * sizeof(double));
  tide_zarifi_gather(u, r->u);
  tide_array_release(p);
  tide_mac_free(u);
}

static double maxdiff(const double *a, const double *b, int64_t n, double *scale) {
  double m = 0, s = 0;
  for (int64_t i = 0; i < n; i++) {
    m = fmax(m, fabs(a[i] - b[i]));
    s = fmax(s, fabs(b[i]));
  }
  *scale = s;
  return m / (s > 0 ? s : 1);
}

static void free_result(result *r) {
  free(r->p);
  free(r->v);
  free(r->u);
}

/* coupled mass balance after the projection: per liquid cell,
 * -dx^d div_A(u) = (J v)_c, i.e. E u = J v */
static void check_balance(scene *S, const result *r, const char *what) {
  tide_grid *g = &S->g;
  int d = g->dim;
  tide_mac *u;
  DIE(tide_mac_new(g, TIDE_F64, &u));
  tide_zarifi_scatter(r->u, u);
  tide_array *div = tide_grid_cell_array(g, TIDE_F64);
  DIE(tide_liquid_divergence(u, S->labels, S->frac, NULL, div));
  int64_t nc = tide_grid_ncells(g);
  double *Jv = calloc((size_t)nc, sizeof(double)), dxd = pow(g->dx, d);
  int64_t at = 0;
  double worst = 0, scale = 0;
  for (int k = 0; k < S->ns; k++) {
    tide_tetmesh *m = S->solids[k];
    tide_zclip c;
    memset(&c, 0, sizeof c);
    DIE(tide_zarifi_clip(g, m, S->x0[k], &c));
    tide_triplets *T;
    tide_csr *J;
    tide_triplets_new((int)nc, (int)(m->nv * d), &T);
    tide_zarifi_j_triplets(&c, m, NULL, 0, 1.0, T);
    DIE(tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &J));
    tide_csr_gemv(J, 1.0, r->v + at, 1.0, Jv);
    at += m->nv * d;
    tide_csr_free(J);
    tide_triplets_free(T);
    tide_zclip_free(&c);
  }
  const uint8_t *lab = TIDE_U8P(S->labels);
  const double *dv = TIDE_F64P(div);
  for (int64_t c = 0; c < nc; c++)
    if (lab[c] == TIDE_CELL_LIQUID) {
      worst = fmax(worst, fabs(-dxd * dv[c] - Jv[c]));
      scale = fmax(scale, fabs(Jv[c]));
    }
  CHECK(worst <= 1e-8 * scale, "%s: E u = J v after the projection (%g, scale %g)", what, worst,
        scale);
  free(Jv);
  tide_array_release(div);
  tide_mac_free(u);
}

/* the multigrid-in-block preconditioner of the SPD system is symmetric and
 * positive definite: x.M^-1 y = y.M^-1 x, x.M^-1 x > 0 for random x, y, with
 * 0, 1 and 2 rings */
static void check_precond(scene *S, const tide_csr *A, const char *what) {
  tide_grid *g = &S->g;
  int d = g->dim;
  tide_mac_poisson P = tide_mac_poisson_make(g, TIDE_U8P(S->labels));
  double *th[3] = {NULL, NULL, NULL};
  for (int a = 0; a < d; a++) {
    P.weight[a] = TIDE_F64P(S->frac->u[a]);
    th[a] = malloc((size_t)tide_array_size(S->frac->u[a]) * sizeof(double));
  }
  DIE(tide_mac_poisson_theta(g, TIDE_U8P(S->labels), TIDE_F64P(S->phi), th));
  for (int a = 0; a < d; a++)
    P.theta[a] = th[a];
  int64_t nc = tide_grid_ncells(g);
  int *rowof = malloc((size_t)nc * sizeof(int)), nl = 0;
  DIE(tide_mac_poisson_number(&P, rowof, &nl));
  int *cell = malloc((size_t)(nl + 1) * sizeof(int));
  for (int64_t c = 0; c < nc; c++)
    if (rowof[c] >= 0) cell[rowof[c]] = (int)c;
  int n = A->nrows;
  double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
  double *mx = malloc((size_t)n * sizeof(double)), *my = malloc((size_t)n * sizeof(double));
  for (int ring = 0; ring <= 2; ring++) {
    tide_zarifi_precond *M = NULL;
    int s = tide_zarifi_precond_new(A, nl, cell, &P, 0.01 / 1000 * pow(g->dx, d), ring, NULL, NULL, &M);
    CHECK(s == TIDE_OK, "%s: preconditioner ring %d: %s", what, ring, s ? tide_errmsg() : "");
    if (s) continue;
    CHECK(tide_zarifi_precond_interface(M) > n - nl && tide_zarifi_precond_interface(M) < n,
          "%s ring %d: the interface holds the solid rows and some liquid rows (%lld of %d)", what,
          ring, (long long)tide_zarifi_precond_interface(M), n);
    double worst = 0, minq = 1e300;
    for (int trial = 0; trial < 5; trial++) {
      for (int i = 0; i < n; i++) {
        x[i] = 2 * urand() - 1;
        y[i] = 2 * urand() - 1;
      }
      DIE(tide_zarifi_precond_apply(M, x, mx));
      DIE(tide_zarifi_precond_apply(M, y, my));
      double a = tide_dot(n, y, mx), b = tide_dot(n, x, my);
      double scale = sqrt(tide_dot(n, x, mx) * tide_dot(n, y, my));
      worst = fmax(worst, fabs(a - b) / scale);
      minq = fmin(minq, tide_dot(n, x, mx) / tide_dot(n, x, x));
    }
    CHECK(worst <= 1e-10 && minq > 0, "%s ring %d: M^-1 symmetric (%.1e) and positive (%.3g)", what,
          ring, worst, minq);
    tide_zarifi_precond_free(M);
  }
  free(x);
  free(y);
  free(mx);
  free(my);
  free(cell);
  free(rowof);
  for (int a = 0; a < d; a++)
    free(th[a]);
}

static void test_formulations(int d, int n, int ns, int pinned) {
  char what[96];
  snprintf(what, sizeof what, "%dD n=%d solids=%d pinned=%d", d, n, ns, pinned);
  scene S;
  make_scene(&S, d, n, ns, pinned);
  result ref;
  tide_csr *sys_ind = NULL, *sys_spd = NULL;
  run(&S, TIDE_ZARIFI_INDEFINITE, TIDE_ZARIFI_LDLT, 0, &sys_ind, &ref);
  check_balance(&S, &ref, what);
  struct {
    int form, solver;
    double alpha;
    const char *name;
  } cases[] = {{TIDE_ZARIFI_INDEFINITE, TIDE_ZARIFI_MINRES, 0, "indefinite minres"},
               {TIDE_ZARIFI_INDEFINITE, TIDE_ZARIFI_BICGSTAB, 0, "indefinite bicgstab+ilu0"},
               {TIDE_ZARIFI_SPD, TIDE_ZARIFI_CHOLMOD, 0, "spd cholmod alpha auto"},
               {TIDE_ZARIFI_SPD, TIDE_ZARIFI_PCG, 0, "spd pcg alpha auto"},
               {TIDE_ZARIFI_SPD, TIDE_ZARIFI_PCG, 1e-3, "spd pcg alpha 1e-3"},
               {TIDE_ZARIFI_SPD, TIDE_ZARIFI_CHOLMOD, 1e-3, "spd cholmod alpha 1e-3"},
               {TIDE_ZARIFI_SPD, TIDE_ZARIFI_CHOLMOD, 10, "spd cholmod alpha 10"},
               {TIDE_ZARIFI_FACTORED, TIDE_ZARIFI_CHOLMOD, 0, "factored cholmod"},
               {TIDE_ZARIFI_FACTORED, TIDE_ZARIFI_PCG, 0, "factored pcg"},
               {TIDE_ZARIFI_SPD, TIDE_ZARIFI_MGPCG, 0, "spd mgpcg (mg-in-block)"},
               {TIDE_ZARIFI_FACTORED, TIDE_ZARIFI_MGPCG, 0, "factored mgpcg"}};
  printf("%s: %lld liquid cells, %lld free solid DOFs, %lld pieces\n", what,
         (long long)ref.st.liquid, (long long)ref.st.solid_dofs, (long long)ref.st.pieces);
  CHECK(ref.st.liquid > 0 && ref.st.solid_dofs > 0 && ref.st.pieces > 0, "%s: a coupled system",
        what);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    result r;
    int want_sys = c == 2;
    run(&S, cases[c].form, cases[c].solver, cases[c].alpha, want_sys ? &sys_spd : NULL, &r);
    double sp, sv, su;
    double ep = maxdiff(r.p, ref.p, r.np, &sp), ev = maxdiff(r.v, ref.v, r.nv, &sv);
    double eu = maxdiff(r.u, ref.u, r.nu, &su);
    double tol = cases[c].solver == TIDE_ZARIFI_CHOLMOD ? 1e-9 : 1e-6;
    CHECK(ep <= tol && ev <= tol && eu <= tol, "%s %s: p %.2e v %.2e u %.2e (tol %g)", what,
          cases[c].name, ep, ev, eu, tol);
    printf("  %-26s unknowns %6lld nnz %7lld it %4d res %.1e alpha %.3g | rel diff p %.1e v %.1e "
           "u %.1e\n",
           cases[c].name, (long long)r.st.unknowns, (long long)r.st.nonzeros, r.st.iterations,
           r.st.residual, r.st.alpha, ep, ev, eu);
    free_result(&r);
  }
  /* the SPD matrix: symmetric (both triangles assembled from their own
   * products), Cholesky succeeds; the indefinite one is symmetric too */
  double asym = 0;
  tide_csr_asymmetry(sys_spd, &asym);
  double big = 0;
  for (int64_t q = 0; q < tide_csr_nnz(sys_spd); q++)
    big = fmax(big, fabs(sys_spd->val[q]));
  CHECK(asym <= 1e-14 * big, "%s: SPD matrix symmetric (%g of %g)", what, asym, big);
  tide_factor *F = NULL;
  int s = tide_factor_new(sys_spd, TIDE_FACTOR_CHOLESKY, &F);
  CHECK(s == TIDE_OK, "%s: Cholesky of the SPD matrix", what);
  tide_factor_free(F);
  check_precond(&S, sys_spd, what);
  tide_csr_asymmetry(sys_ind, &asym);
  big = 0;
  for (int64_t q = 0; q < tide_csr_nnz(sys_ind); q++)
    big = fmax(big, fabs(sys_ind->val[q]));
  CHECK(asym <= 1e-14 * big, "%s: indefinite matrix symmetric (%g of %g)", what, asym, big);
  tide_csr_free(sys_ind);
  tide_csr_free(sys_spd);
  free_result(&ref);
  free_scene(&S);
}

/* K = R^T R for the corotated stiffness of a rotated, deformed mesh */
static void test_factor(int d) {
  double lo[3] = {0, 0, 0}, hi[3] = {1, 0.5, 0.7};
  int cells[3] = {2, 2, 2};
  tide_tetmesh *m;
  DIE(tide_mesh_box(d, lo, hi, cells, &m));
  tide_material mat = tide_material_default(TIDE_MODEL_LINEAR, 1234.0, 2345.0);
  DIE(tide_fem_attach(m, &mat, 1000));
  double *x = TIDE_F64P(m->x), th = 0.7;
  for (int64_t i = 0; i < m->nv; i++) { /* rotate about z and perturb */
    double a = x[i * d], b = x[i * d + 1];
    x[i * d] = cos(th) * a - sin(th) * b + 0.01 * urand();
    x[i * d + 1] = sin(th) * a + cos(th) * b + 0.01 * urand();
  }
  const tide_csr *K;
  const double *b;
  DIE(tide_solid_corot_matrices(m, x, 1, &K, &b));
  int ns = d == 3 ? 6 : 3;
  tide_triplets *T;
  tide_triplets_new((int)(m->ne * ns), (int)(m->nv * d), &T);
  DIE(tide_zarifi_r_triplets(m, 0, 0, T));
  tide_csr *R, *Rt, *RtR, *Kx, *D;
  DIE(tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &R));
  tide_csr_transpose(R, &Rt);
  tide_csr_matmul(Rt, R, &RtR);
  tide_csr_expand(K, &Kx);
  if (K->stype != TIDE_CSR_UPPER) {
    tide_csr_free(Kx);
    tide_csr_clone(K, &Kx);
  }
  tide_csr_add(1, RtR, -1, Kx, &D);
  double e = 0, big = 0;
  for (int64_t q = 0; q < tide_csr_nnz(D); q++)
    e = fmax(e, fabs(D->val[q]));
  for (int64_t q = 0; q < tide_csr_nnz(Kx); q++)
    big = fmax(big, fabs(Kx->val[q]));
  CHECK(e <= 1e-13 * big, "%dD: K = R^T R (%g of %g)", d, e, big);
  printf("%dD stiffness factor: max |R^T R - K| / max |K| = %.1e\n", d, e / big);
  tide_csr_free(R);
  tide_csr_free(Rt);
  tide_csr_free(RtR);
  tide_csr_free(Kx);
  tide_csr_free(D);
  tide_triplets_free(T);
  tide_tetmesh_free(m);
}

/* div_A(G p) = -A_poisson p on a cut-cell, ghost-fluid problem */
static void test_gradient(int d) {
  scene S;
  make_scene(&S, d, d == 3 ? 10 : 20, 1, 0);
  tide_grid *g = &S.g;
  tide_mac_poisson P = tide_mac_poisson_make(g, TIDE_U8P(S.labels));
  double *theta[3] = {NULL, NULL, NULL};
  for (int a = 0; a < d; a++) {
    P.weight[a] = TIDE_F64P(S.frac->u[a]);
    theta[a] = malloc((size_t)tide_array_size(S.frac->u[a]) * sizeof(double));
  }
  DIE(tide_mac_poisson_theta(g, TIDE_U8P(S.labels), TIDE_F64P(S.phi), theta));
  for (int a = 0; a < d; a++)
    P.theta[a] = theta[a];
  int64_t nc = tide_grid_ncells(g);
  int *rowof = malloc((size_t)nc * sizeof(int)), nl;
  DIE(tide_mac_poisson_number(&P, rowof, &nl));
  tide_csr *A, *G;
  DIE(tide_mac_poisson_assemble(&P, rowof, nl, TIDE_CSR_GENERAL, &A));
  DIE(tide_zarifi_gradient(g, TIDE_U8P(S.labels), rowof, nl, (const double *const *)P.weight,
                           (const double *const *)P.theta, P.theta_min, &G));
  double *p = malloc((size_t)nl * sizeof(double)), *Ap = malloc((size_t)nl * sizeof(double));
  for (int i = 0; i < nl; i++)
    p[i] = urand();
  int64_t nf = tide_zarifi_nfaces(g);
  double *Gp = malloc((size_t)nf * sizeof(double));
  tide_csr_mul(G, p, Gp);
  tide_csr_mul(A, p, Ap);
  tide_mac *gm;
  tide_mac_new(g, TIDE_F64, &gm);
  tide_zarifi_scatter(Gp, gm);
  tide_array *div = tide_grid_cell_array(g, TIDE_F64);
  DIE(tide_liquid_divergence(gm, S.labels, S.frac, NULL, div));
  double e = 0, big = 0;
  for (int64_t c = 0; c < nc; c++)
    if (rowof[c] >= 0) {
      e = fmax(e, fabs(TIDE_F64P(div)[c] + Ap[rowof[c]]));
      big = fmax(big, fabs(Ap[rowof[c]]));
    }
  CHECK(e <= 1e-12 * big, "%dD: div_A(G p) = -A p (%g of %g)", d, e, big);
  printf("%dD gradient: %d liquid cells, max |div_A(G p) + A p| / max |A p| = %.1e\n", d, nl,
         e / big);
  /* the matrix-free update: u - c G p where G has a row, valid exactly there */
  tide_mac *u, *valid;
  DIE(tide_mac_new(g, TIDE_F64, &u));
  DIE(tide_mac_new(g, TIDE_U8, &valid));
  double *u0 = malloc((size_t)nf * sizeof(double));
  for (int64_t f = 0; f < nf; f++)
    u0[f] = urand();
  tide_zarifi_scatter(u0, u);
  const double c = 0.37;
  DIE(tide_zarifi_gradient_apply(g, TIDE_U8P(S.labels), rowof, (const double *const *)P.weight,
                                 (const double *const *)P.theta, P.theta_min, p, c, u, valid));
  double *u1 = malloc((size_t)nf * sizeof(double));
  tide_zarifi_gather(u, u1);
  int64_t bad = 0, rows = 0, off = 0;
  for (int a = 0; a < d; a++) {
    const uint8_t *vm = TIDE_U8P(valid->u[a]);
    for (int64_t f = 0; f < tide_array_size(valid->u[a]); f++, off++) {
      int has = G->rowptr[off + 1] > G->rowptr[off];
      rows += has;
      double want = has ? u0[off] - c * Gp[off] : u0[off];
      bad += vm[f] != has || u1[off] != want;
    }
  }
  CHECK(bad == 0 && rows > 0, "%dD: gradient_apply = u - c G p on the %lld rows of G (%lld faces differ)",
        d, (long long)rows, (long long)bad);
  tide_mac_free(u);
  tide_mac_free(valid);
  free(u0);
  free(u1);
  for (int a = 0; a < d; a++)
    free(theta[a]);
  free(rowof);
  free(p);
  free(Ap);
  free(Gp);
  tide_csr_free(A);
  tide_csr_free(G);
  tide_mac_free(gm);
  tide_array_release(div);
  free_scene(&S);
}

int main(void) {
  test_gradient(2);
  test_gradient(3);
  test_factor(2);
  test_factor(3);
  test_formulations(2, 16, 1, 0);
  test_formulations(2, 16, 2, 1);
  test_formulations(3, 8, 1, 0);
  test_formulations(3, 8, 2, 1);
  return check_report();
}
