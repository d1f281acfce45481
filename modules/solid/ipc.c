/*
 * ipc.c -- barrier contact among a mesh's primitives (see ipc.h).
 */
#include "solid/ipc.h"
#include "solid/barrier.h"
#include "solid/broadphase.h"
#include "solid/ccd.h"
#include "solid/distance.h"
#include "solid/friction.h"
#include "solid/small.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tide_ipc {
  double dhat, kappa;
  double xi; /* contact offset [m] (tide_ipc_set_offset): pairs rest at xi + O(dhat) */
  int64_t np, ne, nt;
  int32_t *pts;       /* (np) contact points: mesh nodes */
  int32_t *edges;     /* (ne, 2) */
  const int32_t *tri; /* (nt, 3) the mesh's boundary (not owned) */
  double *eps_x;      /* (ne) mollifier thresholds from the rest edges, per edge pair below */
  const double *rest;
  int64_t nce;
  int32_t *cedges; /* (nce, 2) the codimensional edges: rod segments, on no triangle */
  /* candidates: point-triangle (pt[2k] point index into pts, pt[2k+1] triangle),
   * edge-edge (ee[2k], ee[2k+1] edge indices), point-edge (pe[2k] point
   * index into pts, pe[2k+1] codimensional edge index) */
  int64_t npt, nee, npe, cap_pt, cap_ee, cap_pe;
  int32_t *pt, *ee, *pe;
  /* lagged friction between the pairs (tide_ipc_friction_lag) */
  int64_t nv;                /* mesh nodes */
  int64_t nfr, cap_fr;       /* frictional pairs */
  int32_t *fr_nodes;         /* (cap_fr, 4) */
  tide_friction_contact *fr; /* (cap_fr) */
  double *fr_node;           /* (nv) per node sum of mu lambda |w_a| of the lag */
  const double *fr_xn;       /* start of the step */
  double fr_eps_u, fr_dt2;
  /* 2D meshes: every pair is a point and a segment, evaluated in 3D on the
   * positions lifted to z = 0 (the 3D point-edge distance, its CCD and
   * friction there are the 2D ones; the z rows are dropped) */
  int dim;
  double *x3a, *x3b, *g3, *xn3; /* (nv, 3) scratch of the lift (2D only) */
  tide_ccd_work ccd;            /* the step bounds' CCD work so far (tide_ipc_ccd_work) */
};

static size_t lbytes(const tide_ipc *c) {
  return (size_t)(c->nv > 0 ? c->nv : 1) * 3 * sizeof(double);
}

/* x (nv, dim) as (nv, 3) positions: x itself in 3D, else lifted into buf */
static const double *lift(const tide_ipc *c, const double *x, double *buf) {
  if (c->dim == 3) return x;
  for (int64_t i = 0; i < c->nv; i++)
    buf[i * 3] = x[i * 2], buf[i * 3 + 1] = x[i * 2 + 1], buf[i * 3 + 2] = 0;
  return buf;
}

static size_t pbytes(int64_t n) { return (size_t)(n > 0 ? n : 1) * 2 * sizeof(int32_t); }

void tide_ipc_free(tide_ipc *c) {
  if (!c) return;
  tide_free(c->pts, (size_t)(c->np > 0 ? c->np : 1) * sizeof(int32_t));
  tide_free(c->edges, (size_t)(c->ne > 0 ? c->ne : 1) * 2 * sizeof(int32_t));
  tide_free(c->eps_x, (size_t)(c->ne > 0 ? c->ne : 1) * sizeof(double));
  tide_free(c->cedges, pbytes(c->nce));
  tide_free(c->pt, pbytes(c->cap_pt));
  tide_free(c->ee, pbytes(c->cap_ee));
  tide_free(c->pe, pbytes(c->cap_pe));
  tide_free(c->fr_nodes, (size_t)(c->cap_fr > 0 ? c->cap_fr : 1) * 4 * sizeof(int32_t));
  tide_free(c->fr, (size_t)(c->cap_fr > 0 ? c->cap_fr : 1) * sizeof(tide_friction_contact));
  tide_free(c->fr_node, (size_t)(c->nv > 0 ? c->nv : 1) * sizeof(double));
  if (c->dim == 2) {
    tide_free(c->x3a, lbytes(c));
    tide_free(c->x3b, lbytes(c));
    tide_free(c->g3, lbytes(c));
    tide_free(c->xn3, lbytes(c));
  }
  tide_free(c, sizeof *c);
}

