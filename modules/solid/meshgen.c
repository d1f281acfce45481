/*
 * meshgen.c -- mesh generators: regular boxes and BCC lattices cut by a
 * signed distance function with boundary snapping (see mesh.h).
 */
#include "solid/mesh.h"
#include "grid/sdf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* growable int32 list */
typedef struct ilist {
  int32_t *p;
  int64_t n, cap;
} ilist;

static int ilist_push(ilist *l, const int32_t *v, int k) {
  if (l->n + k > l->cap) {
    int64_t cap = l->cap ? 2 * l->cap : 1024;
    while (cap < l->n + k) cap *= 2;
    int32_t *q = tide_alloc((size_t)cap * sizeof(int32_t));
    if (!q) return TIDE_ENOMEM;
    if (l->p) {
      memcpy(q, l->p, (size_t)l->n * sizeof(int32_t));
      tide_free(l->p, (size_t)l->cap * sizeof(int32_t));
    }
    l->p = q;
    l->cap = cap;
  }
  memcpy(l->p + l->n, v, (size_t)k * sizeof(int32_t));
  l->n += k;
  return TIDE_OK;
}

static void ilist_free(ilist *l) {
  if (l->p) tide_free(l->p, (size_t)l->cap * sizeof(int32_t));
  l->p = NULL;
  l->n = l->cap = 0;
}

/* orient element (nper nodes) positively using positions X */
static void orient(int d, const double *X, int32_t *el) {
  double p[12];
  for (int a = 0; a <= d; a++)
    for (int k = 0; k < d; k++) p[a * d + k] = X[(int64_t)el[a] * d + k];
  if (tide_simplex_volume(d, p) < 0) {
    int32_t t = el[1];
    el[1] = el[2];
    el[2] = t;
  }
}

int tide_mesh_box(int dim, const double *lo, const double *hi, const int *n, tide_tetmesh **out) {
  *out = NULL;
  if (dim != 2 && dim != 3) return tide_fail(TIDE_EINVAL, "box: dimension must be 2 or 3");
  int64_t nn = 1, nc = 1;
  for (int k = 0; k < dim; k++) {
    if (!isfinite(lo[k]) || !isfinite(hi[k]) || !(hi[k] > lo[k]))
      return tide_fail(TIDE_EINVAL, "box: need lo < hi (finite) on every axis");
    if (n[k] < 1 || n[k] > 4096) return tide_fail(TIDE_EINVAL, "box: cells per axis must be in 1..4096");
    nn *= n[k] + 1;
    nc *= n[k];
  }
  if (nc * (dim == 3 ? 6 : 2) > INT32_MAX / 8) return tide_fail(TIDE_EINVAL, "box: too many cells");
  int n0 = n[0], n1 = n[1], n2 = dim == 3 ? n[2] : 0;
  size_t xb = (size_t)(nn * dim) * sizeof(double);
  int nper = dim + 1, per = dim == 3 ? 6 : 2;
  size_t eb = (size_t)(nc * per * nper) * sizeof(int32_t);
  double *X = tide_alloc(xb);
  int32_t *el = tide_alloc(eb);
  if (!X || !el) {
    tide_free(X, xb);
    tide_free(el, eb);
    return TIDE_ENOMEM;
  }
  for (int i = 0; i <= n0; i++)
    for (int j = 0; j <= n1; j++)
      for (int k = 0; k <= n2; k++) {
        int64_t id = ((int64_t)i * (n1 + 1) + j) * (n2 + 1) + k;
        X[id * dim] = lo[0] + (hi[0] - lo[0]) * i / n0;
        X[id * dim + 1] = lo[1] + (hi[1] - lo[1]) * j / n1;
        if (dim == 3) X[id * dim + 2] = lo[2] + (hi[2] - lo[2]) * k / n2;
      }
#define NODE(i, j, k) ((int32_t)((((int64_t)(i)) * (n1 + 1) + (j)) * (n2 + 1) + (k)))
  int64_t t = 0;
  if (dim == 2) {
    for (int i = 0; i < n0; i++)
      for (int j = 0; j < n1; j++) {
        int32_t a = NODE(i, j, 0), b = NODE(i + 1, j, 0), c = NODE(i + 1, j + 1, 0),
                e = NODE(i, j + 1, 0);
        int32_t t1[3] = {a, b, c}, t2[3] = {a, c, e};
        memcpy(el + t, t1, sizeof t1), t += 3;
        memcpy(el + t, t2, sizeof t2), t += 3;
      }
  } else {
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int i = 0; i < n0; i++)
      for (int j = 0; j < n1; j++)
        for (int k = 0; k < n2; k++)
          for (int q = 0; q < 6; q++) {
            /* Kuhn simplex: walk from corner (0,0,0) to (1,1,1) along the
             * axes in the order perm[q] */
            int c[3] = {0, 0, 0};
            int32_t tet[4];
            tet[0] = NODE(i, j, k);
            for (int s = 0; s < 3; s++) {
              c[perm[q][s]] = 1;
              tet[s + 1] = NODE(i + c[0], j + c[1], k + c[2]);
            }
            orient(3, X, tet);
            memcpy(el + t, tet, sizeof tet);
            t += 4;
          }
  }
