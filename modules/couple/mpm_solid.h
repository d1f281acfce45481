/*
 * mpm_solid.h -- two-way coupling of an MPM state (tide.mpm) with a
 * tide.solid FEM mesh through the MPM's momentum grid (tide.couple.mpm_solid).
 *
 * Scheme (grid contact of two bodies on one node grid: Hu, Fang, Ge, Qu,
 * Zhu, Pradhana & Jiang 2018, "A moving least squares material point method
 * with displacement discontinuity and two-way rigid body coupling", Sec. 5;
 * Bardenhagen, Brackbill & Sulsky 2000, "The material-point method for
 * granular materials", multi-velocity contact):
 *
 *   0. The MPM step up to its grid velocities v_i (P2G with the stresses,
 *      gravity, walls: tide_mpm_p2g, tide_mpm_grid_update).  The mesh holds
 *      x^n, v^n from its last step (its gravity and elastic forces of the
 *      coming step not yet applied: an explicit, lagged exchange).
 *   1. Surface samples.  Every boundary face f (2D segment, 3D triangle) of
 *      the mesh at its current positions is cut into k_f parts (k_f^2
 *      sub-triangles in 3D), k_f = ceil(length / (spacing dx)) (3D: the
 *      longest edge); sample q at the centroid of part, barycentric weights
 *      beta_qa on the face's nodes a.  c_qa = beta_qa / S_a, S_a = sum over
 *      all samples of beta_qa, so sum_q c_qa = 1: the boundary nodes' lumped
 *      masses m_a are split among the samples exactly,
 *        m_q = sum_a c_qa m_a,  m_q v_q = sum_a c_qa m_a v_a,
 *      n_q the face's outward unit normal.  Pinned (kinematic) nodes count
 *      into m_q, v_q and mark their samples kinematic.
 *   2. Rasterize with the particles' B-spline weights w_iq (tide_mpm_stencil),
 *      affinely as APIC does (G_q = Dv Ds^-1 the velocity gradient of the
 *      element owning the sample's face: a rigid rotation reaches the nodes
 *      off the surface as omega x (x_i - c), not as the surface speed):
 *        M_i = sum_q w_iq m_q,  P_i = sum_q w_iq m_q (v_q + G_q (x_i - x_q)),
 *        N_i = sum_q w_iq m_q n_q,
 *      K_i = sum of w_iq m_q over kinematic samples; V_i = P_i / M_i.
 *   3. Contact at every node with both masses (m_i > 0, M_i > 0, |N_i| > 0),
 *      normal n = N_i/|N_i| (out of the mesh), relative velocity
 *      u = v_i - V_i, u_n = u.n.  Separating contact (bc SEPARATE): only an
 *      approaching u_n < 0 is removed, by the impulse on the MPM node
 *        j = -mu_r (u_n n + s u_t),  s = min(1, friction |u_n| / |u_t|)
 *      (Coulomb: the tangential impulse at most friction times the normal
 *      one), mu_r = m_i M_i / (m_i + M_i) the reduced mass (both velocities
 *      meet at their common normal velocity, an inelastic contact), or
 *      mu_r = m_i where K_i > 0 (the kinematic mesh does not yield).
 *      STICKY: j = -mu_r u whenever both have mass.  v_i += j / m_i and the
 *      mesh's grid velocity changes by dV_i = -j / M_i.
 *   3a. Contact distance (SEPARATE).  The stencils of the two bodies overlap
 *      up to 3 cells before their surfaces touch; the contact acts at node i
 *      only where the MPM body there is actually at the mesh's surface (as
 *      CPIC's particle-side test, Hu et al. 2018 Sec. 4, and the position
 *      check of multi-material grid contact): with the node's surface plane
 *      n.y = h_i, h_i = n.X_i / M_i, X_i = sum_q w_iq m_q x_q, the gap of
 *      particle p is g_p = n.x_p - h_i - r_p (r_p = V_p^0^(1/d) / 2 its half
 *      size), D_i = min g_p over the particles with w_ip > 0, and the
 *      impulse acts only if the gap predicted at the end of the step,
 *      D_i + dt u_n, is below distance * dx.  Only which nodes act changes:
 *      the exchange is as exact as before.
 *   3b. Penetration target (SEPARATE): where D_i < 0 the contact acts while
 *      u_n < u_g = 0.01 |D_i| / dt, j = -mu_r ((u_n - u_g) n + s u_t) (the
 *      velocity-level contact alone drifts into a deforming mesh: a resting
 *      block sank into a free slab, not into a pinned one).  An impulse like
 *      the others: exchanged exactly.
 *   4. Back to the mesh as FLIP increments with the transpose of the same
 *      weights: dv_q = sum_i w_iq dV_i, impulse J_q = m_q dv_q,
 *      J_a = sum_q c_qa m_a dv_q (the transpose of step 1), and every free
 *      node gets v_a += J_a / m_a (pinned nodes keep their prescribed
 *      velocity; their J_a is the reaction the support takes).
 *      sum_a J_a = sum_q m_q dv_q = sum_i M_i dV_i = -sum_i j_i: the mesh
 *      receives exactly the momentum the MPM nodes lose (to round-off).
 *   5. The mesh then takes its own step (step_newton, step_linear, ...)
 *      from the changed velocities, the MPM its G2P, then optionally
 *      tide_mpm_solid_project (particles behind the surface moved onto it).
 *
 * Samples are scattered one after the other (no threads): the result does
 * not depend on the thread count.  Buffers are kept in the object and grow
 * only when the sample count does.  Needs the dense node grid; the mesh's
 * samples must keep their stencils inside the grid.
 */
