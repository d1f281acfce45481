-- A tank of liquid at rest stays at rest (2D and 3D, FLIP and APIC particles):
-- after 200 CFL steps max |u| / sqrt(g H) < 1e-4 on particles and grid, and
-- the surface stays flat within 0.1 cell (no particle moved 0.1 dx; every
-- column keeps its liquid cells).
local tide = require "tide"
local flip = require "tide.flip"
local T = require "tide.testing"

local function tank(dim, scheme)
  local n = dim == 2 and { 24, 24 } or { 12, 12, 12 }
  local g = tide.grid.new { size = n, dx = 1 / n[1] }
  local H = 0.5
  local lo = dim == 2 and { 0, 0 } or { 0, 0, 0 }
  local hi = dim == 2 and { 1, H } or { 1, H, 1 }
  local ps = tide.liquid.seed { grid = g, box = { min = lo, max = hi }, apic = scheme == "apic" }
  local x0 = ps.x:clone()
  local S = flip.new { grid = g, particles = ps, scheme = scheme }
  local worst_div = 0
  for _ = 1, 200 do
    local st = flip.step(S, flip.max_dt(S))
    worst_div = math.max(worst_div, st.div_after)
  end
  local c = math.sqrt(9.81 * H)
  local vp = math.max(ps.v:max(), -ps.v:min()) / c
  local vg = S.u:max_speed() / c
  local d = ps.x:clone():axpy(-1, x0)
  local disp = math.max(d:max(), -d:min()) / g.dx
  local tag = string.format("%dD %s", dim, scheme)
  T.check(vp < 1e-4, tag .. ": particle max|u|/sqrt(gH) = " .. vp)
  T.check(vg < 1e-4, tag .. ": grid max|u|/sqrt(gH) = " .. vg)
  T.check(disp < 0.1, tag .. ": largest particle displacement " .. disp .. " cells")
  -- every column keeps H/dx liquid cells
  local lab = tide.liquid.label(ps, g)
  local want = math.floor(H / g.dx + 0.5)
  local per_column = lab:sum() / (g.ncells / g.size[2])
  T.near(per_column, want, 1e-12, tag .. ": liquid cells per column")
  T.check(worst_div < 1e-6, tag .. ": divergence after projection " .. worst_div)
  print(string.format("%s: max|u|/sqrt(gH) particles %.2e grid %.2e, displacement %.2e cells, %.0f s simulated",
    tag, vp, vg, disp, S.t))
end

tank(2, "flip")
tank(2, "apic")
tank(3, "flip")
os.exit(T.report())
