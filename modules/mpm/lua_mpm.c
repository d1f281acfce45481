/* lua_mpm.c -- the Lua module tide.mpm (see mpm.h): argument checks and
 * marshalling only. */
#include "mpm/mpm.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MPM_T "tide.MPM"

static tide_mpm *checkmpm(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, MPM_T); }

static const char *const side_names[] = {"x-", "x+", "y-", "y+", "z-", "z+", NULL};
static const char *const bc_names[] = {"sticky", "slip", "separate", NULL};

/* walls = "separate" (every side) or { ["x-"] = "sticky", ... } */
static void read_walls(lua_State *L, tide_opts *o, tide_mpm *m, const char *fn) {
  lua_getfield(L, o->idx, "walls");
  if (lua_isnil(L, -1)) {
    for (int s = 0; s < 2 * m->dim; s++)
      m->wall_bc[s] = TIDE_MPM_SEPARATE;
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    int bc = luaL_checkoption(L, -1, NULL, bc_names);
    for (int s = 0; s < 2 * m->dim; s++)
      m->wall_bc[s] = bc;
  } else if (lua_istable(L, -1)) {
    for (int s = 0; s < 6; s++)
      m->wall_bc[s] = -1;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -2) != LUA_TSTRING)
        tide_lua_error(L, "%s: walls: keys are sides \"x-\", \"x+\", ...", fn);
      const char *k = lua_tostring(L, -2);
      int s = 0;
      while (side_names[s] && strcmp(side_names[s], k))
        s++;
      if (!side_names[s] || s >= 2 * m->dim)
        tide_lua_error(L, "%s: walls: unknown side '%s'", fn, k);
      if (lua_type(L, -1) != LUA_TSTRING)
        tide_lua_error(L, "%s: walls[\"%s\"]: expected \"sticky\", \"slip\" or \"separate\"", fn,
                       k);
      const char *v = lua_tostring(L, -1);
      int bc = 0;
      while (bc_names[bc] && strcmp(bc_names[bc], v))
        bc++;
      if (!bc_names[bc]) tide_lua_error(L, "%s: walls[\"%s\"]: unknown condition '%s'", fn, k, v);
      m->wall_bc[s] = bc;
      lua_pop(L, 1);
    }
  } else {
    tide_lua_error(L, "%s: walls: expected a condition name or a table of sides", fn);
  }
  lua_pop(L, 1);
}

static const char *const new_keys[] = {"grid",       "order",  "gravity",     "walls", "friction",
                                       "wall_nodes", "sparse", "node_volume", NULL};
/* tide.mpm.new{grid = g, order = 2, gravity = {0, -9.81}, walls = "separate", friction = 0,
 * wall_nodes = 3 (1 with node_volume), sparse = false, node_volume = false} */
