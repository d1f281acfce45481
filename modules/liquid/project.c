/* project.c -- pressure projection with a free surface, solid walls,
 * optional ghost-fluid interface, face fractions and divergence targets
 * (see project.h), on the MAC Poisson problem of linalg/mac_poisson.h.
 *
 * For liquid cell c the discrete equation (Zarifi Eq. 4.38 with the ghost
 * fluid Eq. 4.40-4.44) is
 *   sum_f A_f / dx^2 (p_c - p_n) = -rho/dt (sum_f s_f A_f u*_f / dx - d_c),
 * s_f = +1 on the high faces, -1 on the low ones, with p_n = p_c (1 - 1/theta)
 * for an air neighbour; the velocity update on a face between cells lo and
 * hi is u_f = u*_f - dt/(rho dx) (p_hi - p_lo). */
#include "liquid/project.h"

#include <math.h>
#include <string.h>

/* The loops below run row by row over a 3D view of the grid: cells (i, j, k)
 * of n0 x n1 x n2, k contiguous, face arrays of axis a with one more entry
 * along a.  A 3D grid is its own view; a 2D grid of ni x nj cells is the view
 * 1 x ni x nj whose axes 1 and 2 are the grid's axes 0 and 1 (the linear
 * cell and face indices coincide) and whose axis 0 has no faces.  Only rows
 * holding liquid cells (and, for the velocity update, rows next to solid
 * cells) get per-face work. */
#define PJ_INLINE static inline __attribute__((always_inline))

typedef struct pview {
  int d3;                /* 3D: axis 0 of the view has faces */
  int n0, n1, n2;
  int64_t s0;            /* cell stride of axis 0: n1 n2 */
  const uint8_t *lab;
  double *u[3];
  const double *frac[3], *us[3];
  double *th[3];         /* ghost-fluid theta (NULL: 1) */
  const double *phi;     /* level set of the ghost fluid or NULL */
  const uint8_t *fix[3];
  uint8_t *va[3];
  const double *target;
  double dx;
} pview;

struct tide_projector {
  tide_grid grid;
  double *theta[3];       /* face arrays: set on the liquid/air faces of each call (the
                             only faces where theta is read), finite everywhere */
  int64_t nface[3];
  double *b, *x;          /* ncells */
  int *rowof;             /* ncells */
  double *bb, *xx;        /* unknowns (PCG path), grown on demand */
  int64_t nunk_cap;
  tide_mac_solver *mac;   /* matrix-free solver, created on first use */
  uint8_t *lab2;          /* labels with closed liquid cells made solid (on demand) */
  int32_t *comp;          /* ncells: liquid component of a cell, -1 unvisited (on demand) */
  int64_t *queue;         /* ncells: the flood fill's cells, component by component (on demand) */
  double *wfix[3];        /* face weights with the fixed faces closed (on demand) */
  int mac_method;
  /* rows of the view: n0 n1 */
  int64_t nrows;
  uint8_t *rflag;         /* per row: 1 holds liquid, 2 holds solid */
  int *rk0, *rk1;         /* liquid cells of a row lie in [rk0, rk1) */
  int *lrow;              /* the rows holding liquid, ascending */
  uint8_t *srow;          /* n2 SOLID labels: the neighbours of a row on the domain boundary */
  double *zrow;           /* n2 zeros: no target, no axis 0 in 2D */
};

static void view_make(const tide_grid *g, pview *v) {
  memset(v, 0, sizeof *v);
  v->d3 = g->dim == 3;
  v->n0 = v->d3 ? g->n[0] : 1;
  v->n1 = v->d3 ? g->n[1] : g->n[0];
  v->n2 = v->d3 ? g->n[2] : g->n[1];
  v->s0 = (int64_t)v->n1 * v->n2;
  v->dx = g->dx;
}

/* view axis a -> grid axis (-1: none) */
static inline int grid_axis(const pview *v, int a) { return v->d3 ? a : a - 1; }

int tide_projector_new(const tide_grid *g, tide_projector **out) {
  tide_projector *w = tide_calloc(sizeof *w);
  if (!w) return TIDE_ENOMEM;
  w->grid = *g;
  pview v;
  view_make(g, &v);
  int64_t nc = tide_grid_ncells(g);
  w->nrows = (int64_t)v.n0 * v.n1;
  w->b = tide_calloc((size_t)nc * sizeof(double));
  w->x = tide_calloc((size_t)nc * sizeof(double));
  w->rowof = tide_calloc((size_t)nc * sizeof(int));
  w->rflag = tide_calloc((size_t)w->nrows);
  w->rk0 = tide_calloc((size_t)w->nrows * sizeof(int));
  w->rk1 = tide_calloc((size_t)w->nrows * sizeof(int));
  w->lrow = tide_calloc((size_t)w->nrows * sizeof(int));
  w->srow = tide_alloc((size_t)v.n2);
  w->zrow = tide_calloc((size_t)v.n2 * sizeof(double));
  int ok = w->b && w->x && w->rowof && w->rflag && w->rk0 && w->rk1 && w->lrow && w->srow && w->zrow;
  if (w->srow) memset(w->srow, TIDE_CELL_SOLID, (size_t)v.n2);
  for (int a = 0; a < g->dim && ok; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    w->nface[a] = (int64_t)fd[0] * fd[1] * fd[2];
    w->theta[a] = tide_alloc((size_t)w->nface[a] * sizeof(double));
    ok = w->theta[a] != NULL;
    for (int64_t f = 0; ok && f < w->nface[a]; f++) w->theta[a][f] = 1;
  }
  w->mac_method = -1;
  if (!ok) {
    tide_projector_free(w);
    return TIDE_ENOMEM;
  }
  *out = w;
  return TIDE_OK;
}

void tide_projector_free(tide_projector *w) {
  if (!w) return;
  int64_t nc = tide_grid_ncells(&w->grid);
  tide_free(w->b, (size_t)nc * sizeof(double));
  tide_free(w->x, (size_t)nc * sizeof(double));
  tide_free(w->rowof, (size_t)nc * sizeof(int));
  tide_free(w->rflag, (size_t)w->nrows);
  tide_free(w->rk0, (size_t)w->nrows * sizeof(int));
  tide_free(w->rk1, (size_t)w->nrows * sizeof(int));
  tide_free(w->lrow, (size_t)w->nrows * sizeof(int));
  pview v;
  view_make(&w->grid, &v);
  tide_free(w->srow, (size_t)v.n2);
  tide_free(w->zrow, (size_t)v.n2 * sizeof(double));
  for (int a = 0; a < 3; a++) {
    tide_free(w->theta[a], (size_t)w->nface[a] * sizeof(double));
    tide_free(w->wfix[a], (size_t)w->nface[a] * sizeof(double));
  }
  tide_free(w->bb, (size_t)w->nunk_cap * sizeof(double));
  tide_free(w->xx, (size_t)w->nunk_cap * sizeof(double));
  tide_mac_solver_free(w->mac);
  tide_free(w->lab2, (size_t)nc);
  tide_free(w->comp, (size_t)nc * sizeof(int32_t));
  tide_free(w->queue, (size_t)nc * sizeof(int64_t));
  tide_free(w, sizeof *w);
}

