/* liu_contact.c -- the velocity correction with contact of Liu et al.
 * (Sec. 4.3.6, Eq. 23, Fig. 8): the liquid-air faces (and, on request, the
 * air faces) around the vertices in contact take the weighted velocity of
 * those vertices (liu.h). */
#include "couple/liu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int inside(const tide_grid *g, const int c[3]) {
  for (int a = 0; a < 3; a++)
    if (c[a] < 0 || c[a] >= g->n[a]) return 0;
  return 1;
}

/* the checks shared by both contact functions: the MACs and finite vertices */
static int check_vertices(const char *fn, const tide_grid *g, int64_t nv, const double *x, const double *v,
                          tide_mac *u, tide_mac *fixed) {
  int st;
  if ((st = tide_mac_check(u, g, TIDE_F64, "u")) ||
      (st = tide_mac_check(fixed, g, TIDE_U8, "fixed")))
    return st;
  for (int64_t q = 0; q < nv * g->dim; q++)
    if (!isfinite(x[q]) || !isfinite(v[q]))
      return tide_fail(TIDE_ENONFINITE, "%s: vertex %lld: non-finite position or velocity", fn,
                       (long long)(q / g->dim + 1));
  return TIDE_OK;
}

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return a < b ? -1 : a > b;
}

/* position of f in the sorted list l[0..m), or -1 */
static int64_t find_face(const int64_t *l, int64_t m, int64_t f) {
  int64_t lo = 0, hi = m;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (l[mid] < f) lo = mid + 1;
    else hi = mid;
  }
  return lo < m && l[lo] == f ? lo : -1;
}

