/*
 * linalg.h -- sparse matrices and linear solvers (tide.linalg).
 *
 * Plain C, no Lua.  Used by the C core of every module that ends in a sparse
 * solve (pressure projection, viscosity, FEM) and by the Lua binding
 * lua_linalg.c.  See docs/linalg.md for when to use which solver.
 *
 * Conventions
 *   - Indices are 0-based, int (32-bit): a tide_csr can be handed to
 *     CHOLMOD / UMFPACK (CHOLMOD_INT, umfpack_di_*) without copies.
 *   - Vectors are plain double arrays of the matrix dimension; sizes are
 *     implicit (x has ncols entries, y has nrows).
 *   - Every function returns TIDE_OK or a status set with tide_fail(); outputs
 *     are trailing pointers.
 *   - Results are bit-identical for any thread count: reductions use tide_dot,
 *     duplicate triplets are summed in triplet order, triangular solves
 *     compute each row serially.
 */
#ifndef TIDE_LINALG_H
#define TIDE_LINALG_H

#include "tide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ CSR matrix */

/* Storage kinds (tide_csr.stype). */
enum {
  TIDE_CSR_GENERAL = 0, /* every entry stored */
  TIDE_CSR_UPPER = 1    /* symmetric; only the upper triangle (col >= row) stored */
};

struct tide_csr_aux; /* private: triplet map for pattern reuse, transpose index */

/* Compressed sparse row matrix, nrows x ncols, 0-based.
 *   row i holds entries rowptr[i] .. rowptr[i+1]-1, columns col[p] strictly
 *   ascending within a row (no duplicates), values val[p].
 *   nnz = rowptr[nrows] <= nzmax (allocated entries).
 * A matrix built with TIDE_CSR_UPPER storage represents the symmetric matrix
 * U + U^T - diag(U); every operation below (mul, diag, solvers) sees that
 * full matrix.  Explicit zeros are kept (the pattern stays stable). */
typedef struct tide_csr {
  int nrows, ncols;
  int *rowptr; /* nrows + 1 */
  int *col;    /* nzmax */
  double *val; /* nzmax */
  int64_t nzmax;
  int stype; /* TIDE_CSR_GENERAL or TIDE_CSR_UPPER */
  struct tide_csr_aux *aux;
  int rowcap; /* rows rowptr has room for when above nrows (tide_csr_recycle), else 0 */
} tide_csr;

static inline int64_t tide_csr_nnz(const tide_csr *A) { return A->rowptr[A->nrows]; }

/* New matrix with room for nzmax entries, rowptr zeroed (an empty matrix).
 * Callers that fill rowptr/col/val (and stype) themselves must then call
 * tide_csr_finish. */
int tide_csr_new(int nrows, int ncols, int64_t nzmax, tide_csr **out);
void tide_csr_free(tide_csr *A);
/* As tide_csr_new, from *spare's storage when it has room for nrows and nzmax (no allocation,
 * no fresh pages: a matrix rebuilt every step keeps its arrays), else new with an eighth more
 * room (*spare freed).  *spare is NULL afterwards; the result has no triplet map or transpose
 * index.  spare may be NULL or hold NULL. */
int tide_csr_recycle(tide_csr **spare, int nrows, int ncols, int64_t nzmax, tide_csr **out);
/* Validate a hand-filled matrix (tide_csr_check) and prepare the index
 * that TIDE_CSR_UPPER products need.  Call again after changing the
 * pattern. */
int tide_csr_finish(tide_csr *A);
/* Bytes held by A (for memory reports and the Lua GC). */
size_t tide_csr_bytes(const tide_csr *A);

/* Validate structure (rowptr monotone, columns in range and strictly
 * ascending, upper triangle only for TIDE_CSR_UPPER) and that all values
 * are finite.  `what` names the matrix in the message. */
int tide_csr_check(const tide_csr *A, const char *what);

