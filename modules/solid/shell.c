/*
 * shell.c -- discrete shell kernels (see thin.h): the membrane energy of a
 * triangle through its 3x2 deformation gradient (Irving 2.8) and the hinge
 * bending energy on dihedral angles (Grinspun et al. 2003), and the
 * per-triangle shape-operator bending energy on the same angles.
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

/* an angle difference wrapped into (-pi, pi] */
static inline double wrap_angle(double d) {
  while (d > M_PI) d -= 2 * M_PI;
  while (d <= -M_PI) d += 2 * M_PI;
  return d;
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

/* theta of the hinge x (12) as tide_shell_dihedral, its gradient gt (12) and,
 * when Ht is not NULL, its symmetrized Hessian Ht (144) */
static double hinge_theta_derivs(const double *x, double *gt, double *Ht) {
  double th = tide_shell_dihedral(x);
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
  for (int i = 0; i < 3; i++) {
    gt[i] = -(1 - tA) * G2[i] - (1 - tB) * G3[i];
    gt[3 + i] = -tA * G2[i] - tB * G3[i];
    gt[6 + i] = G2[i];
    gt[9 + i] = G3[i];
  }
  if (!Ht) return th;
  /* d theta^2 / dx^2 by blocks H[alpha][beta] = d g_alpha / d x_beta */
  double H[144], dtA[12], dtB[12];
  memset(H, 0, sizeof H);
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
        H[(6 + i) * 12 + c] = d2;
        H[(9 + i) * 12 + c] = d3;
        H[i * 12 + c] = G2[i] * dtA[c] - (1 - tA) * d2 + G3[i] * dtB[c] - (1 - tB) * d3;
        H[(3 + i) * 12 + c] = -G2[i] * dtA[c] - tA * d2 - G3[i] * dtB[c] - tB * d3;
      }
  for (int r = 0; r < 12; r++)
    for (int c = 0; c < 12; c++) Ht[r * 12 + c] = 0.5 * (H[r * 12 + c] + H[c * 12 + r]);
  return th;
}

void tide_shell_hinge(const double *x, double theta0, double k, int project, double *E,
                      double *grad, double *hess) {
  double gt[12], Ht[144];
  double th = (grad || hess) ? hinge_theta_derivs(x, gt, hess ? Ht : NULL)
                             : tide_shell_dihedral(x);
  double dth = wrap_angle(th - theta0);
  if (E) *E = k * dth * dth;
  if (grad)
    for (int i = 0; i < 12; i++) grad[i] = 2 * k * dth * gt[i];
  if (!hess) return;
  for (int r = 0; r < 12; r++)
    for (int c = 0; c < 12; c++) hess[r * 12 + c] = 2 * k * (gt[r] * gt[c] + dth * Ht[r * 12 + c]);
  if (project) tide_sym_project_psd(12, hess);
}

/* ------------------------------------------------ triangle shape operator */

/* the hinge of edge i of the bending stencil (x0, x1, x2, w0, w1, w2): the
 * edge opposite node i, oriented as in the triangle, then node i, then the
 * wing w_i: stencil slots */
static const int tri_hinge_slots[3][4] = {{1, 2, 0, 3}, {2, 0, 1, 4}, {0, 1, 2, 5}};

/* gradient (2) of the linear interpolant of f(x) = x^T S x / 2 (S = [[s0,
 * s1], [s1, s2]]) on the 2D triangle p (3 x 2); 0 for a degenerate one */
static int quad_interp_grad(const double *p, const double *S, double *g) {
  double f[3];
  for (int a = 0; a < 3; a++) {
    double x = p[a * 2], y = p[a * 2 + 1];
    f[a] = 0.5 * (S[0] * x * x + 2 * S[1] * x * y + S[2] * y * y);
  }
  double a11 = p[2] - p[0], a12 = p[3] - p[1], a21 = p[4] - p[0], a22 = p[5] - p[1];
  double det = a11 * a22 - a12 * a21;
  if (!(fabs(det) > 0)) return 0;
  double r1 = f[1] - f[0], r2 = f[2] - f[0];
  g[0] = (r1 * a22 - a12 * r2) / det;
  g[1] = (a11 * r2 - a21 * r1) / det;
  return 1;
}

