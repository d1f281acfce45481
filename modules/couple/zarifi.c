/* zarifi.c -- the coupled pressure projection of Zarifi ch. 5 in three
 * formulations (see zarifi.h):
 *   indefinite  [B  J; J^T  -S] (p, v) = (E u* - J_c v_c, w)               (5.17)
 *   spd         [A11 aA12; aA21 a^2 A22] (p, v/a) = (c1, a c2)     (5.25-5.36)
 *   factored    [B + J Mz^-1 J^T, -J Mz^-1 Rh^T; ., I + Rh Mz^-1 Rh^T] (p, zh)
 *               = (c1, -Rh Mz^-1 w), zh = sqrt(zeta_K) R v      (5.40-5.45)
 * with S = zeta_M M + zeta_K K = Z1 + Z2 (5.18, 5.31), zeta_M = 1/dt + tau_M,
 * zeta_K = dt + tau_K, Z1 = sigma zeta_M M, Mz = zeta_M M (diagonal), and
 * w = -M v* / dt + K x* - b - f + zeta_K K_fc v_c (5.26 with the known
 * velocities v_c of pinned nodes moved to the right-hand side). */
#include "couple/zarifi.h"
#include "linalg/mac_poisson.h"
#include "liquid/project.h"
#include "solid/barrier.h"
#include "solid/fem.h"
#include "solid/integrate.h"
#include "solid/ipc.h"

#include <math.h>
#include <string.h>

tide_zarifi_opts tide_zarifi_opts_default(void) {
  tide_zarifi_opts o;
  memset(&o, 0, sizeof o);
  o.rho = 1000;
  o.formulation = TIDE_ZARIFI_SPD;
  o.solver = TIDE_ZARIFI_PCG;
  o.sigma = 0.9;
  o.alpha = 0;
  o.tol = 1e-10;
  o.rotate = 1;
  o.elastic = 1;
  o.elastic_force = 1;
  o.ring = 1;
  return o;
}

/* ---------------------------------------------------------- helpers */

/* B = A[rmap, cmap] * scale (entries with rmap or cmap < 0 dropped; NULL
 * map: identity).  Rows/columns of the result: nr x nc. */
static int csr_select(const tide_csr *A, const int *rmap, const int *cmap, int nr, int nc,
                      double scale, tide_csr **out) {
  tide_triplets *T;
  int s = tide_triplets_new(nr, nc, &T);
  if (s) return s;
  tide_csr *F = NULL;
  const tide_csr *X = A;
  if (A->stype == TIDE_CSR_UPPER) {
    if ((s = tide_csr_expand(A, &F))) {
      tide_triplets_free(T);
      return s;
    }
    X = F;
  }
  for (int i = 0; i < X->nrows; i++) {
    int r = rmap ? rmap[i] : i;
    if (r < 0) continue;
    for (int p = X->rowptr[i]; p < X->rowptr[i + 1]; p++) {
      int c = cmap ? cmap[X->col[p]] : X->col[p];
      if (c >= 0) tide_triplets_add(T, r, c, scale * X->val[p]);
    }
  }
  s = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, out);
  tide_triplets_free(T);
  tide_csr_free(F);
  return s;
}

/* diagonal matrix diag(d) */
static int csr_diagonal(int n, const double *d, tide_csr **out) {
  int s = tide_csr_new(n, n, n > 0 ? n : 1, out);
  if (s) return s;
  tide_csr *D = *out;
  for (int i = 0; i < n; i++) {
    D->rowptr[i] = i;
    D->col[i] = i;
    D->val[i] = d[i];
  }
  D->rowptr[n] = n;
  return tide_csr_finish(D);
}

/* The 2 x 2 block matrix [s11 X11, s12 X12; s21 X21, s22 X22] (X11 n1 x n1, X22 m x m, all in
 * general storage with ascending columns) in storage stype (TIDE_CSR_UPPER: the entries with
 * column >= row).  Each row is the concatenation of its two block rows, so the result is written
 * directly -- no triplets, no sort -- one row per iteration (the same entries and values, scale *
 * val, as a triplet assembly of the four blocks). */
static int csr_block2(const tide_csr *X11, double s11, const tide_csr *X12, double s12,
                      const tide_csr *X21, double s21, const tide_csr *X22, double s22, int stype,
                      tide_csr **out) {
  *out = NULL;
  int n1 = X11->nrows, m = X22->nrows, n = n1 + m, up = stype == TIDE_CSR_UPPER;
  if (X11->ncols != n1 || X12->nrows != n1 || X12->ncols != m || X21->nrows != m ||
      X21->ncols != n1 || X22->ncols != m)
    return tide_fail(TIDE_EINVAL, "coupled system: block sizes do not fit");
  const tide_csr *X[4] = {X11, X12, X21, X22};
  for (int b = 0; b < 4; b++)
    if (X[b]->stype != TIDE_CSR_GENERAL)
      return tide_fail(TIDE_EINVAL, "coupled system: blocks must be in general storage");
  /* row r's first entry kept in upper storage: its first column >= r of the block's row */
  int *first = NULL;
  if (up) {
    first = tide_alloc((size_t)(n + 1) * sizeof(int));
    if (!first) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  }
  int64_t nnz = 0;
  for (int r = 0; r < n; r++) {
    const tide_csr *L = r < n1 ? X11 : X21, *R = r < n1 ? X12 : X22;
    int i = r < n1 ? r : r - n1;
    int64_t len = R->rowptr[i + 1] - R->rowptr[i];
    if (!up) {
      len += L->rowptr[i + 1] - L->rowptr[i];
    } else if (r < n1) {
      int p = L->rowptr[i];
      while (p < L->rowptr[i + 1] && L->col[p] < r)
        p++;
      first[r] = p;
      len += L->rowptr[i + 1] - p;
    } else {
      int p = R->rowptr[i];
      while (p < R->rowptr[i + 1] && R->col[p] < i)
        p++;
      first[r] = p;
      len = R->rowptr[i + 1] - p;
    }
    nnz += len;
  }
  tide_csr *A = NULL;
  int s = nnz > INT32_MAX ? tide_fail(TIDE_EINVAL, "coupled system too large")
                          : tide_csr_new(n, n, nnz, &A);
  if (s) {
    tide_free(first, first ? (size_t)(n + 1) * sizeof(int) : 0);
    return s;
  }
  A->stype = stype;
  for (int r = 0; r < n; r++) {
    const tide_csr *L = r < n1 ? X11 : X21, *R = r < n1 ? X12 : X22;
    int i = r < n1 ? r : r - n1;
    int len;
    if (!up)
      len = L->rowptr[i + 1] - L->rowptr[i] + R->rowptr[i + 1] - R->rowptr[i];
    else if (r < n1)
      len = L->rowptr[i + 1] - first[r] + R->rowptr[i + 1] - R->rowptr[i];
    else
      len = R->rowptr[i + 1] - first[r];
    A->rowptr[r + 1] = A->rowptr[r] + len;
  }
#pragma omp parallel for schedule(static) if (nnz > 65536)
  for (int r = 0; r < n; r++) {
    int lower = r >= n1, i = lower ? r - n1 : r, o = A->rowptr[r];
    const tide_csr *L = lower ? X21 : X11, *R = lower ? X22 : X12;
    double sl = lower ? s21 : s11, sr = lower ? s22 : s12;
    if (!(up && lower)) /* the left block (upper storage: none below the diagonal block) */
      for (int p = up ? first[r] : L->rowptr[i]; p < L->rowptr[i + 1]; p++) {
        A->col[o] = L->col[p];
        A->val[o++] = sl * L->val[p];
      }
    for (int p = up && lower ? first[r] : R->rowptr[i]; p < R->rowptr[i + 1]; p++) {
      A->col[o] = n1 + R->col[p];
      A->val[o++] = sr * R->val[p];
    }
  }
  tide_free(first, first ? (size_t)(n + 1) * sizeof(int) : 0);
  if ((s = tide_csr_finish(A))) {
    tide_csr_free(A);
    return s;
  }
  *out = A;
  return TIDE_OK;
}

/* nonzeros of the full matrix represented by A */
static int64_t full_nnz(const tide_csr *A) {
  int64_t n = tide_csr_nnz(A);
  if (A->stype != TIDE_CSR_UPPER) return n;
  int64_t dg = 0;
  for (int i = 0; i < A->nrows; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      dg += A->col[p] == i;
  return 2 * n - dg;
}

static double norm2(int64_t n, const double *x) { return sqrt(tide_dot(n, x, x)); }

/* ||A x - b|| / ||b||, A x by the MG-in-block preconditioner's product where there is one (the
 * split the solve used: X x + Y Z^-1 Y^T x, without the assembled A22's rounding floor) */
static int rel_residual(const tide_csr *A, tide_zarifi_precond *M, int64_t n, const double *x,
                        const double *b, double *tmp, double *out) {
  int s = M ? tide_zarifi_precond_mul(M, x, tmp) : tide_csr_mul(A, x, tmp);
  if (s) return s;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; i++)
    tmp[i] -= b[i];
  double nb = norm2(n, b);
  *out = norm2(n, tmp) / (nb > 0 ? nb : 1);
  return TIDE_OK;
}

/* ------------------------------------------------------------- R = K^1/2 */

/* upper Cholesky factor U (U^T U = A) of a small SPD matrix, n <= 6 */
static void chol_upper(int n, const double *A, double *U) {
  memset(U, 0, (size_t)(n * n) * sizeof(double));
  for (int i = 0; i < n; i++) {
    double s = A[i * n + i];
    for (int k = 0; k < i; k++)
      s -= U[k * n + i] * U[k * n + i];
    U[i * n + i] = sqrt(s);
    for (int j = i + 1; j < n; j++) {
      double t = A[i * n + j];
      for (int k = 0; k < i; k++)
        t -= U[k * n + i] * U[k * n + j];
      U[i * n + j] = t / U[i * n + i];
    }
  }
}

