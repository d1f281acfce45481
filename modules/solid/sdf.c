/*
 * sdf.c -- analytic signed distance functions (see sdf.h).
 */
#include "solid/sdf.h"

#include <math.h>
#include <string.h>

static int sdf_new(int kind, int dim, tide_sdf **out) {
  *out = NULL;
  if (dim != 2 && dim != 3) return tide_fail(TIDE_EINVAL, "shape dimension must be 2 or 3");
  tide_sdf *s = tide_calloc(sizeof *s);
  if (!s) return TIDE_ENOMEM;
  s->kind = kind;
  s->dim = dim;
  s->refcount = 1;
  *out = s;
  return TIDE_OK;
}

static int finite_vec(int n, const double *v) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

int tide_sdf_sphere(int dim, const double *c, double r, tide_sdf **out) {
  if (!finite_vec(dim, c) || !(r > 0) || !isfinite(r))
    return tide_fail(TIDE_EINVAL, "sphere: finite centre and positive radius required");
  int st = sdf_new(TIDE_SDF_SPHERE, dim, out);
  if (st) return st;
  memcpy((*out)->p, c, sizeof(double) * (size_t)dim);
  (*out)->p[3] = r;
  return TIDE_OK;
}

int tide_sdf_box(int dim, const double *c, const double *half, tide_sdf **out) {
  if (!finite_vec(dim, c) || !finite_vec(dim, half))
    return tide_fail(TIDE_EINVAL, "box: finite centre and half extents required");
  for (int k = 0; k < dim; k++)
    if (!(half[k] > 0)) return tide_fail(TIDE_EINVAL, "box: half extents must be positive");
  int st = sdf_new(TIDE_SDF_BOX, dim, out);
  if (st) return st;
  memcpy((*out)->p, c, sizeof(double) * (size_t)dim);
  memcpy((*out)->p + 3, half, sizeof(double) * (size_t)dim);
  return TIDE_OK;
}

int tide_sdf_plane(int dim, const double *p, const double *n, tide_sdf **out) {
  double l = 0;
  for (int k = 0; k < dim; k++) l += n[k] * n[k];
  l = sqrt(l);
  if (!finite_vec(dim, p) || !finite_vec(dim, n) || !(l > 0))
    return tide_fail(TIDE_EINVAL, "plane: finite point and nonzero normal required");
  int st = sdf_new(TIDE_SDF_PLANE, dim, out);
  if (st) return st;
  for (int k = 0; k < dim; k++) {
    (*out)->p[k] = p[k];
    (*out)->p[3 + k] = n[k] / l;
  }
  return TIDE_OK;
}

int tide_sdf_torus(int dim, const double *c, double R, double r, int axis, tide_sdf **out) {
  if (!finite_vec(dim, c) || !(r > 0) || !(R > r) || !isfinite(R))
    return tide_fail(TIDE_EINVAL, "torus: radii must satisfy R > r > 0");
  if (axis < 0 || axis > 2) return tide_fail(TIDE_EINVAL, "torus: axis must be 0, 1 or 2");
  int st = sdf_new(TIDE_SDF_TORUS, dim, out);
  if (st) return st;
  memcpy((*out)->p, c, sizeof(double) * (size_t)dim);
  (*out)->p[3] = R;
  (*out)->p[4] = r;
  (*out)->axis = axis;
  return TIDE_OK;
}

int tide_sdf_cylinder(const double *c, double r, double half_height, int axis, tide_sdf **out) {
  if (!finite_vec(3, c) || !(r > 0) || !(half_height > 0) || !isfinite(r) || !isfinite(half_height))
    return tide_fail(TIDE_EINVAL, "cylinder: positive radius and half height required");
  if (axis < 0 || axis > 2) return tide_fail(TIDE_EINVAL, "cylinder: axis must be 0, 1 or 2");
  int st = sdf_new(TIDE_SDF_CYLINDER, 3, out);
  if (st) return st;
  memcpy((*out)->p, c, sizeof(double) * 3);
  (*out)->p[3] = r;
  (*out)->p[4] = half_height;
  (*out)->axis = axis;
  return TIDE_OK;
}

