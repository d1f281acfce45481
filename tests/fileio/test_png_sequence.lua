-- Pictures of sequences (issue 11, item 6): a 3D frame sequence of bare
-- meshes keeps the camera of its first frame (png3d's `view`, solids.png3d),
-- so a falling body is seen falling; the ground lies where the scene says
-- (none for bare meshes unless ground_y is given); coloured particles get a
-- colour bar in png2d and png3d.
local tide = require "tide"
local T = require "tide.testing"
local fio = tide.fileio
local solids = require "tide.solids"

local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("pngseq")
tide.mkdir(dir)

-- row of the centroid of the red pixels (the body), and the count
local function red_row(path)
  local img = fio.png_read(path)
  local sum, n = 0, 0
  for r = 1, img.shape[1] do
    for c = 1, img.shape[2] do
      if img:get(r, c, 1) > 60 and img:get(r, c, 2) < 40 and img:get(r, c, 3) < 40 then sum, n = sum + r, n + 1 end
    end
  end
  return n > 0 and sum / n or nil, n
end

local function drop(m, h)
  for v = 1, m.nv do m.x:set(v, 2, m.x:get(v, 2) - h) end
end

local base = { width = 120, height = 90, background = { 0, 0, 0 }, shadows = false }
local function args(extra)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(extra) do t[k] = v end
  return t
end

-- a cube falling 0.05 m per frame, with and without a view
local function sequence(with_view)
  local m = tide.solid.box { min = { 0, 0, 0 }, max = { 0.2, 0.2, 0.2 }, cells = { 1, 1, 1 } }
  local view, rows = with_view and {} or nil, {}
  for i = 0, 2 do
    local p = string.format("%s/%s_%d.png", dir, with_view and "view" or "free", i)
    fio.png3d(args { path = p, meshes = { { mesh = m, color = { 1, 0, 0 } } }, view = view })
    rows[i] = red_row(p)
    drop(m, 0.05)
  end
  return rows, view
end
local rows, view = sequence(true)
T.check(view.camera and view.bounds and view.camera.fov == 35, "the first frame fills the view")
T.check(view.ground_y == nil, "bare meshes: no ground recorded")
T.check(rows[1] > rows[0] + 3 and rows[2] > rows[1] + 3,
  string.format("with a view the body falls down the picture: rows %.1f %.1f %.1f", rows[0], rows[1], rows[2]))
local free = sequence(false)
T.check(math.abs(free[2] - free[0]) < 1.5,
  string.format("without a view each frame is framed on the body (rows %.1f %.1f)", free[0], free[2]))

-- solids.png3d: the frames of one pattern are a sequence
local m = tide.solid.box { min = { 0, 0, 0 }, max = { 0.2, 0.2, 0.2 }, cells = { 1, 1, 1 } }
local sr = {}
for i = 0, 2 do
  solids.png3d(dir .. "/sol_%d.png", i, { solids.surface(m, { 1, 0, 0 }) }, base)
  sr[i] = red_row(string.format(dir .. "/sol_%d.png", i))
  drop(m, 0.05)
end
T.check(sr[2] > sr[0] + 6, string.format("solids.png3d keeps frame 0's camera: rows %.1f -> %.1f", sr[0], sr[2]))

-- the ground: none for bare meshes, where ground_y says otherwise
local cube = tide.solid.box { min = { 0, 0.3, 0 }, max = { 0.2, 0.5, 0.2 }, cells = { 1, 1, 1 } }
local function bottom_lit(extra)
  local p = dir .. "/ground.png"
  fio.png3d(args(extra))
  local img = fio.png_read(p)
  local lit = 0
  for c = 1, img.shape[2] do lit = lit + img:get(img.shape[1], c, 1) + img:get(img.shape[1], c, 2) end
  return lit
end
T.check(bottom_lit { path = dir .. "/ground.png", meshes = { cube } } == 0, "bare mesh: black below it, no floor")
local v2 = {}
T.check(bottom_lit { path = dir .. "/ground.png", meshes = { cube }, ground_y = 0, view = v2 } > 0, "ground_y = 0 draws a floor")
T.check(v2.ground_y == 0, "the view keeps the scene's ground_y")
local g = tide.grid.new { size = { 4, 4, 4 }, dx = 0.25 }
T.check(bottom_lit { path = dir .. "/ground.png", meshes = { cube }, grid = g } > 0, "a grid's floor by default")
local v3 = {}
fio.png3d(args { path = dir .. "/b.png", meshes = { cube }, bounds = { min = { -1, -1, -1 }, max = { 1, 1, 1 } }, view = v3 })
T.check(v3.bounds.min[2] == -1 and v3.ground_y == -1, "bounds: the scene's box and its floor")
T.raises(function() fio.png3d(args { path = dir .. "/b.png", meshes = { cube }, bounds = { min = { 1, 1, 1 }, max = { 0, 0, 0 } } }) end,
  "min[1] > max[1]", "bad bounds")
T.raises(function() fio.png3d(args { path = dir .. "/b.png", meshes = { cube }, view = 3 }) end, "'view' must be a table", "bad view")

-- colour bars of particle colours: on by default, only in the right strip
local function diff_columns(a, b)
  local A, B = fio.png_read(a), fio.png_read(b)
  local first, n = math.huge, 0
  for r = 1, A.shape[1] do
    for c = 1, A.shape[2] do
      if A:get(r, c, 1) ~= B:get(r, c, 1) or A:get(r, c, 2) ~= B:get(r, c, 2) then first, n = math.min(first, c), n + 1 end
    end
  end
  return first, n, A.shape[2]
end
local g3 = tide.grid.new { size = { 8, 8, 8 }, dx = 1 / 8 }
local ps = tide.liquid.seed { grid = g3, box = { min = { 0.2, 0.2, 0.2 }, max = { 0.6, 0.6, 0.6 } }, velocity = { 0, 2, 0 } }
local o3 = { grid = g3, particles = ps, particle_color = "speed", particle_range = { 0, 4 }, width = 200, height = 150 }
local t = args(o3)
t.path = dir .. "/bar3.png"
fio.png3d(t)
t.path, t.colorbar = dir .. "/nobar3.png", false
fio.png3d(t)
local first, n, w = diff_columns(dir .. "/bar3.png", dir .. "/nobar3.png")
T.check(n > 200 and first > 0.6 * w, string.format("png3d: a colour bar at the right (%d pixels from column %d of %d)", n, first, w))
T.raises(function() fio.png3d(args { path = dir .. "/x.png", meshes = { cube }, colorbar = true }) end,
  "a colour bar needs", "bar without colours")

local g2 = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
local p2 = tide.liquid.seed { grid = g2, box = { min = { 0.2, 0.2 }, max = { 0.6, 0.6 } }, velocity = { 0, 2 } }
fio.png2d { path = dir .. "/bar2.png", grid = g2, particles = p2, particle_color = "speed", width = 200 }
fio.png2d { path = dir .. "/nobar2.png", grid = g2, particles = p2, particle_color = "speed", width = 200, colorbar = false }
local A2, B2 = fio.png_read(dir .. "/bar2.png"), fio.png_read(dir .. "/nobar2.png")
T.check(A2.shape[2] == 200 and A2:checksum() ~= B2:checksum(), "png2d: particle colours get a colour bar by default")
-- the plain picture is unchanged: no bar without particle_color
fio.png2d { path = dir .. "/plain.png", grid = g2, particles = p2, width = 200 }
fio.png2d { path = dir .. "/plain2.png", grid = g2, particles = p2, width = 200, colorbar = false }
T.check(fio.png_read(dir .. "/plain.png"):checksum() == fio.png_read(dir .. "/plain2.png"):checksum(),
  "png2d: no colour bar without colours")

if not os.getenv("KEEP") then U.cleanup(dir) end
print(dir)
os.exit(T.report())
