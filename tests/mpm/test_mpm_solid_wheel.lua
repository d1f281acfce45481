-- Two-way MPM / FEM coupling (tide.couple.mpm_solid), continued:
--   4. a kinematic FEM wheel (every node pinned, rotated at omega each step) inside a
--      jelly ring, sticky contact, no gravity: the ring is spun up to the wheel's angular
--      velocity (the mesh's rotation reaches the grid, not only its mean translation,
--      which is zero here).
--   5. bad input raises clear Lua errors; coupled steps are bit-identical for 1 and 2 threads.
local tide = require "tide"
local T = require "tide.testing"
local mpm = require "tide.mls_mpm"

local function rotator(c, omega)
  local t = 0
  return function(mesh, dt)
    t = t + dt
    local ca, sa = math.cos(omega * t), math.sin(omega * t)
    local x, v, X = mesh.x, mesh.v, mesh.rest
    for k = 1, mesh.nv do
      local rx, ry = X:get(k, 1) - c[1], X:get(k, 2) - c[2]
      local px, py = ca * rx - sa * ry, sa * rx + ca * ry
      x:set(k, 1, c[1] + px); x:set(k, 2, c[2] + py)
      v:set(k, 1, -omega * py); v:set(k, 2, omega * px)
    end
  end
end

do -- 4. the wheel spins the ring up
  local n = 48
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local M = tide.mpm.new { grid = g, gravity = { 0, 0 }, walls = "separate" }
  local jelly = M:material { model = "neohookean", E = 1e5, nu = 0.3, density = 1000 }
  local c, R, omega = { 0.5, 0.5 }, 0.15, 2
  M:seed { shape = tide.shape.sphere { center = c, radius = 0.24 } - tide.shape.sphere { center = c, radius = R + 1.5 / n },
    material = jelly, stream = 1 }
  local wheel = tide.solid.bcc { shape = tide.shape.sphere { center = c, radius = R }, h = 0.03 }
  wheel:material { E = 1e6, nu = 0.3, density = 1000 }
  wheel:pin(function() return true end)
  local S = mpm.solid_coupling(M, wheel, { bc = "sticky", solid_step = rotator(c, omega) })
  local t, T1, acc, ta = 0, 0.4, 0, 0
  local mass, x, v = M.mass, M.x, M.v
  while t < T1 do
    local dt = math.min(mpm.coupled_max_dt(S, 0.4), T1 - t)
    mpm.coupled_step(S, dt)
    t = t + dt
    if t > 0.2 then
      local L, I = 0, 0
      for p = 1, M.n do
        local rx, ry = x[p][1] - c[1], x[p][2] - c[2]
        L = L + mass[p] * (rx * v[p][2] - ry * v[p][1]); I = I + mass[p] * (rx * rx + ry * ry)
      end
      acc = acc + L / I * dt; ta = ta + dt
    end
  end
  local w = acc / ta
  print(string.format("wheel: ring angular velocity over 0.2-0.4 s %.4f rad/s, wheel %.1f rad/s: ratio %.4f", w, omega, w / omega))
  T.check(math.abs(w / omega - 1) < 0.03, string.format("the ring turns with the wheel within 3%%: %.4f", w / omega))
end

do -- 5a. bad input
  local g = tide.grid.new { size = { 32, 32 }, dx = 1 / 32 }
  local M = tide.mpm.new { grid = g }
  M:seed { shape = tide.shape.box { min = { 0.3, 0.5 }, max = { 0.6, 0.7 } }, material = M:material { E = 1e4, nu = 0.3 } }
  local slab = tide.solid.box { min = { 0.2, 0.2 }, max = { 0.8, 0.3 }, cells = { 6, 2 } }
  T.raises(function() mpm.solid_coupling(M, slab) end, "has no material", "mesh without material")
  slab:material { E = 1e6, nu = 0.3 }
  T.raises(function() mpm.solid_coupling(M, slab, { frictoin = 1 }) end, "unknown option 'frictoin'", "misspelled option")
  T.raises(function() mpm.solid_coupling(M, 3) end, "tide.TetMesh or a list", "not a mesh")
  T.raises(function() tide.couple.mpm_solid { friction = -1 } end, "friction", "negative friction")
  T.raises(function() tide.couple.mpm_solid { bc = "glue" } end, "glue", "unknown bc")
  T.raises(function() tide.couple.mpm_solid { spacing = 0 } end, "spacing", "zero spacing")
  T.raises(function() tide.couple.mpm_solid { distance = -1 } end, "distance", "negative contact distance")
  T.check(tide.couple.mpm_solid {}.distance == 0.25, "default contact distance 0.25 cells")
  local C = tide.couple.mpm_solid {}
  T.raises(function() C:exchange(M, slab, -1) end, "dt must be finite", "negative dt")
  T.raises(function() C:exchange(slab, M, 0.01) end, "tide.MPM expected", "arguments swapped")
  local M3 = tide.mpm.new { grid = tide.grid.new { size = { 8, 8, 8 }, dx = 1 / 8 } }
  T.raises(function() C:exchange(M3, slab, 0.01) end, "2D but the MPM state is 3D", "dimension mismatch")
  T.raises(function() mpm.solid_coupling(M3, slab) end, "2D but the MPM state is 3D", "dimension mismatch (recipe)")
  local far = tide.solid.box { min = { 0.9, 0.2 }, max = { 1.2, 0.3 }, cells = { 3, 1 } }
  far:material { E = 1e6, nu = 0.3 }
  M:p2g(0.001); M:grid_update(0.001)
  T.raises(function() C:exchange(M, far, 0.001) end, "outside the MPM grid", "mesh leaving the grid")
  local Ms = tide.mpm.new { grid = g, sparse = true }
  Ms:seed { shape = tide.shape.box { min = { 0.3, 0.5 }, max = { 0.6, 0.7 } }, material = Ms:material { E = 1e4, nu = 0.3 } }
  Ms:p2g(0.001)
  T.raises(function() C:exchange(Ms, slab, 0.001) end, "dense node grid", "sparse grid refused")
  C:free()
  T.raises(function() C:exchange(M, slab, 0.001) end, "freed", "freed coupler")
end

do -- 5b. 1 and 2 threads, bit for bit
  local function run(threads)
    tide.threads(threads)
    local n = 48
    local g = tide.grid.new { size = { n, n }, dx = 1 / n }
    local M = tide.mpm.new { grid = g, gravity = { 0, -9.81 }, walls = "separate" }
    M:seed { shape = tide.shape.box { min = { 0.35, 0.31 }, max = { 0.65, 0.5 } }, stream = 2,
      material = M:material { model = "neohookean", E = 2e4, nu = 0.3, density = 1000 }, velocity = { 0.3, -1 } }
    local m = tide.solid.box { min = { 0.2, 0.15 }, max = { 0.8, 0.27 }, cells = { 16, 4 } }
    m:material { model = "neohookean", E = 1e5, nu = 0.3, density = 500 }
    m:pin(function(x) return x < 0.2 + 1e-9 or x > 0.8 - 1e-9 end)
    local S = mpm.solid_coupling(M, m, { friction = 0.4 })
    for _ = 1, 60 do mpm.coupled_step(S, 1e-3) end
    return M.x:checksum() .. " " .. M.v:checksum() .. " " .. m.x:checksum() .. " " .. m.v:checksum() .. " " ..
        S.couplers[1].impulse:checksum()
  end
  local a, b = run(1), run(2)
  print("checksums 1 thread: " .. a .. "; 2 threads: " .. b)
  T.check(a == b, "coupled steps bit-identical for 1 and 2 threads")
end

os.exit(T.report())
