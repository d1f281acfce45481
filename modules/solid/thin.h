/*
 * thin.h -- thin solids of tide.solid: discrete shells on triangle surfaces
 * in 3D and discrete rods on segment networks (2D or 3D), the solids of Liu
 * et al. 2024 (Sec. 4.1) and Irving's cloth (thesis 2.8).
 *
 * Energies (each with its gradient and a PSD-projected Hessian; element
 * kernels are pure functions over fixed-size arrays, node a coordinate i at
 * x[a*d + i], Hessians row-major):
 *
 *   membrane   per triangle (Irving 2.8): F = Ds Dm^-1 is 3x2 (Ds the two
 *              current edge vectors, Dm the rest edges in a 2D frame of the
 *              rest triangle).  With the Gram-Schmidt basis Q = [q1 q2] of
 *              the deformed plane (q1 along the first column of F) and the
 *              normal n = q1 x q2, F = Q F^ with F^ = Q^T F 2x2 upper
 *              triangular, det F^ > 0.  The energy is
 *                  E = h A Psi(F^)
 *              with Psi the plane-stress 2D form of a tide_material model
 *              (material.h: exact condensation of the 3D model), h the
 *              thickness [m], A the rest area [m^2].  P = Q P^ and
 *                  dP/dF = (Q x Q) dP^/dF^ (Q x Q)^T + (n n^T) x S,
 *              S = F^-1 P^ the second Piola-Kirchhoff stress: the in-plane
 *              block is the 2D model's, the out-of-plane block (a
 *              perturbation n c^T changes C = F^T F by c c^T only at second
 *              order) is S; projection clamps both blocks.  Isotropic models
 *              only (not "linear", which is not rotation invariant).
 *   hinge      per interior edge (Grinspun et al. 2003, "Discrete shells"):
 *              E = k (theta - theta0)^2, theta the signed dihedral angle of
 *              the two triangles, theta0 its rest value (a crease),
 *              k = (D/2) |e0|^2 / (A1 + A2) with D = E h^3 / (12 (1 - nu^2))
 *              the plate bending stiffness [N m], |e0| the rest edge length
 *              and A1, A2 the rest areas of the two triangles.  On the
 *              cloth generator's right-triangle grid this gives exactly
 *              D/2 kappa^2 per unit area for cylindrical bending along either
 *              grid axis (other meshes: docs/shells.md).  Gradient of theta
 *              as Bridson et al. 2003; its Hessian by differentiating those
 *              closed forms.  The 12x12 Hessian is projected by eigenvalue
 *              clamping.
 *   stretch    per rod segment: E = (EA / 2) L0 (l / L0 - 1)^2, EA the axial
 *              stiffness [N], L0 the rest length, l the current length.
 *   bend       per pair of consecutive rod segments meeting at a node
 *              (Bergou et al. 2008, without twist as Liu et al. use it):
 *              with a = x1 - x0, b = x2 - x1, the curvature binormal
 *              kb = 2 a x b / (|a||b| + a.b), |kb| = 2 tan(phi/2) (phi the
 *              turning angle); E = (EI / l0) (|kb| - kbar)^2 with l0 = |a0| +
 *              |b0| the rest lengths, kbar the rest value, EI the bending
 *              stiffness [N m^2].  For a circular arc of curvature c sampled
 *              at spacing s this is (EI/2) c^2 s.  In 2D kb is the signed
 *              scalar 2 (a x b) / (|a||b| + a.b) and the energy is smooth;
 *              in 3D |kb| is not differentiable at kb = 0, so a rod with
 *              kbar != 0 passing exactly through a straight configuration
 *              has no Hessian there (the kernel then uses kbar = 0's).
 *
 * A mesh carries its thin energies as "parts" (a shell: triangles + hinges;
 * a rod: segments + bends) with their own parameters, so one mesh may hold
 * tetrahedra, shells and rods together (tide_thin_merge): one Newton solve,
 * one Hessian with every part's blocks at their node offsets.
 */
#ifndef TIDE_SOLID_THIN_H
#define TIDE_SOLID_THIN_H

