/* test_couple_clip.c -- the clipped solid boundary of Zarifi section 5.1.1
 * (couple/zarifi.h): box areas exact to round-off (generic and on grid
 * planes), the swept-volume flux of a translating box, 10^4 random
 * placements (no NaN, pieces partition the boundary, C^T N = (N^T C)^T,
 * pressure forces of a constant p sum to the closed integral of p n = 0),
 * a sphere's area to O(dx^2) and the section 5.4 inconsistency between
 * node-SDF face fractions and the clipped pieces (discrete divergence
 * theorem per cell), and in 2D the exact fractions of a jagged polygon closing
 * against its own clipped pieces to round-off; in 3D the same for a jagged
 * icosphere, a box on grid planes, and CSG of icospheres and boxes (union,
 * intersection, difference, transforms, nodes on grid planes, slivers)
 * against the CSG solid's boundary pieces. */
#include "check.h"
#include "couple/zarifi.h"
#include "grid/sdf.h"
#include "solid/fem.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 88172645463325252ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static tide_tetmesh *box_mesh(int d, const double *lo, const double *hi, int n) {
  int nn[3] = {n, n, n};
  tide_tetmesh *m = NULL;
  if (tide_mesh_box(d, lo, hi, nn, &m)) {
    fprintf(stderr, "%s\n", tide_errmsg());
    exit(1);
  }
  return m;
}

/* per cell and axis: sum of a n_in over the pieces in the cell */
static double *piece_sums(const tide_grid *g, const tide_zclip *c) {
  int d = g->dim;
  double *S = calloc((size_t)tide_grid_ncells(g) * (size_t)d, sizeof(double));
  for (int64_t q = 0; q < c->n; q++)
    for (int k = 0; k < d; k++)
      S[c->cell[q] * d + k] += c->area[q] * c->normal[q * d + k];
  return S;
}

static double overlap(double a, double b, double lo, double hi) {
  double l = fmax(a, lo), h = fmin(b, hi);
  return h > l ? h - l : 0;
}

/* cell index along an axis of a box face at coordinate X whose outward
 * normal has sign sgn: on a grid plane the face belongs to the liquid side */
static int face_cell(const tide_grid *g, int k, double X, int sgn) {
  double s = (X - g->origin[k]) / g->dx;
  int i = (int)floor(s);
  if (s == floor(s) && sgn < 0) i -= 1;
  return i;
}

/* expected sum of a n_in per cell for the axis-aligned box [lo, hi] */
static double *box_sums(const tide_grid *g, const double *lo, const double *hi) {
  int d = g->dim;
  double *S = calloc((size_t)tide_grid_ncells(g) * (size_t)d, sizeof(double));
  int n2 = d == 3 ? g->n[2] : 1;
  for (int k = 0; k < d; k++)
    for (int side = 0; side < 2; side++) {
      double X = side ? hi[k] : lo[k];
      int sgn = side ? 1 : -1; /* outward normal sign */
      int ck = face_cell(g, k, X, sgn);
      if (ck < 0 || ck >= g->n[k]) continue;
      for (int i = 0; i < g->n[0]; i++)
        for (int j = 0; j < g->n[1]; j++)
          for (int l = 0; l < n2; l++) {
            int ijk[3] = {i, j, l};
            if (ijk[k] != ck) continue;
            double A = 1;
            for (int a = 0; a < d; a++)
              if (a != k) {
                double c0 = g->origin[a] + ijk[a] * g->dx;
                A *= overlap(lo[a], hi[a], c0, c0 + g->dx);
              }
            S[tide_grid_idx(g, i, j, l) * d + k] += -sgn * A;
          }
    }
  return S;
}

static void test_box(int d, const double *lo, const double *hi, const char *what) {
  tide_grid g;
  int n[3] = {8, 8, d == 3 ? 8 : 1};
  double o[3] = {0, 0, 0};
  tide_grid_init(&g, d, n, 0.125, o);
  tide_tetmesh *m = box_mesh(d, lo, hi, 3);
  tide_zclip c;
  memset(&c, 0, sizeof c);
  CHECK(tide_zarifi_clip(&g, m, NULL, &c) == TIDE_OK, "%s: clip", what);
  double *S = piece_sums(&g, &c), *E = box_sums(&g, lo, hi), err = 0;
  for (int64_t q = 0; q < tide_grid_ncells(&g) * d; q++)
    err = fmax(err, fabs(S[q] - E[q]));
  CHECK(err <= 1e-15, "%s: per-cell area-weighted normals exact (max error %g)", what, err);
  double A = 0;
  for (int64_t q = 0; q < c.n; q++)
    A += c.area[q];
  CHECK(fabs(A - c.total) <= 1e-14 && c.outside == 0, "%s: pieces partition the boundary", what);
  printf("%s: %lld pieces, max per-cell error %.2e\n", what, (long long)c.n, err);
  free(S);
  free(E);
  tide_zclip_free(&c);
  tide_tetmesh_free(m);
}

/* (J v)_c for a rigid translation V = -(d/dt) volume of the box in cell c */
static void test_swept(int d) {
  tide_grid g;
  int n[3] = {8, 8, d == 3 ? 8 : 1};
  double o[3] = {-0.05, 0.02, 0.01};
  tide_grid_init(&g, d, n, 0.125, o);
  double worst = 0;
  for (int trial = 0; trial < 20; trial++) {
    double lo[3], hi[3], V[3];
    for (int k = 0; k < d; k++) {
      lo[k] = o[k] + 0.1 + 0.4 * urand();
      hi[k] = lo[k] + 0.05 + 0.4 * urand();
      V[k] = 2 * urand() - 1;
    }
    tide_tetmesh *m = box_mesh(d, lo, hi, 2);
    tide_zclip c;
    memset(&c, 0, sizeof c);
    tide_zarifi_clip(&g, m, NULL, &c);
    tide_triplets *T;
    tide_csr *J;
    tide_triplets_new((int)tide_grid_ncells(&g), (int)(m->nv * d), &T);
    tide_zarifi_j_triplets(&c, m, NULL, 0, 1.0, T);
    tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &J);
    double *v = malloc((size_t)(m->nv * d) * sizeof(double));
    double *f = malloc((size_t)tide_grid_ncells(&g) * sizeof(double));
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < d; k++)
        v[i * d + k] = V[k];
    tide_csr_mul(J, v, f);
    int n2 = d == 3 ? g.n[2] : 1;
    for (int i = 0; i < g.n[0]; i++)
      for (int j = 0; j < g.n[1]; j++)
        for (int l = 0; l < n2; l++) {
          int ijk[3] = {i, j, l};
          double L[3], dL[3];
          for (int k = 0; k < d; k++) {
            double a = o[k] + ijk[k] * g.dx, b = a + g.dx;
            L[k] = overlap(lo[k], hi[k], a, b);
            dL[k] = V[k] * ((hi[k] > a && hi[k] < b) - (lo[k] > a && lo[k] < b));
          }
          double dvol = 0;
          for (int k = 0; k < d; k++) {
            double p = dL[k];
            for (int a = 0; a < d; a++)
              if (a != k) p *= L[a];
            dvol += p;
          }
          worst = fmax(worst, fabs(f[tide_grid_idx(&g, i, j, l)] + dvol));
        }
    free(v);
    free(f);
    tide_csr_free(J);
    tide_triplets_free(T);
    tide_zclip_free(&c);
    tide_tetmesh_free(m);
  }
  CHECK(worst <= 1e-14, "%dD: swept-volume flux exact (max error %g)", d, worst);
  printf("%dD swept-volume flux: max error %.2e\n", d, worst);
}

