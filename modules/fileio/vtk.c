/* vtk.c -- VTK XML files (.vti, .vtp, .vtu) with raw appended binary data,
 * and ParaView .pvd time collections (see fileio.h).
 *
 * Layout of every file: the XML header lists each DataArray with
 * format="appended" and its offset into the appended block; the block
 * follows "<AppendedData encoding="raw">_" and holds, per array, a UInt64
 * byte count and the little-endian values. */
#include "fileio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct vblock {
  char name[96];
  const char *type; /* Float64, Float32, Int32, Int64, UInt8 */
  int ncomp;
  int section;      /* index into the section list of the writer */
  tide_array *data; /* owned reference, contiguous */
} vblock;

typedef struct vwriter {
  vblock b[80];
  int n;
  int st;
} vwriter;

static const char *vtk_type(tide_dtype t) {
  switch (t) {
  case TIDE_F64:
    return "Float64";
  case TIDE_F32:
    return "Float32";
  case TIDE_I32:
    return "Int32";
  default:
    return "UInt8";
  }
}

/* add a block (takes over the reference to a) */
static void vw_add(vwriter *w, int section, const char *name, int ncomp, tide_array *a) {
  if (w->st) {
    tide_array_release(a);
    return;
  }
  if (!a) {
    w->st = TIDE_ENOMEM;
    return;
  }
  if (w->n == (int)(sizeof w->b / sizeof w->b[0])) {
    tide_array_release(a);
    w->st = tide_fail(TIDE_EINVAL, "vtk: too many arrays");
    return;
  }
  vblock *b = &w->b[w->n++];
  snprintf(b->name, sizeof b->name, "%s", name);
  b->type = vtk_type(a->dtype);
  b->ncomp = ncomp;
  b->section = section;
  b->data = a;
}

static void vw_free(vwriter *w) {
  for (int k = 0; k < w->n; k++)
    tide_array_release(w->b[k].data);
  w->n = 0;
}

static size_t vb_bytes(const vblock *b) {
  return (size_t)tide_array_size(b->data) * tide_dtype_size(b->data->dtype);
}

/* write the DataArray elements of a section */
static void vw_section(vwriter *w, FILE *f, int section, const char *indent) {
  uint64_t off = 0;
  for (int k = 0; k < w->n; k++) {
    const vblock *b = &w->b[k];
    if (b->section == section)
      fprintf(f,
              "%s<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"appended\" "
              "offset=\"%llu\"/>\n",
              indent, b->type, b->name, b->ncomp, (unsigned long long)off);
    off += 8 + vb_bytes(b);
  }
}

static void vw_appended(vwriter *w, FILE *f) {
  fprintf(f, "  <AppendedData encoding=\"raw\">\n   _");
  for (int k = 0; k < w->n; k++) {
    uint64_t bytes = vb_bytes(&w->b[k]);
    fwrite(&bytes, 8, 1, f);
    if (bytes) fwrite(tide_array_ptr(w->b[k].data), 1, bytes, f);
  }
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
}

static void vw_header(FILE *f, const char *type) {
  fprintf(f, "<?xml version=\"1.0\"?>\n<!-- written by Tide %s -->\n", TIDE_VERSION);
  fprintf(
      f,
      "<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n",
      type);
}

static int name_ok(const char *name) {
  if (!name || !*name) return 0;
  for (const char *p = name; *p; p++)
    if (*p == '"' || *p == '<' || *p == '>' || *p == '&' || (unsigned char)*p < 32) return 0;
  return 1;
}

