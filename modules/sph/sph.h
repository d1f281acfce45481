/*
 * sph.h -- smoothed particle hydrodynamics (tide.sph): kernels, a cell-list
 * neighbour search over Z-order (Morton) sorted particles, difference and
 * symmetric SPH gradients, weakly compressible SPH (Tait equation of state,
 * artificial viscosity) and divergence-free SPH (DFSPH) with boundary
 * particles (Li's lecture, "SPH"; the methods beyond it are referenced
 * below).
 *
 * The module stands above tide.liquid: the fluid particles are a
 * tide_particles set (positions x, velocities v; stateless seeding by
 * tide_particles_seed), surfaces for rendering come from the particle level
 * set of grid/sdf.h.  Neither includes it.
 *
 * Domain.  A tide_grid g: particles live in its box, the lattice of
 * seeded particles is its cell centres (spacing dx = g.dx), and the cell
 * list of the neighbour search has cells of the kernel's support H.
 *
 * Kernels (support radius H, q = r/H, dimension d; Li's lecture, Monaghan
 * 1992, Wendland 1995, Dehnen & Aly 2012 Table 1):
 *   cubic spline  h = H/2, s = r/h = 2q
 *                 W = sigma_d { 1 - 3/2 s^2 + 3/4 s^3   (0 <= s < 1)
 *                             { 1/4 (2 - s)^3          (1 <= s < 2)
 *                 sigma_2 = 10/(7 pi h^2), sigma_3 = 1/(pi h^3)
 *   Wendland C2   W = sigma_d (1 - q)^4 (1 + 4q)        (0 <= q < 1)
 *                 sigma_2 = 7/(pi H^2), sigma_3 = 21/(2 pi H^3)
 * both normalised (integral of W over R^d = 1), grad_i W(x_i - x_j) =
 * W'(r) (x_i - x_j)/r, antisymmetric in i, j bit for bit.
 *
 * Gradients of a particle field A (Li's lecture; Monaghan 1992 Sec. 2.3):
 *   difference   (grad A)_i = sum_j V_j (A_j - A_i) grad W_ij
 *                (zero for constant A, first order consistent)
 *   symmetric    (grad A)_i = rho_i sum_j m_j (A_i/rho_i^2 + A_j/rho_j^2) grad W_ij
 *                (pairwise antisymmetric forces: momentum exactly conserved)
 *
 * Fluid particles carry mass m = rho0 / sum_j W(x_i - x_j) over the
 * lattice (the rest density is exact on the seeding lattice) and
 * velocities; densities
 *   rho_i = m sum_j W_ij (j over fluid, self included) + sum_b Psi_b W_ib
 * with Akinci et al. 2012's boundary particles b, Psi_b = rho0 V_b,
 * V_b = 1 / sum_b' W_bb' (boundary neighbours, self included) for a
 * boundary layer thinner than the support (Akinci's surface sampling); a
 * band of lattice sites at least H thick fills the kernel of every fluid
 * particle beyond the wall and takes Psi_b = m (the wall is more of the
 * lattice: rest density exact at the wall too).
 *
 * WCSPH [Becker & Teschner 2007; Monaghan 1992]:
 *   Tait  p_i = B ((rho_i/rho0)^gamma - 1), B = rho0 c^2/gamma, gamma = 7,
 *         clamped to p >= 0 (free surface)
 *   a_i = g - sum_j m (p_i/rho_i^2 + p_j/rho_j^2) grad W_ij
 *           - sum_b Psi_b 2 p_i/rho_i^2 grad W_ib          (pressure mirrored:
 *                                                          p_b = p_i, rho_b = rho_i)
 *           - sum_j m Pi_ij grad W_ij - sum_b Psi_b Pi_ib grad W_ib
 *   Pi_ij = -nu_ij (v_ij . x_ij)/(r^2 + 0.01 h^2) when v_ij . x_ij < 0,
 *   nu_ij = 2 alpha h c/(rho_i + rho_j)  (boundary: alpha_b, v_b = 0)
 *   symplectic Euler: v += dt a, x += dt v.
 *
 * DFSPH [Bender & Koschier 2015, Algorithms 1-3]: with
 *   G_i = sum_j m grad W_ij + sum_b Psi_b grad W_ib   (G_f + G_b)
 *   alpha_i = rho_i / ((G_f + G_b) . (G_f + 2 G_b) + sum_j |m grad W_ij|^2)
 * (the exact Jacobi diagonal of the velocity update below; Bender &
 * Koschier's factor when there is no boundary), the constant-density
 * solver iterates
 *   rho*_i = max(rho0, rho_i + dt (sum_j m v_ij . grad W_ij + sum_b Psi_b v_i . grad W_ib))
 *   kappa_i = (rho*_i - rho0)/dt^2 alpha_i
 *   v_i -= dt (sum_j m (kappa_i/rho_i + kappa_j/rho_j) grad W_ij
 *              + sum_b Psi_b 2 kappa_i/rho_i grad W_ib)
 * until the mean of (rho*_i - rho0)/rho0 is below eta (at least 2
 * iterations; warm started with w = s->warm (0.5) times the last step's
 * sum of kappa_i where the density predicted from v* exceeds rho0
 * [Bender & Koschier 2017, Sec. 3.3]), and the divergence-free
 * solver the same with Drho_i = max(0, sum_j m v_ij . grad W_ij + sum_b Psi_b v_i . grad W_ib),
 *   kappa^v_i = Drho_i/dt alpha_i, until mean(Drho_i) dt/rho0 < eta_v (at
 *   least 1 iteration).
 * The pressure p_i = rho_i sum kappa_i (kappa_i/rho_i = p_i/rho_i^2: the
 * velocity update is the symmetric pressure gradient).
 *
 * Renormalized pressure (renormalize = 1), after Bonet & Lok 1999's
 * corrected kernel gradient L_i = M_i^-1, restricted to its isotropic part.
 * With the first moment
 *   M_i = (1/rho_i) (sum_j m grad W_ij (x) (x_j - x_i) + sum_b Psi_b grad W_ib (x) (x_b - x_i))
 * (= I on a full lattice up to the kernel's quadrature error: 1.3 % for the
 * cubic spline at H = 2 dx), l_i = d / tr M_i (tr M_i / d clamped below at
 * 1/4 for particles with few neighbours) scales particle i's share of every
 * pressure term:
 *   a_i = g - sum_j m (l_i p_i/rho_i^2 + l_j p_j/rho_j^2) grad W_ij
 *           - sum_b Psi_b l_i (p_i + p_b)/rho_i^2 grad W_ib - (viscosity as above)
 * (DFSPH: l_i kappa_i/rho_i in the velocity update, alpha_i divided by l_i:
 * the exact Jacobi diagonal again).  Pair forces stay central and
 * antisymmetric (linear and angular momentum conserved), and the internal
 * virtual work of a uniform dilation v = e x is exactly -d e sum_i V_i p_i
 * whatever the arrangement of the particles: a column at rest carries its
 * weight with the pressure of the continuum, not with the settled
 * arrangement's first moment.  (The full matrix L_i makes the pair forces
 * non-central; a column at rest then never settles, docs/sph.md.)
 *
 * Hydrostatic boundary pressure (wall_hydrostatic = 1): the mirrored p_b =
 * p_i above becomes p_b = max(0, p_i + rho_i g . (x_b - x_i)), the static
 * wall's pressure extrapolation of Adami, Hu & Adams 2012 (Eq. 27) taken
 * pair by pair from particle i, as in the pressure mirroring of Band et al.
 * 2018 with the body-force term: the wall then carries its share of the
 * hydrostatic gradient next to side walls and floors.  DFSPH puts the
 * (unclamped) rho_i g . (x_b - x_i) part into its non-pressure forces; the
 * solver keeps p_b = p_i for the stiffness.
 *
 * SDF boundaries (tide_sph_sdf_boundary): a tide_shape whose surface is a
 * wall, with no boundary particles -- the semi-analytic wall weight of
 * Harada, Koshizuka & Kawaguchi 2007: the wall beyond the surface is taken
 * as the continuation of the fluid lattice (sites at normal distances
 * (l + 1/2) dx behind a planar wall, tangential offsets on the lattice
 * through x_i, each of mass m -- the thick boundary-particle band of
 * Psi_b = m, summed once per particle from its distance d to the surface).
 * With h_l = d + (l + 1/2) dx, r^2 = h_l^2 + |t|^2 (t the tangential lattice
 * offsets), per particle and wall:
 *   rho_w(d) = m sum W(r)                          (density contribution)
 *   G_w      = m sum W'(r) h_l / r  n = rho_w'(d) n  (sum_b Psi_b grad W_ib;
 *              n the unit normal into the fluid, the tangential terms cancel)
 *   T_w      = m sum W'(r)/r (x_b - x_i) (x) (x_b - x_i)
 *            = T_n n n^T + T_t (I - n n^T)         (hydrostatic wall pressure)
 * The boundary sums of the particle method above become, exactly for a
 * planar wall at a lattice-aligned distance: sum_b Psi_b W_ib = rho_w,
 * sum_b Psi_b grad W_ib = G_w, sum_b Psi_b (g . (x_b - x_i)) grad W_ib =
 * -T_w g, first-moment trace -tr T_w.  The mirrored pressure force is
 * -l_i 2 p_i/rho_i^2 G_w (Akinci et al. 2012; Band et al. 2018), with the
 * hydrostatic wall pressure additionally +l_i T_w g / rho_i, so the density
 * and the force come from the same wall sum (the force is the gradient of
 * the wall's density term: hydrostatic balance as for boundary particles).
 * The quantities are computed at the search (positions fixed until the
 * drift); several walls add up (each as a half space: edges and corners of
 * one shape count the nearest face only; an axis-aligned box tank is split
 * into its faces, edges and corners by inclusion-exclusion).
 * Density maps (method map; Koschier & Bender 2017): the same quantities
 * as integrals over the true solid S, with c = m / dx^d,
 *   rho_w = c int_S W,  G_w = c int_S W'(r)/r (x - y),  T_w = c int_S W'(r)/r (y - x)(x)(y - x),
 * precomputed on a grid in the shape's frame (tide_sph_map) by a 2^d-tree
 * quadrature of the kernel's support with an SDF inside test, plus the flat
 * wall's lattice-minus-integral terms along the node's SDF normal (the
 * fluid's sums are lattice sums), interpolated by cubic Lagrange
 * polynomials: corners of any shape are the solid's own.  Walls may rotate
 * (tide_sph_sdf_rotation): distances and maps are taken in the shape's
 * frame, G and T rotated back.  The drift projects a particle
 * that crossed a surface (d < 0) back along the normal to d = dx/10 and
 * removes its velocity into the wall (counted: s->projected).  A wall may
 * translate at a velocity v_w: the drift moves its shape by dt v_w, the
 * density-change terms take (v_i - v_w) . G_w, the projection the relative
 * normal velocity (edges and corners: the mean velocity of their walls).
 *
 * Wall viscosity (alpha_b = boundary_viscosity > 0): Monaghan's Pi_ib of
 * the boundary particles above, summed over a wall's lattice (Harada) or
 * integrated over its solid (map), is one more per-boundary tensor of the
 * search,
 *   V_w = m sum W'(r)/r h h^T / (r^2 + 0.01 h_k^2)     (h = x_i - x_b, h_k = H/2)
 *       = V_n n n^T + V_t (I - n n^T) for a planar wall,
 *   a_i += 1/2 alpha_b h_k c / rho_i V_w (v_i - v_w(x_i))   (V_w <= 0: dissipative)
 * with the wall's velocity taken at the particle (exact for a rigid wall:
 * (v_w(x_b) - v_w(x_i)) . h = (omega x (x_b - x_i)) . h = 0, and every pair
 * force lies along h through x_i, so the torque about x_i is exact).  Not
 * switched (the approaching-only condition depends on the velocity and
 * cannot enter a precomputed tensor, nor a map's integral): for a layer
 * sliding tangentially the switched sum of the boundary particles is exactly
 * half the unswitched one, hence the 1/2 -- the SDF wall's tangential drag
 * equals the particle band's to round-off; the band's switch adds a normal
 * push off the wall (as large as the drag) that the SDF wall has not, and for
 * a normal approach the SDF wall damps half as much.  The reaction -m a_i
 * goes to the boundary's body like the pressure terms.  Per-boundary slots
 * and map nodes carry d*d more values when alpha_b > 0 (else nothing changes).
 *
 * Forces on the boundaries (two-way coupling; Akinci et al. 2012, Sec. 5):
 * every wall term of a fluid particle's force is a pair-wise reaction, added
 * negated (times m) to the accumulator of its body -- an SDF boundary or a
 * boundary particle set -- with torque (x_i - c) x F about the body's centre:
 *   boundary particles  F_k = sum_i sum_{b in k} m Psi_b c_ib grad W_ib
 *                       (c_ib the pressure/viscosity factor of the force pass)
 *   SDF boundary g      F_g = sum_i m (2 l_i p_i/rho_i^2 G_g,i - l_i T_g,i g / rho_i
 *                                   - 1/2 alpha_b h_k c/rho_i V_g,i (v_i - v_g(x_i)))
 *                       (G_w and T_w kept per boundary by the search, at most
 *                       TIDE_SPH_WSLOTS within H of one particle)
 *   DFSPH updates       + sum_i m 2 l_i kappa_i/rho_i (Psi_b grad W_ib | G_g,i)
 *   drift projections   + m v_n n / dt (the momentum a projected particle loses)
 * summed over TIDE_SPH_FBLOCKS fixed blocks of the storage order, then the
 * blocks in order (bit-identical for any thread count); tide_sph_forces
 * restarts the sums, the DFSPH solves and the drift add to them.
 *
 * Neighbour search.  Cells of size H over the grid's box; the fluid
 * particles are sorted by the Morton code of their cell (stable LSD radix
 * sort over fixed blocks: the order does not depend on the thread count),
 * every per-particle array alike; each particle's neighbours are listed
 * (CSR, fluid and boundary apart) in the fixed order of the 3^d cells
 * around it, then by storage order.  Everything after it is a parallel
 * gather: no particle writes another's data, results are bit-identical for
 * any thread count.
 *
 * Units: SI.  Gravity by the scene's choice.
 */