int tide_zarifi_r_triplets(const tide_tetmesh *m, int r0, int c0, tide_triplets *T) {
  if (!m->fem || !m->fem->R)
    return tide_fail(TIDE_EINVAL, "stiffness factor: the solid has no corotated stiffness yet");
  int d = m->dim, nper = d + 1, ns = d == 3 ? 6 : 3, nc = nper * d;
  double mu = m->fem->mat.mu, la = m->fem->mat.lambda;
  /* A_Psi (Eq. 3.43; 2D: plane strain) and its Cholesky factor L (Eq. 5.38) */
  double Ap[36] = {0}, Lp[36];
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++)
      Ap[i * ns + j] = la + (i == j ? 2 * mu : 0);
  for (int i = d; i < ns; i++)
    Ap[i * ns + i] = 4 * mu;
  chol_upper(ns, Ap, Lp);
  const double *Rr = TIDE_F64P(m->fem->R), *vol = TIDE_F64P(m->vol);
  const int32_t *el = TIDE_I32P(m->elem);
  /* the shear rows of A_eps A_F (Voigt: xy[, xz, yz]) */
  static const int sh3[3][2] = {{0, 1}, {0, 2}, {1, 2}}, sh2[1][2] = {{0, 1}};
  for (int64_t e = 0; e < m->ne; e++) {
    double gr[12], Bm[72] = {0}, LB[72], Re[72];
    tide_fe_shape_gradients(d, tide_fem_dminv(m, e), gr);
    /* strain-displacement A_eps A_F A_D: eps = B y (y = element positions) */
    for (int a = 0; a < nper; a++) {
      for (int i = 0; i < d; i++)
        Bm[i * nc + a * d + i] = gr[a * d + i];
      for (int q = 0; q < ns - d; q++) {
        int i = d == 3 ? sh3[q][0] : sh2[q][0], j = d == 3 ? sh3[q][1] : sh2[q][1];
        Bm[(d + q) * nc + a * d + i] += 0.5 * gr[a * d + j];
        Bm[(d + q) * nc + a * d + j] += 0.5 * gr[a * d + i];
      }
    }
    double sv = sqrt(vol[e]);
    for (int r = 0; r < ns; r++)
      for (int c = 0; c < nc; c++) {
        double s = 0;
        for (int k = r; k < ns; k++)
          s += Lp[r * ns + k] * Bm[k * nc + c];
        LB[r * nc + c] = sv * s;
      }
    /* the element's rotation: R_t = sqrt(V) L B Rt^T (K_e = Rt K_t Rt^T) */
    const double *R = Rr + e * d * d;
    for (int r = 0; r < ns; r++)
      for (int a = 0; a < nper; a++)
        for (int i = 0; i < d; i++) {
          double s = 0;
          for (int j = 0; j < d; j++)
            s += LB[r * nc + a * d + j] * R[i * d + j];
          Re[r * nc + a * d + i] = s;
        }
    for (int r = 0; r < ns; r++)
      for (int a = 0; a < nper; a++)
        for (int i = 0; i < d; i++)
          tide_triplets_add(T, r0 + (int)(e * ns) + r, c0 + el[e * nper + a] * d + i,
                            Re[r * nc + a * d + i]);
  }
  return TIDE_OK;
}

/* ------------------------------------------------------- the projection */

typedef struct zwork {
  int nl, nf, ndof; /* liquid rows, free solid DOFs, all solid DOFs */
  int *rowof;       /* ncells */
  int *freeof;      /* ndof: free index or -1 */
  int *dof0;        /* ns + 1: first DOF of each solid */
  double *vc;       /* ndof known velocities (0 on free DOFs) */
  double *mz;       /* nf: zeta_M m */
  double *zk;       /* nf: zeta_K of the DOF's solid */
  double *w;        /* nf */
  double *r1;       /* nl: E u* - J_c v_c */
  /* the right side's parts that depend on the geometry only (tide_zarifi_system): per free DOF
   * the lumped mass, the elastic force K x* - b, zeta_K K_fc v_c and the walls' barrier gradient;
   * per liquid row J_c v_c and the relative flux (J - J_cell) U (NULL without `relative`) */
  double *mass, *wk, *wc, *wg; /* nf */
  double *jvc, *rel;           /* nl */
  double *theta[3];
  double bscale;             /* B = bscale A_poisson */
  int64_t nfaces;
  tide_zclip *clips;
} zwork;

static void zwork_free(zwork *z, const tide_grid *g, int ns) {
  int64_t nc = tide_grid_ncells(g);
  tide_free(z->rowof, (size_t)nc * sizeof(int));
  tide_free(z->freeof, (size_t)(z->ndof + 1) * sizeof(int));
  tide_free(z->dof0, (size_t)(ns + 1) * sizeof(int));
  tide_free(z->vc, (size_t)(z->ndof + 1) * sizeof(double));
  tide_free(z->mz, (size_t)(z->nf + 1) * sizeof(double));
  tide_free(z->zk, (size_t)(z->nf + 1) * sizeof(double));
  tide_free(z->w, (size_t)(z->nf + 1) * sizeof(double));
  tide_free(z->r1, (size_t)(z->nl + 1) * sizeof(double));
  tide_free(z->mass, (size_t)(4 * (z->nf + 1)) * sizeof(double)); /* one block: mass wk wc wg */
  tide_free(z->jvc, (size_t)(z->nl + 1) * sizeof(double));
  tide_free(z->rel, (size_t)(z->nl + 1) * sizeof(double));
  for (int a = 0; a < 3; a++)
    if (z->theta[a]) {
      int fd[3];
      tide_grid_face_dims(g, a, fd);
      tide_free(z->theta[a], (size_t)fd[0] * fd[1] * fd[2] * sizeof(double));
    }
  if (z->clips) {
    for (int s = 0; s < ns; s++)
      tide_zclip_free(&z->clips[s]);
    tide_free(z->clips, (size_t)ns * sizeof(tide_zclip));
  }
}

/* the corotated model (Zarifi's) for the linear materials; any other material
 * is linearized (solid_matrices) at x*: K = its PSD-projected elastic Hessian, b = K x* - dE/dx */
static int corotated(const tide_tetmesh *m) {
  int md = m->fem->mat.model;
  return md == TIDE_MODEL_LINEAR || md == TIDE_MODEL_ROTATED_LINEAR;
}

