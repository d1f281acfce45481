/* ldlt_super.c -- supernodal LDL^T without pivoting (A = P^T L D L^T P, L unit lower
 * triangular, D diagonal of either sign) on CHOLMOD's supernodal symbolic analysis.
 *
 * CHOLMOD factors supernodally only as L L^T (dense Cholesky of each front), so a
 * symmetric quasi-definite matrix [H B^T; B -C] (H, C SPD), whose LDL^T with 1x1 pivots
 * exists in every symmetric ordering (Vanderbei, "Symmetric quasi-definite matrices",
 * SIAM J. Optim. 5, 1995), went through its simplicial up-looking LDL^T: a row at a time
 * with scattered updates, ~2 GFlop/s where the dense fronts of a 3D problem would run
 * BLAS-3 at several times that.  This file is the numeric half of the supernodal
 * method with D in the fronts:
 *   - left-looking over the supernodes in CHOLMOD's order (as cholmod_super_numeric:
 *     Ng & Peyton, "Block sparse Cholesky algorithms on advanced uniprocessor
 *     computers", SIAM J. Sci. Comput. 14, 1993): supernode s gathers its columns of
 *     P A P^T, then every descendant d with rows in s's columns subtracts
 *     L_d[rows >= s, :] D_d L_d[rows of s, :]^T (one dgemm);
 *   - the front (nsrow x nscol, column-major) is then factored in place as a tall
 *     panel, LDL^T in blocks of NB columns: unblocked within the block, the trailing
 *     columns updated with one dgemm;
 *   - L's unit diagonal is implicit; D sits on the front's diagonal.
 * Solves sweep the fronts (forward L, D, backward L^T): the rows below a front's columns
 * summed densely and scattered (gathered) once per front, dtrsv / dgemv on the larger fronts
 * (as fast as CHOLMOD's simplicial solve on the same factor: 4.1 against 3.8 ms at 2.2M
 * entries, 9-12 against 12.4 ms at 5.7M).  No pivoting:
 * a zero (or non-finite) pivot is reported with its step, as the simplicial path does.
 *
 * A forest (several solids' interfaces, each its own elimination tree) is cut into blocks
 * of whole trees, consecutive in CHOLMOD's postorder: a block shares no front, no update
 * and no row of y with another, so the blocks are factored and solved side by side, one
 * thread each (tasks when called inside a parallel region, e.g. beside the coupled
 * preconditioner's V-cycle set-up), every block's arithmetic exactly as the serial sweep
 * does it: the same answer bit for bit on any thread count.
 *
 * One tree (the usual interface) is solved side by side below its top: the tree is cut, by
 * work alone (not by the thread count: the same answer on any thread count), into disjoint
 * subtrees and the top supernodes above them (make_split).  Forward, the subtrees run side by
 * side, each adding its updates of the top's rows into its own slice of acc instead of y; the
 * slices are then subtracted from y in subtree order and the top is swept.  Backward, the top
 * first, then the subtrees side by side (each reads the top's final values).  The sums reach
 * the top's rows in another order than one sweep's: the same to rounding, deterministic. */
#include "linalg_impl.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Fortran BLAS (OpenBLAS here); the hidden string lengths are not needed by it. */
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

void dgemv_(const char *t, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);
void dtrsv_(const char *uplo, const char *t, const char *diag, const int *n, const double *a,
            const int *lda, double *x, const int *incx);

#define NB 64 /* columns of the front factored before a trailing dgemm */
#define SOLVE_BLAS 1024 /* fronts of at least this many entries are solved with dtrsv / dgemv */
#define SOLVE_PAR 65536 /* factors of at least this many entries solve their blocks side by side */

/* a block's outcome when factored side by side (the error is raised on the caller's thread) */
typedef struct {
  int status, failed, m, k; /* TIDE_ESINGULAR: failed; TIDE_EINVAL: an update m x k too large */
} blk_result;

struct tide_ldlt_super {
  int n, nsuper;
  const int *super, *pi, *ls, *perm; /* CHOLMOD's symbolic factor (not owned) */
  const int *px;
  double *x;       /* the fronts, px[nsuper] values */
  int64_t nx;
  int64_t nnz;     /* entries of A scattered (one triangle) */
  int64_t *dst;    /* nnz: where each entry of A goes in x */
  int *smap;       /* n: the supernode of each column */
  int *head, *next, *lpos;       /* nsuper each */
  int64_t maxc, maxt;
  double *y;       /* n: the solve's permuted right side */
  /* blocks of whole elimination trees (nblk >= 2: side by side; 1: one serial sweep):
   * supernodes blk[b] .. blk[b+1]-1, scheduled in the order of border (most work first) */
  int nblk, blkcap, *blk, *border;
  blk_result *res; /* nblk (nblk >= 2): each block's outcome */
  /* one tree's split for the solve (nsub >= 2; 0: none): subtrees sub[2q] .. sub[2q+1]-1
   * (supernodes, consecutive), scheduled in the order of sorder (most work first), and the
   * top's ntop supernodes (ascending) whose ntcol columns are numbered by tcol (n, -1: not the
   * top's); acc: nsub x ntcol, each subtree's forward updates of the top's rows */
  int nsub, ntop, ntcol, *sub, *sorder, *top, *tcol;
  double *acc;
  /* per-thread scratch (nscr sets): map (n), the updates' C (maxc) and T (maxt), the solve's
   * r (n) */
  int nscr;
  int **map;
  double **c, **t, **r;
};

