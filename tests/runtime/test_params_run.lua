-- tide.params (command-line parameters) and tide.run (frame driver, manifest).
local tide = require "tide"
local T = require "tide.testing"
local json = require "tide.json"

local defaults = { frames = 10, res = 64, out = "out/x", apic = false, cfl = 1.5 }
local P = tide.params(defaults, nil, { "--frames", "3", "--apic", "--cfl=2", "--out", "o" })
T.check(P.frames == 3 and math.type(P.frames) == "integer", "integer coerced")
T.check(P.apic == true, "boolean flag without value")
T.check(P.cfl == 2.0 and math.type(P.cfl) == "float", "float coerced from --cfl=2")
T.check(P.out == "o" and P.res == 64, "string and default kept")
T.check(tide.params(defaults, nil, { "--no-apic" }).apic == false, "--no-flag")
T.raises(function() tide.params(defaults, nil, { "--bogus", "1" }) end, "unknown parameter --bogus", "unknown flag")
T.raises(function() tide.params(defaults, nil, { "--res", "1.5" }) end, "expects an integer", "bad integer")
T.raises(function() tide.params(defaults, nil, { "--cfl", "nan" }) end, "finite number", "NaN number")
T.raises(function() tide.params(defaults, nil, { "--frames" }) end, "needs a value", "missing value")
T.raises(function() tide.params(defaults, nil, { "stray" }) end, "unexpected argument", "positional")

-- driver: substeps reach frame ends exactly, no tiny last step
local out = (os.getenv("TIDE_BUILD_DIR") or ".") .. "/out/test_run"
local dts, frames_seen = {}, {}
local t_final = 0
local r = tide.run {
  frames = 4, fps = 10, out = out, params = P, quiet = true,
  max_dt = function() return 0.03 end,
  step = function(dt, t) dts[#dts + 1] = dt; t_final = t + dt; return { iterations = 5 } end,
  frame = function(i, t) frames_seen[#frames_seen + 1] = { i, t } end,
}
T.check(#frames_seen == 5 and frames_seen[1][1] == 0, "frames 0..4 written")
T.near(frames_seen[5][2], 0.4, 1e-12, "last frame at 4/fps")
local smallest = math.huge
for _, dt in ipairs(dts) do smallest = math.min(smallest, dt) end
T.check(smallest >= 0.01 - 1e-12, "no tiny substeps: smallest " .. smallest)
T.check(r.steps == #dts and r.iterations == 5 * #dts, "step and iteration counts")
local f = io.open(out .. "/run.json")
T.check(f ~= nil, "manifest written")
local text = f and f:read("a") or ""
if f then f:close() end
T.check(text:find('"status": "finished"', 1, true), "manifest completed")
T.check(text:find('"seed": ', 1, true) and text:find('"threads": 2', 1, true), "manifest has seed and threads")
T.check(text:find('"apic": true', 1, true), "manifest has params")
T.check(text:find('"compiler": "', 1, true) and text:find('"flags": "', 1, true) and text:find('"cpu": "', 1, true),
  "manifest has compiler, flags and CPU")

-- a failing step marks the manifest failed and re-raises
T.raises(function()
  tide.run { frames = 2, out = out, quiet = true, step = function() error("boom") end }
end, "boom", "errors propagate")
f = io.open(out .. "/run.json"); text = f:read("a"); f:close()
T.check(text:find('"status": "failed"', 1, true) and text:find("boom", 1, true), "manifest marked failed")
T.raises(function() tide.run { frames = 1, quiet = true, step = function() end, max_dt = function() return 0 / 0 end } end,
  "max_dt returned", "NaN step bound is an error")
T.raises(function() tide.run { frames = 1, stpe = print } end, "unknown option 'stpe'", "misspelled option")

-- json
T.check(json.encode({ 1, 2, { a = "x\n" } }) == '[1,2,{"a":"x\\n"}]', "json encode")
os.exit(T.report())