static int check_inputs(const tide_mac *u, const tide_array *labels, tide_tetmesh *const *solids,
                        int ns, const tide_zarifi_opts *o, const tide_array *pressure,
                        const tide_mac *valid) {
  int s;
  if (!u || !labels || !o || (ns > 0 && !solids))
    return tide_fail(TIDE_EINVAL, "coupled projection: NULL argument");
  if ((s = tide_mac_check(u, NULL, TIDE_F64, "u"))) return s;
  const tide_grid *g = &u->grid;
  if ((s = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return s;
  if (pressure && (s = tide_grid_check_cells(g, pressure, TIDE_F64, "pressure"))) return s;
  if (valid && (s = tide_mac_check(valid, g, TIDE_U8, "valid"))) return s;
  if (o->fractions && (s = tide_mac_check(o->fractions, g, TIDE_F64, "fractions"))) return s;
  if (o->phi && (s = tide_grid_check_cells(g, o->phi, TIDE_F64, "phi"))) return s;
  if (!(o->dt > 0) || !isfinite(o->dt)) return tide_fail(TIDE_EINVAL, "dt must be positive");
  if (!(o->rho > 0) || !isfinite(o->rho)) return tide_fail(TIDE_EINVAL, "rho must be positive");
  if (!(o->sigma > 0 && o->sigma < 1))
    return tide_fail(TIDE_EINVAL, "sigma must be in (0, 1), got %g", o->sigma);
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (o->sampling != TIDE_ZARIFI_SAMPLE_CELL && o->sampling != TIDE_ZARIFI_SAMPLE_LINEAR)
    return tide_fail(TIDE_EINVAL, "unknown pressure sampling %d", o->sampling);
  if (!isfinite(o->alpha)) return tide_fail(TIDE_EINVAL, "alpha must be finite");
  int f = o->formulation, v = o->solver;
  if (f < 0 || f > 2) return tide_fail(TIDE_EINVAL, "unknown formulation %d", f);
  int ok = f == TIDE_ZARIFI_INDEFINITE
               ? (v == TIDE_ZARIFI_MINRES || v == TIDE_ZARIFI_BICGSTAB || v == TIDE_ZARIFI_LDLT)
               : (v == TIDE_ZARIFI_PCG || v == TIDE_ZARIFI_CHOLMOD || v == TIDE_ZARIFI_MGPCG);
  if (!ok)
    return tide_fail(TIDE_EINVAL,
                     "solver does not fit the formulation: spd and factored take pcg, mgpcg or "
                     "cholmod, indefinite takes minres, bicgstab or ldlt");
  if (o->ring < 0 || o->ring > 64) return tide_fail(TIDE_EINVAL, "ring must be in [0, 64]");
  if (o->interface_solve < TIDE_ZARIFI_IFACE_AUTO ||
      o->interface_solve > TIDE_ZARIFI_IFACE_ASSEMBLED)
    return tide_fail(TIDE_EINVAL, "unknown interface solve %d", o->interface_solve);
  if (!(o->contact_dhat >= 0) || !isfinite(o->contact_dhat) || !isfinite(o->contact_kappa) ||
      o->ncolliders < 0 || (o->ncolliders > 0 && !o->colliders))
    return tide_fail(TIDE_EINVAL, "contact: dhat must be >= 0, kappa finite, colliders given");
  if (o->ncolliders > 0 && o->contact_dhat > 0 && f == TIDE_ZARIFI_FACTORED)
    return tide_fail(TIDE_EINVAL, "the wall barrier (contact dhat > 0) needs the spd or "
                                  "indefinite formulation, not factored (K = R^T R)");
  for (int c = 0; c < o->ncolliders; c++)
    if (!o->colliders[c] || o->colliders[c]->dim != g->dim)
      return tide_fail(TIDE_EINVAL, "contact: collider %d must be %dD", c + 1, g->dim);
  for (int k = 0; k < ns; k++) {
    const tide_tetmesh *m = solids[k];
    if (!m || !m->fem) return tide_fail(TIDE_EINVAL, "solid %d has no material", k + 1);
    if (m->surface || m->dim != g->dim)
      return tide_fail(TIDE_EINVAL, "solid %d must be a %dD volume mesh", k + 1, g->dim);
    for (int j = 0; j < k; j++)
      if (solids[j] == m) return tide_fail(TIDE_EINVAL, "solid %d is given twice", k + 1);
    if (m->fem->thin) return tide_fail(TIDE_EINVAL, "solid %d has shells or rods", k + 1);
    if (f == TIDE_ZARIFI_FACTORED && !corotated(m))
      return tide_fail(TIDE_EINVAL,
                       "solid %d: the factored formulation needs the corotated linear model "
                       "(K = R^T R, Eq. 5.37); other materials take spd or indefinite",
                       k + 1);
    if (tide_array_nonfinite(m->x) || tide_array_nonfinite(m->v) ||
        tide_array_nonfinite(m->fem->force) || tide_array_nonfinite(m->fem->target))
      return tide_fail(TIDE_ENONFINITE,
                       "solid %d: positions, velocities, forces or targets "
                       "contain NaN/Inf",
                       k + 1);
  }
  return TIDE_OK;
}

/* the solid unknowns: free DOFs, known velocities, zeta_M m, zeta_K */
static int number_solids(zwork *z, tide_tetmesh *const *solids, int ns, double dt, int elastic) {
  z->dof0 = tide_alloc((size_t)(ns + 1) * sizeof(int));
  if (!z->dof0) return TIDE_ENOMEM;
  int64_t ndof = 0;
  for (int k = 0; k < ns; k++) {
    z->dof0[k] = (int)ndof;
    ndof += solids[k]->nv * solids[k]->dim;
  }
  if (ndof > INT32_MAX / 2) return tide_fail(TIDE_EINVAL, "too many solid nodes");
  z->dof0[ns] = (int)ndof;
  z->ndof = (int)ndof;
  z->freeof = tide_alloc((size_t)(ndof + 1) * sizeof(int));
  z->vc = tide_calloc((size_t)(ndof + 1) * sizeof(double));
  if (!z->freeof || !z->vc) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  int nf = 0;
  for (int k = 0; k < ns; k++) {
    const tide_tetmesh *m = solids[k];
    const tide_fem *f = m->fem;
    const uint8_t *pin = TIDE_U8P(f->pinned);
    const double *mass = TIDE_F64P(f->mass), *x = TIDE_F64P(m->x), *tg = TIDE_F64P(f->target);
    int d = m->dim;
    for (int64_t i = 0; i < m->nv; i++)
      for (int c = 0; c < d; c++) {
        int q = z->dof0[k] + (int)(i * d + c);
        int fixed = pin[i] || !(mass[i] > 0);
        z->freeof[q] = fixed ? -1 : nf++;
        if (pin[i]) z->vc[q] = (tg[i * d + c] - x[i * d + c]) / dt;
      }
  }
  z->nf = nf;
  z->mz = tide_alloc((size_t)(nf + 1) * sizeof(double));
  z->zk = tide_alloc((size_t)(nf + 1) * sizeof(double));
  z->w = tide_alloc((size_t)(nf + 1) * sizeof(double));
  z->mass = tide_calloc((size_t)(4 * (nf + 1)) * sizeof(double));
  if (!z->mz || !z->zk || !z->w || !z->mass)
    return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  z->wk = z->mass + (nf + 1);
  z->wc = z->wk + (nf + 1);
  z->wg = z->wc + (nf + 1);
  for (int k = 0; k < ns; k++) {
    const tide_fem *f = solids[k]->fem;
    const double *mass = TIDE_F64P(f->mass);
    int d = solids[k]->dim;
    for (int q = z->dof0[k]; q < z->dof0[k + 1]; q++) {
      int r = z->freeof[q];
      if (r < 0) continue;
      z->mass[r] = mass[(q - z->dof0[k]) / d];
      z->mz[r] = (1 / dt + f->tau_m) * z->mass[r];
      z->zk[r] = (elastic ? dt : 0) + f->tau_k;
    }
  }
  return TIDE_OK;
}

static int solid_matrices(tide_tetmesh *m, const double *x, int rotate, const tide_csr **K,
                          const double **b) {
  if (corotated(m)) return tide_solid_corot_matrices(m, x, rotate, K, b);
  return tide_solid_elastic_matrices(m, x, TIDE_FEM_PROJECT, K, b);
}

/* The walls' barrier of solid k (tide_zarifi_opts.colliders): with g, H the gradient and PSD
 * Hessian blocks of kappa sum b(d^2, dhat^2) at the linearization point xl (x* with the nodes
 * nearer than the floor lifted to it along the normal), continued to x* by its quadratic model
 * (g += H (x* - xl)), the end-of-step force -(g + dt H v) enters as w += g, S += dt H (T). */
static int contact_block(zwork *z, tide_tetmesh *m, int k, const tide_zarifi_opts *o,
                         tide_triplets *T, tide_zarifi_stats *st) {
  int d = m->dim;
  int64_t nv = m->nv, n = nv * d;
  const tide_fem *f = m->fem;
  const double *x = TIDE_F64P(m->x), *mass = TIDE_F64P(f->mass);
  const uint8_t *pin = TIDE_U8P(f->pinned);
  double dhat = o->contact_dhat, floor_d = TIDE_ZARIFI_CONTACT_FLOOR * dhat;
  double kappa = o->contact_kappa;
  if (!(kappa > 0)) {
    /* one node at dhat/2 holds TIDE_ZARIFI_CONTACT_LOAD times the solid's weight:
     * kappa |b'(dhat^2/4)| 2 (dhat/2) = LOAD M |g| */
    double M = 0, gg = 0;
    for (int64_t i = 0; i < nv; i++)
      M += mass[i];
    for (int a = 0; a < d; a++)
      gg += f->gravity[a] * f->gravity[a];
    gg = gg > 0 ? sqrt(gg) : 9.81;
    kappa = TIDE_ZARIFI_CONTACT_LOAD * M * gg /
            (-tide_barrier_gradient(0.25 * dhat * dhat, dhat * dhat) * dhat);
  }
  st->contact_kappa = kappa;
  size_t bytes = (size_t)(2 * n + nv * d * d + nv + 1) * sizeof(double);
  double *xl = tide_calloc(bytes);
  if (!xl) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  double *g = xl + n, *H = g + n, *tmp = H + nv * d * d;
  memcpy(xl, x, (size_t)n * sizeof(double));
  int64_t near = 0, lifted = 0;
  double gap = HUGE_VAL;
  for (int64_t i = 0; i < nv; i++) {
    if (pin[i] || !(mass[i] > 0)) continue;
    int in = 0, up = 0;
    for (int c = 0; c < o->ncolliders; c++) {
      double xi[3] = {0, 0, 0}, N[3] = {0, 0, 0};
      for (int a = 0; a < d; a++)
        xi[a] = xl[i * d + a];
      double dc = tide_collider_phi(o->colliders[c], xi, N) - o->colliders[c]->thickness;
      if (dc < gap) gap = dc;
      if (dc < dhat) in = 1;
      if (dc < floor_d) {
        up = 1;
        for (int a = 0; a < d; a++)
          xl[i * d + a] += (floor_d - dc) * N[a];
      }
    }
    near += in;
    lifted += up;
  }
  st->contact_nodes += near;
  st->contact_lifted += lifted;
  if (gap < st->contact_gap) st->contact_gap = gap;
  int s = TIDE_OK;
  if (near > 0) {
    tide_ipc_sdf b = {o->colliders, o->ncolliders, dhat, kappa, d, nv, pin, mass, tmp};
    int64_t bad = tide_ipc_sdf_derivatives(&b, xl, g, H);
    if (bad >= 0)
      s = tide_fail(TIDE_ENONFINITE,
                    "coupled projection: the wall barrier of solid %d is not finite at node %lld",
                    k + 1, (long long)bad + 1);
    for (int64_t i = 0; i < nv && !s; i++) {
      const double *Hi = H + i * d * d;
      for (int a = 0; a < d; a++) {
        double e = 0;
        for (int c = 0; c < d; c++)
          e += Hi[a * d + c] * (x[i * d + c] - xl[i * d + c]);
        g[i * d + a] += e;
      }
      const int *fo = z->freeof + z->dof0[k] + i * d;
      for (int a = 0; a < d; a++) {
        if (fo[a] < 0) continue;
        z->wg[fo[a]] += g[i * d + a];
        for (int c = 0; c < d; c++)
          if (fo[c] >= 0 && Hi[a * d + c] != 0)
            tide_triplets_add(T, fo[a], fo[c], o->dt * Hi[a * d + c]);
      }
    }
  }
  tide_free(xl, bytes);
  return s;
}

int tide_zarifi_contact_dt(tide_tetmesh *const *solids, int ns, tide_collider *const *colliders,
                           int ncolliders, double dt, double *out) {
  if (!out || !(dt > 0) || ns < 0 || ncolliders < 0 || (ns > 0 && !solids) ||
      (ncolliders > 0 && !colliders))
    return tide_fail(TIDE_EINVAL, "contact step: bad arguments");
  double t = dt;
  for (int k = 0; k < ns && ncolliders > 0; k++) {
    tide_tetmesh *m = solids[k];
    if (!m || !m->fem) return tide_fail(TIDE_EINVAL, "contact step: solid %d has no material", k + 1);
    for (int c = 0; c < ncolliders; c++)
      if (colliders[c]->dim != m->dim)
        return tide_fail(TIDE_EINVAL, "contact step: collider %d is not %dD", c + 1, m->dim);
    int d = m->dim;
    int64_t nv = m->nv;
    const double *x = TIDE_F64P(m->x), *mass = TIDE_F64P(m->fem->mass);
    const uint8_t *pin = TIDE_U8P(m->fem->pinned);
    uint8_t *skip = tide_alloc((size_t)(nv + 1));
    double *tmp = tide_alloc((size_t)(nv + 1) * sizeof(double));
    if (!skip || !tmp) {
      tide_free(skip, (size_t)(nv + 1));
      tide_free(tmp, (size_t)(nv + 1) * sizeof(double));
      return tide_fail(TIDE_ENOMEM, "contact step: out of memory");
    }
    for (int64_t i = 0; i < nv; i++) {
      double xi[3] = {0, 0, 0};
      for (int a = 0; a < d; a++)
        xi[a] = x[i * d + a];
      skip[i] = pin[i];
      for (int c = 0; c < ncolliders && !skip[i]; c++)
        skip[i] = !(tide_collider_phi(colliders[c], xi, NULL) - colliders[c]->thickness > 0);
    }
    tide_ipc_sdf b = {colliders, ncolliders, 0, 0, d, nv, skip, mass, tmp};
    t = tide_ipc_sdf_step_bound(&b, x, TIDE_F64P(m->v), t);
    tide_free(skip, (size_t)(nv + 1));
    tide_free(tmp, (size_t)(nv + 1) * sizeof(double));
  }
  *out = t;
  return TIDE_OK;
}

/* K_ff (scaled by zeta_K per solid) and the parts of w (5.26 with the pinned terms) that do not
 * depend on v or f (z->wk, z->wc), plus the walls' barrier (contact_block: z->wg) */
static int solid_blocks(zwork *z, tide_tetmesh *const *solids, int ns, const tide_zarifi_opts *o,
                        tide_csr **ZK, tide_zarifi_stats *st) {
  int s;
  tide_triplets *T;
  if ((s = tide_triplets_new(z->nf, z->nf, &T))) return s;
  double dt = o->dt;
  for (int k = 0; k < ns; k++) {
    tide_tetmesh *m = solids[k];
    tide_fem *f = m->fem;
    const tide_csr *K;
    const double *b;
    int d = m->dim;
    int64_t n = m->nv * d;
    const double *x = TIDE_F64P(m->x);
    if ((s = solid_matrices(m, x, o->rotate, &K, &b))) break;
    double *Kx = tide_alloc((size_t)(2 * n + 1) * sizeof(double));
    if (!Kx) {
      s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
      break;
    }
    double *Kvc = Kx + n, zk = (o->elastic ? dt : 0) + f->tau_k;
    s = tide_csr_mul(K, x, Kx);
    if (!s) s = tide_csr_mul(K, z->vc + z->dof0[k], Kvc);
    if (!s)
      for (int64_t q = 0; q < n; q++) {
        int r = z->freeof[z->dof0[k] + q];
        if (r < 0) continue;
        z->wk[r] = o->elastic ? Kx[q] - b[q] : 0;
        z->wc[r] = zk * Kvc[q];
      }
    tide_free(Kx, (size_t)(2 * n + 1) * sizeof(double));
    if (s) break;
    /* zeta_K K_ff into the global free numbering */
    const tide_csr *KK = K;
    tide_csr *Kexp = NULL;
    if (K->stype == TIDE_CSR_UPPER) {
      if ((s = tide_csr_expand(K, &Kexp))) break;
      KK = Kexp;
    }
    const int *fo = z->freeof + z->dof0[k];
    for (int i = 0; i < KK->nrows; i++) {
      if (fo[i] < 0) continue;
      for (int p = KK->rowptr[i]; p < KK->rowptr[i + 1]; p++)
        if (fo[KK->col[p]] >= 0) tide_triplets_add(T, fo[i], fo[KK->col[p]], zk * KK->val[p]);
    }
    tide_csr_free(Kexp);
    if (o->ncolliders > 0 && o->contact_dhat > 0 && (s = contact_block(z, m, k, o, T, st))) break;
  }
  if (!s) s = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, ZK);
  tide_triplets_free(T);
  return s;
}

/* z->rel = (J - J_cell) U, U = u* at the nodes (tide_zarifi_opts.relative) */
static int relative_flux(zwork *z, const tide_grid *g, tide_tetmesh *const *solids, int ns,
                         const tide_zarifi_opts *o, const tide_csr *J) {
  tide_triplets *T;
  int s = tide_triplets_new(z->nl, z->ndof, &T);
  if (s) return s;
  for (int k = 0; k < ns && !s; k++)
    s = tide_zarifi_j_triplets_sampled(g, &z->clips[k], solids[k], z->rowof,
                                       o->phi ? TIDE_F64P(o->phi) : NULL, TIDE_ZARIFI_SAMPLE_CELL,
                                       z->dof0[k], 1.0, T);
  tide_csr *Jc = NULL;
  if (!s) s = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &Jc);
  tide_triplets_free(T);
  double *U = tide_calloc((size_t)(z->ndof + 1) * sizeof(double));
  double *a = tide_alloc((size_t)(z->nl + 1) * sizeof(double));
  double *b = tide_alloc((size_t)(z->nl + 1) * sizeof(double));
  if (!s && (!U || !a || !b)) s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  for (int k = 0; k < ns && !s; k++) {
    const tide_tetmesh *m = solids[k];
    const double *x = TIDE_F64P(m->x);
    for (int64_t i = 0; i < m->nv; i++) {
      double v[3] = {0, 0, 0};
      tide_mac_velocity(o->relative, x + i * m->dim, v);
      for (int c = 0; c < m->dim; c++)
        U[z->dof0[k] + i * m->dim + c] = v[c];
    }
  }
  if (!s) s = tide_csr_mul(J, U, a);
  if (!s) s = tide_csr_mul(Jc, U, b);
  if (!s) {
    z->rel = tide_alloc((size_t)(z->nl + 1) * sizeof(double));
    if (!z->rel) s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  }
  if (!s)
    for (int i = 0; i < z->nl; i++)
      z->rel[i] = a[i] - b[i];
  tide_free(U, (size_t)(z->ndof + 1) * sizeof(double));
  tide_free(a, (size_t)(z->nl + 1) * sizeof(double));
  tide_free(b, (size_t)(z->nl + 1) * sizeof(double));
  tide_csr_free(Jc);
  return s;
}

