/* test_fileio_png.c -- atomic files, PNG write/read round trip, colour maps,
 * marching squares, ticks and canvas primitives. */
#include "check.h"
#include "fileio/fileio.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static int count_entries(const char *d) {
  DIR *D = opendir(d);
  if (!D) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(D)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(D);
  return n;
}

static void slurp(const char *path, char *buf, size_t cap) {
  buf[0] = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
}

static void test_atomic(void) {
  char path[512], sub[512], buf[64];
  snprintf(sub, sizeof sub, "%s/a/b", dir);
  snprintf(path, sizeof path, "%s/a/b/file.txt", dir);
  tide_afile af;
  CHECK(tide_afile_open(&af, path) == TIDE_OK, "open creates missing directories: %s",
        tide_errmsg());
  fputs("first", af.f);
  CHECK(count_entries(sub) == 1, "only the temporary file exists before commit");
  CHECK(tide_afile_commit(&af) == TIDE_OK, "commit");
  slurp(path, buf, sizeof buf);
  CHECK(!strcmp(buf, "first"), "content after commit: %s", buf);
  /* a failed write leaves the previous file intact and no temporary */
  CHECK(tide_afile_open(&af, path) == TIDE_OK, "reopen");
  fputs("second, interrupted", af.f);
  tide_afile_abort(&af);
  slurp(path, buf, sizeof buf);
  CHECK(!strcmp(buf, "first"), "previous content intact after abort: %s", buf);
  CHECK(count_entries(sub) == 1, "no temporary left after abort (%d entries)", count_entries(sub));
  /* a parent that is a file cannot be created */
  char bad[600];
  snprintf(bad, sizeof bad, "%s/x.png", path);
  CHECK(tide_afile_open(&af, bad) == TIDE_EIO, "parent is a file");
  CHECK(strstr(tide_errmsg(), "not a directory") != NULL, "message: %s", tide_errmsg());
  /* a write error (full device) is detected at commit and leaves nothing behind */
  struct stat stt;
  if (stat("/dev/full", &stt) == 0) {
    FILE *full = fopen("/dev/full", "wb");
    if (full) {
      CHECK(tide_afile_open(&af, path) == TIDE_OK, "open");
      FILE *keep = af.f;
      af.f = full; /* every write fails with ENOSPC */
      fputs("x", af.f);
      fclose(keep);
      CHECK(tide_afile_commit(&af) == TIDE_EIO, "commit reports the write error");
      slurp(path, buf, sizeof buf);
      CHECK(!strcmp(buf, "first"), "previous content intact after a failed commit: %s", buf);
      CHECK(count_entries(sub) == 1, "no temporary left after a failed commit");
    }
  }
}

static void test_png_roundtrip(void) {
  int w = 37, h = 23;
  uint8_t *px = malloc((size_t)w * h * 3);
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++) {
      uint8_t *p = px + 3 * (j * w + i);
      p[0] = (uint8_t)(7 * i), p[1] = (uint8_t)(11 * j), p[2] = (uint8_t)(i * j);
    }
  char path[512];
  snprintf(path, sizeof path, "%s/img/rt.png", dir);
  CHECK(tide_png_write(path, w, h, 3, px) == TIDE_OK, "png write: %s", tide_errmsg());
  tide_array *a = NULL;
  CHECK(tide_png_read(path, &a) == TIDE_OK, "png read: %s", tide_errmsg());
  if (a) {
    CHECK(a->shape[0] == h && a->shape[1] == w && a->shape[2] == 4, "shape");
    int bad = 0;
    for (int k = 0; k < w * h; k++)
      for (int c = 0; c < 3; c++)
        bad += TIDE_U8P(a)[4 * k + c] != px[3 * k + c];
    CHECK(bad == 0, "%d samples differ", bad);
    tide_array_release(a);
  }
  CHECK(tide_png_write(path, 0, h, 3, px) == TIDE_EINVAL, "zero width rejected");
  CHECK(tide_png_read("/nonexistent/x.png", &a) == TIDE_EIO, "missing file");
  /* a file that is not a PNG */
  char txt[512];
  snprintf(txt, sizeof txt, "%s/img/not.png", dir);
  FILE *f = fopen(txt, "wb");
  fputs("hello", f);
  fclose(f);
  CHECK(tide_png_read(txt, &a) != TIDE_OK, "not a PNG");
  free(px);
}

