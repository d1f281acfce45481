/* test_solid_mesh.c -- meshes: generators (box, BCC cut by SDFs with
 * snapping, 2D and 3D), VTK orientation, boundary extraction with outward
 * normals (divergence theorem), lumped mass, and the readers (TetGen, Gmsh
 * v2/v4, OBJ) on good and malformed files. */
#include "check.h"
#include "solid/fem.h"
#include "grid/sdf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* divergence theorem on the boundary: sum a n = 0, sum a (x . n) = d V */
static void check_boundary(const tide_tetmesh *m, const char *what) {
  int d = m->dim;
  size_t nb = (size_t)m->nb;
  double *n = malloc(nb * (size_t)d * sizeof(double)), *a = malloc(nb * sizeof(double));
  tide_tetmesh_boundary_normals(m, TIDE_F64P(m->x), n, a);
  double s[3] = {0, 0, 0}, flux = 0, area = 0;
  const int32_t *b = TIDE_I32P(m->bound);
  const double *x = TIDE_F64P(m->x);
  for (int64_t f = 0; f < m->nb; f++) {
    double c[3] = {0, 0, 0};
    for (int q = 0; q < d; q++)
      for (int k = 0; k < d; k++) c[k] += x[(int64_t)b[f * d + q] * d + k] / d;
    for (int k = 0; k < d; k++) {
      s[k] += a[f] * n[f * d + k];
      flux += a[f] * n[f * d + k] * c[k];
    }
    area += a[f];
  }
  double V = 1.0 / 6; /* surfaces in this test enclose the unit tetrahedron */
  if (!m->surface) tide_tetmesh_total_volume(m, x, &V);
  for (int k = 0; k < d; k++) CHECK(fabs(s[k]) <= 1e-10 * area, "%s: closed boundary", what);
  CHECK(fabs(flux - d * V) <= 1e-10 * fabs(d * V), "%s: outward normals (flux %g vs %g)", what,
        flux, d * V);
  if (m->surface) {
    free(n);
    free(a);
    return;
  }
  /* all elements positively oriented (VTK order) */
  double *vol = malloc((size_t)m->ne * sizeof(double));
  tide_tetmesh_volumes(m, x, vol);
  int pos = 1;
  for (int64_t e = 0; e < m->ne; e++) pos &= vol[e] > 0;
  CHECK(pos, "%s: positively oriented elements", what);
  free(vol);
  free(n);
  free(a);
}

