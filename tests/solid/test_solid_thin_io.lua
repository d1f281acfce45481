-- Checkpoints and exports of thin meshes (shells, rods, merged meshes):
--  * tide.fileio.checkpoint / restore round-trips a shell (shape-operator
--    bending, Rayleigh damping, plastic bending whose flow has moved rest
--    angles, friction on a sphere collider), a 3D helix rod with twist, a 2D
--    rod network and tets + shell + rod merged with solid contact: a run
--    resumed from the checkpoint is bit-identical (x, v checksums) to the
--    run that went on; so is a cloth whose adaptive barrier stiffness
--    (kappa_adapt) was raised before the checkpoint and goes on rising
--    (the contact distance it compares with is restored too);
--  * a rod mesh exports to VTK (.vtu line cells), PLY (edges) and OBJ
--    (polyline l records) with its node and segment counts.
local T = require "tide.testing"
local tide = require "tide"
local S, fio = tide.solid, tide.fileio
local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("thin_io")
os.execute("mkdir -p '" .. dir .. "'")

-- run `before` steps, checkpoint, `after` more; restore, `after` again: the
-- two ends agree bit for bit
local function roundtrip(name, make, step, before, after)
  local m = make()
  for _ = 1, before do step(m) end
  local path = dir .. "/" .. name .. ".ckpt"
  fio.checkpoint(path, { mesh = m })
  for _ = 1, after do step(m) end
  local data = fio.restore(path)
  local r = data.mesh
  T.check(r.nv == m.nv and r.kind == m.kind, name .. ": restored mesh kind and size")
  for _ = 1, after do step(r) end
  local same = r.x:checksum() == m.x:checksum() and r.v:checksum() == m.v:checksum()
  local dx = 0
  for i = 1, m.nv do for k = 1, m.dim do dx = math.max(dx, math.abs(r.x:get(i, k) - m.x:get(i, k))) end end
  print(string.format("%s: resumed after %d steps, %d more: x, v %s (largest difference %.3g m)", name, before, after,
    same and "bit-identical" or "DIFFER", dx))
  T.check(same, name .. ": the resumed run is bit-identical")
  return m, r
end

-- a cloth with everything that has state: plastic rest angles, damping,
-- friction lag on a collider, shape-operator bending
local ball = S.collider { shape = S.shape.sphere { center = { 0, 0.3, 0 }, radius = 0.2 }, mu = 0.4 }
local m, r = roundtrip("shell", function()
  local c = S.sheet { origin = { -0.3, 0.52, -0.3 }, u = { 0.6, 0, 0 }, v = { 0, 0, 0.6 }, cells = { 8, 8 },
    diagonals = "same" }
  c:shell { E = 1e5, thickness = 1e-3, density = 300, damping = 0.005, bend_yield = 0.02, bending_model = "triangle" }
  return c
end, function(c) c:step_newton { dt = 1 / 100, colliders = { ball } } end, 12, 4)
local h1, h2 = m:hinges(), r:hinges()
T.check(h1:checksum() == h2:checksum(), "shell: hinges restored")

-- Morley bending (12-node stencils, 9 hinges each) on the alternating grid
roundtrip("morley", function()
  local c = S.sheet { origin = { -0.3, 0.52, -0.3 }, u = { 0.6, 0, 0 }, v = { 0, 0, 0.6 }, cells = { 6, 6 } }
  c:shell { E = 1e5, thickness = 1e-3, density = 300, bend_yield = 0.02, bending_model = "morley" }
  return c
end, function(c) c:step_newton { dt = 1 / 100, colliders = { ball } } end, 6, 3)

roundtrip("helix", function()
  local hx = S.helix { radius = 0.05, pitch = 0.02, turns = 2, per_turn = 12 }
  hx:rod { E = 1e7, radius = 1e-3, twist = 0.5 * 1e7 / 2.6 * math.pi * 1e-12, damping = 0.002 }
  hx:pin { 1, 2 }
  return hx
end, function(hx) hx:step_newton { dt = 1 / 200 } end, 5, 5)

