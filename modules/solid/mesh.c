/*
 * mesh.c -- tide_tetmesh construction, validation, boundary extraction and
 * rest-shape precomputation (see mesh.h).
 */
#include "solid/mesh.h"
#include "solid/fem.h"
#include "solid/small.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double tide_simplex_volume(int dim, const double *p) {
  if (dim == 2) {
    double ax = p[2] - p[0], ay = p[3] - p[1], bx = p[4] - p[0], by = p[5] - p[1];
    return 0.5 * (ax * by - ay * bx);
  }
  double a[3], b[3], c[3];
  for (int k = 0; k < 3; k++) {
    a[k] = p[3 + k] - p[k];
    b[k] = p[6 + k] - p[k];
    c[k] = p[9 + k] - p[k];
  }
  return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
          a[2] * (b[0] * c[1] - b[1] * c[0])) /
         6.0;
}

/* gather the dim+1 vertex positions of element e */
static inline void gather(const tide_tetmesh *m, const double *x, int64_t e, double *p) {
  const int32_t *el = TIDE_I32P(m->elem) + e * m->nper;
  for (int a = 0; a < m->nper; a++)
    for (int k = 0; k < m->dim; k++) p[a * m->dim + k] = x[(int64_t)el[a] * m->dim + k];
}

/* ------------------------------------------------------------- boundary */

/* Faces of a positively oriented element with outward orientation (VTK
 * node order): tetrahedron (0,1,2,3), triangle (0,1,2). */
static const int tet_faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
static const int tri_edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};

typedef struct facekey {
  int32_t k[3];  /* sorted node indices (k[2] = -1 for segments) */
  int32_t n[3];  /* oriented node indices */
  int64_t elem;
} facekey;

static int face_cmp(const void *pa, const void *pb) {
  const facekey *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return a->elem < b->elem ? -1 : (a->elem > b->elem);
}

static void sort3(int32_t *k, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && k[j - 1] > k[j]; j--) {
      int32_t t = k[j];
      k[j] = k[j - 1];
      k[j - 1] = t;
    }
}

static int extract_boundary(tide_tetmesh *m) {
  const int32_t *el = TIDE_I32P(m->elem);
  if (m->surface == TIDE_MESH_ROD) { /* curves have no boundary faces */
    m->nb = 0;
    m->bound = tide_array_new2(TIDE_I32, 0, m->dim);
    m->bound_elem = tide_array_new1(TIDE_I32, 0);
    return m->bound && m->bound_elem ? TIDE_OK : TIDE_ENOMEM;
  }
  if (m->surface) {
    /* a surface is its own boundary */
    m->nb = m->ne;
    m->bound = tide_array_new2(TIDE_I32, m->ne, 3);
    m->bound_elem = tide_array_new1(TIDE_I32, m->ne);
    if (!m->bound || !m->bound_elem) return TIDE_ENOMEM;
    memcpy(TIDE_I32P(m->bound), el, (size_t)m->ne * 3 * sizeof(int32_t));
    for (int64_t e = 0; e < m->ne; e++) TIDE_I32P(m->bound_elem)[e] = (int32_t)e;
    return TIDE_OK;
  }
  int nf = m->dim + 1, fn = m->dim;
  int64_t nfaces = m->ne * nf;
  size_t bytes = (size_t)(nfaces > 0 ? nfaces : 1) * sizeof(facekey);
  facekey *f = tide_alloc(bytes);
  if (!f) return TIDE_ENOMEM;
  for (int64_t e = 0; e < m->ne; e++) {
    const int32_t *n = el + e * m->nper;
    for (int i = 0; i < nf; i++) {
      facekey *q = &f[e * nf + i];
      q->elem = e;
      q->k[2] = q->n[2] = -1;
      for (int j = 0; j < fn; j++) q->n[j] = n[m->dim == 3 ? tet_faces[i][j] : tri_edges[i][j]];
      memcpy(q->k, q->n, sizeof q->k);
      sort3(q->k, fn);
    }
  }
  qsort(f, (size_t)nfaces, sizeof *f, face_cmp);
  int64_t nb = 0;
  for (int64_t i = 0; i < nfaces;) {
    int64_t j = i + 1;
    while (j < nfaces && !memcmp(f[j].k, f[i].k, sizeof f[i].k)) j++;
    if (j - i == 1) f[nb++] = f[i];
    i = j;
  }
  m->nb = nb;
  m->bound = tide_array_new2(TIDE_I32, nb, fn);
  m->bound_elem = tide_array_new1(TIDE_I32, nb);
  if (!m->bound || !m->bound_elem) {
    tide_free(f, bytes);
    return TIDE_ENOMEM;
  }
  /* boundary faces in the order of their sorted node keys (deterministic) */
  for (int64_t i = 0; i < nb; i++) {
    memcpy(TIDE_I32P(m->bound) + i * fn, f[i].n, (size_t)fn * sizeof(int32_t));
    TIDE_I32P(m->bound_elem)[i] = (int32_t)f[i].elem;
  }
  tide_free(f, bytes);
  return TIDE_OK;
}

