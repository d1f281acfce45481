/* test_liquid_project.c -- pressure projection (modules/liquid/project.c):
 * hydrostatic pressure with a voxel and a ghost-fluid free surface,
 * divergence after projection, walls, solid cells, face fractions equal to
 * one, the closed-container null space, divergence targets; the row loops:
 * a reused workspace following a moving liquid, 1 vs 2 threads bit for bit,
 * non-finite inputs where the projection reads them. */
#include "check.h"
#include "liquid/project.h"

#include <math.h>
#include <omp.h>
#include <string.h>

static int method = TIDE_PROJECT_PCG; /* solver under test */

static tide_project_opts defaults(double dt) {
  tide_project_opts o = {.dt = dt, .rho = 1000, .tol = 1e-10, .maxit = 0, .theta_min = 0.01, .method = method};
  return o;
}

/* liquid below height h (by cell centre), air above */
static void fill_labels(const tide_grid *g, tide_array *lab, double h) {
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double x[3];
        tide_grid_center(g, i, j, k, x);
        TIDE_U8P(lab)[tide_grid_idx(g, i, j, k)] = x[1] < h ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
      }
}

static void hydrostatic(int dim, int ghost) {
  tide_grid g;
  int n[3] = {12, 16, 10};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, dim, n, 1.0 / 16, org);
  double dt = 0.01, grav[3] = {0, -9.81, 0};
  /* surface at h: on a cell face (voxel) or inside a cell (ghost fluid) */
  double h = ghost ? 0.4 + 0.3 / 16 : 0.5;
  tide_array *lab = tide_grid_cell_array(&g, TIDE_U8), *phi = tide_grid_cell_array(&g, TIDE_F64);
  tide_array *p = tide_grid_cell_array(&g, TIDE_F64);
  fill_labels(&g, lab, h);
  for (int i = 0; i < g.n[0]; i++)
    for (int j = 0; j < g.n[1]; j++)
      for (int k = 0; k < g.n[2]; k++) {
        double x[3];
        tide_grid_center(&g, i, j, k, x);
        TIDE_F64P(phi)[tide_grid_idx(&g, i, j, k)] = x[1] - h;
      }
  tide_mac *u, *valid;
  tide_mac_new(&g, TIDE_F64, &u);
  tide_mac_new(&g, TIDE_U8, &valid);
  tide_mac_add_accel(u, grav, dt);
  tide_project_opts o = defaults(dt);
  if (ghost) o.phi = phi;
  tide_project_stats st;
  CHECK(tide_liquid_project(u, lab, &o, NULL, valid, p, &st) == TIDE_OK, "project: %s", tide_errmsg());
  double umax;
  tide_mac_max_speed(u, &umax);
  /* air faces are untouched (they still hold g dt): look at valid faces only */
  double vmax = 0;
  for (int a = 0; a < dim; a++) {
    int64_t nf = tide_array_size(u->u[a]);
    for (int64_t f = 0; f < nf; f++)
      if (TIDE_U8P(valid->u[a])[f]) vmax = fmax(vmax, fabs(TIDE_F64P(u->u[a])[f]));
  }
  CHECK(vmax < 1e-10, "hydrostatic %dD%s: liquid at rest after projection, max |u| = %g", dim,
        ghost ? " (ghost fluid)" : "", vmax);
  /* p = rho g (surface - y): voxel surface at the first air cell centre */
  double top = ghost ? h : h + 0.5 * g.dx, perr = 0;
  for (int i = 0; i < g.n[0]; i++)
    for (int j = 0; j < g.n[1]; j++)
      for (int k = 0; k < g.n[2]; k++) {
        int64_t q = tide_grid_idx(&g, i, j, k);
        if (TIDE_U8P(lab)[q] != TIDE_CELL_LIQUID) continue;
        double x[3];
        tide_grid_center(&g, i, j, k, x);
        perr = fmax(perr, fabs(TIDE_F64P(p)[q] - 1000 * 9.81 * (top - x[1])));
      }
  CHECK(perr < 1e-6 * 1000 * 9.81, "hydrostatic pressure %dD%s: max error %g Pa", dim, ghost ? " (ghost)" : "", perr);
  CHECK(st.unknowns > 0 && st.iterations > 0 && st.residual <= 1e-10, "stats: %lld unknowns, %d iterations, residual %g",
        (long long)st.unknowns, st.iterations, st.residual);
  tide_mac_free(u);
  tide_mac_free(valid);
  tide_array_release(lab);
  tide_array_release(phi);
  tide_array_release(p);
}

