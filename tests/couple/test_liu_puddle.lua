-- A thin puddle keeps its volume (no solid): a drop of radius 1.6 cells thrown at
-- the floor at 3 m/s spreads to a film thinner than half a cell.  Its smoothed
-- volume (Eq. 11) then sits in cells around phi = 0; one advection later no cell
-- centre is liquid, the volume tracker finds no component there and the reference
-- volume is dropped: the whole drop vanished in one step.  With tide.liu's keep
-- (tide.VolumeTracker:keep on phi*, step 3b) such a film gathers into its
-- round(V0 / V_cell) deepest cells: the volume stays within 0.1% of the reference
-- at every step and liquid cells remain.  Also: VolumeTracker:keep on its own.
local tide = require "tide"
local T = require "tide.testing"
local liu = require "tide.liu"
local drop = require "tide.drop"
local L = require "tide.cases.liu"

local function puddle(keep)
  local n = 32
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local S = liu.new { grid = g, phi = drop.disk { grid = g, center = { 0.5, 0.3 }, radius = 0.05 },
    gravity = { 0, -9.81 }, keep = keep }
  S.u:component(2):fill(-3)
  S.u:enforce_walls(nil, false)
  local V0, A0 = S.tracker.volume, L.area(g, S.phi) -- the reference: the redistanced drop's
  local r = { max_vol = 0, min_area = math.huge, max_err = 0, kept = 0, steps = 0, wet = 0 }
  while S.t < 0.8 do
    local st = liu.step(S, liu.max_dt(S))
    r.steps, r.kept = r.steps + 1, r.kept + st.kept
    r.max_vol = math.max(r.max_vol, math.abs(liu.volume(S) / V0 - 1))
    r.min_area = math.min(r.min_area, L.area(g, S.phi) / A0)
    if st.components > 0 then r.max_err = math.max(r.max_err, st.vol_err) end
  end
  for i = 1, n do for j = 1, n do if S.phi:get(i, j) < 0 then r.wet = r.wet + 1 end end end
  r.ref = S.tracker.volume / V0 - 1
  return r
end

local on, off = puddle(true), puddle(false)
print(string.format("keep:    %d steps, %d gathers, max |V/V0 - 1| %.2e, solve's worst component %.2e, "
  .. "smallest sharp area %.2f of the drop's, %d liquid cells at the end", on.steps, on.kept, on.max_vol, on.max_err,
  on.min_area, on.wet))
print(string.format("no keep: max |V/V0 - 1| %.2e, smallest sharp area %.2f, %d liquid cells at the end, reference %.2e",
  off.max_vol, off.min_area, off.wet, off.ref))
T.check(off.wet == 0 and off.max_vol > 0.5, "without keep the puddle vanishes (the failure this guards against)")
T.check(on.kept > 0, "the film was gathered")
T.check(on.max_vol < 1e-3, string.format("volume within 0.1%% of the reference at every step (%.2e)", on.max_vol))
T.check(on.max_err < 1e-3, string.format("every component within 0.1%% after the solve (%.2e)", on.max_err))
T.check(math.abs(on.ref) < 1e-12, "the tracker's reference volume is unchanged")
T.check(on.wet > 0 and on.min_area > 0.5, string.format("liquid cells remain (%d; sharp area >= %.2f)", on.wet, on.min_area))

do -- VolumeTracker:keep alone: a component lifted to a film above phi = 0 gathers into its deepest cells
  local n = 16
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local phi = drop.disk { grid = g, center = { 0.5, 0.5 }, radius = 0.15 }
  local vt = tide.grid.volume_tracker { grid = g, phi = phi }
  local V = vt.volume
  local film = g:cells()
  for i = 1, n do for j = 1, n do film:set(i, j, math.abs(phi:get(i, j)) * 0.05 + 0.01 * g.dx + 0.1 * g.dx * (j - 8) ^ 2 / 64) end end
  local a = film:checksum()
  T.check(vt:keep(film, 0) == 1, "a component with no liquid cell left is gathered")
  local wet = 0
  for i = 1, n do for j = 1, n do if film:get(i, j) < 0 then wet = wet + 1; T.check(film:get(i, j) <= -0.5 * g.dx, "half a cell deep") end end end
  T.check(wet == math.floor(V / g.dx ^ 2 + 0.5), string.format("round(V0 / V_cell) = %d liquid cells (%d)", math.floor(V / g.dx ^ 2 + 0.5), wet))
  tide.grid.redistance(g, film) -- as tide.liu does after keep
  local st = vt:correct(film)
  vt:correct(film) -- a second pass from the redistanced field (a correction of a few % stalls in one)
  print(string.format("keep alone: %d liquid cells, V after correct / V0 - 1 = %.2e (before %.2e)", wet,
    tide.grid.volume(g, film) / V - 1, st.error_before))
  T.check(math.abs(tide.grid.volume(g, film) / V - 1) < 1e-2, "redistanced and corrected, the volume is restored")
  T.check(not pcall(vt.keep, vt, film, 2 * g.dx), "depth above dx is an error")
  T.check(not pcall(vt.keep, vt, g:cells("f32")), "phi must be f64 cells")
  T.check(a ~= film:checksum(), "keep writes phi in place")
  -- VolumeTracker:add: a body of liquid and its reference volume
  local n0 = vt.components
  vt:add(drop.disk { grid = g, center = { 0.2, 0.8 }, radius = 0.1 }, 0.03)
  T.check(vt.components == n0 + 1 and math.abs(vt:volumes()[n0 + 1] - 0.03) < 1e-15, "add: one more component with its volume")
  T.check(not pcall(vt.add, vt, film, -1), "add: a negative volume is an error")
  T.check(not pcall(vt.add, vt, film), "add: the volume is required")
end
os.exit(T.report())
