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
  if (project) tide_sym_project_psd_stencil4(hess); /* theta is translation invariant */
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

/* unfold node W (3D) across the edge (A, B) (3D) into the 2D plane where A, B
 * sit at pa, pb, on the side of that edge away from the 2D point pc; 0 for
 * a wing on its edge */
static int unfold(const double *A, const double *B, const double *W, const double *pa,
                  const double *pb, const double *pc, double *pw) {
  double w[3], e3[3];
  for (int c = 0; c < 3; c++) {
    w[c] = W[c] - A[c];
    e3[c] = B[c] - A[c];
  }
  double le = sqrt(dot3(e3, e3));
  double s = dot3(w, e3) / le, h2 = dot3(w, w) - s * s, h = h2 > 0 ? sqrt(h2) : 0;
  if (!(h > 1e-9 * le)) return 0;
  double ux = (pb[0] - pa[0]) / le, uy = (pb[1] - pa[1]) / le, ox = uy, oy = -ux;
  if (ox * (pc[0] - pa[0]) + oy * (pc[1] - pa[1]) > 0) ox = -ox, oy = -oy;
  pw[0] = pa[0] + s * ux + h * ox;
  pw[1] = pa[1] + s * uy + h * oy;
  return 1;
}

/* edge i of the ccw 2D triangle p (3 x 2, opposite node i): unit direction
 * t, outward normal n, midpoint m */
static void tri_edge(const double (*p)[2], int i, double *t, double *n, double *m) {
  int a = (i + 1) % 3, b = (i + 2) % 3;
  double ex = p[b][0] - p[a][0], ey = p[b][1] - p[a][1], le = sqrt(ex * ex + ey * ey);
  t[0] = ex / le, t[1] = ey / le, n[0] = t[1], n[1] = -t[0];
  m[0] = 0.5 * (p[a][0] + p[b][0]), m[1] = 0.5 * (p[a][1] + p[b][1]);
}

/* M (3x3) of the constant-curvature fit of the ccw 2D triangle P[0..2] with
 * the wings P[3 + i] unfolded across its edges (bit i of present): row i
 * the angle n_i . (g_i - g_0) of the height field x^T S_q x / 2 (S_q = (1 0;
 * 0 0), (0 1; 1 0), (0 0; 0 1)) interpolated linearly on the triangle and
 * on neighbour i; for a free edge instead the condition of no bending
 * moment across it, n^T S n + nu t^T S t = 0 (right-hand side 0) */
static void bend_fit(const double (*P)[2], int present, double nu, double *M) {
  for (int q = 0; q < 3; q++) {
    double S0[3] = {q == 0, q == 1, q == 2}, gA[2];
    double tA[6] = {P[0][0], P[0][1], P[1][0], P[1][1], P[2][0], P[2][1]};
    quad_interp_grad(tA, S0, gA);
    for (int i = 0; i < 3; i++) {
      int a = (i + 1) % 3, b = (i + 2) % 3;
      double t[2], n[2], mid[2];
      tri_edge(P, i, t, n, mid);
      if (present & (1 << i)) {
        double tB[6] = {P[b][0], P[b][1], P[a][0], P[a][1], P[3 + i][0], P[3 + i][1]}, gB[2];
        quad_interp_grad(tB, S0, gB);
        M[i * 3 + q] = n[0] * (gB[0] - gA[0]) + n[1] * (gB[1] - gA[1]);
      } else {
        double Sn[2] = {S0[0] * n[0] + S0[1] * n[1], S0[1] * n[0] + S0[2] * n[1]};
        double St[2] = {S0[0] * t[0] + S0[1] * t[1], S0[1] * t[0] + S0[2] * t[1]};
        M[i * 3 + q] = n[0] * Sn[0] + n[1] * Sn[1] + nu * (t[0] * St[0] + t[1] * St[1]);
      }
    }
  }
}

/* inverse of a fit matrix; 0 when it is singular */
static int fit_inverse(const double *M, double *Mi) {
  double mn = 0;
  for (int k = 0; k < 9; k++) mn = fmax(mn, fabs(M[k]));
  if (!(fabs(tide_det3(M)) > 1e-12 * mn * mn * mn)) return 0;
  tide_mat_inv(3, M, Mi);
  return 1;
}

/* Q = A R^T C R (3x3) for s = R u: the plate energy (D A / 2) s^T C s =
 * (D / 2) u^T Q u, s = (S11, S12, S22), S:S = S11^2 + 2 S12^2 + S22^2,
 * tr S = S11 + S22 */
