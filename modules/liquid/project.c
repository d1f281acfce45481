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

struct tide_projector {
  tide_grid grid;
  double *theta[3];       /* face arrays */
  int64_t nface[3];
  double *b, *x;          /* ncells */
  int *rowof;             /* ncells */
  double *bb, *xx;        /* unknowns (PCG path), grown on demand */
  int64_t nunk_cap;
  tide_mac_solver *mac;   /* matrix-free solver, created on first use */
  uint8_t *lab2;          /* labels with closed liquid cells made solid (on demand) */
  double *wfix[3];        /* face weights with the fixed faces closed (on demand) */
  int mac_method;
};

int tide_projector_new(const tide_grid *g, tide_projector **out) {
  tide_projector *w = tide_calloc(sizeof *w);
  if (!w) return TIDE_ENOMEM;
  w->grid = *g;
  int64_t nc = tide_grid_ncells(g);
  w->b = tide_calloc((size_t)nc * sizeof(double));
  w->x = tide_calloc((size_t)nc * sizeof(double));
  w->rowof = tide_calloc((size_t)nc * sizeof(int));
  int ok = w->b && w->x && w->rowof;
  for (int a = 0; a < g->dim && ok; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    w->nface[a] = (int64_t)fd[0] * fd[1] * fd[2];
    w->theta[a] = tide_calloc((size_t)w->nface[a] * sizeof(double));
    ok = w->theta[a] != NULL;
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
  for (int a = 0; a < 3; a++) {
    tide_free(w->theta[a], (size_t)w->nface[a] * sizeof(double));
    tide_free(w->wfix[a], (size_t)w->nface[a] * sizeof(double));
  }
  tide_free(w->bb, (size_t)w->nunk_cap * sizeof(double));
  tide_free(w->xx, (size_t)w->nunk_cap * sizeof(double));
  tide_mac_solver_free(w->mac);
  tide_free(w->lab2, (size_t)nc);
  tide_free(w, sizeof *w);
}

int64_t tide_projector_bytes(const tide_projector *w) {
  int64_t nc = tide_grid_ncells(&w->grid), n = 2 * nc * 8 + nc * 4 + 2 * w->nunk_cap * 8;
  for (int a = 0; a < 3; a++) n += w->nface[a] * (w->wfix[a] ? 16 : 8);
  if (w->mac) {
    tide_mac_solver_info info;
    if (tide_mac_solver_info_get(w->mac, &info) == TIDE_OK) n += info.bytes;
  }
  return n;
}

/* A_f of face (a, i, j, k): 0 on the domain boundary, next to solid cells
 * and on fixed faces (fix: u8 face mask or NULL), the given fraction (or 1)
 * otherwise */
static inline double face_open(const tide_grid *g, const uint8_t *lab, const double *frac, const uint8_t *fix,
                               int a, int i, int j, int k) {
  int f[3] = {i, j, k};
  if (f[a] == 0 || f[a] == g->n[a]) return 0;
  if (fix && fix[tide_grid_fidx(g, a, i, j, k)]) return 0;
  int64_t hi = tide_grid_idx(g, i, j, k);
  f[a] -= 1;
  int64_t lo = tide_grid_idx(g, f[0], f[1], f[2]);
  if (lab[hi] == TIDE_CELL_SOLID || lab[lo] == TIDE_CELL_SOLID) return 0;
  return frac ? frac[tide_grid_fidx(g, a, i, j, k)] : 1;
}

/* sum_f s_f (A_f u_f + (1 - A_f) us_f) of cell (i, j, k) [m/s]: dx times the
 * divergence, with us the normal velocity of the solid part of each face
 * (NULL: static solids); a fixed face carries u_f */
static inline double cell_flux(const tide_grid *g, const uint8_t *lab, const double *const *frac,
                               const uint8_t *const *fix, const double *const *us, const tide_mac *u,
                               int i, int j, int k, int *air_open) {
  double s = 0;
  for (int a = 0; a < g->dim; a++) {
    const double *ua = TIDE_F64P(u->u[a]);
    int f[3] = {i, j, k};
    for (int side = 0; side < 2; side++) {
      f[a] = (a == 0 ? i : a == 1 ? j : k) + side;
      double af = face_open(g, lab, frac[a], fix[a], a, f[0], f[1], f[2]);
      int64_t fi = tide_grid_fidx(g, a, f[0], f[1], f[2]);
      double flux = fix[a] && fix[a][fi] && f[a] > 0 && f[a] < g->n[a]
                        ? ua[fi]
                        : (af > 0 ? af * ua[fi] : 0) + (us[a] ? (1 - af) * us[a][fi] : 0);
      s += side ? flux : -flux;
      if (air_open && af > 0) {
        int nb[3] = {i, j, k};
        nb[a] += side ? 1 : -1;
        if (lab[tide_grid_idx(g, nb[0], nb[1], nb[2])] == TIDE_CELL_AIR) *air_open = 1;
      }
    }
  }
  return s;
}

static int solve_pcg(tide_projector *w, const tide_mac_poisson *P, int nullspace, const tide_project_opts *o,
                     tide_solve_stats *ss) {
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
  for (int64_t c = 0; c < nc; c++) w->x[c] = rowof[c] >= 0 ? xx[rowof[c]] : 0;
  return st;
}

static int solve_mac(tide_projector *w, const tide_mac_poisson *P, const tide_project_opts *o,
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
  return tide_mac_solver_solve(w->mac, w->b, w->x, &so, ss);
}

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
  if (o->phi && tide_array_nonfinite(o->phi)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
  if (o->fractions) {
    if ((st = tide_mac_check(o->fractions, g, TIDE_F64, "fractions"))) return st;
    for (int a = 0; a < g->dim; a++) {
      double lo, hi;
      tide_array_minmax(o->fractions->u[a], &lo, &hi);
      if (!(lo >= 0 && hi <= 1)) return tide_fail(TIDE_EINVAL, "face fractions must lie in [0, 1]");
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
  if (o->target) {
    if ((st = tide_grid_check_cells(g, o->target, TIDE_F64, "target"))) return st;
    if (tide_array_nonfinite(o->target)) return tide_fail(TIDE_ENONFINITE, "target holds non-finite values");
  }
  for (int a = 0; a < g->dim; a++)
    if (tide_array_nonfinite(u->u[a])) return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
  if (tide_grid_ncells(g) >= INT32_MAX) return tide_fail(TIDE_EINVAL, "grid too large for 32-bit matrix indices");
  tide_projector *w = work;
  if (w && !tide_grid_same(&w->grid, g)) return tide_fail(TIDE_EINVAL, "projector was made for another grid");
  if (!w && (st = tide_projector_new(g, &w))) return st;

  const uint8_t *lab = TIDE_U8P(labels);
  const double *frac[3] = {NULL, NULL, NULL}, *us[3] = {NULL, NULL, NULL};
  const uint8_t *fix[3] = {NULL, NULL, NULL};
  for (int a = 0; a < g->dim; a++) {
    frac[a] = o->fractions ? TIDE_F64P(o->fractions->u[a]) : NULL;
    us[a] = o->solid_velocity ? TIDE_F64P(o->solid_velocity->u[a]) : NULL;
    fix[a] = o->fixed ? TIDE_U8P(o->fixed->u[a]) : NULL;
  }
  int64_t nc0 = tide_grid_ncells(g);
  if (o->fractions || o->fixed) {
    /* a liquid cell all of whose faces are closed has no equation: treat it
     * as solid (on a private copy of the labels) */
    int64_t closed = 0;
#pragma omp parallel for schedule(static) reduction(+ : closed) if (nc0 > TIDE_PAR_MIN)
    for (int64_t q = 0; q < nc0; q++) {
      if (lab[q] != TIDE_CELL_LIQUID) continue;
      int i = (int)(q / ((int64_t)g->n[1] * g->n[2])), j = (int)(q / g->n[2] % g->n[1]), k = (int)(q % g->n[2]);
      double open = 0;
      for (int a = 0; a < g->dim; a++) {
        int f[3] = {i, j, k};
        open += face_open(g, lab, frac[a], fix[a], a, f[0], f[1], f[2]);
        f[a] += 1;
        open += face_open(g, lab, frac[a], fix[a], a, f[0], f[1], f[2]);
      }
      closed += open <= 0;
    }
    if (closed) {
      if (!w->lab2 && !(w->lab2 = tide_alloc((size_t)nc0))) {
        st = TIDE_ENOMEM;
        goto done;
      }
      for (int64_t q = 0; q < nc0; q++) w->lab2[q] = lab[q];
      for (int64_t q = 0; q < nc0; q++) {
        if (lab[q] != TIDE_CELL_LIQUID) continue;
        int i = (int)(q / ((int64_t)g->n[1] * g->n[2])), j = (int)(q / g->n[2] % g->n[1]), k = (int)(q % g->n[2]);
        double open = 0;
        for (int a = 0; a < g->dim; a++) {
          int f[3] = {i, j, k};
          open += face_open(g, lab, frac[a], fix[a], a, f[0], f[1], f[2]);
          f[a] += 1;
          open += face_open(g, lab, frac[a], fix[a], a, f[0], f[1], f[2]);
        }
        if (open <= 0) w->lab2[q] = TIDE_CELL_SOLID;
      }
      lab = w->lab2;
    }
  }
  tide_mac_poisson P = tide_mac_poisson_make(g, lab);
  P.theta_min = o->theta_min;
  for (int a = 0; a < g->dim; a++) P.weight[a] = frac[a];
  if (o->fixed) /* fixed faces are closed for the pressure */
    for (int a = 0; a < g->dim; a++) {
      if (!w->wfix[a] && !(w->wfix[a] = tide_alloc((size_t)w->nface[a] * sizeof(double)))) {
        st = TIDE_ENOMEM;
        goto done;
      }
      double *wf = w->wfix[a];
      const double *fa = frac[a];
      const uint8_t *xa = fix[a];
      int64_t nf = w->nface[a];
#pragma omp parallel for schedule(static) if (nf > TIDE_PAR_MIN)
      for (int64_t f = 0; f < nf; f++) wf[f] = xa[f] ? 0 : fa ? fa[f] : 1;
      P.weight[a] = wf;
    }
  if (o->phi) {
    if ((st = tide_mac_poisson_theta(g, lab, TIDE_F64P(o->phi), w->theta))) goto done;
    for (int a = 0; a < g->dim; a++) P.theta[a] = w->theta[a];
  }
  const double *target = o->target ? TIDE_F64P(o->target) : NULL;
  int dim = g->dim, ni = g->n[0], nj = g->n[1], nk = g->n[2];
  int64_t nc = tide_grid_ncells(g);
  double scale = o->rho / (o->dt * g->dx), *b = w->b;

  /* right-hand side -rho/dt (div_A u* - d) and the largest divergence */
  int air = 0;
  double dmax = 0;
  int64_t n = 0;
#pragma omp parallel for schedule(static) reduction(| : air) reduction(max : dmax) reduction(+ : n) if (nc > TIDE_PAR_MIN)
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t q = tide_grid_idx(g, i, j, k);
        b[q] = 0;
        if (lab[q] != TIDE_CELL_LIQUID) continue;
        n++;
        int air_open = 0;
        double r = cell_flux(g, lab, frac, fix, us, u, i, j, k, &air_open) - (target ? g->dx * target[q] : 0);
        air |= air_open;
        b[q] = -scale * r;
        if (fabs(r) > dmax) dmax = fabs(r);
      }
  memset(stats, 0, sizeof *stats);
  stats->unknowns = n;
  stats->div_before = dmax / g->dx;
  tide_solve_stats ss = {0};
  if (n > 0) {
    st = o->method == TIDE_PROJECT_PCG ? solve_pcg(w, &P, !air, o, &ss) : solve_mac(w, &P, o, &ss);
    stats->iterations = ss.iterations;
    stats->residual = ss.residual;
    if (st) goto done;
  } else {
    memset(w->x, 0, (size_t)nc * sizeof(double));
  }

  /* velocity update on every face with a liquid side; walls get 0 */
  const double *p = w->x, tmin = o->theta_min;
  double gscale = o->dt / (o->rho * g->dx);
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    double *ua = TIDE_F64P(u->u[a]);
    uint8_t *va = valid ? TIDE_U8P(valid->u[a]) : NULL;
    const uint8_t *xa = fix[a];
    const double *th = P.theta[a];
    int64_t sa = a == 0 ? (int64_t)nj * nk : a == 1 ? nk : 1;
#pragma omp parallel for schedule(static) if ((int64_t)fd[0] * fd[1] * fd[2] > TIDE_PAR_MIN)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
          int interior = (a == 0 ? i : a == 1 ? j : k) % g->n[a] != 0;
          if (xa && xa[f] && interior) { /* prescribed velocity: kept */
            if (va) va[f] = 1;
            continue;
          }
          double af = face_open(g, lab, frac[a], xa, a, i, j, k);
          uint8_t ok = 0;
          if (af <= 0) {
            ua[f] = us[a] ? us[a][f] : 0; /* closed face: the solid's normal velocity */
          } else {
            int64_t qhi = tide_grid_idx(g, i, j, k), qlo = qhi - sa;
            int liq_lo = lab[qlo] == TIDE_CELL_LIQUID, liq_hi = lab[qhi] == TIDE_CELL_LIQUID;
            if (liq_lo || liq_hi) {
              double t = th ? th[f] : 1;
              if (!(t >= tmin)) t = tmin;
              double plo = liq_lo ? p[qlo] : p[qhi] * (1 - 1 / t);
              double phi_hi = liq_hi ? p[qhi] : p[qlo] * (1 - 1 / t);
              ua[f] -= gscale * (phi_hi - plo);
              ok = 1;
            }
          }
          if (va) va[f] = ok;
        }
  }

  /* divergence left in the liquid, and the pressure in Pa */
  dmax = 0;
  double *pp = pressure ? TIDE_F64P(pressure) : NULL;
#pragma omp parallel for schedule(static) reduction(max : dmax) if (nc > TIDE_PAR_MIN)
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t q = tide_grid_idx(g, i, j, k);
        int liquid = lab[q] == TIDE_CELL_LIQUID;
        if (pp) pp[q] = liquid ? p[q] : 0;
        if (!liquid) continue;
        double d = fabs(cell_flux(g, lab, frac, fix, us, u, i, j, k, NULL) - (target ? g->dx * target[q] : 0));
        if (d > dmax) dmax = d;
      }
  stats->div_after = dmax / g->dx;
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

int tide_liquid_density_target(const tide_array *rho, const tide_array *labels,
                               const tide_mac *fractions, double per_cell, double band, double rate,
                               int mean, tide_array *out, double *mean_density) {
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
    if (fractions) { /* a cut cell: its open volume holds fewer particles */
      int cut = 0;
      const tide_grid *fg = &fractions->grid;
      for (int a = 0; a < nd && !cut; a++) {
        int f[3] = {(int)idx[0], (int)idx[1], (int)idx[2]};
        const double *fr = TIDE_F64P(fractions->u[a]);
        cut |= fr[tide_grid_fidx(fg, a, f[0], f[1], f[2])] < 1;
        f[a] += 1;
        cut |= fr[tide_grid_fidx(fg, a, f[0], f[1], f[2])] < 1;
      }
      if (cut) continue;
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
