/* zarifi_ops.c -- the ghost-fluid face gradient G of the coupled
 * projection's velocity update (Zarifi Eq. 4.31, 4.35-4.37, 4.44) as a sparse
 * matrix from the liquid cells to all faces, and applied face by face without
 * forming it for the velocity update (see zarifi.h).  The divergence
 * E is tide_liquid_divergence (liquid/project.h). */
#include "couple/zarifi.h"
#include "linalg/mac_poisson.h"

#include <math.h>
#include <string.h>

int64_t tide_zarifi_nfaces(const tide_grid *g) {
  int64_t n = 0;
  for (int a = 0; a < g->dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a, d);
    n += (int64_t)d[0] * d[1] * d[2];
  }
  return n;
}

static void face_offsets(const tide_grid *g, int64_t off[3]) {
  off[0] = off[1] = off[2] = 0;
  for (int a = 1; a < g->dim; a++) {
    int d[3];
    tide_grid_face_dims(g, a - 1, d);
    off[a] = off[a - 1] + (int64_t)d[0] * d[1] * d[2];
  }
}

/* copy between the face arrays of u and one vector (dir 0: gather) */
static int face_copy(tide_mac *u, double *vec, int dir) {
  int64_t off[3];
  face_offsets(&u->grid, off);
  for (int a = 0; a < u->grid.dim; a++) {
    if (u->u[a]->dtype != TIDE_F64) return tide_fail(TIDE_EINVAL, "MAC field must be f64");
    int64_t n = tide_array_size(u->u[a]);
    double *s = TIDE_F64P(u->u[a]), *v = vec + off[a];
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t f = 0; f < n; f++) {
      if (dir)
        s[f] = v[f];
      else
        v[f] = s[f];
    }
  }
  return TIDE_OK;
}

int tide_zarifi_gather(const tide_mac *u, double *out) { return face_copy((tide_mac *)u, out, 0); }

int tide_zarifi_scatter(const double *in, tide_mac *u) { return face_copy(u, (double *)in, 1); }

/* the gradient row of face (a; i, j, k): its liquid cells' rows c[] (ascending) and entries v[];
 * returns their count (0: the face is closed or has no liquid side) */
static int gradient_row(const tide_grid *g, const uint8_t *labels, const int *rowof, int a, int i,
                        int j, int k, const double *const fractions[3],
                        const double *const theta[3], double theta_min, int c[2], double v[2]) {
  double dx = g->dx;
  int hi[3] = {i, j, k}, lo[3] = {i, j, k};
  lo[a] -= 1;
  if (lo[a] < 0 || hi[a] >= g->n[a]) return 0;
  int64_t cl = tide_grid_idx(g, lo[0], lo[1], lo[2]);
  int64_t ch = tide_grid_idx(g, hi[0], hi[1], hi[2]);
  uint8_t ll = labels[cl], lh = labels[ch];
  if (ll == TIDE_CELL_SOLID || lh == TIDE_CELL_SOLID) return 0;
  if (ll != TIDE_CELL_LIQUID && lh != TIDE_CELL_LIQUID) return 0;
  int64_t f = tide_grid_fidx(g, a, i, j, k);
  double w = fractions && fractions[a] ? fractions[a][f] : 1.0;
  if (!(w > 0)) return 0;
  if (ll == TIDE_CELL_LIQUID && lh == TIDE_CELL_LIQUID) {
    int q = rowof[cl] > rowof[ch]; /* columns ascending */
    c[q] = rowof[cl], v[q] = -1 / dx;
    c[1 - q] = rowof[ch], v[1 - q] = 1 / dx;
    return 2;
  }
  double th = theta && theta[a] ? theta[a][f] : 1.0;
  if (!(th >= theta_min)) th = theta_min;
  if (ll == TIDE_CELL_LIQUID)
    c[0] = rowof[cl], v[0] = -1 / (th * dx);
  else
    c[0] = rowof[ch], v[0] = 1 / (th * dx);
  return 1;
}