int tide_sdf_grid(const tide_grid *g, tide_array *phi, tide_sdf **out) {
  int64_t shape[3] = {g->n[0], g->n[1], g->n[2]};
  int st = tide_array_expect(phi, "phi", TIDE_F64, g->dim, shape);
  if (st) return st;
  if (!(g->dx > 0)) return tide_fail(TIDE_EINVAL, "grid shape: dx must be positive");
  if (tide_array_nonfinite(phi)) return tide_fail(TIDE_ENONFINITE, "grid shape: phi has NaN/Inf");
  if ((st = sdf_new(TIDE_SDF_GRID, g->dim, out))) return st;
  (*out)->grid = *g;
  (*out)->phi = tide_array_retain(phi);
  return TIDE_OK;
}

int tide_sdf_csg(int kind, tide_sdf *a, tide_sdf *b, tide_sdf **out) {
  if (kind != TIDE_SDF_UNION && kind != TIDE_SDF_INTERSECTION && kind != TIDE_SDF_DIFFERENCE)
    return tide_fail(TIDE_EINVAL, "csg: unknown operation");
  if (a->dim != b->dim) return tide_fail(TIDE_EINVAL, "csg: shapes of different dimension");
  int st = sdf_new(kind, a->dim, out);
  if (st) return st;
  (*out)->a = tide_sdf_retain(a);
  (*out)->b = tide_sdf_retain(b);
  return TIDE_OK;
}

tide_sdf *tide_sdf_retain(tide_sdf *s) {
#pragma omp atomic
  s->refcount++;
  return s;
}

void tide_sdf_release(tide_sdf *s) {
  if (!s) return;
  int left;
#pragma omp atomic capture
  left = --s->refcount;
  if (left > 0) return;
  tide_sdf_release(s->a);
  tide_sdf_release(s->b);
  tide_array_release(s->phi);
  tide_free(s, sizeof *s);
}

/* ---------------------------------------------------------------- bounds */

int tide_sdf_bounds(const tide_sdf *s, double *lo, double *hi) {
  int d = s->dim;
  switch (s->kind) {
  case TIDE_SDF_SPHERE:
  case TIDE_SDF_TORUS:
  case TIDE_SDF_CYLINDER: {
    double r = s->kind == TIDE_SDF_SPHERE ? s->p[3] : s->p[3] + (s->kind == TIDE_SDF_TORUS ? s->p[4] : 0);
    for (int k = 0; k < d; k++) {
      double e = r;
      if (s->kind == TIDE_SDF_TORUS && d == 3 && k == s->axis) e = s->p[4];
      if (s->kind == TIDE_SDF_CYLINDER && k == s->axis) e = s->p[4];
      lo[k] = s->p[k] - e;
      hi[k] = s->p[k] + e;
    }
    return 1;
  }
  case TIDE_SDF_BOX:
    for (int k = 0; k < d; k++) {
      lo[k] = s->p[k] - s->p[3 + k];
      hi[k] = s->p[k] + s->p[3 + k];
    }
    return 1;
  case TIDE_SDF_GRID:
    for (int k = 0; k < d; k++) {
      lo[k] = s->grid.origin[k];
      hi[k] = s->grid.origin[k] + s->grid.n[k] * s->grid.dx;
    }
    return 1;
  case TIDE_SDF_PLANE:
    return 0;
  case TIDE_SDF_UNION:
  case TIDE_SDF_INTERSECTION: {
    double la[3], ha[3], lb[3], hb[3];
    int ba = tide_sdf_bounds(s->a, la, ha), bb = tide_sdf_bounds(s->b, lb, hb);
    if (s->kind == TIDE_SDF_UNION) {
      if (!ba || !bb) return 0;
      for (int k = 0; k < d; k++) lo[k] = fmin(la[k], lb[k]), hi[k] = fmax(ha[k], hb[k]);
      return 1;
    }
    if (!ba && !bb) return 0;
    for (int k = 0; k < d; k++) {
      lo[k] = ba && bb ? fmax(la[k], lb[k]) : (ba ? la[k] : lb[k]);
      hi[k] = ba && bb ? fmin(ha[k], hb[k]) : (ba ? ha[k] : hb[k]);
    }
    return 1;
  }
  case TIDE_SDF_DIFFERENCE:
    return tide_sdf_bounds(s->a, lo, hi);
  default:
    return 0;
  }
}

