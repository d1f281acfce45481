/*
 * mpm.c -- explicit MLS-MPM on a collocated node grid (see mpm.h).
 */
#include "mpm/mpm.h"

#include "linalg/linalg.h"
#include "solid/small.h"
#include "tide.h"

#include <math.h>
#ifdef __FMA__
#include <immintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ weights */

/* B-spline weights along one axis for the particle coordinate fx (in node
 * units): the first node `base` and the order + 1 weights w[] of nodes
 * base .. base + order (quadratic: 3 nodes, cubic: 4). */
static inline int bspline(int order, double fx, double *w) {
  if (order == 2) {
    int base = (int)floor(fx - 0.5);
    double r = fx - base; /* in [0.5, 1.5) from node base */
    double a = 1.5 - r, b = r - 1, c = r - 0.5;
    w[0] = 0.5 * a * a;
    w[1] = 0.75 - b * b;
    w[2] = 0.5 * c * c;
    return base;
  }
  int base = (int)floor(fx) - 1;
  double r = fx - base; /* in [1, 2) from node base */
  double r0 = r, r1 = r - 1, r2 = 2 - r, r3 = 3 - r;
  double a0 = 2 - r0, a3 = 2 - r3;
  w[0] = a0 * a0 * a0 / 6;
  w[1] = 0.5 * r1 * r1 * r1 - r1 * r1 + 2.0 / 3;
  w[2] = 0.5 * r2 * r2 * r2 - r2 * r2 + 2.0 / 3;
  w[3] = a3 * a3 * a3 / 6;
  return base;
}

/* D_p^-1 = 4/dx^2 (quadratic), 3/dx^2 (cubic) */
static inline double dinv(const tide_mpm *m) {
  return (m->order == 2 ? 4.0 : 3.0) / (m->g.dx * m->g.dx);
}

/* node strides (2D: k extent 1) */
static inline void node_strides(const tide_mpm *m, int64_t s[3]) {
  int64_t nk = m->dim == 3 ? m->g.n[2] + 1 : 1;
  s[2] = 1;
  s[1] = nk;
  s[0] = (int64_t)(m->g.n[1] + 1) * nk;
}

/* storage index of node (i, j, k) (k = 0 in 2D) */
static inline int64_t node_addr(const tide_mpm *m, const int64_t s[3], int i, int j, int k) {
  if (!m->sparse) return i * s[0] + j * s[1] + k * s[2];
  int64_t b = ((int64_t)(i >> 2) * m->nb[1] + (j >> 2)) * m->nb[2] + (k >> 2);
  int64_t local = m->dim == 3 ? ((i & 3) * 4 + (j & 3)) * 4 + (k & 3) : (i & 3) * 4 + (j & 3);
  return (int64_t)m->slot[b] * m->bvol + local;
}

/* node (i, j, k) of storage index id; 0 when it lies outside the grid (a
 * block's nodes beyond the last node plane) */
static inline int node_ijk(const tide_mpm *m, const int64_t s[3], int64_t id, int ijk[3]) {
  if (!m->sparse) {
    int64_t nj = m->g.n[1] + 1, nk = m->dim == 3 ? m->g.n[2] + 1 : 1;
    ijk[0] = (int)(id / s[0]);
    ijk[1] = (int)((id / s[1]) % nj);
    ijk[2] = m->dim == 3 ? (int)(id % nk) : 0;
    return 1;
  }
  int64_t b = m->active[id / m->bvol], local = id % m->bvol;
  int bk = (int)(b % m->nb[2]), bj = (int)((b / m->nb[2]) % m->nb[1]),
      bi = (int)(b / ((int64_t)m->nb[2] * m->nb[1]));
  if (m->dim == 3) {
    ijk[0] = 4 * bi + (int)(local / 16);
    ijk[1] = 4 * bj + (int)((local / 4) % 4);
    ijk[2] = 4 * bk + (int)(local % 4);
  } else {
    ijk[0] = 4 * bi + (int)(local / 4);
    ijk[1] = 4 * bj + (int)(local % 4);
    ijk[2] = 0;
  }
  for (int a = 0; a < m->dim; a++)
    if (ijk[a] > m->g.n[a]) return 0;
  return 1;
}

/* ------------------------------------------------------- construction */

int tide_mpm_new(const tide_grid *g, int order, tide_mpm **out) {
  *out = NULL;
  int st;
  if ((st = tide_sdf_check_grid(g, TIDE_AT_NODES, "tide.mpm"))) return st;
  if (order != 2 && order != 3)
    return tide_fail(TIDE_EINVAL, "B-spline order must be 2 (quadratic) or 3 (cubic), got %d",
                     order);
  for (int a = 0; a < g->dim; a++)
    if (g->n[a] < 6)
      return tide_fail(TIDE_EINVAL,
                       "MPM grid needs at least 6 cells per axis (walls and stencils), got %d",
                       g->n[a]);
  tide_mpm *m = tide_calloc(sizeof *m);
  if (!m) return TIDE_ENOMEM;
  m->dim = g->dim;
  m->order = order;
  m->g = *g;
  m->nn = 1;
  for (int a = 0; a < g->dim; a++)
    m->nn *= g->n[a] + 1;
  for (int s = 0; s < 6; s++)
    m->wall_bc[s] = -1;
  m->wall_nodes = 3;
  if ((st = tide_particles_new(g->dim, 1024, 1, &m->ps))) {
    tide_free(m, sizeof *m);
    return st;
  }
  m->nm = tide_array_new1(TIDE_F64, m->nn);
  m->nv = tide_array_new2(TIDE_F64, m->nn, m->dim);
  m->node_cap = m->nn;
  m->bvol = g->dim == 3 ? 64 : 16;
  m->nbtot = 1;
  for (int a = 0; a < 3; a++) {
    m->nb[a] = a < g->dim ? g->n[a] / TIDE_MPM_BLOCK + 1 : 1;
    m->nbtot *= m->nb[a];
  }
  if (!m->nm || !m->nv || (st = tide_mpm_reserve(m, 1024))) {
    tide_mpm_free(m);
    return st ? st : TIDE_ENOMEM;
  }
  *out = m;
  return TIDE_OK;
}

void tide_mpm_free(tide_mpm *m) {
  if (!m) return;
  tide_particles_free(m->ps);
  tide_array *arrs[] = {m->F, m->vol0, m->mass, m->Jp, m->mat, m->nm, m->nv, m->nvol};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    tide_array_release(arrs[i]);
  for (int c = 0; c < m->ncoll; c++)
    tide_shape_release(m->coll[c].shape);
  tide_free(m->slot, sizeof(int32_t) * (size_t)m->nbtot);
  tide_free(m->mark, (size_t)m->nbtot);
  tide_free(m->active, sizeof(int64_t) * (size_t)m->actcap);
  tide_free(m->acc, sizeof(double) * 4 * (size_t)m->acc_cap);
  tide_free(m, sizeof *m);
}

int64_t tide_mpm_bytes(const tide_mpm *m) {
  int64_t b = tide_particles_bytes(m->ps);
  const tide_array *arrs[] = {m->F, m->vol0, m->mass, m->Jp, m->mat, m->nm, m->nv, m->nvol};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
    if (arrs[i]) b += tide_array_size(arrs[i]) * (int64_t)tide_dtype_size(arrs[i]->dtype);
  if (m->slot) b += (int64_t)m->nbtot * 5 + m->actcap * 8;
  b += m->acc_cap * 32;
  return b + (int64_t)sizeof *m;
}

/* node mass and velocity arrays of cap nodes (contents undefined) */
static int node_arrays(tide_mpm *m, int64_t cap) {
  tide_array *nm = tide_array_new1(TIDE_F64, cap), *nv = tide_array_new2(TIDE_F64, cap, m->dim);
  if (!nm || !nv) {
    tide_array_release(nm);
    tide_array_release(nv);
    return TIDE_ENOMEM;
  }
  if (m->nvol) {
    tide_array *nvol = tide_array_new1(TIDE_F64, cap);
    if (!nvol) {
      tide_array_release(nm);
      tide_array_release(nv);
      return TIDE_ENOMEM;
    }
    tide_array_release(m->nvol);
    m->nvol = nvol;
  }
  tide_array_release(m->nm);
  tide_array_release(m->nv);
  m->nm = nm, m->nv = nv, m->node_cap = cap;
  return TIDE_OK;
}

int tide_mpm_set_node_volume(tide_mpm *m, int on) {
  if (!on) {
    tide_array_release(m->nvol);
    m->nvol = NULL;
    return TIDE_OK;
  }
  if (m->nvol) return TIDE_OK;
  m->nvol = tide_array_new1(TIDE_F64, m->node_cap);
  if (!m->nvol) return TIDE_ENOMEM;
  memset(TIDE_F64P(m->nvol), 0, sizeof(double) * (size_t)m->node_cap);
  return TIDE_OK;
}

int tide_mpm_set_sparse(tide_mpm *m, int sparse) {
  if (!!sparse == m->sparse) return TIDE_OK;
  if (sparse && !m->slot) {
    m->slot = tide_alloc(sizeof(int32_t) * (size_t)m->nbtot);
    m->mark = tide_calloc((size_t)m->nbtot);
    if (!m->slot || !m->mark) return TIDE_ENOMEM;
    for (int64_t b = 0; b < m->nbtot; b++)
      m->slot[b] = -1;
  }
  int64_t nn = 1;
  for (int a = 0; a < m->dim; a++)
    nn *= m->g.n[a] + 1;
  m->sparse = !!sparse;
  m->nn = sparse ? 0 : nn;
  m->nact = 0;
  /* dense: the full node arrays again; sparse: grown at the next P2G */
  return node_arrays(m, sparse ? 1 : nn);
  return TIDE_OK;
}

typedef struct {
  uint64_t code;
  int64_t block;
} morton_block;

static int by_code(const void *a, const void *b) {
  uint64_t x = ((const morton_block *)a)->code, y = ((const morton_block *)b)->code;
  return x < y ? -1 : x > y;
}

/* Allocate the blocks the stencils of the binned particles touch: the
 * particles of cell i reach nodes i-1 .. i+2 along each axis. */
static int activate_blocks(tide_mpm *m) {
  const tide_particles *ps = m->ps;
  int d = m->dim, ni = m->g.n[0], nj = m->g.n[1], nk = m->g.n[2];
  unsigned char *mark = m->mark;
  memset(mark, 0, (size_t)m->nbtot);
#pragma omp parallel for schedule(static) if ((int64_t)ni * nj * nk > TIDE_PAR_MIN)
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++) {
        int64_t cell = ((int64_t)i * nj + j) * nk + k;
        if (ps->cell_start[cell] == ps->cell_start[cell + 1]) continue;
        int lo[3] = {i - 1, j - 1, k - 1}, hi[3] = {i + 2, j + 2, k + 2};
        for (int a = 0; a < 3; a++) {
          lo[a] = a >= d || lo[a] < 0 ? 0 : lo[a] >> 2;
          hi[a] = a >= d ? 0 : (hi[a] > m->g.n[a] ? m->g.n[a] : hi[a]) >> 2;
        }
        for (int bi = lo[0]; bi <= hi[0]; bi++)
          for (int bj = lo[1]; bj <= hi[1]; bj++)
            for (int bk = lo[2]; bk <= hi[2]; bk++) {
              int64_t b = ((int64_t)bi * m->nb[1] + bj) * m->nb[2] + bk;
#pragma omp atomic write
              mark[b] = 1;
            }
      }
  int64_t cnt = 0;
  for (int64_t b = 0; b < m->nbtot; b++)
    cnt += mark[b];
  size_t lb = sizeof(morton_block) * (size_t)(cnt > 0 ? cnt : 1);
  morton_block *list = tide_alloc(lb);
  if (!list) return TIDE_ENOMEM;
  int64_t q = 0;
  for (int64_t b = 0; b < m->nbtot; b++) {
    m->slot[b] = -1;
    if (!mark[b]) continue;
    int bk = (int)(b % m->nb[2]), bj = (int)((b / m->nb[2]) % m->nb[1]),
        bi = (int)(b / ((int64_t)m->nb[2] * m->nb[1]));
    list[q].code = tide_morton(d, bi, bj, bk);
    list[q].block = b;
    q++;
  }
  qsort(list, (size_t)cnt, sizeof *list, by_code);
  if (cnt > m->actcap) {
    int64_t c = cnt + cnt / 2 + 16;
    tide_free(m->active, sizeof(int64_t) * (size_t)m->actcap);
    m->active = tide_alloc(sizeof(int64_t) * (size_t)c);
    m->actcap = m->active ? c : 0;
    if (!m->active) {
      tide_free(list, lb);
      return TIDE_ENOMEM;
    }
  }
  for (int64_t r = 0; r < cnt; r++) {
    m->active[r] = list[r].block;
    m->slot[list[r].block] = (int32_t)r;
  }
  tide_free(list, lb);
  m->nact = cnt;
  int64_t nn = cnt * m->bvol;
  int st;
  if (nn > m->node_cap && (st = node_arrays(m, nn + nn / 2 + m->bvol))) return st;
  m->nn = nn;
  return TIDE_OK;
}

