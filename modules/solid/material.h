/*
 * material.h -- constitutive models of deformable solids (tide.solid), one
 * API for finite elements and, later, MPM particles: the energy density
 * Psi(F), the first Piola-Kirchhoff stress P(F) = dPsi/dF and its derivative
 * dP/dF, for a deformation gradient F of size d x d (d = 3, or d = 2: plane
 * strain, or plane stress when the material's plane_stress flag is set).
 *
 * Plane stress (2D, plane_stress != 0) condenses the 3D model exactly: the
 * out-of-plane stretch s3 >= 0 minimizes psi3(s1, s2, s3) (P33 = 0, solved
 * per evaluation by a safeguarded Newton iteration; s3 = 0 when the
 * in-plane state is so inverted that P33 > 0 there), psi(s1, s2) =
 * psi3(s1, s2, s3*), p_i = dpsi3/ds_i at s3* (i = 1, 2), h = the Schur
 * complement h3_ij - h3_i3 h3_j3 / h3_33, and the pair terms A, B of (1, 2)
 * are those of the 3D model at s3*.  The linear model uses the exact
 * equivalent lambda* = 2 lambda mu / (lambda + 2 mu).  2D quantities are per
 * unit thickness in both cases.
 *
 * Isotropic models are written in the diagonal frame of Irving (thesis
 * 2.5-2.6): F = U diag(s) V^T with the inversion-aware SVD of small.h,
 * Psi(F) = psi(s), P = U diag(dpsi/ds) V^T.  dP/dF then decomposes (Teran,
 * Sifakis, Irving & Fedkiw 2005) into the d x d Hessian of psi in s and one
 * 2 x 2 block per pair i < j acting on (dF^_ij, dF^_ji),
 *     [ (A+B)/2  (A-B)/2 ; (A-B)/2  (A+B)/2 ],
 *     A = (p_i - p_j)/(s_i - s_j),  B = (p_i + p_j)/(s_i + s_j),
 * whose eigenvalues are A and B.  Projection to positive semidefinite
 * ("project") clamps A, B at 0 and the s-Hessian's eigenvalues at 0, so
 * dP/dF, and every element Hessian built from it, is PSD (Irving 2.14,
 * Teran et al. 2005).
 *
 * Units: Lame parameters, stiffnesses and Psi in Pa (J/m^3); damping
 * coefficients in Pa s.  Matrices are row-major: F[i*d + j] = F_ij,
 * dPdF[(i*d + j)*d*d + k*d + l] = dP_ij / dF_kl.
 */
#ifndef TIDE_SOLID_MATERIAL_H
#define TIDE_SOLID_MATERIAL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  /* Small-strain linear elasticity (Zarifi Eq. 3.3, 3.8, 3.12):
   *   eps = (F + F^T)/2 - I, Psi = mu eps:eps + lambda/2 tr(eps)^2,
   *   P = 2 mu eps + lambda tr(eps) I.  Not rotation invariant: the
   *   "pure linear" model of Zarifi Fig. 3.4. */
  TIDE_MODEL_LINEAR = 0,
  /* Rotated (corotational) linear, Irving 2.6 / Fig. 2.3c:
   *   P^ = 2 mu (F^ - I) + lambda tr(F^ - I) I,
   *   psi = mu |s - 1|^2 + lambda/2 (sum(s - 1))^2.
   * Equal to the linear model evaluated on R^T F with R = U V^T, i.e. the
   * energy of Zarifi's corotational model (3.52) with the rotation taken at
   * the current state. */
  TIDE_MODEL_ROTATED_LINEAR,
  /* Compressible neo-Hookean, Psi = mu/2 (|s|^2 - d) - mu ln J
   * + lambda/2 ln(J)^2, J = prod(s), with the J-dependent part replaced by
   * its second-order Taylor expansion below J = gamma (0 < gamma < 1): the
   * stress is linearly extrapolated into the compressed, flat and inverted
   * regime (Irving 2.6, Fig. 2.3d, and the threshold surface det F^ = gamma
   * of 2.14, where the stress derivative along J stays positive). */
  TIDE_MODEL_NEOHOOKEAN,
  /* Biphasic spline model (Irving 2.6): per axis, the stress s(sigma) has
   * stiffness ds/dsigma = 2 mu at rest, k_lo below the compression threshold
   * sigma_lo and k_hi above the elongation threshold sigma_hi, varying
   * linearly in between (a C1 quadratic-spline stress, C2 cubic-spline
   * energy), plus the linear pressure lambda/2 (sum(s - 1))^2.  Convex in s
   * when k_lo, k_hi > 0: soft near rest, stiff under large deformation, and
   * linear (hence robust) into inversion. */
  TIDE_MODEL_SPLINE,
  /* Fixed corotated (Stomakhin, Howes, Schroeder & Teran 2012):
   *   psi = mu |s - 1|^2 + lambda/2 (J - 1)^2. */
  TIDE_MODEL_FIXED_COROTATED,
  /* St. Venant-Kirchhoff: with the Green strain E = (F^T F - I)/2,
   *   Psi = mu E:E + lambda/2 tr(E)^2,  S = 2 mu E + lambda tr(E) I, P = F S,
   * psi(s) = mu/4 sum (s_i^2 - 1)^2 + lambda/8 (sum (s_i^2 - 1))^2.  The
   * model of most structural benchmarks (large rotation, small strain);
   * under compression it softens (the stress of a uniaxially compressed bar
   * peaks at s = 1/sqrt(3) and falls to 0 at s = 0) and it does not resist
   * inversion (psi(s) = psi(-s)): keep strains moderate. */
  TIDE_MODEL_STVK,
  /* Compressible neo-Hookean with the (J - 1)^2 volume term,
   *   Psi = mu/2 (|s|^2 - d) - mu ln J + lambda/2 (J - 1)^2,
   * extrapolated below J = gamma like TIDE_MODEL_NEOHOOKEAN (its
   * lambda/2 ln(J)^2 form); both have the Lame parameters at rest. */
  TIDE_MODEL_NEOHOOKEAN_J,
  TIDE_MODEL_COUNT
} tide_model;