/* J_f (liquid rows x free DOFs), z->jvc = J_c v_c (and z->rel) */
static int coupling_block(zwork *z, const tide_grid *g, tide_tetmesh *const *solids, int ns,
                          const tide_zarifi_opts *o, tide_csr **Jf) {
  tide_triplets *T;
  int s = tide_triplets_new(z->nl, z->ndof, &T);
  if (s) return s;
  for (int k = 0; k < ns; k++)
    if ((s = tide_zarifi_j_triplets_sampled(g, &z->clips[k], solids[k], z->rowof,
                                            o->phi ? TIDE_F64P(o->phi) : NULL, o->sampling,
                                            z->dof0[k], 1.0, T)))
      break;
  tide_csr *J = NULL;
  if (!s) s = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &J);
  tide_triplets_free(T);
  if (s) return s;
  z->jvc = tide_alloc((size_t)(z->nl + 1) * sizeof(double));
  if (!z->jvc) s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  if (!s) s = tide_csr_mul(J, z->vc, z->jvc);
  if (!s && o->relative && o->sampling == TIDE_ZARIFI_SAMPLE_LINEAR)
    s = relative_flux(z, g, solids, ns, o, J);
  if (!s) s = csr_select(J, NULL, z->freeof, z->nl, z->nf, 1.0, Jf);
  tide_csr_free(J);
  return s;
}

/* Liquid rows that are entirely zero (a cell whose faces are all closed and whose flux no
 * clipped piece carries, e.g. next to a solid resting on the floor with the linear sampling
 * giving its own piece's weight to the neighbours): the system would be singular.  Their
 * pressure is set to 0 (A_ii = 1, b_i = 0; b_i is the divergence through closed faces, 0).
 * The rows are listed in rows (nl); returns how many. */
static int64_t dead_rows(tide_csr *A, int nl, double *rhs, int *rows) {
  int64_t dead = 0;
  for (int i = 0; i < nl; i++) {
    int64_t dg = -1, nz = 0;
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      if (A->col[p] == i) dg = p;
      nz += A->val[p] != 0;
    }
    if (nz == 0 && dg >= 0) {
      A->val[dg] = 1;
      rhs[i] = 0;
      rows[dead++] = i;
    }
  }
  return dead;
}

/* dead_rows without the assembled A: a row of A is 0 where B's row and J's row are (J Z^-1 J^T
 * and A12 have J's rows' support, Z > 0); A_ii = 1 is the split's (tide_zarifi_split.dead). */
static int64_t split_dead_rows(const tide_csr *B, const tide_csr *J, double *rhs, int *rows) {
  int64_t dead = 0;
  for (int i = 0; i < B->nrows; i++) {
    int dg = 0, nz = 0;
    for (int p = B->rowptr[i]; p < B->rowptr[i + 1]; p++) {
      dg |= B->col[p] == i;
      nz += B->val[p] != 0;
    }
    for (int p = J->rowptr[i]; p < J->rowptr[i + 1]; p++)
      nz += J->val[p] != 0;
    if (nz == 0 && dg) {
      rhs[i] = 0;
      rows[dead++] = i;
    }
  }
  return dead;
}

/* ------------------------------------------------------ the kept system
 * Everything of one projection that depends on the geometry (labels, level set, fractions, the
 * solids' positions, pinning and masses) but not on the velocities u*, v* or the solids' forces:
 * the numbering, the blocks, the assembled matrix and its solver's set-up (Krylov
 * preconditioner, multigrid hierarchy and interface factorization, or the sparse factor). */
struct tide_zarifi_system {
  tide_grid g;
  int ns, formulation, solver, elastic, ring, iface;
  tide_zarifi_work *mgwork; /* the MG-in-block hierarchy's workspace (borrowed) or NULL */
  int barrier;        /* the walls' barrier was on (its gradient in z.wg) */
  int barrier_matrix; /* and active: its Hessian is in the matrix */
  double dt, rho, alpha, sigma;
  tide_tetmesh **solids; /* ns, by reference */
  zwork z;
  tide_mac_poisson P;  /* on the copies below and z.theta */
  tide_array *labels;  /* copy of the build's labels (a kept system; NULL: borrowed) */
  tide_mac *fractions; /* copy of the build's fractions or NULL */
  const tide_array *lab;  /* the labels read: the copy, or the caller's for a one-shot projection */
  const tide_mac *frac;   /* the fractions read (NULL: none) */
  int in_work;            /* they are the workspace's copies, of rewrite in_gen */
  uint64_t in_gen;
  int64_t n;           /* unknowns */
  tide_csr *A, *Jf, *Jt, *Z2, *Rh; /* Z2: Z2 (spd) or Rh^T (factored) */
  tide_csr *B;                         /* spd, factored: the liquid block (coupled residual) */
  double *ref;   /* spd: 6 n (refinement: r, rhs, correction, scratch); factored: r, v, scratch */
  int64_t nref;  /* doubles in ref */
  double *iz;                          /* nf: 1 / (sigma Mz) (spd) or 1 / Mz (factored) */
  int *dead;                           /* nl: the liquid rows set to p = 0 */
  int64_t ndead;
  tide_krylov *kry;
  tide_factor *fac;
  tide_zarifi_precond *M;
  int *cell;             /* nl: the cell of each liquid row (mgpcg) */
  double *work;          /* 4 n (mgpcg) */
  double *x, *rhs, *tmp; /* n, n, n + nf */
  tide_zarifi_stats st;  /* of the build's solve */
};

