/* zarifi_precond.c -- the multigrid-in-block preconditioner of the SPD and
 * factored coupled systems (see zarifi.h, "block preconditioner"):
 * symmetric multiplicative Schwarz over the interface block (solved exactly
 * by Cholesky) and the liquid block (one multigrid V-cycle of the liquid's
 * Poisson operator, linalg/mgpcg.h). */
#include "couple/zarifi.h"
#include "linalg/mgpcg.h"

#include <string.h>

struct tide_zarifi_precond {
  const tide_csr *A;  /* the system, general storage (not owned) */
  int n, nl, ni;      /* rows, liquid rows, interface rows */
  int *idx;           /* ni: interface rows, ascending */
  /* A[I, L]^T by liquid row: row i's entries A[j, i] (j in I, ascending) at hptr[i] .. hptr[i+1]
   * of hcol (j) and hval -- the liquid residual of step 2 gathered row by row (in parallel) in
   * the order the column scatter through the rows of I summed it */
  int *hptr, *hcol;
  double *hval;
  int64_t nh;
  const int *cell;    /* nl: cell of each liquid row (not owned) */
  double cinv;        /* 1 / c, B = c A_poisson */
  tide_factor *F;     /* Cholesky of A[I, I] */
  tide_mac_solver *M; /* the liquid's V-cycle */
  double *t, *y;      /* ni */
  double *rc, *zc;    /* ncells */
  uint8_t *labels;    /* ncells: the liquid's labels for the V-cycle */
  int64_t ncells;
  double setup_seconds;
};

void tide_zarifi_precond_free(tide_zarifi_precond *M) {
  if (!M) return;
  tide_free(M->idx, (size_t)(M->ni + 1) * sizeof(int));
  tide_free(M->hptr, M->hptr ? (size_t)(M->nl + 1) * sizeof(int) : 0);
  tide_free(M->hcol, M->hcol ? (size_t)(M->nh + 1) * sizeof(int) : 0);
  tide_free(M->hval, M->hval ? (size_t)(M->nh + 1) * sizeof(double) : 0);
  tide_factor_free(M->F);
  tide_mac_solver_free(M->M);
  tide_free(M->t, (size_t)(M->ni + 1) * sizeof(double));
  tide_free(M->y, (size_t)(M->ni + 1) * sizeof(double));
  tide_free(M->rc, (size_t)M->ncells * sizeof(double));
  tide_free(M->zc, (size_t)M->ncells * sizeof(double));
  tide_free(M->labels, (size_t)M->ncells);
  tide_free(M, sizeof *M);
}

