/*
 * grid.h -- uniform 2D/3D grids, cell labels and MAC (staggered) vector
 * fields.  Shared by every module that works on grids (linalg's MAC Poisson
 * operators, liquid, couple, fileio).
 *
 * Conventions (docs/conventions.md):
 *   - SI units, y up, gravity (0, -9.81[, 0]).
 *   - Cell (i, j, k) has its centre at origin + (i + 1/2, j + 1/2, k + 1/2) dx.
 *   - Cell fields are arrays of shape {ni, nj} (2D) or {ni, nj, nk} (3D), row
 *     major: cell (i, j, k) is at (i*nj + j)*nk + k, with nk = 1 in 2D.
 *   - MAC face velocities: u has shape (ni+1, nj[, nk]) and sits at the centre
 *     of the face between cells (i-1, j, k) and (i, j, k), i.e. at
 *     origin + (i, j + 1/2, k + 1/2) dx; v is (ni, nj+1[, nk]), w is
 *     (ni, nj, nk+1), likewise.
 */
#ifndef TIDE_GRID_H
#define TIDE_GRID_H

#include "tide.h"

/* Loops over fewer work items than this run serially: forking threads
 * costs more than the work (and much more on a loaded machine). */
#define TIDE_PAR_MIN 8192

/* Cell labels (u8 arrays over cells). */
enum { TIDE_CELL_AIR = 0, TIDE_CELL_LIQUID = 1, TIDE_CELL_SOLID = 2 };

typedef struct tide_grid {
  int dim;          /* 2 or 3 */
  int n[3];         /* cells per axis; n[2] == 1 in 2D */
  double dx;        /* cell size [m] */
  double origin[3]; /* lower corner of cell (0,0,0) [m]; origin[2] == 0 in 2D */
} tide_grid;

/* Morton (Z-order) code of the integer point (i, j[, k]) >= 0: the bits of
 * the coordinates interleaved, x lowest (21 bits per axis in 3D, 32 in 2D).
 * Sorting by it keeps points that are close in space close in memory (Li's
 * lecture, sparse grids). */
static inline uint64_t tide_morton(int dim, int i, int j, int k) {
  uint64_t c = 0;
  int bits = dim == 3 ? 21 : 32;
  for (int b = 0; b < bits; b++) {
    c |= (uint64_t)((i >> b) & 1) << (dim * b);
    c |= (uint64_t)((j >> b) & 1) << (dim * b + 1);
    if (dim == 3) c |= (uint64_t)((k >> b) & 1) << (dim * b + 2);
  }
  return c;
}

static inline int64_t tide_grid_ncells(const tide_grid *g) {
  return (int64_t)g->n[0] * g->n[1] * g->n[2];
}

/* Linear index of cell (i, j, k) (k = 0 in 2D). */
static inline int64_t tide_grid_idx(const tide_grid *g, int i, int j, int k) {
  return ((int64_t)i * g->n[1] + j) * g->n[2] + k;
}

/* Extents of the face array of axis a (0: u, 1: v, 2: w). */
static inline void tide_grid_face_dims(const tide_grid *g, int a, int out[3]) {
  out[0] = g->n[0];
  out[1] = g->n[1];
  out[2] = g->n[2];
  out[a] += 1;
}

/* Linear index of face (i, j, k) of axis a: the face on the low side of cell
 * (i, j, k) along a. */
static inline int64_t tide_grid_fidx(const tide_grid *g, int a, int i, int j, int k) {
  int n1 = g->n[1] + (a == 1), n2 = g->n[2] + (a == 2);
  return ((int64_t)i * n1 + j) * n2 + k;
}

/* A MAC vector field: one face array per axis (u[2] == NULL in 2D). */
typedef struct tide_mac {
  tide_grid grid;
  tide_array *u[3];
} tide_mac;

/* ======================================================================
 * Grid operators (modules/grid/grid.c, interp.c, macops.c).
 * All fields are f64 unless stated.  Positions are arrays of shape (n, dim)
 * in metres.  Every function returns a status and takes outputs last.
 * ==================================================================== */

/* Fill *g after checking dim (2 or 3), n[d] >= 1 (n[2] = 1 in 2D), dx > 0
 * finite and a finite origin. */
