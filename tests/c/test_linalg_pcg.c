/* test_linalg_pcg.c -- CSR assembly and PCG (none/Jacobi/IC(0)/MIC(0)) on
 * Poisson problems with known solutions. */
#include "test_linalg_mats.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static tide_csr *poisson2d(int m) { return tm_laplacian(m, m, 1, NULL, 1, NULL); }
static tide_csr *neumann2d(int m) { return tm_laplacian(m, m, 1, NULL, 0, NULL); }
static tide_csr *poisson3d(int m) { return tm_laplacian(m, m, m, NULL, 1, NULL); }
#define relerr tm_relerr

static void test_csr_basics(void) {
  /* duplicates summed, sorted columns, diag, transpose, mul */
  int I[] = {0, 2, 1, 0, 2, 0, 1};
  int J[] = {1, 0, 1, 1, 2, 0, 2};
  double V[] = {1, 2, 3, 4, 5, 6, 7};
  tide_csr *A = NULL;
  CHECK(tide_csr_from_triplets(3, 3, 7, I, J, V, TIDE_CSR_GENERAL, &A) == TIDE_OK, "%s",
        tide_errmsg());
  CHECK(tide_csr_nnz(A) == 6, "nnz %lld", (long long)tide_csr_nnz(A));
  CHECK(A->col[0] == 0 && A->col[1] == 1 && A->val[1] == 5, "row 0 %d %d %g", A->col[0], A->col[1],
        A->val[1]);
  double d[3], x[3] = {1, 2, 3}, y[3];
  tide_csr_diag(A, d);
  CHECK(d[0] == 6 && d[1] == 3 && d[2] == 5, "diag %g %g %g", d[0], d[1], d[2]);
  tide_csr_mul(A, x, y); /* [6 5 0; 0 3 7; 2 0 5] x */
  CHECK(y[0] == 16 && y[1] == 27 && y[2] == 17, "mul %g %g %g", y[0], y[1], y[2]);
  tide_csr *At = NULL;
  CHECK(tide_csr_transpose(A, &At) == TIDE_OK, "transpose");
  tide_csr_mul(At, x, y); /* A^T x */
  CHECK(y[0] == 12 && y[1] == 11 && y[2] == 29, "mul At %g %g %g", y[0], y[1], y[2]);
  /* pattern reuse: doubled values */
  double V2[7];
  for (int k = 0; k < 7; k++)
    V2[k] = 2 * V[k];
  CHECK(tide_csr_set_triplet_values(A, 7, V2) == TIDE_OK, "%s", tide_errmsg());
  tide_csr_mul(A, x, y);
  CHECK(y[0] == 32 && y[1] == 54 && y[2] == 34, "mul after set %g %g %g", y[0], y[1], y[2]);
  CHECK(tide_csr_set_triplet_values(A, 6, V2) == TIDE_EINVAL, "wrong count accepted");
  /* bad input */
  tide_csr *B = NULL;
  int Ibad[] = {0, 3};
  int Jbad[] = {0, 0};
  double Vbad[] = {1, 1};
  CHECK(tide_csr_from_triplets(3, 3, 2, Ibad, Jbad, Vbad, 0, &B) == TIDE_EINVAL && !B,
        "row out of range accepted");
  CHECK(strstr(tide_errmsg(), "outside") != NULL, "message: %s", tide_errmsg());
  double Vnan[] = {1, NAN};
  int Iok[] = {0, 1};
  CHECK(tide_csr_from_triplets(3, 3, 2, Iok, Jbad, Vnan, 0, &B) == TIDE_ENONFINITE, "NaN accepted");
  tide_csr_free(At);
  tide_csr_free(A);
}

/* Triplet lists filled from an OpenMP loop give a bit-identical matrix for
 * 1 and 2 threads; a loop of ntrip entries with the same pattern reuses it. */
