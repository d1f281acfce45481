/* test_linalg_embed.c -- tide_csr_embed_tripletlist: a base CSR (an element
 * Hessian's pattern, built from triplets) embedded by a map with gaps and
 * dropped rows, plus a triplet list, against the matrix built from one list
 * holding the mapped base triplets first:
 *  - bit-identical values and the same pattern for the four storage pairs
 *    (base upper/general into C upper/general; the upper base mirrored into a
 *    general C, whose element blocks are exactly symmetric);
 *  - refilled from new base values and a list with the same (i, j) sequence,
 *    bit-identical to a fresh build;
 *  - no base: the list's own matrix;
 *  - bad maps, a list of another length and tide_csr_set_triplet_values on
 *    an embedding are refused. */
#include "check.h"
#include "linalg/linalg.h"
#include "tide.h"

#include <stdlib.h>
#include <string.h>

enum { NB = 240, NE = 400, NR = 6000 };

static int map[NB];
static int bi[NE * 16], bj[NE * 16];
static double bv[NE * 16];
static int ri[NR], rj[NR];
static double rv[NR];
static int N; /* C's size */

/* NE elements of 4 distinct nodes near each other, symmetric 4x4 blocks
 * (v(a, b) == v(b, a) exactly); NR triplets anywhere in C, half of them on
 * the mapped base pattern */
static void make(int round) {
  for (int e = 0; e < NE; e++) {
    int n0 = (int)((uint64_t)e * 7919 % (NB - 8)), nodes[4] = {n0, n0 + 1 + e % 3, n0 + 5, n0 + 7};
    double h[4][4];
    for (int a = 0; a < 4; a++)
      for (int b = a; b < 4; b++)
        h[a][b] = h[b][a] = tide_rand01(round, (uint64_t)(e * 16 + a * 4 + b)) - 0.3;
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        int t = e * 16 + a * 4 + b;
        bi[t] = nodes[a], bj[t] = nodes[b], bv[t] = h[a][b];
      }
  }
  for (int t = 0; t < NR; t++) {
    uint64_t hsh = (uint64_t)t * 0x9E3779B97F4A7C15ull;
    hsh ^= hsh >> 31;
    if (t % 2 == 0) { /* on a base entry (or a dropped one, then anywhere) */
      int s = (int)(hsh % (NE * 16)), mi = map[bi[s]], mj = map[bj[s]];
      ri[t] = mi >= 0 ? mi : (int)((hsh >> 20) % (uint64_t)N);
      rj[t] = mj >= 0 ? mj : (int)((hsh >> 40) % (uint64_t)N);
    } else {
      ri[t] = (int)(hsh % (uint64_t)N);
      rj[t] = (int)((ri[t] + (hsh >> 24) % 11 + N - 5) % N);
    }
    rv[t] = tide_rand01(100 + round, (uint64_t)t) - 0.5;
  }
}

static int same_csr(const tide_csr *A, const tide_csr *B) {
  int64_t n = tide_csr_nnz(A);
  return A->nrows == B->nrows && A->stype == B->stype && n == tide_csr_nnz(B) &&
         !memcmp(A->rowptr, B->rowptr, (size_t)(A->nrows + 1) * sizeof(int)) &&
         !memcmp(A->col, B->col, (size_t)n * sizeof(int)) &&
         !memcmp(A->val, B->val, (size_t)n * sizeof(double));
}

/* the rest triplets into a threaded list (static loop: list order = t) */
static tide_triplets *rest_list(void) {
  tide_triplets *T = NULL;
  if (tide_triplets_new(N, N, &T)) return NULL;
#pragma omp parallel for schedule(static)
  for (int t = 0; t < NR; t++)
    tide_triplets_add(T, ri[t], rj[t], rv[t]);
  return T;
}

/* the reference: one list, the mapped base triplets first, then the rest */
static tide_csr *reference(int stype) {
  tide_triplets *T = NULL;
  tide_csr *A = NULL;
  if (tide_triplets_new(N, N, &T)) return NULL;
  for (int t = 0; t < NE * 16; t++)
    if (map[bi[t]] >= 0 && map[bj[t]] >= 0) tide_triplets_add(T, map[bi[t]], map[bj[t]], bv[t]);
  for (int t = 0; t < NR; t++)
    tide_triplets_add(T, ri[t], rj[t], rv[t]);
  if (tide_csr_from_tripletlist(T, stype, &A)) A = NULL;
  tide_triplets_free(T);
  return A;
}

