/*
 * levelset.h -- level-set operators on cell-centred fields: fast-marching
 * redistancing, extrapolation along the level-set normal (cells and MAC
 * faces), the solid constraint of Zarifi's extrapolation, volume correction
 * (Liu et al. 2024, Sec. 4.2.2), monotone cubic interpolation and
 * semi-Lagrangian / MacCormack / BFECC advection of level sets.
 *
 * phi is an f64 cell array over a tide_grid (row major, see grid.h) with
 * phi < 0 inside the liquid, |phi| in metres.  All functions return a status
 * and take their outputs last; fields are plain double* / uint8_t* of
 * tide_grid_ncells() entries unless stated.
 */
#ifndef TIDE_LEVELSET_H
#define TIDE_LEVELSET_H

#include "grid.h"

#include <math.h>

/* ------------------------------------------------------------ redistancing */

/* Scratch memory (grown on demand, kept between calls) of the operators that
 * take a `work` argument: redistancing (25 bytes per cell) and the corrected
 * advection schemes (four doubles per sample of the largest lattice).
 * With a region (tide_advect_opts.region) also two bytes per sample.
 * Zero-initialise it ({0}) and release it with tide_advect_work_release. */
typedef struct tide_advect_work {
  double *buf;
  size_t bytes;
} tide_advect_work;
void tide_advect_work_release(tide_advect_work *w);
/* Grow w to at least bytes (contents not kept); TIDE_ENOMEM on failure. */
int tide_advect_work_reserve(tide_advect_work *w, size_t bytes);

/* Interface initialisation of the fast marching method. */
enum {
  /* first order: d = min(|phi_c| / |grad phi_c|, (sum_a 1 / d_a^2)^(-1/2)),
   * the Newton distance with central differences bounded by the axis-
   * intercept estimate, d_a = theta dx the distance to the linear crossing
   * on axis a (theta = phi_c / (phi_c - phi_n), nearer side) */
  TIDE_REDISTANCE_INIT_LINEAR = 0,
  /* Chopp 2001: the distance to the closest point of the zero set of the
   * tensor-product cubic Lagrange interpolant of phi (4^dim cells, fourth
   * order; along a grid line the cubic whose root the height-function
   * curvature uses), found by Chopp's Newton iteration; for the interface
   * cells and their face neighbours (a neighbour only where the distance
   * obeys the triangle inequality |d - d_n| <= dx with every interface
   * neighbour).  A cell whose iteration fails takes the linear value (an
   * interface cell) or is left to the march (a neighbour). */
  TIDE_REDISTANCE_INIT_CUBIC = 1,
  /* Russo & Smereka 2000 (the subcell fix): d = |phi_c| / g with g the
   * larger of the central-difference |grad phi_c| and the largest one-sided
   * difference |phi_n - phi_c| / dx over the face neighbours (their 1D
   * max(central, left, right)); only phi's own values rescaled, so the
   * linear zero crossings between interface cells move only as much as g
   * differs between them (nothing for a distance function up to the O(dx^2)
   * error of g) */
  TIDE_REDISTANCE_INIT_SUBCELL = 2
};

/* How the distance is computed. */
enum {
  TIDE_REDISTANCE_FMM = 0, /* fast marching (below) */
  /* Russo & Smereka 2000: `iterations` pseudo-time steps dtau = dx / 2 of
   * the reinitialisation equation phi_t + S(phi0) (|grad phi| - 1) = 0
   * (first-order Godunov upwinding, Sussman, Smereka & Osher 1994), with the
   * subcell fix in the interface cells: there phi_t = -(S(phi0) |phi| -
   * D) / dx with D = |phi0| / g, g as in TIDE_REDISTANCE_INIT_SUBCELL, from
   * the input phi0 (their sign S(phi0)).  The interface cells relax towards
   * phi0's own values rescaled, so the zero crossings stay where phi0 has
   * them (the classical scheme moves them); a phi that is already close to
   * a distance changes only by its residual |grad phi| - 1, and cells more
   * than about iterations * dx / 2 from the interface keep their values
   * (band, order and init are not used) */
  TIDE_REDISTANCE_PDE = 1
};

