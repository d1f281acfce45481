/*
 * liu.h -- penetration-free coupling of a level-set liquid with solid
 * vertices (Liu et al., "Penetration-free coupling of level-set liquids with
 * thin and volumetric solids", Sec. 4.3, Eq. 14-23).
 *
 * The liquid is {phi < 0} of a cell-centred level set on a tide_grid
 * (levelset.h); a solid is a set of vertices (tet boundary vertices, shell
 * or rod vertices, free or fixed points).  Contact is a barrier between each
 * vertex and the liquid's level set, evaluated through a distance metric
 * that interpolates phi at the primal cells around the vertex, and the
 * positions x of the vertices and the narrow-band values of phi are found
 * together by one Newton solve (Eq. 22).
 *
 * Plain C (no Lua); binding: lua_couple_liu.c.  Units SI; x in metres.
 */
#ifndef TIDE_COUPLE_LIU_H
#define TIDE_COUPLE_LIU_H

#include "grid/grid.h"
#include "grid/levelset.h"

/* ----------------------------------------------------------- distance (Eq. 14-16, 21) */

enum {
  TIDE_LIU_LINEAR = 1,   /* multilinear over the dual cell holding x (Fig. 5, Eq. 15):
                            2^dim cells; C0 across dual-cell faces, so the stencil is
                            fixed per Newton solve (Sec. 4.3.3, Fig. 7) and x may leave
                            it (the weights then extrapolate) */
  TIDE_LIU_QUADRATIC = 2 /* tensor-product quadratic B-spline over the 3^dim cells around
                            the cell holding x: C1 everywhere, so the stencil follows x */
};

#define TIDE_LIU_MAXST 27 /* largest stencil (quadratic, 3D) */

/* The distance of one vertex to the liquid surface and its derivatives,
 * d(phi, x) = sum_c w_c(x) phi_c over the stencil cells c (Eq. 14-15):
 *   dd/dphi_c = w_c,  dd/dx = sum_c phi_c dw_c/dx  (Eq. 21),
 *   d2d/dphi_c dx = dw_c/dx,  d2d/dx2 = sum_c phi_c d2w_c/dx2,  d2d/dphi2 = 0.
 * 1D weights at t = (x - x_base) / dx (x_base the centre of the base cell):
 *   linear     w_0 = 1 - t, w_1 = t                       (base: lower cell)
 *   quadratic  w_-1 = (1/2 - t)^2 / 2, w_0 = 3/4 - t^2,
 *              w_1 = (1/2 + t)^2 / 2                        (base: nearest cell)
 * and their tensor products.  Both reproduce a linear phi exactly, so for a
 * signed distance to a plane d is the distance.  Stencil cells outside the
 * grid are clamped onto its boundary cells (constant continuation; the same
 * cell may then appear more than once in cell[]). */
typedef struct tide_liu_dist {
  int n;                          /* stencil cells: 2^dim or 3^dim */
  int64_t cell[TIDE_LIU_MAXST];   /* their linear cell indices */
  double w[TIDE_LIU_MAXST];       /* dd/dphi_c */
  double dwdx[TIDE_LIU_MAXST][3]; /* d2d / dphi_c dx [1/m] */
  double d;                       /* distance [m], > 0 outside the liquid */
  double grad[3];                 /* dd/dx (1 / |grad phi| for a distance) */
  double hess[3][3];              /* d2d/dx2 [1/m] */
} tide_liu_dist;

/* Base cell of the stencil of x: linear, the lower cell of the dual cell
 * holding x (floor of (x - origin) / dx - 1/2 per axis); quadratic, the cell
 * holding x.  Not clamped (may lie outside the grid). */
void tide_liu_stencil_base(const tide_grid *g, int interp, const double *x, int base[3]);

/* Evaluate d and its derivatives at x with the stencil based at base (from
 * tide_liu_stencil_base of this or an earlier position: x may lie outside
 * it, the weights then extrapolate).  interp: TIDE_LIU_LINEAR / _QUADRATIC. */
void tide_liu_distance_at(const tide_grid *g, const double *phi, int interp, const int base[3],
                          const double *x, tide_liu_dist *out);

/* d alone (no derivatives), bit-identical to tide_liu_distance_at's d: the
 * cheap test of the pairs far from the liquid (d >= dhat: no barrier). */
double tide_liu_distance_value(const tide_grid *g, const double *phi, int interp,
                               const int base[3], const double *x);

/* d at np vertices x (np x dim, row major) with their own stencils, into
 * d[np]; OpenMP over vertices.  TIDE_EINVAL on a bad interp, TIDE_ENONFINITE
 * on a non-finite x. */
