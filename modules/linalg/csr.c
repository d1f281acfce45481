/* csr.c -- CSR matrices: assembly from triplets with pattern reuse, products,
 * transpose, symmetric (upper) storage. */
#include "linalg.h"
#include "linalg_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Private data of a matrix.
 *   Triplet map (pattern reuse): the kept triplets sorted by (entry, triplet
 *   index); entry p sums triplets trip_idx[trip_ptr[p] .. trip_ptr[p+1]).
 *   Transpose index (TIDE_CSR_UPPER): for row i, the strict-upper entries
 *   in column i: positions tpos[tptr[i] .. tptr[i+1]) with rows trow[.]. */
struct tide_csr_aux {
  int64_t ntrip;     /* triplets given at build time (kept or skipped) */
  int64_t nkept;     /* triplets mapped to entries */
  int64_t trip_nnz;  /* entries when the map was built */
  int64_t *trip_ptr; /* trip_nnz + 1 */
  int64_t *trip_idx; /* nkept */
  int *tptr;         /* nrows + 1 */
  int *tpos, *trow;  /* strict upper count */
  int64_t ntpos;
  /* embedding (tide_csr_embed_tripletlist): entry p starts from the base
   * matrix's entry base_pos[p] (-1: none), then sums the list's triplets of
   * the triplet map; tv holds the list's values in list order */
  int embed;         /* built by tide_csr_embed_tripletlist */
  int64_t *base_pos; /* trip_nnz, or NULL without a base */
  int64_t base_nnz;  /* entries of the base when built (-1: no base) */
  double *tv;        /* ntrip */
};

/* ----------------------------------------------------------- basics */

static void aux_drop_map(struct tide_csr_aux *a) {
  tide_free(a->trip_ptr, a->trip_ptr ? (size_t)(a->trip_nnz + 1) * sizeof(int64_t) : 0);
  tide_free(a->trip_idx, a->trip_idx ? (size_t)a->nkept * sizeof(int64_t) : 0);
  tide_free(a->base_pos, a->base_pos ? (size_t)a->trip_nnz * sizeof(int64_t) : 0);
  tide_free(a->tv, a->tv ? (size_t)(a->ntrip > 0 ? a->ntrip : 1) * sizeof(double) : 0);
  a->trip_ptr = NULL;
  a->trip_idx = NULL;
  a->base_pos = NULL;
  a->tv = NULL;
  a->base_nnz = 0;
  a->embed = 0;
  a->trip_nnz = a->nkept = a->ntrip = 0;
}

static void aux_free(struct tide_csr_aux *a, int nrows) {
  if (!a) return;
  aux_drop_map(a);
  tide_free(a->tptr, a->tptr ? (size_t)(nrows + 1) * sizeof(int) : 0);
  tide_free(a->tpos, (size_t)a->ntpos * sizeof(int));
  tide_free(a->trow, (size_t)a->ntpos * sizeof(int));
  tide_free(a, sizeof *a);
}

int tide_csr_new(int nrows, int ncols, int64_t nzmax, tide_csr **out) {
  *out = NULL;
  if (nrows < 0 || ncols < 0 || nzmax < 0)
    return tide_fail(TIDE_EINVAL, "tide_csr_new: negative size %d x %d, nzmax %lld", nrows, ncols,
                     (long long)nzmax);
  if (nzmax > INT32_MAX)
    return tide_fail(TIDE_EINVAL,
                     "tide_csr_new: %lld entries exceed the 32-bit index range of tide_csr",
                     (long long)nzmax);
  tide_csr *A = tide_calloc(sizeof *A);
  if (!A) return TIDE_ENOMEM;
  A->nrows = nrows;
  A->ncols = ncols;
  A->nzmax = nzmax;
  A->rowptr = tide_calloc((size_t)(nrows + 1) * sizeof(int));
  A->col = tide_alloc((size_t)nzmax * sizeof(int));
  A->val = tide_alloc((size_t)nzmax * sizeof(double));
  if (!A->rowptr || !A->col || !A->val) {
    tide_csr_free(A);
    return tide_fail(TIDE_ENOMEM, "tide_csr_new: out of memory for %d x %d, %lld entries", nrows,
                     ncols, (long long)nzmax);
  }
  *out = A;
  return TIDE_OK;
}

static int row_room(const tide_csr *A) { return A->rowcap > A->nrows ? A->rowcap : A->nrows; }

int tide_csr_recycle(tide_csr **spare, int nrows, int ncols, int64_t nzmax, tide_csr **out) {
  *out = NULL;
  tide_csr *A = spare ? *spare : NULL;
  if (spare) *spare = NULL;
  if (A && nrows >= 0 && ncols >= 0 && nzmax >= 0 && row_room(A) >= nrows && A->nzmax >= nzmax) {
    aux_free(A->aux, A->nrows);
    A->aux = NULL;
    A->rowcap = row_room(A);
    A->nrows = nrows;
    A->ncols = ncols;
    A->stype = TIDE_CSR_GENERAL;
    memset(A->rowptr, 0, (size_t)(nrows + 1) * sizeof(int));
    *out = A;
    return TIDE_OK;
  }
  tide_csr_free(A);
  if (nrows < 0 || ncols < 0 || nzmax < 0) return tide_csr_new(nrows, ncols, nzmax, out);
  int64_t room = nzmax + nzmax / 8, r = (int64_t)nrows + nrows / 8;
  if (room > INT32_MAX) room = nzmax;
  int rows = r >= INT32_MAX ? nrows : (int)r;
  int s = tide_csr_new(rows, ncols, room, out);
  if (s) return s;
  (*out)->rowcap = rows;
  (*out)->nrows = nrows;
  return TIDE_OK;
}

void tide_csr_free(tide_csr *A) {
  if (!A) return;
  aux_free(A->aux, A->nrows);
  tide_free(A->rowptr, A->rowptr ? (size_t)(row_room(A) + 1) * sizeof(int) : 0);
  tide_free(A->col, A->col ? (size_t)A->nzmax * sizeof(int) : 0);
  tide_free(A->val, A->val ? (size_t)A->nzmax * sizeof(double) : 0);
  tide_free(A, sizeof *A);
}

size_t tide_csr_bytes(const tide_csr *A) {
  size_t b = sizeof *A + (size_t)(row_room(A) + 1) * sizeof(int) +
             (size_t)A->nzmax * (sizeof(int) + sizeof(double));
  if (A->aux) {
    const struct tide_csr_aux *a = A->aux;
    if (a->trip_ptr) b += (size_t)(a->trip_nnz + 1) * sizeof(int64_t);
    b += (size_t)a->nkept * sizeof(int64_t);
    if (a->base_pos) b += (size_t)a->trip_nnz * sizeof(int64_t);
    if (a->tv) b += (size_t)(a->ntrip > 0 ? a->ntrip : 1) * sizeof(double);
    if (a->tptr) b += (size_t)(A->nrows + 1) * sizeof(int);
    b += 2 * (size_t)a->ntpos * sizeof(int);
  }
  return b;
}

int tide_csr_check(const tide_csr *A, const char *what) {
  if (!A) return tide_fail(TIDE_EINVAL, "%s: matrix is NULL", what);
  if (A->nrows < 0 || A->ncols < 0)
    return tide_fail(TIDE_EINVAL, "%s: negative size %d x %d", what, A->nrows, A->ncols);
  if (A->stype != TIDE_CSR_GENERAL && A->stype != TIDE_CSR_UPPER)
    return tide_fail(TIDE_EINVAL, "%s: unknown storage type %d", what, A->stype);
  if (A->stype == TIDE_CSR_UPPER && A->nrows != A->ncols)
    return tide_fail(TIDE_EINVAL, "%s: symmetric storage needs a square matrix, got %d x %d", what,
                     A->nrows, A->ncols);
  if (A->rowptr[0] != 0)
    return tide_fail(TIDE_EINVAL, "%s: rowptr[0] = %d, not 0", what, A->rowptr[0]);
  for (int i = 0; i < A->nrows; i++)
    if (A->rowptr[i + 1] < A->rowptr[i])
      return tide_fail(TIDE_EINVAL, "%s: rowptr decreases at row %d", what, i);
  if (A->rowptr[A->nrows] > A->nzmax)
    return tide_fail(TIDE_EINVAL, "%s: %d entries exceed nzmax %lld", what, A->rowptr[A->nrows],
                     (long long)A->nzmax);
  int bad_row = -1, bad_kind = 0;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(tide_csr_nnz(A)))
  for (int i = 0; i < A->nrows; i++) {
    int kind = 0;
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int c = A->col[p];
      if (c < 0 || c >= A->ncols)
        kind = 1;
      else if (p > A->rowptr[i] && c <= A->col[p - 1])
        kind = 2;
      else if (A->stype == TIDE_CSR_UPPER && c < i)
        kind = 3;
      else if (!isfinite(A->val[p]))
        kind = 4;
      if (kind) break;
    }
    if (kind) {
#pragma omp critical(tide_csr_check)
      if (bad_row < 0 || i < bad_row) {
        bad_row = i;
        bad_kind = kind;
      }
    }
  }
  if (bad_row >= 0) {
    static const char *msg[] = {
        "", "a column index out of range", "columns not strictly ascending (unsorted or duplicate)",
        "an entry below the diagonal in upper (symmetric) storage", "a non-finite value"};
    return tide_fail(bad_kind == 4 ? TIDE_ENONFINITE : TIDE_EINVAL, "%s: row %d has %s", what,
                     bad_row, msg[bad_kind]);
  }
  return TIDE_OK;
}