/* grow one attribute array to cap rows of `cols` entries, keeping n rows */
static int grow(tide_array **a, tide_dtype t, int64_t n, int64_t cap, int64_t cols) {
  tide_array *b = tide_array_new2(t, cap, cols);
  if (!b) return TIDE_ENOMEM;
  if (*a) memcpy(tide_array_ptr(b), tide_array_ptr(*a), (size_t)(n * cols) * tide_dtype_size(t));
  tide_array_release(*a);
  *a = b;
  return TIDE_OK;
}

int tide_mpm_reserve(tide_mpm *m, int64_t cap) {
  if (cap <= m->cap) return TIDE_OK;
  int st, d = m->dim;
  /* rows holding attributes: the particles, as far as the old arrays reach
   * (seeding grows the particle set before the attributes) */
  int64_t n = m->ps->n < m->cap ? m->ps->n : m->cap;
  if ((st = tide_particles_reserve(m->ps, cap))) return st;
  if ((st = grow(&m->F, TIDE_F64, n, cap, d * d)) || (st = grow(&m->vol0, TIDE_F64, n, cap, 1)) ||
      (st = grow(&m->mass, TIDE_F64, n, cap, 1)) || (st = grow(&m->Jp, TIDE_F64, n, cap, 1)) ||
      (st = grow(&m->mat, TIDE_I32, n, cap, 1)))
    return st;
  m->cap = cap;
  return TIDE_OK;
}

int tide_mpm_add_material(tide_mpm *m, const tide_mpm_material *mat, int *index) {
  int st;
  if (m->nmat >= TIDE_MPM_MAXMAT)
    return tide_fail(TIDE_EINVAL, "at most %d MPM materials", TIDE_MPM_MAXMAT);
  if ((st = tide_material_check(&mat->elastic))) return st;
  if (mat->elastic.model == TIDE_MODEL_LINEAR)
    return tide_fail(TIDE_EINVAL, "MPM needs a rotation-invariant model (the linear model is not)");
  if (!(mat->rho > 0 && isfinite(mat->rho)))
    return tide_fail(TIDE_EINVAL, "density must be > 0, got %g", mat->rho);
  if (mat->plastic < TIDE_MPM_ELASTIC || mat->plastic > TIDE_MPM_SAND)
    return tide_fail(TIDE_EINVAL, "unknown plasticity %d", mat->plastic);
  if (mat->plastic == TIDE_MPM_SNOW &&
      !(mat->theta_c > 0 && mat->theta_c < 1 && mat->theta_s > 0 && isfinite(mat->theta_s) &&
        mat->xi >= 0 && isfinite(mat->xi)))
    return tide_fail(TIDE_EINVAL, "snow needs 0 < theta_c < 1, theta_s > 0, xi >= 0");
  if (mat->plastic == TIDE_MPM_SAND && !(mat->friction_angle > 0 && mat->friction_angle < M_PI / 2))
    return tide_fail(TIDE_EINVAL, "sand needs a friction angle in (0, 90) degrees");
  if (mat->plastic == TIDE_MPM_SAND &&
      !(mat->cone >= TIDE_MPM_CONE_SHEAR && mat->cone <= TIDE_MPM_CONE_COMPRESSION))
    return tide_fail(TIDE_EINVAL, "unknown Drucker-Prager cone %d", mat->cone);
  if (mat->plastic == TIDE_MPM_FLUID &&
      !(mat->elastic.model == TIDE_MODEL_FIXED_COROTATED && mat->elastic.mu == 0))
    return tide_fail(TIDE_EINVAL,
                     "a fluid material is the fixed-corotated model with mu = 0 (kappa = lambda)");
  m->mats[m->nmat] = *mat;
  *index = m->nmat++;
  return TIDE_OK;
}

/* ------------------------------------------------------------ seeding */

/* lowest and highest particle coordinate (node units) with valid stencils */
static inline void band(const tide_mpm *m, int a, double *lo, double *hi) {
  *lo = 1.0;
  *hi = m->g.n[a] - 1.0;
}

/* --------------------------------------------------------- stencils */

#define MPM_INLINE static inline __attribute__((always_inline))
/* complete unrolling of the fixed-size stencil loops (GCC -O2 keeps them as loops) */
#define MPM_UNROLL _Pragma("GCC unroll 16")
/* four doubles, element-wise IEEE arithmetic (GCC/Clang vector extension):
 * the stencil kernels keep a node's components (and mass) in the lanes */
typedef double mpm_v4 __attribute__((vector_size(32)));
typedef double mpm_v4u __attribute__((vector_size(32), aligned(8))); /* unaligned in memory */

/* a b + c, fused (one rounding) where the target has FMA, else two
 * roundings: either way the same in every kernel instance and thread.
 * Macros, not functions: a 32-byte vector argument or result of a function
 * has an AVX-dependent ABI (GCC's -Wpsabi on targets without AVX) */
#ifdef __FMA__
#define FMA4(a, b, c) ((mpm_v4)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#else
#define FMA4(a, b, c) ((a) * (b) + (c))
#endif
MPM_INLINE double fma1(double a, double b, double c) {
#ifdef __FMA__
  return fma(a, b, c);
#else
  return a * b + c;
#endif
}
/* a in all four lanes */
#define BC4(a) ((mpm_v4){(a), (a), (a), (a)})
/* four int32 lanes (mpm_i4) to doubles, exactly; with AVX one instruction
 * (GCC's __builtin_convertvector took four: two halves, a shuffle, an insert) */
#ifdef __AVX__
#define I2D4(i) ((mpm_v4)_mm256_cvtepi32_pd((__m128i)(i)))
#else
#define I2D4(i) __builtin_convertvector((i), mpm_v4)
#endif

/* The B-spline stencils of four particles, lane b particle b: per axis the
 * weights w[a][t][b] and offsets r[a][t][b] = (x_node - x_p) / dx of their
 * O = order + 1 nodes, the products w01[t0 O + t1][b] = w[0][t0] w[1][t1]
 * and wr[a][t][b] = w[a][t] r[a][t], and the node storage indices: dense,
 * b0[b] + roff[t0 O + t1] is 4 x that of node (t0, t1, 0) (b0 of the first
 * node, roff the same for every particle: row_offsets), its z-row
 * neighbours follow at + 4 t2; sparse (SP), node (t0, t1, t2) is at
 * id[b][(t0 O + t1) O + t2] (2D: id[b][t0 O + t1]).  D, O and SP are
 * compile-time constants in the kernels below (always inlined), so every
 * loop over the stencil has a fixed trip count. */
typedef struct {
  double w[3][4][4], r[3][4][4], wr[3][4][4], w01[16][4];
  int64_t b0[4];
  const int64_t *roff;
  int64_t id[4][64];
} __attribute__((aligned(32))) stencil4_t;

/* 4 x the storage index of node (t0, t1, t2) of lane b's stencil: its
 * offset in the 4-lane node arrays */
MPM_INLINE int64_t st_node4(const stencil4_t *S, int b, int D, int O, int SP, int t0, int t1, int t2) {
  return SP ? 4 * S->id[b][(t0 * O + t1) * (D == 3 ? O : 1) + t2] : S->b0[b] + S->roff[t0 * O + t1] + 4 * t2;
}

/* dense stencils: 4 x the storage offset of node (t0, t1, 0) from node
 * (0, 0, 0) of the stencil at roff[t0 O + t1] (the same for every particle) */
static void row_offsets(const tide_mpm *m, const int64_t s[3], int64_t roff[16]) {
  int O = m->order + 1;
  for (int t0 = 0; t0 < O; t0++)
    for (int t1 = 0; t1 < O; t1++)
      roff[t0 * O + t1] = 4 * (t0 * s[0] + t1 * s[1]);
}

typedef int32_t mpm_i4 __attribute__((vector_size(16)));
typedef int64_t mpm_l4 __attribute__((vector_size(32)));

/* the stencils of the particles at xp[0 .. 3] in SIMD lanes, each lane
 * rounding as bspline does one particle (element-wise IEEE operations in
 * the same order: the same bits); returns the lanes (bit b) whose particle
 * lies inside the band of valid stencils [1, hi[a]] (node units; not NaN);
 * the others' entries are undefined.  With cell (its D indices), *off gets
 * the lanes whose particle is not in that cell (tide_particles_cell: inside
 * the band the truncated node coordinates) */
MPM_INLINE int stencil4_at(const tide_mpm *m, const int64_t s[3], const int64_t *roff, int D, int O, int SP,
                           const double *const xp[4], double inv, const double *hi, stencil4_t *S,
                           const int *cell, int *off) {
  mpm_v4 fx[3];
  mpm_l4 in = {-1, -1, -1, -1};
  mpm_i4 base[3] = {{0}};
  MPM_UNROLL
  for (int a = 0; a < D; a++) {
    mpm_v4 x = {xp[0][a], xp[1][a], xp[2][a], xp[3][a]};
    fx[a] = (x - m->g.origin[a]) * inv;
    in &= (fx[a] >= 1.0) & (fx[a] <= hi[a]);
  }
  int lanes = (int)(in[0] & 1) | (int)(in[1] & 2) | (int)(in[2] & 4) | (int)(in[3] & 8);
  S->roff = roff;
  if (!lanes) return 0;
  mpm_i4 away = {0};
  MPM_UNROLL
  for (int a = 0; a < D; a++) {
    /* lanes outside the band at 1 (a defined conversion); inside fx >= 1,
     * so the conversion's truncation is bspline's floor */
    mpm_v4 f = (mpm_v4)(((mpm_l4)fx[a] & in) | ((mpm_l4)BC4(1.0) & ~in));
    if (cell) away |= __builtin_convertvector(f, mpm_i4) != cell[a];
    base[a] = __builtin_convertvector(O == 3 ? f - 0.5 : f, mpm_i4) - (O == 3 ? 0 : 1);
    mpm_v4 r = f - I2D4(base[a]), *w = (mpm_v4 *)S->w[a];
    if (O == 3) { /* r in [0.5, 1.5) from node base */
      mpm_v4 p = 1.5 - r, q = r - 1, c = r - 0.5;
      w[0] = 0.5 * p * p;
      w[1] = 0.75 - q * q;
      w[2] = 0.5 * c * c;
    } else { /* r in [1, 2) */
      mpm_v4 r1 = r - 1, r2 = 2 - r, r3 = 3 - r, a0 = 2 - r, a3 = 2 - r3;
      w[0] = a0 * a0 * a0 / 6;
      w[1] = 0.5 * r1 * r1 * r1 - r1 * r1 + 2.0 / 3;
      w[2] = 0.5 * r2 * r2 * r2 - r2 * r2 + 2.0 / 3;
      w[3] = a3 * a3 * a3 / 6;
    }
    MPM_UNROLL
    for (int t = 0; t < O; t++) {
      mpm_v4 rt = (double)t - r;
      *(mpm_v4 *)S->r[a][t] = rt;
      *(mpm_v4 *)S->wr[a][t] = w[t] * rt;
    }
  }
  MPM_UNROLL
  for (int t0 = 0; t0 < O; t0++)
    MPM_UNROLL
    for (int t1 = 0; t1 < O; t1++)
      *(mpm_v4 *)S->w01[t0 * O + t1] = *(mpm_v4 *)S->w[0][t0] * *(mpm_v4 *)S->w[1][t1];
  if (cell) *off = (away[0] & 1) | (away[1] & 2) | (away[2] & 4) | (away[3] & 8);
  if (!SP) {
    MPM_UNROLL
    for (int b = 0; b < 4; b++)
      S->b0[b] = 4 * (base[0][b] * s[0] + base[1][b] * s[1] + (D == 3 ? base[2][b] : 0));
    return lanes;
  }
  /* sparse: slot(block) bvol + local index, split into per-axis parts */
  int64_t bs[3] = {(int64_t)m->nb[1] * m->nb[2], m->nb[2], 1}, ls[3] = {D == 3 ? 16 : 4, D == 3 ? 4 : 1, 1};
  int O2 = D == 3 ? O : 1;
  for (int b = 0; b < 4; b++) {
    if (!(lanes >> b & 1)) continue;
    int64_t bo[3][4] = {{0}}, lo[3][4] = {{0}};
    MPM_UNROLL
    for (int a = 0; a < D; a++)
      MPM_UNROLL
      for (int t = 0; t < O; t++) {
        int64_t i = (int64_t)base[a][b] + t;
        bo[a][t] = (i >> 2) * bs[a];
        lo[a][t] = (i & 3) * ls[a];
      }
    int q = 0;
    MPM_UNROLL
    for (int t0 = 0; t0 < O; t0++)
      MPM_UNROLL
      for (int t1 = 0; t1 < O; t1++)
        MPM_UNROLL
        for (int t2 = 0; t2 < O2; t2++)
          S->id[b][q++] = (int64_t)m->slot[bo[0][t0] + bo[1][t1] + bo[2][t2]] * m->bvol + lo[0][t0] +
                          lo[1][t1] + lo[2][t2];
  }
  return lanes;
}