size_t tide_ipc_bytes(const tide_ipc *c) {
  return c ? sizeof *c + (size_t)c->np * 4 + (size_t)c->ne * 16 + pbytes(c->nce) +
                 pbytes(c->cap_pt) + pbytes(c->cap_ee) + pbytes(c->cap_pe) + (size_t)c->nv * 8 +
                 (size_t)c->cap_fr * (16 + sizeof(tide_friction_contact)) +
                 (c->dim == 2 ? 4 * lbytes(c) : 0)
           : 0;
}

double tide_ipc_kappa(const tide_ipc *c) { return c->kappa; }
void tide_ipc_set_kappa(tide_ipc *c, double kappa) { c->kappa = kappa; }
double tide_ipc_offset(const tide_ipc *c) { return c->xi; }
int tide_ipc_set_offset(tide_ipc *c, double xi) {
  if (!(xi >= 0) || !isfinite(xi))
    return tide_fail(TIDE_EINVAL, "solid contact (IPC): the contact offset must be >= 0, got %g",
                     xi);
  c->xi = xi;
  return TIDE_OK;
}

double tide_ipc_kappa_default(const tide_tetmesh *m, double dhat) {
  const double *mass = TIDE_F64P(m->fem->mass), *X = TIDE_F64P(m->rest);
  int d = m->dim;
  double ms = 0, lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int64_t i = 0; i < m->nv; i++) {
    ms += mass[i];
    for (int q = 0; q < d; q++)
      lo[q] = fmin(lo[q], X[i * d + q]), hi[q] = fmax(hi[q], X[i * d + q]);
  }
  double bb = 0;
  for (int q = 0; q < d; q++)
    bb += (hi[q] - lo[q]) * (hi[q] - lo[q]);
  return tide_barrier_kappa_min(m->nv > 0 ? ms / (double)m->nv : 0, sqrt(bb), dhat * dhat);
}