int tide_zarifi_precond_new(const tide_csr *A, int nl, const int *cell_of_row,
                            const tide_mac_poisson *P, double c, int ring,
                            tide_zarifi_precond **out) {
  *out = NULL;
  if (!A || !cell_of_row || !P || !(c > 0) || ring < 0)
    return tide_fail(TIDE_EINVAL, "coupled preconditioner: invalid arguments");
  if (A->stype != TIDE_CSR_GENERAL || A->nrows != A->ncols || nl < 0 || nl > A->nrows)
    return tide_fail(TIDE_EINVAL,
                     "coupled preconditioner: A must be square in general storage with the "
                     "liquid rows first");
  double t0 = tide_wtime();
  int n = A->nrows, s = TIDE_OK;
  tide_zarifi_precond *M = tide_calloc(sizeof *M);
  if (!M) return tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
  M->A = A;
  M->n = n;
  M->nl = nl;
  M->cell = cell_of_row;
  M->cinv = 1 / c;
  M->ncells = tide_grid_ncells(&P->grid);
  /* the interface: solid rows, liquid rows coupled to them, then `ring` layers of liquid
   * neighbours (breadth-first through A11's graph) */
  int *lay = tide_alloc((size_t)(n + 1) * sizeof(int)); /* layer of a row, -1: not in I */
  if (!lay) {
    tide_free(M, sizeof *M);
    return tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
  }
  for (int i = nl; i < n; i++)
    lay[i] = 0;
#pragma omp parallel for schedule(static) if (nl > 65536)
  for (int i = 0; i < nl; i++) {
    lay[i] = -1;
    int off = 0; /* a row without off-diagonal entries (a dead cell, A_ii = 1) goes to I too */
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      if (A->col[p] >= nl && A->val[p] != 0) lay[i] = 0;
      off += A->col[p] != i && A->val[p] != 0;
    }
    if (!off) lay[i] = 0;
  }
  for (int l = 1; l <= ring; l++)
    for (int i = 0; i < nl; i++) {
      if (lay[i] != l - 1) continue;
      for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
        int j = A->col[p];
        if (j < nl && lay[j] < 0) lay[j] = l;
      }
    }
  int ni = 0;
  for (int i = 0; i < n; i++)
    ni += lay[i] >= 0;
  M->ni = ni;
  M->idx = tide_alloc((size_t)(ni + 1) * sizeof(int));
  M->t = tide_alloc((size_t)(ni + 1) * sizeof(double));
  M->y = tide_alloc((size_t)(ni + 1) * sizeof(double));
  M->rc = tide_calloc((size_t)M->ncells * sizeof(double));
  M->zc = tide_calloc((size_t)M->ncells * sizeof(double));
  if (!M->idx || !M->t || !M->y || !M->rc || !M->zc) {
    s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
    goto done;
  }
  ni = 0;
  for (int i = 0; i < n; i++)
    if (lay[i] >= 0) {
      M->idx[ni] = i;
      lay[i] = ni++; /* now: position in I */
    }
  /* A[I, L]^T (counting sort of the liquid columns of the rows of I, k ascending) */
  {
    M->hptr = tide_calloc((size_t)(nl + 1) * sizeof(int));
    if (!M->hptr) {
      s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
      goto done;
    }
    int64_t nh = 0;
    for (int k = 0; k < ni; k++) {
      int j = M->idx[k];
      for (int p = A->rowptr[j]; p < A->rowptr[j + 1]; p++)
        if (A->col[p] < nl) M->hptr[A->col[p] + 1]++, nh++;
    }
    if (nh > INT32_MAX) {
      s = tide_fail(TIDE_EINVAL, "coupled preconditioner: interface too large");
      goto done;
    }
    for (int i = 0; i < nl; i++)
      M->hptr[i + 1] += M->hptr[i];
    M->nh = nh;
    M->hcol = tide_alloc((size_t)(nh + 1) * sizeof(int));
    M->hval = tide_alloc((size_t)(nh + 1) * sizeof(double));
    int *next = tide_alloc((size_t)(nl + 1) * sizeof(int));
    if (!M->hcol || !M->hval || !next) {
      tide_free(next, next ? (size_t)(nl + 1) * sizeof(int) : 0);
      s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
      goto done;
    }
    memcpy(next, M->hptr, (size_t)(nl + 1) * sizeof(int));
    for (int k = 0; k < ni; k++) {
      int j = M->idx[k];
      for (int p = A->rowptr[j]; p < A->rowptr[j + 1]; p++)
        if (A->col[p] < nl) {
          int q = next[A->col[p]]++;
          M->hcol[q] = j;
          M->hval[q] = A->val[p];
        }
    }
    tide_free(next, (size_t)(nl + 1) * sizeof(int));
  }
  /* A[I, I] (upper triangle) and its Cholesky factor */
  {
    /* written row by row: lay[] is increasing on I, so each row's positions ascend as A's
     * columns do */
    int64_t na = 0;
    for (int k = 0; k < ni; k++) {
      int i = M->idx[k];
      for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        na += lay[A->col[p]] >= k;
    }
    tide_csr *AI = NULL;
    if ((s = tide_csr_new(ni, ni, na, &AI))) goto done;
    AI->stype = TIDE_CSR_UPPER;
    int64_t o = 0;
    for (int k = 0; k < ni; k++) {
      int i = M->idx[k];
      for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
        int q = lay[A->col[p]];
        if (q >= k) {
          AI->col[o] = q;
          AI->val[o++] = A->val[p];
        }
      }
      AI->rowptr[k + 1] = (int)o;
    }
    s = tide_csr_finish(AI);
    if (!s) s = tide_factor_new(AI, TIDE_FACTOR_CHOLESKY, &M->F);
    tide_csr_free(AI);
    if (s) goto done;
  }
  /* the liquid block's V-cycle, on the liquid cells that have an open face: a cell the solid
   * closes on every side (its B row is 0; J touches it, so it is in I and solved there) is
   * left out of the multigrid hierarchy, where it would only be lumped into a coarse cell
   * with its open neighbours */
  {
    M->labels = tide_alloc((size_t)M->ncells);
    if (!M->labels) {
      s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
      goto done;
    }
    memcpy(M->labels, P->labels, (size_t)M->ncells);
    const tide_grid *g = &P->grid;
#pragma omp parallel for schedule(static) if (M->ncells > 65536)
    for (int i = 0; i < g->n[0]; i++)
      for (int j = 0; j < g->n[1]; j++)
        for (int k = 0; k < g->n[2]; k++) {
          int64_t c = tide_grid_idx(g, i, j, k);
          if (P->labels[c] != TIDE_CELL_LIQUID) continue;
          double dg = tide_mac_poisson_diag(P, i, j, k);
          if (!(dg > 0)) M->labels[c] = TIDE_CELL_SOLID;
        }
    tide_mac_poisson Q = *P;
    Q.labels = M->labels;
    tide_mac_solver_opts mo = tide_mac_solver_opts_default();
    if ((s = tide_mac_solver_new(&Q, &mo, &M->M))) goto done;
  }
  M->setup_seconds = tide_wtime() - t0;