static int l_new(lua_State *L) {
  const char *fn = "tide.mpm.new";
  tide_opts o = tide_lua_opts(L, 1, fn, new_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  int order = (int)tide_opt_int(&o, "order", 2, 2, 3);
  double grav[3] = {0, -9.81, 0};
  if (g->dim == 3) grav[1] = -9.81;
  tide_opt_vec(&o, "gravity", g->dim, g->dim, grav);
  double mu = tide_opt_num(&o, "friction", 0, 0, HUGE_VAL);
  int sparse = tide_opt_bool(&o, "sparse", 0);
  int nvol = tide_opt_bool(&o, "node_volume", 0);
  /* a body coupled to a liquid (node_volume) meets the domain walls where
   * the liquid does, one node layer (docs/mpm.md, "MPM in a FLIP liquid") */
  int wn = (int)tide_opt_int(&o, "wall_nodes", nvol ? 1 : 3, 1, 8);
  tide_mpm *m;
  tide_lua_check(L, tide_mpm_new(g, order, &m), fn);
  int st = tide_mpm_set_sparse(m, sparse);
  if (!st) st = tide_mpm_set_node_volume(m, nvol);
  if (st) {
    tide_mpm_free(m);
    tide_lua_check(L, st, fn);
  }
  for (int a = 0; a < 3; a++)
    m->gravity[a] = a < g->dim ? grav[a] : 0;
  m->wall_friction = mu;
  m->wall_nodes = wn;
  tide_lua_pushobj(L, MPM_T, m);
  read_walls(L, &o, m, fn);
  tide_lua_gcaccount(L);
  return 1;
}

static const char *const mat_keys[] = {
    "model",   "E",     "nu",      "mu",      "lambda",    "kappa",          "density",
    "plastic", "gamma", "theta_c", "theta_s", "hardening", "friction_angle", "cone", NULL};
static const char *const plastic_names[] = {"none", "fluid", "snow", "sand", NULL};
static const char *const cone_names[] = {"shear", "plane_strain", "compression", NULL};

/* the model named `name`: every name of tide_model_name, and "corotational" */
static int model_by_name(lua_State *L, const char *fn, const char *name) {
  if (!strcmp(name, "corotational")) return TIDE_MODEL_ROTATED_LINEAR;
  for (int k = 0; k < TIDE_MODEL_COUNT; k++)
    if (tide_model_name(k) && !strcmp(tide_model_name(k), name)) return k;
  return tide_lua_error(L, "%s: unknown model '%s'", fn, name);
}

/* M:material{model = "fixed_corotated", E =, nu = | mu =, lambda = | kappa = (fluid),
 *   density = 1000, plastic = "none" | "fluid" | "snow" | "sand", theta_c, theta_s,
 *   hardening, friction_angle (degrees), cone = "shear" | "plane_strain" | "compression"}
 *   -> material index (1-based) */
static int m_material(lua_State *L) {
  const char *fn = "MPM:material";
  tide_mpm *m = checkmpm(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, mat_keys);
  tide_mpm_material mt;
  memset(&mt, 0, sizeof mt);
  mt.plastic = tide_opt_choice(&o, "plastic", "none", plastic_names);
  double mu = 0, lambda = 0;
  if (mt.plastic == TIDE_MPM_FLUID) {
    if (tide_opt_has(&o, "E") || tide_opt_has(&o, "mu") || tide_opt_has(&o, "model"))
      tide_lua_error(L, "%s: a fluid takes kappa (bulk modulus) only", fn);
    lambda = tide_opt_reqnum(&o, "kappa", 0, HUGE_VAL);
    mt.elastic = tide_material_default(TIDE_MODEL_FIXED_COROTATED, 0, lambda);
  } else {
    const char *mn = tide_opt_str(&o, "model", "fixed_corotated");
    int model = model_by_name(L, fn, mn);
    int has_e = tide_opt_has(&o, "E") || tide_opt_has(&o, "nu");
    int has_l = tide_opt_has(&o, "mu") || tide_opt_has(&o, "lambda");
    if (has_e && has_l) tide_lua_error(L, "%s: give either E and nu or mu and lambda", fn);
    if (tide_opt_has(&o, "kappa"))
      tide_lua_error(L, "%s: kappa is for fluids (plastic = \"fluid\")", fn);
    if (has_l) {
      mu = tide_opt_reqnum(&o, "mu", 0, HUGE_VAL);
      lambda = tide_opt_reqnum(&o, "lambda", -mu, HUGE_VAL);
    } else {
      double E = tide_opt_reqnum(&o, "E", 0, HUGE_VAL);
      double nu = tide_opt_num(&o, "nu", 0.3, -0.999, 0.499);
      tide_lame(E, nu, &lambda, &mu);
    }
    mt.elastic = tide_material_default(model, mu, lambda);
    mt.elastic.gamma = tide_opt_num(&o, "gamma", mt.elastic.gamma, 1e-6, 1 - 1e-6);
  }
  mt.rho = tide_opt_num(&o, "density", 1000, 1e-12, HUGE_VAL);
  mt.theta_c = tide_opt_num(&o, "theta_c", 2.5e-2, 1e-9, 1 - 1e-9);
  mt.theta_s = tide_opt_num(&o, "theta_s", 7.5e-3, 1e-9, HUGE_VAL);
  mt.xi = tide_opt_num(&o, "hardening", 10, 0, 100);
  mt.friction_angle = tide_opt_num(&o, "friction_angle", 30, 1e-3, 89.999) * M_PI / 180;
  mt.cone = tide_opt_choice(&o, "cone", "shear", cone_names);
  int idx;
  tide_lua_check(L, tide_mpm_add_material(m, &mt, &idx), fn);
  lua_pushinteger(L, idx + 1);
  return 1;
}

static const char *const seed_keys[] = {"shape",    "material",          "per_cell", "jitter",
                                        "velocity", "velocity_gradient", "stream",   NULL};
/* M:seed{shape = tide.shape..., material = 1, per_cell = 4, jitter = 1, velocity = {..},
 *   velocity_gradient = {{..}, {..}}, stream = 0} -> particles added */
static int m_seed(lua_State *L) {
  const char *fn = "MPM:seed";
  tide_mpm *m = checkmpm(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, seed_keys);
  tide_shape *s = tide_opt_reqobj(&o, "shape", TIDE_SHAPE_T);
  int mat = (int)tide_opt_int(&o, "material", 1, 1, m->nmat > 0 ? m->nmat : 1) - 1;
  if (m->nmat == 0) tide_lua_error(L, "%s: define a material first (MPM:material{...})", fn);
  int per = (int)tide_opt_int(&o, "per_cell", m->dim == 3 ? 8 : 4, 1, 64);
  double jit = tide_opt_num(&o, "jitter", 1, 0, 1);
  uint64_t stream = (uint64_t)tide_opt_int(&o, "stream", 0, 0, LUA_MAXINTEGER);
  double vel[3] = {0, 0, 0}, gv[9] = {0};
  int hv = tide_opt_vec(&o, "velocity", m->dim, m->dim, vel);
  int hg = 0;
  lua_getfield(L, o.idx, "velocity_gradient");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1))
      tide_lua_error(L, "%s: velocity_gradient: expected a %dx%d table of rows", fn, m->dim,
                     m->dim);
    for (int a = 0; a < m->dim; a++) {
      lua_rawgeti(L, -1, a + 1);
      for (int b = 0; b < m->dim; b++) {
        lua_rawgeti(L, -1, b + 1);
        if (!lua_isnumber(L, -1) || !isfinite(lua_tonumber(L, -1)))
          tide_lua_error(L, "%s: velocity_gradient[%d][%d]: expected a finite number", fn, a + 1,
                         b + 1);
        gv[a * m->dim + b] = lua_tonumber(L, -1);
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
    }
    hg = 1;
  }
  lua_pop(L, 1);
  int64_t added = 0;
  tide_lua_check(
      L, tide_mpm_seed(m, s, per, jit, stream, mat, hv ? vel : NULL, hg ? gv : NULL, &added), fn);
  if (added == 0)
    tide_lua_error(L,
                   "%s: the shape holds no particle inside the grid's interior (it must lie more "
                   "than one cell from the domain faces)",
                   fn);
  tide_lua_gcaccount(L);
  lua_pushinteger(L, added);
  return 1;
}

