/*
 * mpm.h -- the material point method (tide.mpm): particles carrying mass,
 * volume, velocity, an affine velocity matrix and a deformation gradient,
 * advanced through a collocated node grid (Li's lecture: "Extending to
 * hybrid Lagrangian/Eulerian solid simulation"; Stomakhin et al. 2013;
 * Jiang et al. 2015/2016; Hu et al. 2018).
 *
 * The module stands above tide.liquid (particle container, cell binning,
 * seeding) and tide.solid (constitutive models of material.h: the same
 * Psi(F), P(F) serve tetrahedra and MPM particles); neither includes it.
 *
 * Grid.  The cells of a tide_grid g; nodes at origin + (i, j[, k]) dx,
 * i = 0..n[0] (and so on), stored row-major with index
 *   (i (n1+1) + j) (n2+1) + k     (3D),      i (n1+1) + j     (2D).
 * Node fields: mass m_i [kg] (nodes) and velocity v_i [m/s] (nodes, dim).
 *
 * Weights.  Tensor-product B-splines of the node spacing dx, order 2
 * (quadratic, support 3 nodes per axis) or 3 (cubic, 4 nodes):
 *   quadratic N(r) = 3/4 - r^2 (|r| < 1/2),  (3/2 - |r|)^2 / 2 (|r| < 3/2)
 *   cubic     N(r) = |r|^3/2 - r^2 + 2/3 (|r| < 1), (2 - |r|)^3 / 6 (|r| < 2)
 * with r = (x_p - x_i)/dx.  Both reproduce linear functions exactly
 * (sum_i w_ip = 1, sum_i w_ip x_i = x_p) and have the APIC inertia tensor
 * D_p = sum_i w_ip (x_i - x_p)(x_i - x_p)^T = dx^2/4 I (quadratic),
 * dx^2/3 I (cubic) [Jiang et al. 2015, Sec. 5.3].
 *
 * One explicit step of MLS-MPM [Hu et al. 2018, Eq. 16-17; Jiang et al.
 * 2016 course notes, Sec. 9-10] (symplectic Euler on the grid):
 *   P2G   m_i  = sum_p w_ip m_p
 *         m_i v_i = sum_p w_ip (m_p v_p + Q_p (x_i - x_p)),
 *         Q_p  = m_p C_p - dt V_p^0 D_p^-1 P(F_p) F_p^T
 *   grid  v_i <- v_i + dt g, then the boundary conditions (walls, colliders)
 *   G2P   v_p = sum_i w_ip v_i,  C_p = D_p^-1 sum_i w_ip v_i (x_i - x_p)^T
 *         F_p <- (I + dt C_p) F_p        (updated Lagrangian, Li's lecture:
 *                                         F^{n+1} = (I + dt grad v^{n+1}) F^n)
 *         x_p <- x_p + dt v_p
 * then the plasticity of the particle's material (return mapping of F).
 * The force term -V_p^0 P F^T D^-1 (x_i - x_p) w_ip is the MLS
 * approximation of -sum_p V_p^0 P(F_p) F_p^T grad w_ip: it conserves linear
 * and angular momentum (P F^T is symmetric for isotropic models).
 *
 * Determinism.  P2G scatters without atomics: particles are binned by cell
 * (tide_particles_bin), a particle of cell slab i writes node columns
 * i-1 .. i+2, so slabs four apart never share a node; the four colours run
 * in sequence and each node receives its contributions in a fixed order --
 * bit-identical results for any thread count.
 *
 * Units: SI.  Gravity (0, -9.81[, 0]) m/s^2 by the scene's choice.
 */
#ifndef TIDE_MPM_H
#define TIDE_MPM_H

#include "grid/grid.h"
#include "grid/sdf.h"
#include "liquid/particles.h"
#include "solid/material.h"

#define TIDE_MPM_MAXMAT 16
#define TIDE_MPM_MAXCOLL 16

