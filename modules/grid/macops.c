/* macops.c -- operators on MAC fields: accelerations, CFL speed,
 * divergence, free-slip walls and extrapolation into invalid faces. */
#include "grid/grid.h"

#include <math.h>
#include <string.h>

int tide_mac_add_accel(tide_mac *m, const double accel[3], double dt) {
  int st;
  if ((st = tide_mac_check(m, NULL, TIDE_F64, "mac"))) return st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  for (int a = 0; a < m->grid.dim; a++) {
    if (!isfinite(accel[a])) return tide_fail(TIDE_EINVAL, "acceleration[%d] is not finite", a + 1);
    double *u = TIDE_F64P(m->u[a]), du = accel[a] * dt;
    int64_t n = tide_array_size(m->u[a]);
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
    for (int64_t f = 0; f < n; f++) u[f] += du;
  }
  return TIDE_OK;
}

int tide_mac_max_speed(const tide_mac *m, double *out) {
  int st;
  if ((st = tide_mac_check(m, NULL, TIDE_F64, "mac"))) return st;
  double best = 0;
  int bad = 0;
  for (int a = 0; a < m->grid.dim; a++) {
    const double *u = TIDE_F64P(m->u[a]);
    int64_t n = tide_array_size(m->u[a]);
#pragma omp parallel for schedule(static) reduction(max : best) reduction(| : bad) if (n > TIDE_PAR_MIN)
    for (int64_t f = 0; f < n; f++) {
      double s = fabs(u[f]);
      if (!(s <= 1e300)) bad = 1;
      else if (s > best) best = s;
    }
  }
  if (bad) return tide_fail(TIDE_ENONFINITE, "MAC field holds non-finite velocities");
  *out = best;
  return TIDE_OK;
}