int tide_liu_distances(const tide_grid *g, const double *phi, int interp, int64_t np,
                       const double *x, double *d);

/* ------------------------------------------------- joint optimization (Eq. 22) */

enum { TIDE_LIU_CHOLMOD = 0, TIDE_LIU_BICGSTAB = 1, TIDE_LIU_PCG = 2 };
enum { TIDE_LIU_CCD_COMMON = 0, TIDE_LIU_CCD_PAPER = 1 }; /* see ccd in tide_liu_params */
enum { TIDE_LIU_HESS_GAUSS_NEWTON = 0, TIDE_LIU_HESS_PROJECTED = 1 }; /* see hessian */
enum { TIDE_LIU_STENCIL_LIQUID = 0, TIDE_LIU_STENCIL_LAGGED = 1 };    /* see stencil_mass */

typedef struct tide_liu_params {
  int interp;         /* TIDE_LIU_LINEAR / TIDE_LIU_QUADRATIC */
  double dhat;        /* barrier threshold d^ [m] (Eq. 19); <= 0: dx / 2 */
  double kappa;       /* barrier stiffness [kg] (Eq. 18; the objective is in kg m^2);
                         <= 0: the mass of a liquid cell, rho dx^dim */
  double rho;         /* liquid density [kg/m^3]: M_f = rho_cell V_cell (Eq. 10, 13) */
  double air_density; /* rho_a / rho_l of Eq. 13, in (0, 1] */
  double k;           /* Heaviside sharpness [1/m] (Eq. 11): that of the reference
                         volumes (the tracker's) */
  double band;        /* epsilon [m]: cells with |phi*| or |phi^n| < band are unknowns
                         (Sec. 4.2: 3 x the largest displacement); <= 0: 3 dx */
  double dt;          /* time step [s] (scales the convergence test) */
  double tol;         /* converged when ||p||_inf / dt <= tol [m/s] (Sec. 4.3.4; the
                         level-set entries weighted by rho_cell / rho_l: moving an
                         air value moves no liquid) and every volume is within
                         vol_tol; <= 0: 1e-2 dx / dt */
  double vol_tol;     /* relative volume tolerance (1e-4) */
  int max_iter;       /* Newton iterations (30) */
  int line_search;    /* 1: backtracking on the l1 merit, filtered by the CCD bound
                         t_b (Sec. 4.3.5) and by feasibility (d > 0 at every vertex);
                         0: full Newton steps (Fig. 12, top) */
  int hessian;        /* barrier Hessian per pair: TIDE_LIU_HESS_PROJECTED (default), the
                         full kappa (b'' grad d grad d^T + b' grad^2 d) with its phi-x
                         cross terms dw/dx and d2d/dx2, projected to PSD per pair (for
                         a fixed vertex the same as Gauss-Newton: d is linear in phi);
                         or TIDE_LIU_HESS_GAUSS_NEWTON, Eq. 20's kappa b'' grad d grad
                         d^T (the paper's, which drops b' grad^2 d as "numerically
                         small": a vertex moving through the liquid then stalls, see
                         docs/couple.md, Fig. 9) */
  int ccd;            /* the CCD step bound (Sec. 4.3.5) of the vertex segment against
                         its closest-point segment: TIDE_LIU_CCD_PAPER, the paper's
                         min(gamma, beta) of the segments' closest points; or
                         TIDE_LIU_CCD_COMMON (default), the first common t at which the
                         two points come within 10% of their starting distance (the
                         paper's bound stops a vertex pushing the surface ahead of it,
                         whose segments are collinear) */
  int stencil_mass;   /* TIDE_LIU_STENCIL_LIQUID (default): the cells of every vertex's
                         stencil at x* weigh a liquid cell, rho V_cell, in the inertia
                         term, air or not; TIDE_LIU_STENCIL_LAGGED: Eq. 13 everywhere
                         (the paper's).  With Eq. 13 the volume correction of each
                         step lowers every light air cell at the surface, those under
                         the gaps of a row of vertices too, and the barrier (rank one
                         over the stencil) answers by raising the lightest stencil
                         cell, the air cell under the vertex, to 3-5 dx instead of
                         holding the gap cells up.  Fig. 11c's row at 64 cells (0.3 dx
                         below a row of cell centres, 48 frames) leaks at 1.6-1.9 dx
                         with Eq. 13 (3-64%), from 1.9 dx with liquid mass; at the
                         other row positions measured both hold to 2.0 dx
                         (docs/couple.md, "Eq. 13 in the stencils") */
  int solver;         /* TIDE_LIU_CHOLMOD (supernodal Cholesky of the SPD block),
                         TIDE_LIU_BICGSTAB (BiCGSTAB + ILU(0), tol 1e-10) or
                         TIDE_LIU_PCG (CG + IC(0), tol 1e-10; the block is SPD) */
} tide_liu_params;

