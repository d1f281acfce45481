/* viscosity.c -- per-component implicit diffusion [Li] and the variational
 * viscosity solve with volume fractions [BB08] (see viscosity.h). */
#include "liquid/viscosity.h"
#include "liquid/periodic.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

/* extents of the distinct faces of axis a (periodic axes: n[d]) */
static void canon_dims(const tide_grid *g, const int per[3], int a, int cd[3]) {
  tide_grid_face_dims(g, a, cd);
  for (int d = 0; d < g->dim; d++)
    if (per[d]) cd[d] = g->n[d];
}

/* face index I (axis a) shifted by s along d, canonical; 0 if it exists */
static inline int face_shift(const tide_grid *g, const int per[3], int a, const int I[3], int d, int s,
                             int J[3]) {
  J[0] = I[0];
  J[1] = I[1];
  J[2] = I[2];
  int e = g->n[d] + (d == a && !per[d]);
  J[d] = I[d] + s;
  if (per[d]) {
    J[d] = tide_periodic_index(J[d], g->n[d], 1);
    return 0;
  }
  return J[d] >= 0 && J[d] < e ? 0 : -1;
}

/* a face on a non-periodic wall of its own axis, or next to a SOLID cell */
static inline int face_closed(const tide_grid *g, const int per[3], const uint8_t *lab, int a,
                              const int I[3]) {
  if (!per[a] && (I[a] == 0 || I[a] == g->n[a])) return 1;
  if (!lab) return 0;
  int lo[3] = {I[0], I[1], I[2]};
  lo[a] = tide_periodic_index(I[a] - 1, g->n[a], per[a]);
  int hi = I[a] < g->n[a] ? I[a] : 0; /* periodic duplicate: face n is face 0 */
  int h[3] = {I[0], I[1], I[2]};
  h[a] = hi;
  return lab[tide_grid_idx(g, lo[0], lo[1], lo[2])] == TIDE_CELL_SOLID ||
         lab[tide_grid_idx(g, h[0], h[1], h[2])] == TIDE_CELL_SOLID;
}

/* copy face 0 onto face n[a] on a periodic axis a */
static void sync_axis(const tide_grid *g, const int per[3], int a, double *u) {
  if (!per[a]) return;
  int e[3];
  tide_grid_face_dims(g, a, e);
  int b = a == 0 ? 1 : 0, c = 3 - a - b;
  for (int i = 0; i < e[b]; i++)
    for (int j = 0; j < e[c]; j++) {
      int I0[3], I1[3];
      I0[a] = 0;
      I1[a] = g->n[a];
      I0[b] = I1[b] = i;
      I0[c] = I1[c] = j;
      u[tide_grid_fidx(g, a, I1[0], I1[1], I1[2])] = u[tide_grid_fidx(g, a, I0[0], I0[1], I0[2])];
    }
}

static int check_periodic(const tide_grid *g, const int per[3]) {
  for (int d = 0; d < 3; d++) {
    if (!per[d]) continue;
    if (d >= g->dim) return tide_fail(TIDE_EINVAL, "periodic axis %d is not an axis of a %dD grid", d + 1, g->dim);
    if (g->n[d] < 2) return tide_fail(TIDE_EINVAL, "a periodic axis needs at least 2 cells");
  }
  return TIDE_OK;
}

static int check_labels(const tide_grid *g, const tide_array *labels) {
  int st;
  if (!labels) return TIDE_OK;
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  const uint8_t *lab = TIDE_U8P(labels);
  int64_t nc = tide_grid_ncells(g);
  for (int64_t q = 0; q < nc; q++)
    if (lab[q] > TIDE_CELL_SOLID) return tide_fail(TIDE_EINVAL, "labels must be 0 (air), 1 (liquid) or 2 (solid)");
  return TIDE_OK;
}

static void add_stats(tide_viscosity_stats *s, const tide_solve_stats *ss, int64_t n) {
  s->iterations += ss->iterations;
  if (ss->residual > s->residual) s->residual = ss->residual;
  s->unknowns += n;
}

/* ------------------------------------------------------ solver workspace */

struct tide_spd_cache {
  int32_t *key; /* the unknown numbering the pattern was built for */
  int64_t nkey;
  int precond;
  tide_triplets *T;
  tide_csr *A;
  tide_krylov *K;
  double *b, *x;
  int64_t cap;
  int64_t builds, refills;
};

#define TIDE_VISC_SLOTS 16

struct tide_viscosity_solver {
  tide_spd_cache slot[TIDE_VISC_SLOTS];
};

static void cache_drop_matrix(tide_spd_cache *C) {
  tide_krylov_free(C->K);
  tide_csr_free(C->A);
  C->K = NULL;
  C->A = NULL;
}

