/*
 * surface_tension.h -- surface tension from a liquid level set
 * (tide.liquid.curvature, tide.liquid.surface_tension;
 * docs/liquids-physics.md).
 *
 * Units: sigma [N/m], rho [kg/m^3], dt [s], curvature [1/m], phi [m]
 * (negative in the liquid).  The curvature is kappa = div(grad phi /
 * |grad phi|), positive where the liquid is convex (a disk of radius R:
 * 1/R in 2D, a ball: 2/R in 3D).  The Young-Laplace condition is
 *     p_liquid - p_air = sigma kappa        on the surface,
 * i.e. p_air - p_liquid = sigma * div(n_in) with n_in the inward normal.
 *
 * References
 *   [Liu24] Liu et al., "Penetration-free solid-fluid interaction on shells
 *           and rods", 2024, Sec. 4.2.1, Eq. 8 (semi-implicit surface tension
 *           in a narrow band, after Zheng, Yong & Paul 2009).
 *   [KFL00] Kang, Fedkiw & Liu, "A boundary condition capturing method for
 *           multiphase incompressible flow", J. Sci. Comput. 15, 2000 (the
 *           ghost-fluid pressure jump sigma kappa).
 *   [GFCK02] Gibou, Fedkiw, Cheng & Kang, JCP 176, 2002 (ghost fluid with
 *           theta = phi_l / (phi_l - phi_a)).
 *   [CFK05] Cummins, Francois & Kothe, "Estimating curvature from volume
 *           fractions", Computers & Structures 83, 2005 (height functions).
 *   [Pop09] Popinet, "An accurate adaptive solver for surface-tension-
 *           driven interfacial flows", JCP 228, 2009 (height functions,
 *           consistent curvature for a balanced ghost/CSF force).
 *   [Bri15] Bridson, Fluid Simulation for Computer Graphics, 2nd ed., 2015,
 *           Sec. 5.4 and ch. 8 (surface tension through the free-surface
 *           pressure; time step limit).
 */
#ifndef TIDE_SURFACE_TENSION_H
#define TIDE_SURFACE_TENSION_H

#include "grid/grid.h"
#include "liquid/viscosity.h"

/* The boundary of the surface at the domain walls and periodic axes.
 * Beyond a (non-periodic) domain wall the level set is continued by the
 * static contact angle theta between the liquid's outward normal n and the
 * wall's inward normal e (n.e = cos theta; Sussman 2001; Afkhami &
 * Bussmann, "Height functions for applying contact angles to 2D VOF
 * simulations", IJNMF 57, 2008): the ghost cell beyond the wall gets
 *   phi_ghost = phi_edge - dx |grad_t phi| cot theta
 * (grad_t: the gradient along the wall; 90 degrees: the mirror image), and
 * a height function whose stencil crosses the wall the ghost line
 *   h_ghost = h_edge + o cot theta sqrt(1 + h_w^2)
 * (o = +1 where phi increases along the height's axis, h_w the slope along
 * the wall).  Without it (before session 4) phi was extended linearly and
 * the curvature next to a wall was 0. */
typedef struct tide_surface_walls {
  int periodic[3];      /* periodic axes (no wall) */
  double contact_angle; /* [rad] in (0, pi), measured through the liquid;
                         * 0 means pi/2 (90 degrees) */
} tide_surface_walls;

/* Curvature at the cell centres by fourth-order central differences
 * (five cells per axis; second order until session 22):
 *   kappa = (phi_xx (phi_y^2 + phi_z^2) + phi_yy (phi_x^2 + phi_z^2)
 *            + phi_zz (phi_x^2 + phi_y^2) - 2 phi_x phi_y phi_xy
 *            - 2 phi_x phi_z phi_xz - 2 phi_y phi_z phi_yz) / |grad phi|^3
 * (z terms absent in 2D), clamped to [-1/dx, 1/dx] (the largest curvature
 * a grid resolves); 0 where |grad phi| vanishes.  Periodic axes wrap;
 * beyond a wall the contact-angle mirror images (tide_surface_walls).
 * kappa: ncells doubles. */