int tide_shell_bend_triangle_rest(const double *X, int present, double nu, double *K) {
  /* the triangle in its plane: x0 at the origin, x1 on the first axis,
   * from its rest frame Dm = [[a, b], [0, c]] */
  double Dminv[4], A;
  int st = tide_shell_rest(X, Dminv, &A);
  if (st) return st;
  double a0 = 1 / Dminv[0], c0 = 1 / Dminv[3], b0 = -Dminv[1] * a0 * c0;
  double P[6][2]; /* 2D positions: the triangle, then the wings unfolded */
  P[0][0] = P[0][1] = 0;
  P[1][0] = a0, P[1][1] = 0;
  P[2][0] = b0, P[2][1] = c0;
  /* the wing across edge i (opposite node i), rotated about the edge into
   * the triangle's plane, on the far side (absent wings are not used) */
  for (int i = 0; i < 3; i++) {
    if (!(present & (1 << i))) continue;
    int a = (i + 1) % 3, b = (i + 2) % 3;
    double ex = P[b][0] - P[a][0], ey = P[b][1] - P[a][1], le = sqrt(ex * ex + ey * ey);
    double ux = ex / le, uy = ey / le, ox = uy, oy = -ux; /* outward normal (ccw triangle) */
    double w[3], e3[3];
    for (int c = 0; c < 3; c++) {
      w[c] = X[(3 + i) * 3 + c] - X[a * 3 + c];
      e3[c] = X[b * 3 + c] - X[a * 3 + c];
    }
    double s = dot3(w, e3) / le, h2 = dot3(w, w) - s * s, h = h2 > 0 ? sqrt(h2) : 0;
    if (!(h > 1e-9 * le))
      return tide_fail(TIDE_EINVAL, "degenerate bending stencil (a wing on its edge)");
    P[3 + i][0] = P[a][0] + s * ux + h * ox;
    P[3 + i][1] = P[a][1] + s * uy + h * oy;
  }
  /* M (3x3): the angles theta_i = n_i . (g_i - g_A) of the height field
   * w = x^T S0 x / 2 interpolated linearly on the triangle and its
   * neighbours, for S0 = (1 0; 0 0), (0 1; 1 0), (0 0; 0 1); for a free
   * edge instead the condition of no bending moment across it,
   * n^T S n + nu t^T S t = 0 (n, t its normal and direction), whose
   * right-hand side is 0 */
  double M[9];
  for (int q = 0; q < 3; q++) {
    double S0[3] = {q == 0, q == 1, q == 2}, gA[2];
    double tA[6] = {P[0][0], P[0][1], P[1][0], P[1][1], P[2][0], P[2][1]};
    quad_interp_grad(tA, S0, gA);
    for (int i = 0; i < 3; i++) {
      int a = (i + 1) % 3, b = (i + 2) % 3;
      double ex = P[b][0] - P[a][0], ey = P[b][1] - P[a][1], le = sqrt(ex * ex + ey * ey);
      double tx = ex / le, ty = ey / le, nx = ty, ny = -tx;
      if (present & (1 << i)) {
        double tB[6] = {P[b][0], P[b][1], P[a][0], P[a][1], P[3 + i][0], P[3 + i][1]}, gB[2];
        quad_interp_grad(tB, S0, gB);
        M[i * 3 + q] = nx * (gB[0] - gA[0]) + ny * (gB[1] - gA[1]);
      } else {
        double Sn[2] = {S0[0] * nx + S0[1] * ny, S0[1] * nx + S0[2] * ny};
        double St[2] = {S0[0] * tx + S0[1] * ty, S0[1] * tx + S0[2] * ty};
        M[i * 3 + q] = nx * Sn[0] + ny * Sn[1] + nu * (tx * St[0] + ty * St[1]);
      }
    }
  }
  double Mi[9], mn = 0;
  for (int k = 0; k < 9; k++) mn = fmax(mn, fabs(M[k]));
  if (!(fabs(tide_det3(M)) > 1e-12 * mn * mn * mn))
    return tide_fail(TIDE_EINVAL, "degenerate bending stencil (singular curvature fit)");
  tide_mat_inv(3, M, Mi);
  /* E = (D A / 2) s^T C s, s = (S11, S12, S22) = M^-1 theta:
   * S:S = S11^2 + 2 S12^2 + S22^2, tr S = S11 + S22; a free edge's
   * entry of theta is 0: its rows and columns of K drop */
  double C[9] = {1, 0, nu, 0, 2 * (1 - nu), 0, nu, 0, 1};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) s += Mi[p * 3 + i] * C[p * 3 + q] * Mi[q * 3 + j];
      K[i * 3 + j] = (present & (1 << i)) && (present & (1 << j)) ? A * s : 0;
    }
  return TIDE_OK;
}

void tide_shell_bend_triangle(const double *x, const double *theta0, const double *K, int project,
                              double *E, double *grad, double *hess) {
  double dth[3] = {0, 0, 0}, gt[3][12], Ht[3][144];
  int on[3];
  for (int i = 0; i < 3; i++) {
    on[i] = K[i * 3 + i] > 0;
    if (!on[i]) continue;
    double q[12];
    for (int a = 0; a < 4; a++)
      for (int c = 0; c < 3; c++) q[a * 3 + c] = x[tri_hinge_slots[i][a] * 3 + c];
    double th = (grad || hess) ? hinge_theta_derivs(q, gt[i], hess ? Ht[i] : NULL)
                               : tide_shell_dihedral(q);
    dth[i] = wrap_angle(th - theta0[i]);
  }
  double Kd[3];
  for (int i = 0; i < 3; i++) Kd[i] = K[i * 3] * dth[0] + K[i * 3 + 1] * dth[1] + K[i * 3 + 2] * dth[2];
  if (E) *E = 0.5 * (dth[0] * Kd[0] + dth[1] * Kd[1] + dth[2] * Kd[2]);
  if (!grad && !hess) return;
  /* the hinge gradients scattered into the 18 stencil coordinates */
  double G[3][18];
  memset(G, 0, sizeof G);
  for (int i = 0; i < 3; i++)
    if (on[i])
      for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++) G[i][tri_hinge_slots[i][a] * 3 + c] = gt[i][a * 3 + c];
  if (grad)
    for (int r = 0; r < 18; r++) grad[r] = Kd[0] * G[0][r] + Kd[1] * G[1][r] + Kd[2] * G[2][r];
  if (!hess) return;
  /* sum_ij K_ij grad theta_i grad theta_j^T + sum_i (K dtheta)_i hess theta_i */
  for (int r = 0; r < 18; r++)
    for (int c = 0; c < 18; c++) {
      double s = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) s += K[i * 3 + j] * G[i][r] * G[j][c];
      hess[r * 18 + c] = s;
    }
  for (int i = 0; i < 3; i++) {
    if (!on[i] || Kd[i] == 0) continue;
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        int sa = tri_hinge_slots[i][a], sb = tri_hinge_slots[i][b];
        for (int p = 0; p < 3; p++)
          for (int q = 0; q < 3; q++)
            hess[(sa * 3 + p) * 18 + sb * 3 + q] += Kd[i] * Ht[i][(a * 3 + p) * 12 + b * 3 + q];
      }
  }
  if (project) tide_sym_project_psd(18, hess);
}
