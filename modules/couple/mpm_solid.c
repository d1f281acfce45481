/*
 * mpm_solid.c -- two-way MPM / FEM-mesh coupling on the MPM's momentum grid
 * (see mpm_solid.h).
 */
#include "couple/mpm_solid.h"

#include "solid/small.h"
#include "tide.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* fraction of a penetration undone per step by the separating contact
 * (0.1 stopped the creep as well but its push-out kick made the scene's
 * cube bounce twice as high, 2.8 vs 1.4 cells at 1 s) */
#define PUSH 0.01

int tide_mpm_solid_new(int bc, double friction, double spacing, double distance,
                       tide_mpm_solid **out) {
  *out = NULL;
  if (bc != TIDE_MPM_SEPARATE && bc != TIDE_MPM_STICKY)
    return tide_fail(TIDE_EINVAL, "bc must be separate or sticky");
  if (!(friction >= 0 && isfinite(friction)))
    return tide_fail(TIDE_EINVAL, "friction must be finite and >= 0, got %g", friction);
  if (!(spacing > 0 && spacing <= 4))
    return tide_fail(TIDE_EINVAL, "spacing must be in (0, 4] cells, got %g", spacing);
  if (!(distance >= 0 && isfinite(distance)))
    return tide_fail(TIDE_EINVAL, "distance must be finite and >= 0 cells, got %g", distance);
  tide_mpm_solid *c = tide_calloc(sizeof *c);
  if (!c) return TIDE_ENOMEM;
  c->bc = bc, c->friction = friction, c->spacing = spacing, c->distance = distance;
  *out = c;
  return TIDE_OK;
}

static void free_samples(tide_mpm_solid *c) {
  size_t q = (size_t)c->qcap;
  tide_free(c->qface, q * sizeof(int32_t));
  tide_free(c->qbeta, q * 3 * sizeof(double));
  tide_free(c->qm, q * sizeof(double));
  tide_free(c->qv, q * 3 * sizeof(double));
  tide_free(c->qdv, q * 3 * sizeof(double));
  tide_free(c->qkin, q);
  c->qface = NULL, c->qbeta = c->qm = c->qv = c->qdv = NULL, c->qkin = NULL;
  c->qcap = 0;
}

static void free_mesh(tide_mpm_solid *c) {
  tide_free(c->fnormal, (size_t)c->nb * 3 * sizeof(double));
  tide_free(c->farea, (size_t)c->nb * sizeof(double));
  tide_free(c->fgrad, (size_t)c->nb * 9 * sizeof(double));
  tide_free(c->S, (size_t)c->nv * sizeof(double));
  tide_array_release(c->impulse);
  c->fnormal = c->farea = c->fgrad = c->S = NULL, c->impulse = NULL;
  c->nb = c->nv = 0;
}

static void free_grid(tide_mpm_solid *c) {
  size_t n = (size_t)c->nn;
  tide_free(c->M, n * sizeof(double));
  tide_free(c->K, n * sizeof(double));
  tide_free(c->P, n * 3 * sizeof(double));
  tide_free(c->N, n * 3 * sizeof(double));
  tide_free(c->dV, n * 3 * sizeof(double));
  tide_free(c->touched, n * sizeof(int64_t));
  tide_free(c->X, n * 3 * sizeof(double));
  tide_free(c->D, n * sizeof(double));
  tide_free(c->H, n * sizeof(double));
  c->M = c->K = c->P = c->N = c->dV = c->X = c->D = c->H = NULL, c->touched = NULL;
  c->nn = c->ntouched = 0;
}

void tide_mpm_solid_free(tide_mpm_solid *c) {
  if (!c) return;
  free_samples(c);
  free_mesh(c);
  free_grid(c);
  tide_free(c, sizeof *c);
}

int64_t tide_mpm_solid_bytes(const tide_mpm_solid *c) {
  return (int64_t)sizeof *c + c->qcap * (4 + 24 + 8 + 24 + 24 + 1) + c->nb * 104 +
         c->nv * (8 + 24) + c->nn * (8 + 8 + 24 + 24 + 24 + 8 + 24 + 8 + 8);
}

