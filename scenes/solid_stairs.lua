-- Elastic bodies dropped on stairs of boxes: a sphere, a box and a torus
-- fall onto a staircase (a collider made of the union of box shapes),
-- bounce and slide down with friction.  Backward Euler by Newton's method
-- with the neo-Hookean model; contacts projected with Irving's friction.
--   tide scenes/solid_stairs.lua [--frames 90] [--out out/stairs]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 90, fps = 30, h = 0.02, E = 3e4, mu = 0.4, out = "out/stairs", png = true },
  { h = "BCC spacing [m]", E = "Young's modulus [Pa]", mu = "friction", png = "write PNG frames" })

local stairs_shape, boxes = solids.stairs { steps = 3, width = 0.25, rise = 0.12, depth = 0.6, x0 = 0 }
local stairs = S.collider { shape = stairs_shape, mu = P.mu }
local ground = solids.ground(0, P.mu)

local shapes = {
  S.shape.sphere { center = { 0.1, 0.55, -0.15 }, radius = 0.06 },
  S.shape.box { min = { 0.06, 0.62, 0.02 }, max = { 0.16, 0.7, 0.12 } },
  S.shape.torus { center = { 0.12, 0.8, 0.0 }, axis = { 1, 0, 0 }, R = 0.06, r = 0.025 },
}
local colors = { { 0.3, 0.6, 0.85 }, { 0.85, 0.45, 0.3 }, { 0.4, 0.75, 0.4 } }
local bodies, steps = {}, {}
for k, sh in ipairs(shapes) do
  local m = S.bcc { shape = sh, h = P.h }
  m:material { model = "neohookean", E = P.E, nu = 0.35, density = 1000, damping_beta = 5 }
  local v = m.v
  for i = 1, m.nv do v:set(i, 1, 0.8) end -- thrown toward the lower steps
  bodies[k] = m
  steps[k] = solids.stepper(m, { method = "newton", colliders = { stairs, ground }, tol = 1e-4, maxit = 30 })
  print(tostring(m))
end
local render_boxes = {}
for _, b in ipairs(boxes) do render_boxes[#render_boxes + 1] = solids.box_surface(b[1], { b[2][1], b[2][2], b[2][3] }) end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = function(dt)
    local it = 0
    for k = 1, #bodies do it = it + steps[k](dt).iterations end
    return { iterations = it }
  end,
  frame = function(i, t)
    if P.png then
      local meshes = {}
      for k, m in ipairs(bodies) do meshes[k] = solids.surface(m, colors[k]) end
      for _, b in ipairs(render_boxes) do meshes[#meshes + 1] = b end
      solids.png3d(P.out .. "/frame_%04d.png", i, meshes, {
        camera = { position = { 1.6, 1.1, 1.4 }, target = { 0.45, 0.15, 0 }, fov = 40 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
