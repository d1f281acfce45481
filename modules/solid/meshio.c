/*
 * meshio.c -- mesh readers: TetGen .node/.ele, Gmsh .msh (ASCII v2, v4),
 * Wavefront OBJ (see mesh.h).  Every error names the file and line; no
 * partial mesh is ever returned.
 */
#include "solid/mesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- line reader */

typedef struct reader {
  const char *path;
  char *buf;
  size_t len, pos, cap;
  int64_t line; /* number of the line last returned */
} reader;

/* Largest mesh file read: 2 GiB of text (beyond the int32 indices' reach). */
#define MESH_MAX_BYTES ((uint64_t)1 << 31)

static int rd_open(reader *r, const char *path) {
  memset(r, 0, sizeof *r);
  r->path = path;
  FILE *f;
  uint64_t n;
  int st = tide_file_open_read(path, &f, &n);
  if (st) return st;
  if (n > MESH_MAX_BYTES) {
    fclose(f);
    return tide_fail(TIDE_EFORMAT, "%s: %llu bytes, more than a mesh file Tide reads (%llu)", path,
                     (unsigned long long)n, (unsigned long long)MESH_MAX_BYTES);
  }
  r->cap = (size_t)n + 1;
  r->buf = tide_alloc(r->cap);
  if (!r->buf) {
    fclose(f);
    return tide_fail(TIDE_ENOMEM, "%s: %s", path, tide_errmsg());
  }
  r->len = fread(r->buf, 1, (size_t)n, f);
  fclose(f);
  if (r->len != (size_t)n) {
    tide_free(r->buf, r->cap);
    r->buf = NULL;
    return tide_fail(TIDE_EIO, "%s: read error", path);
  }
  r->buf[r->len] = 0;
  for (size_t i = 0; i < r->len; i++)
    if (r->buf[i] == 0) r->buf[i] = ' '; /* stray NUL bytes become blanks */
  return TIDE_OK;
}

static void rd_close(reader *r) {
  if (r->buf) tide_free(r->buf, r->cap);
  r->buf = NULL;
}

/* next line (NUL-terminated in place, '\r' stripped) or NULL at the end */
static char *rd_line(reader *r) {
  if (r->pos >= r->len) return NULL;
  char *s = r->buf + r->pos;
  char *e = memchr(s, '\n', r->len - r->pos);
  if (e) {
    *e = 0;
    r->pos = (size_t)(e - r->buf) + 1;
  } else {
    r->pos = r->len;
  }
  size_t l = strlen(s);
  if (l && s[l - 1] == '\r') s[l - 1] = 0;
  r->line++;
  return s;
}

/* next line that is not blank once comments starting with `comment` (0 for
 * none) are removed */
static char *rd_data(reader *r, char comment) {
  char *s;
  while ((s = rd_line(r))) {
    if (comment) {
      char *c = strchr(s, comment);
      if (c) *c = 0;
    }
    char *t = s;
    while (*t == ' ' || *t == '\t') t++;
    if (*t) return t;
  }
  return NULL;
}

static int rd_err(const reader *r, const char *msg) {
  return tide_fail(TIDE_EFORMAT, "%s:%lld: %s", r->path, (long long)r->line, msg);
}

/* parse up to max numbers from s; returns the count, -1 on a bad token */
static int parse_nums(char *s, double *v, int max) {
  int n = 0;
  char *p = s;
  while (n < max) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    char *end;
    errno = 0;
    double x = strtod(p, &end);
    if (end == p || (*end && *end != ' ' && *end != '\t')) return -1;
    v[n++] = x;
    p = end;
  }
  return n;
}

/* an integer-valued number in [lo, hi] */
static int as_int(double x, double lo, double hi, int64_t *out) {
  if (!isfinite(x) || x != floor(x) || x < lo || x > hi) return 0;
  *out = (int64_t)x;
  return 1;
}