static int reserve_samples(tide_mpm_solid *c, int64_t n) {
  if (n <= c->qcap) return TIDE_OK;
  int64_t cap = n + n / 2 + 64;
  free_samples(c);
  size_t q = (size_t)cap;
  c->qface = tide_alloc(q * sizeof(int32_t));
  c->qbeta = tide_alloc(q * 3 * sizeof(double));
  c->qm = tide_alloc(q * sizeof(double));
  c->qv = tide_alloc(q * 3 * sizeof(double));
  c->qdv = tide_alloc(q * 3 * sizeof(double));
  c->qkin = tide_alloc(q);
  c->qcap = cap;
  if (!c->qface || !c->qbeta || !c->qm || !c->qv || !c->qdv || !c->qkin) {
    free_samples(c);
    return TIDE_ENOMEM;
  }
  return TIDE_OK;
}

static int size_mesh(tide_mpm_solid *c, const tide_tetmesh *mesh) {
  if (c->nb == mesh->nb && c->nv == mesh->nv && c->impulse && c->impulse->shape[1] == mesh->dim)
    return TIDE_OK;
  free_mesh(c);
  c->fnormal = tide_alloc((size_t)mesh->nb * 3 * sizeof(double));
  c->farea = tide_alloc((size_t)mesh->nb * sizeof(double));
  c->fgrad = tide_alloc((size_t)mesh->nb * 9 * sizeof(double));
  c->S = tide_alloc((size_t)mesh->nv * sizeof(double));
  c->impulse = tide_array_new2(TIDE_F64, mesh->nv, mesh->dim);
  c->nb = mesh->nb, c->nv = mesh->nv;
  if (!c->fnormal || !c->farea || !c->fgrad || !c->S || !c->impulse) {
    free_mesh(c);
    return TIDE_ENOMEM;
  }
  return TIDE_OK;
}

static int size_grid(tide_mpm_solid *c, int64_t nn) {
  if (c->nn == nn) return TIDE_OK;
  free_grid(c);
  size_t n = (size_t)nn;
  c->M = tide_calloc(n * sizeof(double));
  c->K = tide_calloc(n * sizeof(double));
  c->P = tide_calloc(n * 3 * sizeof(double));
  c->N = tide_calloc(n * 3 * sizeof(double));
  c->dV = tide_calloc(n * 3 * sizeof(double));
  c->touched = tide_alloc(n * sizeof(int64_t));
  c->X = tide_calloc(n * 3 * sizeof(double));
  c->D = tide_alloc(n * sizeof(double));
  c->H = tide_alloc(n * sizeof(double));
  c->nn = nn;
  if (!c->M || !c->K || !c->P || !c->N || !c->dV || !c->touched || !c->X || !c->D || !c->H) {
    free_grid(c);
    return TIDE_ENOMEM;
  }
  return TIDE_OK;
}

/* parts per face edge: ceil(length / (spacing dx)), the longest edge in 3D */
static int face_parts(const tide_mpm_solid *c, const tide_tetmesh *mesh, const double *x,
                      const int32_t *f, double dx) {
  int d = mesh->dim;
  double L = 0;
  for (int e = 0; e < d; e++) {
    const double *p = x + (int64_t)f[e] * d, *q = x + (int64_t)f[(e + 1) % d] * d;
    double s = 0;
    for (int a = 0; a < d; a++)
      s += (q[a] - p[a]) * (q[a] - p[a]);
    L = fmax(L, sqrt(s));
    if (d == 2) break;
  }
  double k = ceil(L / (c->spacing * dx));
  return k < 1 ? 1 : k > 4096 ? 4096 : (int)k;
}