void tide_zarifi_system_free(tide_zarifi_system *S) {
  if (!S) return;
  int64_t n = S->n, nf = S->z.nf, nl = S->z.nl;
  tide_krylov_free(S->kry);
  tide_factor_free(S->fac);
  tide_zarifi_precond_free(S->M);
  tide_csr *mats[5] = {S->A, S->Jf, S->Jt, S->Z2, S->Rh};
  for (int k = 0; k < 5; k++)
    tide_csr_free(mats[k]);
  tide_zarifi_work_give(S->mgwork, S->B); /* its storage for the next projection's B */
  tide_free(S->ref, (size_t)(S->nref + 1) * sizeof(double));
  tide_free(S->iz, (size_t)(nf + 1) * sizeof(double));
  tide_free(S->dead, (size_t)(nl + 1) * sizeof(int));
  tide_free(S->cell, (size_t)(nl + 1) * sizeof(int));
  tide_free(S->work, (size_t)(4 * n + 1) * sizeof(double));
  tide_free(S->x, (size_t)(n + 1) * sizeof(double));
  tide_free(S->rhs, (size_t)(n + 1) * sizeof(double));
  tide_free(S->tmp, (size_t)(n + nf + 1) * sizeof(double));
  if (S->labels) tide_array_release(S->labels);
  tide_mac_free(S->fractions);
  tide_free(S->solids, (size_t)(S->ns > 0 ? S->ns : 1) * sizeof(tide_tetmesh *));
  zwork_free(&S->z, &S->g, S->ns);
  tide_free(S, sizeof *S);
}

/* z.r1 = E u* - J_c v_c (+ the relative flux) */
static int liquid_rhs(tide_zarifi_system *S, const tide_mac *u, int relative) {
  zwork *z = &S->z;
  const tide_grid *g = &S->g;
  tide_array *div = tide_grid_cell_array(g, TIDE_F64);
  if (!div) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  int s = tide_liquid_divergence(u, S->lab, S->frac, NULL, div);
  if (!s) {
    double dxd = g->dim == 3 ? g->dx * g->dx * g->dx : g->dx * g->dx;
    const double *dv = TIDE_F64P(div);
    int64_t nc = tide_grid_ncells(g);
#pragma omp parallel for schedule(static) if (nc > 65536)
    for (int64_t c = 0; c < nc; c++) {
      int i = z->rowof[c];
      if (i < 0) continue;
      z->r1[i] = -dxd * dv[c];
      z->r1[i] -= z->jvc[i];
      if (relative && z->rel) z->r1[i] += z->rel[i];
    }
  }
  tide_array_release(div);
  return s;
}

/* z.w = -M v* / dt + K x* - b - f + zeta_K K_fc v_c (+ the barrier's gradient) */
static void solid_rhs(tide_zarifi_system *S, tide_tetmesh *const *solids, int elastic_force,
                      int barrier) {
  zwork *z = &S->z;
  for (int k = 0; k < S->ns; k++) {
    const tide_tetmesh *m = solids[k];
    const double *v = TIDE_F64P(m->v), *fe = TIDE_F64P(m->fem->force);
    for (int64_t q = 0; q < m->nv * m->dim; q++) {
      int r = z->freeof[z->dof0[k] + q];
      if (r < 0) continue;
      z->w[r] = -z->mass[r] * v[q] / S->dt +
                (S->elastic ? (elastic_force ? z->wk[r] : 0) - fe[q] : 0) + z->wc[r];
      if (barrier) z->w[r] += z->wg[r];
    }
  }
}

/* the formulation's right side from z.r1 and z.w (first: the block scaling alpha from it) */
static int form_rhs(tide_zarifi_system *S, double alpha_opt, int first) {
  zwork *z = &S->z;
  int nl = z->nl, nf = z->nf, s = TIDE_OK;
  double *rhs = S->rhs;
  if (S->formulation == TIDE_ZARIFI_INDEFINITE) {
    memcpy(rhs, z->r1, (size_t)nl * sizeof(double));
    memcpy(rhs + nl, z->w, (size_t)nf * sizeof(double));
  } else {
    /* c1 = E u* + J Z1^-1 w */
    double *c1 = rhs, *wz = S->tmp + S->n, *c2 = rhs + nl;
    for (int i = 0; i < nf; i++)
      wz[i] = z->w[i] * S->iz[i];
    if ((s = tide_csr_mul(S->Jf, wz, c1))) return s;
    for (int i = 0; i < nl; i++)
      c1[i] += z->r1[i];
    /* spd: c2 = -Z2 Z1^-1 w (5.31); factored: -Rh Mz^-1 w (5.45) */
    const tide_csr *X = S->formulation == TIDE_ZARIFI_SPD ? S->Z2 : S->Rh;
    if ((s = tide_csr_mul(X, wz, c2))) return s;
    int64_t n2 = S->n - nl;
    for (int64_t i = 0; i < n2; i++)
      c2[i] = -c2[i];
    if (S->formulation == TIDE_ZARIFI_SPD) {
      if (first) {
        /* block scaling (5.36) */
        double n1 = norm2(nl, c1), nc2 = norm2(nf, c2);
        S->alpha = alpha_opt > 0 ? alpha_opt : (n1 > 0 && nc2 > 0 ? n1 / nc2 : 1.0);
      }
      for (int i = 0; i < nf; i++)
        c2[i] *= S->alpha;
    }
  }
  for (int64_t i = 0; i < S->ndead && !first; i++)
    rhs[S->dead[i]] = 0;
  return s;
}

/* assemble the system of the chosen formulation from B, J_f, zeta_K K (and the first right side,
 * whose norms give alpha) */
static int assemble(tide_zarifi_system *S, const tide_csr *B, const tide_csr *ZK,
                    const tide_zarifi_opts *o, tide_zarifi_stats *st) {
  zwork *z = &S->z;
  int nl = z->nl, nf = z->nf, ns = S->ns, s = TIDE_OK;
  tide_tetmesh *const *solids = S->solids;
  int f = S->formulation;
  int64_t nr = 0, n = S->n;
  if (f == TIDE_ZARIFI_FACTORED)
    for (int k = 0; k < ns; k++)
      nr += solids[k]->ne * (solids[k]->dim == 3 ? 6 : 3);
  double ta = tide_wtime(), ca = tide_cputime();
  tide_csr *JZ = NULL, *JZJ = NULL, *A11 = NULL, *D = NULL, *A12 = NULL;
  tide_csr *Z2Z = NULL, *Q = NULL, *A22 = NULL, *RZ = NULL;
  /* the system's blocks [s11 X11, s12 X12; s21 X21, s22 X22] */
  const tide_csr *X11 = NULL, *X12 = NULL, *X21 = NULL, *X22 = NULL;
  double s11 = 1, s12 = 1, s21 = 1, s22 = 1;
  double *tmp = S->tmp;
  /* MG-in-block PCG works from the split alone (zarifi.h): the products J Z^-1 J^T, A12, A22 and
   * the assembled rows are made only for another solver or when the matrix is asked for */
  int split_only = S->solver == TIDE_ZARIFI_MGPCG && f != TIDE_ZARIFI_INDEFINITE && !o->system;
  if ((s = tide_csr_transpose(S->Jf, &S->Jt))) goto done;
  if (f == TIDE_ZARIFI_INDEFINITE) {
    /* (5.17): [B J; J^T -S], S = Mz + zeta_K K */
    if ((s = csr_diagonal(nf, z->mz, &D))) goto done;
    if ((s = tide_csr_add(-1, D, -1, ZK, &A22))) goto done; /* -S */
    X11 = B, X12 = S->Jf, X21 = S->Jt, X22 = A22;
    if ((s = form_rhs(S, o->alpha, 1))) goto done;
  } else {
    /* the diagonal block whose inverse enters: Z1 (spd) or Mz (factored) */
    double sg = f == TIDE_ZARIFI_SPD ? o->sigma : 1.0;
    for (int i = 0; i < nf; i++)
      S->iz[i] = 1 / (sg * z->mz[i]);
    if ((s = tide_csr_clone(S->Jf, &JZ))) goto done;
    if ((s = tide_csr_scale(JZ, NULL, S->iz))) goto done; /* J Z1^-1 */
    if (!split_only) {
      if ((s = tide_csr_matmul(JZ, S->Jt, &JZJ))) goto done;
      if ((s = tide_csr_add(1, B, 1, JZJ, &A11))) goto done; /* (5.27) */
    }
    if (f == TIDE_ZARIFI_SPD) {
      /* Z2 = (1 - sigma) Mz + zeta_K K (5.31) */
      for (int i = 0; i < nf; i++)
        tmp[i] = (1 - o->sigma) * z->mz[i];
      if ((s = csr_diagonal(nf, tmp, &D))) goto done;
      if ((s = tide_csr_add(1, D, 1, ZK, &S->Z2))) goto done;
      if (!split_only) {
        if ((s = tide_csr_matmul(JZ, S->Z2, &A12))) goto done; /* -A12 (5.28) */
        if ((s = tide_csr_clone(S->Z2, &Z2Z))) goto done;
        if ((s = tide_csr_scale(Z2Z, NULL, S->iz))) goto done;
        if ((s = tide_csr_matmul(Z2Z, S->Z2, &Q))) goto done;
        if ((s = tide_csr_add(1, S->Z2, 1, Q, &A22))) goto done; /* (5.30) */
      }
      if ((s = form_rhs(S, o->alpha, 1))) goto done;
      S->nref = 6 * n;
      S->ref = tide_alloc((size_t)(S->nref + 1) * sizeof(double));
      if (!S->ref) {
        s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
        goto done;
      }
      double alpha = S->alpha;
      tide_csr_free(Z2Z);
      Z2Z = NULL;
      if (!split_only && (s = tide_csr_transpose(A12, &Z2Z))) goto done; /* A21 = A12^T (5.29) */
      X11 = A11, X12 = A12, X21 = Z2Z, X22 = A22;
      s12 = s21 = -alpha, s22 = alpha * alpha;
    } else {
      /* factored (5.43, 5.45): Rh = sqrt(zeta_K) R per solid */
      tide_triplets *TR;
      if ((s = tide_triplets_new((int)nr, z->ndof, &TR))) goto done;
      int r0 = 0;
      for (int k = 0; k < ns && !s; k++) {
        s = tide_zarifi_r_triplets(solids[k], r0, z->dof0[k], TR);
        r0 += (int)(solids[k]->ne * (solids[k]->dim == 3 ? 6 : 3));
      }
      tide_csr *R = NULL;
      if (!s) s = tide_csr_from_tripletlist(TR, TIDE_CSR_GENERAL, &R);
      tide_triplets_free(TR);
      if (s) goto done;
      s = csr_select(R, NULL, z->freeof, (int)nr, nf, 1.0, &S->Rh);
      tide_csr_free(R);
      if (s) goto done;
      /* scale rows by sqrt(zeta_K) of their solid */
      double *rs = tmp; /* nr <= n */
      r0 = 0;
      for (int k = 0; k < ns; k++) {
        int rows = (int)(solids[k]->ne * (solids[k]->dim == 3 ? 6 : 3));
        for (int i = 0; i < rows; i++)
          rs[r0 + i] = sqrt((S->elastic ? S->dt : 0) + solids[k]->fem->tau_k);
        r0 += rows;
      }
      if ((s = tide_csr_scale(S->Rh, rs, NULL))) goto done;
      if ((s = tide_csr_transpose(S->Rh, &S->Z2))) goto done; /* Rh^T */
      if (!split_only) {
        if ((s = tide_csr_matmul(JZ, S->Z2, &A12))) goto done; /* J Mz^-1 Rh^T */
        if ((s = tide_csr_clone(S->Rh, &RZ))) goto done;
        if ((s = tide_csr_scale(RZ, NULL, S->iz))) goto done;
        if ((s = tide_csr_matmul(RZ, S->Z2, &Q))) goto done; /* Rh Mz^-1 Rh^T */
        for (int64_t i = 0; i < nr; i++)
          tmp[i] = 1;
        if ((s = csr_diagonal((int)nr, tmp, &D))) goto done;
        if ((s = tide_csr_add(1, D, 1, Q, &A22))) goto done;
      }
      if ((s = form_rhs(S, o->alpha, 1))) goto done;
      /* the coupled residual: r (nl + nf), v (nf), its scratch (nl + 2 nf + nr) */
      S->nref = 2 * (int64_t)nl + 4 * (int64_t)nf + nr;
      S->ref = tide_alloc((size_t)(S->nref + 1) * sizeof(double));
      if (!S->ref) {
        s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
        goto done;
      }
      if (!split_only && (s = tide_csr_transpose(A12, &Z2Z))) goto done;
      X11 = A11, X12 = A12, X21 = Z2Z, X22 = A22;
      s12 = s21 = -1;
    }
  }
  if (o->system &&
      (s = csr_block2(X11, s11, X12, s12, X21, s21, X22, s22, TIDE_CSR_GENERAL, o->system)))
    goto done;
  int stype = S->solver == TIDE_ZARIFI_BICGSTAB || S->solver == TIDE_ZARIFI_MGPCG ? TIDE_CSR_GENERAL
                                                                                  : TIDE_CSR_UPPER;
  if (!split_only && (s = csr_block2(X11, s11, X12, s12, X21, s21, X22, s22, stype, &S->A)))
    goto done;
  S->dead = tide_alloc((size_t)(nl + 1) * sizeof(int));
  if (!S->dead) {
    s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
    goto done;
  }
  S->ndead = st->dead = split_only ? split_dead_rows(B, S->Jf, S->rhs, S->dead)
                                   : dead_rows(S->A, nl, S->rhs, S->dead);
  st->unknowns = n;
  st->nonzeros = split_only ? 0 : full_nnz(S->A); /* split only: the preconditioner counts */
  st->alpha = f == TIDE_ZARIFI_SPD ? S->alpha : 1;
done:
  st->assembly_seconds += tide_wtime() - ta;
  st->assembly_cpu += tide_cputime() - ca;
  tide_csr *tmps[9] = {JZ, JZJ, A11, D, A12, Z2Z, Q, A22, RZ};
  for (int k = 0; k < 9; k++)
    tide_csr_free(tmps[k]);
  return s;
}


