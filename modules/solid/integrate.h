/*
 * integrate.h -- time integrators of deformable solids (tide.solid), each
 * advancing a mesh with a material (fem.h) by one step of dt, in place
 * (m->x, m->v), callable step by step from Lua:
 *
 *   tide_solid_step_linear   Zarifi's linearly implicit backward Euler for
 *                            corotational (or pure) linear elasticity with
 *                            Rayleigh damping (thesis Eq. 3.55, Alg. 2);
 *   tide_solid_step_newmark  Irving's Newmark scheme: explicit elasticity,
 *                            implicit damping by CG, collisions between the
 *                            position and the trapezoidal velocity update,
 *                            friction from the constraint forces (thesis
 *                            2.9, 3.1-3.2);
 *   tide_solid_step_newton   backward Euler as minimization of the
 *                            incremental potential (fem.h) by Newton's
 *                            method: PSD-projected Hessians, CHOLMOD with the
 *                            symbolic analysis reused, backtracking line
 *                            search (extended while a full step meets far
 *                            less curvature than the projected Hessian),
 *                            convergence on |dx|_inf / dt (converged = 0
 *                            when the iteration limit is hit or the line
 *                            search finds no decrease); contacts are
 *                            constraints of the minimization (projected
 *                            Newton with the active contact normals) and
 *                            friction is IPC's smoothed lagged potential
 *                            in it (friction.h), re-solved while the
 *                            lagged normal forces change.
 *
 * Common to all: gravity and the external force array of the fem, pinned
 * nodes moved to their targets (v = (target - x)/dt), optional collision
 * objects (collide.h), plastic flow after the position update when the
 * material is plastic.  Sparse matrices and factorizations are kept in the
 * mesh's workspace, their patterns built once.
 */
#ifndef TIDE_SOLID_INTEGRATE_H
#define TIDE_SOLID_INTEGRATE_H

#include "linalg/linalg.h"
#include "solid/collide.h"
#include "solid/fem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Linear solver choice: a sparse direct factorization with the symbolic
 * analysis kept (CHOLMOD supernodal Cholesky, or simplicial LDL^T, which
 * needs no BLAS and is faster for small systems), or IC(0)-PCG.  AUTO takes
 * LDL^T below TIDE_SOLID_SUPERNODAL_MIN unknowns and Cholesky above. */
enum { TIDE_SOLID_AUTO = 0, TIDE_SOLID_CHOLMOD = 1, TIDE_SOLID_LDLT = 2, TIDE_SOLID_PCG = 3 };
#define TIDE_SOLID_SUPERNODAL_MIN 1000

/* Contact processing of the linear integrator (after its position update)
 * and of the Newton integrator (after the constrained minimization: the
 * velocity condition at the contacts). */
enum {
  TIDE_CONTACT_FRICTION = 0, /* project + Irving's Gamma with friction (thesis 2.9) */
  TIDE_CONTACT_SIMPLE = 1,   /* Zarifi's wall projection (inelastic, no friction) */
  TIDE_CONTACT_BARRIER = 2   /* Newton: colliders as IPC barriers (ipc.h, needs dhat > 0),
                                with IPC's lagged friction from the barrier's normal forces */
};

typedef struct tide_step_opts {
  double dt;                       /* [s] */
  tide_collider *const *colliders; /* may be NULL */
  int ncolliders;
  int contact; /* TIDE_CONTACT_* (linear, Newton) */
  /* linear */
  int corotational; /* 1: element rotations each step; 0: pure linear */
  int solver;       /* TIDE_SOLID_AUTO, _CHOLMOD, _LDLT or _PCG (linear);
                       Newton: any but _PCG */
  double tol;       /* PCG relative residual (default 1e-8); Newton: |dx|_inf/dt
                       [m/s] (default 1e-6) */
  int maxit;        /* Krylov / Newton iteration limit (0: default) */
  /* Newton */
  int project; /* PSD projection of element Hessians (default 1) */
  int reuse;   /* keep the CHOLMOD symbolic analysis across factorizations */
  /* Newton, contact = FRICTION: IPC's smoothed lagged friction (friction.h) */
  double eps_v;            /* slip speed below which friction is static [m/s] (default 1e-4) */
  int friction_iterations; /* solves per step while the normal forces change (default 2) */
  double friction_tol;     /* ... by more than this relative to the largest mu lambda (0.02) */
  /* Newton: the initial guess, 0 the prediction xhat (inertia and external
   * forces), 1 the start positions (pinned nodes at their targets): the
   * robust start for large dt, i.e. static solves, where xhat lies far off */
  int guess;
  /* Newton: contact among the mesh's own primitives (self-contact of cloth,
   * shells and rods touching each other, tets' boundaries; ipc.h): dhat > 0
   * turns it on, the barrier threshold [m]; kappa its stiffness (<= 0:
   * IPC's kappa_min).  The step then starts from the start positions, its
   * line search from the CCD bound. */
  double dhat, kappa;
  /* Newton with solid contact: the contact offset xi [m] (>= 0, default 0:
   * the mid-surfaces / centrelines rest about dhat apart): the pairs'
   * barrier acts between xi and xi + dhat and the CCD keeps them beyond xi
   * (Codimensional IPC; tide_ipc_set_offset).  Two shells of thickness h:
   * xi = h; two rods of radius r: xi = 2 r. */
  double contact_offset;
  /* Newton with solid contact: friction coefficient between the mesh's own
   * primitives (IPC's lagged friction on the point-triangle and edge-edge
   * pairs, 0: frictionless) */
  double mu;
  /* Newton with solid contact: IPC's adaptive barrier stiffness (Li et al.
   * 2020, supplement): kappa (the option, else kappa_min) doubles, up to 100
   * times its start, whenever the smallest contact distance stays below
   * 1e-9 times the bounding-box diagonal and shrinks between Newton
   * iterations; the raised kappa is kept for the next steps (default 1) */
  int kappa_adapt;
  /* Newton with solid contact: check the invariant after the step (the
   * exact segment-triangle test of every edge against every triangle, and
   * every free node outside the barrier colliders); a violation is an
   * error naming the primitives (default 0: the CCD guarantees it) */
  int check;
} tide_step_opts;