#ifndef TIDE_SPH_H
#define TIDE_SPH_H

#include "grid/grid.h"
#include "grid/sdf.h"
#include "liquid/particles.h"

typedef enum { TIDE_SPH_CUBIC = 0, TIDE_SPH_WENDLAND = 1 } tide_sph_kernel_kind;

/* A kernel of support H in dimension dim. */
typedef struct tide_sph_kernel {
  int kind, dim;
  double H;     /* support radius [m] */
  double sigma; /* normalisation */
} tide_sph_kernel;

int tide_sph_kernel_init(tide_sph_kernel *k, int kind, int dim, double H);
/* W(r) [1/m^d] and dW/dr [1/m^(d+1)] for r >= 0 (0 beyond H): cubic spline
 * (Monaghan 1992, support H = 2h) or Wendland C2 (Wendland 1995).  static
 * inline so the pair loops inline them (the exported tide_sph_W/dW below are
 * interposable in the position-independent build and were called out of
 * line per pair); ISO C without contraction, so the same bits either way. */
static inline double tide_sph_kernel_W(const tide_sph_kernel *k, double r) {
  double q = r / k->H;
  if (q >= 1) return 0;
  if (k->kind == TIDE_SPH_CUBIC) {
    double s = 2 * q;
    if (s < 1) return k->sigma * (1 - 1.5 * s * s + 0.75 * s * s * s);
    double t = 2 - s;
    return k->sigma * 0.25 * t * t * t;
  }
  double t = 1 - q, t2 = t * t;
  return k->sigma * t2 * t2 * (1 + 4 * q);
}