/* per-point or per-cell attributes (n) or (n, c) as contiguous blocks */
static void vw_attrs(vwriter *w, int section, int na, const tide_attr *a, int64_t n,
                     const char *what) {
  for (int q = 0; q < na && !w->st; q++) {
    const tide_array *x = a[q].a;
    if (!name_ok(a[q].name)) {
      w->st = tide_fail(TIDE_EINVAL, "vtk: %s attribute %d needs a name without quotes or markup",
                        what, q + 1);
      return;
    }
    if (!x || (x->ndim != 1 && x->ndim != 2) || x->shape[0] != n) {
      w->st = tide_fail(TIDE_EINVAL, "vtk: %s attribute '%s' must have shape (%lld) or (%lld, c)",
                        what, a[q].name, (long long)n, (long long)n);
      return;
    }
    int nc = x->ndim == 2 ? (int)x->shape[1] : 1;
    if (nc < 1 || nc > 16) {
      w->st = tide_fail(TIDE_EINVAL, "vtk: %s attribute '%s' has %d components (1..16)", what,
                        a[q].name, nc);
      return;
    }
    vw_add(w, section, a[q].name, nc, tide_array_clone(x, x->dtype));
  }
}

/* points (n, dim) as Float64 (n, 3) */
static void vw_points(vwriter *w, int section, int64_t n, int dim, const double *pos) {
  tide_array *p = tide_array_new2(TIDE_F64, n, 3);
  if (p) {
    double *q = TIDE_F64P(p);
    for (int64_t k = 0; k < n; k++)
      for (int d = 0; d < 3; d++)
        q[3 * k + d] = d < dim ? pos[k * dim + d] : 0;
  }
  vw_add(w, section, "Points", 3, p);
}

static int check_points(int64_t np, int dim, const double *pos, const char *what) {
  if (np < 0 || (dim != 2 && dim != 3))
    return tide_fail(TIDE_EINVAL, "%s: points must be (n, 2) or (n, 3)", what);
  for (int64_t k = 0; k < np * dim; k++)
    if (!isfinite(pos[k]))
      return tide_fail(TIDE_ENONFINITE, "%s: point %lld is not finite", what, (long long)(k / dim));
  return TIDE_OK;
}

static int check_cells(int64_t n, int k, const int32_t *c, int64_t np, const char *what) {
  for (int64_t q = 0; q < n * k; q++)
    if (c[q] < 0 || c[q] >= np)
      return tide_fail(TIDE_EINVAL, "%s: cell %lld refers to point %d outside 0..%lld", what,
                       (long long)(q / k), c[q], (long long)np - 1);
  return TIDE_OK;
}

/* connectivity and offsets of n cells of k points (Int32 / Int64) */
static void vw_cells(vwriter *w, int section, int64_t n, int k, const int32_t *c) {
  tide_array *conn = tide_array_new1(TIDE_I32, n * k);
  tide_array *offs = tide_array_new1(TIDE_I32, n);
  if (conn && c) memcpy(TIDE_I32P(conn), c, sizeof(int32_t) * (size_t)(n * k));
  if (conn && !c)
    for (int64_t q = 0; q < n * k; q++)
      TIDE_I32P(conn)[q] = (int32_t)q;
  if (offs)
    for (int64_t q = 0; q < n; q++)
      TIDE_I32P(offs)[q] = (int32_t)((q + 1) * k);
  vw_add(w, section, "connectivity", 1, conn);
  vw_add(w, section, "offsets", 1, offs);
}

/* open the output once every array is prepared (frees them on failure) */
static int vw_open(vwriter *w, tide_afile *af, const char *path) {
  int st = w->st ? w->st : tide_afile_open(af, path);
  if (st) vw_free(w);
  return st;
}

static int finish(vwriter *w, tide_afile *af) {
  int st = w->st;
  vw_free(w);
  if (st) {
    tide_afile_abort(af);
    return st;
  }
  return tide_afile_commit(af);
}

/* ------------------------------------------------------------------ vti */

/* a grid attribute (ni, nj[, nk][, c]) over extents e[0..dim) as x-fastest
 * VTK order, (n, c) */
