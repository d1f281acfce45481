-- A square cloth falls onto a sphere that spins about a horizontal axis
-- (z): Coulomb friction at the collider (IPC's smoothed lagged friction
-- against the sphere's surface velocity omega x (x - c)) drags the draped
-- cloth over the top until it slides off the side onto the ground (discrete shell:
-- neo-Hookean membrane + bending, docs/shells.md).  Backward Euler by
-- Newton's method.  Contact is IPC's (docs/shells.md): the sphere and the
-- ground are barriers at distance dhat, the cloth's own triangles, edges and
-- nodes too (self-contact with friction mu), and the line search's CCD
-- keeps every iterate free of penetration (--contact friction: the
-- projected-Newton constraints of the colliders, no self-contact).  Prints
-- per frame the cloth's mean x velocity against the surface speed omega R
-- at the top, and the closest contact distance.
--   tide scenes/shell_spin.lua [--frames 60] [--cells 20] [--omega 3] [--contact barrier] [--dhat 2e-3]
--                              [--paper] [--out out/shell_spin]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 60, fps = 30, cells = 20, E = 2e5, thickness = 5e-4, mu = 0.6, omega = 3,
  damping = 0.01, contact = "barrier", dhat = 2e-3, out = "out/shell_spin", png = true, paper = false },
  { cells = "cells per side of the cloth", E = "Young's modulus [Pa]", thickness = "cloth thickness [m]",
    mu = "friction of the sphere", omega = "spin of the sphere about z [rad/s]",
    damping = "Rayleigh stiffness damping [s]", png = "write PNG frames",
    contact = "barrier (IPC: colliders and self-contact as barriers) or friction (projected constraints)",
    dhat = "barrier distance [m] (contact = barrier)",
    paper = "bigger run: 64 x 64 cells, 150 frames, shape-operator bending" })
if P.paper then P.cells, P.frames = math.max(P.cells, 64), math.max(P.frames, 150) end

local c = { 0, 0.4, 0 }
local cloth = S.sheet { origin = { -0.4, 0.72, -0.4 }, u = { 0.8, 0, 0 }, v = { 0, 0, 0.8 }, cells = { P.cells, P.cells },
  diagonals = P.paper and "same" or "alternate" }
cloth:shell { E = P.E, nu = 0.3, thickness = P.thickness, density = 400, damping = P.damping,
  bending_model = P.paper and "triangle" or "hinge" }
print(tostring(cloth))
local R = 0.3
local ball = S.collider { shape = S.shape.sphere { center = { 0, 0, 0 }, radius = R }, position = c, mu = P.mu,
  omega = { 0, 0, -P.omega } } -- the top moves toward +x
local ground = solids.ground(0, P.mu)
local last
local step = solids.stepper(cloth, solids.contact({ method = "newton", colliders = { ball, ground }, tol = 1e-4,
  maxit = 40, after = function(st) last = st end }, P.contact, P.dhat, P.mu))
local sphere_mesh = S.bcc { shape = S.shape.sphere { center = c, radius = 0.29 }, h = 0.06 }

-- the cloth's mean x velocity
local function drift()
  local p, M = 0, 0
  for i = 1, cloth.nv do
    p, M = p + cloth.mass:get(i) * cloth.v:get(i, 1), M + cloth.mass:get(i)
  end
  return p / M
end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = step,
  frame = function(i, t)
    print(string.format("frame %d  t = %.3f s  cloth mean vx %.3f m/s (sphere top %.3f m/s)%s", i, t, drift(),
      P.omega * R, last and last.min_distance and string.format("  closest contact %.2e m", last.min_distance) or ""))
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, {
        solids.surface(cloth, { 0.3, 0.55, 0.85 }), solids.surface(sphere_mesh, { 0.6, 0.6, 0.65 }) }, {
        camera = { position = { 1.2, 1.1, 1.4 }, target = { 0, 0.35, 0 }, fov = 40 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