/* Assemble A from n triplets (i[t], j[t], v[t]), 0-based, duplicates summed
 * in triplet order.  stype: TIDE_CSR_GENERAL, or TIDE_CSR_UPPER to store a
 * symmetric matrix by its upper triangle: give the full symmetric matrix
 * (both triangles, as an element loop naturally does); triplets with j < i
 * are skipped.  The map triplet -> entry is kept, so
 * tide_csr_set_triplet_values() can refill the values in place. */
int tide_csr_from_triplets(int nrows, int ncols, int64_t n, const int *i, const int *j,
                           const double *v, int stype, tide_csr **out);

/* Pattern reuse: replace A's values by those of n triplets given in the same
 * order (same i, j) as when A was built; v[t] is the new value of triplet t.
 * Entries are summed in triplet order, so the result equals a fresh build. */
int tide_csr_set_triplet_values(tide_csr *A, int64_t n, const double *v);
/* Number of triplets A was built from (0 if not built from triplets). */
int64_t tide_csr_ntriplets(const tide_csr *A);

/* y = A x (OpenMP over rows).  x: ncols, y: nrows; x and y must not alias. */
int tide_csr_mul(const tide_csr *A, const double *x, double *y);
/* y = alpha A x + beta y (beta == 0 ignores the old y). */
int tide_csr_gemv(const tide_csr *A, double alpha, const double *x, double beta, double *y);
/* Position p of entry (i, j) in col/val (binary search in row i), -1 if the
 * entry is not stored. */
int64_t tide_csr_find(const tide_csr *A, int i, int j);
/* d[i] = A(i, i), i < min(nrows, ncols); 0 where the entry is absent. */
int tide_csr_diag(const tide_csr *A, double *d);
/* A^T (general storage; a TIDE_CSR_UPPER matrix is its own transpose and is
 * copied). */
int tide_csr_transpose(const tide_csr *A, tide_csr **out);
/* Deep copy (values and pattern; the triplet map is shared knowledge and
 * copied too). */
int tide_csr_clone(const tide_csr *A, tide_csr **out);
/* Conversions between general and upper (symmetric) storage.  triu keeps
 * the entries with col >= row of a square matrix (no symmetry check);
 * expand builds the full pattern of a TIDE_CSR_UPPER matrix. */
int tide_csr_triu(const tide_csr *A, tide_csr **out);
int tide_csr_expand(const tide_csr *A, tide_csr **out);
/* C = A B (general storage; Gustavson's algorithm, OpenMP over rows of A,
 * columns sorted).  Inputs in upper storage are expanded on the fly. */
int tide_csr_matmul(const tide_csr *A, const tide_csr *B, tide_csr **out);
/* C = alpha A + beta B (same sizes; union of the patterns, general storage;
 * inputs in upper storage are expanded). */
int tide_csr_add(double alpha, const tide_csr *A, double beta, const tide_csr *B, tide_csr **out);
/* In place A = diag(left) A diag(right); either may be NULL (identity).
 * left has nrows entries, right ncols.  An upper-storage matrix needs
 * left == right (the scaling must keep it symmetric). */
int tide_csr_scale(tide_csr *A, const double *left, const double *right);
/* max |A - A^T| over the entries (0 for exactly symmetric matrices). */
int tide_csr_asymmetry(const tide_csr *A, double *out);

/* ----------------------------------------------- triplet (COO) assembly */

/* A growable triplet list safe to fill from OpenMP loops: each thread
 * appends to its own list; the lists are concatenated in thread order.
 * Filled from a `#pragma omp for schedule(static)` loop (or serially), the
 * concatenation is the serial loop order for any thread count, hence the
 * assembled matrix is bit-identical for any thread count.  Dynamic schedules
 * assemble the same matrix up to rounding of duplicate sums. */
typedef struct tide_triplets tide_triplets;

int tide_triplets_new(int nrows, int ncols, tide_triplets **out);
void tide_triplets_free(tide_triplets *T);
/* Append (i, j, v).  Thread-safe (per-thread lists); never fails: an index
 * out of range, a non-finite value or an allocation failure is remembered
 * and reported by tide_csr_from_tripletlist. */