static tide_array *grid_attr(const tide_array *a, int dim, const int e[3], int *nc, char *err,
                             size_t errcap) {
  if (a->ndim != dim && a->ndim != dim + 1) {
    snprintf(err, errcap, "must have %d or %d axes, got %d", dim, dim + 1, a->ndim);
    return NULL;
  }
  for (int d = 0; d < dim; d++)
    if (a->shape[d] != e[d]) {
      snprintf(err, errcap, "has extent %lld along axis %d, expected %d", (long long)a->shape[d],
               d + 1, e[d]);
      return NULL;
    }
  *nc = a->ndim == dim + 1 ? (int)a->shape[dim] : 1;
  if (*nc < 1 || *nc > 16) {
    snprintf(err, errcap, "has %d components (1..16)", *nc);
    return NULL;
  }
  int64_t n = (int64_t)e[0] * e[1] * (dim == 3 ? e[2] : 1);
  tide_array *src =
      tide_array_contiguous(a) ? tide_array_retain((tide_array *)a) : tide_array_clone(a, a->dtype);
  tide_array *out = tide_array_new2(a->dtype, n, *nc);
  if (!src || !out) {
    tide_array_release(src);
    tide_array_release(out);
    snprintf(err, errcap, "out of memory");
    return NULL;
  }
  size_t es = tide_dtype_size(a->dtype) * (size_t)*nc;
  const uint8_t *s = tide_array_ptr(src);
  uint8_t *o = tide_array_ptr(out);
  int ek = dim == 3 ? e[2] : 1;
  /* ours: ((i * nj) + j) * nk + k;  VTK: i + ni * (j + nj * k) */
#pragma omp parallel for schedule(static)
  for (int i = 0; i < e[0]; i++)
    for (int j = 0; j < e[1]; j++)
      for (int k = 0; k < ek; k++)
        memcpy(o + es * ((size_t)i + (size_t)e[0] * ((size_t)j + (size_t)e[1] * k)),
               s + es * (((size_t)i * e[1] + j) * ek + k), es);
  tide_array_release(src);
  return out;
}

int tide_vti_write(const char *path, const tide_grid *g, int ncell, const tide_attr *cell,
                   int npoint, const tide_attr *point) {
  if (!g || (g->dim != 2 && g->dim != 3))
    return tide_fail(TIDE_EINVAL, "vti: a 2D or 3D grid expected");
  vwriter w;
  w.n = 0, w.st = TIDE_OK;
  int dim = g->dim;
  int ec[3] = {g->n[0], g->n[1], g->n[2]}, ep[3] = {g->n[0] + 1, g->n[1] + 1, g->n[2] + 1};
  for (int s = 0; s < 2 && !w.st; s++) {
    int na = s ? ncell : npoint;
    const tide_attr *a = s ? cell : point;
    for (int q = 0; q < na && !w.st; q++) {
      char err[128];
      int nc;
      if (!name_ok(a[q].name) || !a[q].a) {
        w.st = tide_fail(TIDE_EINVAL,
                         "vti: %s attribute %d needs an array and a name without quotes or markup",
                         s ? "cell" : "point", q + 1);
        break;
      }
      tide_array *x = grid_attr(a[q].a, dim, s ? ec : ep, &nc, err, sizeof err);
      if (!x) {
        w.st = tide_fail(TIDE_EINVAL, "vti: %s attribute '%s' %s", s ? "cell" : "point", a[q].name,
                         err);
        break;
      }
      vw_add(&w, s, a[q].name, nc, x);
    }
  }
  tide_afile af;
  int st = vw_open(&w, &af, path);
  if (st) return st;
  FILE *f = af.f;
  vw_header(f, "ImageData");
  char ext[128];
  snprintf(ext, sizeof ext, "0 %d 0 %d 0 %d", g->n[0], g->n[1], dim == 3 ? g->n[2] : 0);
  fprintf(f,
          "  <ImageData WholeExtent=\"%s\" Origin=\"%.17g %.17g %.17g\" Spacing=\"%.17g %.17g "
          "%.17g\">\n",
          ext, g->origin[0], g->origin[1], dim == 3 ? g->origin[2] : 0.0, g->dx, g->dx, g->dx);
  fprintf(f, "    <Piece Extent=\"%s\">\n      <PointData>\n", ext);
  vw_section(&w, f, 0, "        ");
  fprintf(f, "      </PointData>\n      <CellData>\n");
  vw_section(&w, f, 1, "        ");
  fprintf(f, "      </CellData>\n    </Piece>\n  </ImageData>\n");
  vw_appended(&w, f);
  return finish(&w, &af);
}

