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

#ifndef TIDE_GIT_REV
#define TIDE_GIT_REV "unknown"
#endif

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
