/* version.c -- versions of Tide and the libraries it was built with and runs on. */
#define _GNU_SOURCE
#include "version.h"

#include "tide.h"

#include <SuiteSparse_config.h>
#include <dlfcn.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

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
    const char *ref = strstr(info.dli_fname, "blas/") ? " (reference BLAS: slow; install libopenblas0-openmp)" : "";
    snprintf(buf, sizeof buf, "%s%s", info.dli_fname, ref);
    return buf;
  }
  return "not loaded";
}
