/* lua_couple_zarifi.c -- tide.couple functions of the zarifi coupling (see
 * couple.h, zarifi.h).  Argument checks and marshalling only.
 *
 *   tide.couple.clip{ grid = g, solid = m [, x = Array (nv, d)] } -> table
 *     { n, cell = Array i32 (n, d) 1-based cell (i, j[, k]), face = Array i32 (n)
 *       1-based boundary face, area = Array (n) [m^2, m in 2D], normal = Array
 *       (n, d) unit INTO the solid, bary = Array (n, d), centroid = Array (n, d)
 *       [m], outside = area dropped outside the grid, total = boundary area,
 *       N = Matrix (n*d x ncells), C = Matrix (n*d x nv*d), J = N^T C Matrix
 *       (ncells x nv*d) }   (Zarifi section 5.1.1, Eq. 5.7-5.13)
 */
#include "couple/zarifi.h"
#include "solid/fem.h"
#include "tide_lua.h"

#include <string.h>

static void need_matrix_type(lua_State *L) {
  lua_getglobal(L, "require"); /* tide.Matrix's metatable lives in tide.linalg */
  lua_pushstring(L, "tide.linalg");
  lua_call(L, 1, 0);
}

static void push_matrix(lua_State *L, tide_csr *A) {
  tide_lua_pushobj(L, TIDE_MATRIX_T, A);
  tide_lua_gcaccount(L);
}

/* a zeroed clip held by a userdata on the stack (freed by its __gc even when
 * an error is raised) */
static int clip_gc(lua_State *L) {
  tide_zclip *c = lua_touserdata(L, 1);
  tide_zclip_free(c);
  return 0;
}

static tide_zclip *push_clip(lua_State *L) {
  tide_zclip *c = lua_newuserdatauv(L, sizeof(tide_zclip), 0);
  memset(c, 0, sizeof *c);
  if (luaL_newmetatable(L, "tide.couple.clip_scratch")) {
    lua_pushcfunction(L, clip_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return c;
}

/* positions x (nv, d) of mesh m from option key, or NULL */
static const double *opt_positions(tide_opts *o, const tide_tetmesh *m) {
  tide_array *x = tide_opt_array(o, "x");
  if (!x) return NULL;
  int64_t shape[2] = {m->nv, m->dim};
  char what[64];
  snprintf(what, sizeof what, "%s: x", o->fname);
  if (tide_array_expect(x, what, TIDE_F64, 2, shape)) tide_lua_error(o->L, "%s", tide_errmsg());
  if (tide_array_nonfinite(x)) tide_lua_error(o->L, "%s: x contains NaN/Inf", o->fname);
  return TIDE_F64P(x);
}

static const char *const clip_keys[] = {"grid", "solid", "x", NULL};

static int l_clip(lua_State *L) {
  const char *fn = "tide.couple.clip";
  tide_opts o = tide_lua_opts(L, 1, fn, clip_keys);
  tide_grid *g = tide_opt_reqobj(&o, "grid", TIDE_GRID_T);
  tide_tetmesh *m = tide_opt_reqobj(&o, "solid", TIDE_TETMESH_T);
  if (m->surface || m->dim != g->dim)
    tide_lua_error(L, "%s: solid must be a %dD volume mesh like the grid, got a %dD %s", fn, g->dim,
                   m->dim, m->surface ? "surface" : "mesh");
  const double *x = opt_positions(&o, m);
  need_matrix_type(L);
  tide_zclip *c = push_clip(L);
  int sc = lua_gettop(L);
  tide_lua_check(L, tide_zarifi_clip(g, m, x, c), fn);
  int d = c->dim;
  int64_t n = c->n;
  lua_createtable(L, 0, 12);
  int t = lua_gettop(L);
  lua_pushinteger(L, n);
  lua_setfield(L, t, "n");
  lua_pushnumber(L, c->outside);
  lua_setfield(L, t, "outside");
  lua_pushnumber(L, c->total);
  lua_setfield(L, t, "total");
  tide_array *cell = tide_array_new2(TIDE_I32, n, d), *face = tide_array_new1(TIDE_I32, n);
  tide_array *area = tide_array_new1(TIDE_F64, n), *nrm = tide_array_new2(TIDE_F64, n, d);
  tide_array *bar = tide_array_new2(TIDE_F64, n, d), *cen = tide_array_new2(TIDE_F64, n, d);
  tide_array *arrs[6] = {cell, face, area, nrm, bar, cen};
  const char *names[6] = {"cell", "face", "area", "normal", "bary", "centroid"};
  for (int k = 0; k < 6; k++) {
    if (!arrs[k]) {
      for (int j = k; j < 6; j++)
        if (arrs[j]) tide_array_release(arrs[j]);
      tide_lua_check(L, TIDE_ENOMEM, fn);
    }
    tide_lua_pusharray(L, arrs[k]);
    lua_setfield(L, t, names[k]);
  }
  int32_t *ci = TIDE_I32P(cell), *fi = TIDE_I32P(face);
  int n1 = g->n[1], n2 = g->n[2];
  for (int64_t q = 0; q < n; q++) {
    int64_t cq = c->cell[q];
    int ijk[3] = {(int)(cq / ((int64_t)n1 * n2)), (int)(cq / n2 % n1), (int)(cq % n2)};
    for (int k = 0; k < d; k++)
      ci[q * d + k] = ijk[k] + 1;
    fi[q] = c->face[q] + 1;
  }
  memcpy(TIDE_F64P(area), c->area, (size_t)n * sizeof(double));
  memcpy(TIDE_F64P(nrm), c->normal, (size_t)(n * d) * sizeof(double));
  memcpy(TIDE_F64P(bar), c->bary, (size_t)(n * d) * sizeof(double));
  memcpy(TIDE_F64P(cen), c->centroid, (size_t)(n * d) * sizeof(double));
  tide_csr *N = NULL, *C = NULL, *J = NULL;
  tide_lua_check(L, tide_zarifi_nc(g, c, m, &N, &C), fn);
  push_matrix(L, N);
  lua_setfield(L, t, "N");
  push_matrix(L, C);
  lua_setfield(L, t, "C");
  tide_triplets *T = NULL;
  tide_lua_check(L, tide_triplets_new((int)tide_grid_ncells(g), (int)(m->nv * d), &T), fn);
  tide_zarifi_j_triplets(c, m, NULL, 0, 1.0, T);
  int s = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &J);
  tide_triplets_free(T);
  tide_lua_check(L, s, fn);
  push_matrix(L, J);
  lua_setfield(L, t, "J");
  lua_remove(L, sc); /* the scratch clip (freed by the GC) */
  return 1;
}

static const luaL_Reg funcs[] = {{"clip", l_clip}, {NULL, NULL}};

void tide_lua_couple_zarifi_open(lua_State *L, int module) {
  lua_pushvalue(L, module);
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 1);
}