int64_t tide_projector_bytes(const tide_projector *w) {
  int64_t nc = tide_grid_ncells(&w->grid), n = 2 * nc * 8 + nc * 4 + 2 * w->nunk_cap * 8;
  n += w->nrows * 13 + (w->lab2 ? nc : 0) + (w->comp ? 12 * nc : 0) + 9 * (w->grid.dim == 3 ? w->grid.n[2] : w->grid.n[1]);
  for (int a = 0; a < 3; a++) n += w->nface[a] * (w->wfix[a] ? 16 : 8);
  if (w->mac) {
    tide_mac_solver_info info;
    if (tide_mac_solver_info_get(w->mac, &info) == TIDE_OK) n += info.bytes;
  }
  return n;
}

/* ------------------------------------------------------------ row scan */

/* Per row of the view: liquid/solid flags and the span of liquid cells; the
 * rows holding liquid (w->lrow, their number in *nl) and the cells of their
 * spans (*span).  Returns the
 * number of labels outside {AIR, LIQUID, SOLID}. */
static int64_t scan_rows(tide_projector *w, const pview *v, int *nl, int64_t *span) {
  const int64_t nr = w->nrows;
  const int n2 = v->n2;
  const uint8_t *lab = v->lab;
  uint8_t *rflag = w->rflag;
  int *rk0 = w->rk0, *rk1 = w->rk1;
  int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad) if (nr * n2 > 4 * TIDE_PAR_MIN)
  for (int64_t r = 0; r < nr; r++) {
    const uint8_t *row = lab + r * n2;
    uint8_t any = 0; /* labels 0, 1, 2: bit 0 liquid, bit 1 solid, others bad */
    for (int k = 0; k < n2; k++) any |= row[k];
    int k0 = 0, k1 = 0;
    if (any & ~3) {
      bad++;
      any = 0;
    }
    if (any & 1) {
      k0 = (int)((const uint8_t *)memchr(row, TIDE_CELL_LIQUID, (size_t)n2) - row);
      k1 = n2;
      while (row[k1 - 1] != TIDE_CELL_LIQUID) k1--;
    }
    rflag[r] = any & 3;
    rk0[r] = k0, rk1[r] = k1;
  }
  int m = 0;
  int64_t s = 0;
  for (int64_t r = 0; r < nr; r++) {
    if (!(rflag[r] & 1)) continue;
    w->lrow[m++] = (int)r;
    s += rk1[r] - rk0[r];
  }
  *nl = m;
  *span = s;
  return bad;
}

/* --------------------------------------------------------- face fluxes */

/* Flux s_f-free of a face of a liquid cell [m/s]: A_f u_f + (1 - A_f) us_f
 * with A_f = 0 on the domain boundary (interior = 0) and next to a solid cell
 * (nb: the label across the face), the fraction (or 1) otherwise; a fixed
 * interior face carries u_f.  *air: set when the face is open to an air
 * cell.  plain: no fractions, fixed faces or solid velocities. */
PJ_INLINE double face_flux(const pview *v, int a, int64_t f, int interior, uint8_t nb, int *air,
                               const int plain) {
  if (!interior) return !plain && v->us[a] ? v->us[a][f] : 0;
  if (plain) {
    if (nb == TIDE_CELL_SOLID) return 0;
    *air |= nb == TIDE_CELL_AIR;
    return v->u[a][f];
  }
  if (v->fix[a] && v->fix[a][f]) return v->u[a][f];
  const double af = nb == TIDE_CELL_SOLID ? 0 : v->frac[a] ? v->frac[a][f] : 1;
  *air |= af > 0 && nb == TIDE_CELL_AIR;
  return (af > 0 ? af * v->u[a][f] : 0) + (v->us[a] ? (1 - af) * v->us[a][f] : 0);
}

/* face indices of the low faces of cell row (i, j) per axis (the high face of
 * cell k is lo[0] + s0 + k, lo[1] + n2 + k, lo[2] + k + 1) */
PJ_INLINE void row_faces(const pview *v, int i, int j, int64_t lo[3]) {
  lo[0] = ((int64_t)i * v->n1 + j) * v->n2;
  lo[1] = ((int64_t)i * (v->n1 + 1) + j) * v->n2;
  lo[2] = ((int64_t)i * v->n1 + j) * (v->n2 + 1);
}

/* dx times the divergence of liquid cell c = (i, j, k) [m/s]: the face fluxes
 * summed axis by axis, low face (-) before high face (+) */
PJ_INLINE double cell_div(const pview *v, const int64_t fl[3], int64_t c, int i, int j, int k,
                              int *air, const int plain) {
  const uint8_t *lab = v->lab;
  const int n2 = v->n2;
  double s = 0;
  if (v->d3) {
    s -= face_flux(v, 0, fl[0] + k, i > 0, i > 0 ? lab[c - v->s0] : 0, air, plain);
    s += face_flux(v, 0, fl[0] + v->s0 + k, i < v->n0 - 1, i < v->n0 - 1 ? lab[c + v->s0] : 0, air,
                   plain);
  }
  s -= face_flux(v, 1, fl[1] + k, j > 0, j > 0 ? lab[c - n2] : 0, air, plain);
  s += face_flux(v, 1, fl[1] + n2 + k, j < v->n1 - 1, j < v->n1 - 1 ? lab[c + n2] : 0, air, plain);
  s -= face_flux(v, 2, fl[2] + k, k > 0, k > 0 ? lab[c - 1] : 0, air, plain);
  s += face_flux(v, 2, fl[2] + k + 1, k < n2 - 1, k < n2 - 1 ? lab[c + 1] : 0, air, plain);
  return s;
}

/* Ghost-fluid theta of tide_mac_poisson_theta on the faces between liquid
 * cell c = (i, j, k) and its air neighbours: phi_l / (phi_l - phi_a) when phi
 * changes sign across the face, else 1.  Returns the number of non-finite
 * phi read. */
static int surface_theta(const pview *v, const int64_t fl[3], int64_t c, int i, int j, int k) {
  const uint8_t *lab = v->lab;
  const double *phi = v->phi;
  const int n2 = v->n2;
  const int64_t f[6] = {fl[0] + k, fl[0] + v->s0 + k, fl[1] + k, fl[1] + n2 + k, fl[2] + k, fl[2] + k + 1};
  const int in[6] = {i > 0, i < v->n0 - 1, j > 0, j < v->n1 - 1, k > 0, k < n2 - 1};
  const int64_t nb[6] = {c - v->s0, c + v->s0, c - n2, c + n2, c - 1, c + 1};
  int bad = 0;
  for (int s = v->d3 ? 0 : 2; s < 6; s++) {
    if (!in[s] || lab[nb[s]] != TIDE_CELL_AIR) continue;
    const double pl = phi[c], pa = phi[nb[s]];
    const int fin = isfinite(pl) && isfinite(pa); /* theta stays finite: the solvers do not check it */
    bad += !fin;
    v->th[s / 2][f[s]] = fin && pl <= 0 && pa > 0 ? pl / (pl - pa) : 1;
  }
  return bad;
}

