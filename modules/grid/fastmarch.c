/*
 * fastmarch.c -- redistancing by the fast marching method (see levelset.h).
 *
 * Distances d >= 0 are marched on both sides of the interface at once; the
 * sign of the input is reapplied at the end.  Every cell with a neighbour of
 * the other sign is an interface cell, initialised directly and accepted from
 * the start, so a first-order update never mixes the two sides; the
 * second-order update may reach across the interface for its far upwind
 * value and then reads it as a signed distance (negative on the other side).
 */
#include "levelset.h"
#include "sdf.h"

#include <math.h>
#include <string.h>

enum { FAR = 0, TRIAL = 1, KNOWN = 2 };

tide_redistance_opts tide_redistance_opts_default(void) {
  tide_redistance_opts o = {0, 2, TIDE_REDISTANCE_INIT_CUBIC, TIDE_REDISTANCE_FMM, 10, 0};
  return o;
}

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

/* ------------------------------------------------------- upwind updates */

/* Solve sum_a alpha_a max(d - beta_a, 0)^2 = h^2 for d over the na axes
 * (alpha, beta sorted together by beta ascending here): axes are added in
 * increasing beta while the solution exceeds the next beta.  Returns -1 when
 * a quadratic has no real root (only possible with unequal alphas). */
static double eikonal(double alpha[3], double beta[3], int na, double h) {
  for (int a = 0; a < na; a++)
    for (int b = a + 1; b < na; b++)
      if (beta[b] < beta[a]) {
        double t = beta[a];
        beta[a] = beta[b];
        beta[b] = t;
        t = alpha[a];
        alpha[a] = alpha[b];
        alpha[b] = t;
      }
  /* in e = d - beta_0 (no cancellation far from the interface) */
  const double b0 = beta[0];
  double e = h / sqrt(alpha[0]);
  double A = alpha[0], B = 0, C = 0;
  for (int m = 1; m < na && e > beta[m] - b0; m++) {
    double bm = beta[m] - b0;
    A += alpha[m];
    B += alpha[m] * bm;
    C += alpha[m] * bm * bm;
    double disc = B * B - A * (C - h * h);
    if (disc < 0) return -1;
    e = (B + sqrt(disc)) / A;
  }
  return b0 + e;
}

typedef struct {
  int dim, order;
  int quintic; /* closest points on the quintic interpolant (closest > 0) */
  int ext[3];
  int64_t stride[3];
  double h;
  const double *phi; /* input: the side of every cell (phi < 0 inside) */
  const double *dist;
  const uint8_t *state;
} march_t;

/* Tentative distance of cell c from its accepted neighbours.  First order:
 * per axis the smaller accepted neighbour u1, the term (d - u1)^2.  Second
 * order (Sethian 1999, Sec. 8.1; Chopp 2001): where the next cell u2 beyond
 * u1 on the same line is accepted too and u2 <= u1, the one-sided
 * difference (3 d - 4 u1 + u2) / (2 h) gives the term
 * 9/4 (d - (4 u1 - u2) / 3)^2; a cell whose second-order quadratic has no
 * root takes the first-order value. */
static double tentative(const march_t *M, int64_t c, const int ijk[3]) {
  double alpha[3], beta[3], u1s[3];
  int na = 0, second = 0;
  const int in = M->phi[c] < 0;
  for (int a = 0; a < M->dim; a++) {
    double u1 = INFINITY;
    int side = 0;
    for (int s = -1; s <= 1; s += 2) {
      int q = ijk[a] + s;
      if (q < 0 || q >= M->ext[a]) continue;
      int64_t nb = c + s * M->stride[a];
      if (M->state[nb] == KNOWN && M->dist[nb] < u1) u1 = M->dist[nb], side = s;
    }
    if (u1 == INFINITY) continue;
    alpha[na] = 1;
    beta[na] = u1;
    u1s[na] = u1;
    if (M->order == 2) {
      int q = ijk[a] + 2 * side;
      int64_t nb2 = c + 2 * side * M->stride[a];
      if (q >= 0 && q < M->ext[a] && M->state[nb2] == KNOWN) {
        /* signed: a cell across the interface lies at minus its distance */
        double u2 = (M->phi[nb2] < 0) == in ? M->dist[nb2] : -M->dist[nb2];
        if (u2 <= u1) {
          alpha[na] = 2.25;
          beta[na] = (4 * u1 - u2) / 3;
          second = 1;
        }
      }
    }
    na++;
  }
  if (na == 0) return INFINITY;
  if (second) {
    double a2[3], b2[3];
    memcpy(a2, alpha, sizeof a2);
    memcpy(b2, beta, sizeof b2);
    double d = eikonal(a2, b2, na, M->h);
    if (d >= 0) return d;
  }
  for (int a = 0; a < na; a++)
    alpha[a] = 1;
  return eikonal(alpha, u1s, na, M->h);
}

