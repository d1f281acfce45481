-- Static solves (m:solve_static) against beam theory, Lame and the elastica, over mesh
-- resolution; the set-ups are tide.cases.statics (also used by
-- tests/solid/test_solid_static_validation.lua, which checks the finest meshes of the
-- quick set below).  The full set adds the 3D cantilever with nu = 0.3 and n x n
-- tetrahedra across the section, where linear tetrahedra lock in bending.
local F = require "tide.figures"
local C = require "tide.cases.statics"

local fig = F.figure {
  paper = "Timoshenko beam theory; Lame (thick cylinder); Mattiasson 1981 (elastica, IJNME 17:145, Table 1)",
  number = "tip deflection, u_r, tip displacement",
  title = "Static solves: cantilever, thick cylinder, large-deflection cantilever vs mesh resolution",
  shows = "Relative errors of m:solve_static against analytic and published values as the mesh is refined: " ..
    "a tip-loaded cantilever (L = 1 m, h = 0.1 m) in 2D plane stress (nu = 0.3), 3D with nu = 0 " ..
    "(one tetrahedron layer across) and 3D with nu = 0.3 (n x n across), against Timoshenko; a thick " ..
    "cylinder under internal follower pressure (neo-Hookean, plane strain) against Lame; a cantilever " ..
    "under P L^2 / EI = 2 against Mattiasson's elastica (v/L = 0.49346).",
  quick = { beam = "2,4", beam3 = "2", lame = "4", elastica = "4" },
  full = { beam = "4,8,16,32,48", beam3 = "3,6,12,16", lame = "4,8,16,32", elastica = "4,8,16" },
  estimate = { quick = 1, full = 120 },
}
local P = fig.params
local function list(s)
  local t = {}
  for v in s:gmatch("%d+") do t[#t + 1] = math.tointeger(tonumber(v)) end
  return t
end

local series, rows = {}, {}
local function add(name, n, h, err, note, value)
  series[name] = series[name] or { x = {}, y = {} }
  local s = series[name]
  s.value = value -- {tide, reference, unit, source} on this mesh
  s.x[#s.x + 1] = h
  s.y[#s.y + 1] = math.abs(err)
  rows[#rows + 1] = { name, n, h, err, note or "" }
end

for _, n in ipairs(list(P.beam)) do
  local r2 = C.tip_cantilever { dim = 2, n = n }
  add("cantilever 2D plane stress", n, 0.1 / n, r2.error, nil, { r2.tip, r2.exact, "m", "Timoshenko" })
  local r3 = C.tip_cantilever { dim = 3, n = n }
  add("cantilever 3D, nu = 0", n, 0.1 / n, r3.error, nil, { r3.tip, r3.exact, "m", "Timoshenko" })
  fig:progress(n, 100, "beam " .. n)
end
for _, n in ipairs(list(P.beam3)) do
  local r = C.tip_cantilever { dim = 3, n = n, nu = 0.3, across = n }
  add("cantilever 3D, nu = 0.3", n, 0.1 / n, r.error, "locking", { r.tip, r.exact, "m", "Timoshenko" })
end
for _, n in ipairs(list(P.lame)) do
  local r = C.lame { n = n, model = "neohookean", follower = true }
  add("Lame u_r(a), follower, neo-Hookean", n, 0.5 / n, r.inner, nil,
    { (1 + r.inner) * r.exact_a, r.exact_a, "m", "Lame u_r(a)" })
end
for _, n in ipairs(list(P.elastica)) do
  local r = C.elastica { n = n, ratio = 20, alpha = 2 }
  add("elastica v/L", n, 0.05 / n, r.v_error, nil, { r.v, r.v_ref, "", "Mattiasson 1981" })
  add("elastica u/L", n, 0.05 / n, r.u_error, nil, { r.u, r.u_ref, "", "Mattiasson 1981" })
end
fig:csv("errors", { "case", "n", "h [m]", "relative error", "note" }, rows)

local names = {}
for k in pairs(series) do names[#names + 1] = k end
table.sort(names)
local ser = {}
for _, k in ipairs(names) do ser[#ser + 1] = { x = series[k].x, y = series[k].y, marker = "o", label = k } end
fig:plot("errors", { title = "static solves: relative error vs element size", xlabel = "element size h [m]",
  ylabel = "|relative error|", xlog = true, ylog = true, legend = "lower right", series = ser,
  caption = "Relative errors against Timoshenko, Lame and Mattiasson over the element size (linear elements)" })
for _, k in ipairs(names) do
  local v = series[k].value
  fig:compare { quantity = k .. " (finest mesh of the run)", unit = v[3], paper = v[2], source = v[4], tide = v[1],
    note = k:find("0.3", 1, true) and "linear tetrahedra lock in bending (n x n across)" or nil }
end
fig:done()
