/*
 * levelset_volume.c -- volume-preserving level-set correction of Liu, Sun,
 * Yang, Jiang, Li, Zhu 2024 ("Penetration-free solid-fluid interaction on
 * shells and rods", Sec. 4.2.2, Eq. 10-13), connected components of the
 * liquid and a tracker that carries reference volumes across topology
 * changes (see levelset.h).
 */
#include "levelset.h"
#include "sdf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tide_volume_params tide_volume_params_default(void) {
  tide_volume_params p = {0, 0, 1e-3, 1e-12, 30, 1, 0, 1, NULL};
  return p;
}

/* the volume weight of cell c (1 without weights) */
static inline double cell_weight(const double *w, int64_t c) { return w ? w[c] : 1; }

/* weights NULL or every one in [0, 1] */
static int check_weights(const tide_grid *g, const double *w, const char *fn) {
  if (!w) return TIDE_OK;
  int64_t N = tide_grid_ncells(g), bad = 0;
  for (int64_t c = 0; c < N; c++)
    bad += !(w[c] >= 0 && w[c] <= 1);
  return bad ? tide_fail(TIDE_EINVAL, "%s: %lld weights outside [0, 1]", fn, (long long)bad)
             : TIDE_OK;
}

static double cell_volume(const tide_grid *g) {
  return g->dim == 3 ? g->dx * g->dx * g->dx : g->dx * g->dx;
}

static int check_phi(const tide_grid *g, const double *phi, const char *fn) {
  int st = tide_sdf_check_grid(g, TIDE_AT_CELLS, fn);
  if (st) return st;
  if (!phi) return tide_fail(TIDE_EINVAL, "%s: no phi", fn);
  int64_t N = tide_grid_ncells(g), bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (int64_t c = 0; c < N; c++)
    bad += !isfinite(phi[c]);
  return bad ? tide_fail(TIDE_ENONFINITE, "%s: %lld non-finite phi values", fn, (long long)bad)
             : TIDE_OK;
}

/* ------------------------------------------------------------ components */

int tide_levelset_components(const tide_grid *g, const double *phi, double band, int32_t *labels,
                             int *ncomp) {
  const char *fn = "components";
  int st = check_phi(g, phi, fn);
  if (st) return st;
  if (!labels || !ncomp) return tide_fail(TIDE_EINVAL, "%s: missing output", fn);
  if (isnan(band)) return tide_fail(TIDE_EINVAL, "%s: band is NaN", fn);
  int64_t N = tide_grid_ncells(g);
  int64_t *queue = tide_alloc((size_t)N * sizeof(int64_t));
  if (!queue) return TIDE_ENOMEM;
  const int n1 = g->n[1], n2 = g->n[2], dim = g->dim;
  const int64_t stride[3] = {(int64_t)n1 * n2, n2, 1};
  for (int64_t c = 0; c < N; c++)
    labels[c] = -1;
  int64_t nc = 0;
  /* flood fill each liquid component */
  for (int64_t seed = 0; seed < N; seed++) {
    if (labels[seed] >= 0 || !(phi[seed] < 0)) continue;
    if (nc >= INT32_MAX) {
      tide_free(queue, (size_t)N * sizeof(int64_t));
      return tide_fail(TIDE_EINVAL, "%s: too many components", fn);
    }
    int64_t head = 0, tail = 0;
    queue[tail++] = seed;
    labels[seed] = (int32_t)nc;
    while (head < tail) {
      int64_t c = queue[head++];
      int ijk[3] = {(int)(c / stride[0]), (int)((c / stride[1]) % n1), (int)(c % n2)};
      for (int a = 0; a < dim; a++)
        for (int s = -1; s <= 1; s += 2) {
          int q = ijk[a] + s;
          if (q < 0 || q >= g->n[a]) continue;
          int64_t nb = c + s * stride[a];
          if (labels[nb] < 0 && phi[nb] < 0) {
            labels[nb] = (int32_t)nc;
            queue[tail++] = nb;
          }
        }
    }
    nc++;
  }
  /* grow the components into the air band, breadth first from all liquid */
  if (band > 0 && nc > 0) {
    int64_t head = 0, tail = 0;
    for (int64_t c = 0; c < N; c++)
      if (labels[c] >= 0) queue[tail++] = c;
    while (head < tail) {
      int64_t c = queue[head++];
      int ijk[3] = {(int)(c / stride[0]), (int)((c / stride[1]) % n1), (int)(c % n2)};
      for (int a = 0; a < dim; a++)
        for (int s = -1; s <= 1; s += 2) {
          int q = ijk[a] + s;
          if (q < 0 || q >= g->n[a]) continue;
          int64_t nb = c + s * stride[a];
          if (labels[nb] < 0 && phi[nb] < band) {
            labels[nb] = labels[c];
            queue[tail++] = nb;
          }
        }
    }
  }
  tide_free(queue, (size_t)N * sizeof(int64_t));
  *ncomp = (int)nc;
  return TIDE_OK;
}

