/* grid.c -- uniform grids, cell arrays and MAC fields (see grid.h). */
#include "grid/grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int tide_grid_init(tide_grid *g, int dim, const int n[3], double dx, const double origin[3]) {
  if (dim != 2 && dim != 3) return tide_fail(TIDE_EINVAL, "grid dimension must be 2 or 3, got %d", dim);
  if (!(dx > 0) || !isfinite(dx)) return tide_fail(TIDE_EINVAL, "dx must be positive and finite, got %g", dx);
  int64_t total = 1;
  for (int d = 0; d < 3; d++) {
    int nd = d < dim ? n[d] : 1;
    if (nd < 1 || nd > (1 << 20))
      return tide_fail(TIDE_EINVAL, "grid size[%d] must be in 1..%d, got %d", d + 1, 1 << 20, nd);
    total *= nd;
    if (total > ((int64_t)1 << 34)) return tide_fail(TIDE_EINVAL, "grid too large");
    double o = d < dim ? origin[d] : 0;
    if (!isfinite(o)) return tide_fail(TIDE_EINVAL, "grid origin[%d] is not finite", d + 1);
  }
  g->dim = dim;
  g->dx = dx;
  for (int d = 0; d < 3; d++) {
    g->n[d] = d < dim ? n[d] : 1;
    g->origin[d] = d < dim ? origin[d] : 0;
  }
  return TIDE_OK;
}

int tide_grid_same(const tide_grid *a, const tide_grid *b) {
  if (a->dim != b->dim || a->dx != b->dx) return 0;
  for (int d = 0; d < 3; d++)
    if (a->n[d] != b->n[d] || a->origin[d] != b->origin[d]) return 0;
  return 1;
}

static const char *index_name(int dim, const int n[3], int64_t q, char *buf, size_t len) {
  int64_t k = q % n[2], j = (q / n[2]) % n[1], i = q / ((int64_t)n[1] * n[2]);
  if (dim == 3)
    snprintf(buf, len, "(%lld, %lld, %lld)", (long long)i + 1, (long long)j + 1, (long long)k + 1);
  else
    snprintf(buf, len, "(%lld, %lld)", (long long)i + 1, (long long)j + 1);
  return buf;
}

const char *tide_grid_cellname(const tide_grid *g, int64_t q, char *buf) {
  return index_name(g->dim, g->n, q, buf, 48);
}

const char *tide_grid_facename(const tide_grid *g, int a, int64_t f, char *buf) {
  static const char *const axis[3] = {"u", "v", "w"};
  int n[3];
  tide_grid_face_dims(g, a, n);
  int k = snprintf(buf, 56, "%s face ", axis[a < 0 || a > 2 ? 0 : a]);
  index_name(g->dim, n, f, buf + k, (size_t)(56 - k));
  return buf;
}

static void cell_shape(const tide_grid *g, int64_t shape[3]) {
  for (int d = 0; d < 3; d++) shape[d] = g->n[d];
}

tide_array *tide_grid_cell_array(const tide_grid *g, tide_dtype t) {
  int64_t shape[3];
  cell_shape(g, shape);
  return tide_array_new(t, g->dim, shape);
}

int tide_grid_check_cells(const tide_grid *g, const tide_array *a, tide_dtype t, const char *what) {
  int64_t shape[3];
  cell_shape(g, shape);
  return tide_array_expect(a, what, t, g->dim, shape);
}

void tide_grid_center(const tide_grid *g, int i, int j, int k, double x[3]) {
  x[0] = g->origin[0] + (i + 0.5) * g->dx;
  x[1] = g->origin[1] + (j + 0.5) * g->dx;
  x[2] = g->dim == 3 ? g->origin[2] + (k + 0.5) * g->dx : 0;
}

int tide_grid_centers(const tide_grid *g, tide_array **out) {
  int64_t shape[4];
  cell_shape(g, shape);
  shape[g->dim] = g->dim;
  tide_array *a = tide_array_new(TIDE_F64, g->dim + 1, shape);
  if (!a) return TIDE_ENOMEM;
  double *p = TIDE_F64P(a);
  int dim = g->dim;
#pragma omp parallel for schedule(static) if (tide_grid_ncells(g) > TIDE_PAR_MIN)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double x[3];
        tide_grid_center(g, i, j, k, x);
        double *q = p + tide_grid_idx(g, i, j, k) * dim;
        for (int d = 0; d < dim; d++) q[d] = x[d];
      }
  *out = a;
  return TIDE_OK;
}

void tide_grid_locate(const tide_grid *g, const double *x, int ijk[3]) {
  for (int d = 0; d < 3; d++) {
    ijk[d] = 0;
    if (d >= g->dim) continue;
    double s = (x[d] - g->origin[d]) / g->dx;
    int i = s > 0 ? (int)fmin(s, (double)g->n[d] - 1) : 0; /* NaN -> 0 */
    ijk[d] = i;
  }
}

/* ---------------------------------------------------------------- MAC */

int tide_mac_new(const tide_grid *g, tide_dtype t, tide_mac **out) {
  tide_mac *m = calloc(1, sizeof *m);
  if (!m) return tide_fail(TIDE_ENOMEM, "out of memory");
  m->grid = *g;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t shape[3] = {fd[0], fd[1], fd[2]};
    m->u[a] = tide_array_new(t, g->dim, shape);
    if (!m->u[a]) {
      tide_mac_free(m);
      return TIDE_ENOMEM;
    }
  }
  *out = m;
  return TIDE_OK;
}

void tide_mac_free(tide_mac *m) {
  if (!m) return;
  for (int a = 0; a < 3; a++) tide_array_release(m->u[a]);
  free(m);
}

int tide_mac_check(const tide_mac *m, const tide_grid *g, tide_dtype t, const char *what) {
  if (!m) return tide_fail(TIDE_EINVAL, "%s: missing MAC field", what);
  if (g && !tide_grid_same(&m->grid, g))
    return tide_fail(TIDE_EINVAL, "%s: MAC field lives on a different grid", what);
  static const char *names[3] = {"u", "v", "w"};
  for (int a = 0; a < m->grid.dim; a++) {
    int fd[3];
    tide_grid_face_dims(&m->grid, a, fd);
    int64_t shape[3] = {fd[0], fd[1], fd[2]};
    char w[96];
    snprintf(w, sizeof w, "%s.%s", what, names[a]);
    int st = tide_array_expect(m->u[a], w, t, m->grid.dim, shape);
    if (st) return st;
  }
  return TIDE_OK;
}

int tide_mac_copy(tide_mac *dst, const tide_mac *src) {
  if (!tide_grid_same(&dst->grid, &src->grid))
    return tide_fail(TIDE_EINVAL, "MAC copy: fields live on different grids");
  for (int a = 0; a < dst->grid.dim; a++) {
    int st = tide_array_copy(dst->u[a], src->u[a]);
    if (st) return st;
  }
  return TIDE_OK;
}

int tide_mac_axpy(tide_mac *y, double alpha, const tide_mac *x) {
  if (!tide_grid_same(&y->grid, &x->grid))
    return tide_fail(TIDE_EINVAL, "MAC axpy: fields live on different grids");
  for (int a = 0; a < y->grid.dim; a++) {
    int st = tide_array_axpy(y->u[a], alpha, x->u[a]);
    if (st) return st;
  }
  return TIDE_OK;
}

int tide_mac_fill(tide_mac *m, double v) {
  for (int a = 0; a < m->grid.dim; a++) {
    int st = tide_array_fill(m->u[a], v);
    if (st) return st;
  }
  return TIDE_OK;
}
