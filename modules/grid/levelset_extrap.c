/*
 * levelset_extrap.c -- extrapolation along the level-set normal on cells and
 * MAC faces, and the solid constraint of Zarifi's extrapolation (see
 * levelset.h).
 */
#include "levelset.h"
#include "sdf.h"

#include <math.h>
#include <string.h>

/* a field on a box of samples: extents n[3] (n[2] == 1 in 2D), row major */
typedef struct {
  int dim;
  int n[3];
  int64_t stride[3];
  int64_t N;
} box_t;

static box_t make_box(int dim, const int n[3]) {
  box_t b = {dim, {n[0], n[1], n[2]}, {(int64_t)n[1] * n[2], n[2], 1}, (int64_t)n[0] * n[1] * n[2]};
  return b;
}

/* merge sort of ids by (key, id) */
static void sort_ids(int64_t *id, int64_t *tmp, int64_t n, const double *key) {
  if (n < 2) return;
  int64_t h = n / 2;
  sort_ids(id, tmp, h, key);
  sort_ids(id + h, tmp, n - h, key);
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n) {
    int64_t a = id[i], b = id[j];
    int take_b = key[b] < key[a] || (key[b] == key[a] && b < a);
    tmp[k++] = take_b ? id[j++] : id[i++];
  }
  while (i < h)
    tmp[k++] = id[i++];
  while (j < n)
    tmp[k++] = id[j++];
  memcpy(id, tmp, (size_t)n * sizeof(int64_t));
}

/* extrapolate q on box b; key = direction * phi at the samples */
static int extrapolate_box(const box_t *b, const double *key, double maxdist, double *q,
                           uint8_t *valid) {
  int64_t cnt = 0;
  for (int64_t c = 0; c < b->N; c++)
    if (!valid[c] && key[c] <= maxdist) cnt++;
  if (cnt == 0) return TIDE_OK;
  int64_t *ids = tide_alloc((size_t)cnt * sizeof(int64_t));
  int64_t *tmp = tide_alloc((size_t)cnt * sizeof(int64_t));
  if (!ids || !tmp) {
    tide_free(ids, (size_t)cnt * sizeof(int64_t));
    tide_free(tmp, (size_t)cnt * sizeof(int64_t));
    return TIDE_ENOMEM;
  }
  int64_t m = 0;
  for (int64_t c = 0; c < b->N; c++)
    if (!valid[c] && key[c] <= maxdist) ids[m++] = c;
  sort_ids(ids, tmp, cnt, key);
  for (int64_t t = 0; t < cnt; t++) {
    int64_t c = ids[t];
    int ijk[3] = {(int)(c / b->stride[0]), (int)((c / b->stride[1]) % b->n[1]), (int)(c % b->n[2])};
    double sw = 0, swq = 0, sall = 0;
    int nall = 0;
    for (int a = 0; a < b->dim; a++) {
      int64_t up = -1;
      for (int s = -1; s <= 1; s += 2) {
        int qq = ijk[a] + s;
        if (qq < 0 || qq >= b->n[a]) continue;
        int64_t nb = c + s * b->stride[a];
        if (!valid[nb]) continue;
        sall += q[nb];
        nall++;
        if (key[nb] < key[c] && (up < 0 || key[nb] < key[up])) up = nb;
      }
      if (up >= 0) {
        double w = key[c] - key[up];
        sw += w;
        swq += w * q[up];
      }
    }
    if (sw > 0) {
      q[c] = swq / sw;
      valid[c] = 1;
    } else if (nall > 0) {
      q[c] = sall / nall;
      valid[c] = 1;
    }
  }
  tide_free(ids, (size_t)cnt * sizeof(int64_t));
  tide_free(tmp, (size_t)cnt * sizeof(int64_t));
  return TIDE_OK;
}

static int check_dir(int direction, double *maxdist, const char *fn) {
  if (direction != 1 && direction != -1)
    return tide_fail(TIDE_EINVAL, "%s: direction must be +1 or -1, got %d", fn, direction);
  if (isnan(*maxdist)) return tide_fail(TIDE_EINVAL, "%s: maxdist is NaN", fn);
  if (!(*maxdist > 0)) *maxdist = INFINITY;
  return TIDE_OK;
}

