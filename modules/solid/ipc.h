/*
 * ipc.h -- Incremental Potential Contact among the primitives of one mesh
 * (Li et al. 2020): the barrier potential kappa sum b(d^2, dhat^2) over the
 * point-triangle, edge-edge and point-edge pairs closer than dhat
 * (edge-edge mollified), with gradient and PSD-projected Hessian blocks,
 * and the line search's step bound from additive CCD, for step_newton
 * (integrate.c).  3D meshes: the points are the nodes of the boundary
 * triangles (shells: all triangles) and of the rod segments, the triangles
 * the mesh's boundary, the edges tide_mesh_edges.
 *
 * The edge-edge barrier is multiplied by IPC's mollifier (distance.h), 0
 * for exactly parallel edges: on a surface the point-triangle pairs of the
 * edges' endpoints hold such contact, but a codimensional edge (a rod
 * segment, on no triangle) has no triangle.  As in Codimensional IPC (Li,
 * Kaufman & Jiang 2021), every point therefore also pairs with every
 * codimensional edge not holding it, with the unmollified barrier on the
 * point-edge distance (its type point-point or point-line, distance.h):
 * C1 in the positions, never 0 while the point is apart from the edge, so
 * two exactly parallel rods repel through their nodes against the other's
 * segments.  Where an edge-edge pair's closest features are an endpoint and
 * an edge, its mollified term and the point-edge pair count the same
 * distance (IPC counts such duplicates between its point-triangle and
 * edge-edge pairs the same way); the sum is continuous.
 *
 * Candidate pairs come from the spatial hash (broadphase.h) with the
 * margin dhat plus the largest motion of the step about to be searched, so
 * every pair the line search can bring within dhat is seen.  Distances are squared (distance.h); kappa has the units of
 * the incremental potential per m^4.
 */
#ifndef TIDE_SOLID_IPC_H
#define TIDE_SOLID_IPC_H

#include "solid/ccd.h"
#include "solid/collide.h"
#include "solid/fem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tide_ipc tide_ipc;

/* Contact state of mesh m (3D) with threshold dhat [m] and stiffness kappa
 * (<= 0: IPC's kappa_min for the mesh's average nodal mass and bounding
 * box, barrier.h).  2D meshes (rods, triangle meshes' boundary segments):
 * every segment is codimensional, the pairs are the point-edge ones (IPC
 * in 2D), evaluated on the positions lifted to z = 0 (the 3D point-edge
 * distance, CCD and friction there are the 2D ones; only the in-plane
 * rows of gradients and Hessian blocks are kept); all x, p, g below are
 * (nv, dim). */
int tide_ipc_new(const tide_tetmesh *m, double dhat, double kappa, tide_ipc **out);
void tide_ipc_free(tide_ipc *c);
size_t tide_ipc_bytes(const tide_ipc *c);
double tide_ipc_kappa(const tide_ipc *c);
void tide_ipc_set_kappa(tide_ipc *c, double kappa);
/* The contact offset xi [m] (default 0; Codimensional IPC, Li, Kaufman &
 * Jiang 2021, ipc-toolkit's dmin): the sum of the two primitives' half
 * thicknesses (shells h/2 each, rods their radius), uniform over the mesh.
 * Each pair's barrier becomes b(d^2 - xi^2, dhat^2 + 2 xi dhat): active for
 * distances in (xi, xi + dhat), infinite at xi; the CCD keeps the gap
 * d - xi (ccd.h tide_ccd_pair_offset); tide_ipc_min_distance reports the
 * gap d - xi (touching: gap <= 0); candidates within dhat + xi.  xi < 0 or
 * non-finite: TIDE_EINVAL. */
int tide_ipc_set_offset(tide_ipc *c, double xi);
double tide_ipc_offset(const tide_ipc *c);

/* IPC's kappa_min (barrier.h) for mesh m: its mean nodal mass and the
 * diagonal of its rest bounding box, threshold dhat [m] (squared
 * distances: dhat^2). */
