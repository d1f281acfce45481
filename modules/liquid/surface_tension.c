/* surface_tension.c -- curvature, ghost-fluid pressure jump and the
 * semi-implicit narrow-band surface tension of Liu et al. Eq. 8 (see
 * surface_tension.h). */
#include "liquid/surface_tension.h"
#include "linalg/mac_poisson.h"
#include "liquid/periodic.h"

#include <math.h>
#include <string.h>

/* The boundary of the level set: periodic axes, and the static contact
 * angle theta at the domain walls as cot theta (0: 90 degrees). */
typedef struct tbc {
  int per[3];
  double cot;
} tbc;

/* phi at cell I (each index at most one cell outside the grid): periodic
 * axes wrap; beyond a wall the contact-angle extension (Sussman 2001;
 * Afkhami & Bussmann 2008): the liquid's outward normal n meets the
 * wall's inward normal e at the contact angle, n.e = cos theta, i.e.
 * d phi / d e = |grad phi| cos theta = |grad_t phi| cot theta with the
 * gradient along the wall, so the ghost cell (the mirror image of the edge
 * cell, one dx away) gets
 *   phi_ghost = phi_edge - dx |grad_t phi_edge| cot theta
 * (90 degrees: the mirror image); grad_t by differences inside the domain
 * (one-sided at an edge).  Corners: one term per wall crossed. */
static double phi_ext(const tide_grid *g, const double *phi, const tbc *B, const int I[3]) {
  const int *per = B->per;
  int J[3] = {I[0], I[1], I[2]}, out[3] = {0, 0, 0}, any = 0;
  for (int d = 0; d < 3; d++) {
    if (J[d] >= 0 && J[d] < g->n[d]) continue;
    if (per[d]) {
      J[d] = tide_periodic_index(J[d], g->n[d], 1);
    } else if (g->n[d] < 2) {
      J[d] = 0;
    } else { /* the mirror image across the wall, m cells deep */
      int m = J[d] < 0 ? -J[d] : J[d] - g->n[d] + 1;
      J[d] = J[d] < 0 ? -1 - J[d] : 2 * g->n[d] - 1 - J[d];
      J[d] = J[d] < 0 ? 0 : J[d] >= g->n[d] ? g->n[d] - 1 : J[d];
      out[d] = m;
      any = 1;
    }
  }
  double v = phi[tide_grid_idx(g, J[0], J[1], J[2])];
  if (!any || B->cot == 0) return v;
  double gr[3] = {0, 0, 0};
  for (int t = 0; t < g->dim; t++) {
    int P[3] = {J[0], J[1], J[2]}, M[3] = {J[0], J[1], J[2]};
    P[t] += 1;
    M[t] -= 1;
    if (per[t]) {
      P[t] = tide_periodic_index(P[t], g->n[t], 1);
      M[t] = tide_periodic_index(M[t], g->n[t], 1);
    }
    if (P[t] >= g->n[t]) P[t] = J[t];
    if (M[t] < 0) M[t] = J[t];
    if (P[t] == M[t]) continue;
    gr[t] = (phi[tide_grid_idx(g, P[0], P[1], P[2])] - phi[tide_grid_idx(g, M[0], M[1], M[2])]) /
            ((P[t] - M[t] + (P[t] < M[t] ? g->n[t] : 0)) * g->dx);
  }
  for (int d = 0; d < g->dim; d++) {
    if (!out[d]) continue;
    double gt2 = 0;
    for (int t = 0; t < g->dim; t++)
      if (t != d) gt2 += gr[t] * gr[t];
    v -= (2 * out[d] - 1) * g->dx * sqrt(gt2) * B->cot;
  }
  return v;
}

static inline double phi_at(const tide_grid *g, const double *phi, const tbc *B, const int c[3],
                            const int off[3]) {
  int I[3] = {c[0] + off[0], c[1] + off[1], c[2] + off[2]};
  return phi_ext(g, phi, B, I);
}

/* first derivatives and the Hessian of phi at cell c by fourth-order
 * central differences (five cells per axis; the mixed terms as the product
 * of the two first-derivative stencils, 4 x 4 cells):
 *   phi_a  = (phi_-2 - 8 phi_-1 + 8 phi_1 - phi_2) / (12 dx)
 *   phi_aa = (-phi_-2 + 16 phi_-1 - 30 phi_0 + 16 phi_1 - phi_2) / (12 dx^2)
 * Why fourth order: the jump of a drop at rest is balanced only as far as
 * the curvature is the same on every face; with second-order differences the
 * cell curvatures of a circle of 12.5 cells radius, moved to the surface,
 * spread by +-0.14% face to face and drove spurious currents of 1e-3
 * sqrt(sigma/(rho D)); fourth order: +-0.007%, 3e-5 (docs/liquids-physics.md,
 * "The default").  Beyond a wall the cells are the contact-angle mirror
 * images (phi_ext). */
static void derivs(const tide_grid *g, const double *phi, const tbc *B, const int c[3],
                   double d1[3], double d2[3][3]) {
  static const int off4[4] = {-2, -1, 1, 2};
  static const double w4[4] = {1, -8, 8, -1};
  int dim = g->dim;
  double h = g->dx;
  for (int a = 0; a < 3; a++) {
    d1[a] = 0;
    for (int b = 0; b < 3; b++)
      d2[a][b] = 0;
  }
  for (int a = 0; a < dim; a++) {
    int o[3] = {0, 0, 0};
    double f[5];
    for (int q = -2; q <= 2; q++) {
      o[a] = q;
      f[q + 2] = phi_at(g, phi, B, c, o);
    }
    d1[a] = (f[0] - 8 * f[1] + 8 * f[3] - f[4]) / (12 * h);
    d2[a][a] = (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) / (12 * h * h);
    for (int b = a + 1; b < dim; b++) {
      double m = 0;
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
          int oo[3] = {0, 0, 0};
          oo[a] = off4[i], oo[b] = off4[j];
          m += w4[i] * w4[j] * phi_at(g, phi, B, c, oo);
        }
      d2[a][b] = d2[b][a] = m / (144 * h * h);
    }
  }
}

/* the boundary of the level set from the periodic axes and the contact
 * angle [rad] (0: 90 degrees), checked */
static int make_tbc(const tide_grid *g, const int per[3], double angle, tbc *B) {
  for (int d = 0; d < 3; d++) {
    if (per[d] && (d >= g->dim || g->n[d] < 2))
      return tide_fail(TIDE_EINVAL, "periodic axis %d needs at least 2 cells of a %dD grid", d + 1,
                       g->dim);
    B->per[d] = per[d] != 0;
  }
  if (!(angle >= 0 && angle < M_PI))
    return tide_fail(TIDE_EINVAL, "contact angle must be in (0, pi) radians (0 < degrees < 180)");
  B->cot = angle == 0 ? 0 : cos(angle) / sin(angle);
  if (fabs(B->cot) < 1e-15) B->cot = 0;
  return TIDE_OK;
}

static const int no_per[3] = {0, 0, 0};

/* ------------------------------------- curvature at the interface crossings */

/* phi at cell c + k e_a (k in -1..2) */
static inline double phi_axis(const tide_grid *g, const double *phi, const tbc *B,
                              const int c[3], int a, int k) {
  int off[3] = {0, 0, 0};
  off[a] = k;
  return phi_at(g, phi, B, c, off);
}

/* Zero of the phi profile between cell lo (s = 0) and lo + e_a (s = 1),
 * which have phi of opposite signs: the root of the cubic through the four
 * cells lo - 1 .. lo + 2 along a (fourth-order in the position), by
 * Newton's method safeguarded by bisection on [0, 1]. */
static double crossing(const tide_grid *g, const double *phi, const tbc *B, const int lo[3],
                       int a) {
  double f0 = phi_axis(g, phi, B, lo, a, -1), f1 = phi_axis(g, phi, B, lo, a, 0);
  double f2 = phi_axis(g, phi, B, lo, a, 1), f3 = phi_axis(g, phi, B, lo, a, 2);
  /* p(x) = f1 + x (c1 + x (c2 + x c3)) through x = -1, 0, 1, 2 */
  double c1 = -f0 / 3 - f1 / 2 + f2 - f3 / 6, c2 = (f0 + f2) / 2 - f1,
         c3 = (f3 - f0) / 6 + (f1 - f2) / 2;
  double a0 = 0, a1 = 1, x = f1 / (f1 - f2);
  int up = f2 > f1; /* p increasing across the bracket */
  for (int it = 0; it < 40; it++) {
    double v = f1 + x * (c1 + x * (c2 + x * c3)), dv = c1 + x * (2 * c2 + 3 * x * c3);
    if ((v < 0) == up)
      a0 = x;
    else
      a1 = x;
    double xn = dv != 0 ? x - v / dv : 0.5 * (a0 + a1);
    if (!(xn > a0 && xn < a1)) xn = 0.5 * (a0 + a1);
    if (fabs(xn - x) < 1e-13) return xn;
    x = xn;
  }
  return x;
}

/* gradient of phi at cell c by central differences */
static void grad_cell(const tide_grid *g, const double *phi, const tbc *B, const int c[3],
                      double gr[3]) {
  for (int a = 0; a < 3; a++)
    gr[a] = 0;
  for (int a = 0; a < g->dim; a++)
    gr[a] = phi_axis(g, phi, B, c, a, 1) - phi_axis(g, phi, B, c, a, -1);
}