static const char *const coll_keys[] = {"shape", "velocity", "omega", "centre",
                                        "bc",    "friction", NULL};
static void read_collider(lua_State *L, tide_opts *o, tide_mpm *m, tide_mpm_collider *c, int fresh,
                          const char *fn) {
  if (fresh || tide_opt_has(o, "shape")) {
    tide_shape *s =
        fresh ? tide_opt_reqobj(o, "shape", TIDE_SHAPE_T) : tide_opt_obj(o, "shape", TIDE_SHAPE_T);
    tide_shape_retain(s);
    if (c->shape) tide_shape_release(c->shape);
    c->shape = s;
  }
  tide_opt_vec(o, "velocity", m->dim, m->dim, c->vel);
  if (m->dim == 2) {
    if (tide_opt_has(o, "omega")) c->omega[2] = tide_opt_num(o, "omega", 0, -HUGE_VAL, HUGE_VAL);
  } else {
    tide_opt_vec(o, "omega", 3, 3, c->omega);
  }
  tide_opt_vec(o, "centre", m->dim, m->dim, c->centre);
  if (fresh || tide_opt_has(o, "bc")) c->bc = tide_opt_choice(o, "bc", "separate", bc_names);
  if (fresh || tide_opt_has(o, "friction"))
    c->friction = tide_opt_num(o, "friction", fresh ? 0 : c->friction, 0, HUGE_VAL);
  (void)fn;
}