static inline double tide_sph_kernel_dW(const tide_sph_kernel *k, double r) {
  double q = r / k->H;
  if (q >= 1) return 0;
  if (k->kind == TIDE_SPH_CUBIC) {
    double s = 2 * q, h = 0.5 * k->H;
    if (s < 1) return k->sigma / h * (-3 * s + 2.25 * s * s);
    double t = 2 - s;
    return -k->sigma / h * 0.75 * t * t;
  }
  double t = 1 - q;
  return -20 * q * t * t * t * k->sigma / k->H;
}

/* The same, exported (for the bindings and tests). */
double tide_sph_W(const tide_sph_kernel *k, double r);
double tide_sph_dW(const tide_sph_kernel *k, double r);
/* grad_i W(x_i - x_j) for xij = x_i - x_j of length r (0 for r = 0). */
static inline void tide_sph_gradW(const tide_sph_kernel *k, int d, const double *xij, double r,
                                  double *g) {
  double s = r > 0 ? tide_sph_kernel_dW(k, r) / r : 0;
  for (int a = 0; a < d; a++)
    g[a] = s * xij[a];
}

#define TIDE_SPH_MAXWALL 16
#define TIDE_SPH_MAXSET 16 /* boundary particle sets (S:boundary calls) */
#define TIDE_SPH_WSLOTS 4  /* SDF boundaries within H of one particle, kept apart */
/* bodies of the reaction accumulators: SDF boundary g is body g, boundary
 * particle set k is body TIDE_SPH_MAXWALL + k */
