/*
 * static.c -- static equilibrium of deformable solids and surface loads
 * (see static.h).
 */
#include "solid/static.h"
#include "solid/contact.h"
#include "solid/integrate.h"
#include "solid/small.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------- surface loads */

void tide_pressure_face(int d, const double *xf, double p, double *f, double *D) {
  double c[3];
  if (d == 3) {
    const double *x0 = xf, *x1 = xf + 3, *x2 = xf + 6;
    double u[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
    double w[3] = {x2[0] - x0[0], x2[1] - x0[1], x2[2] - x0[2]};
    tide_cross3(u, w, c);
    for (int k = 0; k < 3; k++)
      f[k] = -p * 0.5 * c[k] / 3;
    /* c = (x0 x x1 + x1 x x2 + x2 x x0)/2: dc/dx_b = [x_{b+2} - x_{b+1}]x / 2 */
    if (D)
      for (int b = 0; b < 3; b++) {
        const double *xn = xf + 3 * ((b + 1) % 3), *xp = xf + 3 * ((b + 2) % 3);
        double e[3] = {0.5 * (xp[0] - xn[0]), 0.5 * (xp[1] - xn[1]), 0.5 * (xp[2] - xn[2])};
        double S[9] = {0, -e[2], e[1], e[2], 0, -e[0], -e[1], e[0], 0};
        for (int k = 0; k < 9; k++)
          D[b * 9 + k] = -p / 3 * S[k];
      }
  } else {
    /* c = (y1 - y0, x0 - x1): dc/dx0 = [[0, -1], [1, 0]] = -dc/dx1 */
    f[0] = -p * (xf[3] - xf[1]) / 2;
    f[1] = -p * (xf[0] - xf[2]) / 2;
    if (D)
      for (int b = 0; b < 2; b++) {
        double sg = b == 0 ? 1 : -1;
        D[b * 4 + 0] = 0, D[b * 4 + 1] = p / 2 * sg, D[b * 4 + 2] = -p / 2 * sg, D[b * 4 + 3] = 0;
      }
  }
}

/* the positions of boundary face f's nodes (d x d) */
static void face_nodes(const tide_tetmesh *m, int64_t f, const double *x, double *xf) {
  int d = m->dim;
  const int32_t *b = TIDE_I32P(m->bound) + f * d;
  for (int a = 0; a < d; a++)
    for (int k = 0; k < d; k++)
      xf[a * d + k] = x[(int64_t)b[a] * d + k];
}

/* the force per face node of load l on face f: a constant load integrated
 * against a linear shape function gives load * area / d on each of the d
 * nodes of a face */
static void face_force(const tide_tetmesh *m, const tide_surface_load *l, int64_t f,
                       const double *x, double *fa) {
  int d = m->dim;
  double xf[9];
  face_nodes(m, f, l->kind == TIDE_LOAD_PRESSURE && l->follower ? x : TIDE_F64P(m->rest), xf);
  if (l->kind == TIDE_LOAD_TRACTION) {
    double c[3]; /* the area from a unit pressure: f = -c / d */
    tide_pressure_face(d, xf, 1, c, NULL);
    double A = sqrt(c[0] * c[0] + c[1] * c[1] + (d == 3 ? c[2] * c[2] : 0)) * d;
    for (int k = 0; k < d; k++)
      fa[k] = l->value[k] * A / d;
  } else {
    tide_pressure_face(d, xf, l->value[0], fa, NULL);
  }
}

static int check_loads(const tide_tetmesh *m, const tide_surface_load *loads, int nloads) {
  for (int l = 0; l < nloads; l++) {
    const tide_surface_load *L = loads + l;
    if (L->kind != TIDE_LOAD_TRACTION && L->kind != TIDE_LOAD_PRESSURE)
      return tide_fail(TIDE_EINVAL, "load %d: unknown kind %d", l + 1, L->kind);
    for (int k = 0; k < 3; k++)
      if (!isfinite(L->value[k]))
        return tide_fail(TIDE_ENONFINITE, "load %d: the load value is not finite", l + 1);
    for (int64_t i = 0; i < L->nfaces; i++)
      if (L->faces[i] < 0 || L->faces[i] >= m->nb)
        return tide_fail(TIDE_EINVAL, "load %d: boundary face %d outside 1..%lld", l + 1,
                         L->faces[i] + 1, (long long)m->nb);
  }
  return TIDE_OK;
}

/* add the nodal forces of the loads to f; follower pressures only if
 * with_follower (at x), dead loads only if with_dead */
static void add_surface_forces(const tide_tetmesh *m, const tide_surface_load *loads, int nloads,
                               const double *x, int with_dead, int with_follower, double scale,
                               double *f) {
  int d = m->dim;
  const int32_t *bd = TIDE_I32P(m->bound);
  for (int l = 0; l < nloads; l++) {
    const tide_surface_load *L = loads + l;
    int fol = L->kind == TIDE_LOAD_PRESSURE && L->follower;
    if (fol ? !with_follower : !with_dead) continue;
    for (int64_t i = 0; i < L->nfaces; i++) {
      double fa[3];
      face_force(m, L, L->faces[i], x, fa);
      for (int a = 0; a < d; a++)
        for (int k = 0; k < d; k++)
          f[(int64_t)bd[L->faces[i] * d + a] * d + k] += scale * fa[k];
    }
  }
}

int tide_solid_surface_forces(const tide_tetmesh *m, const tide_surface_load *loads, int nloads,
                              const double *x, double *f) {
  int s = check_loads(m, loads, nloads);
  if (s) return s;
  add_surface_forces(m, loads, nloads, x, 1, x != NULL, 1, f);
  return TIDE_OK;
}

/* The follower pressure's tangent blocks, one d x d block per pair of face
 * nodes (a, b) of every loaded face, in a fixed order: their row/column
 * indices into I, J (when not NULL) and/or their values at x into V (when
 * not NULL): r = grad - f_ext, so dr_a/dx_b = -lam df_a/dx_b. */
static void follower_blocks(const tide_tetmesh *m, const tide_static_opts *o, const double *x,
                            double lam, int *I, int *J, double *V) {
  int d = m->dim;
  const int32_t *bd = TIDE_I32P(m->bound);
  int64_t t = 0;
  for (int l = 0; l < o->nloads; l++) {
    const tide_surface_load *L = o->loads + l;
    if (!(L->kind == TIDE_LOAD_PRESSURE && L->follower)) continue;
    for (int64_t i = 0; i < L->nfaces; i++) {
      double D[27], xf[9], fa[3];
      if (V) {
        face_nodes(m, L->faces[i], x, xf);
        tide_pressure_face(d, xf, lam * L->value[0], fa, D);
      }
      for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++)
          for (int k = 0; k < d * d; k++, t++) {
            if (I) {
              I[t] = bd[L->faces[i] * d + a] * d + k / d;
              J[t] = bd[L->faces[i] * d + b] * d + k % d;
            }
            if (V) V[t] = -D[b * d * d + k];
          }
    }
  }
}