static void test_triplet_list_threads(void) {
  tide_csr *A1, *A2;
  omp_set_num_threads(1);
  A1 = neumann2d(37);
  omp_set_num_threads(2);
  A2 = neumann2d(37);
  CHECK(tide_csr_nnz(A1) == tide_csr_nnz(A2), "nnz differ");
  CHECK(memcmp(A1->col, A2->col, tide_csr_nnz(A1) * sizeof(int)) == 0, "columns differ");
  CHECK(memcmp(A1->val, A2->val, tide_csr_nnz(A1) * sizeof(double)) == 0, "values differ");
  double d[37 * 37];
  tide_csr_diag(A1, d);
  CHECK(d[0] == 2 && d[1] == 3 && d[38] == 4, "neumann diag %g %g %g", d[0], d[1], d[38]);
  /* row sums are zero */
  double one[37 * 37], y[37 * 37], mx = 0;
  for (int i = 0; i < 37 * 37; i++)
    one[i] = 1;
  tide_csr_mul(A1, one, y);
  for (int i = 0; i < 37 * 37; i++)
    mx = fmax(mx, fabs(y[i]));
  CHECK(mx == 0, "row sums %g", mx);
  tide_csr_free(A1);
  tide_csr_free(A2);
}

static void test_upper_storage_and_matmul(void) {
  tide_csr *A = poisson2d(9), *U = NULL, *E = NULL, *AA = NULL;
  CHECK(tide_csr_triu(A, &U) == TIDE_OK, "triu");
  CHECK(U->stype == TIDE_CSR_UPPER && tide_csr_nnz(U) == (tide_csr_nnz(A) + 81) / 2,
        "triu nnz %lld", (long long)tide_csr_nnz(U));
  double x[81], y1[81], y2[81], y3[81];
  for (int i = 0; i < 81; i++)
    x[i] = tide_rand01(7, i) - 0.5;
  tide_csr_mul(A, x, y1);
  tide_csr_mul(U, x, y2);
  CHECK(relerr(81, y2, y1) < 1e-15, "upper mul differs %g", relerr(81, y2, y1));
  CHECK(tide_csr_expand(U, &E) == TIDE_OK, "expand");
  CHECK(tide_csr_nnz(E) == tide_csr_nnz(A) &&
            memcmp(E->col, A->col, tide_csr_nnz(A) * sizeof(int)) == 0,
        "expand pattern");
  /* (A A) x == A (A x) */
  CHECK(tide_csr_matmul(A, U, &AA) == TIDE_OK, "matmul %s", tide_errmsg());
  tide_csr_mul(AA, x, y3);
  tide_csr_mul(A, y1, y2);
  CHECK(relerr(81, y3, y2) < 1e-14, "matmul %g", relerr(81, y3, y2));
  /* A^2 couples grid points within Manhattan distance 2 */
  int64_t cnt = 0;
  for (int a = 0; a < 81; a++)
    for (int c = 0; c < 81; c++)
      cnt += abs(a / 9 - c / 9) + abs(a % 9 - c % 9) <= 2;
  CHECK(tide_csr_nnz(AA) == cnt, "A^2 nnz %lld, expected %lld", (long long)tide_csr_nnz(AA),
        (long long)cnt);
  double asym = 1;
  tide_csr_asymmetry(AA, &asym);
  CHECK(asym == 0, "A^2 asymmetry %g", asym);
  /* A + 2 U (general + upper) and U + U (stays upper) */
  tide_csr *S = NULL, *S2 = NULL;
  CHECK(tide_csr_add(1.0, A, 2.0, U, &S) == TIDE_OK && S->stype == TIDE_CSR_GENERAL, "add");
  tide_csr_mul(S, x, y2);
  for (int i = 0; i < 81; i++)
    y3[i] = 3 * y1[i];
  CHECK(relerr(81, y2, y3) < 1e-15, "A + 2U %g", relerr(81, y2, y3));
  CHECK(tide_csr_add(1.0, U, 1.0, U, &S2) == TIDE_OK && S2->stype == TIDE_CSR_UPPER, "U + U");
  tide_csr_mul(S2, x, y2);
  for (int i = 0; i < 81; i++)
    y3[i] = 2 * y1[i];
  CHECK(relerr(81, y2, y3) < 1e-15, "U + U %g", relerr(81, y2, y3));
  /* a coupling product P^T diag(z) P, P rectangular (81 x 20), checked
   * against applying the factors one by one */
  int Ip[160], Jp[160];
  double Vp[160], z[81], t1[81], t2[20], t3[20];
  for (int k = 0; k < 160; k++)
    Ip[k] = (int)(tide_rand01(8, k) * 81), Jp[k] = k % 20, Vp[k] = tide_rand01(9, k) - 0.5;
  for (int i = 0; i < 81; i++)
    z[i] = 1 + tide_rand01(10, i);
  tide_csr *P = NULL, *Pt = NULL, *DP = NULL, *PtDP = NULL;
  tide_csr_from_triplets(81, 20, 160, Ip, Jp, Vp, TIDE_CSR_GENERAL, &P);
  tide_csr_transpose(P, &Pt);
  tide_csr_clone(P, &DP);
  CHECK(tide_csr_scale(DP, z, NULL) == TIDE_OK, "scale");
  CHECK(tide_csr_matmul(Pt, DP, &PtDP) == TIDE_OK && PtDP->nrows == 20 && PtDP->ncols == 20,
        "P^T D P");
  tide_csr_mul(PtDP, x, t2);
  tide_csr_mul(P, x, t1);
  for (int i = 0; i < 81; i++)
    t1[i] *= z[i];
  tide_csr_mul(Pt, t1, t3);
  CHECK(relerr(20, t2, t3) < 1e-14, "P^T D P product %g", relerr(20, t2, t3));
  double asym2 = 1;
  tide_csr_asymmetry(PtDP, &asym2);
  CHECK(asym2 < 1e-15, "P^T D P asymmetry %g", asym2);
  CHECK(tide_csr_scale(U, z, NULL) == TIDE_EINVAL, "one-sided scaling of upper storage accepted");
  tide_csr_free(P), tide_csr_free(Pt), tide_csr_free(DP), tide_csr_free(PtDP);
  tide_csr_free(S), tide_csr_free(S2);
  tide_csr_free(A), tide_csr_free(U), tide_csr_free(E), tide_csr_free(AA);
}

