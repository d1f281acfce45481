--- The cantilevered shell strip of the bending validation (docs/shells.md):
-- L = 1 m, width b = 5 cm, h = 1 mm, E = 1e7 Pa, nu = 0 (beam stiffness D b,
-- D = E h^3 / 12), StVK membrane, clamped at two node columns (x < 1.01 L / n),
-- a tip load P (consistent nodal loads of a uniform edge load) giving a
-- deflection of 0.5% of L; static solution by one step_newton with a large dt.
-- Euler-Bernoulli tip deflection P L^3 / (3 D b).
-- Shared by tests/solid/test_solid_thin.lua and test_solid_shell_morley.lua.
--
--   local strip = require "tide.cases.shell_strip"
--   local err, st = strip.solve(strip.sheet(40, 2, "alternate"), 40, "morley")
--   local m = strip.irregular(40, 4, 0.25, 7)  -- jittered nodes, hashed diagonals
local tide = require "tide"

local M = { L = 1.0, b = 0.05, h = 1e-3, E = 1e7 }
M.D = M.E * M.h ^ 3 / 12
M.P = 3 * M.D * M.b * 0.005 / M.L ^ 3
M.exact = M.P * M.L ^ 3 / (3 * M.D * M.b)

--- the sheet generator's strip, n x nb cells, diagonals "same" | "alternate" | "cross"
function M.sheet(n, nb, diag)
  return tide.solid.sheet { origin = { 0, 0, 0 }, u = { M.L, 0, 0 }, v = { 0, 0, M.b }, cells = { n, nb },
    diagonals = diag }
end

-- a stateless hash of integers into [0, 1)
local function hash(i, j, k, seed)
  local x = (i * 73856093 ~ j * 19349663 ~ k * 83492791 ~ seed * 2654435761) & 0x7fffffff
  for _ = 1, 2 do x = (x * 1103515245 + 12345) & 0x7fffffff end
  return x / 0x80000000
end

--- an irregular strip: the n x nb grid with each cell's diagonal chosen by a
-- hash and the nodes moved by up to `jitter` cells (not off the edges, the
-- clamp columns or the tip), so valences 3..8 and no two triangles alike
function M.irregular(n, nb, jitter, seed)
  local dx, dz = M.L / n, M.b / nb
  local pts, tris = {}, {}
  local function id(i, j) return i * (nb + 1) + j + 1 end
  for i = 0, n do
    for j = 0, nb do
      local x, z = i * dx, j * dz
      if i > 1 and i < n then x = x + jitter * dx * (2 * hash(i, j, 1, seed) - 1) end
      if j > 0 and j < nb then z = z + jitter * dz * (2 * hash(i, j, 2, seed) - 1) end
      pts[id(i, j)] = { x, 0, z }
    end
  end
  for i = 0, n - 1 do
    for j = 0, nb - 1 do
      local a, b, c, d = id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)
      if hash(i, j, 3, seed) < 0.5 then
        tris[#tris + 1] = { a, b, c }
        tris[#tris + 1] = { a, c, d }
      else
        tris[#tris + 1] = { a, b, d }
        tris[#tris + 1] = { b, c, d }
      end
    end
  end
  return tide.solid.mesh { nodes = tide.array.from(pts), elements = tide.array.from(tris) }
end

--- make m (a strip of n cells along) a shell with bending model bm, clamp,
-- load, solve; returns the relative tip error against Euler-Bernoulli and
-- the step_newton status
function M.solve(m, n, bm)
  local L, b = M.L, M.b
  m:shell { model = "stvk", E = M.E, nu = 0, thickness = M.h, gravity = { 0, 0, 0 }, bending_model = bm }
  m:pin(function(x) return x < 1.01 * L / n end)
  local tipn = {}
  for i = 1, m.nv do if m.x:get(i, 1) > L - 1e-9 then tipn[#tipn + 1] = i end end
  for _, i in ipairs(tipn) do
    local z = m.x:get(i, 3)
    m.force:set(i, 2, -M.P * ((z < 1e-9 or z > b - 1e-9) and 0.5 or 1) / (#tipn - 1))
  end
  local st = m:step_newton { dt = 1e3, tol = 1e-9, maxit = 200, guess = "start" }
  local tip = 0
  for _, i in ipairs(tipn) do tip = tip - m.x:get(i, 2) / #tipn end
  return (tip - M.exact) / M.exact, st
end

return M
