/*
 * material.c -- constitutive models in the diagonal frame (see material.h).
 */
/* tide_material_kirchhoff_fc4 rounds lane by lane as the scalar closed
 * form: no contraction into FMAs (GCC's default in ISO C mode), also in
 * the inline helpers of the headers (tide_det3) */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#include "solid/material.h"
#include "solid/small.h"
#include "tide.h"

#include <math.h>
#include <string.h>

/* smallest s_i + s_j used in B = (p_i + p_j)/(s_i + s_j): under the sign
 * convention s_i + s_j >= 0, and it vanishes only for flat elements, where
 * the rotational stiffness it describes is clamped */
#define PAIR_EPS 1e-6

void tide_lame(double E, double nu, double *lambda, double *mu) {
  *lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  *mu = E / (2 * (1 + nu));
}

tide_material tide_material_default(int model, double mu, double lambda) {
  tide_material m;
  memset(&m, 0, sizeof m);
  m.model = model;
  m.mu = mu;
  m.lambda = lambda;
  m.gamma = 0.1;
  m.spline_lo = 0.7;
  m.spline_hi = 1.4;
  m.spline_klo = 20 * mu;
  m.spline_khi = 20 * mu;
  m.fiber[0] = 1;
  return m;
}

static const char *model_names[] = {"linear",          "rotated_linear", "neohookean", "spline",
                                    "fixed_corotated", "stvk",           "neohookean_j"};

const char *tide_model_name(int model) {
  return model >= 0 && model < TIDE_MODEL_COUNT ? model_names[model] : NULL;
}

int tide_material_check(const tide_material *m) {
  if (m->model < 0 || m->model >= TIDE_MODEL_COUNT)
    return tide_fail(TIDE_EINVAL, "unknown material model %d", m->model);
  const double vals[] = {m->mu,        m->lambda,     m->gamma,   m->spline_lo,
                         m->spline_hi, m->spline_klo, m->spline_khi, m->fiber_k,
                         m->fiber[0],  m->fiber[1],   m->fiber[2], m->damp_alpha,
                         m->damp_beta};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
    if (!isfinite(vals[i])) return tide_fail(TIDE_EINVAL, "material parameters must be finite");
  if (m->mu < 0) return tide_fail(TIDE_EINVAL, "material: mu must be >= 0, got %g", m->mu);
  if (m->lambda < -m->mu)
    return tide_fail(TIDE_EINVAL, "material: lambda must be >= -mu (positive bulk modulus), got %g",
                     m->lambda);
  if ((m->model == TIDE_MODEL_NEOHOOKEAN || m->model == TIDE_MODEL_NEOHOOKEAN_J) &&
      !(m->gamma > 0 && m->gamma < 1))
    return tide_fail(TIDE_EINVAL, "material: gamma must be in (0, 1), got %g", m->gamma);
  if (m->model == TIDE_MODEL_SPLINE) {
    if (!(m->spline_lo > 0 && m->spline_lo < 1) || !(m->spline_hi > 1))
      return tide_fail(TIDE_EINVAL, "material: spline thresholds need 0 < lo < 1 < hi, got %g, %g",
                       m->spline_lo, m->spline_hi);
    if (m->spline_klo < 0 || m->spline_khi < 0)
      return tide_fail(TIDE_EINVAL, "material: spline stiffnesses must be >= 0");
  }
  if (m->fiber_k < 0) return tide_fail(TIDE_EINVAL, "material: fiber_k must be >= 0");
  if (m->fiber_k > 0) {
    double n = m->fiber[0] * m->fiber[0] + m->fiber[1] * m->fiber[1] + m->fiber[2] * m->fiber[2];
    if (fabs(n - 1) > 1e-6) return tide_fail(TIDE_EINVAL, "material: fiber direction must be a unit vector");
  }
  if (m->damp_alpha < 0 || m->damp_beta < 0)
    return tide_fail(TIDE_EINVAL, "material: damping coefficients must be >= 0");
  return TIDE_OK;
}

/* ---------------------------------------------------- models by s (diag) */

/* neo-Hookean volume term f(J) with its Taylor extrapolation below gamma:
 * -mu ln J + lambda/2 ln(J)^2, or -mu ln J + lambda/2 (J - 1)^2 */
