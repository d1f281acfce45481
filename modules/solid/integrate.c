/*
 * integrate.c -- time integrators of deformable solids (see integrate.h).
 */
#include "solid/integrate.h"
#include "solid/broadphase.h"
#include "solid/contact.h"
#include "solid/friction.h"
#include "solid/ipc.h"
#include "solid/small.h"
#include "solid/thin.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------- workspace */

typedef struct solid_work {
  int64_t N;        /* nv * d */
  int d;            /* dimension */
  int64_t nel;      /* element-block triplets ne * n^2 */
  int64_t nfr;      /* nv * d * d: friction blocks of Newton (one per node) */
  int64_t nnz;      /* nel + N + nfr (element blocks, the diagonal, friction blocks) */
  int *I, *J;       /* triplet indices (fixed) */
  double *V;        /* system triplet values */
  double *KV;       /* stiffness triplet values (element blocks) */
  tide_csr *A;      /* system, upper storage */
  tide_csr *K;      /* corotational stiffness, general storage */
  tide_factor *F;   /* CHOLMOD factor of A */
  int factor_kind;  /* TIDE_FACTOR_* of F */
  tide_krylov *kr;  /* PCG on A */
  double *vec[10];  /* vectors of N doubles */
  uint8_t *cflag;   /* (nv) contact state of Newmark: 0 free, 1 contact, 2 pinned */
  double *cN, *cvB; /* (N) contact normals and body velocities */
  int *cbody;       /* (nv) collider index of each contact */
  double *cQ;       /* (nv d d) active contact directions of Newton (orthonormal rows) */
  /* lagged friction of Newton in use (the normal forces and colliders of
   * the last solve are the fem's contact_force / contact_collider) */
  double *fr_ml;              /* (nv) mu lambda of the lagged contact, 0: none [N] */
  double *fr_N;               /* (nv d) lagged normals */
  double *fr_dB;              /* (nv d) collider displacement over the step [m] */
  tide_ipc *ipc;              /* contact among the mesh's own primitives (IPC), NULL when off */
  double ipc_dhat, ipc_kappa; /* the options it was built with */
  tide_ipc_sdf sdf;           /* colliders as barriers (contact = "barrier") for this step */
  int sdf_on;
  /* the barrier stiffness (pairs and barrier colliders) in this step; the
   * value kept across steps as IPC's adaptive kappa raises it is the fem's
   * ipc_kappa (state of the run, checkpointed) */
  double kappa, kappa_max, kappa_eps;
  int kappa_adapt;
  /* prescribed motion inside the optimization (augmented Lagrangian, for
   * pinned nodes whose jump to their targets contact blocks; al_* below) */
  uint8_t *al_mask;  /* (nv) 1: a pinned node moved by the augmented Lagrangian this step */
  double *al_lambda; /* (N) its multipliers [m sqrt(kg)] */
  double al_kappa;   /* its penalty weight, relative to the node's mass */
  int al_on;
  double broad_seconds, ccd_seconds; /* this step's broad phase and CCD bounds (stats) */
  size_t bytes;
} solid_work;

#define NVEC 10

static void work_free(void *p) {
  solid_work *w = p;
  if (!w) return;
  size_t ib = (size_t)w->nnz * sizeof(int), vb = (size_t)w->nnz * sizeof(double);
  size_t kb = (size_t)w->nel * sizeof(double), nb = (size_t)w->N * sizeof(double);
  size_t nv = (size_t)(w->N > 0 ? w->N : 1);
  tide_free(w->I, ib);
  tide_free(w->J, ib);
  tide_free(w->V, vb);
  tide_free(w->KV, kb);
  tide_csr_free(w->A);
  tide_csr_free(w->K);
  tide_factor_free(w->F);
  tide_krylov_free(w->kr);
  for (int i = 0; i < NVEC; i++)
    tide_free(w->vec[i], nb);
  tide_free(w->cflag, nv);
  tide_free(w->cN, nb);
  tide_free(w->cvB, nb);
  tide_free(w->cbody, nv * sizeof(int));
  tide_free(w->cQ, nb * (size_t)w->d);
  tide_free(w->fr_ml, nv * sizeof(double));
  tide_free(w->fr_N, nb);
  tide_free(w->fr_dB, nb);
  tide_ipc_free(w->ipc);
  tide_free(w->al_mask, nv); /* sized N: one flag per node used */
  tide_free(w->al_lambda, nb);
  tide_free(w, sizeof *w);
}

static solid_work *get_work(tide_tetmesh *m, int *st) {
  tide_fem *f = m->fem;
  *st = TIDE_OK;
  if (f->work) return f->work;
  solid_work *w = tide_calloc(sizeof *w);
  if (!w) {
    *st = TIDE_ENOMEM;
    return NULL;
  }
  int d = m->dim, n = m->nper * d;
  w->N = m->nv * d;
  w->d = d;
  w->nel = tide_fem_elem_nnz(m); /* volume element blocks, then shells' and rods' */
  (void)n;
  w->nfr = m->nv * d * d;
  w->nnz = w->nel + w->N + w->nfr;
  if (w->nnz > INT32_MAX) {
    tide_free(w, sizeof *w);
    *st = tide_fail(TIDE_EINVAL, "mesh too large for 32-bit sparse matrices");
    return NULL;
  }
  size_t ib = (size_t)w->nnz * sizeof(int), vb = (size_t)w->nnz * sizeof(double);
  size_t kb = (size_t)w->nel * sizeof(double), nb = (size_t)w->N * sizeof(double);
  size_t nvb = (size_t)(w->N > 0 ? w->N : 1);
  w->I = tide_alloc(ib);
  w->J = tide_alloc(ib);
  w->V = tide_calloc(vb);
  w->KV = tide_alloc(kb);
  w->cflag = tide_calloc(nvb);
  w->cN = tide_calloc(nb);
  w->cvB = tide_calloc(nb);
  w->cbody = tide_calloc(nvb * sizeof(int));
  w->cQ = tide_calloc(nb * (size_t)d);
  w->fr_ml = tide_calloc(nvb * sizeof(double));
  w->fr_N = tide_calloc(nb);
  w->fr_dB = tide_calloc(nb);
  int ok = w->I && w->J && w->V && w->KV && w->cflag && w->cN && w->cvB && w->cbody && w->cQ &&
           w->fr_ml && w->fr_N && w->fr_dB;
  for (int i = 0; i < NVEC; i++)
    ok = ok && (w->vec[i] = tide_calloc(nb));
  if (!ok) {
    work_free(w);
    *st = TIDE_ENOMEM;
    return NULL;
  }
  w->bytes = sizeof *w + 2 * ib + vb + kb + (NVEC + 4 + (size_t)d) * nb +
             nvb * (1 + sizeof(int) + sizeof(double));
  /* the friction blocks' indices (full d x d per node; the upper storage
   * skips j < i), after the element blocks and the diagonal */
  for (int64_t i = 0; i < m->nv; i++)
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) {
        int64_t t = w->nel + w->N + i * d * d + a * d + b;
        w->I[t] = (int)(i * d + a);
        w->J[t] = (int)(i * d + b);
      }
  f->work = w;
  f->work_free = work_free;
  f->work_bytes = w->bytes;
  return w;
}

static void kv_to_tb(solid_work *w, double *vals, tide_tripletbuf *tb) {
  tb->i = w->I;
  tb->j = w->J;
  tb->v = vals;
  tb->start = 0;
  tb->offset = 0;
}

/* diagonal triplets (after the element blocks) */
static void fill_diag_indices(solid_work *w) {
  for (int64_t q = 0; q < w->N; q++)
    w->I[w->nel + q] = w->J[w->nel + q] = (int)q;
}

/* build or refill the system CSR from the triplets */
static int system_matrix(solid_work *w) {
  if (!w->A)
    return tide_csr_from_triplets((int)w->N, (int)w->N, w->nnz, w->I, w->J, w->V, TIDE_CSR_UPPER,
                                  &w->A);
  return tide_csr_set_triplet_values(w->A, w->nnz, w->V);
}

/* factor (analysis once when reuse) and solve A x = b */
static int direct_solve(solid_work *w, int solver, int reuse, const double *b, double *x,
                        tide_step_stats *st) {
  double t0 = tide_wtime();
  int kind = solver == TIDE_SOLID_CHOLMOD       ? TIDE_FACTOR_CHOLESKY
             : solver == TIDE_SOLID_LDLT        ? TIDE_FACTOR_LDLT
             : w->N < TIDE_SOLID_SUPERNODAL_MIN ? TIDE_FACTOR_LDLT
                                                : TIDE_FACTOR_CHOLESKY;
  int s;
  if (w->F && reuse && w->factor_kind == kind) {
    s = tide_factor_refactor(w->F, w->A);
  } else {
    tide_factor_free(w->F);
    w->F = NULL;
    s = tide_factor_new(w->A, kind, &w->F);
    w->factor_kind = kind;
    st->analyses++;
  }
  double t1 = tide_wtime();
  st->factor_seconds += t1 - t0;
  if (s) return s;
  s = tide_factor_solve(w->F, b, x);
  st->solve_seconds += tide_wtime() - t1;
  return s;
}

static int krylov_solve(solid_work *w, const tide_step_opts *o, const double *b, double *x,
                        tide_step_stats *st) {
  double t0 = tide_wtime();
  int s;
  if (!w->kr) {
    if ((s = tide_krylov_new(w->A, TIDE_KRYLOV_PCG, TIDE_PRECOND_IC0, &w->kr))) return s;
    st->analyses++;
  } else if ((s = tide_krylov_refactor(w->kr, w->A))) {
    return s;
  }
  double t1 = tide_wtime();
  st->factor_seconds += t1 - t0;
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = o->tol > 0 && o->tol < 1 ? o->tol : 1e-8;
  so.maxit = o->maxit;
  so.use_x0 = 1;
  tide_solve_stats ks;
  s = tide_krylov_solve(w->kr, w->A, b, x, &so, &ks);
  st->solve_seconds += tide_wtime() - t1;
  st->iterations = ks.iterations;
  st->linear_iterations += ks.iterations;
  st->residual = ks.residual;
  st->converged = ks.converged;
  return s;
}

tide_step_opts tide_step_opts_default(void) {
  tide_step_opts o;
  memset(&o, 0, sizeof o);
  o.dt = 1.0 / 60;
  o.contact = TIDE_CONTACT_FRICTION;
  o.corotational = 1;
  o.solver = TIDE_SOLID_AUTO;
  o.project = 1;
  o.reuse = 1;
  o.eps_v = 1e-4;
  o.friction_iterations = 2;
  o.friction_tol = 0.02;
  o.kappa_adapt = 1;
  return o;
}

static int check_step(tide_tetmesh *m, const tide_step_opts *o, const char *what) {
  if (!m->fem) return tide_fail(TIDE_EINVAL, "%s: the mesh has no material", what);
  if (!(o->dt > 0) || !isfinite(o->dt))
    return tide_fail(TIDE_EINVAL, "%s: dt must be positive and finite, got %g", what, o->dt);
  for (int i = 0; i < o->ncolliders; i++)
    if (o->colliders[i]->dim != m->dim)
      return tide_fail(TIDE_EINVAL, "%s: collider %d is %dD, the mesh %dD", what, i + 1,
                       o->colliders[i]->dim, m->dim);
  int64_t bad = tide_array_nonfinite(m->x) + tide_array_nonfinite(m->v) +
                tide_array_nonfinite(m->fem->force) + tide_array_nonfinite(m->fem->target);
  if (bad)
    return tide_fail(TIDE_ENONFINITE,
                     "%s: positions, velocities, forces or targets contain "
                     "NaN/Inf",
                     what);
  return TIDE_OK;
}