/* Whether the liquid cell ci owns its face on `side` (0: below, 1: above) along axis a -- each
 * face next to a liquid cell is owned by exactly one: the cell below it, or the cell above when
 * the one below is not liquid (or outside) -- and that face's index triple f3. */
static int owned_face(const tide_grid *g, const uint8_t *labels, const int ci[3], int a, int side,
                      int f3[3]) {
  f3[0] = ci[0], f3[1] = ci[1], f3[2] = ci[2];
  f3[a] += side;
  if (side || ci[a] == 0) return 1;
  int lo3[3] = {ci[0], ci[1], ci[2]};
  lo3[a] -= 1;
  return labels[tide_grid_idx(g, lo3[0], lo3[1], lo3[2])] != TIDE_CELL_LIQUID;
}

/* The gradient rows of the faces cell (i, j, k) = ci owns (owned_face; none unless it is liquid):
 * axis, index in the axis's face array, and the row (m entries, 0: closed); returns how many (at
 * most 2 dim).  The callers sweep the cells as (i, j) slabs of k lines (CELL_SWEEP). */
typedef struct {
  int a, m, c[2];
  int64_t f;
  double v[2];
} cell_row;

static int cell_rows(const tide_grid *g, const uint8_t *labels, const int *rowof, const int ci[3],
                     int64_t cell, const double *const fractions[3], const double *const theta[3],
                     double theta_min, cell_row out[6]) {
  if (labels[cell] != TIDE_CELL_LIQUID) return 0;
  int k = 0;
  for (int a = 0; a < g->dim; a++)
    for (int side = 0; side < 2; side++) {
      int f3[3];
      if (!owned_face(g, labels, ci, a, side, f3)) continue;
      cell_row *r = &out[k++];
      r->a = a;
      r->f = tide_grid_fidx(g, a, f3[0], f3[1], f3[2]);
      r->m = gradient_row(g, labels, rowof, a, f3[0], f3[1], f3[2], fractions, theta, theta_min,
                          r->c, r->v);
    }
  return k;
}

/* for every cell of g in index order, on all threads, with ci = its (i, j, k) and cell its index
 * (the (i, j) lines side by side, k inner: no divisions) */
#define CELL_SWEEP(g, ...)                                                                         \
  do {                                                                                             \
    const int n0_ = (g)->n[0], n1_ = (g)->n[1], n2_ = (g)->n[2];                                   \
    _Pragma("omp parallel for schedule(static) collapse(2) if (tide_grid_ncells(g) > 65536)")      \
    for (int i_ = 0; i_ < n0_; i_++)                                                               \
      for (int j_ = 0; j_ < n1_; j_++) {                                                           \
        int ci[3] = {i_, j_, 0};                                                                   \
        int64_t cell = ((int64_t)i_ * n1_ + j_) * n2_;                                             \
        for (; ci[2] < n2_; ci[2]++, cell++) {                                                     \
          __VA_ARGS__                                                                              \
        }                                                                                          \
      }                                                                                            \
  } while (0)