/* Defaults: dt = 1/60, no colliders, friction contact, corotational,
 * AUTO solver, tol as above, project and reuse on. */
tide_step_opts tide_step_opts_default(void);

typedef struct tide_step_stats {
  int iterations;        /* Newton iterations (Newton), CG iterations (Newmark, linear PCG) */
  int linear_iterations; /* total inner Krylov iterations */
  int line_search;       /* total backtracking halvings (Newton) */
  double residual;       /* final |dx|_inf / dt (Newton) or relative residual (Krylov) */
  int converged;
  int64_t contacts; /* nodes processed by collision handling */
  int64_t plastic;  /* elements that yielded */
  double assemble_seconds, factor_seconds, solve_seconds, total_seconds;
  int analyses;            /* symbolic analyses done in this step */
  int friction_iterations; /* Newton: solves done for the lagged normal forces */
  double friction_change;  /* Newton: relative change of mu lambda in the last solve */
  int ccd_limited;         /* Newton with solid contact: iterations the CCD bound shortened */
  int64_t ccd_iterations;  /* ... the CCD bounds' iterations over all pairs in this step */
  int64_t ccd_capped;      /* ... pair searches that hit the iteration cap (their bound is the safe,
                              shorter step reached) */
  double kappa;            /* Newton with dhat > 0: the barrier stiffness at the end of the step */
  int kappa_updates;       /* ... its doublings in this step (kappa_adapt) */
  double min_distance;     /* ... the smallest contact distance at the end of the step [m]
                              (pairs and barrier colliders; HUGE_VAL when none is near) */
  int prescribed_rounds;   /* Newton with solid contact: augmented-Lagrangian rounds that moved
                              pinned nodes whose jump contact blocked (0: they jumped) */
  double prescribed_error; /* ... their largest distance from their targets at the end [m]
                              (0: reached; > 0 with converged = 0: contact kept them short) */
  double broad_seconds;    /* ... of total_seconds: the mesh's broad phase (candidate pairs) */
  double ccd_seconds;      /* ... and its CCD step bounds (line search, start, corrections) */
} tide_step_stats;

int tide_solid_step_linear(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st);
int tide_solid_step_newmark(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st);
int tide_solid_step_newton(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st);

/* For couplings (Zarifi Eq. 5.1, 5.7): the corotated stiffness K (CSR,
 * general storage, nv*d square, pattern fixed per mesh) and b = sum R Kt X
 * at positions x, assembled into the mesh workspace (valid until the next
 * call or step).  The lumped mass is m->fem->mass and Rayleigh damping
 * D = tau_m M + tau_k K (fem.h). */
int tide_solid_corot_matrices(tide_tetmesh *m, const double *x, int rotate, const tide_csr **K,
                              const double **b);

/* The same for any material, linearized at x (couplings of non-corotational
 * materials, e.g. Zarifi Eq. 5.1 with a neo-Hookean solid): K = d^2E/dx^2 at
 * x (element Hessians PSD-projected when flags hold TIDE_FEM_PROJECT) and
 * b = K x - dE/dx, so that the elastic force -dE/dx(x + dx) is approximated by
 * -(K (x + dx) - b) to first order in dx, the form of the corotated model.
 * Same workspace and pattern as tide_solid_corot_matrices (one of the two is
 * valid at a time); volume elements only. */
int tide_solid_elastic_matrices(tide_tetmesh *m, const double *x, int flags, const tide_csr **K,
                                const double **b);

/* The incremental potential's Hessian as a CSR matrix (upper storage) at x,
 * for the given prediction (fem.h tide_ip); pattern fixed per mesh.
 * flags: TIDE_FEM_PROJECT, TIDE_FEM_PINNED. */
int tide_solid_ip_matrix(tide_tetmesh *m, const tide_ip *ip, const double *x, int flags,
                         const tide_csr **H);
/* The same with the gradient g = dE/dx (nv*d; may be NULL) from the same
 * element pass.  H lives in the mesh's workspace (built on the first call,
 * refilled in place after: each entry the sum of its element triplets in
 * their fixed order, then +0 for the friction blocks of the pattern); it
 * stays valid until the next call that assembles on this mesh. */
int tide_solid_ip_system(tide_tetmesh *m, const tide_ip *ip, const double *x, int flags, double *g,
                         const tide_csr **H);

/* Total mechanical energy: kinetic + elastic - gravity work (m g . x) [J]. */
int tide_solid_total_energy(const tide_tetmesh *m, double *E);

#ifdef __cplusplus
}
#endif
#endif
