-- Issue 16: one keep_stencils rule for both set-ups -- Fig. 11c's drop resting on a row of
-- fixed vertices (64 cells, row at y = 19.2 dx) and test_liu_held's Bo 0.2 drop (--Bo) held on two
-- isolated points (contact "vertices" and "segments").  For the rule given:
--   held: the centre's range over 0.3-0.6 s (sampled every 0.01 s, test_liu_held's "rocking"
--         bound: < 2 dx = 0.042 m) and its mean velocity over the last 0.05 s (bound 0.05 m/s);
--   row:  at 1.8 dx, 24 frames, the solve's restoration |V(phi^{n+1}) - V(phi*)| / V per
--         frame from frame 8 and the mean vertical velocity of the liquid in the three cell rows
--         above the row (test_liu_redistance's bounds: < 4e-3, > -0.2 m/s, leak 0); the leak
--         (liquid more than a cell below the row at the end) at the spacings of --spacings, 48 frames.
--   build/tide scripts/liu_keep_rules.lua --keep_stencils raised [--spacings 1.8,1.9,2.0,2.05,2.1]
--     [--held true] [--row true]
local tide = require "tide"
local L = require "tide.cases.liu"
local U = dofile(require("tide.testing").source("tests/couple/liu_held_util.lua"))

local P = tide.params({ keep_stencils = "raised", spacings = "1.8,1.9,2.0,2.05,2.1", held = true, row = true,
  frames = 48, Bo = 0.2 }, { keep_stencils = "tide.liu's keep_stencils (true, false, raised, below, raised_below, raised_air)",
  spacings = "row spacings [dx] for the leak", held = "run the held drop", row = "run the row", frames = "row frames",
  Bo = "the held drop's Bond number (held up to about 0.53)" })
local ks = P.keep_stencils
if ks == "true" then ks = true elseif ks == "false" then ks = false end
local c0 = os.clock()

if P.held then
  for _, contact in ipairs { "vertices", "segments" } do
    local S, geom = L.held_on_points { Bo = P.Bo, contact = contact, keep_stencils = ks }
    local r = U.run(S, 0.6, geom.centre, 0.05, 0.01)
    local lo, hi = math.huge, -math.huge
    for k = 31, #r.track do lo, hi = math.min(lo, r.track[k]), math.max(hi, r.track[k]) end
    print(string.format("held Bo %.2f %-8s keep_stencils %-12s centre 0.3-0.6 s %.3f-%.3f m (range %.3f m = %.2f dx), v %+.3f m/s, "
      .. "pen %d, min d %.2f dx, drift %.1e, %d steps", P.Bo, contact, tostring(ks), lo, hi, hi - lo, (hi - lo) / geom.dx, r.v,
      r.pen, r.min_d / geom.dx, r.drift, r.steps))
  end
end

if P.row then
  local r = L.row_at_rest { keep_stencils = ks }
  print(string.format("row 1.8 dx 24 frames keep_stencils %s: restoration %.2e per step, liquid above the row %.2f m/s, "
    .. "leak %.3f, pen steps %d", tostring(ks), r.restoration, r.v_above, r.leak, r.pen_steps))
  local leaks = {}
  for v in P.spacings:gmatch("[^,]+") do
    local q = L.drop_on_row { n = 64, spacing = tonumber(v), frames = P.frames, keep_stencils = ks }
    leaks[#leaks + 1] = string.format("%s: %.3f%s", v, q.leak, q.pen_steps > 0 and " (PEN)" or "")
  end
  print(string.format("row leak (%d frames) keep_stencils %s: %s", P.frames, tostring(ks), table.concat(leaks, ", ")))
end
print(string.format("%.1f s CPU", os.clock() - c0))