static void test_generators(void) {
  double lo[3] = {0, 0, 0}, hi[3] = {2, 1, 0.5};
  int n[3] = {4, 2, 1};
  tide_tetmesh *m;
  CHECK(tide_mesh_box(3, lo, hi, n, &m) == TIDE_OK, "box 3D");
  CHECK(m->ne == 48 && m->nv == 30 && m->nb == 2 * (8 + 4 + 2) * 2, "box counts: %lld %lld %lld",
        (long long)m->ne, (long long)m->nv, (long long)m->nb);
  double V;
  tide_tetmesh_total_volume(m, TIDE_F64P(m->x), &V);
  CHECK_NEAR(V, 1.0, 1e-12);
  check_boundary(m, "box 3D");
  tide_material mat = tide_material_default(TIDE_MODEL_NEOHOOKEAN, 1e4, 1e4);
  CHECK(tide_fem_attach(m, &mat, 1000) == TIDE_OK, "attach");
  double mass = 0;
  for (int64_t i = 0; i < m->nv; i++) mass += TIDE_F64P(m->fem->mass)[i];
  CHECK_NEAR(mass, 1000.0, 1e-9);
  tide_tetmesh_free(m);

  CHECK(tide_mesh_box(2, lo, hi, n, &m) == TIDE_OK, "box 2D");
  CHECK(m->ne == 16 && m->nv == 15 && m->nb == 12, "box 2D counts");
  check_boundary(m, "box 2D");
  tide_tetmesh_free(m);

  /* BCC shapes */
  double c[3] = {0, 0, 0}, bl[3] = {-1.1, -1.1, -1.1}, bh[3] = {1.1, 1.1, 1.1}, ax[3] = {0, 1, 0};
  tide_shape *sph, *inner, *shell, *tor, *box, *csg;
  tide_shape_sphere(3, c, 1.0, &sph);
  CHECK(tide_mesh_bcc(3, sph, bl, bh, 0.15, 0.1, &m) == TIDE_OK, "bcc sphere");
  tide_tetmesh_total_volume(m, TIDE_F64P(m->x), &V);
  CHECK(fabs(V / (4.0 / 3 * M_PI) - 1) < 0.03, "bcc sphere volume %g vs %g", V, 4.0 / 3 * M_PI);
  check_boundary(m, "bcc sphere");
  /* snapping: boundary nodes on the sphere */
  {
    uint8_t *bn = malloc((size_t)m->nv);
    tide_tetmesh_boundary_nodes(m, bn);
    double worst = 0;
    int64_t cnt = 0, on = 0;
    for (int64_t i = 0; i < m->nv; i++)
      if (bn[i]) {
        double ph = fabs(tide_shape_eval(sph, TIDE_F64P(m->x) + 3 * i));
        worst = fmax(worst, ph);
        cnt++;
        on += ph < 1e-6;
      }
    CHECK(on >= 0.7 * cnt, "most boundary nodes snapped onto the surface (%lld of %lld)",
          (long long)on, (long long)cnt);
    CHECK(worst < 0.4 * 0.15, "the others (kept back by the quality floor) within 0.4 h: %g", worst);
    free(bn);
  }
  tide_tetmesh_free(m);
  tide_shape_sphere(3, c, 0.6, &inner);
  tide_shape_csg(TIDE_SHAPE_DIFFERENCE, sph, inner, &shell);
  CHECK(tide_mesh_bcc(3, shell, bl, bh, 0.1, 0.1, &m) == TIDE_OK, "bcc hollow shell");
  tide_tetmesh_total_volume(m, TIDE_F64P(m->x), &V);
  double Vs = 4.0 / 3 * M_PI * (1 - 0.216);
  CHECK(fabs(V / Vs - 1) < 0.04, "shell volume %g vs %g", V, Vs);
  check_boundary(m, "bcc shell");
  tide_tetmesh_free(m);
  tide_shape_torus(3, c, ax, 0.7, 0.3, &tor);
  CHECK(tide_mesh_bcc(3, tor, bl, bh, 0.08, 0.1, &m) == TIDE_OK, "bcc torus");
  tide_tetmesh_total_volume(m, TIDE_F64P(m->x), &V);
  double Vt = 2 * M_PI * M_PI * 0.7 * 0.09;
  CHECK(fabs(V / Vt - 1) < 0.04, "torus volume %g vs %g", V, Vt);
  check_boundary(m, "bcc torus");
  tide_tetmesh_free(m);
  double blo[3] = {-0.5, -0.5, -0.5}, bhi[3] = {0.5, 0.5, 0.5};
  tide_shape_box(3, blo, bhi, &box);
  tide_shape_csg(TIDE_SHAPE_UNION, box, tor, &csg);
  double lo2[3], hi2[3];
  CHECK(tide_shape_bounds(csg, lo2, hi2) && fabs(hi2[0] - 1.0) < 1e-12, "CSG bounds");
  CHECK(tide_mesh_bcc(3, csg, bl, bh, 0.1, 0.1, &m) == TIDE_OK, "bcc CSG union");
  check_boundary(m, "bcc csg");
  tide_tetmesh_free(m);
  tide_shape_release(csg);
  tide_shape_release(box);
  tide_shape_release(tor);
  tide_shape_release(shell);
  tide_shape_release(inner);
  tide_shape_release(sph);

  /* 2D: disk and annulus */
  tide_shape *disk, *ring;
  tide_shape_sphere(2, c, 1.0, &disk);
  CHECK(tide_mesh_bcc(2, disk, bl, bh, 0.05, 0.1, &m) == TIDE_OK, "bcc disk");
  tide_tetmesh_total_volume(m, TIDE_F64P(m->x), &V);
  CHECK(fabs(V / M_PI - 1) < 0.01, "disk area %g", V);
  check_boundary(m, "bcc disk");
  tide_tetmesh_free(m);
  tide_shape_torus(2, c, NULL, 0.7, 0.2, &ring);
  CHECK(tide_mesh_bcc(2, ring, bl, bh, 0.04, 0.1, &m) == TIDE_OK, "bcc annulus");
  tide_tetmesh_total_volume(m, TIDE_F64P(m->x), &V);
  double Va = M_PI * (0.81 - 0.25);
  CHECK(fabs(V / Va - 1) < 0.02, "annulus area %g vs %g", V, Va);
  check_boundary(m, "bcc annulus");
  tide_tetmesh_free(m);
  tide_shape_release(ring);
  tide_shape_release(disk);
}

