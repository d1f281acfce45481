/* mc.c -- marching cubes on cell-centred level sets (see fileio.h).
 *
 * The cubes are those of the lattice of cell centres.  Instead of the
 * classical 256-case tables (Lorensen & Cline 1987), each cube's polygons are
 * assembled from the marching-squares segments of its six faces: on a face
 * seen from outside, walking its corners counter-clockwise, an edge going
 * from an inside corner (phi < iso) to an outside one is an exit, the
 * reverse an entry; every segment runs from an exit to an adjacent entry.
 * A cube edge shared by two faces is an exit on one and an entry on the
 * other, so the segments chain into closed loops, which are triangulated as
 * fans.  Face saddles are decided by the face-centre average (as in
 * tide_marching_squares), which both cubes sharing the face compute alike,
 * so the surface is watertight.  Vertices sit on lattice edges (linear
 * interpolation), one per crossed edge, shared between cubes; normals are the
 * normalised gradient of phi (central differences at nodes, interpolated
 * along the edge). */
#include "fileio.h"

#include <math.h>
#include <string.h>

/* corner c of a cube is at offset (c & 1, c >> 1 & 1, c >> 2 & 1) */
static const int cube_edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7},  /* along x */
                                      {0, 2}, {1, 3}, {4, 6}, {5, 7},  /* along y */
                                      {0, 4}, {1, 5}, {2, 6}, {3, 7}}; /* along z */
/* faces: corners counter-clockwise seen from outside */
static const int cube_faces[6][4] = {
    {0, 4, 6, 2}, /* x = 0 */
    {1, 3, 7, 5}, /* x = 1 */
    {0, 1, 5, 4}, /* y = 0 */
    {2, 6, 7, 3}, /* y = 1 */
    {0, 2, 3, 1}, /* z = 0 */
    {4, 5, 7, 6}, /* z = 1 */
};

static int edge_of(int a, int b) {
  for (int e = 0; e < 12; e++)
    if ((cube_edges[e][0] == a && cube_edges[e][1] == b) ||
        (cube_edges[e][0] == b && cube_edges[e][1] == a))
      return e;
  return -1;
}

/* Loops of one cube: writes up to 4 loops as edge lists, returns the loop
 * count; len[l] is the length of loop l, loops[l][k] its edges in order.
 * centre[l] != 0 when the loop passes through all four edges of a face (both
 * segments of a saddle): a fan over its own vertices would put triangles in
 * that face, where the neighbouring cube may put the same ones, so such a
 * loop is triangulated around an added centre vertex instead. */
static int cube_loops(const double v[8], double iso, int loops[4][12], int len[4], int centre[4]) {
  int next[12];
  for (int e = 0; e < 12; e++)
    next[e] = -1;
  for (int f = 0; f < 6; f++) {
    const int *c = cube_faces[f];
    int in[4], exits[2], entries[2], nx = 0, nn = 0;
    for (int k = 0; k < 4; k++)
      in[k] = v[c[k]] < iso;
    int ex_at[2] = {0, 0}, en_at[2] = {0, 0};
    for (int k = 0; k < 4; k++) {
      int a = c[k], b = c[(k + 1) & 3];
      if (in[k] && !in[(k + 1) & 3]) ex_at[nx] = k, exits[nx++] = edge_of(a, b);
      if (!in[k] && in[(k + 1) & 3]) en_at[nn] = k, entries[nn++] = edge_of(a, b);
    }
    if (nx == 1) {
      next[exits[0]] = entries[0];
    } else if (nx == 2) {
      /* saddle: inside corners connected through the face centre, or not */
      double avg = 0.25 * (v[c[0]] + v[c[1]] + v[c[2]] + v[c[3]]);
      int connected = avg < iso;
      for (int q = 0; q < 2; q++) {
        int k = ex_at[q]; /* exit on face edge k -> k+1: corner k inside */
        /* not connected: pair with the entry just before corner k (edge k-1 -> k);
         * connected: with the entry just after (edge k+1 -> k+2) */
        int want = connected ? (k + 1) & 3 : (k + 3) & 3;
        next[exits[q]] = en_at[0] == want ? entries[0] : entries[1];
      }
    }
  }
  int used[12] = {0}, nl = 0;
  for (int e = 0; e < 12; e++) {
    if (next[e] < 0 || used[e]) continue;
    int l = 0, cur = e;
    while (!used[cur] && cur >= 0 && l < 12) {
      used[cur] = 1;
      loops[nl][l++] = cur;
      cur = next[cur];
    }
    len[nl] = l;
    centre[nl] = 0;
    for (int f = 0; f < 6 && l >= 4; f++) {
      int hits = 0;
      for (int q = 0; q < l; q++)
        for (int k = 0; k < 4; k++)
          if (loops[nl][q] == edge_of(cube_faces[f][k], cube_faces[f][(k + 1) & 3])) hits++;
      if (hits == 4) centre[nl] = 1;
    }
    nl++;
    if (nl == 4) break;
  }
  return nl;
}

