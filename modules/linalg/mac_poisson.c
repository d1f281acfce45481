/*
 * mac_poisson.c -- the MAC-grid Poisson problem: validation, matrix-free
 * application on grid arrays and assembly into a tide_csr.  Both paths take
 * every coefficient from tide_mac_poisson_face (mac_poisson.h).
 */
#include "linalg/mac_poisson.h"

#include <math.h>
#include <string.h>

tide_mac_poisson tide_mac_poisson_make(const tide_grid *g, const uint8_t *labels) {
  tide_mac_poisson P;
  memset(&P, 0, sizeof P);
  P.grid = *g;
  P.labels = labels;
  P.theta_min = TIDE_MAC_THETA_MIN;
  return P;
}

static int64_t nfaces(const tide_grid *g, int a) {
  int d[3];
  tide_grid_face_dims(g, a, d);
  return (int64_t)d[0] * d[1] * d[2];
}

int tide_mac_poisson_check(const tide_mac_poisson *P) {
  if (!P) return tide_fail(TIDE_EINVAL, "mac_poisson: no problem given");
  const tide_grid *g = &P->grid;
  if (g->dim != 2 && g->dim != 3)
    return tide_fail(TIDE_EINVAL, "mac_poisson: dim must be 2 or 3, got %d", g->dim);
  for (int a = 0; a < 3; a++)
    if (g->n[a] < 1 || (a == 2 && g->dim == 2 && g->n[2] != 1))
      return tide_fail(TIDE_EINVAL, "mac_poisson: bad grid extent n[%d] = %d", a, g->n[a]);
  if ((int64_t)(g->n[0] + 3) * (g->n[1] + 3) * (g->n[2] + 3) > INT32_MAX)
    return tide_fail(TIDE_EINVAL, "mac_poisson: grid of %d x %d x %d cells is too large", g->n[0],
                     g->n[1], g->n[2]);
  if (!(g->dx > 0) || !isfinite(g->dx))
    return tide_fail(TIDE_EINVAL, "mac_poisson: dx must be positive and finite, got %g", g->dx);
  if (!P->labels) return tide_fail(TIDE_EINVAL, "mac_poisson: no labels given");
  if (P->theta_min < 0 || P->theta_min > 1 || !isfinite(P->theta_min))
    return tide_fail(TIDE_EINVAL, "mac_poisson: theta_min must be in [0, 1], got %g", P->theta_min);
  if (P->checked) return TIDE_OK; /* the caller checked the arrays */
  int64_t nc = tide_grid_ncells(g), bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad) if (nc > 65536)
  for (int64_t c = 0; c < nc; c++)
    if (P->labels[c] > TIDE_CELL_SOLID && c > bad) bad = c;
  char name[56];
  if (bad >= 0)
    return tide_fail(TIDE_EINVAL, "mac_poisson: label %d at cell %s is not AIR/LIQUID/SOLID",
                     P->labels[bad], tide_grid_cellname(g, bad, name));
  for (int a = 0; a < g->dim; a++) {
    int64_t nf = nfaces(g, a);
    if (P->weight[a]) {
      int64_t badw = -1;
      const double *w = P->weight[a];
#pragma omp parallel for schedule(static) reduction(max : badw) if (nf > 65536)
      for (int64_t f = 0; f < nf; f++)
        if (!(w[f] >= 0) || !isfinite(w[f])) badw = f > badw ? f : badw;
      if (badw >= 0)
        return tide_fail(TIDE_EINVAL,
                         "mac_poisson: face weight %g at the %s must be finite and >= 0",
                         w[badw], tide_grid_facename(g, a, badw, name));
    }
    if (P->theta[a]) {
      int64_t badt = -1;
      const double *t = P->theta[a];
#pragma omp parallel for schedule(static) reduction(max : badt) if (nf > 65536)
      for (int64_t f = 0; f < nf; f++)
        if (!isfinite(t[f])) badt = f > badt ? f : badt;
      if (badt >= 0)
        return tide_fail(TIDE_EINVAL, "mac_poisson: theta at the %s is not finite",
                         tide_grid_facename(g, a, badt, name));
    }
  }
  return TIDE_OK;
}

/* label of cell (i, j, k) + e_a * s (s = -1 or +1), SOLID outside */
static inline uint8_t nbr_label(const tide_mac_poisson *P, int i, int j, int k, int a, int s) {
  const tide_grid *g = &P->grid;
  int q[3] = {i, j, k};
  q[a] += s;
  if (q[a] < 0 || q[a] >= g->n[a]) return TIDE_CELL_SOLID;
  return P->labels[tide_grid_idx(g, q[0], q[1], q[2])];
}

