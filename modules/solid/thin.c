/*
 * thin.c -- shells and rods as parts of a mesh: building the stencils
 * (hinges, bends), masses, and assembly of their energies, gradients and
 * Hessians (see thin.h).
 */
#include "solid/thin.h"
#include "solid/small.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* nodes per stencil of set w (1: triangles / segments, 2: hinges / bends,
 * 3: rod torsion hinges / shell bending triangles) */
static inline int set_nodes(const tide_thin_part *p, int w) {
  if (p->p.kind == TIDE_THIN_SHELL)
    return w == 1 ? 3 : w == 2 ? 4 : p->p.bend_model == TIDE_BEND_MORLEY ? 12 : 6;
  return w == 1 ? 2 : w == 2 ? 3 : 4;
}
static inline int64_t set_count(const tide_thin_part *p, int w) {
  return w == 1 ? p->n1 : w == 2 ? p->n2 : p->n3;
}
static inline const int32_t *set_nodes_of(const tide_thin_part *p, int w, int64_t s) {
  return TIDE_I32P(w == 1 ? p->s1 : w == 2 ? p->s2 : p->s3) + s * set_nodes(p, w);
}
/* a set whose stiffness is zero contributes nothing; a shell bends either
 * on its hinges or on its triangles */
static inline int set_off(const tide_thin_part *p, int w) {
  if (p->p.kind == TIDE_THIN_SHELL && w >= 2)
    return !(p->p.bending > 0) || (w == 2) != (p->p.bend_model == TIDE_BEND_HINGE);
  return (w == 2 && !(p->p.bending > 0)) || (w == 3 && !(p->p.twist > 0));
}

int64_t tide_thin_set(const tide_thin_part *p, int w, int *nodes, const int32_t **stencils) {
  *nodes = set_nodes(p, w);
  *stencils = set_count(p, w) ? set_nodes_of(p, w, 0) : NULL;
  return set_count(p, w);
}
static int64_t set_nnz(const tide_thin_part *p, int w, int d) {
  int64_t k = (int64_t)set_nodes(p, w) * d;
  return set_count(p, w) * k * k;
}

void tide_thin_part_clear(tide_thin_part *pt) {
  tide_array_release(pt->s1);
  tide_array_release(pt->s2);
  tide_array_release(pt->r1);
  tide_array_release(pt->a1);
  tide_array_release(pt->r2);
  tide_array_release(pt->w2);
  tide_array_release(pt->s3);
  tide_array_release(pt->r3);
  tide_array_release(pt->w3);
  tide_array_release(pt->h3);
  memset(pt, 0, sizeof *pt);
}

static size_t abytes(const tide_array *a) { return a ? a->buf->bytes : 0; }

void tide_thin_free(tide_thin *t) {
  if (!t) return;
  for (int i = 0; i < t->nparts; i++) tide_thin_part_clear(&t->parts[i]);
  tide_free(t->parts, (size_t)t->nparts * sizeof *t->parts);
  tide_free(t->hn, (size_t)t->hn_size * sizeof(double));
  tide_free(t->hi, (size_t)t->hn_size * sizeof(int));
  tide_free(t->hj, (size_t)t->hn_size * sizeof(int));
  tide_free(t->sbuf, (size_t)t->sbuf_size * sizeof(double));
  tide_free(t, sizeof *t);
}

size_t tide_thin_bytes(const tide_thin *t) {
  if (!t) return 0;
  size_t b = sizeof *t + (size_t)t->nparts * sizeof *t->parts +
             (size_t)t->hn_size * (sizeof(double) + 2 * sizeof(int)) +
             (size_t)t->sbuf_size * sizeof(double);
  for (int i = 0; i < t->nparts; i++) {
    const tide_thin_part *p = &t->parts[i];
    b += abytes(p->s1) + abytes(p->s2) + abytes(p->r1) + abytes(p->a1) + abytes(p->r2) +
         abytes(p->w2) + abytes(p->s3) + abytes(p->r3) + abytes(p->w3) + abytes(p->h3);
  }
  return b;
}

/* ------------------------------------------------------ building parts */

typedef struct edge_rec {
  int32_t lo, hi; /* sorted nodes */
  int32_t u, v;   /* as oriented in the triangle */
  int32_t w;      /* opposite node */
} edge_rec;

static int edge_cmp(const void *pa, const void *pb) {
  const edge_rec *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return 0; /* qsort is not stable: ties are resolved below by triangle order */
}

static int build_hinges(const tide_tetmesh *m, tide_thin_part *pt) {
  const int32_t *tri = TIDE_I32P(pt->s1);
  int64_t ne = pt->n1 * 3;
  size_t bytes = (size_t)(ne > 0 ? ne : 1) * sizeof(edge_rec);
  edge_rec *E = tide_alloc(bytes);
  if (!E) return TIDE_ENOMEM;
  for (int64_t t = 0; t < pt->n1; t++)
    for (int k = 0; k < 3; k++) {
      edge_rec *r = &E[t * 3 + k];
      r->u = tri[t * 3 + k];
      r->v = tri[t * 3 + (k + 1) % 3];
      r->w = tri[t * 3 + (k + 2) % 3];
      r->lo = r->u < r->v ? r->u : r->v;
      r->hi = r->u < r->v ? r->v : r->u;
    }
  /* stable order: sort keys then, within equal keys, by position (w, u
   * make records of distinct triangles distinct) */
  qsort(E, (size_t)ne, sizeof *E, edge_cmp);
  int64_t nh = 0;
  for (int64_t i = 0; i < ne;) {
    int64_t j = i + 1;
    while (j < ne && E[j].lo == E[i].lo && E[j].hi == E[i].hi) j++;
    if (j - i == 2) nh++;
    i = j;
  }
  pt->n2 = nh;
  pt->s2 = tide_array_new2(TIDE_I32, nh, 4);
  pt->r2 = tide_array_new1(TIDE_F64, nh);
  pt->w2 = tide_array_new1(TIDE_F64, nh);
  if (!pt->s2 || !pt->r2 || !pt->w2) {
    tide_free(E, bytes);
    return TIDE_ENOMEM;
  }
  int32_t *h = TIDE_I32P(pt->s2);
  const double *X = TIDE_F64P(m->rest);
  int64_t k = 0;
  for (int64_t i = 0; i < ne;) {
    int64_t j = i + 1;
    while (j < ne && E[j].lo == E[i].lo && E[j].hi == E[i].hi) j++;
    if (j - i == 2) {
      /* deterministic choice of the first wing: the smaller opposite node */
      const edge_rec *a = &E[i], *b = &E[i + 1];
      if (b->w < a->w) {
        const edge_rec *t = a;
        a = b, b = t;
      }
      int32_t n4[4] = {a->u, a->v, a->w, b->w};
      memcpy(h + k * 4, n4, sizeof n4);
      double p[12];
      for (int q = 0; q < 4; q++)
        for (int c = 0; c < 3; c++) p[q * 3 + c] = X[(int64_t)n4[q] * 3 + c];
      double e2 = 0, nA[3], nB[3], e[3], u[3], w[3];
      for (int c = 0; c < 3; c++) {
        e[c] = p[3 + c] - p[c];
        u[c] = p[6 + c] - p[c];
        w[c] = p[9 + c] - p[c];
        e2 += e[c] * e[c];
      }
      tide_cross3(e, u, nA);
      tide_cross3(w, e, nB);
      double A = 0.5 * (sqrt(nA[0] * nA[0] + nA[1] * nA[1] + nA[2] * nA[2]) +
                        sqrt(nB[0] * nB[0] + nB[1] * nB[1] + nB[2] * nB[2]));
      TIDE_F64P(pt->r2)[k] = tide_shell_dihedral(p);
      TIDE_F64P(pt->w2)[k] = e2 / A;
      k++;
    }
    i = j;
  }
  tide_free(E, bytes);
  return TIDE_OK;
}

