/*
 * lua_solid_ckpt.c -- checkpoint hooks of tide.TetMesh (see docs/output.md
 * "Checkpoints").  State table:
 *   dim, nper, rest (nv, d), x (nv, d), v (nv, d), elements (ne, nper) i32
 *   1-based, Dminv (ne, d, d) and rest_volume (ne) (volume meshes), and with
 *   a material: material = {model, mu, lambda, gamma, spline_lo, spline_hi,
 *   spline_klo, spline_khi, fiber_k, fiber {3}, damping_alpha,
 *   damping_beta, density, gravity {3}, rayleigh_mass, rayleigh_stiffness,
 *   mass (nv), pinned u8 (nv), target (nv, d), force (nv, d), rotations
 *   (ne, d, d), contact_force (nv), contact_collider i32 (nv) (the lag of
 *   step_newton's friction; absent in older checkpoints)[, fibers (ne, d)][, plasticity = {yield, limit, isochoric, Fpinv,
 *   Dminv_eff[, goal]}]}.
 * Integrator workspaces (matrices, factorizations, the corotational Kt) are
 * rebuilt on the next step; they hold no state that changes its result.
 */
#include "grid/lua_grid_ckpt.h"
#include "solid/fem.h"
#include "solid/thin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FN "tide.fileio.restore (tide.TetMesh)"

static void push_material(lua_State *L, const tide_tetmesh *m) {
  const tide_fem *f = m->fem;
  const tide_material *t = &f->mat;
  lua_createtable(L, 0, 24);
  lua_pushstring(L, tide_model_name(t->model));
  lua_setfield(L, -2, "model");
  tide_ckpt_setnum(L, "mu", t->mu);
  tide_ckpt_setnum(L, "lambda", t->lambda);
  tide_ckpt_setnum(L, "gamma", t->gamma);
  tide_ckpt_setnum(L, "spline_lo", t->spline_lo);
  tide_ckpt_setnum(L, "spline_hi", t->spline_hi);
  tide_ckpt_setnum(L, "spline_klo", t->spline_klo);
  tide_ckpt_setnum(L, "spline_khi", t->spline_khi);
  tide_ckpt_setnum(L, "fiber_k", t->fiber_k);
  tide_ckpt_setvec(L, "fiber", t->fiber, 3);
  tide_ckpt_setnum(L, "damping_alpha", t->damp_alpha);
  tide_ckpt_setnum(L, "damping_beta", t->damp_beta);
  lua_pushboolean(L, t->plane_stress);
  lua_setfield(L, -2, "plane_stress");
  tide_ckpt_setnum(L, "density", f->rho);
  tide_ckpt_setvec(L, "gravity", f->gravity, 3);
  tide_ckpt_setnum(L, "rayleigh_mass", f->tau_m);
  tide_ckpt_setnum(L, "rayleigh_stiffness", f->tau_k);
  tide_ckpt_setarray(L, "mass", f->mass);
  tide_ckpt_setarray(L, "pinned", f->pinned);
  tide_ckpt_setarray(L, "target", f->target);
  tide_ckpt_setarray(L, "force", f->force);
  tide_ckpt_setarray(L, "rotations", f->R);
  tide_ckpt_setarray(L, "contact_force", f->contact_force);
  tide_ckpt_setarray(L, "contact_collider", f->contact_collider);
  tide_ckpt_setarray(L, "fibers", f->fiber);
  if (f->Fpinv) {
    lua_createtable(L, 0, 5);
    tide_ckpt_setnum(L, "yield", f->yield);
    tide_ckpt_setnum(L, "limit", f->plastic_limit);
    lua_pushboolean(L, f->isochoric);
    lua_setfield(L, -2, "isochoric");
    tide_ckpt_setarray(L, "Fpinv", f->Fpinv);
    tide_ckpt_setarray(L, "Dminv_eff", f->Dminv_eff);
    tide_ckpt_setarray(L, "goal", f->Fpgoal);
    lua_setfield(L, -2, "plasticity");
  }
  lua_setfield(L, -2, "material");
}

