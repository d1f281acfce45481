/* test_linalg_krylov.c -- every Krylov solver and preconditioner on problems
 * with known solutions: 1D/2D/3D Poisson (Dirichlet, Neumann, free surface
 * with obstacles), random SPD, symmetric indefinite and nonsymmetric
 * matrices with fixed seeds. */
#include "test_linalg_mats.h"

#include <string.h>

typedef struct {
  int method, precond;
  int lo, hi; /* accepted iteration range */
} tm_case;

/* Solve A x = A u (u random) with each case; assert residual, error bound
 * (cond * residual) and iteration range. */
static void run_cases(const char *name, const tide_csr *A, double cond, const tm_case *cases,
                      int ncases, int nullspace, double tol) {
  int n = A->nrows;
  double *u = tm_randvec(n, 77), *b = malloc(n * sizeof(double)), *x = malloc(n * sizeof(double));
  if (nullspace) {
    double mean = tide_sum(n, u) / n;
    for (int i = 0; i < n; i++)
      u[i] -= mean;
  }
  tide_csr_mul(A, u, b);
  for (int c = 0; c < ncases; c++) {
    tide_solve_opts o = tide_solve_opts_default();
    o.tol = tol;
    o.nullspace = nullspace;
    tide_solve_stats st;
    int s = tide_solve_krylov(A, cases[c].method, cases[c].precond, b, x, &o, &st);
    const char *mn = tide_krylov_name(cases[c].method), *pn = tide_precond_name(cases[c].precond);
    CHECK(s == TIDE_OK, "%s %s-%s: %s", name, mn, pn, tide_errmsg());
    double res = tm_residual(A, x, b), err = tm_relerr(n, x, u);
    CHECK(res <= tol && st.converged && fabs(res - st.residual) <= 1e-3 * tol,
          "%s %s-%s: residual %g (reported %g)", name, mn, pn, res, st.residual);
    CHECK(err <= cond * tol, "%s %s-%s: error %g > cond * tol = %g", name, mn, pn, err, cond * tol);
    CHECK(st.iterations >= cases[c].lo && st.iterations <= cases[c].hi,
          "%s %s-%s: %d iterations not in [%d, %d]", name, mn, pn, st.iterations, cases[c].lo,
          cases[c].hi);
    printf("%-22s %-8s %-6s %4d iterations  residual %.2e  error %.2e  %.4f s\n", name, mn, pn,
           st.iterations, res, err, st.seconds);
  }
  free(u), free(b), free(x);
}

/* 1D: IC(0) and ILU(0) of a tridiagonal matrix are exact factorizations. */
static void test_1d(void) {
  tide_csr *A = tm_laplacian(500, 1, 1, NULL, 1, NULL);
  /* cond = cot^2(pi / (2 (n + 1))) ~ 1e5 */
  double cond = 1.0 / pow(tan(M_PI / 1002.0), 2);
  tm_case cases[] = {{TIDE_KRYLOV_PCG, TIDE_PRECOND_NONE, 400, 600},
                     {TIDE_KRYLOV_PCG, TIDE_PRECOND_IC0, 1, 1},
                     {TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, 1, 1},
                     {TIDE_KRYLOV_MINRES, TIDE_PRECOND_NONE, 400, 600}};
  run_cases("poisson1d 500", A, cond, cases, 4, 0, 1e-10);
  tide_csr_free(A);
}

/* 2D pool: bottom half liquid, top half air (free surface, Dirichlet),
 * a solid block in the liquid and solid walls (Neumann). */
static void test_free_surface(void) {
  int m = 64;
  unsigned char *lab = malloc(m * m);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      int c = i * m + j;
      lab[c] = j < m / 2 ? TM_LIQUID : TM_AIR;
      if (i >= 20 && i < 30 && j >= 8 && j < 16) lab[c] = TM_SOLID;
    }
  tide_csr *A = tm_laplacian(m, m, 1, lab, 0, NULL);
  /* the smallest eigenvalue of the half-open strip is ~ (pi / (2 * 32))^2,
   * the largest < 8: cond < 8 / (pi / 64)^2 ~ 3.3e3 */
  double cond = 8.0 / pow(M_PI / 64.0, 2);
  tm_case cases[] = {{TIDE_KRYLOV_PCG, TIDE_PRECOND_NONE, 80, 260},
                     {TIDE_KRYLOV_PCG, TIDE_PRECOND_JACOBI, 80, 260},
                     {TIDE_KRYLOV_PCG, TIDE_PRECOND_IC0, 30, 90},
                     {TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, 15, 50},
                     {TIDE_KRYLOV_MINRES, TIDE_PRECOND_JACOBI, 80, 300},
                     {TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, 15, 70}};
  run_cases("pool2d 64^2", A, cond, cases, 6, 0, 1e-9);
  tide_csr_free(A);
  free(lab);
}

/* 3D pure Neumann box (constant null space handled by projection). */
static void test_neumann3d(void) {
  int m = 20;
  tide_csr *A = tm_laplacian(m, m, m, NULL, 0, NULL);
  /* on mean-free vectors: lambda_min = 4 sin^2(pi / (2 m)), lambda_max < 12 */
  double cond = 12.0 / (4 * pow(sin(M_PI / (2 * m)), 2));
  tm_case cases[] = {{TIDE_KRYLOV_PCG, TIDE_PRECOND_NONE, 40, 120},
                     {TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, 10, 40},
                     {TIDE_KRYLOV_MINRES, TIDE_PRECOND_NONE, 40, 130}};
  run_cases("neumann3d 20^3", A, cond, cases, 3, 1, 1e-9);
  tide_csr_free(A);
}

