/*
 * open.h -- open (outflow) domain boundaries, emitters (inflow) and sinks
 * for the liquid of tide.liquid.
 *
 * Open sides.  A side of the domain (x-, x+, y-, y+, z-, z+; the bit mask
 * TIDE_SIDE_BIT of grid/grid.h) is a wall by default.  An open side lets
 * liquid leave: the outermost cell layer along it is forced to AIR in the
 * labels (as Mantaflow's setOpenBound does), so the pressure is 0 there (a
 * Dirichlet condition at the centres of that layer, dx inside the domain
 * edge), the projection needs no other change (the MAC Poisson problem and
 * its solvers see an ordinary free surface), the boundary faces carry the
 * velocity of the next face inward (tide_mac_enforce_walls_open: zero
 * normal gradient), particles reaching the layer are deleted, and a grid
 * level set is continued linearly into it.
 *
 * Emitters.  A region R of cells (u8 mask: the cells whose centre lies
 * inside a shape) is a source of liquid moving at a prescribed velocity v:
 * every step its particles are replaced by a fresh stratified set at the
 * rest density, moving at v (tide_liquid_emit), and the faces of its cells
 * are prescribed u_f = v_a (tide_liquid_inflow; tide_liquid_project keeps
 * them: a velocity Dirichlet condition).  Liquid leaves R through its
 * downstream faces at the volume rate Q = v . n A (A the area of those
 * faces); a region against a wall or in air is a pure source, a region
 * surrounded by liquid also draws liquid in through its upstream faces (a
 * pump).  Sinks delete the particles in a region.
 *
 * References
 *   [Bri15]  Bridson, Fluid Simulation for Computer Graphics, 2nd ed. 2015,
 *            Sec. 5.1 (boundary conditions; free surface p = 0).
 *   Mantaflow (Thuerey & Pfaff), setOpenBound / resetOutflow: an outflow
 *            boundary as a layer of empty cells.
 */
#ifndef TIDE_OPEN_H
#define TIDE_OPEN_H

#include "liquid/particles.h"

/* Is cell (i, j, k) in the open layer: the outermost cell layer of a side in
 * open (TIDE_SIDE_BIT mask)? */
static inline int tide_open_layer(const tide_grid *g, unsigned open, int i, int j, int k) {
  int c[3] = {i, j, k};
  for (int a = 0; a < g->dim; a++) {
    if ((open & TIDE_SIDE_BIT(a, 0)) && c[a] == 0) return 1;
    if ((open & TIDE_SIDE_BIT(a, 1)) && c[a] == g->n[a] - 1) return 1;
  }
  return 0;
}

/* Check an open-side mask for grid g (only the bits of its 2 dim sides). */
int tide_open_check(const tide_grid *g, unsigned open);

/* labels (u8 cells): every cell of the open layer that is not SOLID becomes
 * AIR.  Call after labelling (tide_liquid_label, tide_liquid_label_phi). */
int tide_liquid_open_cells(const tide_grid *g, unsigned open, tide_array *labels);

/* Continue the cell level set phi (f64) linearly into the open layer:
 *   phi_edge = 2 phi_1 - phi_2
 * with phi_1, phi_2 the next two cells inward along the side's axis (a copy
 * of phi_1 when the axis has only 2 cells), so a surface that crosses the
 * side keeps its slope and liquid reaching the side stays liquid up to the
 * domain edge (the ghost-fluid theta at the layer is 1: p = 0 at its
 * centres).  Axes are done in order x, y, z, so a cell in two open layers (a
 * corner) takes the extrapolation along the last of them.  phi must be
 * finite. */
int tide_liquid_open_phi(const tide_grid *g, unsigned open, tide_array *phi);

/* The cells of a shape: mask (u8 cells) = 1 where the centre of the cell
 * lies inside s (tide_shape_eval < 0) and the cell is not SOLID in solid
 * (u8 labels, may be NULL), else 0.  Only the cells in the shape's bounding
 * box are evaluated (tide_shape_bounds). */
int tide_liquid_region(const tide_grid *g, const tide_shape *s, const tide_array *solid,
                       tide_array *mask);

/* Delete particles: those outside the domain of g, in the open layer of the
 * sides in open, or in a cell marked in sink (u8 cells, may be NULL).  The
 * others keep their order (a stable compaction: in place when few are
 * looked at, else in parallel by blocks into the spare storage, which is
 * swapped in -- the storage moves, as after sorting).  *removed (may be
 * NULL) receives the count. */
int tide_particles_remove(tide_particles *ps, const tide_grid *g, unsigned open,
                          const tide_array *sink, int64_t *removed);

/* Emitter, particles: delete the particles in the region cells (u8 mask)
 * and seed per_cell new ones in each, at velocity vel (dim entries) and
 * C = 0: the cell is split into r^dim sub-cells when per_cell = r^dim (one
 * particle each, uniformly distributed in its sub-cell), else per_cell
 * uniform positions in the cell, by tide_rand01(stream, counter(cell, s)).
 * The positions are uniform, so the expected number of particles that leave
 * the region in a step is exactly the rest density times the volume swept
 * through its boundary; fresh positions every step (vary the stream) keep
 * the count leaving unbiased for any v dt.  The new particles are appended.
 * *added, *removed (may be NULL) receive the counts. */
int tide_liquid_emit(tide_particles *ps, const tide_grid *g, const tide_array *region, int per_cell,
                     const double *vel, uint64_t stream, int64_t *added, int64_t *removed);

/* Emitter, grid: every face of a region cell (u8 mask) that is not on the
 * domain boundary gets u_f = vel[a] (a the face's axis) and fixed_f = 1
 * (fixed: u8 MAC, may be NULL; faces of other cells are left as they are,
 * so several emitters can mark the same mask).  Pass fixed to
 * tide_liquid_project to keep these velocities (velocity Dirichlet faces). */
int tide_liquid_inflow(tide_mac *u, const tide_array *region, const double *vel, tide_mac *fixed);

#endif
