/* linalg_impl.h -- private helpers shared by the files of modules/linalg. */
#ifndef TIDE_LINALG_IMPL_H
#define TIDE_LINALG_IMPL_H

#include "linalg.h"

/* Parallelise a loop only when it has this much work: with the cores shared
 * (or many threads), forking a team for a few thousand operations costs
 * more than it saves. */
#define TIDE_LA_PAR(work) ((int64_t)(work) > 32768)

/* tide_precond_new with M = |diag(A)| for Jacobi when abs_jacobi != 0
 * (MINRES needs an SPD preconditioner for indefinite A). */
int tide_precond_new_ex(const tide_csr *A, int kind, int abs_jacobi, tide_precond **out);

/* Supernodal LDL^T without pivoting (ldlt_super.c) on CHOLMOD's supernodal symbolic factor
 * (its super, pi, px, s and Perm arrays and maxcsize, the arrays kept by reference: they must outlive the object).
 * new: the map from A's upper triangle (general or upper CSR, the pattern analysed) to the
 * fronts; factor: numeric factorization of A's values (same pattern), TIDE_ESINGULAR with
 * *failed = the step of a zero or non-finite pivot; solve: x = A^-1 b (b, x may alias). */
typedef struct tide_ldlt_super tide_ldlt_super;
int tide_ldlt_super_new(const tide_csr *A, int nsuper, const int *super, const int *pi,
                        const int *px, const int *ls, const int *perm, size_t maxcsize,
                        tide_ldlt_super **out);
int tide_ldlt_super_factor(tide_ldlt_super *S, const tide_csr *A, int *failed);
/* x = A^-1 b; threads: the most the subtrees (or blocks) are solved on side by side */
void tide_ldlt_super_solve(tide_ldlt_super *S, const double *b, double *x, int threads);
int64_t tide_ldlt_super_bytes(const tide_ldlt_super *S);
int tide_ldlt_super_blocks(const tide_ldlt_super *S); /* blocks of whole trees (1: one sweep) */
/* one tree's solve: subtrees side by side below its top (0: none) */
int tide_ldlt_super_subtrees(const tide_ldlt_super *S);
void tide_ldlt_super_free(tide_ldlt_super *S);

#endif
