/* mpm_flip.c -- an MPM body in a FLIP liquid: one momentum grid, one
 * projection (see mpm_flip.h). */
#include "couple/mpm_flip.h"
#include "linalg/linalg.h"
#include "grid/sdf.h"
#include "linalg/mac_poisson.h"

#include <math.h>
#include <string.h>

tide_mpm_flip_opts tide_mpm_flip_opts_default(void) {
  tide_mpm_flip_opts o = {0};
  o.rho = 1000;
  o.per_cell = 4;
  o.tol = 1e-8;
  return o;
}

/* node storage strides of the dense MPM grid over g (2D: k extent 1) */
static void strides(const tide_grid *g, int64_t s[3]) {
  int64_t nk = g->dim == 3 ? g->n[2] + 1 : 1;
  s[2] = 1;
  s[1] = nk;
  s[0] = (int64_t)(g->n[1] + 1) * nk;
}

/* the nodes N(f) of face (a; i, j, k): index c[a] along a, c[b] and c[b] + 1
 * along the other axes; returns their count (2 in 2D, 4 in 3D) */
static int face_nodes(const tide_grid *g, const int64_t s[3], int a, const int c[3], int64_t id[4]) {
  int d = g->dim, cnt = 0;
  int b1 = a == 0 ? 1 : 0, b2 = d == 3 ? (a == 2 ? 1 : 2) : -1;
  for (int t1 = 0; t1 < 2; t1++)
    for (int t2 = 0; t2 < (b2 >= 0 ? 2 : 1); t2++) {
      int q[3] = {c[0], c[1], d == 3 ? c[2] : 0};
      q[b1] += t1;
      if (b2 >= 0) q[b2] += t2;
      id[cnt++] = q[0] * s[0] + q[1] * s[1] + q[2] * s[2];
    }
  return cnt;
}

/* face (a; i, j, k) of flat index f */
static void face_ijk(const tide_grid *g, int a, int64_t f, int c[3]) {
  int n1 = g->n[1] + (a == 1), n2 = g->n[2] + (a == 2);
  c[2] = (int)(f % n2);
  c[1] = (int)((f / n2) % n1);
  c[0] = (int)(f / ((int64_t)n2 * n1));
}

/* labels of the two cells of face (a; c): SOLID outside the grid */
static void face_cells(const tide_grid *g, const uint8_t *lab, int a, const int c[3], uint8_t *lo,
                       uint8_t *hi) {
  *lo = *hi = TIDE_CELL_SOLID;
  if (c[a] > 0) {
    int q[3] = {c[0], c[1], c[2]};
    q[a]--;
    *lo = lab[tide_grid_idx(g, q[0], q[1], q[2])];
  }
  if (c[a] < g->n[a]) *hi = lab[tide_grid_idx(g, c[0], c[1], c[2])];
}

/* the pressure gradient across face (a; c) with ghost-fluid air sides, or 0
 * with *open = 0 when the face is not projected */
static double face_grad(const tide_grid *g, const uint8_t *lab, const double *p,
                        const double *theta, double tmin, int a, const int c[3], int64_t f,
                        int *open) {
  uint8_t lo, hi;
  face_cells(g, lab, a, c, &lo, &hi);
  *open = 0;
  if (lo == TIDE_CELL_SOLID || hi == TIDE_CELL_SOLID) return 0;
  if (lo != TIDE_CELL_LIQUID && hi != TIDE_CELL_LIQUID) return 0;
  *open = 1;
  int q[3] = {c[0], c[1], c[2]};
  q[a]--;
  double plo = lo == TIDE_CELL_LIQUID ? p[tide_grid_idx(g, q[0], q[1], q[2])] : 0;
  double phi_ = hi == TIDE_CELL_LIQUID ? p[tide_grid_idx(g, c[0], c[1], c[2])] : 0;
  double th = 1;
  if (lo != hi) {
    th = theta ? theta[f] : 1;
    if (!(th >= tmin)) th = tmin;
  }
  return (phi_ - plo) / (th * g->dx);
}

