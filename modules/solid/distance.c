/*
 * distance.c -- IPC primitive distances with gradients and Hessians (see
 * distance.h).  Each closed form is written over the difference vectors
 * v_k = x[hi_k] - x[lo_k] of the stencil and mapped to the stencil's
 * coordinates (a linear map, so the Hessian maps as S^T H S).
 */
#include "solid/distance.h"
#include "solid/small.h"

#include <math.h>
#include <string.h>

#define MAXV 9 /* up to 3 difference vectors of 3 components */

/* a closed form over nv difference vectors of dimension d */
typedef struct vform {
  int d, nv;
  int lo[3], hi[3]; /* v_k = x[hi_k] - x[lo_k] (stencil point indices) */
  double f, g[MAXV], H[MAXV * MAXV];
} vform;

/* f = N / D over n variables */
static void quotient(int n, double N, const double *gN, const double *HN, double D, const double *gD,
                     const double *HD, double *f, double *g, double *H) {
  *f = N / D;
  for (int i = 0; i < n; i++) g[i] = gN[i] / D - N * gD[i] / (D * D);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      H[i * n + j] = HN[i * n + j] / D - (gN[i] * gD[j] + gD[i] * gN[j]) / (D * D) +
                     2 * N * gD[i] * gD[j] / (D * D * D) - N * HD[i * n + j] / (D * D);
}

/* |a x b|^2 in 3D over (a, b) placed at variable offsets oa, ob of an
 * n-variable form: value, gradient and Hessian added */
static void cross_sq(const double *a, const double *b, int oa, int ob, int n, double *val,
                     double *g, double *H) {
  double w[3];
  tide_cross3(a, b, w);
  *val = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
  /* J (3 x 6): dw/da = -[b]x, dw/db = [a]x */
  double J[3][6] = {{0, b[2], -b[1], 0, -a[2], a[1]},
                    {-b[2], 0, b[0], a[2], 0, -a[0]},
                    {b[1], -b[0], 0, -a[1], a[0], 0}};
  int off[6] = {oa, oa + 1, oa + 2, ob, ob + 1, ob + 2};
  for (int j = 0; j < 6; j++) {
    double t = 0;
    for (int i = 0; i < 3; i++) t += J[i][j] * w[i];
    g[off[j]] += 2 * t;
  }
  for (int j = 0; j < 6; j++)
    for (int l = 0; l < 6; l++) {
      double t = 0;
      for (int i = 0; i < 3; i++) t += J[i][j] * J[i][l];
      H[off[j] * n + off[l]] += 2 * t;
    }
  /* 2 sum_i w_i d2 w_i / da_j db_k = 2 sum_i w_i eps_ijk = 2 [w]x^T ... */
  double M[3][3] = {{0, w[2], -w[1]}, {-w[2], 0, w[0]}, {w[1], -w[0], 0}}; /* sum_i w_i eps_ijk */
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) {
      H[(oa + j) * n + ob + k] += 2 * M[j][k];
      H[(ob + k) * n + oa + j] += 2 * M[j][k];
    }
}

/* point-point: |v1|^2 */
static void form_pp(const double *v, vform *F) {
  int d = F->d;
  memset(F->g, 0, sizeof F->g);
  memset(F->H, 0, sizeof F->H);
  F->f = 0;
  for (int i = 0; i < d; i++) {
    F->f += v[i] * v[i];
    F->g[i] = 2 * v[i];
    F->H[i * d + i] = 2;
  }
}

/* point-line: |v1 x v2|^2 / |v2|^2 (2D: the scalar cross product) */
static void form_pl(const double *v, vform *F) {
  int d = F->d, n = 2 * d;
  double N, gN[6] = {0}, HN[36] = {0}, D = 0, gD[6] = {0}, HD[36] = {0};
  const double *v1 = v, *v2 = v + d;
  if (d == 3) {
    cross_sq(v1, v2, 0, 3, n, &N, gN, HN);
  } else {
    double c = v1[0] * v2[1] - v1[1] * v2[0], gc[4] = {v2[1], -v2[0], -v1[1], v1[0]};
    N = c * c;
    for (int i = 0; i < 4; i++) gN[i] = 2 * c * gc[i];
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) HN[i * 4 + j] = 2 * gc[i] * gc[j];
    HN[0 * 4 + 3] += 2 * c, HN[3 * 4 + 0] += 2 * c;
    HN[1 * 4 + 2] -= 2 * c, HN[2 * 4 + 1] -= 2 * c;
  }
  for (int i = 0; i < d; i++) {
    D += v2[i] * v2[i];
    gD[d + i] = 2 * v2[i];
    HD[(d + i) * n + d + i] = 2;
  }
  quotient(n, N, gN, HN, D, gD, HD, &F->f, F->g, F->H);
}