static void plate_weight(const double *R, double nu, double A, double *Q) {
  const double C[9] = {1, 0, nu, 0, 2 * (1 - nu), 0, nu, 0, 1};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) s += R[p * 3 + i] * C[p * 3 + q] * R[q * 3 + j];
      Q[i * 3 + j] = A * s;
    }
}

/* the triangle's 2D frame: x0 at the origin, x1 on the first axis, from
 * its rest frame Dm = [[a, b], [0, c]]; its area */
static int tri_frame(const double *X, double (*P)[2], double *A) {
  double Dminv[4];
  int st = tide_shell_rest(X, Dminv, A);
  if (st) return st;
  double a0 = 1 / Dminv[0], c0 = 1 / Dminv[3], b0 = -Dminv[1] * a0 * c0;
  P[0][0] = P[0][1] = 0;
  P[1][0] = a0, P[1][1] = 0;
  P[2][0] = b0, P[2][1] = c0;
  return TIDE_OK;
}

int tide_shell_bend_triangle_rest(const double *X, int present, double nu, double *K) {
  double P[6][2], A; /* 2D positions: the triangle, then the wings unfolded */
  int st = tri_frame(X, P, &A);
  if (st) return st;
  for (int i = 0; i < 3; i++) {
    int a = (i + 1) % 3, b = (i + 2) % 3;
    if ((present & (1 << i)) &&
        !unfold(X + a * 3, X + b * 3, X + (3 + i) * 3, P[a], P[b], P[i], P[3 + i]))
      return tide_fail(TIDE_EINVAL, "degenerate bending stencil (a wing on its edge)");
  }
  double M[9], Mi[9];
  bend_fit((const double (*)[2])P, present, nu, M);
  if (!fit_inverse(M, Mi))
    return tide_fail(TIDE_EINVAL, "degenerate bending stencil (singular curvature fit)");
  /* E = (D A / 2) s^T C s with s = M^-1 theta; a free edge's entry of
   * theta is 0: its rows and columns of K drop */
  plate_weight(Mi, nu, A, K);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (!(present & (1 << i)) || !(present & (1 << j))) K[i * 3 + j] = 0;
  return TIDE_OK;
}

/* E = 1/2 dtheta^T K dtheta over nh hinges of an nn-node stencil (hinge h
 * on the stencil slots slots[h]); rows of K that are zero mark absent
 * hinges.  grad 3 nn, hess (3 nn)^2: G^T K G + sum_i (K dtheta)_i hess
 * theta_i (G the hinge-angle gradients); project 1: that block projected by
 * eigenvalue clamping; 2: its Gauss-Newton part G^T K G alone (PSD, as K
 * is), without the (3 nn)^2 eigen-decomposition.  Workspace on the stack:
 * nh <= 9, nn <= 12. */
static void bend_hinges(int nn, int nh, const int (*slots)[4], const double *x,
                        const double *theta0, const double *K, int project, double *E,
                        double *grad, double *hess) {
  enum { NH = 9, NN = 12 };
  double dth[NH], gt[NH][12], Ht[NH][144], Kd[NH], G[NH][3 * NN];
  int on[NH], k = 3 * nn;
  for (int i = 0; i < nh; i++) {
    dth[i] = 0;
    on[i] = K[i * nh + i] > 0;
    if (!on[i]) continue;
    double q[12];
    for (int a = 0; a < 4; a++)
      for (int c = 0; c < 3; c++) q[a * 3 + c] = x[slots[i][a] * 3 + c];
    double th = (grad || hess) ? hinge_theta_derivs(q, gt[i], hess ? Ht[i] : NULL)
                               : tide_shell_dihedral(q);
    dth[i] = wrap_angle(th - theta0[i]);
  }
  double e = 0;
  for (int i = 0; i < nh; i++) {
    Kd[i] = 0;
    for (int j = 0; j < nh; j++) Kd[i] += K[i * nh + j] * dth[j];
    e += dth[i] * Kd[i];
  }
  if (E) *E = 0.5 * e;
  if (!grad && !hess) return;
  /* the hinge gradients scattered into the stencil coordinates */
  for (int i = 0; i < nh; i++) {
    memset(G[i], 0, (size_t)k * sizeof(double));
    if (on[i])
      for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++) G[i][slots[i][a] * 3 + c] += gt[i][a * 3 + c];
  }
  if (grad)
    for (int r = 0; r < k; r++) {
      double s = 0;
      for (int i = 0; i < nh; i++) s += Kd[i] * G[i][r];
      grad[r] = s;
    }
  if (!hess) return;
  /* sum_ij K_ij grad theta_i grad theta_j^T + sum_i (K dtheta)_i hess theta_i */
  double KG[NH][3 * NN];
  for (int i = 0; i < nh; i++)
    for (int c = 0; c < k; c++) {
      double s = 0;
      for (int j = 0; j < nh; j++) s += K[i * nh + j] * G[j][c];
      KG[i][c] = s;
    }
  for (int r = 0; r < k; r++)
    for (int c = 0; c < k; c++) {
      double s = 0;
      for (int i = 0; i < nh; i++) s += G[i][r] * KG[i][c];
      hess[r * k + c] = s;
    }
  for (int i = 0; i < nh && project != 2; i++) {
    if (!on[i] || Kd[i] == 0) continue;
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        int sa = slots[i][a], sb = slots[i][b];
        for (int p = 0; p < 3; p++)
          for (int q = 0; q < 3; q++)
            hess[(sa * 3 + p) * k + sb * 3 + q] += Kd[i] * Ht[i][(a * 3 + p) * 12 + b * 3 + q];
      }
  }
  if (project == 1) tide_sym_project_psd_qr(k, hess);
}