/* a node is fixed (kinematic) when pinned or massless */
static inline int fixed_node(const tide_fem *f, int64_t i) {
  return TIDE_U8P(f->pinned)[i] || !(TIDE_F64P(f->mass)[i] > 0);
}

static int finish_step(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st, int contact) {
  int s;
  if (contact && o->ncolliders) {
    int64_t c = 0;
    if ((s = tide_solid_collide_project(m, o->colliders, o->ncolliders, o->dt,
                                        o->contact == TIDE_CONTACT_SIMPLE, &c)))
      return s;
    st->contacts += c;
  }
  if (m->fem->Fpinv && (s = tide_fem_plastic_flow(m, TIDE_F64P(m->x), &st->plastic))) return s;
  if (m->fem->thin) st->plastic += tide_thin_plastic_flow(m, TIDE_F64P(m->x)); /* bending */
  if (tide_array_nonfinite(m->x) || tide_array_nonfinite(m->v))
    return tide_fail(TIDE_ENONFINITE, "the step produced NaN/Inf positions or velocities");
  return TIDE_OK;
}

/* ------------------------------------------------- corotational system */

/* w->K from the element-block triplet values w->KV (pattern built on the first call) */
static int stiffness_matrix(solid_work *w) {
  if (!w->K)
    return tide_csr_from_triplets((int)w->N, (int)w->N, w->nel, w->I, w->J, w->KV, TIDE_CSR_GENERAL,
                                  &w->K);
  return tide_csr_set_triplet_values(w->K, w->nel, w->KV);
}

int tide_solid_corot_matrices(tide_tetmesh *m, const double *x, int rotate, const tide_csr **K,
                              const double **b) {
  if (!m->fem) return tide_fail(TIDE_EINVAL, "the mesh has no material");
  int s;
  solid_work *w = get_work(m, &s);
  if (!w) return s;
  tide_tripletbuf tb;
  kv_to_tb(w, w->KV, &tb);
  double *bv = w->vec[9];
  if ((s = tide_fem_corot_system(m, x, rotate, &tb, bv))) return s;
  if ((s = stiffness_matrix(w))) return s;
  if (K) *K = w->K;
  if (b) *b = bv;
  return TIDE_OK;
}

int tide_solid_elastic_matrices(tide_tetmesh *m, const double *x, int flags, const tide_csr **K,
                                const double **b) {
  if (!m->fem) return tide_fail(TIDE_EINVAL, "the mesh has no material");
  if (m->fem->thin)
    return tide_fail(TIDE_EINVAL, "elastic matrices: volume elements only (shells and rods "
                                  "are not linearized here)");
  int s;
  solid_work *w = get_work(m, &s);
  if (!w) return s;
  tide_tripletbuf tb;
  kv_to_tb(w, w->KV, &tb);
  double *bv = w->vec[9], *g = w->vec[8];
  if ((s = tide_fem_hessian(m, x, flags & TIDE_FEM_PROJECT, &tb))) return s;
  if ((s = tide_fem_gradient(m, x, g))) return s;
  if ((s = stiffness_matrix(w))) return s;
  /* b = K x - grad E: the linearization -grad E(x + dx) ~ -(K (x + dx) - b) */
  if ((s = tide_csr_mul(w->K, x, bv))) return s;
  for (int64_t q = 0; q < w->N; q++)
    bv[q] -= g[q];
  if (K) *K = w->K;
  if (b) *b = bv;
  return TIDE_OK;
}

int tide_solid_step_linear(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st) {
  memset(st, 0, sizeof *st);
  double t0 = tide_wtime();
  int s = check_step(m, o, "linear step");
  if (s) return s;
  if (m->fem->thin)
    return tide_fail(TIDE_EINVAL,
                     "linear step: shells and rods have no corotated linear stiffness (this "
                     "integrator rotates each element's rest stiffness by its own rotation; hinge "
                     "bending and rod curvature are energies of the angles between elements): "
                     "step them with step_newton");
  solid_work *w = get_work(m, &s);
  if (!w) return s;
  tide_fem *f = m->fem;
  int d = m->dim;
  double dt = o->dt, *x = TIDE_F64P(m->x), *v = TIDE_F64P(m->v);
  const double *mass = TIDE_F64P(f->mass), *fe = TIDE_F64P(f->force), *tg = TIDE_F64P(f->target);
  const double *b;
  const tide_csr *K;
  /* Alg. 2 lines 5-11: rotations, K, b at x* = x */
  if ((s = tide_solid_corot_matrices(m, x, o->corotational, &K, &b))) return s;
  double *Kx = w->vec[0], *rhs = w->vec[1], *vp = w->vec[2], *Kvp = w->vec[3], *vn = w->vec[4];
  if ((s = tide_csr_mul(K, x, Kx))) return s;
  /* known velocities of fixed nodes */
  int64_t N = w->N;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      vp[q] = TIDE_U8P(f->pinned)[i] ? (tg[q] - x[q]) / dt : 0;
    }
  if ((s = tide_csr_mul(K, vp, Kvp))) return s;
  double ck = f->tau_k + dt, cm = 1 / dt + f->tau_m;
  /* (M/dt + D + dt K) v = M vs/dt - K xs + b + f with vs = v + dt g and
   * xs = x (Eq. 3.55) */
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      if (fixed_node(f, i))
        rhs[q] = vp[q];
      else
        rhs[q] = mass[i] * (v[q] + dt * f->gravity[k]) / dt - Kx[q] + b[q] + fe[q] - ck * Kvp[q];
    }
  /* system triplets: element blocks ck K_e (fixed rows/columns zeroed), then
   * the diagonal cm m_i (1 for fixed nodes) */
  double ta = tide_wtime();
  const int *I = w->I, *J = w->J;
  int64_t nel = w->nel;
#pragma omp parallel for schedule(static) if (nel > TIDE_SOLID_PAR_MIN)
  for (int64_t t = 0; t < nel; t++) {
    int fi = fixed_node(f, I[t] / d), fj = fixed_node(f, J[t] / d);
    w->V[t] = fi || fj ? 0 : ck * w->KV[t];
  }
  fill_diag_indices(w);
  for (int64_t q = 0; q < N; q++)
    w->V[nel + q] = fixed_node(f, q / d) ? 1 : cm * mass[q / d];
  memset(w->V + nel + N, 0, (size_t)w->nfr * sizeof(double)); /* no friction blocks */
  if ((s = system_matrix(w))) return s;
  st->assemble_seconds = tide_wtime() - ta;
  memcpy(vn, v, (size_t)N * sizeof(double));
  if (o->solver == TIDE_SOLID_PCG)
    s = krylov_solve(w, o, rhs, vn, st);
  else
    s = direct_solve(w, o->solver, o->reuse, rhs, vn, st);
  /* one message naming what the user can change (the factorization's own
   * advice names solvers step_linear does not offer) */
  if (s == TIDE_ENOTSPD || s == TIDE_ESINGULAR)
    return tide_fail(s, "linear step: the system M/dt + D + dt K is not positive definite (check "
                        "the material: density > 0, E > 0, nu < 0.5)");
  if (s) return s;
  if (o->solver != TIDE_SOLID_PCG) st->converged = 1;
    /* x = x* + dt v (Alg. 2 line 15) */
#pragma omp parallel for schedule(static) if (N > TIDE_SOLID_PAR_MIN)
  for (int64_t q = 0; q < N; q++) {
    v[q] = vn[q];
    x[q] += dt * vn[q];
  }
  s = finish_step(m, o, st, 1);
  st->total_seconds = tide_wtime() - t0;
  return s;
}

/* ------------------------------------------------------------- Newton */

/* gradient (may be NULL) and Hessian CSR in one element pass */
static int ip_system(tide_tetmesh *m, const tide_ip *ip, const double *x, int flags, double *g,
                     const tide_csr **H) {
  if (!m->fem) return tide_fail(TIDE_EINVAL, "the mesh has no material");
  int s;
  solid_work *w = get_work(m, &s);
  if (!w) return s;
  tide_tripletbuf tb;
  kv_to_tb(w, w->V, &tb);
  if ((s = tide_fem_ip_gradient_hessian(m, ip, x, flags, g, &tb))) return s;
  memset(w->V + w->nnz - w->nfr, 0, (size_t)w->nfr * sizeof(double)); /* no friction blocks */
  if ((s = system_matrix(w))) return s;
  *H = w->A;
  return TIDE_OK;
}

int tide_solid_ip_matrix(tide_tetmesh *m, const tide_ip *ip, const double *x, int flags,
                         const tide_csr **H) {
  return ip_system(m, ip, x, flags, NULL, H);
}

int tide_solid_ip_system(tide_tetmesh *m, const tide_ip *ip, const double *x, int flags, double *g,
                         const tide_csr **H) {
  return ip_system(m, ip, x, flags, g, H);
}

/* Contacts inside the Newton minimization.  Post-step projection alone
 * (the free minimizer pushed back out of the colliders) lets the solve move
 * contact nodes freely into the body: elements pressed against a collider are
 * flattened by the projection every step, and from a flat puddle a layer of
 * them stays tangled.  Instead the step minimizes the incremental potential
 * subject to phi(x_i) >= 0 for every free node, by projected Newton
 * (Bertsekas 1982) with the contact normals as the bound directions:
 * iterates are projected onto the colliders; a node touching a collider
 * (phi <= eps) whose gradient pushes into it (g_i . N_i > 0) is active, and
 * the Newton step solves (P H_e P + M) p = -P g with P_i = I - N_i N_i^T at
 * active nodes (P H P keeps the pattern of H and is PSD; M commutes with P,
 * so p stays tangential at active nodes); the line search runs along the
 * projected arc.  The multiplier g_i . N_i of an active node is its contact
 * impulse times dt, which drives Irving's friction Gamma afterwards. */

static int64_t contacts_project(const tide_tetmesh *m, const tide_step_opts *o, double *x) {
  return tide_contacts_project(m, NULL, o->colliders, o->ncolliders, x);
}

static int64_t contacts_active(const tide_tetmesh *m, const tide_step_opts *o, const double *x,
                               const double *g, double eps, solid_work *w) {
  return tide_contacts_active(m, NULL, o->colliders, o->ncolliders, x, g, eps, 0, w->cflag, w->cQ);
}

static void contacts_tangential(const tide_tetmesh *m, const solid_work *w, double *y) {
  tide_contacts_tangential(m, w->cflag, w->cQ, y);
}

/* the element blocks and the friction blocks (one d x d block per node,
 * after the diagonal) of the triplet values V: B_ab <- P_a B_ab P_b */
static void contacts_constrain_blocks(const tide_tetmesh *m, const solid_work *w, double *V) {
  tide_contacts_constrain_elements(m, w->cflag, w->cQ, V);
  tide_contacts_constrain_nodes(m, w->cflag, w->cQ, V + w->nnz - w->nfr);
}

/* after the minimization (v = (x - xn)/dt): every free node on or in a
 * collider is put on its surface, and the collider pressing hardest on it
 * (largest multiplier g_i . N, the contact impulse times dt) or the deepest
 * gives Irving's Gamma, the friction driven by the impulse g_i . N / (m_i dt)
 * plus any position correction / dt, with the node's tangential position
 * following the corrected velocity; contact = simple is Zarifi's inelastic,
 * frictionless wall condition */