typedef struct tide_redistance_opts {
  double band;    /* march only to |phi| <= band [m]; <= 0: the whole grid */
  int order;      /* upwind differences of the march: 1 or 2 */
  int init;       /* TIDE_REDISTANCE_INIT_* */
  int method;     /* TIDE_REDISTANCE_FMM | TIDE_REDISTANCE_PDE */
  int iterations; /* pseudo-time steps of TIDE_REDISTANCE_PDE (>= 1) */
  /* cubic init: after the march, every cell within closest dx [cells] takes
   * its closest-point distance to the zero set of the tensor-product quintic
   * Lagrange interpolant of the input (6^dim samples; where Chopp's iteration
   * converges within half a cell of the marched value and no kink is near),
   * minus the value of the result's own interpolant at that closest point (a
   * defect correction, so the zero set stays over repeated calls): the band
   * the curvature stencils read is sixth-order accurate, not only the first
   * two layers fourth-order (a circle of 9.7 cells: distances to 2e-6 dx,
   * 100 calls move the crossings 2e-6 dx; docs/levelsets.md); 0: off */
  double closest;
} tide_redistance_opts;

/* {0, 2, TIDE_REDISTANCE_INIT_CUBIC, TIDE_REDISTANCE_FMM, 10, 0} */
tide_redistance_opts tide_redistance_opts_default(void);

/* Replace phi by the signed distance to its zero level set by the fast
 * marching method (Sethian 1996; Bridson 2015, Sec. 5.4), both sides at once:
 *  1. interface cells (a face neighbour of the other sign; phi >= 0 counts as
 *     outside) get their distance from o->init (see above);
 *  2. the others are accepted in increasing distance with the upwind update
 *     sum_a alpha_a max(d - beta_a, 0)^2 = dx^2 over the axes with an
 *     accepted neighbour: first order alpha = 1, beta = u1 (the smaller
 *     accepted neighbour on the axis); second order (o->order = 2; Sethian
 *     1999, Sec. 8.1; Chopp 2001) where the next cell beyond u1 is accepted
 *     too with u2 <= u1, the one-sided difference (3 d - 4 u1 + u2) / (2 dx),
 *     alpha = 9/4, beta = (4 u1 - u2) / 3 (u2 read as a signed distance: a
 *     cell across the interface counts negative); a cell whose second-order
 *     quadratic has no root takes the first-order update.  Ties in the heap
 *     break by cell index (deterministic).
 * Marching stops at |phi| > band; cells not reached get phi = +-band.  The
 * sign of every cell is kept.  A field with no sign change is left
 * unchanged.  The march is serial (the heap order is inherently sequential),
 * O(N log N) for N cells in the band; the initialisation is OpenMP-parallel.
 * work (may be NULL: allocated for the call) holds 25 bytes per cell.
 *
 * Accuracy (distorted circle (|x-c|^2 - r^2)(2 + sin 7x cos 5y), errors in
 * |d| < 0.25 against the distance, tests/c/test_levelset_fmm.c, docs/
 * levelsets.md): order 1 + linear converges at first order (mean error
 * 0.07-0.08 dx at every resolution) and moves the interface by ~1e-2 dx;
 * order 2 + cubic converges at second order (mean error 0.0072 -> 0.0014 dx
 * from 32 to 256 cells) and moves it by < 1e-3 dx, so that the curvature of
 * the result stays within 0.4% of 1/r on a 10-cell circle (order 1: 8%). */
int tide_levelset_redistance_ex(const tide_grid *g, double *phi, const tide_redistance_opts *o,
                                tide_advect_work *work);

/* tide_levelset_redistance_ex with the default options and the given band. */
int tide_levelset_redistance(const tide_grid *g, double *phi, double band);