static int edge_cmp(const void *pa, const void *pb) {
  const int32_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

/* the edges on no triangle (c->edges sorted, c->tri set) into c->cedges */
static int codim_edges(tide_ipc *c) {
  size_t fb = (size_t)(c->ne > 0 ? c->ne : 1);
  uint8_t *on = tide_calloc(fb);
  if (!on) return TIDE_ENOMEM;
  for (int64_t f = 0; f < c->nt; f++)
    for (int k = 0; k < 3; k++) {
      int32_t u = c->tri[f * 3 + k], v = c->tri[f * 3 + (k + 1) % 3], key[2];
      key[0] = u < v ? u : v, key[1] = u < v ? v : u;
      const int32_t *hit = bsearch(key, c->edges, (size_t)c->ne, 2 * sizeof(int32_t), edge_cmp);
      if (hit) on[(hit - c->edges) / 2] = 1;
    }
  c->nce = 0;
  for (int64_t e = 0; e < c->ne; e++)
    c->nce += !on[e];
  if (!(c->cedges = tide_alloc(pbytes(c->nce)))) {
    tide_free(on, fb);
    return TIDE_ENOMEM;
  }
  int64_t k = 0;
  for (int64_t e = 0; e < c->ne; e++)
    if (!on[e]) memcpy(c->cedges + 2 * k++, c->edges + 2 * e, 2 * sizeof(int32_t));
  tide_free(on, fb);
  return TIDE_OK;
}

int tide_ipc_new(const tide_tetmesh *m, double dhat, double kappa, tide_ipc **out) {
  *out = NULL;
  if (!(dhat > 0) || !isfinite(dhat))
    return tide_fail(TIDE_EINVAL, "solid contact (IPC): dhat must be positive, got %g", dhat);
  if (!m->fem) return tide_fail(TIDE_EINVAL, "solid contact (IPC): the mesh has no material");
  tide_ipc *c = tide_calloc(sizeof *c);
  if (!c) return TIDE_ENOMEM;
  c->dim = m->dim;
  int st = tide_mesh_edges(m, &c->ne, &c->edges);
  if (st) {
    tide_free(c, sizeof *c);
    return st;
  }
  /* points: the nodes of the triangles and edges, in node order */
  size_t fb = (size_t)(m->nv > 0 ? m->nv : 1);
  uint8_t *flag = tide_calloc(fb);
  c->eps_x = tide_alloc((size_t)(c->ne > 0 ? c->ne : 1) * sizeof(double));
  if (!flag || !c->eps_x) {
    tide_free(flag, fb);
    tide_ipc_free(c);
    return TIDE_ENOMEM;
  }
  for (int64_t k = 0; k < c->ne * 2; k++)
    flag[c->edges[k]] = 1;
  for (int64_t k = 0; k < m->nb * m->dim; k++)
    flag[TIDE_I32P(m->bound)[k]] = 1;
  for (int64_t i = 0; i < m->nv; i++)
    c->np += flag[i];
  c->pts = tide_alloc((size_t)(c->np > 0 ? c->np : 1) * sizeof(int32_t));
  if (!c->pts) {
    tide_free(flag, fb);
    tide_ipc_free(c);
    return TIDE_ENOMEM;
  }
  int64_t k = 0;
  for (int64_t i = 0; i < m->nv; i++)
    if (flag[i]) c->pts[k++] = (int32_t)i;
  tide_free(flag, fb);
  c->tri = TIDE_I32P(m->bound);
  c->nt = m->dim == 3 ? m->nb : 0; /* 2D: no triangles, every segment codimensional */
  c->rest = TIDE_F64P(m->rest);
  /* per edge: its squared rest length (the mollifier threshold of a pair
   * is 1e-3 |Ea|^2 |Eb|^2) */
  int d = m->dim;
  for (int64_t e = 0; e < c->ne; e++) {
    double l = 0;
    for (int q = 0; q < d; q++) {
      double t =
          c->rest[(int64_t)c->edges[e * 2 + 1] * d + q] - c->rest[(int64_t)c->edges[e * 2] * d + q];
      l += t * t;
    }
    c->eps_x[e] = l;
  }
  if ((st = codim_edges(c))) {
    tide_ipc_free(c);
    return st;
  }
  c->dhat = dhat;
  c->kappa = kappa > 0 ? kappa : tide_ipc_kappa_default(m, dhat);
  c->nv = m->nv;
  if (!(c->fr_node = tide_calloc((size_t)(m->nv > 0 ? m->nv : 1) * sizeof(double)))) {
    tide_ipc_free(c);
    return TIDE_ENOMEM;
  }
  if (d == 2) {
    c->x3a = tide_alloc(lbytes(c)), c->x3b = tide_alloc(lbytes(c));
    c->g3 = tide_alloc(lbytes(c)), c->xn3 = tide_calloc(lbytes(c));
    if (!c->x3a || !c->x3b || !c->g3 || !c->xn3) {
      tide_ipc_free(c);
      return TIDE_ENOMEM;
    }
  }
  *out = c;
  return TIDE_OK;
}

static int grow(int32_t **a, int64_t *cap, int64_t need) {
  if (need <= *cap) return TIDE_OK;
  int64_t nc = need > 2 * *cap ? need : 2 * *cap;
  int32_t *b = tide_alloc(pbytes(nc));
  if (!b) return TIDE_ENOMEM;
  tide_free(*a, pbytes(*cap));
  *a = b, *cap = nc;
  return TIDE_OK;
}

/* the CSR candidates P as (query, candidate) pairs into *a (grown), P freed */
static int take_pairs(tide_pairs *P, int32_t **a, int64_t *cap, int64_t *n) {
  int st = grow(a, cap, P->ptr[P->nq]);
  int64_t k = 0;
  for (int64_t q = 0; !st && q < P->nq; q++)
    for (int64_t t = P->ptr[q]; t < P->ptr[q + 1]; t++, k++) {
      (*a)[k * 2] = (int32_t)q;
      (*a)[k * 2 + 1] = P->cand[t];
    }
  *n = st ? 0 : k;
  tide_pairs_free(P);
  return st;
}

int tide_ipc_update(tide_ipc *c, const double *x, double move) {
  x = lift(c, x, c->x3a);
  double margin = c->dhat + c->xi + 2 * move;
  tide_pairs P;
  int st = tide_broad_points_triangles(x, c->np, c->pts, c->nt, c->tri, margin, &P);
  if (st || (st = take_pairs(&P, &c->pt, &c->cap_pt, &c->npt))) return st;
  c->nee = 0;
  if (c->dim == 3 && (st = tide_broad_edge_edge(x, c->ne, c->edges, margin, 0, &P))) return st;
  if (c->dim == 3 && (st = take_pairs(&P, &c->ee, &c->cap_ee, &c->nee))) return st;
  c->npe = 0;
  if (!c->nce) return TIDE_OK;
  if ((st = tide_broad_points_edges(x, c->np, c->pts, c->nce, c->cedges, margin, &P))) return st;
  return take_pairs(&P, &c->pe, &c->cap_pe, &c->npe);
}

/* candidate k's kind: point-triangle k < npt, then edge-edge, then
 * point-edge (the values of tide_ipc_min_distance's kind) */
enum { PAIR_PT = 0, PAIR_EE = 1, PAIR_PE = 2 };
static inline int pair_kind(const tide_ipc *c, int64_t k) {
  return k < c->npt ? PAIR_PT : k < c->npt + c->nee ? PAIR_EE : PAIR_PE;
}

/* stencil nodes of candidate k; a point-edge stencil (p, a, b) is padded
 * to four nodes by repeating b (its slot 3 gets zero derivatives) */
static void pair_nodes(const tide_ipc *c, int64_t k, int32_t *nd) {
  int kind = pair_kind(c, k);
  if (kind == PAIR_PT) {
    nd[0] = c->pts[c->pt[k * 2]];
    memcpy(nd + 1, c->tri + (int64_t)c->pt[k * 2 + 1] * 3, 3 * sizeof(int32_t));
  } else if (kind == PAIR_EE) {
    k -= c->npt;
    memcpy(nd, c->edges + (int64_t)c->ee[k * 2] * 2, 2 * sizeof(int32_t));
    memcpy(nd + 2, c->edges + (int64_t)c->ee[k * 2 + 1] * 2, 2 * sizeof(int32_t));
  } else {
    k -= c->npt + c->nee;
    nd[0] = c->pts[c->pe[k * 2]];
    memcpy(nd + 1, c->cedges + (int64_t)c->pe[k * 2 + 1] * 2, 2 * sizeof(int32_t));
    nd[3] = nd[2];
  }
}

/* the squared distance of a pair of kind `kind` at its stencil y (12),
 * gradient (12) and Hessian (144) over the padded stencil (may be NULL) */
static void pair_dist(int kind, const double *y, double *d2, double *g, double *H) {
  if (kind == PAIR_PT) {
    tide_dist_point_triangle(y, d2, g, H);
  } else if (kind == PAIR_EE) {
    tide_dist_edge_edge(y, d2, g, H);
  } else {
    double H9[81];
    tide_dist_point_edge_3d(y, d2, g, H ? H9 : NULL);
    if (g) memset(g + 9, 0, 3 * sizeof(double));
    if (H) {
      memset(H, 0, 144 * sizeof(double));
      for (int i = 0; i < 9; i++)
        memcpy(H + i * 12, H9 + i * 9, 9 * sizeof(double));
    }
  }
}

static void gather(const double *x, const int32_t *nd, double *y) {
  for (int a = 0; a < 4; a++)
    memcpy(y + a * 3, x + (int64_t)nd[a] * 3, 3 * sizeof(double));
}

/* candidate k's stencil nodes (nd, may be NULL) and squared distance at x */
static double pair_d2(const tide_ipc *c, int64_t k, const double *x, int32_t *nd) {
  int32_t own[4];
  double y[12], d2;
  if (!nd) nd = own;
  pair_nodes(c, k, nd);
  gather(x, nd, y);
  pair_dist(pair_kind(c, k), y, &d2, NULL, NULL);
  return d2;
}

/* The offset barrier's argument and threshold (Codimensional IPC, Li,
 * Kaufman & Jiang 2021): b(d^2 - xi^2, dhat^2 + 2 xi dhat), active for
 * distances in (xi, xi + dhat); its derivatives in d^2 are b's. */
static inline double off_d2(const tide_ipc *c, double d2) { return d2 - c->xi * c->xi; }
static inline double off_dh2(const tide_ipc *c) { return c->dhat * (c->dhat + 2 * c->xi); }

/* energy, gradient, Hessian (12) of candidate k; returns 0 when inactive */
static int pair_eval(const tide_ipc *c, int64_t k, const double *x, double *E, double *g,
                     double *H) {
  int32_t nd[4];
  double y[12], d2, gd[12], Hd[144];
  pair_nodes(c, k, nd);
  gather(x, nd, y);
  int ee = pair_kind(c, k) == PAIR_EE;
  pair_dist(pair_kind(c, k), y, &d2, g || H ? gd : NULL, H ? Hd : NULL);
  double dh2 = off_dh2(c);
  d2 = off_d2(c, d2);
  if (!(d2 < dh2)) return 0;
  double b, db, ddb;
  tide_barrier_eval(d2, dh2, &b, &db, &ddb);
  double mo = 1, gm[12], Hm[144];
  if (ee) {
    int64_t q = k - c->npt;
    double eps = 1e-3 * c->eps_x[c->ee[q * 2]] * c->eps_x[c->ee[q * 2 + 1]];
    tide_edge_mollifier(y, eps, &mo, g || H ? gm : NULL, H ? Hm : NULL);
  }
  double kap = c->kappa;
  /* at or inside the offset (or touching) infinite, also for a mollified
   * parallel edge pair (0 inf) */
  if (E) *E = d2 > 0 ? kap * mo * b : HUGE_VAL;
  if (g)
    for (int i = 0; i < 12; i++)
      g[i] = kap * (mo * db * gd[i] + (ee ? b * gm[i] : 0));
  if (H) {
    for (int i = 0; i < 12; i++)
      for (int j = 0; j < 12; j++) {
        double h = mo * (ddb * gd[i] * gd[j] + db * Hd[i * 12 + j]);
        if (ee) h += db * (gm[i] * gd[j] + gd[i] * gm[j]) + b * Hm[i * 12 + j];
        H[i * 12 + j] = kap * h;
      }
    /* an underflowed distance (the barrier's b'' ~ dhat^2 / d^4 overflows):
     * left non-finite for tide_ipc_hessian to report */
    int fin = 1;
    for (int i = 0; i < 144; i++)
      fin &= isfinite(H[i]);
    if (fin) tide_sym_project_psd(12, H);
  }
  return 1;
}

double tide_ipc_min_distance(const tide_ipc *c, const double *x, int *touching, int *kind,
                             int32_t *nodes) {
  x = lift(c, x, c->x3a);
  double best = HUGE_VAL;
  int64_t tot = c->npt + c->nee + c->npe, first = tot; /* the first pair at distance 0 */
#pragma omp parallel for schedule(static) reduction(min : best, first) if (tot > 4096)
  for (int64_t k = 0; k < tot; k++) {
    double gap = sqrt(pair_d2(c, k, x, NULL)) - c->xi; /* beyond the offset */
    if (!(gap > 0) && k < first) first = k;
    best = fmin(best, gap);
  }
  *touching = first < tot;
  if (!*touching && tot > 0) /* the closest pair: the first at the smallest distance */
    for (int64_t k = 0; k < tot && first == tot; k++)
      if (sqrt(pair_d2(c, k, x, NULL)) - c->xi == best) first = k;
  if (first < tot) {
    *kind = pair_kind(c, first);
    pair_nodes(c, first, nodes);
  }
  return best;
}

/* friction pair k at x: du over its nodes, then D, gradient, Hessian (x dt^2) */
static void fric_eval(const tide_ipc *c, int64_t k, const double *x, double *E, double *g,
                      double *H) {
  const int32_t *nd = c->fr_nodes + k * 4;
  double du[12];
  for (int a = 0; a < 4; a++)
    for (int q = 0; q < 3; q++)
      du[a * 3 + q] = x[(int64_t)nd[a] * 3 + q] - c->fr_xn[(int64_t)nd[a] * 3 + q];
  tide_friction_eval(&c->fr[k], c->fr_eps_u, du, E, g, H);
  if (E) *E *= c->fr_dt2;
  if (g)
    for (int i = 0; i < 12; i++)
      g[i] *= c->fr_dt2;
  if (H)
    for (int i = 0; i < 144; i++)
      H[i] *= c->fr_dt2;
}

/* the candidates within dhat at x: their indices into *act (allocated, free
 * with tide_free(*act, cap)), in candidate order; flags computed in
 * parallel, compacted in order (deterministic) */
static int active_pairs(const tide_ipc *c, const double *x, int32_t **act, size_t *cap,
                        int64_t *na) {
  int64_t tot = c->npt + c->nee + c->npe;
  *cap = (size_t)(tot > 0 ? tot : 1) * sizeof(int32_t);
  *na = 0;
  if (!(*act = tide_alloc(*cap))) return TIDE_ENOMEM;
  int32_t *f = *act;
  double dh2 = off_dh2(c);
#pragma omp parallel for schedule(static) if (tot > 4096)
  for (int64_t k = 0; k < tot; k++)
    f[k] = off_d2(c, pair_d2(c, k, x, NULL)) < dh2;
  int64_t n = 0;
  for (int64_t k = 0; k < tot; k++)
    if (f[k]) f[n++] = (int32_t)k; /* n <= k: in place */
  *na = n;
  return TIDE_OK;
}

double tide_ipc_energy(const tide_ipc *c, const double *x) {
  x = lift(c, x, c->x3a);
  int32_t *act;
  size_t cap;
  int64_t na;
  if (active_pairs(c, x, &act, &cap, &na)) return NAN; /* out of memory: no decrease accepted */
  size_t eb = (size_t)(na + c->nfr > 0 ? na + c->nfr : 1) * sizeof(double);
  double *e = tide_alloc(eb), E = 0;
  if (!e) {
    tide_free(act, cap);
    return NAN;
  }
#pragma omp parallel for schedule(static) if (na + c->nfr > 1024)
  for (int64_t t = 0; t < na + c->nfr; t++) {
    if (t < na) {
      if (!pair_eval(c, act[t], x, e + t, NULL, NULL)) e[t] = 0;
    } else {
      fric_eval(c, t - na, x, e + t, NULL, NULL);
    }
  }
  for (int64_t t = 0; t < na + c->nfr; t++)
    E += e[t]; /* fixed order: deterministic */
  tide_free(e, eb);
  tide_free(act, cap);
  return E;
}

static void gradient3(const tide_ipc *c, const double *x, double *g) {
  int32_t *act;
  size_t cap;
  int64_t na, n;
  if (active_pairs(c, x, &act, &cap, &na)) return;
  n = na + c->nfr;
  size_t gb = (size_t)(n > 0 ? n : 1) * 12 * sizeof(double);
  double *gk = tide_alloc(gb);
  if (!gk) { /* out of memory: the serial scatter without the buffer */
    for (int64_t t = 0; t < n; t++) {
      double gt[12];
      int32_t nd[4];
      if (t < na) {
        if (!pair_eval(c, act[t], x, NULL, gt, NULL)) continue;
        pair_nodes(c, act[t], nd);
      } else {
        fric_eval(c, t - na, x, NULL, gt, NULL);
        memcpy(nd, c->fr_nodes + (t - na) * 4, sizeof nd);
      }
      for (int a = 0; a < 4; a++)
        for (int q = 0; q < 3; q++)
          g[(int64_t)nd[a] * 3 + q] += gt[a * 3 + q];
    }
    tide_free(act, cap);
    return;
  }
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t t = 0; t < n; t++) {
    if (t < na) {
      if (!pair_eval(c, act[t], x, NULL, gk + t * 12, NULL))
        memset(gk + t * 12, 0, 12 * sizeof(double));
    } else {
      fric_eval(c, t - na, x, NULL, gk + t * 12, NULL);
    }
  }
  for (int64_t t = 0; t < n; t++) { /* scatter in pair order: deterministic */
    int32_t nd[4];
    if (t < na)
      pair_nodes(c, act[t], nd);
    else
      memcpy(nd, c->fr_nodes + (t - na) * 4, sizeof nd);
    for (int a = 0; a < 4; a++)
      for (int q = 0; q < 3; q++)
        g[(int64_t)nd[a] * 3 + q] += gk[t * 12 + a * 3 + q];
  }
  tide_free(gk, gb);
  tide_free(act, cap);
}

