/* version.c -- versions of Tide and the libraries it was built with and runs on. */
#define _GNU_SOURCE
#include "version.h"

#include "tide.h"

#include <SuiteSparse_config.h>
#include <dlfcn.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

#ifndef TIDE_BUILD_FLAGS
#define TIDE_BUILD_FLAGS "unknown"
#endif

#include "tide_git_rev.h" /* written at build time by cmake/git_rev.cmake */

const char *tide_version_string(void) { return TIDE_VERSION; }
const char *tide_git_revision(void) { return TIDE_GIT_REV; }

const char *tide_suitesparse_version(void) {
  static char buf[64];
  snprintf(buf, sizeof buf, "%d.%d.%d", SUITESPARSE_MAIN_VERSION, SUITESPARSE_SUB_VERSION,
           SUITESPARSE_SUBSUB_VERSION);
  return buf;
}

const char *tide_libpng_version(void) { return png_get_libpng_ver(NULL); }

/* The BLAS actually loaded (CHOLMOD's supernodal factorization runs on it):
 * OpenBLAS reports its configuration; otherwise name the shared object that
 * provides dgemm_. */
const char *tide_blas_info(void) {
  static char buf[256];
  typedef char *(*cfgfn)(void);
  cfgfn cfg = (cfgfn)dlsym(RTLD_DEFAULT, "openblas_get_config");
  if (cfg) {
    snprintf(buf, sizeof buf, "%s", cfg());
    return buf;
  }
  void *sym = dlsym(RTLD_DEFAULT, "dgemm_");
  Dl_info info;
  if (sym && dladdr(sym, &info) && info.dli_fname) {
    const char *ref = strstr(info.dli_fname, "blas/")
                          ? " (reference BLAS: slow; install libopenblas0-openmp)"
                          : "";
    snprintf(buf, sizeof buf, "%s%s", info.dli_fname, ref);
    return buf;
  }
  return "not loaded";
}

const char *tide_compiler_info(void) {
  static char buf[128];
#if defined(__clang__)
  snprintf(buf, sizeof buf, "clang %d.%d.%d", __clang_major__, __clang_minor__,
           __clang_patchlevel__);
#elif defined(__GNUC__)
  snprintf(buf, sizeof buf, "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  snprintf(buf, sizeof buf, "unknown C compiler");
#endif
  return buf;
}

const char *tide_build_flags(void) { return TIDE_BUILD_FLAGS; }

const char *tide_cpu_info(void) {
  static char buf[256];
  if (buf[0]) return buf;
  snprintf(buf, sizeof buf, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "model name", 10) == 0) {
        const char *v = strchr(line, ':');
        if (v) {
          v++;
          while (*v == ' ' || *v == '\t')
            v++;
          size_t n = strcspn(v, "\n");
          snprintf(buf, sizeof buf, "%.*s", (int)n, v);
        }
        break;
      }
    }
    fclose(f);
  }
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  const char *level = "x86-64";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    level = "x86-64-v4";
  else if (__builtin_cpu_supports("avx2"))
    level = "x86-64-v3";
  else if (__builtin_cpu_supports("sse4.2"))
    level = "x86-64-v2";
  size_t l = strlen(buf);
  snprintf(buf + l, sizeof buf - l, " (%s)", level);
#endif
  return buf;
}

/* The x86 extensions this build was compiled to use, from the compiler's
 * predefined macros (-march=native sets them for the machine that built it),
 * each with the name __builtin_cpu_supports knows it by. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
static const struct {
  int used;
  const char *name;
} build_features[] = {
#ifdef __SSE4_2__
    {1, "sse4.2"},
#endif
#ifdef __POPCNT__
    {1, "popcnt"},
#endif
#ifdef __AVX__
    {1, "avx"},
#endif
#ifdef __AVX2__
    {1, "avx2"},
#endif
#ifdef __FMA__
    {1, "fma"},
#endif
#ifdef __BMI__
    {1, "bmi"},
#endif
#ifdef __BMI2__
    {1, "bmi2"},
#endif
#ifdef __AVX512F__
    {1, "avx512f"},
#endif
#ifdef __AVX512VL__
    {1, "avx512vl"},
#endif
#ifdef __AVX512BW__
    {1, "avx512bw"},
#endif
#ifdef __AVX512DQ__
    {1, "avx512dq"},
#endif
#ifdef __AVX512CD__
    {1, "avx512cd"},
#endif
    {0, ""}};

/* __builtin_cpu_supports takes a string literal only: one case per name. */
static int cpu_has(const char *f) {
  __builtin_cpu_init();
  if (!strcmp(f, "sse4.2")) return __builtin_cpu_supports("sse4.2");
  if (!strcmp(f, "popcnt")) return __builtin_cpu_supports("popcnt");
  if (!strcmp(f, "avx")) return __builtin_cpu_supports("avx");
  if (!strcmp(f, "avx2")) return __builtin_cpu_supports("avx2");
  if (!strcmp(f, "fma")) return __builtin_cpu_supports("fma");
  if (!strcmp(f, "bmi")) return __builtin_cpu_supports("bmi");
  if (!strcmp(f, "bmi2")) return __builtin_cpu_supports("bmi2");
  if (!strcmp(f, "avx512f")) return __builtin_cpu_supports("avx512f");
  if (!strcmp(f, "avx512vl")) return __builtin_cpu_supports("avx512vl");
  if (!strcmp(f, "avx512bw")) return __builtin_cpu_supports("avx512bw");
  if (!strcmp(f, "avx512dq")) return __builtin_cpu_supports("avx512dq");
  if (!strcmp(f, "avx512cd")) return __builtin_cpu_supports("avx512cd");
  return 1;
}
#endif

static void list_features(char *buf, size_t size, int missing_only) {
  buf[0] = 0;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  size_t l = 0;
  for (int i = 0; build_features[i].used; i++) {
    if (missing_only && cpu_has(build_features[i].name)) continue;
    int w = snprintf(buf + l, size - l, "%s%s", l ? " " : "", build_features[i].name);
    if (w < 0 || (size_t)w >= size - l) break;
    l += (size_t)w;
  }
#else
  (void)size;
  (void)missing_only;
#endif
}

const char *tide_build_target(void) {
  static char buf[256];
  if (buf[0]) return buf;
  char list[192];
  list_features(list, sizeof list, 0);
  snprintf(buf, sizeof buf, "%s", list[0] ? list : "baseline ISA");
  return buf;
}

const char *tide_cpu_missing_features(void) {
  static char buf[192];
  list_features(buf, sizeof buf, 1);
  return buf;
}

int tide_cpu_check(char *msg, size_t size) {
  const char *missing = tide_cpu_missing_features();
  if (!missing[0]) return 0;
  snprintf(msg, size,
           "this build of Tide was compiled for a CPU with %s (flags: %s), which this CPU (%s) "
           "lacks: it would stop on an illegal instruction. Rebuild on this machine (make clean "
           "&& make), or configure a portable build with -DTIDE_NATIVE=OFF",
           missing, TIDE_BUILD_FLAGS, tide_cpu_info());
  return 1;
}

