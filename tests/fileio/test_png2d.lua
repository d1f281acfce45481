-- tide.fileio.png2d: pixels of known scenes, argument errors, atomic output.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array
local fio = tide.fileio

local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("png2d")

local function px(img, x, y) -- 1-based pixel (column x, row y) -> r, g, b (0..255)
  return img:get(y, x, 1), img:get(y, x, 2), img:get(y, x, 3)
end
local function near_rgb(img, x, y, r, g, b, tol, msg)
  local R, G, B = px(img, x, y)
  local ok = math.abs(R - r) <= tol and math.abs(G - g) <= tol and math.abs(B - b) <= tol
  T.check(ok, string.format("%s: pixel (%d,%d) is (%d,%d,%d), expected (%d,%d,%d)", msg, x, y, R, G, B,
    math.floor(r + 0.5), math.floor(g + 0.5), math.floor(b + 0.5)))
end
local function cmap255(name, t)
  local r, g, b = fio.colormap(name, t)
  return r * 255, g * 255, b * 255
end

-- 1. a field with value 0 in the left half and 1 in the right half
local n = 16
local f = A.zeros({n, n})
for i = n // 2 + 1, n do for j = 1, n do f:set(i, j, 1) end end
local path = dir .. "/field/f_0000.png"
T.check(fio.png2d{ path = path, n = {n, n}, dx = 1 / n, field = f, range = {0, 1}, colormap = "viridis",
  width = 200, colorbar = false, frame = false } == path, "png2d returns the path")
local img = assert(fio.png_read(path))
T.check(img.shape[2] == 200, "image width " .. img.shape[2])
local H = img.shape[1]
T.check(H == 200, "square domain gives a square picture: height " .. H)
local r0, g0, b0 = cmap255("viridis", 0)
local r1, g1, b1 = cmap255("viridis", 1)
near_rgb(img, 50, 100, r0, g0, b0, 1, "left half maps to viridis(0)")
near_rgb(img, 150, 100, r1, g1, b1, 1, "right half maps to viridis(1)")
-- the boundary between the halves sits at the middle of the drawn area (x = 100)
local R = px(img, 99, 100)
local R2 = px(img, 102, 100)
T.check(math.abs(R - r0) <= 1 and math.abs(R2 - r1) <= 1, "colour edge at the domain middle")

-- 2. level set phi = y - 0.3025: liquid below, background above
local phi = A.zeros({n, n})
for i = 1, n do for j = 1, n do phi:set(i, j, (j - 0.5) / n - 0.3025) end end
path = dir .. "/ls.png"
fio.png2d{ path = path, domain = { origin = {0, 0}, size = {1, 1} }, phi = phi, width = 212,
  liquid_color = {0, 0, 1}, contour_width = 0, frame = false }
img = fio.png_read(path)
-- drawn area: 200 x 200 px with a 6 px pad; y = 0.3025 is at pixel y 145.5, the centre of row 146
local edge_row = 146
near_rgb(img, 100, edge_row + 3, 0, 0, 255, 0, "liquid below the surface")
near_rgb(img, 100, edge_row - 3, 255, 255, 255, 0, "air above the surface")
local _, _, b = px(img, 100, edge_row)      -- pixel straddling y = 0.3 is half covered
local rr = px(img, 100, edge_row)
T.check(rr > 80 and rr < 175, "anti-aliased edge pixel half covered (red " .. rr .. ")")
T.check(b == 255, "edge pixel blue")

-- the contour runs on to the domain walls (drawn area: pixels 7..206)
fio.png2d{ path = path, domain = { origin = {0, 0}, size = {1, 1} }, phi = phi, width = 212,
  liquid_alpha = 0, contour_color = {1, 0, 0}, contour_width = 2, frame = false }
img = fio.png_read(path)
local r7, g7 = px(img, 7, edge_row)
local r206, g206 = px(img, 206, edge_row)
T.check(r7 > 200 and g7 < 80 and r206 > 200 and g206 < 80, "contour reaches both walls: " .. r7 .. "," .. g7 .. " " .. r206 .. "," .. g206)

-- contour of a circle: pixels on the circle are dark, centre is filled
for i = 1, n do for j = 1, n do
  local x, y = (i - 0.5) / n - 0.5, (j - 0.5) / n - 0.5
  phi:set(i, j, math.sqrt(x * x + y * y) - 0.25)
