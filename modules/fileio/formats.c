/* formats.c -- NumPy .npy, PLY (binary little endian) and Wavefront OBJ
 * files (see fileio.h). */
#include "fileio.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a contiguous reference to a (a new reference either way) */
static tide_array *contiguous(const tide_array *a) {
  if (tide_array_contiguous(a)) return tide_array_retain((tide_array *)a);
  return tide_array_clone(a, a->dtype);
}

static int is_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* ------------------------------------------------------------------ npy */

static const char *npy_descr(tide_dtype t) {
  switch (t) {
  case TIDE_F64:
    return "<f8";
  case TIDE_F32:
    return "<f4";
  case TIDE_I32:
    return "<i4";
  default:
    return "|u1";
  }
}

int tide_npy_write(const char *path, const tide_array *a) {
  if (!a) return tide_fail(TIDE_EINVAL, "npy: no array");
  if (!is_little_endian()) return tide_fail(TIDE_EINVAL, "npy: big-endian hosts are not supported");
  char hdr[256], shape[160] = "";
  size_t k = 0;
  for (int d = 0; d < a->ndim; d++)
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%lld,%s", (long long)a->shape[d],
                          d + 1 < a->ndim ? " " : "");
  if (a->ndim > 1) shape[k - 1] = '\0'; /* (3,) for one axis, (4, 3) otherwise */
  int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   npy_descr(a->dtype), shape);
  /* pad with spaces so that the data starts on a 64-byte boundary */
  int total = 10 + n + 1;
  int pad = (64 - total % 64) % 64;
  memset(hdr + n, ' ', (size_t)pad);
  n += pad;
  hdr[n++] = '\n';
  tide_array *c = contiguous(a);
  if (!c) return TIDE_ENOMEM;
  tide_afile af;
  int st = tide_afile_open(&af, path);
  if (st) {
    tide_array_release(c);
    return st;
  }
  uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(n & 255), (uint8_t)(n >> 8)};
  fwrite(pre, 1, 10, af.f);
  fwrite(hdr, 1, (size_t)n, af.f);
  size_t bytes = (size_t)tide_array_size(c) * tide_dtype_size(c->dtype);
  if (bytes) fwrite(tide_array_ptr(c), 1, bytes, af.f);
  tide_array_release(c);
  return tide_afile_commit(&af);
}

