/* array.c -- reference-counted n-dimensional arrays and their bulk operations. */
#include "tide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t tide_dtype_size(tide_dtype t) {
  switch (t) {
  case TIDE_F64: return 8;
  case TIDE_F32: return 4;
  case TIDE_I32: return 4;
  case TIDE_U8: return 1;
  }
  return 0;
}

const char *tide_dtype_name(tide_dtype t) {
  switch (t) {
  case TIDE_F64: return "f64";
  case TIDE_F32: return "f32";
  case TIDE_I32: return "i32";
  case TIDE_U8: return "u8";
  }
  return "?";
}

int tide_dtype_parse(const char *s) {
  if (!strcmp(s, "f64") || !strcmp(s, "double")) return TIDE_F64;
  if (!strcmp(s, "f32") || !strcmp(s, "float")) return TIDE_F32;
  if (!strcmp(s, "i32") || !strcmp(s, "int")) return TIDE_I32;
  if (!strcmp(s, "u8") || !strcmp(s, "byte")) return TIDE_U8;
  return -1;
}

static void set_cstrides(tide_array *a) {
  int64_t s = 1;
  for (int d = a->ndim - 1; d >= 0; d--) {
    a->stride[d] = s;
    s *= a->shape[d];
  }
}

tide_array *tide_array_new(tide_dtype t, int ndim, const int64_t *shape) {
  if (ndim < 1 || ndim > TIDE_MAXDIM) {
    tide_fail(TIDE_EINVAL, "array rank %d out of range 1..%d", ndim, TIDE_MAXDIM);
    return NULL;
  }
  if (tide_dtype_size(t) == 0) {
    tide_fail(TIDE_EINVAL, "unknown array type %d", (int)t);
    return NULL;
  }
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] < 0) {
      tide_fail(TIDE_EINVAL, "negative array extent %lld in dimension %d", (long long)shape[d],
                d + 1);
      return NULL;
    }
    if (shape[d] > 0 && n > INT64_MAX / 16 / shape[d]) {
      tide_fail(TIDE_EINVAL, "array too large");
      return NULL;
    }
    n *= shape[d];
  }
  tide_array *a = calloc(1, sizeof *a);
  tide_buffer *b = calloc(1, sizeof *b);
  if (!a || !b) {
    free(a);
    free(b);
    tide_fail(TIDE_ENOMEM, "out of memory");
    return NULL;
  }
  b->bytes = (size_t)n * tide_dtype_size(t);
  b->data = tide_calloc(b->bytes);
  if (!b->data) {
    free(a);
    free(b);
    return NULL;
  }
  b->refcount = 1;
  a->buf = b;
  a->dtype = t;
  a->ndim = ndim;
  for (int d = 0; d < ndim; d++) a->shape[d] = shape[d];
  set_cstrides(a);
  a->refcount = 1;
  return a;
}

tide_array *tide_array_new1(tide_dtype t, int64_t n0) { return tide_array_new(t, 1, &n0); }
tide_array *tide_array_new2(tide_dtype t, int64_t n0, int64_t n1) {
  int64_t s[2] = {n0, n1};
  return tide_array_new(t, 2, s);
}
tide_array *tide_array_new3(tide_dtype t, int64_t n0, int64_t n1, int64_t n2) {
  int64_t s[3] = {n0, n1, n2};
  return tide_array_new(t, 3, s);
}

static void buffer_release(tide_buffer *b) {
  int left;
#pragma omp atomic capture
  left = --b->refcount;
  if (left == 0) {
    tide_free(b->data, b->bytes);
    free(b);
  }
}

tide_array *tide_array_retain(tide_array *a) {
  if (a) {
#pragma omp atomic
    a->refcount++;
  }
  return a;
}

void tide_array_release(tide_array *a) {
  if (!a) return;
  int left;
#pragma omp atomic capture
  left = --a->refcount;
  if (left == 0) {
    buffer_release(a->buf);
    free(a);
  }
}

int64_t tide_array_size(const tide_array *a) {
  int64_t n = 1;
  for (int d = 0; d < a->ndim; d++) n *= a->shape[d];
  return n;
}

int tide_array_contiguous(const tide_array *a) {
  int64_t s = 1;
  for (int d = a->ndim - 1; d >= 0; d--) {
    if (a->shape[d] != 1 && a->stride[d] != s) return 0;
    s *= a->shape[d];
  }
  return 1;
}

void *tide_array_ptr(const tide_array *a) {
  return (char *)a->buf->data + (size_t)a->offset * tide_dtype_size(a->dtype);
}