/* ----------------------------------------------------------- extrapolation */

/* Extrapolate the cell field q from cells with valid != 0 along the level-set
 * normal (Adalsteinsson & Sethian 1999): invalid cells with
 * direction * phi <= maxdist are visited in increasing direction * phi and
 * get the upwind-weighted average
 *     q_c = sum_a w_a q_a / sum_a w_a,  w_a = s phi_c - s phi_a > 0  (s = direction),
 * over the valid neighbour with the smaller s phi on each axis, the discrete
 * form of grad q . grad phi = 0.  Fields constant along the normals (e.g.
 * linear along a planar interface) are reproduced exactly wherever the upwind
 * neighbours lie inside the grid (at the domain boundary a missing upwind
 * neighbour drops its axis from the average).  A cell with no
 * upwind valid neighbour takes the mean of its valid neighbours.  direction
 * = +1 extrapolates out of the liquid (phi < 0 valid), -1 into it.  valid is
 * updated (1 on every cell that holds a value on return).  maxdist <= 0:
 * no limit. */
int tide_levelset_extrapolate(const tide_grid *g, const double *phi, int direction, double maxdist,
                              double *q, uint8_t *valid);

/* The same for each component of a MAC field, with phi averaged onto the
 * faces (the mean of the two cells beside an inner face, linear
 * extrapolation on the domain boundary).  valid is a u8 MAC field
 * (1 = valid face, e.g. a face next to a liquid cell after the projection),
 * updated in place. */
int tide_levelset_extrapolate_mac(tide_mac *m, const double *phi, int direction, double maxdist,
                                  tide_mac *valid);

/* Faces next to at least one cell with phi < 0 get valid = 1, others 0. */
int tide_levelset_valid_faces(const double *phi, tide_mac *valid);

/* The solid constraint of Zarifi's extrapolation (thesis Sec. 4.6):
 * "quantities extrapolated into the solid are then modified to ensure that
 * the normal velocity component is zero".  For every face with keep == 0
 * (the faces filled by extrapolation; keep is a u8 MAC field, e.g. the valid
 * mask before tide_mac_extrapolate) whose centre is inside the solid
 * (solid_phi < 0 there), the relative normal velocity is removed:
 *     u_a <- u_a - ((u - u_s) . n) n_a,   n = grad phi_s / |grad phi_s|,
 * with u the full velocity interpolated at the face (multilinear, the own
 * component exact), u_s = solid_vel there (NULL: a solid at rest).
 * solid_phi is sampled at cells (dims n) or nodes (dims n + 1, the SDF of
 * Zarifi Fig. 5.2), given by solid_at = TIDE_AT_CELLS / TIDE_AT_NODES (sdf.h).
 * All faces are updated from the old values (order independent). */
int tide_levelset_constrain_mac(tide_mac *m, const tide_mac *keep, const double *solid_phi,
                                int solid_at, const tide_mac *solid_vel);

/* ------------------------------------------------------- volume correction */

/* The smoothed Heaviside of Liu et al. 2024, Eq. 11: 1 inside, 0 outside,
 *   H(phi) = 1 / (1 + exp(2 k phi)),  H'(phi) = -2k e^{2k phi} / (1 + e^{2k phi})^2,
 * with sharpness k [1/m]. */
static inline double tide_levelset_heaviside(double phi, double k) {
  double e = 2 * k * phi;
  return e > 700 ? 0.0 : 1.0 / (1.0 + exp(e));
}

/* Connected components of the liquid {phi < 0} (cells sharing a face), and
 * the air cells with 0 <= phi < band joined to the nearest component by a
 * breadth-first search through such cells (ties: the component that reaches
 * the cell first in cell order).  labels (int32 per cell) receives 0..n-1 or
 * -1 (far air); *ncomp the count.  Serial, O(N). */
int tide_levelset_components(const tide_grid *g, const double *phi, double band, int32_t *labels,
                             int *ncomp);

