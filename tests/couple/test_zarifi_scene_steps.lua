-- The scenes' measuring mode (zarifi.run_scene with --steps N) and bench/couple_scenes.lua, which
-- runs each of the seven scenes of §6.1 in its own process and reads its "@projection" line: here
-- at the scenes' small 2D defaults (--no-paper, 2 steps each, seconds in all).  Asserts that every
-- scene reports a coupled projection (unknowns, iterations, mean <= slowest wall seconds) beside
-- the plain liquid projection of its state, that the bench exits 0, and that a bad --steps or
-- --only is refused with a message naming it.
local T = require "tide.testing"
local src, bin = os.getenv("TIDE_SOURCE_DIR") or ".", os.getenv("TIDE_BUILD_DIR") or "build"
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function run(args)
  local p = assert(io.popen(q(bin .. "/tide") .. " --threads 2 --no-progress " .. args .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return ok, out
end

local ok, out = run(q(src .. "/bench/couple_scenes.lua") .. " --no-paper --steps 2")
T.check(ok, "bench/couple_scenes.lua --no-paper exits 0")
local rows = 0
for line in out:gmatch("[^\n]+") do
  local name, unknowns, it, mean, slowest, plain, pit =
    line:match("^| ([%w_]+) %(.-%) | .- | (%d+) | ([%d.]+) | ([%d.]+), ([%d.]+) | ([%d.]+) %((%d+) it%) |")
  if name then
    rows = rows + 1
    unknowns, it, mean, slowest, plain, pit = tonumber(unknowns), tonumber(it), tonumber(mean), tonumber(slowest),
      tonumber(plain), tonumber(pit)
    T.check(unknowns > 0 and it > 0 and pit > 0, string.format("%s: %d unknowns, %g iterations (plain %d)", name, unknowns, it, pit))
    T.check(mean <= slowest and plain >= 0, string.format("%s: mean %.4f <= slowest %.4f s, plain %.4f s", name, mean, slowest, plain))
  end
end
T.check(rows == 7, string.format("seven scenes measured (%d rows)\n%s", rows, rows == 7 and "" or out))

-- one scene's own lines: the mass reference's iterations per step, and where a step's time went
local ok1, out1 = run(q(src .. "/scenes/zarifi_balls.lua") .. " --steps 2 --no-png")
local total, parts = out1:match("a step %(steps 2%.%.2%): ([%d.]+) s wall: ([^\n]+)")
local sum, named = 0, {}
for name, v in (parts or ""):gmatch("(%a+) ([%d.]+)") do sum, named[name] = sum + tonumber(v), true end
T.check(ok1 and total and named.project and named.particles and sum <= tonumber(total) + 0.01,
  string.format("the step's phases (%s) sum to %.3f of its %s s", tostring(parts), sum, tostring(total)))
T.check(out1:find("the mass reference resolved, %d+ iterations") ~= nil, "each step names the mass reference's iterations")
local ok2, out2 = run(q(src .. "/scenes/zarifi_balls.lua") .. " --steps -1 --no-png")
T.check(not ok2 and out2:find("--steps must be a whole number >= 0", 1, true) ~= nil, "a scene refuses --steps -1: " .. out2:sub(1, 200))
local ok3, out3 = run(q(src .. "/bench/couple_scenes.lua") .. " --no-paper --only pool")
T.check(not ok3 and out3:find("no scene 'pool'", 1, true) ~= nil, "the bench refuses an unknown --only: " .. out3:sub(1, 200))
os.exit(T.report())