int tide_mpm_seed(tide_mpm *m, const tide_shape *shape, int per_cell, double jitter,
                  uint64_t stream, int mat, const double *vel, const double *gradv,
                  int64_t *added) {
  int st, d = m->dim;
  if (added) *added = 0;
  if (mat < 0 || mat >= m->nmat)
    return tide_fail(TIDE_EINVAL, "material %d does not exist (%d defined)", mat + 1, m->nmat);
  if (!shape) return tide_fail(TIDE_EINVAL, "seeding needs a shape");
  int64_t n0 = m->ps->n, got = 0;
  if ((st = tide_particles_seed(m->ps, &m->g, shape, NULL, per_cell, jitter, stream, NULL, NULL,
                                &got)))
    return st;
  int64_t n1 = m->ps->n;
  if ((st = tide_mpm_reserve(m, m->ps->cap > n1 ? m->ps->cap : n1))) return st;
  double *x = TIDE_F64P(m->ps->x), *v = TIDE_F64P(m->ps->v), *c = TIDE_F64P(m->ps->c);
  double *F = TIDE_F64P(m->F), *V0 = TIDE_F64P(m->vol0), *M = TIDE_F64P(m->mass),
         *Jp = TIDE_F64P(m->Jp);
  int32_t *mi = TIDE_I32P(m->mat);
  double vol = pow(m->g.dx, d) / per_cell, inv = 1 / m->g.dx;
  /* keep the candidates whose stencils fit the grid, in order */
  int64_t w = n0;
  for (int64_t p = n0; p < n1; p++) {
    int ok = 1;
    for (int a = 0; a < d; a++) {
      double fx = (x[p * d + a] - m->g.origin[a]) * inv, lo, hi;
      band(m, a, &lo, &hi);
      ok &= fx >= lo && fx < hi;
    }
    if (!ok) continue;
    for (int a = 0; a < d; a++)
      x[w * d + a] = x[p * d + a];
    w++;
  }
  /* the velocity gradient acts about the centroid of the new particles */
  double centre[3] = {0, 0, 0};
  for (int64_t p = n0; p < w; p++)
    for (int a = 0; a < d; a++)
      centre[a] += x[p * d + a];
  for (int a = 0; a < d; a++)
    centre[a] = w > n0 ? centre[a] / (double)(w - n0) : 0;
  for (int64_t p = n0; p < w; p++) {
    for (int a = 0; a < d; a++) {
      double s = vel ? vel[a] : 0;
      if (gradv)
        for (int b = 0; b < d; b++)
          s += gradv[a * d + b] * (x[p * d + b] - centre[b]);
      v[p * d + a] = s;
      for (int b = 0; b < d; b++) {
        c[(p * d + a) * d + b] = gradv ? gradv[a * d + b] : 0;
        F[(p * d + a) * d + b] = a == b;
      }
    }
    V0[p] = vol;
    M[p] = m->mats[mat].rho * vol;
    Jp[p] = 1;
    mi[p] = mat;
  }
  if ((st = tide_particles_resize(m->ps, w))) return st;
  if (added) *added = w - n0;
  return TIDE_OK;
}

/* ------------------------------------------------------------- sorting */

static int permute(tide_array *a, const int64_t *order, int64_t n, int64_t cols, void *tmp) {
  size_t es = tide_dtype_size(a->dtype) * (size_t)cols;
  char *src = tide_array_ptr(a), *dst = tmp;
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t q = 0; q < n; q++)
    memcpy(dst + (size_t)q * es, src + (size_t)order[q] * es, es);
  memcpy(src, dst, es * (size_t)n);
  return TIDE_OK;
}

int tide_mpm_sort(tide_mpm *m) {
  int st, d = m->dim;
  tide_particles *ps = m->ps;
  if ((st = tide_particles_bin(ps, &m->g))) return st;
  int64_t n = ps->n;
  size_t bytes = (size_t)(n > 0 ? n : 1) * (size_t)(d * d) * sizeof(double);
  void *tmp = tide_alloc(bytes);
  if (!tmp) return TIDE_ENOMEM;
  /* ps->order is the stable by-cell order tide_particles_sort applies to x, v, c */
  permute(m->F, ps->order, n, d * d, tmp);
  permute(m->vol0, ps->order, n, 1, tmp);
  permute(m->mass, ps->order, n, 1, tmp);
  permute(m->Jp, ps->order, n, 1, tmp);
  permute(m->mat, ps->order, n, 1, tmp);
  tide_free(tmp, bytes);
  return tide_particles_sort(ps, &m->g);
}

/* -------------------------------------------------------------- stress */

/* The Kirchhoff-like term P(F) F^T of particle p (d x d) with its
 * material's plasticity state: snow scales mu and lambda by
 * exp(xi (1 - J_p)); fluids use P F^T = kappa (J - 1) J I, the fixed-
 * corotated model with mu = 0 at F = J^(1/d) I. */
static void stress_term(const tide_mpm *m, int mat, const double *F, double Jp, double *PFt) {
  int d = m->dim;
  const tide_mpm_material *mt = &m->mats[mat];
  if (mt->plastic == TIDE_MPM_FLUID) {
    double J = tide_det(d, F), s = mt->elastic.lambda * (J - 1) * J;
    for (int a = 0; a < d * d; a++)
      PFt[a] = 0;
    for (int a = 0; a < d; a++)
      PFt[a * d + a] = s;
    return;
  }
  if (mt->plastic != TIDE_MPM_SNOW) {
    tide_material_kirchhoff(&mt->elastic, d, F, PFt);
    return;
  }
  tide_material e = mt->elastic;
  double h = exp(mt->xi * (1 - Jp));
  e.mu *= h;
  e.lambda *= h;
  tide_material_kirchhoff(&e, d, F, PFt);
}

/* ------------------------------------------------------------------ P2G */

typedef struct {
  tide_mpm *m;
  double dt, Dinv, inv, hi[3]; /* hi: the stencil band's top, node units */
  int64_t s[3], roff[16]; /* roff: the dense stencil rows (row_offsets) */
  double *acc, *nvol; /* acc: nodes x 4 (momentum, mass); nvol: NULL unless node volumes are on */
  const double *x, *v, *c, *F, *V0, *M, *Jp;
  const int32_t *mi;
} p2g_ctx;

/* P2G's flags for bad particles */
/* P2G_STRAY: a particle not in the cell the binning lists it in (the
 * binning came from G2P's cells and the positions changed since) */
enum { P2G_OUTSIDE = 1, P2G_NONFINITE_X = 2, P2G_NONFINITE = 4, P2G_STRAY = 8 };

/* node volumes: particle p's V0 det F spread with lane b's weights of S
 * (not inlined, loops not unrolled: a rare path; inlined, GCC kept the node
 * addresses it shares with the momentum scatter in stack slots there) */
static __attribute__((noinline)) void scatter_volume(const p2g_ctx *X, int D, int O, int SP, int64_t p,
                                                     const stencil4_t *S, int b) {
  int O2 = D == 3 ? O : 1;
  double vol = X->V0[p] * tide_det(D, X->F + p * D * D);
  for (int t0 = 0; t0 < O; t0++)
    for (int t1 = 0; t1 < O; t1++)
      for (int t2 = 0; t2 < O2; t2++)
        X->nvol[st_node4(S, b, D, O, SP, t0, t1, t2) / 4] +=
            S->w01[t0 * O + t1][b] * (D == 3 ? S->w[2][t2][b] : 1) * vol;
}

/* scatter particle p, stencil S, its P F^T entry k at PFt[4 k]; returns P2G_NONFINITE (and scatters
 * nothing) when its momentum or Q, the products of v, C and F (through the
 * stress), are not finite */
MPM_INLINE int scatter_one(const p2g_ctx *X, int D, int O, int SP, int64_t p, const stencil4_t *S,
                           int b, const double *PFt) {
  const tide_mpm *m = X->m;
  const double *vp = X->v + p * D, *cp = X->c + p * D * D;
  double mp = X->M[p], Q[9];
  /* Q dx: the offsets r are in node units */
  double dx = m->g.dx, mdx = mp * dx, k0 = -X->dt * X->V0[p] * X->Dinv * dx;
  MPM_UNROLL
  for (int a = 0; a < D * D; a++)
    Q[a] = mdx * cp[a] + k0 * PFt[a * 4];
  /* lanes 0 .. D-1: momentum mv + Q r (Q's columns qx, qy, qz), lane 3:
   * mass.  Node (t0, t1, t2) receives w0 w1 w2 (s0 + qx r0 + qy r1 + qz r2)
   * = w2 R + w01 Z with R = w01 (s0 + qx r0 + qy r1) per (t0, t1) and
   * Z = w2 r2 qz per t2 (3D) */
  mpm_v4 s0 = {mp * vp[0], mp * vp[1], D == 3 ? mp * vp[2] : 0, mp}, qx = {0}, qy = {0}, qz = {0};
  MPM_UNROLL
  for (int a = 0; a < D; a++) {
    qx[a] = Q[a * D], qy[a] = Q[a * D + 1];
    if (D == 3) qz[a] = Q[a * D + 2];
  }
  {
    typedef uint64_t u4 __attribute__((vector_size(32)));
    const uint64_t e = 0x7ff0000000000000u, one = (uint64_t)1 << 52;
    const u4 e4 = {e, e, e, e}, one4 = {one, one, one, one};
    u4 b = (((u4)s0 & e4) + one4) | (((u4)qx & e4) + one4) | (((u4)qy & e4) + one4) |
           (((u4)qz & e4) + one4);
    if ((b[0] | b[1] | b[2] | b[3]) >> 63) return P2G_NONFINITE;
  }
  int O2 = D == 3 ? O : 1;
  mpm_v4 w2b[4], Z[4];
  MPM_UNROLL
  for (int t2 = 0; t2 < O2; t2++) {
    w2b[t2] = BC4(D == 3 ? S->w[2][t2][b] : 1);
    Z[t2] = BC4(D == 3 ? S->wr[2][t2][b] : 0) * qz;
  }
  MPM_UNROLL
  for (int t0 = 0; t0 < O; t0++) {
    mpm_v4 sx = FMA4(qx, BC4(S->r[0][t0][b]), s0);
    MPM_UNROLL
    for (int t1 = 0; t1 < O; t1++) {
      mpm_v4 w01 = BC4(S->w01[t0 * O + t1][b]), s01 = FMA4(qy, BC4(S->r[1][t1][b]), sx);
      if (D == 2) {
        double *a = X->acc + st_node4(S, b, D, O, SP, t0, t1, 0);
        *(mpm_v4u *)a = FMA4(w01, s01, *(mpm_v4u *)a);
        continue;
      }
      mpm_v4 R = w01 * s01;
      MPM_UNROLL
      for (int t2 = 0; t2 < O2; t2++) {
        double *a = X->acc + st_node4(S, b, D, O, SP, t0, t1, t2);
        *(mpm_v4u *)a = FMA4(w01, Z[t2], FMA4(w2b[t2], R, *(mpm_v4u *)a));
      }
    }
  }
  if (X->nvol) scatter_volume(X, D, O, SP, p, S, b);
  return 0;
}