static void sfree(tide_ldlt_super *S) {
  if (!S) return;
  size_t n = (size_t)S->n + 1, ns = (size_t)S->nsuper + 1;
  tide_free(S->x, (size_t)(S->nx + 1) * sizeof(double));
  tide_free(S->dst, (size_t)(S->nnz + 1) * sizeof(int64_t));
  tide_free(S->smap, n * sizeof(int));
  tide_free(S->head, ns * sizeof(int));
  tide_free(S->next, ns * sizeof(int));
  tide_free(S->lpos, ns * sizeof(int));
  tide_free(S->y, n * sizeof(double));
  for (int k = 0; k < S->nscr; k++) {
    tide_free(S->map[k], n * sizeof(int));
    tide_free(S->c[k], (size_t)(S->maxc + 1) * sizeof(double));
    tide_free(S->t[k], (size_t)(S->maxt + 1) * sizeof(double));
    tide_free(S->r[k], n * sizeof(double));
  }
  size_t np = (size_t)(S->nscr > 0 ? S->nscr : 1);
  tide_free(S->map, S->map ? np * sizeof(int *) : 0);
  tide_free(S->c, S->c ? np * sizeof(double *) : 0);
  tide_free(S->t, S->t ? np * sizeof(double *) : 0);
  tide_free(S->r, S->r ? np * sizeof(double *) : 0);
  tide_free(S->blk, S->blk ? (size_t)S->blkcap * sizeof(int) : 0);
  tide_free(S->border, S->border ? (size_t)S->blkcap * sizeof(int) : 0);
  tide_free(S->res, S->res ? (size_t)S->nblk * sizeof(blk_result) : 0);
  size_t cap = (size_t)S->nsuper + 1;
  tide_free(S->sub, S->sub ? 2 * cap * sizeof(int) : 0);
  tide_free(S->sorder, S->sorder ? cap * sizeof(int) : 0);
  tide_free(S->top, S->top ? cap * sizeof(int) : 0);
  tide_free(S->tcol, S->tcol ? n * sizeof(int) : 0);
  tide_free(S->acc, S->acc ? (size_t)((int64_t)S->nsub * S->ntcol + 1) * sizeof(double) : 0);
  tide_free(S, sizeof *S);
}

/* Scratch for k threads (grown, never shrunk; false when out of memory). */
static int scratch(tide_ldlt_super *S, int k) {
  if (k <= S->nscr) {
    for (int q = 0; q < S->nscr; q++)
      if (!S->map[q] || !S->c[q] || !S->t[q] || !S->r[q]) return 0;
    return 1;
  }
  size_t n = (size_t)S->n + 1, np = (size_t)(S->nscr > 0 ? S->nscr : 1);
  int **map = tide_alloc((size_t)k * sizeof(int *));
  double **c = tide_alloc((size_t)k * sizeof(double *)), **t = tide_alloc((size_t)k * sizeof(double *)),
         **r = tide_alloc((size_t)k * sizeof(double *));
  if (!map || !c || !t || !r) {
    tide_free(map, map ? (size_t)k * sizeof(int *) : 0);
    tide_free(c, c ? (size_t)k * sizeof(double *) : 0);
    tide_free(t, t ? (size_t)k * sizeof(double *) : 0);
    tide_free(r, r ? (size_t)k * sizeof(double *) : 0);
    return 0;
  }
  for (int q = 0; q < k; q++) {
    int old = q < S->nscr;
    map[q] = old ? S->map[q] : tide_alloc(n * sizeof(int));
    c[q] = old ? S->c[q] : tide_alloc((size_t)(S->maxc + 1) * sizeof(double));
    t[q] = old ? S->t[q] : tide_alloc((size_t)(S->maxt + 1) * sizeof(double));
    r[q] = old ? S->r[q] : tide_alloc(n * sizeof(double));
  }
  tide_free(S->map, S->map ? np * sizeof(int *) : 0);
  tide_free(S->c, S->c ? np * sizeof(double *) : 0);
  tide_free(S->t, S->t ? np * sizeof(double *) : 0);
  tide_free(S->r, S->r ? np * sizeof(double *) : 0);
  S->map = map, S->c = c, S->t = t, S->r = r;
  S->nscr = k; /* sets that failed to allocate are NULL: freed as such, checked below */
  return scratch(S, 0);
}

/* The blocks of whole trees: the supernodal elimination tree's roots split CHOLMOD's
 * postorder into consecutive ranges (checked; otherwise one block); consecutive trees are
 * gathered into blocks of at least 1/16 of the work (nscol nsrow^2 per front), and the
 * blocks run side by side only when the largest holds at most 4/5 of it. */
