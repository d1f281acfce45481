/* atomic.c -- files written under a temporary name and renamed into place,
 * and creation of missing output directories (see fileio.h). */
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tide_fileio_mkdirs(const char *path) {
  char buf[4096];
  int ps = tide_path_allowed(path, 1);
  if (ps) return ps;
  size_t n = strlen(path);
  if (n == 0) return tide_fail(TIDE_EINVAL, "empty path");
  if (n >= sizeof buf) return tide_fail(TIDE_EINVAL, "path longer than %zu bytes", sizeof buf - 1);
  memcpy(buf, path, n + 1);
  char *slash = strrchr(buf, '/');
  if (!slash || slash == buf) return TIDE_OK; /* current directory or root */
  *slash = '\0';
  struct stat st;
  if (stat(buf, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return TIDE_OK;
    return tide_fail(TIDE_EIO, "'%s' exists and is not a directory", buf);
  }
  /* create each component in turn */
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
      return tide_fail(TIDE_EIO, "cannot create directory '%s': %s", buf, strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST)
    return tide_fail(TIDE_EIO, "cannot create directory '%s': %s", buf, strerror(errno));
  if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
    return tide_fail(TIDE_EIO, "'%s' is not a directory", buf);
  return TIDE_OK;
}

static unsigned afile_counter = 0;

int tide_afile_open(tide_afile *af, const char *path) {
  af->f = NULL;
  af->tmp[0] = '\0';
  size_t n = strlen(path);
  if (n == 0) return tide_fail(TIDE_EINVAL, "empty path");
  if (n >= sizeof af->path) return tide_fail(TIDE_EINVAL, "path too long");
  if (path[n - 1] == '/') return tide_fail(TIDE_EINVAL, "'%s' names a directory", path);
  memcpy(af->path, path, n + 1);
  int st = tide_fileio_mkdirs(path); /* checks the sandbox's write policy too */
  if (st) return st;
  /* <dir>/.<name>.tmp-<pid>-<counter>: hidden, same file system as path */
  const char *slash = strrchr(path, '/');
  int dirlen = slash ? (int)(slash - path + 1) : 0;
  unsigned k = __atomic_fetch_add(&afile_counter, 1u, __ATOMIC_RELAXED);
  snprintf(af->tmp, sizeof af->tmp, "%.*s.%s.tmp-%ld-%u", dirlen, path, path + dirlen,
           (long)getpid(), k);
  int fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    af->tmp[0] = '\0';
    return tide_fail(TIDE_EIO, "cannot write '%s': %s", path, strerror(e));
  }
  af->f = fdopen(fd, "wb");
  if (!af->f) {
    int e = errno;
    close(fd);
    unlink(af->tmp);
    af->tmp[0] = '\0';
    return tide_fail(TIDE_EIO, "cannot write '%s': %s", path, strerror(e));
  }
  return TIDE_OK;
}

void tide_afile_abort(tide_afile *af) {
  if (af->f) fclose(af->f);
  af->f = NULL;
  if (af->tmp[0]) unlink(af->tmp);
  af->tmp[0] = '\0';
}

int tide_afile_commit(tide_afile *af) {
  if (!af->f) return tide_fail(TIDE_EINVAL, "file '%s' is not open", af->path);
  int bad = ferror(af->f) || fflush(af->f) != 0;
  int e = errno;
  if (!bad && fsync(fileno(af->f)) != 0 && errno != EINVAL && errno != EROFS) {
    bad = 1;
    e = errno;
  }
  if (fclose(af->f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  af->f = NULL;
  if (!bad && rename(af->tmp, af->path) != 0) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    unlink(af->tmp);
    af->tmp[0] = '\0';
    return tide_fail(TIDE_EIO, "writing '%s' failed: %s", af->path, strerror(e));
  }
  af->tmp[0] = '\0';
  return TIDE_OK;
}

/* pid of a temporary's name ".<name>.tmp-<pid>-<n>", 0 when it is not one */
static long temp_pid(const char *name) {
  if (name[0] != '.') return 0;
  const char *t = strstr(name, ".tmp-");
  if (!t) return 0;
  for (const char *q; (q = strstr(t + 1, ".tmp-"));) t = q; /* the last one */
  char *end;
  long pid = strtol(t + 5, &end, 10);
  if (end == t + 5 || *end != '-' || pid <= 0) return 0;
  const char *c = end + 1;
  if (!*c) return 0;
  for (; *c; c++)
    if (*c < '0' || *c > '9') return 0;
  return pid;
}

static int pid_alive(long pid) { return kill((pid_t)pid, 0) == 0 || errno == EPERM; }

static void clean_dir(const char *dir, int own, int depth, int64_t *count, int64_t *bytes) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  long self = (long)getpid();
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
    struct stat st;
    if (lstat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth < 8) clean_dir(path, own, depth + 1, count, bytes);
      continue;
    }
    long pid = S_ISREG(st.st_mode) ? temp_pid(e->d_name) : 0;
    if (!pid) continue;
    if (own ? pid != self : (pid == self || pid_alive(pid))) continue;
    if (unlink(path) == 0) {
      (*count)++;
      *bytes += (int64_t)st.st_size;
    }
  }
  closedir(d);
}

int tide_fileio_clean_temps(const char *dir, int own, int64_t *count, int64_t *bytes) {
  *count = *bytes = 0;
  int ps = tide_path_allowed(dir, 1);
  if (ps) return ps;
  struct stat st;
  if (stat(dir, &st) != 0) return TIDE_OK; /* nothing written there yet */
  if (!S_ISDIR(st.st_mode)) return tide_fail(TIDE_EINVAL, "'%s' is not a directory", dir);
  clean_dir(dir, own, 0, count, bytes);
  return TIDE_OK;
}
