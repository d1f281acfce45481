/*
 * fem.h -- finite elements of deformable solids (tide.solid): element
 * kernels as pure functions over fixed-size arrays, the material state
 * attached to a mesh (lumped mass, plasticity, pinned nodes, forces), and
 * assembly of forces, energies, Hessians, the corotational K and b (Zarifi
 * ch. 3) and the incremental potential (Liu et al. Eq. 22) into any triplet
 * list at any row/column offset of a larger system.
 *
 * Element kernels (delfem2 style): for an element with nper = d + 1 nodes
 * in d dimensions,
 *   x      nper*d positions (node a, coordinate i at x[a*d + i]) [m]
 *   Dminv  d x d inverse rest edge matrix (row-major) [1/m]
 *   vol    rest volume (area in 2D) [m^d]
 *   grad   nper*d, same layout as x
 *   hess   (nper*d)^2, row-major, hess[(a*d+i)*nper*d + b*d+k]
 * i.e. double x[4][3], grad[12], hess[12][12] for a tetrahedron.
 * The deformation gradient is F = Ds Dm^-1, Ds = [x1-x0, ..., xd-x0]
 * (Zarifi Eq. 3.30-3.34, Irving 2.3); with plasticity Dm^-1 is replaced by
 * Dm^-1 Fp^-1 (F_e = F Fp^-1, Irving 2.6.3).
 */
#ifndef TIDE_SOLID_FEM_H
#define TIDE_SOLID_FEM_H

#include "solid/material.h"
#include "solid/mesh.h"
#include "tide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loops run in parallel (OpenMP) only above these sizes: cheap per-node or
 * per-entry loops, and element-kernel loops.  Below them a parallel region
 * costs more than it saves, above all on a busy machine. */
#define TIDE_SOLID_PAR_MIN 8192
#define TIDE_SOLID_PAR_ELEM 512

/* ------------------------------------------------------ element kernels */

/* Gradients of the linear shape functions, g[a*d + j] = dN_a/dX_j:
 * rows 1..d are the rows of Dm^-1, row 0 minus their sum. */
void tide_fe_shape_gradients(int d, const double *Dminv, double *g);

/* F = Ds Dm^-1 of one element (d x d). */
void tide_fe_deformation_gradient(int d, const double *x, const double *Dminv, double *F);

/* Elastic energy of one element E = vol Psi(F) (Zarifi Eq. 3.35), its
 * gradient dE/dx = vol P(F) : dF/dx (minus the nodal forces, Irving 2.4:
 * G = -P B_m with B_m = -vol Dm^-T) and Hessian vol (dF/dx)^T dP/dF (dF/dx)
 * (PSD when project != 0).  fiber: rest fibre direction or NULL for the
 * material's default.  Any output may be NULL. */
void tide_fe_energy(const tide_material *m, int d, const double *x, const double *Dminv, double vol,
                    const double *fiber, int project, double *E, double *grad, double *hess);

/* Damping of one element in the rotated frame (Irving 2.6.2): with
 * Fdot = Vs Dm^-1 from the node velocities v and R the rotation of F at x,
 *   Ddiss = vol D(Fdot) (dissipation potential, material.h),
 *   grad  = dDdiss/dv = -(damping forces),
 *   C     = d grad / dv = vol (dF/dx)^T dP_d/dFdot (dF/dx), PSD, constant
 *           in v for a fixed R.
 * Any output may be NULL. */
void tide_fe_damping(const tide_material *m, int d, const double *x, const double *v,
                     const double *Dminv, double vol, double *Ddiss, double *grad, double *C);

/* Zarifi's corotational linear element (Eq. 3.44, 3.52-3.54):
 *   Kt  = element stiffness of the linear model (vol A^T A_Psi A), constant,
 *   R   = rotation of F at x (polar decomposition via the signed SVD, so it
 *         is a proper rotation also for inverted elements; Irving 2.5.1),
 *   K   = Rt Kt Rt^T and b = Rt Kt X (Rt = block-diagonal repetition of R,
 *         X the rest positions of the element's nodes).
 * Kt (input, (nper*d)^2) comes from tide_fe_corot_stiffness. */