typedef struct {
  const tide_grid *g;
  int d;
  int64_t nf[3], s[3];
  uint8_t *lab;
  double *ustar[3], *wgt[3], *vs[3], *theta[3], *p, *b;
  int *rowof;
  double *bb, *xx;
} ws;

static void ws_free(ws *w, int64_t nc, int nrow) {
  for (int a = 0; a < 3; a++) {
    size_t nb = sizeof(double) * (size_t)w->nf[a];
    tide_free(w->ustar[a], nb);
    tide_free(w->wgt[a], nb);
    tide_free(w->vs[a], nb);
    tide_free(w->theta[a], nb);
  }
  tide_free(w->lab, (size_t)nc);
  tide_free(w->p, sizeof(double) * (size_t)nc);
  tide_free(w->b, sizeof(double) * (size_t)nc);
  tide_free(w->rowof, sizeof(int) * (size_t)nc);
  tide_free(w->bb, sizeof(double) * (size_t)nrow);
  tide_free(w->xx, sizeof(double) * (size_t)nrow);
}

static int check_inputs(const tide_mpm *m, const tide_mac *u, const tide_array *density,
                        const tide_array *labels, const tide_mpm_flip_opts *o, const tide_mac *valid,
                        const tide_array *pressure) {
  int st;
  const tide_grid *g = &u->grid;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "u"))) return st;
  if (!tide_grid_same(g, &m->g))
    return tide_fail(TIDE_EINVAL, "the MPM grid and the liquid's grid differ (cells, dx or origin)");
  if (m->sparse) return tide_fail(TIDE_EINVAL, "the MPM state uses sparse blocks; the coupling needs the dense node grid");
  if (!m->nvol) return tide_fail(TIDE_EINVAL, "the MPM state has no node volumes (tide.mpm.new{node_volume = true})");
  if ((st = tide_grid_check_cells(g, density, TIDE_F64, "density"))) return st;
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (o->phi && (st = tide_grid_check_cells(g, o->phi, TIDE_F64, "phi"))) return st;
  if (valid && (st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if (pressure && (st = tide_grid_check_cells(g, pressure, TIDE_F64, "pressure"))) return st;
  if (!(o->dt > 0 && isfinite(o->dt))) return tide_fail(TIDE_EINVAL, "dt must be finite and > 0");
  if (!(o->rho > 0 && isfinite(o->rho))) return tide_fail(TIDE_EINVAL, "rho must be finite and > 0");
  if (!(o->per_cell > 0 && isfinite(o->per_cell)))
    return tide_fail(TIDE_EINVAL, "per_cell must be finite and > 0");
  if (!(o->tol > 0 && o->tol < 1)) return tide_fail(TIDE_EINVAL, "tol must lie in (0, 1)");
  return TIDE_OK;
}

/* step 2: solid and liquid momenta on the faces, mixed velocity and density */
static void mix_faces(ws *w, const tide_mpm *m, const tide_mac *u, const tide_array *density,
                      const tide_mpm_flip_opts *o) {
  const tide_grid *g = w->g;
  const int d = w->d;
  const double *nm = TIDE_F64P(m->nm), *nv = TIDE_F64P(m->nv), *nvol = TIDE_F64P(m->nvol);
  double cellvol = pow(g->dx, d), mq = o->rho * cellvol / o->per_cell;
  for (int a = 0; a < d; a++) {
    const double *ul = TIDE_F64P(u->u[a]), *rho_c = TIDE_F64P(density);
    double *us = w->ustar[a], *wg = w->wgt[a], *vs = w->vs[a];
    int64_t nf = w->nf[a];
#pragma omp parallel for schedule(static) if (nf > TIDE_PAR_MIN)
    for (int64_t f = 0; f < nf; f++) {
      int c[3];
      int64_t id[4];
      face_ijk(g, a, f, c);
      int k = face_nodes(g, w->s, a, c, id);
      double ms = 0, pm = 0, vsol = 0;
      for (int t = 0; t < k; t++) {
        ms += nm[id[t]];
        pm += nm[id[t]] * nv[id[t] * d + a];
        vsol += nvol[id[t]];
      }
      ms /= k, pm /= k, vsol /= k;
      /* the liquid's particles per cell on the face: the mean of its cells' */
      double W = 0;
      if (c[a] > 0) {
        int q[3] = {c[0], c[1], c[2]};
        q[a]--;
        W += rho_c[tide_grid_idx(g, q[0], q[1], q[2])];
      }
      if (c[a] < g->n[a]) W += rho_c[tide_grid_idx(g, c[0], c[1], c[2])];
      double ml = 0.5 * mq * W, M = ml + ms;
      vs[f] = ms > 0 ? pm / ms : 0;
      if (M > 0 && ml / o->rho + vsol > 0) {
        us[f] = (ml * ul[f] + pm) / M;
        wg[f] = o->rho * (ml / o->rho + vsol) / M; /* rho_l / rho_f */
      } else {
        us[f] = ul[f];
        wg[f] = 1;
      }
    }
  }
}

/* pressure cells: liquid cells and cells holding MPM particles */
static int64_t label_cells(ws *w, const tide_mpm *m, const uint8_t *lab0, int64_t *body) {
  const int64_t nc = tide_grid_ncells(w->g);
  const int64_t *cs = m->ps->cell_start;
  int64_t nb = 0, nl = 0;
#pragma omp parallel for schedule(static) reduction(+ : nb, nl) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++) {
    uint8_t l = lab0[c];
    int has = cs[c + 1] > cs[c];
    if (l != TIDE_CELL_SOLID && has) l = TIDE_CELL_LIQUID, nb++;
    w->lab[c] = l;
    nl += l == TIDE_CELL_LIQUID;
  }
  *body = nb;
  return nl;
}

