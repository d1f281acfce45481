/*
 * periodic.h -- periodic boundaries for MAC grids, fields and particles
 * (tide.liquid.periodic; docs/liquids-physics.md).
 *
 * Convention.  Axis d is periodic with period L_d = n[d] dx: cell i and cell
 * i + n[d] are the same cell.  Arrays keep the shapes of grid.h: on a
 * periodic axis a the face array of axis a still has n[a] + 1 entries along
 * a, and face n[a] is a copy of face 0 (the same face seen from the other
 * end); operators here read face 0 and write both.  Non-periodic axes are
 * solid walls as everywhere else in Tide.
 *
 * Most periodic operators reuse the non-periodic ones on a padded grid: the
 * grid grows by G ghost cells at both ends of every periodic axis (origin
 * moves by -G dx), the ghosts are filled by wrapping, the ordinary operator
 * (tide_mac_advect, tide_levelset_advect, tide_liquid_p2g/g2p,
 * tide_particles_advect) runs on the padded field, and the interior is read
 * back.  G is chosen so that no result read back depends on the ghosts'
 * outer edge: one cell for the transfers (tent kernels of radius dx), the
 * backtrace distance plus the interpolation stencil for advection.  P2G adds
 * periodic images of the particles within dx of a periodic boundary, so every
 * face sums the same particles as on the torus.
 *
 * The projection is assembled directly with wrap-around neighbours: for a
 * fully periodic (or closed) liquid the Laplacian is singular with the
 * constants as null space, and the conjugate-gradient solve of tide.linalg
 * removes it (tide_solve_opts.nullspace: mean-free right-hand side and
 * iterates).
 */
#ifndef TIDE_PERIODIC_H
#define TIDE_PERIODIC_H

#include "grid/grid.h"
#include "grid/levelset.h"
#include "linalg/linalg.h"
#include "liquid/particles.h"
#include "liquid/project.h"

/* Index i along an axis of n cells: i itself when 0 <= i < n, wrapped into
 * [0, n) when per != 0, -1 (outside) otherwise. */
static inline int tide_periodic_index(int i, int n, int per) {
  if (i >= 0 && i < n) return i;
  if (!per) return -1;
  i %= n;
  return i < 0 ? i + n : i;
}

/* Multilinear interpolation of a lattice (grid.h) at x with wrap-around on
 * the axes with per[d] != 0: along such an axis the lattice repeats every
 * np[d] samples (np[d] = n[d] cells, also for the faces of axis d, whose
 * last sample duplicates the first); other axes clamp as
 * tide_lattice_interp. */
double tide_periodic_lattice_interp(const tide_lattice *L, const int per[3], const int np[3],
                                    const double *x);

/* Workspace of the periodic operators over one grid (padded grids, image
 * particles, the cached projection matrix).  Created once, reused every
 * step; nothing is allocated per call unless the padding or particle count
 * grows or the cell labels of the projection change. */
typedef struct tide_periodic {
  tide_grid grid;  /* the periodic grid */
  int per[3];      /* 1 on periodic axes */
  int precond;     /* preconditioner of the projection (TIDE_PRECOND_MIC0) */
  /* padded fields (grow on demand) */
  int pad;         /* ghost layers of pa/pb/pc */
  tide_grid pgrid; /* padded grid */
  tide_mac *pa, *pb, *pc, *pw;
  tide_array *pcell, *pcell2; /* padded cell arrays */
  tide_particles *img;        /* particles and their images */
  tide_mac *tmp;              /* f64 field over the grid (u8 weights) */
  tide_advect_work work;      /* scratch of the corrected advection schemes */
  /* projection cache */
  uint8_t *plab;  /* labels the matrix was built for (ncells) */
  int has_matrix;
  tide_csr *A;
  tide_krylov *K;
  int32_t *row;   /* ncells: unknown of each cell or -1 */
  double *b, *x;  /* unknowns */
  int64_t nunk;
  int air_faces;  /* Dirichlet faces in the cached matrix */
  int64_t *dpos;  /* nunk: position of each row's diagonal in A->val */
  int ghost;      /* the diagonal holds ghost-fluid 1/theta terms */
  tide_mac *pv;   /* u8 MAC over the padded grid (valid faces of extend) */
} tide_periodic;

