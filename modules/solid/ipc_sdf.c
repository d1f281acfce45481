/*
 * ipc_sdf.c -- SDF colliders as IPC barriers: node-collider distance
 * barrier, its derivatives, normal forces and the conservative-advancement
 * step bound (see ipc.h).
 */
#include "solid/barrier.h"
#include "solid/ipc.h"

#include <math.h>
#include <string.h>

static inline int left_out(const tide_ipc_sdf *s, int64_t i) {
  return (s->pinned && s->pinned[i]) || !(s->mass[i] > 0);
}

static inline void node_pos(const tide_ipc_sdf *s, const double *x, int64_t i, double *xi) {
  xi[2] = 0;
  for (int k = 0; k < s->d; k++)
    xi[k] = x[i * s->d + k];
}

/* distance of point xi to collider c (its thickness subtracted), N its
 * outward normal (may be NULL) */
static inline double dist(const tide_collider *c, const double *xi, double *N) {
  return tide_collider_phi(c, xi, N) - c->thickness;
}

double tide_ipc_sdf_energy(const tide_ipc_sdf *s, const double *x) {
  double dh2 = s->dhat * s->dhat;
#pragma omp parallel for schedule(static) if (s->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < s->nv; i++) {
    double e = 0, xi[3];
    if (!left_out(s, i)) {
      node_pos(s, x, i, xi);
      for (int c = 0; c < s->nc; c++) {
        double dc = dist(s->c[c], xi, NULL);
        if (dc < s->dhat) e += dc > 0 ? tide_barrier(dc * dc, dh2) : INFINITY;
      }
    }
    s->tmp[i] = e;
  }
  double E = 0;
  for (int64_t i = 0; i < s->nv; i++)
    E += s->tmp[i]; /* node order: deterministic */
  return s->kappa * E;
}

int64_t tide_ipc_sdf_derivatives(const tide_ipc_sdf *s, const double *x, double *g, double *Vn) {
  int d = s->d;
  double dh2 = s->dhat * s->dhat;
  int64_t bad = s->nv;
#pragma omp parallel for schedule(static) reduction(min : bad) if (s->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < s->nv; i++) {
    if (left_out(s, i)) continue;
    double xi[3];
    node_pos(s, x, i, xi);
    for (int c = 0; c < s->nc; c++) {
      double N[3] = {0, 0, 0}, dc = dist(s->c[c], xi, N);
      if (!(dc < s->dhat) || !(dc > 0)) continue;
      double db, ddb;
      tide_barrier_eval(dc * dc, dh2, NULL, &db, &ddb);
      double gn = s->kappa * db * 2 * dc, hn = s->kappa * (4 * dc * dc * ddb + 2 * db);
      if (!(dc * dc > 0) || !isfinite(gn) || !isfinite(hn)) {
        if (i < bad) bad = i;
        continue;
      }
      if (hn < 0) hn = 0;
      for (int k = 0; k < d; k++)
        g[i * d + k] += gn * N[k];
      if (Vn)
        for (int a = 0; a < d; a++)
          for (int b = 0; b < d; b++)
            Vn[i * d * d + a * d + b] += hn * N[a] * N[b];
    }
  }
  return bad < s->nv ? bad : -1;
}

/* conservative advancement of point xi moving by p (|p| = lp > 0) against
 * collider c, d0 > 0 its distance: a step t in (0, tmax] with d >= s d0
 * along [0, t] when |grad phi| <= 1 */
static double advance(const tide_collider *c, const double *xi, const double *p, double lp,
                      double d0, double tmax) {
  const double keep = 0.1;
  if (lp * tmax <= (1 - keep) * d0) return tmax; /* cannot come within keep d0 */
  if (c->shape && c->shape->kind == TIDE_SHAPE_PLANE) {
    /* the distance is linear along the segment: exact */
    double N[3] = {0, 0, 0}, dn = 0;
    dist(c, xi, N);
    for (int k = 0; k < 3; k++)
      dn += N[k] * p[k];
    if (!(dn < 0)) return tmax;
    double t = (1 - keep) * d0 / -dn;
    return t < tmax ? t : tmax;
  }
  double t = 0, tl = (1 - keep) * d0 / lp;
  for (int it = 0; it < 10000; it++) {
    double xt[3];
    for (int k = 0; k < 3; k++)
      xt[k] = xi[k] + (t + tl) * p[k];
    double dc = dist(c, xt, NULL);
    if (t > 0 && dc < keep * d0) break; /* the last advance went below the kept gap: not taken */
    t += tl;
    if (t >= tmax) return tmax;
    tl = 0.9 * dc / lp; /* the distance stays >= 0.1 dc > 0 over this advance */
  }
  return t < tmax ? t : tmax;
}

double tide_ipc_sdf_step_bound(const tide_ipc_sdf *s, const double *x, const double *p,
                               double tmax) {
  double alpha = tmax;
#pragma omp parallel for schedule(dynamic, 256) reduction(min                                      \
                                                          : alpha) if (s->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < s->nv; i++) {
    if (left_out(s, i)) continue;
    double xi[3], pi[3] = {0, 0, 0}, lp = 0;
    node_pos(s, x, i, xi);
    for (int k = 0; k < s->d; k++)
      pi[k] = p[i * s->d + k], lp += pi[k] * pi[k];
    lp = sqrt(lp);
    if (!(lp > 0)) continue;
    for (int c = 0; c < s->nc; c++) {
      double d0 = dist(s->c[c], xi, NULL);
      double t = d0 > 0 ? advance(s->c[c], xi, pi, lp, d0, tmax) : 0;
      if (t < alpha) alpha = t;
    }
  }
  return alpha;
}

double tide_ipc_sdf_min_distance(const tide_ipc_sdf *s, const double *x, int64_t *node,
                                 int *collider) {
  double best = HUGE_VAL;
  int64_t bi = -1;
  int bc = -1;
  for (int64_t i = 0; i < s->nv; i++) {
    if (left_out(s, i)) continue;
    double xi[3];
    node_pos(s, x, i, xi);
    for (int c = 0; c < s->nc; c++) {
      double dc = dist(s->c[c], xi, NULL);
      if (dc < best) best = dc, bi = i, bc = c;
    }
  }
  if (node) *node = bi;
  if (collider) *collider = bc;
  return best;
}

int64_t tide_ipc_sdf_forces(const tide_ipc_sdf *s, const double *x, double dt, double *lambda,
                            int32_t *body) {
  double dh2 = s->dhat * s->dhat;
  int64_t cnt = 0;
#pragma omp parallel for schedule(static) reduction(+ : cnt) if (s->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < s->nv; i++) {
    double best = 0;
    int b = -1;
    if (!left_out(s, i)) {
      double xi[3];
      node_pos(s, x, i, xi);
      for (int c = 0; c < s->nc; c++) {
        double dc = dist(s->c[c], xi, NULL);
        if (!(dc < s->dhat) || !(dc > 0)) continue;
        double lam = -s->kappa * tide_barrier_gradient(dc * dc, dh2) * 2 * dc / (dt * dt);
        if (b < 0 || lam > best) best = lam, b = c;
      }
    }
    lambda[i] = b >= 0 ? best : 0;
    body[i] = b + 1;
    cnt += b >= 0;
  }
  return cnt;
}
