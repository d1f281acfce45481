/* zarifi_precond.c -- the multigrid-in-block preconditioner of the SPD and
 * factored coupled systems (see zarifi.h, "block preconditioner"):
 * symmetric multiplicative Schwarz over the interface block (solved exactly:
 * LDL^T of its augmented sparse form, or Cholesky of the assembled block) and
 * the liquid block (one multigrid V-cycle of the liquid's
 * Poisson operator, linalg/mgpcg.h). */
#include "couple/zarifi.h"
#include "linalg/mgpcg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The interface's pattern changes with every projection, so its analysis is redone each time:
 * AMD alone, not CHOLMOD's default that also tries METIS when the fill is high (the compressed
 * cube's 8.4k-row augmented interface: analysis 13-16 ms against 70-82 ms, nnz(L) within 4%,
 * the factorization's flops +6%). */
#define IFACE_ORDERING TIDE_ORDER_AMD

struct tide_zarifi_work {
  tide_grid g;
  tide_mac_solver *mg; /* the hierarchy, NULL until the first projection */
  uint64_t gen;        /* bumped by every projection that re-analyses mg */
  tide_array *labels;  /* a kept system's copies of its labels and fractions (tide_zarifi_work_inputs) */
  tide_mac *fractions;
  uint64_t in_gen;     /* bumped by every rewrite of them */
  /* the V-cycle's arrays of the preconditioner built with this workspace, allocated once with
   * room for every cell (a liquid row per cell at most): pad, each row's cell in the hierarchy's
   * layout (tide_mac_solver_row_map, remade with each preconditioner); vlabels: the V-cycle's
   * labels */
  int *pad;
  uint8_t *vlabels;
  tide_csr *spare_b; /* a freed system's liquid block B, its storage reused by the next assembly */
};

int tide_zarifi_work_new(const tide_grid *g, tide_zarifi_work **out) {
  *out = NULL;
  if (!g) return tide_fail(TIDE_EINVAL, "coupled workspace: no grid");
  tide_zarifi_work *w = tide_calloc(sizeof *w);
  if (!w) return tide_fail(TIDE_ENOMEM, "coupled workspace: out of memory");
  w->g = *g;
  *out = w;
  return TIDE_OK;
}

void tide_zarifi_work_free(tide_zarifi_work *w) {
  if (!w) return;
  tide_mac_solver_free(w->mg);
  if (w->labels) tide_array_release(w->labels);
  tide_mac_free(w->fractions);
  int64_t nc = tide_grid_ncells(&w->g);
  tide_free(w->pad, w->pad ? (size_t)nc * sizeof(int) : 0);
  tide_free(w->vlabels, w->vlabels ? (size_t)nc : 0);
  tide_csr_free(w->spare_b);
  tide_free(w, sizeof *w);
}

int64_t tide_zarifi_work_bytes(const tide_zarifi_work *w) {
  if (!w) return 0;
  tide_mac_solver_info info;
  int64_t b = (int64_t)sizeof *w;
  if (w->mg && !tide_mac_solver_info_get(w->mg, &info)) b += info.bytes;
  if (w->labels) b += tide_array_size(w->labels);
  for (int a = 0; w->fractions && a < w->g.dim; a++)
    b += tide_array_size(w->fractions->u[a]) * (int64_t)sizeof(double);
  int64_t nc = tide_grid_ncells(&w->g);
  b += (w->pad ? nc * (int64_t)sizeof(int) : 0) + (w->vlabels ? nc : 0);
  if (w->spare_b) b += (int64_t)tide_csr_bytes(w->spare_b);
  return b;
}

tide_csr **tide_zarifi_work_spare(tide_zarifi_work *w) { return w ? &w->spare_b : NULL; }

void tide_zarifi_work_give(tide_zarifi_work *w, tide_csr *B) {
  if (w && !w->spare_b)
    w->spare_b = B;
  else
    tide_csr_free(B);
}

int tide_zarifi_work_inputs(tide_zarifi_work *w, const tide_array *labels, const tide_mac *fr,
                            const tide_array **lab, const tide_mac **frac) {
  const tide_grid *g = &w->g;
  if (!w->labels && !(w->labels = tide_grid_cell_array(g, TIDE_U8)))
    return tide_fail(TIDE_ENOMEM, "coupled workspace: out of memory");
  memcpy(TIDE_U8P(w->labels), TIDE_U8P(labels), (size_t)tide_grid_ncells(g));
  w->in_gen++;
  *lab = w->labels, *frac = NULL;
  if (!fr) return TIDE_OK;
  int s;
  if (!w->fractions && (s = tide_mac_new(g, TIDE_F64, &w->fractions))) return s;
  for (int a = 0; a < g->dim; a++)
    memcpy(TIDE_F64P(w->fractions->u[a]), TIDE_F64P(fr->u[a]),
           (size_t)tide_array_size(fr->u[a]) * sizeof(double));
  *frac = w->fractions;
  return TIDE_OK;
}