static void nh_volume(const tide_material *m, double J, double *f, double *f1, double *f2) {
  double mu = m->mu, lam = m->lambda;
  double Jc = J >= m->gamma ? J : m->gamma;
  double l = log(Jc), g0, g1, g2;
  if (m->model == TIDE_MODEL_NEOHOOKEAN_J) {
    g0 = -mu * l + 0.5 * lam * (Jc - 1) * (Jc - 1);
    g1 = -mu / Jc + lam * (Jc - 1);
    g2 = mu / (Jc * Jc) + lam;
  } else {
    g0 = -mu * l + 0.5 * lam * l * l;
    g1 = (lam * l - mu) / Jc;
    g2 = (mu + lam - lam * l) / (Jc * Jc);
  }
  if (J >= m->gamma) {
    *f = g0, *f1 = g1, *f2 = g2;
  } else {
    double dJ = J - Jc;
    *f = g0 + g1 * dJ + 0.5 * g2 * dJ * dJ;
    *f1 = g1 + g2 * dJ;
    *f2 = g2;
  }
}

/* spline stress piece: stiffness k0 + c (t - t0) from t0; value at u = sigma - t0 */
static void spline_axis(const tide_material *m, double sigma, double *phi, double *s, double *k) {
  double k0 = 2 * m->mu;
  double lo = m->spline_lo, hi = m->spline_hi;
  double c, U, edge_k;
  if (sigma >= 1) {
    c = (m->spline_khi - k0) / (hi - 1);
    U = hi - 1;
    edge_k = m->spline_khi;
  } else {
    c = (k0 - m->spline_klo) / (1 - lo);
    U = lo - 1;
    edge_k = m->spline_klo;
  }
  double u = sigma - 1;
  if ((sigma >= 1 && sigma <= hi) || (sigma < 1 && sigma >= lo)) {
    *s = k0 * u + 0.5 * c * u * u;
    *phi = 0.5 * k0 * u * u + c * u * u * u / 6;
    *k = k0 + c * u;
    return;
  }
  double se = k0 * U + 0.5 * c * U * U, pe = 0.5 * k0 * U * U + c * U * U * U / 6;
  double w = u - U;
  *s = se + edge_k * w;
  *phi = pe + se * w + 0.5 * edge_k * w * w;
  *k = edge_k;
}

/* (s(a) - s(b)) / (a - b) for the spline stress, robust for a ~ b */
static double spline_divdiff(const tide_material *m, double a, double b) {
  double pa, sa, ka, pb, sb, kb;
  if (fabs(a - b) > 1e-6 * (1 + fabs(a))) {
    spline_axis(m, a, &pa, &sa, &ka);
    spline_axis(m, b, &pb, &sb, &kb);
    return (sa - sb) / (a - b);
  }
  spline_axis(m, 0.5 * (a + b), &pa, &sa, &ka);
  return ka;
}

static const int pair_i[3] = {0, 0, 1}, pair_j[3] = {1, 2, 2}, pair_k[3] = {2, 1, 0};

