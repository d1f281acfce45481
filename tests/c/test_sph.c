/* test_sph.c -- identities of the SPH module (sph.h): kernel normalisation
 * (integral of W = 1) and derivative (dW/dr against central differences),
 * the lattice moments sum_j V W_ij = 1 and sum_j V (x_j - x_i) (x) grad W_ij
 * = I (within 2%), the Morton-sorted cell-list search against brute force, exact
 * difference gradient of a constant, the symmetric pressure gradient
 * conserving momentum pair by pair to round-off, and bit-identical WCSPH
 * and DFSPH steps for 1 and 2 threads (boundary particles, SDF walls).
 * Cubic spline and Wendland C2, 2D
 * and 3D. */
#include "check.h"
#include "sph/sph.h"
#include "tide.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static const char *kname(int k) { return k == TIDE_SPH_CUBIC ? "cubic" : "wendland"; }

/* int_0^H W(r) |S^{d-1}| r^{d-1} dr by composite Simpson */
static void kernels(int kind, int dim) {
  tide_sph_kernel K;
  double H = 0.37;
  CHECK(tide_sph_kernel_init(&K, kind, dim, H) == TIDE_OK, "init");
  int N = 20000;
  double h = H / N, sum = 0;
  for (int i = 0; i <= N; i++) {
    double r = i * h, f = tide_sph_W(&K, r) * (dim == 2 ? 2 * M_PI * r : 4 * M_PI * r * r);
    sum += f * (i == 0 || i == N ? 1 : i % 2 ? 4 : 2);
  }
  sum *= h / 3;
  printf("%s %dD: integral of W = %.15f\n", kname(kind), dim, sum);
  CHECK_NEAR(sum, 1, 1e-10);
  CHECK(tide_sph_W(&K, H) == 0 && tide_sph_dW(&K, 1.01 * H) == 0, "compact support");
  double worst = 0;
  for (int i = 1; i < 200; i++) {
    double r = i * H / 200, e = 1e-6 * H;
    double fd = (tide_sph_W(&K, r + e) - tide_sph_W(&K, r - e)) / (2 * e);
    double err = fabs(fd - tide_sph_dW(&K, r)) / (K.sigma / H);
    if (err > worst) worst = err;
  }
  printf("  dW/dr vs central differences: %.2e (relative to sigma/H)\n", worst);
  CHECK(worst < 1e-7, "dW/dr matches finite differences: %g", worst);
}

/* A state on an n^d grid of spacing 1/n. */
static tide_sph *state(int kind, int dim, int n, double support, double c) {
  tide_grid g = {dim, {n, n, dim == 3 ? n : 1}, 1.0 / n, {0, 0, 0}};
  tide_sph_params prm = {kind, support, 1000, {0, -9.81, 0}, c, 0.1, 0.05, 0, 0};
  tide_sph *s = NULL;
  if (tide_sph_new(&g, &prm, &s)) return NULL;
  return s;
}

/* lattice moments at an interior particle of a filled box */
static void lattice(int kind, int dim) {
  int n = dim == 2 ? 24 : 12;
  tide_sph *s = state(kind, dim, n, 3, 20);
  tide_shape *box;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  tide_shape_box(dim, lo, hi, &box);
  int64_t added;
  CHECK(tide_sph_seed(s, box, 0, 0, NULL, &added) == TIDE_OK, "seed");
  tide_shape_release(box);
  CHECK(tide_sph_search(s) == TIDE_OK, "search");
  CHECK(tide_sph_density(s) == TIDE_OK, "density");
  const double *x = TIDE_F64P(s->ps->x), *rho = TIDE_F64P(s->rho);
  int d = dim;
  /* the particle nearest the centre */
  int64_t c = 0;
  double best = 1e9;
  for (int64_t i = 0; i < s->ps->n; i++) {
    double r = 0;
    for (int a = 0; a < d; a++)
      r += (x[i * d + a] - 0.5 - 0.5 / n) * (x[i * d + a] - 0.5 - 0.5 / n);
    if (r < best) best = r, c = i;
  }
  CHECK_NEAR(rho[c], 1000, 1e-9); /* the mass makes the lattice density exact */
  double M[9] = {0}, V = pow(1.0 / n, d), G[3] = {0, 0, 0};
  for (int64_t q = s->nstart[c]; q < s->nstart[c + 1]; q++) {
    int64_t j = s->nbr[q];
    double xij[3], r = 0, gw[3];
    for (int a = 0; a < d; a++) {
      xij[a] = x[c * d + a] - x[j * d + a];
      r += xij[a] * xij[a];
    }
    r = sqrt(r);
    tide_sph_gradW(&s->K, d, xij, r, gw);
    for (int a = 0; a < d; a++) {
      G[a] += V * gw[a];
      for (int b = 0; b < d; b++)
        M[a * d + b] += V * (-xij[a]) * gw[b]; /* (x_j - x_i) (x) grad W */
    }
  }
  double e = 0, gs = 0;
  for (int a = 0; a < d; a++) {
    gs = fmax(gs, fabs(G[a]) * s->K.H);
    for (int b = 0; b < d; b++)
      e = fmax(e, fabs(M[a * d + b] - (a == b)));
  }
  printf(
      "%s %dD lattice (H = 3 dx): |sum V (x_j - x_i) grad W - I| = %.2e, |sum V grad W| H = %.1e\n",
      kname(kind), dim, e, gs);
  CHECK(e < 0.02, "first moment of grad W within 2%% of I: %g", e);
  CHECK(gs < 1e-12, "sum of grad W vanishes on the symmetric lattice: %g", gs);
  tide_sph_free(s);
}

