/*
 * broadphase.c -- spatial hash of boxes, candidate pairs, segment-triangle
 * intersections (see broadphase.h).
 */
#include "solid/broadphase.h"
#include "solid/fem.h"
#include "solid/thin.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void tide_pairs_free(tide_pairs *p) {
  if (!p || !p->ptr) return;
  int64_t n = p->ptr[p->nq];
  tide_free(p->cand, (size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  tide_free(p->ptr, (size_t)(p->nq + 1) * sizeof(int64_t));
  memset(p, 0, sizeof *p);
}

/* an item of the hash: cell key and item index */
typedef struct hentry {
  uint64_t key;
  int32_t item;
} hentry;

static int hentry_cmp(const void *a, const void *b) {
  const hentry *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->item > y->item) - (x->item < y->item);
}

static inline uint64_t cell_key(int64_t i, int64_t j, int64_t k) {
  uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)j * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= (uint64_t)k * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  return h;
}

/* boxes of n stencils of nn nodes (node indices el) at x */
static void boxes(int64_t n, int nn, const int32_t *el, const double *x, double *lo, double *hi) {
#pragma omp parallel for schedule(static) if (n > TIDE_SOLID_PAR_MIN)
  for (int64_t s = 0; s < n; s++)
    for (int k = 0; k < 3; k++) {
      double a = HUGE_VAL, b = -HUGE_VAL;
      for (int q = 0; q < nn; q++) {
        double v = x[(int64_t)el[s * nn + q] * 3 + k];
        a = fmin(a, v), b = fmax(b, v);
      }
      lo[s * 3 + k] = a, hi[s * 3 + k] = b;
    }
}

typedef struct query_ctx {
  int64_t nq, ni;
  int qn, in;               /* nodes per query / item */
  const int32_t *qel, *iel; /* query / item nodes (a point query: qel NULL, node = q) */
  const double *qlo, *qhi, *ilo, *ihi;
  double margin, h;
  const hentry *H;
  int64_t nh;
  int upper; /* keep only item > query (edge-edge) */
} query_ctx;

static inline int32_t qnode(const query_ctx *c, int64_t q, int a) {
  return c->qel ? c->qel[q * c->qn + a] : (int32_t)q;
}

/* the candidates of query q into buf (capacity cap, sorted unique);
 * returns their count (may exceed cap: then only counted) */
static int64_t query(const query_ctx *c, int64_t q, int32_t *buf, int64_t cap) {
  double lo[3], hi[3];
  int64_t c0[3], c1[3];
  for (int k = 0; k < 3; k++) {
    lo[k] = c->qlo[q * 3 + k] - c->margin;
    hi[k] = c->qhi[q * 3 + k] + c->margin;
    c0[k] = (int64_t)floor(lo[k] / c->h);
    c1[k] = (int64_t)floor(hi[k] / c->h);
  }
  int64_t n = 0;
  for (int64_t i = c0[0]; i <= c1[0]; i++)
    for (int64_t j = c0[1]; j <= c1[1]; j++)
      for (int64_t k = c0[2]; k <= c1[2]; k++) {
        uint64_t key = cell_key(i, j, k);
        /* first entry with this key */
        int64_t a = 0, b = c->nh;
        while (a < b) {
          int64_t mid = (a + b) / 2;
          if (c->H[mid].key < key)
            a = mid + 1;
          else
            b = mid;
        }
        for (int64_t t = a; t < c->nh && c->H[t].key == key; t++) {
          int32_t it = c->H[t].item;
          if (c->upper && it <= q) continue;
          int ok = 1;
          for (int d = 0; d < 3 && ok; d++)
            ok = c->ilo[(int64_t)it * 3 + d] <= hi[d] && c->ihi[(int64_t)it * 3 + d] >= lo[d];
          for (int u = 0; u < c->qn && ok; u++)
            for (int v = 0; v < c->in && ok; v++)
              ok = qnode(c, q, u) != c->iel[(int64_t)it * c->in + v];
          if (!ok) continue;
          int dup = 0;
          for (int64_t s = 0; s < n && s < cap && !dup; s++)
            dup = buf[s] == it;
          if (dup) continue;
          if (n < cap) buf[n] = it;
          n++;
        }
      }
  int64_t m = n < cap ? n : cap;
  for (int64_t s = 1; s < m; s++) /* insertion sort: short lists */
    for (int64_t r = s; r > 0 && buf[r - 1] > buf[r]; r--) {
      int32_t t = buf[r];
      buf[r] = buf[r - 1], buf[r - 1] = t;
    }
  return n;
}