/* the bending triangles of a shell part (TIDE_BEND_TRIANGLE, MORLEY): per
 * triangle its nodes, the wing across each edge (the triangle's first node
 * where there is none), the hinge of each edge (indices as build_hinges
 * numbers them: the same sort, the same groups) and K per unit D */
typedef struct tri_edge_rec {
  int32_t lo, hi; /* sorted nodes */
  int32_t t;      /* triangle */
  int32_t slot;   /* edge slot in the triangle: the edge opposite node slot */
} tri_edge_rec;

static int tri_edge_cmp(const void *pa, const void *pb) {
  const tri_edge_rec *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return a->slot < b->slot ? -1 : a->slot > b->slot;
}

static int build_bend_triangles(const tide_tetmesh *m, tide_thin_part *pt) {
  const int32_t *tri = TIDE_I32P(pt->s1);
  int64_t nt = pt->n1, ne = nt * 3;
  int morley = pt->p.bend_model == TIDE_BEND_MORLEY, ns = morley ? 12 : 6, nh = morley ? 9 : 3;
  pt->n3 = nt;
  pt->s3 = tide_array_new2(TIDE_I32, nt, ns);
  pt->h3 = tide_array_new2(TIDE_I32, nt, nh);
  pt->w3 = tide_array_new3(TIDE_F64, nt, nh, nh);
  /* per triangle edge (t, i): the wing, the hinge, the neighbour triangle */
  size_t bytes = (size_t)(ne > 0 ? ne : 1) * sizeof(tri_edge_rec);
  size_t ibytes = (size_t)(ne > 0 ? ne : 1) * 3 * sizeof(int32_t);
  tri_edge_rec *E = tide_alloc(bytes);
  int32_t *wing = tide_alloc(ibytes), *hng = wing + (ne > 0 ? ne : 1), *nb = hng + (ne > 0 ? ne : 1);
  if (!pt->s3 || !pt->h3 || !pt->w3 || !E || !wing) {
    tide_free(E, bytes);
    tide_free(wing, ibytes);
    return TIDE_ENOMEM;
  }
  for (int64_t t = 0; t < nt; t++)
    for (int i = 0; i < 3; i++) {
      int32_t a = tri[t * 3 + (i + 1) % 3], b = tri[t * 3 + (i + 2) % 3];
      E[t * 3 + i] = (tri_edge_rec){a < b ? a : b, a < b ? b : a, (int32_t)t, i};
      wing[t * 3 + i] = tri[t * 3]; /* no wing yet */
      hng[t * 3 + i] = nb[t * 3 + i] = -1;
    }
  qsort(E, (size_t)ne, sizeof *E, tri_edge_cmp);
  int32_t hinge = 0;
  for (int64_t i = 0; i < ne;) {
    int64_t j = i + 1;
    while (j < ne && E[j].lo == E[i].lo && E[j].hi == E[i].hi) j++;
    if (j - i == 2) { /* an interior edge: hinge `hinge`, as in build_hinges */
      for (int q = 0; q < 2; q++) {
        const tri_edge_rec *r = &E[i + q], *o = &E[i + 1 - q];
        wing[(int64_t)r->t * 3 + r->slot] = tri[(int64_t)o->t * 3 + o->slot];
        hng[(int64_t)r->t * 3 + r->slot] = hinge;
        nb[(int64_t)r->t * 3 + r->slot] = o->t;
      }
      hinge++;
    }
    i = j;
  }
  tide_free(E, bytes);
  int32_t *s3 = TIDE_I32P(pt->s3), *h3 = TIDE_I32P(pt->h3);
  for (int64_t t = 0; t < nt; t++) {
    int32_t *sl = s3 + t * ns, *hl = h3 + t * nh;
    for (int i = 0; i < 3; i++) {
      sl[i] = tri[t * 3 + i];
      sl[3 + i] = wing[t * 3 + i];
      hl[i] = hng[t * 3 + i];
    }
    if (!morley) continue;
    /* neighbour N_i = (b, a, w_i): its wings across (a, w_i) (the edge
     * opposite b) and (w_i, b) (opposite a), and their hinges */
    for (int i = 0; i < 3; i++) {
      int32_t a = sl[(i + 1) % 3], b = sl[(i + 2) % 3], n = nb[t * 3 + i];
      for (int k = 0; k < 2; k++) {
        sl[6 + 2 * i + k] = sl[0];
        hl[3 + 2 * i + k] = -1;
      }
      if (n < 0) continue;
      for (int k = 0; k < 3; k++) {
        int32_t v = tri[(int64_t)n * 3 + k];
        int at = v == b ? 0 : v == a ? 1 : -1;
        if (at < 0) continue;
        sl[6 + 2 * i + at] = wing[(int64_t)n * 3 + k];
        hl[3 + 2 * i + at] = hng[(int64_t)n * 3 + k];
      }
    }
  }
  tide_free(wing, ibytes);
  if (hinge != pt->n2) return tide_fail(TIDE_EINVAL, "bending triangles: %d hinges, expected %lld",
                                        hinge, (long long)pt->n2);
  const double *X = TIDE_F64P(m->rest);
  for (int64_t t = 0; t < nt; t++) {
    double q[36];
    int present = 0;
    for (int a = 0; a < ns; a++)
      for (int c = 0; c < 3; c++) q[a * 3 + c] = X[(int64_t)s3[t * ns + a] * 3 + c];
    int st;
    if (morley) {
      /* slot 3 + i: the edge's hinge; slots 6 + 2i + k: N_i's hinge 3 + 2i + k */
      for (int a = 0; a < 3; a++)
        if (h3[t * nh + a] >= 0) present |= 1 << (3 + a);
      for (int a = 3; a < 9; a++)
        if (h3[t * nh + a] >= 0) present |= 1 << (3 + a);
      st = tide_shell_bend_morley_rest(q, present, pt->p.poisson, TIDE_F64P(pt->w3) + t * 81);
    } else {
      for (int a = 0; a < 3; a++)
        if (h3[t * nh + a] >= 0) present |= 1 << a;
      st = tide_shell_bend_triangle_rest(q, present, pt->p.poisson, TIDE_F64P(pt->w3) + t * 9);
    }
    if (st) return st;
  }
  return TIDE_OK;
}

/* the bend stencils of a segment network: per node, incident segments
 * paired by the straightest continuation */
