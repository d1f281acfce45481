/* fractions.c -- open area fractions of MAC faces cut by a solid level set
 * sampled at the grid nodes (Zarifi 2017, Fig. 5.2; see grid.h). */
#include "grid/grid.h"
#include "grid/sdf.h"

#include <math.h>

/* open (phi > 0) length fraction of a segment with end values a, b */
static inline double open_segment(double a, double b) {
  if (a > 0 && b > 0) return 1;
  if (a <= 0 && b <= 0) return 0;
  double pos = a > 0 ? a : b, neg = a > 0 ? b : a;
  return pos / (pos - neg);
}

/* open (phi > 0) area fraction of the unit square with corner values c[0..3]
 * in counter-clockwise order (0,0), (1,0), (1,1), (0,1): the polygon of the
 * positive corners and the edge crossings (linear along edges), by the
 * shoelace formula */
static inline double open_square(const double c[4]) {
  static const double X[4] = {0, 1, 1, 0}, Y[4] = {0, 0, 1, 1};
  int npos = (c[0] > 0) + (c[1] > 0) + (c[2] > 0) + (c[3] > 0);
  if (npos == 4) return 1;
  if (npos == 0) return 0;
  double px[8], py[8];
  int m = 0;
  for (int e = 0; e < 4; e++) {
    int f = (e + 1) & 3;
    if (c[e] > 0) px[m] = X[e], py[m] = Y[e], m++;
    if ((c[e] > 0) != (c[f] > 0)) {
      double t = c[e] / (c[e] - c[f]);
      px[m] = X[e] + t * (X[f] - X[e]);
      py[m] = Y[e] + t * (Y[f] - Y[e]);
      m++;
    }
  }
  double area = 0;
  for (int q = 0; q < m; q++) {
    int r = (q + 1) % m;
    area += px[q] * py[r] - px[r] * py[q];
  }
  area = 0.5 * fabs(area);
  return area > 1 ? 1 : area;
}

static inline double clamp(double f, double lo, double hi) {
  if (f < lo) f = 0;
  if (f > hi) f = 1;
  return f;
}

/* TIDE_CELL_SOLID for the cells whose faces are all closed (solid may be NULL) */
static void solid_labels(const tide_grid *g, const tide_mac *out, tide_array *solid) {
  int dim = g->dim;
  if (solid) {
    uint8_t *lab = TIDE_U8P(solid);
#pragma omp parallel for schedule(static) if (tide_grid_ncells(g) > TIDE_PAR_MIN)
    for (int i = 0; i < g->n[0]; i++)
      for (int j = 0; j < g->n[1]; j++)
        for (int k = 0; k < g->n[2]; k++) {
          int open = 0;
          for (int a = 0; a < dim && !open; a++) {
            const double *fr = TIDE_F64P(out->u[a]);
            int q[3] = {i, j, k};
            open |= fr[tide_grid_fidx(g, a, q[0], q[1], q[2])] > 0;
            q[a] += 1;
            open |= fr[tide_grid_fidx(g, a, q[0], q[1], q[2])] > 0;
          }
          lab[tide_grid_idx(g, i, j, k)] = open ? TIDE_CELL_AIR : TIDE_CELL_SOLID;
        }
  }
}