/* Smoothed volume [m^dim] of each component: V_c = sum_{labels = c} H(phi) dx^dim. */
int tide_levelset_volumes(const tide_grid *g, const double *phi, const int32_t *labels, int ncomp,
                          double k, double *vol);
/* The same with a weight w_c in [0, 1] per cell (NULL: 1), V_c = sum w H(phi) dx^dim: w the
 * open fraction of a cell cut by a solid, so that the liquid the level set holds inside the
 * solid (its continuation by the contact angle) is not counted. */
int tide_levelset_volumes_weighted(const tide_grid *g, const double *phi, const int32_t *labels,
                                   int ncomp, double k, const double *weight, double *vol);

typedef struct tide_volume_params {
  double band;            /* epsilon [m]: cells with |phi*| < band of a component are
                             the unknowns (<= 0: 3 dx); Liu uses 3 x max displacement */
  double k;               /* Heaviside sharpness [1/m] (<= 0: 3 / band, so that
                             H(band) = 0.0025) */
  double air_density;     /* rho_a / rho_l in the mass matrix, Eq. 13 (1e-3, water
                             and air); in (0, 1] */
  double tol;             /* relative volume tolerance |h_c| <= tol V0_c (1e-12) */
  int max_iter;           /* Newton iterations (30) */
  int redistance;         /* fast-march once after the optimization (1) */
  double redistance_band; /* band of that march [m] (<= 0: whole grid) */
  int passes;             /* optimize + redistance rounds (1, as in the paper);
                             see tide_levelset_correct_volume */
  const double *weight;   /* NULL or ncells weights in [0, 1]: each cell counts w H(phi)
                             dx^dim (tide_levelset_volumes_weighted) and its Newton update
                             is scaled by w (cells of weight 0 are left alone); a tracker
                             keeps its own copy */
} tide_volume_params;

/* Defaults as documented above (band, k resolved against a grid later). */
tide_volume_params tide_volume_params_default(void);

typedef struct tide_volume_stats {
  int iterations;    /* Newton iterations taken (summed over passes) */
  int passes;        /* passes taken */
  int ncomp;         /* components corrected */
  double err_before; /* max_c |V_c - V0_c| / V0_c before */
  double err_newton; /* ... after the Newton iterations */
  double err_after;  /* ... after redistancing (the reported result) */
} tide_volume_stats;

/* Volume-preserving level-set optimization (Liu et al. 2024, Sec. 4.2.2):
 *   min_phi 1/2 phi^T M phi - phi^T M phi*   s.t.  h_c(phi) = sum_{c} H(phi) V_cell - V0_c = 0
 * for every component c (Eq. 10), M = diag(rho(phi) V_cell) with
 * rho = (1 - rho_a) H(phi) + rho_a (Eq. 13, rho_l = 1) lagged per iteration,
 * solved by Newton's method on the KKT system (Eq. 12)
 *   [ M  J^T ] [dphi  ]   [ -M (phi - phi*) ]
 *   [ J  0   ] [lambda] = [ -h             ],   J_ci = H'(phi_i) V_cell,
 * which, M being diagonal and the components disjoint, reduces per component
 * to lambda_c = (h_c + J_c (phi* - phi)) / (J_c M^-1 J_c^T),
 * dphi = (phi* - phi) - M^-1 J^T lambda.  Unknowns are the cells of each
 * component with |phi*| < band (fixed during the iterations); the other
 * labelled cells enter h_c with their fixed H.  Starts from phi = phi*
 * (the input), then redistances once (fast marching).  labels/ncomp from
 * tide_levelset_components(); target holds V0_c [m^dim].  Per-component sums
 * are blocked (tide_sum), so results do not depend on the thread count.
 *
 * Redistancing keeps the zero level but replaces the update profile around
 * it by distances, which changes the smoothed volume.  The update is
 * proportional to H'(phi) / rho(phi): with rho_a / rho_l = 1e-3 (default) it
 * is nearly a uniform shift on the air side and one pass leaves 6% of the
 * correction as error (1.3% off -> 0.08% off, measured on two disks of
 * 15 and 20 cells); with uniform mass (air_density = 1) the peaked profile
 * leaves a third (int H'^2 / (H'(0) int H') = 2/3: 1.3% -> 0.47%).  Used
 * every step through the tracker this does not accumulate (the next step
 * corrects it).  For a standalone correction, passes > 1 repeats optimize +
 * redistance until the error after redistancing is below tol, down to the
 * floor of repeated redistancing (about 1e-4 relative on those disks).
 * The Newton iteration converges in a few steps for moderate corrections
 * (interface motion of a fraction of a cell, as after one CFL-limited
 * step); for changes of about a cell or more it stalls at a residual, and
 * further passes continue from the redistanced field. */