end end
fio.png2d{ path = path, domain = { origin = {-0.5, -0.5}, size = {1, 1} }, phi = phi, width = 212,
  liquid_color = {0, 0, 1}, contour_color = {1, 0, 0}, contour_width = 2, frame = false }
img = fio.png_read(path)
near_rgb(img, 106, 106, 0, 0, 255, 0, "circle interior filled")
local hits = 0
for k = 0, 15 do -- along the circle (radius 50 px around (106, 106)) the contour is red
  local a = 2 * math.pi * k / 16
  local x, y = math.floor(106 + 50 * math.cos(a)) + 1, math.floor(106 - 50 * math.sin(a)) + 1
  local r, g = px(img, x, y)
  if r > 150 and g < 80 then hits = hits + 1 end
end
T.check(hits >= 14, "contour drawn on the circle at " .. hits .. "/16 sample points")

-- 3. solid cells grey, particles coloured by attribute
local labels = A.zeros({n, n}, "u8")
labels:set(1, 1, 2)
local P = A.from({{0.75, 0.75}})
path = dir .. "/p.png"
fio.png2d{ path = path, n = {n, n}, dx = 1 / n, labels = labels, particles = P,
  particle_color = A.from({1}), particle_range = {0, 1}, particle_colormap = "coolwarm",
  radius = 0.05, width = 212, frame = false, solid_color = {0.5, 0.5, 0.5}, colorbar = false }
img = fio.png_read(path)
near_rgb(img, 7 + 6, 206 - 6, 127.5, 127.5, 127.5, 1, "solid cell grey")
local cr, cg, cb = cmap255("coolwarm", 1)
near_rgb(img, 6 + 150 + 1, 6 + 50 + 1, cr, cg, cb, 1, "particle coloured by its attribute")

-- 4. arrows of a velocity field given as positions and vectors, meshes
path = dir .. "/m.png"
fio.png2d{ path = path, domain = { size = {1, 1} }, width = 212, frame = false,
  vertices = A.from({{0.1, 0.1}, {0.9, 0.1}, {0.9, 0.9}, {0.1, 0.9}}),
  triangles = A.from({{0, 1, 2}, {0, 2, 3}}, "i32"), mesh_color = {0, 1, 0}, edge_width = 0,
  arrows = A.from({{0.5, 0.5025}}), arrow_vectors = A.from({{1, 0}}), arrow_scale = 0.3,
  arrow_color = {0, 0, 0} }
img = fio.png_read(path)
near_rgb(img, 96, 97, 0, 255, 0, 0, "triangles filled without seams (diagonal pixel)")
near_rgb(img, 130, 106, 0, 0, 0, 2, "arrow along +x")
near_rgb(img, 130, 100, 0, 255, 0, 0, "no arrow above it")

-- native objects: a 2D particle set coloured by speed, a 2D triangle mesh
local g2 = tide.grid.new{ size = {16, 16}, dx = 1 / 16 }
local ps = tide.liquid.seed{ grid = g2, box = { min = {0, 0}, max = {0.25, 0.25} }, velocity = {3, 4} }
local tm = tide.solid.box{ min = {0.5, 0.5}, max = {0.9, 0.9}, cells = {2, 2} }
path = dir .. "/native.png"
fio.png2d{ path = path, grid = g2, particles = ps, particle_color = "speed", particle_range = {0, 10},
  particle_colormap = "gray", radius_px = 4, mesh = tm, mesh_color = {0, 1, 0}, edge_width = 0, width = 212, frame = false,
  colorbar = false }
img = fio.png_read(path)
near_rgb(img, 7 + 150, 7 + 50, 0, 255, 0, 0, "TetMesh triangles filled")
local found = false
for x = 8, 50 do for yy = 160, 205 do
  local r, g, b = px(img, x, yy)
  if math.abs(r - 127.5) < 2 and r == g and g == b then found = true end
end end
T.check(found, "particles coloured by speed 5 on [0, 10] (mid grey)")
T.raises(function() fio.png2d{ path = path, grid = g2, mesh = tm, vertices = A.zeros({3, 2}) } end, "not both", "mesh and vertices")

-- 5. the same frame for any thread count
local function frame_sum(threads)
  tide.threads(threads)
  local p = dir .. "/det.png"
  local ps = A.zeros({300, 2})
  local pc = A.zeros(300)
  for k = 1, 300 do ps:set(k, 1, tide.rand(1, k)); ps:set(k, 2, tide.rand(2, k)); pc:set(k, tide.rand(3, k)) end
  fio.png2d{ path = p, n = {n, n}, dx = 1 / n, field = f, phi = phi, particles = ps, radius_px = 3,
    particle_color = pc, width = 300 }
  return fio.png_read(p):checksum()