static int check_labels(const int32_t *labels, int64_t N, int ncomp, const char *fn) {
  if (!labels) return tide_fail(TIDE_EINVAL, "%s: no labels", fn);
  if (ncomp < 0) return tide_fail(TIDE_EINVAL, "%s: negative component count", fn);
  int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (int64_t c = 0; c < N; c++)
    bad += labels[c] < -1 || labels[c] >= ncomp;
  return bad ? tide_fail(TIDE_EINVAL, "%s: %lld labels outside -1..%d", fn, (long long)bad,
                         ncomp - 1)
             : TIDE_OK;
}

/* cells grouped by component: ids in component order (cell order within),
 * start[ncomp + 1]; only cells with sel(c) */
typedef struct {
  int64_t n;
  int64_t *ids;
  int64_t *start;
} groups;

static void groups_free(groups *gr, int ncomp) {
  tide_free(gr->ids, (size_t)(gr->n > 0 ? gr->n : 1) * sizeof(int64_t));
  tide_free(gr->start, (size_t)(ncomp + 1) * sizeof(int64_t));
}

/* group labelled cells; unknown != NULL selects |phi| < band (value 1) vs
 * the fixed rest (value 0) */
static int group_cells(const int32_t *labels, int64_t N, int ncomp, const uint8_t *mask,
                       uint8_t want, groups *gr) {
  gr->start = tide_calloc((size_t)(ncomp + 1) * sizeof(int64_t));
  if (!gr->start) return TIDE_ENOMEM;
  int64_t n = 0;
  for (int64_t c = 0; c < N; c++)
    if (labels[c] >= 0 && mask[c] == want) gr->start[labels[c] + 1]++, n++;
  gr->n = n;
  gr->ids = tide_alloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  int64_t *fill = tide_alloc((size_t)(ncomp > 0 ? ncomp : 1) * sizeof(int64_t));
  if (!gr->ids || !fill) {
    tide_free(fill, (size_t)(ncomp > 0 ? ncomp : 1) * sizeof(int64_t));
    groups_free(gr, ncomp);
    return TIDE_ENOMEM;
  }
  for (int c = 0; c < ncomp; c++)
    gr->start[c + 1] += gr->start[c];
  for (int c = 0; c < ncomp; c++)
    fill[c] = gr->start[c];
  for (int64_t c = 0; c < N; c++)
    if (labels[c] >= 0 && mask[c] == want) gr->ids[fill[labels[c]]++] = c;
  tide_free(fill, (size_t)(ncomp > 0 ? ncomp : 1) * sizeof(int64_t));
  return TIDE_OK;
}

int tide_levelset_volumes(const tide_grid *g, const double *phi, const int32_t *labels, int ncomp,
                          double k, double *vol) {
  return tide_levelset_volumes_weighted(g, phi, labels, ncomp, k, NULL, vol);
}

int tide_levelset_volumes_weighted(const tide_grid *g, const double *phi, const int32_t *labels,
                                   int ncomp, double k, const double *weight, double *vol) {
  const char *fn = "volumes";
  int st = check_phi(g, phi, fn);
  int64_t N = tide_grid_ncells(g);
  if (st || (st = check_labels(labels, N, ncomp, fn)) || (st = check_weights(g, weight, fn)))
    return st;
  if (!(k > 0) || !isfinite(k)) return tide_fail(TIDE_EINVAL, "%s: k must be > 0, got %g", fn, k);
  if (ncomp > 0 && !vol) return tide_fail(TIDE_EINVAL, "%s: no output", fn);
  uint8_t *mask = tide_calloc((size_t)N);
  if (!mask) return TIDE_ENOMEM;
  groups gr;
  if ((st = group_cells(labels, N, ncomp, mask, 0, &gr))) {
    tide_free(mask, (size_t)N);
    return st;
  }
  double *h = tide_alloc((size_t)(gr.n > 0 ? gr.n : 1) * sizeof(double));
  if (!h) {
    groups_free(&gr, ncomp);
    tide_free(mask, (size_t)N);
    return TIDE_ENOMEM;
  }
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < gr.n; p++)
    h[p] = tide_levelset_heaviside(phi[gr.ids[p]], k) * cell_weight(weight, gr.ids[p]);
  double vc = cell_volume(g);
  for (int c = 0; c < ncomp; c++)
    vol[c] = vc * tide_sum(gr.start[c + 1] - gr.start[c], h + gr.start[c]);
  tide_free(h, (size_t)(gr.n > 0 ? gr.n : 1) * sizeof(double));
  groups_free(&gr, ncomp);
  tide_free(mask, (size_t)N);
  return TIDE_OK;
}

