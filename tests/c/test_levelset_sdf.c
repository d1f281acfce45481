/* Signed distance fields: exact values of the analytic shapes, |grad phi| = 1
 * away from kinks, CSG and transforms, grid sampling, mesh SDF (BVH distance
 * equals brute force, cube mesh equals the box, sign robust to a hole),
 * particle level sets (exact gather, flat Zhu--Bridson surface, thread
 * independence). */
#include "check.h"
#include "grid/sdf.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static double ev(const tide_shape *s, double x, double y, double z) {
  double p[3] = {x, y, z};
  return tide_shape_eval(s, p);
}

/* max | |grad phi| - 1 | over random points in [lo, hi]^dim, skipping points
 * whose one-sided differences disagree (a kink inside the stencil) */
static double grad_error(const tide_shape *s, double lo, double hi, uint64_t stream, int *skipped) {
  double h = 1e-6, worst = 0;
  *skipped = 0;
  for (int q = 0; q < 2000; q++) {
    double x[3] = {0, 0, 0};
    for (int a = 0; a < s->dim; a++)
      x[a] = lo + (hi - lo) * tide_rand01(stream, 3 * q + a);
    double f0 = tide_shape_eval(s, x), g2 = 0;
    int kink = 0;
    for (int a = 0; a < s->dim; a++) {
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[a] += h;
      xm[a] -= h;
      double fp = (tide_shape_eval(s, xp) - f0) / h, fm = (f0 - tide_shape_eval(s, xm)) / h;
      if (fabs(fp - fm) > 1e-4) kink = 1;
      g2 += 0.25 * (fp + fm) * (fp + fm);
    }
    if (kink) {
      (*skipped)++;
      continue;
    }
    double e = fabs(sqrt(g2) - 1);
    if (e > worst) worst = e;
  }
  return worst;
}

static void check_unit_gradient(const char *name, const tide_shape *s, double lo, double hi) {
  int skipped;
  double e = grad_error(s, lo, hi, 77, &skipped);
  CHECK(e < 1e-5, "%s: max ||grad phi| - 1| = %g", name, e);
  CHECK(skipped < 40, "%s: %d of 2000 samples on kinks", name, skipped);
}