int tide_grid_init(tide_grid *g, int dim, const int n[3], double dx, const double origin[3]);

/* New zero-filled cell array of dtype t, shape {ni, nj[, nk]}; NULL (message
 * recorded) on failure. */
tide_array *tide_grid_cell_array(const tide_grid *g, tide_dtype t);
/* Check that a is a contiguous cell array of dtype t over g. */
int tide_grid_check_cells(const tide_grid *g, const tide_array *a, tide_dtype t, const char *what);
/* Centre of cell (i, j, k): origin + (i + 1/2, j + 1/2, k + 1/2) dx. */
void tide_grid_center(const tide_grid *g, int i, int j, int k, double x[3]);
/* Cell centres as an array of shape {ni, nj[, nk], dim} (f64). */
int tide_grid_centers(const tide_grid *g, tide_array **out);
/* Cell containing point x (clamped into the grid). */
void tide_grid_locate(const tide_grid *g, const double *x, int ijk[3]);

/* New MAC field over g with face arrays of dtype t (zero-filled):
 * u (ni+1, nj[, nk]), v (ni, nj+1[, nk]), w (ni, nj, nk+1) in 3D. */
int tide_mac_new(const tide_grid *g, tide_dtype t, tide_mac **out);
void tide_mac_free(tide_mac *m);
/* Check that m is a MAC field over a grid equal to g (NULL g: any grid)
 * with face arrays of dtype t. */
int tide_mac_check(const tide_mac *m, const tide_grid *g, tide_dtype t, const char *what);
/* Same grid (dim, n, dx, origin)? */
int tide_grid_same(const tide_grid *a, const tide_grid *b);
/* "(i, j)" / "(i, j, k)": 1-based cell indices of flat cell index q, as
 * error messages print cells (buf holds at least 48 chars); returns buf. */
const char *tide_grid_cellname(const tide_grid *g, int64_t q, char *buf);
/* "u face (i, j[, k])" of flat face index f of axis a (1-based: face i is on
 * the low side of cell i); returns buf (at least 56 chars). */
const char *tide_grid_facename(const tide_grid *g, int a, int64_t f, char *buf);
/* dst = src (face by face), dst = alpha src + dst, fill with value. */
int tide_mac_copy(tide_mac *dst, const tide_mac *src);
int tide_mac_axpy(tide_mac *y, double alpha, const tide_mac *x);
int tide_mac_fill(tide_mac *m, double v);

/* -------------------------------------------------------- interpolation
 * A field sampled on a regular lattice: sample (i, j, k) of the array f of
 * extents n[0..2] sits at lo + (i, j, k) dx.  Cell fields have lo = origin +
 * dx/2 (all axes); face fields of axis a have lo = origin + dx/2 except on a.
 * Interpolation is multilinear (bilinear in 2D, trilinear in 3D); a point
 * outside the lattice is clamped onto it (constant extrapolation). */
typedef struct tide_lattice {
  const double *f;
  int dim;
  int n[3];
  double lo[3];
  double inv_dx;
} tide_lattice;

static inline void tide_lattice_cells(const tide_grid *g, const double *f, tide_lattice *L) {
  L->f = f;
  L->dim = g->dim;
  L->inv_dx = 1.0 / g->dx;
  for (int d = 0; d < 3; d++) {
    L->n[d] = g->n[d];
    L->lo[d] = g->origin[d] + 0.5 * g->dx;
  }
}

static inline void tide_lattice_faces(const tide_grid *g, int a, const double *f, tide_lattice *L) {
  tide_lattice_cells(g, f, L);
  L->n[a] += 1;
  L->lo[a] -= 0.5 * g->dx;
}

/* Base index b[d] and weight fraction t[d] in [0, 1] of point x (dim
 * coordinates) along each axis: the point lies between samples b and b+1.
 * Axes of extent 1 give b = 0, t = 0. */