/* ------------------------------------------------------------ correction */

/* resolve defaults against the grid and check ranges */
static int resolve_params(const tide_grid *g, const tide_volume_params *in, tide_volume_params *p,
                          const char *fn) {
  *p = in ? *in : tide_volume_params_default();
  if (isnan(p->band) || isnan(p->k) || !isfinite(p->air_density) || isnan(p->tol) ||
      isnan(p->redistance_band))
    return tide_fail(TIDE_EINVAL, "%s: parameters must not be NaN", fn);
  if (!(p->band > 0)) p->band = 3 * g->dx;
  if (!(p->k > 0)) p->k = 3 / p->band;
  if (!isfinite(p->band) || !isfinite(p->k))
    return tide_fail(TIDE_EINVAL, "%s: band and k must be finite", fn);
  if (p->air_density <= 0 || p->air_density > 1)
    return tide_fail(TIDE_EINVAL, "%s: air_density (rho_a / rho_l) must be in (0, 1], got %g", fn,
                     p->air_density);
  if (!(p->tol > 0)) p->tol = 1e-12;
  if (p->max_iter < 1 || p->max_iter > 10000)
    return tide_fail(TIDE_EINVAL, "%s: max_iter must be in 1..10000, got %d", fn, p->max_iter);
  if (p->passes < 1 || p->passes > 100)
    return tide_fail(TIDE_EINVAL, "%s: passes must be in 1..100, got %d", fn, p->passes);
  if (p->passes > 1 && !p->redistance)
    return tide_fail(TIDE_EINVAL, "%s: passes > 1 needs redistance", fn);
  return check_weights(g, p->weight, fn);
}