int tide_levelset_correct_volume(const tide_grid *g, double *phi, const int32_t *labels, int ncomp,
                                 const double *target, const tide_volume_params *p,
                                 tide_volume_stats *stats);

/* Volume bookkeeping across steps for standalone use after any advection:
 * the tracker stores the components and their reference volumes V0; each
 * correct() relabels phi, gives every new component the share of the old
 * reference volumes it overlaps (cells labelled o before and n now; an old
 * component's volume is split among the new ones in proportion to the
 * current smoothed volume sum H(phi) of their overlap cells, so merges add
 * and splits divide by volume -- not by cell counts, which the 3-cell air
 * band inflates for thin fragments; a component with no predecessor keeps
 * its current volume), runs the correction and keeps the
 * targets as the new references (no drift from redistancing error).  The
 * initial references are measured on a redistanced copy of phi (when
 * params.redistance), the state correct() leaves phi in: the smoothed volume
 * depends on phi within the band, and redistancing an exact distance field
 * changes it by a first-order amount (2.3% for features 2 cells thick). */
typedef struct tide_volume_tracker {
  tide_grid grid;
  tide_volume_params params;
  int ncomp;
  int32_t *labels; /* ncells */
  double *vol;     /* ncomp reference volumes [m^dim] */
  double *weight;  /* ncells or NULL: the copy of params.weight (params.weight points at it) */
} tide_volume_tracker;

int tide_volume_tracker_new(const tide_grid *g, const double *phi, const tide_volume_params *p,
                            tide_volume_tracker **out);
int tide_volume_tracker_correct(tide_volume_tracker *t, double *phi, tide_volume_stats *stats);
/* The first half of correct() for a caller that restores the volumes itself
 * (Liu's joint solve, modules/couple/liu.h): relabel phi, match the targets,
 * and keep them (t->labels, t->ncomp, t->vol) as the references, without
 * changing phi.  correct() = update() + tide_levelset_correct_volume(). */
int tide_volume_tracker_update(tide_volume_tracker *t, const double *phi);
/* Keep the tracked components that phi has lost or is losing (call it on
 * the advected phi*, before redistancing and before update()): the smoothed
 * volume (Eq. 11) of a sheet thinner than about a cell is carried by cells
 * whose phi hovers around 0, so a film spreading on a floor or squeezed
 * between rods keeps its reference volume while its liquid cells (phi < 0,
 * what a projection sees) thin out and, one advection later, vanish; update()
 * then finds no component there and the reference volume is dropped.
 * Two cases are gathered:
 *  - an old component o with V0_o > 0 none of whose cells (t->labels == o:
 *    its liquid and air band when it was last labelled) is liquid now (its
 *    film's cell centres are all in the air, or it has become the air band
 *    of a neighbour, which the redistancing would erase);
 *  - a component of phi none of whose cells is depth [m] deep (phi > -depth
 *    everywhere; 0 <= depth <= dx): one volume correction away from
 *    vanishing.
 * The component's n = round(V0 / V_cell) (at least 1) deepest cells (the
 * smallest phi) become liquid half a cell deep, min(phi, -dx/2), its other
 * cells air half a cell out, max(phi, dx/2) (for a vanished component not
 * where they are now another component's band): the film gathers into the
 * cells where it was thickest -- a minimum-thickness film of about a cell,
 * the sharp volume n V_cell -- update() then matches it to its reference and
 * the volume correction restores V0 within a fraction of a cell.  depth = 0
 * gathers only the vanished ones.  *nkept
 * (may be NULL): the number of components gathered.  Sorting breaks ties by
 * cell index: deterministic. */
