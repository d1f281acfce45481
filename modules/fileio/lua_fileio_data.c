/*
 * lua_fileio_data.c -- tide.fileio writers of data files: npy, ply, obj,
 * vti, vtp, vtu, pvd.  Registered by lua_fileio.c.
 */
#include "tide_lua.h"

#include "fileio/fileio.h"
#include "fileio/lua_fileio_util.h"
#include "solid/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FN "tide.fileio"
#define MAXATTR 48

static const char *opt_path(tide_opts *o) {
  const char *p = tide_opt_str(o, "path", NULL);
  if (!p) tide_lua_error(o->L, "%s: missing option 'path'", o->fname);
  if (!*p) tide_lua_error(o->L, "%s: option 'path' is empty", o->fname);
  return p;
}

static int cmp_attr(const void *a, const void *b) {
  return strcmp(((const tide_attr *)a)->name, ((const tide_attr *)b)->name);
}

/* option key: a table {name = Array, ...} -> attrs sorted by name (the
 * arrays stay referenced by the options table) */
static int opt_attrs(tide_opts *o, const char *key, tide_attr *out) {
  lua_State *L = o->L;
  if (!tide_opt_has(o, key)) return 0;
  lua_getfield(L, o->idx, key);
  if (!lua_istable(L, -1))
    tide_lua_error(L, "%s: option '%s' must be a table {name = tide.Array, ...}, got %s", o->fname,
                   key, luaL_typename(L, -1));
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (lua_type(L, -2) != LUA_TSTRING)
      tide_lua_error(L, "%s: option '%s' must map names to arrays", o->fname, key);
    if (n == MAXATTR)
      tide_lua_error(L, "%s: option '%s' has more than %d arrays", o->fname, key, MAXATTR);
    tide_array *a = tide_lua_testarray(L, -1);
    if (!a)
      tide_lua_error(L, "%s: option '%s': entry '%s' must be a tide.Array, got %s", o->fname, key,
                     lua_tostring(L, -2), luaL_typename(L, -1));
    out[n].name = lua_tostring(L, -2);
    out[n].a = a;
    n++;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  qsort(out, (size_t)n, sizeof *out, cmp_attr);
  return n;
}

/* positions (n, 2) or (n, 3) as doubles */
/* positions (n, 2) or (n, 3) as doubles: a tide.Array or a tide.Particles
 * (then *vel, when given, receives its velocities) */
static const double *opt_points(tide_opts *o, const char *key, int64_t *n, int *dim,
                                tide_array **vel) {
  tide_array *a = tide_lua_fileio_points(o, key, vel);
  if (!a) tide_lua_error(o->L, "%s: missing option '%s'", o->fname, key);
  if (a->ndim != 2 || (a->shape[1] != 2 && a->shape[1] != 3))
    tide_lua_error(o->L, "%s: option '%s' must have shape (n, 2) or (n, 3)", o->fname, key);
  int64_t shp[2] = {-1, -1};
  *n = a->shape[0];
  *dim = (int)a->shape[1];
  return tide_lua_fileio_f64(o->L, a, o->fname, key, 2, shp);
}

/* add an attribute unless one of that name is there (kept sorted) */
static int add_attr(tide_attr *at, int n, const char *name, const tide_array *a) {
  if (!a || n >= MAXATTR) return n;
  for (int q = 0; q < n; q++)
    if (!strcmp(at[q].name, name)) return n;
  at[n].name = name;
  at[n].a = a;
  qsort(at, (size_t)n + 1, sizeof *at, cmp_attr);
  return n + 1;
}

/* 'triangles' or 'segments' (not both): connectivity, count, nodes per face */
static const int32_t *opt_faces(tide_opts *o, int64_t nv, int64_t *m, int *k);

static const int32_t *opt_index(tide_opts *o, const char *key, int k, int64_t nv, int64_t *m) {
  tide_array *a = tide_opt_array(o, key);
  *m = 0;
  if (!a) return NULL;
  int base = (int)tide_opt_int(o, "index_base", 0, 0, 1);
  return tide_lua_fileio_index(o->L, a, o->fname, key, k, nv, base, m);
}

