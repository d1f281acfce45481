/*
 * mgpcg.h -- solvers specialised to the MAC-grid Poisson problem
 * (mac_poisson.h), matrix-free on the grid, OpenMP-parallel, deterministic:
 *
 *   TIDE_MAC_MGPCG  conjugate gradients preconditioned by one geometric
 *                   multigrid V-cycle (McAdams, Sifakis & Teran, "A parallel
 *                   multigrid Poisson solver for fluids simulation on large
 *                   grids", SCA 2010): labels coarsened by 2 per axis (a
 *                   coarse cell is AIR if any child is AIR, else LIQUID if
 *                   any child is LIQUID, else SOLID), trilinear prolongation
 *                   P and restriction R = P^T / 2^dim, re-discretized coarse
 *                   operators (with cut-cell face weights: the fraction of a
 *                   coarse face is the mean over the 2^(dim-1) fine rows
 *                   crossing it of the row's series conductance between the
 *                   coarse centres -- the fine face and the fine links
 *                   through the two centres; the open area of the face for
 *                   links without walls; ghost-fluid theta acts on the
 *                   finest level only), damped
 *                   Jacobi smoothing (omega = 2/3) plus extra red-black
 *                   Gauss-Seidel sweeps in a band of cells near the boundary
 *                   and near partly open faces (run slab by slab: slabs of
 *                   MG_SLAB cells, even then odd, two synchronisations per
 *                   smoothing), post-smoothing the adjoint of
 *                   pre-smoothing, exact dense Cholesky bottom solve: the
 *                   V-cycle is a fixed symmetric positive definite operator,
 *                   so CG stays valid.  Iteration counts are nearly
 *                   independent of the resolution.
 *   TIDE_MAC_MIC0   CG preconditioned by modified incomplete Cholesky MIC(0)
 *                   in natural cell order (Bridson, "Fluid Simulation for
 *                   Computer Graphics", 2nd ed., 5.2.6, tau = 0.97,
 *                   sigma = 0.25); the triangular solves run in parallel over
 *                   wavefronts of grid pencils, with the same result as the
 *                   serial sweep.
 *   TIDE_MAC_CG     unpreconditioned CG (the baseline).
 *
 * A solver is created for a grid and a problem; tide_mac_solver_update
 * re-analyses new labels / weights on the same grid (the next time step)
 * without allocating unless the boundary band outgrows its lists (or weights
 * appear for the first time).  The analysis works inside each level's liquid
 * bounding box (plus one pass over the labels), so a small liquid in a big
 * box costs about what its cells cost.  Solves allocate nothing; per MGPCG
 * iteration a level run in parallel costs 10 synchronisations (the PCG
 * update carries the first smoothing sweep, the last sweep carries r.z, the
 * new direction p and A p are one pass, q = A z + beta q).  Liquid regions with no Dirichlet (air) face are detected;
 * their pressure is defined up to a constant: the right-hand side is
 * projected onto the range (mean removed per region), and the returned
 * pressure has zero mean in each such region.
 *
 * Vectors b and x are cell arrays of the user grid (ncells doubles, layout of
 * grid.h); entries at non-liquid cells of b are ignored and those of x are
 * set to 0.  Stopping test: ||b - A x||_2 <= tol ||b||_2 over liquid cells.
 * Results are bit-identical for any thread count (fixed-order reductions,
 * colour-ordered Gauss-Seidel, wavefront-ordered MIC(0)).
 */
#ifndef TIDE_MGPCG_H
#define TIDE_MGPCG_H

#include "linalg/mac_poisson.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { TIDE_MAC_MGPCG = 0, TIDE_MAC_MIC0 = 1, TIDE_MAC_CG = 2 };
/* "mgpcg", "mic0", "cg" */
const char *tide_mac_method_name(int method);

typedef struct tide_mac_solver_opts {
  int method;          /* TIDE_MAC_MGPCG (default), TIDE_MAC_MIC0, TIDE_MAC_CG */
  int smooth;          /* damped Jacobi sweeps before and after the coarse correction (1) */
  int boundary_sweeps; /* red-black Gauss-Seidel sweeps in the boundary band per smoothing (4) */
  int band;            /* boundary band: liquid cells within this many cells (L-inf) of a
                          non-liquid cell, the domain boundary or a partly open face
                          between liquid cells (fraction < 0.999) (1) */
  double omega;        /* Jacobi damping (2/3) */
  int bottom_cells;    /* coarsen until a level has at most this many cells (256) */
} tide_mac_solver_opts;

tide_mac_solver_opts tide_mac_solver_opts_default(void);

typedef struct tide_mac_solver tide_mac_solver;

/* Create a solver for P (o NULL: defaults).  Allocates the hierarchy and all
 * work vectors for P's grid and analyses P. */
int tide_mac_solver_new(const tide_mac_poisson *P, const tide_mac_solver_opts *o,
                        tide_mac_solver **out);
