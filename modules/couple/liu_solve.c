/* liu_solve.c -- the joint Newton solve of Liu et al. Eq. 22 over narrow-band
 * level-set values and solid vertex positions, with one volume constraint
 * per liquid component and the vertex-level-set barrier (liu.h). */
#include "couple/liu.h"
#include "linalg/linalg.h"
#include "solid/barrier.h"
#include "solid/fem.h"
#include "solid/integrate.h"
#include "solid/mesh.h"
#include "solid/small.h"

#include <math.h>
#include <string.h>

tide_liu_params tide_liu_params_default(void) {
  tide_liu_params p;
  memset(&p, 0, sizeof p);
  p.interp = TIDE_LIU_QUADRATIC;
  p.rho = 1000;
  p.air_density = 1e-3;
  p.vol_tol = 1e-4;
  p.max_iter = 30;
  p.line_search = 1;
  p.solver = TIDE_LIU_CHOLMOD;
  p.ccd = TIDE_LIU_CCD_COMMON;
  p.hessian = TIDE_LIU_HESS_PROJECTED;
  p.stencil_mass = TIDE_LIU_STENCIL_LIQUID;
  return p;
}

typedef struct ctx {
  const tide_grid *g;
  const double *phi_star;
  const int32_t *labels;
  int ncomp;
  const double *target;
  const tide_liu_solid *S;
  tide_liu_params p;
  int dim;
  int64_t N, nv, nphi, nx, n;
  double vc;
  int32_t *umap;  /* N: unknown index of a cell or -1 */
  int64_t *ucell; /* nphi: cell of each level-set unknown */
  int64_t *xmap;  /* nv: unknown index of the first coordinate or -1 (fixed) */
  int (*base)[3]; /* nv: linear stencil bases (at x*) */
  uint8_t *live;  /* nv: pair in use (linear: not dropped) */
  uint8_t *heavy; /* nphi: in a vertex's stencil at x*: a liquid cell's mass */
  double *mf;     /* nphi: liquid masses [kg], lagged */
  double *fixvol; /* ncomp: volume of the labelled non-unknown cells */
  double *vbuf;   /* nv: per-vertex energies */
  double *ubuf;   /* nphi: per-unknown energies / volumes */
  /* elastic solid (S->mesh): the incremental potential's gradient and Hessian */
  tide_ip ip;
  double *mg;       /* nv*dim gradient */
  int *dof;         /* nv*dim: unknown index of each DOF, -1 if fixed (increasing) */
  const tide_csr *H; /* the Hessian (DOF indices, upper storage; the mesh's, refilled
                        in place by each assembly) */
} ctx;

/* vertex v's position p and stencil base b (linear: the pair's, fixed at x*) */
static void vertex_stencil(const ctx *C, const double *x, int64_t v, double p[3], int b[3]) {
  p[0] = p[1] = p[2] = 0;
  for (int a = 0; a < C->dim; a++)
    p[a] = x[v * C->dim + a];
  if (C->p.interp == TIDE_LIU_LINEAR) {
    b[0] = C->base[v][0], b[1] = C->base[v][1], b[2] = C->base[v][2];
  } else {
    tide_liu_stencil_base(C->g, C->p.interp, p, b);
  }
}

static void vertex_dist(const ctx *C, const double *phi, const double *x, int64_t v,
                        tide_liu_dist *r) {
  double p[3];
  int b[3];
  vertex_stencil(C, x, v, p, b);
  tide_liu_distance_at(C->g, phi, C->p.interp, b, p, r);
}

/* vertex_dist's d alone (bit-identical, no derivatives) */
static double vertex_value(const ctx *C, const double *phi, const double *x, int64_t v) {
  double p[3];
  int b[3];
  vertex_stencil(C, x, v, p, b);
  return tide_liu_distance_value(C->g, phi, C->p.interp, b, p);
}

/* Objective with the lagged masses; +inf when a live pair has d <= 0 (with
 * line search); *mind the smallest live distance. */
static double energy(const ctx *C, const double *phi, const double *x, double *mind) {
  const double *ps = C->phi_star, *xs = C->S->x_star;
  int dim = C->dim, clampd = !C->p.line_search;
  double dhat = C->p.dhat, kappa = C->p.kappa, md = INFINITY;
#pragma omp parallel for schedule(static)
  for (int64_t u = 0; u < C->nphi; u++) {
    double e = phi[C->ucell[u]] - ps[C->ucell[u]];
    C->ubuf[u] = 0.5 * C->mf[u] * e * e;
  }
  int mesh = C->S->mesh != NULL;
  double eip = 0;
  if (mesh && tide_fem_ip_value(C->S->mesh, &C->ip, x, &eip)) eip = INFINITY;
#pragma omp parallel for schedule(static) reduction(min : md)
  for (int64_t v = 0; v < C->nv; v++) {
    double e = 0;
    if (C->xmap[v] >= 0 && !mesh)
      for (int a = 0; a < dim; a++) {
        double q = x[v * dim + a] - xs[v * dim + a];
        e += 0.5 * C->S->mass[v] * q * q;
      }
    if (C->live[v]) {
      double d = vertex_value(C, phi, x, v);
      if (d < md) md = d;
      if (clampd && d < 1e-3 * dhat) d = 1e-3 * dhat; /* no line search: finite barrier */
      if (d < dhat) e += kappa * tide_barrier(d, dhat);
    }
    C->vbuf[v] = e;
  }
  *mind = md;
  return tide_sum(C->nphi, C->ubuf) + tide_sum(C->nv, C->vbuf) + (isfinite(eip) ? eip : INFINITY);
}

/* h_c = V_c - V0_c */
static void constraints(const ctx *C, const double *phi, double *h) {
  double k = C->p.k;
  for (int c = 0; c < C->ncomp; c++)
    h[c] = C->fixvol[c] - C->target[c];
    /* blocked sums per component in unknown order (deterministic) */
#pragma omp parallel for schedule(static)
  for (int64_t u = 0; u < C->nphi; u++)
    C->ubuf[u] = tide_levelset_heaviside(phi[C->ucell[u]], k) * C->vc;
  for (int64_t u = 0; u < C->nphi; u++) {
    int32_t l = C->labels[C->ucell[u]];
    if (l >= 0) h[l] += C->ubuf[u];
  }
}

static double heaviside_slope(double ph, double k) {
  double H = tide_levelset_heaviside(ph, k);
  return -2 * k * H * (1 - H);
}