/* New workspace for grid g with periodic flags per[0..dim-1] (at least one
 * set; periodic axes need n[d] >= 2). */
int tide_periodic_new(const tide_grid *g, const int per[3], tide_periodic **out);
void tide_periodic_free(tide_periodic *P);
int64_t tide_periodic_bytes(const tide_periodic *P);

/* Make the duplicated faces agree: on each periodic axis a, face 0 and
 * face n[a] of u_a both get their mean. */
int tide_periodic_sync(const tide_periodic *P, tide_mac *m);
/* Wrap positions x (n, dim) into [origin, origin + L) on the periodic axes. */
int tide_periodic_wrap(const tide_periodic *P, tide_array *x);

/* -------------------------------------------------------------- padding
 * The padded grid of g with G ghost cells at both ends of each periodic
 * axis (origin - G dx there). */
int tide_periodic_padded_grid(const tide_grid *g, const int per[3], int G, tide_grid *out);
/* dst (over the padded grid) <- src (over g), ghosts by wrapping. */
int tide_periodic_fill_mac(const tide_mac *src, const int per[3], int G, tide_mac *dst);
int tide_periodic_fill_cells(const tide_grid *g, const double *src, const int per[3], int G,
                             double *dst);
/* dst (over g) <- interior of src (over the padded grid); on periodic axes
 * face n[a] of u_a is set to face 0. */
int tide_periodic_extract_mac(const tide_mac *src, const int per[3], int G, tide_mac *dst);
int tide_periodic_extract_cells(const tide_grid *g, const double *src, const int per[3], int G,
                                double *dst);

/* ----------------------------------------------------------- operators */

/* Self/cross advection of a MAC field on the torus with the options of
 * tide_levelset_advect_mac (SL / MacCormack / BFECC, RK2/RK3 backtrace,
 * multilinear or monotone cubic, limiter); o = NULL: the defaults (SL, RK2
 * midpoint, multilinear = tide_mac_advect).  The ghost layers cover every
 * backtrace of the chosen scheme, so the result is that of the scheme on
 * the infinite periodic field.  out must differ from vel and q. */
int tide_periodic_advect_mac(tide_periodic *P, const tide_mac *vel, const tide_mac *q, double dt,
                             const tide_advect_opts *o, tide_mac *out);
/* A cell field f (ncells doubles) advected by vel over dt with the options
 * of tide_levelset_advect (SL / MacCormack / BFECC, RK2/RK3, linear or
 * monotone cubic), on the torus.  out must not alias f. */
int tide_periodic_advect_cells(tide_periodic *P, const tide_mac *vel, const double *f, double dt,
                               const tide_advect_opts *o, double *out);

/* tide_liquid_p2g on the torus: particles (positions inside the periodic
 * box) and their images within dx of each periodic boundary are splatted on
 * the grid padded by one cell; u receives the interior.  weights as in
 * tide_liquid_p2g (f64 sums or a u8 mask), may be NULL. */
int tide_periodic_p2g(tide_periodic *P, tide_particles *ps, tide_mac *u, int apic,
                      tide_mac *weights);
/* tide_liquid_g2p on the torus (u and u_old wrapped onto the padded grid). */
int tide_periodic_g2p(tide_periodic *P, tide_particles *ps, const tide_mac *u, const tide_mac *u_old,
                      tide_transfer scheme, double flip);
/* tide_particles_advect on the torus (order 1/2/3), then positions wrapped
 * into the box. */
int tide_periodic_advect_particles(tide_periodic *P, tide_particles *ps, const tide_mac *vel,
                                   double dt, int order);

/* Pressure projection on the torus [Bri15 ch. 5; Zarifi Sec. 4.4 with
 * wrap-around neighbours]:
 *   u = u* - dt/rho grad p,  div u = 0 in liquid cells,
 * with p = 0 at the centre of AIR cells (voxel free surface), closed faces
 * next to SOLID cells and on the non-periodic walls.  labels: u8 cells or
 * NULL (all liquid).  For each liquid cell c (scaled q = p dt/(rho dx)):
 *   sum_f open (q_c - q_n) = -sum_f +-u*_f,
 * solved by PCG (P->precond, MIC(0) by default) to the relative residual tol; without AIR faces the
 * matrix is singular (constants) and the mean is projected out.  The matrix
 * and preconditioner are kept while the labels do not change.  pressure
 * (f64 cells, may be NULL) receives p [Pa] (0 outside the liquid; zero mean
 * when singular).  stats as for tide_liquid_project. */
