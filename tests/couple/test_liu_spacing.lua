-- Liu et al. Fig. 11c (Sec. 5.1 "particle spacing and penetration"): a drop
-- (radius 0.2 m, 32^2 cells) with initial velocity (0, -1 m/s) falls under
-- gravity on a row of fixed vertices.  Spacing 1 dx: a tight wall; 5 dx: the
-- liquid passes between the vertices (porous) while no vertex is ever inside
-- the liquid.  Tide holds the liquid up to 2 dx (the paper sees jitter from
-- about 1.8 dx); figures/liu_spacing.lua sweeps the onset.
local T = require "tide.testing"
local L = require "tide.cases.liu"

for _, sp in ipairs { 1.0, 2.0, 5.0 } do
  local r = L.drop_on_row { n = 32, spacing = sp, frames = 30 }
  print(string.format("spacing %.1f dx: %d vertices, %d steps, %d penetrating, min d %.3f dx, %.2f it/step, %d capped, leak %.3f",
    sp, r.nv, r.steps, r.pen_steps, r.min_d * 32, r.iters / r.steps, r.capped, r.leak))
  T.check(r.pen_steps == 0 and r.min_d > 0, string.format("%.1f dx: no vertex inside the liquid at any step", sp))
  if sp <= 2 then
    T.check(r.leak == 0, string.format("%.1f dx: a tight wall (leak %.3f)", sp, r.leak))
  else
    T.check(r.leak > 0.3, string.format("%.1f dx: porous (leak %.3f)", sp, r.leak))
  end
end

-- 64 cells: the row (y = 0.3 m = 19.2 dx) lies 0.3 dx below a row of cell centres, so the liquid
-- resting on it fills cells whose centres are above the row while the cells just below are in every
-- vertex's stencil.  Before two fixes this leaked: at 1.0 dx 5% by frame 36 (a film breaking on the
-- row got 2.2x its volume as its target -- the tracker split volumes by cell counts -- and the solve
-- inflated it through the row), at 1.2 and 1.6 dx 35-45% by frame 20 (the barrier met by raising
-- the one air cell of each stencil, 1e3 times lighter than liquid under Eq. 13, to 7-11 dx while
-- the liquid flowed on between the vertices; the stencils now weigh a liquid cell).
for _, c in ipairs { { 1.0, 36 }, { 1.2, 20 }, { 1.6, 20 } } do
  local sp, frames = c[1], c[2]
  local r = L.drop_on_row { n = 64, spacing = sp, frames = frames }
  print(string.format("64 cells, spacing %.1f dx, %d frames: %d steps, %d penetrating, min d %.3f dx, %.2f it/step, %d capped, leak %.3f",
    sp, frames, r.steps, r.pen_steps, r.min_d * 64, r.iters / r.steps, r.capped, r.leak))
  T.check(r.pen_steps == 0 and r.min_d > 0, string.format("64 cells, %.1f dx: no vertex inside the liquid", sp))
  T.check(r.leak == 0, string.format("64 cells, %.1f dx: a tight wall (leak %.3f)", sp, r.leak))
end
-- 1.8 dx, the paper's jitter onset.  keep_stencils = false (phi*'s march resets every stencil cell;
-- the default before issue 16): tight with the stencils at a liquid cell's mass; with Eq. 13's
-- masses there too (stencil_mass = "lagged", the paper's) the liquid passes between the vertices
-- (57% below the row by frame 24).  Why (docs/couple.md, "Eq. 13 in the stencils"): each step the
-- volume constraint puts back the smoothed volume the step lost by lowering every light air cell at
-- the surface, the cells under the gaps of the row too; the barrier, which sees a gap column with
-- weight 0.1 at most, answers by raising the lightest cell of each stencil (the air cell under the
-- vertex, 1e-2 of a liquid cell's mass) to 3 dx and more instead of holding the gap cells up.
-- Asserted: that spike (the largest phi in the cell row below the vertex row, from contact on) and
-- the leak.  keep_stencils = "raised" (the default): the march lowers no stencil cell below what the
-- last solve's barrier raised it to, the liquid rests on the row instead of falling in u on an air
-- cushion, the step loses 6 times less volume for the constraint to put back (test_liu_redistance)
-- and the wall holds; with "lagged" it still leaks, less (docs/couple.md).
local row_j = math.floor(0.3 * 64) -- 1-based cell row just below the vertex row (centre 18.5 dx)
for _, keep in ipairs { false, "raised" } do
  for _, sm in ipairs { "liquid", "lagged" } do
    local spike = 0
    local r = L.drop_on_row { n = 64, spacing = 1.8, frames = 24, stencil_mass = sm, keep_stencils = keep,
      frame = function(S, f)
        if f < 8 then return end -- contact from frame 5, liquid on the row from about frame 8
        for i = 20, 45 do spike = math.max(spike, S.phi:get(i, row_j) * 64) end
      end }
    local what = string.format("64 cells, 1.8 dx, stencil_mass %s, keep_stencils %s", sm, tostring(keep))
    print(string.format("%s: %d steps, %d penetrating, leak %.3f, largest phi under the row %.2f dx",
      what, r.steps, r.pen_steps, r.leak, spike))
    T.check(r.pen_steps == 0, what .. ": no vertex inside the liquid")
    if keep and sm == "liquid" then
      T.check(r.leak == 0, string.format("%s: a tight wall (leak %.3f)", what, r.leak))
    elseif keep then
      -- Eq. 13's masses: the volume correction lowers the gap cells, which the barrier did not raise
      -- and the keep does not hold (0.108; 0.572 without the keep, 0.004 with keep_stencils = true)
      T.check(r.leak < 0.25, string.format("%s: less porous than without the keep (leak %.3f < 0.25)", what, r.leak))
    elseif sm == "liquid" then
      T.check(r.leak == 0, string.format("%s: a tight wall (leak %.3f)", what, r.leak))
      T.check(spike < 1.5, string.format("%s: the cells under the row stay a distance (%.2f dx < 1.5)", what, spike))
    else
      T.check(r.leak > 0.3, string.format("%s: porous (leak %.3f)", what, r.leak))
      T.check(spike > 2.5, string.format("%s: the air cell under a vertex raised (%.2f dx > 2.5)", what, spike))
    end
  end
end
os.exit(T.report())
