/*
 * mg_mic0.c -- MIC(0) preconditioner specialised to the MAC grid (Bridson,
 * "Fluid Simulation for Computer Graphics", 2nd ed., sec. 5.2.6 with
 * tau = TIDE_MIC_TAU, sigma = TIDE_MIC_SIGMA), in natural cell order.
 *
 * Parallel triangular solves by wavefronts of tiles: the grid is cut into
 * about 16 x 16 tiles (boxes of i x j pencils in 3D, of rows x k-segments in
 * 2D).  A cell depends only on its lower neighbours (i-1, j-1, k-1), which
 * lie in the same tile or in a tile with a smaller index sum I + J + K; so
 * the tiles of one front I + J + K are independent and solved in parallel,
 * each tile serially in memory order.  About 31 fronts (synchronisations)
 * per triangular solve, whatever the resolution.  Every cell is computed
 * exactly as in the serial natural-order sweep: the result does not depend
 * on the thread count.
 */
#include "linalg/mg_internal.h"

#include <math.h>
#include <string.h>

#define MIC_TILES 16 /* tiles per tiled axis */

/* coupling between cell m and m + s (both liquid), label mode */
MG_INLINE double cpl(const mg_level *L, int64_t m, int64_t s) {
  return (L->label[m] == TIDE_CELL_LIQUID && L->label[m + s] == TIDE_CELL_LIQUID) ? L->scale : 0.0;
}

/* Build the tile schedule of level 0 (see the top of the file). */
static int build_schedule(tide_mac_solver *S) {
  mg_level *L = &S->lev[0];
  mg_sched *W = &S->sched;
  const int d3 = S->d3, l0 = d3 ? 1 : 0;
  /* tile extents: 3D tiles i and j (whole pencils), 2D tiles j and k */
  const int ti = d3 ? (L->n[0] + MIC_TILES - 1) / MIC_TILES : 1;
  const int tj = (L->n[1] + MIC_TILES - 1) / MIC_TILES;
  const int tk = d3 ? L->n[2] : (L->n[2] + MIC_TILES - 1) / MIC_TILES;
  const int NI = (L->n[0] + ti - 1) / ti, NJ = (L->n[1] + tj - 1) / tj,
            NK = (L->n[2] + tk - 1) / tk;
  const int64_t ntiles = (int64_t)NI * NJ * NK;
  const int nfront = NI + NJ + NK - 2;
  /* segments in memory order with their tile */
  int64_t nseg = 0;
  for (int p = 0; p < L->npen; p++)
    nseg += (L->pen[p].k1 - 2) / tk - (L->pen[p].k0 - 1) / tk + 1;
  int st = mg_buf_reserve(S, &S->mbuf[1], (size_t)nseg * sizeof(mg_block));
  st |= mg_buf_reserve(S, &S->mbuf[2], (size_t)nseg * sizeof(mg_block));
  st |= mg_buf_reserve(S, &S->mbuf[3], (size_t)(nseg + 1) * sizeof(int64_t));
  st |= mg_buf_reserve(S, &S->mbuf[4], (size_t)(ntiles + 1) * sizeof(int64_t));
  st |= mg_buf_reserve(S, &S->mbuf[5], (size_t)(nfront + 1) * sizeof(int64_t));
  if (st) return TIDE_ENOMEM;
  mg_block *raw = S->mbuf[2].p;
  int64_t *key = S->mbuf[3].p;
  int64_t *tstart = S->mbuf[4].p; /* per tile (in front order): first segment */
  W->seg = S->mbuf[1].p;
  W->front = S->mbuf[5].p;
  /* tile order: by front, then by tile index */
  int64_t *rank = tstart; /* rank of each tile id in front order, reused below */
  {
    int64_t r = 0;
    for (int f = 0; f < nfront; f++)
      for (int I = 0; I < NI; I++)
        for (int J = 0; J < NJ; J++) {
          int K = f - I - J;
          if (K >= 0 && K < NK) rank[((int64_t)I * NJ + J) * NK + K] = r++;
        }
  }
  int64_t q = 0;
  for (int p = 0; p < L->npen; p++) {
    const mg_pencil pc = L->pen[p];
    const int64_t base = pc.i * L->s0 + pc.j * L->s1;
    const int I = (pc.i - l0) / ti, J = (pc.j - 1) / tj;
    for (int K = (pc.k0 - 1) / tk; K <= (pc.k1 - 2) / tk; K++) {
      int a = pc.k0 > 1 + K * tk ? pc.k0 : 1 + K * tk;
      int b = pc.k1 < 1 + (K + 1) * tk ? pc.k1 : 1 + (K + 1) * tk;
      raw[q].c0 = base + a;
      raw[q].c1 = base + b;
      key[q++] = rank[((int64_t)I * NJ + J) * NK + K];
    }
  }
  /* stable counting sort of the segments by tile rank */
  int64_t *cnt = tstart;
  memset(cnt, 0, (size_t)(ntiles + 1) * sizeof(int64_t));
  for (int64_t s = 0; s < nseg; s++)
    cnt[key[s] + 1]++;
  for (int64_t t = 0; t < ntiles; t++)
    cnt[t + 1] += cnt[t];
  for (int64_t s = 0; s < nseg; s++)
    W->seg[cnt[key[s]]++] = raw[s];
  for (int64_t t = ntiles; t > 0; t--)
    cnt[t] = cnt[t - 1];
  cnt[0] = 0;
  /* keep the non-empty tiles; fronts over them */
  int64_t *tile = key; /* nseg >= number of non-empty tiles */
  int64_t nt = 0, r = 0;
  memset(W->front, 0, (size_t)(nfront + 1) * sizeof(int64_t));
  for (int f = 0; f < nfront; f++) {
    W->front[f] = nt;
    for (int I = 0; I < NI; I++)
      for (int J = 0; J < NJ; J++) {
        int K = f - I - J;
        if (K < 0 || K >= NK) continue;
        if (tstart[r + 1] > tstart[r]) tile[nt++] = tstart[r];
        r++;
      }
  }
  W->front[nfront] = nt;
  tile[nt] = nseg;
  /* move the tile offsets to their own buffer */
  memcpy(tstart, tile, (size_t)(nt + 1) * sizeof(int64_t));
  W->tile = tstart;
  W->nseg = nseg;
  W->ntile = nt;
  W->nfront = nfront;
  return TIDE_OK;
}

