/*
 * distance.h -- squared distances between the primitives of Incremental
 * Potential Contact (Li et al. 2020, Sec. 4 and supplement): point-triangle
 * and edge-edge in 3D, point-edge in 2D, with gradients and Hessians, and
 * the edge-edge mollifier for nearly parallel edges.
 *
 * Each distance is evaluated on the closest pair of features (the
 * "distance type": a vertex, an edge or the face's interior), found from
 * the current positions; within one type the squared distance is one of
 * the smooth closed forms (v_k are differences of the stencil's points)
 *     point-point   |v1|^2
 *     point-line    |v1 x v2|^2 / |v2|^2                      (3D; 2D: (v1 x v2)^2 / |v2|^2)
 *     point-plane   (v1 . (v2 x v3))^2 / |v2 x v3|^2            (v1 = p - a, v2 = b - a, v3 = c - a)
 *     line-line     (v1 . (v2 x v3))^2 / |v2 x v3|^2            (v1 = b0 - a0, v2 = a1 - a0, v3 = b1 - b0)
 * whose gradients and Hessians are exact (the squared distance is C1 across
 * type boundaries and its Hessian jumps there, as in IPC).  Outputs over the
 * stencil's coordinates, row-major: point-triangle / edge-edge 12 (p, a, b,
 * c / a0, a1, b0, b1), Hessian 144; point-edge 2D 6 (p, a, b), Hessian 36.
 * Any output may be NULL.  Plain C, no state.
 */
#ifndef TIDE_SOLID_DISTANCE_H
#define TIDE_SOLID_DISTANCE_H

#ifdef __cplusplus
extern "C" {
#endif

/* distance types: which features are closest */
enum {
  TIDE_DIST_PP = 0, /* point-point */
  TIDE_DIST_PE = 1, /* point-line */
  TIDE_DIST_PT = 2, /* point-plane (triangle interior) */
  TIDE_DIST_EE = 3  /* line-line (edge interiors) */
};

/* Squared distance between point p and triangle (a, b, c); returns the
 * type (the closest feature).  x = (p, a, b, c). */
int tide_dist_point_triangle(const double *x, double *d2, double *grad, double *hess);

/* Squared distance between edges (a0, a1) and (b0, b1); x = (a0, a1, b0,
 * b1).  Parallel edges (|e_a x e_b|^2 <= 1e-20 |e_a|^2 |e_b|^2) take the
 * closest endpoint-edge pair. */
int tide_dist_edge_edge(const double *x, double *d2, double *grad, double *hess);

/* Squared distance between point p and segment (a, b) in 2D; x = (p, a, b). */
int tide_dist_point_edge_2d(const double *x, double *d2, double *grad, double *hess);

/* ... and in 3D (x: 9, Hessian 81). */
int tide_dist_point_edge_3d(const double *x, double *d2, double *grad, double *hess);

/* IPC's edge-edge mollifier (Li et al. 2020, Eq. 17, supplement Sec. 4.2):
 * with c = |e_a x e_b|^2 and eps_x = 1e-3 |E_a|^2 |E_b|^2 (rest edges),
 *     m = (2 - c / eps_x) c / eps_x   for c < eps_x,   1 otherwise,
 * C1 at c = eps_x; the barrier of a nearly parallel pair is m b(d).
 * x = (a0, a1, b0, b1); grad 12, hess 144. */
double tide_edge_mollifier_eps(const double *rest);
void tide_edge_mollifier(const double *x, double eps_x, double *m, double *grad, double *hess);

#ifdef __cplusplus
}
#endif
#endif