static int make_blocks(tide_ldlt_super *S) {
  const int ns = S->nsuper, *super = S->super, *pi = S->pi, *ls = S->ls;
  S->nblk = 1;
  if (ns < 2) return TIDE_OK;
  size_t cap = (size_t)ns + 1;
  int *root = tide_alloc(cap * sizeof(int));
  double *w = tide_alloc(cap * sizeof(double));
  S->blk = tide_alloc(cap * sizeof(int));
  S->border = tide_alloc(cap * sizeof(int));
  S->blkcap = (int)cap;
  int st = TIDE_OK;
  if (!root || !w || !S->blk || !S->border) {
    st = tide_fail(TIDE_ENOMEM, "ldlt: out of memory");
    goto done;
  }
  double tot = 0;
  for (int s = ns - 1; s >= 0; s--) { /* a parent comes after its children */
    int nc = super[s + 1] - super[s], nr = pi[s + 1] - pi[s];
    int par = nr > nc ? S->smap[ls[pi[s] + nc]] : -1;
    root[s] = par < 0 ? s : root[par];
    w[s] = (double)nc * nr * nr;
    tot += w[s];
  }
  for (int s = 1; s < ns; s++)
    if (root[s] != root[s - 1] && root[s - 1] != s - 1) goto done; /* not consecutive */
  int nb = 0;
  double acc = 0, big = 0;
  S->blk[0] = 0;
  for (int s = 0; s < ns; s++) {
    acc += w[s];
    if (root[s] == s && (acc >= tot / 16 || s == ns - 1)) { /* a tree ends here */
      w[nb] = acc; /* w[0 .. s] is read no more: now the blocks' work */
      S->blk[++nb] = s + 1;
      big = acc > big ? acc : big;
      acc = 0;
    }
  }
  if (nb < 2 || big > 0.8 * tot) goto done;
  if (!(S->res = tide_alloc((size_t)nb * sizeof(blk_result)))) {
    st = tide_fail(TIDE_ENOMEM, "ldlt: out of memory");
    goto done;
  }
  S->nblk = nb;
  /* most work first (ties by position): the greedy schedule of the dynamic loop */
  for (int q = 0; q < nb; q++)
    S->border[q] = q;
  for (int q = 1; q < nb; q++) {
    int x = S->border[q], k = q - 1;
    while (k >= 0 && w[S->border[k]] < w[x])
      S->border[k + 1] = S->border[k], k--;
    S->border[k + 1] = x;
  }
done:
  tide_free(root, root ? cap * sizeof(int) : 0);
  tide_free(w, w ? cap * sizeof(double) : 0);
  return st;
}

/* One tree's split for the solve (see the top of the file): starting from the roots, the
 * candidate subtree with the most work (fronts' entries) gives its root to the top and its
 * children become candidates, while the largest candidate holds more than a quarter of the
 * candidates' work, the top less than half of all, and there are at most 64; kept when at
 * least two candidates remain and the top holds at most 3/5 of the work.  Only for factors of
 * SOLVE_PAR entries or more, and not for forests cut into blocks. */
