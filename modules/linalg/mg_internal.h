/*
 * mg_internal.h -- private layout and stencil kernels of the grid Poisson
 * solvers (mgpcg.c, mg_mic0.c).  Not part of the API; bench/poisson.c
 * includes it to time the bare operator.
 *
 * Internal layout.  Every level stores its cells in a padded 3D box: the
 * interior cells (internal axes 0, 1, 2; axis 2 contiguous) surrounded by a
 * layer of SOLID cells whose vector entries stay 0, so stencils never test
 * bounds.  A 2D grid {ni, nj} is stored as {1, ni, nj} with no padding along
 * the unused axis 0 (the row-major offsets of grid.h are unchanged).  An odd
 * extent gets one more pad layer so the restriction stencil of the next level
 * stays inside the box.
 *
 * Invariant: every internal vector is 0 at non-liquid cells (pads included),
 * so the label-mode stencil sums neighbours without testing labels.
 *
 * The cells a kernel visits are the "active pencils": per (i, j) row along
 * axis 2, the range [k0, k1) spanning its liquid cells.  Loops run over the
 * active pencils only, so the memory traffic scales with the liquid region,
 * not the box.  The set-up works inside each level's liquid bounding box
 * (mg_level.box): the stencil data (nd, diag, cf) is 0 outside it, and
 * every cell inside it is written by each analysis.
 */
#ifndef TIDE_MG_INTERNAL_H
#define TIDE_MG_INTERNAL_H

#include "linalg/mgpcg.h"

#define MG_MAXLEV 16
/* levels with fewer active cells run their loops on one thread */
#define MG_PAR_MIN 16384
/* thickness (cells along the outermost axis) of the slabs of the boundary
 * band: the band Gauss-Seidel sweeps run slab by slab, even slabs in
 * parallel, then odd slabs */
#define MG_SLAB 4

/* a growable zeroed buffer */
typedef struct mg_buf {
  void *p;
  size_t bytes;
} mg_buf;

typedef struct mg_pencil {
  int32_t i, j, k0, k1; /* padded coordinates; cells (i, j, k0..k1-1) */
} mg_pencil;

/* a run of band cells c0 .. c0 + len - 1 along axis 2; par = colour
 * (i + j + k) & 1 of c0 */
typedef struct mg_run {
  int64_t c0;
  int32_t len, par;
} mg_run;

/* a box of cells: padded coordinates, bounds inclusive; empty if lo > hi */
typedef struct mg_box {
  int lo[3], hi[3];
} mg_box;

typedef struct mg_level {
  int n[3];       /* interior extents (internal axes; n[0] == 1 in 2D) */
  int N[3];       /* padded extents */
  int64_t s0, s1; /* strides of axes 0 and 1 (axis 2 has stride 1) */
  int64_t size;   /* N0 N1 N2 */
  double scale;   /* 1 / h^2 of this level */
  int coef;       /* 1: stencil from diag/cf (fine level with weights or theta, coarse
                     levels with weights), 0: from nd */
  int kind;       /* the kernels' stencil: 0 from nd, 1 from diag/cf, 2 from diag with all
                     off-diagonals -scale (theta but no weights: the dam break's case) */
  uint8_t *label; /* padded labels (pads SOLID) */
  uint8_t *nd;    /* label mode: number of non-solid neighbours of a liquid cell, else 0 */
  double *diag;   /* coef mode: A_cc (0 at non-liquid cells) */
  double *cf[3];  /* coef mode: cf[a][c] = -A_{c, c+e_a} >= 0 (0 unless both liquid) */
  double *w[3];   /* coarse levels in coef mode: effective open fraction of the face
                     between c and c + e_a (setup_coarse in mgpcg.c) */
  mg_box box;     /* the liquid cells' bounding box: set-up work stays inside it */
  mg_pencil *pen; /* active pencils */
  int npen;
  double *part;    /* per-pencil partial sums (deterministic reductions) */
  int64_t nliquid; /* liquid cells */
  int64_t nactive; /* cells in active pencils */
  mg_run *band;    /* boundary band: runs of consecutive cells along k, memory order */
  int64_t nrun;
  int64_t nband;     /* band cells */
  int64_t *slab;     /* nslab + 1 offsets into band: runs of slab s (outermost padded
                        coordinate o with (o - 1) / MG_SLAB == s) */
  int nslab;
  double *x, *b, *t; /* level vectors (level 0: t only; x, b are the PCG's z, r) */
  mg_buf buf[16];    /* storage of the above */
} mg_level;

