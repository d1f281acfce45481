/* version.h -- versions of Tide and its libraries (for tide -v and run manifests). */
#ifndef TIDE_VERSION_H
#define TIDE_VERSION_H

const char *tide_version_string(void);
const char *tide_git_revision(void);
const char *tide_suitesparse_version(void);
const char *tide_libpng_version(void);
const char *tide_blas_info(void);

#endif