static int run_queries(query_ctx *c, tide_pairs *out) {
  memset(out, 0, sizeof *out);
  /* hash the items: every cell their box overlaps */
  int64_t ne = 0;
  for (int64_t it = 0; it < c->ni; it++) {
    int64_t cnt = 1;
    for (int k = 0; k < 3; k++)
      cnt *=
          (int64_t)floor(c->ihi[it * 3 + k] / c->h) - (int64_t)floor(c->ilo[it * 3 + k] / c->h) + 1;
    ne += cnt;
  }
  if (ne > (int64_t)1 << 31) return tide_fail(TIDE_EINVAL, "broad phase: cell size too small");
  size_t hb = (size_t)(ne > 0 ? ne : 1) * sizeof(hentry);
  hentry *H = tide_alloc(hb);
  if (!H) return TIDE_ENOMEM;
  int64_t t = 0;
  for (int64_t it = 0; it < c->ni; it++) {
    int64_t a[3], b[3];
    for (int k = 0; k < 3; k++) {
      a[k] = (int64_t)floor(c->ilo[it * 3 + k] / c->h);
      b[k] = (int64_t)floor(c->ihi[it * 3 + k] / c->h);
    }
    for (int64_t i = a[0]; i <= b[0]; i++)
      for (int64_t j = a[1]; j <= b[1]; j++)
        for (int64_t k = a[2]; k <= b[2]; k++)
          H[t++] = (hentry){cell_key(i, j, k), (int32_t)it};
  }
  qsort(H, (size_t)ne, sizeof *H, hentry_cmp);
  c->H = H;
  c->nh = ne;
  out->nq = c->nq;
  out->ptr = tide_calloc((size_t)(c->nq + 1) * sizeof(int64_t));
  if (!out->ptr) {
    tide_free(H, hb);
    return TIDE_ENOMEM;
  }
  /* pass 1: counts (a scratch of BROAD_MAX per thread) */
  enum { BROAD_MAX = 2048 };
  int64_t over = 0;
#pragma omp parallel reduction(+ : over)
  {
    int32_t buf[BROAD_MAX];
#pragma omp for schedule(dynamic, 64)
    for (int64_t q = 0; q < c->nq; q++) {
      out->ptr[q + 1] = query(c, q, buf, BROAD_MAX);
      over += out->ptr[q + 1] > BROAD_MAX;
    }
  }
  if (over) {
    tide_free(H, hb);
    tide_free(out->ptr, (size_t)(c->nq + 1) * sizeof(int64_t));
    memset(out, 0, sizeof *out);
    return tide_fail(TIDE_EINVAL,
                     "broad phase: a primitive has more than %d candidates (margin "
                     "too large for the mesh)",
                     (int)BROAD_MAX);
  }
  for (int64_t q = 0; q < c->nq; q++)
    out->ptr[q + 1] += out->ptr[q];
  int64_t total = out->ptr[c->nq];
  out->cand = tide_alloc((size_t)(total > 0 ? total : 1) * sizeof(int32_t));
  if (!out->cand) {
    tide_free(H, hb);
    tide_free(out->ptr, (size_t)(c->nq + 1) * sizeof(int64_t));
    memset(out, 0, sizeof *out);
    return TIDE_ENOMEM;
  }
  /* pass 2: fill in place (each query its own, exactly sized range) */
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t q = 0; q < c->nq; q++)
    query(c, q, out->cand + out->ptr[q], out->ptr[q + 1] - out->ptr[q]);
  tide_free(H, hb);
  return TIDE_OK;
}

