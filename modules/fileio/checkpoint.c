/* checkpoint.c -- the checkpoint file container (see fileio.h). */
#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define HDR 32
static const char magic[8] = {'T', 'I', 'D', 'E', 'C', 'K', 'P', 'T'};
static const char trailer[8] = {'T', 'I', 'D', 'E', '.', 'E', 'N', 'D'};

static void put_u32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++)
    p[k] = (uint8_t)(v >> (8 * k));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int k = 0; k < 8; k++)
    p[k] = (uint8_t)(v >> (8 * k));
}
static uint32_t get_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++)
    v |= (uint32_t)p[k] << (8 * k);
  return v;
}
static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int k = 0; k < 8; k++)
    v |= (uint64_t)p[k] << (8 * k);
  return v;
}

/* CRC-32 (zlib's) over any length */
static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n) {
  while (n > 0) {
    uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
    crc = (uint32_t)crc32(crc, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return crc;
}

static void header(uint8_t h[HDR], uint64_t n, uint32_t crc) {
  memcpy(h, magic, 8);
  put_u32(h + 8, TIDE_CKPT_VERSION);
  put_u32(h + 12, 0);
  put_u64(h + 16, n);
  put_u32(h + 24, crc);
  put_u32(h + 28, crc_update((uint32_t)crc32(0, NULL, 0), h, 28));
}

int tide_ckpt_begin(tide_ckpt_writer *w, const char *path) {
  w->n = 0;
  w->crc = (uint32_t)crc32(0, NULL, 0);
  w->err = 0;
  int st = tide_afile_open(&w->af, path);
  if (st) return st;
  uint8_t h[HDR];
  header(h, 0, 0); /* patched by tide_ckpt_end */
  if (fwrite(h, 1, HDR, w->af.f) != HDR) w->err = 1;
  return TIDE_OK;
}

void tide_ckpt_put(tide_ckpt_writer *w, const void *p, size_t n) {
  if (!n || w->err) return;
  if (fwrite(p, 1, n, w->af.f) != n) w->err = 1;
  w->crc = crc_update(w->crc, p, n);
  w->n += n;
}

int tide_ckpt_end(tide_ckpt_writer *w) {
  if (!w->err && fwrite(trailer, 1, 8, w->af.f) != 8) w->err = 1;
  uint8_t h[HDR];
  header(h, w->n, w->crc);
  if (!w->err && (fseek(w->af.f, 0, SEEK_SET) != 0 || fwrite(h, 1, HDR, w->af.f) != HDR))
    w->err = 1;
  if (w->err) {
    int e = errno;
    char path[4096];
    snprintf(path, sizeof path, "%s", w->af.path);
    tide_afile_abort(&w->af);
    return tide_fail(TIDE_EIO, "writing checkpoint '%s' failed: %s", path, strerror(e));
  }
  return tide_afile_commit(&w->af);
}

void tide_ckpt_abort(tide_ckpt_writer *w) { tide_afile_abort(&w->af); }

int tide_ckpt_read(const char *path, uint8_t **payload, size_t *n) {
  *payload = NULL;
  *n = 0;
  FILE *f;
  uint64_t size;
  int s = tide_file_open_read(path, &f, &size);
  if (s) return s;
  uint8_t h[HDR];
  size_t got = fread(h, 1, HDR, f);
  if (got < 8 || memcmp(h, magic, 8) != 0) {
    s = tide_fail(TIDE_EFORMAT, "'%s' is not a Tide checkpoint", path);
    goto done;
  }
  if (got < HDR) {
    s = tide_fail(TIDE_EFORMAT, "checkpoint '%s' is truncated: %llu bytes, the header alone has %d",
                  path, (unsigned long long)size, HDR);
    goto done;
  }
  if (get_u32(h + 28) != crc_update((uint32_t)crc32(0, NULL, 0), h, 28)) {
    s = tide_fail(TIDE_EFORMAT, "checkpoint '%s' is corrupted: header checksum mismatch", path);
    goto done;
  }
  uint32_t ver = get_u32(h + 8);
  if (ver > TIDE_CKPT_VERSION) {
    s = tide_fail(TIDE_EFORMAT,
                  "checkpoint '%s' has format version %u, newer than this Tide reads (%d)", path,
                  ver, TIDE_CKPT_VERSION);
    goto done;
  }
  uint64_t len = get_u64(h + 16);
  if (len > size || size < HDR + len + 8) {
    s = tide_fail(TIDE_EFORMAT, "checkpoint '%s' is truncated: %llu bytes, %llu expected", path,
                  (unsigned long long)size, (unsigned long long)(HDR + len + 8));
    goto done;
  }
  uint8_t *p = malloc(len ? len : 1);
  if (!p) {
    s = tide_fail(TIDE_ENOMEM, "checkpoint '%s': cannot allocate %llu bytes", path,
                  (unsigned long long)len);
    goto done;
  }
  uint8_t tr[8];
  if (fread(p, 1, len, f) != len || fread(tr, 1, 8, f) != 8) {
    free(p);
    s = tide_fail(TIDE_EFORMAT, "checkpoint '%s' is truncated", path);
    goto done;
  }
  if (memcmp(tr, trailer, 8) != 0) {
    free(p);
    s = tide_fail(TIDE_EFORMAT,
                  "checkpoint '%s' is corrupted: no end marker after %llu payload bytes", path,
                  (unsigned long long)len);
    goto done;
  }
  if (crc_update((uint32_t)crc32(0, NULL, 0), p, len) != get_u32(h + 24)) {
    free(p);
    s = tide_fail(TIDE_EFORMAT, "checkpoint '%s' is corrupted: checksum mismatch", path);
    goto done;
  }
  *payload = p;
  *n = len;
done:
  fclose(f);
  return s;
}
