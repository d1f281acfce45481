-- A plastic sphere squeezed between two moving plates (Irving 2.6.3, 2.7):
-- multiplicative plasticity with yield on |log F^_e| and a limit on Fp; the
-- sphere keeps part of the flattening after the plates withdraw.  With
-- --control the plastic flow is steered toward a flattened disk (plasticity
-- control, Irving Fig. 2.5).
--   tide scenes/solid_plastic_sphere.lua [--frames 60] [--control] [--out out/plastic_sphere]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 60, fps = 30, h = 0.025, yield = 0.05, control = false,
  out = "out/plastic_sphere", png = true },
  { h = "BCC spacing [m]", yield = "yield radius on |log Fe|", control = "steer the flow toward a disk",
    png = "write PNG frames" })

local R = 0.1
local m = S.bcc { shape = S.shape.sphere { center = { 0, R, 0 }, radius = R }, h = P.h }
m:material { model = "neohookean", E = 5e4, nu = 0.3, density = 1000, damping_beta = 50 }
local goal
if P.control then
  -- goal: flattened to 60% of the height, widened to keep the volume
  goal = tide.array.zeros { m.ne, 3, 3 }
  local sy, sxz = math.log(0.6), -0.5 * math.log(0.6)
  for e = 1, m.ne do
    goal:set(e, 1, 1, sxz); goal:set(e, 2, 2, sy); goal:set(e, 3, 3, sxz)
  end
end
m:plasticity { yield = P.yield, limit = 3, goal = goal }
print(tostring(m))

local ground = solids.ground(0, 0.3)
local plate = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, -1, 0 } }, mu = 0.3,
  position = { 0, 2 * R, 0 } }
local T = 2.0 -- [s] the plates press for 0.4 T, hold, and withdraw at T/2
local step = solids.stepper(m, { method = "newton", colliders = { ground, plate }, advance = { plate },
  tol = 1e-4, maxit = 30,
  before = function()
    -- press down to 40% of the diameter within 0.4 T, hold, withdraw at T/2
    local y = plate.position[2]
    plate:set { velocity = { 0, y > 0.8 * R and -3 * R / T or 0, 0 } }
  end })
local released = false
local flowed = 0

local function height()
  local lo, hi = math.huge, -math.huge
  for i = 1, m.nv do
    local y = m.x:get(i, 2)
    lo, hi = math.min(lo, y), math.max(hi, y)
  end
  return hi - lo
end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 60 end,
  step = function(dt, t)
    if t > 0.5 * T and not released then
      released = true
      plate:set { position = { 0, 10, 0 } } -- withdrawn
    end
    local st = step(dt)
    return st
  end,
  frame = function(i, t)
    if i % 10 == 0 then
      print(string.format("t = %.2f s: height %.3f m (rest %.3f), volume %.1f%%", t, height(), 2 * R,
        100 * solids.volume_ratio(m)))
    end
    if P.png then
      local meshes = { solids.surface(m, { 0.3, 0.6, 0.85 }) }
      if not released then
        local y = plate.position[2]
        meshes[2] = solids.box_surface({ -0.2, y, -0.2 }, { 0.2, y + 0.01, 0.2 })
      end
      solids.png3d(P.out .. "/frame_%04d.png", i, meshes, {
        camera = { position = { 0.45, 0.35, 0.55 }, target = { 0, 0.08, 0 }, fov = 35 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
