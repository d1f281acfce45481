/*
 * collide.h -- collision objects for deformable solids (tide.solid): rigid
 * bodies given by signed distance functions, moving and rotating with a
 * scripted velocity, with Coulomb friction (Irving, thesis ch. 3), and
 * Zarifi's simple wall projection (thesis 3.7).
 *
 * A collider is a shape (modules/grid/sdf.h) or a sampled distance field on
 * a grid, in its body frame, placed in the world by a rigid motion
 *     x = R y + p,   phi_world(x) = phi_body(R^T (x - p)),
 * moving with linear velocity vel [m/s] and angular velocity omega [rad/s]
 * (about p): the body velocity at x is v_B = vel + omega x (x - p) (2D:
 * omega is the scalar about z, stored in omega[2]).  Outward normal
 * N = grad phi / |grad phi| (central differences).
 */
#ifndef TIDE_SOLID_COLLIDE_H
#define TIDE_SOLID_COLLIDE_H

#include "grid/grid.h"
#include "grid/sdf.h"
#include "solid/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tide_collider {
  int dim;
  tide_shape *shape;  /* analytic shape (retained), or NULL for a grid field */
  tide_grid grid;     /* sampled field: cell-centred phi on grid (shape == NULL) */
  tide_array *phi;    /* (retained) */
  double pos[3];      /* p [m] */
  double rot[9];      /* R, row-major, proper rotation */
  double vel[3];      /* [m/s] */
  double omega[3];    /* [rad/s] (2D: omega[2]) */
  double mu;          /* Coulomb friction coefficient (0: frictionless) */
  double thickness;   /* collision margin [m]: phi < thickness counts as contact */
} tide_collider;

/* New collider at rest at the identity placement (shape retained). */
int tide_collider_new_shape(tide_shape *shape, double mu, tide_collider **out);
/* Sampled field: phi has the cell shape of g (f64), retained; outside the
 * grid the distance to the grid box is added. */
int tide_collider_new_grid(const tide_grid *g, tide_array *phi, double mu, tide_collider **out);
void tide_collider_free(tide_collider *c);

/* Advance the placement by dt with the current velocities (p += vel dt,
 * R = exp(dt [omega]x) R by Rodrigues' formula). */
int tide_collider_advance(tide_collider *c, double dt);

/* phi(x) in the world [m]; N (may be NULL) receives the outward unit normal. */
double tide_collider_phi(const tide_collider *c, const double *x, double *N);
/* Body velocity at x. */
void tide_collider_velocity(const tide_collider *c, const double *x, double *vB);

/* Irving's Gamma (thesis 3.2): remove the inward relative normal velocity
 * and apply the friction it implies:
 *   v*_N = max(v_N, v_BN),
 *   v*_T = v_BT + max(0, 1 - mu (v*_N - v_N) / |v_T,rel|) v_T,rel,
 * with N the outward normal; out may alias v.  extra_dvn >= 0 adds to the
 * normal velocity change that drives friction (e.g. the position
 * correction dx_N / dt of thesis 2.9). */
void tide_friction_gamma(int d, const double *v, const double *vB, const double *N, double mu,
                         double extra_dvn, double *out);

/* The deepest collider at x among n: returns its index (or -1 if none has
 * phi(x) < its thickness) and fills phi, N, vB. */
int tide_colliders_query(tide_collider *const *c, int n, const double *x, double *phi, double *N,
                         double *vB);

/* Post-step contact processing of a mesh (Irving 2.9; Zarifi 3.7 when
 * simple != 0): every node with phi(x) < 0 is projected to the surface
 * along N; its velocity gets the body's normal velocity if it moves into
 * the body, and (simple == 0) the friction of the normal velocity and
 * position change, with mu of the collider; simple != 0 is Zarifi's wall
 * projection (inelastic, frictionless: the relative normal velocity is
 * removed).  Pinned nodes are left alone.  `count` (may be NULL) returns
 * the number of nodes processed. */
int tide_solid_collide_project(tide_tetmesh *m, tide_collider *const *c, int n, double dt, int simple,
                               int64_t *count);

#ifdef __cplusplus
}
#endif
#endif
