--- The 2D static-drop benchmark with the tide.drop recipe (Popinet 2009; Francois et al. 2006):
-- capillary units rho = sigma = D = 1 (the capillary time sqrt(rho D^3 / sigma) = 1), the drop
-- centred `centre` cells off the box centre (box 2 D), air density 0, inviscid unless the options
-- say otherwise, tide.drop's max_dt.  Measured: max |u| sqrt(rho D / sigma) over the faces at the
-- marks and the largest over the run; the mean pressure of the liquid cells more than 3 cells
-- inside over sigma / R at the end.  Shared by tests/physics/test_drop_rest.lua and
-- tests/physics/test_drop_kappa_redistance.lua (docs/liquids-physics.md, "The default").
--
--   local C = require "tide.cases.drop_rest"
--   local r = C.run { cpd = 25, centre = { 0.37, 0.13 }, marks = { 1, 5 } [, options = { ... } (tide.drop.new)] }
--   -- r.at[mark], r.largest, r.p, r.S (the state), r.steps
local tide = require "tide"
local drop = require "tide.drop"

local M = {}

function M.new(o)
  local sigma, rho, D, cpd = 1, 1, 1, o.cpd or 25
  local R, dx = D / 2, D / cpd
  local n = 2 * cpd
  local g = tide.grid.new { size = { n, n }, dx = dx }
  local off = o.centre or { 0.37, 0.13 }
  local c = { n * dx / 2 + off[1] * dx, n * dx / 2 + off[2] * dx }
  local opts = { grid = g, phi = drop.disk { grid = g, center = c, radius = R }, sigma = sigma, rho = rho }
  for k, v in pairs(o.options or {}) do opts[k] = v end
  return drop.new(opts), { sigma = sigma, rho = rho, D = D, R = R, dx = dx, n = n, grid = g }
end

function M.run(o)
  local S, K = M.new(o)
  local scale = math.sqrt(K.rho * K.D / K.sigma)
  local at, largest = {}, 0
  for _, mark in ipairs(o.marks) do
    while S.t < mark - 1e-9 do
      local dt = drop.max_dt(S)
      if S.t + 1.5 * dt > mark then dt = mark - S.t end
      drop.step(S, dt)
      largest = math.max(largest, S.u:max_speed() * scale)
    end
    at[mark] = S.u:max_speed() * scale
  end
  local ps, np = 0, 0
  for i = 1, K.n do
    for j = 1, K.n do
      if S.phi:get(i, j) < -3 * K.dx then ps, np = ps + S.pressure:get(i, j), np + 1 end
    end
  end
  return { at = at, largest = largest, p = ps / np / (K.sigma / K.R), S = S, steps = S.steps }
end

return M
