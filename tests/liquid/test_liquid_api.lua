-- tide.grid and tide.liquid from Lua: construction, fields, transfers and
-- argument errors (wrong types, shapes, NaN, negative sizes, unknown keys).
local tide = require "tide"
local T = require "tide.testing"

local g = tide.grid.new { size = { 16, 12 }, dx = 0.05, origin = { -0.1, 0 } }
T.check(g.dim == 2 and g.size[1] == 16 and g.size[2] == 12 and g.dx == 0.05 and g.ncells == 192, "grid fields")
local x, y = g:center(1, 1)
T.near(x, -0.075, 1e-15, "centre x")
T.near(y, 0.025, 1e-15, "centre y")
local ci, cj = g:cell(0.0, 0.56)
T.check(ci == 3 and cj == 12, "cell of a point (1-based, clamped)")
local lo, hi = g:bounds()
T.near(hi[1], 0.7, 1e-12, "bounds")
T.check(tostring(g):find("tide.Grid 2D 16 x 12"), "grid tostring")

local c = g:cells()
T.check(c.shape[1] == 16 and c.shape[2] == 12 and c.dtype == "f64", "cell array shape")
T.check(g:cells("u8").dtype == "u8", "cell array dtype")
local cen = g:centers()
T.check(cen.shape[3] == 2, "centres shape")

local m = g:mac()
T.check(m.u.shape[1] == 17 and m.u.shape[2] == 12 and m.v.shape[1] == 16 and m.v.shape[2] == 13 and m.w == nil,
  "MAC face array shapes")
m.u:fill(1)
T.check(m:max_speed() == 1, "max speed")
m:add_gravity(0.1)
T.near(m.v:min(), -0.981, 1e-15, "gravity")
T.check(m:divergence():max() == 0, "uniform field is divergence free")
local pts = tide.array.from { { 0.2, 0.3 }, { 0.0, 0.0 } }
local vel = m:sample(pts)
T.near(vel:get(1, 1), 1, 1e-15, "sampled u")
local adv = m:advect(m, 0.01)
T.near(adv.u:max(), 1, 1e-15, "self advection of a uniform field")
m:enforce_walls()
T.check(m.u:get(1, 1) == 0 and m.v:get(1, 1) == 0, "walls zeroed")
local valid = g:mac("u8")
valid.u:set(5, 5, 1)
m.u:fill(0); m.u:set(5, 5, 3)
m:extrapolate(valid, 1)
T.check(m.u:get(6, 5) == 3 and m.u:get(7, 5) == 0, "extrapolation by one layer")

local g3 = tide.grid.new { size = { 4, 5, 6 }, dx = 0.1 }
local m3 = g3:mac()
T.check(m3.w.shape[3] == 7 and m3.u.shape[1] == 5, "3D MAC shapes")

-- particles
local ps = tide.liquid.seed { grid = g, box = { min = { -0.1, 0 }, max = { 0.3, 0.2 } } }
T.check(#ps == 8 * 4 * 4, "seeded 4 per cell: " .. #ps)
T.check(ps.x.shape[1] == #ps and ps.x.shape[2] == 2 and ps.c == nil, "particle arrays")
local n0 = #ps
ps:seed { grid = g, sphere = { center = { 0.5, 0.4 }, radius = 0.1 } }
T.check(#ps > n0, "seeding appends")
local pa = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.2, 0.2 } }, apic = true, velocity = { 1, 0 } }
T.check(pa.apic and pa.c.shape[3] == 2 and pa.v:get(1, 1) == 1, "APIC particles with velocity")
local u = g:mac()
tide.liquid.p2g(pa, u, { scheme = "apic" })
T.near(u.u:max(), 1, 1e-14, "p2g of a uniform velocity")
tide.liquid.g2p(u, pa, { scheme = "apic" })
T.near(pa.c:max(), 0, 1e-12, "C of a uniform field is zero")
local lab = tide.liquid.label(pa, g)
T.check(lab.dtype == "u8" and lab:sum() == 16, "labels: 16 liquid cells")
pa:advect(u, 0.01)
T.check(pa.x:checksum() ~= ps.x:checksum(), "checksum of positions")