/* ------------------------------------------------------------- solver */

tide_static_opts tide_static_opts_default(void) {
  tide_static_opts o;
  memset(&o, 0, sizeof o);
  o.steps = 1;
  o.maxit = 50;
  o.tol = 1e-6;
  o.xtol = 1e-8;
  o.solver = TIDE_SOLID_AUTO;
  o.gravity = 1;
  return o;
}

typedef struct static_work {
  int64_t N, nel, nfl, nnb, nnz; /* element, follower, node-block triplets; all */
  double ceps;                   /* contact distance: 1e-10 of the mesh's extent [m] */
  double reg; /* diagonal regularization, relative to the mean stiffness diagonal */
  int d, nper, lu;
  int *I, *J;
  double *V;
  uint8_t *fixed; /* (N) */
  uint8_t *skip;  /* (nv) nodes fixed in every component */
  uint8_t *na;    /* (nv) active contact directions */
  double *Q;      /* (nv d d) */
  double *xs, *fd, *r, *p, *xt, *rt, *fi, *xp;
  double *xfix; /* prescribed values of the fixed degrees of freedom in this load step */
  tide_csr *A;
  tide_factor *F;
  int kind;
  size_t bytes;
} static_work;

#define SW_NVEC 9

static void sw_free(static_work *w) {
  if (!w) return;
  size_t ib = (size_t)w->nnz * sizeof(int), vb = (size_t)w->nnz * sizeof(double);
  size_t nb = (size_t)w->N * sizeof(double), nv = (size_t)(w->N / w->d + 1);
  tide_free(w->I, ib);
  tide_free(w->J, ib);
  tide_free(w->V, vb);
  tide_free(w->fixed, (size_t)w->N + 1);
  tide_free(w->skip, nv);
  tide_free(w->na, nv);
  tide_free(w->Q, nb * (size_t)w->d + 1);
  double **vecs[SW_NVEC] = {&w->xs, &w->fd, &w->r, &w->p, &w->xt, &w->rt, &w->fi, &w->xp, &w->xfix};
  for (int i = 0; i < SW_NVEC; i++)
    tide_free(*vecs[i], nb + 1);
  tide_csr_free(w->A);
  tide_factor_free(w->F);
  tide_free(w, sizeof *w);
}