static int make_split(tide_ldlt_super *S) {
  const int ns = S->nsuper, *super = S->super, *pi = S->pi, *ls = S->ls;
  S->nsub = 0;
  if (S->nblk > 1 || S->nx < SOLVE_PAR || ns < 3) return TIDE_OK;
  size_t cap = (size_t)ns + 1;
  int *par = tide_alloc(cap * sizeof(int)), *first = tide_alloc(cap * sizeof(int));
  int *cand = tide_alloc(cap * sizeof(int)), *kids = tide_alloc(cap * sizeof(int));
  int *kptr = tide_calloc((cap + 1) * sizeof(int)), *intop = tide_calloc(cap * sizeof(int));
  double *w = tide_alloc(cap * sizeof(double)), *W = tide_alloc(cap * sizeof(double));
  int st = TIDE_OK;
  if (!par || !first || !cand || !kids || !kptr || !intop || !w || !W) {
    st = tide_fail(TIDE_ENOMEM, "ldlt: out of memory");
    goto done;
  }
  double tot = 0;
  for (int s = 0; s < ns; s++) {
    int nc = super[s + 1] - super[s], nr = pi[s + 1] - pi[s];
    par[s] = nr > nc ? S->smap[ls[pi[s] + nc]] : -1;
    if (par[s] >= 0 && par[s] <= s) goto done; /* not a postorder: no split */
    first[s] = s;
    W[s] = w[s] = (double)nc * nr;
    tot += w[s];
  }
  for (int s = 0; s < ns; s++)
    if (par[s] >= 0) {
      int p = par[s];
      first[p] = first[s] < first[p] ? first[s] : first[p];
      W[p] += W[s];
      kptr[p + 1]++;
    }
  for (int s = 0; s < ns; s++)
    kptr[s + 1] += kptr[s];
  {
    int *fill = intop; /* (zero; reset below) */
    for (int s = 0; s < ns; s++)
      if (par[s] >= 0) kids[kptr[par[s]] + fill[par[s]]++] = s;
    memset(intop, 0, cap * sizeof(int));
  }
  /* every subtree must be the consecutive range [first[s], s] (a postorder): its size */
  for (int s = 0; s < ns; s++)
    cand[s] = 1;
  for (int s = 0; s < ns; s++)
    if (par[s] >= 0) cand[par[s]] += cand[s];
  for (int s = 0; s < ns; s++)
    if (s - first[s] + 1 != cand[s]) goto done;
  int nc = 0;
  double ctot = 0, topw = 0;
  for (int s = 0; s < ns; s++)
    if (par[s] < 0) cand[nc++] = s, ctot += W[s];
  while (nc > 0) {
    int b = 0;
    for (int q = 1; q < nc; q++)
      if (W[cand[q]] > W[cand[b]]) b = q;
    int r = cand[b];
    if (!(W[r] > ctot / 4) || topw + w[r] > tot / 2 || nc - 1 + kptr[r + 1] - kptr[r] > 64) break;
    intop[r] = 1, topw += w[r], ctot -= W[r];
    cand[b] = cand[--nc];
    for (int k = kptr[r]; k < kptr[r + 1]; k++)
      cand[nc++] = kids[k], ctot += W[kids[k]];
  }
  if (nc < 2 || topw > 0.6 * tot) goto done;
  S->sub = tide_alloc(2 * cap * sizeof(int));
  S->sorder = tide_alloc(cap * sizeof(int));
  S->top = tide_alloc(cap * sizeof(int));
  S->tcol = tide_alloc(((size_t)S->n + 1) * sizeof(int));
  if (!S->sub || !S->sorder || !S->top || !S->tcol) {
    st = tide_fail(TIDE_ENOMEM, "ldlt: out of memory");
    goto done;
  }
  /* the subtrees in supernode order, scheduled most work first */
  for (int q = 1; q < nc; q++) {
    int x = cand[q], k = q - 1;
    while (k >= 0 && first[cand[k]] > first[x])
      cand[k + 1] = cand[k], k--;
    cand[k + 1] = x;
  }
  for (int q = 0; q < nc; q++) {
    S->sub[2 * q] = first[cand[q]], S->sub[2 * q + 1] = cand[q] + 1;
    S->sorder[q] = q;
  }
  for (int q = 1; q < nc; q++) {
    int x = S->sorder[q], k = q - 1;
    while (k >= 0 && W[cand[S->sorder[k]]] < W[cand[x]])
      S->sorder[k + 1] = S->sorder[k], k--;
    S->sorder[k + 1] = x;
  }
  for (int k = 0; k < S->n; k++)
    S->tcol[k] = -1;
  S->ntop = S->ntcol = 0;
  for (int s = 0; s < ns; s++)
    if (intop[s]) {
      S->top[S->ntop++] = s;
      for (int k = super[s]; k < super[s + 1]; k++)
        S->tcol[k] = S->ntcol++;
    }
  S->acc = tide_alloc((size_t)((int64_t)nc * S->ntcol + 1) * sizeof(double));
  if (!S->acc) {
    st = tide_fail(TIDE_ENOMEM, "ldlt: out of memory");
    goto done;
  }
  S->nsub = nc;
done:
  if (!S->nsub) { /* no split (or a failure): nothing of it kept */
    tide_free(S->sub, S->sub ? 2 * cap * sizeof(int) : 0);
    tide_free(S->sorder, S->sorder ? cap * sizeof(int) : 0);
    tide_free(S->top, S->top ? cap * sizeof(int) : 0);
    tide_free(S->tcol, S->tcol ? ((size_t)S->n + 1) * sizeof(int) : 0);
    S->sub = S->sorder = S->top = S->tcol = NULL;
    S->ntop = S->ntcol = 0;
  }
  tide_free(par, par ? cap * sizeof(int) : 0);
  tide_free(first, first ? cap * sizeof(int) : 0);
  tide_free(cand, cand ? cap * sizeof(int) : 0);
  tide_free(kids, kids ? cap * sizeof(int) : 0);
  tide_free(kptr, kptr ? (cap + 1) * sizeof(int) : 0);
  tide_free(intop, intop ? cap * sizeof(int) : 0);
  tide_free(w, w ? cap * sizeof(double) : 0);
  tide_free(W, W ? cap * sizeof(double) : 0);
  return st;
}

void tide_ldlt_super_free(tide_ldlt_super *S) { sfree(S); }

int tide_ldlt_super_subtrees(const tide_ldlt_super *S) { return S ? S->nsub : 0; }

int tide_ldlt_super_blocks(const tide_ldlt_super *S) { return S ? S->nblk : 0; }

int64_t tide_ldlt_super_bytes(const tide_ldlt_super *S) {
  if (!S) return 0;
  int64_t n = S->n + 1, ns = S->nsuper + 1, k = S->nscr;
  return (int64_t)sizeof *S + (S->nx + 1 + n) * 8 + (S->nnz + 1) * 8 + (n + 3 * ns) * 4 +
         k * ((S->maxc + 1 + S->maxt + 1 + n) * 8 + n * 4) + 2 * (int64_t)S->blkcap * 4 +
         (S->res ? S->nblk * (int64_t)sizeof(blk_result) : 0) +
         (S->nsub ? (4 * ns + n) * 4 + ((int64_t)S->nsub * S->ntcol + 1) * 8 : 0);
}

