--- Zarifi's Fig. 3.4 set-up: a 1 x 0.1 x 0.1 m beam (10 x 1 x 1 cells, linear
-- material E = 1e5 Pa, nu = 0.3, 1000 kg/m^3, Rayleigh stiffness damping
-- 0.01 s) pinned at its left end falls under gravity and swings through large
-- rotations, integrated by the linear backward Euler step (Zarifi Alg. 1-2)
-- with or without the element rotations (corotational, Zarifi Eq. 3.6).
-- Shared by tests/solid/test_solid_corotation.lua and figures/zarifi_corotation.lua.
--
--   local r = require("tide.cases.corotation").swing { corotational = true, steps = 100, dt = 0.01 }
--   -- r.t, r.volume (V/V0 after each step), r.dev = max |V/V0 - 1|, r.tip = lowest y [m], r.mesh
local tide = require "tide"

local M = {}

function M.swing(o)
  local S = tide.solid
  local cells = o.cells or 10
  local m = S.box { min = { 0, 0, 0 }, max = { 1, 0.1, 0.1 }, cells = { cells, 1, 1 } }
  m:material { model = "linear", E = 1e5, nu = 0.3, density = 1000, rayleigh_stiffness = 0.01 }
  m:pin(function(x) return x < 1e-9 end)
  local V0 = m:volume()
  local r = { t = {}, volume = {}, dev = 0, mesh = m }
  local steps, dt = o.steps or 100, o.dt or 0.01
  for s = 1, steps do
    m:step_linear { dt = dt, corotational = o.corotational }
    local v = m:volume() / V0
    r.t[s], r.volume[s] = s * dt, v
    r.dev = math.max(r.dev, math.abs(v - 1))
    if o.frame then o.frame(s, m) end
  end
  local tip = math.huge
  for i = 1, m.nv do tip = math.min(tip, m.x:get(i, 2)) end
  r.tip, r.final = tip, r.volume[#r.volume]
  return r
end

return M
