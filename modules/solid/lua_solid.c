/*
 * lua_solid.c -- tide.solid: meshes of deformable solids, materials, shapes
 * and (lua_solid_step.c) integrators and collision objects.
 *
 *   local S = tide.solid
 *   local m = S.box{ min = {0, 0, 0}, max = {1, .1, .1}, cells = {20, 2, 2} }
 *   m:material{ model = "neohookean", E = 1e5, nu = 0.3, density = 1000 }
 *   m:pin(function(x, y, z) return x < 1e-9 end)
 *
 * Userdata "tide.TetMesh" holds a tide_tetmesh * (mesh.h).  Node arrays
 * (m.x, m.v, m.rest, m.mass, m.pinned, m.target, m.force) are tide.Arrays
 * sharing the mesh's memory; connectivity (m:elements(), m:boundary()) is
 * returned as 1-based copies.
 */
#include "solid/lua_solid.h"

#include <string.h>

#define MESH_T TIDE_TETMESH_T

void tide_lua_solid_ckpt_open(lua_State *L); /* lua_solid_ckpt.c: checkpoint hooks */
/* lua_solid_thin.c: shell and rod generators into the module table `module`,
 * their methods into the TetMesh method table `methods` */
void tide_lua_solid_thin_open(lua_State *L, int methods, int module);

tide_tetmesh *tide_lua_checkmesh(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, MESH_T); }

tide_tetmesh *tide_lua_checkfem(lua_State *L, int idx, const char *fname) {
  tide_tetmesh *m = tide_lua_checkmesh(L, idx);
  if (!m->fem) tide_lua_error(L, "%s: the mesh has no material (call mesh:material{...} first)", fname);
  return m;
}

static void push_mesh(lua_State *L, int st, tide_tetmesh *m, const char *fname) {
  tide_lua_check(L, st, fname);
  tide_lua_pushobj(L, MESH_T, m);
  tide_lua_gcaccount(L);
}

/* ---------------------------------------------------------- constructors */

static const char *const box_keys[] = {"min", "max", "cells", NULL};
/* S.box{min = {x0, y0[, z0]}, max = {...}, cells = {nx, ny[, nz]}} */
static int l_box(lua_State *L) {
  const char *fn = "tide.solid.box";
  tide_opts o = tide_lua_opts(L, 1, fn, box_keys);
  double lo[3], hi[3], c[3];
  int d = tide_opt_vec(&o, "min", 2, 3, lo);
  if (!d) tide_lua_error(L, "%s: missing option 'min'", fn);
  if (tide_opt_vec(&o, "max", d, d, hi) != d) tide_lua_error(L, "%s: missing option 'max'", fn);
  if (tide_opt_vec(&o, "cells", d, d, c) != d) tide_lua_error(L, "%s: missing option 'cells'", fn);
  int n[3];
  for (int k = 0; k < d; k++) {
    if (c[k] != floor(c[k]) || c[k] < 1 || c[k] > 4096)
      tide_lua_error(L, "%s: cells[%d] must be an integer in 1..4096", fn, k + 1);
    n[k] = (int)c[k];
  }
  tide_tetmesh *m = NULL;
  int st_ = tide_mesh_box(d, lo, hi, n, &m);
  push_mesh(L, st_, m, fn);
  return 1;
}