int tide_ldlt_super_new(const tide_csr *A, int nsuper, const int *super, const int *pi,
                        const int *px, const int *ls, const int *perm, size_t maxcsize,
                        tide_ldlt_super **out) {
  *out = NULL;
  const int n = A->nrows;
  tide_ldlt_super *S = tide_calloc(sizeof *S);
  if (!S) return tide_fail(TIDE_ENOMEM, "ldlt: out of memory");
  S->n = n;
  S->nsuper = nsuper;
  S->super = super, S->pi = pi, S->px = px, S->ls = ls, S->perm = perm;
  S->nx = (int64_t)px[nsuper];
  /* the update scratch: C (ndrow2 x ndrow1 of a descendant) is at most CHOLMOD's maxcsize;
   * T (ndrow1 x ndcol) and the front's W (trailing columns x NB) at most maxcol^2, maxcol NB */
  int64_t maxcol = 0;
  for (int s = 0; s < nsuper; s++)
    if (super[s + 1] - super[s] > maxcol) maxcol = super[s + 1] - super[s];
  S->maxc = (int64_t)maxcsize;
  S->maxt = maxcol * (maxcol > NB ? maxcol : NB);
  int64_t nnz = 0;
  for (int i = 0; i < n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      nnz += A->col[p] >= i;
  S->nnz = nnz;
  S->x = tide_alloc((size_t)(S->nx + 1) * sizeof(double));
  S->dst = tide_alloc((size_t)(nnz + 1) * sizeof(int64_t));
  S->smap = tide_alloc((size_t)(n + 1) * sizeof(int));
  S->head = tide_alloc((size_t)(nsuper + 1) * sizeof(int));
  S->next = tide_alloc((size_t)(nsuper + 1) * sizeof(int));
  S->lpos = tide_alloc((size_t)(nsuper + 1) * sizeof(int));
  S->y = tide_alloc((size_t)(n + 1) * sizeof(double));
  int *pinv = tide_alloc((size_t)(n + 1) * sizeof(int));
  int *cnt = tide_calloc((size_t)(nsuper + 2) * sizeof(int));
  int64_t *ord = tide_alloc((size_t)(nnz + 1) * sizeof(int64_t));
  if (!S->x || !S->dst || !S->smap || !S->head || !S->next || !S->lpos || !scratch(S, 1) ||
      !S->y || !pinv || !cnt || !ord) {
    tide_free(pinv, pinv ? (size_t)(n + 1) * sizeof(int) : 0);
    tide_free(cnt, cnt ? (size_t)(nsuper + 2) * sizeof(int) : 0);
    tide_free(ord, ord ? (size_t)(nnz + 1) * sizeof(int64_t) : 0);
    sfree(S);
    return tide_fail(TIDE_ENOMEM, "ldlt: out of memory for the supernodal factor");
  }
  for (int s = 0; s < nsuper; s++)
    for (int j = super[s]; j < super[s + 1]; j++)
      S->smap[j] = s;
  for (int k = 0; k < n; k++)
    pinv[perm[k]] = k;
  /* where each entry of A's upper triangle (i <= j in CSR; the lower triangle of the
   * permuted matrix at (max, min) of (pinv i, pinv j)) lands in its supernode's front:
   * entries bucketed by supernode, then each supernode's rows mapped once */
  int64_t e = 0;
  for (int i = 0; i < n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] >= i) {
        int a = pinv[i], b = pinv[A->col[p]];
        cnt[S->smap[a < b ? a : b] + 1]++;
      }
  for (int s = 0; s < nsuper; s++)
    cnt[s + 1] += cnt[s];
  for (int i = 0; i < n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] >= i) {
        int a = pinv[i], b = pinv[A->col[p]];
        ord[cnt[S->smap[a < b ? a : b]]++] = e++;
      }
  /* cnt[s] is now the end of bucket s; walk the buckets again in the same order */
  {
    int64_t *rowof = S->dst; /* first pass: the stored entry's (row, col) packed */
    e = 0;
    for (int i = 0; i < n; i++)
      for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        if (A->col[p] >= i) {
          int a = pinv[i], b = pinv[A->col[p]];
          rowof[e++] = (int64_t)(a > b ? a : b) * n + (a < b ? a : b);
        }
    int64_t *pos = tide_alloc((size_t)(nnz + 1) * sizeof(int64_t));
    if (!pos) {
      tide_free(pinv, (size_t)(n + 1) * sizeof(int));
      tide_free(cnt, (size_t)(nsuper + 2) * sizeof(int));
      tide_free(ord, (size_t)(nnz + 1) * sizeof(int64_t));
      sfree(S);
      return tide_fail(TIDE_ENOMEM, "ldlt: out of memory for the supernodal factor");
    }
    int64_t b0 = 0;
    for (int s = 0; s < nsuper; s++) {
      int64_t b1 = cnt[s];
      int nsrow = pi[s + 1] - pi[s];
      for (int q = 0; q < nsrow; q++)
        S->map[0][ls[pi[s] + q]] = q;
      for (int64_t q = b0; q < b1; q++) {
        int64_t en = ord[q];
        int r = (int)(rowof[en] / n), c = (int)(rowof[en] % n);
        pos[en] = (int64_t)px[s] + (int64_t)(c - super[s]) * nsrow + S->map[0][r];
      }
      b0 = b1;
    }
    memcpy(S->dst, pos, (size_t)nnz * sizeof(int64_t));
    tide_free(pos, (size_t)(nnz + 1) * sizeof(int64_t));
  }
  tide_free(pinv, (size_t)(n + 1) * sizeof(int));
  tide_free(cnt, (size_t)(nsuper + 2) * sizeof(int));
  tide_free(ord, (size_t)(nnz + 1) * sizeof(int64_t));
  int st = make_blocks(S);
  if (!st) st = make_split(S);
#ifdef _OPENMP
  if (!st && S->nblk > 1 && !scratch(S, omp_get_max_threads()))
    st = tide_fail(TIDE_ENOMEM, "ldlt: out of memory for the supernodal factor");