static int build_bends(const tide_tetmesh *m, tide_thin_part *pt, int64_t nb_user,
                       const int32_t *user) {
  int d = m->dim;
  const int32_t *seg = TIDE_I32P(pt->s1);
  const double *X = TIDE_F64P(m->rest);
  int64_t nv = m->nv, ns = pt->n1;
  int32_t *out = NULL;
  int64_t nb = 0, cap = 0;
  if (user) {
    nb = nb_user;
    out = (int32_t *)user;
  } else {
    /* node -> incident segments (CSR) */
    size_t pb = (size_t)(nv + 1) * sizeof(int64_t), ib = (size_t)(2 * ns + 1) * sizeof(int64_t);
    int64_t *ptr = tide_calloc(pb), *inc = tide_alloc(ib);
    if (!ptr || !inc) {
      tide_free(ptr, pb);
      tide_free(inc, ib);
      return TIDE_ENOMEM;
    }
    for (int64_t s = 0; s < 2 * ns; s++) ptr[seg[s] + 1]++;
    for (int64_t i = 0; i < nv; i++) ptr[i + 1] += ptr[i];
    int64_t *cur = tide_alloc(pb);
    if (!cur) {
      tide_free(ptr, pb);
      tide_free(inc, ib);
      return TIDE_ENOMEM;
    }
    memcpy(cur, ptr, pb);
    for (int64_t s = 0; s < 2 * ns; s++) inc[cur[seg[s]]++] = s; /* s = 2*segment + end */
    tide_free(cur, pb);
    cap = ns;
    size_t ob = (size_t)(3 * (cap > 0 ? cap : 1)) * sizeof(int32_t);
    out = tide_alloc(ob);
    if (!out) {
      tide_free(ptr, pb);
      tide_free(inc, ib);
      return TIDE_ENOMEM;
    }
    for (int64_t i = 0; i < nv; i++) {
      int64_t k0 = ptr[i], deg = ptr[i + 1] - k0;
      if (deg < 2) continue;
      /* directions from node i to the other end of each incident segment */
      enum { MAXDEG = 32 };
      if (deg > MAXDEG) deg = MAXDEG; /* beyond that, the first 32 segments pair */
      double dir[MAXDEG][3];
      int32_t other[MAXDEG];
      int used[MAXDEG] = {0};
      for (int64_t a = 0; a < deg; a++) {
        int64_t s = inc[k0 + a];
        other[a] = seg[(s / 2) * 2 + (1 - s % 2)];
        double l = 0;
        for (int c = 0; c < d; c++) {
          dir[a][c] = X[(int64_t)other[a] * d + c] - X[i * d + c];
          l += dir[a][c] * dir[a][c];
        }
        l = sqrt(l);
        for (int c = 0; c < d; c++) dir[a][c] /= l;
      }
      for (;;) { /* greedily the most opposite pair */
        double best = 2;
        int ba = -1, bb = -1;
        for (int a = 0; a < deg; a++)
          for (int b = a + 1; b < deg; b++) {
            if (used[a] || used[b] || other[a] == other[b]) continue;
            double c = 0;
            for (int q = 0; q < d; q++) c += dir[a][q] * dir[b][q];
            if (c < best) best = c, ba = a, bb = b;
          }
        if (ba < 0) break;
        used[ba] = used[bb] = 1;
        if (nb == cap) { /* cannot exceed ns (each pair uses two segment ends) */
          break;
        }
        out[nb * 3] = other[ba];
        out[nb * 3 + 1] = (int32_t)i;
        out[nb * 3 + 2] = other[bb];
        nb++;
      }
    }
    tide_free(ptr, pb);
    tide_free(inc, ib);
  }
  int st = TIDE_OK;
  pt->n2 = nb;
  pt->s2 = tide_array_new2(TIDE_I32, nb, 3);
  pt->r2 = tide_array_new1(TIDE_F64, nb);
  pt->w2 = tide_array_new1(TIDE_F64, nb);
  if (!pt->s2 || !pt->r2 || !pt->w2) st = TIDE_ENOMEM;
  for (int64_t b = 0; !st && b < nb; b++) {
    double p[9];
    double l0 = 0;
    for (int q = 0; q < 3; q++) {
      int32_t n = out[b * 3 + q];
      if (n < 0 || n >= nv) {
        st = tide_fail(TIDE_EINVAL, "bend %lld refers to node %d, outside 1..%lld",
                       (long long)b + 1, n + 1, (long long)nv);
        break;
      }
      for (int c = 0; c < d; c++) p[q * d + c] = X[(int64_t)n * d + c];
    }
    if (st) break;
    for (int q = 0; q < 2; q++) {
      double l = 0;
      for (int c = 0; c < d; c++) l += (p[(q + 1) * d + c] - p[q * d + c]) * (p[(q + 1) * d + c] - p[q * d + c]);
      if (!(l > 0)) {
        st = tide_fail(TIDE_EINVAL, "bend %lld has a zero-length segment", (long long)b + 1);
        break;
      }
      l0 += sqrt(l);
    }
    if (st) break;
    memcpy(TIDE_I32P(pt->s2) + b * 3, out + b * 3, 3 * sizeof(int32_t));
    TIDE_F64P(pt->r2)[b] = tide_rod_curvature(d, p);
    TIDE_F64P(pt->w2)[b] = l0;
  }
  if (!user) tide_free(out, (size_t)(3 * (cap > 0 ? cap : 1)) * sizeof(int32_t));
  return st;
}

/* torsion stencils of a rod: for every segment (i, q) with a bend
 * (p, i, q) at i and a bend (i, q, r) at q, the hinge (i, q, p, r) whose
 * dihedral angle is the turn of the osculating plane along the segment;
 * segments whose rest neighbourhood is straight (no plane) get none */
static int build_torsion(const tide_tetmesh *m, tide_thin_part *pt) {
  pt->n3 = 0;
  if (!(pt->p.twist > 0)) {
    pt->s3 = tide_array_new2(TIDE_I32, 0, 4);
    pt->r3 = tide_array_new1(TIDE_F64, 0);
    pt->w3 = tide_array_new1(TIDE_F64, 0);
    return pt->s3 && pt->r3 && pt->w3 ? TIDE_OK : TIDE_ENOMEM;
  }
  int64_t nb = pt->n2, cap = nb > 0 ? nb : 1;
  const int32_t *b = TIDE_I32P(pt->s2);
  const double *X = TIDE_F64P(m->rest);
  pt->s3 = tide_array_new2(TIDE_I32, cap, 4);
  pt->r3 = tide_array_new1(TIDE_F64, cap);
  pt->w3 = tide_array_new1(TIDE_F64, cap);
  if (!pt->s3 || !pt->r3 || !pt->w3) return TIDE_ENOMEM;
  int64_t k = 0;
  /* bends sharing a segment: bend u = (p, i, q) and bend v = (i, q, r) or
   * (r, q, i); quadratic in the bends of a node pair, linear overall for
   * rods (each bend is found by scanning the few bends of its end node) */
  for (int64_t u = 0; u < nb; u++)
    for (int64_t v = 0; v < nb; v++) {
      if (u == v) continue;
      int32_t p = b[u * 3], i = b[u * 3 + 1], q = b[u * 3 + 2];
      if (b[v * 3 + 1] != q) continue;
      int32_t r;
      if (b[v * 3] == i)
        r = b[v * 3 + 2];
      else if (b[v * 3 + 2] == i)
        r = b[v * 3];
      else
        continue;
      if (p == r || k == cap) continue;
      double x[12];
      int32_t n4[4] = {i, q, p, r};
      for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++) x[a * 3 + c] = X[(int64_t)n4[a] * 3 + c];
      double e[3], s1[3], s2[3], nA[3], nB[3], l2 = 0;
      for (int c = 0; c < 3; c++) {
        e[c] = x[3 + c] - x[c];
        s1[c] = x[6 + c] - x[c];
        s2[c] = x[9 + c] - x[c];
        l2 += e[c] * e[c];
      }
      tide_cross3(e, s1, nA);
      tide_cross3(s2, e, nB);
      double a2 = nA[0] * nA[0] + nA[1] * nA[1] + nA[2] * nA[2];
      double b2 = nB[0] * nB[0] + nB[1] * nB[1] + nB[2] * nB[2];
      if (!(a2 > 1e-6 * l2 * l2) || !(b2 > 1e-6 * l2 * l2)) continue; /* straight: no plane */
      memcpy(TIDE_I32P(pt->s3) + k * 4, n4, sizeof n4);
      TIDE_F64P(pt->r3)[k] = tide_shell_dihedral(x);
      TIDE_F64P(pt->w3)[k] = sqrt(l2);
      k++;
    }
  /* each segment was found from both of its bends: keep the first of each
   * pair (i < q) */
  int64_t kk = 0;
  for (int64_t t = 0; t < k; t++) {
    const int32_t *h = TIDE_I32P(pt->s3) + t * 4;
    if (h[0] > h[1]) continue;
    if (kk != t) {
      memmove(TIDE_I32P(pt->s3) + kk * 4, h, 4 * sizeof(int32_t));
      TIDE_F64P(pt->r3)[kk] = TIDE_F64P(pt->r3)[t];
      TIDE_F64P(pt->w3)[kk] = TIDE_F64P(pt->w3)[t];
    }
    kk++;
  }
  pt->n3 = kk;
  return TIDE_OK;
}

