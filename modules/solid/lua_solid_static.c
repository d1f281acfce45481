/*
 * lua_solid_static.c -- static equilibrium, surface loads and selections of
 * tide.solid as TetMesh methods (solve_static, surface_forces,
 * select_nodes, select_faces).  Registered by lua_solid.c.
 */
#include "solid/integrate.h"
#include "solid/lua_solid.h"
#include "solid/static.h"

#include <string.h>

/* the nodes of a selection as a GC-owned mask (left on the stack) */
static uint8_t *node_mask(lua_State *L, int idx, tide_tetmesh *m, const char *fn) {
  idx = lua_absindex(L, idx);
  uint8_t *mask = lua_newuserdatauv(L, (size_t)m->nv + 1, 0);
  tide_lua_solid_select_nodes(L, idx, m, mask, fn);
  return mask;
}

/* push an Array (k) i32 of the 1-based indices where mask is set */
static void push_indices(lua_State *L, const uint8_t *mask, int64_t n, const char *fn) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    k += mask[i] != 0;
  tide_array *a = tide_array_new1(TIDE_I32, k);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, fn);
  int32_t *p = TIDE_I32P(a);
  for (int64_t i = 0, j = 0; i < n; i++)
    if (mask[i]) p[j++] = (int32_t)(i + 1);
  tide_lua_pusharray(L, a);
}

/* boundary faces all of whose nodes are in the node mask */
static void faces_of_nodes(const tide_tetmesh *m, const uint8_t *nodes, uint8_t *faces) {
  const int32_t *b = TIDE_I32P(m->bound);
  for (int64_t f = 0; f < m->nb; f++) {
    int in = 1;
    for (int a = 0; a < m->dim; a++)
      in &= nodes[b[f * m->dim + a]] != 0;
    faces[f] = (uint8_t)in;
  }
}

/* m:select_nodes(selection) -> Array (k) i32 of 1-based node indices */
static int m_select_nodes(lua_State *L) {
  const char *fn = "TetMesh:select_nodes";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  uint8_t *mask = node_mask(L, 2, m, fn);
  push_indices(L, mask, m->nv, fn);
  return 1;
}

/* m:select_faces(selection) -> Array (k) i32 of 1-based boundary face
 * indices (rows of m:boundary()) whose nodes are all selected */
static int m_select_faces(lua_State *L) {
  const char *fn = "TetMesh:select_faces";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  uint8_t *mask = node_mask(L, 2, m, fn);
  uint8_t *fm = lua_newuserdatauv(L, (size_t)m->nb + 1, 0);
  faces_of_nodes(m, mask, fm);
  push_indices(L, fm, m->nb, fn);
  return 1;
}

/* a face set at idx: an Array / list of 1-based face indices, or a node
 * selection (faces with all nodes selected); returns 0-based indices in a
 * GC-owned buffer left on the stack */
static int32_t *face_set(lua_State *L, int idx, tide_tetmesh *m, int64_t *n, const char *fn) {
  idx = lua_absindex(L, idx);
  tide_array *a = tide_lua_testarray(L, idx);
  int list = !a && lua_istable(L, idx) && lua_rawlen(L, idx) > 0;
  if (a || list) {
    int64_t k = a ? tide_array_size(a) : (int64_t)lua_rawlen(L, idx);
    int32_t *out = lua_newuserdatauv(L, (size_t)(k + 1) * sizeof(int32_t), 0);
    for (int64_t i = 0; i < k; i++) {
      double v;
      if (a) {
        v = tide_array_getlin(a, i);
      } else {
        lua_geti(L, idx, i + 1);
        if (!lua_isnumber(L, -1))
          tide_lua_error(L, "%s: faces[%I] is not a number", fn, (lua_Integer)i + 1);
        v = lua_tonumber(L, -1);
        lua_pop(L, 1);
      }
      if (v != floor(v) || v < 1 || v > (double)m->nb)
        tide_lua_error(L, "%s: boundary face index %f outside 1..%I", fn, v, (lua_Integer)m->nb);
      out[i] = (int32_t)v - 1;
    }
    *n = k;
    return out;
  }
  uint8_t *mask = node_mask(L, idx, m, fn);
  uint8_t *fm = lua_newuserdatauv(L, (size_t)m->nb + 1, 0);
  faces_of_nodes(m, mask, fm);
  int64_t k = 0;
  for (int64_t f = 0; f < m->nb; f++)
    k += fm[f];
  int32_t *out = lua_newuserdatauv(L, (size_t)(k + 1) * sizeof(int32_t), 0);
  for (int64_t f = 0, j = 0; f < m->nb; f++)
    if (fm[f]) out[j++] = (int32_t)f;
  *n = k;
  return out;
}

