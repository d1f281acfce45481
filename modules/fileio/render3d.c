/* render3d.c -- a small software renderer for 3D frames (see fileio.h):
 * triangle meshes, particle spheres, a ground plane and the domain box,
 * perspective/orthographic cameras, Lambert + Blinn-Phong shading with an
 * optional shadow map, supersampled anti-aliasing, OpenMP over tiles. */
#include "fileio.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define TILE 32

/* ------------------------------------------------------------ vectors */

static inline double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void cross3(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double norm3(double a[3]) {
  double l = sqrt(dot3(a, a));
  if (l > 0) a[0] /= l, a[1] /= l, a[2] /= l;
  return l;
}

/* --------------------------------------------------------- projection */

typedef struct proj {
  double pos[3], R[3], U[3], F[3]; /* camera frame: right, up, forward */
  double f;                        /* pixels per unit (ortho) or focal length in pixels */
  double cx, cy;                   /* image centre in samples */
  int ortho;
  double near;
} proj;

static int proj_setup(proj *P, const tide_camera3d *c, int w, int h) {
  for (int d = 0; d < 3; d++) {
    P->pos[d] = c->pos[d];
    P->F[d] = c->target[d] - c->pos[d];
  }
  if (norm3(P->F) <= 0) return tide_fail(TIDE_EINVAL, "camera position equals its target");
  double up[3] = {c->up[0], c->up[1], c->up[2]};
  if (norm3(up) <= 0) up[1] = 1;
  cross3(P->F, up, P->R);
  if (norm3(P->R) < 1e-9) { /* looking along up: pick another up */
    double alt[3] = {0, 0, 1};
    if (fabs(P->F[2]) > 0.9) alt[2] = 0, alt[0] = 1;
    cross3(P->F, alt, P->R);
    norm3(P->R);
  }
  cross3(P->R, P->F, P->U);
  P->cx = 0.5 * w;
  P->cy = 0.5 * h;
  if (c->ortho > 0) {
    P->ortho = 1;
    P->f = h / c->ortho;
    P->near = -1e30;
  } else {
    if (!(c->fov > 0 && c->fov < 179))
      return tide_fail(TIDE_EINVAL, "camera fov must be in (0, 179) degrees");
    P->ortho = 0;
    P->f = 0.5 * h / tan(0.5 * c->fov * M_PI / 180);
    P->near = 1e-4;
  }
  return TIDE_OK;
}

static inline void to_view(const proj *P, const double p[3], double v[3]) {
  double d[3] = {p[0] - P->pos[0], p[1] - P->pos[1], p[2] - P->pos[2]};
  v[0] = dot3(d, P->R);
  v[1] = dot3(d, P->U);
  v[2] = dot3(d, P->F);
}

static inline void view_to_screen(const proj *P, const double v[3], double *sx, double *sy) {
  double s = P->ortho ? P->f : P->f / v[2];
  *sx = P->cx + s * v[0];
  *sy = P->cy - s * v[1];
}

/* ----------------------------------------------------------- primitives */

/* a triangle in screen space with per-vertex depth, normal and colour */
typedef struct stri {
  float x[3], y[3], z[3];
  float n[3][3], c[3][3];
  float w[3][3]; /* world positions of the corners (for the shadow lift) */
  float spec, shin;
} stri;

/* a sphere: screen centre, screen radius, view depth of the centre, world radius */
typedef struct ssph {
  float x, y, r, z, wr;
  float c[3];
} ssph;

typedef struct vtx { /* view-space vertex with attributes, for clipping */
  double v[3];
  float n[3], c[3], w[3]; /* normal, colour, world position */
} vtx;

static void vtx_lerp(const vtx *a, const vtx *b, double t, vtx *o) {
  for (int d = 0; d < 3; d++) {
    o->v[d] = a->v[d] + t * (b->v[d] - a->v[d]);
    o->n[d] = (float)(a->n[d] + t * (b->n[d] - a->n[d]));
    o->c[d] = (float)(a->c[d] + t * (b->c[d] - a->c[d]));
    o->w[d] = (float)(a->w[d] + t * (b->w[d] - a->w[d]));
  }
}

/* clip a view-space triangle against z >= near and append up to two screen
 * triangles to out; returns how many */
static int clip_tri(const proj *P, const vtx in[3], float spec, float shin, stri *out) {
  vtx poly[4];
  int np = 0;
  if (P->ortho) {
    for (int k = 0; k < 3; k++)
      poly[np++] = in[k];
  } else {
    for (int k = 0; k < 3; k++) {
      const vtx *a = &in[k], *b = &in[(k + 1) % 3];
      int ain = a->v[2] >= P->near, bin = b->v[2] >= P->near;
      if (ain) poly[np++] = *a;
      if (ain != bin) vtx_lerp(a, b, (P->near - a->v[2]) / (b->v[2] - a->v[2]), &poly[np++]);
    }
  }
  if (np < 3) return 0;
  int nt = 0;
  for (int q = 1; q + 1 < np; q++) {
    const vtx *tv[3] = {&poly[0], &poly[q], &poly[q + 1]};
    stri *s = &out[nt++];
    for (int k = 0; k < 3; k++) {
      double sx, sy;
      view_to_screen(P, tv[k]->v, &sx, &sy);
      s->x[k] = (float)sx;
      s->y[k] = (float)sy;
      s->z[k] = (float)tv[k]->v[2];
      for (int d = 0; d < 3; d++) {
        s->n[k][d] = tv[k]->n[d];
        s->c[k][d] = tv[k]->c[d];
        s->w[k][d] = tv[k]->w[d];
      }
    }
    s->spec = spec;
    s->shin = shin;
  }
  return nt;
}

/* ------------------------------------------------------------- G-buffer */

typedef struct gbuf {
  int w, h;
  float *depth;  /* view depth, FLT_MAX when empty */
  float *normal; /* 3 per sample, world space */
  float *albedo; /* 3 per sample */
  float *spec;   /* 2 per sample: weight, exponent */
  float *lift;   /* LIFT per sample: shadow-lookup lifts and facet normal, see tri_lift */
} gbuf;
#define LIFT 9

/* primitives binned into tiles: bin_start[t]..bin_start[t+1] in bin_items */
typedef struct bins {
  int ntx, nty;
  int64_t *start;
  int64_t *items; /* index < ntri: triangle; otherwise sphere (index - ntri) */
} bins;

static void prim_box(const stri *T, const ssph *S, int64_t ntri, int64_t k, double *x0, double *y0,
                     double *x1, double *y1) {
  if (k < ntri) {
    const stri *t = T + k;
    *x0 = fmin(t->x[0], fmin(t->x[1], t->x[2]));
    *x1 = fmax(t->x[0], fmax(t->x[1], t->x[2]));
    *y0 = fmin(t->y[0], fmin(t->y[1], t->y[2]));
    *y1 = fmax(t->y[0], fmax(t->y[1], t->y[2]));
  } else {
    const ssph *s = S + (k - ntri);
    *x0 = s->x - s->r - 1, *x1 = s->x + s->r + 1;
    *y0 = s->y - s->r - 1, *y1 = s->y + s->r + 1;
  }
}

static int tile_range(double a0, double a1, int n, int ntile, int *t0, int *t1) {
  if (!(a1 >= 0) || !(a0 < n)) return 0;
  int lo = a0 < 0 ? 0 : (int)a0, hi = a1 >= n ? n - 1 : (int)a1;
  *t0 = lo / TILE;
  *t1 = hi / TILE;
  if (*t1 >= ntile) *t1 = ntile - 1;
  return 1;
}

static int bins_build(bins *B, int w, int h, const stri *T, int64_t ntri, const ssph *S,
                      int64_t nsph) {
  B->ntx = (w + TILE - 1) / TILE;
  B->nty = (h + TILE - 1) / TILE;
  int64_t nt = (int64_t)B->ntx * B->nty, n = ntri + nsph;
  B->start = tide_calloc(sizeof(int64_t) * (size_t)(nt + 1));
  B->items = NULL;
  if (!B->start) return TIDE_ENOMEM;
  for (int pass = 0; pass < 2; pass++) {
    int64_t *fill = NULL;
    if (pass) {
      for (int64_t t = 0; t < nt; t++)
        B->start[t + 1] += B->start[t];
      B->items = tide_alloc(sizeof(int64_t) * (size_t)(B->start[nt] > 0 ? B->start[nt] : 1));
      fill = tide_alloc(sizeof(int64_t) * (size_t)nt);
      if (!B->items || !fill) {
        tide_free(fill, sizeof(int64_t) * (size_t)nt);
        return TIDE_ENOMEM;
      }
      memcpy(fill, B->start, sizeof(int64_t) * (size_t)nt);
    }
    for (int64_t k = 0; k < n; k++) {
      double x0, y0, x1, y1;
      prim_box(T, S, ntri, k, &x0, &y0, &x1, &y1);
      int tx0, tx1, ty0, ty1;
      if (!tile_range(x0, x1, w, B->ntx, &tx0, &tx1) || !tile_range(y0, y1, h, B->nty, &ty0, &ty1))
        continue;
      for (int ty = ty0; ty <= ty1; ty++)
        for (int tx = tx0; tx <= tx1; tx++) {
          int64_t t = (int64_t)ty * B->ntx + tx;
          if (pass)
            B->items[fill[t]++] = k;
          else
            B->start[t + 1]++;
        }
    }
    if (pass) tide_free(fill, sizeof(int64_t) * (size_t)nt);
  }
  return TIDE_OK;
}

static void bins_free(bins *B) {
  int64_t nt = (int64_t)B->ntx * B->nty;
  if (B->items)
    tide_free(B->items, sizeof(int64_t) * (size_t)(B->start[nt] > 0 ? B->start[nt] : 1));
  if (B->start) tide_free(B->start, sizeof(int64_t) * (size_t)(nt + 1));
}

static inline float edgefn(float ax, float ay, float bx, float by, float px, float py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

/* The shadow-terminator lift (Hanika, "Hacking the shadow terminator", Ray
 * Tracing Gems II, ch. 4, 2021).  A coarse faceted mesh shaded with smooth
 * vertex normals is lit where its flat facets face away from the light or
 * sit in a dent between their neighbours; the shadow map then sees the
 * neighbouring facets in front and paints whole dark facets on the lit side.
 * The point x = sum_k w_k P_k of a facet (barycentric weights w, corners P,
 * unit vertex normals n) is lifted onto the curved surface its vertex
 * normals describe: projected onto the tangent plane (P_k, n_k) of each
 * corner it lies below, averaged with the weights,
 *     x' = x - sum_k w_k min(0, (x - P_k).n_k) n_k.
 * The lift vanishes where the normals are the facet's (flat regions) and is
 * bounded by the facet's departure from its corners' tangent planes, about
 * h sin(theta) for edge length h and normal deviation theta: it scales with
 * the mesh's edge length, a fine mesh is hardly moved, and a shadow cast by
 * something resting on the surface does not detach (no peter-panning, which
 * a constant normal offset of the same size would cause).  Surfaces have two
 * sides: lift[0..2] is the lift toward +n, lift[3..5] toward -n; the shader
 * uses the one(s) moving toward the light.  lift[6..8] is the facet's unit
 * normal, whose slope to the light scales the depth bias (the vertex normals
 * of a coarse mesh can be far from it). */
static void tri_lift(const stri *t, float w0, float w1, float w2, float *lift) {
  float w[3] = {w0, w1, w2}, x[3];
  for (int d = 0; d < 3; d++)
    x[d] = w0 * t->w[0][d] + w1 * t->w[1][d] + w2 * t->w[2][d];
  for (int d = 0; d < LIFT; d++)
    lift[d] = 0;
  float e1[3], e2[3];
  for (int d = 0; d < 3; d++)
    e1[d] = t->w[1][d] - t->w[0][d], e2[d] = t->w[2][d] - t->w[0][d];
  float *fn = lift + 6;
  fn[0] = e1[1] * e2[2] - e1[2] * e2[1];
  fn[1] = e1[2] * e2[0] - e1[0] * e2[2];
  fn[2] = e1[0] * e2[1] - e1[1] * e2[0];
  float fl = sqrtf(fn[0] * fn[0] + fn[1] * fn[1] + fn[2] * fn[2]);
  for (int d = 0; d < 3; d++)
    fn[d] = fl > 0 ? fn[d] / fl : 0;
  for (int k = 0; k < 3; k++) {
    const float *n = t->n[k];
    float nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (!(nn > 0)) continue;
    float h =
        ((x[0] - t->w[k][0]) * n[0] + (x[1] - t->w[k][1]) * n[1] + (x[2] - t->w[k][2]) * n[2]) /
        nn; /* height above the tangent plane along n, times 1/|n| */
    float *l = h < 0 ? lift : lift + 3;
    for (int d = 0; d < 3; d++)
      l[d] -= w[k] * h * n[d];
  }
}

/* rasterize the primitives of every tile (depth only when g->normal is NULL) */
static void raster(gbuf *g, const bins *B, const proj *P, const stri *T, int64_t ntri,
                   const ssph *S) {
  int64_t ntiles = (int64_t)B->ntx * B->nty;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t tile = 0; tile < ntiles; tile++) {
    int tx0 = (int)(tile % B->ntx) * TILE, ty0 = (int)(tile / B->ntx) * TILE;
    int tx1 = tx0 + TILE < g->w ? tx0 + TILE : g->w, ty1 = ty0 + TILE < g->h ? ty0 + TILE : g->h;
    for (int64_t q = B->start[tile]; q < B->start[tile + 1]; q++) {
      int64_t k = B->items[q];
      if (k < ntri) {
        const stri *t = T + k;
        float area = edgefn(t->x[0], t->y[0], t->x[1], t->y[1], t->x[2], t->y[2]);
        if (!(fabsf(area) > 1e-12f)) continue;
        float inv = 1.0f / area;
        int i0 = (int)floorf(fminf(t->x[0], fminf(t->x[1], t->x[2])));
        int i1 = (int)ceilf(fmaxf(t->x[0], fmaxf(t->x[1], t->x[2])));
        int j0 = (int)floorf(fminf(t->y[0], fminf(t->y[1], t->y[2])));
        int j1 = (int)ceilf(fmaxf(t->y[0], fmaxf(t->y[1], t->y[2])));
        if (i0 < tx0) i0 = tx0;
        if (j0 < ty0) j0 = ty0;
        if (i1 > tx1) i1 = tx1;
        if (j1 > ty1) j1 = ty1;
        for (int j = j0; j < j1; j++)
          for (int i = i0; i < i1; i++) {
            float px = i + 0.5f, py = j + 0.5f;
            float l0 = edgefn(t->x[1], t->y[1], t->x[2], t->y[2], px, py) * inv;
            float l1 = edgefn(t->x[2], t->y[2], t->x[0], t->y[0], px, py) * inv;
            float l2 = 1.0f - l0 - l1;
            if (l0 < 0 || l1 < 0 || l2 < 0) continue;
            float w0, w1, w2, z;
            if (P->ortho) {
              w0 = l0, w1 = l1, w2 = l2;
              z = l0 * t->z[0] + l1 * t->z[1] + l2 * t->z[2];
            } else { /* perspective-correct weights */
              w0 = l0 / t->z[0], w1 = l1 / t->z[1], w2 = l2 / t->z[2];
              float s = w0 + w1 + w2;
              z = 1.0f / s;
              w0 *= z, w1 *= z, w2 *= z;
            }
            int64_t o = (int64_t)j * g->w + i;
            if (!(z < g->depth[o])) continue;
            g->depth[o] = z;
            if (!g->normal) continue;
            for (int d = 0; d < 3; d++) {
              g->normal[3 * o + d] = w0 * t->n[0][d] + w1 * t->n[1][d] + w2 * t->n[2][d];
              g->albedo[3 * o + d] = w0 * t->c[0][d] + w1 * t->c[1][d] + w2 * t->c[2][d];
            }
            g->spec[2 * o] = t->spec;
            g->spec[2 * o + 1] = t->shin;
            tri_lift(t, w0, w1, w2, g->lift + LIFT * o);
          }
      } else {
        const ssph *s = S + (k - ntri);
        int i0 = (int)floorf(s->x - s->r), i1 = (int)ceilf(s->x + s->r);
        int j0 = (int)floorf(s->y - s->r), j1 = (int)ceilf(s->y + s->r);
        if (i0 < tx0) i0 = tx0;
        if (j0 < ty0) j0 = ty0;
        if (i1 > tx1) i1 = tx1;
        if (j1 > ty1) j1 = ty1;
        float ir = 1.0f / s->r;
        for (int j = j0; j < j1; j++)
          for (int i = i0; i < i1; i++) {
            float dx = (i + 0.5f - s->x) * ir, dy = (j + 0.5f - s->y) * ir;
            float d2 = dx * dx + dy * dy;
            if (d2 > 1) continue;
            float nz = sqrtf(1 - d2);
            float z = s->z - s->wr * nz;
            int64_t o = (int64_t)j * g->w + i;
            if (!(z < g->depth[o])) continue;
            g->depth[o] = z;
            if (!g->normal) continue;
            /* view-space normal (dx, -dy, -nz) to world */
            for (int d = 0; d < 3; d++) {
              g->normal[3 * o + d] = (float)(dx * P->R[d] - dy * P->U[d] - nz * P->F[d]);
              g->albedo[3 * o + d] = s->c[d];
            }
            g->spec[2 * o] = -1; /* marks particles: material from the renderer */
            g->spec[2 * o + 1] = 0;
            memset(g->lift + LIFT * o, 0, LIFT * sizeof(float)); /* exact spheres */
          }
      }
    }
  }
}

/* ------------------------------------------------------------ the scene */

typedef struct geom {
  stri *T;
  int64_t ntri, cap;
  ssph *S;
  int64_t nsph;
} geom;

static void geom_free(geom *G) {
  if (G->T) tide_free(G->T, sizeof(stri) * (size_t)(G->cap > 0 ? G->cap : 1));
  if (G->S) tide_free(G->S, sizeof(ssph) * (size_t)(G->nsph > 0 ? G->nsph : 1));
  memset(G, 0, sizeof *G);
}

/* area-weighted vertex normals */
static double *smooth_normals(const tide_mesh3d *m) {
  double *n = tide_calloc(sizeof(double) * 3 * (size_t)(m->nv > 0 ? m->nv : 1));
  if (!n) return NULL;
  for (int64_t t = 0; t < m->nt; t++) {
    const double *a = m->v + 3 * m->t[3 * t], *b = m->v + 3 * m->t[3 * t + 1],
                 *c = m->v + 3 * m->t[3 * t + 2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
           e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double fn[3];
    cross3(e1, e2, fn);
    for (int k = 0; k < 3; k++)
      for (int d = 0; d < 3; d++)
        n[3 * m->t[3 * t + k] + d] += fn[d];
  }
  for (int64_t v = 0; v < m->nv; v++)
    norm3(n + 3 * v);
  return n;
}

/* project all meshes and particles through P (colours and normals only
 * when full != 0) */
static int geom_build(geom *G, const tide_render3d *r, const proj *P, int full) {
  memset(G, 0, sizeof *G);
  int64_t cap = 0;
  for (int m = 0; m < r->nmesh; m++)
    cap += 2 * r->mesh[m].nt;
  G->cap = cap;
  G->T = tide_alloc(sizeof(stri) * (size_t)(cap > 0 ? cap : 1));
  G->S = tide_alloc(sizeof(ssph) * (size_t)(r->np > 0 ? r->np : 1));
  if (!G->T || !G->S) {
    geom_free(G);
    return TIDE_ENOMEM;
  }
  G->nsph = 0;
  for (int m = 0; m < r->nmesh; m++) {
    const tide_mesh3d *M = &r->mesh[m];
    double *own = NULL;
    const double *N = M->n;
    if (full && !N) {
      own = smooth_normals(M);
      if (!own) {
        geom_free(G);
        return TIDE_ENOMEM;
      }
      N = own;
    }
    for (int64_t t = 0; t < M->nt; t++) {
      vtx v[3];
      for (int k = 0; k < 3; k++) {
        int32_t id = M->t[3 * t + k];
        to_view(P, M->v + 3 * id, v[k].v);
        for (int d = 0; d < 3; d++) {
          v[k].n[d] = N ? (float)N[3 * id + d] : 0;
          v[k].c[d] = M->vcolor ? M->vcolor[3 * id + d] : M->color[d];
          v[k].w[d] = (float)M->v[3 * id + d];
        }
      }
      G->ntri += clip_tri(P, v, M->specular, M->shininess, G->T + G->ntri);
    }
    if (own) tide_free(own, sizeof(double) * 3 * (size_t)(M->nv > 0 ? M->nv : 1));
  }
  for (int64_t p = 0; p < r->np; p++) {
    double v[3];
    to_view(P, r->pp + 3 * p, v);
    if (!P->ortho && v[2] < P->near + r->pradius) continue;
    double sx, sy;
    view_to_screen(P, v, &sx, &sy);
    ssph *s = &G->S[G->nsph++];
    s->x = (float)sx;
    s->y = (float)sy;
    s->r = (float)(r->pradius * (P->ortho ? P->f : P->f / v[2]));
    if (s->r < 0.5f) s->r = 0.5f;
    s->z = (float)v[2];
    s->wr = (float)r->pradius;
    for (int d = 0; d < 3; d++)
      s->c[d] = r->pcolor ? r->pcolor[3 * p + d] : r->prgb[d];
  }
  return TIDE_OK;
}

/* bounding sphere of everything that casts shadows, and the box */
static void scene_bounds(const tide_render3d *r, double c[3], double *rad) {
  double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
#define GROW(p)                                                                                    \
  for (int d = 0; d < 3; d++) {                                                                    \
    if ((p)[d] < lo[d]) lo[d] = (p)[d];                                                            \
    if ((p)[d] > hi[d]) hi[d] = (p)[d];                                                            \
  }
  for (int m = 0; m < r->nmesh; m++)
    for (int64_t v = 0; v < r->mesh[m].nv; v++)
      GROW(r->mesh[m].v + 3 * v);
  for (int64_t p = 0; p < r->np; p++)
    GROW(r->pp + 3 * p);
  if (r->box) {
    GROW(r->box_lo);
    GROW(r->box_hi);
  }
#undef GROW
  if (lo[0] > hi[0]) {
    c[0] = c[1] = c[2] = 0;
    *rad = 1;
    return;
  }
  double e = 0;
  for (int d = 0; d < 3; d++) {
    c[d] = 0.5 * (lo[d] + hi[d]);
    e += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  }
  *rad = fmax(0.5 * sqrt(e), 1e-6) + r->pradius;
}

void tide_render3d_defaults(tide_render3d *r) {
  memset(r, 0, sizeof *r);
  r->width = 640;
  r->height = 480;
  r->ss = 2;
  r->cam.up[1] = 1;
  r->cam.fov = 35;
  r->pradius = 0.01;
  r->prgb[0] = 0.20f, r->prgb[1] = 0.45f, r->prgb[2] = 0.85f;
  r->pspecular = 0.35f;
  r->ground_tile = 0.1;
  r->ground_color[0][0] = r->ground_color[0][1] = r->ground_color[0][2] = 0.78f;
  r->ground_color[1][0] = r->ground_color[1][1] = r->ground_color[1][2] = 0.66f;
  r->box_color[0] = r->box_color[1] = r->box_color[2] = 0.15f;
  r->box_width = 1.2;
  r->nlight = 2;
  double l0[3] = {-0.45, 1.0, 0.6}, l1[3] = {0.7, 0.35, -0.5};
  norm3(l0);
  norm3(l1);
  memcpy(r->light_dir[0], l0, sizeof l0);
  memcpy(r->light_dir[1], l1, sizeof l1);
  for (int d = 0; d < 3; d++) {
    r->light_color[0][d] = 0.85f;
    r->light_color[1][d] = 0.25f;
  }
  r->ambient = 0.25f;
  r->shadows = 1;
  r->shadow_res = 2048;
  r->bg_top[0] = 0.93f, r->bg_top[1] = 0.95f, r->bg_top[2] = 0.98f;
  r->bg_bottom[0] = 0.72f, r->bg_bottom[1] = 0.76f, r->bg_bottom[2] = 0.82f;
}

void tide_camera3d_frame(tide_camera3d *c, const double lo[3], const double hi[3], double fov,
                         double aspect) {
  double ctr[3], ext[3], rad = 0;
  for (int d = 0; d < 3; d++) {
    ctr[d] = 0.5 * (lo[d] + hi[d]);
    ext[d] = hi[d] - lo[d];
    rad += ext[d] * ext[d];
  }
  rad = 0.5 * sqrt(rad);
  if (!(rad > 0)) rad = 1;
  double dir[3] = {0.55, 0.45, 1.0};
  norm3(dir);
  double half = 0.5 * fov * M_PI / 180;
  double fit = tan(half) * (aspect < 1 ? aspect : 1);
  double dist = 1.08 * rad / sin(atan(fit));
  for (int d = 0; d < 3; d++) {
    c->target[d] = ctr[d];
    c->pos[d] = ctr[d] + dist * dir[d];
    c->up[d] = d == 1;
  }
  c->fov = fov;
  c->ortho = 0;
}

static int check_scene(const tide_render3d *r) {
  if (r->width < 1 || r->height < 1 || r->width > 16384 || r->height > 16384)
    return tide_fail(TIDE_EINVAL, "render3d: image size %d x %d out of range", r->width, r->height);
  if (r->ss < 1 || r->ss > 4) return tide_fail(TIDE_EINVAL, "render3d: supersampling must be 1..4");
  if ((int64_t)r->width * r->ss * r->height * r->ss > ((int64_t)1 << 28))
    return tide_fail(TIDE_EINVAL, "render3d: %d x %d with supersampling %d is too large", r->width,
                     r->height, r->ss);
  if (r->nlight < 0 || r->nlight > 2) return tide_fail(TIDE_EINVAL, "render3d: 0..2 lights");
  if (r->np > 0 && !(r->pradius > 0 && isfinite(r->pradius)))
    return tide_fail(TIDE_EINVAL, "render3d: particle radius must be positive");
  if (r->shadows && (r->shadow_res < 64 || r->shadow_res > 8192))
    return tide_fail(TIDE_EINVAL, "render3d: shadow map resolution must be 64..8192");
  for (int m = 0; m < r->nmesh; m++) {
    const tide_mesh3d *M = &r->mesh[m];
    for (int64_t t = 0; t < 3 * M->nt; t++)
      if (M->t[t] < 0 || M->t[t] >= M->nv)
        return tide_fail(TIDE_EINVAL,
                         "render3d: mesh %d triangle %lld has vertex %d outside 0..%lld", m + 1,
                         (long long)(t / 3), M->t[t], (long long)M->nv - 1);
    for (int64_t v = 0; v < 3 * M->nv; v++)
      if (!isfinite(M->v[v]))
        return tide_fail(TIDE_ENONFINITE, "render3d: mesh %d has a non-finite vertex", m + 1);
  }
  for (int64_t p = 0; p < 3 * r->np; p++)
    if (!isfinite(r->pp[p]))
      return tide_fail(TIDE_ENONFINITE, "render3d: non-finite particle position");
  return TIDE_OK;
}

static int gbuf_new(gbuf *g, int w, int h, int full) {
  memset(g, 0, sizeof *g);
  g->w = w, g->h = h;
  size_t n = (size_t)w * h;
  g->depth = tide_alloc(n * sizeof(float));
  if (full) {
    g->normal = tide_alloc(3 * n * sizeof(float));
    g->albedo = tide_alloc(3 * n * sizeof(float));
    g->spec = tide_alloc(2 * n * sizeof(float));
    g->lift = tide_alloc(LIFT * n * sizeof(float));
  }
  if (!g->depth || (full && (!g->normal || !g->albedo || !g->spec || !g->lift))) return TIDE_ENOMEM;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < (int64_t)n; k++)
    g->depth[k] = FLT_MAX;
  return TIDE_OK;
}

static void gbuf_free(gbuf *g) {
  size_t n = (size_t)g->w * g->h;
  if (g->depth) tide_free(g->depth, n * sizeof(float));
  if (g->normal) tide_free(g->normal, 3 * n * sizeof(float));
  if (g->albedo) tide_free(g->albedo, 3 * n * sizeof(float));
  if (g->spec) tide_free(g->spec, 2 * n * sizeof(float));
  if (g->lift) tide_free(g->lift, LIFT * n * sizeof(float));
}

/* the camera ray through sample (sx, sy): origin o and direction d with
 * dot(d, F) = 1, so the view depth of o + t d is t (plus the origin's) */
static inline void camera_ray(const proj *P, double sx, double sy, double o[3], double d[3]) {
  double a = (sx - P->cx) / P->f, b = -(sy - P->cy) / P->f;
  for (int k = 0; k < 3; k++) {
    if (P->ortho) {
      o[k] = P->pos[k] + a * P->R[k] + b * P->U[k];
      d[k] = P->F[k];
    } else {
      o[k] = P->pos[k];
      d[k] = P->F[k] + a * P->R[k] + b * P->U[k];
    }
  }
}

/* fraction of light reaching p from the shadow map (3x3 PCF) */
static float shadow_frac(const proj *L, const gbuf *sm, const double p[3], const float n[3],
                         double texel) {
  /* depth bias: 1.5 texels plus the depth change across 2 texels of a surface
   * with normal n (the facet's when known) tilted away from the light */
  double v[3];
  to_view(L, p, v);
  double sx, sy;
  view_to_screen(L, v, &sx, &sy);
  double ndl = fabs(n[0] * L->F[0] + n[1] * L->F[1] + n[2] * L->F[2]);
  double bias = texel * (1.5 + 2.0 * sqrt(fmax(0, 1 - ndl * ndl)) / fmax(ndl, 0.2));
  int ci = (int)floor(sx), cj = (int)floor(sy);
  int lit = 0, tot = 0;
  for (int dj = -1; dj <= 1; dj++)
    for (int di = -1; di <= 1; di++) {
      int i = ci + di, j = cj + dj;
      tot++;
      if (i < 0 || j < 0 || i >= sm->w || j >= sm->h) {
        lit++;
        continue;
      }
      if (v[2] - bias <= sm->depth[(int64_t)j * sm->w + i]) lit++;
    }
  return (float)lit / tot;
}

/* anti-aliased 3D line with depth test into the supersampled colour buffer */
static void line3d(float *rgb, const gbuf *g, const proj *P, const double a[3], const double b[3],
                   double width, const float col[3]) {
  vtx va, vb;
  memset(&va, 0, sizeof va);
  memset(&vb, 0, sizeof vb);
  to_view(P, a, va.v);
  to_view(P, b, vb.v);
  if (!P->ortho) {
    int ain = va.v[2] >= P->near, bin = vb.v[2] >= P->near;
    if (!ain && !bin) return;
    if (!ain) vtx_lerp(&va, &vb, (P->near - va.v[2]) / (vb.v[2] - va.v[2]), &va);
    if (!bin) vtx_lerp(&vb, &va, (P->near - vb.v[2]) / (va.v[2] - vb.v[2]), &vb);
  }
  double x0, y0, x1, y1;
  view_to_screen(P, va.v, &x0, &y0);
  view_to_screen(P, vb.v, &x1, &y1);
  double hw = 0.5 * width, ex = x1 - x0, ey = y1 - y0, l2 = ex * ex + ey * ey;
  int i0 = (int)floor(fmin(x0, x1) - hw - 1), i1 = (int)ceil(fmax(x0, x1) + hw + 1);
  int j0 = (int)floor(fmin(y0, y1) - hw - 1), j1 = (int)ceil(fmax(y0, y1) + hw + 1);
  if (i0 < 0) i0 = 0;
  if (j0 < 0) j0 = 0;
  if (i1 > g->w) i1 = g->w;
  if (j1 > g->h) j1 = g->h;
  for (int j = j0; j < j1; j++)
    for (int i = i0; i < i1; i++) {
      double px = i + 0.5, py = j + 0.5;
      double t = l2 > 0 ? ((px - x0) * ex + (py - y0) * ey) / l2 : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      double dx = px - (x0 + t * ex), dy = py - (y0 + t * ey);
      double cov = hw + 0.5 - sqrt(dx * dx + dy * dy);
      if (cov <= 0) continue;
      if (cov > 1) cov = 1;
      double z =
          P->ortho ? va.v[2] + t * (vb.v[2] - va.v[2]) : 1.0 / ((1 - t) / va.v[2] + t / vb.v[2]);
      int64_t o = (int64_t)j * g->w + i;
      double gz = g->depth[o];
      float alpha = (float)cov * (z <= gz * (1 + 2e-3) + 1e-6 ? 1.0f : 0.22f); /* hidden: dimmed */
      for (int d = 0; d < 3; d++)
        rgb[3 * o + d] += alpha * (col[d] - rgb[3 * o + d]);
    }
}

int tide_render3d_draw(const tide_render3d *r, tide_canvas **out) {
  *out = NULL;
  int st = check_scene(r);
  if (st) return st;
  int ss = r->ss, W = r->width * ss, H = r->height * ss;
  proj P;
  if ((st = proj_setup(&P, &r->cam, W, H))) return st;

  geom G;
  gbuf g, sm;
  bins B, SB;
  memset(&g, 0, sizeof g);
  memset(&sm, 0, sizeof sm);
  memset(&B, 0, sizeof B);
  memset(&SB, 0, sizeof SB);
  float *rgb = NULL;
  size_t rgb_bytes = (size_t)W * H * 3 * sizeof(float);
  proj L;
  double texel = 0;
  memset(&L, 0, sizeof L);

  /* shadow map: orthographic view along light 0 around the scene */
  if (r->shadows && r->nlight > 0) {
    double c[3], rad;
    scene_bounds(r, c, &rad);
    tide_camera3d lc;
    memset(&lc, 0, sizeof lc);
    for (int d = 0; d < 3; d++) {
      lc.target[d] = c[d];
      lc.pos[d] = c[d] + 3 * rad * r->light_dir[0][d];
      lc.up[d] = d == 1;
    }
    lc.ortho = 2.05 * rad;
    int S = r->shadow_res;
    if ((st = proj_setup(&L, &lc, S, S))) return st;
    texel = lc.ortho / S;
    geom SG;
    if ((st = geom_build(&SG, r, &L, 0))) return st;
    st = gbuf_new(&sm, S, S, 0);
    if (!st) st = bins_build(&SB, S, S, SG.T, SG.ntri, SG.S, SG.nsph);
    if (!st) raster(&sm, &SB, &L, SG.T, SG.ntri, SG.S);
    geom_free(&SG);
    bins_free(&SB);
    if (st) goto done;
  }

  if ((st = geom_build(&G, r, &P, 1))) goto done;
  st = gbuf_new(&g, W, H, 1);
  if (!st) st = bins_build(&B, W, H, G.T, G.ntri, G.S, G.nsph);
  if (!st) raster(&g, &B, &P, G.T, G.ntri, G.S);
  geom_free(&G);
  bins_free(&B);
  if (st) goto done;

  rgb = tide_alloc(rgb_bytes);
  if (!rgb) {
    st = TIDE_ENOMEM;
    goto done;
  }
  {
    /* ground extent: a square around the scene */
    double gc[3], grad;
    scene_bounds(r, gc, &grad);
    double gext = 4 * grad;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < H; j++)
      for (int i = 0; i < W; i++) {
        int64_t o = (int64_t)j * W + i;
        double ro[3], rd[3];
        camera_ray(&P, i + 0.5, j + 0.5, ro, rd);
        /* ground plane */
        if (r->ground && fabs(rd[1]) > 1e-12) {
          double t = (r->ground_y - ro[1]) / rd[1];
          double zt = t; /* dot(rd, F) = 1 and ro lies in the camera plane */
          if (t > 0 && zt < g.depth[o]) {
            double x = ro[0] + t * rd[0], z = ro[2] + t * rd[2];
            if (fabs(x - gc[0]) < gext && fabs(z - gc[2]) < gext) {
              g.depth[o] = (float)zt;
              int parity = ((long)floor(x / r->ground_tile) + (long)floor(z / r->ground_tile)) & 1;
              for (int d = 0; d < 3; d++) {
                g.normal[3 * o + d] = d == 1 ? 1.0f : 0.0f;
                g.albedo[3 * o + d] = r->ground_color[parity][d];
              }
              g.spec[2 * o] = 0.05f;
              g.spec[2 * o + 1] = 20;
              memset(g.lift + LIFT * o, 0, LIFT * sizeof(float));
            }
          }
        }
        float *c = rgb + 3 * o;
        if (g.depth[o] == FLT_MAX) {
          float s = (float)(j + 0.5) / H;
          for (int d = 0; d < 3; d++)
            c[d] = (1 - s) * r->bg_top[d] + s * r->bg_bottom[d];
          continue;
        }
        /* shading: hemispherical ambient + Lambert + Blinn-Phong per light */
        double zt = g.depth[o];
        double p[3], V[3];
        double t = zt;
        for (int d = 0; d < 3; d++) {
          p[d] = ro[d] + t * rd[d];
          V[d] = -rd[d];
        }
        norm3(V);
        float n[3] = {g.normal[3 * o], g.normal[3 * o + 1], g.normal[3 * o + 2]};
        float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (nl > 0) n[0] /= nl, n[1] /= nl, n[2] /= nl;
        /* the side seen: a surface's back (two-sided shells) is shaded with
         * the normal turned over; where a front facet's smooth normal leans
         * away from the viewer (the silhouette of a coarse mesh) it is
         * bent into the visible half instead, not turned over (which lit
         * it from behind: dark dots along the outline) */
        const float *fg = g.lift + LIFT * o + 6; /* the facet's normal, 0 if none */
        float nv = n[0] * V[0] + n[1] * V[1] + n[2] * V[2];
        float fv = fg[0] * V[0] + fg[1] * V[1] + fg[2] * V[2];
        float fnn = fg[0] * n[0] + fg[1] * n[1] + fg[2] * n[2];
        if (fnn < 0) fv = -fv; /* the facet normal on the smooth normal's side */
        if (fnn != 0 && fv > 0 && nv < 0) {
          float b = 0.05f - nv;
          for (int d = 0; d < 3; d++)
            n[d] += b * (float)V[d];
          nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
          n[0] /= nl, n[1] /= nl, n[2] /= nl;
        } else if (nv < 0) {
          n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
        }
        float ks = g.spec[2 * o], sh = g.spec[2 * o + 1];
        if (ks < 0) ks = r->pspecular, sh = 40;
        const float *alb = g.albedo + 3 * o;
        float hemi = 0.5f * (1 + n[1]);
        float amb = r->ambient * (0.55f + 0.45f * hemi);
        float col[3] = {amb * alb[0], amb * alb[1], amb * alb[2]};
        for (int l = 0; l < r->nlight; l++) {
          const double *Ld = r->light_dir[l];
          double ndl = n[0] * Ld[0] + n[1] * Ld[1] + n[2] * Ld[2];
          if (ndl <= 0) continue;
          float vis = 1;
          if (l == 0 && sm.depth) {
            double q[3] = {p[0], p[1], p[2]}; /* the lift toward the light */
            for (int s = 0; s < 2; s++) {
              const float *lf = g.lift + LIFT * o + 3 * s;
              if (lf[0] * Ld[0] + lf[1] * Ld[1] + lf[2] * Ld[2] > 0)
                for (int d = 0; d < 3; d++)
                  q[d] += lf[d];
            }
            const float *fn = g.lift + LIFT * o + 6;
            vis = shadow_frac(&L, &sm, q, fn[0] != 0 || fn[1] != 0 || fn[2] != 0 ? fn : n, texel);
          }
          if (vis <= 0) continue;
          double Hh[3] = {Ld[0] + V[0], Ld[1] + V[1], Ld[2] + V[2]};
          norm3(Hh);
          double ndh = n[0] * Hh[0] + n[1] * Hh[1] + n[2] * Hh[2];
          float spec = ndh > 0 && ks > 0 ? ks * (float)pow(ndh, sh) : 0;
          for (int d = 0; d < 3; d++)
            col[d] += vis * r->light_color[l][d] * ((float)ndl * alb[d] + spec);
        }
        for (int d = 0; d < 3; d++)
          c[d] = col[d];
      }
  }
  /* wireframes and the domain box, depth-tested */
  for (int m = 0; m < r->nmesh; m++) {
    const tide_mesh3d *M = &r->mesh[m];
    if (!(M->wire > 0)) continue;
    for (int64_t t = 0; t < M->nt; t++)
      for (int e = 0; e < 3; e++) {
        int32_t a = M->t[3 * t + e], b = M->t[3 * t + (e + 1) % 3];
        line3d(rgb, &g, &P, M->v + 3 * a, M->v + 3 * b, M->wire * ss, M->wire_color);
      }
  }
  if (r->box) {
    for (int e = 0; e < 12; e++) {
      int axis = e / 4, k = e % 4;
      double a[3], b[3];
      int o1 = (axis + 1) % 3, o2 = (axis + 2) % 3;
      a[axis] = r->box_lo[axis];
      b[axis] = r->box_hi[axis];
      a[o1] = b[o1] = (k & 1) ? r->box_hi[o1] : r->box_lo[o1];
      a[o2] = b[o2] = (k & 2) ? r->box_hi[o2] : r->box_lo[o2];
      line3d(rgb, &g, &P, a, b, r->box_width * ss, r->box_color);
    }
  }
  /* downsample */
  {
    float bg[3] = {0, 0, 0};
    tide_canvas *cv;
    if ((st = tide_canvas_new(r->width, r->height, bg, &cv))) goto done;
    float inv = 1.0f / (ss * ss);
#pragma omp parallel for schedule(static)
    for (int j = 0; j < r->height; j++)
      for (int i = 0; i < r->width; i++) {
        float acc[3] = {0, 0, 0};
        for (int b = 0; b < ss; b++)
          for (int a = 0; a < ss; a++) {
            const float *s = rgb + 3 * ((int64_t)(j * ss + b) * W + i * ss + a);
            acc[0] += s[0], acc[1] += s[1], acc[2] += s[2];
          }
        float *d = cv->rgb + 3 * ((int64_t)j * r->width + i);
        d[0] = acc[0] * inv, d[1] = acc[1] * inv, d[2] = acc[2] * inv;
      }
    *out = cv;
  }
done:
  if (rgb) tide_free(rgb, rgb_bytes);
  gbuf_free(&g);
  gbuf_free(&sm);
  if (st == TIDE_ENOMEM) return tide_fail(TIDE_ENOMEM, "render3d: out of memory");
  return st;
}