static int64_t contacts_finish(tide_tetmesh *m, const tide_step_opts *o, const double *g,
                               double eps, int fric_solved, double *x, double *v) {
  const tide_fem *f = m->fem;
  const double *mass = TIDE_F64P(f->mass);
  int d = m->dim, simple = o->contact == TIDE_CONTACT_SIMPLE;
  double dt = o->dt;
  int64_t cnt = 0;
#pragma omp parallel for schedule(static) reduction(+ : cnt) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    if (fixed_node(f, i)) continue;
    double xi[3] = {0, 0, 0}, push = 0, best = 0, N[3] = {0, 0, 0};
    int b = -1;
    for (int k = 0; k < d; k++)
      xi[k] = x[i * d + k];
    for (int c = 0; c < o->ncolliders; c++) {
      const tide_collider *cc = o->colliders[c];
      double Nc[3] = {0, 0, 0}, gn = 0;
      double phi = tide_collider_phi(cc, xi, Nc) - cc->thickness;
      if (phi > eps) continue;
      for (int k = 0; k < d; k++)
        gn += g[i * d + k] * Nc[k];
      double key = (gn > 0 ? gn / mass[i] : 0) - (phi < 0 ? phi * dt : 0);
      if (b < 0 || key > best) {
        b = c, best = key, push = phi < 0 ? -phi : 0;
        memcpy(N, Nc, sizeof N);
      }
    }
    if (b < 0 || !(best > 0)) continue;
    cnt++;
    for (int k = 0; k < d; k++)
      x[i * d + k] += push * N[k];
    double *vi = v + i * d, vB[3] = {0, 0, 0};
    tide_collider_velocity(o->colliders[b], x + i * d, vB);
    if (simple) {
      double vn = 0, vbn = 0;
      for (int k = 0; k < d; k++)
        vn += vi[k] * N[k], vbn += vB[k] * N[k];
      for (int k = 0; k < d; k++)
        vi[k] += (vbn - vn) * N[k];
    } else {
      double gn = 0;
      for (int k = 0; k < d; k++)
        gn += g[i * d + k] * N[k];
      double dvn = push / dt + (gn > 0 ? gn / (mass[i] * dt) : 0), v0[3] = {0, 0, 0}, dn = 0;
      memcpy(v0, vi, sizeof(double) * (size_t)d);
      /* friction already in the solve (IPC): Gamma with mu = 0 keeps the
       * normal velocity condition only */
      tide_friction_gamma(d, vi, vB, N, fric_solved ? 0 : o->colliders[b]->mu, dvn, vi);
      /* the position follows the friction-corrected tangential velocity
       * (Irving 3.2: the colliding node moves on with Gamma(v)), so that a
       * sticking node does not creep */
      for (int k = 0; k < d; k++)
        dn += (vi[k] - v0[k]) * N[k];
      for (int k = 0; k < d; k++)
        x[i * d + k] += dt * (vi[k] - v0[k] - dn * N[k]);
      double xc[3] = {0, 0, 0}, phi2, N2[3], vB2[3];
      for (int k = 0; k < d; k++)
        xc[k] = x[i * d + k];
      if (tide_colliders_query(o->colliders, o->ncolliders, xc, &phi2, N2, vB2) >= 0 && phi2 < 0)
        for (int k = 0; k < d; k++)
          x[i * d + k] -= phi2 * N2[k];
    }
  }
  return cnt;
}

/* ------------------------------------ lagged friction (IPC, friction.h) */

/* Friction at collider contacts enters the minimization as IPC's smoothed
 * lagged potential (Li et al. 2020, sec. 5): for every free node i pressed
 * against a collider at the end of the last solve, with that normal force
 * lambda_i (the multiplier g_i . N / dt^2 of its contact constraint), the
 * collider's normal N_i and its displacement over the step dB_i = vB dt,
 * the incremental potential gains dt^2 mu lambda_i f0(|P_i^T (x_i - xn_i -
 * dB_i)|).  The normal forces of the previous step are the first lag; when
 * the solve changes them by more than friction_tol (relative to the largest
 * mu lambda), the step is solved again from its result with the new ones,
 * up to friction_iterations solves. */

/* lag the stored normal forces / colliders (fem contact_force,
 * contact_collider: 1-based, 0 none) onto the free nodes: normals at xref, displacements of the
 * collider over the step at xn; returns the number of frictional contacts */
static int64_t friction_lag(const tide_tetmesh *m, const tide_step_opts *o, solid_work *w,
                            const double *xref, const double *xn) {
  const tide_fem *f = m->fem;
  const double *lam = TIDE_F64P(f->contact_force);
  const int32_t *body = TIDE_I32P(f->contact_collider);
  int d = m->dim;
  int64_t cnt = 0;
#pragma omp parallel for schedule(static) reduction(+ : cnt) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    int b = body[i] - 1;
    w->fr_ml[i] = 0;
    if (b < 0 || b >= o->ncolliders || fixed_node(f, i) || !(lam[i] > 0)) continue;
    const tide_collider *c = o->colliders[b];
    if (!(c->mu > 0)) continue;
    double xr[3] = {0, 0, 0}, x0[3] = {0, 0, 0}, N[3] = {0, 0, 0}, vB[3] = {0, 0, 0};
    for (int k = 0; k < d; k++)
      xr[k] = xref[i * d + k], x0[k] = xn[i * d + k];
    tide_collider_phi(c, xr, N);
    tide_collider_velocity(c, x0, vB);
    for (int k = 0; k < d; k++) {
      w->fr_N[i * d + k] = N[k];
      w->fr_dB[i * d + k] = vB[k] * o->dt;
    }
    w->fr_ml[i] = c->mu * lam[i];
    cnt++;
  }
  return cnt;
}

/* node i's lagged contact and its displacement over the step */
static void friction_node(const tide_tetmesh *m, const solid_work *w, const double *x,
                          const double *xn, int64_t i, tide_friction_contact *c, double *du) {
  int d = m->dim;
  tide_friction_contact_set(c, 1, d, NULL, w->fr_N + i * d, 1, w->fr_ml[i]);
  for (int k = 0; k < d; k++)
    du[k] = x[i * d + k] - xn[i * d + k] - w->fr_dB[i * d + k];
}

/* the friction potential dt^2 sum_i D_i at x */
static double friction_energy(const tide_tetmesh *m, const solid_work *w, const double *x,
                              const double *xn, double dt, double eps_u) {
  double E = 0;
  for (int64_t i = 0; i < m->nv; i++) {
    if (!(w->fr_ml[i] > 0)) continue;
    tide_friction_contact c;
    double du[3], Ei;
    friction_node(m, w, x, xn, i, &c, du);
    tide_friction_eval(&c, eps_u, du, &Ei, NULL, NULL);
    E += Ei;
  }
  return dt * dt * E;
}

/* its gradient added to g, its Hessian blocks (d x d per node, zero where
 * there is no contact) written to Vf */
static void friction_derivatives(const tide_tetmesh *m, const solid_work *w, const double *x,
                                 const double *xn, double dt, double eps_u, double *g, double *Vf) {
  int d = m->dim, dd = d * d;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    double *H = Vf + i * dd;
    if (!(w->fr_ml[i] > 0)) {
      for (int k = 0; k < dd; k++)
        H[k] = 0;
      continue;
    }
    tide_friction_contact c;
    double du[3], gi[3];
    friction_node(m, w, x, xn, i, &c, du);
    tide_friction_eval(&c, eps_u, du, NULL, gi, H);
    for (int k = 0; k < d; k++)
      g[i * d + k] += dt * dt * gi[k];
    for (int k = 0; k < dd; k++)
      H[k] *= dt * dt;
  }
}

/* the normal forces at the solution x with IP gradient g: per free node the
 * collider within eps pressing hardest (largest g_i . N > 0) and lambda_i =
 * g_i . N / dt^2 [N], stored as the next lag; returns the largest change of
 * mu lambda relative to the largest new mu lambda (0 when there is none) */
static double friction_update(const tide_tetmesh *m, const tide_step_opts *o, solid_work *w,
                              const double *x, const double *g, double eps) {
  const tide_fem *f = m->fem;
  double *lamv = TIDE_F64P(f->contact_force);
  int32_t *body = TIDE_I32P(f->contact_collider);
  int d = m->dim;
  double dt2 = o->dt * o->dt, change = 0, scale = 0;
  for (int64_t i = 0; i < m->nv; i++) {
    double xi[3] = {0, 0, 0}, best = 0, mu = 0;
    int b = -1;
    if (!fixed_node(f, i)) {
      for (int k = 0; k < d; k++)
        xi[k] = x[i * d + k];
      for (int c = 0; c < o->ncolliders; c++) {
        const tide_collider *cc = o->colliders[c];
        double N[3] = {0, 0, 0}, gn = 0;
        if (tide_collider_phi(cc, xi, N) - cc->thickness > eps) continue;
        for (int k = 0; k < d; k++)
          gn += g[i * d + k] * N[k];
        if (gn > best) best = gn, b = c, mu = cc->mu;
      }
    }
    double lam = b >= 0 ? best / dt2 : 0, ml = mu * lam;
    change = fmax(change, fabs(ml - w->fr_ml[i]));
    scale = fmax(scale, ml);
    lamv[i] = lam;
    body[i] = b + 1;
  }
  return scale > 0 ? change / scale : change > 0 ? 1 : 0;
}

/* Prescribed motion into contact (IPC, Li et al. 2020: the augmented
 * Lagrangian for moving Dirichlet conditions).  A pinned node normally jumps
 * to its target before the solve; when that jump would bring primitives
 * into contact or through each other, the pinned nodes that move start
 * where they are and become unknowns of the minimization, pulled to their
 * targets xhat_k by
 *   E_A(x) = sum_k kappa_A/2 m_k |x_k - xhat_k|^2 - sqrt(m_k) lambda_k . (x_k - xhat_k)
 * (on top of the incremental potential's own 1/2 m_k |x_k - xhat_k|^2, the
 * pinned node's xhat being its target), so the CCD line search keeps every
 * pair apart while they move.  Rounds (al_minimize): minimize; if the nodes
 * are within 1e-3 of their move from their targets, the remaining jump is
 * taken when CCD allows it and the nodes are pinned again for a last
 * solve; else the multipliers take the constraint force,
 * lambda_k -= kappa_A sqrt(m_k) (x_k - xhat_k), when the error at least
 * halved, and kappa_A doubles when it did not.  A target contact makes
 * unreachable (a plate pushed into a fixed collider through a cloth) ends
 * the step not converged, the nodes short of their targets
 * (st->prescribed_error). */
#define AL_KAPPA0 1e3
#define AL_KAPPA_MAX 1e12
#define AL_ROUNDS 24

static double al_energy(const tide_tetmesh *m, const solid_work *w, const double *xhat,
                        const double *x) {
  const double *mass = TIDE_F64P(m->fem->mass);
  int d = m->dim;
  double E = 0;
  for (int64_t i = 0; i < m->nv; i++) {
    if (!w->al_mask[i]) continue;
    double sm = sqrt(mass[i]);
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      double r = x[q] - xhat[q];
      E += 0.5 * w->al_kappa * mass[i] * r * r - sm * w->al_lambda[q] * r;
    }
  }
  return E;
}

/* its gradient into g and its Hessian kappa_A m_k I into the diagonal
 * triplets Vd (may be NULL) */