/* value at node (i, j, k) with mirrored padding outside the lattice: a
 * virtual node beyond the border holds |phi| of the border node, which puts
 * the surface of liquid touching the border exactly on the domain wall */
static inline double node(const tide_field3d *f, int i, int j, int k, int close) {
  int ci = i < 0 ? 0 : i >= f->n[0] ? f->n[0] - 1 : i;
  int cj = j < 0 ? 0 : j >= f->n[1] ? f->n[1] - 1 : j;
  int ck = k < 0 ? 0 : k >= f->n[2] ? f->n[2] - 1 : k;
  double p = f->v[((int64_t)ci * f->n[1] + cj) * f->n[2] + ck];
  if (close && (ci != i || cj != j || ck != k)) return fabs(p);
  return p;
}

/* the loops of the cube with lower node (i, j, k) */
static int cube_at(const tide_field3d *f, double iso, int close, int i, int j, int k,
                   int loops[4][12], int len[4], int centre[4]) {
  double v[8];
  for (int q = 0; q < 8; q++)
    v[q] = node(f, i + (q & 1), j + (q >> 1 & 1), k + (q >> 2 & 1), close);
  return cube_loops(v, iso, loops, len, centre);
}

static void node_grad(const tide_field3d *f, int i, int j, int k, int close, double g[3]) {
  int id[3] = {i, j, k};
  for (int a = 0; a < 3; a++) {
    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[a] = id[a] - 1, hi[a] = id[a] + 1;
    double h = 2;
    int lim = close ? -1 : 0, him = close ? f->n[a] : f->n[a] - 1;
    if (lo[a] < lim) lo[a] = id[a], h = 1;
    if (hi[a] > him) hi[a] = id[a], h -= 1;
    g[a] =
        h > 0 ? (node(f, hi[0], hi[1], hi[2], close) - node(f, lo[0], lo[1], lo[2], close)) / h : 0;
  }
}

