/*
 * zarifi.h -- strong two-way coupling of a MAC-grid liquid with deformable
 * corotational solids in one pressure projection (Zarifi, MMath thesis 2017,
 * ch. 5).  Plain C; the Lua binding is lua_couple_zarifi.c.
 *
 * Files: clip.c (geometry, section 5.1.1 and Fig. 5.1), zarifi_ops.c (the
 * liquid's face gradient G; the divergence E is tide_liquid_divergence),
 * zarifi.c (the coupled system in three formulations, Eq. 5.17, 5.25-5.36,
 * 5.37-5.45).
 *
 * Units: SI.  Positions [m], velocities [m/s], pressures [Pa], areas [m^2]
 * (lengths [m] in 2D: a 2D problem is a slice of unit depth).
 *
 * Scaling of the coupled system (one scaling for all blocks, the thesis's):
 *   B = (dt/rho) dx^d A_poisson    (A_poisson: linalg/mac_poisson.h, 1/m^2)
 *     = (dt/rho) E G               [m^(d+1) s / kg]
 *   E u* = -sum_f s_f A_f dx^(d-1) u*_f   (s_f = +1 on the high face of the
 *          cell, -1 on the low face: minus the open outward flux) [m^d/s]
 *   J = N^T C (liquid rows x solid DOFs) [m^(d-1)]: (J v)_c is the flux of
 *          the solid's boundary velocity through its part of cell c, with the
 *          normals into the solid (out of the liquid) [m^d/s]; J^T p are the
 *          nodal pressure forces [N] (Eq. 5.7-5.13).
 * so that B p + J v = E u* is cell-wise mass conservation (Eq. 5.15) and
 * u = u* - dt/rho G p the velocity update (Eq. 5.4).
 */
#ifndef TIDE_ZARIFI_H
#define TIDE_ZARIFI_H

#include "couple/couple.h"
#include "grid/grid.h"
#include "linalg/linalg.h"
#include "linalg/mac_poisson.h"
#include "solid/collide.h"
#include "solid/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ geometry
 * Clipping of a solid's boundary (triangles in 3D, segments in 2D) against
 * the grid cells (section 5.1.1, Fig. 5.1).  Each face is split by the grid
 * planes x = origin + i dx (then y, then z) into convex pieces Q_i, each
 * inside one cell.  Per piece:
 *   cell      linear cell index (tide_grid_idx)
 *   face      boundary face (row of m->bound) it came from
 *   area      a_i [m^2] (length in 2D), > 0
 *   normal    n_i, unit, INTO the solid (out of the liquid): minus the
 *             face's outward normal
 *   bary      barycentric coordinates of the piece's centroid in its face
 *             (Eq. 5.8, 5.12): >= 0, summing to 1
 *   centroid  c_i [m]
 * Robustness: vertices on grid planes go to both sides of the split, a
 * face lying in a grid plane goes to the cell on the side its outward
 * normal points to (the liquid side), zero-area pieces are dropped, a
 * piece's area is the sum of its fan triangles' areas clamped at 0 and its
 * centroid their convex combination, so no piece is NaN, has a negative
 * area or lies outside its face; degenerate faces (zero area) give no
 * pieces.  The pieces of one face sum to its area up to round-off.  Pieces
 * outside the grid are dropped and their area reported.  Output is in face
 * order, deterministic for any thread count. */
typedef struct tide_zclip {
  int dim;
  int64_t n;        /* pieces */
  int64_t *cell;    /* n */
  int32_t *face;    /* n */
  double *area;     /* n */
  double *normal;   /* n * dim */
  double *bary;     /* n * dim */
  double *centroid; /* n * dim */
  int64_t cap;      /* allocated pieces */
  double outside;   /* area of the boundary outside the grid (dropped) */
  double total;     /* area of the whole boundary (inside + outside) */
} tide_zclip;

/* Clip the boundary of m at positions x (nv*dim, NULL: m->x) against g.
 * *c is (re)filled; start from a zeroed struct, free with
 * tide_zclip_free.  m must be a volume mesh with the grid's dimension. */
int tide_zarifi_clip(const tide_grid *g, const tide_tetmesh *m, const double *x, tide_zclip *c);
void tide_zclip_free(tide_zclip *c);

/* The sparse N and C of Eq. 5.7-5.13 for one solid with nv nodes:
 *   N  (n*dim x ncells): N[q*dim + k, cell_q] = a_q n_q[k]
 *   C  (n*dim x nv*dim): C[q*dim + k, node*dim + k] = bary_q[node]
 * (either output may be NULL). */
int tide_zarifi_nc(const tide_grid *g, const tide_zclip *c, const tide_tetmesh *m, tide_csr **N,
                   tide_csr **C);

/* Triplets of J = N^T C into T: row rowof[cell] (pieces in cells with
 * rowof < 0 are skipped), column col0 + node*dim + k, value
 * scale * a_q n_q[k] bary_q[node].  rowof NULL: rows are cell indices. */
