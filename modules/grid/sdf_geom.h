/*
 * sdf_geom.h -- small geometric kernels shared by the SDF and redistancing
 * code (private to modules/grid): 3-vectors, closest points on triangles
 * and segments.
 */
#ifndef TIDE_SDF_GEOM_H
#define TIDE_SDF_GEOM_H

#include <string.h>

static inline double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void sub3(const double *a, const double *b, double *o) {
  o[0] = a[0] - b[0];
  o[1] = a[1] - b[1];
  o[2] = a[2] - b[2];
}
static inline void cross3(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

/* closest point to p on triangle abc (Ericson, Real-Time Collision
 * Detection, Sec. 5.1.5): Voronoi regions of vertices, edges, face */
static inline void closest_triangle(const double *p, const double *a, const double *b,
                                    const double *c, double *o) {
  double ab[3], ac[3], ap[3];
  sub3(b, a, ab);
  sub3(c, a, ac);
  sub3(p, a, ap);
  double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    memcpy(o, a, 3 * sizeof(double));
    return;
  }
  double bp[3];
  sub3(p, b, bp);
  double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    memcpy(o, b, 3 * sizeof(double));
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double v = d1 / (d1 - d3);
    for (int i = 0; i < 3; i++)
      o[i] = a[i] + v * ab[i];
    return;
  }
  double cp[3];
  sub3(p, c, cp);
  double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    memcpy(o, c, 3 * sizeof(double));
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double w = d2 / (d2 - d6);
    for (int i = 0; i < 3; i++)
      o[i] = a[i] + w * ac[i];
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int i = 0; i < 3; i++)
      o[i] = b[i] + w * (c[i] - b[i]);
    return;
  }
  double den = va + vb + vc;
  if (!(den > 0)) { /* degenerate triangle: nearest of its edges */
    memcpy(o, a, 3 * sizeof(double));
    return;
  }
  double v = vb / den, w = vc / den;
  for (int i = 0; i < 3; i++)
    o[i] = a[i] + ab[i] * v + ac[i] * w;
}

static inline void closest_segment(const double *p, const double *a, const double *b, double *o) {
  double ab[3], ap[3];
  sub3(b, a, ab);
  sub3(p, a, ap);
  double l2 = dot3(ab, ab), t = l2 > 0 ? dot3(ap, ab) / l2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  for (int i = 0; i < 3; i++)
    o[i] = a[i] + t * ab[i];
}

#endif
