/* interp.c -- sampling and semi-Lagrangian advection of cell and MAC fields
 * (Zarifi Sec. 4.3; see grid.h). */
#include "grid/grid.h"

#include <math.h>

static int check_points(const tide_grid *g, const tide_array *x, const char *what) {
  int64_t shape[2] = {-1, g->dim};
  return tide_array_expect(x, what, TIDE_F64, 2, shape);
}

int tide_grid_sample(const tide_grid *g, const tide_array *f, const tide_array *x,
                     tide_array *out) {
  int st;
  if ((st = tide_grid_check_cells(g, f, TIDE_F64, "field"))) return st;
  if ((st = check_points(g, x, "points"))) return st;
  int64_t n = x->shape[0];
  if ((st = tide_array_expect(out, "out", TIDE_F64, 1, &n))) return st;
  tide_lattice L;
  tide_lattice_cells(g, TIDE_F64P(f), &L);
  const double *px = TIDE_F64P(x);
  double *po = TIDE_F64P(out);
  int dim = g->dim;
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) po[p] = tide_lattice_interp(&L, px + p * dim);
  return TIDE_OK;
}

int tide_mac_sample(const tide_mac *m, const tide_array *x, tide_array *out) {
  int st;
  if ((st = tide_mac_check(m, NULL, TIDE_F64, "mac"))) return st;
  if ((st = check_points(&m->grid, x, "points"))) return st;
  int dim = m->grid.dim;
  int64_t shape[2] = {x->shape[0], dim};
  if ((st = tide_array_expect(out, "out", TIDE_F64, 2, shape))) return st;
  const double *px = TIDE_F64P(x);
  double *po = TIDE_F64P(out);
  int64_t n = x->shape[0];
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) tide_mac_velocity(m, px + p * dim, po + p * dim);
  return TIDE_OK;
}

/* RK2 midpoint backtrace (Zarifi Eq. 4.29-4.30). */
static inline void backtrace(const tide_mac *vel, const double *x, double dt, double *x0) {
  double u[3] = {0, 0, 0}, xm[3] = {x[0], x[1], x[2]};
  int dim = vel->grid.dim;
  tide_mac_velocity(vel, x, u);
  for (int d = 0; d < dim; d++) xm[d] = x[d] - 0.5 * dt * u[d];
  tide_mac_velocity(vel, xm, u);
  for (int d = 0; d < dim; d++) x0[d] = x[d] - dt * u[d];
}

int tide_grid_advect(const tide_grid *g, const tide_mac *vel, const tide_array *f, double dt,
                     tide_array *out) {
  int st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if ((st = tide_mac_check(vel, g, TIDE_F64, "velocity"))) return st;
  if ((st = tide_grid_check_cells(g, f, TIDE_F64, "field"))) return st;
  if ((st = tide_grid_check_cells(g, out, TIDE_F64, "out"))) return st;
  if (out->buf == f->buf) return tide_fail(TIDE_EINVAL, "out must not share memory with the field");
  tide_lattice L;
  tide_lattice_cells(g, TIDE_F64P(f), &L);
  double *po = TIDE_F64P(out);
#pragma omp parallel for schedule(static) if (tide_grid_ncells(g) > TIDE_PAR_MIN)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double x[3], x0[3] = {0, 0, 0};
        tide_grid_center(g, i, j, k, x);
        backtrace(vel, x, dt, x0);
        po[tide_grid_idx(g, i, j, k)] = tide_lattice_interp(&L, x0);
      }
  return TIDE_OK;
}

int tide_mac_advect(const tide_mac *vel, const tide_mac *q, double dt, tide_mac *out) {
  int st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if ((st = tide_mac_check(vel, NULL, TIDE_F64, "velocity"))) return st;
  const tide_grid *g = &vel->grid;
  if ((st = tide_mac_check(q, g, TIDE_F64, "field"))) return st;
  if ((st = tide_mac_check(out, g, TIDE_F64, "out"))) return st;
  for (int a = 0; a < g->dim; a++)
    for (int b = 0; b < g->dim; b++)
      if (out->u[a]->buf == q->u[b]->buf || out->u[a]->buf == vel->u[b]->buf)
        return tide_fail(TIDE_EINVAL, "out must not share memory with the advected field or the velocity");
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    tide_lattice L;
    tide_lattice_faces(g, a, TIDE_F64P(q->u[a]), &L);
    double *po = TIDE_F64P(out->u[a]);
#pragma omp parallel for schedule(static) if ((int64_t)fd[0] * fd[1] * fd[2] > TIDE_PAR_MIN)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          double x[3] = {L.lo[0] + i * g->dx, L.lo[1] + j * g->dx, L.lo[2] + k * g->dx}, x0[3];
          if (g->dim == 2) x[2] = 0;
          backtrace(vel, x, dt, x0);
          po[((int64_t)i * fd[1] + j) * fd[2] + k] = tide_lattice_interp(&L, x0);
        }
  }
  return TIDE_OK;
}