static inline void tide_lattice_locate(const tide_lattice *L, const double *x, int b[3],
                                       double t[3]) {
  for (int d = 0; d < 3; d++) {
    b[d] = 0;
    t[d] = 0;
    if (d >= L->dim || L->n[d] < 2) continue;
    double s = (x[d] - L->lo[d]) * L->inv_dx;
    double smax = (double)(L->n[d] - 1);
    if (!(s > 0)) s = 0; /* also maps NaN to 0 */
    if (s > smax) s = smax;
    int i = (int)s;
    if (i > L->n[d] - 2) i = L->n[d] - 2;
    b[d] = i;
    t[d] = s - i;
  }
}

/* Multilinear interpolation of the lattice at x. */
static inline double tide_lattice_interp(const tide_lattice *L, const double *x) {
  int b[3];
  double t[3];
  tide_lattice_locate(L, x, b, t);
  int s1 = L->n[2], s0 = L->n[1] * L->n[2];
  const double *p = L->f + (int64_t)b[0] * s0 + (int64_t)b[1] * s1 + b[2];
  int o0 = L->n[0] > 1 ? s0 : 0, o1 = L->n[1] > 1 ? s1 : 0, o2 = L->n[2] > 1 ? 1 : 0;
  double c00 = p[0] + t[2] * (p[o2] - p[0]);
  double c01 = p[o1] + t[2] * (p[o1 + o2] - p[o1]);
  double c10 = p[o0] + t[2] * (p[o0 + o2] - p[o0]);
  double c11 = p[o0 + o1] + t[2] * (p[o0 + o1 + o2] - p[o0 + o1]);
  double c0 = c00 + t[1] * (c01 - c00), c1 = c10 + t[1] * (c11 - c10);
  return c0 + t[0] * (c1 - c0);
}

/* Where a point lies on the two sample lattices of one axis: the cell
 * centres (n samples, at origin + (i + 1/2) dx) and the faces normal to the
 * axis (n + 1 samples, at origin + i dx).  b: base sample, t: fraction, as
 * tide_lattice_locate (clamped onto the lattice). */
typedef struct tide_axis_loc {
  int bc, bf;
  double tc, tf;
} tide_axis_loc;

static inline void tide_axis_locate1(double s, int n, int *b, double *t) {
  if (n < 2) {
    *b = 0;
    *t = 0;
    return;
  }
  double smax = (double)(n - 1);
  if (!(s > 0)) s = 0; /* also maps NaN to 0 */
  if (s > smax) s = smax;
  int i = (int)s;
  if (i > n - 2) i = n - 2;
  *b = i;
  *t = s - i;
}

/* The locations of x on the cell and face lattices of every axis of g. */
static inline void tide_grid_locate_axes(const tide_grid *g, const double *x, tide_axis_loc loc[3]) {
  double inv = 1.0 / g->dx;
  for (int d = 0; d < 3; d++) {
    if (d >= g->dim) {
      loc[d].bc = loc[d].bf = 0;
      loc[d].tc = loc[d].tf = 0;
      continue;
    }
    double s = (x[d] - g->origin[d]) * inv;
    tide_axis_locate1(s, g->n[d] + 1, &loc[d].bf, &loc[d].tf);
    tide_axis_locate1(s - 0.5, g->n[d], &loc[d].bc, &loc[d].tc);
  }
}

/* Multilinear interpolation of face array f of axis a (extents n + e_a) at
 * the location loc (from tide_grid_locate_axes). */
static inline double tide_mac_interp_loc(const tide_grid *g, int a, const double *f,
                                         const tide_axis_loc loc[3]) {
  int b[3];
  double t[3];
  int n[3] = {g->n[0], g->n[1], g->n[2]};
  n[a] += 1;
  for (int d = 0; d < 3; d++) {
    b[d] = d == a ? loc[d].bf : loc[d].bc;
    t[d] = d == a ? loc[d].tf : loc[d].tc;
  }
  int s1 = n[2], s0 = n[1] * n[2];
  const double *p = f + (int64_t)b[0] * s0 + (int64_t)b[1] * s1 + b[2];
  int o0 = n[0] > 1 ? s0 : 0, o1 = n[1] > 1 ? s1 : 0, o2 = n[2] > 1 ? 1 : 0;
  double c00 = p[0] + t[2] * (p[o2] - p[0]);
  double c01 = p[o1] + t[2] * (p[o1 + o2] - p[o1]);
  double c10 = p[o0] + t[2] * (p[o0 + o2] - p[o0]);
  double c11 = p[o0 + o1] + t[2] * (p[o0 + o1 + o2] - p[o0 + o1]);
  double c0 = c00 + t[1] * (c01 - c00), c1 = c10 + t[1] * (c11 - c10);
  return c0 + t[0] * (c1 - c0);
}