/* growable arrays */
typedef struct dbuf {
  double *p;
  int64_t n, cap;
} dbuf;
typedef struct ibuf {
  int32_t *p;
  int64_t n, cap;
} ibuf;
typedef struct lbuf {
  int64_t *p;
  int64_t n, cap;
} lbuf;

#define GROW(b, T)                                                                             \
  static int b##_push(b *x, T v) {                                                             \
    if (x->n == x->cap) {                                                                      \
      int64_t cap = x->cap ? 2 * x->cap : 256;                                                 \
      T *q = tide_alloc((size_t)cap * sizeof(T));                                              \
      if (!q) return TIDE_ENOMEM;                                                              \
      if (x->p) {                                                                              \
        memcpy(q, x->p, (size_t)x->n * sizeof(T));                                             \
        tide_free(x->p, (size_t)x->cap * sizeof(T));                                           \
      }                                                                                        \
      x->p = q;                                                                                \
      x->cap = cap;                                                                            \
    }                                                                                          \
    x->p[x->n++] = v;                                                                          \
    return TIDE_OK;                                                                            \
  }                                                                                            \
  static void b##_free(b *x) {                                                                 \
    if (x->p) tide_free(x->p, (size_t)x->cap * sizeof(T));                                     \
    x->p = NULL;                                                                               \
    x->n = x->cap = 0;                                                                         \
  }
GROW(dbuf, double)
GROW(ibuf, int32_t)
GROW(lbuf, int64_t)

/* Remove nodes used by no element (keeping order) and build the mesh. */
static int finish(int dim, int nper, dbuf *X, ibuf *el, lbuf *lines, const char *path,
                  tide_tetmesh **out) {
  int64_t nv = X->n / dim, ne = el->n / nper;
  if (ne == 0) return tide_fail(TIDE_EFORMAT, "%s: no elements", path);
  size_t mb = (size_t)nv * sizeof(int32_t);
  int32_t *map = tide_alloc(mb ? mb : 1);
  if (!map) return TIDE_ENOMEM;
  for (int64_t i = 0; i < nv; i++) map[i] = -1;
  for (int64_t t = 0; t < el->n; t++) map[el->p[t]] = 0;
  int64_t k = 0;
  for (int64_t i = 0; i < nv; i++)
    if (map[i] == 0) {
      for (int c = 0; c < dim; c++) X->p[k * dim + c] = X->p[i * dim + c];
      map[i] = (int32_t)k++;
    }
  for (int64_t t = 0; t < el->n; t++) el->p[t] = map[el->p[t]];
  tide_free(map, mb ? mb : 1);
  return tide_tetmesh_new(dim, nper, k, X->p, ne, el->p, path, lines->p, out);
}

/* ------------------------------------------------------------- TetGen */

