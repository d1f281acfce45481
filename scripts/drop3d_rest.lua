-- Spurious currents of a 3D drop at rest with tide.drop (issue 13, docs/liquids-physics.md,
-- "3D drop at rest"): a sphere rho = sigma = D = 1 (capillary time 1), inviscid, the centre
-- off the lattice, box `box` diameters; every `every` capillary times it prints
--   max|u| sqrt(rho D/sigma) over the faces (and the largest so far), the mean pressure of the
--   cells more than 3 dx inside over 2 sigma/R, the spread of the jump sigma kappa_G of phi
--   (tide.liquid.surface_tension's pjump) around 2 sigma/R, and where the velocity is: the
--   largest cell-centred speed inside (phi < -3 dx) and in the liquid band (-3 dx < phi < 0),
--   the band's largest radial and tangential components, the mean velocity of the liquid
--   (a drift) and its rigid rotation omega R (from the angular momentum).
-- freeze = true puts phi back to its initial exact distance after every step (the surface
-- cannot move: the growth from the jump and the projection alone).  Any tide.drop.new option
-- through opts, e.g. --opts '{extend = "linear_phi"}' (the 3D default before session 26) or '{redistance = 10, redistance_options
-- = {closest = 4}}'.
--   build/tide scripts/drop3d_rest.lua [--cpd 25] [--T 1] [--box 1.6] [--every 0.25] [--freeze] [--centre b] [--opts '{...}'] [--harmonics 8] [--trace t]
-- 25 cells per diameter (40^3): about 35 s of one core per 0.25 capillary times.
local tide = require "tide"
local drop = require "tide.drop"

local P = tide.params({ cpd = 25, T = 1.0, box = 1.6, every = 0.25, freeze = false, centre = "a", opts = "", harmonics = 0, trace = -1.0, seed = 0.0, save = "", load = "" },
  { cpd = "cells per diameter", T = "capillary times to run", box = "box edge in diameters",
    every = "print interval [capillary times]", freeze = "reset phi to the initial sphere after every step",
    centre = "the centre's offset from the box centre: a (0.37, 0.13, 0.29) dx or b (0.21, 0.44, 0.07) dx",
    opts = "extra tide.drop.new options, a Lua table constructor",
    trace = "from this time on, 60 steps each printing max|u| and the signed velocity of the face fastest at its start",
    seed = "add a grid-scale perturbation of this amplitude [dx] to phi near the surface (a stateless hash per cell)",
    save = "time:path -- store the state (phi, u, the linear_phi copy, t) at that mark (tide.fileio.checkpoint)",
    load = "start from a state stored with --save (the run's other options may differ: dt, scheme, ...)",
    harmonics = "also print the surface's shape: rms of r - R per spherical-harmonic degree l = 0..n [dx]" })

local sigma, rho, D = 1, 1, 1
local R, h = D / 2, D / P.cpd
local m = math.floor(P.box * P.cpd + 0.5)
local g = tide.grid.new { size = { m, m, m }, dx = h }
local off = P.centre == "b" and { 0.21, 0.44, 0.07 } or { 0.37, 0.13, 0.29 }
local ctr = { m * h / 2 + off[1] * h, m * h / 2 + off[2] * h, m * h / 2 + off[3] * h }
local phi_init = drop.sphere { grid = g, center = ctr, radius = R }
if P.seed ~= 0 then
  for i = 1, m do
    for j = 1, m do
      for k = 1, m do
        local p = phi_init:get(i, j, k)
        local x = math.sin(i * 12.9898 + j * 78.233 + k * 37.719) * 43758.5453
        if math.abs(p) < 3 * h then phi_init:set(i, j, k, p + P.seed * h * 2 * (x - math.floor(x) - 0.5)) end
      end
    end
  end
end
local opts = { grid = g, phi = phi_init, sigma = sigma, rho = rho }
if P.opts ~= "" then
  for k, v in pairs(assert(load("return " .. P.opts))()) do opts[k] = v end
end
local S = drop.new(opts)
if P.load ~= "" then
  local st = assert(tide.fileio.restore(P.load))
  S.phi:copy(st.phi)
  S.u:copy(st.u)
  if S.extend == "linear_phi" then -- the linearly extended copy that moves phi (else u itself)
    S.us = g:mac()
    S.us:copy(st.us)
  end
  S.t, S.steps = st.t, st.steps
  if S.tracker then S.tracker = tide.grid.volume_tracker { grid = g, phi = phi_init, redistance = false } end
end
local save_t, save_path = P.save:match("^([%d.]+):(.+)$")
save_t = tonumber(save_t)
local phi0 = g:cells():copy(S.phi)
local scale, exact = math.sqrt(rho * D / sigma), 2 * sigma / R
local scratch, pj = g:mac(), g:cells()

