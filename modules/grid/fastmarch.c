/*
 * fastmarch.c -- redistancing by the fast marching method (see levelset.h).
 *
 * Distances d >= 0 are marched on both sides of the interface at once; the
 * sign of the input is reapplied at the end.  Across the interface no update
 * ever mixes the two sides: every cell with a neighbour of the other sign is
 * an interface cell, accepted from the start.
 */
#include "levelset.h"
#include "sdf.h"

#include <math.h>
#include <string.h>

enum { FAR = 0, TRIAL = 1, KNOWN = 2 };

typedef struct {
  int64_t *heap; /* cell ids, binary min-heap on (dist, id) */
  int64_t *pos;  /* position of a cell in heap (TRIAL cells only) */
  int64_t size;
  const double *key;
} heap_t;

static int less(const heap_t *h, int64_t a, int64_t b) {
  double ka = h->key[a], kb = h->key[b];
  return ka < kb || (ka == kb && a < b);
}

static void heap_up(heap_t *h, int64_t i) {
  int64_t c = h->heap[i];
  while (i > 0) {
    int64_t p = (i - 1) / 2;
    if (!less(h, c, h->heap[p])) break;
    h->heap[i] = h->heap[p];
    h->pos[h->heap[i]] = i;
    i = p;
  }
  h->heap[i] = c;
  h->pos[c] = i;
}

static void heap_down(heap_t *h, int64_t i) {
  int64_t c = h->heap[i];
  for (;;) {
    int64_t l = 2 * i + 1, r = l + 1, m = i;
    int64_t best = c;
    if (l < h->size && less(h, h->heap[l], best)) m = l, best = h->heap[l];
    if (r < h->size && less(h, h->heap[r], best)) m = r, best = h->heap[r];
    if (m == i) break;
    h->heap[i] = h->heap[m];
    h->pos[h->heap[i]] = i;
    i = m;
  }
  h->heap[i] = c;
  h->pos[c] = i;
}

static int64_t heap_pop(heap_t *h) {
  int64_t top = h->heap[0];
  h->size--;
  if (h->size > 0) {
    h->heap[0] = h->heap[h->size];
    heap_down(h, 0);
  }
  return top;
}

/* solve the upwind Eikonal update from the sorted neighbour distances */
static double eikonal(double u[3], int na, double h) {
  /* sort ascending (na <= 3) */
  for (int a = 0; a < na; a++)
    for (int b = a + 1; b < na; b++)
      if (u[b] < u[a]) {
        double t = u[a];
        u[a] = u[b];
        u[b] = t;
      }
  double d = u[0] + h;
  if (na >= 2 && d > u[1]) {
    double diff = u[0] - u[1];
    d = 0.5 * (u[0] + u[1] + sqrt(2 * h * h - diff * diff));
    if (na >= 3 && d > u[2]) {
      double s = u[0] + u[1] + u[2], q = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
      double disc = s * s - 3 * (q - h * h);
      d = (s + sqrt(disc > 0 ? disc : 0)) / 3;
    }
  }
  return d;
}

int tide_levelset_redistance(const tide_grid *g, double *phi, double band) {
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, "redistance");
  if (st) return st;
  if (!phi) return tide_fail(TIDE_EINVAL, "redistance: no phi");
  if (isnan(band)) return tide_fail(TIDE_EINVAL, "redistance: band is NaN");
  if (!(band > 0)) band = INFINITY;
  int64_t N = tide_grid_ncells(g), bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (int64_t c = 0; c < N; c++)
    bad += !isfinite(phi[c]);
  if (bad)
    return tide_fail(TIDE_ENONFINITE, "redistance: %lld non-finite phi values", (long long)bad);

  const int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2], dim = g->dim;
  const int64_t stride[3] = {(int64_t)n1 * n2, n2, 1};
  const int ext[3] = {n0, n1, n2};
  const double h = g->dx;
  double *dist = tide_alloc((size_t)N * sizeof(double));
  uint8_t *state = tide_calloc((size_t)N);
  int64_t *heap = tide_alloc((size_t)N * sizeof(int64_t));
  int64_t *pos = tide_alloc((size_t)N * sizeof(int64_t));
  if (!dist || !state || !heap || !pos) {
    st = TIDE_ENOMEM;
    goto done;
  }

  /* 1. interface cells */
  int64_t nknown = 0;
