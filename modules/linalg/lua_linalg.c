/*
 * lua_linalg.c -- tide.linalg: sparse matrices (tide.Matrix), Krylov solvers
 * (tide.Solver, tide.linalg.solve) and direct factorizations (tide.Factor).
 *
 * Indices are 1-based here and 0-based in the core (modules/linalg/linalg.h).
 * Vectors are contiguous f64 tide.Array of any shape whose element count is
 * the matrix dimension (so a cell field of a grid can be a right-hand side).
 * Temporary buffers live in userdata on the Lua stack, so an error raised
 * half-way leaks nothing.
 */
#include "linalg/linalg.h"
#include "tide_lua.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int luaopen_tide_array(lua_State *L);

#define SOLVER_T "tide.Solver"
#define TRIPLETS_T "tide.linalg.triplets" /* internal: frees a triplet list on error */

static const char *const METHODS[] = {"pcg", "minres", "bicgstab", "cholesky", "ldlt", "lu", NULL};
static const char *const PRECONDS[] = {"none", "jacobi", "ic0", "mic0", "ilu0", NULL};
/* default preconditioner per Krylov method */
static const int DEFAULT_PRECOND[] = {TIDE_PRECOND_IC0, TIDE_PRECOND_JACOBI, TIDE_PRECOND_ILU0};

/* ------------------------------------------------------------ helpers */

static tide_csr *checkmat(lua_State *L, int idx) {
  return tide_lua_checkobj(L, idx, TIDE_MATRIX_T);
}

static void pushmat(lua_State *L, tide_csr *A) {
  tide_lua_pushobj(L, TIDE_MATRIX_T, A);
  tide_lua_gcaccount(L);
}

/* A scratch buffer owned by Lua (freed by the GC, also on error). */
static void *scratch(lua_State *L, size_t bytes) {
  return lua_newuserdatauv(L, bytes ? bytes : 1, 0);
}

/* A vector argument: a contiguous f64 array of n elements, finite if asked. */
static tide_array *checkvec(lua_State *L, int idx, const char *fn, const char *what, int64_t n,
                            int finite) {
  tide_array *a = tide_lua_testarray(L, idx);
  if (!a)
    tide_lua_error(L, "%s: %s must be a tide.Array of %I numbers, got %s", fn, what, (lua_Integer)n,
                   luaL_typename(L, idx));
  if (a->dtype != TIDE_F64 || !tide_array_contiguous(a))
    tide_lua_error(L, "%s: %s must be a contiguous f64 array, got %s", fn, what,
                   tide_dtype_name(a->dtype));
  if (tide_array_size(a) != n)
    tide_lua_error(L, "%s: %s has %I entries, the matrix needs %I", fn, what,
                   (lua_Integer)tide_array_size(a), (lua_Integer)n);
  if (finite) {
    int64_t bad = tide_array_nonfinite(a);
    if (bad) tide_lua_error(L, "%s: %s has %I non-finite entries", fn, what, (lua_Integer)bad);
  }
  return a;
}

static int same_memory(const tide_array *a, const tide_array *b) { return a->buf == b->buf; }

/* A new f64 vector of n entries pushed on the stack. */
static tide_array *pushnewvec(lua_State *L, const char *fn, int64_t n) {
  tide_array *a = tide_array_new1(TIDE_F64, n);
  if (!a) tide_lua_error(L, "%s: %s", fn, tide_errmsg());
  tide_lua_pusharray(L, a);
  return a;
}

/* Numbers at idx (a tide.Array of any numeric dtype, or a Lua list) into a
 * scratch buffer of doubles pushed on the stack; *n receives the count. */
