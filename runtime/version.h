/* version.h -- versions of Tide and its libraries (for tide -v and run manifests). */
#ifndef TIDE_VERSION_H
#define TIDE_VERSION_H

#include <stddef.h>

const char *tide_version_string(void);
const char *tide_git_revision(void);
const char *tide_suitesparse_version(void);
const char *tide_libpng_version(void);
const char *tide_blas_info(void);
/* The compiler that built Tide ("gcc 12.2.0", "clang 14.0.6"), its flags
 * (build type flags and -march), and the CPU running it (/proc/cpuinfo
 * "model name", with the ISA level the running CPU supports). */
const char *tide_compiler_info(void);
const char *tide_build_flags(void);
const char *tide_cpu_info(void);
/* The instruction-set extensions the build uses (space-separated, e.g.
 * "sse4.2 popcnt avx avx2 fma ..." under -march=native), and those of them the
 * running CPU lacks ("" when none). tide_cpu_check writes an explanation to
 * msg and returns 1 when the CPU lacks one (a binary built with -march=native
 * on another machine would die of SIGILL), else 0. */
const char *tide_build_target(void);
const char *tide_cpu_missing_features(void);
int tide_cpu_check(char *msg, size_t size);

#endif
