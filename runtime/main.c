/*
 * main.c -- the `tide` program: a Lua 5.4 interpreter with Tide preloaded.
 *
 *   tide [options] [script [args]]
 *
 * Follows lua.c: options are handled in order, everything after the script
 * name goes to `arg`, `-` reads the script from stdin, and without a script
 * an interactive REPL starts (line editing and history through libedit).
 * Exit status: 0 success, 1 script error, 2 usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include "tide_lua.h"
#include "version.h"

#include <editline/readline.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int luaopen_tide(lua_State *L);
void tide_lua_openall(lua_State *L);

static const char *progname = "tide";
static lua_State *globalL = NULL;

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: %s [options] [script [args]]\n"
      "Available options are:\n"
      "  -e stat        execute string 'stat'\n"
      "  -l mod         require library 'mod' into global 'mod'\n"
      "  -i             enter interactive mode after executing 'script'\n"
      "  -v, --version  show version information (Tide, Lua, SuiteSparse, libpng, BLAS, threads)\n"
      "  --threads N    use N OpenMP threads (default: all cores)\n"
      "  --seed N       seed of all random numbers (default 1)\n"
      "  --quiet        no per-frame output\n"
      "  --progress     progress bar on stderr even when it is not a terminal\n"
      "  --no-progress  never draw a progress bar\n"
      "  --sandbox      run the script without process execution, native code, binary chunks,\n"
      "                 debug, reads outside its folder/Tide's library/the output folder,\n"
      "                 writes outside the output folder (docs/getting-started.md)\n"
      "  --out DIR      the sandbox's output folder (default: out)\n"
      "  --memory MB    the sandbox's memory limit (default: none)\n"
      "  --time S       the sandbox's wall-clock limit in seconds (default: none)\n"
      "  -h, --help     show this help\n"
      "  --             stop handling options\n"
      "  -              stop handling options and execute stdin\n",
      progname);
}

/* ------------------------------------------------------ signals (lua.c) */

static void lstop(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  if (tide_interrupt_flag == SIGTERM) luaL_error(L, "terminated (SIGTERM)");
  luaL_error(L, "interrupted!");
}

/* SIGINT (Ctrl-C) and SIGTERM alike: the flag holds the signal, so long C
 * loops return TIDE_EINTR and tide.run records the reason; Lua code stops at
 * the next instruction.  A second signal kills the process. */
static void laction(int i) {
  int flag = LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT;
  signal(i, SIG_DFL);
  tide_interrupt_flag = i;
  lua_sethook(globalL, lstop, flag, 1);
}

static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  msg = tide_lua_userposition(L, msg);
  luaL_traceback(L, L, msg, 1);
  return 1;
}

static int docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  globalL = L;
  tide_interrupt_clear();
  signal(SIGINT, laction);
  signal(SIGTERM, laction);
  int status = lua_pcall(L, narg, nres, base);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  tide_interrupt_clear();
  lua_remove(L, base);
  return status;
}

static int report(lua_State *L, int status) {
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "%s: %s\n", progname, msg ? msg : "(error)");
    fflush(stderr);
    lua_pop(L, 1);
  }
  return status;
}

static int dochunk(lua_State *L, int status) {
  if (status == LUA_OK) status = docall(L, 0, 0);
  return report(L, status);
}

static int dostring(lua_State *L, const char *s, const char *name) {
  return dochunk(L, luaL_loadbuffer(L, s, strlen(s), name));
}

static int dolibrary(lua_State *L, const char *name) {
  lua_getglobal(L, "require");
  lua_pushstring(L, name);
  int status = docall(L, 1, 1);
  if (status == LUA_OK) {
    /* global name: the part after the last '.' ("tide.grid" -> grid) */
    const char *g = strrchr(name, '.');
    lua_setglobal(L, g ? g + 1 : name);
  }
  return report(L, status);
}

static int pushargs(lua_State *L) {
  if (lua_getglobal(L, "arg") != LUA_TTABLE) luaL_error(L, "'arg' is not a table");
  int n = (int)luaL_len(L, -1);
  luaL_checkstack(L, n + 3, "too many arguments to script");
  int i;
  for (i = 1; i <= n; i++)
    lua_rawgeti(L, -i, i);
  lua_remove(L, -i);
  return n;
}