/* ------------------------------------------- interface: closest points */

/* Weights of the cubic Lagrange interpolant through the 4 samples
 * floor(s) - 1 ... floor(s) + 2 around s (index units) on an axis of n
 * samples, and their derivatives in s; samples beyond the ends are continued
 * linearly (folded into the end weights).  Along a grid line this is the
 * cubic whose root the height-function curvature takes as the crossing
 * (tide_liquid_curvature_faces). */
typedef struct {
  int np; /* samples used: 4 (cubic), 6 (quintic) or 1 (a flat axis) */
  int idx[6];
  double w[6], dw[6];
} lg_axis;

static void lg_weights(double s, int n, lg_axis *A) {
  A->np = 4;
  if (n < 2) {
    for (int p = 0; p < 4; p++)
      A->idx[p] = 0, A->w[p] = 0, A->dw[p] = 0;
    A->w[0] = 1;
    A->np = 1;
    return;
  }
  int i0 = (int)floor(s);
  if (i0 < 0) i0 = 0;
  if (i0 > n - 2) i0 = n - 2;
  double t = s - i0;
  double tm = t - 1, tp = t + 1, t2 = t - 2, tt = t * t;
  A->w[0] = -t * tm * t2 / 6;
  A->w[1] = tp * tm * t2 / 2;
  A->w[2] = -tp * t * t2 / 2;
  A->w[3] = tp * t * tm / 6;
  A->dw[0] = -(3 * tt - 6 * t + 2) / 6;
  A->dw[1] = (3 * tt - 4 * t - 1) / 2;
  A->dw[2] = -(3 * tt - 2 * t - 2) / 2;
  A->dw[3] = (3 * tt - 1) / 6;
  for (int p = 0; p < 4; p++)
    A->idx[p] = i0 - 1 + p;
  if (i0 - 1 < 0) { /* f(-1) = 2 f(0) - f(1) */
    A->w[1] += 2 * A->w[0], A->w[2] -= A->w[0], A->w[0] = 0;
    A->dw[1] += 2 * A->dw[0], A->dw[2] -= A->dw[0], A->dw[0] = 0;
    A->idx[0] = i0;
  }
  if (i0 + 2 > n - 1) { /* f(n) = 2 f(n-1) - f(n-2) */
    A->w[2] += 2 * A->w[3], A->w[1] -= A->w[3], A->w[3] = 0;
    A->dw[2] += 2 * A->dw[3], A->dw[1] -= A->dw[3], A->dw[3] = 0;
    A->idx[3] = i0 + 1;
  }
}

/* Quintic Lagrange weights through the 6 samples floor(s) - 2 ... floor(s)
 * + 3 (the window shifted inside the axis at its ends); axes of fewer than
 * 6 samples take the cubic. */
static void lg_weights5(double s, int n, lg_axis *A) {
  if (n < 6) {
    lg_weights(s, n, A);
    return;
  }
  int i0 = (int)floor(s) - 2;
  if (i0 < 0) i0 = 0;
  if (i0 > n - 6) i0 = n - 6;
  double t = s - i0; /* the samples at 0 ... 5 */
  A->np = 6;
  for (int p = 0; p < 6; p++) {
    double w = 1, dw = 0, den = 1;
    for (int q = 0; q < 6; q++) {
      if (q == p) continue;
      den *= p - q;
      /* d/dt prod (t - q) */
      dw = dw * (t - q) + w;
      w *= t - q;
    }
    A->idx[p] = i0 + p;
    A->w[p] = w / den;
    A->dw[p] = dw / den;
  }
}

/* The tensor-product cubic Lagrange interpolant of phi at y (index units,
 * cell (i, j, k) at y = (i, j, k)) and its gradient in index units:
 * continuous, fourth-order accurate, exact for cubics in each coordinate. */