/* M:collider{shape =, velocity =, omega =, centre =, bc = "separate", friction = 0} -> index */
static int m_collider(lua_State *L) {
  const char *fn = "MPM:collider";
  tide_mpm *m = checkmpm(L, 1);
  tide_opts o = tide_lua_opts(L, 2, fn, coll_keys);
  if (m->ncoll >= TIDE_MPM_MAXCOLL)
    tide_lua_error(L, "%s: at most %d colliders", fn, TIDE_MPM_MAXCOLL);
  tide_mpm_collider *c = &m->coll[m->ncoll];
  memset(c, 0, sizeof *c);
  read_collider(L, &o, m, c, 1, fn);
  m->ncoll++;
  lua_pushinteger(L, m->ncoll);
  return 1;
}

/* M:set_collider(i, {shape =, velocity =, omega =, centre =, bc =, friction =}) */
static int m_set_collider(lua_State *L) {
  const char *fn = "MPM:set_collider";
  tide_mpm *m = checkmpm(L, 1);
  int i = (int)tide_lua_checkrange(L, 2, fn, "collider index", 1, m->ncoll > 0 ? m->ncoll : 1);
  if (m->ncoll == 0) tide_lua_error(L, "%s: there is no collider", fn);
  tide_opts o = tide_lua_opts(L, 3, fn, coll_keys);
  read_collider(L, &o, m, &m->coll[i - 1], 0, fn);
  return 0;
}

static double checkdt(lua_State *L, int idx, const char *fn) {
  double dt = tide_lua_checkfinite(L, idx, fn, "time step");
  if (dt < 0) tide_lua_error(L, "%s: time step must be >= 0, got %g", fn, dt);
  return dt;
}

static int m_step(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  tide_lua_check(L, tide_mpm_step(m, checkdt(L, 2, "MPM:step")), "MPM:step");
  return 0;
}
static int m_p2g(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  tide_lua_check(L, tide_mpm_p2g(m, checkdt(L, 2, "MPM:p2g")), "MPM:p2g");
  return 0;
}
static int m_grid_update(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  tide_lua_check(L, tide_mpm_grid_update(m, checkdt(L, 2, "MPM:grid_update")), "MPM:grid_update");
  return 0;
}
static int m_g2p(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  tide_lua_check(L, tide_mpm_g2p(m, checkdt(L, 2, "MPM:g2p")), "MPM:g2p");
  return 0;
}
static const char *const impl_keys[] = {"tol", "maxit", "cg_maxit", NULL};
/* shared by M:step_implicit and M:grid_implicit: dt, {tol = 1e-6, maxit = 20, cg_maxit = 2000} */
static int implicit(lua_State *L, int whole) {
  const char *fn = whole ? "MPM:step_implicit" : "MPM:grid_implicit";
  tide_mpm *m = checkmpm(L, 1);
  double dt = checkdt(L, 2, fn);
  if (!(dt > 0)) tide_lua_error(L, "%s: time step must be > 0", fn);
  tide_opts o = tide_lua_optopts(L, 3, fn, impl_keys);
  double tol = tide_opt_num(&o, "tol", 1e-6, 1e-14, 0.5);
  int maxit = (int)tide_opt_int(&o, "maxit", 20, 1, 1000);
  int cgit = (int)tide_opt_int(&o, "cg_maxit", 2000, 1, 10000000);
  tide_mpm_implicit_stats st;
  tide_lua_check(L, whole ? tide_mpm_step_implicit(m, dt, tol, maxit, cgit, &st)
                          : tide_mpm_grid_implicit(m, dt, tol, maxit, cgit, &st),
                 fn);
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, st.newton);
  lua_setfield(L, -2, "newton");
  lua_pushinteger(L, st.cg);
  lua_setfield(L, -2, "cg");
  lua_pushboolean(L, st.converged);
  lua_setfield(L, -2, "converged");
  lua_pushnumber(L, st.residual);
  lua_setfield(L, -2, "residual");
  lua_pushnumber(L, st.energy);
  lua_setfield(L, -2, "energy");
  return 1;
}
static int m_step_implicit(lua_State *L) { return implicit(L, 1); }
static int m_grid_implicit(lua_State *L) { return implicit(L, 0); }

