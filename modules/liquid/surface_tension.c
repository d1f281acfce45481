/* surface_tension.c -- curvature, ghost-fluid pressure jump and the
 * semi-implicit narrow-band surface tension of Liu et al. Eq. 8 (see
 * surface_tension.h). */
#include "liquid/surface_tension.h"
#include "liquid/periodic.h"
#include "linalg/mac_poisson.h"

#include <math.h>
#include <string.h>

/* phi at cell I (each index at most one cell outside the grid): periodic
 * axes wrap, walls extend phi linearly (phi(-1) = 2 phi(0) - phi(1)) */
static double phi_ext(const tide_grid *g, const double *phi, const int per[3], const int I[3]) {
  int J[3] = {I[0], I[1], I[2]};
  for (int d = 0; d < 3; d++) {
    if (J[d] >= 0 && J[d] < g->n[d]) continue;
    if (per[d]) {
      J[d] = tide_periodic_index(J[d], g->n[d], 1);
    } else if (g->n[d] < 2) {
      J[d] = 0;
    } else {
      int A[3] = {J[0], J[1], J[2]}, B[3] = {J[0], J[1], J[2]};
      A[d] = J[d] < 0 ? 0 : g->n[d] - 1;
      B[d] = J[d] < 0 ? 1 : g->n[d] - 2;
      return 2 * phi_ext(g, phi, per, A) - phi_ext(g, phi, per, B);
    }
  }
  return phi[tide_grid_idx(g, J[0], J[1], J[2])];
}

static inline double phi_at(const tide_grid *g, const double *phi, const int per[3], const int c[3],
                            const int off[3]) {
  int I[3] = {c[0] + off[0], c[1] + off[1], c[2] + off[2]};
  return phi_ext(g, phi, per, I);
}

/* first derivatives and the Hessian of phi at cell c by central differences */
static void derivs(const tide_grid *g, const double *phi, const int per[3], const int c[3], double d1[3],
                   double d2[3][3]) {
  int dim = g->dim;
  double h = g->dx, p0 = phi[tide_grid_idx(g, c[0], c[1], c[2])];
  for (int a = 0; a < 3; a++) {
    d1[a] = 0;
    for (int b = 0; b < 3; b++) d2[a][b] = 0;
  }
  for (int a = 0; a < dim; a++) {
    int op[3] = {0, 0, 0}, om[3] = {0, 0, 0};
    op[a] = 1;
    om[a] = -1;
    double pp = phi_at(g, phi, per, c, op), pm = phi_at(g, phi, per, c, om);
    d1[a] = (pp - pm) / (2 * h);
    d2[a][a] = (pp - 2 * p0 + pm) / (h * h);
    for (int b = a + 1; b < dim; b++) {
      int o1[3] = {0, 0, 0}, o2[3] = {0, 0, 0}, o3[3] = {0, 0, 0}, o4[3] = {0, 0, 0};
      o1[a] = 1, o1[b] = 1;
      o2[a] = 1, o2[b] = -1;
      o3[a] = -1, o3[b] = 1;
      o4[a] = -1, o4[b] = -1;
      double m = (phi_at(g, phi, per, c, o1) - phi_at(g, phi, per, c, o2) - phi_at(g, phi, per, c, o3) +
                  phi_at(g, phi, per, c, o4)) /
                 (4 * h * h);
      d2[a][b] = d2[b][a] = m;
    }
  }
}

static int check_per(const tide_grid *g, const int per[3]) {
  for (int d = 0; d < 3; d++)
    if (per[d] && (d >= g->dim || g->n[d] < 2))
      return tide_fail(TIDE_EINVAL, "periodic axis %d needs at least 2 cells of a %dD grid", d + 1, g->dim);
  return TIDE_OK;
}

int tide_liquid_curvature(const tide_grid *g, const double *phi, const int per[3], double *kappa) {
  int st;
  if ((st = check_per(g, per))) return st;
  int dim = g->dim;
  double kmax = 1.0 / g->dx;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        int c[3] = {i, j, k};
        double d1[3], d2[3][3];
        derivs(g, phi, per, c, d1, d2);
        double g2 = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
        double kap = 0;
        if (g2 > 1e-24) {
          double num = 0;
          for (int a = 0; a < dim; a++) {
            double s = 0;
            for (int b = 0; b < dim; b++)
              if (b != a) s += d1[b] * d1[b];
            num += d2[a][a] * s;
            for (int b = a + 1; b < dim; b++) num -= 2 * d1[a] * d1[b] * d2[a][b];
          }
          kap = num / (g2 * sqrt(g2));
          if (kap > kmax) kap = kmax;
          if (kap < -kmax) kap = -kmax;
          if (!isfinite(kap)) kap = 0;
        }
        kappa[tide_grid_idx(g, i, j, k)] = kap;
      }
  return TIDE_OK;
}