/* ------------------------------------------------------------ evaluation */

static double eval_box(const tide_sdf *s, const double *x, double *grad) {
  int d = s->dim;
  double q[3], outside = 0, qmax = -INFINITY;
  int kmax = 0;
  for (int k = 0; k < d; k++) {
    double r = x[k] - s->p[k];
    q[k] = fabs(r) - s->p[3 + k];
    if (q[k] > 0) outside += q[k] * q[k];
    if (q[k] > qmax) qmax = q[k], kmax = k;
  }
  if (outside > 0) {
    double l = sqrt(outside);
    if (grad)
      for (int k = 0; k < d; k++) {
        double r = x[k] - s->p[k];
        grad[k] = q[k] > 0 ? (r >= 0 ? 1 : -1) * q[k] / l : 0;
      }
    return l;
  }
  if (grad) {
    for (int k = 0; k < d; k++) grad[k] = 0;
    grad[kmax] = x[kmax] - s->p[kmax] >= 0 ? 1 : -1;
  }
  return qmax;
}

static double eval_grid(const tide_sdf *s, const double *x, double *grad) {
  const tide_grid *g = &s->grid;
  int d = g->dim;
  const double *phi = TIDE_F64P(s->phi);
  double u[3], f[3], clampd = 0, cx[3];
  int i0[3];
  /* clamp the point to the box of cell centres and remember the distance */
  for (int k = 0; k < 3; k++) {
    if (k >= d) {
      u[k] = 0, f[k] = 0, i0[k] = 0;
      continue;
    }
    double lo = g->origin[k] + 0.5 * g->dx, hi = g->origin[k] + (g->n[k] - 0.5) * g->dx;
    cx[k] = x[k] < lo ? lo : (x[k] > hi ? hi : x[k]);
    clampd += (x[k] - cx[k]) * (x[k] - cx[k]);
    u[k] = (cx[k] - lo) / g->dx;
    int n = g->n[k];
    int i = (int)floor(u[k]);
    if (i > n - 2) i = n - 2;
    if (i < 0) i = 0;
    i0[k] = i;
    f[k] = n > 1 ? u[k] - i : 0;
  }
  int n1 = g->n[1], n2 = d == 3 ? g->n[2] : 1;
  int s0 = g->n[0] > 1, s1 = g->n[1] > 1, s2 = d == 3 && g->n[2] > 1;
  double val = 0, gr[3] = {0, 0, 0};
  for (int a = 0; a <= s0; a++)
    for (int b = 0; b <= s1; b++)
      for (int c = 0; c <= s2; c++) {
        double wa = a ? f[0] : 1 - f[0], wb = b ? f[1] : 1 - f[1], wc = c ? f[2] : 1 - f[2];
        if (!s0) wa = 1;
        if (!s1) wb = 1;
        if (!s2) wc = 1;
        double ph = phi[((int64_t)(i0[0] + a) * n1 + (i0[1] + b)) * n2 + (i0[2] + c)];
        val += wa * wb * wc * ph;
        if (s0) gr[0] += (a ? 1 : -1) * wb * wc * ph / g->dx;
        if (s1) gr[1] += (b ? 1 : -1) * wa * wc * ph / g->dx;
        if (s2) gr[2] += (c ? 1 : -1) * wa * wb * ph / g->dx;
      }
  if (clampd > 0) {
    double l = sqrt(clampd);
    /* outside the sampled box: add the distance to it */
    if (grad) {
      for (int k = 0; k < d; k++) grad[k] = (x[k] - cx[k]) / l;
    }
    return val + l;
  }
  if (grad)
    for (int k = 0; k < d; k++) grad[k] = gr[k];
  return val;
}

