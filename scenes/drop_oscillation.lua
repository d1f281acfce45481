-- Oscillating drop (2D or 3D): a water drop with an n = 2 perturbation rings
-- under surface tension, in zero gravity, air density 0.
--   build/tide scenes/drop_oscillation.lua [--dim 2|3] [--res 48] [--eps 0.1] [--angle 45] [--frames 60]
--     [--tension ghost|liu] [--curvature heights|cells] [--advect_u sl|maccormack|bfecc]
-- Grid-only level-set liquid (lua/tide/drop.lua): MacCormack level-set
-- advection with volume correction, ghost-fluid surface tension sigma kappa
-- (kappa by height functions at the interface crossings; --curvature cells:
-- the former cell curvature, 9% fast for a diagonal stretch at 32 cells),
-- ghost-fluid projection, optional variational viscosity (--nu).
-- 2D: r = R (1 + eps cos 2(theta - angle)), a liquid column; linear theory
-- omega^2 = n (n^2 - 1) sigma / (rho R^3) = 6 sigma / (rho R^3) (Rayleigh;
-- Lamb Sec. 275); the mode is measured on the quadrupole moment along the
-- stretch.  3D: r = R (1 + eps P2(cos t)), t from the axis (sin a, 0, cos a)
-- (a = angle), omega^2 = n (n - 1) (n + 2) sigma / (rho R^3) = 8 sigma /
-- (rho R^3) (Rayleigh 1879; Lamb Sec. 275), measured on the P2 moment along
-- the axis.  The run prints the measured frequency and the volume change.
-- Frames: out/drop_oscillation/frame_%04d.png (2D: pressure, surface,
-- velocity arrows; 3D: the surface), run manifest out/drop_oscillation/run.json.
local tide = require "tide"
local drop = require "tide.drop"

local P = tide.params({
  dim = 2, res = 48, R = 0.01, eps = 0.1, angle = 0, sigma = 0.0728, rho = 1000, nu = 0, frames = 60, periods = 2,
  tension = "ghost", curvature = "heights", advect_u = "sl", out = "out/drop_oscillation", png = true, image = 640,
}, {
  dim = "2 or 3", res = "cells per drop diameter", angle = "direction of the initial stretch [degrees] (3D: axis tilted from z towards x)",
  R = "drop radius [m]", eps = "relative amplitude of the n = 2 perturbation",
  sigma = "surface tension [N/m]", rho = "density [kg/m^3]", nu = "kinematic viscosity [m^2/s]",
  periods = "simulated time in linear-theory periods", tension = "ghost or liu",
  curvature = "heights or cells", advect_u = "velocity self-advection: sl, maccormack or bfecc", png = "write PNG frames",
  image = "PNG width in pixels",
})
if P.dim ~= 2 and P.dim ~= 3 then error("drop_oscillation: --dim must be 2 or 3") end

local omega = math.sqrt((P.dim == 3 and 8 or 6) * P.sigma / (P.rho * P.R ^ 3))
local period = 2 * math.pi / omega
local dx = 2 * P.R / P.res
local n = 2 * math.ceil(1.6 * P.R / dx)
local L = n * dx
local g, c, phi, mode
if P.dim == 2 then
  g = tide.grid.new { size = { n, n }, dx = dx }
  c = { L / 2, L / 2 }
  phi = drop.disk { grid = g, center = c, radius = P.R, eps = P.eps, angle = math.rad(P.angle) }
else
  g = tide.grid.new { size = { n, n, n }, dx = dx }
  c = { L / 2, L / 2, L / 2 }
end
local a = math.rad(P.angle)
local axis = { math.sin(a), 0, math.cos(a) }
if P.dim == 3 then phi = drop.sphere { grid = g, center = c, radius = P.R, eps = P.eps, axis = axis } end
local S = drop.new { grid = g, phi = phi, rho = P.rho, sigma = P.sigma, nu = P.nu, tension = P.tension,
  curvature = P.curvature, advect_u = P.advect_u }
local V0 = drop.volume(S)
print(string.format("drop (%dD): %d^%d cells, dx = %.3g m, R = %g m, linear period %.4f s", P.dim, n, P.dim, dx, P.R, period))

-- the n = 2 moment along the stretch
if P.dim == 2 then
  local ca, sa = math.cos(2 * a), math.sin(2 * a)
  mode = function()
    local q1, q2 = drop.quadrupole(S, c)
    return ca * q1 + sa * q2
  end
else
  mode = function() return drop.quadrupole(S, c, axis) end
end
local q_prev, t_prev, zeros = mode(), 0, {}
local prange = { 0.6 * P.sigma / P.R * (P.dim - 1), 1.4 * P.sigma / P.R * (P.dim - 1) }
local function write_frame(i, t)
  if not P.png then return end
  local path = string.format("%s/frame_%04d.png", P.out, i)
  local title = string.format("drop  t = %.3f s = %.2f T", t, t / period)
  if P.dim == 2 then
    tide.fileio.png2d {
      path = path, grid = g, width = P.image, field = S.pressure, range = prange, colormap = "viridis",
      colorbar_label = "p [Pa]", phi = S.phi, arrows = S.u, title = title,
    }
  else
    tide.fileio.png3d { path = path, grid = g, phi = S.phi, width = P.image, title = title }
  end
end

local result = tide.run {
  frames = P.frames, fps = P.frames / (P.periods * period), out = P.out, params = P, name = "drop_oscillation",
  max_dt = function() return drop.max_dt(S) end,
  step = function(dt)
    local st = drop.step(S, dt)
    local q = mode()
    if (q_prev > 0) ~= (q > 0) then zeros[#zeros + 1] = t_prev + (S.t - t_prev) * q_prev / (q_prev - q) end
    q_prev, t_prev = q, S.t
    return st
  end,
  frame = write_frame,
}
if #zeros >= 3 then
  local w = 2 * math.pi * (#zeros - 1) / 2 / (zeros[#zeros] - zeros[1])
  print(string.format("measured omega %.4f rad/s vs linear theory %.4f (%+.2f%%), volume change %+.4f%%, %d steps",
    w, omega, 100 * (w / omega - 1), 100 * (drop.volume(S) / V0 - 1), result.steps))
end
