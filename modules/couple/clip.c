/* clip.c -- the solid boundary clipped against the grid cells and the N, C
 * matrices of Zarifi Eq. 5.7-5.13 (see zarifi.h). */
#include "couple/zarifi.h"

#include <math.h>
#include <string.h>

#define MAXV 32 /* a triangle clipped by 6 planes has <= 9 vertices */

typedef struct cvert {
  double p[3]; /* position */
  double b[3]; /* barycentric coordinates in the face */
} cvert;

typedef struct cpoly {
  int n;
  cvert v[MAXV];
} cpoly;

/* Per-face clipping context. */
typedef struct fctx {
  const tide_grid *g;
  int d;
  double nout[3]; /* outward unit normal of the face */
  int32_t face;
  tide_zclip *c;  /* NULL: count only */
  int64_t at;     /* next piece to write */
  int64_t count;  /* pieces inside the grid */
  double outside; /* area outside the grid */
} fctx;

static void push(cpoly *P, const cvert *v) {
  if (P->n < MAXV) P->v[P->n++] = *v;
}

static void lerp(const cvert *a, const cvert *b, double t, int ax, double c, cvert *x) {
  for (int k = 0; k < 3; k++) {
    x->p[k] = a->p[k] + t * (b->p[k] - a->p[k]);
    x->b[k] = a->b[k] + t * (b->b[k] - a->b[k]);
  }
  x->p[ax] = c; /* exactly on the plane */
}

/* Split P by the plane x_ax = c into the parts below (lo) and above (hi).
 * Vertices on the plane go to both; a polygon lying in the plane goes to
 * the side its outward normal points to. */
static void split(const cpoly *P, int d, int ax, double c, double nout_ax, cpoly *lo, cpoly *hi) {
  double s[MAXV];
  int allon = 1;
  lo->n = hi->n = 0;
  for (int i = 0; i < P->n; i++) {
    s[i] = P->v[i].p[ax] - c;
    if (s[i] != 0) allon = 0;
  }
  if (allon) {
    if (nout_ax > 0)
      *hi = *P;
    else
      *lo = *P;
    return;
  }
  if (d == 2) { /* a segment */
    if (s[0] <= 0 && s[1] <= 0) {
      *lo = *P;
    } else if (s[0] >= 0 && s[1] >= 0) {
      *hi = *P;
    } else {
      cvert x;
      lerp(&P->v[0], &P->v[1], s[0] / (s[0] - s[1]), ax, c, &x);
      cpoly *first = s[0] < 0 ? lo : hi, *second = s[0] < 0 ? hi : lo;
      push(first, &P->v[0]);
      push(first, &x);
      push(second, &x);
      push(second, &P->v[1]);
    }
    return;
  }
  for (int i = 0; i < P->n; i++) {
    int j = i + 1 == P->n ? 0 : i + 1;
    if (s[i] <= 0) push(lo, &P->v[i]);
    if (s[i] >= 0) push(hi, &P->v[i]);
    if ((s[i] < 0 && s[j] > 0) || (s[i] > 0 && s[j] < 0)) {
      cvert x;
      lerp(&P->v[i], &P->v[j], s[i] / (s[i] - s[j]), ax, c, &x);
      push(lo, &x);
      push(hi, &x);
    }
  }
}

static int nonempty(const cpoly *P, int d) { return P->n >= d; }

