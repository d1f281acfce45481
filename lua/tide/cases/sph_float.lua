--- A 2D block released at the surface of an SDF box tank (tide.sph_body):
-- tank 1.0 x 0.8 m, water 0.4 m deep, dx = 2 cm (1000 particles), block
-- 0.4 x 0.3 m released from rest with its bottom at the surface (density
-- < rho0) or 2 cm above the floor (denser).  Shared by
-- tests/sph/test_sph_body_float.lua and docs/sph.md's numbers.
--
--   local r = require("tide.cases.sph_float").run { method = "dfsph", density = 500, duration = 3.5 }
--   -- r.fraction: submerged fraction (zero-pressure level of a hydrostatic fit of the
--   --   fluid's pressure away from the block, minus the block's bottom, over its height),
--   --   mean over the last `average` seconds (2)
--   -- r.fraction_top: the same with the level of the top particles + dx/2
--   -- r.slope: the fit's dp/dy over -rho0 g; r.bottom (final bottom height), r.speed,
--   --   r.angle (final), r.centre, r.contacts (contact impulses), r.body, r.S
--   -- o.release: the block's bottom at release [m]; o.coupling (DFSPH, sph.dfsph_step);
--   -- o.particles: the block made of boundary particles (tide.sph_body's particles)
--   -- o.landing: also r.landed (time the bottom first came within 1.5 dx of the floor),
--   --   r.rebound (highest bottom after it), r.inside (most fluid particles inside the
--   --   block at one check, every 10 steps), r.late_speed (largest block speed over the
--   --   last `average` s), r.unconverged (DFSPH steps with a solve not converged)
local tide = require "tide"
local sph = require "tide.sph_step"
local SB = require "tide.sph_body"

local M = {}

function M.run(o)
  local method, rhob, duration = o.method or "dfsph", o.density or 500, o.duration or 3.5
  local average = o.average or 2
  local dx = o.dx or 0.02
  local W, Ht, depth, bw, bh = 1.0, 0.8, 0.4, 0.4, 0.3
  local L = 2 * dx
  local g = tide.grid.new { size = { math.floor(W / dx + 0.5) + 4, math.floor(Ht / dx + 0.5) + 4 }, dx = dx,
    origin = { -L, -L } }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 10 * math.sqrt(2 * 9.81 * depth),
    viscosity = 0.05, wall_pressure = "hydrostatic", renormalize = true }
  local tank = tide.shape.box { min = { 0, 0 }, max = { W, Ht } }
  S:sdf_boundary { shape = tank, side = "outside" }
  local y0 = o.release or (rhob < 1000 and depth or 0.02)
  local blk = tide.shape.box { min = { 0.5 * W - 0.5 * bw, y0 }, max = { 0.5 * W + 0.5 * bw, y0 + bh } }
  S:seed { shape = tide.shape.box { min = { 0, 0 }, max = { W, depth } } - blk }
  local B = SB.new(S, { shape = blk, density = rhob, container = { shape = tank, side = "outside" },
    particles = o.particles })
  local t, step = 0, 0
  -- landing (o.landing): after the bottom first comes within 1.5 dx of the
  -- floor, the highest bottom; fluid particles inside the block (most at one
  -- sample); unconverged solves
  local landed, rebound, inside, unconv, late = nil, 0, 0, 0, 0
  local n, sx, sy, sxx, sxy, sbot, stop, k = 0, 0, 0, 0, 0, 0, 0, 0
  while t < duration - 1e-12 do
    local dt
    if method == "dfsph" then
      dt = math.min(sph.max_dt(S, "dfsph", 0.4, 2e-3), duration - t)
      local r = sph.dfsph_step(S, dt, { bodies = { B }, tol = o.tol or 1e-3, coupling = o.coupling,
        warm_start = o.warm_start })
      if not r.converged then unconv = unconv + 1 end
    else
      dt = math.min(sph.max_dt(S, "wcsph", 0.4), duration - t)
      sph.wcsph_step(S, dt, { B })
    end
    t, step = t + dt, step + 1
    if o.landing then
      local c = B:pose()
      local bot = c[2] - 0.5 * bh
      if not landed and bot < 1.5 * dx then landed = t end
      if landed then rebound = math.max(rebound, bot) end
      if t > duration - average then late = math.max(late, math.sqrt(B.v[1] ^ 2 + B.v[2] ^ 2)) end
      if step % 10 == 0 then
        local phi, cnt = B:world_shape():eval(S.x), 0
        for i = 1, S.n do if phi[i] < 0 then cnt = cnt + 1 end end
        inside = math.max(inside, cnt)
      end
    end
    if t > duration - average and step % (method == "dfsph" and 5 or 50) == 0 then
      local c = B:pose()
      local bot = c[2] - 0.5 * bh
      local x, p, top = S.x, S.p, {}
      for i = 1, S.n do
        local xi, y = x[i][1], x[i][2]
        if math.abs(xi - c[1]) > 0.5 * bw + 3 * dx and xi > 3 * dx and xi < W - 3 * dx then
          local col = math.floor(xi / dx)
          top[col] = math.max(top[col] or -1, y)
          if y > 3 * dx and y < bot - 2 * dx then
            sx, sy, sxx, sxy, n = sx + y, sy + p[i], sxx + y * y, sxy + y * p[i], n + 1
          end
        end
      end
      local s, m = 0, 0
      for _, y in pairs(top) do s, m = s + y, m + 1 end
      stop, sbot, k = stop + s / m + 0.5 * dx, sbot + bot, k + 1
    end
  end
  local b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
  local a = (sy - b * sx) / n
  local c, ang = B:pose()
  return { fraction = (-a / b - sbot / k) / bh, fraction_top = (stop - sbot) / k / bh, slope = -b / (1000 * 9.81),
    bottom = c[2] - 0.5 * bh, speed = math.sqrt(B.v[1] ^ 2 + B.v[2] ^ 2), angle = ang, centre = c,
    contacts = B.impulses, body = B, S = S, dx = dx, steps = step, landed = landed, rebound = rebound,
    inside = inside, unconverged = unconv, late_speed = late }
end

return M
