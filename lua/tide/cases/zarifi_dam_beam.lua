--- The dam break against a beam pinned at its top (Zarifi thesis §6.1.1, Fig. 6.1, Table 6.1-6.2)
-- in the unit tank: a water column over the left 35% of the tank, 70% high, and a corotational
-- beam 0.1 wide hanging from the lid down to y = 0.15 at x = 0.55 (3D: 0.2 deep, centred).
-- Shared by scenes/zarifi_dam_beam.lua, figures/zarifi_table6_2.lua and bench/couple.lua.
--
--   local case = require "tide.cases.zarifi_dam_beam"
--   local S, beam = case.new { res = 32, dim = 2, scheme = "spd" }
-- Options (all optional): res (cells across the tank, 32), dim (2), paper (3D beams of the thesis:
-- "coarse" 135 nodes / 336 tets, "medium" 352 / 1134, "fine" 725 / 2688 (Table 6.1); true = fine;
-- "stability" 2 x 20 x 2 cubes, 189 nodes / 480 tets, the solid of section 6.3),
-- beam_cells (elements across the beam, 0: about 0.1/dx), E = 2e5,
-- nu = 0.3, density = 800, tau_m = 0.5, tau_k = 0.002, per_cell, column (the column's right edge,
-- 0.35; 0.55 puts the water against the beam from the start: bench/couple.lua's short warm-up at
-- 64^3-100^3, where the thesis's column takes ~0.15 s of small steps to reach it), and zarifi.new's options
-- (scheme, sampling, cfl, tol, solver, gravity (also the beam's), ...).
local tide = require "tide"
local zarifi = require "tide.zarifi"

local M = {}

local own = { res = true, dim = true, paper = true, beam_cells = true, E = true, nu = true, density = true,
  tau_m = true, tau_k = true, per_cell = true, column = true }

function M.new(o)
  o = o or {}
  local dim, res = o.dim or 2, o.res or 32
  local dx = 1 / res
  local g = tide.grid.new { size = dim == 2 and { res, res } or { res, res, res }, dx = dx }
  local bc = (o.beam_cells or 0) > 0 and o.beam_cells or (o.paper and 4 or math.max(2, math.floor(0.1 / dx + 0.5)))
  local ny = math.max(4, math.floor(0.85 / 0.1 * bc + 0.5))
  local beam
  if dim == 2 then
    beam = tide.solid.box { min = { 0.55, 0.15 }, max = { 0.65, 1.0 - 0.5 * dx }, cells = { bc, ny } }
  else
    -- the thesis's beams (Tables 6.1-6.4), cubes of 6 tets: coarse 2 x 14 x 2 (135 nodes, 336 tets),
    -- medium 3 x 21 x 3 (352, 1134), fine 4 x 28 x 4 (725, 2688)
    local nz = bc
    if o.paper then
      local c = ({ coarse = 2, medium = 3, fine = 4, stability = 2 })[o.paper == true and "fine" or o.paper]
      if not c then error("zarifi_dam_beam: paper must be true, \"coarse\", \"medium\", \"fine\" or \"stability\"", 2) end
      bc, ny, nz = c, o.paper == "stability" and 20 or 7 * c, c
    end
    beam = tide.solid.box { min = { 0.55, 0.15, 0.4 }, max = { 0.65, 1.0 - 0.5 * dx, 0.6 }, cells = { bc, ny, nz } }
  end
  beam:material { model = "corotational", E = o.E or 2e5, nu = o.nu or 0.3, density = o.density or 800,
    rayleigh_mass = o.tau_m or 0.5, rayleigh_stiffness = o.tau_k or 0.002, gravity = o.gravity }
  local top = 1.0 - 0.5 * dx - 1e-9
  beam:pin(function(_, y) return y > top end)
  local cx = o.column or 0.35
  if not (type(cx) == "number" and cx > 0 and cx <= 1) then
    error("zarifi_dam_beam: column must be a number in (0, 1]", 2)
  end
  local box = dim == 2 and { min = { 0, 0 }, max = { cx, 0.7 } } or { min = { 0, 0, 0 }, max = { cx, 0.7, 1 } }
  local ps = zarifi.seed(g, { box = box }, { beam }, (o.per_cell or 0) > 0 and o.per_cell or nil)
  local zo = { grid = g, particles = ps, solids = { beam } }
  for k, v in pairs(o) do if not own[k] then zo[k] = v end end
  return zarifi.new(zo), beam
end

--- The beam of M.new hanging into a pool at rest (no particles): the liquid fills the tank below
-- y = level (0.6) outside the beam, labels, ghost-fluid level set and face fractions built
-- directly, so one coupled projection can be set up at 100^3 in seconds (bench/couple.lua, the
-- MG-in-block preconditioner's scaling; tests/couple/test_zarifi_mgpcg.lua).
-- o: res (32), dim (3), cells (the beam's elements; default the thesis's fine beam 4 x 28 x 4 in
-- 3D, 4 x 34 in 2D), E (2e5), level (0.6).  Returns P = { grid, beam, fractions, labels, phi } and
-- P.project(opts): u* = dt g in the liquid, v* = dt g on the beam, then tide.couple.project with
-- opts (dt = 1/60, tol = 1e-10, sampling "linear" unless given) -> stats, pressure, beam velocities.
function M.pool(o)
  o = o or {}
  local dim, res = o.dim or 3, o.res or 32
  local dx, level = 1 / res, o.level or 0.6
  local g = tide.grid.new { size = dim == 3 and { res, res, res } or { res, res }, dx = dx }
  local lo = dim == 3 and { 0.55, 0.15, 0.4 } or { 0.55, 0.15 }
  local hi = dim == 3 and { 0.65, 1 - 0.5 * dx, 0.6 } or { 0.65, 1 - 0.5 * dx }
  local beam = tide.solid.box { min = lo, max = hi, cells = o.cells or (dim == 3 and { 4, 28, 4 } or { 4, 34 }) }
  beam:material { model = "corotational", E = o.E or 2e5, nu = 0.3, density = 800, rayleigh_mass = 0.5,
    rayleigh_stiffness = 0.002 }
  beam:pin(function(_, y) return y > 1 - 0.5 * dx - 1e-9 end)
  local fr, solid = g:face_fractions(tide.shape.mesh { vertices = beam.x, faces = beam:boundary() })
  local labels, phi = g:cells("u8"), g:cells()
  local lf, sf, pf = labels:reshape(labels:size()), solid:reshape(solid:size()), phi:reshape(phi:size())
  local L = tide.liquid
  local nk = dim == 3 and res or 1
  for c = 1, labels:size() do
    local y = ((((c - 1) // nk) % res) + 0.5) * dx
    pf[c] = y - level
    lf[c] = sf[c] == L.SOLID and L.SOLID or (y < level and L.LIQUID or L.AIR)
  end
  local P = { grid = g, beam = beam, fractions = fr, labels = labels, phi = phi }
  local gvec = dim == 3 and { 0, -9.81, 0 } or { 0, -9.81 }
  function P.project(opts)
    local dt = opts.dt or 1 / 60
    local u = g:mac()
    u:add_gravity(dt, gvec)
    u:enforce_walls(labels, false, fr)
    beam.v:fill(0)
    for q = 1, beam.nv do beam.v:set(q, 2, -9.81 * dt) end
    local p = g:cells()
    local args = { u = u, labels = labels, solids = { beam }, dt = dt, rho = 1000, phi = phi, fractions = fr,
      sampling = "linear", pressure = p, tol = 1e-10 }
    for k, v in pairs(opts) do args[k] = v end
    return tide.couple.project(args), p, beam.v:clone()
  end
  return P
end

return M
