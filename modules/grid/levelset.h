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

/* ------------------------------------------------------------ redistancing */

/* Replace phi by the signed distance to its zero level set (first order),
 * by the fast marching method (Sethian 1996; Bridson 2015, Sec. 5.4):
 *  1. interface cells (a face neighbour of the other sign; phi >= 0 counts as
 *     outside) get d = min(|phi_c| / |grad phi_c|, (sum_a 1 / d_a^2)^(-1/2)):
 *     the first-order (Newton) distance with central differences, exact for
 *     a linear phi, bounded by the axis-intercept estimate, in which
 *     d_a = theta dx is the distance to the crossing on axis a, theta =
 *     phi_c / (phi_c - phi_n) the root of the linear interpolant on the
 *     nearer crossing side, summed over the axes with a crossing (this bound
 *     guards against kinks of phi, where the gradient is underestimated);
 *  2. the others are accepted in increasing distance with the upwind update
 *     sum_a max(d - d_a, 0)^2 = dx^2 over the accepted axis neighbours d_a.
 * Marching stops at |phi| > band [m] (band <= 0 or inf: whole grid); cells not
 * reached get phi = +-band.  The sign of every cell is kept.  A field with no
 * sign change is left unchanged.  Serial (the heap order is inherently
 * sequential); O(N log N) for N cells in the band. */
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
int tide_levelset_extrapolate(const tide_grid *g, const double *phi, int direction,
                              double maxdist, double *q, uint8_t *valid);

/* The same for each component of a MAC field, with phi averaged onto the
 * faces (the mean of the two cells beside an inner face, linear
 * extrapolation on the domain boundary).  valid is a u8 MAC field
 * (1 = valid face, e.g. a face next to a liquid cell after the projection),
 * updated in place. */
int tide_levelset_extrapolate_mac(tide_mac *m, const double *phi, int direction,
                                  double maxdist, tide_mac *valid);

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

#endif