/* interp quadratic, dhat/kappa/band/tol from the grid, rho 1000, air 1e-3,
 * k 0 (must be set), dt 0 (must be set), vol_tol 1e-4, 30 iterations, line
 * search on, CHOLMOD. */
tide_liu_params tide_liu_params_default(void);

struct tide_tetmesh;

/* The solid vertices: positions are unknowns unless fixed.  With a mesh
 * (a tide.solid mesh with its material -- volume elements, shells, rods or a
 * merge of them, nv = its nodes), the solid
 * term of Eq. 22 is the mesh's incremental potential
 * 1/2 (x - x*)^T M (x - x*) + dt^2 Psi(x) + damping (tide_fem_ip_*, element
 * Hessians PSD-projected) instead of the inertia alone: x_star = the mesh's
 * prediction (tide_fem_predict), mass = its lumped masses, fixed = its
 * pinned or massless nodes, xn = the positions at the start of the step
 * (damping). */
typedef struct tide_liu_solid {
  int64_t nv;
  const double *x_star;            /* nv x dim predicted positions x* (Eq. 5) [m] */
  const double *mass;              /* nv lumped masses [kg] (> 0 for free vertices) */
  const uint8_t *fixed;            /* nv, 1: fixed (placed at x*); NULL: none */
  struct tide_tetmesh *mesh; /* NULL: free points with inertia only (its workspace keeps
                                the Hessian's CSR across solves) */
  const double *xn;          /* nv x dim x^n (with a mesh; NULL without damping) */
} tide_liu_solid;

typedef struct tide_liu_stats {
  int iterations;   /* Newton steps taken */
  int converged;    /* 1 if the test passed within max_iter */
  int diverged;     /* without line search: stopped at a full step to a non-finite
                       objective or a direction longer than 1e3 bands */
  int64_t nphi, nx; /* unknowns: level-set cells, vertex coordinates */
  int pairs;        /* vertices within d^ of the liquid at the end */
  int rebased;      /* linear: vertices whose stencil at x* extrapolated the start to
                       d <= 0 (Sec. 4.3.3's extrapolation error), paired with the dual
                       cell of the start x^n instead */
  int dropped;      /* linear: vertices seen inside even by that stencil (the pair is
                       not used) */
  int penetrating;  /* vertices with d <= 0 at the end (own stencil) */
  int halvings;     /* backtracking halvings, all iterations */
  int shifted;      /* factorizations retried on A + tau diag(A) (rounding) */
  int ccd_limited;  /* iterations whose step the CCD bound shortened */
  double min_d;     /* smallest vertex distance at the end [m] (own stencil) */
  double step;      /* ||p||_inf / dt of the last direction [m/s] */
  double alpha;     /* last step length */
  double vol_err;   /* max_c |V_c - V0_c| / V0_c at the end */
  double t_assemble, t_solve, t_ccd, t_search; /* seconds */
  double c_assemble, c_solve; /* CPU seconds (the process's, all threads) of the first two */
  int krylov_iters;                            /* BiCGSTAB iterations, all solves */
} tide_liu_stats;

/* One constrained optimization of Algorithm 1 (line 6), Eq. 22:
 *   min_{phi, x}  1/2 (phi - phi*)^T M_f (phi - phi*)              fluid inertia (Eq. 10)
 *               + 1/2 (x - x*)^T M (x - x*)                        solid inertia (Eq. 6)
 *               + kappa sum_v b(d(phi, x_v), d^)                   contact barrier (Eq. 18-19)
 *   s.t. h_c(phi) = sum_{labels = c} H(phi) V_cell - V0_c = 0       one per component (Eq. 10-11)
 * over the band cells of phi (Fig. 4) and the free vertex positions.
 * M_f = diag(rho ((1 - rho_a) H + rho_a) V_cell) (Eq. 13), lagged per
 * iteration.  Newton on the KKT system (Eq. 12) with the Hessian
 * diag(M_f) + diag(M) + the barrier's per-pair PSD block (see hessian), so
 * the block is SPD by construction; the KKT
 * system is solved through its Schur complement on the components (SPD
 * block factored once per iteration, ncomp + 1 solves).  The stencil of a
 * linear pair is fixed at x* (Sec. 4.3.3; at x^n when the one at x* does
 * not see the start outside); a quadratic one follows x.
 * The unknown cells are those with |phi*| or |phi^n| < band and the
 * stencil cells of every vertex at x^n and x*.
 * Starts from the input phi (phi^n on the unknowns; other cells take phi*) and x
 * (x^n), which must be penetration-free (every vertex d > 0): the barrier
 * keeps them so at every accepted step when line_search is on.
 * labels/ncomp/target: the components of phi* and their reference volumes
 * (tide_volume_tracker_update).  On return phi and x hold the result;
 * TIDE_EINVAL for bad arguments or an infeasible start (with line search),
 * TIDE_ENONFINITE on non-finite data.  Not converging is not an error
 * (stats->converged = 0). */