/* Step 1: the samples of every face (barycentric weights), then S_a. */
static int build_samples(tide_mpm_solid *c, const tide_tetmesh *mesh, double dx) {
  int d = mesh->dim;
  const double *x = TIDE_F64P(mesh->x);
  const int32_t *B = TIDE_I32P(mesh->bound);
  int64_t nq = 0;
  for (int64_t f = 0; f < mesh->nb; f++) {
    int k = face_parts(c, mesh, x, B + f * d, dx);
    nq += d == 2 ? k : (int64_t)k * k;
  }
  int st = reserve_samples(c, nq);
  if (st) return st;
  int64_t q = 0;
  for (int64_t f = 0; f < mesh->nb; f++) {
    int k = face_parts(c, mesh, x, B + f * d, dx);
    if (d == 2) {
      for (int i = 0; i < k; i++, q++) {
        double t = (i + 0.5) / k;
        c->qface[q] = (int32_t)f;
        c->qbeta[q * 3 + 0] = 1 - t, c->qbeta[q * 3 + 1] = t, c->qbeta[q * 3 + 2] = 0;
      }
      continue;
    }
    /* k^2 sub-triangles: upward (i, j), i + j <= k - 1, centroid
     * ((i + 1/3)/k, (j + 1/3)/k); downward i + j <= k - 2, ((i + 2/3)/k, (j + 2/3)/k) */
    for (int i = 0; i < k; i++)
      for (int j = 0; i + j < k; j++)
        for (int up = 0; up < 2; up++) {
          if (!up && i + j > k - 2) continue;
          double o = up ? 1.0 / 3 : 2.0 / 3, b1 = (i + o) / k, b2 = (j + o) / k;
          c->qface[q] = (int32_t)f;
          c->qbeta[q * 3 + 0] = 1 - b1 - b2, c->qbeta[q * 3 + 1] = b1, c->qbeta[q * 3 + 2] = b2;
          q++;
        }
  }
  c->nq = q;
  memset(c->S, 0, (size_t)mesh->nv * sizeof(double));
  for (q = 0; q < c->nq; q++)
    for (int a = 0; a < d; a++)
      c->S[B[(int64_t)c->qface[q] * d + a]] += c->qbeta[q * 3 + a];
  return TIDE_OK;
}

/* position x_q of sample q on the mesh at its current positions and its
 * B-spline stencil on m's nodes (tide_mpm_stencil's status) */
static int sample_stencil(const tide_mpm_solid *c, const tide_mpm *m, const tide_tetmesh *mesh,
                          int64_t q, double xq[3], double w[3][4], int base[3], int64_t *id0) {
  int d = mesh->dim;
  const double *x = TIDE_F64P(mesh->x);
  const int32_t *f = TIDE_I32P(mesh->bound) + (int64_t)c->qface[q] * d;
  xq[0] = xq[1] = xq[2] = 0;
  for (int a = 0; a < d; a++)
    for (int b = 0; b < d; b++)
      xq[b] += c->qbeta[q * 3 + a] * x[(int64_t)f[a] * d + b];
  return tide_mpm_stencil(m, xq, w, base, id0);
}

static int check(const tide_mpm_solid *c, const tide_mpm *m, const tide_tetmesh *mesh) {
  (void)c;
  if (m->sparse)
    return tide_fail(TIDE_EINVAL,
                     "the MPM-mesh coupling needs the dense node grid (sparse = false)");
  if (mesh->dim != m->dim)
    return tide_fail(TIDE_EINVAL, "the mesh is %dD but the MPM state is %dD", mesh->dim, m->dim);
  if (mesh->surface != TIDE_MESH_VOLUME)
    return tide_fail(TIDE_EINVAL, "the mesh must be a volume mesh (tetrahedra or triangles)");
  if (!mesh->fem) return tide_fail(TIDE_EINVAL, "the mesh has no material (m:material{...})");
  if (mesh->nb < 1) return tide_fail(TIDE_EINVAL, "the mesh has no boundary faces");
  return TIDE_OK;
}