/* gradient g and the SPD Hessian at (phi, x): the solid's block in C->H
 * (the mesh's CSR, refilled), the level-set masses and the barrier blocks in
 * T; for CHOLMOD, which reads one triangle, the upper triangle only (j >= i:
 * the entries it read of the full list, summed in the same order) */
static int assemble(ctx *C, const double *phi, const double *x, double *grad,
                    tide_triplets *T) {
  int dim = C->dim, upper = C->p.solver == TIDE_LIU_CHOLMOD;
  double dhat = C->p.dhat, kappa = C->p.kappa;
  const double *ps = C->phi_star, *xs = C->S->x_star;
  int clampd = !C->p.line_search;
#pragma omp parallel for schedule(static)
  for (int64_t u = 0; u < C->nphi; u++)
    grad[u] = C->mf[u] * (phi[C->ucell[u]] - ps[C->ucell[u]]);
  /* the diagonals serially (into the first thread's list): the parallel
   * barrier loop below then appends in thread order, and the list is the
   * serial order for any thread count (with both loops parallel it was
   * thread 0's diagonal, thread 0's blocks, thread 1's diagonal, ...: a sum
   * order that changed with the thread count) */
  for (int64_t u = 0; u < C->nphi; u++)
    tide_triplets_add(T, (int)u, (int)u, C->mf[u]);
  if (C->S->mesh) {
    /* the solid's incremental potential (inertia, dt^2 elasticity, damping),
     * element Hessians PSD-projected: the mesh's CSR, embedded at the free
     * DOFs' unknowns with T's entries by the caller (each entry its element
     * triplets summed in list order, as the triplets copied into T were) */
    int s = tide_solid_ip_system(C->S->mesh, &C->ip, x, TIDE_FEM_PROJECT, C->mg, &C->H);
    if (s) return s;
    for (int64_t v = 0; v < C->nv; v++)
      if (C->xmap[v] >= 0)
        for (int a = 0; a < dim; a++)
          grad[C->xmap[v] + a] = C->mg[v * dim + a];
  } else {
    for (int64_t v = 0; v < C->nv; v++)
      if (C->xmap[v] >= 0)
        for (int a = 0; a < dim; a++)
          grad[C->xmap[v] + a] = C->S->mass[v] * (x[v * dim + a] - xs[v * dim + a]);
    for (int64_t v = 0; v < C->nv; v++)
      if (C->xmap[v] >= 0)
        for (int a = 0; a < dim; a++)
          tide_triplets_add(T, (int)(C->xmap[v] + a), (int)(C->xmap[v] + a), C->S->mass[v]);
  }
  /* barrier blocks (Eq. 20); the gradient entries are few and shared
   * between vertices: added serially after the parallel Hessian pass */
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < C->nv; v++) {
    if (!C->live[v]) continue;
    double d = vertex_value(C, phi, x, v); /* the far pairs without derivatives */
    if (clampd && d < 1e-3 * dhat) d = 1e-3 * dhat;
    if (d >= dhat) continue;
    tide_liu_dist r;
    vertex_dist(C, phi, x, v, &r);
    double db, ddb;
    tide_barrier_eval(d, dhat, NULL, &db, &ddb);
    int idx[TIDE_LIU_MAXST + 3], cc[TIDE_LIU_MAXST + 3];
    double gd[TIDE_LIU_MAXST + 3];
    int m = 0, mphi;
    for (int c = 0; c < r.n; c++)
      if (C->umap[r.cell[c]] >= 0) idx[m] = C->umap[r.cell[c]], cc[m] = c, gd[m++] = r.w[c];
    mphi = m;
    if (C->xmap[v] >= 0)
      for (int a = 0; a < dim; a++)
        idx[m] = (int)(C->xmap[v] + a), gd[m++] = r.grad[a];
    if (C->p.hessian == TIDE_LIU_HESS_PROJECTED && m > mphi && m <= TIDE_SYM_EIG_MAXN) {
      /* kappa (b'' grad d grad d^T + b' grad^2 d), grad^2 d = [0, dw/dx; dw/dx^T, d2d/dx2]
       * (d is linear in phi), projected to PSD per pair */
      double Hp[TIDE_SYM_EIG_MAXN * TIDE_SYM_EIG_MAXN];
      for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
          double h2 = 0;
          if (i >= mphi && j >= mphi)
            h2 = r.hess[i - mphi][j - mphi];
          else if (i < mphi && j >= mphi)
            h2 = r.dwdx[cc[i]][j - mphi];
          else if (i >= mphi && j < mphi)
            h2 = r.dwdx[cc[j]][i - mphi];
          Hp[i * m + j] = kappa * (ddb * gd[i] * gd[j] + db * h2);
        }
      tide_sym_project_psd(m, Hp);
      for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
          if (!upper || idx[j] >= idx[i]) tide_triplets_add(T, idx[i], idx[j], Hp[i * m + j]);
      continue;
    }
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++)
        if (!upper || idx[j] >= idx[i])
          tide_triplets_add(T, idx[i], idx[j], kappa * ddb * gd[i] * gd[j]);
  }
  for (int64_t v = 0; v < C->nv; v++) {
    if (!C->live[v]) continue;
    double d = vertex_value(C, phi, x, v); /* the far pairs without derivatives */
    if (clampd && d < 1e-3 * dhat) d = 1e-3 * dhat;
    if (d >= dhat) continue;
    tide_liu_dist r;
    vertex_dist(C, phi, x, v, &r);
    double db = tide_barrier_gradient(d, dhat);
    for (int c = 0; c < r.n; c++)
      if (C->umap[r.cell[c]] >= 0) grad[C->umap[r.cell[c]]] += kappa * db * r.w[c];
    if (C->xmap[v] >= 0)
      for (int a = 0; a < dim; a++)
        grad[C->xmap[v] + a] += kappa * db * r.grad[a];
  }
  return TIDE_OK;
}

/* closest points of segments P0->P1 and Q0->Q1: parameters s (on P), t (on Q)
 * (Ericson, Real-Time Collision Detection, Sec. 5.1.9) */
