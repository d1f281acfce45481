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

#include "grid/grid.h"

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

#endif