/* one pass: Newton iterations from phi* = phi, then the redistancing */
static int correct_pass(const tide_grid *g, double *phi, const int32_t *labels, int ncomp,
                        const double *target, const tide_volume_params *pp,
                        tide_volume_stats *stats) {
  const tide_volume_params p = *pp;
  int64_t N = tide_grid_ncells(g);
  int st = TIDE_OK;
  const double vc = cell_volume(g), k = p.k, ra = p.air_density;
  uint8_t *unk = tide_alloc((size_t)N);
  if (!unk) return TIDE_ENOMEM;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < N; c++)
    unk[c] = fabs(phi[c]) < p.band && cell_weight(p.weight, c) > 0;
  groups U, F;
  if ((st = group_cells(labels, N, ncomp, unk, 1, &U))) {
    tide_free(unk, (size_t)N);
    return st;
  }
  if ((st = group_cells(labels, N, ncomp, unk, 0, &F))) {
    groups_free(&U, ncomp);
    tide_free(unk, (size_t)N);
    return st;
  }
  int64_t nu = U.n > 0 ? U.n : 1, nf = F.n > 0 ? F.n : 1;
  size_t cb = (size_t)(ncomp > 0 ? ncomp : 1) * sizeof(double);
  double *star = tide_alloc((size_t)nu * sizeof(double));
  double *t1 = tide_alloc((size_t)nu * sizeof(double)),
         *t2 = tide_alloc((size_t)nu * sizeof(double));
  double *t3 = tide_alloc((size_t)(nu > nf ? nu : nf) * sizeof(double));
  double *fixed = tide_alloc(cb), *lam = tide_alloc(cb), *err = tide_alloc(cb);
  if (!star || !t1 || !t2 || !t3 || !fixed || !lam || !err) {
    st = TIDE_ENOMEM;
    goto done;
  }
  /* the fixed part of each volume */
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < F.n; q++)
    t3[q] = tide_levelset_heaviside(phi[F.ids[q]], k) * cell_weight(p.weight, F.ids[q]);
  for (int c = 0; c < ncomp; c++)
    fixed[c] = vc * tide_sum(F.start[c + 1] - F.start[c], t3 + F.start[c]);
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < U.n; q++)
    star[q] = phi[U.ids[q]];

  stats->ncomp = ncomp;
  for (int it = 0;; it++) {
    /* t1 = H, t2 = J^2 / m, t3 = J (phi* - phi) over the unknowns */
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < U.n; q++) {
      double ph = phi[U.ids[q]], w = cell_weight(p.weight, U.ids[q]);
      double H = tide_levelset_heaviside(ph, k);
      /* H' = -2k e^{2k phi} / (1 + e^{2k phi})^2 = -2k H (1 - H) */
      double J = -2 * k * H * (1 - H) * vc * w;
      double m = ((1 - ra) * H + ra) * vc;
      t1[q] = H * w;
      t2[q] = J * J / m;
      t3[q] = J * (star[q] - ph);
    }
    double worst = 0;
    int active = 0;
    for (int c = 0; c < ncomp; c++) {
      int64_t s = U.start[c], n = U.start[c + 1] - s;
      double V = fixed[c] + vc * tide_sum(n, t1 + s);
      double h = V - target[c];
      double A = tide_sum(n, t2 + s), B = tide_sum(n, t3 + s);
      double scale = target[c] > 0 ? target[c] : vc;
      err[c] = fabs(h) / scale;
      lam[c] = 0;
      if (err[c] > worst) worst = err[c];
      if (err[c] > p.tol && A > 0) {
        lam[c] = (h + B) / A;
        active = 1;
      }
    }
    if (it == 0) stats->err_before = worst;
    stats->err_newton = worst;
    if (!active || it >= p.max_iter) break;
    stats->iterations = it + 1;
    /* dphi = (phi* - phi) - M^-1 J^T lambda */
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < U.n; q++) {
      int64_t cid = U.ids[q];
      double ph = phi[cid];
      double H = tide_levelset_heaviside(ph, k);
      double J = -2 * k * H * (1 - H) * vc * cell_weight(p.weight, cid);
      double m = ((1 - ra) * H + ra) * vc;
      phi[cid] = star[q] - lam[labels[cid]] * J / m;
    }
  }
  stats->err_after = stats->err_newton;
  if (p.redistance) {
    /* FMM's interface cells keep the zero level; the profile of the Newton
     * update around it (proportional to H'/rho) is replaced by distances */
    if ((st = tide_levelset_redistance(g, phi, p.redistance_band))) goto done;
    /* the same labels measure the result (components do not change) */
    double worst = 0;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < U.n; q++)
      t1[q] = tide_levelset_heaviside(phi[U.ids[q]], k) * cell_weight(p.weight, U.ids[q]);
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < F.n; q++)
      t3[q] = tide_levelset_heaviside(phi[F.ids[q]], k) * cell_weight(p.weight, F.ids[q]);
    for (int c = 0; c < ncomp; c++) {
      double V = vc * (tide_sum(U.start[c + 1] - U.start[c], t1 + U.start[c]) +
                       tide_sum(F.start[c + 1] - F.start[c], t3 + F.start[c]));
      double scale = target[c] > 0 ? target[c] : vc;
      double e = fabs(V - target[c]) / scale;
      if (e > worst) worst = e;
    }
    stats->err_after = worst;
  }
done:
  tide_free(star, (size_t)nu * sizeof(double));
  tide_free(t1, (size_t)nu * sizeof(double));
  tide_free(t2, (size_t)nu * sizeof(double));
  tide_free(t3, (size_t)(nu > nf ? nu : nf) * sizeof(double));
  tide_free(fixed, cb);
  tide_free(lam, cb);
  tide_free(err, cb);
  groups_free(&U, ncomp);
  groups_free(&F, ncomp);
  tide_free(unk, (size_t)N);
  return st;
}

int tide_levelset_correct_volume(const tide_grid *g, double *phi, const int32_t *labels, int ncomp,
                                 const double *target, const tide_volume_params *pin,
                                 tide_volume_stats *stats) {
  const char *fn = "correct_volume";
  tide_volume_stats sdummy, one;
  if (!stats) stats = &sdummy;
  memset(stats, 0, sizeof *stats);
  int st = check_phi(g, phi, fn);
  int64_t N = tide_grid_ncells(g);
  if (st || (st = check_labels(labels, N, ncomp, fn))) return st;
  tide_volume_params p;
  if ((st = resolve_params(g, pin, &p, fn))) return st;
  if (ncomp == 0) return TIDE_OK;
  if (!target) return tide_fail(TIDE_EINVAL, "%s: no target volumes", fn);
  for (int c = 0; c < ncomp; c++)
    if (!(target[c] >= 0) || !isfinite(target[c]))
      return tide_fail(TIDE_EINVAL, "%s: target volume %d is %g", fn, c + 1, target[c]);
  for (int pass = 0; pass < p.passes; pass++) {
    if ((st = correct_pass(g, phi, labels, ncomp, target, &p, &one))) return st;
    if (pass == 0)
      *stats = one;
    else {
      stats->iterations += one.iterations;
      stats->err_newton = one.err_newton;
      stats->err_after = one.err_after;
    }
    stats->passes = pass + 1;
    if (one.err_after <= p.tol) break;
  }
  return TIDE_OK;
}