int tide_liquid_curvature(const tide_grid *g, const double *phi, const int per[3], double *kappa);
/* the same with the contact angle at the walls (w NULL: 90 degrees) */
int tide_liquid_curvature_walls(const tide_grid *g, const double *phi, const tide_surface_walls *w,
                                double *kappa);

/* Curvature at the interface crossings of the grid lines by height
 * functions of the level set [CFK05, Pop09].  For each face whose two cells
 * have phi of opposite signs, the crossing is the root of the cubic through
 * phi at the four cells along the face normal (lo - 1 .. lo + 2); the
 * heights along axis d are the crossings of the axis-d grid lines, and
 *   kappa_d = -o div(grad h / sqrt(1 + |grad h|^2))
 * by central differences over the 3 (2D) / 3 x 3 (3D) neighbouring lines
 * (the crossing of each line nearest to the centre one, same orientation
 * o = sign n_d, within 3.5 cells).  At a face of axis a, kappa is the mean
 * of the kappa_d of the axes with |n_d| > 1/2 weighted by |n_d| - 1/2
 * (n = grad phi / |grad phi| by central differences interpolated to the
 * crossing): kappa_a on the face's own line, kappa_d (d != a) interpolated
 * between the axis-d lines through the two cells beside the face.  Where no
 * height function exists (a feature thinner than the stencil) the cell
 * curvatures interpolated to the crossing.  Clamped to +-1/dx.
 * Why: the curvature depends only on the interface position, not on phi
 * away from it.  The cell curvature of tide_liquid_curvature reads phi one
 * cell on each side, and an advected phi has a kink in |grad phi| at the
 * surface (the liquid is strained, the extrapolated air velocity is
 * constant along the normals); the axis-wise central differences cancel
 * that kink for an axis-aligned surface but not for a diagonal one
 * (docs/liquids-physics.md, the drop test).
 * kf[a]: f64 face arrays of axis a (tide_grid_face_dims); 0 on the faces
 * without a crossing.  Periodic axes wrap (face n duplicates face 0). */
int tide_liquid_curvature_faces(const tide_grid *g, const double *phi, const int per[3],
                                double *kf[3]);
int tide_liquid_curvature_faces_walls(const tide_grid *g, const double *phi,
                                      const tide_surface_walls *w, double *kf[3]);

/* The curvature of the level set through each cell as if phi were the
 * signed distance of its zero level set, from the surface's height
 * functions [Pop09] extended along the normals (closest point): each cell
 * beside a crossing (tide_liquid_curvature_faces) takes the mean of its
 * faces' crossing curvatures, mean kappa and Gaussian K (3D, from the same
 * quadric), weighted by |n_a| + 1e-3; each other cell with |phi| < band the
 * values at its closest surface point p = x - phi grad phi / |grad phi|^2
 * (one Newton step onto phi = 0) interpolated multilinearly from the cells
 * beside crossings around p (weights renormalized; the mean of those in the
 * 3^dim block around p if none).  A cell at signed distance d = phi /
 * |grad phi| then gets the curvature of the parallel surface,
 *   kappa(d) = sum_i k_i / (1 + d k_i),  k_1,2 = kappa/2 +- sqrt(kappa^2/4 - K)
 * (2D: kappa / (1 + d kappa); each denominator at least |k_i| dx), clamped to
 * +-1/dx; for an exact distance it equals tide_liquid_curvature.  The
 * remaining cells (|phi| >= band, or no surface near) get
 * tide_liquid_curvature.  Why: the result depends only on the zero level
 * set, not on the kinks an advected phi has at the surface
 * (tide_liquid_curvature_faces); it is the kappa(phi) Liu's band needs
 * (tide_liquid_surface_tension_liu).  band [m] (<= 0: 3 dx); kc: ncells
 * doubles [1/m]. */
int tide_liquid_curvature_heights(const tide_grid *g, const double *phi, const int per[3],
                                  double band, double *kc);