/* Area, centroid and barycentric centroid of a piece; area 0 if degenerate. */
static double measure(const cpoly *P, int d, const double *nout, double *cen, double *bar) {
  double A = 0, cp[3] = {0, 0, 0}, cb[3] = {0, 0, 0};
  if (d == 2) {
    double ex = P->v[1].p[0] - P->v[0].p[0], ey = P->v[1].p[1] - P->v[0].p[1];
    A = sqrt(ex * ex + ey * ey);
    for (int k = 0; k < 3; k++) {
      cp[k] = 0.5 * (P->v[0].p[k] + P->v[1].p[k]);
      cb[k] = 0.5 * (P->v[0].b[k] + P->v[1].b[k]);
    }
  } else {
    const cvert *o = &P->v[0];
    for (int i = 1; i + 1 < P->n; i++) {
      const cvert *a = &P->v[i], *b = &P->v[i + 1];
      double e1[3], e2[3];
      for (int k = 0; k < 3; k++) {
        e1[k] = a->p[k] - o->p[k];
        e2[k] = b->p[k] - o->p[k];
      }
      double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
      double t = 0.5 * (cr[0] * nout[0] + cr[1] * nout[1] + cr[2] * nout[2]);
      if (!(t > 0)) continue; /* round-off slivers of a convex polygon */
      A += t;
      for (int k = 0; k < 3; k++) {
        cp[k] += t * (o->p[k] + a->p[k] + b->p[k]) / 3;
        cb[k] += t * (o->b[k] + a->b[k] + b->b[k]) / 3;
      }
    }
    if (!(A > 0)) return 0;
    for (int k = 0; k < 3; k++) {
      cp[k] /= A;
      cb[k] /= A;
    }
  }
  if (!(A > 0)) return 0;
  double sb = 0;
  for (int k = 0; k < d; k++) {
    if (!(cb[k] > 0)) cb[k] = 0;
    sb += cb[k];
  }
  for (int k = 0; k < d; k++) {
    cen[k] = cp[k];
    bar[k] = sb > 0 ? cb[k] / sb : 1.0 / d;
  }
  return A;
}

static void emit(fctx *F, const cpoly *P, const int *idx) {
  double cen[3], bar[3];
  double A = measure(P, F->d, F->nout, cen, bar);
  if (!(A > 0)) return;
  const tide_grid *g = F->g;
  for (int a = 0; a < F->d; a++)
    if (idx[a] < 0 || idx[a] >= g->n[a]) {
      F->outside += A;
      return;
    }
  if (F->c) {
    tide_zclip *c = F->c;
    int64_t q = F->at++;
    c->cell[q] = tide_grid_idx(g, idx[0], idx[1], F->d == 3 ? idx[2] : 0);
    c->face[q] = F->face;
    c->area[q] = A;
    for (int k = 0; k < F->d; k++) {
      c->normal[q * F->d + k] = -F->nout[k];
      c->bary[q * F->d + k] = bar[k];
      c->centroid[q * F->d + k] = cen[k];
    }
  }
  F->count++;
}

static int clampi(double v, int lo, int hi) {
  if (!(v > lo)) return lo;
  if (v > hi) return hi;
  return (int)v;
}

/* Split P along axis ax into the cell slabs, then recurse on the next axis. */
static void slabs(fctx *F, const cpoly *P, int ax, int *idx) {
  if (ax == F->d) {
    emit(F, P, idx);
    return;
  }
  const tide_grid *g = F->g;
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (int i = 0; i < P->n; i++) {
    lo = fmin(lo, P->v[i].p[ax]);
    hi = fmax(hi, P->v[i].p[ax]);
  }
  double o = g->origin[ax], h = g->dx;
  /* one extra plane on each side, so that faces in a grid plane meet the
   * split that assigns them to their liquid side */
  int i0 = clampi(floor((lo - o) / h) - 1, -1, g->n[ax]);
  int i1 = clampi(floor((hi - o) / h) + 1, -1, g->n[ax]);
  cpoly cur = *P, l, r;
  int i = i0;
  for (; i < i1; i++) {
    split(&cur, F->d, ax, o + (i + 1) * h, F->nout[ax], &l, &r);
    if (nonempty(&l, F->d)) {
      idx[ax] = i;
      slabs(F, &l, ax + 1, idx);
    }
    cur = r;
    if (!nonempty(&cur, F->d)) return;
  }
  idx[ax] = i;
  slabs(F, &cur, ax + 1, idx);
}

static fctx fctx_make(const tide_grid *g, int d, tide_zclip *c, int64_t at) {
  fctx F;
  memset(&F, 0, sizeof F);
  F.g = g;
  F.d = d;
  F.c = c;
  F.at = at;
  return F;
}