static struct tide_csr_aux *aux_get(tide_csr *A) {
  if (!A->aux) A->aux = tide_calloc(sizeof *A->aux);
  return A->aux;
}

static void aux_drop_transpose(tide_csr *A) {
  struct tide_csr_aux *a = A->aux;
  if (!a) return;
  tide_free(a->tptr, a->tptr ? (size_t)(A->nrows + 1) * sizeof(int) : 0);
  tide_free(a->tpos, (size_t)a->ntpos * sizeof(int));
  tide_free(a->trow, (size_t)a->ntpos * sizeof(int));
  a->tptr = a->tpos = a->trow = NULL;
  a->ntpos = 0;
}

/* Transpose index of the strict upper part (for TIDE_CSR_UPPER products):
 * a counting sort by column, rows ascending within a column. */
static int build_transpose_index(tide_csr *A) {
  aux_drop_transpose(A);
  if (A->stype != TIDE_CSR_UPPER) return TIDE_OK;
  struct tide_csr_aux *a = aux_get(A);
  if (!a) return TIDE_ENOMEM;
  int n = A->nrows;
  int64_t m = 0;
  for (int i = 0; i < n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      m += A->col[p] > i;
  a->tptr = tide_calloc((size_t)(n + 1) * sizeof(int));
  a->tpos = tide_alloc((size_t)m * sizeof(int));
  a->trow = tide_alloc((size_t)m * sizeof(int));
  a->ntpos = m;
  if (!a->tptr || !a->tpos || !a->trow) {
    aux_drop_transpose(A);
    return tide_fail(TIDE_ENOMEM, "tide_csr: out of memory for the symmetric index");
  }
  for (int i = 0; i < n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] > i) a->tptr[A->col[p] + 1]++;
  for (int i = 0; i < n; i++)
    a->tptr[i + 1] += a->tptr[i];
  int *next = tide_alloc((size_t)(n + 1) * sizeof(int));
  if (!next) {
    aux_drop_transpose(A);
    return TIDE_ENOMEM;
  }
  memcpy(next, a->tptr, (size_t)(n + 1) * sizeof(int));
  for (int i = 0; i < n; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] > i) {
        int q = next[A->col[p]]++;
        a->tpos[q] = p;
        a->trow[q] = i;
      }
  tide_free(next, (size_t)(n + 1) * sizeof(int));
  return TIDE_OK;
}

int tide_csr_finish(tide_csr *A) {
  int st = tide_csr_check(A, "tide_csr_finish");
  if (st) return st;
  /* a hand-filled pattern invalidates any triplet map */
  if (A->aux) aux_drop_map(A->aux);
  return build_transpose_index(A);
}

/* ----------------------------------------------------- triplet assembly */

typedef struct {
  int64_t t; /* triplet index */
  int c;     /* column */
  int s;     /* segment holding it */
} tent;

/* the triplets as consecutive segments (one array, or the per-thread lists in
 * thread order): triplet t of the whole is t - off of its segment */
typedef struct {
  const int *i, *j;
  const double *v;
  int64_t n, off;
} tseg;

static int tent_cmp(const void *pa, const void *pb) {
  const tent *a = pa, *b = pb;
  if (a->c != b->c) return a->c < b->c ? -1 : 1;
  return a->t < b->t ? -1 : a->t > b->t;
}

static void tent_sort(tent *e, int64_t n) {
  if (n <= 24) {
    for (int64_t k = 1; k < n; k++) {
      tent x = e[k];
      int64_t m = k - 1;
      while (m >= 0 && (e[m].c > x.c || (e[m].c == x.c && e[m].t > x.t))) {
        e[m + 1] = e[m];
        m--;
      }
      e[m + 1] = x;
    }
  } else {
    qsort(e, (size_t)n, sizeof *e, tent_cmp);
  }
}

/* per-thread scratch of row_sort: slot[ncols] (-1 between rows), and
 * ucol, ucnt and tmp of the longest row's length */
typedef struct {
  int *slot, *ucol;
  int64_t *ucnt;
  tent *tmp;
} rowscratch;

/* Sort one row's entries, given in ascending triplet order, by (column,
 * triplet index): the distinct columns are found with slot[], sorted alone,
 * and the entries placed by a counting pass (stable, so each column keeps
 * its triplets in order) -- the order tent_sort gives, at a cost linear in
 * the row's length plus the sort of its few distinct columns.  Returns the
 * number of distinct columns. */
static int row_sort(tent *r, int64_t len, rowscratch *w) {
  if (len <= 24) {
    tent_sort(r, len);
    int u = 0;
    for (int64_t k = 0; k < len; k++)
      u += (k == 0 || r[k].c != r[k - 1].c);
    return u;
  }
  int u = 0;
  for (int64_t k = 0; k < len; k++) {
    int c = r[k].c;
    if (w->slot[c] < 0) {
      w->slot[c] = u;
      w->ucol[u] = c;
      w->ucnt[u] = 0;
      u++;
    }
    w->ucnt[w->slot[c]]++;
  }
  /* the distinct columns ascending (insertion sort: a row of a mesh or a
   * stencil couples few columns; many distinct ones fall back to tent_sort) */
  if (u > 256) {
    for (int q = 0; q < u; q++)
      w->slot[w->ucol[q]] = -1;
    tent_sort(r, len);
    return u;
  }
  for (int q = 1; q < u; q++) {
    int c = w->ucol[q];
    int m = q - 1;
    while (m >= 0 && w->ucol[m] > c) {
      w->ucol[m + 1] = w->ucol[m];
      m--;
    }
    w->ucol[m + 1] = c;
  }
  /* ucnt (indexed by first-seen slot) -> the start of each column's run */
  int64_t at = 0;
  for (int q = 0; q < u; q++) {
    int sl = w->slot[w->ucol[q]];
    int64_t c = w->ucnt[sl];
    w->ucnt[sl] = at;
    at += c;
  }
  for (int64_t k = 0; k < len; k++)
    w->tmp[w->ucnt[w->slot[r[k].c]]++] = r[k];
  memcpy(r, w->tmp, (size_t)len * sizeof *r);
  for (int q = 0; q < u; q++)
    w->slot[w->ucol[q]] = -1;
  return u;
}

/* The triplets of the segments validated, the kept ones (all, or j >= i for
 * TIDE_CSR_UPPER) grouped by row and sorted by (column, triplet index): row
 * i's are (*pe)[cnt[i] .. cnt[i+1]), (*prowcount)[i+1] its distinct columns;
 * *pnk kept in all.  The caller frees cnt, e and rowcount (sort_free). */