double tide_sdf_eval(const tide_sdf *s, const double *x, double *grad) {
  int d = s->dim;
  switch (s->kind) {
  case TIDE_SDF_SPHERE: {
    double r[3], l = 0;
    for (int k = 0; k < d; k++) {
      r[k] = x[k] - s->p[k];
      l += r[k] * r[k];
    }
    l = sqrt(l);
    if (grad)
      for (int k = 0; k < d; k++) grad[k] = l > 0 ? r[k] / l : (k == d - 1);
    return l - s->p[3];
  }
  case TIDE_SDF_BOX:
    return eval_box(s, x, grad);
  case TIDE_SDF_PLANE: {
    double v = 0;
    for (int k = 0; k < d; k++) {
      v += (x[k] - s->p[k]) * s->p[3 + k];
      if (grad) grad[k] = s->p[3 + k];
    }
    return v;
  }
  case TIDE_SDF_TORUS: {
    double R = s->p[3], r = s->p[4];
    double rel[3];
    for (int k = 0; k < d; k++) rel[k] = x[k] - s->p[k];
    if (d == 2) {
      double l = sqrt(rel[0] * rel[0] + rel[1] * rel[1]);
      double q = l - R;
      if (grad) {
        double sg = q >= 0 ? 1 : -1;
        for (int k = 0; k < 2; k++) grad[k] = l > 0 ? sg * rel[k] / l : (k == 0);
      }
      return fabs(q) - r;
    }
    int ax = s->axis;
    double h = rel[ax], rho2 = 0;
    for (int k = 0; k < 3; k++)
      if (k != ax) rho2 += rel[k] * rel[k];
    double rho = sqrt(rho2);
    double q0 = rho - R, ql = sqrt(q0 * q0 + h * h);
    if (grad) {
      for (int k = 0; k < 3; k++) {
        if (k == ax)
          grad[k] = ql > 0 ? h / ql : 0;
        else
          grad[k] = ql > 0 && rho > 0 ? q0 / ql * rel[k] / rho : 0;
      }
      if (!(ql > 0)) grad[ax] = 1;
    }
    return ql - r;
  }
  case TIDE_SDF_CYLINDER: {
    int ax = s->axis;
    double rel[3], rho2 = 0;
    for (int k = 0; k < 3; k++) rel[k] = x[k] - s->p[k];
    for (int k = 0; k < 3; k++)
      if (k != ax) rho2 += rel[k] * rel[k];
    double rho = sqrt(rho2);
    double qr = rho - s->p[3], qh = fabs(rel[ax]) - s->p[4];
    double sh = rel[ax] >= 0 ? 1 : -1;
    double gr[3] = {0, 0, 0};
    double v;
    if (qr > 0 || qh > 0) {
      double a = qr > 0 ? qr : 0, b = qh > 0 ? qh : 0, l = sqrt(a * a + b * b);
      v = l;
      for (int k = 0; k < 3; k++)
        if (k != ax && rho > 0) gr[k] = a / l * rel[k] / rho;
      gr[ax] = b / l * sh;
    } else if (qr > qh) {
      v = qr;
      for (int k = 0; k < 3; k++)
        if (k != ax) gr[k] = rho > 0 ? rel[k] / rho : 0;
    } else {
      v = qh;
      gr[ax] = sh;
    }
    if (grad) memcpy(grad, gr, sizeof gr);
    return v;
  }
  case TIDE_SDF_GRID:
    return eval_grid(s, x, grad);
  case TIDE_SDF_UNION:
  case TIDE_SDF_INTERSECTION:
  case TIDE_SDF_DIFFERENCE: {
    double ga[3], gb[3];
    double va = tide_sdf_eval(s->a, x, grad ? ga : NULL);
    double vb = tide_sdf_eval(s->b, x, grad ? gb : NULL);
    double sb = 1;
    if (s->kind == TIDE_SDF_DIFFERENCE) vb = -vb, sb = -1;
    int take_a = s->kind == TIDE_SDF_UNION ? va <= vb : va >= vb;
    if (grad)
      for (int k = 0; k < d; k++) grad[k] = take_a ? ga[k] : sb * gb[k];
    return take_a ? va : vb;
  }
  default:
    return INFINITY;
  }
}