/* Clip face f; returns its area (0 for a degenerate face). */
static double clip_face(fctx *F, const tide_tetmesh *m, const double *x, int64_t f) {
  int d = m->dim;
  const int32_t *bn = TIDE_I32P(m->bound) + f * d;
  cpoly P;
  memset(&P, 0, sizeof P);
  P.n = d;
  for (int a = 0; a < d; a++) {
    for (int k = 0; k < d; k++)
      P.v[a].p[k] = x[(int64_t)bn[a] * d + k];
    P.v[a].b[a] = 1;
  }
  double A;
  if (d == 2) {
    double ex = P.v[1].p[0] - P.v[0].p[0], ey = P.v[1].p[1] - P.v[0].p[1];
    A = sqrt(ex * ex + ey * ey);
    if (!(A > 0)) return 0;
    F->nout[0] = ey / A;
    F->nout[1] = -ex / A;
    F->nout[2] = 0;
  } else {
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
      e1[k] = P.v[1].p[k] - P.v[0].p[k];
      e2[k] = P.v[2].p[k] - P.v[0].p[k];
    }
    double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0]};
    double l = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    if (!(l > 0)) return 0;
    for (int k = 0; k < 3; k++)
      F->nout[k] = cr[k] / l;
    A = 0.5 * l;
  }
  F->face = (int32_t)f;
  int idx[3] = {0, 0, 0};
  slabs(F, &P, 0, idx);
  return A;
}

void tide_zclip_free(tide_zclip *c) {
  if (!c) return;
  size_t n = (size_t)c->cap, d = (size_t)(c->dim > 0 ? c->dim : 3);
  tide_free(c->cell, n * sizeof(int64_t));
  tide_free(c->face, n * sizeof(int32_t));
  tide_free(c->area, n * sizeof(double));
  tide_free(c->normal, n * d * sizeof(double));
  tide_free(c->bary, n * d * sizeof(double));
  tide_free(c->centroid, n * d * sizeof(double));
  memset(c, 0, sizeof *c);
}

static int reserve(tide_zclip *c, int d, int64_t n) {
  if (c->cap >= n && c->dim == d) return TIDE_OK;
  tide_zclip_free(c);
  int64_t cap = n > 16 ? n + n / 4 : 16;
  c->dim = d;
  c->cap = cap;
  size_t s = (size_t)cap;
  c->cell = tide_alloc(s * sizeof(int64_t));
  c->face = tide_alloc(s * sizeof(int32_t));
  c->area = tide_alloc(s * sizeof(double));
  c->normal = tide_alloc(s * (size_t)d * sizeof(double));
  c->bary = tide_alloc(s * (size_t)d * sizeof(double));
  c->centroid = tide_alloc(s * (size_t)d * sizeof(double));
  if (!c->cell || !c->face || !c->area || !c->normal || !c->bary || !c->centroid) {
    tide_zclip_free(c);
    return tide_fail(TIDE_ENOMEM, "clip: out of memory for %lld pieces", (long long)n);
  }
  return TIDE_OK;
}

int tide_zarifi_clip(const tide_grid *g, const tide_tetmesh *m, const double *x, tide_zclip *c) {
  if (!g || !m || !c) return tide_fail(TIDE_EINVAL, "clip: NULL argument");
  if (m->surface || m->dim != g->dim)
    return tide_fail(TIDE_EINVAL, "clip: the solid must be a %dD volume mesh (got %dD%s)", g->dim,
                     m->dim, m->surface ? " surface" : "");
  int d = m->dim;
  if (!x) x = TIDE_F64P(m->x);
  int64_t nb = m->nb, nvd = m->nv * d;
  for (int64_t q = 0; q < nvd; q++)
    if (!isfinite(x[q])) return tide_fail(TIDE_ENONFINITE, "clip: solid positions contain NaN/Inf");
  int64_t *cnt = tide_alloc((size_t)(nb + 1) * sizeof(int64_t));
  double *outa = tide_alloc((size_t)(nb + 1) * 2 * sizeof(double));
  if (!cnt || !outa) {
    tide_free(cnt, (size_t)(nb + 1) * sizeof(int64_t));
    tide_free(outa, (size_t)(nb + 1) * 2 * sizeof(double));
    return tide_fail(TIDE_ENOMEM, "clip: out of memory");
  }
  /* pass 1: count the pieces of each face */
#pragma omp parallel for schedule(dynamic, 64) if (nb > 256)
  for (int64_t f = 0; f < nb; f++) {
    fctx F = fctx_make(g, d, NULL, 0);
    double A = clip_face(&F, m, x, f);
    cnt[f] = F.count;
    outa[2 * f] = F.outside;
    outa[2 * f + 1] = A;
  }
  int64_t n = 0;
  double outside = 0, total = 0;
  for (int64_t f = 0; f < nb; f++) {
    int64_t k = cnt[f];
    cnt[f] = n;
    n += k;
    outside += outa[2 * f];
    total += outa[2 * f + 1];
  }
  cnt[nb] = n;
  int s = reserve(c, d, n);
  if (!s) {
    /* pass 2: write them at their offsets (face order for any thread count) */
#pragma omp parallel for schedule(dynamic, 64) if (nb > 256)
    for (int64_t f = 0; f < nb; f++) {
      fctx F = fctx_make(g, d, c, cnt[f]);
      clip_face(&F, m, x, f);
    }
    c->n = n;
    c->outside = outside;
    c->total = total;
  }
  tide_free(cnt, (size_t)(nb + 1) * sizeof(int64_t));
  tide_free(outa, (size_t)(nb + 1) * 2 * sizeof(double));
  return s;
}