int mg_mic0_setup(tide_mac_solver *S) {
  mg_level *L = &S->lev[0];
  const int d3 = S->d3;
  int st = mg_buf_reserve(S, &S->mbuf[0], (size_t)L->size * sizeof(double));
  if (st) return TIDE_ENOMEM;
  S->pre = S->mbuf[0].p;
  st = build_schedule(S);
  if (st) return st;
  const mg_sched *W = &S->sched;
  /* factorization, front by front */
  double *pre = S->pre;
  memset(pre, 0, (size_t)L->size * sizeof(double));
  const int64_t s0 = L->s0, s1 = L->s1;
  const int coef = L->coef;
  const double tau = TIDE_MIC_TAU, sigma = TIDE_MIC_SIGMA;
#pragma omp parallel if (L->nactive > MG_PAR_MIN)
  for (int f = 0; f < W->nfront; f++) {
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = W->front[f]; t < W->front[f + 1]; t++)
      for (int64_t q = W->tile[t]; q < W->tile[t + 1]; q++)
        for (int64_t c = W->seg[q].c0; c < W->seg[q].c1; c++) {
          if (L->label[c] != TIDE_CELL_LIQUID) continue;
          double ad, ai = 0, aj, ak, e;
          /* couplings of the lower neighbours with c, and theirs with the
           * other two upper directions */
          double ti = 0, tj, tk;
          if (coef) {
            ad = L->diag[c];
            ak = L->cf[2][c - 1];
            aj = L->cf[1][c - s1];
            tk = ak * (L->cf[1][c - 1] + (d3 ? L->cf[0][c - 1] : 0));
            tj = aj * (L->cf[2][c - s1] + (d3 ? L->cf[0][c - s1] : 0));
            if (d3) {
              ai = L->cf[0][c - s0];
              ti = ai * (L->cf[1][c - s0] + L->cf[2][c - s0]);
            }
          } else {
            ad = L->scale * L->nd[c];
            ak = cpl(L, c - 1, 1);
            aj = cpl(L, c - s1, s1);
            tk = ak * (cpl(L, c - 1, s1) + (d3 ? cpl(L, c - 1, s0) : 0));
            tj = aj * (cpl(L, c - s1, 1) + (d3 ? cpl(L, c - s1, s0) : 0));
            if (d3) {
              ai = cpl(L, c - s0, s0);
              ti = ai * (cpl(L, c - s0, 1) + cpl(L, c - s0, s1));
            }
          }
          const double pk = pre[c - 1], pj = pre[c - s1], pi = d3 ? pre[c - s0] : 0;
          e = ad - (ak * pk) * (ak * pk) - (aj * pj) * (aj * pj) - (ai * pi) * (ai * pi) -
              tau * (tk * pk * pk + tj * pj * pj + ti * pi * pi);
          if (e < sigma * ad) e = ad;
          pre[c] = ad > 0 ? 1.0 / sqrt(e) : 0.0;
        }
  }
  return TIDE_OK;
}

