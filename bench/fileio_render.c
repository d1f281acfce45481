/* bench/fileio_render.c -- time of a 640x480 3D frame of a 64^3 scene
 * (marching cubes of a level set + 20k particles + ground, box, shadows,
 * 2x2 supersampling), next to the time of one pass of memory traffic over the
 * supersampled G-buffer measured in the same run (the floor of any renderer
 * that writes it). */
#include "fileio/fileio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  int n = 64;
  double dx = 1.0 / n;
  double *phi = malloc(sizeof(double) * n * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        double x = (i + 0.5) * dx, y = (j + 0.5) * dx, z = (k + 0.5) * dx;
        double pool = y - 0.25 - 0.03 * sin(12 * x) * cos(9 * z);
        double drop =
            sqrt((x - 0.5) * (x - 0.5) + (y - 0.62) * (y - 0.62) + (z - 0.5) * (z - 0.5)) - 0.15;
        phi[(i * n + j) * n + k] = fmin(pool, drop);
      }
  int64_t np = 20000;
  double *pp = malloc(sizeof(double) * 3 * np);
  for (int64_t p = 0; p < np; p++)
    for (int d = 0; d < 3; d++)
      pp[3 * p + d] = tide_rand01((uint64_t)d, (uint64_t)p) * (d == 1 ? 0.25 : 1);
  tide_field3d f = {{n, n, n}, dx, {0, 0, 0}, phi};
  int reps = 5;
  double t_iso = 0, t_render = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = tide_wtime();
    tide_array *V, *N, *T;
    if (tide_isosurface(&f, 0, 1, &V, &N, &T)) return 1;
    double t1 = tide_wtime();
    tide_mesh3d m;
    memset(&m, 0, sizeof m);
    m.nv = V->shape[0], m.v = TIDE_F64P(V), m.n = TIDE_F64P(N), m.nt = T->shape[0],
    m.t = TIDE_I32P(T);
    m.color[0] = 0.22f, m.color[1] = 0.5f, m.color[2] = 0.92f;
    m.specular = 0.6f, m.shininess = 60;
    tide_render3d rs;
    tide_render3d_defaults(&rs);
    rs.nmesh = 1, rs.mesh = &m;
    rs.np = np, rs.pp = pp, rs.pradius = 0.004;
    rs.ground = 1, rs.box = 1;
    for (int d = 0; d < 3; d++)
      rs.box_lo[d] = 0, rs.box_hi[d] = 1;
    tide_camera3d_frame(&rs.cam, rs.box_lo, rs.box_hi, 35, 640.0 / 480);
    tide_canvas *c;
    if (tide_render3d_draw(&rs, &c)) return 1;
    double t2 = tide_wtime();
    if (r == 0) printf("surface: %lld triangles\n", (long long)T->shape[0]);
    if (r > 0) t_iso += t1 - t0, t_render += t2 - t1; /* first run warms up */
    tide_canvas_free(c);
    tide_array_release(V);
    tide_array_release(N);
    tide_array_release(T);
  }
  /* bound: writing + reading the 1280x960 G-buffer (depth, normal, albedo,
   * specular: 9 floats) and the colour buffer once */
  size_t ns = 1280 * 960, fl = ns * 12;
  float *buf = malloc(fl * sizeof(float));
  double t0 = tide_wtime();
  for (int r = 0; r < 4; r++) {
#pragma omp parallel for
    for (size_t k = 0; k < fl; k++)
      buf[k] = (float)k * 0.5f + (float)r;
  }
  double tb = (tide_wtime() - t0) / 4;
  double s = 0;
  for (size_t k = 0; k < fl; k += 4096)
    s += buf[k];
  printf("threads %d: isosurface %.3f s, render 640x480 (2x2 AA, shadows) %.3f s, frame total %.3f "
         "s\n",
         tide_threads_get(), t_iso / (reps - 1), t_render / (reps - 1),
         (t_iso + t_render) / (reps - 1));
  printf("bound: one write pass over the G-buffer and colour buffer %.4f s (checksum %g)\n", tb, s);
  free(buf);
  free(pp);
  free(phi);
  return 0;
}