/* Step 3a: D_i = min over the particles p reaching node i (w_ip > 0) of
 * n_i.x_p - h_i - r_p, the gap between the particle's edge (r_p = V_p^0^(1/d)
 * / 2) and the mesh surface plane n_i.y = h_i of the node, h_i = n_i.X_i/M_i;
 * +inf where no particle reaches or the normal sum vanishes.  Serial; a
 * minimum, so independent of the particle order. */
static void gap_to_surface(tide_mpm_solid *c, const tide_mpm *m) {
  int d = m->dim, o = m->order + 1, ok = d == 3 ? o : 1;
  for (int64_t t = 0; t < c->ntouched; t++) {
    int64_t id = c->touched[t];
    const double *X = c->X + id * 3, *N = c->N + id * 3;
    double nn = 0, h = 0;
    c->D[id] = INFINITY;
    for (int b = 0; b < d; b++)
      nn += N[b] * N[b];
    nn = sqrt(nn);
    if (!(nn > 1e-12 * c->M[id])) continue;
    for (int b = 0; b < d; b++)
      h += N[b] / nn * X[b];
    c->H[id] = h / c->M[id]; /* the surface offset along the node's normal */
  }
  int64_t s[3];
  tide_mpm_node_strides(m, s);
  const double *x = TIDE_F64P(m->ps->x), *V0 = TIDE_F64P(m->vol0);
  for (int64_t p = 0; p < m->ps->n; p++) {
    double w[3][4];
    int base[3];
    int64_t id0;
    if (tide_mpm_stencil(m, x + p * d, w, base, &id0)) continue;
    double r = -1;
    for (int a0 = 0; a0 < o; a0++)
      for (int a1 = 0; a1 < o; a1++)
        for (int a2 = 0; a2 < ok; a2++) {
          int64_t id = id0 + a0 * s[0] + a1 * s[1] + a2 * s[2];
          if (!(c->M[id] > 0) || !(w[0][a0] * w[1][a1] * w[2][a2] > 0)) continue;
          const double *N = c->N + id * 3;
          double nn = 0, g = 0;
          for (int b = 0; b < d; b++)
            nn += N[b] * N[b];
          nn = sqrt(nn);
          if (!(nn > 1e-12 * c->M[id])) continue;
          if (r < 0) r = 0.5 * pow(V0[p], 1.0 / d);
          for (int b = 0; b < d; b++)
            g += N[b] / nn * x[p * d + b];
          g -= c->H[id] + r;
          if (g < c->D[id]) c->D[id] = g;
        }
  }
}

/* zero the per-node sums of the touched nodes */
static void clear_nodes(tide_mpm_solid *c) {
  for (int64_t t = 0; t < c->ntouched; t++) {
    int64_t id = c->touched[t];
    c->M[id] = c->K[id] = 0;
    for (int b = 0; b < 3; b++)
      c->P[id * 3 + b] = c->N[id * 3 + b] = c->dV[id * 3 + b] = c->X[id * 3 + b] = 0;
  }
  c->ntouched = 0;
}

