-- The weak (alternating) coupling of Zarifi §6.3 in lua/tide/zarifi.lua: the solid steps with the
-- last pressure's forces Jᵀ p, then the liquid projects with the solid's boundary flux J v as a
-- moving boundary.  Measured: after each projection the liquid's area-weighted divergence equals
-- -(J v)/dx² in every liquid cell (mass conserved across the moving boundary, to the solver
-- tolerance); a heavy solid sinks stably; a light one makes the alternating scheme unstable,
-- which the recipe reports as a clear error (never a crash or a NaN frame).
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"

local function pool(density, n)
  n = n or 24
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, 0.5 } } }
  local m = tide.solid.box { min = { 0.35, 0.4 }, max = { 0.65, 0.6 }, cells = { 6, 4 } }
  m:material { model = "corotational", E = 1e5, nu = 0.3, density = density, rayleigh_mass = 1 }
  return g, ps, m
end

-- heavy: stable, mass conserved across the moving boundary
do
  local g, ps, m = pool(10000)
  local S = zarifi.new { grid = g, particles = ps, solids = { m }, scheme = "weak", tol = 1e-12 }
  local worst, scale, y0 = 0, 0, m.x:select(2, 2):sum() / m.nv
  for _ = 1, 30 do
    zarifi.step(S, 0.002)
    -- the divergence of the projected field (before extrapolation changes nothing on liquid faces)
    local div = tide.liquid.divergence { u = S.u, labels = S.labels, fractions = S.fractions }
    local lab, flux = S.labels, S.flux
    for i = 1, g.size[1] do
      for j = 1, g.size[2] do
        if lab:get(i, j) == tide.liquid.LIQUID then
          local want = -flux:get(i, j) / g.dx ^ 2
          worst = math.max(worst, math.abs(div:get(i, j) - want))
          scale = math.max(scale, math.abs(want))
        end
      end
    end
  end
  local y1 = m.x:select(2, 2):sum() / m.nv
  T.check(scale > 0.1, "the solid's flux drives the liquid (max |J v|/dx^2 = " .. scale .. ")")
  T.check(worst < 1e-7 * scale, string.format("div_A u = -(J v)/dx^2 in liquid cells: worst %.3g of %.3g", worst, scale))
  T.check(y1 < y0 - 0.01, string.format("the heavy solid sinks: %.4f -> %.4f", y0, y1))
end

-- light: the alternating scheme becomes unstable and says so
do
  local g, ps, m = pool(500)
  local S = zarifi.new { grid = g, particles = ps, solids = { m }, scheme = "weak" }
  local ok, err = pcall(function() for _ = 1, 60 do zarifi.step(S, 0.002) end end)
  T.check(not ok, "weak coupling of a light solid fails")
  T.check(tostring(err):find("coupling became unstable", 1, true) ~= nil and tostring(err):find("scheme weak", 1, true) ~= nil,
    "a clear error: " .. tostring(err))
end

-- bad options are errors
do
  local g, ps, m = pool(1000, 8)
  T.raises(function() zarifi.new { grid = g, particles = ps, solids = { m }, scheme = "strongest" } end, "scheme must be one of", "unknown scheme")
  T.raises(function() zarifi.new { grid = g, particles = ps, solids = { m }, sheme = "weak" } end, "unknown option 'sheme'", "misspelt option")
  T.raises(function() zarifi.new { grid = g, particles = ps, solids = {} } end, "solids", "no solids")
end

os.exit(T.report())
