/*
 * tide.h -- the Tide core: status codes and error messages, counted memory,
 * reference-counted n-dimensional arrays, threads, deterministic reductions,
 * stateless random numbers, interruption and timers.
 *
 * Plain C, no Lua.  Every numeric module (modules/<m>/ *.c) includes only this
 * header and the headers of the modules it builds on.
 *
 * Conventions
 *   - A core function returns an int status (TIDE_OK == 0) and takes its outputs
 *     as trailing pointers.  On failure it records a message with tide_fail() and
 *     returns the status; the Lua binding turns it into one Lua error.
 *   - Never fail from inside an OpenMP region: validate first, or collect a flag
 *     in the region and report after it.
 *   - Indices are 0-based in C.  Arrays are row-major (C order, last index
 *     fastest), as in NumPy.  A grid field over (ni, nj, nk) cells therefore has
 *     shape {ni, nj, nk} and cell (i, j, k) at offset (i*nj + j)*nk + k.
 */
#ifndef TIDE_H
#define TIDE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIDE_VERSION "0.1.0"

/* ---------------------------------------------------------------- status */

enum {
  TIDE_OK = 0,
  TIDE_EINVAL,    /* bad argument (shape, range, type) */
  TIDE_ENOMEM,    /* allocation failed */
  TIDE_ENONFINITE,/* NaN or Inf found in input or state */
  TIDE_ENOCONV,   /* iterative method did not converge */
  TIDE_ENOTSPD,   /* matrix not positive definite where required */
  TIDE_EINTR,     /* interrupted by the user (Ctrl-C) */
  TIDE_EIO,       /* file could not be read or written */
  TIDE_EFORMAT,   /* malformed file contents */
  TIDE_ESINGULAR  /* singular matrix */
};

/* Record a printf-style message for the current thread and return status. */
int tide_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The message recorded by the last tide_fail() on this thread. */
const char *tide_errmsg(void);
/* Short name of a status code ("invalid argument", ...). */
const char *tide_strstatus(int status);

/* ---------------------------------------------------------------- memory */

/* 64-byte aligned allocation counted in tide_mem_bytes(); NULL on failure
 * (and a message is recorded).  tide_free(NULL, 0) is a no-op.  The byte
 * count given to tide_free must equal the one given to tide_alloc. */
void *tide_alloc(size_t bytes);
void *tide_calloc(size_t bytes);
void tide_free(void *p, size_t bytes);
/* Bytes currently held by tide_alloc (all threads, all objects). */
int64_t tide_mem_bytes(void);
/* Count memory allocated elsewhere (e.g. by CHOLMOD) in tide_mem_bytes(). */
void tide_mem_account(int64_t delta);
/* Highest tide_mem_bytes() since the last tide_mem_peak_reset(). */
int64_t tide_mem_peak(void);
void tide_mem_peak_reset(void);
/* Limit on tide_mem_bytes() (0: none, the default): tide_alloc fails with
 * TIDE_ENOMEM and a message naming the limit instead of exceeding it (the
 * sandbox's memory limit, tide --sandbox). */
void tide_mem_limit_set(int64_t bytes);
int64_t tide_mem_limit(void);
/* The pool of freed large blocks (1 MB and more) kept for reuse, since first touches of fresh
 * pages are dear: at most `bytes` held (0: none, the held blocks freed; < 0: the default, as
 * much as tide_mem_bytes(), at least 1 GB and at most a quarter of the machine's memory).
 * tide_mem_pool_limit(): the limit in effect now.  Held blocks are not in tide_mem_bytes();
 * tide_mem_pool_held() counts them. */
void tide_mem_pool_set(int64_t bytes);
int64_t tide_mem_pool_limit(void);
int64_t tide_mem_pool_held(void);

/* ---------------------------------------------------------------- arrays */

#define TIDE_MAXDIM 4

typedef enum { TIDE_F64 = 0, TIDE_F32 = 1, TIDE_I32 = 2, TIDE_U8 = 3 } tide_dtype;