static const char *const bcc_keys[] = {"shape", "h", "min", "max", "quality", NULL};
/* S.bcc{shape = S.shape..., h = spacing [, min = ..., max = ...] [, quality = 0.1]} */
static int l_bcc(lua_State *L) {
  const char *fn = "tide.solid.bcc";
  tide_opts o = tide_lua_opts(L, 1, fn, bcc_keys);
  tide_shape *s = tide_opt_reqobj(&o, "shape", TIDE_SHAPE_T);
  double h = tide_opt_reqnum(&o, "h", 0, HUGE_VAL);
  double q = tide_opt_num(&o, "quality", 0.1, 0, 0.9);
  double lo[3], hi[3];
  int nlo = tide_opt_vec(&o, "min", s->dim, s->dim, lo);
  int nhi = tide_opt_vec(&o, "max", s->dim, s->dim, hi);
  if (!nlo || !nhi) {
    double blo[3], bhi[3];
    if (!tide_shape_bounds(s, blo, bhi))
      tide_lua_error(L, "%s: the shape is unbounded; give min and max", fn);
    if (!nlo) memcpy(lo, blo, sizeof lo);
    if (!nhi) memcpy(hi, bhi, sizeof hi);
  }
  tide_tetmesh *m = NULL;
  int st_ = tide_mesh_bcc(s->dim, s, lo, hi, h, q, &m);
  push_mesh(L, st_, m, fn);
  return 1;
}

static const char *const mesh_keys[] = {"nodes", "elements", NULL};
/* S.mesh{nodes = Array (nv, d), elements = Array (ne, d+1) of 1-based node
 * indices}: a mesh from arrays (copied) */
static int l_mesh(lua_State *L) {
  const char *fn = "tide.solid.mesh";
  tide_opts o = tide_lua_opts(L, 1, fn, mesh_keys);
  tide_array *X = tide_opt_reqarray(&o, "nodes"), *E = tide_opt_reqarray(&o, "elements");
  if (X->ndim != 2 || (X->shape[1] != 2 && X->shape[1] != 3))
    tide_lua_error(L, "%s: nodes must be an array of shape (nv, 2|3)", fn);
  int d = (int)X->shape[1];
  if (E->ndim != 2 || E->shape[1] < 2 || E->shape[1] > 4)
    tide_lua_error(L, "%s: elements must be an array of shape (ne, %d) (volume), (ne, 3) "
                      "(3D surface) or (ne, 2) (segments)", fn, d + 1);
  int64_t nv = X->shape[0], ne = E->shape[0];
  int nper = (int)E->shape[1];
  size_t xb = (size_t)(nv * d) * sizeof(double), eb = (size_t)(ne * nper) * sizeof(int32_t);
  double *xs = tide_alloc(xb ? xb : 1);
  int32_t *es = tide_alloc(eb ? eb : 1);
  if (!xs || !es) {
    tide_free(xs, xb ? xb : 1);
    tide_free(es, eb ? eb : 1);
    tide_lua_check(L, TIDE_ENOMEM, fn);
  }
  for (int64_t k = 0; k < nv * d; k++) xs[k] = tide_array_getlin(X, k);
  int bad = 0;
  for (int64_t k = 0; k < ne * nper; k++) {
    double v = tide_array_getlin(E, k);
    if (v != floor(v) || v < 1 || v > nv) bad = 1;
    es[k] = bad ? 0 : (int32_t)v - 1;
  }
  tide_tetmesh *m = NULL;
  int st = bad ? tide_fail(TIDE_EINVAL, "element node indices must be integers in 1..%lld",
                           (long long)nv)
               : tide_tetmesh_new(d, nper, nv, xs, ne, es, NULL, NULL, &m);
  tide_free(xs, xb ? xb : 1);
  tide_free(es, eb ? eb : 1);
  push_mesh(L, st, m, fn);
  return 1;
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* S.read(path) -> mesh, or nil, message (missing or malformed file).
 * .msh: Gmsh; .node/.ele or a stem: TetGen/Triangle; .obj: OBJ surface. */
static int l_read(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING)
    tide_lua_error(L, "tide.solid.read: path must be a string, got %s", luaL_typename(L, 1));
  const char *path = lua_tostring(L, 1);
  tide_tetmesh *m = NULL;
  int st;
  if (ends_with(path, ".msh"))
    st = tide_mesh_read_gmsh(path, &m);
  else if (ends_with(path, ".obj"))
    st = tide_mesh_read_obj(path, &m);
  else
    st = tide_mesh_read_tetgen(path, &m);
  if (st) { /* every failure here comes from the file: nil, message */
    lua_pushnil(L);
    lua_pushstring(L, tide_errmsg());
    return 2;
  }
  push_mesh(L, st, m, "tide.solid.read");
  return 1;
}