void tide_triplets_add(tide_triplets *T, int i, int j, double v);
/* Forget all entries, keep the capacity (for the next step's assembly). */
void tide_triplets_clear(tide_triplets *T);
int64_t tide_triplets_count(const tide_triplets *T);
/* 1 if A and B hold the same (i, j) sequence (their lists concatenated in
 * thread order; the values may differ) and neither recorded an error, else 0:
 * a matrix built from one takes the other's values with
 * tide_csr_set_tripletlist_values (same pattern, same sums). */
int tide_triplets_same_indices(const tide_triplets *A, const tide_triplets *B);
/* Assemble (see tide_csr_from_triplets). */
int tide_csr_from_tripletlist(const tide_triplets *T, int stype, tide_csr **out);
/* Pattern reuse: refill A from T, which was filled with the same (i, j)
 * sequence as the list A was built from. */
int tide_csr_set_tripletlist_values(tide_csr *A, const tide_triplets *T);

/* A base matrix embedded in a larger one, plus a triplet list (a Newton
 * system: an element Hessian whose pattern never changes, kept as a CSR and
 * refilled, beside a few contact or coupling blocks that come and go).
 * C (T's size, square when B is given, storage stype) = E B E^T + T: row and
 * column i of B become row and column map[i] of C (map[i] = -1 drops them;
 * the kept map strictly increasing; map NULL: B is C's size).  B in upper
 * storage is read as the symmetric matrix it stands for (mirrored into a
 * general C); into an upper C, B's and T's entries with j < i are skipped.
 * Each entry of C is 0 + B's entry (if any) + T's triplets in list order:
 * the sums tide_csr_from_tripletlist gives for one list holding B's entries
 * first, so when B's entries are themselves sums in list order (a CSR built
 * from or refilled by triplets), C equals the matrix built from all the
 * triplets, bit for bit.  C keeps the map; tide_csr_embed_tripletlist_values
 * refills it (no allocation, OpenMP over entries) from B's new values on the
 * same pattern and a list with the (i, j) sequence C was built from
 * (tide_triplets_same_indices). */
int tide_csr_embed_tripletlist(const tide_csr *B, const int *map, const tide_triplets *T,
                               int stype, tide_csr **out);
int tide_csr_embed_tripletlist_values(tide_csr *C, const tide_csr *B, const tide_triplets *T);

/* ------------------------------------------------------ preconditioners */

enum {
  TIDE_PRECOND_NONE = 0,
  TIDE_PRECOND_JACOBI, /* M = diag(A) (|diag| for MINRES) */
  TIDE_PRECOND_IC0,    /* incomplete Cholesky, zero fill: M = U^T U on the pattern of A */
  TIDE_PRECOND_MIC0,   /* modified IC(0): dropped fill added to the diagonal (row sums kept) */
  TIDE_PRECOND_ILU0    /* incomplete LU, zero fill (nonsymmetric square matrices) */
};
const char *tide_precond_name(int kind);

/* MIC(0) parameters (Bridson, "Fluid Simulation for Computer Graphics",
 * 2nd ed., sec. 5.2.6): tau = fraction of dropped fill moved to the diagonal,
 * sigma = safety: a pivot below sigma * A(i,i) is replaced by A(i,i). */
#define TIDE_MIC_TAU 0.97
#define TIDE_MIC_SIGMA 0.25

/* A preconditioner for a square CSR matrix: the pattern analysis (factor
 * pattern, transpose maps, level schedules for the parallel triangular
 * solves) is done once by tide_precond_new; tide_precond_refactor recomputes
 * the numbers for new values on the same pattern.
 *   IC0/MIC0: A symmetric (upper triangle used) with positive diagonal;
 *             M = U^T U with U upper triangular on the pattern of triu(A).
 *   ILU0:     any square matrix with a nonzero diagonal; M = L U.
 * Triangular solves are level-scheduled: rows with no dependency between
 * them are solved in parallel, each row serially (deterministic). */