static int read_node_file(const char *path, int *dim_out, int64_t *base_out, dbuf *X) {
  reader r;
  int st = rd_open(&r, path);
  if (st) return st;
  char *s = rd_data(&r, '#');
  double v[64];
  int64_t nv = 0, dim = 0, nattr = 0, nbm = 0;
  if (!s) {
    st = tide_fail(TIDE_EFORMAT, "%s: empty file", path);
    goto done;
  }
  int n = parse_nums(s, v, 4);
  if (n < 2 || !as_int(v[0], 0, 1e8, &nv) || !as_int(v[1], 2, 3, &dim)) {
    st = rd_err(&r, "header must be '<#points> <dimension 2|3> [<#attributes> <boundary marker 0|1>]'");
    goto done;
  }
  if ((n > 2 && !as_int(v[2], 0, 32, &nattr)) || (n > 3 && !as_int(v[3], 0, 1, &nbm))) {
    st = rd_err(&r, "bad attribute count or boundary marker flag in the header");
    goto done;
  }
  if (nv < 1) {
    st = rd_err(&r, "the header declares no points");
    goto done;
  }
  int64_t base = 0;
  for (int64_t i = 0; i < nv; i++) {
    s = rd_data(&r, '#');
    if (!s) {
      char msg[128];
      snprintf(msg, sizeof msg, "file ends after %lld of %lld points", (long long)i, (long long)nv);
      st = tide_fail(TIDE_EFORMAT, "%s:%lld: %s", path, (long long)r.line, msg);
      goto done;
    }
    n = parse_nums(s, v, 64);
    int64_t idx;
    if (n < 1 + dim || n > 1 + dim + nattr + nbm) {
      st = rd_err(&r, n < 0 ? "not a number" : "wrong number of values for a point");
      goto done;
    }
    if (!as_int(v[0], -1e9, 1e9, &idx)) {
      st = rd_err(&r, "point index must be an integer");
      goto done;
    }
    if (i == 0) {
      if (idx != 0 && idx != 1) {
        st = rd_err(&r, "the first point index must be 0 or 1");
        goto done;
      }
      base = idx;
    } else if (idx != base + i) {
      st = rd_err(&r, "point indices must be consecutive");
      goto done;
    }
    for (int k = 0; k < dim; k++) {
      if (!isfinite(v[1 + k])) {
        st = rd_err(&r, "non-finite coordinate");
        goto done;
      }
      if ((st = dbuf_push(X, v[1 + k]))) goto done;
    }
  }
  if ((s = rd_data(&r, '#'))) {
    st = rd_err(&r, "more points than the header declares");
    goto done;
  }
  *dim_out = (int)dim;
  *base_out = base;
done:
  rd_close(&r);
  return st;
}

int tide_mesh_read_tetgen(const char *path, tide_tetmesh **out) {
  *out = NULL;
  char stem[4096], nodep[4100], elep[4100];
  size_t l = strlen(path);
  if (l >= sizeof stem) return tide_fail(TIDE_EINVAL, "path too long");
  memcpy(stem, path, l + 1);
  if (l > 5 && (!strcmp(stem + l - 5, ".node"))) stem[l - 5] = 0;
  else if (l > 4 && !strcmp(stem + l - 4, ".ele")) stem[l - 4] = 0;
  snprintf(nodep, sizeof nodep, "%s.node", stem);
  snprintf(elep, sizeof elep, "%s.ele", stem);
  dbuf X = {0};
  ibuf el = {0};
  lbuf lines = {0};
  int dim = 0;
  int64_t base = 0;
  int st = read_node_file(nodep, &dim, &base, &X);
  if (st) goto done;
  int64_t nv = X.n / dim;
  reader r;
  if ((st = rd_open(&r, elep))) goto done;
  {
    double v[64];
    char *s = rd_data(&r, '#');
    int64_t ne = 0, npe = 0, nattr = 0;
    if (!s) {
      st = tide_fail(TIDE_EFORMAT, "%s: empty file", elep);
      goto close;
    }
    int n = parse_nums(s, v, 3);
    if (n < 2 || !as_int(v[0], 1, 1e8, &ne) || !as_int(v[1], 3, 10, &npe) ||
        (n > 2 && !as_int(v[2], 0, 32, &nattr))) {
      st = rd_err(&r, "header must be '<#elements> <nodes per element> [<#attributes>]'");
      goto close;
    }
    int nper = dim + 1;
    if (npe < nper) {
      st = rd_err(&r, dim == 3 ? "tetrahedra need 4 (or 10) nodes per element"
                               : "triangles need 3 (or 6) nodes per element");
      goto close;
    }
    for (int64_t e = 0; e < ne; e++) {
      s = rd_data(&r, '#');
      if (!s) {
        char msg[128];
        snprintf(msg, sizeof msg, "file ends after %lld of %lld elements", (long long)e,
                 (long long)ne);
        st = tide_fail(TIDE_EFORMAT, "%s:%lld: %s", elep, (long long)r.line, msg);
        goto close;
      }
      n = parse_nums(s, v, 64);
      if (n != 1 + npe + nattr) {
        st = rd_err(&r, n < 0 ? "not a number" : "wrong number of values for an element");
        goto close;
      }
      for (int a = 0; a < nper; a++) {
        int64_t id;
        if (!as_int(v[1 + a], -1e12, 1e12, &id)) {
          st = rd_err(&r, "node index must be an integer");
          goto close;
        }
        id -= base;
        if (id < 0 || id >= nv) {
          char msg[160];
          snprintf(msg, sizeof msg, "node index %lld outside %lld..%lld", (long long)(id + base),
                   (long long)base, (long long)(nv - 1 + base));
          st = rd_err(&r, msg);
          goto close;
        }
        if ((st = ibuf_push(&el, (int32_t)id))) goto close;
      }
      if ((st = lbuf_push(&lines, r.line))) goto close;
    }
    if (rd_data(&r, '#')) {
      st = rd_err(&r, "more elements than the header declares");
      goto close;
    }
    st = finish(dim, nper, &X, &el, &lines, elep, out);
  }
close:
  rd_close(&r);
done:
  dbuf_free(&X);
  ibuf_free(&el);
  lbuf_free(&lines);
  return st;
}