static int m_sort(lua_State *L) {
  tide_lua_check(L, tide_mpm_sort(checkmpm(L, 1)), "MPM:sort");
  return 0;
}
/* M:max_dt(cfl = 0.5) -> dt [s] */
static int m_max_dt(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  double cfl = lua_isnoneornil(L, 2) ? 0.5 : tide_lua_checkfinite(L, 2, "MPM:max_dt", "cfl");
  double dt;
  tide_lua_check(L, tide_mpm_max_dt(m, cfl, &dt), "MPM:max_dt");
  lua_pushnumber(L, dt);
  return 1;
}

static int m_max_speed(lua_State *L) {
  double s;
  tide_lua_check(L, tide_mpm_max_speed(checkmpm(L, 1), &s), "MPM:max_speed");
  lua_pushnumber(L, s);
  return 1;
}

/* M:diagnostics() -> {kinetic, elastic, momentum = {..}, angular = {..} (2D: number), mass} */
static int m_diagnostics(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  double ke, ee, p[3] = {0}, l[3] = {0}, mass;
  tide_lua_check(L, tide_mpm_diagnostics(m, &ke, &ee, p, l, &mass), "MPM:diagnostics");
  lua_createtable(L, 0, 5);
  lua_pushnumber(L, ke);
  lua_setfield(L, -2, "kinetic");
  lua_pushnumber(L, ee);
  lua_setfield(L, -2, "elastic");
  tide_lua_pushnumbers(L, p, m->dim);
  lua_setfield(L, -2, "momentum");
  if (m->dim == 2)
    lua_pushnumber(L, l[2]);
  else
    tide_lua_pushnumbers(L, l, 3);
  lua_setfield(L, -2, "angular");
  lua_pushnumber(L, mass);
  lua_setfield(L, -2, "mass");
  return 1;
}

/* M:grid_sums() -> node mass, node momentum {..} (after P2G) */
static int m_grid_sums(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  double mass, p[3] = {0};
  tide_mpm_grid_sums(m, &mass, p);
  lua_pushnumber(L, mass);
  tide_lua_pushnumbers(L, p, m->dim);
  return 2;
}

static int m_free(lua_State *L) {
  tide_mpm *m = tide_lua_takeobj(L, 1, MPM_T);
  if (m) tide_mpm_free(m);
  return 0;
}

static int mm_tostring(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  char cells[64];
  if (m->dim == 3)
    snprintf(cells, sizeof cells, "%d x %d x %d", m->g.n[0], m->g.n[1], m->g.n[2]);
  else
    snprintf(cells, sizeof cells, "%d x %d", m->g.n[0], m->g.n[1]);
  lua_pushfstring(L, "tide.MPM(%dD, %s cells, dx %f, %s B-splines, %I particles, %d materials%s)",
                  m->dim, cells, m->g.dx, m->order == 2 ? "quadratic" : "cubic",
                  (lua_Integer)m->ps->n, m->nmat, m->sparse ? ", sparse blocks" : "");
  return 1;
}

