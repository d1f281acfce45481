/* test_solid_energy.c -- finite-difference checks of every solid energy,
 * its gradient and Hessian (Psi/P/dPdF per model, element kernels, damping,
 * corotational stiffness, incremental potential), the inversion-aware SVD,
 * PSD projection and plasticity.  Fixed seeds; relative error <= 1e-5. */
#include "check.h"
#include "solid/fem.h"
#include "solid/thin.h"
#include "solid/small.h"

#include <string.h>

static uint64_t ctr = 0;
static double rnd(void) { return 2 * tide_rand01(77, ctr++) - 1; } /* [-1, 1) */

/* relative max-norm error of a against b (reference) */
static double relerr(int n, const double *a, const double *b) { return check_relerr(n, a, b, 0); }

static double min_eig(int n, const double *A) {
  double w[24], Q[24 * 24];
  tide_sym_eig(n, A, w, Q);
  return w[n - 1];
}

static double max_abs(int n, const double *A) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (fabs(A[i]) > m) m = fabs(A[i]);
  return m;
}

/* random F = I + amp * noise, optionally inverted along a random axis */
static void random_F(int d, double amp, int invert, double *F) {
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) F[i * d + j] = (i == j) + amp * rnd();
  if (invert && tide_det(d, F) > 0)
    for (int j = 0; j < d; j++) F[j] = -F[j]; /* reflect the first row */
  if (!invert && tide_det(d, F) < 0)
    for (int j = 0; j < d; j++) F[j] = -F[j];
}

static void test_svd(void) {
  for (int d = 2; d <= 3; d++)
    for (int trial = 0; trial < 40; trial++) {
      double F[9], U[9], s[3], V[9], R[9], T[9], UtU[9], VtV[9];
      int kind = trial % 5;
      random_F(d, 0.8, kind == 1, F);
      if (kind == 2) /* flat: rank d-1 */
        for (int j = 0; j < d; j++) F[(d - 1) * d + j] = 0.3 * F[j] - 0.7 * F[d + j];
      if (kind == 3) /* rank 1 */
        for (int i = 1; i < d; i++)
          for (int j = 0; j < d; j++) F[i * d + j] = (i + 1.5) * F[j];
      if (kind == 4 && trial < 10) memset(F, 0, sizeof F);
      tide_svd_signed(d, F, U, s, V);
      tide_matmul_tn(d, U, U, UtU);
      tide_matmul_tn(d, V, V, VtV);
      for (int i = 0; i < d * d; i++) {
        CHECK_NEAR(UtU[i], (i % (d + 1)) == 0, 1e-12);
        CHECK_NEAR(VtV[i], (i % (d + 1)) == 0, 1e-12);
      }
      CHECK_NEAR(tide_det(d, U), 1, 1e-12);
      CHECK_NEAR(tide_det(d, V), 1, 1e-12);
      /* reconstruct F = U diag(s) V^T */
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
          double t = 0;
          for (int k = 0; k < d; k++) t += U[i * d + k] * s[k] * V[j * d + k];
          T[i * d + j] = t;
        }
      CHECK(relerr(d * d, T, F) < 1e-12 || max_abs(d * d, F) == 0, "svd reconstructs F (d=%d, kind %d)",
            d, kind);
      /* sign convention: sorted magnitudes, only the last may be negative */
      for (int k = 0; k + 1 < d; k++) CHECK(s[k] >= -1e-14 && s[k] + 1e-12 >= fabs(s[k + 1]), "order");
      if (kind == 1) CHECK(s[d - 1] < 0, "inverted F has a negative last singular value");
      if (kind == 0) CHECK(s[d - 1] > 0, "uninverted F keeps positive singular values");
      tide_polar_rotation(d, F, R);
      CHECK_NEAR(tide_det(d, R), 1, 1e-12);
      /* the fast rotation (2D closed form, 3D Newton) is the same one */
      double Rf[9];
      tide_polar_rotation_fast(d, F, Rf);
      CHECK(relerr(d * d, Rf, R) < 1e-12, "fast polar rotation = U V^T (d=%d, kind %d): rel err %.3g",
            d, kind, relerr(d * d, Rf, R));
    }
}