/* --------------------------------------------------------------- Gmsh */

/* nodes of the Gmsh element types we know (0: unknown) */
static int gmsh_nodes(int type) {
  static const int n[] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1, 8, 20, 15, 13};
  return type >= 0 && type < (int)(sizeof n / sizeof n[0]) ? n[type] : 0;
}

typedef struct gmsh {
  reader r;
  double version;
  dbuf xyz;      /* 3 per node, in file order */
  lbuf tags;     /* node tag of each node */
  ibuf tets, tris;
  lbuf tet_lines, tri_lines;
  int have_nodes, have_elems;
} gmsh;

static int gm_expect_end(gmsh *g, const char *name) {
  char *s = rd_data(&g->r, 0);
  char want[64];
  snprintf(want, sizeof want, "$End%s", name);
  if (!s || strncmp(s, want, strlen(want)) != 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "expected %s", want);
    return rd_err(&g->r, msg);
  }
  return TIDE_OK;
}

static int gm_node(gmsh *g, int64_t tag, const double *v) {
  int st;
  for (int k = 0; k < 3; k++)
    if (!isfinite(v[k])) return rd_err(&g->r, "non-finite coordinate");
  if ((st = lbuf_push(&g->tags, tag))) return st;
  for (int k = 0; k < 3; k++)
    if ((st = dbuf_push(&g->xyz, v[k]))) return st;
  return TIDE_OK;
}

/* element with node tags v[0..nn-1]; keep tetrahedra and triangles
 * (first-order corners of higher-order types) */
static int gm_elem(gmsh *g, int type, const double *v, int nn) {
  int keep = 0;
  if (type == 4 || type == 11) keep = 4;
  if (type == 2 || type == 9) keep = 3;
  if (!keep) return TIDE_OK;
  if (nn < keep) return rd_err(&g->r, "too few nodes for the element type");
  ibuf *b = keep == 4 ? &g->tets : &g->tris;
  lbuf *lb = keep == 4 ? &g->tet_lines : &g->tri_lines;
  int st;
  for (int a = 0; a < keep; a++) {
    int64_t tag;
    if (!as_int(v[a], 0, 2e9, &tag)) return rd_err(&g->r, "node tag must be a non-negative integer");
    if ((st = ibuf_push(b, (int32_t)tag))) return st; /* tags mapped to indices later */
  }
  return lbuf_push(lb, g->r.line);
}

static int gm_nodes_v2(gmsh *g) {
  double v[8];
  char *s = rd_data(&g->r, 0);
  int64_t n;
  if (!s || parse_nums(s, v, 2) != 1 || !as_int(v[0], 0, 1e8, &n))
    return rd_err(&g->r, "expected the number of nodes");
  for (int64_t i = 0; i < n; i++) {
    if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside $Nodes");
    int64_t tag;
    if (parse_nums(s, v, 5) != 4 || !as_int(v[0], 0, 2e9, &tag))
      return rd_err(&g->r, "a node line must be '<tag> <x> <y> <z>'");
    int st = gm_node(g, tag, v + 1);
    if (st) return st;
  }
  return gm_expect_end(g, "Nodes");
}