/* --------------------------------------------------------------- tracker */

int tide_volume_tracker_new(const tide_grid *g, const double *phi, const tide_volume_params *pin,
                            tide_volume_tracker **out) {
  const char *fn = "volume tracker";
  *out = NULL;
  tide_volume_params p;
  int st = check_phi(g, phi, fn);
  if (st || (st = resolve_params(g, pin, &p, fn))) return st;
  tide_volume_tracker *t = tide_calloc(sizeof *t);
  if (!t) return TIDE_ENOMEM;
  t->grid = *g;
  t->params = pin ? *pin : tide_volume_params_default(); /* unresolved: band follows dx */
  int64_t N = tide_grid_ncells(g);
  t->labels = tide_alloc((size_t)N * sizeof(int32_t));
  /* the references are measured on phi as correct() leaves it: redistanced
   * (the smoothed volume sees phi within the band, not just its zero level) */
  double *ref = p.redistance ? tide_alloc((size_t)N * sizeof(double)) : NULL;
  if (!t->labels || (p.redistance && !ref)) {
    st = TIDE_ENOMEM;
    goto fail;
  }
  if (p.weight) { /* the tracker's own copy */
    if (!(t->weight = tide_alloc((size_t)N * sizeof(double)))) {
      st = TIDE_ENOMEM;
      goto fail;
    }
    memcpy(t->weight, p.weight, (size_t)N * sizeof(double));
    t->params.weight = p.weight = t->weight;
  }
  if (ref) {
    memcpy(ref, phi, (size_t)N * sizeof(double));
    if ((st = tide_levelset_redistance(g, ref, p.redistance_band))) goto fail;
    phi = ref;
  }
  if ((st = tide_levelset_components(g, phi, p.band, t->labels, &t->ncomp))) goto fail;
  t->vol = tide_alloc((size_t)(t->ncomp > 0 ? t->ncomp : 1) * sizeof(double));
  if (!t->vol) {
    st = TIDE_ENOMEM;
    goto fail;
  }
  if ((st = tide_levelset_volumes_weighted(g, phi, t->labels, t->ncomp, p.k, p.weight, t->vol)))
    goto fail;
  tide_free(ref, ref ? (size_t)N * sizeof(double) : 0);
  *out = t;
  return TIDE_OK;
fail:
  tide_free(ref, ref ? (size_t)N * sizeof(double) : 0);
  tide_volume_tracker_free(t);
  return st;
}

/* an overlap cell: (old component, new component) code, then the cell */
typedef struct {
  int64_t code, cell;
} overlap;

static int cmp_overlap(const void *a, const void *b) {
  const overlap *x = a, *y = b;
  if (x->code != y->code) return (x->code > y->code) - (x->code < y->code);
  return (x->cell > y->cell) - (x->cell < y->cell);
}

/* Targets of the new components from the overlap with the old ones: old
 * component o's reference volume is split among the new components n it
 * overlaps in proportion to the current smoothed volume sum H(phi) V_cell of
 * the overlap cells (cell counts if that is zero).  Not by cell counts: the
 * labels reach 3 cells into the air, and a thin fragment, mostly band, would
 * get several times its volume (a film breaking on a row of Liu vertices got
 * 2.2x, and the solve inflated it through the row). */
