-- A helical spring is dropped onto the ground, compresses and bounces: a
-- discrete rod with stretching, bending and the geometric torsion term
-- (twist = GJ, docs/shells.md), which resists the change of the helix's
-- pitch (without it, Liu et al.'s no-twist rod, the coil flattens freely).
-- Contact is IPC's: the ground is a barrier at distance dhat from the
-- wire's surface (its thickness is the wire radius) and the coils are
-- barriers to each other (centrelines dhat apart), with CCD in the line
-- search: a compressed coil cannot pass through its neighbour (--contact
-- friction: the ground as a projected constraint, no coil-coil contact).
--   tide scenes/rod_spring.lua [--frames 90] [--per_turn 24] [--contact barrier] [--dhat 1e-3] [--out out/rod_spring]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 90, fps = 30, per_turn = 24, turns = 6, E = 2e10, radius = 3e-3,
  contact = "barrier", dhat = 1e-3, out = "out/rod_spring", png = true },
  { per_turn = "segments per turn", turns = "turns of the helix", E = "Young's modulus [Pa]",
    radius = "wire radius [m]", png = "write PNG frames",
    contact = "barrier (IPC, with coil-coil contact) or friction (projected constraint)", dhat = "barrier distance [m]" })

local spring = S.helix { center = { 0, 0.25, 0 }, radius = 0.05, pitch = 0.03, turns = P.turns, per_turn = P.per_turn }
spring:rod { E = P.E, radius = P.radius, density = 7800,
  twist = P.E / (2 * 1.3) * math.pi * P.radius ^ 4 / 2 } -- G J of a round wire, nu = 0.3
for i = 1, spring.nv do spring.v:set(i, 2, -1.5) end -- thrown down
print(tostring(spring))
local ground = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } }, mu = 0.3,
  thickness = P.radius }
local step = solids.stepper(spring, solids.contact({ method = "newton", colliders = { ground }, tol = 1e-4, maxit = 40 },
  P.contact, P.dhat, 0.3))

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 480 end,
  step = step,
  frame = function(i, t)
    local ymin, ymax = math.huge, -math.huge
    for k = 1, spring.nv do
      local y = spring.x:get(k, 2)
      ymin, ymax = math.min(ymin, y), math.max(ymax, y)
    end
    if i % 10 == 0 then print(string.format("t = %.2f s: spring from y = %.3f to %.3f m", t, ymin, ymax)) end
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, { solids.tubes(spring, 0.004, { 0.7, 0.7, 0.75 }) }, {
        camera = { position = { 0.5, 0.35, 0.6 }, target = { 0, 0.15, 0 }, fov = 45 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