/* S.lame(E, nu) -> lambda, mu */
static int l_lame(lua_State *L) {
  double E = tide_lua_checkfinite(L, 1, "tide.solid.lame", "E");
  double nu = tide_lua_checkfinite(L, 2, "tide.solid.lame", "nu");
  if (!(E >= 0) || !(nu > -1 && nu < 0.5)) tide_lua_error(L, "tide.solid.lame: need E >= 0 and -1 < nu < 0.5");
  double lam, mu;
  tide_lame(E, nu, &lam, &mu);
  lua_pushnumber(L, lam);
  lua_pushnumber(L, mu);
  return 2;
}

/* --------------------------------------------------------------- methods */

/* in tide_model order, then aliases */
static const char *const model_choices[] = {"linear", "rotated_linear",  "neohookean",
                                            "spline", "fixed_corotated", "stvk",
                                            "neohookean_j", "corotational", NULL};

static const char *const material_keys[] = {
    "model",      "E",          "nu",         "mu",       "lambda",        "density",
    "gamma",      "spline_lo",  "spline_hi",  "spline_klo", "spline_khi",  "fiber_k",
    "fiber",      "damping_alpha", "damping_beta", "rayleigh_mass", "rayleigh_stiffness",
    "gravity",    "plane_stress", NULL};

/* m:material{model = "neohookean", E = .., nu = .. | mu = .., lambda = ..,
 *            density = 1000, ...} (see docs/solids.md) */
static int m_material(lua_State *L) {
  const char *fn = "TetMesh:material";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  if (m->surface)
    tide_lua_error(L, "%s: a %s mesh cannot take a volume material; use %s", fn,
                   m->surface == TIDE_MESH_ROD ? "rod" : "surface",
                   m->surface == TIDE_MESH_ROD ? "mesh:rod{...}" : "mesh:shell{...}");
  tide_opts o = tide_lua_opts(L, 2, fn, material_keys);
  int model = tide_opt_choice(&o, "model", "neohookean", model_choices);
  if (model == TIDE_MODEL_COUNT) model = TIDE_MODEL_ROTATED_LINEAR; /* "corotational" */
  double mu, lambda;
  int has_e = tide_opt_has(&o, "E") || tide_opt_has(&o, "nu");
  int has_l = tide_opt_has(&o, "mu") || tide_opt_has(&o, "lambda");
  if (has_e && has_l) tide_lua_error(L, "%s: give either E and nu or mu and lambda", fn);
  if (has_l) {
    mu = tide_opt_reqnum(&o, "mu", 0, HUGE_VAL);
    lambda = tide_opt_reqnum(&o, "lambda", -mu, HUGE_VAL);
  } else {
    double E = tide_opt_reqnum(&o, "E", 0, HUGE_VAL);
    double nu = tide_opt_num(&o, "nu", 0.3, -0.999, 0.499);
    tide_lame(E, nu, &lambda, &mu);
  }
  tide_material mat = tide_material_default(model, mu, lambda);
  mat.gamma = tide_opt_num(&o, "gamma", mat.gamma, 1e-6, 1 - 1e-6);
  mat.spline_lo = tide_opt_num(&o, "spline_lo", mat.spline_lo, 1e-6, 1 - 1e-6);
  mat.spline_hi = tide_opt_num(&o, "spline_hi", mat.spline_hi, 1 + 1e-6, HUGE_VAL);
  mat.spline_klo = tide_opt_num(&o, "spline_klo", mat.spline_klo, 0, HUGE_VAL);
  mat.spline_khi = tide_opt_num(&o, "spline_khi", mat.spline_khi, 0, HUGE_VAL);
  mat.fiber_k = tide_opt_num(&o, "fiber_k", 0, 0, HUGE_VAL);
  double a[3] = {1, 0, 0};
  if (tide_opt_vec(&o, "fiber", m->dim, m->dim, a)) {
    double l = 0;
    for (int k = 0; k < m->dim; k++) l += a[k] * a[k];
    if (!(l > 0)) tide_lua_error(L, "%s: fiber direction must be nonzero", fn);
    for (int k = 0; k < 3; k++) mat.fiber[k] = k < m->dim ? a[k] / sqrt(l) : 0;
  }
  mat.damp_alpha = tide_opt_num(&o, "damping_alpha", 0, 0, HUGE_VAL);
  mat.damp_beta = tide_opt_num(&o, "damping_beta", 0, 0, HUGE_VAL);
  mat.plane_stress = tide_opt_bool(&o, "plane_stress", 0);
  if (mat.plane_stress && m->dim != 2)
    tide_lua_error(L, "%s: plane_stress is for 2D meshes (this one is %dD)", fn, m->dim);
  double rho = tide_opt_num(&o, "density", 1000, 0, HUGE_VAL);
  double g[3] = {0, -9.81, 0};
  int ng = tide_opt_vec(&o, "gravity", m->dim, m->dim, g);
  double tm = tide_opt_num(&o, "rayleigh_mass", 0, 0, HUGE_VAL);
  double tk = tide_opt_num(&o, "rayleigh_stiffness", 0, 0, HUGE_VAL);
  tide_lua_check(L, tide_fem_attach(m, &mat, rho), fn);
  m->fem->tau_m = tm;
  m->fem->tau_k = tk;
  if (ng) memcpy(m->fem->gravity, g, sizeof g);
  if (m->dim == 2) m->fem->gravity[2] = 0;
  tide_lua_gcaccount(L);
  lua_settop(L, 1);
  return 1;
}