/* FD checks of one model at F */
static void check_model(const tide_material *m, int d, const double *F, const char *what) {
  int n = d * d;
  double psi, P[9], T[81], Pfd[9], Tfd[81];
  tide_material_eval(m, d, F, NULL, 0, &psi, P, T);
  double h = 1e-6;
  for (int k = 0; k < n; k++) {
    double Fp[9], Fm[9], pp, pm, Pp[9], Pm[9];
    memcpy(Fp, F, sizeof Fp);
    memcpy(Fm, F, sizeof Fm);
    Fp[k] += h;
    Fm[k] -= h;
    tide_material_eval(m, d, Fp, NULL, 0, &pp, Pp, NULL);
    tide_material_eval(m, d, Fm, NULL, 0, &pm, Pm, NULL);
    Pfd[k] = (pp - pm) / (2 * h);
    for (int r = 0; r < n; r++) Tfd[r * n + k] = (Pp[r] - Pm[r]) / (2 * h);
  }
  double e1 = relerr(n, P, Pfd), e2 = relerr(n * n, T, Tfd);
  CHECK(e1 <= 1e-5, "%s d=%d: P vs FD of Psi, rel err %.3g", what, d, e1);
  CHECK(e2 <= 1e-5, "%s d=%d: dP/dF vs FD of P, rel err %.3g", what, d, e2);
  /* symmetric tangent (hyperelastic) */
  double asym = 0;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) asym = fmax(asym, fabs(T[r * n + c] - T[c * n + r]));
  CHECK(asym <= 1e-9 * max_abs(n * n, T), "%s d=%d: dP/dF symmetric", what, d);
  /* projection: PSD, and equal to the tangent where that is already PSD */
  double Tp[81];
  tide_material_eval(m, d, F, NULL, 1, NULL, NULL, Tp);
  double mn = min_eig(n, Tp);
  CHECK(mn >= -1e-9 * max_abs(n * n, Tp), "%s d=%d: projected dP/dF is PSD (min eig %.3g)", what,
        d, mn);
  /* (blocks of the isotropic part are orthogonal, so a PSD isotropic tangent
   * is left alone; with a fibre the parts are projected separately) */
  if (m->fiber_k == 0 && min_eig(n, T) >= 0) CHECK(relerr(n * n, Tp, T) < 1e-9, "%s: projection keeps a PSD tangent", what);
}

static void test_models(void) {
  for (int model = 0; model < TIDE_MODEL_COUNT; model++)
    for (int dd = 2; dd <= 4; dd++) /* 2 plane strain, 3, 4: 2D plane stress */
      for (int fib = 0; fib <= 1; fib++)
        for (int trial = 0; trial < 6; trial++) {
          int d = dd == 4 ? 2 : dd;
          tide_material m = tide_material_default(model, 1.3, 2.1);
          m.plane_stress = dd == 4;
          m.gamma = 0.6; /* so the extrapolated neo-Hookean branch is exercised */
          if (fib) {
            m.fiber_k = 3.0;
            double a[3] = {rnd(), rnd(), d == 3 ? rnd() : 0}, l = 0;
            for (int k = 0; k < 3; k++) l += a[k] * a[k];
            for (int k = 0; k < 3; k++) m.fiber[k] = a[k] / sqrt(l);
          }
          double F[9];
          /* trials: mild, large, compressed below gamma, inverted (not for linear) */
          double amp = trial < 2 ? 0.2 : 0.6;
          int inv = trial >= 4 && model != TIDE_MODEL_LINEAR;
          random_F(d, amp, inv, F);
          if (trial == 3)
            for (int i = 0; i < d * d; i++) F[i] *= 0.6; /* J well below gamma */
          char what[96];
          /* StVK does not resist inversion and softens under strong
           * compression: its inverted and compressed trials are mild */
          if (model == TIDE_MODEL_STVK && trial >= 3)
            for (int i = 0; i < d * d; i++) F[i] = 0.3 * F[i] + 0.7 * (i % (d + 1) == 0) * (F[0] > 0 ? 1 : 1);
          snprintf(what, sizeof what, "%s%s%s trial %d", tide_model_name(model), fib ? "+fibre" : "",
                   m.plane_stress ? " plane stress" : "", trial);
          check_model(&m, d, F, what);
          /* the Kirchhoff stress (closed forms without the SVD) is P F^T */
          double P[9], tau[9], PFt[9];
          tide_material_eval(&m, d, F, NULL, 0, NULL, P, NULL);
          tide_matmul_nt(d, P, F, PFt);
          tide_material_kirchhoff(&m, d, F, tau);
          CHECK(relerr(d * d, tau, PFt) < 1e-12, "%s d=%d: Kirchhoff stress = P F^T, rel err %.3g", what,
                d, relerr(d * d, tau, PFt));
        }
}