int tide_liquid_curvature_heights_walls(const tide_grid *g, const double *phi,
                                        const tide_surface_walls *w, double band, double *kc);

/* The level set continued into solids inside the grid (voxel or cut-cell
 * walls) by the contact angle w->contact_angle: each cell with
 * -band < solid_phi < 0 (solid_phi: the solid's signed distance, < 0 in
 * the solid) at depth d = -solid_phi takes the value at its mirror point
 * x_m = x + 2 d n_s across the solid surface (n_s = grad solid_phi /
 * |grad solid_phi|, out of the solid), interpolated multilinearly from the
 * fluid cells (solid_phi >= 0) around it -- each fluid corner's phi carried
 * to x_m along its gradient, phi_j + grad phi_j . (x_m - x_j), so that a
 * linear phi is continued exactly whichever corners are fluid -- minus the
 * contact-angle term
 *   phi(x) = phi(x_m) - 2 d |grad_t phi(x_m)| cot theta
 * (grad_t phi: the part of grad phi along the solid surface, by
 * differences over fluid cells) -- the domain walls' rule for a curved
 * wall.  Other cells (and those without fluid around the mirror point)
 * keep phi.  band [m] (<= 0: 4 dx); out: ncells doubles (not phi). */
int tide_liquid_contact_extend(const tide_grid *g, const double *phi, const double *solid_phi,
                               const tide_surface_walls *w, double band, double *out);

/* Ghost-fluid surface tension [KFL00, GFCK02]: the free-surface pressure
 * condition p = 0 at the interface becomes p = sigma kappa_G (air at
 * pressure 0).  In the ghost-fluid projection (tide_liquid_project with a
 * level set, or mac_poisson.h with theta) a liquid cell l next to an air
 * cell a uses the ghost pressure p_g = p_l + (p_G - p_l) / theta across
 * their face, theta = phi_l / (phi_l - phi_a) clamped below by theta_min
 * (1 when phi does not change sign between them; computed here by
 * tide_mac_poisson_theta, the function the projection uses).  The Dirichlet value p_G
 * enters the projected face velocity only through the term
 * -dt/(rho dx) p_G / theta (air on the high side; + on the low side), and
 * through the same term the divergence in the right-hand side, so it is
 * applied here as an impulse on the liquid-air faces of u* before an
 * ordinary projection with p_G = 0; the projected velocity and the
 * pressure in the liquid are exactly those of the projection with the
 * jump.  The projection must use the same theta (phi, theta_min) and
 * labels.
 *   kappa_G = the height-function curvature at the crossing
 *             (tide_liquid_curvature_faces; default), below theta = 1/4
 *             blended linearly in theta towards the mean of the crossing
 *             values of the liquid cell's faces (all its faces agree as
 *             theta -> 0, where the projection amplifies a difference by
 *             1/theta), or with
 *             cell_curvature = 1 or a given kappa: kappa_l + theta (kappa_a
 *             - kappa_l), linear in the cell curvatures (kappa NULL:
 *             computed by tide_liquid_curvature, each cell within 3 dx of
 *             the surface then moved to it along the normal, sum_i k_i /
 *             (1 - d k_i) at its distance d = phi / |grad phi|, so both
 *             cells estimate the same surface curvature: a drop at rest
 *             stays at rest to ~1e-4 sqrt(sigma / (rho D)))
 *   u_f -= +-dt sigma kappa_G / (rho dx theta)
 * on open faces (not on the domain walls, not next to SOLID cells) between
 * a LIQUID and an AIR cell (labels NULL: liquid where phi < 0), including
 * the wrap faces of periodic axes (face 0 written, face n_a a copy; theta
 * there by the same formula).  cell_surface = 1: for a projection with
 * p = 0 at the air cell centres, theta = 1 on every face.
 * pjump (f64 cells, may be NULL) receives the mean of sigma kappa_G [Pa]
 * over the liquid-air faces of each liquid cell (for plots), 0 elsewhere.  Explicit in time:
 * stable for dt <= sqrt(rho dx^3 / (2 pi sigma)) [Bri15] (times 1/sqrt(2)
 * in 3D is safe). */