/* A x = b with the kept solver set-up (made at the first call); warm: x holds the start */
static int solve_once(tide_zarifi_system *S, const double *b, double *x, double tol, int maxit,
                      int warm, tide_solve_stats *ks, tide_zarifi_stats *st) {
  const tide_csr *A = S->A; /* NULL with mgpcg: the split (assemble) */
  int n = (int)S->n, s;
  memset(ks, 0, sizeof *ks);
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = tol;
  so.maxit = maxit;
  so.use_x0 = warm;
  if (!warm) memset(x, 0, (size_t)n * sizeof(double));
  switch (S->solver) {
  case TIDE_ZARIFI_PCG:
  case TIDE_ZARIFI_MINRES:
  case TIDE_ZARIFI_BICGSTAB: {
    int method = S->solver == TIDE_ZARIFI_PCG      ? TIDE_KRYLOV_PCG
                 : S->solver == TIDE_ZARIFI_MINRES ? TIDE_KRYLOV_MINRES
                                                   : TIDE_KRYLOV_BICGSTAB;
    int pre = S->solver == TIDE_ZARIFI_PCG      ? TIDE_PRECOND_IC0
              : S->solver == TIDE_ZARIFI_MINRES ? TIDE_PRECOND_JACOBI
                                                : TIDE_PRECOND_ILU0;
    s = S->kry ? TIDE_OK : tide_krylov_new(A, method, pre, &S->kry);
    if (!s) s = tide_krylov_solve(S->kry, A, b, x, &so, ks);
    break;
  }
  case TIDE_ZARIFI_MGPCG:
    st->ring = S->ring;
    s = TIDE_OK;
    if (!S->M) {
      /* PCG with the multigrid-in-block preconditioner (zarifi.h) */
      S->cell = tide_alloc((size_t)(S->z.nl + 1) * sizeof(int));
      S->work = tide_alloc((size_t)(4 * (int64_t)n + 1) * sizeof(double));
      if (!S->cell || !S->work) s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
      const int64_t nc = tide_grid_ncells(&S->g);
      const int *rowof = S->z.rowof;
      int *cell = S->cell;
      if (!s)
#pragma omp parallel for schedule(static) if (nc > 65536)
        for (int64_t c = 0; c < nc; c++)
          if (rowof[c] >= 0) cell[rowof[c]] = (int)c;
      double cp = tide_cputime();
      if (!s)
      {
        /* Y2^T: Z2 (symmetric) or Rh^T, which S->Z2 holds in the factored form */
        tide_zarifi_split sp = {S->B, S->formulation == TIDE_ZARIFI_SPD ? S->Z2 : NULL, S->Jf,
                                S->formulation == TIDE_ZARIFI_SPD ? S->Z2 : S->Rh,
                                S->alpha * S->alpha,
                                S->formulation == TIDE_ZARIFI_SPD ? -S->alpha : -1, S->iz,
                                S->iface, S->Jt, S->Z2, S->dead, S->ndead};
        s = tide_zarifi_precond_new(A, S->z.nl, S->cell, &S->P, S->z.bscale, S->ring, &sp,
                                    S->mgwork, &S->M);
      }
      if (!s) st->precond_seconds = tide_zarifi_precond_setup_seconds(S->M);
      if (!s && !A) st->nonzeros = tide_zarifi_precond_nonzeros(S->M);
      st->precond_cpu = tide_cputime() - cp;
    }
    if (!s) {
      st->interface = tide_zarifi_precond_interface(S->M);
      st->interface_factor = tide_zarifi_precond_factor_nnz(S->M);
      st->interface_augmented = tide_zarifi_precond_augmented(S->M);
      /* the product through the split: A's J Z^-1 J^T rows are not read (zarifi.h) */
      s = tide_pcg_op(n, tide_zarifi_precond_mul, S->M, tide_zarifi_precond_apply, S->M, b, x,
                      S->work, &so, ks);
    }
    break;
  default:
    s = S->fac ? TIDE_OK
               : tide_factor_new(A,
                                 S->solver == TIDE_ZARIFI_LDLT ? TIDE_FACTOR_LDLT
                                                               : TIDE_FACTOR_CHOLESKY,
                                 &S->fac);
    if (!s) s = tide_factor_solve(S->fac, b, x);
    ks->converged = s == TIDE_OK;
  }
  return s;
}

/* The SPD or factored form's answer (p, v) in the coupled equations (5.17), with the unassembled
 * blocks: r = (r1 - B p - J v, w - J^T p + S v) into r (nl + nf; dead rows 0), S v = (sigma Mz +
 * Z2) v (spd) or (Mz + Rh^T Rh) v (factored); returns ||r|| / ||(r1, w)||, the indefinite form's
 * measure.  The assembled A22 = Z2 + Z2 Z1^-1 Z2 acts on a nearly rigid v with entries ~ zeta_K^2
 * K M^-1 K, whose products cancel to the mass terms: its own residual has a rounding floor
 * (docs/couple.md, "The SPD form's rounding floor"), these blocks do not (K v cancels once, not
 * squared).  t: nl + 2 nf (+ nr, factored) scratch. */
static double coupled_residual(tide_zarifi_system *S, const double *p, const double *v, double *r,
                               double *t) {
  zwork *z = &S->z;
  int nl = z->nl, nf = z->nf, fac = S->formulation == TIDE_ZARIFI_FACTORED;
  double *jv = t, *jtp = jv + nl, *sv = jtp + nf, *rv = sv + nf;
  if (tide_csr_mul(S->B, p, r) || tide_csr_mul(S->Jf, v, jv) || tide_csr_mul(S->Jt, p, jtp))
    return HUGE_VAL;
  /* S v = sigma Mz v + Z2 v (spd) or Mz v + Rh^T (Rh v) (factored: zeta_K K = Rh^T Rh) */
  if (fac ? tide_csr_mul(S->Rh, v, rv) || tide_csr_mul(S->Z2, rv, sv) : tide_csr_mul(S->Z2, v, sv))
    return HUGE_VAL;
  double sg = fac ? 1.0 : S->sigma, nb = 0, nr = 0;
  for (int i = 0; i < nl; i++) {
    r[i] = z->r1[i] - r[i] - jv[i];
    nb += z->r1[i] * z->r1[i];
  }
  for (int64_t k = 0; k < S->ndead; k++) {
    int i = S->dead[k];
    nb -= z->r1[i] * z->r1[i];
    r[i] = 0;
  }
  for (int i = 0; i < nf; i++) {
    r[nl + i] = z->w[i] - jtp[i] + sg * z->mz[i] * v[i] + sv[i];
    nb += z->w[i] * z->w[i];
  }
  for (int i = 0; i < nl + nf; i++)
    nr += r[i] * r[i];
  return sqrt(nr) / (nb > 0 ? sqrt(nb) : 1);
}