int tide_zarifi_j_triplets(const tide_zclip *c, const tide_tetmesh *m, const int *rowof, int col0,
                           double scale, tide_triplets *T);

/* Pressure sampling on the clipped pieces (which pressure a piece feels and,
 * transposed, which cells its flux enters -- the system stays symmetric):
 *   CELL    the pressure of the piece's own cell (section 5.1.2, the thesis:
 *           p constant per cell; first order with an error coefficient that
 *           depends on where the solid's faces cut the cells, the cause of the
 *           non-monotone errors of Tables 6.5-6.6)
 *   LINEAR  the weighted least-squares affine fit to the liquid cells of the
 *           3^d block around the piece's cell, evaluated at the piece's
 *           centroid (exact for affine p: Archimedes' force is exact for a
 *           hydrostatic pressure); a piece whose centroid lies above the free
 *           surface (phi > 0, multilinear) feels p = 0.  The flux of a piece
 *           is spread over the same cells with the same weights (summing to 1),
 *           so mass is conserved globally, and per cell up to O(dx) shifts.
 * Pieces in cells that are not liquid (rowof < 0) feel p = 0 in both. */
enum { TIDE_ZARIFI_SAMPLE_CELL = 0, TIDE_ZARIFI_SAMPLE_LINEAR = 1 };
int tide_zarifi_j_triplets_sampled(const tide_grid *g, const tide_zclip *c, const tide_tetmesh *m,
                                   const int *rowof, const double *phi, int sampling, int col0,
                                   double scale, tide_triplets *T);

/* ------------------------------------------------- liquid face gradient G
 * Faces are numbered axis by axis (all x faces in tide_grid_fidx order,
 * then y, then z): nfaces = sum_a prod(face dims of axis a).  For the
 * liquid cells numbered by rowof (tide_mac_poisson_number) and face open
 * fractions w (fractions, NULL = 1), a face carries flux when it lies inside
 * the domain between a liquid cell and a liquid or air cell (faces touching
 * a solid cell or the domain boundary are walls) and w > 0:
 *   G (nfaces x nl)   (G p)_f = (p_hi - p_lo) / (theta dx) [1/m], p = 0 in air
 *                     at the ghost-fluid fraction theta (>= theta_min; 1
 *                     between liquid cells); no row for other faces
 * theta: face arrays from tide_mac_poisson_theta or NULL (theta = 1).
 * With the divergence of tide_liquid_divergence (liquid/project.h),
 * div_A(G p) = -A_poisson p (mac_poisson.h), so E = -dx^d div_A gives
 * (dt/rho) E G = (dt/rho) dx^d A_poisson = B. */
int tide_zarifi_gradient(const tide_grid *g, const uint8_t *labels, const int *rowof, int nl,
                         const double *const fractions[3], const double *const theta[3],
                         double theta_min, tide_csr **G);
/* The same G applied without forming it, in place: u_f -= c (G p)_f on every face with a row
 * (p: nl liquid pressures by rowof; c: dt/rho for the velocity update), valid_f = 1 there and 0
 * elsewhere (valid may be NULL).  Each face's row is tide_zarifi_gradient's; the faces in
 * parallel, no allocation.  u must be f64, valid u8, both on g. */
int tide_zarifi_gradient_apply(const tide_grid *g, const uint8_t *labels, const int *rowof,
                               const double *const fractions[3], const double *const theta[3],
                               double theta_min, const double *p, double c, tide_mac *u,
                               tide_mac *valid);
int64_t tide_zarifi_nfaces(const tide_grid *g);
/* Gather the faces of a MAC field into one vector (nfaces) and back. */
int tide_zarifi_gather(const tide_mac *u, double *out);
int tide_zarifi_scatter(const double *in, tide_mac *u);

/* The solids' velocity on the closed faces of a liquid velocity field (Algorithm 4, lines 3
 * and 8: the faces inside a moving solid are walls of the liquid, and their value is what the
 * particles next to the solid interpolate and what the extrapolation continues): every face
 * centre inside an element of a volume mesh gets the element's linear interpolation of the
 * node velocities m->v (component of the face's axis; the first element in solid and element
 * order wins), extended by `layers` sweeps of tide_mac_extrapolate to the faces just outside
 * the mesh; then every face of u inside the domain with open fraction exactly 0 (fractions,
 * f64 MAC) that received a value takes it.  Faces of a static wall (no solid) keep theirs.
 * With 0 there (the static-wall closing) a solid translating through its own liquid drags it:
 * a water-filled ring moving at 1 m/s in free space lost 13% of its momentum in 0.2 s, ~0.01%
 * with the solid's velocity (tests/couple/test_zarifi_momentum.lua).  *count (may be NULL):
 * the faces set. */