/* Random sparse SPD (diagonally dominant) and symmetric indefinite. */
static void test_random(void) {
  int n = 3000;
  tide_csr *S = tm_random_sym(n, 8, 1.05, 0.1, 5);
  /* Gershgorin: eigenvalues in [0.1 + 0.05 r, 2.05 r + 0.1]; r <= ~20 */
  tm_case spd[] = {{TIDE_KRYLOV_PCG, TIDE_PRECOND_NONE, 5, 200},
                   {TIDE_KRYLOV_PCG, TIDE_PRECOND_JACOBI, 5, 80},
                   {TIDE_KRYLOV_PCG, TIDE_PRECOND_IC0, 3, 40},
                   {TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, 3, 60},
                   {TIDE_KRYLOV_MINRES, TIDE_PRECOND_JACOBI, 5, 80},
                   {TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, 2, 30}};
  run_cases("random spd 3000", S, 1e3, spd, 6, 0, 1e-10);
  tide_csr_free(S);
  /* indefinite: dominance 1.05 but the diagonal shifted by -r_i * 2.1 on
   * every other row gives negative-dominant rows: symmetric, indefinite,
   * and still nonsingular by dominance */
  tide_csr *I = tm_random_sym(n, 8, 1.05, 0.1, 6);
  double *d = malloc(n * sizeof(double));
  tide_csr_diag(I, d);
  for (int i = 0; i < n; i += 2)
    I->val[tide_csr_find(I, i, i)] = -d[i];
  free(d);
  tm_case ind[] = {{TIDE_KRYLOV_MINRES, TIDE_PRECOND_NONE, 5, 400},
                   {TIDE_KRYLOV_MINRES, TIDE_PRECOND_JACOBI, 5, 200},
                   {TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, 2, 100}};
  run_cases("random indefinite 3000", I, 1e4, ind, 3, 0, 1e-10);
  /* PCG refuses or fails clearly on it */
  double *b = tm_randvec(n, 8), *x = malloc(n * sizeof(double));
  tide_solve_stats st;
  int s = tide_solve_krylov(I, TIDE_KRYLOV_PCG, TIDE_PRECOND_NONE, b, x, NULL, &st);
  CHECK(s == TIDE_ENOTSPD && strstr(tide_errmsg(), "not symmetric positive definite"),
        "pcg on indefinite: status %d %s", s, tide_errmsg());
  s = tide_solve_krylov(I, TIDE_KRYLOV_PCG, TIDE_PRECOND_IC0, b, x, NULL, &st);
  CHECK(s == TIDE_ENOTSPD && strstr(tide_errmsg(), "positive diagonal"),
        "ic0 on indefinite: status %d %s", s, tide_errmsg());
  CHECK(tide_solve_krylov(I, TIDE_KRYLOV_MINRES, TIDE_PRECOND_IC0, b, x, NULL, &st) ==
                TIDE_EINVAL &&
            strstr(tide_errmsg(), "minres"),
        "minres-ic0 accepted: %s", tide_errmsg());
  CHECK(tide_solve_krylov(I, TIDE_KRYLOV_PCG, TIDE_PRECOND_ILU0, b, x, NULL, &st) == TIDE_EINVAL,
        "pcg-ilu0 accepted");
  free(b), free(x);
  tide_csr_free(I);
}

/* Nonsymmetric convection-diffusion: BiCGSTAB with and without ILU(0);
 * IC(0) refuses the nonsymmetric matrix. */
static void test_nonsymmetric(void) {
  int m = 60;
  tide_csr *A = tm_convdiff(m, 1.0);
  tm_case cases[] = {{TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_NONE, 40, 200},
                     {TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_JACOBI, 40, 200},
                     {TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, 10, 60}};
  run_cases("convdiff 60^2", A, 1e4, cases, 3, 0, 1e-10);
  tide_precond *P = NULL;
  CHECK(tide_precond_new(A, TIDE_PRECOND_IC0, &P) == TIDE_EINVAL &&
            strstr(tide_errmsg(), "symmetric"),
        "ic0 of nonsymmetric: %s", tide_errmsg());
  /* ILU(0) levels: parallel forward/backward on the 5-point pattern */
  CHECK(tide_precond_new(A, TIDE_PRECOND_ILU0, &P) == TIDE_OK, "%s", tide_errmsg());
  int fl, bl;
  tide_precond_levels(P, &fl, &bl);
  CHECK(fl == 2 * m - 1 && bl == 2 * m - 1, "ilu levels %d %d", fl, bl);
  tide_precond_free(P);
  tide_csr_free(A);
}

/* Empty system and zero right-hand side. */
static void test_edge_cases(void) {
  tide_csr *A = tm_laplacian(10, 1, 1, NULL, 1, NULL);
  double b[10] = {0}, x[10];
  for (int i = 0; i < 10; i++)
    x[i] = 1;
  tide_solve_stats st;
  CHECK(tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, b, x, NULL, &st) == TIDE_OK &&
            st.iterations == 0 && x[3] == 0,
        "b = 0: %d iterations, x %g", st.iterations, x[3]);
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 0;
  CHECK(tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_NONE, b, x, &o, &st) == TIDE_EINVAL,
        "tol 0 accepted");
  tide_csr *E = NULL;
  tide_csr_new(0, 0, 0, &E);
  CHECK(tide_solve_krylov(E, TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, b, x, NULL, &st) == TIDE_OK,
        "empty: %s", tide_errmsg());
  tide_csr_free(E);
  tide_csr_free(A);
}

int main(void) {
  tide_seed_set(2024);
  test_1d();
  test_free_surface();
  test_neumann3d();
  test_random();
  test_nonsymmetric();
  test_edge_cases();
  CHECK(tide_mem_bytes() == 0, "%lld bytes still counted", (long long)tide_mem_bytes());
  return check_report();
}