/* ------------------------------------------------------------ creation */

static int precompute(tide_tetmesh *m, const char *src, const int64_t *lines) {
  const double *X = TIDE_F64P(m->rest);
  int d = m->dim;
  m->Dminv = tide_array_new3(TIDE_F64, m->ne, d, d);
  m->vol = tide_array_new1(TIDE_F64, m->ne);
  if (!m->Dminv || !m->vol) return TIDE_ENOMEM;
  double *Dminv = TIDE_F64P(m->Dminv), *vol = TIDE_F64P(m->vol);
  int npos = 0, nneg = 0;
  int64_t first_bad = -1, first_neg = -1, first_pos = -1;
  for (int64_t e = 0; e < m->ne; e++) {
    double p[12];
    gather(m, X, e, p);
    double V = tide_simplex_volume(d, p);
    /* longest edge for the degeneracy test */
    double L2 = 0;
    for (int a = 0; a <= d; a++)
      for (int b = a + 1; b <= d; b++) {
        double s = 0;
        for (int k = 0; k < d; k++) s += (p[a * d + k] - p[b * d + k]) * (p[a * d + k] - p[b * d + k]);
        if (s > L2) L2 = s;
      }
    double Ld = d == 3 ? L2 * sqrt(L2) : L2;
    if (!(fabs(V) > 1e-10 * Ld)) {
      if (first_bad < 0) first_bad = e;
      continue;
    }
    if (V > 0) {
      npos++;
      if (first_pos < 0) first_pos = e;
    } else {
      nneg++;
      if (first_neg < 0) first_neg = e;
    }
    vol[e] = V;
  }
  const char *what = src ? src : "mesh";
  if (first_bad >= 0) {
    if (lines)
      return tide_fail(TIDE_EFORMAT, "%s:%lld: element %lld is degenerate (zero rest volume)", what,
                       (long long)lines[first_bad], (long long)first_bad + 1);
    return tide_fail(TIDE_EFORMAT, "%s: element %lld is degenerate (zero rest volume)", what,
                     (long long)first_bad + 1);
  }
  if (npos && nneg) {
    /* the minority orientation is the inverted one */
    int64_t e = npos >= nneg ? first_neg : first_pos;
    if (lines)
      return tide_fail(TIDE_EFORMAT,
                       "%s:%lld: element %lld is inverted (its orientation differs from the other "
                       "%d elements)",
                       what, (long long)lines[e], (long long)e + 1, npos >= nneg ? npos : nneg);
    return tide_fail(TIDE_EFORMAT,
                     "%s: element %lld is inverted (its orientation differs from the other %d "
                     "elements)",
                     what, (long long)e + 1, npos >= nneg ? npos : nneg);
  }
  if (nneg) {
    /* consistently negative: flip every element to VTK order */
    int32_t *el = TIDE_I32P(m->elem);
    for (int64_t e = 0; e < m->ne; e++) {
      int32_t t = el[e * m->nper + 1];
      el[e * m->nper + 1] = el[e * m->nper + 2];
      el[e * m->nper + 2] = t;
      vol[e] = -vol[e];
    }
  }
  for (int64_t e = 0; e < m->ne; e++) {
    double p[12], Dm[9];
    gather(m, X, e, p);
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) Dm[i * d + j] = p[(j + 1) * d + i] - p[i];
    tide_mat_inv(d, Dm, Dminv + e * d * d);
  }
  return TIDE_OK;
}