#define TIDE_SPH_NBODY (TIDE_SPH_MAXWALL + TIDE_SPH_MAXSET)
#define TIDE_SPH_FBLOCKS 64 /* fixed particle blocks of the reductions */

/* SDF boundary methods */
typedef enum {
  TIDE_SPH_WALL_HARADA = 0,
  TIDE_SPH_WALL_MAP = 1,
  TIDE_SPH_WALL_AUTO = 2 /* harada for planes and axis-aligned box tanks (exact there), else map */
} tide_sph_wall_method;

/* A density map of one SDF boundary (Koschier & Bender 2017): on a regular
 * grid in the shape's frame (nodes lo + i h) the boundary terms of a point x
 * integrated over the solid S (kernel centred at x):
 *   rho_w = c int_S W(|x - y|) dy,  G_w = grad rho_w = c int_S W'(r)/r (x - y) dy,
 *   T_w = c int_S W'(r)/r (y - x) (x) (y - x) dy,   c = m / dx^d
 * (the lattice of the Harada path's wall in the continuum limit), nv = 3 + d
 * + d*d values per node (rho_w, -tr T_w, 0, G_w, T_w; d*d more, the wall
 * viscosity's V_w = c int_S W'(r)/r (y - x)(x)(y - x)/(r^2 + eps), when
 * alpha_b > 0; its lattice correction the congruence S V_w S by the flat
 * wall's lattice/integral ratios, which keeps it negative semi-definite),
 * interpolated by tensor cubic Lagrange polynomials. */
