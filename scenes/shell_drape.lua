-- A square cloth falls onto a sphere and drapes over it (discrete shell:
-- neo-Hookean membrane + hinge bending, docs/shells.md), sliding with
-- Coulomb friction (IPC's smoothed lagged friction at the collider) and
-- piling onto the ground.  Backward Euler by Newton's method (step_newton).
-- Contact is IPC's: the sphere, the ground and the cloth's own folds are
-- barriers at distance dhat (self-friction mu), CCD in the line search: the
-- folds piling on the ground never pass through each other (--contact
-- friction: the colliders as projected constraints, no self-contact).
--   tide scenes/shell_drape.lua [--frames 90] [--cells 32] [--contact barrier] [--dhat 2e-3] [--out out/shell_drape]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 90, fps = 30, cells = 32, E = 2e5, thickness = 5e-4, mu = 0.4,
  damping = 0.01, contact = "barrier", dhat = 2e-3, out = "out/shell_drape", png = true },
  { cells = "cells per side of the cloth", E = "Young's modulus [Pa]", thickness = "cloth thickness [m]",
    mu = "friction of the sphere and the ground", damping = "Rayleigh stiffness damping [s]",
    png = "write PNG frames", contact = "barrier (IPC, with self-contact) or friction (projected constraints)",
    dhat = "barrier distance [m]" })

local cloth = S.sheet { origin = { -0.5, 0.7, -0.5 }, u = { 1, 0, 0 }, v = { 0, 0, 1 }, cells = { P.cells, P.cells } }
cloth:shell { E = P.E, nu = 0.3, thickness = P.thickness, density = 400, damping = P.damping }
print(tostring(cloth))
local ball = S.collider { shape = S.shape.sphere { center = { 0, 0.3, 0 }, radius = 0.25 }, mu = P.mu }
local ground = solids.ground(0, P.mu)
local step = solids.stepper(cloth, solids.contact({ method = "newton", colliders = { ball, ground }, tol = 1e-4,
  maxit = 40 }, P.contact, P.dhat, P.mu))
local sphere_mesh = S.bcc { shape = S.shape.sphere { center = { 0, 0.3, 0 }, radius = 0.24 }, h = 0.06 }

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = step,
  frame = function(i, t)
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, {
        solids.surface(cloth, { 0.85, 0.45, 0.3 }), solids.surface(sphere_mesh, { 0.6, 0.6, 0.65 }) }, {
        camera = { position = { 1.3, 1.1, 1.5 }, target = { 0, 0.3, 0 }, fov = 40 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