int tide_periodic_project(tide_periodic *P, tide_mac *u, const tide_array *labels, double dt,
                          double rho, double tol, int maxit, tide_array *pressure,
                          tide_project_stats *stats);

/* The same projection with a ghost-fluid free surface (Gibou et al. 2002;
 * Enright et al. 2003; the free surface of tide_liquid_project with phi):
 * phi (f64 cells, < 0 in the liquid; NULL: the voxel surface above) puts
 * p = 0 on the interface, at the fraction
 *   theta = phi_l / (phi_l - phi_a)  (phi_l <= 0 < phi_a; else 1),
 *   clamped below by theta_min (0: TIDE_MAC_THETA_MIN = 0.01),
 * of the way from the liquid cell's centre to the air cell's, wrap faces
 * included: an air neighbour adds 1/theta to the diagonal and the face
 * update uses the ghost pressure q_l (1 - 1/theta) -- the theta of
 * tide_mac_poisson_theta and of tide_liquid_surface_tension_jump, so the
 * jump sigma kappa (projection "ghost") sits where this projection puts
 * the surface.  The pattern is kept while the labels do not change; the
 * diagonal and the preconditioner are refreshed every call with phi.
 * valid (u8 MAC, may be NULL) receives 1 on the projected faces (open, a
 * liquid cell beside them; face n[a] of a periodic axis as face 0), 0
 * elsewhere: the source faces of tide_periodic_extend. */
int tide_periodic_project_ghost(tide_periodic *P, tide_mac *u, const tide_array *labels,
                                const tide_array *phi, double theta_min, double dt, double rho,
                                double tol, int maxit, tide_mac *valid, tide_array *pressure,
                                tide_project_stats *stats);

/* Extension of u from the faces with valid = 1 into the air along the
 * normals of phi (f64 cells), on the torus: the grid padded by 6 cells per
 * periodic axis, then tide_liquid_extend_linear (linear = 1, Aslam 2004) or
 * tide_levelset_extrapolate_mac (constant, linear = 0) with maxdist (<= 0:
 * no limit), the interior read back.  valid is updated as by those. */
int tide_periodic_extend(tide_periodic *P, tide_mac *u, const tide_array *phi, tide_mac *valid,
                         int linear, double maxdist);

/* tide_mac_extrapolate (neighbour averages from the valid faces, layers
 * sweeps, clear: zero the faces still invalid) on the torus: the grid padded
 * by layers + 1 cells per periodic axis, the interior read back; valid
 * updated. */
int tide_periodic_extrapolate(tide_periodic *P, tide_mac *u, tide_mac *valid, int layers, int clear);

/* Zero normal velocity on the walls of the non-periodic axes and on the
 * faces of SOLID cells (labels u8 cells or NULL; across the wrap faces too),
 * then face n[a] = face 0 on the periodic axes. */
int tide_periodic_enforce_walls(const tide_periodic *P, tide_mac *u, const tide_array *labels);

/* Redistance phi (f64 cells) on the torus: tide_levelset_redistance on the
 * grid padded by 8 cells per periodic axis (the distance to the nearest
 * image of the surface within 8 cells across the seam), band as there. */
int tide_periodic_redistance(tide_periodic *P, tide_array *phi, double band);

/* Kinetic energy per unit density of a MAC field [m^(dim+2)/s^2]:
 *   E = 1/2 sum_a sum_f u_{a,f}^2 dx^dim
 * over the distinct faces (on periodic axes face n[a] is not counted).
 * mask (u8 cells, may be NULL): only faces with a cell of mask != 0 beside
 * them. */
int tide_mac_kinetic_energy(const tide_mac *m, const int per[3], const tide_array *mask,
                            double *out);

#endif