static int gm_elements_v2(gmsh *g) {
  double v[64];
  char *s = rd_data(&g->r, 0);
  int64_t n;
  if (!s || parse_nums(s, v, 2) != 1 || !as_int(v[0], 0, 1e8, &n))
    return rd_err(&g->r, "expected the number of elements");
  for (int64_t i = 0; i < n; i++) {
    if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside $Elements");
    int c = parse_nums(s, v, 64);
    int64_t type, ntags;
    if (c < 3 || !as_int(v[1], 1, 200, &type) || !as_int(v[2], 0, 32, &ntags))
      return rd_err(&g->r, "an element line must be '<tag> <type> <#tags> <tags...> <nodes...>'");
    int nn = gmsh_nodes((int)type);
    if (nn && c != 3 + ntags + nn) return rd_err(&g->r, "wrong number of nodes for the element type");
    int st = gm_elem(g, (int)type, v + 3 + ntags, c - 3 - (int)ntags);
    if (st) return st;
  }
  return gm_expect_end(g, "Elements");
}

static int gm_nodes_v4(gmsh *g) {
  double v[8];
  char *s = rd_data(&g->r, 0);
  int v41 = g->version >= 4.1;
  int64_t nblocks, nnodes;
  int c = s ? parse_nums(s, v, 5) : 0;
  if (c < 2 || !as_int(v[0], 0, 1e8, &nblocks) || !as_int(v[1], 0, 1e8, &nnodes))
    return rd_err(&g->r, "expected '<#blocks> <#nodes> ...'");
  int64_t seen = 0;
  for (int64_t b = 0; b < nblocks; b++) {
    if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside $Nodes");
    int64_t param, nb;
    if (parse_nums(s, v, 5) != 4 || !as_int(v[2], 0, 1, &param) || !as_int(v[3], 0, 1e8, &nb))
      return rd_err(&g->r, "a node block header must have 4 integers");
    if (seen + nb > nnodes) return rd_err(&g->r, "more nodes than the section header declares");
    seen += nb;
    if (v41) {
      /* tags first, then coordinates */
      for (int64_t i = 0; i < nb; i++) {
        if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside a node block");
        int64_t tag;
        if (parse_nums(s, v, 2) != 1 || !as_int(v[0], 0, 2e9, &tag))
          return rd_err(&g->r, "expected a node tag");
        int st = lbuf_push(&g->tags, tag);
        if (st) return st;
      }
      for (int64_t i = 0; i < nb; i++) {
        if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside a node block");
        int cc = parse_nums(s, v, 7);
        if (cc < 3 || (!param && cc != 3)) return rd_err(&g->r, "a node line must be '<x> <y> <z>'");
        for (int k = 0; k < 3; k++)
          if (!isfinite(v[k])) return rd_err(&g->r, "non-finite coordinate");
        for (int k = 0; k < 3; k++) {
          int st = dbuf_push(&g->xyz, v[k]);
          if (st) return st;
        }
      }
    } else {
      for (int64_t i = 0; i < nb; i++) {
        if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside a node block");
        int64_t tag;
        int cc = parse_nums(s, v, 8);
        if (cc < 4 || !as_int(v[0], 0, 2e9, &tag))
          return rd_err(&g->r, "a node line must be '<tag> <x> <y> <z>'");
        int st = gm_node(g, tag, v + 1);
        if (st) return st;
      }
    }
  }
  if (seen != nnodes) return rd_err(&g->r, "fewer nodes than the section header declares");
  return gm_expect_end(g, "Nodes");
}