/* -Laplace u = f on (0,1)^2 with u = e^x sin(pi x) sin(pi y) (not an
 * eigenvector of the discrete operator), h^2-scaled.  Returns the max error
 * of the PCG solution with preconditioner pc; checks the residual. */
static double poisson_sample(tide_csr *A, int m, int pc, int *iters, double *x) {
  int n = m * m;
  double h = 1.0 / (m + 1);
  double *b = malloc(n * sizeof(double)), *u = malloc(n * sizeof(double)),
         *r = malloc(n * sizeof(double));
  for (int a = 0; a < m; a++)
    for (int c = 0; c < m; c++) {
      double px = (a + 1) * h, py = (c + 1) * h;
      u[a * m + c] = exp(px) * sin(M_PI * px) * sin(M_PI * py);
      b[a * m + c] = h * h * exp(px) * sin(M_PI * py) *
                     ((2 * M_PI * M_PI - 1) * sin(M_PI * px) - 2 * M_PI * cos(M_PI * px));
    }
  tide_solve_opts o = tide_solve_opts_default();
  tide_solve_stats st;
  int s = tide_solve_krylov(A, TIDE_KRYLOV_PCG, pc, b, x, &o, &st);
  CHECK(s == TIDE_OK, "pcg %s: %s", tide_precond_name(pc), tide_errmsg());
  tide_csr_gemv(A, -1, x, 0, r);
  for (int i = 0; i < n; i++)
    r[i] += b[i];
  double res = sqrt(tide_norm2sq(n, r) / tide_norm2sq(n, b));
  CHECK(res <= 1e-8 && fabs(res - st.residual) <= 1e-12, "%s residual %g (reported %g)",
        tide_precond_name(pc), res, st.residual);
  double err = 0;
  for (int i = 0; i < n; i++)
    err = fmax(err, fabs(x[i] - u[i]));
  *iters = st.iterations;
  printf("poisson2d %dx%d pcg-%s: %d iterations, residual %.2e, max error %.2e, %.4f s\n", m, m,
         tide_precond_name(pc), st.iterations, st.residual, err, st.seconds);
  free(b), free(u), free(r);
  return err;
}