static const char *const plastic_keys[] = {"yield", "limit", "goal", "isochoric", NULL};
/* m:plasticity{yield = gamma, limit = 3 [, goal = Array (ne, d, d) log goal]
 *              [, isochoric = (true without a goal)]} */
static int m_plasticity(lua_State *L) {
  const char *fn = "TetMesh:plasticity";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  tide_opts o = tide_lua_opts(L, 2, fn, plastic_keys);
  double y = tide_opt_reqnum(&o, "yield", 0, HUGE_VAL);
  double lim = tide_opt_num(&o, "limit", 3, 1, HUGE_VAL);
  tide_array *goal = tide_opt_array(&o, "goal");
  if (goal) {
    int64_t shape[3] = {m->ne, m->dim, m->dim};
    if (tide_array_expect(goal, "goal", TIDE_F64, 3, shape))
      tide_lua_error(L, "%s: %s", fn, tide_errmsg());
  }
  int iso = tide_opt_bool(&o, "isochoric", goal == NULL);
  tide_lua_check(L, tide_fem_set_plasticity(m, y, lim, goal ? TIDE_F64P(goal) : NULL, iso), fn);
  lua_settop(L, 1);
  return 1;
}

/* m:fibers(Array (ne, d)) or m:fibers(nil): per-element fibre directions */
static int m_fibers(lua_State *L) {
  const char *fn = "TetMesh:fibers";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  if (lua_isnoneornil(L, 2)) {
    tide_fem_set_fibers(m, NULL);
  } else {
    int64_t shape[2] = {m->ne, m->dim};
    tide_array *a = tide_lua_checkarrayof(L, 2, "fibre directions", TIDE_F64, 2, shape);
    tide_lua_check(L, tide_fem_set_fibers(m, TIDE_F64P(a)), fn);
  }
  lua_settop(L, 1);
  return 1;
}

/* Node selection at idx into mask (nv bytes): a function(x, y[, z]) ->
 * boolean over current positions, a list or Array of 1-based indices, or a
 * region {min = {...}, max = {...}}. */