-- reseeding keeps bulk cells within [min, max]; the set comes out sorted by cell
do
  local gg = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
  local pr = tide.liquid.seed { grid = gg, box = { min = { 0, 0 }, max = { 1, 0.5 } }, per_cell = 4 }
  local uu = gg:mac(); uu.u:fill(1)
  local lab8 = tide.liquid.label(pr, gg)
  local added, removed = pr:reseed(uu, lab8, { min = 8, max = 16 })
  T.check(added == 96 and removed == 0 and #pr == 128 + 96, "reseed fills the 24 bulk cells to 8: " .. added)
  T.near(pr.v:max(), 1, 1e-15, "new particles take the grid velocity")
  local cnt = gg:cells("i32")
  tide.liquid.label(pr, gg, { counts = cnt })
  T.check(cnt:get(4, 2) == 8 and cnt:get(4, 4) == 4, "bulk cell 8, surface cell untouched")
  local a2, r2 = pr:reseed(uu, lab8, { min = 1, max = 2 })
  tide.liquid.label(pr, gg, { counts = cnt })
  T.check(a2 == 0 and r2 == 160 and cnt:max() == 2, "reseed trims cells to max")
  -- sorted: the cell index never decreases along the set
  local ok, last = true, -1
  for p = 1, #pr do
    local ci, cj = gg:cell(pr.x:get(p, 1), pr.x:get(p, 2))
    local c = (ci - 1) * 8 + cj - 1
    if c < last then ok = false end
    last = c
  end
  T.check(ok, "reseeded set is sorted by cell")
  local s1 = pr.x:checksum()
  pr:sort(gg)
  T.check(pr.x:checksum() == s1, "sorting a sorted set changes nothing")
  T.raises(function() pr:reseed(uu, lab8, { min = 5, max = 2 }) end, "lo", "min > max")
  T.raises(function() pr:sort(g3) end, "3D", "sort across dimensions")
end


-- face fractions (node-based and clipped) and a moving solid in the projection
do
  local gg = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
  local disk = tide.shape.sphere { center = { 0.5, 0.5 }, radius = 0.3 }
  local fr, sol = gg:face_fractions(disk)
  local fe = gg:face_fractions(disk, { exact = true, depth = 4 })
  T.check(fr.u:min() == 0 and fr.u:max() == 1 and sol:max() == tide.liquid.SOLID, "fractions and solid cells")
  T.check(math.abs(fe.u:sum() - fr.u:sum()) < 2, "clipped and node-based fractions agree in total")
  T.raises(function() gg:face_fractions(disk:sdf(gg, { at = "nodes" }), { exact = true }) end, "exact", "exact needs a shape")
  T.raises(function() gg:face_fractions(42) end, "tide.Shape", "bad solid")
  local lab16 = gg:cells("u8")
  for i = 1, 16 do for j = 1, 8 do lab16:set(i, j, 1) end end
  local us = gg:mac()
  us.u:fill(1)
  us:enforce_walls()
  local v16 = gg:mac()
  local st = tide.liquid.project(v16, lab16, { dt = 0.01, fractions = fr, solid_velocity = us, tol = 1e-10 })
  T.check(st.div_after < 1e-6 and v16:max_speed() > 0.5, "moving solid pushes the liquid, divergence free")
end

-- errors: never a crash, always a message naming the function and argument
T.raises(function() tide.grid.new { size = { 0, 4 }, dx = 1 } end, "size[1]", "zero size")
T.raises(function() tide.grid.new { size = { -3, 4 }, dx = 1 } end, "size[1]", "negative size")
T.raises(function() tide.grid.new { size = { 4, 4 }, dx = 0 / 0 } end, "finite", "NaN dx")
T.raises(function() tide.grid.new { size = { 4, 4 }, dx = 1, origin = { 0 } } end, "origin", "short origin")
T.raises(function() tide.grid.new { size = { 4, 4 }, dx = 1, bogus = 1 } end, "unknown option 'bogus'", "unknown key")
T.raises(function() tide.grid.new { size = { 4, 4, 4, 4 }, dx = 1 } end, "size", "4D")
T.raises(function() tide.grid.new(5) end, "table", "number instead of table")
T.raises(function() g:cells("f16") end, "dtype", "bad dtype")
T.raises(function() g:center(17, 1) end, "index 1", "centre out of range")
T.raises(function() g:sample(g:cells(), tide.array.zeros { 3, 3 }) end, "points", "points shape")
T.raises(function() g:sample(g3:cells(), pts) end, "field", "field on another grid")
T.raises(function() g:advect(c, m3, 0.1) end, "grid", "velocity on another grid")
T.raises(function() g:advect(c, m, 0 / 0) end, "dt", "NaN dt")
T.raises(function() m:advect(m3, 0.1) end, "grid", "mac advect across grids")
T.raises(function() m:extrapolate(g:mac(), 1) end, "u8", "extrapolate needs u8 mask")
T.raises(function() m:extrapolate(valid, -1) end, "layers", "negative layers")
T.raises(function() m:add_gravity(0.1, { 0, 0 / 0 }) end, "finite", "NaN gravity")
T.raises(function() m.sample(42) end, "tide.Mac expected", "wrong self")
T.raises(function() m:enforce_walls(g:cells()) end, "labels", "f64 labels")
T.raises(function() tide.liquid.particles { dim = 4 } end, "dim", "bad dim")
T.raises(function() tide.liquid.particles {} end, "dim", "missing dim")
T.raises(function() tide.liquid.seed { grid = g } end, "box", "no shape")
T.raises(function() tide.liquid.seed { grid = g, box = { min = { 0, 0 } } } end, "max", "box without max")
T.raises(function() tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, 0 / 0 } } } end, "finite", "NaN box")
T.raises(function() tide.liquid.seed { grid = g, sphere = { center = { 0, 0 }, radius = -1 } } end, "radius", "negative radius")
T.raises(function() tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, 1 } }, per_cell = 0 } end, "per_cell", "zero per cell")
T.raises(function() tide.liquid.seed { grid = g3, particles = ps, box = { min = { 0, 0, 0 }, max = { 1, 1, 1 } } } end, "3D", "dimension mismatch")
T.raises(function() tide.liquid.seed { grid = 5, box = {} } end, "grid", "grid not a Grid")
T.raises(function() tide.liquid.p2g(ps, u, { scheme = "apic" }) end, "APIC", "apic needs C")
T.raises(function() tide.liquid.p2g(ps, u, { scheme = "sph" }) end, "scheme", "unknown scheme")
T.raises(function() tide.liquid.p2g(ps, m3) end, "2D", "p2g across dimensions")
T.raises(function() tide.liquid.g2p(u, ps) end, "old", "flip without old")
T.raises(function() tide.liquid.g2p(u, ps, { scheme = "flip", old = u, flip = 2 }) end, "flip", "flip ratio range")
T.raises(function() tide.liquid.g2p(u, ps, { scheme = "pic", old = m3 }) end, "grid", "old on another grid")
T.raises(function() tide.liquid.label(ps, g3) end, "3D", "label across dims")
T.raises(function() tide.liquid.label(ps, g, { out = g:cells() }) end, "labels", "f64 label output")
T.raises(function() ps:advect(u, 0 / 0) end, "dt", "NaN dt")
T.raises(function() ps:advect(u, 0.1, { order = 4 }) end, "order", "bad order")
T.raises(function() ps:resize(-1) end, "n", "negative resize")
T.raises(function() ps.advect(g, u, 0.1) end, "tide.Particles expected", "wrong self")
local freed = g:mac(); freed:free()
T.raises(function() freed:max_speed() end, "freed", "use after free")

