/*
 * bench/poisson_dam.c -- the pressure solve of a sparse free-surface liquid:
 * the breaking-dam column of bench/flip3d.lua (0.4 x 0.6 x 1.0 of a unit box,
 * ghost-fluid surface from the box's signed distance) solved by MGPCG to
 * 1e-6, against the same solver on a tight box holding the same number of
 * unknowns (measured in the same run: the cost the solver would have if it
 * scaled with the liquid cells only).
 *
 *   build/bench_poisson_dam [--res 64,100] [--threads N] [--reps 10] [--cut] [--plate I]
 *                           [--sweeps 4] [--project]
 *
 * Per case: the labels alternate between two column heights every repetition
 * (so each tide_mac_solver_update re-analyses changed labels, as in a
 * simulation step); reported are the median (and least) seconds of the
 * update (set-up of the hierarchy) and of the solve, the iterations, and the
 * CPU seconds of the process per solve (robust to other jobs on a shared
 * machine).
 * --cut adds a sphere obstacle inside the column with fractional face
 * weights (cut cells); --plate I instead puts a baffle of zero thickness on
 * the x faces of index I (closed above y = 0.15, open below), present only
 * in the face weights.  Also printed: the iterations to 1e-12; --sweeps sets
 * the boundary-band Gauss-Seidel sweeps of the V-cycle (tide_mac_solver_opts).
 * The whole tide_liquid_project of the column is timed too (its right-hand
 * side takes more iterations than the random one above, and it skips the
 * solver's input scans, so "project less update + solve" is no measure of its
 * own loops); --project times only that (for profiling the projection).
 */
#include "linalg/mg_internal.h"
#include "liquid/project.h"
#include "version.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + ru.ru_stime.tv_sec +
         1e-6 * ru.ru_stime.tv_usec;
}

typedef struct scene {
  tide_grid g;
  uint8_t *lab;
  double *phi, *b, *x, *w[3], *th[3];
  tide_mac_poisson P;
} scene;

/* signed distance to the box [lo, hi] */
static double box_sdf(const double p[3], const double lo[3], const double hi[3]) {
  double out = 0, in = -1e30;
  for (int a = 0; a < 3; a++) {
    double d = fmax(lo[a] - p[a], p[a] - hi[a]);
    if (d > 0) out += d * d;
    in = fmax(in, d);
  }
  return out > 0 ? sqrt(out) : in;
}

static const double SC[3] = {0.2, 0.25, 0.5}, SR = 0.12; /* sphere obstacle */
static int plate = -1; /* --plate: x-face index of a thin baffle */

/* n1 x n2 x n3 grid of spacing dx, liquid where inside [0, ext], ghost-fluid theta from the
 * box's distance; cut: sphere obstacle with face fractions */