static void al_derivatives(const tide_tetmesh *m, const solid_work *w, const double *xhat,
                           const double *x, double *g, double *Vd) {
  const double *mass = TIDE_F64P(m->fem->mass);
  int d = m->dim;
  for (int64_t i = 0; i < m->nv; i++) {
    if (!w->al_mask[i]) continue;
    double sm = sqrt(mass[i]);
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      g[q] += w->al_kappa * mass[i] * (x[q] - xhat[q]) - sm * w->al_lambda[q];
      if (Vd) Vd[q] += w->al_kappa * mass[i];
    }
  }
}

/* the largest distance of a prescribed node from its target [m] */
static double al_error(const tide_tetmesh *m, const solid_work *w, const double *xhat,
                       const double *x) {
  int d = m->dim;
  double e = 0;
  for (int64_t i = 0; i < m->nv; i++) {
    if (!w->al_mask[i]) continue;
    double r2 = 0;
    for (int k = 0; k < d; k++)
      r2 += (x[i * d + k] - xhat[i * d + k]) * (x[i * d + k] - xhat[i * d + k]);
    e = fmax(e, sqrt(r2));
  }
  return e;
}

/* the squared move of node i from xn to x */
static double node_move2(const double *xn, const double *x, int64_t i, int d) {
  double r2 = 0;
  for (int k = 0; k < d; k++)
    r2 += (x[i * d + k] - xn[i * d + k]) * (x[i * d + k] - xn[i * d + k]);
  return r2;
}

/* the pinned nodes that move become unknowns starting at xn (x holds
 * their targets); *move: their largest move [m] */
static int al_begin(tide_tetmesh *m, solid_work *w, const double *xn, double *x, double *move) {
  int64_t N = w->N, nvb = N > 0 ? N : 1;
  if (!w->al_mask) {
    w->al_mask = tide_calloc((size_t)nvb);
    w->al_lambda = tide_calloc((size_t)nvb * sizeof(double));
    if (!w->al_mask || !w->al_lambda) return TIDE_ENOMEM;
    w->bytes += (size_t)nvb * (1 + sizeof(double));
    m->fem->work_bytes = w->bytes;
  }
  uint8_t *pin = TIDE_U8P(m->fem->pinned);
  const double *mass = TIDE_F64P(m->fem->mass);
  int d = m->dim;
  *move = 0;
  for (int64_t i = 0; i < m->nv; i++) { /* checked before any node changes */
    double r2 = pin[i] ? node_move2(xn, x, i, d) : 0;
    if (!(r2 > 0)) continue;
    if (!(mass[i] > 0)) {
      memset(w->al_mask, 0, (size_t)m->nv); /* nothing begun */
      return tide_fail(TIDE_EINVAL,
                       "Newton step: the pinned nodes' move to their targets brings primitives "
                       "into contact, and node %lld has no mass to move it inside the "
                       "optimization: give it a density, or move it by less than its distance "
                       "to the others per step",
                       (long long)i + 1);
    }
    *move = fmax(*move, sqrt(r2));
    w->al_mask[i] = 1;
  }
  for (int64_t i = 0; i < m->nv; i++) {
    if (!w->al_mask[i]) continue;
    pin[i] = 0;
    for (int k = 0; k < d; k++)
      x[i * d + k] = xn[i * d + k], w->al_lambda[i * d + k] = 0;
  }
  w->al_kappa = AL_KAPPA0;
  w->al_on = 1;
  return TIDE_OK;
}

/* the prescribed nodes pinned again (every exit of a step that began it) */
static void al_end(tide_tetmesh *m, solid_work *w) {
  uint8_t *pin = TIDE_U8P(m->fem->pinned);
  for (int64_t i = 0; i < m->nv; i++)
    if (w->al_mask[i]) pin[i] = 1, w->al_mask[i] = 0;
  w->al_on = 0;
}

/* the incremental potential with the friction term */
static int newton_energy(tide_tetmesh *m, const solid_work *w, const tide_ip *ip, const double *x,
                         double eps_u, double *E) {
  int s = tide_fem_ip_value(m, ip, x, E);
  if (!s && eps_u > 0) *E += friction_energy(m, w, x, ip->xn, ip->dt, eps_u);
  if (!s && w->ipc) *E += tide_ipc_energy(w->ipc, x);
  if (!s && w->sdf_on) *E += tide_ipc_sdf_energy(&w->sdf, x);
  if (!s && w->al_on) *E += al_energy(m, w, ip->xhat, x);
  return s;
}

/* the barrier colliders' derivatives (g, Vn as tide_ipc_sdf_derivatives);
 * a node whose distance underflowed fails with a message naming it */
static int sdf_derivatives(solid_work *w, const double *x, double *g, double *Vn) {
  int64_t i = tide_ipc_sdf_derivatives(&w->sdf, x, g, Vn);
  if (i < 0) return TIDE_OK;
  int64_t node = -1;
  double d = tide_ipc_sdf_min_distance(&w->sdf, x, &node, NULL);
  return tide_fail(TIDE_ENONFINITE,
                   "IPC barrier: node %lld's distance to a barrier collider underflowed (the "
                   "smallest is %g m, node %lld; dhat %g m, kappa %g): the barrier's derivatives "
                   "are not finite; kappa is too small for the load (use kappa_adapt = true or a "
                   "larger kappa)",
                   (long long)i + 1, d, (long long)node + 1, w->sdf.dhat, w->sdf.kappa);
}

/* ... and its gradient */
static int newton_gradient(tide_tetmesh *m, solid_work *w, const tide_ip *ip, const double *x,
                           double eps_u, double *g) {
  int s = tide_fem_ip_gradient(m, ip, x, g);
  if (!s && eps_u > 0)
    friction_derivatives(m, w, x, ip->xn, ip->dt, eps_u, g, w->V + w->nnz - w->nfr);
  if (!s && w->ipc) tide_ipc_gradient(w->ipc, x, g);
  if (!s && w->sdf_on) s = sdf_derivatives(w, x, g, NULL);
  if (!s && w->al_on) al_derivatives(m, w, ip->xhat, x, g, NULL);
  return s;
}

/* the broad phase and the CCD step bounds of the mesh's contact, timed for
 * the step's stats (broad_seconds, ccd_seconds) */
static int ipc_update(solid_work *w, const double *x, double motion) {
  double t = tide_wtime();
  int s = tide_ipc_update(w->ipc, x, motion);
  w->broad_seconds += tide_wtime() - t;
  return s;
}

static double ipc_bound(solid_work *w, const double *x, const double *p, double keep) {
  double t = tide_wtime();
  double a =
      keep > 0 ? tide_ipc_step_bound_keep(w->ipc, x, p, keep) : tide_ipc_step_bound(w->ipc, x, p);
  w->ccd_seconds += tide_wtime() - t;
  return a;
}

/* the line-search point xt = x + alpha p (projected onto the colliders), its
 * incremental potential E and the linear model's decrease g . (xt - x) */
/* with solid contact: shorten the move x_from -> x_to (collider
 * projections, friction corrections, the final small Newton step, which the
 * line search's CCD bound did not see) to the CCD bound of that move */
static int ipc_limit(const tide_tetmesh *m, solid_work *w, const double *x_from, double *x_to,
                     double *tmp) {
  int64_t N = m->nv * m->dim;
  double mv = 0;
  for (int64_t q = 0; q < N; q++) {
    tmp[q] = x_to[q] - x_from[q];
    mv = fmax(mv, fabs(tmp[q]));
  }
  if (!(mv > 0)) return TIDE_OK;
  int s = ipc_update(w, x_from, mv);
  if (s) return s;
  double t = ipc_bound(w, x_from, tmp, 0);
  if (t < 1)
    for (int64_t q = 0; q < N; q++)
      x_to[q] = x_from[q] + t * tmp[q];
  return TIDE_OK;
}

static int newton_trial(tide_tetmesh *m, const tide_step_opts *o, solid_work *w, const tide_ip *ip,
                        double eps_u, const double *x, const double *p, const double *g,
                        double alpha, double gp, double *xt, double *E, double *dec) {
  int64_t N = m->nv * m->dim;
  for (int64_t q = 0; q < N; q++)
    xt[q] = x[q] + alpha * p[q];
  *dec = alpha * gp;
  if (o->ncolliders && !w->sdf_on && contacts_project(m, o, xt)) {
    if (w->ipc) {
      int s = ipc_limit(m, w, x, xt, w->vec[7]);
      if (s) return s;
    }
    double gd = 0;
    for (int64_t q = 0; q < N; q++)
      gd += g[q] * (xt[q] - x[q]);
    *dec = fmin(gd, 0);
  }
  return newton_energy(m, w, ip, xt, eps_u, E);
}

/* the failure of a Newton system's factorization as one message naming
 * what the user can change (the factorization's own advice is about
 * solvers step_newton does not offer) */
static int newton_factor_failed(int s, const tide_step_opts *o, const solid_work *w,
                                const double *x, int it) {
  if (s != TIDE_ENOTSPD && s != TIDE_ESINGULAR) return s;
  if (w->ipc) {
    /* a contact pair closer than the adaptive threshold eps (1e-9 of the
     * bounding box) under a fixed kappa: its barrier Hessian ~ kappa dhat^2 /
     * d^4 swamps the mass and elasticity, and the factorization fails in
     * rounding (the gap had collapsed: kappa too small for the load) */
    int tc = 0, kind = 0;
    int32_t nd[4] = {0, 0, 0, 0};
    double d = tide_ipc_min_distance(w->ipc, x, &tc, &kind, nd);
    if (d < w->kappa_eps) {
      char buf[128];
      return tide_fail(s,
                       "Newton iteration %d: the system cannot be factored: the contact "
                       "distance of %s is %g m (dhat %g m, kappa %g), below 1e-9 of the "
                       "bounding box, and its barrier stiffness swamps the rest; kappa is "
                       "too small for the load (use kappa_adapt = true or a larger kappa)",
                       it + 1, tide_ipc_pair_text(kind, nd, buf), d, w->ipc_dhat, w->kappa);
    }
  }
  if (o->project)
    return tide_fail(s,
                     "Newton iteration %d: the system (projected element Hessians + mass) is "
                     "singular; every free node needs a positive mass (density > 0)",
                     it + 1);
  return tide_fail(s,
                   "Newton iteration %d: the Hessian is not positive definite (the factorization "
                   "met a non-positive pivot); set project = true to project the element "
                   "Hessians",
                   it + 1);
}

/* the Newton system with the contact blocks: the fixed-pattern triplets of
 * the elements, diagonal and friction plus the active pairs' blocks, whose
 * pattern changes with the contacts: a fresh CSR and factorization */
