-- Frame timing of tide.run (issue 11, item 6): a step bound that divides a
-- frame evenly is taken as it is (max_dt = 1/120 at 30 fps: 4 steps of
-- exactly 1/120 per frame, 24 for 6 frames), any other bound cuts what is
-- left of the frame into equal steps no larger than the bound, and every
-- frame ends on its time i / fps.
local tide = require "tide"
local T = require "tide.testing"

local function run(bound, fps, frames)
  local dts, ends = {}, {}
  local r = tide.run { frames = frames, fps = fps, quiet = true,
    max_dt = function(t) return type(bound) == "function" and bound(t) or bound end,
    step = function(dt, t) dts[#dts + 1] = { dt = dt, t = t } end,
    frame = function(i, t) ends[i] = t end }
  return r, dts, ends
end

-- bounds that divide the frame: exactly frame / bound steps, each the bound itself
for _, c in ipairs { { 1 / 120, 30, 6, 24 }, { 1 / 60, 30, 6, 12 }, { 1 / 90, 30, 6, 18 }, { 0.01, 25, 10, 40 },
  { 1 / 240, 24, 5, 50 }, { 1 / 30, 30, 4, 4 }, { 0.001, 10, 2, 200 } } do
  local bound, fps, frames, want = c[1], c[2], c[3], c[4]
  local r, dts, ends = run(bound, fps, frames)
  T.check(r.steps == want and #dts == want, string.format("max_dt %.6g at %d fps, %d frames: %d steps (want %d)",
    bound, fps, frames, r.steps, want))
  local worst = 0
  for _, s in ipairs(dts) do worst = math.max(worst, math.abs(s.dt - bound) / bound) end
  T.check(worst <= 1e-9, string.format("max_dt %.6g: every step is the bound (worst %.2e)", bound, worst))
  for i = 1, frames do
    T.check(ends[i] == i / fps, string.format("frame %d ends at %.17g = %d/%d", i, ends[i], i, fps))
  end
end

-- a bound that does not divide: ceil(frame / bound) equal steps per frame, none above the bound
for _, c in ipairs { { 0.01, 30, 7 }, { 0.001, 30, 3 }, { 1 / 7, 1, 3 }, { 0.3, 1, 2 } } do
  local bound, fps, frames = c[1], c[2], c[3]
  local per = math.ceil(1 / fps / bound)
  local r, dts = run(bound, fps, frames)
  T.check(r.steps == per * frames, string.format("max_dt %.6g at %d fps: %d steps (want %d)", bound, fps, r.steps,
    per * frames))
  local lo, hi = math.huge, 0
  for _, s in ipairs(dts) do lo, hi = math.min(lo, s.dt), math.max(hi, s.dt) end
  T.check(hi <= bound * (1 + 1e-10), "no step above the bound: " .. hi)
  T.check((hi - lo) / hi < 1e-9, string.format("equal steps: %.17g .. %.17g", lo, hi))
end

-- a bound that changes during the frame (a CFL bound): steps never exceed it
local function cfl(t) return 0.004 + 0.003 * math.sin(40 * t) ^ 2 end
local r, dts, ends = run(cfl, 30, 5)
local over = 0
for _, s in ipairs(dts) do over = math.max(over, s.dt / cfl(s.t) - 1) end
T.check(over <= 1e-10, "a varying bound is respected (worst excess " .. over .. ")")
T.check(ends[5] == 5 / 30, "frames end on their times")
T.check(r.steps >= math.ceil(5 / 30 / 0.007), "at least the steps of the largest bound")

-- no bound: one step per frame
r = run(math.huge, 30, 3)
T.check(r.steps == 3, "no bound: one step per frame")

os.exit(T.report())