/* Shared storage of one or more arrays. */
typedef struct tide_buffer {
  void *data;
  size_t bytes;
  int refcount;
} tide_buffer;

/* An n-dimensional, typed view of a buffer.  Strides and offset are in
 * elements.  Arrays are reference counted; create with a count of one and
 * release with tide_array_release(). */
typedef struct tide_array {
  tide_buffer *buf;
  tide_dtype dtype;
  int ndim;
  int64_t shape[TIDE_MAXDIM];
  int64_t stride[TIDE_MAXDIM];
  int64_t offset;
  int refcount;
} tide_array;

size_t tide_dtype_size(tide_dtype t);
const char *tide_dtype_name(tide_dtype t);
/* Parse "f64", "double", "f32", "float", "i32", "int", "u8", "byte"; -1 if unknown. */
int tide_dtype_parse(const char *name);

/* New zero-filled contiguous array; NULL (message recorded) on failure. */
tide_array *tide_array_new(tide_dtype t, int ndim, const int64_t *shape);
/* Shorthands for the common shapes. */
tide_array *tide_array_new1(tide_dtype t, int64_t n0);
tide_array *tide_array_new2(tide_dtype t, int64_t n0, int64_t n1);
tide_array *tide_array_new3(tide_dtype t, int64_t n0, int64_t n1, int64_t n2);
tide_array *tide_array_retain(tide_array *a);
void tide_array_release(tide_array *a);

int64_t tide_array_size(const tide_array *a);           /* number of elements */
int tide_array_contiguous(const tide_array *a);         /* C-order, no gaps */
/* Pointer to element 0 of the view (typed access for contiguous arrays). */
void *tide_array_ptr(const tide_array *a);
#define TIDE_F64P(a) ((double *)tide_array_ptr(a))
#define TIDE_F32P(a) ((float *)tide_array_ptr(a))
#define TIDE_I32P(a) ((int32_t *)tide_array_ptr(a))
#define TIDE_U8P(a) ((uint8_t *)tide_array_ptr(a))

/* Check that a is contiguous, of dtype t and of the given shape (ndim
 * entries; an entry < 0 matches any extent).  `what` names the argument in
 * the message. */
int tide_array_expect(const tide_array *a, const char *what, tide_dtype t, int ndim,
                      const int64_t *shape);

/* Element access by flat multi-index (0-based), converting to/from double. */
double tide_array_get(const tide_array *a, const int64_t *idx);
void tide_array_set(tide_array *a, const int64_t *idx, double v);
/* Element at linear position k in C order of the view (works for any view). */
double tide_array_getlin(const tide_array *a, int64_t k);
void tide_array_setlin(tide_array *a, int64_t k, double v);

/* Views sharing a's buffer (new reference; NULL on bad range).
 * slice: along axis, elements [start, stop) with step > 0.
 * reshape: contiguous arrays only, same element count. */
tide_array *tide_array_slice(tide_array *a, int axis, int64_t start, int64_t stop,
                             int64_t step);
tide_array *tide_array_select(tide_array *a, int axis, int64_t index); /* drops the axis */
tide_array *tide_array_reshape(tide_array *a, int ndim, const int64_t *shape);
/* A new contiguous copy, optionally converted to dtype t. */
tide_array *tide_array_clone(const tide_array *a, tide_dtype t);

/* Bulk operations (OpenMP).  Shapes must match in element count.  Reductions
 * are deterministic: the sum is formed in fixed blocks independent of the
 * thread count. */
int tide_array_fill(tide_array *a, double v);
int tide_array_copy(tide_array *dst, const tide_array *src);
int tide_array_scale(tide_array *a, double s);
int tide_array_axpy(tide_array *y, double alpha, const tide_array *x); /* y += alpha x */
int tide_array_dot(const tide_array *a, const tide_array *b, double *out);
int tide_array_sum(const tide_array *a, double *out);
int tide_array_norm(const tide_array *a, double *out); /* 2-norm */
int tide_array_minmax(const tide_array *a, double *mn, double *mx);
/* Count of non-finite entries (NaN, Inf); 0 for integer types. */
int64_t tide_array_nonfinite(const tide_array *a);