static int ipc_solve(tide_tetmesh *m, solid_work *w, const double *x, int constrained,
                     const double *b, double *p, tide_step_stats *st) {
  int64_t nc;
  int *I, *J;
  double *V;
  double t0 = tide_wtime();
  int s = tide_ipc_hessian(w->ipc, x, TIDE_U8P(m->fem->pinned), &nc, &I, &J, &V);
  if (s) return s;
  /* the nodes held on a collider's surface move in its tangent plane: the
   * pair blocks too are B_ab <- P_a B_ab P_b, as the elements' (else the
   * system is not the constrained problem's Newton system, its step meets
   * the barrier's normal stiffness it cannot use, and Newton crawls at a
   * linear rate with 0.25 steps) */
  if (constrained && nc)
    tide_contacts_constrain_triplet_blocks(m, w->cflag, w->cQ, 4, nc / 144, I, V);
  if (!nc) {
    tide_ipc_triplets_free(nc, I, J, V);
    return direct_solve(w, TIDE_SOLID_AUTO, 1, b, p, st);
  }
  int64_t n = w->nnz + nc;
  size_t ib = (size_t)n * sizeof(int), vb = (size_t)n * sizeof(double);
  int *I2 = tide_alloc(ib), *J2 = tide_alloc(ib);
  double *V2 = tide_alloc(vb);
  tide_csr *A = NULL;
  tide_factor *F = NULL;
  if (!I2 || !J2 || !V2) {
    s = TIDE_ENOMEM;
    goto done;
  }
  memcpy(I2, w->I, (size_t)w->nnz * sizeof(int));
  memcpy(J2, w->J, (size_t)w->nnz * sizeof(int));
  memcpy(V2, w->V, (size_t)w->nnz * sizeof(double));
  memcpy(I2 + w->nnz, I, (size_t)nc * sizeof(int));
  memcpy(J2 + w->nnz, J, (size_t)nc * sizeof(int));
  memcpy(V2 + w->nnz, V, (size_t)nc * sizeof(double));
  if ((s = tide_csr_from_triplets((int)w->N, (int)w->N, n, I2, J2, V2, TIDE_CSR_UPPER, &A)))
    goto done;
  st->assemble_seconds += tide_wtime() - t0;
  double t1 = tide_wtime();
  s = tide_factor_new(A, w->N < TIDE_SOLID_SUPERNODAL_MIN ? TIDE_FACTOR_LDLT : TIDE_FACTOR_CHOLESKY,
                      &F);
  st->analyses++;
  st->factor_seconds += tide_wtime() - t1;
  if (!s) {
    double t2 = tide_wtime();
    s = tide_factor_solve(F, b, p);
    st->solve_seconds += tide_wtime() - t2;
  }
done:
  tide_factor_free(F);
  tide_csr_free(A);
  tide_free(I2, ib);
  tide_free(J2, ib);
  tide_free(V2, vb);
  tide_ipc_triplets_free(nc, I, J, V);
  return s;
}

/* Projected Newton on the incremental potential (plus friction when
 * eps_u > 0) from x, subject to the colliders; st accumulates iterations,
 * line search, timings; *converged, st->residual report the outcome. */
static int newton_minimize(tide_tetmesh *m, const tide_step_opts *o, solid_work *w,
                           const tide_ip *ip, double eps_u, double *x, int maxit, int *converged,
                           tide_step_stats *st) {
  tide_fem *f = m->fem;
  int d = m->dim, nc = o->ncolliders, s;
  int64_t N = w->N;
  double dt = o->dt, *g = w->vec[2], *p = w->vec[3], *xt = w->vec[4], *ng = w->vec[5];
  double tol = o->tol > 0 ? o->tol : 1e-6, ceps = tol * dt;
  int flags = TIDE_FEM_PINNED | (o->project ? TIDE_FEM_PROJECT : 0);
  double *Vf = w->V + w->nnz - w->nfr;
  *converged = 0;
  double E0;
  /* the candidates at x itself: E0 must hold every pair active there (the
   * last update may have been at other positions, e.g. the friction lag's
   * at the start of the step) */
  if (w->ipc && (s = ipc_update(w, x, 0))) return s;
  if ((s = newton_energy(m, w, ip, x, eps_u, &E0))) return s;
  tide_tripletbuf tb;
  kv_to_tb(w, w->V, &tb);
  /* the distance of the last iterate looked at, of this step or of the
   * steps before (state of the run: fem->ipc_dmin) */
  double dprev = f->ipc_dmin > 0 ? f->ipc_dmin : HUGE_VAL;
  for (int it = 0; it < maxit; it++) {
    if (w->ipc && (s = ipc_update(w, x, 0))) return s; /* broad_seconds, not assembly */
    double ta = tide_wtime();
    if (w->kappa_adapt && (w->ipc || w->sdf_on)) {
      /* IPC's adaptive kappa: a contact distance below eps that keeps
       * shrinking doubles kappa (the potential changes: E0 again).
       * "Shrinking" compares with the previous iterate across time steps
       * too: a resting contact converges in one iteration per step while
       * its gap decays step after step, which a per-step history never
       * sees (the gap then fell to 1e-21 m and below under a fixed kappa) */
      double dmin = HUGE_VAL;
      if (w->ipc) {
        int tc, kind;
        int32_t nd[4];
        dmin = tide_ipc_min_distance(w->ipc, x, &tc, &kind, nd);
      }
      if (w->sdf_on) dmin = fmin(dmin, tide_ipc_sdf_min_distance(&w->sdf, x, NULL, NULL));
      if (dprev < w->kappa_eps && dmin < w->kappa_eps && dmin < dprev && w->kappa < w->kappa_max) {
        w->kappa = fmin(2 * w->kappa, w->kappa_max);
        m->fem->ipc_kappa = w->kappa;
        if (w->ipc) tide_ipc_set_kappa(w->ipc, w->kappa);
        w->sdf.kappa = w->kappa;
        st->kappa_updates++;
        if ((s = newton_energy(m, w, ip, x, eps_u, &E0))) return s;
      }
      dprev = dmin;
      f->ipc_dmin = isfinite(dmin) ? dmin : 0;
    }
    if ((s = tide_fem_ip_gradient_hessian(m, ip, x, flags, g, &tb))) return s;
    if (w->ipc) tide_ipc_gradient(w->ipc, x, g);
    if (eps_u > 0)
      friction_derivatives(m, w, x, ip->xn, dt, eps_u, g, Vf);
    else
      memset(Vf, 0, (size_t)w->nfr * sizeof(double));
    if (w->sdf_on && (s = sdf_derivatives(w, x, g, Vf))) return s; /* per-node blocks */
    if (w->al_on) al_derivatives(m, w, ip->xhat, x, g, w->V + w->nel);
    for (int64_t q = 0; q < N; q++)
      if (fixed_node(f, q / d)) g[q] = 0;
    int64_t nact = nc && !w->sdf_on ? contacts_active(m, o, x, g, ceps, w) : 0;
    if (nact) contacts_constrain_blocks(m, w, w->V);
    if ((s = system_matrix(w))) return s;
    st->assemble_seconds += tide_wtime() - ta;
    for (int64_t q = 0; q < N; q++)
      ng[q] = -g[q];
    if (nact) contacts_tangential(m, w, ng);
    if ((s = w->ipc ? ipc_solve(m, w, x, nact > 0, ng, p, st)
                    : direct_solve(w, o->solver, o->reuse, ng, p, st)))
      return newton_factor_failed(s, o, w, x, it);
    for (int64_t q = 0; q < N; q++)
      if (fixed_node(f, q / d)) p[q] = 0;
    if (nact) contacts_tangential(m, w, p);
    st->iterations++;
    double pinf = 0;
    for (int64_t q = 0; q < N; q++)
      pinf = fmax(pinf, fabs(p[q]));
    double gp = tide_dot(N, g, p);
    st->residual = pinf / dt;
    if (pinf / dt < tol) {
      if (w->ipc) memcpy(xt, x, (size_t)N * sizeof(double));
      double t = w->sdf_on ? tide_ipc_sdf_step_bound(&w->sdf, x, p, 1) : 1;
      for (int64_t q = 0; q < N; q++)
        x[q] += t * p[q];
      if (nc && !w->sdf_on) contacts_project(m, o, x);
      if (w->ipc && (s = ipc_limit(m, w, xt, x, w->vec[7]))) return s;
      *converged = 1;
      return TIDE_OK;
    }
    /* no descent direction left (rounding, or an indefinite Hessian
     * without projection): stop, not converged */
    if (!(gp < 0)) return TIDE_OK;
    /* backtracking (Armijo) line search on the incremental potential, along
     * the arc projected onto the colliders; with solid contact it starts at
     * the CCD bound (every pair stays apart along the step) */
    double alpha = 1, E1 = E0;
    if (w->ipc) {
      if ((s = ipc_update(w, x, pinf))) return s;
      alpha = ipc_bound(w, x, p, 0);
    }
    if (w->sdf_on) alpha = tide_ipc_sdf_step_bound(&w->sdf, x, p, alpha);
    st->ccd_limited += alpha < 1;
    int halvings = 0;
    for (; halvings < 30; halvings++) {
      double dec;
      if ((s = newton_trial(m, o, w, ip, eps_u, x, p, g, alpha, gp, xt, &E1, &dec))) return s;
      if (isfinite(E1) && E1 <= E0 + 1e-4 * dec) break;
      alpha *= 0.5;
    }
    /* a full step that lowered the potential as much as its linear model
     * predicts (twice the quadratic model's decrease) met much less
     * curvature than the projected Hessian holds: where element Hessians
     * were clamped to PSD (compressed, flat, inverted elements) but the
     * inertia still makes the whole system convex.  Extend it (doubling)
     * while the potential keeps falling, so that those modes do not crawl
     * at a linear rate. */
    if (halvings == 0 && !w->ipc && !w->sdf_on && E0 - E1 > -0.75 * gp) {
      double *xe = w->vec[6];
      for (int k = 0; k < 6; k++) {
        double E2, dec;
        if ((s = newton_trial(m, o, w, ip, eps_u, x, p, g, 2 * alpha, gp, xe, &E2, &dec))) return s;
        if (!(isfinite(E2) && E2 < E1 && E2 <= E0 + 1e-4 * dec)) break;
        alpha *= 2;
        E1 = E2;
        memcpy(xt, xe, (size_t)N * sizeof(double));
      }
    }
    st->line_search += halvings;
    /* no decrease found at any step length: near the minimum the decrease
     * a step predicts (here down to 1e-14 J on a potential of 1e-6 J, the
     * terms' rounding 1e-17..1e-15 J) drowns in the potential's rounding;
     * Armijo cannot tell, the gradient can.  Take the full step if it
     * lowers the gradient's norm (Newton then goes on to the tolerance),
     * else stop, not converged.  Without contact only (the barrier's steps
     * stay under the energy's control). */
    if (halvings == 30 && !w->ipc && !w->sdf_on && !nc) {
      double E2, dec, g0 = 0, g1 = 0;
      if ((s = newton_trial(m, o, w, ip, eps_u, x, p, g, 1, gp, xt, &E2, &dec))) return s;
      if ((s = newton_gradient(m, w, ip, xt, eps_u, ng))) return s;
      for (int64_t q = 0; q < N; q++)
        if (!fixed_node(f, q / d)) g0 += g[q] * g[q], g1 += ng[q] * ng[q];
      if (isfinite(E2) && g1 < g0) halvings = 0, E1 = E2;
    }
    if (halvings == 30) return TIDE_OK; /* no decrease found: not converged */
    memcpy(x, xt, (size_t)N * sizeof(double));
    E0 = E1;
    if (tide_interrupted()) return tide_fail(TIDE_EINTR, "Newton step interrupted");
  }
  return TIDE_OK; /* iteration limit: not converged */
}

/* the normal forces of the barrier colliders at x (contact = "barrier"),
 * stored as the next lag like friction_update; returns the relative
 * change of mu lambda, and the number of nodes in contact in *cnt */
static double friction_update_barrier(const tide_tetmesh *m, const tide_step_opts *o, solid_work *w,
                                      const double *x, int64_t *cnt) {
  const tide_fem *f = m->fem;
  double *lamv = TIDE_F64P(f->contact_force);
  int32_t *body = TIDE_I32P(f->contact_collider);
  *cnt = tide_ipc_sdf_forces(&w->sdf, x, o->dt, lamv, body);
  double change = 0, scale = 0;
  for (int64_t i = 0; i < m->nv; i++) {
    double ml = body[i] > 0 ? o->colliders[body[i] - 1]->mu * lamv[i] : 0;
    change = fmax(change, fabs(ml - w->fr_ml[i]));
    scale = fmax(scale, ml);
  }
  return scale > 0 ? change / scale : change > 0 ? 1 : 0;
}