typedef struct tide_precond tide_precond;
int tide_precond_new(const tide_csr *A, int kind, tide_precond **out);
int tide_precond_refactor(tide_precond *P, const tide_csr *A);
/* z = M^{-1} r (z and r must not alias). */
int tide_precond_apply(const tide_precond *P, const double *r, double *z);
void tide_precond_free(tide_precond *P);
/* IC0 breaks down (a pivot <= 1e-12 A_kk, or a non-finite factor; MIC0:
 * a non-finite factor) on some SPD matrices far from M-matrices; the
 * factorization is then retried on A + shift diag(A) with
 * shift = 1e-3, 2e-3, 4e-3, ... (Manteuffel 1980; Lin & More 1999, as in
 * Eigen's IncompleteCholesky).  The shift of the last factorization (0 when
 * none was needed). */
double tide_precond_shift(const tide_precond *P);
/* Level-parallel or serial triangular solves: mode < 0 automatic (the
 * default: the faster of the two, measured on the fly; both give
 * bit-identical results), 0 always serial, 1 always level-parallel (when
 * the schedule has enough rows per level). */
void tide_precond_set_parallel(tide_precond *P, int mode);
/* Number of levels of the forward and backward triangular solves (0 for
 * NONE/JACOBI); n / levels is the parallelism available. */
void tide_precond_levels(const tide_precond *P, int *forward, int *backward);

/* ------------------------------------------------------ Krylov solvers */

enum {
  TIDE_KRYLOV_PCG = 0, /* SPD A, SPD M (none, jacobi, ic0, mic0) */
  TIDE_KRYLOV_MINRES,  /* symmetric (indefinite) A, SPD M (none, jacobi with |diag|) */
  TIDE_KRYLOV_BICGSTAB /* general square A, any M (none, jacobi, ilu0, ic0, mic0) */
};
const char *tide_krylov_name(int method);

typedef struct tide_solve_opts {
  double tol;    /* stop when ||b - A x|| <= tol ||b|| (default 1e-8) */
  int maxit;     /* iteration limit (default 0: max(1000, 2 n)) */
  int use_x0;    /* x holds the initial guess on entry (default 0: x0 = 0) */
  int nullspace; /* 1: A has the constant vector as null space (pure Neumann
                    Poisson); the mean of b is removed, iterates are kept
                    mean-free and the returned x has zero mean */
} tide_solve_opts;

/* The defaults listed above. */
tide_solve_opts tide_solve_opts_default(void);

typedef struct tide_solve_stats {
  int iterations;  /* Krylov iterations performed */
  double residual; /* final ||b - A x|| / ||b||, recomputed from x */
  double seconds;  /* wall time of the solve */
  int converged;   /* residual <= tol */
} tide_solve_stats;

/* A linear operator y = Op(x) on vectors of length n, for the matrix-free
 * solvers (e.g. the MAC-grid Laplacian and multigrid preconditioner).
 * Returns a status. */
typedef int (*tide_linop_fn)(void *ctx, const double *x, double *y);

/* Preconditioned conjugate gradients (Hestenes & Stiefel 1952; Saad,
 * "Iterative Methods for Sparse Linear Systems", Alg. 9.1) for SPD A with an
 * SPD preconditioner M (M = NULL: none).  work: 4 n doubles.  x: on entry the
 * initial guess if o->use_x0, on exit the solution.  Stats are always filled.
 * Returns TIDE_ENOCONV (message with the residual reached) when the tolerance
 * is not met within maxit, TIDE_ENOTSPD when p^T A p <= 0 (A or M not SPD),
 * TIDE_ENONFINITE for NaN/Inf in b, x0 or the iterates, TIDE_EINTR when
 * tide_interrupted() became set. */
int tide_pcg_op(int64_t n, tide_linop_fn A, void *actx, tide_linop_fn M, void *mctx,
                const double *b, double *x, double *work, const tide_solve_opts *o,
                tide_solve_stats *st);
/* Preconditioned MINRES (Paige & Saunders 1975; the preconditioned form of
 * Elman, Silvester & Wathen, "Finite Elements and Fast Iterative Solvers",
 * Alg. 2.4) for symmetric, possibly indefinite A and SPD M.  work: 7 n. */
