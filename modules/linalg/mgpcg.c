/*
 * mgpcg.c -- MGPCG for the MAC-grid Poisson problem (McAdams, Sifakis &
 * Teran 2010), the PCG driver shared with the grid MIC(0) and plain CG
 * methods, and the set-up of the level hierarchy.  See mgpcg.h for the
 * method and mg_internal.h for the internal layout.
 */
#include "linalg/mg_internal.h"

#include <math.h>
#include <string.h>

const char *tide_mac_method_name(int method) {
  switch (method) {
  case TIDE_MAC_MGPCG:
    return "mgpcg";
  case TIDE_MAC_MIC0:
    return "mic0";
  case TIDE_MAC_CG:
    return "cg";
  default:
    return "?";
  }
}

tide_mac_solver_opts tide_mac_solver_opts_default(void) {
  tide_mac_solver_opts o;
  o.method = TIDE_MAC_MGPCG;
  o.smooth = 1;
  o.boundary_sweeps = 4;
  o.band = 1;
  o.omega = 2.0 / 3.0;
  o.bottom_cells = 256;
  return o;
}

/* ------------------------------------------------------------ buffers */

int mg_buf_reserve(tide_mac_solver *S, mg_buf *b, size_t bytes) {
  if (bytes < 64) bytes = 64;
  if (b->p && b->bytes >= bytes) return TIDE_OK;
  void *p = tide_alloc(bytes);
  if (!p) return TIDE_ENOMEM;
  /* zero (and first-touch) in parallel, in 1 MB pieces */
  const int64_t piece = 1 << 20, np = ((int64_t)bytes + piece - 1) / piece;
#pragma omp parallel for schedule(static) if (np > 4)
  for (int64_t q = 0; q < np; q++) {
    int64_t a = q * piece, e = a + piece < (int64_t)bytes ? a + piece : (int64_t)bytes;
    memset((char *)p + a, 0, (size_t)(e - a));
  }
  if (b->p) {
    S->bytes -= (int64_t)b->bytes;
    tide_free(b->p, b->bytes);
  }
  b->p = p;
  b->bytes = bytes;
  S->bytes += (int64_t)bytes;
  return TIDE_OK;
}

static void buf_release(tide_mac_solver *S, mg_buf *b) {
  if (b->p) {
    S->bytes -= (int64_t)b->bytes;
    tide_free(b->p, b->bytes);
  }
  b->p = NULL;
  b->bytes = 0;
}

/* slots of mg_level.buf */
enum {
  B_LABEL, B_ND, B_PEN, B_PART, B_X, B_B, B_T, B_BAND, B_DIAG, B_CF0,
  B_SLAB = B_CF0 + 3, B_W0, MG_NBUF = B_W0 + 3
};

/* ------------------------------------------------------------ kernels */

MG_INLINE void k_apply(const mg_level *L, const double *x, double *y, int d3, int coef) {
  MG_FOR_CELLS(L, y[c] = mg_Ax(L, x, c, d3, coef););
}

void mg_apply(const mg_level *L, int d3, const double *x, double *y) {
  MG_DISPATCH3(d3, L->kind, k_apply, L, x, y);
}

/* x = omega D^-1 b (one Jacobi sweep from x = 0) */
MG_INLINE void k_jacobi0(const mg_level *L, const double *b, double *x, double omega, int d3,
                         int coef) {
  (void)d3;
  MG_FOR_CELLS(L, x[c] = omega * mg_dinv(L, c, coef) * b[c];);
}

/* xo = xi + omega D^-1 (b - A xi) */
MG_INLINE void k_jacobi(const mg_level *L, const double *b, const double *xi, double *xo,
                        double omega, int d3, int coef) {
  MG_FOR_CELLS(L,
               xo[c] = xi[c] + omega * mg_dinv(L, c, coef) * (b[c] - mg_Ax(L, xi, c, d3, coef)););
}

/* xo = xi + omega D^-1 (b - A xi), returns r.xo (the last post-smoothing
 * sweep of level 0 fused with the r.z of the PCG) */
MG_INLINE void k_jacobi_dot(const mg_level *L, const double *b, const double *xi, double *xo,
                            double omega, double *out, int d3, int coef) {
  double s;
  MG_REDUCE_CELLS(
      L, s, b[c] * xo[c],
      xo[c] = xi[c] + omega * mg_dinv(L, c, coef) * (b[c] - mg_Ax(L, xi, c, d3, coef)););
  *out = s;
}

/* x += alpha p, r -= alpha q, z = omega D^-1 r (the first pre-smoothing sweep of the next
 * V-cycle), returns r.r */
MG_INLINE void k_update_jacobi0(const mg_level *L, double alpha, const double *p, const double *q,
                                double *x, double *r, double *z, double omega, double *out, int d3,
                                int coef) {
  (void)d3;
  double s;
  MG_REDUCE_CELLS(L, s, r[c] * r[c], x[c] += alpha * p[c]; r[c] -= alpha * q[c];
                  z[c] = omega * mg_dinv(L, c, coef) * r[c];);
  *out = s;
}

/* r = b - A x */
MG_INLINE void k_residual(const mg_level *L, const double *b, const double *x, double *r, int d3,
                          int coef) {
  MG_FOR_CELLS(L, r[c] = b[c] - mg_Ax(L, x, c, d3, coef););
}

/* Gauss-Seidel on the band cells of the slabs of one parity (slabs of equal
 * parity are not neighbours, so they are independent): per slab, `sweeps`
 * sweeps, each over the cells of colour `first` then of the other colour
 * (the cells of one colour are independent of each other).  The slab
 * partition does not depend on the thread count, nor does the result. */
MG_INLINE void k_bgs(const mg_level *L, const double *b, double *x, int parity, int sweeps,
                     int first, int d3, int coef) {
  const mg_run *run = L->band;
  const int64_t *slab = L->slab;
#pragma omp parallel for schedule(dynamic, 1) if (L->nband > MG_PAR_MIN / 2)
  for (int s = parity; s < L->nslab; s += 2)
    for (int sw = 0; sw < sweeps; sw++)
      for (int cc = 0; cc < 2; cc++) {
        const int colour = cc ? !first : first;
        for (int64_t q = slab[s]; q < slab[s + 1]; q++) {
          const int64_t c1 = run[q].c0 + run[q].len;
          for (int64_t c = run[q].c0 + (run[q].par != colour); c < c1; c += 2)
            x[c] += mg_dinv(L, c, coef) * (b[c] - mg_Ax(L, x, c, d3, coef));
        }
      }
}

/* q = A p, returns p.q */
MG_INLINE void k_apply_dot(const mg_level *L, const double *p, double *q, double *out, int d3,
                           int coef) {
  double s;
  MG_REDUCE_CELLS(L, s, p[c] * q[c], q[c] = mg_Ax(L, p, c, d3, coef););
  *out = s;
}

/* r = b - A x, returns r.r */
MG_INLINE void k_residual_dot(const mg_level *L, const double *b, const double *x, double *r,
                              double *out, int d3, int coef) {
  double s;
  MG_REDUCE_CELLS(L, s, r[c] * r[c], r[c] = b[c] - mg_Ax(L, x, c, d3, coef););
  *out = s;
}

static double dot_cells(const mg_level *L, const double *a, const double *b) {
  double s;
  MG_REDUCE_CELLS(L, s, a[c] * b[c], );
  return s;
}

/* x += alpha p, r -= alpha q, returns r.r */
static double cg_update(const mg_level *L, double alpha, const double *p, const double *q,
                        double *x, double *r) {
  double s;
  MG_REDUCE_CELLS(L, s, r[c] * r[c], x[c] += alpha * p[c]; r[c] -= alpha * q[c];);
  return s;
}

/* p = z + beta p and q = A p, as q = A z + beta q (q = A p of the previous
 * direction): one pass; returns p.q */
MG_INLINE void k_direction_apply(const mg_level *L, const double *z, double beta, double *p,
                                 double *q, double *out, int d3, int coef) {
  double s;
  MG_REDUCE_CELLS(L, s, p[c] * q[c], p[c] = z[c] + beta * p[c];
                  q[c] = mg_Ax(L, z, c, d3, coef) + beta * q[c];);
  *out = s;
}

/* ------------------------------------------------ transfer operators */

/* pencil chunk of the transfer operators (coarse cells per pass) */
#define MG_CHUNK 128

/* Restriction R = P^T / 2^dim: b_C = sum of the 4^dim fine residuals around
 * the coarse cell with weights (1/8)(1, 3, 3, 1) per coarsened axis.
 * Separable: per coarse pencil the fine rows are first summed with their
 * (i, j) weights into a short buffer, then filtered along k. */
static void restrict_to(const mg_level *F, const mg_level *C, int d3, const double *r, double *bc) {
  static const double w4[4] = {0.125, 0.375, 0.375, 0.125};
  static const double w1[4] = {1, 0, 0, 0};
  const int cz0 = d3 && F->n[0] > 1, cz1 = F->n[1] > 1, cz2 = F->n[2] > 1;
  const double *wi = cz0 ? w4 : w1, *wj = cz1 ? w4 : w1;
  const int mi = cz0 ? 4 : 1, mj = cz1 ? 4 : 1;
  const int64_t fs0 = F->s0, fs1 = F->s1;
#pragma omp parallel for schedule(static) if (F->nactive > MG_PAR_MIN)
  for (int p = 0; p < C->npen; p++) {
    const int I = C->pen[p].i, J = C->pen[p].j;
    const int64_t base = I * C->s0 + J * C->s1;
    const int i0 = cz0 ? 2 * I - 2 : I, j0 = cz1 ? 2 * J - 2 : J;
    const double *row[16];
    double wrow[16];
    int nrow = 0;
    for (int a = 0; a < mi; a++)
      for (int b = 0; b < mj; b++) {
        row[nrow] = r + (i0 + a) * fs0 + (j0 + b) * fs1;
        wrow[nrow++] = wi[a] * wj[b];
      }
    for (int K0 = C->pen[p].k0; K0 < C->pen[p].k1; K0 += MG_CHUNK) {
      const int K1 = K0 + MG_CHUNK < C->pen[p].k1 ? K0 + MG_CHUNK : C->pen[p].k1;
      /* fine cells f0 .. f0 + len - 1 */
      const int f0 = cz2 ? 2 * K0 - 2 : K0, len = cz2 ? 2 * (K1 - K0) + 2 : K1 - K0;
      double sum[2 * MG_CHUNK + 2];
      for (int t = 0; t < len; t++)
        sum[t] = 0;
      for (int q = 0; q < nrow; q++) {
        const double *rq = row[q] + f0, w = wrow[q];
#pragma omp simd
        for (int t = 0; t < len; t++)
          sum[t] += w * rq[t];
      }
      for (int K = K0; K < K1; K++) {
        const int t = cz2 ? 2 * (K - K0) : K - K0;
        double v = cz2 ? 0.125 * (sum[t] + sum[t + 3]) + 0.375 * (sum[t + 1] + sum[t + 2]) : sum[t];
        bc[base + K] = C->label[base + K] == TIDE_CELL_LIQUID ? v : 0.0;
      }
    }
  }
}