#include "solid/fem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- kernels */

/* Rest frame of a triangle X (3 nodes x 3): Dm^-1 (2x2, row-major) of the
 * edges X1 - X0, X2 - X0 in the orthonormal frame (t1 along X1 - X0) and
 * the area.  TIDE_EINVAL for a degenerate triangle. */
int tide_shell_rest(const double *X, double *Dminv, double *area);

/* Membrane energy of one triangle (x: 9), vol = h A; material with
 * plane_stress set.  Any output may be NULL; grad 9, hess 81. */
void tide_shell_membrane(const tide_material *m, const double *x, const double *Dminv,
                         double vol, int project, double *E, double *grad, double *hess);

/* Signed dihedral angle of the hinge x = (x0, x1, x2, x3) (12): edge x0 -> x1
 * shared by triangle (x0, x1, x2) and (x1, x0, x3) (consistently oriented),
 * theta = atan2((nA x nB) . e^, nA . nB) with nA = e x (x2 - x0),
 * nB = (x3 - x0) x e; 0 when flat, in (-pi, pi]. */
double tide_shell_dihedral(const double *x);

/* Hinge energy k (theta - theta0)^2 (difference wrapped into (-pi, pi]);
 * grad 12, hess 144. */
void tide_shell_hinge(const double *x, double theta0, double k, int project, double *E,
                      double *grad, double *hess);

/* Shape-operator bending of one triangle (the mesh-independent alternative
 * to the hinges; docs/shells.md).  Stencil x (18): the triangle's nodes
 * x0, x1, x2, then w0, w1, w2 with w_i the wing node across the edge
 * opposite x_i (any node when that edge has no neighbour).  theta_i is the
 * dihedral angle of the hinge (x_{i+1}, x_{i+2}, x_i, w_i) as
 * tide_shell_dihedral, dtheta_i = theta_i - theta0[i] (wrapped).  The
 * triangle's shape operator S (2x2 symmetric, in its rest plane) is the
 * constant curvature that produces the three angles on the rest patch:
 * dtheta = M s, s = (S11, S12, S22), column q of M the angles n_i . (g_i -
 * g_0) of the height field x^T S_q x / 2 interpolated linearly on the
 * triangle (gradient g_0) and its three neighbours unfolded into its plane
 * (g_i; n_i the outward unit normal of edge i), so S is exact for every
 * constant curvature on any mesh (the basic shell triangle of Onate &
 * Zarate 2000 fits S from the same angles with s = sum_i dtheta_i l_i /
 * (2 A) n_i n_i^T, which is this M^-1 on the sheet generator's "same"
 * grid but wrong for twist on the alternating one).  The energy is the
 * plate's (Kirchhoff),
 *     E = (D A / 2) ((1 - nu) S:S + nu (tr S)^2) = 1/2 dtheta^T (D K) dtheta,
 * K = A M^-T C M^-1 (3x3, row-major, [1]) from tide_shell_bend_triangle_rest;
 * rows of K that are zero mark absent edges.  grad 18, hess 324 (the
 * 18x18 block projected by eigenvalue clamping). */
void tide_shell_bend_triangle(const double *x, const double *theta0, const double *K, int project,
                              double *E, double *grad, double *hess);

/* K of a rest stencil X (6 nodes x 3, as tide_shell_bend_triangle) for
 * Poisson ratio nu.  Edges not in `present` (bit i: the edge opposite node
 * i has a neighbour, X's wing i is used) are free boundaries: their row of
 * the fit is the free edge's condition of no bending moment,
 * n^T S n + nu t^T S t = 0, and their rows and columns of K are 0.
 * TIDE_EINVAL for a degenerate triangle or stencil. */
int tide_shell_bend_triangle_rest(const double *X, int present, double nu, double *K);

