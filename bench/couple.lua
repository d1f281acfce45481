-- bench/couple.lua: Zarifi's coupled pressure projection on the 3D dam break against the pinned
-- beam (lua/tide/cases/zarifi_dam_beam.lua, the Table 6.1 beam: 725 nodes / 2688 tets), seconds
-- per projection by phase (geometry = clipping, assembly, solve), SPD with IC(0)-PCG and with the
-- multigrid-in-block preconditioner (solver "mgpcg"), and indefinite (ILU(0)-BiCGSTAB), beside the
-- bound measured in the same run: the plain liquid projection of
-- the same liquid (tide.liquid.project on the same labels, face fractions and ghost-fluid level
-- set, the beam a static wall) with MIC(0)-PCG and with MGPCG, to the same tolerance.
--   build/tide bench/couple.lua [--res 24,32] [--steps 3] [--warmup 6] [--threads 1,2] [--tol 1e-10]
--                               [--pool 24,32] [--pool_pcg 40]
-- Second part (--pool): the preconditioner's scaling.  The same fine beam hangs into a pool at rest
-- (tide.cases.zarifi_dam_beam.pool, no particles: 100^3 sets up in seconds), one SPD projection per
-- size with MG-in-block PCG and, up to --pool_pcg cells, IC(0)-PCG and CHOLMOD (the reference the
-- MG answer is compared with).  The issue's sizes: --pool 40,64,100.
-- The issue's sizes are --res 64,100 (minutes per step at 100^3 on this machine); the thesis
-- reports 3.5-39 s per coupled projection at 100^3 on 8 cores (Table 6.1).
-- Every projection is measured on the same input: the state after a warm-up of SPD steps plus one
-- step of gravity (u* and v*), so SPD, indefinite and the liquid-only solves see one problem.
local tide = require "tide"
local zarifi = require "tide.zarifi"
local case = require "tide.cases.zarifi_dam_beam"