typedef struct mg_block {
  int64_t c0, c1; /* cells [c0, c1) of one pencil segment */
} mg_block;

/* MIC(0) wavefront schedule: pencil segments grouped into tiles (boxes of
 * the grid), tiles grouped into fronts */
typedef struct mg_sched {
  mg_block *seg;  /* segments, tile after tile, each tile in memory order */
  int64_t *tile;  /* ntile + 1 offsets into seg */
  int64_t *front; /* nfront + 1 offsets into tile */
  int64_t nseg, ntile;
  int nfront;
} mg_sched;

struct tide_mac_solver {
  tide_mac_solver_opts o;
  tide_grid grid; /* user grid */
  int d3;         /* 3D */
  int nlev;
  mg_level lev[MG_MAXLEV];
  /* PCG vectors on level 0's layout */
  double *vx, *vr, *vp, *vq, *vb;
  mg_buf vbuf[5];
  /* bottom solve: dense Cholesky of the coarsest level */
  int nbot;
  int64_t *botcell;
  double *botL, *botv;
  uint8_t *botpin;
  mg_buf botbuf[4];
  /* liquid regions without a Dirichlet face: cells grouped by region */
  int nfloat;
  int64_t *fcell;  /* cells of all floating regions, region after region */
  int64_t *fstart; /* nfloat + 1 offsets into fcell */
  mg_buf fbuf[2];
  /* MIC(0): pivots 1/sqrt(e) on level 0's layout, wavefront schedule */
  double *pre;
  mg_sched sched;
  mg_buf mbuf[6];
  /* set-up scratch */
  mg_buf scratch[3];
  double setup_seconds;
  int64_t bytes;
  int ready; /* the last analysis succeeded */
};

#define MG_INLINE static inline __attribute__((always_inline))

/* sum of the axis neighbours of c */
MG_INLINE double mg_nsum(const double *x, int64_t c, int64_t s0, int64_t s1, int d3) {
  double s = (x[c - 1] + x[c + 1]) + (x[c - s1] + x[c + s1]);
  if (d3) s += x[c - s0] + x[c + s0];
  return s;
}

/* (A x)_c on level L (0 at non-liquid cells); coef: the level's kind */
MG_INLINE double mg_Ax(const mg_level *L, const double *x, int64_t c, int d3, int coef) {
  const int64_t s0 = L->s0, s1 = L->s1;
  if (coef == 2) { /* x is 0 at non-liquid cells: the plain neighbour sum */
    const double d = L->diag[c], v = d * x[c] - L->scale * mg_nsum(x, c, s0, s1, d3);
    return d > 0 ? v : 0.0;
  }
  if (coef) {
    const double *c1 = L->cf[1], *c2 = L->cf[2];
    double s =
        (c2[c] * x[c + 1] + c2[c - 1] * x[c - 1]) + (c1[c] * x[c + s1] + c1[c - s1] * x[c - s1]);
    if (d3) s += L->cf[0][c] * x[c + s0] + L->cf[0][c - s0] * x[c - s0];
    return L->diag[c] * x[c] - s;
  }
  double nd = (double)L->nd[c];
  double v = L->scale * (nd * x[c] - mg_nsum(x, c, s0, s1, d3));
  return nd > 0 ? v : 0.0;
}

/* 1 / A_cc, 0 at non-liquid (and isolated) cells */
MG_INLINE double mg_dinv(const mg_level *L, int64_t c, int coef) {
  double d = coef ? L->diag[c] : L->scale * (double)L->nd[c];
  return d > 0 ? 1.0 / d : 0.0;
}

