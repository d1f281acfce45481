-- Advection of MAC fields with the scheme options (tide.grid.advect_mac,
-- Mac:advect with a table; docs/liquids.md "Advection"):
--   * accuracy: a smooth MAC field (Gaussian bumps in u and v) carried by a
--     constant velocity; L1/L2 errors against the exact translate on 32^2 and
--     64^2 at CFL 0.5.  Plain SL is first order (the interpolation error
--     dx^2/dt per step), MacCormack and BFECC second order;
--   * limiters: a discontinuous field in a rotation keeps its range with the
--     "revert" / "extrema" limiters and monotone cubic SL, and MacCormack
--     without a limiter does overshoot (so the check can fail);
--   * valid faces: a corrected value is kept only where the traces stay on
--     valid faces, elsewhere the SL value;
--   * 3D smoke test, exactness on affine fields, thread-count determinism,
--     argument errors.
local tide = require "tide"
local T = require "tide.testing"
local G = tide.grid

-- fill the components of m from functions fu(x, y), fv(x, y) at the face centres (2D)
local function fill2(g, m, fu, fv)
  local n1, n2, dx = g.size[1], g.size[2], g.dx
  local o = g.origin
  for i = 1, n1 + 1 do
    for j = 1, n2 do m.u:set(i, j, fu(o[1] + (i - 1) * dx, o[2] + (j - 0.5) * dx)) end
  end
  for i = 1, n1 do
    for j = 1, n2 + 1 do m.v:set(i, j, fv(o[1] + (i - 0.5) * dx, o[2] + (j - 1) * dx)) end
  end
end

-- mean absolute and root-mean-square differences over all faces (2D)
local function errors(a, b)
  local l1, l2, n = 0, 0, 0
  for _, k in ipairs { "u", "v" } do
    local x, y = a[k], b[k]
    local sh = x.shape
    for i = 1, sh[1] do
      for j = 1, sh[2] do
        local d = math.abs(x:get(i, j) - y:get(i, j))
        l1, l2, n = l1 + d, l2 + d * d, n + 1
      end
    end
  end
  return l1 / n, math.sqrt(l2 / n)
end

-- ------------------------------------------------------------ accuracy
local TH = 0.4
local CX, CY = math.cos(TH), math.sin(TH)
local function bump(x, y, s) return math.exp(-((x - 0.3) ^ 2 + (y - 0.3) ^ 2) / s ^ 2) end
local function fu(t) return function(x, y) return bump(x - CX * t, y - CY * t, 0.1) end end
local function fv(t) return function(x, y) return 0.5 * bump(x - CX * t, y - CY * t, 0.08) end end

local T_END = 0.4
local function translate(n, opts)
  local g = G.new { size = { n, n }, dx = 1 / n }
  local vel = g:mac()
  vel.u:fill(CX)
  vel.v:fill(CY)
  local q, out = g:mac(), g:mac()
  fill2(g, q, fu(0), fv(0))
  local nst = math.ceil(T_END / (0.5 * g.dx))
  local dt = T_END / nst
  local W = G.advect_work()
  for _ = 1, nst do
    local o = { out = out, work = W }
    for k, v in pairs(opts) do o[k] = v end
    local r = q:advect(vel, dt, o)
    T.check(r == out, "Mac:advect returns out")
    q, out = out, q
  end
  local ex = g:mac()
  fill2(g, ex, fu(T_END), fv(T_END))
  return errors(q, ex)
end

local cases = {
  { "sl", { scheme = "sl" } },
  { "maccormack", { scheme = "maccormack" } },
  { "maccormack, no limiter", { scheme = "maccormack", clamp = "none" } },
  { "maccormack, extrema", { scheme = "maccormack", clamp = "extrema" } },
  { "bfecc", { scheme = "bfecc" } },
  { "bfecc, extrema", { scheme = "bfecc", clamp = "extrema" } },
  { "sl, cubic", { scheme = "sl", interp = "cubic" } },
}
local E = {}
for _, c in ipairs(cases) do
  local e = {}
  for _, n in ipairs { 32, 64 } do e[n] = { translate(n, c[2]) } end
  local p1 = math.log(e[32][1] / e[64][1], 2)
  local p2 = math.log(e[32][2] / e[64][2], 2)
  print(string.format("translate %-24s L1 %.3e / %.3e  L2 %.3e / %.3e  (32^2 / 64^2)  order L1 %.2f L2 %.2f",
    c[1], e[32][1], e[64][1], e[32][2], e[64][2], p1, p2))
  E[c[1]] = { l1 = e[64][1], l2 = e[64][2], p = p1, p2 = p2 }