/* the sign bit of the result is set when one of a[0 .. n-1] is infinite or
 * NaN: all 11 exponent bits set, so exponent + 1 carries into bit 63 */
MPM_INLINE uint64_t nonfinite_bits(const double *a, int n) {
  const uint64_t e = 0x7ff0000000000000u, one = (uint64_t)1 << 52;
  uint64_t bad = 0;
  MPM_UNROLL
  for (int i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, a + i, sizeof u);
    bad |= (u & e) + one;
  }
  return bad;
}

/* stress_term of the n <= 4 particles p[0 .. n-1]: entry k of particle b's
 * in T[k][b].  In 3D the fixed-corotated ones (elastic, snow, sand) in SIMD
 * lanes (tide_material_kirchhoff_fc4, bit-identical to stress_term; the
 * other lanes run on F = I), the others one by one */
MPM_INLINE void stress_group(const p2g_ctx *X, int D, const int64_t *p, int n, double T[9][4]) {
  static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const tide_mpm *m = X->m;
  int lanes = 0, other = 0;
  double mu[4] = {0, 0, 0, 0}, lam[4] = {0, 0, 0, 0};
  const double *F[4] = {I3, I3, I3, I3};
  for (int b = 0; b < n; b++) {
    const tide_mpm_material *mt = &m->mats[X->mi[p[b]]];
    if (D != 3 || mt->plastic == TIDE_MPM_FLUID || mt->elastic.model != TIDE_MODEL_FIXED_COROTATED ||
        mt->elastic.fiber_k != 0) {
      other |= 1 << b;
      continue;
    }
    double h = mt->plastic == TIDE_MPM_SNOW ? exp(mt->xi * (1 - X->Jp[p[b]])) : 1;
    mu[b] = mt->plastic == TIDE_MPM_SNOW ? mt->elastic.mu * h : mt->elastic.mu;
    lam[b] = mt->plastic == TIDE_MPM_SNOW ? mt->elastic.lambda * h : mt->elastic.lambda;
    F[b] = X->F + p[b] * D * D;
    lanes = b + 1;
  }
  if (lanes) tide_material_kirchhoff_fc4(lanes, mu, lam, F, T);
  for (int b = 0; b < n; b++)
    if (other >> b & 1) {
      double t[9];
      stress_term(m, X->mi[p[b]], X->F + p[b] * D * D, X->Jp[p[b]], t);
      for (int k = 0; k < D * D; k++)
        T[k][b] = t[k];
    }
}

/* scatter the particles of slab i; returns the P2G_ flags of the particles
 * found outside the grid's stencil band or with non-finite state (checked
 * on what P2G computes from it, not in passes of their own) */
MPM_INLINE int scatter_slab(const p2g_ctx *X, int D, int O, int SP, int i) {
  const tide_mpm *m = X->m;
  const tide_particles *ps = m->ps;
  int nj = m->g.n[1], nk = m->g.n[2], bad = 0;
  for (int j = 0; j < nj; j++)
    for (int k = 0; k < nk; k++) {
      int64_t cell = ((int64_t)i * nj + j) * nk + k;
      int64_t q1 = ps->cell_start[cell + 1];
      for (int64_t q0 = ps->cell_start[cell]; q0 < q1; q0 += 4) {
        /* the stresses of (up to) four particles of the cell, then their scatter */
        int ng = q1 - q0 < 4 ? (int)(q1 - q0) : 4;
        double T[9][4];
        stress_group(X, D, ps->order + q0, ng, T);
        /* and their stencils (lanes past ng repeat particle q0) */
        const int64_t *po = ps->order + q0;
        const double *xs[4] = {X->x + po[0] * D, X->x + po[ng > 1] * D, X->x + po[ng > 2 ? 2 : 0] * D,
                               X->x + po[ng > 3 ? 3 : 0] * D};
        stencil4_t S;
        int ijk[3] = {i, j, k}, off = 0;
        int lanes = stencil4_at(m, X->s, X->roff, D, O, SP, xs, X->inv, X->hi, &S, ijk, &off);
        if (off & lanes) bad |= P2G_STRAY;
        for (int b = 0; b < ng; b++) {
          int64_t p = po[b];
          if (!(lanes >> b & 1)) {
            bad |= nonfinite_bits(X->x + p * D, D) >> 63 ? P2G_NONFINITE_X : P2G_OUTSIDE;
            continue;
          }
          bad |= scatter_one(X, D, O, SP, p, &S, b, &T[0][b]);
        }
      }
    }
  return bad;
}

/* the instances: [dimension - 2][order - 2][sparse] */
static int scatter_slab_2q(const p2g_ctx *X, int i) { return scatter_slab(X, 2, 3, 0, i); }
static int scatter_slab_2c(const p2g_ctx *X, int i) { return scatter_slab(X, 2, 4, 0, i); }
static int scatter_slab_3q(const p2g_ctx *X, int i) { return scatter_slab(X, 3, 3, 0, i); }
static int scatter_slab_3c(const p2g_ctx *X, int i) { return scatter_slab(X, 3, 4, 0, i); }
static int scatter_slab_2qs(const p2g_ctx *X, int i) { return scatter_slab(X, 2, 3, 1, i); }
static int scatter_slab_2cs(const p2g_ctx *X, int i) { return scatter_slab(X, 2, 4, 1, i); }
static int scatter_slab_3qs(const p2g_ctx *X, int i) { return scatter_slab(X, 3, 3, 1, i); }
static int scatter_slab_3cs(const p2g_ctx *X, int i) { return scatter_slab(X, 3, 4, 1, i); }
static int (*const scatter_slabs[2][2][2])(const p2g_ctx *, int) = {
    {{scatter_slab_2q, scatter_slab_2qs}, {scatter_slab_2c, scatter_slab_2cs}},
    {{scatter_slab_3q, scatter_slab_3qs}, {scatter_slab_3c, scatter_slab_3cs}}};

/* the 4-lane node scratch for nn nodes */
static int acc_reserve(tide_mpm *m) {
  if (m->acc_cap >= m->nn) return TIDE_OK;
  /* sparse: room for the active blocks to grow */
  int64_t cap = m->sparse ? m->nn + m->nn / 2 + 64 : m->nn;
  tide_free(m->acc, sizeof(double) * 4 * (size_t)m->acc_cap);
  m->acc = tide_alloc(sizeof(double) * 4 * (size_t)cap);
  m->acc_cap = m->acc ? cap : 0;
  return m->acc ? TIDE_OK : TIDE_ENOMEM;
}

/* node i of the 4-lane scratch (momentum, mass) into nm, nv (velocity =
 * momentum / mass, IEEE division lane by lane; 0 where massless) */
MPM_INLINE void split_node(const double *acc, double *nm, double *nv, int D, int64_t i) {
  double mi = acc[i * 4 + 3];
  nm[i] = mi;
  mpm_v4 q = {0, 0, 0, 0};
  if (mi > 0) q = *(const mpm_v4u *)(acc + i * 4) / BC4(mi);
  MPM_UNROLL
  for (int a = 0; a < D; a++)
    nv[i * D + a] = q[a];
}

int tide_mpm_p2g(tide_mpm *m, double dt) {
  int st, d = m->dim;
  if (!(dt >= 0 && isfinite(dt)))
    return tide_fail(TIDE_EINVAL, "time step must be finite and >= 0, got %g", dt);
  tide_particles *ps = m->ps;
  int64_t n = ps->n;
  /* the cells G2P recorded, checked by the scatter (P2G_STRAY); a failed
   * check, like any error, bins afresh and scatters again, so that the
   * result and the message are those of the binning from the positions */
  int trust = m->cells_current && m->cells_n == n && ps->cell_of && ps->ws_cells == tide_grid_ncells(&m->g) &&
              ps->ws_cap >= n;
  m->cells_current = 0;
  if ((st = trust ? tide_particles_bin_cells(ps, &m->g, m->cells_moved) : tide_particles_bin(ps, &m->g)))
    return st;
again:
  if (m->sparse && (st = activate_blocks(m))) return st;
  p2g_ctx X = {.m = m, .dt = dt, .Dinv = dinv(m), .inv = 1 / m->g.dx};
  for (int a = 0; a < d; a++) {
    double lo;
    band(m, a, &lo, &X.hi[a]);
  }
  node_strides(m, X.s);
  row_offsets(m, X.s, X.roff);
  int64_t nn = m->nn;
  if ((st = acc_reserve(m))) return st;
  X.acc = m->acc;
  X.nvol = m->nvol ? TIDE_F64P(m->nvol) : NULL;
  X.x = TIDE_F64P(ps->x), X.v = TIDE_F64P(ps->v), X.c = TIDE_F64P(ps->c);
  X.F = TIDE_F64P(m->F), X.V0 = TIDE_F64P(m->vol0), X.M = TIDE_F64P(m->mass),
  X.Jp = TIDE_F64P(m->Jp);
  X.mi = TIDE_I32P(m->mat);
  memset(X.acc, 0, sizeof(double) * 4 * (size_t)nn);
  if (X.nvol) memset(X.nvol, 0, sizeof(double) * (size_t)nn);
  /* slab i writes node columns i-1 .. i+2: colours four apart */
  int ni = m->g.n[0], bad = 0;
  int (*slab)(const p2g_ctx *, int) = scatter_slabs[d - 2][m->order - 2][m->sparse];
  for (int colour = 0; colour < 4; colour++) {
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad) if (n > TIDE_PAR_MIN)
    for (int i = colour; i < ni; i += 4)
      bad |= slab(&X, i);
  }
  if (trust && bad) {
    trust = 0;
    if ((st = tide_particles_bin(ps, &m->g))) return st;
    goto again;
  }
  /* non-finite state is an error at the step it appears in */
  if (bad & P2G_NONFINITE_X) return tide_fail(TIDE_ENONFINITE, "MPM: a particle position is not finite");
  if (bad & P2G_NONFINITE)
    return tide_fail(TIDE_ENONFINITE,
                     "MPM: a particle velocity, affine matrix or deformation gradient is not finite");
  if (bad)
    return tide_fail(
        TIDE_EINVAL,
        "MPM: a particle left the grid's interior (more than 1 cell from the domain faces)");
  /* momentum -> velocity */
  double *nm = TIDE_F64P(m->nm), *nv = TIDE_F64P(m->nv);
  if (d == 3) {
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
    for (int64_t i = 0; i < nn; i++)
      split_node(X.acc, nm, nv, 3, i);
  } else {
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
    for (int64_t i = 0; i < nn; i++)
      split_node(X.acc, nm, nv, 2, i);
  }
  return TIDE_OK;
}