static void segment_closest(const double *P0, const double *P1, const double *Q0, const double *Q1,
                            int dim, double *s, double *t) {
  double d1[3] = {0}, d2[3] = {0}, r[3] = {0};
  for (int a = 0; a < dim; a++)
    d1[a] = P1[a] - P0[a], d2[a] = Q1[a] - Q0[a], r[a] = P0[a] - Q0[a];
  double A = 0, E = 0, F = 0, B = 0, Cc = 0;
  for (int a = 0; a < dim; a++)
    A += d1[a] * d1[a], E += d2[a] * d2[a], F += d2[a] * r[a], B += d1[a] * d2[a],
        Cc += d1[a] * r[a];
  const double eps = 1e-300;
  if (A <= eps && E <= eps) {
    *s = *t = 0;
    return;
  }
  if (A <= eps) {
    *s = 0;
    *t = fmin(fmax(F / E, 0), 1);
    return;
  }
  if (E <= eps) {
    *t = 0;
    *s = fmin(fmax(-Cc / A, 0), 1);
    return;
  }
  double den = A * E - B * B, ss = den > 0 ? fmin(fmax((B * F - Cc * E) / den, 0), 1) : 0;
  double tt = (B * ss + F) / E;
  if (tt < 0) {
    tt = 0;
    ss = fmin(fmax(-Cc / A, 0), 1);
  } else if (tt > 1) {
    tt = 1;
    ss = fmin(fmax((B - Cc) / A, 0), 1);
  }
  *s = ss, *t = tt;
}

/* The CCD bound of Sec. 4.3.5 over the near, approaching pairs: the vertex
 * segment x -> x + p against the segment between the closest surface points
 * before and after the step (projection along the level-set normal).
 *   TIDE_LIU_CCD_PAPER: t_b = min(gamma, beta) of the closest points of the
 *     two segments (the paper's lower bound).  A segment shorter than 1e-3 dx
 *     has no parameter of its own (the other one is used); t_b = 0 (closest
 *     at the start) carries no information.  When the vertex pushes the
 *     surface ahead of it the two segments are collinear and overlap, and
 *     this bound is that of a collision that never happens: Newton then
 *     crawls (Fig. 9 at CFL >= 1).
 *   TIDE_LIU_CCD_COMMON: the time the bound stands for, at a common t: the
 *     first t in [0, 1] where |S_p(t) - S_phi(t)| = 0.1 |S_p(0) - S_phi(0)|
 *     (a quadratic in t), no bound if there is none.
 * Either way the line search still rejects any trial with a vertex at d <= 0.
 * Returns the smallest t_b in (0, 1], 1 if none. */
static double ccd_bound(const ctx *C, const double *phi, const double *x, const double *phi1,
                        const double *x1) {
  int dim = C->dim, paper = C->p.ccd == TIDE_LIU_CCD_PAPER;
  double dhat = C->p.dhat, tmin = 1, shortlen = 1e-3 * C->g->dx;
#pragma omp parallel for schedule(static) reduction(min : tmin)
  for (int64_t v = 0; v < C->nv; v++) {
    if (!C->live[v]) continue;
    double d0 = vertex_value(C, phi, x, v), d1 = vertex_value(C, phi1, x1, v);
    if (!(fmin(d0, d1) < dhat) || !(d1 < d0)) continue;
    tide_liu_dist r0, r1;
    vertex_dist(C, phi, x, v, &r0);
    vertex_dist(C, phi1, x1, v, &r1);
    double P0[3], P1[3], Q0[3], Q1[3], g0 = 0, g1 = 0, lp = 0, lq = 0;
    for (int a = 0; a < dim; a++)
      g0 += r0.grad[a] * r0.grad[a], g1 += r1.grad[a] * r1.grad[a];
    g0 = g0 > 0 ? 1 / sqrt(g0) : 0, g1 = g1 > 0 ? 1 / sqrt(g1) : 0;
    for (int a = 0; a < dim; a++) {
      P0[a] = x[v * dim + a], P1[a] = x1[v * dim + a];
      Q0[a] = P0[a] - r0.d * r0.grad[a] * g0, Q1[a] = P1[a] - r1.d * r1.grad[a] * g1;
      lp += (P1[a] - P0[a]) * (P1[a] - P0[a]), lq += (Q1[a] - Q0[a]) * (Q1[a] - Q0[a]);
    }
    if (sqrt(lp) < shortlen && sqrt(lq) < shortlen) continue;
    double tb = 1;
    if (paper) {
      double gam, bet;
      segment_closest(P0, P1, Q0, Q1, dim, &gam, &bet);
      if (sqrt(lp) < shortlen)
        tb = bet;
      else if (sqrt(lq) < shortlen)
        tb = gam;
      else
        tb = fmin(gam, bet);
    } else {
      /* r(t) = r0 + t dr; |r(t)|^2 = (0.1 |r0|)^2 */
      double aa = 0, bb = 0, cc = 0;
      for (int a = 0; a < dim; a++) {
        double r = P0[a] - Q0[a], dr = (P1[a] - P0[a]) - (Q1[a] - Q0[a]);
        aa += dr * dr, bb += 2 * r * dr, cc += r * r;
      }
      cc *= 1 - 0.01;
      double disc = bb * bb - 4 * aa * cc;
      if (!(aa > 0) || disc < 0) continue;
      double t = (-bb - sqrt(disc)) / (2 * aa);
      if (!(t >= 0 && t <= 1)) continue;
      tb = t;
    }
    if (tb > 0 && tb < tmin) tmin = tb;
  }
  return tmin;
}

static void ctx_free(ctx *C) {
  tide_free(C->umap, (size_t)C->N * sizeof(int32_t));
  tide_free(C->ucell, (size_t)(C->nphi > 0 ? C->nphi : 1) * sizeof(int64_t));
  tide_free(C->xmap, (size_t)(C->nv > 0 ? C->nv : 1) * sizeof(int64_t));
  tide_free(C->base, (size_t)(C->nv > 0 ? C->nv : 1) * sizeof(int[3]));
  tide_free(C->live, (size_t)(C->nv > 0 ? C->nv : 1));
  tide_free(C->mf, (size_t)(C->nphi > 0 ? C->nphi : 1) * sizeof(double));
  tide_free(C->heavy, (size_t)(C->nphi > 0 ? C->nphi : 1));
  tide_free(C->fixvol, (size_t)(C->ncomp > 0 ? C->ncomp : 1) * sizeof(double));
  tide_free(C->vbuf, (size_t)(C->nv > 0 ? C->nv : 1) * sizeof(double));
  tide_free(C->ubuf, (size_t)(C->nphi > 0 ? C->nphi : 1) * sizeof(double));
  tide_free(C->mg, C->mg ? (size_t)C->nv * C->dim * sizeof(double) : 0);
  tide_free(C->dof, C->dof ? (size_t)C->nv * C->dim * sizeof(int) : 0);
}