/* cell-centre curvature (tide_liquid_curvature's formula, unclamped) */
static double kappa_cell(const tide_grid *g, const double *phi, const tbc *B, const int c[3]) {
  int dim = g->dim;
  double d1[3], d2[3][3];
  derivs(g, phi, B, c, d1, d2);
  double g2 = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
  if (!(g2 > 1e-24)) return 0;
  double num = 0;
  for (int a = 0; a < dim; a++) {
    double s = 0;
    for (int b = 0; b < dim; b++)
      if (b != a) s += d1[b] * d1[b];
    num += d2[a][a] * s;
    for (int b = a + 1; b < dim; b++)
      num -= 2 * d1[a] * d1[b] * d2[a][b];
  }
  double k = num / (g2 * sqrt(g2));
  return isfinite(k) ? k : 0;
}

/* Gaussian curvature of the level set at cell c (3D; 0 in 2D) [1/m^2]:
 * K = grad phi^T adj(Hess phi) grad phi / |grad phi|^4 (Goldman 2005) */
static double gauss_cell(const tide_grid *g, const double *phi, const tbc *B, const int c[3]) {
  if (g->dim < 3) return 0;
  double d1[3], h[3][3];
  derivs(g, phi, B, c, d1, h);
  double g2 = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
  if (!(g2 > 1e-24)) return 0;
  double adj[3][3] = {{h[1][1] * h[2][2] - h[1][2] * h[2][1], h[0][2] * h[2][1] - h[0][1] * h[2][2],
                       h[0][1] * h[1][2] - h[0][2] * h[1][1]},
                      {h[1][2] * h[2][0] - h[1][0] * h[2][2], h[0][0] * h[2][2] - h[0][2] * h[2][0],
                       h[0][2] * h[1][0] - h[0][0] * h[1][2]},
                      {h[1][0] * h[2][1] - h[1][1] * h[2][0], h[0][1] * h[2][0] - h[0][0] * h[2][1],
                       h[0][0] * h[1][1] - h[0][1] * h[1][0]}};
  double num = 0;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      num += d1[a] * adj[a][b] * d1[b];
  double K = num / (g2 * g2);
  return isfinite(K) ? K : 0;
}

int tide_liquid_curvature(const tide_grid *g, const double *phi, const int per[3], double *kappa) {
  tide_surface_walls w = {{per[0], per[1], per[2]}, 0};
  return tide_liquid_curvature_walls(g, phi, &w, kappa);
}

static int curv_cells(const tide_grid *g, const double *phi, const tbc *B, double *kappa) {
  double kmax = 1.0 / g->dx;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k};
        kappa[tide_grid_idx(g, i, j, k)] = fmin(kmax, fmax(-kmax, kappa_cell(g, phi, B, c)));
      }
  return TIDE_OK;
}

int tide_liquid_curvature_walls(const tide_grid *g, const double *phi, const tide_surface_walls *w,
                                double *kappa) {
  int st;
  tbc Bv;
  if ((st = make_tbc(g, w ? w->periodic : no_per, w ? w->contact_angle : 0, &Bv))) return st;
  return curv_cells(g, phi, &Bv, kappa);
}

/* the crossings of the grid lines: per axis a and face F (the face between
 * cells F - e_a and F, F[a] in 1..n[a]; F[a] = n[a] only on a periodic axis,
 * the face wrapping to cell 0) the position s in (0, 1) from the low cell
 * (NaN: no sign change) and the unit normal grad phi / |grad phi| there */
typedef struct crossings {
  double *s[3], *nrm[3];
  int64_t nf[3];
} crossings;

static void crossings_free(crossings *X, int dim) {
  for (int a = 0; a < 3; a++) {
    tide_free(X->s[a], (size_t)X->nf[a] * sizeof(double));
    tide_free(X->nrm[a], (size_t)X->nf[a] * dim * sizeof(double));
  }
}

static int crossings_build(const tide_grid *g, const double *phi, const tbc *B, crossings *X) {
  const int *per = B->per;
  int dim = g->dim;
  memset(X, 0, sizeof *X);
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    X->nf[a] = (int64_t)fd[0] * fd[1] * fd[2];
    X->s[a] = tide_alloc((size_t)X->nf[a] * sizeof(double));
    X->nrm[a] = tide_alloc((size_t)X->nf[a] * dim * sizeof(double));
    if (!X->s[a] || !X->nrm[a]) {
      crossings_free(X, dim);
      return TIDE_ENOMEM;
    }
    double *sa = X->s[a], *na = X->nrm[a];
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          int F[3] = {i, j, k};
          sa[f] = NAN;
          for (int d = 0; d < dim; d++)
            na[f * dim + d] = 0;
          if (F[a] == 0 || (F[a] == g->n[a] && !per[a])) continue;
          int lo[3] = {i, j, k}, hi[3] = {i, j, k};
          lo[a] -= 1;
          if (hi[a] == g->n[a]) hi[a] = 0;
          double pl = phi[tide_grid_idx(g, lo[0], lo[1], lo[2])],
                 ph = phi[tide_grid_idx(g, hi[0], hi[1], hi[2])];
          if ((pl < 0) == (ph < 0)) continue;
          double x = crossing(g, phi, B, lo, a), gl[3], gh[3], nn[3], len = 0;
          grad_cell(g, phi, B, lo, gl);
          grad_cell(g, phi, B, hi, gh);
          for (int d = 0; d < dim; d++) {
            nn[d] = gl[d] + x * (gh[d] - gl[d]);
            len += nn[d] * nn[d];
          }
          if (!(len > 0)) { /* flat phi: the axis direction */
            for (int d = 0; d < dim; d++)
              nn[d] = d == a ? (ph > pl ? 1 : -1) : 0;
            len = 1;
          }
          len = sqrt(len);
          sa[f] = x;
          for (int d = 0; d < dim; d++)
            na[f * dim + d] = nn[d] / len;
        }
  }
  return TIDE_OK;
}

/* the crossing nearest to position h (in cells along axis d from the
 * centre of cell 0) on the grid line of axis d through cell C (C[d]
 * ignored), with orientation o (+1: phi increasing along d), within 3.5
 * cells; its position (cells) in *hc and face index in F; 0 if none */
static int line_crossing(const tide_grid *g, const tbc *B, const crossings *X, int d,
                         const int C[3], double h, int o, const double *phi, double *hc) {
  const int *per = B->per;
  int n = g->n[d], c0 = (int)floor(h), best = 0;
  double bd = 3.5;
  for (int F = c0 - 3; F <= c0 + 4; F++) {
    int Fw = F;
    if (per[d]) {
      Fw = tide_periodic_index(F - 1, n, 1) + 1; /* faces 1..n, n = the wrap face */
    } else if (F < 1 || F > n - 1) {
      continue;
    }
    int I[3] = {C[0], C[1], C[2]};
    I[d] = Fw;
    int64_t f = tide_grid_fidx(g, d, I[0], I[1], I[2]);
    double sq = X->s[d][f];
    if (isnan(sq)) continue;
    int lo[3] = {C[0], C[1], C[2]}, hi[3] = {C[0], C[1], C[2]};
    lo[d] = Fw - 1;
    hi[d] = Fw == n ? 0 : Fw;
    int oq = phi[tide_grid_idx(g, hi[0], hi[1], hi[2])] > phi[tide_grid_idx(g, lo[0], lo[1], lo[2])]
                 ? 1
                 : -1;
    if (oq != o) continue;
    double pos = F - 1 + sq, dist = fabs(pos - h);
    if (dist < bd) {
      bd = dist;
      *hc = pos;
      best = 1;
    }
  }
  return best;
}

/* Solve the 6 x 6 SPD system A x = b by Cholesky; 0 if a pivot falls
 * below 1e-10 of the largest diagonal entry. */
static int chol6(double A[6][6], double b[6], double x[6]) {
  double dmax = 0;
  for (int i = 0; i < 6; i++)
    dmax = fmax(dmax, A[i][i]);
  if (!(dmax > 0)) return 0;
  for (int j = 0; j < 6; j++) {
    double d = A[j][j];
    for (int q = 0; q < j; q++)
      d -= A[j][q] * A[j][q];
    if (!(d > 1e-10 * dmax)) return 0;
    A[j][j] = sqrt(d);
    for (int i = j + 1; i < 6; i++) {
      double v = A[i][j];
      for (int q = 0; q < j; q++)
        v -= A[i][q] * A[j][q];
      A[i][j] = v / A[j][j];
    }
  }
  for (int i = 0; i < 6; i++) {
    double v = b[i];
    for (int q = 0; q < i; q++)
      v -= A[i][q] * x[q];
    x[i] = v / A[i][i];
  }
  for (int i = 5; i >= 0; i--) {
    double v = x[i];
    for (int q = i + 1; q < 6; q++)
      v -= A[q][i] * x[q];
    x[i] = v / A[i][i];
  }
  return 1;
}

/* 3D: mean curvature (sum of the principal curvatures, positive where the
 * graph bends towards +h, cells^-1) of the 3 x 3 heights H[u][v] (u, v =
 * -1..1 cells, H[1][1] at the centre) by a least-squares quadric fitted in
 * the frame of the surface's own tangent plane (normal from the central
 * slopes): the plain central differences of h lose accuracy where the
 * slopes approach 1 (their error grows with the fourth derivative of h:
 * 3-4% on a sphere of 7 cells radius), the rotated fit stays at the
 * accuracy of a near-flat stencil (< 1%).  The four corner heights get
 * weight 0.02: they fix the twist term, the five-point cross fixes the rest
 * (equal weights bias the curvature by the quartic part of the surface,
 * 1.2-2% on that sphere). */