/* Plasticity of a material (applied to F after each G2P). */
typedef enum {
  TIDE_MPM_ELASTIC = 0, /* none */
  /* Weakly compressible fluid ("fluid as a special solid", Li's lecture):
   * only J = det F is kept, F <- J^(1/d) I after each step, and the energy
   * is kappa/2 (J - 1)^2 (the fixed-corotated model with mu = 0,
   * lambda = kappa), so the stress is the pressure p = -kappa (J - 1). */
  TIDE_MPM_FLUID,
  /* Snow [Stomakhin, Schroeder, Chai, Chern & Teran 2013, Sec. 5]: the
   * singular values of the elastic F are clamped to [1 - theta_c,
   * 1 + theta_s], the excess goes into the plastic part with J_p = det F_p,
   * and mu, lambda are scaled by exp(xi (1 - J_p)) (hardening). */
  TIDE_MPM_SNOW,
  /* Sand [Klar, Gast, Pradhana, Fu, Schroeder, Jiang & Teran 2016, Sec.
   * 7.3]: Drucker-Prager return mapping in the Hencky strain
   * eps = log(s): alpha = sqrt(2/3) 2 sin(phi_f) / (3 - sin(phi_f));
   * tr eps > 0 -> s = 1 (separation); else with eps^ = eps - tr(eps)/d,
   * dg = |eps^| + (d lambda + 2 mu)/(2 mu) tr(eps) alpha: dg <= 0 elastic,
   * else eps <- eps - dg eps^/|eps^|.  (Fixed-corotated or StVK-Hencky
   * elasticity; we use the model of the material.) */
  TIDE_MPM_SAND
} tide_mpm_plastic;

/* Which Mohr-Coulomb fit gives the Drucker-Prager alpha of sand (the
 * return mapping above is |eps^| <= -alpha (d lambda + 2 mu)/(2 mu) tr eps,
 * i.e. |s^| <= -alpha tr sigma in the Hencky stress; docs/mpm.md derives
 * each):
 *   SHEAR        alpha = sqrt(2) tan phi/d (the default): steady simple
 *                shear (a layer flowing down a slope) carries
 *                tau/sigma_n = tan phi, so phi is the angle of repose;
 *   PLANE_STRAIN alpha = sqrt(2) sin phi/d: the envelope is Mohr-Coulomb
 *                with angle phi in plane strain (at the limit state of the
 *                isochoric flow rule the out-of-plane stress is the in-plane
 *                mean); a slope then flows at tan theta = sin phi;
 *   COMPRESSION  alpha = sqrt(2/3) 2 sin phi/(3 - sin phi) (Klar et al.
 *                2016: the 3D cone through the compression corners of the
 *                Mohr-Coulomb pyramid; in 2D tan theta = sqrt(2) alpha). */
typedef enum {
  TIDE_MPM_CONE_SHEAR = 0,
  TIDE_MPM_CONE_PLANE_STRAIN,
  TIDE_MPM_CONE_COMPRESSION
} tide_mpm_cone;

/* Drucker-Prager alpha of a sand material in d dimensions. */
double tide_mpm_sand_alpha(int cone, double phi, int d);

typedef struct tide_mpm_material {
  tide_material elastic;       /* energy model (material.h) */
  int plastic;                 /* tide_mpm_plastic */
  double rho;                  /* density [kg/m^3] of new particles */
  double theta_c, theta_s, xi; /* snow: critical compression / stretch, hardening */
  double friction_angle;       /* sand: friction angle phi_f [rad] */
  int cone;                    /* sand: tide_mpm_cone, the fit of alpha */
} tide_mpm_material;

/* Grid boundary condition of a wall or collider. */
typedef enum {
  TIDE_MPM_STICKY = 0, /* v = v_wall */
  TIDE_MPM_SLIP,       /* normal relative velocity removed, tangential kept */
  TIDE_MPM_SEPARATE    /* only an approaching normal velocity removed, with
                          Coulomb friction mu on the tangential part */
} tide_mpm_bc;