static void diag_model(const tide_material *m, int d, const double *s, double *psi_out,
                       double *p_out, double *h_out, double *A_out, double *B_out) {
  double p[3] = {0}, h[9] = {0}, psi = 0, A[3] = {0}, B[3] = {0};
  int np = d == 3 ? 3 : 1;
  double J = d == 3 ? s[0] * s[1] * s[2] : s[0] * s[1];
  double Ji[3]; /* products of the other singular values */
  if (d == 3) {
    Ji[0] = s[1] * s[2], Ji[1] = s[0] * s[2], Ji[2] = s[0] * s[1];
  } else {
    Ji[0] = s[1], Ji[1] = s[0];
  }
  /* d J_i / d s_j for i != j: s_k in 3D, 1 in 2D */
#define DJ(q) (d == 3 ? s[pair_k[q]] : 1.0)
  switch (m->model) {
  case TIDE_MODEL_ROTATED_LINEAR:
  case TIDE_MODEL_SPLINE: {
    double T = 0;
    for (int i = 0; i < d; i++) T += s[i] - 1;
    psi = 0.5 * m->lambda * T * T;
    for (int i = 0; i < d; i++) {
      double ph, st, k;
      if (m->model == TIDE_MODEL_SPLINE) {
        spline_axis(m, s[i], &ph, &st, &k);
      } else {
        double u = s[i] - 1;
        ph = m->mu * u * u, st = 2 * m->mu * u, k = 2 * m->mu;
      }
      psi += ph;
      p[i] = st + m->lambda * T;
      for (int j = 0; j < d; j++) h[i * d + j] = m->lambda + (i == j ? k : 0);
    }
    for (int q = 0; q < np; q++) {
      int i = pair_i[q], j = pair_j[q];
      A[q] = m->model == TIDE_MODEL_SPLINE ? spline_divdiff(m, s[i], s[j]) : 2 * m->mu;
      double den = s[i] + s[j];
      B[q] = (p[i] + p[j]) / (den > PAIR_EPS ? den : PAIR_EPS);
    }
    break;
  }
  case TIDE_MODEL_FIXED_COROTATED: {
    double mu = m->mu, lam = m->lambda;
    psi = 0.5 * lam * (J - 1) * (J - 1);
    for (int i = 0; i < d; i++) {
      psi += mu * (s[i] - 1) * (s[i] - 1);
      p[i] = 2 * mu * (s[i] - 1) + lam * (J - 1) * Ji[i];
      h[i * d + i] = 2 * mu + lam * Ji[i] * Ji[i];
    }
    for (int q = 0; q < np; q++) {
      int i = pair_i[q], j = pair_j[q];
      h[i * d + j] = h[j * d + i] = lam * Ji[i] * Ji[j] + lam * (J - 1) * DJ(q);
      A[q] = 2 * mu - lam * (J - 1) * DJ(q);
      double den = s[i] + s[j];
      B[q] = 2 * mu - 4 * mu / (den > PAIR_EPS ? den : PAIR_EPS) + lam * (J - 1) * DJ(q);
    }
    break;
  }
  case TIDE_MODEL_STVK: {
    double mu = m->mu, lam = m->lambda, T = 0;
    for (int i = 0; i < d; i++) T += 0.5 * (s[i] * s[i] - 1);
    psi = 0.5 * lam * T * T;
    for (int i = 0; i < d; i++) {
      double e = 0.5 * (s[i] * s[i] - 1);
      psi += mu * e * e;
      p[i] = s[i] * (2 * mu * e + lam * T);
      h[i * d + i] = mu * (3 * s[i] * s[i] - 1) + lam * T + lam * s[i] * s[i];
    }
    for (int q = 0; q < np; q++) {
      int i = pair_i[q], j = pair_j[q];
      double a = s[i], b = s[j];
      h[i * d + j] = h[j * d + i] = lam * a * b;
      /* (p_i -+ p_j)/(s_i -+ s_j) in closed form */
      A[q] = mu * (a * a + a * b + b * b - 1) + lam * T;
      B[q] = mu * (a * a - a * b + b * b - 1) + lam * T;
    }
    break;
  }
  case TIDE_MODEL_NEOHOOKEAN:
  case TIDE_MODEL_NEOHOOKEAN_J: {
    double f, f1, f2, mu = m->mu;
    nh_volume(m, J, &f, &f1, &f2);
    psi = f;
    for (int i = 0; i < d; i++) {
      psi += 0.5 * mu * (s[i] * s[i] - 1);
      p[i] = mu * s[i] + f1 * Ji[i];
      h[i * d + i] = mu + f2 * Ji[i] * Ji[i];
    }
    for (int q = 0; q < np; q++) {
      int i = pair_i[q], j = pair_j[q];
      h[i * d + j] = h[j * d + i] = f2 * Ji[i] * Ji[j] + f1 * DJ(q);
      A[q] = mu - f1 * DJ(q);
      B[q] = mu + f1 * DJ(q);
    }
    break;
  }
  default:
    break;
  }
#undef DJ
  if (psi_out) *psi_out = psi;
  if (p_out) memcpy(p_out, p, sizeof(double) * (size_t)d);
  if (h_out) memcpy(h_out, h, sizeof(double) * (size_t)(d * d));
  if (A_out) memcpy(A_out, A, sizeof(double) * (size_t)np);
  if (B_out) memcpy(B_out, B, sizeof(double) * (size_t)np);
}

/* plane stress: the out-of-plane stretch s3 >= 0 minimizing psi3(s1, s2, s3)
 * for the in-plane (s1, s2): the root of g = dpsi3/ds3 by Newton's method
 * safeguarded by a bracket, or the bound s3 = 0 when g >= 0 there (an
 * in-plane inverted or flat state, where the minimizer over all s3 would
 * flip the sheet through the third dimension); *bound = 1 then */
