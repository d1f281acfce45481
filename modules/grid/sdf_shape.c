/*
 * sdf_shape.c -- exact signed distance of analytic shapes, CSG and rigid
 * transforms, evaluated at points and on grid samples.
 *
 * The primitive distances are the standard closed forms (e.g. I. Quilez,
 * "distance functions"; Osher & Fedkiw, Level Set Methods, ch. 1): a shape
 * is reduced to a 2D box or a point--segment distance in a local frame.
 */
#include "sdf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static double len3(const double *a) { return sqrt(dot3(a, a)); }

/* signed distance of a 2D box centred at 0 with half sizes (hx, hy) at (x, y) */
static double box2(double x, double y, double hx, double hy) {
  double qx = fabs(x) - hx, qy = fabs(y) - hy;
  double ox = qx > 0 ? qx : 0, oy = qy > 0 ? qy : 0;
  double in = qx > qy ? qx : qy;
  return sqrt(ox * ox + oy * oy) + (in < 0 ? in : 0);
}

int tide_sdf_check_grid(const tide_grid *g, int at, const char *what) {
  if (!g) return tide_fail(TIDE_EINVAL, "%s: no grid", what);
  tide_grid chk;
  if (tide_grid_init(&chk, g->dim, g->n, g->dx, g->origin) != TIDE_OK) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", tide_errmsg());
    return tide_fail(TIDE_EINVAL, "%s: %s", what, msg);
  }
  if (g->dim == 2 && (g->n[2] != 1 || g->origin[2] != 0))
    return tide_fail(TIDE_EINVAL, "%s: a 2D grid needs n[3] = 1 and origin[3] = 0", what);
  if (at < TIDE_AT_CELLS || at > TIDE_AT_FACES_Z || (g->dim == 2 && at == TIDE_AT_FACES_Z))
    return tide_fail(TIDE_EINVAL, "%s: bad sample location %d for a %dD grid", what, at, g->dim);
  return TIDE_OK;
}

/* --------------------------------------------------------- construction */

static int finite_vec(int dim, const double *v) {
  for (int a = 0; a < dim; a++)
    if (!isfinite(v[a])) return 0;
  return 1;
}

static int newshape(tide_shape_kind kind, int dim, tide_shape **out) {
  *out = NULL;
  if (dim != 2 && dim != 3)
    return tide_fail(TIDE_EINVAL, "shape %s: dim must be 2 or 3, got %d",
                     tide_shape_kind_name(kind), dim);
  tide_shape *s = tide_calloc(sizeof *s);
  if (!s) return TIDE_ENOMEM;
  s->kind = kind;
  s->dim = dim;
  s->refcount = 1;
  *out = s;
  return TIDE_OK;
}

/* copy dim entries of v to p, zero the rest */
static void put(double *p, int dim, const double *v) {
  for (int a = 0; a < 3; a++)
    p[a] = a < dim ? v[a] : 0.0;
}

int tide_shape_box(int dim, const double lo[3], const double hi[3], tide_shape **out) {
  *out = NULL;
  if (!finite_vec(dim == 3 ? 3 : 2, lo) || !finite_vec(dim == 3 ? 3 : 2, hi))
    return tide_fail(TIDE_EINVAL, "box: min and max must be finite");
  for (int a = 0; a < dim && a < 3; a++)
    if (!(lo[a] < hi[a]))
      return tide_fail(TIDE_EINVAL, "box: min[%d] = %g must be < max[%d] = %g", a + 1, lo[a], a + 1,
                       hi[a]);
  int st = newshape(TIDE_SHAPE_BOX, dim, out);
  if (st) return st;
  put((*out)->p, dim, lo);
  put((*out)->p + 3, dim, hi);
  return TIDE_OK;
}

int tide_shape_sphere(int dim, const double c[3], double r, tide_shape **out) {
  *out = NULL;
  if (!finite_vec(dim == 3 ? 3 : 2, c)) return tide_fail(TIDE_EINVAL, "sphere: centre not finite");
  if (!(r > 0) || !isfinite(r))
    return tide_fail(TIDE_EINVAL, "sphere: radius must be > 0, got %g", r);
  int st = newshape(TIDE_SHAPE_SPHERE, dim, out);
  if (st) return st;
  put((*out)->p, dim, c);
  (*out)->p[3] = r;
  return TIDE_OK;
}