int tide_mac_divergence(const tide_mac *m, tide_array *out) {
  int st;
  if ((st = tide_mac_check(m, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &m->grid;
  if ((st = tide_grid_check_cells(g, out, TIDE_F64, "out"))) return st;
  double *d = TIDE_F64P(out), inv = 1.0 / g->dx;
  const double *u = TIDE_F64P(m->u[0]), *v = TIDE_F64P(m->u[1]);
  const double *w = g->dim == 3 ? TIDE_F64P(m->u[2]) : NULL;
#pragma omp parallel for schedule(static) if (tide_grid_ncells(g) > TIDE_PAR_MIN)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double s = u[tide_grid_fidx(g, 0, i + 1, j, k)] - u[tide_grid_fidx(g, 0, i, j, k)] +
                   v[tide_grid_fidx(g, 1, i, j + 1, k)] - v[tide_grid_fidx(g, 1, i, j, k)];
        if (w) s += w[tide_grid_fidx(g, 2, i, j, k + 1)] - w[tide_grid_fidx(g, 2, i, j, k)];
        d[tide_grid_idx(g, i, j, k)] = s * inv;
      }
  return TIDE_OK;
}

/* Is face (axis a, index c) closed, and which sides are solid?  A face of
 * open fraction 0 between two open cells is closed on both sides.  Domain
 * faces of the open sides (TIDE_SIDE_BIT mask) are not closed. */
static inline int wall_face(const tide_grid *g, const uint8_t *lab, const double *frac,
                            unsigned open, int a, const int c[3], int *lo_solid, int *hi_solid) {
  int lo = c[a] == 0, hi = c[a] == g->n[a];
  if ((lo && (open & TIDE_SIDE_BIT(a, 0))) || (hi && (open & TIDE_SIDE_BIT(a, 1)))) {
    *lo_solid = *hi_solid = 0;
    return 0;
  }
  if (lab && !lo && !hi) {
    int64_t h = tide_grid_idx(g, c[0], c[1], c[2]);
    int64_t l = h - (a == 0 ? (int64_t)g->n[1] * g->n[2] : a == 1 ? g->n[2] : 1);
    lo = lab[l] == TIDE_CELL_SOLID;
    hi = lab[h] == TIDE_CELL_SOLID;
  }
  if (frac && !lo && !hi && !(frac[tide_grid_fidx(g, a, c[0], c[1], c[2])] > 0)) lo = hi = 1;
  *lo_solid = lo;
  *hi_solid = hi;
  return lo || hi;
}

int tide_mac_enforce_walls(tide_mac *m, const tide_array *labels, int separating) {
  return tide_mac_enforce_walls_open(m, labels, NULL, separating, 0);
}

int tide_mac_enforce_walls_cut(tide_mac *m, const tide_array *labels, const tide_mac *fractions,
                               int separating) {
  return tide_mac_enforce_walls_open(m, labels, fractions, separating, 0);
}

int tide_mac_enforce_walls_open(tide_mac *m, const tide_array *labels, const tide_mac *fractions,
                                int separating, unsigned open) {
  int st;
  if ((st = tide_mac_check(m, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &m->grid;
  if (labels && (st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (fractions && (st = tide_mac_check(fractions, g, TIDE_F64, "fractions"))) return st;
  if (open >> (2 * g->dim))
    return tide_fail(TIDE_EINVAL, "open sides beyond the %dD domain", g->dim);
  const uint8_t *lab = labels ? TIDE_U8P(labels) : NULL;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t sa = a == 0 ? (int64_t)fd[1] * fd[2] : a == 1 ? fd[2] : 1;
    double *u = TIDE_F64P(m->u[a]);
    const double *fr = fractions ? TIDE_F64P(fractions->u[a]) : NULL;
#pragma omp parallel for schedule(static) if ((int64_t)fd[0] * fd[1] * fd[2] > TIDE_PAR_MIN)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int c[3] = {i, j, k}, lo, hi;
          if (!wall_face(g, lab, fr, open, a, c, &lo, &hi)) continue;
          int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
          double val = 0;
          if (separating && lo != hi) {
            /* the neighbour face on the open side, if it is not a wall itself */
            int nb[3] = {i, j, k}, l2, h2;
            nb[a] += lo ? 1 : -1;
            if (!wall_face(g, lab, fr, open, a, nb, &l2, &h2)) {
              double un = u[f + (lo ? sa : -sa)];
              if ((lo && un > 0) || (hi && un < 0)) val = un;
            }
          }
          u[f] = val;
        }
    /* open sides: the boundary face copies the next face inward (already
     * final: the walls are done), or 0 when that one is a wall */
    for (int hi = 0; hi < 2; hi++) {
      if (!(open & TIDE_SIDE_BIT(a, hi)) || g->n[a] < 2) continue;
      int e = hi ? g->n[a] : 0, in = hi ? g->n[a] - 1 : 1;
      int b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2; /* the two other axes */
      for (int s = 0; s < fd[b1]; s++)
        for (int t = 0; t < fd[b2]; t++) {
          int c[3], l2, h2;
          c[a] = in, c[b1] = s, c[b2] = t;
          int64_t fin = tide_grid_fidx(g, a, c[0], c[1], c[2]);
          double val = wall_face(g, lab, fr, open, a, c, &l2, &h2) ? 0 : u[fin];
          c[a] = e;
          u[tide_grid_fidx(g, a, c[0], c[1], c[2])] = val;
        }
    }
  }
  return TIDE_OK;
}

int tide_mac_extrapolate(tide_mac *m, tide_mac *valid, int layers, int clear) {
  int st;
  if ((st = tide_mac_check(m, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &m->grid;
  if ((st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if (layers < 0) return tide_fail(TIDE_EINVAL, "layers must be >= 0, got %d", layers);
  int64_t rmax = 0;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    if ((int64_t)fd[0] * fd[1] > rmax) rmax = (int64_t)fd[0] * fd[1];
  }
  /* per row of faces (i, j): 1 when it holds a valid face, 2 when it got
   * its first one in the current sweep; rows with no active row beside
   * them (or themselves) cannot change and are skipped */
  uint8_t *row = tide_alloc((size_t)rmax);
  if (!row) return TIDE_ENOMEM;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t n = tide_array_size(m->u[a]), nr = (int64_t)fd[0] * fd[1];
    uint8_t *mask = TIDE_U8P(valid->u[a]);
    double *u = TIDE_F64P(m->u[a]);
    int64_t s0 = (int64_t)fd[1] * fd[2], s1 = fd[2];
    int n1 = fd[1], n2 = fd[2], dim3 = g->dim == 3;
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
    for (int64_t r = 0; r < nr; r++) {
      uint8_t any = 0;
      for (int64_t f = r * n2; f < (r + 1) * n2; f++) {
        mask[f] = mask[f] != 0;
        any |= mask[f];
      }
      row[r] = any;
    }
    for (int layer = 0; layer < layers; layer++) {
      int changed = 0;
      /* a face turning valid is marked 2: neighbours read only the 1s of
       * the previous sweeps, so the result is order independent.  Planes i
       * of one parity at a time: a plane's rows are written by one thread
       * and read (from the planes beside it) by none. */
      for (int parity = 0; parity < 2; parity++) {
#pragma omp parallel for schedule(static) reduction(| : changed) if (n > TIDE_PAR_MIN)
        for (int i = parity; i < fd[0]; i += 2)
          for (int j = 0; j < n1; j++) {
            int64_t r = (int64_t)i * n1 + j;
            if (!(row[r] == 1 || (i > 0 && row[r - n1] == 1) || (i + 1 < fd[0] && row[r + n1] == 1) ||
                  (j > 0 && row[r - 1] == 1) || (j + 1 < n1 && row[r + 1] == 1)))
              continue;
            int grew = 0;
            for (int k = 0; k < n2; k++) {
              int64_t f = i * s0 + j * s1 + k;
              if (mask[f]) continue;
              double sum = 0;
              int cnt = 0;
              /* the 2*dim neighbours of the same axis, one index away */
              if (i > 0 && mask[f - s0] == 1) sum += u[f - s0], cnt++;
              if (i + 1 < fd[0] && mask[f + s0] == 1) sum += u[f + s0], cnt++;
              if (j > 0 && mask[f - s1] == 1) sum += u[f - s1], cnt++;
              if (j + 1 < n1 && mask[f + s1] == 1) sum += u[f + s1], cnt++;
              if (dim3) {
                if (k > 0 && mask[f - 1] == 1) sum += u[f - 1], cnt++;
                if (k + 1 < n2 && mask[f + 1] == 1) sum += u[f + 1], cnt++;
              }
              if (cnt) {
                u[f] = sum / cnt;
                mask[f] = 2;
                grew = 1;
              }
            }
            if (grew) {
              changed = 1;
              if (!row[r]) row[r] = 2;
            }
          }
      }
      if (!changed) break;
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
      for (int64_t r = 0; r < nr; r++) {
        if (!row[r]) continue;
        row[r] = 1;
        for (int64_t f = r * n2; f < (r + 1) * n2; f++)
          if (mask[f] == 2) mask[f] = 1;
      }
    }
    if (clear) {
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
      for (int64_t f = 0; f < n; f++)
        if (!mask[f]) u[f] = 0;
    }
  }
  tide_free(row, (size_t)rmax);
  return TIDE_OK;
}
