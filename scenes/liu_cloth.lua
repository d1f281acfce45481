-- A cloth in liquid, penetration-free (Liu et al. 2024): drops bouncing on a cloth stretched
-- across the box (Fig. 1, Table I case c; --liquid drops, the default) or a dam break falling
-- onto it (Fig. 2, Table I case e; --liquid dam).  No cloth vertex is ever inside the liquid
-- (checked every step).
--   build/tide scenes/liu_cloth.lua [--liquid drops|dam] [--res 48] [--dim 2|3] [--frames 48] [--E 5e4]
--   build/tide scenes/liu_cloth.lua --paper   (Table I: 3D, 192^3, CFL 0.7)
-- The cloth is a neo-Hookean tet (2D: triangle) slab one cell thick with its nodes a cell apart,
-- pinned along its edges, standing in for the paper's shell until shells exist; the step is
-- tide.liu (Algorithms 1-2) with the slab's incremental potential in the joint solve of Eq. 22.
-- Frames: PNG, and with --vtk the cloth (.vtu) for ParaView.
local tide = require "tide"
local liu = require "tide.liu"
local L = require "tide.cases.liu"

local P = tide.params({ liquid = "drops", res = 48, dim = 2, frames = 48, fps = 60, E = 5e4, cfl = 1, paper = false,
  vtk = false, image = 480, out = "" }, {
  liquid = "drops (Fig. 1) or dam (Fig. 2)", res = "cells across the unit box", dim = "2 or 3",
  E = "cloth Young's modulus [Pa]", cfl = "cells per step at the fastest face or vertex",
  paper = "Table I sizes: 3D, 192^3, CFL 0.7 (the cloth's vertices a cell apart: 2 x 154^2)",
  vtk = "write VTK files for ParaView", image = "PNG width in pixels",
})
if P.liquid ~= "drops" and P.liquid ~= "dam" then error("liu_cloth: --liquid must be drops or dam", 0) end
local out = P.out ~= "" and P.out or ("out/liu_cloth_" .. P.liquid)
local opts = { dim = P.dim, n = P.res, liquid = P.liquid, E = P.E, cfl = P.cfl }
if P.paper then opts.dim, opts.n, opts.cfl = 3, 192, 0.7 end
local S = L.cloth(opts)
local g, m = S.grid, S.mesh
print(string.format("liu_cloth (%s): %dD, %d cells per side, %d cloth vertices", P.liquid, g.dim, g.size[1], m.nv))

local function frame(i, t)
  local title = string.format("Liu: %s on a cloth  t = %.2f s", P.liquid == "dam" and "dam break" or "drops", t)
  local path = string.format("%s/frame_%04d.png", out, i)
  if g.dim == 2 then
    tide.fileio.png2d { path = path, grid = g, phi = S.phi, mesh = m, width = P.image, title = title }
  else
    tide.fileio.png3d { path = path, grid = g, phi = S.phi, meshes = { { mesh = m, color = { 0.85, 0.45, 0.25 } } },
      width = P.image, title = title }
  end
  if P.vtk then
    local f = string.format("%s/cloth_%04d.vtu", out, i)
    tide.fileio.vtu { path = f, mesh = m }
    tide.fileio.pvd(out .. "/cloth.pvd", t, f)
  end
end

local steps, iters = 0, 0
tide.run {
  frames = P.frames, fps = P.fps, out = out, params = P, name = "liu_cloth",
  max_dt = function() return liu.max_dt(S) end,
  step = function(dt)
    local st = liu.step(S, dt)
    liu.check(S)
    steps, iters = steps + 1, iters + st.iterations
  end,
  frame = frame,
}
print(string.format("%d steps, %.2f Newton iterations per step", steps, iters / math.max(1, steps)))