/* zero-area triangles of a surface, zero-length segments of a curve are
 * errors */
static int check_surface(const tide_tetmesh *m, const char *src, const int64_t *lines) {
  const double *X = TIDE_F64P(m->rest);
  const char *what = src ? src : "mesh";
  for (int64_t e = 0; m->surface == TIDE_MESH_ROD && e < m->ne; e++) {
    const int32_t *el = TIDE_I32P(m->elem) + 2 * e;
    double l2 = 0;
    for (int k = 0; k < m->dim; k++) {
      double t = X[(int64_t)el[1] * m->dim + k] - X[(int64_t)el[0] * m->dim + k];
      l2 += t * t;
    }
    if (!(l2 > 0)) {
      if (lines)
        return tide_fail(TIDE_EFORMAT, "%s:%lld: segment %lld has zero length", what,
                         (long long)lines[e], (long long)e + 1);
      return tide_fail(TIDE_EFORMAT, "%s: segment %lld has zero length", what, (long long)e + 1);
    }
  }
  for (int64_t e = 0; m->surface == TIDE_MESH_SHELL && e < m->ne; e++) {
    double p[9], u[3], w[3], n[3], L2 = 0;
    gather(m, X, e, p);
    for (int k = 0; k < 3; k++) {
      u[k] = p[3 + k] - p[k];
      w[k] = p[6 + k] - p[k];
    }
    tide_cross3(u, w, n);
    double a2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    for (int k = 0; k < 3; k++) L2 += u[k] * u[k] + w[k] * w[k];
    if (!(a2 > 1e-20 * L2 * L2)) {
      if (lines)
        return tide_fail(TIDE_EFORMAT, "%s:%lld: triangle %lld is degenerate (zero area)", what,
                         (long long)lines[e], (long long)e + 1);
      return tide_fail(TIDE_EFORMAT, "%s: triangle %lld is degenerate (zero area)", what,
                       (long long)e + 1);
    }
  }
  return TIDE_OK;
}

static int build_adjacency(tide_tetmesh *m) {
  m->adj_ptr = tide_array_new1(TIDE_I32, m->nv + 1);
  m->adj = tide_array_new1(TIDE_I32, m->ne * m->nper);
  if (!m->adj_ptr || !m->adj) return TIDE_ENOMEM;
  int32_t *ptr = TIDE_I32P(m->adj_ptr), *adj = TIDE_I32P(m->adj);
  const int32_t *el = TIDE_I32P(m->elem);
  for (int64_t t = 0; t < m->ne * m->nper; t++) ptr[el[t] + 1]++;
  for (int64_t i = 0; i < m->nv; i++) ptr[i + 1] += ptr[i];
  /* fill in element order using a running cursor (reuse adj_ptr shifted) */
  size_t cb = (size_t)m->nv * sizeof(int32_t);
  int32_t *cur = tide_alloc(cb ? cb : 1);
  if (!cur) return TIDE_ENOMEM;
  memcpy(cur, ptr, cb);
  for (int64_t t = 0; t < m->ne * m->nper; t++) adj[cur[el[t]]++] = (int32_t)t;
  tide_free(cur, cb ? cb : 1);
  return TIDE_OK;
}