typedef struct tide_sph_map {
  int dim, n[3], nv;
  double lo[3], h;
  double *v;          /* (nodes, nv), x fastest */
  int64_t computed;   /* nodes integrated by quadrature (the rest: empty or full) */
  double seconds;     /* wall-clock time of the precompute */
} tide_sph_map;

typedef struct tide_sph {
  int dim;
  tide_grid g;          /* domain box; particle lattice at the cell centres */
  tide_sph_kernel K;    /* support H = support * dx */
  double rho0;          /* rest density [kg/m^3] */
  double mass;          /* fluid particle mass [kg] */
  double gravity[3];    /* [m/s^2] */
  double c;             /* speed of sound of the Tait equation and the viscosity [m/s] */
  double gamma;         /* Tait exponent (7) */
  double alpha_visc;    /* artificial viscosity alpha (fluid-fluid) */
  double alpha_bound;   /* artificial viscosity alpha against boundary particles and SDF walls */
  int wvisc;            /* 1 (alpha_bound > 0): slots and maps carry V_w ("Wall viscosity") */
  int renormalize;      /* 1: pressure terms scaled by l_i (see "Renormalized pressure") */
  int wall_hydrostatic; /* 1: boundary pressure p_i + rho_i g.(x_b - x_i), 0: p_i */
  /* cell list */
  int nc[3];
  int64_t ncells;
  int morton_bits; /* bits of the Morton keys */
  /* fluid particles (x, v in ps) and their attributes (cap rows) */
  tide_particles *ps;
  int64_t cap;
  tide_array *rho;   /* (n) density */
  tide_array *p;     /* (n) pressure [Pa] */
  tide_array *a;     /* (n, d) acceleration of the last force evaluation */
  tide_array *alpha; /* (n) DFSPH factor */
  tide_array *ren;   /* (n) renormalization l_i (1 when renormalize = 0) */
  tide_array *kap;   /* (n) DFSPH stiffness of the current iteration (scratch) */
  tide_array *err;   /* (n) DFSPH per-particle density error (scratch) */
  tide_array *ksum;  /* (n) DFSPH stiffness sum of the last density solve (warm start) */
  double warm;       /* DFSPH warm start factor in [0, 1] (0.5; 0: off) */
  /* boundary particles */
  int64_t nb, bcap;
  double *bx;    /* (nb, d) */
  double *psi;   /* (nb) Psi_b = rho0 V_b [kg] */
  double *bkind; /* (nb) 1: from a band as thick as the support (Psi = m), 0: Akinci's V_b */
  double *bset;  /* (nb) the set (S:boundary call, 0-based) of each boundary particle */
  int nset;
  double bcen[TIDE_SPH_MAXSET][3]; /* centroid of each set (its torque centre) [m] */
  /* moving sets (tide_sph_set_motion): each particle at bcen + R by, velocity bv */
  double *by;                       /* (nb, d) position in the set's frame, about bcen */
  double *bv;                       /* (nb, d) velocity [m/s] (0 for a set at rest) */
  double bvel[TIDE_SPH_MAXSET][3];  /* velocity of the set's centre [m/s] */
  double bom[TIDE_SPH_MAXSET][3];   /* angular velocity [rad/s] (2D the z entry) */
  double brot[TIDE_SPH_MAXSET][9];  /* rotation so far (row major) */
  int bmoving[TIDE_SPH_MAXSET];     /* 1 once a velocity was set */
  /* neighbour lists (valid after tide_sph_search while nvalid) */
  int nvalid;
  int64_t lcap, blcap;      /* entries allocated */
  int64_t *nstart, *bstart; /* n + 1 */
  int32_t *nbr, *bnbr;
  int64_t nscap; /* rows of nstart / bstart */
  /* search scratch: per particle kstride fluid then kstride boundary
   * neighbours written by the one gathering pass (scap entries) */
  int32_t *scr;
  int64_t scap;
  int kstride;
  /* cell ranges (ncells) of the sorted fluid and boundary particles */
  int64_t *fbeg, *fend, *bbeg, *bend;
  /* sort workspace */
  uint64_t *key, *key2;
  int64_t *idx, *idx2;
  int64_t *cellid;
  int64_t wscap;
  void *tmp;
  size_t tmp_bytes;
  int64_t clamped; /* particles clamped into the box by the last drift */
  /* SDF boundaries (see "SDF boundaries"), computed by the search */
  int nwall;
  tide_shape *wshape[TIDE_SPH_MAXWALL]; /* retained */
  int wside[TIDE_SPH_MAXWALL];          /* 1: the wall is outside the shape (a tank) */
  int wgroup[TIDE_SPH_MAXWALL];         /* the boundary (call) a surface belongs to */
  double wvel[TIDE_SPH_MAXWALL][3];     /* wall velocity [m/s] */
  double wofs[TIDE_SPH_MAXWALL][3];     /* translation of the shape so far [m] */
  double wrot[TIDE_SPH_MAXWALL][9];     /* rotation of the shape so far (row major, about wcen) */
  double wom[TIDE_SPH_MAXWALL][3];      /* angular velocity [rad/s] (2D: the z entry) */
  double wcen[TIDE_SPH_MAXWALL][3];     /* centre of rotation in the shape's frame [m] */
  int wrotates[TIDE_SPH_MAXWALL];       /* 1 once an angular velocity was set */
  double wacc[TIDE_SPH_MAXWALL][6];     /* acceleration and angular acceleration (hydrostatic) */
  int waccel[TIDE_SPH_MAXWALL];         /* 1 once tide_sph_sdf_acceleration was called */
  int ngroup;                           /* SDF boundaries (calls) */
  tide_sph_map *wmap[TIDE_SPH_MAXWALL]; /* density map (method map), else NULL */
  int map_lattice;                      /* maps built with the lattice correction */
  tide_array *wall; /* (n, 3 + d + d*d): rho_w, -tr T_w, sum v_w . G_w, G_w (d), T_w (d x d),
                       summed over the walls */
  int64_t projected; /* particles projected out of a wall by the last drift */
  /* the SDF boundaries' terms kept per boundary (see "Forces on the
   * boundaries"): per particle wslots slots of 1 + d + d*d values (the
   * boundary index or -1, G_w (d), T_w (d x d)), computed by the search */
  double *wgrp;
  int64_t wgcap; /* doubles allocated */
  int wslots;
  /* reactions: force (3) and torque (3, about the body's centre) the fluid
   * exerts on each body (TIDE_SPH_NBODY), summed over fixed particle blocks */
  double bforce[TIDE_SPH_NBODY][6];
  double bacc[TIDE_SPH_FBLOCKS][TIDE_SPH_NBODY][6];
  /* rigid bodies coupled inside the DFSPH solves (tide_sph_sdf_dynamics) */
  double gmass[TIDE_SPH_MAXWALL];     /* mass of SDF boundary g's body [kg (2D: per m)], 0: none */
  double ginert[TIDE_SPH_MAXWALL][9]; /* its inertia about its centre, simulation frame (2D: [8]) */
  double gv0[TIDE_SPH_MAXWALL][6];    /* each boundary's velocity and angular velocity at the search */
  double gdv[TIDE_SPH_MAXWALL][6];    /* now minus at the search (drho's correction of row[2]) */
  double gcen[TIDE_SPH_MAXWALL][3];   /* each boundary's centre (simulation frame) with gdv */
  int gmoved;                         /* 1: some gdv is not zero */
  int bodies_iters;                   /* body updates of the last DFSPH solve */
} tide_sph;