/* random velocities in a liquid blob with a solid block: after projection
 * the divergence of every liquid cell is at the solver tolerance, wall and
 * solid faces are closed; fractions of one give the same answer */
static void divergence_free(int dim) {
  tide_grid g;
  int n[3] = {14, 13, 12};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, dim, n, 0.1, org);
  tide_array *lab = tide_grid_cell_array(&g, TIDE_U8);
  fill_labels(&g, lab, 0.9);
  int kk = dim == 3 ? 5 : 0;
  for (int i = 4; i < 7; i++)
    for (int j = 2; j < 5; j++) TIDE_U8P(lab)[tide_grid_idx(&g, i, j, kk)] = TIDE_CELL_SOLID;
  tide_mac *u, *u2, *fr;
  tide_mac_new(&g, TIDE_F64, &u);
  tide_mac_new(&g, TIDE_F64, &u2);
  tide_mac_new(&g, TIDE_F64, &fr);
  tide_mac_fill(fr, 1);
  for (int a = 0; a < dim; a++) {
    int64_t nf = tide_array_size(u->u[a]);
    for (int64_t f = 0; f < nf; f++) TIDE_F64P(u->u[a])[f] = 2 * tide_rand01(40 + a, (uint64_t)f) - 1;
  }
  tide_mac_copy(u2, u);
  tide_project_opts o = defaults(0.05);
  o.tol = 1e-9;
  tide_project_stats st, st2;
  CHECK(tide_liquid_project(u, lab, &o, NULL, NULL, NULL, &st) == TIDE_OK, "project");
  CHECK(st.div_before > 1, "random field is divergent: %g", st.div_before);
  tide_array *div = tide_grid_cell_array(&g, TIDE_F64);
  tide_mac_divergence(u, div);
  double dmax = 0;
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++)
    if (TIDE_U8P(lab)[q] == TIDE_CELL_LIQUID) dmax = fmax(dmax, fabs(TIDE_F64P(div)[q]));
  /* ||r||_inf <= ||r||_2 <= tol ||b||_2 <= tol sqrt(n) ||b||_inf */
  double bound = o.tol * sqrt((double)st.unknowns) * st.div_before;
  CHECK(dmax <= bound && fabs(dmax - st.div_after) < 1e-12, "%dD: max |div u| = %g (bound %g, reported %g)", dim, dmax,
        bound, st.div_after);
  CHECK(TIDE_F64P(u->u[0])[tide_grid_fidx(&g, 0, 0, 3, kk)] == 0 && TIDE_F64P(u->u[1])[tide_grid_fidx(&g, 1, 5, 2, kk)] == 0 &&
            TIDE_F64P(u->u[0])[tide_grid_fidx(&g, 0, 4, 3, kk)] == 0,
        "domain wall and solid faces closed");
  o.fractions = fr;
  CHECK(tide_liquid_project(u2, lab, &o, NULL, NULL, NULL, &st2) == TIDE_OK, "project with fractions");
  double diff = 0;
  for (int a = 0; a < dim; a++) {
    int64_t nf = tide_array_size(u->u[a]);
    for (int64_t f = 0; f < nf; f++) diff = fmax(diff, fabs(TIDE_F64P(u->u[a])[f] - TIDE_F64P(u2->u[a])[f]));
  }
  /* bit for bit on the assembled path; to rounding on the matrix-free ones */
  CHECK(method == TIDE_PROJECT_PCG ? diff == 0 && st.iterations == st2.iterations : diff < 1e-8,
        "fractions of one give the voxel projection: %g", diff);

  /* divergence target: div u = d exactly (to the tolerance) */
  tide_array *target = tide_grid_cell_array(&g, TIDE_F64);
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++) TIDE_F64P(target)[q] = 0.5 * tide_rand01(77, (uint64_t)q);
  tide_mac_fill(u, 0);
  o.fractions = NULL;
  o.target = target;
  CHECK(tide_liquid_project(u, lab, &o, NULL, NULL, NULL, &st) == TIDE_OK, "project to a target");
  tide_mac_divergence(u, div);
  dmax = 0;
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++)
    if (TIDE_U8P(lab)[q] == TIDE_CELL_LIQUID) dmax = fmax(dmax, fabs(TIDE_F64P(div)[q] - TIDE_F64P(target)[q]));
  CHECK(dmax < 1e-7, "divergence target met: %g", dmax);

  /* closed container full of liquid: singular Neumann problem, solvable for
   * a divergence-free-compatible field (here: random interior, zero mean) */
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++) TIDE_U8P(lab)[q] = TIDE_CELL_LIQUID;
  tide_mac_copy(u, u2);
  o.target = NULL;
  CHECK(tide_liquid_project(u, lab, &o, NULL, NULL, NULL, &st) == TIDE_OK, "closed container: %s", tide_errmsg());
  tide_mac_divergence(u, div);
  double dm2 = 0;
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++) dm2 = fmax(dm2, fabs(TIDE_F64P(div)[q]));
  CHECK(dm2 < 1e-6, "closed container divergence free: %g", dm2);

  /* bad input */
  o.dt = -1;
  CHECK(tide_liquid_project(u, lab, &o, NULL, NULL, NULL, &st) == TIDE_EINVAL, "negative dt rejected");
  tide_array_release(target);
  tide_array_release(div);
  tide_array_release(lab);
  tide_mac_free(u);
  tide_mac_free(u2);
  tide_mac_free(fr);
}