static double lg_eval(const march_t *M, const double y[3], double grad[3]) {
  lg_axis A[3];
  for (int a = 0; a < 3; a++) {
    double ya = a < M->dim ? y[a] : 0;
    int na = a < M->dim ? M->ext[a] : 1;
    if (M->quintic)
      lg_weights5(ya, na, &A[a]);
    else
      lg_weights(ya, na, &A[a]);
  }
  const int nr = M->dim == 3 ? A[2].np : 1;
  double v = 0, g0 = 0, g1 = 0, g2 = 0;
  for (int p = 0; p < A[0].np; p++) {
    if (A[0].w[p] == 0 && A[0].dw[p] == 0) continue;
    double v1 = 0, d1 = 0, e1 = 0;
    for (int q = 0; q < A[1].np; q++) {
      double v2 = 0, d2 = 0;
      const double *row = M->phi + A[0].idx[p] * M->stride[0] + A[1].idx[q] * M->stride[1];
      for (int r = 0; r < nr; r++) {
        double f = row[A[2].idx[r]];
        v2 += A[2].w[r] * f;
        d2 += A[2].dw[r] * f;
      }
      v1 += A[1].w[q] * v2;
      d1 += A[1].dw[q] * v2;
      e1 += A[1].w[q] * d2;
    }
    v += A[0].w[p] * v1;
    g0 += A[0].dw[p] * v1;
    g1 += A[0].w[p] * d1;
    g2 += A[0].w[p] * e1;
  }
  grad[0] = g0, grad[1] = g1, grad[2] = M->dim == 3 ? g2 : 0;
  return v;
}

/* Distance [index units] from y0 to the zero set of the interpolant p by
 * Chopp's (2001, Sec. 3.2) iteration for the closest point x: p(x) = 0 and
 * grad p(x) parallel to x - y0,
 *   d1 = -p grad p / |grad p|^2,
 *   d2 = (y0 - x) - ((y0 - x) . grad p) grad p / |grad p|^2,
 *   x <- x + d1 + d2.
 * until the step is below 1e-12 cells (a few to ten iterations).  Returns -1
 * if an iterate leaves the ball of radius `reach` around y0 or it does not
 * converge. */
static double closest_at(const march_t *M, const double y0[3], double reach, double xout[3]) {
  double x[3] = {y0[0], y0[1], y0[2]}, g[3];
  for (int it = 0; it < 50; it++) {
    double p = lg_eval(M, x, g);
    double g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    if (!(g2 > 0)) return -1;
    double r[3] = {y0[0] - x[0], y0[1] - x[1], y0[2] - x[2]};
    double rg = (r[0] * g[0] + r[1] * g[1] + r[2] * g[2]) / g2;
    double step2 = 0, dist2 = 0;
    for (int a = 0; a < 3; a++) {
      double s = -p * g[a] / g2 + r[a] - rg * g[a];
      x[a] += s;
      step2 += s * s;
      dist2 += (x[a] - y0[a]) * (x[a] - y0[a]);
    }
    if (!(dist2 <= reach * reach)) return -1;
    if (step2 < 1e-24) {
      if (xout) xout[0] = x[0], xout[1] = x[1], xout[2] = x[2];
      return sqrt(dist2);
    }
  }
  return -1;
}

static double closest(const march_t *M, const double y0[3], double reach) {
  return closest_at(M, y0, reach, NULL);
}

/* 1 where the level sets bend sharply at cell c: a second difference
 * |phi_{+a} - 2 phi + phi_{-a}| above dx |grad phi_c| (central differences),
 * i.e. a radius of curvature below a cell (a kink: a sheet one cell thick,
 * the edge of a union of shapes) or a vanishing gradient.  Cells on the
 * domain boundary are not tested. */
static int kinked(const march_t *M, int64_t c, const int ijk[3]) {
  double g2 = 0, worst = 0;
  for (int a = 0; a < M->dim; a++) {
    if (ijk[a] == 0 || ijk[a] == M->ext[a] - 1) return 0;
    double lo = M->phi[c - M->stride[a]], hi = M->phi[c + M->stride[a]];
    g2 += .25 * (hi - lo) * (hi - lo);
    worst = fmax(worst, fabs(hi - 2 * M->phi[c] + lo));
  }
  return !(worst <= sqrt(g2));
}

/* kinked() of every cell into flag */
static void kink_flags(const march_t *M, int64_t *flag) {
  const int n0 = M->ext[0], n1 = M->ext[1], n2 = M->ext[2];
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        int ijk[3] = {i, j, k};
        int64_t c = ((int64_t)i * n1 + j) * n2 + k;
        flag[c] = kinked(M, c, ijk);
      }
}