/* point-plane / line-line: (v1 . (v2 x v3))^2 / |v2 x v3|^2 */
static void form_pv(const double *v, vform *F) {
  const double *v1 = v, *v2 = v + 3, *v3 = v + 6;
  double w[3], g23[3], g31[3], g12[3];
  tide_cross3(v2, v3, g23);
  tide_cross3(v3, v1, g31);
  tide_cross3(v1, v2, g12);
  memcpy(w, g23, sizeof w);
  double u = v1[0] * w[0] + v1[1] * w[1] + v1[2] * w[2], gu[9], Hu[81] = {0};
  memcpy(gu, g23, sizeof g23);
  memcpy(gu + 3, g31, sizeof g31);
  memcpy(gu + 6, g12, sizeof g12);
  /* Hessian blocks of the triple product: H12 = -[v3]x, H13 = [v2]x, H23 = -[v1]x */
  const double *cv[3] = {v3, v2, v1};
  const int bi[3] = {0, 0, 1}, bj[3] = {1, 2, 2};
  const double sg[3] = {-1, 1, -1};
  for (int q = 0; q < 3; q++) {
    const double *c = cv[q];
    double X[3][3] = {{0, -c[2], c[1]}, {c[2], 0, -c[0]}, {-c[1], c[0], 0}};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        Hu[(bi[q] * 3 + i) * 9 + bj[q] * 3 + j] = sg[q] * X[i][j];
        Hu[(bj[q] * 3 + j) * 9 + bi[q] * 3 + i] = sg[q] * X[i][j];
      }
  }
  double N = u * u, gN[9], HN[81];
  for (int i = 0; i < 9; i++) gN[i] = 2 * u * gu[i];
  for (int i = 0; i < 9; i++)
    for (int j = 0; j < 9; j++) HN[i * 9 + j] = 2 * gu[i] * gu[j] + 2 * u * Hu[i * 9 + j];
  double D, gD[9] = {0}, HD[81] = {0};
  cross_sq(v2, v3, 3, 6, 9, &D, gD, HD);
  quotient(9, N, gN, HN, D, gD, HD, &F->f, F->g, F->H);
}

/* evaluate the form F (lo/hi, kind set) at stencil positions x (np points)
 * and map to the stencil's coordinates */
static void eval_form(int kind, vform *F, int np, const double *x, double *d2, double *grad,
                      double *hess) {
  int d = F->d;
  double v[MAXV];
  for (int k = 0; k < F->nv; k++)
    for (int i = 0; i < d; i++) v[k * d + i] = x[F->hi[k] * d + i] - x[F->lo[k] * d + i];
  if (kind == TIDE_DIST_PP)
    form_pp(v, F);
  else if (kind == TIDE_DIST_PE)
    form_pl(v, F);
  else
    form_pv(v, F);
  if (d2) *d2 = F->f;
  int n = np * d, nvd = F->nv * d;
  /* S[k][p] = +1 if p == hi_k, -1 if p == lo_k */
  double S[3][4];
  memset(S, 0, sizeof S);
  for (int k = 0; k < F->nv; k++) {
    S[k][F->hi[k]] += 1;
    S[k][F->lo[k]] -= 1;
  }
  if (grad)
    for (int p = 0; p < np; p++)
      for (int i = 0; i < d; i++) {
        double s = 0;
        for (int k = 0; k < F->nv; k++) s += S[k][p] * F->g[k * d + i];
        grad[p * d + i] = s;
      }
  if (hess)
    for (int p = 0; p < np; p++)
      for (int i = 0; i < d; i++)
        for (int q = 0; q < np; q++)
          for (int j = 0; j < d; j++) {
            double s = 0;
            for (int k = 0; k < F->nv; k++)
              for (int l = 0; l < F->nv; l++)
                if (S[k][p] != 0 && S[l][q] != 0) s += S[k][p] * S[l][q] * F->H[(k * d + i) * nvd + l * d + j];
            hess[(p * d + i) * n + q * d + j] = s;
          }
}

/* set up a form: kind, the stencil points involved in order (first the
 * "point", then the feature's points) */