/* the solid's free velocities v of the solution x: alpha x_2 (spd) or, factored, (5.41)
 * v = Mz^-1 (J^T p - Rh^T zh - w) (t: nf scratch) */
static int solid_velocity(tide_zarifi_system *S, const double *x, double *v, double *t) {
  zwork *z = &S->z;
  int nl = z->nl, nf = z->nf, s;
  if (S->formulation == TIDE_ZARIFI_INDEFINITE) {
    memcpy(v, x + nl, (size_t)nf * sizeof(double));
  } else if (S->formulation == TIDE_ZARIFI_SPD) {
    for (int i = 0; i < nf; i++)
      v[i] = S->alpha * x[nl + i];
  } else {
    if ((s = tide_csr_mul(S->Jt, x, v))) return s;
    if ((s = tide_csr_mul(S->Z2, x + nl, t))) return s; /* Z2 = Rh^T */
    for (int i = 0; i < nf; i++)
      v[i] = (v[i] - t[i] - z->w[i]) / z->mz[i];
  }
  return TIDE_OK;
}

/* solve A x = rhs with the kept solver set-up (made at the first solve); warm: x holds the start.
 * The SPD form then refines x against the coupled equations (coupled_residual): the residual r of
 * (5.17), transformed as its right side (c1 = r_1 + J Z1^-1 r_2, c2 = -alpha Z2 Z1^-1 r_2), is
 * solved with the same system for a correction, at most TIDE_ZARIFI_REFINE times while the
 * residual is above tol; st->residual is then the coupled residual, st->system_residual the
 * assembled system's. */
static int solve(tide_zarifi_system *S, double tol, int maxit, int warm, tide_zarifi_stats *st) {
  int n = (int)S->n, s;
  tide_solve_stats ks;
  double t0 = tide_wtime(), c0 = tide_cputime();
  s = solve_once(S, S->rhs, S->x, tol, maxit, warm, &ks, st);
  st->iterations = ks.iterations;
  st->converged = ks.converged;
  st->residual = ks.residual;
  st->refinements = 0;
  if (!s && S->formulation == TIDE_ZARIFI_SPD && ks.converged) {
    double *r = S->ref, *c = r + n, *dx = c + n, *v = dx + n, *scr = v + n, *t = S->tmp;
    zwork *z = &S->z;
    int nl = z->nl, nf = z->nf;
    (void)solid_velocity(S, S->x, v, NULL);
    double res = coupled_residual(S, S->x, v, r, scr);
    int r_of_x = 1; /* r and v are of S->x (not of a rejected correction) */
    for (int k = 0; k < TIDE_ZARIFI_REFINE && res > tol && !s; k++) {
      for (int i = 0; i < nf; i++)
        t[i] = r[nl + i] * S->iz[i];
      if ((s = tide_csr_mul(S->Jf, t, c)) || (s = tide_csr_mul(S->Z2, t, c + nl))) break;
      for (int i = 0; i < nl; i++)
        c[i] += r[i];
      for (int i = 0; i < nf; i++)
        c[nl + i] *= -S->alpha;
      for (int64_t q = 0; q < S->ndead; q++)
        c[S->dead[q]] = 0;
      /* the correction to the accuracy it contributes (a tenth of tol / res, within [tol, 0.1]) */
      double tc = fmin(0.1, fmax(tol, 0.1 * tol / res));
      tide_solve_stats kc;
      if ((s = solve_once(S, c, dx, tc, maxit, 0, &kc, st)) || !kc.converged) break;
      st->iterations += kc.iterations;
      st->refinements++;
      for (int64_t i = 0; i < n; i++)
        c[i] = S->x[i] + dx[i];
      (void)solid_velocity(S, c, v, NULL);
      double res2 = coupled_residual(S, c, v, r, scr);
      r_of_x = 0;
      if (!(res2 < res)) break; /* no gain: the previous x is kept (r is recomputed below) */
      memcpy(S->x, c, (size_t)n * sizeof(double));
      res = res2;
      r_of_x = 1;
    }
    if (!s && !r_of_x) {
      (void)solid_velocity(S, S->x, v, NULL);
      res = coupled_residual(S, S->x, v, r, scr);
    }
    if (!s) st->residual = res;
  } else if (!s && S->formulation == TIDE_ZARIFI_FACTORED && ks.converged) {
    /* the factored answer's (p, v) by (5.41), measured the same way (no refinement) */
    int nl = S->z.nl, nf = S->z.nf;
    double *r = S->ref, *v = r + nl + nf, *scr = v + nf;
    if (!(s = solid_velocity(S, S->x, v, scr))) st->residual = coupled_residual(S, S->x, v, r, scr);
  }
  st->solve_seconds = tide_wtime() - t0;
  st->solve_cpu = tide_cputime() - c0;
  if (s) return s;
  s = rel_residual(S->A, S->M, S->n, S->x, S->rhs, S->tmp, &st->system_residual);
  if (S->formulation == TIDE_ZARIFI_INDEFINITE || !st->converged) st->residual = st->system_residual;
  return s;
}

/* recover (p, v_f) from the solution, u = u* - dt/rho G p (5.4), the pressure, the valid faces
 * and the solids' velocities */
static int update(tide_zarifi_system *S, tide_mac *u, tide_tetmesh *const *solids,
                  tide_array *pressure, tide_mac *valid, tide_zarifi_stats *st) {
  zwork *z = &S->z;
  int nf = z->nf, s = TIDE_OK;
  double ta = tide_wtime(), ca = tide_cputime(), dt = S->dt;
  const double *p = S->x;
  int64_t nc = tide_grid_ncells(&S->g);
  double *vf = tide_alloc((size_t)(nf + 1) * sizeof(double));
  if (!vf) {
    s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
    goto done;
  }
  if ((s = solid_velocity(S, S->x, vf, S->tmp))) goto done;
  /* in place: the faces with a gradient row get -dt/rho (G p)_f and are the valid ones (G
   * applied face by face, not formed) */
  {
    const tide_mac_poisson *P = &S->P;
    if ((s = tide_zarifi_gradient_apply(&S->g, P->labels, z->rowof, P->weight, P->theta,
                                        P->theta_min, p, dt / S->rho, u, valid)))
      goto done;
  }
  if (pressure) {
    double *pr = TIDE_F64P(pressure);
#pragma omp parallel for schedule(static) if (nc > 65536)
    for (int64_t c = 0; c < nc; c++)
      pr[c] = z->rowof[c] >= 0 ? p[z->rowof[c]] : 0;
  }
  for (int k = 0; k < S->ns; k++) {
    double *v = TIDE_F64P(solids[k]->v);
    for (int q = z->dof0[k]; q < z->dof0[k + 1]; q++) {
      int r = z->freeof[q];
      v[q - z->dof0[k]] = r >= 0 ? vf[r] : z->vc[q];
    }
  }
done:
  st->assembly_seconds += tide_wtime() - ta;
  st->assembly_cpu += tide_cputime() - ca;
  tide_free(vf, (size_t)(nf + 1) * sizeof(double));
  return s;
}

/* The labels and fractions the system reads: borrowed for a one-shot projection (which writes
 * only u and valid), copied when it is kept (the caller may change its arrays before a resolve)
 * -- into the workspace's buffers when there is one (no fresh 3M-face arrays and their
 * first-touch page faults each step: 0.07 s at 100^3), else into the system's own. */
static int copy_inputs(tide_zarifi_system *S, const tide_array *labels, const tide_mac *fr,
                       int keep, tide_zarifi_work *work) {
  const tide_grid *g = &S->g;
  S->lab = labels, S->frac = fr;
  if (!keep) return TIDE_OK;
  if (work) {
    int s = tide_zarifi_work_inputs(work, labels, fr, &S->lab, &S->frac);
    S->in_work = !s;
    S->in_gen = tide_zarifi_work_inputs_gen(work);
    return s;
  }
  S->labels = tide_grid_cell_array(g, TIDE_U8);
  if (!S->labels) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  memcpy(TIDE_U8P(S->labels), TIDE_U8P(labels), (size_t)tide_grid_ncells(g));
  S->lab = S->labels;
  if (!fr) return TIDE_OK;
  int s = tide_mac_new(g, TIDE_F64, &S->fractions);
  for (int a = 0; a < g->dim && !s; a++)
    memcpy(TIDE_F64P(S->fractions->u[a]), TIDE_F64P(fr->u[a]),
           (size_t)tide_array_size(fr->u[a]) * sizeof(double));
  S->frac = S->fractions;
  return s;
}

