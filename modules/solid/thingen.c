/*
 * thingen.c -- generators of thin-solid meshes (see thin.h / mesh.h):
 * rectangular sheets (cloth, bands), discs, curved leaf-like patches,
 * kirigami sheets with slits, straight and helical rods, rod bundles and
 * webs of rings and spokes.
 */
#include "solid/mesh.h"
#include "solid/thingen.h"

#include <math.h>
#include <string.h>

/* a growable buffer of doubles / ints for the generators */
typedef struct gbuf {
  double *P;
  int32_t *E;
  int64_t np, ne, capP, capE;
  int dim, nper;
} gbuf;

static int gb_point(gbuf *b, const double *p) {
  if (b->np == b->capP) {
    int64_t cap = b->capP ? 2 * b->capP : 64;
    double *q = tide_alloc((size_t)(cap * b->dim) * sizeof(double));
    if (!q) return -1;
    if (b->P) memcpy(q, b->P, (size_t)(b->np * b->dim) * sizeof(double));
    tide_free(b->P, (size_t)(b->capP * b->dim) * sizeof(double));
    b->P = q, b->capP = cap;
  }
  memcpy(b->P + b->np * b->dim, p, (size_t)b->dim * sizeof(double));
  return (int)b->np++;
}

static int gb_elem(gbuf *b, const int32_t *e) {
  if (b->ne == b->capE) {
    int64_t cap = b->capE ? 2 * b->capE : 64;
    int32_t *q = tide_alloc((size_t)(cap * b->nper) * sizeof(int32_t));
    if (!q) return -1;
    if (b->E) memcpy(q, b->E, (size_t)(b->ne * b->nper) * sizeof(int32_t));
    tide_free(b->E, (size_t)(b->capE * b->nper) * sizeof(int32_t));
    b->E = q, b->capE = cap;
  }
  memcpy(b->E + b->ne * b->nper, e, (size_t)b->nper * sizeof(int32_t));
  b->ne++;
  return 0;
}

static void gb_free(gbuf *b) {
  tide_free(b->P, (size_t)(b->capP * b->dim) * sizeof(double));
  tide_free(b->E, (size_t)(b->capE * b->nper) * sizeof(int32_t));
}

static int gb_finish(gbuf *b, int oom, const char *what, tide_tetmesh **out) {
  int st = oom ? TIDE_ENOMEM : tide_tetmesh_new(b->dim, b->nper, b->np, b->P, b->ne, b->E, what, NULL, out);
  gb_free(b);
  return st;
}

/* ------------------------------------------------------------- shells */