void tide_ipc_gradient(const tide_ipc *c, const double *x, double *g) {
  if (c->dim == 3) {
    gradient3(c, x, g);
    return;
  }
  memset(c->g3, 0, lbytes(c));
  gradient3(c, lift(c, x, c->x3a), c->g3);
  for (int64_t i = 0; i < c->nv; i++)
    g[i * 2] += c->g3[i * 3], g[i * 2 + 1] += c->g3[i * 3 + 1];
}

void tide_ipc_triplets_free(int64_t n, int *I, int *J, double *V) {
  size_t m = (size_t)(n > 0 ? n : 1);
  tide_free(I, m * sizeof(int));
  tide_free(J, m * sizeof(int));
  tide_free(V, m * sizeof(double));
}

int tide_ipc_hessian(const tide_ipc *c, const double *x, const uint8_t *pinned, int64_t *n, int **I,
                     int **J, double **V) {
  /* active pairs first (a cheap distance pass), then their blocks and the
   * friction pairs', each at its own slot (parallel, deterministic) */
  int32_t *act;
  size_t cap;
  int64_t na;
  x = lift(c, x, c->x3a);
  int st = active_pairs(c, x, &act, &cap, &na);
  if (st) return st;
  int64_t nb = na + c->nfr, bs = c->dim == 3 ? 144 : 64; /* triplets per block */
  size_t m = (size_t)(nb > 0 ? nb * bs : 1);
  *I = tide_alloc(m * sizeof(int));
  *J = tide_alloc(m * sizeof(int));
  *V = tide_alloc(m * sizeof(double));
  *n = nb * bs;
  if (!*I || !*J || !*V) {
    tide_ipc_triplets_free(nb * bs, *I, *J, *V);
    tide_free(act, cap);
    return TIDE_ENOMEM;
  }
  tide_tripletbuf tb = {*I, *J, *V, 0, 0};
  int flags = pinned ? TIDE_FEM_PINNED : 0;
  int64_t bad = nb; /* the first pair whose barrier Hessian is not finite */
#pragma omp parallel for schedule(static) reduction(min : bad) if (nb > 256)
  for (int64_t t = 0; t < nb; t++) {
    double H[144];
    int32_t nd[4];
    if (t < na) {
      if (!pair_eval(c, act[t], x, NULL, NULL, H)) memset(H, 0, sizeof H);
      for (int i = 0; i < 144; i++)
        if (!isfinite(H[i])) {
          if (t < bad) bad = t;
          memset(H, 0, sizeof H);
          break;
        }
      pair_nodes(c, act[t], nd);
    } else {
      fric_eval(c, t - na, x, NULL, NULL, H);
      memcpy(nd, c->fr_nodes + (t - na) * 4, sizeof nd);
    }
    if (c->dim == 2) /* the in-plane rows and columns (a principal submatrix: PSD) */
      for (int r = 0; r < 8; r++)
        for (int q = 0; q < 8; q++)
          H[r * 8 + q] = H[(r / 2 * 3 + r % 2) * 12 + q / 2 * 3 + q % 2];
    tide_fem_write_block(c->dim, 4, nd, H, flags, pinned, &tb, t * bs);
  }
  if (bad < na) {
    int32_t nd[4];
    char buf[128];
    int64_t k = act[bad];
    double d2 = pair_d2(c, k, x, nd);
    tide_ipc_triplets_free(nb * bs, *I, *J, *V);
    *I = *J = NULL, *V = NULL, *n = 0;
    tide_free(act, cap);
    return tide_fail(TIDE_ENONFINITE,
                     "IPC barrier: the contact distance of %s fell to %g (dhat %g, kappa %g): "
                     "the barrier's derivatives are not finite; kappa is too small for the load "
                     "(use kappa_adapt = true or a larger kappa)",
                     tide_ipc_pair_text(pair_kind(c, k), nd, buf), sqrt(d2), c->dhat, c->kappa);
  }
  tide_free(act, cap);
  return TIDE_OK;
}

