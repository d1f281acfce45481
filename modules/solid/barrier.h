/*
 * barrier.h -- the smooth log barrier of Incremental Potential Contact (Li et
 * al. 2020, Eq. 6; Liu et al. Eq. 18-20) shared by solid-solid contact
 * (shells, rods, tets: ipc_*.c) and the liquid-solid coupling of Liu et al.
 * (modules/couple/liu*.c):
 *
 *     b(d, dhat) = -(d - dhat)^2 ln(d / dhat)   for 0 < d < dhat,
 *                = 0                             for d >= dhat,
 *                = +inf                          for d <= 0,
 *
 * C2 at d = dhat (b = b' = b'' = 0 there), positive, decreasing and convex
 * on (0, dhat), growing without bound as d -> 0:
 *
 *     b'(d)  = (dhat - d) (2 ln(d/dhat) - dhat/d + 1),
 *     b''(d) = (dhat - d) (3 d + dhat) / d^2 - 2 ln(d/dhat)   (> 0 on (0, dhat)).
 *
 * d is whatever distance measure the caller uses: IPC evaluates it on
 * squared distances (d = dist^2, dhat = dhat_dist^2) to avoid square roots;
 * Liu's vertex-level-set pairs on the level-set distance.  Units: b has the
 * units of d^2; the contact energy is kappa * sum b with kappa [J / unit(d)^2].
 * Plain C, no Lua, no state.
 */
#ifndef TIDE_SOLID_BARRIER_H
#define TIDE_SOLID_BARRIER_H

#ifdef __cplusplus
extern "C" {
#endif

/* b(d, dhat); +inf for d <= 0, 0 for d >= dhat.  dhat > 0. */
double tide_barrier(double d, double dhat);
/* db/dd; 0 for d >= dhat, -inf for d <= 0. */
double tide_barrier_gradient(double d, double dhat);
/* d^2 b / dd^2; 0 for d >= dhat, +inf for d <= 0. */
double tide_barrier_hessian(double d, double dhat);
/* All three at once (any output may be NULL). */
void tide_barrier_eval(double d, double dhat, double *b, double *db, double *ddb);

/* IPC's adaptive barrier stiffness (Li et al. 2020, supplement Sec. 3;
 * the squared-distance convention d = dist^2, dhat = dhat_dist^2):
 *   kappa_min = 1e11 * mavg / (4 d0 b''(d0, dhat)),  d0 = (1e-8 bbox)^2
 *               clamped into (0, dhat/2]
 * (mavg the average nodal mass [kg], bbox the scene's bounding-box diagonal
 * [m]): the stiffness at which a contact at relative distance 1e-8 balances
 * a force of 1e11 mavg.  tide_barrier_kappa_init then balances the barrier
 * gradient gB = sum grad b (unscaled) against the gradient gE of the rest of
 * the potential in the least-squares sense, kappa = -gE . gB / |gB|^2,
 * clamped into [kappa_min, 100 kappa_min]; kappa_min when gB = 0. */
double tide_barrier_kappa_min(double mavg, double bbox, double dhat);
double tide_barrier_kappa_init(long n, const double *gE, const double *gB, double kappa_min);

#ifdef __cplusplus
}
#endif
#endif