void tide_lua_solid_select_nodes(lua_State *L, int idx, tide_tetmesh *m, uint8_t *mask,
                                 const char *fn) {
  int d = m->dim;
  const double *x = TIDE_F64P(m->x);
  memset(mask, 0, (size_t)m->nv);
  if (lua_isfunction(L, idx)) {
    for (int64_t i = 0; i < m->nv; i++) {
      lua_pushvalue(L, idx);
      for (int k = 0; k < d; k++) lua_pushnumber(L, x[i * d + k]);
      lua_call(L, d, 1);
      mask[i] = (uint8_t)lua_toboolean(L, -1);
      lua_pop(L, 1);
    }
    return;
  }
  tide_shape *sh = tide_lua_testobj(L, idx, TIDE_SHAPE_T);
  if (sh) { /* inside or on the shape (phi <= 1e-9 of the mesh's extent) */
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, ext = 0;
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < d; k++)
        lo[k] = fmin(lo[k], x[i * d + k]), hi[k] = fmax(hi[k], x[i * d + k]);
    for (int k = 0; k < d; k++) ext = fmax(ext, hi[k] - lo[k]);
    for (int64_t i = 0; i < m->nv; i++) {
      double p[3] = {0, 0, 0};
      for (int k = 0; k < d; k++) p[k] = x[i * d + k];
      mask[i] = (uint8_t)(tide_shape_eval(sh, p) <= 1e-9 * ext);
    }
    return;
  }
  tide_array *a = tide_lua_testarray(L, idx);
  if (a) {
    int64_t n = tide_array_size(a);
    for (int64_t k = 0; k < n; k++) {
      double v = tide_array_getlin(a, k);
      if (v != floor(v) || v < 1 || v > m->nv)
        tide_lua_error(L, "%s: node index %f outside 1..%I", fn, v, (lua_Integer)m->nv);
      mask[(int64_t)v - 1] = 1;
    }
    return;
  }
  if (!lua_istable(L, idx))
    tide_lua_error(L, "%s: nodes must be a function, a tide.Shape, a list of indices or {min=, max=}, got %s", fn,
                   luaL_typename(L, idx));
  lua_getfield(L, idx, "min");
  int region = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (region) {
    static const char *const keys[] = {"min", "max", NULL};
    tide_opts o = tide_lua_opts(L, idx, fn, keys);
    double lo[3], hi[3];
    if (tide_opt_vec(&o, "min", d, d, lo) != d || tide_opt_vec(&o, "max", d, d, hi) != d)
      tide_lua_error(L, "%s: a region needs min and max with %d entries", fn, d);
    for (int64_t i = 0; i < m->nv; i++) {
      int in = 1;
      for (int k = 0; k < d; k++) in &= x[i * d + k] >= lo[k] && x[i * d + k] <= hi[k];
      mask[i] = (uint8_t)in;
    }
    return;
  }
  lua_Integer n = luaL_len(L, idx);
  lua_pushnil(L); /* a list: only the keys 1..n */
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    int isint = 0;
    lua_Integer key = lua_tointegerx(L, -1, &isint);
    if (lua_type(L, -1) != LUA_TNUMBER || !isint || key < 1 || key > n)
      tide_lua_error(L, "%s: a node list has keys 1..n only (a region needs min and max)", fn);
  }
  for (lua_Integer k = 1; k <= n; k++) {
    lua_geti(L, idx, k);
    lua_Integer v = tide_lua_checkrange(L, -1, fn, "node index", 1, m->nv);
    mask[v - 1] = 1;
    lua_pop(L, 1);
  }
}