end
local s1, s2 = frame_sum(1), frame_sum(2)
T.check(s1 == s2, "identical frames with 1 and 2 threads")

-- 6. bad arguments raise errors naming the function and the argument
local good = { path = dir .. "/e.png", n = {n, n}, dx = 1 / n, field = f }
local function with(k, v)
  local t = {}
  for a, b in pairs(good) do t[a] = b end
  t[k] = v
  return t
end
T.raises(function() fio.png2d(nil) end, "tide.fileio.png2d: table of named arguments", "no table")
T.raises(function() fio.png2d(with("colour", 1)) end, "unknown option 'colour'", "unknown key")
T.raises(function() fio.png2d(with("path", nil)) end, "missing option 'path'", "no path")
T.raises(function() fio.png2d(with("field", A.zeros({n, n + 1}))) end, "shape", "field shape")
T.raises(function() fio.png2d(with("field", A.zeros(n))) end, "2D cell array", "field ndim")
T.raises(function() fio.png2d(with("range", {1, 0})) end, "lo < hi", "inverted range")
T.raises(function() fio.png2d(with("range", {0, 0 / 0})) end, "finite", "NaN range")
T.raises(function() fio.png2d(with("colormap", "rainbow")) end, "must be one of", "unknown colormap")
T.raises(function() fio.png2d(with("width", -5)) end, "'width'", "negative width")
T.raises(function() fio.png2d(with("width", "big")) end, "'width'", "width type")
T.raises(function() fio.png2d(with("background", {1, 2, 3})) end, "[0, 1]", "bad colour")
T.raises(function() fio.png2d(with("labels", A.zeros({n, n}))) end, "u8", "labels dtype")
T.raises(function() fio.png2d(with("particles", A.zeros({5, 3}))) end, "particles", "particles shape")
T.raises(function() fio.png2d(with("particle_color", A.zeros(5))) end, "needs 'particles'", "color w/o particles")
T.raises(function() fio.png2d(with("arrows", 5)) end, "tide.Mac or a tide.Array", "arrows type")
T.raises(function() fio.png2d(with("arrows", A.zeros({3, 2}))) end, "arrow_vectors", "arrows w/o vectors")
T.raises(function() fio.png2d(with("grid", {})) end, "tide.Grid", "grid type")
T.raises(function() fio.png2d{ path = good.path, field = f } end, "cell size is unknown", "no dx")
T.raises(function() fio.png2d{ path = good.path } end, "extent", "nothing to draw")
T.raises(function()
  fio.png2d{ path = good.path, domain = { size = {1, 1} }, vertices = A.zeros({3, 2}),
    triangles = A.from({{1, 2, 3}}, "i32") }
end, "index_base", "1-based triangles with the default base")
T.check(pcall(fio.png2d, { path = good.path, domain = { size = {1, 1} }, vertices = A.zeros({3, 2}),
  triangles = A.from({{1, 2, 3}}, "i32"), index_base = 1 }), "index_base = 1 accepted")
T.raises(function() fio.png2d{ path = good.path, domain = { size = {1, -1} } } end, "positive", "bad domain")
T.raises(function() fio.png2d{ path = good.path, domain = { size = {1, 1}, centre = {0, 0} } } end,
  "unknown option 'centre'", "domain keys")
T.raises(function() fio.png_write(dir .. "/w.png", A.zeros({4, 4})) end, "u8", "png_write dtype")
T.raises(function() fio.colormap("nope", 0.5) end, "unknown colour map", "colormap name")
local ok, msg = fio.png_read(dir .. "/missing.png")
T.check(ok == nil and msg:find("cannot read"), "png_read of a missing file returns nil, message")

-- 7. atomic output: a failed write keeps the previous file and leaves no temporary
local keep = dir .. "/keep.png"
fio.png2d(with("path", keep))
local before = fio.png_read(keep):checksum()
T.raises(function() fio.png2d(with("path", keep .. "/sub.png")) end, "not a directory", "parent is a file")
T.raises(function() fio.png2d(with("path", dir)) end, "tide.fileio.png2d", "path is a directory")
T.check(fio.png_read(keep):checksum() == before, "previous frame intact")
local listing = U.listing(dir)
T.check(not listing:find("tmp"), "no temporary files left: " .. listing:gsub("\n", " "))

U.cleanup(dir)
os.exit(T.report())
