/*
 * fem.c -- element kernels, material state and assembly (see fem.h).
 */
#include "solid/fem.h"
#include "solid/small.h"
#include "solid/thin.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------ element kernels */

void tide_fe_shape_gradients(int d, const double *Dminv, double *g) {
  for (int j = 0; j < d; j++) {
    double s = 0;
    for (int a = 1; a <= d; a++) {
      g[a * d + j] = Dminv[(a - 1) * d + j];
      s += Dminv[(a - 1) * d + j];
    }
    g[j] = -s;
  }
}

/* F_ij = sum_a x_{a,i} g_{a,j} */
static void def_grad(int d, const double *x, const double *g, double *F) {
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      double s = 0;
      for (int a = 0; a <= d; a++) s += x[a * d + i] * g[a * d + j];
      F[i * d + j] = s;
    }
}

void tide_fe_deformation_gradient(int d, const double *x, const double *Dminv, double *F) {
  double g[12];
  tide_fe_shape_gradients(d, Dminv, g);
  def_grad(d, x, g, F);
}

/* grad[a,i] = vol sum_j P_ij g_aj */
static void stress_to_nodes(int d, const double *P, const double *g, double vol, double *grad) {
  for (int a = 0; a <= d; a++)
    for (int i = 0; i < d; i++) {
      double s = 0;
      for (int j = 0; j < d; j++) s += P[i * d + j] * g[a * d + j];
      grad[a * d + i] = vol * s;
    }
}

/* hess[(a,i),(b,k)] = vol sum_jl T[(ij),(kl)] g_aj g_bl */
static void tangent_to_nodes(int d, const double *T, const double *g, double vol, double *hess) {
  int nn = d * d, n = (d + 1) * d;
  double W[9 * 12]; /* W[(ij), (b,k)] = sum_l T[(ij),(kl)] g_bl */
  for (int ij = 0; ij < nn; ij++)
    for (int b = 0; b <= d; b++)
      for (int k = 0; k < d; k++) {
        double s = 0;
        for (int l = 0; l < d; l++) s += T[ij * nn + k * d + l] * g[b * d + l];
        W[ij * n + b * d + k] = s;
      }
  for (int a = 0; a <= d; a++)
    for (int i = 0; i < d; i++)
      for (int c = 0; c < n; c++) {
        double s = 0;
        for (int j = 0; j < d; j++) s += g[a * d + j] * W[(i * d + j) * n + c];
        hess[(a * d + i) * n + c] = vol * s;
      }
}

void tide_fe_energy(const tide_material *m, int d, const double *x, const double *Dminv, double vol,
                    const double *fiber, int project, double *E, double *grad, double *hess) {
  double g[12], F[9], P[9], T[81], psi;
  tide_fe_shape_gradients(d, Dminv, g);
  def_grad(d, x, g, F);
  tide_material_eval(m, d, F, fiber, project, &psi, grad ? P : NULL, hess ? T : NULL);
  if (E) *E = vol * psi;
  if (grad) stress_to_nodes(d, P, g, vol, grad);
  if (hess) tangent_to_nodes(d, T, g, vol, hess);
}

void tide_fe_damping(const tide_material *m, int d, const double *x, const double *v,
                     const double *Dminv, double vol, double *Ddiss, double *grad, double *C) {
  double g[12], F[9], R[9], Fd[9], Pd[9], T[81];
  tide_fe_shape_gradients(d, Dminv, g);
  def_grad(d, x, g, F);
  tide_polar_rotation(d, F, R);
  def_grad(d, v, g, Fd);
  tide_material_damping(m, d, R, Fd, Pd, C ? T : NULL);
  if (Ddiss) {
    double s = 0;
    for (int i = 0; i < d * d; i++) s += Fd[i] * Pd[i];
    *Ddiss = 0.5 * vol * s;
  }
  if (grad) stress_to_nodes(d, Pd, g, vol, grad);
  if (C) tangent_to_nodes(d, T, g, vol, C);
}

void tide_fe_corot_stiffness(double mu, double lambda, int d, const double *Dminv, double vol,
                             double *Kt) {
  tide_material lin = tide_material_default(TIDE_MODEL_LINEAR, mu, lambda);
  double x[12] = {0};
  tide_fe_energy(&lin, d, x, Dminv, vol, NULL, 0, NULL, NULL, Kt);
}