static const int32_t *opt_faces(tide_opts *o, int64_t nv, int64_t *m, int *k) {
  int64_t nt, ns;
  const int32_t *t = opt_index(o, "triangles", 3, nv, &nt);
  const int32_t *s = opt_index(o, "segments", 2, nv, &ns);
  if (t && s) tide_lua_error(o->L, "%s: give 'triangles' or 'segments', not both", o->fname);
  *m = t ? nt : ns;
  *k = t ? 3 : 2;
  return t ? t : s;
}

/* ---------------------------------------------------------------- npy */

/* tide.fileio.npy(path, array) */
static int l_npy(lua_State *L) {
  const char *path = tide_lua_fileio_path(L, 1, FN ".npy");
  tide_array *a = tide_lua_checkarray(L, 2);
  tide_lua_check(L, tide_npy_write(path, a), FN ".npy");
  lua_pushstring(L, path);
  return 1;
}

/* tide.fileio.npy_read(path) -> array, or nil, message */
static int l_npy_read(lua_State *L) {
  const char *path = tide_lua_fileio_path(L, 1, FN ".npy_read");
  tide_array *a;
  if (tide_npy_read(path, &a)) {
    lua_pushnil(L);
    lua_pushstring(L, tide_errmsg());
    return 2;
  }
  tide_lua_pusharray(L, a);
  return 1;
}

/* ---------------------------------------------------------------- ply/obj */

static const char *const ply_keys[] = {"path",     "points",     "attributes", "triangles",
                                       "segments", "index_base", "double",     NULL};

static int l_ply(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, FN ".ply", ply_keys);
  const char *path = opt_path(&o);
  int64_t n, nf;
  int dim, k;
  tide_array *vel;
  const double *p = opt_points(&o, "points", &n, &dim, &vel);
  tide_attr at[MAXATTR];
  int na = add_attr(at, opt_attrs(&o, "attributes", at), "velocity", vel);
  const int32_t *f = opt_faces(&o, n, &nf, &k);
  int dbl = tide_opt_bool(&o, "double", 0);
  tide_lua_check(L, tide_ply_write(path, n, dim, p, na, at, nf, k, f, dbl), o.fname);
  lua_pushstring(L, path);
  return 1;
}

static const char *const obj_keys[] = {"path",     "vertices",   "normals", "triangles",
                                       "segments", "index_base", NULL};

static int l_obj(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, FN ".obj", obj_keys);
  const char *path = opt_path(&o);
  int64_t n;
  int dim;
  const double *p = opt_points(&o, "vertices", &n, &dim, NULL);
  const double *nrm = NULL;
  tide_array *na = tide_opt_array(&o, "normals");
  if (na) {
    int64_t shp[2] = {n, 3};
    nrm = tide_lua_fileio_f64(L, na, o.fname, "normals", 2, shp);
  }
  int64_t nf;
  int k;
  const int32_t *f = opt_faces(&o, n, &nf, &k);
  tide_lua_check(L, tide_obj_write(path, n, dim, p, nrm, nf, k, f), o.fname);
  lua_pushstring(L, path);
  return 1;
}

/* ---------------------------------------------------------------- vtk */

static const char *const vti_keys[] = {"path",  "grid",   "n",        "dx", "origin",
                                       "cells", "points", "velocity", NULL};

