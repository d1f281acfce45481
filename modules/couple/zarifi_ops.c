/* zarifi_ops.c -- the ghost-fluid face gradient G of the coupled
 * projection's velocity update (Zarifi Eq. 4.31, 4.35-4.37, 4.44) as a sparse
 * matrix from the liquid cells to all faces (see zarifi.h).  The divergence
 * E is tide_liquid_divergence (liquid/project.h). */
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

/* copy between the face arrays of u and one vector (dir 0: gather) */
static int face_copy(tide_mac *u, double *vec, int dir) {
  int64_t off[3];
  face_offsets(&u->grid, off);
  for (int a = 0; a < u->grid.dim; a++) {
    if (u->u[a]->dtype != TIDE_F64) return tide_fail(TIDE_EINVAL, "MAC field must be f64");
    int64_t n = tide_array_size(u->u[a]);
    double *s = TIDE_F64P(u->u[a]), *v = vec + off[a];
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t f = 0; f < n; f++) {
      if (dir)
        s[f] = v[f];
      else
        v[f] = s[f];
    }
  }
  return TIDE_OK;
}

int tide_zarifi_gather(const tide_mac *u, double *out) { return face_copy((tide_mac *)u, out, 0); }

int tide_zarifi_scatter(const double *in, tide_mac *u) { return face_copy(u, (double *)in, 1); }

int tide_zarifi_gradient(const tide_grid *g, const uint8_t *labels, const int *rowof, int nl,
                         const double *const fractions[3], const double *const theta[3],
                         double theta_min, tide_csr **G) {
  int d = g->dim;
  int64_t nf = tide_zarifi_nfaces(g), nc = tide_grid_ncells(g);
  if (nf > INT32_MAX || nc > INT32_MAX)
    return tide_fail(TIDE_EINVAL, "zarifi gradient: grid too large for 32-bit indices");
  if (!(theta_min > 0)) theta_min = TIDE_MAC_THETA_MIN;
  double dx = g->dx;
  int64_t off[3];
  face_offsets(g, off);
  tide_triplets *TG = NULL;
  int s = tide_triplets_new((int)nf, nl, &TG);
  if (s) return s;
  /* one row per open face with a liquid side, in face order */
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
  s = tide_csr_from_tripletlist(TG, TIDE_CSR_GENERAL, G);
  tide_triplets_free(TG);
  return s;
}