/* Velocity of the MAC field m at x (dim components into v): each component
 * interpolated multilinearly on its own face lattice (the point is located
 * once per axis for all components). */
static inline void tide_mac_velocity(const tide_mac *m, const double *x, double *v) {
  tide_axis_loc loc[3];
  tide_grid_locate_axes(&m->grid, x, loc);
  for (int a = 0; a < m->grid.dim; a++)
    v[a] = tide_mac_interp_loc(&m->grid, a, (const double *)tide_array_ptr(m->u[a]), loc);
}

/* Sample a cell field f (f64 cell array) at points x (n, dim) into out (n). */
int tide_grid_sample(const tide_grid *g, const tide_array *f, const tide_array *x,
                     tide_array *out);
/* Sample the MAC field m (f64) at points x (n, dim) into out (n, dim). */
int tide_mac_sample(const tide_mac *m, const tide_array *x, tide_array *out);

/* ----------------------------------------------------------- advection
 * Semi-Lagrangian advection (Zarifi Sec. 4.3, Eq. 4.27-4.30): the new value
 * at a sample point x is the old field at the backtraced point
 *   x* = x - dt/2 u(x),  x0 = x - dt u(x*)        (RK2 midpoint)
 * with u the MAC velocity `vel` interpolated multilinearly. */
/* Scalar cell field: out(x) = f(x0(x)).  out must not alias f. */
int tide_grid_advect(const tide_grid *g, const tide_mac *vel, const tide_array *f, double dt,
                     tide_array *out);
/* MAC field: out_a(x_f) = q_a(x0(x_f)) for every face f of every axis a.  out
 * must not alias q (q may be vel itself: self-advection). */
int tide_mac_advect(const tide_mac *vel, const tide_mac *q, double dt, tide_mac *out);

/* -------------------------------------------------------- MAC operators */
/* u_a += dt * accel[a] on every face. */
int tide_mac_add_accel(tide_mac *m, const double accel[3], double dt);
/* Largest |u_a| over all faces and axes [m/s] (the CFL speed). */
int tide_mac_max_speed(const tide_mac *m, double *out);
/* Discrete divergence per cell [1/s]:
 *   div(i,j,k) = (u(i+1,j,k) - u(i,j,k) + v(i,j+1,k) - v(i,j,k) [+ w..]) / dx.
 * out is an f64 cell array. */
int tide_mac_divergence(const tide_mac *m, tide_array *out);
/* Free-slip static solid walls: set the normal velocity to zero on the
 * domain boundary faces and on every face touching a TIDE_CELL_SOLID cell of
 * the u8 label array (labels may be NULL: domain walls only).
 * separating != 0 applies the inequality u.n >= 0 instead (Bridson 2015,
 * Sec. 4.4): a wall face takes the value of the next face of the same axis
 * on the open side when that value points away from the wall, else 0.  Use
 * it on the extrapolated field that moves particles, so liquid can leave a
 * wall (the projection always treats wall faces as closed). */
int tide_mac_enforce_walls(tide_mac *m, const tide_array *labels, int separating);
/* The same, also closing the faces whose open fraction (f64 MAC field, e.g.
 * from tide_mac_face_fractions; may be NULL) is 0. */
int tide_mac_enforce_walls_cut(tide_mac *m, const tide_array *labels, const tide_mac *fractions,
                               int separating);
/* Domain sides as bits of an `open` mask: the low (hi = 0) or high (hi = 1)
 * side of axis a is bit 2a + hi (x- 1, x+ 2, y- 4, y+ 8, z- 16, z+ 32). */
