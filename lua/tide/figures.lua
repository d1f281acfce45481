--- tide.figures: reproducible paper figures.
--
-- A figure is a plain Lua script in figures/<name>.lua.  It declares what it
-- reproduces and its two parameter sets, computes, and records its outputs
-- through the object returned by F.figure:
--
--   local F = require "tide.figures"
--   local fig = F.figure {
--     paper = "Irving 2007 (PhD thesis)", number = "Figs. 3.2-3.4",
--     title = "Particle and tetrahedron on an incline",
--     shows = "downhill distance over time against the analytic motion",
--     quick = { dt = 4e-3 }, full = { dt = 1e-3 },   -- same keys in both
--     estimate = { quick = 1, full = 5 },            -- seconds on 2 cores (first-run ETA)
--   }
--   local P = fig.params                 -- the chosen set (--quick or not), --key value overrides
--   fig:csv("motion", { "t [s]", "s [m]" }, rows)          -- out/<...>/motion.csv
--   fig:plot("motion", { xlabel = "t [s]", ylabel = "s [m]", series = { ... } })  -- motion.png
--   fig:compare { quantity = "stop time", unit = "s", paper = 1.1397, source = "analytic",
--                 tide = t_stop, note = "first step with zero speed (dt = 1 ms)" }
--   fig:progress(k, n)                   -- k of n units done (drives the ETA)
--   fig:done()                           -- writes figure.json; required last call
--
-- The runner (F.main, entry points `make figures`, `build/tide scripts/figures.lua`)
-- runs every figure in its own process, writes a manifest per figure (versions,
-- git revision, compiler and flags, CPU, params, seed, threads, wall time, the
-- SHA-256 of every output and the content key), skips figures whose key is
-- unchanged, shows progress with an ETA, and generates docs/figures.md from the
-- outputs of the full (paper-size) run.  See docs/figures.md and README.md.
local raise = require("tide.core")._raise -- errors at the scene's line
local core = require "tide.core"
local json = require "tide.json"

local M = {}

