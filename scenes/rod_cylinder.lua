-- A bundle of elastic rods falls across a horizontal cylinder and hangs
-- over it (discrete rods: stretching + bending without twist, docs/shells.md),
-- held by friction; the rod ends that reach the ground rest there.
-- Contact is IPC's: the cylinder and the ground are barriers at distance
-- dhat from the rods' surface (the colliders' thickness is the rod radius),
-- and so are the rods to each other (centrelines kept dhat apart, self-
-- friction mu), with CCD in the line search: no rod passes through the bar
-- or another rod (--contact friction: projected constraints on the
-- colliders, no rod-rod contact).
--   tide scenes/rod_cylinder.lua [--frames 90] [--segments 40] [--contact barrier] [--dhat 1e-3] [--out out/rod_cylinder]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 90, fps = 30, segments = 40, E = 1e7, radius = 2e-3, mu = 0.5,
  contact = "barrier", dhat = 1e-3, out = "out/rod_cylinder", png = true },
  { segments = "segments per rod", E = "Young's modulus [Pa]", radius = "rod radius [m]",
    mu = "friction", png = "write PNG frames",
    contact = "barrier (IPC, with rod-rod contact) or friction (projected constraints)", dhat = "barrier distance [m]" })

local rods = S.bundle { from = { -0.5, 0.45, 0 }, to = { 0.5, 0.45, 0 }, segments = P.segments,
  count = { 1, 4 }, spacing = 0.08 }
rods:rod { E = P.E, radius = P.radius, density = 1100, damping = 0.01 }
print(tostring(rods))
local cyl = S.shape.cylinder { a = { 0, 0.25, -0.5 }, b = { 0, 0.25, 0.5 }, radius = 0.08 }
local bar = S.collider { shape = cyl, mu = P.mu, thickness = P.radius }
local ground = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } }, mu = P.mu,
  thickness = P.radius }
local step = solids.stepper(rods, solids.contact({ method = "newton", colliders = { bar, ground }, tol = 1e-4,
  maxit = 40 }, P.contact, P.dhat, P.mu))
local bar_mesh = S.bcc { shape = cyl, h = 0.03 }

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 240 end,
  step = step,
  frame = function(i, t)
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, {
        solids.tubes(rods, 0.006, { 0.85, 0.7, 0.3 }), solids.surface(bar_mesh, { 0.6, 0.6, 0.65 }) }, {
        camera = { position = { 0.9, 0.8, 1.3 }, target = { 0, 0.2, 0 }, fov = 45 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