void tide_fe_corot(int d, const double *Kt, const double *x, const double *X, const double *Dminv,
                   double *R, double *K, double *b) {
  int n = (d + 1) * d;
  double F[9];
  tide_fe_deformation_gradient(d, x, Dminv, F);
  tide_polar_rotation(d, F, R);
  if (K) {
    double T[144]; /* T = Kt Rt^T: T[(a,i),(b,k)] = sum_l Kt[(a,i),(b,l)] R_kl */
    for (int r = 0; r < n; r++)
      for (int bb = 0; bb <= d; bb++)
        for (int k = 0; k < d; k++) {
          double s = 0;
          for (int l = 0; l < d; l++) s += Kt[r * n + bb * d + l] * R[k * d + l];
          T[r * n + bb * d + k] = s;
        }
    for (int a = 0; a <= d; a++)
      for (int i = 0; i < d; i++)
        for (int c = 0; c < n; c++) {
          double s = 0;
          for (int j = 0; j < d; j++) s += R[i * d + j] * T[(a * d + j) * n + c];
          K[(a * d + i) * n + c] = s;
        }
  }
  if (b) {
    double kx[12];
    for (int r = 0; r < n; r++) {
      double s = 0;
      for (int c = 0; c < n; c++) s += Kt[r * n + c] * X[c];
      kx[r] = s;
    }
    for (int a = 0; a <= d; a++)
      for (int i = 0; i < d; i++) {
        double s = 0;
        for (int j = 0; j < d; j++) s += R[i * d + j] * kx[a * d + j];
        b[a * d + i] = s;
      }
  }
}

/* --------------------------------------------------------- fem state */

/* --------------------------------------------------------- fem state */

void tide_fem_free(tide_fem *f) {
  if (!f) return;
  tide_array_release(f->mass);
  tide_array_release(f->pinned);
  tide_array_release(f->target);
  tide_array_release(f->force);
  tide_array_release(f->fiber);
  tide_array_release(f->contact_force);
  tide_array_release(f->contact_collider);
  tide_array_release(f->Fpinv);
  tide_array_release(f->Fpgoal);
  tide_array_release(f->Dminv_eff);
  tide_array_release(f->Kt);
  tide_array_release(f->R);
  tide_array_release(f->ebuf);
  tide_thin_free(f->thin);
  if (f->work && f->work_free) f->work_free(f->work);
  tide_free(f, sizeof *f);
}

static size_t abytes(const tide_array *a) { return a ? a->buf->bytes : 0; }

size_t tide_fem_bytes(const tide_fem *f) {
  if (!f) return 0;
  return sizeof *f + abytes(f->mass) + abytes(f->pinned) + abytes(f->target) + abytes(f->force) +
         abytes(f->fiber) + abytes(f->contact_force) + abytes(f->contact_collider) +
         abytes(f->Fpinv) + abytes(f->Fpgoal) + abytes(f->Dminv_eff) +
         abytes(f->Kt) + abytes(f->R) + abytes(f->ebuf) + tide_thin_bytes(f->thin) +
         f->work_bytes;
}

int tide_fem_alloc(tide_tetmesh *m) {
  if (m->fem) return TIDE_OK;
  int d = m->dim;
  tide_fem *f = tide_calloc(sizeof *f);
  if (!f) return TIDE_ENOMEM;
  int64_t nvol = tide_fem_nvol(m);
  f->mass = tide_array_new1(TIDE_F64, m->nv);
  f->pinned = tide_array_new1(TIDE_U8, m->nv);
  f->target = tide_array_new2(TIDE_F64, m->nv, d);
  f->force = tide_array_new2(TIDE_F64, m->nv, d);
  f->R = tide_array_new3(TIDE_F64, nvol, d, d);
  f->contact_force = tide_array_new1(TIDE_F64, m->nv);
  f->contact_collider = tide_array_new1(TIDE_I32, m->nv);
  int64_t nb = nvol * m->nper * d > m->nv * d ? nvol * m->nper * d : m->nv * d;
  f->ebuf = tide_array_new1(TIDE_F64, nb);
  if (!f->mass || !f->pinned || !f->target || !f->force || !f->R || !f->ebuf ||
      !f->contact_force || !f->contact_collider) {
    tide_fem_free(f);
    return TIDE_ENOMEM;
  }
  memcpy(TIDE_F64P(f->target), TIDE_F64P(m->x), (size_t)(m->nv * d) * sizeof(double));
  f->gravity[1] = -9.81;
  double *R = TIDE_F64P(f->R);
  for (int64_t e = 0; e < nvol; e++)
    for (int i = 0; i < d; i++) R[e * d * d + i * d + i] = 1;
  m->fem = f;
  return TIDE_OK;
}