#define TIDE_SIDE_BIT(a, hi) (1u << (2 * (a) + ((hi) ? 1 : 0)))
/* The same as tide_mac_enforce_walls_cut, with open boundaries: the domain
 * faces of the sides in `open` (TIDE_SIDE_BIT mask) are not walls; their
 * normal velocity takes the value of the next face inward (zero normal
 * gradient, an outflow condition; 0 when that face is a wall itself). */
int tide_mac_enforce_walls_open(tide_mac *m, const tide_array *labels, const tide_mac *fractions,
                                int separating, unsigned open);
/* Extrapolate face values from valid faces into invalid ones (Zarifi
 * Sec. 4.6, Bridson 2015 Sec. 4.4): `layers` sweeps; each sweep gives every
 * invalid face with at least one valid neighbour (the 2*dim faces of the
 * same axis one index away) the average of its valid neighbours and marks
 * it valid for the next sweep.  Updates are order independent (faces turned
 * valid in a sweep are marked apart until it ends); rows of faces with no
 * valid face in them or the four rows beside them are skipped.  valid is a
 * u8 MAC field (nonzero = valid), updated in place so that on return it is
 * 1 on the faces that hold a value and 0 elsewhere.  clear != 0 sets
 * the faces still invalid after the sweeps to 0 (so stale values far from
 * the liquid neither advect nor enter the CFL speed). */
int tide_mac_extrapolate(tide_mac *m, tide_mac *valid, int layers, int clear);

/* ------------------------------------------------------------ cut cells */
/* Open (non-solid) area fractions of the MAC faces from a solid signed
 * distance sampled at the grid nodes (phi_s < 0 inside the solid; array of
 * shape (ni+1, nj+1[, nk+1]), e.g. Shape:sdf(g, {at = "nodes"})), the
 * node-based estimate of Zarifi Fig. 5.2: along each face edge phi_s is
 * taken linear, the solid part of the face is the polygon cut off by the
 * straight lines through the edge crossings (marching squares; in 2D a face
 * is a segment and its open fraction is the length outside the solid).
 * Fractions below clamp_lo become 0 and above clamp_hi become 1 (Zarifi
 * Sec. 4.6 uses 0.01 / 0.99 against ill-conditioning).  out: f64 MAC field.
 * solid (u8 cells, may be NULL) receives TIDE_CELL_SOLID for cells whose
 * faces are all closed, TIDE_CELL_AIR otherwise. */
int tide_mac_face_fractions(const tide_grid *g, const tide_array *nodes, double clamp_lo,
                            double clamp_hi, tide_mac *out, tide_array *solid);
/* The "exact clipped area" variant for a solid shape (sdf.h; phi < 0 inside
 * the solid): each face is subdivided adaptively -- a piece whose centre
 * value exceeds its half diagonal in magnitude is entirely open or solid
 * (phi bounds the distance), others are split in 2 (2D) or 4 (3D) down to
 * `depth` levels, where the node-based estimate of the piece is used.  The
 * error of a smooth boundary falls as 4^-depth; depth 0 is the node-based
 * estimate itself.  In 2D, a shape with mesh leaves (closed polygons, through
 * CSG and rigid transforms) has each undecided face split at its crossings
 * with the polygons' segments (tide_sdf_mesh_crossings): for meshes only,
 * each part is open or solid by the sign at its midpoint, so the fractions
 * are the exact lengths outside the polygons and every cell closes against
 * the boundary pieces clipped from the same polygons (couple/clip.c) to
 * round-off whatever the opening's size (depth is then unused); mixed with
 * analytic leaves each part is subdivided as above.  In 3D, a shape of mesh
 * leaves only (closed triangle surfaces) has each undecided face integrated
 * exactly: the surfaces' cross-section with the face's plane
 * (tide_sdf_mesh_plane_segments), clipped to the square, makes the open
 * length of the square's lines along one axis piecewise linear between
 * events, integrated by the midpoint rule, each line split at its
 * crossings (more than 64 segments or 256 events: the subdivision).
 * Clamping and solid labels as above. */
struct tide_shape;
int tide_mac_face_fractions_shape(const tide_grid *g, const struct tide_shape *shape, int depth,
                                  double clamp_lo, double clamp_hi, tide_mac *out, tide_array *solid);

#endif