const tide_grid *tide_zarifi_work_grid(const tide_zarifi_work *w) { return w ? &w->g : NULL; }
uint64_t tide_zarifi_work_inputs_gen(const tide_zarifi_work *w) { return w ? w->in_gen : 0; }

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
  double cinv;        /* 1 / c, B = c A_poisson */
  tide_factor *F;     /* Cholesky of A[I, I], or LDL^T of the augmented [X_II Y_I; Y_I^T -Z] */
  tide_mac_solver *M; /* the liquid's V-cycle (the workspace's when work) */
  tide_zarifi_work *work; /* or NULL: M is owned */
  uint64_t gen;           /* work->gen when M was analysed for this system */
  double *t, *y;      /* ni (split: ni + nw) */
  int nw;             /* split: the augmented rows (solid DOFs) */
  int augmented;      /* the interface is factored in its augmented form */
  /* step 2's right side of the V-cycle is r except at the fixed rows: those with an entry in
   * hptr or in Y1, and the dead ones (fix, ascending; fixv their values); zi: n, the first
   * interface answer on I and 0 elsewhere (reset after each application) */
  int nfix;
  int *fix;
  double *fixv, *zi;
  int *pad;           /* nl: each liquid row's cell in the V-cycle's layout, -1: not in it
                         (tide_mac_solver_row_map) */
  uint8_t *labels;    /* ncells: the liquid's labels for the V-cycle */
  int64_t ncells;
  double setup_seconds;
  /* with a split (zarifi.h): its blocks (by reference), the dead rows as flags, the scratch of
   * Z^-1 Y^T z (apply) and of the product (mul); hptr.. then hold X11[I, L]^T, not A[I, L]^T */
  int split;
  tide_zarifi_split sp;
  int64_t nnz_a; /* entries of the (assembled or split) A, general storage */
  uint8_t *dead; /* n */
  double *w, *wm; /* nw each */
};

void tide_zarifi_precond_free(tide_zarifi_precond *M) {
  if (!M) return;
  tide_free(M->idx, (size_t)(M->ni + 1) * sizeof(int));
  tide_free(M->hptr, M->hptr ? (size_t)(M->nl + 1) * sizeof(int) : 0);
  tide_free(M->hcol, M->hcol ? (size_t)(M->nh + 1) * sizeof(int) : 0);
  tide_free(M->hval, M->hval ? (size_t)(M->nh + 1) * sizeof(double) : 0);
  tide_factor_free(M->F);
  if (!M->work) tide_mac_solver_free(M->M);
  tide_free(M->t, (size_t)(M->ni + M->nw + 1) * sizeof(double));
  tide_free(M->y, (size_t)(M->ni + M->nw + 1) * sizeof(double));
  tide_free(M->fix, M->fix ? (size_t)(M->nfix + 1) * sizeof(int) : 0);
  tide_free(M->fixv, M->fixv ? (size_t)(M->nfix + 1) * sizeof(double) : 0);
  tide_free(M->zi, M->zi ? (size_t)(M->n + 1) * sizeof(double) : 0);
  if (!M->work) { /* else the workspace's */
    tide_free(M->pad, M->pad ? (size_t)(M->nl + 1) * sizeof(int) : 0);
    tide_free(M->labels, M->labels ? (size_t)M->ncells : 0);
  }
  tide_free(M->dead, M->dead ? (size_t)M->n + 1 : 0);
  tide_free(M->w, M->w ? (size_t)(M->nw + 1) * sizeof(double) : 0);
  tide_free(M->wm, M->wm ? (size_t)(M->nw + 1) * sizeof(double) : 0);
  tide_free(M, sizeof *M);
}

/* w = Z^-1 (Y1^T z_L + sy2 Y2^T z_S) (nw): the split's coupling variables of z */
static void split_w(const tide_zarifi_split *sp, int nl, int nw, const double *z, double *w) {
  const tide_csr *T1 = sp->Y1t, *T2 = sp->Y2t;
#pragma omp parallel for schedule(static) if (nw > 4096)
  for (int d = 0; d < nw; d++) {
    double a = 0, b = 0;
    for (int p = T1->rowptr[d]; p < T1->rowptr[d + 1]; p++)
      a += T1->val[p] * z[T1->col[p]];
    for (int p = T2->rowptr[d]; p < T2->rowptr[d + 1]; p++)
      b += T2->val[p] * z[nl + T2->col[p]];
    w[d] = sp->zinv[d] * (a + sp->sy2 * b);
  }
}

