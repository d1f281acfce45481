/*
 * lua_fileio_plot.c -- tide.fileio.plot (line plots to PNG),
 * tide.fileio.loglog_fit and tide.fileio.movie (ffmpeg).  Registered by
 * lua_fileio.c.
 */
#include "tide_lua.h"

#include "fileio/fileio.h"
#include "fileio/lua_fileio_util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FN "tide.fileio"
#define MAXSERIES 32

/* matplotlib's "tab10" cycle */
static const float cycle[10][3] = {{0.122f, 0.467f, 0.706f}, {1.000f, 0.498f, 0.055f},
                                   {0.173f, 0.627f, 0.173f}, {0.839f, 0.153f, 0.157f},
                                   {0.580f, 0.404f, 0.741f}, {0.549f, 0.337f, 0.294f},
                                   {0.890f, 0.467f, 0.761f}, {0.498f, 0.498f, 0.498f},
                                   {0.737f, 0.741f, 0.133f}, {0.090f, 0.745f, 0.812f}};

/* a 1-D Array or a Lua list of numbers at idx as doubles (n values) */
static const double *numbers(lua_State *L, int idx, const char *fname, const char *what,
                             int64_t *n) {
  idx = lua_absindex(L, idx);
  tide_array *a = tide_lua_testarray(L, idx);
  if (a) {
    if (a->ndim != 1)
      tide_lua_error(L, "%s: %s must be a 1-D array, got %d dimensions", fname, what, a->ndim);
    int64_t shp[1] = {-1};
    *n = a->shape[0];
    return tide_lua_fileio_f64(L, a, fname, what, 1, shp);
  }
  if (!lua_istable(L, idx))
    tide_lua_error(L, "%s: %s must be a tide.Array or a list of numbers, got %s", fname, what,
                   luaL_typename(L, idx));
  lua_Integer m = luaL_len(L, idx);
  tide_array *c = tide_array_new1(TIDE_F64, m);
  if (!c) tide_lua_error(L, "%s: %s", fname, tide_errmsg());
  tide_lua_pusharray(L, c);
  double *p = TIDE_F64P(c);
  for (lua_Integer k = 0; k < m; k++) {
    if (lua_geti(L, idx, k + 1) != LUA_TNUMBER)
      tide_lua_error(L, "%s: %s[%I] must be a number, got %s", fname, what, k + 1,
                     luaL_typename(L, -1));
    p[k] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  *n = m;
  return p;
}

static const char *const plot_keys[] = {"path",   "width",  "height", "font_scale", "title",
                                        "xlabel", "ylabel", "xlog",   "ylog",       "xrange",
                                        "yrange", "legend", "grid",   "series",     NULL};
static const char *const series_keys[] = {"x",    "y",      "label",       "color", "width",
                                          "dash", "marker", "marker_size", NULL};
static const char *const legend_names[] = {"none",       "upper right", "upper left",
                                           "lower left", "lower right", NULL};
static const char *const dash_names[] = {"solid", "dashed", "dotted", NULL};

static int l_plot(lua_State *L) {
  const char *F = FN ".plot";
  tide_opts o = tide_lua_opts(L, 1, F, plot_keys);
  const char *path = tide_opt_str(&o, "path", NULL);
  if (!path || !*path) tide_lua_error(L, "%s: missing option 'path'", F);
  tide_plot p;
  memset(&p, 0, sizeof p);
  p.width = (int)tide_opt_int(&o, "width", 640, 64, 8192);
  p.height = (int)tide_opt_int(&o, "height", 480, 48, 8192);
  p.fs = (int)tide_opt_int(&o, "font_scale", p.width >= 1000 ? 2 : 1, 1, 16);
  p.title = tide_opt_str(&o, "title", NULL);
  p.xlabel = tide_opt_str(&o, "xlabel", NULL);
  p.ylabel = tide_opt_str(&o, "ylabel", NULL);
  p.xlog = tide_opt_bool(&o, "xlog", 0);
  p.ylog = tide_opt_bool(&o, "ylog", 0);
  p.xfixed = tide_lua_fileio_range(&o, "xrange", p.xr);
  p.yfixed = tide_lua_fileio_range(&o, "yrange", p.yr);
  if ((p.xfixed && p.xlog && !(p.xr[0] > 0)) || (p.yfixed && p.ylog && !(p.yr[0] > 0)))
    tide_lua_error(L, "%s: a log axis needs a positive range", F);
  p.grid = tide_opt_bool(&o, "grid", 1);
  if (tide_opt_has(&o, "legend")) {
    lua_getfield(L, o.idx, "legend");
    int isbool = lua_isboolean(L, -1), b = lua_toboolean(L, -1);
    lua_pop(L, 1);
    p.legend = isbool ? (b ? TIDE_LEGEND_UR : TIDE_LEGEND_NONE)
                      : tide_opt_choice(&o, "legend", "upper right", legend_names);
  } else {
    p.legend = TIDE_LEGEND_UR;
  }
  tide_series s[MAXSERIES];
  if (!tide_opt_has(&o, "series"))
    tide_lua_error(L, "%s: missing option 'series' (a list of {x =, y =, ...})", F);
  lua_getfield(L, o.idx, "series");
  if (!lua_istable(L, -1)) tide_lua_error(L, "%s: option 'series' must be a list of tables", F);
  int lt = lua_gettop(L);
  lua_Integer ns = luaL_len(L, lt);
  if (ns < 1 || ns > MAXSERIES)
    tide_lua_error(L, "%s: 1..%d series expected, got %I", F, MAXSERIES, ns);
  for (int q = 0; q < ns; q++) {
    lua_geti(L, lt, q + 1);
    int ti = lua_gettop(L);
    char fname[64];
    snprintf(fname, sizeof fname, "%s: series[%d]", F, q + 1);
    tide_opts so = tide_lua_opts(L, ti, fname, series_keys);
    tide_series *se = &s[q];
    memset(se, 0, sizeof *se);
    if (!tide_opt_has(&so, "y")) tide_lua_error(L, "%s: missing 'y'", fname);
    lua_getfield(L, ti, "y");
    int64_t ny;
    se->y = numbers(L, -1, fname, "y", &ny);
    se->n = ny;
    if (tide_opt_has(&so, "x")) {
      lua_getfield(L, ti, "x");
      int64_t nx;
      se->x = numbers(L, -1, fname, "x", &nx);
      if (nx != ny)
        tide_lua_error(L, "%s: x has %I values, y has %I", fname, (lua_Integer)nx, (lua_Integer)ny);
    } else {
      tide_array *xa = tide_array_new1(TIDE_F64, ny);
      if (!xa) tide_lua_error(L, "%s: %s", fname, tide_errmsg());
      tide_lua_pusharray(L, xa);
      for (int64_t k = 0; k < ny; k++)
        TIDE_F64P(xa)[k] = (double)(k + 1);
      se->x = TIDE_F64P(xa);
    }
    se->label = tide_opt_str(&so, "label", NULL);
    tide_lua_fileio_color(&so, "color", cycle[q % 10], se->color);
    se->marker = tide_opt_choice(&so, "marker", "none", tide_marker_names);
    se->width = tide_opt_num(&so, "width",
                             se->marker && !tide_opt_has(&so, "dash") ? 0 : 1.5 * p.fs, 0, 50);
    se->dash = tide_opt_choice(&so, "dash", "solid", dash_names);
    se->msize = tide_opt_num(&so, "marker_size", 7 * p.fs, 1, 100);
    if (se->width == 0 && !se->marker)
      tide_lua_error(L, "%s: width 0 without a marker draws nothing", fname);
    lua_remove(L, ti); /* converted arrays stay on the stack, the list keeps the table */
  }
  p.nseries = (int)ns;
  p.s = s;
  tide_canvas *c;
  tide_lua_check(L, tide_plot_draw(&p, &c), F);
  int st = tide_canvas_write_png(c, path);
  tide_canvas_free(c);
  tide_lua_check(L, st, F);
  lua_pushstring(L, path);
  return 1;
}

/* tide.fileio.loglog_fit(x, y) -> slope, coefficient: y ~ coefficient * x^slope */
static int l_loglog_fit(lua_State *L) {
  const char *F = FN ".loglog_fit";
  int64_t nx, ny;
  const double *x = numbers(L, 1, F, "x", &nx);
  const double *y = numbers(L, 2, F, "y", &ny);
  if (nx != ny)
    tide_lua_error(L, "%s: x has %I values, y has %I", F, (lua_Integer)nx, (lua_Integer)ny);
  double slope, b;
  tide_lua_check(L, tide_loglog_fit(nx, x, y, &slope, &b), F);
  lua_pushnumber(L, slope);
  lua_pushnumber(L, pow(10.0, b));
  return 2;
}

/* ---------------------------------------------------------------- movie */

/* single-quote s for the shell into b */
static void shell_quote(luaL_Buffer *b, const char *s) {
  luaL_addchar(b, '\'');
  for (; *s; s++) {
    if (*s == '\'')
      luaL_addstring(b, "'\\''");
    else
      luaL_addchar(b, *s);
  }
  luaL_addchar(b, '\'');
}

static const char *const movie_keys[] = {"frames", "output", "fps", "crf", "start", "codec", NULL};

/* tide.fileio.movie{ frames = "out/x/frame_%04d.png", output = "out/x.mp4", fps = 30, crf = 18 }
 *   -> output, or nil, message (ffmpeg missing or failed; the message holds
 *   the command line to run by hand) */
static int l_movie(lua_State *L) {
  const char *F = FN ".movie";
  if (tide_sandbox_on()) /* no processes in the sandbox */
    tide_lua_error(L, "%s: sandbox: running ffmpeg is not allowed (tide --sandbox); make the movie outside",
                   F);
  tide_opts o = tide_lua_opts(L, 1, F, movie_keys);
  const char *frames = tide_opt_str(&o, "frames", NULL);
  if (!frames || !*frames)
    tide_lua_error(L, "%s: missing option 'frames' (a pattern like \"out/x_%%04d.png\")", F);
  const char *pc = strchr(frames, '%'), *q = pc ? pc + 1 : NULL;
  while (q && isdigit((unsigned char)*q))
    q++;
  if (!pc || *q != 'd' || strchr(q, '%'))
    tide_lua_error(L, "%s: option 'frames' must hold one %%d or %%0Nd, got '%s'", F, frames);
  const char *output = tide_opt_str(&o, "output", NULL);
  if (!output || !*output) tide_lua_error(L, "%s: missing option 'output'", F);
  const char *dot = strrchr(output, '.');
  if (!dot || dot < strrchr(output, '/') || !dot[1])
    tide_lua_error(L, "%s: option 'output' needs an extension (.mp4, .webm, .gif)", F);
  double fps = tide_opt_num(&o, "fps", 30, 0.01, 1000);
  int crf = (int)tide_opt_int(&o, "crf", 18, 0, 63);
  int start = (int)tide_opt_int(&o, "start", 0, 0, 100000000);
  const char *codec = tide_opt_str(&o, "codec",
                                   strcmp(dot, ".webm") == 0  ? "libvpx-vp9"
                                   : strcmp(dot, ".gif") == 0 ? "gif"
                                                              : "libx264");
  for (const char *c = codec; *c; c++)
    if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-'))
      tide_lua_error(L, "%s: bad codec name '%s'", F, codec);
  char first[4096]; /* the pattern with its one %0Nd filled in */
  snprintf(first, sizeof first, pc[1] == '0' ? "%.*s%0*d%s" : "%.*s%*d%s", (int)(pc - frames),
           frames, atoi(pc + 1), start, q + 1);
  struct stat st;
  if (stat(first, &st) != 0) tide_lua_error(L, "%s: no first frame '%s'", F, first);
  /* the temporary output keeps the extension so ffmpeg picks the container */
  const char *slash = strrchr(output, '/');
  int dl = slash ? (int)(slash - output + 1) : 0;
  lua_pushfstring(L, "%s.%s.tmp-%d%s", lua_pushlstring(L, output, (size_t)dl), output + dl,
                  (int)getpid(), dot);
  const char *tmp = lua_tostring(L, -1);
  int gif = !strcmp(dot, ".gif");
  for (int pass = 0; pass < 2; pass++) { /* the command for the user, then the one we run */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "ffmpeg -y -loglevel error -framerate ");
    lua_pushfstring(L, "%f", fps);
    luaL_addvalue(&b);
    lua_pushfstring(L, " -start_number %d -i ", start);
    luaL_addvalue(&b);
    shell_quote(&b, frames);
    if (gif) {
      luaL_addstring(&b, " ");
    } else {
      lua_pushfstring(L, " -c:v %s -pix_fmt yuv420p -crf %d -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' ",
                      codec, crf);
      luaL_addvalue(&b);
    }
    shell_quote(&b, pass ? tmp : output);
    luaL_pushresult(&b);
  }
  const char *run = lua_tostring(L, -1), *show = lua_tostring(L, -2);
  if (system("command -v ffmpeg >/dev/null 2>&1") != 0) {
    lua_pushnil(L);
    lua_pushfstring(L,
                    "ffmpeg is not installed (Debian: apt-get install ffmpeg); the frames are "
                    "kept; make the movie with:\n  %s",
                    show);
    return 2;
  }
  if (tide_fileio_mkdirs(output)) tide_lua_error(L, "%s: %s", F, tide_errmsg());
  int rc = system(run);
  if (rc != 0 || stat(tmp, &st) != 0 || st.st_size == 0) {
    remove(tmp);
    lua_pushnil(L);
    lua_pushfstring(L, "ffmpeg failed (status %d) running:\n  %s",
                    WIFEXITED(rc) ? WEXITSTATUS(rc) : rc, show);
    return 2;
  }
  if (rename(tmp, output) != 0) {
    remove(tmp);
    tide_lua_error(L, "%s: cannot move the movie to '%s'", F, output);
  }
  lua_pushstring(L, output);
  return 1;
}

static const luaL_Reg funcs_plot[] = {
    {"plot", l_plot}, {"loglog_fit", l_loglog_fit}, {"movie", l_movie}, {NULL, NULL}};

void tide_lua_fileio_plot_open(lua_State *L) { luaL_setfuncs(L, funcs_plot, 0); }
