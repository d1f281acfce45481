/* probe.c -- measurements of a liquid state (probe.h). */
#include "liquid/probe.h"

#include <math.h>

static int check_axes(const tide_grid *g, int w, int a, int s) {
  if (w < 0 || w >= g->dim) return tide_fail(TIDE_EINVAL, "wall axis %d is not an axis of a %dD grid", w + 1, g->dim);
  if (a < 0 || a >= g->dim) return tide_fail(TIDE_EINVAL, "direction axis %d is not an axis of a %dD grid", a + 1, g->dim);
  if (a == w) return tide_fail(TIDE_EINVAL, "the front direction must run along the wall (not across it)");
  if (s != 1 && s != -1) return tide_fail(TIDE_EINVAL, "direction sign must be +1 or -1");
  return TIDE_OK;
}

static int check_phi(const tide_grid *g, const double *phi) {
  if (!phi) return tide_fail(TIDE_EINVAL, "phi required");
  int64_t nc = tide_grid_ncells(g);
  for (int64_t q = 0; q < nc; q++)
    if (!isfinite(phi[q])) return tide_fail(TIDE_ENONFINITE, "phi is not finite at cell %lld", (long long)q);
  return TIDE_OK;
}

int tide_liquid_front_phi(const tide_grid *g, const double *phi, int w, int wall_hi, int a, int s,
                          double *out, int *found) {
  int st;
  *found = 0;
  *out = NAN;
  if ((st = check_axes(g, w, a, s)) || (st = check_phi(g, phi))) return st;
  int b = 3 - w - a; /* the remaining axis (2D: axis 2 with one cell) */
  int na = g->n[a], nb = g->n[b];
  double best = s > 0 ? -INFINITY : INFINITY;
  for (int l = 0; l < nb; l++) {
    int c[3];
    c[w] = wall_hi ? g->n[w] - 1 : 0;
    c[b] = l;
    /* walk against the direction from the far end: the first liquid cell */
    for (int t = 0; t < na; t++) {
      int i = s > 0 ? na - 1 - t : t;
      c[a] = i;
      double pc = phi[tide_grid_idx(g, c[0], c[1], c[2])];
      if (!(pc < 0)) continue;
      double x0[3];
      tide_grid_center(g, c[0], c[1], c[2], x0);
      double x;
      if (t == 0) {
        x = x0[a] + s * 0.5 * g->dx; /* liquid up to the domain boundary */
      } else {
        c[a] = i + s;
        double pn = phi[tide_grid_idx(g, c[0], c[1], c[2])];
        x = x0[a] + s * g->dx * pc / (pc - pn);
      }
      if (s > 0 ? x > best : x < best) best = x;
      *found = 1;
      break;
    }
  }
  if (*found) *out = best;
  return TIDE_OK;
}

static int check_ps(const tide_grid *g, const tide_particles *ps) {
  if (!ps) return tide_fail(TIDE_EINVAL, "particles required");
  if (ps->dim != g->dim) return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", g->dim, ps->dim);
  return TIDE_OK;
}

int tide_liquid_front_particles(const tide_grid *g, const tide_particles *ps, int w, int wall_hi, int a,
                                int s, double layer, double *out, int *found) {
  int st;
  *found = 0;
  *out = NAN;
  if ((st = check_axes(g, w, a, s)) || (st = check_ps(g, ps))) return st;
  if (!(layer > 0) || !isfinite(layer)) return tide_fail(TIDE_EINVAL, "layer must be positive and finite");
  double wall = g->origin[w] + (wall_hi ? g->n[w] * g->dx : 0);
  const double *x = TIDE_F64P(ps->x);
  int dim = g->dim;
  double best = s > 0 ? -INFINITY : INFINITY;
  for (int64_t p = 0; p < ps->n; p++) {
    const double *xp = x + p * dim;
    if (!(fabs(xp[w] - wall) <= layer)) continue;
    if (s > 0 ? xp[a] > best : xp[a] < best) best = xp[a];
    *found = 1;
  }
  if (*found) *out = best;
  return TIDE_OK;
}

static int check_up(const tide_grid *g, int up, const double pos[3]) {
  if (up < 0 || up >= g->dim) return tide_fail(TIDE_EINVAL, "up axis %d is not an axis of a %dD grid", up + 1, g->dim);
  for (int d = 0; d < g->dim; d++)
    if (d != up && !isfinite(pos[d])) return tide_fail(TIDE_EINVAL, "position is not finite");
  return TIDE_OK;
}

int tide_liquid_elevation_phi(const tide_grid *g, const double *phi, int up, const double pos[3],
                              double *out, int *found) {
  int st;
  *found = 0;
  *out = NAN;
  if ((st = check_up(g, up, pos)) || (st = check_phi(g, phi))) return st;
  /* the (up to 4) columns around pos and their bilinear weights */
  int lo[3] = {0, 0, 0};
  double t[3] = {0, 0, 0};
  for (int d = 0; d < g->dim; d++) {
    if (d == up || g->n[d] < 2) continue;
    double sd = (pos[d] - g->origin[d]) / g->dx - 0.5;
    if (sd < 0) sd = 0;
    if (sd > g->n[d] - 1) sd = g->n[d] - 1;
    lo[d] = (int)sd;
    if (lo[d] > g->n[d] - 2) lo[d] = g->n[d] - 2;
    t[d] = sd - lo[d];
  }
  int nu = g->n[up];
  double fprev = 0;
  for (int j = nu - 1; j >= 0; j--) {
    double f = 0;
    for (int corner = 0; corner < 8; corner++) {
      int c[3];
      double wgt = 1;
      int skip = 0;
      for (int d = 0; d < 3; d++) {
        int hi = (corner >> d) & 1;
        if (d == up || d >= g->dim || g->n[d] < 2) {
          if (hi) skip = 1;
          c[d] = d == up ? j : 0;
          continue;
        }
        c[d] = lo[d] + hi;
        wgt *= hi ? t[d] : 1 - t[d];
      }
      if (skip || wgt == 0) continue;
      f += wgt * phi[tide_grid_idx(g, c[0], c[1], c[2])];
    }
    if (f < 0) {
      double yj = g->origin[up] + (j + 0.5) * g->dx;
      *out = j == nu - 1 ? yj + 0.5 * g->dx : yj + g->dx * f / (f - fprev);
      *found = 1;
      return TIDE_OK;
    }
    fprev = f;
  }
  return TIDE_OK;
}