/* The system CHOLMOD factors: A without its decoupled unknowns.  Most
 * level-set unknowns (all but those in the stencils of the pairs within the
 * barrier's reach) hold only their mass on the diagonal; they are solved by
 * a division and the rest, the solid and the coupled cells, forms the
 * reduced matrix R (upper storage, the rows and columns kept in order). */
typedef struct reduced {
  int n, nr;
  int *keep;     /* n: row of R, or -1 (decoupled: y_i = b_i / diag[i]) */
  double *diag;  /* n: the decoupled rows' diagonal */
  int64_t *from; /* nnz(R): the entry of A each entry of R holds */
  int64_t cap;   /* entries allocated in from */
  tide_csr *R;
  double *br, *yr; /* nr: right-hand side and solution of R */
} reduced;

static void reduced_free(reduced *D) {
  size_t nb = (size_t)(D->n > 0 ? D->n : 1);
  tide_free(D->keep, nb * sizeof(int));
  tide_free(D->diag, nb * sizeof(double));
  tide_free(D->br, nb * sizeof(double));
  tide_free(D->yr, nb * sizeof(double));
  tide_free(D->from, (size_t)D->cap * sizeof(int64_t));
  tide_csr_free(D->R);
}

/* R and the map from A (upper storage; a new pattern) */
static int reduced_build(const tide_csr *A, reduced *D) {
  int n = A->nrows;
  tide_csr_free(D->R);
  D->R = NULL;
  for (int i = 0; i < n; i++)
    D->keep[i] = 0;
  for (int i = 0; i < n; i++) {
    int k0 = A->rowptr[i], k1 = A->rowptr[i + 1];
    for (int k = k0; k < k1; k++)
      if (A->col[k] != i) D->keep[i] = D->keep[A->col[k]] = 1;
    /* a row without a positive diagonal stays for CHOLMOD to report */
    if (k1 - k0 != 1 || A->col[k0] != i || !(A->val[k0] > 0)) D->keep[i] = 1;
  }
  int64_t nnz = 0;
  D->nr = 0;
  for (int i = 0; i < n; i++)
    if (D->keep[i]) {
      D->keep[i] = D->nr++;
      nnz += A->rowptr[i + 1] - A->rowptr[i];
    } else {
      D->keep[i] = -1;
    }
  if (nnz > D->cap) {
    tide_free(D->from, (size_t)D->cap * sizeof(int64_t));
    D->cap = 0;
    if (!(D->from = tide_alloc((size_t)nnz * sizeof(int64_t)))) return TIDE_ENOMEM;
    D->cap = nnz;
  }
  int s = tide_csr_new(D->nr, D->nr, nnz > 0 ? nnz : 1, &D->R);
  if (s) return s;
  tide_csr *R = D->R;
  R->stype = TIDE_CSR_UPPER;
  int64_t q = 0;
  for (int i = 0; i < n; i++) {
    if (D->keep[i] < 0) {
      D->diag[i] = A->val[A->rowptr[i]];
      continue;
    }
    /* a kept row's columns are all kept (an off-diagonal entry keeps both) */
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      R->col[q] = D->keep[A->col[k]];
      R->val[q] = A->val[k];
      D->from[q++] = k;
    }
    R->rowptr[D->keep[i] + 1] = (int)q;
  }
  return tide_csr_finish(R);
}

/* new values of A on R's pattern */
static void reduced_values(const tide_csr *A, reduced *D) {
  for (int64_t q = 0; q < tide_csr_nnz(D->R); q++)
    D->R->val[q] = A->val[D->from[q]];
  for (int i = 0; i < D->n; i++)
    if (D->keep[i] < 0) D->diag[i] = A->val[A->rowptr[i]];
}

/* Solve A y = b with the chosen solver (CHOLMOD: factor F of D's reduced
 * matrix, built by the caller; NULL if nothing is coupled). */
static int lin_solve(const ctx *C, tide_factor *F, reduced *D, const tide_csr *A, const double *b,
                     double *y, tide_liu_stats *st) {
  if (C->p.solver == TIDE_LIU_CHOLMOD) {
    for (int i = 0; i < D->n; i++)
      if (D->keep[i] >= 0)
        D->br[D->keep[i]] = b[i];
      else
        y[i] = b[i] / D->diag[i];
    if (!F) return TIDE_OK;
    int s = tide_factor_solve(F, D->br, D->yr);
    if (s) return s;
    for (int i = 0; i < D->n; i++)
      if (D->keep[i] >= 0) y[i] = D->yr[D->keep[i]];
    return TIDE_OK;
  }
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-10;
  tide_solve_stats ks;
  memset(y, 0, (size_t)C->n * sizeof(double));
  int s = C->p.solver == TIDE_LIU_PCG
              ? tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_IC0, b, y, &o, &ks)
              : tide_solve_krylov(A, TIDE_KRYLOV_BICGSTAB, TIDE_PRECOND_ILU0, b, y, &o, &ks);
  st->krylov_iters += ks.iterations;
  return s;
}