/* Morley bending of one triangle (docs/shells.md): Morley's plate element
 * (a quadratic per triangle from its 3 node heights and the normal slopes
 * at its 3 edge midpoints) with each mid-edge slope shared by the two
 * triangles of the edge, the mean of the slopes of their two fitted
 * quadratics (tide_shell_bend_triangle's fits), so the slopes are one per
 * edge, as in Grinspun et al. 2006, eliminated locally.  A free edge's slope
 * belongs to its triangle alone and is condensed out (minimizing E).
 * Stencil x (36): x0, x1, x2, the wings w0, w1, w2 (w_i across the edge
 * opposite x_i), then per neighbour N_i = (x_{i+2}, x_{i+1}, w_i) its wing
 * across (x_{i+1}, w_i) (slot 6 + 2i) and across (w_i, x_{i+2}) (7 + 2i).
 * Nine hinges: the triangle's three, then N_i's edge (x_{i+1}, w_i) (3 + 2i)
 * and (w_i, x_{i+2}) (4 + 2i), each oriented with its own triangle first as
 * in tide_shell_bend_triangle.  E = 1/2 dtheta^T (D K) dtheta with K (9x9,
 * row-major, [1]) from tide_shell_bend_morley_rest; zero rows of K mark
 * absent hinges.  grad 36, hess 1296; projected: the Gauss-Newton part
 * G^T (D K) G (G the hinge-angle gradients; PSD as K is), 15x cheaper than
 * eigenvalue clamping of the 36x36 block at the same Newton iterations
 * (docs/shells.md). */
void tide_shell_bend_morley(const double *x, const double *theta0, const double *K, int project,
                            double *E, double *grad, double *hess);

/* K (81) of a rest Morley stencil X (12 nodes x 3) for Poisson ratio nu;
 * bit s of present (s = 3..11): stencil slot s is a node (else that edge
 * is free and the slot unused).  TIDE_EINVAL for a degenerate stencil. */
int tide_shell_bend_morley_rest(const double *X, int present, double nu, double *K);

/* Rod segment stretching (EA/2) L0 (l/L0 - 1)^2 in d = 2 or 3 dimensions
 * (x: 2*d); grad 2d, hess (2d)^2. */
void tide_rod_stretch(int d, const double *x, double L0, double EA, int project, double *E,
                      double *grad, double *hess);

/* Curvature at the middle node of x = (x0, x1, x2) (3*d): |kb| in 3D, the
 * signed kb in 2D (positive turning counter-clockwise). */
double tide_rod_curvature(int d, const double *x);

/* Rod bending k (kb - kbar)^2 with k = EI / l0; grad 3d, hess (3d)^2. */
void tide_rod_bend(int d, const double *x, double kbar, double k, int project, double *E,
                   double *grad, double *hess);

/* --------------------------------------------------------------- parts */

enum { TIDE_THIN_SHELL = 1, TIDE_THIN_ROD = 2 };

/* Parameters of a thin part (SI units). */
typedef struct tide_thin_params {
  int kind;          /* TIDE_THIN_SHELL or TIDE_THIN_ROD */
  tide_material mat; /* shell membrane model (plane stress is set on attach) */
  double thickness;  /* shell thickness h [m] (membrane energy h A Psi) */
  double bending;    /* shell: plate stiffness D [N m]; rod: EI [N m^2] */
  double stretch;    /* rod: EA [N] */
  /* rod (3D): geometric torsion stiffness GJ [N m^2], 0 = none (Liu et al.'s
   * rods have none): per segment whose two neighbouring bends define
   * osculating planes, E = GJ / (2 |e0|) (phi - phi0)^2 with phi the
   * dihedral angle between the planes (x_{i-1}, x_i, x_{i+1}) and
   * (x_i, x_{i+1}, x_{i+2}) (the hinge kernel), a discrete (GJ/2) tau^2 for
   * the curve's torsion tau; undefined on straight pieces, which get none */
  double twist;
  double density;    /* mass per area [kg/m^2] (shell), per length [kg/m] (rod) */
  /* Rayleigh damping inside the incremental potential (Liu et al. 4.1:
   * the semi-implicit damping of Gast et al. 2015): damping forces
   * beta H(xn) v, H the projected Hessian of this part's elastic energy at
   * the step's start, stencil by stencil (each energy damped with its own
   * stiffness); in the incremental potential, which carries dt^2 E, the
   * term dt^2 * dt * beta/2 v^T H v = (beta dt / 2) dx^T H dx [s] */
  double damping;
  /* shells: plastic bending (Irving 2.8, Fig. 2.6: the plastic flow
   * applied to the rest angles): after each step, a hinge whose angle
   * differs from its rest angle by more than bend_yield [rad] has its rest
   * angle moved toward the angle until the difference is bend_yield;
   * 0: elastic */
  double bend_yield;
  /* shells: the bending model, TIDE_BEND_HINGE (Grinspun et al. 2003, on
   * the hinges) or TIDE_BEND_TRIANGLE (the shape operator of each triangle
   * from its three hinge angles, tide_shell_bend_triangle) or
   * TIDE_BEND_MORLEY (Morley's element on shared mid-edge slopes,
   * tide_shell_bend_morley); all use the hinges' rest angles (creases,
   * plastic flow) */
  int bend_model;
  double poisson; /* shells: nu of the plate bending energy (TRIANGLE, MORLEY) */
} tide_thin_params;