/* a solid block moving with velocity U through liquid below a free surface:
 * the liquid's divergence, with the block's flux, is at the tolerance, the
 * block's faces carry its normal velocity and the liquid is pushed */
static void moving_solid(int dim) {
  tide_grid g;
  int n[3] = {16, 12, 8};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, dim, n, 0.1, org);
  tide_array *lab = tide_grid_cell_array(&g, TIDE_U8);
  fill_labels(&g, lab, 0.9);
  int kk = dim == 3 ? 4 : 0;
  for (int i = 6; i < 9; i++)
    for (int j = 2; j < 5; j++) TIDE_U8P(lab)[tide_grid_idx(&g, i, j, kk)] = TIDE_CELL_SOLID;
  tide_mac *u, *us;
  tide_mac_new(&g, TIDE_F64, &u);
  tide_mac_new(&g, TIDE_F64, &us);
  double U[3] = {0.5, 0.25, 0};
  tide_mac_add_accel(us, U, 1.0);
  /* the domain walls stay at rest */
  tide_mac_enforce_walls(us, NULL, 0);
  tide_project_opts o = defaults(0.05);
  o.tol = 1e-9;
  o.solid_velocity = us;
  tide_project_stats st;
  CHECK(tide_liquid_project(u, lab, &o, NULL, NULL, NULL, &st) == TIDE_OK, "moving solid: %s", tide_errmsg());
  double bound = o.tol * sqrt((double)st.unknowns) * st.div_before;
  CHECK(st.div_before > 1 && st.div_after <= bound, "%dD moving solid: div %g -> %g (bound %g)", dim, st.div_before,
        st.div_after, bound);
  CHECK_NEAR(TIDE_F64P(u->u[0])[tide_grid_fidx(&g, 0, 6, 3, kk)], 0.5, 1e-15);
  CHECK_NEAR(TIDE_F64P(u->u[1])[tide_grid_fidx(&g, 1, 7, 5, kk)], 0.25, 1e-15);
  double umax;
  tide_mac_max_speed(u, &umax);
  CHECK(umax > 0.4, "the liquid is pushed: max |u| = %g", umax);
  tide_mac_free(u);
  tide_mac_free(us);
  tide_array_release(lab);
}

/* a ball of liquid at centre c (cells) with a ghost-fluid level set */
static void ball(const tide_grid *g, tide_array *lab, tide_array *phi, const double c[3], double r) {
  for (int i = 0; i < g->n[0]; i++)
    for (int j = 0; j < g->n[1]; j++)
      for (int k = 0; k < g->n[2]; k++) {
        double d = sqrt((i - c[0]) * (i - c[0]) + (j - c[1]) * (j - c[1]) + (g->dim == 3 ? (k - c[2]) * (k - c[2]) : 0)) - r;
        int64_t q = tide_grid_idx(g, i, j, k);
        TIDE_F64P(phi)[q] = d * g->dx;
        TIDE_U8P(lab)[q] = d < 0 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
      }
}

/* the row-by-row loops: a workspace reused while the liquid moves through the
 * box (its theta rows follow) equals one-shot projections; with every option
 * (ghost fluid, fractions with closed faces, moving solid, fixed faces,
 * target, valid, pressure) 1 and 2 threads agree bit for bit; non-finite
 * velocities on the faces of liquid cells are rejected */