int tide_mac_poisson_theta(const tide_grid *g, const uint8_t *labels, const double *phi,
                           double *theta[3]) {
  if (!g || !labels || !phi || !theta)
    return tide_fail(TIDE_EINVAL, "mac_poisson_theta: grid, labels, phi and theta required");
  for (int a = 0; a < g->dim; a++)
    if (!theta[a]) return tide_fail(TIDE_EINVAL, "mac_poisson_theta: theta[%d] missing", a);
  int64_t nc = tide_grid_ncells(g), bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad) if (nc > 65536)
  for (int64_t c = 0; c < nc; c++)
    if (!isfinite(phi[c]) && c > bad) bad = c;
  char name[48];
  if (bad >= 0)
    return tide_fail(TIDE_ENONFINITE, "mac_poisson_theta: phi is not finite at cell %s",
                     tide_grid_cellname(g, bad, name));
  if (g->dim == 3) {
    /* rows of faces along k, no index arithmetic per face */
    const int64_t cs[3] = {(int64_t)g->n[1] * g->n[2], g->n[2], 1};
    const int nk = g->n[2];
    for (int a = 0; a < 3; a++) {
      int d[3];
      tide_grid_face_dims(g, a, d);
      double *th = theta[a];
#pragma omp parallel for schedule(static) collapse(2) if ((int64_t)d[0] * d[1] * d[2] > 65536)
      for (int i = 0; i < d[0]; i++)
        for (int j = 0; j < d[1]; j++) {
          double *tr = th + ((int64_t)i * d[1] + j) * d[2];
          const int q = a == 0 ? i : j;
          if (a < 2 && (q == 0 || q == g->n[a])) {
            for (int k = 0; k < d[2]; k++)
              tr[k] = 1;
            continue;
          }
          /* face k of the row lies between cells lo + k and hi + k */
          const int64_t hi = i * cs[0] + j * cs[1], lo = hi - cs[a];
          const int k0 = a == 2 ? 1 : 0;
          if (a == 2) tr[0] = tr[nk] = 1;
          for (int k = k0; k < nk; k++) {
            const uint8_t llo = labels[lo + k], lhi = labels[hi + k];
            double t = 1;
            if (llo != lhi) {
              int64_t cl = -1, ca = -1;
              if (llo == TIDE_CELL_LIQUID && lhi == TIDE_CELL_AIR) cl = lo + k, ca = hi + k;
              if (lhi == TIDE_CELL_LIQUID && llo == TIDE_CELL_AIR) cl = hi + k, ca = lo + k;
              if (cl >= 0 && phi[cl] <= 0 && phi[ca] > 0) t = phi[cl] / (phi[cl] - phi[ca]);
            }
            tr[k] = t;
          }
        }
    }
    return TIDE_OK;
  }
  for (int a = 0; a < g->dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    double *th = theta[a];
#pragma omp parallel for schedule(static) collapse(2) if ((int64_t)d[0] * d[1] * d[2] > 65536)
    for (int i = 0; i < d[0]; i++)
      for (int j = 0; j < d[1]; j++)
        for (int k = 0; k < d[2]; k++) {
          int q[3] = {i, j, k};
          double t = 1;
          if (q[a] > 0 && q[a] < g->n[a]) {
            int64_t hi = tide_grid_idx(g, i, j, k);
            q[a]--;
            int64_t lo = tide_grid_idx(g, q[0], q[1], q[2]);
            uint8_t llo = labels[lo], lhi = labels[hi];
            int64_t cl = -1, ca = -1;
            if (llo == TIDE_CELL_LIQUID && lhi == TIDE_CELL_AIR) cl = lo, ca = hi;
            if (lhi == TIDE_CELL_LIQUID && llo == TIDE_CELL_AIR) cl = hi, ca = lo;
            if (cl >= 0 && phi[cl] <= 0 && phi[ca] > 0) t = phi[cl] / (phi[cl] - phi[ca]);
          }
          th[tide_grid_fidx(g, a, i, j, k)] = t;
        }
  }
  return TIDE_OK;
}