/* right-hand side -(rho/dt) div u* over the pressure cells (closed faces
 * carry no flux); max |div|; does any pressure cell have an air neighbour? */
static int rhs(ws *w, double scale, double *divmax, int *air) {
  const tide_grid *g = w->g;
  const int64_t nc = tide_grid_ncells(g);
  double dm = 0;
  int anyair = 0, bad = 0;
#pragma omp parallel for schedule(static) reduction(max : dm) reduction(| : anyair, bad) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++) {
    w->b[c] = 0;
    if (w->lab[c] != TIDE_CELL_LIQUID) continue;
    int ijk[3] = {(int)(c / ((int64_t)g->n[1] * g->n[2])), (int)((c / g->n[2]) % g->n[1]),
                  (int)(c % g->n[2])};
    double div = 0;
    for (int a = 0; a < w->d; a++)
      for (int side = 0; side < 2; side++) {
        int q[3] = {ijk[0], ijk[1], ijk[2]};
        q[a] += side;
        uint8_t lo, hi;
        face_cells(g, w->lab, a, q, &lo, &hi);
        if (lo == TIDE_CELL_SOLID || hi == TIDE_CELL_SOLID) continue;
        if (lo == TIDE_CELL_AIR || hi == TIDE_CELL_AIR) anyair = 1;
        double uf = w->ustar[a][tide_grid_fidx(g, a, q[0], q[1], q[2])];
        div += side ? uf : -uf;
      }
    div /= g->dx;
    if (!isfinite(div)) bad = 1;
    w->b[c] = -scale * div;
    dm = fmax(dm, fabs(div));
  }
  *divmax = dm;
  *air = anyair;
  return bad ? tide_fail(TIDE_ENONFINITE,
                         "coupled velocity holds non-finite values (liquid or MPM node velocities)")
             : TIDE_OK;
}

