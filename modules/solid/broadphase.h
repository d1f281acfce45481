/*
 * broadphase.h -- candidate pairs for contact between the primitives of
 * meshes (points, edges, triangles in 3D): a uniform spatial hash over the
 * axis-aligned boxes of the triangles (resp. edges), queried by every point
 * (resp. edge) in parallel, each query's candidates sorted, so the pair
 * lists are identical for any thread count; and the exact-topology check
 * the never-intersect invariant needs: segment-triangle intersections of a
 * mesh's edges against its triangles.  Plain C, no state beyond the output.
 */
#ifndef TIDE_SOLID_BROADPHASE_H
#define TIDE_SOLID_BROADPHASE_H

#include "solid/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Candidate pairs, CSR by the querying primitive: the candidates of query
 * q are cand[ptr[q] .. ptr[q+1]-1], increasing. */
typedef struct tide_pairs {
  int64_t nq;
  int64_t *ptr;  /* nq + 1 */
  int32_t *cand; /* ptr[nq] */
} tide_pairs;

void tide_pairs_free(tide_pairs *p);

/* Point-triangle candidates: points x (np x 3), triangles tri (nt x 3 node
 * indices into the same x): pairs whose boxes, inflated by `margin` [m],
 * overlap, the triangle not holding the point.  h: hash cell size (<= 0:
 * the mean triangle box extent). */
int tide_broad_point_triangle(int64_t np, const double *x, int64_t nt, const int32_t *tri,
                              double margin, double h, tide_pairs *out);

/* ... for the points pts (np node indices into x) only (query k is the
 * node pts[k]). */
int tide_broad_points_triangles(const double *x, int64_t np, const int32_t *pts, int64_t nt,
                                const int32_t *tri, double margin, tide_pairs *out);

/* Point-edge candidates: the points pts (np node indices into x) against
 * the edges e (ne x 2 node indices into x): pairs whose boxes, inflated by
 * `margin` [m], overlap, the edge not holding the point (query k is the
 * node pts[k]). */
int tide_broad_points_edges(const double *x, int64_t np, const int32_t *pts, int64_t ne,
                            const int32_t *e, double margin, tide_pairs *out);
/* Edge-edge candidates among the edges e (ne x 2 node indices into x):
 * pairs i < j with overlapping inflated boxes and no shared node. */
int tide_broad_edge_edge(const double *x, int64_t ne, const int32_t *e, double margin, double h,
                         tide_pairs *out);

/* Segment (p, q) against triangle (a, b, c): 1 when they intersect (the
 * segment's endpoints strictly on opposite sides of the triangle's plane,
 * or one on it, and the crossing inside or on the triangle), by the signs
 * of orientation determinants; coplanar segments count as not crossing. */
int tide_segment_triangle(const double *p, const double *q, const double *a, const double *b,
                          const double *c);

/* The edges of a 3D mesh's triangles (the boundary of a volume mesh, the
 * triangles of a surface, the shells of a merged mesh) and its rod
 * segments (2D: the boundary segments and the rod segments), each once,
 * sorted: (ne x 2), *e allocated with tide_alloc
 * (free with tide_free(*e, ne * 2 * sizeof(int32_t))). */
int tide_mesh_edges(const tide_tetmesh *m, int64_t *ne, int32_t **e);

/* Intersections at positions x between the mesh's edges (tide_mesh_edges)
 * and its boundary triangles, pairs sharing a node excluded: *count, and
 * the first one in (edge, triangle) order (0-based; -1 if none). */
int tide_mesh_intersections(const tide_tetmesh *m, const double *x, int64_t *count,
                            int64_t *edge, int64_t *tri);

#ifdef __cplusplus
}
#endif
#endif
