/*
 * probe.h -- measurements of a liquid state (tide.liquid.front / elevation /
 * liquid_stats; the probe sets of lua/tide/probes.lua; docs/liquids-physics.md,
 * "Probes").  What experiments report: the front of a collapsing column
 * along the floor (Martin & Moyce 1952), the height of the column at a wall,
 * the free-surface elevation at a gauge, the liquid volume, the kinetic and
 * potential energy and the largest speed.  Read-only, serial (the sums do
 * not depend on the thread count), O(cells) or O(particles) per call.
 *
 * Conventions: phi (f64 cells, < 0 in the liquid) is read at the cell
 * centres and interpolated linearly between them; axes 0, 1, 2 = x, y, z;
 * a side is an axis and an end (lo / hi).
 */
#ifndef TIDE_LIQUID_PROBE_H
#define TIDE_LIQUID_PROBE_H

#include "grid/grid.h"
#include "liquid/particles.h"

/* Front of the liquid along the wall side (wall axis w, end wall_hi) in the
 * direction of axis a (sign s = +1 or -1, a != w): in the layer of cells
 * next to the wall, on every grid line along a (one in 2D; every line of
 * the remaining axis in 3D), the farthest crossing of phi = 0 in direction
 * s -- between the last liquid cell c (phi_c < 0) and its neighbour n,
 *   x_front = x_c + s dx phi_c / (phi_c - phi_n),
 * the domain boundary when c is the last cell -- and the farthest of those
 * over the lines [m, the coordinate along a].  *found = 0 (and *out NaN)
 * when the layer holds no liquid. */
int tide_liquid_front_phi(const tide_grid *g, const double *phi, int w, int wall_hi, int a, int s,
                          double *out, int *found);

/* The same from particles: the farthest coordinate along a (sign s) of the
 * particles within `layer` [m] of the wall (layer > 0). */
int tide_liquid_front_particles(const tide_grid *g, const tide_particles *ps, int w, int wall_hi, int a,
                                int s, double layer, double *out, int *found);

/* Free-surface elevation along the axis up (the coordinate, increasing
 * upwards) at the position pos (the coordinates of the other axes; pos[up]
 * is ignored): phi interpolated linearly across the columns of cells around
 * pos (clamped to the outermost cell centres), then the topmost crossing
 * along the column, between the highest liquid sample j and j + 1,
 *   y = y_j + dx phi_j / (phi_j - phi_{j+1}),
 * the top of the domain when the highest cell is liquid.  *found = 0 (and
 * *out NaN) when the column holds no liquid.  The height of the liquid at a
 * wall is the elevation at the centre of the first column of cells. */
int tide_liquid_elevation_phi(const tide_grid *g, const double *phi, int up, const double pos[3],
                              double *out, int *found);

/* The same from particles: the highest coordinate along up of the
 * particles whose other coordinates are within half_width [m] of pos. */
int tide_liquid_elevation_particles(const tide_grid *g, const tide_particles *ps, int up, const double pos[3],
                                    double half_width, double *out, int *found);

/* Integrals over the liquid.  Grid (phi and the MAC velocity u over the
 * same grid): the liquid fraction of a cell F_c = clamp(1/2 - phi_c/dx, 0, 1)
 * and of a face F_f (phi_f the mean of the two cells beside it; the one
 * cell on the domain boundary),
 *   volume    = sum_c F_c dx^dim                                    [m^dim]
 *   kinetic   = rho/2 sum_a sum_f F_f u_f^2 dx^dim                  [J, J/m in 2D]
 *   potential = -rho sum_c F_c (g . x_c) dx^dim   (0 at the origin) [J, J/m in 2D]
 *   max_speed = max over cells with F_c > 0 of |u at the centre|    [m/s]
 *               (the mean of the two faces per axis)
 * Particles (each of mass m = rho V_p, V_p = dx^dim / per_cell):
 *   volume = n V_p, kinetic = m/2 sum |v_p|^2, potential = -m sum g . x_p,
 *   max_speed = max |v_p|.
 * gravity: dim components [m/s^2]. */
typedef struct tide_liquid_stats {
  double volume, kinetic, potential, max_speed;
} tide_liquid_stats;

int tide_liquid_stats_grid(const tide_mac *u, const double *phi, double rho, const double *gravity,
                           tide_liquid_stats *out);
int tide_liquid_stats_particles(const tide_particles *ps, double particle_volume, double rho,
                                const double *gravity, tide_liquid_stats *out);

#endif