/* z = (L L^T)^{-1} r with q = L^{-1} r held in level 0's t */
MG_INLINE void mic0_solve(tide_mac_solver *S, const double *r, double *z, int d3, int coef) {
  mg_level *L = &S->lev[0];
  const double *pre = S->pre;
  double *q = L->t;
  const int64_t s0 = L->s0, s1 = L->s1;
  const double h = L->scale;
  const mg_sched *W = &S->sched;
  const mg_block *seg = W->seg;
  const int64_t *tile = W->tile, *fr = W->front;
  const int nf = W->nfront;
#pragma omp parallel if (L->nactive > MG_PAR_MIN)
  {
    for (int f = 0; f < nf; f++) {
#pragma omp for schedule(dynamic, 1)
      for (int64_t t = fr[f]; t < fr[f + 1]; t++)
        for (int64_t b = tile[t]; b < tile[t + 1]; b++)
          for (int64_t c = seg[b].c0; c < seg[b].c1; c++) {
            double t;
            if (coef) {
              t = L->cf[2][c - 1] * pre[c - 1] * q[c - 1] +
                  L->cf[1][c - s1] * pre[c - s1] * q[c - s1];
              if (d3) t += L->cf[0][c - s0] * pre[c - s0] * q[c - s0];
            } else {
              t = pre[c - 1] * q[c - 1] + pre[c - s1] * q[c - s1];
              if (d3) t += pre[c - s0] * q[c - s0];
              t *= h;
            }
            q[c] = pre[c] * (r[c] + t);
          }
    }
    for (int f = nf - 1; f >= 0; f--) {
#pragma omp for schedule(dynamic, 1)
      for (int64_t t = fr[f]; t < fr[f + 1]; t++)
        for (int64_t b = tile[t + 1] - 1; b >= tile[t]; b--)
          for (int64_t c = seg[b].c1 - 1; c >= seg[b].c0; c--) {
            double t;
            if (coef) {
              t = L->cf[2][c] * z[c + 1] + L->cf[1][c] * z[c + s1];
              if (d3) t += L->cf[0][c] * z[c + s0];
            } else {
              t = z[c + 1] + z[c + s1];
              if (d3) t += z[c + s0];
              t *= h;
            }
            z[c] = pre[c] * (q[c] + pre[c] * t);
          }
    }
  }
}

void mg_mic0_apply(tide_mac_solver *S, const double *r, double *z) {
  MG_DISPATCH(S->d3, S->lev[0].coef, mic0_solve, S, r, z);
}