-- the surface radius r(dir) - R along nq quasi-uniform directions (Fibonacci sphere; Newton on
-- the cubic interpolant of phi from the initial centre), projected on the real orthonormal
-- spherical harmonics, less the initial surface's (the interpolant's own lattice pattern): rms over
-- the sphere of each degree l of the change, the rest (l > n) and the largest change of r
local nq = 4000
local dirs, Ylm = {}, {}
local function plm(l, m, x) -- associated Legendre P_l^m(x), m >= 0
  local pmm, s = 1, math.sqrt(math.max(1 - x * x, 0))
  for i = 1, m do pmm = -pmm * (2 * i - 1) * s end
  if l == m then return pmm end
  local p1 = x * (2 * m + 1) * pmm
  if l == m + 1 then return p1 end
  local p0 = pmm
  for ll = m + 2, l do p0, p1 = p1, ((2 * ll - 1) * x * p1 - (ll + m - 1) * p0) / (ll - m) end
  return p1
end
local function fact(n) local f = 1.0 for i = 2, n do f = f * i end return f end
if P.harmonics > 0 then
  for q = 1, nq do
    local z = 1 - (2 * q - 1) / nq
    local rr, ph = math.sqrt(1 - z * z), math.pi * (3 - math.sqrt(5)) * q
    dirs[q] = { rr * math.cos(ph), rr * math.sin(ph), z, ph }
    local Y = {}
    for l = 0, P.harmonics do
      for mm = -l, l do
        local m = math.abs(mm)
        local c = math.sqrt((2 * l + 1) / (4 * math.pi) * fact(l - m) / fact(l + m)) * plm(l, m, z)
        if mm > 0 then c = c * math.sqrt(2) * math.cos(m * ph) elseif mm < 0 then c = c * math.sqrt(2) * math.sin(m * ph) end
        Y[#Y + 1] = c
      end
    end
    Ylm[q] = Y
  end
end
local r0
local function shape()
  local pts = tide.array.zeros { nq, 3 }
  local r = {}
  for q = 1, nq do r[q] = R end
  for _ = 1, 6 do
    for q = 1, nq do
      for a = 1, 3 do pts:set(q, a, ctr[a] + r[q] * dirs[q][a]) end
    end
    local f = tide.grid.sample_cubic(g, S.phi, pts)
    for q = 1, nq do r[q] = r[q] - f:get(q) end
  end
  if not r0 then r0 = r return end
  local a, n = {}, #Ylm[1]
  for i = 1, n do a[i] = 0 end
  local dmax, tot = 0, 0
  for q = 1, nq do
    local d = r[q] - r0[q]
    dmax, tot = math.max(dmax, math.abs(d)), tot + d * d
    for i = 1, n do a[i] = a[i] + d * Ylm[q][i] end
  end
  local parts, i, fit = {}, 0, 0
  for l = 0, P.harmonics do
    local s2 = 0
    for _ = -l, l do i = i + 1; a[i] = a[i] * 4 * math.pi / nq; s2 = s2 + a[i] ^ 2 end
    fit = fit + s2
    parts[#parts + 1] = string.format("%.1e", math.sqrt(s2 / (4 * math.pi)) / h)
  end
  local rest = math.sqrt(math.max(tot / nq - fit / (4 * math.pi), 0)) / h
  print(string.format("   shape [dx]: l = 0..%d rms %s; rest %.1e; max change %.2e", P.harmonics, table.concat(parts, " "), rest, dmax / h))
  return a
end

local function report(v, big)
  -- the jump of the current phi
  tide.liquid.surface_tension(scratch, S.phi, { sigma = sigma, rho = rho, dt = 1e-3, curvature = "cells", pjump = pj })
  local flat = pj:reshape(pj:size())
  local lo, hi = math.huge, -math.huge
  for q = 1, pj:size() do
    local x = flat:get(q)
    if x ~= 0 then lo, hi = math.min(lo, x), math.max(hi, x) end
  end
  local uu, vv, ww = S.u:component(1), S.u:component(2), S.u:component(3)
  local ps, np, nl, mean = 0, 0, 0, { 0, 0, 0 }
  local inner, band, rad, tan = 0, 0, 0, 0
  local L, I2 = { 0, 0, 0 }, 0
  for i = 1, m do
    for j = 1, m do
      for k = 1, m do
        local p = S.phi:get(i, j, k)
        if p < -3 * h then ps, np = ps + S.pressure:get(i, j, k), np + 1 end
        if p < 0 then
          local a = 0.5 * (uu:get(i, j, k) + uu:get(i + 1, j, k))
          local b = 0.5 * (vv:get(i, j, k) + vv:get(i, j + 1, k))
          local c = 0.5 * (ww:get(i, j, k) + ww:get(i, j, k + 1))
          local x, y, z = (i - 0.5) * h - ctr[1], (j - 0.5) * h - ctr[2], (k - 0.5) * h - ctr[3]
          nl = nl + 1
          mean[1], mean[2], mean[3] = mean[1] + a, mean[2] + b, mean[3] + c
          L[1], L[2], L[3] = L[1] + y * c - z * b, L[2] + z * a - x * c, L[3] + x * b - y * a
          I2 = I2 + x * x + y * y + z * z
          local s2 = a * a + b * b + c * c
          if p < -3 * h then
            inner = math.max(inner, math.sqrt(s2))
          else
            band = math.max(band, math.sqrt(s2))
            local ur = (a * x + b * y + c * z) / math.sqrt(x * x + y * y + z * z)
            rad, tan = math.max(rad, math.abs(ur)), math.max(tan, math.sqrt(math.max(s2 - ur * ur, 0)))
          end
        end
      end
    end
  end
  -- the fastest face: its axis, its two cells' phi / dx (air faces carry the extension)
  local fmax, fa, fphi = 0, 0, { 0, 0 }
  for a, comp in ipairs { uu, vv, ww } do
    for i = 2, m do
      for j = 1, m do
        for k = 1, m do
          local I = { i, j, k }
          I = a == 1 and I or a == 2 and { j, i, k } or { j, k, i }
          local x = math.abs(comp:get(I[1], I[2], I[3]))
          if x > fmax then
            local L = { I[1], I[2], I[3] }
            L[a] = L[a] - 1
            fmax, fa, fphi = x, a, { S.phi:get(L[1], L[2], L[3]) / h, S.phi:get(I[1], I[2], I[3]) / h }
          end
        end
      end
    end
  end
  local omega = math.sqrt(L[1] ^ 2 + L[2] ^ 2 + L[3] ^ 2) / (2 / 3 * I2)
  print(string.format("t %.2f (%d steps): max|u| %.3e (largest %.3e), p %.5f, jump %+.4f%% .. %+.4f%%; cells: inside %.2e, band %.2e "
    .. "(radial %.2e, tangential %.2e), mean %.1e, omega R %.1e; fastest face: axis %d, phi %.3f | %.3f dx", S.t, S.steps, v * scale, big * scale, ps / np / exact,
    (lo / exact - 1) * 100, (hi / exact - 1) * 100, inner * scale, band * scale, rad * scale, tan * scale,
    math.sqrt(mean[1] ^ 2 + mean[2] ^ 2 + mean[3] ^ 2) / nl * scale, omega * R * scale, fa, fphi[1], fphi[2]))
  if P.harmonics > 0 then shape() end
  io.stdout:flush()
end

print(string.format("3D drop at rest: %d cells per diameter, %d^3, centre %s, extend %s, redistance %d, tension_ahead %g%s", P.cpd, m,
  P.centre, S.extend, S.redistance, S.tension_ahead, P.freeze and ", phi frozen" or ""))
if P.harmonics > 0 then shape() end
local big, mark = 0, P.every
while mark < S.t + 1e-9 do mark = mark + P.every end
local tr -- the traced face: component, indices, steps left
while S.t < P.T - 1e-9 do
  local dt = drop.max_dt(S)
  if S.t + 1.5 * dt > mark then dt = mark - S.t end
  drop.step(S, dt)
  if P.freeze then S.phi:copy(phi0) end
  local v = S.u:max_speed()
  big = math.max(big, v)
  if P.trace >= 0 and S.t >= P.trace and not tr then
    local best, bc, bi = -1, nil, nil
    for a = 1, 3 do
      local comp = S.u:component(a)
      for i = 2, m do
        for j = 1, m do
          for k = 1, m do
            local I = a == 1 and { i, j, k } or a == 2 and { j, i, k } or { j, k, i }
            local L = { I[1], I[2], I[3] }
            L[a] = L[a] - 1
            -- a face of the liquid or the surface (not the extension in the air)
            if math.min(S.phi:get(L[1], L[2], L[3]), S.phi:get(I[1], I[2], I[3])) < 0 then
              local x = math.abs(comp:get(I[1], I[2], I[3]))
              if x > best then best, bc, bi = x, a, I end
            end
          end
        end
      end
    end
    tr = { a = bc, I = bi, left = 60 }
    print(string.format("trace: face axis %d at (%d, %d, %d)", bc, bi[1], bi[2], bi[3]))
  end
  if tr and tr.left > 0 then
    tr.left = tr.left - 1
    print(string.format("  step %d t %.5f: max|u| %.3e, traced face u %+.3e", S.steps, S.t, v * scale,
      S.u:component(tr.a):get(tr.I[1], tr.I[2], tr.I[3]) * scale))
  end
  if S.t > mark - 1e-9 then
    report(v, big)
    if save_t and math.abs(S.t - save_t) < 1e-9 then
      tide.fileio.checkpoint(save_path, { phi = S.phi, u = S.u, us = S.us, t = S.t, steps = S.steps })
      print("saved " .. save_path)
    end
    mark = mark + P.every
  end
end