static void test_poisson2d_pcg(void) {
  int m = 63, n = m * m;
  double h = 1.0 / (m + 1);
  tide_csr *A = poisson2d(m), *Ac = poisson2d(31);
  double *b = malloc(n * sizeof(double)), *u = malloc(n * sizeof(double)),
         *x = malloc(n * sizeof(double));
  int iters[4] = {0}, itc;
  /* iteration ranges for 63^2 to 1e-8 (smooth right-hand side): CG ~ m,
   * IC(0) a constant factor fewer, MIC(0) ~ sqrt(m) */
  int lo[4] = {70, 70, 45, 22}, hi[4] = {130, 130, 80, 42};
  for (int pc = TIDE_PRECOND_NONE; pc <= TIDE_PRECOND_MIC0; pc++) {
    double err = poisson_sample(A, m, pc, &iters[pc], x);
    double errc = poisson_sample(Ac, 31, pc, &itc, x);
    /* second order: halving h divides the error by ~4 */
    double order = log(errc / err) / log(2.0);
    CHECK(order > 1.9 && order < 2.1, "%s: convergence order %g (errors %g, %g)",
          tide_precond_name(pc), order, errc, err);
    CHECK(iters[pc] >= lo[pc] && iters[pc] <= hi[pc], "%s: %d iterations not in [%d, %d]",
          tide_precond_name(pc), iters[pc], lo[pc], hi[pc]);
  }
  CHECK(iters[TIDE_PRECOND_MIC0] < iters[TIDE_PRECOND_IC0] &&
            iters[TIDE_PRECOND_IC0] < iters[TIDE_PRECOND_NONE],
        "MIC %d < IC %d < CG %d expected", iters[3], iters[2], iters[0]);
  tide_csr_free(Ac);

  /* manufactured discrete solution: error bounded by cond * residual */
  for (int i = 0; i < n; i++)
    u[i] = tide_rand01(11, i) - 0.5;
  tide_csr_mul(A, u, b);
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-10;
  tide_solve_stats st;
  CHECK(tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, b, x, &o, &st) == TIDE_OK, "%s",
        tide_errmsg());
  /* cond(A) = cot^2(pi h / 2) ~ 1.6e3 for m = 63 */
  double cond = 1.0 / pow(tan(M_PI * h / 2), 2);
  CHECK(relerr(n, x, u) <= cond * 1e-10, "manufactured error %g > %g", relerr(n, x, u),
        cond * 1e-10);

  /* initial guess: starting at the solution takes 0 iterations */
  o.use_x0 = 1;
  memcpy(x, u, n * sizeof(double));
  CHECK(tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_IC0, b, x, &o, &st) == TIDE_OK &&
            st.iterations == 0,
        "x0 = solution took %d iterations", st.iterations);

  /* workspace reuse, determinism across thread counts */
  tide_krylov *S = NULL;
  CHECK(tide_krylov_new(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, &S) == TIDE_OK, "%s", tide_errmsg());
  int fl, bl;
  tide_precond_levels(tide_krylov_precond(S), &fl, &bl);
  CHECK(fl == 2 * m - 1 && bl == 2 * m - 1, "levels %d %d (expected %d)", fl, bl, 2 * m - 1);
  o = tide_solve_opts_default();
  double *x1 = malloc(n * sizeof(double));
  omp_set_num_threads(1);
  tide_krylov_solve(S, A, b, x1, &o, &st);
  int it1 = st.iterations;
  omp_set_num_threads(2);
  int64_t mem0 = tide_mem_bytes();
  tide_krylov_solve(S, A, b, x, &o, &st);
  CHECK(tide_mem_bytes() == mem0, "solve allocated %lld bytes",
        (long long)(tide_mem_bytes() - mem0));
  CHECK(st.iterations == it1 && memcmp(x, x1, n * sizeof(double)) == 0,
        "1 vs 2 threads differ (%d vs %d iterations)", it1, st.iterations);
  /* refactor after a value change (A scaled by 2: solution halves) */
  for (int64_t p = 0; p < tide_csr_nnz(A); p++)
    A->val[p] *= 2;
  CHECK(tide_krylov_refactor(S, A) == TIDE_OK, "%s", tide_errmsg());
  tide_krylov_solve(S, A, b, x, &o, &st);
  for (int i = 0; i < n; i++)
    x1[i] *= 0.5;
  CHECK(relerr(n, x, x1) < 1e-7 && st.iterations == it1, "refactor: err %g, %d vs %d iterations",
        relerr(n, x, x1), st.iterations, it1);

  /* upper (symmetric) storage: the same iterates as general storage */
  tide_csr *Up = NULL;
  tide_csr_triu(A, &Up);
  double *xu = malloc(n * sizeof(double));
  tide_solve_stats stu;
  CHECK(tide_solve_krylov(Up, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, b, xu, &o, &stu) == TIDE_OK, "%s",
        tide_errmsg());
  tide_krylov_solve(S, A, b, x, &o, &st);
  CHECK(stu.iterations == st.iterations && relerr(n, xu, x) < 1e-12,
        "upper storage: %d vs %d iterations, difference %g", stu.iterations, st.iterations,
        relerr(n, xu, x));
  CHECK(tide_solve_krylov(Up, TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, b, xu, &o, &stu) ==
                TIDE_EINVAL &&
            strstr(tide_errmsg(), "expand"),
        "ilu0 of upper storage: %s", tide_errmsg());
  free(xu);
  tide_csr_free(Up);

  /* errors: NaN, non-convergence, interruption */
  b[5] = NAN;
  CHECK(tide_krylov_solve(S, A, b, x, &o, &st) == TIDE_ENONFINITE, "NaN in b accepted");
  b[5] = 1;
  o.maxit = 3;
  CHECK(tide_krylov_solve(S, A, b, x, &o, &st) == TIDE_ENOCONV && st.iterations == 3 &&
            !st.converged && strstr(tide_errmsg(), "did not converge"),
        "maxit: %s", tide_errmsg());
  o.maxit = 0;
  tide_interrupt_flag = 1;
  CHECK(tide_krylov_solve(S, A, b, x, &o, &st) == TIDE_EINTR, "interrupt ignored");
  tide_interrupt_clear();
  tide_krylov_free(S);
  free(x1);
  free(b), free(u), free(x);
  tide_csr_free(A);
}