double tide_liquid_capillary_dt(double dx, double sigma, double rho) {
  if (!(sigma > 0)) return INFINITY;
  return sqrt(rho * dx * dx * dx / (2 * M_PI * sigma));
}

/* ------------------------------------------------------ ghost fluid jump */

tide_tension_opts tide_tension_opts_default(void) {
  tide_tension_opts o;
  memset(&o, 0, sizeof o);
  o.rho = 1000;
  o.theta_min = 0.01;
  return o;
}

static int check_phi(const tide_grid *g, const tide_array *phi) {
  int st;
  if ((st = tide_grid_check_cells(g, phi, TIDE_F64, "phi"))) return st;
  if (tide_array_nonfinite(phi)) return tide_fail(TIDE_ENONFINITE, "phi holds non-finite values");
  return TIDE_OK;
}

int tide_liquid_label_phi(const tide_grid *g, const tide_array *phi, const tide_array *solid,
                          tide_array *out) {
  int st;
  if ((st = check_phi(g, phi)) || (st = tide_grid_check_cells(g, out, TIDE_U8, "out"))) return st;
  if (solid && (st = tide_grid_check_cells(g, solid, TIDE_U8, "solid"))) return st;
  const double *p = TIDE_F64P(phi);
  const uint8_t *s = solid ? TIDE_U8P(solid) : NULL;
  uint8_t *o = TIDE_U8P(out);
  int64_t nc = tide_grid_ncells(g);
#pragma omp parallel for schedule(static) if (nc > 8192)
  for (int64_t q = 0; q < nc; q++)
    o[q] = (s && s[q] == TIDE_CELL_SOLID) ? TIDE_CELL_SOLID : p[q] < 0 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
  return TIDE_OK;
}

/* kappa from the options or computed into a new buffer (*own) */
static int get_kappa(const tide_grid *g, const tide_array *phi, const tide_array *kappa, const int per[3],
                     const double **out, double **own) {
  int st;
  *own = NULL;
  if (kappa) {
    if ((st = tide_grid_check_cells(g, kappa, TIDE_F64, "kappa"))) return st;
    if (tide_array_nonfinite(kappa)) return tide_fail(TIDE_ENONFINITE, "kappa holds non-finite values");
    *out = TIDE_F64P(kappa);
    return TIDE_OK;
  }
  int64_t nc = tide_grid_ncells(g);
  *own = tide_alloc((size_t)nc * sizeof(double));
  if (!*own) return TIDE_ENOMEM;
  if ((st = tide_liquid_curvature(g, TIDE_F64P(phi), per, *own))) return st;
  *out = *own;
  return TIDE_OK;
}

/* sigma kappa_G / theta on the face between liquid cell l and air cell a,
 * theta from the projection's ghost-fluid fractions (clamped as there) */
static inline double jump_over_theta(const double *kap, int64_t l, int64_t a, double th, double sigma,
                                     double tmin, double *pg) {
  if (!(th >= tmin)) th = tmin;
  double kg = kap[l] + th * (kap[a] - kap[l]);
  *pg = sigma * kg;
  return *pg / th;
}

