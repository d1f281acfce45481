/*
 * particles.h -- liquid marker / FLIP / APIC particles and the operators of
 * tide.liquid: seeding, advection, particle-grid transfers, cell labels and
 * the pressure projection.
 *
 * Shapes (n = particle count, dim = 2 or 3), all f64, SI units:
 *   x  (n, dim)       positions [m]
 *   v  (n, dim)       velocities [m/s]
 *   c  (n, dim, dim)  APIC affine velocity matrix C_p [1/s] (optional),
 *                     row a is the gradient of velocity component a.
 * The arrays are views of the first n rows of storage with room for `cap`
 * particles; growing past cap, reseeding and sorting move the storage (old
 * views keep the old memory alive but no longer alias the set: fetch ps->x
 * again).
 *
 * References
 *   [Zarifi]  Zarifi, MMath thesis 2017, ch. 4 (marker particles, Alg. 3).
 *   [Li]      Li, CMU 15-769 lecture 16 (PIC, FLIP, APIC, particle advection).
 *   [ZB05]    Zhu & Bridson, Animating sand as a fluid, SIGGRAPH 2005 (PIC/FLIP blend).
 *   [JSS+15]  Jiang, Schroeder, Selle, Teran, Stomakhin, The affine particle-in-cell
 *             method, SIGGRAPH 2015 (APIC; C_p = sum_i u_i grad w_ip^T for
 *             multilinear weights, Sec. 5.3).
 *   [Bri15]   Bridson, Fluid Simulation for Computer Graphics, 2nd ed. 2015.
 */
#ifndef TIDE_PARTICLES_H
#define TIDE_PARTICLES_H

#include "grid/grid.h"
#include "grid/sdf.h"

typedef struct tide_particles {
  int dim;
  int apic;          /* 1 when c is allocated */
  int64_t n, cap;
  tide_array *x, *v, *c;        /* views of the first n rows */
  tide_array *xs, *vs, *cs;     /* storage, cap rows */
  tide_array *xs2, *vs2, *cs2;  /* spare storage for reordering (allocated on demand) */
  /* workspace of the counting sort by cell (reused between calls) */
  int64_t ws_cells;             /* cells of the last sort */
  int64_t *cell_start;          /* ws_cells + 1 */
  int64_t *order;               /* cap: particle indices sorted by cell */
  int64_t *cell_of;             /* cap: cell index of each particle */
  int64_t ws_cap;
  int sorted;                   /* the last tide_particles_bin found the storage in cell order */
  int bin_valid;                /* order / cell_start hold the binning of cell_of[0 .. bin_n) */
  int64_t bin_n;
  int64_t built_n;              /* order / cell_start are a binning of built_n particles (a permutation, each
                                   cell's list in increasing index order), of cell_of or of cells before */
  int64_t *order2;              /* ws_cap (allocated on demand): the binning patched from the last one */
  void *scratch;                /* scratch_bytes: workspace of the operators, reused between calls */
  size_t scratch_bytes;
} tide_particles;

/* New empty set of dimension dim (2, 3) with room for cap particles; apic
 * != 0 also allocates the affine matrices c. */
int tide_particles_new(int dim, int64_t cap, int apic, tide_particles **out);
void tide_particles_free(tide_particles *ps);
/* Make room for at least cap particles (keeps the contents). */
int tide_particles_reserve(tide_particles *ps, int64_t cap);
/* Set the count to n (<= cap after reserving; new particles are zero). */
int tide_particles_resize(tide_particles *ps, int64_t n);
/* Bytes held (storage and workspaces). */
int64_t tide_particles_bytes(const tide_particles *ps);
/* The reused scratch memory ps->scratch with room for at least `bytes`
 * (contents undefined; one operator at a time uses it).  NULL when out of
 * memory (message recorded). */
void *tide_particles_scratch(tide_particles *ps, size_t bytes);

/* Largest velocity component magnitude max_p max_d |v_p,d| [m/s] (0 for
 * an empty set), one parallel pass; TIDE_ENONFINITE when a velocity is not
 * finite. */
int tide_particles_max_speed(const tide_particles *ps, double *out);
/* Largest particle speed |v_p| (Euclidean norm of a row of v, m/s) into *out;
   TIDE_ENONFINITE if a velocity is not finite.  The CFL bound of MPM and SPH. */
int tide_particles_max_norm(const tide_particles *ps, double *out);

/* Seed particles over the cells of g: every cell is split into r^dim
 * sub-cells with r = round(per_cell^(1/dim)) when per_cell is a perfect
 * power (one jittered particle per sub-cell, stratified), otherwise per_cell
 * uniformly jittered particles per cell.  A candidate is kept when it is
 * inside the shape (tide_shape_eval < 0; shape may be NULL), inside the cell
 * level set phi (interpolated phi < 0; may be NULL; at least one of shape
 * and phi is required) and its cell is not TIDE_CELL_SOLID in labels (may be
 * NULL).  Jitter is tide_rand01(stream, counter) with counter a function of
 * the cell and sub-sample only, so the result does not depend on the thread
 * count.  jitter in [0, 1] scales the displacement from the sub-cell
 * centre.  New particles get velocity vel (dim entries, NULL: 0) and C = 0;
 * they are appended.  *added receives the count (may be NULL). */
