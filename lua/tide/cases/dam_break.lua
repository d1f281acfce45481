--- The 2D dam break of the tests and figures: a 1.5 x 1 m tank of
-- (1.5 res) x res cells, a 0.5 x 0.75 m water column at the left, seeded 4
-- particles per cell (tide.liquid.seed), stepped by the tide.flip recipe
-- with scheme "pic", "flip" (blend 0.97) or "apic".  Shared by
-- tests/liquid/test_liquid_dam_break.lua and figures/pic_flip_apic.lua.
--
--   local dam = require "tide.cases.dam_break"
--   local g, ps, S = dam.setup("apic", 64)
--   local e = dam.energy(S)   -- {kinetic, potential} of the particles [J per m of depth]
local tide = require "tide"
local flip = require "tide.flip"

local M = {}

function M.setup(scheme, res)
  res = res or 64
  local g = tide.grid.new { size = { res * 3 // 2, res }, dx = 1 / res }
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.5, 0.75 } }, apic = scheme == "apic" }
  return g, ps, flip.new { grid = g, particles = ps, scheme = scheme }
end

--- Kinetic and potential energy of the particles (each carries rho dx^2 /
-- per_cell of mass; potential measured from y = 0, g = 9.81).
function M.energy(S)
  local ps = S.particles
  local m = S.rho * S.grid.dx ^ 2 / S.per_cell
  local v = ps.v
  return { kinetic = 0.5 * m * v:dot(v), potential = m * 9.81 * ps.x:select(2, 2):sum() }
end

return M