typedef struct tide_tension_opts {
  double sigma;             /* [N/m] >= 0 */
  double rho;               /* [kg/m^3] > 0 */
  double dt;                /* [s] > 0 */
  double theta_min;         /* (0, 1], 0.01 as the projection */
  const tide_array *labels; /* u8 cells or NULL */
  const tide_array *kappa;  /* f64 cells or NULL */
  int periodic[3];          /* for the curvature stencil only */
  int cell_curvature;       /* 0: kappa_G by height functions at the crossing
                             * (tide_liquid_curvature_faces); 1: from the cell
                             * curvatures, kappa_l + theta (kappa_a - kappa_l) */
  int cell_surface;         /* 1: for a projection with p = 0 at the air cell
                             * centres (labels only, e.g. tide_periodic_project):
                             * theta = 1 on every face */
  double contact_angle;     /* [rad] at the walls (tide_surface_walls); 0: pi/2 */
  const tide_array *solid_phi; /* f64 cells or NULL: the curvature reads phi
                                * continued into these solids by the contact
                                * angle (tide_liquid_contact_extend) */
  const tide_array *kappa_phi; /* f64 cells or NULL: the level set the curvature
                                * is read from instead of phi (labels and theta
                                * still from phi), e.g. phi moved a fraction of
                                * the step ahead with the current velocity: the
                                * jump then sees the surface where it will be,
                                * which damps the capillary waves by a rate
                                * ~ beta omega^2 dt / 2 (tide.drop's
                                * tension_ahead; docs/liquids-physics.md) */
} tide_tension_opts;

tide_tension_opts tide_tension_opts_default(void);
int tide_liquid_surface_tension_jump(tide_mac *u, const tide_array *phi, const tide_tension_opts *o,
                                     tide_array *pjump);

/* Semi-implicit narrow-band surface tension [Liu24, Eq. 8]:
 *   (I - dt^2 sigma/rho delta(phi) lap) u+ = u - dt sigma/rho delta(phi) kappa n
 * per velocity component on the faces with |phi_f| < band (phi_f: mean of
 * the two cells beside the face), with the smoothed delta
 *   delta(phi) = (1 + cos(pi phi / band)) / (2 band)   (0 outside).
 * Gravity (dt g in Eq. 8) is added separately, before.  Liu et al. use
 * band = 3 dx.
 * Force, balanced [Francois et al., JCP 213, 2006]: delta(phi) n =
 * grad H(phi) with the smoothed Heaviside H whose derivative is delta,
 * taken as the same face difference as the projection's pressure gradient,
 *   f_f = -dt sigma/rho kappa_f (H_hi - H_lo) / dx,
 * so a uniform kappa is an exact discrete gradient the projection removes
 * (a drop at rest stays at rest).  For the ghost-fluid projection
 * (cell_surface = 0; tide_liquid_project with phi: p = 0 at the surface,
 * theta = phi_l / (phi_l - phi_a) clamped below by theta_min) the
 * liquid-air faces take the difference from the liquid cell to the surface,
 * (H(0) - H(phi_l)) / (theta dx) (air on the high side); for a projection
 * with p = 0 at the air cell centres (cell_surface = 1, e.g.
 * tide_periodic_project) the plain difference.
 * Curvature kappa_f: by default the curvature of the level set of the
 * surface's signed distance through the face, the kappa(phi) of Eq. 8 for a
 * signed-distance phi, from the height functions of the surface: on a
 * crossing face sum_i k_i / (1 + d k_i) of the crossing's principal
 * curvatures (tide_liquid_curvature_faces and the Gaussian curvature) at
 * d = the mean of phi / |grad phi| of the two cells, elsewhere the mean of
 * the two cells' tide_liquid_curvature_heights.  Why not kappa at the
 * surface, extended: the force sits up to `band` inside the liquid, where a
 * pressure jump moves the surface less, by (1 - d/R)^n in 2D (n the mode),
 * -10% on the frequency of a 2D drop at 16 cells radius; the level sets'
 * curvature (1 + 2d/R for the n = 2 part) compensates that for n = 2.  Why
 * not the cell curvature of phi: the kink of an advected phi at the surface
 * (tide_liquid_curvature_faces) made the drop frequency depend on the
 * orientation (+0.6% / +3.8%).  With cell_curvature = 1 or a given kappa:
 * the mean of the two cells' curvatures.
 * Each row is divided by delta_f, which makes the system SPD:
 *   u_f / delta_f + c sum_nb (u_f - u_nb) = (u_f + f_f) / delta_f,
 *   c = dt^2 sigma / (rho dx^2),
 * with the faces outside the band (delta = 0: u+ = u + f_f there) and the
 * wall / solid faces as known values and zero normal derivative across the
 * domain boundary; MIC(0)-PCG per axis.  The implicit part damps capillary
 * waves at the grid scale, relaxing the explicit time-step limit.
 * With a free surface (no air velocity solved) the air half of the band is
 * discarded by the projection and extrapolation, which halves the net
 * force; one_sided != 0 puts the whole delta on the liquid side: the
 * same raised cosine of half-width band/2 centred at phi = -band/2 (zero
 * outside [-band, 0]; same integral; H(0) = 1), so with local_width = 0
 * liquid less than band/2 deep gets less than half of the jump
 * (docs/couple.md, "Why sigma 600 drains"); local_width = 1 narrows the
 * band there instead (docs/liquids-physics.md, "Thin liquid"). */