int tide_zarifi_gradient(const tide_grid *g, const uint8_t *labels, const int *rowof, int nl,
                         const double *const fractions[3], const double *const theta[3],
                         double theta_min, tide_csr **G) {
  *G = NULL;
  int64_t nf = tide_zarifi_nfaces(g), nc = tide_grid_ncells(g);
  if (nf > INT32_MAX || nc > INT32_MAX)
    return tide_fail(TIDE_EINVAL, "zarifi gradient: grid too large for 32-bit indices");
  if (!(theta_min > 0)) theta_min = TIDE_MAC_THETA_MIN;
  int64_t off[3];
  face_offsets(g, off);
  /* one row per face in face order, with an entry per liquid side of an open face: counted,
   * then written.  Only a face next to a liquid cell has entries, so the faces are reached from
   * the liquid cells (in parallel; the rows are independent): each once, from the cell below it
   * along its axis, or from the cell above when the one below is not liquid (or outside); the
   * other faces' rows stay empty.  The small-liquid scenes touch thousands of faces, not 3M. */
  int *cnt = tide_calloc((size_t)(nf + 1) * sizeof(int));
  if (!cnt) return tide_fail(TIDE_ENOMEM, "zarifi gradient: out of memory");
  for (int pass = 0; pass < 2; pass++) {
    tide_csr *A = *G;
    CELL_SWEEP(g, {
      cell_row rows[6];
      int nr = cell_rows(g, labels, rowof, ci, cell, fractions, theta, theta_min, rows);
      for (int k = 0; k < nr; k++) {
        const cell_row *r = &rows[k];
        int64_t row = off[r->a] + r->f;
        if (!pass) {
          cnt[row + 1] = r->m;
        } else {
          for (int q = 0; q < r->m; q++) {
            A->col[A->rowptr[row] + q] = r->c[q];
            A->val[A->rowptr[row] + q] = r->v[q];
          }
        }
      }
    });
    if (!pass) {
      int64_t nnz = 0;
      for (int64_t f = 0; f < nf; f++)
        nnz += cnt[f + 1];
      int s = tide_csr_new((int)nf, nl, nnz, G);
      if (s) {
        tide_free(cnt, (size_t)(nf + 1) * sizeof(int));
        return s;
      }
      for (int64_t f = 0; f < nf; f++)
        (*G)->rowptr[f + 1] = (*G)->rowptr[f] + cnt[f + 1];
    }
  }
  tide_free(cnt, (size_t)(nf + 1) * sizeof(int));
  int s = tide_csr_finish(*G);
  if (s) {
    tide_csr_free(*G);
    *G = NULL;
  }
  return s;
}

int tide_zarifi_gradient_apply(const tide_grid *g, const uint8_t *labels, const int *rowof,
                               const double *const fractions[3], const double *const theta[3],
                               double theta_min, const double *p, double c, tide_mac *u,
                               tide_mac *valid) {
  int s;
  if ((s = tide_mac_check(u, g, TIDE_F64, "u"))) return s;
  if (valid && (s = tide_mac_check(valid, g, TIDE_U8, "valid"))) return s;
  if (!(theta_min > 0)) theta_min = TIDE_MAC_THETA_MIN;
  const int d = g->dim;
  double *ua[3] = {NULL, NULL, NULL};
  uint8_t *vm[3] = {NULL, NULL, NULL};
  for (int a = 0; a < d; a++) {
    ua[a] = TIDE_F64P(u->u[a]);
    if (valid) {
      vm[a] = TIDE_U8P(valid->u[a]);
      memset(vm[a], 0, (size_t)tide_array_size(valid->u[a]));
    }
  }
  /* only a face next to a liquid cell has a row: the faces reached from the liquid cells, each
   * from its owner (owned_face, as tide_zarifi_gradient reaches them), the cells in parallel */
  CELL_SWEEP(g, {
    cell_row rows[6];
    int nr = cell_rows(g, labels, rowof, ci, cell, fractions, theta, theta_min, rows);
    for (int k = 0; k < nr; k++) {
      const cell_row *r = &rows[k];
      if (!r->m) continue;
      double gp = 0;
      for (int q = 0; q < r->m; q++)
        gp += r->v[q] * p[r->c[q]];
      ua[r->a][r->f] -= c * gp;
      if (vm[r->a]) vm[r->a][r->f] = 1;
    }
  });
  return TIDE_OK;
}

/* barycentric coordinates lam[0..d] of point p in the simplex xs[0..d] (rows of
 * d coordinates); 0 if the simplex is degenerate */
