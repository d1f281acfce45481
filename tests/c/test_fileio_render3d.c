/* test_fileio_render3d.c -- marching cubes (watertight, oriented, accurate)
 * and the 3D renderer (projection, depth order, shading, determinism). */
#include "check.h"
#include "fileio/fileio.h"

#include <stdlib.h>
#include <string.h>

typedef struct edge {
  int32_t a, b;
} edge;
static int edge_cmp(const void *x, const void *y) {
  const edge *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return 0;
}

/* every undirected edge used by exactly two triangles, in opposite directions */
static int watertight(const tide_array *T) {
  int64_t nt = T->shape[0];
  const int32_t *t = TIDE_I32P(T);
  edge *e = malloc(sizeof(edge) * 3 * (size_t)nt);
  for (int64_t k = 0; k < nt; k++)
    for (int q = 0; q < 3; q++)
      e[3 * k + q] = (edge){t[3 * k + q], t[3 * k + (q + 1) % 3]};
  /* directed edges must be unique, and each must have its reverse */
  qsort(e, 3 * (size_t)nt, sizeof(edge), edge_cmp);
  int bad = 0;
  for (int64_t k = 0; k < 3 * nt; k++) {
    if (k && !edge_cmp(&e[k], &e[k - 1])) bad++;
    edge r = {e[k].b, e[k].a};
    if (!bsearch(&r, e, 3 * (size_t)nt, sizeof(edge), edge_cmp)) bad++;
  }
  free(e);
  return bad;
}

static double signed_volume(const tide_array *V, const tide_array *T) {
  const double *v = TIDE_F64P(V);
  const int32_t *t = TIDE_I32P(T);
  double vol = 0;
  for (int64_t k = 0; k < T->shape[0]; k++) {
    const double *a = v + 3 * t[3 * k], *b = v + 3 * t[3 * k + 1], *c = v + 3 * t[3 * k + 2];
    vol += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) /
           6;
  }
  return vol;
}

static void test_sphere(void) {
  int n = 32;
  double dx = 1.0 / n, R = 0.3;
  double *phi = malloc(sizeof(double) * n * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        double x = (i + 0.5) * dx - 0.5, y = (j + 0.5) * dx - 0.5, z = (k + 0.5) * dx - 0.5;
        phi[(i * n + j) * n + k] = sqrt(x * x + y * y + z * z) - R;
      }
  tide_field3d f = {{n, n, n}, dx, {-0.5, -0.5, -0.5}, phi};
  tide_array *V, *N, *T;
  CHECK(tide_isosurface(&f, 0, 1, &V, &N, &T) == TIDE_OK, "isosurface: %s", tide_errmsg());
  int64_t nv = V->shape[0];
  double maxr = 0, maxn = 0;
  for (int64_t k = 0; k < nv; k++) {
    const double *p = TIDE_F64P(V) + 3 * k, *q = TIDE_F64P(N) + 3 * k;
    double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    maxr = fmax(maxr, fabs(r - R));
    double c = (p[0] * q[0] + p[1] * q[1] + p[2] * q[2]) / r;
    maxn = fmax(maxn, 1 - c);
  }
  printf("sphere: %lld vertices, %lld triangles, max |r - R| = %.2e, max 1 - cos(normal) = %.2e\n",
         (long long)nv, (long long)T->shape[0], maxr, maxn);
  CHECK(maxr < 0.25 * dx * dx / R + 1e-12, "vertices off the sphere by %g", maxr);
  CHECK(maxn < 1e-2, "normals radial within %g", maxn);
  CHECK(watertight(T) == 0, "closed, consistently oriented surface (%d bad edges)", watertight(T));
  double vol = signed_volume(V, T), exact = 4.0 / 3.0 * M_PI * R * R * R;
  CHECK(fabs(vol - exact) < 0.01 * exact, "volume %g vs %g (outward orientation)", vol, exact);
  tide_array_release(V);
  tide_array_release(N);
  tide_array_release(T);

  /* liquid touching the borders is closed on the domain walls: a slab
   * y < 0.3 fills the box below, volume 1 x 0.3 x 1 */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        phi[(i * n + j) * n + k] = (j + 0.5) * dx - 0.5 - (0.3 - 0.5);
  CHECK(tide_isosurface(&f, 0, 1, &V, &N, &T) == TIDE_OK, "slab");
  CHECK(watertight(T) == 0, "slab closed on the walls");
  /* exact but for the chamfers marching cubes cuts along the 12 box edges,
   * each at most dx^2 / 8 in cross-section */
  CHECK(fabs(signed_volume(V, T) - 0.3) < 12 * dx * dx / 8, "slab volume %.6f vs 0.3",
        signed_volume(V, T));
  tide_array_release(V);
  tide_array_release(N);
  tide_array_release(T);
  /* without closing: an open sheet, no volume check, but no crossing at walls */
  CHECK(tide_isosurface(&f, 0, 0, &V, &N, &T) == TIDE_OK, "open slab");
  CHECK(T->shape[0] == 2 * (n - 1) * (n - 1), "open slab: %lld triangles", (long long)T->shape[0]);
  tide_array_release(V);
  tide_array_release(N);
  tide_array_release(T);

  /* saddle-rich random field: still watertight */
  for (int64_t q = 0; q < (int64_t)n * n * n; q++)
    phi[q] = tide_rand01(7, (uint64_t)q) - 0.5;
  CHECK(tide_isosurface(&f, 0, 1, &V, &N, &T) == TIDE_OK, "random");
  CHECK(watertight(T) == 0, "random field surface watertight (%d bad edges)", watertight(T));
  tide_array_release(V);
  tide_array_release(N);
  tide_array_release(T);
  phi[5] = NAN;
  CHECK(tide_isosurface(&f, 0, 1, &V, &N, &T) == TIDE_ENONFINITE, "NaN rejected");
  free(phi);
}