int tide_mac_face_fractions(const tide_grid *g, const tide_array *nodes, double clamp_lo,
                            double clamp_hi, tide_mac *out, tide_array *solid) {
  int st;
  int64_t shape[3] = {g->n[0] + 1, g->n[1] + 1, g->n[2] + 1};
  if ((st = tide_array_expect(nodes, "nodes", TIDE_F64, g->dim, shape))) return st;
  if (tide_array_nonfinite(nodes)) return tide_fail(TIDE_ENONFINITE, "nodes: non-finite solid distances");
  if ((st = tide_mac_check(out, g, TIDE_F64, "out"))) return st;
  if (solid && (st = tide_grid_check_cells(g, solid, TIDE_U8, "solid"))) return st;
  if (!(clamp_lo >= 0 && clamp_hi <= 1 && clamp_lo <= clamp_hi))
    return tide_fail(TIDE_EINVAL, "clamp must satisfy 0 <= lo <= hi <= 1");
  const double *ph = TIDE_F64P(nodes);
  int dim = g->dim;
  int64_t s1 = dim == 3 ? g->n[2] + 1 : 1, s0 = (int64_t)(g->n[1] + 1) * s1;
#define NODE(i, j, k) ph[(int64_t)(i)*s0 + (int64_t)(j)*s1 + (k)]
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *fr = TIDE_F64P(out->u[a]);
    /* the two axes spanning a face of axis a */
    int b = (a + 1) % dim, c = (a + 2) % 3;
#pragma omp parallel for schedule(static) if ((int64_t)fd[0] * fd[1] * fd[2] > TIDE_PAR_MIN)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int n0[3] = {i, j, k};
          double f;
          if (dim == 2) {
            int n1[3] = {i, j, 0};
            n1[b] += 1;
            f = open_segment(NODE(n0[0], n0[1], 0), NODE(n1[0], n1[1], 0));
          } else {
            int q1[3] = {i, j, k}, q2[3] = {i, j, k}, q3[3] = {i, j, k};
            q1[b] += 1;
            q2[b] += 1;
            q2[c] += 1;
            q3[c] += 1;
            double cv[4] = {NODE(n0[0], n0[1], n0[2]), NODE(q1[0], q1[1], q1[2]), NODE(q2[0], q2[1], q2[2]),
                            NODE(q3[0], q3[1], q3[2])};
            f = open_square(cv);
          }
          fr[((int64_t)i * fd[1] + j) * fd[2] + k] = clamp(f, clamp_lo, clamp_hi);
        }
  }
#undef NODE
  solid_labels(g, out, solid);
  return TIDE_OK;
}

/* open fraction of the face piece with lower corner x0 spanning h along axes
 * b (and c in 3D) */
static double open_piece(const tide_shape *s, int dim, int b, int c, const double x0[3], double h, int depth) {
  double mid[3] = {x0[0], x0[1], x0[2]};
  mid[b] += 0.5 * h;
  if (dim == 3) mid[c] += 0.5 * h;
  double half = dim == 3 ? 0.70710678118654752 * h : 0.5 * h;
  double phi = tide_shape_eval(s, mid);
  if (phi > half) return 1;
  if (phi < -half) return 0;
  if (depth <= 0) {
    if (dim == 2) {
      double x1[3] = {x0[0], x0[1], x0[2]};
      x1[b] += h;
      return open_segment(tide_shape_eval(s, x0), tide_shape_eval(s, x1));
    }
    double q[4][3];
    for (int k = 0; k < 4; k++) {
      q[k][0] = x0[0], q[k][1] = x0[1], q[k][2] = x0[2];
      if (k == 1 || k == 2) q[k][b] += h;
      if (k == 2 || k == 3) q[k][c] += h;
    }
    double cv[4] = {tide_shape_eval(s, q[0]), tide_shape_eval(s, q[1]), tide_shape_eval(s, q[2]),
                    tide_shape_eval(s, q[3])};
    return open_square(cv);
  }
  double sum = 0, hh = 0.5 * h;
  for (int u = 0; u < 2; u++)
    for (int v = 0; v < (dim == 3 ? 2 : 1); v++) {
      double y[3] = {x0[0], x0[1], x0[2]};
      y[b] += u * hh;
      if (dim == 3) y[c] += v * hh;
      sum += open_piece(s, dim, b, c, y, hh, depth - 1);
    }
  return sum / (dim == 3 ? 4 : 2);
}

/* the shape's mesh leaves: returns 1 if it has any, *only = 1 if all its
 * leaves are meshes (CSG of meshes, moved rigidly) */
