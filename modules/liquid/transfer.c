/* transfer.c -- PIC / FLIP / APIC particle-grid transfers on MAC grids and
 * cell labels from particles (see particles.h). */
#include "liquid/particles.h"
#include "liquid/mac_view.h"
#include "grid/levelset.h"

#include <math.h>
#include <string.h>

static int check_pair(const tide_particles *ps, const tide_mac *u, const char *what) {
  int st = tide_mac_check(u, NULL, TIDE_F64, what);
  if (st) return st;
  if (u->grid.dim != ps->dim)
    return tide_fail(TIDE_EINVAL, "%s is %dD but the particles are %dD", what, u->grid.dim, ps->dim);
  return TIDE_OK;
}

/* Scatter the particles of cell (i, j, k) into the accumulators of every
 * axis.  The particles of one cell touch, on the faces of axis a, at most
 * the 2 x 3 x 3 block starting at face (i, j-1, k-1) (the 2 along a): they
 * are summed into a local block first, in particle order, and the block is
 * added to the face arrays once (faces no particle reaches are left alone). */
static inline int scatter_cell(const tide_particles *ps, const tide_grid *g, int i, int j, int k, int apic,
                               const tide_lattice *lat, double *const *num, double *const *den) {
  int64_t c = tide_grid_idx(g, i, j, k);
  int64_t q0 = ps->cell_start[c], q1 = ps->cell_start[c + 1];
  if (q0 == q1) return 0;
  int dim = g->dim;
  const double *px = TIDE_F64P(ps->x), *pv = TIDE_F64P(ps->v);
  const double *pc = apic ? TIDE_F64P(ps->c) : NULL;
  const int ci[3] = {i, j, k};
  int base[3][3];
  for (int a = 0; a < dim; a++)
    for (int d = 0; d < 3; d++) base[a][d] = d == a || d >= dim ? ci[d] : ci[d] - 1;
  double bn[3][27], bw[3][27];
  memset(bn, 0, sizeof bn);
  memset(bw, 0, sizeof bw);
  int n2max = dim == 3 ? 2 : 1;
  for (int64_t q = q0; q < q1; q++) {
    int64_t p = ps->order[q];
    const double *x = px + p * dim;
    tide_axis_loc loc[3];
    tide_grid_locate_axes(g, x, loc);
    if (loc[0].bf != ci[0] || loc[1].bf != ci[1] || loc[2].bf != ci[2]) return 1; /* not binned here */
    for (int a = 0; a < dim; a++) {
      int o[3];
      double t[3];
      for (int d = 0; d < 3; d++) {
        o[d] = (d == a ? loc[d].bf : loc[d].bc) - base[a][d];
        t[d] = d == a ? loc[d].tf : loc[d].tc;
      }
      double va = pv[p * dim + a];
      const double *ca = pc ? pc + (p * dim + a) * dim : NULL;
      double *BN = bn[a], *BW = bw[a];
      for (int c0 = 0; c0 < 2; c0++) {
        double w0 = c0 ? t[0] : 1 - t[0];
        for (int c1 = 0; c1 < 2; c1++) {
          double w1 = w0 * (c1 ? t[1] : 1 - t[1]);
          for (int c2 = 0; c2 < n2max; c2++) {
            double w = dim == 3 ? w1 * (c2 ? t[2] : 1 - t[2]) : w1;
            if (w == 0) continue;
            int e = ((o[0] + c0) * 3 + o[1] + c1) * 3 + o[2] + c2;
            double val = va;
            if (ca) {
              const tide_lattice *L = &lat[a];
              int fi = base[a][0] + o[0] + c0, fj = base[a][1] + o[1] + c1, fk = base[a][2] + o[2] + c2;
              double xf[3] = {L->lo[0] + fi * g->dx, L->lo[1] + fj * g->dx, L->lo[2] + fk * g->dx};
              for (int d = 0; d < dim; d++) val += ca[d] * (xf[d] - x[d]);
            }
            BN[e] += w * val;
            BW[e] += w;
          }
        }
      }
    }
  }
  for (int a = 0; a < dim; a++) {
    const tide_lattice *L = &lat[a];
    for (int e0 = 0; e0 < 3; e0++) {
      int fi = base[a][0] + e0;
      if (fi < 0 || fi >= L->n[0]) continue;
      for (int e1 = 0; e1 < 3; e1++) {
        int fj = base[a][1] + e1;
        if (fj < 0 || fj >= L->n[1]) continue;
        for (int e2 = 0; e2 < 3; e2++) {
          int e = (e0 * 3 + e1) * 3 + e2, fk = base[a][2] + e2;
          if (bw[a][e] == 0 || fk < 0 || fk >= L->n[2]) continue;
          int64_t f = ((int64_t)fi * L->n[1] + fj) * L->n[2] + fk;
          num[a][f] += bn[a][e];
          den[a][f] += bw[a][e];
        }
      }
    }
  }
  return 0;
}