static int pin_common(lua_State *L, int on, const char *fn) {
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  uint8_t *mask = lua_newuserdatauv(L, (size_t)m->nv, 0); /* GC-owned scratch */
  tide_lua_solid_select_nodes(L, 2, m, mask, fn);
  uint8_t *pin = TIDE_U8P(m->fem->pinned);
  double *tg = TIDE_F64P(m->fem->target);
  const double *x = TIDE_F64P(m->x);
  lua_Integer count = 0;
  for (int64_t i = 0; i < m->nv; i++)
    if (mask[i]) {
      count++;
      pin[i] = (uint8_t)on;
      if (on)
        for (int k = 0; k < m->dim; k++) tg[i * m->dim + k] = x[i * m->dim + k];
    }
  if (count == 0) { /* an empty selection changes nothing: say why */
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < m->dim; k++) {
        lo[k] = fmin(lo[k], x[i * m->dim + k]);
        hi[k] = fmax(hi[k], x[i * m->dim + k]);
      }
    char b[160];
    if (m->dim == 3)
      snprintf(b, sizeof b, "(%g, %g, %g) .. (%g, %g, %g)", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    else
      snprintf(b, sizeof b, "(%g, %g) .. (%g, %g)", lo[0], lo[1], hi[0], hi[1]);
    tide_lua_error(L, "%s: the selection holds no node (the mesh's nodes span %s)", fn, b);
  }
  lua_pushinteger(L, count);
  return 1;
}

/* m:pin(selection) -> count: selected nodes become kinematic, their target
 * is their current position (write m.target to move them) */
static int m_pin(lua_State *L) { return pin_common(L, 1, "TetMesh:pin"); }
static int m_unpin(lua_State *L) { return pin_common(L, 0, "TetMesh:unpin"); }

/* m:energy() -> elastic energy [J] at the current positions */
static int m_energy(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkfem(L, 1, "TetMesh:energy");
  double E;
  tide_lua_check(L, tide_fem_energy(m, TIDE_F64P(m->x), &E), "TetMesh:energy");
  lua_pushnumber(L, E);
  return 1;
}

/* m:kinetic_energy() -> 1/2 v^T M v [J] */
static int m_kinetic(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkfem(L, 1, "TetMesh:kinetic_energy");
  const double *v = TIDE_F64P(m->v), *mass = TIDE_F64P(m->fem->mass);
  double *eb = TIDE_F64P(m->fem->ebuf);
  int d = m->dim;
  for (int64_t i = 0; i < m->nv; i++) {
    double s = 0;
    for (int k = 0; k < d; k++) s += v[i * d + k] * v[i * d + k];
    eb[i] = 0.5 * mass[i] * s;
  }
  lua_pushnumber(L, tide_sum(m->nv, eb));
  return 1;
}

/* m:volume() -> current total signed volume (area in 2D) */
static int m_volume(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  double V;
  tide_lua_check(L, tide_tetmesh_total_volume(m, TIDE_F64P(m->x), &V), "TetMesh:volume");
  lua_pushnumber(L, V);
  return 1;
}

/* m:volumes() -> Array (ne) of current signed element volumes */
static int m_volumes(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  tide_array *a = tide_array_new1(TIDE_F64, m->ne);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, "TetMesh:volumes");
  tide_lua_pusharray(L, a);
  tide_lua_check(L, tide_tetmesh_volumes(m, TIDE_F64P(m->x), TIDE_F64P(a)), "TetMesh:volumes");
  return 1;
}

/* m:forces() -> Array (nv, d) of elastic nodal forces [N] at the current positions */
static int m_forces(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkfem(L, 1, "TetMesh:forces");
  tide_array *a = tide_array_new2(TIDE_F64, m->nv, m->dim);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, "TetMesh:forces");
  tide_lua_pusharray(L, a);
  tide_lua_check(L, tide_fem_gradient(m, TIDE_F64P(m->x), TIDE_F64P(a)), "TetMesh:forces");
  tide_array_scale(a, -1);
  return 1;
}

/* 1-based copy of an i32 connectivity array */
static int push_conn(lua_State *L, const tide_array *src) {
  tide_array *a = tide_array_clone(src, TIDE_I32);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, "TetMesh");
  int64_t n = tide_array_size(a);
  int32_t *p = TIDE_I32P(a);
  for (int64_t k = 0; k < n; k++) p[k] += 1;
  tide_lua_pusharray(L, a);
  return 1;
}