static void rotation(int d, double *R) {
  if (d == 2) {
    double t = 2 * M_PI * urand();
    R[0] = cos(t), R[1] = -sin(t), R[2] = sin(t), R[3] = cos(t);
    return;
  }
  double q[4], s = 0;
  for (int k = 0; k < 4; k++) {
    q[k] = 2 * urand() - 1;
    s += q[k] * q[k];
  }
  s = sqrt(s);
  for (int k = 0; k < 4; k++)
    q[k] /= s;
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

static double csr_maxabs(const tide_csr *A) {
  double m = 0;
  for (int64_t p = 0; p < tide_csr_nnz(A); p++)
    m = fmax(m, fabs(A->val[p]));
  return m;
}

static void test_random(int d, int trials) {
  tide_grid g;
  int n[3] = {12, 12, d == 3 ? 12 : 1};
  double o[3] = {-0.25, -0.25, -0.25};
  tide_grid_init(&g, d, n, 0.125, o);
  double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  tide_tetmesh *m = box_mesh(d, zero, one, 1);
  int64_t nvd = m->nv * d;
  double *X = malloc((size_t)nvd * sizeof(double));
  memcpy(X, TIDE_F64P(m->rest), (size_t)nvd * sizeof(double));
  double *x = TIDE_F64P(m->x);
  int bad = 0, bad_part = 0, bad_sym = 0, bad_force = 0;
  double worst_sym = 0, worst_force = 0, worst_part = 0;
  int64_t pieces = 0;
  tide_zclip c;
  memset(&c, 0, sizeof c);
  double *p = malloc((size_t)tide_grid_ncells(&g) * sizeof(double));
  double *f = malloc((size_t)nvd * sizeof(double));
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++)
    p[q] = 1;
  for (int t = 0; t < trials; t++) {
    double R[9], sc[3], tr[3];
    rotation(d, R);
    int mode = t % 4; /* 0 generic, 1 snapped to planes, 2 sliver, 3 axis aligned on planes */
    for (int k = 0; k < d; k++) {
      sc[k] = 0.05 + 0.4 * urand();
      tr[k] = 0.3 + 0.2 * urand();
    }
    if (mode == 2) sc[t % d] *= 1e-9;
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < d; k++) {
        double s = 0;
        for (int a = 0; a < d; a++)
          s += (mode == 3 ? (a == k) : R[k * d + a]) * (X[i * d + a] - 0.5) * sc[a];
        x[i * d + k] = s + tr[k];
        if (mode == 1 && urand() < 0.7) x[i * d + k] = floor(x[i * d + k] * 32) / 32;
        if (mode == 3) x[i * d + k] = round(x[i * d + k] * 16) / 16;
      }
    if (tide_zarifi_clip(&g, m, x, &c) || c.outside != 0) {
      bad++;
      continue;
    }
    pieces += c.n;
    double A = 0;
    for (int64_t q = 0; q < c.n; q++) {
      double nn = 0, sb = 0;
      int ok = c.area[q] > 0 && isfinite(c.area[q]) && c.cell[q] >= 0 &&
               c.cell[q] < tide_grid_ncells(&g);
      for (int k = 0; k < d; k++) {
        nn += c.normal[q * d + k] * c.normal[q * d + k];
        sb += c.bary[q * d + k];
        ok = ok && c.bary[q * d + k] >= 0 && isfinite(c.centroid[q * d + k]);
      }
      ok = ok && fabs(nn - 1) < 1e-12 && fabs(sb - 1) < 1e-12;
      if (!ok) bad++;
      A += c.area[q];
    }
    double e = fabs(A + c.outside - c.total) / fmax(c.total, 1e-300);
    worst_part = fmax(worst_part, e);
    if (e > 1e-12) bad_part++;
    tide_csr *N, *C, *NT, *CT, *NTC, *CTN, *NTCT, *D;
    if (tide_zarifi_nc(&g, &c, m, &N, &C)) {
      bad++;
      continue;
    }
    tide_csr_transpose(N, &NT);
    tide_csr_transpose(C, &CT);
    tide_csr_matmul(NT, C, &NTC);
    tide_csr_matmul(CT, N, &CTN);
    tide_csr_transpose(NTC, &NTCT);
    tide_csr_add(1, CTN, -1, NTCT, &D);
    double asym = csr_maxabs(D) / fmax(csr_maxabs(CTN), 1e-300);
    worst_sym = fmax(worst_sym, asym);
    if (asym > 1e-15) bad_sym++;
    /* forces of p = 1 on the closed boundary: C^T N p sums to -oint n = 0 */
    tide_csr_mul(CTN, p, f);
    double F[3] = {0, 0, 0};
    for (int64_t i = 0; i < m->nv; i++)
      for (int k = 0; k < d; k++)
        F[k] += f[i * d + k];
    double fe = 0;
    for (int k = 0; k < d; k++)
      fe = fmax(fe, fabs(F[k]));
    fe /= fmax(c.total, 1e-300);
    worst_force = fmax(worst_force, fe);
    if (fe > 1e-13) bad_force++;
    tide_csr_free(N);
    tide_csr_free(C);
    tide_csr_free(NT);
    tide_csr_free(CT);
    tide_csr_free(NTC);
    tide_csr_free(CTN);
    tide_csr_free(NTCT);
    tide_csr_free(D);
  }
  CHECK(bad == 0, "%dD: %d pieces with NaN, negative area or bad barycentrics", d, bad);
  CHECK(bad_part == 0, "%dD: pieces partition the boundary (worst %g)", d, worst_part);
  CHECK(bad_sym == 0, "%dD: C^T N = (N^T C)^T (worst %g)", d, worst_sym);
  CHECK(bad_force == 0, "%dD: sum of constant-pressure forces = 0 (worst %g)", d, worst_force);
  printf(
      "%dD random placements: %d, %lld pieces, partition %.1e, C^T N asym %.1e, sum force %.1e\n",
      d, trials, (long long)pieces, worst_part, worst_sym, worst_force);
  tide_zclip_free(&c);
  free(p);
  free(f);
  free(X);
  tide_tetmesh_free(m);
}

