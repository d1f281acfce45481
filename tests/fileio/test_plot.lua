-- tide.fileio.plot: lines land where the axes say, log axes, markers,
-- errors; loglog_fit recovers a power law.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array
local fio = tide.fileio
local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("plot")

-- find the axes box: the first and last black rows in column x
local function box_rows(img, x)
  local top, bottom
  for y = 1, img.shape[1] do
    if img:get(y, x, 1) < 40 and img:get(y, x, 2) < 40 and img:get(y, x, 3) < 40 then
      top = top or y
      bottom = y
    end
  end
  return top, bottom
end
-- centre of the red pixels in column x
local function red_rows(img, x)
  local s, n = 0, 0
  for y = 1, img.shape[1] do
    if img:get(y, x, 1) > 200 and img:get(y, x, 2) < 60 and img:get(y, x, 3) < 60 then s, n = s + y, n + 1 end
  end
  return n > 0 and s / n or nil
end

local path = dir .. "/line.png"
T.check(fio.plot{ path = path, xrange = {0, 1}, yrange = {0, 1}, grid = false, legend = false,
  series = { { x = {0, 1}, y = {0.25, 0.25}, color = {1, 0, 0}, width = 2 } } } == path, "plot returns the path")
local img = fio.png_read(path)
T.check(img.shape[1] == 480 and img.shape[2] == 640, "default size 640 x 480")
local top, bottom = box_rows(img, 320)
local y = red_rows(img, 320)
T.check(y and math.abs(y - (bottom - 0.25 * (bottom - top))) < 1.0, string.format("y = 0.25 drawn at row %.1f (box %d..%d)", y or -1, top, bottom))

-- log axis: y = 10 and y = 1000 on [1, 1e4] sit at 1/4 and 3/4 of the height
path = dir .. "/log.png"
fio.plot{ path = path, ylog = true, xrange = {0, 1}, yrange = {1, 1e4}, grid = false, legend = false,
  series = { { x = {0, 1}, y = {10, 10}, color = {1, 0, 0}, width = 2 }, { x = {0, 1}, y = {1000, 1000}, color = {1, 0, 0}, width = 2 } } }
img = fio.png_read(path)
top, bottom = box_rows(img, 320)
local rows = {}
for yy = top + 2, bottom - 2 do
  if img:get(yy, 320, 1) > 200 and img:get(yy, 320, 2) < 60 then rows[#rows + 1] = yy end
end
local lo, hi = rows[#rows], rows[1]
T.check(lo and math.abs(lo - (bottom - 0.25 * (bottom - top))) < 1.5 and math.abs(hi - (bottom - 0.75 * (bottom - top))) < 1.5,
  string.format("log axis: rows %s, %s in box %d..%d", tostring(hi), tostring(lo), top, bottom))

-- markers only at the data points (no line between them)
path = dir .. "/markers.png"
fio.plot{ path = path, xrange = {0, 1}, yrange = {0, 1}, grid = false, legend = false,
  series = { { x = A.from({0.25, 0.75}), y = A.from({0.5, 0.5}), marker = "s", color = {0, 0, 1}, marker_size = 9 } } }
img = fio.png_read(path)
top, bottom = box_rows(img, 320)
local mid = math.floor((top + bottom) / 2 + 0.5)
local blue = 0
for x = 1, 640 do
  if img:get(mid, x, 3) > 200 and img:get(mid, x, 1) < 60 then blue = blue + 1 end
end
T.check(blue >= 4 and blue <= 12, "two square markers cut the middle row in a few pixels, no line (" .. blue .. ")")

-- a full plot with legend, title, labels, dashes, several markers: draws and keeps its size
path = dir .. "/full.png"
local t = A.linspace(0, 1, 50)
fio.plot{ path = path, width = 800, height = 500, title = "volume vs time", xlabel = "t [s]", ylabel = "V / V0",
  series = { { x = t, y = t, label = "linear" }, { x = t, y = t:clone():scale(0.5), label = "half", dash = "dashed" },
    { x = {0.1, 0.5}, y = {0.2, 0.3}, marker = "^", label = "exp" }, { y = {0.1, 0.2, 0.3}, marker = "o", dash = "dotted" },
    { x = {0.3}, y = {0.7}, marker = "d" }, { x = {0.6}, y = {0.7}, marker = "x" }, { x = {0.7}, y = {0.7}, marker = "+" } } }
img = fio.png_read(path)
T.check(img.shape[1] == 500 and img.shape[2] == 800, "custom size")

-- fitted order of a power law
local h, e = {}, {}
for k = 1, 5 do h[k] = 2 ^ -k; e[k] = 3 * h[k] ^ 2 end
local p, c = fio.loglog_fit(h, e)
T.near(p, 2, 1e-12, "fitted order")
T.near(c, 3, 1e-12, "fitted constant")
T.raises(function() fio.loglog_fit({1}, {1}) end, "two positive points", "fit needs two points")

-- errors
local ok = { path = dir .. "/e.png", series = { { y = {1, 2} } } }
local function with(k, v)
  local r = {}
  for a, b in pairs(ok) do r[a] = b end
  r[k] = v
  return r
end
T.raises(function() fio.plot(with("series", nil)) end, "missing option 'series'", "no series")
T.raises(function() fio.plot(with("series", {})) end, "1..32 series", "empty series")
T.raises(function() fio.plot(with("series", { { x = {1}, y = {1, 2} } })) end, "x has 1 values", "length mismatch")
T.raises(function() fio.plot(with("series", { { y = {1, "a"} } })) end, "y[2] must be a number", "bad entry")
T.raises(function() fio.plot(with("series", { { y = {1}, marker = "*" } })) end, "must be one of", "bad marker")
T.raises(function() fio.plot(with("series", { { y = {1}, width = 0 } })) end, "draws nothing", "invisible series")
T.raises(function() fio.plot(with("series", { { y = {1}, colour = {1, 0, 0} } })) end, "unknown option 'colour'", "series key")
T.raises(function() fio.plot(with("ylog", true) and { path = ok.path, ylog = true, yrange = {0, 1}, series = ok.series }) end,
  "positive range", "log axis range")
T.raises(function() fio.plot(with("legend", "middle")) end, "must be one of", "legend position")
T.raises(function() fio.plot(with("width", 10)) end, "'width'", "too narrow")

U.cleanup(dir)
os.exit(T.report())