int tide_fem_attach(tide_tetmesh *m, const tide_material *mat, double rho) {
  if (m->surface)
    return tide_fail(TIDE_EINVAL, "a volume material needs a volume mesh (tetrahedra or 2D "
                                  "triangles); a %s takes %s",
                     m->surface == TIDE_MESH_ROD ? "rod mesh" : "surface",
                     m->surface == TIDE_MESH_ROD ? "mesh:rod{...}" : "mesh:shell{...}");
  int st = tide_material_check(mat);
  if (st) return st;
  if (!(rho > 0) || !isfinite(rho))
    return tide_fail(TIDE_EINVAL, "density must be positive and finite, got %g", rho);
  tide_fem *f = m->fem;
  if (!f) {
    if ((st = tide_fem_alloc(m))) return st;
    f = m->fem;
  } else if (f->Kt && (f->mat.mu != mat->mu || f->mat.lambda != mat->lambda)) {
    tide_array_release(f->Kt); /* element stiffness depends on mu, lambda */
    f->Kt = NULL;
  }
  f->mat = *mat;
  f->rho = rho;
  /* lumped mass (Zarifi Alg. 1 lines 3-4): rho V_e / (d+1) to each node,
   * gathered per node in element order */
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL);
  const int32_t *ptr = TIDE_I32P(m->adj_ptr), *adj = TIDE_I32P(m->adj);
  double *mass = TIDE_F64P(f->mass);
  int nper = m->nper;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    double s = 0;
    for (int32_t t = ptr[i]; t < ptr[i + 1]; t++) s += vol[adj[t] / nper];
    mass[i] = rho * s / nper;
  }
  return TIDE_OK;
}

int tide_fem_set_fibers(tide_tetmesh *m, const double *dirs) {
  tide_fem *f = m->fem;
  if (!f) return tide_fail(TIDE_EINVAL, "the mesh has no material");
  if (m->surface) return tide_fail(TIDE_EINVAL, "fibres are for volume meshes");
  int d = m->dim;
  if (!dirs) {
    tide_array_release(f->fiber);
    f->fiber = NULL;
    return TIDE_OK;
  }
  for (int64_t e = 0; e < m->ne; e++) {
    double n = 0;
    for (int k = 0; k < d; k++) n += dirs[e * d + k] * dirs[e * d + k];
    if (!(n > 0) || !isfinite(n))
      return tide_fail(TIDE_EINVAL, "fibre direction of element %lld is zero or not finite",
                       (long long)e + 1);
  }
  if (!f->fiber && !(f->fiber = tide_array_new2(TIDE_F64, m->ne, d))) return TIDE_ENOMEM;
  double *a = TIDE_F64P(f->fiber);
  for (int64_t e = 0; e < m->ne; e++) {
    double n = 0;
    for (int k = 0; k < d; k++) n += dirs[e * d + k] * dirs[e * d + k];
    n = sqrt(n);
    for (int k = 0; k < d; k++) a[e * d + k] = dirs[e * d + k] / n;
  }
  return TIDE_OK;
}

static inline const double *elem_fiber(const tide_tetmesh *m, int64_t e) {
  return m->fem->fiber ? TIDE_F64P(m->fem->fiber) + e * m->dim : NULL;
}

static inline void gather_elem(const tide_tetmesh *m, const double *x, int64_t e, double *p) {
  const int32_t *el = TIDE_I32P(m->elem) + e * m->nper;
  for (int a = 0; a < m->nper; a++)
    for (int k = 0; k < m->dim; k++) p[a * m->dim + k] = x[(int64_t)el[a] * m->dim + k];
}

/* out[i*d + k] = sum over incident (e, a) of ebuf[(e*nper + a)*d + k] */
static void gather_nodes(const tide_tetmesh *m, const double *ebuf, double *out) {
  const int32_t *ptr = TIDE_I32P(m->adj_ptr), *adj = TIDE_I32P(m->adj);
  int d = m->dim;
  if (!tide_fem_nvol(m)) { /* shells, rods: no volume element contributions */
    memset(out, 0, (size_t)(m->nv * d) * sizeof(double));
    return;
  }
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    double s[3] = {0, 0, 0};
    for (int32_t t = ptr[i]; t < ptr[i + 1]; t++)
      for (int k = 0; k < d; k++) s[k] += ebuf[(int64_t)adj[t] * d + k];
    for (int k = 0; k < d; k++) out[i * d + k] = s[k];
  }
}

static int need_fem(const tide_tetmesh *m) {
  if (!m->fem) return tide_fail(TIDE_EINVAL, "the mesh has no material (attach one first)");
  return TIDE_OK;
}

/* ------------------------------------------------------------ plasticity */

