/*
 * fuzz_readers.c -- mutation fuzzing of every file reader Tide has, through
 * the Lua API a scene uses:
 *
 *   tide.fileio.npy_read, tide.fileio.png_read, tide.fileio.restore (the
 *   container, and with the checksums repaired after the mutation so the
 *   payload decoder and the __restore hooks of tide.Grid/Mac/Particles/
 *   TetMesh/Shape see the damage), tide.solid.read (TetGen .node and .ele,
 *   Gmsh 2.2 and 4.1, OBJ).
 *
 * Each reader gets N inputs (default 3000): a valid seed file with 1..4
 * mutations chosen by a stateless hash of (seed, reader, input) -- byte
 * flips, boundary values, huge or negative numbers spliced into the text,
 * 32/64-bit size fields overwritten, truncation, chunk deletion and
 * duplication -- so a failing input is reproduced from its number alone.
 * An input passes when the reader either returns a value or fails cleanly:
 * `nil, message` or a raised Lua error whose message names the file (or
 * the restore hook), never a crash, never "out of memory", and never more
 * than 64 MiB of Tide memory for files of a few kilobytes.
 *
 *   fuzz_readers [N [seed [reader]]]      (ctest: fuzz/readers, N = 3000)
 *
 * scripts/fuzz.sh runs it longer under AddressSanitizer/UBSan.
 */
#define _POSIX_C_SOURCE 200809L
#include "tide.h"
#include "tide_lua.h"

#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

int luaopen_tide(lua_State *L);
void tide_lua_openall(lua_State *L);

#define MEM_BOUND ((int64_t)64 << 20)

static char dir[256];

typedef struct buf {
  uint8_t *p;
  size_t n, cap;
} buf;

static void buf_reserve(buf *b, size_t n) {
  if (n <= b->cap) return;
  size_t c = b->cap ? b->cap : 256;
  while (c < n) c *= 2;
  b->p = realloc(b->p, c);
  if (!b->p) abort();
  b->cap = c;
}

static void buf_set(buf *b, const void *p, size_t n) {
  buf_reserve(b, n + 1);
  memcpy(b->p, p, n);
  b->n = n;
}

static int read_file(const char *path, buf *b) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf_reserve(b, (size_t)n + 1);
  b->n = fread(b->p, 1, (size_t)n, f);
  fclose(f);
  return b->n == (size_t)n;
}

static void write_file(const char *path, const buf *b) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b->p, 1, b->n, f) != b->n) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(2);
  }
  fclose(f);
}

/* ------------------------------------------------------------ mutations */

static void insert(buf *b, size_t at, const void *s, size_t n) {
  buf_reserve(b, b->n + n + 1);
  memmove(b->p + at + n, b->p + at, b->n - at);
  memcpy(b->p + at, s, n);
  b->n += n;
}