int tide_zarifi_solid_faces(tide_mac *u, const tide_mac *fractions, tide_tetmesh *const *solids,
                            int ns, int layers, int64_t *count);

/* The particles' FLIP increment of one coupled projection, mass-consistent.  The projection
 * conserves liquid + solid momentum with the face masses rho A_f dx^d (A_f the open fraction);
 * a FLIP transfer gives the particles sum_f m_f du_f instead, m_f = m_p sum_p w_fp their
 * kernel mass, which near the free surface and in cut cells is not rho A_f dx^d (the
 * water-filled ring dropped on the floor: 7.7 N s of its worst 13.1 N s sideways in 0.4 s,
 * scripts/zarifi_momentum_budget.lua).  Here each valid face (valid, u8: the faces the
 * projection set) gets inc_f = dt g_a + s_f (u_f - u_old_f - dt g_a) with
 * s_f = per_cell A_f / W_f = rho A_f dx^d / m_f (weights W: sum_p w_fp of the particle-to-grid
 * transfer, f64 MAC; per_cell = rho dx^d / m_p; fractions NULL: A_f = 1), every other face
 * dt g_a: the particles then receive sum_p m_p dv_p = sum_f rho A_f dx^d du_f + M dt g.  s_f is
 * at most cap (> 0; a face the particles barely reach would kick them); the part of a face's
 * change its particles cannot take (all of it where no particle reaches, W_f = 0) is given to
 * all particles by their mass (a uniform increment per axis), so the sum holds to round-off for
 * any cap: those faces are counted in stats->orphans, their sum_f (A_f - s_f W_f / per_cell) du_f
 * per axis in stats->orphan (times rho dx^d: the momentum spread [N s]); stats->max_scale the
 * largest s_f used.  The caller gives g2p old = u - inc.
 * With a ghost-fluid free surface (labels, u8 cells, and phi, f64 cells, both given: the
 * projection's labels and level set) a face between a liquid and an air cell has the
 * projection's effective mass rho theta_f A_f dx^d, theta_f = phi_l / (phi_l - phi_a) clamped
 * below by theta_min (0: TIDE_MAC_THETA_MIN) as in the projection's gradient: its pressure
 * impulse p_l A_f dx^(d-1) dt acts on the liquid up to the surface, not on a full cell
 * (tide_mac_poisson_theta).  NULL: rho A_f dx^d (the voxel surface, p = 0 at the air cell
 * centres).
 * reference (f64 MAC, may be NULL): the velocity h the same projection gives the liquid at rest
 * under gravity alone (its hydrostatic response, extrapolated as u); dt g_a in the formulas above
 * is then h_f: inc_f = h_f + s_f (u_f - u_old_f - h_f) on the valid faces, h_f elsewhere.  The
 * particles receive the hydrostatic part by their kernel mass (at rest: 0, whatever their
 * kernel mass) and only the change beyond it by the projection's face masses.
 * solid_mass (>= 0, kg; with rho the liquid's density): the free solids' total mass.  The
 * uniform increment c per axis is then shared by the liquid and those solids by mass,
 * c = rho dx^d orphan / (M_liquid + solid_mass), and stats->uniform[a] = c (the caller adds it
 * to the solids' velocity): a rigid translation of the tank's whole content, which the walls'
 * next projection stops with a pressure gradient that acts on each body by its volume.  Given to
 * the liquid alone (solid_mass = 0) that gradient ρ c / dt is a buoyancy deficit: the orphan of
 * a stirred pool is upward on average (0.1 of a neutral ball's weight, ~0.5% of its buoyancy)
 * and such a ball sank 0.2 m in 4 s (docs/couple.md "Worse today"). */
typedef struct tide_zarifi_increment_stats {
  double orphan[3];
  double uniform[3];
  double max_scale;
  int64_t orphans;
} tide_zarifi_increment_stats;
int tide_zarifi_flip_increment(const tide_mac *u, const tide_mac *u_old, const tide_mac *valid,
                               const tide_mac *fractions, const tide_mac *weights, double per_cell,
                               double cap, double dt, const double gravity[3],
                               const tide_array *labels, const tide_array *phi, double theta_min,
                               const tide_mac *reference, double solid_mass, double rho,
                               tide_mac *inc, tide_zarifi_increment_stats *stats);