/* contact = "barrier": a collider advanced into a node since the last step
 * (its placement is the one for the end of this step) would start the
 * solve inside it; such a node starts carried with the body, x_n + vB dt
 * (its distance to a translating collider is then the one at the start).
 * The carry must not pass primitives through each other (cut to the CCD
 * bound); a node still not outside is an error naming it. */
static int barrier_start(tide_tetmesh *m, const tide_step_opts *o, solid_work *w, const double *xn,
                         double *x) {
  int d = m->dim, moved = 0;
  double *xb = w->vec[6];
  memcpy(xb, x, (size_t)w->N * sizeof(double));
  for (int64_t i = 0; i < m->nv; i++) {
    if (fixed_node(m->fem, i)) continue;
    double xi[3] = {0, 0, 0};
    for (int k = 0; k < d; k++)
      xi[k] = x[i * d + k];
    for (int c = 0; c < o->ncolliders; c++) {
      const tide_collider *cc = o->colliders[c];
      if (tide_collider_phi(cc, xi, NULL) - cc->thickness > 0) continue;
      double vB[3] = {0, 0, 0};
      tide_collider_velocity(cc, xn + i * d, vB);
      for (int k = 0; k < d; k++)
        x[i * d + k] = xi[k] = xn[i * d + k] + o->dt * vB[k];
      moved = 1;
    }
  }
  int s;
  if (moved && w->ipc && (s = ipc_limit(m, w, xb, x, w->vec[7]))) return s;
  int64_t node;
  int col;
  double dmin = tide_ipc_sdf_min_distance(&w->sdf, x, &node, &col);
  if (!(dmin > 0))
    return tide_fail(TIDE_EINVAL,
                     "Newton step: node %lld starts %s collider %d (distance %g m); barrier "
                     "contact needs every free node outside the colliders (a moving collider: "
                     "a smaller dt)",
                     (long long)node + 1, dmin < 0 ? "inside" : "on", col + 1, dmin);
  return TIDE_OK;
}

/* with solid contact: the pinned nodes jump to their targets (prescribed,
 * not searched); a jump that brings primitives into contact or through
 * each other would start the solve at an infinite (or, tunnelled, finite
 * but wrong) potential: the motion from xn to the start x is checked by
 * CCD keeping 1e-6 of every distance; *blocked says it is not allowed (the
 * step then moves those nodes inside the optimization, al_begin) */
static int pinned_motion(solid_work *w, const double *xn, const double *x, int *blocked) {
  double *p = w->vec[7], pinf = 0;
  *blocked = 0;
  for (int64_t q = 0; q < w->N; q++) {
    p[q] = x[q] - xn[q];
    pinf = fmax(pinf, fabs(p[q]));
  }
  if (!(pinf > 0)) return TIDE_OK;
  int s = ipc_update(w, xn, pinf);
  if (s) return s;
  *blocked = ipc_bound(w, xn, p, 1e-6) < 1;
  return TIDE_OK;
}

/* newton_minimize, in augmented-Lagrangian rounds while prescribed nodes
 * are unknowns (al_begin); move: their largest move over the step */
static int al_minimize(tide_tetmesh *m, const tide_step_opts *o, solid_work *w, const tide_ip *ip,
                       double eps_u, double *x, int maxit, double move, int *converged,
                       tide_step_stats *st) {
  if (!w->al_on) return newton_minimize(m, o, w, ip, eps_u, x, maxit, converged, st);
  int d = m->dim, s;
  double *xs = w->vec[9], prev = HUGE_VAL;
  for (int r = 0; r < AL_ROUNDS; r++) {
    if ((s = newton_minimize(m, o, w, ip, eps_u, x, maxit, converged, st))) return s;
    st->prescribed_rounds++;
    double err = al_error(m, w, ip->xhat, x);
    st->prescribed_error = err;
    if (!*converged) return TIDE_OK;
    if (err <= 1e-3 * move) { /* close: the rest of the way as a jump, if CCD allows it */
      memcpy(xs, x, (size_t)w->N * sizeof(double));
      for (int64_t i = 0; i < m->nv; i++)
        if (w->al_mask[i])
          for (int k = 0; k < d; k++)
            xs[i * d + k] = ip->xhat[i * d + k];
      int blocked;
      if ((s = pinned_motion(w, x, xs, &blocked))) return s;
      if (!blocked) {
        memcpy(x, xs, (size_t)w->N * sizeof(double));
        al_end(m, w);
        st->prescribed_error = 0;
        return newton_minimize(m, o, w, ip, eps_u, x, maxit, converged, st);
      }
    }
    if (err > 0.5 * prev) {
      if (w->al_kappa >= AL_KAPPA_MAX) break;
      w->al_kappa = fmin(2 * w->al_kappa, AL_KAPPA_MAX);
    } else {
      const double *mass = TIDE_F64P(m->fem->mass);
      for (int64_t i = 0; i < m->nv; i++)
        if (w->al_mask[i])
          for (int k = 0; k < d; k++) {
            int64_t q = i * d + k;
            w->al_lambda[q] -= w->al_kappa * sqrt(mass[i]) * (x[q] - ip->xhat[q]);
          }
    }
    prev = err;
  }
  *converged = 0; /* the targets were not reached: said by st->prescribed_error */
  return TIDE_OK;
}

/* with contact: the free nodes start where their velocity takes them,
 * x + dt v, as far as the CCD bounds allow (the prediction's gravity
 * term would push resting contacts into their barriers) */
static int inertial_guess(const tide_tetmesh *m, solid_work *w, const double *v, double dt,
                          double *x) {
  double *p = w->vec[7], pinf = 0;
  for (int64_t q = 0; q < w->N; q++) {
    p[q] = fixed_node(m->fem, q / m->dim) ? 0
           : w->al_on && w->al_mask[q / m->dim]
               ? w->vec[1][q] - x[q] /* prescribed: to the target */
               : dt * v[q];
    pinf = fmax(pinf, fabs(p[q]));
  }
  if (!(pinf > 0)) return TIDE_OK;
  double alpha = 1;
  if (w->ipc) {
    int s = ipc_update(w, x, pinf);
    if (s) return s;
    alpha = ipc_bound(w, x, p, 0);
  }
  if (w->sdf_on) alpha = tide_ipc_sdf_step_bound(&w->sdf, x, p, alpha);
  for (int64_t q = 0; q < w->N; q++)
    x[q] += alpha * p[q];
  return TIDE_OK;
}

/* the never-intersect invariant at x (opts.check): every contact pair
 * apart, no edge through a triangle, no free node on or inside a barrier
 * collider */
static int check_invariant(const tide_tetmesh *m, solid_work *w, const double *x) {
  int s;
  if (w->ipc) {
    /* every candidate pair apart (segments of rods have no triangle to
     * cross: touching is their intersection) */
    int touching = 0, kind = 0;
    int32_t nd[4];
    char buf[128];
    if ((s = ipc_update(w, x, 0))) return s;
    double dmin = tide_ipc_min_distance(w->ipc, x, &touching, &kind, nd);
    if (touching)
      return tide_fail(TIDE_EINVAL,
                       "Newton step: the contact invariant is violated: %s touch or intersect "
                       "after the step (distance %g m)",
                       tide_ipc_pair_text(kind, nd, buf), dmin);
  }
  if (w->ipc && m->dim == 3) {
    int64_t cnt = 0, fe = -1, ft = -1, ne = 0;
    int32_t *E = NULL;
    if ((s = tide_mesh_intersections(m, x, &cnt, &fe, &ft))) return s;
    if (cnt) {
      if ((s = tide_mesh_edges(m, &ne, &E))) return s;
      int32_t e0 = E[fe * 2], e1 = E[fe * 2 + 1];
      tide_free(E, (size_t)(ne > 0 ? ne : 1) * 2 * sizeof(int32_t));
      const int32_t *t = TIDE_I32P(m->bound) + ft * 3;
      return tide_fail(TIDE_EINVAL,
                       "Newton step: the contact invariant is violated: %lld edge-triangle "
                       "intersections after the step, the first edge (nodes %d %d) through "
                       "triangle (nodes %d %d %d)",
                       (long long)cnt, e0 + 1, e1 + 1, t[0] + 1, t[1] + 1, t[2] + 1);
    }
  }
  if (w->sdf_on) {
    int64_t node;
    int col;
    double d = tide_ipc_sdf_min_distance(&w->sdf, x, &node, &col);
    if (!(d > 0))
      return tide_fail(TIDE_EINVAL,
                       "Newton step: the contact invariant is violated: node %lld is %s collider "
                       "%d after the step (distance %g m)",
                       (long long)node + 1, d < 0 ? "inside" : "on", col + 1, d);
  }
  return TIDE_OK;
}

