-- Where the smoothed volume of tide.liu goes in a step (issue 16 [liu]): the change of
-- V = sum H(phi) dx^2 (the constrained quantity) by the advection of phi, its redistancing
-- (before the solve, redistance_at = "prediction", or after it, "after", with
-- liu.keep_contact then putting the stencils back) and the restoration by the solve's
-- volume constraint, per step, as a fraction of the drop's volume; split into the cells
-- within 3 dx of the row of vertices ("near") and the others.  Also the mean vertical
-- velocity on the liquid faces of the three cell rows above the row of vertices.
--   case = "row":    tide.cases.liu.drop_on_row (Fig. 11c; row at 0.3 m)
--   case = "ground": tide.cases.liu.drop_on_ground (Fig. 11b, no vertices)
--   build/tide scripts/liu_volume_budget.lua [--case row] [--res 64] [--spacing 1.8] [--frames 48]
--     [--redistance_at prediction] [--air_faces true] [--stencil_mass liquid]
-- The step's functions are wrapped (tide.grid.advect_scalar, tide.grid.redistance,
-- liu.keep_contact, tide.couple.liu_solve) to measure phi around each of them.
local tide = require "tide"
local liu = require "tide.liu"
local L = require "tide.cases.liu"
local grid, couple = tide.grid, tide.couple

local P = tide.params({ case = "row", res = 64, spacing = 1.8, frames = 48, redistance_at = "prediction",
  air_faces = true, stencil_mass = "liquid", keep_stencils = "raised" },
  { case = "row (Fig. 11c) or ground (Fig. 11b)", res = "cells across", spacing = "vertex spacing [dx]",
    frames = "frames of 1/60 s", redistance_at = "tide.liu's redistance_at", air_faces = "tide.liu's air_faces",
    stencil_mass = "tide.liu's stencil_mass", keep_stencils = "tide.liu's keep_stencils: raised, true or false" })
local keep = P.keep_stencils
if keep == "true" then keep = true elseif keep == "false" then keep = false end

local n = P.res
local dx, row = 1 / n, 0.3
local function H(p) local e = 2 * p / dx; return e > 700 and 0 or 1 / (1 + math.exp(e)) end
-- change of the smoothed volume from A to B, near the row and elsewhere [m^2]
local function dV(g, A, B)
  local near, far = 0, 0
  for i = 1, g.size[1] do
    for j = 1, g.size[2] do
      local d = (H(B:get(i, j)) - H(A:get(i, j))) * dx * dx
      if P.case == "row" and math.abs((j - 0.5) * dx - row) < 3 * dx then near = near + d else far = far + d end
    end
  end
  return near, far
end

local sum = { adv_n = 0, adv_f = 0, red_n = 0, red_f = 0, kc_n = 0, kc_f = 0, sol = 0, steps = 0 }
local V0
local o_adv, o_red, o_solve, o_keep = grid.advect_scalar, grid.redistance, couple.liu_solve, liu.keep_contact
local scratch
local counting = false
local function add(a, b, near, far) sum[a], sum[b] = sum[a] + near / V0, sum[b] + far / V0 end
grid.advect_scalar = function(o)
  local r = o_adv(o)
  if counting then add("adv_n", "adv_f", dV(o.grid, o.field, o.out)) end
  return r
end
grid.redistance = function(g, phi, opt)
  scratch = scratch or g:cells()
  scratch:copy(phi)
  local r = o_red(g, phi, opt)
  if counting then add("red_n", "red_f", dV(g, scratch, phi)) end
  return r
end
local kc
liu.keep_contact = function(S, before, phi, ...)
  phi = phi or S.phi
  kc = kc or S.grid:cells()
  kc:copy(phi)
  o_keep(S, before, phi, ...)
  if counting then add("kc_n", "kc_f", dV(S.grid, kc, phi)) end
end
couple.liu_solve = function(o)
  local vs = grid.volume(o.grid, o.phi_star)
  local st = o_solve(o)
  V0 = V0 or vs
  if counting then sum.sol, sum.steps = sum.sol + (grid.volume(o.grid, o.phi) - vs) / V0, sum.steps + 1 end
  counting = true -- from the second step (the first one's advection is not counted)
  return st
end

local vsum, vcount = 0, 0
local function frame(S, f)
  if P.case ~= "row" or f <= P.frames // 4 then return end
  local v, j0 = S.u:component(2), math.floor(row / dx) -- cell rows j0 .. j0 + 2 (0-based) above the row
  for i = 1, n do
    for j = j0 + 1, j0 + 3 do
      if S.phi:get(i, j + 1) < 0 then vsum, vcount = vsum + v:get(i, j + 1), vcount + 1 end
    end
  end
end
local r
if P.case == "row" then
  r = L.drop_on_row { n = n, spacing = P.spacing, frames = P.frames, redistance_at = P.redistance_at,
    air_faces = P.air_faces, stencil_mass = P.stencil_mass, keep_stencils = keep, frame = frame }
else
  r = L.drop_on_ground { n = n, volume = true, t_end = P.frames / 60, redistance_at = P.redistance_at }
end
grid.advect_scalar, grid.redistance, couple.liu_solve, liu.keep_contact = o_adv, o_red, o_solve, o_keep

local m = math.max(1, sum.steps)
print(string.format("%s, %d cells, %s, %d frames, %d steps%s", P.case, n, P.redistance_at, P.frames, r.steps,
  P.case == "row" and string.format(", spacing %.2f dx, leak %.3f", P.spacing, r.leak) or
  string.format(", max |V/V0 - 1| after the steps %.2e", r.max_vol)))
print("mean change of the smoothed volume per step, fraction of the drop's (near: within 3 dx of the row):")
print(string.format("  advection     %+.2e  (near %+.2e, elsewhere %+.2e)", (sum.adv_n + sum.adv_f) / m, sum.adv_n / m, sum.adv_f / m))
print(string.format("  redistancing  %+.2e  (near %+.2e, elsewhere %+.2e)", (sum.red_n + sum.red_f) / m, sum.red_n / m, sum.red_f / m))
if P.case == "row" and (P.redistance_at == "after" or keep) then
  print(string.format("  keep_contact  %+.2e  (near %+.2e, elsewhere %+.2e)", (sum.kc_n + sum.kc_f) / m, sum.kc_n / m, sum.kc_f / m))
end
print(string.format("  solve         %+.2e  (the volume constraint's restoration)", sum.sol / m))
print(string.format("  %.2f Newton iterations per step, %d capped", r.iters / r.steps, r.capped))
if vcount > 0 then
  print(string.format("  mean vertical velocity of the liquid in the 3 cell rows above the vertices (last 3/4 of the frames): %.2f m/s", vsum / vcount))
end