static int sw_new(const tide_tetmesh *m, const tide_static_opts *o, static_work **out) {
  static_work *w = tide_calloc(sizeof *w);
  if (!w) return TIDE_ENOMEM;
  int d = m->dim, n = m->nper * d;
  w->d = d;
  w->nper = m->nper;
  w->N = m->nv * d;
  w->nel = tide_fem_elem_nnz(m); /* volume element blocks, then shells' and rods' */
  (void)n;
  for (int l = 0; l < o->nloads; l++)
    if (o->loads[l].kind == TIDE_LOAD_PRESSURE && o->loads[l].follower)
      w->nfl += o->loads[l].nfaces * d * d * d * d;
  w->lu = w->nfl > 0;
  w->nnb = m->nv * d * d;
  w->nnz = w->nel + w->N + w->nfl + w->nnb;
  if (w->nnz > INT32_MAX) {
    tide_free(w, sizeof *w);
    return tide_fail(TIDE_EINVAL, "mesh too large for 32-bit sparse matrices");
  }
  size_t ib = (size_t)w->nnz * sizeof(int), vb = (size_t)w->nnz * sizeof(double);
  size_t nb = (size_t)w->N * sizeof(double), nv = (size_t)(m->nv + 1);
  w->I = tide_alloc(ib);
  w->J = tide_alloc(ib);
  w->V = tide_calloc(vb);
  w->fixed = tide_calloc((size_t)w->N + 1);
  w->skip = tide_calloc(nv);
  w->na = tide_calloc(nv);
  w->Q = tide_calloc(nb * (size_t)d + 1);
  int ok = w->I && w->J && w->V && w->fixed && w->skip && w->na && w->Q;
  double **vecs[SW_NVEC] = {&w->xs, &w->fd, &w->r, &w->p, &w->xt, &w->rt, &w->fi, &w->xp, &w->xfix};
  for (int i = 0; i < SW_NVEC; i++)
    ok = ok && (*vecs[i] = tide_calloc(nb + 1));
  if (!ok) {
    sw_free(w);
    return TIDE_ENOMEM;
  }
  for (int64_t q = 0; q < w->N; q++)
    w->I[w->nel + q] = w->J[w->nel + q] = (int)q;
  follower_blocks(m, o, NULL, 0, w->I + w->nel + w->N, w->J + w->nel + w->N, NULL);
  int64_t t = w->nel + w->N + w->nfl;
  /* node blocks (contact directions, after the follower blocks) */
  for (int64_t i = 0; i < m->nv; i++)
    for (int r = 0; r < d; r++)
      for (int c = 0; c < d; c++, t++) {
        w->I[t] = (int)(i * d + r);
        w->J[t] = (int)(i * d + c);
      }
  *out = w;
  return TIDE_OK;
}

/* elastic gradient minus the load factor times the external forces at x:
 * r (free degrees of freedom; 0 at fixed ones), the 2-norms of the internal
 * force over all degrees of freedom and of the external force */
static int residual(tide_tetmesh *m, const tide_static_opts *o, static_work *w, double lam,
                    const double *x, double *r, double *fint, double *fext) {
  int s = tide_fem_gradient(m, x, r);
  if (s) return s;
  double *fe = w->fi;
  for (int64_t q = 0; q < w->N; q++)
    fe[q] = lam * w->fd[q];
  if (w->nfl) add_surface_forces(m, o->loads, o->nloads, x, 0, 1, lam, fe);
  *fint = sqrt(tide_norm2sq(w->N, r));
  *fext = sqrt(tide_norm2sq(w->N, fe));
  for (int64_t q = 0; q < w->N; q++)
    r[q] = w->fixed[q] ? 0 : r[q] - fe[q];
  return TIDE_OK;
}

/* the total potential sum V psi - lam f_dead . (x - X) (conservative loads
 * only; the displacement, not x, keeps the load term free of a large
 * constant), and the size of its terms (for its rounding) */