/* coarse neighbours and weights of fine padded index i along one axis */
static inline void prolong_axis(int coarsened, int i, int I[2], double w[2]) {
  if (coarsened) {
    I[0] = ((i - 1) >> 1) + 1;
    I[1] = I[0] + (((i - 1) & 1) ? 1 : -1);
    w[0] = 0.75;
    w[1] = 0.25;
  } else {
    I[0] = I[1] = i;
    w[0] = 1;
    w[1] = 0;
  }
}

/* Trilinear prolongation, added: xo = xi + P xc on the liquid cells of F
 * (xo may be xi).  Fine cell 2I (unpadded) takes 3/4 of coarse I and 1/4 of
 * I - 1, fine 2I + 1 takes 3/4 of I and 1/4 of I + 1, per coarsened axis.
 * Separable: the coarse rows around a fine pencil are first combined with
 * their (i, j) weights into a short buffer, then interpolated along k. */
static void prolong_add(const mg_level *F, const mg_level *C, int d3, const double *xc,
                        const double *xi, double *xo) {
  const int cz0 = d3 && F->n[0] > 1, cz1 = F->n[1] > 1, cz2 = F->n[2] > 1;
  const int64_t cs0 = C->s0, cs1 = C->s1;
#pragma omp parallel for schedule(static) if (F->nactive > MG_PAR_MIN)
  for (int p = 0; p < F->npen; p++) {
    const int i = F->pen[p].i, j = F->pen[p].j;
    const int64_t base = i * F->s0 + j * F->s1;
    int I[2], J[2];
    double wi[2], wj[2];
    prolong_axis(cz0, i, I, wi);
    prolong_axis(cz1, j, J, wj);
    const int ni = d3 ? 2 : 1;
    const double *row[4];
    double wrow[4];
    int nrow = 0;
    for (int a = 0; a < ni; a++)
      for (int b = 0; b < 2; b++) {
        row[nrow] = xc + I[a] * cs0 + J[b] * cs1;
        wrow[nrow++] = wi[a] * wj[b];
      }
    const uint8_t *lab = F->label + base;
    for (int k0 = F->pen[p].k0; k0 < F->pen[p].k1; k0 += 2 * MG_CHUNK) {
      const int k1 = k0 + 2 * MG_CHUNK < F->pen[p].k1 ? k0 + 2 * MG_CHUNK : F->pen[p].k1;
      /* coarse cells Ka .. Ka + len - 1 cover the neighbours of fine k0 .. k1-1 */
      const int Ka = cz2 ? ((k0 - 1) >> 1) : k0, len = cz2 ? ((k1 - 2) >> 1) + 3 - Ka : k1 - k0;
      double a[MG_CHUNK + 4];
      for (int t = 0; t < len; t++)
        a[t] = 0;
      for (int q = 0; q < nrow; q++) {
        const double *xq = row[q] + Ka, w = wrow[q];
#pragma omp simd
        for (int t = 0; t < len; t++)
          a[t] += w * xq[t];
      }
      for (int k = k0; k < k1; k++) {
        double v;
        if (cz2) {
          const int K = ((k - 1) >> 1) + 1 - Ka, K2 = K + (((k - 1) & 1) ? 1 : -1);
          v = 0.75 * a[K] + 0.25 * a[K2];
        } else {
          v = a[k - k0];
        }
        xo[base + k] = xi[base + k] + (lab[k] == TIDE_CELL_LIQUID ? v : 0.0);
      }
    }
  }
}

/* ------------------------------------------------------- bottom solve */

static void bottom_solve(const tide_mac_solver *S, const double *b, double *x) {
  const int n = S->nbot;
  const double *Lm = S->botL;
  double *v = S->botv;
  for (int i = 0; i < n; i++)
    v[i] = b[S->botcell[i]];
  for (int i = 0; i < n; i++) {
    if (S->botpin[i]) {
      v[i] = 0;
      continue;
    }
    double s = v[i];
    const double *Li = Lm + (int64_t)i * n;
    for (int j = 0; j < i; j++)
      s -= Li[j] * v[j];
    v[i] = s / Li[i];
  }
  for (int i = n - 1; i >= 0; i--) {
    if (S->botpin[i]) {
      v[i] = 0;
      continue;
    }
    double s = v[i];
    for (int j = i + 1; j < n; j++)
      s -= Lm[(int64_t)j * n + i] * v[j];
    v[i] = s / Lm[(int64_t)i * n + i];
  }
  for (int i = 0; i < n; i++)
    x[S->botcell[i]] = v[i];
}

/* ------------------------------------------------------------ V-cycle */

MG_INLINE void jacobi0(const mg_level *L, int d3, const double *b, double *x, double w) {
  MG_DISPATCH3(d3, L->kind, k_jacobi0, L, b, x, w);
}
MG_INLINE void jacobi(const mg_level *L, int d3, const double *b, const double *xi, double *xo,
                      double w) {
  MG_DISPATCH3(d3, L->kind, k_jacobi, L, b, xi, xo, w);
}
MG_INLINE void bgs(const mg_level *L, int d3, const double *b, double *x, int parity, int sweeps,
                   int first) {
  MG_DISPATCH3(d3, L->kind, k_bgs, L, b, x, parity, sweeps, first);
}
MG_INLINE void residual(const mg_level *L, int d3, const double *b, const double *x, double *r) {
  MG_DISPATCH3(d3, L->kind, k_residual, L, b, x, r);
}

/* z = V r: one V-cycle from z = 0.  Pre-smoothing: nu Jacobi sweeps, then
 * beta red-black Gauss-Seidel sweeps (red, black) in the boundary band, on
 * the even slabs, then on the odd ones; post-smoothing is its adjoint: odd
 * slabs then even slabs, beta sweeps (black, red) each, then nu Jacobi
 * sweeps, so V is symmetric.  z0_ready: the first Jacobi sweep of level 0
 * (z = omega D^-1 r) is already in z0 (fused into the PCG update).  rz:
 * if not NULL, receives r.z (fused into the last sweep of level 0). */
static void vcycle(tide_mac_solver *S, const double *r0, double *z0, int z0_ready, double *rz) {
  const int nl = S->nlev, d3 = S->d3, nu = S->o.smooth, nb = S->o.boundary_sweeps;
  const double w = S->o.omega;
  double *cur[MG_MAXLEV];
  for (int l = 0; l < nl - 1; l++) {
    mg_level *L = &S->lev[l];
    const double *b = l == 0 ? r0 : L->b;
    double *x = l == 0 ? z0 : L->x, *c = x, *o = L->t, *tmp;
    if (!(l == 0 && z0_ready)) jacobi0(L, d3, b, c, w);
    for (int s = 1; s < nu; s++) {
      jacobi(L, d3, b, c, o, w);
      tmp = c, c = o, o = tmp;
    }
    if (nb) {
      bgs(L, d3, b, c, 0, nb, 0);
      bgs(L, d3, b, c, 1, nb, 0);
    }
    residual(L, d3, b, c, o);
    restrict_to(L, &S->lev[l + 1], d3, o, S->lev[l + 1].b);
    cur[l] = c;
  }
  {
    mg_level *B = &S->lev[nl - 1];
    bottom_solve(S, nl == 1 ? r0 : B->b, nl == 1 ? z0 : B->x);
    if (nl == 1 && rz) *rz = dot_cells(B, r0, z0);
  }
  for (int l = nl - 2; l >= 0; l--) {
    mg_level *L = &S->lev[l];
    const double *b = l == 0 ? r0 : L->b;
    double *x = l == 0 ? z0 : L->x, *c = cur[l], *o = c == x ? L->t : x, *tmp;
    /* end in x: the number of out-of-place steps must have parity (c != x) */
    int oop = ((c != x) + nu) & 1;
    if (oop) {
      prolong_add(L, &S->lev[l + 1], d3, S->lev[l + 1].x, c, o);
      tmp = c, c = o, o = tmp;
    } else {
      prolong_add(L, &S->lev[l + 1], d3, S->lev[l + 1].x, c, c);
    }
    if (nb) {
      bgs(L, d3, b, c, 1, nb, 1);
      bgs(L, d3, b, c, 0, nb, 1);
    }
    for (int s = 0; s < nu; s++) {
      if (l == 0 && rz && s == nu - 1)
        MG_DISPATCH3(d3, L->kind, k_jacobi_dot, L, b, c, o, w, rz);
      else
        jacobi(L, d3, b, c, o, w);
      tmp = c, c = o, o = tmp;
    }
  }
}

/* ------------------------------------------------------------- set-up */

/* padded index of user cell (i, j, k) on level 0 */
static inline int64_t pad_of_user(const tide_mac_solver *S, int i, int j, int k) {
  const mg_level *L = &S->lev[0];
  if (S->d3) return (i + 1) * L->s0 + (j + 1) * L->s1 + (k + 1);
  return (i + 1) * L->s1 + (j + 1);
}

static void level_dims(mg_level *L, const int n[3], int d3) {
  for (int a = 0; a < 3; a++) {
    L->n[a] = n[a];
    L->N[a] = (!d3 && a == 0) ? 1 : n[a] + 2 + (n[a] & 1);
  }
  L->s1 = L->N[2];
  L->s0 = (int64_t)L->N[1] * L->N[2];
  L->size = L->s0 * L->N[0];
}

/* first interior padded index of axis a */
static inline int lo_of(int d3, int a) { return (!d3 && a == 0) ? 0 : 1; }

