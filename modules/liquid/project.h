/*
 * project.h -- the pressure projection of tide.liquid (free surface, solid
 * walls, optional ghost-fluid interface and cut-cell face fractions).
 *
 * References
 *   [Zarifi]  Zarifi, MMath thesis 2017, Sec. 4.4 (cut-cell projection, Ng et al.),
 *             Sec. 4.4.2 (ghost fluid, Enright et al.), Sec. 4.6.
 *   [Bri15]   Bridson, Fluid Simulation for Computer Graphics, 2nd ed. 2015, ch. 5.
 */
#ifndef TIDE_PROJECT_H
#define TIDE_PROJECT_H

#include "grid/grid.h"
#include "linalg/mgpcg.h"

/* ----------------------------------------------------------- projection
 * Pressure projection with a free surface and solid walls [Zarifi Sec. 4.4,
 * Eq. 4.31-4.44; Bri15 ch. 5]:
 *   u = u* - dt/rho grad p,   div u = 0 in liquid cells,
 *   p = 0 in air (at the air cell centre, or at the interface at fraction
 *     theta = phi_l / (phi_l - phi_a) of the way from the liquid centre when
 *     a liquid level set phi is given: ghost fluid, theta >= theta_min),
 *   u.n = 0 on the domain boundary and on faces of solid cells (the normal
 *     velocity of static solids).
 * Face open fractions A_f in [0, 1] (solid-cut face areas, Zarifi 4.33,
 * NULL = 1 on every face not touching a solid cell or the domain boundary)
 * weight fluxes and pressure gradients alike, so a fraction of 0 is a wall.
 * The system, for each liquid cell c and its faces f to neighbours n,
 *   sum_f A_f / dx^2 (p_c - p_n^ghost) = -rho/dt (div_A u* - d_c),
 *   div_A u = sum_f +-(A_f u_f + (1 - A_f) u_s,f) / dx,
 * is the MAC Poisson problem of linalg/mac_poisson.h (the same face
 * coefficients feed the assembled and the matrix-free solvers).  It is
 * solved to the relative residual tol by
 *   TIDE_PROJECT_PCG    CG + MIC(0) on the CSR matrix (tide_solve_krylov),
 *   TIDE_PROJECT_MGPCG  matrix-free multigrid-preconditioned CG (mgpcg.h),
 *   TIDE_PROJECT_MIC0   matrix-free CG + MIC(0) in grid order (mgpcg.h).
 * An optional divergence target d (f64 cells, 1/s) replaces div u = 0 by
 * div u = d in liquid cells (volume/density correction: Kugelstadt et al.
 * 2019).  Moving solids: with solid_velocity u_s (a MAC field of the solid
 * velocity's normal component on every face) the flux of a face is
 * A_f u_f + (1 - A_f) u_s,f (Zarifi Eq. 4.32 with v != 0), so the liquid
 * is pushed by the solid.  On return faces with a liquid neighbour and
 * A_f > 0 hold the projected velocity; closed faces (A_f = 0) hold u_s
 * (0 without it); the others are untouched.
 * Prescribed velocities (inflow, emitters; a velocity Dirichlet condition):
 * faces marked 1 in the u8 MAC mask `fixed` keep their velocity u*_f.  They
 * are closed for the pressure (A_f = 0) and carry the flux u*_f, like the
 * closed faces of a moving solid whose velocity is u*_f; a liquid cell all of
 * whose faces are closed or fixed has no equation (solid for the solve), and
 * so, when some liquid meets the air, has a liquid component that reaches no
 * air cell through an open face (enclosed by fixed faces and walls: no
 * pressure level, fixed fluxes that need not balance) -- its faces keep
 * their fixed velocities, the others of its cells get 0.
 * valid (u8 MAC, may be NULL) marks the projected and the fixed faces;
 * pressure (f64 cells, may be NULL) receives p [Pa] (0 outside the liquid;
 * the solver writes it directly, so after a failed solve it may hold a
 * partial result while u is unchanged).
 * Inputs are checked where the projection reads them: the velocities and the
 * target on the faces and cells of liquid cells, phi at liquid cells with an
 * air neighbour and their air neighbours (TIDE_ENONFINITE otherwise); values
 * elsewhere are not read (a NaN between two air cells stays as it is).
 * Cost: the loops of the projection visit only the rows (along the last
 * axis) that hold liquid, and for the velocity update also the rows next to
 * solid cells; the other face rows only get their boundary, zero-fraction
 * and fixed faces set and valid cleared.
 * Open boundaries need no option here: the labels make the outermost cell
 * layer of an open side AIR (tide_liquid_open_cells, liquid/open.h), so
 * p = 0 there (Dirichlet) and liquid flows out of the domain. */
enum { TIDE_PROJECT_PCG = 0, TIDE_PROJECT_MGPCG = 1, TIDE_PROJECT_MIC0 = 2 };

typedef struct tide_project_opts {
  double dt, rho;
  double tol;          /* relative residual of the pressure solve */
  int maxit;
  int method;          /* TIDE_PROJECT_PCG (default), _MGPCG, _MIC0 */
  double theta_min;    /* ghost-fluid clamp (default 0.01) */
  const tide_array *phi;      /* liquid level set on cells or NULL */
  const tide_mac *fractions;  /* open face fractions or NULL */
  const tide_array *target;   /* divergence target on cells [1/s] or NULL */
  const tide_mac *solid_velocity; /* normal velocity of the solid part of each face
                                     [m/s] (moving solids) or NULL (static) */
  const tide_mac *fixed;      /* u8 MAC mask of prescribed-velocity faces or NULL */
} tide_project_opts;