int tide_fem_set_plasticity(tide_tetmesh *m, double yield, double limit, const double *goal_log,
                            int isochoric) {
  int st = need_fem(m);
  if (st) return st;
  if (m->surface || m->fem->thin)
    return tide_fail(TIDE_EINVAL, "plasticity: volume meshes only (not shells or rods)");
  if (!(yield > 0) || !isfinite(yield))
    return tide_fail(TIDE_EINVAL, "plasticity: yield must be positive, got %g", yield);
  if (!(limit > 1) || !isfinite(limit))
    return tide_fail(TIDE_EINVAL, "plasticity: limit must be > 1, got %g", limit);
  tide_fem *f = m->fem;
  int d = m->dim;
  if (goal_log)
    for (int64_t t = 0; t < m->ne * d * d; t++)
      if (!isfinite(goal_log[t])) return tide_fail(TIDE_EINVAL, "plasticity: goal is not finite");
  if (!f->Fpinv && !(f->Fpinv = tide_array_new3(TIDE_F64, m->ne, d, d))) return TIDE_ENOMEM;
  if (!f->Dminv_eff && !(f->Dminv_eff = tide_array_new3(TIDE_F64, m->ne, d, d))) return TIDE_ENOMEM;
  tide_array_release(f->Fpgoal);
  f->Fpgoal = NULL;
  if (goal_log) {
    if (!(f->Fpgoal = tide_array_new3(TIDE_F64, m->ne, d, d))) return TIDE_ENOMEM;
    double *gl = TIDE_F64P(f->Fpgoal);
    for (int64_t e = 0; e < m->ne; e++) /* symmetrize */
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
          gl[e * d * d + i * d + j] =
              0.5 * (goal_log[e * d * d + i * d + j] + goal_log[e * d * d + j * d + i]);
  }
  double *Fpi = TIDE_F64P(f->Fpinv);
  memset(Fpi, 0, (size_t)(m->ne * d * d) * sizeof(double));
  for (int64_t e = 0; e < m->ne; e++)
    for (int i = 0; i < d; i++) Fpi[e * d * d + i * d + i] = 1;
  memcpy(TIDE_F64P(f->Dminv_eff), TIDE_F64P(m->Dminv), (size_t)(m->ne * d * d) * sizeof(double));
  f->yield = yield;
  f->plastic_limit = limit;
  f->isochoric = isochoric != 0;
  return TIDE_OK;
}

/* symmetric log / exp of a d x d SPD matrix through its eigenvectors */
static void sym_apply(int d, const double *A, double (*fn)(double), double *out) {
  double w[3], Q[9];
  tide_sym_eig(d, A, w, Q);
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      double s = 0;
      for (int k = 0; k < d; k++) s += Q[i * d + k] * fn(w[k]) * Q[j * d + k];
      out[i * d + j] = s;
    }
}

int tide_fem_plastic_flow(tide_tetmesh *m, const double *x, int64_t *flowed) {
  int st = need_fem(m);
  if (st) return st;
  tide_fem *f = m->fem;
  if (flowed) *flowed = 0;
  if (!f->Fpinv) return TIDE_OK;
  int d = m->dim, dd = d * d;
  double *Fpi = TIDE_F64P(f->Fpinv), *Deff = TIDE_F64P(f->Dminv_eff);
  const double *Dminv = TIDE_F64P(m->Dminv);
  const double *goal = f->Fpgoal ? TIDE_F64P(f->Fpgoal) : NULL;
  double yield = f->yield, llim = log(f->plastic_limit);
  int64_t count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count) if (m->ne > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < m->ne; e++) {
    double p[12], F[9], Fe[9], U[9], s[3], V[9];
    gather_elem(m, x, e, p);
    tide_fe_deformation_gradient(d, p, Dminv + e * dd, F);
    tide_matmul(d, F, Fpi + e * dd, Fe);
    tide_svd_signed(d, Fe, U, s, V);
    if (!(s[d - 1] > 1e-6)) continue; /* flat or inverted: no plastic flow */
    double L[3], n = 0, mean = 0;
    for (int i = 0; i < d; i++) mean += (L[i] = log(s[i])) / d;
    if (!f->isochoric) mean = 0;
    for (int i = 0; i < d; i++) n += (L[i] - mean) * (L[i] - mean);
    n = sqrt(n);
    if (n <= yield) continue;
    count++;
    /* project onto the yield surface |log s - mean| = yield (the volumetric
     * mean stays elastic when isochoric) */
    double Fpt[9]; /* Fp,trial = s_proj^-1 U^T F */
    for (int i = 0; i < d; i++) {
      double inv = exp(-(mean + (L[i] - mean) * yield / n));
      for (int j = 0; j < d; j++) {
        double t = 0;
        for (int k = 0; k < d; k++) t += U[k * d + i] * F[k * d + j];
        Fpt[i * d + j] = inv * t;
      }
    }
    /* log stretch of the trial: Fp,trial = R S, log S = V' log(s') V'^T */
    double U2[9], s2[3], V2[9], Lt[9], Lnew[9];
    tide_svd_signed(d, Fpt, U2, s2, V2);
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) {
        double t = 0;
        for (int k = 0; k < d; k++) t += V2[i * d + k] * log(s2[k] > 1e-12 ? s2[k] : 1e-12) * V2[j * d + k];
        Lt[i * d + j] = t;
      }
    if (goal) {
      /* control (Irving 2.7): the point of the segment old -> trial closest
       * to the goal, in log space */
      double Fp[9], Lo[9];
      tide_mat_inv(d, Fpi + e * dd, Fp);
      double Fps[9];
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) Fps[i * d + j] = 0.5 * (Fp[i * d + j] + Fp[j * d + i]);
      sym_apply(d, Fps, log, Lo);
      double num = 0, den = 0;
      for (int i = 0; i < dd; i++) {
        double dl = Lt[i] - Lo[i];
        num += (goal[e * dd + i] - Lo[i]) * dl;
        den += dl * dl;
      }
      double t = den > 0 ? num / den : 0;
      t = t < 0 ? 0 : (t > 1 ? 1 : t);
      for (int i = 0; i < dd; i++) Lnew[i] = Lo[i] + t * (Lt[i] - Lo[i]);
    } else {
      memcpy(Lnew, Lt, sizeof(double) * (size_t)dd);
    }
    /* limit: clamp the log singular values to [-log limit, log limit] */
    double w[3], Q[9], Fpinv_new[9];
    tide_sym_eig(d, Lnew, w, Q);
    if (f->isochoric) {
      /* scale the (traceless) log stretch into the range: det Fp stays 1 */
      double wm = 0, big = 0;
      for (int i = 0; i < d; i++) wm += w[i] / d;
      for (int i = 0; i < d; i++) big = fmax(big, fabs(w[i] - wm));
      double sc = big > llim ? llim / big : 1;
      for (int i = 0; i < d; i++) w[i] = wm + sc * (w[i] - wm);
    } else {
      for (int i = 0; i < d; i++) w[i] = w[i] < -llim ? -llim : (w[i] > llim ? llim : w[i]);
    }
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) {
        double t = 0;
        for (int k = 0; k < d; k++) t += Q[i * d + k] * exp(-w[k]) * Q[j * d + k];
        Fpinv_new[i * d + j] = t;
      }
    memcpy(Fpi + e * dd, Fpinv_new, sizeof(double) * (size_t)dd);
    tide_matmul(d, Dminv + e * dd, Fpinv_new, Deff + e * dd);
  }
  if (flowed) *flowed = count;
  return TIDE_OK;
}