static const char *const load_keys[] = {"faces", "traction", "pressure", "follower", NULL};
/* loads = { {faces = sel, traction = {..}} | {faces = sel, pressure = p, follower = false}, ... }
 * into a GC-owned array (left on the stack) */
static tide_surface_load *get_loads(lua_State *L, tide_opts *o, tide_tetmesh *m, int *n) {
  *n = 0;
  lua_getfield(L, o->idx, "loads");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return NULL;
  }
  if (!lua_istable(L, -1))
    tide_lua_error(L, "%s: loads must be a list of {faces =, traction = | pressure =}", o->fname);
  int li = lua_gettop(L);
  lua_Integer k = luaL_len(L, li);
  if (k > 100000) tide_lua_error(L, "%s: too many loads", o->fname);
  tide_surface_load *ls = lua_newuserdatauv(L, (size_t)(k + 1) * sizeof *ls, 0);
  memset(ls, 0, (size_t)(k + 1) * sizeof *ls);
  lua_createtable(L, (int)k, 0); /* li + 2: anchors the face buffers */
  for (lua_Integer i = 1; i <= k; i++) {
    lua_geti(L, li, i);
    if (!lua_istable(L, -1)) tide_lua_error(L, "%s: loads[%I] is not a table", o->fname, i);
    char name[64];
    snprintf(name, sizeof name, "%s loads[%d]", o->fname, (int)i);
    tide_opts lo = tide_lua_opts(L, lua_gettop(L), name, load_keys);
    lo.fname = o->fname;
    int ht = tide_opt_has(&lo, "traction"), hp = tide_opt_has(&lo, "pressure");
    if (ht == hp) tide_lua_error(L, "%s: loads[%I] needs either traction or pressure", o->fname, i);
    tide_surface_load *l = ls + i - 1;
    if (ht) {
      l->kind = TIDE_LOAD_TRACTION;
      tide_opt_vec(&lo, "traction", m->dim, m->dim, l->value);
      if (tide_opt_has(&lo, "follower"))
        tide_lua_error(L, "%s: loads[%I]: follower goes with pressure (a traction is dead)",
                       o->fname, i);
    } else {
      l->kind = TIDE_LOAD_PRESSURE;
      l->value[0] = tide_opt_num(&lo, "pressure", 0, -HUGE_VAL, HUGE_VAL);
      l->follower = tide_opt_bool(&lo, "follower", 0);
    }
    lua_getfield(L, -1, "faces");
    if (lua_isnil(L, -1)) tide_lua_error(L, "%s: loads[%I] needs faces", o->fname, i);
    l->faces = face_set(L, -1, m, &l->nfaces, o->fname);
    lua_rawseti(L, li + 2, i); /* anchor the face buffer */
    lua_settop(L, li + 2);
  }
  *n = (int)k;
  return ls;
}

static const char *const fix_keys[] = {"nodes", "components", NULL};
/* fix = selection | { {nodes = sel, components = {1, 3}}, ... } into a
 * (nv*d) mask (GC-owned, left on the stack) */