int tide_volume_tracker_keep(tide_volume_tracker *t, double *phi, double depth, int *nkept);
/* Add a body of liquid written into phi since the last update (a drop): the
 * cells where body (its own level set, ncells) is below the band become a
 * new component with reference volume vol [m^dim] (>= 0), so that the next
 * update() matches the new liquid to it -- without this, a body placed
 * within the band of a tracked component would share that component's
 * reference instead of bringing its own, and its volume would be lost.  A
 * component whose every cell the body takes is merged into it (its volume
 * added). */
int tide_volume_tracker_add(tide_volume_tracker *t, const double *body, double vol);
/* Replace the tracker's cell weights (tide_volume_params.weight; NULL: none, every cell 1) by a
 * copy of w (ncells in [0, 1]): the open fractions of solids that have moved since the tracker
 * was made (tide.zarifi's surface tension), so that the next correction measures the liquid
 * outside them. */
int tide_volume_tracker_set_weights(tide_volume_tracker *t, const double *w);
/* The tracker's parameters with band and k resolved against its grid. */
int tide_volume_tracker_resolved(const tide_volume_tracker *t, tide_volume_params *p);
/* Total reference volume [m^dim]. */
double tide_volume_tracker_total(const tide_volume_tracker *t);
void tide_volume_tracker_free(tide_volume_tracker *t);

/* ------------------------------------------------ interpolation, advection */

/* Monotone cubic interpolation of a lattice (grid.h) at x: tensor-product
 * Hermite cubics with central-difference slopes limited as Fritsch &
 * Carlson 1980 (slope zero where it disagrees in sign with the secant
 * Delta_k = f_{k+1} - f_k, and at most 3 |Delta_k|), the 1D pass first along
 * the last axis.  Each 1D pass stays between its two middle samples, so the
 * result lies within the range of the 4^dim stencil (no new extrema) and is
 * exact for linear data away from the lattice ends; points outside the
 * lattice are clamped onto it, as in tide_lattice_interp. */
double tide_lattice_interp_cubic(const tide_lattice *L, const double *x);

/* f (cell field) at np points x (np x dim) into out, monotone cubic. */
int tide_grid_sample_cubic(const tide_grid *g, const double *f, int64_t np, const double *x,
                           double *out);

enum { TIDE_ADVECT_SL = 0, TIDE_ADVECT_MACCORMACK = 1, TIDE_ADVECT_BFECC = 2 };

/* Limiters of the corrected schemes (tide_advect_opts.clamp). */
enum {
  TIDE_ADVECT_CLAMP_NONE = 0,   /* keep the corrected value */
  TIDE_ADVECT_CLAMP_REVERT = 1, /* outside the range: the plain SL value */
  TIDE_ADVECT_CLAMP_EXTREMA = 2 /* clamped into the range (Selle et al.
                                   2008, Sec. 4) */
};