const char *tide_ipc_pair_text(int kind, const int32_t *nd, char *buf) {
  if (kind == PAIR_EE)
    snprintf(buf, 128, "edges (nodes %d %d | %d %d)", nd[0] + 1, nd[1] + 1, nd[2] + 1, nd[3] + 1);
  else if (kind == PAIR_PE)
    snprintf(buf, 128, "a point and a rod segment (nodes %d | %d %d)", nd[0] + 1, nd[1] + 1,
             nd[2] + 1);
  else
    snprintf(buf, 128, "a point and a triangle (nodes %d | %d %d %d)", nd[0] + 1, nd[1] + 1,
             nd[2] + 1, nd[3] + 1);
  return buf;
}

double tide_ipc_step_bound_keep(tide_ipc *c, const double *x, const double *p, double keep) {
  x = lift(c, x, c->x3a);
  p = lift(c, p, c->x3b);
  double alpha = 1;
  int64_t n = c->npt + c->nee + c->npe, iters = 0, capped = 0;
  /* the minimum over the pairs (order-free: deterministic); each pair's
   * search stops at the thread's bound so far (so the work counts, not
   * the bound, may depend on the thread count) */
#pragma omp parallel for schedule(dynamic, 256) reduction(min : alpha) \
    reduction(+ : iters, capped) if (n > 4096)
  for (int64_t k = 0; k < n; k++) {
    int32_t nd[4];
    double y[12], dy[12], tmax = alpha < 1 ? alpha : 1;
    pair_nodes(c, k, nd);
    gather(x, nd, y);
    gather(p, nd, dy);
    int kind = pair_kind(c, k);
    tide_ccd_work wk = {0, 0};
    double t = tide_ccd_pair_offset(kind, y, dy, c->xi, keep, tmax, TIDE_IPC_CCD_MAX_ITER, &wk);
    iters += wk.iterations, capped += wk.capped;
    if (t < alpha) alpha = t;
  }
  c->ccd.iterations += iters, c->ccd.capped += capped;
  return alpha;
}