static void test_colormaps(void) {
  float c[3];
  tide_cmap_eval(TIDE_CMAP_VIRIDIS, 0, c); /* matplotlib: (68, 1, 84)/255 */
  CHECK(fabs(c[0] - 68 / 255.) < 0.015 && fabs(c[1] - 1 / 255.) < 0.015 &&
            fabs(c[2] - 84 / 255.) < 0.015,
        "viridis(0) = %g %g %g", c[0], c[1], c[2]);
  tide_cmap_eval(TIDE_CMAP_VIRIDIS, 1, c); /* (253, 231, 37)/255 */
  CHECK(fabs(c[0] - 253 / 255.) < 0.02 && fabs(c[1] - 231 / 255.) < 0.02 &&
            fabs(c[2] - 37 / 255.) < 0.03,
        "viridis(1) = %g %g %g", c[0], c[1], c[2]);
  tide_cmap_eval(TIDE_CMAP_VIRIDIS, 0.5, c); /* (33, 145, 140)/255 */
  CHECK(fabs(c[0] - 33 / 255.) < 0.02 && fabs(c[1] - 145 / 255.) < 0.02 &&
            fabs(c[2] - 140 / 255.) < 0.02,
        "viridis(0.5) = %g %g %g", c[0], c[1], c[2]);
  /* Moreland's table: ends (59, 76, 192), (180, 4, 38), middle (221, 221, 221) */
  tide_cmap_eval(TIDE_CMAP_COOLWARM, 0, c);
  CHECK(fabs(c[0] * 255 - 59) < 1.5 && fabs(c[1] * 255 - 76) < 1.5 && fabs(c[2] * 255 - 192) < 1.5,
        "coolwarm(0) = %g %g %g", c[0] * 255, c[1] * 255, c[2] * 255);
  tide_cmap_eval(TIDE_CMAP_COOLWARM, 1, c);
  CHECK(fabs(c[0] * 255 - 180) < 1.5 && fabs(c[1] * 255 - 4) < 1.5 && fabs(c[2] * 255 - 38) < 1.5,
        "coolwarm(1) = %g %g %g", c[0] * 255, c[1] * 255, c[2] * 255);
  tide_cmap_eval(TIDE_CMAP_COOLWARM, 0.5, c);
  CHECK(fabs(c[0] * 255 - 221) < 2.5 && fabs(c[1] * 255 - 221) < 2.5 &&
            fabs(c[2] * 255 - 221) < 2.5,
        "coolwarm(0.5) = %g %g %g", c[0] * 255, c[1] * 255, c[2] * 255);
  tide_cmap_eval(TIDE_CMAP_GRAY, 0.25, c);
  CHECK_NEAR(c[1], 0.25, 1e-7);
}

static void test_marching_squares(void) {
  /* circle of radius R: every contour vertex lies within O(dx^2) of it */
  int n = 40;
  double dx = 1.0 / n, R = 0.3;
  double *v = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double x = (i + 0.5) * dx - 0.5, y = (j + 0.5) * dx - 0.5;
      v[i * n + j] = sqrt(x * x + y * y) - R;
    }
  tide_field2d f = {n, n, dx, {-0.5, -0.5}, v};
  int64_t cap = 4 * (int64_t)(n - 1) * (n - 1), ns = 0;
  double *seg = malloc(sizeof(double) * 4 * cap);
  CHECK(tide_marching_squares(&f, 0, seg, cap, &ns) == TIDE_OK, "marching squares");
  double maxerr = 0, len = 0;
  for (int64_t k = 0; k < ns; k++) {
    for (int e = 0; e < 2; e++) {
      double r = hypot(seg[4 * k + 2 * e], seg[4 * k + 2 * e + 1]);
      maxerr = fmax(maxerr, fabs(r - R));
    }
    len += hypot(seg[4 * k + 2] - seg[4 * k], seg[4 * k + 3] - seg[4 * k + 1]);
  }
  CHECK(maxerr < 0.25 * dx * dx / R + 1e-12, "contour vertices off the circle by %g", maxerr);
  CHECK(fabs(len - 2 * M_PI * R) < 0.01 * 2 * M_PI * R, "contour length %g vs %g", len,
        2 * M_PI * R);
  CHECK(tide_marching_squares(&f, 0, seg, 3, &ns) == TIDE_EINVAL, "capacity checked");
  free(seg);
  free(v);
}