-- ps:max_speed: the largest velocity component magnitude, one pass
do
  local q = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.2, 0.2 } } }
  T.check(q:max_speed() == 0, "max_speed of particles at rest")
  q.v:set(3, 2, -2.5)
  q.v:set(5, 1, 1.5)
  T.check(q:max_speed() == 2.5, "max_speed = max |v_p,d|")
  q.v:set(1, 1, 0 / 0)
  T.raises(function() q:max_speed() end, "non-finite", "max_speed rejects NaN velocities")
end

-- liquid.g2p with advect = dt equals liquid.g2p then ps:advect, bit for bit
for _, dim in ipairs { 2, 3 } do
  local gg = tide.grid.new { size = dim == 2 and { 12, 10 } or { 8, 7, 6 }, dx = 0.1 }
  local lo, hi = {}, {}
  for d = 1, dim do lo[d], hi[d] = 0.1, 0.5 end
  local uu, uo = gg:mac(), gg:mac()
  for a = 1, dim do
    local c, o = uu:component(a), uo:component(a)
    local fc, fo = c:reshape(c:size()), o:reshape(o:size())
    for i = 1, c:size() do fc:set(i, math.sin(0.7 * i + a)); fo:set(i, math.cos(0.3 * i - a)) end
  end
  local solid = gg:cells("u8")
  solid:reshape(solid:size()):set(3, 2)
  for _, scheme in ipairs { "pic", "flip", "apic" } do
    local a1 = tide.liquid.seed { grid = gg, box = { min = lo, max = hi }, apic = scheme == "apic" }
    local a2 = tide.liquid.seed { grid = gg, box = { min = lo, max = hi }, apic = scheme == "apic" }
    for _, q in ipairs { a1, a2 } do q.v:fill(0.25) end
    for _, order in ipairs { 1, 2, 3 } do
      tide.liquid.g2p(uu, a1, { scheme = scheme, old = uo, flip = 0.9 })
      a1:advect(uu, 0.05, { order = order, labels = solid })
      tide.liquid.g2p(uu, a2, { scheme = scheme, old = uo, flip = 0.9, advect = 0.05, order = order, labels = solid })
      T.check(a1.x:checksum() == a2.x:checksum() and a1.v:checksum() == a2.v:checksum()
        and (scheme ~= "apic" or a1.c:checksum() == a2.c:checksum()),
        string.format("g2p with advect = g2p then advect (%dD, %s, order %d)", dim, scheme, order))
    end
  end
end
T.raises(function() tide.liquid.g2p(u, ps, { scheme = "pic", order = 2 }) end, "needs option 'advect'",
  "g2p: advection options need advect")

os.exit(T.report())