static int check_params(const tide_tetmesh *m, const tide_thin_params *p) {
  if (p->kind == TIDE_THIN_SHELL) {
    if (m->dim != 3) return tide_fail(TIDE_EINVAL, "shells live in 3D");
    if (p->mat.model == TIDE_MODEL_LINEAR)
      return tide_fail(TIDE_EINVAL, "the membrane needs a rotation-invariant model (stvk, "
                                    "neohookean, fixed_corotated, ...), not linear");
    int st = tide_material_check(&p->mat);
    if (st) return st;
    if (!(p->thickness > 0) || !isfinite(p->thickness))
      return tide_fail(TIDE_EINVAL, "shell thickness must be positive, got %g", p->thickness);
  } else if (p->kind == TIDE_THIN_ROD) {
    if (!(p->stretch > 0) || !isfinite(p->stretch))
      return tide_fail(TIDE_EINVAL, "rod stretching stiffness EA must be positive, got %g",
                       p->stretch);
  } else {
    return tide_fail(TIDE_EINVAL, "unknown thin part kind %d", p->kind);
  }
  if (!(p->bending >= 0) || !isfinite(p->bending))
    return tide_fail(TIDE_EINVAL, "bending stiffness must be >= 0, got %g", p->bending);
  if (!(p->density > 0) || !isfinite(p->density))
    return tide_fail(TIDE_EINVAL, "density must be positive, got %g", p->density);
  if (!(p->twist >= 0) || !isfinite(p->twist))
    return tide_fail(TIDE_EINVAL, "twist stiffness must be >= 0, got %g", p->twist);
  if (p->twist > 0 && (p->kind != TIDE_THIN_ROD || m->dim != 3))
    return tide_fail(TIDE_EINVAL, "twist (geometric torsion) is for rods in 3D");
  if (p->bend_model != TIDE_BEND_HINGE && p->bend_model != TIDE_BEND_TRIANGLE &&
      p->bend_model != TIDE_BEND_MORLEY)
    return tide_fail(TIDE_EINVAL, "unknown shell bending model %d", p->bend_model);
  if (!(p->poisson > -1 && p->poisson < 0.5))
    return tide_fail(TIDE_EINVAL, "poisson ratio must be in (-1, 0.5), got %g", p->poisson);
  if (!(p->bend_yield >= 0) || !isfinite(p->bend_yield))
    return tide_fail(TIDE_EINVAL, "bend_yield must be >= 0, got %g", p->bend_yield);
  if (p->bend_yield > 0 && p->kind != TIDE_THIN_SHELL)
    return tide_fail(TIDE_EINVAL, "bend_yield (plastic bending) is for shells");
  if (!(p->damping >= 0) || !isfinite(p->damping))
    return tide_fail(TIDE_EINVAL, "damping must be >= 0, got %g", p->damping);
  return TIDE_OK;
}

int tide_thin_part_new(const tide_tetmesh *m, const tide_thin_params *p, int64_t n1,
                       const int32_t *s1, int64_t nbends, const int32_t *bends,
                       tide_thin_part *out) {
  memset(out, 0, sizeof *out);
  int st = check_params(m, p);
  if (st) return st;
  int k1 = p->kind == TIDE_THIN_SHELL ? 3 : 2, d = m->dim;
  for (int64_t i = 0; i < n1 * k1; i++)
    if (s1[i] < 0 || s1[i] >= m->nv)
      return tide_fail(TIDE_EINVAL, "stencil node %d outside 1..%lld", s1[i] + 1,
                       (long long)m->nv);
  out->p = *p;
  out->p.mat.plane_stress = 1;
  out->n1 = n1;
  out->nodes0 = 0;
  out->nodes1 = m->nv;
  out->s1 = tide_array_new2(TIDE_I32, n1, k1);
  if (!out->s1) return TIDE_ENOMEM;
  memcpy(TIDE_I32P(out->s1), s1, (size_t)(n1 * k1) * sizeof(int32_t));
  const double *X = TIDE_F64P(m->rest);
  if (p->kind == TIDE_THIN_SHELL) {
    out->r1 = tide_array_new3(TIDE_F64, n1, 2, 2);
    out->a1 = tide_array_new1(TIDE_F64, n1);
    if (!out->r1 || !out->a1) st = TIDE_ENOMEM;
    for (int64_t t = 0; !st && t < n1; t++) {
      double q[9];
      for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) q[a * 3 + c] = X[(int64_t)s1[t * 3 + a] * 3 + c];
      if (tide_shell_rest(q, TIDE_F64P(out->r1) + t * 4, TIDE_F64P(out->a1) + t))
        st = tide_fail(TIDE_EINVAL, "triangle %lld is degenerate (zero rest area)",
                       (long long)t + 1);
    }
    if (!st) st = build_hinges(m, out);
    if (!st && p->bend_model != TIDE_BEND_HINGE) st = build_bend_triangles(m, out);
  } else {
    out->r1 = tide_array_new1(TIDE_F64, n1);
    if (!out->r1) st = TIDE_ENOMEM;
    for (int64_t s = 0; !st && s < n1; s++) {
      double l = 0;
      for (int c = 0; c < d; c++) {
        double t = X[(int64_t)s1[2 * s + 1] * d + c] - X[(int64_t)s1[2 * s] * d + c];
        l += t * t;
      }
      if (!(l > 0)) st = tide_fail(TIDE_EINVAL, "segment %lld has zero length", (long long)s + 1);
      TIDE_F64P(out->r1)[s] = sqrt(l);
    }
    if (!st) st = build_bends(m, out, nbends, bends);
    if (!st) st = build_torsion(m, out);
  }
  if (st) tide_thin_part_clear(out);
  return st;
}

