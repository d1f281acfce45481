-- Zalesak's slotted disk: the area of the disk over a rigid rotation, with
-- and without the volume correction (Liu et al. 2024, Sec. 4.2.2).
local F = require "tide.figures"
local tide = require "tide"
local G, A = tide.grid, tide.array

local fig = F.figure {
  paper = "Liu et al. 2024", number = "Sec. 4.2.2 (volume correction); Zalesak 1979 disk",
  title = "Zalesak's slotted disk: area with and without volume correction",
  shows = "Zalesak's slotted disk (radius 15, slot 5 x 25, centre (50, 75) in a 100 x 100 box) in a rigid " ..
    "rotation about (50, 50), one revolution in 628 s. Each step advects the level set (RK2 backtrace) " ..
    "by linear semi-Lagrangian or MacCormack with monotone cubic interpolation, then either " ..
    "redistances it (uncorrected) or runs Liu et al.'s volume-preserving optimization (Eq. 10-13, " ..
    "tide.grid.volume_tracker) with the redistancing. Area of {phi < 0} by 4 x 4 samples per cell of " ..
    "the bilinear interpolant, relative to the initial disk's (a rigid rotation keeps it). " ..
    "Same set-up as tests/c/test_levelset_zalesak.c (written in C against the same operators).",
  quick = { n = 100, steps = 100, revolutions = 1, samples = 10 },
  full = { n = 200, steps = 200, revolutions = 2, samples = 40 },
  estimate = { quick = 3, full = 120 },
}
local P = fig.params
local n, dx = P.n, 100 / P.n
local g = G.new { size = { n, n }, dx = dx }
local zal = G.shape.difference(G.shape.sphere { center = { 50, 75 }, radius = 15 },
  G.shape.box { min = { 47.5, 55 }, max = { 52.5, 85 } })
local phi0 = zal:sdf(g)
-- rigid rotation on the MAC faces: u = -w (y - 50), v = w (x - 50)
local w = 2 * math.pi / 628
local vel = g:mac()
for i = 1, n + 1 do for j = 1, n do vel.u:set(i, j, -w * ((j - 0.5) * dx - 50)) end end
for i = 1, n do for j = 1, n + 1 do vel.v:set(i, j, w * ((i - 0.5) * dx - 50)) end end
-- 4 x 4 sample points per cell
local pts = A.zeros({ 16 * n * n, 2 })
do
  local q = 0
  for i = 0, n - 1 do for j = 0, n - 1 do for a = 0, 3 do for b = 0, 3 do
    q = q + 1
    pts:set(q, 1, (i + (a + .5) / 4) * dx)
    pts:set(q, 2, (j + (b + .5) / 4) * dx)
  end end end end
end
local vals = A.zeros({ 16 * n * n })
local function area(phi)
  g:sample(phi, pts, vals)
  local c = 0
  for q = 1, 16 * n * n do if vals[q] < 0 then c = c + 1 end end
  return c * dx * dx / 16
end
local variants = {
  { key = "sl", label = "SL linear", opts = { rk = 2, interp = "linear", scheme = "sl" } },
  { key = "mc", label = "MacCormack cubic", opts = { rk = 2, interp = "cubic", scheme = "maccormack", clamp = "revert" } },
}
local total = P.steps * P.revolutions
local dt = 628 / P.steps
local every = math.max(1, total // P.samples)
local series, rows, pics, results = {}, {}, {}, {}
local runs, run_i = 2 * #variants, 0
local W = G.advect_work()
for _, v in ipairs(variants) do
  for _, correct in ipairs { false, true } do
    run_i = run_i + 1
    local phi, tmp = phi0:clone(), phi0:clone()
    local vt = correct and G.volume_tracker { grid = g, phi = phi } or nil
    local a0 = area(phi)
    local t, ar = { 0 }, { 1 }
    for s = 1, total do
      local o = { grid = g, velocity = vel, field = phi, dt = dt, out = tmp, work = W }
      for k, val in pairs(v.opts) do o[k] = val end
      G.advect_scalar(o)
      phi, tmp = tmp, phi
      if vt then vt:correct(phi) else G.redistance(g, phi) end
      if s % every == 0 or s == total then
        local a = area(phi)
        t[#t + 1], ar[#ar + 1] = s * dt / 628, a / a0
        rows[#rows + 1] = { v.label, correct and "corrected" or "uncorrected", s, s * dt, a, a / a0 - 1 }
      end
      fig:progress((run_i - 1) * total + s, runs * total)
    end
    local tag = v.label .. (correct and ", corrected" or ", uncorrected")
    series[#series + 1] = { x = t, y = ar, label = tag, dash = correct and "solid" or "dashed" }
    -- the slot: min phi along its centre line (positive: open)
    local line = A.zeros({ 18, 2 })
    for k = 1, 18 do line:set(k, 1, 50); line:set(k, 2, 64 + k) end
    local lv = g:sample(phi, line)
    local slot = math.huge
    for k = 1, 18 do slot = math.min(slot, lv[k]) end
    results[#results + 1] = { tag = tag, area = ar[#ar] - 1, slot = slot }
    local file = v.key .. (correct and "_c" or "_u") .. ".png"
    tide.fileio.png2d { path = fig:path(file), grid = g, phi = phi, width = 240,
      domain = { origin = { 25, 50 }, size = { 50, 50 } },
      title = string.format("%s, %s", v.label, correct and "corr." or "uncorr.") }
    pics[#pics + 1] = file
  end
end
fig:row("disks", pics, string.format("The disk after %d revolution(s): %s (left to right)", P.revolutions,
  "SL linear uncorrected, corrected; MacCormack cubic uncorrected, corrected"))
fig:csv("area", { "advection", "volume", "step", "t [s]", "area", "area / initial - 1" }, rows)
series[#series + 1] = { x = { 0, P.revolutions }, y = { 1, 1 }, analytic = true, label = "rigid rotation (constant)" }
fig:plot("area", { title = string.format("Zalesak's disk, %d x %d cells, %d steps per revolution", n, n, P.steps),
  xlabel = "revolutions", ylabel = "area / initial area", legend = "lower left", series = series,
  caption = "Area of the disk over time relative to its initial area: dashed uncorrected, solid with the volume correction" })
for _, r in ipairs(results) do
  fig:compare { quantity = r.tag .. ": area change at the end", paper = 0, source = "rigid rotation",
    tide = r.area, note = string.format("slot %s (min phi on its centre line %.2f)", r.slot > 0 and "open" or "closed", r.slot) }
end
fig:done()
