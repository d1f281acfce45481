/* colormap.c -- colour maps for scalar fields (see fileio.h for sources). */
#include "fileio.h"

#include <math.h>

const char *const tide_cmap_names[] = {"viridis",  "magma", "inferno", "plasma", "turbo",
                                       "coolwarm", "gray",  "blues",   NULL};

/* Degree-6 polynomial fits c0 + c1 t + ... + c6 t^6 of the matplotlib
 * perceptually uniform maps (fits by M. Zucker, public domain). */
static const double poly6[4][7][3] = {
    {/* viridis */
     {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
     {0.1050930431085774, 1.404613529898575, 1.384590162594685},
     {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
     {-4.634230498983486, -5.799100973351585, -19.33244095627987},
     {6.228269936347081, 14.17993336680509, 56.69055260068105},
     {4.776384997670288, -13.74514537774601, -65.35303263337234},
     {-5.435455855934631, 4.645852612178535, 26.3124352495832}},
    {/* magma */
     {-0.002136485053939582, -0.000749655052795221, -0.005386127855323933},
     {0.2516605407371642, 0.6775232436837668, 2.494026599312351},
     {8.353717279216625, -3.577719514958484, 0.3144679030132573},
     {-27.66873308576866, 14.26473078096533, -13.64921318813922},
     {52.17613981234068, -27.94360607168351, 12.94416944238394},
     {-50.76852536473588, 29.04658282127291, 4.23415299384598},
     {18.65570506591883, -11.48977351997711, -5.601961508734096}},
    {/* inferno */
     {0.0002189403691192265, 0.001651004631001012, -0.01948089843709184},
     {0.1065134194856116, 0.5639564367884091, 3.932712388889277},
     {11.60249308247187, -3.972853965665698, -15.9423941062914},
     {-41.70399613139459, 17.43639888205313, 44.35414519872813},
     {77.162935699427, -33.40235894210092, -81.80730925738993},
     {-71.31942824499214, 32.62606426397723, 73.20951985803202},
     {25.13112622477341, -12.24266895238567, -23.07032500287172}},
    {/* plasma */
     {0.05873234392399702, 0.02333670892565664, 0.5433401826748754},
     {2.176514634195958, 0.2383834171260182, 0.7539604599784036},
     {-2.689460476458034, -7.455851135738909, 3.110799939717086},
     {6.130348345893603, 42.3461881477227, -28.51885465332158},
     {-11.10743619062271, -82.66631109428045, 60.13984767418263},
     {10.02306557647065, 71.41361770095349, -54.07218655560067},
     {-3.658713842777788, -22.93153465461149, 18.19190778539828}}};

static float clamp01f(double x) { return (float)(x < 0 ? 0 : x > 1 ? 1 : x); }

/* ---- Moreland's diverging map in Msh space (ISVC 2009, Sec. 4-5) ---- */

static double srgb_to_linear(double c) {
  return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}
static double linear_to_srgb(double c) {
  return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}
static const double white[3] = {0.95047, 1.0, 1.08883}; /* D65 */
static double lab_f(double t) { return t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116.0; }
static double lab_finv(double t) {
  double t3 = t * t * t;
  return t3 > 0.008856 ? t3 : (t - 16.0 / 116.0) / 7.787;
}

static void srgb_to_msh(const double rgb[3], double msh[3]) {
  double r = srgb_to_linear(rgb[0]), g = srgb_to_linear(rgb[1]), b = srgb_to_linear(rgb[2]);
  double X = 0.4124 * r + 0.3576 * g + 0.1805 * b;
  double Y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  double Z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
  double fx = lab_f(X / white[0]), fy = lab_f(Y / white[1]), fz = lab_f(Z / white[2]);
  double L = 116 * fy - 16, a = 500 * (fx - fy), bb = 200 * (fy - fz);
  msh[0] = sqrt(L * L + a * a + bb * bb);
  msh[1] = msh[0] > 0 ? acos(L / msh[0]) : 0;
  msh[2] = atan2(bb, a);
}

static void msh_to_srgb(const double msh[3], float rgb[3]) {
  double L = msh[0] * cos(msh[1]);
  double a = msh[0] * sin(msh[1]) * cos(msh[2]);
  double bb = msh[0] * sin(msh[1]) * sin(msh[2]);
  double fy = (L + 16) / 116, fx = fy + a / 500, fz = fy - bb / 200;
  double X = white[0] * lab_finv(fx), Y = white[1] * lab_finv(fy), Z = white[2] * lab_finv(fz);
  double r = 3.2406 * X - 1.5372 * Y - 0.4986 * Z;
  double g = -0.9689 * X + 1.8758 * Y + 0.0415 * Z;
  double b = 0.0557 * X - 0.2040 * Y + 1.0570 * Z;
  rgb[0] = clamp01f(linear_to_srgb(r < 0 ? 0 : r));
  rgb[1] = clamp01f(linear_to_srgb(g < 0 ? 0 : g));
  rgb[2] = clamp01f(linear_to_srgb(b < 0 ? 0 : b));
}

/* hue of the saturated end seen from an unsaturated point of magnitude m */
static double adjust_hue(const double msh[3], double m) {
  if (msh[0] >= m) return msh[2];
  double spin = msh[1] * sqrt(m * m - msh[0] * msh[0]) / (msh[0] * sin(msh[1]));
  return msh[2] > -M_PI / 3 ? msh[2] + spin : msh[2] - spin;
}

static void diverging(const double c1[3], const double c2[3], double t, float rgb[3]) {
  double m1[3], m2[3];
  srgb_to_msh(c1, m1);
  srgb_to_msh(c2, m2);
  if (m1[1] > 0.05 && m2[1] > 0.05 && fabs(m1[2] - m2[2]) > M_PI / 3) {
    double mid = fmax(fmax(m1[0], m2[0]), 88.0);
    if (t < 0.5) {
      m2[0] = mid, m2[1] = 0, m2[2] = 0;
      t = 2 * t;
    } else {
      m1[0] = mid, m1[1] = 0, m1[2] = 0;
      t = 2 * t - 1;
    }
  }
  if (m1[1] < 0.05 && m2[1] > 0.05)
    m1[2] = adjust_hue(m2, m1[0]);
  else if (m2[1] < 0.05 && m1[1] > 0.05)
    m2[2] = adjust_hue(m1, m2[0]);
  double m[3];
  for (int d = 0; d < 3; d++)
    m[d] = (1 - t) * m1[d] + t * m2[d];
  msh_to_srgb(m, rgb);
}

void tide_cmap_eval(tide_cmap m, double t, float rgb[3]) {
  if (!(t >= 0)) t = 0; /* also NaN */
  if (t > 1) t = 1;
  switch (m) {
  case TIDE_CMAP_VIRIDIS:
  case TIDE_CMAP_MAGMA:
  case TIDE_CMAP_INFERNO:
  case TIDE_CMAP_PLASMA:
    for (int d = 0; d < 3; d++) {
      double s = 0;
      for (int k = 6; k >= 0; k--)
        s = s * t + poly6[m][k][d];
      rgb[d] = clamp01f(s);
    }
    return;
  case TIDE_CMAP_TURBO:
    rgb[0] = clamp01f(
        0.13572138 +
        t * (4.61539260 +
             t * (-42.66032258 + t * (132.13108234 + t * (-152.94239396 + t * 59.28637943)))));
    rgb[1] =
        clamp01f(0.09140261 +
                 t * (2.19418839 +
                      t * (4.84296658 + t * (-14.18503333 + t * (4.27729857 + t * 2.82956604)))));
    rgb[2] = clamp01f(
        0.10667330 +
        t * (12.64194608 +
             t * (-60.58204836 + t * (110.36276771 + t * (-89.90310912 + t * 27.34824973)))));
    return;
  case TIDE_CMAP_COOLWARM: {
    static const double cool[3] = {59 / 255.0, 76 / 255.0, 192 / 255.0};
    static const double warm[3] = {180 / 255.0, 4 / 255.0, 38 / 255.0};
    diverging(cool, warm, t, rgb);
    return;
  }
  case TIDE_CMAP_BLUES: {
    static const float lo[3] = {0.97f, 0.98f, 1.0f}, hi[3] = {0.03f, 0.19f, 0.42f};
    for (int d = 0; d < 3; d++)
      rgb[d] = (float)((1 - t) * lo[d] + t * hi[d]);
    return;
  }
  case TIDE_CMAP_GRAY:
  default:
    rgb[0] = rgb[1] = rgb[2] = (float)t;
    return;
  }
}

void tide_cmap_lut(tide_cmap m, int n, float *lut) {
  for (int i = 0; i < n; i++)
    tide_cmap_eval(m, n > 1 ? (double)i / (n - 1) : 0, lut + 3 * i);
}
