-- Regenerates docs/gallery.md and docs/gallery/*.png: the last frame of every
-- scene in scenes/ (run with small settings), plus reference pictures of the
-- output module itself.  Nothing in the gallery is pasted by hand.
--
--   build/tide scripts/gallery.lua [--frames N] [--only name]
--
-- A scene takes part when its --help lists --out (tide.params); --frames is
-- passed when listed too.  The scene's first comment line is its caption.
local tide = require "tide"
local A = tide.array
local fio = tide.fileio

local P = tide.params { frames = 12, only = "", tide = "" }
local root = os.getenv("TIDE_SOURCE_DIR") or "."
local exe = P.tide ~= "" and P.tide or (arg and arg[-1]) or "build/tide"
local gdir = root .. "/docs/gallery"
local outdir = root .. "/out/gallery"
fio.mkdirs(gdir .. "/x")

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local s = p:read("a")
  local ok = p:close()
  return ok, s
end
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local entries = {}

-- 1. scenes
local ok, list = sh("ls " .. q(root .. "/scenes") .. "/*.lua")
if ok then
  for path in list:gmatch("[^\n]+") do
    local name = path:match("([^/]+)%.lua$")
    if P.only == "" or P.only == name then
      local f = io.open(path)
      local caption = f and f:read("l") or ""
      if f then f:close() end
      caption = caption:gsub("^%-%-%s*", "")
      local _, help = sh(q(exe) .. " " .. q(path) .. " --help")
      if help:find("%-%-out") then
        local out = outdir .. "/" .. name
        sh("rm -rf " .. q(out))
        local cmd = q(exe) .. " --quiet " .. q(path) .. " --out " .. q(out)
        if help:find("%-%-frames") then cmd = cmd .. " --frames " .. P.frames end
        io.stderr:write("gallery: ", name, "\n")
        local t0 = tide.clock()
        local good, log = sh(cmd)
        local _, pngs = sh("find " .. q(out) .. " -name '*.png' | sort")
        local last
        for p in pngs:gmatch("[^\n]+") do last = p end
        if good and last then
          local dst = gdir .. "/" .. name .. ".png"
          assert(sh("cp " .. q(last) .. " " .. q(dst)))
          entries[#entries + 1] = { name = name, caption = caption, file = "gallery/" .. name .. ".png",
            note = string.format("`scenes/%s.lua --frames %d`, %.1f s", name, P.frames, tide.clock() - t0) }
        else
          io.stderr:write("gallery: ", name, " produced no picture\n", log, "\n")
        end
      else
        io.stderr:write("gallery: skipping ", name, " (no --out parameter)\n")
      end
    end
  end
end

-- 2. reference pictures of tide.fileio
if P.only == "" or P.only == "fileio" then
  local n = 96
  local dx = 1 / n
  local phi, speed = A.zeros({n, 64}), A.zeros({n, 64})
  local lab = A.zeros({n, 64}, "u8")
  for i = 1, n do for j = 1, 64 do
    local x, y = (i - 0.5) * dx, (j - 0.5) * dx
    phi:set(i, j, math.min(y - 0.18 - 0.03 * math.sin(9 * x), math.sqrt((x - 0.3) ^ 2 + (y - 0.45) ^ 2) - 0.08))
    speed:set(i, j, math.exp(-((x - 0.3) ^ 2 + (y - 0.45) ^ 2) / 0.02))
    if (x > 0.65 and x < 0.75 and y < 0.35) then lab:set(i, j, 2) end
  end end
  fio.png2d{ path = gdir .. "/fileio_2d.png", n = {n, 64}, dx = dx, phi = phi, labels = lab, width = 640,
    title = "tide.fileio.png2d: level set, solid cells" }
  fio.png2d{ path = gdir .. "/fileio_field.png", n = {n, 64}, dx = dx, field = speed, range = {0, 1},
    colormap = "magma", phi = phi, contour_color = {1, 1, 1}, width = 640, colorbar_label = "|u| [m/s]",
    title = "field, colour bar, contour" }
  local m = 48
  local phi3 = A.zeros({m, m, m})
  for i = 1, m do for j = 1, m do for k = 1, m do
    local x, y, z = (i - 0.5) / m, (j - 0.5) / m, (k - 0.5) / m
    phi3:set(i, j, k, math.min(y - 0.22 - 0.02 * math.sin(10 * x) * math.cos(8 * z),
      math.sqrt((x - 0.5) ^ 2 + (y - 0.6) ^ 2 + (z - 0.5) ^ 2) - 0.14))
  end end end
  fio.png3d{ path = gdir .. "/fileio_3d.png", phi = phi3, dx = 1 / m, title = "tide.fileio.png3d: marching cubes, shadows" }
  local t = A.linspace(0, 4, 80)
  local e, v = {}, {}
  for k = 1, 80 do
    local s = t:get(k)
    e[k] = math.exp(-0.5 * s) * (1 + 0.2 * math.cos(4 * s)); v[k] = 1 - 0.01 * s
  end
  fio.plot{ path = gdir .. "/fileio_plot.png", title = "tide.fileio.plot", xlabel = "t [s]", ylabel = "E / E0",
    series = { { x = t, y = e, label = "energy" }, { x = t, y = v, label = "volume", dash = "dashed" },
      { x = {1, 2, 3}, y = {0.62, 0.38, 0.22}, marker = "o", label = "reference" } } }
  for _, r in ipairs {
    { "fileio_2d", "2D frame: liquid level set (marching squares contour, anti-aliased fill) and solid cells" },
    { "fileio_field", "2D frame: a colour-mapped field with colour bar and the liquid contour" },
    { "fileio_3d", "3D frame: liquid surface by marching cubes with smooth normals, ground, box, shadow" },
    { "fileio_plot", "line plot with legend, dashes and reference markers" } } do
    entries[#entries + 1] = { name = r[1], caption = r[2], file = "gallery/" .. r[1] .. ".png",
      note = "`scripts/gallery.lua`" }
  end
end

-- 3. the page: every picture now in docs/gallery (so --only updates one
-- picture and keeps the others on the page)
local have = {}
for _, e in ipairs(entries) do have[e.name] = e end
local _, scenes = sh("ls " .. q(root .. "/scenes") .. "/*.lua")
local order = {}
for path in scenes:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.lua$")
  local f = io.open(gdir .. "/" .. name .. ".png")
  if f then
    f:close()
    if not have[name] then
      local sf = io.open(path)
      local caption = sf and (sf:read("l") or ""):gsub("^%-%-%s*", "") or ""
      if sf then sf:close() end
      have[name] = { name = name, caption = caption, file = "gallery/" .. name .. ".png", note = "`scenes/" .. name .. ".lua`" }
    end
    order[#order + 1] = have[name]
  end
end
for _, e in ipairs(entries) do
  if e.name:match("^fileio_") then order[#order + 1] = e end
end
if P.only ~= "" and P.only ~= "fileio" then
  for _, name in ipairs { "fileio_2d", "fileio_field", "fileio_3d", "fileio_plot" } do
    local f = io.open(gdir .. "/" .. name .. ".png")
    if f then
      f:close()
      order[#order + 1] = { name = name, caption = "reference picture of tide.fileio", file = "gallery/" .. name .. ".png",
        note = "`scripts/gallery.lua`" }
    end
  end
end
local lines = { "# Gallery", "",
  "Generated by `build/tide scripts/gallery.lua` (do not edit by hand): the last frame of every scene",
  "in `scenes/` (run with `--frames N`, default 12), and reference pictures of `tide.fileio`.", "" }
for _, e in ipairs(order) do
  lines[#lines + 1] = "## " .. e.name
  lines[#lines + 1] = ""
  lines[#lines + 1] = e.caption .. " (" .. e.note .. ")"
  lines[#lines + 1] = ""
  lines[#lines + 1] = "![" .. e.name .. "](" .. e.file .. ")"
  lines[#lines + 1] = ""
end
local f = assert(io.open(root .. "/docs/gallery.md", "w"))
f:write(table.concat(lines, "\n"))
f:close()
print(string.format("gallery: %d pictures in docs/gallery.md", #order))