static double mean_extent(int64_t n, const double *lo, const double *hi) {
  double s = 0;
  for (int64_t i = 0; i < n; i++)
    s += fmax(hi[i * 3] - lo[i * 3],
              fmax(hi[i * 3 + 1] - lo[i * 3 + 1], hi[i * 3 + 2] - lo[i * 3 + 2]));
  return n > 0 ? s / n : 1;
}

static int with_boxes(int64_t nq, int qn, const int32_t *qel, int64_t ni, int in,
                      const int32_t *iel, const double *x, int64_t npts, double margin, double h,
                      int upper, tide_pairs *out) {
  (void)npts;
  size_t qb = (size_t)(nq > 0 ? nq : 1) * 3 * sizeof(double),
         ib = (size_t)(ni > 0 ? ni : 1) * 3 * sizeof(double);
  double *qlo = tide_alloc(qb), *qhi = tide_alloc(qb), *ilo = tide_alloc(ib), *ihi = tide_alloc(ib);
  int st = TIDE_OK;
  if (!qlo || !qhi || !ilo || !ihi) {
    st = TIDE_ENOMEM;
    goto done;
  }
  if (qel) {
    boxes(nq, qn, qel, x, qlo, qhi);
  } else {
    memcpy(qlo, x, (size_t)nq * 3 * sizeof(double));
    memcpy(qhi, x, (size_t)nq * 3 * sizeof(double));
  }
  boxes(ni, in, iel, x, ilo, ihi);
  if (!(h > 0)) h = fmax(mean_extent(ni, ilo, ihi), margin) + 1e-300;
  if (!(h > 1e-300)) h = 1;
  query_ctx c = {nq, ni, qn, in, qel, iel, qlo, qhi, ilo, ihi, margin, h, NULL, 0, upper};
  st = run_queries(&c, out);
done:
  tide_free(qlo, qb);
  tide_free(qhi, qb);
  tide_free(ilo, ib);
  tide_free(ihi, ib);
  return st;
}

int tide_broad_point_triangle(int64_t np, const double *x, int64_t nt, const int32_t *tri,
                              double margin, double h, tide_pairs *out) {
  return with_boxes(np, 1, NULL, nt, 3, tri, x, np, margin, h, 0, out);
}

int tide_broad_points_triangles(const double *x, int64_t np, const int32_t *pts, int64_t nt,
                                const int32_t *tri, double margin, tide_pairs *out) {
  return with_boxes(np, 1, pts, nt, 3, tri, x, 0, margin, 0, 0, out);
}

int tide_broad_points_edges(const double *x, int64_t np, const int32_t *pts, int64_t ne,
                            const int32_t *e, double margin, tide_pairs *out) {
  return with_boxes(np, 1, pts, ne, 2, e, x, 0, margin, 0, 0, out);
}

int tide_broad_edge_edge(const double *x, int64_t ne, const int32_t *e, double margin, double h,
                         tide_pairs *out) {
  return with_boxes(ne, 2, e, ne, 2, e, x, 0, margin, h, 1, out);
}

/* ---------------------------------------------------------- intersection */