void tide_fe_corot_stiffness(double mu, double lambda, int d, const double *Dminv, double vol,
                             double *Kt);
void tide_fe_corot(int d, const double *Kt, const double *x, const double *X, const double *Dminv,
                   double *R, double *K, double *b);

/* ------------------------------------------------ material state of a mesh */

typedef struct tide_fem {
  tide_material mat;
  double rho;           /* density [kg/m^3] ([kg/m^2] for 2D meshes: mass per area) */
  tide_array *mass;     /* (nv) f64 lumped nodal masses rho V_e / (d+1) summed [kg] */
  tide_array *pinned;   /* (nv) u8: 1 = kinematic node (follows `target`) */
  tide_array *target;   /* (nv, d) f64 positions pinned nodes reach at the end of a step [m] */
  tide_array *force;    /* (nv, d) f64 external nodal forces [N], held over a step */
  tide_array *fiber;    /* (ne, d) f64 per-element rest fibre directions, or NULL */
  /* collider contacts at the end of the last Newton step (the lag of its
   * friction, integrate.c): normal force [N] and collider (1-based index in
   * that step's list, 0: none) per node */
  tide_array *contact_force;    /* (nv) f64 */
  tide_array *contact_collider; /* (nv) i32 */
  /* IPC's adaptive barrier stiffness kept across Newton steps (integrate.c,
   * kappa_adapt): the kappa the update raised, for the step options dhat
   * [m] and kappa (<= 0: kappa_min) it was reached with; 0 when none.  State
   * of the run, checkpointed (the workspaces are not).  ipc_dmin [m]: the
   * smallest contact distance at the last Newton iterate the update looked
   * at, the "previous" distance its rule compares with, carried across
   * steps (a resting contact takes one iteration per step); 0: none. */
  double ipc_kappa, ipc_kappa_dhat, ipc_kappa_opt, ipc_dmin;
  double gravity[3];    /* [m/s^2], default (0, -9.81, 0) */
  /* plasticity (Irving 2.6.3, 2.7); Fpinv NULL while the material is elastic */
  double yield;         /* yield radius gamma on |log F^_e| (0: no flow) */
  double plastic_limit; /* Fp's singular values clamped to [1/limit, limit] (> 1) */
  int isochoric;        /* yield on the deviatoric part only: det Fp stays 1 */
  tide_array *Fpinv;    /* (ne, d, d) f64 inverse plastic deformation */
  tide_array *Fpgoal;   /* (ne, d, d) f64 log of the goal plastic stretch, or NULL */
  tide_array *Dminv_eff;/* (ne, d, d) f64 Dm^-1 Fp^-1 used by the kernels (plastic only) */
  /* Rayleigh damping of the corotational linear integrator (Zarifi 3.50) */
  double tau_m, tau_k;  /* [1/s] and [s] */
  /* corotational linear state (Zarifi Alg. 1-2): element stiffness and
   * the rotations of the last assembly */
  tide_array *Kt;       /* (ne, k, k) f64, k = nper*d; allocated on first use */
  tide_array *R;        /* (ne, d, d) f64 */
  tide_array *ebuf;     /* (max(ne*nper, nv) * d) f64 scratch for per-element results */
  struct tide_thin *thin; /* shells and rods of the mesh (thin.h), or NULL */
  void *work;           /* integrator workspaces (integrate.c) */
  size_t work_bytes;
  void (*work_free)(void *);
} tide_fem;

/* Attach (or replace) the material of a volume mesh: lumped masses from the
 * density, no pinned nodes, zero external force, gravity (0, -9.81[, 0]).
 * Replacing keeps pins, targets and forces.  Fails for surface meshes and
 * invalid parameters. */
int tide_fem_attach(tide_tetmesh *m, const tide_material *mat, double rho);
/* The material state of m (masses zero, no pins, zero forces, gravity
 * (0, -9.81[, 0])) if it has none yet; thin.c attaches shells and rods
 * through it. */
int tide_fem_alloc(tide_tetmesh *m);
/* Volume elements the element kernels act on: m->ne for volume meshes, 0
 * for shells and rods (their energies are thin.h's). */
