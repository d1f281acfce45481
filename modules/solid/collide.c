/*
 * collide.c -- collision objects, Irving's friction operator Gamma and
 * post-step contact projection (see collide.h).
 */
#include "solid/collide.h"
#include "solid/fem.h"

#include <math.h>
#include <string.h>

static int collider_alloc(int dim, double mu, tide_collider **out) {
  *out = NULL;
  if (!(mu >= 0) || !isfinite(mu))
    return tide_fail(TIDE_EINVAL, "collider: friction coefficient must be >= 0, got %g", mu);
  tide_collider *c = tide_calloc(sizeof *c);
  if (!c) return TIDE_ENOMEM;
  c->dim = dim;
  c->mu = mu;
  c->rot[0] = c->rot[4] = c->rot[8] = 1;
  *out = c;
  return TIDE_OK;
}

int tide_collider_new_shape(tide_shape *shape, double mu, tide_collider **out) {
  int st = collider_alloc(shape->dim, mu, out);
  if (st) return st;
  (*out)->shape = tide_shape_retain(shape);
  return TIDE_OK;
}

int tide_collider_new_grid(const tide_grid *g, tide_array *phi, double mu, tide_collider **out) {
  *out = NULL;
  int st = tide_grid_check_cells(g, phi, TIDE_F64, "collider phi");
  if (st) return st;
  if (tide_array_nonfinite(phi)) return tide_fail(TIDE_ENONFINITE, "collider: phi has NaN or Inf");
  if ((st = collider_alloc(g->dim, mu, out))) return st;
  (*out)->grid = *g;
  (*out)->phi = tide_array_retain(phi);
  return TIDE_OK;
}

void tide_collider_free(tide_collider *c) {
  if (!c) return;
  if (c->shape) tide_shape_release(c->shape);
  tide_array_release(c->phi);
  tide_free(c, sizeof *c);
}

int tide_collider_advance(tide_collider *c, double dt) {
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "collider advance: dt must be finite");
  for (int k = 0; k < 3; k++) c->pos[k] += dt * c->vel[k];
  double w[3] = {c->omega[0], c->omega[1], c->omega[2]};
  if (c->dim == 2) w[0] = w[1] = 0;
  double th = dt * sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  if (th == 0) return TIDE_OK;
  double a[3] = {w[0] * dt / th, w[1] * dt / th, w[2] * dt / th};
  /* Rodrigues: Q = I + sin K + (1 - cos) K^2 with K = [a]x */
  double K[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0}, K2[9], Q[9], R[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += K[3 * i + k] * K[3 * k + j];
      K2[3 * i + j] = s;
    }
  for (int i = 0; i < 9; i++) Q[i] = (i % 4 == 0) + sin(th) * K[i] + (1 - cos(th)) * K2[i];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += Q[3 * i + k] * c->rot[3 * k + j];
      R[3 * i + j] = s;
    }
  memcpy(c->rot, R, sizeof R);
  return TIDE_OK;
}

/* body-frame distance */
static double body_phi(const tide_collider *c, const double *y) {
  if (c->shape) return tide_shape_eval(c->shape, y);
  const tide_grid *g = &c->grid;
  tide_lattice L;
  tide_lattice_cells(g, TIDE_F64P(c->phi), &L);
  /* distance to the box of samples when outside it */
  double out = 0;
  for (int k = 0; k < g->dim; k++) {
    double lo = L.lo[k], hi = L.lo[k] + (g->n[k] - 1) * g->dx, e = 0;
    if (y[k] < lo) e = lo - y[k];
    if (y[k] > hi) e = y[k] - hi;
    out += e * e;
  }
  return tide_lattice_interp(&L, y) + sqrt(out);
}

static void to_body(const tide_collider *c, const double *x, double *y) {
  double r[3] = {x[0] - c->pos[0], x[1] - c->pos[1], c->dim == 3 ? x[2] - c->pos[2] : 0};
  for (int j = 0; j < 3; j++) y[j] = c->rot[j] * r[0] + c->rot[3 + j] * r[1] + c->rot[6 + j] * r[2];
  if (c->dim == 2) y[2] = 0;
}

