/*
 * mac_view.h -- a MAC field resolved once per operator call (face array
 * pointers, extents and strides) for the per-particle interpolation loops of
 * tide.liquid.  The arithmetic is that of tide_mac_interp_loc /
 * tide_mac_velocity in grid/grid.h (same results to the bit); only the
 * per-call work (array pointers, extents, the degenerate-axis offsets) is
 * hoisted out of the particle loop and the code is forced inline.
 */
#ifndef TIDE_LIQUID_MAC_VIEW_H
#define TIDE_LIQUID_MAC_VIEW_H

#include "liquid/particles.h"

#define MV_INLINE static inline __attribute__((always_inline))

typedef struct {
  const tide_grid *g;
  const double *f[3];
  int64_t s0[3], s1[3];    /* strides of axis a's face array along i and j */
  int64_t o0[3], o1[3], o2[3]; /* neighbour offsets (0 along an axis of one sample) */
} tide_mac_view;

MV_INLINE void tide_mac_view_init(const tide_mac *m, tide_mac_view *v) {
  const tide_grid *g = &m->grid;
  v->g = g;
  for (int a = 0; a < 3; a++) {
    int n[3] = {g->n[0], g->n[1], g->n[2]};
    n[a] += 1;
    v->f[a] = a < g->dim ? (const double *)tide_array_ptr(m->u[a]) : NULL;
    v->s1[a] = n[2];
    v->s0[a] = (int64_t)n[1] * n[2];
    v->o0[a] = n[0] > 1 ? v->s0[a] : 0;
    v->o1[a] = n[1] > 1 ? v->s1[a] : 0;
    v->o2[a] = n[2] > 1 ? 1 : 0;
  }
}

/* component a at the location loc (tide_grid_locate_axes): multilinear */
MV_INLINE double tide_mac_view_interp(const tide_mac_view *v, const double *f, int a,
                                      const tide_axis_loc loc[3]) {
  int b0 = a == 0 ? loc[0].bf : loc[0].bc, b1 = a == 1 ? loc[1].bf : loc[1].bc;
  int b2 = a == 2 ? loc[2].bf : loc[2].bc;
  double t0 = a == 0 ? loc[0].tf : loc[0].tc, t1 = a == 1 ? loc[1].tf : loc[1].tc;
  double t2 = a == 2 ? loc[2].tf : loc[2].tc;
  const double *p = f + (int64_t)b0 * v->s0[a] + (int64_t)b1 * v->s1[a] + b2;
  int64_t o0 = v->o0[a], o1 = v->o1[a], o2 = v->o2[a];
  double c00 = p[0] + t2 * (p[o2] - p[0]);
  double c01 = p[o1] + t2 * (p[o1 + o2] - p[o1]);
  double c10 = p[o0] + t2 * (p[o0 + o2] - p[o0]);
  double c11 = p[o0 + o1] + t2 * (p[o0 + o1 + o2] - p[o0 + o1]);
  double c0 = c00 + t1 * (c01 - c00), c1 = c10 + t1 * (c11 - c10);
  return c0 + t0 * (c1 - c0);
}

/* the velocity at x (dim components into vel) */
MV_INLINE void tide_mac_view_velocity(const tide_mac_view *v, const double *x, double *vel) {
  tide_axis_loc loc[3];
  tide_grid_locate_axes(v->g, x, loc);
  for (int a = 0; a < v->g->dim; a++) vel[a] = tide_mac_view_interp(v, v->f[a], a, loc);
}

/* Interpolated value of face array f of axis a at the location loc and the
 * gradient of the interpolant sum_f u_f grad w_f (dim entries into grad). */
MV_INLINE double tide_mac_view_interp_grad(const tide_grid *g, int a, const double *f, const tide_axis_loc loc[3],
                                          double *grad) {
  int b[3], n[3] = {g->n[0], g->n[1], g->n[2]};
  double t[3];
  n[a] += 1;
  for (int d = 0; d < 3; d++) {
    b[d] = d == a ? loc[d].bf : loc[d].bc;
    t[d] = d == a ? loc[d].tf : loc[d].tc;
  }
  int dim = g->dim, n1 = n[1], n2 = n[2];
  double val = 0, gr[3] = {0, 0, 0};
  for (int c0 = 0; c0 < 2; c0++) {
    double w0 = c0 ? t[0] : 1 - t[0], d0 = c0 ? 1 : -1;
    if (b[0] + c0 >= n[0]) continue;
    for (int c1 = 0; c1 < 2; c1++) {
      double w1 = c1 ? t[1] : 1 - t[1], d1 = c1 ? 1 : -1;
      if (b[1] + c1 >= n[1]) continue;
      for (int c2 = 0; c2 < (dim == 3 ? 2 : 1); c2++) {
        double w2 = dim == 3 ? (c2 ? t[2] : 1 - t[2]) : 1, d2 = c2 ? 1 : -1;
        if (b[2] + c2 >= n[2]) continue;
        double uf = f[((int64_t)(b[0] + c0) * n1 + b[1] + c1) * n2 + b[2] + c2];
        val += w0 * w1 * w2 * uf;
        gr[0] += d0 * w1 * w2 * uf;
        gr[1] += w0 * d1 * w2 * uf;
        gr[2] += w0 * w1 * d2 * uf;
      }
    }
  }
  double inv = 1.0 / g->dx;
  for (int d = 0; d < dim; d++) grad[d] = gr[d] * inv;
  return val;
}

/* G2P of one particle: the operator's fields and scheme, resolved once */
typedef struct {
  tide_mac_view V;    /* the new grid velocity u */
  const double *uo[3]; /* u_old's face arrays (FLIP) */
  tide_transfer scheme;
  double flip;
} tide_g2p_ctx;

/* Check the arguments of tide_liquid_g2p and fill G (transfer.c). */
int tide_g2p_prepare(const tide_particles *ps, const tide_mac *u, const tide_mac *u_old, tide_transfer scheme,
                     double flip, tide_g2p_ctx *G);

/* The G2P update of the particle at loc (see tide_liquid_g2p): velocity v
 * (dim) and, for APIC, its matrix c (dim x dim).  unew (may be NULL)
 * receives u(x), the interpolated new grid velocity, as tide_mac_velocity
 * gives it. */
MV_INLINE void tide_g2p_one(const tide_g2p_ctx *G, const tide_axis_loc loc[3], double *v, double *c,
                            double *unew) {
  int dim = G->V.g->dim;
  for (int a = 0; a < dim; a++) {
    const double *un = G->V.f[a];
    if (G->scheme == TIDE_TRANSFER_APIC) {
      v[a] = tide_mac_view_interp_grad(G->V.g, a, un, loc, c + a * dim);
      if (unew) unew[a] = tide_mac_view_interp(&G->V, un, a, loc);
    } else {
      double u1 = tide_mac_view_interp(&G->V, un, a, loc);
      if (G->scheme == TIDE_TRANSFER_FLIP) {
        double u0 = tide_mac_view_interp(&G->V, G->uo[a], a, loc);
        v[a] = G->flip * (v[a] + u1 - u0) + (1 - G->flip) * u1;
      } else {
        v[a] = u1;
      }
      if (unew) unew[a] = u1;
    }
  }
}

#endif