typedef struct tide_sph_params {
  int kernel;     /* tide_sph_kernel_kind */
  double support; /* H / dx (> 1) */
  double rho0;    /* rest density */
  double gravity[3];
  double c; /* speed of sound */
  double alpha_visc, alpha_bound;
  int renormalize;      /* 1: renormalized pressure terms */
  int wall_hydrostatic; /* 1: hydrostatic boundary pressure */
} tide_sph_params;

int tide_sph_new(const tide_grid *g, const tide_sph_params *prm, tide_sph **out);
void tide_sph_free(tide_sph *s);
int64_t tide_sph_bytes(const tide_sph *s);

/* Morton code of cell (i, j[, k]): bits interleaved, x lowest. */
uint64_t tide_sph_morton(int dim, int i, int j, int k);

/* Fluid particles inside shape (phi < 0) at the grid's cell centres,
 * jittered by jitter * dx/2 (tide_rand01(stream, cell)), velocity vel (may be
 * NULL); appended, *added the count.  Sets the mass from the lattice. */
int tide_sph_seed(tide_sph *s, const tide_shape *shape, double jitter, uint64_t stream,
                  const double *vel, int64_t *added);
/* Boundary particles at the cell centres whose shape distance lies in
 * [0, layers dx) (outside = 1: a band outside the shape, e.g. around a
 * tank's inside) or (-layers dx, 0] (outside = 0: the skin of an obstacle);
 * Psi_b recomputed for all boundary particles.  *added the count. */
