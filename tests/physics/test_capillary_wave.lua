-- A standing capillary wave in a walled tank and on a periodic strip (tide.drop recipe: level set,
-- ghost-fluid jump with the default cell curvature (fourth order, moved to the surface), ghost-fluid
-- projection, the default extension "linear_phi": the velocity extended constant into the air, the
-- level set moved with a linearly extended copy -- the constant extension alone is first order, -2.5%
-- at 32 cells per wavelength; air density 0, no gravity, inviscid: all of tide.drop's defaults).  The tank is one wavelength wide with free-slip walls, the
-- surface y = h + a cos(k x) (antinodes at the walls, 90 degree contact
-- angle), depth h = lambda / 2.  Linear theory (Lamb Sec. 266):
--   omega^2 = sigma k^3 / rho tanh(k h).
-- Asserts (docs/liquids-physics.md, "Walls and the contact angle"):
--   * at 32 cells per wavelength the frequency (zero crossings of the
--     cos(kx) mode of the column heights, over 5 periods) within 2%, and the
--     amplitude within 2% of the initial over the 5 periods;
--   * the error shrinks under refinement (16, 24, 32 cells per wavelength);
--   * the same on a periodic strip one wavelength long (drop.new{periodic =
--     {true, false}}: the periodic ghost-fluid projection, extension and
--     advection of tide.liquid.periodic), the wave shifted by 0.3 lambda so
--     that no crest sits on the seam; P:extend exact for a linear field;
--   * the FLIP recipe on the periodic strip with its defaults (APIC, tracked
--     level set moved with the projected velocity extended linearly, cell
--     curvature; flip.new{periodic = ...}): the error shrinks (16, 24, 32)
--     and is within 2% at 32 cells per wavelength (docs/liquids-physics.md,
--     "Surface tension with particles");
--   * the curvature next to a wall is the surface's (not 0): the
--     height-function and cell curvatures of a cos(kx) surface at the first
--     column within 2% of a k^2 cos(k x), and a flat surface meeting a wall
--     with a 60 degree contact angle gets the ghost height h + cot 60 deg.
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"
local flip = require "tide.flip"

local sigma, rho, lam = 0.07, 1000, 0.01
local k = 2 * math.pi / lam
local h = lam / 2
local omega = math.sqrt(sigma * k ^ 3 / rho * math.tanh(k * h))
local period = 2 * math.pi / omega

local function wave_phi(g, N, amp, x0)
  local phi = g:cells()
  local dx = g.dx
  for i = 1, N do
    for j = 1, N do phi:set(i, j, (j - 0.5) * dx - h - amp * math.cos(k * ((i - 0.5) * dx - (x0 or 0)))) end
  end
  return phi
end

-- Step the state S (step(S, dt), its level set S.phi) over `periods` periods
-- at its largest stable step dt_max, following the cos(k (x - x0)) mode of the
-- column heights; returns the frequency error (zero crossings 1 .. 1 + 2 np),
-- the smallest and largest extremum over the initial value, and the steps.
local function oscillate(S, step, dt_max, N, x0, periods)
  local dx = lam / N
  local steps = math.ceil(periods * period / dt_max)
  local dt = periods * period / steps
  local function mode() -- 2/L int eta cos(k (x - x0)) dx from the column liquid fractions
    local s = 0
    for i = 1, N do
      local col = 0
      for j = 1, N do
        local f = 0.5 - S.phi:get(i, j) / dx
        col = col + (f < 0 and 0 or f > 1 and 1 or f)
      end
      s = s + col * dx * math.cos(k * ((i - 0.5) * dx - x0))
    end
    return s * 2 / N
  end
  local q0 = mode()
  local q_prev, t_prev, zeros, ext, qmax = q0, 0, {}, {}, 0
  for s = 1, steps do
    step(S, dt)
    local q, t = mode(), s * dt
    if (q_prev > 0) ~= (q > 0) then
      zeros[#zeros + 1] = t_prev + (t - t_prev) * q_prev / (q_prev - q)
      ext[#ext + 1] = qmax / q0
      qmax = 0
    end
    qmax = math.max(qmax, math.abs(q))
    q_prev, t_prev = q, t
  end
  local np = math.floor((#zeros - 1) / 2)
  T.check(np >= 1, "a full period")
  local w = np >= 1 and 2 * math.pi * np / (zeros[1 + 2 * np] - zeros[1]) or 0
  local lo, hi = 1, 1
  for _, e in ipairs(ext) do lo, hi = math.min(lo, e), math.max(hi, e) end -- the complete half periods
  return w / omega - 1, lo, hi, steps
end

local function run(N, periods, periodic)
  local g = tide.grid.new { size = { N, N }, dx = lam / N }
  local x0 = periodic and 0.3 * lam or 0
  local S = drop.new { grid = g, phi = wave_phi(g, N, 0.005 * lam, x0), sigma = sigma, rho = rho,
    periodic = periodic and { true, false } or nil } -- the defaults
  T.check(S.curvature == "cells" and S.extend == "linear_phi" and S.tension == "ghost", "the defaults of tide.drop")
  local e, lo, hi, steps = oscillate(S, drop.step, drop.max_dt(S), N, x0, periods)
  print(string.format("capillary wave, %s, %d cells per wavelength, %d steps, %d periods: omega %.4f vs %.4f (%+.2f%%), extrema %.4f .. %.4f of the initial",
    periodic and "periodic strip" or "walled tank", N, steps, periods, omega * (1 + e), omega, 100 * e, lo, hi))
  return e, lo, hi
end

local e16 = run(16, 2)
local e24 = run(24, 2)
local e32, lo, hi = run(32, 5)
T.check(math.abs(e32) < 0.02, "32 cells per wavelength: frequency within 2% of sigma k^3 / rho tanh(kh)")
T.check(math.abs(e32) < math.abs(e24) and math.abs(e24) < math.abs(e16), "the error shrinks under refinement")
T.check(lo > 0.98 and hi < 1.02, "amplitude within 2% over 5 periods")

-- the periodic strip
do
  local p16 = run(16, 2, true)
  local p24 = run(24, 2, true)
  local p32, plo, phi_ = run(32, 5, true)
  T.check(math.abs(p32) < 0.02, "periodic strip, 32 cells per wavelength: frequency within 2%")
  T.check(math.abs(p32) < math.abs(p24) and math.abs(p24) < math.abs(p16), "periodic strip: the error shrinks under refinement")
  T.check(plo > 0.98 and phi_ < 1.02, "periodic strip: amplitude within 2% over 5 periods")
end

-- the FLIP recipe on the periodic strip
local function run_flip(N, periods)
  local g = tide.grid.new { size = { N, N }, dx = lam / N }
  local x0 = 0.3 * lam
  local phi = wave_phi(g, N, 0.005 * lam, x0)
  local ps = tide.liquid.seed { grid = g, phi = phi, apic = true, jitter = 0 }
  local S = flip.new { grid = g, particles = ps, scheme = "apic", sigma = sigma, rho = rho, gravity = { 0, 0 }, phi = phi,
    periodic = { true, false } }
  local n0 = #ps
  local e, _, _, steps = oscillate(S, flip.step, flip.max_dt(S), N, x0, periods)
  print(string.format("capillary wave, FLIP recipe (APIC), periodic strip, %d cells per wavelength, %d steps: omega %.4f vs %.4f (%+.2f%%)",
    N, steps, omega * (1 + e), omega, 100 * e))
  T.check(#ps == n0, "FLIP periodic strip: no particle lost")
  return e
end
do
  local f16, f24, f32 = run_flip(16, 2), run_flip(24, 2), run_flip(32, 2)
  T.check(math.abs(f32) < 0.02, "FLIP periodic strip, 32 cells per wavelength: frequency within 2%")
  T.check(math.abs(f32) < math.abs(f24) and math.abs(f24) < math.abs(f16), "FLIP periodic strip: the error shrinks under refinement")
  T.raises(function() flip.new { grid = tide.grid.new { size = { 8, 8 }, dx = 0.1 }, particles = tide.liquid.particles { dim = 2 },
    periodic = { true, false }, separation = 0.5 } end, "separation", "FLIP periodic: the density correction is refused")
end

-- P:extend carries a field linear along the normals exactly across the seam;
-- P:redistance restores the distance of a stretched periodic level set
do
  local N = 16
  local dx = lam / N
  local g = tide.grid.new { size = { N, N }, dx = dx }
  local P = tide.liquid.periodic { grid = g, periodic = { true, false } }
  local phi = wave_phi(g, N, 0, 0) -- flat surface y = h
  local u, valid = g:mac(), g:mac("u8")
  for i = 1, N + 1 do
    for j = 1, N do
      local y = (j - 0.5) * dx
      u.u:set(i, j, y < h and 3 * y + 1 or 99)
      valid.u:set(i, j, y < h and 1 or 0)
    end
  end
  P:extend(u, phi, valid)
  local err = 0
  for i = 1, N + 1 do -- within the 3 dx of the linear extension from the last liquid face
    for j = 1, N do
      if (j - 0.5) * dx < h + 2.6 * dx then err = math.max(err, math.abs(u.u:get(i, j) - (3 * (j - 0.5) * dx + 1))) end
    end
  end
  T.check(err < 1e-12, string.format("P:extend: linear field extended exactly (error %.2e)", err))
  local s2 = g:cells()
  for i = 1, N do for j = 1, N do s2:set(i, j, 2 * ((j - 0.5) * dx - h)) end end
  P:redistance(s2)
  local e2 = 0
  for i = 1, N do for j = 1, N do e2 = math.max(e2, math.abs(s2:get(i, j) - ((j - 0.5) * dx - h))) end end
  T.check(e2 < 1e-9, string.format("P:redistance: signed distance of a flat surface (error %.2e)", e2))
  T.check(not pcall(P.project, P, u, { dt = 1, rho = 1000, phi = g:mac() }), "P:project: phi must be cells")
end

-- the curvature beside a wall
do
  local N = 32
  local dx = lam / N
  local g = tide.grid.new { size = { N, N }, dx = dx }
  local amp = 0.02 * lam
  local phi = wave_phi(g, N, amp)
  local kf = tide.liquid.curvature_faces(g, phi)
  local kc = tide.liquid.curvature(g, phi, { method = "cells" })
  local jh = math.floor((h + amp) / dx + 0.5) -- the v face near the crossing of column 1
  local want = amp * k * k * math.cos(k * 0.5 * dx)
  local got
  for j = 2, N do if kf.v:get(1, j) ~= 0 then got = kf.v:get(1, j) end end
  T.check(got and math.abs(got / want - 1) < 0.02, string.format("height-function curvature at the wall %.3f vs a k^2 cos(k dx/2) %.3f", got or 0, want))
  local jc = math.floor(h / dx + 0.5)
  local kcell = kc:get(1, jc)
  T.check(math.abs(kcell / want - 1) < 0.03, string.format("cell curvature at the wall %.3f vs %.3f", kcell, want))
  -- a flat surface at a wall with a 60 degree contact angle
  local flat = g:cells()
  for i = 1, N do for j = 1, N do flat:set(i, j, (j - 0.5) * dx - h - 0.3 * dx) end end
  local k60 = tide.liquid.curvature_faces(g, flat, { contact_angle = 60 })
  local k90 = tide.liquid.curvature_faces(g, flat)
  local c = 1 / math.tan(math.rad(60))
  local expect = -c / (1 + 0.25 * c * c) ^ 1.5 / dx -- ghost line at h + cot: h_uu = cot, h_u = -cot / 2
  local jf = math.floor(h / dx + 0.3 + 0.5) + 1
  T.check(math.abs(k60.v:get(1, jf) / expect - 1) < 1e-6, string.format("60 deg: wall curvature %.4f vs %.4f", k60.v:get(1, jf), expect))
  T.check(math.abs(k60.v:get(N, jf) / expect - 1) < 1e-6, "60 deg: the same at the right wall")
  T.check(k90.v:get(1, jf) == 0 and k60.v:get(N // 2, jf) == 0, "90 deg, or away from the wall: flat")
  T.check(not pcall(tide.liquid.curvature_faces, g, flat, { contact_angle = 0 }), "contact angle 0 rejected")
  T.check(not pcall(tide.liquid.curvature_faces, g, flat, { contact_angle = 180 }), "contact angle 180 rejected")
end

os.exit(T.report())