static int step_newton(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st) {
  memset(st, 0, sizeof *st);
  st->min_distance = HUGE_VAL;
  double t0 = tide_wtime();
  int s = check_step(m, o, "Newton step");
  if (s) return s;
  int barrier = o->contact == TIDE_CONTACT_BARRIER;
  if (o->ncolliders && o->contact != TIDE_CONTACT_SIMPLE && !(o->eps_v > 0))
    return tide_fail(TIDE_EINVAL, "Newton step: eps_v must be positive, got %g", o->eps_v);
  if (barrier && !(o->dhat > 0))
    return tide_fail(TIDE_EINVAL,
                     "Newton step: contact = \"barrier\" needs the barrier threshold dhat > 0");
  if (!(o->mu >= 0) || !isfinite(o->mu))
    return tide_fail(TIDE_EINVAL, "Newton step: mu must be >= 0, got %g", o->mu);
  if (!(o->contact_offset >= 0) || !isfinite(o->contact_offset))
    return tide_fail(TIDE_EINVAL, "Newton step: contact_offset must be >= 0, got %g",
                     o->contact_offset);
  if (o->contact_offset > 0 && !(o->dhat > 0))
    return tide_fail(TIDE_EINVAL,
                     "Newton step: contact_offset = %g needs the mesh's contact: dhat > 0",
                     o->contact_offset);
  if (o->mu > 0 && !(o->dhat > 0))
    return tide_fail(TIDE_EINVAL,
                     "Newton step: friction between the mesh's primitives (mu = %g) "
                     "needs their contact: dhat > 0",
                     o->mu);
  if (o->mu > 0 && !(o->eps_v > 0))
    return tide_fail(TIDE_EINVAL, "Newton step: eps_v must be positive, got %g", o->eps_v);
  solid_work *w = get_work(m, &s);
  if (!w) return s;
  w->broad_seconds = w->ccd_seconds = 0;
  int nc = o->ncolliders;
  int64_t N = w->N;
  double dt = o->dt, *x = TIDE_F64P(m->x), *v = TIDE_F64P(m->v);
  double *xn = w->vec[0], *xhat = w->vec[1], *g = w->vec[2];
  memcpy(xn, x, (size_t)N * sizeof(double));
  if ((s = tide_fem_predict(m, dt, xhat))) return s;
  if ((s = tide_thin_damping_prepare(m, xn))) return s; /* shells' and rods' Rayleigh term */
  /* contact among the mesh's own primitives (IPC; 2D: point-segment):
   * built once per (dhat, kappa); the start must be intersection-free and
   * apart */
  if (o->dhat > 0) {
    if (!w->ipc || w->ipc_dhat != o->dhat || w->ipc_kappa != o->kappa) {
      tide_ipc_free(w->ipc);
      w->ipc = NULL;
      if ((s = tide_ipc_new(m, o->dhat, o->kappa, &w->ipc))) return s;
      w->ipc_dhat = o->dhat, w->ipc_kappa = o->kappa;
    }
    if ((s = tide_ipc_set_offset(w->ipc, o->contact_offset))) return s;
    if ((s = ipc_update(w, xn, 0))) return s;
    tide_ccd_work cw = tide_ipc_ccd_work(w->ipc);
    st->ccd_iterations = -cw.iterations, st->ccd_capped = -cw.capped;
    int touching = 0, kind = 0;
    int32_t nd[4];
    char buf[128];
    tide_ipc_min_distance(w->ipc, xn, &touching, &kind, nd);
    if (touching)
      return tide_fail(TIDE_EINVAL,
                       "Newton step: solid contact needs a start without contact, but %s "
                       "touch or intersect",
                       tide_ipc_pair_text(kind, nd, buf));
  } else if (w->ipc) {
    tide_ipc_free(w->ipc);
    w->ipc = NULL;
  }
  /* the barrier stiffness: the option or kappa_min, or what the adaptive
   * update raised it to in the last steps */
  w->sdf_on = barrier && nc > 0;
  if (w->ipc || w->sdf_on) {
    /* kappa_max: 100 kappa_min (IPC), and at least 100 times the option */
    double kmin = tide_ipc_kappa_default(m, o->dhat), k0 = o->kappa > 0 ? o->kappa : kmin;
    tide_fem *f = m->fem;
    if (!o->kappa_adapt || f->ipc_kappa_dhat != o->dhat || f->ipc_kappa_opt != o->kappa ||
        !(f->ipc_kappa > 0))
      f->ipc_kappa = k0, f->ipc_dmin = 0;
    f->ipc_kappa_dhat = o->dhat, f->ipc_kappa_opt = o->kappa;
    w->kappa = f->ipc_kappa, w->kappa_max = 100 * fmax(k0, kmin);
    w->kappa_adapt = o->kappa_adapt;
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL},
           bb = 0;
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < m->dim; k++)
        lo[k] = fmin(lo[k], xn[i * m->dim + k]), hi[k] = fmax(hi[k], xn[i * m->dim + k]);
    for (int k = 0; k < m->dim; k++)
      bb += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    w->kappa_eps = 1e-9 * sqrt(bb);
    if (w->ipc) tide_ipc_set_kappa(w->ipc, w->kappa);
  }
  if (w->sdf_on) {
    tide_ipc_sdf sd = {o->colliders,
                       nc,
                       o->dhat,
                       w->kappa,
                       m->dim,
                       m->nv,
                       TIDE_U8P(m->fem->pinned),
                       TIDE_F64P(m->fem->mass),
                       w->vec[8]};
    w->sdf = sd;
  }
  memcpy(x, xhat, (size_t)N * sizeof(double)); /* initial guess; fixed nodes at their targets */
  if (o->guess || w->ipc || w->sdf_on)         /* ... or the start positions of the free nodes (with
                                                  contact: the prediction may pass through other
                                                  primitives or into the colliders) */
    for (int64_t q = 0; q < N; q++)
      if (!fixed_node(m->fem, q / m->dim)) x[q] = xn[q];
  if (w->sdf_on && (s = barrier_start(m, o, w, xn, x))) return s;
  double move = 0;
  if (w->ipc) {
    int blocked;
    if ((s = pinned_motion(w, xn, x, &blocked))) return s;
    if (blocked && (s = al_begin(m, w, xn, x, &move))) return s;
  }
  if ((w->ipc || w->sdf_on) && !o->guess && (s = inertial_guess(m, w, v, dt, x))) return s;
  tide_ip ip = {dt, xhat, xn};
  double tol = o->tol > 0 ? o->tol : 1e-6, ceps = tol * dt;
  int maxit = o->maxit > 0 ? o->maxit : 50;
  if (nc && !barrier) contacts_project(m, o, x);
  /* IPC friction at the collider contacts (contact = "friction": the
   * constraint multipliers' normal forces; "barrier": the barrier's) */
  int fric = nc && o->contact != TIDE_CONTACT_SIMPLE;
  double eps_u = fric ? o->eps_v * dt : 0;
  /* ... and between the mesh's primitives (mu > 0): lagged at the start */
  int sfric = w->ipc && o->mu > 0;
  double change = 0;
  if (w->ipc &&
      (s = tide_ipc_friction_lag(w->ipc, xn, xn, sfric ? o->mu : 0, dt, o->eps_v, &change)))
    return s;
  int rounds = fric || sfric ? (o->friction_iterations > 0 ? o->friction_iterations : 2) : 1;
  double ftol = o->friction_tol > 0 ? o->friction_tol : 0.02;
  if (fric) friction_lag(m, o, w, xn, xn);
  int converged = 0;
  int64_t touching = 0;
  for (int r = 0; r < rounds; r++) {
    if ((s = al_minimize(m, o, w, &ip, eps_u, x, maxit, move, &converged, st))) return s;
    st->friction_iterations = r + 1;
    if (!fric && !sfric) break;
    /* the normal forces at the solution, lagged for the next solve / step */
    change = 0;
    if (fric && barrier) {
      change = friction_update_barrier(m, o, w, x, &touching);
    } else if (fric) {
      if ((s = newton_gradient(m, w, &ip, x, eps_u, g))) return s;
      change = friction_update(m, o, w, x, g, ceps);
    }
    if (sfric) {
      double ch;
      if ((s = tide_ipc_friction_lag(w->ipc, x, xn, o->mu, dt, o->eps_v, &ch))) return s;
      change = fmax(change, ch);
    }
    st->friction_change = change;
    if (change <= ftol || !converged) break;
    if (fric) friction_lag(m, o, w, x, xn);
  }
  st->converged = converged;
#pragma omp parallel for schedule(static) if (N > TIDE_SOLID_PAR_MIN)
  for (int64_t q = 0; q < N; q++)
    v[q] = (x[q] - xn[q]) / dt;
  if (nc && !barrier) {
    /* the contact impulses: the gradient at the final positions */
    if ((s = newton_gradient(m, w, &ip, x, eps_u, g))) return s;
    double *xb = w->vec[6];
    if (w->ipc) memcpy(xb, x, (size_t)N * sizeof(double));
    st->contacts = contacts_finish(m, o, g, ceps, fric, x, v);
    if (w->ipc) { /* the contact corrections must not pass primitives through each other */
      if ((s = ipc_limit(m, w, xb, x, w->vec[7]))) return s;
#pragma omp parallel for schedule(static) if (N > TIDE_SOLID_PAR_MIN)
      for (int64_t q = 0; q < N; q++)
        v[q] = (x[q] - xn[q]) / dt;
    }
  }
  if (barrier) st->contacts = touching;
  if (w->ipc || w->sdf_on) {
    st->kappa = w->kappa;
    st->broad_seconds = w->broad_seconds, st->ccd_seconds = w->ccd_seconds;
    if (w->ipc) {
      tide_ccd_work cw = tide_ipc_ccd_work(w->ipc);
      st->ccd_iterations += cw.iterations, st->ccd_capped += cw.capped;
      int tc, kind;
      int32_t nd[4];
      if ((s = ipc_update(w, x, 0))) return s;
      st->min_distance = tide_ipc_min_distance(w->ipc, x, &tc, &kind, nd);
    }
    if (w->sdf_on)
      st->min_distance = fmin(st->min_distance, tide_ipc_sdf_min_distance(&w->sdf, x, NULL, NULL));
  }
  if (o->check && (w->ipc || w->sdf_on) && (s = check_invariant(m, w, x))) {
    w->sdf_on = 0;
    return s;
  }
  w->sdf_on = 0; /* the colliders are the caller's, valid for this call only */
  s = finish_step(m, o, st, 0);
  st->total_seconds = tide_wtime() - t0;
  return s;
}

int tide_solid_step_newton(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st) {
  int s = step_newton(m, o, st);
  solid_work *w = m->fem ? m->fem->work : NULL;
  if (w && w->al_on) al_end(m, w); /* on every exit: the prescribed nodes pinned again */
  return s;
}

/* ------------------------------------------------------------ Newmark */

/* (M + dt/2 C(xf)) applied to the constrained subspace: y = P A P w */
typedef struct damped_op {
  tide_tetmesh *m;
  solid_work *w;
  const double *xf; /* positions fixing the damping rotations */
  double half_dt;
  int damping;
  double *tmp, *tmp2;
} damped_op;

/* project per node: fixed -> 0, contact -> remove the normal component */
static void project(const damped_op *op, double *y) {
  tide_tetmesh *m = op->m;
  int d = m->dim;
  const uint8_t *cf = op->w->cflag;
  const double *cN = op->w->cN;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    if (cf[i] == 2) {
      for (int k = 0; k < d; k++)
        y[i * d + k] = 0;
    } else if (cf[i] == 1) {
      double s = 0;
      for (int k = 0; k < d; k++)
        s += y[i * d + k] * cN[i * d + k];
      for (int k = 0; k < d; k++)
        y[i * d + k] -= s * cN[i * d + k];
    }
  }
}

/* y = (M + dt/2 C) x, unprojected */
static int apply_damped(const damped_op *op, const double *xv, double *y) {
  tide_tetmesh *m = op->m;
  int d = m->dim;
  const double *mass = TIDE_F64P(m->fem->mass);
  int s;
  if (op->damping) {
    if ((s = tide_fem_damping_gradient(m, op->xf, xv, y))) return s;
  }
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      double mi = mass[i] > 0 ? mass[i] : 1;
      y[q] = mi * xv[q] + (op->damping ? op->half_dt * y[q] : 0);
    }
  return TIDE_OK;
}

static int op_projected(void *ctx, const double *xv, double *y) {
  damped_op *op = ctx;
  int64_t N = op->w->N;
  memcpy(op->tmp, xv, (size_t)N * sizeof(double));
  project(op, op->tmp);
  int s = apply_damped(op, op->tmp, y);
  if (s) return s;
  project(op, y);
  return TIDE_OK;
}

/* preconditioner: P M^-1 r (a scalar per node commutes with P) */
static int op_precond(void *ctx, const double *r, double *z) {
  damped_op *op = ctx;
  tide_tetmesh *m = op->m;
  int d = m->dim;
  const double *mass = TIDE_F64P(m->fem->mass);
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++)
      z[i * d + k] = r[i * d + k] / (mass[i] > 0 ? mass[i] : 1);
  project(op, z);
  return TIDE_OK;
}

/* Solve (M + dt/2 C(xf)) v = rhs with v's constrained part equal to vc
 * (fixed nodes: all of it; contacts: the normal component).  v in/out: on
 * entry the initial guess. */