/* ------------------------------------------------------------- assembly */

int64_t tide_fem_elem_nnz(const tide_tetmesh *m) {
  int64_t n = (int64_t)m->nper * m->dim;
  return tide_fem_nvol(m) * n * n + tide_thin_nnz(m);
}

int64_t tide_fem_ip_nnz(const tide_tetmesh *m) { return tide_fem_elem_nnz(m) + m->nv * m->dim; }

int tide_fem_energy(const tide_tetmesh *m, const double *x, double *E) {
  int st = need_fem(m);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  double *eb = TIDE_F64P(m->fem->ebuf);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL);
  const tide_material *mat = &m->fem->mat;
  int d = m->dim;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12];
    gather_elem(m, x, e, p);
    tide_fe_energy(mat, d, p, tide_fem_dminv(m, e), vol[e], elem_fiber(m, e), 0, eb + e, NULL,
                   NULL);
  }
  *E = tide_sum(nvol, eb);
  if (m->fem->thin) {
    double Et;
    if ((st = tide_thin_energy(m, x, &Et))) return st;
    *E += Et;
  }
  return TIDE_OK;
}

int tide_fem_gradient(const tide_tetmesh *m, const double *x, double *grad) {
  int st = need_fem(m);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  double *eb = TIDE_F64P(m->fem->ebuf);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL);
  const tide_material *mat = &m->fem->mat;
  int d = m->dim, n = m->nper * d;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12];
    gather_elem(m, x, e, p);
    tide_fe_energy(mat, d, p, tide_fem_dminv(m, e), vol[e], elem_fiber(m, e), 0, NULL, eb + e * n,
                   NULL);
  }
  gather_nodes(m, eb, grad);
  return m->fem->thin ? tide_thin_gradient(m, x, 1, grad) : TIDE_OK;
}

void tide_fem_write_block(int d, int nn, const int32_t *el, const double *H, int flags,
                          const uint8_t *pinned, tide_tripletbuf *tb, int64_t t) {
  int n = nn * d;
  for (int r = 0; r < n; r++) {
    int64_t gr = (int64_t)el[r / d] * d + r % d;
    int pr = (flags & TIDE_FEM_PINNED) && pinned && pinned[el[r / d]];
    for (int c = 0; c < n; c++, t++) {
      int64_t gc = (int64_t)el[c / d] * d + c % d;
      int pc = (flags & TIDE_FEM_PINNED) && pinned && pinned[el[c / d]];
      tb->i[t] = (int)(gr + tb->offset);
      tb->j[t] = (int)(gc + tb->offset);
      tb->v[t] = pr || pc ? 0 : H[r * n + c];
    }
  }
}

/* one volume element block (n x n) into tb at block e */
static void write_block(const tide_tetmesh *m, int64_t e, const double *H, int flags,
                        const uint8_t *pinned, tide_tripletbuf *tb) {
  int n = m->nper * m->dim;
  tide_fem_write_block(m->dim, m->nper, TIDE_I32P(m->elem) + e * m->nper, H, flags, pinned, tb,
                       tb->start + e * n * n);
}