int main(void) {
  /* rows 0..19 without a base row, every 7th base row dropped, gaps of one
   * row after every 5th kept one */
  int r = 20, kept = 0;
  for (int i = 0; i < NB; i++) {
    if (i % 7 == 3) {
      map[i] = -1;
      continue;
    }
    map[i] = r++;
    if (++kept % 5 == 0) r++;
  }
  N = r + 10;
  const int kinds[4][2] = {{TIDE_CSR_UPPER, TIDE_CSR_UPPER},
                           {TIDE_CSR_GENERAL, TIDE_CSR_GENERAL},
                           {TIDE_CSR_UPPER, TIDE_CSR_GENERAL},
                           {TIDE_CSR_GENERAL, TIDE_CSR_UPPER}};
  for (int kd = 0; kd < 4; kd++) {
    int bst = kinds[kd][0], cst = kinds[kd][1];
    make(1);
    tide_csr *B = NULL, *C = NULL, *R = reference(cst);
    tide_triplets *T = rest_list();
    CHECK(R && T, "reference");
    CHECK(tide_csr_from_triplets(NB, NB, NE * 16, bi, bj, bv, bst, &B) == TIDE_OK, "%s",
          tide_errmsg());
    CHECK(tide_csr_embed_tripletlist(B, map, T, cst, &C) == TIDE_OK, "%s", tide_errmsg());
    CHECK(C && same_csr(C, R), "base %d into %d: differs from the one-list build", bst, cst);
    if (!C) return check_report();
    /* new values on the same patterns: refill == fresh build == reference */
    make(2);
    tide_triplets *T2 = rest_list();
    tide_csr *R2 = reference(cst), *C2 = NULL;
    CHECK(tide_triplets_same_indices(T, T2) == 1, "same sequence");
    CHECK(tide_csr_set_triplet_values(B, NE * 16, bv) == TIDE_OK, "%s", tide_errmsg());
    CHECK(tide_csr_embed_tripletlist_values(C, B, T2) == TIDE_OK, "%s", tide_errmsg());
    CHECK(tide_csr_embed_tripletlist(B, map, T2, cst, &C2) == TIDE_OK, "%s", tide_errmsg());
    CHECK(same_csr(C, R2) && same_csr(C2, R2), "base %d into %d: refill differs", bst, cst);
    /* refused: a list of another length, a base of another pattern,
     * tide_csr_set_triplet_values on an embedding */
    tide_triplets_add(T2, 0, 0, 1.0);
    CHECK(tide_csr_embed_tripletlist_values(C, B, T2) == TIDE_EINVAL, "longer list accepted");
    CHECK(tide_csr_embed_tripletlist_values(C, NULL, T) == TIDE_EINVAL, "missing base accepted");
    double one = 1;
    CHECK(tide_csr_set_triplet_values(C, 1, &one) == TIDE_EINVAL, "set_triplet_values accepted");
    tide_csr_free(B), tide_csr_free(C), tide_csr_free(C2), tide_csr_free(R), tide_csr_free(R2);
    tide_triplets_free(T), tide_triplets_free(T2);
  }
  /* no base: the list's matrix */
  {
    make(3);
    tide_triplets *T = rest_list();
    tide_csr *A = NULL, *C = NULL;
    CHECK(tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &A) == TIDE_OK, "%s", tide_errmsg());
    CHECK(tide_csr_embed_tripletlist(NULL, NULL, T, TIDE_CSR_GENERAL, &C) == TIDE_OK, "%s",
          tide_errmsg());
    CHECK(same_csr(A, C), "no base: differs from tide_csr_from_tripletlist");
    /* bad maps */
    tide_csr *B = NULL, *D = NULL;
    CHECK(tide_csr_from_triplets(NB, NB, NE * 16, bi, bj, bv, TIDE_CSR_UPPER, &B) == TIDE_OK,
          "%s", tide_errmsg());
    int save = map[10];
    map[10] = map[9];
    CHECK(tide_csr_embed_tripletlist(B, map, T, TIDE_CSR_UPPER, &D) == TIDE_EINVAL && !D,
          "a map that does not increase accepted");
    map[10] = N;
    CHECK(tide_csr_embed_tripletlist(B, map, T, TIDE_CSR_UPPER, &D) == TIDE_EINVAL && !D,
          "a map out of range accepted");
    map[10] = save;
    CHECK(tide_csr_embed_tripletlist(B, NULL, T, TIDE_CSR_UPPER, &D) == TIDE_EINVAL && !D,
          "a base of another size without a map accepted");
    tide_csr_free(A), tide_csr_free(B), tide_csr_free(C);
    tide_triplets_free(T);
  }
  return check_report();
}