static int solve_damped(tide_tetmesh *m, solid_work *w, const double *xf, double half_dt,
                        const double *rhs, const double *vc, double *v, const tide_step_opts *o,
                        tide_step_stats *st) {
  int64_t N = w->N;
  double *r = w->vec[6], *wv = w->vec[7], *tmp = w->vec[8];
  double *work = tide_alloc((size_t)(4 * N) * sizeof(double));
  if (!work) return TIDE_ENOMEM;
  double *tmp2 = tide_alloc((size_t)N * sizeof(double));
  if (!tmp2) {
    tide_free(work, (size_t)(4 * N) * sizeof(double));
    return TIDE_ENOMEM;
  }
  const tide_material *mat = &m->fem->mat;
  damped_op op = {m, w, xf, half_dt, mat->damp_alpha > 0 || mat->damp_beta > 0, tmp, tmp2};
  /* r = P (rhs - A vc), w0 = P (v - vc) */
  int s = apply_damped(&op, vc, r);
  if (!s) {
    for (int64_t q = 0; q < N; q++) {
      r[q] = rhs[q] - r[q];
      wv[q] = v[q] - vc[q];
    }
    project(&op, r);
    project(&op, wv);
    tide_solve_opts so = tide_solve_opts_default();
    so.tol = o->tol > 0 && o->tol < 1 ? o->tol : 1e-10;
    so.maxit = o->maxit;
    so.use_x0 = 1;
    tide_solve_stats ks;
    double t1 = tide_wtime();
    s = tide_pcg_op(N, op_projected, &op, op_precond, &op, r, wv, work, &so, &ks);
    st->solve_seconds += tide_wtime() - t1;
    st->linear_iterations += ks.iterations;
    st->iterations += ks.iterations;
    st->residual = ks.residual;
    st->converged = ks.converged;
    if (!s) {
      project(&op, wv);
      for (int64_t q = 0; q < N; q++)
        v[q] = vc[q] + wv[q];
    }
  }
  tide_free(work, (size_t)(4 * N) * sizeof(double));
  tide_free(tmp2, (size_t)N * sizeof(double));
  return s;
}

/* Newmark rhs: M v0 + dt/2 (f_e(xe) + f_ext + M g) */
static int newmark_rhs(tide_tetmesh *m, const double *v0, const double *xe, double half_dt,
                       double *rhs) {
  tide_fem *f = m->fem;
  int d = m->dim;
  int s = tide_fem_gradient(m, xe, rhs); /* = -f_e */
  if (s) return s;
  const double *mass = TIDE_F64P(f->mass), *fe = TIDE_F64P(f->force);
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      double mi = mass[i] > 0 ? mass[i] : 1;
      rhs[q] = mi * v0[q] + half_dt * (-rhs[q] + fe[q] + mass[i] * f->gravity[k]);
    }
  return TIDE_OK;
}

int tide_solid_step_newmark(tide_tetmesh *m, const tide_step_opts *o, tide_step_stats *st) {
  memset(st, 0, sizeof *st);
  double t0 = tide_wtime();
  int s = check_step(m, o, "Newmark step");
  if (s) return s;
  if (m->fem->thin)
    return tide_fail(TIDE_EINVAL,
                     "Newmark step: shells and rods are not stepped by it (its elasticity is "
                     "explicit, stable only for dt below the bending modes' period, which shrinks "
                     "with the square of the edge length, and its implicit damping is the volume "
                     "material's, not their Rayleigh term): step them with step_newton");
  solid_work *w = get_work(m, &s);
  if (!w) return s;
  tide_fem *f = m->fem;
  int d = m->dim;
  int64_t N = w->N, nv = m->nv;
  double dt = o->dt, hd = 0.5 * dt;
  double *x = TIDE_F64P(m->x), *v = TIDE_F64P(m->v);
  const double *tg = TIDE_F64P(f->target), *mass = TIDE_F64P(f->mass);
  double *xn = w->vec[0], *vt = w->vec[1], *rhs = w->vec[2], *vc = w->vec[3], *vsn = w->vec[4],
         *vh = w->vec[5];
  const uint8_t *pin = TIDE_U8P(f->pinned);
  memcpy(xn, x, (size_t)N * sizeof(double));
  /* constraints of the first solve: fixed nodes only */
  memset(vc, 0, (size_t)N * sizeof(double));
  for (int64_t i = 0; i < nv; i++) {
    w->cflag[i] = fixed_node(f, i) ? 2 : 0;
    if (w->cflag[i] == 2)
      for (int k = 0; k < d; k++)
        vc[i * d + k] = pin[i] ? (tg[i * d + k] - xn[i * d + k]) / dt : 0;
  }
  /* 1. v~(n+1/2) = v^n + dt/2 a(x^n, v~(n+1/2)): explicit elasticity,
   *    implicit damping */
  double ta = tide_wtime();
  if ((s = newmark_rhs(m, v, xn, hd, rhs))) return s;
  st->assemble_seconds += tide_wtime() - ta;
  memcpy(vt, v, (size_t)N * sizeof(double));
  if ((s = solve_damped(m, w, xn, hd, rhs, vc, vt, o, st))) return s;
  /* 3. x~(n+1) = x^n + dt v~(n+1/2); 4. collide with objects (thesis 3.2) */
  memcpy(vsn, v, (size_t)N * sizeof(double)); /* v*^n = v^n unless colliding */
  int64_t contacts = 0;
  tide_collider *const *cs = o->colliders;
  int nc = o->ncolliders;
#pragma omp parallel for schedule(static) reduction(+ : contacts) if (nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < nv; i++) {
    double xt[3] = {0, 0, 0}, x0[3] = {0, 0, 0};
    for (int k = 0; k < d; k++) {
      x0[k] = xn[i * d + k];
      xt[k] = x0[k] + dt * vt[i * d + k];
    }
    if (w->cflag[i] == 2 || !nc) {
      for (int k = 0; k < d; k++)
        x[i * d + k] = xt[k];
      continue;
    }
    double phi1, N1[3], vB[3];
    int b = tide_colliders_query(cs, nc, xt, &phi1, N1, vB);
    if (b < 0 || phi1 >= 0) {
      for (int k = 0; k < d; k++)
        x[i * d + k] = xt[k];
      continue;
    }
    contacts++;
    const tide_collider *c = cs[b];
    double mu = c->mu, vbn = 0;
    for (int k = 0; k < d; k++)
      vbn += vB[k] * N1[k];
    /* phi at x^n of the body at time n (body evaluated at n+1, shifted) */
    double phi0 = tide_collider_phi(c, x0, NULL) - c->thickness + dt * vbn;
    double vs[3], xnew[3];
    tide_friction_gamma(d, vt + i * d, vB, N1, mu, 0, vs);
    /* improved algorithm: step to the collision point, then on with the
     * friction-corrected velocity for the rest of the step (a point that
     * starts on or inside the body, e.g. resting or pushed by a moving
     * body, has theta = 0) */
    double th = phi0 > 0 ? phi0 / (phi0 - phi1) : 0;
    for (int k = 0; k < d; k++)
      xnew[k] = x0[k] + th * dt * vt[i * d + k] + (1 - th) * dt * vs[k];
    /* a curved or moving surface may leave the point inside: project */
    double phi2, N2[3], vB2[3];
    if (tide_colliders_query(cs, nc, xnew, &phi2, N2, vB2) >= 0 && phi2 < 0)
      for (int k = 0; k < d; k++)
        xnew[k] -= phi2 * N2[k];
    for (int k = 0; k < d; k++) {
      x[i * d + k] = xnew[k];
      w->cN[i * d + k] = N1[k];
      w->cvB[i * d + k] = vB[k];
    }
    w->cflag[i] = 1;
    w->cbody[i] = b;
    /* v*^n = Gamma(v^n) */
    tide_friction_gamma(d, v + i * d, vB, N1, mu, 0, vsn + i * d);
  }
  st->contacts = contacts;
  /* 5. v(n+1/2) = v*^n + dt/2 a(x(n+1/2), v(n+1/2)) with the normal
   *    velocity of contacts held at v*^n . N */
  double *xh = vt; /* reuse: x^{n+1/2} */
  for (int64_t q = 0; q < N; q++)
    xh[q] = 0.5 * (xn[q] + x[q]);
  for (int64_t i = 0; i < nv; i++) {
    if (w->cflag[i] == 1) {
      double sn = 0;
      for (int k = 0; k < d; k++)
        sn += vsn[i * d + k] * w->cN[i * d + k];
      for (int k = 0; k < d; k++)
        vc[i * d + k] = sn * w->cN[i * d + k];
    }
  }
  ta = tide_wtime();
  if ((s = newmark_rhs(m, vsn, xh, hd, rhs))) return s;
  st->assemble_seconds += tide_wtime() - ta;
  memcpy(vh, vsn, (size_t)N * sizeof(double));
  if ((s = solve_damped(m, w, xh, hd, rhs, vc, vh, o, st))) return s;
  /* dv = dt/2 a(x(n+1/2), v(n+1/2)), unprojected, for friction */
  double *dv = w->vec[9];
  {
    const tide_material *mat = &f->mat;
    int damp = mat->damp_alpha > 0 || mat->damp_beta > 0;
    if ((s = tide_fem_gradient(m, xh, dv))) return s;
    double *cd = w->vec[6];
    if (damp && (s = tide_fem_damping_gradient(m, xh, vh, cd))) return s;
    const double *fe = TIDE_F64P(f->force);
    for (int64_t i = 0; i < nv; i++)
      for (int k = 0; k < d; k++) {
        int64_t q = i * d + k;
        double fq = -dv[q] - (damp ? cd[q] : 0) + fe[q];
        dv[q] = mass[i] > 0 ? hd * (fq / mass[i] + f->gravity[k]) : 0;
      }
  }
  /* 6. v~(n+1) = 2 v(n+1/2) - v*^n; 7. friction with objects */
  for (int64_t i = 0; i < nv; i++) {
    double *vi = v + i * d;
    for (int k = 0; k < d; k++)
      vi[k] = 2 * vh[i * d + k] - vsn[i * d + k];
    if (w->cflag[i] == 2) { /* kinematic: at the target with its velocity */
      for (int k = 0; k < d; k++) {
        if (pin[i]) x[i * d + k] = tg[i * d + k];
        vi[k] = vc[i * d + k];
      }
    } else if (w->cflag[i] == 1) {
      const double *Nn = w->cN + i * d;
      double dn = 0;
      for (int k = 0; k < d; k++)
        dn += 2 * dv[i * d + k] * Nn[k];
      /* put back the inward normal velocity the projection removed, so that
       * Gamma removes it again and applies its friction */
      double in = dn < 0 ? dn : 0, tmpv[3];
      for (int k = 0; k < d; k++)
        tmpv[k] = vi[k] + in * Nn[k];
      tide_friction_gamma(d, tmpv, w->cvB + i * d, Nn, cs[w->cbody[i]]->mu, 0, vi);
    }
  }
  s = finish_step(m, o, st, 0);
  st->total_seconds = tide_wtime() - t0;
  return s;
}

/* ------------------------------------------------------------- energy */

int tide_solid_total_energy(const tide_tetmesh *m, double *E) {
  if (!m->fem) return tide_fail(TIDE_EINVAL, "the mesh has no material");
  double Ee;
  int s = tide_fem_energy(m, TIDE_F64P(m->x), &Ee);
  if (s) return s;
  const tide_fem *f = m->fem;
  const double *x = TIDE_F64P(m->x), *v = TIDE_F64P(m->v), *mass = TIDE_F64P(f->mass);
  double *eb = TIDE_F64P(f->ebuf);
  int d = m->dim;
#pragma omp parallel for schedule(static) if (m->nv > TIDE_SOLID_PAR_MIN)
  for (int64_t i = 0; i < m->nv; i++) {
    double k = 0, g = 0;
    for (int c = 0; c < d; c++) {
      k += v[i * d + c] * v[i * d + c];
      g += f->gravity[c] * x[i * d + c];
    }
    eb[i] = mass[i] * (0.5 * k - g);
  }
  *E = Ee + tide_sum(m->nv, eb);
  return TIDE_OK;
}
