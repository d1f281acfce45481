/*
 * viscosity.h -- implicit viscosity on the MAC grid (tide.liquid.diffuse,
 * tide.liquid.viscosity; docs/liquids-physics.md).
 *
 * Units: kinematic viscosity nu [m^2/s], dynamic viscosity mu = rho nu
 * [Pa s], density rho [kg/m^3], dt [s], velocities [m/s].  Face arrays
 * follow grid.h (u is (ni+1, nj[, nk]) ...); periodic axes follow
 * periodic.h (face n[a] duplicates face 0).
 *
 * References
 *   [Li]    Li, CMU 15-769 lecture 16, "Grid-based viscosity (diffusion)":
 *           du_k/dt = nu lap u_k per component, implicit Euler.
 *   [BB08]  Batty & Bridson, "Accurate viscous free surfaces for buckling,
 *           coiling, and rotating liquids", SCA 2008 (variational viscosity
 *           with liquid volume fractions; the traction-free surface is the
 *           natural boundary condition of the minimization).
 *   [LBB17] Larionov, Batty & Bridson, "Variational Stokes", SIGGRAPH 2017
 *           (the same control volumes, stress at cell centres and edges).
 */
#ifndef TIDE_VISCOSITY_H
#define TIDE_VISCOSITY_H

#include "grid/grid.h"
#include "linalg/linalg.h"

/* Tangential condition at the domain walls and at SOLID cells. */
enum { TIDE_WALL_NOSLIP = 0, TIDE_WALL_FREESLIP = 1 };

/* Workspace of the face solves (here and in surface_tension.h): the
 * assembled matrices, their preconditioners and vectors, kept from one call
 * to the next.  While the set of unknown faces of a solve is unchanged (e.g.
 * a periodic or fully liquid domain, or a surface that has not crossed a
 * cell), the next call refills the values on the stored pattern
 * (tide_csr_set_tripletlist_values) and refactors the preconditioner
 * instead of building both anew.  One workspace per simulation; pass NULL
 * for one-shot solves.  Results do not depend on whether it is used. */
typedef struct tide_viscosity_solver tide_viscosity_solver;
int tide_viscosity_solver_new(tide_viscosity_solver **out);
void tide_viscosity_solver_free(tide_viscosity_solver *S);
int64_t tide_viscosity_solver_bytes(const tide_viscosity_solver *S);
/* Cached pattern builds and value-only refills so far. */
void tide_viscosity_solver_counts(const tide_viscosity_solver *S, int64_t *builds, int64_t *refills);

/* One cached SPD system (an entry of tide_viscosity_solver). */
typedef struct tide_spd_cache tide_spd_cache;
/* The cache slot `which` (0..15) of S (NULL S: NULL). */
tide_spd_cache *tide_viscosity_solver_slot(tide_viscosity_solver *S, int which);

typedef struct tide_viscosity_stats {
  int iterations;   /* PCG iterations, summed over the solves */
  double residual;  /* largest final relative residual */
  int64_t unknowns; /* face unknowns, summed over the solves */
} tide_viscosity_stats;

/* ------------------------------------------------ per-axis face solve
 * The building block of the per-component solves (here and in
 * surface_tension.h).  For the faces of axis a of grid g marked
 * TIDE_FACE_UNKNOWN in cls (u8, the face array of axis a), solve
 *     D_f u_f + c sum_nb (u_f - u_nb) = r_f
 * where nb runs over the 2 dim faces of the same axis one index away:
 *   UNKNOWN    coupled;
 *   DIRICHLET  known value u_nb (at distance dx);
 *   NEUMANN    term dropped (zero normal derivative; free surface);
 *   WALL       along a: known value (the wall's normal velocity); across a
 *              (a tangential neighbour inside a wall): noslip -> the wall
 *              at dx/2 with velocity u_nb, term 2c (u_f - u_nb);
 *              freeslip -> dropped;
 *   outside a non-periodic boundary (across a only): noslip -> a wall at
 *              rest at dx/2, term 2c u_f; freeslip -> dropped;
 * periodic axes wrap (per[d] != 0; faces 0 .. n[d]-1 along d are the
 * distinct ones, face n[a] of a periodic axis a is set to face 0 after).
 * The matrix is SPD for D_f > 0 (diagonally dominant M-matrix); solved with
 * PCG and `precond` (TIDE_PRECOND_*) to the relative residual so->tol.
 * u: the face array of axis a (f64), read for known values and overwritten
 * on the unknowns; D, r: per face (read on unknowns; r may alias u). */
enum { TIDE_FACE_UNKNOWN = 0, TIDE_FACE_DIRICHLET = 1, TIDE_FACE_WALL = 2, TIDE_FACE_NEUMANN = 3 };

int tide_face_helmholtz(const tide_grid *g, const int per[3], int a, double *u, const uint8_t *cls,
                        const double *D, double c, const double *r, int wall,
                        const tide_solve_opts *so, int precond, tide_spd_cache *cache,
                        tide_viscosity_stats *stats);

/* ------------------------------------------- per-component diffusion
 * [Li] Backward Euler for du/dt = nu lap u, each velocity component
 * separately on its own faces:
 *     u_f - nu dt lap_h u_f = u*_f,
 *     lap_h u_f = sum_nb (u_nb - u_f) / dx^2   (5-point / 7-point)
 * over the faces with a LIQUID cell beside them (labels NULL: every face).
 * Faces between two AIR cells are Neumann neighbours (a crude free surface:
 * zero normal derivative of each component -- the traction-free condition
 * needs tide_liquid_viscosity); faces on the walls and next to SOLID cells
 * keep their value (WALL class above, tangential condition from `wall`).
 * Per axis one SPD solve (MIC(0)-PCG). */