static int sort_rows(int nrows, int ncols, int nseg, const tseg *sg, int stype, int64_t **pcnt,
                     tent **pe, int64_t *pnk, int **prowcount) {
  *pcnt = NULL, *pe = NULL, *prowcount = NULL, *pnk = 0;
  int64_t n = nseg > 0 ? sg[nseg - 1].off + sg[nseg - 1].n : 0;
  if (nrows < 0 || ncols < 0 || n < 0)
    return tide_fail(TIDE_EINVAL, "tide_csr_from_triplets: negative size");
  if (stype != TIDE_CSR_GENERAL && stype != TIDE_CSR_UPPER)
    return tide_fail(TIDE_EINVAL, "tide_csr_from_triplets: unknown storage type %d", stype);
  if (stype == TIDE_CSR_UPPER && nrows != ncols)
    return tide_fail(TIDE_EINVAL,
                     "tide_csr_from_triplets: symmetric storage needs a square matrix, got %d x %d",
                     nrows, ncols);
  /* validate (first offending triplet reported) */
  int64_t bad = n;
  for (int q = 0; q < nseg && bad == n; q++) {
    const int *ti = sg[q].i, *tj = sg[q].j;
    const double *tv = sg[q].v;
    int64_t sn = sg[q].n, sb = sn;
#pragma omp parallel for schedule(static) reduction(min : sb) if (TIDE_LA_PAR(sn))
    for (int64_t t = 0; t < sn; t++)
      if (ti[t] < 0 || ti[t] >= nrows || tj[t] < 0 || tj[t] >= ncols || !isfinite(tv[t]))
        sb = t < sb ? t : sb;
    if (sb < sn) {
      bad = sg[q].off + sb;
      if (!isfinite(tv[sb]))
        return tide_fail(TIDE_ENONFINITE, "tide_csr_from_triplets: value %lld at (%d, %d) is %g",
                         (long long)bad, ti[sb], tj[sb], tv[sb]);
      return tide_fail(TIDE_EINVAL,
                       "tide_csr_from_triplets: triplet %lld has index (%d, %d) outside %d x %d",
                       (long long)bad, ti[sb], tj[sb], nrows, ncols);
    }
  }
  /* stable counting sort by row */
  int64_t *cnt = tide_calloc((size_t)(nrows + 1) * sizeof(int64_t));
  if (!cnt) return TIDE_ENOMEM;
  int64_t nk = 0;
  for (int q = 0; q < nseg; q++) {
    const int *ti = sg[q].i, *tj = sg[q].j;
    for (int64_t t = 0; t < sg[q].n; t++)
      if (stype == TIDE_CSR_GENERAL || tj[t] >= ti[t]) {
        cnt[ti[t] + 1]++;
        nk++;
      }
  }
  for (int i = 0; i < nrows; i++)
    cnt[i + 1] += cnt[i];
  tent *e = tide_alloc((size_t)nk * sizeof(tent));
  int *rowcount = tide_calloc((size_t)(nrows + 1) * sizeof(int));
  int64_t *next = tide_alloc((size_t)(nrows + 1) * sizeof(int64_t));
  if (!e || !rowcount || !next) {
    tide_free(cnt, (size_t)(nrows + 1) * sizeof(int64_t));
    tide_free(e, (size_t)nk * sizeof(tent));
    tide_free(rowcount, (size_t)(nrows + 1) * sizeof(int));
    tide_free(next, (size_t)(nrows + 1) * sizeof(int64_t));
    return tide_fail(TIDE_ENOMEM, "tide_csr_from_triplets: out of memory for %lld triplets",
                     (long long)n);
  }
  memcpy(next, cnt, (size_t)(nrows + 1) * sizeof(int64_t));
  for (int q = 0; q < nseg; q++) {
    const int *ti = sg[q].i, *tj = sg[q].j;
    for (int64_t t = 0; t < sg[q].n; t++)
      if (stype == TIDE_CSR_GENERAL || tj[t] >= ti[t]) {
        int64_t k = next[ti[t]]++;
        e[k].t = sg[q].off + t;
        e[k].c = tj[t];
        e[k].s = q;
      }
  }
  tide_free(next, (size_t)(nrows + 1) * sizeof(int64_t));
  /* sort each row by (column, triplet index) and count distinct columns */
  int64_t maxlen = 1;
  for (int i = 0; i < nrows; i++)
    if (cnt[i + 1] - cnt[i] > maxlen) maxlen = cnt[i + 1] - cnt[i];
  int nth = 1;
#ifdef _OPENMP
  if (TIDE_LA_PAR(nk)) nth = omp_get_max_threads();
#endif
  rowscratch *ws = tide_calloc((size_t)nth * sizeof *ws);
  int wsbad = !ws;
  for (int q = 0; q < nth && !wsbad; q++) {
    ws[q].slot = tide_alloc((size_t)(ncols > 0 ? ncols : 1) * sizeof(int));
    ws[q].ucol = tide_alloc((size_t)maxlen * sizeof(int));
    ws[q].ucnt = tide_alloc((size_t)maxlen * sizeof(int64_t));
    ws[q].tmp = tide_alloc((size_t)maxlen * sizeof(tent));
    if (!ws[q].slot || !ws[q].ucol || !ws[q].ucnt || !ws[q].tmp) wsbad = 1;
    else
      for (int c = 0; c < ncols; c++)
        ws[q].slot[c] = -1;
  }
  if (!wsbad) {
#pragma omp parallel for schedule(dynamic, 256) num_threads(nth) if (nth > 1)
    for (int i = 0; i < nrows; i++) {
      int tid = 0;
#ifdef _OPENMP
      tid = omp_get_thread_num();
#endif
      rowcount[i + 1] = row_sort(e + cnt[i], cnt[i + 1] - cnt[i], &ws[tid]);
    }
  }
  for (int q = 0; ws && q < nth; q++) {
    tide_free(ws[q].slot, ws[q].slot ? (size_t)(ncols > 0 ? ncols : 1) * sizeof(int) : 0);
    tide_free(ws[q].ucol, ws[q].ucol ? (size_t)maxlen * sizeof(int) : 0);
    tide_free(ws[q].ucnt, ws[q].ucnt ? (size_t)maxlen * sizeof(int64_t) : 0);
    tide_free(ws[q].tmp, ws[q].tmp ? (size_t)maxlen * sizeof(tent) : 0);
  }
  tide_free(ws, ws ? (size_t)nth * sizeof *ws : 0);
  if (wsbad) {
    tide_free(cnt, (size_t)(nrows + 1) * sizeof(int64_t));
    tide_free(e, (size_t)nk * sizeof(tent));
    tide_free(rowcount, (size_t)(nrows + 1) * sizeof(int));
    return tide_fail(TIDE_ENOMEM, "tide_csr_from_triplets: out of memory for the row sort");
  }
  *pcnt = cnt, *pe = e, *pnk = nk, *prowcount = rowcount;
  return TIDE_OK;
}

static void sort_free(int nrows, int64_t *cnt, tent *e, int64_t nk, int *rowcount) {
  tide_free(cnt, cnt ? (size_t)(nrows + 1) * sizeof(int64_t) : 0);
  tide_free(e, e ? (size_t)nk * sizeof(tent) : 0);
  tide_free(rowcount, rowcount ? (size_t)(nrows + 1) * sizeof(int) : 0);
}

static int from_segments(int nrows, int ncols, int nseg, const tseg *sg, int stype,
                         tide_csr **out) {
  *out = NULL;
  int64_t n = nseg > 0 ? sg[nseg - 1].off + sg[nseg - 1].n : 0, *cnt, nk;
  tent *e;
  int *rowcount;
  int st0 = sort_rows(nrows, ncols, nseg, sg, stype, &cnt, &e, &nk, &rowcount);
  if (st0) return st0;
  int64_t nnz = 0;
  for (int i = 0; i < nrows; i++)
    nnz += rowcount[i + 1];
  tide_csr *A = NULL;
  int st = nnz > INT32_MAX ? tide_fail(TIDE_EINVAL,
                                       "tide_csr_from_triplets: %lld entries exceed the 32-bit "
                                       "index range",
                                       (long long)nnz)
                           : tide_csr_new(nrows, ncols, nnz, &A);
  struct tide_csr_aux *a = NULL;
  if (!st) {
    A->stype = stype;
    a = aux_get(A);
    if (a) {
      a->trip_ptr = tide_alloc((size_t)(nnz + 1) * sizeof(int64_t));
      a->trip_idx = tide_alloc((size_t)nk * sizeof(int64_t));
      a->trip_nnz = nnz;
      a->nkept = nk;
      a->ntrip = n;
    }
    if (!a || !a->trip_ptr || !a->trip_idx)
      st = tide_fail(TIDE_ENOMEM, "tide_csr_from_triplets: out of memory");
  }
  if (st) {
    tide_csr_free(A);
    tide_free(cnt, (size_t)(nrows + 1) * sizeof(int64_t));
    tide_free(e, (size_t)nk * sizeof(tent));
    tide_free(rowcount, (size_t)(nrows + 1) * sizeof(int));
    return st;
  }
  for (int i = 0; i < nrows; i++)
    A->rowptr[i + 1] = A->rowptr[i] + rowcount[i + 1];
#pragma omp parallel for schedule(dynamic, 256) if (TIDE_LA_PAR(nk))
  for (int i = 0; i < nrows; i++) {
    int p = A->rowptr[i] - 1;
    for (int64_t k = cnt[i]; k < cnt[i + 1]; k++) {
      if (k == cnt[i] || e[k].c != e[k - 1].c) {
        p++;
        A->col[p] = e[k].c;
        A->val[p] = 0;
        a->trip_ptr[p] = k;
      }
      A->val[p] += sg[e[k].s].v[e[k].t - sg[e[k].s].off];
      a->trip_idx[k] = e[k].t;
    }
  }
  a->trip_ptr[nnz] = nk;
  tide_free(cnt, (size_t)(nrows + 1) * sizeof(int64_t));
  tide_free(e, (size_t)nk * sizeof(tent));
  tide_free(rowcount, (size_t)(nrows + 1) * sizeof(int));
  st = build_transpose_index(A);
  if (st) {
    tide_csr_free(A);
    return st;
  }
  *out = A;
  return TIDE_OK;
}