/* random particles: search against brute force, gradients, momentum */
static void random_cloud(int kind, int dim) {
  int n = dim == 2 ? 32 : 12, d = dim;
  tide_sph *s = state(kind, dim, n, 2.5, 20);
  tide_shape *box;
  double lo[3] = {0.1, 0.1, 0.1}, hi[3] = {0.9, 0.9, 0.9};
  tide_shape_box(dim, lo, hi, &box);
  int64_t added;
  CHECK(tide_sph_seed(s, box, 1, 3, NULL, &added) == TIDE_OK, "seed");
  tide_shape_release(box);
  int64_t np = s->ps->n;
  /* random velocities and pressures */
  double *v = TIDE_F64P(s->ps->v);
  for (int64_t i = 0; i < np * d; i++)
    v[i] = tide_rand01(11, (uint64_t)i) - 0.5;
  CHECK(tide_sph_search(s) == TIDE_OK, "search");
  CHECK(tide_sph_density(s) == TIDE_OK, "density");
  const double *x = TIDE_F64P(s->ps->x);
  /* Morton order: keys never decrease along the storage */
  int sorted = 1;
  uint64_t prev = 0;
  for (int64_t i = 0; i < np; i++) {
    int c[3] = {0, 0, 0};
    for (int a = 0; a < d; a++)
      c[a] = (int)((x[i * d + a] - s->g.origin[a]) / s->K.H);
    uint64_t k = tide_sph_morton(d, c[0], c[1], c[2]);
    if (i && k < prev) sorted = 0;
    prev = k;
  }
  CHECK(sorted, "particles stored in Morton order");
  /* brute force neighbour counts */
  int64_t miss = 0;
  for (int64_t i = 0; i < np; i++) {
    int64_t cnt = 0;
    for (int64_t j = 0; j < np; j++) {
      if (j == i) continue;
      double r2 = 0;
      for (int a = 0; a < d; a++)
        r2 += (x[i * d + a] - x[j * d + a]) * (x[i * d + a] - x[j * d + a]);
      cnt += r2 < s->K.H * s->K.H;
    }
    miss += cnt != s->nstart[i + 1] - s->nstart[i];
  }
  CHECK(miss == 0, "cell-list neighbours = brute force (%ld particles differ)", (long)miss);
  /* the lists: every entry within H; a second search (positions unchanged,
   * its scratch stride grown from the first one's largest count, so no
   * particle is gathered twice) gives the same lists entry for entry */
  {
    int64_t m = s->nstart[np], far = 0;
    for (int64_t i = 0; i < np; i++)
      for (int64_t q = s->nstart[i]; q < s->nstart[i + 1]; q++) {
        double r2 = 0;
        for (int a = 0; a < d; a++) {
          double t = x[i * d + a] - x[(int64_t)s->nbr[q] * d + a];
          r2 += t * t;
        }
        far += !(r2 < s->K.H * s->K.H);
      }
    CHECK(far == 0, "listed neighbours within H (%ld outside)", (long)far);
    int32_t *first = malloc(sizeof(int32_t) * (size_t)(m > 0 ? m : 1));
    memcpy(first, s->nbr, sizeof(int32_t) * (size_t)m);
    int k1 = s->kstride;
    CHECK(tide_sph_search(s) == TIDE_OK, "second search");
    CHECK(s->nstart[np] == m && !memcmp(first, s->nbr, sizeof(int32_t) * (size_t)m),
          "a second search (stride %d, was %d) gives the same neighbour lists", s->kstride, k1);
    free(first);
  }
  /* difference gradient of a constant: exactly zero */
  double *A = malloc(sizeof(double) * (size_t)np), *gA = malloc(sizeof(double) * (size_t)(np * d));
  for (int64_t i = 0; i < np; i++)
    A[i] = 3.25;
  tide_sph_gradient(s, A, 0, gA);
  double mx = 0;
  for (int64_t i = 0; i < np * d; i++)
    mx = fmax(mx, fabs(gA[i]));
  CHECK(mx == 0, "difference gradient of a constant is zero: %g", mx);
  /* symmetric pressure gradient: sum_i m_i a_i = 0 pair by pair */
  double *p = TIDE_F64P(s->p);
  for (int64_t i = 0; i < np; i++)
    p[i] = 1e4 * tide_rand01(12, (uint64_t)i);
  s->gravity[0] = s->gravity[1] = s->gravity[2] = 0;
  CHECK(tide_sph_forces(s, 1, 1) == TIDE_OK, "forces");
  const double *acc = TIDE_F64P(s->a);
  double tot[3] = {0, 0, 0}, scale = 0;
  for (int64_t i = 0; i < np; i++)
    for (int a = 0; a < d; a++) {
      tot[a] += s->mass * acc[i * d + a];
      scale += fabs(s->mass * acc[i * d + a]);
    }
  double drift = 0;
  for (int a = 0; a < d; a++)
    drift = fmax(drift, fabs(tot[a]));
  printf("%s %dD: %ld particles, momentum of the symmetric pressure + viscosity forces %.2e of sum "
         "|m a|\n",
         kname(kind), dim, (long)np, drift / scale);
  CHECK(drift / scale < 1e-14, "symmetric forces conserve momentum: %g", drift / scale);
  /* renormalized pressure terms (l_i from the density pass): still
   * antisymmetric pair by pair, and l_i = d / tr M_i in (1/4 .. 4] */
  s->renormalize = 1;
  CHECK(tide_sph_density(s) == TIDE_OK, "density with renormalization");
  CHECK(tide_sph_forces(s, 1, 1) == TIDE_OK, "renormalized forces");
  const double *ren = TIDE_F64P(s->ren);
  double lmin = 1e300, lmax = 0;
  for (int a = 0; a < d; a++)
    tot[a] = 0;
  scale = 0;
  for (int64_t i = 0; i < np; i++) {
    lmin = fmin(lmin, ren[i]);
    lmax = fmax(lmax, ren[i]);
    for (int a = 0; a < d; a++) {
      tot[a] += s->mass * acc[i * d + a];
      scale += fabs(s->mass * acc[i * d + a]);
    }
  }
  drift = 0;
  for (int a = 0; a < d; a++)
    drift = fmax(drift, fabs(tot[a]));
  printf("  renormalized: l in [%.3f, %.3f], momentum %.2e of sum |m a|\n", lmin, lmax,
         drift / scale);
  CHECK(drift / scale < 1e-14, "renormalized forces conserve momentum: %g", drift / scale);
  CHECK(lmin > 0.25 && lmax <= 4, "renormalization within its clamp: [%g, %g]", lmin, lmax);
  s->renormalize = 0;
  CHECK(tide_sph_density(s) == TIDE_OK, "density");
  /* the same through the gradient operator: sum_i V_i grad_sym p_i = 0 */
  tide_sph_gradient(s, p, 1, gA);
  const double *rho = TIDE_F64P(s->rho);
  for (int a = 0; a < d; a++)
    tot[a] = 0;
  scale = 0;
  for (int64_t i = 0; i < np; i++)
    for (int a = 0; a < d; a++) {
      tot[a] += s->mass / rho[i] * gA[i * d + a];
      scale += fabs(s->mass / rho[i] * gA[i * d + a]);
    }
  drift = 0;
  for (int a = 0; a < d; a++)
    drift = fmax(drift, fabs(tot[a]));
  CHECK(drift / scale < 1e-14, "sum of V grad_sym p vanishes: %g", drift / scale);
  free(A);
  free(gA);
  tide_sph_free(s);
}

