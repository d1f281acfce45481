/*
 * mesh.h -- simplicial meshes of deformable solids (tide.solid): tetrahedra
 * in 3D, triangles in 2D (and, for surface input such as OBJ files,
 * triangles in 3D), with their boundary, rest-shape precomputation,
 * generators and file readers.
 *
 * Plain C, no Lua.  The Lua box "tide.TetMesh" holds a tide_tetmesh *.
 *
 * Conventions
 *   - SI units: positions in metres, velocities in m/s, masses in kg.
 *   - dim is the spatial dimension (2 or 3); nper the nodes per element
 *     (dim + 1 for volume meshes: triangles in 2D, tetrahedra in 3D; 3 for a
 *     triangle surface in 3D (shells); 2 for segments in 2D or 3D (rods,
 *     polylines and networks), see tide_tetmesh.surface).
 *   - Element node order follows VTK (VTK_TRIANGLE = 5, VTK_TETRA = 10):
 *     volume elements are positively oriented, i.e.
 *       3D: det[x1-x0, x2-x0, x3-x0] > 0 (x3 on the side the right-handed
 *           normal of triangle x0 x1 x2 points to),
 *       2D: det[x1-x0, x2-x0] > 0 (counter-clockwise).
 *   - Boundary faces (triangles in 3D, segments in 2D) are oriented so that
 *     their right-hand normal points out of the solid: for a triangle
 *     (a, b, c) the outward normal is (b-a) x (c-a) / |.|; for a segment
 *     (a, b) in 2D it is (b-a) rotated by -90 degrees, (dy, -dx) / |.|.
 *   - Arrays are row-major tide_arrays shared zero-copy with Lua:
 *     rest, x, v are (nv, dim) f64; elem is (ne, nper) i32; bound is
 *     (nb, dim) i32 (0-based node indices in C, 1-based when read from Lua
 *     through the binding's accessors).
 */
#ifndef TIDE_SOLID_MESH_H
#define TIDE_SOLID_MESH_H

#include "tide.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tide_fem; /* material, masses and integrator state (fem.h) */

/* kinds of mesh (tide_tetmesh.surface) */
enum { TIDE_MESH_VOLUME = 0, TIDE_MESH_SHELL = 1, TIDE_MESH_ROD = 2 };

typedef struct tide_tetmesh {
  int dim;      /* spatial dimension, 2 or 3 */
  int nper;     /* nodes per element: dim + 1 (volume), 3 (surface in 3D), 2 (segments) */
  int surface;  /* TIDE_MESH_VOLUME, TIDE_MESH_SHELL (triangle surface in 3D) or
                   TIDE_MESH_ROD (segments; no volume elements, no boundary faces) */
  int64_t nv;   /* nodes */
  int64_t ne;   /* elements */
  int64_t nb;   /* boundary faces (3D: triangles, 2D: segments) */
  tide_array *rest;       /* (nv, dim) f64 rest (material) positions X [m] */
  tide_array *x;          /* (nv, dim) f64 current positions [m] */
  tide_array *v;          /* (nv, dim) f64 velocities [m/s] */
  tide_array *elem;       /* (ne, nper) i32 element nodes, VTK order */
  tide_array *bound;      /* (nb, dim) i32 boundary faces, outward oriented */
  tide_array *bound_elem; /* (nb) i32 element owning each boundary face */
  /* Rest-shape precomputation (volume meshes; Zarifi Alg. 1, Irving 2.3):
   * Dm = [X1-X0, ..., Xd-X0] (d x d), stored as its inverse. */
  tide_array *Dminv; /* (ne, dim, dim) f64 inverse rest edge matrices [1/m] */
  tide_array *vol;   /* (ne) f64 rest volumes (areas in 2D) [m^3] or [m^2] */
  /* Node -> element incidence (for gathering element contributions per
   * node without atomics): the incident (element e, local node a) of node
   * i are adj[adj_ptr[i] .. adj_ptr[i+1]-1] = e*nper + a, in element order. */
  tide_array *adj_ptr; /* (nv + 1) i32 */
  tide_array *adj;     /* (ne * nper) i32 */
  struct tide_fem *fem; /* NULL until a material is attached (fem.h) */
} tide_tetmesh;