typedef struct tide_material {
  int model;           /* tide_model */
  double mu, lambda;   /* Lame parameters [Pa] */
  double gamma;        /* neo-Hookean extrapolation threshold on J (0 < gamma < 1) */
  double spline_lo;    /* spline compression threshold (0 < lo < 1) */
  double spline_hi;    /* spline elongation threshold (hi > 1) */
  double spline_klo;   /* spline stiffness below lo [Pa] */
  double spline_khi;   /* spline stiffness above hi [Pa] */
  double fiber_k;      /* anisotropic fibre stiffness [Pa]; 0: isotropic */
  double fiber[3];     /* rest fibre direction a (unit), used when no per-element one is given */
  double damp_alpha;   /* rotated-frame damping, volumetric [Pa s] */
  double damp_beta;    /* rotated-frame damping, shear [Pa s] */
  int plane_stress;    /* 2D only: plane stress instead of plane strain */
} tide_material;

/* Lame parameters from Young's modulus E [Pa] and Poisson's ratio nu
 * (Zarifi Eq. 3.9-3.10): lambda = E nu / ((1 + nu)(1 - 2 nu)),
 * mu = E / (2 (1 + nu)). */
void tide_lame(double E, double nu, double *lambda, double *mu);

/* A material with the given model and Lame parameters and the documented
 * defaults for the rest: gamma = 0.1, spline thresholds 0.7 / 1.4 with
 * stiffness 10 * 2 mu outside, no fibre, no damping. */
tide_material tide_material_default(int model, double mu, double lambda);

/* Name of a model ("linear", "rotated_linear", "neohookean", "spline",
 * "fixed_corotated", "stvk", "neohookean_j"); NULL if out of range. */
const char *tide_model_name(int model);

/* Check parameters (finite, mu >= 0, lambda >= 0 or mu + lambda > 0 etc.);
 * TIDE_EINVAL with a message naming the bad one. */
int tide_material_check(const tide_material *m);

/* The isotropic part in the diagonal frame (not for TIDE_MODEL_LINEAR):
 * psi(s), p = dpsi/ds (d) and h = d^2 psi / ds^2 (d x d), any output may be
 * NULL; and the pair terms A_ij, B_ij of the 2 x 2 blocks in pair order
 * (0,1), (0,2), (1,2), evaluated robustly near repeated singular values
 * and flat elements (A, B may be NULL). */
void tide_material_diag(const tide_material *m, int d, const double *s, double *psi, double *p,
                        double *h, double *A, double *B);

/* Psi(F), P(F) and dP/dF (any output may be NULL) of the whole model: the
 * isotropic part plus, when fiber_k > 0, the fibre term
 *     Psi_f = fiber_k/2 (|F a| - 1)^2,   P_f = fiber_k (1 - 1/|F a|) F a a^T
 * (a = `fiber` if non-NULL, else m->fiber; P_f = F S_f with S_f symmetric,
 * so angular momentum is preserved, Irving 2.6.1).
 * project != 0: dP/dF projected to positive semidefinite per block. */
void tide_material_eval(const tide_material *m, int d, const double *F, const double *fiber,
                        int project, double *psi, double *P, double *dPdF);

/* The Kirchhoff stress tau = P(F) F^T (d x d) of tide_material_eval's P,
 * without the SVD where a closed form exists (no fiber, not plane stress):
 * fixed corotated tau = 2 mu (F - R) F^T + lambda (J - 1) J I with R the
 * rotation of F (tide_polar_rotation_fast), neo-Hookean tau = mu F F^T +
 * f'(J) J I; other models through tide_material_eval.  Equal to P F^T to
 * round-off. */
void tide_material_kirchhoff(const tide_material *m, int d, const double *F, double *tau);

/* tide_material_kirchhoff of the 3D fixed-corotated model (no fiber) for
 * n <= 4 particles at once, Lame parameters mu[l], lambda[l], in 4 SIMD
 * lanes (tide_polar_rotation_fast4): tau[k][l] entry k of lane l's stress
 * (lanes l >= n: 0), bit-identical to tide_material_kirchhoff's. */
void tide_material_kirchhoff_fc4(int n, const double mu[4], const double lambda[4],
                                 const double *const F[4], double tau[9][4]);

/* Damping stress in the rotated frame of F (Irving 2.6.2):
 *     P^_d = beta (Fdot^ + Fdot^T^) + alpha tr(Fdot^) I,  Fdot^ = U^T Fdot V,
 * which with R = U V^T is P_d = beta (Fdot + R Fdot^T R) + alpha (R:Fdot) R,
 * the gradient of the dissipation potential
 *     D(Fdot) = beta/4 |R^T Fdot + Fdot^T R|^2 + alpha/2 (R:Fdot)^2 >= 0.
 * R is the rotation of F (tide_polar_rotation).  Outputs P_d (d x d) and the
 * constant PSD derivative dP_d/dFdot (may be NULL). */
void tide_material_damping(const tide_material *m, int d, const double *R, const double *Fdot,
                           double *Pd, double *dPd);

#ifdef __cplusplus
}
#endif
#endif