/* --------------------------------------------------- coupled projection */
enum {
  TIDE_ZARIFI_SPD = 0,        /* Eq. 5.25-5.36: [A11 aA12; aA21 a^2A22] (p, v/a) */
  TIDE_ZARIFI_INDEFINITE = 1, /* Eq. 5.17: [B J; J^T -S] (p, v) */
  TIDE_ZARIFI_FACTORED = 2    /* Eq. 5.43/5.45: (p, z = R v), K = R^T R */
};
enum {
  TIDE_ZARIFI_PCG = 0,      /* IC(0)-PCG (spd, factored) */
  TIDE_ZARIFI_CHOLMOD = 1,  /* supernodal Cholesky (spd, factored) */
  TIDE_ZARIFI_MINRES = 2,   /* Jacobi(|diag|)-MINRES (indefinite) */
  TIDE_ZARIFI_BICGSTAB = 3, /* ILU(0)-BiCGSTAB (indefinite) */
  TIDE_ZARIFI_LDLT = 4,     /* LDL^T of the quasi-definite matrix (indefinite) */
  TIDE_ZARIFI_MGPCG = 5     /* PCG with the multigrid-in-block preconditioner below
                               (spd, factored) */
};

enum {
  TIDE_ZARIFI_IFACE_AUTO = 0,      /* augmented when A[I, I] has at least TIDE_ZARIFI_IFACE_RATIO
                                      times the augmented matrix's entries (upper triangles) */
  TIDE_ZARIFI_IFACE_AUGMENTED = 1, /* LDL^T of [X_II Y_I; Y_I^T -Z] (tide_zarifi_split) */
  TIDE_ZARIFI_IFACE_ASSEMBLED = 2  /* supernodal Cholesky of the assembled A[I, I] */
};
/* Measured (bench/couple.lua, 2 threads, the projection's wall time): with the augmented
 * matrix's LDL^T supernodal (linalg, ldlt_super.c: 0.41 -> 0.085 s for 0.8 GFlop) the augmented
 * form is faster from entry ratio ~2.5 (dam break 64^3: 0.29 vs 0.38 s; pool 64^3, ratio 3.8:
 * 0.68 vs 0.89-1.0 s; dam break 100^3, 4.5: 0.78 vs 1.01 s; pool 100^3, 6.2: 1.32 vs 2.36 s);
 * they tie at 2.3 (pool 40^3) and the assembled is faster below (pool 24^3: 0.15-0.22 vs
 * 0.19-0.28 s).  With the simplicial LDL^T the break-even was ~4. */
#define TIDE_ZARIFI_IFACE_RATIO 2.5

typedef struct tide_zarifi_opts {
  double dt, rho;            /* [s], liquid density [kg/m^3] */
  int formulation, solver;   /* TIDE_ZARIFI_* */
  double sigma;              /* Z1 = sigma (1/dt + tau_M) M, in (0, 1) (default 0.9) */
  double alpha;              /* block scaling (Eq. 5.36); <= 0: |c1| / |c2| (default) */
  double tol;                /* Krylov relative residual (default 1e-10) */
  int maxit;                 /* 0: solver default */
  int rotate;                /* corotated K (default 1) */
  int sampling;              /* TIDE_ZARIFI_SAMPLE_CELL (default, the thesis) or _LINEAR */
  const tide_mac *relative;  /* with _LINEAR, or NULL (default): the part of the spread solid
                                flux that the thesis's cell sampling would put in the piece's
                                own cell elsewhere, (J_linear - J_cell) v, is taken relative to
                                this liquid velocity: the mass rows get + (J_linear - J_cell) U
                                on the right, U = `relative` interpolated at the nodes.  Give
                                the liquid's velocity before the external forces (a pressure
                                would take them back), with the faces inside the solids
                                carrying their velocity (tide_zarifi_solid_faces): a solid
                                translating with its liquid then meets no spurious divergence */
  int elastic;               /* 1 (default): the solid's elastic forces are coupled
                                (S = zeta_M M + (dt + tau_K) K, w with K x - b - f);
                                0: damping-only coupling of section 6.3 -- the solid has
                                already taken its elastic step, v holds its result, and
                                only M/dt + D couple (S = zeta_M M + tau_K K, w = -M v / dt) */
  int elastic_force;         /* 1 (default): with elastic, the elastic force at x* (K x - b) on
                                the right; 0: left out (the stiffness kept): the response to
                                the other loads alone (zarifi.gravity_response: a resting solid's
                                nodes held together, its deformation's own forces not in it) */
  int ring;                  /* TIDE_ZARIFI_MGPCG: layers of liquid cells added around the
                                interface block (default 1) */
  int interface_solve;       /* TIDE_ZARIFI_MGPCG: how the interface block is factored,
                                TIDE_ZARIFI_IFACE_AUTO (default), _AUGMENTED or _ASSEMBLED */
  const tide_array *phi;     /* liquid level set on cells (ghost fluid) or NULL */
  const tide_mac *fractions; /* open face fractions (f64) or NULL */
  double theta_min;          /* 0: TIDE_MAC_THETA_MIN */
  /* Wall contact inside the solve (beyond the thesis's explicit correction of section 3.7):
   * with ncolliders > 0 and contact_dhat > 0 every free node i at distance d_c = phi_c(x_i) -
   * thickness_c < dhat from collider c adds IPC's barrier kappa b(d^2, dhat^2) (solid/ipc.h,
   * tide_ipc_sdf) of its position at the end of the step, x + dt v, linearized at x* = m->x:
   * the solid's rows get the force -(g + dt H v), g = the barrier's gradient and H its PSD
   * Gauss-Newton Hessian blocks kappa (4 d^2 b'' + 2 b') N N^T, i.e. S += dt H and w += g (so
   * the SPD transform and its solvers apply unchanged).  A node closer than
   * TIDE_ZARIFI_CONTACT_FLOOR dhat (or outside) is linearized at that distance along the
   * collider's normal (its quadratic model continued to x*): counted in
   * stats.contact_lifted.  kappa <= 0: the stiffness at which one node at d = dhat/2 holds
   * TIDE_ZARIFI_CONTACT_LOAD = 100 times the solid's weight (its mass times |fem->gravity|,
   * 9.81 m/s^2 when zero): a resting solid then sits near d = dhat, and a solid meeting the floor
   * at 6 m/s is stopped before its underside seals a liquid pocket (at 1x it came within 3e-5 m
   * and the sealed pocket's suction, -3e6 Pa, held it squashed by 6.5%; docs/couple.md).  Not
   * with the factored formulation (K = R^T R). */
  tide_collider *const *colliders;
  int ncolliders;
  double contact_dhat;  /* [m]; 0: off */
  double contact_kappa; /* barrier stiffness [N/m^3 in 3D; per unit depth in 2D]; <= 0: auto */
  tide_csr **system;         /* if not NULL: receives the assembled system matrix
                                (general storage, both triangles; the caller frees
                                it), e.g. for a condition estimate (Table 6.2) */
  struct tide_zarifi_work *work; /* or NULL: the workspace of repeated projections (below) */
  int warm;                  /* 1: a Krylov solve of the SPD or indefinite form starts from the
                                `pressure` array's values (the last step's pressure, on the
                                liquid rows; 0 on cells liquid only now) and the solids' current
                                velocities (their free DOFs) instead of from 0: the same
                                relative-residual test against the same right side, fewer
                                iterations when the pressure changes little from step to step.
                                Ignored by the factored form and the direct solvers. */
  struct tide_zarifi_system **keep; /* if not NULL: receives the projection's system for
                                tide_zarifi_resolve (NULL on failure; the caller frees it
                                with tide_zarifi_system_free) */
} tide_zarifi_opts;
tide_zarifi_opts tide_zarifi_opts_default(void);