static double plane_stress_s3(const tide_material *m, double s1, double s2, int *bound) {
  double t[3] = {s1, s2, 0}, p[3], h[9];
#define G3(z) (t[2] = (z), diag_model(m, 3, t, NULL, p, h, NULL, NULL), p[2])
  *bound = 0;
  double g0 = G3(0.0);
  if (g0 > 0 || (g0 == 0 && h[8] >= 0)) {
    *bound = 1;
    return 0;
  }
  double lo = 0, hi = 1, ghi = G3(1.0);
  while (ghi < 0 && hi < 1e8) lo = hi, hi *= 2, ghi = G3(hi);
  if (ghi < 0) return hi;
  double z = ghi == 0 ? hi : 0.5 * (lo + hi);
  for (int it = 0; it < 200 && ghi != 0; it++) {
    double g = G3(z), k = h[8];
    if (g == 0) break;
    if (g < 0) lo = z;
    else hi = z;
    double zn = k > 0 ? z - g / k : 0.5 * (lo + hi);
    if (!(zn > lo && zn < hi)) zn = 0.5 * (lo + hi);
    if (fabs(zn - z) <= 1e-15 * fabs(z) || hi - lo <= 1e-15 * hi) {
      z = zn;
      break;
    }
    z = zn;
  }
#undef G3
  return z;
}

void tide_material_diag(const tide_material *m, int d, const double *s, double *psi_out,
                        double *p_out, double *h_out, double *A_out, double *B_out) {
  if (!(d == 2 && m->plane_stress)) {
    diag_model(m, d, s, psi_out, p_out, h_out, A_out, B_out);
    return;
  }
  int bound;
  double t[3] = {s[0], s[1], plane_stress_s3(m, s[0], s[1], &bound)}, psi, p[3], h[9], A[3], B[3];
  diag_model(m, 3, t, &psi, p, h, A, B);
  if (psi_out) *psi_out = psi;
  if (p_out) p_out[0] = p[0], p_out[1] = p[1];
  if (h_out) {
    double k = !bound && h[8] > 0 ? h[8] : 0; /* at the bound s3 stays 0 */
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        h_out[i * 2 + j] = h[i * 3 + j] - (k > 0 ? h[i * 3 + 2] * h[j * 3 + 2] / k : 0);
  }
  if (A_out) A_out[0] = A[0];
  if (B_out) B_out[0] = B[0];
}

/* ------------------------------------------------------------ full F */

static void linear_eval(const tide_material *m, int d, const double *F, double *psi, double *P,
                        double *dPdF) {
  double eps[9], tr = 0, ee = 0;
  tide_material ps;
  if (d == 2 && m->plane_stress) { /* exact: lambda* = 2 lambda mu / (lambda + 2 mu) */
    ps = *m;
    ps.lambda = m->lambda + 2 * m->mu > 0 ? 2 * m->lambda * m->mu / (m->lambda + 2 * m->mu) : 0;
    ps.plane_stress = 0;
    m = &ps;
  }
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) eps[i * d + j] = 0.5 * (F[i * d + j] + F[j * d + i]) - (i == j);
  for (int i = 0; i < d; i++) tr += eps[i * d + i];
  for (int i = 0; i < d * d; i++) ee += eps[i] * eps[i];
  if (psi) *psi = m->mu * ee + 0.5 * m->lambda * tr * tr;
  if (P)
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) P[i * d + j] = 2 * m->mu * eps[i * d + j] + (i == j) * m->lambda * tr;
  if (dPdF) {
    int n = d * d;
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++)
        for (int k = 0; k < d; k++)
          for (int l = 0; l < d; l++)
            dPdF[(i * d + j) * n + k * d + l] = m->mu * ((i == k) * (j == l) + (i == l) * (j == k)) +
                                                 m->lambda * (i == j) * (k == l);
  }
}

/* dPdF += c * vec(u_a v_b^T) vec(u_c v_e^T)^T */
static void add_outer(int d, const double *U, const double *V, int a, int b, int c, int e, double w,
                      double *dPdF) {
  if (w == 0) return;
  int n = d * d;
  double x[9], y[9];
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      x[i * d + j] = U[i * d + a] * V[j * d + b];
      y[i * d + j] = U[i * d + c] * V[j * d + e];
    }
  for (int r = 0; r < n; r++)
    for (int q = 0; q < n; q++) dPdF[r * n + q] += w * x[r] * y[q];
}

