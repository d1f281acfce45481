/* test_fileio_ckpt.c -- the checkpoint container: round trip, truncation,
 * corruption, newer versions, atomic replacement. */
#include "check.h"
#include "fileio/fileio.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char dir[256], path[320];

static size_t slurp(const char *p, uint8_t *buf, size_t cap) {
  FILE *f = fopen(p, "rb");
  if (!f) return 0;
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}
static void spit(const char *p, const uint8_t *buf, size_t n) {
  FILE *f = fopen(p, "wb");
  fwrite(buf, 1, n, f);
  fclose(f);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/tide_test_ckpt_%ld", (long)getpid());
  snprintf(path, sizeof path, "%s/run/state.ckpt", dir);
  uint8_t data[1000];
  for (int k = 0; k < 1000; k++)
    data[k] = (uint8_t)(k * 7 + 3);
  tide_ckpt_writer w;
  CHECK(tide_ckpt_begin(&w, path) == TIDE_OK, "begin: %s", tide_errmsg());
  tide_ckpt_put(&w, data, 400);
  tide_ckpt_put(&w, data + 400, 600);
  CHECK(tide_ckpt_end(&w) == TIDE_OK, "end: %s", tide_errmsg());
  uint8_t *p = NULL;
  size_t n = 0;
  CHECK(tide_ckpt_read(path, &p, &n) == TIDE_OK && n == 1000 && p && !memcmp(p, data, 1000),
        "round trip");
  free(p);

  uint8_t file[2000];
  size_t fn = slurp(path, file, sizeof file);
  CHECK(fn == 32 + 1000 + 8, "file size %zu", fn);
  char other[400];
  snprintf(other, sizeof other, "%s/x.ckpt", dir);
  /* truncated anywhere */
  size_t cuts[] = {0, 5, 31, 32, 500, 1039};
  for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
    spit(other, file, cuts[c]);
    int st = tide_ckpt_read(other, &p, &n);
    CHECK(st == TIDE_EFORMAT &&
              (strstr(tide_errmsg(), "truncated") || strstr(tide_errmsg(), "not a Tide")),
          "cut at %zu: %s", cuts[c], tide_errmsg());
  }
  /* a flipped payload byte, a damaged end marker */
  uint8_t bad[2000];
  memcpy(bad, file, fn);
  bad[32 + 123] ^= 0x10;
  spit(other, bad, fn);
  CHECK(tide_ckpt_read(other, &p, &n) == TIDE_EFORMAT && strstr(tide_errmsg(), "checksum mismatch"),
        "flip: %s", tide_errmsg());
  memcpy(bad, file, fn);
  bad[fn - 2] = 'x';
  spit(other, bad, fn);
  CHECK(tide_ckpt_read(other, &p, &n) == TIDE_EFORMAT && strstr(tide_errmsg(), "end marker"),
        "trailer: %s", tide_errmsg());
  /* a newer format version with a valid header checksum */
  memcpy(bad, file, fn);
  bad[8] = TIDE_CKPT_VERSION + 1;
  uint32_t hc = (uint32_t)crc32(crc32(0, NULL, 0), bad, 28);
  for (int k = 0; k < 4; k++)
    bad[28 + k] = (uint8_t)(hc >> (8 * k));
  spit(other, bad, fn);
  CHECK(tide_ckpt_read(other, &p, &n) == TIDE_EFORMAT && strstr(tide_errmsg(), "newer"),
        "version: %s", tide_errmsg());
  /* an interrupted write keeps the previous checkpoint */
  CHECK(tide_ckpt_begin(&w, path) == TIDE_OK, "begin again");
  tide_ckpt_put(&w, "partial", 7);
  tide_ckpt_abort(&w);
  CHECK(tide_ckpt_read(path, &p, &n) == TIDE_OK && n == 1000, "previous checkpoint intact");
  free(p);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s/run' | wc -l) -eq 1", dir);
  CHECK(system(cmd) == 0, "no temporary left in %s/run", dir);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_report();
}