#pragma omp parallel for collapse(2) reduction(+ : nknown) schedule(static)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        int ijk[3] = {i, j, k};
        int64_t c = ((int64_t)i * n1 + j) * n2 + k;
        double pc = phi[c];
        int in = pc < 0;
        double inv2 = 0, grad2 = 0;
        int cross = 0;
        for (int a = 0; a < dim; a++) {
          double da = INFINITY, nb[2] = {pc, pc};
          for (int s = -1; s <= 1; s += 2) {
            int q = ijk[a] + s;
            if (q < 0 || q >= ext[a]) continue;
            double pn = phi[c + s * stride[a]];
            nb[(s + 1) / 2] = pn;
            if ((pn < 0) == in) continue;
            double theta = pc / (pc - pn); /* in [0, 1): pc and pn differ in sign */
            if (theta * h < da) da = theta * h;
          }
          if (da < INFINITY) {
            cross = 1;
            inv2 = da > 0 ? inv2 + 1 / (da * da) : INFINITY;
          }
          /* central difference (one-sided at the domain boundary) */
          int w = (ijk[a] > 0) + (ijk[a] < ext[a] - 1);
          double ga = w ? (nb[1] - nb[0]) / (w * h) : 0;
          grad2 += ga * ga;
        }
        dist[c] = INFINITY;
        if (cross) {
          double dint = inv2 == INFINITY ? 0 : 1 / sqrt(inv2);
          double dgrad = grad2 > 0 ? fabs(pc) / sqrt(grad2) : INFINITY;
          dist[c] = dgrad < dint ? dgrad : dint;
          state[c] = KNOWN;
          nknown++;
        }
      }
  if (nknown == 0) goto done; /* no interface: leave phi as it is */

  /* 2. march */
  heap_t H = {heap, pos, 0, dist};
  for (int64_t c = 0; c < N; c++) {
    if (state[c] != KNOWN) continue;
    int ijk[3] = {(int)(c / stride[0]), (int)((c / stride[1]) % n1), (int)(c % n2)};
    for (int a = 0; a < dim; a++)
      for (int s = -1; s <= 1; s += 2) {
        int q = ijk[a] + s;
        if (q < 0 || q >= ext[a]) continue;
        int64_t nb = c + s * stride[a];
        if (state[nb] == FAR) {
          state[nb] = TRIAL;
          heap[H.size] = nb;
          pos[nb] = H.size++;
        }
      }
  }
  /* tentative values of the first trial cells, then heapify */
  for (int64_t t = 0; t < H.size; t++) {
    int64_t c = heap[t];
    int ijk[3] = {(int)(c / stride[0]), (int)((c / stride[1]) % n1), (int)(c % n2)};
    double u[3];
    int na = 0;
    for (int a = 0; a < dim; a++) {
      double best = INFINITY;
      for (int s = -1; s <= 1; s += 2) {
        int q = ijk[a] + s;
        if (q < 0 || q >= ext[a]) continue;
        int64_t nb = c + s * stride[a];
        if (state[nb] == KNOWN && dist[nb] < best) best = dist[nb];
      }
      if (best < INFINITY) u[na++] = best;
    }
    dist[c] = eikonal(u, na, h);
  }
  for (int64_t t = H.size / 2 - 1; t >= 0; t--)
    heap_down(&H, t);

  while (H.size > 0) {
    int64_t c = heap_pop(&H);
    if (dist[c] > band) {
      dist[c] = INFINITY;
      state[c] = FAR;
      break;
    }
    state[c] = KNOWN;
    int ijk[3] = {(int)(c / stride[0]), (int)((c / stride[1]) % n1), (int)(c % n2)};
    for (int a = 0; a < dim; a++)
      for (int s = -1; s <= 1; s += 2) {
        int q = ijk[a] + s;
        if (q < 0 || q >= ext[a]) continue;
        int64_t nb = c + s * stride[a];
        if (state[nb] == KNOWN) continue;
        /* recompute nb from its accepted neighbours */
        int nbijk[3] = {ijk[0], ijk[1], ijk[2]};
        nbijk[a] = q;
        double u[3];
        int na = 0;
        for (int b = 0; b < dim; b++) {
          double best = INFINITY;
          for (int r = -1; r <= 1; r += 2) {
            int qq = nbijk[b] + r;
            if (qq < 0 || qq >= ext[b]) continue;
            int64_t m = nb + r * stride[b];
            if (state[m] == KNOWN && dist[m] < best) best = dist[m];
          }
          if (best < INFINITY) u[na++] = best;
        }
        double d = eikonal(u, na, h);
        if (state[nb] == FAR) {
          dist[nb] = d;
          state[nb] = TRIAL;
          heap[H.size] = nb;
          pos[nb] = H.size++;
          heap_up(&H, pos[nb]);
        } else if (d < dist[nb]) {
          dist[nb] = d;
          heap_up(&H, pos[nb]);
        }
      }
  }

  /* 3. signs back; unreached cells get +-band */
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < N; c++) {
    double d = state[c] == KNOWN ? dist[c] : band;
    phi[c] = phi[c] < 0 ? -d : d;
  }

done:
  tide_free(dist, (size_t)N * sizeof(double));
  tide_free(state, (size_t)N);
  tide_free(heap, (size_t)N * sizeof(int64_t));
  tide_free(pos, (size_t)N * sizeof(int64_t));
  return st;
}