/* a unit sphere mesh as an isosurface, rendered head-on */
static void test_render(void) {
  int n = 24;
  double dx = 2.4 / n;
  double *phi = malloc(sizeof(double) * n * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        double x = (i + 0.5) * dx - 1.2, y = (j + 0.5) * dx - 1.2, z = (k + 0.5) * dx - 1.2;
        phi[(i * n + j) * n + k] = sqrt(x * x + y * y + z * z) - 1;
      }
  tide_field3d f = {{n, n, n}, dx, {-1.2, -1.2, -1.2}, phi};
  tide_array *V, *N, *T;
  tide_isosurface(&f, 0, 1, &V, &N, &T);
  tide_mesh3d m;
  memset(&m, 0, sizeof m);
  m.nv = V->shape[0], m.v = TIDE_F64P(V), m.n = TIDE_F64P(N), m.nt = T->shape[0],
  m.t = TIDE_I32P(T);
  m.color[0] = 1, m.color[1] = 0, m.color[2] = 0;
  tide_render3d r;
  tide_render3d_defaults(&r);
  r.width = 120, r.height = 100;
  r.nmesh = 1, r.mesh = &m;
  r.cam.pos[2] = 5; /* camera on +z looking at the origin */
  r.cam.fov = 40;
  r.nlight = 1;
  r.light_dir[0][0] = 0, r.light_dir[0][1] = 0, r.light_dir[0][2] = 1;
  r.light_color[0][0] = r.light_color[0][1] = r.light_color[0][2] = 1;
  r.ambient = 0;
  r.shadows = 0;
  for (int d = 0; d < 3; d++)
    r.bg_top[d] = r.bg_bottom[d] = 0.5f;
  tide_canvas *c;
  CHECK(tide_render3d_draw(&r, &c) == TIDE_OK, "render: %s", tide_errmsg());
  /* centre: normal facing the light and the viewer: albedo + specular */
  const float *mid = c->rgb + 3 * (50 * 120 + 60);
  CHECK(mid[0] > 0.95f && mid[1] < 0.7f, "lit centre is red: %g %g %g", mid[0], mid[1], mid[2]);
  /* the silhouette: sphere of radius 1 at distance 5, fov 40: radius in
   * pixels = f * tan(asin(1/5)) with f = 50 / tan(20 deg) */
  double f_px = 50 / tan(20 * M_PI / 180), rpx = f_px * tan(asin(0.2));
  int inside = (int)(rpx - 2), outside = (int)(rpx + 2);
  const float *in = c->rgb + 3 * (50 * 120 + 60 + inside);
  const float *out = c->rgb + 3 * (50 * 120 + 60 + outside);
  CHECK(in[1] < 0.2f && in[0] > 0.05f, "inside the silhouette (r = %.1f px): %g %g %g", rpx, in[0],
        in[1], in[2]);
  CHECK(fabsf(out[0] - 0.5f) < 1e-6f && fabsf(out[1] - 0.5f) < 1e-6f, "background outside: %g %g",
        out[0], out[1]);
  /* Lambert falloff: at 60 percent of the radius the light is weaker */
  const float *off = c->rgb + 3 * (50 * 120 + 60 + (int)(0.6 * rpx));
  CHECK(off[0] < mid[0] && off[0] > 0.5f, "Lambert falloff %g < %g", off[0], mid[0]);

  /* a particle in front of the sphere hides it (depth test) */
  double pp[3] = {0, 0, 2};
  r.np = 1, r.pp = pp, r.pradius = 0.1;
  r.prgb[0] = 0, r.prgb[1] = 1, r.prgb[2] = 0;
  tide_canvas *c2;
  CHECK(tide_render3d_draw(&r, &c2) == TIDE_OK, "render with a particle");
  const float *pm = c2->rgb + 3 * (50 * 120 + 60);
  CHECK(pm[1] > 0.8f && pm[0] < 0.5f, "particle in front: %g %g %g", pm[0], pm[1], pm[2]);
  tide_canvas_free(c2);
  /* the same particle behind the sphere is hidden */
  pp[2] = -2;
  CHECK(tide_render3d_draw(&r, &c2) == TIDE_OK, "render with a hidden particle");
  pm = c2->rgb + 3 * (50 * 120 + 60);
  CHECK(pm[0] > 0.95f, "particle behind is hidden: %g %g %g", pm[0], pm[1], pm[2]);
  tide_canvas_free(c2);

  /* full scene (ground, box, shadows, 2 lights): same picture for 1 and 2 threads */
  tide_render3d_defaults(&r);
  r.width = 160, r.height = 120;
  r.nmesh = 1, r.mesh = &m;
  r.ground = 1, r.ground_y = -1.2;
  r.box = 1;
  for (int d = 0; d < 3; d++)
    r.box_lo[d] = -1.2, r.box_hi[d] = 1.2;
  tide_camera3d_frame(&r.cam, r.box_lo, r.box_hi, 35, 160.0 / 120);
  tide_canvas *a, *b;
  tide_threads_set(1);
  CHECK(tide_render3d_draw(&r, &a) == TIDE_OK, "1 thread");
  tide_threads_set(2);
  CHECK(tide_render3d_draw(&r, &b) == TIDE_OK, "2 threads");
  CHECK(!memcmp(a->rgb, b->rgb, sizeof(float) * 3 * 160 * 120),
        "identical pictures for 1 and 2 threads");
  tide_canvas_free(a);
  tide_canvas_free(b);
  /* bad input */
  r.cam.pos[0] = r.cam.target[0], r.cam.pos[1] = r.cam.target[1], r.cam.pos[2] = r.cam.target[2];
  CHECK(tide_render3d_draw(&r, &a) == TIDE_EINVAL, "camera at its target rejected");
  tide_canvas_free(c);
  tide_array_release(V);
  tide_array_release(N);
  tide_array_release(T);
  free(phi);
}

int main(void) {
  test_sphere();
  test_render();
  return check_report();
}