static int simplex_bary(int d, const double xs[4][3], const double p[3], double lam[4]) {
  double D[3][3], r[3];
  for (int a = 0; a < d; a++) {
    for (int b = 0; b < d; b++)
      D[a][b] = xs[b + 1][a] - xs[0][a];
    r[a] = p[a] - xs[0][a];
  }
  double det;
  if (d == 2) {
    det = D[0][0] * D[1][1] - D[0][1] * D[1][0];
    if (!(fabs(det) > 0)) return 0;
    lam[1] = (r[0] * D[1][1] - D[0][1] * r[1]) / det;
    lam[2] = (D[0][0] * r[1] - r[0] * D[1][0]) / det;
    lam[0] = 1 - lam[1] - lam[2];
    return 1;
  }
  double c00 = D[1][1] * D[2][2] - D[1][2] * D[2][1], c01 = D[1][2] * D[2][0] - D[1][0] * D[2][2],
         c02 = D[1][0] * D[2][1] - D[1][1] * D[2][0];
  det = D[0][0] * c00 + D[0][1] * c01 + D[0][2] * c02;
  if (!(fabs(det) > 0)) return 0;
  /* Cramer's rule: column b of D replaced by r */
  for (int b = 0; b < 3; b++) {
    double M[3][3];
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 3; c++)
        M[a][c] = c == b ? r[a] : D[a][c];
    lam[b + 1] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                  M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                  M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
                 det;
  }
  lam[0] = 1 - lam[1] - lam[2] - lam[3];
  return 1;
}

int tide_zarifi_solid_faces(tide_mac *u, const tide_mac *fractions, tide_tetmesh *const *solids,
                            int ns, int layers, int64_t *count) {
  int st;
  if (count) *count = 0;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "u"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = tide_mac_check(fractions, g, TIDE_F64, "fractions"))) return st;
  if (layers < 0) return tide_fail(TIDE_EINVAL, "layers must be >= 0");
  const int d = g->dim;
  for (int s = 0; s < ns; s++) {
    const tide_tetmesh *m = solids[s];
    if (m->dim != d)
      return tide_fail(TIDE_EINVAL, "solids[%d] is %dD, the grid %dD", s + 1, m->dim, d);
    if (m->nper != d + 1) return tide_fail(TIDE_EINVAL, "solids[%d] is not a volume mesh", s + 1);
    if (tide_array_nonfinite(m->x) || tide_array_nonfinite(m->v))
      return tide_fail(TIDE_ENONFINITE, "solids[%d] holds non-finite positions or velocities",
                       s + 1);
  }
  tide_mac *us = NULL, *mask = NULL;
  if ((st = tide_mac_new(g, TIDE_F64, &us)) || (st = tide_mac_new(g, TIDE_U8, &mask))) {
    tide_mac_free(us);
    return st;
  }
  const double dx = g->dx;
  /* 1. rasterize: faces whose centre lies in an element get the element's linear velocity
   * (the first element in solid and element order wins: deterministic) */
  for (int s = 0; s < ns; s++) {
    const tide_tetmesh *m = solids[s];
    const double *x = TIDE_F64P(m->x), *v = TIDE_F64P(m->v);
    const int32_t *el = TIDE_I32P(m->elem);
    for (int64_t e = 0; e < m->ne; e++) {
      double xs[4][3] = {{0}}, vs[4][3] = {{0}}, lo[3] = {0}, hi[3] = {0};
      for (int q = 0; q <= d; q++) {
        int64_t nd = el[e * (d + 1) + q];
        for (int a = 0; a < d; a++) {
          xs[q][a] = x[nd * d + a], vs[q][a] = v[nd * d + a];
          lo[a] = q ? fmin(lo[a], xs[q][a]) : xs[q][a];
          hi[a] = q ? fmax(hi[a], xs[q][a]) : xs[q][a];
        }
      }
      for (int a = 0; a < d; a++) {
        int fd[3], r0[3] = {0, 0, 0}, r1[3] = {0, 0, 0};
        tide_grid_face_dims(g, a, fd);
        for (int b = 0; b < d; b++) { /* face centre: origin + (i, j + 1/2, k + 1/2) dx along a */
          double off = b == a ? 0 : 0.5;
          r0[b] = (int)fmax(0, ceil((lo[b] - g->origin[b]) / dx - off - 1e-9));
          r1[b] = (int)fmin(fd[b] - 1, floor((hi[b] - g->origin[b]) / dx - off + 1e-9));
        }
        uint8_t *mk = TIDE_U8P(mask->u[a]);
        double *uo = TIDE_F64P(us->u[a]);
        for (int i = r0[0]; i <= r1[0]; i++)
          for (int j = r0[1]; j <= r1[1]; j++)
            for (int k = r0[2]; k <= r1[2]; k++) {
              int64_t f = tide_grid_fidx(g, a, i, j, k);
              if (mk[f]) continue;
              int idx[3] = {i, j, k};
              double p[3] = {0}, lam[4];
              for (int b = 0; b < d; b++)
                p[b] = g->origin[b] + (idx[b] + (b == a ? 0 : 0.5)) * dx;
              if (!simplex_bary(d, xs, p, lam)) continue;
              int in = 1;
              for (int q = 0; q <= d; q++)
                in &= lam[q] >= -1e-12;
              if (!in) continue;
              double val = 0;
              for (int q = 0; q <= d; q++)
                val += lam[q] * vs[q][a];
              uo[f] = val;
              mk[f] = 1;
            }
      }
    }
  }
  /* 2. extended a few faces outwards: closed faces just outside the mesh (fractions clamped
   * to 0 next to its boundary) */
  st = tide_mac_extrapolate(us, mask, layers, 1);
  /* 3. closed faces (open fraction 0) that hold a solid velocity take it; the domain's
   * boundary faces stay as they are (walls) */
  int64_t cnt = 0;
  for (int a = 0; a < d && !st; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    const double *fr = TIDE_F64P(fractions->u[a]), *uo = TIDE_F64P(us->u[a]);
    const uint8_t *mk = TIDE_U8P(mask->u[a]);
    double *uu = TIDE_F64P(u->u[a]);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int idx[3] = {i, j, k};
          if (idx[a] == 0 || idx[a] == fd[a] - 1) continue;
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          if (fr[f] == 0 && mk[f]) uu[f] = uo[f], cnt++;
        }
  }
  tide_mac_free(us);
  tide_mac_free(mask);
  if (count) *count = cnt;
  return st;
}