static void row_loops(int dim) {
  tide_grid g;
  int n[3] = {26, 24, dim == 3 ? 22 : 1};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, dim, n, 0.05, org);
  tide_array *lab = tide_grid_cell_array(&g, TIDE_U8), *phi = tide_grid_cell_array(&g, TIDE_F64);
  tide_array *p1 = tide_grid_cell_array(&g, TIDE_F64), *p2 = tide_grid_cell_array(&g, TIDE_F64);
  tide_array *target = tide_grid_cell_array(&g, TIDE_F64);
  tide_mac *u0, *u1, *u2, *fr, *us, *fx, *v1, *v2;
  tide_mac_new(&g, TIDE_F64, &u0), tide_mac_new(&g, TIDE_F64, &u1), tide_mac_new(&g, TIDE_F64, &u2);
  tide_mac_new(&g, TIDE_F64, &fr), tide_mac_new(&g, TIDE_F64, &us), tide_mac_new(&g, TIDE_U8, &fx);
  tide_mac_new(&g, TIDE_U8, &v1), tide_mac_new(&g, TIDE_U8, &v2);
  for (int a = 0; a < dim; a++) {
    int64_t nf = tide_array_size(u0->u[a]);
    for (int64_t f = 0; f < nf; f++) {
      TIDE_F64P(u0->u[a])[f] = 2 * tide_rand01(90 + a, (uint64_t)f) - 1;
      double w = tide_rand01(95 + a, (uint64_t)f);
      TIDE_F64P(fr->u[a])[f] = w < 0.05 ? 0 : w < 0.5 ? 1 : w;
      TIDE_F64P(us->u[a])[f] = tide_rand01(98 + a, (uint64_t)f) - 0.5;
      TIDE_U8P(fx->u[a])[f] = tide_rand01(101 + a, (uint64_t)f) < 0.03;
    }
  }
  for (int64_t q = 0; q < tide_grid_ncells(&g); q++) TIDE_F64P(target)[q] = 0.2 * tide_rand01(104, (uint64_t)q) - 0.1;
  tide_projector *w;
  CHECK(tide_projector_new(&g, &w) == TIDE_OK, "projector");
  tide_project_opts o = defaults(0.01);
  o.tol = 1e-8;
  o.phi = phi;
  tide_project_stats s1, s2;
  /* the ball moves from corner to corner: rows of the last box are reset */
  const double cs[4][3] = {{6, 6, 6}, {18, 16, 15}, {7, 17, 8}, {19, 6, 14}};
  double worst = 0;
  int same_its = 1;
  for (int rep = 0; rep < 4; rep++) {
    ball(&g, lab, phi, cs[rep], 4.5);
    tide_mac_copy(u1, u0);
    tide_mac_copy(u2, u0);
    CHECK(tide_liquid_project(u1, lab, &o, w, v1, p1, &s1) == TIDE_OK, "reused: %s", tide_errmsg());
    CHECK(tide_liquid_project(u2, lab, &o, NULL, v2, p2, &s2) == TIDE_OK, "one-shot: %s", tide_errmsg());
    tide_mac_axpy(u1, -1, u2);
    double s = 0;
    tide_mac_max_speed(u1, &s);
    worst = fmax(worst, s);
    same_its &= s1.iterations == s2.iterations && s1.div_after == s2.div_after;
  }
  CHECK(worst == 0 && same_its, "%dD method %d: reused workspace following the liquid equals one-shot (%g)", dim, method,
        worst);
  /* all options, 1 vs 2 threads */
  o.fractions = fr, o.solid_velocity = us, o.fixed = fx, o.target = target;
  int nt = omp_get_max_threads(), ok = 1;
  for (int t = 1; t <= 2; t++) {
    omp_set_num_threads(t);
    tide_mac *ut = t == 1 ? u1 : u2, *vt = t == 1 ? v1 : v2;
    tide_mac_copy(ut, u0);
    int st = tide_liquid_project(ut, lab, &o, w, vt, t == 1 ? p1 : p2, t == 1 ? &s1 : &s2);
    ok &= st == TIDE_OK || st == TIDE_ENOCONV;
  }
  omp_set_num_threads(nt);
  for (int a = 0; a < dim; a++) {
    ok &= !memcmp(TIDE_F64P(u1->u[a]), TIDE_F64P(u2->u[a]), (size_t)tide_array_size(u1->u[a]) * 8);
    ok &= !memcmp(TIDE_U8P(v1->u[a]), TIDE_U8P(v2->u[a]), (size_t)tide_array_size(v1->u[a]));
  }
  ok &= !memcmp(TIDE_F64P(p1), TIDE_F64P(p2), (size_t)tide_grid_ncells(&g) * 8);
  ok &= !memcmp(&s1, &s2, sizeof s1);
  CHECK(ok && s1.unknowns > 0, "%dD method %d: every option, 1 and 2 threads bit for bit (%d its, div %g -> %g)", dim,
        method, s1.iterations, s1.div_before, s1.div_after);
  /* a NaN on a face of a liquid cell is an error; one between air cells is not read */
  o.fractions = NULL, o.solid_velocity = NULL, o.fixed = NULL, o.target = NULL;
  int kk = dim == 3 ? 14 : 0;
  tide_mac_copy(u1, u0);
  TIDE_F64P(u1->u[0])[tide_grid_fidx(&g, 0, 1, 1, kk)] = NAN; /* the ball is around (19, 6, 14) */
  CHECK(tide_liquid_project(u1, lab, &o, w, NULL, NULL, &s1) == TIDE_OK, "NaN between air cells: %s", tide_errmsg());
  TIDE_F64P(u1->u[0])[tide_grid_fidx(&g, 0, 19, 6, kk)] = INFINITY;
  CHECK(tide_liquid_project(u1, lab, &o, w, NULL, NULL, &s1) == TIDE_ENONFINITE, "inf on a liquid face rejected");
  TIDE_U8P(lab)[0] = 7;
  CHECK(tide_liquid_project(u1, lab, &o, w, NULL, NULL, &s1) == TIDE_EINVAL, "bad label rejected");
  tide_projector_free(w);
  tide_array_release(lab), tide_array_release(phi), tide_array_release(p1), tide_array_release(p2);
  tide_array_release(target);
  tide_mac_free(u0), tide_mac_free(u1), tide_mac_free(u2), tide_mac_free(fr), tide_mac_free(us);
  tide_mac_free(fx), tide_mac_free(v1), tide_mac_free(v2);
}