int tide_zarifi_nc(const tide_grid *g, const tide_zclip *c, const tide_tetmesh *m, tide_csr **N,
                   tide_csr **C) {
  int d = c->dim;
  if (d != m->dim)
    return tide_fail(TIDE_EINVAL, "clip: pieces of a %dD solid, mesh is %dD", d, m->dim);
  int64_t n = c->n, nc = tide_grid_ncells(g);
  if (n * d > INT32_MAX || m->nv * d > INT32_MAX || nc > INT32_MAX)
    return tide_fail(TIDE_EINVAL, "clip: N and C too large for 32-bit indices");
  const int32_t *bound = TIDE_I32P(m->bound);
  int s = TIDE_OK;
  int64_t nt = n * d * (int64_t)d;
  int *I = tide_alloc((size_t)(nt + 1) * sizeof(int)),
      *J = tide_alloc((size_t)(nt + 1) * sizeof(int));
  double *V = tide_alloc((size_t)(nt + 1) * sizeof(double));
  if (!I || !J || !V) {
    s = tide_fail(TIDE_ENOMEM, "clip: out of memory for N and C");
    goto done;
  }
  if (N) {
    for (int64_t q = 0; q < n; q++)
      for (int k = 0; k < d; k++) {
        I[q * d + k] = (int)(q * d + k);
        J[q * d + k] = (int)c->cell[q];
        V[q * d + k] = c->area[q] * c->normal[q * d + k];
      }
    if ((s = tide_csr_from_triplets((int)(n * d), (int)nc, n * d, I, J, V, TIDE_CSR_GENERAL, N)))
      goto done;
  }
  if (C) {
    int64_t t = 0;
    for (int64_t q = 0; q < n; q++)
      for (int k = 0; k < d; k++)
        for (int a = 0; a < d; a++) {
          I[t] = (int)(q * d + k);
          J[t] = (int)((int64_t)bound[(int64_t)c->face[q] * d + a] * d + k);
          V[t++] = c->bary[q * d + a];
        }
    if ((s = tide_csr_from_triplets((int)(n * d), (int)(m->nv * d), t, I, J, V, TIDE_CSR_GENERAL,
                                    C))) {
      if (N) {
        tide_csr_free(*N);
        *N = NULL;
      }
    }
  }
done:
  tide_free(I, (size_t)(nt + 1) * sizeof(int));
  tide_free(J, (size_t)(nt + 1) * sizeof(int));
  tide_free(V, (size_t)(nt + 1) * sizeof(double));
  return s;
}

int tide_zarifi_j_triplets(const tide_zclip *c, const tide_tetmesh *m, const int *rowof, int col0,
                           double scale, tide_triplets *T) {
  int d = c->dim;
  const int32_t *bound = TIDE_I32P(m->bound);
  for (int64_t q = 0; q < c->n; q++) {
    int r = rowof ? rowof[c->cell[q]] : (int)c->cell[q];
    if (r < 0) continue;
    double an[3];
    for (int k = 0; k < d; k++)
      an[k] = scale * c->area[q] * c->normal[q * d + k];
    for (int a = 0; a < d; a++) {
      int node = bound[(int64_t)c->face[q] * d + a];
      double b = c->bary[q * d + a];
      for (int k = 0; k < d; k++)
        tide_triplets_add(T, r, col0 + node * d + k, an[k] * b);
    }
  }
  return TIDE_OK;
}

/* ------------------------------------------------ linear pressure sampling */

