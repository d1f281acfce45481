/*
 * ccd.h -- continuous collision detection for Incremental Potential
 * Contact: additive CCD (Li, Kaufman & Jiang 2021, "Codimensional
 * Incremental Potential Contact", Sec. 5 and Alg. 1), a conservative time
 * of impact for a point-triangle, edge-edge or point-edge pair moving
 * linearly from x to x + t p, t in [0, tmax].
 *
 * With the stencil's displacements made relative (their mean removed), l_p
 * = max |p_i| over the first primitive + max |p_j| over the second bounds
 * the rate at which their distance can shrink: from distance d the pair
 * can advance by (1 - s) d / l_p (first step, d0 the start distance, s in
 * (0, 1) the fraction kept, 0.1 in IPC) and then by 0.9 d / l_p without
 * coming closer than s d0, resp. 0.1 d.  The iteration advances by such
 * steps until a step ends below s d0 (that step is not taken) or tmax is
 * passed.  Every returned t keeps the pair apart along the whole straight
 * path [0, t] and at distance >= s d0 at t (a Lipschitz bound, not a
 * sample).
 *
 * The Lipschitz step cannot tell tangential from normal motion: a pair
 * sliding at a tiny gap d needs ~l_p / d iterations.  So each advance is
 * the larger of it and a separating-plane step: for a unit n the distance
 * is at least L(tau) = min_ij n . (y_j - y_i)(tau) over the two
 * primitives' points, a minimum of linear functions of tau, whose first
 * crossing of s d0 is exact (n: the closest points' direction and the
 * feature's own normal, c_ij lowered by a rounding bound); a sliding or
 * rigidly approaching pair takes one or two iterations.  A search whose
 * plane step is stopped by that margin with 90% of the allowed closing
 * used ends there (ACCD would creep on).  Plain C, no state.
 */
#ifndef TIDE_SOLID_CCD_H
#define TIDE_SOLID_CCD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Work counters, accumulated by the calls that take one (may be NULL):
 * iterations = distance evaluations, capped = searches stopped by
 * max_iter (their step is the safe t reached, only shorter). */
typedef struct tide_ccd_work {
  int64_t iterations, capped;
} tide_ccd_work;

/* The conservative step t in [0, tmax] for the pair at x (stencil
 * positions as in distance.h: point-triangle (p, a, b, c), edge-edge (a0,
 * a1, b0, b1), point-edge (p, a, b) in 2D or 3D) moving by dx.  s: the kept
 * fraction of the distance (0 < s < 1, e.g. 0.1); max_iter bounds the
 * iterations (the step then returned is still safe, only shorter).  A pair
 * already in contact (distance 0) returns 0. */
double tide_ccd_point_triangle(const double *x, const double *dx, double s, double tmax,
                               int max_iter);
double tide_ccd_edge_edge(const double *x, const double *dx, double s, double tmax, int max_iter);
double tide_ccd_point_edge_2d(const double *x, const double *dx, double s, double tmax,
                              int max_iter);
double tide_ccd_point_edge_3d(const double *x, const double *dx, double s, double tmax,
                              int max_iter);

/* With minimum separation xi >= 0 (a contact offset: shell thickness,
 * rod radius; Codimensional IPC): the same iteration on the gap d - xi, so
 * the returned t keeps the pair's distance > xi along [0, t] and >= xi +
 * s (d0 - xi) at t; a pair at distance <= xi returns 0.  kind: 0
 * point-triangle, 1 edge-edge, 2 point-edge (3D). */
double tide_ccd_pair_offset(int kind, const double *x, const double *dx, double xi, double s,
                            double tmax, int max_iter, tide_ccd_work *work);

#ifdef __cplusplus
}
#endif
#endif