static uint8_t *get_fixed(lua_State *L, tide_opts *o, tide_tetmesh *m) {
  lua_getfield(L, o->idx, "fix");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return NULL;
  }
  int fi = lua_gettop(L), d = m->dim;
  uint8_t *fx = lua_newuserdatauv(L, (size_t)(m->nv * d) + 1, 0);
  memset(fx, 0, (size_t)(m->nv * d) + 1);
  int spec = 0;
  if (lua_istable(L, fi) && !tide_lua_testarray(L, fi)) {
    lua_geti(L, fi, 1);
    spec = lua_istable(L, -1) && !tide_lua_testarray(L, -1);
    lua_pop(L, 1);
  }
  if (!spec) { /* one node selection: all components */
    uint8_t *mask = node_mask(L, fi, m, o->fname);
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < d; k++)
        fx[i * d + k] = mask[i];
    lua_pop(L, 1);
    lua_remove(L, fi);
    return fx;
  }
  lua_Integer n = luaL_len(L, fi);
  for (lua_Integer j = 1; j <= n; j++) {
    lua_geti(L, fi, j);
    tide_opts so = tide_lua_opts(L, lua_gettop(L), o->fname, fix_keys);
    lua_getfield(L, -1, "nodes");
    if (lua_isnil(L, -1)) tide_lua_error(L, "%s: fix[%I] needs nodes", o->fname, j);
    uint8_t *mask = node_mask(L, -1, m, o->fname);
    double comp[3] = {0, 0, 0};
    int nc = tide_opt_has(&so, "components") ? tide_opt_vec(&so, "components", 1, d, comp) : 0;
    int use[3] = {nc == 0, nc == 0, nc == 0};
    for (int c = 0; c < nc; c++) {
      if (comp[c] != floor(comp[c]) || comp[c] < 1 || comp[c] > d)
        tide_lua_error(L, "%s: fix[%I].components: %f is not a component 1..%d", o->fname, j,
                       comp[c], d);
      use[(int)comp[c] - 1] = 1;
    }
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < d; k++)
        if (mask[i] && use[k]) fx[i * d + k] = 1;
    lua_pop(L, 3); /* mask, nodes, entry */
  }
  lua_remove(L, fi);
  return fx;
}