static void cache_release(tide_spd_cache *C) {
  cache_drop_matrix(C);
  tide_triplets_free(C->T);
  tide_free(C->key, (size_t)C->nkey * sizeof(int32_t));
  tide_free(C->b, (size_t)C->cap * sizeof(double));
  tide_free(C->x, (size_t)C->cap * sizeof(double));
  int64_t b = C->builds, r = C->refills;
  memset(C, 0, sizeof *C);
  C->builds = b;
  C->refills = r;
}

int tide_viscosity_solver_new(tide_viscosity_solver **out) {
  *out = tide_calloc(sizeof **out);
  return *out ? TIDE_OK : TIDE_ENOMEM;
}

void tide_viscosity_solver_free(tide_viscosity_solver *S) {
  if (!S) return;
  for (int i = 0; i < TIDE_VISC_SLOTS; i++) cache_release(&S->slot[i]);
  tide_free(S, sizeof *S);
}

int64_t tide_viscosity_solver_bytes(const tide_viscosity_solver *S) {
  int64_t b = sizeof *S;
  for (int i = 0; i < TIDE_VISC_SLOTS; i++) {
    const tide_spd_cache *C = &S->slot[i];
    b += C->nkey * (int64_t)sizeof(int32_t) + 2 * C->cap * (int64_t)sizeof(double);
    if (C->A) b += C->A->nzmax * (int64_t)(sizeof(int) + sizeof(double)) + (C->A->nrows + 1) * (int64_t)sizeof(int);
  }
  return b;
}

void tide_viscosity_solver_counts(const tide_viscosity_solver *S, int64_t *builds, int64_t *refills) {
  *builds = *refills = 0;
  for (int i = 0; i < TIDE_VISC_SLOTS; i++) {
    *builds += S->slot[i].builds;
    *refills += S->slot[i].refills;
  }
}

tide_spd_cache *tide_viscosity_solver_slot(tide_viscosity_solver *S, int which) {
  if (!S || which < 0 || which >= TIDE_VISC_SLOTS) return NULL;
  return &S->slot[which];
}

/* Get C ready for a system of n unknowns numbered by the key arrays: *reuse
 * = 1 when the stored pattern was built for the same numbering (the triplet
 * list will then be refilled in the same order), 0 otherwise (stored matrix
 * dropped).  The triplet list is cleared; b and x have room for n. */
static int cache_prepare(tide_spd_cache *C, int nparts, int32_t *const *parts, const int64_t *lens, int64_t n,
                         int precond, int *reuse) {
  int64_t total = 0;
  for (int i = 0; i < nparts; i++) total += lens[i];
  int same = C->A && C->nkey == total && C->precond == precond && C->A->nrows == n;
  if (same) {
    int64_t off = 0;
    for (int i = 0; i < nparts && same; i++) {
      same = !memcmp(C->key + off, parts[i], (size_t)lens[i] * sizeof(int32_t));
      off += lens[i];
    }
  }
  *reuse = same;
  if (!same) {
    cache_drop_matrix(C);
    if (C->nkey != total) {
      tide_free(C->key, (size_t)C->nkey * sizeof(int32_t));
      C->nkey = 0;
      if (!(C->key = tide_alloc((size_t)(total > 0 ? total : 1) * sizeof(int32_t)))) return TIDE_ENOMEM;
      C->nkey = total;
    }
    int64_t off = 0;
    for (int i = 0; i < nparts; i++) {
      memcpy(C->key + off, parts[i], (size_t)lens[i] * sizeof(int32_t));
      off += lens[i];
    }
    C->precond = precond;
  }
  if (n > C->cap) {
    tide_free(C->b, (size_t)C->cap * sizeof(double));
    tide_free(C->x, (size_t)C->cap * sizeof(double));
    C->cap = 0;
    C->b = tide_alloc((size_t)n * sizeof(double));
    C->x = tide_alloc((size_t)n * sizeof(double));
    if (!C->b || !C->x) {
      cache_release(C);
      return TIDE_ENOMEM;
    }
    C->cap = n;
  }
  int st;
  if (same && C->T) {
    tide_triplets_clear(C->T); /* keeps its capacity */
  } else {                     /* the list's dimensions follow n */
    tide_triplets_free(C->T);
    C->T = NULL;
    if ((st = tide_triplets_new((int)n, (int)n, &C->T))) return st;
  }
  return TIDE_OK;
}

/* Build or refill the matrix from C->T, refresh the preconditioner, solve
 * A x = b (x holds the initial guess). */
static int cache_solve(tide_spd_cache *C, int reuse, const tide_solve_opts *so, tide_solve_stats *ss) {
  int st;
  if (reuse) {
    if ((st = tide_csr_set_tripletlist_values(C->A, C->T)) || (st = tide_krylov_refactor(C->K, C->A))) {
      cache_drop_matrix(C);
      return st;
    }
    C->refills++;
  } else {
    if ((st = tide_csr_from_tripletlist(C->T, TIDE_CSR_GENERAL, &C->A)) ||
        (st = tide_krylov_new(C->A, TIDE_KRYLOV_PCG, C->precond, &C->K))) {
      cache_drop_matrix(C);
      return st;
    }
    C->builds++;
  }
  st = tide_krylov_solve(C->K, C->A, C->b, C->x, so, ss);
  return st;
}