/* ------------------------------------------------- deterministic kernels */

/* Sums over plain double vectors in fixed blocks of TIDE_RBLOCK, so the
 * result is bit-identical for any thread count. */
#define TIDE_RBLOCK 4096
double tide_dot(int64_t n, const double *x, const double *y);
double tide_sum(int64_t n, const double *x);
double tide_norm2sq(int64_t n, const double *x);

/* ---------------------------------------------------------------- threads */

void tide_threads_set(int n); /* n <= 0: the OpenMP default */
int tide_threads_get(void);
/* OpenMP wait policy.  The OpenMP runtime reads OMP_WAIT_POLICY / GOMP_SPINCOUNT
 * when it is loaded, so a program applies Tide's default by calling
 * tide_omp_wait_default(argv) first thing in main: unless the user set either
 * variable, it re-executes the program once (/proc/self/exe) with
 * TIDE_OMP_WAIT_VAR=TIDE_OMP_WAIT_VALUE; otherwise it returns.
 * tide_omp_wait_info(): the setting in effect and whose it is, for
 * tide --version / tide.versions().omp_wait (docs/performance.md). */
#define TIDE_OMP_WAIT_VAR "OMP_WAIT_POLICY"
#define TIDE_OMP_WAIT_VALUE "passive"
void tide_omp_wait_default(char **argv);
const char *tide_omp_wait_info(void);

/* ------------------------------------------------------ stateless random */

/* Global seed (set by --seed / tide.seed); all randomness derives from it by
 * hashing, never from a shared generator. */
void tide_seed_set(uint64_t seed);
uint64_t tide_seed_get(void);
/* 64-bit mix of (seed, stream, counter): a stateless hash (SplitMix64 finaliser). */
uint64_t tide_hash3(uint64_t a, uint64_t b, uint64_t c);
/* Uniform double in [0,1) from the global seed, a stream id and a counter. */
double tide_rand01(uint64_t stream, uint64_t counter);

/* ------------------------------------------------------------ interrupt */

/* Set asynchronously by the SIGINT handler; long loops poll it and return
 * TIDE_EINTR.  tide_interrupt_clear() resets it. */
extern volatile int tide_interrupt_flag;
static inline int tide_interrupted(void) { return tide_interrupt_flag; }
void tide_interrupt_clear(void);

/* ------------------------------------------------------------------ files */

/* Create a directory and its missing parents (like mkdir -p). */
int tide_mkdirs(const char *path);

/* Open the regular file path for reading ("rb"); *size receives its length in
 * bytes.  Readers compare every size a file declares with *size before they
 * allocate.  Fails (message "<path>: ...") for a missing file, a directory or
 * a device, and for a path the sandbox's read policy refuses
 * (tide_path_allowed). */
int tide_file_open_read(const char *path, FILE **f, uint64_t *size);

/* ---------------------------------------------------------------- sandbox */

/* The sandbox's path policy (tide --sandbox, tide.sandbox.run): once set
 * (for the rest of the process), reads are allowed only below the read roots
 * and writes only below the write roots.  Roots are existing directories
 * (made canonical with realpath).  Every reader and writer of the core calls
 * tide_path_allowed; the Lua io/os functions are wrapped to call it too. */
int tide_sandbox_paths(const char *const *read_roots, int nread, const char *const *write_roots,
                       int nwrite);
int tide_sandbox_on(void);
/* TIDE_OK, or TIDE_EINVAL with "sandbox: ..." naming the path and the roots.
 * Paths are made absolute and canonical (symbolic links resolved, ".."
 * refused in the part that does not exist yet) before the comparison. */
int tide_path_allowed(const char *path, int write);

/* ---------------------------------------------------------------- timers */

double tide_wtime(void); /* wall clock seconds, monotonic */
double tide_cputime(void); /* CPU seconds of the process, all threads */

#ifdef __cplusplus
}
#endif
#endif
