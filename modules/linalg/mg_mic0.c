/*
 * mg_mic0.c -- MIC(0) preconditioner specialised to the MAC grid (Bridson,
 * "Fluid Simulation for Computer Graphics", 2nd ed., sec. 5.2.6 with
 * tau = TIDE_MIC_TAU, sigma = TIDE_MIC_SIGMA), in natural cell order.
 *
 * Parallel triangular solves by wavefronts: the active pencils of level 0
 * are cut into blocks (whole pencils in 3D, 64-cell segments in 2D); block
 * (i, j, kb) depends only on blocks (i-1, j, kb), (i, j-1, kb), (i, j, kb-1),
 * so all blocks with the same i + j + kb are independent and solved in
 * parallel, each block serially.  Every cell is computed exactly as in the
 * serial sweep: the result does not depend on the thread count.
 */
#include "linalg/mg_internal.h"

#include <math.h>
#include <string.h>

#define MIC_BLOCK_2D 64

/* coupling between cell m and m + s (both liquid), label mode */
MG_INLINE double cpl(const mg_level *L, int64_t m, int64_t s) {
  return (L->label[m] == TIDE_CELL_LIQUID && L->label[m + s] == TIDE_CELL_LIQUID) ? L->scale : 0.0;
}

int mg_mic0_setup(tide_mac_solver *S) {
  mg_level *L = &S->lev[0];
  const int d3 = S->d3;
  const int B = d3 ? (1 << 30) : MIC_BLOCK_2D;
  /* blocks and their fronts */
  int64_t nblk = 0;
  int maxf = 0;
  for (int p = 0; p < L->npen; p++) {
    const mg_pencil pc = L->pen[p];
    int kb0 = pc.k0 / B, kb1 = (pc.k1 - 1) / B;
    nblk += kb1 - kb0 + 1;
    int f = pc.i + pc.j + kb1;
    if (f > maxf) maxf = f;
  }
  int st = mg_buf_reserve(S, &S->mbuf[0], (size_t)L->size * sizeof(double));
  st |= mg_buf_reserve(S, &S->mbuf[1], (size_t)nblk * sizeof(mg_block));
  st |= mg_buf_reserve(S, &S->mbuf[2], (size_t)(maxf + 2) * sizeof(int64_t));
  if (st) return TIDE_ENOMEM;
  S->pre = S->mbuf[0].p;
  S->blk = S->mbuf[1].p;
  S->front = S->mbuf[2].p;
  S->nblk = nblk;
  S->nfront = maxf + 1;
  int64_t *fr = S->front;
  memset(fr, 0, (size_t)(maxf + 2) * sizeof(int64_t));
  for (int p = 0; p < L->npen; p++) {
    const mg_pencil pc = L->pen[p];
    for (int kb = pc.k0 / B; kb <= (pc.k1 - 1) / B; kb++)
      fr[pc.i + pc.j + kb + 1]++;
  }
  for (int f = 0; f <= maxf; f++)
    fr[f + 1] += fr[f];
  for (int p = 0; p < L->npen; p++) {
    const mg_pencil pc = L->pen[p];
    const int64_t base = pc.i * L->s0 + pc.j * L->s1;
    for (int kb = pc.k0 / B; kb <= (pc.k1 - 1) / B; kb++) {
      int a = pc.k0 > kb * B ? pc.k0 : kb * B;
      int b = pc.k1 < (kb + 1) * B ? pc.k1 : (kb + 1) * B;
      mg_block *bl = &S->blk[fr[pc.i + pc.j + kb]++];
      bl->c0 = base + a;
      bl->c1 = base + b;
    }
  }
  for (int f = maxf; f > 0; f--)
    fr[f] = fr[f - 1];
  fr[0] = 0;
  /* factorization, front by front */
  double *pre = S->pre;
  memset(pre, 0, (size_t)L->size * sizeof(double));
  const int64_t s0 = L->s0, s1 = L->s1;
  const int coef = L->coef;
  const double tau = TIDE_MIC_TAU, sigma = TIDE_MIC_SIGMA;
#pragma omp parallel if (L->nactive > MG_PAR_MIN)
  for (int f = 0; f < S->nfront; f++) {
#pragma omp for schedule(static)
    for (int64_t q = fr[f]; q < fr[f + 1]; q++)
      for (int64_t c = S->blk[q].c0; c < S->blk[q].c1; c++) {
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
  const int64_t *fr = S->front;
  const mg_block *blk = S->blk;
  const int nf = S->nfront;
#pragma omp parallel if (L->nactive > MG_PAR_MIN)
  {
    for (int f = 0; f < nf; f++) {
#pragma omp for schedule(static)
      for (int64_t b = fr[f]; b < fr[f + 1]; b++)
        for (int64_t c = blk[b].c0; c < blk[b].c1; c++) {
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
#pragma omp for schedule(static)
      for (int64_t b = fr[f]; b < fr[f + 1]; b++)
        for (int64_t c = blk[b].c1 - 1; c >= blk[b].c0; c--) {
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