int tide_fem_hessian(const tide_tetmesh *m, const double *x, int flags, tide_tripletbuf *tb) {
  int st = need_fem(m);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL);
  const tide_material *mat = &m->fem->mat;
  const uint8_t *pinned = TIDE_U8P(m->fem->pinned);
  int d = m->dim;
  int project = (flags & TIDE_FEM_PROJECT) != 0;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], H[144];
    gather_elem(m, x, e, p);
    tide_fe_energy(mat, d, p, tide_fem_dminv(m, e), vol[e], elem_fiber(m, e), project, NULL, NULL,
                   H);
    write_block(m, e, H, flags, pinned, tb);
  }
  if (m->fem->thin) {
    tide_tripletbuf t2 = *tb;
    t2.start += nvol * (int64_t)(m->nper * d) * (m->nper * d);
    return tide_thin_hessian(m, x, 1, flags, &t2);
  }
  return TIDE_OK;
}

int tide_fem_damping_gradient(const tide_tetmesh *m, const double *x, const double *v,
                              double *grad) {
  int st = need_fem(m);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  double *eb = TIDE_F64P(m->fem->ebuf);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL);
  const tide_material *mat = &m->fem->mat;
  int d = m->dim, n = m->nper * d;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], q[12];
    gather_elem(m, x, e, p);
    gather_elem(m, v, e, q);
    tide_fe_damping(mat, d, p, q, tide_fem_dminv(m, e), vol[e], NULL, eb + e * n, NULL);
  }
  gather_nodes(m, eb, grad);
  return TIDE_OK;
}

int tide_fem_damping_matrix(const tide_tetmesh *m, const double *x, tide_tripletbuf *tb) {
  int st = need_fem(m);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL);
  const tide_material *mat = &m->fem->mat;
  int d = m->dim;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], zero[12] = {0}, C[144];
    gather_elem(m, x, e, p);
    tide_fe_damping(mat, d, p, zero, tide_fem_dminv(m, e), vol[e], NULL, NULL, C);
    write_block(m, e, C, 0, NULL, tb);
  }
  return TIDE_OK;
}

/* ------------------------------------------------- corotational (Zarifi) */

static int corot_prepare(tide_tetmesh *m) {
  tide_fem *f = m->fem;
  if (f->Kt) return TIDE_OK;
  int d = m->dim, n = m->nper * d;
  int64_t nvol = m->ne;
  if (!(f->Kt = tide_array_new3(TIDE_F64, m->ne, n, n))) return TIDE_ENOMEM;
  double *Kt = TIDE_F64P(f->Kt);
  const double *Dminv = TIDE_F64P(m->Dminv), *vol = (m->vol ? TIDE_F64P(m->vol) : NULL);
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++)
    tide_fe_corot_stiffness(f->mat.mu, f->mat.lambda, d, Dminv + e * d * d, vol[e],
                            Kt + e * n * n);
  return TIDE_OK;
}

int tide_fem_corot_system(tide_tetmesh *m, const double *x, int rotate, tide_tripletbuf *tb,
                          double *b) {
  int st = need_fem(m);
  if (st) return st;
  if (m->surface || m->fem->thin)
    return tide_fail(TIDE_EINVAL, "the corotational linear system is for volume meshes only "
                                  "(shells and rods step with step_newton)");
  if ((st = corot_prepare(m))) return st;
  int64_t nvol = m->ne;
  tide_fem *f = m->fem;
  int d = m->dim, n = m->nper * d;
  const double *Kt = TIDE_F64P(f->Kt), *X = TIDE_F64P(m->rest), *Dminv = TIDE_F64P(m->Dminv);
  double *R = TIDE_F64P(f->R), *eb = TIDE_F64P(f->ebuf);
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], P0[12], K[144];
    gather_elem(m, x, e, p);
    gather_elem(m, X, e, P0);
    if (rotate) {
      tide_fe_corot(d, Kt + e * n * n, p, P0, Dminv + e * d * d, R + e * d * d, tb ? K : NULL,
                    eb + e * n);
    } else {
      /* pure linear: R = I, K = Kt, b = Kt X */
      double *Re = R + e * d * d;
      for (int i = 0; i < d * d; i++) Re[i] = (i % (d + 1)) == 0;
      const double *Ke = Kt + e * n * n;
      if (tb) memcpy(K, Ke, sizeof(double) * (size_t)(n * n));
      for (int r = 0; r < n; r++) {
        double s = 0;
        for (int c = 0; c < n; c++) s += Ke[r * n + c] * P0[c];
        eb[e * n + r] = s;
      }
    }
    if (tb) write_block(m, e, K, 0, NULL, tb);
  }
  if (b) gather_nodes(m, eb, b);
  return TIDE_OK;
}