static int level_alloc(tide_mac_solver *S, mg_level *L, int first) {
  int st = 0;
  size_t sz = (size_t)L->size, np = (size_t)L->N[0] * L->N[1];
  st |= mg_buf_reserve(S, &L->buf[B_LABEL], sz);
  st |= mg_buf_reserve(S, &L->buf[B_ND], sz);
  st |= mg_buf_reserve(S, &L->buf[B_PEN], np * sizeof(mg_pencil));
  st |= mg_buf_reserve(S, &L->buf[B_PART], np * sizeof(double));
  st |= mg_buf_reserve(S, &L->buf[B_T], sz * sizeof(double));
  st |= mg_buf_reserve(S, &L->buf[B_X], sz * sizeof(double));
  if (!first) st |= mg_buf_reserve(S, &L->buf[B_B], sz * sizeof(double));
  if (st) return TIDE_ENOMEM;
  L->label = L->buf[B_LABEL].p;
  L->nd = L->buf[B_ND].p;
  L->pen = L->buf[B_PEN].p;
  L->part = L->buf[B_PART].p;
  L->t = L->buf[B_T].p;
  L->x = L->buf[B_X].p;
  L->b = first ? NULL : L->buf[B_B].p;
  return TIDE_OK;
}

/* Liquid bounding box of a level: padded coordinates, inclusive; empty when
 * lo[0] > hi[0].  Set-up work outside it is skipped. */
static void box_empty(mg_box *b) {
  for (int a = 0; a < 3; a++)
    b->lo[a] = INT32_MAX, b->hi[a] = INT32_MIN;
}

static inline int box_is_empty(const mg_box *b) {
  return b->lo[0] > b->hi[0] || b->lo[1] > b->hi[1] || b->lo[2] > b->hi[2];
}

/* b grown by m cells per side, clipped to [lo, hi] of the level's axis
 * (interior: 1 .. n; with pads: 0 .. N - 1) */
static mg_box box_grow(const mg_box *b, int m, const mg_level *L, int d3, int pads) {
  mg_box r;
  for (int a = 0; a < 3; a++) {
    const int lo = (!d3 && a == 0) ? 0 : pads ? 0 : 1;
    const int hi = (!d3 && a == 0) ? 0 : pads ? L->N[a] - 1 : L->n[a];
    r.lo[a] = b->lo[a] - m < lo ? lo : b->lo[a] - m;
    r.hi[a] = b->hi[a] + m > hi ? hi : b->hi[a] + m;
  }
  return r;
}

/* zero the stencil data (nd, diag, cf) of a level over the cells of box o
 * outside box n (the stencil loops write every cell of their box, zeros off
 * the liquid, so the data is 0 outside the current box) */
static void stencil_clear(mg_level *L, const mg_box *o, const mg_box *n) {
  if (box_is_empty(o)) return;
  const int nj = o->hi[1] - o->lo[1] + 1;
  const int64_t rows = (int64_t)(o->hi[0] - o->lo[0] + 1) * nj;
  const int ne = box_is_empty(n);
  uint8_t *nd = L->nd;
  double *dg = L->buf[B_DIAG].p, *cf[3];
  for (int a = 0; a < 3; a++)
    cf[a] = L->buf[B_CF0 + a].p;
#pragma omp parallel for schedule(static) if (rows * (o->hi[2] - o->lo[2] + 1) > MG_PAR_MIN)
  for (int64_t r = 0; r < rows; r++) {
    const int i = o->lo[0] + (int)(r / nj), j = o->lo[1] + (int)(r % nj);
    const int64_t base = i * L->s0 + j * L->s1;
    /* k ranges to clear: [a0, a1] and [b0, b1] */
    int a0 = o->lo[2], a1 = o->hi[2], b0 = 1, b1 = 0;
    if (!ne && i >= n->lo[0] && i <= n->hi[0] && j >= n->lo[1] && j <= n->hi[1]) {
      a1 = a1 < n->lo[2] - 1 ? a1 : n->lo[2] - 1;
      b0 = o->lo[2] > n->hi[2] + 1 ? o->lo[2] : n->hi[2] + 1, b1 = o->hi[2];
    }
    for (int part = 0; part < 2; part++) {
      const int k0 = part ? b0 : a0, k1 = part ? b1 : a1;
      if (k1 < k0) continue;
      const int64_t c0 = base + k0;
      const size_t len = (size_t)(k1 - k0 + 1);
      memset(nd + c0, 0, len);
      if (dg) memset(dg + c0, 0, len * sizeof(double));
      for (int a = 0; a < 3; a++)
        if (cf[a]) memset(cf[a] + c0, 0, len * sizeof(double));
    }
  }
}

/* diag and cf arrays of a level in coefficient mode */
static int coef_alloc(tide_mac_solver *S, mg_level *L) {
  int st = mg_buf_reserve(S, &L->buf[B_DIAG], (size_t)L->size * sizeof(double));
  for (int a = 0; a < 3; a++)
    st |= mg_buf_reserve(S, &L->buf[B_CF0 + a], (size_t)L->size * sizeof(double));
  if (st) return TIDE_ENOMEM;
  L->diag = L->buf[B_DIAG].p;
  for (int a = 0; a < 3; a++)
    L->cf[a] = L->buf[B_CF0 + a].p;
  return TIDE_OK;
}

/* Level 0 labels and stencil from the problem; Dirichlet cells (liquid cells
 * with an open face to air) marked in dir (at liquid cells). */
static int setup_fine(tide_mac_solver *S, const tide_mac_poisson *P, uint8_t *dir) {
  mg_level *L = &S->lev[0];
  const int d3 = S->d3;
  const tide_grid *g = &P->grid;
  const double h2 = 1.0 / (g->dx * g->dx);
  L->scale = h2;
  int coef = 0, weights = 0;
  for (int a = 0; a < g->dim; a++) {
    if (P->weight[a] || P->theta[a]) coef = 1;
    if (P->weight[a]) weights = 1;
  }
  L->coef = coef;
  L->kind = coef ? (weights ? 1 : 2) : 0;
  const mg_box old = L->box; /* the previous stencil lives in the previous liquid box */
  if (coef) {
    if (coef_alloc(S, L)) return TIDE_ENOMEM;
  } else {
    L->diag = NULL;
    L->cf[0] = L->cf[1] = L->cf[2] = NULL;
  }
  uint8_t *lab = L->label;
  /* labels (pads stay SOLID) and the liquid box, in user coordinates */
  const int ni = g->n[0], nj = g->n[1], nk = g->n[2];
  int lo0 = INT32_MAX, lo1 = INT32_MAX, lo2 = INT32_MAX, hi0 = INT32_MIN, hi1 = INT32_MIN,
      hi2 = INT32_MIN;
#pragma omp parallel for schedule(static) collapse(2) reduction(min : lo0, lo1, lo2)              \
    reduction(max : hi0, hi1, hi2) if (L->size > MG_PAR_MIN)
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      const uint8_t *src = P->labels + tide_grid_idx(g, i, j, 0);
      uint8_t *dst = lab + pad_of_user(S, i, j, 0);
      int k0 = -1, k1 = -1;
      if (d3) {
        for (int k = 0; k < nk; k++) {
          dst[k] = src[k];
          if (src[k] == TIDE_CELL_LIQUID) {
            if (k0 < 0) k0 = k;
            k1 = k;
          }
        }
      } else {
        dst[0] = src[0];
        if (src[0] == TIDE_CELL_LIQUID) k0 = k1 = 0;
      }
      if (k0 >= 0) {
        lo0 = i < lo0 ? i : lo0, hi0 = i > hi0 ? i : hi0;
        lo1 = j < lo1 ? j : lo1, hi1 = j > hi1 ? j : hi1;
        lo2 = k0 < lo2 ? k0 : lo2, hi2 = k1 > hi2 ? k1 : hi2;
      }
    }
  if (lo0 > hi0) {
    box_empty(&L->box);
  } else if (d3) {
    L->box = (mg_box){{lo0 + 1, lo1 + 1, lo2 + 1}, {hi0 + 1, hi1 + 1, hi2 + 1}};
  } else {
    L->box = (mg_box){{0, lo0 + 1, lo1 + 1}, {0, hi0 + 1, hi1 + 1}};
  }
  stencil_clear(L, &old, &L->box);
  if (box_is_empty(&L->box)) return TIDE_OK;
  const mg_box B = L->box;
  const int64_t s[3] = {L->s0, L->s1, 1};
#pragma omp parallel for schedule(static) collapse(2) if (L->size > MG_PAR_MIN)
  for (int I = B.lo[0]; I <= B.hi[0]; I++)
    for (int J = B.lo[1]; J <= B.hi[1]; J++)
      for (int K = B.lo[2]; K <= B.hi[2]; K++) {
        const int64_t c = I * L->s0 + J * L->s1 + K;
        if (lab[c] != TIDE_CELL_LIQUID) {
          L->nd[c] = 0;
          if (coef) L->diag[c] = L->cf[0][c] = L->cf[1][c] = L->cf[2][c] = 0;
          continue;
        }
        int u[3], nd = 0, isdir = 0;
        if (d3)
          u[0] = I - 1, u[1] = J - 1, u[2] = K - 1;
        else
          u[0] = J - 1, u[1] = K - 1, u[2] = 0;
        double d = 0;
        for (int ua = 0; ua < g->dim; ua++) {
          const int a = d3 ? ua : ua + 1; /* internal axis */
          const uint8_t lm = lab[c - s[a]], lp = lab[c + s[a]];
          nd += (lm != TIDE_CELL_SOLID) + (lp != TIDE_CELL_SOLID);
          if (!coef) {
            isdir |= lm == TIDE_CELL_AIR || lp == TIDE_CELL_AIR;
            continue;
          }
          double off, dlo, dhi;
          tide_mac_poisson_face(P, ua, tide_grid_fidx(g, ua, u[0], u[1], u[2]), lm,
                                TIDE_CELL_LIQUID, &off, &dlo, &dhi);
          d += dhi;
          if (lm == TIDE_CELL_AIR && dhi > 0) isdir = 1;
          u[ua]++;
          tide_mac_poisson_face(P, ua, tide_grid_fidx(g, ua, u[0], u[1], u[2]), TIDE_CELL_LIQUID,
                                lp, &off, &dlo, &dhi);
          u[ua]--;
          d += dlo;
          if (lp == TIDE_CELL_AIR && dlo > 0) isdir = 1;
          L->cf[a][c] = off * h2;
        }
        L->nd[c] = (uint8_t)nd;
        if (coef) L->diag[c] = d * h2;
        dir[c] = (uint8_t)isdir;
      }
  return TIDE_OK;
}

