/* bench/mpm_ref.h -- the reference made real: a plain C quadratic
 * MLS-MPM loop in 3D, the textbook mpm88 loop (Hu et al. 2018) extended to
 * three dimensions, written once and included twice by bench/mpm.c, with
 * REF_T = float (REF_SFX f) and REF_T = double (REF_SFX d).
 *
 * Array-of-structures particles {x, v, C, F} (24 numbers), constant
 * particle mass and volume, one fixed-corotated material, a dense node grid
 * of (n + 1)^3 nodes holding {momentum, mass} side by side.  One substep:
 *   clear the grid;
 *   P2G: per particle the quadratic weights, R of F by Newton's polar
 *        iteration X <- (X + X^-T)/2, the Kirchhoff stress
 *        tau = 2 mu (F - R) F^T + lambda (J - 1) J I, the affine matrix
 *        Q = -dt V 4/dx^2 tau + m C, and the 27-node scatter of
 *        w (m v + Q (x_i - x_p)) and w m;
 *   grid: every node with mass: v = momentum / mass + dt g, and the
 *        separating walls of Tide's scene (3 nodes from each face the
 *        normal velocity into the wall is removed);
 *   G2P: the 27-node gather of v and C = 4/dx^2 sum w v (x_i - x_p)^T,
 *        x += dt v, F <- (I + dt C) F.
 * P2G is serial: the scatter races between threads, and making it
 * race-free and deterministic (colouring, private grids) is no longer the
 * plain loop; the grid update and G2P (independent per node / particle)
 * take the OpenMP threads, which is all the plain loop parallelises simply.
 * Nothing else (no sorting inside the loop, no SIMD intrinsics, no
 * precomputed weights): what -O3 -ffp-contract=fast -march=native makes of
 * it (CMakeLists.txt). */
#ifndef REF_T
#error "define REF_T and REF_SFX before including mpm_ref.h"
#endif

#define REF_CAT2(a, b) a##_##b
#define REF_CAT(a, b) REF_CAT2(a, b)
#define REF(name) REF_CAT(name, REF_SFX)

typedef struct {
  REF_T x[3], v[3], C[9], F[9]; /* C, F row-major: C[a * 3 + b] = d v_a / d x_b */
} REF(ref_particle);

/* the rotation of F (det F > 0): Newton's polar iteration from X = F until
 * a step is below tol (quadratic convergence: X is then within ~tol^2 of R) */
static void REF(ref_polar)(const REF_T *F, REF_T *R, REF_T tol) {
  REF_T X[9];
  for (int k = 0; k < 9; k++)
    X[k] = F[k];
  for (int it = 0; it < 20; it++) {
    REF_T c[9] = {X[4] * X[8] - X[5] * X[7], X[5] * X[6] - X[3] * X[8], X[3] * X[7] - X[4] * X[6],
                  X[2] * X[7] - X[1] * X[8], X[0] * X[8] - X[2] * X[6], X[1] * X[6] - X[0] * X[7],
                  X[1] * X[5] - X[2] * X[4], X[2] * X[3] - X[0] * X[5], X[0] * X[4] - X[1] * X[3]};
    REF_T det = X[0] * c[0] + X[1] * c[1] + X[2] * c[2], h = (REF_T)0.5 / det, step = 0;
    for (int k = 0; k < 9; k++) {
      REF_T y = (REF_T)0.5 * X[k] + h * c[k];
      step += (y - X[k]) * (y - X[k]);
      X[k] = y;
    }
    if (step <= tol * tol) break;
  }
  for (int k = 0; k < 9; k++)
    R[k] = X[k];
}

/* quadratic B-spline weights of one axis; returns the first node */
static inline int REF(ref_weights)(REF_T xg, REF_T *fx, REF_T w[3]) {
  int base = (int)(xg - (REF_T)0.5);
  REF_T f = xg - (REF_T)base;
  w[0] = (REF_T)0.5 * ((REF_T)1.5 - f) * ((REF_T)1.5 - f);
  w[1] = (REF_T)0.75 - (f - 1) * (f - 1);
  w[2] = (REF_T)0.5 * (f - (REF_T)0.5) * (f - (REF_T)0.5);
  *fx = f;
  return base;
}