static int match_targets(const tide_volume_tracker *t, const int32_t *labels, int ncomp,
                         const double *phi, double k, const double *current, double *target) {
  int64_t N = tide_grid_ncells(&t->grid);
  int64_t np = 0;
  for (int64_t c = 0; c < N; c++)
    np += labels[c] >= 0 && t->labels[c] >= 0;
  overlap *pairs = tide_alloc((size_t)(np > 0 ? np : 1) * sizeof(overlap));
  size_t ob = (size_t)(t->ncomp > 0 ? t->ncomp : 1) * sizeof(double);
  double *total = tide_calloc(ob), *count = tide_calloc(ob); /* per old component */
  uint8_t *seen = tide_calloc((size_t)(ncomp > 0 ? ncomp : 1));
  if (!pairs || !total || !count || !seen) {
    tide_free(pairs, (size_t)(np > 0 ? np : 1) * sizeof(overlap));
    tide_free(total, ob);
    tide_free(count, ob);
    tide_free(seen, (size_t)(ncomp > 0 ? ncomp : 1));
    return TIDE_ENOMEM;
  }
  np = 0;
  for (int64_t c = 0; c < N; c++)
    if (labels[c] >= 0 && t->labels[c] >= 0)
      pairs[np++] = (overlap){(int64_t)t->labels[c] * ncomp + labels[c], c};
  /* sorted by pair, cells in order within a pair: the sums are deterministic */
  qsort(pairs, (size_t)np, sizeof(overlap), cmp_overlap);
  const double *wt = t->weight;
  for (int64_t q = 0; q < np; q++) {
    int64_t o = pairs[q].code / ncomp;
    total[o] += tide_levelset_heaviside(phi[pairs[q].cell], k) * cell_weight(wt, pairs[q].cell);
    count[o] += 1;
  }
  for (int n = 0; n < ncomp; n++)
    target[n] = 0;
  for (int64_t q = 0; q < np;) {
    int64_t r = q, o = pairs[q].code / ncomp, n = pairs[q].code % ncomp;
    double w = 0;
    for (; r < np && pairs[r].code == pairs[q].code; r++)
      w += tide_levelset_heaviside(phi[pairs[r].cell], k) * cell_weight(wt, pairs[r].cell);
    double share = total[o] > 0 ? w / total[o] : (double)(r - q) / count[o];
    target[n] += t->vol[o] * share;
    seen[n] = 1;
    q = r;
  }
  for (int n = 0; n < ncomp; n++)
    if (!seen[n]) target[n] = current[n];
  tide_free(pairs, (size_t)(np > 0 ? np : 1) * sizeof(overlap));
  tide_free(total, ob);
  tide_free(count, ob);
  tide_free(seen, (size_t)(ncomp > 0 ? ncomp : 1));
  return TIDE_OK;
}

int tide_volume_tracker_update(tide_volume_tracker *t, const double *phi) {
  const char *fn = "volume tracker update";
  if (!t) return tide_fail(TIDE_EINVAL, "%s: no tracker", fn);
  const tide_grid *g = &t->grid;
  tide_volume_params p;
  int st = check_phi(g, phi, fn);
  if (st || (st = resolve_params(g, &t->params, &p, fn))) return st;
  int64_t N = tide_grid_ncells(g);
  int32_t *labels = tide_alloc((size_t)N * sizeof(int32_t));
  if (!labels) return TIDE_ENOMEM;
  int ncomp;
  if ((st = tide_levelset_components(g, phi, p.band, labels, &ncomp))) {
    tide_free(labels, (size_t)N * sizeof(int32_t));
    return st;
  }
  size_t vb = (size_t)(ncomp > 0 ? ncomp : 1) * sizeof(double);
  double *cur = tide_alloc(vb), *target = tide_alloc(vb);
  if (!cur || !target) {
    st = TIDE_ENOMEM;
    goto fail;
  }
  if ((st = tide_levelset_volumes_weighted(g, phi, labels, ncomp, p.k, t->weight, cur))) goto fail;
  if ((st = match_targets(t, labels, ncomp, phi, p.k, cur, target))) goto fail;
  /* the targets become the references, the labels those of this step (a
   * correction moves the interface by a fraction of a cell) */
  tide_free(t->labels, (size_t)N * sizeof(int32_t));
  tide_free(t->vol, (size_t)(t->ncomp > 0 ? t->ncomp : 1) * sizeof(double));
  t->labels = labels;
  t->vol = target;
  t->ncomp = ncomp;
  tide_free(cur, vb);
  return TIDE_OK;
fail:
  tide_free(labels, (size_t)N * sizeof(int32_t));
  tide_free(cur, vb);
  tide_free(target, vb);
  return st;
}

/* a cell of a vanished component: its phi, then the cell (sort key) */
typedef struct {
  double phi;
  int64_t cell;
} ranked;

static int cmp_depth(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->phi != y->phi) return (x->phi > y->phi) - (x->phi < y->phi);
  return (x->cell > y->cell) - (x->cell < y->cell);
}

/* gather the m cells ids[0..m) into their n = round(vol / vc) (1..m)
 * deepest (smallest phi; ties by cell index): those become liquid cells at
 * least half a cell deep, min(phi, -dx/2), the others air at least half a
 * cell out, max(phi, dx/2) -- the interface between them halfway, as
 * redistancing then keeps it.  other != NULL: the others only where
 * other[cell] < 0 (not another component's air band).  d: scratch of m
 * entries. */
static void gather(double *phi, const int64_t *ids, int64_t m, double vol, double vc, double dx,
                   const int32_t *other, ranked *d) {
  for (int64_t q = 0; q < m; q++)
    d[q] = (ranked){phi[ids[q]], ids[q]};
  qsort(d, (size_t)m, sizeof(ranked), cmp_depth);
  double want = floor(vol / vc + 0.5);
  int64_t n = want < 1 ? 1 : want > (double)m ? m : (int64_t)want;
  for (int64_t q = 0; q < m; q++) {
    double *v = phi + d[q].cell;
    if (q < n)
      *v = fmin(*v, -0.5 * dx);
    else if (!other || other[d[q].cell] < 0)
      *v = fmax(*v, 0.5 * dx);
  }
}