static int handle_script(lua_State *L, char **argv) {
  const char *fname = argv[0];
  if (strcmp(fname, "-") == 0 && strcmp(argv[-1], "--") != 0) fname = NULL; /* stdin */
  int status = luaL_loadfile(L, fname);
  if (status == LUA_OK) {
    int n = pushargs(L);
    status = docall(L, n, LUA_MULTRET);
  }
  return report(L, status);
}

static void createargtable(lua_State *L, char **argv, int argc, int script) {
  int narg = argc - (script + 1);
  lua_createtable(L, narg, script + 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

/* ------------------------------------------------------------------ REPL */

#define HISTORY_MAX 1000

static char history_path[1024];

static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    const char *eof = "<eof>";
    size_t le = strlen(eof);
    if (lmsg >= le && strcmp(msg + lmsg - le, eof) == 0) {
      lua_pop(L, 1);
      return 1;
    }
  }
  return 0;
}

static int pushline(lua_State *L, int firstline) {
  char *b = readline(firstline ? "> " : ">> ");
  if (b == NULL) return 0;
  size_t l = strlen(b);
  if (l > 0 && b[l - 1] == '\n') b[--l] = '\0';
  if (firstline && b[0] == '=')
    lua_pushfstring(L, "return %s", b + 1);
  else
    lua_pushlstring(L, b, l);
  free(b);
  return 1;
}

static int addreturn(lua_State *L) {
  const char *line = lua_tostring(L, -1);
  const char *retline = lua_pushfstring(L, "return %s;", line);
  int status = luaL_loadbuffer(L, retline, strlen(retline), "=stdin");
  if (status == LUA_OK) {
    lua_remove(L, -2);
    if (line[0] != '\0') add_history(line);
  } else {
    lua_pop(L, 2);
  }
  return status;
}

static int multiline(lua_State *L) {
  for (;;) {
    size_t len;
    const char *line = lua_tolstring(L, 1, &len);
    int status = luaL_loadbuffer(L, line, len, "=stdin");
    if (!incomplete(L, status) || !pushline(L, 0)) {
      add_history(line);
      return status;
    }
    lua_pushliteral(L, "\n");
    lua_insert(L, -2);
    lua_concat(L, 3);
  }
}

static int loadline(lua_State *L) {
  lua_settop(L, 0);
  if (!pushline(L, 1)) return -1;
  int status = addreturn(L);
  if (status != LUA_OK) status = multiline(L);
  lua_remove(L, 1);
  return status;
}

static void print_results(lua_State *L) {
  int n = lua_gettop(L);
  if (n > 0) {
    luaL_checkstack(L, LUA_MINSTACK, "too many results to print");
    lua_getglobal(L, "print");
    lua_insert(L, 1);
    if (lua_pcall(L, n, 0, 0) != LUA_OK)
      fprintf(stderr, "%s: error calling 'print' (%s)\n", progname, lua_tostring(L, -1));
  }
}

/* Tab completion over global and module tables: "tide.gr<TAB>" walks _G.tide
 * and offers its keys; "a:fi<TAB>" offers methods of a's metatable. */
static char **completion_list;
static int completion_count;

static void completion_add(const char *prefix, const char *key, char sep) {
  size_t n = strlen(prefix) + strlen(key) + 2;
  char *s = malloc(n);
  if (!s) return;
  if (sep)
    snprintf(s, n, "%s%c%s", prefix, sep, key);
  else
    snprintf(s, n, "%s", key);
  char **grown = realloc(completion_list, (size_t)(completion_count + 1) * sizeof *grown);
  if (!grown) {
    free(s);
    return;
  }
  completion_list = grown;
  completion_list[completion_count++] = s;
}

static void completion_collect_table(lua_State *L, int t, const char *head, char sep,
                                     const char *tail) {
  size_t lt = strlen(tail);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      if (strncmp(k, tail, lt) == 0 && k[0] != '_') completion_add(head, k, sep);
    }
  }
}