/* 1 where no cell of the 5^dim block around c is kinked (flags in kink):
 * the cubic interpolant is then smooth wherever the closest point of c or
 * of a neighbour can lie. */
static int resolved(const march_t *M, const int64_t *kink, const int ijk[3]) {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int a = 0; a < M->dim; a++) {
    lo[a] = ijk[a] - 2 < 0 ? 0 : ijk[a] - 2;
    hi[a] = ijk[a] + 2 > M->ext[a] - 1 ? M->ext[a] - 1 : ijk[a] + 2;
  }
  for (int i = lo[0]; i <= hi[0]; i++)
    for (int j = lo[1]; j <= hi[1]; j++)
      for (int k = lo[2]; k <= hi[2]; k++)
        if (kink[i * M->stride[0] + j * M->stride[1] + k]) return 0;
  return 1;
}

/* ------------------------------------------ interface: Russo-Smereka */

/* Russo & Smereka's (2000) interface value of cell c (a face neighbour of
 * the other sign): |phi_c| / g with g the larger of the central-difference
 * |grad phi_c| (one-sided at the domain boundary) and the steepest
 * one-sided difference |phi_n - phi_c| / dx over the face neighbours; -1 if
 * c has no neighbour of the other sign. */
static double rs_distance(const march_t *M, const double *phi, int64_t c, const int ijk[3]) {
  const double pc = phi[c], h = M->h;
  const int in = pc < 0;
  double grad2 = 0, side = 0;
  int cross = 0;
  for (int a = 0; a < M->dim; a++) {
    double nb[2] = {pc, pc};
    int wgt = 0;
    for (int s = -1; s <= 1; s += 2) {
      int q = ijk[a] + s;
      if (q < 0 || q >= M->ext[a]) continue;
      double pn = phi[c + s * M->stride[a]];
      nb[(s + 1) / 2] = pn;
      wgt++;
      side = fmax(side, fabs(pn - pc) / h);
      if ((pn < 0) != in) cross = 1;
    }
    double ga = wgt ? (nb[1] - nb[0]) / (wgt * h) : 0;
    grad2 += ga * ga;
  }
  if (!cross) return -1;
  double gs = fmax(sqrt(grad2), side);
  return gs > 0 ? fabs(pc) / gs : 0;
}

/* The Russo-Smereka reinitialisation (TIDE_REDISTANCE_PDE, levelset.h):
 * buffers phi0, cur/next ping-pong and the interface values D (< 0: not an
 * interface cell), 24 bytes per cell in w. */
static int rs_pde(const march_t *M0, double *phi, int iterations, tide_advect_work *w, int64_t N) {
  int st = tide_advect_work_reserve(w, (size_t)N * 24);
  if (st) return tide_fail(st, "redistance: out of memory");
  double *phi0 = w->buf, *D = phi0 + N, *tmp = D + N;
  memcpy(phi0, phi, (size_t)N * sizeof(double));
  march_t M = *M0;
  const int n0 = M.ext[0], n1 = M.ext[1], n2 = M.ext[2];
  const double h = M.h, dtau = 0.5 * h;
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        int ijk[3] = {i, j, k};
        int64_t c = ((int64_t)i * n1 + j) * n2 + k;
        D[c] = rs_distance(&M, phi0, c, ijk);
      }
  double *cur = phi, *next = tmp;
  for (int it = 0; it < iterations; it++) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int i = 0; i < n0; i++)
      for (int j = 0; j < n1; j++)
        for (int k = 0; k < n2; k++) {
          int ijk[3] = {i, j, k};
          int64_t c = ((int64_t)i * n1 + j) * n2 + k;
          const double s = phi0[c] < 0 ? -1 : 1, pc = cur[c];
          if (D[c] >= 0) { /* subcell fix */
            next[c] = pc - (dtau / h) * s * (fabs(pc) - D[c]);
            continue;
          }
          /* Godunov: upwind one-sided differences by the sign of phi0 */
          double g2 = 0;
          for (int a = 0; a < M.dim; a++) {
            double lo = ijk[a] > 0 ? (pc - cur[c - M.stride[a]]) / h : 0;
            double hi = ijk[a] < M.ext[a] - 1 ? (cur[c + M.stride[a]] - pc) / h : 0;
            double p = s > 0 ? fmax(fmax(lo, 0), -fmin(hi, 0)) : fmax(-fmin(lo, 0), fmax(hi, 0));
            g2 += p * p;
          }
          next[c] = pc - dtau * s * (sqrt(g2) - 1);
        }
    double *t = cur;
    cur = next, next = t;
  }
  if (cur != phi) memcpy(phi, cur, (size_t)N * sizeof(double));
  return 0;
}

