-- Zarifi (thesis) Tables 6.5 and 6.6: accuracy of the coupled projection after one step (2D, §6.4,
-- Eq. 6.1-6.10). A solid in hydrostatic equilibrium in a pool; ∞-norm errors of pressure, solid
-- and liquid velocity at Δx = 0.2 ... 0.0125 on the unit square, both parameter sets, with the
-- thesis's discretization (cell-constant pressure on the clipped boundary pieces, node-SDF face
-- fractions) beside the thesis's numbers, and the observed orders side by side.
local F = require "tide.figures"
local zarifi = require "tide.zarifi"
local fio = require("tide").fileio

local fig = F.figure {
  paper = "Zarifi 2017 (thesis)", number = "Tables 6.5-6.6",
  title = "Coupled projection accuracy: submerged solid in hydrostatic equilibrium (one step, 2D)",
  shows = "Section 6.4: the deformed rectangle phi(X, Y) = (x0 + alpha X, beta Y^2 + gamma Y + y1) in a pool " ..
    "below y = a = 0.8 (rho_f = 1, g = -1, dt = 0.01), tractions (6.6)-(6.9) integrated over the rest boundary, " ..
    "density (6.10); one coupled projection (SPD transform, CHOLMOD); infinity-norm errors of pressure (liquid " ..
    "cells), solid node velocities and projected liquid face velocities against the exact rest state, on the " ..
    "unit square with the solid mesh spacing equal to dx (the thesis gives neither), solid centred in x.",
  quick = { dxs = "0.2,0.1,0.05", params = "1,2", h = 0 },
  full = { dxs = "0.2,0.1,0.05,0.025,0.0125", params = "1,2", h = 0 },
  estimate = { quick = 2, full = 60 },
}
local P = fig.params
local dxs, sets = {}, {}
for s in P.dxs:gmatch("[%d.]+") do dxs[#dxs + 1] = tonumber(s) end
for s in P.params:gmatch("%d") do sets[#sets + 1] = math.tointeger(tonumber(s)) end

-- the thesis's tables (error p, solid v, liquid v) per dx
local thesis = {
  [1] = { [0.2] = { 4.19e-2, 5.68e-3, 3.75e-3 }, [0.1] = { 4.22e-2, 4.20e-3, 2.66e-3 }, [0.05] = { 1.84e-2, 1.93e-3, 2.31e-3 },
    [0.025] = { 6.95e-3, 9.75e-4, 1.14e-3 }, [0.0125] = { 1.15e-3, 2.72e-4, 3.01e-4 } },
  [2] = { [0.2] = { 9.19e-2, 3.92e-3, 3.02e-3 }, [0.1] = { 3.35e-2, 1.37e-3, 1.06e-3 }, [0.05] = { 6.01e-3, 3.25e-4, 2.08e-4 },
    [0.025] = { 7.30e-3, 4.74e-4, 7.57e-4 }, [0.0125] = { 1.21e-3, 1.07e-4, 1.92e-4 } },
}
local names = { "pressure", "solid velocity", "liquid velocity" }
local keys = { "p", "solid", "liquid" }

local total, done = #dxs * #sets, 0
for _, set in ipairs(sets) do
  local rows, errs = {}, { {}, {}, {} }
  for k, dx in ipairs(dxs) do
    local H = zarifi.hydrostatic { dx = dx, params = set, h = P.h > 0 and P.h or nil }
    local r = H.run { formulation = "spd", solver = "cholmod" }
    local row = { dx }
    for q = 1, 3 do
      errs[q][k] = r[keys[q]]
      local order = k > 1 and math.log(errs[q][k - 1] / errs[q][k]) / math.log(dxs[k - 1] / dx) or nil
      local th = thesis[set][dx]
      local thorder = (k > 1 and th and thesis[set][dxs[k - 1]]) and
        math.log(thesis[set][dxs[k - 1]][q] / th[q]) / math.log(dxs[k - 1] / dx) or nil
      row[#row + 1] = errs[q][k]
      row[#row + 1] = order or ""
      row[#row + 1] = th and th[q] or ""
      row[#row + 1] = thorder or ""
    end
    rows[#rows + 1] = row
    done = done + 1
    fig:progress(done, total, string.format("table 6.%d, dx %.4g", 4 + set, dx))
    for q = 1, 3 do
      if thesis[set][dx] then
        fig:compare { quantity = string.format("Table 6.%d %s error, dx = %g", 4 + set, names[q], dx),
          paper = thesis[set][dx][q], source = string.format("Table 6.%d", 4 + set), tide = errs[q][k],
          note = "same discretization; solid mesh spacing, domain and solid placement are not given in the thesis" }
      end
    end
  end
  fig:csv(string.format("table_6_%d", 4 + set), { "dx [m]",
    "p error [Pa]", "p order", "thesis p error", "thesis p order",
    "solid v error [m/s]", "solid v order", "thesis solid v error", "thesis solid v order",
    "liquid v error [m/s]", "liquid v order", "thesis liquid v error", "thesis liquid v order" }, rows)
  local series = {}
  local marks = { "o", "s", "^" }
  for q = 1, 3 do
    series[#series + 1] = { x = dxs, y = errs[q], marker = marks[q], label = "Tide " .. names[q] }
    local tx, ty = {}, {}
    for _, dx in ipairs(dxs) do if thesis[set][dx] then tx[#tx + 1] = dx; ty[#ty + 1] = thesis[set][dx][q] end end
    series[#series + 1] = { x = tx, y = ty, paper = true, label = "thesis " .. names[q] }
  end
  fig:plot(string.format("table_6_%d", 4 + set), { title = string.format("Table 6.%d: errors after one step", 4 + set),
    xlabel = "dx [m]", ylabel = "infinity-norm error", xlog = true, ylog = true, legend = "lower right", series = series,
    caption = string.format("Errors of the coupled projection (parameter set of Table 6.%d) against the grid spacing; black squares: the thesis", 4 + set) })
end
fig:done()
