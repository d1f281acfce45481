/*
 * ipc.h -- Incremental Potential Contact among the primitives of one mesh
 * (Li et al. 2020): the barrier potential kappa sum b(d^2, dhat^2) over the
 * point-triangle and edge-edge pairs closer than dhat (edge-edge mollified),
 * with gradient and PSD-projected Hessian blocks, and the line search's
 * step bound from additive CCD, for step_newton (integrate.c).  3D meshes:
 * the points are the nodes of the boundary triangles (shells: all
 * triangles) and of the rod segments, the triangles the mesh's boundary,
 * the edges tide_mesh_edges.  Candidate pairs come from the spatial hash
 * (broadphase.h) with the margin dhat plus the largest motion of the step
 * about to be searched, so every pair the line search can bring within
 * dhat is seen.  Distances are squared (distance.h); kappa has the units of
 * the incremental potential per m^4.
 */
#ifndef TIDE_SOLID_IPC_H
#define TIDE_SOLID_IPC_H

#include "solid/fem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tide_ipc tide_ipc;

/* Contact state of mesh m (3D) with threshold dhat [m] and stiffness kappa
 * (<= 0: IPC's kappa_min for the mesh's average nodal mass and bounding
 * box, barrier.h).  Fails for 2D meshes. */
int tide_ipc_new(const tide_tetmesh *m, double dhat, double kappa, tide_ipc **out);
void tide_ipc_free(tide_ipc *c);
size_t tide_ipc_bytes(const tide_ipc *c);
double tide_ipc_kappa(const tide_ipc *c);

/* Candidate pairs at x for motions up to |move|_inf [m]. */
int tide_ipc_update(tide_ipc *c, const double *x, double move);

/* The smallest distance over the candidates at x [m] (HUGE_VAL if none),
 * and the first pair at distance 0 (intersecting or touching) as a
 * message-ready description: returns 1 and fills kind (0 point-triangle,
 * 1 edge-edge) and the four nodes. */
double tide_ipc_min_distance(const tide_ipc *c, const double *x, int *touching, int *kind,
                             int32_t *nodes);

/* kappa sum b at x (+inf when a candidate pair touches). */
double tide_ipc_energy(const tide_ipc *c, const double *x);
/* g += kappa d(sum b)/dx. */
void tide_ipc_gradient(const tide_ipc *c, const double *x, double *g);
/* The active pairs' 12x12 blocks (PSD projected) as triplets: allocates
 * *I, *J, *V (count *n, indices shifted by none), rows/columns of pinned
 * nodes zeroed (pinned may be NULL); free with tide_ipc_triplets_free. */
int tide_ipc_hessian(const tide_ipc *c, const double *x, const uint8_t *pinned, int64_t *n,
                     int **I, int **J, double **V);
void tide_ipc_triplets_free(int64_t n, int *I, int *J, double *V);

/* The largest step alpha in (0, 1] along p from x that keeps every
 * candidate pair apart (additive CCD, s = 0.1). */
double tide_ipc_step_bound(const tide_ipc *c, const double *x, const double *p);

#ifdef __cplusplus
}
#endif
#endif