static inline int64_t tide_fem_nvol(const tide_tetmesh *m) { return m->surface ? 0 : m->ne; }
void tide_fem_free(tide_fem *f);
size_t tide_fem_bytes(const tide_fem *f);

/* Per-element rest fibre directions (ne x d, normalized here); NULL removes
 * them. */
int tide_fem_set_fibers(tide_tetmesh *m, const double *dirs);

/* Enable multiplicative plasticity: yield radius gamma > 0 on |log F^_e|,
 * limit > 1 on Fp's singular values; resets Fp = I.  goal_log (ne x d x d,
 * may be NULL): symmetric log of the goal plastic deformation per element
 * for plasticity control (Irving 2.7).  isochoric != 0: the yield criterion
 * and the return mapping act on the deviatoric part of log F^_e only, so the
 * plastic flow preserves volume (det Fp = 1, as for metals or clay; the
 * limit then scales the traceless log stretch into its range instead of
 * clamping each value; Irving advises against it together with a goal that
 * changes volume). */
int tide_fem_set_plasticity(tide_tetmesh *m, double yield, double limit, const double *goal_log,
                            int isochoric);
/* Return mapping after a position update (Irving 2.6.3 / 2.7): for each
 * element F_e,trial = F Fp^-1 = U F^ V^T; if |log F^| > yield it is scaled
 * back onto the yield surface; Fp,trial = F^_proj^-1 U^T F; with a goal,
 * the log stretch of Fp moves along the segment from the old to the trial
 * value only as far as it approaches the goal; the singular values are
 * clamped to [1/limit, limit]; Fp is stored symmetric (its rotation is
 * irrelevant to isotropic models).  `flowed` (may be NULL) returns the
 * number of elements that yielded. */
int tide_fem_plastic_flow(tide_tetmesh *m, const double *x, int64_t *flowed);

/* The Dm^-1 the kernels use for element e (Dm^-1 Fp^-1 when plastic). */
static inline const double *tide_fem_dminv(const tide_tetmesh *m, int64_t e) {
  const tide_array *a = m->fem && m->fem->Dminv_eff ? m->fem->Dminv_eff : m->Dminv;
  return TIDE_F64P(a) + e * m->dim * m->dim;
}

/* ------------------------------------------------------------- assembly */

/* A triplet list target: entries are written to i[t], j[t], v[t] for
 * t in [start, start + count); row/column indices are shifted by `offset`
 * (the position of this solid's first degree of freedom in a larger
 * system).  Every assembly routine writes a fixed number of entries in a
 * fixed order, so the same list can refill a sparse matrix whose pattern was
 * built once (linalg: tide_csr_set_triplet_values). */
typedef struct tide_tripletbuf {
  int *i, *j;
  double *v;
  int64_t start;
  int64_t offset;
} tide_tripletbuf;

/* Number of triplets one element block writes: (nper*d)^2; and for the
 * whole mesh: ne * (nper*d)^2 for the volume elements, then the blocks of
 * the thin parts (thin.h, tide_thin_nnz) (+ nv*d for the mass diagonal in
 * IP Hessians).  Energies, gradients and Hessians below include the thin
 * parts. */
int64_t tide_fem_elem_nnz(const tide_tetmesh *m);

/* Write the (nn*d)^2 block H of a stencil with nodes el[0..nn-1] into tb at
 * triplet t (row-major, rows/columns of pinned nodes zeroed when flags
 * hold TIDE_FEM_PINNED). */
void tide_fem_write_block(int d, int nn, const int32_t *el, const double *H, int flags,
                          const uint8_t *pinned, tide_tripletbuf *tb, int64_t t);

/* Flags of the assembly routines. */
enum {
  TIDE_FEM_PROJECT = 1, /* PSD-project each element Hessian (in the diagonal frame) */
  TIDE_FEM_PINNED = 2   /* treat pinned DOFs as fixed: their rows/columns are
                           zeroed and their diagonal set to the mass (IP) or 1 */
};

/* Elastic energy sum_e vol_e Psi(F_e) at positions x (nv*d) [J].
 * Deterministic reduction. */