/* --------------------------------------------------- per-axis face solve */

int tide_face_helmholtz(const tide_grid *g, const int per[3], int a, double *u, const uint8_t *cls,
                        const double *D, double c, const double *r, int wall,
                        const tide_solve_opts *so, int precond, tide_spd_cache *cache,
                        tide_viscosity_stats *stats) {
  int st;
  if (!(c >= 0) || !isfinite(c)) return tide_fail(TIDE_EINVAL, "coupling coefficient must be finite and >= 0");
  int fd[3], cd[3];
  tide_grid_face_dims(g, a, fd);
  canon_dims(g, per, a, cd);
  int64_t nf = (int64_t)fd[0] * fd[1] * fd[2];
  int32_t *row = tide_alloc((size_t)nf * sizeof(int32_t));
  if (!row) return TIDE_ENOMEM;
  int64_t n = 0;
  for (int64_t f = 0; f < nf; f++) row[f] = -1;
  for (int i = 0; i < cd[0]; i++)
    for (int j = 0; j < cd[1]; j++)
      for (int k = 0; k < cd[2]; k++) {
        int64_t f = tide_grid_fidx(g, a, i, j, k);
        if (cls[f] == TIDE_FACE_UNKNOWN) row[f] = (int32_t)n++;
      }
  if (n == 0 || n >= INT32_MAX) {
    tide_free(row, (size_t)nf * sizeof(int32_t));
    return n == 0 ? TIDE_OK : tide_fail(TIDE_EINVAL, "too many unknowns");
  }
  tide_spd_cache local;
  memset(&local, 0, sizeof local);
  tide_spd_cache *C = cache ? cache : &local;
  int reuse;
  int32_t hdr[6] = {a, g->n[0], g->n[1], g->n[2], per[0] * 1 + per[1] * 2 + per[2] * 4, g->dim};
  int32_t *parts[2] = {hdr, row};
  int64_t lens[2] = {6, nf};
  if ((st = cache_prepare(C, 2, parts, lens, n, precond, &reuse))) goto done;
  tide_triplets *T = C->T;
  double *b = C->b, *x = C->x;
  int noslip = wall == TIDE_WALL_NOSLIP, dim = g->dim;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < cd[0]; i++)
    for (int j = 0; j < cd[1]; j++)
      for (int k = 0; k < cd[2]; k++) {
        int I[3] = {i, j, k};
        int64_t f = tide_grid_fidx(g, a, i, j, k);
        int rf = row[f];
        if (rf < 0) continue;
        double diag = D ? D[f] : 1.0, rhs = r ? r[f] : u[f];
        for (int d = 0; d < dim; d++)
          for (int s = -1; s <= 1; s += 2) {
            int J[3];
            if (face_shift(g, per, a, I, d, s, J)) {
              if (d != a && noslip) diag += 2 * c; /* wall at rest at dx/2 */
              continue;
            }
            int64_t h = tide_grid_fidx(g, a, J[0], J[1], J[2]);
            if (row[h] >= 0) {
              diag += c;
              tide_triplets_add(T, rf, row[h], -c);
            } else if (cls[h] == TIDE_FACE_DIRICHLET || (cls[h] == TIDE_FACE_WALL && d == a)) {
              diag += c;
              rhs += c * u[h];
            } else if (cls[h] == TIDE_FACE_WALL && noslip) {
              diag += 2 * c;
              rhs += 2 * c * u[h];
            }
          }
        tide_triplets_add(T, rf, rf, diag);
        b[rf] = rhs;
        x[rf] = u[f];
      }
  tide_solve_opts o = *so;
  o.use_x0 = 1;
  o.nullspace = 0;
  tide_solve_stats ss;
  st = cache_solve(C, reuse, &o, &ss);
  add_stats(stats, &ss, n);
  if (st) goto done;
#pragma omp parallel for schedule(static)
  for (int64_t f = 0; f < nf; f++)
    if (row[f] >= 0) u[f] = x[row[f]];
  sync_axis(g, per, a, u);
done:
  if (C == &local) cache_release(&local);
  tide_free(row, (size_t)nf * sizeof(int32_t));
  return st;
}

/* ------------------------------------------------------- diffusion [Li] */

tide_diffuse_opts tide_diffuse_opts_default(void) {
  tide_diffuse_opts o;
  memset(&o, 0, sizeof o);
  o.wall = TIDE_WALL_NOSLIP;
  o.tol = 1e-8;
  return o;
}