static void scene_set(scene *s, const double ext[3], int cut) {
  const tide_grid *g = &s->g;
  const double lo[3] = {-1, -1, -1}, dx = g->dx;
  const int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2];
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n0; i++)
    for (int j = 0; j < n1; j++)
      for (int k = 0; k < n2; k++) {
        const double p[3] = {(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
        int64_t c = tide_grid_idx(g, i, j, k);
        double d = box_sdf(p, lo, ext);
        double r = sqrt((p[0] - SC[0]) * (p[0] - SC[0]) + (p[1] - SC[1]) * (p[1] - SC[1]) +
                        (p[2] - SC[2]) * (p[2] - SC[2]));
        s->phi[c] = d;
        s->lab[c] = cut && plate < 0 && r < SR ? TIDE_CELL_SOLID : d < 0 ? TIDE_CELL_LIQUID : TIDE_CELL_AIR;
        s->b[c] = s->lab[c] == TIDE_CELL_LIQUID ? 2 * tide_rand01(1, c) - 1 : 0;
      }
  tide_mac_poisson_theta(g, s->lab, s->phi, s->th);
  if (cut) {
    for (int a = 0; a < 3; a++) {
      int d[3];
      tide_grid_face_dims(g, a, d);
#pragma omp parallel for schedule(static)
      for (int i = 0; i < d[0]; i++)
        for (int j = 0; j < d[1]; j++)
          for (int k = 0; k < d[2]; k++) {
            double f[3] = {(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
            f[a] -= 0.5 * dx;
            double r = sqrt((f[0] - SC[0]) * (f[0] - SC[0]) + (f[1] - SC[1]) * (f[1] - SC[1]) +
                            (f[2] - SC[2]) * (f[2] - SC[2])) -
                       SR;
            double w = 0.5 + r / dx;
            w = w < 0.01 ? 0.01 : w > 1 ? 1 : w;
            /* a baffle thinner than a cell, only in the face fractions: closed above y = 0.15 */
            if (plate >= 0) w = a == 0 && i == plate && f[1] > 0.15 ? 0.0 : 1.0;
            s->w[a][tide_grid_fidx(g, a, i, j, k)] = w;
          }
    }
  }
}

static scene scene_new(int n0, int n1, int n2, double dx, int cut) {
  scene s;
  memset(&s, 0, sizeof s);
  s.g.dim = 3;
  s.g.n[0] = n0, s.g.n[1] = n1, s.g.n[2] = n2;
  s.g.dx = dx;
  int64_t nc = tide_grid_ncells(&s.g);
  s.lab = tide_alloc((size_t)nc);
  s.phi = tide_alloc((size_t)nc * 8);
  s.b = tide_alloc((size_t)nc * 8);
  s.x = tide_calloc((size_t)nc * 8);
  s.P = tide_mac_poisson_make(&s.g, s.lab);
  for (int a = 0; a < 3; a++) {
    int d[3];
    tide_grid_face_dims(&s.g, a, d);
    s.th[a] = tide_alloc((size_t)d[0] * d[1] * d[2] * 8);
    s.P.theta[a] = s.th[a];
    if (cut) {
      s.w[a] = tide_alloc((size_t)d[0] * d[1] * d[2] * 8);
      s.P.weight[a] = s.w[a];
    }
  }
  return s;
}

static void scene_free(scene *s) {
  int64_t nc = tide_grid_ncells(&s->g);
  tide_free(s->lab, (size_t)nc), tide_free(s->phi, (size_t)nc * 8);
  tide_free(s->b, (size_t)nc * 8), tide_free(s->x, (size_t)nc * 8);
  for (int a = 0; a < 3; a++) {
    int d[3];
    tide_grid_face_dims(&s->g, a, d);
    tide_free(s->th[a], (size_t)d[0] * d[1] * d[2] * 8);
    tide_free(s->w[a], (size_t)d[0] * d[1] * d[2] * 8);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct result {
  int64_t unknowns;
  int iters, iters12, levels;
  double update, solve, cpu, res, update_min, solve_min, ucpu;
  tide_mac_solver_info info;
} result;

/* reps repetitions alternating between the two liquid extents e0, e1 */
static tide_mac_solver_opts g_opts;

static result run(scene *s, const double e0[3], const double e1[3], int cut, int reps) {
  result r;
  memset(&r, 0, sizeof r);
  scene_set(s, e0, cut);
  tide_mac_solver *S = NULL;
  if (tide_mac_solver_new(&s->P, &g_opts, &S)) {
    fprintf(stderr, "solver: %s\n", tide_errmsg());
    exit(1);
  }
  double tu[64], ts[64], tc[64], tuc[64];
  tide_solve_opts o = tide_solve_opts_default();
  o.tol = 1e-6;
  for (int rep = 0; rep <= reps; rep++) { /* rep 0: warm-up */
    scene_set(s, rep & 1 ? e1 : e0, cut);
    double t = tide_wtime(), u0 = cpu_seconds();
    if (tide_mac_solver_update(S, &s->P)) {
      fprintf(stderr, "update: %s\n", tide_errmsg());
      exit(1);
    }
    t = tide_wtime() - t;
    const double uc = cpu_seconds() - u0;
    tide_solve_stats st;
    double c0 = cpu_seconds();
    if (tide_mac_solver_solve(S, s->b, s->x, &o, &st)) {
      fprintf(stderr, "solve: %s\n", tide_errmsg());
      exit(1);
    }
    double c1 = cpu_seconds();
    if (rep > 0) tu[rep - 1] = t, ts[rep - 1] = st.seconds, tc[rep - 1] = c1 - c0, tuc[rep - 1] = uc;
    if (rep == reps) r.iters = st.iterations, r.res = st.residual;
  }
  r.update = median(tu, reps);
  r.update_min = tu[0]; /* sorted by median() */
  r.solve = median(ts, reps);
  r.solve_min = ts[0];
  r.cpu = median(tc, reps);
  r.ucpu = median(tuc, reps);
  tide_mac_solver_info_get(S, &r.info);
  r.unknowns = r.info.liquid[0];
  r.levels = r.info.levels;
  {
    tide_solve_opts o12 = tide_solve_opts_default();
    o12.tol = 1e-12;
    tide_solve_stats st;
    tide_mac_solver_solve(S, s->b, s->x, &o12, &st);
    r.iters12 = st.iterations;
  }
  tide_mac_solver_free(S);
  return r;
}

/* the whole projection (tide_liquid_project: right-hand side, theta, solver
 * update and solve, velocity update, divergence check) of u = dt g on the
 * column, projector reused; median seconds */
static double run_project(scene *s, const double e0[3], const double e1[3], int reps,
                          int *iters, double *cpu) {
  tide_mac *u = NULL;
  const int64_t shape[3] = {s->g.n[0], s->g.n[1], s->g.n[2]};
  tide_array *phi = tide_array_new(TIDE_F64, 3, shape), *lab = tide_array_new(TIDE_U8, 3, shape);
  if (tide_mac_new(&s->g, TIDE_F64, &u) || !phi || !lab) {
    fprintf(stderr, "project: %s\n", tide_errmsg());
    exit(1);
  }
  tide_projector *w = NULL;
  tide_projector_new(&s->g, &w);
  double t[64], tc[64];
  for (int rep = 0; rep <= reps; rep++) {
    scene_set(s, rep & 1 ? e1 : e0, 0);
    memcpy(TIDE_F64P(phi), s->phi, (size_t)tide_grid_ncells(&s->g) * 8);
    memcpy(TIDE_U8P(lab), s->lab, (size_t)tide_grid_ncells(&s->g));
    tide_mac_fill(u, 0);
    const double g[3] = {0, -9.81, 0};
    tide_mac_add_accel(u, g, 0.01);
    tide_project_opts o;
    memset(&o, 0, sizeof o);
    o.dt = 0.01, o.rho = 1000, o.tol = 1e-6, o.method = TIDE_PROJECT_MGPCG;
    o.theta_min = TIDE_MAC_THETA_MIN, o.phi = phi;
    tide_project_stats st;
    double t0 = tide_wtime(), c0 = cpu_seconds();
    if (tide_liquid_project(u, lab, &o, w, NULL, NULL, &st)) {
      fprintf(stderr, "project: %s\n", tide_errmsg());
      exit(1);
    }
    if (rep > 0) t[rep - 1] = tide_wtime() - t0, tc[rep - 1] = cpu_seconds() - c0;
    *iters = st.iterations;
  }
  tide_projector_free(w);
  tide_mac_free(u);
  tide_array_release(phi);
  tide_array_release(lab);
  *cpu = median(tc, reps);
  return median(t, reps);
}

static void print_row(const char *name, const result *r) {
  printf("  %-17s %7lld unknowns  update %6.2f ms (min %6.2f, cpu %6.2f)  solve %6.2f ms (min "
         "%6.2f, cpu %6.2f, %2d its, %5.2f ms/it)  %.2f us/unknown",
         name, (long long)r->unknowns, r->update * 1e3, r->update_min * 1e3, r->ucpu * 1e3,
         r->solve * 1e3, r->solve_min * 1e3, r->cpu * 1e3, r->iters,
         r->solve * 1e3 / (r->iters ? r->iters : 1),
         (r->update + r->solve) * 1e6 / (double)r->unknowns);
  if (r->iters12) printf("  [%d its to 1e-12]", r->iters12);
  printf("\n");
}

static void loadavg(char *buf, size_t n) {
  FILE *la = fopen("/proc/loadavg", "r");
  snprintf(buf, n, "?");
  if (la) {
    if (!fgets(buf, (int)n, la)) snprintf(buf, n, "?");
    fclose(la);
    buf[strcspn(buf, "\n")] = 0;
  }
}

int main(int argc, char **argv) {
  /* Tide's OpenMP wait policy unless the caller chose one, as the tide program
   * (spinning waits were 20x slower on shared cores: docs/performance.md) */
  tide_omp_wait_default(argv);
  int res[8] = {64, 100}, nres = 2, reps = 10, cut = 0, only_project = 0;
  g_opts = tide_mac_solver_opts_default();
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--res") && i + 1 < argc) {
      nres = 0;
      for (char *t = strtok(argv[++i], ","); t && nres < 8; t = strtok(NULL, ","))
        res[nres++] = atoi(t);
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      omp_set_num_threads(atoi(argv[++i]));
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
      if (reps < 1) reps = 1;
      if (reps > 64) reps = 64;
    } else if (!strcmp(argv[i], "--sweeps") && i + 1 < argc) {
      g_opts.boundary_sweeps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--plate") && i + 1 < argc) {
      plate = atoi(argv[++i]);
      cut = 1;
    } else if (!strcmp(argv[i], "--cut")) {
      cut = 1;
    } else if (!strcmp(argv[i], "--project")) {
      only_project = 1;
    } else {
      fprintf(stderr, "usage: %s [--res 64,100] [--threads N] [--reps 10] [--cut] [--plate I] [--sweeps 4] [--project]\n", argv[0]);
      return 2;
    }
  }
  char load[64];
  loadavg(load, sizeof load);
  printf("Tide %s (%s)  threads %d  load average %s  OpenMP wait: %s\n", tide_version_string(),
         tide_git_revision(), omp_get_max_threads(), load, tide_omp_wait_info());
  printf("MGPCG to 1e-6, median of %d repetitions; labels alternate between two column heights\n",
         reps);
  for (int q = 0; q < nres; q++) {
    const int n = res[q];
    if (n < 8) continue;
    /* the dam column of bench/flip3d.lua */
    scene s = scene_new(n, n, n, 1.0 / n, cut);
    const double e0[3] = {0.4, 0.6, 1.0}, e1[3] = {0.4, 0.6 - 0.5 / n, 1.0};
    if (only_project) {
      int pit = 0;
      double pcpu = 0, tp = run_project(&s, e0, e1, reps, &pit, &pcpu);
      scene_free(&s);
      printf("%d^3 column: tide_liquid_project %.2f ms (cpu %.2f, %d its)\n", n, tp * 1e3, pcpu * 1e3, pit);
      continue;
    }
    result a = run(&s, e0, e1, cut, reps);
    int pit = 0;
    double pcpu = 0, tp = cut ? 0 : run_project(&s, e0, e1, reps, &pit, &pcpu);
    scene_free(&s);
    /* a tight box with about the same unknowns: m^3 cells, liquid below 1 - 1.5 cells */
    int m = (int)ceil(cbrt((double)a.unknowns / (1.0 - 1.0 / cbrt((double)a.unknowns))));
    scene t = scene_new(m, m, m, 1.0 / m, 0);
    const double f0[3] = {1.0, 1.0 - 1.0 / m, 1.0}, f1[3] = {1.0, 1.0 - 1.5 / m, 1.0};
    result b = run(&t, f0, f1, 0, reps);
    scene_free(&t);
    loadavg(load, sizeof load);
    printf("\n%d^3 box, column 0.4 x 0.6 x 1.0%s (load average %s)\n", n,
           plate >= 0 ? " + baffle in the face weights" : cut ? " + cut-cell sphere" : "", load);
    print_row("dam column", &a);
    print_row("bound: tight box", &b);
    if (tp > 0)
      printf("  tide_liquid_project of the column (u = dt g): %.2f ms (cpu %.2f, %d its), of which "
             "update + solve above %.2f ms (cpu %.2f)\n",
             tp * 1e3, pcpu * 1e3, pit, (a.update + a.solve) * 1e3, (a.ucpu + a.cpu) * 1e3);
    printf("  ratio (update + solve) %.2f\n", (a.update + a.solve) / (b.update + b.solve));
    printf("  levels %d:", a.levels);
    for (int l = 0; l < a.levels; l++)
      printf(" [%lld cells, %lld liquid, %lld active, %lld band]", (long long)a.info.cells[l],
             (long long)a.info.liquid[l], (long long)a.info.active[l], (long long)a.info.band[l]);
    printf("\n");
    fflush(stdout);
  }
  return 0;
}