static int potential(tide_tetmesh *m, const static_work *w, double lam, const double *x, double *E,
                     double *size) {
  int s = tide_fem_energy(m, x, E);
  if (s) return s;
  const double *X = TIDE_F64P(m->rest);
  double wk = 0;
  for (int64_t q = 0; q < w->N; q++)
    wk += w->fd[q] * (x[q] - X[q]);
  *size = fabs(*E) + fabs(lam * wk);
  *E -= lam * wk;
  return TIDE_OK;
}

/* the tangent stiffness at x into w->A: element Hessians (projected when
 * project), the follower pressure's consistent tangent, contact-constrained
 * blocks at active nodes, fixed rows/columns replaced by a scaled identity */
static int tangent(tide_tetmesh *m, const tide_static_opts *o, static_work *w, double lam,
                   const double *x, int project, int64_t nact) {
  tide_tripletbuf tb = {w->I, w->J, w->V, 0, 0};
  int s = tide_fem_hessian(m, x, project ? TIDE_FEM_PROJECT : 0, &tb);
  if (s) return s;
  if (nact) tide_contacts_constrain_elements(m, w->na, w->Q, w->V);
  follower_blocks(m, o, x, lam, NULL, NULL, w->V + w->nel + w->N);
  int d = w->d;
  double dsum = 0;
  for (int64_t k = 0; k < w->nel; k++)
    if (w->I[k] == w->J[k]) dsum += fabs(w->V[k]);
  double dscale = dsum > 0 ? dsum / (double)w->N : 1;
  for (int64_t k = 0; k < w->nnz; k++)
    if (w->fixed[w->I[k]] || w->fixed[w->J[k]]) w->V[k] = 0;
  for (int64_t q = 0; q < w->N; q++)
    w->V[w->nel + q] = w->fixed[q] ? dscale : w->reg * dscale;
  /* active contact directions: P H P is singular along them; dscale q q^T
   * there keeps the system regular and the Newton step tangential */
  double *Vn = w->V + w->nnz - w->nnb;
  memset(Vn, 0, (size_t)w->nnb * sizeof(double));
  for (int64_t i = 0; i < m->nv && nact; i++)
    for (int a = 0; a < w->na[i]; a++) {
      const double *q = w->Q + (i * d + a) * d;
      for (int r = 0; r < d; r++)
        for (int c = 0; c < d; c++)
          Vn[i * d * d + r * d + c] += dscale * q[r] * q[c];
    }
  if (!w->A)
    return tide_csr_from_triplets((int)w->N, (int)w->N, w->nnz, w->I, w->J, w->V,
                                  w->lu ? TIDE_CSR_GENERAL : TIDE_CSR_UPPER, &w->A);
  return tide_csr_set_triplet_values(w->A, w->nnz, w->V);
}

static int factor_solve(static_work *w, const tide_static_opts *o, const double *b, double *x) {
  int kind = w->lu                              ? TIDE_FACTOR_LU
             : o->solver == TIDE_SOLID_CHOLMOD  ? TIDE_FACTOR_CHOLESKY
             : o->solver == TIDE_SOLID_LDLT     ? TIDE_FACTOR_LDLT
             : w->N < TIDE_SOLID_SUPERNODAL_MIN ? TIDE_FACTOR_LDLT
                                                : TIDE_FACTOR_CHOLESKY;
  int s;
  if (w->F && w->kind == kind) {
    s = tide_factor_refactor(w->F, w->A);
  } else {
    tide_factor_free(w->F);
    w->F = NULL;
    s = tide_factor_new(w->A, kind, &w->F);
    w->kind = kind;
  }
  if (!s) s = tide_factor_solve(w->F, b, x);
  return s;
}

static double norm2(int64_t n, const double *x) { return sqrt(tide_norm2sq(n, x)); }

/* project the free nodes out of the colliders; a node fixed in some of its
 * components keeps them (it slides along its free ones); returns the
 * number of nodes moved */
static int64_t project_contacts(const tide_tetmesh *m, const tide_static_opts *o,
                                const static_work *w, double *x) {
  if (!o->ncolliders) return 0;
  int64_t n = tide_contacts_project(m, w->skip, o->colliders, o->ncolliders, x);
  if (n)
    for (int64_t q = 0; q < w->N; q++)
      if (w->fixed[q]) x[q] = w->xfix[q];
  return n;
}