done:
  tide_free(lay, (size_t)(n + 1) * sizeof(int));
  if (s) {
    tide_zarifi_precond_free(M);
    return s;
  }
  *out = M;
  return TIDE_OK;
}

int64_t tide_zarifi_precond_interface(const tide_zarifi_precond *M) { return M ? M->ni : 0; }
double tide_zarifi_precond_setup_seconds(const tide_zarifi_precond *M) {
  return M ? M->setup_seconds : 0;
}

/* t = r[I] - (A z)[I] (rows of I; z may be NULL: z = 0) */
static void interface_residual(const tide_zarifi_precond *M, const double *r, const double *z) {
  const tide_csr *A = M->A;
#pragma omp parallel for schedule(static) if (z && M->ni > 2048)
  for (int k = 0; k < M->ni; k++) {
    int i = M->idx[k];
    double s = r[i];
    if (z)
      for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        s -= A->val[p] * z[A->col[p]];
    M->t[k] = s;
  }
}

int tide_zarifi_precond_apply(void *ctx, const double *r, double *z) {
  tide_zarifi_precond *M = ctx;
  const int nl = M->nl, n = M->n, ni = M->ni;
  int s;
  /* 1. the interface: z = R_I^T A_II^-1 R_I r */
  interface_residual(M, r, NULL);
  if ((s = tide_factor_solve(M->F, M->t, M->y))) return s;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int i = 0; i < n; i++)
    z[i] = 0;
  for (int k = 0; k < ni; k++)
    z[M->idx[k]] = M->y[k];
  /* 2. the liquid: z += R_L^T V R_L (r - A z) / c; A z on the liquid rows from the rows of I
   *    (A symmetric, z supported on I) */
  double *rc = M->rc;
  const int *cell = M->cell, *hp = M->hptr, *hc = M->hcol;
  const double *hv = M->hval;
#pragma omp parallel for schedule(static) if (nl > 65536)
  for (int i = 0; i < nl; i++) {
    double ri = r[i];
    for (int q = hp[i]; q < hp[i + 1]; q++)
      ri -= hv[q] * z[hc[q]];
    rc[cell[i]] = ri;
  }
  if ((s = tide_mac_solver_precondition(M->M, rc, M->zc))) return s;
  const double *zc = M->zc, ci = M->cinv;
#pragma omp parallel for schedule(static) if (nl > 65536)
  for (int i = 0; i < nl; i++)
    z[i] += ci * zc[cell[i]]; /* 0 at the cells left out of the hierarchy */
  /* 3. the interface again: z += R_I^T A_II^-1 R_I (r - A z) */
  interface_residual(M, r, z);
  if ((s = tide_factor_solve(M->F, M->t, M->y))) return s;
  for (int k = 0; k < ni; k++)
    z[M->idx[k]] += M->y[k];
  return TIDE_OK;
}