typedef struct tide_advect_opts {
  int rk;                /* backtrace: 2 = explicit midpoint (Zarifi Eq. 4.29-4.30),
                            3 = Ralston's RK3 (Bridson 2015, Sec. 3.1) */
  int cubic;             /* 0: multilinear, 1: monotone cubic interpolation */
  int scheme;            /* TIDE_ADVECT_SL, _MACCORMACK (Selle et al. 2008), _BFECC
                            (Kim et al. 2005) */
  int clamp;             /* MacCormack/BFECC limiter, TIDE_ADVECT_CLAMP_*: the range is
                            that of the 2^dim samples around the backtraced point (the
                            multilinear stencil, "the local extrema" of Selle et al.) */
  const uint8_t *region; /* NULL: advect every sample; else a u8 cell mask of
                 the grid: only the samples in it (cells; faces with a cell
                 of the region on either side) are advected, every other
                 sample of out is a copy of the field.  The values in the
                 region are bit-identical to an advection of the whole grid:
                 the corrected schemes run their first (forward) pass on the
                 region grown by the step's largest displacement plus the
                 cubic stencil (ceil(max |vel| |dt| / dx) + 3 samples), which
                 is every sample their second pass reads.  For fields needed
                 only near the liquid (Liu's phi and u): the cost follows the
                 region, not the grid */
} tide_advect_opts;

/* {2, 0, SL, TIDE_ADVECT_CLAMP_REVERT, NULL} */
tide_advect_opts tide_advect_opts_default(void);

/* Scratch memory of the corrected schemes: tide_advect_work (above). */

/* Advect the cell field f by the MAC velocity vel over dt [s]:
 *   SL:          out(x) = I f (x0(x)),  x0 the RK backtrace through vel
 *                (multilinear velocity), I the chosen interpolation;
 *   MacCormack:  f1 = A(f, dt), f0 = A(f1, -dt),
 *                out = f1 + (f - f0) / 2;
 *   BFECC:       f1 = A(f, dt), f0 = A(f1, -dt),
 *                out = A(f + (f - f0) / 2, dt),
 * then the limiter o->clamp against the range of f around x0(x) (for BFECC
 * the last A backtraces to the same x0).  The plain SL path with rk = 2 and
 * linear interpolation is tide_grid_advect of grid.h.  out must not alias
 * f.  OpenMP over cells; no allocation for SL, a temporary workspace
 * otherwise (see tide_levelset_advect_cells to reuse one). */
int tide_levelset_advect(const tide_grid *g, const tide_mac *vel, const double *f, double dt,
                         const tide_advect_opts *o, double *out);

/* tide_levelset_advect with two extras (both may be NULL):
 *   valid  u8 cell mask: a corrected (MacCormack/BFECC) value is kept only
 *          where the cell is valid and so are all 2^dim samples around both
 *          its backward and its forward trace; elsewhere the SL value is
 *          used (e.g. valid = liquid cells: corrections never read values
 *          extrapolated into the air);
 *   work   scratch reused between calls (grown on demand). */
int tide_levelset_advect_cells(const tide_grid *g, const tide_mac *vel, const double *f, double dt,
                               const tide_advect_opts *o, const uint8_t *valid,
                               tide_advect_work *work, double *out);

/* The cells with lo < phi < hi (u8, 1 / 0) into mask: e.g. the region of an
 * advection (tide_advect_opts.region) from a level set, the band |phi| < w
 * (lo = -w, hi = w) or the liquid and the air within w (lo = -inf). */
int tide_levelset_band_mask(const tide_grid *g, const double *phi, double lo, double hi,
                            uint8_t *mask);

/* Advect every component of the MAC field q by the MAC velocity vel over dt:
 * component a is sampled on its own face lattice (grid.h) and each face
 * takes the scheme of tide_levelset_advect (SL / MacCormack / BFECC, RK2 or
 * RK3 backtrace through vel, multilinear or monotone cubic interpolation,
 * limiter) with x the face centre.  q may be vel (self-advection; the
 * backtraces always use the velocity at the start of the step).  valid (u8
 * MAC field over the same grid, may be NULL): per face as the cell mask
 * above (e.g. tide_levelset_valid_faces: faces whose traces leave the
 * liquid use SL).  work: as above (may be NULL).  out must not share
 * memory with q or vel.  With o = NULL (or the defaults) this is
 * tide_mac_advect of grid.h. */
int tide_levelset_advect_mac(const tide_mac *vel, const tide_mac *q, double dt,
                             const tide_advect_opts *o, const tide_mac *valid,
                             tide_advect_work *work, tide_mac *out);

#endif