int tide_npy_read(const char *path, tide_array **out) {
  *out = NULL;
  FILE *f;
  uint64_t fsize;
  int st = tide_file_open_read(path, &f, &fsize);
  if (st) return st;
  uint8_t pre[10];
  char hdr[4096];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    st = tide_fail(TIDE_EFORMAT, "%s: not a .npy file", path);
    goto done;
  }
  if (pre[6] != 1) {
    st = tide_fail(TIDE_EFORMAT, "%s: .npy version %d not supported (1.0 only)", path, pre[6]);
    goto done;
  }
  size_t hl = (size_t)pre[8] | (size_t)pre[9] << 8;
  if (hl >= sizeof hdr || fread(hdr, 1, hl, f) != hl) {
    st = tide_fail(TIDE_EFORMAT, "%s: truncated .npy header", path);
    goto done;
  }
  hdr[hl] = '\0';
  if (strlen(hdr) != hl) {
    st = tide_fail(TIDE_EFORMAT, "%s: NUL byte in the .npy header", path);
    goto done;
  }
  tide_dtype t;
  if (strstr(hdr, "'<f8'"))
    t = TIDE_F64;
  else if (strstr(hdr, "'<f4'"))
    t = TIDE_F32;
  else if (strstr(hdr, "'<i4'"))
    t = TIDE_I32;
  else if (strstr(hdr, "'|u1'"))
    t = TIDE_U8;
  else {
    st = tide_fail(TIDE_EFORMAT, "%s: unsupported dtype in %.200s", path, hdr);
    goto done;
  }
  if (!strstr(hdr, "'fortran_order': False")) {
    st = tide_fail(TIDE_EFORMAT, "%s: Fortran-ordered arrays are not supported", path);
    goto done;
  }
  const char *p = strstr(hdr, "'shape': (");
  if (!p) {
    st = tide_fail(TIDE_EFORMAT, "%s: no shape in the header", path);
    goto done;
  }
  p += 10;
  int64_t shape[TIDE_MAXDIM];
  int nd = 0;
  /* the data the header declares, checked against the bytes the file holds
   * before anything is allocated */
  uint64_t avail = fsize - 10 - hl, need = tide_dtype_size(t);
  while (*p && *p != ')') {
    while (*p == ' ' || *p == ',')
      p++;
    if (*p == ')') break;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || errno || nd == TIDE_MAXDIM) {
      st = tide_fail(TIDE_EFORMAT, "%s: bad or too long shape (at most %d axes)", path,
                     TIDE_MAXDIM);
      goto done;
    }
    if (v > 0 && need > avail / (uint64_t)v) {
      st = tide_fail(TIDE_EFORMAT,
                     "%s: the header declares more data than the file holds (%llu bytes after "
                     "the header)",
                     path, (unsigned long long)avail);
      goto done;
    }
    need *= (uint64_t)v;
    shape[nd++] = v;
    p = end;
  }
  if (nd == 0) shape[nd++] = 1; /* a scalar as a one-element array */
  if (need > avail) {
    st = tide_fail(TIDE_EFORMAT, "%s: truncated data (%llu bytes declared, %llu in the file)",
                   path, (unsigned long long)need, (unsigned long long)avail);
    goto done;
  }
  tide_array *a = tide_array_new(t, nd, shape);
  if (!a) {
    st = tide_fail(TIDE_ENOMEM, "%s: %s", path, tide_errmsg());
    goto done;
  }
  size_t bytes = (size_t)tide_array_size(a) * tide_dtype_size(t);
  if (bytes && fread(tide_array_ptr(a), 1, bytes, f) != bytes) {
    tide_array_release(a);
    st = tide_fail(TIDE_EFORMAT, "%s: truncated data (%zu bytes expected)", path, bytes);
    goto done;
  }
  *out = a;
done:
  fclose(f);
  return st;
}

/* ------------------------------------------------------------------ ply */

static const char *ply_type(tide_dtype t) {
  switch (t) {
  case TIDE_F64:
    return "double";
  case TIDE_F32:
    return "float";
  case TIDE_I32:
    return "int";
  default:
    return "uchar";
  }
}

static int attr_check(const tide_attr *a, int64_t n, const char *what) {
  if (!a->name || !*a->name) return tide_fail(TIDE_EINVAL, "%s attribute without a name", what);
  for (const char *p = a->name; *p; p++)
    if (*p == ' ' || *p == '"' || *p == '<' || *p == '>' || *p == '&' || (unsigned char)*p < 32)
      return tide_fail(TIDE_EINVAL, "%s attribute name '%s' has a space or markup character", what,
                       a->name);
  if (!a->a || (a->a->ndim != 1 && a->a->ndim != 2) || a->a->shape[0] != n)
    return tide_fail(TIDE_EINVAL, "%s attribute '%s' must have shape (%lld) or (%lld, c)", what,
                     a->name, (long long)n, (long long)n);
  if (a->a->ndim == 2 && (a->a->shape[1] < 1 || a->a->shape[1] > 16))
    return tide_fail(TIDE_EINVAL, "%s attribute '%s' has %lld components (1..16)", what, a->name,
                     (long long)a->a->shape[1]);
  return TIDE_OK;
}

static int attr_ncomp(const tide_attr *a) { return a->a->ndim == 2 ? (int)a->a->shape[1] : 1; }