int tide_mac_poisson_apply(const tide_mac_poisson *P, const double *x, double *y) {
  int st = tide_mac_poisson_check(P);
  if (st) return st;
  if (!x || !y) return tide_fail(TIDE_EINVAL, "mac_poisson_apply: x and y must be given");
  if (x == y) return tide_fail(TIDE_EINVAL, "mac_poisson_apply: x and y must not alias");
  const tide_grid *g = &P->grid;
  const double h2 = 1.0 / (g->dx * g->dx);
  const int ni = g->n[0], nj = g->n[1], nk = g->n[2];
#pragma omp parallel for schedule(static) collapse(2) if (tide_grid_ncells(g) > 65536)
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t c = tide_grid_idx(g, i, j, k);
        if (P->labels[c] != TIDE_CELL_LIQUID) {
          y[c] = 0;
          continue;
        }
        double d = 0, s = 0;
        int q[3] = {i, j, k};
        for (int a = 0; a < g->dim; a++) {
          int64_t stride = a == 0 ? (int64_t)nj * nk : a == 1 ? nk : 1;
          double off, dlo, dhi;
          /* low face: c is the hi cell */
          tide_mac_poisson_face(P, a, tide_grid_fidx(g, a, i, j, k), nbr_label(P, i, j, k, a, -1),
                                TIDE_CELL_LIQUID, &off, &dlo, &dhi);
          d += dhi;
          if (off != 0) s += off * x[c - stride];
          /* high face: c is the lo cell */
          q[a] += 1;
          tide_mac_poisson_face(P, a, tide_grid_fidx(g, a, q[0], q[1], q[2]), TIDE_CELL_LIQUID,
                                nbr_label(P, i, j, k, a, +1), &off, &dlo, &dhi);
          q[a] -= 1;
          d += dlo;
          if (off != 0) s += off * x[c + stride];
        }
        y[c] = h2 * (d * x[c] - s);
      }
  return TIDE_OK;
}

double tide_mac_poisson_diag(const tide_mac_poisson *P, int i, int j, int k) {
  const tide_grid *g = &P->grid;
  double dg = 0;
  for (int a = 0; a < (g->dim == 3 ? 3 : 2); a++)
    for (int side = 0; side < 2; side++) {
      int q[3] = {i, j, k}, f[3] = {i, j, k};
      q[a] += side ? 1 : -1;
      f[a] += side;
      uint8_t nb = q[a] < 0 || q[a] >= g->n[a] ? (uint8_t)TIDE_CELL_SOLID
                                               : P->labels[tide_grid_idx(g, q[0], q[1], q[2])];
      double off, dlo, dhi;
      int64_t fi = tide_grid_fidx(g, a, f[0], f[1], f[2]);
      if (side) {
        tide_mac_poisson_face(P, a, fi, TIDE_CELL_LIQUID, nb, &off, &dlo, &dhi);
        dg += dlo;
      } else {
        tide_mac_poisson_face(P, a, fi, nb, TIDE_CELL_LIQUID, &off, &dlo, &dhi);
        dg += dhi;
      }
    }
  return dg;
}

int tide_mac_poisson_number(const tide_mac_poisson *P, int *rowof, int *n) {
  int st = tide_mac_poisson_check(P);
  if (st) return st;
  if (!rowof || !n) return tide_fail(TIDE_EINVAL, "mac_poisson_number: no output given");
  int64_t nc = tide_grid_ncells(&P->grid);
  int m = 0;
  for (int64_t c = 0; c < nc; c++)
    rowof[c] = P->labels[c] == TIDE_CELL_LIQUID ? m++ : -1;
  *n = m;
  return TIDE_OK;
}

int tide_mac_poisson_assemble(const tide_mac_poisson *P, const int *rowof, int n, int stype,
                              tide_csr **out) {
  return tide_mac_poisson_assemble_reuse(P, rowof, n, stype, NULL, out);
}