int tide_mesh_sheet(const double *origin, const double *u, const double *v, int nu, int nv,
                    int alternate, const double *bulge, const tide_slit *slits, int nslits,
                    tide_tetmesh **out) {
  *out = NULL;
  if (nu < 1 || nv < 1 || nu > 4096 || nv > 4096)
    return tide_fail(TIDE_EINVAL, "sheet: cells must be in 1..4096, got %d x %d", nu, nv);
  double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  double ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(ln > 0)) return tide_fail(TIDE_EINVAL, "sheet: the two edge vectors are parallel");
  for (int k = 0; k < 3; k++) n[k] /= ln;
  gbuf b = {.dim = 3, .nper = 3};
  int oom = 0;
  /* nodes (i, j) -> i*(nv+1) + j; slits duplicate the nodes along them:
   * a slit is a run of grid edges along u (fixed j) or v (fixed i) whose
   * interior nodes are split, the cells on either side referring to their
   * own copy */
  int64_t nn = (int64_t)(nu + 1) * (nv + 1);
  size_t cb = (size_t)nn * sizeof(int32_t);
  int32_t *upper = tide_alloc(cb); /* copy used by cells above/right of a slit node */
  if (!upper) return TIDE_ENOMEM;
  for (int i = 0; i <= nu; i++)
    for (int j = 0; j <= nv; j++) {
      double s = (double)i / nu, t = (double)j / nv, p[3];
      double h = bulge ? bulge[0] * (1 - (2 * s - 1) * (2 * s - 1)) +
                             bulge[1] * (1 - (2 * t - 1) * (2 * t - 1))
                       : 0;
      for (int k = 0; k < 3; k++) p[k] = origin[k] + s * u[k] + t * v[k] + h * n[k];
      if (gb_point(&b, p) < 0) oom = 1;
      upper[(int64_t)i * (nv + 1) + j] = (int32_t)((int64_t)i * (nv + 1) + j);
    }
  for (int q = 0; q < nslits && !oom; q++) {
    const tide_slit *sl = &slits[q];
    for (int k = sl->from + 1; k < sl->to; k++) { /* interior nodes of the slit */
      int i = sl->along_u ? k : sl->at, j = sl->along_u ? sl->at : k;
      if (i <= 0 || i >= nu || j <= 0 || j >= nv) continue;
      int64_t id = (int64_t)i * (nv + 1) + j;
      if (upper[id] != id) continue; /* crossing slits: split once */
      int c = gb_point(&b, b.P + id * 3);
      if (c < 0) oom = 1;
      upper[id] = c;
    }
  }
  int64_t cross0 = b.np; /* cross pattern: the cell centres follow */
  for (int i = 0; alternate == 2 && i < nu && !oom; i++)
    for (int j = 0; j < nv && !oom; j++) {
      double p[3];
      for (int k = 0; k < 3; k++)
        p[k] = 0.25 * (b.P[((int64_t)i * (nv + 1) + j) * 3 + k] + b.P[((int64_t)(i + 1) * (nv + 1) + j) * 3 + k] +
                       b.P[((int64_t)(i + 1) * (nv + 1) + j + 1) * 3 + k] + b.P[((int64_t)i * (nv + 1) + j + 1) * 3 + k]);
      if (gb_point(&b, p) < 0) oom = 1;
    }
  for (int i = 0; i < nu && !oom; i++)
    for (int j = 0; j < nv && !oom; j++) {
      int32_t c[4];
      int ci[4] = {i, i + 1, i + 1, i}, cj[4] = {j, j, j + 1, j + 1};
      for (int a = 0; a < 4; a++) {
        int64_t id = (int64_t)ci[a] * (nv + 1) + cj[a];
        c[a] = (int32_t)id;
        /* which copy: a cell lies above a slit along u at row j0 when its
         * node row is j0 and the cell's rows are j0..j0+1; right of a slit
         * along v similarly */
        for (int q = 0; q < nslits; q++) {
          const tide_slit *sl = &slits[q];
          int along = sl->along_u ? ci[a] : cj[a], across = sl->along_u ? cj[a] : ci[a];
          int cell_lo = sl->along_u ? j : i;
          if (across == sl->at && along > sl->from && along < sl->to && cell_lo == sl->at)
            c[a] = upper[id];
        }
      }
      if (alternate == 2) { /* four triangles around the cell centre */
        int32_t m = (int32_t)(cross0 + (int64_t)i * nv + j);
        for (int a = 0; a < 4 && !oom; a++) {
          int32_t t[3] = {c[a], c[(a + 1) % 4], m};
          if (gb_elem(&b, t)) oom = 1;
        }
      } else if (alternate && (i + j) % 2) { /* the other diagonal (i+1, j)-(i, j+1) */
        int32_t t1[3] = {c[0], c[1], c[3]}, t2[3] = {c[1], c[2], c[3]};
        if (gb_elem(&b, t1) || gb_elem(&b, t2)) oom = 1;
      } else {
        int32_t t1[3] = {c[0], c[1], c[2]}, t2[3] = {c[0], c[2], c[3]};
        if (gb_elem(&b, t1) || gb_elem(&b, t2)) oom = 1;
      }
    }
  tide_free(upper, cb);
  return gb_finish(&b, oom, "sheet", out);
}