end
T.check(E.sl.p < 1.2, string.format("SL is first order: %.2f < 1.2", E.sl.p))
for _, k in ipairs { "maccormack", "maccormack, no limiter", "maccormack, extrema" } do
  T.check(E[k].p > 1.4 and E[k].p2 > 1.4, string.format("%s is second order: %.2f, %.2f > 1.4", k, E[k].p, E[k].p2))
  T.check(E[k].l1 < E.sl.l1 / 3, string.format("%s error %.3e < SL / 3 = %.3e on 64^2", k, E[k].l1, E.sl.l1 / 3))
end
for _, k in ipairs { "bfecc", "bfecc, extrema" } do
  T.check(E[k].p > 1.8 and E[k].p2 > 1.8, string.format("%s is second order: %.2f, %.2f > 1.8", k, E[k].p, E[k].p2))
  T.check(E[k].l1 < E.sl.l1 / 8, string.format("%s error %.3e < SL / 8 = %.3e on 64^2", k, E[k].l1, E.sl.l1 / 8))
end
T.check(E["sl, cubic"].p > 1.5, "monotone cubic SL is second order here")

-- ------------------------------------------------------------ limiters
-- a square of u = 1 (v = -1) in a solid-body rotation about the centre
do
  local n = 48
  local g = G.new { size = { n, n }, dx = 1 / n }
  local vel = g:mac()
  fill2(g, vel, function(_, y) return -(y - 0.5) end, function(x, _) return x - 0.5 end)
  local function sq(x, y) return (math.abs(x - 0.5) < 0.2 and math.abs(y - 0.7) < 0.12) and 1 or 0 end
  local q0 = g:mac()
  fill2(g, q0, sq, function(x, y) return -sq(x, y) end)
  local function range_after(opts)
    local q, out = q0:clone(), g:mac()
    local dt = 0.6 / n / 0.3 -- CFL 0.6 at the fastest face
    opts.out = out
    for _ = 1, 40 do
      q:advect(vel, dt, opts)
      q, out = out, q
      opts.out = out
    end
    return math.min(q.u:min(), q.v:min()), math.max(q.u:max(), q.v:max())
  end
  for _, c in ipairs {
    { scheme = "maccormack" }, { scheme = "maccormack", clamp = "extrema" }, { scheme = "bfecc" },
    { scheme = "bfecc", clamp = "extrema" }, { scheme = "maccormack", clamp = "extrema", interp = "cubic", rk = 3 },
    { scheme = "sl", interp = "cubic" }, { scheme = "sl" } } do
    local lo, hi = range_after(c)
    T.check(lo >= -1 - 1e-12 and hi <= 1 + 1e-12, string.format("%s/%s/%s: range [%.3g, %.3g] within [-1, 1]",
      c.scheme, c.clamp or "revert", c.interp or "linear", lo, hi))
  end
  local lo, hi = range_after { scheme = "maccormack", clamp = "none" }
  print(string.format("rotating square, MacCormack without limiter: range [%.4f, %.4f]", lo, hi))
  T.check(lo < -1.01 and hi > 1.01, "without a limiter MacCormack overshoots a discontinuity")
end

-- ------------------------------------------------------------ valid faces
do
  local n = 32
  local g = G.new { size = { n, n }, dx = 1 / n }
  local vel = g:mac()
  vel.u:fill(0.8)
  vel.v:fill(0.3)
  local q = g:mac()
  fill2(g, q, function(x, y) return math.sin(7 * x) * math.cos(5 * y) end,
    function(x, y) return x * x - math.sin(3 * y) end)
  local dt = 0.7 / n
  local sl = q:advect(vel, dt)
  local mc = q:advect(vel, dt, { scheme = "maccormack", clamp = "none" })
  local all = g:mac("u8", 1)
  local none = g:mac("u8", 0)
  T.check(q:advect(vel, dt, { scheme = "maccormack", clamp = "none", valid = all }).u:checksum() == mc.u:checksum(),
    "valid everywhere: the MacCormack result")
  local r0 = q:advect(vel, dt, { scheme = "maccormack", clamp = "none", valid = none })
  T.check(r0.u:checksum() == sl.u:checksum() and r0.v:checksum() == sl.v:checksum(), "valid nowhere: the SL result")
  -- liquid: the left half (x < 0.5); faces next to a liquid cell are valid
  local phi = g:cells()
  for i = 1, n do for j = 1, n do phi:set(i, j, (i - 0.5) / n - 0.5) end end
  local valid = G.valid_faces(g, phi)
  local rv = G.advect_mac { velocity = vel, field = q, dt = dt, scheme = "maccormack", clamp = "none", valid = valid }
  local bad, n_mc, n_sl = 0, 0, 0
  for _, k in ipairs { "u", "v" } do
    local sh = rv[k].shape
    for i = 1, sh[1] do
      for j = 1, sh[2] do
        local x = (k == "u") and (i - 1) / n or (i - 0.5) / n
        local v, a, b = rv[k]:get(i, j), mc[k]:get(i, j), sl[k]:get(i, j)
        if v == a and v ~= b then n_mc = n_mc + 1 elseif v == b and v ~= a then n_sl = n_sl + 1 end
        if v ~= a and v ~= b then bad = bad + 1 end
        -- deep in the liquid (and away from the wall at x = 0): corrected; in the air: SL
        if x > 0.1 and x < 0.35 and j > 3 and j < sh[2] - 2 and v ~= a then bad = bad + 1 end
        if x > 0.6 and v ~= b then bad = bad + 1 end
      end
    end
  end
  print(string.format("valid faces: %d corrected, %d SL (of the faces where the two differ)", n_mc, n_sl))
  T.check(bad == 0, "valid faces: each face is MacCormack inside the liquid, SL where its traces leave it (" .. bad .. " wrong)")
  T.check(n_mc > 100 and n_sl > 100, "both kinds of faces occur")
