/* test_linalg_triplets.c -- triplet assembly (tide_csr_from_triplets and the
 * threaded tide_triplets lists):
 *  - every entry is the sum of its duplicates in triplet order, bit for bit
 *    (a dense reference summed in that order), for short rows (insertion
 *    sort), long rows with few distinct columns (the counting pass) and a
 *    row with more than 256 distinct columns (the fallback sort);
 *  - a list read in place gives the same matrix as the flat arrays;
 *  - tide_triplets_same_indices: 1 for the same (i, j) sequence with other
 *    values (and the matrix refilled from it equals the one built anew),
 *    0 for one index changed or one entry more. */
#include "check.h"
#include "linalg/linalg.h"
#include "tide.h"

#include <stdlib.h>
#include <string.h>

enum { N = 300, NT = 40000 };

/* triplet t: a seeded pseudo-random entry near the diagonal (rows of ~140
 * triplets on 9 columns); row 7 couples every column 4 times; the last 20
 * rows get 10 triplets each */
static void entry(int t, int *i, int *j, double *v) {
  uint64_t h = (uint64_t)t * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  *i = t < 4 * N ? 7 : t >= NT - 200 ? N - 20 + t % 20 : (int)(h % (N - 20));
  *j = t < 4 * N ? t % N : (int)((*i + (h >> 20) % 9 + N - 4) % N);
  *v = tide_rand01(3, (uint64_t)t) - 0.5;
}

int main(void) {
  int nt = NT;
  int *I = malloc(nt * sizeof(int)), *J = malloc(nt * sizeof(int));
  double *V = malloc(nt * sizeof(double)), *D = calloc((size_t)N * N, sizeof(double));
  for (int t = 0; t < nt; t++) {
    entry(t, &I[t], &J[t], &V[t]);
    D[(size_t)I[t] * N + J[t]] += V[t];
  }
  tide_csr *A = NULL;
  CHECK(tide_csr_from_triplets(N, N, nt, I, J, V, TIDE_CSR_GENERAL, &A) == TIDE_OK, "%s",
        tide_errmsg());
  int64_t bad = 0, nnz = 0;
  for (int i = 0; i < N; i++)
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      bad += A->val[p] != D[(size_t)i * N + A->col[p]];
      bad += p > A->rowptr[i] && A->col[p] <= A->col[p - 1];
      nnz++;
    }
  int64_t want = 0;
  for (size_t q = 0; q < (size_t)N * N; q++)
    want += D[q] != 0;
  CHECK(bad == 0, "%lld entries differ from the sums in triplet order", (long long)bad);
  CHECK(nnz >= want && nnz <= want + 8, "nnz %lld, nonzero sums %lld", (long long)nnz,
        (long long)want);
  CHECK(A->rowptr[8] - A->rowptr[7] == N, "row 7 has %d columns", A->rowptr[8] - A->rowptr[7]);
  CHECK(A->rowptr[N] - A->rowptr[N - 1] <= 10, "a short row has %d columns",
        A->rowptr[N] - A->rowptr[N - 1]);

  /* the same triplets through threaded lists (a static loop: thread order =
   * triplet order), then other values on the same pattern */
  tide_triplets *T = NULL, *U = NULL;
  CHECK(tide_triplets_new(N, N, &T) == TIDE_OK && tide_triplets_new(N, N, &U) == TIDE_OK, "new");
#pragma omp parallel for schedule(static)
  for (int t = 0; t < nt; t++) {
    tide_triplets_add(T, I[t], J[t], V[t]);
    tide_triplets_add(U, I[t], J[t], 2 * V[t]);
  }
  tide_csr *B = NULL, *C = NULL;
  CHECK(tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &B) == TIDE_OK, "%s", tide_errmsg());
  CHECK(tide_csr_nnz(B) == tide_csr_nnz(A) &&
            !memcmp(B->col, A->col, (size_t)tide_csr_nnz(A) * sizeof(int)) &&
            !memcmp(B->val, A->val, (size_t)tide_csr_nnz(A) * sizeof(double)),
        "the list differs from the arrays");
  CHECK(tide_triplets_same_indices(T, U) == 1, "same sequence not recognised");
  CHECK(tide_csr_from_tripletlist(U, TIDE_CSR_GENERAL, &C) == TIDE_OK, "%s", tide_errmsg());
  CHECK(tide_csr_set_tripletlist_values(B, U) == TIDE_OK, "%s", tide_errmsg());
  CHECK(!memcmp(B->val, C->val, (size_t)tide_csr_nnz(C) * sizeof(double)),
        "refilled values differ from the matrix built anew");
  tide_triplets_add(U, 0, 0, 1.0);
  CHECK(tide_triplets_same_indices(T, U) == 0, "an extra entry not seen");
  tide_triplets_clear(U);
  for (int t = 0; t < nt; t++)
    tide_triplets_add(U, I[t], t == nt / 2 ? (J[t] + 1) % N : J[t], V[t]);
  CHECK(tide_triplets_same_indices(T, U) == 0, "a changed column not seen");
  tide_triplets_free(T);
  tide_triplets_free(U);
  tide_csr_free(A);
  tide_csr_free(B);
  tide_csr_free(C);
  free(I), free(J), free(V), free(D);
  return check_report();
}