double tide_collider_phi(const tide_collider *c, const double *x, double *N) {
  double y[3];
  to_body(c, x, y);
  double phi = body_phi(c, y);
  if (N) {
    /* central differences in the body frame, rotated to the world */
    double h = c->shape ? 1e-6 * (1 + fabs(phi)) : 1e-3 * c->grid.dx, g[3] = {0, 0, 0}, n2 = 0;
    for (int k = 0; k < c->dim; k++) {
      double yp[3] = {y[0], y[1], y[2]}, ym[3] = {y[0], y[1], y[2]};
      yp[k] += h;
      ym[k] -= h;
      g[k] = (body_phi(c, yp) - body_phi(c, ym)) / (2 * h);
      n2 += g[k] * g[k];
    }
    double l = sqrt(n2);
    if (l > 0)
      for (int k = 0; k < 3; k++) g[k] /= l;
    else
      g[c->dim - 1] = 1;
    for (int i = 0; i < c->dim; i++) {
      double s = 0;
      for (int j = 0; j < 3; j++) s += c->rot[3 * i + j] * g[j];
      N[i] = s;
    }
  }
  return phi;
}

void tide_collider_velocity(const tide_collider *c, const double *x, double *vB) {
  double r[3] = {x[0] - c->pos[0], x[1] - c->pos[1], c->dim == 3 ? x[2] - c->pos[2] : 0};
  const double *w = c->omega;
  if (c->dim == 2) {
    vB[0] = c->vel[0] - w[2] * r[1];
    vB[1] = c->vel[1] + w[2] * r[0];
    return;
  }
  vB[0] = c->vel[0] + w[1] * r[2] - w[2] * r[1];
  vB[1] = c->vel[1] + w[2] * r[0] - w[0] * r[2];
  vB[2] = c->vel[2] + w[0] * r[1] - w[1] * r[0];
}

void tide_friction_gamma(int d, const double *v, const double *vB, const double *N, double mu,
                         double extra_dvn, double *out) {
  double vn = 0, vbn = 0;
  for (int k = 0; k < d; k++) {
    vn += v[k] * N[k];
    vbn += vB[k] * N[k];
  }
  double vsn = vn > vbn ? vn : vbn;
  double trel[3], tl = 0;
  for (int k = 0; k < d; k++) {
    trel[k] = (v[k] - vn * N[k]) - (vB[k] - vbn * N[k]);
    tl += trel[k] * trel[k];
  }
  tl = sqrt(tl);
  double dvn = vsn - vn + extra_dvn;
  double s = tl > 0 ? 1 - mu * dvn / tl : 0;
  if (s < 0) s = 0;
  for (int k = 0; k < d; k++) out[k] = vsn * N[k] + (vB[k] - vbn * N[k]) + s * trel[k];
}

int tide_colliders_query(tide_collider *const *c, int n, const double *x, double *phi, double *N,
                         double *vB) {
  int best = -1;
  double bp = INFINITY;
  for (int i = 0; i < n; i++) {
    double p = tide_collider_phi(c[i], x, NULL);
    if (p < c[i]->thickness && p - c[i]->thickness < bp) {
      bp = p - c[i]->thickness;
      best = i;
    }
  }
  if (best >= 0) {
    *phi = tide_collider_phi(c[best], x, N) - c[best]->thickness;
    tide_collider_velocity(c[best], x, vB);
  }
  return best;
}

int tide_solid_collide_project(tide_tetmesh *m, tide_collider *const *c, int n, double dt, int simple,
                               int64_t *count) {
  if (!(dt > 0)) return tide_fail(TIDE_EINVAL, "collide: dt must be positive");
  for (int i = 0; i < n; i++)
    if (c[i]->dim != m->dim)
      return tide_fail(TIDE_EINVAL, "collide: collider %d is %dD, the mesh %dD", i + 1, c[i]->dim,
                       m->dim);
  int d = m->dim;
  double *x = TIDE_F64P(m->x), *v = TIDE_F64P(m->v);
  const uint8_t *pin = m->fem ? TIDE_U8P(m->fem->pinned) : NULL;
  int64_t cnt = 0;
#pragma omp parallel for schedule(static) reduction(+ : cnt) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    if (pin && pin[i]) continue;
    double xi[3] = {0, 0, 0}, phi, N[3], vB[3];
    for (int k = 0; k < d; k++) xi[k] = x[i * d + k];
    int b = tide_colliders_query(c, n, xi, &phi, N, vB);
    if (b < 0 || phi >= 0) continue;
    cnt++;
    for (int k = 0; k < d; k++) x[i * d + k] -= phi * N[k];
    double *vi = v + i * d, out[3];
    if (simple) {
      /* Zarifi 3.7: remove the relative normal velocity (inelastic) */
      double vn = 0, vbn = 0;
      for (int k = 0; k < d; k++) vn += vi[k] * N[k], vbn += vB[k] * N[k];
      for (int k = 0; k < d; k++) vi[k] += (vbn - vn) * N[k];
    } else {
      tide_friction_gamma(d, vi, vB, N, c[b]->mu, -phi / dt, out);
      for (int k = 0; k < d; k++) vi[k] = out[k];
    }
  }
  if (count) *count = cnt;
  return TIDE_OK;
}