/* Workspace of repeated projections on one grid: face theta arrays, the
 * right-hand side and pressure vectors, and the matrix-free solver (its
 * multigrid hierarchy is built once and re-analysed for new labels).  Pass
 * NULL to tide_liquid_project for a one-shot workspace. */
typedef struct tide_projector tide_projector;
int tide_projector_new(const tide_grid *g, tide_projector **out);
void tide_projector_free(tide_projector *w);
int64_t tide_projector_bytes(const tide_projector *w);

typedef struct tide_project_stats {
  int iterations;
  double residual;      /* final relative residual */
  int64_t unknowns;     /* liquid cells */
  double div_before;    /* max |div u*| over liquid cells [1/s] */
  double div_after;     /* max |div u| over liquid cells after projection */
} tide_project_stats;

/* Divergence target of the density correction, on the interior liquid
 * cells (liquid, no air neighbour; the surface layer, where the density
 * estimate is low anyway, is left alone):
 *   d_c = rate * shrink(rho_c / per_cell - 1, band)                 [1/s]
 *   shrink(e, b) = sign(e) max(0, |e| - b)          (a dead band of +-b)
 * 0 elsewhere; rate = strength / dt.  With mean != 0 the mean density over
 * the deep interior (liquid cells with no air cell in the 3^dim block around
 * them) replaces rho_c (a uniform target).  *mean_density (may be NULL)
 * receives that mean in per_cell units (1 without deep cells): the liquid
 * volume at that density is n_particles dx^dim / (per_cell mean_density).  rho: f64 cells, the
 * particle density (tide_liquid_density) in particles per cell; labels: u8
 * cells; out: f64 cells.
 * Projecting a zero field to this target gives a displacement velocity that
 * spreads crowded cells and gathers sparse ones (local: Kugelstadt, Longva,
 * Thuerey, Bender 2019, "Implicit density projection for volume conserving
 * liquids") or restores the volume of the whole liquid (mean: the volume
 * control of Kim et al. 2007, "Simulation of bubbles in foam with the volume
 * control method", with the mean density as the volume error); moving the
 * particles (not their velocities) along it for dt counters the compaction
 * of FLIP particles without adding momentum.  The dead band keeps the
 * density fluctuations of freshly seeded particles (within +-0.23 for the
 * default jitter) from moving a liquid at rest.  Cut cells (a face of open
 * fraction < 1 in fractions, f64 MAC or NULL) hold fewer particles by their
 * geometry: left out like the surface layer (cut = TIDE_DENSITY_CUT_OFF), or
 * corrected against their open volume, never in the mean: with
 * TIDE_DENSITY_CUT_OPEN the mean of their face fractions V (at least 0.25;
 * target and density scaled by it); with TIDE_DENSITY_CUT_KERNEL every cell
 * whose density kernel reaches a solid, against K = the tent kernel integrated
 * over the open region around it (solid_phi > 0; solid_phi: f64 cells, the
 * solids' signed distance at the cell centres, required then; sampled 4^dim
 * per cell): the expected density of a uniformly filled open region is
 * per_cell K; the density scaled by K, the target by V as above, no threshold
 * (a nearly closed cell's target vanishes with its V). */
enum { TIDE_DENSITY_CUT_OFF = 0, TIDE_DENSITY_CUT_OPEN = 1, TIDE_DENSITY_CUT_KERNEL = 2 };
int tide_liquid_density_target(const tide_array *rho, const tide_array *labels,
                               const tide_mac *fractions, double per_cell, double band, double rate,
                               int mean, int cut, const tide_array *solid_phi, tide_array *out,
                               double *mean_density);

int tide_liquid_project(tide_mac *u, const tide_array *labels, const tide_project_opts *opts,
                        tide_projector *work, tide_mac *valid, tide_array *pressure,
                        tide_project_stats *stats);

/* The area-weighted divergence of the cut-cell projection (Zarifi Eq. 4.32-4.33,
 * 4.38-4.39), the operator E of B p = E u* up to its scaling, with the solid flux of
 * moving solids:
 *   div_A u (c) = 1/dx sum_f +-(A_f u_f + (1 - A_f) u_s,f)                    [1/s]
 * over the faces f of every LIQUID cell c (+ on the high face, - on the low face),
 * A_f the open fraction (fractions, NULL = 1), 0 on the domain boundary and next to
 * SOLID cells, u_s the solid's normal velocity on the face (solid_velocity, NULL = 0):
 * exactly the divergence tide_liquid_project drives to zero (the same face kernel).
 * out: f64 cells, 0 at non-liquid cells.  In the thesis's units (fluxes in m^3/s, 3D;
 * m^2/s in 2D) E u* = -dx^dim div_A u*, and B = (dt/rho) dx^(dim-2) A_poisson with
 * A_poisson of linalg/mac_poisson.h, so (dt/rho) A_poisson p = -div_A u*. */
int tide_liquid_divergence(const tide_mac *u, const tide_array *labels, const tide_mac *fractions,
                           const tide_mac *solid_velocity, tide_array *out);

#endif
