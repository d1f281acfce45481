-- Seams of Zarifi's coupled projection that live outside tide.couple:
--  * tide.liquid.divergence, the area-weighted divergence E of Eq. 4.39 (with the solid flux
--    of Eq. 4.32): equal to the plain MAC divergence without cuts, zero after a cut-cell
--    projection with a moving solid, and B p = E u* with tide.linalg.poisson_matrix gives
--    tide.liquid.project's pressure (the scaling the coupled system uses);
--  * the Rayleigh coefficients and density of a solid read back (D = tau_M M + tau_K K, 5.31).
local tide = require "tide"
local T = require "tide.testing"
local L, A = tide.linalg, tide.array
local LIQ, SOLID = tide.liquid.LIQUID, tide.liquid.SOLID

-- a reproducible pseudo-random MAC field (integer hash, no global state)
local function fill_random(m, seed)
  for a, arr in ipairs { m.u, m.v, m.w } do
    local n = arr:size()
    local flat = arr:reshape(n)
    for f = 1, n do
      local h = (f * 2654435761 + a * 40503 + seed * 97) % 4294967296
      flat[f] = (h % 20011) / 10005.5 - 1
    end
  end
end

-- cell access in 2D (k = nil) and 3D
local function get(a, i, j, k) if k then return a:get(i, j, k) end return a:get(i, j) end
local function set(a, i, j, k, v) if k then a:set(i, j, k, v) else a:set(i, j, v) end end

for _, dim in ipairs { 2, 3 } do
  local n = dim == 2 and 24 or 12
  local size = dim == 2 and { n, n } or { n, n, n }
  local g = tide.grid.new { size = size, dx = 1 / n }
  local u = g:mac()
  fill_random(u, dim)
  -- 1) no cuts, liquid everywhere except a solid block: E = plain divergence on the cells
  --    whose faces are all open (interior, not beside the block)
  local lab = g:cells("u8", LIQ)
  local function each_cell(f)
    if dim == 2 then
      for i = 1, n do for j = 1, n do f(i, j) end end
    else
      for i = 1, n do for j = 1, n do for k = 1, n do f(i, j, k) end end end
    end
  end
  each_cell(function(i, j, k)
    if i >= 3 and i <= 5 and j >= 3 and j <= 5 and (not k or (k >= 3 and k <= 5)) then
      set(lab, i, j, k, SOLID)
    end
  end)
  local dA = tide.liquid.divergence { u = u, labels = lab }
  local dP = u:divergence()
  local worst, solid_zero = 0, true
  each_cell(function(i, j, k)
    local inner = i > 1 and i < n and j > 1 and j < n and (not k or (k > 1 and k < n))
    local besides = false
    for _, o in ipairs { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 }, { 0, 1, 0 }, { 0, 0, -1 }, { 0, 0, 1 } } do
      local ii, jj, kk = i + o[1], j + o[2], k and k + o[3]
      if (dim == 3 or o[3] == 0) and ii >= 1 and ii <= n and jj >= 1 and jj <= n and (not kk or (kk >= 1 and kk <= n)) then
        if get(lab, ii, jj, kk) == SOLID then besides = true end
      end
    end
    if get(lab, i, j, k) == SOLID then
      solid_zero = solid_zero and get(dA, i, j, k) == 0
    elseif inner and not besides then
      worst = math.max(worst, math.abs(get(dA, i, j, k) - get(dP, i, j, k)))
    end
  end)
  T.check(worst < 1e-12, dim .. "D: E equals the MAC divergence away from walls, max diff " .. worst)
  T.check(solid_zero, dim .. "D: E is 0 on solid cells")

  -- 2) a moving cut solid: after tide.liquid.project the area-weighted divergence with the
  --    solid flux vanishes to the solver tolerance, and B p = E u* reproduces its pressure
  local c = dim == 2 and { 0.5, 0.45 } or { 0.5, 0.45, 0.5 }
  local ball = tide.shape.sphere { center = c, radius = 0.2 }
  local fr, sol = g:face_fractions(ball)
  local lab2 = g:cells("u8")
  each_cell(function(i, j, k)
    local y = (j - 0.5) / n
    local l = y < 0.8 and LIQ or tide.liquid.AIR
    if get(sol, i, j, k) == SOLID then l = SOLID end
    set(lab2, i, j, k, l)
  end)
  local us = g:mac()
  us.v:fill(-0.3) -- the solid sinks at 0.3 m/s
  us.u:fill(0.1)
  us:enforce_walls()
  local ustar = g:mac()
  fill_random(ustar, 7 + dim)
  ustar:enforce_walls()
  local before = tide.liquid.divergence { u = ustar, labels = lab2, fractions = fr, solid_velocity = us }
  local dt, rho = 0.01, 1000
  local uproj, p = ustar:clone(), g:cells()
  local st = tide.liquid.project(uproj, lab2, { dt = dt, rho = rho, fractions = fr, solid_velocity = us,
    tol = 1e-12, pressure = p })
  local after = tide.liquid.divergence { u = uproj, labels = lab2, fractions = fr, solid_velocity = us }
  local mb, ma = math.max(-before:min(), before:max()), math.max(-after:min(), after:max())
  T.check(mb > 1 and ma < 1e-9 * mb, string.format("%dD: div_A with the solid flux %.3g -> %.3g after project", dim, mb, ma))
  T.near(ma, st.div_after, 1e-9 * mb, dim .. "D: project's own div_after")
  -- B p = E u*: (dt/rho) A_poisson p = -div_A u*, A_poisson = poisson_matrix with the fractions
  local B, rows = L.poisson_matrix { grid = g, labels = lab2, weights = fr }
  local nr = B.nrows
  local rhs = A.zeros(nr)
  local pexact = A.zeros(nr)
  each_cell(function(i, j, k)
    local r = get(rows, i, j, k)
    if r > 0 then
      rhs:set(r, -rho / dt * get(before, i, j, k))
      pexact:set(r, get(p, i, j, k))
    end
  end)
  local q = L.solve { A = B, b = rhs, method = "cholesky" }
  local err = 0
  for r = 1, nr do err = math.max(err, math.abs(q:get(r) - pexact:get(r))) end
  T.check(err < 1e-8 * math.max(-pexact:min(), pexact:max()),
    string.format("%dD: pressure of B p = E u* vs tide.liquid.project: %.3g (|p| %.3g)", dim, err, pexact:max()))
  T.raises(function() tide.liquid.divergence { u = ustar, labels = lab2, fractions = 1 } end, "tide.Mac", "bad fractions")
  T.raises(function() tide.liquid.divergence { u = ustar, labels = lab2, out = ustar.u } end, "out", "out on faces")
  T.raises(function() tide.liquid.divergence { u = ustar } end, "labels", "missing labels")
end

-- Rayleigh coefficients and density read back
do
  local m = tide.solid.box { min = { 0, 0 }, max = { 1, 1 }, cells = { 2, 2 } }
  T.check(m.rayleigh_mass == nil and m.density == nil, "no material: nil")
  m:material { model = "linear", E = 1e4, nu = 0.3, density = 750, rayleigh_mass = 0.5, rayleigh_stiffness = 0.02 }
  T.check(m.rayleigh_mass == 0.5 and m.rayleigh_stiffness == 0.02 and m.density == 750, "rayleigh read back")
  m:material { model = "linear", E = 1e4, nu = 0.3 }
  T.check(m.rayleigh_mass == 0 and m.rayleigh_stiffness == 0 and m.density == 1000, "defaults read back")
end

os.exit(T.report())