/* Analyse a new problem on the same grid extents (labels, weights, theta or
 * dx changed).  After this, solves use the new problem. */
int tide_mac_solver_update(tide_mac_solver *S, const tide_mac_poisson *P);
/* Solve A x = b.  b, x: ncells doubles (x is the initial guess when
 * o->use_x0).  o NULL: defaults of tide_solve_opts_default(); o->nullspace is
 * not needed (floating regions are found automatically).  Stats always
 * filled.  Errors: TIDE_ENOCONV (tolerance not met in maxit), TIDE_EINTR,
 * TIDE_ENONFINITE (b or x0), TIDE_ENOTSPD (breakdown). */
int tide_mac_solver_solve(tide_mac_solver *S, const double *b, double *x, const tide_solve_opts *o,
                          tide_solve_stats *st);
void tide_mac_solver_free(tide_mac_solver *S);
/* z = M^-1 r: one application of the solver's preconditioner (MGPCG: one
 * V-cycle from z = 0; MIC(0): its two triangular solves; CG: z = r), for
 * other Krylov solvers that hold the Poisson problem as a block (e.g. the
 * liquid block of the coupled system's preconditioner, couple/zarifi.h).
 * r, z: ncells doubles on the user grid; r at non-liquid cells is ignored, z
 * there is set to 0.  On floating regions (no Dirichlet face) r and z are
 * made mean-free per region, so the operator is Pi V Pi.  A fixed symmetric
 * positive (semi-)definite operator, in the units of A^-1 (m^2); allocates
 * nothing.  Errors: TIDE_ENONFINITE (r), TIDE_EINVAL. */
int tide_mac_solver_precondition(tide_mac_solver *S, const double *r, double *z);
/* The same operator on a compact numbering of the cells (a Krylov solver's rows): pad[q] is
 * the solver's own (padded level-0) index of the user cell cells[q], or -1 where the solver
 * does not hold that cell as liquid (tide_mac_solver_row_map, valid until the next
 * tide_mac_solver_update), and
 *   z[q] += c (V r~)[pad[q]]   (pad[q] >= 0),   r~ = r[q] at pad[q], 0 at every other cell,
 * without the two user-grid arrays (ncells doubles each) tide_mac_solver_precondition reads
 * and writes.  n rows, r and z: n doubles (z is added to).  Allocates nothing.  Errors:
 * TIDE_ENONFINITE (r), TIDE_EINVAL (a map entry outside the grid; the map cell outside it).
 * A map made before the last update is not detected: its caller keeps track (the coupled
 * preconditioner checks its workspace's generation). */
int tide_mac_solver_row_map(const tide_mac_solver *S, int n, const int *cells, int *pad);
int tide_mac_solver_precondition_rows(tide_mac_solver *S, int n, const int *pad, const double *r,
                                      double *z, double c);
/* The same with r replaced at nfix rows (fix[k] takes fixv[k]; a row given twice, its last
 * value) and, with assign, z overwritten: z[q] = c (V r~)[pad[q]], 0 where pad[q] < 0 -- so a
 * caller whose right side differs from r at a few rows passes r itself, and one that would
 * zero z first does not.  Errors as above (r checked at every row, the fixed ones too), and
 * TIDE_EINVAL for a fixed row outside 0..n-1, TIDE_ENONFINITE (fixv). */
int tide_mac_solver_precondition_rows_ex(tide_mac_solver *S, int n, const int *pad,
                                         const double *r, int nfix, const int *fix,
                                         const double *fixv, double *z, double c, int assign);

/* What a solver built, and the memory traffic model used by the benchmark. */
typedef struct tide_mac_solver_info {
  int method;
  int levels;             /* multigrid levels (1 for mic0 / cg) */
  int64_t cells[16];      /* interior cells per level */
  int64_t liquid[16];     /* liquid cells per level */
  int64_t active[16];     /* cells visited per sweep (active pencils) per level */
  int64_t band[16];       /* boundary band cells per level */
  int bottom;             /* unknowns of the dense bottom solve */
  int floating;           /* liquid regions without a Dirichlet face */
  int wavefronts;         /* MIC(0): wavefronts per triangular solve */
  double apply_bytes;     /* bytes moved by one operator application */
  double iteration_bytes; /* bytes moved by one iteration of the method */
  double setup_seconds;   /* last new / update */
  int64_t bytes;          /* memory held */
} tide_mac_solver_info;

int tide_mac_solver_info_get(const tide_mac_solver *S, tide_mac_solver_info *info);

/* One-shot: new + solve + free. */
int tide_mac_solve(const tide_mac_poisson *P, const tide_mac_solver_opts *so, const double *b,
                   double *x, const tide_solve_opts *o, tide_solve_stats *st);

#ifdef __cplusplus
}
#endif
#endif
