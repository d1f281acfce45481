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

/* Largest image tide_png_read decodes: 2^28 pixels (1 GiB of RGBA). */
#define PNG_MAX_PIXELS ((uint64_t)1 << 28)
/* Deflate cannot expand data by more than 1032:1 (a 258-byte match in two
 * bits), so the filtered rows of an image cannot outgrow the file's size
 * times 1032 (plus the zlib stream's few bytes of framing). */
#define DEFLATE_MAX_RATIO 1032

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The IHDR chunk's declared size against the file's size and the cap,
 * before libpng or we allocate anything. */
static int png_check_size(const char *path, FILE *f, uint64_t fsize) {
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  uint8_t h[33];
  if (fread(h, 1, sizeof h, f) != sizeof h || memcmp(h, sig, 8) != 0 ||
      memcmp(h + 12, "IHDR", 4) != 0 || be32(h + 8) != 13)
    return tide_fail(TIDE_EFORMAT, "%s: not a PNG file (no PNG signature and IHDR chunk)", path);
  uint64_t w = be32(h + 16), hgt = be32(h + 20);
  int depth = h[24], type = h[25];
  int ch = type == 0 ? 1 : type == 2 ? 3 : type == 3 ? 1 : type == 4 ? 2 : type == 6 ? 4 : 0;
  if (w == 0 || hgt == 0 || w > 0x7fffffffu || hgt > 0x7fffffffu || ch == 0 ||
      (depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16))
    return tide_fail(TIDE_EFORMAT, "%s: bad PNG header (%llu x %llu, colour type %d, depth %d)",
                     path, (unsigned long long)w, (unsigned long long)hgt, type, depth);
  if (w * hgt > PNG_MAX_PIXELS)
    return tide_fail(TIDE_EFORMAT,
                     "%s: image of %llu x %llu pixels is larger than Tide reads (%llu pixels)",
                     path, (unsigned long long)w, (unsigned long long)hgt,
                     (unsigned long long)PNG_MAX_PIXELS);
  uint64_t row = 1 + (w * (uint64_t)ch * (uint64_t)depth + 7) / 8;
  if (row * hgt > fsize * DEFLATE_MAX_RATIO + 1024)
    return tide_fail(TIDE_EFORMAT,
                     "%s: a %llu x %llu image cannot be stored in %llu bytes (truncated or "
                     "corrupted file)",
                     path, (unsigned long long)w, (unsigned long long)hgt,
                     (unsigned long long)fsize);
  return TIDE_OK;
}

int tide_png_read(const char *path, tide_array **rgba) {
  *rgba = NULL;
  FILE *f;
  uint64_t fsize;
  int st = tide_file_open_read(path, &f, &fsize);
  if (st) return st;
  if ((st = png_check_size(path, f, fsize)) || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return st ? st : tide_fail(TIDE_EIO, "%s: cannot read", path);
  }
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_stdio(&img, f)) {
    fclose(f);
    return tide_fail(TIDE_EFORMAT, "%s: cannot read PNG: %s", path, img.message);
  }
  img.format = PNG_FORMAT_RGBA;
  tide_array *a = tide_array_new3(TIDE_U8, img.height, img.width, 4);
  if (!a) {
    png_image_free(&img);
    fclose(f);
    return tide_fail(TIDE_ENOMEM, "%s: %s", path, tide_errmsg());
  }
  if (!png_image_finish_read(&img, NULL, TIDE_U8P(a), 0, NULL)) {
    tide_array_release(a);
    fclose(f);
    return tide_fail(TIDE_EFORMAT, "%s: cannot decode PNG: %s", path, img.message);
  }
  fclose(f);
  *rgba = a;
  return TIDE_OK;
}