int tide_liquid_diffuse(tide_mac *u, const tide_diffuse_opts *o, tide_viscosity_stats *stats) {
  int st;
  memset(stats, 0, sizeof *stats);
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if (!(o->nu >= 0) || !isfinite(o->nu)) return tide_fail(TIDE_EINVAL, "nu must be finite and >= 0");
  if (!(o->dt > 0) || !isfinite(o->dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (o->maxit < 0) return tide_fail(TIDE_EINVAL, "maxit must be >= 0");
  if (o->wall != TIDE_WALL_NOSLIP && o->wall != TIDE_WALL_FREESLIP) return tide_fail(TIDE_EINVAL, "unknown wall condition");
  if ((st = check_periodic(g, o->periodic)) || (st = check_labels(g, o->labels))) return st;
  for (int a = 0; a < g->dim; a++)
    if (tide_array_nonfinite(u->u[a])) return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
  if (o->nu == 0) return TIDE_OK;
  const uint8_t *lab = o->labels ? TIDE_U8P(o->labels) : NULL;
  const int *per = o->periodic;
  double c = o->nu * o->dt / (g->dx * g->dx);
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = o->tol;
  if (o->maxit > 0) so.maxit = o->maxit;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t nf = (int64_t)fd[0] * fd[1] * fd[2];
    uint8_t *cls = tide_alloc((size_t)nf);
    if (!cls) return TIDE_ENOMEM;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int I[3] = {i, j, k};
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          if (per[a] && I[a] == g->n[a]) I[a] = 0;
          if (face_closed(g, per, lab, a, I)) {
            cls[f] = TIDE_FACE_WALL;
            continue;
          }
          int liquid = 1;
          if (lab) {
            int lo[3] = {I[0], I[1], I[2]};
            lo[a] = tide_periodic_index(I[a] - 1, g->n[a], per[a]);
            liquid = lab[tide_grid_idx(g, lo[0], lo[1], lo[2])] == TIDE_CELL_LIQUID ||
                     lab[tide_grid_idx(g, I[0], I[1], I[2])] == TIDE_CELL_LIQUID;
          }
          cls[f] = liquid ? TIDE_FACE_UNKNOWN : TIDE_FACE_NEUMANN;
        }
    st = tide_face_helmholtz(g, per, a, TIDE_F64P(u->u[a]), cls, NULL, c, NULL, o->wall, &so,
                             TIDE_PRECOND_MIC0, tide_viscosity_solver_slot(o->solver, a), stats);
    tide_free(cls, (size_t)nf);
    if (st) return st;
  }
  return TIDE_OK;
}

/* ---------------------------------------------------- volume fractions */

int tide_liquid_fractions(const tide_grid *g, const double *phi, const int per[3],
                          const double off[3], const int ext[3], int sub, double *out) {
  if (sub < 1 || sub > 16) return tide_fail(TIDE_EINVAL, "subdivision must be in [1, 16]");
  int st;
  if ((st = check_periodic(g, per))) return st;
  tide_lattice L;
  tide_lattice_cells(g, phi, &L);
  int np[3] = {g->n[0], g->n[1], g->n[2]};
  int dim = g->dim;
  int s2 = dim == 3 ? sub : 1;
  double inv = 1.0 / ((double)sub * sub * s2);
  int64_t n01 = (int64_t)ext[0] * ext[1];
#pragma omp parallel for schedule(static)
  for (int64_t ij = 0; ij < n01; ij++) {
    int i = (int)(ij / ext[1]), j = (int)(ij % ext[1]);
    for (int k = 0; k < ext[2]; k++) {
      int idx[3] = {i, j, k};
      double c[3];
      for (int d = 0; d < 3; d++) c[d] = g->origin[d] + (idx[d] + off[d]) * g->dx;
      int cnt = 0;
      for (int p = 0; p < sub; p++)
        for (int q = 0; q < sub; q++)
          for (int r = 0; r < s2; r++) {
            int m[3] = {p, q, r};
            double x[3];
            int inside = 1;
            for (int d = 0; d < 3; d++) {
              x[d] = d < dim ? c[d] + ((m[d] + 0.5) / sub - 0.5) * g->dx : c[d];
              if (d < dim && !per[d] && (x[d] < g->origin[d] || x[d] > g->origin[d] + g->n[d] * g->dx))
                inside = 0; /* outside the domain walls: not liquid */
            }
            if (inside && tide_periodic_lattice_interp(&L, per, np, x) < 0) cnt++;
          }
      out[ij * ext[2] + k] = cnt * inv;
    }
  }
  return TIDE_OK;
}

/* --------------------------------------------------- variational [BB08] */

tide_viscosity_opts tide_viscosity_opts_default(void) {
  tide_viscosity_opts o;
  memset(&o, 0, sizeof o);
  o.rho = 1000;
  o.wall = TIDE_WALL_NOSLIP;
  o.subdivision = 2;
  o.vol_min = 1e-3;
  o.tol = 1e-8;
  o.precond = TIDE_PRECOND_IC0;
  return o;
}

/* pair index of axes p < q: (0,1) -> 0, (0,2) -> 1, (1,2) -> 2 */
static inline int pair_of(int p, int q) { return p + q - 1; }

