/* The pool of freed large blocks (runtime/core.c): a freed block of 1 MB or more serves the
 * next request of about its size (the same pages, no fresh first touches), requests below 4/5
 * of its size and small blocks are not served from it, the limit bounds what it holds (0: off),
 * counted bytes and alignment are those of a fresh allocation, a memory limit counts the held
 * blocks, and threads taking and giving blocks at once leave it consistent. */
#include "check.h"
#include "tide.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define MB ((size_t)1 << 20)

int main(void) {
  int64_t base = tide_mem_bytes();
  if (tide_mem_pool_limit() == 0) { /* a C library without malloc_usable_size: no pool */
    printf("no memory pool in this build (not glibc): nothing to test\n");
    return 0;
  }
  /* the default: as much as is live (little here), at least 1 GB, at most a quarter of the RAM */
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  int64_t quarter = (int64_t)(pages / 4) * psz, gb = (int64_t)1 << 30;
  CHECK(tide_mem_pool_limit() == (quarter < gb ? quarter : gb), "default limit %lld",
        (long long)tide_mem_pool_limit());
  tide_mem_pool_set(0); /* a known empty pool */
  tide_mem_pool_set((int64_t)64 * MB);
  CHECK(tide_mem_pool_held() == 0, "empty after set");

  /* a freed 8 MB block serves a slightly larger request next (the fresh block's 1/8 room) */
  char *a = tide_alloc(8 * MB);
  CHECK(a && ((uintptr_t)a & 63) == 0, "aligned");
  memset(a, 1, 8 * MB);
  CHECK(tide_mem_bytes() - base == (int64_t)(8 * MB), "counted as asked");
  tide_free(a, 8 * MB);
  CHECK(tide_mem_bytes() == base, "uncounted once freed");
  CHECK(tide_mem_pool_held() >= (int64_t)(8 * MB), "held (%lld)", (long long)tide_mem_pool_held());
  char *b = tide_alloc(8 * MB + 4096);
  CHECK(b == a, "the held block reused for a 4 KB larger request");
  CHECK(tide_mem_pool_held() == 0, "taken out of the pool");
  CHECK(tide_mem_bytes() - base == (int64_t)(8 * MB + 4096), "counted as asked");
  memset(b, 2, 8 * MB + 4096); /* the whole request is usable */
  tide_free(b, 8 * MB + 4096);

  /* a request below 4/5 of the held block's size gets a fresh block; so does a small one */
  char *c = tide_alloc(6 * MB);
  CHECK(c && c != b, "6 MB not served by the 9 MB block");
  char *d = tide_alloc(4096);
  CHECK(d && d != b, "small request not served from the pool");
  tide_free(d, 4096);
  tide_free(c, 6 * MB);
  CHECK(tide_mem_bytes() == base, "all returned");

  /* the limit: the least recently freed block goes when room is needed */
  tide_mem_pool_set((int64_t)20 * MB);
  char *e[3];
  for (int i = 0; i < 3; i++)
    e[i] = tide_alloc(8 * MB);
  CHECK(e[0] && e[1] && e[2], "three 8 MB blocks");
  for (int i = 0; i < 3; i++)
    tide_free(e[i], 8 * MB);
  CHECK(tide_mem_pool_held() <= (int64_t)(20 * MB), "held %lld within the 20 MB limit",
        (long long)tide_mem_pool_held());
  char *f = tide_alloc(8 * MB), *g = tide_alloc(8 * MB);
  CHECK((f == e[2] || f == e[1]) && (g == e[2] || g == e[1]) && f != g,
        "the two most recently freed kept, the first one freed");
  tide_free(f, 8 * MB);
  tide_free(g, 8 * MB);
  tide_mem_pool_set(0);
  CHECK(tide_mem_pool_held() == 0 && tide_mem_pool_limit() == 0, "off: nothing held");
  char *h = tide_alloc(2 * MB);
  tide_free(h, 2 * MB);
  CHECK(tide_mem_pool_held() == 0, "off: a freed block is not kept");

  /* a memory limit counts the held blocks: the pool is emptied rather than the request refused */
  tide_mem_pool_set((int64_t)64 * MB);
  char *k = tide_alloc(16 * MB);
  tide_free(k, 16 * MB);
  CHECK(tide_mem_pool_held() >= (int64_t)(16 * MB), "16 MB held");
  tide_mem_limit_set(base + (int64_t)(12 * MB));
  char *m = tide_alloc(4 * MB);
  CHECK(m, "4 MB under a 12 MB limit with 16 MB held");
  CHECK(tide_mem_pool_held() == 0, "the pool emptied for it (%lld held)",
        (long long)tide_mem_pool_held());
  CHECK(!tide_alloc(10 * MB), "beyond the limit refused");
  tide_free(m, 4 * MB);
  tide_mem_limit_set(0);

  /* threads taking and giving blocks of a few sizes at once */
  int bad = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : bad) num_threads(4)
  for (int it = 0; it < 400; it++) {
    size_t sz = (size_t)(1 + it % 5) * MB + (size_t)(it % 7) * 4096;
    unsigned char *p = tide_alloc(sz);
    if (!p) {
      bad++;
      continue;
    }
    memset(p, it & 255, sz);
    for (size_t q = 0; q < sz; q += 4096)
      bad += p[q] != (unsigned char)(it & 255);
    tide_free(p, sz);
  }
  CHECK(bad == 0, "threads: %d bad blocks", bad);
  CHECK(tide_mem_bytes() == base, "threads: all returned (%lld left)",
        (long long)(tide_mem_bytes() - base));
  CHECK(tide_mem_pool_held() <= (int64_t)(64 * MB), "threads: within the limit");
  tide_mem_pool_set(-1);
  CHECK(tide_mem_pool_limit() == (quarter < gb ? quarter : gb), "the default again");
  /* the default follows the live memory past 1 GB (virtual: 1.5 GB never touched) */
  if (quarter > 2 * gb) {
    char *big = tide_alloc((size_t)3 << 29);
    CHECK(big && tide_mem_pool_limit() >= ((int64_t)3 << 29), "limit %lld with 1.5 GB live",
          (long long)tide_mem_pool_limit());
    tide_free(big, (size_t)3 << 29);
  }
  tide_mem_pool_set(0);
  tide_mem_pool_set(-1);
  return check_report();
}
