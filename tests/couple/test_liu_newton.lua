-- Liu et al. Fig. 12 (Sec. 5.1 "line search and convergence"): Newton
-- iterations per step for a drop on a row of fixed vertices spaced dx (the
-- Fig. 11c top set-up, here thrown from higher so that it hits at 3 m/s, and
-- with the paper's plain first projection), at CFL 0.7 / 1.2 / 2.0, with and
-- without backtracking + CCD, cap 30.  The paper: without line search Newton
-- fails after contact at CFL 2 with penetration; with it every step converges
-- without penetration.  Tide: with line search + CCD no step penetrates and at
-- most 2 reach the cap; with full steps vertices end inside the liquid at every
-- CFL (the paper saw none at 0.7 and 1.2); the steps at the cap are printed.
local T = require "tide.testing"
local L = require "tide.cases.liu"

local res = {}
for _, ls in ipairs { true, false } do
  for _, cfl in ipairs { 0.7, 1.2, 2.0 } do
    local r = L.drop_on_row { n = 32, spacing = 1, frames = 30, cfl = cfl, line_search = ls, air_faces = false, row = 0.2,
      radius = 0.15, gap = 0.45 }
    res[#res + 1] = r
    print(string.format("%-16s CFL %.1f: contact from frame %s, %d steps, %.2f it/step (max %d), %d capped, %d steps penetrating",
      ls and "line search+CCD" or "full steps", cfl, tostring(r.contact_frame), r.steps, r.iters / r.steps, r.max_iters,
      r.capped, r.pen_steps))
    local tag = string.format("%s CFL %.1f", ls and "line search" or "full steps", cfl)
    if ls then
      T.check(r.pen_steps == 0 and r.min_d > 0, tag .. ": no vertex inside the liquid at any step")
      T.check(r.capped <= (cfl < 2 and 0 or 2), string.format("%s: %d steps at the cap", tag, r.capped))
    else
      -- full steps: vertices end inside the liquid after contact (the paper: at CFL 2.0; here at every CFL);
      -- the steps at the cap are printed, not asserted (they change with any change of the flow)
      T.check(r.pen_steps > 0, string.format("%s: penetrates (%d steps)", tag, r.pen_steps))
    end
  end
end
T.check(res[1].contact_frame and res[1].contact_frame > 5, "contact starts after the fall")
os.exit(T.report())