typedef struct tide_mpm_collider {
  tide_shape *shape; /* retained; phi < 0 inside the obstacle */
  double vel[3];     /* velocity of the obstacle [m/s] (rigid translation) */
  double omega[3];   /* angular velocity [rad/s] about centre (z only in 2D) */
  double centre[3];  /* centre of rotation [m] */
  int bc;            /* tide_mpm_bc */
  double friction;   /* Coulomb coefficient (SEPARATE) */
} tide_mpm_collider;

typedef struct tide_mpm {
  int dim;
  int order;          /* 2: quadratic, 3: cubic B-splines */
  tide_grid g;        /* cells; nodes at the corners */
  int64_t nn;         /* nodes */
  tide_particles *ps; /* x, v, C (APIC affine matrix, rows = grad of a component) */
  /* per-particle attributes, aligned with ps (capacity ps->cap) */
  tide_array *F;    /* (n, d, d) deformation gradient (elastic part) */
  tide_array *vol0; /* (n) initial volume V_p^0 [m^3 or m^2] */
  tide_array *mass; /* (n) mass [kg] */
  tide_array *Jp;   /* (n) plastic volume ratio (snow) / volume correction (sand) */
  tide_array *mat;  /* (n) i32 material index */
  int64_t cap;      /* rows allocated in the attribute arrays */
  int nmat;
  tide_mpm_material mats[TIDE_MPM_MAXMAT];
  /* node fields */
  tide_array *nm; /* (nodes) mass */
  tide_array *nv; /* (nodes, d) velocity (momentum during P2G) */
  tide_array *nvol; /* (nodes) volume sum_p w_ip V_p^0 det F_p [m^d], only after
                       tide_mpm_set_node_volume(m, 1) (else NULL) */
  /* boundaries: per side (x-, x+, y-, y+, z-, z+) a condition and a
   * thickness in nodes, and colliders */
  int wall_bc[6]; /* tide_mpm_bc, or -1: no wall */
  double wall_friction;
  int wall_nodes; /* nodes from each side that count as wall (>= order) */
  int ncoll;
  tide_mpm_collider coll[TIDE_MPM_MAXCOLL];
  double gravity[3];
  /* sparse block grid (tide_mpm_set_sparse): node fields only in the blocks
   * of TIDE_MPM_BLOCK^d nodes that particle stencils touch; blocks in
   * Morton order of their block coordinates; nn = nact * bvol */
  int sparse;
  int nb[3];        /* blocks per axis */
  int64_t nbtot;    /* blocks in the box */
  int bvol;         /* nodes per block: 16 (2D), 64 (3D) */
  int32_t *slot;    /* (nbtot) storage slot of a block, -1 when not allocated */
  unsigned char *mark; /* (nbtot) blocks touched this step */
  int64_t *active;  /* (actcap) block index of every slot */
  int64_t nact, actcap;
  int64_t node_cap; /* nodes the node arrays hold */
  double *acc;      /* P2G scratch (acc_cap, 4): momentum (lanes 0 .. d-1) and mass (lane 3)
                       of a node side by side, split into nm and nv after the scatter */
  int64_t acc_cap;
  /* ps->cell_of holds the cells of the first cells_n particles' positions
   * as the last G2P left them (cells_moved: one changed cell there): the
   * next P2G bins from them without a pass over x, checks each particle
   * against its cell while it scatters, and bins afresh on a mismatch */
  int cells_current, cells_moved;
  int64_t cells_n;
} tide_mpm;

#define TIDE_MPM_BLOCK 4

/* A new MPM state on grid g (cells; nodes at corners) with B-spline order 2
 * or 3, no particles, walls sticky-free (-1: none), gravity 0. */
int tide_mpm_new(const tide_grid *g, int order, tide_mpm **out);
void tide_mpm_free(tide_mpm *m);
int64_t tide_mpm_bytes(const tide_mpm *m);

