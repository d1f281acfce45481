/*
 * shell.c -- discrete shell kernels (see thin.h): the membrane energy of a
 * triangle through its 3x2 deformation gradient (Irving 2.8) and the hinge
 * bending energy on dihedral angles (Grinspun et al. 2003).
 */
#include "solid/small.h"
#include "solid/thin.h"

#include <math.h>
#include <string.h>

static inline double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int tide_shell_rest(const double *X, double *Dminv, double *area) {
  double e1[3], e2[3], n[3];
  for (int k = 0; k < 3; k++) {
    e1[k] = X[3 + k] - X[k];
    e2[k] = X[6 + k] - X[k];
  }
  tide_cross3(e1, e2, n);
  double l1 = sqrt(dot3(e1, e1)), ln = sqrt(dot3(n, n));
  if (!(l1 > 0) || !(ln > 1e-12 * l1 * sqrt(dot3(e2, e2))))
    return tide_fail(TIDE_EINVAL, "degenerate triangle (zero area)");
  /* frame t1 = e1/|e1|, t2 = n x t1 / |n|: Dm = [[|e1|, t1.e2], [0, t2.e2]] */
  double t1[3], t2[3];
  for (int k = 0; k < 3; k++) t1[k] = e1[k] / l1;
  tide_cross3(n, t1, t2);
  for (int k = 0; k < 3; k++) t2[k] /= ln;
  double a = l1, b = dot3(t1, e2), c = dot3(t2, e2);
  Dminv[0] = 1 / a;
  Dminv[1] = -b / (a * c);
  Dminv[2] = 0;
  Dminv[3] = 1 / c;
  *area = 0.5 * ln;
  return TIDE_OK;
}

void tide_shell_membrane(const tide_material *m, const double *x, const double *Dminv,
                         double vol, int project, double *E, double *grad, double *hess) {
  double g[6], F[6];
  tide_fe_shape_gradients(2, Dminv, g);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) {
      double s = 0;
      for (int a = 0; a < 3; a++) s += x[a * 3 + i] * g[a * 2 + j];
      F[i * 2 + j] = s;
    }
  /* Q = [q1 q2] (Gram-Schmidt of F's columns), n = q1 x q2, F^ = Q^T F */
  double f1[3] = {F[0], F[2], F[4]}, f2[3] = {F[1], F[3], F[5]}, q1[3], q2[3], n[3];
  double l1 = sqrt(dot3(f1, f1));
  if (l1 > 0) {
    for (int k = 0; k < 3; k++) q1[k] = f1[k] / l1;
  } else {
    q1[0] = 1, q1[1] = q1[2] = 0;
  }
  double b = dot3(q1, f2), w[3];
  for (int k = 0; k < 3; k++) w[k] = f2[k] - b * q1[k];
  double c = sqrt(dot3(w, w));
  if (c > 0) {
    for (int k = 0; k < 3; k++) q2[k] = w[k] / c;
  } else { /* any unit vector orthogonal to q1 */
    double t[3] = {0, 0, 0};
    t[fabs(q1[0]) < 0.9 ? 0 : 1] = 1;
    double s = dot3(t, q1);
    for (int k = 0; k < 3; k++) t[k] -= s * q1[k];
    double lt = sqrt(dot3(t, t));
    for (int k = 0; k < 3; k++) q2[k] = t[k] / lt;
  }
  tide_cross3(q1, q2, n);
  double Fh[4] = {l1, b, 0, c}, psi, Ph[4], Th[16];
  tide_material_eval(m, 2, Fh, NULL, project, &psi, (grad || hess) ? Ph : NULL,
                     hess ? Th : NULL);
  if (E) *E = vol * psi;
  if (!grad && !hess) return;
  double Q[6]; /* Q[i*2 + p] = q_p[i] */
  for (int i = 0; i < 3; i++) {
    Q[i * 2] = q1[i];
    Q[i * 2 + 1] = q2[i];
  }
  if (grad) {
    double P[6];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++) P[i * 2 + j] = Q[i * 2] * Ph[j] + Q[i * 2 + 1] * Ph[2 + j];
    for (int a = 0; a < 3; a++)
      for (int i = 0; i < 3; i++)
        grad[a * 3 + i] = vol * (P[i * 2] * g[a * 2] + P[i * 2 + 1] * g[a * 2 + 1]);
  }
  if (!hess) return;
  /* S = F^-1 P^ (symmetric), F^ = [[l1, b], [0, c]] */
  double S[4] = {0, 0, 0, 0};
  if (l1 > 0 && c > 0) {
    double Fi[4] = {1 / l1, -b / (l1 * c), 0, 1 / c};
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) S[i * 2 + j] = Fi[i * 2] * Ph[j] + Fi[i * 2 + 1] * Ph[2 + j];
    double off = 0.5 * (S[1] + S[2]);
    S[1] = S[2] = off;
    if (project) tide_sym_project_psd(2, S);
  }
  /* T[(i,j),(k,l)] = sum_pr Q_ip Q_kr Th[(p,j),(r,l)] + n_i n_k S_jl */
  double T[36];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 2; l++) {
          double s = n[i] * n[k] * S[j * 2 + l];
          for (int p = 0; p < 2; p++)
            for (int r = 0; r < 2; r++)
              s += Q[i * 2 + p] * Q[k * 2 + r] * Th[(p * 2 + j) * 4 + r * 2 + l];
          T[(i * 2 + j) * 6 + k * 2 + l] = s;
        }
  for (int a = 0; a < 3; a++)
    for (int i = 0; i < 3; i++)
      for (int bb = 0; bb < 3; bb++)
        for (int k = 0; k < 3; k++) {
          double s = 0;
          for (int j = 0; j < 2; j++)
            for (int l = 0; l < 2; l++)
              s += T[(i * 2 + j) * 6 + k * 2 + l] * g[a * 2 + j] * g[bb * 2 + l];
          hess[(a * 3 + i) * 9 + bb * 3 + k] = vol * s;
        }
}