/* Cells k0 <= k < k1 of row r: the right-hand side -scale (dx div u* - dx d)
 * into b (rhs = 1; written on every cell of the span, only its liquid cells
 * are read by the solvers) and the largest |dx div u - dx d| over the liquid
 * cells in *dmax; *n += liquid cells, *air |= a liquid cell is open to an air
 * cell, *bad |= a non-finite divergence (rhs: also the ghost-fluid theta of
 * the surface cells, *badphi += non-finite phi).  plain (no fractions, fixed faces or
 * solid velocities): the face flux is u_f unless the face lies on the domain
 * boundary or next to a solid cell, computed without branches over the cells
 * that are not at the ends of the row (their neighbours along k exist); the
 * sums are the ones of cell_div, term by term. */
PJ_INLINE void row_cells(const pview *v, const tide_projector *w, int64_t r, double scale, double *b, double *dmax,
                         int64_t *n, int *air, int *bad, int64_t *badphi, const int rhs, const int plain) {
  const int n0 = v->n0, n1 = v->n1, n2 = v->n2;
  const int i = (int)(r / n1), j = (int)(r % n1), k0 = w->rk0[r], k1 = w->rk1[r];
  int64_t fl[3];
  row_faces(v, i, j, fl);
  const int64_t c0 = r * n2;
  const uint8_t *lab = v->lab;
  const double *target = v->target;
  double dm = *dmax;
  int64_t nn = 0;
  int ai = 0, bd = 0, bp = 0;
  int ka = k0, kb = k1; /* the branch-free part */
  if (plain) {
    ka = k0 > 1 ? k0 : 1;
    kb = k1 < n2 - 1 ? k1 : n2 - 1;
    if (kb <= ka) ka = kb = k1;
  }
  for (int k = k0; k < k1; k++) {
    if (plain && k == ka) { /* the interior of the row */
      const uint8_t *L = lab + c0, *S = w->srow;
      const uint8_t *Lxm = v->d3 && i > 0 ? L - v->s0 : S, *Lxp = v->d3 && i < n0 - 1 ? L + v->s0 : S;
      const uint8_t *Lym = j > 0 ? L - n2 : S, *Lyp = j < n1 - 1 ? L + n2 : S;
      const double *uxl = v->d3 ? v->u[0] + fl[0] : w->zrow, *uxh = v->d3 ? uxl + v->s0 : w->zrow;
      const double *uyl = v->u[1] + fl[1], *uyh = uyl + n2, *uz = v->u[2] + fl[2];
      const double *tg = target ? target + c0 : w->zrow;
      const double dx = v->dx;
      double *bc = b + c0;
      for (int q = ka; q < kb; q++) {
        double s = 0;
        s -= Lxm[q] != TIDE_CELL_SOLID ? uxl[q] : 0;
        s += Lxp[q] != TIDE_CELL_SOLID ? uxh[q] : 0;
        s -= Lym[q] != TIDE_CELL_SOLID ? uyl[q] : 0;
        s += Lyp[q] != TIDE_CELL_SOLID ? uyh[q] : 0;
        s -= L[q - 1] != TIDE_CELL_SOLID ? uz[q] : 0;
        s += L[q + 1] != TIDE_CELL_SOLID ? uz[q + 1] : 0;
        const double rr = s - (target ? dx * tg[q] : 0);
        const int liq = L[q] == TIDE_CELL_LIQUID;
        if (rhs) {
          bc[q] = -scale * rr;
          nn += liq;
          const int sa = liq & ((Lxm[q] == TIDE_CELL_AIR) | (Lxp[q] == TIDE_CELL_AIR) | (Lym[q] == TIDE_CELL_AIR) |
                                (Lyp[q] == TIDE_CELL_AIR) | (L[q - 1] == TIDE_CELL_AIR) | (L[q + 1] == TIDE_CELL_AIR));
          ai |= sa;
          if (sa && v->phi) bp += surface_theta(v, fl, c0 + q, i, j, q);
          bd |= liq & (rr - rr != 0); /* NaN or inf */
        }
        const double ar = liq ? fabs(rr) : 0;
        dm = ar > dm ? ar : dm;
      }
      k = kb - 1;
      continue;
    }
    const int64_t c = c0 + k;
    if (lab[c] != TIDE_CELL_LIQUID) continue;
    const double rr = cell_div(v, fl, c, i, j, k, &ai, plain) - (target ? v->dx * target[c] : 0);
    if (rhs) {
      b[c] = -scale * rr;
      nn++;
      bd |= !isfinite(rr);
      if (v->phi) bp += surface_theta(v, fl, c, i, j, k);
    }
    if (fabs(rr) > dm) dm = fabs(rr);
  }
  *dmax = dm;
  if (rhs) {
    *n += nn;
    *air |= ai;
    *bad |= bd;
    *badphi += bp;
  }
}

/* The open faces of cell c = (i, j, k) (fl: row_faces of (i, j)): bit s set
 * for face s (0/1: low/high along view axis 0, 2/3 axis 1, 4/5 axis 2) when it
 * is interior, has no solid neighbour, is not fixed and has a fraction > 0;
 * nb: the neighbours across the faces. */
PJ_INLINE int open_faces(const pview *v, const int64_t fl[3], int64_t c, int i, int j, int k, int64_t nb[6]) {
  const uint8_t *lab = v->lab;
  const int n2 = v->n2;
  int64_t f[6] = {fl[0] + k, fl[0] + v->s0 + k, fl[1] + k, fl[1] + n2 + k, fl[2] + k, fl[2] + k + 1};
  int in[6] = {i > 0, i < v->n0 - 1, j > 0, j < v->n1 - 1, k > 0, k < n2 - 1};
  int64_t n6[6] = {c - v->s0, c + v->s0, c - n2, c + n2, c - 1, c + 1};
  int open = 0;
  for (int s = v->d3 ? 0 : 2; s < 6; s++) {
    const int a = s / 2;
    nb[s] = n6[s];
    if (!in[s] || lab[n6[s]] == TIDE_CELL_SOLID) continue;
    if (v->fix[a] && v->fix[a][f[s]]) continue;
    if (!v->frac[a] || v->frac[a][f[s]] > 0) open |= 1 << s;
  }
  return open;
}

/* Is liquid cell c = (i, j, k) closed (A_f = 0 on all its faces)? */
static inline int cell_closed(const pview *v, const int64_t fl[3], int64_t c, int i, int j, int k) {
  int64_t nb[6];
  return open_faces(v, fl, c, i, j, k, nb) == 0;
}

/* the closed liquid cells of the liquid rows: their number; made SOLID in out
 * (a copy of the labels) unless NULL */
static int64_t close_cells(const pview *v, const tide_projector *w, int nl, int64_t span, uint8_t *out) {
  int64_t closed = 0;
#pragma omp parallel for schedule(static) reduction(+ : closed) if (span > TIDE_PAR_MIN)
  for (int m = 0; m < nl; m++) {
    const int64_t r = w->lrow[m], c0 = r * v->n2;
    const int i = (int)(r / v->n1), j = (int)(r % v->n1);
    int64_t fl[3];
    row_faces(v, i, j, fl);
    for (int k = w->rk0[r]; k < w->rk1[r]; k++)
      if (v->lab[c0 + k] == TIDE_CELL_LIQUID && cell_closed(v, fl, c0 + k, i, j, k)) {
        closed++;
        if (out) out[c0 + k] = TIDE_CELL_SOLID;
      }
  }
  return closed;
}

