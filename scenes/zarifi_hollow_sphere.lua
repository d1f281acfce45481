-- Liquid inside a thick hollow elastic sphere (Zarifi, thesis §6.1.5, Figs. 6.5-6.6): a ball of
-- water thrown sideways inside the shell (--speed, Fig. 6.6) drags the falling sphere along, into
-- the right wall, off which it bounces; with --uneven the water starts at rest but fills only the
-- right part of the cavity, and the sphere bounces off the floor towards its heavier side (Fig. 6.5).
--   build/tide scenes/zarifi_hollow_sphere.lua [--res 32] [--dim 2|3] [--frames 48] [--speed 3] [--uneven]
--   build/tide scenes/zarifi_hollow_sphere.lua --paper   (Table 6.1 "Fluid in Sphere": 3D, 100^3 grid;
--                                                        the thesis's shell has 992 nodes / 2948 tets)
-- In 2D the shell is a thick ring.  Strong coupling in one pressure solve: lua/tide/zarifi.lua.
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = zarifi.scene_params({ out = "out/zarifi_hollow_sphere", E = 1e6, nu = 0.3, density = 500, R = 0.2, r = 0.14,
  speed = 3, uneven = false, tau_m = 0.5, tau_k = 0.002, height = 0.5, fractions = "node", solid_faces = true, mass_consistent = true }, {
  E = "shell's Young's modulus [Pa]", nu = "Poisson's ratio", density = "shell density [kg/m^3]",
  R = "outer radius [m]", r = "inner radius [m]", speed = "initial speed of the water (+x) [m/s]",
  uneven = "Fig. 6.5: water at rest in the right part of the cavity instead of a thrown ball",
  tau_m = "Rayleigh mass damping [1/s]", tau_k = "Rayleigh stiffness damping [s]",
  height = "height of the sphere's centre at the start [m]",
  solid_faces = "the liquid's closed faces inside the shell carry its velocity (false: 0; the water is dragged)",
  mass_consistent = "the particles receive the projection's change by its face masses (zarifi.new mass_consistent, the recipe's default: momentum kept through the impacts; --mass_consistent=false: the kernel-mass transfer, which leaks horizontal momentum and lets the --uneven sphere travel right)",
  fractions = "solid face fractions: node (node SDF, section 5.4) or exact (clipped; with --sampling cell the projection conserves momentum)",
})
if not (P.r > 0 and P.r < P.R) then error("--r must be in (0, R)", 0) end
local g, dim, dx = zarifi.scene_grid(P)
local c = dim == 2 and { 0.4, P.height } or { 0.4, P.height, 0.5 }
local shell_shape = tide.shape.difference(tide.shape.sphere { center = c, radius = P.R },
  tide.shape.sphere { center = c, radius = P.r })
-- lattice spacing: about 3 elements across the wall; --paper: about 990 nodes / 3300 tets (the
-- thesis: 992 / 2948)
local h = P.paper and (P.R - P.r) / 1.4 or math.max((P.R - P.r) / 3, 0.75 * dx)
local shell = tide.solid.bcc { shape = shell_shape, h = h }
shell:material { model = "corotational", E = P.E, nu = P.nu, density = P.density, rayleigh_mass = P.tau_m,
  rayleigh_stiffness = P.tau_k }
-- the water, kept a quarter cell off the inner wall
local gap = 0.25 * dx
local phi
if P.uneven then -- the cavity right of x = c + 0.2 r
  phi = tide.shape.intersection(tide.shape.sphere { center = c, radius = P.r - gap },
    tide.shape.box { min = dim == 2 and { c[1] + 0.2 * P.r, 0 } or { c[1] + 0.2 * P.r, 0, 0 },
      max = dim == 2 and { 1, 1 } or { 1, 1, 1 } }):sdf(g)
else
  phi = tide.shape.sphere { center = c, radius = 0.75 * P.r }:sdf(g)
end
local ps = tide.liquid.seed { grid = g, phi = phi, per_cell = P.per_cell > 0 and P.per_cell or nil,
  velocity = dim == 2 and { P.uneven and 0 or P.speed, 0 } or { P.uneven and 0 or P.speed, 0, 0 } }
if P.fractions ~= "node" and P.fractions ~= "exact" then error("--fractions must be node or exact", 0) end
local S = zarifi.new { grid = g, particles = ps, solids = { shell }, scheme = P.scheme, sampling = P.sampling, cfl = P.cfl,
  fractions = P.fractions, solid_faces = P.solid_faces, mass_consistent = P.mass_consistent }
local liquid_mass = #ps * S.rho * dx ^ dim / (P.per_cell > 0 and P.per_cell or 2 ^ dim)
print(string.format("shell %.3g kg, water %.3g kg (%s)", shell.mass:sum(), liquid_mass,
  P.uneven and "at rest in the right part of the cavity" or string.format("a ball thrown at %.3g m/s", P.speed)))
local x0 = zarifi.centroid(shell)[1]
local xmax, vmax, bounce = x0, 0, nil
zarifi.run_scene(S, P, "zarifi_hollow_sphere", "hollow sphere", function()
  local cc, v = zarifi.centroid(shell)
  print(string.format("shell centre x %.3f m (start %.3f, furthest right %.3f, %.3f m from the right wall), "
    .. "fastest vx %.3f m/s, now vx %.3f m/s%s", cc[1], x0, xmax, 1 - (xmax + P.R), vmax, v[1],
    bounce and string.format("; bounced back (vx < 0) at t = %.3f s", bounce) or "; no bounce back"))
end, function(St)
  local cc, v = zarifi.centroid(shell)
  xmax, vmax = math.max(xmax, cc[1]), math.max(vmax, v[1])
  if not bounce and vmax > 0.05 and v[1] < -0.05 then bounce = St.t end
end)