double tide_ipc_step_bound(tide_ipc *c, const double *x, const double *p) {
  return tide_ipc_step_bound_keep(c, x, p, 0.1);
}

tide_ccd_work tide_ipc_ccd_work(const tide_ipc *c) { return c->ccd; }

/* ------------------------------------------------------ lagged friction */

int64_t tide_ipc_friction_count(const tide_ipc *c) { return c->nfr; }

int tide_ipc_friction_lag(tide_ipc *c, const double *xref, const double *xn, double mu, double dt,
                          double eps_v, double *change) {
  *change = 0;
  if (!(mu > 0)) {
    c->nfr = 0;
    return TIDE_OK;
  }
  int st = tide_ipc_update(c, xref, 0);
  if (st) return st;
  xref = lift(c, xref, c->x3a);
  if (c->dim == 2) xn = lift(c, xn, c->xn3); /* kept: the friction terms read it */
  int64_t tot = c->npt + c->nee + c->npe, na = 0;
  for (int64_t k = 0; k < tot; k++) { /* the pairs within dhat */
    double d2 = off_d2(c, pair_d2(c, k, xref, NULL));
    na += d2 < off_dh2(c) && d2 > 0;
  }
  if (na > c->cap_fr) {
    size_t ob = (size_t)(c->cap_fr > 0 ? c->cap_fr : 1), nb = (size_t)na;
    int32_t *n2 = tide_alloc(nb * 4 * sizeof(int32_t));
    tide_friction_contact *f2 = tide_alloc(nb * sizeof(tide_friction_contact));
    if (!n2 || !f2) {
      tide_free(n2, nb * 4 * sizeof(int32_t));
      tide_free(f2, nb * sizeof(tide_friction_contact));
      return TIDE_ENOMEM;
    }
    tide_free(c->fr_nodes, ob * 4 * sizeof(int32_t));
    tide_free(c->fr, ob * sizeof(tide_friction_contact));
    c->fr_nodes = n2, c->fr = f2, c->cap_fr = na;
  }
  size_t sb = (size_t)(c->nv > 0 ? c->nv : 1) * sizeof(double);
  double *sum = tide_calloc(sb); /* per node sum of mu lambda |w_a| of the new lag */
  if (!sum) return TIDE_ENOMEM;
  double dh2 = off_dh2(c), dtt = dt * dt;
  int64_t n = 0;
  for (int64_t k = 0; k < tot && n < na; k++) {
    int32_t nd[4];
    double y[12], d2, gd[12];
    pair_nodes(c, k, nd);
    gather(xref, nd, y);
    int ee = pair_kind(c, k) == PAIR_EE;
    pair_dist(pair_kind(c, k), y, &d2, gd, NULL);
    double s2 = off_d2(c, d2);
    if (!(s2 < dh2 && s2 > 0)) continue;
    /* r between the closest points: the first primitive's gradients sum
     * to 2 r (its weights sum to 1); w_a = grad_a . r / (2 |r|^2) */
    double r[3] = {0, 0, 0}, rr = 0, w[4], N[3];
    for (int a = 0; a < (ee ? 2 : 1); a++)
      for (int q = 0; q < 3; q++)
        r[q] += 0.5 * gd[a * 3 + q];
    for (int q = 0; q < 3; q++)
      rr += r[q] * r[q];
    if (!(rr > 0)) continue;
    for (int a = 0; a < 4; a++) {
      double s = 0;
      for (int q = 0; q < 3; q++)
        s += gd[a * 3 + q] * r[q];
      w[a] = s / (2 * rr);
    }
    double d = sqrt(rr), mo = 1;
    for (int q = 0; q < 3; q++)
      N[q] = r[q] / d;
    if (ee) {
      int64_t qq = k - c->npt;
      tide_edge_mollifier(y, 1e-3 * c->eps_x[c->ee[qq * 2]] * c->eps_x[c->ee[qq * 2 + 1]], &mo,
                          NULL, NULL);
    }
    double lam = -c->kappa * mo * tide_barrier_gradient(s2, dh2) * 2 * sqrt(d2) / dtt;
    if (!(lam > 0)) continue;
    memcpy(c->fr_nodes + n * 4, nd, sizeof nd);
    tide_friction_contact_set(&c->fr[n], 4, 3, w, N, mu, lam);
    for (int a = 0; a < 4; a++)
      sum[nd[a]] += mu * lam * fabs(w[a]);
    n++;
  }
  c->nfr = n;
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < c->nv; i++) {
    diff = fmax(diff, fabs(sum[i] - c->fr_node[i]));
    scale = fmax(scale, sum[i]);
  }
  memcpy(c->fr_node, sum, (size_t)c->nv * sizeof(double));
  tide_free(sum, sb);
  *change = scale > 0 ? diff / scale : diff > 0 ? 1 : 0;
  c->fr_xn = xn;
  c->fr_eps_u = eps_v * dt;
  c->fr_dt2 = dtt;
  return TIDE_OK;
}
