/* interp.c -- sampling of cell and MAC fields, and the plain
 * semi-Lagrangian advections of grid.h (Zarifi Sec. 4.3). */
#include "grid/grid.h"
#include "grid/levelset.h"

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

/* The plain semi-Lagrangian advections are the SL paths of the general
 * ones (levelset_advect.c): RK2 midpoint, multilinear. */
int tide_grid_advect(const tide_grid *g, const tide_mac *vel, const tide_array *f, double dt,
                     tide_array *out) {
  int st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if ((st = tide_mac_check(vel, g, TIDE_F64, "velocity"))) return st;
  if ((st = tide_grid_check_cells(g, f, TIDE_F64, "field"))) return st;
  if ((st = tide_grid_check_cells(g, out, TIDE_F64, "out"))) return st;
  if (out->buf == f->buf) return tide_fail(TIDE_EINVAL, "out must not share memory with the field");
  return tide_levelset_advect(g, vel, TIDE_F64P(f), dt, NULL, TIDE_F64P(out));
}

int tide_mac_advect(const tide_mac *vel, const tide_mac *q, double dt, tide_mac *out) {
  return tide_levelset_advect_mac(vel, q, dt, NULL, NULL, NULL, out);
}