int tide_sph_boundary(tide_sph *s, const tide_shape *shape, int layers, int outside,
                      int64_t *added);

/* An SDF boundary (see "SDF boundaries"): the surface of shape is a wall;
 * outside = 1: the solid is outside the shape (the fluid fills a tank, the
 * shape its inside), 0: the solid is the shape's inside (an obstacle).
 * method TIDE_SPH_WALL_HARADA: an axis-aligned box tank (TIDE_SHAPE_BOX,
 * outside) becomes its 2d faces as planar walls (edges and corners by
 * inclusion-exclusion), other shapes the nearest surface as a half space;
 * TIDE_SPH_WALL_MAP: a density map of the solid (tide_sph_map; resolution
 * nodes per dx, <= 0: 2), precomputed here over the shape's bounds (an
 * unbounded shape: the grid's box) grown by H.  vel (may be NULL: at rest)
 * translates the wall rigidly: the drift moves the shape by dt vel, the
 * DFSPH divergence terms take v_i - vel.  At most TIDE_SPH_MAXWALL
 * surfaces; *boundary the boundary's index (0-based). */
int tide_sph_sdf_boundary(tide_sph *s, tide_shape *shape, int outside, const double *vel,
                          int method, double resolution, int *boundary);
/* The wall terms (WALL columns: rho_w, -tr T_w, sum v_w . G_w, G_w (d),
 * T_w (d x d)) of the SDF boundaries at np points x (np x d) into out. */
int tide_sph_wall_rows(const tide_sph *s, int64_t np, const double *x, double *out);
/* The density map of SDF boundary `boundary` (NULL for the Harada path). */
const tide_sph_map *tide_sph_boundary_map(const tide_sph *s, int boundary);
/* Set the velocity of SDF boundary `boundary` (0-based) [m/s]. */
int tide_sph_sdf_velocity(tide_sph *s, int boundary, const double *vel);
/* Set the rotation of SDF boundary `boundary`: angular velocity omega
 * (3 entries [rad/s]; 2D: omega[2] about z) about centre (the shape's frame,
 * NULL: keep; the default is the centre of the shape's bounds, else the
 * origin).  The drift turns the shape by dt omega about its moving centre
 * (a body point x = c + wofs + R (y - c) for y in the shape's frame); the
 * wall's velocity at x is vel + omega x (x - c - wofs).  Maps rotate with
 * the shape (G_w = R G, T_w = R T R^T). */
int tide_sph_sdf_rotation(tide_sph *s, int boundary, const double *centre, const double *omega);
/* The acceleration acc (3 [m/s^2]) and angular acceleration alpha (3
 * [rad/s^2]; 2D alpha[2]; may be NULL: 0) of SDF boundary `boundary` for the
 * hydrostatic wall pressure (wall_hydrostatic): from now on its wall terms
 * take the effective gravity g - a_w(x_i), a_w(x) = acc + alpha x r +
 * omega x (omega x r), r = x - c - wofs (Adami, Hu & Adams 2012, Eq. 27,
 * with the wall's acceleration; the centripetal part included) -- the
 * fluid's term +l_i T_g (g - a_w)/rho_i and its reaction.  The caller keeps
 * it up to date (a prescribed motion); boundary particles do not have it. */
int tide_sph_sdf_acceleration(tide_sph *s, int boundary, const double *acc, const double *alpha);
/* Move boundary particle set k (0-based) rigidly: velocity vel (3) of its
 * centre and angular velocity omega (3; 2D omega[2]; may be NULL: 0); centre
 * (may be NULL: keep; default the set's centroid) the rotation centre, the
 * torque centre of tide_sph_body_force.  From the next drift the set's
 * particles are at c + R y (c and R advanced by dt vel, dt omega, the set
 * re-sorted into the cells) with velocity vel + omega x (x_b - c), which the
 * DFSPH density change (v_i - v_b) and the boundary viscosity take.  Psi_b
 * stays that of the set's creation. */
int tide_sph_set_motion(tide_sph *s, int k, const double *centre, const double *vel,
                        const double *omega);