/* --------------------------------------------------------- grid update */

/* apply a boundary condition with outward normal n of the obstacle (unit,
 * pointing out of the obstacle into the material) to the relative
 * velocity vr */
static inline void apply_bc(int d, int bc, double mu, const double *n, double *vr) {
  if (bc == TIDE_MPM_STICKY) {
    for (int a = 0; a < d; a++)
      vr[a] = 0;
    return;
  }
  double vn = 0;
  for (int a = 0; a < d; a++)
    vn += vr[a] * n[a];
  if (bc == TIDE_MPM_SEPARATE && vn >= 0) return;
  double vt[3], tn = 0;
  for (int a = 0; a < d; a++) {
    vt[a] = vr[a] - vn * n[a];
    tn += vt[a] * vt[a];
  }
  tn = sqrt(tn);
  double scale = 1;
  if (bc == TIDE_MPM_SEPARATE && mu > 0) scale = tn > 0 ? fmax(0, 1 + mu * vn / tn) : 0;
  for (int a = 0; a < d; a++)
    vr[a] = vt[a] * scale;
}

/* The walls and colliders at node id (velocity v, in place); returns 1
 * when a sticky condition fixed the node's velocity. */
static int node_bcs(const tide_mpm *m, const int64_t s[3], int64_t id, double *v, double *nrm) {
  int d = m->dim, wn = m->wall_nodes, fixed = 0, nnrm = 0;
  if (nrm) nrm[0] = nrm[1] = nrm[2] = 0;
  int N[3] = {m->g.n[0] + 1, m->g.n[1] + 1, d == 3 ? m->g.n[2] + 1 : 1};
  int ijk[3];
  if (!node_ijk(m, s, id, ijk)) return 0;
  double x[3] = {0, 0, 0};
  for (int a = 0; a < d; a++)
    x[a] = m->g.origin[a] + ijk[a] * m->g.dx;
  /* colliders */
  for (int c = 0; c < m->ncoll; c++) {
    const tide_mpm_collider *C = &m->coll[c];
    if (tide_shape_eval(C->shape, x) > 0) continue;
    double n[3], vs[3], r[3] = {0, 0, 0}, vr[3];
    tide_shape_normal(C->shape, x, 0.25 * m->g.dx, n);
    for (int a = 0; a < 3; a++)
      r[a] = a < d ? x[a] - C->centre[a] : 0;
    vs[0] = C->vel[0] + C->omega[1] * r[2] - C->omega[2] * r[1];
    vs[1] = C->vel[1] + C->omega[2] * r[0] - C->omega[0] * r[2];
    vs[2] = C->vel[2] + C->omega[0] * r[1] - C->omega[1] * r[0];
    double vn = 0;
    for (int a = 0; a < d; a++) {
      vr[a] = v[a] - vs[a];
      vn += vr[a] * n[a];
    }
    apply_bc(d, C->bc, C->friction, n, vr);
    for (int a = 0; a < d; a++)
      v[a] = vs[a] + vr[a];
    fixed |= C->bc == TIDE_MPM_STICKY;
    if (nrm && (C->bc == TIDE_MPM_SLIP || (C->bc == TIDE_MPM_SEPARATE && vn < 0))) {
      for (int a = 0; a < d; a++)
        nrm[a] = n[a];
      nnrm++;
    }
  }
  /* domain walls: normal pointing into the domain */
  for (int a = 0; a < d; a++)
    for (int side = 0; side < 2; side++) {
      int bc = m->wall_bc[2 * a + side];
      if (bc < 0) continue;
      int in = side == 0 ? ijk[a] < wn : ijk[a] > N[a] - 1 - wn;
      if (!in) continue;
      double n[3] = {0, 0, 0};
      n[a] = side == 0 ? 1 : -1;
      double vn = v[a] * n[a];
      apply_bc(d, bc, m->wall_friction, n, v);
      fixed |= bc == TIDE_MPM_STICKY;
      if (nrm && (bc == TIDE_MPM_SLIP || (bc == TIDE_MPM_SEPARATE && vn < 0))) {
        for (int b = 0; b < d; b++)
          nrm[b] = n[b];
        nnrm++;
      }
    }
  /* two constrained normals (a corner): held fixed */
  return fixed || nnrm > 1 ? 1 : 0;
}

/* gravity on node id (velocity v), then its walls and colliders when bcs */
static inline void grid_node(const tide_mpm *m, const int64_t s[3], int64_t id, double *v, double dt,
                             int bcs) {
  for (int a = 0; a < m->dim; a++)
    v[a] += dt * m->gravity[a];
  if (bcs) node_bcs(m, s, id, v, NULL);
}

int tide_mpm_grid_update(tide_mpm *m, double dt) {
  int d = m->dim;
  if (!(dt >= 0 && isfinite(dt)))
    return tide_fail(TIDE_EINVAL, "time step must be finite and >= 0, got %g", dt);
  double *nm = TIDE_F64P(m->nm), *nv = TIDE_F64P(m->nv);
  int64_t s[3];
  node_strides(m, s);
  int64_t nn = m->nn;
  if (!m->sparse && m->ncoll == 0) {
    /* dense, no colliders: only nodes within wall_nodes of a face can meet
     * a condition (node_bcs leaves the others alone) */
    int N0 = m->g.n[0] + 1, N1 = m->g.n[1] + 1, N2 = d == 3 ? m->g.n[2] + 1 : 1, wn = m->wall_nodes;
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
    for (int i = 0; i < N0; i++)
      for (int j = 0; j < N1; j++) {
        int near = i < wn || i > N0 - 1 - wn || j < wn || j > N1 - 1 - wn;
        for (int k = 0; k < N2; k++) {
          int64_t id = i * s[0] + j * s[1] + k;
          if (nm[id] > 0)
            grid_node(m, s, id, nv + id * d, dt, near || (d == 3 && (k < wn || k > N2 - 1 - wn)));
        }
      }
    return TIDE_OK;
  }
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t id = 0; id < nn; id++)
    if (nm[id] > 0) grid_node(m, s, id, nv + id * d, dt, 1);
  return TIDE_OK;
}

/* ------------------------------------------------------------ plasticity */

double tide_mpm_sand_alpha(int cone, double phi, int d) {
  double sf = sin(phi);
  if (cone == TIDE_MPM_CONE_PLANE_STRAIN) return sqrt(2.0) * sf / d;
  if (cone == TIDE_MPM_CONE_COMPRESSION) return sqrt(2.0 / 3) * 2 * sf / (3 - sf);
  return sqrt(2.0) * tan(phi) / d;
}

static void plasticity(const tide_mpm_material *mt, int d, double *F, double *Jp) {
  if (mt->plastic == TIDE_MPM_ELASTIC) return;
  if (mt->plastic == TIDE_MPM_FLUID) {
    /* keep det F = J: J^(1/d) I, or diag(J, 1[, 1]) for a collapsed
     * particle (J <= 0), whose pressure -kappa (J - 1) pushes it back */
    double J = tide_det(d, F), r = J > 0 ? (d == 3 ? cbrt(J) : sqrt(J)) : 1;
    for (int a = 0; a < d * d; a++)
      F[a] = 0;
    for (int a = 0; a < d; a++)
      F[a * d + a] = r;
    if (J <= 0) F[0] = J;
    return;
  }
  double U[9], s[3], V[9];
  tide_svd_signed(d, F, U, s, V);
  if (mt->plastic == TIDE_MPM_SNOW) {
    double Jold = 1, Jnew = 1;
    for (int a = 0; a < d; a++) {
      Jold *= s[a];
      double c = fmin(fmax(s[a], 1 - mt->theta_c), 1 + mt->theta_s);
      s[a] = c;
      Jnew *= c;
    }
    *Jp *= Jold / Jnew; /* F = Fe Fp: det Fp grows by what det Fe lost */
  } else {              /* sand, Drucker-Prager in the Hencky strain */
    double eps[3], tr = 0;
    for (int a = 0; a < d; a++) {
      eps[a] = log(fmax(fabs(s[a]), 1e-6));
      tr += eps[a];
    }
    if (tr >= 0) {
      for (int a = 0; a < d; a++)
        s[a] = 1; /* separating: stress free */
    } else {
      double ehat[3], en = 0;
      for (int a = 0; a < d; a++) {
        ehat[a] = eps[a] - tr / d;
        en += ehat[a] * ehat[a];
      }
      en = sqrt(en);
      double alpha = tide_mpm_sand_alpha(mt->cone, mt->friction_angle, d);
      double mu = mt->elastic.mu, lam = mt->elastic.lambda;
      double dg = en + (d * lam + 2 * mu) / (2 * mu) * tr * alpha;
      if (dg > 0 && en > 0)
        for (int a = 0; a < d; a++)
          s[a] = exp(eps[a] - dg * ehat[a] / en);
    }
  }
  /* F = U diag(s) V^T */
  for (int a = 0; a < d; a++)
    for (int b = 0; b < d; b++) {
      double t = 0;
      for (int k = 0; k < d; k++)
        t += U[a * d + k] * s[k] * V[b * d + k];
      F[a * d + b] = t;
    }
}

/* ------------------------------------------------------------------ G2P */

typedef struct {
  tide_mpm *m;
  double dt, inv, Dinv, hi[3], xlo[3], xhi[3]; /* the stencil band: node units, positions */
  int64_t s[3], roff[16];
  const double *v4; /* nodes x 4: the node velocities, lanes 0 .. d-1 */
  double *x, *v, *c, *F, *Jp;
  int64_t *cell_of; /* the particles' cells, updated (NULL: not recorded) */
  const int32_t *mi;
  double org[3], nd[3]; /* per axis: origin, n (tide_particles_cell) */
} g2p_ctx;

typedef int64_t mpm_l4u __attribute__((vector_size(32), aligned(8)));

/* tide_particles_cell of the four positions xp[0 .. 3] in lanes, the same
 * integers: the truncation through int32 lanes, the index (below 2^52)
 * assembled exactly in doubles and read back from the bits of 2^52 + c.
 * No clamping: for s = (x - origin) / dx in (-1, n) the truncation is
 * tide_particles_cell's clamped one (0 for s in (-1, 0], n - 1 for s in
 * [n - 1, n)); ORs into *unsure the lanes whose s is outside (or NaN),
 * whose entries are then not that cell.  Into *cell: a 32-byte vector
 * result's ABI depends on AVX (-Wpsabi without it) */
MPM_INLINE void cells4(const g2p_ctx *X, int D, const double *const xp[4], mpm_l4 *cell, mpm_l4 *unsure) {
  mpm_l4 ok = {-1, -1, -1, -1};
  mpm_v4 c = {0};
  MPM_UNROLL
  for (int a = 0; a < D; a++) {
    mpm_v4 x = {xp[0][a], xp[1][a], xp[2][a], xp[3][a]};
    mpm_v4 s = (x - X->org[a]) * X->inv;
    ok &= (s > -1.0) & (s < X->nd[a]);
    mpm_v4 t = I2D4(__builtin_convertvector(s, mpm_i4));
    c = a == 0 ? t : c * X->nd[a] + t;
  }
  if (D == 2) c = c * X->nd[2];
  *unsure |= ~ok;
  mpm_v4 b52 = BC4(4503599627370496.0);
  *cell = (mpm_l4)(c + b52) - (mpm_l4)b52;
}

/* G2P_OUTSIDE: a particle outside the stencil band; G2P_MOVED: one
 * changed cell; G2P_UNSURE: a recorded cell is not sure (a new position
 * not finite, or more than a cell outside the grid) */
enum { G2P_OUTSIDE = 1, G2P_MOVED = 2, G2P_UNSURE = 4 };

/* gather, update F and advect particles p0 .. p1 - 1 (and record their
 * cells); returns the G2P_ flags */
