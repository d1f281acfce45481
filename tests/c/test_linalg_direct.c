/* test_linalg_direct.c -- CHOLMOD Cholesky / LDL^T and UMFPACK LU: agreement
 * with PCG, symbolic reuse, clear errors on wrong matrices, memory counted. */
#include "test_linalg_mats.h"

#include <string.h>

/* The right side b = A u of a random u (seed) and the factorization of A of the given kind,
 * which must be supernodal: its stats and the memory it added to tide_mem_bytes(). */
static tide_factor *supernodal_factor(const tide_csr *A, int kind, uint64_t seed, double **u,
                                      double **b, tide_factor_stats *fs, int64_t *added) {
  int n = A->nrows;
  *u = tm_randvec(n, seed), *b = malloc(n * sizeof(double));
  tide_csr_mul(A, *u, *b);
  int64_t mem0 = tide_mem_bytes();
  tide_factor *F = NULL;
  CHECK(tide_factor_new(A, kind, &F) == TIDE_OK, "%s: %s", tide_factor_name(kind), tide_errmsg());
  tide_factor_info(F, fs);
  *added = tide_mem_bytes() - mem0;
  CHECK(fs->supernodal == 1, "%s of %d rows: not supernodal", tide_factor_name(kind), n);
  return F;
}

/* H's entries as triplets in arrays with room for `extra` more; returns how many were written */
static int64_t triplets_of(const tide_csr *H, int64_t extra, int **I, int **J, double **V) {
  int64_t cap = tide_csr_nnz(H) + extra, k = 0;
  *I = malloc(cap * sizeof(int)), *J = malloc(cap * sizeof(int)), *V = malloc(cap * sizeof(double));
  for (int i = 0; i < H->nrows; i++)
    for (int p = H->rowptr[i]; p < H->rowptr[i + 1]; p++)
      (*I)[k] = i, (*J)[k] = H->col[p], (*V)[k++] = H->val[p];
  return k;
}

/* Cholesky matches MIC(0)-PCG to 1e-8 on a 3D Poisson problem; refactor
 * with new values (symbolic reuse) equals a fresh factorization. */
