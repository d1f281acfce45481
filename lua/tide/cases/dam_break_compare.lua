--- One 2D dam break, three methods: the tank [0, 1.5] x [0, 1] m with a
-- 0.5 x 0.75 m water column at the left (the dam break of tide.cases.dam_break),
-- stepped by FLIP (tide.flip, APIC), MPM (tide.mpm, weakly compressible fluid
-- kappa/2 (J - 1)^2, "fluid as a special solid") and SPH (tide.sph, WCSPH).
-- Cells of dx = 1/res; the MPM and SPH grids extend past the tank by their
-- wall bands (MPM: wall nodes 0..1 with node 1 on the tank wall; SPH: two
-- layers of boundary particles outside the tank), so all three see the same
-- walls.  Shared by scenes/dam_break_compare.lua and
-- tests/sph/test_dam_break_compare.lua.
--
--   local C = require "tide.cases.dam_break_compare"
--   local runs = C.setup(res)            -- { flip = {...}, mpm = {...}, sph = {...} }
--   C.advance(runs.sph, t)               -- step one method to time t
--   C.front(runs.sph)                    -- surge front x [m] (99th percentile of the particles' x)
local tide = require "tide"
local flip = require "tide.flip"
local mls = require "tide.mls_mpm"
local sph = require "tide.sph_step"

local M = {}
M.width, M.height, M.a, M.h = 1.5, 1.0, 0.5, 0.75
M.sound_speed = 40 -- MPM and SPH: ~10 x sqrt(2 g h), density variations ~ g h / c^2 = 0.5 %

function M.setup(res)
  local dx = 1 / res
  local nx, ny = math.floor(M.width * res + 0.5), math.floor(M.height * res + 0.5)
  local runs = {}
  -- FLIP (APIC transfers), walls on the grid's faces
  local gf = tide.grid.new { size = { nx, ny }, dx = dx }
  local ps = tide.liquid.seed { grid = gf, box = { min = { 0, 0 }, max = { M.a, M.h } }, apic = true }
  local F = flip.new { grid = gf, particles = ps, scheme = "apic" }
  runs.flip = { name = "FLIP", t = 0, grid = gf, S = F, x = function() return ps.x end,
    step = function(dt) flip.step(F, dt) end, max_dt = function() return flip.max_dt(F) end }
  -- MPM: nodes 0, 1 of every side are wall (separating, frictionless), node 1 on the tank wall
  local gm = tide.grid.new { size = { nx + 2, ny + 2 }, dx = dx, origin = { -dx, -dx } }
  local Mp = tide.mpm.new { grid = gm, gravity = { 0, -9.81 }, walls = "separate", wall_nodes = 2 }
  local water = Mp:material { plastic = "fluid", kappa = 1000 * M.sound_speed ^ 2, density = 1000 }
  Mp:seed { shape = tide.shape.box { min = { 0, 0 }, max = { M.a, M.h } }, material = water, per_cell = 4, stream = 7 }
  runs.mpm = { name = "MPM", t = 0, grid = gm, S = Mp, x = function() return Mp.x end,
    step = function(dt) mls.step(Mp, dt) end, max_dt = function() return mls.max_dt(Mp, 0.4) end }
  -- SPH (WCSPH): two layers of boundary particles outside the tank
  local gs = tide.grid.new { size = { nx + 4, ny + 4 }, dx = dx, origin = { -2 * dx, -2 * dx } }
  local S = tide.sph.new { grid = gs, kernel = "cubic", support = 2, sound_speed = M.sound_speed, viscosity = 0.05 }
  S:boundary { shape = tide.shape.box { min = { 0, 0 }, max = { M.width, M.height } }, layers = 2, side = "outside" }
  S:seed { shape = tide.shape.box { min = { 0, 0 }, max = { M.a, M.h } } }
  runs.sph = { name = "SPH", t = 0, grid = gs, S = S, x = function() return S.x end,
    step = function(dt) sph.wcsph_step(S, dt) end, max_dt = function() return sph.max_dt(S, "wcsph", 0.4) end }
  return runs
end

--- Step run r to time t (the last step shortened to land on t).
function M.advance(r, t)
  while r.t < t - 1e-12 do
    local dt = math.min(r.max_dt(), t - r.t, 1 / 120)
    r.step(dt)
    r.t = r.t + dt
  end
end

--- Surge front [m]: the 99th percentile of the particles' x (a few splashed
-- particles do not count).
function M.front(r)
  local x = r.x()
  local n = x.shape[1]
  local xs = {}
  for p = 1, n do xs[p] = x[p][1] end
  table.sort(xs)
  return xs[math.max(1, math.floor(0.99 * n))]
end

--- One picture of the three runs side by side (PNG), with the tank as the domain.
function M.picture(runs, path, width)
  local fio = tide.fileio
  local files, order = {}, { "flip", "mpm", "sph" }
  for i, k in ipairs(order) do
    local r = runs[k]
    files[i] = string.format("%s.%s.tmp.png", path, k)
    fio.png2d { path = files[i], domain = { origin = { 0, 0 }, size = { M.width, M.height } }, width = width,
      particles = r.x(), radius_px = 1.5, title = string.format("%s  t = %.2f s", r.name, r.t) }
  end
  local A = require "tide.array"
  local imgs, w, h = {}, 0, 0
  for i, f in ipairs(files) do
    local img = assert(fio.png_read(f))
    imgs[i] = img
    h, w = math.max(h, img.shape[1]), w + img.shape[2]
  end
  local out = A.zeros({ h, w, 3 }, "u8")
  out:fill(255)
  local x = 1
  for _, img in ipairs(imgs) do
    out:slice(1, 1, img.shape[1]):slice(2, x, x + img.shape[2] - 1):copy(img:slice(3, 1, 3))
    x = x + img.shape[2]
  end
  fio.png_write(path, out)
  for _, f in ipairs(files) do os.remove(f) end
end

return M