static double orient(const double *a, const double *b, const double *c, const double *d) {
  double u[3], v[3], w[3];
  for (int k = 0; k < 3; k++) {
    u[k] = b[k] - a[k];
    v[k] = c[k] - a[k];
    w[k] = d[k] - a[k];
  }
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
         u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static double orient2(const double *a, const double *b, const double *c, int i, int j) {
  return (b[i] - a[i]) * (c[j] - a[j]) - (b[j] - a[j]) * (c[i] - a[i]);
}

static int opposite(double s, double t, double tol) {
  return (s > tol && t < -tol) || (s < -tol && t > tol);
}

/* p, q in the plane of (a, b, c) up to rounding: they cross when the
 * segment overlaps the triangle in that plane (projected along the
 * normal's largest axis): an endpoint strictly inside, or a proper crossing
 * of an edge; tol2 the rounding bound of the 2D orientations */
static int coplanar_overlap(const double *p, const double *q, const double *a, const double *b,
                            const double *c, const double *n, double tol2) {
  int ax = fabs(n[0]) > fabs(n[1]) ? (fabs(n[0]) > fabs(n[2]) ? 0 : 2)
                                   : (fabs(n[1]) > fabs(n[2]) ? 1 : 2);
  int i = (ax + 1) % 3, j = (ax + 2) % 3;
  const double *v[3] = {a, b, c}, *e[2] = {p, q};
  double area = orient2(a, b, c, i, j);
  for (int s = 0; s < 2; s++) {
    int in = 1;
    for (int k = 0; k < 3 && in; k++)
      in = orient2(v[k], v[(k + 1) % 3], e[s], i, j) * (area > 0 ? 1 : -1) > tol2;
    if (in) return 1;
  }
  for (int k = 0; k < 3; k++) {
    const double *u = v[k], *w = v[(k + 1) % 3];
    if (opposite(orient2(p, q, u, i, j), orient2(p, q, w, i, j), tol2) &&
        opposite(orient2(u, w, p, i, j), orient2(u, w, q, i, j), tol2))
      return 1;
  }
  return 0;
}

int tide_segment_triangle(const double *p, const double *q, const double *a, const double *b,
                          const double *c) {
  double sp = orient(a, b, c, p), sq = orient(a, b, c, q);
  if ((sp > 0 && sq > 0) || (sp < 0 && sq < 0) || (sp == 0 && sq == 0)) return 0;
  /* both ends within rounding of the triangle's plane: the orientations
   * below are noise; decide in the plane instead */
  double u[3], v[3], n[3], L = 0;
  for (int k = 0; k < 3; k++) {
    u[k] = b[k] - a[k], v[k] = c[k] - a[k];
    L = fmax(L, fmax(fabs(p[k] - a[k]), fabs(q[k] - a[k])));
    L = fmax(L, fmax(fabs(u[k]), fabs(v[k])));
  }
  n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2],
  n[2] = u[0] * v[1] - u[1] * v[0];
  double tol = 64 * DBL_EPSILON * L * L * L;
  if (fabs(sp) <= tol && fabs(sq) <= tol)
    return coplanar_overlap(p, q, a, b, c, n, 16 * DBL_EPSILON * L * L);
  double s1 = orient(p, q, a, b), s2 = orient(p, q, b, c), s3 = orient(p, q, c, a);
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}