static char dir[256];

static const char *write_file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

/* expect failure with a message containing `want` */
static void expect_err(int st, const char *want, const char *what) {
  CHECK(st != TIDE_OK, "%s: should fail", what);
  if (st != TIDE_OK) CHECK(strstr(tide_errmsg(), want) != NULL, "%s: message '%s' lacks '%s'", what,
                           tide_errmsg(), want);
}

static const char *unit_node = "# a unit tetrahedron plus one\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
                               "4 0 0 1\n5 1 1 1\n";
static const char *unit_ele = "2 4 0\n1 1 2 3 4\n2 2 3 4 5\n";

static void test_readers(void) {
  tide_tetmesh *m = NULL;
  int mb0 = (int)tide_mem_bytes();
  /* TetGen */
  write_file("a.node", unit_node);
  write_file("a.ele", unit_ele);
  char p[600];
  snprintf(p, sizeof p, "%s/a", dir);
  CHECK(tide_mesh_read_tetgen(p, &m) == TIDE_OK, "tetgen read: %s", tide_errmsg());
  if (m) {
    CHECK(m->nv == 5 && m->ne == 2 && m->nb == 6, "tetgen counts");
    check_boundary(m, "tetgen");
    tide_tetmesh_free(m);
  }
  /* the second tet (2,3,4,5) is negatively oriented in the file: inverted */
  write_file("b.node", unit_node);
  write_file("b.ele", "2 4 0\n1 1 2 3 4\n2 2 4 3 5\n");
  snprintf(p, sizeof p, "%s/b.ele", dir);
  /* 2 3 4 5 is positive here; 2 4 3 5 negative -> mix of orientations */
  expect_err(tide_mesh_read_tetgen(p, &m), "b.ele:3: element 2 is inverted", "tetgen inverted");
  CHECK(m == NULL, "no half-built mesh");
  write_file("c.node", unit_node);
  write_file("c.ele", "1 4 0\n1 1 2 3 7\n");
  snprintf(p, sizeof p, "%s/c", dir);
  expect_err(tide_mesh_read_tetgen(p, &m), "c.ele:2: node index 7 outside 1..5", "tetgen index");
  write_file("d.node", "5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 nan 0 1\n5 1 1 1\n");
  write_file("d.ele", unit_ele);
  snprintf(p, sizeof p, "%s/d", dir);
  expect_err(tide_mesh_read_tetgen(p, &m), "d.node:5: non-finite", "tetgen NaN");
  write_file("e.node", "6 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n");
  write_file("e.ele", unit_ele);
  snprintf(p, sizeof p, "%s/e", dir);
  expect_err(tide_mesh_read_tetgen(p, &m), "e.node:6: file ends after 5 of 6 points", "tetgen count");
  write_file("f.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 0 1\n");
  write_file("f.ele", "1 4 0\n1 1 2 3 4\n");
  snprintf(p, sizeof p, "%s/f", dir);
  expect_err(tide_mesh_read_tetgen(p, &m), "f.ele:2: element 1 is degenerate", "tetgen degenerate");
  write_file("g.node", unit_node);
  write_file("g.ele", "3 4 0\n1 1 2 3 4\n2 2 3 4 5\n");
  snprintf(p, sizeof p, "%s/g", dir);
  expect_err(tide_mesh_read_tetgen(p, &m), "file ends after 2 of 3 elements", "tetgen ele count");
  snprintf(p, sizeof p, "%s/missing", dir);
  CHECK(tide_mesh_read_tetgen(p, &m) == TIDE_EIO, "missing file is an I/O error");
  /* Triangle 2D, 0-based */
  write_file("t.node", "4 2 0 0\n0 0 0\n1 1 0\n2 1 1\n3 0 1\n");
  write_file("t.ele", "2 3 0\n0 0 1 2\n1 0 2 3\n");
  snprintf(p, sizeof p, "%s/t", dir);
  CHECK(tide_mesh_read_tetgen(p, &m) == TIDE_OK, "triangle 2D: %s", tide_errmsg());
  if (m) {
    CHECK(m->dim == 2 && m->nb == 4, "2D counts");
    check_boundary(m, "triangle 2D");
    tide_tetmesh_free(m);
  }

  /* Gmsh v2 with a point element, a tet and node tags not starting at 1 */
  const char *v2 = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"body\"\n"
                   "$EndPhysicalNames\n$Nodes\n5\n10 0 0 0\n11 1 0 0\n12 0 1 0\n13 0 0 1\n"
                   "14 5 5 5\n$EndNodes\n$Elements\n3\n1 15 2 0 1 14\n2 4 2 1 1 10 11 12 13\n"
                   "3 2 2 0 1 10 11 12\n$EndElements\n";
  CHECK(tide_mesh_read_gmsh(write_file("a.msh", v2), &m) == TIDE_OK, "gmsh v2: %s", tide_errmsg());
  if (m) {
    CHECK(m->nv == 4 && m->ne == 1 && m->dim == 3, "gmsh v2 counts (unused node dropped)");
    tide_tetmesh_free(m);
  }
  const char *v4 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n"
                   "$EndEntities\n$Nodes\n2 5 1 5\n0 1 0 1\n1\n0 0 0\n3 1 0 4\n2\n3\n4\n5\n1 0 0\n"
                   "0 1 0\n0 0 1\n1 1 1\n$EndNodes\n$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4\n"
                   "2 2 3 4 5\n$EndElements\n";
  CHECK(tide_mesh_read_gmsh(write_file("b.msh", v4), &m) == TIDE_OK, "gmsh v4: %s", tide_errmsg());
  if (m) {
    CHECK(m->nv == 5 && m->ne == 2, "gmsh v4 counts");
    check_boundary(m, "gmsh v4");
    tide_tetmesh_free(m);
  }
  const char *v4bad = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n"
                      "4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n$Elements\n1 1 1 1\n3 1 4 1\n"
                      "1 1 2 3 9\n$EndElements\n";
  expect_err(tide_mesh_read_gmsh(write_file("c.msh", v4bad), &m), "c.msh:19: element refers to node tag 9",
             "gmsh undefined tag");
  const char *v2bad = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n"
                      "3 0 1 0\n$EndNodes\n";
  expect_err(tide_mesh_read_gmsh(write_file("d.msh", v2bad), &m), "d.msh:9", "gmsh short node list");
  const char *bin = "$MeshFormat\n4.1 1 8\n$EndMeshFormat\n";
  expect_err(tide_mesh_read_gmsh(write_file("e.msh", bin), &m), "binary", "gmsh binary");
  const char *v2tri = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n"
                      "3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n2\n1 2 0 1 2 3\n2 2 0 1 3 4\n"
                      "$EndElements\n";
  CHECK(tide_mesh_read_gmsh(write_file("f.msh", v2tri), &m) == TIDE_OK, "gmsh 2D triangles");
  if (m) {
    CHECK(m->dim == 2 && m->ne == 2, "gmsh 2D");
    tide_tetmesh_free(m);
  }

  /* OBJ */
  const char *obj = "# tetrahedron surface\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvn 0 0 1\n"
                    "f 1//1 3//1 2//1\nf 1 2 4\nf 2/1/1 3/1/1 4/1/1\nf -4 -1 -2\n";
  CHECK(tide_mesh_read_obj(write_file("a.obj", obj), &m) == TIDE_OK, "obj: %s", tide_errmsg());
  if (m) {
    CHECK(m->surface && m->ne == 4 && m->nb == 4, "obj surface");
    check_boundary(m, "obj"); /* closed and outward */
    tide_tetmesh_free(m);
  }
  expect_err(tide_mesh_read_obj(write_file("b.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n"), &m),
             "b.obj:3: face vertex 3 outside 1..2", "obj index");
  expect_err(tide_mesh_read_obj(write_file("c.obj", "v 0 0 0\nv 1 0\n"), &m), "c.obj:2", "obj vertex");
  expect_err(tide_mesh_read_obj(write_file("d.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n"), &m),
             "d.obj:4: triangle 1 is degenerate", "obj degenerate");
  CHECK((int)tide_mem_bytes() == mb0, "readers leak nothing (%lld vs %d)",
        (long long)tide_mem_bytes(), mb0);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/tide_test_solid_mesh_%d", (int)getpid());
  char cmd[300];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  if (system(cmd) != 0) return 1;
  test_generators();
  test_readers();
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) return 1;
  return check_report();
}
