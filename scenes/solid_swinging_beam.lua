-- A beam pinned at one end falls under gravity and swings (Zarifi, thesis
-- Fig. 3.4 and Alg. 2): Zarifi's linearly implicit backward Euler with
-- corotational linear elasticity and Rayleigh damping (Eq. 3.55), next to
-- the same beam with the pure linear model, whose rotated elements grow.
--   tide scenes/solid_swinging_beam.lua [--frames 90] [--out out/swinging_beam]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 90, fps = 30, cells = 16, E = 1e5, out = "out/swinging_beam", png = true },
  { cells = "elements along the beam", E = "Young's modulus [Pa]", png = "write PNG frames" })

local L, h = 1.0, 0.1
local function beam(z, corotational)
  local m = S.box { min = { 0, 0.6, z }, max = { L, 0.6 + h, z + h }, cells = { P.cells, 2, 2 } }
  m:material { model = "linear", E = P.E, nu = 0.3, density = 1000, rayleigh_mass = 0.1,
    rayleigh_stiffness = 0.005 }
  m:pin(function(x) return x < 1e-9 end)
  return m, solids.stepper(m, { method = "linear", corotational = corotational })
end
local corot, step_c = beam(-0.3, true)
local linear, step_l = beam(0.2, false)
local V0 = corot:volume()

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = function(dt)
    local a = step_c(dt)
    step_l(dt)
    return a
  end,
  frame = function(i, t)
    if i % 10 == 0 then
      print(string.format("t = %.2f s: volume corotational %.3f, pure linear %.3f of rest", t,
        corot:volume() / V0, linear:volume() / V0))
    end
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, {
        solids.surface(corot, { 0.3, 0.6, 0.85 }), solids.surface(linear, { 0.85, 0.4, 0.3 }),
        solids.box_surface({ -0.1, 0.45, -0.45 }, { 0, 0.85, 0.45 }) }, {
        camera = { position = { 0.8, 0.9, 3.2 }, target = { 0.4, 0.3, 0 }, fov = 45 },
        width = 480, height = 360, ground_y = -0.6,
        title = string.format("t = %.2f s  (blue: corotational, red: pure linear)", t) })
    end
  end,
}