/* open fraction of the face between level-0 cell c and c + e_a (internal
 * axis a): the problem's weight, 0 next to a SOLID cell (pads included) */
static inline double fine_open(const tide_mac_solver *S, const tide_mac_poisson *P, int64_t c,
                               int a, int I, int J, int K) {
  const mg_level *L = &S->lev[0];
  const int64_t s = a == 0 ? L->s0 : a == 1 ? L->s1 : 1;
  if (L->label[c] == TIDE_CELL_SOLID || L->label[c + s] == TIDE_CELL_SOLID) return 0;
  const int ua = S->d3 ? a : a - 1;
  if (!P->weight[ua]) return 1;
  int u[3];
  if (S->d3)
    u[0] = I - 1, u[1] = J - 1, u[2] = K - 1;
  else
    u[0] = J - 1, u[1] = K - 1, u[2] = 0;
  u[ua]++;
  return P->weight[ua][tide_grid_fidx(&P->grid, ua, u[0], u[1], u[2])];
}

/* Coarse level C from F.  Labels: AIR if any child is AIR, else LIQUID if
 * any child is LIQUID, else SOLID (over the whole level: far-away AIR cells
 * decide which coarse cells are Dirichlet).  Label mode: nd at liquid cells.
 * Coefficient mode (P has face weights): each coarse face gets an effective
 * open fraction W, w[a][c] for the face between c and c + e_a, and the
 * stencil is re-discretized with them: A_cc = scale sum_f W_f over the faces
 * to LIQUID and AIR neighbours (Dirichlet at the air cell's centre),
 * cf = scale W_f between liquid cells.  W is the mean over the 2^(dim-1)
 * fine rows crossing the face (rows in parallel: with the fine fractions
 * alone, the open area of the face) of the row's conductance from one coarse
 * centre to the other: the fine face w2 in series with the two fine links
 * through the coarse centres w1, w3 (each cut in half between the two coarse
 * links sharing it), W_row = 1 / (1/(4 w1) + 1/(2 w2) + 1/(4 w3)), equal to
 * w for uniform fractions; so a wall thinner than a cell that lies inside a
 * coarse cell still throttles the coarse links next to it. */
static int setup_coarse(tide_mac_solver *S, const tide_mac_poisson *P, int l) {
  const mg_level *F = &S->lev[l - 1];
  mg_level *C = &S->lev[l];
  const int d3 = S->d3;
  const int cz[3] = {d3 && F->n[0] > 1, F->n[1] > 1, F->n[2] > 1};
  const mg_box old = C->box;
  int coef = 0;
  for (int a = 0; a < 3; a++)
    coef |= P->weight[a] != NULL;
  C->coef = coef;
  C->kind = coef;
  if (coef) {
    if (coef_alloc(S, C)) return TIDE_ENOMEM;
    int st = 0;
    for (int a = 0; a < 3; a++)
      st |= mg_buf_reserve(S, &C->buf[B_W0 + a], (size_t)C->size * sizeof(double));
    if (st) return TIDE_ENOMEM;
    for (int a = 0; a < 3; a++)
      C->w[a] = C->buf[B_W0 + a].p;
  } else {
    C->diag = NULL;
    for (int a = 0; a < 3; a++)
      C->cf[a] = NULL, C->w[a] = NULL;
  }
  const int l0 = lo_of(d3, 0);
  int lo0 = INT32_MAX, lo1 = INT32_MAX, lo2 = INT32_MAX, hi0 = INT32_MIN, hi1 = INT32_MIN,
      hi2 = INT32_MIN;
#pragma omp parallel for schedule(static) collapse(2) reduction(min : lo0, lo1, lo2)              \
    reduction(max : hi0, hi1, hi2) if (C->size > MG_PAR_MIN)
  for (int I = l0; I < l0 + C->n[0]; I++)
    for (int J = 1; J <= C->n[1]; J++)
      for (int K = 1; K <= C->n[2]; K++) {
        int air = 0, liq = 0;
        for (int a = 0; a <= cz[0]; a++)
          for (int b = 0; b <= cz[1]; b++)
            for (int d = 0; d <= cz[2]; d++) {
              int fi = cz[0] ? 2 * I - 1 + a : I, fj = cz[1] ? 2 * J - 1 + b : J,
                  fk = cz[2] ? 2 * K - 1 + d : K;
              uint8_t fl = F->label[fi * F->s0 + fj * F->s1 + fk];
              air |= fl == TIDE_CELL_AIR;
              liq |= fl == TIDE_CELL_LIQUID;
            }
        uint8_t v = air ? TIDE_CELL_AIR : liq ? TIDE_CELL_LIQUID : TIDE_CELL_SOLID;
        C->label[I * C->s0 + J * C->s1 + K] = v;
        if (v == TIDE_CELL_LIQUID) {
          lo0 = I < lo0 ? I : lo0, hi0 = I > hi0 ? I : hi0;
          lo1 = J < lo1 ? J : lo1, hi1 = J > hi1 ? J : hi1;
          lo2 = K < lo2 ? K : lo2, hi2 = K > hi2 ? K : hi2;
        }
      }
  C->box = (mg_box){{lo0, lo1, lo2}, {hi0, hi1, hi2}};
  if (coef) {
    /* coarse face fractions over the whole level (the next level needs them
     * wherever its faces are) */
    double *cw[3] = {C->w[0], C->w[1], C->w[2]};
#pragma omp parallel for schedule(static) collapse(2) if (C->size > MG_PAR_MIN)
    for (int I = l0; I < l0 + C->n[0]; I++)
      for (int J = 1; J <= C->n[1]; J++)
        for (int K = 1; K <= C->n[2]; K++) {
          const int64_t c = I * C->s0 + J * C->s1 + K;
          const int X[3] = {I, J, K};
          for (int a = d3 ? 0 : 1; a < 3; a++) {
            /* fine cells on the low side of the face: index 2X (or X) along a, the children
             * along the other axes */
            int f0[3], m[3];
            for (int e = 0; e < 3; e++) {
              if (e == a) {
                f0[e] = cz[e] ? 2 * X[e] : X[e];
                m[e] = 1;
              } else {
                f0[e] = cz[e] ? 2 * X[e] - 1 : X[e];
                m[e] = cz[e] ? 2 : 1;
              }
            }
            double sum = 0;
            const int64_t sa = a == 0 ? F->s0 : a == 1 ? F->s1 : 1;
            for (int p = 0; p < m[0]; p++)
              for (int q = 0; q < m[1]; q++)
                for (int r = 0; r < m[2]; r++) {
                  int fx[3] = {f0[0] + p, f0[1] + q, f0[2] + r};
                  const int64_t fc = fx[0] * F->s0 + fx[1] * F->s1 + fx[2];
                  double w2 = l == 1 ? fine_open(S, P, fc, a, fx[0], fx[1], fx[2]) : F->w[a][fc];
                  if (cz[a] && w2 > 0) {
                    /* in series with the fine links through the two coarse centres
                     * (resistance shares 1/4, 1/2, 1/4); a link with a non-liquid cell
                     * counts as open */
                    double res = 0.5 / w2;
                    int closed = 0; /* a closed fine link: the row conducts nothing (not
                                       1e-300, whose 1/diag blew the V-cycle up to 1e290) */
                    for (int side = 0; side < 2; side++) {
                      const int64_t lo = side ? fc + sa : fc - sa; /* low cell of the link */
                      const int xl = fx[a] + (side ? 1 : -1);
                      if (xl < 1 || xl + 1 >= F->N[a] || F->label[lo] != TIDE_CELL_LIQUID ||
                          F->label[lo + sa] != TIDE_CELL_LIQUID) {
                        res += 0.25;
                        continue;
                      }
                      fx[a] = xl;
                      double w1 = l == 1 ? fine_open(S, P, lo, a, fx[0], fx[1], fx[2]) : F->w[a][lo];
                      fx[a] = f0[a];
                      if (w1 > 0)
                        res += 0.25 / w1;
                      else
                        closed = 1;
                    }
                    w2 = closed ? 0.0 : 1.0 / res;
                  }
                  sum += w2;
                }
            cw[a][c] = sum / (double)(m[0] * m[1] * m[2]);
          }
        }
  }
  stencil_clear(C, &old, &C->box);
  if (box_is_empty(&C->box)) return TIDE_OK;
  const mg_box B = C->box;
  const int64_t s[3] = {C->s0, C->s1, 1};
#pragma omp parallel for schedule(static) collapse(2) if (C->size > MG_PAR_MIN)
  for (int I = B.lo[0]; I <= B.hi[0]; I++)
    for (int J = B.lo[1]; J <= B.hi[1]; J++)
      for (int K = B.lo[2]; K <= B.hi[2]; K++) {
        int64_t c = I * C->s0 + J * C->s1 + K;
        if (C->label[c] != TIDE_CELL_LIQUID) {
          C->nd[c] = 0;
          if (coef) C->diag[c] = C->cf[0][c] = C->cf[1][c] = C->cf[2][c] = 0;
          continue;
        }
        int nd = 0;
        double d = 0;
        for (int a = d3 ? 0 : 1; a < 3; a++) {
          const uint8_t lm = C->label[c - s[a]], lp = C->label[c + s[a]];
          nd += (lm != TIDE_CELL_SOLID) + (lp != TIDE_CELL_SOLID);
          if (coef) {
            const double wm = lm != TIDE_CELL_SOLID ? C->w[a][c - s[a]] : 0;
            const double wp = lp != TIDE_CELL_SOLID ? C->w[a][c] : 0;
            d += wm + wp;
            C->cf[a][c] = lp == TIDE_CELL_LIQUID ? C->scale * wp : 0;
          }
        }
        C->nd[c] = (uint8_t)nd;
        if (coef) C->diag[c] = C->scale * d;
      }
  return TIDE_OK;
}