int tide_liu_solve(const tide_grid *g, const double *phi_star, const int32_t *labels, int ncomp,
                   const double *target, const tide_liu_solid *S, const tide_liu_params *p,
                   double *phi, double *x, tide_liu_stats *stats);

/* ------------------------------------------- velocity correction (Eq. 23, Fig. 8) */

/* The faces where the liquid meets a solid after the optimization: for
 * every vertex with d < dhat (the pair group), the faces between the 2^dim
 * cells of its dual cell that separate a liquid cell (phi < 0) from an air
 * cell, and with air = 1 also those between two air cells.  Each such face
 * gets u_f = sum_v W_fv v_v,a with the weight of vertex v proportional to the
 * overlap of a dx box at the vertex with a dx box at the face,
 * prod_b max(0, 1 - |x_v,b - x_f,b| / dx) (the box of Fig. 8 is d^-sized in
 * the paper; with d^ < dx it would hold no vertex), rows normalised;
 * fixed_f = 1 (a prescribed face for tide_liquid_project, which keeps it and
 * marks it valid, so the extrapolation into the air starts from it).
 * Eq. 23 is air = 0 with the barrier's d^.  With air = 1 and dhat the reach
 * of a step (d^ + the largest displacement), the solid's velocity is imposed
 * in the air around the vertices the liquid may reach: the velocity the
 * level set is then advected with does not carry liquid across a row of
 * vertices (Tide's addition for the first projection, see tide.liu).
 * slip = 1 (Tide's addition; 0 is Eq. 23): only the normal part of the
 * solid's velocity is imposed -- a face of axis a is set only where the
 * contact normals n (grad d at the vertices, weighted as above) have
 * n_a^2 >= 1/dim (at least one axis always qualifies), so that the liquid
 * slides freely along the solid (friction-free, as the barrier is) instead
 * of sticking to it through the faces tangential to the contact.
 * x, v: nv x dim positions [m] and velocities [m/s].  u (f64 MAC) and fixed
 * (u8 MAC) over g are written on those faces only.  *nfaces: faces set. */
int tide_liu_contact_faces(const tide_grid *g, const double *phi, int interp, double dhat, int air,
                           int slip, int64_t nv, const double *x, const double *v, tide_mac *u,
                           tide_mac *fixed, int64_t *nfaces);

/* Tide's stronger form of Eq. 23 for rods (and, with no segments, points):
 * every face whose centre lies within rc of the solid -- a segment between two
 * vertices (seg: nseg pairs of 0-based vertex indices, row major) or a vertex
 * -- gets the solid's velocity at its closest point (along a segment the
 * linear interpolation of its end vertices' velocities; the closest segment or
 * vertex wins) and fixed_f = 1, whatever the phase of the cells beside it.
 * The solid then acts on the projection as an obstacle of radius about rc all
 * along the rod, not only in the dual cells of its vertices: the liquid can
 * neither tunnel between two vertices of a rod nor flow through the cells
 * around a vertex once it is on both sides of it, and the pressure of a liquid
 * resting on the rod is carried by those faces.  Cells of liquid enclosed by
 * such faces are solid for the projection (tide_liquid_project).  slip = 1: a
 * face of axis a is set only where the segment's unit tangent t has
 * t_a^2 <= 1 - 1/dim (the axis is at least as normal to the rod as along it),
 * so the liquid slides freely along the rod; a vertex alone sets every axis.
 * x, v: nv x dim [m], [m/s]; u (f64 MAC) and fixed (u8 MAC) written on those
 * faces only.  *nfaces: faces set.  TIDE_EINVAL: rc <= 0, an index out of
 * range; TIDE_ENONFINITE: a non-finite position or velocity. */
int tide_liu_contact_segments(const tide_grid *g, double rc, int slip, int64_t nv, const double *x,
                              const double *v, int64_t nseg, const int32_t *seg, tide_mac *u,
                              tide_mac *fixed, int64_t *nfaces);

#endif