typedef struct vctx {
  const tide_grid *g;
  const int *per;
  int dim, noslip;
  const uint8_t *lab;
  double *Vc, *Vf[3], *Ve[3];    /* fractions */
  double *wc, *we[3];            /* sample weights mu V (scaled below) */
  int eext[3][3];                /* edge array extents per pair */
  int32_t *row[3];               /* unknown of each face or -1 */
  int64_t off[3];                /* global offset of axis a */
} vctx;

typedef struct sface {
  int axis;
  int64_t f;   /* face index */
  double coef; /* in 1/dx units */
} sface;

/* faces of the shear sample (p, q) at edge E (canonical); returns the count
 * (0: dropped sample) */
static int edge_faces(const vctx *v, int p, int q, const int E[3], sface out[4]) {
  const tide_grid *g = v->g;
  int n = 0;
  int axes[2] = {p, q};
  for (int t = 0; t < 2; t++) {
    int a = axes[t], b = axes[1 - t]; /* u_a differenced along b */
    int hiI[3] = {E[0], E[1], E[2]}, loI[3] = {E[0], E[1], E[2]};
    int hi_ok = 1, lo_ok = 1;
    if (v->per[b]) {
      hiI[b] = tide_periodic_index(E[b], g->n[b], 1);
      loI[b] = tide_periodic_index(E[b] - 1, g->n[b], 1);
    } else {
      hi_ok = E[b] <= g->n[b] - 1;
      loI[b] = E[b] - 1;
      lo_ok = E[b] >= 1;
    }
    if (v->per[a]) { /* canonical index along a */
      hiI[a] = tide_periodic_index(E[a], g->n[a], 1);
      loI[a] = hiI[a];
    }
    if (!hi_ok || !lo_ok) {
      if (!v->noslip) return 0; /* free slip: no shear stress on the wall */
      /* ghost -u of the face inside: one face with coefficient +-2 */
      if (hi_ok) out[n++] = (sface){a, tide_grid_fidx(g, a, hiI[0], hiI[1], hiI[2]), 2.0};
      else if (lo_ok) out[n++] = (sface){a, tide_grid_fidx(g, a, loI[0], loI[1], loI[2]), -2.0};
      continue;
    }
    out[n++] = (sface){a, tide_grid_fidx(g, a, hiI[0], hiI[1], hiI[2]), 1.0};
    out[n++] = (sface){a, tide_grid_fidx(g, a, loI[0], loI[1], loI[2]), -1.0};
  }
  return n;
}

static inline int64_t edge_idx(const vctx *v, int pr, const int E[3]) {
  return ((int64_t)E[0] * v->eext[pr][1] + E[1]) * v->eext[pr][2] + E[2];
}

static inline int is_unknown(const vctx *v, int a, int64_t f) { return v->row[a][f] >= 0; }