static int mesh_checkpoint(lua_State *L) {
  tide_tetmesh *m = tide_lua_checkobj(L, 1, TIDE_TETMESH_T);
  if (m->fem && m->fem->thin)
    tide_lua_error(L, "checkpoint: meshes with shells or rods cannot be checkpointed yet");
  lua_createtable(L, 0, 10);
  tide_ckpt_setint(L, "dim", m->dim);
  tide_ckpt_setint(L, "nper", m->nper);
  tide_ckpt_setarray(L, "rest", m->rest);
  tide_ckpt_setarray(L, "x", m->x);
  tide_ckpt_setarray(L, "v", m->v);
  tide_array *e = tide_array_new2(TIDE_I32, m->ne, m->nper); /* 1-based, as m:elements() */
  if (!e) tide_lua_check(L, TIDE_ENOMEM, "TetMesh checkpoint");
  const int32_t *src = TIDE_I32P(m->elem);
  int32_t *dst = TIDE_I32P(e);
  for (int64_t k = 0; k < m->ne * m->nper; k++) dst[k] = src[k] + 1;
  tide_lua_pusharray(L, e);
  lua_setfield(L, -2, "elements");
  tide_ckpt_setarray(L, "Dminv", m->Dminv);
  tide_ckpt_setarray(L, "rest_volume", m->vol);
  if (m->fem) push_material(L, m);
  return 1;
}

static const char *const plastic_keys[] = {"yield", "limit", "isochoric", "Fpinv", "Dminv_eff", "goal", NULL};
static const char *const mat_keys[] = {
    "model",        "mu",       "lambda",        "gamma",         "spline_lo",          "spline_hi",
    "spline_klo",   "spline_khi", "fiber_k",     "fiber",         "damping_alpha",      "damping_beta",
    "density",      "gravity",  "rayleigh_mass", "rayleigh_stiffness", "mass",          "pinned",
    "target",       "force",    "rotations",     "fibers",        "plasticity",
    "contact_force", "contact_collider", "plane_stress", NULL};

