/* test_solid_ipc_pairs.c -- the contact potential among a mesh's primitives
 * (ipc.h) with lagged friction between the pairs (tide_ipc_friction_lag):
 * two 3 x 3 cloths, the upper one a fraction of dhat above the lower and
 * slightly rotated (point-triangle and edge-edge pairs), fixed seeds:
 *   - gradient of the barrier + friction potential vs central differences
 *     of its energy (relative <= 1e-5) at points displaced tangentially and
 *     normally from the lag point (sliding and sticking friction);
 *   - the lag: at least the 16 upper nodes' pairs are frictional, its
 *     change measure is 1 from none and 0 for the same lag again, mu = 0
 *     turns friction off; the barrier's forces on the two cloths are equal
 *     and opposite;
 *   - the Hessian triplets hold the barrier and the friction blocks. */
#include "check.h"
#include "solid/integrate.h"
#include "solid/ipc.h"
#include "solid/thin.h"
#include "solid/thingen.h"
#include "tide.h"

#include <stdlib.h>
#include <string.h>

static tide_tetmesh *two_cloths(double gap) {
  double o1[3] = {0, 0, 0}, u1[3] = {0.3, 0, 0}, v1[3] = {0, 0, 0.3};
  double o2[3] = {0.04, gap, 0.03}, u2[3] = {0.2, 0, 0.02}, v2[3] = {-0.02, 0, 0.2};
  tide_tetmesh *a = NULL, *b = NULL, *m = NULL;
  CHECK(!tide_mesh_sheet(o1, u1, v1, 3, 3, 1, NULL, NULL, 0, &a), "sheet");
  CHECK(!tide_mesh_sheet(o2, u2, v2, 3, 3, 1, NULL, NULL, 0, &b), "sheet");
  double lam, mu;
  tide_lame(1e5, 0.3, &lam, &mu);
  tide_thin_params p = {0};
  p.kind = TIDE_THIN_SHELL;
  p.mat = tide_material_default(TIDE_MODEL_NEOHOOKEAN, mu, lam);
  p.thickness = 1e-3;
  p.bending = 1e-5;
  p.density = 0.5;
  CHECK(!tide_thin_attach(a, &p) && !tide_thin_attach(b, &p), "attach");
  tide_tetmesh *ms[2] = {a, b};
  CHECK(!tide_thin_merge(ms, 2, &m), "merge");
  tide_tetmesh_free(a);
  tide_tetmesh_free(b);
  return m;
}

int main(void) {
  double dhat = 0.02, dt = 0.01;
  tide_tetmesh *m = two_cloths(0.3 * dhat);
  int64_t nv = m->nv, N = nv * 3;
  tide_ipc *c = NULL;
  CHECK(!tide_ipc_new(m, dhat, 50, &c), "ipc");
  double *xr = malloc((size_t)N * sizeof(double)), *x = malloc((size_t)N * sizeof(double));
  double *g = malloc((size_t)N * sizeof(double)), *xp = malloc((size_t)N * sizeof(double));
  memcpy(xr, TIDE_F64P(m->x), (size_t)N * sizeof(double));
  /* the lag at xr; its normal forces against the barrier's gradient */
  double change = 0;
  CHECK(!tide_ipc_friction_lag(c, xr, xr, 0.4, dt, 1e-2, &change), "lag");
  int64_t nfr = tide_ipc_friction_count(c);
  CHECK(nfr >= 16, "frictional pairs: %lld", (long long)nfr);
  CHECK(change == 1, "first lag: change 1 (from none), got %g", change);
  /* the barrier alone: friction off, then its upward force on the upper cloth */
  double chk;
  CHECK(!tide_ipc_friction_lag(c, xr, xr, 0, dt, 1e-2, &chk) && tide_ipc_friction_count(c) == 0,
        "mu = 0: no friction");
  memset(g, 0, (size_t)N * sizeof(double));
  tide_ipc_gradient(c, xr, g);
  double up = 0, down = 0;
  for (int64_t i = 16; i < nv; i++)
    up -= g[i * 3 + 1];
  for (int64_t i = 0; i < 16; i++)
    down += g[i * 3 + 1];
  CHECK(up > 0 && fabs(up - down) <= 1e-9 * up, "equal and opposite: %g %g", up, down);
  CHECK(!tide_ipc_friction_lag(c, xr, xr, 0.4, dt, 1e-2, &chk), "lag again");
  CHECK(chk <= 1e-12, "the same lag: no change (%g)", chk);
  /* gradient vs FD at displaced points: sliding (large tangential), sticking
   * (within eps_u), and normal */
  const double scale[3] = {3e-3, 2e-5, 0};
  double worst = 0;
  for (int t = 0; t < 3; t++) {
    memcpy(x, xr, (size_t)N * sizeof(double));
    for (int64_t i = 16; i < nv; i++) {
      x[i * 3] += scale[t] * (1 + 0.3 * tide_rand01(81, (uint64_t)i));
      x[i * 3 + 2] += scale[t] * (0.5 - tide_rand01(82, (uint64_t)i));
      x[i * 3 + 1] += 1e-3 * dhat * (tide_rand01(83, (uint64_t)(i + 100 * t)) - 0.5);
    }
    CHECK(!tide_ipc_update(c, x, 0), "update");
    memset(g, 0, (size_t)N * sizeof(double));
    tide_ipc_gradient(c, x, g);
    double *fd = malloc((size_t)N * sizeof(double));
    for (int64_t q = 0; q < N; q++) {
      double h = 1e-7;
      memcpy(xp, x, (size_t)N * sizeof(double));
      xp[q] += h;
      double Ep = tide_ipc_energy(c, xp);
      xp[q] -= 2 * h;
      double Em = tide_ipc_energy(c, xp);
      fd[q] = (Ep - Em) / (2 * h);
    }
    double e = check_relerr((int)N, g, fd, 0);
    worst = fmax(worst, e);
    CHECK(e <= 1e-5, "displacement %d: gradient vs FD %.3g", t, e);
    free(fd);
    /* the triplets: barrier blocks and one friction block per pair */
    int64_t n;
    int *I, *J;
    double *V;
    CHECK(!tide_ipc_hessian(c, x, NULL, &n, &I, &J, &V), "hessian");
    CHECK(n >= nfr * 144 && n % 144 == 0, "triplets %lld", (long long)n);
    tide_ipc_triplets_free(n, I, J, V);
  }
  printf("%lld frictional pairs; worst gradient FD error %.2e\n", (long long)nfr, worst);
  free(xr), free(x), free(g), free(xp);
  tide_ipc_free(c);
  tide_tetmesh_free(m);
  return check_report();
}
