/* core.c -- errors, counted memory, threads, hashing, interrupt, timers. */
#define _POSIX_C_SOURCE 200809L
#include "tide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- errors */

static _Thread_local char errbuf[1024];

int tide_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  return status;
}

const char *tide_errmsg(void) { return errbuf[0] ? errbuf : "unknown error"; }

const char *tide_strstatus(int status) {
  switch (status) {
  case TIDE_OK: return "ok";
  case TIDE_EINVAL: return "invalid argument";
  case TIDE_ENOMEM: return "out of memory";
  case TIDE_ENONFINITE: return "non-finite value";
  case TIDE_ENOCONV: return "no convergence";
  case TIDE_ENOTSPD: return "matrix not positive definite";
  case TIDE_EINTR: return "interrupted";
  case TIDE_EIO: return "i/o error";
  case TIDE_EFORMAT: return "malformed file";
  case TIDE_ESINGULAR: return "singular matrix";
  default: return "error";
  }
}

/* ---------------------------------------------------------------- memory */

static int64_t mem_bytes, mem_peak, mem_limit;

void tide_mem_account(int64_t delta) {
  int64_t now;
#pragma omp atomic capture
  now = mem_bytes += delta;
  if (delta > 0) {
    int64_t pk = __atomic_load_n(&mem_peak, __ATOMIC_RELAXED);
    while (now > pk && !__atomic_compare_exchange_n(&mem_peak, &pk, now, 0, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED)) {
    }
  }
}

int64_t tide_mem_bytes(void) {
  int64_t v;
#pragma omp atomic read
  v = mem_bytes;
  return v;
}

int64_t tide_mem_peak(void) { return __atomic_load_n(&mem_peak, __ATOMIC_RELAXED); }

void tide_mem_peak_reset(void) { __atomic_store_n(&mem_peak, tide_mem_bytes(), __ATOMIC_RELAXED); }

void tide_mem_limit_set(int64_t bytes) { mem_limit = bytes > 0 ? bytes : 0; }
int64_t tide_mem_limit(void) { return mem_limit; }

/* The pool: freed blocks of 1 MB or more kept for the next allocations of about their size.
 * A first touch of a fresh page costs ~10 us per 4 KB on these machines (the kernel zeroes it:
 * ~40 ms for a 15 MB factor), and a simulation step frees and allocates the same large arrays
 * every step.  At most POOL_SLOTS blocks and pool_cap() bytes are held (by default as much as
 * Tide holds live, at least 1 GB, at most a quarter of the machine's memory; or the limit given
 * to tide_mem_pool_set); the least recently freed goes first.  A block serves a request of at
 * least 4/5 of its usable size (malloc_usable_size, so the byte count a caller gives tide_free
 * plays no part; a looser fit lets small requests take the blocks larger ones come back for);
 * fresh large blocks get 1/8 more room than asked (virtual: pages never touched cost nothing),
 * so the next step's slightly larger array fits.  Held blocks are not in tide_mem_bytes(); with
 * a memory limit they count against it, and the pool is emptied before an allocation fails. */
#if defined(__GLIBC__)
#include <malloc.h>
#include <pthread.h>
#define POOL_MIN ((size_t)1 << 20)
#define POOL_SLOTS 64
static struct {
  void *p;
  size_t cap;
  uint64_t tick;
} pool[POOL_SLOTS];
static int pool_n;
static size_t pool_held, pool_limit;
static int pool_auto = 1; /* the limit follows the live memory (pool_cap) */
static uint64_t pool_tick;
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

/* the best-fitting held block for n bytes (at most a quarter more), taken out of the pool;
 * NULL: none */
static void *pool_take(size_t n) {
  void *p = NULL;
  pthread_mutex_lock(&pool_mu);
  int best = -1;
  for (int i = 0; i < pool_n; i++)
    if (pool[i].cap >= n && pool[i].cap - n <= n / 4 && (best < 0 || pool[i].cap < pool[best].cap))
      best = i;
  if (best >= 0) {
    p = pool[best].p;
    pool_held -= pool[best].cap;
    pool[best] = pool[--pool_n];
  }
  pthread_mutex_unlock(&pool_mu);
  return p;
}

/* the limit in effect: the set one, or (auto) as much as Tide holds live, at least 1 GB and at
 * most a quarter of the machine's memory */
static size_t pool_cap(void) {
  if (!pool_auto) return pool_limit;
  int64_t live = tide_mem_bytes();
  size_t lim = live > ((int64_t)1 << 30) ? (size_t)live : (size_t)1 << 30;
  static size_t quarter;
  if (!quarter) {
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    quarter = pages > 0 && psz > 0 ? (size_t)pages / 4 * (size_t)psz : (size_t)1 << 30;
  }
  return lim < quarter ? lim : quarter;
}