int tide_liquid_viscosity(tide_mac *u, const tide_viscosity_opts *o, tide_viscosity_stats *stats) {
  int st;
  memset(stats, 0, sizeof *stats);
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  int dim = g->dim;
  if (!o->mu_cells && (!(o->mu >= 0) || !isfinite(o->mu))) return tide_fail(TIDE_EINVAL, "mu must be finite and >= 0");
  if (!(o->rho > 0) || !isfinite(o->rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  if (!(o->dt > 0) || !isfinite(o->dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (o->maxit < 0) return tide_fail(TIDE_EINVAL, "maxit must be >= 0");
  if (o->subdivision < 1 || o->subdivision > 16) return tide_fail(TIDE_EINVAL, "subdivision must be in [1, 16]");
  if (!(o->vol_min > 0 && o->vol_min <= 1)) return tide_fail(TIDE_EINVAL, "vol_min must be in (0, 1]");
  if (o->wall != TIDE_WALL_NOSLIP && o->wall != TIDE_WALL_FREESLIP) return tide_fail(TIDE_EINVAL, "unknown wall condition");
  if (o->precond != TIDE_PRECOND_NONE && o->precond != TIDE_PRECOND_JACOBI && o->precond != TIDE_PRECOND_IC0)
    return tide_fail(TIDE_EINVAL, "precond must be none, jacobi or ic0 (the matrix is not an M-matrix)");
  if ((st = check_periodic(g, o->periodic)) || (st = check_labels(g, o->labels))) return st;
  if (o->phi) {
    if ((st = tide_grid_check_cells(g, o->phi, TIDE_F64, "phi"))) return st;
    if (tide_array_nonfinite(o->phi)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
  }
  if (o->mu_cells) {
    if ((st = tide_grid_check_cells(g, o->mu_cells, TIDE_F64, "mu"))) return st;
    double lo, hi;
    tide_array_minmax(o->mu_cells, &lo, &hi);
    if (!(lo >= 0) || !isfinite(hi)) return tide_fail(TIDE_EINVAL, "mu must be finite and >= 0 in every cell");
  }
  for (int a = 0; a < dim; a++)
    if (tide_array_nonfinite(u->u[a])) return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
  if (!o->mu_cells && o->mu == 0) return TIDE_OK;

  const int *per = o->periodic;
  const uint8_t *lab = o->labels ? TIDE_U8P(o->labels) : NULL;
  int64_t nc = tide_grid_ncells(g);
  vctx v;
  memset(&v, 0, sizeof v);
  v.g = g;
  v.per = per;
  v.dim = dim;
  v.noslip = o->wall == TIDE_WALL_NOSLIP;
  v.lab = lab;
  int64_t nfa[3] = {0, 0, 0}, nea[3] = {0, 0, 0};
  double *phi_lab = NULL;
  int64_t n = 0;
  tide_spd_cache local;
  memset(&local, 0, sizeof local);
  tide_spd_cache *cache = o->solver ? tide_viscosity_solver_slot(o->solver, 6) : &local;

  /* ---- allocations */
  v.Vc = tide_alloc((size_t)nc * sizeof(double));
  v.wc = tide_alloc((size_t)nc * sizeof(double));
  if (!v.Vc || !v.wc) {
    st = TIDE_ENOMEM;
    goto done;
  }
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    nfa[a] = (int64_t)fd[0] * fd[1] * fd[2];
    v.Vf[a] = tide_alloc((size_t)nfa[a] * sizeof(double));
    v.row[a] = tide_alloc((size_t)nfa[a] * sizeof(int32_t));
    if (!v.Vf[a] || !v.row[a]) {
      st = TIDE_ENOMEM;
      goto done;
    }
  }
  for (int p = 0; p < dim; p++)
    for (int q = p + 1; q < dim; q++) {
      int pr = pair_of(p, q);
      for (int d = 0; d < 3; d++) v.eext[pr][d] = g->n[d] + ((d == p || d == q) && !per[d]);
      nea[pr] = (int64_t)v.eext[pr][0] * v.eext[pr][1] * v.eext[pr][2];
      v.Ve[pr] = tide_alloc((size_t)nea[pr] * sizeof(double));
      v.we[pr] = tide_alloc((size_t)nea[pr] * sizeof(double));
      if (!v.Ve[pr] || !v.we[pr]) {
        st = TIDE_ENOMEM;
        goto done;
      }
    }

  /* ---- volume fractions */
  {
    const double *phi = o->phi ? TIDE_F64P(o->phi) : NULL;
    int sub = o->subdivision;
    if (!phi && lab) { /* voxel level set from the labels, sampled at 2 per axis */
      phi_lab = tide_alloc((size_t)nc * sizeof(double));
      if (!phi_lab) {
        st = TIDE_ENOMEM;
        goto done;
      }
      for (int64_t q = 0; q < nc; q++) phi_lab[q] = lab[q] == TIDE_CELL_LIQUID ? -1.0 : 1.0;
      phi = phi_lab;
      sub = 2;
    }
    if (phi) {
      double off[3] = {0.5, 0.5, 0.5};
      if ((st = tide_liquid_fractions(g, phi, per, off, g->n, sub, v.Vc))) goto done;
      for (int a = 0; a < dim; a++) {
        int fd[3];
        tide_grid_face_dims(g, a, fd);
        double offf[3] = {0.5, 0.5, 0.5};
        offf[a] = 0;
        if ((st = tide_liquid_fractions(g, phi, per, offf, fd, sub, v.Vf[a]))) goto done;
      }
      for (int p = 0; p < dim; p++)
        for (int q = p + 1; q < dim; q++) {
          int pr = pair_of(p, q);
          double offe[3] = {0.5, 0.5, 0.5};
          offe[p] = offe[q] = 0;
          if ((st = tide_liquid_fractions(g, phi, per, offe, v.eext[pr], sub, v.Ve[pr]))) goto done;
        }
    } else {
      for (int64_t q = 0; q < nc; q++) v.Vc[q] = 1;
      for (int a = 0; a < dim; a++)
        for (int64_t f = 0; f < nfa[a]; f++) v.Vf[a][f] = 1;
      /* edge boxes on a wall are half (corner: a quarter) inside the domain */
      for (int p = 0; p < dim; p++)
        for (int q = p + 1; q < dim; q++) {
          int pr = pair_of(p, q), *ext = v.eext[pr];
          for (int i = 0; i < ext[0]; i++)
            for (int j = 0; j < ext[1]; j++)
              for (int k = 0; k < ext[2]; k++) {
                int E[3] = {i, j, k};
                double f = 1;
                if (!per[p] && (E[p] == 0 || E[p] == g->n[p])) f *= 0.5;
                if (!per[q] && (E[q] == 0 || E[q] == g->n[q])) f *= 0.5;
                v.Ve[pr][edge_idx(&v, pr, E)] = f;
              }
        }
    }
  }

  /* ---- sample weights: mu V (cells); mu_e V_e (edges), 0 for dropped wall edges */
  {
    const double *mu = o->mu_cells ? TIDE_F64P(o->mu_cells) : NULL;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < nc; q++) v.wc[q] = (mu ? mu[q] : o->mu) * v.Vc[q];
    for (int p = 0; p < dim; p++)
      for (int q = p + 1; q < dim; q++) {
        int pr = pair_of(p, q), *ext = v.eext[pr];
#pragma omp parallel for schedule(static)
        for (int i = 0; i < ext[0]; i++)
          for (int j = 0; j < ext[1]; j++)
            for (int k = 0; k < ext[2]; k++) {
              int E[3] = {i, j, k};
              int64_t e = edge_idx(&v, pr, E);
              int wallp = !per[p] && (E[p] == 0 || E[p] == g->n[p]);
              int wallq = !per[q] && (E[q] == 0 || E[q] == g->n[q]);
              if ((wallp || wallq) && !v.noslip) {
                v.we[pr][e] = 0;
                continue;
              }
              double m = 0;
              int cnt = 0;
              for (int sp = -1; sp <= 0; sp++)
                for (int sq = -1; sq <= 0; sq++) {
                  int C[3] = {E[0], E[1], E[2]};
                  C[p] = tide_periodic_index(E[p] + sp, g->n[p], per[p]);
                  C[q] = tide_periodic_index(E[q] + sq, g->n[q], per[q]);
                  if (C[p] < 0 || C[q] < 0) continue;
                  m += mu ? mu[tide_grid_idx(g, C[0], C[1], C[2])] : o->mu;
                  cnt++;
                }
              v.we[pr][e] = cnt ? m / cnt * v.Ve[pr][e] : 0;
            }
      }
  }

  /* ---- unknowns: open faces with mass or a weighted incident sample */
  for (int a = 0; a < dim; a++) {
    int fd[3], cd[3];
    tide_grid_face_dims(g, a, fd);
    canon_dims(g, per, a, cd);
    for (int64_t f = 0; f < nfa[a]; f++) v.row[a][f] = -1;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < cd[0]; i++)
      for (int j = 0; j < cd[1]; j++)
        for (int k = 0; k < cd[2]; k++) {
          int I[3] = {i, j, k};
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          if (face_closed(g, per, lab, a, I)) continue;
          int use = v.Vf[a][f] > 0;
          /* cells beside the face */
          for (int s = -1; s <= 0 && !use; s++) {
            int C[3] = {i, j, k};
            C[a] = tide_periodic_index(I[a] + s, g->n[a], per[a]);
            if (C[a] >= 0 && v.wc[tide_grid_idx(g, C[0], C[1], C[2])] > 0) use = 1;
          }
          /* edges beside the face */
          for (int bb = 0; bb < dim && !use; bb++) {
            if (bb == a) continue;
            int p = a < bb ? a : bb, q = a < bb ? bb : a, pr = pair_of(p, q);
            for (int s = 0; s <= 1 && !use; s++) {
              int E[3] = {i, j, k};
              E[bb] = per[bb] ? tide_periodic_index(I[bb] + s, g->n[bb], 1) : I[bb] + s;
              if (v.we[pr][edge_idx(&v, pr, E)] > 0) use = 1;
            }
          }
          v.row[a][f] = use ? 0 : -1;
        }
    v.off[a] = n;
    for (int i = 0; i < cd[0]; i++)
      for (int j = 0; j < cd[1]; j++)
        for (int k = 0; k < cd[2]; k++) {
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          if (v.row[a][f] >= 0) v.row[a][f] = (int32_t)(n++ - v.off[a]); /* local number */
          if (n >= INT32_MAX) {
            st = tide_fail(TIDE_EINVAL, "too many unknowns");
            goto done;
          }
        }
  }
  stats->unknowns = n;
  if (n == 0) {
    st = TIDE_OK;
    goto done;
  }

  /* ---- assembly, row by row; every sample touching an unknown adds its
   * entries (zero weight too), so the pattern depends on the unknowns only
   * and a workspace can refill it */
  int reuse;
  {
    int32_t hdr[8] = {dim, g->n[0], g->n[1], g->n[2], per[0], per[1], per[2], o->wall};
    int32_t *parts[4] = {hdr, v.row[0], v.row[1], dim == 3 ? v.row[2] : hdr};
    int64_t lens[4] = {8, nfa[0], nfa[1], dim == 3 ? nfa[2] : 0};
    if ((st = cache_prepare(cache, 4, parts, lens, n, o->precond, &reuse))) goto done;
  }
  tide_triplets *T = cache->T;
  double *b = cache->b, *x = cache->x;
  {
    double kc = 2 * o->dt / (o->rho * g->dx * g->dx); /* cell samples: 2 dt/rho * (1/dx)^2 */
    double ke = o->dt / (o->rho * g->dx * g->dx);     /* edges: 2 dt/rho * 2 * (1/(2 dx))^2 */
    double vmin = o->vol_min;
    for (int a = 0; a < dim; a++) {
      int cd[3];
      canon_dims(g, per, a, cd);
      const double *ua = TIDE_F64P(u->u[a]);
#pragma omp parallel for schedule(static)
      for (int i = 0; i < cd[0]; i++)
        for (int j = 0; j < cd[1]; j++)
          for (int k = 0; k < cd[2]; k++) {
            int I[3] = {i, j, k};
            int64_t f = tide_grid_fidx(g, a, i, j, k);
            if (v.row[a][f] < 0) continue;
            int rf = (int)(v.off[a] + v.row[a][f]);
            double mass = v.Vf[a][f] > vmin ? v.Vf[a][f] : vmin;
            double rhs = mass * ua[f];
            tide_triplets_add(T, rf, rf, mass);
            /* samples touching f: list (weight, faces) */
            for (int s = -1; s <= 0; s++) { /* the cells below / above the face */
              int C[3] = {i, j, k};
              C[a] = tide_periodic_index(I[a] + s, g->n[a], per[a]);
              if (C[a] < 0 || (!per[a] && C[a] >= g->n[a])) continue;
              double w = kc * v.wc[tide_grid_idx(g, C[0], C[1], C[2])];
              int H[3] = {C[0], C[1], C[2]};
              H[a] = per[a] ? tide_periodic_index(C[a] + 1, g->n[a], 1) : C[a] + 1;
              sface sf[2] = {{a, tide_grid_fidx(g, a, C[0], C[1], C[2]), -1.0},
                             {a, tide_grid_fidx(g, a, H[0], H[1], H[2]), 1.0}};
              double gf = s == -1 ? 1.0 : -1.0; /* f is the high face of the cell below */
              for (int t = 0; t < 2; t++) {
                double val = w * gf * sf[t].coef;
                const double *uh = TIDE_F64P(u->u[sf[t].axis]);
                if (is_unknown(&v, sf[t].axis, sf[t].f))
                  tide_triplets_add(T, rf, (int)(v.off[sf[t].axis] + v.row[sf[t].axis][sf[t].f]), val);
                else
                  rhs -= val * uh[sf[t].f];
              }
            }
            for (int bb = 0; bb < dim; bb++) {
              if (bb == a) continue;
              int p = a < bb ? a : bb, q = a < bb ? bb : a, pr = pair_of(p, q);
              for (int s = 0; s <= 1; s++) {
                int E[3] = {i, j, k};
                E[bb] = per[bb] ? tide_periodic_index(I[bb] + s, g->n[bb], 1) : I[bb] + s;
                double w = ke * v.we[pr][edge_idx(&v, pr, E)];
                sface sf[4];
                int nsf = edge_faces(&v, p, q, E, sf);
                double gf = 0;
                for (int t = 0; t < nsf; t++)
                  if (sf[t].axis == a && sf[t].f == f) gf += sf[t].coef;
                if (gf == 0) continue;
                for (int t = 0; t < nsf; t++) {
                  double val = w * gf * sf[t].coef;
                  const double *uh = TIDE_F64P(u->u[sf[t].axis]);
                  if (is_unknown(&v, sf[t].axis, sf[t].f))
                    tide_triplets_add(T, rf, (int)(v.off[sf[t].axis] + v.row[sf[t].axis][sf[t].f]), val);
                  else
                    rhs -= val * uh[sf[t].f];
                }
              }
            }
            b[rf] = rhs;
            x[rf] = ua[f];
          }
    }
  }
  {
    tide_solve_opts so = tide_solve_opts_default();
    so.tol = o->tol;
    if (o->maxit > 0) so.maxit = o->maxit;
    so.use_x0 = 1;
    tide_solve_stats ss;
    st = cache_solve(cache, reuse, &so, &ss);
    stats->iterations = ss.iterations;
    stats->residual = ss.residual;
    if (st) goto done;
  }
  for (int a = 0; a < dim; a++) {
    double *ua = TIDE_F64P(u->u[a]);
#pragma omp parallel for schedule(static)
    for (int64_t f = 0; f < nfa[a]; f++)
      if (v.row[a][f] >= 0) ua[f] = x[v.off[a] + v.row[a][f]];
    sync_axis(g, per, a, ua);
  }
  st = TIDE_OK;

done:
  if (cache == &local) cache_release(&local);
  tide_free(phi_lab, (size_t)nc * sizeof(double));
  tide_free(v.Vc, (size_t)nc * sizeof(double));
  tide_free(v.wc, (size_t)nc * sizeof(double));
  for (int a = 0; a < 3; a++) {
    tide_free(v.Vf[a], (size_t)nfa[a] * sizeof(double));
    tide_free(v.row[a], (size_t)nfa[a] * sizeof(int32_t));
    tide_free(v.Ve[a], (size_t)nea[a] * sizeof(double));
    tide_free(v.we[a], (size_t)nea[a] * sizeof(double));
  }
  return st;
}