typedef struct tide_zarifi_stats {
  int64_t unknowns;   /* rows of the solved system */
  int64_t liquid;     /* liquid cells */
  int64_t solid_dofs; /* free solid DOFs (pinned/kinematic removed) */
  int64_t nonzeros;   /* nonzeros of the full (both triangles) system matrix */
  int64_t pieces;     /* clipped boundary pieces (all solids) */
  int iterations;     /* Krylov iterations (0 for direct) */
  double residual;    /* ||A x - b|| / ||b|| of the solved system; spd: of the coupled equations
                         (5.17) [B J; J^T -S] (p, v) = (E u* - J_c v_c, w), the indefinite form's
                         measure, with the unassembled blocks (zarifi.c, coupled_residual) */
  double system_residual; /* ||A x - b|| / ||b|| of the assembled system of the formulation */
  int refinements;        /* spd: iterative refinement steps against (5.17) (their iterations are
                             in `iterations`) */
  int converged;
  double alpha;      /* scaling used (SPD) */
  int64_t interface; /* TIDE_ZARIFI_MGPCG: rows of the exactly solved interface block */
  int64_t dead;      /* liquid rows that were all zero (cells closed on every side that no clipped
                        piece's flux reaches): p = 0 there */
  int ring;          /* TIDE_ZARIFI_MGPCG: the ring used */
  int64_t interface_factor; /* TIDE_ZARIFI_MGPCG: nonzeros of the interface factor */
  int interface_augmented;  /* TIDE_ZARIFI_MGPCG: 1 if it is the augmented form's LDL^T */
  double precond_seconds; /* TIDE_ZARIFI_MGPCG: preconditioner set-up (in solve_seconds) */
  double precond_cpu;     /* the same in CPU seconds of the process (in solve_cpu) */
  int64_t contact_nodes;  /* free nodes within dhat of a collider at x* (barrier active) */
  int64_t contact_lifted; /* of them, linearized at TIDE_ZARIFI_CONTACT_FLOOR dhat */
  double contact_gap;     /* smallest node-collider distance at x* [m] (HUGE_VAL: none) */
  double contact_kappa;   /* barrier stiffness used (last solid) */
  double geometry_seconds, assembly_seconds, solve_seconds; /* wall */
  double geometry_cpu, assembly_cpu, solve_cpu; /* CPU seconds of the process (all threads) */
} tide_zarifi_stats;
#define TIDE_ZARIFI_CONTACT_FLOOR 1e-3
#define TIDE_ZARIFI_CONTACT_LOAD 100
#define TIDE_ZARIFI_REFINE 3 /* spd: refinement steps at most */