/* active pencils (inside the liquid box) and liquid count */
static void setup_pencils(mg_level *L) {
  if (box_is_empty(&L->box)) {
    L->npen = 0;
    L->nactive = L->nliquid = 0;
    return;
  }
  const mg_box B = L->box;
  const int n1 = B.hi[1] - B.lo[1] + 1, np = (B.hi[0] - B.lo[0] + 1) * n1;
  int64_t nliq = 0;
#pragma omp parallel for schedule(static) reduction(+ : nliq) if (L->nactive > MG_PAR_MIN)
  for (int p = 0; p < np; p++) {
    int i = B.lo[0] + p / n1, j = B.lo[1] + p % n1;
    const uint8_t *row = L->label + i * L->s0 + j * L->s1;
    int k0 = 0, k1 = 0;
    for (int k = B.lo[2]; k <= B.hi[2]; k++)
      if (row[k] == TIDE_CELL_LIQUID) {
        if (!k1) k0 = k;
        k1 = k + 1;
        nliq++;
      }
    L->pen[p].i = i;
    L->pen[p].j = j;
    L->pen[p].k0 = k0;
    L->pen[p].k1 = k1;
  }
  int m = 0;
  int64_t act = 0;
  for (int p = 0; p < np; p++)
    if (L->pen[p].k1 > L->pen[p].k0) {
      act += L->pen[p].k1 - L->pen[p].k0;
      L->pen[m++] = L->pen[p];
    }
  L->npen = m;
  L->nactive = act;
  L->nliquid = nliq;
}

/* a liquid cell with a partly closed face (fraction < 1) to a liquid
 * neighbour: a cut cell, or next to a wall thinner than a cell */
static inline int partly_open(const mg_level *L, int64_t c, int d3) {
  const double lim = 0.999 * L->scale;
  const int64_t s[3] = {L->s0, L->s1, 1};
  for (int a = d3 ? 0 : 1; a < 3; a++) {
    if (L->label[c + s[a]] == TIDE_CELL_LIQUID && L->cf[a][c] < lim) return 1;
    if (L->label[c - s[a]] == TIDE_CELL_LIQUID && L->cf[a][c - s[a]] < lim) return 1;
  }
  return 0;
}

/* boundary band: liquid cells within `band` cells (L-infinity) of a
 * non-liquid cell (air, solid or the domain boundary: the coarse levels
 * represent both the free surface and obstacles only approximately) or of a
 * partly open face between liquid cells (cut cells, walls thinner than a
 * cell: the interpolation of the coarse correction is poor across them), as
 * runs along the pencils in memory order */
static int setup_band(tide_mac_solver *S, mg_level *L, int band, uint8_t *m0, uint8_t *m1) {
  const int d3 = S->d3;
  /* non-liquid mask dilated by `band` cells, over the liquid box grown by
   * `band` (pads included): the cells within `band` of a liquid cell */
  const mg_box R = box_grow(&L->box, band, L, d3, 1);
  const int64_t size = box_is_empty(&L->box) ? 0
                                             : (int64_t)(R.hi[0] - R.lo[0] + 1) *
                                                   (R.hi[1] - R.lo[1] + 1) * (R.hi[2] - R.lo[2] + 1);
  const int i0 = R.lo[0], i1 = R.hi[0], j0 = R.lo[1], j1 = R.hi[1], k0 = R.lo[2], k1 = R.hi[2];
  const int64_t s0 = L->s0, s1 = L->s1;
  /* separable dilation: axis 2 (m0 -> m1), axis 1 (m1 -> m0), axis 0 (m0 -> m1) */
#pragma omp parallel for schedule(static) collapse(2) if (size > MG_PAR_MIN)
  for (int i = i0; i <= i1; i++)
    for (int j = j0; j <= j1; j++) {
      const int64_t r = i * s0 + j * s1;
      for (int k = k0; k <= k1; k++)
        m0[r + k] = L->label[r + k] != TIDE_CELL_LIQUID || (L->coef && partly_open(L, r + k, d3));
      for (int k = k0; k <= k1; k++) {
        uint8_t v = 0;
        for (int d = -band; d <= band; d++)
          if (k + d >= k0 && k + d <= k1) v |= m0[r + k + d];
        m1[r + k] = v;
      }
    }
#pragma omp parallel for schedule(static) collapse(2) if (size > MG_PAR_MIN)
  for (int i = i0; i <= i1; i++)
    for (int j = j0; j <= j1; j++) {
      uint8_t *o = m0 + i * s0 + j * s1;
      for (int k = k0; k <= k1; k++) {
        uint8_t v = 0;
        for (int d = -band; d <= band; d++)
          if (j + d >= j0 && j + d <= j1) v |= m1[i * s0 + (j + d) * s1 + k];
        o[k] = v;
      }
    }
  const uint8_t *m = m0;
  if (d3) {
#pragma omp parallel for schedule(static) collapse(2) if (size > MG_PAR_MIN)
    for (int i = i0; i <= i1; i++)
      for (int j = j0; j <= j1; j++) {
        uint8_t *o = m1 + i * s0 + j * s1;
        for (int k = k0; k <= k1; k++) {
          uint8_t v = 0;
          for (int d = -band; d <= band; d++)
            if (i + d >= i0 && i + d <= i1) v |= m0[(i + d) * s0 + j * s1 + k];
          o[k] = v;
        }
      }
    m = m1;
  }
  /* runs of band cells along the pencils */
  int64_t nrun = 0, ncell = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      if (mg_buf_reserve(S, &L->buf[B_BAND], (size_t)nrun * sizeof(mg_run))) return TIDE_ENOMEM;
      L->band = L->buf[B_BAND].p;
      L->nrun = nrun;
      L->nband = ncell;
      nrun = 0;
    }
    for (int p = 0; p < L->npen; p++) {
      const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
      int start = -1;
      for (int k = L->pen[p].k0; k <= L->pen[p].k1; k++) {
        int in = k < L->pen[p].k1 && L->label[base + k] == TIDE_CELL_LIQUID && m[base + k];
        if (in && start < 0) start = k;
        if (!in && start >= 0) {
          if (pass == 1) {
            L->band[nrun].c0 = base + start;
            L->band[nrun].len = k - start;
            L->band[nrun].par = (L->pen[p].i + L->pen[p].j + start) & 1;
          } else {
            ncell += k - start;
          }
          nrun++;
          start = -1;
        }
      }
    }
  }
  /* slabs along the outermost axis (axis 0 in 3D, axis 1 in 2D) */
  const int no = d3 ? L->n[0] : L->n[1];
  const int64_t so = d3 ? L->s0 : L->s1;
  L->nslab = (no + MG_SLAB - 1) / MG_SLAB;
  if (mg_buf_reserve(S, &L->buf[B_SLAB], (size_t)(L->nslab + 1) * sizeof(int64_t)))
    return TIDE_ENOMEM;
  L->slab = L->buf[B_SLAB].p;
  int64_t q = 0;
  for (int sl = 0; sl <= L->nslab; sl++) {
    while (q < L->nrun && (L->band[q].c0 / so - 1) / MG_SLAB < sl)
      q++;
    L->slab[sl] = q;
  }
  L->slab[L->nslab] = L->nrun;
  return TIDE_OK;
}

static int32_t uf_find(int32_t *par, int32_t x) {
  while (par[x] != x) {
    par[x] = par[par[x]];
    x = par[x];
  }
  return x;
}

static void uf_union(int32_t *par, int32_t a, int32_t b) {
  a = uf_find(par, a);
  b = uf_find(par, b);
  if (a < b)
    par[b] = a;
  else if (b < a)
    par[a] = b;
}

/* Liquid regions (connected through faces of positive coupling) without a
 * Dirichlet cell: union-find over level 0 with a virtual ground node joined
 * to every Dirichlet cell. */
static int setup_floating(tide_mac_solver *S, const uint8_t *dir, int32_t *par) {
  mg_level *L = &S->lev[0];
  const int d3 = S->d3;
  const int32_t ground = (int32_t)L->size;
  par[ground] = ground;
  const int64_t s[3] = {L->s0, L->s1, 1};
  for (int p = 0; p < L->npen; p++) {
    const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
    for (int k = L->pen[p].k0; k < L->pen[p].k1; k++) {
      const int64_t c = base + k;
      if (L->label[c] != TIDE_CELL_LIQUID) continue;
      par[c] = (int32_t)c;
      for (int a = d3 ? 0 : 1; a < 3; a++) {
        const int64_t nb = c - s[a];
        if (L->label[nb] != TIDE_CELL_LIQUID) continue;
        if (L->coef && !(L->cf[a][nb] > 0)) continue;
        uf_union(par, (int32_t)c, (int32_t)nb);
      }
      if (dir[c]) uf_union(par, (int32_t)c, ground);
    }
  }
  /* compress (cells in memory order, roots are the smallest cell of their
   * region), then mark the roots: -1 grounded, -2 - id for floating region id */
  const int32_t rg = uf_find(par, ground);
  for (int p = 0; p < L->npen; p++) {
    const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
    for (int k = L->pen[p].k0; k < L->pen[p].k1; k++)
      if (L->label[base + k] == TIDE_CELL_LIQUID) par[base + k] = uf_find(par, (int32_t)(base + k));
  }
  int64_t nf = 0;
  int nreg = 0;
  for (int p = 0; p < L->npen; p++) {
    const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
    for (int k = L->pen[p].k0; k < L->pen[p].k1; k++) {
      const int64_t c = base + k;
      if (L->label[c] != TIDE_CELL_LIQUID) continue;
      if (par[c] == c) par[c] = c == rg ? -1 : -2 - nreg++;
      const int32_t r = par[c] < 0 ? (int32_t)c : par[c];
      if (par[r] != -1) nf++;
    }
  }
  S->nfloat = nreg;
  if (mg_buf_reserve(S, &S->fbuf[0], (size_t)nf * sizeof(int64_t)) ||
      mg_buf_reserve(S, &S->fbuf[1], (size_t)(nreg + 1) * sizeof(int64_t)))
    return TIDE_ENOMEM;
  S->fcell = S->fbuf[0].p;
  S->fstart = S->fbuf[1].p;
  if (!nreg) {
    S->fstart[0] = 0;
    return TIDE_OK;
  }
  memset(S->fstart, 0, (size_t)(nreg + 1) * sizeof(int64_t));
  /* region of a liquid cell: -1 if grounded */
#define REGION(c) (par[c] < 0 ? -2 - par[c] : -2 - par[par[c]])
  for (int p = 0; p < L->npen; p++) {
    const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
    for (int k = L->pen[p].k0; k < L->pen[p].k1; k++) {
      const int64_t c = base + k;
      if (L->label[c] == TIDE_CELL_LIQUID && REGION(c) >= 0) S->fstart[REGION(c) + 1]++;
    }
  }
  for (int r = 0; r < nreg; r++)
    S->fstart[r + 1] += S->fstart[r];
  /* fill (the region counters run in the cells' memory order) */
  for (int p = 0; p < L->npen; p++) {
    const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
    for (int k = L->pen[p].k0; k < L->pen[p].k1; k++) {
      const int64_t c = base + k;
      if (L->label[c] == TIDE_CELL_LIQUID && REGION(c) >= 0) S->fcell[S->fstart[REGION(c)]++] = c;
    }
  }
#undef REGION
  /* fstart[r] now holds the end of region r: shift back */
  for (int r = nreg; r > 0; r--)
    S->fstart[r] = S->fstart[r - 1];
  S->fstart[0] = 0;
  return TIDE_OK;
}