/* the material table at idx onto the new mesh m (anchored on the stack) */
static void restore_material(lua_State *L, int idx, tide_tetmesh *m) {
  const char *fn = FN " material";
  idx = lua_absindex(L, idx);
  tide_ckpt_keys(L, idx, fn, mat_keys);
  if (m->surface) tide_lua_error(L, "%s: a surface mesh cannot have a material", fn);
  int d = m->dim;
  if (lua_getfield(L, idx, "model") != LUA_TSTRING)
    tide_lua_error(L, "%s: field 'model' must be a string", fn);
  tide_material t;
  memset(&t, 0, sizeof t);
  t.model = -1;
  for (int k = 0; k < TIDE_MODEL_COUNT; k++)
    if (!strcmp(tide_model_name(k), lua_tostring(L, -1))) t.model = k;
  if (t.model < 0) tide_lua_error(L, "%s: unknown model '%s'", fn, lua_tostring(L, -1));
  lua_pop(L, 1);
  const double H = HUGE_VAL;
  t.mu = tide_ckpt_num(L, idx, fn, "mu", 0, H);
  t.lambda = tide_ckpt_num(L, idx, fn, "lambda", -H, H);
  t.gamma = tide_ckpt_num(L, idx, fn, "gamma", -H, H);
  t.spline_lo = tide_ckpt_num(L, idx, fn, "spline_lo", -H, H);
  t.spline_hi = tide_ckpt_num(L, idx, fn, "spline_hi", -H, H);
  t.spline_klo = tide_ckpt_num(L, idx, fn, "spline_klo", -H, H);
  t.spline_khi = tide_ckpt_num(L, idx, fn, "spline_khi", -H, H);
  t.fiber_k = tide_ckpt_num(L, idx, fn, "fiber_k", 0, H);
  tide_ckpt_vec(L, idx, fn, "fiber", 3, t.fiber);
  t.damp_alpha = tide_ckpt_num(L, idx, fn, "damping_alpha", 0, H);
  t.damp_beta = tide_ckpt_num(L, idx, fn, "damping_beta", 0, H);
  lua_getfield(L, idx, "plane_stress"); /* absent in checkpoints of older versions */
  int has_ps = !lua_isnil(L, -1);
  lua_pop(L, 1);
  t.plane_stress = has_ps ? tide_ckpt_bool(L, idx, fn, "plane_stress") : 0;
  double rho = tide_ckpt_num(L, idx, fn, "density", 0, H);
  double g[3];
  tide_ckpt_vec(L, idx, fn, "gravity", 3, g);
  double tm = tide_ckpt_num(L, idx, fn, "rayleigh_mass", 0, H);
  double tk = tide_ckpt_num(L, idx, fn, "rayleigh_stiffness", 0, H);
  int64_t s1[1] = {m->nv}, s2[2] = {m->nv, d}, se[3] = {m->ne, d, d}, sf[2] = {m->ne, d};
  tide_array *mass = tide_ckpt_array(L, idx, fn, "mass", TIDE_F64, 1, s1, 1, 0);
  tide_array *pinned = tide_ckpt_array(L, idx, fn, "pinned", TIDE_U8, 1, s1, 0, 0);
  tide_array *target = tide_ckpt_array(L, idx, fn, "target", TIDE_F64, 2, s2, 1, 0);
  tide_array *force = tide_ckpt_array(L, idx, fn, "force", TIDE_F64, 2, s2, 1, 0);
  tide_array *rot = tide_ckpt_array(L, idx, fn, "rotations", TIDE_F64, 3, se, 1, 0);
  tide_array *fib = tide_ckpt_array(L, idx, fn, "fibers", TIDE_F64, 2, sf, 1, 1);
  tide_array *cf = tide_ckpt_array(L, idx, fn, "contact_force", TIDE_F64, 1, s1, 1, 1);
  tide_array *cc = tide_ckpt_array(L, idx, fn, "contact_collider", TIDE_I32, 1, s1, 0, 1);
  for (int64_t i = 0; i < m->nv; i++)
    if (TIDE_U8P(pinned)[i] > 1)
      tide_lua_error(L, "%s: field 'pinned' must hold 0 or 1, got %d at node %I", fn,
                     (int)TIDE_U8P(pinned)[i], (lua_Integer)i + 1);
  for (int64_t i = 0; i < m->nv; i++)
    if (!(TIDE_F64P(mass)[i] >= 0))
      tide_lua_error(L, "%s: field 'mass' is negative at node %I", fn, (lua_Integer)i + 1);
  tide_array *Fpinv = NULL, *Dme = NULL, *goal = NULL;
  double yield = 0, limit = 0;
  int isochoric = 0;
  int t_pl = lua_getfield(L, idx, "plasticity");
  if (t_pl != LUA_TNIL) {
    const char *fp = FN " plasticity";
    tide_ckpt_keys(L, -1, fp, plastic_keys);
    yield = tide_ckpt_num(L, -1, fp, "yield", 0, H);
    limit = tide_ckpt_num(L, -1, fp, "limit", 1, H);
    lua_getfield(L, -1, "isochoric"); /* absent in checkpoints of older versions */
    isochoric = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (isochoric) isochoric = tide_ckpt_bool(L, -1, fp, "isochoric");
    Fpinv = tide_ckpt_array(L, -1, fp, "Fpinv", TIDE_F64, 3, se, 1, 0);
    Dme = tide_ckpt_array(L, -1, fp, "Dminv_eff", TIDE_F64, 3, se, 1, 0);
    goal = tide_ckpt_array(L, -1, fp, "goal", TIDE_F64, 3, se, 1, 1);
  }
  lua_pop(L, 1); /* the arrays stay referenced by the state table */
  tide_lua_check(L, tide_fem_attach(m, &t, rho), fn);
  tide_fem *f = m->fem;
  f->tau_m = tm;
  f->tau_k = tk;
  memcpy(f->gravity, g, sizeof g);
  if (d == 2) f->gravity[2] = 0;
  tide_ckpt_copy(f->mass, mass);
  tide_ckpt_copy(f->pinned, pinned);
  tide_ckpt_copy(f->target, target);
  tide_ckpt_copy(f->force, force);
  tide_ckpt_copy(f->R, rot);
  if (cf) tide_ckpt_copy(f->contact_force, cf);
  if (cc) tide_ckpt_copy(f->contact_collider, cc);
  if (fib) {
    tide_lua_check(L, tide_fem_set_fibers(m, TIDE_F64P(fib)), fn);
    tide_ckpt_copy(f->fiber, fib); /* exactly as stored (already unit length) */
  }
  if (Fpinv) {
    tide_lua_check(L, tide_fem_set_plasticity(m, yield, limit, goal ? TIDE_F64P(goal) : NULL,
                                                      isochoric), fn);
    tide_ckpt_copy(f->Fpinv, Fpinv);
    tide_ckpt_copy(f->Dminv_eff, Dme);
    if (goal) tide_ckpt_copy(f->Fpgoal, goal);
  }
}