MPM_INLINE int gather_range(const g2p_ctx *X, int D, int O, int SP, int64_t p0, int64_t p1) {
  const tide_mpm *m = X->m;
  double dt = X->dt;
  int bad = 0, O2 = D == 3 ? O : 1;
  mpm_l4 unsure = {0};
  for (int64_t g = p0; g < p1; g += 4) {
    /* the stencils of particles g .. g + 3 (lanes past p1 repeat g) */
    int ng = p1 - g < 4 ? (int)(p1 - g) : 4;
    const double *xs[4] = {X->x + g * D, X->x + (g + (ng > 1)) * D, X->x + (g + (ng > 2 ? 2 : 0)) * D,
                           X->x + (g + (ng > 3 ? 3 : 0)) * D};
    stencil4_t S;
    int lanes = stencil4_at(m, X->s, X->roff, D, O, SP, xs, X->inv, X->hi, &S, NULL, NULL);
    for (int b = 0; b < ng; b++) {
    int64_t p = g + b;
    double *xp = X->x + p * D, *vp = X->v + p * D, *cp = X->c + p * D * D, *Fp = X->F + p * D * D;
    if (!(lanes >> b & 1)) {
      bad |= G2P_OUTSIDE;
      continue;
    }
    /* v_p = sum w v_i, B = sum w v_i r^T, factored axis by axis: along t2
     * u = sum w2 v_i, uz = sum w2 r2 v_i per (t0, t1); along t1 U0 =
     * sum w1 u, U1 = sum w1 r1 u, Uz = sum w1 uz per t0; then along t0.
     * Lane a of the vectors is component a of v. */
    mpm_v4 vn = {0}, Bx = {0}, By = {0}, Bz = {0}, w2b[4], wr2b[4];
    MPM_UNROLL
    for (int t2 = 0; t2 < O2; t2++) {
      w2b[t2] = BC4(D == 3 ? S.w[2][t2][b] : 1);
      wr2b[t2] = BC4(D == 3 ? S.wr[2][t2][b] : 0);
    }
    MPM_UNROLL
    for (int t0 = 0; t0 < O; t0++) {
      mpm_v4 U0 = {0}, U1 = {0}, Uz = {0};
      MPM_UNROLL
      for (int t1 = 0; t1 < O; t1++) {
        mpm_v4 u = {0}, uz = {0};
        if (D == 2)
          u = *(const mpm_v4u *)(X->v4 + st_node4(&S, b, D, O, SP, t0, t1, 0));
        else
          MPM_UNROLL
          for (int t2 = 0; t2 < O2; t2++) {
            mpm_v4 vv = *(const mpm_v4u *)(X->v4 + st_node4(&S, b, D, O, SP, t0, t1, t2));
            u = FMA4(w2b[t2], vv, u);
            uz = FMA4(wr2b[t2], vv, uz);
          }
        mpm_v4 w1 = BC4(S.w[1][t1][b]);
        U0 = FMA4(w1, u, U0);
        U1 = FMA4(BC4(S.wr[1][t1][b]), u, U1);
        if (D == 3) Uz = FMA4(w1, uz, Uz);
      }
      mpm_v4 w0 = BC4(S.w[0][t0][b]);
      vn = FMA4(w0, U0, vn);
      Bx = FMA4(BC4(S.wr[0][t0][b]), U0, Bx);
      By = FMA4(w0, U1, By);
      if (D == 3) Bz = FMA4(w0, Uz, Bz);
    }
    double dtC[9], Fn[9];
    MPM_UNROLL
    for (int a = 0; a < D; a++) {
      vp[a] = vn[a];
      double k = X->Dinv * m->g.dx; /* B in node units */
      double ca[3] = {k * Bx[a], k * By[a], D == 3 ? k * Bz[a] : 0};
      MPM_UNROLL
      for (int b = 0; b < D; b++) {
        cp[a * D + b] = ca[b];
        dtC[a * D + b] = dt * ca[b];
      }
    }
    /* F <- (I + dt C) F */
    MPM_UNROLL
    for (int a = 0; a < D; a++)
      MPM_UNROLL
      for (int b = 0; b < D; b++) {
        double t = Fp[a * D + b];
        MPM_UNROLL
        for (int k = 0; k < D; k++)
          t = fma1(dtC[a * D + k], Fp[k * D + b], t);
        Fn[a * D + b] = t;
      }
    memcpy(Fp, Fn, sizeof(double) * (size_t)(D * D));
    const tide_mpm_material *mt = &m->mats[X->mi[p]];
    if (mt->plastic != TIDE_MPM_ELASTIC) plasticity(mt, D, Fp, X->Jp + p);
    MPM_UNROLL
    for (int a = 0; a < D; a++) {
      double y = xp[a] + dt * vp[a];
      xp[a] = y < X->xlo[a] ? X->xlo[a] : y > X->xhi[a] ? X->xhi[a] : y;
    }
  }
    if (X->cell_of) {
      mpm_l4 c;
      cells4(X, D, xs, &c, &unsure);
      int64_t *co = X->cell_of + g;
      if (ng == 4) {
        mpm_l4 ne = c != *(mpm_l4u *)co;
        if (ne[0] | ne[1] | ne[2] | ne[3]) bad |= G2P_MOVED;
        *(mpm_l4u *)co = c;
      } else
        for (int b = 0; b < ng; b++)
          if (c[b] != co[b]) co[b] = c[b], bad |= G2P_MOVED;
    }
  }
  return bad | (unsure[0] | unsure[1] | unsure[2] | unsure[3] ? G2P_UNSURE : 0);
}

/* the instances: [dimension - 2][order - 2][sparse] */
typedef int (*gather_fn)(const g2p_ctx *, int64_t, int64_t);
#define MPM_GATHER(name, D, O, SP)                                                                \
  static int name(const g2p_ctx *X, int64_t p0, int64_t p1) { return gather_range(X, D, O, SP, p0, p1); }
MPM_GATHER(gather_range_2q, 2, 3, 0)
MPM_GATHER(gather_range_2c, 2, 4, 0)
MPM_GATHER(gather_range_3q, 3, 3, 0)
MPM_GATHER(gather_range_3c, 3, 4, 0)
MPM_GATHER(gather_range_2qs, 2, 3, 1)
MPM_GATHER(gather_range_2cs, 2, 4, 1)
MPM_GATHER(gather_range_3qs, 3, 3, 1)
MPM_GATHER(gather_range_3cs, 3, 4, 1)
static const gather_fn gather_ranges[2][2][2] = {
    {{gather_range_2q, gather_range_2qs}, {gather_range_2c, gather_range_2cs}},
    {{gather_range_3q, gather_range_3qs}, {gather_range_3c, gather_range_3cs}}};

int tide_mpm_g2p(tide_mpm *m, double dt) {
  int d = m->dim;
  if (!(dt >= 0 && isfinite(dt)))
    return tide_fail(TIDE_EINVAL, "time step must be finite and >= 0, got %g", dt);
  tide_particles *ps = m->ps;
  g2p_ctx X = {.m = m, .dt = dt, .inv = 1 / m->g.dx, .Dinv = dinv(m)};
  for (int a = 0; a < d; a++) {
    double lo;
    band(m, a, &lo, &X.hi[a]);
    X.xlo[a] = m->g.origin[a] + lo * m->g.dx;
    X.xhi[a] = m->g.origin[a] + X.hi[a] * m->g.dx;
  }
  node_strides(m, X.s);
  row_offsets(m, X.s, X.roff);
  int st;
  if ((st = acc_reserve(m))) return st;
  /* the node velocities side by side in 4 lanes (the scratch is P2G's) */
  const double *nv = TIDE_F64P(m->nv);
  double *v4 = m->acc;
  int64_t nn = m->nn;
  if (d == 3) {
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
    for (int64_t i = 0; i < nn; i++)
      *(mpm_v4u *)(v4 + i * 4) = (mpm_v4){nv[i * 3], nv[i * 3 + 1], nv[i * 3 + 2], 0};
  } else {
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
    for (int64_t i = 0; i < nn; i++)
      *(mpm_v4u *)(v4 + i * 4) = (mpm_v4){nv[i * 2], nv[i * 2 + 1], 0, 0};
  }
  X.v4 = v4;
  X.x = TIDE_F64P(ps->x), X.v = TIDE_F64P(ps->v), X.c = TIDE_F64P(ps->c);
  X.F = TIDE_F64P(m->F), X.Jp = TIDE_F64P(m->Jp);
  X.mi = TIDE_I32P(m->mat);
  gather_fn range = gather_ranges[d - 2][m->order - 2][m->sparse];
  int64_t n = ps->n, chunk = 4096, nc = (n + chunk - 1) / chunk;
  /* the new cells into the binning workspace, for the next P2G */
  int record = ps->cell_of && ps->ws_cells == tide_grid_ncells(&m->g) && ps->ws_cap >= n;
  X.cell_of = record ? ps->cell_of : NULL;
  for (int a = 0; a < 3; a++)
    X.org[a] = m->g.origin[a], X.nd[a] = m->g.n[a];
  m->cells_current = 0;
  int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad) if (n > TIDE_PAR_MIN)
  for (int64_t b = 0; b < nc; b++)
    bad |= range(&X, b * chunk, (b + 1) * chunk < n ? (b + 1) * chunk : n);
  if (record && !(bad & (G2P_OUTSIDE | G2P_UNSURE))) {
    /* cell_of is exact for the new positions; the binning of it stands
     * when no particle changed cell */
    m->cells_current = 1, m->cells_n = n, m->cells_moved = (bad & G2P_MOVED) != 0;
    if (m->cells_moved) ps->bin_valid = 0;
  } else
    ps->bin_valid = 0;
  if (bad & G2P_OUTSIDE)
    return tide_fail(
        TIDE_EINVAL,
        "MPM: a particle left the grid's interior (more than 1 cell from the domain faces)");
  return TIDE_OK;
}

int tide_mpm_step(tide_mpm *m, double dt) {
  int st;
  if ((st = tide_mpm_p2g(m, dt)) || (st = tide_mpm_grid_update(m, dt)) ||
      (st = tide_mpm_g2p(m, dt)))
    return st;
  return TIDE_OK;
}

/* ------------------------------------------------- implicit grid update */

/* B-spline weights and first node of particle position xp */
static inline void stencil(const tide_mpm *m, const double *xp, double w[3][4], int base[3]) {
  base[1] = base[2] = 0;
  w[2][0] = 1, w[2][1] = w[2][2] = w[2][3] = 0;
  for (int a = 0; a < m->dim; a++)
    base[a] = bspline(m->order, (xp[a] - m->g.origin[a]) / m->g.dx, w[a]);
}

int tide_mpm_stencil(const tide_mpm *m, const double *x, double w[3][4], int base[3],
                     int64_t *origin_id) {
  if (m->sparse) return tide_fail(TIDE_EINVAL, "the stencil of a point needs the dense node grid");
  for (int a = 0; a < m->dim; a++)
    if (!isfinite(x[a])) return tide_fail(TIDE_EINVAL, "point coordinate %d is not finite", a + 1);
  stencil(m, x, w, base);
  for (int a = 0; a < m->dim; a++)
    if (base[a] < 0 || base[a] + m->order > m->g.n[a])
      return tide_fail(TIDE_EINVAL,
                       "point at %g (axis %d) is too close to the grid's side for its stencil",
                       x[a], a + 1);
  int64_t s[3];
  node_strides(m, s);
  *origin_id = base[0] * s[0] + base[1] * s[1] + base[2] * s[2];
  return TIDE_OK;
}

void tide_mpm_node_strides(const tide_mpm *m, int64_t s[3]) { node_strides(m, s); }