static int has_meshes(const tide_shape *s, int *only) {
  if (!s) return 0;
  switch (s->kind) {
  case TIDE_SHAPE_MESH: return 1;
  case TIDE_SHAPE_TRANSFORM:
  case TIDE_SHAPE_COMPLEMENT: return has_meshes(s->a, only);
  case TIDE_SHAPE_UNION:
  case TIDE_SHAPE_INTERSECTION:
  case TIDE_SHAPE_DIFFERENCE: {
    int ha = has_meshes(s->a, only), hb = has_meshes(s->b, only);
    return ha || hb;
  }
  default: *only = 0; return 0;
  }
}

/* crossings of segment p0 p1 with the shape's 2D mesh leaves, appended to
 * t[n..cap); returns the new count (which may exceed cap) */
static int64_t crossings(const tide_shape *s, const double p0[3], const double p1[3], double *t, int64_t cap,
                         int64_t n) {
  if (!s) return n;
  switch (s->kind) {
  case TIDE_SHAPE_MESH: return n + tide_sdf_mesh_crossings(s->mesh, p0, p1, t + (n < cap ? n : cap), n < cap ? cap - n : 0);
  case TIDE_SHAPE_TRANSFORM: { /* the segment in the child's frame, y = R^T (x - t) */
    const double *p = s->p;
    double q0[3], q1[3];
    for (int j = 0; j < 3; j++) {
      q0[j] = p[j] * (p0[0] - p[9]) + p[3 + j] * (p0[1] - p[10]) + p[6 + j] * (p0[2] - p[11]);
      q1[j] = p[j] * (p1[0] - p[9]) + p[3 + j] * (p1[1] - p[10]) + p[6 + j] * (p1[2] - p[11]);
    }
    return crossings(s->a, q0, q1, t, cap, n);
  }
  case TIDE_SHAPE_COMPLEMENT: return crossings(s->a, p0, p1, t, cap, n);
  case TIDE_SHAPE_UNION:
  case TIDE_SHAPE_INTERSECTION:
  case TIDE_SHAPE_DIFFERENCE: return crossings(s->b, p0, p1, t, cap, crossings(s->a, p0, p1, t, cap, n));
  default: return n;
  }
}

#define MAXCROSS 64

/* 2D face segment from x0, length h along axis b, of a shape with mesh
 * leaves: split at its crossings with the polygons (the points where the
 * clipped boundary pieces end on it); between two crossings a mesh's side
 * is constant, so for meshes only each part is open or solid by the sign
 * at its midpoint (exact: the fractions then close each cell against its
 * clipped pieces; a part lying on a polygon's side has distance 0 there and
 * is closed, as clip.c gives that side's piece to the cell on its outward
 * side), else each part is subdivided as open_piece.  Returns
 * -1 when there are more than MAXCROSS crossings. */
static double open_segment_meshes(const tide_shape *s, int only, int b, const double x0[3], double h, int depth) {
  double x1[3] = {x0[0], x0[1], x0[2]}, t[MAXCROSS + 2];
  x1[b] += h;
  int64_t n = crossings(s, x0, x1, t + 1, MAXCROSS, 0);
  if (n > MAXCROSS) return -1;
  for (int64_t q = 2; q <= n; q++) /* insertion sort, n small */
    for (int64_t r = q; r > 1 && t[r - 1] > t[r]; r--) {
      double w = t[r];
      t[r] = t[r - 1];
      t[r - 1] = w;
    }
  t[0] = 0;
  t[n + 1] = 1;
  double open = 0;
  for (int64_t q = 0; q <= n; q++) {
    double len = t[q + 1] - t[q];
    if (!(len > 0)) continue;
    double y[3] = {x0[0], x0[1], x0[2]};
    if (only) {
      y[b] += 0.5 * (t[q] + t[q + 1]) * h;
      open += tide_shape_eval(s, y) > 0 ? len : 0;
    } else {
      y[b] += t[q] * h;
      open += len * open_piece(s, 2, b, 2, y, len * h, depth);
    }
  }
  return open;
}