/* free held blocks, least recently freed first, until `room` more bytes and a slot fit under
 * the limit (room > limit: all); the caller holds pool_mu */
static void pool_trim(size_t room) {
  const size_t lim = pool_cap();
  while (pool_n > 0 && (pool_n == POOL_SLOTS || room > lim || pool_held + room > lim)) {
    int old = 0;
    for (int i = 1; i < pool_n; i++)
      if (pool[i].tick < pool[old].tick) old = i;
    free(pool[old].p);
    pool_held -= pool[old].cap;
    pool[old] = pool[--pool_n];
  }
}

/* 1: p is held (or freed); 0: not for the pool, the caller frees it */
static int pool_put(void *p) {
  size_t cap = malloc_usable_size(p);
  if (cap < POOL_MIN) return 0;
  pthread_mutex_lock(&pool_mu);
  int keep = cap <= pool_cap();
  if (keep) {
    pool_trim(cap);
    pool[pool_n].p = p;
    pool[pool_n].cap = cap;
    pool[pool_n++].tick = ++pool_tick;
    pool_held += cap;
  }
  pthread_mutex_unlock(&pool_mu);
  return keep;
}

static void pool_empty(void) {
  pthread_mutex_lock(&pool_mu);
  pool_trim(SIZE_MAX);
  pthread_mutex_unlock(&pool_mu);
}

void tide_mem_pool_set(int64_t bytes) {
  pthread_mutex_lock(&pool_mu);
  pool_auto = bytes < 0;
  pool_limit = bytes > 0 ? (size_t)bytes : 0;
  pool_trim(0);
  pthread_mutex_unlock(&pool_mu);
}
int64_t tide_mem_pool_limit(void) {
  pthread_mutex_lock(&pool_mu);
  int64_t v = (int64_t)pool_cap();
  pthread_mutex_unlock(&pool_mu);
  return v;
}
int64_t tide_mem_pool_held(void) {
  pthread_mutex_lock(&pool_mu);
  int64_t v = (int64_t)pool_held;
  pthread_mutex_unlock(&pool_mu);
  return v;
}
#else
static void *pool_take(size_t n) { (void)n; return NULL; }
static int pool_put(void *p) { (void)p; return 0; }
static void pool_empty(void) {}
void tide_mem_pool_set(int64_t bytes) { (void)bytes; }
int64_t tide_mem_pool_limit(void) { return 0; }
int64_t tide_mem_pool_held(void) { return 0; }
#define POOL_MIN SIZE_MAX
#endif

void *tide_alloc(size_t bytes) {
  void *p = NULL;
  if (mem_limit && bytes <= (size_t)INT64_MAX &&
      tide_mem_bytes() + tide_mem_pool_held() + (int64_t)bytes > mem_limit)
    pool_empty(); /* the held blocks count against the limit */
  if (mem_limit && (bytes > (size_t)INT64_MAX || tide_mem_bytes() + (int64_t)bytes > mem_limit)) {
    tide_fail(TIDE_ENOMEM, "memory limit of %lld MB reached allocating %zu bytes",
              (long long)(mem_limit >> 20), bytes);
    return NULL;
  }
  size_t n = bytes ? (bytes + 63) & ~(size_t)63 : 64;
  if (n >= bytes) { /* (else the rounding overflowed) */
    if (n >= POOL_MIN && !(p = pool_take(n))) {
      size_t m = n + (n / 8 + 63) / 64 * 64; /* room for the next step's slightly larger one */
      if (m < n || posix_memalign(&p, 64, m) != 0) p = NULL;
    }
    if (!p && posix_memalign(&p, 64, n) != 0) {
      pool_empty(); /* the held blocks first */
      if (posix_memalign(&p, 64, n) != 0) p = NULL;
    }
  }
  if (!p) {
    tide_fail(TIDE_ENOMEM, "out of memory allocating %zu bytes", bytes);
    return NULL;
  }
  tide_mem_account((int64_t)bytes);
  return p;
}