static int quadric_kappa(double H[3][3], double *kap, double *gau) {
  double hu = 0.5 * (H[2][1] - H[0][1]), hv = 0.5 * (H[1][2] - H[1][0]);
  double nz = 1 / sqrt(1 + hu * hu + hv * hv), n[3] = {-hu * nz, -hv * nz, nz};
  /* tangents: t1 along (1, 0, hu) normalized, t2 = n x t1 */
  double l1 = sqrt(1 + hu * hu), t1[3] = {1 / l1, 0, hu / l1};
  double t2[3] = {n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2],
                  n[0] * t1[1] - n[1] * t1[0]};
  double A[6][6], b[6], c[6];
  memset(A, 0, sizeof A);
  memset(b, 0, sizeof b);
  for (int u = -1; u <= 1; u++)
    for (int v = -1; v <= 1; v++) {
      double P[3] = {u, v, H[u + 1][v + 1] - H[1][1]};
      double x = P[0] * t1[0] + P[1] * t1[1] + P[2] * t1[2],
             y = P[0] * t2[0] + P[1] * t2[1] + P[2] * t2[2];
      double z = P[0] * n[0] + P[1] * n[1] + P[2] * n[2];
      double f[6] = {1, x, y, x * x, x * y, y * y}, w = u && v ? 0.02 : 1;
      for (int r = 0; r < 6; r++) {
        b[r] += w * f[r] * z;
        for (int q = 0; q < 6; q++)
          A[r][q] += w * f[r] * f[q];
      }
    }
  if (!chol6(A, b, c)) return 0;
  double zx = c[1], zy = c[2], zxx = 2 * c[3], zxy = c[4], zyy = 2 * c[5];
  double w = 1 + zx * zx + zy * zy;
  *kap = ((1 + zy * zy) * zxx - 2 * zx * zy * zxy + (1 + zx * zx) * zyy) / pow(w, 1.5);
  *gau = (zxx * zyy - zxy * zxy) / (w * w);
  return isfinite(*kap) && isfinite(*gau);
}

/* Height-function curvature [CFK05, Pop09] at the crossing at position h0
 * on the axis-d grid line through cell C: the heights are the crossings of
 * the neighbouring parallel lines (3 in 2D, 3 x 3 in 3D) nearest to h0 with
 * the same orientation o; kappa = -o div(grad h / sqrt(1 + |grad h|^2))
 * by central differences [1/m] (3D: the quadric fit), and the Gaussian
 * curvature *gau [1/m^2] (0 in 2D); 0 if a neighbour line has no crossing. */
static int hf_kappa(const tide_grid *g, const tbc *B, const crossings *X, const double *phi,
                    int d, const int C[3], double h0, int o, double *kap, double *gau) {
  const int *per = B->per;
  int dim = g->dim, t[2] = {(d + 1) % 3, (d + 2) % 3};
  if (dim == 2) t[0] = 1 - d, t[1] = 2;
  double H[3][3];
  int r1 = dim == 3 ? 1 : 0, ghost[3][3];
  memset(ghost, 0, sizeof ghost);
  for (int u = -1; u <= 1; u++)
    for (int v = -r1; v <= r1; v++) {
      if (u == 0 && v == 0) {
        H[1][1] = h0;
        continue;
      }
      int N[3] = {C[0], C[1], C[2]}, du[2] = {u, v}, wall = 0;
      for (int q = 0; q < dim - 1; q++) {
        N[t[q]] += du[q];
        if (N[t[q]] < 0 || N[t[q]] >= g->n[t[q]]) {
          if (!per[t[q]]) {
            wall = 1;
            continue;
          }
          N[t[q]] = tide_periodic_index(N[t[q]], g->n[t[q]], 1);
        }
      }
      ghost[u + 1][v + 1] = wall;
      if (wall) continue; /* a line beyond a wall: below, from the contact angle */
      if (!line_crossing(g, B, X, d, N, h0, o, phi, &H[u + 1][v + 1])) return 0;
    }
  /* Lines beyond a wall (Afkhami & Bussmann 2008): the interface meets the
   * wall at the contact angle, so the height's slope across the wall is
   * dh/dt = -s o cot theta sqrt(1 + h_w^2) (s = +1 at a low wall, -1 at a
   * high one; h_w the slope along the wall), and the ghost line one cell
   * beyond the edge line (the wall halfway) has
   *   h_ghost = h_edge + o cot theta sqrt(1 + h_w^2)
   * for either wall (90 degrees: the mirror image). */
  for (int pass = 0; pass < 2; pass++) /* edge lines first, then corners */
    for (int u = -1; u <= 1; u++)
      for (int v = -r1; v <= r1; v++) {
        if (!ghost[u + 1][v + 1]) continue;
        int N[3] = {C[0], C[1], C[2]}, du[2] = {u, v}, eu = u, ev = v, nout = 0;
        for (int q = 0; q < dim - 1; q++) {
          N[t[q]] += du[q];
          if (N[t[q]] < 0 || N[t[q]] >= g->n[t[q]]) {
            nout++;
            if (q == 0) eu = 0; /* the edge line is the centre row's */
            else ev = 0;
          }
        }
        if (nout == 2 && pass == 0) continue;
        if (nout == 1 && pass == 1) continue;
        double he = H[eu + 1][ev + 1], hw = 0;
        if (ghost[eu + 1][ev + 1]) return 0;
        if (dim == 3) { /* slope along the wall at the edge line */
          if (eu != u && !ghost[eu + 1][0] && !ghost[eu + 1][2]) hw = 0.5 * (H[eu + 1][2] - H[eu + 1][0]);
          if (ev != v && !ghost[0][ev + 1] && !ghost[2][ev + 1]) hw = 0.5 * (H[2][ev + 1] - H[0][ev + 1]);
        }
        H[u + 1][v + 1] = he + nout * o * B->cot * sqrt(1 + hw * hw);
        ghost[u + 1][v + 1] = 0;
      }
  double k, kg = 0;
  if (dim == 2) {
    double hu = 0.5 * (H[2][1] - H[0][1]), huu = H[2][1] - 2 * h0 + H[0][1];
    k = huu / pow(1 + hu * hu, 1.5);
  } else if (!quadric_kappa(H, &k, &kg)) {
    return 0;
  }
  *kap = -o * k / g->dx;
  *gau = kg / (g->dx * g->dx);
  return 1;
}

/* the curvature at the crossing on face F of axis a: the height-function
 * estimates of the axes d with |n_d| > 1/2 (always at least one), weighted
 * by |n_d| - 1/2, each from the lines of axis d next to the crossing (its
 * own line for d = a; for d != a the two axis-d lines through the cells
 * beside the face, interpolated with s); the Gaussian curvature likewise */
static int face_kappa(const tide_grid *g, const tbc *B, const crossings *X, const double *phi,
                      int a, const int F[3], double *kap, double *gau) {
  int dim = g->dim;
  int64_t f = tide_grid_fidx(g, a, F[0], F[1], F[2]);
  double s = X->s[a][f];
  const double *nn = X->nrm[a] + f * dim;
  int lo[3] = {F[0], F[1], F[2]};
  lo[a] -= 1;
  double sw = 0, sk = 0, sg = 0;
  for (int d = 0; d < dim; d++) {
    double w = fabs(nn[d]) - 0.5;
    if (!(w > 0)) continue;
    int o = nn[d] > 0 ? 1 : -1;
    double k, kg;
    if (d == a) {
      if (!hf_kappa(g, B, X, phi, d, lo, lo[a] + s, o, &k, &kg)) continue;
    } else {
      int C0[3] = {lo[0], lo[1], lo[2]}, C1[3] = {lo[0], lo[1], lo[2]};
      C1[a] += 1;
      if (C1[a] == g->n[a]) C1[a] = 0; /* periodic wrap face */
      double h0, h1, k0, k1, g0, g1;
      if (!line_crossing(g, B, X, d, C0, lo[d], o, phi, &h0) ||
          !line_crossing(g, B, X, d, C1, lo[d], o, phi, &h1) ||
          !hf_kappa(g, B, X, phi, d, C0, h0, o, &k0, &g0) ||
          !hf_kappa(g, B, X, phi, d, C1, h1, o, &k1, &g1))
        continue;
      k = k0 + s * (k1 - k0);
      kg = g0 + s * (g1 - g0);
    }
    sw += w;
    sk += w * k;
    sg += w * kg;
  }
  if (!(sw > 0)) return 0;
  *kap = sk / sw;
  *gau = sg / sw;
  return 1;
}

/* curvature on the crossing faces of axis a into kf (0 on the others),
 * clamped to +-1/dx, and the Gaussian curvature into kg (may be NULL),
 * clamped to 1/dx^2; where no height function exists (features under 3
 * cells), the cell values interpolated linearly to the crossing */