#ifndef TIDE_COUPLE_MPM_SOLID_H
#define TIDE_COUPLE_MPM_SOLID_H

#include "mpm/mpm.h"
#include "solid/fem.h"

typedef struct tide_mpm_solid {
  int bc;          /* TIDE_MPM_SEPARATE or TIDE_MPM_STICKY */
  double friction; /* Coulomb coefficient (SEPARATE) */
  double spacing;  /* sample spacing along the faces [grid cells] */
  double distance; /* SEPARATE: contact distance [grid cells] (step 3a) */
  /* samples (grown, never shrunk) */
  int64_t nq, qcap;
  int32_t *qface;  /* (nq) face of the sample */
  double *qbeta;   /* (nq, 3) barycentric weights on the face's nodes */
  double *qm, *qv; /* (nq) mass, (nq, d) velocity */
  double *qdv;     /* (nq, d) velocity increment */
  uint8_t *qkin;   /* (nq) 1: a pinned node contributes */
  /* faces and nodes of the mesh (sized at the first exchange) */
  int64_t nb, nv;
  double *fnormal;     /* (nb, d) outward normals */
  double *farea;       /* (nb) areas (lengths) */
  double *fgrad;       /* (nb, 3, 3) velocity gradient of the face's element */
  double *S;           /* (nv) sum of beta over the samples of each node */
  tide_array *impulse; /* (nv, d) J_a of the last exchange [N s] */
  /* grid (sized to the MPM's nodes): solid mass, kinematic mass, momentum,
   * normal sums, velocity increments; touched nodes listed in first-touch order */
  int64_t nn;
  double *M, *K, *P, *N, *dV;
  double *X; /* (nn) sum_q w_iq m_q x_q (M, N, X, dV kept until the next exchange) */
  double *D; /* (nn) distance of the nearest particle's edge from the surface */
  double *H; /* (nn) the surface offset n_i.X_i/M_i along the node's normal */
  int64_t *touched, ntouched;
} tide_mpm_solid;

typedef struct tide_mpm_solid_stats {
  int64_t samples;   /* surface samples */
  int64_t shared;    /* nodes where both bodies have mass */
  int64_t contacts;  /* nodes where an impulse acted */
  double impulse[3]; /* sum_a J_a: momentum given to the mesh [N s] (-that to the MPM) */
} tide_mpm_solid_stats;

/* A coupler with boundary condition bc (TIDE_MPM_SEPARATE, TIDE_MPM_STICKY),
 * Coulomb friction >= 0, sample spacing > 0 and contact distance >= 0 (both
 * in cells; the distance is used by SEPARATE only, step 3a). */
int tide_mpm_solid_new(int bc, double friction, double spacing, double distance,
                       tide_mpm_solid **out);
void tide_mpm_solid_free(tide_mpm_solid *c);
int64_t tide_mpm_solid_bytes(const tide_mpm_solid *c);

/* Steps 1-4 above: m after tide_mpm_p2g and tide_mpm_grid_update (its node
 * velocities changed in place), mesh a volume mesh of the MPM's dimension
 * with a material, after its own step (its free nodes get v_a += J_a/m_a,
 * x_a += dt J_a/m_a in place; c->impulse set).  TIDE_EINVAL for a sparse MPM grid, a dimension
 * mismatch, a mesh without material or a sample whose stencil leaves the grid (nothing changed
 * then). */
int tide_mpm_solid_exchange(tide_mpm_solid *c, tide_mpm *m, tide_tetmesh *mesh, double dt,
                            tide_mpm_solid_stats *st);

typedef struct tide_mpm_solid_proj {
  int64_t moved; /* particles moved onto the mesh surface */
  double depth;  /* the deepest of them behind it before [m] */
} tide_mpm_solid_proj;

/* Step 8, after tide_mpm_g2p: particles whose stencil reaches a node where
 * the last exchange's impulse acted and whose centre is behind the mesh
 * surface seen by their stencil (normal and mean sample position of the
 * last exchange's rasterization) are moved onto it along its normal
 * (positions only; velocities, F, C unchanged).  Nothing before an
 * exchange; TIDE_EINVAL for a sparse grid. */
int tide_mpm_solid_project(tide_mpm_solid *c, tide_mpm *m, tide_mpm_solid_proj *st);

#endif