/* element kernels: E, grad, hess vs FD on random element positions */
static void test_elements(void) {
  for (int model = 0; model < TIDE_MODEL_COUNT; model++)
    for (int d = 2; d <= 3; d++) {
      int np = d + 1, n = np * d;
      tide_material m = tide_material_default(model, 2.0e3, 5.0e3);
      m.fiber_k = model == TIDE_MODEL_SPLINE ? 1e3 : 0;
      /* a random rest element */
      double X[12], Dm[9], Dminv[9], x[12];
      for (int i = 0; i < n; i++) X[i] = rnd() * 0.1;
      for (int k = 0; k < d; k++) X[(k + 1) * d + k] += 0.1; /* keep it non-degenerate */
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) Dm[i * d + j] = X[(j + 1) * d + i] - X[i];
      if (tide_det(d, Dm) < 0) { /* orient */
        for (int k = 0; k < d; k++) {
          double t = X[d + k];
          X[d + k] = X[2 * d + k];
          X[2 * d + k] = t;
        }
        for (int i = 0; i < d; i++)
          for (int j = 0; j < d; j++) Dm[i * d + j] = X[(j + 1) * d + i] - X[i];
      }
      tide_mat_inv(d, Dm, Dminv);
      double vol = tide_simplex_volume(d, X);
      CHECK(vol > 0, "rest element positive");
      for (int i = 0; i < n; i++) x[i] = X[i] + 0.03 * rnd();
      double E, g[12], H[144], gfd[12], Hfd[144];
      tide_fe_energy(&m, d, x, Dminv, vol, NULL, 0, &E, g, H);
      double h = 1e-7;
      for (int k = 0; k < n; k++) {
        double xp[12], xm[12], Ep, Em, gp[12], gm[12];
        memcpy(xp, x, sizeof xp);
        memcpy(xm, x, sizeof xm);
        xp[k] += h;
        xm[k] -= h;
        tide_fe_energy(&m, d, xp, Dminv, vol, NULL, 0, &Ep, gp, NULL);
        tide_fe_energy(&m, d, xm, Dminv, vol, NULL, 0, &Em, gm, NULL);
        gfd[k] = (Ep - Em) / (2 * h);
        for (int r = 0; r < n; r++) Hfd[r * n + k] = (gp[r] - gm[r]) / (2 * h);
      }
      double e1 = relerr(n, g, gfd), e2 = relerr(n * n, H, Hfd);
      CHECK(e1 <= 1e-5, "element %s d=%d: gradient vs FD, rel err %.3g", tide_model_name(model), d, e1);
      CHECK(e2 <= 1e-5, "element %s d=%d: Hessian vs FD, rel err %.3g", tide_model_name(model), d, e2);
      /* translation invariance: forces sum to zero */
      for (int k = 0; k < d; k++) {
        double s = 0;
        for (int a = 0; a < np; a++) s += g[a * d + k];
        CHECK(fabs(s) <= 1e-9 * max_abs(n, g) + 1e-300, "forces sum to zero");
      }
      double Hp[144];
      tide_fe_energy(&m, d, x, Dminv, vol, NULL, 1, NULL, NULL, Hp);
      CHECK(min_eig(n, Hp) >= -1e-9 * max_abs(n * n, Hp), "projected element Hessian PSD");

      /* damping: grad = dD/dv and C = d grad/dv */
      tide_material md = m;
      md.damp_alpha = 3.0;
      md.damp_beta = 2.0;
      double v[12], Dd, gd[12], C[144], gdfd[12], Cfd[144];
      for (int i = 0; i < n; i++) v[i] = rnd();
      tide_fe_damping(&md, d, x, v, Dminv, vol, &Dd, gd, C);
      CHECK(Dd >= 0, "dissipation is non-negative");
      for (int k = 0; k < n; k++) {
        double vp[12], vm[12], Dp, Dm2, gp[12], gm[12];
        memcpy(vp, v, sizeof vp);
        memcpy(vm, v, sizeof vm);
        vp[k] += 1e-6;
        vm[k] -= 1e-6;
        tide_fe_damping(&md, d, x, vp, Dminv, vol, &Dp, gp, NULL);
        tide_fe_damping(&md, d, x, vm, Dminv, vol, &Dm2, gm, NULL);
        gdfd[k] = (Dp - Dm2) / 2e-6;
        for (int r = 0; r < n; r++) Cfd[r * n + k] = (gp[r] - gm[r]) / 2e-6;
      }
      CHECK(relerr(n, gd, gdfd) <= 1e-5, "damping gradient vs FD, d=%d", d);
      CHECK(relerr(n * n, C, Cfd) <= 1e-5, "damping matrix vs FD, d=%d", d);
      CHECK(min_eig(n, C) >= -1e-9 * max_abs(n * n, C), "damping matrix PSD");
      /* rigid rotation rates dissipate nothing */
      {
        double W[9] = {0}, vr[12], Dr;
        W[1] = 1, W[d] = -1; /* skew about the current rotation */
        double F[9], R[9];
        tide_fe_deformation_gradient(d, X, Dminv, F);
        tide_polar_rotation(d, F, R);
        for (int a = 0; a < np; a++)
          for (int i = 0; i < d; i++) {
            double s = 0;
            for (int k = 0; k < d; k++) s += W[i * d + k] * X[a * d + k];
            vr[a * d + i] = s;
          }
        tide_fe_damping(&md, d, X, vr, Dminv, vol, &Dr, NULL, NULL);
        CHECK(fabs(Dr) <= 1e-12 * (1 + Dd), "rotation rate at rest dissipates nothing (%g)", Dr);
      }

      /* corotational: Kt is the linear Hessian; a rigidly rotated element
       * feels no force: K x - b = 0 */
      if (model == 0) {
        double Kt[144], R[9], K[144], b[12], xr[12], Q[9];
        tide_fe_corot_stiffness(m.mu, m.lambda, d, Dminv, vol, Kt);
        CHECK(relerr(n * n, Kt, H) < 1e-12, "Kt equals the linear Hessian");
        double th = 0.9;
        if (d == 2) {
          double Q2[4] = {cos(th), -sin(th), sin(th), cos(th)};
          memcpy(Q, Q2, sizeof Q2);
        } else {
          double Q3[9] = {cos(th), 0, sin(th), 0, 1, 0, -sin(th), 0, cos(th)};
          memcpy(Q, Q3, sizeof Q3);
        }
        for (int a = 0; a < np; a++)
          for (int i = 0; i < d; i++) {
            double s = 0.5 * (i + 1);
            for (int k = 0; k < d; k++) s += Q[i * d + k] * X[a * d + k];
            xr[a * d + i] = s;
          }
        tide_fe_corot(d, Kt, xr, X, Dminv, R, K, b);
        double f[12];
        for (int r = 0; r < n; r++) {
          double s = 0;
          for (int c = 0; c < n; c++) s += K[r * n + c] * xr[c];
          f[r] = s - b[r];
        }
        CHECK(max_abs(n, f) <= 1e-9 * max_abs(n, b), "rotated element: K x = b (%g)", max_abs(n, f));
        CHECK(relerr(d * d, R, Q) < 1e-12, "element rotation recovered");
      }
    }
}