static void fiber_eval(const tide_material *m, int d, const double *F, const double *a, int project,
                       double *psi, double *P, double *dPdF) {
  double w[3] = {0}, l = 0, k = m->fiber_k;
  for (int i = 0; i < d; i++) {
    for (int j = 0; j < d; j++) w[i] += F[i * d + j] * a[j];
    l += w[i] * w[i];
  }
  l = sqrt(l);
  double lc = l > 1e-12 ? l : 1e-12;
  if (psi) *psi += 0.5 * k * (l - 1) * (l - 1);
  if (P)
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) P[i * d + j] += k * (1 - 1 / lc) * w[i] * a[j];
  if (dPdF) {
    /* dP_ij/dF_kl = k M_ik a_j a_l with M = (1 - 1/l) I + w w^T / l^3, whose
     * eigenvalues are 1 (along w) and 1 - 1/l (across) */
    double across = 1 - 1 / lc, M[9];
    if (project && across < 0) across = 0;
    for (int i = 0; i < d; i++)
      for (int q = 0; q < d; q++)
        M[i * d + q] = (i == q) * across + w[i] * w[q] / (lc * lc) * (1 - across);
    int n = d * d;
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++)
        for (int q = 0; q < d; q++)
          for (int l2 = 0; l2 < d; l2++) dPdF[(i * d + j) * n + q * d + l2] += k * M[i * d + q] * a[j] * a[l2];
  }
}

void tide_material_eval(const tide_material *m, int d, const double *F, const double *fiber,
                        int project, double *psi, double *P, double *dPdF) {
  int n = d * d;
  if (dPdF) memset(dPdF, 0, sizeof(double) * (size_t)(n * n));
  if (m->model == TIDE_MODEL_LINEAR) {
    linear_eval(m, d, F, psi, P, dPdF);
  } else {
    double U[9], s[3], V[9], p[3], h[9], A[3], B[3];
    tide_svd_signed(d, F, U, s, V);
    tide_material_diag(m, d, s, psi, p, h, A, B);
    if (P)
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
          double t = 0;
          for (int k = 0; k < d; k++) t += U[i * d + k] * p[k] * V[j * d + k];
          P[i * d + j] = t;
        }
    if (dPdF) {
      int np = d == 3 ? 3 : 1;
      if (project) {
        tide_sym_project_psd(d, h);
        for (int q = 0; q < np; q++) {
          if (A[q] < 0) A[q] = 0;
          if (B[q] < 0) B[q] = 0;
        }
      }
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) add_outer(d, U, V, i, i, j, j, h[i * d + j], dPdF);
      for (int q = 0; q < np; q++) {
        int i = pair_i[q], j = pair_j[q];
        double a = 0.5 * (A[q] + B[q]), b = 0.5 * (A[q] - B[q]);
        add_outer(d, U, V, i, j, i, j, a, dPdF);
        add_outer(d, U, V, j, i, j, i, a, dPdF);
        add_outer(d, U, V, i, j, j, i, b, dPdF);
        add_outer(d, U, V, j, i, i, j, b, dPdF);
      }
    }
  }
  if (m->fiber_k > 0) fiber_eval(m, d, F, fiber ? fiber : m->fiber, project, psi, P, dPdF);
}

/* tau = 2 mu (F - R) F^T + lambda (J - 1) J I (fixed corotated, fc) or
 * mu F F^T + f'(J) J I (neo-Hookean), D a compile-time constant */
static inline __attribute__((always_inline)) void kirchhoff_closed(const tide_material *m, int D,
                                                                   int fc, const double *F,
                                                                   double *tau) {
  double A[9], J = D == 2 ? tide_det2(F) : tide_det3(F), c;
  if (fc) {
    double R[9];
    tide_polar_rotation_fast(D, F, R);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < D * D; k++)
      A[k] = 2 * m->mu * (F[k] - R[k]);
    c = m->lambda * (J - 1) * J;
  } else {
    double f, f1, f2;
    nh_volume(m, J, &f, &f1, &f2);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < D * D; k++)
      A[k] = m->mu * F[k];
    c = f1 * J;
  }
  /* tau is symmetric (R F^T = R S R^T): the upper triangle, mirrored */
  _Pragma("GCC unroll 16")
  for (int i = 0; i < D; i++)
    _Pragma("GCC unroll 16")
    for (int j = i; j < D; j++) {
      double t = 0;
      _Pragma("GCC unroll 16")
      for (int k = 0; k < D; k++) t += A[i * D + k] * F[j * D + k];
      tau[i * D + j] = tau[j * D + i] = t;
    }
  _Pragma("GCC unroll 16")
  for (int a = 0; a < D; a++)
    tau[a * D + a] += c;
}