end

-- ------------------------------------------------------------ 3D, exactness, determinism
do
  local n = 24
  local g = G.new { size = { n, n, n }, dx = 1 / n }
  local vel = g:mac()
  -- a swirl: rotation about the z axis plus a shear in z
  for _, c in ipairs { { "u", 1 }, { "v", 2 }, { "w", 3 } } do
    local a = vel[c[1]]
    local sh = a.shape
    for i = 1, sh[1] do
      for j = 1, sh[2] do
        for k = 1, sh[3] do
          local x = (i - (c[2] == 1 and 1 or 0.5)) / n - 0.5
          local y = (j - (c[2] == 2 and 1 or 0.5)) / n - 0.5
          local z = (k - (c[2] == 3 and 1 or 0.5)) / n - 0.5
          a:set(i, j, k, c[2] == 1 and -y or c[2] == 2 and x or 0.3 * math.sin(6 * x) * math.cos(4 * y) + 0.1 * z)
        end
      end
    end
  end
  local dt = 0.8 / n / 0.7
  local opts = { scheme = "bfecc", clamp = "extrema", interp = "cubic", rk = 3 }
  local function sums(threads, o)
    tide.threads(threads)
    local q = vel:clone()
    local out = q:clone()
    local W = G.advect_work()
    for _ = 1, 3 do
      local oo = { out = out, work = W }
      for k, v in pairs(o) do oo[k] = v end
      q:advect(q, dt, oo) -- self-advection
      q, out = out, q
    end
    return q.u:checksum() .. q.v:checksum() .. q.w:checksum(), q, W
  end
  for _, o in ipairs { opts, { scheme = "maccormack" }, { scheme = "sl", rk = 3 } } do
    local s1 = sums(1, o)
    local s2, q, W = sums(2, o)
    T.check(s1 == s2, "3D " .. o.scheme .. ": bit-identical with 1 and 2 threads")
    T.check(q.u:nonfinite() == 0 and q:max_speed() < 1, "3D " .. o.scheme .. ": finite, bounded")
    if o.scheme ~= "sl" then
      T.check(W:bytes() >= 4 * 8 * (n + 1) * n * n, "workspace holds four face arrays")
    else
      T.check(W:bytes() == 0, "SL needs no workspace")
    end
  end
  tide.threads(2)
  -- a constant field stays constant; an affine field in a uniform flow moves exactly
  local c = g:mac(nil, 2.5)
  local r = c:advect(vel, dt, opts)
  T.near(r.u:min(), 2.5, 1e-14, "3D constant kept (min)")
  T.near(r.w:max(), 2.5, 1e-14, "3D constant kept (max)")
  local uni = g:mac()
  uni.u:fill(0.3); uni.v:fill(-0.2); uni.w:fill(0.1)
  local aff = g:mac()
  local function affine(x, y, z) return 1 + 2 * x - y + 0.5 * z end
  for _, a in ipairs { aff.u, aff.v, aff.w } do
    local sh = a.shape
    for i = 1, sh[1] do for j = 1, sh[2] do for k = 1, sh[3] do
      local fx = (a == aff.u) and (i - 1) or (i - 0.5)
      local fy = (a == aff.v) and (j - 1) or (j - 0.5)
      local fz = (a == aff.w) and (k - 1) or (k - 0.5)
      a:set(i, j, k, affine(fx / n, fy / n, fz / n))
    end end end
  end
  for _, o in ipairs { { scheme = "maccormack" }, { scheme = "bfecc", rk = 3, clamp = "extrema" } } do
    local ra = aff:advect(uni, 0.5 / n, o)
    -- exact away from the inflow sides, where the backtrace leaves the lattice
    local worst = 0
    for _, comp in ipairs { "u", "v", "w" } do
      local a, b = ra[comp], aff[comp]
      local sh = a.shape
      for i = 4, sh[1] - 3 do for j = 4, sh[2] - 3 do for k = 4, sh[3] - 3 do
        local x = b:get(i, j, k)
        local ex = x - (2 * 0.3 + 0.2 + 0.5 * 0.1) * 0.5 / n
        worst = math.max(worst, math.abs(a:get(i, j, k) - ex))
      end end end
    end
    T.check(worst < 1e-12, string.format("3D %s: affine field in a uniform flow exact (%.2e)", o.scheme, worst))
  end