#define MAXSEG 64
#define MAXEV 256

/* 3D: the cross-section segments of the shape's mesh leaves with the plane
 * x_a = p near the world box [lo, hi], appended to seg[n..cap) (6 doubles
 * each, world coordinates); A, c map the world to the leaf's frame,
 * y = A x + c (A orthonormal).  Returns the new count (may exceed cap). */
static int64_t sections(const tide_shape *s, const double A[9], const double c[3], int a, double p,
                        const double lo[3], const double hi[3], double *seg, int64_t cap, int64_t n) {
  if (!s) return n;
  switch (s->kind) {
  case TIDE_SHAPE_MESH: {
    double nrm[3], off = p, ylo[3] = {INFINITY, INFINITY, INFINITY}, yhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int j = 0; j < 3; j++) { /* x_a = sum_j A[j][a] (y_j - c_j) */
      nrm[j] = A[3 * j + a];
      off += nrm[j] * c[j];
    }
    for (int q = 0; q < 8; q++) { /* the box in the leaf's frame */
      double x[3] = {q & 1 ? hi[0] : lo[0], q & 2 ? hi[1] : lo[1], q & 4 ? hi[2] : lo[2]};
      for (int j = 0; j < 3; j++) {
        double y = A[3 * j] * x[0] + A[3 * j + 1] * x[1] + A[3 * j + 2] * x[2] + c[j];
        ylo[j] = fmin(ylo[j], y);
        yhi[j] = fmax(yhi[j], y);
      }
    }
    int64_t k = tide_sdf_mesh_plane_segments(s->mesh, nrm, off, ylo, yhi, seg + 6 * (n < cap ? n : cap),
                                             n < cap ? cap - n : 0);
    int identity = A[0] == 1 && A[4] == 1 && A[8] == 1 && c[0] == 0 && c[1] == 0 && c[2] == 0;
    for (int64_t q = n; q < n + k && q < cap && !identity; q++) /* back to the world, x = A^T (y - c) */
      for (int e = 0; e < 2; e++) {
        double *y = seg + 6 * q + 3 * e, x[3];
        for (int i = 0; i < 3; i++)
          x[i] = A[i] * (y[0] - c[0]) + A[3 + i] * (y[1] - c[1]) + A[6 + i] * (y[2] - c[2]);
        y[0] = x[0], y[1] = x[1], y[2] = x[2];
      }
    return n + k;
  }
  case TIDE_SHAPE_TRANSFORM: { /* child frame z = R^T (y - t) = (R^T A) x + R^T (c - t) */
    const double *P = s->p;
    double B[9], d[3];
    for (int j = 0; j < 3; j++) {
      d[j] = P[j] * (c[0] - P[9]) + P[3 + j] * (c[1] - P[10]) + P[6 + j] * (c[2] - P[11]);
      for (int i = 0; i < 3; i++)
        B[3 * j + i] = P[j] * A[i] + P[3 + j] * A[3 + i] + P[6 + j] * A[6 + i];
    }
    return sections(s->a, B, d, a, p, lo, hi, seg, cap, n);
  }
  case TIDE_SHAPE_COMPLEMENT: return sections(s->a, A, c, a, p, lo, hi, seg, cap, n);
  case TIDE_SHAPE_UNION:
  case TIDE_SHAPE_INTERSECTION:
  case TIDE_SHAPE_DIFFERENCE:
    return sections(s->b, A, c, a, p, lo, hi, seg, cap, sections(s->a, A, c, a, p, lo, hi, seg, cap, n));
  default: return n;
  }
}

static void sort_doubles(double *t, int64_t n) { /* insertion sort, n small */
  for (int64_t q = 1; q < n; q++)
    for (int64_t r = q; r > 0 && t[r - 1] > t[r]; r--) {
      double w = t[r];
      t[r] = t[r - 1];
      t[r - 1] = w;
    }
}

