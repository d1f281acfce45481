--- A pressure Poisson problem on a MAC grid: a pool in the unit square/cube,
-- solid walls on the sides and the bottom (label 2), liquid (1) below 0.6 of
-- the height, air (0) above, a solid ball of radius 0.2 at (0.5, 0.3[, 0.5]);
-- right-hand side sin(i + 2 j [+ 3 k]) on the liquid cells (0 elsewhere).
-- Shared by tests/linalg/test_mg_poisson.lua and figures/poisson_iterations.lua.
--
--   local pool = require "tide.cases.poisson_pool"
--   local g, labels, rhs = pool.new(3, 24)   -- grid, u8 labels, f64 right-hand side
local tide = require "tide"

local M = {}

function M.new(dim, n)
  local A = tide.array
  local size = dim == 2 and { n, n } or { n, n, n }
  local g = tide.grid.new { size = size, dx = 1 / n }
  local lab, rhs = A.zeros(size, "u8"), A.zeros(size)
  local nk = dim == 2 and 1 or n
  local L, B = lab:reshape(g.ncells), rhs:reshape(g.ncells)
  local q = 0
  for i = 1, n do
    for j = 1, n do
      for k = 1, nk do
        q = q + 1
        local x, y = (i - .5) / n - .5, (j - .5) / n - .3
        local z = dim == 2 and 0 or (k - .5) / n - .5
        local wall = i == 1 or i == n or j == 1 or (dim == 3 and (k == 1 or k == n))
        local l = (j - .5) / n < .6 and 1 or 0
        if wall or x * x + y * y + z * z < .04 then l = 2 end
        L[q] = l
        if l == 1 then B[q] = math.sin(i + 2 * j + 3 * (dim == 2 and 0 or k)) end
      end
    end
  end
  return g, lab, rhs
end

return M