int tide_liu_contact_faces(const tide_grid *g, const double *phi, int interp, double dhat, int air,
                           int slip, int64_t nv, const double *x, const double *v, tide_mac *u,
                           tide_mac *fixed, int64_t *nfaces) {
  const char *fn = "liu contact faces";
  *nfaces = 0;
  if (interp != TIDE_LIU_LINEAR && interp != TIDE_LIU_QUADRATIC)
    return tide_fail(TIDE_EINVAL, "%s: interp must be linear (1) or quadratic (2)", fn);
  if (!(dhat > 0) || !isfinite(dhat))
    return tide_fail(TIDE_EINVAL, "%s: dhat must be positive and finite", fn);
  int st = check_vertices(fn, g, nv, x, v, u, fixed);
  if (st) return st;
  int dim = g->dim;
  int64_t off[3] = {0, 0, 0}, tot = 0;
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    off[a] = tot;
    tot += (int64_t)fd[0] * fd[1] * fd[2];
  }
  /* everything is sized by the vertices, nothing by the grid: the vertices in
   * contact (d < dhat) with their squared normal components, the marked faces
   * (global index off[a] + face index, at most 4 per axis and vertex) sorted,
   * and per marked face the weight, weighted velocity and weighted n_a^2 sums */
  size_t nvb = (size_t)(nv > 0 ? nv : 1);
  double *n2 = tide_alloc(nvb * 3 * sizeof(double));
  uint8_t *hit = tide_alloc(nvb);
  int64_t *fl = tide_alloc(nvb * 12 * sizeof(int64_t));
  double *acc = NULL;
  int64_t m = 0, nm = 0;
  if (!n2 || !hit || !fl) {
    st = TIDE_ENOMEM;
    goto done;
  }
  double dx = g->dx;
  /* the contact normal of each vertex in contact (the liquid's, at the vertex) */
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nv; i++) {
    double p[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      p[a] = x[i * dim + a];
    int b[3];
    tide_liu_stencil_base(g, interp, p, b);
    hit[i] = tide_liu_distance_value(g, phi, interp, b, p) < dhat;
    if (!hit[i]) continue;
    tide_liu_dist r;
    tide_liu_distance_at(g, phi, interp, b, p, &r);
    double gn = 0;
    for (int a = 0; a < dim; a++)
      gn += r.grad[a] * r.grad[a];
    for (int a = 0; a < dim; a++)
      n2[i * 3 + a] = gn > 0 ? r.grad[a] * r.grad[a] / gn : 1.0 / dim;
  }
  /* the dual cell holding each vertex in contact: the faces between its cells
   * that separate liquid from air (Fig. 8 left) */
  for (int64_t i = 0; i < nv; i++) {
    if (!hit[i]) continue;
    double p[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      p[a] = x[i * dim + a];
    int lo[3];
    tide_liu_stencil_base(g, TIDE_LIU_LINEAR, p, lo);
    for (int a = 0; a < dim; a++)
      for (int s0 = 0; s0 < 2; s0++)
        for (int s1 = 0; s1 < 2; s1++) {
          int c0[3] = {lo[0], lo[1], lo[2]}, oth[2], k = 0;
          for (int e = 0; e < dim; e++)
            if (e != a) oth[k++] = e;
          if (dim == 2 && s1) continue;
          c0[oth[0]] += s0;
          if (dim == 3) c0[oth[1]] += s1;
          int c1[3] = {c0[0], c0[1], c0[2]};
          c1[a] += 1;
          if (!inside(g, c0) || !inside(g, c1)) continue;
          int l0 = phi[tide_grid_idx(g, c0[0], c0[1], c0[2])] < 0;
          int l1 = phi[tide_grid_idx(g, c1[0], c1[1], c1[2])] < 0;
          if (l0 != l1 || (air && !l0 && !l1)) fl[m++] = off[a] + tide_grid_fidx(g, a, c1[0], c1[1], c1[2]);
        }
  }
  qsort(fl, (size_t)m, sizeof *fl, cmp_i64);
  for (int64_t k = 0; k < m; k++)
    if (nm == 0 || fl[k] != fl[nm - 1]) fl[nm++] = fl[k];
  acc = tide_calloc((size_t)(nm > 0 ? nm : 1) * 3 * sizeof(double));
  if (!acc) {
    st = TIDE_ENOMEM;
    goto done;
  }
  /* weights from every contacting vertex within a cell of the face (Fig. 8 right),
   * summed in vertex order */
  for (int64_t i = 0; i < nv && nm > 0; i++) {
    if (!hit[i]) continue;
    double p[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      p[a] = x[i * dim + a];
    for (int a = 0; a < dim; a++) {
      int fd[3], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      tide_grid_face_dims(g, a, fd);
      for (int e = 0; e < dim; e++) {
        double sf = (p[e] - g->origin[e]) / dx - (e == a ? 0 : 0.5); /* face-lattice units */
        lo[e] = (int)floor(sf) - 1, hi[e] = (int)floor(sf) + 2;
        if (lo[e] < 0) lo[e] = 0;
        if (hi[e] > fd[e] - 1) hi[e] = fd[e] - 1;
      }
      for (int fi = lo[0]; fi <= hi[0]; fi++)
        for (int fj = lo[1]; fj <= hi[1]; fj++)
          for (int fk = lo[2]; fk <= hi[2]; fk++) {
            int64_t q = find_face(fl, nm, off[a] + tide_grid_fidx(g, a, fi, fj, fk));
            if (q < 0) continue;
            int fc[3] = {fi, fj, fk};
            double w = 1;
            for (int e = 0; e < dim; e++) {
              double xf = g->origin[e] + (fc[e] + (e == a ? 0 : 0.5)) * dx;
              w *= fmax(0, 1 - fabs(p[e] - xf) / dx);
            }
            acc[3 * q] += w;
            acc[3 * q + 1] += w * v[i * dim + a];
            acc[3 * q + 2] += w * n2[i * 3 + a];
          }
    }
  }
  int64_t count = 0;
  for (int64_t q = 0; q < nm; q++) {
    int a = dim - 1;
    while (fl[q] < off[a]) a--;
    int64_t f = fl[q] - off[a];
    double ws = acc[3 * q];
    if (ws > 0 && (!slip || acc[3 * q + 2] >= ws / dim)) {
      TIDE_F64P(u->u[a])[f] = acc[3 * q + 1] / ws;
      TIDE_U8P(fixed->u[a])[f] = 1;
      count++;
    }
  }
  *nfaces = count;
done:
  tide_free(n2, nvb * 3 * sizeof(double));
  tide_free(hit, nvb);
  tide_free(fl, nvb * 12 * sizeof(int64_t));
  tide_free(acc, acc ? (size_t)(nm > 0 ? nm : 1) * 3 * sizeof(double) : 0);
  return st;
}

/* closest point of segment p + s (q - p), s in [0, 1], to y: its parameter */
static double seg_param(int dim, const double *p, const double *q, const double *y) {
  double num = 0, den = 0;
  for (int a = 0; a < dim; a++) {
    num += (y[a] - p[a]) * (q[a] - p[a]);
    den += (q[a] - p[a]) * (q[a] - p[a]);
  }
  double s = den > 0 ? num / den : 0;
  return s < 0 ? 0 : s > 1 ? 1 : s;
}

int tide_liu_contact_segments(const tide_grid *g, double rc, int slip, int64_t nv, const double *x,
                              const double *v, int64_t nseg, const int32_t *seg, tide_mac *u,
                              tide_mac *fixed, int64_t *nfaces) {
  const char *fn = "liu contact segments";
  *nfaces = 0;
  if (!(rc > 0) || !isfinite(rc)) return tide_fail(TIDE_EINVAL, "%s: radius must be positive and finite", fn);
  int st = check_vertices(fn, g, nv, x, v, u, fixed);
  if (st) return st;
  int dim = g->dim;
  for (int64_t s = 0; s < 2 * nseg; s++)
    if (seg[s] < 0 || seg[s] >= nv)
      return tide_fail(TIDE_EINVAL, "%s: segment %lld: vertex index out of range", fn,
                       (long long)(s / 2 + 1));
  int64_t tot = 0, off[3] = {0, 0, 0};
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    off[a] = tot;
    tot += (int64_t)fd[0] * fd[1] * fd[2];
  }
  /* per face: squared distance to the closest solid so far (the closest wins) */
  double *best = tide_alloc((size_t)tot * sizeof(double));
  if (!best) return TIDE_ENOMEM;
  for (int64_t f = 0; f < tot; f++) best[f] = HUGE_VAL;
  double dx = g->dx, rc2 = rc * rc;
  /* the points (every vertex) first, then the segments: a face takes the velocity
   * at the closest point of the closest one */
  for (int64_t e = 0; e < nv + nseg; e++) {
    const int64_t i0 = e < nv ? e : seg[2 * (e - nv)], i1 = e < nv ? e : seg[2 * (e - nv) + 1];
    const double *p = x + i0 * dim, *q = x + i1 * dim;
    double t2[3] = {0, 0, 0}, tl = 0;
    for (int a = 0; a < dim; a++) {
      t2[a] = (q[a] - p[a]) * (q[a] - p[a]);
      tl += t2[a];
    }
    for (int a = 0; a < dim; a++) {
      /* slip: only the axes that are more normal than tangential to the segment */
      if (slip && tl > 0 && t2[a] > tl * (1 - 1.0 / dim)) continue;
      int fd[3], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      tide_grid_face_dims(g, a, fd);
      for (int b = 0; b < dim; b++) {
        double m = fmin(p[b], q[b]) - rc, M = fmax(p[b], q[b]) + rc, sh = b == a ? 0 : 0.5;
        lo[b] = (int)ceil((m - g->origin[b]) / dx - sh);
        hi[b] = (int)floor((M - g->origin[b]) / dx - sh);
        if (lo[b] < 0) lo[b] = 0;
        if (hi[b] > fd[b] - 1) hi[b] = fd[b] - 1;
      }
      double *ua = TIDE_F64P(u->u[a]);
      uint8_t *fa = TIDE_U8P(fixed->u[a]);
      for (int fi = lo[0]; fi <= hi[0]; fi++)
        for (int fj = lo[1]; fj <= hi[1]; fj++)
          for (int fk = lo[2]; fk <= hi[2]; fk++) {
            int fc[3] = {fi, fj, fk};
            double y[3] = {0, 0, 0};
            for (int b = 0; b < dim; b++) y[b] = g->origin[b] + (fc[b] + (b == a ? 0 : 0.5)) * dx;
            double s = seg_param(dim, p, q, y), d2 = 0;
            for (int b = 0; b < dim; b++) {
              double c = p[b] + s * (q[b] - p[b]) - y[b];
              d2 += c * c;
            }
            int64_t f = tide_grid_fidx(g, a, fi, fj, fk);
            if (!(d2 <= rc2) || !(d2 < best[off[a] + f])) continue;
            best[off[a] + f] = d2;
            ua[f] = (1 - s) * v[i0 * dim + a] + s * v[i1 * dim + a];
            fa[f] = 1;
          }
    }
  }
  int64_t count = 0;
  for (int64_t f = 0; f < tot; f++) count += best[f] < HUGE_VAL;
  tide_free(best, (size_t)tot * sizeof(double));
  *nfaces = count;
  return TIDE_OK;
}