static void faces_axis(const tide_grid *g, const double *phi, const tbc *B, const crossings *X,
                       int a, double *kf, double *kg) {
  int fd[3];
  tide_grid_face_dims(g, a, fd);
  double kmax = 1.0 / g->dx;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < fd[0]; i++)
    for (int j = 0; j < fd[1]; j++)
      for (int k = 0; k < fd[2]; k++) {
        int64_t f = tide_grid_fidx(g, a, i, j, k);
        double s = X->s[a][f];
        if (isnan(s)) {
          kf[f] = 0;
          if (kg) kg[f] = 0;
          continue;
        }
        int F[3] = {i, j, k};
        double kap, gau = 0;
        if (!face_kappa(g, B, X, phi, a, F, &kap, &gau)) {
          int lo[3] = {i, j, k}, hi[3] = {i, j, k};
          lo[a] -= 1;
          if (hi[a] == g->n[a]) hi[a] = 0;
          double kl = kappa_cell(g, phi, B, lo), kh = kappa_cell(g, phi, B, hi);
          kap = kl + s * (kh - kl);
          if (kg) {
            double gl = gauss_cell(g, phi, B, lo), gh = gauss_cell(g, phi, B, hi);
            gau = gl + s * (gh - gl);
          }
        }
        kf[f] = fmin(kmax, fmax(-kmax, kap));
        if (kg) kg[f] = fmin(kmax * kmax, fmax(-kmax * kmax, gau));
      }
}

/* the two copies of the wrap face of a periodic axis a: face 0 gets face n
 * (to_n = 0) or face n gets face 0 (to_n = 1) */
static void copy_wrap_faces(const tide_grid *g, int a, double *kf, int to_n) {
  int fd[3];
  tide_grid_face_dims(g, a, fd);
  fd[a] = 1;
  for (int i = 0; i < fd[0]; i++)
    for (int j = 0; j < fd[1]; j++)
      for (int k = 0; k < fd[2]; k++) {
        int F[3] = {i, j, k};
        F[a] = g->n[a];
        int64_t f0 = tide_grid_fidx(g, a, i, j, k), fn = tide_grid_fidx(g, a, F[0], F[1], F[2]);
        if (to_n)
          kf[fn] = kf[f0];
        else
          kf[f0] = kf[fn];
      }
}

int tide_liquid_curvature_faces(const tide_grid *g, const double *phi, const int per[3],
                                double *kf[3]) {
  tide_surface_walls w = {{per[0], per[1], per[2]}, 0};
  return tide_liquid_curvature_faces_walls(g, phi, &w, kf);
}

int tide_liquid_curvature_faces_walls(const tide_grid *g, const double *phi,
                                      const tide_surface_walls *w, double *kf[3]) {
  int st;
  tbc Bv, *B = &Bv;
  if ((st = make_tbc(g, w ? w->periodic : no_per, w ? w->contact_angle : 0, B))) return st;
  const int *per = B->per;
  crossings X;
  if ((st = crossings_build(g, phi, B, &X))) return st;
  for (int a = 0; a < g->dim; a++) {
    faces_axis(g, phi, B, &X, a, kf[a], NULL);
    if (per[a]) copy_wrap_faces(g, a, kf[a], 0);
  }
  crossings_free(&X, g->dim);
  return TIDE_OK;
}

/* ------------------- level-set curvature from the surface's height functions */

/* the face of axis a on side sd (0 low, 1 high) of cell c (the wrap face n
 * for face 0 of a periodic axis); -1 on a wall */
static int64_t side_face(const tide_grid *g, const tbc *B, const int c[3], int a, int sd) {
  const int *per = B->per;
  int F[3] = {c[0], c[1], c[2]};
  F[a] += sd;
  if (F[a] == 0) {
    if (!per[a]) return -1;
    F[a] = g->n[a];
  }
  if (F[a] == g->n[a] && !per[a]) return -1;
  return tide_grid_fidx(g, a, F[0], F[1], F[2]);
}

/* the strip: each cell beside at least one crossing gets the mean of the
 * crossing curvatures of its faces (kf; Gaussian kg) weighted by |n_a| +
 * 1e-3 (the crossing along the normal lies nearest to the cell's closest
 * surface point); NaN elsewhere */
static void strip_cells(const tide_grid *g, const tbc *B, const crossings *X,
                        double *const kf[3], double *const kg[3], double *ks, double *gs) {
  int dim = g->dim;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k};
        double sw = 0, sk = 0, sg = 0;
        for (int a = 0; a < dim; a++)
          for (int sd = 0; sd <= 1; sd++) {
            int64_t f = side_face(g, B, c, a, sd);
            if (f < 0 || isnan(X->s[a][f])) continue;
            double w = fabs(X->nrm[a][f * dim + a]) + 1e-3;
            sw += w;
            sk += w * kf[a][f];
            sg += w * kg[a][f];
          }
        int64_t q = tide_grid_idx(g, i, j, k);
        ks[q] = sw > 0 ? sk / sw : NAN;
        gs[q] = sw > 0 ? sg / sw : NAN;
      }
}

/* index of cell J, wrapped on periodic axes; -1 outside a wall */
static int64_t cell_wrap(const tide_grid *g, const tbc *B, int J[3]) {
  const int *per = B->per;
  for (int d = 0; d < g->dim; d++)
    if (J[d] < 0 || J[d] >= g->n[d]) {
      if (!per[d]) return -1;
      J[d] = tide_periodic_index(J[d], g->n[d], 1);
    }
  return tide_grid_idx(g, J[0], J[1], J[2]);
}

/* the strip values at the closest surface point of cell c,
 * p = x_c - phi grad phi / |grad phi|^2 (one Newton step onto phi = 0, at
 * most 4 cells), interpolated multilinearly from the strip cells around p
 * (weights renormalized over the strip cells; the mean of the strip cells
 * of the 3^dim block around the cell nearest to p if none); 0 if none */
static int closest_value(const tide_grid *g, const double *phi, const tbc *B, const double *ks,
                         const double *gs, const int c[3], double *kap, double *gau) {
  int dim = g->dim;
  double gr[3], g2 = 0, p[3] = {c[0], c[1], c[2]};
  grad_cell(g, phi, B, c, gr); /* phi differences over two cells */
  for (int d = 0; d < dim; d++) {
    gr[d] *= 0.5 / g->dx; /* per cell, as phi / dx */
    g2 += gr[d] * gr[d];
  }
  double ph = phi[tide_grid_idx(g, c[0], c[1], c[2])] / g->dx;
  if (g2 > 1e-12)
    for (int d = 0; d < dim; d++)
      p[d] -= fmax(-4.0, fmin(4.0, ph * gr[d] / g2));
  int b[3] = {0, 0, 0};
  double t[3] = {0, 0, 0};
  for (int d = 0; d < dim; d++) {
    b[d] = (int)floor(p[d]);
    t[d] = p[d] - b[d];
  }
  double sw = 0, sk = 0, sg = 0;
  for (int m = 0; m < (1 << dim); m++) {
    int J[3] = {b[0], b[1], b[2]};
    double w = 1;
    for (int d = 0; d < dim; d++) {
      int hi = (m >> d) & 1;
      J[d] += hi;
      w *= hi ? t[d] : 1 - t[d];
    }
    int64_t q = cell_wrap(g, B, J);
    if (q < 0 || isnan(ks[q])) continue;
    sw += w;
    sk += w * ks[q];
    sg += w * gs[q];
  }
  if (sw > 1e-6) {
    *kap = sk / sw;
    *gau = sg / sw;
    return 1;
  }
  int r1 = dim == 3 ? 1 : 0, cnt = 0;
  sk = sg = 0;
  for (int u = -1; u <= 1; u++)
    for (int v = -1; v <= 1; v++)
      for (int w = -r1; w <= r1; w++) {
        int J[3] = {(int)floor(p[0] + 0.5) + u, (int)floor(p[1] + 0.5) + v,
                    dim == 3 ? (int)floor(p[2] + 0.5) + w : 0};
        int64_t q = cell_wrap(g, B, J);
        if (q < 0 || isnan(ks[q])) continue;
        sk += ks[q];
        sg += gs[q];
        cnt++;
      }
  if (!cnt) return 0;
  *kap = sk / cnt;
  *gau = sg / cnt;
  return 1;
}

/* signed distance of cell c from the surface, phi / |grad phi| [m] (phi
 * where the gradient vanishes) */
static double cell_distance(const tide_grid *g, const double *phi, const tbc *B,
                            const int c[3]) {
  double gr[3], g2 = 0;
  grad_cell(g, phi, B, c, gr);
  for (int d = 0; d < g->dim; d++)
    g2 += gr[d] * gr[d];
  double ph = phi[tide_grid_idx(g, c[0], c[1], c[2])], gl = sqrt(g2) / (2 * g->dx);
  return gl > 1e-6 ? ph / gl : ph;
}

/* curvature of the parallel surface at signed distance d from a surface
 * point of mean curvature k and Gaussian curvature K (the level set of its
 * signed distance through the point): sum_i k_i / (1 + d k_i), k_1,2 =
 * k/2 +- sqrt(max(k^2/4 - K, 0)) (2D: K = 0, one term k / (1 + d k)); each
 * denominator at least |k_i| dx, the sum clamped to +-1/dx */
static double parallel_kappa(double k, double K, double d, double dx) {
  double r = sqrt(fmax(0.25 * k * k - K, 0)), ki[2] = {0.5 * k + r, 0.5 * k - r}, sum = 0;
  for (int q = 0; q < 2; q++)
    sum += ki[q] / fmax(1 + d * ki[q], fabs(ki[q]) * dx);
  return fmin(1 / dx, fmax(-1 / dx, sum));
}