/* One coupled pressure projection (Alg. 4 line 7).
 *   u        MAC velocities u* on entry, projected on return on the faces
 *            that carry flux (valid = 1 there, 0 elsewhere; others untouched)
 *   labels   u8 cells: AIR / LIQUID / SOLID (solid cells: inside a solid or
 *            a static wall)
 *   solids   ns meshes with a material: x = x* (positions at the start of
 *            the projection), v = v* (external accelerations added); on
 *            return v = the coupled velocities; pinned (kinematic) nodes get
 *            (target - x)/dt and are not unknowns.  Positions are not moved.
 *   pressure f64 cells or NULL: p [Pa] in liquid cells, 0 elsewhere
 *   valid    u8 MAC or NULL
 * The solid's equation (5.1) uses M = m->fem->mass (lumped), D = tau_M M +
 * tau_K K (Rayleigh, fem->tau_m, tau_k), K and b of the corotated linear
 * model at x* (tide_solid_corot_matrices; materials "linear" and
 * "corotational") and f = fem->force.  Any other material (neo-Hookean, StVK,
 * fixed corotated, spline, ...) is linearized at x* (beyond the thesis, its
 * ch. 7): K = the element-wise PSD-projected Hessian of its elastic energy,
 * b = K x* - dE/dx(x*) (tide_solid_elastic_matrices), i.e. one Newton step
 * of the solid's backward-Euler incremental potential from x*, taken inside
 * the coupled solve; the step does not iterate, so the nonlinear elastic
 * force is exact only to first order in dt v (the corotated model is
 * linearized the same way: its rotations are frozen at x*).  The factored
 * formulation needs K = R^T R and takes only the corotated model.  On a solver
 * failure (no convergence, not SPD) u and the solids are unchanged. */
int tide_zarifi_project(tide_mac *u, const tide_array *labels, tide_tetmesh *const *solids, int ns,
                        const tide_zarifi_opts *o, tide_array *pressure, tide_mac *valid,
                        tide_zarifi_stats *st);

/* Another right-hand side against a kept projection (tide_zarifi_opts.keep): the same geometry
 * (the build's labels, level set and fractions, copied; the solids' positions, pinning, targets
 * and masses as they were), the same matrix and solver set-up (IC(0)/ILU(0)/Jacobi, the
 * multigrid-in-block preconditioner with its interface factorization, or the CHOLMOD factor),
 * only a new right side from u (u* on entry, projected on return, as tide_zarifi_project) and the
 * solids' v and fem->force, then one solve.  Its answer is the full projection's with the same
 * options (to round-off for the direct solvers, to the tolerance for the Krylov ones: the SPD
 * block scaling alpha is the build's, not recomputed from this right side).  Differences allowed
 * (all on the right side): elastic_force; the relative flux is not applied (the build's
 * `relative` was for its own u*); the walls' barrier gradient is left out with barrier = 0,
 * which is refused when the barrier was active (a node within dhat: its Hessian is in the
 * matrix, and leaving it out changes the matrix).  warm: the Krylov solve starts from the
 * system's last solution (the build's or the last resolve's).  The system must not outlive its
 * solids; on a solver failure u and the solids are unchanged. */
typedef struct tide_zarifi_system tide_zarifi_system;
typedef struct tide_zarifi_resolve_opts {
  int elastic_force; /* as tide_zarifi_opts (default 1) */
  int barrier;       /* 1 (default): the build's wall barrier gradient in w; 0: left out;
                        2: left out, its Hessian (when active) kept in the matrix (not the full
                        projection without the barrier: its stiffness stays) */
  int warm;          /* 1 (default): start from the last solution (Krylov solvers) */
  double tol;        /* Krylov relative residual (default 1e-10) */
  int maxit;         /* 0: solver default */
} tide_zarifi_resolve_opts;
tide_zarifi_resolve_opts tide_zarifi_resolve_opts_default(void);
int tide_zarifi_resolve(tide_zarifi_system *S, tide_mac *u, tide_tetmesh *const *solids, int ns,
                        const tide_zarifi_resolve_opts *o, tide_array *pressure, tide_mac *valid,
                        tide_zarifi_stats *st);
void tide_zarifi_system_free(tide_zarifi_system *S);

/* The largest step t in (0, dt] for which x + t v keeps every free node of the solids (not
 * pinned, positive mass) at least a tenth of its distance from every collider
 * (tide_ipc_sdf_step_bound: conservative advancement, exact for planes; the colliders at their
 * current placement).  A node already touching or inside a collider (d <= 0) is left out.  With
 * the walls' barrier of tide_zarifi_project (linearized: one Newton step without line search) a
 * node meeting a wall fast overshoots its linear model; bounding the position update x += dt v by
 * this keeps it outside, and the barrier's force stops it. */