static int gm_elements_v4(gmsh *g) {
  double v[64];
  char *s = rd_data(&g->r, 0);
  int64_t nblocks, nel;
  int c = s ? parse_nums(s, v, 5) : 0;
  if (c < 2 || !as_int(v[0], 0, 1e8, &nblocks) || !as_int(v[1], 0, 1e8, &nel))
    return rd_err(&g->r, "expected '<#blocks> <#elements> ...'");
  int64_t seen = 0;
  for (int64_t b = 0; b < nblocks; b++) {
    if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside $Elements");
    int64_t type, nb;
    if (parse_nums(s, v, 5) != 4 || !as_int(v[2], 1, 200, &type) || !as_int(v[3], 0, 1e8, &nb))
      return rd_err(&g->r, "an element block header must have 4 integers");
    /* 4.0 and 4.1 differ here only in the order of entity tag and dimension */
    if (seen + nb > nel) return rd_err(&g->r, "more elements than the section header declares");
    seen += nb;
    int nn = gmsh_nodes((int)type);
    for (int64_t i = 0; i < nb; i++) {
      if (!(s = rd_data(&g->r, 0))) return rd_err(&g->r, "file ends inside an element block");
      int cc = parse_nums(s, v, 64);
      if (cc < 2 || (nn && cc != 1 + nn))
        return rd_err(&g->r, "wrong number of nodes for the element type");
      int st = gm_elem(g, (int)type, v + 1, cc - 1);
      if (st) return st;
    }
  }
  if (seen != nel) return rd_err(&g->r, "fewer elements than the section header declares");
  return gm_expect_end(g, "Elements");
}

static int gm_skip_section(gmsh *g, const char *name) {
  char want[128];
  snprintf(want, sizeof want, "$End%s", name);
  char *s;
  while ((s = rd_line(&g->r)))
    if (!strncmp(s, want, strlen(want))) return TIDE_OK;
  return tide_fail(TIDE_EFORMAT, "%s:%lld: section $%s is not closed by %s", g->r.path,
                   (long long)g->r.line, name, want);
}