static int check_finite(const double *f, int64_t n, const char *fn, const char *what) {
  int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (int64_t c = 0; c < n; c++)
    bad += !isfinite(f[c]);
  return bad ? tide_fail(TIDE_ENONFINITE, "%s: %lld non-finite values in %s", fn, (long long)bad,
                         what)
             : TIDE_OK;
}

int tide_levelset_extrapolate(const tide_grid *g, const double *phi, int direction, double maxdist,
                              double *q, uint8_t *valid) {
  const char *fn = "extrapolate";
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, fn);
  if (st || (st = check_dir(direction, &maxdist, fn))) return st;
  if (!phi || !q || !valid) return tide_fail(TIDE_EINVAL, "%s: missing phi, field or mask", fn);
  int64_t N = tide_grid_ncells(g);
  if ((st = check_finite(phi, N, fn, "phi"))) return st;
  double *key = tide_alloc((size_t)N * sizeof(double));
  if (!key) return TIDE_ENOMEM;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < N; c++)
    key[c] = direction * phi[c];
  box_t b = make_box(g->dim, g->n);
  st = extrapolate_box(&b, key, maxdist, q, valid);
  tide_free(key, (size_t)N * sizeof(double));
  return st;
}

/* phi on the faces of axis a: the mean of the two cells beside an inner
 * face, linear extrapolation from the two nearest cells on a boundary face
 * (so a linear phi is exact everywhere) */
static void face_phi(const tide_grid *g, int a, const double *phi, double *out) {
  int fd[3];
  tide_grid_face_dims(g, a, fd);
  int64_t cs = a == 0 ? (int64_t)g->n[1] * g->n[2] : a == 1 ? g->n[2] : 1;
  int na = g->n[a];
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < fd[0]; i++)
    for (int j = 0; j < fd[1]; j++)
      for (int k = 0; k < fd[2]; k++) {
        int ijk[3] = {i, j, k};
        int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
        int p = ijk[a];
        ijk[a] = p < na ? p : na - 1;
        int64_t c = tide_grid_idx(g, ijk[0], ijk[1], ijk[2]); /* a cell beside the face */
        if (p > 0 && p < na)
          out[f] = 0.5 * (phi[c] + phi[c - cs]);
        else if (na < 2)
          out[f] = phi[c];
        else if (p == 0)
          out[f] = 1.5 * phi[c] - 0.5 * phi[c + cs];
        else
          out[f] = 1.5 * phi[c] - 0.5 * phi[c - cs];
      }
}

static int check_valid_mac(const tide_mac *m, const tide_mac *v, const char *fn) {
  int st = tide_mac_check(m, NULL, TIDE_F64, "field");
  if (st) return st;
  return tide_mac_check(v, &m->grid, TIDE_U8, "valid");
}

int tide_levelset_extrapolate_mac(tide_mac *m, const double *phi, int direction, double maxdist,
                                  tide_mac *valid) {
  const char *fn = "extrapolate (mac)";
  int st = check_dir(direction, &maxdist, fn);
  if (st || (st = check_valid_mac(m, valid, fn))) return st;
  const tide_grid *g = &m->grid;
  if (!phi) return tide_fail(TIDE_EINVAL, "%s: no phi", fn);
  if ((st = check_finite(phi, tide_grid_ncells(g), fn, "phi"))) return st;
  int64_t nmax = 0;
  for (int a = 0; a < g->dim; a++) {
    int64_t n = tide_array_size(m->u[a]);
    if (n > nmax) nmax = n;
  }
  double *key = tide_alloc((size_t)nmax * sizeof(double));
  if (!key) return TIDE_ENOMEM;
  for (int a = 0; a < g->dim && !st; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t n = tide_array_size(m->u[a]);
    face_phi(g, a, phi, key);
    for (int64_t f = 0; f < n; f++)
      key[f] *= direction;
    box_t b = make_box(g->dim, fd);
    st = extrapolate_box(&b, key, maxdist, TIDE_F64P(m->u[a]), TIDE_U8P(valid->u[a]));
  }
  tide_free(key, (size_t)nmax * sizeof(double));
  return st;
}