static void test_cholesky(void) {
  int m = 16, n = m * m * m;
  tide_csr *A = tm_laplacian(m, m, m, NULL, 1, NULL);
  double *u, *b, *x = malloc(n * sizeof(double)), *xp = malloc(n * sizeof(double)),
                 *x2 = malloc(n * sizeof(double));
  tide_factor_stats fs;
  int64_t added;
  tide_factor *F = supernodal_factor(A, TIDE_FACTOR_CHOLESKY, 21, &u, &b, &fs, &added);
  /* fill: more than the triangle of A, far less than dense */
  CHECK(fs.nnz_factor > fs.nnz_A && fs.nnz_factor < (int64_t)n * n / 8, "nnz(L) %lld, nnz(A) %lld",
        (long long)fs.nnz_factor, (long long)fs.nnz_A);
  CHECK(fs.nnz_A == (tide_csr_nnz(A) + n) / 2, "nnz_A %lld", (long long)fs.nnz_A);
  CHECK(added >= fs.nnz_factor * 8 && fs.bytes >= fs.nnz_factor * 8,
        "factor memory not counted: %lld bytes for nnz(L) %lld", (long long)added,
        (long long)fs.nnz_factor);
  printf("cholesky 16^3: nnz(A) %lld, nnz(L) %lld, %.3g Mflop, %.1f MB, analyse %.3f s, factor "
         "%.3f s\n",
         (long long)fs.nnz_A, (long long)fs.nnz_factor, fs.flops * 1e-6, fs.bytes / 1e6,
         fs.analyze_seconds, fs.factor_seconds);
  CHECK(tide_factor_solve(F, b, x) == TIDE_OK, "%s", tide_errmsg());
  CHECK(tm_residual(A, x, b) < 1e-14, "cholesky residual %g", tm_residual(A, x, b));
  CHECK(tm_relerr(n, x, u) < 1e-12, "cholesky error %g", tm_relerr(n, x, u));
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-12;
  tide_solve_stats st;
  CHECK(tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, b, xp, &o, &st) == TIDE_OK, "%s",
        tide_errmsg());
  CHECK(tm_relerr(n, xp, x) < 1e-8, "cholesky vs pcg %g", tm_relerr(n, xp, x));

  /* new values, same pattern: A + diag(1 + i mod 3) */
  tide_csr *B = NULL;
  tide_csr_clone(A, &B);
  for (int i = 0; i < n; i++)
    B->val[tide_csr_find(B, i, i)] += 1 + i % 3;
  CHECK(tide_factor_refactor(F, B) == TIDE_OK, "%s", tide_errmsg());
  CHECK(tide_factor_solve(F, b, x) == TIDE_OK, "%s", tide_errmsg());
  tide_factor *G = NULL;
  CHECK(tide_factor_new(B, TIDE_FACTOR_CHOLESKY, &G) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(G, b, x2);
  CHECK(memcmp(x, x2, n * sizeof(double)) == 0, "refactor differs from fresh factor: %g",
        tm_relerr(n, x, x2));
  CHECK(tm_residual(B, x, b) < 1e-14, "refactor residual %g", tm_residual(B, x, b));
  tide_factor_info(F, &fs);
  CHECK(fs.refactors == 2, "refactors %d", fs.refactors);
  /* in-place solve (b and x alias) */
  memcpy(x2, b, n * sizeof(double));
  tide_factor_solve(G, x2, x2);
  CHECK(memcmp(x, x2, n * sizeof(double)) == 0, "aliasing solve differs");
  tide_factor_free(G);

  /* upper (symmetric) storage gives the same factor */
  tide_csr *U = NULL;
  tide_csr_triu(B, &U);
  CHECK(tide_factor_new(U, TIDE_FACTOR_CHOLESKY, &G) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(G, b, x2);
  CHECK(memcmp(x, x2, n * sizeof(double)) == 0, "upper storage differs");
  tide_factor_free(G);
  tide_csr_free(U);

  /* a different pattern is refused */
  tide_csr *P = tm_laplacian(m, m, m - 1, NULL, 1, NULL);
  CHECK(tide_factor_refactor(F, P) == TIDE_EINVAL && strstr(tide_errmsg(), "pattern"),
        "other size accepted: %s", tide_errmsg());
  tide_csr_free(P);

  /* not positive definite: the shifted Laplacian A - 2 I */
  for (int i = 0; i < n; i++)
    B->val[tide_csr_find(B, i, i)] = A->val[tide_csr_find(A, i, i)] - 2;
  CHECK(tide_factor_refactor(F, B) == TIDE_ENOTSPD, "indefinite refactor accepted");
  CHECK(strstr(tide_errmsg(), "not positive definite") != NULL, "message: %s", tide_errmsg());
  CHECK(tide_factor_solve(F, b, x) == TIDE_EINVAL, "solve with a failed factor accepted");
  tide_factor_free(F);
  F = NULL;
  CHECK(tide_factor_new(B, TIDE_FACTOR_CHOLESKY, &F) == TIDE_ENOTSPD && !F, "indefinite accepted");
  printf("indefinite: %s\n", tide_errmsg());
  tide_csr_free(B);
  free(u), free(b), free(x), free(xp), free(x2);
  tide_csr_free(A);
}

/* LDL^T on a quasi-definite saddle-point matrix [H B^T; B -C], H = 2D
 * Laplacian (SPD), B random sparse, C = 0.01 I. */
static void test_ldlt(void) {
  int m = 20, nh = m * m, nb = 60, n = nh + nb;
  tide_csr *H = tm_laplacian(m, m, 1, NULL, 1, NULL);
  int *I, *J;
  double *V;
  int64_t k = triplets_of(H, 2 * 5 * nb + nb, &I, &J, &V);
  for (int r = 0; r < nb; r++) {
    for (int t = 0; t < 5; t++) {
      int c = (int)(tide_rand01(31, 5 * r + t) * nh);
      double v = tide_rand01(32, 5 * r + t) - 0.5;
      I[k] = nh + r, J[k] = c, V[k++] = v;
      I[k] = c, J[k] = nh + r, V[k++] = v;
    }
    I[k] = nh + r, J[k] = nh + r, V[k++] = -0.01;
  }
  tide_csr *K = NULL;
  CHECK(tide_csr_from_triplets(n, n, k, I, J, V, TIDE_CSR_GENERAL, &K) == TIDE_OK, "%s",
        tide_errmsg());
  double *u = tm_randvec(n, 33), *b = malloc(n * sizeof(double)), *x = malloc(n * sizeof(double));
  tide_csr_mul(K, u, b);
  CHECK(tide_solve_direct(K, TIDE_FACTOR_CHOLESKY, b, x) == TIDE_ENOTSPD,
        "cholesky of a saddle point matrix accepted");
  tide_factor *F = NULL;
  CHECK(tide_factor_new(K, TIDE_FACTOR_LDLT, &F) == TIDE_OK, "ldlt: %s", tide_errmsg());
  tide_factor_stats fs;
  tide_factor_info(F, &fs);
  CHECK(fs.supernodal == 0, "a small saddle point (%d rows, %.3g flops) went supernodal", n, fs.flops);
  tide_factor_solve(F, b, x);
  CHECK(tm_residual(K, x, b) < 1e-13 && tm_relerr(n, x, u) < 1e-10, "ldlt residual %g error %g",
        tm_residual(K, x, b), tm_relerr(n, x, u));
  /* symbolic reuse */
  for (int64_t p = 0; p < tide_csr_nnz(K); p++)
    K->val[p] *= 3;
  CHECK(tide_factor_refactor(F, K) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(F, b, x);
  CHECK(tm_relerr(n, x, u) < 1e-10 * 3 || tm_residual(K, x, b) < 1e-13, "ldlt refactor %g",
        tm_residual(K, x, b));
  tide_factor_free(F);
  /* MINRES (symmetric indefinite, Jacobi |diag|) agrees */
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-11;
  tide_solve_stats st;
  double *xm = malloc(n * sizeof(double));
  CHECK(tide_solve_krylov(K, TIDE_KRYLOV_MINRES, TIDE_PRECOND_JACOBI, b, xm, &o, &st) == TIDE_OK,
        "minres: %s", tide_errmsg());
  CHECK(tm_relerr(n, xm, x) < 1e-7, "minres vs ldlt %g (%d iterations)", tm_relerr(n, xm, x),
        st.iterations);
  printf("saddle point %d: ldlt residual %.2e; minres-jacobi %d iterations, vs ldlt %.2e\n", n,
         tm_residual(K, x, b), st.iterations, tm_relerr(n, xm, x));
  free(xm);
  /* an asymmetric matrix is refused by the symmetric kinds */
  K->val[1] += 1;
  CHECK(tide_factor_new(K, TIDE_FACTOR_LDLT, &F) == TIDE_EINVAL &&
            strstr(tide_errmsg(), "not symmetric"),
        "asymmetric accepted: %s", tide_errmsg());
  free(I), free(J), free(V), free(u), free(b), free(x);
  tide_csr_free(K);
  tide_csr_free(H);
}

/* Supernodal LDL^T (ldlt_super.c): a 3D quasi-definite [H Y; Y^T -Z] -- H a 3D Laplacian,
 * Y random sparse columns (like the coupled interface's augmented matrix), Z diagonal --
 * whose analysis picks the supernodal method: the answer against LU, refactor, upper
 * storage and aliasing bit for bit, a zero pivot refused with its message. */
static void test_ldlt_super(void) {
  int m = 14, nh = m * m * m, nb = 300, n = nh + nb;
  tide_csr *H = tm_laplacian(m, m, m, NULL, 1, NULL);
  int *I, *J;
  double *V;
  int64_t k = triplets_of(H, 2 * 12 * nb + nb, &I, &J, &V);
  for (int r = 0; r < nb; r++) {
    /* each column touches 12 cells near a random cell (a solid DOF's cut cells) */
    int c0 = (int)(tide_rand01(51, r) * nh);
    for (int t = 0; t < 12; t++) {
      int c = (c0 + (t % 3) + m * ((t / 3) % 2) + m * m * (t / 6)) % nh;
      double v = tide_rand01(52, 12 * r + t) - 0.5;
      I[k] = nh + r, J[k] = c, V[k++] = v;
      I[k] = c, J[k] = nh + r, V[k++] = v;
    }
    I[k] = nh + r, J[k] = nh + r, V[k++] = -(0.01 + tide_rand01(53, r));
  }
  tide_csr *K = NULL;
  CHECK(tide_csr_from_triplets(n, n, k, I, J, V, TIDE_CSR_GENERAL, &K) == TIDE_OK, "%s",
        tide_errmsg());
  double *u, *b, *x = malloc(n * sizeof(double)), *x2 = malloc(n * sizeof(double)),
                 *xl = malloc(n * sizeof(double));
  tide_factor_stats fs;
  int64_t added;
  tide_factor *F = supernodal_factor(K, TIDE_FACTOR_LDLT, 54, &u, &b, &fs, &added);
  CHECK(fs.bytes >= fs.nnz_factor * 8 && added >= fs.nnz_factor * 8,
        "supernodal factor memory not counted: %lld bytes, nnz(L) %lld", (long long)fs.bytes,
        (long long)fs.nnz_factor);
  CHECK(tide_factor_solve(F, b, x) == TIDE_OK, "%s", tide_errmsg());
  CHECK(tm_residual(K, x, b) < 1e-13 && tm_relerr(n, x, u) < 1e-9, "ldlt residual %g error %g",
        tm_residual(K, x, b), tm_relerr(n, x, u));
  CHECK(tide_solve_direct(K, TIDE_FACTOR_LU, b, xl) == TIDE_OK, "%s", tide_errmsg());
  CHECK(tm_relerr(n, x, xl) < 1e-10, "supernodal ldlt vs lu %g", tm_relerr(n, x, xl));
  printf("supernodal ldlt %d: nnz(L) %lld, %.3g Mflop, largest front %.3g Mflop, factor %.3f s; "
         "residual %.2e, vs lu %.2e\n",
         n, (long long)fs.nnz_factor, fs.flops * 1e-6, fs.front_flops * 1e-6, fs.factor_seconds,
         tm_residual(K, x, b), tm_relerr(n, x, xl));
  /* in place */
  memcpy(x2, b, n * sizeof(double));
  tide_factor_solve(F, x2, x2);
  CHECK(memcmp(x, x2, n * sizeof(double)) == 0, "aliasing solve differs");
  /* upper storage: the same bits */
  tide_csr *U = NULL;
  tide_csr_triu(K, &U);
  tide_factor *G = NULL;
  CHECK(tide_factor_new(U, TIDE_FACTOR_LDLT, &G) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(G, b, x2);
  CHECK(memcmp(x, x2, n * sizeof(double)) == 0, "upper storage differs");
  tide_factor_free(G);
  tide_csr_free(U);
  /* refactor with new values = a fresh factor, bit for bit */
  for (int i = 0; i < nh; i++)
    K->val[tide_csr_find(K, i, i)] += 0.5 + i % 2;
  CHECK(tide_factor_refactor(F, K) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(F, b, x);
  CHECK(tide_factor_new(K, TIDE_FACTOR_LDLT, &G) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(G, b, x2);
  CHECK(memcmp(x, x2, n * sizeof(double)) == 0, "refactor differs from a fresh factor");
  CHECK(tm_residual(K, x, b) < 1e-13, "refactor residual %g", tm_residual(K, x, b));
  tide_factor_free(G);
  /* a zero pivot: one cell's row and column zeroed (its diagonal stored as 0) */
  int z = nh / 2;
  for (int p = K->rowptr[z]; p < K->rowptr[z + 1]; p++) {
    K->val[p] = 0;
    K->val[tide_csr_find(K, K->col[p], z)] = 0;
  }
  CHECK(tide_factor_refactor(F, K) == TIDE_ESINGULAR && strstr(tide_errmsg(), "zero pivot"),
        "singular refactor accepted: %s", tide_errmsg());
  printf("zero pivot: %s\n", tide_errmsg());
  CHECK(tide_factor_solve(F, b, x) == TIDE_EINVAL, "solve with a failed factor accepted");
  tide_factor_free(F);
  free(I), free(J), free(V), free(u), free(b), free(x), free(x2), free(xl);
  tide_csr_free(K);
  tide_csr_free(H);
}

/* UMFPACK LU on a nonsymmetric convection-diffusion matrix; singular matrix
 * gives TIDE_ESINGULAR. */
static void test_lu(void) {
  int m = 40, n = m * m;
  tide_csr *A = tm_convdiff(m, 2.0);
  double *u = tm_randvec(n, 41), *b = malloc(n * sizeof(double)), *x = malloc(n * sizeof(double));
  tide_csr_mul(A, u, b);
  tide_factor *F = NULL;
  CHECK(tide_factor_new(A, TIDE_FACTOR_LU, &F) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(F, b, x);
  CHECK(tm_residual(A, x, b) < 1e-14 && tm_relerr(n, x, u) < 1e-12, "lu residual %g error %g",
        tm_residual(A, x, b), tm_relerr(n, x, u));
  tide_factor_stats fs;
  tide_factor_info(F, &fs);
  CHECK(fs.nnz_factor > tide_csr_nnz(A) && fs.bytes > 0, "lu nnz %lld bytes %lld",
        (long long)fs.nnz_factor, (long long)fs.bytes);
  /* BiCGSTAB-ILU(0) agrees */
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-12;
  tide_solve_stats st;
  double *xb = malloc(n * sizeof(double));
  CHECK(tide_solve_krylov(A, TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, b, xb, &o, &st) == TIDE_OK,
        "%s", tide_errmsg());
  CHECK(tm_relerr(n, xb, x) < 1e-8, "bicgstab vs lu %g", tm_relerr(n, xb, x));
  /* refactor with scaled values */
  for (int64_t p = 0; p < tide_csr_nnz(A); p++)
    A->val[p] *= 0.5;
  CHECK(tide_factor_refactor(F, A) == TIDE_OK, "%s", tide_errmsg());
  tide_factor_solve(F, b, x);
  for (int i = 0; i < n; i++)
    u[i] *= 2;
  CHECK(tm_relerr(n, x, u) < 1e-12, "lu refactor error %g", tm_relerr(n, x, u));
  tide_factor_free(F);
  /* singular: two equal rows give an exactly zero pivot */
  int Is[] = {0, 0, 1, 1, 2}, Js[] = {0, 1, 0, 1, 2};
  double Vs[] = {1, 2, 1, 2, 1};
  tide_csr *N = NULL;
  tide_csr_from_triplets(3, 3, 5, Is, Js, Vs, TIDE_CSR_GENERAL, &N);
  F = NULL;
  CHECK(tide_factor_new(N, TIDE_FACTOR_LU, &F) == TIDE_ESINGULAR && !F, "singular accepted: %s",
        tide_errmsg());
  printf("singular: %s\n", tide_errmsg());
  tide_csr_free(N);
  /* NaN in b */
  tide_factor_new(A, TIDE_FACTOR_LU, &F);
  b[3] = NAN;
  CHECK(tide_factor_solve(F, b, x) == TIDE_ENONFINITE, "NaN accepted");
  tide_factor_free(F);
  free(u), free(b), free(x), free(xb);
  tide_csr_free(A);
}

int main(void) {
  tide_seed_set(99);
  int64_t mem0 = tide_mem_bytes();
  test_cholesky();
  test_ldlt();
  test_ldlt_super();
  test_lu();
  CHECK(tide_mem_bytes() == mem0, "%lld bytes still counted after freeing everything",
        (long long)(tide_mem_bytes() - mem0));
  return check_report();
}