typedef struct tide_tension_liu_opts {
  double sigma, rho, dt;
  double band;              /* epsilon [m] (<= 0: 3 dx) */
  const tide_array *labels; /* u8 cells or NULL: SOLID faces keep their value */
  const tide_array *kappa;  /* f64 cells or NULL (computed) */
  int periodic[3];
  int one_sided;      /* 1: the band on the liquid side only */
  int local_width;    /* 1 (default): the band of each liquid cell narrowed
                       * to the liquid's local depth, min(band, the largest
                       * -phi within band of it), so a sheet or thread
                       * thinner than the band gets its whole jump sigma
                       * kappa; bit for bit the fixed band where the liquid
                       * is at least band deep within band; 0: the fixed
                       * band */
  int cell_curvature; /* 0: the level-set curvature from the surface's
                       * height functions (see above); 1: the cell
                       * curvatures (tide_liquid_curvature) */
  int cell_surface;   /* 1: balanced against a projection with p = 0 at
                       * the air cell centres (labels only, periodic.h);
                       * 0: against the ghost-fluid projection
                       * (tide_liquid_project with phi) */
  double theta_min;   /* (0, 1], 0.01 as the projection */
  double tol;         /* 1e-8 */
  int maxit;
  tide_viscosity_solver *solver; /* workspace (viscosity.h) or NULL */
  double contact_angle;          /* as tide_tension_opts */
  const tide_array *solid_phi;   /* as tide_tension_opts */
} tide_tension_liu_opts;

tide_tension_liu_opts tide_tension_liu_opts_default(void);
int tide_liquid_surface_tension_liu(tide_mac *u, const tide_array *phi,
                                    const tide_tension_liu_opts *o, tide_viscosity_stats *stats);

/* Cell labels from a liquid level set: TIDE_CELL_LIQUID where phi < 0,
 * TIDE_CELL_AIR elsewhere, and TIDE_CELL_SOLID where the u8 cell array
 * solid (may be NULL) is TIDE_CELL_SOLID (solid wins).  out: u8 cells. */
int tide_liquid_label_phi(const tide_grid *g, const tide_array *phi, const tide_array *solid,
                          tide_array *out);

/* The explicit capillary time-step bound sqrt(rho dx^3 / (2 pi sigma))
 * [Bri15 ch. 8; Brackbill et al. 1992] (inf for sigma = 0). */
double tide_liquid_capillary_dt(double dx, double sigma, double rho);

#endif
