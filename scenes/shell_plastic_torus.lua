-- A half-torus shell (a tube bent into an arch, its feet pinned to the
-- ground) is squashed by a flat plate pressed down onto its crown and lifted
-- again: with plastic bending (Irving's thesis 2.8, Fig. 2.6: the plastic
-- flow applied to the hinges' rest angles, `bend_yield`) the arch stays
-- lower, without it (--yield 0) it springs back.  Contact is IPC's: the
-- plate is a barrier at distance dhat, so is the tube's own wall where the
-- squashed tube folds onto itself (self-contact), with CCD in the line
-- search: nothing passes through (--contact friction: the plate as a
-- projected constraint, no self-contact).  Prints per frame the crown's
-- depth below its rest height, the closest contact and the tube's
-- crossings (edges through its own triangles, m:intersections(): 0 with
-- the barrier; the constraints let the folded walls pass through).
--   tide scenes/shell_plastic_torus.lua [--frames 60] [--ring 24] [--tube 12] [--yield 0.02]
--                                       [--contact barrier] [--dhat 1e-3] [--paper]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid
local A = tide.array

local P = tide.params({ frames = 60, fps = 30, ring = 24, tube = 12, R = 0.25, r = 0.06, E = 2e6, thickness = 4e-3,
  yield = 0.02, push = 0.1, contact = "barrier", dhat = 1e-3, out = "out/shell_plastic_torus", png = true,
  paper = false },
  { ring = "cells along the arch", tube = "cells around the tube", R = "arch radius [m]", r = "tube radius [m]",
    E = "Young's modulus [Pa]", thickness = "shell thickness [m]", yield = "bend_yield [rad] (0: elastic)",
    push = "how far the plate presses below the crown [m]", png = "write PNG frames",
    contact = "barrier (IPC, with self-contact) or friction (projected constraints)", dhat = "barrier distance [m]",
    paper = "bigger run: 96 x 32 cells, 120 frames" })
if P.paper then P.ring, P.tube, P.frames = math.max(P.ring, 96), math.max(P.tube, 32), math.max(P.frames, 120) end

-- the half torus: tube centre (R cos u, r + R sin u, 0), u in [0, pi], the
-- tube around it in the plane of the arch's normal and z
local nodes, tris = {}, {}
local nr, nt = P.ring, P.tube
for i = 0, nr do
  local u = math.pi * i / nr
  local ex, ey = math.cos(u), math.sin(u)
  for j = 0, nt - 1 do
    local w = 2 * math.pi * j / nt
    nodes[#nodes + 1] = { (P.R + P.r * math.cos(w)) * ex, P.r + (P.R + P.r * math.cos(w)) * ey, P.r * math.sin(w) }
  end
end
local function id(i, j) return i * nt + (j % nt) + 1 end
for i = 0, nr - 1 do
  for j = 0, nt - 1 do
    tris[#tris + 1] = { id(i, j), id(i + 1, j), id(i + 1, j + 1) }
    tris[#tris + 1] = { id(i, j), id(i + 1, j + 1), id(i, j + 1) }
  end
end
local arch = S.mesh { nodes = A.from(nodes), elements = A.from(tris) }
arch:shell { model = "stvk", E = P.E, nu = 0.3, thickness = P.thickness, density = 1000,
  bend_yield = P.yield }
arch:pin(function(x, y) return y < P.r * 1.001 + 1e-9 and math.abs(math.abs(x) - P.R) < P.r * 1.001 end)
print(tostring(arch))

-- the crown: the tube's top ring at u = pi/2 (its highest node)
local crown, ytop = 1, -math.huge
for i = 1, arch.nv do if arch.rest:get(i, 2) > ytop then crown, ytop = i, arch.rest:get(i, 2) end end

-- the plate comes down at 0.5 m/s, presses `push` below the crown, goes back up
local speed = 0.5
local y0 = ytop + 0.01
local plate = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, -1, 0 } }, position = { 0, y0, 0 },
  mu = 0.3 }
local t_down = (0.01 + P.push) / speed
local t = 0
local last
local step = solids.stepper(arch, solids.contact({ method = "newton", colliders = { plate }, tol = 1e-4, maxit = 40,
  advance = { plate }, after = function(st) last = st end,
  before = function(dt)
    local v = t < t_down and -speed or t < 2 * t_down and speed or 0
    plate:set { velocity = { 0, v, 0 } }
    t = t + dt
  end }, P.contact, P.dhat, 0.3))

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 240 end,
  step = step,
  frame = function(i, tt)
    local dent = ytop - arch.x:get(crown, 2)
    print(string.format("frame %d  t = %.3f s  crown dent %.4f m  plate at y = %.3f m  crossings %d%s", i, tt, dent,
      plate.position[2], arch:intersections(),
      last and last.min_distance and string.format("  closest contact %.2e m", last.min_distance) or ""))
    if P.png then
      local y = plate.position[2]
      local lid = S.box { min = { -0.4, y, -0.15 }, max = { 0.4, y + 0.01, 0.15 }, cells = { 1, 1, 1 } }
      solids.png3d(P.out .. "/frame_%04d.png", i, {
        solids.surface(arch, { 0.8, 0.6, 0.25 }), solids.surface(lid, { 0.6, 0.6, 0.65 }) }, {
        camera = { position = { 0.6, 0.55, 0.9 }, target = { 0, 0.18, 0 }, fov = 45 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", tt) })
    end
  end,
}