double tide_ipc_kappa_default(const tide_tetmesh *m, double dhat);

/* Candidate pairs at x for motions up to |move|_inf [m]. */
int tide_ipc_update(tide_ipc *c, const double *x, double move);

/* The smallest distance over the candidates at x [m] (HUGE_VAL if none),
 * and the first pair at distance 0 (intersecting or touching) as a
 * message-ready description: sets *touching to 1 and fills kind (0
 * point-triangle, 1 edge-edge, 2 point-edge: nodes[3] repeats nodes[2])
 * and the four nodes.  When no pair touches (*touching = 0) kind and
 * nodes describe the closest pair (the first of equals; untouched when
 * there is no candidate). */
double tide_ipc_min_distance(const tide_ipc *c, const double *x, int *touching, int *kind,
                             int32_t *nodes);

/* kappa sum b at x (+inf when a candidate pair touches). */
double tide_ipc_energy(const tide_ipc *c, const double *x);
/* g += kappa d(sum b)/dx. */
void tide_ipc_gradient(const tide_ipc *c, const double *x, double *g);
/* The active pairs' 12x12 blocks (PSD projected) as triplets: allocates
 * *I, *J, *V (count *n, indices shifted by none), rows/columns of pinned
 * nodes zeroed (pinned may be NULL); free with tide_ipc_triplets_free.
 * TIDE_ENONFINITE (nothing allocated, a message naming the pair) when a
 * pair's distance underflowed so far that its barrier Hessian is not
 * finite (kappa far too small for the load). */
int tide_ipc_hessian(const tide_ipc *c, const double *x, const uint8_t *pinned, int64_t *n,
                     int **I, int **J, double **V);
void tide_ipc_triplets_free(int64_t n, int *I, int *J, double *V);
/* "a point and a rod segment (nodes 3 | 7 8)": a contact pair of kind
 * `kind` (tide_ipc_min_distance's) with stencil nodes nd (printed 1-based)
 * described into buf (128 chars); returns buf. */
const char *tide_ipc_pair_text(int kind, const int32_t *nd, char *buf);

/* The largest step alpha in (0, 1] along p from x that keeps every
 * candidate pair apart (additive CCD, s = 0.1, at most
 * TIDE_IPC_CCD_MAX_ITER iterations per pair). */
#define TIDE_IPC_CCD_MAX_ITER 100000
double tide_ipc_step_bound(tide_ipc *c, const double *x, const double *p);
/* ... keeping the fraction keep in (0, 1) of each pair's distance. */
double tide_ipc_step_bound_keep(tide_ipc *c, const double *x, const double *p, double keep);
/* The CCD work of the step bounds since tide_ipc_new (iterations, pairs
 * whose search hit the cap). */
tide_ccd_work tide_ipc_ccd_work(const tide_ipc *c);

/* Friction between the mesh's primitives (Li et al. 2020, Sec. 5; the
 * lagged smoothed friction of friction.h on the pairs): at the lag point
 * xref every candidate pair closer than dhat becomes a frictional contact
 * with its closest-point weights w (point-triangle (1, -b0, -b1, -b2),
 * edge-edge (1 - s, s, -(1 - t), -t); from the distance gradient, grad_a =
 * 2 w_a r with r the vector between the closest points), the normal
 * N = r / |r|, its tangent basis and the normal force
 *     lambda = -kappa m b'(d^2, dhat^2) 2 d / dt^2   [N]
 * (m the edge-edge mollifier, 1 for point-triangle).  The energy,
 * gradient and Hessian above then include dt^2 sum mu lambda f0(|T^T du|)
 * with du = x - xn over each pair's four nodes (eps_u = eps_v dt; the
 * 12x12 friction blocks are exact and PSD).  The candidates are updated at
 * xref.  Returns the largest change of the per-node sum of mu lambda |w_a|
 * against the previous lag, relative to the largest new one, in *change;
 * mu = 0 turns friction off.  xn must stay valid while friction is on. */