static void push_static_stats(lua_State *L, const tide_static_stats *s) {
  lua_createtable(L, 0, 10);
  lua_pushboolean(L, s->converged);
  lua_setfield(L, -2, "converged");
  lua_pushinteger(L, s->steps);
  lua_setfield(L, -2, "steps");
  lua_pushinteger(L, s->failed_step);
  lua_setfield(L, -2, "failed_step");
  lua_pushinteger(L, s->iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushinteger(L, s->line_search);
  lua_setfield(L, -2, "line_search");
  lua_pushinteger(L, s->projected);
  lua_setfield(L, -2, "projected");
  lua_pushnumber(L, s->residual);
  lua_setfield(L, -2, "residual");
  lua_pushnumber(L, s->increment);
  lua_setfield(L, -2, "increment");
  lua_pushinteger(L, s->contacts);
  lua_setfield(L, -2, "contacts");
  lua_pushboolean(L, s->stagnated);
  lua_setfield(L, -2, "stagnated");
  lua_pushnumber(L, s->seconds);
  lua_setfield(L, -2, "seconds");
}

static const char *const direct_choices[] = {"auto", "cholmod", "ldlt", NULL};
static const char *const static_keys[] = {"steps",     "maxit",   "tol",        "xtol", "project",
                                          "solver",    "gravity", "body_force", "fix",  "loads",
                                          "colliders", "raise",   NULL};
/* m:solve_static{steps = 1, maxit = 50, tol = 1e-8, xtol = 1e-8, project = false,
 *                solver = "auto", gravity = true, body_force = {..}, fix =, loads =,
 *                colliders =, raise = true} -> stats */
static int m_solve_static(lua_State *L) {
  const char *fn = "TetMesh:solve_static";
  tide_tetmesh *m = tide_lua_checkfem(L, 1, fn);
  if (lua_isnoneornil(L, 2)) { /* m:solve_static() : all defaults */
    lua_settop(L, 1);
    lua_newtable(L);
  }
  tide_opts o = tide_lua_opts(L, 2, fn, static_keys);
  tide_static_opts so = tide_static_opts_default();
  so.steps = (int)tide_opt_int(&o, "steps", 1, 1, 1000000);
  so.maxit = (int)tide_opt_int(&o, "maxit", 50, 1, 100000000);
  so.tol = tide_opt_num(&o, "tol", 1e-6, 0, 1);
  so.xtol = tide_opt_num(&o, "xtol", 1e-8, 0, 1);
  so.project = tide_opt_bool(&o, "project", 0);
  so.solver = tide_opt_choice(&o, "solver", "auto", direct_choices);
  so.gravity = tide_opt_bool(&o, "gravity", 1);
  if (tide_opt_has(&o, "body_force")) tide_opt_vec(&o, "body_force", m->dim, m->dim, so.body);
  int raise = tide_opt_bool(&o, "raise", 1);
  so.fixed = get_fixed(L, &o, m);
  so.loads = get_loads(L, &o, m, &so.nloads);
  so.colliders = tide_lua_solid_colliders(L, &o, &so.ncolliders);
  tide_static_stats st;
  tide_lua_check(L, tide_solid_solve_static(m, &so, &st), fn);
  if (!st.converged && raise) {
    char msg[512];
    if (st.stagnated)
      snprintf(msg, sizeof msg,
               "load step %d of %d: the relative residual stays at %.3g, above tol = %.3g, while "
               "the Newton corrections (relative %.3g) are far below xtol: it is at its rounding "
               "floor; use a larger tol (or raise = false to keep the solution)",
               st.failed_step, so.steps, st.residual, so.tol, st.increment);
    else
      snprintf(msg, sizeof msg,
               "load step %d of %d did not converge (relative residual %.3g, tol %.3g; relative "
               "increment %.3g, xtol %.3g; %d Newton iterations); try more load steps (steps =), "
               "a larger maxit, or raise = false to keep the last iterate",
               st.failed_step, so.steps, st.residual, so.tol, st.increment, so.xtol, st.iterations);
    tide_lua_error(L, "%s: %s", fn, msg);
  }
  push_static_stats(L, &st);
  return 1;
}

static const char *const sforce_keys[] = {"loads", NULL};
/* m:surface_forces{loads = {...}} -> Array (nv, d): the consistent nodal
 * forces of the loads [N] (follower pressures on the current surface) */
static int m_surface_forces(lua_State *L) {
  const char *fn = "TetMesh:surface_forces";
  tide_tetmesh *m = tide_lua_checkmesh(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, sforce_keys);
  int n;
  if (!tide_opt_has(&o, "loads")) tide_lua_error(L, "%s: missing option 'loads'", fn);
  tide_surface_load *ls = get_loads(L, &o, m, &n);
  tide_array *a = tide_array_new2(TIDE_F64, m->nv, m->dim);
  if (!a) tide_lua_check(L, TIDE_ENOMEM, fn);
  tide_lua_pusharray(L, a);
  tide_array_fill(a, 0);
  tide_lua_check(L, tide_solid_surface_forces(m, ls, n, TIDE_F64P(m->x), TIDE_F64P(a)), fn);
  return 1;
}

static const luaL_Reg static_methods[] = {{"solve_static", m_solve_static},
                                          {"surface_forces", m_surface_forces},
                                          {"select_nodes", m_select_nodes},
                                          {"select_faces", m_select_faces},
                                          {NULL, NULL}};

void tide_lua_solid_static_open(lua_State *L, int methods) {
  lua_pushvalue(L, methods);
  luaL_setfuncs(L, static_methods, 0);
  lua_pop(L, 1);
}