/* weights of the samples at offsets 0, 1, 2 of a block starting one sample
 * below the base b0 - o: the pair (1 - t, t) at offset o and o + 1 (lane 3
 * is padding) */
static inline void weights3(int o, double t, double w[4]) {
  w[0] = o ? 0 : 1 - t;
  w[1] = o ? 1 - t : t;
  w[2] = o ? t : 0;
  w[3] = 0;
}

/* scatter_cell for 3D PIC / FLIP: the same sums, organised for speed.  The
 * particles of the cell are taken in chunks; each one's weights along every
 * axis are written as 4-lane rows over the block offsets (zeros outside its
 * stencil, lane 3 padding), and each row of the block (axis a, offsets ex,
 * ey) is summed over the chunk in registers.  A particle of cell (i, j, k)
 * sits on face i of the lattice along its own axis (tide_particles_bin and
 * tide_grid_locate_axes both use s = (x - origin) * (1/dx)), so that axis spans 2
 * block offsets and the others 3. */
#define P2G_CHUNK 32
static inline int scatter_cell3(const tide_particles *ps, const tide_grid *g, int i, int j, int k,
                                const tide_lattice *lat, double *const *num, double *const *den) {
  int64_t c = tide_grid_idx(g, i, j, k);
  int64_t q0 = ps->cell_start[c], q1 = ps->cell_start[c + 1];
  if (q0 == q1) return 0;
  const double *px = TIDE_F64P(ps->x), *pv = TIDE_F64P(ps->v);
  const int ci[3] = {i, j, k};
  /* block sums: the first chunk sets the rows, the flush reads only those */
  double bn[3][3][3][4], bw[3][3][3][4];
  double wf[P2G_CHUNK][3][4], wc[P2G_CHUNK][3][4], vp[P2G_CHUNK][3];
  for (int64_t qa = q0; qa < q1; qa += P2G_CHUNK) {
    int m = q1 - qa < P2G_CHUNK ? (int)(q1 - qa) : P2G_CHUNK;
    for (int r = 0; r < m; r++) {
      int64_t p = ps->order[qa + r];
      tide_axis_loc loc[3];
      tide_grid_locate_axes(g, px + p * 3, loc);
      if (loc[0].bf != ci[0] || loc[1].bf != ci[1] || loc[2].bf != ci[2]) return 1; /* not binned here */
      for (int d = 0; d < 3; d++) {
        weights3(loc[d].bf - ci[d], loc[d].tf, wf[r][d]);
        weights3(loc[d].bc - ci[d] + 1, loc[d].tc, wc[r][d]);
        vp[r][d] = pv[p * 3 + d];
      }
    }
    for (int a = 0; a < 3; a++) {
      int nx = a == 0 ? 2 : 3, ny = a == 1 ? 2 : 3;
      for (int ex = 0; ex < nx; ex++)
        for (int ey = 0; ey < ny; ey++) {
          double sn[4] = {0, 0, 0, 0}, sw[4] = {0, 0, 0, 0};
          for (int r = 0; r < m; r++) {
            const double *X = a == 0 ? wf[r][0] : wc[r][0], *Y = a == 1 ? wf[r][1] : wc[r][1];
            const double *Z = a == 2 ? wf[r][2] : wc[r][2];
            double xy = X[ex] * Y[ey], v = vp[r][a];
            for (int ez = 0; ez < 4; ez++) {
              double w = xy * Z[ez];
              sn[ez] += w * v;
              sw[ez] += w;
            }
          }
          for (int ez = 0; ez < 4; ez++) {
            bn[a][ex][ey][ez] = qa == q0 ? sn[ez] : bn[a][ex][ey][ez] + sn[ez];
            bw[a][ex][ey][ez] = qa == q0 ? sw[ez] : bw[a][ex][ey][ez] + sw[ez];
          }
        }
    }
  }
  int inner = i > 0 && j > 0 && k > 0 && i + 1 < g->n[0] && j + 1 < g->n[1] && k + 1 < g->n[2];
  for (int a = 0; a < 3; a++) {
    const tide_lattice *L = &lat[a];
    int b0[3], ne[3];
    for (int d = 0; d < 3; d++) {
      b0[d] = d == a ? ci[d] : ci[d] - 1;
      ne[d] = d == a ? 2 : 3;
    }
    for (int ex = 0; ex < ne[0]; ex++) {
      int fi = b0[0] + ex;
      if (!inner && (fi < 0 || fi >= L->n[0])) continue;
      for (int ey = 0; ey < ne[1]; ey++) {
        int fj = b0[1] + ey;
        if (!inner && (fj < 0 || fj >= L->n[1])) continue;
        int64_t f = ((int64_t)fi * L->n[1] + fj) * L->n[2] + b0[2];
        double *nu = num[a] + f, *de = den[a] + f;
        const double *sn = bn[a][ex][ey], *sw = bw[a][ex][ey];
        if (inner) {
          for (int ez = 0; ez < 3; ez++) {
            nu[ez] += sn[ez];
            de[ez] += sw[ez];
          }
        } else {
          for (int ez = 0; ez < ne[2]; ez++)
            if (b0[2] + ez >= 0 && b0[2] + ez < L->n[2]) {
              nu[ez] += sn[ez];
              de[ez] += sw[ez];
            }
        }
      }
    }
  }
  return 0;
}