int tide_mesh_read_gmsh(const char *path, tide_tetmesh **out) {
  *out = NULL;
  gmsh g;
  memset(&g, 0, sizeof g);
  int st = rd_open(&g.r, path);
  if (st) return st;
  dbuf X = {0};
  ibuf el = {0};
  int32_t *map = NULL;
  size_t mapb = 0;
  char *s;
  int have_format = 0;
  while ((s = rd_data(&g.r, 0))) {
    if (s[0] != '$') {
      st = rd_err(&g.r, "expected a section header such as $MeshFormat");
      goto done;
    }
    char name[64];
    snprintf(name, sizeof name, "%s", s + 1);
    for (char *q = name; *q; q++)
      if (*q == ' ' || *q == '\t') *q = 0;
    if (!strcmp(name, "MeshFormat")) {
      double v[4];
      if (!(s = rd_data(&g.r, 0)) || parse_nums(s, v, 4) != 3) {
        st = rd_err(&g.r, "expected '<version> <file-type> <data-size>'");
        goto done;
      }
      g.version = v[0];
      if (v[1] != 0) {
        st = rd_err(&g.r, "binary .msh files are not supported (save as ASCII)");
        goto done;
      }
      if (!(g.version >= 2 && g.version < 3) && !(g.version >= 4 && g.version < 5)) {
        st = rd_err(&g.r, "only .msh versions 2.x and 4.x are supported");
        goto done;
      }
      have_format = 1;
      if ((st = gm_expect_end(&g, "MeshFormat"))) goto done;
    } else if (!strcmp(name, "Nodes")) {
      if (!have_format) {
        st = rd_err(&g.r, "$Nodes before $MeshFormat");
        goto done;
      }
      if ((st = g.version < 3 ? gm_nodes_v2(&g) : gm_nodes_v4(&g))) goto done;
      g.have_nodes = 1;
    } else if (!strcmp(name, "Elements")) {
      if (!have_format) {
        st = rd_err(&g.r, "$Elements before $MeshFormat");
        goto done;
      }
      if ((st = g.version < 3 ? gm_elements_v2(&g) : gm_elements_v4(&g))) goto done;
      g.have_elems = 1;
    } else {
      if ((st = gm_skip_section(&g, name))) goto done;
    }
  }
  if (!g.have_nodes || !g.have_elems) {
    st = tide_fail(TIDE_EFORMAT, "%s: missing $Nodes or $Elements section", path);
    goto done;
  }
  {
    /* node tags -> indices */
    int64_t nv = g.tags.n, maxtag = 0;
    for (int64_t i = 0; i < nv; i++)
      if (g.tags.p[i] > maxtag) maxtag = g.tags.p[i];
    if (maxtag > 4 * nv + 1000000) {
      st = tide_fail(TIDE_EFORMAT, "%s: node tags too sparse (max tag %lld for %lld nodes)", path,
                     (long long)maxtag, (long long)nv);
      goto done;
    }
    mapb = (size_t)(maxtag + 1) * sizeof(int32_t);
    map = tide_alloc(mapb);
    if (!map) {
      st = TIDE_ENOMEM;
      goto done;
    }
    for (int64_t t = 0; t <= maxtag; t++) map[t] = -1;
    for (int64_t i = 0; i < nv; i++) {
      if (map[g.tags.p[i]] >= 0) {
        st = tide_fail(TIDE_EFORMAT, "%s: node tag %lld appears twice", path,
                       (long long)g.tags.p[i]);
        goto done;
      }
      map[g.tags.p[i]] = (int32_t)i;
    }
    int dim, nper;
    ibuf *src;
    lbuf *lines;
    if (g.tets.n) {
      dim = 3, nper = 4, src = &g.tets, lines = &g.tet_lines;
    } else if (g.tris.n) {
      int flat = 1;
      for (int64_t i = 0; i < nv; i++)
        if (g.xyz.p[3 * i + 2] != 0) flat = 0;
      dim = flat ? 2 : 3, nper = 3, src = &g.tris, lines = &g.tri_lines;
    } else {
      st = tide_fail(TIDE_EFORMAT, "%s: no tetrahedra or triangles", path);
      goto done;
    }
    for (int64_t t = 0; t < src->n; t++) {
      int64_t tag = src->p[t];
      if (tag > maxtag || map[tag] < 0) {
        st = tide_fail(TIDE_EFORMAT, "%s:%lld: element refers to node tag %lld, which is not defined",
                       path, (long long)lines->p[t / nper], (long long)tag);
        goto done;
      }
      if ((st = ibuf_push(&el, map[tag]))) goto done;
    }
    for (int64_t i = 0; i < nv; i++)
      for (int k = 0; k < dim; k++)
        if ((st = dbuf_push(&X, g.xyz.p[3 * i + k]))) goto done;
    st = finish(dim, nper, &X, &el, lines, path, out);
  }
done:
  if (map) tide_free(map, mapb);
  rd_close(&g.r);
  dbuf_free(&g.xyz);
  lbuf_free(&g.tags);
  ibuf_free(&g.tets);
  ibuf_free(&g.tris);
  lbuf_free(&g.tet_lines);
  lbuf_free(&g.tri_lines);
  dbuf_free(&X);
  ibuf_free(&el);
  return st;
}

/* ---------------------------------------------------------------- OBJ */

/* the vertex indices of an OBJ face or line statement (v, v/vt, v/vt/vn,
 * v//vn; negative = relative to the nv vertices so far), 0-based into idx
 * (at most 256); returns their count or -1 after rd_err */