static void completion_collect(const char *text) {
  lua_State *L = globalL;
  if (!L) return;
  int top = lua_gettop(L);
  /* split at the last '.' or ':' */
  const char *cut = NULL;
  for (const char *p = text; *p; p++)
    if (*p == '.' || *p == ':') cut = p;
  if (!cut) {
    lua_pushglobaltable(L);
    completion_collect_table(L, lua_gettop(L), "", 0, text);
    lua_settop(L, top);
    return;
  }
  char head[512];
  size_t lh = (size_t)(cut - text);
  if (lh >= sizeof head) return;
  memcpy(head, text, lh);
  head[lh] = '\0';
  /* evaluate the head as a chain of names */
  lua_pushglobaltable(L);
  char tmp[512];
  memcpy(tmp, head, lh + 1);
  for (char *tok = strtok(tmp, ".:"); tok; tok = strtok(NULL, ".:")) {
    if (lua_type(L, -1) != LUA_TTABLE) {
      lua_settop(L, top);
      return;
    }
    lua_getfield(L, -1, tok);
    lua_remove(L, -2);
  }
  if (lua_type(L, -1) == LUA_TTABLE)
    completion_collect_table(L, lua_gettop(L), head, *cut, cut + 1);
  if (lua_getmetatable(L, -1)) {
    int mt = lua_gettop(L);
    lua_getfield(L, mt, "methods");
    if (lua_type(L, -1) == LUA_TTABLE)
      completion_collect_table(L, lua_gettop(L), head, *cut, cut + 1);
    lua_pop(L, 1);
    lua_getfield(L, mt, "__index");
    if (lua_type(L, -1) == LUA_TTABLE)
      completion_collect_table(L, lua_gettop(L), head, *cut, cut + 1);
  }
  lua_settop(L, top);
}

static char *completion_generator(const char *text, int state) {
  static int next;
  if (state == 0) {
    for (int i = 0; i < completion_count; i++)
      free(completion_list[i]);
    free(completion_list);
    completion_list = NULL;
    completion_count = 0;
    next = 0;
    completion_collect(text);
  }
  if (next < completion_count) {
    char *s = completion_list[next];
    completion_list[next++] = NULL;
    return s;
  }
  return NULL;
}

static char **completion(const char *text, int start, int end) {
  (void)start;
  (void)end;
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, completion_generator);
}

/* The banner promises tide.help() and tide.<Tab>: the REPL has `tide` as a
 * global (unless the user's -e/-l/script already set one). */
static void preload_tide_global(lua_State *L) {
  if (lua_getglobal(L, "tide") == LUA_TNIL) {
    lua_pop(L, 1);
    lua_getglobal(L, "require");
    lua_pushstring(L, "tide");
    if (docall(L, 1, 1) == LUA_OK)
      lua_setglobal(L, "tide");
    else
      report(L, LUA_ERRRUN);
    return;
  }
  lua_pop(L, 1);
}

static void doREPL(lua_State *L) {
  const char *oldprogname = progname;
  preload_tide_global(L);
  progname = NULL;
  globalL = L;
  const char *home = getenv("HOME");
  if (home) {
    snprintf(history_path, sizeof history_path, "%s/.tide_history", home);
    using_history();
    read_history(history_path);
  }
  rl_readline_name = "tide";
  rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,+-*/%^#~[]";
  rl_attempted_completion_function = completion;
  int status;
  progname = oldprogname;
  while ((status = loadline(L)) != -1) {
    if (status == LUA_OK) status = docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK)
      print_results(L);
    else
      report(L, status);
  }
  lua_settop(L, 0);
  fputc('\n', stdout);
  fflush(stdout);
  if (home) {
    stifle_history(HISTORY_MAX);
    write_history(history_path);
  }
}

/* ------------------------------------------------------------------ main */