int tide_fem_energy(const tide_tetmesh *m, const double *x, double *E);
/* grad = dE/dx (nv*d) = -(elastic nodal forces); element contributions are
 * gathered per node in a fixed order (no atomics, thread-count
 * independent). */
int tide_fem_gradient(const tide_tetmesh *m, const double *x, double *grad);
/* Element Hessians d^2E/dx^2 into tb: ne*(nper*d)^2 entries. */
int tide_fem_hessian(const tide_tetmesh *m, const double *x, int flags, tide_tripletbuf *tb);

/* Damping forces of the rotated-frame model at (x, v): grad = dD/dv
 * (= -forces), and optionally the damping matrix C into tb (may be NULL). */
int tide_fem_damping_gradient(const tide_tetmesh *m, const double *x, const double *v, double *grad);
int tide_fem_damping_matrix(const tide_tetmesh *m, const double *x, tide_tripletbuf *tb);

/* Zarifi's corotational system at positions x (Alg. 2 lines 5-11):
 * element rotations into fem->R, K = sum Rt Kt Rt^T into tb
 * (ne*(nper*d)^2 entries; may be NULL), b = sum Rt Kt X (nv*d; may be
 * NULL).  Kt is computed once (Alg. 1) from the material's mu, lambda.
 * rotate = 0 gives the pure linear model (R = I; Zarifi Fig. 3.4). */
int tide_fem_corot_system(tide_tetmesh *m, const double *x, int rotate, tide_tripletbuf *tb,
                          double *b);
/* Corotational elastic energy 1/2 sum (Rt^T x - X)^T Kt (Rt^T x - X) with
 * the rotations of the last tide_fem_corot_system. */
int tide_fem_corot_energy(const tide_tetmesh *m, const double *x, double *E);

/* --------------------------------------------- incremental potential */

/* Backward Euler as minimization (Liu et al. Eq. 22, solid part; Gast et
 * al. 2015):
 *   E(x) = 1/2 (x - xhat)^T M (x - xhat) + dt^2 sum_e vol_e Psi(F_e(x))
 *          + dt sum_e vol_e D_e(F_e(x) - F_e(xn))
 * with xhat = xn + dt vn + dt^2 M^-1 (f_ext + M g) and the damping
 * rotations taken at xn (so the last term is quadratic).  Its minimizer x
 * gives v = (x - xn)/dt of one backward Euler step, plus the thin parts'
 * dt^2 E_thin and their Rayleigh term (thin.h).  xn may be NULL when
 * nothing is damped; given, the value is taken relative to the constant
 * 1/2 (xn - xhat)^T M (xn - xhat) (tide_fem_ip_value computes the
 * kinetic term as 1/2 (x - xn)^T M (x - xn - 2 (xhat - xn)), which stays
 * exact in floating point when xhat lies far away, as for large dt). */
typedef struct tide_ip {
  double dt;
  const double *xhat; /* nv*d */
  const double *xn;   /* nv*d or NULL */
} tide_ip;

int tide_fem_ip_value(const tide_tetmesh *m, const tide_ip *ip, const double *x, double *E);
int tide_fem_ip_gradient(const tide_tetmesh *m, const tide_ip *ip, const double *x, double *g);
/* Hessian: the element blocks (ne*(nper*d)^2 entries, scaled by dt^2 and
 * including damping) followed by the mass diagonal (nv*d entries). */
int tide_fem_ip_hessian(const tide_tetmesh *m, const tide_ip *ip, const double *x, int flags,
                        tide_tripletbuf *tb);
/* Gradient (g, nv*d, may be NULL) and Hessian in one pass over the elements. */
int tide_fem_ip_gradient_hessian(const tide_tetmesh *m, const tide_ip *ip, const double *x,
                                 int flags, double *g, tide_tripletbuf *tb);
int64_t tide_fem_ip_nnz(const tide_tetmesh *m);

/* Predicted positions xhat = xn + dt vn + dt^2 (g + f_ext / m) for free
 * nodes; pinned nodes get their target. */
int tide_fem_predict(const tide_tetmesh *m, double dt, double *xhat);

#ifdef __cplusplus
}
#endif
#endif
