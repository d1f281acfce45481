/* zarifi_ops.c -- the liquid operators of the coupled projection: the
 * area-weighted divergence E and the ghost-fluid face gradient G (Zarifi
 * Eq. 4.33-4.44), as sparse matrices over the liquid cells and all faces
 * (see zarifi.h). */
#include "couple/zarifi.h"
#include "linalg/mac_poisson.h"

#include <math.h>

int64_t tide_zarifi_nfaces(const tide_grid *g) {
  int64_t n = 0;
  for (int a = 0; a < g->dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    n += (int64_t)d[0] * d[1] * d[2];
  }
  return n;
}

static void face_offsets(const tide_grid *g, int64_t off[3]) {
  off[0] = off[1] = off[2] = 0;
  for (int a = 1; a < g->dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a - 1, d);
    off[a] = off[a - 1] + (int64_t)d[0] * d[1] * d[2];
  }
}

int tide_zarifi_gather(const tide_mac *u, double *out) {
  int64_t off[3];
  face_offsets(&u->grid, off);
  for (int a = 0; a < u->grid.dim; a++) {
    if (u->u[a]->dtype != TIDE_F64) return tide_fail(TIDE_EINVAL, "gather: MAC field must be f64");
    int64_t n = tide_array_size(u->u[a]);
    const double *s = TIDE_F64P(u->u[a]);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t f = 0; f < n; f++) out[off[a] + f] = s[f];
  }
  return TIDE_OK;
}

int tide_zarifi_scatter(const double *in, tide_mac *u) {
  int64_t off[3];
  face_offsets(&u->grid, off);
  for (int a = 0; a < u->grid.dim; a++) {
    if (u->u[a]->dtype != TIDE_F64) return tide_fail(TIDE_EINVAL, "scatter: MAC field must be f64");
    int64_t n = tide_array_size(u->u[a]);
    double *s = TIDE_F64P(u->u[a]);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t f = 0; f < n; f++) s[f] = in[off[a] + f];
  }
  return TIDE_OK;
}

int tide_zarifi_ops(const tide_grid *g, const uint8_t *labels, const int *rowof, int nl,
                    const double *const fractions[3], const double *const theta[3],
                    double theta_min, tide_csr **E, tide_csr **G) {
  int d = g->dim;
  int64_t nf = tide_zarifi_nfaces(g), nc = tide_grid_ncells(g);
  if (nf > INT32_MAX || nc > INT32_MAX)
    return tide_fail(TIDE_EINVAL, "zarifi operators: grid too large for 32-bit indices");
  if (!(theta_min > 0)) theta_min = TIDE_MAC_THETA_MIN;
  double dx = g->dx, area = d == 3 ? dx * dx : dx;
  int64_t off[3];
  face_offsets(g, off);
  int s;
  tide_triplets *TE = NULL, *TG = NULL;
  if ((s = tide_triplets_new(nl, (int)nf, &TE))) return s;
  if ((s = tide_triplets_new((int)nf, nl, &TG))) {
    tide_triplets_free(TE);
    return s;
  }
  int n2 = d == 3 ? g->n[2] : 1;
  /* E: rows in liquid-cell order, the 2d faces of each cell */
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < n2; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        int r = rowof[c];
        if (r < 0) continue;
        int ijk[3] = {i, j, k};
        for (int a = 0; a < d; a++)
          for (int side = 0; side < 2; side++) { /* 0: low face, 1: high face */
            int nb[3] = {i, j, k};
            nb[a] += side ? 1 : -1;
            if (nb[a] < 0 || nb[a] >= g->n[a]) continue;
            if (labels[tide_grid_idx(g, nb[0], nb[1], nb[2])] == TIDE_CELL_SOLID) continue;
            int fi[3] = {ijk[0], ijk[1], ijk[2]};
            fi[a] += side;
            int64_t f = tide_grid_fidx(g, a, fi[0], fi[1], fi[2]);
            double w = fractions && fractions[a] ? fractions[a][f] : 1.0;
            tide_triplets_add(TE, r, (int)(off[a] + f), (side ? -1.0 : 1.0) * w * area);
          }
      }
  /* G: one row per open face with a liquid side */
  for (int a = 0; a < d; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int hi[3] = {i, j, k}, lo[3] = {i, j, k};
          lo[a] -= 1;
          if (lo[a] < 0 || hi[a] >= g->n[a]) continue;
          int64_t cl = tide_grid_idx(g, lo[0], lo[1], lo[2]);
          int64_t ch = tide_grid_idx(g, hi[0], hi[1], hi[2]);
          uint8_t ll = labels[cl], lh = labels[ch];
          if (ll == TIDE_CELL_SOLID || lh == TIDE_CELL_SOLID) continue;
          if (ll != TIDE_CELL_LIQUID && lh != TIDE_CELL_LIQUID) continue;
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          double w = fractions && fractions[a] ? fractions[a][f] : 1.0;
          if (!(w > 0)) continue;
          int row = (int)(off[a] + f);
          if (ll == TIDE_CELL_LIQUID && lh == TIDE_CELL_LIQUID) {
            tide_triplets_add(TG, row, rowof[cl], -1 / dx);
            tide_triplets_add(TG, row, rowof[ch], 1 / dx);
          } else {
            double th = theta && theta[a] ? theta[a][f] : 1.0;
            if (!(th >= theta_min)) th = theta_min;
            if (ll == TIDE_CELL_LIQUID)
              tide_triplets_add(TG, row, rowof[cl], -1 / (th * dx));
            else
              tide_triplets_add(TG, row, rowof[ch], 1 / (th * dx));
          }
        }
  }
  s = tide_csr_from_tripletlist(TE, TIDE_CSR_GENERAL, E);
  if (!s) {
    s = tide_csr_from_tripletlist(TG, TIDE_CSR_GENERAL, G);
    if (s) {
      tide_csr_free(*E);
      *E = NULL;
    }
  }
  tide_triplets_free(TE);
  tide_triplets_free(TG);
  return s;
}