int tide_array_expect(const tide_array *a, const char *what, tide_dtype t, int ndim,
                      const int64_t *shape) {
  if (!a) return tide_fail(TIDE_EINVAL, "%s: array expected", what);
  if (a->dtype != t)
    return tide_fail(TIDE_EINVAL, "%s: %s array expected, got %s", what, tide_dtype_name(t),
                     tide_dtype_name(a->dtype));
  if (a->ndim != ndim)
    return tide_fail(TIDE_EINVAL, "%s: array of rank %d expected, got rank %d", what, ndim,
                     a->ndim);
  for (int d = 0; d < ndim; d++)
    if (shape && shape[d] >= 0 && a->shape[d] != shape[d])
      return tide_fail(TIDE_EINVAL, "%s: extent %lld expected in dimension %d, got %lld", what,
                       (long long)shape[d], d + 1, (long long)a->shape[d]);
  if (!tide_array_contiguous(a))
    return tide_fail(TIDE_EINVAL, "%s: contiguous array expected (use :clone() on a view)", what);
  return TIDE_OK;
}

/* ------------------------------------------------------- element access */

static inline double load(const tide_array *a, int64_t off) {
  const char *base = a->buf->data;
  switch (a->dtype) {
  case TIDE_F64: return ((const double *)base)[off];
  case TIDE_F32: return ((const float *)base)[off];
  case TIDE_I32: return ((const int32_t *)base)[off];
  case TIDE_U8: return ((const uint8_t *)base)[off];
  }
  return 0;
}

static inline void store(tide_array *a, int64_t off, double v) {
  char *base = a->buf->data;
  switch (a->dtype) {
  case TIDE_F64: ((double *)base)[off] = v; break;
  case TIDE_F32: ((float *)base)[off] = (float)v; break;
  case TIDE_I32: ((int32_t *)base)[off] = (int32_t)v; break;
  case TIDE_U8: ((uint8_t *)base)[off] = (uint8_t)v; break;
  }
}

static inline int64_t lin_offset(const tide_array *a, int64_t k) {
  int64_t off = a->offset;
  for (int d = a->ndim - 1; d >= 0; d--) {
    int64_t n = a->shape[d];
    off += (k % n) * a->stride[d];
    k /= n;
  }
  return off;
}

double tide_array_get(const tide_array *a, const int64_t *idx) {
  int64_t off = a->offset;
  for (int d = 0; d < a->ndim; d++) off += idx[d] * a->stride[d];
  return load(a, off);
}

void tide_array_set(tide_array *a, const int64_t *idx, double v) {
  int64_t off = a->offset;
  for (int d = 0; d < a->ndim; d++) off += idx[d] * a->stride[d];
  store(a, off, v);
}

double tide_array_getlin(const tide_array *a, int64_t k) { return load(a, lin_offset(a, k)); }
void tide_array_setlin(tide_array *a, int64_t k, double v) { store(a, lin_offset(a, k), v); }

/* ----------------------------------------------------------------- views */

static tide_array *view_of(tide_array *a) {
  tide_array *v = malloc(sizeof *v);
  if (!v) {
    tide_fail(TIDE_ENOMEM, "out of memory");
    return NULL;
  }
  *v = *a;
  v->refcount = 1;
#pragma omp atomic
  a->buf->refcount++;
  return v;
}

tide_array *tide_array_slice(tide_array *a, int axis, int64_t start, int64_t stop, int64_t step) {
  if (axis < 0 || axis >= a->ndim) {
    tide_fail(TIDE_EINVAL, "slice: axis %d out of range 1..%d", axis + 1, a->ndim);
    return NULL;
  }
  if (step <= 0 || start < 0 || stop > a->shape[axis] || start > stop) {
    tide_fail(TIDE_EINVAL, "slice: range %lld..%lld (step %lld) invalid for extent %lld",
              (long long)start + 1, (long long)stop, (long long)step, (long long)a->shape[axis]);
    return NULL;
  }
  tide_array *v = view_of(a);
  if (!v) return NULL;
  v->offset += start * a->stride[axis];
  v->shape[axis] = (stop - start + step - 1) / step;
  v->stride[axis] *= step;
  return v;
}

tide_array *tide_array_select(tide_array *a, int axis, int64_t index) {
  if (axis < 0 || axis >= a->ndim || index < 0 || index >= a->shape[axis]) {
    tide_fail(TIDE_EINVAL, "index %lld out of range 1..%lld", (long long)index + 1,
              (long long)(axis >= 0 && axis < a->ndim ? a->shape[axis] : 0));
    return NULL;
  }
  if (a->ndim == 1) {
    tide_fail(TIDE_EINVAL, "cannot drop the only axis of a 1-d array");
    return NULL;
  }
  tide_array *v = view_of(a);
  if (!v) return NULL;
  v->offset += index * a->stride[axis];
  for (int d = axis; d < a->ndim - 1; d++) {
    v->shape[d] = a->shape[d + 1];
    v->stride[d] = a->stride[d + 1];
  }
  v->ndim--;
  return v;
}

