/* project.c -- pressure projection with a free surface, solid walls,
 * optional ghost-fluid interface and face fractions (see project.h).
 *
 * With the scaled pressure q = p dt / (rho dx) [m/s] the update of a face f
 * between cells lo and hi is u_f = u*_f - (q_hi - q_lo) and the equation of
 * liquid cell c (Zarifi Eq. 4.38 times dx^2 rho / dt) reads
 *   sum_f A_f (q_c - q_n) = -sum_f s_f A_f u*_f,   s_f = +1 (outward) / -1,
 * with q_n = q_c (1 - 1/theta) for an air neighbour (ghost fluid, Eq. 4.40,
 * 4.43; theta = 1 without a level set: p = 0 at the air cell centre).  The
 * matrix has O(1) entries and the right-hand side is a flux in m/s. */
#include "liquid/project.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

typedef struct {
  const tide_grid *g;
  const uint8_t *lab;
  const double *phi;
  const double *frac[3];
  double theta_min;
} ctx;

/* open fraction of face (axis a, face index (i, j, k)): 0 on the domain
 * boundary and next to solid cells, the given fraction (or 1) otherwise */
static inline double face_open(const ctx *c, int a, int i, int j, int k) {
  const tide_grid *g = c->g;
  int f[3] = {i, j, k};
  if (f[a] == 0 || f[a] == g->n[a]) return 0;
  int64_t hi = tide_grid_idx(g, i, j, k);
  f[a] -= 1;
  int64_t lo = tide_grid_idx(g, f[0], f[1], f[2]);
  if (c->lab[hi] == TIDE_CELL_SOLID || c->lab[lo] == TIDE_CELL_SOLID) return 0;
  return c->frac[a] ? c->frac[a][tide_grid_fidx(g, a, i, j, k)] : 1;
}

/* 1/theta for the face between liquid cell l and air cell n */
static inline double inv_theta(const ctx *c, int64_t l, int64_t n) {
  if (!c->phi) return 1;
  double pl = c->phi[l], pa = c->phi[n];
  double theta = (pl < 0 && pa >= 0) ? pl / (pl - pa) : 1;
  if (theta < c->theta_min) theta = c->theta_min;
  if (theta > 1) theta = 1;
  return 1 / theta;
}

/* net outward A-weighted flux of cell (i, j, k) [m/s * dx^0]: dx * div */
static inline double cell_flux(const ctx *c, const tide_mac *u, int i, int j, int k) {
  const tide_grid *g = c->g;
  double s = 0;
  for (int a = 0; a < g->dim; a++) {
    const double *ua = TIDE_F64P(u->u[a]);
    int f[3] = {i, j, k};
    double alo = face_open(c, a, f[0], f[1], f[2]);
    double ulo = ua[tide_grid_fidx(g, a, f[0], f[1], f[2])];
    f[a] += 1;
    double ahi = face_open(c, a, f[0], f[1], f[2]);
    double uhi = ua[tide_grid_fidx(g, a, f[0], f[1], f[2])];
    s += ahi * uhi - alo * ulo;
  }
  return s;
}

