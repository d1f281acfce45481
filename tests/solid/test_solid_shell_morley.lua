-- Morley bending (bending_model = "morley", docs/shells.md) against
-- Euler-Bernoulli on the cantilevered shell strip (lua/tide/cases/shell_strip.lua:
-- tip load, nu = 0, two-column clamp, an O(h) error):
--  * on the sheet generator's default alternating grid with square cells,
--    where the triangle fit is 35-45% too soft (a checkerboard mode): within
--    3% on the finest strip (80 x 4), shrinking with refinement;
--  * on the four-triangle "cross" grid and on irregular strips (hashed
--    diagonals, nodes jittered by 25% of a cell, valences 3..8): shrinking,
--    within 3% on the finest, the irregular strip the alternating grid's
--    deflection to 0.5% (mesh independent), where the hinges differ by 20%
--    and more.
local T = require "tide.testing"
local strip = require "tide.cases.shell_strip"

local function tip(m, n, bm)
  local err, st = strip.solve(m, n, bm)
  T.check(st.converged, bm .. " strip converged")
  return err
end

local alt = {}
for k, n in ipairs { 20, 40, 80 } do
  alt[k] = tip(strip.sheet(n, n // 20, "alternate"), n, "morley")
  print(string.format("strip %2d x %d cells, alternating grid, Morley bending: %+.2f%%", n, n // 20, 100 * alt[k]))
end
for k = 2, #alt do T.check(math.abs(alt[k]) < math.abs(alt[k - 1]), "Morley, alternating grid: error shrinks") end
T.check(math.abs(alt[#alt]) <= 0.03, string.format("Morley, alternating grid within 3%% (%.2f%%)", 100 * alt[#alt]))
local tri = tip(strip.sheet(20, 1, "alternate"), 20, "triangle")
print(string.format("strip 20 x 1 cells, alternating grid, triangle bending: %+.2f%%", 100 * tri))
T.check(tri > 0.2, "triangle bending on the alternating grid is too soft (the check can fail)")

local cr, irr = {}, {}
for k, n in ipairs { 20, 40, 80 } do
  cr[k] = tip(strip.sheet(n, n // 20, "cross"), n, "morley")
  irr[k] = tip(strip.irregular(n, n // 10, 0.25, 7), n, "morley")
  local hinge = tip(strip.irregular(n, n // 10, 0.25, 7), n, "hinge")
  print(string.format("strip %2d cells long, Morley: cross grid %+.2f%%, irregular (x %d) %+.2f%% (alternating grid %+.2f%%), hinges there %+.2f%%",
    n, 100 * cr[k], n // 10, 100 * irr[k], 100 * alt[k], 100 * hinge))
  T.check(math.abs(irr[k] - alt[k]) <= 0.005, "Morley: the irregular strip bends as the regular one")
  T.check(math.abs(hinge - alt[k]) > 0.05, "hinges on the irregular strip differ (the check can fail)")
end
for _, e in ipairs { { cr, "cross" }, { irr, "irregular" } } do
  local v, name = e[1], e[2]
  for k = 2, #v do T.check(math.abs(v[k]) < math.abs(v[k - 1]), "Morley, " .. name .. ": error shrinks") end
  T.check(math.abs(v[#v]) <= 0.03, string.format("Morley, %s within 3%% (%.2f%%)", name, 100 * v[#v]))
end

os.exit(T.report())
