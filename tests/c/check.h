/* check.h -- minimal assertions for the C unit tests (ctest runs each binary). */
#ifndef TIDE_CHECK_H
#define TIDE_CHECK_H
#include <math.h>
#include <stdio.h>

static int check_failed = 0, check_passed = 0;

#define CHECK(cond, ...)                                                                       \
  do {                                                                                         \
    if (cond) {                                                                                \
      check_passed++;                                                                          \
    } else {                                                                                   \
      check_failed++;                                                                          \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                 \
      fprintf(stderr, __VA_ARGS__);                                                            \
      fputc('\n', stderr);                                                                     \
    }                                                                                          \
  } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                                  \
  CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%.17g vs %.17g (tol %g)", (double)(a),     \
        (double)(b), (double)(tol))

/* max |a - b| / max(max |b|, floor): a against the reference b, relative
 * to b's largest entry (floor > 0 for references that may vanish) */
static inline double check_relerr(int n, const double *a, const double *b, double floor) {
  double num = 0, den = floor;
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]), s = fabs(b[i]);
    if (e > num) num = e;
    if (s > den) den = s;
  }
  return den > 0 ? num / den : num;
}

static inline int check_report(void) {
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}
#endif