/* a small dam break: positions after a few steps, 1 vs 2 threads; sdf: the
 * tank (moving slowly, Harada's wall weight) and a sphere obstacle (a density
 * map, built on 1 or 2 threads) as SDF walls */
static uint64_t run(int dim, int dfsph, int sdf, int threads) {
  omp_set_num_threads(threads);
  /* more than 1024 particles: the pair loops run in parallel (if n > 1024) */
  int n = dim == 2 ? 80 : 32, d = dim;
  tide_sph *s = state(TIDE_SPH_CUBIC, dim, n, 2, 20);
  tide_shape *box, *tank;
  double lo[3] = {2.0 / n, 2.0 / n, 2.0 / n}, hi[3] = {0.4, 0.6, 0.5};
  double tlo[3] = {2.0 / n, 2.0 / n, 2.0 / n}, thi[3] = {1 - 2.0 / n, 1 - 2.0 / n, 1 - 2.0 / n};
  tide_shape_box(dim, lo, hi, &box);
  tide_shape_box(dim, tlo, thi, &tank);
  int64_t added;
  tide_sph_seed(s, box, 0.3, 5, NULL, &added);
  if (threads == 1)
    CHECK(added > 1024, "%dD: %lld particles (more than 1024: the loops run in parallel)", dim,
          (long long)added);
  if (sdf) {
    double vt[3] = {0.01, 0, 0}, c[3] = {0.6, 0.1, 0.5};
    tide_shape *ball;
    int idx;
    tide_shape_sphere(dim, c, 0.1, &ball);
    tide_sph_sdf_boundary(s, tank, 1, vt, TIDE_SPH_WALL_HARADA, 0, &idx);
    tide_sph_sdf_boundary(s, ball, 0, NULL, TIDE_SPH_WALL_MAP, 0, &idx);
    tide_shape_release(ball);
  } else {
    tide_sph_boundary(s, tank, 2, 1, &added);
  }
  tide_shape_release(box);
  tide_shape_release(tank);
  double dt = 2e-4;
  int it;
  double err;
  int conv;
  for (int k = 0; k < 20; k++) {
    if (dfsph) {
      if (!s->nvalid) tide_sph_search(s), tide_sph_density(s), tide_sph_dfsph_factor(s);
      tide_sph_forces(s, 0, 1);
      tide_sph_kick(s, dt);
      tide_sph_density_solve(s, dt, 1e-4, 50, &it, &err, &conv);
      tide_sph_drift(s, dt);
      tide_sph_search(s);
      tide_sph_density(s);
      tide_sph_dfsph_factor(s);
      tide_sph_divergence_solve(s, dt, 1e-3, 50, &it, &err, &conv);
    } else {
      tide_sph_search(s);
      tide_sph_density(s);
      tide_sph_tait(s);
      tide_sph_forces(s, 1, 1);
      tide_sph_kick(s, dt);
      tide_sph_drift(s, dt);
    }
  }
  uint64_t h = 1469598103934665603ull;
  const unsigned char *b = (const unsigned char *)TIDE_F64P(s->ps->x);
  for (size_t i = 0; i < sizeof(double) * (size_t)(s->ps->n * d); i++)
    h = (h ^ b[i]) * 1099511628211ull;
  tide_sph_free(s);
  return h;
}

int main(void) {
  for (int k = 0; k < 2; k++)
    for (int dim = 2; dim <= 3; dim++) {
      kernels(k, dim);
      lattice(k, dim);
      random_cloud(k, dim);
    }
  for (int dim = 2; dim <= 3; dim++)
    for (int dfsph = 0; dfsph < 2; dfsph++)
      for (int sdf = 0; sdf < 2; sdf++) {
        uint64_t a = run(dim, dfsph, sdf, 1), b = run(dim, dfsph, sdf, 2);
        CHECK(a == b, "%dD %s, %s: 1 and 2 threads bit-identical", dim, dfsph ? "DFSPH" : "WCSPH",
              sdf ? "SDF walls" : "boundary particles");
      }
  return check_report();
}
