-- bench/couple_scenes.lua: the seconds per coupled projection of the seven scenes of Zarifi's
-- §6.1 at their Table 6.1 sizes (`--paper`: 100^3, 64^3 for the soft platform, the thesis's solid
-- resolutions), beside the bound measured in the same process on the same state -- the plain
-- liquid projection (tide.liquid.project with MGPCG on the scene's labels, face fractions and
-- level set, the solids static walls) -- and beside the thesis's 3.5-39 s per step of pressure
-- projection (Table 6.1's scenes, 8 cores of an AMD FX-8370E; the thesis gives the range over the
-- scenes, not the time of each), and the whole step's wall seconds beside the thesis's 18-59 s per
-- step (the same scenes; Tide's step with 2 threads).  Each scene runs in its own process:
--   build/tide scenes/zarifi_<name>.lua --paper --steps N --no-png
-- whose "@projection" line gives the mean and slowest wall seconds of line 7's coupled projection
-- (the "project" phase: clipping, assembly, preconditioner set-up, solve) over steps 2..N and the
-- plain projection of the last state (zarifi.run_scene, --steps).  The scenes start from their
-- first frame's state: the dam break's column has not reached the beam yet (bench/couple.lua
-- measures the dam break against the beam), the others are coupled from the first step.
--   build/tide bench/couple_scenes.lua [--steps 4] [--threads 2] [--only balls,light_toy] [--no-paper]
-- The whole set at --paper with --steps 4 takes 4-8 minutes on 2 cores (the set-up of a 100^3
-- scene, its particles and solids' SDFs, is most of it); --no-paper runs the scenes' small
-- defaults (2D, 32^2: seconds, for a smoke run).
local tide = require "tide"
local figures = require "tide.figures"

local P = tide.params({ steps = 4, threads = 2, only = "", paper = true }, {
  steps = "steps per scene (the first is not averaged: it has the allocations of a new run)",
  threads = "threads of each scene's process",
  only = "comma-separated scene names (empty: all seven)",
  paper = "Table 6.1 sizes (false: the scenes' small 2D defaults)",
})
if math.type(P.steps) ~= "integer" or P.steps < 2 then error("--steps must be a whole number >= 2", 0) end
if math.type(P.threads) ~= "integer" or P.threads < 1 then error("--threads must be a whole number >= 1", 0) end

-- Table 6.1's rows in the thesis's order: scene script, thesis name, grid, nodes / elements
local SCENES = {
  { "dam_beam", "dam break", "100³", "725 / 2688" },
  { "balls", "buoyancy", "100³", "481 / 2000" },
  { "compressed_cube", "compressibility", "100³", "343 / 1296" },
  { "sloped_panel", "thin solid 1", "100³", "882 / 2400" },
  { "soft_platform", "thin solid 2", "64³", "2450 / 6936" },
  { "hollow_sphere", "fluid in sphere", "100³", "992 / 2948" },
  { "light_toy", "light dino", "100³", "1424 / 5920" },
}
local want = {}
for w in P.only:gmatch("[%w_]+") do want[w] = true end
for w in pairs(want) do
  local ok = false
  for _, s in ipairs(SCENES) do ok = ok or s[1] == w end
  if not ok then error("--only: no scene '" .. w .. "' (dam_beam, balls, compressed_cube, sloped_panel, soft_platform, hollow_sphere, light_toy)", 0) end
end

local exe = figures.program()
local root = (debug.getinfo(1, "S").source:match("^@(.*)/bench/[^/]+$")) or "."
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local load = require("tide.timers").loadavg

print(string.format("Zarifi's §6.1 scenes%s, %d threads, %d steps each (steps 2..%d averaged); wall seconds per coupled projection",
  P.paper and " at Table 6.1's sizes" or " at their small defaults", P.threads, P.steps, P.steps))
print("| scene (thesis) | grid, solid (thesis) | unknowns | iterations | coupled projection: mean, slowest [s] | plain MGPCG [s] | x plain | thesis 3.5-39 s: x faster | whole step [s] (thesis 18-59 s: x faster) | load |")
print("|---|---|---|---|---|---|---|---|---|---|")
local means, failed = {}, 0
for _, s in ipairs(SCENES) do
  if next(want) == nil or want[s[1]] then
    local script = root .. "/scenes/zarifi_" .. s[1] .. ".lua"
    local cmd = string.format("%s --threads %d %s %s--steps %d --no-png --out %s 2>&1", q(exe), P.threads, q(script),
      P.paper and "--paper " or "", P.steps, q(os.tmpname()))
    local l0 = load()
    local p = assert(io.popen(cmd, "r"))
    local r, tail, solid = nil, {}, "?"
    for line in p:lines() do
      local sn, se = line:match("solids (%d+) nodes / (%d+) elements")
      if sn then solid = sn .. " / " .. se end
      local kv = line:match("^@projection (.*)$")
      if kv then
        r = {}
        for k, v in kv:gmatch("([%w_]+)=(%S+)") do r[k] = tonumber(v) or v end
      end
      tail[#tail + 1] = line
      if #tail > 8 then table.remove(tail, 1) end
    end
    local ok = p:close()
    if not (ok and r) then
      failed = failed + 1
      print(string.format("| %s (%s) | failed: %s | | | | | | | | %s |", s[1], s[2], (tail[#tail] or "no output"):gsub("|", "/"), l0))
      io.stderr:write(table.concat(tail, "\n"), "\n")
    else
      means[#means + 1] = r.mean
      print(string.format("| %s (%s) | %s, %s (%s, %s) | %d | %.1f | %.3f, %.3f | %.3f (%d it) | %.1f | %s | %.2f%s | %s |", s[1], s[2],
        r.grid, solid, s[3], s[4], r.unknowns, r.iterations, r.mean, r.slowest, r.plain, r.plain_iterations, r.mean / r.plain,
        P.paper and string.format("%.0f-%.0fx", 3.5 / r.mean, 39 / r.mean) or "-", r.step or 0,
        P.paper and r.step and string.format(" (%.0f-%.0fx)", 18 / r.step, 59 / r.step) or "", l0))
    end
    io.stdout:flush()
  end
end
if #means > 0 and P.paper then
  table.sort(means)
  print(string.format("\nrange over the scenes: %.3f-%.3f s per coupled projection, against the thesis's 3.5-39 s: "
    .. "%.0fx faster at the low ends, %.0fx at the high ends; a scene within 10x of 3.5 s needs <= 0.35 s",
    means[1], means[#means], 3.5 / means[1], 39 / means[#means]))
end
if failed > 0 then os.exit(1) end