/* Build a mesh from node positions and element connectivity (both copied).
 *   X:    nv*dim rest positions (row-major), all finite
 *   elem: ne*nper 0-based node indices in [0, nv)
 *   nper: dim + 1 for volume meshes; 3 with dim == 3 for a triangle surface;
 *         2 for segments (a rod mesh: polylines and networks)
 * Volume elements must be non-degenerate; if every element is negatively
 * oriented the whole mesh is flipped to VTK order (some generators and file
 * formats use the opposite convention); a mix of orientations is an
 * inverted mesh and an error.  `src` names the data source in messages (may
 * be NULL) and `lines` (may be NULL) gives, per element, the line of the
 * file it came from, so errors read "file:line: ...".
 * x = X and v = 0 initially; the boundary and Dm^-1, volumes are computed.
 * Unused nodes (in no element) are allowed and have zero mass. */
int tide_tetmesh_new(int dim, int nper, int64_t nv, const double *X, int64_t ne,
                     const int32_t *elem, const char *src, const int64_t *lines,
                     tide_tetmesh **out);
void tide_tetmesh_free(tide_tetmesh *m);
/* Bytes held by the mesh and its material state (for memory reports). */
size_t tide_tetmesh_bytes(const tide_tetmesh *m);

/* Signed volume (3D) / area (2D) of the simplex with the given vertex
 * positions (dim+1 points of dim coordinates each, row-major). */
double tide_simplex_volume(int dim, const double *p);

/* Current signed volumes (areas) of the elements from positions x
 * (nv*dim): vol_out[ne].  Negative for inverted elements. */
int tide_tetmesh_volumes(const tide_tetmesh *m, const double *x, double *vol_out);
/* Total signed volume of the current configuration (sum of element volumes,
 * deterministic reduction). */
int tide_tetmesh_total_volume(const tide_tetmesh *m, const double *x, double *out);

/* Outward unit normals and areas (lengths in 2D) of the boundary faces at
 * positions x: normals nb*dim, areas nb (either may be NULL). */
int tide_tetmesh_boundary_normals(const tide_tetmesh *m, const double *x, double *normals,
                                  double *areas);

/* Boundary nodes: flags[nv] = 1 for nodes on a boundary face, else 0. */
int tide_tetmesh_boundary_nodes(const tide_tetmesh *m, uint8_t *flags);

/* --------------------------------------------------------- generators */

/* Regular box [lo, hi] with n[0] x n[1] (x n[2]) cells, each square split
 * into 2 triangles (2D) or each cube into 6 tetrahedra around its main
 * diagonal (Kuhn / Freudenthal subdivision, conforming across cells).
 * Node (i, j, k) has index (i*(n1+1) + j)*(n2+1) + k. */
int tide_mesh_box(int dim, const double *lo, const double *hi, const int *n, tide_tetmesh **out);

/* A signed distance shape (modules/grid/sdf.h). */
struct tide_shape;

/* Body-centred cubic lattice of spacing h (cube corners plus cube centres,
 * 4 tetrahedra through each face shared by two cube centres; in 2D the
 * square lattice plus square centres, 4 triangles per square), cut by the
 * signed distance function: elements whose centroid lies inside (phi < 0)
 * are kept, then every boundary node is moved onto the surface along
 * -phi grad(phi) (a few Newton steps), each move shortened while it would
 * invert or nearly flatten an incident element (quality floor `minq`
 * relative to the rest volume, e.g. 0.1).  Nodes are numbered in lattice
 * order, unused lattice nodes removed.  lo/hi bound the region sampled. */
int tide_mesh_bcc(int dim, const struct tide_shape *shape, const double *lo, const double *hi,
                  double h, double minq, tide_tetmesh **out);

/* ------------------------------------------------------------ readers */

/* TetGen .node/.ele pair (also Triangle's 2D files): `path` is the common
 * prefix ("mesh" reads mesh.node and mesh.ele) or either file name.  The
 * first index of the .node file (0 or 1) sets the numbering.  Only the
 * first dim+1 nodes of higher-order elements are used. */
int tide_mesh_read_tetgen(const char *path, tide_tetmesh **out);
/* Gmsh .msh, ASCII versions 2.x and 4.x: tetrahedra (type 4) form a 3D
 * mesh; without tetrahedra, triangles (type 2) form a 2D mesh when every z
 * is 0.  Other element types are ignored. */
int tide_mesh_read_gmsh(const char *path, tide_tetmesh **out);
/* Wavefront OBJ: vertices `v x y z` and faces `f a b c ...` (v, v/vt,
 * v/vt/vn, v//vn, negative = relative), polygons fan-triangulated; gives a
 * triangle surface in 3D (surface = 1, bound = the triangles). */
int tide_mesh_read_obj(const char *path, tide_tetmesh **out);

#ifdef __cplusplus
}
#endif
#endif