int tide_particles_seed(tide_particles *ps, const tide_grid *g, const tide_shape *shape,
                        const tide_array *phi, int per_cell, double jitter, uint64_t stream,
                        const double *vel, const tide_array *labels, int64_t *added);

/* Advect positions through the MAC velocity (order 1: forward Euler, 2: RK2
 * midpoint, 3: Ralston RK3) [Li; Zarifi Sec. 4.5]:
 *   RK2  x* = x + dt/2 u(x),  x <- x + dt u(x*).
 * Afterwards each particle is clamped into the domain shrunk by margin*dx
 * and, when labels is given, pushed out of TIDE_CELL_SOLID cells onto the
 * nearest face shared with a non-solid cell (kept in place otherwise).
 * When solid_phi is given (f64 cells, the solid's signed distance, < 0
 * inside), a particle with phi_s(x) < margin dx is moved along the normal
 * n = grad phi_s / |grad phi_s| (central differences of the interpolant) to
 * phi_s = margin dx: x += (margin dx - phi_s(x)) n, twice (curved walls). */
int tide_particles_advect_solid(tide_particles *ps, const tide_mac *vel, double dt, int order,
                                const tide_array *labels, const tide_array *solid_phi, double margin);
/* The same without a solid level set. */
int tide_particles_advect(tide_particles *ps, const tide_mac *vel, double dt, int order,
                          const tide_array *labels, double margin);

/* Reseeding [Bri15 Sec. 7.4; issue: keep a count per cell]: after sorting
 * by cell of the velocity's grid, every LIQUID cell (u8 labels) with more
 * than hi particles loses its highest-numbered ones down to hi, and every
 * LIQUID cell with fewer than lo particles and no AIR face neighbour (the
 * bulk; surface cells are legitimately part full) gets new ones up to lo,
 * uniformly placed in the cell by tide_rand01(stream, counter(cell, k)),
 * with the velocity of vel there and C = 0.  The result is stored sorted by
 * cell (each cell's kept particles in their old order, then its new ones),
 * which keeps the particle-grid operators' memory access sequential; the
 * order is deterministic for any thread count.  The binning left by the
 * last operator (labelling) is reused when still marked valid and checked
 * particle by particle while the set is copied (a particle outside its cell
 * makes reseeding bin the set and start over); the new storage comes out
 * binned for the next operator.  *added, *removed (may be
 * NULL) receive the counts. */
int tide_particles_reseed(tide_particles *ps, const tide_mac *vel, const tide_array *labels, int lo,
                          int hi, uint64_t stream, int64_t *added, int64_t *removed);

/* Reorder the particle storage by cell of g (stable): afterwards particles
 * of one cell are contiguous and cells follow in grid order. */
int tide_particles_sort(tide_particles *ps, const tide_grid *g);

/* The cell of position x in the D-dimensional grid g, as tide_particles_bin
 * records it in cell_of: s = (x - origin) inv per axis (inv = 1 / dx, as
 * tide_grid_locate_axes computes it, so the cell agrees with the particle's
 * interpolation stencil), truncated and clamped into the grid (NaN to 0).
 * D is a compile-time constant where it is inlined (fixed trip counts). */
static inline __attribute__((always_inline)) int64_t tide_particles_cell(const tide_grid *g, int D, double inv,
                                                                         const double *x) {
  int64_t c = 0;
  _Pragma("GCC unroll 3")
  for (int d = 0; d < 3; d++) {
    int i = 0;
    if (d < D) {
      double s = (x[d] - g->origin[d]) * inv, top = (double)g->n[d] - 1;
      i = s > 0 ? (int)(s < top ? s : top) : 0;
    }
    c = c * g->n[d] + i;
  }
  return c;
}

/* Sort the particles by cell of g (counting sort, stable, reusing the
 * workspace): after it ps->order[cell_start[c] .. cell_start[c+1]) are the
 * particles of cell c in increasing index order.  The cells of the
 * particles are computed in parallel; when they are those of the last call
 * the binning is kept, when the storage is in cell order (as reseeding and
 * sorting leave it) the cell starts come from one parallel pass (ps->sorted
 * = 1), when at most n/64 particles changed cell since the last binning
 * and one thread runs it is patched (the movers taken out of their old cells' lists and merged
 * into their new ones'), otherwise a parallel stable counting sort (chunks
 * of particles counting over their own cell ranges) runs: the same order
 * every way. */