/* ---------------------------------------------------------------- march */

int tide_levelset_redistance(const tide_grid *g, double *phi, double band) {
  tide_redistance_opts o = tide_redistance_opts_default();
  o.band = band;
  return tide_levelset_redistance_ex(g, phi, &o, NULL);
}

int tide_levelset_redistance_ex(const tide_grid *g, double *phi, const tide_redistance_opts *opts,
                                tide_advect_work *work) {
  const char *fn = "redistance";
  tide_redistance_opts o = opts ? *opts : tide_redistance_opts_default();
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, fn);
  if (st) return st;
  if (!phi) return tide_fail(TIDE_EINVAL, "%s: no phi", fn);
  if (isnan(o.band)) return tide_fail(TIDE_EINVAL, "%s: band is NaN", fn);
  if (!(o.closest >= 0)) return tide_fail(TIDE_EINVAL, "%s: closest must be >= 0", fn);
  if (o.order != 1 && o.order != 2)
    return tide_fail(TIDE_EINVAL, "%s: order must be 1 or 2, got %d", fn, o.order);
  if (o.init != TIDE_REDISTANCE_INIT_LINEAR && o.init != TIDE_REDISTANCE_INIT_CUBIC &&
      o.init != TIDE_REDISTANCE_INIT_SUBCELL)
    return tide_fail(TIDE_EINVAL, "%s: unknown init %d", fn, o.init);
  if (o.method != TIDE_REDISTANCE_FMM && o.method != TIDE_REDISTANCE_PDE)
    return tide_fail(TIDE_EINVAL, "%s: unknown method %d", fn, o.method);
  if (o.method == TIDE_REDISTANCE_PDE && o.iterations < 1)
    return tide_fail(TIDE_EINVAL, "%s: iterations must be >= 1, got %d", fn, o.iterations);
  double band = o.band > 0 ? o.band : INFINITY;
  int64_t N = tide_grid_ncells(g), bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (int64_t c = 0; c < N; c++)
    bad += !isfinite(phi[c]);
  if (bad) return tide_fail(TIDE_ENONFINITE, "%s: %lld non-finite phi values", fn, (long long)bad);

  const int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2], dim = g->dim;
  const double h = g->dx;
  tide_advect_work own = {0};
  tide_advect_work *w = work ? work : &own;
  if (o.method == TIDE_REDISTANCE_PDE) {
    march_t P = {dim, 1, 0, {n0, n1, n2}, {(int64_t)n1 * n2, n2, 1}, h, phi, NULL, NULL};
    int64_t nif = 0;
#pragma omp parallel for collapse(2) reduction(+ : nif) schedule(static)
    for (int i = 0; i < n0; i++)
      for (int j = 0; j < n1; j++)
        for (int k = 0; k < n2; k++) {
          int ijk[3] = {i, j, k};
          nif += rs_distance(&P, phi, ((int64_t)i * n1 + j) * n2 + k, ijk) >= 0;
        }
    if (nif) st = rs_pde(&P, phi, o.iterations, w, N); /* no interface: phi left as it is */
    tide_advect_work_release(&own);
    return st;
  }
  /* dist, heap, pos (8 bytes each), state (1 byte); closest: sd (8 more) */
  if ((st = tide_advect_work_reserve(w, (size_t)N * (o.init == TIDE_REDISTANCE_INIT_CUBIC && o.closest > 0 ? 33 : 25))))
    return tide_fail(st, "%s: out of memory", fn);
  double *dist = w->buf;
  int64_t *heap = (int64_t *)(dist + N), *pos = heap + N;
  uint8_t *state = (uint8_t *)(pos + N);
  memset(state, FAR, (size_t)N);
  march_t M = {dim, o.order, 0, {n0, n1, n2}, {(int64_t)n1 * n2, n2, 1}, h, phi, dist, state};
  const int cubic = o.init == TIDE_REDISTANCE_INIT_CUBIC;
  const int subcell = o.init == TIDE_REDISTANCE_INIT_SUBCELL;

  /* 0. cubic: kink flags (in pos, unused before the march) */
  if (cubic) kink_flags(&M, pos);

  /* 1. interface cells */
  int64_t nknown = 0;