/* ------------------------------------------------------------------ vtp */

enum { S_POINTS, S_PDATA, S_CDATA, S_VERTS, S_LINES, S_POLYS, S_CELLS };

int tide_vtp_write(const char *path, int64_t np, int dim, const double *pos, int verts,
                   int64_t nseg, const int32_t *seg, int64_t ntri, const int32_t *tri, int npa,
                   const tide_attr *pa, int nca, const tide_attr *ca) {
  int st = check_points(np, dim, pos, "vtp");
  if (!st && nseg > 0) st = check_cells(nseg, 2, seg, np, "vtp lines");
  if (!st && ntri > 0) st = check_cells(ntri, 3, tri, np, "vtp triangles");
  if (st) return st;
  int64_t nv = verts ? np : 0, ncells = nv + (nseg > 0 ? nseg : 0) + (ntri > 0 ? ntri : 0);
  vwriter w;
  w.n = 0, w.st = TIDE_OK;
  vw_points(&w, S_POINTS, np, dim, pos);
  vw_attrs(&w, S_PDATA, npa, pa, np, "point");
  vw_attrs(&w, S_CDATA, nca, ca, ncells, "cell");
  if (nv) vw_cells(&w, S_VERTS, nv, 1, NULL);
  if (nseg > 0) vw_cells(&w, S_LINES, nseg, 2, seg);
  if (ntri > 0) vw_cells(&w, S_POLYS, ntri, 3, tri);
  tide_afile af;
  if ((st = vw_open(&w, &af, path))) return st;
  FILE *f = af.f;
  vw_header(f, "PolyData");
  fprintf(f,
          "  <PolyData>\n    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"%lld\" "
          "NumberOfLines=\"%lld\" "
          "NumberOfStrips=\"0\" NumberOfPolys=\"%lld\">\n",
          (long long)np, (long long)nv, (long long)(nseg > 0 ? nseg : 0),
          (long long)(ntri > 0 ? ntri : 0));
  static const char *const tags[] = {"Points", "PointData", "CellData", "Verts", "Lines", "Polys"};
  for (int s = 0; s < 6; s++) {
    fprintf(f, "      <%s>\n", tags[s]);
    vw_section(&w, f, s, "        ");
    fprintf(f, "      </%s>\n", tags[s]);
  }
  fprintf(f, "    </Piece>\n  </PolyData>\n");
  vw_appended(&w, f);
  return finish(&w, &af);
}

/* ------------------------------------------------------------------ vtu */