/* The pose of set k: centre c and rotation R (row major 3 x 3) so far. */
int tide_sph_set_pose(const tide_sph *s, int k, double c[3], double R[9]);
/* Make SDF boundary `boundary` a rigid body of the DFSPH solves: mass [kg
 * (2D: per unit length)] and inertia (row major 3 x 3 about the boundary's
 * centre in the simulation frame; 2D: inertia[8], the polar moment), mass 0:
 * a kinematic wall again.  Each iteration of tide_sph_density_solve and
 * tide_sph_divergence_solve then updates the boundary's velocity and
 * angular velocity q by the reaction of that iteration (strong partitioned
 * coupling, see "Rigid bodies in the DFSPH solves"):
 *   q <- q + (M_b + K)^-1 (M_b (q_0 - q) + dt (F - F_0)),
 * M_b = diag(M, M[, M], I), q_0 and F_0 the velocity and reaction at the
 * start of the solve, K = sum_i 2 m l_i alpha_i/rho_i J_i^T J_i the
 * fluid's Jacobi stiffness against the body (J_i = [G_g,i ; (x_i - c) x
 * G_g,i]): the fixed point is the body's momentum balance M_b q = M_b q_0 +
 * dt F with the fluid incompressible around the wall moving at q. */
int tide_sph_sdf_dynamics(tide_sph *s, int boundary, double mass, const double *inertia);
/* The velocity vel (3) and angular velocity omega (3; 2D omega[2]) of SDF
 * boundary `boundary`. */
int tide_sph_sdf_motion(const tide_sph *s, int boundary, double vel[3], double omega[3]);
/* The wall terms of one planar wall at distance d >= 0 [m]: rho_w, rho_w'
 * (d/dd), T_n, T_t, and the first-moment trace -tr T_w. */
void tide_sph_wall_terms(const tide_sph *s, double d, double out[5]);

/* The reaction of the fluid on boundary `index` (kind 0: SDF boundary,
 * 1: boundary particle set; 0-based): force F [N per unit length in 2D, N
 * in 3D] and torque T [N m (per unit length in 2D); 2D: T[2] about z] about
 * the body's centre (tide_sph_body_centre), accumulated since the last
 * tide_sph_forces (which restarts the sums) by the forces pass and the
 * DFSPH pressure updates (see "Forces on the boundaries"). */
int tide_sph_body_force(const tide_sph *s, int kind, int index, double F[3], double T[3]);
/* The centre of the torque of that body in the simulation frame: an SDF
 * boundary's rotation centre (moving with it), a set's centroid. */
int tide_sph_body_centre(const tide_sph *s, int kind, int index, double c[3]);
/* The pose of SDF boundary `boundary`: centre (as above) and rotation R
 * (row major 3 x 3) of the shape so far. */
int tide_sph_sdf_pose(const tide_sph *s, int boundary, double c[3], double R[9]);

/* Sort the fluid by Morton code and list every particle's neighbours
 * (r < H).  TIDE_EINVAL when a particle is outside the box, TIDE_ENONFINITE
 * for a non-finite position. */
int tide_sph_search(tide_sph *s);
/* rho_i and the renormalization l_i (requires the neighbour lists). */
int tide_sph_density(tide_sph *s);
/* Tait equation of state p_i (clamped to >= 0). */
int tide_sph_tait(tide_sph *s);
/* a_i = g + [pressure] symmetric pressure gradient (with boundary mirroring)
 * + [viscosity] artificial viscosity (fluid and boundary). */
int tide_sph_forces(tide_sph *s, int pressure, int viscosity);
/* v += dt a */
int tide_sph_kick(tide_sph *s, double dt);
/* x += dt v, clamped into the box shrunk by dx/2 (s->clamped counts the
 * clamped particles), projected out of the SDF boundaries (s->projected
 * counts them); invalidates the neighbour lists. */
int tide_sph_drift(tide_sph *s, double dt);
/* DFSPH factor alpha_i (requires density). */
int tide_sph_dfsph_factor(tide_sph *s);
/* DFSPH constant-density solve (Bender & Koschier 2015, Alg. 3) on the
 * velocities; p_i receives rho_i sum kappa_i.  *iters, *error (mean
 * relative compression) and *converged (error <= eta) report the solve. */
int tide_sph_density_solve(tide_sph *s, double dt, double eta, int maxit, int *iters, double *error,
                           int *converged);
/* DFSPH divergence-free solve (Alg. 2); p_i += rho_i sum kappa^v_i. */
int tide_sph_divergence_solve(tide_sph *s, double dt, double eta, int maxit, int *iters,
                              double *error, int *converged);

/* Gradient of the particle field A (n values) into out (n, d):
 * symmetric = 0 difference form, 1 symmetric form (see above). */
int tide_sph_gradient(const tide_sph *s, const double *A, int symmetric, double *out);

/* Largest particle speed [m/s]. */
int tide_sph_max_speed(const tide_sph *s, double *out);

/* Diagnostics: kinetic energy, momentum (d), mean and max of
 * (rho_i - rho0)/rho0 over the particles (any output may be NULL). */
int tide_sph_diagnostics(const tide_sph *s, double *kinetic, double *momentum, double *mean_err,
                         double *max_err);

#endif