static int segment_shape(tide_shape_kind kind, const char *name, int dim, const double a[3],
                         const double b[3], double r, tide_shape **out) {
  *out = NULL;
  int d = dim == 3 ? 3 : 2;
  if (!finite_vec(d, a) || !finite_vec(d, b))
    return tide_fail(TIDE_EINVAL, "%s: end points must be finite", name);
  if (!(r > 0) || !isfinite(r))
    return tide_fail(TIDE_EINVAL, "%s: radius must be > 0, got %g", name, r);
  double ab[3] = {0, 0, 0};
  for (int i = 0; i < d; i++)
    ab[i] = b[i] - a[i];
  if (!(len3(ab) > 0)) return tide_fail(TIDE_EINVAL, "%s: end points a and b coincide", name);
  int st = newshape(kind, dim, out);
  if (st) return st;
  put((*out)->p, dim, a);
  put((*out)->p + 3, dim, b);
  (*out)->p[6] = r;
  return TIDE_OK;
}

int tide_shape_cylinder(int dim, const double a[3], const double b[3], double r, tide_shape **out) {
  return segment_shape(TIDE_SHAPE_CYLINDER, "cylinder", dim, a, b, r, out);
}

int tide_shape_capsule(int dim, const double a[3], const double b[3], double r, tide_shape **out) {
  return segment_shape(TIDE_SHAPE_CAPSULE, "capsule", dim, a, b, r, out);
}

static int unit(int dim, const double *v, double *u) {
  put(u, dim, v);
  double l = len3(u);
  if (!(l > 0) || !isfinite(l)) return 0;
  for (int a = 0; a < 3; a++)
    u[a] /= l;
  return 1;
}

int tide_shape_plane(int dim, const double point[3], const double normal[3], tide_shape **out) {
  *out = NULL;
  double n[3];
  if (!finite_vec(dim == 3 ? 3 : 2, point))
    return tide_fail(TIDE_EINVAL, "plane: point not finite");
  if (!unit(dim == 3 ? 3 : 2, normal, n))
    return tide_fail(TIDE_EINVAL, "plane: normal must be nonzero and finite");
  int st = newshape(TIDE_SHAPE_PLANE, dim, out);
  if (st) return st;
  put((*out)->p, dim, point);
  memcpy((*out)->p + 3, n, sizeof n);
  return TIDE_OK;
}

int tide_shape_torus(int dim, const double c[3], const double axis[3], double R, double r,
                     tide_shape **out) {
  *out = NULL;
  double ax[3] = {0, 0, 1};
  if (!finite_vec(dim == 3 ? 3 : 2, c)) return tide_fail(TIDE_EINVAL, "torus: centre not finite");
  if (dim == 3 && (!axis || !unit(3, axis, ax)))
    return tide_fail(TIDE_EINVAL, "torus: axis must be nonzero and finite");
  if (!(r > 0) || !(R > 0) || !isfinite(R) || !isfinite(r))
    return tide_fail(TIDE_EINVAL, "torus: radii must be > 0, got R = %g, r = %g", R, r);
  int st = newshape(TIDE_SHAPE_TORUS, dim, out);
  if (st) return st;
  put((*out)->p, dim, c);
  memcpy((*out)->p + 3, ax, sizeof ax);
  (*out)->p[6] = R;
  (*out)->p[7] = r;
  return TIDE_OK;
}

int tide_shape_mesh(tide_sdf_mesh *m, tide_shape **out) {
  *out = NULL;
  if (!m) return tide_fail(TIDE_EINVAL, "mesh shape: no mesh");
  int st = newshape(TIDE_SHAPE_MESH, tide_sdf_mesh_dim(m), out);
  if (st) return st;
  (*out)->mesh = tide_sdf_mesh_retain(m);
  return TIDE_OK;
}

int tide_shape_csg(tide_shape_kind op, tide_shape *a, tide_shape *b, tide_shape **out) {
  *out = NULL;
  if (op != TIDE_SHAPE_UNION && op != TIDE_SHAPE_INTERSECTION && op != TIDE_SHAPE_DIFFERENCE &&
      op != TIDE_SHAPE_COMPLEMENT)
    return tide_fail(TIDE_EINVAL, "shape csg: bad operation %d", (int)op);
  if (!a || (op != TIDE_SHAPE_COMPLEMENT && !b))
    return tide_fail(TIDE_EINVAL, "shape %s: missing operand", tide_shape_kind_name(op));
  if (op != TIDE_SHAPE_COMPLEMENT && a->dim != b->dim)
    return tide_fail(TIDE_EINVAL, "shape %s: operands are %dD and %dD", tide_shape_kind_name(op),
                     a->dim, b->dim);
  int st = newshape(op, a->dim, out);
  if (st) return st;
  (*out)->a = tide_shape_retain(a);
  if (op != TIDE_SHAPE_COMPLEMENT) (*out)->b = tide_shape_retain(b);
  return TIDE_OK;
}