int tide_liu_solve(const tide_grid *g, const double *phi_star, const int32_t *labels, int ncomp,
                   const double *target, const tide_liu_solid *S, const tide_liu_params *pin,
                   double *phi, double *x, tide_liu_stats *st) {
  const char *fn = "liu solve";
  memset(st, 0, sizeof *st);
  ctx C;
  memset(&C, 0, sizeof C);
  C.g = g, C.phi_star = phi_star, C.labels = labels, C.ncomp = ncomp, C.target = target, C.S = S;
  C.p = *pin;
  C.dim = g->dim;
  C.N = tide_grid_ncells(g);
  C.nv = S->nv;
  C.vc = pow(g->dx, g->dim);
  tide_liu_params *p = &C.p;
  int dim = C.dim;
  if (p->interp != TIDE_LIU_LINEAR && p->interp != TIDE_LIU_QUADRATIC)
    return tide_fail(TIDE_EINVAL, "%s: interp must be linear (1) or quadratic (2)", fn);
  if (!(p->dt > 0) || !isfinite(p->dt))
    return tide_fail(TIDE_EINVAL, "%s: dt must be positive and finite", fn);
  if (!(p->k > 0) || !isfinite(p->k))
    return tide_fail(TIDE_EINVAL, "%s: k (Heaviside sharpness) must be positive", fn);
  if (!(p->rho > 0) || !isfinite(p->rho))
    return tide_fail(TIDE_EINVAL, "%s: rho must be positive", fn);
  if (!(p->air_density > 0 && p->air_density <= 1))
    return tide_fail(TIDE_EINVAL, "%s: air_density must be in (0, 1]", fn);
  if (p->max_iter < 1 || p->max_iter > 10000)
    return tide_fail(TIDE_EINVAL, "%s: max_iter must be in 1..10000", fn);
  if (p->hessian != TIDE_LIU_HESS_GAUSS_NEWTON && p->hessian != TIDE_LIU_HESS_PROJECTED)
    return tide_fail(TIDE_EINVAL, "%s: unknown hessian %d", fn, p->hessian);
  if (p->ccd != TIDE_LIU_CCD_COMMON && p->ccd != TIDE_LIU_CCD_PAPER)
    return tide_fail(TIDE_EINVAL, "%s: unknown ccd %d", fn, p->ccd);
  if (p->solver != TIDE_LIU_CHOLMOD && p->solver != TIDE_LIU_BICGSTAB && p->solver != TIDE_LIU_PCG)
    return tide_fail(TIDE_EINVAL, "%s: unknown solver %d", fn, p->solver);
  if (p->stencil_mass != TIDE_LIU_STENCIL_LIQUID && p->stencil_mass != TIDE_LIU_STENCIL_LAGGED)
    return tide_fail(TIDE_EINVAL, "%s: unknown stencil_mass %d", fn, p->stencil_mass);
  if (isnan(p->dhat) || isnan(p->kappa) || isnan(p->band) || isnan(p->tol) || !(p->vol_tol > 0))
    return tide_fail(TIDE_EINVAL, "%s: dhat, kappa, band, tol must not be NaN, vol_tol > 0", fn);
  if (ncomp < 0) return tide_fail(TIDE_EINVAL, "%s: ncomp < 0", fn);
  if (!(p->dhat > 0)) p->dhat = 0.5 * g->dx;
  if (!(p->kappa > 0)) p->kappa = p->rho * C.vc;
  if (!(p->band > 0)) p->band = 3 * g->dx;
  if (!(p->tol > 0)) p->tol = 1e-2 * g->dx / p->dt;
  if (!isfinite(p->dhat) || !isfinite(p->kappa) || !isfinite(p->band) || !isfinite(p->tol))
    return tide_fail(TIDE_EINVAL, "%s: dhat, kappa, band and tol must be finite", fn);
  char name[48];
  for (int64_t c = 0; c < C.N; c++)
    if (!isfinite(phi[c]) || !isfinite(phi_star[c]))
      return tide_fail(TIDE_ENONFINITE, "%s: non-finite phi at cell %s", fn,
                       tide_grid_cellname(g, c, name));
  for (int64_t c = 0; c < C.N; c++)
    if (labels[c] < -1 || labels[c] >= ncomp)
      return tide_fail(TIDE_EINVAL, "%s: label %d at cell %s out of range", fn, labels[c],
                       tide_grid_cellname(g, c, name));
  for (int c = 0; c < ncomp; c++)
    if (!(target[c] > 0) || !isfinite(target[c]))
      return tide_fail(TIDE_EINVAL, "%s: target volume %d must be positive", fn, c + 1);
  if (S->mesh && (S->mesh->nv != S->nv || S->mesh->dim != dim || !S->mesh->fem))
    return tide_fail(
        TIDE_EINVAL,
        "%s: the solid mesh must have a material, nv = %lld nodes and the grid's dimension", fn,
        (long long)S->nv);
  for (int64_t v = 0; v < C.nv; v++) {
    int fixed = S->fixed && S->fixed[v];
    for (int a = 0; a < dim; a++)
      if (!isfinite(x[v * dim + a]) || !isfinite(S->x_star[v * dim + a]))
        return tide_fail(TIDE_ENONFINITE, "%s: vertex %lld has a non-finite position", fn,
                         (long long)v + 1);
    if (!fixed && !(S->mass[v] > 0 && isfinite(S->mass[v])))
      return tide_fail(TIDE_EINVAL, "%s: free vertex %lld needs a positive finite mass", fn,
                       (long long)v + 1);
  }

  int s = TIDE_OK;
  tide_triplets *T = NULL, *Tp = NULL; /* this iteration's triplets and the last one's */
  tide_csr *A = NULL;
  tide_factor *F = NULL;
  reduced D;
  memset(&D, 0, sizeof D);
  double *grad = NULL, *dz = NULL, *Y = NULL, *Jv = NULL, *phi1 = NULL, *x1 = NULL, *h = NULL,
         *h1 = NULL, *lam = NULL, *Sm = NULL, *rhs = NULL;
  size_t nvb = (size_t)(C.nv > 0 ? C.nv : 1), ncb = (size_t)(ncomp > 0 ? ncomp : 1);
  C.umap = tide_alloc((size_t)C.N * sizeof(int32_t));
  C.xmap = tide_alloc(nvb * sizeof(int64_t));
  C.base = tide_alloc(nvb * sizeof(int[3]));
  C.live = tide_alloc(nvb);
  C.fixvol = tide_calloc(ncb * sizeof(double));
  C.vbuf = tide_alloc(nvb * sizeof(double));
  if (!C.umap || !C.xmap || !C.base || !C.live || !C.fixvol || !C.vbuf) {
    s = TIDE_ENOMEM;
    goto done;
  }
  if (S->mesh) {
    C.ip.dt = p->dt, C.ip.xhat = S->x_star, C.ip.xn = S->xn;
    C.mg = tide_alloc((size_t)C.nv * dim * sizeof(double));
    C.dof = tide_alloc((size_t)C.nv * dim * sizeof(int));
    if (!C.mg || !C.dof) {
      s = TIDE_ENOMEM;
      goto done;
    }
  }
  /* unknowns: band cells of phi* or phi^n, and the stencil cells of every
   * vertex at x^n and x* (a vertex sees no frozen cell).  The start is
   * phi^n on the unknowns (Sec. 4.3.4: penetration-free), phi* elsewhere */
  for (int64_t v = 0; v < C.nv; v++)
    if (S->fixed && S->fixed[v])
      for (int a = 0; a < dim; a++)
        x[v * dim + a] = S->x_star[v * dim + a];
  for (int64_t c = 0; c < C.N; c++)
    C.umap[c] = fabs(phi_star[c]) < p->band || fabs(phi[c]) < p->band;
  for (int64_t v = 0; v < C.nv; v++)
    for (int e = 1; e >= 0; e--) {
      double q[3] = {0, 0, 0};
      for (int a = 0; a < dim; a++)
        q[a] = e ? S->x_star[v * dim + a] : x[v * dim + a];
      int b[3];
      tide_liu_dist r;
      tide_liu_stencil_base(g, p->interp, q, b);
      tide_liu_distance_at(g, phi, p->interp, b, q, &r);
      for (int c = 0; c < r.n; c++)
        C.umap[r.cell[c]] = e ? (C.umap[r.cell[c]] == 2 ? 2 : 1) : 2;
    }
  C.nphi = 0;
  for (int64_t c = 0; c < C.N; c++) {
    int in = C.umap[c];
    C.umap[c] = in ? (int32_t)C.nphi++ : -1;
    if (!in) phi[c] = phi_star[c];
  }
  C.nx = 0;
  for (int64_t v = 0; v < C.nv; v++) {
    int fixed = S->fixed && S->fixed[v];
    C.xmap[v] = fixed ? -1 : C.nphi + C.nx;
    if (!fixed) C.nx += dim;
  }
  C.n = C.nphi + C.nx;
  if (C.n > 2000000000) {
    s = tide_fail(TIDE_EINVAL, "%s: too many unknowns (%lld)", fn, (long long)C.n);
    goto done;
  }
  if (C.dof)
    for (int64_t v = 0; v < C.nv; v++)
      for (int a = 0; a < dim; a++)
        C.dof[v * dim + a] = C.xmap[v] >= 0 ? (int)(C.xmap[v] + a) : -1;
  size_t npb = (size_t)(C.nphi > 0 ? C.nphi : 1), nb = (size_t)(C.n > 0 ? C.n : 1);
  C.ucell = tide_alloc(npb * sizeof(int64_t));
  C.mf = tide_alloc(npb * sizeof(double));
  C.heavy = tide_calloc(npb);
  C.ubuf = tide_alloc(npb * sizeof(double));
  grad = tide_alloc(nb * sizeof(double));
  dz = tide_alloc(nb * sizeof(double));
  rhs = tide_alloc(nb * sizeof(double));
  Y = tide_alloc(nb * ncb * sizeof(double));
  Jv = tide_alloc(npb * sizeof(double));
  phi1 = tide_alloc((size_t)C.N * sizeof(double));
  x1 = tide_alloc(nvb * (size_t)dim * sizeof(double));
  h = tide_alloc(ncb * sizeof(double));
  h1 = tide_alloc(ncb * sizeof(double));
  lam = tide_alloc(ncb * sizeof(double));
  Sm = tide_alloc(ncb * ncb * sizeof(double));
  if (!C.ucell || !C.mf || !C.heavy || !C.ubuf || !grad || !dz || !rhs || !Y || !Jv || !phi1 ||
      !x1 || !h || !h1 || !lam || !Sm) {
    s = TIDE_ENOMEM;
    goto done;
  }
  for (int64_t c = 0; c < C.N; c++)
    if (C.umap[c] >= 0) C.ucell[C.umap[c]] = c;
  if (p->stencil_mass == TIDE_LIU_STENCIL_LIQUID)
    for (int64_t v = 0; v < C.nv; v++) {
      double q[3] = {0, 0, 0};
      for (int a = 0; a < dim; a++)
        q[a] = S->x_star[v * dim + a];
      int b[3];
      tide_liu_dist r;
      tide_liu_stencil_base(g, p->interp, q, b);
      tide_liu_distance_at(g, phi, p->interp, b, q, &r);
      for (int c = 0; c < r.n; c++)
        C.heavy[C.umap[r.cell[c]]] = 1;
    }
  for (int64_t c = 0; c < C.N; c++)
    if (C.umap[c] < 0 && labels[c] >= 0)
      C.fixvol[labels[c]] += tide_levelset_heaviside(phi[c], p->k) * C.vc;
  st->nphi = C.nphi, st->nx = C.nx;
  /* pairs: linear stencils fixed at the reference x* (Sec. 4.3.3) */
  for (int64_t v = 0; v < C.nv; v++) {
    double q[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      q[a] = S->x_star[v * dim + a];
    tide_liu_stencil_base(g, p->interp, q, C.base[v]);
    C.live[v] = 1;
  }
  /* the start must be penetration-free.  Linear: a pair whose stencil at x*
   * extrapolates the start to d <= 0 is paired with the dual cell of the
   * start instead (counted in rebased); if even that one sees the vertex
   * inside, the pair is dropped and counted */
  for (int64_t v = 0; v < C.nv; v++) {
    if (vertex_value(&C, phi, x, v) > 0) continue;
    tide_liu_dist r;
    vertex_dist(&C, phi, x, v, &r);
    if (p->interp == TIDE_LIU_LINEAR) {
      double q[3] = {0, 0, 0};
      for (int a = 0; a < dim; a++)
        q[a] = x[v * dim + a];
      tide_liu_stencil_base(g, p->interp, q, C.base[v]);
      vertex_dist(&C, phi, x, v, &r);
      if (r.d > 0) {
        st->rebased++;
        continue;
      }
      C.live[v] = 0;
      st->dropped++;
    } else if (p->line_search) {
      s = tide_fail(TIDE_EINVAL,
                    "%s: vertex %lld starts inside the liquid (d = %g m): the start must be "
                    "penetration-free",
                    fn, (long long)v + 1, r.d);
      goto done;
    }
  }
  if (p->solver == TIDE_LIU_CHOLMOD) {
    D.n = (int)C.n;
    D.keep = tide_alloc(nb * sizeof(int));
    D.diag = tide_alloc(nb * sizeof(double));
    D.br = tide_alloc(nb * sizeof(double));
    D.yr = tide_alloc(nb * sizeof(double));
    if (!D.keep || !D.diag || !D.br || !D.yr) {
      s = TIDE_ENOMEM;
      goto done;
    }
  }
  if ((s = tide_triplets_new((int)C.n, (int)C.n, &T)) ||
      (s = tide_triplets_new((int)C.n, (int)C.n, &Tp)))
    goto done;

  /* the trial phi: phi off the unknowns, which never change (written there below) */
  memcpy(phi1, phi, (size_t)C.N * sizeof(double));
  double mind = 0;
  for (int it = 0;; it++) {
    double t0 = tide_wtime(), c0 = tide_cputime();
    /* masses (Eq. 13) lagged per iteration and never lowered within the solve
     * (a cell near phi = 0 of a component with a large volume multiplier
     * otherwise flips between liquid and air mass from one iteration to the
     * next and Newton oscillates to the cap; with the maximum the masses
     * settle and Newton converges: Fig. 12 at CFL 1.2, 5 steps at the cap ->
     * 0); a liquid cell's mass in the vertices' stencils (stencil_mass);
     * constraint Jacobian J_ci = H'(phi_i) V_cell */
#pragma omp parallel for schedule(static)
    for (int64_t u = 0; u < C.nphi; u++) {
      double ph = phi[C.ucell[u]], H = tide_levelset_heaviside(ph, p->k);
      double m = p->rho * (C.heavy[u] ? 1 : (1 - p->air_density) * H + p->air_density) * C.vc;
      C.mf[u] = it > 0 ? fmax(C.mf[u], m) : m;
      Jv[u] = labels[C.ucell[u]] >= 0 ? heaviside_slope(ph, p->k) * C.vc : 0;
    }
    tide_triplets *Tt = Tp;
    Tp = T, T = Tt;
    tide_triplets_clear(T);
    if ((s = assemble(&C, phi, x, grad, T))) goto done;
    constraints(&C, phi, h);
    /* A = the solid's Hessian (its pattern fixed by the mesh) at the free
     * DOFs' unknowns + T (the masses and the barrier blocks), each entry
     * the solid's sum, then T's triplets in order: the sums of the one
     * triplet list the solid's entries were copied into before.  The same
     * T pattern as the last iteration (no pair entered or left the
     * barrier's reach): A's map takes the new values, and CHOLMOD keeps its
     * analysis (the same matrix and factor as built anew) */
    int same = A && tide_triplets_same_indices(T, Tp);
    if (same) {
      if ((s = tide_csr_embed_tripletlist_values(A, C.H, T))) goto done;
    } else {
      tide_csr_free(A);
      A = NULL;
      if ((s = tide_csr_embed_tripletlist(
               C.H, C.dof, T, p->solver == TIDE_LIU_CHOLMOD ? TIDE_CSR_UPPER : TIDE_CSR_GENERAL,
               &A)))
        goto done;
    }
    double t1 = tide_wtime(), c1 = tide_cputime();
    st->t_assemble += t1 - t0;
    st->c_assemble += c1 - c0;
    if (p->solver == TIDE_LIU_CHOLMOD) {
      /* the decoupled unknowns out (the pattern decides which), the rest factored */
      if (same) {
        reduced_values(A, &D);
      } else if ((s = reduced_build(A, &D))) {
        goto done;
      }
      if (D.nr == 0) {
        tide_factor_free(F);
        F = NULL;
      } else if (same && F) {
        s = tide_factor_refactor(F, D.R);
      } else {
        tide_factor_free(F);
        F = NULL;
        s = tide_factor_new(D.R, TIDE_FACTOR_CHOLESKY, &F);
      }
      /* the block is SPD by construction, but a barrier at d << d^ adds a
       * rank-one term 1e10 x the liquid masses and the factorization can
       * lose its last pivots to rounding: retry on A + tau diag(A),
       * tau = 1e-10, 1e-8, ... 1e-2 (the regularizer of Sec. 4.3.5) */
      for (double tau = 1e-10; s == TIDE_ENOTSPD && tau <= 1e-2; tau *= 100) {
        tide_factor_free(F);
        F = NULL;
        tide_csr *R = D.R;
        for (int i = 0; i < R->nrows; i++)
          for (int k = R->rowptr[i]; k < R->rowptr[i + 1]; k++)
            if (R->col[k] == i) R->val[k] *= 1 + tau;
        for (int i = 0; i < D.n; i++)
          if (D.keep[i] < 0) D.diag[i] *= 1 + tau;
        st->shifted++;
        s = tide_factor_new(R, TIDE_FACTOR_CHOLESKY, &F);
      }
      if (s) goto done;
    }
    /* Schur complement of the KKT system (Eq. 12):
     *   A dz + J^T lam = -g,  J dz = -h
     *   y0 = -A^-1 g,  Y = A^-1 J^T,  (J Y) lam = J y0 + h,  dz = y0 - Y lam */
    for (int64_t i = 0; i < C.n; i++)
      rhs[i] = -grad[i];
    if ((s = lin_solve(&C, F, &D, A, rhs, dz, st))) goto done;
    for (int c = 0; c < ncomp; c++) {
      for (int64_t i = 0; i < C.n; i++)
        rhs[i] = 0;
      for (int64_t u = 0; u < C.nphi; u++)
        if (labels[C.ucell[u]] == c) rhs[u] = Jv[u];
      if ((s = lin_solve(&C, F, &D, A, rhs, Y + (size_t)c * C.n, st))) goto done;
    }
    for (int c = 0; c < ncomp; c++) {
      double jy0 = 0;
      for (int64_t u = 0; u < C.nphi; u++)
        if (labels[C.ucell[u]] == c) jy0 += Jv[u] * dz[u];
      rhs[c] = jy0 + h[c];
      for (int e = 0; e < ncomp; e++) {
        double sce = 0;
        for (int64_t u = 0; u < C.nphi; u++)
          if (labels[C.ucell[u]] == c) sce += Jv[u] * Y[(size_t)e * C.n + u];
        Sm[c * ncomp + e] = sce;
      }
    }
    /* small dense SPD solve (Gaussian elimination, partial pivoting) */
    for (int c = 0; c < ncomp; c++)
      lam[c] = rhs[c];
    for (int c = 0; c < ncomp; c++) {
      int piv = c;
      for (int r = c + 1; r < ncomp; r++)
        if (fabs(Sm[r * ncomp + c]) > fabs(Sm[piv * ncomp + c])) piv = r;
      if (piv != c) {
        for (int e = 0; e < ncomp; e++) {
          double tmp = Sm[c * ncomp + e];
          Sm[c * ncomp + e] = Sm[piv * ncomp + e], Sm[piv * ncomp + e] = tmp;
        }
        double tmp = lam[c];
        lam[c] = lam[piv], lam[piv] = tmp;
      }
      double dg = Sm[c * ncomp + c];
      if (!(fabs(dg) > 0)) { /* a component with no unknowns: no constraint */
        lam[c] = 0;
        continue;
      }
      for (int r = c + 1; r < ncomp; r++) {
        double f = Sm[r * ncomp + c] / dg;
        for (int e = c; e < ncomp; e++)
          Sm[r * ncomp + e] -= f * Sm[c * ncomp + e];
        lam[r] -= f * lam[c];
      }
    }
    for (int c = ncomp - 1; c >= 0; c--) {
      double dg = Sm[c * ncomp + c];
      if (!(fabs(dg) > 0)) {
        lam[c] = 0;
        continue;
      }
      double sum = lam[c];
      for (int e = c + 1; e < ncomp; e++)
        sum -= Sm[c * ncomp + e] * lam[e];
      lam[c] = sum / dg;
    }
    for (int c = 0; c < ncomp; c++)
      for (int64_t i = 0; i < C.n; i++)
        dz[i] -= Y[(size_t)c * C.n + i] * lam[c];
    double t2 = tide_wtime();
    st->t_solve += t2 - t1;
    st->c_solve += tide_cputime() - c1;
    /* convergence: ||dz||_inf / dt and the volumes */
    /* (the level-set entries weighted by the liquid fraction of Eq. 13, also
     * in the stencils that weigh a liquid cell in the objective) */
    double pinf = 0, verr = 0;
    for (int64_t u = 0; u < C.nphi; u++) {
      double H = tide_levelset_heaviside(phi[C.ucell[u]], p->k);
      pinf = fmax(pinf, fabs(dz[u]) * ((1 - p->air_density) * H + p->air_density));
    }
    for (int64_t i = C.nphi; i < C.n; i++)
      pinf = fmax(pinf, fabs(dz[i]));
    if (!isfinite(pinf)) {
      s = tide_fail(TIDE_ENONFINITE, "%s: non-finite Newton direction", fn);
      goto done;
    }
    for (int c = 0; c < ncomp; c++)
      verr = fmax(verr, fabs(h[c]) / target[c]);
    st->step = pinf / p->dt;
    st->vol_err = verr;
    if (st->step <= p->tol && verr <= p->vol_tol) {
      st->converged = 1;
      break;
    }
    if (it >= p->max_iter) break;
    /* trial point at the full step */
    memcpy(x1, x, (size_t)C.nv * dim * sizeof(double));
    for (int64_t u = 0; u < C.nphi; u++)
      phi1[C.ucell[u]] = phi[C.ucell[u]] + dz[u];
    for (int64_t v = 0; v < C.nv; v++)
      if (C.xmap[v] >= 0)
        for (int a = 0; a < dim; a++)
          x1[v * dim + a] += dz[C.xmap[v] + a];
    double alpha = 1;
    if (p->line_search) {
      double t3 = tide_wtime();
      double tb = ccd_bound(&C, phi, x, phi1, x1);
      if (tb < 1) {
        alpha = tb;
        st->ccd_limited++;
      }
      double t4 = tide_wtime();
      st->t_ccd += t4 - t3;
      /* l1 merit E + mu |h|_1 (Nocedal & Wright Sec. 18.3), mu > max |lam| */
      double mu = 0, h1n = 0, gdz = 0;
      for (int c = 0; c < ncomp; c++)
        mu = fmax(mu, 2 * fabs(lam[c])), h1n += fabs(h[c]);
      for (int64_t i = 0; i < C.n; i++)
        gdz += grad[i] * dz[i];
      double m0 = energy(&C, phi, x, &mind) + mu * h1n, D = gdz - mu * h1n;
      int ok = 0;
      for (int ls = 0; ls < 60; ls++) {
        for (int64_t u = 0; u < C.nphi; u++)
          phi1[C.ucell[u]] = phi[C.ucell[u]] + alpha * dz[u];
        for (int64_t v = 0; v < C.nv; v++)
          if (C.xmap[v] >= 0)
            for (int a = 0; a < dim; a++)
              x1[v * dim + a] = x[v * dim + a] + alpha * dz[C.xmap[v] + a];
        double md1;
        double e1 = energy(&C, phi1, x1, &md1);
        constraints(&C, phi1, h1);
        double hn = 0;
        for (int c = 0; c < ncomp; c++)
          hn += fabs(h1[c]);
        double m1 = e1 + mu * hn;
        if (md1 > 0 && isfinite(m1) && m1 <= m0 + 1e-4 * alpha * fmin(D, 0)) {
          ok = 1;
          break;
        }
        alpha *= 0.5;
        st->halvings++;
      }
      st->t_search += tide_wtime() - t4;
      if (!ok) { /* no decrease along the direction: stop (not converged) */
        st->alpha = 0;
        break;
      }
    } else {
      /* full steps: a step to a non-finite objective (Newton diverging, a
       * vertex far inside) is not taken; the solve stops, not converged */
      double md1;
      if (!isfinite(energy(&C, phi1, x1, &md1)) || !(pinf < 1e3 * p->band / p->dt)) {
        st->diverged = 1;
        st->alpha = 0;
        break;
      }
    }
    st->alpha = alpha;
    for (int64_t u = 0; u < C.nphi; u++)
      phi[C.ucell[u]] += alpha * dz[u];
    for (int64_t v = 0; v < C.nv; v++)
      if (C.xmap[v] >= 0)
        for (int a = 0; a < dim; a++)
          x[v * dim + a] += alpha * dz[C.xmap[v] + a];
    st->iterations = it + 1;
  }
  /* final report with each vertex's own stencil */
  {
    constraints(&C, phi, h);
    double verr = 0;
    for (int c = 0; c < ncomp; c++)
      verr = fmax(verr, fabs(h[c]) / target[c]);
    st->vol_err = verr;
    st->min_d = INFINITY;
    for (int64_t v = 0; v < C.nv; v++) {
      double q[3] = {0, 0, 0};
      for (int a = 0; a < dim; a++)
        q[a] = x[v * dim + a];
      int b[3];
      tide_liu_stencil_base(g, p->interp, q, b);
      double d = tide_liu_distance_value(g, phi, p->interp, b, q);
      if (d < st->min_d) st->min_d = d;
      st->penetrating += d <= 0;
      st->pairs += d < p->dhat;
    }
  }
done:
  tide_triplets_free(T);
  tide_triplets_free(Tp);
  tide_csr_free(A);
  tide_factor_free(F);
  reduced_free(&D);
  tide_free(grad, (size_t)(C.n > 0 ? C.n : 1) * sizeof(double));
  tide_free(dz, (size_t)(C.n > 0 ? C.n : 1) * sizeof(double));
  tide_free(rhs, (size_t)(C.n > 0 ? C.n : 1) * sizeof(double));
  tide_free(Y, (size_t)(C.n > 0 ? C.n : 1) * ncb * sizeof(double));
  tide_free(Jv, (size_t)(C.nphi > 0 ? C.nphi : 1) * sizeof(double));
  tide_free(phi1, (size_t)C.N * sizeof(double));
  tide_free(x1, nvb * (size_t)dim * sizeof(double));
  tide_free(h, ncb * sizeof(double));
  tide_free(h1, ncb * sizeof(double));
  tide_free(lam, ncb * sizeof(double));
  tide_free(Sm, ncb * ncb * sizeof(double));
  ctx_free(&C);
  return s;
}
