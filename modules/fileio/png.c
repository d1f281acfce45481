/* png.c -- PNG files through libpng's simplified API (see fileio.h). */
#include "fileio.h"

#include <png.h>
#include <string.h>

int tide_png_write(const char *path, int w, int h, int channels, const uint8_t *pixels) {
  if (w <= 0 || h <= 0 || w > 65536 || h > 65536)
    return tide_fail(TIDE_EINVAL, "image size %d x %d out of range 1..65536", w, h);
  if (channels < 1 || channels > 4)
    return tide_fail(TIDE_EINVAL, "channels must be 1..4, got %d", channels);
  if (!pixels) return tide_fail(TIDE_EINVAL, "no pixels");
  static const png_uint_32 formats[5] = {0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                         PNG_FORMAT_RGBA};
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = (png_uint_32)w;
  img.height = (png_uint_32)h;
  img.format = formats[channels];
  tide_afile af;
  int st = tide_afile_open(&af, path);
  if (st) return st;
  if (!png_image_write_to_stdio(&img, af.f, 0, pixels, (png_int_32)w * channels, NULL)) {
    char msg[80];
    snprintf(msg, sizeof msg, "%s", img.message);
    png_image_free(&img);
    tide_afile_abort(&af);
    return tide_fail(TIDE_EIO, "libpng could not write '%s': %s", path, msg);
  }
  png_image_free(&img);
  return tide_afile_commit(&af);
}

int tide_png_read(const char *path, tide_array **rgba) {
  *rgba = NULL;
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path))
    return tide_fail(TIDE_EIO, "cannot read PNG '%s': %s", path, img.message);
  img.format = PNG_FORMAT_RGBA;
  tide_array *a = tide_array_new3(TIDE_U8, img.height, img.width, 4);
  if (!a) {
    png_image_free(&img);
    return TIDE_ENOMEM;
  }
  if (!png_image_finish_read(&img, NULL, TIDE_U8P(a), 0, NULL)) {
    tide_array_release(a);
    return tide_fail(TIDE_EFORMAT, "cannot decode PNG '%s': %s", path, img.message);
  }
  *rgba = a;
  return TIDE_OK;
}