/* incremental potential of a small mesh: gradient and Hessian vs FD */
static void test_ip(void) {
  for (int d = 2; d <= 3; d++) {
    double lo[3] = {0, 0, 0}, hi[3] = {0.3, 0.2, 0.1};
    int nc[3] = {3, 2, 1};
    tide_tetmesh *m;
    CHECK(tide_mesh_box(d, lo, hi, nc, &m) == TIDE_OK, "box mesh");
    tide_material mat = tide_material_default(TIDE_MODEL_NEOHOOKEAN, 1e4, 4e4);
    mat.damp_alpha = 5;
    mat.damp_beta = 8;
    CHECK(tide_fem_attach(m, &mat, 1000) == TIDE_OK, "attach");
    int64_t N = m->nv * d;
    size_t b = (size_t)N * sizeof(double);
    double *x = tide_alloc(b), *xh = tide_alloc(b), *xn = TIDE_F64P(m->x), *g = tide_alloc(b),
           *gp = tide_alloc(b), *gm = tide_alloc(b);
    for (int64_t i = 0; i < N; i++) {
      x[i] = xn[i] + 0.01 * rnd();
      xh[i] = xn[i] + 0.005 * rnd();
    }
    tide_ip ip = {0.01, xh, xn};
    double E;
    CHECK(tide_fem_ip_value(m, &ip, x, &E) == TIDE_OK, "ip value");
    tide_fem_ip_gradient(m, &ip, x, g);
    double maxe = 0, maxg = 0;
    for (int64_t k = 0; k < N; k++) {
      double s = x[k], Ep, Em;
      x[k] = s + 1e-7;
      tide_fem_ip_value(m, &ip, x, &Ep);
      x[k] = s - 1e-7;
      tide_fem_ip_value(m, &ip, x, &Em);
      x[k] = s;
      maxe = fmax(maxe, fabs((Ep - Em) / 2e-7 - g[k]));
      maxg = fmax(maxg, fabs(g[k]));
    }
    CHECK(maxe <= 1e-5 * maxg, "IP gradient vs FD (d=%d): %.3g of %.3g", d, maxe, maxg);
    /* Hessian via triplets, densified */
    int64_t nnz = tide_fem_ip_nnz(m);
    int *I = tide_alloc((size_t)nnz * sizeof(int)), *J = tide_alloc((size_t)nnz * sizeof(int));
    double *V = tide_alloc((size_t)nnz * sizeof(double));
    int64_t off = 5;
    tide_tripletbuf tb = {I, J, V, 0, off};
    CHECK(tide_fem_ip_hessian(m, &ip, x, 0, &tb) == TIDE_OK, "ip hessian");
    size_t hb = (size_t)(N * N) * sizeof(double);
    double *Hd = tide_calloc(hb);
    int ok_idx = 1;
    for (int64_t t = 0; t < nnz; t++) {
      if (I[t] < off || J[t] < off || I[t] >= off + N || J[t] >= off + N) ok_idx = 0;
      else Hd[(I[t] - off) * N + (J[t] - off)] += V[t];
    }
    CHECK(ok_idx, "triplets shifted by the offset");
    double maxh = 0, maxH = 0;
    for (int64_t k = 0; k < N; k++) {
      double s = x[k];
      x[k] = s + 1e-7;
      tide_fem_ip_gradient(m, &ip, x, gp);
      x[k] = s - 1e-7;
      tide_fem_ip_gradient(m, &ip, x, gm);
      x[k] = s;
      for (int64_t r = 0; r < N; r++) {
        maxh = fmax(maxh, fabs((gp[r] - gm[r]) / 2e-7 - Hd[r * N + k]));
        maxH = fmax(maxH, fabs(Hd[r * N + k]));
      }
    }
    CHECK(maxh <= 1e-5 * maxH, "IP Hessian vs FD (d=%d): %.3g of %.3g", d, maxh, maxH);
    /* corotational system: K x - b is the gradient of the corotational energy
     * with the rotations frozen; at the rest state it is zero */
    {
      int64_t kn = tide_fem_elem_nnz(m);
      int *KI = tide_alloc((size_t)kn * sizeof(int)), *KJ = tide_alloc((size_t)kn * sizeof(int));
      double *KV = tide_alloc((size_t)kn * sizeof(double)), *bb = tide_alloc(b);
      tide_tripletbuf kb = {KI, KJ, KV, 0, 0};
      CHECK(tide_fem_corot_system(m, xn, 1, &kb, bb) == TIDE_OK, "corot system");
      double r = 0, bm = 0;
      for (int64_t k = 0; k < N; k++) gp[k] = -bb[k];
      for (int64_t t = 0; t < kn; t++) gp[KI[t]] += KV[t] * xn[KJ[t]];
      for (int64_t k = 0; k < N; k++) r = fmax(r, fabs(gp[k])), bm = fmax(bm, fabs(bb[k]));
      CHECK(r <= 1e-9 * bm, "corotational K x0 = b at rest (%g of %g)", r, bm);
      tide_free(KI, (size_t)kn * sizeof(int));
      tide_free(KJ, (size_t)kn * sizeof(int));
      tide_free(KV, (size_t)kn * sizeof(double));
      tide_free(bb, b);
    }
    tide_free(Hd, hb);
    tide_free(I, (size_t)nnz * sizeof(int));
    tide_free(J, (size_t)nnz * sizeof(int));
    tide_free(V, (size_t)nnz * sizeof(double));
    tide_free(x, b), tide_free(xh, b), tide_free(g, b), tide_free(gp, b), tide_free(gm, b);
    tide_tetmesh_free(m);
  }
}