int tide_zarifi_contact_dt(tide_tetmesh *const *solids, int ns, tide_collider *const *colliders,
                           int ncolliders, double dt, double *out);

/* ------------------------------------- block preconditioner (spd, factored)
 * The SPD (5.25-5.36) and factored (5.43-5.45) systems
 *   A = [A11 A12; A21 A22],  A11 = B + J Z^-1 J^T  (the nl liquid rows first)
 * are a liquid Poisson problem B, the same for any solid, plus blocks that
 * live on the solid and the cells its boundary cuts.  IC(0)-PCG sees all of
 * it as one sparse matrix and needs more iterations as the grid is refined
 * and as the solid gets finer or stiffer (K Mz^-1 K in A22).  This
 * preconditioner splits the unknowns into two overlapping subspaces:
 *   I  the interface: every solid row, the liquid rows with an entry in a
 *      solid column (the cells J touches) and `ring` layers of their liquid
 *      neighbours; A[I, I] is factored once per projection (CHOLMOD), either
 *      assembled (supernodal LL^T of A[I, I]) or, given the split below, as
 *      the quasi-definite augmented matrix [X_II Y_I; Y_I^T -Z] (LDL^T without
 *      pivoting, which exists in any ordering: Vanderbei 1995; supernodal,
 *      linalg's ldlt_super.c, when its fronts are dense): its solve with
 *      (t, 0) gives A_II^-1 t in its first rows.  A_II's J Z^-1 J^T couples
 *      every pair of cells sharing a solid node (~140 entries a row with the
 *      Table 6.1 beam at 100^3); the augmented matrix keeps J's sparsity.
 *      Pool at 100^3 (11238 interface rows, 2100 solid DOFs): factor 7.3M ->
 *      2.1M nonzeros, 8.2 -> 0.93 GFlop, analysis 0.22 -> 0.017 s, the same
 *      iterations (the interface solve is exact either way);
 *   L  all liquid rows, where A11 is approximated by B = c A_poisson
 *      (c = dt dx^d / rho) and B^-1 by one geometric multigrid V-cycle V of
 *      tide.linalg (mgpcg.h, McAdams et al. 2010) on the same labels, face
 *      fractions and ghost-fluid theta;
 * and applies them as symmetric multiplicative Schwarz (Smith, Bjorstad &
 * Gropp, "Domain Decomposition", 1996, ch. 5):
 *   z  = R_I^T A_II^-1 R_I r
 *   z += R_L^T V R_L (r - A z) / c
 *   z += R_I^T A_II^-1 R_I (r - A z)
 * M^-1 = (I - E) A^-1 with E = Pi (I - R_L^T V R_L A / c) Pi, Pi = I -
 * R_I^T A_II^-1 R_I A the A-orthogonal projection away from I: E is
 * A-self-adjoint with eigenvalues < 1 when V is SPD, so M^-1 is SPD and PCG
 * is valid.  The V-cycle's iteration count is nearly independent of the
 * resolution; the interface solve captures the solid's stiffness exactly.
 * A: the system in general storage (both triangles), kept by reference;
 * cell_of_row: the cell of each liquid row (read at the set-up); P: the
 * liquid's Poisson problem (labels, weights, theta: copied into the
 * multigrid hierarchy). */
typedef struct tide_zarifi_precond tide_zarifi_precond;
/* The workspace of repeated coupled projections on one grid: the MG-in-block preconditioner's
 * multigrid hierarchy over the grid's cells, built at the first projection that uses it and
 * re-analysed for the next one's liquid (tide_mac_solver_update: no allocation; new would
 * allocate and zero every level for the whole grid -- 0.12-0.44 s at 100^3 where the update
 * takes 0.03-0.05 s).  A system kept from a projection (opts.keep) refers to it: it stays valid
 * until the next projection with the same workspace, after which its solves fail with a
 * message saying so, and is freed before the workspace (tide_zarifi_system_free gives its B
 * back to it).  Not shared between threads. */
typedef struct tide_zarifi_work tide_zarifi_work;
int tide_zarifi_work_new(const tide_grid *g, tide_zarifi_work **out);
void tide_zarifi_work_free(tide_zarifi_work *w);
int64_t tide_zarifi_work_bytes(const tide_zarifi_work *w);
const tide_grid *tide_zarifi_work_grid(const tide_zarifi_work *w);
/* A kept system's copies of the labels and fractions (fr may be NULL) in the workspace's
 * buffers, allocated at the first use and rewritten by each later projection (which the kept
 * system does not outlive, as above): *lab, *frac point at them. */
int tide_zarifi_work_inputs(tide_zarifi_work *w, const tide_array *labels, const tide_mac *fr,
                            const tide_array **lab, const tide_mac **frac);