tide_array *tide_array_reshape(tide_array *a, int ndim, const int64_t *shape) {
  if (!tide_array_contiguous(a)) {
    tide_fail(TIDE_EINVAL, "reshape: contiguous array expected (use :clone() first)");
    return NULL;
  }
  if (ndim < 1 || ndim > TIDE_MAXDIM) {
    tide_fail(TIDE_EINVAL, "reshape: rank %d out of range 1..%d", ndim, TIDE_MAXDIM);
    return NULL;
  }
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] < 0) {
      tide_fail(TIDE_EINVAL, "reshape: negative extent");
      return NULL;
    }
    n *= shape[d];
  }
  if (n != tide_array_size(a)) {
    tide_fail(TIDE_EINVAL, "reshape: %lld elements cannot take a shape of %lld",
              (long long)tide_array_size(a), (long long)n);
    return NULL;
  }
  tide_array *v = view_of(a);
  if (!v) return NULL;
  v->ndim = ndim;
  for (int d = 0; d < ndim; d++) v->shape[d] = shape[d];
  set_cstrides(v);
  return v;
}

tide_array *tide_array_clone(const tide_array *a, tide_dtype t) {
  tide_array *c = tide_array_new(t, a->ndim, a->shape);
  if (!c) return NULL;
  tide_array_copy(c, a);
  return c;
}

/* ------------------------------------------------------- bulk operations */

static int same_count(const tide_array *a, const tide_array *b, const char *op) {
  if (tide_array_size(a) != tide_array_size(b))
    return tide_fail(TIDE_EINVAL, "%s: arrays have %lld and %lld elements", op,
                     (long long)tide_array_size(a), (long long)tide_array_size(b));
  return TIDE_OK;
}

#define CONTIG_F64(a) ((a)->dtype == TIDE_F64 && tide_array_contiguous(a))

int tide_array_fill(tide_array *a, double v) {
  int64_t n = tide_array_size(a);
  if (CONTIG_F64(a)) {
    double *p = TIDE_F64P(a);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) p[i] = v;
    return TIDE_OK;
  }
  if (tide_array_contiguous(a)) { /* the other types: the value converted once */
    void *p = tide_array_ptr(a);
    if (a->dtype == TIDE_U8) {
      memset(p, (uint8_t)v, (size_t)n);
    } else if (a->dtype == TIDE_I32) {
      int32_t w = (int32_t)v, *q = p;
#pragma omp parallel for schedule(static) if (n > 65536)
      for (int64_t i = 0; i < n; i++) q[i] = w;
    } else {
      float w = (float)v, *q = p;
#pragma omp parallel for schedule(static) if (n > 65536)
      for (int64_t i = 0; i < n; i++) q[i] = w;
    }
    return TIDE_OK;
  }
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; i++) tide_array_setlin(a, i, v);
  return TIDE_OK;
}

int tide_array_copy(tide_array *dst, const tide_array *src) {
  int st = same_count(dst, src, "copy");
  if (st) return st;
  int64_t n = tide_array_size(dst);
  if (dst->dtype == src->dtype && tide_array_contiguous(dst) && tide_array_contiguous(src)) {
    memmove(tide_array_ptr(dst), tide_array_ptr(src), (size_t)n * tide_dtype_size(dst->dtype));
    return TIDE_OK;
  }
  if (dst->buf == src->buf) { /* overlapping views: go through a temporary */
    tide_array *tmp = tide_array_clone(src, src->dtype);
    if (!tmp) return TIDE_ENOMEM;
    for (int64_t i = 0; i < n; i++) tide_array_setlin(dst, i, tide_array_getlin(tmp, i));
    tide_array_release(tmp);
    return TIDE_OK;
  }
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; i++) tide_array_setlin(dst, i, tide_array_getlin(src, i));
  return TIDE_OK;
}

int tide_array_scale(tide_array *a, double s) {
  int64_t n = tide_array_size(a);
  if (CONTIG_F64(a)) {
    double *p = TIDE_F64P(a);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) p[i] *= s;
    return TIDE_OK;
  }
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; i++) tide_array_setlin(a, i, tide_array_getlin(a, i) * s);
  return TIDE_OK;
}