/* cell-centred average of a MAC field: (ni, nj[, nk], dim) f64 */
static tide_array *mac_cells(lua_State *L, const char *F, const tide_mac *m) {
  const tide_grid *g = &m->grid;
  int dim = g->dim;
  for (int a = 0; a < dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    int64_t shp[3] = {d[0], d[1], d[2]};
    if (tide_array_expect(m->u[a], "MAC component", TIDE_F64, dim, shp))
      tide_lua_error(L, "%s: %s", F, tide_errmsg());
  }
  int64_t shape[4] = {g->n[0], g->n[1], dim == 3 ? g->n[2] : dim, dim};
  tide_array *c = tide_array_new(TIDE_F64, dim + 1, shape);
  if (!c) tide_lua_error(L, "%s: %s", F, tide_errmsg());
  double *o = TIDE_F64P(c);
  int ni = g->n[0], nj = g->n[1], nk = g->n[2];
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t cell = tide_grid_idx(g, i, j, k);
        for (int a = 0; a < dim; a++) {
          const double *u = TIDE_F64P(m->u[a]);
          int64_t lo = tide_grid_fidx(g, a, i, j, k);
          int64_t hi = tide_grid_fidx(g, a, i + (a == 0), j + (a == 1), k + (a == 2));
          o[cell * dim + a] = 0.5 * (u[lo] + u[hi]);
        }
      }
  return c;
}

static int l_vti(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, FN ".vti", vti_keys);
  const char *F = o.fname;
  const char *path = opt_path(&o);
  tide_grid g;
  memset(&g, 0, sizeof g);
  tide_grid *gp = tide_opt_obj(&o, "grid", TIDE_GRID_T);
  tide_mac *mac = tide_opt_obj(&o, "velocity", TIDE_MAC_T);
  if (gp) {
    g = *gp;
    if (tide_opt_has(&o, "n") || tide_opt_has(&o, "dx") || tide_opt_has(&o, "origin"))
      tide_lua_error(L, "%s: give either 'grid' or 'n'/'dx'/'origin', not both", F);
  } else if (mac) {
    g = mac->grid;
  } else {
    double n[3] = {1, 1, 1}, org[3] = {0, 0, 0};
    int nd = tide_opt_vec(&o, "n", 2, 3, n);
    if (!nd) tide_lua_error(L, "%s: the grid is unknown: give 'grid' or 'n' and 'dx'", F);
    for (int d = 0; d < nd; d++)
      if (n[d] < 1 || n[d] != floor(n[d]) || n[d] > (1 << 24))
        tide_lua_error(L, "%s: option 'n' must hold positive integers", F);
    g.dim = nd;
    for (int d = 0; d < 3; d++)
      g.n[d] = d < nd ? (int)n[d] : 1;
    g.dx = tide_opt_reqnum(&o, "dx", 0, HUGE_VAL);
    if (!(g.dx > 0)) tide_lua_error(L, "%s: option 'dx' must be positive", F);
    if (tide_opt_vec(&o, "origin", nd, nd, org))
      for (int d = 0; d < nd; d++)
        g.origin[d] = org[d];
  }
  if (mac && (mac->grid.dim != g.dim || memcmp(mac->grid.n, g.n, sizeof g.n) != 0))
    tide_lua_error(L, "%s: option 'velocity' lives on another grid", F);
  tide_attr cells[MAXATTR + 1], points[MAXATTR];
  int nc = opt_attrs(&o, "cells", cells), np = opt_attrs(&o, "points", points);
  if (mac) {
    tide_array *v = mac_cells(L, F, mac);
    tide_lua_pusharray(L, v);
    cells[nc].name = "velocity";
    cells[nc].a = v;
    nc++;
  }
  tide_lua_check(L, tide_vti_write(path, &g, nc, cells, np, points), F);
  lua_pushstring(L, path);
  return 1;
}

static const char *const vtp_keys[] = {"path",      "points",     "verts",
                                       "triangles", "segments",   "point_data",
                                       "cell_data", "index_base", NULL};

static int l_vtp(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, FN ".vtp", vtp_keys);
  const char *path = opt_path(&o);
  int64_t n, nt, ns;
  int dim;
  tide_array *vel;
  const double *p = opt_points(&o, "points", &n, &dim, &vel);
  const int32_t *t = opt_index(&o, "triangles", 3, n, &nt);
  const int32_t *s = opt_index(&o, "segments", 2, n, &ns);
  int verts = tide_opt_bool(&o, "verts", !t && !s);
  tide_attr pa[MAXATTR], ca[MAXATTR];
  int npa = add_attr(pa, opt_attrs(&o, "point_data", pa), "velocity", vel);
  int nca = opt_attrs(&o, "cell_data", ca);
  tide_lua_check(L, tide_vtp_write(path, n, dim, p, verts, ns, s, nt, t, npa, pa, nca, ca),
                 o.fname);
  lua_pushstring(L, path);
  return 1;
}