/* dense Cholesky of the coarsest level (pivots of floating regions pinned) */
static int setup_bottom(tide_mac_solver *S, int32_t *map) {
  mg_level *L = &S->lev[S->nlev - 1];
  const int d3 = S->d3;
  const int n = (int)L->nliquid;
  S->nbot = n;
  if (mg_buf_reserve(S, &S->botbuf[0], (size_t)n * sizeof(int64_t)) ||
      mg_buf_reserve(S, &S->botbuf[1], (size_t)n * n * sizeof(double)) ||
      mg_buf_reserve(S, &S->botbuf[2], (size_t)n * sizeof(double)) ||
      mg_buf_reserve(S, &S->botbuf[3], (size_t)n))
    return TIDE_ENOMEM;
  S->botcell = S->botbuf[0].p;
  S->botL = S->botbuf[1].p;
  S->botv = S->botbuf[2].p;
  S->botpin = S->botbuf[3].p;
  int m = 0;
  for (int p = 0; p < L->npen; p++) {
    const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
    for (int k = L->pen[p].k0; k < L->pen[p].k1; k++)
      if (L->label[base + k] == TIDE_CELL_LIQUID) {
        map[base + k] = m;
        S->botcell[m++] = base + k;
      }
  }
  double *A = S->botL;
  memset(A, 0, (size_t)n * n * sizeof(double));
  const int64_t s[3] = {L->s0, L->s1, 1};
  for (int r = 0; r < n; r++) {
    const int64_t c = S->botcell[r];
    A[(int64_t)r * n + r] = L->coef ? L->diag[c] : L->scale * L->nd[c];
    for (int a = d3 ? 0 : 1; a < 3; a++) {
      if (L->label[c + s[a]] == TIDE_CELL_LIQUID) {
        double v = L->coef ? L->cf[a][c] : L->scale;
        int q = map[c + s[a]];
        A[(int64_t)r * n + q] = A[(int64_t)q * n + r] = -v;
      }
    }
  }
  /* in-place lower Cholesky, column by column */
  for (int j = 0; j < n; j++) {
    double *Lj = A + (int64_t)j * n;
    double a0 = Lj[j], d = a0;
    for (int k = 0; k < j; k++)
      d -= Lj[k] * Lj[k];
    if (!(d > 1e-10 * a0)) {
      S->botpin[j] = 1;
      Lj[j] = 1;
      for (int k = 0; k < j; k++)
        Lj[k] = 0;
      for (int i = j + 1; i < n; i++)
        A[(int64_t)i * n + j] = 0;
      continue;
    }
    S->botpin[j] = 0;
    double ljj = sqrt(d);
    Lj[j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double *Li = A + (int64_t)i * n;
      double v = Li[j];
      for (int k = 0; k < j; k++)
        v -= Li[k] * Lj[k];
      Li[j] = v / ljj;
    }
  }
  return TIDE_OK;
}

/* Vectors are 0 outside the active pencils (calloc, and kernels write only
 * inside them): clearing the pencils of the previous analysis restores the
 * invariant of mg_internal.h for any new labels. */
static void clear_vectors(tide_mac_solver *S) {
  for (int l = 0; l < S->nlev; l++) {
    mg_level *L = &S->lev[l];
    double *x = L->x, *t = L->t, *b = L->b;
    if (b) {
      MG_FOR_CELLS(L, x[c] = 0; t[c] = 0; b[c] = 0;);
    } else {
      MG_FOR_CELLS(L, x[c] = 0; t[c] = 0;);
    }
  }
  double *vx = S->vx, *vr = S->vr, *vp = S->vp, *vq = S->vq, *vb = S->vb;
  MG_FOR_CELLS(&S->lev[0], vx[c] = 0; vr[c] = 0; vp[c] = 0; vq[c] = 0; vb[c] = 0;);
}

static int analyse(tide_mac_solver *S, const tide_mac_poisson *P) {
  double t0 = tide_wtime();
  mg_level *L0 = &S->lev[0];
  clear_vectors(S);
  S->ready = 0;
  uint8_t *dir = S->scratch[0].p, *m1 = S->scratch[1].p;
  int32_t *par = S->scratch[2].p;
  int st = setup_fine(S, P, dir);
  if (st) return st;
  setup_pencils(L0);
  st = setup_floating(S, dir, par);
  if (st) return st;
  for (int l = 1; l < S->nlev; l++) {
    mg_level *C = &S->lev[l];
    C->scale = S->lev[l - 1].scale * 0.25;
    st = setup_coarse(S, P, l);
    if (st) return st;
    setup_pencils(C);
  }
  if (S->o.method == TIDE_MAC_MGPCG) {
    for (int l = 0; l < S->nlev - 1; l++) {
      st = setup_band(S, &S->lev[l], S->o.band, dir, m1);
      if (st) return st;
    }
    st = setup_bottom(S, par);
    if (st) return st;
  } else if (S->o.method == TIDE_MAC_MIC0) {
    st = mg_mic0_setup(S);
    if (st) return st;
  }
  S->ready = 1;
  S->setup_seconds = tide_wtime() - t0;
  return TIDE_OK;
}

static int check_opts(const tide_mac_solver_opts *o) {
  if (o->method < TIDE_MAC_MGPCG || o->method > TIDE_MAC_CG)
    return tide_fail(TIDE_EINVAL, "mac_solver: unknown method %d", o->method);
  if (o->smooth < 1 || o->smooth > 16)
    return tide_fail(TIDE_EINVAL, "mac_solver: smooth must be in 1..16, got %d", o->smooth);
  if (o->boundary_sweeps < 0 || o->boundary_sweeps > 64)
    return tide_fail(TIDE_EINVAL, "mac_solver: boundary_sweeps must be in 0..64, got %d",
                     o->boundary_sweeps);
  if (o->band < 0 || o->band > 16)
    return tide_fail(TIDE_EINVAL, "mac_solver: band must be in 0..16, got %d", o->band);
  if (!(o->omega > 0 && o->omega <= 1))
    return tide_fail(TIDE_EINVAL, "mac_solver: omega must be in (0, 1], got %g", o->omega);
  if (o->bottom_cells < 1 || o->bottom_cells > 4096)
    return tide_fail(TIDE_EINVAL, "mac_solver: bottom_cells must be in 1..4096, got %d",
                     o->bottom_cells);
  return TIDE_OK;
}

int tide_mac_solver_new(const tide_mac_poisson *P, const tide_mac_solver_opts *o,
                        tide_mac_solver **out) {
  if (!out) return tide_fail(TIDE_EINVAL, "mac_solver_new: no output given");
  *out = NULL;
  int st = tide_mac_poisson_check(P);
  if (st) return st;
  tide_mac_solver_opts oo = o ? *o : tide_mac_solver_opts_default();
  st = check_opts(&oo);
  if (st) return st;
  tide_mac_solver *S = tide_calloc(sizeof *S);
  if (!S) return TIDE_ENOMEM;
  S->bytes = sizeof *S;
  S->o = oo;
  S->grid = P->grid;
  S->d3 = P->grid.dim == 3;
  int n[3];
  if (S->d3) {
    n[0] = P->grid.n[0], n[1] = P->grid.n[1], n[2] = P->grid.n[2];
  } else {
    n[0] = 1, n[1] = P->grid.n[0], n[2] = P->grid.n[1];
  }
  S->nlev = 0;
  for (;;) {
    mg_level *L = &S->lev[S->nlev++];
    level_dims(L, n, S->d3);
    int64_t cells = (int64_t)n[0] * n[1] * n[2];
    if (oo.method != TIDE_MAC_MGPCG || cells <= oo.bottom_cells || S->nlev == MG_MAXLEV) break;
    for (int a = 0; a < 3; a++)
      n[a] = n[a] > 1 ? (n[a] + 1) / 2 : 1;
  }
  if (S->lev[S->nlev - 1].n[0] * (int64_t)S->lev[S->nlev - 1].n[1] * S->lev[S->nlev - 1].n[2] >
          4096 &&
      oo.method == TIDE_MAC_MGPCG) {
    tide_mac_solver_free(S);
    return tide_fail(TIDE_EINVAL, "mac_solver_new: grid too elongated for %d multigrid levels",
                     MG_MAXLEV);
  }
  st = TIDE_OK;
  for (int l = 0; l < S->nlev && !st; l++)
    st = level_alloc(S, &S->lev[l], l == 0);
  for (int l = 0; l < S->nlev && !st; l++) {
    /* pads SOLID for good: the set-up writes interior cells only */
    memset(S->lev[l].label, TIDE_CELL_SOLID, (size_t)S->lev[l].size);
    box_empty(&S->lev[l].box);
  }
  const size_t sz = (size_t)S->lev[0].size;
  for (int i = 0; i < 5 && !st; i++)
    st = mg_buf_reserve(S, &S->vbuf[i], sz * sizeof(double));
  if (!st) st = mg_buf_reserve(S, &S->scratch[0], sz);
  if (!st) st = mg_buf_reserve(S, &S->scratch[1], sz);
  if (!st) st = mg_buf_reserve(S, &S->scratch[2], (sz + 1) * sizeof(int32_t));
  if (st) {
    tide_mac_solver_free(S);
    return tide_fail(TIDE_ENOMEM, "mac_solver_new: out of memory for a %d x %d x %d grid",
                     P->grid.n[0], P->grid.n[1], P->grid.n[2]);
  }
  S->vx = S->vbuf[0].p;
  S->vr = S->vbuf[1].p;
  S->vp = S->vbuf[2].p;
  S->vq = S->vbuf[3].p;
  S->vb = S->vbuf[4].p;
  st = analyse(S, P);
  if (st) {
    tide_mac_solver_free(S);
    return st;
  }
  *out = S;
  return TIDE_OK;
}

