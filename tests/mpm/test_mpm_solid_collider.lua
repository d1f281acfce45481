-- MPM against a tide.solid mesh as an SDF collider (one way, lua/tide/mls_mpm.lua
-- solid_collider): an elastic MPM block (2D, 32 cells/m) falls onto a slab
-- meshed by tide.solid.box, from one cell above it.  (1) Static slab: the block comes to rest on the
-- mesh's surface, and the run matches the same slab given as the analytic
-- tide.shape.box to round-off (the mesh distance is exact).  (2) The slab
-- mesh moved upward at 0.25 m/s, its collider rebuilt from the moved nodes
-- every step: the block resting on it rises with the mesh's speed.
local tide = require "tide"
local T = require "tide.testing"
local mpm = require "tide.mls_mpm"

local n = 32
local lo, hi = { 0.2, 0.1 }, { 0.8, 0.3 } -- the slab [m]

local function block_state(collider)
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local M = tide.mpm.new { grid = g, gravity = { 0, -9.81 }, walls = "separate" }
  local jelly = M:material { model = "neohookean", E = 2e4, nu = 0.3, density = 1000 }
  M:seed { shape = tide.shape.box { min = { 0.38, 0.3 + 1 / n }, max = { 0.62, 0.45 } }, material = jelly, stream = 1 }
  local slab = tide.solid.box { min = lo, max = hi, cells = { 6, 2 } }
  local i
  if collider == "mesh" then i = mpm.solid_collider(M, slab) else
    M:collider { shape = tide.shape.box { min = lo, max = hi }, bc = "separate" } end
  return M, slab, i
end

local function stats(M)
  local x, v = M.x, M.v
  local ymin, vy = math.huge, 0
  for p = 1, M.n do
    ymin = math.min(ymin, x[p][2]); vy = vy + v[p][2]
  end
  return ymin, vy / M.n
end

-- (1) static slab: 1 s of fall and rest, mesh vs analytic box
local dt = 2e-3
local Mm, slab, ci = block_state("mesh")
local Mb = block_state("box")
local vavg = 0
for s = 1, 500 do
  mpm.solid_collider(Mm, slab, nil, ci)
  mpm.step(Mm, dt)
  mpm.step(Mb, dt)
  if s > 250 then vavg = vavg + select(2, stats(Mm)) / 250 end
end
local ymin, vy = stats(Mm)
local dmax = 0
local xm, xb = Mm.x, Mb.x
for p = 1, Mm.n do
  for a = 1, 2 do dmax = math.max(dmax, math.abs(xm[p][a] - xb[p][a])) end
end
print(string.format("static slab: lowest particle %.4f m (slab top %.3f m, dx %.4f), mean vy over the last 0.5 s %.2e m/s, |mesh - box| %.2e m",
  ymin, hi[2], 1 / n, vavg, dmax))
T.check(ymin > hi[2] - 0.5 / n and ymin < hi[2] + 1.5 / n,
  string.format("the block rests on the mesh's surface: lowest particle %.4f m, top %.3f m", ymin, hi[2]))
T.check(math.abs(vavg) < 0.01, string.format("the block is at rest: mean vy over the last 0.5 s %.2e m/s", vavg))
T.check(dmax < 1e-9, string.format("mesh collider = analytic box to round-off: %.2e m", dmax))

-- (2) the slab mesh moving up at 0.25 m/s (its nodes moved, the collider rebuilt)
local w = 0.25
for k = 1, slab.nv do slab.v:set(k, 2, w) end
local X = slab.x
local function ybar(M)
  local x, s = M.x, 0
  for p = 1, M.n do s = s + x[p][2] end
  return s / M.n
end
local steps, y0 = 300, nil
for s = 1, steps do
  for k = 1, slab.nv do X:set(k, 2, X:get(k, 2) + w * dt) end
  mpm.solid_collider(Mm, slab, nil, ci)
  mpm.step(Mm, dt)
  if s == 100 then y0 = ybar(Mm) end
end
local vy2 = (ybar(Mm) - y0) / ((steps - 100) * dt) -- the block's rise rate over the last 0.4 s
local ymin2 = stats(Mm)
local top = hi[2] + steps * w * dt
print(string.format("moving slab: rise of the centre of mass over the last 0.4 s %.4f m/s (mesh %.2f), lowest particle %.4f m, mesh top %.4f m", vy2, w, ymin2, top))
T.check(math.abs(vy2 / w - 1) < 0.05, string.format("the block rides the moving mesh: rise %.4f m/s vs %.2f", vy2, w))
T.check(ymin2 > top - 0.5 / n, string.format("no particle inside the moved mesh: %.4f m vs top %.4f m", ymin2, top))

-- a mesh of the wrong dimension is refused
local g3 = tide.grid.new { size = { 8, 8, 8 }, dx = 1 / 8 }
local M3 = tide.mpm.new { grid = g3 }
local ok, msg = pcall(mpm.solid_collider, M3, slab)
T.check(not ok and tostring(msg):find("2D but the MPM state is 3D"), "dimension mismatch named: " .. tostring(msg))
os.exit(T.report())