/* the geometry, the blocks, the first right side and the assembled system */
static int build(tide_zarifi_system *S, const tide_mac *u, const tide_array *labels,
                 tide_tetmesh *const *solids, int ns, const tide_zarifi_opts *o,
                 tide_zarifi_stats *st) {
  const tide_grid *g = &u->grid;
  int d = g->dim, s = TIDE_OK;
  int64_t nc = tide_grid_ncells(g);
  zwork *z = &S->z;
  tide_csr *A = NULL, *B = NULL, *ZK = NULL;
  S->g = *g;
  S->ns = ns;
  S->formulation = o->formulation;
  S->solver = o->solver;
  S->elastic = o->elastic;
  S->ring = o->ring;
  S->iface = o->interface_solve;
  S->mgwork = o->work;
  S->dt = o->dt;
  S->rho = o->rho;
  S->sigma = o->sigma;
  S->barrier = o->ncolliders > 0 && o->contact_dhat > 0;
  S->solids = tide_alloc((size_t)(ns > 0 ? ns : 1) * sizeof(tide_tetmesh *));
  if (!S->solids) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  if (ns > 0) memcpy(S->solids, solids, (size_t)ns * sizeof(tide_tetmesh *));
  if ((s = copy_inputs(S, labels, o->fractions, o->keep != NULL, o->work))) return s;
  /* geometry: clip every solid's boundary (5.7-5.13) */
  double t0 = tide_wtime(), c0 = tide_cputime();
  z->clips = tide_calloc((size_t)(ns > 0 ? ns : 1) * sizeof(tide_zclip));
  if (!z->clips) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  for (int k = 0; k < ns && !s; k++) {
    s = tide_zarifi_clip(g, solids[k], NULL, &z->clips[k]);
    st->pieces += z->clips[k].n;
  }
  st->geometry_seconds = tide_wtime() - t0;
  st->geometry_cpu = tide_cputime() - c0;
  if (s) return s;
  /* the liquid: numbering, B = (dt/rho) dx^d A_poisson, G */
  double ta = tide_wtime(), ca = tide_cputime();
  tide_mac_poisson *P = &S->P;
  *P = tide_mac_poisson_make(g, TIDE_U8P(S->lab));
  P->theta_min = o->theta_min > 0 ? o->theta_min : TIDE_MAC_THETA_MIN;
  if (S->frac)
    for (int a = 0; a < d; a++)
      P->weight[a] = TIDE_F64P(S->frac->u[a]);
  if (o->phi) {
    for (int a = 0; a < d; a++) {
      int fd[3];
      tide_grid_face_dims(g, a, fd);
      z->theta[a] = tide_alloc((size_t)fd[0] * fd[1] * fd[2] * sizeof(double));
      if (!z->theta[a]) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
    }
    if ((s = tide_mac_poisson_theta(g, TIDE_U8P(S->lab), TIDE_F64P(o->phi), z->theta)))
      return s;
    for (int a = 0; a < d; a++)
      P->theta[a] = z->theta[a];
  }
  if ((s = tide_mac_poisson_check(P))) return s;
  P->checked = 1; /* the numbering, the assembly and the V-cycle's hierarchy do not scan again */
  z->rowof = tide_alloc((size_t)nc * sizeof(int));
  if (!z->rowof) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  if ((s = tide_mac_poisson_number(P, z->rowof, &z->nl))) return s;
  if ((s = tide_mac_poisson_assemble_reuse(P, z->rowof, z->nl, TIDE_CSR_GENERAL,
                                           tide_zarifi_work_spare(o->work), &A)))
    goto done;
  double dxd = d == 3 ? g->dx * g->dx * g->dx : g->dx * g->dx;
  z->bscale = o->dt / o->rho * dxd;
  B = A; /* scaled in place */
  A = NULL;
  {
    const int64_t nb = tide_csr_nnz(B);
    const double sc = o->dt / o->rho * dxd;
#pragma omp parallel for schedule(static) if (nb > 65536)
    for (int64_t q = 0; q < nb; q++)
      B->val[q] *= sc;
  }
  z->r1 = tide_alloc((size_t)(z->nl + 1) * sizeof(double));
  if (!z->r1) {
    s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
    goto done;
  }
  /* the solids: unknowns, K, w; the coupling J = N^T C */
  if ((s = number_solids(z, solids, ns, o->dt, o->elastic))) goto done;
  st->contact_gap = HUGE_VAL;
  if ((s = solid_blocks(z, solids, ns, o, &ZK, st))) goto done;
  S->barrier_matrix = st->contact_nodes > 0;
  if ((s = coupling_block(z, g, solids, ns, o, &S->Jf))) goto done;
  /* the clipped pieces are in J (and z->rel) now: not kept */
  for (int k = 0; k < ns; k++)
    tide_zclip_free(&z->clips[k]);
  tide_free(z->clips, (size_t)(ns > 0 ? ns : 1) * sizeof(tide_zclip));
  z->clips = NULL;
  st->liquid = z->nl;
  st->solid_dofs = z->nf;
  int64_t nr = 0;
  if (S->formulation == TIDE_ZARIFI_FACTORED)
    for (int k = 0; k < ns; k++)
      nr += solids[k]->ne * (solids[k]->dim == 3 ? 6 : 3);
  int64_t n = z->nl + (S->formulation == TIDE_ZARIFI_FACTORED ? nr : z->nf);
  if (n > INT32_MAX) {
    s = tide_fail(TIDE_EINVAL, "coupled system too large");
    goto done;
  }
  S->n = n;
  S->x = tide_alloc((size_t)(n + 1) * sizeof(double));
  S->rhs = tide_alloc((size_t)(n + 1) * sizeof(double));
  S->tmp = tide_alloc((size_t)(n + z->nf + 1) * sizeof(double));
  S->iz = tide_alloc((size_t)(z->nf + 1) * sizeof(double));
  if (!S->x || !S->rhs || !S->tmp || !S->iz) {
    s = tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
    goto done;
  }
  /* the first right side, then the matrix (alpha from its norms) */
  if ((s = liquid_rhs(S, u, 1))) goto done;
  solid_rhs(S, solids, o->elastic_force, S->barrier);
  st->assembly_seconds = tide_wtime() - ta;
  st->assembly_cpu = tide_cputime() - ca;
  s = assemble(S, B, ZK, o, st);
  if (!s && S->formulation != TIDE_ZARIFI_INDEFINITE) {
    S->B = B; /* kept for the coupled residual */
    B = NULL;
  }
done:
  tide_csr_free(A);
  tide_zarifi_work_give(o->work, B); /* (the indefinite form's, or on failure) */
  tide_csr_free(ZK);
  return s;
}

/* The start of a warm Krylov solve (tide_zarifi_opts.warm): the liquid rows from the pressure
 * array, the free solid DOFs from the solids' current velocities (SPD: x = v / alpha).  Returns 1
 * when x was filled, 0 when the form or solver starts cold. */
static int warm_start(tide_zarifi_system *S, const tide_array *pressure,
                      tide_tetmesh *const *solids) {
  int krylov = S->solver != TIDE_ZARIFI_CHOLMOD && S->solver != TIDE_ZARIFI_LDLT;
  if (!krylov || S->formulation == TIDE_ZARIFI_FACTORED) return 0;
  const zwork *z = &S->z;
  const double *pr = TIDE_F64P(pressure);
  const int64_t nc = tide_grid_ncells(&S->g);
  double *x = S->x;
#pragma omp parallel for schedule(static) if (nc > 65536)
  for (int64_t c = 0; c < nc; c++)
    if (z->rowof[c] >= 0) x[z->rowof[c]] = isfinite(pr[c]) ? pr[c] : 0;
  const double sc = S->formulation == TIDE_ZARIFI_SPD ? 1 / S->alpha : 1;
  for (int k = 0; k < S->ns; k++) {
    const double *v = TIDE_F64P(solids[k]->v);
    for (int q = z->dof0[k]; q < z->dof0[k + 1]; q++) {
      int r = z->freeof[q];
      if (r >= 0) x[z->nl + r] = sc * v[q - z->dof0[k]];
    }
  }
  return 1;
}

int tide_zarifi_project(tide_mac *u, const tide_array *labels, tide_tetmesh *const *solids, int ns,
                        const tide_zarifi_opts *o, tide_array *pressure, tide_mac *valid,
                        tide_zarifi_stats *st) {
  memset(st, 0, sizeof *st);
  if (o && o->keep) *o->keep = NULL;
  int s = check_inputs(u, labels, solids, ns, o, pressure, valid);
  if (s) return s;
  if (tide_grid_ncells(&u->grid) > INT32_MAX) return tide_fail(TIDE_EINVAL, "grid too large");
  tide_zarifi_system *S = tide_calloc(sizeof *S);
  if (!S) return tide_fail(TIDE_ENOMEM, "coupled projection: out of memory");
  s = build(S, u, labels, solids, ns, o, st);
  int warm = !s && o->warm && pressure && warm_start(S, pressure, solids);
  if (!s) s = solve(S, o->tol, o->maxit, warm, st);
  if (!s) s = update(S, u, solids, pressure, valid, st);
  if (!s && o->keep) {
    S->st = *st;
    *o->keep = S;
  } else {
    tide_zarifi_system_free(S);
  }
  return s;
}

tide_zarifi_resolve_opts tide_zarifi_resolve_opts_default(void) {
  tide_zarifi_resolve_opts o = {1, 1, 1, 1e-10, 0};
  return o;
}

int tide_zarifi_resolve(tide_zarifi_system *S, tide_mac *u, tide_tetmesh *const *solids, int ns,
                        const tide_zarifi_resolve_opts *o, tide_array *pressure, tide_mac *valid,
                        tide_zarifi_stats *st) {
  memset(st, 0, sizeof *st);
  if (!S || !u || !o || (ns > 0 && !solids))
    return tide_fail(TIDE_EINVAL, "coupled resolve: NULL argument");
  int s;
  if ((s = tide_mac_check(u, &S->g, TIDE_F64, "u"))) return s;
  if (pressure && (s = tide_grid_check_cells(&S->g, pressure, TIDE_F64, "pressure"))) return s;
  if (valid && (s = tide_mac_check(valid, &S->g, TIDE_U8, "valid"))) return s;
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (ns != S->ns)
    return tide_fail(TIDE_EINVAL, "coupled resolve: %d solids, the system was built with %d", ns,
                     S->ns);
  for (int k = 0; k < ns; k++) {
    if (solids[k] != S->solids[k])
      return tide_fail(TIDE_EINVAL, "coupled resolve: solid %d is not the system's", k + 1);
    if (tide_array_nonfinite(solids[k]->v) || tide_array_nonfinite(solids[k]->fem->force))
      return tide_fail(TIDE_ENONFINITE, "solid %d: velocities or forces contain NaN/Inf", k + 1);
  }
  if (o->barrier == 0 && S->barrier_matrix)
    return tide_fail(TIDE_EINVAL,
                     "coupled resolve: the system's matrix holds the walls' barrier (%lld nodes "
                     "within dhat); without it the matrix differs (a full projection is needed)",
                     (long long)S->st.contact_nodes);
  if (S->in_work && tide_zarifi_work_inputs_gen(S->mgwork) != S->in_gen)
    return tide_fail(TIDE_EINVAL,
                     "coupled resolve: a later projection with the same workspace rewrote the "
                     "system's copies of the labels and fractions (a kept system is valid until "
                     "the next projection with the same workspace)");
  *st = S->st;
  st->geometry_seconds = st->geometry_cpu = st->precond_seconds = st->precond_cpu = 0;
  double ta = tide_wtime(), ca = tide_cputime();
  if ((s = liquid_rhs(S, u, 0))) return s;
  solid_rhs(S, solids, o->elastic_force, o->barrier == 1 && S->barrier);
  if ((s = form_rhs(S, 0, 0))) return s;
  st->assembly_seconds = tide_wtime() - ta;
  st->assembly_cpu = tide_cputime() - ca;
  int krylov = S->solver != TIDE_ZARIFI_CHOLMOD && S->solver != TIDE_ZARIFI_LDLT;
  if ((s = solve(S, o->tol, o->maxit, o->warm && krylov, st))) return s;
  return update(S, u, solids, pressure, valid, st);
}