int tide_mac_solver_update(tide_mac_solver *S, const tide_mac_poisson *P) {
  if (!S) return tide_fail(TIDE_EINVAL, "mac_solver_update: no solver given");
  int st = tide_mac_poisson_check(P);
  if (st) return st;
  if (P->grid.dim != S->grid.dim || P->grid.n[0] != S->grid.n[0] || P->grid.n[1] != S->grid.n[1] ||
      P->grid.n[2] != S->grid.n[2])
    return tide_fail(
        TIDE_EINVAL, "mac_solver_update: grid %d x %d x %d differs from the solver's %d x %d x %d",
        P->grid.n[0], P->grid.n[1], P->grid.n[2], S->grid.n[0], S->grid.n[1], S->grid.n[2]);
  S->grid = P->grid;
  return analyse(S, P);
}

void tide_mac_solver_free(tide_mac_solver *S) {
  if (!S) return;
  for (int l = 0; l < MG_MAXLEV; l++)
    for (int i = 0; i < MG_NBUF; i++)
      buf_release(S, &S->lev[l].buf[i]);
  for (int i = 0; i < 5; i++)
    buf_release(S, &S->vbuf[i]);
  for (int i = 0; i < 4; i++)
    buf_release(S, &S->botbuf[i]);
  for (int i = 0; i < 2; i++)
    buf_release(S, &S->fbuf[i]);
  for (int i = 0; i < 6; i++)
    buf_release(S, &S->mbuf[i]);
  for (int i = 0; i < 3; i++)
    buf_release(S, &S->scratch[i]);
  tide_free(S, sizeof *S);
}

/* ---------------------------------------------------------------- solve */

/* remove the mean of v over each floating region (serial, fixed order) */
static void project_floating(const tide_mac_solver *S, double *v) {
  for (int r = 0; r < S->nfloat; r++) {
    const int64_t a = S->fstart[r], b = S->fstart[r + 1];
    double s = 0;
    for (int64_t q = a; q < b; q++)
      s += v[S->fcell[q]];
    s /= (double)(b - a);
    for (int64_t q = a; q < b; q++)
      v[S->fcell[q]] -= s;
  }
}

/* copy a user cell array into level 0's layout (liquid cells only); returns
 * the number of non-finite values met */
static int64_t copy_in(const tide_mac_solver *S, const double *u, double *v) {
  const mg_level *L = &S->lev[0];
  const tide_grid *g = &S->grid;
  int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad) if (L->nactive > MG_PAR_MIN)
  for (int p = 0; p < L->npen; p++) {
    const int64_t base = L->pen[p].i * L->s0 + L->pen[p].j * L->s1;
    /* user index of the pencil's cell k: */
    int64_t ub = S->d3 ? tide_grid_idx(g, L->pen[p].i - 1, L->pen[p].j - 1, -1)
                       : tide_grid_idx(g, L->pen[p].j - 1, -1, 0);
    for (int k = L->pen[p].k0; k < L->pen[p].k1; k++) {
      double val = L->label[base + k] == TIDE_CELL_LIQUID ? u[ub + k] : 0.0;
      if (!isfinite(val)) {
        bad++;
        val = 0;
      }
      v[base + k] = val;
    }
  }
  return bad;
}

/* user array u = v at liquid cells, 0 elsewhere: rows outside the liquid box are
 * zero-filled, the others copied with their labels */
static void copy_out(const tide_mac_solver *S, const double *v, double *u) {
  const tide_grid *g = &S->grid;
  const mg_level *L = &S->lev[0];
  const mg_box *B = &L->box;
  const int ni = g->n[0], nj = g->n[1], nk = g->n[2], d3 = S->d3;
#pragma omp parallel for schedule(static) collapse(2) if (L->size > MG_PAR_MIN)
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      double *ur = u + tide_grid_idx(g, i, j, 0);
      const int64_t c0 = pad_of_user(S, i, j, 0);
      /* padded coordinates of this row: (i + 1, j + 1, .) in 3D, (0, i + 1, j + 1) in 2D */
      const int in = d3 ? (i + 1 >= B->lo[0] && i + 1 <= B->hi[0] && j + 1 >= B->lo[1] &&
                           j + 1 <= B->hi[1])
                        : (i + 1 >= B->lo[1] && i + 1 <= B->hi[1]);
      if (!in) {
        memset(ur, 0, (size_t)nk * sizeof(double));
        continue;
      }
      for (int k = 0; k < nk; k++)
        ur[k] = L->label[c0 + k] == TIDE_CELL_LIQUID ? v[c0 + k] : 0.0;
    }
}

/* z = M^-1 r and r.z; z0_ready: see vcycle */
static double precondition(tide_mac_solver *S, const double *r, double *z, int z0_ready) {
  const mg_level *L = &S->lev[0];
  double rz;
  if (S->o.method == TIDE_MAC_MGPCG) {
    vcycle(S, r, z, z0_ready, S->nfloat ? NULL : &rz);
  } else {
    mg_mic0_apply(S, r, z);
  }
  if (S->nfloat) project_floating(S, z);
  if (S->nfloat || S->o.method != TIDE_MAC_MGPCG) rz = dot_cells(L, r, z);
  return rz;
}

int tide_mac_solver_precondition(tide_mac_solver *S, const double *r, double *z) {
  if (!S || !r || !z)
    return tide_fail(TIDE_EINVAL, "mac_solver_precondition: solver, r and z required");
  if (!S->ready)
    return tide_fail(TIDE_EINVAL, "mac_solver_precondition: the solver's last update failed");
  mg_level *L = &S->lev[0];
  double *vb = S->vb, *vz = S->o.method == TIDE_MAC_CG ? S->vr : L->x;
  if (copy_in(S, r, vb))
    return tide_fail(TIDE_ENONFINITE, "mac_solver_precondition: r has non-finite values");
  if (S->nfloat) project_floating(S, vb); /* Pi V Pi: symmetric on floating regions */
  if (S->o.method == TIDE_MAC_CG) {
    MG_FOR_CELLS(L, vz[c] = vb[c];);
  } else {
    (void)precondition(S, vb, vz, 0);
  }
  copy_out(S, vz, z);
  return TIDE_OK;
}

int tide_mac_solver_row_map(const tide_mac_solver *S, int n, const int *cells, int *pad) {
  if (!S || n < 0 || (n > 0 && (!cells || !pad)))
    return tide_fail(TIDE_EINVAL, "mac_solver_row_map: solver, cells and pad required");
  if (!S->ready)
    return tide_fail(TIDE_EINVAL, "mac_solver_row_map: the solver's last update failed");
  const mg_level *L = &S->lev[0];
  if (L->size > INT32_MAX)
    return tide_fail(TIDE_EINVAL, "mac_solver_row_map: the padded grid (%lld cells) exceeds the "
                     "32-bit map", (long long)L->size);
  const tide_grid *g = &S->grid;
  const int64_t nc = tide_grid_ncells(g);
  const int nj = g->n[1], nk = g->n[2];
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad) if (n > MG_PAR_MIN)
  for (int q = 0; q < n; q++) {
    int64_t c = cells[q];
    if (c < 0 || c >= nc) {
      bad++;
      pad[q] = -1;
      continue;
    }
    int64_t pc = S->d3 ? pad_of_user(S, (int)(c / ((int64_t)nj * nk)), (int)(c / nk % nj),
                                     (int)(c % nk))
                       : pad_of_user(S, (int)(c / nj), (int)(c % nj), 0);
    pad[q] = L->label[pc] == TIDE_CELL_LIQUID ? (int)pc : -1;
  }
  if (bad) return tide_fail(TIDE_EINVAL, "mac_solver_row_map: %d cells outside the grid", bad);
  return TIDE_OK;
}

int tide_mac_solver_precondition_rows(tide_mac_solver *S, int n, const int *pad, const double *r,
                                      double *z, double c) {
  return tide_mac_solver_precondition_rows_ex(S, n, pad, r, 0, NULL, NULL, z, c, 0);
}

int tide_mac_solver_precondition_rows_ex(tide_mac_solver *S, int n, const int *pad,
                                         const double *r, int nfix, const int *fix,
                                         const double *fixv, double *z, double c, int assign) {
  if (!S || n < 0 || (n > 0 && (!pad || !r || !z)) || nfix < 0 || (nfix > 0 && (!fix || !fixv)))
    return tide_fail(TIDE_EINVAL, "mac_solver_precondition_rows: solver, pad, r and z required");
  if (!S->ready)
    return tide_fail(TIDE_EINVAL, "mac_solver_precondition_rows: the solver's last update failed");
  mg_level *L = &S->lev[0];
  double *vb = S->vb, *vz = S->o.method == TIDE_MAC_CG ? S->vr : L->x;
  const int64_t size = L->size;
  MG_FOR_CELLS(L, vb[c] = 0;);
  int bad = 0, out = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad, out) if (n > MG_PAR_MIN)
  for (int q = 0; q < n; q++) {
    int pc = pad[q];
    if (pc < 0) continue;
    if (pc >= size) {
      out++;
      continue;
    }
    double v = r[q];
    if (!isfinite(v)) {
      bad++;
      v = 0;
    }
    vb[pc] = v;
  }
  int badfix = 0;
  for (int k = 0; k < nfix; k++) { /* after the rows: the fixed value wins */
    if (fix[k] < 0 || fix[k] >= n) {
      badfix++;
      continue;
    }
    int pc = pad[fix[k]];
    if (pc < 0 || pc >= size) continue; /* outside: counted above */
    double v = fixv[k];
    if (!isfinite(v)) {
      bad++;
      v = 0;
    }
    vb[pc] = v;
  }
  if (out)
    return tide_fail(TIDE_EINVAL, "mac_solver_precondition_rows: %d map entries outside the grid",
                     out);
  if (badfix)
    return tide_fail(TIDE_EINVAL, "mac_solver_precondition_rows: %d fixed rows outside 0..%d",
                     badfix, n - 1);
  if (bad)
    return tide_fail(TIDE_ENONFINITE, "mac_solver_precondition_rows: r has non-finite values");
  if (S->nfloat) project_floating(S, vb);
  if (S->o.method == TIDE_MAC_CG) {
    MG_FOR_CELLS(L, vz[c] = vb[c];);
  } else {
    (void)precondition(S, vb, vz, 0);
  }
  if (assign) {
#pragma omp parallel for schedule(static) if (n > MG_PAR_MIN)
    for (int q = 0; q < n; q++)
      z[q] = pad[q] >= 0 ? c * vz[pad[q]] : 0.0;
  } else {
#pragma omp parallel for schedule(static) if (n > MG_PAR_MIN)
    for (int q = 0; q < n; q++)
      if (pad[q] >= 0) z[q] += c * vz[pad[q]];
  }
  return TIDE_OK;
}

