/*
 * contact.c -- collider contacts as bound constraints of a minimization
 * (see contact.h).
 */
#include "solid/contact.h"
#include "solid/thin.h"

#include <math.h>
#include <string.h>

static inline int node_free(const tide_tetmesh *m, const uint8_t *skip, int64_t i) {
  if (skip) return !skip[i];
  const tide_fem *f = m->fem;
  return !TIDE_U8P(f->pinned)[i] && TIDE_F64P(f->mass)[i] > 0;
}

int64_t tide_contacts_project(const tide_tetmesh *m, const uint8_t *skip, tide_collider *const *c,
                              int nc, double *x) {
  int d = m->dim;
  int64_t cnt = 0;
#pragma omp parallel for schedule(static) reduction(+ : cnt) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    if (!node_free(m, skip, i)) continue;
    int moved = 0;
    for (int rep = 0; rep < 4; rep++) {
      double xi[3] = {0, 0, 0}, phi, N[3], vB[3];
      for (int k = 0; k < d; k++)
        xi[k] = x[i * d + k];
      if (tide_colliders_query(c, nc, xi, &phi, N, vB) < 0 || phi >= 0) break;
      for (int k = 0; k < d; k++)
        x[i * d + k] -= phi * N[k];
      moved = 1;
    }
    cnt += moved;
  }
  return cnt;
}

int64_t tide_contacts_active(const tide_tetmesh *m, const uint8_t *skip, tide_collider *const *c,
                             int nc, const double *x, const double *g, double eps, double gmin,
                             uint8_t *na, double *Qall) {
  int d = m->dim;
  int64_t cnt = 0;
#pragma omp parallel for schedule(static) reduction(+ : cnt) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    na[i] = 0;
    if (!node_free(m, skip, i)) continue;
    double xi[3] = {0, 0, 0}, *Q = Qall + i * d * d;
    const double *gi = g + i * d;
    int n = 0;
    for (int k = 0; k < d; k++)
      xi[k] = x[i * d + k];
    for (int b = 0; b < nc && n < d; b++) {
      const tide_collider *cc = c[b];
      double N[3] = {0, 0, 0}, gn = 0;
      if (tide_collider_phi(cc, xi, N) - cc->thickness > eps) continue;
      for (int k = 0; k < d; k++)
        gn += gi[k] * N[k];
      if (!(gn > gmin)) continue;
      for (int a = 0; a < n; a++) { /* Gram-Schmidt against the earlier ones */
        double t = 0;
        for (int k = 0; k < d; k++)
          t += Q[a * d + k] * N[k];
        for (int k = 0; k < d; k++)
          N[k] -= t * Q[a * d + k];
      }
      double l = 0;
      for (int k = 0; k < d; k++)
        l += N[k] * N[k];
      l = sqrt(l);
      if (l < 1e-6) continue; /* already constrained */
      for (int k = 0; k < d; k++)
        Q[n * d + k] = N[k] / l;
      n++;
    }
    na[i] = (uint8_t)n;
    cnt += n > 0;
  }
  return cnt;
}

void tide_contacts_tangential(const tide_tetmesh *m, const uint8_t *na, const double *Q,
                              double *y) {
  int d = m->dim;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int a = 0; a < na[i]; a++) {
      const double *q = Q + (i * d + a) * d;
      double t = 0;
      for (int k = 0; k < d; k++)
        t += y[i * d + k] * q[k];
      for (int k = 0; k < d; k++)
        y[i * d + k] -= t * q[k];
    }
}

/* H (n x n, row-major) <- (I - q q^T)_b H (I - q q^T)_b on the d rows and
 * columns of node slot b */
static void constrain_block(int n, int d, int b, const double *q, double *H) {
  for (int c = 0; c < n; c++) {
    double t = 0;
    for (int k = 0; k < d; k++)
      t += q[k] * H[(b * d + k) * n + c];
    for (int k = 0; k < d; k++)
      H[(b * d + k) * n + c] -= t * q[k];
  }
  for (int r = 0; r < n; r++) {
    double t = 0;
    for (int k = 0; k < d; k++)
      t += H[r * n + b * d + k] * q[k];
    for (int k = 0; k < d; k++)
      H[r * n + b * d + k] -= t * q[k];
  }
}

void tide_contacts_constrain_elements(const tide_tetmesh *m, const uint8_t *na, const double *Q,
                                      double *V) {
  int d = m->dim, nper = m->nper, n = nper * d;
  int64_t nvol = tide_fem_nvol(m);
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    const int32_t *el = TIDE_I32P(m->elem) + e * nper;
    for (int b = 0; b < nper; b++)
      for (int a = 0; a < na[el[b]]; a++)
        constrain_block(n, d, b, Q + ((int64_t)el[b] * d + a) * d, V + e * n * n);
  }
  /* then the stencils of the shells and rods (thin.h), in their order */
  const tide_thin *th = m->fem ? m->fem->thin : NULL;
  int64_t t0 = nvol * n * n;
  for (int i = 0; th && i < th->nparts; i++)
    for (int set = 1; set <= TIDE_THIN_SETS; set++) {
      int nn;
      const int32_t *st;
      int64_t cnt = tide_thin_set(&th->parts[i], set, &nn, &st), k = (int64_t)nn * d;
#pragma omp parallel for schedule(static) if (cnt > TIDE_SOLID_PAR_ELEM)
      for (int64_t e = 0; e < cnt; e++)
        for (int b = 0; b < nn; b++)
          for (int a = 0; a < na[st[e * nn + b]]; a++)
            constrain_block((int)k, d, b, Q + ((int64_t)st[e * nn + b] * d + a) * d,
                            V + t0 + e * k * k);
      t0 += cnt * k * k;
    }
}

void tide_contacts_constrain_triplet_blocks(const tide_tetmesh *m, const uint8_t *na,
                                            const double *Q, int nn, int64_t nblocks,
                                            const int *I, double *V) {
  int d = m->dim, n = nn * d;
#pragma omp parallel for schedule(static) if (nblocks > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nblocks; e++)
    for (int b = 0; b < nn; b++) {
      int64_t i = I[e * n * n + (int64_t)b * d * n] / d;
      for (int a = 0; a < na[i]; a++)
        constrain_block(n, d, b, Q + (i * d + a) * d, V + e * n * n);
    }
}

void tide_contacts_constrain_nodes(const tide_tetmesh *m, const uint8_t *na, const double *Q,
                                   double *V) {
  int d = m->dim;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int a = 0; a < na[i]; a++)
      constrain_block(d, d, 0, Q + (i * d + a) * d, V + i * d * d);
}