typedef struct tide_diffuse_opts {
  double nu;                /* [m^2/s], >= 0 */
  double dt;                /* [s], > 0 */
  const tide_array *labels; /* u8 cells or NULL (all liquid) */
  int periodic[3];
  int wall;                 /* TIDE_WALL_NOSLIP (default) or FREESLIP */
  double tol;               /* relative residual (1e-8) */
  int maxit;                /* 0: default of tide_solve_opts */
  tide_viscosity_solver *solver; /* workspace or NULL */
} tide_diffuse_opts;

tide_diffuse_opts tide_diffuse_opts_default(void);
int tide_liquid_diffuse(tide_mac *u, const tide_diffuse_opts *o, tide_viscosity_stats *stats);

/* ------------------------------------------------- volume fractions
 * Liquid fraction of dx-sized boxes on a lattice: box (i, j, k) is centred
 * at origin + ((i, j, k) + off) dx, out has extents ext (row major) and
 * receives the fraction of sub^dim sub-sample points (centres of a regular
 * sub x sub [x sub] partition of the box) where the multilinear
 * interpolation of phi (cells; periodic axes wrap, other axes clamp) is
 * negative [BB08 Sec. 4: "volume fractions by supersampling"]; points
 * beyond a non-periodic domain wall never count (boxes on a wall are at
 * most half liquid).
 *   cells: off = (1/2, 1/2, 1/2), ext = n;
 *   faces of axis a: off_a = 0, others 1/2, ext = n + e_a;
 *   edges along axis r (stress tau_pq, {p, q, r} = {0, 1, 2}):
 *     off_p = off_q = 0, off_r = 1/2, ext = n + e_p + e_q (2D: the nodes). */
int tide_liquid_fractions(const tide_grid *g, const double *phi, const int per[3],
                          const double off[3], const int ext[3], int sub, double *out);

/* ------------------------------------------------ variational viscosity
 * [BB08] Implicit viscosity with the correct free-surface condition:
 *     u = argmin  sum_f 1/2 rho V_f (u_f - u*_f)^2
 *               + dt sum_c mu_c V_c (eps_xx^2 + eps_yy^2 [+ eps_zz^2])_c
 *               + dt sum_e mu_e V_e 2 eps_pq,e^2
 * with the strain rate eps = (grad u + grad u^T) / 2 discretized on the MAC
 * grid: the diagonal entries eps_aa = (u_a(c + e_a) - u_a(c)) / dx at cell
 * centres, the shear eps_pq = ((u_p(e) - u_p(e - e_q)) + (u_q(e) -
 * u_q(e - e_p))) / (2 dx) on the edges (2D: nodes) between four cells.
 * V_f, V_c, V_e are the liquid fractions of the dx boxes around faces,
 * cells and edges (tide_liquid_fractions of phi with `subdivision`; phi
 * NULL: from the labels, liquid = 1, else 0, which at subdivision 2 gives
 * the mean of the cells the box overlaps; both NULL: all 1, except the
 * boxes of edges on a wall, which are half inside the domain).  mu_e is the
 * mean of mu over the cells around the edge.  Stationarity gives the SPD
 * system (divided by rho)
 *     (diag(V_f) + 2 dt/rho G^T W G) u = diag(V_f) u*,
 * i.e. rho (u - u*) = dt div(2 mu D) in the liquid and 2 mu D n = 0 on the
 * free surface (the traction-free condition; pressure enters in the
 * projection).  For uniform mu inside the liquid and div u = 0 it is
 * u - nu dt lap u = u*.
 * Unknowns: faces not on a wall / next to a SOLID cell with V_f > 0 or a
 * stress sample of positive weight; their mass is max(V_f, vol_min) (the
 * floor only acts on faces outside the liquid that a partly liquid stress
 * sample touches, and keeps the system definite).  Wall and solid faces
 * are known values; on the domain walls the tangential condition is
 * `wall`: noslip -> shear samples on the wall see a ghost -u (velocity 0 at
 * the wall), freeslip -> shear samples on the wall are dropped (zero
 * tangential stress).  Solved by PCG with `precond` (IC(0) by default) to
 * the relative residual tol. */
typedef struct tide_viscosity_opts {
  double mu;                  /* dynamic viscosity [Pa s] (when mu_cells is NULL) */
  const tide_array *mu_cells; /* f64 cells [Pa s] or NULL */
  double rho;                 /* [kg/m^3] */
  double dt;                  /* [s] */
  const tide_array *phi;      /* f64 cells (liquid level set, < 0 inside) or NULL */
  const tide_array *labels;   /* u8 cells or NULL */
  int periodic[3];
  int wall;                   /* TIDE_WALL_NOSLIP (default) or FREESLIP */
  int subdivision;            /* sub-samples per axis for the fractions (2) */
  double vol_min;             /* mass floor (1e-3) */
  double tol;                 /* relative residual (1e-8) */
  int maxit;                  /* 0: default */
  int precond;                /* TIDE_PRECOND_IC0 (default), _JACOBI, _NONE */
  tide_viscosity_solver *solver; /* workspace or NULL */
} tide_viscosity_opts;

tide_viscosity_opts tide_viscosity_opts_default(void);
int tide_liquid_viscosity(tide_mac *u, const tide_viscosity_opts *o, tide_viscosity_stats *stats);

#endif
