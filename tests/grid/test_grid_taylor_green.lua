-- Grid-only inviscid Taylor-Green vortex: velocity self-advection
-- (Mac:advect) + pressure projection, no particles.  The k = 1 vortex
--   u = sin x cos y,  v = -cos x sin y
-- on the free-slip box [0, pi]^2 is a quarter of the periodic [0, 2 pi]^2
-- one (u = 0 on x = 0, pi; v = 0 on y = 0, pi), so 32^2 here has the cell
-- size of the 64^2 periodic test (tests/physics/test_taylor_green.lua).
-- Inviscid, the kinetic energy is conserved; what is lost at t = 2 is the
-- numerical dissipation of the advection.  Asserts: MacCormack (Selle et al.
-- 2008) keeps >= 97% (32^2) / 98.5% (64^2), plain SL RK2 loses at least 5x as
-- much, and MacCormack's loss shrinks with the resolution.
local tide = require "tide"
local T = require "tide.testing"
local G = tide.grid

local function run(n, opts)
  local dx = math.pi / n
  local g = G.new { size = { n, n }, dx = dx }
  local u = g:mac()
  for i = 1, n + 1 do
    for j = 1, n do u.u:set(i, j, math.sin((i - 1) * dx) * math.cos((j - 0.5) * dx)) end
  end
  for i = 1, n do
    for j = 1, n + 1 do u.v:set(i, j, -math.cos((i - 0.5) * dx) * math.sin((j - 1) * dx)) end
  end
  local lab = g:cells("u8", 1) -- all liquid, closed box
  local PR = tide.liquid.projector(g)
  tide.liquid.project(u, lab, { dt = 1, rho = 1, tol = 1e-12, projector = PR })
  local e0 = tide.liquid.kinetic_energy(u)
  local nst = math.ceil(2 / (0.25 * dx)) -- CFL 0.25 (|u| <= 1)
  local dt = 2 / nst
  local u2, W = g:mac(), G.advect_work()
  for _ = 1, nst do
    if opts then
      local o = { out = u2, work = W }
      for k, v in pairs(opts) do o[k] = v end
      u:advect(u, dt, o)
    else
      u:advect(u, dt, u2) -- the plain form: SL, RK2, linear
    end
    u, u2 = u2, u
    u:enforce_walls()
    local st = tide.liquid.project(u, lab, { dt = dt, rho = 1, tol = 1e-10, projector = PR })
    T.check(st.div_after < 1e-6, "divergence after projection")
  end
  return tide.liquid.kinetic_energy(u) / e0
end

local kept = {}
for _, n in ipairs { 32, 64 } do
  local sl = run(n)
  local mc = run(n, { scheme = "maccormack" })
  kept[n] = { sl = sl, mc = mc }
  print(string.format("Taylor-Green inviscid, grid only, box %d^2 (periodic %d^2 equivalent), t = 2: KE kept SL %.2f%%, MacCormack %.2f%%",
    n, 2 * n, 100 * sl, 100 * mc))
  T.check(1 - sl > 5 * (1 - mc), string.format("%d^2: SL loses >= 5x MacCormack's energy loss", n))
end
T.check(kept[32].mc >= 0.97, string.format("32^2: MacCormack keeps %.2f%% >= 97%%", 100 * kept[32].mc))
T.check(kept[64].mc >= 0.985, string.format("64^2: MacCormack keeps %.2f%% >= 98.5%%", 100 * kept[64].mc))
T.check(1 - kept[64].mc < 0.6 * (1 - kept[32].mc), "MacCormack's loss shrinks with the resolution")

os.exit(T.report())