/* Switch between the dense node grid (sparse = 0) and the sparse block
 * grid (sparse = 1): blocks of 4^d nodes addressed through a page table
 * (4 bytes per block), allocated each P2G where the stencils of the
 * particles reach, stored in Morton (Z-order) order of the block
 * coordinates.  Every node receives its contributions in the same order as
 * on the dense grid, so both give bit-identical particles.  In sparse mode
 * node_mass / node_velocity hold the allocated blocks only (nn = blocks x
 * 4^d nodes, node (i, j, k) of block b at slot(b) 4^d + ((i & 3) 4 +
 * (j & 3)) 4 + (k & 3)). */
int tide_mpm_set_sparse(tide_mpm *m, int sparse);

/* Let P2G also scatter the particle volumes V_p = V_p^0 det F_p to the nodes
 * (m->nvol; on = 0 drops it): the volume fraction of the material at the
 * nodes, which the coupling with FLIP liquids needs (couple/mpm_flip.h). */
int tide_mpm_set_node_volume(tide_mpm *m, int on);

/* Add a material; *index receives its index.  Checks the elastic model
 * (tide_material_check) and the plasticity parameters. */
int tide_mpm_add_material(tide_mpm *m, const tide_mpm_material *mat, int *index);

/* Seed particles of material `mat` inside shape (phi < 0) with per_cell
 * particles per cell (stratified jitter, tide_particles_seed), velocity vel
 * (may be NULL) and affine velocity gradient gradv (d x d row-major, may be
 * NULL): v_p = vel + gradv (x_p - centre) with centre the centroid of
 * the new particles.  V_p^0 = dx^d / per_cell, m_p = rho V_p^0, F = I, J_p = 1.
 * Particles closer than wall_nodes - 1/2 cells to the domain boundary are
 * not seeded (they would lie in the wall band).  *added receives the count. */
int tide_mpm_seed(tide_mpm *m, const tide_shape *shape, int per_cell, double jitter,
                  uint64_t stream, int mat, const double *vel, const double *gradv, int64_t *added);

/* Make room for `cap` particles in every attribute (keeps the contents). */
int tide_mpm_reserve(tide_mpm *m, int64_t cap);

/* Reorder particles by cell (stable), every attribute alike: better memory
 * locality for the transfers; results are otherwise unchanged. */
int tide_mpm_sort(tide_mpm *m);

/* P2G: node masses and velocities (momentum / mass) with the MLS force term
 * for the step dt.  TIDE_ENONFINITE when a particle state is not finite,
 * TIDE_EINVAL when a particle left the grid's interior band. */
int tide_mpm_p2g(tide_mpm *m, double dt);
/* The B-spline stencil of a point x (d coordinates) on the node grid, the
 * weights the particles use (for couplings that rasterize other bodies onto
 * the same momentum grid, couple/mpm_solid.h): first node base[a] and the
 * order + 1 weights w[a][0 .. order] per axis (2D: base[2] = 0, w[2] =
 * {1, 0, 0, 0}), and the dense storage index of node (i, j, k) in *origin_id
 * for base (the node of offsets (o0, o1, o2) is origin_id + o0 s0 + o1 s1 +
 * o2 with the strides s of tide_mpm_node_strides).  TIDE_EINVAL when x is
 * not finite or its stencil leaves the grid; TIDE_EINVAL also on the
 * sparse grid. */
int tide_mpm_stencil(const tide_mpm *m, const double *x, double w[3][4], int base[3],
                     int64_t *origin_id);
/* Strides of the dense node arrays: s[0] (i), s[1] (j), s[2] = 1 (k). */
void tide_mpm_node_strides(const tide_mpm *m, int64_t s[3]);
/* Grid update: v_i += dt g on nodes with mass, then walls and colliders. */
int tide_mpm_grid_update(tide_mpm *m, double dt);
/* G2P: velocities, affine matrices, F update, advection, plasticity.
 * Positions are kept inside the domain shrunk by wall_nodes - 1/2 cells. */