static int obj_indices(reader *r, char *p, int64_t nv, const char *what, int32_t *idx, int *st) {
  int n = 0;
  while (*p) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    char *end;
    errno = 0;
    long long id = strtoll(p, &end, 10);
    if (end == p || (*end && *end != '/' && *end != ' ' && *end != '\t') || errno) {
      char msg[64];
      snprintf(msg, sizeof msg, "bad %s vertex index", what);
      *st = rd_err(r, msg);
      return -1;
    }
    while (*end && *end != ' ' && *end != '\t') end++; /* skip /vt/vn */
    p = end;
    if (id < 0) id = nv + id + 1; /* relative */
    if (id < 1 || id > nv) {
      char msg[128];
      snprintf(msg, sizeof msg, "%s vertex %lld outside 1..%lld", what, id, (long long)nv);
      *st = rd_err(r, msg);
      return -1;
    }
    if (n == 256) {
      char msg[64];
      snprintf(msg, sizeof msg, "%s with more than 256 vertices", what);
      *st = rd_err(r, msg);
      return -1;
    }
    idx[n++] = (int32_t)(id - 1);
  }
  return n;
}

int tide_mesh_read_obj(const char *path, tide_tetmesh **out) {
  *out = NULL;
  reader r;
  int st = rd_open(&r, path);
  if (st) return st;
  dbuf X = {0};
  ibuf el = {0}, seg = {0};
  lbuf lines = {0}, seglines = {0};
  char *s;
  while ((s = rd_data(&r, '#'))) {
    if (s[0] == 'v' && (s[1] == ' ' || s[1] == '\t')) {
      double v[5];
      int n = parse_nums(s + 2, v, 5);
      if (n < 3 || n > 4) {
        st = rd_err(&r, n < 0 ? "not a number" : "a vertex needs 3 coordinates");
        goto done;
      }
      for (int k = 0; k < 3; k++) {
        if (!isfinite(v[k])) {
          st = rd_err(&r, "non-finite coordinate");
          goto done;
        }
        if ((st = dbuf_push(&X, v[k]))) goto done;
      }
    } else if (s[0] == 'f' && (s[1] == ' ' || s[1] == '\t')) {
      int32_t idx[256];
      int n = obj_indices(&r, s + 2, X.n / 3, "face", idx, &st);
      if (n < 0) goto done;
      if (n < 3) {
        st = rd_err(&r, "a face needs at least 3 vertices");
        goto done;
      }
      for (int k = 1; k + 1 < n; k++) {
        if ((st = ibuf_push(&el, idx[0])) || (st = ibuf_push(&el, idx[k])) ||
            (st = ibuf_push(&el, idx[k + 1])) || (st = lbuf_push(&lines, r.line)))
          goto done;
      }
    } else if (s[0] == 'l' && (s[1] == ' ' || s[1] == '\t')) {
      /* a polyline: its consecutive vertex pairs are rod segments */
      int32_t idx[256];
      int n = obj_indices(&r, s + 2, X.n / 3, "line", idx, &st);
      if (n < 0) goto done;
      if (n < 2) {
        st = rd_err(&r, "a line needs at least 2 vertices");
        goto done;
      }
      for (int k = 0; k + 1 < n; k++) {
        if (idx[k] == idx[k + 1]) {
          st = rd_err(&r, "a line repeats a vertex in a row");
          goto done;
        }
        if ((st = ibuf_push(&seg, idx[k])) || (st = ibuf_push(&seg, idx[k + 1])) ||
            (st = lbuf_push(&seglines, r.line)))
          goto done;
      }
    }
    /* other statements (vn, vt, g, o, s, usemtl, mtllib) are ignored */
  }
  if (el.n && seg.n) {
    st = tide_fail(TIDE_EFORMAT, "%s: both faces and lines (l): a mesh is a triangle surface or a "
                                 "rod network, split the file", path);
    goto done;
  }
  if (el.n == 0 && seg.n == 0) {
    st = tide_fail(TIDE_EFORMAT, "%s: no faces and no lines", path);
    goto done;
  }
  if (seg.n) {
    st = finish(3, 2, &X, &seg, &seglines, path, out);
    goto done;
  }
  st = finish(3, 3, &X, &el, &lines, path, out);
done:
  rd_close(&r);
  dbuf_free(&X);
  ibuf_free(&el);
  ibuf_free(&seg);
  lbuf_free(&lines);
  lbuf_free(&seglines);
  return st;
}