int tide_csr_from_triplets(int nrows, int ncols, int64_t n, const int *ti, const int *tj,
                           const double *tv, int stype, tide_csr **out) {
  if (n < 0) {
    *out = NULL;
    return tide_fail(TIDE_EINVAL, "tide_csr_from_triplets: negative size");
  }
  tseg sg = {ti, tj, tv, n, 0};
  return from_segments(nrows, ncols, 1, &sg, stype, out);
}

int64_t tide_csr_ntriplets(const tide_csr *A) { return A->aux ? A->aux->ntrip : 0; }

int tide_csr_set_triplet_values(tide_csr *A, int64_t n, const double *v) {
  const struct tide_csr_aux *a = A->aux;
  if (!a || !a->trip_ptr || !a->trip_idx || a->trip_nnz != tide_csr_nnz(A))
    return tide_fail(TIDE_EINVAL, "tide_csr_set_triplet_values: the matrix was not built from "
                                  "triplets (no pattern map)");
  if (a->embed)
    return tide_fail(TIDE_EINVAL, "tide_csr_set_triplet_values: the matrix embeds a base matrix "
                                  "(refill it with tide_csr_embed_tripletlist_values)");
  if (n != a->ntrip)
    return tide_fail(TIDE_EINVAL,
                     "tide_csr_set_triplet_values: %lld values given, the matrix was built from "
                     "%lld triplets",
                     (long long)n, (long long)a->ntrip);
  int64_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (TIDE_LA_PAR(n))
  for (int64_t t = 0; t < n; t++)
    if (!isfinite(v[t])) bad = t < bad ? t : bad;
  if (bad < n)
    return tide_fail(TIDE_ENONFINITE, "tide_csr_set_triplet_values: value %lld is %g",
                     (long long)bad, v[bad]);
  int64_t nnz = tide_csr_nnz(A);
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(a->nkept))
  for (int64_t p = 0; p < nnz; p++) {
    double s = 0;
    for (int64_t k = a->trip_ptr[p]; k < a->trip_ptr[p + 1]; k++)
      s += v[a->trip_idx[k]];
    A->val[p] = s;
  }
  return TIDE_OK;
}

/* ------------------------------------------------ threaded triplet list */

typedef struct {
  int *i, *j;
  double *v;
  int64_t n, cap;
  int bad; /* 1 index out of range, 2 non-finite, 3 out of memory */
  int64_t bad_at;
  char pad[64];
} tlist;

struct tide_triplets {
  int nrows, ncols;
  int nlists;
  tlist *lists;
  int overflow; /* a thread id >= nlists appended */
};

/* a list's arrays freed (l->n untouched: the caller copied the entries or is done) */
static void tlist_release(tlist *l) {
  tide_free(l->i, (size_t)l->cap * sizeof(int));
  tide_free(l->j, (size_t)l->cap * sizeof(int));
  tide_free(l->v, (size_t)l->cap * sizeof(double));
  l->i = l->j = NULL;
  l->v = NULL;
  l->cap = 0;
}

int tide_triplets_new(int nrows, int ncols, tide_triplets **out) {
  *out = NULL;
  if (nrows < 0 || ncols < 0)
    return tide_fail(TIDE_EINVAL, "tide_triplets_new: negative size %d x %d", nrows, ncols);
  tide_triplets *T = tide_calloc(sizeof *T);
  if (!T) return TIDE_ENOMEM;
  T->nrows = nrows;
  T->ncols = ncols;
#ifdef _OPENMP
  T->nlists =
      omp_get_max_threads() > omp_get_num_procs() ? omp_get_max_threads() : omp_get_num_procs();
#else
  T->nlists = 1;
#endif
  T->lists = tide_calloc((size_t)T->nlists * sizeof(tlist));
  if (!T->lists) {
    tide_free(T, sizeof *T);
    return TIDE_ENOMEM;
  }
  *out = T;
  return TIDE_OK;
}

void tide_triplets_free(tide_triplets *T) {
  if (!T) return;
  for (int k = 0; k < T->nlists; k++)
    tlist_release(&T->lists[k]);
  tide_free(T->lists, (size_t)T->nlists * sizeof(tlist));
  tide_free(T, sizeof *T);
}

void tide_triplets_add(tide_triplets *T, int i, int j, double v) {
#ifdef _OPENMP
  int tid = omp_get_thread_num();
  if (omp_get_level() > 1) tid = omp_get_ancestor_thread_num(1);
#else
  int tid = 0;
#endif
  if (tid >= T->nlists) {
#pragma omp atomic write
    T->overflow = 1;
    return;
  }
  tlist *l = &T->lists[tid];
  if (l->bad) return;
  if (i < 0 || i >= T->nrows || j < 0 || j >= T->ncols) {
    l->bad = 1;
    l->bad_at = l->n;
    return;
  }
  if (!isfinite(v)) {
    l->bad = 2;
    l->bad_at = l->n;
    return;
  }
  if (l->n == l->cap) { /* through tide_alloc: the pool's blocks serve the next step's lists */
    int64_t nc = l->cap ? 2 * l->cap : 1024;
    int *ni = tide_alloc((size_t)nc * sizeof(int)), *nj = tide_alloc((size_t)nc * sizeof(int));
    double *nv = tide_alloc((size_t)nc * sizeof(double));
    if (!ni || !nj || !nv) {
      tide_free(ni, ni ? (size_t)nc * sizeof(int) : 0);
      tide_free(nj, nj ? (size_t)nc * sizeof(int) : 0);
      tide_free(nv, nv ? (size_t)nc * sizeof(double) : 0);
      l->bad = 3;
      return;
    }
    if (l->n) {
      memcpy(ni, l->i, (size_t)l->n * sizeof(int));
      memcpy(nj, l->j, (size_t)l->n * sizeof(int));
      memcpy(nv, l->v, (size_t)l->n * sizeof(double));
    }
    tlist_release(l);
    l->i = ni, l->j = nj, l->v = nv;
    l->cap = nc;
  }
  l->i[l->n] = i;
  l->j[l->n] = j;
  l->v[l->n] = v;
  l->n++;
}

void tide_triplets_clear(tide_triplets *T) {
  for (int k = 0; k < T->nlists; k++) {
    T->lists[k].n = 0;
    T->lists[k].bad = 0;
  }
  T->overflow = 0;
}

int64_t tide_triplets_count(const tide_triplets *T) {
  int64_t n = 0;
  for (int k = 0; k < T->nlists; k++)
    n += T->lists[k].n;
  return n;
}

int tide_triplets_same_indices(const tide_triplets *A, const tide_triplets *B) {
  if (A->nrows != B->nrows || A->ncols != B->ncols || A->overflow || B->overflow) return 0;
  if (tide_triplets_count(A) != tide_triplets_count(B)) return 0;
  for (int k = 0; k < A->nlists; k++)
    if (A->lists[k].bad) return 0;
  for (int k = 0; k < B->nlists; k++)
    if (B->lists[k].bad) return 0;
  /* walk both concatenations, comparing the overlapping runs of their lists */
  int ka = 0, kb = 0;
  int64_t oa = 0, ob = 0;
  for (;;) {
    while (ka < A->nlists && oa == A->lists[ka].n) ka++, oa = 0;
    while (kb < B->nlists && ob == B->lists[kb].n) kb++, ob = 0;
    if (ka == A->nlists || kb == B->nlists) return ka == A->nlists && kb == B->nlists;
    const tlist *la = &A->lists[ka], *lb = &B->lists[kb];
    int64_t m = la->n - oa < lb->n - ob ? la->n - oa : lb->n - ob;
    if (memcmp(la->i + oa, lb->i + ob, (size_t)m * sizeof(int)) ||
        memcmp(la->j + oa, lb->j + ob, (size_t)m * sizeof(int)))
      return 0;
    oa += m, ob += m;
  }
}