int tide_array_axpy(tide_array *y, double alpha, const tide_array *x) {
  int st = same_count(y, x, "axpy");
  if (st) return st;
  int64_t n = tide_array_size(y);
  if (CONTIG_F64(y) && CONTIG_F64(x)) {
    double *py = TIDE_F64P(y);
    const double *px = TIDE_F64P(x);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) py[i] += alpha * px[i];
    return TIDE_OK;
  }
  for (int64_t i = 0; i < n; i++)
    tide_array_setlin(y, i, tide_array_getlin(y, i) + alpha * tide_array_getlin(x, i));
  return TIDE_OK;
}

/* Generic blocked reduction over linear positions (deterministic). */
typedef double (*lin_term)(const tide_array *a, const tide_array *b, int64_t i);
static double term_dot(const tide_array *a, const tide_array *b, int64_t i) {
  return tide_array_getlin(a, i) * tide_array_getlin(b, i);
}
static double term_sum(const tide_array *a, const tide_array *b, int64_t i) {
  (void)b;
  return tide_array_getlin(a, i);
}
static double term_sq(const tide_array *a, const tide_array *b, int64_t i) {
  (void)b;
  double v = tide_array_getlin(a, i);
  return v * v;
}

static int reduce_generic(const tide_array *a, const tide_array *b, lin_term f, double *out) {
  int64_t n = tide_array_size(a);
  int64_t nb = (n + TIDE_RBLOCK - 1) / TIDE_RBLOCK;
  double *part = malloc((size_t)(nb ? nb : 1) * sizeof(double));
  if (!part) return tide_fail(TIDE_ENOMEM, "out of memory");
#pragma omp parallel for schedule(static) if (nb > 4)
  for (int64_t k = 0; k < nb; k++) {
    int64_t lo = k * TIDE_RBLOCK, hi = lo + TIDE_RBLOCK < n ? lo + TIDE_RBLOCK : n;
    double s = 0;
    for (int64_t i = lo; i < hi; i++) s += f(a, b, i);
    part[k] = s;
  }
  double s = 0;
  for (int64_t k = 0; k < nb; k++) s += part[k];
  free(part);
  *out = s;
  return TIDE_OK;
}

int tide_array_dot(const tide_array *a, const tide_array *b, double *out) {
  int st = same_count(a, b, "dot");
  if (st) return st;
  if (CONTIG_F64(a) && CONTIG_F64(b)) {
    *out = tide_dot(tide_array_size(a), TIDE_F64P(a), TIDE_F64P(b));
    return TIDE_OK;
  }
  return reduce_generic(a, b, term_dot, out);
}

int tide_array_sum(const tide_array *a, double *out) {
  if (CONTIG_F64(a)) {
    *out = tide_sum(tide_array_size(a), TIDE_F64P(a));
    return TIDE_OK;
  }
  return reduce_generic(a, NULL, term_sum, out);
}

int tide_array_norm(const tide_array *a, double *out) {
  double s;
  if (CONTIG_F64(a))
    s = tide_norm2sq(tide_array_size(a), TIDE_F64P(a));
  else {
    int st = reduce_generic(a, NULL, term_sq, &s);
    if (st) return st;
  }
  *out = sqrt(s);
  return TIDE_OK;
}

int tide_array_minmax(const tide_array *a, double *mn, double *mx) {
  int64_t n = tide_array_size(a);
  if (n == 0) return tide_fail(TIDE_EINVAL, "min/max of an empty array");
  double lo = INFINITY, hi = -INFINITY;
  if (CONTIG_F64(a)) { /* the common case (particle velocities in flip.max_dt): no index arithmetic */
    const double *p = TIDE_F64P(a);
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) if (n > 65536)
    for (int64_t i = 0; i < n; i++) {
      lo = p[i] < lo ? p[i] : lo;
      hi = p[i] > hi ? p[i] : hi;
    }
    *mn = lo;
    *mx = hi;
    return TIDE_OK;
  }
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) if (n > 65536)
  for (int64_t i = 0; i < n; i++) {
    double v = tide_array_getlin(a, i);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  *mn = lo;
  *mx = hi;
  return TIDE_OK;
}

int64_t tide_array_nonfinite(const tide_array *a) {
  if (a->dtype == TIDE_I32 || a->dtype == TIDE_U8) return 0;
  int64_t n = tide_array_size(a), bad = 0;
  if (CONTIG_F64(a)) { /* the common case (fields checked by every projection) */
    const double *p = TIDE_F64P(a);
#pragma omp parallel for schedule(static) reduction(+ : bad) if (n > 65536)
    for (int64_t i = 0; i < n; i++)
      bad += !isfinite(p[i]);
    return bad;
  }
#pragma omp parallel for schedule(static) reduction(+ : bad) if (n > 65536)
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(tide_array_getlin(a, i))) bad++;
  return bad;
}