int tide_shape_transform(tide_shape *a, const double R[9], const double t[3], tide_shape **out) {
  *out = NULL;
  if (!a) return tide_fail(TIDE_EINVAL, "shape transform: missing shape");
  int d = a->dim;
  double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++)
      M[3 * i + j] = R ? R[3 * i + j] : (i == j);
  double tt[3] = {0, 0, 0};
  if (t) put(tt, d, t);
  if (!finite_vec(9, M) || !finite_vec(3, tt))
    return tide_fail(TIDE_EINVAL, "shape transform: rotation and translation must be finite");
  /* orthonormal with det +1 (to 1e-9): R R^T = I */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = dot3(M + 3 * i, M + 3 * j) - (i == j);
      if (fabs(s) > 1e-9)
        return tide_fail(TIDE_EINVAL,
                         "shape transform: rotation is not orthonormal (R R^T - I = %g)", s);
    }
  double det = M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
               M[2] * (M[3] * M[7] - M[4] * M[6]);
  if (det < 0) return tide_fail(TIDE_EINVAL, "shape transform: rotation has det -1 (a reflection)");
  int st = newshape(TIDE_SHAPE_TRANSFORM, d, out);
  if (st) return st;
  memcpy((*out)->p, M, sizeof M);
  memcpy((*out)->p + 9, tt, sizeof tt);
  (*out)->a = tide_shape_retain(a);
  return TIDE_OK;
}

tide_shape *tide_shape_retain(tide_shape *s) {
  if (s) s->refcount++;
  return s;
}

void tide_shape_release(tide_shape *s) {
  if (!s || --s->refcount > 0) return;
  tide_shape_release(s->a);
  tide_shape_release(s->b);
  tide_sdf_mesh_release(s->mesh);
  tide_free(s, sizeof *s);
}

int tide_shape_bounds(const tide_shape *s, double lo[3], double hi[3]) {
  const double *p = s->p;
  double la[3], ha[3], lb[3], hb[3];
  int ba, bb;
  for (int k = 0; k < 3; k++)
    lo[k] = hi[k] = 0;
  switch (s->kind) {
  case TIDE_SHAPE_BOX:
    for (int k = 0; k < s->dim; k++)
      lo[k] = p[k], hi[k] = p[3 + k];
    return 1;
  case TIDE_SHAPE_SPHERE:
    for (int k = 0; k < s->dim; k++)
      lo[k] = p[k] - p[3], hi[k] = p[k] + p[3];
    return 1;
  case TIDE_SHAPE_CYLINDER: /* the segment's box grown by the radius */
  case TIDE_SHAPE_CAPSULE:
    for (int k = 0; k < s->dim; k++) {
      lo[k] = (p[k] < p[3 + k] ? p[k] : p[3 + k]) - p[6];
      hi[k] = (p[k] > p[3 + k] ? p[k] : p[3 + k]) + p[6];
    }
    return 1;
  case TIDE_SHAPE_TORUS:
    for (int k = 0; k < s->dim; k++)
      lo[k] = p[k] - p[6] - p[7], hi[k] = p[k] + p[6] + p[7];
    return 1;
  case TIDE_SHAPE_MESH:
    tide_sdf_mesh_bounds(s->mesh, lo, hi);
    return 1;
  case TIDE_SHAPE_UNION:
    if (!tide_shape_bounds(s->a, la, ha) || !tide_shape_bounds(s->b, lb, hb)) return 0;
    for (int k = 0; k < s->dim; k++)
      lo[k] = la[k] < lb[k] ? la[k] : lb[k], hi[k] = ha[k] > hb[k] ? ha[k] : hb[k];
    return 1;
  case TIDE_SHAPE_INTERSECTION:
    ba = tide_shape_bounds(s->a, la, ha);
    bb = tide_shape_bounds(s->b, lb, hb);
    if (!ba && !bb) return 0;
    if (!ba) memcpy(la, lb, sizeof la), memcpy(ha, hb, sizeof ha);
    if (!bb) memcpy(lb, la, sizeof lb), memcpy(hb, ha, sizeof hb);
    for (int k = 0; k < s->dim; k++)
      lo[k] = la[k] > lb[k] ? la[k] : lb[k], hi[k] = ha[k] < hb[k] ? ha[k] : hb[k];
    return 1;
  case TIDE_SHAPE_DIFFERENCE:
    return tide_shape_bounds(s->a, lo, hi);
  case TIDE_SHAPE_TRANSFORM: /* the moved corners of the child's box */
    if (!tide_shape_bounds(s->a, la, ha)) return 0;
    for (int k = 0; k < s->dim; k++)
      lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int c = 0; c < (1 << s->dim); c++) {
      double y[3] = {0, 0, 0};
      for (int k = 0; k < s->dim; k++)
        y[k] = (c >> k) & 1 ? ha[k] : la[k];
      for (int i = 0; i < s->dim; i++) {
        double x = p[9 + i] + p[3 * i] * y[0] + p[3 * i + 1] * y[1] + p[3 * i + 2] * y[2];
        lo[i] = x < lo[i] ? x : lo[i];
        hi[i] = x > hi[i] ? x : hi[i];
      }
    }
    return 1;
  case TIDE_SHAPE_PLANE:
  case TIDE_SHAPE_COMPLEMENT:
    return 0;
  }
  return 0;
}