local DESCRIBE = {} -- sentinel raised by F.figure when the runner only reads the metadata

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function sh(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  local s = p:read("a")
  local ok = p:close()
  return ok, s
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

local function read_all(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function write_atomic(path, text)
  local tmp = path .. ".tmp"
  local f = assert(io.open(tmp, "wb"))
  f:write(text)
  assert(f:close())
  assert(os.rename(tmp, path))
end

local function mkdirs(dir)
  if core.mkdir then return core.mkdir(dir) end
  return os.execute("mkdir -p " .. q(dir))
end

--- The source tree: TIDE_SOURCE_DIR, or the parent of the Lua library directory.
function M.root()
  local env = os.getenv("TIDE_SOURCE_DIR")
  if env and env ~= "" then return env end
  return (core.lua_dir or "lua"):gsub("/lua/?$", "")
end

local function fmt_time(s)
  if s ~= s or s == math.huge or s < 0 then return "--:--" end
  s = math.floor(s + 0.5)
  if s >= 3600 then return string.format("%d:%02d:%02d", s // 3600, (s % 3600) // 60, s % 60) end
  return string.format("%d:%02d", s // 60, s % 60)
end
M.fmt_time = fmt_time

-- numbers in CSV and tables: integers as such, floats with 10 significant digits
local function num(v)
  if math.type(v) == "integer" then return tostring(v) end
  if type(v) == "number" then
    if v ~= v then return "nan" end
    if v == math.huge then return "inf" end
    if v == -math.huge then return "-inf" end
    return string.format("%.10g", v)
  end
  local s = tostring(v)
  if s:find('[,"\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

local function short(v)
  if type(v) ~= "number" then return tostring(v) end
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= 0 and (math.abs(v) < 1e-3 or math.abs(v) >= 1e5) then return string.format("%.3e", v) end
  return string.format("%.5g", v)
end
M.short = short

------------------------------------------------------------------------------
-- the figure side

local Figure = {}
Figure.__index = Figure

local meta_keys = { name = "string", paper = "string", number = "string", title = "string", shows = "string",
  quick = "table", full = "table", estimate = "table", seed = "number", inputs = "table",
  deterministic = { boolean = true, string = true } }

local function check_meta(m)
  if type(m) ~= "table" then raise("tide.figures.figure: table of named arguments expected, got " .. type(m)) end
  for k, v in pairs(m) do
    local want = meta_keys[k]
    if not want then
      local known = {}
      for n in pairs(meta_keys) do known[#known + 1] = n end
      table.sort(known)
      raise(string.format("tide.figures.figure: unknown option '%s' (accepted: %s)", tostring(k),
        table.concat(known, ", ")))
    end
    local ok = type(want) == "table" and want[type(v)] or type(v) == want
    if not ok then raise(string.format("tide.figures.figure: option '%s' has the wrong type (%s)", k, type(v))) end
  end
  for _, k in ipairs { "paper", "number", "title", "shows", "quick", "full" } do
    if m[k] == nil then raise("tide.figures.figure: missing option '" .. k .. "'") end
  end
  for k in pairs(m.quick) do
    if m.full[k] == nil then raise("tide.figures.figure: quick parameter '" .. k .. "' has no full value") end
  end
  for k in pairs(m.full) do
    if m.quick[k] == nil then raise("tide.figures.figure: full parameter '" .. k .. "' has no quick value") end
  end
  if m.seed and (math.type(m.seed) ~= "integer" or m.seed < 0) then
    raise("tide.figures.figure: 'seed' must be a non-negative integer")
  end
end

local function script_name()
  local a = _G.arg and _G.arg[0] or "figure.lua"
  return (a:match("([^/]+)%.lua$") or a), a
end

--- Declare a figure (see the top of this file); returns the figure object.
function M.figure(m)
  check_meta(m)
  local name, path = script_name()
  name = m.name or name
  if M._describe then
    M._described = { name = name, paper = m.paper, number = m.number, title = m.title, shows = m.shows,
      estimate = m.estimate or {}, seed = m.seed or 1, inputs = m.inputs or {},
      deterministic = m.deterministic == nil and true or m.deterministic }
    error(DESCRIBE, 0)
  end
  -- command line: --quick, --out DIR, --<param> value
  local args = _G.arg or {}
  local quick = false
  for i = 1, #args do if args[i] == "--quick" or args[i] == "--quick=true" then quick = true end end
  local defaults = { quick = false, out = "" }
  local set = quick and m.quick or m.full
  for k, v in pairs(set) do
    if defaults[k] ~= nil then raise("tide.figures.figure: parameter name '" .. k .. "' is reserved") end
    defaults[k] = v
  end
  local P = require("tide.params").parse(defaults, nil, args)
  local out = P.out
  if out == "" then out = (quick and "out/figures-quick/" or "out/figures/") .. name end
  P.out, P.quick = nil, nil
  mkdirs(out)
  local seed = m.seed or 1
  if core.seed then core.seed(seed) end
  local fig = setmetatable({
    name = name, script = path, meta = m, params = P, quick = quick, out = out, seed = seed,
    pictures = {}, data = {}, rows = {}, t0 = core.clock(),
    machine = os.getenv("TIDE_FIGURES_PROGRESS") == "1",
  }, Figure)
  if not fig.machine and not (core.quiet == true) then
    io.stderr:write(string.format("%s: %s %s (%s run)\n", name, m.paper, m.number, quick and "quick" or "full"))
  end
  return fig
end

--- Path of an output file of this figure: fig:path("frame_0003.png").
function Figure:path(file)
  if type(file) ~= "string" or file == "" or file:find("%.%.") or file:sub(1, 1) == "/" then
    raise("figure:path: a file name inside the figure's output directory expected")
  end
  return self.out .. "/" .. file
end

--- Write a CSV table: fig:csv(name, header, rows) with header a list of column
-- names (with units) and rows a list of lists of numbers/strings.
function Figure:csv(name, header, rows)
  if type(name) ~= "string" or not name:match("^[%w_%-%.]+$") then raise("figure:csv: name (letters, digits, _-.) expected") end
  if type(header) ~= "table" or #header == 0 then raise("figure:csv: header (list of column names) expected") end
  if type(rows) ~= "table" then raise("figure:csv: rows (list of lists) expected") end
  local lines = {}
  local h = {}
  for i, c in ipairs(header) do h[i] = num(c) end
  lines[1] = table.concat(h, ",")
  for r, row in ipairs(rows) do
    if type(row) ~= "table" or #row ~= #header then
      raise(string.format("figure:csv: row %d has %s values, %d columns expected", r,
        type(row) == "table" and tostring(#row) or "no", #header))
    end
    local cells = {}
    for i = 1, #header do cells[i] = num(row[i]) end
    lines[#lines + 1] = table.concat(cells, ",")
  end
  local file = name:match("%.csv$") and name or name .. ".csv"
  write_atomic(self:path(file), table.concat(lines, "\n") .. "\n")
  self.data[#self.data + 1] = file
  return self:path(file)
end

local series_style = {
  paper = { color = { 0, 0, 0 }, marker = "s", width = 0 },
  analytic = { color = { 0, 0, 0 }, dash = "dashed" },
}

--- Plot to <name>.png with tide.fileio.plot.  Options as tide.fileio.plot
-- (xlabel and ylabel, with units, are required), plus `caption` (the line under
-- the picture in docs/figures.md).  A series with `paper = true` holds the
-- paper's points (black squares, label prefixed "paper: "), one with
-- `analytic = true` an analytic curve (black dashed).
function Figure:plot(name, o)
  if type(name) ~= "string" or not name:match("^[%w_%-]+$") then raise("figure:plot: name (letters, digits, _-) expected") end
  if type(o) ~= "table" then raise("figure:plot: table of options expected") end
  if type(o.xlabel) ~= "string" or type(o.ylabel) ~= "string" then
    raise("figure:plot: xlabel and ylabel (with units) are required")
  end
  if type(o.series) ~= "table" then raise("figure:plot: 'series' expected") end
  local opts = {}
  for k, v in pairs(o) do if k ~= "caption" and k ~= "series" then opts[k] = v end end
  local series = {}
  for i, s in ipairs(o.series) do
    local c = {}
    local style = (s.paper and series_style.paper) or (s.analytic and series_style.analytic) or nil
    if style then for k, v in pairs(style) do c[k] = v end end
    for k, v in pairs(s) do if k ~= "paper" and k ~= "analytic" then c[k] = v end end
    if s.paper and c.label and not c.label:find("^paper") then c.label = "paper: " .. c.label end
    series[i] = c
  end
  opts.series = series
  opts.path = self:path(name .. ".png")
  require("tide.fileio").plot(opts)
  self.pictures[#self.pictures + 1] = { file = name .. ".png", caption = o.caption or o.title or name }
  return opts.path
end

--- Record a picture written by other means (png2d/png3d frames, picture rows).
function Figure:picture(file, caption)
  if type(file) ~= "string" or not exists(self:path(file)) then
    raise("figure:picture: '" .. tostring(file) .. "' is not a file in the figure's output directory")
  end
  self.pictures[#self.pictures + 1] = { file = file, caption = caption or file }
end

--- A picture row: the PNGs `files` (written into the output directory, e.g.
-- by png2d/png3d at fig:path(...)) side by side in <name>.png (white padding
-- to the tallest), recorded as one picture.  The parts are removed unless
-- keep = true.
function Figure:row(name, files, caption, keep)
  if type(name) ~= "string" or not name:match("^[%w_%-]+$") then raise("figure:row: name (letters, digits, _-) expected") end
  if type(files) ~= "table" or #files == 0 then raise("figure:row: list of PNG files expected") end
  local fio, A = require "tide.fileio", require "tide.array"
  local imgs, w, h = {}, 0, 0
  for i, f in ipairs(files) do
    local img, err = fio.png_read(self:path(f))
    if not img then raise("figure:row: " .. tostring(err)) end
    imgs[i] = img
    local shp = img.shape
    h, w = math.max(h, shp[1]), w + shp[2]
  end
  local out = A.zeros({ h, w, 3 }, "u8")
  out:fill(255)
  local x = 1
  for _, img in ipairs(imgs) do
    local shp = img.shape
    out:slice(1, 1, shp[1]):slice(2, x, x + shp[2] - 1):copy(img:slice(3, 1, 3))
    x = x + shp[2]
  end
  fio.png_write(self:path(name .. ".png"), out)
  if not keep then for _, f in ipairs(files) do os.remove(self:path(f)) end end
  self.pictures[#self.pictures + 1] = { file = name .. ".png", caption = caption or name }
  return self:path(name .. ".png")
end

--- A paper-vs-Tide row: quantity, unit, paper (the paper's or the analytic
-- value), source (where the paper value comes from), tide, note (one line:
-- why they differ).  The difference and relative difference are computed.
function Figure:compare(r)
  if type(r) ~= "table" then raise("figure:compare: table expected") end
  local allowed = { quantity = true, unit = true, paper = true, source = true, tide = true, note = true }
  for k in pairs(r) do if not allowed[k] then raise("figure:compare: unknown key '" .. tostring(k) .. "'") end end
  if type(r.quantity) ~= "string" then raise("figure:compare: 'quantity' (string) expected") end
  if type(r.tide) ~= "number" and type(r.tide) ~= "string" then raise("figure:compare: 'tide' (number) expected") end
  if r.paper ~= nil and type(r.paper) ~= "number" and type(r.paper) ~= "string" then
    raise("figure:compare: 'paper' must be a number or a string")
  end
  local row = { quantity = r.quantity, unit = r.unit or "", paper = r.paper, source = r.source or "",
    tide = r.tide, note = r.note or "" }
  if type(r.paper) == "number" and type(r.tide) == "number" then
    row.diff = r.tide - r.paper
    if r.paper ~= 0 then row.rel = row.diff / math.abs(r.paper) end
  end
  self.rows[#self.rows + 1] = row
  return row
end

--- Report progress: k of n units of work done.
function Figure:progress(k, n, what)
  if self.machine then
    io.stderr:write(string.format("@progress %d %d %s\n", k, n, what or ""))
  elseif core.progress == true then
    local el = core.clock() - self.t0
    io.stderr:write(string.format("\r%s: %d/%d %s ETA %s   ", self.name, k, n, what or "",
      fmt_time(k > 0 and el * (n - k) / k or math.huge)))
    if k >= n then io.stderr:write("\n") end
  end
end

local function fmt_diff(row)
  if row.rel then return string.format("%+.2f%%", 100 * row.rel) end
  if row.diff then return short(row.diff) end
  return ""
end
M.fmt_diff = fmt_diff

--- Finish: write figure.json (metadata, params, pictures, data, comparison rows)
-- and print the comparison table.
function Figure:done()
  local m = self.meta
  local rec = { name = self.name, paper = m.paper, number = m.number, title = m.title, shows = m.shows,
    mode = self.quick and "quick" or "full", params = self.params, seed = self.seed,
    threads = core.threads(), pictures = self.pictures, data = self.data, compare = self.rows,
    deterministic = m.deterministic == nil and true or m.deterministic, inputs = m.inputs or {} }
  assert(json.write(self:path("figure.json"), rec))
  if not (core.quiet == true) then
    print(string.format("%s (%s %s): %d picture(s), %d table(s)", self.name, m.paper, m.number, #self.pictures,
      #self.data))
    for _, r in ipairs(self.rows) do
      print(string.format("  %-44s paper %-12s Tide %-12s %s", r.quantity, short(r.paper or "-"), short(r.tide),
        fmt_diff(r)))
    end
  end
  return rec
end

------------------------------------------------------------------------------
-- the runner

local function list_figures(root)
  local ok, s = sh("ls " .. q(root .. "/figures") .. "/*.lua")
  local names = {}
  if ok then
    for path in s:gmatch("[^\n]+") do
      local n = path:match("([^/]+)%.lua$")
      if n and not n:match("^_") then names[#names + 1] = n end
    end
  end
  table.sort(names)
  return names
end
M.list = list_figures

-- the figure's metadata, read by running the script up to its F.figure call
local function describe(root, name)
  local path = root .. "/figures/" .. name .. ".lua"
  local chunk, err = loadfile(path)
  if not chunk then return nil, err end
  local saved = _G.arg
  _G.arg = { [0] = path }
  M._describe, M._described = true, nil
  local ok, e = pcall(chunk)
  M._describe = nil
  _G.arg = saved
  if ok or e ~= DESCRIBE then
    return nil, ok and (path .. ": the script never called tide.figures.figure") or tostring(e)
  end
  return M._described
end
M.describe = describe

local function sha256_files(files)
  if #files == 0 then return {} end
  local parts = {}
  for i, f in ipairs(files) do parts[i] = q(f) end
  local ok, s = sh("sha256sum " .. table.concat(parts, " "))
  local out = {}
  if ok then
    for h, f in s:gmatch("(%x+)%s+%*?([^\n]+)") do out[f] = h end
  end
  return out
end

local function sha256_text(text)
  local tmp = os.tmpname()
  write_atomic(tmp, text)
  local h = sha256_files({ tmp })[tmp]
  os.remove(tmp)
  return h
end

-- the program running us: the lowest entry of arg (argv[0])
local function program()
  local a = _G.arg or {}
  local i = -1
  local p
  while a[i] ~= nil do p = a[i]; i = i - 1 end
  if p and p:find("/") then return p end
  local env = os.getenv("TIDE_BUILD_DIR")
  if env and env ~= "" then return env .. "/tide" end
  return p or "tide"
end
M.program = program

-- compiler, flags, CPU: what the manifest records about the build and machine
local function environment(exe)
  local env = {}
  local bdir = exe:match("^(.*)/[^/]+$") or "."
  local cache = read_all(bdir .. "/CMakeCache.txt") or ""
  local function var(n) return cache:match("\n" .. n .. ":[%w_]+=([^\n]*)") end
  env.build_type = var("CMAKE_BUILD_TYPE")
  local cc = var("CMAKE_C_COMPILER")
  if cc then
    local _, v = sh(q(cc) .. " --version")
    env.compiler = (v:match("[^\n]+") or cc)
  end
  local cmds = read_all(bdir .. "/compile_commands.json")
  if cmds then
    for line in cmds:gmatch("[^\n]+") do
      if line:find('"command"', 1, true) and line:find("runtime/core.c", 1, true) then
        local flags = {}
        for w in line:gmatch("%S+") do
          if w:match("^%-[fmOgW]") or w:match("^%-std") then flags[#flags + 1] = w end
        end
        env.flags = table.concat(flags, " ")
        break
      end
    end
  end
  local cpuinfo = read_all("/proc/cpuinfo") or ""
  env.cpu = cpuinfo:match("model name%s*:%s*([^\n]+)") or "unknown"
  local n = 0
  for _ in cpuinfo:gmatch("\nprocessor%s*:") do n = n + 1 end
  if cpuinfo:match("^processor") then n = n + 1 end
  env.cpus = n
  local _, un = sh("uname -sr")
  env.os = un:gsub("\n", "")
  return env
end

local function lua_library_files(root)
  local _, s = sh("find " .. q(root .. "/lua") .. " -name '*.lua' | LC_ALL=C sort")
  local files = {}
  for f in s:gmatch("[^\n]+") do files[#files + 1] = f end
  return files
end

local function usage()
  return [[
usage: tide scripts/figures.lua [NAME ...] [options]      (make figures)
  NAME          figures to run (file names in figures/ without .lua); default all
  --quick       small sizes (seconds per figure); output in out/figures-quick/
  --out DIR     output directory (default out/figures or out/figures-quick)
  --force       recompute even when the content key is unchanged
  --docs        regenerate docs/figures.md from the outputs after running
                (the default for a full run of every figure)
  --no-docs     do not touch docs/
  --list        list the figures with their paper, number and estimated time
  --threads N   threads of each figure run (default: this run's --threads)
]]
end

local function parse_args(args)
  local o = { names = {}, quick = false, force = false, docs = nil, list = false }
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--quick" then o.quick = true
    elseif a == "--force" then o.force = true
    elseif a == "--docs" then o.docs = true
    elseif a == "--no-docs" then o.docs = false
    elseif a == "--list" then o.list = true
    elseif a == "--help" or a == "-h" then o.help = true
    elseif a == "--out" or a == "--threads" then
      if args[i + 1] == nil then error("tide figures: " .. a .. " needs a value", 0) end
      if a == "--out" then o.out = args[i + 1] else
        o.threads = math.tointeger(tonumber(args[i + 1]))
        if not o.threads or o.threads < 1 then error("tide figures: --threads needs a positive integer", 0) end
      end
      i = i + 1
    elseif a:sub(1, 1) == "-" then
      error("tide figures: unknown option " .. a .. "\n" .. usage(), 0)
    else
      o.names[#o.names + 1] = a
    end
    i = i + 1
  end
  return o
end

-- the content key: script, declared inputs, Lua library, tide executable, mode, threads, seed
local function content_key(root, exe, name, meta, mode, threads)
  local files = { root .. "/figures/" .. name .. ".lua", exe }
  for _, f in ipairs(meta.inputs or {}) do files[#files + 1] = root .. "/" .. f end
  for _, f in ipairs(lua_library_files(root)) do files[#files + 1] = f end
  local h = sha256_files(files)
  local parts = { "mode=" .. mode, "threads=" .. threads, "seed=" .. tostring(meta.seed) }
  for _, f in ipairs(files) do
    parts[#parts + 1] = (f == exe and "<tide>" or f:sub(#root + 2)) .. "=" .. (h[f] or "missing")
  end
  return sha256_text(table.concat(parts, "\n")), h
end

local function outputs_intact(dir, man)
  for _, f in ipairs(man.files or {}) do
    if not exists(dir .. "/" .. f.file) then return false end
  end
  return man.files ~= nil
end

--- Run figures: F.main(args) with args as on the command line (see usage()).
-- Returns the number of failed figures.
function M.main(args)
  local o = parse_args(args or {})
  if o.help then print(usage()) return 0 end
  local root = M.root()
  local exe = program()
  local all = list_figures(root)
  local names = #o.names > 0 and o.names or all
  local known = {}
  for _, n in ipairs(all) do known[n] = true end
  for _, n in ipairs(names) do
    if not known[n] then error("tide figures: no figure '" .. n .. "' in " .. root .. "/figures (have: " ..
        table.concat(all, ", ") .. ")", 0) end
  end
  local mode = o.quick and "quick" or "full"
  local outroot = o.out or (o.quick and "out/figures-quick" or "out/figures")
  local threads = o.threads or core.threads()
  local quiet = core.quiet == true
  local tty = core.progress == true and not quiet
  local function say(...) if not quiet then print(string.format(...)) io.stdout:flush() end end

  -- metadata, keys, what is up to date
  local jobs, failed = {}, 0
  for _, n in ipairs(names) do
    local meta, err = describe(root, n)
    if not meta then
      say("figures: %s: cannot read its declaration: %s", n, err)
      failed = failed + 1
    else
      local key, hashes = content_key(root, exe, n, meta, mode, threads)
      local dir = outroot .. "/" .. n
      local old = json.read(dir .. "/manifest.json")
      local est = (old and old.status == "finished" and old.wall_seconds) or meta.estimate[mode] or 0
      local job = { name = n, meta = meta, key = key, hashes = hashes, dir = dir, estimate = est }
      job.fresh = not o.force and old and old.status == "finished" and old.key == key and outputs_intact(dir, old)
      jobs[#jobs + 1] = job
    end
  end
  if o.list then
    for _, j in ipairs(jobs) do
      say("%-24s %-34s %-16s %s  (%s %s)", j.name, j.meta.paper, j.meta.number, j.fresh and "up to date" or "to run",
        fmt_time(j.estimate), mode)
    end
    return failed
  end
  local todo, total = 0, 0
  for _, j in ipairs(jobs) do
    if not j.fresh then todo, total = todo + 1, total + j.estimate end
  end
  say("figures: %d %s figure(s), %d to run, %d up to date; estimated %s with %d thread(s); output in %s/",
    #jobs, mode, todo, #jobs - todo, fmt_time(total), threads, outroot)

  local env = environment(exe)
  local v = core.versions()
  local left = total
  local k = 0
  local wall_all = core.clock()
  for _, j in ipairs(jobs) do
    if j.fresh then
      say("figures: %-22s up to date (key %s)", j.name, j.key:sub(1, 12))
    else
      k = k + 1
      left = left - j.estimate
      mkdirs(j.dir)
      os.remove(j.dir .. "/figure.json")
      local log = assert(io.open(j.dir .. "/log.txt", "w"))
      local cmd = string.format("TIDE_FIGURES_PROGRESS=1 %s --threads %d --seed %d --quiet %s %s--out %s 2>&1",
        q(exe), threads, j.meta.seed, q(root .. "/figures/" .. j.name .. ".lua"), o.quick and "--quick " or "", q(j.dir))
      if not tty then say("figures: [%d/%d] %s (%s %s), estimated %s", k, todo, j.name, j.meta.paper, j.meta.number,
          fmt_time(j.estimate)) end
      local started = os.date("!%Y-%m-%dT%H:%M:%SZ")
      local t0 = core.clock()
      local p = io.popen(cmd, "r")
      local last_pct = 0
      for line in p:lines() do
        local a, b, what = line:match("^@progress (%d+) (%d+) ?(.*)$")
        if a then
          a, b = tonumber(a), tonumber(b)
          local el = core.clock() - t0
          local frac = b > 0 and a / b or 0
          local eta = frac > 0 and el * (1 - frac) / frac or math.max(j.estimate - el, 0)
          if tty then
            io.stderr:write(string.format("\r[%d/%d] %-22s %3d%% %-20s ETA %s (all %s)   ", k, todo, j.name,
              math.floor(100 * frac), what:sub(1, 20), fmt_time(eta), fmt_time(eta + left)))
          elseif not quiet and el - last_pct >= 10 then -- a line every 10 s at most
            last_pct = el
            say("figures:   %s %3d%% after %s, ETA %s (all %s)", j.name, math.floor(100 * frac), fmt_time(el),
              fmt_time(eta), fmt_time(eta + left))
          end
        else
          log:write(line, "\n")
        end
      end
      local ok = p:close()
      local wall = core.clock() - t0
      log:close()
      if tty then io.stderr:write("\n") end
      local rec = ok and json.read(j.dir .. "/figure.json") or nil
      local man = {
        name = j.name, mode = mode, status = rec and "finished" or "failed", key = j.key,
        script = "figures/" .. j.name .. ".lua", started = started, finished = os.date("!%Y-%m-%dT%H:%M:%SZ"),
        wall_seconds = wall, threads = threads, seed = j.meta.seed, command = cmd:gsub(" 2>&1$", ""),
        versions = { tide = v.tide, lua = v.lua, suitesparse = v.suitesparse, libpng = v.libpng, blas = v.blas },
        git = v.git, build = env, inputs = j.hashes and (function()
          local t = {}
          for f, h in pairs(j.hashes) do t[f == exe and "tide" or f:sub(#root + 2)] = h end
          return t
        end)() or {},
      }
      if rec then
        man.params = rec.params
        man.paper, man.number, man.title = rec.paper, rec.number, rec.title
        man.deterministic = rec.deterministic
        local files = {}
        for _, f in ipairs(rec.data) do files[#files + 1] = f end
        for _, pic in ipairs(rec.pictures) do files[#files + 1] = pic.file end
        table.sort(files)
        local full = {}
        for i, f in ipairs(files) do full[i] = j.dir .. "/" .. f end
        local h = sha256_files(full)
        man.files = {}
        for i, f in ipairs(files) do man.files[i] = { file = f, sha256 = h[full[i]] } end
        say("figures: [%d/%d] %-22s done in %s%s", k, todo, j.name, fmt_time(wall), left > 0 and
          (", left about " .. fmt_time(left)) or "")
        for _, r in ipairs(rec.compare or {}) do
          say("    %-48s paper %-11s Tide %-11s %s", r.quantity, short(r.paper or "-"), short(r.tide), fmt_diff(r))
        end
      else
        failed = failed + 1
        man.error = "the figure script failed; see log.txt"
        say("figures: [%d/%d] %s FAILED after %s; its log (%s/log.txt):", k, todo, j.name, fmt_time(wall), j.dir)
        local tail = read_all(j.dir .. "/log.txt") or ""
        say("%s", tail:sub(-2000))
      end
      assert(json.write(j.dir .. "/manifest.json", man))
    end
  end
  say("figures: %d figure(s) in %s, %d failed; output in %s/", #jobs, fmt_time(core.clock() - wall_all), failed, outroot)
  local docs = o.docs
  if docs == nil then docs = not o.quick and o.out == nil end
  if docs then
    local page = M.docs { out = outroot, root = root }
    say("figures: wrote %s", page)
  end
  return failed
end

------------------------------------------------------------------------------
-- docs/figures.md, generated from the outputs

local function cell(s) return (tostring(s):gsub("|", "\\|"):gsub("\n", " ")) end

-- The sections of an existing docs/figures.md: name -> { index = its line in the list, body =
-- its text from its anchor to the next one }.
local function old_sections(page)
  local f = io.open(page, "r")
  if not f then return {} end
  local text = f:read("a")
  f:close()
  local out = {}
  for line in text:gmatch("[^\n]+") do
    local n = line:match("^%- %[.-%]%(#([%w_]+)%)")
    if n then out[n] = { index = line } end
  end
  local pos = 1
  while true do
    local a, e, n = text:find('<a id="([%w_]+)"></a>', pos)
    if not a then break end
    local b = text:find('<a id="', e + 1, true)
    if out[n] then out[n].body = text:sub(a, (b or #text + 1) - 1):gsub("%s+$", "") .. "\n" end
    pos = e + 1
  end
  return out
end

--- Write docs/figures.md (and copy the pictures to docs/figures/) from the
-- manifests and figure.json files under `out` (default out/figures); figures
-- without a full run there are taken from out/figures-quick and marked so,
-- and those with neither keep their section of the existing page (running
-- one figure rewrites its own section only).
function M.docs(o)
  o = o or {}
  local root = o.root or M.root()
  local out = o.out or "out/figures"
  local quick_out = o.quick_out or "out/figures-quick"
  local ddir = root .. "/docs/figures"
  mkdirs(ddir)
  local lines = { "# Paper figures", "",
    "Generated by `make figures` (`build/tide scripts/figures.lua`) from the outputs of the figure",
    "scripts in `figures/`; do not edit by hand. Each section: the paper and figure or table number,",
    "what it shows, Tide's picture(s), and the paper's numbers beside Tide's with the difference.",
    "Rerun one figure with `build/tide scripts/figures.lua NAME`; `--quick` runs the small versions",
    "(part of `make test`). Manifests (versions, compiler, CPU, parameters, wall time, output hashes)",
    "are in `out/figures/NAME/manifest.json`.", "" }
  local index = {}
  local body = {}
  local count = 0
  local kept = old_sections(root .. "/docs/figures.md")
  for _, n in ipairs(list_figures(root)) do
    local dir = out .. "/" .. n
    local man = json.read(dir .. "/manifest.json")
    local rec = man and man.status == "finished" and json.read(dir .. "/figure.json")
    if not rec then
      dir = quick_out .. "/" .. n
      man = json.read(dir .. "/manifest.json")
      rec = man and man.status == "finished" and json.read(dir .. "/figure.json")
    end
    if not rec and kept[n] and kept[n].body then
      index[#index + 1] = kept[n].index
      body[#body + 1] = kept[n].body
    end
    if rec then
      count = count + 1
      index[#index + 1] = string.format("- [%s](#%s): %s %s", rec.title, n, rec.paper, rec.number)
      local b = body
      b[#b + 1] = string.format('<a id="%s"></a>', n)
      b[#b + 1] = ""
      b[#b + 1] = string.format("## %s -- %s", rec.paper .. " " .. rec.number, rec.title)
      b[#b + 1] = ""
      b[#b + 1] = rec.shows
      b[#b + 1] = ""
      local ps = {}
      local keys = {}
      for k2 in pairs(rec.params or {}) do keys[#keys + 1] = k2 end
      table.sort(keys)
      for _, k2 in ipairs(keys) do ps[#ps + 1] = k2 .. " = " .. short(rec.params[k2]) end
      b[#b + 1] = string.format("`figures/%s.lua`%s: %s; %d thread(s), seed %d, %s wall, Tide %s (%s).", n,
        rec.mode == "quick" and " (**quick run**: small sizes, not the paper's)" or "",
        #ps > 0 and table.concat(ps, ", ") or "no parameters", man.threads or 0, man.seed or 0,
        fmt_time(man.wall_seconds or 0), man.versions and man.versions.tide or "?", man.git or "?")
      b[#b + 1] = ""
      for _, pic in ipairs(rec.pictures or {}) do
        local dst = n .. "-" .. pic.file
        sh("cp " .. q(dir .. "/" .. pic.file) .. " " .. q(ddir .. "/" .. dst))
        b[#b + 1] = string.format("![%s](figures/%s)", cell(pic.caption), dst)
        b[#b + 1] = ""
        b[#b + 1] = "*" .. pic.caption .. "*"
        b[#b + 1] = ""
      end
      if #(rec.compare or {}) > 0 then
        b[#b + 1] = "| quantity | paper / reference | Tide | difference | note |"
        b[#b + 1] = "|---|---|---|---|---|"
        for _, r in ipairs(rec.compare) do
          local unit = (r.unit and r.unit ~= "") and (" " .. r.unit) or ""
          local paper = r.paper ~= nil and (short(r.paper) .. unit) or "-"
          if r.source and r.source ~= "" then paper = paper .. " (" .. r.source .. ")" end
          b[#b + 1] = string.format("| %s | %s | %s | %s | %s |", cell(r.quantity), cell(paper),
            cell(short(r.tide) .. unit), cell(fmt_diff(r)), cell(r.note or ""))
        end
        b[#b + 1] = ""
      end
      if #(rec.data or {}) > 0 then
        b[#b + 1] = "Data: " .. table.concat((function()
          local t = {}
          for i, f in ipairs(rec.data) do t[i] = "`" .. f .. "`" end
          return t
        end)(), ", ") .. string.format(" in `out/figures/%s/`.", n)
        b[#b + 1] = ""
      end
      if rec.deterministic ~= true then
        b[#b + 1] = "Not byte-identical between runs: " .. tostring(rec.deterministic)
        b[#b + 1] = ""
      end
    end
  end
  for _, l in ipairs(index) do lines[#lines + 1] = l end
  lines[#lines + 1] = ""
  for _, l in ipairs(body) do lines[#lines + 1] = l end
  local page = root .. "/docs/figures.md"
  write_atomic(page, table.concat(lines, "\n"))
  return page, count
end

return M