roundtrip("rod2d", function()
  local A = tide.array
  local pts, segs = {}, {}
  for i = 0, 8 do pts[#pts + 1] = { 0.05 * i, 0 } end
  for i = 1, 4 do pts[#pts + 1] = { 0.2, 0.05 * i } end
  for i = 1, 8 do segs[#segs + 1] = { i, i + 1 } end
  segs[#segs + 1] = { 5, 10 }
  for i = 10, 12 do segs[#segs + 1] = { i, i + 1 } end
  local net = S.mesh { nodes = A.from(pts), elements = A.from(segs) }
  net:rod { E = 1e6, radius = 2e-3 }
  net:pin { 1 }
  return net
end, function(net) net:step_newton { dt = 1 / 100 } end, 4, 4)

roundtrip("merged", function()
  local box = S.box { min = { 0, 0, 0 }, max = { 0.2, 0.1, 0.1 }, cells = { 2, 1, 1 } }
  box:material { E = 1e6, density = 500 }
  box:pin(function() return true end)
  local cloth = S.sheet { origin = { -0.05, 0.12, -0.05 }, u = { 0.3, 0, 0 }, v = { 0, 0, 0.2 }, cells = { 6, 4 } }
  cloth:shell { E = 1e5, thickness = 1e-3 }
  local rod = S.rod { from = { 0.3, 0.05, 0.05 }, to = { 0.5, 0.05, 0.05 }, segments = 4 }
  rod:rod { E = 1e7, radius = 1e-3 }
  return S.merge { box, cloth, rod }
end, function(all) all:step_newton { dt = 1 / 100, dhat = 2e-3 } end, 6, 4)

-- IPC's adaptive barrier stiffness is state of the run, and so is the
-- contact distance its rule compares with (the last iterate's, across
-- steps): a cloth pressed onto a plane barrier with kappa = 1e-6 (far below
-- kappa_min) doubles kappa to 4e-6 in its first step and again in the
-- next ones while its gap keeps shrinking; a run resumed after 3 steps goes
-- on with both, not the option's 1e-6, and is bit-identical
do
  local floor = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } } }
  local kap = {}
  local function press(c)
    local st = c:step_newton { dt = 1 / 100, colliders = { floor }, contact = "barrier", dhat = 1e-3, kappa = 1e-6,
      maxit = 200 }
    kap[#kap + 1] = st.kappa
  end
  local m, r = roundtrip("kappa", function()
    local c = S.sheet { origin = { -0.1, 5e-4, -0.1 }, u = { 0.2, 0, 0 }, v = { 0, 0, 0.2 }, cells = { 4, 4 } }
    c:shell { E = 1e5, thickness = 1e-3, density = 300 }
    return c
  end, press, 3, 4)
  print(string.format("kappa: %g after the first step, %g after the third, %g in the first resumed step (%g in the run that went on)",
    kap[1], kap[3], kap[8], kap[4]))
  T.check(kap[1] == 4e-6, "kappa adapted in the first step (" .. kap[1] .. ")")
  T.check(kap[3] > kap[1], "kappa adapts across steps (" .. kap[3] .. ")")
  T.check(kap[8] == kap[4] and kap[8] >= kap[3], "the resumed run goes on with the adapted kappa (" .. kap[8] .. ")")
  -- the checkpoint holds both; without the distance the resumed run
  -- compares with nothing at its first iterate and differs
  local mt = debug.getmetatable(m)
  local state = mt.__checkpoint(m)
  local ipc = state.material.ipc
  T.check(ipc and ipc.kappa == kap[7] and ipc.dmin > 0, "the checkpoint holds kappa and the last distance")
  print(string.format("kappa: checkpoint kappa %g, dmin %.4g m", ipc.kappa, ipc.dmin))
  local a, b = mt.__restore(state), nil
  ipc.dmin = nil
  b = mt.__restore(state)
  press(a)
  press(b)
  print(string.format("kappa: next step %g with the distance restored, %g without", kap[#kap - 1], kap[#kap]))
  T.check(kap[#kap - 1] == 2 * kap[7] and kap[#kap] == kap[7], "the restored distance drives the next update")
  -- restore into a mesh whose state says nothing of kappa (older
  -- checkpoints): the next step starts from the option
  state.material.ipc = nil
  local old = mt.__restore(state)
  press(old)
  print(string.format("kappa: %g in the first step after restoring without it", kap[#kap]))
  T.check(kap[#kap] == 1e-6, "an old checkpoint restores (kappa from the option: " .. kap[#kap] .. ")")
  local bad = mt.__checkpoint(m)
  bad.material.ipc.kappa = -1
  T.raises(function() mt.__restore(bad) end, "kappa", "a negative kappa is refused")
  bad = mt.__checkpoint(m)
  bad.material.ipc.dmin = -1
  T.raises(function() mt.__restore(bad) end, "dmin", "a negative distance is refused")
end

-- ------------------------------------------------------ rod exports
do
  local rod = S.helix { radius = 0.05, pitch = 0.02, turns = 1, per_turn = 10 }
  rod:rod { E = 1e7, radius = 1e-3 }
  local nv, ns = rod.nv, rod.ne
  local function read(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    return s
  end
  local vtu = fio.vtu { path = dir .. "/rod.vtu", mesh = rod }
  local s = read(vtu)
  T.check(s:find('NumberOfPoints="' .. nv .. '"', 1, true) and s:find('NumberOfCells="' .. ns .. '"', 1, true),
    "vtu: nodes and segments")
  local ply = fio.ply { path = dir .. "/rod.ply", points = rod.x, segments = rod:elements(), index_base = 1 }
  s = read(ply)
  T.check(s:find("element vertex " .. nv, 1, true) and s:find("element edge " .. ns, 1, true), "ply: vertices and edges")
  local obj = fio.obj { path = dir .. "/rod.obj", vertices = rod.x, segments = rod:elements(), index_base = 1 }
  s = read(obj)
  local nvv, nl, ok = 0, 0, true
  for line in s:gmatch("[^\n]+") do
    if line:match("^v ") then nvv = nvv + 1 end
    local a, b = line:match("^l (%d+) (%d+)$")
    if a then
      nl = nl + 1
      local e1, e2 = rod:elements():get(nl, 1), rod:elements():get(nl, 2)
      ok = ok and tonumber(a) == e1 and tonumber(b) == e2
    end
  end
  T.check(nvv == nv and nl == ns and ok, string.format("obj: %d v, %d l records as the segments", nvv, nl))
  -- and back: the OBJ polyline reads as a rod network with the same segments
  local back = S.read(obj)
  T.check(back.kind == "rod" and back.nv == nv and back.ne == ns, "obj: reads back as a rod")
  print(string.format("rod exports: vtu, ply, obj with %d nodes and %d segments", nv, ns))
end

-- bad input: an unknown bending model; a tampered part is refused by name
do
  local c = S.sheet { origin = { 0, 0, 0 }, u = { 1, 0, 0 }, v = { 0, 0, 1 }, cells = { 2, 2 } }
  T.raises(function() c:shell { E = 1e5, thickness = 1e-3, bending_model = "plate" } end, "bending_model",
    "unknown bending model")
  c:shell { E = 1e5, thickness = 1e-3, bending_model = "triangle" }
  local path = dir .. "/bad.ckpt"
  fio.checkpoint(path, { mesh = c })
  T.check(fio.restore(path).mesh.nv == c.nv, "a triangle-bending shell restores")
  local mt = debug.getmetatable(c)
  local state = mt.__checkpoint(c)
  state.thin[1].s2 = tide.array.full({ state.thin[1].n2, 4 }, 99, "i32")
  T.raises(function() mt.__restore(state) end, "stencils 2 entry", "a hinge node outside the mesh")
  -- the linear and Newmark integrators refuse shells and rods, saying why
  local rod = S.rod { from = { 0, 0, 0 }, to = { 1, 0, 0 }, segments = 4 }
  rod:rod { E = 1e7, radius = 1e-3 }
  for _, m in ipairs { c, rod } do
    T.raises(function() m:step_linear { dt = 0.01 } end, "no corotated linear stiffness",
      "step_linear: the reason")
    T.raises(function() m:step_newmark { dt = 0.01 } end, "its elasticity is explicit",
      "step_newmark: the reason")
  end
end

U.cleanup(dir)
os.exit(T.report())
