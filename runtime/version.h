/* version.h -- versions of Tide and its libraries (for tide -v and run manifests). */
#ifndef TIDE_VERSION_H
#define TIDE_VERSION_H

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

#endif