/* A star-shaped volume mesh of the sphere (disk in 2D) of radius r: the
 * surface of a subdivided icosahedron (a regular polygon in 2D) projected
 * onto the sphere, every surface face joined to the centre. */
static tide_tetmesh *sphere_mesh(int d, const double *ctr, double r, int level) {
  int64_t nv, nf;
  double *P;
  int32_t *F;
  if (d == 2) {
    nv = 6 << level;
    P = malloc((size_t)(nv + 1) * 2 * sizeof(double));
    F = malloc((size_t)nv * 3 * sizeof(int32_t));
    for (int64_t i = 0; i < nv; i++) {
      P[2 * i] = ctr[0] + r * cos(2 * M_PI * i / nv);
      P[2 * i + 1] = ctr[1] + r * sin(2 * M_PI * i / nv);
      F[3 * i] = (int32_t)nv;
      F[3 * i + 1] = (int32_t)i;
      F[3 * i + 2] = (int32_t)((i + 1) % nv);
    }
    P[2 * nv] = ctr[0];
    P[2 * nv + 1] = ctr[1];
    nf = nv;
  } else {
    const double t = (1 + sqrt(5.0)) / 2;
    double V0[12][3] = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                        {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
    int T0[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                     {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                     {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                     {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    int64_t cap = 12 + 30 * ((int64_t)1 << (2 * level)), fcap = 20 * ((int64_t)1 << (2 * level));
    double(*V)[3] = malloc((size_t)(cap + 1) * sizeof *V);
    int(*T)[3] = malloc((size_t)fcap * sizeof *T), (*T2)[3] = malloc((size_t)fcap * sizeof *T2);
    memcpy(V, V0, sizeof V0);
    memcpy(T, T0, sizeof T0);
    nv = 12;
    nf = 20;
    for (int l = 0; l < level; l++) { /* midpoints (duplicates are harmless: found by search) */
      int64_t nf2 = 0;
      for (int64_t f = 0; f < nf; f++) {
        int mid[3];
        for (int e = 0; e < 3; e++) {
          int a = T[f][e], b = T[f][(e + 1) % 3];
          double m[3];
          for (int k = 0; k < 3; k++)
            m[k] = 0.5 * (V[a][k] + V[b][k]);
          int64_t q = 12;
          for (; q < nv; q++)
            if (V[q][0] == m[0] && V[q][1] == m[1] && V[q][2] == m[2]) break;
          if (q == nv) memcpy(V[nv++], m, sizeof m);
          mid[e] = (int)q;
        }
        int a = T[f][0], b = T[f][1], c = T[f][2];
        int S[4][3] = {{a, mid[0], mid[2]},
                       {b, mid[1], mid[0]},
                       {c, mid[2], mid[1]},
                       {mid[0], mid[1], mid[2]}};
        memcpy(T2[nf2], S, sizeof S);
        nf2 += 4;
      }
      memcpy(T, T2, (size_t)nf2 * sizeof *T);
      nf = nf2;
    }
    P = malloc((size_t)(nv + 1) * 3 * sizeof(double));
    F = malloc((size_t)nf * 4 * sizeof(int32_t));
    for (int64_t i = 0; i < nv; i++) {
      double l = sqrt(V[i][0] * V[i][0] + V[i][1] * V[i][1] + V[i][2] * V[i][2]);
      for (int k = 0; k < 3; k++)
        P[3 * i + k] = ctr[k] + r * V[i][k] / l;
    }
    for (int k = 0; k < 3; k++)
      P[3 * nv + k] = ctr[k];
    for (int64_t f = 0; f < nf; f++) {
      F[4 * f] = (int32_t)nv;
      for (int k = 0; k < 3; k++)
        F[4 * f + 1 + k] = T[f][k];
    }
    free(V);
    free(T);
    free(T2);
  }
  tide_tetmesh *m = NULL;
  if (tide_tetmesh_new(d, d + 1, nv + 1, P, nf, F, "sphere", NULL, &m)) {
    fprintf(stderr, "%s\n", tide_errmsg());
    exit(1);
  }
  free(P);
  free(F);
  return m;
}

/* The discrete divergence theorem per cell and axis: |A (w_hi - w_lo) + sum a n|
 * of face fractions w against the pieces' sums S, over the face area A: the
 * max over all cells, *mean over the cut ones. */
static double closure(const tide_grid *g, const tide_mac *w, const double *S, double *mean) {
  int d = g->dim, n2 = d == 3 ? g->n[2] : 1;
  double worst = 0, fa = d == 3 ? g->dx * g->dx : g->dx, sum = 0;
  int64_t cut = 0;
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int l = 0; l < n2; l++) {
        int ijk[3] = {i, j, l};
        int64_t cidx = tide_grid_idx(g, i, j, l);
        for (int k = 0; k < d; k++) {
          int h[3] = {i, j, l};
          h[k] += 1;
          double wl = TIDE_F64P(w->u[k])[tide_grid_fidx(g, k, ijk[0], ijk[1], ijk[2])];
          double wh = TIDE_F64P(w->u[k])[tide_grid_fidx(g, k, h[0], h[1], h[2])];
          double rr = fabs(fa * (wh - wl) + S[cidx * d + k]);
          worst = fmax(worst, rr);
          if (wl < 1 || wh < 1 || S[cidx * d + k] != 0) {
            sum += rr;
            cut++;
          }
        }
      }
  *mean = sum / fa / (double)(cut ? cut : 1);
  return worst / fa;
}

/* Sphere of radius r: the clipped area converges as O(dx^2) (surface mesh
 * spacing ~ dx/2), and per cell the pieces close against the face fractions of the
 * solid SDF (discrete divergence theorem; section 5.4's "mild
 * inconsistency" for node-based fractions, depth 0). */
static void test_sphere(int d) {
  double ctr[3] = {0.5, 0.5, 0.5}, r = 0.3;
  tide_shape *sph;
  tide_shape_sphere(d, ctr, r, &sph);
  double exact = d == 3 ? 4 * M_PI * r * r : 2 * M_PI * r;
  double area_err[3], close_node[3], close_exact[3], mean_node[3], mean_exact[3];
  for (int lvl = 0; lvl < 3; lvl++) {
    int nc = 16 << lvl;
    tide_grid g;
    int n[3] = {nc, nc, d == 3 ? nc : 1};
    double o[3] = {0, 0, 0};
    tide_grid_init(&g, d, n, 1.0 / nc, o);
    tide_tetmesh *m = sphere_mesh(d, ctr, r, d == 3 ? 3 + lvl : 4 + lvl);
    tide_zclip c;
    memset(&c, 0, sizeof c);
    tide_zarifi_clip(&g, m, NULL, &c);
    double A = 0;
    for (int64_t q = 0; q < c.n; q++)
      A += c.area[q];
    area_err[lvl] = fabs(A - exact) / exact;
    double *S = piece_sums(&g, &c);
    for (int depth = 0; depth < 2; depth++) {
      tide_mac *w;
      tide_mac_new(&g, TIDE_F64, &w);
      tide_mac_face_fractions_shape(&g, sph, depth ? 6 : 0, 0, 1, w, NULL);
      double mean;
      (depth ? close_exact : close_node)[lvl] = closure(&g, w, S, &mean);
      (depth ? mean_exact : mean_node)[lvl] = mean;
      tide_mac_free(w);
    }
    printf(
        "%dD sphere dx=1/%d: %lld pieces, area error %.3e; closure residual / face area, max (mean "
        "over cut cells): node-SDF fractions %.3e (%.3e), exact fractions %.3e (%.3e)\n",
        d, nc, (long long)c.n, area_err[lvl], close_node[lvl], mean_node[lvl], close_exact[lvl],
        mean_exact[lvl]);
    free(S);
    tide_zclip_free(&c);
    tide_tetmesh_free(m);
  }
  for (int lvl = 1; lvl < 3; lvl++) {
    double order = log2(area_err[lvl - 1] / area_err[lvl]);
    CHECK(order > 1.5, "%dD sphere area: order %.2f (want ~2)", d, order);
    double oe = log2(mean_exact[lvl - 1] / mean_exact[lvl]);
    CHECK(oe > 0.7, "%dD mean closure with exact fractions: order %.2f (want >= 1)", d, oe);
  }
  /* the section 5.4 inconsistency of node-SDF fractions: a few per cent of a face */
  CHECK(close_exact[2] < 0.05 && close_node[2] < 0.1, "%dD closure max %g (exact), %g (node)", d,
        close_exact[2], close_node[2]);
  tide_shape_release(sph);
}

/* the unit cube in nc^3 cells */
static void unit_cube(tide_grid *g, int nc) {
  int n[3] = {nc, nc, nc};
  double o[3] = {0, 0, 0};
  tide_grid_init(g, 3, n, 1.0 / nc, o);
}

/* closure (max, *mean) of the exact fractions of shape against the pieces
 * clipped from m at x (NULL: m->x); *partial: the faces with 0 < f < 1 */
static double shape_closure(const tide_grid *g, const tide_tetmesh *m, const double *x, const tide_shape *shape,
                            double *mean, int64_t *partial) {
  tide_zclip c;
  memset(&c, 0, sizeof c);
  tide_zarifi_clip(g, m, x, &c);
  double *S = piece_sums(g, &c);
  tide_mac *w;
  tide_mac_new(g, TIDE_F64, &w);
  tide_mac_face_fractions_shape(g, shape, 5, 0, 1, w, NULL);
  *partial = 0;
  for (int a = 0; a < g->dim; a++)
    for (int64_t q = 0; q < tide_array_size(w->u[a]); q++) {
      double f = TIDE_F64P(w->u[a])[q];
      *partial += f > 0 && f < 1;
    }
  double worst = closure(g, w, S, mean);
  tide_mac_free(w);
  free(S);
  tide_zclip_free(&c);
  return worst;
}

/* the boundary polygon (surface in 3D) of m at V (nv x dim) as a shape */
static tide_shape *polygon(const tide_tetmesh *m, const double *V) {
  tide_sdf_mesh *sm;
  tide_shape *poly;
  CHECK(tide_sdf_mesh_new(m->dim, m->nv, V, m->nb, TIDE_I32P(m->bound), &sm) == TIDE_OK, "polygon");
  tide_shape_mesh(sm, &poly);
  tide_sdf_mesh_release(sm);
  return poly;
}

/* the closure tests' shapes: 0 the boundary of m at x, 1 of m at V moved
 * by the transform (R, tc), 2 the boundary of box */
static tide_shape *case_shape(int cs, const tide_tetmesh *m, const double *x, const double *V, const double *R,
                              const double *tc, const tide_tetmesh *box) {
  tide_shape *shape;
  if (cs == 1) {
    tide_shape *poly = polygon(m, V);
    tide_shape_transform(poly, R, tc, &shape);
    tide_shape_release(poly);
  } else {
    shape = cs == 0 ? polygon(m, x) : polygon(box, TIDE_F64P(box->x));
  }
  return shape;
}

/* 2D: the exact fractions of the mesh's own boundary polygon (a jagged disk,
 * vertices at random radii, so its corners poke through grid lines by any
 * amount; also moved rigidly through a transform shape; a box whose sides
 * lie on grid lines) close every cell against the pieces clipped from the
 * same polygon to round-off: the face fractions are the lengths outside the
 * polygon (tide_sdf_mesh_crossings), not a subdivision that misses
 * openings below its leaves. */
static void test_polygon_closure(void) {
  double ctr[3] = {0.5, 0.5, 0}, r = 0.3;
  int nc = 32;
  tide_grid g;
  int n[3] = {nc, nc, 1};
  double o[3] = {0, 0, 0};
  tide_grid_init(&g, 2, n, 1.0 / nc, o);
  tide_tetmesh *m = sphere_mesh(2, ctr, r, 4);
  double *x = TIDE_F64P(m->x);
  for (int64_t i = 0; i + 1 < m->nv; i++) { /* the last node is the centre */
    double s = 0.85 + 0.3 * urand();
    for (int k = 0; k < 2; k++)
      x[2 * i + k] = ctr[k] + s * (x[2 * i + k] - ctr[k]);
  }
  double ang = 0.3, R[9] = {cos(ang), -sin(ang), 0, sin(ang), cos(ang), 0, 0, 0, 1}, t[3] = {0.013, -0.021, 0};
  double tc[3] = {ctr[0] + t[0], ctr[1] + t[1], 0};
  double *xr = malloc((size_t)m->nv * 2 * sizeof(double)), *V = malloc((size_t)m->nv * 2 * sizeof(double));
  for (int64_t i = 0; i < m->nv; i++) { /* the mesh moved: x' = R (x - c) + c + t; V centred */
    double dxy[2] = {x[2 * i] - ctr[0], x[2 * i + 1] - ctr[1]};
    V[2 * i] = dxy[0], V[2 * i + 1] = dxy[1];
    for (int k = 0; k < 2; k++)
      xr[2 * i + k] = tc[k] + R[3 * k] * dxy[0] + R[3 * k + 1] * dxy[1];
  }
  double lo[3] = {0.25 + 0.3 / nc, 0.375, 0}, hi[3] = {0.75, 0.625 - 0.4 / nc, 0}; /* two sides on grid lines */
  tide_tetmesh *box = box_mesh(2, lo, hi, 4);
  for (int cs = 0; cs < 3; cs++) {
    tide_shape *shape = case_shape(cs, m, x, V, R, tc, box);
    static const char *what[3] = {"jagged polygon", "jagged polygon moved by a transform", "box, two sides on grid lines"};
    double mean;
    int64_t partial;
    double worst = shape_closure(&g, cs == 2 ? box : m, cs == 1 ? xr : NULL, shape, &mean, &partial);
    printf("2D %s, %lld cut faces: closure of the exact fractions / face area, max %.3e (mean %.3e)\n", what[cs],
           (long long)partial, worst, mean);
    CHECK((cs == 2 || partial > 100) && worst < 1e-12, "2D %s: exact fractions close to round-off (max %g)", what[cs], worst);
    tide_shape_release(shape);
  }
  free(xr);
  free(V);
  tide_tetmesh_free(box);
  tide_tetmesh_free(m);
}

/* 3D: the same for a jagged icosphere (vertices at random radii), also
 * moved rigidly through a transform shape, and a box whose faces lie on
 * grid planes: the face fractions are the areas outside the surface (the
 * cross-section segments with each face's plane, integrated exactly
 * between events), not a depth-5 subdivision. */
static void test_surface_closure(void) {
  double ctr[3] = {0.5, 0.5, 0.5}, r = 0.3;
  int nc = 16;
  tide_grid g;
  unit_cube(&g, nc);
  tide_tetmesh *m = sphere_mesh(3, ctr, r, 2);
  double *x = TIDE_F64P(m->x);
  for (int64_t i = 0; i + 1 < m->nv; i++) { /* the last node is the centre */
    double s = 0.85 + 0.3 * urand();
    for (int k = 0; k < 3; k++)
      x[3 * i + k] = ctr[k] + s * (x[3 * i + k] - ctr[k]);
  }
  double a1 = 0.3, a2 = 0.7; /* R = Rz(a1) Rx(a2) */
  double Rz[9] = {cos(a1), -sin(a1), 0, sin(a1), cos(a1), 0, 0, 0, 1}, Rx[9] = {1, 0, 0, 0, cos(a2), -sin(a2), 0, sin(a2), cos(a2)};
  double R[9], t[3] = {0.013, -0.021, 0.017};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = Rz[3 * i] * Rx[j] + Rz[3 * i + 1] * Rx[3 + j] + Rz[3 * i + 2] * Rx[6 + j];
  double tc[3] = {ctr[0] + t[0], ctr[1] + t[1], ctr[2] + t[2]};
  double *xr = malloc((size_t)m->nv * 3 * sizeof(double)), *V = malloc((size_t)m->nv * 3 * sizeof(double));
  for (int64_t i = 0; i < m->nv; i++) { /* the mesh moved: x' = R (x - c) + c + t; V centred */
    double d[3] = {x[3 * i] - ctr[0], x[3 * i + 1] - ctr[1], x[3 * i + 2] - ctr[2]};
    for (int k = 0; k < 3; k++) {
      V[3 * i + k] = d[k];
      xr[3 * i + k] = tc[k] + R[3 * k] * d[0] + R[3 * k + 1] * d[1] + R[3 * k + 2] * d[2];
    }
  }
  double lo[3] = {0.25 + 0.3 / nc, 0.375, 0.25}, hi[3] = {0.75, 0.625 - 0.4 / nc, 0.6875}; /* faces on grid planes */
  tide_tetmesh *box = box_mesh(3, lo, hi, 3);
  for (int cs = 0; cs < 3; cs++) {
    tide_shape *shape = case_shape(cs, m, x, V, R, tc, box);
    static const char *what[3] = {"jagged icosphere", "jagged icosphere moved by a transform",
                                  "box, four faces on grid planes"};
    double mean, t0 = (double)clock() / CLOCKS_PER_SEC;
    int64_t partial;
    double worst = shape_closure(&g, cs == 2 ? box : m, cs == 1 ? xr : NULL, shape, &mean, &partial);
    printf("3D %s, %lld cut faces: closure of the exact fractions / face area, max %.3e (mean %.3e), %.3f s CPU (clip + fractions)\n",
           what[cs], (long long)partial, worst, mean, (double)clock() / CLOCKS_PER_SEC - t0);
    CHECK((cs == 2 || partial > 500) && worst < 1e-12, "3D %s: exact fractions close to round-off (max %g)", what[cs],
          worst);
    tide_shape_release(shape);
  }
  free(xr);
  free(V);
  tide_tetmesh_free(box);
  tide_tetmesh_free(m);
}

/* area of the face square (normal a at p, corner x0, side h) inside the box [lo, hi] */
static double square_in_box(int a, double p, const double *x0, double h, const double *lo, const double *hi) {
  if (!(p > lo[a] && p < hi[a])) return 0;
  int b = (a + 1) % 3, c = (a + 2) % 3;
  return overlap(x0[b], x0[b] + h, lo[b], hi[b]) * overlap(x0[c], x0[c] + h, lo[c], hi[c]);
}

/* 3D CSG of meshes: the union and the difference of two overlapping box
 * surfaces, the second placed through two nested transforms (quarter
 * turns, so it stays axis-aligned): the exact fractions are the analytic
 * open areas of every face to round-off (the events include the two
 * cross-sections' crossings). */
static void test_csg_boxes(void) {
  int nc = 16;
  tide_grid g;
  unit_cube(&g, nc);
  double loA[3] = {0.213, 0.301, 0.257}, hiA[3] = {0.671, 0.633, 0.709};
  double loY[3] = {-0.137, -0.091, -0.163}, hiY[3] = {0.119, 0.173, 0.104}; /* B in its own frame */
  double R1[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, t1[3] = {0.652, 0.588, 0.031}; /* quarter turn about z */
  double R2[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0}, t2[3] = {0.011, -0.023, 0.617};  /* about x */
  double loB[3] = {INFINITY, INFINITY, INFINITY}, hiB[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int q = 0; q < 8; q++) { /* world = R1 (R2 y + t2) + t1 */
    double y[3] = {q & 1 ? hiY[0] : loY[0], q & 2 ? hiY[1] : loY[1], q & 4 ? hiY[2] : loY[2]}, z[3], x[3];
    for (int i = 0; i < 3; i++)
      z[i] = R2[3 * i] * y[0] + R2[3 * i + 1] * y[1] + R2[3 * i + 2] * y[2] + t2[i];
    for (int i = 0; i < 3; i++) {
      x[i] = R1[3 * i] * z[0] + R1[3 * i + 1] * z[1] + R1[3 * i + 2] * z[2] + t1[i];
      loB[i] = fmin(loB[i], x[i]);
      hiB[i] = fmax(hiB[i], x[i]);
    }
  }
  tide_tetmesh *ma = box_mesh(3, loA, hiA, 3), *mb = box_mesh(3, loY, hiY, 2);
  tide_shape *A = polygon(ma, TIDE_F64P(ma->x)), *Y = polygon(mb, TIDE_F64P(mb->x)), *T2, *B;
  tide_shape_transform(Y, R2, t2, &T2);
  tide_shape_transform(T2, R1, t1, &B);
  for (int op = 0; op < 2; op++) {
    tide_shape *shape;
    tide_shape_csg(op ? TIDE_SHAPE_DIFFERENCE : TIDE_SHAPE_UNION, A, B, &shape);
    tide_mac *w;
    tide_mac_new(&g, TIDE_F64, &w);
    tide_mac_face_fractions_shape(&g, shape, 5, 0, 1, w, NULL);
    double worst = 0;
    int64_t partial = 0;
    for (int a = 0; a < 3; a++) {
      int fd[3];
      tide_grid_face_dims(&g, a, fd);
      for (int i = 0; i < fd[0]; i++)
        for (int j = 0; j < fd[1]; j++)
          for (int k = 0; k < fd[2]; k++) {
            double x0[3] = {i * g.dx, j * g.dx, k * g.dx}, h2 = g.dx * g.dx;
            double sa = square_in_box(a, x0[a], x0, g.dx, loA, hiA), sb = square_in_box(a, x0[a], x0, g.dx, loB, hiB);
            double lo[3], hi[3];
            for (int e = 0; e < 3; e++)
              lo[e] = fmax(loA[e], loB[e]), hi[e] = fmin(hiA[e], hiB[e]);
            double sab = square_in_box(a, x0[a], x0, g.dx, lo, hi);
            double want = 1 - (op ? sa - sab : sa + sb - sab) / h2;
            double f = TIDE_F64P(w->u[a])[((int64_t)i * fd[1] + j) * fd[2] + k];
            partial += want > 0 && want < 1;
            worst = fmax(worst, fabs(f - want));
          }
    }
    printf("3D box %s box (nested transforms), %lld cut faces: exact fractions vs analytic, max error %.3e\n",
           op ? "minus" : "union", (long long)partial, worst);
    CHECK(partial > 100 && worst < 1e-12, "3D CSG of box meshes (%s): fractions exact (max error %g)",
          op ? "difference" : "union", worst);
    tide_mac_free(w);
    tide_shape_release(shape);
  }
  tide_shape_release(A);
  tide_shape_release(Y);
  tide_shape_release(T2);
  tide_shape_release(B);
  tide_tetmesh_free(ma);
  tide_tetmesh_free(mb);
}

/* ------------------------------------------------ CSG closure (3D) */

/* a convex polygon in 3D (the part of a boundary triangle in a convex body) */
typedef struct {
  int n;
  double p[64][3];
} tpoly;

/* keep the part of P with nrm . x <= off (closed; vertices on the plane
 * stay); on an axis plane (ax >= 0) the new vertices lie on it exactly */
static void keep_below(tpoly *P, const double nrm[3], double off, int ax) {
  tpoly Q;
  Q.n = 0;
  for (int i = 0; i < P->n; i++) {
    const double *a = P->p[i], *b = P->p[(i + 1) % P->n];
    double sa = nrm[0] * a[0] + nrm[1] * a[1] + nrm[2] * a[2] - off;
    double sb = nrm[0] * b[0] + nrm[1] * b[1] + nrm[2] * b[2] - off;
    if (sa <= 0 && Q.n < 64) memcpy(Q.p[Q.n++], a, sizeof Q.p[0]);
    if (((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) && Q.n < 64) {
      double t = sa / (sa - sb);
      for (int k = 0; k < 3; k++)
        Q.p[Q.n][k] = a[k] + t * (b[k] - a[k]);
      if (ax >= 0) Q.p[Q.n][ax] = off * nrm[ax];
      Q.n++;
    }
  }
  CHECK(Q.n < 64, "polygon overflow");
  *P = Q;
}

/* the outward area vector of P */
static void area_vector(const tpoly *P, double av[3]) {
  av[0] = av[1] = av[2] = 0;
  for (int i = 1; i + 1 < P->n; i++) {
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
      e1[k] = P->p[i][k] - P->p[0][k];
      e2[k] = P->p[i + 1][k] - P->p[0][k];
    }
    av[0] += 0.5 * (e1[1] * e2[2] - e1[2] * e2[1]);
    av[1] += 0.5 * (e1[2] * e2[0] - e1[0] * e2[2]);
    av[2] += 0.5 * (e1[0] * e2[1] - e1[1] * e2[0]);
  }
}

/* S[cell] += sign * (the area vector of P in the cell, inward: -outward);
 * the cells by clipping P to each one, independently of clip.c's slab
 * splits; a polygon lying in a grid plane goes to the cell the CSG solid's
 * outward normal points to, as clip.c does (flip: the solid's normal is
 * -P's, a boundary piece of a subtracted body) */
static void add_cells(const tide_grid *g, const tpoly *P, double sign, int flip, double *S) {
  double av[3], below[3];
  area_vector(P, av);
  for (int k = 0; k < 3; k++)
    below[k] = flip ? av[k] > 0 : av[k] < 0;
  int c0[3], c1[3];
  for (int k = 0; k < 3; k++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < P->n; i++)
      lo = fmin(lo, P->p[i][k]), hi = fmax(hi, P->p[i][k]);
    double s = (lo - g->origin[k]) / g->dx;
    if (lo == hi && s == floor(s)) { /* in a grid plane */
      c0[k] = c1[k] = (int)s - (int)below[k];
    } else {
      c0[k] = (int)floor(s);
      c1[k] = (int)floor((hi - g->origin[k]) / g->dx);
    }
    c0[k] = c0[k] < 0 ? 0 : c0[k];
    c1[k] = c1[k] >= g->n[k] ? g->n[k] - 1 : c1[k];
  }
  for (int i = c0[0]; i <= c1[0]; i++)
    for (int j = c0[1]; j <= c1[1]; j++)
      for (int l = c0[2]; l <= c1[2]; l++) {
        int ijk[3] = {i, j, l};
        tpoly Q = *P;
        for (int k = 0; k < 3 && Q.n >= 3; k++) {
          if (c0[k] == c1[k] && P->p[0][k] == g->origin[k] + (c0[k] + below[k]) * g->dx) continue;
          double e[3] = {0, 0, 0};
          e[k] = 1;
          keep_below(&Q, e, g->origin[k] + (ijk[k] + 1) * g->dx, k);
          e[k] = -1;
          keep_below(&Q, e, -(g->origin[k] + ijk[k] * g->dx), k);
        }
        if (Q.n < 3) continue;
        double aq[3];
        area_vector(&Q, aq);
        int64_t cidx = tide_grid_idx(g, i, j, l);
        for (int k = 0; k < 3; k++)
          S[cidx * 3 + k] -= sign * aq[k];
      }
}

/* the planes of a convex body's boundary triangles (outward n, n . x <= off
 * inside); *convex: the largest n . x - off over the vertices */
static double *body_planes(const tide_tetmesh *m, const double *x, double *convex) {
  const int32_t *F = TIDE_I32P(m->bound);
  double *pl = malloc((size_t)m->nb * 4 * sizeof(double));
  *convex = 0;
  for (int64_t f = 0; f < m->nb; f++) {
    const double *a = x + 3 * F[3 * f], *b = x + 3 * F[3 * f + 1], *c = x + 3 * F[3 * f + 2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
      pl[4 * f + k] = n[k] / l;
    pl[4 * f + 3] = pl[4 * f] * a[0] + pl[4 * f + 1] * a[1] + pl[4 * f + 2] * a[2];
    for (int64_t v = 0; v < m->nv; v++) {
      const double *p = x + 3 * v;
      int bnd = 0;
      for (int64_t q = 0; q < 3 * m->nb && !bnd; q++)
        bnd = F[q] == v;
      if (bnd) *convex = fmax(*convex, pl[4 * f] * p[0] + pl[4 * f + 1] * p[1] + pl[4 * f + 2] * p[2] - pl[4 * f + 3]);
    }
  }
  return pl;
}

/* S += sign * (the pieces of m's boundary at x inside the convex body of
 * planes pl (nb of them)) */
static void add_inside(const tide_grid *g, const tide_tetmesh *m, const double *x, const double *pl, int64_t nb,
                       double sign, int flip, double *S) {
  const int32_t *F = TIDE_I32P(m->bound);
  for (int64_t f = 0; f < m->nb; f++) {
    tpoly P;
    P.n = 3;
    for (int e = 0; e < 3; e++)
      memcpy(P.p[e], x + 3 * F[3 * f + e], sizeof P.p[0]);
    for (int64_t q = 0; q < nb && P.n >= 3; q++)
      keep_below(&P, pl + 4 * q, pl[4 * q + 3], -1);
    if (P.n >= 3) add_cells(g, &P, sign, flip, S);
  }
}

/* a convex solid: its mesh, world positions x, and its shape (through the
 * transform (R, t) of the mesh at V when R is given) */
typedef struct {
  tide_tetmesh *m;
  double *x;
  tide_shape *shape;
} body;

static body make_body(tide_tetmesh *m, const double *R, const double *t) {
  body B = {m, malloc((size_t)m->nv * 3 * sizeof(double)), NULL};
  const double *V = TIDE_F64P(m->x);
  tide_shape *poly = polygon(m, V);
  for (int64_t i = 0; i < m->nv; i++)
    for (int k = 0; k < 3; k++)
      B.x[3 * i + k] = R ? t[k] + R[3 * k] * V[3 * i] + R[3 * k + 1] * V[3 * i + 1] + R[3 * k + 2] * V[3 * i + 2]
                         : V[3 * i + k];
  if (R) {
    tide_shape_transform(poly, R, t, &B.shape);
    tide_shape_release(poly);
  } else {
    B.shape = poly;
  }
  return B;
}

static void free_body(body *B) {
  tide_shape_release(B->shape);
  free(B->x);
  tide_tetmesh_free(B->m);
}

static void rot3(double a1, double a2, double a3, double *R) { /* Rz(a1) Rx(a2) Rz(a3) */
  double c1 = cos(a1), s1 = sin(a1), c2 = cos(a2), s2 = sin(a2), c3 = cos(a3), s3 = sin(a3);
  double A[9] = {c1, -s1, 0, s1, c1, 0, 0, 0, 1}, B[9] = {1, 0, 0, 0, c2, -s2, 0, s2, c2}, C[9] = {c3, -s3, 0, s3, c3, 0, 0, 0, 1};
  double AB[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      AB[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = AB[3 * i] * C[j] + AB[3 * i + 1] * C[3 + j] + AB[3 * i + 2] * C[6 + j];
}

/* per-cell closure of the exact fractions of op(A, B) against the pieces of
 * its boundary: the library's clipped pieces of A and B (tide_zarifi_clip)
 * minus, by inclusion-exclusion, the parts of each boundary inside the
 * other body (each boundary triangle clipped to the other's half-spaces,
 * then to the cells): union S_A + S_B - A|B - B|A, intersection
 * A|B + B|A, difference S_A - A|B - B|A (B's part with its normal
 * reversed).  Returns the max closure / face area, *mean, *nan: non-finite
 * fractions, *partial: faces with 0 < f < 1. */
static double csg_closure(const tide_grid *g, tide_shape_kind op, const body *A, const body *B, double *mean,
                          int64_t *nan, int64_t *partial, double *secs) {
  int64_t nc = tide_grid_ncells(g);
  double *S = calloc((size_t)nc * 3, sizeof(double)), ca, cb;
  double *pa = body_planes(A->m, A->x, &ca), *pb = body_planes(B->m, B->x, &cb);
  CHECK(ca < 1e-12 && cb < 1e-12, "CSG closure: the bodies are convex (%g, %g)", ca, cb);
  if (op != TIDE_SHAPE_INTERSECTION)
    for (int e = 0; e < (op == TIDE_SHAPE_UNION ? 2 : 1); e++) {
      tide_zclip c;
      memset(&c, 0, sizeof c);
      tide_zarifi_clip(g, e ? B->m : A->m, e ? B->x : A->x, &c);
      double *Se = piece_sums(g, &c);
      for (int64_t q = 0; q < nc * 3; q++)
        S[q] += Se[q];
      free(Se);
      tide_zclip_free(&c);
    }
  double s = op == TIDE_SHAPE_INTERSECTION ? 1 : -1;
  add_inside(g, A->m, A->x, pb, B->m->nb, s, 0, S);
  add_inside(g, B->m, B->x, pa, A->m->nb, s, op == TIDE_SHAPE_DIFFERENCE, S);
  tide_shape *shape;
  tide_shape_csg(op, A->shape, B->shape, &shape);
  tide_mac *w;
  tide_mac_new(g, TIDE_F64, &w);
  double t0 = (double)clock() / CLOCKS_PER_SEC;
  tide_mac_face_fractions_shape(g, shape, 5, 0, 1, w, NULL);
  *secs = (double)clock() / CLOCKS_PER_SEC - t0;
  *nan = *partial = 0;
  for (int a = 0; a < 3; a++)
    for (int64_t q = 0; q < tide_array_size(w->u[a]); q++) {
      double f = TIDE_F64P(w->u[a])[q];
      *nan += !isfinite(f);
      *partial += f > 0 && f < 1;
    }
  double worst = closure(g, w, S, mean);
  tide_mac_free(w);
  tide_shape_release(shape);
  free(pa);
  free(pb);
  free(S);
  return worst;
}

/* 3D CSG of curved and transformed meshes: union, intersection and
 * difference of icospheres and a box through generic rotations (the two
 * cross-sections cross inside faces, so the crossing events matter), an
 * icosphere centred on a grid node (nodes on grid planes, edges in them)
 * with a box whose faces lie on grid planes and which one of its vertices
 * touches, and random placements: the exact fractions close every cell
 * against the boundary pieces of the CSG solid. */
static void test_csg_closure(void) {
  int nc = 16;
  tide_grid g;
  unit_cube(&g, nc);
  double c0[3] = {0, 0, 0}, cA[3] = {0.47, 0.5, 0.49}, cN[3] = {0.5, 0.5, 0.5};
  double R1[9], R2[9], tB[3] = {0.63, 0.56, 0.52}, tX[3] = {0.62, 0.47, 0.55};
  rot3(0.3, 0.7, -0.4, R1);
  rot3(-1.1, 0.45, 0.8, R2);
  double blo[3] = {-0.12, -0.09, -0.15}, bhi[3] = {0.13, 0.1, 0.11};
  double glo[3] = {0.25, 0.3125, 0.25}, ghi[3] = {0.6875, 0.625, 0.5625}; /* on grid planes */
  /* the box moved by R2 with its lowest corner 1e-9 below the grid box's top face (a grid plane), on a grid
   * line of it: a sliver of the grid box */
  double tS[3], zmin = INFINITY, want[3] = {0.5 + 1e-3, 0.4375, ghi[2] - 1e-9};
  for (int q = 0; q < 8; q++) {
    double y[3] = {q & 1 ? bhi[0] : blo[0], q & 2 ? bhi[1] : blo[1], q & 4 ? bhi[2] : blo[2]}, z = 0;
    for (int j = 0; j < 3; j++)
      z += R2[6 + j] * y[j];
    if (z < zmin) {
      zmin = z;
      for (int i = 0; i < 3; i++)
        tS[i] = want[i] - (R2[3 * i] * y[0] + R2[3 * i + 1] * y[1] + R2[3 * i + 2] * y[2]);
    }
  }
  struct {
    const char *what;
    tide_shape_kind op;
    int a, b; /* 0 icosphere at cA, 1 icosphere moved by R1, 2 box moved by R2, 3 icosphere on a node, 4 grid box,
               * 5 box moved by R2 poking 1e-9 into 4 */
  } cases[] = {{"icosphere union transformed icosphere", TIDE_SHAPE_UNION, 0, 1},
               {"icosphere minus transformed box", TIDE_SHAPE_DIFFERENCE, 0, 2},
               {"icosphere intersection transformed box", TIDE_SHAPE_INTERSECTION, 0, 2},
               {"transformed box minus icosphere", TIDE_SHAPE_DIFFERENCE, 2, 0},
               {"grid-plane box union node-centred icosphere", TIDE_SHAPE_UNION, 4, 3},
               {"grid-plane box minus node-centred icosphere", TIDE_SHAPE_DIFFERENCE, 4, 3},
               {"node-centred icosphere minus grid-plane box", TIDE_SHAPE_DIFFERENCE, 3, 4},
               {"grid-plane box intersection transformed box", TIDE_SHAPE_INTERSECTION, 4, 2},
               {"grid-plane box union a box's corner 1e-9 into it", TIDE_SHAPE_UNION, 4, 5},
               {"grid-plane box minus a box's corner 1e-9 into it", TIDE_SHAPE_DIFFERENCE, 4, 5},
               {"a box minus the grid-plane box its corner pokes 1e-9 into", TIDE_SHAPE_DIFFERENCE, 5, 4}};
  for (size_t cs = 0; cs < sizeof cases / sizeof cases[0]; cs++) {
    body Bd[2];
    for (int e = 0; e < 2; e++) {
      int which = e ? cases[cs].b : cases[cs].a;
      switch (which) {
      case 0: Bd[e] = make_body(sphere_mesh(3, cA, 0.24, 2), NULL, NULL); break;
      case 1: Bd[e] = make_body(sphere_mesh(3, c0, 0.17, 2), R1, tB); break;
      case 2: Bd[e] = make_body(box_mesh(3, blo, bhi, 2), R2, tX); break;
      case 3: Bd[e] = make_body(sphere_mesh(3, cN, 0.25, 2), NULL, NULL); break;
      case 5: Bd[e] = make_body(box_mesh(3, blo, bhi, 2), R2, tS); break;
      default: Bd[e] = make_body(box_mesh(3, glo, ghi, 3), NULL, NULL); break;
      }
    }
    double mean, secs;
    int64_t nan, partial;
    double worst = csg_closure(&g, cases[cs].op, &Bd[0], &Bd[1], &mean, &nan, &partial, &secs);
    printf("3D CSG %s, %lld cut faces: closure / face area, max %.3e (mean %.3e), %lld non-finite, fractions %.3f s CPU\n",
           cases[cs].what, (long long)partial, worst, mean, (long long)nan, secs);
    CHECK(nan == 0 && partial > 0 && worst < 1e-12, "3D CSG %s: closes to round-off (max %g, %lld NaN)", cases[cs].what,
          worst, (long long)nan);
    free_body(&Bd[0]);
    free_body(&Bd[1]);
  }
  /* random placements of a box against an icosphere: union / intersection / difference */
  double rworst = 0;
  int64_t rnan = 0;
  for (int trial = 0; trial < 12; trial++) {
    double R[9], t[3];
    rot3(2 * M_PI * urand(), M_PI * urand(), 2 * M_PI * urand(), R);
    for (int k = 0; k < 3; k++)
      t[k] = cA[k] + 0.3 * (urand() - 0.5);
    body Bd[2] = {make_body(sphere_mesh(3, cA, 0.24, 2), NULL, NULL), make_body(box_mesh(3, blo, bhi, 2), R, t)};
    double mean, secs;
    int64_t nan, partial;
    tide_shape_kind op = trial % 3 == 0 ? TIDE_SHAPE_UNION : trial % 3 == 1 ? TIDE_SHAPE_INTERSECTION : TIDE_SHAPE_DIFFERENCE;
    rworst = fmax(rworst, csg_closure(&g, op, &Bd[0], &Bd[1], &mean, &nan, &partial, &secs));
    rnan += nan;
    free_body(&Bd[0]);
    free_body(&Bd[1]);
  }
  printf("3D CSG, 12 random placements of a box against an icosphere: closure max %.3e, %lld non-finite\n", rworst,
         (long long)rnan);
  CHECK(rnan == 0 && rworst < 1e-12, "3D CSG random placements close (max %g)", rworst);
}

int main(void) {
  double lo3[3] = {0.21, 0.33, 0.27}, hi3[3] = {0.77, 0.61, 0.92};
  test_box(3, lo3, hi3, "3D box, generic");
  test_box(2, lo3, hi3, "2D box, generic");
  double lo4[3] = {0.25, 0.375, 0.125}, hi4[3] = {0.75, 0.625, 0.875};
  test_box(3, lo4, hi4, "3D box, faces on grid planes");
  test_box(2, lo4, hi4, "2D box, faces on grid planes");
  test_swept(3);
  test_swept(2);
  test_random(3, 10000);
  test_random(2, 10000);
  test_sphere(2);
  test_sphere(3);
  test_polygon_closure();
  test_surface_closure();
  test_csg_boxes();
  test_csg_closure();
  return check_report();
}
