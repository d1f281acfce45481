/* extend.c -- linear extension of a MAC velocity into the air (extend.h). */
#include "liquid/extend.h"
#include "grid/levelset.h"

#include <math.h>
#include <string.h>

/* phi on face F of axis a: the mean of the two cells beside it, the one
 * cell on the domain boundary */
static double phi_face(const tide_grid *g, const double *phi, int a, const int F[3]) {
  int lo[3] = {F[0], F[1], F[2]}, hi[3] = {F[0], F[1], F[2]};
  lo[a] -= 1;
  if (lo[a] < 0) lo[a] = 0;
  if (hi[a] >= g->n[a]) hi[a] = g->n[a] - 1;
  return 0.5 * (phi[tide_grid_idx(g, lo[0], lo[1], lo[2])] + phi[tide_grid_idx(g, hi[0], hi[1], hi[2])]);
}

int tide_liquid_extend_linear(tide_mac *u, const double *phi, double maxdist, tide_mac *valid) {
  int st;
  if ((st = tide_mac_check(u, NULL, TIDE_F64, "u"))) return st;
  const tide_grid *g = &u->grid;
  if ((st = tide_mac_check(valid, g, TIDE_U8, "valid"))) return st;
  if (!phi) return tide_fail(TIDE_EINVAL, "extend: phi required");
  if (isnan(maxdist)) return tide_fail(TIDE_EINVAL, "extend: maxdist is NaN");
  int64_t nc = tide_grid_ncells(g);
  char name[48];
  for (int64_t q = 0; q < nc; q++)
    if (!isfinite(phi[q]))
      return tide_fail(TIDE_ENONFINITE, "extend: phi is not finite at cell %s", tide_grid_cellname(g, q, name));
  int dim = g->dim;
  double dx = g->dx;
  tide_mac *qn = NULL, *ps = NULL, *v1 = NULL, *v2 = NULL;
  if ((st = tide_mac_new(g, TIDE_F64, &qn)) || (st = tide_mac_new(g, TIDE_F64, &ps)) ||
      (st = tide_mac_new(g, TIDE_U8, &v1)) || (st = tide_mac_new(g, TIDE_U8, &v2)))
    goto done;
  /* the normal derivative and phi_f of every valid face */
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    const double *ua = TIDE_F64P(u->u[a]);
    const uint8_t *va = TIDE_U8P(valid->u[a]);
    double *qa = TIDE_F64P(qn->u[a]), *pa = TIDE_F64P(ps->u[a]);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int F[3] = {i, j, k};
          int64_t f = tide_grid_fidx(g, a, i, j, k);
          double pf = phi_face(g, phi, a, F);
          pa[f] = pf;
          qa[f] = 0;
          if (!va[f]) continue;
          double nrm[3] = {0, 0, 0}, nl = 0, dq[3] = {0, 0, 0};
          for (int d = 0; d < dim; d++) {
            int P[3] = {i, j, k}, M[3] = {i, j, k};
            P[d] += 1;
            M[d] -= 1;
            int hp = P[d] < fd[d], hm = M[d] >= 0;
            double fp = hp ? phi_face(g, phi, a, P) : pf, fm = hm ? phi_face(g, phi, a, M) : pf;
            int span = hp + hm;
            nrm[d] = span ? (fp - fm) / span : 0;
            nl += nrm[d] * nrm[d];
            /* derivative of u_a along d over valid faces, one-sided into
             * the liquid (against the normal) where possible: over two
             * faces, (u_f - u_f-2) / 2, where both are valid -- the
             * difference over one face passes a grid-scale zigzag of the
             * surface faces on at full strength (2 eps / dx), and a drop at
             * rest with the cell curvature then rang up and blew up (t ~ 3
             * capillary times, docs/liquids-physics.md "The default");
             * the two-face difference is blind to it and still exact for a
             * linear field */
            int64_t fP = hp ? tide_grid_fidx(g, a, P[0], P[1], P[2]) : -1;
            int64_t fM = hm ? tide_grid_fidx(g, a, M[0], M[1], M[2]) : -1;
            int okp = fP >= 0 && va[fP], okm = fM >= 0 && va[fM];
            int64_t fPP = okp && P[d] + 1 < fd[d] ? fP + (fP - f) : -1;
            int64_t fMM = okm && M[d] - 1 >= 0 ? fM - (f - fM) : -1;
            if (nrm[d] > 0 && fMM >= 0 && va[fMM])
              dq[d] = 0.5 * (ua[f] - ua[fMM]);
            else if (nrm[d] < 0 && fPP >= 0 && va[fPP])
              dq[d] = 0.5 * (ua[fPP] - ua[f]);
            else if (okp && okm)
              dq[d] = nrm[d] > 0 ? ua[f] - ua[fM] : nrm[d] < 0 ? ua[fP] - ua[f] : 0.5 * (ua[fP] - ua[fM]);
            else if (okm)
              dq[d] = ua[f] - ua[fM];
            else if (okp)
              dq[d] = ua[fP] - ua[f];
          }
          if (!(nl > 0)) continue;
          nl = sqrt(nl);
          double s = 0;
          for (int d = 0; d < dim; d++)
            s += nrm[d] / nl * dq[d];
          qa[f] = s / dx;
        }
  }
  /* carry u, q_n and phi_f of the valid faces along the normals */
  if ((st = tide_mac_copy(v1, valid)) || (st = tide_mac_copy(v2, valid))) goto done;
  if ((st = tide_levelset_extrapolate_mac(qn, phi, 1, maxdist, v1))) goto done;
  if ((st = tide_mac_copy(v1, valid))) goto done;
  if ((st = tide_levelset_extrapolate_mac(ps, phi, 1, maxdist, v2))) goto done;
  if ((st = tide_levelset_extrapolate_mac(u, phi, 1, maxdist, valid))) goto done;
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(g, a, fd);
    int64_t nf = (int64_t)fd[0] * fd[1] * fd[2];
    double *ua = TIDE_F64P(u->u[a]);
    const double *qa = TIDE_F64P(qn->u[a]), *pa = TIDE_F64P(ps->u[a]);
    const uint8_t *v0 = TIDE_U8P(v1->u[a]), *vn = TIDE_U8P(valid->u[a]);
#pragma omp parallel for schedule(static)
    for (int64_t f = 0; f < nf; f++) {
      if (v0[f] || !vn[f]) continue; /* valid before, or not reached */
      int F[3];
      int64_t r = f;
      F[2] = (int)(r % fd[2]);
      r /= fd[2];
      F[1] = (int)(r % fd[1]);
      F[0] = (int)(r / fd[1]);
      double dist = phi_face(g, phi, a, F) - pa[f];
      if (dist < 0) dist = 0;
      if (dist > 3 * dx) dist = 3 * dx;
      ua[f] += dist * qa[f];
    }
  }
  st = TIDE_OK;
done:
  if (qn) tide_mac_free(qn);
  if (ps) tide_mac_free(ps);
  if (v1) tide_mac_free(v1);
  if (v2) tide_mac_free(v2);
  return st;
}