/* C_p = D^-1 sum_i w_ip v_i (x_i - x_p)^T for every particle (d x d) */
static void gather_C(const tide_mpm *m, const double *v, double *C) {
  int d = m->dim, o = m->order + 1, ok = d == 3 ? o : 1;
  int64_t n = m->ps->n, s[3];
  node_strides(m, s);
  const double *x = TIDE_F64P(m->ps->x);
  double Dinv = dinv(m);
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t p = 0; p < n; p++) {
    const double *xp = x + p * d;
    double w[3][4], B[9] = {0};
    int base[3];
    stencil(m, xp, w, base);
    for (int a0 = 0; a0 < o; a0++)
      for (int a1 = 0; a1 < o; a1++)
        for (int a2 = 0; a2 < ok; a2++) {
          double wt = w[0][a0] * w[1][a1] * (d == 3 ? w[2][a2] : 1.0);
          int nd[3] = {base[0] + a0, base[1] + a1, d == 3 ? base[2] + a2 : 0};
          const double *vi = v + node_addr(m, s, nd[0], nd[1], nd[2]) * d;
          for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++)
              B[a * d + b] += wt * vi[a] * ((m->g.origin[b] + nd[b] * m->g.dx) - xp[b]);
        }
    for (int a = 0; a < d * d; a++)
      C[p * d * d + a] = Dinv * B[a];
  }
}

/* the hardened elastic model of particle p */
static inline tide_material particle_model(const tide_mpm *m, int64_t p) {
  const tide_mpm_material *mt = &m->mats[TIDE_I32P(m->mat)[p]];
  tide_material e = mt->elastic;
  if (mt->plastic == TIDE_MPM_SNOW) {
    double h = exp(mt->xi * (1 - TIDE_F64P(m->Jp)[p]));
    e.mu *= h, e.lambda *= h;
  }
  return e;
}

/* The coloured scatter of the implicit update, in the colour order of P2G
 * (deterministic; the particles' binning is P2G's):
 *   Q != NULL  out_i (nodes x d) = sum_p w_ip Q_p (x_i - x_p)
 *   Q == NULL  out_i (nodes) += k sum_p V_p (lambda + 2 mu)_p w_ip^2 |F_p^T (x_i - x_p)|^2
 *              (out holds the masses on entry: the Jacobi diagonal) */
static void colour_scatter(const tide_mpm *m, const double *Q, double k, double *out) {
  int d = m->dim, o = m->order + 1, ok = d == 3 ? o : 1;
  int64_t s[3], nn = m->nn;
  node_strides(m, s);
  const tide_particles *ps = m->ps;
  const double *x = TIDE_F64P(ps->x), *F = TIDE_F64P(m->F), *V0 = TIDE_F64P(m->vol0);
  if (Q) memset(out, 0, sizeof(double) * (size_t)(nn * d));
  int ni = m->g.n[0], nj = m->g.n[1], nk = m->g.n[2];
  for (int colour = 0; colour < 4; colour++) {
#pragma omp parallel for schedule(dynamic, 1) if (ps->n > 1024)
    for (int i = colour; i < ni; i += 4)
      for (int j = 0; j < nj; j++)
        for (int kk = 0; kk < nk; kk++) {
          int64_t cell = ((int64_t)i * nj + j) * nk + kk;
          for (int64_t q = ps->cell_start[cell]; q < ps->cell_start[cell + 1]; q++) {
            int64_t p = ps->order[q];
            const double *xp = x + p * d, *Qp = Q ? Q + p * d * d : NULL, *Fp = F + p * d * d;
            double kp = 0, w[3][4];
            if (!Q) {
              tide_material e = particle_model(m, p);
              kp = k * V0[p] * (e.lambda + 2 * e.mu);
            }
            int base[3];
            stencil(m, xp, w, base);
            for (int a0 = 0; a0 < o; a0++)
              for (int a1 = 0; a1 < o; a1++)
                for (int a2 = 0; a2 < ok; a2++) {
                  double wt = w[0][a0] * w[1][a1] * (d == 3 ? w[2][a2] : 1.0), r[3];
                  int nd[3] = {base[0] + a0, base[1] + a1, d == 3 ? base[2] + a2 : 0};
                  int64_t id = node_addr(m, s, nd[0], nd[1], nd[2]);
                  for (int a = 0; a < d; a++)
                    r[a] = (m->g.origin[a] + nd[a] * m->g.dx) - xp[a];
                  for (int a = 0; a < d; a++) {
                    double t = 0;
                    for (int b = 0; b < d; b++)
                      t += Q ? Qp[a * d + b] * r[b] : Fp[b * d + a] * r[b];
                    if (Q)
                      out[id * d + a] += wt * t;
                    else
                      out[id] += kp * wt * wt * t * t;
                  }
                }
          }
        }
  }
}

typedef struct {
  tide_mpm *m;
  double dt;
  int64_t ndof;
  const double *nm, *vhat;
  const unsigned char *fixed;            /* nodes: not unknowns (massless or sticky) */
  double *C, *Fh, *P, *A, *Q, *psi, *ke; /* per particle / node scratch */
  double *diag;                          /* nodes: Jacobi preconditioner */
  double *px; /* nodes x d: projected Hessian argument */
  double *cn; /* nodes x 3: normal of a slip / separating contact (its normal velocity is held), or 0 */
} implicit_ctx;

/* remove the held normal components: x <- (I - n n^T) x on contact nodes,
 * 0 on fixed nodes */
static void project_dofs(const implicit_ctx *X, double *x) {
  int d = X->m->dim;
  int64_t nn = X->m->nn;
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t i = 0; i < nn; i++) {
    double *xi = x + i * d;
    if (X->fixed[i]) {
      for (int a = 0; a < d; a++)
        xi[a] = 0;
      continue;
    }
    const double *n = X->cn + i * 3;
    double t = 0;
    for (int a = 0; a < d; a++)
      t += n[a] * xi[a];
    for (int a = 0; a < d; a++)
      xi[a] -= t * n[a];
  }
}

/* F^_p(v) = (I + dt C_p(v)) F_p; with want_h, P and the projected dP/dF
 * too.  Returns E(v) = sum_i m_i/2 |v_i - v^_i|^2 + sum_p V_p Psi(F^_p). */
static double implicit_eval(implicit_ctx *X, const double *v, int want_h) {
  tide_mpm *m = X->m;
  int d = m->dim, dd = d * d;
  int64_t n = m->ps->n;
  const double *F = TIDE_F64P(m->F), *V0 = TIDE_F64P(m->vol0);
  gather_C(m, v, X->C);
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t p = 0; p < n; p++) {
    double *Fh = X->Fh + p * dd;
    const double *Cp = X->C + p * dd, *Fp = F + p * dd;
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) {
        double t = Fp[a * d + b];
        for (int k = 0; k < d; k++)
          t += X->dt * Cp[a * d + k] * Fp[k * d + b];
        Fh[a * d + b] = t;
      }
    tide_material e = particle_model(m, p);
    double ps;
    tide_material_eval(&e, d, Fh, NULL, 1, &ps, want_h ? X->P + p * dd : NULL,
                       want_h ? X->A + p * dd * dd : NULL);
    X->psi[p] = V0[p] * ps;
  }
  int64_t nn = m->nn;
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t i = 0; i < nn; i++) {
    double e = 0;
    for (int a = 0; a < d; a++) {
      double t = v[i * d + a] - X->vhat[i * d + a];
      e += t * t;
    }
    X->ke[i] = 0.5 * X->nm[i] * e;
  }
  return tide_sum(nn, X->ke) + tide_sum(n, X->psi);
}

/* Q_p = dt V_p D^-1 S_p F_p^T for per-particle S (P or dP), then
 * out = scatter(Q) */
static void force_scatter(implicit_ctx *X, const double *S, double *out) {
  tide_mpm *m = X->m;
  int d = m->dim, dd = d * d;
  int64_t n = m->ps->n;
  const double *F = TIDE_F64P(m->F), *V0 = TIDE_F64P(m->vol0);
  double k = X->dt * dinv(m);
#pragma omp parallel for schedule(static) if (n > TIDE_PAR_MIN)
  for (int64_t p = 0; p < n; p++) {
    const double *Sp = S + p * dd, *Fp = F + p * dd;
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) {
        double t = 0;
        for (int c = 0; c < d; c++)
          t += Sp[a * d + c] * Fp[b * d + c];
        X->Q[p * dd + a * d + b] = k * V0[p] * t;
      }
  }
  colour_scatter(m, X->Q, 0, out);
}

/* y = H x: m_i x_i + dt sum_p V_p D^-1 (dP/dF : (dt C_p(x) F_p)) F_p^T w (x_i - x_p);
 * fixed nodes: y = x */
static int implicit_hess(void *ctx, const double *xin, double *y) {
  implicit_ctx *X = ctx;
  tide_mpm *m = X->m;
  int d = m->dim, dd = d * d;
  int64_t n = m->ps->n, nn = m->nn;
  const double *F = TIDE_F64P(m->F);
  double *x = X->px;
  memcpy(x, xin, sizeof(double) * (size_t)(nn * d));
  project_dofs(X, x);
  gather_C(m, x, X->C);
  /* dP = A : (dt dC F), stored in Fh (free during the solve) */
#pragma omp parallel for schedule(static) if (n > 1024)
  for (int64_t p = 0; p < n; p++) {
    const double *Cp = X->C + p * dd, *Fp = F + p * dd, *Ap = X->A + p * dd * dd;
    double dF[9];
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) {
        double t = 0;
        for (int k = 0; k < d; k++)
          t += Cp[a * d + k] * Fp[k * d + b];
        dF[a * d + b] = X->dt * t;
      }
    for (int r = 0; r < dd; r++) {
      double t = 0;
      for (int c = 0; c < dd; c++)
        t += Ap[r * dd + c] * dF[c];
      X->Fh[p * dd + r] = t;
    }
  }
  force_scatter(X, X->Fh, y);
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t i = 0; i < nn; i++)
    for (int a = 0; a < d; a++)
      y[i * d + a] += X->nm[i] * x[i * d + a];
  /* P H P x + (I - P) x: SPD on the whole space, the removed parts decouple */
  project_dofs(X, y);
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t k = 0; k < nn * d; k++)
    y[k] += xin[k] - x[k];
  return TIDE_OK;
}

/* Jacobi: an estimate of the Hessian's diagonal per node,
 *   diag_i = m_i + dt^2 sum_p V_p (lambda + 2 mu)_p w_ip^2 D^-2 |F_p^T (x_i - x_p)|^2
 * (the isotropic small-strain stiffness of the particle's model), scattered
 * in the colour order of P2G. */
static void implicit_diag(implicit_ctx *X) {
  tide_mpm *m = X->m;
  double Dinv = dinv(m);
  memcpy(X->diag, X->nm, sizeof(double) * (size_t)m->nn);
  colour_scatter(m, NULL, X->dt * X->dt * Dinv * Dinv, X->diag);
}

static int implicit_prec(void *ctx, const double *x, double *y) {
  implicit_ctx *X = ctx;
  int d = X->m->dim;
  int64_t nn = X->m->nn;
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t i = 0; i < nn; i++)
    for (int a = 0; a < d; a++)
      y[i * d + a] = X->fixed[i] ? x[i * d + a] : x[i * d + a] / X->diag[i];
  return TIDE_OK;
}