/* workspace of the surface curvature: crossing values on the faces, strip
 * values on the cells */
typedef struct surf_ws {
  double *kf[3], *kg[3], *ks, *gs;
  int64_t nf[3], nc;
} surf_ws;

static void surf_free(surf_ws *W) {
  for (int a = 0; a < 3; a++) {
    tide_free(W->kf[a], (size_t)W->nf[a] * sizeof(double));
    tide_free(W->kg[a], (size_t)W->nf[a] * sizeof(double));
  }
  tide_free(W->ks, (size_t)W->nc * sizeof(double));
  tide_free(W->gs, (size_t)W->nc * sizeof(double));
  memset(W, 0, sizeof *W);
}

static int surf_alloc(const tide_grid *g, surf_ws *W) {
  memset(W, 0, sizeof *W);
  W->nc = tide_grid_ncells(g);
  int ok = (W->ks = tide_alloc((size_t)W->nc * sizeof(double))) &&
           (W->gs = tide_alloc((size_t)W->nc * sizeof(double)));
  for (int a = 0; a < g->dim && ok; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    W->nf[a] = (int64_t)fd[0] * fd[1] * fd[2];
    ok = (W->kf[a] = tide_alloc((size_t)W->nf[a] * sizeof(double))) &&
         (W->kg[a] = tide_alloc((size_t)W->nf[a] * sizeof(double)));
  }
  if (!ok) {
    surf_free(W);
    return TIDE_ENOMEM;
  }
  return TIDE_OK;
}

/* surface_values and kc: the level-set curvature of the cells (see
 * tide_liquid_curvature_heights) */
/* W->kf, W->kg: the crossing curvatures (mean, Gaussian); W->ks, W->gs:
 * the strip values (strip_cells) */
static int surface_values(const tide_grid *g, const double *phi, const tbc *B, surf_ws *W) {
  const int *per = B->per;
  int st;
  crossings X;
  if ((st = crossings_build(g, phi, B, &X))) return st;
  for (int a = 0; a < g->dim; a++) {
    faces_axis(g, phi, B, &X, a, W->kf[a], W->kg[a]);
    if (per[a]) {
      copy_wrap_faces(g, a, W->kf[a], 0);
      copy_wrap_faces(g, a, W->kg[a], 0);
    }
  }
  strip_cells(g, B, &X, W->kf, W->kg, W->ks, W->gs);
  crossings_free(&X, g->dim);
  return TIDE_OK;
}

static int heights_cells(const tide_grid *g, const double *phi, const tbc *B, double band,
                         surf_ws *W, double *kc) {
  int st;
  if ((st = surface_values(g, phi, B, W))) return st;
  double kmax = 1.0 / g->dx;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k};
        int64_t q = tide_grid_idx(g, i, j, k);
        double ks = W->ks[q], gs = W->gs[q];
        if (!isnan(ks) ||
            (fabs(phi[q]) < band && closest_value(g, phi, B, W->ks, W->gs, c, &ks, &gs)))
          kc[q] = parallel_kappa(ks, gs, cell_distance(g, phi, B, c), g->dx);
        else
          kc[q] = fmin(kmax, fmax(-kmax, kappa_cell(g, phi, B, c)));
      }
  return TIDE_OK;
}

int tide_liquid_curvature_heights(const tide_grid *g, const double *phi, const int per[3],
                                  double band, double *kc) {
  tide_surface_walls w = {{per[0], per[1], per[2]}, 0};
  return tide_liquid_curvature_heights_walls(g, phi, &w, band, kc);
}

int tide_liquid_curvature_heights_walls(const tide_grid *g, const double *phi,
                                        const tide_surface_walls *w, double band, double *kc) {
  int st;
  tbc Bv, *B = &Bv;
  if ((st = make_tbc(g, w ? w->periodic : no_per, w ? w->contact_angle : 0, B))) return st;
  if (isnan(band)) return tide_fail(TIDE_EINVAL, "band is NaN");
  if (!(band > 0)) band = 3 * g->dx;
  surf_ws W;
  if ((st = surf_alloc(g, &W))) return st;
  st = heights_cells(g, phi, B, band, &W, kc);
  surf_free(&W);
  return st;
}

/* ------------------------------------ contact angle at solids inside the grid */

/* phi continued into the solid (solid_phi < 0) from its mirror point across
 * the solid surface (tide_liquid_contact_extend) */
static void extend_cells(const tide_grid *g, const double *phi, const double *sp, const tbc *B,
                         double band, double *out) {
  int dim = g->dim;
  double dx = g->dx;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k};
        int64_t q = tide_grid_idx(g, i, j, k);
        out[q] = phi[q];
        double depth = -sp[q];
        if (!(depth > 0 && depth < band)) continue;
        /* the solid's normal (out of the solid) by differences inside the grid */
        double ns[3] = {0, 0, 0}, nl = 0;
        for (int a = 0; a < dim; a++) {
          int P[3] = {i, j, k}, M[3] = {i, j, k};
          P[a] = P[a] + 1 < g->n[a] ? P[a] + 1 : P[a];
          M[a] = M[a] > 0 ? M[a] - 1 : M[a];
          if (P[a] == M[a]) continue;
          ns[a] = (sp[tide_grid_idx(g, P[0], P[1], P[2])] - sp[tide_grid_idx(g, M[0], M[1], M[2])]) /
                  (P[a] - M[a]);
          nl += ns[a] * ns[a];
        }
        if (!(nl > 0)) continue;
        nl = sqrt(nl);
        /* mirror point (cells) and phi, grad phi there from the fluid cells */
        double p[3] = {c[0], c[1], c[2]};
        for (int a = 0; a < dim; a++) {
          ns[a] /= nl;
          p[a] += 2 * depth / dx * ns[a];
          p[a] = fmax(0, fmin(g->n[a] - 1, p[a]));
        }
        int b0[3] = {0, 0, 0};
        double t[3] = {0, 0, 0};
        for (int a = 0; a < dim; a++) {
          b0[a] = (int)floor(p[a]);
          if (b0[a] >= g->n[a] - 1) b0[a] = g->n[a] > 1 ? g->n[a] - 2 : 0;
          t[a] = p[a] - b0[a];
        }
        double sw = 0, sv = 0, sg[3] = {0, 0, 0};
        for (int m = 0; m < (1 << dim); m++) {
          int J[3] = {b0[0], b0[1], b0[2]};
          double w = 1;
          for (int a = 0; a < dim; a++) {
            int hi = (m >> a) & 1;
            J[a] += hi;
            if (J[a] >= g->n[a]) J[a] = g->n[a] - 1;
            w *= hi ? t[a] : 1 - t[a];
          }
          int64_t qj = tide_grid_idx(g, J[0], J[1], J[2]);
          if (!(sp[qj] >= 0) || !(w > 0)) continue;
          double gj[3] = {0, 0, 0};
          for (int a = 0; a < dim; a++) { /* differences over fluid cells only */
            int P[3] = {J[0], J[1], J[2]}, M[3] = {J[0], J[1], J[2]};
            P[a] += 1;
            M[a] -= 1;
            int64_t qp = P[a] < g->n[a] ? tide_grid_idx(g, P[0], P[1], P[2]) : -1;
            int64_t qm = M[a] >= 0 ? tide_grid_idx(g, M[0], M[1], M[2]) : -1;
            if (qp >= 0 && !(sp[qp] >= 0)) qp = -1;
            if (qm >= 0 && !(sp[qm] >= 0)) qm = -1;
            double fp = qp >= 0 ? phi[qp] : phi[qj], fm = qm >= 0 ? phi[qm] : phi[qj];
            int span = (qp >= 0) + (qm >= 0);
            gj[a] = span ? (fp - fm) / (span * dx) : 0;
          }
          /* the corner's value carried to the mirror point along its gradient: exact for a
           * linear phi whichever corners are fluid (the fluid corners' plain average is off
           * by up to 0.4 dx |grad phi| where the stencil straddles the wall) */
          double vj = phi[qj];
          for (int a = 0; a < dim; a++)
            vj += gj[a] * (p[a] - J[a]) * dx;
          sw += w;
          sv += w * vj;
          for (int a = 0; a < dim; a++)
            sg[a] += w * gj[a];
        }
        if (!(sw > 1e-3)) continue; /* no fluid around the mirror point */
        double pm = sv / sw, gn = 0, g2 = 0;
        for (int a = 0; a < dim; a++) {
          sg[a] /= sw;
          gn += sg[a] * ns[a];
          g2 += sg[a] * sg[a];
        }
        double gt = sqrt(fmax(g2 - gn * gn, 0));
        out[q] = pm - 2 * depth * gt * B->cot;
      }
}

int tide_liquid_contact_extend(const tide_grid *g, const double *phi, const double *solid_phi,
                               const tide_surface_walls *w, double band, double *out) {
  int st;
  tbc B;
  if ((st = make_tbc(g, w ? w->periodic : no_per, w ? w->contact_angle : 0, &B))) return st;
  if (!phi || !solid_phi || !out) return tide_fail(TIDE_EINVAL, "contact_extend: phi, solid_phi and out required");
  if (isnan(band)) return tide_fail(TIDE_EINVAL, "band is NaN");
  if (!(band > 0)) band = 4 * g->dx;
  int64_t nc = tide_grid_ncells(g);
  char name[48];
  for (int64_t q = 0; q < nc; q++)
    if (!isfinite(solid_phi[q]))
      return tide_fail(TIDE_ENONFINITE, "solid_phi is not finite at cell %s", tide_grid_cellname(g, q, name));
  extend_cells(g, phi, solid_phi, &B, band, out);
  return TIDE_OK;
}