/* Weights of the pressure at x (a point of cell c0) from the liquid cells
 * (rowof >= 0) of the 3^d block around c0: the value at x of the weighted
 * least-squares affine fit p(y) ~ a + b.(y - x) to the cell-centre samples,
 * with weights prod_a (3/2 - |y_a - x_a|/dx) (positive on the block, since x
 * lies in c0).  Exact for affine p whenever the liquid centres of the block
 * span an affine d-space; otherwise the weighted mean of the samples
 * (constant fit).  Returns the number of samples (<= 27). */
static int sample_linear(const tide_grid *g, const int *rowof, int64_t c0, const double *x,
                         int rows[27], double w[27]) {
  int d = g->dim, n1 = g->n[1], n2 = g->n[2];
  int ci[3] = {(int)(c0 / ((int64_t)n1 * n2)), (int)((c0 / n2) % n1), (int)(c0 % n2)};
  double a[27][4], om[27], M[16] = {0};
  int cnt = 0, na = d + 1;
  int lo2 = d == 3 ? -1 : 0, hi2 = d == 3 ? 1 : 0;
  for (int di = -1; di <= 1; di++)
    for (int dj = -1; dj <= 1; dj++)
      for (int dk = lo2; dk <= hi2; dk++) {
        int c[3] = {ci[0] + di, ci[1] + dj, ci[2] + dk};
        int in = 1;
        for (int k = 0; k < d; k++)
          in = in && c[k] >= 0 && c[k] < g->n[k];
        if (!in) continue;
        int r = rowof[tide_grid_idx(g, c[0], c[1], c[2])];
        if (r < 0) continue;
        double wt = 1;
        a[cnt][0] = 1;
        for (int k = 0; k < d; k++) {
          double y = ((g->origin[k] + (c[k] + 0.5) * g->dx) - x[k]) / g->dx;
          a[cnt][k + 1] = y;
          wt *= 1.5 - fabs(y);
        }
        if (!(wt > 0)) continue;
        om[cnt] = wt;
        rows[cnt] = r;
        for (int p = 0; p < na; p++)
          for (int q = 0; q < na; q++)
            M[p * na + q] += wt * a[cnt][p] * a[cnt][q];
        cnt++;
      }
  if (cnt == 0) return 0;
  /* y = M^-1 e1 by Cholesky; a tiny pivot (samples not spanning) -> constant */
  double L[16] = {0}, y[4] = {1, 0, 0, 0};
  int ok = 1;
  for (int i = 0; i < na && ok; i++) {
    for (int j = 0; j <= i; j++) {
      double s = M[i * na + j];
      for (int k = 0; k < j; k++)
        s -= L[i * na + k] * L[j * na + k];
      if (i == j) {
        if (!(s > 1e-8 * M[i * na + i]) || !(s > 0)) ok = 0;
        else L[i * na + i] = sqrt(s);
      } else {
        L[i * na + j] = s / L[j * na + j];
      }
    }
  }
  if (ok) {
    for (int i = 0; i < na; i++) { /* L z = e1 */
      double s = y[i];
      for (int k = 0; k < i; k++)
        s -= L[i * na + k] * y[k];
      y[i] = s / L[i * na + i];
    }
    for (int i = na - 1; i >= 0; i--) { /* L^T y = z */
      double s = y[i];
      for (int k = i + 1; k < na; k++)
        s -= L[k * na + i] * y[k];
      y[i] = s / L[i * na + i];
    }
    for (int n = 0; n < cnt; n++) {
      double s = 0;
      for (int p = 0; p < na; p++)
        s += a[n][p] * y[p];
      w[n] = om[n] * s;
    }
  } else {
    double sum = 0;
    for (int n = 0; n < cnt; n++)
      sum += om[n];
    for (int n = 0; n < cnt; n++)
      w[n] = om[n] / sum;
  }
  return cnt;
}