/* one substep of np particles p on the n^3 cells of the unit cube (node
 * grid g of (n + 1)^3 x 4 numbers) */
__attribute__((noinline)) /* one symbol per substep for a profiler */
static void REF(ref_step)(int n, int64_t np, REF(ref_particle) *p, REF_T (*g)[4], REF_T dt,
                          REF_T pmass, REF_T pvol, REF_T mu, REF_T lambda, REF_T gravity_y) {
  const int N = n + 1;
  const REF_T inv_dx = (REF_T)n, dx = (REF_T)1 / (REF_T)n;
  const REF_T tol = sizeof(REF_T) == 4 ? (REF_T)1e-4 : (REF_T)1e-8;
  memset(g, 0, (size_t)N * N * N * sizeof *g);
  /* P2G */
  for (int64_t q = 0; q < np; q++) {
    REF(ref_particle) *pp = p + q;
    int base[3];
    REF_T fx[3], w[3][3];
    for (int a = 0; a < 3; a++)
      base[a] = REF(ref_weights)(pp->x[a] * inv_dx, &fx[a], w[a]);
    const REF_T *F = pp->F;
    REF_T R[9], Q[9];
    REF(ref_polar)(F, R, tol);
    REF_T J = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) +
              F[2] * (F[3] * F[7] - F[4] * F[6]);
    REF_T s = -dt * pvol * 4 * inv_dx * inv_dx;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        REF_T tau = 0;
        for (int c = 0; c < 3; c++)
          tau += 2 * mu * (F[a * 3 + c] - R[a * 3 + c]) * F[b * 3 + c];
        if (a == b) tau += lambda * (J - 1) * J;
        Q[a * 3 + b] = s * tau + pmass * pp->C[a * 3 + b];
      }
    REF_T mv[3] = {pmass * pp->v[0], pmass * pp->v[1], pmass * pp->v[2]};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) {
          REF_T wt = w[0][i] * w[1][j] * w[2][k];
          REF_T d0 = ((REF_T)i - fx[0]) * dx, d1 = ((REF_T)j - fx[1]) * dx,
                d2 = ((REF_T)k - fx[2]) * dx;
          REF_T *gi = g[((int64_t)(base[0] + i) * N + base[1] + j) * N + base[2] + k];
          for (int a = 0; a < 3; a++)
            gi[a] += wt * (mv[a] + Q[a * 3] * d0 + Q[a * 3 + 1] * d1 + Q[a * 3 + 2] * d2);
          gi[3] += wt * pmass;
        }
  }
  /* grid */
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        REF_T *gi = g[((int64_t)i * N + j) * N + k];
        if (!(gi[3] > 0)) continue;
        REF_T inv = 1 / gi[3], v[3] = {gi[0] * inv, gi[1] * inv, gi[2] * inv};
        v[1] += dt * gravity_y;
        int ijk[3] = {i, j, k};
        for (int a = 0; a < 3; a++) {
          if (ijk[a] < 3 && v[a] < 0) v[a] = 0;
          if (ijk[a] > n - 3 && v[a] > 0) v[a] = 0;
        }
        gi[0] = v[0], gi[1] = v[1], gi[2] = v[2];
      }
  /* G2P */
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < np; q++) {
    REF(ref_particle) *pp = p + q;
    int base[3];
    REF_T fx[3], w[3][3], v[3] = {0, 0, 0}, B[9] = {0};
    for (int a = 0; a < 3; a++)
      base[a] = REF(ref_weights)(pp->x[a] * inv_dx, &fx[a], w[a]);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) {
          REF_T wt = w[0][i] * w[1][j] * w[2][k];
          REF_T d[3] = {(REF_T)i - fx[0], (REF_T)j - fx[1], (REF_T)k - fx[2]}; /* in cells */
          const REF_T *gi = g[((int64_t)(base[0] + i) * N + base[1] + j) * N + base[2] + k];
          for (int a = 0; a < 3; a++) {
            REF_T wv = wt * gi[a];
            v[a] += wv;
            for (int b = 0; b < 3; b++)
              B[a * 3 + b] += wv * d[b];
          }
        }
    for (int k = 0; k < 9; k++)
      B[k] *= 4 * inv_dx;
    REF_T F[9];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        REF_T f = pp->F[a * 3 + b];
        for (int c = 0; c < 3; c++)
          f += dt * B[a * 3 + c] * pp->F[c * 3 + b];
        F[a * 3 + b] = f;
      }
    for (int a = 0; a < 3; a++) {
      pp->v[a] = v[a];
      pp->x[a] += dt * v[a];
    }
    for (int k = 0; k < 9; k++)
      pp->C[k] = B[k], pp->F[k] = F[k];
  }
}