int tide_fem_corot_energy(const tide_tetmesh *m, const double *x, double *E) {
  int st = need_fem(m);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  tide_fem *f = m->fem;
  if (!f->Kt) return tide_fail(TIDE_EINVAL, "no corotational system assembled yet");
  nvol = m->ne;
  int d = m->dim, n = m->nper * d;
  const double *Kt = TIDE_F64P(f->Kt), *X = TIDE_F64P(m->rest), *R = TIDE_F64P(f->R);
  double *eb = TIDE_F64P(f->ebuf);
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], P0[12], u[12];
    gather_elem(m, x, e, p);
    gather_elem(m, X, e, P0);
    const double *Re = R + e * d * d;
    for (int a = 0; a <= d; a++)
      for (int i = 0; i < d; i++) {
        double s = 0;
        for (int k = 0; k < d; k++) s += Re[k * d + i] * p[a * d + k];
        u[a * d + i] = s - P0[a * d + i];
      }
    double s = 0;
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) s += u[r] * Kt[e * n * n + r * n + c] * u[c];
    eb[e] = 0.5 * s;
  }
  *E = tide_sum(nvol, eb);
  return TIDE_OK;
}

/* ------------------------------------------------ incremental potential */

static int ip_check(const tide_tetmesh *m, const tide_ip *ip) {
  int st = need_fem(m);
  if (st) return st;
  if (!(ip->dt > 0) || !isfinite(ip->dt))
    return tide_fail(TIDE_EINVAL, "incremental potential: dt must be positive");
  if (!ip->xhat) return tide_fail(TIDE_EINVAL, "incremental potential: xhat missing");
  const tide_material *mat = &m->fem->mat;
  if ((mat->damp_alpha > 0 || mat->damp_beta > 0 || tide_thin_has_damping(m)) && !ip->xn)
    return tide_fail(TIDE_EINVAL, "incremental potential: damping needs the start positions xn");
  return TIDE_OK;
}

static int has_damping(const tide_tetmesh *m) {
  return m->fem->mat.damp_alpha > 0 || m->fem->mat.damp_beta > 0;
}

int tide_fem_ip_value(const tide_tetmesh *m, const tide_ip *ip, const double *x, double *E) {
  int st = ip_check(m, ip);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL), *mass = TIDE_F64P(m->fem->mass);
  const tide_material *mat = &m->fem->mat;
  double *eb = TIDE_F64P(m->fem->ebuf);
  int d = m->dim, damp = has_damping(m);
  double dt = ip->dt;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], Ee, Dd = 0;
    gather_elem(m, x, e, p);
    tide_fe_energy(mat, d, p, tide_fem_dminv(m, e), vol[e], elem_fiber(m, e), 0, &Ee, NULL, NULL);
    if (damp) {
      double pn[12], dx[12];
      gather_elem(m, ip->xn, e, pn);
      for (int k = 0; k < m->nper * d; k++) dx[k] = p[k] - pn[k];
      tide_fe_damping(mat, d, pn, dx, tide_fem_dminv(m, e), vol[e], &Dd, NULL, NULL);
    }
    eb[e] = dt * dt * Ee + dt * Dd;
  }
  double Eel = tide_sum(nvol, eb);
  /* kinetic part, per node into the scratch (nv <= ne * nper); with xn
   * relative to its value at xn, 1/2 |x - xhat|^2_M - 1/2 |xn - xhat|^2_M =
   * 1/2 (x - xn)^T M (x - xn - 2 (xhat - xn)), free of the cancellation of
   * two large numbers when xhat lies far away (large dt: static solves) */
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    double s = 0;
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      if (ip->xn) {
        double dx = x[q] - ip->xn[q];
        s += dx * (dx - 2 * (ip->xhat[q] - ip->xn[q]));
      } else {
        double r = x[q] - ip->xhat[q];
        s += r * r;
      }
    }
    eb[i] = 0.5 * mass[i] * s;
  }
  *E = Eel + tide_sum(m->nv, eb);
  if (m->fem->thin) { /* shells and rods: dt^2 E_thin + their Rayleigh dissipation */
    double Et;
    if ((st = tide_thin_energy(m, x, &Et))) return st;
    *E += dt * dt * Et;
    if ((st = tide_thin_damping(m, x, ip->xn, dt, E, NULL, NULL))) return st;
  }
  return TIDE_OK;
}

int tide_fem_ip_gradient(const tide_tetmesh *m, const tide_ip *ip, const double *x, double *g) {
  int st = ip_check(m, ip);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL), *mass = TIDE_F64P(m->fem->mass);
  const tide_material *mat = &m->fem->mat;
  double *eb = TIDE_F64P(m->fem->ebuf);
  int d = m->dim, n = m->nper * d, damp = has_damping(m);
  double dt = ip->dt;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], ge[12];
    gather_elem(m, x, e, p);
    tide_fe_energy(mat, d, p, tide_fem_dminv(m, e), vol[e], elem_fiber(m, e), 0, NULL, ge, NULL);
    for (int k = 0; k < n; k++) eb[e * n + k] = dt * dt * ge[k];
    if (damp) {
      double pn[12], dx[12], gd[12];
      gather_elem(m, ip->xn, e, pn);
      for (int k = 0; k < n; k++) dx[k] = p[k] - pn[k];
      tide_fe_damping(mat, d, pn, dx, tide_fem_dminv(m, e), vol[e], NULL, gd, NULL);
      for (int k = 0; k < n; k++) eb[e * n + k] += dt * gd[k];
    }
  }
  gather_nodes(m, eb, g);
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++) g[i * d + k] += mass[i] * (x[i * d + k] - ip->xhat[i * d + k]);
  if (m->fem->thin) {
    if ((st = tide_thin_gradient(m, x, dt * dt, g))) return st;
    if ((st = tide_thin_damping(m, x, ip->xn, dt, NULL, g, NULL))) return st;
  }
  return TIDE_OK;
}