/* PLY property name of component c of attribute a */
static void ply_prop(const tide_attr *a, int c, char *buf, size_t cap) {
  int nc = attr_ncomp(a);
  if (nc == 1) {
    snprintf(buf, cap, "%s", a->name);
  } else if (nc == 3 && (!strcmp(a->name, "normal") || !strcmp(a->name, "normals"))) {
    snprintf(buf, cap, "n%c", "xyz"[c]);
  } else if ((nc == 3 || nc == 4) && a->a->dtype == TIDE_U8 &&
             (!strcmp(a->name, "color") || !strcmp(a->name, "colors"))) {
    static const char *const rgba[4] = {"red", "green", "blue", "alpha"};
    snprintf(buf, cap, "%s", rgba[c]);
  } else if (nc <= 3) {
    snprintf(buf, cap, "%s_%c", a->name, "xyz"[c]);
  } else {
    snprintf(buf, cap, "%s_%d", a->name, c);
  }
}

int tide_ply_write(const char *path, int64_t nv, int dim, const double *pos, int nattr,
                   const tide_attr *attr, int64_t nf, int fk, const int32_t *faces, int dbl) {
  if (!is_little_endian()) return tide_fail(TIDE_EINVAL, "ply: big-endian hosts are not supported");
  if (nv < 0 || (dim != 2 && dim != 3))
    return tide_fail(TIDE_EINVAL, "ply: positions must be (n, 2) or (n, 3)");
  if (nf > 0 && fk != 2 && fk != 3)
    return tide_fail(TIDE_EINVAL, "ply: faces must be triangles or edges");
  for (int q = 0; q < nattr; q++) {
    int st = attr_check(&attr[q], nv, "ply");
    if (st) return st;
  }
  for (int64_t k = 0; k < nf * fk; k++)
    if (faces[k] < 0 || faces[k] >= nv)
      return tide_fail(TIDE_EINVAL, "ply: face %lld refers to vertex %d outside 0..%lld",
                       (long long)(k / fk), faces[k], (long long)nv - 1);
  /* contiguous copies of the attributes, row size */
  tide_array *ca[64];
  if (nattr > 64) return tide_fail(TIDE_EINVAL, "ply: at most 64 attributes");
  size_t row = (size_t)3 * (dbl ? 8 : 4);
  int st = TIDE_OK;
  int have = 0;
  for (int q = 0; q < nattr; q++, have++) {
    ca[q] = contiguous(attr[q].a);
    if (!ca[q]) {
      st = TIDE_ENOMEM;
      break;
    }
    row += (size_t)attr_ncomp(&attr[q]) * tide_dtype_size(ca[q]->dtype);
  }
  tide_afile af;
  if (!st) st = tide_afile_open(&af, path);
  if (st) {
    for (int q = 0; q < have; q++)
      tide_array_release(ca[q]);
    return st;
  }
  FILE *f = af.f;
  fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment written by Tide %s\n", TIDE_VERSION);
  fprintf(f, "element vertex %lld\n", (long long)nv);
  for (int d = 0; d < 3; d++)
    fprintf(f, "property %s %c\n", dbl ? "double" : "float", "xyz"[d]);
  for (int q = 0; q < nattr; q++)
    for (int c = 0; c < attr_ncomp(&attr[q]); c++) {
      char name[128];
      ply_prop(&attr[q], c, name, sizeof name);
      fprintf(f, "property %s %s\n", ply_type(ca[q]->dtype), name);
    }
  if (nf > 0 && fk == 3)
    fprintf(f, "element face %lld\nproperty list uchar int vertex_indices\n", (long long)nf);
  if (nf > 0 && fk == 2)
    fprintf(f, "element edge %lld\nproperty int vertex1\nproperty int vertex2\n", (long long)nf);
  fprintf(f, "end_header\n");
  /* vertices in chunks of rows */
  enum { CHUNK = 4096 };
  uint8_t *buf = malloc(row * CHUNK);
  if (!buf) {
    tide_afile_abort(&af);
    for (int q = 0; q < nattr; q++)
      tide_array_release(ca[q]);
    return tide_fail(TIDE_ENOMEM, "ply: out of memory");
  }
  for (int64_t v0 = 0; v0 < nv; v0 += CHUNK) {
    int64_t m = nv - v0 < CHUNK ? nv - v0 : CHUNK;
    for (int64_t v = 0; v < m; v++) {
      uint8_t *p = buf + (size_t)v * row;
      for (int d = 0; d < 3; d++) {
        double x = d < dim ? pos[(v0 + v) * dim + d] : 0;
        if (dbl) {
          memcpy(p, &x, 8);
          p += 8;
        } else {
          float y = (float)x;
          memcpy(p, &y, 4);
          p += 4;
        }
      }
      for (int q = 0; q < nattr; q++) {
        size_t sz = (size_t)attr_ncomp(&attr[q]) * tide_dtype_size(ca[q]->dtype);
        memcpy(p, (const uint8_t *)tide_array_ptr(ca[q]) + (size_t)(v0 + v) * sz, sz);
        p += sz;
      }
    }
    fwrite(buf, row, (size_t)m, f);
  }
  free(buf);
  for (int64_t k = 0; k < nf; k++) {
    if (fk == 3) {
      uint8_t three = 3;
      fwrite(&three, 1, 1, f);
    }
    fwrite(faces + k * fk, sizeof(int32_t), (size_t)fk, f);
  }
  for (int q = 0; q < nattr; q++)
    tide_array_release(ca[q]);
  return tide_afile_commit(&af);
}

