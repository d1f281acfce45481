/* periodic.c -- periodic boundaries: padded-grid adapters around the
 * ordinary operators, periodic images for P2G, and the wrap-around pressure
 * projection (see periodic.h). */
#include "liquid/periodic.h"
#include "linalg/mac_poisson.h"
#include "liquid/extend.h"

#include <math.h>
#include <string.h>

double tide_periodic_lattice_interp(const tide_lattice *L, const int per[3], const int np[3],
                                    const double *x) {
  int b0[3], b1[3];
  double t[3];
  for (int d = 0; d < 3; d++) {
    b0[d] = b1[d] = 0;
    t[d] = 0;
    if (d >= L->dim || L->n[d] < 2) continue;
    double s = (x[d] - L->lo[d]) * L->inv_dx;
    if (per[d]) {
      if (!isfinite(s)) s = 0;
      double fl = floor(s);
      t[d] = s - fl;
      double m = fmod(fl, (double)np[d]);
      if (m < 0) m += np[d];
      b0[d] = (int)m;
      if (b0[d] >= np[d]) b0[d] = 0; /* rounding of fmod */
      b1[d] = b0[d] + 1 == np[d] ? 0 : b0[d] + 1;
    } else {
      double smax = (double)(L->n[d] - 1);
      if (!(s > 0)) s = 0;
      if (s > smax) s = smax;
      int i = (int)s;
      if (i > L->n[d] - 2) i = L->n[d] - 2;
      b0[d] = i;
      b1[d] = i + 1;
      t[d] = s - i;
    }
  }
  int64_t s0 = (int64_t)L->n[1] * L->n[2], s1 = L->n[2];
  double r = 0;
  for (int c = 0; c < 8; c++) {
    int hi0 = c & 4, hi1 = c & 2, hi2 = c & 1;
    double w = (hi0 ? t[0] : 1 - t[0]) * (hi1 ? t[1] : 1 - t[1]) * (hi2 ? t[2] : 1 - t[2]);
    if (w == 0) continue;
    int64_t q = (int64_t)(hi0 ? b1[0] : b0[0]) * s0 + (int64_t)(hi1 ? b1[1] : b0[1]) * s1 +
                (hi2 ? b1[2] : b0[2]);
    r += w * L->f[q];
  }
  return r;
}

/* ------------------------------------------------------------ workspace */

int tide_periodic_new(const tide_grid *g, const int per[3], tide_periodic **out) {
  *out = NULL;
  int st;
  if ((st = tide_grid_init(&(tide_grid){0}, g->dim, g->n, g->dx, g->origin))) return st;
  int any = 0;
  for (int d = 0; d < 3; d++) {
    if (d >= g->dim && per[d]) return tide_fail(TIDE_EINVAL, "axis %d is not an axis of a %dD grid", d + 1, g->dim);
    if (per[d] && g->n[d] < 2) return tide_fail(TIDE_EINVAL, "a periodic axis needs at least 2 cells (axis %d has %d)", d + 1, g->n[d]);
    any |= per[d] != 0;
  }
  if (!any) return tide_fail(TIDE_EINVAL, "no periodic axis given");
  tide_periodic *P = tide_calloc(sizeof *P);
  if (!P) return TIDE_ENOMEM;
  P->grid = *g;
  for (int d = 0; d < 3; d++) P->per[d] = per[d] != 0;
  P->pad = -1;
  P->precond = TIDE_PRECOND_MIC0;
  *out = P;
  return TIDE_OK;
}

static void free_padded(tide_periodic *P) {
  tide_mac_free(P->pa);
  tide_mac_free(P->pb);
  tide_mac_free(P->pc);
  tide_mac_free(P->pw);
  tide_mac_free(P->pv);
  tide_array_release(P->pcell);
  tide_array_release(P->pcell2);
  P->pa = P->pb = P->pc = P->pw = P->pv = NULL;
  P->pcell = P->pcell2 = NULL;
  P->pad = -1;
}

static void free_matrix(tide_periodic *P) {
  tide_krylov_free(P->K);
  tide_csr_free(P->A);
  P->K = NULL;
  P->A = NULL;
  tide_free(P->b, (size_t)(P->nunk > 0 ? P->nunk : 1) * sizeof(double));
  tide_free(P->x, (size_t)(P->nunk > 0 ? P->nunk : 1) * sizeof(double));
  tide_free(P->dpos, (size_t)(P->nunk > 0 ? P->nunk : 1) * sizeof(int64_t));
  P->b = P->x = NULL;
  P->dpos = NULL;
  P->nunk = 0;
  P->has_matrix = 0;
  P->ghost = 0;
}

void tide_periodic_free(tide_periodic *P) {
  if (!P) return;
  int64_t nc = tide_grid_ncells(&P->grid);
  free_padded(P);
  free_matrix(P);
  tide_particles_free(P->img);
  tide_mac_free(P->tmp);
  tide_advect_work_release(&P->work);
  tide_free(P->plab, (size_t)nc);
  tide_free(P->row, (size_t)nc * sizeof(int32_t));
  tide_free(P, sizeof *P);
}

static int64_t mac_bytes(const tide_mac *m) {
  if (!m) return 0;
  int64_t b = 0;
  for (int a = 0; a < m->grid.dim; a++) b += tide_array_size(m->u[a]) * (int64_t)tide_dtype_size(m->u[a]->dtype);
  return b;
}

int64_t tide_periodic_bytes(const tide_periodic *P) {
  int64_t nc = tide_grid_ncells(&P->grid);
  int64_t b = sizeof *P + mac_bytes(P->tmp) + mac_bytes(P->pa) + mac_bytes(P->pb) + mac_bytes(P->pc) +
              mac_bytes(P->pw) + mac_bytes(P->pv);
  if (P->pcell) b += 2 * tide_array_size(P->pcell) * (int64_t)sizeof(double);
  if (P->img) b += tide_particles_bytes(P->img);
  b += (int64_t)P->work.bytes;
  if (P->plab) b += nc;
  if (P->row) b += nc * (int64_t)sizeof(int32_t);
  if (P->A) b += (int64_t)P->A->nzmax * (int64_t)(sizeof(int) + sizeof(double));
  b += 2 * P->nunk * (int64_t)sizeof(double);
  if (P->dpos) b += P->nunk * (int64_t)sizeof(int64_t);
  return b;
}

