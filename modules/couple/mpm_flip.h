/*
 * mpm_flip.h -- an MPM body in a FLIP liquid, two-way coupled through one
 * momentum grid and one pressure projection (tide.couple.mpm_project).
 *
 * Scheme (both materials on the same grid, the mixture incompressible; the
 * multi-material MAC projection of Stomakhin, Schroeder, Jiang, Chai, Teran &
 * Selle 2014, "Augmented MPM for phase-change and varied materials", Sec. 4,
 * with the liquid's FLIP transfers of Zhu & Bridson 2005):
 *
 *   1. The MPM step up to its grid velocities: P2G with the elastic forces,
 *      gravity and walls (tide_mpm_p2g, tide_mpm_grid_update), node volumes
 *      on (tide_mpm_set_node_volume).  The liquid's P2G on the MAC faces
 *      (extrapolated, walls), gravity added, and its particle density rho_c
 *      in particles per cell (tide_liquid_density); W_f the mean of rho_c
 *      over the two cells of face f.
 *   2. Onto the faces (the MPM nodes are the corners of the liquid's cells,
 *      so a face of axis a at x_f is the midpoint of 2 (2D) / 4 (3D) nodes
 *      N(f); averages over them):
 *        m_s,f = <m_i>,  (m v)_s,f = <m_i v_i,a>,  V_s,f = <V_i>   (solid)
 *        m_l,f = rho_l dx^d W_f / per_cell,  V_l,f = m_l,f / rho_l  (liquid)
 *        u*_f  = (m_l,f u_l,f + (m v)_s,f) / (m_l,f + m_s,f)   (momentum shared)
 *        rho_f = (m_l,f + m_s,f) / (V_l,f + V_s,f)             (mixture density)
 *      (faces without mass: u*_f = u_l,f, rho_f = rho_l).
 *   3. One projection over the cells holding liquid or MPM particles (the
 *      others air, p = 0, ghost fluid with theta from the level set phi of
 *      liquid and body together; static solid cells and the domain walls
 *      closed):
 *        sum_f (rho_l / rho_f) / dx^2 (p_c - p_n) = -(rho_l/dt) div u*,
 *        u_f = u*_f - dt/rho_f grad p
 *      (the MAC Poisson problem of linalg/mac_poisson.h with face weights
 *      rho_l / rho_f), PCG with MIC(0).  A body lighter than the liquid has
 *      faces of larger mobility dt/rho_f: buoyancy is the pressure gradient
 *      of the liquid acting on the body's smaller mass.
 *   4. Back: the faces hold the coupled velocity u_f (the liquid's G2P reads
 *      it, FLIP against its own u_l); every MPM node i with mass gets, per
 *      axis, sum over its adjacent projected faces of (u_f - v_s,f) / |N(f)|
 *      (the transpose of the node-to-face average, so the body receives
 *      exactly the momentum sum_f m_s,f (u_f - v_s,f) of its faces; a FLIP
 *      increment, so the node field is not smoothed by the averaging), then
 *      the MPM walls and colliders again (tide_mpm_grid_update with dt = 0)
 *      and its G2P.
 *
 * The momentum exchange on a face conserves momentum exactly (one velocity
 * for the face's total mass); the pressure impulse is internal where faces
 * are full.  The body's divergence is projected out like the liquid's: the
 * body is incompressible while in the projection region (its shear
 * elasticity and its weight act), the choice of Stomakhin et al. for solids
 * in liquid without a bulk term.  Needs the dense MPM node grid on the
 * liquid's grid (same cells, dx and origin).
 */
#ifndef TIDE_COUPLE_MPM_FLIP_H
#define TIDE_COUPLE_MPM_FLIP_H

#include "grid/grid.h"
#include "mpm/mpm.h"

typedef struct tide_mpm_flip_opts {
  double dt;            /* time step [s] */
  double rho;           /* liquid density [kg/m^3] */
  double per_cell;      /* liquid particles per cell at rest (the mass of W_f) */
  double tol;           /* relative residual of the pressure solve */
  int maxit;            /* PCG iteration limit (0: default) */
  double theta_min;     /* ghost-fluid clamp (0: TIDE_MAC_THETA_MIN) */
  const tide_array *phi; /* the liquid's level set on cells (f64) or NULL: p = 0
                            at the air cell centres.  With it the ghost-fluid
                            surface is that of min(phi, phi_body), phi_body the
                            Zhu-Bridson level set of the MPM particles of
                            radius body_radius (kernel 2 body_radius) */
  double body_radius;   /* [m] (0: dx / 4, half the spacing of 2^d particles per cell) */
} tide_mpm_flip_opts;

typedef struct tide_mpm_flip_stats {
  int iterations;
  double residual;      /* relative residual reached */
  int converged;
  int64_t unknowns;     /* pressure cells */
  int64_t body_cells;   /* pressure cells holding MPM particles */
  int nullspace;        /* 1: no pressure cell touches air (closed, full box) */
  double div_before, div_after; /* max |div u| over pressure cells [1/s] */
} tide_mpm_flip_stats;

tide_mpm_flip_opts tide_mpm_flip_opts_default(void);

/* Steps 2-4 above (minus the MPM walls and G2P): m after tide_mpm_p2g and
 * tide_mpm_grid_update with node volumes on; u (f64 MAC) the liquid's face
 * velocities with gravity, overwritten by the coupled velocity on projected
 * faces (others: the mixed u*, walls 0); density (f64 cells) the liquid's
 * particles per cell (tide_liquid_density);
 * labels (u8 cells) the liquid's labels (LIQUID where liquid particles are,
 * SOLID for static solids); valid (u8 MAC, may be NULL) receives 1 on the
 * projected faces; pressure (f64 cells, may be NULL) p [Pa]; body_phi (f64
 * cells, may be NULL; needs phi) the body's level set phi_body.  The node
 * velocities of m are updated in place.  TIDE_ENOCONV when the solve stops
 * at maxit (u and m unchanged). */
int tide_couple_mpm_flip_project(tide_mpm *m, tide_mac *u, const tide_array *density,
                                 const tide_array *labels, const tide_mpm_flip_opts *o,
                                 tide_mac *valid, tide_array *pressure, tide_array *body_phi,
                                 tide_mpm_flip_stats *st);

#endif