/* m:elements() -> Array (ne, nper) i32, 1-based, VTK order */
static int m_elements(lua_State *L) { return push_conn(L, tide_lua_checkmesh(L, 1)->elem); }
/* m:boundary() -> Array (nb, d) i32, 1-based, outward oriented */
static int m_boundary(lua_State *L) { return push_conn(L, tide_lua_checkmesh(L, 1)->bound); }

/* m:boundary_normals() -> normals (nb, d), areas (nb) at the current positions */
static int m_bnormals(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  tide_array *n = tide_array_new2(TIDE_F64, m->nb, m->dim), *a = tide_array_new1(TIDE_F64, m->nb);
  if (!n || !a) {
    tide_array_release(n);
    tide_array_release(a);
    tide_lua_check(L, TIDE_ENOMEM, "TetMesh:boundary_normals");
  }
  tide_tetmesh_boundary_normals(m, TIDE_F64P(m->x), TIDE_F64P(n), TIDE_F64P(a));
  tide_lua_pusharray(L, n);
  tide_lua_pusharray(L, a);
  return 2;
}

/* m:boundary_nodes() -> Array (nv) u8, 1 on the boundary */
static int m_bnodes(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  tide_array *a = tide_array_new1(TIDE_U8, m->nv);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, "TetMesh:boundary_nodes");
  tide_tetmesh_boundary_nodes(m, TIDE_U8P(a));
  tide_lua_pusharray(L, a);
  return 1;
}

/* m:reset(): positions back to rest, zero velocity (targets to rest for pinned nodes) */
static int m_reset(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  tide_array_copy(m->x, m->rest);
  tide_array_fill(m->v, 0);
  if (m->fem) tide_array_copy(m->fem->target, m->rest);
  lua_settop(L, 1);
  return 1;
}

static int m_free(lua_State *L) {
  tide_tetmesh_free(tide_lua_takeobj(L, 1, MESH_T));
  return 0;
}

static int mm_tostring(lua_State *L) {
  tide_tetmesh *m = tide_lua_testobj(L, 1, MESH_T);
  if (!m) {
    lua_pushstring(L, MESH_T " (freed)");
    return 1;
  }
  const char *kind = m->surface == TIDE_MESH_SHELL ? "surface triangles"
                     : m->surface == TIDE_MESH_ROD ? "segments"
                     : (m->dim == 3 ? "tetrahedra" : "triangles");
  if (m->fem)
    lua_pushfstring(L, MESH_T " %dD, %I nodes, %I %s, %I boundary faces, %s", m->dim,
                    (lua_Integer)m->nv, (lua_Integer)m->ne, kind, (lua_Integer)m->nb,
                    m->surface == TIDE_MESH_ROD ? "rod" : tide_model_name(m->fem->mat.model));
  else
    lua_pushfstring(L, MESH_T " %dD, %I nodes, %I %s, %I boundary faces", m->dim,
                    (lua_Integer)m->nv, (lua_Integer)m->ne, kind, (lua_Integer)m->nb);
  return 1;
}

static void push_view(lua_State *L, tide_array *a) {
  if (!a) {
    lua_pushnil(L);
    return;
  }
  tide_lua_pusharray(L, tide_array_retain(a));
}

/* fields: dim nv ne nb surface x v rest mass pinned target force rest_volume
 * gravity density rayleigh_mass rayleigh_stiffness; otherwise methods */
