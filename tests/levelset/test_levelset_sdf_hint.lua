-- Shape:sdf on a grid takes the sign of a closed mesh from the line's previous sample where no
-- face can lie between them (|phi| above the step; tide_sdf_mesh_eval_hint), without summing
-- solid angles.  It must give bit for bit what the point evaluation (Shape:eval on the same
-- positions: the winding number at every point) gives: closed tet-mesh boundaries alone, in CSG
-- and moved, 3D and 2D, at cells and nodes, with and without a band; an open mesh (a ball's
-- boundary with faces removed) takes no hint and is unchanged too.
local tide = require "tide"
local T = require "tide.testing"

-- sample positions of g as an (n, 3) array in Shape:sdf's order (k fastest)
local function positions(g, at)
  if at == "cells" then
    local c = g:centers()
    local n = c:size() // g.dim
    local P = tide.array.zeros { n, 3 }
    local cf = c:reshape { n, g.dim }
    for q = 1, n do
      for a = 1, g.dim do P[q][a] = cf[q][a] end
    end
    return P
  end
  local d = {}
  for a = 1, g.dim do d[a] = g.size[a] + 1 end
  local n = d[1] * d[2] * (d[3] or 1)
  local P = tide.array.zeros { n, 3 }
  local q = 0
  for i = 0, d[1] - 1 do
    for j = 0, d[2] - 1 do
      for k = 0, (d[3] or 1) - 1 do
        q = q + 1
        P[q][1], P[q][2] = g.origin[1] + i * g.dx, g.origin[2] + j * g.dx
        if g.dim == 3 then P[q][3] = g.origin[3] + k * g.dx end
      end
    end
  end
  return P
end

local function compare(label, g, shape, at, band)
  local t0 = tide.clock()
  local a = shape:sdf(g, { at = at, band = band })
  local t1 = tide.clock()
  local b = shape:eval(positions(g, at))
  local n, diff, inside = b:size(), 0, 0
  local af = a:reshape { n }
  for q = 1, n do
    local x, y = af[q], b[q]
    if y < 0 then inside = inside + 1 end
    if band then
      -- the point evaluation is unbanded: within the band the same bits, beyond it the sign
      if math.abs(y) < band then
        if x ~= y then diff = diff + 1 end
      elseif (x < 0) ~= (y < 0) or math.abs(x) < band then
        diff = diff + 1
      end
    elseif x ~= y then
      diff = diff + 1
    end
  end
  print(string.format("%s (%s%s): %d samples, %d inside, %d differ; grid %.3f s", label, at,
    band and string.format(", band %.3f", band) or "", n, inside, diff, t1 - t0))
  T.check(inside > 0 and diff == 0, string.format("%s %s%s: as the point evaluation", label, at,
    band and " (band)" or ""))
end

do -- 3D: the boundary of a BCC tet ball, 24^3
  local n = 24
  local g = tide.grid.new { size = { n, n, n }, dx = 1 / n }
  local m = tide.solid.bcc { shape = tide.shape.sphere { center = { 0.4, 0.45, 0.5 }, radius = 0.25 }, h = 0.06 }
  local faces = m:boundary()
  local mesh = tide.shape.mesh { vertices = m.x, faces = faces }
  T.check(mesh.closed == true, "a tet mesh's boundary is closed")
  for _, band in ipairs { false, 3 * g.dx } do
    compare("3D mesh", g, mesh, "nodes", band or nil)
    compare("3D mesh", g, mesh, "cells", band or nil)
  end
  local csg = (mesh + tide.shape.box { min = { -1, -1, -1 }, max = { 2, 0.12, 2 } })
    - tide.shape.sphere { center = { 0.55, 0.5, 0.5 }, radius = 0.1 }
  compare("3D mesh + floor - sphere", g, csg, "cells", 3 * g.dx)
  compare("3D moved mesh", g, mesh:moved { translation = { 0.1, 0.02, -0.05 },
    rotation = { axis = { 1, 1, 0 }, angle = 0.4 } }, "nodes", nil)
  -- two overlapping copies: a union of closed meshes, each its own hint
  compare("3D two meshes", g, mesh + mesh:moved { translation = { 0.15, 0.1, 0 } }, "nodes", 3 * g.dx)
  -- open: every 7th face removed (no hint; the winding number everywhere, as before)
  local nf = faces:size() // 3
  local ff = faces:reshape { nf, 3 }
  local kept = {}
  for f = 1, nf do
    if f % 7 ~= 0 then kept[#kept + 1] = { ff[f][1], ff[f][2], ff[f][3] } end
  end
  local open = tide.shape.mesh { vertices = m.x, faces = tide.array.from(kept, "i32") }
  T.check(open.closed == false, "a boundary with faces removed is open")
  compare("3D open mesh", g, open, "nodes", nil)
end

do -- 2D: a triangle-mesh disc's boundary polygon, 48^2
  local n = 48
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local m = tide.solid.bcc { shape = tide.shape.sphere { center = { 0.5, 0.45 }, radius = 0.2 }, h = 0.03 }
  local mesh = tide.shape.mesh { vertices = m.x, faces = m:boundary() }
  T.check(mesh.closed == true, "a triangle mesh's boundary polygon is closed")
  compare("2D mesh", g, mesh, "nodes", nil)
  compare("2D mesh + floor", g, mesh + tide.shape.box { min = { -1, -1 }, max = { 2, 0.1 } }, "cells", 3 * g.dx)
end

os.exit(T.report())