/* (A z)_i from the split, w = split_w(z): X's row plus Y's row times w (dead: z_i) */
static inline double split_row(const tide_zarifi_split *sp, const uint8_t *dead, int nl, int i,
                               const double *z, const double *w) {
  if (dead[i]) return z[i];
  double s = 0;
  if (i < nl) {
    const tide_csr *X = sp->X11, *Y = sp->Y1;
    for (int p = X->rowptr[i]; p < X->rowptr[i + 1]; p++)
      s += X->val[p] * z[X->col[p]];
    for (int p = Y->rowptr[i]; p < Y->rowptr[i + 1]; p++)
      s += Y->val[p] * w[Y->col[p]];
    return s;
  }
  int r = i - nl;
  const tide_csr *X = sp->X22, *Y = sp->Y2;
  if (X) {
    for (int p = X->rowptr[r]; p < X->rowptr[r + 1]; p++)
      s += X->val[p] * z[nl + X->col[p]];
    s *= sp->s22;
  } else
    s = z[i];
  double y = 0;
  for (int p = Y->rowptr[r]; p < Y->rowptr[r + 1]; p++)
    y += Y->val[p] * w[Y->col[p]];
  return s + sp->sy2 * y;
}

static int int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Row i of A from the split, symbolically or with its values: the union of X's row and of
 * Y_i Z^-1 Y^T (each k of Y's row i spreads Y_ik zinv_k (Y^T)_k) -- the pattern the assembled
 * B + J Z^-1 J^T, A12, A21, A22 products have (the dead rows: A_ii = 1 on X11's diagonal).
 * The columns go to cols[0 .. m) (unsorted), with vals: their values (acc, mk: n scratch, mk
 * all -1 on entry and on return).  Returns m. */
static int split_pattern(const tide_zarifi_split *sp, const uint8_t *dead, int nl, int i, int *cols,
                         double *vals, double *acc, int *mk) {
  int m = 0;
#define ADD(c, v)                                                                                 \
  do {                                                                                            \
    int c_ = (c);                                                                                 \
    if (mk[c_] < 0) {                                                                             \
      mk[c_] = m, cols[m] = c_;                                                                   \
      if (acc) acc[m] = 0;                                                                        \
      m++;                                                                                        \
    }                                                                                             \
    if (acc) acc[mk[c_]] += (v);                                                                  \
  } while (0)
  const tide_csr *Y;
  double ys;
  int r;
  if (i < nl) {
    const tide_csr *X = sp->X11;
    for (int p = X->rowptr[i]; p < X->rowptr[i + 1]; p++)
      ADD(X->col[p], dead[i] ? (X->col[p] == i) : X->val[p]);
    Y = sp->Y1, ys = 1, r = i;
  } else {
    r = i - nl;
    const tide_csr *X = sp->X22;
    if (X)
      for (int p = X->rowptr[r]; p < X->rowptr[r + 1]; p++)
        ADD(nl + X->col[p], sp->s22 * X->val[p]);
    else
      ADD(i, 1.0);
    Y = sp->Y2, ys = sp->sy2;
  }
  const tide_csr *T1 = sp->Y1t, *T2 = sp->Y2t;
  for (int p = Y->rowptr[r]; p < Y->rowptr[r + 1]; p++) {
    int k = Y->col[p];
    double a = ys * Y->val[p] * sp->zinv[k];
    for (int q = T1->rowptr[k]; q < T1->rowptr[k + 1]; q++)
      ADD(T1->col[q], a * T1->val[q]);
    for (int q = T2->rowptr[k]; q < T2->rowptr[k + 1]; q++)
      ADD(nl + T2->col[q], a * sp->sy2 * T2->val[q]);
  }
#undef ADD
  for (int q = 0; q < m; q++) {
    mk[cols[q]] = -1;
    if (vals) vals[q] = acc[q];
  }
  return m;
}

/* Without A (split only): the entries of the upper triangle of A[I, I] into *upper and of the
 * whole A into M->nnz_a, from the patterns alone (split_pattern without values), the rows of I
 * in parallel (each thread its own markers).  lay: the position in I of each row (-1: not in I). */
static int split_count(tide_zarifi_precond *M, const int *lay, int64_t *upper) {
  const int n = M->n, nl = M->nl, ni = M->ni;
  int64_t full = 0, up = 0;
  int s = TIDE_OK;
  for (int i = 0; i < nl; i++) /* the rows outside I: X11's (no coupling reaches them) */
    if (lay[i] < 0) full += M->sp.X11->rowptr[i + 1] - M->sp.X11->rowptr[i];
#pragma omp parallel reduction(+ : full, up) if (ni > 1024)
  {
    size_t ib = (size_t)(n + 1) * sizeof(int);
    int *mk = tide_alloc(ib), *cols = tide_alloc(ib);
    if (!mk || !cols) {
#pragma omp atomic write
      s = TIDE_ENOMEM;
    } else
      for (int i = 0; i < n; i++)
        mk[i] = -1;
#pragma omp for schedule(dynamic, 256)
    for (int k = 0; k < ni; k++) {
      if (!mk || !cols) continue;
      int m = split_pattern(&M->sp, M->dead, nl, M->idx[k], cols, NULL, NULL, mk);
      full += m;
      for (int q = 0; q < m; q++)
        up += lay[cols[q]] >= k;
    }
    tide_free(mk, mk ? ib : 0);
    tide_free(cols, cols ? ib : 0);
  }
  if (s) return tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
  M->nnz_a = full;
  *upper = up;
  return TIDE_OK;
}

/* Without A (split only): the upper triangle of A[I, I] written into AI (rows of I in the order
 * of M->idx, columns ascending, AI->rowptr[0] = 0; *upper: its entry count).  lay: as above. */
static int split_interface(tide_zarifi_precond *M, const int *lay, tide_csr *AI, int64_t *upper) {
  const int n = M->n, nl = M->nl, ni = M->ni;
  size_t ib = (size_t)(n + 1) * sizeof(int), db = (size_t)(n + 1) * sizeof(double);
  int *mk = tide_alloc(ib), *cols = tide_alloc(ib), *pos = tide_alloc(ib);
  double *acc = tide_alloc(db), *vals = tide_alloc(db);
  int s = TIDE_OK;
  if (!mk || !cols || !pos || !acc || !vals) {
    s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++)
    mk[i] = -1;
  int64_t up = 0;
  for (int k = 0; k < ni; k++) {
    int m = split_pattern(&M->sp, M->dead, nl, M->idx[k], cols, vals, acc, mk);
    int u = 0; /* the row's upper part within I, as positions in I (distinct) */
    for (int q = 0; q < m; q++) {
      int c = lay[cols[q]];
      if (c >= k) pos[u] = c, vals[u++] = vals[q];
    }
    up += u;
    /* sorted positions, the values along (mk, all -1 again, maps a position to its value) */
    for (int q = 0; q < u; q++)
      mk[pos[q]] = q;
    memcpy(cols, pos, (size_t)u * sizeof(int));
    qsort(cols, (size_t)u, sizeof(int), int_cmp);
    int64_t o = AI->rowptr[k];
    for (int q = 0; q < u; q++) {
      AI->col[o + q] = cols[q];
      AI->val[o + q] = vals[mk[cols[q]]];
      mk[cols[q]] = -1;
    }
    AI->rowptr[k + 1] = (int)(o + u);
  }
  *upper = up;
done:
  tide_free(mk, ib);
  tide_free(cols, ib);
  tide_free(pos, ib);
  tide_free(acc, db);
  tide_free(vals, db);
  return s;
}

int tide_zarifi_precond_mul(void *ctx, const double *x, double *y) {
  tide_zarifi_precond *M = ctx;
  if (!M->split) return tide_csr_mul(M->A, x, y);
  const int nl = M->nl, n = M->n;
  split_w(&M->sp, nl, M->nw, x, M->wm);
  const double *w = M->wm;
  /* the liquid rows as X11's alone (linalg's CSR product), the solid rows whole; then the
   * fixed rows' Y1 w and the dead rows (split_row's sums in its order) */
  const tide_csr *Y = M->sp.Y1;
  int s = tide_csr_mul(M->sp.X11, x, y);
  if (s) return s;
#pragma omp parallel for schedule(static) if (n - nl > 65536)
  for (int i = nl; i < n; i++)
    y[i] = split_row(&M->sp, M->dead, nl, i, x, w);
#pragma omp parallel for schedule(static) if (M->nfix > 4096)
  for (int k = 0; k < M->nfix; k++) {
    const int i = M->fix[k];
    if (M->dead[i]) {
      y[i] = x[i];
      continue;
    }
    double v = y[i];
    for (int p = Y->rowptr[i]; p < Y->rowptr[i + 1]; p++)
      v += Y->val[p] * w[Y->col[p]];
    y[i] = v;
  }
  return TIDE_OK;
}

/* Entries of the upper triangle of A[I, I] (rows of I in the order of M->idx; lay: position in
 * I of each row of A, -1: not in I). */
static int64_t assembled_nnz(const tide_zarifi_precond *M, const tide_csr *A, const int *lay) {
  int64_t na = 0;
  for (int k = 0; k < M->ni; k++) {
    int i = M->idx[k];
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      na += lay[A->col[p]] >= k;
  }
  return na;
}

/* The augmented interface matrix K = [X_II Y_I; Y_I^T -Z] (upper triangle; rows of I in the
 * order of M->idx, then the nw rows of w).  A dead liquid row gets K_kk = 1, as in A.
 * write 0: only count K's entries (returned); 1: K is written and its LDL^T factored into M->F
 * (returns the status). */
static int64_t augmented(tide_zarifi_precond *M, const tide_zarifi_split *sp,
                         const int *lay, int write) {
  const int nl = M->nl, ni = M->ni, nw = M->nw;
  const tide_csr *X11 = sp->X11, *X22 = sp->X22, *Y1 = sp->Y1, *Y2 = sp->Y2;
  tide_csr *K = NULL;
  int64_t o = 0;
  for (int pass = write ? 0 : 1; pass < 2; pass++) {
    /* pass 0: count; pass 1: write (or count again when not writing) */
    if (pass == 1 && write) {
      int s = tide_csr_new(ni + nw, ni + nw, o, &K);
      if (s) return s;
      K->stype = TIDE_CSR_UPPER;
    }
    int put = pass == 1 && write;
    o = 0;
#define PUT(c, v)                                                                                 \
  do {                                                                                            \
    if (put) K->col[o] = (c), K->val[o] = (v);                                                    \
    o++;                                                                                          \
  } while (0)
    for (int k = 0; k < ni; k++) {
      int i = M->idx[k];
      if (i < nl) {
        if (M->dead[i])
          PUT(k, 1.0);
        else
          for (int p = X11->rowptr[i]; p < X11->rowptr[i + 1]; p++) {
            int q = lay[X11->col[p]];
            if (q >= k) PUT(q, X11->val[p]);
          }
        for (int p = Y1->rowptr[i]; p < Y1->rowptr[i + 1]; p++)
          PUT(ni + Y1->col[p], Y1->val[p]);
      } else {
        int r = i - nl;
        if (X22) {
          for (int p = X22->rowptr[r]; p < X22->rowptr[r + 1]; p++) {
            int q = lay[nl + X22->col[p]];
            if (q >= k) PUT(q, sp->s22 * X22->val[p]);
          }
        } else
          PUT(k, 1.0);
        for (int p = Y2->rowptr[r]; p < Y2->rowptr[r + 1]; p++)
          PUT(ni + Y2->col[p], sp->sy2 * Y2->val[p]);
      }
      if (put) K->rowptr[k + 1] = (int)o;
    }
    for (int d = 0; d < nw; d++) {
      PUT(ni + d, -1 / sp->zinv[d]);
      if (put) K->rowptr[ni + d + 1] = (int)o;
    }
#undef PUT
  }
  if (!write) return o;
  int s = tide_csr_finish(K);
  if (!s) s = tide_factor_new_ordered(K, TIDE_FACTOR_LDLT, IFACE_ORDERING, &M->F);
  tide_csr_free(K);
  return s;
}

/* The interface block's factor into M->F: augmented or assembled (zarifi.h, tide_zarifi_split). */
static int interface_factor(tide_zarifi_precond *M, const tide_csr *A, const tide_zarifi_split *split,
                            const int *lay, int64_t na) {
  const int ni = M->ni;
  int s = TIDE_OK;
  M->augmented = split && (split->mode == TIDE_ZARIFI_IFACE_AUGMENTED ||
                           (split->mode == TIDE_ZARIFI_IFACE_AUTO &&
                            na >= TIDE_ZARIFI_IFACE_RATIO * augmented(M, split, lay, 0)));
  if (M->augmented) {
    if ((s = (int)augmented(M, split, lay, 1))) return s;
  } else {
    /* A[I, I] (upper triangle), written row by row: lay[] is increasing on I, so each row's
     * positions ascend as A's columns do */
    tide_csr *AI = NULL;
    if ((s = tide_csr_new(ni, ni, na, &AI))) return s;
    AI->stype = TIDE_CSR_UPPER;
    int64_t o = 0;
    if (!A) { /* from the split, row by row */
      s = split_interface(M, lay, AI, &o);
      if (!s) s = tide_csr_finish(AI);
      if (!s) s = tide_factor_new_ordered(AI, TIDE_FACTOR_CHOLESKY, IFACE_ORDERING, &M->F);
      tide_csr_free(AI);
      return s;
    }
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
    if (!s) s = tide_factor_new_ordered(AI, TIDE_FACTOR_CHOLESKY, IFACE_ORDERING, &M->F);
    tide_csr_free(AI);
  }
  return s;
}

/* The liquid block's V-cycle (M->M), on the liquid cells of P that have an open face: a cell
 * the solid closes on every side (its B row is 0; J touches it, so it is in I and solved there)
 * is left out of the multigrid hierarchy, where it would only be lumped into a coarse cell with
 * its open neighbours. */
static int liquid_vcycle(tide_zarifi_precond *M, const tide_mac_poisson *P) {
  {
    if (!M->labels) M->labels = tide_alloc((size_t)M->ncells); /* (the workspace's when work) */
    if (!M->labels) return tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
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
    tide_zarifi_work *w = M->work;
    if (!w) return tide_mac_solver_new(&Q, &mo, &M->M);
    /* the workspace's hierarchy, re-analysed (or built the first time) */
    int s = w->mg ? tide_mac_solver_update(w->mg, &Q) : tide_mac_solver_new(&Q, &mo, &w->mg);
    w->gen++;
    if (s) {
      tide_mac_solver_free(w->mg); /* half re-analysed: built again next time */
      w->mg = NULL;
      return s;
    }
    M->M = w->mg;
    M->gen = w->gen;
    return TIDE_OK;
  }
}

int tide_zarifi_precond_new(const tide_csr *A, int nl, const int *cell_of_row,
                            const tide_mac_poisson *P, double c, int ring,
                            const tide_zarifi_split *split, tide_zarifi_work *work,
                            tide_zarifi_precond **out) {
  *out = NULL;
  if (work && (work->g.dim != P->grid.dim || work->g.n[0] != P->grid.n[0] ||
               work->g.n[1] != P->grid.n[1] || work->g.n[2] != P->grid.n[2]))
    return tide_fail(TIDE_EINVAL,
                     "coupled preconditioner: the workspace is for a %dx%dx%d grid, the liquid's "
                     "is %dx%dx%d",
                     work->g.n[0], work->g.n[1], work->g.n[2], P->grid.n[0], P->grid.n[1],
                     P->grid.n[2]);
  if ((!A && !split) || !cell_of_row || !P || !(c > 0) || ring < 0 || nl < 0)
    return tide_fail(TIDE_EINVAL, "coupled preconditioner: invalid arguments");
  if (A && (A->stype != TIDE_CSR_GENERAL || A->nrows != A->ncols || nl > A->nrows))
    return tide_fail(TIDE_EINVAL,
                     "coupled preconditioner: A must be square in general storage with the "
                     "liquid rows first");
  if (split) {
    const tide_zarifi_split *q = split;
    if (!q->Y2) return tide_fail(TIDE_EINVAL, "coupled preconditioner: the split has no Y2");
    int n2 = A ? A->nrows - nl : q->Y2->nrows;
    if (!A && (int64_t)nl + n2 > INT32_MAX)
      return tide_fail(TIDE_EINVAL, "coupled preconditioner: system too large");
    if (!q->X11 || !q->Y1 || !q->Y2 || !q->zinv || q->X11->nrows != nl || q->X11->ncols != nl ||
        q->Y1->nrows != nl || q->Y2->nrows != n2 || q->Y2->ncols != q->Y1->ncols ||
        (q->X22 && (q->X22->nrows != n2 || q->X22->ncols != n2)) ||
        q->X11->stype != TIDE_CSR_GENERAL || q->Y1->stype != TIDE_CSR_GENERAL ||
        q->Y2->stype != TIDE_CSR_GENERAL || (q->X22 && q->X22->stype != TIDE_CSR_GENERAL) ||
        !q->Y1t || !q->Y2t || q->Y1t->nrows != q->Y1->ncols || q->Y1t->ncols != nl ||
        q->Y2t->nrows != q->Y1->ncols || q->Y2t->ncols != n2 ||
        q->Y1t->stype != TIDE_CSR_GENERAL || q->Y2t->stype != TIDE_CSR_GENERAL ||
        q->ndead < 0 || (q->ndead > 0 && !q->dead))
      return tide_fail(TIDE_EINVAL, "coupled preconditioner: the split's blocks do not fit A");
    for (int64_t k = 0; k < q->ndead; k++)
      if (q->dead[k] < 0 || q->dead[k] >= nl)
        return tide_fail(TIDE_EINVAL, "coupled preconditioner: dead row %d is not a liquid row",
                         q->dead[k]);
  }
  double t0 = tide_wtime();
  int n = A ? A->nrows : nl + split->Y2->nrows, s = TIDE_OK;
  tide_zarifi_precond *M = tide_calloc(sizeof *M);
  if (!M) return tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
  M->A = A;
  M->work = work;
  M->n = n;
  M->nl = nl;
  M->cinv = 1 / c;
  M->ncells = tide_grid_ncells(&P->grid);
  /* the interface: solid rows, liquid rows coupled to them, then `ring` layers of liquid
   * neighbours (breadth-first through A11's graph; without A through X11's = B's: the coupling's
   * J Z^-1 J^T links only rows coupled to the solids, all in layer 0) */
  const tide_csr *G = A ? A : split->X11;
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
    for (int p = G->rowptr[i]; p < G->rowptr[i + 1]; p++) {
      if (G->col[p] >= nl && G->val[p] != 0) lay[i] = 0;
      off += G->col[p] != i && G->val[p] != 0;
    }
    if (!A) /* coupled to a solid: J's row */
      for (int p = split->Y1->rowptr[i]; p < split->Y1->rowptr[i + 1]; p++)
        if (split->Y1->val[p] != 0) lay[i] = 0;
    if (!off) lay[i] = 0;
  }
  for (int l = 1; l <= ring; l++)
    for (int i = 0; i < nl; i++) {
      if (lay[i] != l - 1) continue;
      for (int p = G->rowptr[i]; p < G->rowptr[i + 1]; p++) {
        int j = G->col[p];
        if (j < nl && lay[j] < 0) lay[j] = l;
      }
    }
  int ni = 0;
  for (int i = 0; i < n; i++)
    ni += lay[i] >= 0;
  M->ni = ni;
  M->nw = split ? split->Y1->ncols : 0;
  if (split) {
    M->split = 1;
    M->sp = *split;
    M->dead = tide_calloc((size_t)n + 1);
    M->w = tide_alloc((size_t)(M->nw + 1) * sizeof(double));
    M->wm = tide_alloc((size_t)(M->nw + 1) * sizeof(double));
    if (!M->dead || !M->w || !M->wm) {
      s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
      goto done;
    }
    for (int64_t k = 0; k < split->ndead; k++)
      M->dead[split->dead[k]] = 1;
  }
  M->idx = tide_alloc((size_t)(ni + 1) * sizeof(int));
  M->t = tide_calloc((size_t)(ni + M->nw + 1) * sizeof(double));
  M->y = tide_alloc((size_t)(ni + M->nw + 1) * sizeof(double));
  M->zi = tide_calloc((size_t)(n + 1) * sizeof(double));
  if (work) { /* the workspace's cell arrays, allocated at its first preconditioner */
    if (!work->pad) work->pad = tide_alloc((size_t)M->ncells * sizeof(int));
    if (!work->vlabels) work->vlabels = tide_alloc((size_t)M->ncells);
    M->pad = work->pad, M->labels = work->vlabels;
  } else
    M->pad = tide_alloc((size_t)(nl + 1) * sizeof(int));
  if (!M->idx || !M->t || !M->y || !M->zi || !M->pad || (work && !M->labels)) {
    s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
    goto done;
  }
  ni = 0;
  for (int i = 0; i < n; i++)
    if (lay[i] >= 0) {
      M->idx[ni] = i;
      lay[i] = ni++; /* now: position in I */
    }
  /* A[I, L]^T (counting sort of the liquid columns of the rows of I, k ascending); with a split
   * X11[I, L]^T: the liquid rows of I in X11 = B (the coupling goes through Y, a dead row's
   * A_jj = 1 through M->dead) */
  {
    M->hptr = tide_calloc((size_t)(nl + 1) * sizeof(int));
    if (!M->hptr) {
      s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
      goto done;
    }
    const tide_csr *H = split ? split->X11 : A;
    int nk = 0; /* the rows of I taken: all, or (split) the liquid ones, which come first */
    while (nk < ni && (!split || M->idx[nk] < nl))
      nk++;
    int64_t nh = 0;
    for (int k = 0; k < nk; k++) {
      int j = M->idx[k];
      for (int p = H->rowptr[j]; p < H->rowptr[j + 1]; p++)
        if (H->col[p] < nl) M->hptr[H->col[p] + 1]++, nh++;
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
    for (int k = 0; k < nk; k++) {
      int j = M->idx[k];
      for (int p = H->rowptr[j]; p < H->rowptr[j + 1]; p++)
        if (H->col[p] < nl) {
          int q = next[H->col[p]]++;
          M->hcol[q] = j;
          M->hval[q] = H->val[p];
        }
    }
    tide_free(next, (size_t)(nl + 1) * sizeof(int));
  }
  /* the fixed rows of step 2 (its right side differs from r there) */
  {
    const tide_csr *Y1 = split ? split->Y1 : NULL;
#define FIXED(i)                                                                                  \
  (M->hptr[(i) + 1] > M->hptr[i] || (Y1 && (Y1->rowptr[(i) + 1] > Y1->rowptr[i] || M->dead[i])))
    int nf = 0;
    for (int i = 0; i < nl; i++)
      nf += FIXED(i);
    M->nfix = nf;
    M->fix = tide_alloc((size_t)(nf + 1) * sizeof(int));
    M->fixv = tide_alloc((size_t)(nf + 1) * sizeof(double));
    if (!M->fix || !M->fixv) {
      s = tide_fail(TIDE_ENOMEM, "coupled preconditioner: out of memory");
      goto done;
    }
    nf = 0;
    for (int i = 0; i < nl; i++)
      if (FIXED(i)) M->fix[nf++] = i;
#undef FIXED
  }
  /* the entry counts of A[I, I] (the choice of the interface's form; without A also A's,
   * stats.nonzeros), on all threads; then the interface factor (serial: CHOLMOD) and the
   * V-cycle's hierarchy (parallel loops), independent: with two or more threads they are built
   * side by side, one thread each (the hierarchy's loops then run on one thread; the answers
   * are the same either way) */
  int64_t na = 0;
  if (A)
    na = assembled_nnz(M, A, lay);
  else if ((s = split_count(M, lay, &na)))
    goto done;
  {
    int s1 = TIDE_OK, s2 = TIDE_OK;
    char m1[256] = "", m2[256] = "";
#ifdef _OPENMP
    int side = omp_get_max_threads() > 1 && !omp_in_parallel();
#else
    int side = 0;
#endif
#pragma omp parallel sections num_threads(2) if (side)
    {
#pragma omp section
      {
        s1 = interface_factor(M, A, split, lay, na);
        if (s1) snprintf(m1, sizeof m1, "%s", tide_errmsg());
      }
#pragma omp section
      {
        s2 = liquid_vcycle(M, P);
        if (s2) snprintf(m2, sizeof m2, "%s", tide_errmsg());
      }
    }
    /* the message is thread-local: raised again on this thread */
    if (s1 || s2) {
      s = tide_fail(s1 ? s1 : s2, "%s", s1 ? m1 : m2);
      goto done;
    }
  }
  /* the liquid rows in the hierarchy's layout (the cells it left out: -1) */
  if ((s = tide_mac_solver_row_map(M->M, nl, cell_of_row, M->pad))) goto done;
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
int64_t tide_zarifi_precond_nonzeros(const tide_zarifi_precond *M) {
  if (!M) return 0;
  return M->A ? tide_csr_nnz(M->A) : M->nnz_a;
}
int tide_zarifi_precond_augmented(const tide_zarifi_precond *M) { return M ? M->augmented : 0; }
int64_t tide_zarifi_precond_factor_nnz(const tide_zarifi_precond *M) {
  if (!M || !M->F) return 0;
  tide_factor_stats fs;
  tide_factor_info(M->F, &fs);
  return fs.nnz_factor;
}
double tide_zarifi_precond_setup_seconds(const tide_zarifi_precond *M) {
  return M ? M->setup_seconds : 0;
}

/* t = r[I] - (A z)[I] (rows of I; z may be NULL: z = 0); with a split w = split_w(z) */
static void interface_residual(const tide_zarifi_precond *M, const double *r, const double *z,
                               const double *w) {
  const tide_csr *A = M->A;
#pragma omp parallel for schedule(static) if (z && M->ni > 2048)
  for (int k = 0; k < M->ni; k++) {
    int i = M->idx[k];
    double s = r[i];
    if (z && M->split)
      s -= split_row(&M->sp, M->dead, M->nl, i, z, w);
    else if (z)
      for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        s -= A->val[p] * z[A->col[p]];
    M->t[k] = s;
  }
}

int tide_zarifi_precond_apply(void *ctx, const double *r, double *z) {
  tide_zarifi_precond *M = ctx;
  const int nl = M->nl, n = M->n, ni = M->ni;
  int s;
  if (M->work && M->work->gen != M->gen)
    return tide_fail(TIDE_EINVAL,
                     "coupled system: its multigrid workspace was re-analysed by a later "
                     "projection (a kept system is valid until the next projection with the same "
                     "workspace)");
  /* 1. the interface: z = R_I^T A_II^-1 R_I r */
  interface_residual(M, r, NULL, NULL);
  if ((s = tide_factor_solve(M->F, M->t, M->y))) return s;
  double *zi = M->zi; /* z so far: 0 off I */
  for (int k = 0; k < ni; k++)
    zi[M->idx[k]] = M->y[k];
  /* 2. the liquid: z += R_L^T V R_L (r - A z) / c; A z on the liquid rows from the rows of I
   *    (A symmetric, z supported on I), so the right side is r but at the fixed rows */
  const int *hp = M->hptr, *hc = M->hcol;
  const double *hv = M->hval;
  /* with a split: (A z)_L = X11[L, I] z_I + Y1 w, w = Z^-1 Y^T z (z on I; dead rows: below) */
  const tide_csr *Y1 = M->split ? M->sp.Y1 : NULL;
  const double *w = M->w;
  if (Y1) split_w(&M->sp, nl, M->nw, zi, M->w);
#pragma omp parallel for schedule(static) if (M->nfix > 4096)
  for (int k = 0; k < M->nfix; k++) {
    const int i = M->fix[k];
    double ri = r[i];
    for (int q = hp[i]; q < hp[i + 1]; q++)
      ri -= hv[q] * zi[hc[q]];
    if (Y1) {
      for (int p = Y1->rowptr[i]; p < Y1->rowptr[i + 1]; p++)
        ri -= Y1->val[p] * w[Y1->col[p]];
      if (M->dead[i]) ri = r[i] - zi[i];
    }
    M->fixv[k] = ri;
  }
  /* on the rows directly (no cell arrays), z's liquid rows overwritten (0 at the rows left out
   * of the hierarchy); then the solid rows' 0 and the interface answer added */
  s = tide_mac_solver_precondition_rows_ex(M->M, nl, M->pad, r, M->nfix, M->fix, M->fixv, z,
                                           M->cinv, 1);
  for (int i = nl; i < n && !s; i++)
    z[i] = 0;
  for (int k = 0; k < ni; k++) {
    if (!s) z[M->idx[k]] += M->y[k];
    zi[M->idx[k]] = 0; /* 0 off I again, also after an error */
  }
  if (s) return s;
  /* 3. the interface again: z += R_I^T A_II^-1 R_I (r - A z) */
  if (M->split) split_w(&M->sp, nl, M->nw, z, M->w);
  interface_residual(M, r, z, M->w);
  if ((s = tide_factor_solve(M->F, M->t, M->y))) return s;
  for (int k = 0; k < ni; k++)
    z[M->idx[k]] += M->y[k];
  return TIDE_OK;
}