/* ------------------------------------------------------------- hinges */

double tide_shell_dihedral(const double *x) {
  double e[3], a[3], b[3], nA[3], nB[3], c[3];
  for (int k = 0; k < 3; k++) {
    e[k] = x[3 + k] - x[k];
    a[k] = x[6 + k] - x[k];
    b[k] = x[9 + k] - x[k];
  }
  tide_cross3(e, a, nA);
  tide_cross3(b, e, nB);
  tide_cross3(nA, nB, c);
  double le = sqrt(dot3(e, e));
  return atan2(le > 0 ? dot3(c, e) / le : 0, dot3(nA, nB));
}

/* [w]x v = w x v, row-major */
static void crossmat(const double *w, double *M) {
  M[0] = 0, M[1] = -w[2], M[2] = w[1];
  M[3] = w[2], M[4] = 0, M[5] = -w[0];
  M[6] = -w[1], M[7] = w[0], M[8] = 0;
}

/* the gradient of theta w.r.t. the opposite node of a triangle with normal
 * nt (unnormalized), G = -|e| nt / |nt|^2, and its derivative dG/dy = -(nt
 * (d|e|/dy)^T / q + |e|/q (I - 2 nt nt^T / q) J_y) for the three nodes y of
 * the triangle whose normal Jacobians are J[0..2] (d|e|/dy: de[0..2]) */
static void hinge_wing(const double *nt, double le, const double *J, const double *de,
                       double *G, double *dG) {
  double q = dot3(nt, nt);
  for (int k = 0; k < 3; k++) G[k] = -le * nt[k] / q;
  double Pm[9];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) Pm[i * 3 + k] = (i == k) - 2 * nt[i] * nt[k] / q;
  for (int y = 0; y < 3; y++)
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 3; k++) {
        double s = 0;
        for (int l = 0; l < 3; l++) s += Pm[i * 3 + l] * J[y * 9 + l * 3 + k];
        dG[y * 9 + i * 3 + k] = -(nt[i] * de[y * 3 + k] / q + le / q * s);
      }
}