/* (re)size the per-stencil scratch: energies and gradients of every part */
static int thin_scratch(tide_thin *t, int d) {
  int64_t need = 0;
  for (int i = 0; i < t->nparts; i++)
    for (int w = 1; w <= TIDE_THIN_SETS; w++) {
      const tide_thin_part *p = &t->parts[i];
      need += set_count(p, w) * (1 + set_nodes(p, w) * d);
    }
  if (need <= t->sbuf_size) return TIDE_OK;
  double *b = tide_alloc((size_t)need * sizeof(double));
  if (!b) return TIDE_ENOMEM;
  tide_free(t->sbuf, (size_t)t->sbuf_size * sizeof(double));
  t->sbuf = b;
  t->sbuf_size = need;
  return TIDE_OK;
}

/* lumped masses of all parts added to mass (nv) */
static void thin_masses(const tide_tetmesh *m, const tide_thin *t, double *mass) {
  int d = m->dim;
  const double *X = TIDE_F64P(m->rest);
  for (int i = 0; i < t->nparts; i++) {
    const tide_thin_part *p = &t->parts[i];
    const int32_t *s1 = TIDE_I32P(p->s1);
    for (int64_t s = 0; s < p->n1; s++) {
      if (p->p.kind == TIDE_THIN_SHELL) {
        double share = p->p.density * TIDE_F64P(p->a1)[s] / 3;
        for (int a = 0; a < 3; a++) mass[s1[s * 3 + a]] += share;
      } else {
        double l = 0;
        for (int c = 0; c < d; c++) {
          double q = X[(int64_t)s1[2 * s + 1] * d + c] - X[(int64_t)s1[2 * s] * d + c];
          l += q * q;
        }
        double share = p->p.density * sqrt(l) / 2;
        mass[s1[2 * s]] += share;
        mass[s1[2 * s + 1]] += share;
      }
    }
  }
}

int tide_thin_attach(tide_tetmesh *m, const tide_thin_params *p) {
  if (m->surface == TIDE_MESH_VOLUME)
    return tide_fail(TIDE_EINVAL, "shells and rods need a triangle surface or segment mesh "
                                  "(this one has volume elements; combine with tide_thin_merge)");
  if ((m->surface == TIDE_MESH_SHELL) != (p->kind == TIDE_THIN_SHELL))
    return tide_fail(TIDE_EINVAL, "a %s mesh takes %s parameters",
                     m->surface == TIDE_MESH_SHELL ? "triangle surface" : "segment",
                     m->surface == TIDE_MESH_SHELL ? "shell" : "rod");
  tide_thin_part part;
  int st = tide_thin_part_new(m, p, m->ne, TIDE_I32P(m->elem), 0, NULL, &part);
  if (st) return st;
  if ((st = tide_fem_alloc(m))) {
    tide_thin_part_clear(&part);
    return st;
  }
  tide_fem *f = m->fem;
  tide_thin *t = f->thin;
  if (!t) {
    t = tide_calloc(sizeof *t);
    if (!t) {
      tide_thin_part_clear(&part);
      return TIDE_ENOMEM;
    }
    f->thin = t;
  }
  for (int i = 0; i < t->nparts; i++) tide_thin_part_clear(&t->parts[i]);
  if (t->nparts != 1) {
    tide_free(t->parts, (size_t)t->nparts * sizeof *t->parts);
    t->nparts = 0;
    if (!(t->parts = tide_calloc(sizeof *t->parts))) return TIDE_ENOMEM;
    t->nparts = 1;
  }
  t->parts[0] = part;
  if ((st = thin_scratch(t, m->dim))) return st;
  f->mat = p->mat;
  f->rho = p->density;
  double *mass = TIDE_F64P(f->mass);
  memset(mass, 0, (size_t)m->nv * sizeof(double));
  thin_masses(m, t, mass);
  return TIDE_OK;
}

/* ------------------------------------------------------------ assembly */

int64_t tide_thin_nnz(const tide_tetmesh *m) {
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  if (!t) return 0;
  int64_t n = 0;
  for (int i = 0; i < t->nparts; i++)
    for (int w = 1; w <= TIDE_THIN_SETS; w++) n += set_nnz(&t->parts[i], w, m->dim);
  return n;
}

/* energy, gradient, Hessian of stencil s of set w of part p at x */
static void stencil_eval(const tide_tetmesh *m, const tide_thin_part *p, int w, int64_t s,
                         const double *x, int project, double *E, double *g, double *H) {
  int d = m->dim, nn = set_nodes(p, w);
  const int32_t *el = set_nodes_of(p, w, s);
  double q[36];
  for (int a = 0; a < nn; a++)
    for (int c = 0; c < d; c++) q[a * d + c] = x[(int64_t)el[a] * d + c];
  if (p->p.kind == TIDE_THIN_SHELL) {
    if (w == 1)
      tide_shell_membrane(&p->p.mat, q, TIDE_F64P(p->r1) + s * 4,
                          p->p.thickness * TIDE_F64P(p->a1)[s], project, E, g, H);
    else if (w == 2)
      tide_shell_hinge(q, TIDE_F64P(p->r2)[s], 0.5 * p->p.bending * TIDE_F64P(p->w2)[s], project,
                       E, g, H);
    else { /* bending triangle: rest angles of its hinges, K scaled by D */
      int nh = p->p.bend_model == TIDE_BEND_MORLEY ? 9 : 3;
      const int32_t *hs = TIDE_I32P(p->h3) + s * nh;
      const double *K0 = TIDE_F64P(p->w3) + s * nh * nh;
      double th0[9], K[81];
      for (int i = 0; i < nh; i++) th0[i] = hs[i] >= 0 ? TIDE_F64P(p->r2)[hs[i]] : 0;
      for (int i = 0; i < nh * nh; i++) K[i] = p->p.bending * K0[i];
      if (nh == 9)
        tide_shell_bend_morley(q, th0, K, project, E, g, H);
      else
        tide_shell_bend_triangle(q, th0, K, project, E, g, H);
    }
  } else {
    if (w == 1)
      tide_rod_stretch(d, q, TIDE_F64P(p->r1)[s], p->p.stretch, project, E, g, H);
    else if (w == 2)
      tide_rod_bend(d, q, TIDE_F64P(p->r2)[s], p->p.bending / TIDE_F64P(p->w2)[s], project, E, g,
                    H);
    else /* geometric torsion: the hinge kernel on consecutive osculating planes */
      tide_shell_hinge(q, TIDE_F64P(p->r3)[s], 0.5 * p->p.twist / TIDE_F64P(p->w3)[s], project, E,
                       g, H);
  }
}

int tide_thin_energy(const tide_tetmesh *m, const double *x, double *E) {
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  *E = 0;
  if (!t) return TIDE_OK;
  double *eb = t->sbuf, total = 0;
  for (int i = 0; i < t->nparts; i++)
    for (int w = 1; w <= TIDE_THIN_SETS; w++) {
      const tide_thin_part *p = &t->parts[i];
      int64_t n = set_count(p, w);
      if (set_off(p, w)) continue;
#pragma omp parallel for schedule(static) if (n > TIDE_SOLID_PAR_ELEM)
      for (int64_t s = 0; s < n; s++) stencil_eval(m, p, w, s, x, 0, eb + s, NULL, NULL);
      total += tide_sum(n, eb);
    }
  *E = total;
  return TIDE_OK;
}

