/*
 * extend.h -- second-order extension of a MAC velocity from the liquid into
 * the air along the normals of a level set (tide.liquid.extend;
 * docs/liquids-physics.md, "Extension of the velocity into the air").
 *
 * Reference
 *   [Asl04] Aslam, "A partial differential equation approach to
 *           multidimensional extrapolation", JCP 193, 2004 (linear
 *           extrapolation: extend the normal derivative, then the field
 *           with that derivative).
 */
#ifndef TIDE_LIQUID_EXTEND_H
#define TIDE_LIQUID_EXTEND_H

#include "grid/grid.h"

/* Linear extension of each component of u from the faces with valid = 1
 * into the others with phi_f < maxdist (phi_f: phi averaged onto the face
 * as tide_levelset_extrapolate_mac does; maxdist <= 0: no limit), [Asl04]
 * built from three constant extensions along the normals
 * (tide_levelset_extrapolate_mac):
 *   q_n  = n . grad u_a   at the valid faces (n = grad phi_f / |grad phi_f|,
 *          differences over valid faces, one-sided into the liquid:
 *          over two faces, (u_f - u_f-2) / 2, where both are valid, else
 *          over one -- the one-face difference passes a grid-scale zigzag
 *          of the surface faces on, and a drop at rest rang up);
 *   Q, Q_n, Phi_s = u_a, q_n and phi_f of the valid faces, each carried
 *          unchanged along the normals into the invalid faces;
 *   u_a = Q + min(phi_f - Phi_s, 3 dx) Q_n   on the invalid faces reached,
 * i.e. the value of the valid face the normal came from plus the normal
 * derivative times the distance travelled.  Exact for a velocity linear
 * along the normals; the constant extension (first order: the surface of a
 * capillary wave at 32 cells per wavelength moves at the speed of the face
 * up to a cell below it, -2.2% on the frequency) becomes -0.55%.
 * valid is updated as by tide_levelset_extrapolate_mac.  phi: cells, < 0 in
 * the liquid. */
int tide_liquid_extend_linear(tide_mac *u, const double *phi, double maxdist, tide_mac *valid);

#endif