static void print_version(lua_State *L) {
  lua_getglobal(L, "require");
  lua_pushstring(L, "tide.core");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "versions");
  lua_call(L, 0, 1);
  const char *keys[] = {"tide", "lua",      "suitesparse", "libpng", "blas",
                        "git",  "compiler", "flags",       "target", "cpu", NULL};
  const char *labels[] = {"Tide", "Lua",      "SuiteSparse", "libpng", "BLAS",
                          "git",  "compiler", "flags",       "built for", "CPU", NULL};
  for (int i = 0; keys[i]; i++) {
    lua_getfield(L, -1, keys[i]);
    printf("%-12s %s\n", labels[i], lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  printf("%-12s %d\n", "threads", tide_threads_get());
  printf("%-12s %s\n", "omp wait", tide_omp_wait_info());
  lua_pop(L, 2);
}

typedef struct options {
  int script;      /* index of the script in argv, 0 if none */
  int interactive; /* -i */
  int version;
  int had_e;
  int quiet;
  int progress; /* -1 auto, 0 off, 1 on */
  int sandbox;
  const char *out;
  double memory, time;
} options;

/* First pass: validate options; returns 0 on a usage error. */
static int collectargs(char **argv, options *o) {
  int i;
  for (i = 1; argv[i] != NULL; i++) {
    const char *a = argv[i];
    if (a[0] != '-') break;
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (!strcmp(a, "-")) break;
    if (!strcmp(a, "-i"))
      o->interactive = 1;
    else if (!strcmp(a, "-v") || !strcmp(a, "--version"))
      o->version = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
      return -1;
    else if (!strcmp(a, "--quiet"))
      o->quiet = 1;
    else if (!strcmp(a, "--progress"))
      o->progress = 1;
    else if (!strcmp(a, "--no-progress"))
      o->progress = 0;
    else if (!strcmp(a, "--sandbox"))
      o->sandbox = 1;
    else if (!strcmp(a, "--out") || !strcmp(a, "--memory") || !strcmp(a, "--time")) {
      if (argv[i + 1] == NULL) {
        fprintf(stderr, "%s: '%s' needs an argument\n", progname, a);
        return 0;
      }
      if (!strcmp(a, "--out")) {
        o->out = argv[i + 1];
      } else {
        char *end;
        double v = strtod(argv[i + 1], &end);
        if (*end || end == argv[i + 1] || !(v > 0) || v > 1e12) {
          fprintf(stderr, "%s: '%s' needs a positive number, got '%s'\n", progname, a, argv[i + 1]);
          return 0;
        }
        if (!strcmp(a, "--memory")) o->memory = v; else o->time = v;
      }
      i++;
    }
    else if (!strcmp(a, "-e") || !strcmp(a, "-l") || !strcmp(a, "--threads") ||
             !strcmp(a, "--seed")) {
      if (!strcmp(a, "-e")) o->had_e = 1;
      if (argv[i + 1] == NULL) {
        fprintf(stderr, "%s: '%s' needs an argument\n", progname, a);
        return 0;
      }
      if (!strcmp(a, "--threads") || !strcmp(a, "--seed")) {
        char *end;
        long long v = strtoll(argv[i + 1], &end, 10);
        if (*end || end == argv[i + 1] || v < 0 ||
            (!strcmp(a, "--threads") && (v < 1 || v > 4096))) {
          fprintf(stderr, "%s: '%s' needs a %s integer, got '%s'\n", progname, a,
                  !strcmp(a, "--threads") ? "positive" : "non-negative", argv[i + 1]);
          return 0;
        }
      }
      i++;
    } else {
      fprintf(stderr, "%s: unrecognized option '%s'\n", progname, a);
      return 0;
    }
  }
  o->script = argv[i] ? i : 0;
  if ((o->out || o->memory > 0 || o->time > 0) && !o->sandbox) {
    fprintf(stderr, "%s: --out, --memory and --time belong to --sandbox\n", progname);
    return 0;
  }
  if (o->sandbox && (!o->script || o->interactive || o->had_e || strcmp(argv[o->script], "-") == 0)) {
    fprintf(stderr, "%s: --sandbox runs a script file (no -e, -i, REPL or stdin)\n", progname);
    return 0;
  }
  return 1;
}

/* tide --sandbox: the script through tide.sandbox.run (lua/tide/sandbox.lua) */
static int handle_sandbox(lua_State *L, char **argv, const options *o) {
  lua_getglobal(L, "require");
  lua_pushstring(L, "tide.sandbox");
  int status = docall(L, 1, 1);
  if (status != LUA_OK) return report(L, status);
  lua_getfield(L, -1, "run");
  lua_remove(L, -2);
  lua_createtable(L, 0, 5);
  lua_pushstring(L, argv[0]);
  lua_setfield(L, -2, "script");
  if (o->out) {
    lua_pushstring(L, o->out);
    lua_setfield(L, -2, "out");
  }
  if (o->memory > 0) {
    lua_pushnumber(L, o->memory);
    lua_setfield(L, -2, "memory");
  }
  if (o->time > 0) {
    lua_pushnumber(L, o->time);
    lua_setfield(L, -2, "time");
  }
  lua_newtable(L);
  for (int k = 1; argv[k]; k++) {
    lua_pushstring(L, argv[k]);
    lua_rawseti(L, -2, k);
  }
  lua_setfield(L, -2, "args");
  return report(L, docall(L, 1, 0));
}

/* Second pass: run -e and -l in order (and apply --threads/--seed). */
static int runargs(lua_State *L, char **argv, int n) {
  for (int i = 1; i < n; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) break;
    if (!strcmp(a, "--threads"))
      tide_threads_set(atoi(argv[++i]));
    else if (!strcmp(a, "--seed"))
      tide_seed_set((uint64_t)strtoull(argv[++i], NULL, 10));
    else if (!strcmp(a, "--out") || !strcmp(a, "--memory") || !strcmp(a, "--time"))
      i++; /* the sandbox's, handled in handle_sandbox */
    else if (!strcmp(a, "-e")) {
      if (dostring(L, argv[++i], "=(command line)") != LUA_OK) return 0;
    } else if (!strcmp(a, "-l")) {
      if (dolibrary(L, argv[++i]) != LUA_OK) return 0;
    }
  }
  return 1;
}

