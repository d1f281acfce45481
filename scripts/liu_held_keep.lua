-- Why keep_stencils makes test_liu_held's drop (Bo 0.2, two fixed points) bounce
-- (docs/couple.md, "Where the volume goes"): per step, the change of the smoothed volume
-- (fraction of V0) by the march (tide.grid.redistance), by liu.keep_contact and by the
-- solve (tide.couple.liu_solve: the volume multiplier's correction), the number of cells the
-- keep changed, and the centre of the liquid; at the end the centre's range and the mean of
-- each change over [--from, --tend], and the centre's mean velocity over the last 0.05 s.
--   build/tide scripts/liu_held_keep.lua [--contact segments] [--keep_stencils raised] [--tend 0.6]
--     [--from 0.3] [--every 20] [--cells false]
local tide = require "tide"
local liu = require "tide.liu"
local drop = require "tide.drop"
local grid, couple = tide.grid, tide.couple

local P = tide.params({ contact = "segments", keep_stencils = "raised", tend = 0.6, from = 0.3, every = 20, cells = false },
  { contact = "tide.liu's contact", keep_stencils = "tide.liu's keep_stencils: raised, true or false",
    tend = "end time [s]", from = "start of the averages [s]", every = "print every this many steps",
    cells = "print the cells the keep changed (1-based i,j: marched > kept, in dx)" })

local keep = P.keep_stencils
if keep == "true" then keep = true elseif keep == "false" then keep = false end
local S, geom = require("tide.cases.liu").held_on_points { Bo = 0.2, contact = P.contact, keep_stencils = keep }
local g, centre, dx = S.grid, geom.centre, geom.dx
local n = g.size[1]

local rec
local scratch = g:cells()
local keep_contact, redistance, solve = liu.keep_contact, grid.redistance, couple.liu_solve
liu.keep_contact = function(S_, before, phi, ...)
  local p = phi or S_.phi
  scratch:copy(p)
  local v0 = grid.volume(g, p)
  keep_contact(S_, before, phi, ...)
  local cells = {}
  rec.nk = 0
  for i = 1, n do
    for j = 1, n do
      local a, b = scratch:get(i, j), p:get(i, j)
      if a ~= b then
        rec.nk = rec.nk + 1
        cells[#cells + 1] = string.format("(%d,%d %.2f>%.2f)", i, j, a / dx, b / dx)
      end
    end
  end
  rec.keep, rec.cells = grid.volume(g, p) - v0, table.concat(cells, " ")
end
grid.redistance = function(g_, p, o)
  local v0 = grid.volume(g, p)
  local r = redistance(g_, p, o)
  rec.march = (rec.march or 0) + grid.volume(g, p) - v0
  return r
end
couple.liu_solve = function(o)
  local v0 = grid.volume(g, o.phi_star)
  local st = solve(o)
  rec.solve = grid.volume(g, o.phi) - v0
  return st
end

local V0 = liu.volume(S)
local ymin, ymax, sum, m = math.huge, -math.huge, { keep = 0, march = 0, solve = 0 }, 0
local yw, tw
local k = 0
while S.t < P.tend do
  rec = {}
  local st = liu.step(S, liu.max_dt(S))
  liu.check(S)
  k = k + 1
  local y = centre(S)
  if S.t >= P.from then
    ymin, ymax, m = math.min(ymin, y), math.max(ymax, y), m + 1
    for key in pairs(sum) do sum[key] = sum[key] + (rec[key] or 0) / V0 end
  end
  if not yw and S.t >= P.tend - 0.05 then yw, tw = y, S.t end
  if k % P.every == 0 then
    print(string.format("%4d t %.3f centre %.4f m  V/V0-1 %+.1e  march %+.2e keep %+.2e (%s cells) solve %+.2e  it %d min d %.2f dx%s",
      k, S.t, y, liu.volume(S) / V0 - 1, (rec.march or 0) / V0, (rec.keep or 0) / V0, rec.nk or 0, (rec.solve or 0) / V0,
      st.iterations, st.min_d / dx, P.cells and rec.cells and "  " .. rec.cells or ""))
  end
end
print(string.format("contact %s keep_stencils %s: centre %.4f-%.4f m over %.2f-%.2f s, v (last 0.05 s) %+.3f m/s; "
  .. "mean per step: march %+.2e keep %+.2e solve %+.2e", P.contact, tostring(P.keep_stencils), ymin, ymax, P.from, P.tend,
  (centre(S) - yw) / (S.t - tw), sum.march / m, sum.keep / m, sum.solve / m))