int tide_ipc_friction_lag(tide_ipc *c, const double *xref, const double *xn, double mu,
                          double dt, double eps_v, double *change);
/* Frictional pairs of the current lag. */
int64_t tide_ipc_friction_count(const tide_ipc *c);

/* ------------------------------------------ SDF colliders as barriers
 *
 * contact = "barrier" of step_newton: the colliders (collide.h, at their
 * placement for the step) enter the incremental potential through the same
 * barrier as the mesh's pairs instead of as bound constraints.  Every free
 * node i (not pinned, positive mass) and collider c at distance
 * d = phi_c(x_i) - thickness_c [m] with d < dhat add
 *     kappa b(d^2, dhat^2)                       (barrier.h, squared distances)
 * with gradient kappa b' 2 d N (N = grad phi, the outward unit normal) and
 * the Hessian block kappa (4 d^2 b'' + 2 b') N N^T (>= 0 on (0, dhat)).  The
 * collider's curvature term kappa 2 d b' grad^2 phi (relative size d / R, R
 * the radius of curvature) is left out: a Gauss-Newton block, PSD without
 * projection (for a convex collider the dropped term is negative
 * semidefinite, so the block is the stiffer one).  The normal force of the
 * contact is lambda = -kappa b' 2 d / dt^2 [N] (the potential is in the
 * integrator's units, dt^2 times energy), which drives the lagged friction.
 * The step bound is conservative advancement on the distance field: along
 * x + t p the distance falls at most |p| per unit t when |grad phi| <= 1 (a
 * true distance or a lower bound of one, as tide.shape's primitives; a
 * plane's distance is linear in t and its bound exact); every returned step
 * keeps d >= s d_0 along the whole segment, s = 0.1.  Node loops are
 * OpenMP-parallel over nodes; sums are taken in node order (deterministic).
 */
typedef struct tide_ipc_sdf {
  tide_collider *const *c; /* colliders */
  int nc;
  double dhat, kappa;
  int d;                 /* dimension of the mesh (2 or 3) */
  int64_t nv;            /* nodes */
  const uint8_t *pinned; /* (nv) or NULL */
  const double *mass;    /* (nv): a node of mass <= 0 is left out */
  double *tmp;           /* (nv) scratch for the per-node sums */
} tide_ipc_sdf;

/* kappa sum b at x (+inf when a free node touches or is inside a collider). */
double tide_ipc_sdf_energy(const tide_ipc_sdf *s, const double *x);
/* g += the barrier's gradient; Vn (nv d x d blocks, row-major, may be NULL)
 * += its Hessian blocks.  Returns -1, or the first node whose distance
 * underflowed so far that its barrier terms are not finite (0 < d, d^2 =
 * 0, or b', b'' overflowed: kappa far too small for the load); that
 * node's terms are left out and the caller must fail. */
int64_t tide_ipc_sdf_derivatives(const tide_ipc_sdf *s, const double *x, double *g, double *Vn);
/* The largest step t in (0, tmax] along p from x keeping every free node
 * apart from every collider (conservative advancement, see above). */
double tide_ipc_sdf_step_bound(const tide_ipc_sdf *s, const double *x, const double *p,
                               double tmax);
/* The smallest distance of a free node to a collider at x [m] (HUGE_VAL if
 * none), and that node and collider (0-based; may be NULL). */
double tide_ipc_sdf_min_distance(const tide_ipc_sdf *s, const double *x, int64_t *node,
                                 int *collider);
/* Per node the normal force of the collider pressing hardest,
 * lambda_i = -kappa b'(d^2) 2 d / dt^2 [N] (0: none), and that collider
 * 1-based in body (0: none); returns the number of nodes in contact
 * (d < dhat). */
int64_t tide_ipc_sdf_forces(const tide_ipc_sdf *s, const double *x, double dt, double *lambda,
                            int32_t *body);

#ifdef __cplusplus
}
#endif
#endif