static void setup(vform *F, int d, int kind, const int *pts) {
  F->d = d;
  if (kind == TIDE_DIST_PP) {
    F->nv = 1;
    F->hi[0] = pts[0], F->lo[0] = pts[1];
  } else if (kind == TIDE_DIST_PE) {
    F->nv = 2;
    F->hi[0] = pts[0], F->lo[0] = pts[1]; /* p - a */
    F->hi[1] = pts[2], F->lo[1] = pts[1]; /* b - a */
  } else if (kind == TIDE_DIST_PT) {
    F->nv = 3;
    F->hi[0] = pts[0], F->lo[0] = pts[1]; /* p - a */
    F->hi[1] = pts[2], F->lo[1] = pts[1]; /* b - a */
    F->hi[2] = pts[3], F->lo[2] = pts[1]; /* c - a */
  } else { /* EE: pts = a0, a1, b0, b1 */
    F->nv = 3;
    F->hi[0] = pts[2], F->lo[0] = pts[0]; /* b0 - a0 */
    F->hi[1] = pts[1], F->lo[1] = pts[0]; /* a1 - a0 */
    F->hi[2] = pts[3], F->lo[2] = pts[2]; /* b1 - b0 */
  }
}

static double dot(int d, const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < d; i++) s += a[i] * b[i];
  return s;
}

/* the point-segment type and its points: p against (a, b) */
static int pe_type(int d, const double *p, const double *a, const double *b, int ip, int ia,
                   int ib, int *pts) {
  double ab[3], ap[3];
  for (int i = 0; i < d; i++) {
    ab[i] = b[i] - a[i];
    ap[i] = p[i] - a[i];
  }
  double t = dot(d, ap, ab), l2 = dot(d, ab, ab);
  pts[0] = ip;
  if (!(l2 > 0) || t <= 0) {
    pts[1] = ia;
    return TIDE_DIST_PP;
  }
  if (t >= l2) {
    pts[1] = ib;
    return TIDE_DIST_PP;
  }
  pts[1] = ia, pts[2] = ib;
  return TIDE_DIST_PE;
}

static int point_edge(int d, const double *x, double *d2, double *grad, double *hess) {
  int pts[4];
  int kind = pe_type(d, x, x + d, x + 2 * d, 0, 1, 2, pts);
  vform F;
  setup(&F, d, kind, pts);
  eval_form(kind, &F, 3, x, d2, grad, hess);
  return kind;
}

int tide_dist_point_edge_2d(const double *x, double *d2, double *grad, double *hess) {
  return point_edge(2, x, d2, grad, hess);
}

int tide_dist_point_edge_3d(const double *x, double *d2, double *grad, double *hess) {
  return point_edge(3, x, d2, grad, hess);
}

int tide_dist_point_triangle(const double *x, double *d2, double *grad, double *hess) {
  const double *p = x, *a = x + 3, *b = x + 6, *c = x + 9;
  /* closest feature (Ericson, Real-Time Collision Detection 5.1.5) */
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  for (int i = 0; i < 3; i++) {
    ab[i] = b[i] - a[i];
    ac[i] = c[i] - a[i];
    ap[i] = p[i] - a[i];
    bp[i] = p[i] - b[i];
    cp[i] = p[i] - c[i];
  }
  double d1 = dot(3, ab, ap), d2_ = dot(3, ac, ap), d3 = dot(3, ab, bp), d4 = dot(3, ac, bp);
  double d5 = dot(3, ab, cp), d6 = dot(3, ac, cp);
  double va = d3 * d6 - d5 * d4, vb = d5 * d2_ - d1 * d6, vc = d1 * d4 - d3 * d2_;
  int kind, pts[4] = {0, 1, 2, 3};
  if (d1 <= 0 && d2_ <= 0) {
    kind = TIDE_DIST_PP, pts[1] = 1; /* vertex a */
  } else if (d3 >= 0 && d4 <= d3) {
    kind = TIDE_DIST_PP, pts[1] = 2; /* vertex b */
  } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    kind = TIDE_DIST_PE, pts[1] = 1, pts[2] = 2; /* edge ab */
  } else if (d6 >= 0 && d5 <= d6) {
    kind = TIDE_DIST_PP, pts[1] = 3; /* vertex c */
  } else if (vb <= 0 && d2_ >= 0 && d6 <= 0) {
    kind = TIDE_DIST_PE, pts[1] = 1, pts[2] = 3; /* edge ac */
  } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    kind = TIDE_DIST_PE, pts[1] = 2, pts[2] = 3; /* edge bc */
  } else {
    kind = TIDE_DIST_PT; /* interior */
  }
  vform F;
  setup(&F, 3, kind, pts);
  eval_form(kind, &F, 4, x, d2, grad, hess);
  return kind;
}