enum { TIDE_BEND_HINGE = 0, TIDE_BEND_TRIANGLE = 1, TIDE_BEND_MORLEY = 2 };

typedef struct tide_thin_part {
  tide_thin_params p;
  int64_t n1, n2;   /* shell: triangles, hinges; rod: segments, bends */
  tide_array *s1;   /* shell (n1, 3), rod (n1, 2) i32 node indices of the mesh */
  tide_array *s2;   /* shell hinges (n2, 4), rod bends (n2, 3) i32 */
  tide_array *r1;   /* shell: (n1, 2, 2) Dm^-1; rod: (n1) rest lengths [m] */
  tide_array *a1;   /* shell: (n1) rest areas [m^2]; rod: unused (NULL) */
  tide_array *r2;   /* rest dihedral angles [rad] / rest curvatures kbar [1] (n2) */
  tide_array *w2;   /* hinge |e0|^2 / (A1 + A2) [1] / rod l0 [m] (n2) */
  int64_t n3;       /* rod torsion stencils (twist > 0); shell bending triangles
                       (TIDE_BEND_TRIANGLE / MORLEY: one per triangle, else 0) */
  tide_array *s3;   /* rod (n3, 4) i32: segment (x_i, x_{i+1}), then x_{i-1}, x_{i+2};
                       shell (n3, 6) i32: triangle, then the wings across its edges
                       (MORLEY (n3, 12): then the neighbours' wings) */
  tide_array *r3;   /* rod (n3) rest dihedral angles [rad]; shell unused (NULL) */
  tide_array *w3;   /* rod (n3) rest segment lengths [m]; shell (n3, 3, 3) K per unit D
                       (MORLEY (n3, 9, 9)) */
  tide_array *h3;   /* shell (n3, 3) i32: the hinge of each edge (rest angles), -1 none
                       (MORLEY (n3, 9): the stencil's nine hinges) */
  int64_t nodes0, nodes1; /* node range [nodes0, nodes1) the part was built on */
} tide_thin_part;

/* stencil sets of a part: 1 triangles / segments, 2 hinges / bends, 3 rod
 * torsion / shell bending triangles; tide_thin_set returns the count of set w, its nodes per stencil
 * and the stencils (count x nodes, 0-based mesh nodes) */
#define TIDE_THIN_SETS 3
int64_t tide_thin_set(const tide_thin_part *p, int w, int *nodes, const int32_t **stencils);

typedef struct tide_thin {
  int nparts;
  tide_thin_part *parts;
  double *hn;      /* damping: projected Hessian values at the step's start (thin nnz) */
  int *hi, *hj;    /* ... and their (unused) indices */
  int64_t hn_size;
  double *sbuf;    /* per-stencil scratch (energies, gradients) */
  int64_t sbuf_size;
} tide_thin;

void tide_thin_free(tide_thin *t);
size_t tide_thin_bytes(const tide_thin *t);