static int edge_cmp(const void *pa, const void *pb) {
  const int32_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

int tide_mesh_edges(const tide_tetmesh *m, int64_t *ne, int32_t **e) {
  *ne = 0, *e = NULL;
  if (m->dim != 3 && m->dim != 2) return tide_fail(TIDE_EINVAL, "mesh edges: 2D or 3D meshes only");
  int64_t nseg = m->surface == TIDE_MESH_ROD ? m->ne : 0;
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  for (int i = 0; t && m->surface != TIDE_MESH_ROD && i < t->nparts; i++)
    if (t->parts[i].p.kind == TIDE_THIN_ROD) nseg += t->parts[i].n1;
  int64_t cap = 3 * m->nb + nseg;
  size_t bytes = (size_t)(cap > 0 ? cap : 1) * 2 * sizeof(int32_t);
  int32_t *E = tide_alloc(bytes);
  if (!E) return TIDE_ENOMEM;
  int64_t n = 0;
  const int32_t *b = TIDE_I32P(m->bound);
  int fe = m->dim == 3 ? 3 : 1; /* edges per boundary face: a triangle's three, a segment */
  for (int64_t f = 0; f < m->nb; f++)
    for (int k = 0; k < fe; k++) {
      int32_t u = b[f * m->dim + k], v = b[f * m->dim + (k + 1) % m->dim];
      E[n * 2] = u < v ? u : v, E[n * 2 + 1] = u < v ? v : u;
      n++;
    }
  const int32_t *el = TIDE_I32P(m->elem);
  for (int64_t s = 0; m->surface == TIDE_MESH_ROD && s < m->ne; s++, n++) {
    E[n * 2] = el[2 * s] < el[2 * s + 1] ? el[2 * s] : el[2 * s + 1];
    E[n * 2 + 1] = el[2 * s] < el[2 * s + 1] ? el[2 * s + 1] : el[2 * s];
  }
  for (int i = 0; t && m->surface != TIDE_MESH_ROD && i < t->nparts; i++)
    if (t->parts[i].p.kind == TIDE_THIN_ROD) {
      const int32_t *sg = TIDE_I32P(t->parts[i].s1);
      for (int64_t s = 0; s < t->parts[i].n1; s++, n++) {
        E[n * 2] = sg[2 * s] < sg[2 * s + 1] ? sg[2 * s] : sg[2 * s + 1];
        E[n * 2 + 1] = sg[2 * s] < sg[2 * s + 1] ? sg[2 * s + 1] : sg[2 * s];
      }
    }
  qsort(E, (size_t)n, 2 * sizeof(int32_t), edge_cmp);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    if (k == 0 || E[i * 2] != E[(k - 1) * 2] || E[i * 2 + 1] != E[(k - 1) * 2 + 1]) {
      E[k * 2] = E[i * 2], E[k * 2 + 1] = E[i * 2 + 1];
      k++;
    }
  /* shrink to the exact size the caller frees */
  size_t kb = (size_t)(k > 0 ? k : 1) * 2 * sizeof(int32_t);
  int32_t *F = tide_alloc(kb);
  if (!F) {
    tide_free(E, bytes);
    return TIDE_ENOMEM;
  }
  memcpy(F, E, kb);
  tide_free(E, bytes);
  *ne = k, *e = F;
  return TIDE_OK;
}

int tide_mesh_intersections(const tide_tetmesh *m, const double *x, int64_t *count, int64_t *edge,
                            int64_t *tri) {
  *count = 0, *edge = *tri = -1;
  if (m->dim != 3) return tide_fail(TIDE_EINVAL, "mesh intersections: 3D meshes only");
  int64_t ne;
  int32_t *E;
  int st = tide_mesh_edges(m, &ne, &E);
  if (st) return st;
  tide_pairs P;
  const int32_t *T = TIDE_I32P(m->bound);
  st = with_boxes(ne, 2, E, m->nb, 3, T, x, 0, 0, 0, 0, &P);
  if (!st) {
    int64_t cnt = 0, fe = -1, ft = -1;
    for (int64_t q = 0; q < ne; q++)
      for (int64_t k = P.ptr[q]; k < P.ptr[q + 1]; k++) {
        int32_t f = P.cand[k];
        if (tide_segment_triangle(x + (int64_t)E[q * 2] * 3, x + (int64_t)E[q * 2 + 1] * 3,
                                  x + (int64_t)T[f * 3] * 3, x + (int64_t)T[f * 3 + 1] * 3,
                                  x + (int64_t)T[f * 3 + 2] * 3)) {
          if (!cnt) fe = q, ft = f;
          cnt++;
        }
      }
    *count = cnt, *edge = fe, *tri = ft;
    tide_pairs_free(&P);
  }
  tide_free(E, (size_t)(ne > 0 ? ne : 1) * 2 * sizeof(int32_t));
  return st;
}