int tide_liquid_p2g(tide_particles *ps, tide_mac *u, int apic, tide_mac *weights) {
  int st;
  if ((st = check_pair(ps, u, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if (apic && !ps->apic) return tide_fail(TIDE_EINVAL, "APIC transfer needs particles with affine matrices (apic = true)");
  int wf64 = 0;
  if (weights) {
    if (!tide_grid_same(&weights->grid, g)) return tide_fail(TIDE_EINVAL, "weights live on a different grid");
    wf64 = weights->u[0]->dtype == TIDE_F64;
    if ((st = tide_mac_check(weights, g, wf64 ? TIDE_F64 : TIDE_U8, "weights"))) return st;
  }
  /* the binning of the last operator is trusted here and checked for free:
   * the scatter locates every particle and reports one outside its cell
   * (then the set is binned again and scattered again) */
  int64_t nc = tide_grid_ncells(g);
  int trusted = ps->bin_valid && ps->bin_n == ps->n && ps->ws_cells == nc;
  if (!trusted && (st = tide_particles_bin(ps, g))) return st;
  int dim = g->dim;
  double *num[3] = {NULL, NULL, NULL}, *den[3] = {NULL, NULL, NULL};
  int64_t nf[3] = {0, 0, 0}, ntot = 0;
  tide_lattice lat[3];
  for (int a = 0; a < dim; a++) ntot += nf[a] = tide_array_size(u->u[a]);
  double *acc = wf64 ? NULL : tide_particles_scratch(ps, (size_t)ntot * sizeof(double));
  if (!wf64 && !acc) return TIDE_ENOMEM;
  int64_t off = 0;
  for (int a = 0; a < dim; off += nf[a], a++) {
    num[a] = TIDE_F64P(u->u[a]);
    den[a] = wf64 ? TIDE_F64P(weights->u[a]) : acc + off;
    tide_lattice_faces(g, a, num[a], &lat[a]);
  }
  /* A particle of cell slab i writes faces whose first index is in
   * [i-1, i+1]; slabs of one colour (i mod 3) are three apart, so their
   * writes never overlap.  The colours run in sequence. */
  int ni = g->n[0], nj = g->n[1], nk = g->n[2];
  for (int pass = 0; pass < 2; pass++) {
    for (int a = 0; a < dim; a++) {
      double *nu = num[a], *de = den[a];
#pragma omp parallel for schedule(static) if (nf[a] > TIDE_PAR_MIN)
      for (int64_t f = 0; f < nf[a]; f++) nu[f] = de[f] = 0;
    }
    int stray = 0;
    for (int colour = 0; colour < 3; colour++) {
#pragma omp parallel for schedule(dynamic, 1) reduction(| : stray) if (ps->n > TIDE_PAR_MIN)
      for (int i = colour; i < ni; i += 3)
        for (int j = 0; j < nj; j++)
          for (int k = 0; k < nk; k++)
            stray |= dim == 3 && !apic ? scatter_cell3(ps, g, i, j, k, lat, num, den)
                                       : scatter_cell(ps, g, i, j, k, apic, lat, num, den);
    }
    if (!stray) break;
    ps->bin_valid = 0;
    if (pass == 1 || (st = tide_particles_bin(ps, g)))
      return st ? st : tide_fail(TIDE_EINVAL, "P2G: particles outside their cells after binning");
  }
  for (int a = 0; a < dim; a++) {
    double *uu = num[a], *ww = den[a];
    uint8_t *mask = weights && !wf64 ? TIDE_U8P(weights->u[a]) : NULL;
    int64_t n = nf[a];
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
    for (int64_t f = 0; f < n; f++) {
      double w = ww[f];
      uu[f] = w > 0 ? uu[f] / w : 0;
      if (mask) mask[f] = w > 0;
    }
  }
  return TIDE_OK;
}

int tide_liquid_g2p(tide_particles *ps, const tide_mac *u, const tide_mac *u_old,
                    tide_transfer scheme, double flip) {
  tide_g2p_ctx G;
  int st = tide_g2p_prepare(ps, u, u_old, scheme, flip, &G);
  if (st) return st;
  int dim = ps->dim;
  double *px = TIDE_F64P(ps->x), *pv = TIDE_F64P(ps->v);
  double *pc = ps->apic ? TIDE_F64P(ps->c) : NULL;
  int64_t n = ps->n;
#pragma omp parallel for schedule(dynamic, 4096) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) {
    tide_axis_loc loc[3];
    tide_grid_locate_axes(&u->grid, px + p * dim, loc);
    tide_g2p_one(&G, loc, pv + p * dim, pc ? pc + p * dim * dim : NULL, NULL);
  }
  return TIDE_OK;
}

int tide_g2p_prepare(const tide_particles *ps, const tide_mac *u, const tide_mac *u_old, tide_transfer scheme,
                     double flip, tide_g2p_ctx *G) {
  int st;
  if ((st = check_pair(ps, u, "mac"))) return st;
  const tide_grid *g = &u->grid;
  if (scheme < TIDE_TRANSFER_PIC || scheme > TIDE_TRANSFER_APIC) return tide_fail(TIDE_EINVAL, "unknown transfer scheme");
  if (scheme == TIDE_TRANSFER_FLIP && !u_old)
    return tide_fail(TIDE_EINVAL, "FLIP needs the grid velocity before the update (old)");
  if (u_old && (st = tide_mac_check(u_old, g, TIDE_F64, "old"))) return st;
  if (!(flip >= 0 && flip <= 1)) return tide_fail(TIDE_EINVAL, "flip ratio must be in [0, 1]");
  if (scheme == TIDE_TRANSFER_APIC && !ps->apic)
    return tide_fail(TIDE_EINVAL, "APIC transfer needs particles with affine matrices (apic = true)");
  tide_mac_view_init(u, &G->V);
  for (int a = 0; a < 3; a++) G->uo[a] = scheme == TIDE_TRANSFER_FLIP && a < g->dim ? TIDE_F64P(u_old->u[a]) : NULL;
  G->scheme = scheme;
  G->flip = flip;
  return TIDE_OK;
}

/* density of the particles of cell c onto the cell-centre lattice L */
static inline void density_cell(const tide_particles *ps, int64_t c, const tide_lattice *L, double *rho) {
  int dim = ps->dim;
  const double *px = TIDE_F64P(ps->x);
  int n1 = L->n[1], n2 = L->n[2];
  for (int64_t q = ps->cell_start[c]; q < ps->cell_start[c + 1]; q++) {
    const double *x = px + ps->order[q] * dim;
    int b[3];
    double t[3];
    tide_lattice_locate(L, x, b, t);
    for (int c0 = 0; c0 < 2; c0++)
      for (int c1 = 0; c1 < 2; c1++)
        for (int c2 = 0; c2 < (dim == 3 ? 2 : 1); c2++) {
          double w = (c0 ? t[0] : 1 - t[0]) * (c1 ? t[1] : 1 - t[1]) * (dim == 3 ? (c2 ? t[2] : 1 - t[2]) : 1);
          if (w == 0) continue;
          rho[((int64_t)(b[0] + c0) * n1 + b[1] + c1) * n2 + b[2] + c2] += w;
        }
  }
}

int tide_liquid_density(tide_particles *ps, const tide_grid *g, tide_array *out) {
  int st;
  if ((st = tide_grid_check_cells(g, out, TIDE_F64, "out"))) return st;
  if ((st = tide_particles_bin(ps, g))) return st;
  tide_lattice L;
  tide_lattice_cells(g, TIDE_F64P(out), &L);
  double *rho = TIDE_F64P(out);
  memset(rho, 0, (size_t)tide_grid_ncells(g) * sizeof(double));
  int ni = g->n[0], nj = g->n[1], nk = g->n[2];
  /* same three-colour slab schedule as tide_liquid_p2g */
  for (int colour = 0; colour < 3; colour++) {
#pragma omp parallel for schedule(dynamic, 1) if (ps->n > TIDE_PAR_MIN)
    for (int i = colour; i < ni; i += 3)
      for (int j = 0; j < nj; j++)
        for (int k = 0; k < nk; k++) density_cell(ps, tide_grid_idx(g, i, j, k), &L, rho);
  }
  return TIDE_OK;
}

int tide_liquid_label(tide_particles *ps, const tide_grid *g, const tide_array *solid,
                      tide_array *labels, tide_array *counts) {
  int st;
  if ((st = tide_grid_check_cells(g, labels, TIDE_U8, "labels"))) return st;
  if (solid && (st = tide_grid_check_cells(g, solid, TIDE_U8, "solid"))) return st;
  if (counts && (st = tide_grid_check_cells(g, counts, TIDE_I32, "counts"))) return st;
  if ((st = tide_particles_bin(ps, g))) return st;
  int64_t nc = tide_grid_ncells(g);
  uint8_t *lab = TIDE_U8P(labels);
  const uint8_t *sol = solid ? TIDE_U8P(solid) : NULL;
  int32_t *cnt = counts ? TIDE_I32P(counts) : NULL;
  const int64_t *start = ps->cell_start;
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++) {
    int64_t m = start[c + 1] - start[c];
    if (cnt) cnt[c] = (int32_t)(m < INT32_MAX ? m : INT32_MAX);
    if (sol && sol[c] == TIDE_CELL_SOLID)
      lab[c] = TIDE_CELL_SOLID;
    else
      lab[c] = m > 0 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
  }
  return TIDE_OK;
}

int tide_liquid_label_cut(tide_particles *ps, const tide_grid *g, const tide_array *solid,
                          const tide_array *solid_phi, tide_array *labels, tide_array *counts) {
  int st;
  if ((st = tide_grid_check_cells(g, solid_phi, TIDE_F64, "solid_phi"))) return st;
  if (tide_array_nonfinite(solid_phi)) return tide_fail(TIDE_ENONFINITE, "solid_phi holds non-finite values");
  if ((st = tide_liquid_label(ps, g, solid, labels, counts))) return st;
  int64_t nc = tide_grid_ncells(g);
  double *q = tide_alloc((size_t)nc * sizeof(double));
  uint8_t *valid = tide_alloc((size_t)nc);
  if (!q || !valid) {
    tide_free(q, (size_t)nc * sizeof(double));
    tide_free(valid, (size_t)nc);
    return TIDE_ENOMEM;
  }
  uint8_t *lab = TIDE_U8P(labels);
  const double *sp = TIDE_F64P(solid_phi);
  const int64_t *start = ps->cell_start; /* binned by tide_liquid_label */
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
  for (int64_t c = 0; c < nc; c++) {
    valid[c] = sp[c] >= 0 && lab[c] != TIDE_CELL_SOLID;
    q[c] = lab[c] == TIDE_CELL_LIQUID ? -1 : 1;
  }
  st = tide_levelset_extrapolate(g, sp, -1, 0, q, valid);
  if (!st) {
#pragma omp parallel for schedule(static) if (nc > TIDE_PAR_MIN)
    for (int64_t c = 0; c < nc; c++)
      if (sp[c] < 0 && lab[c] == TIDE_CELL_AIR && start[c + 1] == start[c] && valid[c] && q[c] < 0)
        lab[c] = TIDE_CELL_LIQUID;
  }
  tide_free(q, (size_t)nc * sizeof(double));
  tide_free(valid, (size_t)nc);
  return st;
}