/* The loop on Tide's particles of m (seeded, sorted, not yet stepped; one
 * material): 1 warm-up + steps substeps of dt, timed over the steps.
 * Returns particle-substeps per wall second, *per_cpu per CPU second; when
 * after != NULL (Tide's state after the same 1 + steps substeps), *ex: the
 * largest position difference in cells, *ev: the largest velocity
 * difference over Tide's largest speed. */
static double REF(ref_run)(const tide_mpm *m, int steps, double dt, double *per_cpu,
                           const tide_mpm *after, double *ex, double *ev) {
  int n = m->g.n[0];
  int64_t np = m->ps->n, nn = (int64_t)(n + 1) * (n + 1) * (n + 1);
  size_t pb = (size_t)np * sizeof(REF(ref_particle)), gb = (size_t)nn * 4 * sizeof(REF_T);
  REF(ref_particle) *p = tide_alloc(pb);
  REF_T(*g)[4] = tide_alloc(gb);
  if (!p || !g) {
    tide_free(p, pb), tide_free(g, gb);
    return 0;
  }
  const double *x = TIDE_F64P(m->ps->x), *v = TIDE_F64P(m->ps->v), *C = TIDE_F64P(m->ps->c),
               *F = TIDE_F64P(m->F);
  for (int64_t q = 0; q < np; q++) {
    for (int a = 0; a < 3; a++)
      p[q].x[a] = (REF_T)x[q * 3 + a], p[q].v[a] = (REF_T)v[q * 3 + a];
    for (int k = 0; k < 9; k++)
      p[q].C[k] = (REF_T)C[q * 9 + k], p[q].F[k] = (REF_T)F[q * 9 + k];
  }
  REF_T pmass = (REF_T)TIDE_F64P(m->mass)[0], pvol = (REF_T)TIDE_F64P(m->vol0)[0];
  REF_T mu = (REF_T)m->mats[0].elastic.mu, lambda = (REF_T)m->mats[0].elastic.lambda;
  REF_T gy = (REF_T)m->gravity[1], h = (REF_T)dt;
  REF(ref_step)(n, np, p, g, h, pmass, pvol, mu, lambda, gy); /* warm-up */
  double t = tide_wtime(), c = cpu_seconds();
  for (int s = 0; s < steps; s++)
    REF(ref_step)(n, np, p, g, h, pmass, pvol, mu, lambda, gy);
  t = tide_wtime() - t;
  c = cpu_seconds() - c;
  if (after) {
    const double *xa = TIDE_F64P(after->ps->x), *va = TIDE_F64P(after->ps->v);
    double dxm = 0, dvm = 0, vmax = 0;
    for (int64_t q = 0; q < np; q++)
      for (int a = 0; a < 3; a++) {
        dxm = fmax(dxm, fabs((double)p[q].x[a] - xa[q * 3 + a]));
        dvm = fmax(dvm, fabs((double)p[q].v[a] - va[q * 3 + a]));
        vmax = fmax(vmax, fabs(va[q * 3 + a]));
      }
    *ex = dxm * n;
    *ev = vmax > 0 ? dvm / vmax : dvm;
  }
  tide_free(p, pb), tide_free(g, gb);
  *per_cpu = (double)np * steps / c;
  return (double)np * steps / t;
}

#undef REF
#undef REF_CAT
#undef REF_CAT2
