-- Emitters (inflow), sinks and the open-boundary operators.
--  (b) a steady emitter (a nozzle pointing down) into a box with an open
--      floor: the particle count settles, and the measured inflow and
--      outflow rates both match the prescribed Q = |v| * area within 5%
--      (2D and 3D); an emitter whose jet falls into a sink loses everything
--      there;
--  operators: region, emit (count, velocities, uniform positions), inflow
--  (fixed faces), remove (open layer, outside, sink), open_cells, open_phi
--  (exact for linear phi), enforce_walls with open sides, argument errors.
local tide = require "tide"
local flip = require "tide.flip"
local liquid = tide.liquid
local T = require "tide.testing"

-- (b) steady emitter, open floor --------------------------------------------
local function fountain(dim, n, tend)
  local dx = 1 / n
  local size = dim == 2 and { n, n } or { n, n, n }
  local g = tide.grid.new { size = size, dx = dx }
  local ps = liquid.particles { dim = dim }
  local V = 1
  -- a nozzle of 8 x 2 (x 8) cells, 0.25 m wide, 0.75 m above the floor
  local lo = dim == 2 and { 0.375, 0.75 } or { 0.375, 0.75, 0.375 }
  local hi = dim == 2 and { 0.625, 0.8125 } or { 0.625, 0.8125, 0.625 }
  local area = dim == 2 and 0.25 or 0.25 * 0.25
  local Q = V * area
  local per_cell = 2 ^ dim
  local S = flip.new { grid = g, particles = ps, open = { "y-" },
    emitters = { { shape = tide.shape.box { min = lo, max = hi }, velocity = dim == 2 and { 0, -V } or { 0, -V, 0 } } } }
  local cell = dx ^ dim / per_cell -- volume of one particle
  local t0, e0, r0, c0, cmin, cmax
  while S.t < tend do
    flip.step(S, flip.max_dt(S))
    if not t0 and S.t >= 0.5 * tend then t0, e0, r0, c0, cmin, cmax = S.t, S.emitted, S.removed, #ps, #ps, #ps end
    if t0 then cmin, cmax = math.min(cmin, #ps), math.max(cmax, #ps) end
  end
  local qin = (S.emitted - e0) * cell / (S.t - t0)
  local qout = (S.removed - r0) * cell / (S.t - t0)
  local tag = string.format("fountain %dD %d^%d", dim, n, dim)
  T.check(math.abs(qin / Q - 1) < 0.05, string.format("%s: inflow %.4f vs Q %.4f", tag, qin, Q))
  T.check(math.abs(qout / Q - 1) < 0.05, string.format("%s: outflow %.4f vs Q %.4f", tag, qout, Q))
  T.check((cmax - cmin) < 0.1 * c0, string.format("%s: particle count in [%d, %d] over the second half", tag, cmin, cmax))
  T.check(#ps == S.emitted - S.removed, tag .. ": count = emitted - removed")
  print(string.format("%s: t in [%.2f, %.2f] s: inflow %.4f (%+.1f%%), outflow %.4f (%+.1f%%) of Q = %.4f; count %d..%d",
    tag, t0, S.t, qin, 100 * (qin / Q - 1), qout, 100 * (qout / Q - 1), Q, cmin, cmax))
end

fountain(2, 32, 3)
fountain(3, 16, 2.5)

-- a jet into a sink: a closed box, the sink at the floor takes it all
do
  local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
  local ps = liquid.particles { dim = 2 }
  local S = flip.new { grid = g, particles = ps,
    emitters = { { shape = tide.shape.box { min = { 0.375, 0.75 }, max = { 0.625, 0.875 } }, velocity = { 0, -1 } } },
    sinks = { tide.shape.box { min = { -1, -1 }, max = { 2, 0.25 } } } }
  while S.t < 2 do flip.step(S, flip.max_dt(S)) end
  local lab = liquid.label(ps, g)
  local low = lab:slice(2, 1, 4):sum()
  T.check(S.removed > 0 and low == 0, string.format("sink: %d particles removed, %d liquid cells left in it", S.removed, low))
  T.check(#ps == S.emitted - S.removed, "sink: count = emitted - removed")
end

-- an emitter active for t in [0.2, 0.5) s only
do
  local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
  local ps = liquid.particles { dim = 2 }
  local S = flip.new { grid = g, particles = ps, emitters = { { shape = tide.shape.box { min = { 0.375, 0.75 },
    max = { 0.625, 0.875 } }, velocity = { 0, -1 }, start = 0.2, stop = 0.5 } } }
  local before, during
  while S.t < 0.8 do
    local t0 = S.t -- emitters act on the step's start time
    flip.step(S, flip.max_dt(S))
    if t0 < 0.2 then before = S.emitted end
    if t0 < 0.5 then during = S.emitted end
  end
  T.check(before == 0 and during > 0 and S.emitted == during and #ps == during,
    string.format("start/stop: emitted %d before, %d until stop, %d at the end", before, during, S.emitted))
end

-- deterministic: open sides, an emitter and a sink give the same particles
-- with 1 and 2 threads
do
  local function run(threads)
    tide.threads(threads)
    local g = tide.grid.new { size = { 24, 24 }, dx = 1 / 24 }
    local ps = liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.5, 0.5 } } }
    local S = flip.new { grid = g, particles = ps, open = { "x+", "y-" },
      emitters = { { shape = tide.shape.sphere { center = { 0.5, 0.8 }, radius = 0.1 }, velocity = { 0.5, -1 } } },
      sinks = { tide.shape.box { min = { 0.8, 0.4 }, max = { 1, 0.6 } } } }
    for _ = 1, 60 do flip.step(S, flip.max_dt(S)) end
    return string.format("%d %d %d %s %s", #ps, S.emitted, S.removed, ps.x:checksum(), ps.v:checksum())
  end
  local threads = tide.threads()
  local a, b = run(1), run(2)
  tide.threads(threads)
  T.check(a == b, "1 and 2 threads: " .. a .. " vs " .. b)
end

-- operators --------------------------------------------------------------------
do
  local g = tide.grid.new { size = { 8, 6 }, dx = 0.5 }
  local box = tide.shape.box { min = { 1, 1 }, max = { 2, 1.9 } } -- centres x 1.25, 1.75; y 1.25, 1.75
  local reg = liquid.region(g, box)
  T.near(reg:sum(), 4, 0, "region: 2 x 2 cells")
  T.near(reg:get(3, 3) + reg:get(4, 4), 2, 0, "region: the right cells")
  local solid = g:cells("u8")
  solid:set(3, 3, liquid.SOLID)
  T.near(liquid.region(g, box, { solid = solid }):sum(), 3, 0, "region: solid cells left out")

  local ps = liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 4, 3 } } } -- 4 per cell
  local n0 = #ps
  local added, removed = liquid.emit(ps, g, { region = reg, velocity = { 0.5, -2 }, per_cell = 9, stream = 3 })
  T.near(added, 36, 0, "emit: 9 per region cell")
  T.near(removed, 16, 0, "emit: the 4 old particles of each region cell")
  T.near(#ps, n0 - 16 + 36, 0, "emit: count")
  local vx, vy = ps.v:slice(1, #ps - 35, #ps):slice(2, 1, 1), ps.v:slice(1, #ps - 35, #ps):slice(2, 2, 2)
  T.check(vx:min() == 0.5 and vx:max() == 0.5 and vy:min() == -2 and vy:max() == -2, "emit: velocities")
  -- positions: in the region cells, one per third of a cell in each direction
  local ok = true
  for q = #ps - 35, #ps do
    local x, y = ps.x:get(q, 1), ps.x:get(q, 2)
    ok = ok and ((x > 1 and x < 2 and y > 1 and y < 2))
  end
  T.check(ok, "emit: new particles in the region")

  -- remove: open layer x+ (x >= 3.5), outside, sink
  ps.x:set(1, 1, -0.1) -- outside
  ps.x:set(2, 1, 3.7)  -- in the open layer of x+
  local before = #ps
  local r = liquid.remove(ps, g, { open = { "x+" } })
  local inlayer = 0
  for q = 1, #ps do if ps.x:get(q, 1) >= 3.5 or ps.x:get(q, 1) < 0 then inlayer = inlayer + 1 end end
  T.check(r >= 2 and inlayer == 0 and #ps == before - r, "remove: open layer and outside, " .. r)
  local r2 = liquid.remove(ps, g, { shape = box })
  T.near(r2, 36, 0, "remove: sink region")

  -- a large set (the parallel compaction): survivors keep their order and data
  do
    local gb = tide.grid.new { size = { 128, 128 }, dx = 1 / 128 }
    local big = liquid.seed { grid = gb, box = { min = { 0, 0 }, max = { 1, 1 } }, apic = true }
    local nb = #big
    for q = 1, nb do
      big.v:set(q, 1, q)
      big.c:set(q, 2, 1, -q)
    end
    local expect = 0
    for q = 1, nb do
      local x, y = big.x:get(q, 1), big.x:get(q, 2)
      if not (x < 1 / 128 or y >= 127 / 128) then expect = expect + 1 end
    end
    local rb = liquid.remove(big, gb, { open = { "x-", "y+" } })
    local okb, last = #big == expect and rb == nb - expect, 0
    for q = 1, #big do
      local id, x, y = big.v:get(q, 1), big.x:get(q, 1), big.x:get(q, 2)
      okb = okb and id > last and big.c:get(q, 2, 1) == -id and x >= 1 / 128 and y < 127 / 128
      last = id
    end
    T.check(okb, string.format("remove, %d particles: %d removed (expected %d), order and data kept", nb, rb, nb - expect))
  end

  -- inflow: faces of region cells, fixed mask
  local u, fixed = g:mac(), g:mac("u8")
  liquid.inflow(u, { region = reg, velocity = { 0.5, -2 }, fixed = fixed })
  T.near(fixed.u:sum(), 6, 0, "inflow: 3 x 2 u faces")
  T.near(fixed.v:sum(), 6, 0, "inflow: 2 x 3 v faces")
  T.near(u.u:sum(), 3, 1e-15, "inflow: u = 0.5 there")
  T.near(u.v:sum(), -12, 1e-15, "inflow: v = -2 there")

  -- open_cells, open_phi (exact for a linear phi), enforce_walls with open sides
  local lab = g:cells("u8", liquid.LIQUID)
  lab:set(1, 1, liquid.SOLID)
  liquid.open_cells(g, lab, { "x-", "y+" })
  T.near(lab:slice(1, 1, 1):sum(), 2, 0, "open_cells: x- layer air, the solid cell kept")
  T.near(lab:slice(2, 6, 6):sum(), 0, 0, "open_cells: y+ layer air")
  T.near(lab:sum(), 2 + 7 * 5, 0, "open_cells: the rest untouched")
  local phi = g:cells()
  for i = 1, 8 do for j = 1, 6 do phi:set(i, j, 0.3 * i - 0.7 * j + 0.1) end end
  local ref = phi:clone()
  for j = 1, 6 do phi:set(8, j, 99) end
  for i = 1, 8 do phi:set(i, 1, -99) end
  liquid.open_phi(g, phi, { "x+", "y-" })
  T.near(phi:clone():axpy(-1, ref):norm(), 0, 1e-12, "open_phi: linear phi continued exactly")
  local m = g:mac()
  m.u:fill(1)
  m.v:fill(1)
  m.u:slice(1, 8, 8):fill(3)
  m:enforce_walls(nil, false, nil, { "x+" })
  T.near(m.u:slice(1, 9, 9):min(), 3, 0, "enforce_walls: open x+ face copies the next face inward")
  T.near(m.u:slice(1, 1, 1):max(), 0, 0, "enforce_walls: the x- wall stays closed")
  T.near(m.v:slice(2, 7, 7):max(), 0, 0, "enforce_walls: the y+ wall stays closed")

  -- argument errors name the function and the side
  local function fails(f, pat, what)
    local okk, err = pcall(f)
    T.check(not okk and tostring(err):find(pat, 1, true), what .. ": " .. tostring(err))
  end
  fails(function() liquid.remove(ps, g, { open = { "x" } }) end, "unknown side 'x'", "bad side name")
  fails(function() liquid.remove(ps, g, { open = { "z+" } }) end, "unknown side 'z+'", "z side in 2D")
  fails(function() liquid.remove(ps, g, { open = { xmax = "open" } }) end, "list of side names", "table form")
  fails(function() m:enforce_walls(nil, false, nil, 3) end, "side name", "enforce_walls open type")
  fails(function() liquid.emit(ps, g, { shape = box }) end, "velocity", "emit without velocity")
  fails(function() liquid.emit(ps, g, { velocity = { 0, 0 } }) end, "region", "emit without region")
  fails(function() liquid.emit(ps, g, { region = reg, shape = box, velocity = { 0, 0 } }) end, "not both", "region and shape")
  fails(function() liquid.inflow(u, { region = reg, velocity = { 0 / 0, 0 } }) end, "finite", "NaN velocity")
  fails(function() flip.new { grid = g, particles = ps, open = { "x+", "up" } } end, "unknown side up", "flip open")
  fails(function() flip.new { grid = g, particles = ps, emitters = { { shape = box } } } end, "velocity", "flip emitter")
  fails(function() flip.new { grid = g, particles = ps, emitters = { { shape = box, velocity = { 1, 0 }, speed = 1 } } } end,
    "unknown option 'speed'", "flip emitter key")
  fails(function() flip.new { grid = g, particles = ps, emitters = { { shape = box, velocity = { 1, 0 }, start = 2, stop = 1 } } } end,
    "start < stop", "flip emitter start/stop")
end

os.exit(T.report())
