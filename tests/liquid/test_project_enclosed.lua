-- tide.liquid.project with a liquid component enclosed by fixed faces (no open face to an
-- air cell) while other liquid meets the air: it has no pressure level and its fixed
-- fluxes need not balance (a pocket boxed in by a solid's contact faces, tide.liu
-- contact = "segments"), so its block of the Poisson matrix is singular and the
-- right-hand side outside its range.  It is treated as solid for the solve: its fixed
-- faces keep their velocities, its other faces get 0, and the rest is projected as
-- without it.  16^2 cells: a pool in the lower 6 rows under air, and a 3 x 2 island of
-- liquid in the air whose outer faces are all fixed, with a net inflow (u = 1 m/s on its
-- left faces, 0 on the others).
local tide = require "tide"
local T = require "tide.testing"
local liquid = tide.liquid

local n = 16
local g = tide.grid.new { size = { n, n }, dx = 1 / n }
for _, method in ipairs { "pcg", "mgpcg", "mic0" } do
  local labels = g:cells("u8", liquid.AIR)
  for i = 1, n do for j = 1, 6 do labels:set(i, j, liquid.LIQUID) end end
  for i = 8, 10 do for j = 11, 12 do labels:set(i, j, liquid.LIQUID) end end
  local u, fixed = g:mac(), g:mac("u8")
  local U, V = u:component(1), u:component(2)
  local FU, FV = fixed:component(1), fixed:component(2)
  for i = 1, n + 1 do for j = 1, n do U:set(i, j, 0.01 * math.sin(i + 3 * j)) end end -- a field to project
  for i = 1, n do for j = 1, n + 1 do V:set(i, j, 0.01 * math.cos(2 * i + j)) end end
  for j = 11, 12 do -- the island's x faces: left (face 8) inflow, right (face 11) closed
    U:set(8, j, 1); FU:set(8, j, 1)
    U:set(11, j, 0); FU:set(11, j, 1)
  end
  for i = 8, 10 do -- its y faces: bottom (face 11) and top (face 13)
    V:set(i, 11, 0); FV:set(i, 11, 1)
    V:set(i, 13, 0); FV:set(i, 13, 1)
  end
  local ok, st = pcall(liquid.project, u, labels, { dt = 0.01, rho = 1000, tol = 1e-10, method = method, fixed = fixed })
  T.check(ok, method .. ": the projection succeeds (" .. tostring(ok and "" or st) .. ")")
  if ok then
    local kept = U:get(8, 11) == 1 and U:get(8, 12) == 1
    local inner = math.max(math.abs(U:get(9, 11)), math.abs(U:get(10, 12)), math.abs(V:get(9, 12)))
    T.check(kept, method .. ": the island's fixed faces keep their velocity")
    T.check(inner == 0, string.format("%s: its inner faces are at rest (%.1e)", method, inner))
    T.check(st.div_after < 1e-6, string.format("%s: the pool is divergence-free (%.1e)", method, st.div_after))
    print(string.format("%s: %d unknowns (the pool's 96), %d iterations, div %.1e", method, st.unknowns,
      st.iterations, st.div_after))
  end
end