#endif
  if (st) {
    sfree(S);
    return st;
  }
  *out = S;
  return TIDE_OK;
}

/* LDL^T of the front f (nsrow x nscol, lda nsrow) in place, w: scratch of (nscol - NB) x NB.
 * Returns the local column of a zero or non-finite pivot, or -1. */
static int front_ldlt(double *f, int nsrow, int nscol, double *w) {
  const int lda = nsrow;
  for (int kb = 0; kb < nscol; kb += NB) {
    int nb = nscol - kb < NB ? nscol - kb : NB;
    for (int c = kb; c < kb + nb; c++) {
      double *fc = f + (int64_t)c * lda;
      double d = fc[c];
      if (!(d != 0) || !isfinite(d)) return c;
      /* the block's later columns: a(r, c') -= l(r, c) a(c', c), with a(c', c) = l(c', c) d */
      double inv = 1 / d;
      for (int r = c + 1; r < nsrow; r++)
        fc[r] *= inv;
      for (int c2 = c + 1; c2 < kb + nb; c2++) {
        double g = fc[c2] * d;
        double *f2 = f + (int64_t)c2 * lda;
        for (int r = c2; r < nsrow; r++)
          f2[r] -= fc[r] * g;
      }
    }
    int m = nsrow - (kb + nb), nt = nscol - (kb + nb);
    if (nt <= 0) continue;
    /* W = L[cols kb+nb.., block] D_block (nt x nb), then F[rows kb+nb.., cols kb+nb..] -= L W^T */
    for (int c = 0; c < nb; c++) {
      const double *fc = f + (int64_t)(kb + c) * lda;
      double d = fc[kb + c];
      for (int r = 0; r < nt; r++)
        w[r + (int64_t)c * nt] = fc[kb + nb + r] * d;
    }
    const double one = 1, mone = -1;
    dgemm_("N", "T", &m, &nt, &nb, &mone, f + (kb + nb) + (int64_t)kb * lda, &lda, w, &nt, &one,
           f + (kb + nb) + (int64_t)(kb + nb) * lda, &lda);
  }
  return -1;
}

/* Supernodes s0 .. s1-1 (whole trees) factored left-looking with one thread's scratch. */
static void factor_range(tide_ldlt_super *S, int s0, int s1, int *map, double *T, double *C,
                         blk_result *res) {
  const int *super = S->super, *pi = S->pi, *ls = S->ls;
  const int *px = S->px;
  double *x = S->x;
  res->status = TIDE_OK;
  for (int s = s0; s < s1; s++) {
    const int k1 = super[s], k2 = super[s + 1], nscol = k2 - k1;
    const int psi = pi[s], nsrow = pi[s + 1] - psi;
    double *fs = x + px[s];
    for (int q = 0; q < nsrow; q++)
      map[ls[psi + q]] = q;
    /* the descendants' updates */
    int d = S->head[s];
    S->head[s] = -1;
    while (d >= 0) {
      int dnext = S->next[d];
      const int pdi = pi[d], pdend = pi[d + 1], ndrow = pdend - pdi;
      const int ndcol = super[d + 1] - super[d];
      const int pdi1 = pdi + S->lpos[d];
      int pdi2 = pdi1;
      while (pdi2 < pdend && ls[pdi2] < k2)
        pdi2++;
      const int ndrow1 = pdi2 - pdi1, ndrow2 = pdend - pdi1;
      if ((int64_t)ndrow2 * ndrow1 > S->maxc) { /* CHOLMOD's maxcsize bounds every update */
        res->status = TIDE_EINVAL, res->m = ndrow2, res->k = ndrow1;
        return;
      }
      const double *Ld = x + px[d] + (pdi1 - pdi); /* rows pdi1.., lda ndrow */
      /* T = L_d[rows of s, :] D_d (ndrow1 x ndcol) */
      for (int c = 0; c < ndcol; c++) {
        const double *lc = Ld + (int64_t)c * ndrow;
        double dd = x[px[d] + (int64_t)c * ndrow + c];
        for (int r = 0; r < ndrow1; r++)
          T[r + (int64_t)c * ndrow1] = lc[r] * dd;
      }
      /* C = L_d[rows >= k1, :] T^T (ndrow2 x ndrow1) */
      const double one = 1, zero = 0;
      if ((int64_t)ndrow2 * ndrow1 * ndcol < 512) {
        for (int j = 0; j < ndrow1; j++)
          for (int i = j; i < ndrow2; i++) {
            double a = 0;
            for (int c = 0; c < ndcol; c++)
              a += Ld[i + (int64_t)c * ndrow] * T[j + (int64_t)c * ndrow1];
            C[i + (int64_t)j * ndrow2] = a;
          }
      } else
        dgemm_("N", "T", &ndrow2, &ndrow1, &ndcol, &one, Ld, &ndrow, T, &ndrow1, &zero, C, &ndrow2);
      for (int j = 0; j < ndrow1; j++) {
        double *fcol = fs + (int64_t)(ls[pdi1 + j] - k1) * nsrow;
        for (int i = j; i < ndrow2; i++)
          fcol[map[ls[pdi1 + i]]] -= C[i + (int64_t)j * ndrow2];
      }
      S->lpos[d] = pdi2 - pdi;
      if (pdi2 < pdend) {
        int s2 = S->smap[ls[pdi2]];
        S->next[d] = S->head[s2];
        S->head[s2] = d;
      }
      d = dnext;
    }
    int bad = front_ldlt(fs, nsrow, nscol, T);
    if (bad >= 0) {
      res->status = TIDE_ESINGULAR, res->failed = k1 + bad;
      return;
    }
    if (nsrow > nscol) {
      S->lpos[s] = nscol;
      int s2 = S->smap[ls[psi + nscol]];
      S->next[s] = S->head[s2];
      S->head[s2] = s;
    }
  }
}