/* MG_DISPATCH on a level kind (0, 1 or 2, see mg_level.kind) */
#define MG_DISPATCH3(d3, kind, fn, ...)                                                            \
  do {                                                                                             \
    if ((kind) == 2) {                                                                             \
      if (d3)                                                                                      \
        fn(__VA_ARGS__, 1, 2);                                                                     \
      else                                                                                         \
        fn(__VA_ARGS__, 0, 2);                                                                     \
    } else {                                                                                       \
      MG_DISPATCH(d3, kind, fn, __VA_ARGS__);                                                      \
    }                                                                                              \
  } while (0)

/* Run the statements given last (using c) over the active cells of level L, in parallel over
 * pencils. */
#define MG_FOR_CELLS(L, ...)                                                                       \
  do {                                                                                             \
    const mg_level *L_ = (L);                                                                      \
    _Pragma("omp parallel for schedule(static) if (L_->nactive > MG_PAR_MIN)") for (int p_ = 0;    \
                                                                                    p_ < L_->npen; \
                                                                                    p_++) {        \
      const int64_t b_ = L_->pen[p_].i * L_->s0 + L_->pen[p_].j * L_->s1;                          \
      const int64_t e0_ = b_ + L_->pen[p_].k0, e1_ = b_ + L_->pen[p_].k1;                          \
      _Pragma("omp simd") for (int64_t c = e0_; c < e1_; c++) { __VA_ARGS__ }                      \
    }                                                                                              \
  } while (0)

/* Like MG_FOR_CELLS, also accumulating EXPR (after the statements) into L->part per pencil, then
 * summing the pencil partials in order into OUT (thread-count independent). */
#define MG_REDUCE_CELLS(L, OUT, EXPR, ...)                                                         \
  do {                                                                                             \
    const mg_level *L_ = (L);                                                                      \
    double *part_ = L_->part;                                                                      \
    _Pragma("omp parallel for schedule(static) if (L_->nactive > MG_PAR_MIN)") for (int p_ = 0;    \
                                                                                    p_ < L_->npen; \
                                                                                    p_++) {        \
      const int64_t b_ = L_->pen[p_].i * L_->s0 + L_->pen[p_].j * L_->s1;                          \
      const int64_t e0_ = b_ + L_->pen[p_].k0, e1_ = b_ + L_->pen[p_].k1;                          \
      double s_ = 0;                                                                               \
      _Pragma("omp simd reduction(+ : s_)") for (int64_t c = e0_; c < e1_; c++) {                  \
        __VA_ARGS__ s_ += (EXPR);                                                                  \
      }                                                                                            \
      part_[p_] = s_;                                                                              \
    }                                                                                              \
    double t_ = 0;                                                                                 \
    for (int p_ = 0; p_ < L_->npen; p_++)                                                          \
      t_ += part_[p_];                                                                             \
    (OUT) = t_;                                                                                    \
  } while (0)

/* Dispatch a kernel template fn(args..., d3, coef) on the run-time flags so
 * each combination is compiled with constant flags. */
#define MG_DISPATCH(d3, coef, fn, ...)                                                             \
  do {                                                                                             \
    if (d3) {                                                                                      \
      if (coef)                                                                                    \
        fn(__VA_ARGS__, 1, 1);                                                                     \
      else                                                                                         \
        fn(__VA_ARGS__, 1, 0);                                                                     \
    } else {                                                                                       \
      if (coef)                                                                                    \
        fn(__VA_ARGS__, 0, 1);                                                                     \
      else                                                                                         \
        fn(__VA_ARGS__, 0, 0);                                                                     \
    }                                                                                              \
  } while (0)

/* y = A x on level L (active cells). */
void mg_apply(const mg_level *L, int d3, const double *x, double *y);
/* MIC(0) set-up and z = M^{-1} r (mg_mic0.c). */
int mg_mic0_setup(tide_mac_solver *S);
void mg_mic0_apply(tide_mac_solver *S, const double *r, double *z);
int mg_buf_reserve(tide_mac_solver *S, mg_buf *b, size_t bytes);

#endif