int tide_mesh_disc(const double *center, const double *normal, double radius, int rings,
                   tide_tetmesh **out) {
  *out = NULL;
  if (rings < 1 || rings > 2048) return tide_fail(TIDE_EINVAL, "disc: rings must be in 1..2048");
  if (!(radius > 0)) return tide_fail(TIDE_EINVAL, "disc: radius must be positive");
  double n[3] = {normal[0], normal[1], normal[2]}, ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(ln > 0)) return tide_fail(TIDE_EINVAL, "disc: normal must be nonzero");
  for (int k = 0; k < 3; k++) n[k] /= ln;
  /* in-plane frame e1, e2 with e1 x e2 = n */
  double t[3] = {0, 0, 0}, e1[3], e2[3];
  t[fabs(n[0]) < 0.9 ? 0 : 1] = 1;
  double s = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
  for (int k = 0; k < 3; k++) e1[k] = t[k] - s * n[k];
  double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (int k = 0; k < 3; k++) e1[k] /= l1;
  e2[0] = n[1] * e1[2] - n[2] * e1[1];
  e2[1] = n[2] * e1[0] - n[0] * e1[2];
  e2[2] = n[0] * e1[1] - n[1] * e1[0];
  gbuf b = {.dim = 3, .nper = 3};
  int oom = gb_point(&b, center) < 0;
  /* ring r (1..rings) has 6 r nodes at radius r R / rings; node 0 the centre */
  for (int r = 1; r <= rings && !oom; r++)
    for (int q = 0; q < 6 * r; q++) {
      double a = 2 * M_PI * q / (6 * r), rr = radius * r / rings, p[3];
      for (int k = 0; k < 3; k++) p[k] = center[k] + rr * (cos(a) * e1[k] + sin(a) * e2[k]);
      if (gb_point(&b, p) < 0) oom = 1;
    }
  /* strips between ring r-1 and r: each of the 6 sectors has r outer and
   * r-1 inner edges (the standard hexagonal disc triangulation) */
  for (int r = 1; r <= rings && !oom; r++) {
    int64_t in0 = r == 1 ? 0 : 1 + 3 * (int64_t)(r - 1) * (r - 2), out0 = 1 + 3 * (int64_t)r * (r - 1);
    int nin = r == 1 ? 1 : 6 * (r - 1), nout = 6 * r;
    for (int sec = 0; sec < 6; sec++)
      for (int q = 0; q < r; q++) {
        int o = sec * r + q, ii = sec * (r - 1) + q;
        int32_t a = (int32_t)(out0 + o), bnext = (int32_t)(out0 + (o + 1) % nout);
        int32_t c = (int32_t)(r == 1 ? in0 : in0 + ii % nin);
        int32_t tri[3] = {c, a, bnext};
        if (gb_elem(&b, tri)) oom = 1;
        if (q < r - 1) {
          int32_t cn = (int32_t)(in0 + (ii + 1) % nin), tri2[3] = {c, bnext, cn};
          if (gb_elem(&b, tri2)) oom = 1;
        }
      }
  }
  return gb_finish(&b, oom, "disc", out);
}

/* --------------------------------------------------------------- rods */

int tide_mesh_rods(int dim, int64_t np, const double *P, int npoly, const int64_t *start,
                   const int *closed, tide_tetmesh **out) {
  *out = NULL;
  gbuf b = {.dim = dim, .nper = 2};
  int oom = 0;
  for (int64_t i = 0; i < np && !oom; i++)
    if (gb_point(&b, P + i * dim) < 0) oom = 1;
  for (int q = 0; q < npoly && !oom; q++) {
    int64_t a = start[q], z = start[q + 1];
    for (int64_t i = a; i + 1 < z && !oom; i++) {
      int32_t s[2] = {(int32_t)i, (int32_t)(i + 1)};
      if (gb_elem(&b, s)) oom = 1;
    }
    if (closed && closed[q] && z - a > 2) {
      int32_t s[2] = {(int32_t)(z - 1), (int32_t)a};
      if (gb_elem(&b, s)) oom = 1;
    }
  }
  return gb_finish(&b, oom, "rods", out);
}

