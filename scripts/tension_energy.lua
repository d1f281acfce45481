-- The energy budget of the ghost-fluid surface tension jump in the tide.drop
-- recipe (2D): a drop r = R (1 + eps cos(mode (theta - angle))) oscillates, and
-- every step records
--   KE  = 1/2 rho dx^2 sum_f w_f u_f^2 (w_f: the liquid fraction of the face's
--         segment between the cell centres, 1 liquid | liquid, theta liquid |
--         air, 0 air | air), after the step;
--   L   = the length of the zero contour of phi by marching squares on the
--         cell centres (linear crossings: the vertices are the ghost-fluid
--         crossings at theta), after the step;
--   W   = the work of the jump's impulse du_f (tide.liquid.surface_tension,
--         wrapped), rho dx^2 sum_f w_f du_f (u_f + du_f / 2) with u_f the
--         velocity it is added to;
-- and prints, per half period (between the zero crossings of the mode), the
-- change of KE, the jump's work W and the change of the surface energy sigma L,
-- so that W + sigma dL (the jump's inconsistency with the discrete area) and
-- dKE - W (the rest of the step: advection, projection, extension) are apart.
--
--   build/tide scripts/tension_energy.lua [--cpd 32] [--angle 0] [--eps 0.05] [--mode 2]
--       [--periods 1.6] [--curvature cells|heights] [--extend linear_phi|constant|linear]
--       [--ahead 0] [--redistance n] [--jump polygon] [--rest] [--debug 1] [--R 0.01]
-- (--jump polygon: the prototype jump below, which fails; --debug 1 prints its
-- curvature of the initial circle)
-- (R = 1 cm, sigma = 0.07 N/m, rho = 1000 kg/m^3 as tests/physics/test_drop.lua; box 1.5
-- diameters; the mode's moment: sum over the cells of the liquid fraction times
-- r^mode cos(mode (theta - angle)), its zero crossings give the frequency.)
local tide = require "tide"
local drop = require "tide.drop"
local liquid = tide.liquid
local grid_redistance = tide.grid.redistance
local KC

local args = { cpd = 32, angle = 0, eps = 0.05, mode = 2, periods = 1.6, curvature = "cells", ahead = 0, R = 0.01 }
local i = 1
while i <= #arg do
  local k = arg[i]:match("^%-%-(.+)$")
  if not k then error("unexpected argument " .. arg[i]) end
  if k == "rest" then args.rest = true; i = i + 1
  else
    local v = arg[i + 1]
    args[k] = tonumber(v) or v
    i = i + 2
  end
end

local R, sigma, rho = args.R, 0.07, 1000
local nmode = args.mode
local omega = math.sqrt(nmode * (nmode * nmode - 1) * sigma / (rho * R ^ 3))
local period = 2 * math.pi / omega
local dx = 2 * R / args.cpd
local n = 2 * math.ceil(1.5 * R / dx)
local L = n * dx
local g = tide.grid.new { size = { n, n }, dx = dx }
local c = { L / 2 + 0.37 * dx * (args.rest and 1 or 0), L / 2 + 0.13 * dx * (args.rest and 1 or 0) }
local angle = math.rad(args.angle)
local phi = drop.disk { grid = g, center = c, radius = R, eps = args.rest and 0 or args.eps, mode = nmode, angle = angle }
local S = drop.new { grid = g, phi = phi, rho = rho, sigma = sigma, curvature = args.curvature,
  extend = args.extend, tension_ahead = args.ahead, redistance = args.redistance }

local function theta_of(pl, pa) -- the projection's fraction (theta_min 1e-3, tide.drop's)
  local th = pl / (pl - pa)
  return th < 1e-3 and 1e-3 or th
end

-- face weight: liquid fraction of the segment between the two cells
local function weight(p0, p1)
  if p0 < 0 and p1 < 0 then return 1 end
  if p0 >= 0 and p1 >= 0 then return 0 end
  if p0 < 0 then return theta_of(p0, p1) end
  return theta_of(p1, p0)
end

local function cells()
  return S.phi:totable()
end

local function kinetic(u, P)
  local ux, uy = u.u:totable(), u.v:totable()
  local e = 0
  for i = 2, n do
    for j = 1, n do
      local w = weight(P[i - 1][j], P[i][j])
      if w > 0 then e = e + w * ux[i][j] ^ 2 end
    end
  end
  for i = 1, n do
    for j = 2, n do
      local w = weight(P[i][j - 1], P[i][j])
      if w > 0 then e = e + w * uy[i][j] ^ 2 end
    end
  end
  return 0.5 * rho * dx * dx * e