#undef NODE
  int st = tide_tetmesh_new(dim, nper, nn, X, nc * per, el, "box", NULL, out);
  tide_free(X, xb);
  tide_free(el, eb);
  return st;
}

/* ------------------------------------------------------------------ BCC */

typedef struct lattice {
  int dim;
  int n[3];     /* cubes per axis */
  double lo[3], h;
  int64_t ncorner, ncentre;
} lattice;

static int64_t corner_id(const lattice *L, int i, int j, int k) {
  return ((int64_t)i * (L->n[1] + 1) + j) * (L->dim == 3 ? L->n[2] + 1 : 1) + (L->dim == 3 ? k : 0);
}
static int64_t centre_id(const lattice *L, int i, int j, int k) {
  return L->ncorner + ((int64_t)i * L->n[1] + j) * (L->dim == 3 ? L->n[2] : 1) + (L->dim == 3 ? k : 0);
}

static void lattice_pos(const lattice *L, int64_t id, double *x) {
  int d = L->dim;
  if (id < L->ncorner) {
    int64_t nk = d == 3 ? L->n[2] + 1 : 1, nj = L->n[1] + 1;
    int64_t i = id / (nj * nk), j = (id / nk) % nj, k = id % nk;
    x[0] = L->lo[0] + L->h * i;
    x[1] = L->lo[1] + L->h * j;
    if (d == 3) x[2] = L->lo[2] + L->h * k;
  } else {
    id -= L->ncorner;
    int64_t nk = d == 3 ? L->n[2] : 1, nj = L->n[1];
    int64_t i = id / (nj * nk), j = (id / nk) % nj, k = id % nk;
    x[0] = L->lo[0] + L->h * (i + 0.5);
    x[1] = L->lo[1] + L->h * (j + 0.5);
    if (d == 3) x[2] = L->lo[2] + L->h * (k + 0.5);
  }
}

/* keep the element when its centroid is inside */
static int keep_elem(const lattice *L, const tide_shape *shape, const int64_t *ids, int np,
                     int32_t *out) {
  double c[3] = {0, 0, 0}, x[3];
  for (int a = 0; a < np; a++) {
    lattice_pos(L, ids[a], x);
    for (int k = 0; k < L->dim; k++) c[k] += x[k] / np;
  }
  if (!(tide_shape_eval(shape, c) < 0)) return 0;
  for (int a = 0; a < np; a++) out[a] = (int32_t)ids[a];
  return 1;
}