const char *tide_shape_kind_name(tide_shape_kind k) {
  static const char *names[] = {"box",          "sphere",     "cylinder",   "plane",
                                "capsule",      "torus",      "mesh",       "union",
                                "intersection", "difference", "complement", "transform"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* ----------------------------------------------------------- evaluation */

/* A scan along a grid line (tide_shape_sdf_band): each mesh leaf of the shape, in the fixed
 * order of the evaluation's walk, keeps its last point and value.  A closed mesh's winding
 * number is constant wherever no face is near: when the leaf's last |phi| (a lower bound of
 * the distance: exact within band, band or the box distance beyond) exceeds the step to the
 * new point, the segment between them meets no face and the new point has the last one's sign
 * -- no solid angles summed (tide_sdf_mesh_eval_hint).  The distance is computed as before. */
#define SCAN_SLOTS 32
typedef struct {
  double y[SCAN_SLOTS][3], phi[SCAN_SLOTS];
  int n;    /* slots holding a point */
  int next; /* the next mesh leaf's slot in this evaluation */
} scan_ctx;

static double eval_mesh(const tide_shape *s, const double x[3], double band, scan_ctx *sc) {
  int hint = 0, q = sc ? sc->next++ : SCAN_SLOTS;
  if (q < SCAN_SLOTS && q < sc->n) {
    double d[3] = {x[0] - sc->y[q][0], x[1] - sc->y[q][1], x[2] - sc->y[q][2]};
    double step = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), v = sc->phi[q];
    if (fabs(v) > step) hint = v < 0 ? -1 : 1;
  }
  double v = tide_sdf_mesh_eval_hint(s->mesh, x, band, hint);
  if (q < SCAN_SLOTS) {
    memcpy(sc->y[q], x, sizeof sc->y[q]);
    sc->phi[q] = v;
    if (sc->n <= q) sc->n = q + 1;
  }
  return v;
}

static double eval(const tide_shape *s, const double xin[3], double band, scan_ctx *sc) {
  const double *p = s->p;
  double x[3] = {xin[0], xin[1], s->dim == 3 ? xin[2] : 0.0};
  switch (s->kind) {
  case TIDE_SHAPE_BOX: {
    double out2 = 0, in = -INFINITY;
    for (int a = 0; a < s->dim; a++) {
      double c = 0.5 * (p[a] + p[3 + a]), h = 0.5 * (p[3 + a] - p[a]);
      double q = fabs(x[a] - c) - h;
      if (q > 0) out2 += q * q;
      if (q > in) in = q;
    }
    return sqrt(out2) + (in < 0 ? in : 0);
  }
  case TIDE_SHAPE_SPHERE: {
    double d[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
    return len3(d) - p[3];
  }
  case TIDE_SHAPE_CYLINDER:
  case TIDE_SHAPE_CAPSULE: {
    double ba[3] = {p[3] - p[0], p[4] - p[1], p[5] - p[2]};
    double pa[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
    double L2 = dot3(ba, ba), t = dot3(pa, ba) / L2;
    if (s->kind == TIDE_SHAPE_CAPSULE) {
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      double d[3] = {pa[0] - t * ba[0], pa[1] - t * ba[1], pa[2] - t * ba[2]};
      return len3(d) - p[6];
    }
    double L = sqrt(L2);
    double d[3] = {pa[0] - t * ba[0], pa[1] - t * ba[1], pa[2] - t * ba[2]};
    /* local frame: radial distance and axial coordinate from the middle */
    return box2(len3(d), (t - 0.5) * L, p[6], 0.5 * L);
  }
  case TIDE_SHAPE_PLANE:
    return (x[0] - p[0]) * p[3] + (x[1] - p[1]) * p[4] + (x[2] - p[2]) * p[5];
  case TIDE_SHAPE_TORUS: {
    double d[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
    if (s->dim == 2) return fabs(len3(d) - p[6]) - p[7];
    double h = dot3(d, p + 3);
    double q[3] = {d[0] - h * p[3], d[1] - h * p[4], d[2] - h * p[5]};
    double rad = len3(q) - p[6];
    return sqrt(rad * rad + h * h) - p[7];
  }
  case TIDE_SHAPE_MESH:
    return eval_mesh(s, x, band, sc);
  case TIDE_SHAPE_UNION: {
    double a = eval(s->a, x, band, sc), b = eval(s->b, x, band, sc);
    return a < b ? a : b;
  }
  case TIDE_SHAPE_INTERSECTION: {
    double a = eval(s->a, x, band, sc), b = eval(s->b, x, band, sc);
    return a > b ? a : b;
  }
  case TIDE_SHAPE_DIFFERENCE: {
    double a = eval(s->a, x, band, sc), b = -eval(s->b, x, band, sc);
    return a > b ? a : b;
  }
  case TIDE_SHAPE_COMPLEMENT:
    return -eval(s->a, x, band, sc);
  case TIDE_SHAPE_TRANSFORM: {
    /* y = R^T (x - t) */
    double d[3] = {x[0] - p[9], x[1] - p[10], x[2] - p[11]}, y[3];
    for (int j = 0; j < 3; j++)
      y[j] = p[j] * d[0] + p[3 + j] * d[1] + p[6 + j] * d[2];
    return eval(s->a, y, band, sc);
  }
  }
  return NAN;
}

double tide_shape_eval(const tide_shape *s, const double x[3]) { return eval(s, x, INFINITY, NULL); }

double tide_shape_eval_band(const tide_shape *s, const double x[3], double band) {
  return eval(s, x, band > 0 ? band : INFINITY, NULL);
}

void tide_shape_normal(const tide_shape *s, const double x[3], double h, double n[3]) {
  if (!(h > 0)) h = 1e-6;
  double l2 = 0;
  for (int a = 0; a < 3; a++) {
    n[a] = 0;
    if (a >= s->dim) continue;
    double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
    xp[a] += h;
    xm[a] -= h;
    n[a] = (tide_shape_eval(s, xp) - tide_shape_eval(s, xm)) / (2 * h);
    l2 += n[a] * n[a];
  }
  if (l2 > 0) {
    double l = sqrt(l2);
    for (int a = 0; a < 3; a++)
      n[a] /= l;
  }
}

int tide_shape_sdf(const tide_shape *s, const tide_grid *g, int at, double *out) {
  return tide_shape_sdf_band(s, g, at, INFINITY, out);
}

int tide_shape_sdf_band(const tide_shape *s, const tide_grid *g, int at, double band, double *out) {
  int st = tide_sdf_check_grid(g, at, "shape sdf");
  if (st) return st;
  if (!s || !out) return tide_fail(TIDE_EINVAL, "shape sdf: missing shape or output");
  if (s->dim != g->dim)
    return tide_fail(TIDE_EINVAL, "shape sdf: %dD shape on a %dD grid", s->dim, g->dim);
  int d[3];
  tide_grid_sample_dims(g, at, d);
  /* a line at a time (its points in order share a scan_ctx: the sign hint) */
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < d[0]; i++)
    for (int j = 0; j < d[1]; j++) {
      scan_ctx sc;
      sc.n = 0;
      for (int k = 0; k < d[2]; k++) {
        double x[3];
        tide_grid_sample_pos(g, at, i, j, k, x);
        sc.next = 0;
        out[((int64_t)i * d[1] + j) * d[2] + k] = eval(s, x, band > 0 ? band : INFINITY, &sc);
      }
    }
  return TIDE_OK;
}

int tide_shape_sdf_points(const tide_shape *s, int64_t np, int stride, const double *x,
                          double *out) {
  if (!s || (np > 0 && (!x || !out)))
    return tide_fail(TIDE_EINVAL, "shape sdf: missing shape, points or output");
  if (np < 0) return tide_fail(TIDE_EINVAL, "shape sdf: negative point count");
  if (stride < s->dim)
    return tide_fail(TIDE_EINVAL,
                     "shape sdf: %dD shape needs points with >= %d coordinates, got %d", s->dim,
                     s->dim, stride);
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < np; q++) {
    double y[3] = {0, 0, 0};
    for (int a = 0; a < s->dim; a++)
      y[a] = x[q * stride + a];
    out[q] = tide_shape_eval(s, y);
  }
  return TIDE_OK;
}