#ifdef _OPENMP
static int thread_id(void) { return omp_get_thread_num(); }
#else
static int thread_id(void) { return 0; }
#endif

int tide_ldlt_super_factor(tide_ldlt_super *S, const tide_csr *A, int *failed) {
  const int nsuper = S->nsuper, nb = S->nblk;
  double *x = S->x;
  *failed = -1;
  memset(x, 0, (size_t)S->nx * sizeof(double));
  /* A's upper triangle in CSR order, the order dst was built in */
  int64_t e = 0;
  for (int i = 0; i < S->n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] >= i) x[S->dst[e++]] += A->val[p];
  for (int s = 0; s < nsuper; s++)
    S->head[s] = -1;
  blk_result one, *res = nb > 1 ? S->res : &one;
  if (nb == 1) {
    factor_range(S, 0, nsuper, S->map[0], S->t[0], S->c[0], res);
  } else {
#ifdef _OPENMP
    if (omp_in_parallel()) {
      /* tasks of the enclosing team: a thread done with its own work (waiting at a barrier)
       * takes blocks too; its id is below the team's size */
      int team = omp_get_num_threads();
      if (!scratch(S, team))
        return tide_fail(TIDE_ENOMEM, "ldlt: out of memory for the supernodal factor");
      for (int q = 0; q < nb; q++) {
        int b = S->border[q];
#pragma omp task firstprivate(b) shared(S, res)
        {
          int id = thread_id();
          factor_range(S, S->blk[b], S->blk[b + 1], S->map[id], S->t[id], S->c[id], &res[b]);
        }
      }
#pragma omp taskwait
    } else {
      int nth = S->nscr < nb ? S->nscr : nb;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
      for (int q = 0; q < nb; q++) {
        int b = S->border[q], id = thread_id();
        factor_range(S, S->blk[b], S->blk[b + 1], S->map[id], S->t[id], S->c[id], &res[b]);
      }
    }
#else
    for (int b = 0; b < nb; b++)
      factor_range(S, S->blk[b], S->blk[b + 1], S->map[0], S->t[0], S->c[0], &res[b]);
#endif
  }
  /* the first block (in supernode order) that failed: the serial sweep's first failure */
  int st = TIDE_OK;
  for (int b = 0; b < nb && !st; b++) {
    if (res[b].status == TIDE_ESINGULAR) *failed = res[b].failed, st = TIDE_ESINGULAR;
    else if (res[b].status)
      st = tide_fail(TIDE_EINVAL, "ldlt: an update of %d x %d exceeds the analysis's %lld",
                     res[b].m, res[b].k, (long long)S->maxc);
  }
  return st;
}

/* Supernode s of the forward solve in y (L y = y, then D); r: one thread's scratch.  acc: NULL,
 * or the subtree's slice of the top's rows (make_split): their updates are added there
 * (tcol) instead of subtracted from y. */
static void fwd_one(const tide_ldlt_super *S, int s, double *y, double *r, double *acc) {
  const int *super = S->super, *pi = S->pi, *ls = S->ls;
  const int k1 = super[s], nscol = super[s + 1] - k1, psi = pi[s], nsrow = pi[s + 1] - psi;
  const double *f = S->x + S->px[s];
  /* y1 = L11^-1 y1 (the front's columns, contiguous in y), then the rows below:
   * r = L21 y1 summed densely and scattered once (BLAS on the larger fronts) */
  const int nr = nsrow - nscol;
  double *y1 = y + k1;
  if ((int64_t)nscol * nsrow >= SOLVE_BLAS) {
    const int one = 1;
    const double d1 = 1, d0 = 0;
    dtrsv_("L", "N", "U", &nscol, f, &nsrow, y1, &one);
    if (nr > 0) dgemv_("N", &nr, &nscol, &d1, f + nscol, &nsrow, y1, &one, &d0, r, &one);
  } else {
    for (int i = 0; i < nr; i++)
      r[i] = 0;
    for (int j = 0; j < nscol; j++) {
      const double *fc = f + (int64_t)j * nsrow;
      const double yj = y1[j];
      for (int i = j + 1; i < nscol; i++)
        y1[i] -= fc[i] * yj;
      const double *f2 = fc + nscol;
      for (int i = 0; i < nr; i++)
        r[i] += f2[i] * yj;
    }
  }
  const int *rows = ls + psi + nscol;
  if (acc) {
    const int *tc = S->tcol;
    for (int i = 0; i < nr; i++) {
      int t = tc[rows[i]];
      if (t >= 0)
        acc[t] += r[i];
      else
        y[rows[i]] -= r[i];
    }
  } else {
    for (int i = 0; i < nr; i++)
      y[rows[i]] -= r[i];
  }
  for (int j = 0; j < nscol; j++)
    y1[j] /= f[(int64_t)j * nsrow + j];
}