/* the padded fields with at least G ghost layers */
static int ensure_padded(tide_periodic *P, int G) {
  if (G <= P->pad) return TIDE_OK;
  free_padded(P);
  int st;
  tide_grid pg;
  if ((st = tide_periodic_padded_grid(&P->grid, P->per, G, &pg))) return st;
  if ((st = tide_mac_new(&pg, TIDE_F64, &P->pa)) || (st = tide_mac_new(&pg, TIDE_F64, &P->pb)) ||
      (st = tide_mac_new(&pg, TIDE_F64, &P->pc)) || (st = tide_mac_new(&pg, TIDE_F64, &P->pw))) {
    free_padded(P);
    return st;
  }
  P->pcell = tide_grid_cell_array(&pg, TIDE_F64);
  P->pcell2 = tide_grid_cell_array(&pg, TIDE_F64);
  if (!P->pcell || !P->pcell2) {
    free_padded(P);
    return TIDE_ENOMEM;
  }
  P->pgrid = pg;
  P->pad = G;
  return TIDE_OK;
}

int tide_periodic_sync(const tide_periodic *P, tide_mac *m) {
  int st;
  if ((st = tide_mac_check(m, &P->grid, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &P->grid;
  for (int a = 0; a < g->dim; a++) {
    if (!P->per[a]) continue;
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *u = TIDE_F64P(m->u[a]);
    int b = a == 0 ? 1 : 0, c = 3 - a - b; /* the other two axes */
    for (int i = 0; i < fd[b]; i++)
      for (int j = 0; j < fd[c]; j++) {
        int I0[3], I1[3];
        I0[a] = 0;
        I1[a] = g->n[a];
        I0[b] = I1[b] = i;
        I0[c] = I1[c] = j;
        int64_t f0 = tide_grid_fidx(g, a, I0[0], I0[1], I0[2]);
        int64_t f1 = tide_grid_fidx(g, a, I1[0], I1[1], I1[2]);
        double v = 0.5 * (u[f0] + u[f1]);
        u[f0] = u[f1] = v;
      }
  }
  return TIDE_OK;
}

int tide_periodic_wrap(const tide_periodic *P, tide_array *x) {
  const tide_grid *g = &P->grid;
  int64_t shape[2] = {-1, g->dim};
  int st;
  if ((st = tide_array_expect(x, "positions", TIDE_F64, 2, shape))) return st;
  double *px = TIDE_F64P(x);
  int64_t n = x->shape[0], first = n;
  int dim = g->dim;
#pragma omp parallel for schedule(static) reduction(min : first) if (n > 8192)
  for (int64_t p = 0; p < n; p++)
    for (int d = 0; d < dim; d++) {
      if (!isfinite(px[p * dim + d])) { /* an error, never wrapped to the origin */
        if (p < first) first = p;
        continue;
      }
      if (!P->per[d]) continue;
      double L = g->n[d] * g->dx, s = px[p * dim + d] - g->origin[d];
      if (s >= 0 && s < L) continue;
      s = fmod(s, L);
      if (s < 0) s += L;
      if (!(s < L)) s = 0; /* rounding up to L */
      px[p * dim + d] = g->origin[d] + s;
    }
  if (first < n)
    return tide_fail(TIDE_ENONFINITE, "particle %lld has a non-finite position", (long long)first + 1);
  return TIDE_OK;
}

/* -------------------------------------------------------------- padding */

int tide_periodic_padded_grid(const tide_grid *g, const int per[3], int G, tide_grid *out) {
  if (G < 0) return tide_fail(TIDE_EINVAL, "negative padding");
  int n[3];
  double o[3];
  for (int d = 0; d < 3; d++) {
    int pd = d < g->dim && per[d];
    n[d] = g->n[d] + (pd ? 2 * G : 0);
    o[d] = g->origin[d] - (pd ? G * g->dx : 0);
  }
  return tide_grid_init(out, g->dim, n, g->dx, o);
}

/* copy between a field over g (extents ext, source of truth) and its
 * padded version (extents pext): dir 0 fills the padded one by wrapping,
 * dir 1 reads its interior back. */
static void copy_lattice(double *small, const int ext[3], double *big, const int pext[3],
                         const int per[3], const int np[3], int G, int dir) {
  int off[3];
  for (int d = 0; d < 3; d++) off[d] = per[d] ? G : 0;
  if (dir == 0) {
    int64_t n01 = (int64_t)pext[0] * pext[1];
#pragma omp parallel for schedule(static) if (n01 * pext[2] > 8192)
    for (int64_t ij = 0; ij < n01; ij++) {
      int i = (int)(ij / pext[1]), j = (int)(ij % pext[1]);
      int si = per[0] ? tide_periodic_index(i - off[0], np[0], 1) : i;
      int sj = per[1] ? tide_periodic_index(j - off[1], np[1], 1) : j;
      for (int k = 0; k < pext[2]; k++) {
        int sk = per[2] ? tide_periodic_index(k - off[2], np[2], 1) : k;
        big[ij * pext[2] + k] = small[((int64_t)si * ext[1] + sj) * ext[2] + sk];
      }
    }
  } else {
    int64_t n01 = (int64_t)ext[0] * ext[1];
#pragma omp parallel for schedule(static) if (n01 * ext[2] > 8192)
    for (int64_t ij = 0; ij < n01; ij++) {
      int i = (int)(ij / ext[1]), j = (int)(ij % ext[1]);
      /* the duplicate last face of a periodic face axis reads face 0 */
      int si = (per[0] && i >= np[0] ? 0 : i) + off[0];
      int sj = (per[1] && j >= np[1] ? 0 : j) + off[1];
      for (int k = 0; k < ext[2]; k++) {
        int sk = (per[2] && k >= np[2] ? 0 : k) + off[2];
        small[ij * ext[2] + k] = big[((int64_t)si * pext[1] + sj) * pext[2] + sk];
      }
    }
  }
}

static int check_padded(const tide_grid *g, const int per[3], int G, const tide_grid *pg) {
  tide_grid want;
  int st;
  if ((st = tide_periodic_padded_grid(g, per, G, &want))) return st;
  if (!tide_grid_same(&want, pg)) return tide_fail(TIDE_EINVAL, "padded field is not over the grid padded by %d cells", G);
  return TIDE_OK;
}

static int mac_copy_padded(tide_mac *small, tide_mac *big, const int per[3], int G, int dir) {
  int st;
  if ((st = tide_mac_check(small, NULL, TIDE_F64, "field"))) return st;
  if ((st = tide_mac_check(big, NULL, TIDE_F64, "padded field"))) return st;
  const tide_grid *g = &small->grid;
  if ((st = check_padded(g, per, G, &big->grid))) return st;
  for (int a = 0; a < g->dim; a++) {
    int ext[3], pext[3], np[3];
    tide_grid_face_dims(g, a, ext);
    tide_grid_face_dims(&big->grid, a, pext);
    int pp[3];
    for (int d = 0; d < 3; d++) {
      pp[d] = d < g->dim && per[d];
      np[d] = g->n[d];
    }
    copy_lattice(TIDE_F64P(small->u[a]), ext, TIDE_F64P(big->u[a]), pext, pp, np, G, dir);
  }
  return TIDE_OK;
}

int tide_periodic_fill_mac(const tide_mac *src, const int per[3], int G, tide_mac *dst) {
  return mac_copy_padded((tide_mac *)src, dst, per, G, 0);
}

int tide_periodic_extract_mac(const tide_mac *src, const int per[3], int G, tide_mac *dst) {
  return mac_copy_padded(dst, (tide_mac *)src, per, G, 1);
}

static int cells_copy_padded(const tide_grid *g, double *small, double *big, const int per[3], int G,
                             int dir) {
  tide_grid pg;
  int st;
  if ((st = tide_periodic_padded_grid(g, per, G, &pg))) return st;
  int pp[3];
  for (int d = 0; d < 3; d++) pp[d] = d < g->dim && per[d];
  copy_lattice(small, g->n, big, pg.n, pp, g->n, G, dir);
  return TIDE_OK;
}

int tide_periodic_fill_cells(const tide_grid *g, const double *src, const int per[3], int G,
                             double *dst) {
  return cells_copy_padded(g, (double *)src, dst, per, G, 0);
}

int tide_periodic_extract_cells(const tide_grid *g, const double *src, const int per[3], int G,
                                double *dst) {
  return cells_copy_padded(g, dst, (double *)src, per, G, 1);
}

/* ----------------------------------------------------------- advection */

/* ghost layers for napply successive backtraces of reach stencil cells */
static int advect_pad(const tide_periodic *P, const tide_mac *vel, double dt, int napply, int stencil,
                      int *G) {
  double vmax;
  int st;
  if ((st = tide_mac_max_speed(vel, &vmax))) return st;
  double cells = vmax * fabs(dt) / P->grid.dx;
  if (!isfinite(cells)) return tide_fail(TIDE_ENONFINITE, "non-finite velocity or dt");
  int maxn = 0;
  for (int d = 0; d < P->grid.dim; d++)
    if (P->per[d] && P->grid.n[d] > maxn) maxn = P->grid.n[d];
  double need = napply * (ceil(cells) + stencil) + 1;
  /* beyond a few periods the wrapped copy is exact anyway; keep it bounded */
  if (need > 4.0 * maxn + 4) need = 4.0 * maxn + 4;
  *G = (int)need;
  return TIDE_OK;
}

static int check_vel(const tide_periodic *P, const tide_mac *m, const char *what) {
  return tide_mac_check(m, &P->grid, TIDE_F64, what);
}

/* ghost layers for the scheme o (NULL: defaults): one backtrace for SL,
 * two for MacCormack, three for BFECC, each of the interpolation's reach */
static int advect_pad_opts(const tide_periodic *P, const tide_mac *vel, double dt,
                           const tide_advect_opts *o, int *G) {
  int napply = o->scheme == TIDE_ADVECT_SL ? 1 : o->scheme == TIDE_ADVECT_MACCORMACK ? 2 : 3;
  return advect_pad(P, vel, dt, napply, o->cubic ? 3 : 2, G);
}

int tide_periodic_advect_mac(tide_periodic *P, const tide_mac *vel, const tide_mac *q, double dt,
                             const tide_advect_opts *o, tide_mac *out) {
  int st, G;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if ((st = check_vel(P, vel, "velocity")) || (st = check_vel(P, q, "field")) || (st = check_vel(P, out, "out")))
    return st;
  if (out == vel || out == q) return tide_fail(TIDE_EINVAL, "out must differ from the velocity and the field");
  tide_advect_opts def = tide_advect_opts_default();
  if (!o) o = &def;
  if ((st = advect_pad_opts(P, vel, dt, o, &G)) || (st = ensure_padded(P, G))) return st;
  G = P->pad;
  if ((st = tide_periodic_fill_mac(vel, P->per, G, P->pa))) return st;
  tide_mac *pq = P->pa;
  if (q != vel) {
    if ((st = tide_periodic_fill_mac(q, P->per, G, P->pb))) return st;
    pq = P->pb;
  }
  if ((st = tide_levelset_advect_mac(P->pa, pq, dt, o, NULL, &P->work, P->pc))) return st;
  return tide_periodic_extract_mac(P->pc, P->per, G, out);
}

int tide_periodic_advect_cells(tide_periodic *P, const tide_mac *vel, const double *f, double dt,
                               const tide_advect_opts *o, double *out) {
  int st, G;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if ((st = check_vel(P, vel, "velocity"))) return st;
  if (f == out) return tide_fail(TIDE_EINVAL, "out must not alias the field");
  tide_advect_opts def = tide_advect_opts_default();
  if (!o) o = &def;
  if ((st = advect_pad_opts(P, vel, dt, o, &G)) || (st = ensure_padded(P, G))) return st;
  G = P->pad;
  if ((st = tide_periodic_fill_mac(vel, P->per, G, P->pa))) return st;
  if ((st = tide_periodic_fill_cells(&P->grid, f, P->per, G, TIDE_F64P(P->pcell)))) return st;
  if ((st = tide_levelset_advect_cells(&P->pgrid, P->pa, TIDE_F64P(P->pcell), dt, o, NULL, &P->work,
                                        TIDE_F64P(P->pcell2))))
    return st;
  return tide_periodic_extract_cells(&P->grid, TIDE_F64P(P->pcell2), P->per, G, out);
}

/* ----------------------------------------------------------- particles */

static int check_ps(const tide_periodic *P, const tide_particles *ps) {
  if (!ps) return tide_fail(TIDE_EINVAL, "particles missing");
  if (ps->dim != P->grid.dim)
    return tide_fail(TIDE_EINVAL, "grid is %dD but the particles are %dD", P->grid.dim, ps->dim);
  return TIDE_OK;
}

/* the image shifts of position x: per periodic axis 0, +L (near the low
 * end) or -L (near the high end); returns the number of copies (>= 1) and
 * the shift options */
static inline int image_options(const tide_periodic *P, const double *x, double sh[3][2], int cnt[3]) {
  const tide_grid *g = &P->grid;
  int total = 1;
  for (int d = 0; d < 3; d++) {
    cnt[d] = 1;
    sh[d][0] = sh[d][1] = 0;
    if (d >= g->dim || !P->per[d]) continue;
    double L = g->n[d] * g->dx, s = x[d] - g->origin[d];
    if (s < g->dx) sh[d][cnt[d]++] = L;
    if (s >= L - g->dx) sh[d][cnt[d]++] = -L;
    total *= cnt[d];
  }
  return total;
}

/* fill P->img with the particles of ps (wrapped into the box) followed by
 * their images; keeps v and c */
static int build_images(tide_periodic *P, tide_particles *ps) {
  int st, dim = ps->dim;
  if (P->img && (P->img->apic != ps->apic)) {
    tide_particles_free(P->img);
    P->img = NULL;
  }
  if (!P->img && (st = tide_particles_new(dim, ps->n + 16, ps->apic, &P->img))) return st;
  int64_t n = ps->n;
  const double *x = TIDE_F64P(ps->x);
  /* count the images (serial prefix; the loop is light) */
  int64_t extra = 0;
  for (int64_t p = 0; p < n; p++) {
    double sh[3][2], xw[3] = {0, 0, 0};
    int cnt[3];
    for (int d = 0; d < dim; d++) xw[d] = x[p * dim + d];
    extra += image_options(P, xw, sh, cnt) - 1;
  }
  if ((st = tide_particles_reserve(P->img, n + extra)) || (st = tide_particles_resize(P->img, n + extra))) return st;
  double *ix = TIDE_F64P(P->img->x), *iv = TIDE_F64P(P->img->v);
  const double *v = TIDE_F64P(ps->v);
  double *ic = ps->apic ? TIDE_F64P(P->img->c) : NULL;
  const double *c = ps->apic ? TIDE_F64P(ps->c) : NULL;
  int64_t q = n;
  int dd = dim * dim;
  for (int64_t p = 0; p < n; p++) {
    double sh[3][2], xw[3] = {0, 0, 0};
    int cnt[3];
    for (int d = 0; d < dim; d++) xw[d] = x[p * dim + d];
    image_options(P, xw, sh, cnt);
    for (int i0 = 0; i0 < cnt[0]; i0++)
      for (int i1 = 0; i1 < cnt[1]; i1++)
        for (int i2 = 0; i2 < cnt[2]; i2++) {
          int64_t r = (i0 + i1 + i2 == 0) ? p : q++;
          double s[3] = {sh[0][i0], sh[1][i1], sh[2][i2]};
          for (int d = 0; d < dim; d++) {
            ix[r * dim + d] = xw[d] + s[d];
            iv[r * dim + d] = v[p * dim + d];
          }
          if (ic) memcpy(ic + r * dd, c + p * dd, (size_t)dd * sizeof(double));
        }
  }
  return TIDE_OK;
}

static int check_inside(const tide_periodic *P, const tide_particles *ps) {
  const tide_grid *g = &P->grid;
  const double *x = TIDE_F64P(ps->x);
  int dim = ps->dim;
  for (int64_t p = 0; p < ps->n; p++)
    for (int d = 0; d < dim; d++) {
      double xd = x[p * dim + d], s = xd - g->origin[d];
      if (!isfinite(xd))
        return tide_fail(TIDE_ENONFINITE, "particle %lld has a non-finite position", (long long)p + 1);
      if (P->per[d] && !(s >= 0 && s <= g->n[d] * g->dx))
        return tide_fail(TIDE_EINVAL,
                         "particle %lld lies outside the periodic box along axis %d (wrap the positions first)",
                         (long long)p + 1, d + 1);
    }
  return TIDE_OK;
}

int tide_periodic_p2g(tide_periodic *P, tide_particles *ps, tide_mac *u, int apic, tide_mac *weights) {
  int st;
  if ((st = check_ps(P, ps)) || (st = check_vel(P, u, "mac"))) return st;
  if (apic && !ps->apic) return tide_fail(TIDE_EINVAL, "APIC transfer needs particles with affine matrices (apic = true)");
  if (weights && (st = tide_mac_check(weights, &P->grid, weights->u[0]->dtype, "weights"))) return st;
  if (weights && weights->u[0]->dtype != TIDE_F64 && weights->u[0]->dtype != TIDE_U8)
    return tide_fail(TIDE_EINVAL, "weights must be an f64 or u8 MAC field");
  if ((st = check_inside(P, ps))) return st;
  if ((st = ensure_padded(P, 1))) return st;
  int G = P->pad;
  if ((st = build_images(P, ps))) return st;
  if ((st = tide_liquid_p2g(P->img, P->pa, apic, P->pw))) return st;
  if ((st = tide_periodic_extract_mac(P->pa, P->per, G, u))) return st;
  if (!weights) return TIDE_OK;
  if (weights->u[0]->dtype == TIDE_F64) return tide_periodic_extract_mac(P->pw, P->per, G, weights);
  /* u8 mask: weight > 0 */
  if (!P->tmp && (st = tide_mac_new(&P->grid, TIDE_F64, &P->tmp))) return st;
  if ((st = tide_periodic_extract_mac(P->pw, P->per, G, P->tmp))) return st;
  for (int a = 0; a < P->grid.dim; a++) {
    const double *w = TIDE_F64P(P->tmp->u[a]);
    uint8_t *m = TIDE_U8P(weights->u[a]);
    int64_t nf = tide_array_size(P->tmp->u[a]);
    for (int64_t f = 0; f < nf; f++) m[f] = w[f] > 0;
  }
  return TIDE_OK;
}

int tide_periodic_g2p(tide_periodic *P, tide_particles *ps, const tide_mac *u, const tide_mac *u_old,
                      tide_transfer scheme, double flip) {
  int st;
  if ((st = check_ps(P, ps)) || (st = check_vel(P, u, "mac"))) return st;
  if (u_old && (st = check_vel(P, u_old, "old"))) return st;
  if ((st = check_inside(P, ps))) return st;
  if ((st = ensure_padded(P, 1))) return st;
  int G = P->pad;
  if ((st = tide_periodic_fill_mac(u, P->per, G, P->pa))) return st;
  if (u_old && (st = tide_periodic_fill_mac(u_old, P->per, G, P->pb))) return st;
  return tide_liquid_g2p(ps, P->pa, u_old ? P->pb : NULL, scheme, flip);
}

int tide_periodic_advect_particles(tide_periodic *P, tide_particles *ps, const tide_mac *vel,
                                   double dt, int order) {
  int st, G;
  if ((st = check_ps(P, ps)) || (st = check_vel(P, vel, "velocity"))) return st;
  if (!isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be finite");
  if ((st = check_inside(P, ps))) return st;
  if ((st = advect_pad(P, vel, dt, 1, 2, &G)) || (st = ensure_padded(P, G))) return st;
  G = P->pad;
  if ((st = tide_periodic_fill_mac(vel, P->per, G, P->pa))) return st;
  if ((st = tide_particles_advect(ps, P->pa, dt, order, NULL, 1e-3))) return st;
  return tide_periodic_wrap(P, ps->x);
}

/* ----------------------------------------------------------- projection */

/* Is the face on the low side of cell (i, j, k) along a open?  The low
 * neighbour is returned in *lo (cell index, wrapped), -1 when outside. */
static inline int face_open(const tide_periodic *P, const uint8_t *lab, int a, const int c[3], int64_t *lo) {
  const tide_grid *g = &P->grid;
  int n[3] = {c[0], c[1], c[2]};
  n[a] = tide_periodic_index(c[a] - 1, g->n[a], P->per[a]);
  if (n[a] < 0) {
    *lo = -1;
    return 0;
  }
  *lo = tide_grid_idx(g, n[0], n[1], n[2]);
  if (!lab) return 1;
  return lab[*lo] != TIDE_CELL_SOLID && lab[tide_grid_idx(g, c[0], c[1], c[2])] != TIDE_CELL_SOLID;
}

/* face n[a] of the periodic axis a <- face 0, in ua and (if given) va */
static void copy_face0(const tide_grid *g, int a, double *ua, uint8_t *va) {
  int e[3];
  tide_grid_face_dims(g, a, e);
  int b2 = a == 0 ? 1 : 0, c2 = 3 - a - b2;
  for (int i = 0; i < e[b2]; i++)
    for (int j = 0; j < e[c2]; j++) {
      int I0[3], I1[3];
      I0[a] = 0;
      I1[a] = g->n[a];
      I0[b2] = I1[b2] = i;
      I0[c2] = I1[c2] = j;
      int64_t f0 = tide_grid_fidx(g, a, I0[0], I0[1], I0[2]), f1 = tide_grid_fidx(g, a, I1[0], I1[1], I1[2]);
      ua[f1] = ua[f0];
      if (va) va[f1] = va[f0];
    }
}

/* The neighbour of cell c across its face s (0: low, 1: high) along axis a:
 * returns 1 when that face is open (not a wall, no SOLID cell beside it),
 * *nb the neighbour's index (wrapped) and *f the face's index (face 0 for
 * the wrap face of a periodic axis). */
static inline int neighbour(const tide_periodic *P, const uint8_t *lab, const int c[3], int a, int s,
                            int64_t *nb, int64_t *f) {
  const tide_grid *g = &P->grid;
  if (s == 0) {
    *f = tide_grid_fidx(g, a, c[0], c[1], c[2]);
    return face_open(P, lab, a, c, nb) && *nb >= 0;
  }
  int h[3] = {c[0], c[1], c[2]};
  h[a] = tide_periodic_index(c[a] + 1, g->n[a], P->per[a]);
  if (h[a] < 0) return 0;
  int64_t self;
  *f = tide_grid_fidx(g, a, h[0], h[1], h[2]);
  *nb = tide_grid_idx(g, h[0], h[1], h[2]);
  return face_open(P, lab, a, h, &self);
}

/* ghost-fluid fraction of the face between liquid cell l and air cell a
 * (tide_mac_poisson_theta's formula, clamped as tide_mac_poisson_face) */
static inline double ghost_theta(const double *phi, int64_t l, int64_t a, double tmin) {
  double t = 1;
  if (phi && phi[l] <= 0 && phi[a] > 0) t = phi[l] / (phi[l] - phi[a]);
  return t >= tmin ? t : tmin;
}

/* the diagonal of row q: open faces to liquid cells count 1, to air cells
 * 1/theta (1 without phi) */
static double row_diagonal(const tide_periodic *P, const uint8_t *lab, const double *phi, double tmin,
                           const int c[3], int64_t q, int *air) {
  double diag = 0;
  for (int a = 0; a < P->grid.dim; a++)
    for (int s = 0; s < 2; s++) {
      int64_t nb, f;
      if (!neighbour(P, lab, c, a, s, &nb, &f)) continue;
      if (P->row[nb] >= 0) {
        diag += 1;
      } else if (!lab || lab[nb] == TIDE_CELL_AIR) {
        diag += 1 / ghost_theta(phi, q, nb, tmin);
        (*air)++;
      }
    }
  return diag;
}

static int build_projection(tide_periodic *P, const uint8_t *lab) {
  const tide_grid *g = &P->grid;
  int64_t nc = tide_grid_ncells(g);
  int st;
  free_matrix(P);
  if (!P->row && !(P->row = tide_alloc((size_t)nc * sizeof(int32_t)))) return TIDE_ENOMEM;
  int64_t n = 0;
  for (int64_t q = 0; q < nc; q++) P->row[q] = (!lab || lab[q] == TIDE_CELL_LIQUID) ? (int32_t)n++ : -1;
  P->nunk = n;
  if (n == 0) {
    P->has_matrix = 1;
    return TIDE_OK;
  }
  tide_triplets *T;
  if ((st = tide_triplets_new((int)n, (int)n, &T))) return st;
  int air = 0, dim = g->dim;
  const int32_t *row = P->row;
#pragma omp parallel for schedule(static) reduction(+ : air)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k};
        int64_t q = tide_grid_idx(g, i, j, k);
        if (row[q] < 0) continue;
        for (int a = 0; a < dim; a++)
          for (int s = 0; s < 2; s++) {
            int64_t nb, f;
            if (neighbour(P, lab, c, a, s, &nb, &f) && row[nb] >= 0) tide_triplets_add(T, row[q], row[nb], -1.0);
          }
        tide_triplets_add(T, row[q], row[q], row_diagonal(P, lab, NULL, 1, c, q, &air));
      }
  st = tide_csr_from_tripletlist(T, TIDE_CSR_GENERAL, &P->A);
  tide_triplets_free(T);
  if (st) return st;
  P->air_faces = air;
  /* where each row keeps its diagonal (refilled by the ghost fluid) */
  if (!(P->dpos = tide_alloc((size_t)n * sizeof(int64_t)))) return TIDE_ENOMEM;
  for (int r = 0; r < (int)n; r++) {
    P->dpos[r] = -1;
    for (int e = P->A->rowptr[r]; e < P->A->rowptr[r + 1]; e++)
      if (P->A->col[e] == r) P->dpos[r] = e;
    if (P->dpos[r] < 0) return tide_fail(TIDE_EINVAL, "periodic projection: row %d has no diagonal", r);
  }
  if ((st = tide_krylov_new(P->A, TIDE_KRYLOV_PCG, P->precond, &P->K))) return st;
  size_t vb = (size_t)n * sizeof(double);
  P->b = tide_alloc(vb);
  P->x = tide_calloc(vb);
  if (!P->b || !P->x) return TIDE_ENOMEM;
  P->has_matrix = 1;
  return TIDE_OK;
}

/* refill the diagonal for phi (NULL: theta = 1) and refactor */
static int set_diagonal(tide_periodic *P, const uint8_t *lab, const double *phi, double tmin) {
  const tide_grid *g = &P->grid;
  const int32_t *row = P->row;
  double *val = P->A->val;
  const int64_t *dpos = P->dpos;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k}, air = 0;
        int64_t q = tide_grid_idx(g, i, j, k);
        if (row[q] >= 0) val[dpos[row[q]]] = row_diagonal(P, lab, phi, tmin, c, q, &air);
      }
  P->ghost = phi != NULL;
  return tide_krylov_refactor(P->K, P->A);
}

/* net outflow of cell c over its open faces [m/s] (dx * divergence) */
static inline double cell_flux(const tide_periodic *P, const uint8_t *lab, tide_mac *u, const int c[3]) {
  const tide_grid *g = &P->grid;
  double s = 0;
  for (int a = 0; a < g->dim; a++) {
    const double *ua = TIDE_F64P(u->u[a]);
    int64_t nb;
    if (face_open(P, lab, a, c, &nb)) s -= ua[tide_grid_fidx(g, a, c[0], c[1], c[2])];
    int h[3] = {c[0], c[1], c[2]};
    h[a] = tide_periodic_index(c[a] + 1, g->n[a], P->per[a]);
    if (h[a] < 0) continue;
    if (face_open(P, lab, a, h, &nb)) s += ua[tide_grid_fidx(g, a, h[0], h[1], h[2])];
  }
  return s;
}

int tide_periodic_project(tide_periodic *P, tide_mac *u, const tide_array *labels, double dt,
                          double rho, double tol, int maxit, tide_array *pressure,
                          tide_project_stats *stats) {
  return tide_periodic_project_ghost(P, u, labels, NULL, 0, dt, rho, tol, maxit, NULL, pressure, stats);
}

int tide_periodic_project_ghost(tide_periodic *P, tide_mac *u, const tide_array *labels,
                                const tide_array *phi_a, double theta_min, double dt, double rho,
                                double tol, int maxit, tide_mac *valid, tide_array *pressure,
                                tide_project_stats *stats) {
  int st;
  const tide_grid *g = &P->grid;
  if ((st = check_vel(P, u, "mac"))) return st;
  if (labels && (st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (phi_a && (st = tide_grid_check_cells(g, phi_a, TIDE_F64, "phi"))) return st;
  if (valid && (st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if (pressure && (st = tide_grid_check_cells(g, pressure, TIDE_F64, "pressure"))) return st;
  if (!(dt > 0) || !isfinite(dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  if (!(rho > 0) || !isfinite(rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  if (!(tol > 0 && tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (maxit < 0) return tide_fail(TIDE_EINVAL, "maxit must be >= 0");
  if (theta_min == 0) theta_min = TIDE_MAC_THETA_MIN;
  if (!(theta_min > 0 && theta_min <= 1)) return tide_fail(TIDE_EINVAL, "theta_min must be in (0, 1]");
  for (int a = 0; a < g->dim; a++)
    if (tide_array_nonfinite(u->u[a])) return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
  if (phi_a && tide_array_nonfinite(phi_a)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
  int64_t nc = tide_grid_ncells(g);
  if (nc >= INT32_MAX) return tide_fail(TIDE_EINVAL, "grid too large for 32-bit matrix indices");
  const uint8_t *lab = labels ? TIDE_U8P(labels) : NULL;
  const double *phi = phi_a ? TIDE_F64P(phi_a) : NULL;
  if (lab)
    for (int64_t q = 0; q < nc; q++)
      if (lab[q] > TIDE_CELL_SOLID) return tide_fail(TIDE_EINVAL, "labels must be 0 (air), 1 (liquid) or 2 (solid)");
  /* rebuild the matrix when the labels changed */
  int same = P->has_matrix;
  if (same) {
    if (!lab != !P->plab) same = 0;
    else if (lab && memcmp(lab, P->plab, (size_t)nc)) same = 0;
  }
  if (!same) {
    if ((st = build_projection(P, lab))) {
      free_matrix(P);
      return st;
    }
    if (lab) {
      if (!P->plab && !(P->plab = tide_alloc((size_t)nc))) return TIDE_ENOMEM;
      memcpy(P->plab, lab, (size_t)nc);
    } else if (P->plab) {
      tide_free(P->plab, (size_t)nc);
      P->plab = NULL;
    }
  }
  /* the ghost-fluid diagonal (or back to theta = 1) */
  if (P->nunk > 0 && P->air_faces > 0 && (phi || P->ghost) && (st = set_diagonal(P, lab, phi, theta_min)))
    return st;
  if ((st = tide_periodic_sync(P, u))) return st;
  memset(stats, 0, sizeof *stats);
  stats->unknowns = P->nunk;
  int64_t n = P->nunk;
  const int32_t *row = P->row;
  double *b = P->b, *x = P->x;
  double bmax = 0;
  if (n > 0) {
#pragma omp parallel for schedule(static) reduction(max : bmax)
    for (int i = 0; i < g->n[0]; i++)
      for (int j = 0; j < g->n[1]; j++)
        for (int k = 0; k < g->n[2]; k++) {
          int64_t q = tide_grid_idx(g, i, j, k);
          if (row[q] < 0) continue;
          int c[3] = {i, j, k};
          double f = cell_flux(P, lab, u, c);
          b[row[q]] = -f;
          if (fabs(f) > bmax) bmax = fabs(f);
        }
    stats->div_before = bmax / g->dx;
    memset(x, 0, (size_t)n * sizeof(double));
    tide_solve_opts so = tide_solve_opts_default();
    so.tol = tol;
    if (maxit > 0) so.maxit = maxit;
    so.nullspace = P->air_faces == 0;
    tide_solve_stats ss;
    st = tide_krylov_solve(P->K, P->A, b, x, &so, &ss);
    stats->iterations = ss.iterations;
    stats->residual = ss.residual;
    if (st) return st;
  }
  /* u -= grad q on every open face with a liquid side; an air side holds
   * p = 0 at its centre, or the ghost pressure q_l (1 - 1/theta) */
  for (int a = 0; a < g->dim; a++) {
    double *ua = TIDE_F64P(u->u[a]);
    uint8_t *va = valid ? TIDE_U8P(valid->u[a]) : NULL;
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    if (va) memset(va, 0, (size_t)tide_array_size(valid->u[a]));
    if (P->per[a]) fd[a] = g->n[a]; /* distinct faces; face n[a] synced below */
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int c[3] = {i, j, k};
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          if (c[a] >= g->n[a]) { /* the high wall of a non-periodic axis */
            ua[f] = 0;
            continue;
          }
          int64_t lo;
          if (!face_open(P, lab, a, c, &lo)) {
            ua[f] = 0; /* wall or solid face */
            continue;
          }
          int64_t hi = tide_grid_idx(g, i, j, k);
          int rl = row[lo], rh = row[hi];
          if (rl < 0 && rh < 0) continue;
          if (va) va[f] = 1;
          double xl = rl >= 0 ? x[rl] : 0, xh = rh >= 0 ? x[rh] : 0;
          if (phi && rl < 0 && (!lab || lab[lo] == TIDE_CELL_AIR))
            xl = xh * (1 - 1 / ghost_theta(phi, hi, lo, theta_min));
          else if (phi && rh < 0 && (!lab || lab[hi] == TIDE_CELL_AIR))
            xh = xl * (1 - 1 / ghost_theta(phi, lo, hi, theta_min));
          ua[f] -= xh - xl;
        }
    if (P->per[a]) copy_face0(g, a, ua, va);
  }
  double dmax = 0, pscale = rho * g->dx / dt;
  double *pp = pressure ? TIDE_F64P(pressure) : NULL;
#pragma omp parallel for schedule(static) reduction(max : dmax)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int64_t q = tide_grid_idx(g, i, j, k);
        if (pp) pp[q] = row[q] >= 0 ? x[row[q]] * pscale : 0;
        if (row[q] < 0) continue;
        int c[3] = {i, j, k};
        double d = fabs(cell_flux(P, lab, u, c));
        if (d > dmax) dmax = d;
      }
  stats->div_after = dmax / g->dx;
  return TIDE_OK;
}

/* ------------------------------------------- extension, walls, distance */

/* ghost layers of the extension and the redistancing: the normals reach
 * across the seam by a few cells; beyond that the result is the same */
#define TIDE_PERIODIC_EXTEND_PAD 6
#define TIDE_PERIODIC_REDIST_PAD 8

/* u8 MAC <-> f64 MAC over the same grid */
static void mac_u8_to_f64(const tide_mac *m, tide_mac *out) {
  for (int a = 0; a < m->grid.dim; a++) {
    int64_t n = tide_array_size(m->u[a]);
    const uint8_t *s = TIDE_U8P(m->u[a]);
    double *d = TIDE_F64P(out->u[a]);
    for (int64_t f = 0; f < n; f++) d[f] = s[f];
  }
}
static void mac_f64_to_u8(const tide_mac *m, tide_mac *out) {
  for (int a = 0; a < m->grid.dim; a++) {
    int64_t n = tide_array_size(m->u[a]);
    const double *s = TIDE_F64P(m->u[a]);
    uint8_t *d = TIDE_U8P(out->u[a]);
    for (int64_t f = 0; f < n; f++) d[f] = s[f] != 0;
  }
}

/* u and valid onto the grid padded by at least G cells (P->pa, P->pv) */
static int pad_u_valid(tide_periodic *P, const tide_mac *u, const tide_mac *valid, int G) {
  int st;
  const tide_grid *g = &P->grid;
  if ((st = check_vel(P, u, "u")) || (st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if ((st = ensure_padded(P, G))) return st;
  if (!P->pv && (st = tide_mac_new(&P->pgrid, TIDE_U8, &P->pv))) return st;
  if (!P->tmp && (st = tide_mac_new(g, TIDE_F64, &P->tmp))) return st;
  /* valid -> padded u8 through f64 copies */
  mac_u8_to_f64(valid, P->tmp);
  if ((st = tide_periodic_fill_mac(P->tmp, P->per, P->pad, P->pw))) return st;
  mac_f64_to_u8(P->pw, P->pv);
  return tide_periodic_fill_mac(u, P->per, P->pad, P->pa);
}

/* the interior of P->pa and P->pv back into u and valid */
static int unpad_u_valid(tide_periodic *P, tide_mac *u, tide_mac *valid) {
  int st, G = P->pad;
  if ((st = tide_periodic_extract_mac(P->pa, P->per, G, u))) return st;
  mac_u8_to_f64(P->pv, P->pw);
  if ((st = tide_periodic_extract_mac(P->pw, P->per, G, P->tmp))) return st;
  mac_f64_to_u8(P->tmp, valid);
  return TIDE_OK;
}

int tide_periodic_extend(tide_periodic *P, tide_mac *u, const tide_array *phi, tide_mac *valid,
                         int linear, double maxdist) {
  int st;
  const tide_grid *g = &P->grid;
  if ((st = tide_grid_check_cells(g, phi, TIDE_F64, "phi"))) return st;
  if (isnan(maxdist)) return tide_fail(TIDE_EINVAL, "maxdist is NaN");
  if ((st = pad_u_valid(P, u, valid, TIDE_PERIODIC_EXTEND_PAD))) return st;
  if ((st = tide_periodic_fill_cells(g, TIDE_F64P(phi), P->per, P->pad, TIDE_F64P(P->pcell)))) return st;
  st = linear ? tide_liquid_extend_linear(P->pa, TIDE_F64P(P->pcell), maxdist, P->pv)
              : tide_levelset_extrapolate_mac(P->pa, TIDE_F64P(P->pcell), 1, maxdist, P->pv);
  if (st) return st;
  return unpad_u_valid(P, u, valid);
}

int tide_periodic_extrapolate(tide_periodic *P, tide_mac *u, tide_mac *valid, int layers, int clear) {
  int st;
  if (layers < 0) return tide_fail(TIDE_EINVAL, "layers must be >= 0, got %d", layers);
  if ((st = pad_u_valid(P, u, valid, layers + 1))) return st;
  if ((st = tide_mac_extrapolate(P->pa, P->pv, layers, clear))) return st;
  return unpad_u_valid(P, u, valid);
}

int tide_periodic_enforce_walls(const tide_periodic *P, tide_mac *u, const tide_array *labels) {
  int st;
  const tide_grid *g = &P->grid;
  if ((st = check_vel(P, u, "u"))) return st;
  if (labels && (st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  const uint8_t *lab = labels ? TIDE_U8P(labels) : NULL;
  for (int a = 0; a < g->dim; a++) {
    double *ua = TIDE_F64P(u->u[a]);
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    if (P->per[a]) fd[a] = g->n[a];
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int c[3] = {i, j, k};
          int64_t lo;
          if (c[a] >= g->n[a] || !face_open(P, lab, a, c, &lo)) ua[tide_grid_fidx(g, a, i, j, k)] = 0;
        }
  }
  for (int a = 0; a < g->dim; a++)
    if (P->per[a]) copy_face0(g, a, TIDE_F64P(u->u[a]), NULL);
  return TIDE_OK;
}

int tide_periodic_redistance(tide_periodic *P, tide_array *phi, double band) {
  int st;
  const tide_grid *g = &P->grid;
  if ((st = tide_grid_check_cells(g, phi, TIDE_F64, "phi"))) return st;
  if (!(band >= 0)) return tide_fail(TIDE_EINVAL, "band must be >= 0");
  if ((st = ensure_padded(P, TIDE_PERIODIC_REDIST_PAD))) return st;
  int G = P->pad;
  if ((st = tide_periodic_fill_cells(g, TIDE_F64P(phi), P->per, G, TIDE_F64P(P->pcell)))) return st;
  if ((st = tide_levelset_redistance(&P->pgrid, TIDE_F64P(P->pcell), band))) return st;
  return tide_periodic_extract_cells(g, TIDE_F64P(P->pcell), P->per, G, TIDE_F64P(phi));
}

/* --------------------------------------------------------------- energy */

int tide_mac_kinetic_energy(const tide_mac *m, const int per[3], const tide_array *mask, double *out) {
  int st;
  if ((st = tide_mac_check(m, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &m->grid;
  if (mask && (st = tide_grid_check_cells(g, mask, TIDE_U8, "mask"))) return st;
  const uint8_t *mk = mask ? TIDE_U8P(mask) : NULL;
  double vol = pow(g->dx, g->dim), e = 0;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int pa = per && per[a];
    if (pa) fd[a] = g->n[a];
    int64_t nf = (int64_t)fd[0] * fd[1] * fd[2];
    const double *u = TIDE_F64P(m->u[a]);
    /* blocked per-face terms so the sum does not depend on threads */
    double *t = tide_alloc((size_t)(nf > 0 ? nf : 1) * sizeof(double));
    if (!t) return TIDE_ENOMEM;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < nf; q++) {
      int i = (int)(q / ((int64_t)fd[1] * fd[2])), j = (int)((q / fd[2]) % fd[1]), k = (int)(q % fd[2]);
      int c[3] = {i, j, k};
      double v = u[tide_grid_fidx(g, a, i, j, k)];
      int keep = 1;
      if (mk) {
        int lo[3] = {i, j, k};
        lo[a] = tide_periodic_index(c[a] - 1, g->n[a], pa);
        int hi = c[a] < g->n[a];
        keep = (lo[a] >= 0 && mk[tide_grid_idx(g, lo[0], lo[1], lo[2])]) ||
               (hi && mk[tide_grid_idx(g, c[0], c[1], c[2])]);
      }
      t[q] = keep ? v * v : 0;
    }
    e += tide_sum(nf, t);
    tide_free(t, (size_t)(nf > 0 ? nf : 1) * sizeof(double));
  }
  *out = 0.5 * e * vol;
  return TIDE_OK;
}