int tide_mpm_grid_implicit(tide_mpm *m, double dt, double tol, int maxit, int cg_maxit,
                           tide_mpm_implicit_stats *st) {
  int d = m->dim, dd = d * d, status = TIDE_OK;
  memset(st, 0, sizeof *st);
  if (!(dt > 0 && isfinite(dt)))
    return tide_fail(TIDE_EINVAL, "implicit MPM: time step must be finite and > 0, got %g", dt);
  if (!(tol > 0 && tol < 1)) return tide_fail(TIDE_EINVAL, "implicit MPM: tol must be in (0, 1)");
  int64_t n = m->ps->n, nn = m->nn, N = nn * d;
  double *nm = TIDE_F64P(m->nm), *nv = TIDE_F64P(m->nv);
  int64_t s[3];
  node_strides(m, s);
  size_t bn = sizeof(double) * (size_t)(N > 0 ? N : 1), bp = sizeof(double) * (size_t)(n > 0 ? n : 1);
  implicit_ctx X = {.m = m, .dt = dt, .ndof = N, .nm = nm};
  double *vhat = tide_alloc(bn), *g = tide_alloc(bn), *dv = tide_alloc(bn), *vt = tide_alloc(bn),
         *work = tide_alloc(4 * bn), *ke = tide_alloc(sizeof(double) * (size_t)(nn > 0 ? nn : 1)),
         *diag = tide_alloc(sizeof(double) * (size_t)(nn > 0 ? nn : 1)), *px = tide_alloc(bn),
         *cn = tide_alloc(3 * sizeof(double) * (size_t)(nn > 0 ? nn : 1));
  unsigned char *fixed = tide_alloc((size_t)(nn > 0 ? nn : 1));
  X.C = tide_alloc(bp * dd), X.Fh = tide_alloc(bp * dd), X.P = tide_alloc(bp * dd);
  X.A = tide_alloc(bp * dd * dd), X.Q = tide_alloc(bp * dd), X.psi = tide_alloc(bp);
  X.ke = ke, X.diag = diag, X.px = px, X.cn = cn;
  if (!vhat || !g || !dv || !vt || !work || !ke || !diag || !px || !cn || !fixed || !X.C || !X.Fh || !X.P || !X.A || !X.Q ||
      !X.psi) {
    status = TIDE_ENOMEM;
    goto done;
  }
  /* v^ = v + dt g with the boundary conditions; sticky nodes are fixed */
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t i = 0; i < nn; i++) {
    double *v = nv + i * d;
    X.cn[i * 3] = X.cn[i * 3 + 1] = X.cn[i * 3 + 2] = 0;
    if (!(nm[i] > 0)) {
      fixed[i] = 1;
      for (int a = 0; a < d; a++)
        v[a] = 0;
    } else {
      for (int a = 0; a < d; a++)
        v[a] += dt * m->gravity[a];
      fixed[i] = (unsigned char)node_bcs(m, s, i, v, X.cn + i * 3);
    }
  }
  memcpy(vhat, nv, bn);
  X.vhat = vhat, X.fixed = fixed;
  implicit_diag(&X);
  double E = implicit_eval(&X, nv, 1), g0 = 0;
  for (int it = 0;; it++) {
    /* gradient m (v - v^) + dt sum V P F^T D^-1 w (x_i - x_p) */
    force_scatter(&X, X.P, g);
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
    for (int64_t i = 0; i < nn; i++)
      for (int a = 0; a < d; a++)
        g[i * d + a] = fixed[i] ? 0 : g[i * d + a] + nm[i] * (nv[i * d + a] - vhat[i * d + a]);
    project_dofs(&X, g);
    double gn = sqrt(tide_norm2sq(N, g));
    if (it == 0) {
      /* the scale of the gradient: its start, or the momentum |M v^| when
       * v^ already nearly balances (free flight: round-off is no residual) */
      double pm = 0;
      for (int64_t i = 0; i < nn; i++)
        for (int a = 0; a < d; a++)
          pm += nm[i] * nm[i] * vhat[i * d + a] * vhat[i * d + a];
      g0 = fmax(gn, 1e-6 * sqrt(pm));
      if (!(g0 > 0)) g0 = 1;
    }
    st->residual = gn / g0;
    st->newton = it;
    if (gn <= tol * g0 || gn == 0) {
      st->converged = 1;
      break;
    }
    if (it >= maxit) break;
    /* H dv = -g by PCG (the projected dP/dF keeps H SPD) */
#pragma omp parallel for schedule(static) if (N > TIDE_PAR_MIN)
    for (int64_t k = 0; k < N; k++)
      vt[k] = -g[k];
    tide_solve_opts o = tide_solve_opts_default();
    o.tol = 1e-2 * (gn / g0 < 1 ? gn / g0 : 1) > tol * 0.1 ? 1e-3 : tol * 0.1;
    o.maxit = cg_maxit;
    tide_solve_stats cs;
    int cst = tide_pcg_op(N, implicit_hess, &X, implicit_prec, &X, vt, dv, work, &o, &cs);
    st->cg += cs.iterations;
    if (cst && cst != TIDE_ENOCONV) {
      status = cst;
      goto done;
    }
    /* backtracking line search on E (Armijo) */
    double slope = tide_dot(N, g, dv), alpha = 1, En = E;
    int ok = 0;
    for (int ls = 0; ls < 30; ls++) {
#pragma omp parallel for schedule(static) if (N > TIDE_PAR_MIN)
      for (int64_t k = 0; k < N; k++)
        vt[k] = nv[k] + alpha * dv[k];
      En = implicit_eval(&X, vt, 0);
      /* Armijo, with E's round-off (sums of ~|E|) as slack near the minimum */
      if (En <= E + 1e-4 * alpha * slope + 1e-13 * fabs(E)) {
        ok = 1;
        break;
      }
      alpha *= 0.5;
    }
    if (!ok) break; /* no descent: report the residual reached */
    memcpy(nv, vt, bn);
    E = implicit_eval(&X, nv, 1);
  }
  st->energy = E;
  /* separating / slip walls and colliders act on the result */
#pragma omp parallel for schedule(static) if (nn > TIDE_PAR_MIN)
  for (int64_t i = 0; i < nn; i++)
    if (nm[i] > 0) node_bcs(m, s, i, nv + i * d, NULL);
done:
  tide_free(vhat, bn), tide_free(g, bn), tide_free(dv, bn), tide_free(vt, bn);
  tide_free(work, 4 * bn), tide_free(ke, sizeof(double) * (size_t)(nn > 0 ? nn : 1));
  tide_free(diag, sizeof(double) * (size_t)(nn > 0 ? nn : 1));
  tide_free(px, bn), tide_free(cn, 3 * sizeof(double) * (size_t)(nn > 0 ? nn : 1));
  tide_free(fixed, (size_t)(nn > 0 ? nn : 1));
  tide_free(X.C, bp * dd), tide_free(X.Fh, bp * dd), tide_free(X.P, bp * dd);
  tide_free(X.A, bp * dd * dd), tide_free(X.Q, bp * dd), tide_free(X.psi, bp);
  return status;
}

int tide_mpm_step_implicit(tide_mpm *m, double dt, double tol, int maxit, int cg_maxit,
                           tide_mpm_implicit_stats *st) {
  int s;
  if ((s = tide_mpm_p2g(m, 0)) || (s = tide_mpm_grid_implicit(m, dt, tol, maxit, cg_maxit, st)) ||
      (s = tide_mpm_g2p(m, dt)))
    return s;
  return TIDE_OK;
}

/* ---------------------------------------------------------- diagnostics */

int tide_mpm_max_speed(const tide_mpm *m, double *out) {
  if (tide_particles_max_norm(m->ps, out))
    return tide_fail(TIDE_ENONFINITE, "MPM: a particle velocity is not finite");
  return TIDE_OK;
}

int tide_mpm_max_dt(const tide_mpm *m, double cfl, double *dt) {
  int st;
  if (!(cfl > 0 && isfinite(cfl))) return tide_fail(TIDE_EINVAL, "cfl must be > 0, got %g", cfl);
  double vmax, c = 0;
  if ((st = tide_mpm_max_speed(m, &vmax))) return st;
  for (int k = 0; k < m->nmat; k++) {
    const tide_mpm_material *mt = &m->mats[k];
    double s = sqrt((mt->elastic.lambda + 2 * mt->elastic.mu) / mt->rho);
    if (s > c) c = s;
  }
  *dt = vmax + c > 0 ? cfl * m->g.dx / (vmax + c) : HUGE_VAL;
  return TIDE_OK;
}

/* fixed blocks, combined in order: bit-identical for any thread count */
#define NQ 9
int tide_mpm_diagnostics(const tide_mpm *m, double *kinetic, double *elastic, double *momentum,
                         double *angular, double *mass) {
  int d = m->dim;
  int64_t n = m->ps->n, nb = (n + TIDE_RBLOCK - 1) / TIDE_RBLOCK;
  const double *x = TIDE_F64P(m->ps->x), *v = TIDE_F64P(m->ps->v), *c = TIDE_F64P(m->ps->c);
  const double *F = TIDE_F64P(m->F), *V0 = TIDE_F64P(m->vol0), *M = TIDE_F64P(m->mass),
               *Jp = TIDE_F64P(m->Jp);
  const int32_t *mi = TIDE_I32P(m->mat);
  double D = (m->order == 2 ? 0.25 : 1.0 / 3) * m->g.dx * m->g.dx;
  size_t bytes = (size_t)(nb > 0 ? nb : 1) * NQ * sizeof(double);
  double *part = tide_calloc(bytes);
  if (!part) return TIDE_ENOMEM;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < nb; b++) {
    double q[NQ] = {0};
    int64_t p1 = (b + 1) * TIDE_RBLOCK < n ? (b + 1) * TIDE_RBLOCK : n;
    for (int64_t p = b * TIDE_RBLOCK; p < p1; p++) {
      const double *xp = x + p * d, *vp = v + p * d, *cp = c + p * d * d;
      double mp = M[p], v2 = 0, cc = 0;
      for (int a = 0; a < d; a++)
        v2 += vp[a] * vp[a];
      for (int a = 0; a < d * d; a++)
        cc += cp[a] * cp[a];
      q[0] += 0.5 * mp * (v2 + D * cc);
      if (elastic) {
        const tide_mpm_material *mt = &m->mats[mi[p]];
        tide_material e = mt->elastic;
        if (mt->plastic == TIDE_MPM_SNOW) {
          double h = exp(mt->xi * (1 - Jp[p]));
          e.mu *= h, e.lambda *= h;
        }
        double psi = 0;
        tide_material_eval(&e, d, F + p * d * d, NULL, 0, &psi, NULL, NULL);
        q[1] += V0[p] * psi;
      }
      for (int a = 0; a < d; a++)
        q[2 + a] += mp * vp[a];
      /* L = m (x x v) + m eps:(C D)^T, C D = D C */
      double x3[3] = {0, 0, 0}, v3[3] = {0, 0, 0}, C3[9] = {0};
      for (int a = 0; a < d; a++) {
        x3[a] = xp[a], v3[a] = vp[a];
        for (int e = 0; e < d; e++)
          C3[a * 3 + e] = cp[a * d + e];
      }
      q[5] += mp * (x3[1] * v3[2] - x3[2] * v3[1] + D * (C3[2 * 3 + 1] - C3[1 * 3 + 2]));
      q[6] += mp * (x3[2] * v3[0] - x3[0] * v3[2] + D * (C3[0 * 3 + 2] - C3[2 * 3 + 0]));
      q[7] += mp * (x3[0] * v3[1] - x3[1] * v3[0] + D * (C3[1 * 3 + 0] - C3[0 * 3 + 1]));
      q[8] += mp;
    }
    memcpy(part + b * NQ, q, sizeof q);
  }
  double t[NQ] = {0};
  for (int64_t b = 0; b < nb; b++)
    for (int k = 0; k < NQ; k++)
      t[k] += part[b * NQ + k];
  tide_free(part, bytes);
  if (kinetic) *kinetic = t[0];
  if (elastic) *elastic = t[1];
  if (momentum)
    for (int a = 0; a < d; a++)
      momentum[a] = t[2 + a];
  if (angular)
    for (int a = 0; a < 3; a++)
      angular[a] = t[5 + a];
  if (mass) *mass = t[8];
  return TIDE_OK;
}

int tide_mpm_grid_sums(const tide_mpm *m, double *mass, double *momentum) {
  int d = m->dim;
  const double *nm = TIDE_F64P(m->nm), *nv = TIDE_F64P(m->nv);
  double t[4] = {0};
  for (int64_t i = 0; i < m->nn; i++) {
    t[0] += nm[i];
    for (int a = 0; a < d; a++)
      t[1 + a] += nm[i] * nv[i * d + a];
  }
  if (mass) *mass = t[0];
  if (momentum)
    for (int a = 0; a < d; a++)
      momentum[a] = t[1 + a];
  return TIDE_OK;
}