static double *readnums(lua_State *L, int idx, const char *fn, const char *what, int64_t *n) {
  idx = lua_absindex(L, idx);
  tide_array *a = tide_lua_testarray(L, idx);
  if (a) {
    *n = tide_array_size(a);
    double *out = scratch(L, (size_t)*n * sizeof(double));
    for (int64_t k = 0; k < *n; k++)
      out[k] = tide_array_getlin(a, k);
    return out;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    tide_lua_error(L, "%s: %s must be a tide.Array or a list of numbers, got %s", fn, what,
                   luaL_typename(L, idx));
  *n = (int64_t)luaL_len(L, idx);
  double *out = scratch(L, (size_t)*n * sizeof(double));
  for (int64_t k = 0; k < *n; k++) {
    lua_geti(L, idx, k + 1);
    if (lua_type(L, -1) != LUA_TNUMBER)
      tide_lua_error(L, "%s: %s[%I] must be a number, got %s", fn, what, (lua_Integer)(k + 1),
                     luaL_typename(L, -1));
    out[k] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  return out;
}

/* 1-based indices (numbers) -> 0-based ints in [0, hi), in place into a new
 * scratch buffer. */
static int *toindex(lua_State *L, const double *x, int64_t n, int hi, const char *fn,
                    const char *what) {
  int *out = scratch(L, (size_t)n * sizeof(int));
  for (int64_t k = 0; k < n; k++) {
    double v = x[k];
    if (!(v >= 1 && v <= hi) || v != floor(v)) {
      char num[64];
      snprintf(num, sizeof num, "%g", v);
      tide_lua_error(L, "%s: %s[%I] = %s is not an index in 1..%d", fn, what, (lua_Integer)(k + 1),
                     num, hi);
    }
    out[k] = (int)v - 1;
  }
  return out;
}

static void checkfinite_list(lua_State *L, const double *v, int64_t n, const char *fn,
                             const char *what) {
  for (int64_t k = 0; k < n; k++)
    if (!isfinite(v[k]))
      tide_lua_error(L, "%s: %s[%I] is not finite", fn, what, (lua_Integer)(k + 1));
}

/* ------------------------------------------------------------- matrix */

static int tr_gc(lua_State *L) {
  tide_triplets_free(tide_lua_takeobj(L, 1, TRIPLETS_T));
  return 0;
}

/* tide.linalg.matrix(n, m, function(row) return {cols}, {vals} end) */
static int matrix_from_function(lua_State *L) {
  const char *fn = "tide.linalg.matrix";
  int n = (int)tide_lua_checkrange(L, 1, fn, "number of rows", 1, INT32_MAX - 1);
  int m = (int)tide_lua_checkrange(L, 2, fn, "number of columns", 1, INT32_MAX - 1);
  if (lua_type(L, 3) != LUA_TFUNCTION)
    tide_lua_error(L, "%s: third argument must be a function(row) returning cols, vals; got %s", fn,
                   luaL_typename(L, 3));
  tide_triplets *T = NULL;
  tide_lua_check(L, tide_triplets_new(n, m, &T), fn);
  tide_lua_pushobj(L, TRIPLETS_T, T); /* index 4: freed by the GC on error */
  for (int r = 1; r <= n; r++) {
    lua_pushvalue(L, 3);
    lua_pushinteger(L, r);
    lua_call(L, 1, 2);
    int64_t nc, nv;
    char what[64];
    snprintf(what, sizeof what, "columns of row %d", r);
    double *c = readnums(L, 5, fn, what, &nc);
    int *ci = toindex(L, c, nc, m, fn, what);
    snprintf(what, sizeof what, "values of row %d", r);
    double *v = readnums(L, 6, fn, what, &nv);
    if (nc != nv)
      tide_lua_error(L, "%s: row %d returned %I columns but %I values", fn, r, (lua_Integer)nc,
                     (lua_Integer)nv);
    checkfinite_list(L, v, nv, fn, what);
    for (int64_t k = 0; k < nc; k++)
      tide_triplets_add(T, r - 1, ci[k], v[k]);
    lua_settop(L, 4);
  }
  tide_csr *A = NULL;
  tide_lua_check(L, tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &A), fn);
  tide_triplets_free(tide_lua_takeobj(L, 4, TRIPLETS_T));
  pushmat(L, A);
  return 1;
}

/* tide.linalg.matrix{ n =, m =, i =, j =, v = [, symmetric = false] } */
static int l_matrix(lua_State *L) {
  const char *fn = "tide.linalg.matrix";
  if (lua_type(L, 1) == LUA_TNUMBER) return matrix_from_function(L);
  static const char *const keys[] = {"n", "m", "i", "j", "v", "symmetric", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  if (!tide_opt_has(&o, "n")) tide_lua_error(L, "%s: missing option 'n' (number of rows)", fn);
  int n = (int)tide_opt_int(&o, "n", 0, 1, INT32_MAX - 1);
  int m = (int)tide_opt_int(&o, "m", n, 1, INT32_MAX - 1);
  int sym = tide_opt_bool(&o, "symmetric", 0);
  if (sym && n != m)
    tide_lua_error(L, "%s: a symmetric matrix must be square, got n = %d, m = %d", fn, n, m);
  int64_t ni, nj, nv;
  const char *need[] = {"i", "j", "v"};
  for (int k = 0; k < 3; k++)
    if (!tide_opt_has(&o, need[k]))
      tide_lua_error(L, "%s: missing option '%s' (row indices i, column indices j, values v)", fn,
                     need[k]);
  lua_getfield(L, 1, "i");
  double *di = readnums(L, -1, fn, "i", &ni);
  lua_getfield(L, 1, "j");
  double *dj = readnums(L, -1, fn, "j", &nj);
  lua_getfield(L, 1, "v");
  double *v = readnums(L, -1, fn, "v", &nv);
  if (ni != nj || ni != nv)
    tide_lua_error(L, "%s: i, j and v must have the same length, got %I, %I and %I", fn,
                   (lua_Integer)ni, (lua_Integer)nj, (lua_Integer)nv);
  int *ii = toindex(L, di, ni, n, fn, "i");
  int *jj = toindex(L, dj, nj, m, fn, "j");
  checkfinite_list(L, v, nv, fn, "v");
  tide_csr *A = NULL;
  tide_lua_check(
      L, tide_csr_from_triplets(n, m, ni, ii, jj, v, sym ? TIDE_CSR_UPPER : TIDE_CSR_GENERAL, &A),
      fn);
  pushmat(L, A);
  return 1;
}

static int m_free(lua_State *L) {
  tide_csr_free(tide_lua_takeobj(L, 1, TIDE_MATRIX_T));
  return 0;
}

static int m_tostring(lua_State *L) {
  tide_csr *A = tide_lua_testobj(L, 1, TIDE_MATRIX_T);
  if (!A) {
    lua_pushstring(L, "tide.Matrix (freed)");
    return 1;
  }
  lua_pushfstring(L, "tide.Matrix %d x %d, %I entries%s", A->nrows, A->ncols,
                  (lua_Integer)tide_csr_nnz(A),
                  A->stype == TIDE_CSR_UPPER ? " (symmetric, upper triangle stored)" : "");
  return 1;
}

/* A:mul(x [, y]) -> y = A x */
static int m_mul(lua_State *L) {
  const char *fn = "Matrix:mul";
  tide_csr *A = checkmat(L, 1);
  tide_array *x = checkvec(L, 2, fn, "x", A->ncols, 1);
  tide_array *y;
  if (lua_isnoneornil(L, 3)) {
    y = pushnewvec(L, fn, A->nrows);
  } else {
    y = checkvec(L, 3, fn, "y", A->nrows, 0);
    if (same_memory(x, y)) tide_lua_error(L, "%s: x and y must not share memory", fn);
    lua_pushvalue(L, 3);
  }
  tide_lua_check(L, tide_csr_mul(A, TIDE_F64P(x), TIDE_F64P(y)), fn);
  return 1;
}

static int m_diag(lua_State *L) {
  tide_csr *A = checkmat(L, 1);
  tide_array *d = pushnewvec(L, "Matrix:diag", A->nrows < A->ncols ? A->nrows : A->ncols);
  tide_lua_check(L, tide_csr_diag(A, TIDE_F64P(d)), "Matrix:diag");
  return 1;
}

static int m_transpose(lua_State *L) {
  tide_csr *A = checkmat(L, 1), *T = NULL;
  tide_lua_check(L, tide_csr_transpose(A, &T), "Matrix:transpose");
  pushmat(L, T);
  return 1;
}

static int m_clone(lua_State *L) {
  tide_csr *A = checkmat(L, 1), *C = NULL;
  tide_lua_check(L, tide_csr_clone(A, &C), "Matrix:clone");
  pushmat(L, C);
  return 1;
}

/* A:totriplets() -> i, j, v (stored entries; 1-based i32 indices) */
static int m_totriplets(lua_State *L) {
  tide_csr *A = checkmat(L, 1);
  int64_t nnz = tide_csr_nnz(A);
  tide_array *ia = tide_array_new1(TIDE_I32, nnz), *ja = tide_array_new1(TIDE_I32, nnz),
             *va = tide_array_new1(TIDE_F64, nnz);
  if (ia) tide_lua_pusharray(L, ia);
  if (ja) tide_lua_pusharray(L, ja);
  if (va) tide_lua_pusharray(L, va);
  if (!ia || !ja || !va) tide_lua_error(L, "Matrix:totriplets: %s", tide_errmsg());
  int32_t *pi = TIDE_I32P(ia), *pj = TIDE_I32P(ja);
  double *pv = TIDE_F64P(va);
  for (int r = 0; r < A->nrows; r++)
    for (int p = A->rowptr[r]; p < A->rowptr[r + 1]; p++) {
      pi[p] = r + 1;
      pj[p] = A->col[p] + 1;
      pv[p] = A->val[p];
    }
  return 3;
}

/* A:set_values(v): new values for the triplets A was built from, in the
 * same order (pattern reuse). */
static int m_set_values(lua_State *L) {
  const char *fn = "Matrix:set_values";
  tide_csr *A = checkmat(L, 1);
  int64_t nt = tide_csr_ntriplets(A), n;
  if (nt == 0 && tide_csr_nnz(A) > 0)
    tide_lua_error(L, "%s: this matrix was not built from triplets (no pattern to reuse)", fn);
  double *v = readnums(L, 2, fn, "v", &n);
  if (n != nt)
    tide_lua_error(L, "%s: %I values given, the matrix was built from %I triplets", fn,
                   (lua_Integer)n, (lua_Integer)nt);
  checkfinite_list(L, v, n, fn, "v");
  tide_lua_check(L, tide_csr_set_triplet_values(A, n, v), fn);
  lua_settop(L, 1);
  return 1;
}

/* A:get(i, j): the entry (0 if not stored) */
static int m_get(lua_State *L) {
  tide_csr *A = checkmat(L, 1);
  int i = (int)tide_lua_checkrange(L, 2, "Matrix:get", "row", 1, A->nrows) - 1;
  int j = (int)tide_lua_checkrange(L, 3, "Matrix:get", "column", 1, A->ncols) - 1;
  if (A->stype == TIDE_CSR_UPPER && j < i) {
    int t = i;
    i = j;
    j = t;
  }
  int64_t p = tide_csr_find(A, i, j);
  lua_pushnumber(L, p >= 0 ? A->val[p] : 0.0);
  return 1;
}

/* A * B (matrices), A * x (array), s * A, A * s (scalar) */
static int m_mulop(lua_State *L) {
  const char *fn = "tide.Matrix *";
  tide_csr *A = tide_lua_testobj(L, 1, TIDE_MATRIX_T), *B = tide_lua_testobj(L, 2, TIDE_MATRIX_T);
  if (A && B) {
    tide_csr *C = NULL;
    tide_lua_check(L, tide_csr_matmul(A, B, &C), fn);
    pushmat(L, C);
    return 1;
  }
  if (A && tide_lua_testarray(L, 2)) {
    lua_settop(L, 2);
    return m_mul(L);
  }
  int si = A ? 2 : 1;
  tide_csr *M = A ? A : B;
  if (!M) return tide_lua_error(L, "%s: tide.Matrix expected", fn);
  if (lua_type(L, si) != LUA_TNUMBER)
    tide_lua_error(L, "%s: a matrix multiplies a tide.Matrix, a tide.Array or a number, not a %s",
                   fn, luaL_typename(L, si));
  double s = tide_lua_checkfinite(L, si, fn, "scale factor");
  tide_csr *C = NULL;
  tide_lua_check(L, tide_csr_clone(M, &C), fn);
  for (int64_t p = 0; p < tide_csr_nnz(C); p++)
    C->val[p] *= s;
  pushmat(L, C);
  return 1;
}

/* A + B, A - B (same sizes; union of the patterns) */
static int addsub(lua_State *L, double beta, const char *fn) {
  tide_csr *A = tide_lua_testobj(L, 1, TIDE_MATRIX_T), *B = tide_lua_testobj(L, 2, TIDE_MATRIX_T);
  if (!A || !B)
    tide_lua_error(L, "%s: both operands must be tide.Matrix, got %s and %s", fn,
                   luaL_typename(L, 1), luaL_typename(L, 2));
  tide_csr *C = NULL;
  tide_lua_check(L, tide_csr_add(1.0, A, beta, B, &C), fn);
  pushmat(L, C);
  return 1;
}
static int m_add(lua_State *L) { return addsub(L, 1.0, "tide.Matrix +"); }
static int m_sub(lua_State *L) { return addsub(L, -1.0, "tide.Matrix -"); }

/* K:scale(left [, right]): in place K = diag(left) K diag(right); either
 * may be nil (identity) */
static int m_scale(lua_State *L) {
  const char *fn = "Matrix:scale";
  tide_csr *A = checkmat(L, 1);
  if (lua_isnoneornil(L, 2) && lua_isnoneornil(L, 3))
    tide_lua_error(L, "%s: give left and/or right scaling arrays", fn);
  tide_array *l = lua_isnoneornil(L, 2) ? NULL : checkvec(L, 2, fn, "left", A->nrows, 1);
  tide_array *r = lua_isnoneornil(L, 3) ? NULL : checkvec(L, 3, fn, "right", A->ncols, 1);
  const double *pl = l ? TIDE_F64P(l) : NULL, *pr = r ? TIDE_F64P(r) : NULL;
  tide_lua_check(L, tide_csr_scale(A, pl, pr), fn);
  lua_settop(L, 1);
  return 1;
}

static int m_index(lua_State *L) {
  tide_csr *A = checkmat(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "nrows"))
    lua_pushinteger(L, A->nrows);
  else if (!strcmp(k, "ncols"))
    lua_pushinteger(L, A->ncols);
  else if (!strcmp(k, "nnz"))
    lua_pushinteger(L, tide_csr_nnz(A));
  else if (!strcmp(k, "symmetric"))
    lua_pushboolean(L, A->stype == TIDE_CSR_UPPER);
  else if (!strcmp(k, "ntriplets"))
    lua_pushinteger(L, tide_csr_ntriplets(A));
  else if (!strcmp(k, "bytes"))
    lua_pushinteger(L, (lua_Integer)tide_csr_bytes(A));
  else {
    luaL_getmetatable(L, TIDE_MATRIX_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg matrix_methods[] = {{"mul", m_mul},
                                          {"diag", m_diag},
                                          {"transpose", m_transpose},
                                          {"totriplets", m_totriplets},
                                          {"set_values", m_set_values},
                                          {"get", m_get},
                                          {"scale", m_scale},
                                          {"clone", m_clone},
                                          {"free", m_free},
                                          {NULL, NULL}};

static const luaL_Reg matrix_meta[] = {
    {"__gc", m_free},   {"__close", m_free}, {"__tostring", m_tostring}, {"__index", m_index},
    {"__mul", m_mulop}, {"__add", m_add},    {"__sub", m_sub},           {NULL, NULL}};

/* ------------------------------------------------------------ solving */

static void pushstats(lua_State *L, const tide_solve_stats *st, const char *method,
                      const char *precond) {
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, st->iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushnumber(L, st->residual);
  lua_setfield(L, -2, "residual");
  lua_pushnumber(L, st->seconds);
  lua_setfield(L, -2, "seconds");
  lua_pushboolean(L, st->converged);
  lua_setfield(L, -2, "converged");
  lua_pushstring(L, method);
  lua_setfield(L, -2, "method");
  lua_pushstring(L, precond);
  lua_setfield(L, -2, "precond");
}

/* Read the Krylov options shared by tide.linalg.solve and Solver:solve. */
static void krylov_opts(tide_opts *o, tide_solve_opts *so, int *must_converge) {
  *so = tide_solve_opts_default();
  so->tol = tide_opt_num(o, "tol", 1e-8, 1e-300, 0.999999);
  so->maxit = (int)tide_opt_int(o, "maxit", 0, 0, INT32_MAX);
  so->nullspace = tide_opt_bool(o, "nullspace", 0);
  *must_converge = tide_opt_bool(o, "must_converge", 1);
}

/* b and optional x (pushes x, new or given), checks shapes/NaN/aliasing */
static void solve_vectors(lua_State *L, tide_opts *o, const char *fn, int n, tide_array **pb,
                          tide_array **px, int *have_x0) {
  if (!tide_opt_has(o, "b")) tide_lua_error(L, "%s: missing option 'b' (right-hand side)", fn);
  lua_getfield(L, o->idx, "b");
  *pb = checkvec(L, -1, fn, "b", n, 1);
  lua_pop(L, 1);
  *have_x0 = tide_opt_has(o, "x");
  if (*have_x0) {
    lua_getfield(L, o->idx, "x");
    *px = checkvec(L, -1, fn, "x", n, 1);
    if (same_memory(*pb, *px)) tide_lua_error(L, "%s: b and x must not share memory", fn);
  } else {
    *px = pushnewvec(L, fn, n);
  }
}

/* Run a Krylov solve; raise unless converged or must_converge is false. */
static int finish_krylov(lua_State *L, int status, const tide_solve_stats *st, int must_converge,
                         const char *fn, const char *method, const char *precond) {
  if (status == TIDE_ENOCONV && !must_converge) status = TIDE_OK;
  tide_lua_check(L, status, fn);
  pushstats(L, st, method, precond);
  return 2;
}

static int run_direct(lua_State *L, const char *fn, tide_csr *A, int kind, tide_array *b,
                      tide_array *x) {
  double t0 = tide_wtime();
  tide_factor *F = NULL;
  int st = tide_factor_new(A, kind, &F);
  if (!st) st = tide_factor_solve(F, TIDE_F64P(b), TIDE_F64P(x));
  tide_factor_free(F);
  tide_lua_check(L, st, fn);
  tide_solve_stats s = {0, 0, 0, 1};
  /* the achieved relative residual, for the stats */
  int64_t n = A->nrows;
  double *r = scratch(L, (size_t)n * sizeof(double));
  tide_csr_mul(A, TIDE_F64P(x), r);
  const double *pb = TIDE_F64P(b);
  for (int64_t i = 0; i < n; i++)
    r[i] = pb[i] - r[i];
  double bn = sqrt(tide_norm2sq(n, pb));
  s.residual = bn > 0 ? sqrt(tide_norm2sq(n, r)) / bn : 0;
  lua_pop(L, 1); /* r */
  s.seconds = tide_wtime() - t0;
  pushstats(L, &s, METHODS[kind + 3], "none");
  return 2;
}

/* tide.linalg.solve{ A =, b =, x =, method =, precond =, tol =, maxit =,
 *                    nullspace =, must_converge = } -> x, stats */
static int l_solve(lua_State *L) {
  const char *fn = "tide.linalg.solve";
  static const char *const keys[] = {"A",   "b",     "x",         "method",        "precond",
                                     "tol", "maxit", "nullspace", "must_converge", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_csr *A = tide_opt_reqobj(&o, "A", TIDE_MATRIX_T);
  if (A->nrows != A->ncols)
    tide_lua_error(L, "%s: A must be square, got %d x %d", fn, A->nrows, A->ncols);
  int method = tide_opt_choice(&o, "method", "pcg", METHODS);
  int krylov = method <= TIDE_KRYLOV_BICGSTAB;
  int precond = krylov ? DEFAULT_PRECOND[method] : TIDE_PRECOND_NONE;
  if (tide_opt_has(&o, "precond")) {
    precond = tide_opt_choice(&o, "precond", "none", PRECONDS);
    if (!krylov && precond != TIDE_PRECOND_NONE)
      tide_lua_error(L, "%s: method '%s' is direct and takes no preconditioner", fn,
                     METHODS[method]);
  }
  tide_solve_opts so;
  int must_converge;
  krylov_opts(&o, &so, &must_converge);
  if (!krylov &&
      (tide_opt_has(&o, "maxit") || tide_opt_has(&o, "nullspace") || tide_opt_has(&o, "tol")))
    tide_lua_error(L, "%s: tol, maxit and nullspace apply to iterative methods, not '%s'", fn,
                   METHODS[method]);
  tide_array *b, *x;
  solve_vectors(L, &o, fn, A->nrows, &b, &x, &so.use_x0);
  if (!krylov) return run_direct(L, fn, A, method - 3, b, x);
  tide_solve_stats st;
  int s = tide_solve_krylov(A, method, precond, TIDE_F64P(b), TIDE_F64P(x), &so, &st);
  return finish_krylov(L, s, &st, must_converge, fn, METHODS[method], PRECONDS[precond]);
}

/* -------------------------------------------------------------- Solver */

typedef struct {
  tide_krylov *S;
  int method, precond;
} lsolver;

static lsolver *checksolver(lua_State *L, int idx) { return tide_lua_checkobj(L, idx, SOLVER_T); }

static int s_free(lua_State *L) {
  lsolver *s = tide_lua_takeobj(L, 1, SOLVER_T);
  if (s) {
    tide_krylov_free(s->S);
    tide_free(s, sizeof *s);
  }
  return 0;
}

/* tide.linalg.solver{ A =, method = "pcg", precond = } -> Solver */
static int l_solver(lua_State *L) {
  const char *fn = "tide.linalg.solver";
  static const char *const keys[] = {"A", "method", "precond", NULL};
  static const char *const kmethods[] = {"pcg", "minres", "bicgstab", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_csr *A = tide_opt_reqobj(&o, "A", TIDE_MATRIX_T);
  int method = tide_opt_choice(&o, "method", "pcg", kmethods);
  int precond = tide_opt_choice(&o, "precond", PRECONDS[DEFAULT_PRECOND[method]], PRECONDS);
  lsolver *s = tide_calloc(sizeof *s);
  if (!s) tide_lua_error(L, "%s: out of memory", fn);
  s->method = method;
  s->precond = precond;
  tide_lua_pushobj(L, SOLVER_T, s);
  tide_lua_check(L, tide_krylov_new(A, method, precond, &s->S), fn);
  lua_getfield(L, 1, "A");
  lua_setiuservalue(L, -2, 1); /* keep A alive with the solver */
  tide_lua_gcaccount(L);
  return 1;
}

/* the solver's matrix (raises if it was freed) */
static tide_csr *solver_matrix(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, 1);
  tide_csr *A = checkmat(L, -1);
  lua_pop(L, 1);
  return A;
}

/* S:solve{ b =, x =, tol =, maxit =, nullspace =, must_converge = } -> x, stats */
static int s_solve(lua_State *L) {
  const char *fn = "Solver:solve";
  lsolver *s = checksolver(L, 1);
  static const char *const keys[] = {"b", "x", "tol", "maxit", "nullspace", "must_converge", NULL};
  tide_opts o = tide_lua_opts(L, 2, fn, keys);
  tide_csr *A = solver_matrix(L, 1);
  tide_solve_opts so;
  int must_converge;
  krylov_opts(&o, &so, &must_converge);
  tide_array *b, *x;
  solve_vectors(L, &o, fn, A->nrows, &b, &x, &so.use_x0);
  tide_solve_stats st;
  int status = tide_krylov_solve(s->S, A, TIDE_F64P(b), TIDE_F64P(x), &so, &st);
  return finish_krylov(L, status, &st, must_converge, fn, METHODS[s->method], PRECONDS[s->precond]);
}

/* S:refactor([A]): recompute the preconditioner for new values (same
 * pattern); A replaces the solver's matrix when given. */
static int s_refactor(lua_State *L) {
  lsolver *s = checksolver(L, 1);
  tide_csr *A;
  if (lua_isnoneornil(L, 2)) {
    A = solver_matrix(L, 1);
  } else {
    A = checkmat(L, 2);
    tide_lua_check(L, tide_krylov_refactor(s->S, A), "Solver:refactor");
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 1, 1);
    lua_settop(L, 1);
    return 1;
  }
  tide_lua_check(L, tide_krylov_refactor(s->S, A), "Solver:refactor");
  lua_settop(L, 1);
  return 1;
}

static int s_tostring(lua_State *L) {
  lsolver *s = tide_lua_testobj(L, 1, SOLVER_T);
  if (!s) {
    lua_pushstring(L, "tide.Solver (freed)");
    return 1;
  }
  int f = 0, b = 0;
  tide_precond_levels(tide_krylov_precond(s->S), &f, &b);
  lua_pushfstring(L, "tide.Solver %s-%s (%d/%d triangular-solve levels)", METHODS[s->method],
                  PRECONDS[s->precond], f, b);
  return 1;
}

static int s_index(lua_State *L) {
  lsolver *s = checksolver(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "method"))
    lua_pushstring(L, METHODS[s->method]);
  else if (!strcmp(k, "precond"))
    lua_pushstring(L, PRECONDS[s->precond]);
  else if (!strcmp(k, "A"))
    lua_getiuservalue(L, 1, 1);
  else {
    luaL_getmetatable(L, SOLVER_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg solver_methods[] = {
    {"solve", s_solve}, {"refactor", s_refactor}, {"free", s_free}, {NULL, NULL}};
static const luaL_Reg solver_meta[] = {{"__gc", s_free},
                                       {"__close", s_free},
                                       {"__tostring", s_tostring},
                                       {"__index", s_index},
                                       {NULL, NULL}};

/* -------------------------------------------------------------- Factor */

static tide_factor *checkfactor(lua_State *L, int idx) {
  return tide_lua_checkobj(L, idx, TIDE_FACTOR_T);
}

static int f_free(lua_State *L) {
  tide_factor_free(tide_lua_takeobj(L, 1, TIDE_FACTOR_T));
  return 0;
}

/* the names of TIDE_ORDER_* (in their order) */
static const char *const ORDERINGS[] = {"auto", "amd", "metis", NULL};

/* tide.linalg.cholesky / ldlt / lu(A [, { ordering = "auto" | "amd" | "metis" }]) */
static int new_factor(lua_State *L, int kind, const char *fn) {
  tide_csr *A = checkmat(L, 1);
  if (A->nrows != A->ncols)
    tide_lua_error(L, "%s: A must be square, got %d x %d", fn, A->nrows, A->ncols);
  int ordering = TIDE_ORDER_AUTO;
  if (!lua_isnoneornil(L, 2)) {
    static const char *const keys[] = {"ordering", NULL};
    tide_opts o = tide_lua_opts(L, 2, fn, keys);
    ordering = tide_opt_choice(&o, "ordering", "auto", ORDERINGS);
  }
  tide_factor *F = NULL;
  tide_lua_check(L, tide_factor_new_ordered(A, kind, ordering, &F), fn);
  tide_lua_pushobj(L, TIDE_FACTOR_T, F);
  tide_lua_gcaccount(L);
  return 1;
}

static int l_cholesky(lua_State *L) {
  return new_factor(L, TIDE_FACTOR_CHOLESKY, "tide.linalg.cholesky");
}
static int l_ldlt(lua_State *L) { return new_factor(L, TIDE_FACTOR_LDLT, "tide.linalg.ldlt"); }
static int l_lu(lua_State *L) { return new_factor(L, TIDE_FACTOR_LU, "tide.linalg.lu"); }

/* tide.linalg.condest{ A =, factor = F | method = "lu" } -> cond, info
 * 1-norm condition number estimate (Hager/Higham, tide_condest1). */
static int l_condest(lua_State *L) {
  const char *fn = "tide.linalg.condest";
  static const char *const keys[] = {"A", "factor", "method", NULL};
  static const char *const kinds[] = {"cholesky", "ldlt", "lu", NULL};
  tide_opts o = tide_lua_opts(L, 1, fn, keys);
  tide_csr *A = tide_opt_reqobj(&o, "A", TIDE_MATRIX_T);
  if (A->nrows != A->ncols)
    tide_lua_error(L, "%s: A must be square, got %d x %d", fn, A->nrows, A->ncols);
  if (A->nrows == 0) tide_lua_error(L, "%s: A is empty", fn);
  tide_factor *F = tide_opt_obj(&o, "factor", TIDE_FACTOR_T);
  double t0 = tide_wtime();
  if (F) {
    if (tide_opt_has(&o, "method"))
      tide_lua_error(L, "%s: give either factor or method, not both", fn);
  } else {
    int kind = tide_opt_choice(&o, "method", "lu", kinds);
    tide_lua_check(L, tide_factor_new(A, kind, &F), fn);
    tide_lua_pushobj(L, TIDE_FACTOR_T, F); /* freed by the GC, also on error */
  }
  double cond, na, ni;
  int solves = 0;
  tide_lua_check(L, tide_condest1(A, F, &cond, &na, &ni, &solves), fn);
  lua_pushnumber(L, cond);
  lua_createtable(L, 0, 4);
  lua_pushnumber(L, na);
  lua_setfield(L, -2, "norm");
  lua_pushnumber(L, ni);
  lua_setfield(L, -2, "inv_norm");
  lua_pushinteger(L, solves);
  lua_setfield(L, -2, "solves");
  lua_pushnumber(L, tide_wtime() - t0);
  lua_setfield(L, -2, "seconds");
  return 2;
}

/* F:solve(b [, x]) -> x */
static int f_solve(lua_State *L) {
  const char *fn = "Factor:solve";
  tide_factor *F = checkfactor(L, 1);
  tide_factor_stats fs;
  tide_factor_info(F, &fs);
  tide_array *b = checkvec(L, 2, fn, "b", fs.n, 1), *x;
  if (lua_isnoneornil(L, 3)) {
    x = pushnewvec(L, fn, fs.n);
  } else {
    x = checkvec(L, 3, fn, "x", fs.n, 0);
    lua_pushvalue(L, 3);
  }
  tide_lua_check(L, tide_factor_solve(F, TIDE_F64P(b), TIDE_F64P(x)), fn);
  return 1;
}

/* F:refactor(A): numeric factorization of new values, same pattern */
static int f_refactor(lua_State *L) {
  tide_factor *F = checkfactor(L, 1);
  tide_csr *A = checkmat(L, 2);
  tide_lua_check(L, tide_factor_refactor(F, A), "Factor:refactor");
  tide_lua_gcaccount(L);
  lua_settop(L, 1);
  return 1;
}

static void pushinfo(lua_State *L, const tide_factor_stats *s) {
  lua_createtable(L, 0, 10);
  lua_pushstring(L, tide_factor_name(s->kind));
  lua_setfield(L, -2, "kind");
  lua_pushinteger(L, s->n);
  lua_setfield(L, -2, "n");
  lua_pushinteger(L, s->nnz_A);
  lua_setfield(L, -2, "nnz_A");
  lua_pushinteger(L, s->nnz_factor);
  lua_setfield(L, -2, "nnz_L");
  lua_pushnumber(L, s->flops);
  lua_setfield(L, -2, "flops");
  lua_pushinteger(L, s->bytes);
  lua_setfield(L, -2, "bytes");
  lua_pushnumber(L, s->analyze_seconds);
  lua_setfield(L, -2, "analyze_seconds");
  lua_pushnumber(L, s->factor_seconds);
  lua_setfield(L, -2, "factor_seconds");
  lua_pushboolean(L, s->supernodal);
  lua_setfield(L, -2, "supernodal");
  lua_pushinteger(L, s->refactors);
  lua_setfield(L, -2, "refactors");
  lua_pushinteger(L, s->blocks);
  lua_setfield(L, -2, "blocks");
  lua_pushinteger(L, s->subtrees);
  lua_setfield(L, -2, "subtrees");
  lua_pushstring(L, ORDERINGS[s->ordering]);
  lua_setfield(L, -2, "ordering");
}

static int f_info(lua_State *L) {
  tide_factor_stats s;
  tide_factor_info(checkfactor(L, 1), &s);
  pushinfo(L, &s);
  return 1;
}

static int f_tostring(lua_State *L) {
  tide_factor *F = tide_lua_testobj(L, 1, TIDE_FACTOR_T);
  if (!F) {
    lua_pushstring(L, "tide.Factor (freed)");
    return 1;
  }
  tide_factor_stats s;
  tide_factor_info(F, &s);
  lua_pushfstring(L, "tide.Factor %s of %d x %d, nnz(L) = %I, %I bytes", tide_factor_name(s.kind),
                  s.n, s.n, (lua_Integer)s.nnz_factor, (lua_Integer)s.bytes);
  return 1;
}

static int f_index(lua_State *L) {
  tide_factor *F = checkfactor(L, 1);
  const char *k = luaL_checkstring(L, 2);
  tide_factor_stats s;
  tide_factor_info(F, &s);
  if (!strcmp(k, "nnz_L"))
    lua_pushinteger(L, s.nnz_factor);
  else if (!strcmp(k, "n"))
    lua_pushinteger(L, s.n);
  else if (!strcmp(k, "kind"))
    lua_pushstring(L, tide_factor_name(s.kind));
  else {
    luaL_getmetatable(L, TIDE_FACTOR_T);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static const luaL_Reg factor_methods[] = {
    {"solve", f_solve}, {"refactor", f_refactor}, {"info", f_info}, {"free", f_free}, {NULL, NULL}};
static const luaL_Reg factor_meta[] = {{"__gc", f_free},
                                       {"__close", f_free},
                                       {"__tostring", f_tostring},
                                       {"__index", f_index},
                                       {NULL, NULL}};

/* --------------------------------------------------------------- module */

static const luaL_Reg funcs[] = {
    {"matrix", l_matrix}, {"solve", l_solve}, {"solver", l_solver}, {"cholesky", l_cholesky},
    {"ldlt", l_ldlt},     {"lu", l_lu},       {"condest", l_condest}, {NULL, NULL}};

/* lua_linalg_mg.c */
void tide_lua_linalg_mg_open(lua_State *L);

int luaopen_tide_linalg(lua_State *L) {
  luaL_requiref(L, "tide.array", luaopen_tide_array, 0);
  lua_pop(L, 1);
  tide_lua_newtype(L, TIDE_MATRIX_T, matrix_methods, matrix_meta);
  tide_lua_newtype(L, TIDE_FACTOR_T, factor_methods, factor_meta);
  tide_lua_newtype(L, SOLVER_T, solver_methods, solver_meta);
  static const luaL_Reg tr_meta[] = {{"__gc", tr_gc}, {NULL, NULL}};
  tide_lua_newtype(L, TRIPLETS_T, NULL, tr_meta);
  luaL_newlib(L, funcs);
  tide_lua_linalg_mg_open(L); /* MAC-grid Poisson solvers (lua_linalg_mg.c) */
  return 1;
}