static int bcc_elements(const lattice *L, const tide_shape *shape, ilist *el) {
  int d = L->dim, st;
  int32_t e[4];
  if (d == 2) {
    /* square centre with each square edge */
    for (int i = 0; i < L->n[0]; i++)
      for (int j = 0; j < L->n[1]; j++) {
        int64_t c = centre_id(L, i, j, 0);
        int64_t q[4] = {corner_id(L, i, j, 0), corner_id(L, i + 1, j, 0),
                        corner_id(L, i + 1, j + 1, 0), corner_id(L, i, j + 1, 0)};
        for (int s = 0; s < 4; s++) {
          int64_t ids[3] = {c, q[s], q[(s + 1) % 4]};
          if (keep_elem(L, shape, ids, 3, e) && (st = ilist_push(el, e, 3))) return st;
        }
      }
    return TIDE_OK;
  }
  /* 3D: 4 tetrahedra through each face shared by two cube centres */
  for (int ax = 0; ax < 3; ax++) {
    int lim[3] = {L->n[0], L->n[1], L->n[2]};
    lim[ax] -= 1;
    int b1 = (ax + 1) % 3, b2 = (ax + 2) % 3;
    for (int i = 0; i < lim[0]; i++)
      for (int j = 0; j < lim[1]; j++)
        for (int k = 0; k < lim[2]; k++) {
          int c[3] = {i, j, k}, c2[3] = {i, j, k};
          c2[ax]++;
          int64_t ca = centre_id(L, c[0], c[1], c[2]), cb = centre_id(L, c2[0], c2[1], c2[2]);
          /* face corners at plane c[ax]+1, around the square */
          int64_t q[4];
          static const int sq[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
          for (int s = 0; s < 4; s++) {
            int p[3] = {c[0], c[1], c[2]};
            p[ax] += 1;
            p[b1] += sq[s][0];
            p[b2] += sq[s][1];
            q[s] = corner_id(L, p[0], p[1], p[2]);
          }
          for (int s = 0; s < 4; s++) {
            int64_t ids[4] = {ca, cb, q[s], q[(s + 1) % 4]};
            if (keep_elem(L, shape, ids, 4, e) && (st = ilist_push(el, e, 4))) return st;
          }
        }
  }
  return TIDE_OK;
}

/* signed volume of element with node `node` moved to y */
static double vol_with(int d, const double *X, const int32_t *el, int32_t node, const double *y) {
  double p[12];
  for (int a = 0; a <= d; a++) {
    const double *src = el[a] == node ? y : X + (int64_t)el[a] * d;
    for (int k = 0; k < d; k++) p[a * d + k] = src[k];
  }
  return tide_simplex_volume(d, p);
}

int tide_mesh_bcc(int dim, const tide_shape *shape, const double *lo, const double *hi, double h,
                  double minq, tide_tetmesh **out) {
  *out = NULL;
  if (dim != 2 && dim != 3) return tide_fail(TIDE_EINVAL, "bcc: dimension must be 2 or 3");
  if (shape->dim != dim) return tide_fail(TIDE_EINVAL, "bcc: shape dimension differs from %d", dim);
  if (!(h > 0) || !isfinite(h)) return tide_fail(TIDE_EINVAL, "bcc: spacing h must be positive");
  if (!(minq >= 0 && minq < 1)) return tide_fail(TIDE_EINVAL, "bcc: minq must be in [0, 1)");
  lattice L;
  memset(&L, 0, sizeof L);
  L.dim = dim;
  L.h = h;
  int64_t ncube = 1;
  for (int k = 0; k < dim; k++) {
    if (!isfinite(lo[k]) || !isfinite(hi[k]) || !(hi[k] > lo[k]))
      return tide_fail(TIDE_EINVAL, "bcc: need lo < hi on every axis");
    /* pad by one cell so the shape never touches the lattice border */
    L.lo[k] = lo[k] - h;
    double cells = ceil((hi[k] - lo[k]) / h) + 2;
    if (cells > 2048) return tide_fail(TIDE_EINVAL, "bcc: more than 2048 cells along an axis");
    L.n[k] = (int)cells;
    ncube *= L.n[k];
  }
  if (ncube > 20000000) return tide_fail(TIDE_EINVAL, "bcc: lattice too large");
  L.ncorner = (int64_t)(L.n[0] + 1) * (L.n[1] + 1) * (dim == 3 ? L.n[2] + 1 : 1);
  L.ncentre = ncube;
  int64_t nlat = L.ncorner + L.ncentre;
  ilist el = {0};
  int st = bcc_elements(&L, shape, &el);
  if (st) {
    ilist_free(&el);
    return st;
  }
  int nper = dim + 1;
  int64_t ne = el.n / nper;
  if (ne == 0) {
    ilist_free(&el);
    return tide_fail(TIDE_EINVAL, "bcc: the shape contains no lattice element (h too large?)");
  }
  /* compact used lattice nodes, in lattice order */
  size_t mb = (size_t)nlat * sizeof(int32_t);
  int32_t *map = tide_alloc(mb);
  if (!map) {
    ilist_free(&el);
    return TIDE_ENOMEM;
  }
  for (int64_t i = 0; i < nlat; i++) map[i] = -1;
  for (int64_t t = 0; t < el.n; t++) map[el.p[t]] = 0;
  int64_t nv = 0;
  for (int64_t i = 0; i < nlat; i++)
    if (map[i] == 0) map[i] = (int32_t)nv++;
  size_t xb = (size_t)(nv * dim) * sizeof(double);
  double *X = tide_alloc(xb);
  if (!X) {
    tide_free(map, mb);
    ilist_free(&el);
    return TIDE_ENOMEM;
  }
  for (int64_t i = 0; i < nlat; i++)
    if (map[i] >= 0) lattice_pos(&L, i, X + (int64_t)map[i] * dim);
  for (int64_t t = 0; t < el.n; t++) el.p[t] = map[el.p[t]];
  tide_free(map, mb);
  for (int64_t e = 0; e < ne; e++) orient(dim, X, el.p + e * nper);
  /* boundary snapping: build a temporary mesh for boundary and incidence */
  tide_tetmesh *m = NULL;
  if ((st = tide_tetmesh_new(dim, nper, nv, X, ne, el.p, "bcc", NULL, &m))) goto done;
  {
    size_t fb = (size_t)nv;
    uint8_t *bnd = tide_alloc(fb);
    if (!bnd) {
      st = TIDE_ENOMEM;
      goto done;
    }
    tide_tetmesh_boundary_nodes(m, bnd);
    const int32_t *ptr = TIDE_I32P(m->adj_ptr), *adj = TIDE_I32P(m->adj);
    const double *rv = TIDE_F64P(m->vol);
    const int32_t *E = TIDE_I32P(m->elem);
    double qfloor = minq > 1e-3 ? minq : 1e-3;
    /* a few passes: a node blocked by a neighbour may move once the
     * neighbour has moved */
    for (int pass = 0; pass < 3; pass++)
    for (int64_t i = 0; i < nv; i++) {
      if (!bnd[i]) continue;
      double *xi = X + i * dim, y[3] = {0, 0, 0}, g[3];
      memcpy(y, xi, sizeof(double) * (size_t)dim);
      /* Newton iterations toward phi = 0 along the (unit) normal */
      for (int it = 0; it < 4; it++) {
        double ph = tide_shape_eval(shape, y);
        tide_shape_normal(shape, y, 1e-4 * h, g);
        double gg = 0;
        for (int k = 0; k < dim; k++) gg += g[k] * g[k];
        if (!(gg > 0.25)) break; /* no reliable normal (medial axis) */
        for (int k = 0; k < dim; k++) y[k] -= ph * g[k] / gg;
      }
      double step[3];
      for (int k = 0; k < dim; k++) step[k] = y[k] - xi[k];
      for (int tries = 0; tries < 6; tries++) {
        double z[3];
        double frac = 1.0 / (1 << tries);
        for (int k = 0; k < dim; k++) z[k] = xi[k] + frac * step[k];
        int ok = 1;
        for (int32_t t = ptr[i]; t < ptr[i + 1] && ok; t++) {
          int64_t e = adj[t] / nper;
          if (!(vol_with(dim, X, E + e * nper, (int32_t)i, z) > qfloor * rv[e])) ok = 0;
        }
        if (ok) {
          memcpy(xi, z, sizeof(double) * (size_t)dim);
          break;
        }
      }
    }
    tide_free(bnd, fb);
    /* rebuild with snapped positions (orientation kept positive above) */
    tide_tetmesh_free(m);
    m = NULL;
    st = tide_tetmesh_new(dim, nper, nv, X, ne, el.p, "bcc", NULL, &m);
  }
done:
  if (st) {
    tide_tetmesh_free(m);
    m = NULL;
  }
  tide_free(X, xb);
  ilist_free(&el);
  *out = m;
  return st;
}