int tide_dist_edge_edge(const double *x, double *d2, double *grad, double *hess) {
  const double *a0 = x, *a1 = x + 3, *b0 = x + 6, *b1 = x + 9;
  double ea[3], eb[3], r[3], w[3];
  for (int i = 0; i < 3; i++) {
    ea[i] = a1[i] - a0[i];
    eb[i] = b1[i] - b0[i];
    r[i] = a0[i] - b0[i];
  }
  double A = dot(3, ea, ea), E = dot(3, eb, eb), B = dot(3, ea, eb), C = dot(3, ea, r),
         G = dot(3, eb, r);
  tide_cross3(ea, eb, w);
  double cr = dot(3, w, w);
  int kind, pts[4];
  vform F;
  if (!(cr > 1e-20 * A * E)) {
    /* parallel: the closest of the four endpoint-edge pairs */
    double best = HUGE_VAL;
    int bk = TIDE_DIST_PP, bp[4] = {0, 2, 0, 0};
    const int cand[4][3] = {{0, 2, 3}, {1, 2, 3}, {2, 0, 1}, {3, 0, 1}};
    for (int q = 0; q < 4; q++) {
      int pq[4];
      int k = pe_type(3, x + cand[q][0] * 3, x + cand[q][1] * 3, x + cand[q][2] * 3, cand[q][0],
                      cand[q][1], cand[q][2], pq);
      vform T;
      double dd;
      setup(&T, 3, k, pq);
      eval_form(k, &T, 4, x, &dd, NULL, NULL);
      if (dd < best) best = dd, bk = k, memcpy(bp, pq, sizeof bp);
    }
    kind = bk;
    memcpy(pts, bp, sizeof pts);
  } else {
    /* closest parameters (Ericson 5.1.9) */
    double den = A * E - B * B, s, t;
    s = den > 0 ? (B * G - C * E) / den : 0;
    s = s < 0 ? 0 : (s > 1 ? 1 : s);
    t = (B * s + G) / E;
    if (t < 0) {
      t = 0;
      s = -C / A;
      s = s < 0 ? 0 : (s > 1 ? 1 : s);
    } else if (t > 1) {
      t = 1;
      s = (B - C) / A;
      s = s < 0 ? 0 : (s > 1 ? 1 : s);
    }
    int sin = s > 0 && s < 1, tin = t > 0 && t < 1;
    if (sin && tin) {
      kind = TIDE_DIST_EE, pts[0] = 0, pts[1] = 1, pts[2] = 2, pts[3] = 3;
    } else if (tin) { /* endpoint of a against edge b */
      kind = TIDE_DIST_PE, pts[0] = s >= 1 ? 1 : 0, pts[1] = 2, pts[2] = 3;
    } else if (sin) { /* endpoint of b against edge a */
      kind = TIDE_DIST_PE, pts[0] = t >= 1 ? 3 : 2, pts[1] = 0, pts[2] = 1;
    } else {
      kind = TIDE_DIST_PP, pts[0] = s >= 1 ? 1 : 0, pts[1] = t >= 1 ? 3 : 2;
    }
  }
  setup(&F, 3, kind, pts);
  eval_form(kind, &F, 4, x, d2, grad, hess);
  return kind;
}

/* ------------------------------------------------------------ mollifier */

double tide_edge_mollifier_eps(const double *rest) {
  double ea = 0, eb = 0;
  for (int i = 0; i < 3; i++) {
    ea += (rest[3 + i] - rest[i]) * (rest[3 + i] - rest[i]);
    eb += (rest[9 + i] - rest[6 + i]) * (rest[9 + i] - rest[6 + i]);
  }
  return 1e-3 * ea * eb;
}

void tide_edge_mollifier(const double *x, double eps_x, double *m, double *grad, double *hess) {
  double ea[3], eb[3], c, g6[6] = {0}, H6[36] = {0};
  for (int i = 0; i < 3; i++) {
    ea[i] = x[3 + i] - x[i];
    eb[i] = x[9 + i] - x[6 + i];
  }
  cross_sq(ea, eb, 0, 3, 6, &c, g6, H6);
  double r = c / eps_x;
  if (m) *m = r < 1 ? (2 - r) * r : 1;
  if (!grad && !hess) return;
  double m1 = r < 1 ? (2 - 2 * r) / eps_x : 0, m2 = r < 1 ? -2 / (eps_x * eps_x) : 0;
  /* ea = x1 - x0, eb = x3 - x2 */
  static const double S[2][4] = {{-1, 1, 0, 0}, {0, 0, -1, 1}};
  if (grad)
    for (int p = 0; p < 4; p++)
      for (int i = 0; i < 3; i++)
        grad[p * 3 + i] = m1 * (S[0][p] * g6[i] + S[1][p] * g6[3 + i]);
  if (hess)
    for (int p = 0; p < 4; p++)
      for (int i = 0; i < 3; i++)
        for (int q = 0; q < 4; q++)
          for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 2; k++)
              for (int l = 0; l < 2; l++)
                s += S[k][p] * S[l][q] *
                     (m2 * g6[k * 3 + i] * g6[l * 3 + j] + m1 * H6[(k * 3 + i) * 6 + l * 3 + j]);
            hess[(p * 3 + i) * 12 + q * 3 + j] = s;
          }
}