/* The liquid components (cells joined by open faces: interior, not fixed, open
 * fraction > 0, no solid side) that have no open face to an air cell, when
 * some other component has one: enclosed by fixed faces and walls, such a
 * component has no pressure level (the air's p = 0 does not reach it) and its
 * fixed fluxes need not balance, so its block of the Poisson matrix is
 * singular and the right-hand side outside its range (a liquid boxed in by
 * the contact faces of a solid, tide.liu).  It is treated as solid for this
 * projection, as a single closed cell is (close_cells): its faces keep their
 * prescribed velocities or get u_s (0).  Returns the number of its cells,
 * made SOLID in out unless NULL; serial flood fill over the liquid rows. */
static int64_t close_enclosed(const pview *v, tide_projector *w, int nl, uint8_t *out) {
  const uint8_t *lab = v->lab;
  const int n2 = v->n2;
  int32_t *comp = w->comp;
  int64_t *q = w->queue, nq = 0, shut = 0, enclosed = 0;
  int opened = 0;
  for (int m = 0; m < nl; m++) {
    const int64_t r = w->lrow[m];
    for (int k = w->rk0[r]; k < w->rk1[r]; k++) comp[r * n2 + k] = -1;
  }
  /* pass 1: flood fill; enclosed components are moved to the front of q */
  int32_t id = 0;
  for (int m = 0; m < nl; m++) {
    const int64_t r = w->lrow[m];
    for (int k0 = w->rk0[r]; k0 < w->rk1[r]; k0++) {
      const int64_t c0 = r * n2 + k0;
      if (lab[c0] != TIDE_CELL_LIQUID || comp[c0] >= 0) continue;
      int64_t head = nq, start = nq;
      int air = 0;
      comp[c0] = id;
      q[nq++] = c0;
      while (head < nq) {
        const int64_t c = q[head++];
        const int i = (int)(c / v->s0), j = (int)((c / n2) % v->n1), k = (int)(c % n2);
        int64_t fl[3];
        row_faces(v, i, j, fl);
        int64_t nb[6];
        const int open = open_faces(v, fl, c, i, j, k, nb);
        for (int s = 0; s < 6; s++) {
          if (!(open >> s & 1)) continue;
          if (lab[nb[s]] == TIDE_CELL_AIR) {
            air = 1;
          } else if (comp[nb[s]] < 0) {
            comp[nb[s]] = id;
            q[nq++] = nb[s];
          }
        }
      }
      id++;
      if (air) {
        opened = 1;
      } else { /* keep the component at the front */
        for (int64_t t = start; t < nq; t++) {
          int64_t c = q[t];
          q[t] = q[enclosed];
          q[enclosed++] = c;
        }
      }
    }
  }
  if (!opened) return 0; /* no air: one pressure level for all (the solver's null space) */
  for (int64_t t = 0; t < enclosed; t++, shut++)
    if (out) out[q[t]] = TIDE_CELL_SOLID;
  return shut;
}

/* ---------------------------------------------------- velocity update */

/* interior faces k0 <= k < k1 of a face row of axis a starting at face f0,
 * between the cells lo + k and hi + k: the projected velocity on open faces
 * with a liquid side, u_s (or 0) on closed ones, fixed faces kept */
PJ_INLINE void faces_update(const pview *v, int a, int64_t f0, int64_t lo, int64_t hi, int k0, int k1,
                                const double *p, double gscale, double tmin, const int plain) {
  const uint8_t *lab = v->lab;
  double *ua = v->u[a] + f0;
  uint8_t *va = v->va[a] ? v->va[a] + f0 : NULL;
  const uint8_t *xa = v->fix[a] ? v->fix[a] + f0 : NULL;
  const double *fa = v->frac[a] ? v->frac[a] + f0 : NULL, *usa = v->us[a] ? v->us[a] + f0 : NULL;
  const double *th = v->th[a] ? v->th[a] + f0 : NULL;
  for (int k = k0; k < k1; k++) {
    if (!plain && xa && xa[k]) { /* prescribed velocity: kept */
      if (va) va[k] = 1;
      continue;
    }
    const int64_t ql = lo + k, qh = hi + k;
    const uint8_t llo = lab[ql], lhi = lab[qh];
    const double af = llo == TIDE_CELL_SOLID || lhi == TIDE_CELL_SOLID ? 0 : !plain && fa ? fa[k] : 1;
    uint8_t ok = 0;
    if (af <= 0) {
      ua[k] = !plain && usa ? usa[k] : 0; /* closed face: the solid's normal velocity */
    } else if (llo == TIDE_CELL_LIQUID && lhi == TIDE_CELL_LIQUID) {
      ua[k] -= gscale * (p[qh] - p[ql]);
      ok = 1;
    } else if (llo == TIDE_CELL_LIQUID || lhi == TIDE_CELL_LIQUID) { /* the other side is air */
      double t = th ? th[k] : 1;
      if (!(t >= tmin)) t = tmin;
      const double plo = llo == TIDE_CELL_LIQUID ? p[ql] : p[qh] * (1 - 1 / t);
      const double phi = lhi == TIDE_CELL_LIQUID ? p[qh] : p[ql] * (1 - 1 / t);
      ua[k] -= gscale * (phi - plo);
      ok = 1;
    }
    if (va) va[k] = ok;
  }
}

/* faces k0 <= k < k1 of a face row (starting at face f0) with no liquid or
 * solid cell on either side: closed where the fraction is 0 or on the domain
 * boundary (boundary = 1), fixed faces kept */
PJ_INLINE void faces_quiet(const pview *v, int a, int64_t f0, int k0, int k1, int boundary) {
  double *ua = v->u[a] + f0;
  uint8_t *va = v->va[a] ? v->va[a] + f0 : NULL;
  const uint8_t *xa = v->fix[a] ? v->fix[a] + f0 : NULL;
  const double *fa = v->frac[a] ? v->frac[a] + f0 : NULL, *usa = v->us[a] ? v->us[a] + f0 : NULL;
  if (va) memset(va + k0, 0, (size_t)(k1 - k0));
  if (boundary) {
    if (usa)
      memcpy(ua + k0, usa + k0, (size_t)(k1 - k0) * sizeof(double));
    else
      memset(ua + k0, 0, (size_t)(k1 - k0) * sizeof(double));
    return;
  }
  if (!fa && !xa) return;
  for (int k = k0; k < k1; k++) {
    if (xa && xa[k]) {
      if (va) va[k] = 1;
    } else if (fa && fa[k] <= 0) {
      ua[k] = usa ? usa[k] : 0;
    }
  }
}

