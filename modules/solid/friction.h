/*
 * friction.h -- IPC's smoothed, lagged friction: a per-contact dissipative
 * potential whose gradient is Coulomb friction (Li, Ferguson, Schneider,
 * Langlois, Zorin, Panozzo, Jiang & Kaufman 2020, "Incremental Potential
 * Contact: Intersection- and Inversion-free Large Deformation Dynamics",
 * ACM TOG 39(4), section 5 "Friction").  Plain C, pure functions over
 * fixed-size arrays; shared by the solid integrator's collider contacts and
 * the IPC contacts between solids (one copy in the project).
 *
 * One contact k couples a stencil of n <= 4 nodes (d = 2 or 3): point-point
 * (n = 2), point-edge (3), edge-edge or point-triangle (4), or a node against
 * a rigid collider (n = 1, the collider's motion subtracted by the caller).
 * With the closest-point weights w_a (sum over the stencil of w_a x_a is the
 * relative position of the two closest points, e.g. point-triangle
 * w = (1, -b0, -b1, -b2)) and a tangent basis P (d x (d-1), orthonormal
 * columns perpendicular to the contact normal N), both frozen at the start
 * of the step ("lagged"), the tangential relative displacement over the step
 * is
 *     u = T^T du,   T = w (x) P  ((n d) x (d-1)),   du = x - x^t  (n d),
 * and with the lagged normal force magnitude lambda [N] (from the barrier
 * or the constraint multiplier at x^t) and friction coefficient mu,
 *     D(du) = mu lambda f0(|u|)                                     [J],
 *     grad D = mu lambda (f1(y)/y) T u,           y = |u|           [N],
 *     hess D = T H_u T^T,
 *     H_u = mu lambda ( f1'(y) uh uh^T + f1(y)/y (I - uh uh^T) ),  uh = u/y,
 * where the mollifier f1 smooths the sign of the slip over the displacement
 * eps_u = eps_v dt (eps_v [m/s] the slip speed below which friction acts as
 * static friction):
 *     f1(y) = 2y/eps_u - y^2/eps_u^2   (0 <= y < eps_u),   1  (y >= eps_u),
 *     f0(y) = y^2/eps_u - y^3/(3 eps_u^2) + eps_u/3  (y < eps_u),  y (y >= eps_u),
 * f0' = f1, f0 in C^2.  -grad D is the friction force: magnitude mu lambda
 * (Coulomb) once the slip exceeds eps_u, opposing it, and a stiff linear
 * spring of stiffness 2 mu lambda / eps_u near rest (static friction with a
 * creep speed below eps_v).  H_u has eigenvalues f1(y)/y > 0 (across u) and
 * f1'(y) = 2(1 - y/eps_u)/eps_u >= 0 (along u, 0 when sliding), so the
 * Hessian is exact and positive semidefinite without projection; at y = 0
 * it is 2 mu lambda/eps_u T T^T.
 *
 * In an incremental potential in the units of the solid integrator
 * (1/2 |x - xhat|^2_M + dt^2 Psi, kg m^2) the friction term is dt^2 D.
 *
 * Arrays are row-major: T[(a*d + k)*(d-1) + j] = w_a P[k*(d-1) + j];
 * hess[i*(n d) + j].
 */
#ifndef TIDE_SOLID_FRICTION_H
#define TIDE_SOLID_FRICTION_H

#ifdef __cplusplus
extern "C" {
#endif

#define TIDE_FRICTION_MAXN 4   /* nodes per contact stencil */
#define TIDE_FRICTION_MAXND 12 /* n d */

/* The mollifier and its derivatives, eps = eps_u > 0, y >= 0:
 * f0(y) (the potential, [m]), f1(y) = f0'(y) (in [0, 1]),
 * f1(y)/y (finite at 0: 2/eps) and f2(y) = f1'(y) (in [0, 2/eps]). */
double tide_friction_f0(double y, double eps);
double tide_friction_f1(double y, double eps);
double tide_friction_f1_over_y(double y, double eps);
double tide_friction_f2(double y, double eps);

/* An orthonormal tangent basis P (d x (d-1), row-major) of the unit normal
 * N: d = 2: P = (-N_y, N_x); d = 3: t1 = N x e / |N x e| with e the axis
 * least aligned with N, t2 = N x t1.  The potential does not depend on the
 * choice (it sees |P^T u| only). */
void tide_friction_tangent_basis(int d, const double *N, double *P);

/* One contact's lagged data. */
typedef struct tide_friction_contact {
  int n, d;                          /* stencil nodes (1..4), dimension (2, 3) */
  double T[TIDE_FRICTION_MAXND * 2]; /* (n d) x (d-1), row-major */
  double mu_lambda;                  /* mu times the lagged normal force [N], >= 0 */
} tide_friction_contact;

/* Fill a contact from the closest-point weights w (n; NULL: n = 1, w = 1),
 * the unit normal N at x^t, mu and the normal force magnitude lambda [N]. */
void tide_friction_contact_set(tide_friction_contact *c, int n, int d, const double *w,
                               const double *N, double mu, double lambda);

/* The tangential relative displacement u = T^T du (d-1). */
void tide_friction_slip(const tide_friction_contact *c, const double *du, double *u);

/* D, grad D (n d) and the PSD hess D ((n d)^2) at the stencil displacement
 * du = x - x^t (n d), eps_u = eps_v dt [m] > 0; any output may be NULL. */
void tide_friction_eval(const tide_friction_contact *c, double eps_u, const double *du, double *E,
                        double *grad, double *hess);

#ifdef __cplusplus
}
#endif
#endif