int tide_minres_op(int64_t n, tide_linop_fn A, void *actx, tide_linop_fn M, void *mctx,
                   const double *b, double *x, double *work, const tide_solve_opts *o,
                   tide_solve_stats *st);
/* BiCGSTAB (van der Vorst 1992; Saad Alg. 7.7) with right preconditioning
 * for general square A.  work: 8 n. */
int tide_bicgstab_op(int64_t n, tide_linop_fn A, void *actx, tide_linop_fn M, void *mctx,
                     const double *b, double *x, double *work, const tide_solve_opts *o,
                     tide_solve_stats *st);

/* A Krylov solver bound to a matrix pattern: preconditioner and work
 * vectors allocated once (tide_krylov_new), numbers refreshed for new values
 * on the same pattern (tide_krylov_refactor), then any number of solves with
 * no allocation.  A passed to refactor/solve must have the pattern given to
 * new.  After values change without a refactor the solve is still correct,
 * only the preconditioner is stale. */
typedef struct tide_krylov tide_krylov;
int tide_krylov_new(const tide_csr *A, int method, int precond, tide_krylov **out);
int tide_krylov_refactor(tide_krylov *S, const tide_csr *A);
int tide_krylov_solve(tide_krylov *S, const tide_csr *A, const double *b, double *x,
                      const tide_solve_opts *o, tide_solve_stats *st);
void tide_krylov_free(tide_krylov *S);
/* The preconditioner inside S (for level counts). */
const tide_precond *tide_krylov_precond(const tide_krylov *S);

/* One-shot convenience: new + solve + free. */
int tide_solve_krylov(const tide_csr *A, int method, int precond, const double *b, double *x,
                      const tide_solve_opts *o, tide_solve_stats *st);

/* ------------------------------------------------------ direct solvers */

enum {
  TIDE_FACTOR_CHOLESKY = 0, /* A = L L^T, SPD A: CHOLMOD supernodal (BLAS-3) */
  TIDE_FACTOR_LDLT,         /* A = L D L^T, symmetric quasi-definite A (e.g. [H B^T; B -C]
                               with H, C SPD), no pivoting: CHOLMOD simplicial, or supernodal
                               (ldlt_super.c) when the analysis finds dense fronts */
  TIDE_FACTOR_LU            /* P A Q = L U, general square A: UMFPACK */
};
const char *tide_factor_name(int kind);

/* Facts about a factorization (tide_factor_info). */
typedef struct tide_factor_stats {
  int kind, n;
  int64_t nnz_A;      /* entries of A given to the factorization (one triangle if symmetric) */
  int64_t nnz_factor; /* nnz(L) (Cholesky, LDL^T: CHOLMOD's count without supernodal
                         padding) or nnz(L) + nnz(U) (LU) */
  double flops;       /* floating-point operations of one numeric factorization */
  int64_t bytes;      /* memory held by the factor object (also in tide_mem_bytes()) */
  double analyze_seconds, factor_seconds; /* last analysis and numeric factorization */
  int supernodal;                         /* 1 if CHOLMOD chose/was given the supernodal method */
  int refactors;                          /* numeric factorizations done since the analysis */
  double front_flops; /* Cholesky/LDL^T: flops of the largest dense front (supernode) */
  int threads;        /* threads the last numeric factorization ran BLAS with */
  int blocks;         /* supernodal LDL^T: blocks of whole elimination trees factored and solved
                         side by side (1: one sweep; 0: another method) */
  int subtrees;       /* supernodal LDL^T of one tree: subtrees solved side by side below the
                         tree's top (0: none) */
  int ordering;       /* the fill-reducing ordering the analysis used (TIDE_ORDER_AMD or
                         TIDE_ORDER_METIS; TIDE_ORDER_AUTO when the library does not say) */
} tide_factor_stats;

