/* lua_couple_mpm_solid.c -- tide.couple.mpm_solid, the MPM / FEM-mesh
 * coupler (see mpm_solid.h): argument checks and marshalling only. */
#include "couple/mpm_solid.h"
#include "tide_lua.h"

#include <math.h>
#include <string.h>

#define MPM_SOLID_T "tide.MPMSolid"

static const char *const keys[] = {"bc", "friction", "spacing", "distance", NULL};
static const char *const bcs[] = {"separate", "sticky", NULL};

/* tide.couple.mpm_solid{bc = "separate", friction = 0, spacing = 0.5, distance = 0.25} -> tide.MPMSolid */
static int l_new(lua_State *L) {
  const char *fn = "tide.couple.mpm_solid";
  if (lua_isnoneornil(L, 1)) lua_newtable(L);
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  int bc = tide_opt_choice(&o, "bc", "separate", bcs) == 0 ? TIDE_MPM_SEPARATE : TIDE_MPM_STICKY;
  double mu = tide_opt_num(&o, "friction", 0, 0, 1e300);
  double sp = tide_opt_num(&o, "spacing", 0.5, 1e-3, 4);
  double dist = tide_opt_num(&o, "distance", 0.25, 0, 1e6);
  tide_mpm_solid *c;
  tide_lua_check(L, tide_mpm_solid_new(bc, mu, sp, dist, &c), fn);
  tide_lua_pushobj(L, MPM_SOLID_T, c);
  return 1;
}

static tide_mpm_solid *checkc(lua_State *L) { return tide_lua_checkobj(L, 1, MPM_SOLID_T); }

/* C:exchange(M, mesh, dt) -> {samples, shared, contacts, impulse = {...}} */
static int m_exchange(lua_State *L) {
  const char *fn = "MPMSolid:exchange";
  tide_mpm_solid *c = checkc(L);
  tide_mpm *m = tide_lua_checkobj(L, 2, "tide.MPM");
  tide_tetmesh *mesh = tide_lua_checkobj(L, 3, TIDE_TETMESH_T);
  double dt = luaL_checknumber(L, 4);
  if (!(dt >= 0 && isfinite(dt)))
    return tide_lua_error(L, "%s: dt must be finite and >= 0, got %f", fn, dt);
  tide_mpm_solid_stats st;
  tide_lua_check(L, tide_mpm_solid_exchange(c, m, mesh, dt, &st), fn);
  tide_lua_gcaccount(L);
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, (lua_Integer)st.samples);
  lua_setfield(L, -2, "samples");
  lua_pushinteger(L, (lua_Integer)st.shared);
  lua_setfield(L, -2, "shared");
  lua_pushinteger(L, (lua_Integer)st.contacts);
  lua_setfield(L, -2, "contacts");
  tide_lua_pushnumbers(L, st.impulse, m->dim);
  lua_setfield(L, -2, "impulse");
  return 1;
}

/* C:project(M) -> {moved, depth}: after M:g2p, particles behind the mesh surface where the
 * last exchange's contact acted moved onto it (positions only) */
static int m_project(lua_State *L) {
  const char *fn = "MPMSolid:project";
  tide_mpm_solid *c = checkc(L);
  tide_mpm *m = tide_lua_checkobj(L, 2, "tide.MPM");
  tide_mpm_solid_proj st;
  tide_lua_check(L, tide_mpm_solid_project(c, m, &st), fn);
  lua_createtable(L, 0, 2);
  lua_pushinteger(L, (lua_Integer)st.moved);
  lua_setfield(L, -2, "moved");
  lua_pushnumber(L, st.depth);
  lua_setfield(L, -2, "depth");
  return 1;
}

static int m_free(lua_State *L) {
  tide_mpm_solid_free(tide_lua_takeobj(L, 1, MPM_SOLID_T));
  return 0;
}

/* fields: impulse (nv, d) of the last exchange (nil before), bc, friction, spacing, distance,
 * samples, bytes
 */
static int mm_index(lua_State *L) {
  tide_mpm_solid *c = checkc(L);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "impulse")) {
    if (c->impulse)
      tide_lua_pusharray(L, tide_array_retain(c->impulse));
    else
      lua_pushnil(L);
  } else if (!strcmp(k, "bc"))
    lua_pushstring(L, c->bc == TIDE_MPM_STICKY ? "sticky" : "separate");
  else if (!strcmp(k, "friction"))
    lua_pushnumber(L, c->friction);
  else if (!strcmp(k, "spacing"))
    lua_pushnumber(L, c->spacing);
  else if (!strcmp(k, "distance"))
    lua_pushnumber(L, c->distance);
  else if (!strcmp(k, "samples"))
    lua_pushinteger(L, (lua_Integer)c->nq);
  else if (!strcmp(k, "bytes"))
    lua_pushinteger(L, (lua_Integer)tide_mpm_solid_bytes(c));
  else {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int mm_newindex(lua_State *L) {
  checkc(L);
  return tide_lua_error(L, "tide.MPMSolid: field '%s' cannot be assigned", luaL_checkstring(L, 2));
}

static int mm_tostring(lua_State *L) {
  tide_mpm_solid *c = checkc(L);
  lua_pushfstring(L, "tide.MPMSolid(%s, friction %f, %d samples)",
                  c->bc == TIDE_MPM_STICKY ? "sticky" : "separate", c->friction, (int)c->nq);
  return 1;
}

static const luaL_Reg methods[] = {{"exchange", m_exchange}, {"project", m_project}, {"free", m_free}, {NULL, NULL}};
static const luaL_Reg meta[] = {{"__gc", m_free},
                                {"__close", m_free},
                                {"__index", mm_index},
                                {"__newindex", mm_newindex},
                                {"__tostring", mm_tostring},
                                {NULL, NULL}};
static const luaL_Reg funcs[] = {{"mpm_solid", l_new}, {NULL, NULL}};

void tide_lua_couple_mpm_solid_open(lua_State *L, int module) {
  tide_lua_newtype(L, MPM_SOLID_T, methods, meta);
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
