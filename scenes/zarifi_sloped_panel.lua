-- Liquid falling on a sloped elastic panel (Zarifi, thesis §6.1.4, Fig. 6.4): a thin rectangular
-- panel tilted by --slope degrees, constrained along its two sloped sides, catches a block of
-- water, bends under it, and the water slides down the slope and off its lower edge (free slip at
-- the solid: no grid artefacts hold it back); the panel then rebounds towards its rest shape.
--   build/tide scenes/zarifi_sloped_panel.lua [--res 32] [--dim 2|3] [--frames 48] [--scheme spd|...]
--   build/tide scenes/zarifi_sloped_panel.lua --paper   (Table 6.1 "Thin Solid 1": 3D, 100^3 grid,
--                                                       882 nodes / 2400 tets, 20 x 20 x 1 cubes)
-- In 2D the panel is a sloped slab clamped at both ends (the slice has no sloped sides).
-- Strong coupling in one pressure solve: lua/tide/zarifi.lua (Algorithm 4).
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = zarifi.scene_params({ out = "out/zarifi_sloped_panel", E = 2e6, nu = 0.3, density = 500, thick = 0.05,
  slope = 25, tau_m = 0.5, tau_k = 0.002 }, {
  E = "panel's Young's modulus [Pa]", nu = "Poisson's ratio", density = "panel density [kg/m^3]",
  thick = "panel thickness [m]", slope = "tilt of the panel [degrees]", tau_m = "Rayleigh mass damping [1/s]",
  tau_k = "Rayleigh stiffness damping [s]",
})
local g, dim, dx = zarifi.scene_grid(P)
-- the panel: L along the slope, tilted about its centre c (down towards +x)
local L, t, W = 0.7, P.thick, 0.6
local c = { 0.5, 0.4, 0.5 }
local n = P.paper and 20 or math.max(8, math.floor(L / (1.5 * dx) + 0.5))
local nt = P.paper and 1 or math.max(1, math.floor(t / (1.5 * dx) + 0.5))
local box
if dim == 2 then
  box = tide.solid.box { min = { -L / 2, -t / 2 }, max = { L / 2, t / 2 }, cells = { n, nt } }
else
  box = tide.solid.box { min = { -L / 2, -t / 2, -W / 2 }, max = { L / 2, t / 2, W / 2 },
    cells = { n, nt, P.paper and 20 or math.max(6, math.floor(W / (1.5 * dx) + 0.5)) } }
end
local th = math.rad(P.slope)
local co, si = math.cos(th), math.sin(th)
local X = box.x:clone()
for q = 1, box.nv do
  local a, b = box.x:get(q, 1), box.x:get(q, 2)
  X:set(q, 1, c[1] + co * a + si * b)
  X:set(q, 2, c[2] - si * a + co * b)
  if dim == 3 then X:set(q, 3, c[3] + box.x:get(q, 3)) end
end
local panel = tide.solid.mesh { nodes = X, elements = box:elements() }
panel:material { model = "corotational", E = P.E, nu = P.nu, density = P.density, rayleigh_mass = P.tau_m,
  rayleigh_stiffness = P.tau_k }
-- constrained along the two sloped sides (3D: z = min / max), or at both ends (2D)
local eps, pins = 1e-6, {}
for q = 1, box.nv do
  local e = dim == 2 and box.x:get(q, 1) or box.x:get(q, 3)
  local h = dim == 2 and L / 2 or W / 2
  if math.abs(e) > h - eps then pins[#pins + 1] = q end
end
panel:pin(pins)
-- the water: a block above the panel's upper half
local wb = dim == 2 and { min = { 0.28, 0.66 }, max = { 0.5, 0.92 } } or { min = { 0.28, 0.66, 0.35 }, max = { 0.5, 0.92, 0.65 } }
local ps = zarifi.seed(g, { box = wb }, { panel }, P.per_cell > 0 and P.per_cell or nil)
local S = zarifi.new { grid = g, particles = ps, solids = { panel }, scheme = P.scheme, sampling = P.sampling, cfl = P.cfl }
-- the panel's mid-line deflection normal to its rest plane, and the liquid's mean position
local nrm = { si, co }
local function deflection()
  local s, k = 0, 0
  for q = 1, panel.nv do
    if math.abs(box.x:get(q, 1)) < L / 4 and (dim == 2 or math.abs(box.x:get(q, 3)) < W / 8) then
      s = s + (panel.x:get(q, 1) - X:get(q, 1)) * nrm[1] + (panel.x:get(q, 2) - X:get(q, 2)) * nrm[2]
      k = k + 1
    end
  end
  return s / math.max(k, 1)
end
local function liquid_x()
  local x = ps.x
  local s = 0
  for p = 1, #ps do s = s + x:get(p, 1) end
  return s / math.max(#ps, 1)
end
local x0, dmin = liquid_x(), 0
zarifi.run_scene(S, P, "zarifi_sloped_panel", "sloped panel", function()
  print(string.format("panel middle: largest deflection %.4f m (downwards), now %.4f m; liquid mean x %.3f m (start %.3f)",
    -dmin, -deflection(), liquid_x(), x0))
end, function() dmin = math.min(dmin, deflection()) end)