void tide_material_kirchhoff(const tide_material *m, int d, const double *F, double *tau) {
  int fast = m->fiber_k == 0 && !(d == 2 && m->plane_stress);
  int fc = m->model == TIDE_MODEL_FIXED_COROTATED,
      nh = m->model == TIDE_MODEL_NEOHOOKEAN || m->model == TIDE_MODEL_NEOHOOKEAN_J;
  if (fast && (fc || nh)) {
    if (d == 3)
      kirchhoff_closed(m, 3, fc, F, tau);
    else
      kirchhoff_closed(m, 2, fc, F, tau);
    return;
  }
  double P[9];
  tide_material_eval(m, d, F, NULL, 0, NULL, P, NULL);
  tide_matmul_nt(d, P, F, tau);
}

typedef double kv4 __attribute__((vector_size(32)));
typedef double kv4u __attribute__((vector_size(32), aligned(8))); /* unaligned in memory */

void tide_material_kirchhoff_fc4(int n, const double mu[4], const double lambda[4],
                                 const double *const F[4], double tau[9][4]) {
  double Fs[9][4], Rs[9][4];
  tide_polar_rotation_fast4(n, F, Fs, Rs);
  kv4 Fv[9], A[9], m2 = {2 * mu[0], 0, 0, 0}, lam = {lambda[0], 0, 0, 0};
  for (int l = 1; l < n; l++) /* lanes l >= n: F = R = I, no stress */
    m2[l] = 2 * mu[l], lam[l] = lambda[l];
  /* the arithmetic of kirchhoff_closed (3D, fixed corotated), lane by lane */
  _Pragma("GCC unroll 16")
  for (int k = 0; k < 9; k++)
    Fv[k] = *(const kv4u *)Fs[k];
  kv4 J = Fv[0] * (Fv[4] * Fv[8] - Fv[5] * Fv[7]) - Fv[1] * (Fv[3] * Fv[8] - Fv[5] * Fv[6]) +
          Fv[2] * (Fv[3] * Fv[7] - Fv[4] * Fv[6]);
  _Pragma("GCC unroll 16")
  for (int k = 0; k < 9; k++)
    A[k] = m2 * (Fv[k] - *(const kv4u *)Rs[k]);
  kv4 c = lam * (J - 1) * J, t[9];
  _Pragma("GCC unroll 16")
  for (int i = 0; i < 3; i++)
    _Pragma("GCC unroll 16")
    for (int j = i; j < 3; j++) {
      kv4 u = {0, 0, 0, 0};
      _Pragma("GCC unroll 16")
      for (int k = 0; k < 3; k++) u += A[i * 3 + k] * Fv[j * 3 + k];
      t[i * 3 + j] = t[j * 3 + i] = u;
    }
  t[0] += c, t[4] += c, t[8] += c;
  _Pragma("GCC unroll 16")
  for (int k = 0; k < 9; k++)
    *(kv4u *)tau[k] = t[k];
}

void tide_material_damping(const tide_material *m, int d, const double *R, const double *Fdot,
                           double *Pd, double *dPd) {
  double beta = m->damp_beta, alpha = m->damp_alpha, rf = 0, RFtR[9], T[9];
  for (int i = 0; i < d * d; i++) rf += R[i] * Fdot[i];
  /* R Fdot^T R */
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      double t = 0;
      for (int k = 0; k < d; k++) t += R[i * d + k] * Fdot[j * d + k];
      T[i * d + j] = t;
    }
  tide_matmul(d, T, R, RFtR);
  for (int i = 0; i < d * d; i++) Pd[i] = beta * (Fdot[i] + RFtR[i]) + alpha * rf * R[i];
  if (dPd) {
    int n = d * d;
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++)
        for (int k = 0; k < d; k++)
          for (int l = 0; l < d; l++)
            dPd[(i * d + j) * n + k * d + l] =
                beta * ((i == k) * (j == l) + R[i * d + l] * R[k * d + j]) +
                alpha * R[i * d + j] * R[k * d + l];
  }
}