void tide_shell_bend_triangle(const double *x, const double *theta0, const double *K, int project,
                              double *E, double *grad, double *hess) {
  bend_hinges(6, 3, tri_hinge_slots, x, theta0, K, project ? 1 : 0, E, grad, hess);
}

/* ------------------------------------------- Morley, mid-edge slopes shared */

/* the 9 hinges of the Morley stencil: the triangle's 3 (as
 * tri_hinge_slots), then for neighbour N_i = (b_i, a_i, w_i) (a_i = x_{i+1},
 * b_i = x_{i+2}, ccw) its edge opposite b_i, (a_i, w_i) with wing slot
 * 6 + 2i, and opposite a_i, (w_i, b_i) with wing slot 7 + 2i */
static const int morley_hinge_slots[9][4] = {
    {1, 2, 0, 3}, {2, 0, 1, 4}, {0, 1, 2, 5},  {1, 3, 2, 6},  {3, 2, 1, 7},
    {2, 4, 0, 8}, {4, 0, 2, 9}, {0, 5, 1, 10}, {5, 1, 0, 11}};

/* c_q = n . (S_q m - g(S_q)) for the 2D triangle p: the normal slope at m
 * of the quadratic x^T S_q x / 2 minus that of its linear interpolant */
static void slope_row(const double (*p)[2], const double *n, const double *m, double *c) {
  double t6[6] = {p[0][0], p[0][1], p[1][0], p[1][1], p[2][0], p[2][1]};
  for (int q = 0; q < 3; q++) {
    double S0[3] = {q == 0, q == 1, q == 2}, g[2];
    quad_interp_grad(t6, S0, g);
    double Sm[2] = {S0[0] * m[0] + S0[1] * m[1], S0[1] * m[0] + S0[2] * m[1]};
    c[q] = n[0] * (Sm[0] - g[0]) + n[1] * (Sm[1] - g[1]);
  }
}