static const char *const mesh_keys[] = {"dim",   "nper",        "rest",     "x",        "v",
                                        "elements", "Dminv",   "rest_volume", "material", NULL};

static int mesh_restore(lua_State *L) {
  const char *fn = FN;
  tide_ckpt_keys(L, 1, fn, mesh_keys);
  int d = (int)tide_ckpt_int(L, 1, fn, "dim", 2, 3);
  int nper = (int)tide_ckpt_int(L, 1, fn, "nper", 3, 4);
  if (nper != d + 1 && !(d == 3 && nper == 3))
    tide_lua_error(L, "%s: %d nodes per element in %dD (expected %d%s)", fn, nper, d, d + 1,
                   d == 3 ? " or 3 for a surface" : "");
  int64_t sx[2] = {-1, d};
  tide_array *rest = tide_ckpt_array(L, 1, fn, "rest", TIDE_F64, 2, sx, 1, 0);
  int64_t nv = rest->shape[0];
  if (nv > INT32_MAX) tide_lua_error(L, "%s: too many nodes", fn);
  sx[0] = nv;
  tide_array *x = tide_ckpt_array(L, 1, fn, "x", TIDE_F64, 2, sx, 1, 0);
  tide_array *v = tide_ckpt_array(L, 1, fn, "v", TIDE_F64, 2, sx, 1, 0);
  int64_t se[2] = {-1, nper};
  tide_array *el = tide_ckpt_array(L, 1, fn, "elements", TIDE_I32, 2, se, 0, 0);
  int64_t ne = el->shape[0];
  const int32_t *ev = TIDE_I32P(el);
  int32_t *e0 = lua_newuserdatauv(L, (size_t)(ne * nper > 0 ? ne * nper : 1) * sizeof(int32_t), 0);
  for (int64_t k = 0; k < ne * nper; k++) {
    if (ev[k] < 1 || ev[k] > nv)
      tide_lua_error(L, "%s: element %I refers to node %d outside 1..%I", fn,
                     (lua_Integer)(k / nper) + 1, (int)ev[k], (lua_Integer)nv);
    e0[k] = ev[k] - 1;
  }
  int vm = !(d == 3 && nper == 3);
  int64_t sd[3] = {ne, d, d}, sv[1] = {ne};
  tide_array *Dm = tide_ckpt_array(L, 1, fn, "Dminv", TIDE_F64, 3, sd, 1, !vm);
  tide_array *vol = tide_ckpt_array(L, 1, fn, "rest_volume", TIDE_F64, 1, sv, 1, !vm);
  tide_tetmesh *m = NULL;
  tide_lua_check(L, tide_tetmesh_new(d, nper, nv, TIDE_F64P(rest), ne, e0, "checkpoint", NULL, &m),
                 fn);
  tide_lua_pushobj(L, TIDE_TETMESH_T, m); /* owns m from here on */
  tide_ckpt_copy(m->x, x);
  tide_ckpt_copy(m->v, v);
  /* the stored rest-shape data, exactly (e.g. after writes to m.rest) */
  if (Dm && m->Dminv) tide_ckpt_copy(m->Dminv, Dm);
  if (vol && m->vol) {
    for (int64_t e = 0; e < ne; e++)
      if (!(TIDE_F64P(vol)[e] > 0))
        tide_lua_error(L, "%s: field 'rest_volume' is not positive at element %I", fn,
                       (lua_Integer)e + 1);
    tide_ckpt_copy(m->vol, vol);
  }
  if (lua_getfield(L, 1, "material") != LUA_TNIL) restore_material(L, -1, m);
  lua_pop(L, 1);
  tide_lua_gcaccount(L);
  return 1;
}

void tide_lua_shape_ckpt_open(lua_State *L); /* modules/grid/lua_grid_ckpt_shape.c */

/* called by luaopen_tide_solid after the metatable exists */
void tide_lua_solid_ckpt_open(lua_State *L) {
  tide_lua_shape_ckpt_open(L); /* tide.solid.shape hands out shapes too */
  luaL_getmetatable(L, TIDE_TETMESH_T);
  lua_pushcfunction(L, mesh_checkpoint);
  lua_setfield(L, -2, "__checkpoint");
  lua_pushcfunction(L, mesh_restore);
  lua_setfield(L, -2, "__restore");
  lua_pop(L, 1);
}