/* 3D face square of a shape of mesh leaves only, corner x0, side h along
 * axes b, c, normal a: the meshes' cross-section with the face's plane is a
 * set of segments; in face units (u, v) in [0, 1]^2 they are clipped to the
 * square.  The open length of the square's line u = s is piecewise linear
 * in s between the events (the clipped ends' u, and the u of two segments'
 * crossings, for CSG), so the midpoint rule between events integrates it
 * exactly; each line is split at its crossings with the segments and each
 * part is open or solid by the sign at its midpoint (a part on a triangle
 * lying in the plane has distance 0 and is closed, as in 2D).  Returns -1
 * when there are more than MAXSEG segments or MAXEV events. */
static double open_square_meshes(const tide_shape *s, int a, int b, int c, const double x0[3], double h) {
  static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Z[3] = {0, 0, 0};
  double seg[6 * MAXSEG], uv[4 * MAXSEG], ev[MAXEV], cr[MAXSEG + 2];
  double lo[3] = {x0[0], x0[1], x0[2]}, hi[3] = {x0[0], x0[1], x0[2]};
  hi[b] += h;
  hi[c] += h;
  int64_t n = sections(s, I, Z, a, x0[a], lo, hi, seg, MAXSEG, 0);
  if (n > MAXSEG) return -1;
  int64_t ns = 0, ne = 0;
  for (int64_t q = 0; q < n; q++) { /* clip to the square (Liang-Barsky) */
    double P[2] = {(seg[6 * q + b] - x0[b]) / h, (seg[6 * q + c] - x0[c]) / h};
    double D[2] = {(seg[6 * q + 3 + b] - x0[b]) / h - P[0], (seg[6 * q + 3 + c] - x0[c]) / h - P[1]};
    double t0 = 0, t1 = 1;
    int keep = 1;
    for (int k = 0; k < 2 && keep; k++) {
      if (D[k] == 0) {
        keep = P[k] >= 0 && P[k] <= 1;
        continue;
      }
      double ta = -P[k] / D[k], tb = (1 - P[k]) / D[k];
      if (ta > tb) {
        double w = ta;
        ta = tb;
        tb = w;
      }
      t0 = fmax(t0, ta);
      t1 = fmin(t1, tb);
      keep = t0 < t1;
    }
    if (!keep) continue;
    double *w = uv + 4 * ns++;
    w[0] = t0 == 0 ? P[0] : P[0] + t0 * D[0];
    w[1] = t0 == 0 ? P[1] : P[1] + t0 * D[1];
    w[2] = t1 == 1 ? P[0] + D[0] : P[0] + t1 * D[0];
    w[3] = t1 == 1 ? P[1] + D[1] : P[1] + t1 * D[1];
    if (ne + 2 > MAXEV) return -1;
    if (w[0] == w[2]) { /* along v: no line meets it, its u is an event */
      ev[ne++] = w[0];
      continue;
    }
    ev[ne++] = w[0];
    ev[ne++] = w[2];
  }
  for (int64_t q = 0; q < ns; q++) /* two segments' crossings (CSG of meshes) */
    for (int64_t r = q + 1; r < ns; r++) {
      const double *p = uv + 4 * q, *o = uv + 4 * r;
      double d1[2] = {p[2] - p[0], p[3] - p[1]}, d2[2] = {o[2] - o[0], o[3] - o[1]};
      double den = d1[0] * d2[1] - d1[1] * d2[0];
      if (den == 0) continue;
      double e[2] = {o[0] - p[0], o[1] - p[1]};
      double t = (e[0] * d2[1] - e[1] * d2[0]) / den, l = (e[0] * d1[1] - e[1] * d1[0]) / den;
      if (!(t > 0 && t < 1 && l > 0 && l < 1)) continue;
      if (ne + 1 > MAXEV) return -1;
      ev[ne++] = p[0] + t * d1[0];
    }
  ev[ne++] = 0;
  ev[ne++] = 1;
  sort_doubles(ev, ne);
  double open = 0;
  for (int64_t q = 0; q + 1 < ne; q++) {
    double u0 = fmax(ev[q], 0), u1 = fmin(ev[q + 1], 1);
    if (!(u1 > u0)) continue;
    double sm = 0.5 * (u0 + u1);
    int64_t nc = 0;
    for (int64_t r = 0; r < ns; r++) {
      const double *w = uv + 4 * r;
      if ((w[0] >= sm) == (w[2] >= sm)) continue;
      double v = w[1] + (sm - w[0]) / (w[2] - w[0]) * (w[3] - w[1]);
      if (v > 0 && v < 1) cr[1 + nc++] = v;
    }
    sort_doubles(cr + 1, nc);
    cr[0] = 0;
    cr[nc + 1] = 1;
    double len = 0;
    for (int64_t r = 0; r <= nc; r++) {
      if (!(cr[r + 1] > cr[r])) continue;
      double y[3] = {x0[0], x0[1], x0[2]};
      y[b] += sm * h;
      y[c] += 0.5 * (cr[r] + cr[r + 1]) * h;
      len += tide_shape_eval(s, y) > 1e-12 * h ? cr[r + 1] - cr[r] : 0;
    }
    open += (u1 - u0) * len;
  }
  return open;
}