int tide_liquid_project(tide_mac *u, const tide_array *labels, const tide_project_opts *o,
                        tide_mac *valid, tide_array *pressure, tide_project_stats *stats) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (!(o->dt > 0) || !isfinite(o->dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  if (!(o->rho > 0) || !isfinite(o->rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (o->maxit < 0) return tide_fail(TIDE_EINVAL, "maxit must be >= 0");
  if (!(o->theta_min > 0 && o->theta_min <= 1)) return tide_fail(TIDE_EINVAL, "theta_min must be in (0, 1]");
  if (o->phi && (st = tide_grid_check_cells(g, o->phi, TIDE_F64, "phi"))) return st;
  if (o->fractions) {
    if ((st = tide_mac_check(o->fractions, g, TIDE_F64, "fractions"))) return st;
    for (int a = 0; a < g->dim; a++) {
      double lo, hi;
      tide_array_minmax(o->fractions->u[a], &lo, &hi);
      if (!(lo >= 0 && hi <= 1)) return tide_fail(TIDE_EINVAL, "face fractions must lie in [0, 1]");
    }
  }
  if (o->phi && tide_array_nonfinite(o->phi)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
  if (valid && (st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if (pressure && (st = tide_grid_check_cells(g, pressure, TIDE_F64, "pressure"))) return st;
  if (o->target) {
    if ((st = tide_grid_check_cells(g, o->target, TIDE_F64, "target"))) return st;
    if (tide_array_nonfinite(o->target)) return tide_fail(TIDE_ENONFINITE, "target holds non-finite values");
  }
  const double *target = o->target ? TIDE_F64P(o->target) : NULL;
  for (int a = 0; a < g->dim; a++)
    if (tide_array_nonfinite(u->u[a])) return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
  int64_t nc = tide_grid_ncells(g);
  if (nc >= INT32_MAX) return tide_fail(TIDE_EINVAL, "grid too large for 32-bit matrix indices");

  ctx c = {g, TIDE_U8P(labels), o->phi ? TIDE_F64P(o->phi) : NULL, {NULL, NULL, NULL}, o->theta_min};
  if (o->fractions)
    for (int a = 0; a < g->dim; a++) c.frac[a] = TIDE_F64P(o->fractions->u[a]);
  const uint8_t *lab = c.lab;
  int dim = g->dim, ni = g->n[0], nj = g->n[1], nk = g->n[2];
  int64_t step[3] = {(int64_t)nj * nk, nk, 1};

  /* row numbers of the liquid cells, and entries per row */
  int32_t *row = tide_alloc((size_t)nc * sizeof(int32_t));
  if (!row) return TIDE_ENOMEM;
  int64_t n = 0;
  for (int64_t q = 0; q < nc; q++) row[q] = lab[q] == TIDE_CELL_LIQUID ? (int32_t)n++ : -1;
  memset(stats, 0, sizeof *stats);
  stats->unknowns = n;

  tide_csr *A = NULL;
  double *b = NULL, *x = NULL;
  size_t vbytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
  if (n > 0) {
    st = tide_csr_new((int)n, (int)n, n * (2 * dim + 1), &A);
    if (st) goto done;
    b = tide_alloc(vbytes);
    x = tide_calloc(vbytes);
    if (!b || !x) {
      st = TIDE_ENOMEM;
      goto done;
    }
    /* row lengths */
    int *rp = A->rowptr;
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
    for (int i = 0; i < ni; i++)
      for (int j = 0; j < nj; j++)
        for (int k = 0; k < nk; k++) {
          int64_t q = tide_grid_idx(g, i, j, k);
          if (row[q] < 0) continue;
          int cnt = 1, cc[3] = {i, j, k};
          for (int a = 0; a < dim; a++)
            for (int s = 0; s < 2; s++) {
              int f[3] = {cc[0], cc[1], cc[2]};
              f[a] += s;
              int nb = cc[a] + (s ? 1 : -1);
              if (nb < 0 || nb >= g->n[a]) continue;
              if (face_open(&c, a, f[0], f[1], f[2]) > 0 && row[q + (s ? step[a] : -step[a])] >= 0) cnt++;
            }
          rp[row[q] + 1] = cnt;
        }
    rp[0] = 0;
    for (int64_t r = 0; r < n; r++) rp[r + 1] += rp[r];
    int air_faces = 0;
    /* entries in ascending column order: -x, -y, -z, diagonal, +z, +y, +x */
#pragma omp parallel for schedule(static) reduction(+ : air_faces) if (nc > TIDE_PAR_MIN)
    for (int i = 0; i < ni; i++)
      for (int j = 0; j < nj; j++)
        for (int k = 0; k < nk; k++) {
          int64_t q = tide_grid_idx(g, i, j, k);
          if (row[q] < 0) continue;
          int r = row[q], cc[3] = {i, j, k};
          int64_t pos = A->rowptr[r];
          double diag = 0;
          int dpos = -1;
          for (int side = 0; side < 2; side++)
            for (int aa = 0; aa < dim; aa++) {
              int a = side == 0 ? aa : dim - 1 - aa; /* low side x,y,z then high side z,y,x */
              if (side == 1 && dpos < 0) dpos = (int)(pos++);
              int f[3] = {cc[0], cc[1], cc[2]};
              f[a] += side;
              int nb = cc[a] + (side ? 1 : -1);
              if (nb < 0 || nb >= g->n[a]) continue;
              double af = face_open(&c, a, f[0], f[1], f[2]);
              if (af <= 0) continue;
              int64_t qn = q + (side ? step[a] : -step[a]);
              if (row[qn] >= 0) {
                diag += af;
                A->col[pos] = row[qn];
                A->val[pos] = -af;
                pos++;
              } else {
                diag += af * inv_theta(&c, q, qn); /* air: ghost pressure */
                air_faces++;
              }
            }
          A->col[dpos] = r;
          A->val[dpos] = diag;
          b[r] = -cell_flux(&c, u, i, j, k) + (target ? g->dx * target[q] : 0);
        }
    A->stype = TIDE_CSR_GENERAL;
    if ((st = tide_csr_finish(A))) goto done;

    double bmax = 0;
    for (int64_t r = 0; r < n; r++) bmax = fmax(bmax, fabs(b[r]));
    stats->div_before = bmax / g->dx;

    tide_solve_opts so = tide_solve_opts_default();
    so.tol = o->tol;
    if (o->maxit > 0) so.maxit = o->maxit;
    so.nullspace = air_faces == 0; /* closed container filled with liquid */
    tide_solve_stats ss;
    st = tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, b, x, &so, &ss);
    stats->iterations = ss.iterations;
    stats->residual = ss.residual;
    if (st) goto done;
  }

  /* velocity update on every face with a liquid side; walls get 0 */
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *ua = TIDE_F64P(u->u[a]);
    uint8_t *va = valid ? TIDE_U8P(valid->u[a]) : NULL;
#pragma omp parallel for schedule(static) if ((int64_t)fd[0] * fd[1] * fd[2] > TIDE_PAR_MIN)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
          double af = face_open(&c, a, i, j, k);
          uint8_t ok = 0;
          if (af <= 0) {
            ua[f] = 0; /* static solid: normal velocity 0 */
          } else {
            int64_t qhi = tide_grid_idx(g, i, j, k), qlo = qhi - step[a];
            int rl = row[qlo], rh = row[qhi];
            if (rl >= 0 || rh >= 0) {
              double xl = rl >= 0 ? x[rl] : x[rh] * (1 - inv_theta(&c, qhi, qlo));
              double xh = rh >= 0 ? x[rh] : x[rl] * (1 - inv_theta(&c, qlo, qhi));
              ua[f] -= xh - xl;
              ok = 1;
            }
          }
          if (va) va[f] = ok;
        }
  }

  /* divergence left in the liquid, and the pressure in Pa */
  double dmax = 0;
  double pscale = o->rho * g->dx / o->dt;
  double *pp = pressure ? TIDE_F64P(pressure) : NULL;
#pragma omp parallel for schedule(static) reduction(max : dmax) if (nc > TIDE_PAR_MIN)
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t q = tide_grid_idx(g, i, j, k);
        if (pp) pp[q] = row[q] >= 0 ? x[row[q]] * pscale : 0;
        if (row[q] < 0) continue;
        double d = fabs(cell_flux(&c, u, i, j, k) - (target ? g->dx * target[q] : 0));
        if (d > dmax) dmax = d;
      }
  stats->div_after = dmax / g->dx;
  st = TIDE_OK;

done:
  tide_free(row, (size_t)nc * sizeof(int32_t));
  tide_free(b, vbytes);
  tide_free(x, vbytes);
  tide_csr_free(A);
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

int tide_liquid_density_target(const tide_array *rho, const tide_array *labels, double per_cell,
                               double band, double rate, int mean, tide_array *out,
                               double *mean_density) {
  int st;
  if ((st = tide_array_expect(labels, "labels", TIDE_U8, labels->ndim, labels->shape))) return st;
  if ((st = tide_array_expect(rho, "rho", TIDE_F64, labels->ndim, labels->shape))) return st;
  if ((st = tide_array_expect(out, "out", TIDE_F64, labels->ndim, labels->shape))) return st;
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
  /* mean density of the deep interior: sum over d == 2 of rho */
  double cnt = 0, sum = 0;
  for (int64_t q = 0; q < n; q++)
    if (d[q] == 2) cnt += 1, sum += r[q];
  double avg = cnt > 0 ? sum / (cnt * per_cell) : 1;
  if (mean_density) *mean_density = avg;
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t q = 0; q < n; q++) {
    double ex = (mean ? avg : r[q] / per_cell) - 1, over = fabs(ex) - band;
    d[q] = d[q] > 0 && over > 0 ? rate * copysign(over, ex) : 0;
  }
  return TIDE_OK;
}