/* one mutation of b in [lo, b->n) chosen by the hash h */
static void mutate(buf *b, size_t lo, uint64_t h) {
  static const uint8_t special[] = {0, 0xff, 0x7f, 0x80, '9', '-', ' ', '\n', 'e', '.', '$', '/', '#'};
  static const char *const numbers[] = {"2147483648", "99999999999999999999", "1e308", "-1", "nan",
                                        "4294967296", "0", "-2147483649", "inf", "1e-320",
                                        "18446744073709551615", "65536", "3"};
  static const uint64_t words[] = {0xffffffffu, 0x7fffffffu, 0x40000000u, 0x80000000u, 0x10000u, 0,
                                   ~(uint64_t)0, (uint64_t)1 << 40, (uint64_t)1 << 62};
  if (b->n <= lo) return;
  size_t span = b->n - lo;
  size_t at = lo + (size_t)((h >> 8) % span);
  switch (h % 9) {
  case 0: b->p[at] ^= (uint8_t)(1u << ((h >> 40) & 7)); break;
  case 1: b->p[at] = special[(h >> 40) % sizeof special]; break;
  case 2: b->p[at] = (uint8_t)(h >> 48); break;
  case 3: { /* a number spliced in, replacing the token there */
    const char *s = numbers[(h >> 40) % (sizeof numbers / sizeof numbers[0])];
    size_t e = at;
    while (e < b->n && b->p[e] != ' ' && b->p[e] != '\n' && e - at < 24) e++;
    memmove(b->p + at, b->p + e, b->n - e);
    b->n -= e - at;
    insert(b, at, s, strlen(s));
    break;
  }
  case 4: { /* a 32- or 64-bit little-endian word overwritten */
    uint64_t w = words[(h >> 40) % (sizeof words / sizeof words[0])];
    int k = (h >> 36) & 1 ? 8 : 4;
    for (int i = 0; i < k && at + (size_t)i < b->n; i++) b->p[at + i] = (uint8_t)(w >> (8 * i));
    break;
  }
  case 5: b->n = at; break; /* truncated */
  case 6: { /* a chunk deleted */
    size_t len = 1 + (size_t)((h >> 40) % 64);
    if (at + len > b->n) len = b->n - at;
    memmove(b->p + at, b->p + at + len, b->n - at - len);
    b->n -= len;
    break;
  }
  case 7: { /* a chunk duplicated */
    size_t len = 1 + (size_t)((h >> 40) % 64);
    if (at + len > b->n) len = b->n - at;
    uint8_t tmp[64];
    memcpy(tmp, b->p + at, len);
    insert(b, at, tmp, len);
    break;
  }
  default: { /* a digit changed */
    for (size_t i = at; i < b->n; i++)
      if (b->p[i] >= '0' && b->p[i] <= '9') {
        b->p[i] = (uint8_t)('0' + (h >> 40) % 10);
        break;
      }
  }
  }
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put_le32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* after a payload mutation: the checksums of checkpoint.c's container made
 * right again (payload CRC over the declared length, then the header CRC) */
static void ckpt_repair(buf *b) {
  if (b->n < 40) return;
  uint64_t len = 0;
  for (int k = 0; k < 8; k++) len |= (uint64_t)b->p[16 + k] << (8 * k);
  /* the length follows the payload's size change so the container is valid */
  len = b->n - 40;
  for (int k = 0; k < 8; k++) b->p[16 + k] = (uint8_t)(len >> (8 * k));
  memcpy(b->p + b->n - 8, "TIDE.END", 8);
  put_le32(b->p + 24, (uint32_t)crc32(crc32(0, NULL, 0), b->p + 32, (uInt)len));
  put_le32(b->p + 28, (uint32_t)crc32(crc32(0, NULL, 0), b->p, 28));
  (void)le32;
}

/* -------------------------------------------------------------- readers */

typedef struct target {
  const char *name;
  const char *file;  /* the file mutated, in dir */
  const char *call;  /* Lua: reads `path`, returns what the reader returns */
  int binary;        /* 1: a binary format */
  int repair;        /* 1: checkpoint with repaired checksums */
  size_t lo;         /* mutations start at this byte */
} target;

static const char *const gmsh2 =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n"
    "$EndNodes\n$Elements\n3\n1 2 2 0 1 1 2 3\n2 4 2 0 1 1 2 3 4\n3 4 2 0 1 2 3 4 5\n$EndElements\n";
static const char *const gmsh4 =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n$EndEntities\n"
    "$Nodes\n1 5 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n$EndNodes\n"
    "$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4\n2 2 3 4 5\n$EndElements\n";
static const char *const obj =
    "# a tetrahedron's surface\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvn 0 0 1\nvt 0 0\n"
    "f 1 3 2\nf 1/1 2/1 4/1\nf 1//1 4//1 3//1\nf -3 -2 -1\n";
static const char *const node =
    "# TetGen nodes\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n";
static const char *const ele = "2 4 0\n1 1 2 3 4\n2 2 3 4 5\n";

/* files written by Tide itself: the seeds of the binary readers */
static const char *const make_seeds =
    "local tide = require 'tide'\n"
    "local dir = ...\n"
    "local A = tide.array\n"
    "local a = A.zeros{3, 4}\n"
    "for i = 1, 3 do for j = 1, 4 do a:set(i, j, i * 10 + j + 0.5) end end\n"
    "tide.fileio.npy(dir .. '/in.npy', a)\n"
    "local img = A.zeros({5, 7, 4}, 'u8')\n"
    "for y = 1, 5 do for x = 1, 7 do for c = 1, 4 do img:set(y, x, c, (x * 37 + y * 11 + c * 5) % 256) end end end\n"
    "tide.fileio.png_write(dir .. '/in.png', img)\n"
    "local g = tide.grid.new{ size = {4, 3}, dx = 0.25 }\n"
    "local ps = tide.liquid.seed{ grid = g, box = { min = {0, 0}, max = {0.5, 0.5} }, apic = true }\n"
    "local m = tide.solid.box{ min = {0, 0, 0}, max = {1, 1, 1}, cells = {1, 1, 1} }\n"
    "m:material{ model = 'neohookean', E = 1e4, nu = 0.3, density = 100 }\n"
    "local s = tide.shape.sphere{ center = {0, 0}, radius = 0.5 } - tide.shape.box{ min = {0, 0}, max = {1, 1} }\n"
    "tide.fileio.checkpoint(dir .. '/in.ckpt', { g = g, u = g:mac(), ps = ps, mesh = m, shape = s,\n"
    "  list = {1, 2.5, 'x', true, { deep = A.zeros({2, 2}, 'i32') } } })\n";

static const char *const reader_fn =
    "local tide = require 'tide'\n"
    "local code = ...\n"
    "return assert(load('local tide, path = ... ' .. code))\n";

/* The two files of the report: a 144-byte .npy declaring shape
 * (2, 2147483648, 2, 2) (16 GiB of f64) and a PNG of a few dozen bytes
 * declaring 30000 x 30000 pixels.  Both must be refused at once, before
 * anything is allocated. */
static int regressions(lua_State *L) {
  int bad = 0;
  char path[512];
  buf b = {0};
  static const char hdr[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2147483648, 2, 2), }";
  uint8_t npy[144];
  memset(npy, ' ', sizeof npy);
  memcpy(npy, "\x93NUMPY\x01\x00", 8);
  npy[8] = 118, npy[9] = 0; /* 10 + 118 = 128: header, then 16 data bytes */
  memcpy(npy + 10, hdr, sizeof hdr - 1);
  npy[127] = '\n';
  buf_set(&b, npy, sizeof npy);
  snprintf(path, sizeof path, "%s/huge.npy", dir);
  write_file(path, &b);
  static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30, 8, 6, 0, 0, 0, 0x1c, 0x2b, 0x65, 0x3e,
                                0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  buf_set(&b, png, sizeof png);
  char ppath[512];
  snprintf(ppath, sizeof ppath, "%s/huge.png", dir);
  write_file(ppath, &b);
  const char *code[2] = {"return tide.fileio.npy_read(...)", "return tide.fileio.png_read(...)"};
  const char *paths[2] = {path, ppath};
  const char *want[2] = {"declares more data than the file holds", "30000 x 30000"};
  for (int k = 0; k < 2; k++) {
    double t0 = tide_wtime();
    int64_t base = tide_mem_bytes();
    tide_mem_peak_reset();
    luaL_loadstring(L, "tide = require 'tide'");
    lua_call(L, 0, 0);
    luaL_loadstring(L, code[k]);
    lua_pushstring(L, paths[k]);
    lua_call(L, 1, 2);
    const char *msg = lua_tostring(L, -1);
    double dt = tide_wtime() - t0;
    int64_t used = tide_mem_peak() - base;
    int ok = lua_isnil(L, -2) && msg && strstr(msg, want[k]) && strstr(msg, paths[k]) &&
             used < (1 << 20) && dt < 1;
    printf("%-19s %s: %s (%.4f s, %lld bytes allocated)\n", k ? "huge png" : "huge npy",
           ok ? "refused" : "FAILED", msg ? msg : "(accepted)", dt, (long long)used);
    bad += !ok;
    lua_pop(L, 2);
  }
  free(b.p);
  return bad;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  const char *only = argc > 3 ? argv[3] : NULL;
  if (n <= 0) n = 3000;
#if !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define TIDE_FUZZ_RLIMIT 1
#endif
#else
#define TIDE_FUZZ_RLIMIT 1
#endif
#endif
#ifdef TIDE_FUZZ_RLIMIT
  /* a huge allocation fails at once instead of paging: it shows up as an
   * "out of memory" message, which fails the input */
  struct rlimit rl = {(rlim_t)4 << 30, (rlim_t)4 << 30};
  setrlimit(RLIMIT_AS, &rl);
#endif
  snprintf(dir, sizeof dir, "/tmp/tide_fuzz_%ld", (long)getpid());
  if (tide_mkdirs(dir)) {
    fprintf(stderr, "%s\n", tide_errmsg());
    return 2;
  }
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  tide_lua_openall(L);
  tide_lua_preload(L, "tide", luaopen_tide);
  if (luaL_loadstring(L, make_seeds) || (lua_pushstring(L, dir), lua_pcall(L, 1, 0, 0))) {
    fprintf(stderr, "seed files: %s\n", lua_tostring(L, -1));
    return 2;
  }
  char path[512];
  buf b = {0};
  snprintf(path, sizeof path, "%s/in.msh", dir);
  buf_set(&b, gmsh2, strlen(gmsh2));
  write_file(path, &b);

  target targets[] = {
      {"npy", "in.npy", "return tide.fileio.npy_read(path)", 1, 0, 0},
      {"png", "in.png", "return tide.fileio.png_read(path)", 1, 0, 0},
      {"checkpoint", "in.ckpt", "return tide.fileio.restore(path)", 1, 0, 0},
      {"checkpoint-payload", "in.ckpt", "return tide.fileio.restore(path)", 1, 1, 32},
      {"tetgen-node", "t.node", "return tide.solid.read((path:gsub('%.node$', '.ele')))", 0, 0, 0},
      {"tetgen-ele", "t.ele", "return tide.solid.read(path)", 0, 0, 0},
      {"gmsh2", "g2.msh", "return tide.solid.read(path)", 0, 0, 0},
      {"gmsh4", "g4.msh", "return tide.solid.read(path)", 0, 0, 0},
      {"obj", "in.obj", "return tide.solid.read(path)", 0, 0, 0},
  };
  const char *texts[] = {NULL, NULL, NULL, NULL, node, ele, gmsh2, gmsh4, obj};
  enum { NT = sizeof targets / sizeof targets[0] };
  buf seeds[NT];
  memset(seeds, 0, sizeof seeds);
  for (size_t r = 0; r < NT; r++) { /* all seeds before any file is mutated */
    snprintf(path, sizeof path, "%s/%s", dir, targets[r].file);
    if (texts[r]) {
      buf_set(&seeds[r], texts[r], strlen(texts[r]));
    } else if (!read_file(path, &seeds[r])) {
      fprintf(stderr, "%s: no seed file %s\n", targets[r].name, path);
      return 2;
    }
  }
  int failed = 0, total = 0;
  double t_all = tide_wtime();
  failed += regressions(L);
  for (size_t r = 0; r < NT; r++) {
    const target *T = &targets[r];
    if (only && strcmp(only, T->name)) continue;
    buf seedb = seeds[r];
    snprintf(path, sizeof path, "%s/%s", dir, T->file);
    /* the other TetGen file stays valid */
    if (!strcmp(T->name, "tetgen-node") || !strcmp(T->name, "tetgen-ele")) {
      char other[512];
      buf ob = {0};
      int is_node = !strcmp(T->name, "tetgen-node");
      snprintf(other, sizeof other, "%s/t.%s", dir, is_node ? "ele" : "node");
      buf_set(&ob, is_node ? ele : node, strlen(is_node ? ele : node));
      write_file(other, &ob);
      free(ob.p);
    }
    /* the reader as a Lua function of path */
    luaL_loadstring(L, reader_fn);
    lua_pushstring(L, T->call);
    lua_call(L, 1, 1);
    int fn = lua_gettop(L);
    /* the seed itself must read */
    write_file(path, &seedb);
    lua_pushvalue(L, fn);
    lua_getglobal(L, "require");
    lua_pushstring(L, "tide");
    lua_call(L, 1, 1);
    lua_pushstring(L, path);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK || lua_isnil(L, -1)) {
      fprintf(stderr, "%s: the unmutated seed does not read: %s\n", T->name,
                    lua_tostring(L, -1) ? lua_tostring(L, -1) : "(nil)");
      failed++;
    }
    lua_settop(L, fn);
    int accepted = 0, rejected = 0, bad = 0;
    int64_t worst = 0;
    size_t biggest = 0;
    double t0 = tide_wtime();
    buf m = {0};
    for (int i = 0; i < n; i++) {
      buf_set(&m, seedb.p, seedb.n);
      uint64_t h = tide_hash3(seed, r, (uint64_t)i);
      int k = 1 + (int)(h % 4);
      for (int j = 0; j < k; j++) mutate(&m, T->lo, tide_hash3(seed, 1000 + r, (uint64_t)i * 8 + j));
      if (T->repair) ckpt_repair(&m);
      if (m.n > biggest) biggest = m.n;
      write_file(path, &m);
      int64_t base = tide_mem_bytes();
      tide_mem_peak_reset();
      lua_pushvalue(L, fn);
      lua_getglobal(L, "require");
      lua_pushstring(L, "tide");
      lua_call(L, 1, 1);
      lua_pushstring(L, path);
      int st = lua_pcall(L, 2, 2, 0);
      int64_t used = tide_mem_peak() - base;
      if (used > worst) worst = used;
      const char *msg = NULL;
      int ok;
      if (st == LUA_OK && !lua_isnil(L, -2)) {
        accepted++;
        ok = 1;
      } else {
        msg = lua_tostring(L, -1);
        rejected++;
        /* a clean error: a message that names the file or the restore hook
         * and is not a symptom of a bug or of a huge allocation */
        ok = msg && (strstr(msg, dir) || strstr(msg, "tide.fileio.restore")) &&
             !strstr(msg, "out of memory") && !strstr(msg, "not enough memory") &&
             !strstr(msg, "attempt to") && !strstr(msg, "stack overflow");
      }
      if (used > MEM_BOUND) ok = 0;
      if (!ok) {
        bad++;
        if (bad <= 5)
          fprintf(stderr, "%s: input %d (seed %llu, %zu bytes, %lld bytes allocated): %s\n", T->name,
                  i, (unsigned long long)seed, m.n, (long long)used, msg ? msg : "(no message)");
      }
      lua_settop(L, fn);
      if (i % 64 == 63) lua_gc(L, LUA_GCCOLLECT, 0);
    }
    double dt = tide_wtime() - t0;
    printf("%-19s %6d inputs (<= %zu bytes): %5d read, %5d refused cleanly, %d bad; peak %lld KiB; "
           "%.2f s\n",
           T->name, n, biggest, accepted, rejected - bad, bad, (long long)(worst >> 10), dt);
    failed += bad;
    total += n;
    lua_settop(L, fn - 1);
    free(m.p);
    free(seedb.p);
  }
  lua_close(L);
  free(b.p);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  printf("%d inputs in %.1f s\n", total, tide_wtime() - t_all);
  printf("%d passed, %d failed\n", total - failed, failed);
  return failed ? 1 : 0;
}