int tide_thin_gradient(const tide_tetmesh *m, const double *x, double scale, double *g) {
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  if (!t) return TIDE_OK;
  int d = m->dim;
  double *gb = t->sbuf;
  for (int i = 0; i < t->nparts; i++)
    for (int w = 1; w <= TIDE_THIN_SETS; w++) {
      const tide_thin_part *p = &t->parts[i];
      int64_t n = set_count(p, w);
      int nn = set_nodes(p, w), k = nn * d;
      if (set_off(p, w)) continue;
#pragma omp parallel for schedule(static) if (n > TIDE_SOLID_PAR_ELEM)
      for (int64_t s = 0; s < n; s++) stencil_eval(m, p, w, s, x, 0, NULL, gb + s * k, NULL);
      /* gather in stencil order: deterministic, thread-count independent */
      for (int64_t s = 0; s < n; s++) {
        const int32_t *el = set_nodes_of(p, w, s);
        for (int a = 0; a < nn; a++)
          for (int c = 0; c < d; c++) g[(int64_t)el[a] * d + c] += scale * gb[s * k + a * d + c];
      }
    }
  return TIDE_OK;
}

int tide_thin_hessian(const tide_tetmesh *m, const double *x, double scale, int flags,
                      tide_tripletbuf *tb) {
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  if (!t) return TIDE_OK;
  int d = m->dim, project = (flags & TIDE_FEM_PROJECT) != 0;
  const uint8_t *pinned = TIDE_U8P(m->fem->pinned);
  int64_t t0 = tb->start;
  for (int i = 0; i < t->nparts; i++)
    for (int w = 1; w <= TIDE_THIN_SETS; w++) {
      const tide_thin_part *p = &t->parts[i];
      int64_t n = set_count(p, w);
      int nn = set_nodes(p, w), k = nn * d;
      int zero = set_off(p, w);
#pragma omp parallel for schedule(static) if (n > TIDE_SOLID_PAR_ELEM)
      for (int64_t s = 0; s < n; s++) {
        double H[1296];
        if (zero)
          memset(H, 0, sizeof H);
        else
          stencil_eval(m, p, w, s, x, project, NULL, NULL, H);
        for (int r = 0; r < k * k; r++) H[r] *= scale;
        tide_fem_write_block(d, nn, set_nodes_of(p, w, s), H, flags, pinned, tb,
                             t0 + s * k * k);
      }
      t0 += n * k * k;
    }
  return TIDE_OK;
}

/* ------------------------------------------------------------- damping */

int tide_thin_has_damping(const tide_tetmesh *m) {
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  for (int i = 0; t && i < t->nparts; i++)
    if (t->parts[i].p.damping > 0) return 1;
  return 0;
}

int tide_thin_damping_prepare(tide_tetmesh *m, const double *xn) {
  tide_thin *t = m->fem ? m->fem->thin : NULL;
  if (!t || !tide_thin_has_damping(m)) return TIDE_OK;
  int64_t nnz = tide_thin_nnz(m);
  if (t->hn_size != nnz) {
    tide_free(t->hn, (size_t)t->hn_size * sizeof(double));
    tide_free(t->hi, (size_t)t->hn_size * sizeof(int));
    tide_free(t->hj, (size_t)t->hn_size * sizeof(int));
    t->hn_size = 0;
    t->hn = tide_alloc((size_t)nnz * sizeof(double));
    t->hi = tide_alloc((size_t)nnz * sizeof(int));
    t->hj = tide_alloc((size_t)nnz * sizeof(int));
    if (!t->hn || !t->hi || !t->hj) {
      tide_free(t->hn, (size_t)nnz * sizeof(double));
      tide_free(t->hi, (size_t)nnz * sizeof(int));
      tide_free(t->hj, (size_t)nnz * sizeof(int));
      t->hn = NULL, t->hi = t->hj = NULL;
      return TIDE_ENOMEM;
    }
    t->hn_size = nnz;
  }
  tide_tripletbuf tb = {t->hi, t->hj, t->hn, 0, 0};
  return tide_thin_hessian(m, xn, 1, TIDE_FEM_PROJECT, &tb);
}

int tide_thin_damping(const tide_tetmesh *m, const double *x, const double *xn, double dt,
                      double *E, double *g, tide_tripletbuf *tb) {
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  if (!t || !tide_thin_has_damping(m)) return TIDE_OK;
  if (!t->hn || t->hn_size != tide_thin_nnz(m))
    return tide_fail(TIDE_EINVAL, "thin damping: the start-of-step Hessian was not prepared");
  int d = m->dim;
  const uint8_t *pinned = TIDE_U8P(m->fem->pinned);
  double *eb = t->sbuf;
  int64_t t0 = 0;
  for (int i = 0; i < t->nparts; i++)
    for (int w = 1; w <= TIDE_THIN_SETS; w++) {
      const tide_thin_part *p = &t->parts[i];
      int64_t n = set_count(p, w);
      int nn = set_nodes(p, w), k = nn * d;
      /* the incremental potential carries dt^2 E, so the damping force
       * beta H v (v = dx / dt) enters it as dt^2 beta H dx / dt = c H dx */
      double c = p->p.damping * dt;
      if (c > 0) {
        /* per stencil: E_s = c/2 dx^T H dx, g_s = c H dx */
#pragma omp parallel for schedule(static) if (n > TIDE_SOLID_PAR_ELEM)
        for (int64_t s = 0; s < n; s++) {
          const int32_t *el = set_nodes_of(p, w, s);
          const double *H = t->hn + t0 + s * k * k;
          double dx[36], es = 0;
          for (int a = 0; a < nn; a++)
            for (int q = 0; q < d; q++)
              dx[a * d + q] = x[(int64_t)el[a] * d + q] - xn[(int64_t)el[a] * d + q];
          for (int r = 0; r < k; r++) {
            double hr = 0;
            for (int q = 0; q < k; q++) hr += H[r * k + q] * dx[q];
            es += dx[r] * hr;
            if (g) eb[n + s * k + r] = c * hr;
          }
          eb[s] = 0.5 * c * es;
        }
        if (E) *E += tide_sum(n, eb);
        if (g)
          for (int64_t s = 0; s < n; s++) {
            const int32_t *el = set_nodes_of(p, w, s);
            for (int a = 0; a < nn; a++)
              for (int q = 0; q < d; q++) g[(int64_t)el[a] * d + q] += eb[n + s * k + a * d + q];
          }
        if (tb)
#pragma omp parallel for schedule(static) if (n > TIDE_SOLID_PAR_ELEM)
          for (int64_t r = t0; r < t0 + n * k * k; r++) {
            int64_t ri = (tb->i[tb->start + r] - tb->offset) / d;
            int64_t ci = (tb->j[tb->start + r] - tb->offset) / d;
            if (!(pinned[ri] || pinned[ci])) tb->v[tb->start + r] += c * t->hn[r];
          }
      }
      t0 += n * k * k;
    }
  return TIDE_OK;
}

/* ------------------------------------------------------ plastic bending */

