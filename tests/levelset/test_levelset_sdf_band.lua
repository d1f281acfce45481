-- Shape:sdf and Grid:face_fractions with a band (tide_shape_eval_band,
-- docs/levelsets.md): bit for bit the full evaluation where |phi| < band,
-- elsewhere the right sign and |phi| >= band; for a tet-mesh ball's boundary
-- (3D) and a triangle-mesh disc's (2D), alone and in CSG (union with a box
-- floor, difference with a sphere, moved), at cells and nodes; the face
-- fractions from band-limited node distances equal the full ones.
local tide = require "tide"
local T = require "tide.testing"

-- the values of an array as one flat list (reshaped to 1D)
local function flat(a)
  return a:reshape { a:size() }:totable()
end

local function compare(label, g, shape, at, band)
  local a = shape:sdf(g, { at = at })
  local t0 = tide.clock()
  local b = shape:sdf(g, { at = at, band = band })
  local t1 = tide.clock()
  local n = a:size()
  local A, B = flat(a), flat(b)
  local inside, same, bad = 0, 0, 0
  for q = 1, n do
    local x, y = A[q], B[q]
    if math.abs(x) < band then
      inside = inside + 1
      if x == y then same = same + 1 end
    elseif not ((x > 0) == (y > 0) and math.abs(y) >= band) then
      bad = bad + 1
    end
  end
  print(string.format("%s (%s): %d samples, %d within the band, %d of them identical, %d outside it wrong; band %.3f s",
    label, at, n, inside, same, bad, t1 - t0))
  T.check(inside > 0 and same == inside, label .. " " .. at .. ": bit for bit within the band")
  T.check(bad == 0, label .. " " .. at .. ": sign kept and |phi| >= band outside it")
end

-- 3D: the boundary of a BCC tet ball, 40^3
do
  local n = 40
  local g = tide.grid.new { size = { n, n, n }, dx = 1 / n }
  local m = tide.solid.bcc { shape = tide.shape.sphere { center = { 0.4, 0.45, 0.5 }, radius = 0.18 }, h = 0.04 }
  local mesh = tide.shape.mesh { vertices = m.x, faces = m:boundary() }
  local band = 4 * g.dx
  compare("3D mesh", g, mesh, "nodes", band)
  compare("3D mesh", g, mesh, "cells", band)
  local csg = (mesh + tide.shape.box { min = { -1, -1, -1 }, max = { 2, 0.12, 2 } })
    - tide.shape.sphere { center = { 0.55, 0.5, 0.5 }, radius = 0.1 }
  compare("3D mesh + floor - sphere", g, csg, "cells", band)
  compare("3D moved mesh", g, mesh:moved { translation = { 0.1, 0.02, -0.05 }, rotation = { axis = { 1, 1, 0 }, angle = 0.4 } }, "nodes", band)
  local f1 = g:face_fractions(mesh)
  local f2 = g:face_fractions(mesh, { band = 2 * g.dx })
  local d = 0
  for _, c in ipairs { "u", "v", "w" } do
    local x, y = flat(f1[c]), flat(f2[c])
    for q = 1, #x do d = math.max(d, math.abs(x[q] - y[q])) end
  end
  T.check(d == 0, string.format("3D face fractions from band-limited node distances: identical (%.1e)", d))
end

-- 2D: a triangle-mesh disc's boundary polygon, 64^2
do
  local n = 64
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local m = tide.solid.bcc { shape = tide.shape.sphere { center = { 0.5, 0.45 }, radius = 0.2 }, h = 0.03 }
  local mesh = tide.shape.mesh { vertices = m.x, faces = m:boundary() }
  compare("2D mesh", g, mesh, "nodes", 3 * g.dx)
  compare("2D mesh + floor", g, mesh + tide.shape.box { min = { -1, -1 }, max = { 2, 0.1 } }, "cells", 3 * g.dx)
end

T.check(not pcall(function() tide.shape.sphere { center = { 0, 0 }, radius = 1 }:sdf(tide.grid.new { size = { 4, 4 }, dx = 1 }, { band = -1 }) end),
  "a negative band is an error")
os.exit(T.report())
