/*
 * thingen.h -- generators of thin-solid meshes (shells: triangle surfaces
 * in 3D; rods: segment networks), see thin.h for their energies.  SI units.
 */
#ifndef TIDE_SOLID_THINGEN_H
#define TIDE_SOLID_THINGEN_H

#include "solid/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A cut in a sheet along grid lines: the nodes strictly between grid
 * positions `from` and `to` on the line `at` (a row j = at when along_u, a
 * column i = at otherwise) are split in two, the cells on the side of
 * increasing j (i) taking the copy. */
typedef struct tide_slit {
  int along_u, at, from, to;
} tide_slit;

/* Rectangular sheet (cloth, band, leaf, kirigami): nodes origin + s u + t v
 * (+ the bulge h(s, t) along the unit normal u x v / |u x v|) on an
 * (nu+1) x (nv+1) grid, s = i/nu, t = j/nv, node (i, j) at index
 * i (nv+1) + j; every cell split along its diagonal (i, j)-(i+1, j+1) into
 * (c00, c10, c11), (c00, c11, c01), normals along u x v; with alternate != 0
 * the cells with i + j odd are split along (i+1, j)-(i, j+1) instead,
 * (c00, c10, c01), (c10, c11, c01) (a symmetric pattern: hinge bending on
 * one diagonal direction couples bending to twist).
 * bulge (may be NULL): {b_u, b_v} heights [m] of the parabolic cap
 * h = b_u (1 - (2s-1)^2) + b_v (1 - (2t-1)^2) (a curved, leaf-like rest
 * shape).  slits (may be NULL): cuts, their split nodes appended after the
 * grid nodes. */
int tide_mesh_sheet(const double *origin, const double *u, const double *v, int nu, int nv,
                    int alternate, const double *bulge, const tide_slit *slits, int nslits, tide_tetmesh **out);

/* Disc of the given radius around center, normal `normal`: a centre node
 * and `rings` rings of 6 r nodes (r = 1..rings), 6 rings^2 triangles of
 * near-equal size. */
int tide_mesh_disc(const double *center, const double *normal, double radius, int rings,
                   tide_tetmesh **out);

/* Polylines as a rod mesh in dim dimensions: points P (np x dim), polyline
 * q = points start[q] .. start[q+1]-1 (segments between consecutive
 * points, and from the last to the first when closed[q] != 0; closed may
 * be NULL). */
int tide_mesh_rods(int dim, int64_t np, const double *P, int npoly, const int64_t *start,
                   const int *closed, tide_tetmesh **out);

/* Helix around the vertical axis through center: x = cx + R cos a,
 * z = cz + R sin a, y = cy + pitch a / (2 pi), a from 0 to 2 pi turns,
 * per_turn segments per turn. */
int tide_mesh_helix(const double *center, double radius, double pitch, double turns, int per_turn,
                    tide_tetmesh **out);

/* Spider web in the x-y plane around center: `spokes` straight spokes from
 * a hub to the outer ring and `rings` concentric rings at radius r R /
 * rings, each arc between two spokes subdivided into per_arc segments with
 * their nodes on the circle; spokes and rings share the junction nodes
 * (non-manifold: four segments meet there). */
int tide_mesh_web(const double *center, double radius, int rings, int spokes, int per_arc,
                  tide_tetmesh **out);

#ifdef __cplusplus
}
#endif
#endif