int64_t tide_thin_plastic_flow(tide_tetmesh *m, const double *x) {
  tide_thin *t = m->fem ? m->fem->thin : NULL;
  int64_t count = 0;
  for (int i = 0; t && i < t->nparts; i++) {
    tide_thin_part *p = &t->parts[i];
    double y = p->p.bend_yield;
    if (p->p.kind != TIDE_THIN_SHELL || !(y > 0)) continue;
    double *r2 = TIDE_F64P(p->r2);
    const int32_t *h = TIDE_I32P(p->s2);
#pragma omp parallel for schedule(static) reduction(+ : count) if (p->n2 > TIDE_SOLID_PAR_ELEM)
    for (int64_t s = 0; s < p->n2; s++) {
      double q[12];
      for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++) q[a * 3 + c] = x[(int64_t)h[s * 4 + a] * 3 + c];
      double th = tide_shell_dihedral(q), d = th - r2[s];
      while (d > M_PI) d -= 2 * M_PI;
      while (d <= -M_PI) d += 2 * M_PI;
      if (fabs(d) <= y) continue;
      r2[s] += d - (d > 0 ? y : -y);
      while (r2[s] > M_PI) r2[s] -= 2 * M_PI;
      while (r2[s] <= -M_PI) r2[s] += 2 * M_PI;
      count++;
    }
  }
  return count;
}

/* ------------------------------------------------------------- restore */

/* a (n x k) array of dtype with every entry in [lo, hi) (k = 0: 1-D) */
static int check_index_array(const tide_array *a, tide_dtype dtype, int64_t n, int k, int64_t lo,
                             int64_t hi, const char *what, int part) {
  if (!a && n == 0) return TIDE_OK;
  if (!a) return tide_fail(TIDE_EINVAL, "thin part %d: %s missing", part, what);
  if (!tide_array_contiguous(a)) return tide_fail(TIDE_EINVAL, "thin part %d: %s not contiguous", part, what);
  /* rows beyond n are unused capacity (rod torsion stencils) */
  if (a->dtype != dtype || a->shape[0] < n || tide_array_size(a) != a->shape[0] * (k ? k : 1))
    return tide_fail(TIDE_EINVAL, "thin part %d: %s has the wrong type or shape", part, what);
  if (dtype != TIDE_I32) return TIDE_OK;
  const int32_t *v = TIDE_I32P(a);
  for (int64_t q = 0; q < n * (k ? k : 1); q++)
    if (v[q] < lo || v[q] >= hi)
      return tide_fail(TIDE_EINVAL, "thin part %d: %s entry %lld is %d, outside %lld..%lld",
                       part, what, (long long)q + 1, v[q], (long long)lo, (long long)hi - 1);
  return TIDE_OK;
}

int tide_thin_install(tide_tetmesh *m, tide_thin_part *parts, int n) {
  if (!m->fem) return tide_fail(TIDE_EINVAL, "thin restore: the mesh has no material state");
  if (m->fem->thin) return tide_fail(TIDE_EINVAL, "thin restore: the mesh has thin parts already");
  int d = m->dim;
  for (int i = 0; i < n; i++) {
    const tide_thin_part *p = &parts[i];
    int st = check_params(m, &p->p);
    if (st) return st;
    int shell = p->p.kind == TIDE_THIN_SHELL, part = i + 1;
    if (p->n1 < 0 || p->n2 < 0 || p->n3 < 0 || p->nodes0 < 0 || p->nodes1 > m->nv ||
        p->nodes0 > p->nodes1)
      return tide_fail(TIDE_EINVAL, "thin part %d: bad counts or node range", part);
    if ((st = check_index_array(p->s1, TIDE_I32, p->n1, shell ? 3 : 2, 0, m->nv, "stencils 1", part)) ||
        (st = check_index_array(p->s2, TIDE_I32, p->n2, shell ? 4 : 3, 0, m->nv, "stencils 2", part)) ||
        (st = check_index_array(p->s3, TIDE_I32, p->n3, set_nodes(p, 3), 0, m->nv, "stencils 3", part)) ||
        (st = check_index_array(p->r1, TIDE_F64, p->n1, shell ? 4 : 0, 0, 0, "rest data 1", part)) ||
        (st = check_index_array(p->r2, TIDE_F64, p->n2, 0, 0, 0, "rest angles 2", part)) ||
        (st = check_index_array(p->w2, TIDE_F64, p->n2, 0, 0, 0, "weights 2", part)))
      return st;
    if (shell && (st = check_index_array(p->a1, TIDE_F64, p->n1, 0, 0, 0, "rest areas", part)))
      return st;
    if (shell && p->n3 &&
        ((st = check_index_array(p->h3, TIDE_I32, p->n3, p->p.bend_model == TIDE_BEND_MORLEY ? 9 : 3,
                                 -1, p->n2, "triangle hinges", part)) ||
         (st = check_index_array(p->w3, TIDE_F64, p->n3, p->p.bend_model == TIDE_BEND_MORLEY ? 81 : 9,
                                 0, 0, "triangle stiffness", part))))
      return st;
    if (!shell && p->n3 &&
        ((st = check_index_array(p->r3, TIDE_F64, p->n3, 0, 0, 0, "torsion angles", part)) ||
         (st = check_index_array(p->w3, TIDE_F64, p->n3, 0, 0, 0, "torsion lengths", part))))
      return st;
    if (shell && p->p.bend_model != TIDE_BEND_HINGE && p->n3 != p->n1)
      return tide_fail(TIDE_EINVAL, "thin part %d: %lld bending triangles for %lld triangles", part,
                       (long long)p->n3, (long long)p->n1);
    if (!shell && d != 2 && d != 3) return tide_fail(TIDE_EINVAL, "thin part %d: bad dimension", part);
  }
  tide_thin *t = tide_calloc(sizeof *t);
  if (!t) return TIDE_ENOMEM;
  if (!(t->parts = tide_calloc((size_t)(n > 0 ? n : 1) * sizeof *t->parts))) {
    tide_free(t, sizeof *t);
    return TIDE_ENOMEM;
  }
  for (int i = 0; i < n; i++) {
    t->parts[i] = parts[i];
    memset(&parts[i], 0, sizeof parts[i]);
  }
  t->nparts = n;
  int st = thin_scratch(t, d);
  if (st) {
    tide_thin_free(t);
    return st;
  }
  m->fem->thin = t;
  return TIDE_OK;
}

/* --------------------------------------------------------------- merge */

/* a part of mesh src with its node indices shifted by off */
static int part_shifted(const tide_thin_part *src, int64_t off, tide_thin_part *dst) {
  memset(dst, 0, sizeof *dst);
  dst->p = src->p;
  dst->n1 = src->n1;
  dst->n2 = src->n2;
  dst->nodes0 = src->nodes0 + off;
  dst->nodes1 = src->nodes1 + off;
  dst->n3 = src->n3;
  dst->s1 = tide_array_clone(src->s1, TIDE_I32);
  dst->s2 = tide_array_clone(src->s2, TIDE_I32);
  dst->s3 = src->s3 ? tide_array_clone(src->s3, TIDE_I32) : tide_array_new2(TIDE_I32, 0, 4);
  if (!dst->s1 || !dst->s2 || !dst->s3) {
    tide_thin_part_clear(dst);
    return TIDE_ENOMEM;
  }
  int32_t *a = TIDE_I32P(dst->s1), *b = TIDE_I32P(dst->s2);
  for (int64_t k = 0; k < tide_array_size(dst->s1); k++) a[k] += (int32_t)off;
  for (int64_t k = 0; k < tide_array_size(dst->s2); k++) b[k] += (int32_t)off;
  int32_t *c = TIDE_I32P(dst->s3);
  for (int64_t k = 0; k < tide_array_size(dst->s3); k++) c[k] += (int32_t)off;
  /* rest data is never modified: shared */
  dst->r1 = src->r1 ? tide_array_retain(src->r1) : NULL;
  dst->a1 = src->a1 ? tide_array_retain(src->a1) : NULL;
  dst->r2 = src->r2 ? tide_array_clone(src->r2, TIDE_F64) : NULL; /* plastic flow writes it */
  dst->w2 = src->w2 ? tide_array_retain(src->w2) : NULL;
  dst->r3 = src->r3 ? tide_array_retain(src->r3) : NULL;
  dst->w3 = src->w3 ? tide_array_retain(src->w3) : NULL;
  dst->h3 = src->h3 ? tide_array_retain(src->h3) : NULL;
  return TIDE_OK;
}