/* Pure Neumann: singular with constant null space.  b with zero mean;
 * the solution (mean free) satisfies A x = b. */
static void test_neumann(void) {
  int m = 48, n = m * m;
  tide_csr *A = neumann2d(m);
  double *u = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
         *x = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = tide_rand01(3, i);
  double mean = tide_sum(n, u) / n;
  for (int i = 0; i < n; i++)
    u[i] -= mean;
  tide_csr_mul(A, u, b);
  for (int i = 0; i < n; i++)
    b[i] += 0.25; /* an inconsistent constant part is projected out */
  for (int pc = TIDE_PRECOND_NONE; pc <= TIDE_PRECOND_MIC0; pc++) {
    tide_solve_opts o = tide_solve_opts_default();
    o.nullspace = 1;
    tide_solve_stats st;
    int s = tide_solve_krylov(A, TIDE_KRYLOV_PCG, pc, b, x, &o, &st);
    CHECK(s == TIDE_OK, "neumann %s: %s", tide_precond_name(pc), tide_errmsg());
    CHECK(fabs(tide_sum(n, x)) < 1e-9, "mean %g", tide_sum(n, x) / n);
    CHECK(relerr(n, x, u) < 1e-4, "neumann %s error %g", tide_precond_name(pc), relerr(n, x, u));
    printf("neumann2d %dx%d pcg-%s: %d iterations, residual %.2e, error %.2e\n", m, m,
           tide_precond_name(pc), st.iterations, st.residual, relerr(n, x, u));
  }
  free(u), free(b), free(x);
  tide_csr_free(A);
}