static void test_plasticity(void) {
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  int nc[3] = {1, 1, 1};
  tide_tetmesh *m;
  tide_mesh_box(3, lo, hi, nc, &m);
  tide_material mat = tide_material_default(TIDE_MODEL_ROTATED_LINEAR, 1e3, 1e3);
  tide_fem_attach(m, &mat, 1000);
  CHECK(tide_fem_set_plasticity(m, 0.05, 1.5, NULL, 0) == TIDE_OK, "plasticity on");
  /* stretch 30% along x */
  int64_t N = m->nv * 3;
  double *x = tide_alloc((size_t)N * sizeof(double));
  const double *X = TIDE_F64P(m->rest);
  for (int64_t i = 0; i < m->nv; i++) {
    x[3 * i] = 1.3 * X[3 * i];
    x[3 * i + 1] = X[3 * i + 1] / sqrt(1.3);
    x[3 * i + 2] = X[3 * i + 2];
  }
  int64_t flowed;
  CHECK(tide_fem_plastic_flow(m, x, &flowed) == TIDE_OK && flowed == m->ne, "all elements yield");
  /* afterwards the elastic part sits on the yield surface */
  for (int64_t e = 0; e < m->ne; e++) {
    double p[12], F[9], U[9], s[3], V[9];
    for (int a = 0; a < 4; a++)
      for (int k = 0; k < 3; k++) p[a * 3 + k] = x[TIDE_I32P(m->elem)[e * 4 + a] * 3 + k];
    tide_fe_deformation_gradient(3, p, tide_fem_dminv(m, e), F);
    tide_svd_signed(3, F, U, s, V);
    double L = sqrt(log(s[0]) * log(s[0]) + log(s[1]) * log(s[1]) + log(s[2]) * log(s[2]));
    CHECK_NEAR(L, 0.05, 1e-9);
  }
  /* the limit clamps Fp's stretch: a 3x stretch cannot give Fp beyond 1.5 */
  for (int64_t i = 0; i < m->nv; i++) x[3 * i] = 3 * X[3 * i];
  tide_fem_plastic_flow(m, x, &flowed);
  double w[3], Q[9], Fp[9];
  tide_mat_inv(3, TIDE_F64P(m->fem->Fpinv), Fp);
  tide_sym_eig(3, Fp, w, Q);
  CHECK(w[0] <= 1.5 + 1e-9 && w[2] >= 1 / 1.5 - 1e-9, "Fp clamped to the limit (%g, %g)", w[0], w[2]);
  /* control: with a goal of no plastic stretch, flow toward the goal is
   * allowed only as far as it approaches it: stretching further moves Fp
   * nowhere */
  size_t gb = (size_t)(m->ne * 9) * sizeof(double);
  double *gl = tide_calloc(gb);
  CHECK(tide_fem_set_plasticity(m, 0.05, 1.5, gl, 0) == TIDE_OK, "plasticity with goal");
  for (int64_t i = 0; i < m->nv; i++) x[3 * i] = 1.3 * X[3 * i];
  tide_fem_plastic_flow(m, x, &flowed);
  tide_mat_inv(3, TIDE_F64P(m->fem->Fpinv), Fp);
  double dev = 0;
  for (int i = 0; i < 9; i++) dev = fmax(dev, fabs(Fp[i] - (i % 4 == 0)));
  CHECK(dev < 1e-9, "control toward Fp = I keeps Fp = I under stretching (%g)", dev);
  /* a goal of 20% plastic stretch along x: flow moves Fp toward it */
  for (int64_t e = 0; e < m->ne; e++) gl[e * 9] = log(1.2);
  tide_fem_set_plasticity(m, 0.05, 1.5, gl, 0);
  tide_fem_plastic_flow(m, x, &flowed);
  tide_mat_inv(3, TIDE_F64P(m->fem->Fpinv), Fp);
  CHECK(Fp[0] > 1.1 && Fp[0] < 1.2 + 1e-9, "control moves Fp toward the goal (Fp_xx = %g)", Fp[0]);
  /* isochoric flow: det Fp stays 1 under compression */
  CHECK(tide_fem_set_plasticity(m, 0.05, 3, NULL, 1) == TIDE_OK, "isochoric plasticity");
  for (int64_t i = 0; i < m->nv; i++) {
    x[3 * i] = 0.7 * X[3 * i];
    x[3 * i + 1] = 0.8 * X[3 * i + 1];
    x[3 * i + 2] = 1.1 * X[3 * i + 2];
  }
  tide_fem_plastic_flow(m, x, &flowed);
  CHECK(flowed == m->ne, "all elements yield");
  double dmax = 0;
  for (int64_t e = 0; e < m->ne; e++) dmax = fmax(dmax, fabs(tide_det(3, TIDE_F64P(m->fem->Fpinv) + 9 * e) - 1));
  CHECK(dmax < 1e-12, "isochoric: det Fp = 1 (%g)", dmax);
  tide_free(gl, gb);
  tide_free(x, (size_t)N * sizeof(double));
  tide_tetmesh_free(m);
}

