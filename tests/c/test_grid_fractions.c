/* test_grid_fractions.c -- open face fractions of a solid level set at the
 * nodes (Zarifi Fig. 5.2): exact for planar solids in 2D and 3D, clamping,
 * solid cell labels. */
#include "check.h"
#include "grid/grid.h"

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

int main(void) {
  planar(2);
  planar(3);
  return check_report();
}