static void test_ticks_and_text(void) {
  double t[32], step;
  int n;
  CHECK(tide_nice_ticks(-1, 1, 6, t, 32, &n, &step) == TIDE_OK, "ticks");
  CHECK(n == 5 && step == 0.5 && t[0] == -1 && t[4] == 1, "ticks of [-1, 1]: n %d step %g", n,
        step);
  CHECK(tide_nice_ticks(0.013, 0.087, 5, t, 32, &n, &step) == TIDE_OK &&
            fabs(step - 0.01) < 1e-15 && fabs(t[0] - 0.02) < 1e-15,
        "ticks of [0.013, 0.087]: step %g first %g", step, t[0]);
  char buf[32];
  tide_format_tick(0.25, 0.05, buf, sizeof buf);
  CHECK(!strcmp(buf, "0.25"), "%s", buf);
  tide_format_tick(2e-5, 1e-5, buf, sizeof buf);
  CHECK(!strcmp(buf, "2e-5"), "%s", buf);
  tide_format_tick(1500000, 500000, buf, sizeof buf);
  CHECK(!strcmp(buf, "1.5e6"), "%s", buf);
  CHECK(tide_text_width("abc", 2) == 34, "text width %d", tide_text_width("abc", 2));
  /* text draws exactly the glyph's pixels */
  tide_canvas *c;
  float bg[3] = {1, 1, 1}, fg[3] = {0, 0, 0};
  CHECK(tide_canvas_new(20, 10, bg, &c) == TIDE_OK, "canvas");
  tide_canvas_text(c, 1, 1, "1", 1, 0, fg);
  const uint8_t *g = tide_font_glyph('1');
  int bad = 0;
  for (int r = 0; r < 7; r++)
    for (int q = 0; q < 5; q++) {
      int on = (g[r] >> (4 - q)) & 1;
      bad += (c->rgb[3 * ((1 + r) * 20 + 1 + q)] == 0) != on;
    }
  CHECK(bad == 0, "glyph pixels differ: %d", bad);
  tide_canvas_free(c);
}

static void test_triangles(void) {
  /* two triangles tiling a square: every pixel fully covered, no seam */
  tide_canvas *c;
  float bg[3] = {1, 1, 1}, red[3] = {1, 0, 0};
  tide_canvas_new(32, 32, bg, &c);
  double xy[8] = {4.3, 4.3, 27.7, 4.3, 27.7, 27.7, 4.3, 27.7};
  int32_t tri[6] = {0, 1, 2, 0, 2, 3};
  CHECK(tide_canvas_triangles(c, 4, xy, 2, tri, red, 1, 1) == TIDE_OK, "triangles");
  int seam = 0;
  for (int j = 5; j < 27; j++)
    for (int i = 5; i < 27; i++)
      seam += c->rgb[3 * (j * 32 + i) + 1] != 0;
  CHECK(seam == 0, "%d interior pixels not fully covered", seam);
  /* the edge pixel column 4 is covered 70 percent */
  CHECK_NEAR(c->rgb[3 * (16 * 32 + 4) + 1], 0.25, 0.06);
  int32_t badtri[3] = {0, 1, 9};
  CHECK(tide_canvas_triangles(c, 4, xy, 1, badtri, red, 1, 1) == TIDE_EINVAL, "index checked");
  tide_canvas_free(c);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/tide_test_fileio_png_%ld", (long)getpid());
  test_atomic();
  test_png_roundtrip();
  test_colormaps();
  test_marching_squares();
  test_ticks_and_text();
  test_triangles();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_report();
}