int tide_zarifi_flip_increment(const tide_mac *u, const tide_mac *u_old, const tide_mac *valid,
                               const tide_mac *fractions, const tide_mac *weights, double per_cell,
                               double cap, double dt, const double gravity[3],
                               const tide_array *labels, const tide_array *phi, double theta_min,
                               const tide_mac *reference, double solid_mass, double rho,
                               tide_mac *inc, tide_zarifi_increment_stats *stats) {
  int st;
  if (stats) *stats = (tide_zarifi_increment_stats){{0, 0, 0}, {0, 0, 0}, 0, 0};
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "u"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = tide_mac_check(u_old, g, TIDE_F64, "old")) ||
      (st = tide_mac_check(valid, g, TIDE_U8, "valid")) ||
      (st = tide_mac_check(weights, g, TIDE_F64, "weights")) ||
      (st = tide_mac_check(inc, g, TIDE_F64, "out")))
    return st;
  if (fractions && (st = tide_mac_check(fractions, g, TIDE_F64, "fractions"))) return st;
  if (reference && (st = tide_mac_check(reference, g, TIDE_F64, "reference"))) return st;
  if (!(per_cell > 0) || !isfinite(per_cell))
    return tide_fail(TIDE_EINVAL, "per_cell must be a positive number");
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if (!(cap > 0)) return tide_fail(TIDE_EINVAL, "cap must be positive");
  if (!(solid_mass >= 0) || !isfinite(solid_mass)) return tide_fail(TIDE_EINVAL, "solid_mass must be >= 0");
  if (solid_mass > 0 && !(rho > 0 && isfinite(rho))) return tide_fail(TIDE_EINVAL, "rho must be positive");
  if (!labels != !phi) return tide_fail(TIDE_EINVAL, "labels and phi go together (the ghost-fluid surface)");
  if (phi && ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels")) ||
              (st = tide_grid_check_cells(g, phi, TIDE_F64, "phi"))))
    return st;
  if (!(theta_min > 0)) theta_min = TIDE_MAC_THETA_MIN;
  tide_zarifi_increment_stats s = {{0, 0, 0}, {0, 0, 0}, 0, 0};
  /* the free solids' mass in the particles' kernel-weight units: M_s / m_p (m_p = rho dx^d / per_cell) */
  const double solid_w = solid_mass > 0 ? solid_mass * per_cell / (rho * pow(g->dx, g->dim)) : 0;
  /* the ghost-fluid fractions of the liquid-air faces, 1 elsewhere (the projection's) */
  double *theta[3] = {NULL, NULL, NULL};
  size_t tbytes[3] = {0, 0, 0};
  if (phi) {
    for (int a = 0; a < g->dim; a++) {
      tbytes[a] = (size_t)tide_array_size(u->u[a]) * sizeof(double);
      if (!(theta[a] = tide_alloc(tbytes[a]))) {
        st = tide_fail(TIDE_ENOMEM, "flip_increment: out of memory");
        goto done;
      }
    }
    if ((st = tide_mac_poisson_theta(g, TIDE_U8P(labels), TIDE_F64P(phi), theta))) goto done;
  }
  for (int a = 0; a < g->dim; a++) {
    const double *uu = TIDE_F64P(u->u[a]), *uo = TIDE_F64P(u_old->u[a]);
    const double *w = TIDE_F64P(weights->u[a]);
    const double *fr = fractions ? TIDE_F64P(fractions->u[a]) : NULL;
    const uint8_t *ok = TIDE_U8P(valid->u[a]);
    const double *ref = reference ? TIDE_F64P(reference->u[a]) : NULL;
    double *out = TIDE_F64P(inc->u[a]);
    const double ga = dt * gravity[a];
    const int64_t n = tide_array_size(u->u[a]);
    double wsum = 0;
    for (int64_t f = 0; f < n; f++) {
      wsum += w[f];
      const double th = theta[a] ? fmax(theta[a][f], theta_min) : 1;
      const double A = (fr ? fr[f] : 1) * (th < 1 ? th : 1);
      const double h = ref ? ref[f] : ga; /* the response to gravity alone */
      const double dp = ok[f] ? uu[f] - uo[f] - h : 0; /* the projection's change beyond it */
      double add = 0;
      if (dp != 0 && A > 0) {
        /* rho A_f dx^d / m_f, at most cap */
        const double scale = w[f] > 0 ? fmin(per_cell * A / w[f], cap) : 0;
        add = scale * dp;
        s.max_scale = fmax(s.max_scale, scale);
        if (scale * w[f] < per_cell * A) /* what the particles cannot take */
          s.orphan[a] += (A - scale * w[f] / per_cell) * dp, s.orphans++;
      }
      out[f] = h + add;
    }
    /* what the particles could not take locally goes to all of them by their mass: a uniform
     * increment c gives sum_p m_p c = m_p c sum_f W_f (the tent weights sum to 1 per particle);
     * with solid_mass shared with the free solids by theirs (stats->uniform) */
    if (s.orphan[a] != 0 && wsum > 0) {
      const double c = per_cell * s.orphan[a] / (wsum + solid_w);
      for (int64_t f = 0; f < n; f++)
        out[f] += c;
      s.uniform[a] = c;
    }
  }
  if (stats) *stats = s;
done:
  for (int a = 0; a < 3; a++)
    if (theta[a]) tide_free(theta[a], tbytes[a]);
  return st;
}