int tide_isosurface(const tide_field3d *f, double iso, int close, tide_array **verts,
                    tide_array **normals, tide_array **tris) {
  *verts = *normals = *tris = NULL;
  if (!f || !f->v) return tide_fail(TIDE_EINVAL, "isosurface: no values");
  if (f->n[0] < 1 || f->n[1] < 1 || f->n[2] < 1)
    return tide_fail(TIDE_EINVAL, "isosurface: empty grid");
  if (!(f->dx > 0) || !isfinite(f->dx))
    return tide_fail(TIDE_EINVAL, "isosurface: dx must be positive");
  if (!isfinite(iso)) return tide_fail(TIDE_EINVAL, "isosurface: iso must be finite");
  int64_t ntot = (int64_t)f->n[0] * f->n[1] * f->n[2];
  for (int64_t q = 0; q < ntot; q++)
    if (!isfinite(f->v[q]))
      return tide_fail(TIDE_ENONFINITE, "isosurface: non-finite value at %lld", (long long)q);
  /* the lattice of nodes, padded by one on each side when closing */
  int o = close ? 1 : 0;
  int N[3] = {f->n[0] + 2 * o, f->n[1] + 2 * o, f->n[2] + 2 * o};
  if (N[0] < 2 || N[1] < 2 || N[2] < 2) {
    /* no cubes: an empty surface */
    *verts = tide_array_new2(TIDE_F64, 0, 3);
    *normals = tide_array_new2(TIDE_F64, 0, 3);
    *tris = tide_array_new2(TIDE_I32, 0, 3);
    if (!*verts || !*normals || !*tris) goto nomem;
    return TIDE_OK;
  }
  /* vertex ids of lattice edges along axis a from node (i, j, k): eid[a] */
  int64_t ne[3];
  for (int a = 0; a < 3; a++)
    ne[a] = (int64_t)(N[0] - (a == 0)) * (N[1] - (a == 1)) * (N[2] - (a == 2));
  size_t ebytes = sizeof(int32_t) * (size_t)(ne[0] + ne[1] + ne[2]);
  int32_t *eid = tide_alloc(ebytes);
  if (!eid) return TIDE_ENOMEM;
  int32_t *eids[3] = {eid, eid + ne[0], eid + ne[0] + ne[1]};
  /* pass 1: number crossed edges in lattice order (serial: cheap) */
  int64_t nv = 0;
  for (int a = 0; a < 3; a++) {
    int M[3] = {N[0] - (a == 0), N[1] - (a == 1), N[2] - (a == 2)};
    for (int i = 0; i < M[0]; i++)
      for (int j = 0; j < M[1]; j++)
        for (int k = 0; k < M[2]; k++) {
          double p0 = node(f, i - o, j - o, k - o, close);
          double p1 = node(f, i - o + (a == 0), j - o + (a == 1), k - o + (a == 2), close);
          int32_t id = -1;
          if ((p0 < iso) != (p1 < iso)) {
            if (nv >= INT32_MAX) {
              tide_free(eid, ebytes);
              return tide_fail(TIDE_EINVAL, "isosurface: too many vertices");
            }
            id = (int32_t)nv++;
          }
          eids[a][((int64_t)i * M[1] + j) * M[2] + k] = id;
        }
  }
  /* pass 2: per i-slab, count the triangles and centre vertices of its cubes */
  int C[3] = {N[0] - 1, N[1] - 1, N[2] - 1};
  size_t cbytes = sizeof(int64_t) * 2 * (size_t)(C[0] + 1);
  int64_t *cnt = tide_calloc(cbytes); /* cnt[2i]: triangles, cnt[2i+1]: centres before slab i */
  if (!cnt) {
    tide_free(eid, ebytes);
    goto nomem;
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < C[0]; i++) {
    int64_t w = 0, c = 0;
    for (int j = 0; j < C[1]; j++)
      for (int k = 0; k < C[2]; k++) {
        int loops[4][12], len[4], centre[4];
        int nl = cube_at(f, iso, close, i - o, j - o, k - o, loops, len, centre);
        for (int l = 0; l < nl; l++) {
          w += centre[l] ? len[l] : len[l] - 2;
          c += centre[l];
        }
      }
    cnt[2 * (i + 1)] = w;
    cnt[2 * (i + 1) + 1] = c;
  }
  for (int i = 0; i < C[0]; i++) {
    cnt[2 * (i + 1)] += cnt[2 * i];
    cnt[2 * (i + 1) + 1] += cnt[2 * i + 1];
  }
  int64_t ntri = cnt[2 * C[0]], nvtot = nv + cnt[2 * C[0] + 1];
  if (nvtot >= INT32_MAX) {
    tide_free(cnt, cbytes);
    tide_free(eid, ebytes);
    return tide_fail(TIDE_EINVAL, "isosurface: too many vertices");
  }
  tide_array *V = tide_array_new2(TIDE_F64, nvtot, 3), *Nn = tide_array_new2(TIDE_F64, nvtot, 3);
  tide_array *Tt = tide_array_new2(TIDE_I32, ntri, 3);
  if (!V || !Nn || !Tt) {
    tide_array_release(V);
    tide_array_release(Nn);
    tide_array_release(Tt);
    tide_free(cnt, cbytes);
    tide_free(eid, ebytes);
    goto nomem;
  }
  double *vp = TIDE_F64P(V), *np = TIDE_F64P(Nn);
  /* edge vertices: linear interpolation of position and gradient */
  for (int a = 0; a < 3; a++) {
    int M[3] = {N[0] - (a == 0), N[1] - (a == 1), N[2] - (a == 2)};
#pragma omp parallel for schedule(static)
    for (int i = 0; i < M[0]; i++)
      for (int j = 0; j < M[1]; j++)
        for (int k = 0; k < M[2]; k++) {
          int32_t id = eids[a][((int64_t)i * M[1] + j) * M[2] + k];
          if (id < 0) continue;
          int i0 = i - o, j0 = j - o, k0 = k - o;
          int i1 = i0 + (a == 0), j1 = j0 + (a == 1), k1 = k0 + (a == 2);
          double p0 = node(f, i0, j0, k0, close), p1 = node(f, i1, j1, k1, close);
          double t = (iso - p0) / (p1 - p0);
          double g0[3], g1[3];
          node_grad(f, i0, j0, k0, close, g0);
          node_grad(f, i1, j1, k1, close, g1);
          double pos[3] = {i0 + 0.5 + t * (a == 0), j0 + 0.5 + t * (a == 1),
                           k0 + 0.5 + t * (a == 2)};
          double nn[3], l = 0;
          for (int d = 0; d < 3; d++) {
            vp[3 * id + d] = f->origin[d] + pos[d] * f->dx;
            nn[d] = (1 - t) * g0[d] + t * g1[d];
            l += nn[d] * nn[d];
          }
          l = l > 0 ? 1 / sqrt(l) : 0;
          for (int d = 0; d < 3; d++)
            np[3 * id + d] = nn[d] * l;
        }
  }
  /* pass 3: triangles (and centre vertices), slab by slab in order */
  int32_t *tp = TIDE_I32P(Tt);
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < C[0]; i++) {
    int64_t w = cnt[2 * i], cid = nv + cnt[2 * i + 1];
    for (int j = 0; j < C[1]; j++)
      for (int k = 0; k < C[2]; k++) {
        int loops[4][12], len[4], centre[4];
        int nl = cube_at(f, iso, close, i - o, j - o, k - o, loops, len, centre);
        for (int l = 0; l < nl; l++) {
          int32_t ids[12];
          for (int q = 0; q < len[l]; q++) {
            int e = loops[l][q], a = e / 4, c0 = cube_edges[e][0];
            int ii = i + (c0 & 1), jj = j + (c0 >> 1 & 1), kk = k + (c0 >> 2 & 1);
            int M1 = N[1] - (a == 1), M2 = N[2] - (a == 2);
            ids[q] = eids[a][((int64_t)ii * M1 + jj) * M2 + kk];
          }
          /* the loops run clockwise around the outward normal seen from
           * outside the liquid: (0, q+1, q) gives outward normals */
          if (centre[l]) {
            double pc[3] = {0, 0, 0}, nc[3] = {0, 0, 0};
            for (int q = 0; q < len[l]; q++)
              for (int d = 0; d < 3; d++) {
                pc[d] += vp[3 * ids[q] + d] / len[l];
                nc[d] += np[3 * ids[q] + d];
              }
            double ln = sqrt(nc[0] * nc[0] + nc[1] * nc[1] + nc[2] * nc[2]);
            for (int d = 0; d < 3; d++) {
              vp[3 * cid + d] = pc[d];
              np[3 * cid + d] = ln > 0 ? nc[d] / ln : 0;
            }
            for (int q = 0; q < len[l]; q++) {
              tp[3 * w] = (int32_t)cid;
              tp[3 * w + 1] = ids[(q + 1) % len[l]];
              tp[3 * w + 2] = ids[q];
              w++;
            }
            cid++;
          } else {
            for (int q = 1; q + 1 < len[l]; q++) {
              tp[3 * w] = ids[0];
              tp[3 * w + 1] = ids[q + 1];
              tp[3 * w + 2] = ids[q];
              w++;
            }
          }
        }
      }
  }
  tide_free(cnt, cbytes);
  tide_free(eid, ebytes);
  *verts = V;
  *normals = Nn;
  *tris = Tt;
  return TIDE_OK;
nomem:
  tide_array_release(*verts);
  tide_array_release(*normals);
  tide_array_release(*tris);
  *verts = *normals = *tris = NULL;
  return tide_fail(TIDE_ENOMEM, "isosurface: out of memory");
}
