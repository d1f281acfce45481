/*
 * contact.h -- collider contacts as bound constraints of a minimization over
 * the node positions of a mesh (projected Newton, Bertsekas 1982), shared
 * by the implicit integrator (integrate.c, step_newton) and the static
 * solver (static.c):
 *   - iterates are projected onto the colliders (phi(x_i) >= 0 for every
 *     free node);
 *   - a node within eps of a collider whose gradient g_i points into it
 *     (g_i . N > 0) is active: its directions N (orthonormalized, a node can
 *     be held by two colliders) are stored as the rows of Q_i (d x d per
 *     node) and their count in na[i];
 *   - the Newton system becomes P H P (+ M) p = -P g with P_i = I - sum q q^T
 *     at active nodes: P H P keeps the sparsity pattern of H and stays PSD
 *     when H is.
 * A node is free when skip == NULL ? it is neither pinned nor massless
 * (dynamics) : skip[i] == 0.
 */
#ifndef TIDE_SOLID_CONTACT_H
#define TIDE_SOLID_CONTACT_H

#include "solid/collide.h"
#include "solid/fem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Project the free nodes of x (nv*d) out of the colliders (the deepest
 * first, a few passes for fields whose distance is not exact or that
 * overlap); returns the number of nodes moved. */
int64_t tide_contacts_project(const tide_tetmesh *m, const uint8_t *skip, tide_collider *const *c,
                              int nc, double *x);

/* The active set at x with gradient g (nv*d): na (nv) and Q (nv*d*d);
 * a touching node is active when g . N > gmin (0 in dynamics; slightly
 * negative in statics, where a node resting on a collider with no force
 * yet must not leave the system singular).  Returns the number of active
 * nodes. */
int64_t tide_contacts_active(const tide_tetmesh *m, const uint8_t *skip, tide_collider *const *c,
                             int nc, const double *x, const double *g, double eps, double gmin,
                             uint8_t *na, double *Q);

/* y_i <- P_i y_i at active nodes (y: nv*d). */
void tide_contacts_tangential(const tide_tetmesh *m, const uint8_t *na, const double *Q, double *y);

/* Element Hessian blocks V (the volume elements' (nper d)^2 blocks, then
 * the shells' and rods' stencil blocks, row-major, as fem.h / thin.h write
 * them: tide_fem_elem_nnz entries): B_ab <- P_a B_ab P_b. */
void tide_contacts_constrain_elements(const tide_tetmesh *m, const uint8_t *na, const double *Q,
                                      double *V);

/* Per-node d x d blocks V (nv * d * d): B_i <- P_i B_i P_i. */
void tide_contacts_constrain_nodes(const tide_tetmesh *m, const uint8_t *na, const double *Q,
                                   double *V);

/* nblocks row-major blocks of nn nodes' (nn d)^2 triplets (I, V, as
 * tide_fem_write_block writes them at offset 0, e.g. IPC's pair blocks): the
 * node of slot b is I[block start + b d (nn d)] / d; B_ab <- P_a B_ab P_b. */
void tide_contacts_constrain_triplet_blocks(const tide_tetmesh *m, const uint8_t *na,
                                            const double *Q, int nn, int64_t nblocks,
                                            const int *I, double *V);

#ifdef __cplusplus
}
#endif
#endif