end

-- ------------------------------------------------------------ API and errors
do
  local g = G.new { size = { 8, 6 }, dx = 0.1 }
  local u = g:mac(nil, 1)
  local g3 = G.new { size = { 4, 4, 4 }, dx = 0.1 }
  T.check(getmetatable(u:advect(u, 0.01, {})) == getmetatable(u), "an empty table gives a new Mac")
  T.check(u:advect(u, 0.01, { scheme = "bfecc" }).u:max() == 1, "uniform self-advection")
  local W = G.advect_work()
  T.check(tostring(W):find("tide.AdvectWork", 1, true) ~= nil, "AdvectWork tostring")
  G.advect_mac { velocity = u, field = u, dt = 0.01, scheme = "maccormack", work = W }
  T.check(W:bytes() > 0, "work grows on use")
  W:free()
  T.check(tostring(W):find("freed", 1, true) ~= nil, "freed AdvectWork")
  local out = g:mac()
  T.raises(function() u:advect(u, 0.01, { scheme = "weno" }) end, "scheme", "unknown scheme")
  T.raises(function() u:advect(u, 0.01, { interp = "quintic" }) end, "interp", "unknown interpolation")
  T.raises(function() u:advect(u, 0.01, { rk = 4 }) end, "rk", "rk out of range")
  T.raises(function() u:advect(u, 0.01, { clamp = "maybe" }) end, "clamp", "unknown limiter")
  T.raises(function() u:advect(u, 0.01, { clamp = 1 }) end, "clamp", "limiter of a wrong type")
  T.raises(function() u:advect(u, 0.01, { order = 3 }) end, "order", "unknown key")
  T.raises(function() u:advect(u, 0.01, { out = u }) end, "share memory", "out aliasing the field")
  T.raises(function() u:advect(u, 0.01, { out = g3:mac() }) end, "out", "out on another grid")
  T.raises(function() u:advect(u, 0.01, { valid = g:mac() }) end, "valid", "valid of dtype f64")
  T.raises(function() u:advect(u, 0.01, { valid = g3:mac("u8") }) end, "valid", "valid on another grid")
  T.raises(function() u:advect(u, 0.01, { work = out }) end, "work", "work of a wrong type")
  T.raises(function() u:advect(u, 0 / 0, {}) end, "dt", "NaN dt")
  T.raises(function() u:advect(g3:mac(), 0.01, {}) end, "grid", "velocity on another grid")
  T.raises(function() G.advect_mac { velocity = u, field = u } end, "dt", "missing dt")
  T.raises(function() G.advect_mac { velocity = u, dt = 0.1 } end, "field", "missing field")
  T.raises(function() G.advect_mac { velocity = u, field = u, dt = 1 / 0 } end, "dt", "infinite dt")
  T.raises(function() G.advect_mac { velocity = u, field = g:mac("u8"), dt = 0.1 } end, "field", "u8 field")
  T.raises(function() G.advect_mac { velocity = u, field = u, dt = 0.1, grid = g } end, "grid", "unknown key")
  T.raises(function() G.advect_mac { velocity = u, field = u, dt = 0.1, out = u } end, "share memory", "out = field")
  local c = g:cells()
  T.raises(function() G.advect_scalar { grid = g, velocity = u, field = c, dt = 0.1, valid = c } end, "valid",
    "scalar valid of dtype f64")
  T.check(G.advect_scalar { grid = g, velocity = u, field = c, dt = 0.1, scheme = "bfecc", clamp = "extrema",
    valid = g:cells("u8", 1), work = G.advect_work() }:max() == 0, "advect_scalar with valid and work")
end

os.exit(T.report())