int tide_liquid_surface_tension_jump(tide_mac *u, const tide_array *phi, const tide_tension_opts *o,
                                     tide_array *pjump) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = check_phi(g, phi))) return st;
  if (!(o->sigma >= 0) || !isfinite(o->sigma)) return tide_fail(TIDE_EINVAL, "sigma must be finite and >= 0");
  if (!(o->rho > 0) || !isfinite(o->rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  if (!(o->dt > 0) || !isfinite(o->dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  if (!(o->theta_min > 0 && o->theta_min <= 1)) return tide_fail(TIDE_EINVAL, "theta_min must be in (0, 1]");
  if ((st = check_per(g, o->periodic))) return st;
  if (o->labels && (st = tide_grid_check_cells(g, o->labels, TIDE_U8, "labels"))) return st;
  if (pjump && (st = tide_grid_check_cells(g, pjump, TIDE_F64, "pjump"))) return st;
  int64_t nc = tide_grid_ncells(g);
  int dim = g->dim;
  const double *kap;
  double *own = NULL, *theta[3] = {NULL, NULL, NULL};
  int64_t nfa[3] = {0, 0, 0};
  uint8_t *ownlab = NULL;
  if ((st = get_kappa(g, phi, o->kappa, o->periodic, &kap, &own))) goto done;
  /* labels (from phi when not given) and the ghost-fluid fractions of the
   * projection (mac_poisson.h), so the jump sits where the projection puts
   * the interface */
  const uint8_t *lab;
  if (o->labels) {
    lab = TIDE_U8P(o->labels);
  } else {
    if (!(ownlab = tide_alloc((size_t)nc))) {
      st = TIDE_ENOMEM;
      goto done;
    }
    const double *p0 = TIDE_F64P(phi);
    for (int64_t q = 0; q < nc; q++) ownlab[q] = p0[q] < 0 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
    lab = ownlab;
  }
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    nfa[a] = (int64_t)fd[0] * fd[1] * fd[2];
    if (!(theta[a] = tide_alloc((size_t)nfa[a] * sizeof(double)))) {
      st = TIDE_ENOMEM;
      goto done;
    }
  }
  if ((st = tide_mac_poisson_theta(g, lab, TIDE_F64P(phi), theta))) goto done;
  double scale = o->dt / (o->rho * g->dx), tmin = o->theta_min, sigma = o->sigma;
  for (int a = 0; a < dim; a++) {
    double *ua = TIDE_F64P(u->u[a]);
    const double *th = theta[a];
    int fd[3];
    tide_grid_face_dims(g, a, fd);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int I[3] = {i, j, k};
          if (I[a] == 0 || I[a] == g->n[a]) continue; /* domain wall */
          int64_t hi = tide_grid_idx(g, i, j, k);
          I[a] -= 1;
          int64_t lo = tide_grid_idx(g, I[0], I[1], I[2]);
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          double pg;
          if (lab[lo] == TIDE_CELL_LIQUID && lab[hi] == TIDE_CELL_AIR)
            ua[f] -= scale * jump_over_theta(kap, lo, hi, th[f], sigma, tmin, &pg);
          else if (lab[lo] == TIDE_CELL_AIR && lab[hi] == TIDE_CELL_LIQUID)
            ua[f] += scale * jump_over_theta(kap, hi, lo, th[f], sigma, tmin, &pg);
        }
  }
  if (pjump) {
    double *pj = TIDE_F64P(pjump);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < g->n[0]; i++)
      for (int j = 0; j < g->n[1]; j++)
        for (int k = 0; k < g->n[2]; k++) {
          int64_t q = tide_grid_idx(g, i, j, k);
          double s = 0;
          int cnt = 0;
          if (lab[q] == TIDE_CELL_LIQUID) {
            int c[3] = {i, j, k};
            for (int a = 0; a < dim; a++)
              for (int sd = 0; sd <= 1; sd++) {
                int nb[3] = {c[0], c[1], c[2]}, F[3] = {c[0], c[1], c[2]};
                nb[a] += sd ? 1 : -1;
                F[a] += sd; /* the face between c and nb */
                if (nb[a] < 0 || nb[a] >= g->n[a]) continue;
                int64_t qn = tide_grid_idx(g, nb[0], nb[1], nb[2]);
                if (lab[qn] != TIDE_CELL_AIR) continue;
                double pg;
                jump_over_theta(kap, q, qn, theta[a][tide_grid_fidx(g, a, F[0], F[1], F[2])], sigma, tmin, &pg);
                s += pg;
                cnt++;
              }
          }
          pj[q] = cnt ? s / cnt : 0;
        }
  }
  st = TIDE_OK;
done:
  tide_free(own, (size_t)nc * sizeof(double));
  tide_free(ownlab, (size_t)nc);
  for (int a = 0; a < 3; a++) tide_free(theta[a], (size_t)nfa[a] * sizeof(double));
  return st;
}

/* ------------------------------------------------ Liu et al. Eq. 8 */

/* smoothed Heaviside of half-width eps (0 at phi <= -eps, 1 at phi >= eps)
 * and its derivative, the delta of Liu Eq. 8; one_sided: the same profile
 * of half-width eps/2 centred at -eps/2 (the band [-eps, 0] in the liquid) */
static inline double heaviside(double phi, double eps, int one_sided) {
  if (one_sided) {
    phi += 0.5 * eps;
    eps *= 0.5;
  }
  if (phi <= -eps) return 0;
  if (phi >= eps) return 1;
  return 0.5 * (1 + phi / eps + sin(M_PI * phi / eps) / M_PI);
}

static inline double delta_fn(double phi, double eps, int one_sided) {
  if (one_sided) {
    phi += 0.5 * eps;
    eps *= 0.5;
  }
  if (!(fabs(phi) < eps)) return 0;
  return (1 + cos(M_PI * phi / eps)) / (2 * eps);
}

tide_tension_liu_opts tide_tension_liu_opts_default(void) {
  tide_tension_liu_opts o;
  memset(&o, 0, sizeof o);
  o.rho = 1000;
  o.tol = 1e-8;
  return o;
}