static int triplets_status(const tide_triplets *T, const char *fname) {
  if (T->overflow)
    return tide_fail(TIDE_EINVAL,
                     "%s: entries were added from more threads (%s) than the list was made for "
                     "(%d); create the list after setting the thread count",
                     fname, "thread id too large", T->nlists);
  for (int k = 0; k < T->nlists; k++) {
    const tlist *l = &T->lists[k];
    if (l->bad == 1)
      return tide_fail(TIDE_EINVAL, "%s: an entry added by thread %d has an index outside %d x %d",
                       fname, k, T->nrows, T->ncols);
    if (l->bad == 2)
      return tide_fail(TIDE_ENONFINITE, "%s: a non-finite value was added by thread %d", fname, k);
    if (l->bad == 3) return tide_fail(TIDE_ENOMEM, "%s: out of memory while adding entries", fname);
  }
  return TIDE_OK;
}

/* T's lists in thread order as segments (sg: T->nlists entries) */
static int list_segments(const tide_triplets *T, tseg *sg) {
  int nseg = 0;
  int64_t o = 0;
  for (int k = 0; k < T->nlists; k++) {
    const tlist *l = &T->lists[k];
    if (l->n == 0) continue;
    sg[nseg++] = (tseg){l->i, l->j, l->v, l->n, o};
    o += l->n;
  }
  return nseg;
}

/* Concatenate the per-thread lists in thread order. */
static int triplets_flatten(const tide_triplets *T, int **pi, int **pj, double **pv, int64_t *pn) {
  int64_t n = tide_triplets_count(T);
  *pn = n;
  if (pi) *pi = tide_alloc((size_t)n * sizeof(int));
  if (pj) *pj = tide_alloc((size_t)n * sizeof(int));
  *pv = tide_alloc((size_t)n * sizeof(double));
  if ((pi && !*pi) || (pj && !*pj) || !*pv) return TIDE_ENOMEM;
  int64_t o = 0;
  for (int k = 0; k < T->nlists; k++) {
    const tlist *l = &T->lists[k];
    if (l->n == 0) continue;
    if (pi) memcpy(*pi + o, l->i, (size_t)l->n * sizeof(int));
    if (pj) memcpy(*pj + o, l->j, (size_t)l->n * sizeof(int));
    memcpy(*pv + o, l->v, (size_t)l->n * sizeof(double));
    o += l->n;
  }
  return TIDE_OK;
}

int tide_csr_from_tripletlist(const tide_triplets *T, int stype, tide_csr **out) {
  *out = NULL;
  int st = triplets_status(T, "tide_csr_from_tripletlist");
  if (st) return st;
  /* the lists in thread order, read in place (no flattened copy) */
  tseg *sg = tide_alloc((size_t)(T->nlists > 0 ? T->nlists : 1) * sizeof *sg);
  if (!sg) return TIDE_ENOMEM;
  int nseg = list_segments(T, sg);
  st = from_segments(T->nrows, T->ncols, nseg, sg, stype, out);
  tide_free(sg, (size_t)(T->nlists > 0 ? T->nlists : 1) * sizeof *sg);
  return st;
}

int tide_csr_set_tripletlist_values(tide_csr *A, const tide_triplets *T) {
  int st = triplets_status(T, "tide_csr_set_tripletlist_values");
  if (st) return st;
  if (T->nrows != A->nrows || T->ncols != A->ncols)
    return tide_fail(TIDE_EINVAL,
                     "tide_csr_set_tripletlist_values: list is %d x %d, matrix %d x %d", T->nrows,
                     T->ncols, A->nrows, A->ncols);
  double *v = NULL;
  int64_t n = 0;
  st = triplets_flatten(T, NULL, NULL, &v, &n);
  if (!st) st = tide_csr_set_triplet_values(A, n, v);
  tide_free(v, v ? (size_t)n * sizeof(double) : 0);
  return st;
}

/* ------------------------------------------- embedding plus a triplet list */

/* Reading a base row of tide_csr_embed_tripletlist: B's entries of row i in
 * C's columns, ascending -- first the mirrored strict lower part (B upper
 * read into a general C: B(k, i), k < i, from the transpose index), then
 * row i itself (B general read into an upper C: its j >= i only); columns
 * mapped by map, those mapped to -1 skipped. */
typedef struct {
  const tide_csr *B;
  const int *map;
  int mirror, upper_only;
} base_rd;

typedef struct {
  int i, q, q1, p, p1;
} base_cur;

static void base_row(const base_rd *b, int i, base_cur *c) {
  c->i = i;
  c->q = c->q1 = c->p = c->p1 = 0;
  if (i < 0) return;
  if (b->mirror) c->q = b->B->aux->tptr[i], c->q1 = b->B->aux->tptr[i + 1];
  c->p = b->B->rowptr[i], c->p1 = b->B->rowptr[i + 1];
}

/* the row's next entry: its column in C and its position in B; 0 at the end */
static int base_next(const base_rd *b, base_cur *c, int *col, int64_t *pos) {
  while (c->q < c->q1) {
    int k = c->q++, j = b->B->aux->trow[k], mc = b->map ? b->map[j] : j;
    if (mc >= 0) {
      *col = mc, *pos = b->B->aux->tpos[k];
      return 1;
    }
  }
  while (c->p < c->p1) {
    int p = c->p++, j = b->B->col[p];
    if (b->upper_only && j < c->i) continue;
    int mc = b->map ? b->map[j] : j;
    if (mc >= 0) {
      *col = mc, *pos = p;
      return 1;
    }
  }
  return 0;
}

/* C's values from B's and the list's (copied to aux->tv in list order) */
static int embed_values(tide_csr *C, const tide_csr *B, const tide_triplets *T, const char *fn) {
  struct tide_csr_aux *a = C->aux;
  int64_t o = 0;
  for (int k = 0; k < T->nlists; k++) {
    const tlist *l = &T->lists[k];
    if (l->n) memcpy(a->tv + o, l->v, (size_t)l->n * sizeof(double));
    o += l->n;
  }
  int64_t nnz = tide_csr_nnz(C), bad = nnz;
  const int64_t *bp = a->base_pos;
  const double *bv = B ? B->val : NULL;
#pragma omp parallel for schedule(static) reduction(min : bad) if (TIDE_LA_PAR(nnz))
  for (int64_t p = 0; p < nnz; p++) {
    double s = 0;
    if (bp && bp[p] >= 0) s += bv[bp[p]];
    for (int64_t k = a->trip_ptr[p]; k < a->trip_ptr[p + 1]; k++)
      s += a->tv[a->trip_idx[k]];
    C->val[p] = s;
    if (!isfinite(s)) bad = p < bad ? p : bad;
  }
  if (bad < nnz) {
    int r = 0;
    while (C->rowptr[r + 1] <= bad) r++;
    return tide_fail(TIDE_ENONFINITE, "%s: entry (%d, %d) is %g (a non-finite base value or an overflow)",
                     fn, r, C->col[bad], C->val[bad]);
  }
  return TIDE_OK;
}