/* tide_sym_eig at every size it serves (Jacobi up to 12: SVDs, rods, shell
 * hinges, IPC pairs; tridiagonal QR above: Liu's vertex-phi pairs up to 30):
 * A Q = Q diag(w), Q^T Q = I, w decreasing, for dense random matrices,
 * low-rank PSD ones (B B^T, the hinge-like rank deficiency), repeated
 * eigenvalues, diagonal, zero and already tridiagonal matrices; the PSD
 * projection keeps PSD matrices and zeroes exactly the negative part */
static void test_eig(void) {
  static const int sizes[] = {2, 3, 5, 6, 9, 12, 13, 18, 30, 36};
  enum { NM = TIDE_SYM_EIG_MAXN };
  double A[NM * NM], B[NM * NM], Q[NM * NM], w[NM], P[NM * NM];
  double worst_res = 0, worst_orth = 0, worst_psd = 0;
  int unsorted = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    int n = sizes[si];
    for (int kind = 0; kind < 6; kind++) {
      for (int rep = 0; rep < 4; rep++) {
        /* build A */
        memset(A, 0, sizeof A);
        if (kind == 0) { /* dense random symmetric */
          for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) A[i * n + j] = A[j * n + i] = rnd();
        } else if (kind == 1 || kind == 2) { /* B B^T of rank r (kind 2: then minus a shift: indefinite) */
          int r = 1 + rep % (n > 3 ? n / 2 : 1);
          for (int i = 0; i < n * r; i++) B[i] = rnd();
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
              double t = 0;
              for (int k = 0; k < r; k++) t += B[i * r + k] * B[j * r + k];
              A[i * n + j] = t - (kind == 2 ? 0.3 * (i == j) : 0);
            }
        } else if (kind == 3) { /* repeated eigenvalues: a rotated diag(1, 1, 1, -2, -2, ...) */
          double D[NM];
          for (int i = 0; i < n; i++) D[i] = i < n / 2 ? 1 : -2;
          for (int i = 0; i < n * n; i++) B[i] = rnd();
          double Wt[NM];
          tide_sym_eig(n, B, Wt, Q); /* any orthogonal Q (B is not symmetric: use B + B^T) */
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) P[i * n + j] = B[i * n + j] + B[j * n + i];
          tide_sym_eig(n, P, Wt, Q);
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
              double t = 0;
              for (int k = 0; k < n; k++) t += Q[i * n + k] * D[k] * Q[j * n + k];
              A[i * n + j] = t;
            }
        } else if (kind == 4) { /* diagonal (rep 0: zero) */
          for (int i = 0; i < n; i++) A[i * n + i] = rep ? rnd() : 0;
        } else { /* tridiagonal already */
          for (int i = 0; i < n; i++) {
            A[i * n + i] = rnd();
            if (i + 1 < n) A[i * n + i + 1] = A[(i + 1) * n + i] = rep == 1 && i == n / 2 ? 0 : rnd();
          }
        }
        double scale = 0;
        for (int i = 0; i < n * n; i++) scale = fmax(scale, fabs(A[i]));
        tide_sym_eig(n, A, w, Q);
        for (int k = 0; k + 1 < n; k++)
          if (w[k] < w[k + 1]) unsorted++;
        for (int i = 0; i < n; i++)
          for (int k = 0; k < n; k++) {
            double aq = 0, qq = 0;
            for (int j = 0; j < n; j++) aq += A[i * n + j] * Q[j * n + k], qq += Q[j * n + i] * Q[j * n + k];
            worst_res = fmax(worst_res, fabs(aq - w[k] * Q[i * n + k]) / fmax(scale, 1e-300));
            worst_orth = fmax(worst_orth, fabs(qq - (i == k)));
          }
        /* the projection: Q max(w, 0) Q^T */
        memcpy(P, A, sizeof(double) * (size_t)(n * n));
        tide_sym_project_psd(n, P);
        for (int i = 0; i < n; i++)
          for (int j = 0; j < n; j++) {
            double t = 0;
            for (int k = 0; k < n; k++)
              if (w[k] > 0) t += Q[i * n + k] * w[k] * Q[j * n + k];
            worst_psd = fmax(worst_psd, fabs(P[i * n + j] - t) / fmax(scale, 1e-300));
          }
      }
    }
  }
  CHECK(unsorted == 0, "eigenvalues decreasing (%d out of order)", unsorted);
  CHECK(worst_res < 1e-13, "A Q = Q diag(w) to %.2e of max |A|", worst_res);
  CHECK(worst_orth < 1e-13, "Q^T Q = I to %.2e", worst_orth);
  CHECK(worst_psd < 1e-13, "PSD projection = Q max(w, 0) Q^T to %.2e", worst_psd);
  printf("eig: residual %.2e, orthogonality %.2e, projection %.2e\n", worst_res, worst_orth, worst_psd);
}