int tide_mpm_solid_exchange(tide_mpm_solid *c, tide_mpm *m, tide_tetmesh *mesh, double dt,
                            tide_mpm_solid_stats *st) {
  memset(st, 0, sizeof *st);
  if (!(dt >= 0 && isfinite(dt)))
    return tide_fail(TIDE_EINVAL, "time step must be finite and >= 0, got %g", dt);
  int status = check(c, m, mesh);
  if (status) return status;
  int d = m->dim, o = m->order + 1, ok = d == 3 ? o : 1;
  double dx = m->g.dx;
  if ((status = size_mesh(c, mesh)) || (status = size_grid(c, m->nn))) return status;
  if ((status = build_samples(c, mesh, dx))) return status;
  double *x = TIDE_F64P(mesh->x), *vm = TIDE_F64P(mesh->v);
  const double *ma = TIDE_F64P(mesh->fem->mass);
  const uint8_t *pin = TIDE_U8P(mesh->fem->pinned);
  const int32_t *B = TIDE_I32P(mesh->bound);
  tide_tetmesh_boundary_normals(mesh, x, c->fnormal, c->farea);
  /* velocity gradient of the element owning each face, G = Dv Ds^-1 with
   * Ds, Dv the current edge and edge-velocity matrices (a rigid rotation:
   * G = omega x exactly) */
  const int32_t *E = TIDE_I32P(mesh->elem), *BE = TIDE_I32P(mesh->bound_elem);
  for (int64_t f = 0; f < mesh->nb; f++) {
    const int32_t *el = E + (int64_t)BE[f] * (d + 1);
    double Ds[9], Dv[9], Di[9], *G = c->fgrad + f * 9;
    for (int a = 0; a < d; a++)
      for (int k = 0; k < d; k++) {
        Ds[a * d + k] = x[(int64_t)el[k + 1] * d + a] - x[(int64_t)el[0] * d + a];
        Dv[a * d + k] = vm[(int64_t)el[k + 1] * d + a] - vm[(int64_t)el[0] * d + a];
      }
    double det = tide_det(d, Ds);
    for (int a = 0; a < 9; a++)
      G[a] = 0;
    if (!(fabs(det) > 0) || !isfinite(det)) continue; /* a flat element: no affine part */
    tide_mat_inv(d, Ds, Di);
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) {
        double sum = 0;
        for (int k = 0; k < d; k++)
          sum += Dv[a * d + k] * Di[k * d + b];
        G[a * d + b] = sum;
      }
  }
  int64_t s[3];
  tide_mpm_node_strides(m, s);

  /* samples: mass, velocity (step 1) */
  for (int64_t q = 0; q < c->nq; q++) {
    const int32_t *f = B + (int64_t)c->qface[q] * d;
    double mq = 0, pq[3] = {0, 0, 0};
    uint8_t kin = 0;
    for (int a = 0; a < d; a++) {
      int64_t na = f[a];
      double w = c->qbeta[q * 3 + a] / c->S[na] * ma[na];
      mq += w;
      for (int b = 0; b < d; b++)
        pq[b] += w * vm[na * d + b];
      kin |= pin[na];
    }
    c->qm[q] = mq;
    c->qkin[q] = kin;
    for (int b = 0; b < d; b++)
      c->qv[q * 3 + b] = mq > 0 ? pq[b] / mq : 0;
  }
  /* check every stencil before touching anything */
  for (int64_t q = 0; q < c->nq; q++) {
    double xq[3], w[3][4];
    int base[3];
    int64_t id0;
    if (sample_stencil(c, m, mesh, q, xq, w, base, &id0)) {
      char why[160];
      snprintf(why, sizeof why, "%s", tide_errmsg());
      return tide_fail(TIDE_EINVAL,
                       "mesh boundary face %lld is outside the MPM grid (its samples' B-spline "
                       "stencils must fit the grid): %s",
                       (long long)c->qface[q] + 1, why);
    }
  }

  /* step 2: rasterize (serial, samples in order); the sums of the last
   * exchange (kept for tide_mpm_solid_project) cleared first */
  clear_nodes(c);
  for (int64_t q = 0; q < c->nq; q++) {
    const double *nf = c->fnormal + (int64_t)c->qface[q] * d;
    double xq[3], w[3][4];
    int base[3];
    int64_t id0;
    sample_stencil(c, m, mesh, q, xq, w, base, &id0);
    double mq = c->qm[q];
    const double *G = c->fgrad + (int64_t)c->qface[q] * 9;
    for (int a0 = 0; a0 < o; a0++)
      for (int a1 = 0; a1 < o; a1++)
        for (int a2 = 0; a2 < ok; a2++) {
          int64_t id = id0 + a0 * s[0] + a1 * s[1] + a2 * s[2];
          double wm = w[0][a0] * w[1][a1] * w[2][a2] * mq;
          if (!(wm > 0)) continue;
          if (c->M[id] == 0) c->touched[c->ntouched++] = id;
          c->M[id] += wm;
          if (c->qkin[q]) c->K[id] += wm;
          int nd[3] = {base[0] + a0, base[1] + a1, base[2] + a2};
          double r[3] = {0, 0, 0};
          for (int b = 0; b < d; b++)
            r[b] = m->g.origin[b] + nd[b] * dx - xq[b];
          for (int b = 0; b < d; b++) {
            double vb = c->qv[q * 3 + b];
            for (int e = 0; e < d; e++)
              vb += G[b * d + e] * r[e];
            c->P[id * 3 + b] += wm * vb;
            c->N[id * 3 + b] += wm * nf[b];
            c->X[id * 3 + b] += wm * xq[b];
          }
        }
  }

  /* step 3a: the gap between the particles and the mesh surface at the
   * touched nodes (SEPARATE) */
  const double *nm = TIDE_F64P(m->nm);
  double *nv = TIDE_F64P(m->nv);
  int gate = c->bc == TIDE_MPM_SEPARATE;
  if (gate) gap_to_surface(c, m);
  for (int64_t t = 0; t < c->ntouched; t++) {
    int64_t id = c->touched[t];
    double Ms = c->M[id], mi = nm[id], *dV = c->dV + id * 3;
    dV[0] = dV[1] = dV[2] = 0;
    if (!(mi > 0)) continue;
    st->shared++;
    double n[3] = {0, 0, 0}, nn = 0;
    for (int b = 0; b < d; b++)
      nn += c->N[id * 3 + b] * c->N[id * 3 + b];
    nn = sqrt(nn);
    if (!(nn > 1e-12 * Ms)) continue;
    double u[3] = {0, 0, 0}, un = 0, *vi = nv + id * d;
    for (int b = 0; b < d; b++) {
      n[b] = c->N[id * 3 + b] / nn;
      u[b] = vi[b] - c->P[id * 3 + b] / Ms;
      un += u[b] * n[b];
    }
    if (gate && !(c->D[id] + dt * fmin(un, 0) < c->distance * dx)) continue;
    double mr = c->K[id] > 0 ? mi : mi * Ms / (mi + Ms), j[3] = {0, 0, 0};
    if (c->bc == TIDE_MPM_STICKY) {
      for (int b = 0; b < d; b++)
        j[b] = -mr * u[b];
    } else {
      /* the penetration D_i < 0 of the deepest particle edge is undone at
       * the rate PUSH/dt: the contact's target normal velocity (position
       * drift of the velocity-level contact, see step 5) */
      double ug = gate && c->D[id] < 0 && dt > 0 ? -PUSH * c->D[id] / dt : 0;
      if (!(un < ug)) continue;
      double ut[3] = {0, 0, 0}, tn = 0;
      for (int b = 0; b < d; b++) {
        ut[b] = u[b] - un * n[b];
        tn += ut[b] * ut[b];
      }
      tn = sqrt(tn);
      double sc = tn > 0 ? fmin(1, c->friction * (ug - un) / tn) : 0;
      for (int b = 0; b < d; b++)
        j[b] = -mr * ((un - ug) * n[b] + sc * ut[b]);
    }
    st->contacts++;
    for (int b = 0; b < d; b++) {
      vi[b] += j[b] / mi;
      dV[b] = -j[b] / Ms;
    }
  }

  /* step 4: back to the samples (transpose weights) and the mesh nodes */
  double *J = TIDE_F64P(c->impulse);
  memset(J, 0, (size_t)mesh->nv * d * sizeof(double));
  for (int64_t q = 0; q < c->nq; q++) {
    const int32_t *f = B + (int64_t)c->qface[q] * d;
    double xq[3], w[3][4], dv[3] = {0, 0, 0};
    int base[3];
    int64_t id0;
    sample_stencil(c, m, mesh, q, xq, w, base, &id0);
    for (int a0 = 0; a0 < o; a0++)
      for (int a1 = 0; a1 < o; a1++)
        for (int a2 = 0; a2 < ok; a2++) {
          int64_t id = id0 + a0 * s[0] + a1 * s[1] + a2 * s[2];
          double wt = w[0][a0] * w[1][a1] * w[2][a2];
          for (int b = 0; b < d; b++)
            dv[b] += wt * c->dV[id * 3 + b];
        }
    for (int a = 0; a < d; a++) {
      int64_t na = f[a];
      double wa = c->qbeta[q * 3 + a] / c->S[na] * ma[na];
      for (int b = 0; b < d; b++)
        J[na * d + b] += wa * dv[b];
    }
  }
  for (int64_t a = 0; a < mesh->nv; a++)
    for (int b = 0; b < d; b++) {
      st->impulse[b] += J[a * d + b];
      if (!pin[a] && ma[a] > 0) {
        vm[a * d + b] += J[a * d + b] / ma[a];
        x[a * d + b] += dt * J[a * d + b] / ma[a];
      }
    }
  st->samples = c->nq;
  return TIDE_OK;
}