static void set_core_options(lua_State *L, const options *o) {
  lua_getglobal(L, "require");
  lua_pushstring(L, "tide.core");
  lua_call(L, 1, 1);
  lua_pushboolean(L, o->quiet);
  lua_setfield(L, -2, "quiet");
  int progress = o->progress;
  if (progress < 0) progress = isatty(2);
  lua_pushboolean(L, progress);
  lua_setfield(L, -2, "progress");
  lua_pop(L, 1);
}

static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = (char **)lua_touserdata(L, 2);
  options o = {0, 0, 0, 0, 0, -1, 0, NULL, 0, 0};
  int ok = collectargs(argv, &o);
  if (ok <= 0) {
    usage(ok < 0 ? stdout : stderr);
    lua_pushinteger(L, ok < 0 ? 0 : 2);
    return 1;
  }
  luaL_checkversion(L);
  luaL_openlibs(L);
  tide_lua_openall(L);
  tide_lua_preload(L, "tide", luaopen_tide);
  set_core_options(L, &o);
  createargtable(L, argv, argc, o.script);
  if (o.version) print_version(L);
  int last = o.script ? o.script : argc;
  if (!runargs(L, argv, last)) {
    lua_pushinteger(L, 1);
    return 1;
  }
  if (o.script && (o.sandbox ? handle_sandbox(L, argv + o.script, &o) : handle_script(L, argv + o.script)) != LUA_OK) {
    lua_pushinteger(L, 1);
    return 1;
  }
  if (o.interactive) {
    doREPL(L);
  } else if (!o.script && !o.had_e && !o.version) {
    if (isatty(0)) {
      printf("Tide %s (Lua %s) -- tide.help() for an overview, Ctrl-D to quit\n",
             tide_version_string(), LUA_RELEASE);
      doREPL(L);
    } else {
      if (dochunk(L, luaL_loadfile(L, NULL)) != LUA_OK) {
        lua_pushinteger(L, 1);
        return 1;
      }
    }
  }
  lua_pushinteger(L, 0);
  return 1;
}

int main(int argc, char **argv) {
  if (argv[0] && argv[0][0]) progname = "tide";
  char cpu_msg[768];
  if (tide_cpu_check(cpu_msg, sizeof cpu_msg)) { /* before any vectorized code runs */
    fprintf(stderr, "%s: %s\n", progname, cpu_msg);
    return 1;
  }
  tide_omp_wait_default(argv); /* before any parallel region (docs/performance.md) */
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "%s: cannot create state: not enough memory\n", progname);
    return 1;
  }
  lua_gc(L, LUA_GCGEN, 0, 0);
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = lua_pcall(L, 2, 1, 0);
  int code = 1;
  if (status == LUA_OK)
    code = (int)lua_tointeger(L, -1);
  else
    report(L, status);
  lua_close(L);
  return code;
}