int tide_mac_face_fractions_shape(const tide_grid *g, const tide_shape *shape, int depth,
                                  double clamp_lo, double clamp_hi, tide_mac *out, tide_array *solid) {
  int st;
  if (!shape) return tide_fail(TIDE_EINVAL, "missing shape");
  if (shape->dim != g->dim) return tide_fail(TIDE_EINVAL, "shape is %dD but the grid is %dD", shape->dim, g->dim);
  if (depth < 0 || depth > 12) return tide_fail(TIDE_EINVAL, "depth must be in 0..12, got %d", depth);
  if ((st = tide_mac_check(out, g, TIDE_F64, "out"))) return st;
  if (solid && (st = tide_grid_check_cells(g, solid, TIDE_U8, "solid"))) return st;
  if (!(clamp_lo >= 0 && clamp_hi <= 1 && clamp_lo <= clamp_hi))
    return tide_fail(TIDE_EINVAL, "clamp must satisfy 0 <= lo <= hi <= 1");
  int dim = g->dim, only = 1;
  int meshes = has_meshes(shape, &only), meshes3 = dim == 3 && meshes && only;
  meshes = meshes && dim == 2;
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *fr = TIDE_F64P(out->u[a]);
    int b = (a + 1) % dim, c = (a + 2) % 3;
#pragma omp parallel for schedule(dynamic, 4) if ((int64_t)fd[0] * fd[1] * fd[2] > 1024)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          double x0[3] = {g->origin[0] + i * g->dx, g->origin[1] + j * g->dx, dim == 3 ? g->origin[2] + k * g->dx : 0};
          double f = -1;
          if (meshes) {
            double mid[3] = {x0[0], x0[1], x0[2]};
            mid[b] += 0.5 * g->dx;
            double phi = tide_shape_eval(shape, mid);
            f = phi > 0.5 * g->dx ? 1 : phi < -0.5 * g->dx ? 0 : open_segment_meshes(shape, only, b, x0, g->dx, depth);
          }
          if (meshes3) {
            double mid[3] = {x0[0], x0[1], x0[2]};
            mid[b] += 0.5 * g->dx;
            mid[c] += 0.5 * g->dx;
            double phi = tide_shape_eval(shape, mid), half = 0.70710678118654752 * g->dx;
            f = phi > half ? 1 : phi < -half ? 0 : open_square_meshes(shape, a, b, c, x0, g->dx);
          }
          if (f < 0) f = open_piece(shape, dim, b, c, x0, g->dx, depth);
          fr[((int64_t)i * fd[1] + j) * fd[2] + k] = clamp(f, clamp_lo, clamp_hi);
        }
  }
  solid_labels(g, out, solid);
  return TIDE_OK;
}