int tide_mesh_helix(const double *center, double radius, double pitch, double turns, int per_turn,
                    tide_tetmesh **out) {
  *out = NULL;
  if (!(radius > 0) || !(turns > 0) || per_turn < 3 || per_turn > 4096)
    return tide_fail(TIDE_EINVAL, "helix: need radius > 0, turns > 0, 3..4096 segments per turn");
  int64_t n = (int64_t)ceil(turns * per_turn);
  if (n > 1 << 22) return tide_fail(TIDE_EINVAL, "helix: too many segments");
  gbuf b = {.dim = 3, .nper = 2};
  int oom = 0;
  /* axis y: x = R cos, z = R sin, y rising by pitch per turn */
  for (int64_t i = 0; i <= n && !oom; i++) {
    double a = 2 * M_PI * turns * (double)i / n;
    double p[3] = {center[0] + radius * cos(a), center[1] + pitch * a / (2 * M_PI),
                   center[2] + radius * sin(a)};
    if (gb_point(&b, p) < 0) oom = 1;
    if (i > 0) {
      int32_t s[2] = {(int32_t)(i - 1), (int32_t)i};
      if (gb_elem(&b, s)) oom = 1;
    }
  }
  return gb_finish(&b, oom, "helix", out);
}

int tide_mesh_web(const double *center, double radius, int rings, int spokes, int per_arc,
                  tide_tetmesh **out) {
  *out = NULL;
  if (rings < 1 || spokes < 3 || per_arc < 1 || rings > 512 || spokes > 512 || per_arc > 64)
    return tide_fail(TIDE_EINVAL, "web: need 1..512 rings, 3..512 spokes, 1..64 segments per arc");
  if (!(radius > 0)) return tide_fail(TIDE_EINVAL, "web: radius must be positive");
  /* in the x-y plane around center: node 0 the hub, spoke nodes (r, s),
   * ring arcs subdivided into per_arc segments */
  gbuf b = {.dim = 3, .nper = 2};
  int oom = gb_point(&b, center) < 0;
  int64_t sp0 = 1; /* spoke node (r, s) at sp0 + (r-1)*spokes + s */
  for (int r = 1; r <= rings && !oom; r++)
    for (int s = 0; s < spokes; s++) {
      double a = 2 * M_PI * s / spokes, rr = radius * r / rings;
      double p[3] = {center[0] + rr * cos(a), center[1] + rr * sin(a), center[2]};
      if (gb_point(&b, p) < 0) oom = 1;
    }
  for (int s = 0; s < spokes && !oom; s++) { /* spokes: hub -> outer ring */
    int32_t prev = 0;
    for (int r = 1; r <= rings; r++) {
      int32_t cur = (int32_t)(sp0 + (int64_t)(r - 1) * spokes + s), seg[2] = {prev, cur};
      if (gb_elem(&b, seg)) oom = 1;
      prev = cur;
    }
  }
  for (int r = 1; r <= rings && !oom; r++) /* rings: arcs between spokes */
    for (int s = 0; s < spokes && !oom; s++) {
      int32_t a = (int32_t)(sp0 + (int64_t)(r - 1) * spokes + s);
      int32_t z = (int32_t)(sp0 + (int64_t)(r - 1) * spokes + (s + 1) % spokes), prev = a;
      for (int q = 1; q < per_arc; q++) {
        double ang = 2 * M_PI * (s + (double)q / per_arc) / spokes, rr = radius * r / rings;
        double p[3] = {center[0] + rr * cos(ang), center[1] + rr * sin(ang), center[2]};
        int c = gb_point(&b, p);
        int32_t seg[2] = {prev, (int32_t)c};
        if (c < 0 || gb_elem(&b, seg)) oom = 1;
        prev = (int32_t)c;
      }
      int32_t seg[2] = {prev, z};
      if (gb_elem(&b, seg)) oom = 1;
    }
  return gb_finish(&b, oom, "web", out);
}