/* relative increment |p| / |x + p - X| */
static double rel_increment(const tide_tetmesh *m, const static_work *w, const double *x) {
  const double *X = TIDE_F64P(m->rest);
  double pn = 0, un = 0;
  for (int64_t q = 0; q < w->N; q++) {
    double u = x[q] + w->p[q] - X[q];
    pn += w->p[q] * w->p[q];
    un += u * u;
  }
  return pn > 0 ? sqrt(pn) / fmax(sqrt(un), 1e-300) : 0;
}

/* Newton on load step k (load factor lam) from x; returns a status, sets
 * *conv */
static int newton_step(tide_tetmesh *m, const tide_static_opts *o, static_work *w, int k,
                       double lam, double *x, int *conv, tide_static_stats *st) {
  int64_t N = w->N;
  int nc = o->ncolliders, cons = !w->lu, s;
  double *r = w->r, *p = w->p, *xt = w->xt, *rt = w->rt;
  *conv = 0;
  double res_prev[2] = {HUGE_VAL, HUGE_VAL};
  for (int it = 0; it < o->maxit; it++) {
    double fint, fext;
    if ((s = residual(m, o, w, lam, x, r, &fint, &fext))) return s;
    int64_t nact = 0;
    if (nc) {
      /* contacts: the active set pushes into the colliders along the
       * gradient of the potential, r */
      nact =
          tide_contacts_active(m, w->skip, o->colliders, nc, x, r, w->ceps, -DBL_MIN, w->na, w->Q);
      if (nact) tide_contacts_tangential(m, w->na, w->Q, r);
    }
    st->contacts = nact;
    double rn = norm2(N, r), ref = fmax(fint, fext);
    double res = rn > 0 ? rn / fmax(ref, 1e-300) : 0;
    int project = o->project, solved = 0;
    for (int attempt = 0; attempt < 2 && !solved; attempt++) {
      if ((s = tangent(m, o, w, lam, x, project, nact))) return s;
      for (int64_t q = 0; q < N; q++)
        rt[q] = -r[q];
      s = factor_solve(w, o, rt, p);
      if (s && s != TIDE_ENOTSPD && s != TIDE_ESINGULAR) return s;
      if (!s) {
        for (int64_t q = 0; q < N; q++)
          if (w->fixed[q]) p[q] = 0;
        if (nact) tide_contacts_tangential(m, w->na, w->Q, p);
        /* a descent direction of the potential (conservative loads) */
        solved = !cons || tide_dot(N, r, p) < 0 || rn == 0;
      }
      if (!solved && !project) {
        project = 1; /* the exact Hessian is not positive definite here */
        st->projected++;
      } else if (!solved) {
        if (s)
          return tide_fail(s,
                           "load step %d, Newton iteration %d: the stiffness matrix is singular "
                           "(free rigid motions? pin nodes or fix degrees of freedom)",
                           k, it + 1);
        return TIDE_OK; /* no descent direction even projected: not converged */
      }
    }
    st->iterations++;
    double inc = rel_increment(m, w, x);
    /* the residual at its rounding floor: Newton corrections far below
     * xtol that no longer reduce it (a tol below what the arithmetic
     * resolves); stop, not converged */
    if (inc <= 1e-3 * o->xtol && it >= 3 && res > 0.5 * res_prev[0] && res > 0.5 * res_prev[1]) {
      st->residual = res;
      st->increment = inc;
      st->stagnated = 1;
      return TIDE_OK;
    }
    res_prev[1] = res_prev[0];
    res_prev[0] = res;
    st->residual = res;
    st->increment = inc;
    if (res <= o->tol && inc <= o->xtol) {
      for (int64_t q = 0; q < N; q++)
        x[q] += p[q];
      project_contacts(m, o, w, x);
      *conv = 1;
      return TIDE_OK;
    }
    /* backtracking (Armijo) line search on the potential, or on |r|^2 for
     * follower loads; along the arc projected onto the colliders */
    double E0 = 0, E1 = 0, gp = tide_dot(N, r, p);
    double Es = 0, Es1 = 0;
    if (cons && (s = potential(m, w, lam, x, &E0, &Es))) return s;
    double alpha = 1;
    int h = 0, ok = 0;
    for (; h < 30 && !ok; h++, alpha *= 0.5) {
      for (int64_t q = 0; q < N; q++)
        xt[q] = x[q] + alpha * p[q];
      double dec = alpha * gp;
      if (project_contacts(m, o, w, xt)) {
        double gd = 0;
        for (int64_t q = 0; q < N; q++)
          gd += r[q] * (xt[q] - x[q]);
        dec = fmin(gd, 0);
      }
      int lost = 0; /* the potential's change is below its rounding */
      if (cons) {
        if ((s = potential(m, w, lam, xt, &E1, &Es1))) return s;
        ok = isfinite(E1) && E1 <= E0 + 1e-4 * dec;
        lost = isfinite(E1) && fabs(E1 - E0) <= 1e-11 * fmax(Es, Es1);
      }
      if (!ok && (!cons || (h == 0 && lost))) {
        /* follower loads; or near the solution, where the potential no
         * longer resolves the decrease: the residual norm decides */
        double fi2, fe2;
        if ((s = residual(m, o, w, lam, xt, rt, &fi2, &fe2))) return s;
        if (nact) tide_contacts_tangential(m, w->na, w->Q, rt);
        double rn1 = norm2(N, rt);
        ok = isfinite(rn1) && rn1 <= (1 - 1e-4 * alpha) * rn;
      }
    }
    st->line_search += h - 1;
    if (!ok) return TIDE_OK; /* no decrease found: not converged */
    memcpy(x, xt, (size_t)N * sizeof(double));
    if (tide_interrupted()) return tide_fail(TIDE_EINTR, "static solve interrupted");
  }
  return TIDE_OK; /* iteration limit: not converged */
}