/* 3D: the level-scheduled (parallel) triangular solves are bit-identical to
 * the serial ones, and MIC(0)-PCG solves a manufactured problem. */
static void test_poisson3d(void) {
  int m = 32, n = m * m * m;
  tide_csr *A = poisson3d(m);
  double *u = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
         *x = malloc(n * sizeof(double)), *z1 = malloc(n * sizeof(double)),
         *z2 = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = tide_rand01(5, i) - 0.5;
  tide_csr_mul(A, u, b);
  /* ILU(0) too: level-parallel solves equal the serial ones bit for bit */
  tide_precond *Pl = NULL;
  CHECK(tide_precond_new(A, TIDE_PRECOND_ILU0, &Pl) == TIDE_OK, "%s", tide_errmsg());
  omp_set_num_threads(1);
  tide_precond_apply(Pl, b, z1);
  omp_set_num_threads(2);
  tide_precond_set_parallel(Pl, 1);
  tide_precond_apply(Pl, b, z2);
  CHECK(memcmp(z1, z2, n * sizeof(double)) == 0, "ilu0 apply differs between 1 and 2 threads");
  /* automatic mode: the same numbers whichever variant it picks */
  tide_precond_set_parallel(Pl, -1);
  for (int rep = 0; rep < 4; rep++) {
    tide_precond_apply(Pl, b, z2);
    CHECK(memcmp(z1, z2, n * sizeof(double)) == 0, "ilu0 automatic apply %d differs", rep);
  }
  tide_precond_free(Pl);
  for (int pc = TIDE_PRECOND_IC0; pc <= TIDE_PRECOND_MIC0; pc++) {
    tide_precond *P = NULL;
    CHECK(tide_precond_new(A, pc, &P) == TIDE_OK, "%s", tide_errmsg());
    int fl, bl;
    tide_precond_levels(P, &fl, &bl);
    CHECK(fl == 3 * m - 2 && bl == 3 * m - 2, "3d levels %d %d", fl, bl);
    omp_set_num_threads(1);
    tide_precond_apply(P, b, z1);
    omp_set_num_threads(2);
    tide_precond_set_parallel(P, 1);
    tide_precond_apply(P, b, z2);
    CHECK(memcmp(z1, z2, n * sizeof(double)) == 0, "%s apply differs between 1 and 2 threads",
          tide_precond_name(pc));
    tide_precond_free(P);
    tide_solve_opts o = tide_solve_opts_default();
    o.tol = 1e-10;
    tide_solve_stats st;
    CHECK(tide_solve_krylov(A, TIDE_KRYLOV_PCG, pc, b, x, &o, &st) == TIDE_OK, "%s", tide_errmsg());
    /* cond(A) <= 1 / sin^2(pi / (2 (m + 1))) ~ 440 for m = 32 */
    double cond = 1.0 / pow(sin(M_PI / (2.0 * (m + 1))), 2);
    CHECK(relerr(n, x, u) <= cond * 1e-10, "3d %s error %g", tide_precond_name(pc),
          relerr(n, x, u));
    int lo = pc == TIDE_PRECOND_MIC0 ? 15 : 25, hi = pc == TIDE_PRECOND_MIC0 ? 40 : 60;
    CHECK(st.iterations >= lo && st.iterations <= hi, "3d %s: %d iterations not in [%d, %d]",
          tide_precond_name(pc), st.iterations, lo, hi);
    printf("poisson3d %d^3 pcg-%s: %d iterations to 1e-10, error %.2e, %.3f s\n", m,
           tide_precond_name(pc), st.iterations, relerr(n, x, u), st.seconds);
  }
  free(u), free(b), free(x), free(z1), free(z2);
  tide_csr_free(A);
}

int main(void) {
  tide_seed_set(1234);
  test_csr_basics();
  test_triplet_list_threads();
  test_upper_storage_and_matmul();
  test_poisson2d_pcg();
  test_neumann();
  test_poisson3d();
  CHECK(tide_mem_bytes() == 0, "%lld bytes still counted", (long long)tide_mem_bytes());
  return check_report();
}