int tide_liquid_surface_tension_liu(tide_mac *u, const tide_array *phi, const tide_tension_liu_opts *o,
                                    tide_viscosity_stats *stats) {
  int st;
  memset(stats, 0, sizeof *stats);
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = check_phi(g, phi))) return st;
  if (!(o->sigma >= 0) || !isfinite(o->sigma)) return tide_fail(TIDE_EINVAL, "sigma must be finite and >= 0");
  if (!(o->rho > 0) || !isfinite(o->rho)) return tide_fail(TIDE_EINVAL, "rho must be positive and finite");
  if (!(o->dt > 0) || !isfinite(o->dt)) return tide_fail(TIDE_EINVAL, "dt must be positive and finite");
  if (!isfinite(o->band)) return tide_fail(TIDE_EINVAL, "band must be finite");
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must be in (0, 1)");
  if (o->maxit < 0) return tide_fail(TIDE_EINVAL, "maxit must be >= 0");
  if ((st = check_per(g, o->periodic))) return st;
  if (o->labels && (st = tide_grid_check_cells(g, o->labels, TIDE_U8, "labels"))) return st;
  for (int a = 0; a < g->dim; a++)
    if (tide_array_nonfinite(u->u[a])) return tide_fail(TIDE_ENONFINITE, "velocity holds non-finite values");
  if (o->sigma == 0) return TIDE_OK;
  const double *kap;
  double *own;
  if ((st = get_kappa(g, phi, o->kappa, o->periodic, &kap, &own))) return st;
  const int *per = o->periodic;
  const double *ph = TIDE_F64P(phi);
  const uint8_t *lab = o->labels ? TIDE_U8P(o->labels) : NULL;
  double eps = o->band > 0 ? o->band : 3 * g->dx;
  double s_rho = o->sigma / o->rho, dt = o->dt;
  double c = dt * dt * s_rho / (g->dx * g->dx);
  tide_solve_opts so = tide_solve_opts_default();
  so.tol = o->tol;
  if (o->maxit > 0) so.maxit = o->maxit;
  int dim = g->dim;
  st = TIDE_OK;
  for (int a = 0; a < dim && !st; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t nf = (int64_t)fd[0] * fd[1] * fd[2];
    uint8_t *cls = tide_alloc((size_t)nf);
    double *D = tide_alloc((size_t)nf * sizeof(double)), *r = tide_alloc((size_t)nf * sizeof(double));
    if (!cls || !D || !r) {
      st = TIDE_ENOMEM;
    } else {
      double *ua = TIDE_F64P(u->u[a]);
#pragma omp parallel for schedule(static)
      for (int i = 0; i < fd[0]; i++)
        for (int j = 0; j < fd[1]; j++)
          for (int k = 0; k < fd[2]; k++) {
            int I[3] = {i, j, k};
            int64_t f = tide_grid_fidx(g, a, i, j, k);
            cls[f] = TIDE_FACE_DIRICHLET;
            D[f] = 1;
            r[f] = 0;
            if (per[a] && I[a] == g->n[a]) continue; /* duplicate of face 0 */
            if (!per[a] && (I[a] == 0 || I[a] == g->n[a])) continue; /* wall */
            int lo[3] = {i, j, k};
            lo[a] = tide_periodic_index(I[a] - 1, g->n[a], per[a]);
            int64_t ql = tide_grid_idx(g, lo[0], lo[1], lo[2]), qh = tide_grid_idx(g, i, j, k);
            if (lab && (lab[ql] == TIDE_CELL_SOLID || lab[qh] == TIDE_CELL_SOLID)) continue;
            /* balanced force: -sigma/rho kappa grad H(phi) by the face
             * difference of the smoothed Heaviside, the same difference as
             * the pressure gradient, so a uniform kappa is a pure gradient */
            double hl = heaviside(ph[ql], eps, o->one_sided), hh = heaviside(ph[qh], eps, o->one_sided);
            double kf = 0.5 * (kap[ql] + kap[qh]);
            double force = -dt * s_rho * kf * (hh - hl) / g->dx;
            double delta = delta_fn(0.5 * (ph[ql] + ph[qh]), eps, o->one_sided);
            if (delta * eps > 1e-8) {
              cls[f] = TIDE_FACE_UNKNOWN;
              D[f] = 1 / delta;
              r[f] = (ua[f] + force) / delta;
            } else {
              ua[f] += force; /* outside the band: explicit (delta = 0 row) */
            }
          }
      st = tide_face_helmholtz(g, per, a, TIDE_F64P(u->u[a]), cls, D, c, r, TIDE_WALL_FREESLIP, &so,
                               TIDE_PRECOND_MIC0, tide_viscosity_solver_slot(o->solver, 3 + a), stats);
    }
    tide_free(cls, (size_t)nf);
    tide_free(D, (size_t)nf * sizeof(double));
    tide_free(r, (size_t)nf * sizeof(double));
  }
  tide_free(own, (size_t)tide_grid_ncells(g) * sizeof(double));
  return st;
}