static void test_primitives(void) {
  tide_shape *box, *sph, *disk, *cyl, *pl, *cap, *tor, *ann, *rect;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, o[3] = {0, 0, 0};
  CHECK(tide_shape_box(3, lo, hi, &box) == TIDE_OK, "box");
  CHECK_NEAR(ev(box, .5, .5, .5), -.5, 1e-15);
  CHECK_NEAR(ev(box, .5, .5, .9), -.1, 1e-15);
  CHECK_NEAR(ev(box, 2, .5, .5), 1, 1e-15);
  CHECK_NEAR(ev(box, 2, 2, .5), sqrt(2), 1e-15);
  CHECK_NEAR(ev(box, 2, 2, 2), sqrt(3), 1e-15);
  check_unit_gradient("box", box, -1, 2);

  CHECK(tide_shape_sphere(3, o, 1, &sph) == TIDE_OK, "sphere");
  CHECK_NEAR(ev(sph, 2, 0, 0), 1, 1e-15);
  CHECK_NEAR(ev(sph, 0, .25, 0), -.75, 1e-15);
  CHECK_NEAR(ev(sph, 1, 1, 1), sqrt(3) - 1, 1e-15);
  check_unit_gradient("sphere", sph, -2, 2);
  double c2[3] = {1, 1, 99};
  CHECK(tide_shape_sphere(2, c2, .5, &disk) == TIDE_OK, "disk");
  CHECK_NEAR(ev(disk, 1, 2, 5), .5, 1e-15); /* z ignored in 2D */
  check_unit_gradient("disk", disk, -1, 3);

  double a[3] = {0, 0, 0}, b[3] = {0, 0, 2};
  CHECK(tide_shape_cylinder(3, a, b, 1, &cyl) == TIDE_OK, "cylinder");
  CHECK_NEAR(ev(cyl, 0, 0, 1), -1, 1e-15);
  CHECK_NEAR(ev(cyl, .5, 0, 1), -.5, 1e-15);
  CHECK_NEAR(ev(cyl, 0, .2, 1.9), -.1, 1e-15);
  CHECK_NEAR(ev(cyl, 3, 0, 1), 2, 1e-15);
  CHECK_NEAR(ev(cyl, 0, 0, 3), 1, 1e-15);
  CHECK_NEAR(ev(cyl, 0, 2, 3), sqrt(2), 1e-15);
  check_unit_gradient("cylinder", cyl, -2, 3);
  double ra[3] = {0, 0, 0}, rb[3] = {2, 2, 0};
  CHECK(tide_shape_cylinder(2, ra, rb, .5, &rect) == TIDE_OK, "2D cylinder");
  CHECK_NEAR(ev(rect, 1, 1, 0), -.5, 1e-15);
  CHECK_NEAR(ev(rect, 0, 2, 0), sqrt(2) - .5, 1e-15);
  CHECK_NEAR(ev(rect, 3, 3, 0), sqrt(2), 1e-15);

  double pn[3] = {0, 2, 0};
  CHECK(tide_shape_plane(3, o, pn, &pl) == TIDE_OK, "plane");
  CHECK_NEAR(ev(pl, 5, 3, 1), 3, 1e-15);
  CHECK_NEAR(ev(pl, 5, -3, 1), -3, 1e-15);
  check_unit_gradient("plane", pl, -2, 2);

  double cb[3] = {1, 0, 0};
  CHECK(tide_shape_capsule(3, o, cb, .5, &cap) == TIDE_OK, "capsule");
  CHECK_NEAR(ev(cap, .5, 1, 0), .5, 1e-15);
  CHECK_NEAR(ev(cap, -1, 0, 0), .5, 1e-15);
  CHECK_NEAR(ev(cap, 2, 0, 0), .5, 1e-15);
  CHECK_NEAR(ev(cap, .3, 0, .1), -.4, 1e-15);
  check_unit_gradient("capsule", cap, -1, 2);

  double ax[3] = {0, 0, 3};
  CHECK(tide_shape_torus(3, o, ax, 2, .5, &tor) == TIDE_OK, "torus");
  CHECK_NEAR(ev(tor, 2, 0, 0), -.5, 1e-15);
  CHECK_NEAR(ev(tor, 0, 0, 0), 1.5, 1e-15);
  CHECK_NEAR(ev(tor, 0, 2, 1), .5, 1e-15);
  CHECK_NEAR(ev(tor, 3, 0, 0), .5, 1e-15);
  check_unit_gradient("torus", tor, -3, 3);
  CHECK(tide_shape_torus(2, o, NULL, 2, .5, &ann) == TIDE_OK, "annulus");
  CHECK_NEAR(ev(ann, 0, 2.25, 0), -.25, 1e-15);
  CHECK_NEAR(ev(ann, 0, 0, 0), 1.5, 1e-15);
  check_unit_gradient("annulus", ann, -3, 3);

  /* CSG: union of two spheres, box minus sphere, intersection, complement */
  tide_shape *s2, *u, *d, *in, *cm;
  double c[3] = {1.5, 0, 0};
  tide_shape_sphere(3, c, 1, &s2);
  CHECK(tide_shape_csg(TIDE_SHAPE_UNION, sph, s2, &u) == TIDE_OK, "union");
  CHECK_NEAR(ev(u, -2, 0, 0), 1, 1e-15);
  CHECK_NEAR(ev(u, 3.5, 0, 0), 1, 1e-15);
  CHECK_NEAR(ev(u, 1.5, 0, 0), -1, 1e-15);
  check_unit_gradient("union", u, -2, 3);
  CHECK(tide_shape_csg(TIDE_SHAPE_INTERSECTION, sph, s2, &in) == TIDE_OK, "intersection");
  CHECK_NEAR(ev(in, .75, 0, 0), -.25, 1e-15);
  CHECK(ev(in, 0, 0, 0) > 0 && ev(in, 1.5, 0, 0) > 0, "intersection excludes the far parts");
  check_unit_gradient("intersection", in, -2, 3);
  double blo[3] = {-2, -2, -2}, bhi[3] = {2, 2, 2};
  tide_shape *big;
  tide_shape_box(3, blo, bhi, &big);
  CHECK(tide_shape_csg(TIDE_SHAPE_DIFFERENCE, big, sph, &d) == TIDE_OK, "difference");
  CHECK_NEAR(ev(d, 0, 0, 0), 1, 1e-15);     /* in the hole */
  CHECK_NEAR(ev(d, 1.5, 0, 0), -.5, 1e-15); /* in the shell */
  CHECK_NEAR(ev(d, 3, 0, 0), 1, 1e-15);
  check_unit_gradient("difference", d, -3, 3);
  CHECK(tide_shape_csg(TIDE_SHAPE_COMPLEMENT, sph, NULL, &cm) == TIDE_OK, "complement");
  CHECK_NEAR(ev(cm, 0, 0, 0), 1, 1e-15);
  tide_shape *bad;
  CHECK(tide_shape_csg(TIDE_SHAPE_UNION, sph, disk, &bad) == TIDE_EINVAL && !bad, "2D with 3D");
  CHECK(tide_shape_sphere(3, o, -1, &bad) == TIDE_EINVAL, "negative radius");
  CHECK(tide_shape_box(3, hi, lo, &bad) == TIDE_EINVAL, "inverted box");
  CHECK(tide_shape_cylinder(3, a, a, 1, &bad) == TIDE_EINVAL, "degenerate cylinder");

  /* transform: the unit box turned 90 degrees about z and moved by (5,0,0) */
  double R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, t[3] = {5, 0, 0};
  tide_shape *tb;
  CHECK(tide_shape_transform(box, R, t, &tb) == TIDE_OK, "transform");
  /* box corner (1,1,0) -> R (1,1,0) + t = (4,1,0); centre (.5,.5,.5) -> (4.5,.5,.5) */
  CHECK_NEAR(ev(tb, 4.5, .5, .5), -.5, 1e-15);
  CHECK_NEAR(ev(tb, 3, .5, .5), 1, 1e-15);
  check_unit_gradient("transform", tb, 2, 7);
  double Rbad[9] = {2, 0, 0, 0, 1, 0, 0, 0, 1};
  CHECK(tide_shape_transform(box, Rbad, t, &bad) == TIDE_EINVAL, "non-orthonormal rotation");
  double n[3];
  double xq[3] = {2, .5, .5};
  tide_shape_normal(box, xq, 0, n);
  CHECK(fabs(n[0] - 1) < 1e-9 && fabs(n[1]) < 1e-9, "box normal (%g %g %g)", n[0], n[1], n[2]);

  /* grid sampling at cells and nodes */
  tide_grid g = {3, {8, 6, 5}, .25, {-1, -.5, 0}};
  double *f = malloc(9 * 7 * 6 * sizeof(double));
  CHECK(tide_shape_sdf(u, &g, TIDE_AT_CELLS, f) == TIDE_OK, "sdf on cells");
  CHECK_NEAR(f[tide_grid_idx(&g, 3, 2, 1)], ev(u, -1 + 3.5 * .25, -.5 + 2.5 * .25, 1.5 * .25),
             1e-15);
  CHECK(tide_shape_sdf(u, &g, TIDE_AT_NODES, f) == TIDE_OK, "sdf on nodes");
  CHECK_NEAR(f[(8 * 7 + 6) * 6 + 5], ev(u, -1 + 8 * .25, -.5 + 6 * .25, 5 * .25), 1e-15);
  CHECK(tide_shape_sdf(u, &g, TIDE_AT_FACES_Y, f) == TIDE_OK, "sdf on v faces");
  CHECK_NEAR(f[(2 * 7 + 6) * 5 + 4], ev(u, -1 + 2.5 * .25, -.5 + 6 * .25, 4.5 * .25), 1e-15);
  CHECK(tide_shape_sdf(disk, &g, TIDE_AT_CELLS, f) == TIDE_EINVAL, "2D shape on 3D grid");
  tide_grid g2 = {2, {4, 4, 1}, .5, {0, 0, 0}};
  CHECK(tide_shape_sdf(disk, &g2, TIDE_AT_FACES_Z, f) == TIDE_EINVAL, "w faces in 2D");
  CHECK(tide_shape_sdf(disk, &g2, TIDE_AT_NODES, f) == TIDE_OK, "2D nodes");
  CHECK_NEAR(f[2 * 5 + 2], ev(disk, 1, 1, 0), 1e-15);
  double pts[6] = {0, 0, 1, 1, 2, 1};
  CHECK(tide_shape_sdf_points(disk, 3, 2, pts, f) == TIDE_OK, "points");
  CHECK_NEAR(f[2], .5, 1e-15);
  free(f);

  tide_shape *all[] = {box, sph, disk, cyl, pl, cap, tor, ann, rect, s2, u, d, in, cm, big, tb};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    tide_shape_release(all[i]);
}