int main(void) {
  /* the assembled MIC(0)-PCG and the matrix-free MGPCG / MIC(0) solvers */
  for (method = TIDE_PROJECT_PCG; method <= TIDE_PROJECT_MIC0; method++)
    for (int dim = 2; dim <= 3; dim++) {
      hydrostatic(dim, 0);
      hydrostatic(dim, 1);
      divergence_free(dim);
      moving_solid(dim);
      row_loops(dim);
    }
  /* a reused workspace gives the same answer as a one-shot one */
  tide_grid g;
  int n[3] = {20, 16, 1};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, 2, n, 0.05, org);
  tide_array *lab = tide_grid_cell_array(&g, TIDE_U8);
  fill_labels(&g, lab, 0.5);
  tide_projector *w;
  CHECK(tide_projector_new(&g, &w) == TIDE_OK, "projector");
  double grav[3] = {0.3, -9.81, 0};
  for (method = TIDE_PROJECT_PCG; method <= TIDE_PROJECT_MIC0; method++) {
    tide_mac *u1, *u2;
    tide_mac_new(&g, TIDE_F64, &u1);
    tide_mac_new(&g, TIDE_F64, &u2);
    tide_project_opts o = defaults(0.01);
    tide_project_stats s1, s2;
    for (int rep = 0; rep < 2; rep++) { /* the second call reuses the analysis */
      tide_mac_fill(u1, 0);
      tide_mac_add_accel(u1, grav, 0.01);
      tide_mac_copy(u2, u1);
      CHECK(tide_liquid_project(u1, lab, &o, w, NULL, NULL, &s1) == TIDE_OK, "with workspace");
      CHECK(tide_liquid_project(u2, lab, &o, NULL, NULL, NULL, &s2) == TIDE_OK, "one-shot");
      double s = 0;
      tide_mac_axpy(u1, -1, u2);
      tide_mac_max_speed(u1, &s);
      CHECK(s == 0 && s1.iterations == s2.iterations, "method %d: workspace reuse identical (%g)", method, s);
    }
    tide_mac_free(u1);
    tide_mac_free(u2);
  }
  tide_projector_free(w);
  tide_array_release(lab);
  return check_report();
}