int tide_zarifi_j_triplets_sampled(const tide_grid *g, const tide_zclip *c, const tide_tetmesh *m,
                                   const int *rowof, const double *phi, int sampling, int col0,
                                   double scale, tide_triplets *T) {
  if (sampling == TIDE_ZARIFI_SAMPLE_CELL) return tide_zarifi_j_triplets(c, m, rowof, col0, scale, T);
  if (sampling != TIDE_ZARIFI_SAMPLE_LINEAR || !rowof)
    return tide_fail(TIDE_EINVAL, "pressure sampling: unknown mode %d or no liquid numbering", sampling);
  int d = c->dim, dd = d * d;
  const int32_t *bound = TIDE_I32P(m->bound);
  tide_lattice Lp;
  if (phi) tide_lattice_cells(g, phi, &Lp);
  /* The pieces come face by face (tide_zarifi_clip), and a face's pieces share its nodes and
   * mostly their 3^d sample blocks: each face's entries (row, node a, component k) = sum over
   * its pieces q and samples n of an_q[k] bary_q[a] w_qn are summed first (a small hash per
   * thread, rows in the order first met) and added once -- 1.9M triplets -> ~0.5M for the balls
   * at 100^3.  The faces run in parallel with a static schedule: the triplet lists concatenate
   * in face order, so J is the same for any thread count. */
  int64_t nrun = 0, kmax = 1;
  for (int64_t q = 0, q0 = 0; q <= c->n; q++)
    if (q == c->n || (q > 0 && c->face[q] != c->face[q - 1])) {
      if (q > q0) nrun++, kmax = q - q0 > kmax ? q - q0 : kmax;
      q0 = q;
    }
  int64_t *run = tide_alloc((size_t)(nrun + 1) * sizeof(int64_t));
  if (!run) return tide_fail(TIDE_ENOMEM, "pressure sampling: out of memory");
  nrun = 0;
  for (int64_t q = 0; q < c->n; q++)
    if (q == 0 || c->face[q] != c->face[q - 1]) run[nrun++] = q;
  run[nrun] = c->n;
  /* hash capacity: a power of two >= twice the samples of the longest run */
  int64_t cap = 64;
  while (cap < 2 * 27 * kmax)
    cap *= 2;
  int bad = 0;
#pragma omp parallel if (nrun > 256)
  {
    int *key = tide_alloc((size_t)cap * sizeof(int)), *used = tide_alloc((size_t)cap * sizeof(int));
    double *acc = tide_alloc((size_t)cap * 9 * sizeof(double));
    if (!key || !used || !acc) {
#pragma omp atomic write
      bad = 1;
    } else
      for (int64_t h = 0; h < cap; h++)
        key[h] = -1;
#pragma omp for schedule(static)
    for (int64_t f = 0; f < nrun; f++) {
      if (!key || !used || !acc) continue;
      int nu = 0;
      int64_t face = c->face[run[f]];
      for (int64_t q = run[f]; q < run[f + 1]; q++) {
        if (rowof[c->cell[q]] < 0) continue; /* the piece's cell is air or solid: p = 0 */
        const double *x = c->centroid + q * d;
        if (phi && tide_lattice_interp(&Lp, x) > 0) continue; /* above the free surface */
        int rows[27];
        double w[27];
        int cnt = sample_linear(g, rowof, c->cell[q], x, rows, w);
        double an[3];
        for (int k = 0; k < d; k++)
          an[k] = scale * c->area[q] * c->normal[q * d + k];
        for (int n = 0; n < cnt; n++) {
          int64_t h = ((uint64_t)(uint32_t)rows[n] * 2654435761u) & (uint64_t)(cap - 1);
          while (key[h] >= 0 && key[h] != rows[n])
            h = (h + 1) & (cap - 1);
          if (key[h] < 0) {
            key[h] = rows[n];
            used[nu++] = (int)h;
            for (int e = 0; e < dd; e++)
              acc[h * 9 + e] = 0;
          }
          for (int a = 0; a < d; a++) {
            double b = c->bary[q * d + a] * w[n];
            for (int k = 0; k < d; k++)
              acc[h * 9 + a * d + k] += an[k] * b;
          }
        }
      }
      for (int u = 0; u < nu; u++) {
        int64_t h = used[u];
        for (int a = 0; a < d; a++) {
          int node = bound[face * d + a];
          for (int k = 0; k < d; k++)
            tide_triplets_add(T, key[h], col0 + node * d + k, acc[h * 9 + a * d + k]);
        }
        key[h] = -1;
      }
    }
    tide_free(key, key ? (size_t)cap * sizeof(int) : 0);
    tide_free(used, used ? (size_t)cap * sizeof(int) : 0);
    tide_free(acc, acc ? (size_t)cap * 9 * sizeof(double) : 0);
  }
  tide_free(run, (size_t)(nrun + 1) * sizeof(int64_t));
  if (bad) return tide_fail(TIDE_ENOMEM, "pressure sampling: out of memory");
  return TIDE_OK;
}