/* ------------------------------------------------------------------ meshes */

/* triangles of a UV sphere of radius rad, outward; V is (nlat-1)*nlon+2 x 3 */
static void uv_sphere(int nlat, int nlon, double rad, double *V, int32_t *F, int64_t *nv,
                      int64_t *nf) {
  int64_t v = 0, f = 0;
  V[3 * v] = 0, V[3 * v + 1] = 0, V[3 * v + 2] = rad, v++;
  for (int i = 1; i < nlat; i++)
    for (int j = 0; j < nlon; j++) {
      double th = M_PI * i / nlat, ph = 2 * M_PI * j / nlon;
      V[3 * v] = rad * sin(th) * cos(ph), V[3 * v + 1] = rad * sin(th) * sin(ph);
      V[3 * v + 2] = rad * cos(th);
      v++;
    }
  int64_t S = v;
  V[3 * v] = 0, V[3 * v + 1] = 0, V[3 * v + 2] = -rad, v++;
#define RING(i, j) (1 + (int64_t)((i)-1) * nlon + ((j) % nlon))
  for (int j = 0; j < nlon; j++) {
    F[3 * f] = 0, F[3 * f + 1] = (int32_t)RING(1, j), F[3 * f + 2] = (int32_t)RING(1, j + 1), f++;
    F[3 * f] = (int32_t)S, F[3 * f + 1] = (int32_t)RING(nlat - 1, j + 1);
    F[3 * f + 2] = (int32_t)RING(nlat - 1, j), f++;
  }
  for (int i = 1; i < nlat - 1; i++)
    for (int j = 0; j < nlon; j++) {
      F[3 * f] = (int32_t)RING(i, j), F[3 * f + 1] = (int32_t)RING(i + 1, j);
      F[3 * f + 2] = (int32_t)RING(i + 1, j + 1), f++;
      F[3 * f] = (int32_t)RING(i, j), F[3 * f + 1] = (int32_t)RING(i + 1, j + 1);
      F[3 * f + 2] = (int32_t)RING(i, j + 1), f++;
    }
#undef RING
  *nv = v;
  *nf = f;
}