int tide_csr_embed_tripletlist(const tide_csr *B, const int *map, const tide_triplets *T, int stype,
                               tide_csr **out) {
  const char *fn = "tide_csr_embed_tripletlist";
  *out = NULL;
  int st = triplets_status(T, fn);
  if (st) return st;
  int n = T->nrows;
  if (stype != TIDE_CSR_GENERAL && stype != TIDE_CSR_UPPER)
    return tide_fail(TIDE_EINVAL, "%s: unknown storage type %d", fn, stype);
  if (B) {
    if ((st = tide_csr_check(B, fn))) return st;
    if (T->ncols != n || B->nrows != B->ncols)
      return tide_fail(TIDE_EINVAL, "%s: the base (%d x %d) and the list (%d x %d) must be square",
                       fn, B->nrows, B->ncols, T->nrows, T->ncols);
    if (!map && B->nrows != n)
      return tide_fail(TIDE_EINVAL, "%s: without a map the base (%d x %d) must be the list's size (%d)",
                       fn, B->nrows, B->ncols, n);
    if (B->stype == TIDE_CSR_UPPER && stype == TIDE_CSR_GENERAL && (!B->aux || !B->aux->tptr))
      return tide_fail(TIDE_EINVAL, "%s: upper-storage base without its index (call tide_csr_finish)",
                       fn);
    if (map) {
      int last = -1;
      for (int i = 0; i < B->nrows; i++) {
        if (map[i] < -1 || map[i] >= n)
          return tide_fail(TIDE_EINVAL, "%s: map[%d] = %d outside -1 .. %d", fn, i, map[i], n - 1);
        if (map[i] < 0) continue;
        if (map[i] <= last)
          return tide_fail(TIDE_EINVAL, "%s: the map must increase strictly (map[%d] = %d after %d)",
                           fn, i, map[i], last);
        last = map[i];
      }
    }
  } else if (stype == TIDE_CSR_UPPER && T->ncols != n) {
    return tide_fail(TIDE_EINVAL, "%s: symmetric storage needs a square matrix, got %d x %d", fn, n,
                     T->ncols);
  }
  tseg *sg = tide_alloc((size_t)(T->nlists > 0 ? T->nlists : 1) * sizeof *sg);
  if (!sg) return TIDE_ENOMEM;
  int nseg = list_segments(T, sg);
  int64_t ntrip = tide_triplets_count(T), *cnt, nk;
  tent *e;
  int *rowcount;
  st = sort_rows(n, T->ncols, nseg, sg, stype, &cnt, &e, &nk, &rowcount);
  tide_free(sg, (size_t)(T->nlists > 0 ? T->nlists : 1) * sizeof *sg);
  if (st) return st;
  base_rd b = {B, map, B && B->stype == TIDE_CSR_UPPER && stype == TIDE_CSR_GENERAL,
               B && B->stype == TIDE_CSR_GENERAL && stype == TIDE_CSR_UPPER};
  int *inv = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (!inv) {
    sort_free(n, cnt, e, nk, rowcount);
    return TIDE_ENOMEM;
  }
  for (int r = 0; r < n; r++)
    inv[r] = B && !map ? r : -1;
  if (B && map)
    for (int i = 0; i < B->nrows; i++)
      if (map[i] >= 0) inv[map[i]] = i;
  /* count the merged rows */
#pragma omp parallel for schedule(dynamic, 256) if (TIDE_LA_PAR(nk + (B ? tide_csr_nnz(B) : 0)))
  for (int r = 0; r < n; r++) {
    base_cur c;
    base_row(&b, inv[r], &c);
    int bc = 0, m = 0;
    int64_t bpos = -1, k = cnt[r], k1 = cnt[r + 1];
    int have = B && base_next(&b, &c, &bc, &bpos);
    while (have || k < k1) {
      int col = have && (k == k1 || bc <= e[k].c) ? bc : e[k].c;
      m++;
      if (have && bc == col) have = base_next(&b, &c, &bc, &bpos);
      while (k < k1 && e[k].c == col) k++;
    }
    rowcount[r + 1] = m;
  }
  int64_t nnz = 0;
  for (int r = 0; r < n; r++)
    nnz += rowcount[r + 1];
  tide_csr *C = NULL;
  st = nnz > INT32_MAX ? tide_fail(TIDE_EINVAL, "%s: %lld entries exceed the 32-bit index range", fn,
                                   (long long)nnz)
                       : tide_csr_new(n, T->ncols, nnz, &C);
  struct tide_csr_aux *a = NULL;
  if (!st) {
    C->stype = stype;
    a = aux_get(C);
    if (a) {
      a->embed = 1;
      a->trip_ptr = tide_alloc((size_t)(nnz + 1) * sizeof(int64_t));
      a->trip_idx = tide_alloc((size_t)(nk > 0 ? nk : 1) * sizeof(int64_t));
      a->tv = tide_alloc((size_t)(ntrip > 0 ? ntrip : 1) * sizeof(double));
      if (B) a->base_pos = tide_alloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int64_t));
      a->trip_nnz = nnz, a->nkept = nk > 0 ? nk : 1, a->ntrip = ntrip;
      a->base_nnz = B ? tide_csr_nnz(B) : -1;
    }
    if (!a || !a->trip_ptr || !a->trip_idx || !a->tv || (B && !a->base_pos))
      st = tide_fail(TIDE_ENOMEM, "%s: out of memory", fn);
  }
  if (st) {
    tide_csr_free(C);
    tide_free(inv, (size_t)(n > 0 ? n : 1) * sizeof(int));
    sort_free(n, cnt, e, nk, rowcount);
    return st;
  }
  for (int r = 0; r < n; r++)
    C->rowptr[r + 1] = C->rowptr[r] + rowcount[r + 1];
  /* fill the pattern and the maps */
#pragma omp parallel for schedule(dynamic, 256) if (TIDE_LA_PAR(nk + (B ? tide_csr_nnz(B) : 0)))
  for (int r = 0; r < n; r++) {
    base_cur c;
    base_row(&b, inv[r], &c);
    int bc = 0, p = C->rowptr[r];
    int64_t bpos = -1, k = cnt[r], k1 = cnt[r + 1];
    int have = B && base_next(&b, &c, &bc, &bpos);
    while (have || k < k1) {
      int col = have && (k == k1 || bc <= e[k].c) ? bc : e[k].c;
      C->col[p] = col;
      a->trip_ptr[p] = k;
      if (B) a->base_pos[p] = have && bc == col ? bpos : -1;
      if (have && bc == col) have = base_next(&b, &c, &bc, &bpos);
      for (; k < k1 && e[k].c == col; k++)
        a->trip_idx[k] = e[k].t;
      p++;
    }
  }
  a->trip_ptr[nnz] = nk;
  tide_free(inv, (size_t)(n > 0 ? n : 1) * sizeof(int));
  sort_free(n, cnt, e, nk, rowcount);
  if (!(st = build_transpose_index(C))) st = embed_values(C, B, T, fn);
  if (st) {
    tide_csr_free(C);
    return st;
  }
  *out = C;
  return TIDE_OK;
}

int tide_csr_embed_tripletlist_values(tide_csr *C, const tide_csr *B, const tide_triplets *T) {
  const char *fn = "tide_csr_embed_tripletlist_values";
  struct tide_csr_aux *a = C->aux;
  if (!a || !a->embed || a->trip_nnz != tide_csr_nnz(C))
    return tide_fail(TIDE_EINVAL, "%s: the matrix was not built by tide_csr_embed_tripletlist", fn);
  int st = triplets_status(T, fn);
  if (st) return st;
  int64_t ntrip = tide_triplets_count(T);
  if (T->nrows != C->nrows || T->ncols != C->ncols || ntrip != a->ntrip)
    return tide_fail(TIDE_EINVAL,
                     "%s: the list (%d x %d, %lld triplets) is not the one the matrix was built from "
                     "(%d x %d, %lld)",
                     fn, T->nrows, T->ncols, (long long)ntrip, C->nrows, C->ncols,
                     (long long)a->ntrip);
  if ((B != NULL) != (a->base_nnz >= 0) || (B && tide_csr_nnz(B) != a->base_nnz))
    return tide_fail(TIDE_EINVAL, "%s: the base is not the one the matrix was built from", fn);
  return embed_values(C, B, T, fn);
}

/* ------------------------------------------------------------- products */

int tide_csr_gemv(const tide_csr *A, double alpha, const double *x, double beta, double *y) {
  const int *rp = A->rowptr, *ci = A->col;
  const double *va = A->val;
  if (A->stype == TIDE_CSR_UPPER) {
    const struct tide_csr_aux *a = A->aux;
    if (!a || !a->tptr)
      return tide_fail(TIDE_EINVAL, "tide_csr_mul: upper-storage matrix without its index "
                                    "(call tide_csr_finish after filling it)");
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(tide_csr_nnz(A)))
    for (int i = 0; i < A->nrows; i++) {
      double s = 0;
      for (int p = rp[i]; p < rp[i + 1]; p++)
        s += va[p] * x[ci[p]];
      for (int q = a->tptr[i]; q < a->tptr[i + 1]; q++)
        s += va[a->tpos[q]] * x[a->trow[q]];
      y[i] = beta == 0 ? alpha * s : alpha * s + beta * y[i];
    }
    return TIDE_OK;
  }
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(tide_csr_nnz(A)))
  for (int i = 0; i < A->nrows; i++) {
    double s = 0;
    for (int p = rp[i]; p < rp[i + 1]; p++)
      s += va[p] * x[ci[p]];
    y[i] = beta == 0 ? alpha * s : alpha * s + beta * y[i];
  }
  return TIDE_OK;
}

int tide_csr_mul(const tide_csr *A, const double *x, double *y) {
  if (A->stype == TIDE_CSR_UPPER) return tide_csr_gemv(A, 1.0, x, 0.0, y);
  const int *rp = A->rowptr, *ci = A->col;
  const double *va = A->val;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(tide_csr_nnz(A)))
  for (int i = 0; i < A->nrows; i++) {
    double s = 0;
    for (int p = rp[i]; p < rp[i + 1]; p++)
      s += va[p] * x[ci[p]];
    y[i] = s;
  }
  return TIDE_OK;
}