/* face row (i, j) of axis a */
PJ_INLINE void row_update(const pview *v, const tide_projector *w, int a, int i, int j, const double *p,
                              double gscale, double tmin, const int plain) {
  const int n0 = v->n0, n1 = v->n1, n2 = v->n2;
  const int64_t f0 = a == 0   ? ((int64_t)i * n1 + j) * n2
                     : a == 1 ? ((int64_t)i * (n1 + 1) + j) * n2
                              : ((int64_t)i * n1 + j) * (n2 + 1);
  if (a == 0 && (i == 0 || i == n0)) return faces_quiet(v, a, f0, 0, n2, 1);
  if (a == 1 && (j == 0 || j == n1)) return faces_quiet(v, a, f0, 0, n2, 1);
  /* the cell rows on either side */
  const int64_t rhi = (int64_t)i * n1 + j, rlo = a == 0 ? rhi - n1 : a == 1 ? rhi - 1 : rhi;
  const int busy = w->rflag[rhi] | w->rflag[rlo];
  if (a == 2) {
    faces_quiet(v, a, f0, 0, 1, 1);
    faces_quiet(v, a, f0 + n2, 0, 1, 1);
    if (busy)
      faces_update(v, a, f0, rhi * n2 - 1, rhi * n2, 1, n2, p, gscale, tmin, plain);
    else
      faces_quiet(v, a, f0, 1, n2, 0);
    return;
  }
  if (busy)
    faces_update(v, a, f0, rlo * n2, rhi * n2, 0, n2, p, gscale, tmin, plain);
  else
    faces_quiet(v, a, f0, 0, n2, 0);
}

static int solve_pcg(tide_projector *w, const tide_mac_poisson *P, int nullspace, const tide_project_opts *o,
                     double *x, tide_solve_stats *ss) {
  int n = 0, st;
  if ((st = tide_mac_poisson_number(P, w->rowof, &n))) return st;
  if (n > w->nunk_cap) {
    tide_free(w->bb, (size_t)w->nunk_cap * sizeof(double));
    tide_free(w->xx, (size_t)w->nunk_cap * sizeof(double));
    w->nunk_cap = 0;
    w->bb = tide_alloc((size_t)n * sizeof(double));
    w->xx = tide_alloc((size_t)n * sizeof(double));
    if (!w->bb || !w->xx) return TIDE_ENOMEM;
    w->nunk_cap = n;
  }
  tide_csr *A = NULL;
  if ((st = tide_mac_poisson_assemble(P, w->rowof, n, TIDE_CSR_GENERAL, &A))) return st;
  int64_t nc = tide_grid_ncells(&w->grid);
  const int *rowof = w->rowof;
  double *bb = w->bb, *xx = w->xx;
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++)
    if (rowof[c] >= 0) bb[rowof[c]] = w->b[c];
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = o->tol;
  if (o->maxit > 0) so.maxit = o->maxit;
  so.nullspace = nullspace;
  st = tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, bb, xx, &so, ss);
  tide_csr_free(A);
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++) x[c] = rowof[c] >= 0 ? xx[rowof[c]] : 0;
  return st;
}

static int solve_mac(tide_projector *w, const tide_mac_poisson *P, const tide_project_opts *o, double *x,
                     tide_solve_stats *ss) {
  int st, method = o->method == TIDE_PROJECT_MGPCG ? TIDE_MAC_MGPCG : TIDE_MAC_MIC0;
  if (w->mac && w->mac_method != method) {
    tide_mac_solver_free(w->mac);
    w->mac = NULL;
  }
  if (!w->mac) {
    tide_mac_solver_opts mo = tide_mac_solver_opts_default();
    mo.method = method;
    if ((st = tide_mac_solver_new(P, &mo, &w->mac))) return st;
    w->mac_method = method;
  } else if ((st = tide_mac_solver_update(w->mac, P))) {
    return st;
  }
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = o->tol;
  if (o->maxit > 0) so.maxit = o->maxit;
  return tide_mac_solver_solve(w->mac, w->b, x, &so, ss);
}

/* first liquid cell (serial, error path) whose divergence is not finite: names the input */
static int nonfinite_input(const pview *v, const tide_projector *w, int nl) {
  for (int m = 0; m < nl; m++) {
    const int64_t r = w->lrow[m];
    const int i = (int)(r / v->n1), j = (int)(r % v->n1);
    int64_t fl[3];
    row_faces(v, i, j, fl);
    for (int k = w->rk0[r]; k < w->rk1[r]; k++) {
      const int64_t c = r * v->n2 + k;
      if (v->lab[c] != TIDE_CELL_LIQUID) continue;
      int air = 0;
      char name[48];
      if (v->target && !isfinite(v->target[c]))
        return tide_fail(TIDE_ENONFINITE, "target holds non-finite values (at liquid cell %s)",
                         tide_grid_cellname(&w->grid, c, name));
      if (!isfinite(cell_div(v, fl, c, i, j, k, &air, 0)))
        return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values (on a face of liquid cell %s)",
                         tide_grid_cellname(&w->grid, c, name));
    }
  }
  return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
}

/* do arrays a and b share storage? */
static int shares(const tide_array *a, const tide_array *b) { return a && b && a->buf == b->buf; }