/* the shell hinge's projection in the 9D complement of the translations
 * (tide_sym_project_psd_stencil4) against the full 12 x 12 one: random
 * hinges (rest angles off the current one, so the Hessian is indefinite) and
 * random translation-annihilating matrices T^T M T (M symmetric 9 x 9, T the
 * node differences); the result is PSD and the same to rounding */
static void test_psd_stencil4(void) {
  double worst = 0, worst_eig = 0;
  int indefinite = 0;
  for (int trial = 0; trial < 200; trial++) {
    double H[144], P[144], R[144];
    if (trial % 2 == 0) {
      double x[12];
      for (int i = 0; i < 12; i++) x[i] = rnd();
      tide_shell_hinge(x, 3 * rnd(), 1 + rnd(), 0, NULL, NULL, H);
    } else {
      double M[81], T[9 * 12], MT[9 * 12];
      for (int i = 0; i < 9; i++)
        for (int j = 0; j <= i; j++) M[i * 9 + j] = M[j * 9 + i] = rnd();
      for (int i = 0; i < 9; i++) /* row (a, q): x_{a+1,q} - x_{0,q} */
        for (int j = 0; j < 12; j++) T[i * 12 + j] = (j == i + 3) - (j == i % 3);
      for (int i = 0; i < 9; i++)
        for (int j = 0; j < 12; j++) {
          double t = 0;
          for (int k = 0; k < 9; k++) t += M[i * 9 + k] * T[k * 12 + j];
          MT[i * 12 + j] = t;
        }
      for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
          double t = 0;
          for (int k = 0; k < 9; k++) t += T[k * 12 + i] * MT[k * 12 + j];
          H[i * 12 + j] = t;
        }
    }
    indefinite += min_eig(12, H) < -1e-10 * max_abs(144, H);
    memcpy(P, H, sizeof P);
    memcpy(R, H, sizeof R);
    tide_sym_project_psd_qr(12, R);
    tide_sym_project_psd_stencil4(P);
    double scale = max_abs(144, H);
    for (int i = 0; i < 144; i++) worst = fmax(worst, fabs(P[i] - R[i]) / scale);
    worst_eig = fmin(worst_eig, min_eig(12, P) / scale);
  }
  CHECK(indefinite > 150, "the test matrices are indefinite (%d of 200)", indefinite);
  CHECK(worst < 1e-13, "translation-reduced projection = full projection to %.2e of max |H|", worst);
  CHECK(worst_eig > -1e-13, "translation-reduced projection PSD (min eig %.2e of max |H|)", worst_eig);
  printf("psd stencil4: %d of 200 indefinite, reduced vs full %.2e, min eig %.2e\n", indefinite, worst,
         worst_eig);
}