static int mm_index(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  const char *k = luaL_checkstring(L, 2);
  tide_fem *f = m->fem;
  if (!strcmp(k, "dim")) lua_pushinteger(L, m->dim);
  else if (!strcmp(k, "nv")) lua_pushinteger(L, m->nv);
  else if (!strcmp(k, "ne")) lua_pushinteger(L, m->ne);
  else if (!strcmp(k, "nb")) lua_pushinteger(L, m->nb);
  else if (!strcmp(k, "surface")) lua_pushboolean(L, m->surface == TIDE_MESH_SHELL);
  else if (!strcmp(k, "kind"))
    lua_pushstring(L, m->surface == TIDE_MESH_SHELL ? "shell"
                      : m->surface == TIDE_MESH_ROD ? "rod" : "volume");
  else if (!strcmp(k, "x")) push_view(L, m->x);
  else if (!strcmp(k, "v")) push_view(L, m->v);
  else if (!strcmp(k, "rest")) push_view(L, m->rest);
  else if (!strcmp(k, "rest_volume")) push_view(L, m->vol);
  else if (!strcmp(k, "mass")) push_view(L, f ? f->mass : NULL);
  else if (!strcmp(k, "pinned")) push_view(L, f ? f->pinned : NULL);
  else if (!strcmp(k, "target")) push_view(L, f ? f->target : NULL);
  else if (!strcmp(k, "force")) push_view(L, f ? f->force : NULL);
  else if (!strcmp(k, "contact_force")) push_view(L, f ? f->contact_force : NULL);
  else if (!strcmp(k, "contact_collider")) push_view(L, f ? f->contact_collider : NULL);
  else if (!strcmp(k, "rayleigh_mass") || !strcmp(k, "rayleigh_stiffness") ||
           !strcmp(k, "density")) {
    if (f)
      lua_pushnumber(L, k[0] == 'd' ? f->rho : k[9] == 'm' ? f->tau_m : f->tau_k);
    else
      lua_pushnil(L);
  }
  else if (!strcmp(k, "model")) {
    if (f)
      lua_pushstring(L, tide_model_name(f->mat.model));
    else
      lua_pushnil(L);
  }
  else if (!strcmp(k, "gravity")) {
    if (!f) {
      lua_pushnil(L);
    } else {
      lua_createtable(L, m->dim, 0);
      for (int i = 0; i < m->dim; i++) {
        lua_pushnumber(L, f->gravity[i]);
        lua_rawseti(L, -2, i + 1);
      }
    }
  } else {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg mesh_methods[] = {{"material", m_material},
                                        {"plasticity", m_plasticity},
                                        {"fibers", m_fibers},
                                        {"pin", m_pin},
                                        {"unpin", m_unpin},
                                        {"energy", m_energy},
                                        {"kinetic_energy", m_kinetic},
                                        {"volume", m_volume},
                                        {"volumes", m_volumes},
                                        {"forces", m_forces},
                                        {"elements", m_elements},
                                        {"boundary", m_boundary},
                                        {"boundary_normals", m_bnormals},
                                        {"boundary_nodes", m_bnodes},
                                        {"reset", m_reset},
                                        {"free", m_free},
                                        {NULL, NULL}};

static const luaL_Reg mesh_meta[] = {{"__gc", m_free},
                                     {"__close", m_free},
                                     {"__tostring", mm_tostring},
                                     {"__index", mm_index},
                                     {NULL, NULL}};

static const luaL_Reg solid_funcs[] = {{"box", l_box},   {"bcc", l_bcc},   {"mesh", l_mesh},
                                       {"read", l_read}, {"lame", l_lame}, {NULL, NULL}};

int luaopen_tide_solid(lua_State *L) {
  /* arrays pushed by this module need tide.Array's metatable */
  lua_getglobal(L, "require");
  lua_pushstring(L, "tide.array");
  lua_call(L, 1, 0);
  tide_lua_newtype(L, MESH_T, mesh_methods, mesh_meta);
  tide_lua_solid_ckpt_open(L);
  luaL_newlib(L, solid_funcs);
  tide_lua_shape_open(L); /* tide.solid.shape is tide.shape (modules/grid/sdf.h) */
  lua_setfield(L, -2, "shape");
  /* stepping methods go into the TetMesh method table, colliders into the module */
  luaL_getmetatable(L, MESH_T);
  lua_getfield(L, -1, "methods");
  tide_lua_solid_step_open(L, lua_gettop(L), lua_gettop(L) - 2);
  tide_lua_solid_thin_open(L, lua_gettop(L), lua_gettop(L) - 2);
  tide_lua_solid_static_open(L, lua_gettop(L));
  lua_pop(L, 2);
  return 1;
}
