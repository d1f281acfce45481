-- Open (outflow) domain sides.
--  (a) a tank at rest whose top is open stays at rest (FLIP particles and the
--      grid-only level-set liquid), liquid filled up to the open layer;
--      a tank with an open side wall drains through that side only, at the
--      discharge of Ritter's dam-break solution, q = 8/27 sqrt(g) h0^(3/2)
--      per unit width (the flow at the dam site is critical, so the open side
--      does not change it), with particles and with the grid-only liquid;
--  (c) projection with an open side: a channel fed by a prescribed inflow at
--      x- and open at x+ gets the exact uniform flow and the linear pressure
--      p = rho/dt V (x_open - x); a random field with open sides is made
--      divergence-free to the solver tolerance (pcg, mgpcg, mic0).
local tide = require "tide"
local flip = require "tide.flip"
local drop = require "tide.drop"
local liquid = tide.liquid
local T = require "tide.testing"

-- (a) at rest, open top -----------------------------------------------------
do
  local n = 24
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local H = 1 - g.dx -- liquid up to the open layer
  local c = math.sqrt(9.81 * H)
  local ps = liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, H } } }
  local n0 = #ps
  local S = flip.new { grid = g, particles = ps, open = { "y+" } }
  for _ = 1, 200 do flip.step(S, flip.max_dt(S)) end
  local vp, vg = math.max(ps.v:max(), -ps.v:min()) / c, S.u:max_speed() / c
  T.check(vp < 1e-4 and vg < 1e-4, string.format("open top, FLIP: max|u|/sqrt(gH) particles %.2e grid %.2e", vp, vg))
  T.check(#ps == n0, "open top, FLIP: no particle lost, " .. (n0 - #ps))
  local phi = tide.shape.box { min = { -1, -1 }, max = { 2, H } }:sdf(g)
  local D = drop.new { grid = g, phi = phi, gravity = { 0, -9.81 }, open = { "y+" } }
  local V0 = drop.volume(D)
  for _ = 1, 200 do drop.step(D, drop.max_dt(D)) end
  local ug, dv = D.u:max_speed() / c, drop.volume(D) / V0 - 1
  T.check(ug < 1e-6, string.format("open top, grid-only: max|u|/sqrt(gH) %.2e", ug))
  T.check(math.abs(dv) < 1e-6, string.format("open top, grid-only: volume change %.2e", dv))
  print(string.format("open top at rest: FLIP %.2e (particles) %.2e (grid), grid-only %.2e, volume %.1e",
    vp, vg, ug, dv))
end

-- (a) draining through an open side wall -------------------------------------
local nx, ny, h0 = 64, 24, 0.25
local qr = 8 / 27 * math.sqrt(9.81) * h0 ^ 1.5 -- Ritter: h = 4/9 h0, u = 2/3 sqrt(g h0) at the dam

-- largest outward normal velocity on the boundary faces of the wall sides
-- x-, y-, y+ (the FLIP recipe's separating walls keep velocities that point
-- into the domain)
local function wall_flux(u, g)
  local m = 0
  local U, V = u.u, u.v
  for j = 1, g.size[2] do m = math.max(m, -U:get(1, j)) end
  for i = 1, g.size[1] do m = math.max(m, -V:get(i, 1), V:get(i, g.size[2] + 1)) end
  return m
end

do
  local g = tide.grid.new { size = { nx, ny }, dx = 1 / nx }
  local dx = g.dx
  local ps = liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, h0 } } }
  local n0 = #ps
  local S = flip.new { grid = g, particles = ps, open = { "x+" } }
  local t, worst_wall, r0, t0, worst_div = 0, 0, nil, nil, 0
  -- every particle deleted is in the open layer x >= 1 - dx, and every
  -- particle there is deleted
  local drain, wrong = flip.drain, 0
  flip.drain = function(St)
    local x, inlayer = St.particles.x, 0
    for q = 1, #St.particles do
      if x:get(q, 1) >= 1 - dx then inlayer = inlayer + 1 end
    end
    local r = St.removed
    drain(St)
    wrong = wrong + math.abs(St.removed - r - inlayer)
  end
  while t < 0.8 do
    local st = flip.step(S, flip.max_dt(S))
    t = S.t
    worst_div = math.max(worst_div, st.div_after)
    worst_wall = math.max(worst_wall, wall_flux(S.u, g))
    if not t0 and t >= 0.3 then t0, r0 = t, S.removed end
  end
  flip.drain = drain
  local q = (S.removed - r0) * dx * dx / 4 / (t - t0)
  T.check(#ps == n0 - S.removed, "drain, FLIP: particle count = initial - removed")
  T.check(S.removed > 0.3 * n0, string.format("drain, FLIP: %.0f%% of the liquid left", 100 * S.removed / n0))
  T.check(worst_wall == 0, "drain, FLIP: no flow through the walls x-, y-, y+: " .. worst_wall)
  T.check(wrong == 0, "drain, FLIP: particles deleted exactly in the open layer, mismatch " .. wrong)
  T.check(worst_div < 1e-6, "drain, FLIP: divergence after projection " .. worst_div)
  T.check(math.abs(q / qr - 1) < 0.10, string.format("drain, FLIP: discharge %.4f vs Ritter %.4f (%+.1f%%)", q, qr,
    100 * (q / qr - 1)))
  print(string.format("drain, FLIP %dx%d: discharge over t in [0.3, 0.8] s %.4f m^2/s, Ritter %.4f (%+.1f%%)", nx, ny, q,
    qr, 100 * (q / qr - 1)))
end

do
  local g = tide.grid.new { size = { nx, ny }, dx = 1 / nx }
  local phi = tide.shape.box { min = { -1, -1 }, max = { 2, h0 } }:sdf(g)
  local D = drop.new { grid = g, phi = phi, gravity = { 0, -9.81 }, open = { "x+" } }
  local V0, worst_wall, v0, t0 = drop.volume(D), 0, nil, nil
  while D.t < 0.8 do
    drop.step(D, drop.max_dt(D))
    worst_wall = math.max(worst_wall, wall_flux(D.u, g))
    if not t0 and D.t >= 0.3 then t0, v0 = D.t, drop.volume(D) end
  end
  local V = drop.volume(D)
  local q = (v0 - V) / (D.t - t0)
  T.check(V < 0.7 * V0, string.format("drain, grid-only: volume %.3f of the initial", V / V0))
  T.check(worst_wall == 0, "drain, grid-only: no flow through the walls: " .. worst_wall)
  T.check(math.abs(q / qr - 1) < 0.10, string.format("drain, grid-only: discharge %.4f vs Ritter %.4f (%+.1f%%)", q,
    qr, 100 * (q / qr - 1)))
  print(string.format("drain, grid-only %dx%d: discharge %.4f m^2/s, Ritter %.4f (%+.1f%%)", nx, ny, q, qr,
    100 * (q / qr - 1)))
end

-- (c) projection with open sides ----------------------------------------------
for _, method in ipairs { "pcg", "mgpcg", "mic0" } do
  for _, dim in ipairs { 2, 3 } do
    local size = dim == 2 and { 16, 8 } or { 12, 6, 6 }
    local g = tide.grid.new { size = size, dx = 1 / size[1] }
    local dx, dt, rho, V = g.dx, 0.01, 1000, 0.7
    -- a channel full of liquid: inflow column at x-, open at x+
    local labels = g:cells("u8", liquid.LIQUID)
    liquid.open_cells(g, labels, { "x+" })
    local inlet = liquid.region(g, tide.shape.box { min = dim == 2 and { -1, -1 } or { -1, -1, -1 },
      max = dim == 2 and { dx, 2 } or { dx, 2, 2 } })
    local u, fixed = g:mac(), g:mac("u8")
    liquid.inflow(u, { region = inlet, velocity = dim == 2 and { V, 0 } or { V, 0, 0 }, fixed = fixed })
    local p = g:cells()
    local st = liquid.project(u, labels, { dt = dt, rho = rho, tol = 1e-12, method = method, fixed = fixed,
      pressure = p })
    u:enforce_walls(nil, false, nil, { "x+" })
    local eu, ep = 0, 0
    local U = u.u
    for i = 2, size[1] + 1 do -- every u face but the wall at x-
      local s = U:slice(1, i, i)
      eu = math.max(eu, math.abs(s:max() - V), math.abs(s:min() - V))
    end
    local vmax = math.max(u.v:max(), -u.v:min(), dim == 3 and math.max(u.w:max(), -u.w:min()) or 0)
    local xo = 1 - dx / 2 -- centre of the open layer: p = 0
    for i = 2, size[1] - 1 do
      local x = (i - 0.5) * dx
      local s = p:slice(1, i, i)
      local pe = rho / dt * V * (xo - x)
      ep = math.max(ep, math.abs(s:max() - pe), math.abs(s:min() - pe))
    end
    local pscale = rho / dt * V
    local tag = string.format("channel %dD %s", dim, method)
    T.check(eu < 1e-9 and vmax < 1e-9, string.format("%s: |u - V| %.1e, |v| %.1e", tag, eu, vmax))
    T.check(ep < 1e-8 * pscale, string.format("%s: pressure error %.1e of rho V/dt", tag, ep / pscale))
    T.check(st.div_after < 1e-9, tag .. ": divergence " .. st.div_after)
    print(string.format("%s: |u - V| %.1e, pressure %.1e of rho V / dt, div %.1e, %d iterations", tag, eu, ep / pscale,
      st.div_after, st.iterations))

    -- random field, open at x+ and y+, a solid block inside
    local lab2 = g:cells("u8", liquid.LIQUID)
    lab2:slice(1, 5, 6):slice(2, 2, 3):fill(liquid.SOLID)
    liquid.open_cells(g, lab2, { "x+", "y+" })
    local r = g:mac()
    local k = 0
    for _, a in ipairs(dim == 2 and { r.u, r.v } or { r.u, r.v, r.w }) do
      local flat = a:reshape { a:size() }
      for q = 1, a:size() do
        k = k + 1
        flat:set(q, tide.rand(7, k) - 0.5)
      end
    end
    r:enforce_walls(lab2, false, nil, { "x+", "y+" })
    local st2 = liquid.project(r, lab2, { dt = dt, rho = rho, tol = 1e-10, method = method })
    local bound = 1e-10 * math.sqrt(st2.unknowns) * st2.div_before * 10
    T.check(st2.div_after <= bound, string.format("random %dD %s open x+ y+: div %.1e (bound %.1e)", dim, method,
      st2.div_after, bound))
  end
end

os.exit(T.report())