int tide_shell_bend_morley_rest(const double *X, int present, double nu, double *K) {
  double P[12][2], A;
  int st = tri_frame(X, P, &A);
  if (st) return st;
  /* develop the stencil into the triangle's plane: the wings across its
   * edges, then the neighbours' wings across theirs */
  for (int i = 0; i < 3; i++) {
    int a = (i + 1) % 3, b = (i + 2) % 3;
    if (!(present & (1 << (3 + i)))) continue;
    if (!unfold(X + a * 3, X + b * 3, X + (3 + i) * 3, P[a], P[b], P[i], P[3 + i]))
      return tide_fail(TIDE_EINVAL, "degenerate bending stencil (a wing on its edge)");
    int ea[2][3] = {{a, 3 + i, b}, {3 + i, b, a}}; /* edge nodes, the third node */
    for (int k = 0; k < 2; k++) {
      int s = 6 + 2 * i + k;
      if ((present & (1 << s)) && !unfold(X + ea[k][0] * 3, X + ea[k][1] * 3, X + s * 3,
                                          P[ea[k][0]], P[ea[k][1]], P[ea[k][2]], P[s]))
        return tide_fail(TIDE_EINVAL, "degenerate bending stencil (a wing on its edge)");
    }
  }
  /* the triangle's fit S_T = M_T^-1 theta_T */
  double M[9], MTi[9];
  bend_fit((const double (*)[2])P, present >> 3 & 7, nu, M);
  if (!fit_inverse(M, MTi))
    return tide_fail(TIDE_EINVAL, "degenerate bending stencil (singular curvature fit)");
  /* the deviation of the shared mid-edge normal slope from the triangle's
   * linear one, dphi = L theta (3 x 9): for an edge with a neighbour the
   * mean of the two fitted quadratics' slopes, 1/2 theta_i + 1/2 n_i .
   * (c_T(S_T) + c_N(S_N)); Mo (3x3) the Morley map s -> dphi */
  double Lm[27], Mo[9];
  memset(Lm, 0, sizeof Lm);
  int freeedge = 0;
  for (int i = 0; i < 3; i++) {
    double t[2], n[2], mid[2], cT[3];
    tri_edge((const double (*)[2])P, i, t, n, mid);
    slope_row((const double (*)[2])P, n, mid, cT);
    memcpy(Mo + i * 3, cT, sizeof cT);
    if (!(present & (1 << (3 + i)))) {
      freeedge |= 1 << i;
      continue;
    }
    int a = (i + 1) % 3, b = (i + 2) % 3;
    double PN[6][2];
    const int sl[6] = {b, a, 3 + i, 6 + 2 * i, 7 + 2 * i, i};
    for (int r = 0; r < 6; r++) PN[r][0] = P[sl[r]][0], PN[r][1] = P[sl[r]][1];
    int presN = (present >> (6 + 2 * i) & 3) | 4;
    double MN[9], MNi[9], cN[3];
    bend_fit((const double (*)[2])PN, presN, nu, M);
    memcpy(MN, M, sizeof MN);
    if (!fit_inverse(MN, MNi))
      return tide_fail(TIDE_EINVAL, "degenerate bending stencil (singular neighbour fit)");
    slope_row((const double (*)[2])PN, n, mid, cN);
    Lm[i * 9 + i] += 0.5;
    /* theta_T = hinges 0, 1, 2 (free ones are 0); theta_N = (hinge 3 + 2i,
     * hinge 4 + 2i, hinge i) */
    const int hN[3] = {3 + 2 * i, 4 + 2 * i, i};
    for (int j = 0; j < 3; j++) {
      double uT = 0, uN = 0;
      for (int q = 0; q < 3; q++) {
        uT += cT[q] * MTi[q * 3 + j];
        uN += cN[q] * MNi[q * 3 + j];
      }
      if (present & (1 << (3 + j))) Lm[i * 9 + j] += 0.5 * uT;
      if (j == 2 || (presN & (1 << j))) Lm[i * 9 + hN[j]] += 0.5 * uN;
    }
  }
  double Moi[9], Q[9];
  if (!fit_inverse(Mo, Moi))
    return tide_fail(TIDE_EINVAL, "degenerate bending stencil (singular Morley map)");
  /* E = (D A / 2) s^T C s with s = Mo^-1 dphi: Q = A Mo^-T C Mo^-1; the
   * slope of a free edge is the triangle's own unknown, eliminated by
   * minimizing E (static condensation: the free edge's natural condition) */
  plate_weight(Moi, nu, A, Q);
  for (int f = 0; f < 3; f++) {
    if (!(freeedge & (1 << f))) continue;
    double d = Q[f * 3 + f], Qn[9];
    if (!(d > 0)) return tide_fail(TIDE_EINVAL, "degenerate bending stencil (free edge)");
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        Qn[i * 3 + j] = (i == f || j == f) ? 0 : Q[i * 3 + j] - Q[i * 3 + f] * Q[f * 3 + j] / d;
    memcpy(Q, Qn, sizeof Q);
  }
  /* K = L^T Q L (9x9) */
  for (int r = 0; r < 9; r++)
    for (int c = 0; c < 9; c++) {
      double s = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) s += Lm[i * 9 + r] * Q[i * 3 + j] * Lm[j * 9 + c];
      K[r * 9 + c] = s;
    }
  return TIDE_OK;
}

void tide_shell_bend_morley(const double *x, const double *theta0, const double *K, int project,
                            double *E, double *grad, double *hess) {
  bend_hinges(12, 9, morley_hinge_slots, x, theta0, K, project ? 2 : 0, E, grad, hess);
}