void *tide_calloc(size_t bytes) {
  void *p = tide_alloc(bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

void tide_free(void *p, size_t bytes) {
  if (!p) return;
  if (!pool_put(p)) free(p);
  tide_mem_account(-(int64_t)bytes);
}

/* ---------------------------------------------------------------- threads */

void tide_threads_set(int n) {
#ifdef _OPENMP
  if (n <= 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

int tide_threads_get(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* The wait policy (docs/performance.md, "OpenMP wait policy").  libgomp reads
 * OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its constructor, when the
 * library is loaded: before main, and inside dlopen for the Lua module, so a
 * setenv afterwards changes nothing.  The marker tells the re-executed
 * process that the setting is Tide's, not the user's. */
#define WAIT_MARKER "TIDE_OMP_WAIT_DEFAULT"
static int wait_is_default;

void tide_omp_wait_default(char **argv) {
  if (getenv(WAIT_MARKER)) { /* we are the re-executed process */
    wait_is_default = 1;
    unsetenv(WAIT_MARKER);
    return;
  }
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return; /* the user's choice */
  setenv(TIDE_OMP_WAIT_VAR, TIDE_OMP_WAIT_VALUE, 1);
  setenv(WAIT_MARKER, "1", 1);
  execv("/proc/self/exe", argv);
  /* exec failed: go on with libgomp's default */
  unsetenv(TIDE_OMP_WAIT_VAR);
  unsetenv(WAIT_MARKER);
}

const char *tide_omp_wait_info(void) {
  static char buf[160];
  const char *p = getenv("OMP_WAIT_POLICY"), *c = getenv("GOMP_SPINCOUNT");
  if (wait_is_default)
    snprintf(buf, sizeof buf, "%s=%s (Tide's default)", TIDE_OMP_WAIT_VAR, TIDE_OMP_WAIT_VALUE);
  else if (p || c)
    snprintf(buf, sizeof buf, "%s%s%s%s%s (from the environment)", p ? "OMP_WAIT_POLICY=" : "", p ? p : "",
             p && c ? " " : "", c ? "GOMP_SPINCOUNT=" : "", c ? c : "");
  else
    snprintf(buf, sizeof buf, "OpenMP runtime's default (libgomp: spin 300000 iterations, then sleep)");
  return buf;
}

/* ------------------------------------------------ deterministic reductions */

/* Each block of TIDE_RBLOCK entries is summed serially; the block sums are
 * then added in order.  The blocking does not depend on the thread count. */
#define BLOCKED_REDUCE(EXPR)                                                   \
  int64_t nb = (n + TIDE_RBLOCK - 1) / TIDE_RBLOCK;                            \
  double stackpart[64];                                                        \
  double *part = nb <= 64 ? stackpart : malloc((size_t)nb * sizeof(double));   \
  if (!part) {                                                                 \
    double s = 0;                                                              \
    for (int64_t i = 0; i < n; i++) s += (EXPR);                               \
    return s;                                                                  \
  }                                                                            \
  _Pragma("omp parallel for schedule(static) if (nb > 4)")                     \
  for (int64_t b = 0; b < nb; b++) {                                           \
    int64_t lo = b * TIDE_RBLOCK, hi = lo + TIDE_RBLOCK < n ? lo + TIDE_RBLOCK : n; \
    double s = 0;                                                              \
    for (int64_t i = lo; i < hi; i++) s += (EXPR);                             \
    part[b] = s;                                                               \
  }                                                                            \
  double s = 0;                                                                \
  for (int64_t b = 0; b < nb; b++) s += part[b];                               \
  if (part != stackpart) free(part);                                           \
  return s;

double tide_dot(int64_t n, const double *x, const double *y) { BLOCKED_REDUCE(x[i] * y[i]) }
double tide_sum(int64_t n, const double *x) { BLOCKED_REDUCE(x[i]) }
double tide_norm2sq(int64_t n, const double *x) { BLOCKED_REDUCE(x[i] * x[i]) }

/* ------------------------------------------------------ stateless random */

static uint64_t global_seed = 1;

void tide_seed_set(uint64_t seed) { global_seed = seed; }
uint64_t tide_seed_get(void) { return global_seed; }

static inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t tide_hash3(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = mix64(a + 0x9e3779b97f4a7c15ULL);
  h = mix64(h ^ (b + 0x9e3779b97f4a7c15ULL));
  return mix64(h ^ (c + 0x9e3779b97f4a7c15ULL));
}

double tide_rand01(uint64_t stream, uint64_t counter) {
  return (double)(tide_hash3(global_seed, stream, counter) >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------------------ interrupt */

volatile int tide_interrupt_flag = 0;
void tide_interrupt_clear(void) { tide_interrupt_flag = 0; }

/* ---------------------------------------------------------------- timers */

double tide_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double tide_cputime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ files */

int tide_mkdirs(const char *path) {
  char buf[4096];
  int ps = tide_path_allowed(path, 1);
  if (ps) return ps;
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) return tide_fail(TIDE_EINVAL, "directory name empty or too long");
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return tide_fail(TIDE_EIO, "cannot create directory '%s': %s", buf, strerror(errno));
      buf[i] = c;
    }
  }
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return tide_fail(TIDE_EIO, "'%s' exists and is not a directory", path);
  return TIDE_OK;
}

int tide_file_open_read(const char *path, FILE **f, uint64_t *size) {
  *f = NULL;
  *size = 0;
  int ps = tide_path_allowed(path, 0);
  if (ps) return ps;
  FILE *in = fopen(path, "rb");
  if (!in) return tide_fail(TIDE_EIO, "%s: cannot read (%s)", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(in);
    return tide_fail(TIDE_EIO, "%s: not a regular file", path);
  }
  *f = in;
  *size = (uint64_t)st.st_size;
  return TIDE_OK;
}

/* ---------------------------------------------------------------- sandbox */

#define SB_MAXROOTS 8
static char sb_read[SB_MAXROOTS][4096], sb_write[SB_MAXROOTS][4096];
static int sb_nread = -1, sb_nwrite = 0; /* -1: no sandbox */

int tide_sandbox_on(void) { return sb_nread >= 0; }

int tide_sandbox_paths(const char *const *read_roots, int nread, const char *const *write_roots,
                       int nwrite) {
  if (sb_nread >= 0) return tide_fail(TIDE_EINVAL, "sandbox: the path policy is already set");
  if (nread > SB_MAXROOTS || nwrite > SB_MAXROOTS)
    return tide_fail(TIDE_EINVAL, "sandbox: at most %d roots", SB_MAXROOTS);
  for (int k = 0; k < nread + nwrite; k++) {
    const char *r = k < nread ? read_roots[k] : write_roots[k - nread];
    char *dst = k < nread ? sb_read[k] : sb_write[k - nread];
    if (!realpath(r, dst)) return tide_fail(TIDE_EINVAL, "sandbox: root '%s': %s", r, strerror(errno));
  }
  sb_nwrite = nwrite;
  sb_nread = nread;
  return TIDE_OK;
}

/* the canonical absolute form of path: the longest existing prefix through
 * realpath, the rest appended; 0 when it cannot be formed (or a '..' would
 * have to be resolved in the part that does not exist) */
static int canonical(const char *path, char *out, size_t cap) {
  char abs[4096];
  if (path[0] == '/') {
    if (snprintf(abs, sizeof abs, "%s", path) >= (int)sizeof abs) return 0;
  } else {
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return 0;
    if (snprintf(abs, sizeof abs, "%s/%s", cwd, path) >= (int)sizeof abs) return 0;
  }
  size_t n = strlen(abs);
  while (n > 1 && abs[n - 1] == '/') abs[--n] = '\0';
  /* cut components off the end until what is left exists */
  size_t cut = n;
  char head[4096];
  for (;;) {
    memcpy(head, abs, cut);
    head[cut] = '\0';
    char real[4096];
    if (realpath(cut ? head : "/", real)) {
      const char *rest = abs + cut; /* "" or "/a/b" */
      for (const char *c = rest; *c;) { /* no '..' or '.' in the missing part */
        while (*c == '/') c++;
        const char *e = strchr(c, '/');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        if ((l == 2 && c[0] == '.' && c[1] == '.') || (l == 1 && c[0] == '.')) return 0;
        c += l;
      }
      if (snprintf(out, cap, "%s%s", strcmp(real, "/") ? real : "", rest) >= (int)cap) return 0;
      if (!out[0]) snprintf(out, cap, "/");
      return 1;
    }
    if (errno != ENOENT && errno != ENOTDIR) return 0;
    char *slash = strrchr(head, '/');
    if (!slash) return 0;
    cut = (size_t)(slash - head);
  }
}

static int below(const char *p, const char *root) {
  size_t l = strlen(root);
  if (l == 1) return 1; /* "/" */
  return strncmp(p, root, l) == 0 && (p[l] == '\0' || p[l] == '/');
}

int tide_path_allowed(const char *path, int write) {
  if (sb_nread < 0) return TIDE_OK;
  char c[4096];
  if (!canonical(path, c, sizeof c))
    return tide_fail(TIDE_EINVAL, "sandbox: path '%s' cannot be resolved (or uses '..' below a missing folder)",
                     path);
  int n = write ? sb_nwrite : sb_nread;
  for (int k = 0; k < n; k++)
    if (below(c, write ? sb_write[k] : sb_read[k])) return TIDE_OK;
  char roots[1024] = "";
  size_t l = 0;
  for (int k = 0; k < n; k++) {
    const char *r = write ? sb_write[k] : sb_read[k];
    size_t rl = strlen(r);
    if (l + rl + 3 >= sizeof roots) break;
    if (k) memcpy(roots + l, ", ", 2), l += 2;
    memcpy(roots + l, r, rl + 1);
    l += rl;
  }
  return tide_fail(TIDE_EINVAL, "sandbox: %s '%s' refused (%s only below %s)", write ? "writing" : "reading",
                   path, write ? "writes" : "reads", n ? roots : "nowhere");
}