/* Supernode s of the backward solve in y (L^T y = y); r: one thread's scratch. */
static void bwd_one(const tide_ldlt_super *S, int s, double *y, double *r) {
  const int *super = S->super, *pi = S->pi, *ls = S->ls;
  const int k1 = super[s], nscol = super[s + 1] - k1, psi = pi[s], nsrow = pi[s + 1] - psi;
  const double *f = S->x + S->px[s];
  /* y1 -= L21^T y[rows below] (gathered once), then y1 = L11^-T y1 */
  const int nr = nsrow - nscol;
  const int *rows = ls + psi + nscol;
  double *y1 = y + k1;
  for (int i = 0; i < nr; i++)
    r[i] = y[rows[i]];
  if ((int64_t)nscol * nsrow >= SOLVE_BLAS) {
    const int one = 1;
    const double d1 = 1, dm1 = -1;
    if (nr > 0) dgemv_("T", &nr, &nscol, &dm1, f + nscol, &nsrow, r, &one, &d1, y1, &one);
    dtrsv_("L", "T", "U", &nscol, f, &nsrow, y1, &one);
    return;
  }
  for (int j = nscol - 1; j >= 0; j--) {
    const double *fc = f + (int64_t)j * nsrow;
    double a = 0;
    const double *f2 = fc + nscol;
    for (int i = 0; i < nr; i++)
      a += f2[i] * r[i];
    for (int i = j + 1; i < nscol; i++)
      a += fc[i] * y1[i];
    y1[j] -= a;
  }
}

/* Supernodes s0 .. s1-1 (whole trees) of the permuted solve in y: L y = y, D, L^T y = y;
 * r: one thread's scratch. */
static void solve_range(const tide_ldlt_super *S, int s0, int s1, double *y, double *r) {
  for (int s = s0; s < s1; s++)
    fwd_one(S, s, y, r, NULL);
  for (int s = s1 - 1; s >= s0; s--)
    bwd_one(S, s, y, r);
}

/* The split's subtrees side by side (nth threads, most work first): forward (their updates of
 * the top's rows into acc) or backward. */
static void sweep_subtrees(tide_ldlt_super *S, double *y, int nth, int forward) {
  const int nt = S->ntcol;
  (void)nth;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth) if (nth > 1)
#endif
  for (int q = 0; q < S->nsub; q++) {
    int b = S->sorder[q], s0 = S->sub[2 * b], s1 = S->sub[2 * b + 1];
    double *r = S->r[thread_id()];
    if (forward)
      for (int s = s0; s < s1; s++)
        fwd_one(S, s, y, r, S->acc + (int64_t)b * nt);
    else
      for (int s = s1 - 1; s >= s0; s--)
        bwd_one(S, s, y, r);
  }
}

/* One tree's solve below and above its top (make_split; nth threads). */
static void solve_split(tide_ldlt_super *S, double *y, int nth) {
  const int ns = S->nsub, nt = S->ntcol;
  const double *acc = S->acc;
  memset(S->acc, 0, (size_t)((int64_t)ns * nt) * sizeof(double));
  sweep_subtrees(S, y, nth, 1);
  /* the subtrees' updates of the top's rows, in subtree order */
  for (int t0 = 0; t0 < S->ntop; t0++) {
    int s = S->top[t0];
    for (int k = S->super[s]; k < S->super[s + 1]; k++) {
      int t = S->tcol[k];
      for (int b = 0; b < ns; b++)
        y[k] -= acc[(int64_t)b * nt + t];
    }
  }
  for (int t0 = 0; t0 < S->ntop; t0++)
    fwd_one(S, S->top[t0], y, S->r[0], NULL);
  for (int t0 = S->ntop - 1; t0 >= 0; t0--)
    bwd_one(S, S->top[t0], y, S->r[0]);
  sweep_subtrees(S, y, nth, 0);
}

void tide_ldlt_super_solve(tide_ldlt_super *S, const double *b, double *out, int threads) {
  const int n = S->n, nb = S->nblk, *perm = S->perm;
  double *y = S->y;
  for (int k = 0; k < n; k++)
    y[k] = b[perm[k]];
  if (S->nsub >= 2) {
    int nth = 1;
#ifdef _OPENMP
    /* one thread's scratch per thread, made at the first solve that runs side by side */
    if (!omp_in_parallel()) {
      int want = threads < S->nsub ? threads : S->nsub;
      nth = S->nscr >= want || scratch(S, want) ? want : 1;
      if (nth > S->nscr) nth = S->nscr;
    }
#endif
    solve_split(S, y, nth);
  } else if (nb == 1) {
    solve_range(S, 0, S->nsuper, y, S->r[0]);
  } else {
    (void)threads;
#ifdef _OPENMP
    /* the blocks side by side when the factor is big enough to pay for the fork */
    int nth = S->nscr < nb ? S->nscr : nb;
    nth = nth < threads ? nth : threads;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth) if (S->nx >= SOLVE_PAR && !omp_in_parallel())
#endif
    for (int q = 0; q < nb; q++) {
      int bk = S->border[q];
      solve_range(S, S->blk[bk], S->blk[bk + 1], y, S->r[thread_id()]);
    }
  }
  for (int k = 0; k < n; k++)
    out[perm[k]] = y[k];
}
