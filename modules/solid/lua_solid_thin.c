/*
 * lua_solid_thin.c -- the thin-solid part of tide.solid (thin.h,
 * thingen.h): generators S.sheet, S.disc, S.rod, S.polyline, S.bundle,
 * S.helix, S.web, S.merge; TetMesh methods shell{...}, rod{...}, hinges(),
 * bends().  Registered by lua_solid.c.
 */
#include "solid/lua_solid.h"
#include "solid/thin.h"
#include "solid/thingen.h"
#include "solid/broadphase.h"

#include <string.h>

#define MESH_T TIDE_TETMESH_T

static void push_mesh(lua_State *L, int st, tide_tetmesh *m, const char *fname) {
  tide_lua_check(L, st, fname);
  tide_lua_pushobj(L, MESH_T, m);
  tide_lua_gcaccount(L);
}

static int checkcount(lua_State *L, tide_opts *o, const char *key, int def, int lo, int hi,
                      const char *fn) {
  lua_Integer v = tide_opt_int(o, key, def, lo, hi);
  (void)L, (void)fn;
  return (int)v;
}

/* ---------------------------------------------------------- generators */

static const char *const sheet_keys[] = {"origin", "u", "v", "cells", "bulge", "slits", "diagonals", NULL};
static const char *const diag_choices[] = {"same", "alternate", "cross", NULL};
/* S.sheet{origin = {x,y,z}, u = {..}, v = {..}, cells = {nu, nv},
 *         diagonals = "alternate"|"same" [, bulge = {bu, bv}] [, slits = {{along = "u"|"v", at =, from =, to =}, ...}]} */
