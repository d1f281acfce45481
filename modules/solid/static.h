/*
 * static.h -- static equilibrium of deformable solids (tide.solid): the
 * minimizer of the total potential energy
 *
 *   Pi(x) = sum_e V_e psi(F_e(x)) - lambda f_dead . x + lambda W_p(x)
 *
 * over the free degrees of freedom, where f_dead (nv*d) gathers the nodal
 * forces m.force, gravity m_i g, body forces b V_e / (d+1) per element node
 * and dead surface loads (tractions t and pressures p on the reference
 * surface: t A_f / d per face node, the consistent integral of a constant
 * load against the linear shape functions), W_p is the work of follower
 * pressures (on the current surface), and lambda is the load factor.
 *
 * Load stepping: lambda goes 1/steps, 2/steps, ..., 1, and the pinned nodes
 * move along the straight line from their start positions to m.target in
 * the same steps (prescribed displacements).  Each step is solved by
 * Newton's method from the previous step's solution, with the exact element
 * Hessians (PSD-projected where they are not positive definite, or always
 * with `project`), the consistent tangent of the follower pressure
 * (non-symmetric: LU), and a backtracking line search on Pi (on the squared
 * residual norm when follower pressures make the load non-conservative).
 * Colliders are bound constraints (contact.h), frictionless.
 *
 * Convergence: the relative residual force |r_free|_2 / max(|f_ext|_2,
 * |f_int|_2) (f_int over all degrees of freedom, so reactions count) below
 * tol AND the relative increment |dx|_2 / |x - X|_2 of the Newton
 * correction below xtol.
 */
#ifndef TIDE_SOLID_STATIC_H
#define TIDE_SOLID_STATIC_H

#include "solid/collide.h"
#include "solid/fem.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { TIDE_LOAD_TRACTION = 0, TIDE_LOAD_PRESSURE = 1 };

/* A surface load on boundary faces (m->bound rows, 0-based). */
typedef struct tide_surface_load {
  int kind;     /* TIDE_LOAD_TRACTION (value: d components [Pa]) or
                   TIDE_LOAD_PRESSURE (value[0] = p [Pa], pushing against
                   the outward normal) */
  int follower; /* pressure on the current surface (else the reference one) */
  const int32_t *faces;
  int64_t nfaces;
  double value[3];
} tide_surface_load;

/* A pressure p [Pa] on one boundary face with nodes xf (d x d: node a at
 * xf[a*d], counter-clockwise / outward as m->bound): the consistent force
 * on each of its d nodes f = -p c / d (d entries), c the area-weighted
 * outward normal (3D: (x1 - x0) x (x2 - x0) / 2; 2D: the segment rotated by
 * -90 degrees), and (D != NULL) its derivative D[b*d*d + r*d + k] =
 * df_r / dx_{b,k} for each face node b (the follower tangent; 3D:
 * -p/3 [x_{b+2} - x_{b+1}]x / 2). */
void tide_pressure_face(int d, const double *xf, double p, double *f, double *D);

/* Consistent nodal forces of the dead loads (tractions, reference-surface
 * pressures) added to f (nv*d) [N]; follower pressures at positions x (may
 * be NULL to skip them). */
int tide_solid_surface_forces(const tide_tetmesh *m, const tide_surface_load *loads, int nloads,
                              const double *x, double *f);

typedef struct tide_static_opts {
  int steps;            /* load steps (>= 1) */
  int maxit;            /* Newton iterations per load step */
  double tol;           /* relative residual force (1e-6) */
  double xtol;          /* relative increment (1e-8) */
  int project;          /* PSD-project every element Hessian */
  int solver;           /* TIDE_SOLID_AUTO / CHOLMOD / LDLT (integrate.h) */
  int gravity;          /* include m_i g */
  double body[3];       /* body force [N/m^3] (N/m^2 in 2D) */
  const uint8_t *fixed; /* (nv*d) extra fixed degrees of freedom (held where they are), or NULL */
  const tide_surface_load *loads;
  int nloads;
  tide_collider *const *colliders;
  int ncolliders;
} tide_static_opts;

tide_static_opts tide_static_opts_default(void);

typedef struct tide_static_stats {
  int steps;        /* load steps completed */
  int failed_step;  /* 1-based load step that did not converge, 0 if none */
  int iterations;   /* Newton iterations, all steps */
  int line_search;  /* backtracking halvings, all steps */
  int projected;    /* iterations that fell back to PSD-projected Hessians */
  double residual;  /* final relative residual force */
  double increment; /* final relative increment */
  int converged;
  int stagnated;    /* stopped: the residual stayed at its rounding floor above tol */
  int64_t contacts; /* active contact nodes at the end */
  double seconds;
} tide_static_stats;

/* Solve for the equilibrium from the current positions m->x (updated in
 * place; velocities are set to zero).  Returns TIDE_OK also when a load step
 * does not converge (st->converged = 0, st->failed_step names it, m->x holds
 * the last iterate); errors are bad input and failed factorizations. */
int tide_solid_solve_static(tide_tetmesh *m, const tide_static_opts *o, tide_static_stats *st);

#ifdef __cplusplus
}
#endif
#endif