#pragma omp parallel for collapse(2) reduction(+ : nknown) schedule(dynamic, 4)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        int ijk[3] = {i, j, k};
        int64_t c = ((int64_t)i * n1 + j) * n2 + k;
        double pc = phi[c];
        int in = pc < 0;
        double inv2 = 0, grad2 = 0, dmin = INFINITY;
        int cross = 0;
        for (int a = 0; a < dim; a++) {
          double da = INFINITY, nb[2] = {pc, pc};
          for (int s = -1; s <= 1; s += 2) {
            int q = ijk[a] + s;
            if (q < 0 || q >= M.ext[a]) continue;
            double pn = phi[c + s * M.stride[a]];
            nb[(s + 1) / 2] = pn;
            if ((pn < 0) == in) continue;
            double theta = pc / (pc - pn); /* in [0, 1): pc and pn differ in sign */
            if (theta * h < da) da = theta * h;
          }
          if (da < INFINITY) {
            cross = 1;
            inv2 = da > 0 ? inv2 + 1 / (da * da) : INFINITY;
            if (da < dmin) dmin = da;
          }
          /* central difference (one-sided at the domain boundary) */
          int wgt = (ijk[a] > 0) + (ijk[a] < M.ext[a] - 1);
          double ga = wgt ? (nb[1] - nb[0]) / (wgt * h) : 0;
          grad2 += ga * ga;
        }
        dist[c] = INFINITY;
        if (!cross) continue;
        if (subcell) {
          dist[c] = rs_distance(&M, phi, c, ijk);
          state[c] = KNOWN;
          nknown++;
          continue;
        }
        double dint = inv2 == INFINITY ? 0 : 1 / sqrt(inv2);
        double dgrad = grad2 > 0 ? fabs(pc) / sqrt(grad2) : INFINITY;
        double d = dgrad < dint ? dgrad : dint;
        if (cubic && resolved(&M, pos, ijk)) {
          /* the closest point lies within the nearest axis crossing (plus
           * the curvature of the interpolant over a cell) */
          double y0[3] = {i, j, k};
          double dc = closest(&M, y0, dmin / h + 1.5);
          if (dc >= 0 && dc <= dmin / h + .5) d = dc * h;
        }
        dist[c] = d;
        state[c] = KNOWN;
        nknown++;
      }
  if (nknown == 0) goto done; /* no interface: leave phi as it is */
  /* 1b. cubic: their face neighbours too, accepted where the closest-point
   * distance d obeys the triangle inequality with every interface neighbour
   * (|d - d_n| <= dx; otherwise, e.g. between two close interfaces, the
   * march decides).  Flags go to heap (unused yet): no thread reads a value
   * another one writes. */
  if (cubic) {
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
    for (int i = 0; i < n0; i++)
      for (int j = 0; j < n1; j++)
        for (int k = 0; k < n2; k++) {
          int ijk[3] = {i, j, k};
          int64_t c = ((int64_t)i * n1 + j) * n2 + k;
          heap[c] = 0;
          if (state[c] == KNOWN) continue;
          double lo = 0, hi = INFINITY;
          for (int a = 0; a < dim; a++)
            for (int s = -1; s <= 1; s += 2) {
              int q = ijk[a] + s;
              if (q < 0 || q >= M.ext[a]) continue;
              int64_t nb = c + s * M.stride[a];
              if (state[nb] != KNOWN) continue;
              if (dist[nb] + h < hi) hi = dist[nb] + h;
              if (dist[nb] - h > lo) lo = dist[nb] - h;
            }
          if (hi == INFINITY || !resolved(&M, pos, ijk)) continue;
          double y0[3] = {i, j, k};
          double dc = closest(&M, y0, hi / h + 1.5);
          if (dc < 0) continue;
          dc *= h;
          if (dc >= lo * (1 - 1e-9) && dc <= hi * (1 + 1e-9)) {
            dist[c] = dc;
            heap[c] = 1;
          }
        }
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < N; c++)
      if (heap[c]) state[c] = KNOWN;
  }

  /* 2. march */
  heap_t H = {heap, pos, 0, dist};
  for (int64_t c = 0; c < N; c++) {
    if (state[c] != KNOWN) continue;
    int ijk[3] = {(int)(c / M.stride[0]), (int)((c / M.stride[1]) % n1), (int)(c % n2)};
    for (int a = 0; a < dim; a++)
      for (int s = -1; s <= 1; s += 2) {
        int q = ijk[a] + s;
        if (q < 0 || q >= M.ext[a]) continue;
        int64_t nb = c + s * M.stride[a];
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
    int ijk[3] = {(int)(c / M.stride[0]), (int)((c / M.stride[1]) % n1), (int)(c % n2)};
    dist[c] = tentative(&M, c, ijk);
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
    int ijk[3] = {(int)(c / M.stride[0]), (int)((c / M.stride[1]) % n1), (int)(c % n2)};
    for (int a = 0; a < dim; a++)
      for (int s = -1; s <= 1; s += 2) {
        int q = ijk[a] + s;
        if (q < 0 || q >= M.ext[a]) continue;
        int64_t nb = c + s * M.stride[a];
        if (state[nb] == KNOWN) continue;
        /* recompute nb from its accepted neighbours */
        int nbijk[3] = {ijk[0], ijk[1], ijk[2]};
        nbijk[a] = q;
        double d = tentative(&M, nb, nbijk);
        if (state[nb] == FAR) {
          dist[nb] = d;
          state[nb] = TRIAL;
          heap[H.size] = nb;
          pos[nb] = H.size++;
          heap_up(&H, pos[nb]);
        } else if (d < dist[nb]) {
          dist[nb] = d;
          heap_up(&H, pos[nb]);
        } else if (o.order == 2 && d > dist[nb]) {
          /* a second-order value from a new far upwind cell may be larger */
          dist[nb] = d;
          heap_down(&H, pos[nb]);
        }
      }
  }

  /* 2b. cubic with closest > 0: every reached cell within closest dx takes
   * the distance to the closest point x* of the quintic interpolant (kink
   * flags recomputed into pos, free after the march), where Chopp's
   * iteration converges within half a cell of the marched value.  Then a
   * defect correction: the interpolant of the new signed distances does not
   * vanish exactly at x* (its own interpolation error, ~1e-6 dx on a circle
   * of 10 cells, 1e-4 with the cubic, the same sign every call: the zero set
   * would creep); each such cell subtracts the value e(x*) of that
   * interpolant, so the zero set of the result's interpolant stays on the
   * input's.  The signed values go to sd (N doubles after the march's
   * buffers), the flags of the converged cells to heap, e to pos. */
  if (cubic && o.closest > 0) {
    kink_flags(&M, pos);
    const double lim = o.closest * h;
    M.quintic = 1;
    uint8_t *cp = (uint8_t *)heap; /* 1: closest point found (heap is free now) */
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
    for (int i = 0; i < n0; i++)
      for (int j = 0; j < n1; j++)
        for (int k = 0; k < n2; k++) {
          int ijk[3] = {i, j, k};
          int64_t c = ((int64_t)i * n1 + j) * n2 + k;
          cp[c] = 0;
          if (state[c] != KNOWN || !(dist[c] < lim) || !resolved(&M, pos, ijk)) continue;
          double y0[3] = {i, j, k};
          double dc = closest(&M, y0, dist[c] / h + 1);
          if (dc >= 0 && fabs(dc * h - dist[c]) <= .5 * h) dist[c] = dc * h, cp[c] = 1;
        }
    double *sd = (double *)(state + N);
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < N; c++) {
      double d = state[c] == KNOWN ? dist[c] : band;
      sd[c] = phi[c] < 0 ? -d : d;
    }
    march_t S = M;
    S.phi = sd;
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
    for (int i = 0; i < n0; i++)
      for (int j = 0; j < n1; j++)
        for (int k = 0; k < n2; k++) {
          int64_t c = ((int64_t)i * n1 + j) * n2 + k;
          double e = 0;
          if (cp[c]) {
            double y0[3] = {i, j, k}, x[3], gr[3];
            if (closest_at(&M, y0, dist[c] / h + 1, x) >= 0) e = lg_eval(&S, x, gr);
          }
          /* pos is free again: the corrections */
          ((double *)pos)[c] = e;
        }
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < N; c++)
      phi[c] = sd[c] - ((double *)pos)[c];
    goto done;
  }

  /* 3. signs back; unreached cells get +-band */
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < N; c++) {
    double d = state[c] == KNOWN ? dist[c] : band;
    phi[c] = phi[c] < 0 ? -d : d;
  }

done:
  tide_advect_work_release(&own);
  return st;
}
