-- bench/couple.lua: Zarifi's coupled pressure projection on the 3D dam break against the pinned
-- beam (lua/tide/cases/zarifi_dam_beam.lua, the Table 6.1 beam: 725 nodes / 2688 tets), seconds
-- per projection by phase (geometry = clipping, assembly, preconditioner set-up, solve), SPD with
-- the multigrid-in-block preconditioner (solver "mgpcg", the recipe's default) and, where
-- affordable, with IC(0)-PCG and indefinite (ILU(0)-BiCGSTAB), the MG-in-block rows with the
-- interface factor the default "auto" picks and with the assembled one, beside the bound measured in the
-- same run on the same state: the plain liquid projection of the same liquid (tide.liquid.project
-- on the same labels, face fractions and ghost-fluid level set, the beam a static wall) with MGPCG
-- (and MIC(0)-PCG where IC(0) runs), to the same tolerance.
--   build/tide bench/couple.lua [--res 24,32] [--steps 3] [--warmup 6] [--column 0.35] [--threads 1,2]
--                               [--tol 1e-10] [--ic0 40] [--indefinite 64] [--pool 24,32] [--pool_pcg 40]
-- The issue's sizes, in a few minutes: --res 64,100 --column 0.55 --warmup 2 --steps 2 --pool "".
-- Where the time of a dam-break row goes: the set-up (case.new: particles, the beam's SDF and face
-- fractions) is 0.7 s at 64^3 and 2.5 s at 100^3, a step before the water reaches the beam 0.6-1 s
-- at 64^3 and ~2.5-3.5 s at 100^3 (the solids' SDF / face fractions and the particles are 2/3 of
-- it), but the thesis's column (right edge 0.35) reaches the beam at x = 0.55 only after ~0.15 s,
-- 50 steps at 64^3 and ~100 at 100^3 (dt falls to 3 ms / 2 ms with the front's speed): minutes.
-- --column 0.55 starts the water against the beam, so a 2-step warm-up gives the coupled problem.
-- The thesis reports 3.5-39 s per coupled projection at 100^3 on 8 cores (Table 6.1).
-- Every projection of a step is measured on the same input: the state after the warm-up of SPD
-- steps plus one step of gravity (u* and v*), at each thread count of --threads in turn, so every
-- formulation, solver and thread count sees one problem.  Times are wall seconds and process CPU
-- seconds (os.clock, all threads); the machine's load average is printed with every row.
-- The MG-in-block rows use the recipe's workspace (tide.couple.workspace: the multigrid hierarchy
-- kept between projections and re-analysed, as in zarifi.step; the pool's is built by one
-- projection before the measured one); --no-workspace measures the one-shot hierarchy.
-- Second part (--pool): the preconditioner's scaling.  The same fine beam hangs into a pool at rest
-- (tide.cases.zarifi_dam_beam.pool, no particles: 100^3 sets up in seconds), one SPD projection per
-- size with MG-in-block PCG and, up to --pool_pcg cells, IC(0)-PCG and CHOLMOD (the reference the
-- MG answer is compared with).  The issue's sizes: --pool 40,64,100.
local tide = require "tide"
local zarifi = require "tide.zarifi"
local case = require "tide.cases.zarifi_dam_beam"

local P = tide.params({ res = "24,32", steps = 3, warmup = 6, column = 0.35, threads = "1,2", tol = 1e-10,
  ic0 = 40, indefinite = 64, pool = "24,32", pool_pcg = 40, ring = 1, workspace = true }, {
  res = "comma-separated grid sizes (cells per side) of the dam break (empty: skip)",
  steps = "measured projections per size",
  warmup = "SPD steps before measuring (the column collapses onto the beam)",
  column = "the water column's right edge (0.35 the thesis's; 0.55 against the beam: a short warm-up)",
  threads = "comma-separated thread counts", tol = "relative residual of every solve",
  ic0 = "largest dam-break grid also solved with IC(0)-PCG (SPD) and the plain MIC(0)-PCG",
  indefinite = "largest dam-break grid also solved in the indefinite form (ILU(0)-BiCGSTAB)",
  pool = "comma-separated grid sizes of the pool with the hanging beam (preconditioner scaling; empty: skip)",
  pool_pcg = "largest pool size also solved with IC(0)-PCG and CHOLMOD",
  ring = "layers of liquid cells around the MG-in-block preconditioner's interface",
  workspace = "MG-in-block with the recipe's workspace (the hierarchy kept between projections; false: one-shot)",
})
local function list(s)
  local t = {}
  for v in tostring(s):gmatch("%d+") do t[#t + 1] = tonumber(v) end
  return t
end
local load = require("tide.timers").loadavg

-- the coupled forms measured at grid res: name, formulation, solver
local function forms(res)
  local t = { { "spd_mg", "spd", "mgpcg", "augmented" }, { "spd_mg_warm", "spd", "mgpcg", "augmented", warm = true },
    { "spd_mg_asm", "spd", "mgpcg", "assembled" } }
  if res <= P.ic0 then t[#t + 1] = { "spd_ic0", "spd", "pcg" } end
  if res <= P.indefinite then t[#t + 1] = { "indefinite", "indefinite", "bicgstab" } end
  return t
end

local function measure(S, beam, dt, res)
  local out = {}
  local W = P.workspace and S.workspace or nil -- the recipe's: the hierarchy kept between projections
  local v0 = beam.v:clone()
  local function ustar()
    local u = S.u:clone()
    u:add_gravity(dt, S.gravity)
    return u
  end
  for _, f in ipairs(forms(res)) do
    beam.v:copy(v0)
    for q = 1, beam.nv do beam.v:set(q, 2, v0:get(q, 2) - 9.81 * dt) end
    local u = ustar()
    -- warm: from the last step's pressure, as zarifi.step starts line 7 (its `warm` default)
    local pressure = f.warm and S.pressure:clone() or nil
    local t0, c0 = tide.clock(), os.clock()
    local st = tide.couple.project { u = u, labels = S.labels, solids = { beam }, dt = dt, rho = S.rho,
      formulation = f[2], solver = f[3], interface_solve = f[4], ring = f[4] and P.ring or nil, tol = P.tol,
      phi = S.liquid.phi, fractions = S.fractions,
      sampling = S.sampling, must_converge = false, workspace = W, pressure = pressure, warm = f.warm }
    local pre, pcpu = st.precond_seconds or 0, st.precond_cpu or 0
    out[f[1]] = { total = tide.clock() - t0, cpu = os.clock() - c0, geometry = st.geometry_seconds,
      assembly = st.assembly_seconds, precond = pre, solve = st.solve_seconds - pre,
      geometry_cpu = st.geometry_cpu, assembly_cpu = st.assembly_cpu, precond_cpu = pcpu,
      solve_cpu = st.solve_cpu - pcpu, iterations = st.iterations, converged = st.converged,
      unknowns = st.unknowns, interface = st.interface or 0, nonzeros = st.nonzeros }
  end
  beam.v:copy(v0)
  for _, method in ipairs(res <= P.ic0 and { "mgpcg", "pcg" } or { "mgpcg" }) do
    local u = ustar()
    local t0, c0 = tide.clock(), os.clock()
    local st = tide.liquid.project(u, S.labels, { dt = dt, rho = S.rho, tol = P.tol, method = method,
      fractions = S.fractions, phi = S.liquid.phi, projector = S.liquid.projector })
    out["plain_" .. method] = { total = tide.clock() - t0, cpu = os.clock() - c0, iterations = st.iterations }
  end
  return out
end

local label = { spd_mg = "SPD, MG-in-block PCG", spd_mg_warm = "SPD, MG-in-block PCG, warm (zarifi.step's)", spd_mg_asm = "SPD, MG-in-block PCG, assembled interface", spd_ic0 = "SPD, IC(0)-PCG", indefinite = "indefinite, ILU(0)-BiCGSTAB",
  plain_mgpcg = "plain liquid, MGPCG", plain_pcg = "plain liquid, MIC(0)-PCG" }
local order = { "spd_mg", "spd_mg_warm", "spd_mg_asm", "spd_ic0", "indefinite", "plain_mgpcg", "plain_pcg" }

local ress, ths = list(P.res), list(P.threads)
if #ress > 0 then
  print(string.format("dam break + 725-node beam, column to x = %g, %d warm-up steps, tol %g; seconds per projection, wall (CPU)", P.column, P.warmup, P.tol))
  print("| grid | threads | solve | iterations | geometry | assembly | precond set-up | solve | total | x plain MGPCG | load |")
  print("|---|---|---|---|---|---|---|---|---|---|---|")
end
for _, res in ipairs(ress) do
  tide.threads(ths[#ths])
  local t0, c0 = tide.clock(), os.clock()
  local S, beam = case.new { res = res, dim = 3, paper = true, scheme = "spd", tol = P.tol, solver = "mgpcg",
    column = P.column }
  local setup, setup_cpu = tide.clock() - t0, os.clock() - c0
  local ph, wt, wc = {}, 0, 0
  for _ = 1, P.warmup do
    local st = zarifi.step(S, math.min(zarifi.max_dt(S), 1 / 60))
    wt, wc = wt + st.seconds, wc + st.cpu
    for k, v in pairs(st.phases) do ph[k] = (ph[k] or 0) + v.cpu end
  end
  local parts = {}
  for _, k in ipairs(zarifi.phases) do
    if ph[k] then parts[#parts + 1] = string.format("%s %.2f", k, ph[k] / math.max(1, P.warmup)) end
  end
  io.stderr:write(string.format("%d^3: set-up %.2f s (CPU %.2f); warm-up %d steps %.1f s (CPU %.1f), CPU per step: %s\n",
    res, setup, setup_cpu, P.warmup, wt, wc, table.concat(parts, ", ")))
  local acc = {}
  for _ = 1, P.steps do
    local dt = math.min(zarifi.max_dt(S), 1 / 60)
    for _, th in ipairs(ths) do
      tide.threads(th)
      local m = measure(S, beam, dt, res)
      acc[th] = acc[th] or { n = 0, load = load() }
      local a = acc[th]
      a.n = a.n + 1
      for k, r in pairs(m) do
        a[k] = a[k] or {}
        for f, v in pairs(r) do
          if type(v) == "number" then a[k][f] = (a[k][f] or 0) + v end
          if f == "converged" and not v then a[k].failed = (a[k].failed or 0) + 1 end
        end
      end
    end
    tide.threads(ths[#ths])
    zarifi.step(S, dt)
  end
  for _, th in ipairs(ths) do
    local a = acc[th]
    for k, r in pairs(a) do
      if type(r) == "table" then for f, v in pairs(r) do if f ~= "failed" then r[f] = v / a.n end end end
    end
    local pm = a.plain_mgpcg
    for _, k in ipairs(order) do
      local r = a[k]
      if r then
        local coupled = r.geometry ~= nil
        local function wc(w, c) return string.format("%.3f (%.3f)", w, c) end
        print(string.format("| %d³%s | %d | %s | %d%s | %s | %s | %s | %s | %s | %s | %s |", res,
          coupled and string.format(", %d unknowns%s", math.floor(r.unknowns + 0.5), r.interface > 0 and string.format(", %d interface", math.floor(r.interface + 0.5)) or "") or "",
          th, label[k], math.floor(r.iterations + 0.5), r.failed and (", " .. r.failed .. " not converged") or "",
          coupled and wc(r.geometry, r.geometry_cpu) or "", coupled and wc(r.assembly, r.assembly_cpu) or "",
          coupled and r.interface > 0 and wc(r.precond, r.precond_cpu) or "", coupled and wc(r.solve, r.solve_cpu) or "",
          wc(r.total, r.cpu), string.format("%.1f (%.1f)", r.total / pm.total, r.cpu / pm.cpu), a.load))
      end
    end
  end
  io.stdout:flush()
end

-- the preconditioner's scaling: one projection of the pool with the hanging beam per size
local pool = list(P.pool)
if #pool > 0 then
  tide.threads(ths[#ths])
  print(string.format("\npool with the fine beam (725 nodes) hanging into it, one SPD projection, tol %g, %d threads:", P.tol, tide.threads()))
  print("  res | unknowns | interface, factor nnz | MG-in-block: it, set-up, solve [s] | projection: assembly, total [s] wall (CPU) | assembled interface: factor nnz, it, set-up, solve, total [s] | IC(0)-PCG: it, solve [s] | CHOLMOD solve [s] | |p_MG - p_chol| / |p|")
  for _, res in ipairs(pool) do
    local Q = case.pool { res = res, dim = 3 }
    local W = P.workspace and tide.couple.workspace(Q.grid) or nil
    if W then Q.project { solver = "mgpcg", tol = P.tol, ring = P.ring, interface_solve = "augmented", workspace = W } end -- builds its hierarchy
    local t0, c0 = tide.clock(), os.clock()
    local sm, pm = Q.project { solver = "mgpcg", tol = P.tol, ring = P.ring, interface_solve = "augmented", workspace = W }
    local tw, tc = tide.clock() - t0, os.clock() - c0
    local ta = tide.clock()
    local sa = Q.project { solver = "mgpcg", tol = P.tol, ring = P.ring, interface_solve = "assembled", workspace = W }
    ta = tide.clock() - ta
    local si, sc, pc = nil, nil, nil
    if res <= P.pool_pcg then
      si = Q.project { solver = "pcg", tol = P.tol, must_converge = false }
      sc, pc = Q.project { solver = "cholmod" }
    end
    local err = "-"
    if pc then
      local d = pm:clone()
      d:axpy(-1, pc)
      err = string.format("%.1e", math.max(-d:min(), d:max()) / math.max(-pc:min(), pc:max()))
    end
    print(string.format("  %3d^3 | %8d | %6d, %8d | %3d it%s, %.3f, %.3f | %.3f (%.3f), %.3f (%.3f) | %d, %d it, %.3f, %.3f, %.3f | %s | %s | %s", res,
      sm.unknowns, sm.interface, sm.interface_factor, sm.iterations, sm.converged and "" or " (not converged)", sm.precond_seconds,
      sm.solve_seconds, sm.assembly_seconds, sm.assembly_cpu, tw, tc,
      sa.interface_factor, sa.iterations, sa.precond_seconds, sa.solve_seconds, ta,
      si and string.format("%4d it%s, %.3f", si.iterations, si.converged and "" or " (not converged)", si.solve_seconds) or "-",
      sc and string.format("%.3f", sc.solve_seconds) or "-", err))
  end
end