int tide_mac_solver_solve(tide_mac_solver *S, const double *b, double *x, const tide_solve_opts *o,
                          tide_solve_stats *st) {
  double t0 = tide_wtime();
  tide_solve_stats dummy;
  if (!st) st = &dummy;
  memset(st, 0, sizeof *st);
  if (!S || !b || !x) return tide_fail(TIDE_EINVAL, "mac_solver_solve: solver, b and x required");
  tide_solve_opts oo = o ? *o : tide_solve_opts_default();
  if (!(oo.tol >= 0) || !isfinite(oo.tol))
    return tide_fail(TIDE_EINVAL, "mac_solver_solve: tol must be finite and >= 0, got %g", oo.tol);
  if (!S->ready) return tide_fail(TIDE_EINVAL, "mac_solver_solve: the solver's last update failed");
  mg_level *L = &S->lev[0];
  const int d3 = S->d3, kind = L->kind;
  const int64_t n = L->nliquid;
  int maxit = oo.maxit;
  if (maxit <= 0) maxit = 2 * n > 1000 ? (2 * n < INT32_MAX ? (int)(2 * n) : INT32_MAX) : 1000;
  double *vx = S->vx, *vr = S->vr, *vp = S->vp, *vq = S->vq, *vb = S->vb;
  double *vz = S->o.method == TIDE_MAC_CG ? vr : L->x;
  if (copy_in(S, b, vb))
    return tide_fail(TIDE_ENONFINITE, "mac_solver_solve: b has non-finite values at liquid cells");
  if (oo.use_x0) {
    if (copy_in(S, x, vx))
      return tide_fail(TIDE_ENONFINITE,
                       "mac_solver_solve: initial x has non-finite values at liquid cells");
  } else {
    MG_FOR_CELLS(L, vx[c] = 0;);
  }
  if (S->nfloat) {
    project_floating(S, vb);
    project_floating(S, vx);
  }
  double bb = dot_cells(L, vb, vb), bnorm = sqrt(bb);
  st->converged = 1;
  if (n == 0 || bb == 0) {
    MG_FOR_CELLS(L, vx[c] = 0;);
    copy_out(S, vx, x);
    st->seconds = tide_wtime() - t0;
    return TIDE_OK;
  }
  double rr;
  MG_DISPATCH3(d3, kind, k_residual_dot, L, vb, vx, vr, &rr);
  const double stop = oo.tol * bnorm;
  int status = TIDE_OK, it = 0;
  if (sqrt(rr) > stop) {
    double rz;
    if (S->o.method == TIDE_MAC_CG) {
      rz = rr;
    } else {
      rz = precondition(S, vr, vz, 0);
    }
    MG_FOR_CELLS(L, vp[c] = vz[c];);
    double pq = 0;
    /* MGPCG: the x, r update also makes the first smoothing sweep of the next V-cycle */
    const int fuse = S->o.method == TIDE_MAC_MGPCG && S->nlev > 1;
    for (;;) {
      if (it >= maxit) {
        status = tide_fail(TIDE_ENOCONV,
                           "mac_solver_solve: %s reached relative residual %.3g > tol %.3g in %d "
                           "iterations",
                           tide_mac_method_name(S->o.method), sqrt(rr) / bnorm, oo.tol, it);
        break;
      }
      if (tide_interrupted()) {
        status = tide_fail(TIDE_EINTR, "mac_solver_solve: interrupted after %d iterations", it);
        break;
      }
      if (it == 0) MG_DISPATCH3(d3, kind, k_apply_dot, L, vp, vq, &pq);
      if (!(pq > 0) || !(rz > 0)) {
        if (!isfinite(pq) || !isfinite(rz))
          status = tide_fail(TIDE_ENONFINITE,
                             "mac_solver_solve: non-finite iterate at iteration %d", it);
        else
          status = tide_fail(TIDE_ENOTSPD,
                             "mac_solver_solve: breakdown at iteration %d (p.Ap = %g, r.z = %g): "
                             "operator or preconditioner not positive definite",
                             it, pq, rz);
        break;
      }
      double alpha = rz / pq;
      if (fuse)
        MG_DISPATCH3(d3, kind, k_update_jacobi0, L, alpha, vp, vq, vx, vr, vz, S->o.omega, &rr);
      else
        rr = cg_update(L, alpha, vp, vq, vx, vr);
      it++;
      if (!isfinite(rr)) {
        status =
            tide_fail(TIDE_ENONFINITE, "mac_solver_solve: non-finite residual at iteration %d", it);
        break;
      }
      if (sqrt(rr) <= stop) break;
      double rznew;
      if (S->o.method == TIDE_MAC_CG) {
        rznew = rr;
      } else {
        rznew = precondition(S, vr, vz, fuse);
      }
      double beta = rznew / rz;
      rz = rznew;
      MG_DISPATCH3(d3, kind, k_direction_apply, L, vz, beta, vp, vq, &pq);
    }
  }
  /* true residual of the returned x */
  if (S->nfloat) project_floating(S, vx);
  MG_DISPATCH3(d3, kind, k_residual_dot, L, vb, vx, vr, &rr);
  copy_out(S, vx, x);
  st->iterations = it;
  st->residual = sqrt(rr) / bnorm;
  st->converged = status == TIDE_OK || st->residual <= oo.tol;
  st->seconds = tide_wtime() - t0;
  return status;
}

int tide_mac_solve(const tide_mac_poisson *P, const tide_mac_solver_opts *so, const double *b,
                   double *x, const tide_solve_opts *o, tide_solve_stats *st) {
  tide_mac_solver *S = NULL;
  int s = tide_mac_solver_new(P, so, &S);
  if (s) return s;
  s = tide_mac_solver_solve(S, b, x, o, st);
  tide_mac_solver_free(S);
  return s;
}

/* ------------------------------------------------------------------ info */

int tide_mac_solver_info_get(const tide_mac_solver *S, tide_mac_solver_info *info) {
  if (!S || !info) return tide_fail(TIDE_EINVAL, "mac_solver_info: solver and info required");
  memset(info, 0, sizeof *info);
  info->method = S->o.method;
  info->levels = S->nlev;
  const int dim = S->d3 ? 3 : 2;
  for (int l = 0; l < S->nlev; l++) {
    const mg_level *L = &S->lev[l];
    info->cells[l] = (int64_t)L->n[0] * L->n[1] * L->n[2];
    info->liquid[l] = L->nliquid;
    info->active[l] = L->nactive;
    info->band[l] = L->nband;
  }
  info->bottom = S->o.method == TIDE_MAC_MGPCG ? S->nbot : 0;
  info->floating = S->nfloat;
  info->wavefronts = S->o.method == TIDE_MAC_MIC0 ? S->sched.nfront : 0;
  info->setup_seconds = S->setup_seconds;
  info->bytes = S->bytes;
  /* traffic model: every array streamed once per kernel over the active
   * cells (neighbour reads hit cache), stencil data 1 byte (nd) or the
   * coefficient arrays */
  const mg_level *L0 = &S->lev[0];
  const double A0 = (double)L0->nactive;
  const double op0 = L0->kind == 1 ? 8.0 * (dim + 1) : L0->kind == 2 ? 8.0 : 1.0;
  info->apply_bytes = A0 * (16 + op0);
  /* p = z + beta p with q = A z + beta q and p.q; x/r update with r.r */
  double it = A0 * ((40 + op0) + 48);
  if (S->o.method == TIDE_MAC_MIC0) {
    it += A0 * 16;                                 /* r.z */
    it += A0 * (48 + (L0->coef ? 16.0 * dim : 0)); /* forward and backward sweeps */
  } else if (S->o.method == TIDE_MAC_MGPCG) {
    /* level 0's first Jacobi sweep rides on the x/r update (z written, D read); r.z on the
     * last post-smoothing sweep */
    it += S->nlev > 1 ? A0 * (8 + op0) : A0 * 16;
    if (S->nfloat) it += A0 * 16;
    const int nu = S->o.smooth, nb = S->o.boundary_sweeps;
    for (int l = 0; l < S->nlev - 1; l++) {
      const mg_level *L = &S->lev[l], *C = &S->lev[l + 1];
      const double A = (double)L->nactive,
                   op = L->kind == 1 ? 8.0 * (dim + 1) : L->kind == 2 ? 8.0 : 1.0;
      double v = l == 0 ? 0 : A * (16 + op);        /* first Jacobi sweep */
      v += (2 * nu - 1) * A * (24 + op);            /* further Jacobi sweeps */
      v += A * (24 + op);                           /* residual */
      v += A * 8 + (double)C->nactive * 9;          /* restriction */
      v += A * 17 + (double)C->nactive * 8;         /* prolongation */
      v += 2.0 * nb * (double)L->nband * (24 + op); /* band Gauss-Seidel */
      it += v;
    }
    it += 8.0 * S->nbot * S->nbot + 24.0 * S->nbot; /* bottom solve */
  }
  info->iteration_bytes = it;
  return TIDE_OK;
}
