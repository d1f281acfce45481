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
  int meshes = dim == 2 && has_meshes(shape, &only);
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
          if (f < 0) f = open_piece(shape, dim, b, c, x0, g->dx, depth);
          fr[((int64_t)i * fd[1] + j) * fd[2] + k] = clamp(f, clamp_lo, clamp_hi);
        }
  }
  solid_labels(g, out, solid);
  return TIDE_OK;
}