/* ------------------------------------------------------------------ obj */

int tide_obj_write(const char *path, int64_t nv, int dim, const double *pos, const double *normals,
                   int64_t nf, int fk, const int32_t *faces) {
  if (nv < 0 || (dim != 2 && dim != 3))
    return tide_fail(TIDE_EINVAL, "obj: positions must be (n, 2) or (n, 3)");
  if (nf > 0 && fk != 2 && fk != 3)
    return tide_fail(TIDE_EINVAL, "obj: faces must be triangles or lines");
  for (int64_t k = 0; k < nf * fk; k++)
    if (faces[k] < 0 || faces[k] >= nv)
      return tide_fail(TIDE_EINVAL, "obj: face %lld refers to vertex %d outside 0..%lld",
                       (long long)(k / fk), faces[k], (long long)nv - 1);
  for (int64_t k = 0; k < nv * dim; k++)
    if (!isfinite(pos[k]))
      return tide_fail(TIDE_ENONFINITE, "obj: non-finite vertex %lld", (long long)(k / dim));
  tide_afile af;
  int st = tide_afile_open(&af, path);
  if (st) return st;
  FILE *f = af.f;
  fprintf(f, "# written by Tide %s: %lld vertices, %lld %s\n", TIDE_VERSION, (long long)nv,
          (long long)nf, fk == 2 ? "lines" : "triangles");
  for (int64_t v = 0; v < nv; v++)
    fprintf(f, "v %.9g %.9g %.9g\n", pos[v * dim], pos[v * dim + 1],
            dim == 3 ? pos[v * dim + 2] : 0.0);
  if (normals)
    for (int64_t v = 0; v < nv; v++)
      fprintf(f, "vn %.6g %.6g %.6g\n", normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]);
  for (int64_t k = 0; k < nf; k++) {
    const int32_t *t = faces + k * fk;
    if (fk == 2)
      fprintf(f, "l %d %d\n", t[0] + 1, t[1] + 1);
    else if (normals)
      fprintf(f, "f %d//%d %d//%d %d//%d\n", t[0] + 1, t[0] + 1, t[1] + 1, t[1] + 1, t[2] + 1,
              t[2] + 1);
    else
      fprintf(f, "f %d %d %d\n", t[0] + 1, t[1] + 1, t[2] + 1);
  }
  return tide_afile_commit(&af);
}