/* the level set the curvature reads: phi, or (solid_phi given) a copy
 * continued into the solid by the contact angle (*own) */
static int curvature_phi(const tide_grid *g, const tide_array *phi, const tide_array *solid_phi,
                         const tbc *B, const double **pc, double **own) {
  int st;
  *own = NULL;
  *pc = TIDE_F64P(phi);
  if (!solid_phi) return TIDE_OK;
  if ((st = tide_grid_check_cells(g, solid_phi, TIDE_F64, "solid_phi"))) return st;
  if (tide_array_nonfinite(solid_phi))
    return tide_fail(TIDE_ENONFINITE, "solid_phi holds non-finite values");
  int64_t nc = tide_grid_ncells(g);
  if (!(*own = tide_alloc((size_t)nc * sizeof(double)))) return TIDE_ENOMEM;
  extend_cells(g, TIDE_F64P(phi), TIDE_F64P(solid_phi), B, 4 * g->dx, *own);
  *pc = *own;
  return TIDE_OK;
}

double tide_liquid_capillary_dt(double dx, double sigma, double rho) {
  if (!(sigma > 0)) return INFINITY;
  return sqrt(rho * dx * dx * dx / (2 * M_PI * sigma));
}

/* ------------------------------------------------------ ghost fluid jump */

tide_tension_opts tide_tension_opts_default(void) {
  tide_tension_opts o;
  memset(&o, 0, sizeof o);
  o.rho = 1000;
  o.theta_min = 0.01;
  return o;
}

static int check_phi(const tide_grid *g, const tide_array *phi) {
  int st;
  if ((st = tide_grid_check_cells(g, phi, TIDE_F64, "phi"))) return st;
  if (tide_array_nonfinite(phi)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
  return TIDE_OK;
}

int tide_liquid_label_phi(const tide_grid *g, const tide_array *phi, const tide_array *solid,
                          tide_array *out) {
  int st;
  if ((st = check_phi(g, phi)) || (st = tide_grid_check_cells(g, out, TIDE_U8, "out"))) return st;
  if (solid && (st = tide_grid_check_cells(g, solid, TIDE_U8, "solid"))) return st;
  const double *p = TIDE_F64P(phi);
  const uint8_t *s = solid ? TIDE_U8P(solid) : NULL;
  uint8_t *o = TIDE_U8P(out);
  int64_t nc = tide_grid_ncells(g);
#pragma omp parallel for schedule(static) if (nc > 8192)
  for (int64_t q = 0; q < nc; q++)
    o[q] = (s && s[q] == TIDE_CELL_SOLID) ? TIDE_CELL_SOLID
           : p[q] < 0                     ? TIDE_CELL_LIQUID
                                          : TIDE_CELL_AIR;
  return TIDE_OK;
}

/* kappa from the options or computed into a new buffer (*own); to_surface:
 * each computed cell curvature moved along the normal to the surface, the
 * curvature of the surface through the cell's closest point if phi is a
 * signed distance there: k_i(0) = k_i(d) / (1 - d k_i(d)) with d = phi /
 * |grad phi| (parallel_kappa at -d; a disk: 1 / (R + d) -> 1 / R), in the
 * cells within 3 dx of the surface.  The jump then interpolates values that
 * all estimate the same surface curvature, instead of 1 / (R + phi) linearly
 * between the liquid and the air cell (a face-to-face error of ~(dx/R)^2 / 8
 * relative).  Then only the cells the jump reads are computed (within 4 dx
 * of the surface or beside a sign change of phi; 0 elsewhere). */
static int get_kappa(const tide_grid *g, const double *phi, const tide_array *kappa,
                     const tbc *B, int to_surface, const double **out, double **own) {
  int st;
  *own = NULL;
  if (kappa) {
    if ((st = tide_grid_check_cells(g, kappa, TIDE_F64, "kappa"))) return st;
    if (tide_array_nonfinite(kappa))
      return tide_fail(TIDE_ENONFINITE, "kappa holds non-finite values");
    *out = TIDE_F64P(kappa);
    return TIDE_OK;
  }
  int64_t nc = tide_grid_ncells(g);
  *own = tide_alloc((size_t)nc * sizeof(double));
  if (!*own) return TIDE_ENOMEM;
  if (!to_surface) {
    if ((st = curv_cells(g, phi, B, *own))) return st;
    *out = *own;
    return TIDE_OK;
  }
  /* only the cells the jump reads: within 4 dx of the surface or beside a
   * sign change of phi (0 elsewhere) */
  double *kk = *own, dx = g->dx, kmax = 1.0 / dx;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k};
        int64_t q = tide_grid_idx(g, i, j, k);
        int near = fabs(phi[q]) < 4 * dx;
        for (int a = 0; a < g->dim && !near; a++)
          for (int sd = -1; sd <= 1 && !near; sd += 2) {
            int J[3] = {i, j, k};
            J[a] += sd;
            if (J[a] < 0 || J[a] >= g->n[a]) {
              if (!B->per[a]) continue;
              J[a] = tide_periodic_index(J[a], g->n[a], 1);
            }
            near = (phi[tide_grid_idx(g, J[0], J[1], J[2])] < 0) != (phi[q] < 0);
          }
        if (!near) {
          kk[q] = 0;
          continue;
        }
        double kc = fmin(kmax, fmax(-kmax, kappa_cell(g, phi, B, c)));
        double d = cell_distance(g, phi, B, c);
        kk[q] = fabs(d) <= 3 * dx ? parallel_kappa(kc, gauss_cell(g, phi, B, c), -d, dx) : kc;
      }
  *out = *own;
  return TIDE_OK;
}

/* Below this theta the jump's curvature blends from the crossing's towards
 * the liquid cell's (see jump_over_theta). */
#define THETA_BLEND 0.25

/* sigma kappa_G / theta on the face f of axis ax between liquid cell l and
 * air cell a, theta from the projection's ghost-fluid fractions (clamped as
 * there).  kappa_G: with the surface values W (heights) on a face with a
 * crossing kf, blended below theta = THETA_BLEND towards ks_l, the mean of
 * the crossing values of cell l (strip_cells):
 *   kappa_G = ks_l + min(1, theta / THETA_BLEND) (kf - ks_l).
 * Why: the projection pins p_l to p_G across a face of small theta, and the
 * faces of one liquid cell whose crossings all lie near its centre must agree
 * on p_G, or the difference drives a flow ~ sigma (kf_1 - kf_2) / theta
 * (theta_min = 0.01: 100x) that grew without bound in the 3D drop (the
 * height-function estimates of the crossings of one cell differ by ~0.4%);
 * blending from theta = 1 cost the 2D drop 1% of its frequency, from 0.1 it
 * still let the 3D drop gain 8% amplitude per period.  Otherwise the cell
 * curvatures interpolated with theta. */
static inline double jump_over_theta(const double *kap, const surf_ws *W, const double *phi, int ax,
                                     int64_t f, int64_t l, int64_t a, double th, double sigma,
                                     double tmin, double *pg) {
  if (!(th >= tmin)) th = tmin;
  double kg = kap[l] + th * (kap[a] - kap[l]);
  if (W->ks && (phi[l] < 0) != (phi[a] < 0)) {
    double kl = isnan(W->ks[l]) ? W->kf[ax][f] : W->ks[l];
    kg = kl + fmin(1, th / THETA_BLEND) * (W->kf[ax][f] - kl);
  }
  *pg = sigma * kg;
  return *pg / th;
}

