/* Arrays: views share memory and reference counts keep buffers alive;
 * bulk operations and deterministic reductions. */
#include "check.h"
#include "tide.h"

#include <string.h>

int main(void) {
  int64_t base = tide_mem_bytes();
  tide_array *a = tide_array_new2(TIDE_F64, 4, 3);
  CHECK(a && a->refcount == 1, "new array");
  CHECK(tide_array_contiguous(a), "fresh array is contiguous");
  CHECK(tide_mem_bytes() - base >= 4 * 3 * 8, "memory counted");
  double *p = TIDE_F64P(a);
  for (int i = 0; i < 12; i++) p[i] = i;

  /* row view: shares the buffer, sees writes both ways */
  tide_array *row = tide_array_select(a, 0, 2);
  CHECK(row && row->ndim == 1 && row->shape[0] == 3, "select shape");
  CHECK(tide_array_getlin(row, 1) == 7, "row values %g", tide_array_getlin(row, 1));
  tide_array_setlin(row, 0, -1);
  CHECK(p[6] == -1, "write through view");
  /* column view: strided, non-contiguous */
  tide_array *col = tide_array_slice(a, 1, 1, 2, 1);
  CHECK(col && !tide_array_contiguous(col) && tide_array_size(col) == 4, "column view");
  double s;
  tide_array_sum(col, &s);
  CHECK(s == 1 + 4 + 7 + 10, "sum of strided view %g", s);

  /* buffer outlives the array it came from */
  tide_array_release(a);
  CHECK(tide_array_getlin(row, 2) == 8, "view keeps buffer alive");
  tide_array_release(row);
  tide_array_release(col);
  CHECK(tide_mem_bytes() == base, "all memory returned (%lld left)", (long long)(tide_mem_bytes() - base));

  /* reshape and bad shapes */
  tide_array *v = tide_array_new1(TIDE_F32, 24);
  int64_t sh[3] = {2, 3, 4};
  tide_array *r = tide_array_reshape(v, 3, sh);
  CHECK(r && r->stride[0] == 12 && r->stride[2] == 1, "reshape strides");
  int64_t bad[2] = {5, 5};
  CHECK(tide_array_reshape(v, 2, bad) == NULL && strstr(tide_errmsg(), "24"), "reshape count error: %s",
        tide_errmsg());
  int64_t neg[1] = {-3};
  CHECK(tide_array_new(TIDE_F64, 1, neg) == NULL, "negative extent rejected");
  tide_array_release(r);
  tide_array_release(v);

  /* deterministic reductions independent of the thread count */
  int64_t n = 1000003;
  tide_array *x = tide_array_new1(TIDE_F64, n);
  double *px = TIDE_F64P(x);
  for (int64_t i = 0; i < n; i++) px[i] = tide_rand01(7, (uint64_t)i) - 0.3;
  tide_threads_set(1);
  double d1 = tide_dot(n, px, px), s1 = tide_sum(n, px);
  tide_threads_set(2);
  double d2 = tide_dot(n, px, px), s2 = tide_sum(n, px);
  CHECK(d1 == d2 && s1 == s2, "reductions bit-identical across thread counts");
  double lo, hi;
  tide_array_minmax(x, &lo, &hi);
  CHECK(lo >= -0.3 && hi < 0.7 && hi - lo > 0.99, "rand01 range [%g, %g]", lo, hi);
  CHECK_NEAR(s1 / (double)n, 0.2, 2e-3);
  px[5] = 0.0 / 0.0;
  CHECK(tide_array_nonfinite(x) == 1, "nonfinite count");
  tide_array_release(x);

  /* stateless hash: same input, same output; different counters differ */
  CHECK(tide_hash3(1, 2, 3) == tide_hash3(1, 2, 3) && tide_hash3(1, 2, 3) != tide_hash3(1, 2, 4),
        "hash");
  return check_report();
}