int tide_mac_poisson_assemble_reuse(const tide_mac_poisson *P, const int *rowof, int n, int stype,
                                    tide_csr **keep, tide_csr **out) {
  /* the spare is taken here: reused below, or freed on every error path */
  tide_csr *spare = keep ? *keep : NULL;
  if (keep) *keep = NULL;
  int st = tide_mac_poisson_check(P);
  if (!st && (!rowof || !out))
    st = tide_fail(TIDE_EINVAL, "mac_poisson_assemble: no numbering given");
  if (!st && stype != TIDE_CSR_GENERAL && stype != TIDE_CSR_UPPER)
    st = tide_fail(TIDE_EINVAL, "mac_poisson_assemble: unknown storage type %d", stype);
  if (st) {
    tide_csr_free(spare);
    return st;
  }
  *out = NULL;
  const tide_grid *g = &P->grid;
  const int nj = g->n[1], nk = g->n[2], dim = g->dim;
  const int64_t nc = tide_grid_ncells(g);
  const int64_t stride[3] = {(int64_t)nj * nk, nk, 1};
  /* cell of each row, and a check that rowof numbers the liquid cells 0..n-1 */
  int *cellrow = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (!cellrow) {
    tide_csr_free(spare);
    return TIDE_ENOMEM;
  }
  int m = 0;
  for (int64_t c = 0; c < nc; c++) {
    if (P->labels[c] != TIDE_CELL_LIQUID) continue;
    if (rowof[c] != m || m >= n) {
      tide_free(cellrow, (size_t)(n > 0 ? n : 1) * sizeof(int));
      tide_csr_free(spare);
      return tide_fail(TIDE_EINVAL,
                       "mac_poisson_assemble: numbering does not match the liquid cells "
                       "(use tide_mac_poisson_number)");
    }
    cellrow[m++] = (int)c;
  }
  if (m != n) {
    tide_free(cellrow, (size_t)(n > 0 ? n : 1) * sizeof(int));
    tide_csr_free(spare);
    return tide_fail(TIDE_EINVAL, "mac_poisson_assemble: %d liquid cells but n = %d", m, n);
  }
  /* per row: up to 2*dim + 1 entries; the pattern holds every liquid-liquid
   * face (weight 0 included) so it depends on the labels only */
  const int per = 2 * dim + 1;
  tide_csr *A = NULL;
  st = tide_csr_recycle(&spare, n, n, (int64_t)n * per, &A);
  if (st) {
    tide_free(cellrow, (size_t)(n > 0 ? n : 1) * sizeof(int));
    return st;
  }
  const double h2 = 1.0 / (g->dx * g->dx);
  /* count entries per row */
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int r = 0; r < n; r++) {
    int64_t c = cellrow[r];
    int i = (int)(c / stride[0]), j = (int)(c / nk % nj), k = (int)(c % nk);
    int cnt = 1, q[3] = {i, j, k};
    for (int a = 0; a < dim; a++)
      for (int s = -1; s <= 1; s += 2) {
        q[a] += s;
        int inside = q[a] >= 0 && q[a] < g->n[a];
        q[a] -= s;
        if (!inside || P->labels[c + s * stride[a]] != TIDE_CELL_LIQUID) continue;
        if (stype == TIDE_CSR_UPPER && s < 0) continue;
        cnt++;
      }
    A->rowptr[r + 1] = cnt;
  }
  A->rowptr[0] = 0;
  for (int r = 0; r < n; r++)
    A->rowptr[r + 1] += A->rowptr[r];
    /* fill: columns ascend because neighbours in grid order are -stride[0],
     * -stride[1], -1, self, +1, +stride[1], +stride[0] */
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int r = 0; r < n; r++) {
    int64_t c = cellrow[r];
    int i = (int)(c / stride[0]), j = (int)(c / nk % nj), k = (int)(c % nk);
    int q[3] = {i, j, k};
    double d = 0, offv[6];
    int offc[6], no = 0;
    for (int a = 0; a < dim; a++) {
      double off, dlo, dhi;
      tide_mac_poisson_face(P, a, tide_grid_fidx(g, a, i, j, k), nbr_label(P, i, j, k, a, -1),
                            TIDE_CELL_LIQUID, &off, &dlo, &dhi);
      d += dhi;
      if (q[a] > 0 && P->labels[c - stride[a]] == TIDE_CELL_LIQUID) {
        offc[no] = rowof[c - stride[a]];
        offv[no++] = -off * h2;
      }
      q[a] += 1;
      tide_mac_poisson_face(P, a, tide_grid_fidx(g, a, q[0], q[1], q[2]), TIDE_CELL_LIQUID,
                            nbr_label(P, i, j, k, a, +1), &off, &dlo, &dhi);
      d += dlo;
      if (q[a] < g->n[a] && P->labels[c + stride[a]] == TIDE_CELL_LIQUID) {
        offc[no] = rowof[c + stride[a]];
        offv[no++] = -off * h2;
      }
      q[a] -= 1;
    }
    /* sort the (at most 6) off-diagonals by column, insert the diagonal */
    for (int x = 1; x < no; x++)
      for (int y = x; y > 0 && offc[y - 1] > offc[y]; y--) {
        int tc = offc[y];
        offc[y] = offc[y - 1];
        offc[y - 1] = tc;
        double tv = offv[y];
        offv[y] = offv[y - 1];
        offv[y - 1] = tv;
      }
    int64_t p = A->rowptr[r];
    int placed = 0;
    for (int x = 0; x < no; x++) {
      if (!placed && offc[x] > r) {
        A->col[p] = r;
        A->val[p++] = d * h2;
        placed = 1;
      }
      if (stype == TIDE_CSR_UPPER && offc[x] < r) continue;
      A->col[p] = offc[x];
      A->val[p++] = offv[x];
    }
    if (!placed) {
      A->col[p] = r;
      A->val[p++] = d * h2;
    }
  }
  tide_free(cellrow, (size_t)(n > 0 ? n : 1) * sizeof(int));
  A->stype = stype;
  st = tide_csr_finish(A);
  if (st) {
    tide_csr_free(A);
    return st;
  }
  *out = A;
  return TIDE_OK;
}