/* the physical parameters shared by both surface-tension methods */
static int check_sigma_rho_dt(double sigma, double rho, double dt) {
  if (!(sigma >= 0) || !isfinite(sigma)) return tide_fail(TIDE_EINVAL, "sigma must be finite and >= 0");
  if (!(rho > 0) || !isfinite(rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  if (!(dt > 0) || !isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  return TIDE_OK;
}

int tide_liquid_surface_tension_jump(tide_mac *u, const tide_array *phi, const tide_tension_opts *o,
                                     tide_array *pjump) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = check_phi(g, phi))) return st;
  if ((st = check_sigma_rho_dt(o->sigma, o->rho, o->dt))) return st;
  if (!(o->theta_min > 0 && o->theta_min <= 1))
    return tide_fail(TIDE_EINVAL, "theta_min must be in (0, 1]");
  tbc Bv, *B = &Bv;
  if ((st = make_tbc(g, o->periodic, o->contact_angle, B))) return st;
  if (o->labels && (st = tide_grid_check_cells(g, o->labels, TIDE_U8, "labels"))) return st;
  if (pjump && (st = tide_grid_check_cells(g, pjump, TIDE_F64, "pjump"))) return st;
  int64_t nc = tide_grid_ncells(g);
  int dim = g->dim;
  const double *kap, *phc;
  double *own = NULL, *ownphi = NULL, *theta[3] = {NULL, NULL, NULL};
  const double *ph = TIDE_F64P(phi);
  int64_t nfa[3] = {0, 0, 0};
  uint8_t *ownlab = NULL;
  surf_ws W;
  memset(&W, 0, sizeof W);
  if (o->kappa_phi && o->kappa) {
    st = tide_fail(TIDE_EINVAL, "kappa and kappa_phi exclude each other");
    goto done;
  }
  if (o->kappa_phi) {
    if ((st = check_phi(g, o->kappa_phi))) goto done;
  }
  if ((st = curvature_phi(g, o->kappa_phi ? o->kappa_phi : phi, o->solid_phi, B, &phc, &ownphi))) goto done;
  if ((st = get_kappa(g, phc, o->kappa, B, 1, &kap, &own))) goto done;
  /* labels (from phi when not given) and the ghost-fluid fractions of the
   * projection (mac_poisson.h), so the jump sits where the projection puts
   * the interface */
  const uint8_t *lab;
  if (o->labels) {
    lab = TIDE_U8P(o->labels);
  } else {
    if (!(ownlab = tide_alloc((size_t)nc))) {
      st = TIDE_ENOMEM;
      goto done;
    }
    const double *p0 = TIDE_F64P(phi);
    for (int64_t q = 0; q < nc; q++)
      ownlab[q] = p0[q] < 0 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
    lab = ownlab;
  }
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    nfa[a] = (int64_t)fd[0] * fd[1] * fd[2];
    if (!(theta[a] = tide_alloc((size_t)nfa[a] * sizeof(double)))) {
      st = TIDE_ENOMEM;
      goto done;
    }
  }
  if (!o->kappa && !o->cell_curvature &&
      ((st = surf_alloc(g, &W)) || (st = surface_values(g, phc, B, &W))))
    goto done;
  const int *per = B->per;
  if (o->cell_surface) { /* p = 0 at the air cell centres: theta = 1 */
    for (int a = 0; a < dim; a++)
      for (int64_t f = 0; f < nfa[a]; f++)
        theta[a][f] = 1;
  } else {
    if ((st = tide_mac_poisson_theta(g, lab, TIDE_F64P(phi), theta))) goto done;
    /* the wrap faces of periodic axes (face n, between cells n - 1 and 0),
     * with the projection's formula */
    for (int a = 0; a < dim; a++) {
      if (!per[a]) continue;
      int fd[3];
      tide_grid_face_dims(g, a, fd);
      fd[a] = 1;
      for (int i = 0; i < fd[0]; i++)
        for (int j = 0; j < fd[1]; j++)
          for (int k = 0; k < fd[2]; k++) {
            int F[3] = {i, j, k}, L[3] = {i, j, k};
            F[a] = g->n[a], L[a] = g->n[a] - 1;
            double pl = ph[tide_grid_idx(g, L[0], L[1], L[2])], pa = ph[tide_grid_idx(g, i, j, k)];
            if (lab[tide_grid_idx(g, i, j, k)] == TIDE_CELL_LIQUID)
              pl = pa, pa = ph[tide_grid_idx(g, L[0], L[1], L[2])];
            theta[a][tide_grid_fidx(g, a, F[0], F[1], F[2])] =
                (pl < 0) != (pa < 0) ? pl / (pl - pa) : 1;
          }
    }
  }
  double scale = o->dt / (o->rho * g->dx), tmin = o->theta_min, sigma = o->sigma;
  for (int a = 0; a < dim; a++) {
    double *ua = TIDE_F64P(u->u[a]);
    const double *th = theta[a];
    int fd[3];
    tide_grid_face_dims(g, a, fd);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int I[3] = {i, j, k};
          if (I[a] == 0) continue;                  /* wall, or written from the wrap face n */
          if (I[a] == g->n[a] && !per[a]) continue; /* wall */
          int64_t f = tide_grid_fidx(g, a, i, j, k), fw = f;
          if (I[a] == g->n[a]) { /* periodic: face 0 holds the value, cell 0 is the high side */
            I[a] = 0;
            fw = tide_grid_fidx(g, a, I[0], I[1], I[2]);
          }
          int64_t hi = tide_grid_idx(g, I[0], I[1], I[2]);
          I[a] = tide_periodic_index(I[a] - 1, g->n[a], 1);
          int64_t lo = tide_grid_idx(g, I[0], I[1], I[2]);
          double pg;
          if (lab[lo] == TIDE_CELL_LIQUID && lab[hi] == TIDE_CELL_AIR)
            ua[fw] -= scale * jump_over_theta(kap, &W, ph, a, f, lo, hi, th[f], sigma, tmin, &pg);
          else if (lab[lo] == TIDE_CELL_AIR && lab[hi] == TIDE_CELL_LIQUID)
            ua[fw] += scale * jump_over_theta(kap, &W, ph, a, f, hi, lo, th[f], sigma, tmin, &pg);
        }
    if (per[a]) copy_wrap_faces(g, a, ua, 1); /* face n duplicates face 0 */
  }
  if (pjump) {
    double *pj = TIDE_F64P(pjump);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < g->n[0]; i++)
      for (int j = 0; j < g->n[1]; j++)
        for (int k = 0; k < g->n[2]; k++) {
          int64_t q = tide_grid_idx(g, i, j, k);
          double s = 0;
          int cnt = 0;
          if (lab[q] == TIDE_CELL_LIQUID) {
            int c[3] = {i, j, k};
            for (int a = 0; a < dim; a++)
              for (int sd = 0; sd <= 1; sd++) {
                int nb[3] = {c[0], c[1], c[2]}, F[3] = {c[0], c[1], c[2]};
                nb[a] += sd ? 1 : -1;
                F[a] += sd; /* the face between c and nb */
                if (nb[a] < 0 || nb[a] >= g->n[a]) {
                  if (!per[a]) continue;
                  nb[a] = tide_periodic_index(nb[a], g->n[a], 1);
                  F[a] = g->n[a]; /* the wrap face */
                }
                int64_t qn = tide_grid_idx(g, nb[0], nb[1], nb[2]);
                if (lab[qn] != TIDE_CELL_AIR) continue;
                double pg;
                int64_t fq = tide_grid_fidx(g, a, F[0], F[1], F[2]);
                jump_over_theta(kap, &W, ph, a, fq, q, qn, theta[a][fq], sigma, tmin, &pg);
                s += pg;
                cnt++;
              }
          }
          pj[q] = cnt ? s / cnt : 0;
        }
  }
  st = TIDE_OK;
done:
  tide_free(own, (size_t)nc * sizeof(double));
  tide_free(ownphi, (size_t)nc * sizeof(double));
  tide_free(ownlab, (size_t)nc);
  for (int a = 0; a < 3; a++)
    tide_free(theta[a], (size_t)nfa[a] * sizeof(double));
  surf_free(&W);
  return st;
}

/* ------------------------------------------------ Liu et al. Eq. 8 */

/* smoothed Heaviside of half-width eps (0 at phi <= -eps, 1 at phi >= eps)
 * and its derivative, the delta of Liu Eq. 8; one_sided: the same profile
 * of half-width eps/2 centred at -eps/2 (the band [-eps, 0] in the liquid) */
static inline double heaviside(double phi, double eps, int one_sided) {
  if (one_sided) {
    phi += 0.5 * eps;
    eps *= 0.5;
  }
  if (phi <= -eps) return 0;
  if (phi >= eps) return 1;
  return 0.5 * (1 + phi / eps + sin(M_PI * phi / eps) / M_PI);
}

static inline double delta_fn(double phi, double eps, int one_sided) {
  if (one_sided) {
    phi += 0.5 * eps;
    eps *= 0.5;
  }
  if (!(fabs(phi) < eps)) return 0;
  return (1 + cos(M_PI * phi / eps)) / (2 * eps);
}

/* local_width: the band narrowed to the liquid's local depth.  eloc[q] =
 * min(eps, D) for the liquid cells of the band, D the largest -phi of the
 * liquid cells within eps + dx of q (a max filter over the ball; solids skipped,
 * walls clip it, periodic axes wrap), eps elsewhere.  H(phi / eloc * eps)
 * is still one scalar field of the cells, so a uniform kappa stays a pure
 * gradient; its value 0 at the deepest cell of a thin sheet or thread gives
 * it the whole jump sigma kappa, where the fixed band gave 0.06 of it at
 * 0.5 dx deep (docs/liquids-physics.md, "Thin liquid"). */
static void local_width(const tide_grid *g, const double *ph, const uint8_t *lab, const int per[3],
                        double eps, double *eloc) {
  /* radius eps + dx: a cell at any depth sees a lattice cell eps deeper
   * along its normal where the liquid is that deep (bit for bit the fixed
   * band there) */
  int r = (int)ceil(eps / g->dx + 1 - 1e-9), rz = g->dim == 3 ? r : 0;
  double r2 = (eps / g->dx + 1 + 1e-9) * (eps / g->dx + 1 + 1e-9);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int64_t q = tide_grid_idx(g, i, j, k);
        eloc[q] = eps;
        if (!(ph[q] < 0 && -ph[q] < eps) || (lab && lab[q] == TIDE_CELL_SOLID)) continue;
        double D = -ph[q];
        int c[3] = {i, j, k};
        for (int di = -r; di <= r && D < eps; di++)
          for (int dj = -r; dj <= r && D < eps; dj++)
            for (int dk = -rz; dk <= rz && D < eps; dk++) {
              if (di * di + dj * dj + dk * dk > r2) continue;
              int o[3] = {di, dj, dk}, J[3];
              int in = 1;
              for (int a = 0; a < 3; a++) {
                J[a] = c[a] + o[a];
                if (a >= g->dim) continue;
                if (per[a])
                  J[a] = ((J[a] % g->n[a]) + g->n[a]) % g->n[a];
                else if (J[a] < 0 || J[a] >= g->n[a])
                  in = 0;
              }
              if (!in) continue;
              int64_t y = tide_grid_idx(g, J[0], J[1], J[2]);
              if (lab && lab[y] == TIDE_CELL_SOLID) continue;
              if (-ph[y] > D) D = -ph[y];
            }
        if (D < eps) eloc[q] = D;
      }
}