int tide_liquid_project(tide_mac *u, const tide_array *labels, const tide_project_opts *o,
                        tide_projector *work, tide_mac *valid, tide_array *pressure,
                        tide_project_stats *stats) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (!(o->dt > 0) || !isfinite(o->dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  if (!(o->rho > 0) || !isfinite(o->rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (o->maxit < 0) return tide_fail(TIDE_EINVAL, "maxit must be >= 0");
  if (o->method < TIDE_PROJECT_PCG || o->method > TIDE_PROJECT_MIC0) return tide_fail(TIDE_EINVAL, "unknown solver method");
  if (!(o->theta_min > 0 && o->theta_min <= 1)) return tide_fail(TIDE_EINVAL, "theta_min must be in (0, 1]");
  if (o->phi && (st = tide_grid_check_cells(g, o->phi, TIDE_F64, "phi"))) return st;
  if (o->fractions) {
    if ((st = tide_mac_check(o->fractions, g, TIDE_F64, "fractions"))) return st;
    for (int a = 0; a < g->dim; a++) {
      const double *fa = TIDE_F64P(o->fractions->u[a]);
      const int64_t nf = tide_array_size(o->fractions->u[a]);
      int64_t out = 0; /* NaN included */
#pragma omp parallel for schedule(static) reduction(+ : out) if (nf > 4 * TIDE_PAR_MIN)
      for (int64_t f = 0; f < nf; f++) out += !(fa[f] >= 0 && fa[f] <= 1);
      if (out) return tide_fail(TIDE_EINVAL, "face fractions must lie in [0, 1]");
    }
  }
  if (o->solid_velocity) {
    if ((st = tide_mac_check(o->solid_velocity, g, TIDE_F64, "solid_velocity"))) return st;
    for (int a = 0; a < g->dim; a++)
      if (tide_array_nonfinite(o->solid_velocity->u[a]))
        return tide_fail(TIDE_ENONFINITE, "solid_velocity holds non-finite values");
  }
  if (o->fixed && (st = tide_mac_check(o->fixed, g, TIDE_U8, "fixed"))) return st;
  if (valid && (st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if (pressure && (st = tide_grid_check_cells(g, pressure, TIDE_F64, "pressure"))) return st;
  if (o->target && (st = tide_grid_check_cells(g, o->target, TIDE_F64, "target"))) return st;
  if (tide_grid_ncells(g) >= INT32_MAX) return tide_fail(TIDE_EINVAL, "grid too large for 32-bit matrix indices");
  tide_projector *w = work;
  if (w && !tide_grid_same(&w->grid, g)) return tide_fail(TIDE_EINVAL, "projector was made for another grid");
  if (!w && (st = tide_projector_new(g, &w))) return st;

  pview v;
  view_make(g, &v);
  v.lab = TIDE_U8P(labels);
  v.target = o->target ? TIDE_F64P(o->target) : NULL;
  for (int a = v.d3 ? 0 : 1; a < 3; a++) {
    const int ga = grid_axis(&v, a);
    v.u[a] = TIDE_F64P(u->u[ga]);
    v.frac[a] = o->fractions ? TIDE_F64P(o->fractions->u[ga]) : NULL;
    v.us[a] = o->solid_velocity ? TIDE_F64P(o->solid_velocity->u[ga]) : NULL;
    v.fix[a] = o->fixed ? TIDE_U8P(o->fixed->u[ga]) : NULL;
    v.va[a] = valid ? TIDE_U8P(valid->u[ga]) : NULL;
  }
  const int plain = !o->fractions && !o->fixed && !o->solid_velocity;
  int nl = 0;
  int64_t span = 0, nc = tide_grid_ncells(g);
  if (scan_rows(w, &v, &nl, &span)) {
    st = tide_fail(TIDE_EINVAL, "labels must be AIR (0), LIQUID (1) or SOLID (2)");
    goto done;
  }
  if (o->fractions || o->fixed) {
    /* a liquid cell all of whose faces are closed has no equation, nor has a
     * component enclosed by fixed faces: treat them as solid (on a private
     * copy of the labels) */
    if (o->fixed && !w->comp) {
      w->comp = tide_alloc((size_t)nc * sizeof(int32_t));
      w->queue = tide_alloc((size_t)nc * sizeof(int64_t));
      if (!w->comp || !w->queue) {
        tide_free(w->comp, (size_t)nc * sizeof(int32_t));
        tide_free(w->queue, (size_t)nc * sizeof(int64_t));
        w->comp = NULL, w->queue = NULL;
        st = TIDE_ENOMEM;
        goto done;
      }
    }
    int64_t enclosed = o->fixed ? close_enclosed(&v, w, nl, NULL) : 0;
    if (enclosed || close_cells(&v, w, nl, span, NULL)) {
      if (!w->lab2 && !(w->lab2 = tide_alloc((size_t)nc))) {
        st = TIDE_ENOMEM;
        goto done;
      }
      uint8_t *lab2 = w->lab2;
      memcpy(lab2, v.lab, (size_t)nc);
      close_cells(&v, w, nl, span, lab2);
      if (enclosed) close_enclosed(&v, w, nl, lab2); /* reads v.lab, the labels before */
      v.lab = lab2;
      scan_rows(w, &v, &nl, &span);
    }
  }
  tide_mac_poisson P = tide_mac_poisson_make(g, v.lab);
  P.theta_min = o->theta_min;
  /* labels checked by scan_rows, fractions in [0, 1] above, theta computed
   * from finite phi (1 initially): the solvers need not scan them again */
  P.checked = 1;
  for (int a = 0; a < g->dim; a++) P.weight[a] = o->fractions ? TIDE_F64P(o->fractions->u[a]) : NULL;
  if (o->fixed) /* fixed faces are closed for the pressure */
    for (int a = 0; a < g->dim; a++) {
      if (!w->wfix[a] && !(w->wfix[a] = tide_alloc((size_t)w->nface[a] * sizeof(double)))) {
        st = TIDE_ENOMEM;
        goto done;
      }
      double *wf = w->wfix[a];
      const double *fa = P.weight[a];
      const uint8_t *xa = TIDE_U8P(o->fixed->u[a]);
      int64_t nf = w->nface[a];
#pragma omp parallel for schedule(static) if (nf > TIDE_PAR_MIN)
      for (int64_t f = 0; f < nf; f++) wf[f] = xa[f] ? 0 : fa ? fa[f] : 1;
      P.weight[a] = wf;
    }
  if (o->phi) {
    v.phi = TIDE_F64P(o->phi);
    for (int a = 0; a < g->dim; a++) P.theta[a] = w->theta[a];
    for (int a = v.d3 ? 0 : 1; a < 3; a++) v.th[a] = w->theta[grid_axis(&v, a)];
  }
  const double scale = o->rho / (o->dt * g->dx);
  double *b = w->b;

  /* right-hand side -rho/dt (div_A u* - d), the largest divergence and the
   * ghost-fluid theta */
  int air = 0;
  double dmax = 0;
  int64_t n = 0, badphi = 0;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : air, bad) reduction(max : dmax) reduction(+ : n, badphi) \
    if (span > TIDE_PAR_MIN)
  for (int m = 0; m < nl; m++) {
    if (plain)
      row_cells(&v, w, w->lrow[m], scale, b, &dmax, &n, &air, &bad, &badphi, 1, 1);
    else
      row_cells(&v, w, w->lrow[m], scale, b, &dmax, &n, &air, &bad, &badphi, 1, 0);
  }
  if (badphi) {
    st = tide_fail(TIDE_ENONFINITE, "phi holds non-finite values at the liquid surface");
    goto done;
  }
  if (bad) {
    st = nonfinite_input(&v, w, nl);
    goto done;
  }
  memset(stats, 0, sizeof *stats);
  stats->unknowns = n;
  stats->div_before = dmax / g->dx;
  /* the solution goes straight into the pressure output unless that shares
   * storage with an input */
  int direct = pressure && !shares(pressure, labels) && !shares(pressure, o->phi) &&
               !shares(pressure, o->target);
  for (int a = 0; direct && a < g->dim; a++)
    direct = !shares(pressure, u->u[a]) && !(o->fractions && shares(pressure, o->fractions->u[a])) &&
             !(o->solid_velocity && shares(pressure, o->solid_velocity->u[a]));
  double *x = direct ? TIDE_F64P(pressure) : w->x;
  tide_solve_stats ss = {0};
  if (n > 0) {
    st = o->method == TIDE_PROJECT_PCG ? solve_pcg(w, &P, !air, o, x, &ss) : solve_mac(w, &P, o, x, &ss);
    stats->iterations = ss.iterations;
    stats->residual = ss.residual;
    if (st) goto done;
  } else {
    memset(x, 0, (size_t)nc * sizeof(double));
  }

  /* velocity update on every face with a liquid side; closed faces get u_s
   * (or 0); face rows away from liquid and solid cells only see their
   * boundary, zero-fraction and fixed faces */
  const double tmin = o->theta_min, gscale = o->dt / (o->rho * g->dx);
#pragma omp parallel if (nc > TIDE_PAR_MIN)
  for (int a = v.d3 ? 0 : 1; a < 3; a++) {
    const int d0 = v.n0 + (a == 0), d1 = v.n1 + (a == 1);
#pragma omp for schedule(static, 8) nowait
    for (int64_t r = 0; r < (int64_t)d0 * d1; r++) {
      if (plain)
        row_update(&v, w, a, (int)(r / d1), (int)(r % d1), x, gscale, tmin, 1);
      else
        row_update(&v, w, a, (int)(r / d1), (int)(r % d1), x, gscale, tmin, 0);
    }
  }

  /* divergence left in the liquid, and the pressure in Pa */
  dmax = 0;
#pragma omp parallel for schedule(static) reduction(max : dmax) if (span > TIDE_PAR_MIN)
  for (int m = 0; m < nl; m++)
    if (plain)
      row_cells(&v, w, w->lrow[m], 0, NULL, &dmax, NULL, NULL, NULL, NULL, 0, 1);
    else
      row_cells(&v, w, w->lrow[m], 0, NULL, &dmax, NULL, NULL, NULL, NULL, 0, 0);
  stats->div_after = dmax / g->dx;
  if (pressure && !direct) memcpy(TIDE_F64P(pressure), x, (size_t)nc * sizeof(double));
  st = TIDE_OK;

done:
  if (w != work) tide_projector_free(w);
  return st;
}

/* is liquid cell q of the label array next to an air cell? */
static inline int at_surface(const uint8_t *lab, int64_t q, int nd, const int64_t ext[3], const int64_t stride[3]) {
  int64_t idx[3] = {q / stride[0], (q / stride[1]) % ext[1], q % ext[2]};
  for (int a = 0; a < nd; a++) {
    if (idx[a] > 0 && lab[q - stride[a]] == TIDE_CELL_AIR) return 1;
    if (idx[a] + 1 < ext[a] && lab[q + stride[a]] == TIDE_CELL_AIR) return 1;
  }
  return 0;
}

/* cut cells more closed than this are left out of the density correction
 * (their few particles' density is noise) */
#define TIDE_DENSITY_MIN_OPEN 0.25

/* open volume of cell idx: the mean of its 2 dim face fractions (1 uncut; < 1 cut) */
static double cell_open(const tide_mac *fractions, const int64_t idx[3], int nd) {
  const tide_grid *fg = &fractions->grid;
  double s = 0;
  int cut = 0;
  for (int a = 0; a < nd; a++) {
    int f[3] = {(int)idx[0], (int)idx[1], (int)idx[2]};
    const double *fr = TIDE_F64P(fractions->u[a]);
    double lo = fr[tide_grid_fidx(fg, a, f[0], f[1], f[2])];
    f[a] += 1;
    double hi = fr[tide_grid_fidx(fg, a, f[0], f[1], f[2])];
    s += lo + hi;
    cut |= lo < 1 || hi < 1;
  }
  return cut ? s / (2 * nd) : 1;
}

/* samples per cell and axis of the density kernel's open volume */
#define TIDE_DENSITY_KERNEL_SAMPLES 4

/* solid_phi (f64 cells, the solids' signed distance at the cell centres, < 0 inside)
 * multilinear at the point x in cell units (cell centres at integers), clamped to the grid */
static double phi_at(const double *phi, int nd, const int64_t ext[3], const int64_t stride[3], const double x[3]) {
  int64_t b[3] = {0, 0, 0};
  double t[3] = {0, 0, 0};
  for (int a = 0; a < nd; a++) {
    double s = x[a] < 0 ? 0 : x[a] > (double)(ext[a] - 1) ? (double)(ext[a] - 1) : x[a];
    b[a] = ext[a] > 1 ? (int64_t)s : 0;
    if (b[a] > ext[a] - 2) b[a] = ext[a] > 1 ? ext[a] - 2 : 0;
    t[a] = ext[a] > 1 ? s - (double)b[a] : 0;
  }
  double v = 0;
  for (int c0 = 0; c0 < 2; c0++)
    for (int c1 = 0; c1 < 2; c1++)
      for (int c2 = 0; c2 < (nd == 3 ? 2 : 1); c2++) {
        double w = (c0 ? t[0] : 1 - t[0]) * (c1 ? t[1] : 1 - t[1]) * (nd == 3 ? (c2 ? t[2] : 1 - t[2]) : 1);
        if (w == 0) continue;
        v += w * phi[(b[0] + c0) * stride[0] + (b[1] + c1) * stride[1] + b[2] + c2];
      }
  return v;
}

/* The density kernel's open volume K of cell idx: its tent kernel (the weight
 * tide_liquid_density gives a particle) integrated over the open region
 * (solid_phi > 0), by TIDE_DENSITY_KERNEL_SAMPLES^dim samples per cell of its
 * support; K = 1 where the kernel sees no solid, and the particle density of a
 * uniformly filled open region is per_cell K.  The support beyond the domain
 * folds back into the cell (the density's lattice clamps there): those samples
 * count as open or not with the cell's centre. */
static double kernel_open(const double *phi, int nd, const int64_t ext[3], const int64_t stride[3], const int64_t idx[3]) {
  const int m = 2 * TIDE_DENSITY_KERNEL_SAMPLES;
  const double h = 1.0 / TIDE_DENSITY_KERNEL_SAMPLES;
  const int own = phi[idx[0] * stride[0] + idx[1] * stride[1] + idx[2]] > 0;
  /* the samples interpolate the 3^dim centres around: all open -> K = 1 */
  int closed = !own;
  for (int a = -1; a <= 1 && !closed; a++)
    for (int b = -1; b <= 1 && !closed; b++)
      for (int c = (nd == 3 ? -1 : 0); c <= (nd == 3 ? 1 : 0) && !closed; c++) {
        int64_t i = idx[0] + a, j = idx[1] + b, l = idx[2] + c;
        if (i < 0 || j < 0 || l < 0 || i >= ext[0] || j >= ext[1] || l >= ext[2]) continue;
        closed = !(phi[i * stride[0] + j * stride[1] + l] > 0);
      }
  if (!closed) return 1;
  double k = 0, wsum = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++)
      for (int l = 0; l < (nd == 3 ? m : 1); l++) {
        const double o[3] = {-1 + (i + 0.5) * h, -1 + (j + 0.5) * h, nd == 3 ? -1 + (l + 0.5) * h : 0};
        double w = 1, x[3] = {0, 0, 0};
        int inside = 1;
        for (int a = 0; a < nd; a++) {
          w *= 1 - fabs(o[a]);
          x[a] = (double)idx[a] + o[a];
          inside &= x[a] >= -0.5 && x[a] <= (double)ext[a] - 0.5;
        }
        wsum += w;
        if (inside ? phi_at(phi, nd, ext, stride, x) > 0 : own) k += w;
      }
  return k / wsum;
}

int tide_liquid_density_target(const tide_array *rho, const tide_array *labels,
                               const tide_mac *fractions, double per_cell, double band, double rate,
                               int mean, int cut, const tide_array *solid_phi, tide_array *out,
                               double *mean_density) {
  int st;
  if (fractions) {
    if ((st = tide_mac_check(fractions, NULL, TIDE_F64, "fractions"))) return st;
    const tide_grid *fg = &fractions->grid;
    if (fg->dim != labels->ndim || fg->n[0] != labels->shape[0] || fg->n[1] != labels->shape[1] ||
        (fg->dim == 3 && fg->n[2] != labels->shape[2]))
      return tide_fail(TIDE_EINVAL, "fractions live on a grid of other extents than labels");
  }
  if ((st = tide_array_expect(labels, "labels", TIDE_U8, labels->ndim, labels->shape))) return st;
  if ((st = tide_array_expect(rho, "rho", TIDE_F64, labels->ndim, labels->shape))) return st;
  if ((st = tide_array_expect(out, "out", TIDE_F64, labels->ndim, labels->shape))) return st;
  if (cut == TIDE_DENSITY_CUT_KERNEL) {
    if (!solid_phi || !fractions) return tide_fail(TIDE_EINVAL, "cut = kernel needs fractions and solid_phi");
    if ((st = tide_array_expect(solid_phi, "solid_phi", TIDE_F64, labels->ndim, labels->shape))) return st;
  }
  const double *sphi = solid_phi && cut == TIDE_DENSITY_CUT_KERNEL ? TIDE_F64P(solid_phi) : NULL;
  if (!(per_cell > 0) || !isfinite(per_cell)) return tide_fail(TIDE_EINVAL, "per_cell must be positive");
  if (!(band >= 0) || !isfinite(band)) return tide_fail(TIDE_EINVAL, "band must be >= 0 and finite");
  if (!(rate >= 0) || !isfinite(rate)) return tide_fail(TIDE_EINVAL, "rate must be >= 0 and finite");
  const double *r = TIDE_F64P(rho);
  const uint8_t *lab = TIDE_U8P(labels);
  double *d = TIDE_F64P(out);
  int64_t n = tide_array_size(out);
  int nd = labels->ndim;
  int64_t ext[3] = {labels->shape[0], labels->shape[1], nd == 3 ? labels->shape[2] : 1};
  int64_t stride[3] = {ext[1] * ext[2], ext[2], 1};
  /* interior liquid cells (no air face neighbour): d = 1; deep ones (no air
   * cell in the whole 3^dim block around): d = 2 */
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t q = 0; q < n; q++) {
    d[q] = 0;
    if (lab[q] != TIDE_CELL_LIQUID || at_surface(lab, q, nd, ext, stride)) continue;
    int64_t idx[3] = {q / stride[0], (q / stride[1]) % ext[1], q % ext[2]};
    if (fractions && cell_open(fractions, idx, nd) < 1) { /* a cut cell: its open volume holds fewer particles */
      if (cut) d[q] = 1; /* corrected against its open volume (below), not in the mean */
      continue;
    }
    int deep = 1;
    for (int a = -1; a <= 1 && deep; a++)
      for (int b = -1; b <= 1 && deep; b++)
        for (int c = (nd == 3 ? -1 : 0); c <= (nd == 3 ? 1 : 0) && deep; c++) {
          int64_t i = idx[0] + a, j = idx[1] + b, k = idx[2] + c;
          if (i < 0 || j < 0 || k < 0 || i >= ext[0] || j >= ext[1] || k >= ext[2]) continue;
          if (lab[i * stride[0] + j * stride[1] + k] == TIDE_CELL_AIR) deep = 0;
        }
    d[q] = deep ? 2 : 1;
  }
  /* mean density of the deep interior: sum over d == 2 of rho (kernel: rho / K, the uncut
   * cells next to a cut one see the solid too) */
  double cnt = 0, sum = 0;
  for (int64_t q = 0; q < n; q++)
    if (d[q] == 2) {
      int64_t idx[3] = {q / stride[0], (q / stride[1]) % ext[1], q % ext[2]};
      double k = sphi ? kernel_open(sphi, nd, ext, stride, idx) : 1;
      cnt += 1, sum += k > 0 ? r[q] / k : r[q];
    }
  double avg = cnt > 0 ? sum / (cnt * per_cell) : 1;
  if (mean_density) *mean_density = avg;
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t q = 0; q < n; q++) {
    if (!(d[q] > 0)) continue;
    double open = 1, norm = 1; /* the cell's open volume V (its flux) and the density's normalization */
    if (cut && fractions) {
      int64_t idx[3] = {q / stride[0], (q / stride[1]) % ext[1], q % ext[2]};
      open = cell_open(fractions, idx, nd);
      norm = sphi ? kernel_open(sphi, nd, ext, stride, idx) : open;
    }
    /* "open": cells more closed than TIDE_DENSITY_MIN_OPEN left out; "kernel": no threshold,
     * the target vanishes with V (a closed cell has no flux to give) */
    if (cut == TIDE_DENSITY_CUT_KERNEL ? !(open > 0 && norm > 0) : !(open >= TIDE_DENSITY_MIN_OPEN)) { d[q] = 0; continue; }
    /* a cut cell's particles against its expected density; the target flux scales with its open volume */
    double ex = (mean && norm == 1 ? avg : r[q] / (per_cell * norm)) - 1, over = fabs(ex) - band;
    d[q] = over > 0 ? open * rate * copysign(over, ex) : 0;
  }
  return TIDE_OK;
}

int tide_liquid_divergence(const tide_mac *u, const tide_array *labels, const tide_mac *fractions,
                           const tide_mac *solid_velocity, tide_array *out) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if ((st = tide_grid_check_cells(g, out, TIDE_F64, "out"))) return st;
  if (fractions && (st = tide_mac_check(fractions, g, TIDE_F64, "fractions"))) return st;
  if (solid_velocity && (st = tide_mac_check(solid_velocity, g, TIDE_F64, "solid_velocity"))) return st;
  for (int a = 0; a < g->dim; a++)
    if (out->buf == u->u[a]->buf || (fractions && out->buf == fractions->u[a]->buf) ||
        (solid_velocity && out->buf == solid_velocity->u[a]->buf))
      return tide_fail(TIDE_EINVAL, "out must not share memory with the inputs");
  if (out->buf == labels->buf) return tide_fail(TIDE_EINVAL, "out must not share memory with the inputs");
  pview v;
  view_make(g, &v);
  v.lab = TIDE_U8P(labels);
  for (int a = v.d3 ? 0 : 1; a < 3; a++) {
    const int ga = grid_axis(&v, a);
    v.u[a] = TIDE_F64P(u->u[ga]); /* read only */
    v.frac[a] = fractions ? TIDE_F64P(fractions->u[ga]) : NULL;
    v.us[a] = solid_velocity ? TIDE_F64P(solid_velocity->u[ga]) : NULL;
  }
  double *o = TIDE_F64P(out);
  const int64_t nr = (int64_t)v.n0 * v.n1, nc = tide_grid_ncells(g);
  int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad) if (nc > TIDE_PAR_MIN)
  for (int64_t r = 0; r < nr; r++) {
    const int i = (int)(r / v.n1), j = (int)(r % v.n1);
    int64_t fl[3];
    row_faces(&v, i, j, fl);
    for (int k = 0; k < v.n2; k++) {
      const int64_t c = r * v.n2 + k;
      const uint8_t l = v.lab[c];
      bad += l > TIDE_CELL_SOLID;
      int air = 0;
      o[c] = l == TIDE_CELL_LIQUID ? cell_div(&v, fl, c, i, j, k, &air, 0) / v.dx : 0;
      bad += !isfinite(o[c]) << 20;
    }
  }
  if (bad >= (1 << 20)) return tide_fail(TIDE_ENONFINITE, "non-finite velocity, fraction or solid velocity on a face of a liquid cell");
  if (bad) return tide_fail(TIDE_EINVAL, "labels must be AIR (0), LIQUID (1) or SOLID (2)");
  return TIDE_OK;
}
