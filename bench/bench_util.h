/* bench_util.h -- shared helpers of the benchmarks (bench/NAME.c). */
#ifndef TIDE_BENCH_UTIL_H
#define TIDE_BENCH_UTIL_H

#include "tide.h"

#include <stdint.h>

/* STREAM-like triad a = b + s c over three arrays of n doubles with the
 * current OpenMP threads, best of reps; returns GB/s counting 24 bytes per
 * element (reads of b and c, write of a), 0 if memory or the check fails. */
static inline double bench_triad_gbs(int64_t n, int reps) {
  double *a = tide_alloc((size_t)n * 8), *b = tide_alloc((size_t)n * 8),
         *c = tide_alloc((size_t)n * 8);
  if (!a || !b || !c) return 0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++)
    a[i] = 0, b[i] = 1, c[i] = 2;
  double best = 1e30;
  for (int rep = 0; rep < reps; rep++) {
    double t = tide_wtime();
    const double s = 3.0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
    t = tide_wtime() - t;
    if (t < best) best = t;
  }
  double check = a[n / 2];
  tide_free(a, (size_t)n * 8), tide_free(b, (size_t)n * 8), tide_free(c, (size_t)n * 8);
  return check == 7.0 ? 24.0 * (double)n / best / 1e9 : 0;
}

#endif
