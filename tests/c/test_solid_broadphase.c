/* test_solid_broadphase.c -- the spatial-hash broad phase (broadphase.h)
 * against brute force: for random triangle soups and points / edges
 * (fixed seeds), the candidate lists equal the pairs whose inflated boxes
 * overlap and that share no node, in the same order, with 1 and 2 threads;
 * the segment-triangle test on crossing, missing, edge-touching and
 * coplanar cases; and the intersection count of two sheets that cross
 * (one per crossing edge) and that do not (0). */
#include "check.h"
#include "solid/broadphase.h"
#include "solid/thingen.h"
#include "tide.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ctr = 0;
static double rnd(void) { return tide_rand01(31337, ctr++); }

static int overlap(const double *x, const int32_t *a, int na, const int32_t *b, int nb, double margin) {
  for (int k = 0; k < 3; k++) {
    double alo = HUGE_VAL, ahi = -HUGE_VAL, blo = HUGE_VAL, bhi = -HUGE_VAL;
    for (int i = 0; i < na; i++) alo = fmin(alo, x[a[i] * 3 + k]), ahi = fmax(ahi, x[a[i] * 3 + k]);
    for (int i = 0; i < nb; i++) blo = fmin(blo, x[b[i] * 3 + k]), bhi = fmax(bhi, x[b[i] * 3 + k]);
    if (!(blo <= ahi + margin && bhi >= alo - margin)) return 0;
  }
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++)
      if (a[i] == b[j]) return 0;
  return 1;
}

int main(void) {
  int np = 300, nt = 200, ne = 250;
  double x[300 * 3];
  int32_t tri[200 * 3], e[250 * 2];
  for (int i = 0; i < np * 3; i++) x[i] = rnd();
  for (int t = 0; t < nt; t++) { /* small triangles around random nodes */
    tri[t * 3] = (int32_t)(rnd() * np);
    tri[t * 3 + 1] = (tri[t * 3] + 1 + (int32_t)(rnd() * 3)) % np;
    tri[t * 3 + 2] = (tri[t * 3] + 5 + (int32_t)(rnd() * 3)) % np;
  }
  for (int s = 0; s < ne; s++) {
    e[s * 2] = (int32_t)(rnd() * np);
    e[s * 2 + 1] = (e[s * 2] + 1 + (int32_t)(rnd() * 4)) % np;
  }
  double margin = 0.02;
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    tide_pairs P;
    CHECK(tide_broad_point_triangle(np, x, nt, tri, margin, 0, &P) == TIDE_OK, "point-triangle");
    int64_t bad = 0, total = 0;
    for (int p = 0; p < np; p++) {
      int64_t k = P.ptr[p];
      for (int t = 0; t < nt; t++) {
        int32_t pp = p;
        if (!overlap(x, &pp, 1, tri + t * 3, 3, margin)) continue;
        total++;
        if (k >= P.ptr[p + 1] || P.cand[k] != t) bad++;
        else k++;
      }
      if (k != P.ptr[p + 1]) bad++;
    }
    CHECK(bad == 0 && total > 0, "point-triangle candidates = brute force (%lld pairs, %lld wrong, %d threads)",
          (long long)total, (long long)bad, threads);
    tide_pairs_free(&P);
    CHECK(tide_broad_edge_edge(x, ne, e, margin, 0.05, &P) == TIDE_OK, "edge-edge");
    bad = 0, total = 0;
    for (int a = 0; a < ne; a++) {
      int64_t k = P.ptr[a];
      for (int b = a + 1; b < ne; b++) {
        if (!overlap(x, e + a * 2, 2, e + b * 2, 2, margin)) continue;
        total++;
        if (k >= P.ptr[a + 1] || P.cand[k] != b) bad++;
        else k++;
      }
      if (k != P.ptr[a + 1]) bad++;
    }
    CHECK(bad == 0 && total > 0, "edge-edge candidates = brute force (%lld pairs, %lld wrong)", (long long)total,
          (long long)bad);
    tide_pairs_free(&P);
  }
  /* segment-triangle */
  double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
  double p1[3] = {0.2, 0.2, 1}, q1[3] = {0.2, 0.2, -1}, q2[3] = {0.2, 0.2, 0.5}, p3[3] = {2, 2, 1},
         q3[3] = {2, 2, -1}, p4[3] = {0.5, 0, 1}, q4[3] = {0.5, 0, -1}, p5[3] = {-1, 0.3, 0},
         q5[3] = {2, 0.3, 0};
  CHECK(tide_segment_triangle(p1, q1, a, b, c) == 1, "crossing");
  CHECK(tide_segment_triangle(p1, q2, a, b, c) == 0, "above");
  CHECK(tide_segment_triangle(p3, q3, a, b, c) == 0, "missing");
  CHECK(tide_segment_triangle(p4, q4, a, b, c) == 1, "through the edge counts");
  CHECK(tide_segment_triangle(p5, q5, a, b, c) == 0, "coplanar does not");
  /* two sheets: crossing and apart */
  double o1[3] = {0, 0, 0}, u1[3] = {1, 0, 0}, v1[3] = {0, 0, 1};
  double o2[3] = {0.5, -0.5, 0.05}, u2[3] = {0, 1, 0}, v2[3] = {0, 0, 0.9};
  tide_tetmesh *s1, *s2, *s3;
  tide_mesh_sheet(o1, u1, v1, 8, 8, 1, NULL, NULL, 0, &s1);
  tide_mesh_sheet(o2, u2, v2, 8, 8, 1, NULL, NULL, 0, &s2);
  double o3[3] = {0, 0.1, 0};
  tide_mesh_sheet(o3, u1, v1, 8, 8, 1, NULL, NULL, 0, &s3);
  /* one mesh from two sheets: nodes and triangles concatenated */
  for (int pair = 0; pair < 2; pair++) {
    tide_tetmesh *A = s1, *B = pair ? s3 : s2;
    int64_t nv = A->nv + B->nv, nf = A->ne + B->ne;
    double *X = malloc((size_t)nv * 3 * sizeof(double));
    int32_t *T = malloc((size_t)nf * 3 * sizeof(int32_t));
    memcpy(X, TIDE_F64P(A->x), (size_t)A->nv * 3 * sizeof(double));
    memcpy(X + A->nv * 3, TIDE_F64P(B->x), (size_t)B->nv * 3 * sizeof(double));
    memcpy(T, TIDE_I32P(A->elem), (size_t)A->ne * 3 * sizeof(int32_t));
    for (int64_t k = 0; k < B->ne * 3; k++) T[A->ne * 3 + k] = TIDE_I32P(B->elem)[k] + (int32_t)A->nv;
    tide_tetmesh *M;
    CHECK(tide_tetmesh_new(3, 3, nv, X, nf, T, NULL, NULL, &M) == TIDE_OK, "two sheets");
    int64_t cnt, fe, ft;
    CHECK(tide_mesh_intersections(M, TIDE_F64P(M->x), &cnt, &fe, &ft) == TIDE_OK, "intersections");
    if (pair) CHECK(cnt == 0, "parallel sheets 0.1 apart: no intersection (%lld)", (long long)cnt);
    else CHECK(cnt > 0 && fe >= 0 && ft >= 0, "crossing sheets intersect (%lld edge-triangle crossings)", (long long)cnt);
    tide_tetmesh_free(M);
    free(X);
    free(T);
  }
  tide_tetmesh_free(s1);
  tide_tetmesh_free(s2);
  tide_tetmesh_free(s3);
  return check_report();
}