/* Build a part of mesh m from stencils s1 (n1 x 3 triangles or n1 x 2
 * segments, 0-based, copied) at the mesh's rest positions; hinges / bends
 * are found here: hinges are the interior edges shared by exactly two
 * triangles (an edge of three or more triangles is non-manifold and gets no
 * hinge; orientation of the second triangle is taken as it is); bends are
 * consecutive segment pairs at every node: at a node of degree 2 the two
 * segments, at a junction the segments are paired greedily by the
 * straightest continuation (most opposite rest directions), each segment
 * once; a `bends` list (n2 x 3, may be NULL) overrides that. */
int tide_thin_part_new(const tide_tetmesh *m, const tide_thin_params *p, int64_t n1,
                       const int32_t *s1, int64_t nbends, const int32_t *bends,
                       tide_thin_part *out);
void tide_thin_part_clear(tide_thin_part *pt);

/* Attach thin material to a surface (shell) or segment (rod) mesh: one part
 * over all its elements, lumped masses density * A / 3 (density * L / 2)
 * per node, the usual fem state (pins, targets, forces, gravity).  A second
 * call replaces the parameters (keeps pins, targets, forces). */
int tide_thin_attach(tide_tetmesh *m, const tide_thin_params *p);

/* Number of Hessian triplets of all parts: 81 n1 + 144 n2 + 324 n3 (shell),
 * 4 d^2 n1 + 9 d^2 n2 + 144 n3 (rod). */
int64_t tide_thin_nnz(const tide_tetmesh *m);

/* Elastic energy of the thin parts at x [J]; deterministic. */
int tide_thin_energy(const tide_tetmesh *m, const double *x, double *E);
/* Add scale * dE/dx to g (nv*d); per-node gather in a fixed order. */
int tide_thin_gradient(const tide_tetmesh *m, const double *x, double scale, double *g);
/* Hessian blocks scaled by `scale` into tb at tb->start (tide_thin_nnz
 * entries, fixed order); flags TIDE_FEM_PROJECT / TIDE_FEM_PINNED as fem.h. */
int tide_thin_hessian(const tide_tetmesh *m, const double *x, double scale, int flags,
                      tide_tripletbuf *tb);

/* The Rayleigh damping of the parts with damping > 0 (see tide_thin_params):
 * store H(xn) (call at the start of a step), then its value
 * sum_parts (beta dt / 2) dx^T H dx, gradient and Hessian beta dt H
 * at dx = x - xn, added to E / g / written into tb at tb->start (same layout
 * as tide_thin_hessian, added to the values there; rows and columns of
 * pinned nodes are left alone). */
int tide_thin_damping_prepare(tide_tetmesh *m, const double *xn);
int tide_thin_has_damping(const tide_tetmesh *m);
int tide_thin_damping(const tide_tetmesh *m, const double *x, const double *xn, double dt,
                      double *E, double *g, tide_tripletbuf *tb);

/* Plastic bending flow of every shell part with bend_yield > 0 at x (see
 * tide_thin_params); returns the number of hinges that yielded. */
int64_t tide_thin_plastic_flow(tide_tetmesh *m, const double *x);

/* Install thin parts restored from a checkpoint on a mesh whose material
 * state (m->fem, tide_fem_alloc) is already set: checks every part's
 * kind, array shapes and node indices against m, then takes ownership of
 * the parts' arrays (the caller's structs are cleared); on failure nothing
 * is installed and the parts are left to the caller. */
int tide_thin_install(tide_tetmesh *m, tide_thin_part *parts, int n);

/* One mesh holding the nodes of several meshes in order (node offsets =
 * running sums of nv): the volume elements of the volume meshes (all of one
 * dimension and, when they have materials, of the same material), the thin
 * parts of the shells and rods (each keeps its parameters), masses, pins,
 * targets, forces, positions and velocities copied.  The result's primary
 * elements are the volume elements if there are any, else the triangles of
 * the first shell, else the segments of the first rod; its boundary holds
 * the volume boundary and every shell triangle. */
int tide_thin_merge(tide_tetmesh *const *ms, int n, tide_tetmesh **out);

#ifdef __cplusplus
}
#endif
#endif