int tide_tetmesh_new(int dim, int nper, int64_t nv, const double *X, int64_t ne,
                     const int32_t *elem, const char *src, const int64_t *lines,
                     tide_tetmesh **out) {
  *out = NULL;
  const char *what = src ? src : "mesh";
  if (dim != 2 && dim != 3) return tide_fail(TIDE_EINVAL, "%s: dimension must be 2 or 3", what);
  int surface = TIDE_MESH_VOLUME;
  if (nper == 3 && dim == 3)
    surface = TIDE_MESH_SHELL;
  else if (nper == 2)
    surface = TIDE_MESH_ROD;
  else if (nper != dim + 1)
    return tide_fail(TIDE_EINVAL, "%s: %d nodes per element do not fit dimension %d", what, nper,
                     dim);
  if (nv < 1 || ne < 1)
    return tide_fail(TIDE_EINVAL, "%s: a mesh needs nodes and elements (got %lld nodes, %lld "
                     "elements)", what, (long long)nv, (long long)ne);
  if (nv > INT32_MAX / 4 || ne > INT32_MAX / 4)
    return tide_fail(TIDE_EINVAL, "%s: mesh too large (%lld nodes, %lld elements)", what,
                     (long long)nv, (long long)ne);
  for (int64_t i = 0; i < nv * dim; i++)
    if (!isfinite(X[i]))
      return tide_fail(TIDE_ENONFINITE, "%s: node %lld has a non-finite coordinate", what,
                       (long long)(i / dim) + 1);
  for (int64_t e = 0; e < ne; e++)
    for (int a = 0; a < nper; a++) {
      int32_t n = elem[e * nper + a];
      if (n < 0 || n >= nv) {
        if (lines)
          return tide_fail(TIDE_EFORMAT, "%s:%lld: element %lld refers to node %d, outside 1..%lld",
                           what, (long long)lines[e], (long long)e + 1, n + 1, (long long)nv);
        return tide_fail(TIDE_EINVAL, "%s: element %lld refers to node %d, outside 1..%lld", what,
                         (long long)e + 1, n + 1, (long long)nv);
      }
      for (int b = 0; b < a; b++)
        if (elem[e * nper + b] == n) {
          if (lines)
            return tide_fail(TIDE_EFORMAT, "%s:%lld: element %lld repeats node %d", what,
                             (long long)lines[e], (long long)e + 1, n + 1);
          return tide_fail(TIDE_EINVAL, "%s: element %lld repeats node %d", what, (long long)e + 1,
                           n + 1);
        }
    }
  tide_tetmesh *m = tide_calloc(sizeof *m);
  if (!m) return TIDE_ENOMEM;
  m->dim = dim;
  m->nper = nper;
  m->surface = surface;
  m->nv = nv;
  m->ne = ne;
  m->rest = tide_array_new2(TIDE_F64, nv, dim);
  m->x = tide_array_new2(TIDE_F64, nv, dim);
  m->v = tide_array_new2(TIDE_F64, nv, dim);
  m->elem = tide_array_new2(TIDE_I32, ne, nper);
  int st = TIDE_OK;
  if (!m->rest || !m->x || !m->v || !m->elem) {
    st = TIDE_ENOMEM;
    goto fail;
  }
  memcpy(TIDE_F64P(m->rest), X, (size_t)(nv * dim) * sizeof(double));
  memcpy(TIDE_F64P(m->x), X, (size_t)(nv * dim) * sizeof(double));
  memcpy(TIDE_I32P(m->elem), elem, (size_t)(ne * nper) * sizeof(int32_t));
  if (!surface && (st = precompute(m, src, lines))) goto fail;
  if (surface && (st = check_surface(m, src, lines))) goto fail;
  if ((st = extract_boundary(m))) goto fail;
  if ((st = build_adjacency(m))) goto fail;
  *out = m;
  return TIDE_OK;
fail:
  tide_tetmesh_free(m);
  return st;
}

