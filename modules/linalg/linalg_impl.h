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

#endif
