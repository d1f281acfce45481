/* test_grid_fractions.c -- open face fractions of a solid level set at the
 * nodes (Zarifi Fig. 5.2): exact for planar solids in 2D and 3D, clamping,
 * solid cell labels. */
#include "check.h"
#include "grid/grid.h"
#include "grid/sdf.h"

#include <math.h>

/* exact open (phi > 0) fraction of the face of axis a at face index (i,j,k)
 * for phi = n.x - d, by fine quadrature */
static double reference(const tide_grid *g, int a, int i, int j, int k, const double n[3], double d) {
  int b = (a + 1) % g->dim, c = (a + 2) % 3, m = 400;
  double open = 0;
  for (int s = 0; s < m; s++)
    for (int t = 0; t < (g->dim == 3 ? m : 1); t++) {
      double x[3] = {g->origin[0] + i * g->dx, g->origin[1] + j * g->dx, g->origin[2] + k * g->dx};
      x[b] += (s + 0.5) / m * g->dx;
      if (g->dim == 3) x[c] += (t + 0.5) / m * g->dx;
      double phi = n[0] * x[0] + n[1] * x[1] + (g->dim == 3 ? n[2] * x[2] : 0) - d;
      open += phi > 0;
    }
  return open / (g->dim == 3 ? (double)m * m : m);
}

static void planar(int dim) {
  tide_grid g;
  int n[3] = {6, 7, 5};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, dim, n, 0.1, org);
  double nn[3] = {0.48, 0.8, dim == 3 ? 0.36 : 0}, len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
  for (int d = 0; d < 3; d++) nn[d] /= len;
  double dist = 0.37;
  int64_t shape[3] = {n[0] + 1, n[1] + 1, n[2] + 1};
  tide_array *nodes = tide_array_new(TIDE_F64, dim, shape);
  double *ph = TIDE_F64P(nodes);
  int nk = dim == 3 ? n[2] + 1 : 1;
  for (int i = 0; i <= n[0]; i++)
    for (int j = 0; j <= n[1]; j++)
      for (int k = 0; k < nk; k++)
        ph[((int64_t)i * (n[1] + 1) + j) * nk + k] = nn[0] * i * 0.1 + nn[1] * j * 0.1 + nn[2] * k * 0.1 - dist;
  tide_mac *fr;
  tide_mac_new(&g, TIDE_F64, &fr);
  tide_array *sol = tide_grid_cell_array(&g, TIDE_U8);
  CHECK(tide_mac_face_fractions(&g, nodes, 0, 1, fr, sol) == TIDE_OK, "fractions");
  double err = 0;
  int partial = 0;
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(&g, a, fd);
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          double f = TIDE_F64P(fr->u[a])[((int64_t)i * fd[1] + j) * fd[2] + k];
          err = fmax(err, fabs(f - reference(&g, a, i, j, k, nn, dist)));
          partial += f > 0 && f < 1;
        }
  }
  CHECK(partial > 5 && err < 5e-3, "%dD planar solid: %d cut faces, max error %g (quadrature 1/400)", dim, partial, err);
  /* cells entirely below the plane are solid */
  CHECK(TIDE_U8P(sol)[0] == TIDE_CELL_SOLID, "corner cell solid");
  CHECK(TIDE_U8P(sol)[tide_grid_ncells(&g) - 1] == TIDE_CELL_AIR, "far cell open");
  /* clamping: nothing strictly between 0 and 0.01 or 0.99 and 1 */
  CHECK(tide_mac_face_fractions(&g, nodes, 0.01, 0.99, fr, NULL) == TIDE_OK, "clamped");
  int bad = 0;
  for (int a = 0; a < dim; a++) {
    int64_t nf = tide_array_size(fr->u[a]);
    for (int64_t f = 0; f < nf; f++) {
      double v = TIDE_F64P(fr->u[a])[f];
      bad += (v > 0 && v < 0.01) || (v > 0.99 && v < 1);
    }
  }
  CHECK(bad == 0, "clamped fractions: %d in the clamp bands", bad);
  CHECK(tide_mac_face_fractions(&g, nodes, 0.5, 0.2, fr, NULL) == TIDE_EINVAL, "inverted clamp rejected");
  tide_array_release(nodes);
  tide_array_release(sol);
  tide_mac_free(fr);
}


/* a disk / sphere solid: the adaptively clipped areas converge to the exact
 * ones (reference: 2000-point quadrature per face axis) */
static void curved(int dim) {
  tide_grid g;
  int n[3] = {10, 10, 10};
  double org[3] = {0, 0, 0};
  tide_grid_init(&g, dim, n, 0.1, org);
  double c[3] = {0.47, 0.52, 0.49};
  tide_shape *s;
  tide_shape_sphere(dim, c, 0.33, &s);
  tide_mac *f0, *f5;
  tide_mac_new(&g, TIDE_F64, &f0);
  tide_mac_new(&g, TIDE_F64, &f5);
  CHECK(tide_mac_face_fractions_shape(&g, s, 0, 0, 1, f0, NULL) == TIDE_OK, "depth 0");
  CHECK(tide_mac_face_fractions_shape(&g, s, 5, 0, 1, f5, NULL) == TIDE_OK, "depth 5");
  double e0 = 0, e5 = 0;
  int m = dim == 3 ? 200 : 2000, cut = 0;
  for (int a = 0; a < dim; a++) {
    int fd[3];
    tide_grid_face_dims(&g, a, fd);
    int b = (a + 1) % dim, cc = (a + 2) % 3;
    for (int i = 0; i < fd[0]; i++)
      for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
          int64_t f = ((int64_t)i * fd[1] + j) * fd[2] + k;
          double v0 = TIDE_F64P(f0->u[a])[f], v5 = TIDE_F64P(f5->u[a])[f];
          if (v5 == 0 || v5 == 1) continue;
          cut++;
          double open = 0;
          for (int p = 0; p < m; p++)
            for (int q = 0; q < (dim == 3 ? m : 1); q++) {
              double x[3] = {i * 0.1, j * 0.1, k * 0.1};
              x[b] += (p + 0.5) / m * 0.1;
              if (dim == 3) x[cc] += (q + 0.5) / m * 0.1;
              open += tide_shape_eval(s, x) < 0; /* the sphere is the solid here: open outside */
            }
          open = 1 - open / (dim == 3 ? (double)m * m : m);
          e0 = fmax(e0, fabs(v0 - open));
          e5 = fmax(e5, fabs(v5 - open));
        }
  }
  printf("%dD sphere: %d cut faces, max error node-based %.3g, clipped (depth 5) %.3g\n", dim, cut, e0, e5);
  CHECK(cut > 10 && e5 < 2e-3 && e5 < e0 / 5, "%dD sphere: %d cut faces, node-based error %g, clipped (depth 5) %g", dim,
        cut, e0, e5);
  tide_mac_free(f0);
  tide_mac_free(f5);
  tide_shape_release(s);
}

int main(void) {
  planar(2);
  planar(3);
  curved(2);
  curved(3);
  return check_report();
}