/* H of cell q with its own band width (eloc NULL or eloc[q] == eps: the
 * fixed band, bit for bit) */
static inline double heaviside_cell(const double *ph, const double *eloc, int64_t q, double eps,
                                    int one_sided) {
  double p = ph[q];
  if (eloc && eloc[q] < eps) p *= eps / eloc[q];
  return heaviside(p, eps, one_sided);
}

tide_tension_liu_opts tide_tension_liu_opts_default(void) {
  tide_tension_liu_opts o;
  memset(&o, 0, sizeof o);
  o.rho = 1000;
  o.local_width = 1;
  o.tol = 1e-8;
  o.theta_min = 0.01;
  return o;
}

int tide_liquid_surface_tension_liu(tide_mac *u, const tide_array *phi,
                                    const tide_tension_liu_opts *o, tide_viscosity_stats *stats) {
  int st;
  memset(stats, 0, sizeof *stats);
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = check_phi(g, phi))) return st;
  if ((st = check_sigma_rho_dt(o->sigma, o->rho, o->dt))) return st;
  if (!isfinite(o->band)) return tide_fail(TIDE_EINVAL, "band must be finite");
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (o->maxit < 0) return tide_fail(TIDE_EINVAL, "maxit must be >= 0");
  if (!(o->theta_min > 0 && o->theta_min <= 1))
    return tide_fail(TIDE_EINVAL, "theta_min must be in (0, 1]");
  tbc Bv, *B = &Bv;
  if ((st = make_tbc(g, o->periodic, o->contact_angle, B))) return st;
  if (o->labels && (st = tide_grid_check_cells(g, o->labels, TIDE_U8, "labels"))) return st;
  for (int a = 0; a < g->dim; a++)
    if (tide_array_nonfinite(u->u[a]))
      return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
  if (o->sigma == 0) return TIDE_OK;
  const int *per = B->per;
  const double *ph = TIDE_F64P(phi), *phc;
  const uint8_t *lab = o->labels ? TIDE_U8P(o->labels) : NULL;
  double eps = o->band > 0 ? o->band : 3 * g->dx;
  /* curvature: given, of the cells, or (default) of the level sets of the
   * surface's signed distance from its height functions: on the cells of
   * the band (tide_liquid_curvature_heights) and on the crossing faces */
  const double *kap;
  double *own = NULL;
  surf_ws W;
  memset(&W, 0, sizeof W);
  int64_t nc = tide_grid_ncells(g);
  int heights = !o->kappa && !o->cell_curvature;
  double *ownphi = NULL;
  if ((st = curvature_phi(g, phi, o->solid_phi, B, &phc, &ownphi))) return st;
  if (!heights) {
    if ((st = get_kappa(g, phc, o->kappa, B, 0, &kap, &own))) {
      tide_free(own, (size_t)nc * sizeof(double));
      tide_free(ownphi, (size_t)nc * sizeof(double));
      return st;
    }
  } else {
    if (!(own = tide_alloc((size_t)nc * sizeof(double)))) {
      tide_free(ownphi, (size_t)nc * sizeof(double));
      return TIDE_ENOMEM;
    }
    if ((st = surf_alloc(g, &W)) || (st = heights_cells(g, phc, B, eps + 2 * g->dx, &W, own))) {
      surf_free(&W);
      tide_free(own, (size_t)nc * sizeof(double));
      tide_free(ownphi, (size_t)nc * sizeof(double));
      return st;
    }
    kap = own;
  }
  double *eloc = NULL;
  if (o->local_width) {
    if (!(eloc = tide_alloc((size_t)nc * sizeof(double)))) {
      surf_free(&W);
      tide_free(own, (size_t)nc * sizeof(double));
      tide_free(ownphi, (size_t)nc * sizeof(double));
      return TIDE_ENOMEM;
    }
    local_width(g, ph, lab, per, eps, eloc);
  }
  double s_rho = o->sigma / o->rho, dt = o->dt, tmin = o->theta_min;
  double c = dt * dt * s_rho / (g->dx * g->dx), h0 = heaviside(0, eps, o->one_sided);
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = o->tol;
  if (o->maxit > 0) so.maxit = o->maxit;
  int dim = g->dim;
  st = TIDE_OK;
  for (int a = 0; a < dim && !st; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t nf = (int64_t)fd[0] * fd[1] * fd[2];
    uint8_t *cls = tide_alloc((size_t)nf);
    double *D = tide_alloc((size_t)nf * sizeof(double)),
           *r = tide_alloc((size_t)nf * sizeof(double));
    if (!cls || !D || !r) {
      st = TIDE_ENOMEM;
    } else {
      double *ua = TIDE_F64P(u->u[a]);
#pragma omp parallel for schedule(static)
      for (int i = 0; i < fd[0]; i++)
        for (int j = 0; j < fd[1]; j++)
          for (int k = 0; k < fd[2]; k++) {
            int I[3] = {i, j, k};
            int64_t f = tide_grid_fidx(g, a, i, j, k);
            cls[f] = TIDE_FACE_DIRICHLET;
            D[f] = 1;
            r[f] = 0;
            if (per[a] && I[a] == g->n[a]) continue;                 /* duplicate of face 0 */
            if (!per[a] && (I[a] == 0 || I[a] == g->n[a])) continue; /* wall */
            int lo[3] = {i, j, k};
            lo[a] = tide_periodic_index(I[a] - 1, g->n[a], per[a]);
            int64_t ql = tide_grid_idx(g, lo[0], lo[1], lo[2]), qh = tide_grid_idx(g, i, j, k);
            if (lab && (lab[ql] == TIDE_CELL_SOLID || lab[qh] == TIDE_CELL_SOLID)) continue;
            /* balanced force: -sigma/rho kappa grad H(phi) by the face
             * difference of the smoothed Heaviside, the same difference as
             * the projection's pressure gradient, so a uniform kappa is a
             * pure gradient: between two cells (dx), and on a liquid-air
             * face of the ghost-fluid projection from the liquid cell to the
             * surface (H(0) at theta dx, p = 0 there) */
            double hl = heaviside_cell(ph, eloc, ql, eps, o->one_sided),
                   hh = heaviside_cell(ph, eloc, qh, eps, o->one_sided);
            double hdx = g->dx;
            if (!o->cell_surface) {
              int liq_l = lab ? lab[ql] == TIDE_CELL_LIQUID : ph[ql] < 0;
              int liq_h = lab ? lab[qh] == TIDE_CELL_LIQUID : ph[qh] < 0;
              int air_l = lab ? lab[ql] == TIDE_CELL_AIR : !(ph[ql] < 0);
              int air_h = lab ? lab[qh] == TIDE_CELL_AIR : !(ph[qh] < 0);
              if ((liq_l && air_h) || (air_l && liq_h)) {
                double pl = liq_l ? ph[ql] : ph[qh], pa = liq_l ? ph[qh] : ph[ql];
                double th = (pl < 0) != (pa < 0) ? pl / (pl - pa) : 1;
                if (!(th >= tmin)) th = tmin;
                if (liq_l)
                  hh = h0;
                else
                  hl = h0;
                hdx *= th;
              }
            }
            double kface = 0.5 * (kap[ql] + kap[qh]);
            if (heights && (ph[ql] < 0) != (ph[qh] < 0)) {
              int hi[3] = {i, j, k};
              double df = 0.5 * (cell_distance(g, phc, B, lo) + cell_distance(g, phc, B, hi));
              kface = parallel_kappa(W.kf[a][f], W.kg[a][f], df, g->dx);
            }
            double force = -dt * s_rho * kface * (hh - hl) / hdx;
            /* the implicit band: the delta of the narrower of the two
             * cells' widths (the fixed band's where both have eps) */
            double ef = eloc ? fmin(eloc[ql], eloc[qh]) : eps, pf = 0.5 * (ph[ql] + ph[qh]);
            double delta = ef < eps ? delta_fn(pf * eps / ef, eps, o->one_sided) * eps / ef
                                    : delta_fn(pf, eps, o->one_sided);
            if (delta * ef > 1e-8) {
              cls[f] = TIDE_FACE_UNKNOWN;
              D[f] = 1 / delta;
              r[f] = (ua[f] + force) / delta;
            } else {
              ua[f] += force; /* outside the band: explicit (delta = 0 row) */
            }
          }
      st = tide_face_helmholtz(g, per, a, TIDE_F64P(u->u[a]), cls, D, c, r, TIDE_WALL_FREESLIP, &so,
                               TIDE_PRECOND_MIC0, tide_viscosity_solver_slot(o->solver, 3 + a),
                               stats);
    }
    tide_free(cls, (size_t)nf);
    tide_free(D, (size_t)nf * sizeof(double));
    tide_free(r, (size_t)nf * sizeof(double));
  }
  tide_free(eloc, (size_t)nc * sizeof(double));
  tide_free(own, (size_t)nc * sizeof(double));
  tide_free(ownphi, (size_t)nc * sizeof(double));
  surf_free(&W);
  return st;
}