void tide_shell_hinge(const double *x, double theta0, double k, int project, double *E,
                      double *grad, double *hess) {
  double th = tide_shell_dihedral(x), dth = th - theta0;
  while (dth > M_PI) dth -= 2 * M_PI;
  while (dth <= -M_PI) dth += 2 * M_PI;
  if (E) *E = k * dth * dth;
  if (!grad && !hess) return;
  double e[3], a[3], b[3], nA[3], nB[3];
  for (int i = 0; i < 3; i++) {
    e[i] = x[3 + i] - x[i];
    a[i] = x[6 + i] - x[i];
    b[i] = x[9 + i] - x[i];
  }
  tide_cross3(e, a, nA);
  tide_cross3(b, e, nB);
  double le2 = dot3(e, e), le = sqrt(le2), eh[3] = {e[0] / le, e[1] / le, e[2] / le};
  double tA = dot3(a, e) / le2, tB = dot3(b, e) / le2;
  /* normal Jacobians: nA over (x0, x1, x2), nB over (x0, x1, x3) */
  double JA[27], JB[27], amE[3], emb[3], ma[3], me[3];
  for (int i = 0; i < 3; i++) {
    amE[i] = a[i] - e[i];
    emb[i] = e[i] - b[i];
    ma[i] = -a[i];
    me[i] = -e[i];
  }
  crossmat(amE, JA);
  crossmat(ma, JA + 9);
  crossmat(e, JA + 18);
  crossmat(emb, JB);
  crossmat(b, JB + 9);
  crossmat(me, JB + 18);
  double de[9] = {-eh[0], -eh[1], -eh[2], eh[0], eh[1], eh[2], 0, 0, 0};
  double G2[3], G3[3], dG2[27], dG3[27];
  hinge_wing(nA, le, JA, de, G2, dG2);
  hinge_wing(nB, le, JB, de, G3, dG3);
  double gt[12];
  for (int i = 0; i < 3; i++) {
    gt[i] = -(1 - tA) * G2[i] - (1 - tB) * G3[i];
    gt[3 + i] = -tA * G2[i] - tB * G3[i];
    gt[6 + i] = G2[i];
    gt[9 + i] = G3[i];
  }
  if (grad)
    for (int i = 0; i < 12; i++) grad[i] = 2 * k * dth * gt[i];
  if (!hess) return;
  /* d theta^2 / dx^2 by blocks H[alpha][beta] = d g_alpha / d x_beta */
  double Ht[144], dtA[12], dtB[12];
  memset(Ht, 0, sizeof Ht);
  for (int i = 0; i < 3; i++) {
    double ae = dot3(a, e), be = dot3(b, e);
    dtA[i] = (-a[i] - e[i]) / le2 + 2 * ae * e[i] / (le2 * le2);
    dtA[3 + i] = a[i] / le2 - 2 * ae * e[i] / (le2 * le2);
    dtA[6 + i] = e[i] / le2;
    dtA[9 + i] = 0;
    dtB[i] = (-b[i] - e[i]) / le2 + 2 * be * e[i] / (le2 * le2);
    dtB[3 + i] = b[i] / le2 - 2 * be * e[i] / (le2 * le2);
    dtB[6 + i] = 0;
    dtB[9 + i] = e[i] / le2;
  }
  /* d G2 / d x_beta (beta = 0, 1, 2 -> wing nodes 0, 1, 2); G3: (0, 1, 3) */
  double D2[4][9], D3[4][9];
  memset(D2, 0, sizeof D2);
  memset(D3, 0, sizeof D3);
  for (int y = 0; y < 3; y++) {
    memcpy(D2[y], dG2 + y * 9, sizeof D2[y]);
    memcpy(D3[y == 2 ? 3 : y], dG3 + y * 9, sizeof D3[y]);
  }
  for (int be = 0; be < 4; be++)
    for (int i = 0; i < 3; i++)
      for (int kk = 0; kk < 3; kk++) {
        int c = be * 3 + kk;
        double d2 = D2[be][i * 3 + kk], d3 = D3[be][i * 3 + kk];
        Ht[(6 + i) * 12 + c] = d2;
        Ht[(9 + i) * 12 + c] = d3;
        Ht[i * 12 + c] = G2[i] * dtA[c] - (1 - tA) * d2 + G3[i] * dtB[c] - (1 - tB) * d3;
        Ht[(3 + i) * 12 + c] = -G2[i] * dtA[c] - tA * d2 - G3[i] * dtB[c] - tB * d3;
      }
  for (int r = 0; r < 12; r++)
    for (int c = 0; c < 12; c++)
      hess[r * 12 + c] = 2 * k * (gt[r] * gt[c] + dth * 0.5 * (Ht[r * 12 + c] + Ht[c * 12 + r]));
  if (project) tide_sym_project_psd(12, hess);
}