/* Counts the rewrites of those copies (a kept system holding them checks it before a resolve). */
uint64_t tide_zarifi_work_inputs_gen(const tide_zarifi_work *w);
/* The liquid block B of a freed system, kept for the next projection's assembly to write into
 * (tide_mac_poisson_assemble_reuse: no fresh 30-60 MB and its page faults each step at 100^3):
 * the slot (NULL w: NULL), and giving a matrix to it (freed when the slot is taken or w NULL). */
tide_csr **tide_zarifi_work_spare(tide_zarifi_work *w);
void tide_zarifi_work_give(tide_zarifi_work *w, tide_csr *B);

/* The system's split A = X + Y Z^-1 Y^T (all blocks sparse, Z diagonal):
 *   X = [X11 0; 0 s22 X22],  Y = [Y1; sy2 Y2]
 * spd (5.27-5.30): X11 = B, X22 = Z2, s22 = alpha^2, Y1 = J, Y2 = Z2, sy2 = -alpha, Z = Z1;
 * factored (5.43): X11 = B, X22 = NULL (the identity), Y1 = J, Y2 = Rh, sy2 = -1, Z = Mz.
 * With it the interface block is solved through the quasi-definite augmented matrix
 * [X_II Y_I; Y_I^T -Z] (LDL^T; its factor is a fraction of A_II's, whose J Z^-1 J^T couples
 * every pair of cells that share a solid node); split NULL: the assembled A[I, I]. */
typedef struct tide_zarifi_split {
  const tide_csr *X11, *X22, *Y1, *Y2; /* general storage */
  double s22, sy2;
  const double *zinv; /* nw = Y1->ncols: 1 / Z */
  int mode;           /* TIDE_ZARIFI_IFACE_*: AUTO chooses by the entry counts */
  const tide_csr *Y1t, *Y2t; /* Y1^T, Y2^T (general storage): the products with Y^T */
  const int *dead;           /* ndead liquid rows whose row of A is 0 but A_ii = 1 */
  int64_t ndead;
} tide_zarifi_split;
/* With a split the preconditioner's residuals and tide_zarifi_precond_mul never touch the
 * assembled J Z^-1 J^T (or K-K) rows: each product with A is X x + Y (Z^-1 (Y^T x)), 2 nnz(Y)
 * entries for the coupling where A's rows hold nnz(J Z^-1 J^T) (5.6M against J's 0.22M for
 * the balls at 100^3); A is still needed for the set-up (the interface and, with the assembled
 * interface, A[I, I]). */
/* A may be NULL with a split: the interface, its ring and factor (augmented, or A[I, I] written
 * row by row from the split) and every product then come from the split alone. */
int tide_zarifi_precond_new(const tide_csr *A, int nl, const int *cell_of_row,
                            const tide_mac_poisson *P, double c, int ring,
                            const tide_zarifi_split *split, tide_zarifi_work *work,
                            tide_zarifi_precond **out);
/* z = M^-1 r (n = A->nrows); a tide_linop_fn with ctx = the preconditioner. */
int tide_zarifi_precond_apply(void *ctx, const double *r, double *z);
/* y = A x through the split (X x + Y Z^-1 Y^T x, dead rows y_i = x_i), or through the assembled
 * A without one; a tide_linop_fn with ctx = the preconditioner (PCG's product). */
int tide_zarifi_precond_mul(void *ctx, const double *x, double *y);
int64_t tide_zarifi_precond_interface(const tide_zarifi_precond *M);
/* entries of A in general storage: the assembled A's, or (A NULL) the count of its pattern
 * from the split (the same structural union of X and Y Z^-1 Y^T the products would give) */
int64_t tide_zarifi_precond_nonzeros(const tide_zarifi_precond *M);
/* 1 if the interface block was factored in its augmented form */
int tide_zarifi_precond_augmented(const tide_zarifi_precond *M);
/* nonzeros of the interface factor (L of LL^T or LDL^T) */
int64_t tide_zarifi_precond_factor_nnz(const tide_zarifi_precond *M);
double tide_zarifi_precond_setup_seconds(const tide_zarifi_precond *M);
void tide_zarifi_precond_free(tide_zarifi_precond *M);

/* The factor R of the corotated stiffness, K = R^T R (Eq. 5.37-5.39), for
 * the solid's current rotations (after tide_solid_corot_matrices): per
 * element R_t = sqrt(V_t) L A_eps A_F A_D Rt^T (rows: the element's strain
 * components in Voigt order xx, yy[, zz], xy[, xz, yz]; L the Cholesky
 * factor of A_Psi, Eq. 5.38).  Triplets at row r0 + e*ns, column c0 + DOF. */
int tide_zarifi_r_triplets(const tide_tetmesh *m, int r0, int c0, tide_triplets *T);

#ifdef __cplusplus
}
#endif
#endif