/* Step 8: particle-level non-penetration.  For particle p whose stencil
 * reaches a node where the last exchange's contact impulse acted, the mesh
 * surface seen by its stencil: n_p = sum_i w_ip N_i / |.|, y_p = sum_i w_ip
 * X_i / sum_i w_ip M_i (the samples' mean position, on a flat face the face
 * itself); where that normal is well defined (|sum w N| >= 0.5 sum w M: not
 * a corner or a thin part whose two sides cancel) and the particle's centre
 * is behind the plane, g = n_p.(x_p - y_p) < 0, it is moved onto it:
 * x_p -= g n_p.  Positions only: no momentum changes. */
int tide_mpm_solid_project(tide_mpm_solid *c, tide_mpm *m, tide_mpm_solid_proj *st) {
  memset(st, 0, sizeof *st);
  if (m->sparse)
    return tide_fail(TIDE_EINVAL,
                     "the MPM-mesh coupling needs the dense node grid (sparse = false)");
  if (c->ntouched == 0 || c->nn != m->nn) return TIDE_OK;
  int d = m->dim, o = m->order + 1, ok = d == 3 ? o : 1;
  int64_t s[3];
  tide_mpm_node_strides(m, s);
  double *x = TIDE_F64P(m->ps->x);
  for (int64_t p = 0; p < m->ps->n; p++) {
    double w[3][4];
    int base[3];
    int64_t id0;
    if (tide_mpm_stencil(m, x + p * d, w, base, &id0)) continue;
    double Nw[3] = {0, 0, 0}, Xw[3] = {0, 0, 0}, Mw = 0;
    int contact = 0;
    for (int a0 = 0; a0 < o; a0++)
      for (int a1 = 0; a1 < o; a1++)
        for (int a2 = 0; a2 < ok; a2++) {
          int64_t id = id0 + a0 * s[0] + a1 * s[1] + a2 * s[2];
          double wt = w[0][a0] * w[1][a1] * w[2][a2];
          if (!(c->M[id] > 0) || !(wt > 0)) continue;
          Mw += wt * c->M[id];
          for (int b = 0; b < d; b++) {
            Nw[b] += wt * c->N[id * 3 + b];
            Xw[b] += wt * c->X[id * 3 + b];
            contact |= c->dV[id * 3 + b] != 0;
          }
        }
    if (!contact || !(Mw > 0)) continue;
    double nn = 0, g = 0;
    for (int b = 0; b < d; b++)
      nn += Nw[b] * Nw[b];
    nn = sqrt(nn);
    if (!(nn >= 0.5 * Mw)) continue;
    for (int b = 0; b < d; b++)
      g += Nw[b] / nn * (x[p * d + b] - Xw[b] / Mw);
    if (!(g < 0)) continue;
    for (int b = 0; b < d; b++)
      x[p * d + b] -= g * Nw[b] / nn;
    st->moved++;
    if (-g > st->depth) st->depth = -g;
  }
  return TIDE_OK;
}