int tide_thin_merge(tide_tetmesh *const *ms, int n, tide_tetmesh **out) {
  *out = NULL;
  if (n < 1) return tide_fail(TIDE_EINVAL, "merge: no meshes");
  int d = ms[0]->dim, prim = TIDE_MESH_ROD, nparts = 0;
  int64_t nv = 0, nprim = 0;
  const tide_tetmesh *vmat = NULL;
  for (int i = 0; i < n; i++) {
    const tide_tetmesh *m = ms[i];
    if (m->dim != d) return tide_fail(TIDE_EINVAL, "merge: mesh %d is %dD, mesh 1 %dD", i + 1, m->dim, d);
    if (!m->fem) return tide_fail(TIDE_EINVAL, "merge: mesh %d has no material", i + 1);
    if (m->fem->Fpinv || m->fem->fiber)
      return tide_fail(TIDE_EINVAL, "merge: mesh %d is plastic or has fibres (not merged)", i + 1);
    if (m->surface < prim) prim = m->surface;
    if (m->fem->thin) nparts += m->fem->thin->nparts;
    if (m->surface == TIDE_MESH_VOLUME) {
      if (vmat && (memcmp(&vmat->fem->mat, &m->fem->mat, sizeof m->fem->mat) ||
                   vmat->fem->rho != m->fem->rho))
        return tide_fail(TIDE_EINVAL, "merge: volume meshes %d and %d have different materials",
                         (int)(vmat - ms[0]) + 1, i + 1);
      if (!vmat) vmat = m;
    }
    nv += m->nv;
  }
  if (nv > INT32_MAX / 4) return tide_fail(TIDE_EINVAL, "merge: too many nodes");
  int nper = prim == TIDE_MESH_VOLUME ? d + 1 : prim == TIDE_MESH_SHELL ? 3 : 2;
  for (int i = 0; i < n; i++)
    if (ms[i]->surface == prim) nprim += ms[i]->ne;
  size_t xb = (size_t)(nv * d) * sizeof(double), eb = (size_t)(nprim * nper) * sizeof(int32_t);
  double *X = tide_alloc(xb);
  int32_t *E = tide_alloc(eb);
  if (!X || !E) {
    tide_free(X, xb);
    tide_free(E, eb);
    return TIDE_ENOMEM;
  }
  int64_t off = 0, ke = 0;
  for (int i = 0; i < n; i++) {
    const tide_tetmesh *m = ms[i];
    memcpy(X + off * d, TIDE_F64P(m->rest), (size_t)(m->nv * d) * sizeof(double));
    if (m->surface == prim)
      for (int64_t k = 0; k < m->ne * nper; k++) E[ke++] = TIDE_I32P(m->elem)[k] + (int32_t)off;
    off += m->nv;
  }
  tide_tetmesh *r = NULL;
  int st = tide_tetmesh_new(d, nper, nv, X, nprim, E, "merge", NULL, &r);
  tide_free(X, xb);
  tide_free(E, eb);
  if (st) return st;
  if ((st = tide_fem_alloc(r))) goto fail;
  tide_fem *f = r->fem;
  const tide_tetmesh *first = vmat ? vmat : ms[0];
  f->mat = first->fem->mat;
  f->rho = first->fem->rho;
  memcpy(f->gravity, ms[0]->fem->gravity, sizeof f->gravity);
  f->tau_m = first->fem->tau_m;
  f->tau_k = first->fem->tau_k;
  tide_thin *t = tide_calloc(sizeof *t);
  if (!t || !(t->parts = tide_calloc((size_t)(nparts > 0 ? nparts : 1) * sizeof *t->parts))) {
    tide_free(t, sizeof *t);
    st = TIDE_ENOMEM;
    goto fail;
  }
  f->thin = t;
  off = 0;
  int64_t nshell_tri = 0;
  for (int i = 0; i < n; i++) {
    const tide_tetmesh *m = ms[i];
    size_t vb = (size_t)(m->nv * d) * sizeof(double);
    memcpy(TIDE_F64P(r->x) + off * d, TIDE_F64P(m->x), vb);
    memcpy(TIDE_F64P(r->v) + off * d, TIDE_F64P(m->v), vb);
    memcpy(TIDE_F64P(f->target) + off * d, TIDE_F64P(m->fem->target), vb);
    memcpy(TIDE_F64P(f->force) + off * d, TIDE_F64P(m->fem->force), vb);
    memcpy(TIDE_F64P(f->mass) + off, TIDE_F64P(m->fem->mass), (size_t)m->nv * sizeof(double));
    memcpy(TIDE_U8P(f->pinned) + off, TIDE_U8P(m->fem->pinned), (size_t)m->nv);
    const tide_thin *mt = m->fem->thin;
    for (int q = 0; mt && q < mt->nparts; q++) {
      if ((st = part_shifted(&mt->parts[q], off, &t->parts[t->nparts]))) goto fail;
      t->nparts++;
    }
    if (m->surface == TIDE_MESH_SHELL && prim == TIDE_MESH_VOLUME) nshell_tri += m->ne;
    off += m->nv;
  }
  if ((st = thin_scratch(t, d))) goto fail;
  if (nshell_tri) { /* the shells' triangles join the boundary (collisions, output) */
    int64_t nb = r->nb + nshell_tri;
    tide_array *b = tide_array_new2(TIDE_I32, nb, 3), *be = tide_array_new1(TIDE_I32, nb);
    if (!b || !be) {
      tide_array_release(b);
      tide_array_release(be);
      st = TIDE_ENOMEM;
      goto fail;
    }
    memcpy(TIDE_I32P(b), TIDE_I32P(r->bound), (size_t)(r->nb * 3) * sizeof(int32_t));
    memcpy(TIDE_I32P(be), TIDE_I32P(r->bound_elem), (size_t)r->nb * sizeof(int32_t));
    int64_t k = r->nb;
    off = 0;
    for (int i = 0; i < n; i++) {
      const tide_tetmesh *m = ms[i];
      for (int64_t e = 0; m->surface == TIDE_MESH_SHELL && e < m->ne; e++, k++) {
        for (int a = 0; a < 3; a++)
          TIDE_I32P(b)[k * 3 + a] = TIDE_I32P(m->elem)[e * 3 + a] + (int32_t)off;
        TIDE_I32P(be)[k] = -1; /* no volume element */
      }
      off += m->nv;
    }
    tide_array_release(r->bound);
    tide_array_release(r->bound_elem);
    r->bound = b, r->bound_elem = be, r->nb = nb;
  }
  *out = r;
  return TIDE_OK;
fail:
  tide_tetmesh_free(r);
  return st;
}