int tide_mpm_g2p(tide_mpm *m, double dt);
/* The three in sequence. */
int tide_mpm_step(tide_mpm *m, double dt);

/* Implicit grid update [Gast, Schroeder, Stomakhin, Jiang & Teran 2015,
 * "Optimization integrator for large time steps"; Li's lecture: implicit
 * MPM as the minimisation of the incremental potential]: after a P2G of
 * mass and momentum only (tide_mpm_p2g(m, 0)), the node velocities
 * minimise
 *   E(v) = sum_i m_i/2 |v_i - v^_i|^2 + sum_p V_p Psi(F^_p(v)),
 *   v^_i = v_i + dt g (walls and colliders applied),
 *   F^_p(v) = (I + dt C_p(v)) F_p,  C_p(v) = D^-1 sum_i w_ip v_i (x_i - x_p)^T
 * (the G2P update of F, so the result is consistent with it), by Newton's
 * method: gradient m_i (v_i - v^_i) + dt sum_p V_p w_ip P(F^_p) F_p^T
 * D^-1 (x_i - x_p) (the MLS force at F^), Hessian applied matrix-free
 * with dP/dF projected to positive semidefinite per particle
 * (tide_material_eval), solved by PCG to a relative 1e-3 with the Jacobi
 * preconditioner m_i + dt^2 sum_p V_p (lambda + 2 mu) w_ip^2 D^-2
 * |F_p^T (x_i - x_p)|^2 (the small-strain stiffness's diagonal estimate),
 * and an Armijo backtracking line search on E.  Nodes under a sticky wall
 * or collider are fixed at their boundary velocity; slip and separating
 * conditions act on the result.  Stops when |grad E| <= tol max(|grad E_0|,
 * 1e-6 |M v^|) (the second term: a start that already balances, e.g. free
 * flight, has only round-off left) or
 * after maxit Newton steps (st->converged = 0 then, with the residual
 * reached).  Plasticity is applied in G2P as for the explicit step. */
typedef struct tide_mpm_implicit_stats {
  int newton, cg, converged;
  double residual; /* |grad E| / |grad E at v^| */
  double energy;   /* E at the result [J] */
} tide_mpm_implicit_stats;
int tide_mpm_grid_implicit(tide_mpm *m, double dt, double tol, int maxit, int cg_maxit,
                           tide_mpm_implicit_stats *st);
/* P2G (momentum only), the implicit grid update, G2P. */
int tide_mpm_step_implicit(tide_mpm *m, double dt, double tol, int maxit, int cg_maxit,
                           tide_mpm_implicit_stats *st);

/* A stable explicit step: dt = cfl dx / (max_p |v_p| + c), c the largest
 * elastic wave speed sqrt((lambda + 2 mu)/rho) of the materials in use
 * (fluids: sqrt(kappa/rho)) [Jiang et al. 2016 course notes, Sec. 10]. */
int tide_mpm_max_dt(const tide_mpm *m, double cfl, double *dt);

/* Largest particle speed |v_p| [m/s]. */
int tide_mpm_max_speed(const tide_mpm *m, double *out);

/* Diagnostics (deterministic reductions):
 *   kinetic  sum_p m_p |v_p|^2 / 2 + APIC's sum_p m_p/2 tr(C_p D_p C_p^T)  [J]
 *   elastic  sum_p V_p^0 Psi(F_p)                                          [J]
 *   momentum sum_p m_p v_p (d)                                             [kg m/s]
 *   angular  sum_p m_p (x_p x v_p + eps : (C_p D_p)^T)  (3 components; 2D: z only)
 *   mass     sum_p m_p                                                     [kg]
 * Any output may be NULL. */
int tide_mpm_diagnostics(const tide_mpm *m, double *kinetic, double *elastic, double *momentum,
                         double *angular, double *mass);

/* Node field sums after P2G: total node mass and momentum (d), for tests of
 * the transfer identities. */
int tide_mpm_grid_sums(const tide_mpm *m, double *mass, double *momentum);

#endif