static int l_sheet(lua_State *L) {
  const char *fn = "tide.solid.sheet";
  tide_opts o = tide_lua_opts(L, 1, fn, sheet_keys);
  double org[3], u[3], v[3], c[2], bulge[2] = {0, 0};
  if (tide_opt_vec(&o, "origin", 3, 3, org) != 3) tide_lua_error(L, "%s: origin = {x, y, z} required", fn);
  if (tide_opt_vec(&o, "u", 3, 3, u) != 3) tide_lua_error(L, "%s: u = {x, y, z} required", fn);
  if (tide_opt_vec(&o, "v", 3, 3, v) != 3) tide_lua_error(L, "%s: v = {x, y, z} required", fn);
  if (tide_opt_vec(&o, "cells", 2, 2, c) != 2) tide_lua_error(L, "%s: cells = {nu, nv} required", fn);
  int hb = tide_opt_vec(&o, "bulge", 2, 2, bulge);
  int alt = tide_opt_choice(&o, "diagonals", "alternate", diag_choices);
  int n[2];
  for (int k = 0; k < 2; k++) {
    if (c[k] != floor(c[k]) || c[k] < 1 || c[k] > 4096)
      tide_lua_error(L, "%s: cells[%d] must be an integer in 1..4096", fn, k + 1);
    n[k] = (int)c[k];
  }
  int ns = 0;
  tide_slit *sl = NULL;
  lua_getfield(L, 1, "slits");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1)) tide_lua_error(L, "%s: slits must be a list of tables", fn);
    ns = (int)luaL_len(L, -1);
    sl = lua_newuserdatauv(L, (size_t)(ns > 0 ? ns : 1) * sizeof *sl, 0); /* GC-owned */
    static const char *const slit_keys[] = {"along", "at", "from", "to", NULL};
    static const char *const along[] = {"u", "v", NULL};
    for (int q = 0; q < ns; q++) {
      lua_geti(L, -2, q + 1);
      tide_opts so = tide_lua_opts(L, lua_gettop(L), "tide.solid.sheet slit", slit_keys);
      int au = tide_opt_choice(&so, "along", "u", along) == 0;
      int lim_at = au ? n[1] : n[0], lim_run = au ? n[0] : n[1];
      sl[q].along_u = au;
      sl[q].at = (int)tide_opt_int(&so, "at", 0, 1, lim_at - 1);
      sl[q].from = (int)tide_opt_int(&so, "from", 0, 0, lim_run);
      sl[q].to = (int)tide_opt_int(&so, "to", 0, sl[q].from + 2, lim_run);
      lua_pop(L, 1);
    }
  }
  tide_tetmesh *m = NULL;
  int st = tide_mesh_sheet(org, u, v, n[0], n[1], alt, hb ? bulge : NULL, sl, ns, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

static const char *const disc_keys[] = {"center", "normal", "radius", "rings", NULL};
/* S.disc{center = {x,y,z}, normal = {0,1,0}, radius =, rings = 8} */
static int l_disc(lua_State *L) {
  const char *fn = "tide.solid.disc";
  tide_opts o = tide_lua_opts(L, 1, fn, disc_keys);
  double c[3] = {0, 0, 0}, nrm[3] = {0, 1, 0};
  tide_opt_vec(&o, "center", 3, 3, c);
  tide_opt_vec(&o, "normal", 3, 3, nrm);
  double R = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  int rings = checkcount(L, &o, "rings", 8, 1, 2048, fn);
  tide_tetmesh *m = NULL;
  int st = tide_mesh_disc(c, nrm, R, rings, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

/* points of a polyline from a tide.Array (n, d) or a table of {x, y[, z]} */
static double *read_points(lua_State *L, int idx, const char *fn, int64_t *np, int *dim,
                           size_t *bytes) {
  tide_array *a = tide_lua_testarray(L, idx);
  int64_t n;
  int d;
  if (a) {
    if (a->ndim != 2 || (a->shape[1] != 2 && a->shape[1] != 3))
      tide_lua_error(L, "%s: points must be an array of shape (n, 2|3)", fn);
    n = a->shape[0], d = (int)a->shape[1];
  } else {
    if (!lua_istable(L, idx)) tide_lua_error(L, "%s: points must be an Array or a list of points", fn);
    n = luaL_len(L, idx);
    if (n < 1) tide_lua_error(L, "%s: no points", fn);
    lua_geti(L, idx, 1);
    if (!lua_istable(L, -1)) tide_lua_error(L, "%s: points[1] must be {x, y[, z]}", fn);
    d = (int)luaL_len(L, -1);
    lua_pop(L, 1);
    if (d != 2 && d != 3) tide_lua_error(L, "%s: points have 2 or 3 coordinates", fn);
  }
  if (n < 2) tide_lua_error(L, "%s: a polyline needs at least 2 points", fn);
  *bytes = (size_t)(n * d) * sizeof(double);
  double *P = lua_newuserdatauv(L, *bytes, 0); /* GC-owned */
  for (int64_t i = 0; i < n; i++) {
    if (a) {
      for (int k = 0; k < d; k++) P[i * d + k] = tide_array_getlin(a, i * d + k);
    } else {
      lua_geti(L, idx, i + 1);
      tide_lua_checkvec(L, lua_gettop(L), fn, "point", d, d, P + i * d);
      lua_pop(L, 1);
    }
  }
  *np = n, *dim = d;
  return P;
}

static const char *const poly_keys[] = {"points", "closed", NULL};
/* S.polyline{points = Array (n, d) | {{x, y[, z]}, ...}, closed = false} */
static int l_polyline(lua_State *L) {
  const char *fn = "tide.solid.polyline";
  tide_opts o = tide_lua_opts(L, 1, fn, poly_keys);
  int closed = tide_opt_bool(&o, "closed", 0);
  lua_getfield(L, 1, "points");
  int64_t n;
  int d;
  size_t b;
  double *P = read_points(L, lua_gettop(L), fn, &n, &d, &b);
  int64_t start[2] = {0, n};
  tide_tetmesh *m = NULL;
  int st = tide_mesh_rods(d, n, P, 1, start, &closed, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

static const char *const rod_gen_keys[] = {"from", "to", "segments", NULL};
/* S.rod{from = {..}, to = {..}, segments = n}: a straight rod (2D or 3D) */
static int l_rod(lua_State *L) {
  const char *fn = "tide.solid.rod";
  tide_opts o = tide_lua_opts(L, 1, fn, rod_gen_keys);
  double a[3], z[3];
  int d = tide_opt_vec(&o, "from", 2, 3, a);
  if (!d || tide_opt_vec(&o, "to", d, d, z) != d)
    tide_lua_error(L, "%s: from and to (2 or 3 coordinates each) are required", fn);
  int n = (int)tide_opt_int(&o, "segments", 10, 1, 1 << 22);
  size_t b = (size_t)((n + 1) * d) * sizeof(double);
  double *P = lua_newuserdatauv(L, b, 0);
  for (int i = 0; i <= n; i++)
    for (int k = 0; k < d; k++) P[i * d + k] = a[k] + (z[k] - a[k]) * i / n;
  int64_t start[2] = {0, n + 1};
  tide_tetmesh *m = NULL;
  int st = tide_mesh_rods(d, n + 1, P, 1, start, NULL, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

static const char *const bundle_keys[] = {"from", "to", "segments", "count", "spacing", NULL};
/* S.bundle{from = {x,y,z}, to = {..}, segments = n, count = {na, nb}, spacing = s}:
 * na x nb parallel straight rods, offset on a square lattice of spacing s in
 * the plane normal to the rods */
static int l_bundle(lua_State *L) {
  const char *fn = "tide.solid.bundle";
  tide_opts o = tide_lua_opts(L, 1, fn, bundle_keys);
  double a[3], z[3], cnt[2] = {2, 2};
  if (tide_opt_vec(&o, "from", 3, 3, a) != 3 || tide_opt_vec(&o, "to", 3, 3, z) != 3)
    tide_lua_error(L, "%s: from and to = {x, y, z} are required", fn);
  int n = (int)tide_opt_int(&o, "segments", 10, 1, 1 << 16);
  tide_opt_vec(&o, "count", 2, 2, cnt);
  if (cnt[0] != floor(cnt[0]) || cnt[1] != floor(cnt[1]) || cnt[0] < 1 || cnt[1] < 1 ||
      cnt[0] * cnt[1] > 1e5)
    tide_lua_error(L, "%s: count = {na, nb} positive integers", fn);
  double s = tide_opt_reqnum(&o, "spacing", 0, HUGE_VAL);
  double t[3] = {z[0] - a[0], z[1] - a[1], z[2] - a[2]}, lt = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
  if (!(lt > 0)) tide_lua_error(L, "%s: from and to coincide", fn);
  for (int k = 0; k < 3; k++) t[k] /= lt;
  double e1[3] = {0, 0, 0}, e2[3];
  e1[fabs(t[0]) < 0.9 ? 0 : 1] = 1;
  double dp = e1[0] * t[0] + e1[1] * t[1] + e1[2] * t[2];
  for (int k = 0; k < 3; k++) e1[k] -= dp * t[k];
  double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (int k = 0; k < 3; k++) e1[k] /= l1;
  e2[0] = t[1] * e1[2] - t[2] * e1[1], e2[1] = t[2] * e1[0] - t[0] * e1[2], e2[2] = t[0] * e1[1] - t[1] * e1[0];
  int na = (int)cnt[0], nb = (int)cnt[1], nr = na * nb;
  int64_t np = (int64_t)nr * (n + 1);
  size_t pb = (size_t)(np * 3) * sizeof(double), sb = (size_t)(nr + 1) * sizeof(int64_t);
  double *P = lua_newuserdatauv(L, pb, 0);
  int64_t *start = lua_newuserdatauv(L, sb, 0);
  for (int r = 0; r < nr; r++) {
    double oa = (r / nb - 0.5 * (na - 1)) * s, ob = (r % nb - 0.5 * (nb - 1)) * s;
    start[r] = (int64_t)r * (n + 1);
    for (int i = 0; i <= n; i++)
      for (int k = 0; k < 3; k++)
        P[(start[r] + i) * 3 + k] = a[k] + (z[k] - a[k]) * i / n + oa * e1[k] + ob * e2[k];
  }
  start[nr] = np;
  tide_tetmesh *m = NULL;
  int st = tide_mesh_rods(3, np, P, nr, start, NULL, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

static const char *const helix_keys[] = {"center", "radius", "pitch", "turns", "per_turn", NULL};
/* S.helix{center = {x,y,z}, radius =, pitch =, turns =, per_turn = 16} (axis y) */
static int l_helix(lua_State *L) {
  const char *fn = "tide.solid.helix";
  tide_opts o = tide_lua_opts(L, 1, fn, helix_keys);
  double c[3] = {0, 0, 0};
  tide_opt_vec(&o, "center", 3, 3, c);
  double R = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  double p = tide_opt_reqnum(&o, "pitch", -HUGE_VAL, HUGE_VAL);
  double t = tide_opt_reqnum(&o, "turns", 0, 1e4);
  int per = (int)tide_opt_int(&o, "per_turn", 16, 3, 4096);
  tide_tetmesh *m = NULL;
  int st = tide_mesh_helix(c, R, p, t, per, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

static const char *const web_keys[] = {"center", "radius", "rings", "spokes", "per_arc", NULL};
/* S.web{center = {x,y,z}, radius =, rings = 5, spokes = 12, per_arc = 2} (x-y plane) */
static int l_web(lua_State *L) {
  const char *fn = "tide.solid.web";
  tide_opts o = tide_lua_opts(L, 1, fn, web_keys);
  double c[3] = {0, 0, 0};
  tide_opt_vec(&o, "center", 3, 3, c);
  double R = tide_opt_reqnum(&o, "radius", 0, HUGE_VAL);
  int rings = (int)tide_opt_int(&o, "rings", 5, 1, 512);
  int spokes = (int)tide_opt_int(&o, "spokes", 12, 3, 512);
  int per = (int)tide_opt_int(&o, "per_arc", 2, 1, 64);
  tide_tetmesh *m = NULL;
  int st = tide_mesh_web(c, R, rings, spokes, per, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

/* S.merge{m1, m2, ...} -> one mesh holding them all (thin.h tide_thin_merge) */
static int l_merge(lua_State *L) {
  const char *fn = "tide.solid.merge";
  luaL_checktype(L, 1, LUA_TTABLE);
  int n = (int)luaL_len(L, 1);
  if (n < 1) tide_lua_error(L, "%s: give a list of meshes", fn);
  tide_tetmesh **ms = lua_newuserdatauv(L, (size_t)n * sizeof *ms, 0);
  for (int i = 0; i < n; i++) {
    lua_geti(L, 1, i + 1);
    ms[i] = tide_lua_checkmesh(L, -1);
    lua_pop(L, 1);
  }
  tide_tetmesh *m = NULL;
  int st = tide_thin_merge(ms, n, &m);
  push_mesh(L, st, m, fn);
  return 1;
}

/* ------------------------------------------------------------ materials */

static const char *const model_choices[] = {"linear", "rotated_linear",  "neohookean",
                                            "spline", "fixed_corotated", "stvk",
                                            "neohookean_j", "corotational", NULL};

static void set_gravity(lua_State *L, tide_opts *o, tide_tetmesh *m) {
  double g[3] = {0, -9.81, 0};
  if (tide_opt_vec(o, "gravity", m->dim, m->dim, g)) memcpy(m->fem->gravity, g, sizeof g);
  if (m->dim == 2) m->fem->gravity[2] = 0;
  (void)L;
}

static const char *const shell_keys[] = {"model", "E", "nu", "mu", "lambda", "thickness",
                                         "bending", "density", "area_density", "damping",
                                         "gravity", "bend_yield", "bending_model", NULL};
static const char *const bend_model_choices[] = {"hinge", "triangle", "morley", NULL};
/* m:shell{model = "neohookean", E =, nu = 0.3 | mu =, lambda =, thickness =,
 *         bending = E h^3 / (12 (1 - nu^2)), density = 1000 | area_density =,
 *         damping = 0, gravity = {0, -9.81, 0}, bend_yield = 0 [rad],
 *         bending_model = "hinge" | "triangle"} */
static int m_shell(lua_State *L) {
  const char *fn = "TetMesh:shell";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  if (m->surface != TIDE_MESH_SHELL)
    tide_lua_error(L, "%s: needs a triangle surface mesh (this one is a %s mesh)", fn,
                   m->surface == TIDE_MESH_ROD ? "rod" : "volume");
  tide_opts o = tide_lua_opts(L, 2, fn, shell_keys);
  int model = tide_opt_choice(&o, "model", "neohookean", model_choices);
  if (model == TIDE_MODEL_COUNT) model = TIDE_MODEL_ROTATED_LINEAR;
  double mu, lambda, E, nu;
  int has_l = tide_opt_has(&o, "mu") || tide_opt_has(&o, "lambda");
  if (has_l && (tide_opt_has(&o, "E") || tide_opt_has(&o, "nu")))
    tide_lua_error(L, "%s: give either E and nu or mu and lambda", fn);
  if (has_l) {
    mu = tide_opt_reqnum(&o, "mu", 0, HUGE_VAL);
    lambda = tide_opt_reqnum(&o, "lambda", -mu, HUGE_VAL);
    E = mu * (3 * lambda + 2 * mu) / (lambda + mu);
    nu = lambda / (2 * (lambda + mu));
  } else {
    E = tide_opt_reqnum(&o, "E", 0, HUGE_VAL);
    nu = tide_opt_num(&o, "nu", 0.3, -0.999, 0.499);
    tide_lame(E, nu, &lambda, &mu);
  }
  tide_thin_params p;
  memset(&p, 0, sizeof p);
  p.kind = TIDE_THIN_SHELL;
  p.mat = tide_material_default(model, mu, lambda);
  p.thickness = tide_opt_reqnum(&o, "thickness", 0, HUGE_VAL);
  double h = p.thickness;
  p.bending = tide_opt_num(&o, "bending", E * h * h * h / (12 * (1 - nu * nu)), 0, HUGE_VAL);
  if (tide_opt_has(&o, "area_density") && tide_opt_has(&o, "density"))
    tide_lua_error(L, "%s: give density [kg/m^3] or area_density [kg/m^2], not both", fn);
  p.density = tide_opt_has(&o, "area_density") ? tide_opt_num(&o, "area_density", 0, 0, HUGE_VAL)
                                                : h * tide_opt_num(&o, "density", 1000, 0, HUGE_VAL);
  p.damping = tide_opt_num(&o, "damping", 0, 0, HUGE_VAL);
  p.bend_yield = tide_opt_num(&o, "bend_yield", 0, 0, M_PI);
  {
    static const int bend_models[] = {TIDE_BEND_HINGE, TIDE_BEND_TRIANGLE, TIDE_BEND_MORLEY};
    p.bend_model = bend_models[tide_opt_choice(&o, "bending_model", "hinge", bend_model_choices)];
  }
  p.poisson = nu;
  tide_lua_check(L, tide_thin_attach(m, &p), fn);
  set_gravity(L, &o, m);
  tide_lua_gcaccount(L);
  lua_settop(L, 1);
  return 1;
}

static const char *const rod_keys[] = {"E", "radius", "EA", "EI", "density", "line_density",
                                       "damping", "gravity", "twist", NULL};
/* m:rod{E =, radius = | EA =, EI =, density = 1000 | line_density =, damping = 0,
 *       twist = 0 (GJ [N m^2], 3D geometric torsion), gravity = {0, -9.81[, 0]}}: circular cross-section of radius r:
 *       EA = E pi r^2, EI = E pi r^4 / 4, mass per length density pi r^2 */
static int m_rod(lua_State *L) {
  const char *fn = "TetMesh:rod";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  if (m->surface != TIDE_MESH_ROD)
    tide_lua_error(L, "%s: needs a segment (rod) mesh (this one is a %s mesh)", fn,
                   m->surface == TIDE_MESH_SHELL ? "surface" : "volume");
  tide_opts o = tide_lua_opts(L, 2, fn, rod_keys);
  tide_thin_params p;
  memset(&p, 0, sizeof p);
  p.kind = TIDE_THIN_ROD;
  double r = tide_opt_num(&o, "radius", 0, 0, HUGE_VAL);
  int has_e = tide_opt_has(&o, "E");
  if (has_e && !(r > 0)) tide_lua_error(L, "%s: E needs the radius of the cross-section", fn);
  double E = has_e ? tide_opt_reqnum(&o, "E", 0, HUGE_VAL) : 0, A = M_PI * r * r;
  if (!has_e && !(tide_opt_has(&o, "EA") && tide_opt_has(&o, "EI")))
    tide_lua_error(L, "%s: give E and radius, or EA and EI", fn);
  p.stretch = tide_opt_num(&o, "EA", E * A, 0, HUGE_VAL);
  p.bending = tide_opt_num(&o, "EI", E * M_PI * r * r * r * r / 4, 0, HUGE_VAL);
  if (tide_opt_has(&o, "line_density") && tide_opt_has(&o, "density"))
    tide_lua_error(L, "%s: give density [kg/m^3] or line_density [kg/m], not both", fn);
  if (tide_opt_has(&o, "line_density"))
    p.density = tide_opt_num(&o, "line_density", 0, 0, HUGE_VAL);
  else if (r > 0)
    p.density = A * tide_opt_num(&o, "density", 1000, 0, HUGE_VAL);
  else
    tide_lua_error(L, "%s: line_density [kg/m] (or radius and density) required", fn);
  p.damping = tide_opt_num(&o, "damping", 0, 0, HUGE_VAL);
  p.twist = tide_opt_num(&o, "twist", 0, 0, HUGE_VAL);
  tide_lua_check(L, tide_thin_attach(m, &p), fn);
  set_gravity(L, &o, m);
  tide_lua_gcaccount(L);
  lua_settop(L, 1);
  return 1;
}

/* 1-based copies of the stencils of all parts of one kind, set w */
static int push_stencils(lua_State *L, int kind, int w, const char *fn) {
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  const tide_thin *t = m->fem ? m->fem->thin : NULL;
  int nn = kind == TIDE_THIN_SHELL ? 4 : 3;
  int64_t total = 0;
  for (int i = 0; t && i < t->nparts; i++)
    if (t->parts[i].p.kind == kind) total += t->parts[i].n2;
  tide_array *a = tide_array_new2(TIDE_I32, total, nn);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, fn);
  int32_t *q = TIDE_I32P(a);
  for (int i = 0; t && i < t->nparts; i++)
    if (t->parts[i].p.kind == kind) {
      const int32_t *s = TIDE_I32P(t->parts[i].s2);
      for (int64_t k = 0; k < t->parts[i].n2 * nn; k++) *q++ = s[k] + 1;
    }
  (void)w;
  tide_lua_pusharray(L, a);
  return 1;
}

/* m:hinges() -> Array (nh, 4) i32 (edge nodes, then the two wings), 1-based */
static int m_hinges(lua_State *L) { return push_stencils(L, TIDE_THIN_SHELL, 2, "TetMesh:hinges"); }
/* m:bends() -> Array (nb, 3) i32 (previous, middle, next node), 1-based */
static int m_bends(lua_State *L) { return push_stencils(L, TIDE_THIN_ROD, 2, "TetMesh:bends"); }

/* m:intersections() -> count, {edge nodes} | nil, {triangle nodes} | nil:
 * segment-triangle intersections of the mesh's edges and its triangles at
 * the current positions (pairs sharing a node excluded), the first one's
 * nodes 1-based (3D meshes) */
static int m_intersections(lua_State *L) {
  const char *fn = "TetMesh:intersections";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  int64_t cnt, fe, ft, ne;
  int32_t *E;
  tide_lua_check(L, tide_mesh_intersections(m, TIDE_F64P(m->x), &cnt, &fe, &ft), fn);
  lua_pushinteger(L, cnt);
  if (!cnt) return 1;
  tide_lua_check(L, tide_mesh_edges(m, &ne, &E), fn);
  lua_createtable(L, 2, 0);
  for (int k = 0; k < 2; k++) {
    lua_pushinteger(L, E[fe * 2 + k] + 1);
    lua_rawseti(L, -2, k + 1);
  }
  tide_free(E, (size_t)(ne > 0 ? ne : 1) * 2 * sizeof(int32_t));
  lua_createtable(L, 3, 0);
  for (int k = 0; k < 3; k++) {
    lua_pushinteger(L, TIDE_I32P(m->bound)[ft * 3 + k] + 1);
    lua_rawseti(L, -2, k + 1);
  }
  return 3;
}

static const luaL_Reg thin_funcs[] = {{"sheet", l_sheet},   {"disc", l_disc},     {"rod", l_rod},
                                      {"polyline", l_polyline}, {"bundle", l_bundle},
                                      {"helix", l_helix},   {"web", l_web},       {"merge", l_merge},
                                      {NULL, NULL}};
static const luaL_Reg thin_methods[] = {
    {"shell", m_shell},   {"rod", m_rod}, {"hinges", m_hinges}, {"bends", m_bends},
    {"intersections", m_intersections}, {NULL, NULL}};

void tide_lua_solid_thin_open(lua_State *L, int methods, int module) {
  lua_pushvalue(L, methods);
  luaL_setfuncs(L, thin_methods, 0);
  lua_pop(L, 1);
  lua_pushvalue(L, module);
  luaL_setfuncs(L, thin_funcs, 0);
  lua_pop(L, 1);
}