void tide_tetmesh_free(tide_tetmesh *m) {
  if (!m) return;
  tide_fem_free(m->fem);
  tide_array_release(m->rest);
  tide_array_release(m->x);
  tide_array_release(m->v);
  tide_array_release(m->elem);
  tide_array_release(m->bound);
  tide_array_release(m->bound_elem);
  tide_array_release(m->Dminv);
  tide_array_release(m->vol);
  tide_array_release(m->adj_ptr);
  tide_array_release(m->adj);
  tide_free(m, sizeof *m);
}

static size_t abytes(const tide_array *a) { return a ? a->buf->bytes : 0; }

size_t tide_tetmesh_bytes(const tide_tetmesh *m) {
  if (!m) return 0;
  return sizeof *m + abytes(m->rest) + abytes(m->x) + abytes(m->v) + abytes(m->elem) +
         abytes(m->bound) + abytes(m->bound_elem) + abytes(m->Dminv) + abytes(m->vol) +
         abytes(m->adj_ptr) + abytes(m->adj) +
         tide_fem_bytes(m->fem);
}

/* -------------------------------------------------------------- queries */

int tide_tetmesh_volumes(const tide_tetmesh *m, const double *x, double *vol_out) {
  if (m->surface)
    return tide_fail(TIDE_EINVAL, "a %s mesh has no volume elements",
                     m->surface == TIDE_MESH_ROD ? "rod" : "surface");
#pragma omp parallel for schedule(static) if (m->ne > TIDE_SOLID_PAR_MIN)
  for (int64_t e = 0; e < m->ne; e++) {
    double p[12];
    gather(m, x, e, p);
    vol_out[e] = tide_simplex_volume(m->dim, p);
  }
  return TIDE_OK;
}

int tide_tetmesh_total_volume(const tide_tetmesh *m, const double *x, double *out) {
  if (m->surface)
    return tide_fail(TIDE_EINVAL, "a %s mesh has no volume elements",
                     m->surface == TIDE_MESH_ROD ? "rod" : "surface");
  size_t bytes = (size_t)m->ne * sizeof(double);
  double *v = tide_alloc(bytes);
  if (!v) return TIDE_ENOMEM;
  tide_tetmesh_volumes(m, x, v);
  *out = tide_sum(m->ne, v);
  tide_free(v, bytes);
  return TIDE_OK;
}

int tide_tetmesh_boundary_normals(const tide_tetmesh *m, const double *x, double *normals,
                                  double *areas) {
  const int32_t *b = TIDE_I32P(m->bound);
  int d = m->dim;
#pragma omp parallel for schedule(static) if (m->nb > TIDE_SOLID_PAR_MIN)
  for (int64_t f = 0; f < m->nb; f++) {
    double n[3], a;
    if (d == 3) {
      const double *p0 = x + 3 * (int64_t)b[3 * f], *p1 = x + 3 * (int64_t)b[3 * f + 1],
                   *p2 = x + 3 * (int64_t)b[3 * f + 2];
      double u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
      double w[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
      tide_cross3(u, w, n);
      double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      a = 0.5 * l;
      for (int k = 0; k < 3; k++) n[k] = l > 0 ? n[k] / l : 0;
    } else {
      const double *p0 = x + 2 * (int64_t)b[2 * f], *p1 = x + 2 * (int64_t)b[2 * f + 1];
      double dx = p1[0] - p0[0], dy = p1[1] - p0[1], l = sqrt(dx * dx + dy * dy);
      a = l;
      n[0] = l > 0 ? dy / l : 0;
      n[1] = l > 0 ? -dx / l : 0;
    }
    if (normals)
      for (int k = 0; k < d; k++) normals[f * d + k] = n[k];
    if (areas) areas[f] = a;
  }
  return TIDE_OK;
}

int tide_tetmesh_boundary_nodes(const tide_tetmesh *m, uint8_t *flags) {
  memset(flags, 0, (size_t)m->nv);
  const int32_t *b = TIDE_I32P(m->bound);
  for (int64_t i = 0; i < m->nb * m->dim; i++) flags[b[i]] = 1;
  return TIDE_OK;
}