int64_t tide_csr_find(const tide_csr *A, int i, int j) {
  int lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (A->col[mid] < j)
      lo = mid + 1;
    else if (A->col[mid] > j)
      hi = mid - 1;
    else
      return mid;
  }
  return -1;
}

int tide_csr_diag(const tide_csr *A, double *d) {
  int n = A->nrows < A->ncols ? A->nrows : A->ncols;
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(n))
  for (int i = 0; i < n; i++) {
    int64_t p = tide_csr_find(A, i, i);
    d[i] = p >= 0 ? A->val[p] : 0;
  }
  return TIDE_OK;
}

/* Transpose of the stored entries (counting sort by column; rows ascend
 * within each output row, so columns come out sorted). */
static int transpose_stored(const tide_csr *A, tide_csr **out) {
  tide_csr *B = NULL;
  int64_t nnz = tide_csr_nnz(A);
  int st = tide_csr_new(A->ncols, A->nrows, nnz, &B);
  if (st) return st;
  for (int64_t p = 0; p < nnz; p++)
    B->rowptr[A->col[p] + 1]++;
  for (int c = 0; c < A->ncols; c++)
    B->rowptr[c + 1] += B->rowptr[c];
  int *next = tide_alloc((size_t)(A->ncols + 1) * sizeof(int));
  if (!next) {
    tide_csr_free(B);
    return TIDE_ENOMEM;
  }
  memcpy(next, B->rowptr, (size_t)(A->ncols + 1) * sizeof(int));
  for (int i = 0; i < A->nrows; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int q = next[A->col[p]]++;
      B->col[q] = i;
      B->val[q] = A->val[p];
    }
  tide_free(next, (size_t)(A->ncols + 1) * sizeof(int));
  *out = B;
  return TIDE_OK;
}

int tide_csr_transpose(const tide_csr *A, tide_csr **out) {
  *out = NULL;
  if (A->stype == TIDE_CSR_UPPER) return tide_csr_clone(A, out);
  return transpose_stored(A, out);
}

int tide_csr_clone(const tide_csr *A, tide_csr **out) {
  *out = NULL;
  tide_csr *B = NULL;
  int64_t nnz = tide_csr_nnz(A);
  int st = tide_csr_new(A->nrows, A->ncols, nnz, &B);
  if (st) return st;
  B->stype = A->stype;
  memcpy(B->rowptr, A->rowptr, (size_t)(A->nrows + 1) * sizeof(int));
  memcpy(B->col, A->col, (size_t)nnz * sizeof(int));
  memcpy(B->val, A->val, (size_t)nnz * sizeof(double));
  const struct tide_csr_aux *a = A->aux;
  if (a && a->trip_ptr && a->trip_idx && !a->embed) { /* an embedding's map is not copied */
    struct tide_csr_aux *b = aux_get(B);
    if (b) {
      b->trip_ptr = tide_alloc((size_t)(nnz + 1) * sizeof(int64_t));
      b->trip_idx = tide_alloc((size_t)a->nkept * sizeof(int64_t));
      if (b->trip_ptr && b->trip_idx) {
        memcpy(b->trip_ptr, a->trip_ptr, (size_t)(nnz + 1) * sizeof(int64_t));
        memcpy(b->trip_idx, a->trip_idx, (size_t)a->nkept * sizeof(int64_t));
        b->trip_nnz = nnz;
        b->nkept = a->nkept;
        b->ntrip = a->ntrip;
      } else {
        st = TIDE_ENOMEM;
      }
      if (st) {
        tide_free(b->trip_ptr, b->trip_ptr ? (size_t)(nnz + 1) * sizeof(int64_t) : 0);
        tide_free(b->trip_idx, b->trip_idx ? (size_t)a->nkept * sizeof(int64_t) : 0);
        b->trip_ptr = NULL;
        b->trip_idx = NULL;
      }
    } else {
      st = TIDE_ENOMEM;
    }
  }
  if (!st) st = build_transpose_index(B);
  if (st) {
    tide_csr_free(B);
    return tide_fail(st, "tide_csr_clone: out of memory");
  }
  *out = B;
  return TIDE_OK;
}

int tide_csr_triu(const tide_csr *A, tide_csr **out) {
  *out = NULL;
  if (A->nrows != A->ncols)
    return tide_fail(TIDE_EINVAL, "tide_csr_triu: matrix is %d x %d, not square", A->nrows,
                     A->ncols);
  if (A->stype == TIDE_CSR_UPPER) return tide_csr_clone(A, out);
  int64_t m = 0;
  for (int i = 0; i < A->nrows; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      m += A->col[p] >= i;
  tide_csr *U = NULL;
  int st = tide_csr_new(A->nrows, A->ncols, m, &U);
  if (st) return st;
  U->stype = TIDE_CSR_UPPER;
  int q = 0;
  for (int i = 0; i < A->nrows; i++) {
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] >= i) {
        U->col[q] = A->col[p];
        U->val[q++] = A->val[p];
      }
    U->rowptr[i + 1] = q;
  }
  st = build_transpose_index(U);
  if (st) {
    tide_csr_free(U);
    return st;
  }
  *out = U;
  return TIDE_OK;
}

int tide_csr_expand(const tide_csr *A, tide_csr **out) {
  *out = NULL;
  if (A->stype != TIDE_CSR_UPPER) return tide_csr_clone(A, out);
  const struct tide_csr_aux *a = A->aux;
  if (!a || !a->tptr)
    return tide_fail(TIDE_EINVAL, "tide_csr_expand: upper-storage matrix without its index");
  int n = A->nrows;
  int64_t nnz = tide_csr_nnz(A) + a->ntpos;
  tide_csr *B = NULL;
  int st = tide_csr_new(n, n, nnz, &B);
  if (st) return st;
  for (int i = 0; i < n; i++)
    B->rowptr[i + 1] =
        B->rowptr[i] + (a->tptr[i + 1] - a->tptr[i]) + (A->rowptr[i + 1] - A->rowptr[i]);
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(nnz))
  for (int i = 0; i < n; i++) {
    int q = B->rowptr[i];
    /* the lower part (rows of the transpose index ascend) then the upper */
    for (int t = a->tptr[i]; t < a->tptr[i + 1]; t++) {
      B->col[q] = a->trow[t];
      B->val[q++] = A->val[a->tpos[t]];
    }
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      B->col[q] = A->col[p];
      B->val[q++] = A->val[p];
    }
  }
  *out = B;
  return TIDE_OK;
}

/* C = A B by rows (Gustavson 1978): row i of C accumulates A(i,k) B(k,:)
 * in a dense accumulator with a marker; a symbolic pass sizes each row. */
