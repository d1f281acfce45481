-- tide.figures, the API a figure script calls: argument checks, parameter
-- sets (--quick, overrides), CSV format, paper-vs-Tide rows, plot, figure.json,
-- and docs/figures.md generated from the outputs (in a scratch source tree).
local tide = require "tide"
local T = require "tide.testing"
local F = require "tide.figures"
local json = require "tide.json"

local tmp = os.tmpname()
os.remove(tmp)
tide.mkdir(tmp .. "/src/figures")
local meta = { paper = "Someone 2000", number = "Fig. 1", title = "demo", shows = "a line",
  quick = { n = 4 }, full = { n = 100 }, estimate = { quick = 1, full = 2 } }

-- argument checks
T.raises(function() F.figure(nil) end, "table of named arguments", "figure needs a table")
T.raises(function() F.figure { paper = "x", number = "1", title = "t", shows = "s", quick = {}, full = {}, colour = 1 } end,
  "unknown option 'colour'", "unknown option rejected")
T.raises(function() F.figure { paper = "x", number = "1", title = "t", shows = "s", quick = { a = 1 }, full = {} } end,
  "quick parameter 'a' has no full value", "quick and full sets must have the same keys")
T.raises(function() F.figure { number = "1", title = "t", shows = "s", quick = {}, full = {} } end,
  "missing option 'paper'", "paper required")

-- a figure run with --quick and an override
_G.arg = { [0] = tmp .. "/src/figures/demo.lua", "--quick", "--out", tmp .. "/out/demo" }
local fig = F.figure(meta)
T.check(fig.quick and fig.params.n == 4, "quick set chosen")
T.check(fig.name == "demo", "name from the script file")
_G.arg = { [0] = tmp .. "/src/figures/demo.lua", "--n", "7", "--out", tmp .. "/out/demo" }
local fig2 = F.figure(meta)
T.check(not fig2.quick and fig2.params.n == 7, "full set with an override")
_G.arg = { [0] = tmp .. "/src/figures/demo.lua", "--m", "7" }
T.raises(function() F.figure(meta) end, "unknown parameter --m", "unknown parameter rejected")

local path = fig:csv("data", { "x [m]", "y, label" }, { { 1, 0.5 }, { 2, "a\"b" } })
local f = io.open(path)
local text = f:read("a")
f:close()
T.check(text == 'x [m],"y, label"\n1,0.5\n2,"a""b"\n', "CSV text: " .. text)
T.raises(function() fig:csv("data", { "x" }, { { 1, 2 } }) end, "row 1 has 2 values", "row length checked")
T.raises(function() fig:plot("p", { series = { { y = { 1, 2 } } } }) end, "xlabel and ylabel", "axis labels required")
fig:plot("p", { xlabel = "x [m]", ylabel = "y [m]", series = { { x = { 1, 2 }, y = { 1, 2 }, label = "Tide" },
  { x = { 1, 2 }, y = { 1.1, 2.1 }, label = "Fig. 1", paper = true } }, caption = "demo plot" })
T.check(io.open(tmp .. "/out/demo/p.png") ~= nil, "plot written")
local r = fig:compare { quantity = "slope", unit = "m", paper = 2, source = "Fig. 1", tide = 2.1, note = "coarse" }
T.near(r.rel, 0.05, 1e-12, "relative difference")
T.raises(function() fig:compare { quantity = "q", tide = 1, pape = 2 } end, "unknown key 'pape'", "compare keys checked")
T.raises(function() fig:picture("missing.png") end, "not a file", "picture must exist")
local rec = fig:done()
local back = json.read(tmp .. "/out/demo/figure.json")
T.check(back and back.compare[1].quantity == "slope" and back.params.n == 4 and back.mode == "quick",
  "figure.json round trip")
T.check(rec.pictures[1].caption == "demo plot", "caption recorded")

-- json decode
local v = json.decode('{"a": [1, 2.5, "x\\ny", true, null], "b": {}}')
T.check(v and v.a[2] == 2.5 and v.a[3] == "x\ny" and v.a[4] == true and next(v.b) == nil, "json.decode")
T.check(json.decode("[1,") == nil, "json.decode rejects broken text")

-- docs page from a manifest + figure.json (scratch source tree)
local sf = io.open(tmp .. "/src/figures/demo.lua", "w")
sf:write("-- demo\n")
sf:close()
json.write(tmp .. "/out/demo/manifest.json", { status = "finished", threads = 2, seed = 1, wall_seconds = 1.5,
  versions = { tide = "0" }, git = "abc" })
tide.mkdir(tmp .. "/src/docs")
local page, count = F.docs { root = tmp .. "/src", out = tmp .. "/out", quick_out = tmp .. "/none" }
f = io.open(page)
text = f:read("a")
f:close()
T.check(count == 1, "one figure on the page")
T.check(text:find("| slope | 2 m (Fig. 1) | 2.1 m | +5.00% | coarse |", 1, true) ~= nil, "comparison row on the page")
T.check(text:find("![demo plot](figures/demo-p.png)", 1, true) ~= nil, "picture on the page")
T.check(io.open(tmp .. "/src/docs/figures/demo-p.png") ~= nil, "picture copied next to the page")
T.check(text:find("quick run", 1, true) ~= nil, "a quick run is marked")
-- a figure without outputs keeps its section of the existing page (running one figure
-- rewrites only its own), in the list's order
local sf2 = io.open(tmp .. "/src/figures/other.lua", "w")
sf2:write("-- other\n")
sf2:close()
local pf = io.open(page, "w")
pf:write(text .. '\n- [Other](#other): Kept 2020 Fig. 9\n\n<a id="other"></a>\n\n## Kept 2020 Fig. 9 -- Other\n\nkept body\n')
pf:close()
F.docs { root = tmp .. "/src", out = tmp .. "/out", quick_out = tmp .. "/none" }
f = io.open(page)
local text2 = f:read("a")
f:close()
T.check(text2:find("kept body", 1, true) ~= nil and text2:find("- [Other](#other): Kept 2020 Fig. 9", 1, true) ~= nil,
  "a figure not run keeps its section and its line in the list")
T.check(text2:find("| slope | 2 m (Fig. 1) | 2.1 m | +5.00% | coarse |", 1, true) ~= nil, "the run figure's section rewritten beside it")
local _, na = text2:gsub('<a id="', "")
T.check(na == 2, "two sections, none doubled (" .. na .. ")")
os.execute("rm -rf '" .. tmp .. "'")
os.exit(T.report())