int tide_couple_mpm_flip_project(tide_mpm *m, tide_mac *u, const tide_array *density,
                                 const tide_array *labels, const tide_mpm_flip_opts *o,
                                 tide_mac *valid, tide_array *pressure, tide_array *body_phi,
                                 tide_mpm_flip_stats *st) {
  int s;
  memset(st, 0, sizeof *st);
  if ((s = check_inputs(m, u, density, labels, o, valid, pressure))) return s;
  if (body_phi && (s = tide_grid_check_cells(&u->grid, body_phi, TIDE_F64, "body_phi"))) return s;
  if (body_phi && !o->phi) return tide_fail(TIDE_EINVAL, "body_phi needs the liquid's phi (the ghost-fluid surface)");
  if ((s = tide_particles_bin(m->ps, &m->g))) return s;
  const tide_grid *g = &u->grid;
  const int d = g->dim;
  const int64_t nc = tide_grid_ncells(g);
  const double tmin = o->theta_min > 0 ? o->theta_min : TIDE_MAC_THETA_MIN;
  ws w = {.g = g, .d = d};
  strides(g, w.s);
  int nrow = 0;
  for (int a = 0; a < d; a++) {
    w.nf[a] = tide_array_size(u->u[a]);
    size_t nb = sizeof(double) * (size_t)w.nf[a];
    w.ustar[a] = tide_alloc(nb), w.wgt[a] = tide_alloc(nb), w.vs[a] = tide_alloc(nb);
    if (o->phi) w.theta[a] = tide_alloc(nb);
    if (!w.ustar[a] || !w.wgt[a] || !w.vs[a] || (o->phi && !w.theta[a])) {
      s = TIDE_ENOMEM;
      goto done;
    }
  }
  w.lab = tide_alloc((size_t)nc);
  w.p = tide_alloc(sizeof(double) * (size_t)nc);
  w.b = tide_alloc(sizeof(double) * (size_t)nc);
  w.rowof = tide_alloc(sizeof(int) * (size_t)nc);
  if (!w.lab || !w.p || !w.b || !w.rowof) {
    s = TIDE_ENOMEM;
    goto done;
  }
  mix_faces(&w, m, u, density, o);
  st->unknowns = label_cells(&w, m, TIDE_U8P(labels), &st->body_cells);
  int air = 0;
  if ((s = rhs(&w, o->rho / o->dt, &st->div_before, &air))) goto done;
  st->nullspace = !air;
  if (o->phi) {
    /* the surface of liquid and body together */
    double *phib = w.p; /* free until the solve */
    double r = o->body_radius > 0 ? o->body_radius : 0.25 * g->dx;
    if ((s = tide_sdf_particles_zhu_bridson(g, m->ps->n, TIDE_F64P(m->ps->x), r, 2 * r, 0, phib)))
      goto done;
    if (body_phi) memcpy(TIDE_F64P(body_phi), phib, sizeof(double) * (size_t)nc);
    const double *phl = TIDE_F64P(o->phi);
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
    for (int64_t c = 0; c < nc; c++)
      phib[c] = fmin(phib[c], phl[c]);
    if ((s = tide_mac_poisson_theta(g, w.lab, phib, w.theta))) goto done;
  }
  tide_mac_poisson P = tide_mac_poisson_make(g, w.lab);
  for (int a = 0; a < d; a++) {
    P.weight[a] = w.wgt[a];
    P.theta[a] = w.theta[a];
  }
  P.theta_min = tmin;
  if ((s = tide_mac_poisson_number(&P, w.rowof, &nrow))) goto done;
  memset(w.p, 0, sizeof(double) * (size_t)nc);
  if (nrow > 0) {
    w.bb = tide_alloc(sizeof(double) * (size_t)nrow);
    w.xx = tide_alloc(sizeof(double) * (size_t)nrow);
    if (!w.bb || !w.xx) {
      s = TIDE_ENOMEM;
      goto done;
    }
    for (int64_t c = 0; c < nc; c++)
      if (w.rowof[c] >= 0) w.bb[w.rowof[c]] = w.b[c];
    tide_csr *A = NULL;
    if ((s = tide_mac_poisson_assemble(&P, w.rowof, nrow, TIDE_CSR_GENERAL, &A))) goto done;
    tide_solve_opts so = tide_solve_opts_default();
    so.tol = o->tol;
    if (o->maxit > 0) so.maxit = o->maxit;
    so.nullspace = st->nullspace;
    tide_solve_stats ss;
    s = tide_solve_krylov(A, TIDE_KRYLOV_PCG, TIDE_PRECOND_MIC0, w.bb, w.xx, &so, &ss);
    tide_csr_free(A);
    st->iterations = ss.iterations;
    st->residual = ss.residual;
    st->converged = s == TIDE_OK && ss.converged;
    if (s) goto done;
    for (int64_t c = 0; c < nc; c++)
      if (w.rowof[c] >= 0) w.p[c] = w.xx[w.rowof[c]];
  } else {
    st->converged = 1;
  }
  /* step 3b: the face update; valid marks projected faces */
  const double k = o->dt / o->rho;
  for (int a = 0; a < d; a++) {
    double *uf = TIDE_F64P(u->u[a]);
    uint8_t *vf = valid ? TIDE_U8P(valid->u[a]) : NULL;
    const double *wg = w.wgt[a], *us = w.ustar[a], *th = w.theta[a];
    int64_t nf = w.nf[a];
#pragma omp parallel for schedule(static) if (nf > TIDE_PAR_MIN)
    for (int64_t f = 0; f < nf; f++) {
      int c[3], open;
      face_ijk(g, a, f, c);
      double gp = face_grad(g, w.lab, w.p, th, tmin, a, c, f, &open);
      uint8_t lo, hi;
      face_cells(g, w.lab, a, c, &lo, &hi);
      if (lo == TIDE_CELL_SOLID || hi == TIDE_CELL_SOLID)
        uf[f] = 0; /* walls and static solids */
      else
        uf[f] = open ? us[f] - k * wg[f] * gp : us[f];
      if (vf) vf[f] = (uint8_t)open;
    }
  }
  /* step 4: FLIP increments onto the MPM nodes with mass, the transpose of
   * the node-to-face average: node i gets sum_{f adjacent} (u_f - v_s,f) /
   * |N(f)|, so sum_i m_i dv_i = sum_f m_s,f (u_f - v_s,f) (the momentum the
   * faces gave the body); faces not projected (air, walls) give nothing */
  {
    double *nm = TIDE_F64P(m->nm), *nv = TIDE_F64P(m->nv);
    const int64_t nn = m->nn;
    const int N[3] = {g->n[0] + 1, g->n[1] + 1, d == 3 ? g->n[2] + 1 : 1};
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
    for (int64_t id = 0; id < nn; id++) {
      if (!(nm[id] > 0)) continue;
      int q[3] = {(int)(id / w.s[0]), (int)((id / w.s[1]) % N[1]), d == 3 ? (int)(id % N[2]) : 0};
      for (int a = 0; a < d; a++) {
        double sum = 0;
        int b1 = a == 0 ? 1 : 0, b2 = d == 3 ? (a == 2 ? 1 : 2) : -1;
        for (int t1 = -1; t1 <= 0; t1++)
          for (int t2 = -1; t2 <= (b2 >= 0 ? 0 : -1); t2++) {
            int c[3] = {q[0], q[1], q[2]};
            c[b1] += t1;
            if (b2 >= 0) c[b2] += t2;
            if (c[b1] < 0 || c[b1] >= g->n[b1] || (b2 >= 0 && (c[b2] < 0 || c[b2] >= g->n[b2])))
              continue;
            int64_t f = tide_grid_fidx(g, a, c[0], c[1], c[2]);
            uint8_t lo, hi;
            face_cells(g, w.lab, a, c, &lo, &hi);
            if (lo == TIDE_CELL_SOLID || hi == TIDE_CELL_SOLID) continue; /* MPM walls decide */
            if (lo != TIDE_CELL_LIQUID && hi != TIDE_CELL_LIQUID) continue;
            sum += TIDE_F64P(u->u[a])[f] - w.vs[a][f];
          }
        nv[id * d + a] += sum / (d == 3 ? 4 : 2);
      }
    }
  }
  if (pressure) memcpy(TIDE_F64P(pressure), w.p, sizeof(double) * (size_t)nc);
  /* divergence after, over the pressure cells */
  for (int a = 0; a < d; a++)
    memcpy(w.ustar[a], TIDE_F64P(u->u[a]), sizeof(double) * (size_t)w.nf[a]);
  s = rhs(&w, 1, &st->div_after, &air);
done:
  ws_free(&w, nc, nrow);
  return s;
}