int tide_csr_matmul(const tide_csr *A0, const tide_csr *B0, tide_csr **out) {
  *out = NULL;
  if (A0->ncols != B0->nrows)
    return tide_fail(TIDE_EINVAL, "tide_csr_matmul: inner sizes differ (%d x %d times %d x %d)",
                     A0->nrows, A0->ncols, B0->nrows, B0->ncols);
  tide_csr *Ae = NULL, *Be = NULL, *C = NULL;
  const tide_csr *A = A0, *B = B0;
  int st = TIDE_OK;
  if (A0->stype == TIDE_CSR_UPPER) {
    st = tide_csr_expand(A0, &Ae);
    A = Ae;
  }
  if (!st && B0->stype == TIDE_CSR_UPPER) {
    st = tide_csr_expand(B0, &Be);
    B = Be;
  }
  int m = A->nrows, n = B->ncols;
  int *rowcount = st ? NULL : tide_calloc((size_t)(m + 1) * sizeof(int));
  if (!st && !rowcount) st = TIDE_ENOMEM;
  int nth = tide_threads_get();
  int *marks = st ? NULL : tide_alloc((size_t)nth * (size_t)(n > 0 ? n : 1) * sizeof(int));
  double *acc = st ? NULL : tide_alloc((size_t)nth * (size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!st && (!marks || !acc)) st = tide_fail(TIDE_ENOMEM, "tide_csr_matmul: out of memory");
  int64_t total = 0;
  int overflow = 0;
  if (!st) {
#pragma omp parallel num_threads(nth) if (TIDE_LA_PAR(tide_csr_nnz(A)))
    {
#ifdef _OPENMP
      int tid = omp_get_thread_num();
#else
      int tid = 0;
#endif
      int *mark = marks + (size_t)tid * (size_t)n;
      for (int c = 0; c < n; c++)
        mark[c] = -1;
#pragma omp for schedule(dynamic, 64)
      for (int i = 0; i < m; i++) {
        int cntr = 0;
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
          int k = A->col[p];
          for (int q = B->rowptr[k]; q < B->rowptr[k + 1]; q++) {
            int c = B->col[q];
            if (mark[c] != i) {
              mark[c] = i;
              cntr++;
            }
          }
        }
        rowcount[i + 1] = cntr;
      }
    }
    for (int i = 0; i < m; i++)
      total += rowcount[i + 1];
    if (total > INT32_MAX) overflow = 1;
  }
  if (!st && overflow)
    st = tide_fail(TIDE_EINVAL, "tide_csr_matmul: product has %lld entries, beyond 32-bit indices",
                   (long long)total);
  if (!st) st = tide_csr_new(m, n, total, &C);
  if (!st) {
    for (int i = 0; i < m; i++)
      C->rowptr[i + 1] = C->rowptr[i] + rowcount[i + 1];
#pragma omp parallel num_threads(nth) if (TIDE_LA_PAR(tide_csr_nnz(A)))
    {
#ifdef _OPENMP
      int tid = omp_get_thread_num();
#else
      int tid = 0;
#endif
      int *mark = marks + (size_t)tid * (size_t)n;
      double *ac = acc + (size_t)tid * (size_t)n;
      for (int c = 0; c < n; c++)
        mark[c] = -1;
#pragma omp for schedule(dynamic, 64)
      for (int i = 0; i < m; i++) {
        int q0 = C->rowptr[i], cntr = 0;
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
          int k = A->col[p];
          double a = A->val[p];
          for (int q = B->rowptr[k]; q < B->rowptr[k + 1]; q++) {
            int c = B->col[q];
            if (mark[c] != i) {
              mark[c] = i;
              ac[c] = a * B->val[q];
              C->col[q0 + cntr++] = c;
            } else {
              ac[c] += a * B->val[q];
            }
          }
        }
        /* sort the row's columns (insertion sort: rows are short) */
        int *cc = C->col + q0;
        for (int s = 1; s < cntr; s++) {
          int x = cc[s], t = s - 1;
          while (t >= 0 && cc[t] > x) {
            cc[t + 1] = cc[t];
            t--;
          }
          cc[t + 1] = x;
        }
        for (int s = 0; s < cntr; s++)
          C->val[q0 + s] = ac[cc[s]];
      }
    }
  }
  tide_free(rowcount, rowcount ? (size_t)(m + 1) * sizeof(int) : 0);
  tide_free(marks, marks ? (size_t)nth * (size_t)(n > 0 ? n : 1) * sizeof(int) : 0);
  tide_free(acc, acc ? (size_t)nth * (size_t)(n > 0 ? n : 1) * sizeof(double) : 0);
  tide_csr_free(Ae);
  tide_csr_free(Be);
  if (st) {
    tide_csr_free(C);
    return st;
  }
  *out = C;
  return TIDE_OK;
}

int tide_csr_asymmetry(const tide_csr *A, double *out) {
  *out = 0;
  if (A->nrows != A->ncols)
    return tide_fail(TIDE_EINVAL, "tide_csr_asymmetry: matrix is %d x %d, not square", A->nrows,
                     A->ncols);
  if (A->stype == TIDE_CSR_UPPER) return TIDE_OK;
  tide_csr *T = NULL;
  int st = transpose_stored(A, &T);
  if (st) return st;
  /* both have sorted rows: merge row i of A and of A^T */
  double mx = 0;
#pragma omp parallel for schedule(static) reduction(max : mx) if (TIDE_LA_PAR(tide_csr_nnz(A)))
  for (int i = 0; i < A->nrows; i++) {
    int p = A->rowptr[i], pe = A->rowptr[i + 1], q = T->rowptr[i], qe = T->rowptr[i + 1];
    while (p < pe || q < qe) {
      double d;
      if (q >= qe || (p < pe && A->col[p] < T->col[q]))
        d = A->val[p++];
      else if (p >= pe || T->col[q] < A->col[p])
        d = T->val[q++];
      else
        d = A->val[p++] - T->val[q++];
      d = fabs(d);
      if (d > mx) mx = d;
    }
  }
  tide_csr_free(T);
  *out = mx;
  return TIDE_OK;
}

/* C = alpha A + beta B: merge of the sorted rows. */
int tide_csr_add(double alpha, const tide_csr *A0, double beta, const tide_csr *B0,
                 tide_csr **out) {
  *out = NULL;
  if (A0->nrows != B0->nrows || A0->ncols != B0->ncols)
    return tide_fail(TIDE_EINVAL, "tide_csr_add: sizes differ (%d x %d and %d x %d)", A0->nrows,
                     A0->ncols, B0->nrows, B0->ncols);
  tide_csr *Ae = NULL, *Be = NULL, *C = NULL;
  const tide_csr *A = A0, *B = B0;
  int st = TIDE_OK;
  if (A0->stype == TIDE_CSR_UPPER && B0->stype == TIDE_CSR_UPPER) {
    /* both symmetric: the sum stays in upper storage */
  } else {
    if (A0->stype == TIDE_CSR_UPPER) {
      st = tide_csr_expand(A0, &Ae);
      A = Ae;
    }
    if (!st && B0->stype == TIDE_CSR_UPPER) {
      st = tide_csr_expand(B0, &Be);
      B = Be;
    }
  }
  int m = A->nrows;
  int *cnt = st ? NULL : tide_calloc((size_t)(m + 1) * sizeof(int));
  if (!st && !cnt) st = TIDE_ENOMEM;
  if (!st) {
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(tide_csr_nnz(A) + tide_csr_nnz(B)))
    for (int i = 0; i < m; i++) {
      int p = A->rowptr[i], pe = A->rowptr[i + 1], q = B->rowptr[i], qe = B->rowptr[i + 1], c = 0;
      while (p < pe || q < qe) {
        if (q >= qe || (p < pe && A->col[p] < B->col[q]))
          p++;
        else if (p >= pe || B->col[q] < A->col[p])
          q++;
        else
          p++, q++;
        c++;
      }
      cnt[i + 1] = c;
    }
    int64_t total = 0;
    for (int i = 0; i < m; i++)
      total += cnt[i + 1];
    st = total > INT32_MAX ? tide_fail(TIDE_EINVAL, "tide_csr_add: too many entries")
                           : tide_csr_new(m, A->ncols, total, &C);
  }
  if (!st) {
    C->stype = A->stype;
    for (int i = 0; i < m; i++)
      C->rowptr[i + 1] = C->rowptr[i] + cnt[i + 1];
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(tide_csr_nnz(C)))
    for (int i = 0; i < m; i++) {
      int p = A->rowptr[i], pe = A->rowptr[i + 1], q = B->rowptr[i], qe = B->rowptr[i + 1];
      int o = C->rowptr[i];
      while (p < pe || q < qe) {
        if (q >= qe || (p < pe && A->col[p] < B->col[q])) {
          C->col[o] = A->col[p];
          C->val[o++] = alpha * A->val[p++];
        } else if (p >= pe || B->col[q] < A->col[p]) {
          C->col[o] = B->col[q];
          C->val[o++] = beta * B->val[q++];
        } else {
          C->col[o] = A->col[p];
          C->val[o++] = alpha * A->val[p++] + beta * B->val[q++];
        }
      }
    }
    st = build_transpose_index(C);
  }
  tide_free(cnt, cnt ? (size_t)(m + 1) * sizeof(int) : 0);
  tide_csr_free(Ae);
  tide_csr_free(Be);
  if (st) {
    tide_csr_free(C);
    return st;
  }
  *out = C;
  return TIDE_OK;
}

int tide_csr_scale(tide_csr *A, const double *left, const double *right) {
  if (A->stype == TIDE_CSR_UPPER && left != right)
    return tide_fail(TIDE_EINVAL, "tide_csr_scale: a symmetric (upper-storage) matrix needs the "
                                  "same left and right scaling");
  int bad = -1;
  for (int i = 0; left && i < A->nrows && bad < 0; i++)
    if (!isfinite(left[i])) bad = i;
  for (int j = 0; right && j < A->ncols && bad < 0; j++)
    if (!isfinite(right[j])) bad = j;
  if (bad >= 0)
    return tide_fail(TIDE_ENONFINITE, "tide_csr_scale: scaling entry %d is not finite", bad);
#pragma omp parallel for schedule(static) if (TIDE_LA_PAR(tide_csr_nnz(A)))
  for (int i = 0; i < A->nrows; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      A->val[p] *= (left ? left[i] : 1.0) * (right ? right[A->col[p]] : 1.0);
  return TIDE_OK;
}