int tide_vtu_write(const char *path, int64_t np, int dim, const double *pos, int64_t nc, int k,
                   const int32_t *cells, int npa, const tide_attr *pa, int nca,
                   const tide_attr *ca) {
  if (k < 2 || k > 4) return tide_fail(TIDE_EINVAL, "vtu: cells of 2, 3 or 4 points expected");
  int st = check_points(np, dim, pos, "vtu");
  if (!st) st = check_cells(nc, k, cells, np, "vtu");
  if (st) return st;
  vwriter w;
  w.n = 0, w.st = TIDE_OK;
  vw_points(&w, S_POINTS, np, dim, pos);
  vw_attrs(&w, S_PDATA, npa, pa, np, "point");
  vw_attrs(&w, S_CDATA, nca, ca, nc, "cell");
  vw_cells(&w, S_CELLS, nc, k, cells);
  tide_array *types = tide_array_new1(TIDE_U8, nc);
  if (types)
    memset(TIDE_U8P(types),
           k == 2   ? 3
           : k == 3 ? 5
                    : 10,
           (size_t)nc); /* VTK_LINE, TRIANGLE, TETRA */
  vw_add(&w, S_CELLS, "types", 1, types);
  tide_afile af;
  if ((st = vw_open(&w, &af, path))) return st;
  FILE *f = af.f;
  vw_header(f, "UnstructuredGrid");
  fprintf(f, "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n",
          (long long)np, (long long)nc);
  static const char *const tags[] = {"Points", "PointData", "CellData"};
  for (int s = 0; s < 3; s++) {
    fprintf(f, "      <%s>\n", tags[s]);
    vw_section(&w, f, s, "        ");
    fprintf(f, "      </%s>\n", tags[s]);
  }
  fprintf(f, "      <Cells>\n");
  vw_section(&w, f, S_CELLS, "        ");
  fprintf(f, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");
  vw_appended(&w, f);
  return finish(&w, &af);
}

/* ------------------------------------------------------------------ pvd */

typedef struct pvd_entry {
  double t;
  char file[1024];
} pvd_entry;

static int entry_cmp(const void *a, const void *b) {
  const pvd_entry *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t ? 1 : strcmp(x->file, y->file);
}

int tide_pvd_add(const char *pvd, double t, const char *file) {
  if (!isfinite(t)) return tide_fail(TIDE_EINVAL, "pvd: time must be finite");
  if (!name_ok(file) || strlen(file) >= 1024)
    return tide_fail(TIDE_EINVAL, "pvd: bad data file name");
  /* the data file relative to the .pvd's directory when below it */
  const char *slash = strrchr(pvd, '/');
  size_t dl = slash ? (size_t)(slash - pvd + 1) : 0;
  const char *rel = file;
  if (dl && !strncmp(file, pvd, dl)) rel = file + dl;
  size_t cap = 64, n = 0;
  pvd_entry *e = malloc(cap * sizeof *e);
  if (!e) return tide_fail(TIDE_ENOMEM, "pvd: out of memory");
  int ps = tide_path_allowed(pvd, 1);
  if (ps) {
    free(e);
    return ps;
  }
  FILE *in = fopen(pvd, "r");
  if (in) { /* read back the entries this function wrote */
    char line[2048];
    while (fgets(line, sizeof line, in)) {
      const char *ts = strstr(line, "timestep=\""), *fs = strstr(line, "file=\"");
      if (!ts || !fs || !strstr(line, "<DataSet")) continue;
      if (n == cap) {
        pvd_entry *ne = realloc(e, 2 * cap * sizeof *e);
        if (!ne) {
          fclose(in);
          free(e);
          return tide_fail(TIDE_ENOMEM, "pvd: out of memory");
        }
        e = ne, cap *= 2;
      }
      e[n].t = strtod(ts + 10, NULL);
      fs += 6;
      const char *end = strchr(fs, '"');
      size_t len = end ? (size_t)(end - fs) : 0;
      if (len >= sizeof e[n].file) continue;
      memcpy(e[n].file, fs, len);
      e[n].file[len] = '\0';
      if (strcmp(e[n].file, rel) != 0) n++; /* an entry for the same file is replaced */
    }
    fclose(in);
  }
  if (n == cap) {
    pvd_entry *ne = realloc(e, (cap + 1) * sizeof *e);
    if (!ne) {
      free(e);
      return tide_fail(TIDE_ENOMEM, "pvd: out of memory");
    }
    e = ne;
  }
  e[n].t = t;
  snprintf(e[n].file, sizeof e[n].file, "%s", rel);
  n++;
  qsort(e, n, sizeof *e, entry_cmp);
  tide_afile af;
  int st = tide_afile_open(&af, pvd);
  if (st) {
    free(e);
    return st;
  }
  fprintf(af.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
                "byte_order=\"LittleEndian\">\n"
                "  <Collection>\n");
  for (size_t k = 0; k < n; k++)
    fprintf(af.f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n", e[k].t,
            e[k].file);
  fprintf(af.f, "  </Collection>\n</VTKFile>\n");
  free(e);
  return tide_afile_commit(&af);
}