local P = tide.params({ res = "24,32", steps = 3, warmup = 6, threads = "1,2", tol = 1e-10, pool = "24,32",
  pool_pcg = 40 }, {
  res = "comma-separated grid sizes (cells per side)", steps = "measured projections per size",
  warmup = "SPD steps before measuring (the column collapses onto the beam)",
  threads = "comma-separated thread counts", tol = "relative residual of every solve",
  pool = "comma-separated grid sizes of the pool with the hanging beam (preconditioner scaling; empty: skip)",
  pool_pcg = "largest pool size also solved with IC(0)-PCG and CHOLMOD",
})
local function list(s)
  local t = {}
  for v in tostring(s):gmatch("%d+") do t[#t + 1] = tonumber(v) end
  return t
end

local function measure(S, beam, dt)
  local out = {}
  local v0 = beam.v:clone()
  local function ustar()
    local u = S.u:clone()
    u:add_gravity(dt, S.gravity)
    return u
  end
  for _, form in ipairs { "spd", "spd_mg", "indefinite" } do
    beam.v:copy(v0)
    for q = 1, beam.nv do beam.v:set(q, 2, v0:get(q, 2) - 9.81 * dt) end
    local u = ustar()
    local t0 = tide.clock()
    local st = tide.couple.project { u = u, labels = S.labels, solids = { beam }, dt = dt, rho = S.rho,
      formulation = form == "spd_mg" and "spd" or form, solver = form == "spd_mg" and "mgpcg" or nil, tol = P.tol, phi = S.liquid.phi, fractions = S.fractions, sampling = S.sampling,
      must_converge = false }
    out[form] = { total = tide.clock() - t0, geometry = st.geometry_seconds, assembly = st.assembly_seconds,
      solve = st.solve_seconds, iterations = st.iterations, converged = st.converged, unknowns = st.unknowns }
  end
  beam.v:copy(v0)
  for _, method in ipairs { "pcg", "mgpcg" } do
    local u = ustar()
    local t0 = tide.clock()
    local st = tide.liquid.project(u, S.labels, { dt = dt, rho = S.rho, tol = P.tol, method = method,
      fractions = S.fractions, phi = S.liquid.phi, projector = S.liquid.projector })
    out[method] = { total = tide.clock() - t0, iterations = st.iterations }
  end
  return out
end

local rows = {}
for _, res in ipairs(list(P.res)) do
  for _, th in ipairs(list(P.threads)) do
    tide.threads(th)
    local S, beam = case.new { res = res, dim = 3, paper = true, scheme = "spd", tol = P.tol, solver = "mgpcg" }
    for _ = 1, P.warmup do zarifi.step(S, math.min(zarifi.max_dt(S), 1 / 60)) end
    local acc, n = {}, 0
    for _ = 1, P.steps do
      local dt = math.min(zarifi.max_dt(S), 1 / 60)
      local m = measure(S, beam, dt)
      for k, r in pairs(m) do
        acc[k] = acc[k] or {}
        for f, v in pairs(r) do
          if type(v) == "number" then acc[k][f] = (acc[k][f] or 0) + v end
          if f == "converged" and not v then acc[k].failed = (acc[k].failed or 0) + 1 end
        end
      end
      n = n + 1
      zarifi.step(S, dt)
    end
    for _, r in pairs(acc) do for f, v in pairs(r) do if f ~= "failed" then r[f] = v / n end end end
    rows[#rows + 1] = { res = res, threads = th, a = acc, nl = S.liquid and nil }
    local a = acc
    print(string.format("%3d^3 %d thr | SPD %.4f s (geom %.4f, asm %.4f, solve %.4f, %d it%s) | SPD MG-in-block %.4f s (solve %.4f, %d it%s) | indef %.4f s (solve %.4f, %d it%s) | liquid-only pcg %.4f (%d it), mgpcg %.4f (%d it) | SPD/pcg %.1fx, SPD-MG/mgpcg %.1fx",
      res, th, a.spd.total, a.spd.geometry, a.spd.assembly, a.spd.solve, math.floor(a.spd.iterations + 0.5),
      a.spd.failed and (", " .. a.spd.failed .. " not converged") or "", a.spd_mg.total, a.spd_mg.solve,
      math.floor(a.spd_mg.iterations + 0.5), a.spd_mg.failed and (", " .. a.spd_mg.failed .. " not converged") or "",
      a.indefinite.total, a.indefinite.solve,
      math.floor(a.indefinite.iterations + 0.5), a.indefinite.failed and (", " .. a.indefinite.failed .. " not converged") or "",
      a.pcg.total, math.floor(a.pcg.iterations + 0.5), a.mgpcg.total, math.floor(a.mgpcg.iterations + 0.5),
      a.spd.total / a.pcg.total, a.spd_mg.total / a.mgpcg.total))
  end
end

-- the preconditioner's scaling: one projection of the pool with the hanging beam per size
local pool = list(P.pool)
if #pool > 0 then
  tide.threads(list(P.threads)[#list(P.threads)])
  print(string.format("\npool with the fine beam (725 nodes) hanging into it, one SPD projection, tol %g, %d threads:", P.tol, tide.threads()))
  print("  res | unknowns | interface | MG-in-block: it, set-up, solve [s] | IC(0)-PCG: it, solve [s] | CHOLMOD solve [s] | |p_MG - p_chol| / |p|")
  for _, res in ipairs(pool) do
    local Q = case.pool { res = res, dim = 3 }
    local sm, pm = Q.project { solver = "mgpcg", tol = P.tol }
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
    print(string.format("  %3d^3 | %8d | %9d | %3d it%s, %.3f, %.3f | %s | %s | %s", res, sm.unknowns, sm.interface,
      sm.iterations, sm.converged and "" or " (not converged)", sm.precond_seconds, sm.solve_seconds,
      si and string.format("%4d it%s, %.3f", si.iterations, si.converged and "" or " (not converged)", si.solve_seconds) or "-",
      sc and string.format("%.3f", sc.solve_seconds) or "-", err))
  end
end