int tide_liquid_elevation_particles(const tide_grid *g, const tide_particles *ps, int up, const double pos[3],
                                    double half_width, double *out, int *found) {
  int st;
  *found = 0;
  *out = NAN;
  if ((st = check_up(g, up, pos)) || (st = check_ps(g, ps))) return st;
  if (!(half_width > 0) || !isfinite(half_width)) return tide_fail(TIDE_EINVAL, "half width must be positive and finite");
  const double *x = TIDE_F64P(ps->x);
  int dim = g->dim;
  double best = -INFINITY;
  for (int64_t p = 0; p < ps->n; p++) {
    const double *xp = x + p * dim;
    int in = 1;
    for (int d = 0; d < dim; d++)
      if (d != up && !(fabs(xp[d] - pos[d]) <= half_width)) in = 0;
    if (in && xp[up] > best) {
      best = xp[up];
      *found = 1;
    }
  }
  if (*found) *out = best;
  return TIDE_OK;
}

static inline double frac(double phi, double dx) {
  double f = 0.5 - phi / dx;
  return f < 0 ? 0 : f > 1 ? 1 : f;
}

int tide_liquid_stats_grid(const tide_mac *u, const double *phi, double rho, const double *gravity,
                           tide_liquid_stats *out) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "u"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = check_phi(g, phi))) return st;
  if (!(rho > 0) || !isfinite(rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  for (int d = 0; d < g->dim; d++)
    if (!isfinite(gravity[d])) return tide_fail(TIDE_EINVAL, "gravity must be finite");
  int dim = g->dim;
  double dx = g->dx, vol = pow(dx, dim);
  double V = 0, K = 0, U = 0, vmax = 0;
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double F = frac(phi[tide_grid_idx(g, i, j, k)], dx);
        if (F == 0) continue;
        double x[3], s2 = 0, gx = 0;
        tide_grid_center(g, i, j, k, x);
        for (int a = 0; a < dim; a++) {
          const double *ua = TIDE_F64P(u->u[a]);
          int hi[3] = {i, j, k};
          hi[a]++;
          double uc = 0.5 * (ua[tide_grid_fidx(g, a, i, j, k)] + ua[tide_grid_fidx(g, a, hi[0], hi[1], hi[2])]);
          s2 += uc * uc;
          gx += gravity[a] * x[a];
        }
        V += F;
        U -= F * gx;
        if (s2 > vmax) vmax = s2;
      }
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    const double *ua = TIDE_F64P(u->u[a]);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int lo[3] = {i, j, k}, hi[3] = {i, j, k};
          lo[a] = lo[a] > 0 ? lo[a] - 1 : 0;
          if (hi[a] >= g->n[a]) hi[a] = g->n[a] - 1;
          double pf = 0.5 * (phi[tide_grid_idx(g, lo[0], lo[1], lo[2])] + phi[tide_grid_idx(g, hi[0], hi[1], hi[2])]);
          double F = frac(pf, dx), v = ua[tide_grid_fidx(g, a, i, j, k)];
          K += F * v * v;
        }
  }
  out->volume = V * vol;
  out->kinetic = 0.5 * rho * K * vol;
  out->potential = rho * U * vol;
  out->max_speed = sqrt(vmax);
  return TIDE_OK;
}

int tide_liquid_stats_particles(const tide_particles *ps, double particle_volume, double rho,
                                const double *gravity, tide_liquid_stats *out) {
  if (!ps) return tide_fail(TIDE_EINVAL, "particles required");
  if (!(particle_volume > 0) || !isfinite(particle_volume)) return tide_fail(TIDE_EINVAL, "particle volume must be positive and finite");
  if (!(rho > 0) || !isfinite(rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  int dim = ps->dim;
  for (int d = 0; d < dim; d++)
    if (!isfinite(gravity[d])) return tide_fail(TIDE_EINVAL, "gravity must be finite");
  const double *x = TIDE_F64P(ps->x), *v = TIDE_F64P(ps->v);
  double K = 0, U = 0, vmax = 0;
  for (int64_t p = 0; p < ps->n; p++) {
    double s2 = 0, gx = 0;
    for (int d = 0; d < dim; d++) {
      s2 += v[p * dim + d] * v[p * dim + d];
      gx += gravity[d] * x[p * dim + d];
    }
    K += s2;
    U -= gx;
    if (s2 > vmax) vmax = s2;
  }
  double m = rho * particle_volume;
  out->volume = (double)ps->n * particle_volume;
  out->kinetic = 0.5 * m * K;
  out->potential = m * U;
  out->max_speed = sqrt(vmax);
  return TIDE_OK;
}