static const char *const vtu_keys[] = {"path",       "points",    "cells",      "mesh",
                                       "point_data", "cell_data", "index_base", NULL};

static int l_vtu(lua_State *L) {
  tide_opts o = tide_lua_opts(L, 1, FN ".vtu", vtu_keys);
  const char *F = o.fname;
  const char *path = opt_path(&o);
  int64_t n, nc;
  int dim, k;
  const double *p;
  const int32_t *cells;
  tide_attr pa[MAXATTR], ca[MAXATTR];
  int npa = opt_attrs(&o, "point_data", pa), nca = opt_attrs(&o, "cell_data", ca);
  if (tide_opt_has(&o, "mesh")) { /* a tide.TetMesh: nodes, elements, velocity, displacement */
    if (tide_opt_has(&o, "points") || tide_opt_has(&o, "cells"))
      tide_lua_error(L, "%s: give 'mesh' or 'points'/'cells', not both", F);
    lua_getfield(L, o.idx, "mesh");
    tide_tetmesh *m = tide_lua_fileio_mesh(L, -1);
    if (!m)
      tide_lua_error(L, "%s: option 'mesh' must be a %s, got %s", F, TIDE_TETMESH_T,
                     luaL_typename(L, -1));
    lua_pop(L, 1);
    int64_t shp[2] = {-1, -1};
    p = tide_lua_fileio_f64(L, m->x, F, "mesh positions", 2, shp);
    n = m->x->shape[0];
    dim = (int)m->x->shape[1];
    k = m->nper;
    tide_array *e = m->elem;
    cells = tide_lua_fileio_index(L, e, F, "mesh elements", k, n, 0, &nc);
    npa = add_attr(pa, npa, "velocity", m->v);
    if (m->rest && m->x) {
      tide_array *u = tide_array_clone(m->x, TIDE_F64);
      if (!u) tide_lua_error(L, "%s: %s", F, tide_errmsg());
      tide_lua_pusharray(L, u);
      if (tide_array_axpy(u, -1, m->rest)) tide_lua_error(L, "%s: %s", F, tide_errmsg());
      npa = add_attr(pa, npa, "displacement", u);
    }
  } else {
    p = opt_points(&o, "points", &n, &dim, NULL);
    tide_array *c = tide_opt_reqarray(&o, "cells");
    if (c->ndim != 2 || c->shape[1] < 2 || c->shape[1] > 4)
      tide_lua_error(L, "%s: option 'cells' must have shape (m, 2), (m, 3) or (m, 4)", F);
    k = (int)c->shape[1];
    cells = opt_index(&o, "cells", k, n, &nc);
  }
  tide_lua_check(L, tide_vtu_write(path, n, dim, p, nc, k, cells, npa, pa, nca, ca), F);
  lua_pushstring(L, path);
  return 1;
}

/* tide.fileio.pvd(collection, time, file) */
static int l_pvd(lua_State *L) {
  const char *pvd = tide_lua_fileio_path(L, 1, FN ".pvd");
  double t = tide_lua_checkfinite(L, 2, FN ".pvd", "time");
  const char *file = tide_lua_fileio_path(L, 3, FN ".pvd");
  tide_lua_check(L, tide_pvd_add(pvd, t, file), FN ".pvd");
  lua_pushstring(L, pvd);
  return 1;
}

static const luaL_Reg funcs_data[] = {{"npy", l_npy}, {"npy_read", l_npy_read}, {"ply", l_ply},
                                      {"obj", l_obj}, {"vti", l_vti},           {"vtp", l_vtp},
                                      {"vtu", l_vtu}, {"pvd", l_pvd},           {NULL, NULL}};

void tide_lua_fileio_data_open(lua_State *L) { luaL_setfuncs(L, funcs_data, 0); }