int tide_levelset_valid_faces(const double *phi, tide_mac *valid) {
  int st = tide_mac_check(valid, NULL, TIDE_U8, "valid");
  if (st) return st;
  if (!phi) return tide_fail(TIDE_EINVAL, "valid faces: no phi");
  const tide_grid *g = &valid->grid;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    uint8_t *v = TIDE_U8P(valid->u[a]);
#pragma omp parallel for collapse(2) schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int ijk[3] = {i, j, k};
          int in = 0;
          if (ijk[a] < g->n[a]) in |= phi[tide_grid_idx(g, i, j, k)] < 0;
          if (ijk[a] > 0) {
            ijk[a]--;
            in |= phi[tide_grid_idx(g, ijk[0], ijk[1], ijk[2])] < 0;
          }
          v[((int64_t)i * fd[1] + j) * fd[2] + k] = (uint8_t)in;
        }
  }
  return TIDE_OK;
}

/* -------------------------------------------------- solid constraint */

int tide_levelset_constrain_mac(tide_mac *m, const tide_mac *keep, const double *solid_phi,
                                int solid_at, const tide_mac *solid_vel) {
  const char *fn = "constrain (mac)";
  int st = check_valid_mac(m, keep, fn);
  if (st) return st;
  const tide_grid *g = &m->grid;
  if (!solid_phi) return tide_fail(TIDE_EINVAL, "%s: no solid phi", fn);
  if (solid_at != TIDE_AT_CELLS && solid_at != TIDE_AT_NODES)
    return tide_fail(TIDE_EINVAL, "%s: solid phi must be at cells or nodes", fn);
  if (solid_vel && (st = tide_mac_check(solid_vel, g, TIDE_F64, "solid velocity"))) return st;
  int sd[3];
  tide_grid_sample_dims(g, solid_at, sd);
  if ((st = check_finite(solid_phi, (int64_t)sd[0] * sd[1] * sd[2], fn, "solid phi"))) return st;
  /* the solid SDF as a lattice (cells: lo = origin + dx/2; nodes: lo = origin) */
  tide_lattice S;
  tide_lattice_cells(g, solid_phi, &S);
  if (solid_at == TIDE_AT_NODES)
    for (int d = 0; d < g->dim; d++) {
      S.n[d] += 1;
      S.lo[d] -= 0.5 * g->dx;
    }
  int64_t ntot = 0, off[3] = {0, 0, 0};
  for (int a = 0; a < g->dim; a++) {
    off[a] = ntot;
    ntot += tide_array_size(m->u[a]);
  }
  double *out = tide_alloc((size_t)ntot * sizeof(double));
  if (!out) return TIDE_ENOMEM;
  const double h = 0.5 * g->dx;
  for (int a = 0; a < g->dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    const double *u = TIDE_F64P(m->u[a]);
    const uint8_t *kp = TIDE_U8P(keep->u[a]);
    double *o = out + off[a];
    int at = TIDE_AT_FACES_X + a;
#pragma omp parallel for collapse(2) schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
          o[f] = u[f];
          if (kp[f]) continue;
          double x[3];
          tide_grid_sample_pos(g, at, i, j, k, x);
          if (!(tide_lattice_interp(&S, x) < 0)) continue;
          double n[3] = {0, 0, 0}, l2 = 0;
          for (int d = 0; d < g->dim; d++) {
            double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
            xp[d] += h;
            xm[d] -= h;
            n[d] = tide_lattice_interp(&S, xp) - tide_lattice_interp(&S, xm);
            l2 += n[d] * n[d];
          }
          if (!(l2 > 0)) continue;
          double vel[3] = {0, 0, 0}, vs[3] = {0, 0, 0}, un = 0;
          tide_mac_velocity(m, x, vel);
          vel[a] = u[f];
          if (solid_vel) tide_mac_velocity(solid_vel, x, vs);
          for (int d = 0; d < g->dim; d++)
            un += (vel[d] - vs[d]) * n[d];
          o[f] = u[f] - un * n[a] / l2;
        }
  }
  for (int a = 0; a < g->dim; a++)
    memcpy(TIDE_F64P(m->u[a]), out + off[a], (size_t)tide_array_size(m->u[a]) * sizeof(double));
  tide_free(out, (size_t)ntot * sizeof(double));
  return TIDE_OK;
}