int tide_volume_tracker_keep(tide_volume_tracker *t, double *phi, double depth, int *nkept) {
  const char *fn = "volume tracker keep";
  if (nkept) *nkept = 0;
  if (!t) return tide_fail(TIDE_EINVAL, "%s: no tracker", fn);
  const tide_grid *g = &t->grid;
  if (!(depth >= 0 && depth <= g->dx))
    return tide_fail(TIDE_EINVAL, "%s: depth must be in [0, dx], got %g m", fn, depth);
  tide_volume_params p;
  int st = check_phi(g, phi, fn);
  if (st || (st = resolve_params(g, &t->params, &p, fn))) return st;
  if (t->ncomp == 0) return TIDE_OK;
  const int64_t N = tide_grid_ncells(g);
  const double vc = cell_volume(g);
  const int no = t->ncomp;
  int32_t *labels = tide_alloc((size_t)N * sizeof(int32_t));
  uint8_t *hit = tide_calloc((size_t)no), *mask = tide_calloc((size_t)N);
  double *cur = NULL, *target = NULL, *deep = NULL;
  ranked *d = NULL;
  groups gold = {0, NULL, NULL}, gnew = {0, NULL, NULL};
  int ncomp = 0, kept = 0;
  size_t vb = 0;
  int64_t most = 0;
  if (!labels || !hit || !mask) {
    st = TIDE_ENOMEM;
    goto done;
  }
  if ((st = tide_levelset_components(g, phi, p.band, labels, &ncomp))) goto done;
  vb = (size_t)(ncomp > 0 ? ncomp : 1) * sizeof(double);
  cur = tide_alloc(vb), target = tide_alloc(vb), deep = tide_alloc(vb);
  if (!cur || !target || !deep) {
    st = TIDE_ENOMEM;
    goto done;
  }
  /* the new components' targets, as update() will give them */
  if ((st = tide_levelset_volumes(g, phi, labels, ncomp, p.k, cur))) goto done;
  if ((st = match_targets(t, labels, ncomp, phi, p.k, cur, target))) goto done;
  for (int n = 0; n < ncomp; n++)
    deep[n] = 0;
  for (int64_t c = 0; c < N; c++) {
    if (labels[c] >= 0 && phi[c] < deep[labels[c]]) deep[labels[c]] = phi[c];
    if (t->labels[c] >= 0 && phi[c] < 0) hit[t->labels[c]] = 1;
  }
  /* the vanished old components (no liquid cell left among their cells: a
   * film whose cells are now another component's air band counts, as the
   * redistancing would erase it) with those cells not labelled now */
  for (int64_t c = 0; c < N; c++)
    mask[c] = t->labels[c] >= 0 && !hit[t->labels[c]] && t->vol[t->labels[c]] > 0;
  if ((st = group_cells(t->labels, N, no, mask, 1, &gold))) {
    gold.start = NULL; /* group_cells freed what it had */
    goto done;
  }
  /* the new components without a cell depth deep */
  for (int64_t c = 0; c < N; c++)
    mask[c] = labels[c] >= 0 && deep[labels[c]] > -depth && target[labels[c]] > 0;
  if ((st = group_cells(labels, N, ncomp, mask, 1, &gnew))) {
    gnew.start = NULL;
    goto done;
  }
  most = gold.n > gnew.n ? gold.n : gnew.n;
  d = tide_alloc((size_t)(most > 0 ? most : 1) * sizeof(ranked));
  if (!d) {
    st = TIDE_ENOMEM;
    goto done;
  }
  /* the thin ones first (their air band included), then the vanished ones
   * (whose cells may lie in another component's band: only their liquid is
   * written there) */
  for (int n = 0; n < ncomp; n++) {
    int64_t m = gnew.start[n + 1] - gnew.start[n];
    if (m == 0) continue;
    gather(phi, gnew.ids + gnew.start[n], m, target[n], vc, g->dx, NULL, d);
    kept++;
  }
  for (int o = 0; o < no; o++) {
    int64_t m = gold.start[o + 1] - gold.start[o];
    if (m == 0) continue;
    gather(phi, gold.ids + gold.start[o], m, t->vol[o], vc, g->dx, labels, d);
    kept++;
  }
done:
  if (d) tide_free(d, (size_t)(most > 0 ? most : 1) * sizeof(ranked));
  if (gold.start) groups_free(&gold, no);
  if (gnew.start) groups_free(&gnew, ncomp);
  if (cur) tide_free(cur, vb);
  if (target) tide_free(target, vb);
  if (deep) tide_free(deep, vb);
  tide_free(labels, labels ? (size_t)N * sizeof(int32_t) : 0);
  tide_free(hit, hit ? (size_t)no : 0);
  tide_free(mask, mask ? (size_t)N : 0);
  if (nkept) *nkept = kept;
  return st;
}