int tide_fem_ip_gradient_hessian(const tide_tetmesh *m, const tide_ip *ip, const double *x,
                                 int flags, double *g, tide_tripletbuf *tb) {
  int st = ip_check(m, ip);
  if (st) return st;
  int64_t nvol = tide_fem_nvol(m);
  const double *vol = (m->vol ? TIDE_F64P(m->vol) : NULL), *mass = TIDE_F64P(m->fem->mass);
  const tide_material *mat = &m->fem->mat;
  const uint8_t *pinned = TIDE_U8P(m->fem->pinned);
  double *eb = TIDE_F64P(m->fem->ebuf);
  int d = m->dim, n = m->nper * d, damp = has_damping(m);
  int project = (flags & TIDE_FEM_PROJECT) != 0;
  double dt = ip->dt;
#pragma omp parallel for schedule(static) if (nvol > TIDE_SOLID_PAR_ELEM)
  for (int64_t e = 0; e < nvol; e++) {
    double p[12], H[144], ge[12];
    gather_elem(m, x, e, p);
    tide_fe_energy(mat, d, p, tide_fem_dminv(m, e), vol[e], elem_fiber(m, e), project, NULL,
                   g ? ge : NULL, H);
    for (int k = 0; k < n * n; k++) H[k] *= dt * dt;
    if (g)
      for (int k = 0; k < n; k++) ge[k] *= dt * dt;
    if (damp) {
      double pn[12], dx[12], C[144], gd[12];
      gather_elem(m, ip->xn, e, pn);
      for (int k = 0; k < n; k++) dx[k] = p[k] - pn[k];
      tide_fe_damping(mat, d, pn, dx, tide_fem_dminv(m, e), vol[e], NULL, g ? gd : NULL, C);
      for (int k = 0; k < n * n; k++) H[k] += dt * C[k];
      if (g)
        for (int k = 0; k < n; k++) ge[k] += dt * gd[k];
    }
    if (g) memcpy(eb + e * n, ge, sizeof(double) * (size_t)n);
    write_block(m, e, H, flags, pinned, tb);
  }
  if (g) {
    gather_nodes(m, eb, g);
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < d; k++) g[i * d + k] += mass[i] * (x[i * d + k] - ip->xhat[i * d + k]);
  }
  int64_t t0 = tb->start + tide_fem_elem_nnz(m);
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++) {
      int64_t t = t0 + i * d + k;
      tb->i[t] = tb->j[t] = (int)(i * d + k + tb->offset);
      tb->v[t] = mass[i] > 0 ? mass[i] : 1; /* unused nodes keep the system regular */
    }
  if (m->fem->thin) {
    tide_tripletbuf t2 = *tb;
    t2.start += nvol * (int64_t)n * n;
    if ((st = tide_thin_hessian(m, x, dt * dt, flags, &t2))) return st;
    if (g && (st = tide_thin_gradient(m, x, dt * dt, g))) return st;
    if ((st = tide_thin_damping(m, x, ip->xn, dt, NULL, g, &t2))) return st;
  }
  return TIDE_OK;
}

int tide_fem_ip_hessian(const tide_tetmesh *m, const tide_ip *ip, const double *x, int flags,
                        tide_tripletbuf *tb) {
  return tide_fem_ip_gradient_hessian(m, ip, x, flags, NULL, tb);
}

int tide_fem_predict(const tide_tetmesh *m, double dt, double *xhat) {
  int st = need_fem(m);
  if (st) return st;
  const tide_fem *f = m->fem;
  const double *x = TIDE_F64P(m->x), *v = TIDE_F64P(m->v), *mass = TIDE_F64P(f->mass);
  const double *fe = TIDE_F64P(f->force), *tg = TIDE_F64P(f->target);
  const uint8_t *pin = TIDE_U8P(f->pinned);
  int d = m->dim;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      if (pin[i])
        xhat[q] = tg[q];
      else if (mass[i] > 0)
        xhat[q] = x[q] + dt * v[q] + dt * dt * (f->gravity[k] + fe[q] / mass[i]);
      else
        xhat[q] = x[q];
    }
  return TIDE_OK;
}