/* the 4-lane polar rotation and fixed-corotated Kirchhoff stress (MPM's
 * P2G) round lane by lane as the scalar code: bit-identical results, for
 * groups of 1..4 mixing mild, large (determinant-scaled Newton steps),
 * uniformly scaled, inverted and flat F (the SVD fallback) */
static void test_fast4(void) {
  int mismatch_R = 0, mismatch_tau = 0, groups = 0, fallbacks = 0, scaled = 0;
  for (int trial = 0; trial < 200; trial++) {
    int n = 1 + trial % 4;
    double F[4][9], Fs[9][4], Rs[9][4], ts[9][4], mu[4], lam[4];
    const double *Fp[4];
    for (int l = 0; l < n; l++) {
      int kind = (trial / 4 + l) % 5;
      random_F(3, kind == 1 ? 0.9 : 0.3, kind == 3, F[l]);
      if (kind == 2)
        for (int k = 0; k < 9; k++) F[l][k] *= 1.6; /* det ~ 4: cbrt-scaled steps */
      if (kind == 4)
        for (int k = 0; k < 3; k++) F[l][6 + k] = F[l][k] + F[l][3 + k]; /* rank 2 */
      fallbacks += !(tide_det3(F[l]) > 1e-12);
      scaled += fabs(tide_det3(F[l]) - 1) > 0.05;
      mu[l] = 1.3 + 0.1 * l, lam[l] = 2.1 - 0.2 * l;
      Fp[l] = F[l];
    }
    tide_polar_rotation_fast4(n, Fp, Fs, Rs);
    tide_material_kirchhoff_fc4(n, mu, lam, Fp, ts);
    for (int l = 0; l < n; l++) {
      double R[9], tau[9];
      tide_polar_rotation_fast(3, F[l], R);
      tide_material m = tide_material_default(TIDE_MODEL_FIXED_COROTATED, mu[l], lam[l]);
      tide_material_kirchhoff(&m, 3, F[l], tau);
      int dR = 0, dt = 0;
      for (int k = 0; k < 9; k++) {
        dR |= memcmp(&R[k], &Rs[k][l], sizeof R[k]) != 0 || Fs[k][l] != F[l][k];
        dt |= memcmp(&tau[k], &ts[k][l], sizeof tau[k]) != 0;
      }
      mismatch_R += dR;
      mismatch_tau += dt;
    }
    groups++;
  }
  CHECK(fallbacks > 0 && scaled > 0, "the trials reach the SVD fallback (%d) and scaled steps (%d)",
        fallbacks, scaled);
  CHECK(mismatch_R == 0, "4-lane polar rotation = scalar, bit for bit (%d lanes of %d groups differ)",
        mismatch_R, groups);
  CHECK(mismatch_tau == 0, "4-lane Kirchhoff stress = scalar, bit for bit (%d lanes differ)",
        mismatch_tau);
}

int main(void) {
  tide_seed_set(12345);
  test_eig();
  test_psd_stencil4();
  test_svd();
  test_fast4();
  test_models();
  test_elements();
  test_ip();
  test_plasticity();
  return check_report();
}