static void test_meshes(void) {
  /* unit cube as 12 triangles, oriented outward */
  double V[24];
  for (int v = 0; v < 8; v++)
    V[3 * v] = v & 1, V[3 * v + 1] = (v >> 1) & 1, V[3 * v + 2] = v >> 2;
  int32_t quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                         {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  int32_t F[36];
  for (int q = 0; q < 6; q++) {
    int32_t *t = F + 6 * q;
    t[0] = quads[q][0], t[1] = quads[q][1], t[2] = quads[q][2];
    t[3] = quads[q][0], t[4] = quads[q][2], t[5] = quads[q][3];
  }
  tide_sdf_mesh *cube;
  CHECK(tide_sdf_mesh_new(3, 8, V, 12, F, &cube) == TIDE_OK, "cube mesh");
  double ctr[3] = {.5, .5, .5};
  CHECK_NEAR(tide_sdf_mesh_winding(cube, ctr), 1, 1e-12);
  tide_shape *box, *mbox;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  tide_shape_box(3, lo, hi, &box);
  CHECK(tide_shape_mesh(cube, &mbox) == TIDE_OK, "mesh shape");
  double worst = 0;
  for (int q = 0; q < 3000; q++) {
    double x[3];
    for (int a = 0; a < 3; a++)
      x[a] = -1 + 3 * tide_rand01(5, 3 * q + a);
    double e = fabs(tide_shape_eval(mbox, x) - tide_shape_eval(box, x));
    if (e > worst) worst = e;
  }
  CHECK(worst < 1e-12, "cube mesh SDF equals the box SDF: %g", worst);
  tide_shape_release(mbox);
  tide_shape_release(box);
  tide_sdf_mesh_release(cube);

  /* fine sphere: BVH distance equals brute force; distance close to the
   * analytic one; then a missing triangle (a hole) keeps the sign */
  int nlat = 24, nlon = 48;
  int64_t nv, nf;
  double *SV = malloc(((nlat - 1) * nlon + 2) * 3 * sizeof(double));
  int32_t *SF = malloc(2 * nlat * nlon * 3 * sizeof(int32_t));
  uv_sphere(nlat, nlon, 1, SV, SF, &nv, &nf);
  tide_sdf_mesh *sm;
  CHECK(tide_sdf_mesh_new(3, nv, SV, nf, SF, &sm) == TIDE_OK, "sphere mesh");
  double werr = 0, derr = 0, serr = 0;
  for (int q = 0; q < 400; q++) {
    double x[3], cl[3];
    for (int a = 0; a < 3; a++)
      x[a] = -1.5 + 3 * tide_rand01(6, 3 * q + a);
    double d = tide_sdf_mesh_distance(sm, x, cl), brute = INFINITY;
    for (int64_t f = 0; f < nf; f++) {
      /* brute force by the BVH on a one-face mesh */
      tide_sdf_mesh *one;
      double tv[9];
      int32_t tf[3] = {0, 1, 2};
      for (int c = 0; c < 3; c++)
        memcpy(tv + 3 * c, SV + 3 * SF[3 * f + c], 3 * sizeof(double));
      tide_sdf_mesh_new(3, 3, tv, 1, tf, &one);
      double e = tide_sdf_mesh_distance(one, x, NULL);
      if (e < brute) brute = e;
      tide_sdf_mesh_release(one);
    }
    if (fabs(d - brute) > derr) derr = fabs(d - brute);
    double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    double e = fabs(tide_sdf_mesh_eval(sm, x) - (r - 1));
    if (e > serr) serr = e;
    double w = tide_sdf_mesh_winding(sm, x), we = fabs(w - (r < 1 ? 1 : 0));
    if (fabs(r - 1) > .05 && we > werr) werr = we;
  }
  CHECK(derr < 1e-13, "BVH distance equals brute force: %g", derr);
  CHECK(serr < 0.02, "sphere mesh SDF vs analytic: %g (chord error ~ 0.009)", serr);
  CHECK(werr < 0.015, "fast winding number error %g", werr);

  /* punch a hole: drop 4 adjacent triangles near the equator */
  int64_t drop = 2 * nlon + 2 * ((nlat / 2) * nlon);
  double hole[3] = {0, 0, 0};
  for (int t = 0; t < 4; t++)
    for (int c = 0; c < 3; c++)
      for (int a = 0; a < 3; a++)
        hole[a] += SV[3 * SF[3 * (drop + t) + c] + a] / 12;
  memmove(SF + 3 * drop, SF + 3 * (drop + 4), (size_t)(nf - drop - 4) * 3 * sizeof(int32_t));
  tide_sdf_mesh *holed;
  CHECK(tide_sdf_mesh_new(3, nv, SV, nf - 4, SF, &holed) == TIDE_OK, "holed mesh");
  int wrong = 0, tested = 0;
  tide_grid g = {3, {24, 24, 24}, 3.0 / 24, {-1.5, -1.5, -1.5}};
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      for (int k = 0; k < 24; k++) {
        double x[3];
        tide_grid_sample_pos(&g, TIDE_AT_CELLS, i, j, k, x);
        double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (fabs(r - 1) < .02) continue; /* within the chord error */
        tested++;
        if ((tide_sdf_mesh_eval(holed, x) < 0) != (r < 1)) wrong++;
      }
  CHECK(wrong == 0, "sign with a hole: %d of %d cells wrong", wrong, tested);
  /* the hole is felt: just inside it the winding number drops well below 1 */
  double under[3] = {.93 * hole[0], .93 * hole[1], .93 * hole[2]};
  double wu = tide_sdf_mesh_winding(holed, under);
  CHECK(wu > .5 && wu < .9, "winding number under the hole %g", wu);
  tide_sdf_mesh_release(holed);
  tide_sdf_mesh_release(sm);
  free(SV);
  free(SF);

  /* 2D polygon: unit square counter-clockwise equals the 2D box */
  double PV[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  int32_t PF[8] = {0, 1, 1, 2, 2, 3, 3, 0};
  tide_sdf_mesh *sq;
  CHECK(tide_sdf_mesh_new(2, 4, PV, 4, PF, &sq) == TIDE_OK, "square polygon");
  tide_shape *b2;
  tide_shape_box(2, lo, hi, &b2);
  worst = 0;
  for (int q = 0; q < 2000; q++) {
    double x[3] = {-1 + 3 * tide_rand01(8, 2 * q), -1 + 3 * tide_rand01(8, 2 * q + 1), 0};
    double e = fabs(tide_sdf_mesh_eval(sq, x) - tide_shape_eval(b2, x));
    if (e > worst) worst = e;
  }
  CHECK(worst < 1e-12, "square polygon SDF equals the 2D box: %g", worst);
  int32_t badF[2] = {0, 9};
  tide_sdf_mesh *bad;
  CHECK(tide_sdf_mesh_new(2, 4, PV, 1, badF, &bad) == TIDE_EINVAL, "bad face index");
  tide_shape_release(b2);
  tide_sdf_mesh_release(sq);
}

/* ------------------------------------------------------------- particles */

static void test_particles(void) {
  tide_grid g = {2, {40, 30, 1}, .025, {0, 0, 0}};
  int64_t np = 300, nc = tide_grid_ncells(&g);
  double *x = malloc(np * 2 * sizeof(double)), r = .02, reach = .1;
  for (int64_t p = 0; p < np; p++) {
    x[2 * p] = .2 + .6 * tide_rand01(9, 2 * p);
    x[2 * p + 1] = .2 + .4 * tide_rand01(9, 2 * p + 1);
  }
  double *phi = malloc(nc * sizeof(double)), *phi1 = malloc(nc * sizeof(double));
  CHECK(tide_sdf_particles_union(&g, np, x, r, reach, phi) == TIDE_OK, "union of spheres");
  double err = 0;
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 30; j++) {
      double c[3];
      tide_grid_sample_pos(&g, TIDE_AT_CELLS, i, j, 0, c);
      double best = INFINITY;
      for (int64_t p = 0; p < np; p++) {
        double d = hypot(x[2 * p] - c[0], x[2 * p + 1] - c[1]);
        if (d < best) best = d;
      }
      double ref = (best < reach ? best : reach) - r;
      double e = fabs(phi[tide_grid_idx(&g, i, j, 0)] - ref);
      if (e > err) err = e;
    }
  CHECK(err < 1e-14, "union of spheres equals brute force: %g", err);

  /* Zhu--Bridson vs brute force */
  double R = 2.5 * r;
  CHECK(tide_sdf_particles_zhu_bridson(&g, np, x, r, R, 0, phi) == TIDE_OK, "zhu-bridson");
  err = 0;
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 30; j++) {
      double c[3];
      tide_grid_sample_pos(&g, TIDE_AT_CELLS, i, j, 0, c);
      double sw = 0, sx = 0, sy = 0, best = INFINITY, rch = 3 * g.dx + R;
      for (int64_t p = 0; p < np; p++) {
        double d = hypot(x[2 * p] - c[0], x[2 * p + 1] - c[1]);
        if (d < best) best = d;
        if (d < R) {
          double t = 1 - d * d / (R * R), w = t * t * t;
          sw += w, sx += w * x[2 * p], sy += w * x[2 * p + 1];
        }
      }
      double ref =
          sw > 0 ? hypot(sx / sw - c[0], sy / sw - c[1]) - r : (best < rch ? best : rch) - r;
      double e = fabs(phi[tide_grid_idx(&g, i, j, 0)] - ref);
      if (e > err) err = e;
    }
  CHECK(err < 1e-13, "Zhu-Bridson equals brute force: %g", err);

  /* thread independence */
  omp_set_num_threads(1);
  tide_sdf_particles_zhu_bridson(&g, np, x, r, R, 0, phi1);
  omp_set_num_threads(2);
  CHECK(memcmp(phi, phi1, nc * sizeof(double)) == 0, "bit-identical with 1 and 2 threads");

  /* the same particles stored in cell order (the buckets are then ranges of
   * x itself, no copy): the same level sets */
  double *xs = malloc(np * 2 * sizeof(double)), *phi2 = malloc(nc * sizeof(double));
  int64_t m = 0;
  for (int64_t c = 0; c < nc; c++)
    for (int64_t p = 0; p < np; p++)
      if (tide_grid_idx(&g, (int)(x[2 * p] / g.dx), (int)(x[2 * p + 1] / g.dx), 0) == c)
        xs[2 * m] = x[2 * p], xs[2 * m + 1] = x[2 * p + 1], m++;
  CHECK(m == np, "sorted copy holds every particle");
  tide_sdf_particles_zhu_bridson(&g, np, xs, r, R, 0, phi2);
  err = 0;
  for (int64_t c = 0; c < nc; c++) err = fmax(err, fabs(phi2[c] - phi[c]));
  CHECK(err < 1e-14, "Zhu-Bridson from cell-ordered particles: %g", err);
  tide_sdf_particles_union(&g, np, x, r, reach, phi1);
  tide_sdf_particles_union(&g, np, xs, r, reach, phi2);
  CHECK(memcmp(phi1, phi2, nc * sizeof(double)) == 0, "union from cell-ordered particles is bit-identical");
  /* the caller's cell starts: trusted, checked; a stale one is found */
  int64_t *cs = calloc(nc + 1, sizeof(int64_t));
  for (int64_t p = 0; p < np; p++) cs[tide_grid_idx(&g, (int)(xs[2 * p] / g.dx), (int)(xs[2 * p + 1] / g.dx), 0) + 1]++;
  for (int64_t c = 0; c < nc; c++) cs[c + 1] += cs[c];
  CHECK(tide_sdf_particles_binned(&g, np, xs, cs, r, 0, reach, phi2) == TIDE_OK &&
            memcmp(phi1, phi2, nc * sizeof(double)) == 0, "union from the caller's cell starts");
  double keep = xs[2 * 40];
  xs[2 * 40] += 5 * g.dx; /* particle 40 leaves its cell: the starts are stale */
  tide_sdf_particles_union(&g, np, xs, r, reach, phi1);
  CHECK(tide_sdf_particles_binned(&g, np, xs, cs, r, 0, reach, phi2) == TIDE_OK &&
            memcmp(phi1, phi2, nc * sizeof(double)) == 0, "stale cell starts found, result as from scratch");
  xs[2 * 40] = NAN;
  CHECK(tide_sdf_particles_binned(&g, np, xs, cs, r, 0, reach, phi2) == TIDE_ENONFINITE, "non-finite particle rejected");
  xs[2 * 40] = keep;
  free(cs);
  /* a reach of 12 cells: searched by shells instead of the sorted table */
  double far = 12 * g.dx;
  CHECK(tide_sdf_particles_union(&g, np, xs, r, far, phi2) == TIDE_OK, "far reach");
  err = 0;
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 30; j++) {
      double c[3], best = INFINITY;
      tide_grid_sample_pos(&g, TIDE_AT_CELLS, i, j, 0, c);
      for (int64_t p = 0; p < np; p++) best = fmin(best, hypot(x[2 * p] - c[0], x[2 * p + 1] - c[1]));
      err = fmax(err, fabs(phi2[tide_grid_idx(&g, i, j, 0)] - ((best < far ? best : far) - r)));
    }
  CHECK(err < 1e-14, "union with a 12-cell reach equals brute force: %g", err);
  free(xs);
  free(phi2);

  /* a lattice of particles (spacing h, incommensurate with dx) filling
   * y < 0.4: the Zhu-Bridson zero level is flat, the union of spheres has
   * bumps of the lattice period */
  double h = .0137;
  int64_t nl = 0;
  x = realloc(x, 80 * 30 * 2 * sizeof(double));
  for (int i = 0; i < 80; i++)
    for (int j = 0; j < 30; j++)
      x[2 * nl] = (i + .5) * h, x[2 * nl + 1] = (j + .5) * h, nl++;
  double rr = h * 0.9;
  CHECK(tide_sdf_particles_zhu_bridson(&g, nl, x, rr, 3 * h, 0, phi) == TIDE_OK, "flat");
  tide_sdf_particles_union(&g, nl, x, rr, 0, phi1);
  double zmin = INFINITY, zmax = -INFINITY, umin = INFINITY, umax = -INFINITY;
  int jrow = (int)(30 * h / g.dx); /* the cell row just above the top particles */
  for (int i = 5; i < 35; i++) {   /* away from the side walls of the lattice */
    double v = phi[tide_grid_idx(&g, i, jrow, 0)], w = phi1[tide_grid_idx(&g, i, jrow, 0)];
    zmin = fmin(zmin, v), zmax = fmax(zmax, v), umin = fmin(umin, w), umax = fmax(umax, w);
  }
  printf("flat layer: Zhu-Bridson spread %.3g, union of spheres spread %.3g (dx %g)\n", zmax - zmin,
         umax - umin, g.dx);
  CHECK(zmax - zmin < 0.2 * (umax - umin), "Zhu-Bridson flatter than the union: %g vs %g",
        zmax - zmin, umax - umin);
  CHECK(tide_sdf_particles_union(&g, nl, x, 0, 0, phi) == TIDE_EINVAL, "zero radius");
  x[3] = NAN;
  CHECK(tide_sdf_particles_union(&g, nl, x, rr, 0, phi) == TIDE_ENONFINITE, "NaN particle");
  free(x);
  free(phi);
  free(phi1);
}

int main(void) {
  int64_t base = tide_mem_bytes();
  test_primitives();
  test_meshes();
  test_particles();
  CHECK(tide_mem_bytes() == base, "all memory returned (%lld left)",
        (long long)(tide_mem_bytes() - base));
  return check_report();
}