/* Fill-reducing orderings of tide_factor_new_ordered:
 *   AUTO   the library's default strategy: CHOLMOD tries AMD and, when its fill is high
 *          (nnz(L) >= 5 nnz(A) and flops / nnz(L) >= 500), METIS too, keeping the better;
 *          UMFPACK likewise (its CHOLMOD ordering);
 *   AMD    approximate minimum degree only: the cheap analysis, for a pattern analysed anew
 *          every step (the coupled interface: 13-16 ms against 70-82 ms with the METIS trial,
 *          for nnz(L) within 4%);
 *   METIS  nested dissection (METIS) only. */
enum { TIDE_ORDER_AUTO = 0, TIDE_ORDER_AMD = 1, TIDE_ORDER_METIS = 2 };

/* A sparse direct factorization with its symbolic analysis (fill-reducing
 * ordering, elimination tree, supernodes) kept for reuse:
 *   tide_factor_new       analyse the pattern of A and factorize;
 *   tide_factor_refactor  numeric factorization of new values on the same
 *                         pattern (no new analysis);
 *   tide_factor_solve     x = A^{-1} b, without allocation.
 * Cholesky: A must be symmetric positive definite; otherwise TIDE_ENOTSPD
 * with the failing pivot.  LDLT: symmetric with a nonzero-pivot LDL^T in the
 * fill-reducing order (guaranteed for quasi-definite matrices); a zero pivot
 * gives TIDE_ESINGULAR.  Symmetric kinds read the upper triangle of A
 * (general or TIDE_CSR_UPPER storage) and check that a general-storage A is
 * symmetric.  LU: any square nonsingular A (TIDE_ESINGULAR otherwise).
 * Memory of CHOLMOD/UMFPACK is counted in tide_mem_bytes(). */
typedef struct tide_factor tide_factor;
int tide_factor_new(const tide_csr *A, int kind, tide_factor **out);
/* The same with a chosen ordering (TIDE_ORDER_*); tide_factor_new is TIDE_ORDER_AUTO. */
int tide_factor_new_ordered(const tide_csr *A, int kind, int ordering, tide_factor **out);
int tide_factor_refactor(tide_factor *F, const tide_csr *A);
/* b and x have n entries and may alias. */
int tide_factor_solve(tide_factor *F, const double *b, double *x);
/* x = A^{-T} b (the same as tide_factor_solve for the symmetric kinds). */
int tide_factor_solve_transpose(tide_factor *F, const double *b, double *x);
void tide_factor_info(const tide_factor *F, tide_factor_stats *out);
void tide_factor_free(tide_factor *F);

/* One-shot convenience: factor, solve, free. */
int tide_solve_direct(const tide_csr *A, int kind, const double *b, double *x);

/* ------------------------------------------- condition number estimate */

/* The 1-norm of A, max_j sum_i |a_ij| (the full matrix for upper storage). */
int tide_csr_norm1(const tide_csr *A, double *out);

/* Estimate of ||B||_1 for an n x n operator B given by its products
 * y = B x (apply) and y = B^T x (apply_t), by Hager's method with Higham's
 * refinements (Higham 1988, "FORTRAN codes for estimating the one-norm of a
 * real or complex matrix", ACM TOMS 14, Alg. 4.1; LAPACK dlacn2): a convex
 * maximization of ||B x||_1 over the unit 1-ball, at most 5 sign-vector
 * iterations, then the extra estimate 2 ||B b||_1 / (3n) with the
 * alternating vector b_i = (-1)^i (1 + i/(n-1)) guarding against the
 * method's known counterexamples.  The estimate is a lower bound of ||B||_1
 * (exact in most cases, rarely below a third of it).  *products receives the
 * number of products computed (<= 11). */
int tide_normest1(int n, tide_linop_fn apply, tide_linop_fn apply_t, void *ctx, double *est,
                  int *products);

/* Condition number estimate kappa_1(A) = ||A||_1 ||A^{-1}||_1 with the
 * inverse's norm from tide_normest1 through the factorization F of A
 * (solves with A and A^T); the same estimate as MATLAB's condest with
 * block size 1.  Outputs may be NULL except cond. */
int tide_condest1(const tide_csr *A, tide_factor *F, double *cond, double *norm_A,
                  double *norm_inv, int *solves);

#ifdef __cplusplus
}
#endif
#endif