int tide_volume_tracker_set_weights(tide_volume_tracker *t, const double *w) {
  if (!t) return tide_fail(TIDE_EINVAL, "volume tracker: NULL");
  int st = check_weights(&t->grid, w, "volume tracker weights");
  if (st) return st;
  size_t bytes = (size_t)tide_grid_ncells(&t->grid) * sizeof(double);
  if (!w) {
    if (t->weight) tide_free(t->weight, bytes);
    t->weight = NULL;
  } else {
    if (!t->weight && !(t->weight = tide_alloc(bytes))) return TIDE_ENOMEM;
    memcpy(t->weight, w, bytes);
  }
  t->params.weight = t->weight;
  return TIDE_OK;
}

int tide_volume_tracker_add(tide_volume_tracker *t, const double *body, double vol) {
  const char *fn = "volume tracker add";
  if (!t) return tide_fail(TIDE_EINVAL, "%s: no tracker", fn);
  const tide_grid *g = &t->grid;
  tide_volume_params p;
  int st = check_phi(g, body, fn);
  if (st || (st = resolve_params(g, &t->params, &p, fn))) return st;
  if (!(vol >= 0) || !isfinite(vol))
    return tide_fail(TIDE_EINVAL, "%s: volume must be finite and >= 0, got %g", fn, vol);
  if (t->ncomp >= INT32_MAX - 1) return tide_fail(TIDE_EINVAL, "%s: too many components", fn);
  const int64_t N = tide_grid_ncells(g);
  const int no = t->ncomp;
  size_t cb = (size_t)(no > 0 ? no : 1) * sizeof(int64_t);
  int64_t *before = tide_calloc(cb), *after = tide_calloc(cb);
  double *vnew = tide_alloc((size_t)(no + 1) * sizeof(double));
  if (!before || !after || !vnew) {
    tide_free(before, before ? cb : 0);
    tide_free(after, after ? cb : 0);
    tide_free(vnew, vnew ? (size_t)(no + 1) * sizeof(double) : 0);
    return TIDE_ENOMEM;
  }
  for (int64_t c = 0; c < N; c++) {
    int32_t o = t->labels[c];
    if (o < 0) continue;
    before[o]++;
    if (!(body[c] < p.band)) after[o]++;
  }
  for (int64_t c = 0; c < N; c++)
    if (body[c] < p.band) t->labels[c] = no;
  memcpy(vnew, t->vol, (size_t)no * sizeof(double));
  vnew[no] = vol;
  for (int o = 0; o < no; o++)
    if (before[o] > 0 && after[o] == 0) vnew[no] += vnew[o], vnew[o] = 0;
  tide_free(t->vol, (size_t)(no > 0 ? no : 1) * sizeof(double));
  t->vol = vnew;
  t->ncomp = no + 1;
  tide_free(before, cb);
  tide_free(after, cb);
  return TIDE_OK;
}

int tide_volume_tracker_correct(tide_volume_tracker *t, double *phi, tide_volume_stats *stats) {
  tide_volume_params p;
  int st = tide_volume_tracker_update(t, phi);
  if (st || (st = resolve_params(&t->grid, &t->params, &p, "volume tracker correct"))) return st;
  return tide_levelset_correct_volume(&t->grid, phi, t->labels, t->ncomp, t->vol, &p, stats);
}

int tide_volume_tracker_resolved(const tide_volume_tracker *t, tide_volume_params *p) {
  if (!t) return tide_fail(TIDE_EINVAL, "volume tracker: no tracker");
  return resolve_params(&t->grid, &t->params, p, "volume tracker");
}

double tide_volume_tracker_total(const tide_volume_tracker *t) {
  double s = 0;
  for (int c = 0; c < t->ncomp; c++)
    s += t->vol[c];
  return s;
}

void tide_volume_tracker_free(tide_volume_tracker *t) {
  if (!t) return;
  tide_free(t->labels, (size_t)tide_grid_ncells(&t->grid) * sizeof(int32_t));
  tide_free(t->vol, (size_t)(t->ncomp > 0 ? t->ncomp : 1) * sizeof(double));
  if (t->weight) tide_free(t->weight, (size_t)tide_grid_ncells(&t->grid) * sizeof(double));
  tide_free(t, sizeof *t);
}