/* the first n rows of a (cap, cols) attribute, shaped (n) or (n, d, d) */
static void push_rows(lua_State *L, tide_mpm *m, tide_array *a, int matrix) {
  int64_t tail[2] = {m->dim, m->dim};
  tide_lua_pushrows(L, a, m->ps->n, matrix ? 3 : 1, tail);
}

/* fields: dim n order dx x v C F volume mass Jp material_id node_mass node_volume node_velocity
 * gravity */
static int mm_index(lua_State *L) {
  tide_mpm *m = checkmpm(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "dim"))
    lua_pushinteger(L, m->dim);
  else if (!strcmp(k, "n"))
    lua_pushinteger(L, m->ps->n);
  else if (!strcmp(k, "order"))
    lua_pushinteger(L, m->order);
  else if (!strcmp(k, "dx"))
    lua_pushnumber(L, m->g.dx);
  else if (!strcmp(k, "x"))
    tide_lua_pusharray(L, tide_array_retain(m->ps->x));
  else if (!strcmp(k, "v"))
    tide_lua_pusharray(L, tide_array_retain(m->ps->v));
  else if (!strcmp(k, "C"))
    tide_lua_pusharray(L, tide_array_retain(m->ps->c));
  else if (!strcmp(k, "F"))
    push_rows(L, m, m->F, 1);
  else if (!strcmp(k, "volume"))
    push_rows(L, m, m->vol0, 0);
  else if (!strcmp(k, "mass"))
    push_rows(L, m, m->mass, 0);
  else if (!strcmp(k, "Jp"))
    push_rows(L, m, m->Jp, 0);
  else if (!strcmp(k, "material_id"))
    push_rows(L, m, m->mat, 0);
  else if (!strcmp(k, "node_mass"))
    tide_lua_pushrows(L, m->nm, m->nn, 1, NULL);
  else if (!strcmp(k, "node_volume")) {
    if (m->nvol)
      tide_lua_pushrows(L, m->nvol, m->nn, 1, NULL);
    else
      lua_pushnil(L);
  }
  else if (!strcmp(k, "node_velocity")) {
    int64_t tail[1] = {m->dim};
    tide_lua_pushrows(L, m->nv, m->nn, 2, tail);
  }
  else if (!strcmp(k, "gravity"))
    tide_lua_pushnumbers(L, m->gravity, m->dim);
  else if (!strcmp(k, "sparse"))
    lua_pushboolean(L, m->sparse);
  else if (!strcmp(k, "blocks"))
    lua_pushinteger(L, m->nact);
  else if (!strcmp(k, "bytes"))
    lua_pushinteger(L, tide_mpm_bytes(m));
  else {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int mm_newindex(lua_State *L) {
  checkmpm(L, 1);
  const char *k = luaL_checkstring(L, 2);
  return tide_lua_error(L,
                        "tide.MPM: field '%s' cannot be assigned (write into its array, e.g. "
                        "M.v:set(...), or use the methods)",
                        k);
}

static const luaL_Reg methods[] = {
    {"material", m_material},         {"seed", m_seed},     {"collider", m_collider},
    {"set_collider", m_set_collider}, {"step", m_step},     {"p2g", m_p2g},
    {"grid_update", m_grid_update},   {"g2p", m_g2p},       {"sort", m_sort},
    {"max_speed", m_max_speed},       {"max_dt", m_max_dt}, {"diagnostics", m_diagnostics},
    {"grid_sums", m_grid_sums},       {"free", m_free},     {"step_implicit", m_step_implicit},
    {"grid_implicit", m_grid_implicit}, {NULL, NULL}};
static const luaL_Reg meta[] = {
    {"__gc", m_free},      {"__close", m_free},         {"__tostring", mm_tostring},
    {"__index", mm_index}, {"__newindex", mm_newindex}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"new", l_new}, {NULL, NULL}};

int luaopen_tide_mpm(lua_State *L) {
  lua_getglobal(L, "require");
  lua_pushstring(L, "tide.array");
  lua_call(L, 1, 0);
  tide_lua_newtype(L, MPM_T, methods, meta);
  luaL_newlib(L, funcs);
  return 1;
}