int tide_particles_bin(tide_particles *ps, const tide_grid *g);
/* tide_particles_bin without its pass over the positions: cell_of[0 .. n)
 * already holds every particle's tide_particles_cell (an operator that
 * moved the particles recorded them) and `changed` says whether one changed
 * since the last binning.  The caller vouches for cell_of (MPM's P2G checks
 * every particle against its cell and bins afresh on a mismatch); needs the
 * workspace of a tide_particles_bin on this grid with room for n. */
int tide_particles_bin_cells(tide_particles *ps, const tide_grid *g, int changed);

/* ----------------------------------------------------------- transfers
 * Weights are the multilinear (tent) kernels of the MAC faces:
 *   w_fp = prod_d max(0, 1 - |x_p,d - x_f,d| / dx).
 * P2G (particle to grid, [Li], normalised N^-1 P^T):
 *   u_f = sum_p w_fp (v_p,a + [apic] c_p,a . (x_f - x_p)) / sum_p w_fp
 * where a is the face's axis, and u_f = 0 with weight 0 where no particle
 * is within reach.  The scatter is parallel without atomics: particles are
 * sorted by cell and slabs of cells (along x) are processed in three
 * colours, so no two threads write the same face, and each face sums its
 * contributions in a fixed order (bit-identical for any thread count).
 * The binning left by the last operator (reseeding, sorting, labelling) is
 * reused without the comparison pass of tide_particles_bin when it is still
 * marked valid (advection unmarks it): the scatter checks every particle
 * against its cell anyway, and a particle found elsewhere makes P2G bin the
 * set afresh and scatter again.
 * weights (u8 or f64 MAC field, may be NULL) receives sum_p w_fp (f64) or
 * 1 where it is > 0 (u8: a "valid" mask for extrapolation). */
typedef enum { TIDE_TRANSFER_PIC = 0, TIDE_TRANSFER_FLIP = 1, TIDE_TRANSFER_APIC = 2 } tide_transfer;
int tide_liquid_p2g(tide_particles *ps, tide_mac *u, int apic, tide_mac *weights);

/* G2P (grid to particle):
 *   PIC   v_p = u(x_p)
 *   FLIP  v_p = flip (v_p + u(x_p) - u_old(x_p)) + (1 - flip) u(x_p)   [ZB05]
 *   APIC  v_p = u(x_p),  c_p,a = sum_f u_f grad w_fp   (rows a)        [JSS+15]
 * with u(x) the multilinear interpolation of the MAC field.  u_old is
 * needed for FLIP only.  flip in [0, 1]. */
int tide_liquid_g2p(tide_particles *ps, const tide_mac *u, const tide_mac *u_old,
                    tide_transfer scheme, double flip);

/* tide_liquid_g2p followed by tide_particles_advect_solid(ps, u, dt, order,
 * labels, solid_phi, margin) through the same field u, in one pass over
 * the particles: the first stage u(x_p) of the advection is the velocity
 * the transfer interpolated (same values as the two calls, bit for bit,
 * with one interpolation and one read of the positions fewer). */
int tide_liquid_g2p_advect(tide_particles *ps, const tide_mac *u, const tide_mac *u_old, tide_transfer scheme,
                           double flip, double dt, int order, const tide_array *labels,
                           const tide_array *solid_phi, double margin);

/* Particle density on cell centres [particles per cell]:
 *   rho_c = sum_p w_cp,  w_cp the multilinear (tent) kernel of cell centre c,
 * the P2G weight of a cell-centred field; it averages to the particles per
 * cell in the interior of a uniformly filled region (partition of unity).
 * Scattered without atomics like tide_liquid_p2g.  out: f64 cells. */
int tide_liquid_density(tide_particles *ps, const tide_grid *g, tide_array *out);

/* ----------------------------------------------------------- labels
 * labels (u8 cells): TIDE_CELL_SOLID where solid (u8 cells, may be NULL)
 * is solid, TIDE_CELL_LIQUID where a cell holds at least one particle,
 * TIDE_CELL_AIR elsewhere. counts (i32 cells, may be NULL) receives the
 * number of particles per cell. */
int tide_liquid_label(tide_particles *ps, const tide_grid *g, const tide_array *solid,
                      tide_array *labels, tide_array *counts);
/* Labels for cut cells (Zarifi Sec. 4.6: a cell is active when it holds
 * liquid and its centre lies in the liquid or in the solid).  As
 * tide_liquid_label, then for the non-solid cells whose centre is inside the
 * solid (solid_phi < 0, f64 cells) and that hold no particle: the indicator
 * -1 (liquid) / +1 (air) of the cells with centres outside the solid is
 * extended into the solid along its normal (tide_levelset_extrapolate) and
 * the cell is LIQUID where it is negative -- liquid against a curved wall
 * ends where the liquid beside it ends. */
int tide_liquid_label_cut(tide_particles *ps, const tide_grid *g, const tide_array *solid,
                          const tide_array *solid_phi, tide_array *labels, tide_array *counts);

#endif