/* the secant predictor of a load step: x + (x - x_prev) at the free
 * degrees of freedom, taken when it lowers the potential (the residual norm
 * for follower loads) */
static int predict(tide_tetmesh *m, const tide_static_opts *o, static_work *w, double lam,
                   double *x) {
  int64_t N = w->N;
  int s;
  for (int64_t q = 0; q < N; q++)
    w->xt[q] = w->fixed[q] ? x[q] : 2 * x[q] - w->xp[q];
  project_contacts(m, o, w, w->xt);
  double a, b, sa, sb;
  if (!w->lu) {
    if ((s = potential(m, w, lam, x, &a, &sa)) || (s = potential(m, w, lam, w->xt, &b, &sb)))
      return s;
  } else {
    double f1, f2;
    if ((s = residual(m, o, w, lam, x, w->r, &f1, &f2))) return s;
    a = norm2(N, w->r);
    if ((s = residual(m, o, w, lam, w->xt, w->r, &f1, &f2))) return s;
    b = norm2(N, w->r);
  }
  memcpy(w->xp, x, (size_t)N * sizeof(double)); /* the previous step's solution */
  if (isfinite(b) && b < a) memcpy(x, w->xt, (size_t)N * sizeof(double));
  return TIDE_OK;
}

int tide_solid_solve_static(tide_tetmesh *m, const tide_static_opts *o, tide_static_stats *st) {
  memset(st, 0, sizeof *st);
  double t0 = tide_wtime();
  if (!m->fem) return tide_fail(TIDE_EINVAL, "static solve: the mesh has no material");
  if (o->steps < 1) return tide_fail(TIDE_EINVAL, "static solve: steps must be >= 1");
  if (o->maxit < 1) return tide_fail(TIDE_EINVAL, "static solve: maxit must be >= 1");
  if (!(o->tol >= 0) || !(o->xtol >= 0))
    return tide_fail(TIDE_EINVAL, "static solve: tol and xtol must be >= 0");
  for (int i = 0; i < o->ncolliders; i++)
    if (o->colliders[i]->dim != m->dim)
      return tide_fail(TIDE_EINVAL, "static solve: collider %d is %dD, the mesh %dD", i + 1,
                       o->colliders[i]->dim, m->dim);
  for (int k = 0; k < 3; k++)
    if (!isfinite(o->body[k]))
      return tide_fail(TIDE_ENONFINITE, "static solve: body force not finite");
  int s = check_loads(m, o->loads, o->nloads);
  if (s) return s;
  tide_fem *f = m->fem;
  if (tide_array_nonfinite(m->x) + tide_array_nonfinite(f->force) + tide_array_nonfinite(f->target))
    return tide_fail(TIDE_ENONFINITE, "static solve: positions, forces or targets contain NaN/Inf");
  static_work *w = NULL;
  if ((s = sw_new(m, o, &w))) return s;
  if (w->lu && o->ncolliders) {
    sw_free(w);
    return tide_fail(TIDE_EINVAL,
                     "static solve: follower pressure together with colliders is not supported");
  }
  int d = m->dim;
  int64_t N = w->N;
  double *x = TIDE_F64P(m->x);
  const double *tg = TIDE_F64P(f->target), *mass = TIDE_F64P(f->mass),
               *vol = m->vol ? TIDE_F64P(m->vol) : NULL;
  const uint8_t *pin = TIDE_U8P(f->pinned);
  memcpy(w->xs, x, (size_t)N * sizeof(double));
  memcpy(w->xp, x, (size_t)N * sizeof(double));
  /* contacts skip the nodes fixed in every component (a node fixed in
   * some, on a symmetry plane normal to the collider, still rests on it) */
  for (int64_t i = 0; i < m->nv; i++) {
    int nf = 0;
    for (int k = 0; k < d; k++) {
      int64_t q = i * d + k;
      w->fixed[q] = pin[i] || (o->fixed && o->fixed[q]);
      nf += w->fixed[q];
    }
    w->skip[i] = nf == d;
  }
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  const double *X = TIDE_F64P(m->rest);
  for (int64_t q = 0; q < N; q++)
    lo[q % d] = fmin(lo[q % d], X[q]), hi[q % d] = fmax(hi[q % d], X[q]);
  w->ceps = 0;
  for (int k = 0; k < d; k++)
    w->ceps = fmax(w->ceps, 1e-10 * (hi[k] - lo[k]));
  int64_t nfix = 0;
  for (int64_t q = 0; q < N; q++)
    nfix += w->fixed[q];
  /* a body held by frictionless colliders alone keeps rigid motions along
   * them (a block on the ground slides freely): the stiffness is singular
   * there, the equilibrium is not unique and Newton corrections drift along
   * those motions.  A diagonal 1e-8 of the stiffness's mean picks the
   * solution nearest the start (the gradient has no component along them)
   * and barely changes the others. */
  if (o->ncolliders && nfix < d * (d + 1) / 2) w->reg = 1e-8;
  if (!o->ncolliders && nfix < d * (d + 1) / 2) {
    sw_free(w);
    return tide_fail(
        TIDE_EINVAL,
        "static solve: %lld degrees of freedom are fixed, but a free body has %d rigid "
        "motions: pin nodes (m:pin), fix components (fix =) or add colliders",
        (long long)nfix, d * (d + 1) / 2);
  }
  /* the dead loads: m.force, gravity, body force, surface loads on the
   * reference surface */
  memcpy(w->fd, TIDE_F64P(f->force), (size_t)N * sizeof(double));
  const int32_t *el = TIDE_I32P(m->elem);
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < d; k++)
      if (o->gravity) w->fd[i * d + k] += mass[i] * f->gravity[k];
  for (int64_t e = 0; e < tide_fem_nvol(m); e++) /* body force on the volume elements */
    for (int a = 0; a < m->nper; a++)
      for (int k = 0; k < d; k++)
        w->fd[(int64_t)el[e * m->nper + a] * d + k] += o->body[k] * vol[e] / m->nper;
  add_surface_forces(m, o->loads, o->nloads, NULL, 1, 0, 1, w->fd);

  int conv = 1;
  for (int k = 1; k <= o->steps && conv; k++) {
    double lam = (double)k / o->steps;
    for (int64_t q = 0; q < N; q++)
      if (w->fixed[q])
        x[q] = w->xfix[q] = pin[q / d] ? w->xs[q] + lam * (tg[q] - w->xs[q]) : w->xs[q];
    project_contacts(m, o, w, x);
    /* from the second step on, the secant predictor x + (x - x_prev) (the
     * path's tangent; a slender body's rotation is not a linearized
     * stretch) where it is the better start */
    if (k > 1 && (s = predict(m, o, w, lam, x))) break;
    s = newton_step(m, o, w, k, lam, x, &conv, st);
    if (s) break;
    if (conv)
      st->steps = k;
    else
      st->failed_step = k;
  }
  st->converged = !s && conv;
  if (!s) tide_array_fill(m->v, 0);
  sw_free(w);
  if (!s && (tide_array_nonfinite(m->x)))
    s = tide_fail(TIDE_ENONFINITE, "static solve produced NaN/Inf positions");
  st->seconds = tide_wtime() - t0;
  return s;
}