end

-- marching squares on the cell centres, linear crossings
local function length(P)
  local s = 0
  local function cross(a, b) return a / (a - b) end
  for i = 1, n - 1 do
    for j = 1, n - 1 do
      local p00, p10, p01, p11 = P[i][j], P[i + 1][j], P[i][j + 1], P[i + 1][j + 1]
      local pts = {}
      if (p00 < 0) ~= (p10 < 0) then pts[#pts + 1] = { cross(p00, p10), 0 } end
      if (p10 < 0) ~= (p11 < 0) then pts[#pts + 1] = { 1, cross(p10, p11) } end
      if (p01 < 0) ~= (p11 < 0) then pts[#pts + 1] = { cross(p01, p11), 1 } end
      if (p00 < 0) ~= (p01 < 0) then pts[#pts + 1] = { 0, cross(p00, p01) } end
      if #pts == 2 then
        s = s + math.sqrt((pts[1][1] - pts[2][1]) ^ 2 + (pts[1][2] - pts[2][2]) ^ 2)
      elseif #pts == 4 then -- saddle: pair by the centre's sign
        local ctr = (p00 + p10 + p01 + p11) / 4
        local a, b
        if (ctr < 0) == (p00 < 0) then a, b = { 1, 2 }, { 3, 4 } else a, b = { 1, 4 }, { 2, 3 } end
        for _, pr in ipairs { a, b } do
          local q1, q2 = pts[pr[1]], pts[pr[2]]
          s = s + math.sqrt((q1[1] - q2[1]) ^ 2 + (q1[2] - q2[2]) ^ 2)
        end
      end
    end
  end
  return s * dx
end

local function moment(P)
  local s = 0
  for i = 1, n do
    for j = 1, n do
      local f = 0.5 - P[i][j] / dx
      f = f < 0 and 0 or f > 1 and 1 or f
      if f > 0 then
        local x, y = (i - 0.5) * dx - c[1], (j - 0.5) * dx - c[2]
        local r, t = math.sqrt(x * x + y * y), math.atan(y, x)
        s = s + f * r ^ nmode * math.cos(nmode * (t - angle))
      end
    end
  end
  return s * dx * dx
end

-- --jump polygon: the ghost-fluid jump with the variational curvature of the
-- crossing polygon (the marching-squares contour above, whose vertices are the
-- ghost-fluid crossings at theta on the liquid-air faces): at the crossing of
-- face f, moving along the face axis towards the air by s,
--   kappa_f = (dL/ds) / (dV/ds),  dL/ds = e . ((v - a)/|v - a| + (v - b)/|v - b|),
--   dV/ds = |(b - a) x e| / 2
-- (a, b the neighbouring vertices in the two dual cells beside the face), so
-- that the boundary pressure's power sum_f sigma kappa_f (u_f . e) dx equals
-- sigma dL/dt when the face's flux u_f dx moves its own crossing.  Written in
-- Lua (a prototype): replaces tide.liquid.surface_tension in the recipe.
local DEBUGK, DEBUGC -- --debug: the curvatures and |e . n| of the last call
local function polygon_jump(u, ph, o)
  local P = ph:totable()
  local scale = o.dt / (o.rho * dx)
  local tmin = o.theta_min or 1e-3
  -- vertex of the segment between cells (i1, j1) and (i2, j2) (liquid / air), in cell units
  local function vert(i1, j1, i2, j2)
    local p1, p2 = P[i1][j1], P[i2][j2]
    local t = p1 / (p1 - p2)
    return { i1 + t * (i2 - i1), j1 + t * (j2 - j1) }
  end
  -- the other vertex of the contour in dual cell (i, j) (corners i..i+1, j..j+1) paired with the
  -- crossing on edge `e0` (1 bottom, 2 right, 3 top, 4 left)
  local function partner(i, j, e0)
    if i < 1 or j < 1 or i >= n or j >= n then return nil end
    local p00, p10, p01, p11 = P[i][j], P[i + 1][j], P[i][j + 1], P[i + 1][j + 1]
    local has = { (p00 < 0) ~= (p10 < 0), (p10 < 0) ~= (p11 < 0), (p01 < 0) ~= (p11 < 0), (p00 < 0) ~= (p01 < 0) }
    local cnt = 0
    for k = 1, 4 do if has[k] then cnt = cnt + 1 end end
    local e1
    if cnt == 2 then
      for k = 1, 4 do if has[k] and k ~= e0 then e1 = k end end
    elseif cnt == 4 then
      local ctr = (p00 + p10 + p01 + p11) / 4
      local pair = (ctr < 0) == (p00 < 0) and { 2, 1, 4, 3 } or { 4, 3, 2, 1 }
      e1 = pair[e0]
    else
      return nil
    end
    if e1 == 1 then return vert(i, j, i + 1, j)
    elseif e1 == 2 then return vert(i + 1, j, i + 1, j + 1)
    elseif e1 == 3 then return vert(i, j + 1, i + 1, j + 1)
    else return vert(i, j, i, j + 1) end
  end
  local function kappa_at(v, a, b, e)
    if not a or not b then return nil end
    local dax, day, dbx, dby = v[1] - a[1], v[2] - a[2], v[1] - b[1], v[2] - b[2]
    local la, lb = math.sqrt(dax * dax + day * day), math.sqrt(dbx * dbx + dby * dby)
    if la < 1e-9 or lb < 1e-9 then return nil end
    local dL = e[1] * (dax / la + dbx / lb) + e[2] * (day / la + dby / lb)
    local dV = 0.5 * math.abs((b[1] - a[1]) * e[2] - (b[2] - a[2]) * e[1])
    if dV < 1e-9 then return nil end
    local k = dL / dV / dx
    local cb = dV / (0.5 * math.sqrt((b[1] - a[1]) ^ 2 + (b[2] - a[2]) ^ 2)) -- |cos| of e to the normal
    if DEBUGC then DEBUGC[#DEBUGC + 1] = cb end
    return math.max(-1 / dx, math.min(1 / dx, k)), cb
  end
  -- faces without two neighbouring vertices (or degenerate ones) get no jump
  -- face (i, j) of axis ax (1-based) between cells (i, j) - e_ax and (i, j); the two dual cells
  -- beside it (x faces: below and above, y faces: left and right) and the face's edge in each
  local besides = { { { -1, -1, 3 }, { -1, 0, 1 } }, { { -1, -1, 2 }, { 0, -1, 4 } } }
  for ax = 1, 2 do
    local comp = ax == 1 and u.u or u.v
    local di, dj = ax == 1 and 1 or 0, ax == 2 and 1 or 0
    for i = 1 + di, n do
      for j = 1 + dj, n do
        local il, jl, ia, ja = i - di, j - dj, i, j -- liquid / air cells
        if P[il][jl] >= 0 then il, jl, ia, ja = i, j, i - di, j - dj end
        if (P[il][jl] < 0) and (P[ia][ja] >= 0) then
          local v = vert(il, jl, ia, ja)
          local e = { ia - il, ja - jl }
          local b1, b2 = besides[ax][1], besides[ax][2]
          local k = kappa_at(v, partner(i + b1[1], j + b1[2], b1[3]), partner(i + b2[1], j + b2[2], b2[3]), e)
          if k and DEBUGK then DEBUGK[#DEBUGK + 1] = k end
          if k then
            local th = math.max(tmin, P[il][jl] / (P[il][jl] - P[ia][ja]))
            local du = scale * o.sigma * k / th
            -- air on the high side: u -= sigma kappa / theta (tide_liquid_surface_tension_jump)
            comp:set(i, j, comp:get(i, j) - ((ia > il or ja > jl) and du or -du))
          end
        end
      end
    end
  end
  return u
end

-- the jump's work: wrap the operator the recipe calls
local jump -- the impulse of the last call: { axis, i, j, weight * du }
local orig = liquid.surface_tension
local before = g:mac()
liquid.surface_tension = function(u, ph, o)
  before:copy(u)
  local r1, r2
  if args.kappa_closest then -- the curvature read from a redistanced copy (closest = 4), phi itself untouched
    KC = KC or g:cells()
    KC:copy(o.kappa_phi or ph)
    grid_redistance(g, KC, { closest = tonumber(args.kappa_closest) })
    o.kappa_phi = KC
  end
  if args.jump == "polygon" then r1 = polygon_jump(u, ph, o) else r1, r2 = orig(u, ph, o) end
  local P = ph:totable()
  local ux0, uy0, ux1, uy1 = before.u:totable(), before.v:totable(), u.u:totable(), u.v:totable()
  jump = {}
  for i = 2, n do
    for j = 1, n do
      local d = ux1[i][j] - ux0[i][j]
      if d ~= 0 then jump[#jump + 1] = { 1, i, j, weight(P[i - 1][j], P[i][j]) * d } end
    end
  end
  for i = 1, n do
    for j = 2, n do
      local d = uy1[i][j] - uy0[i][j]
      if d ~= 0 then jump[#jump + 1] = { 2, i, j, weight(P[i][j - 1], P[i][j]) * d } end
    end
  end
  return r1, r2
end
-- the jump's work paired with the projected velocity of the same step (the one
-- that moves phi next): rho dx^2 sum theta_f du_f u_f = -dt dx sum sigma kappa_f
-- (u_f . n_out), the boundary pressure's power at the crossings (a uniform
-- kappa does no work on a divergence-free u)
local function jump_work(u)
  local ux, uy = u.u:totable(), u.v:totable()
  local w = 0
  for _, e in ipairs(jump) do
    w = w + e[4] * (e[1] == 1 and ux[e[2]][e[3]] or uy[e[2]][e[3]])
  end
  return rho * dx * dx * w
end

local dt = drop.max_dt(S)
if args.debug then
  DEBUGK, DEBUGC = {}, {}
  local m = g:mac()
  polygon_jump(m, S.phi, { dt = 1e-3, rho = rho, sigma = sigma })
  for _, cut in ipairs { 0, 0.5, 0.7071, 0.9 } do
    local lo, hi, cnt = math.huge, -math.huge, 0
    for q, k in ipairs(DEBUGK) do
      if DEBUGC[q] >= cut then lo, hi, cnt = math.min(lo, k * R), math.max(hi, k * R), cnt + 1 end
    end
    print(string.format("polygon kappa R at t = 0, faces with |e . n| >= %.3f: %d, %.5f .. %.5f", cut, cnt, lo, hi))
  end
  DEBUGK, DEBUGC = nil, nil
end
local steps = math.ceil(args.periods * period / dt)
dt = args.periods * period / steps
local P0 = cells()
local KE0, L0, q0 = kinetic(S.u, P0), length(P0), moment(P0)
local rows = { { t = 0, KE = KE0, L = L0, W = 0, q = q0 } }
local Wsum, zeros, tz, umax = 0, {}, {}, 0
local q_prev = q0
for s = 1, steps do
  drop.step(S, dt)
  local P = cells()
  Wsum = Wsum + jump_work(S.u)
  local q = moment(P)
  local row = { t = s * dt, KE = kinetic(S.u, P), L = length(P), W = Wsum, q = q }
  rows[#rows + 1] = row
  umax = math.max(umax, S.u:max_speed())
  if (q_prev > 0) ~= (q > 0) then
    zeros[#zeros + 1] = s
    tz[#zeros] = (s - 1) * dt + dt * q_prev / (q_prev - q) -- interpolated
  end
  q_prev = q
end
local E0 = KE0 + sigma * L0
print(string.format("tension_energy: %d cells per diameter (%d^2), mode %d at %g deg, eps %g, curvature %s%s, extend %s, ahead %g, %d steps, dt %.4g s (%.1f steps per period)",
  args.cpd, n, nmode, args.angle, args.rest and 0 or args.eps, S.curvature, args.jump == 'polygon' and ' (jump: polygon)' or '', S.extend, args.ahead, steps, dt, period / dt))
print(string.format("  E0 = KE + sigma L = %.6e J/m (sigma L0 %.6e; L0 / (2 pi R) = %.6f), max |u| %.3e m/s", E0, sigma * L0, L0 / (2 * math.pi * R), umax))
if #zeros >= 3 then
  local t1 = tz[1]
  local w = 2 * math.pi / (tz[3] - tz[1])
  print(string.format("  omega %.4f rad/s vs %.4f (%+.2f%%), first crossing at %.4f T", w, omega, 100 * (w / omega - 1), t1 / period))
end
-- half periods: from an extremum (KE ~ 0) to the next extremum; the pieces
-- 0 -> crossing 1 (surface energy into kinetic) and crossing k -> crossing k+1
local marks = { 1 }
for _, z in ipairs(zeros) do marks[#marks + 1] = z + 1 end
marks[#marks + 1] = #rows
print("  from t/T  to t/T   dKE/E0      W/E0        -sigma dL/E0  (W + sigma dL)/E0  (dKE - W)/E0  W/(-sigma dL)")
for k = 1, #marks - 1 do
  local a, b = rows[marks[k]], rows[marks[k + 1]]
  local dKE, W, dU = b.KE - a.KE, b.W - a.W, sigma * (b.L - a.L)
  print(string.format("  %6.3f  %6.3f  %+.4e  %+.4e  %+.4e   %+.4e        %+.4e   %.5f", a.t / period, b.t / period,
    dKE / E0, W / E0, -dU / E0, (W + dU) / E0, (dKE - W) / E0, dU ~= 0 and W / -dU or 0))
end
local last = rows[#rows]
print(string.format("  over the run: E/E0 - 1 = %+.4e (KE %+.4e, sigma dL %+.4e), jump work %+.4e, rest %+.4e (all / E0)",
  (last.KE + sigma * last.L) / E0 - 1, (last.KE - KE0) / E0, sigma * (last.L - L0) / E0, last.W / E0, (last.KE - KE0 - last.W) / E0))
-- the oscillation's energy: the largest KE against sigma (L_max - L_min)
local kmax, lmin, lmax = 0, math.huge, -math.huge
for _, r in ipairs(rows) do
  kmax = math.max(kmax, r.KE); lmin = math.min(lmin, r.L); lmax = math.max(lmax, r.L)
end
print(string.format("  largest KE %.5e, sigma (L(0) - L_min) %.5e: ratio %.5f", kmax, sigma * (L0 - lmin), kmax / (sigma * (L0 - lmin))))
-- the oscillator's stiffness from the run (least squares over all steps): the
-- jump's work W = c - k_jump (q - q_s)^2 / 2 and the surface energy
-- sigma L = c + k_area (q - q_s)^2 / 2 of the mode's moment q (q_s: the
-- spring's rest position, 0 for a surface energy); k_jump / k_area (free
-- of the moment's scale) is how much stiffer the jump is than the discrete
-- area it should be the variation of (omega ~ sqrt(k)); the exact
-- k = 3 sigma / (pi R^7) for q = pi R^4 a.
if nmode == 2 and not args.rest then
  -- least squares y = c0 + c1 x + c2 x^2 (normal equations, Cramer's rule): returns c1, c2
  local function fit(xs, ys)
    local S = { 0, 0, 0, 0, 0 }
    local T = { 0, 0, 0 }
    for k = 1, #xs do
      local x, y = xs[k], ys[k]
      for p = 0, 4 do S[p + 1] = S[p + 1] + x ^ p end
      for p = 0, 2 do T[p + 1] = T[p + 1] + y * x ^ p end
    end
    local function det(m)
      return m[1][1] * (m[2][2] * m[3][3] - m[2][3] * m[3][2]) - m[1][2] * (m[2][1] * m[3][3] - m[2][3] * m[3][1])
        + m[1][3] * (m[2][1] * m[3][2] - m[2][2] * m[3][1])
    end
    local A = { { S[1], S[2], S[3] }, { S[2], S[3], S[4] }, { S[3], S[4], S[5] } }
    local d = det(A)
    local function col(c)
      local M = { { A[1][1], A[1][2], A[1][3] }, { A[2][1], A[2][2], A[2][3] }, { A[3][1], A[3][2], A[3][3] } }
      for r = 1, 3 do M[r][c] = T[r] end
      return det(M) / d
    end
    return col(2), col(3)
  end
  local q, W, U = {}, {}, {}
  local q0 = rows[1].q
  for k = 1, #rows do
    q[k], W[k], U[k] = rows[k].q / q0, rows[k].W, sigma * rows[k].L
  end
  local kex = 3 * sigma / (math.pi * R ^ 7)
  local bj, cj = fit(q, W)
  local ba, ca = fit(q, U)
  local kj, ka = -2 * cj, 2 * ca
  print(string.format("  stiffness: k_jump/k_area %.5f (the jump's work per q^2 over the discrete area's; k_area/k_exact %.5f times the moment's scale^-2); rest positions q_s/q0: jump %+.5f, area %+.5f",
    kj / ka, ka / (kex * q0 * q0), bj / kj, -ba / ka))
end
-- per period of the mode: the energy's change and its two parts, over the
-- largest KE of the first period (the mode's energy)
local per = math.floor(period / dt + 0.5)
local ew = 0
for k = 1, math.min(#rows, per) do ew = math.max(ew, rows[k].KE) end
print(string.format("  per period T (over the mode's energy, the largest KE of the first period %.4e J/m):", ew))
print("   t/T   (E - E0)/Ew  (W + sigma dL)/Ew  (dKE - W)/Ew   largest KE of the period / Ew")
local k = per + 1
while k <= #rows do
  local r, km = rows[k], 0
  for j = k - per + 1, k do km = math.max(km, rows[j].KE) end
  print(string.format("  %5.2f  %+.4f      %+.4f            %+.4f        %.4f", r.t / period, (r.KE + sigma * r.L - E0) / ew,
    (r.W + sigma * (r.L - L0)) / ew, (r.KE - KE0 - r.W) / ew, km / ew))
  k = k + per
end
