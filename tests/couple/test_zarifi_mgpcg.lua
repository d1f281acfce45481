-- The multigrid-in-block preconditioner of the SPD coupled system (solver = "mgpcg",
-- modules/couple/zarifi_precond.c) on the dam break's beam pinned at its top and hanging into a
-- pool at rest (tide.cases.zarifi_dam_beam.pool; the Table 6.1 beam of 3 x 21 x 3 cubes of 6 tets),
-- one coupled projection with gravity added.  MG-in-block PCG gives CHOLMOD's pressure and solid
-- velocities to the solve tolerance (SPD and factored formulations), needs far fewer iterations
-- than IC(0)-PCG, and its iteration count stays nearly flat as the grid is refined (16^3 -> 32^3,
-- 2D 32^2 -> 128^2).
local tide = require "tide"
local T = require "tide.testing"
local case = require "tide.cases.zarifi_dam_beam"

local function rel(a, b)
  local d = a:clone()
  d:axpy(-1, b)
  return math.max(-d:min(), d:max()) / math.max(-b:min(), b:max())
end

local its = {}
for _, c in ipairs {
  { dim = 3, res = 16, cells = { 3, 21, 3 } },
  { dim = 3, res = 32, cells = { 3, 21, 3 } },
  { dim = 2, res = 32, cells = { 4, 34 } },
  { dim = 2, res = 128, cells = { 4, 34 } },
} do
  local P = case.pool(c)
  local name = string.format("%dD %d", c.dim, c.res)
  local _, pc, vc = P.project { solver = "cholmod" }
  local sm, pm, vm = P.project { solver = "mgpcg" }
  local si = P.project { solver = "pcg", must_converge = false }
  local sf, pf, vf = P.project { formulation = "factored", solver = "mgpcg" }
  print(string.format("%s: %d unknowns (%d liquid, %d solid DOFs), interface %d rows; iterations: MG-in-block %d, "
    .. "IC(0) %d%s, factored MG-in-block %d; |p - p_cholmod| %.1e, |v - v_cholmod| %.1e (relative)",
    name, sm.unknowns, sm.liquid, sm.solid_dofs, sm.interface, sm.iterations, si.iterations,
    si.converged and "" or " (not converged)", sf.iterations, rel(pm, pc), rel(vm, vc)))
  T.check(sm.converged and sm.residual <= 1e-10, name .. ": MG-in-block PCG converges")
  -- MG-in-block never assembles A (its products, interface and count come from the split,
  -- zarifi.h); asked for the matrix it assembles it: the same count, iterations and answer
  local sa, pa, va = P.project { solver = "mgpcg", matrix = true }
  local sfa = P.project { formulation = "factored", solver = "mgpcg", matrix = true }
  T.check(sm.nonzeros == sa.nonzeros and sa.nonzeros == sa.matrix.nnz and sf.nonzeros == sfa.nonzeros,
    string.format("%s: the split's entry count is the assembled matrix's (spd %d / %d / %d, factored %d / %d)", name,
      sm.nonzeros, sa.nonzeros, sa.matrix.nnz, sf.nonzeros, sfa.nonzeros))
  T.check(sa.iterations == sm.iterations and rel(pa, pm) < 1e-12 and rel(va, vm) < 1e-12, string.format(
    "%s: with the matrix assembled, the same iterations (%d / %d) and answer (%.1e, %.1e)", name, sa.iterations,
    sm.iterations, rel(pa, pm), rel(va, vm)))
  T.check(sm.interface > sm.solid_dofs and sm.interface < sm.unknowns / 2,
    name .. ": the interface holds the solid rows and the cut cells, not the whole liquid")
  T.check(rel(pm, pc) < 1e-7 and rel(vm, vc) < 1e-7, name .. ": MG-in-block equals CHOLMOD (spd)")
  T.check(rel(pf, pc) < 1e-7 and rel(vf, vc) < 1e-7, name .. ": MG-in-block equals CHOLMOD (factored)")
  T.check(sm.iterations <= 25, name .. ": MG-in-block needs few iterations (" .. sm.iterations .. ")")
  T.check(sm.precond_cpu > 0 and sm.precond_cpu <= sm.solve_cpu and sm.precond_seconds <= sm.solve_seconds,
    string.format("%s: the preconditioner's set-up is timed within the solve (CPU %.4f of %.4f s)", name,
      sm.precond_cpu, sm.solve_cpu))
  T.check(si.iterations >= 5 * sm.iterations,
    string.format("%s: IC(0) needs at least 5x the iterations (%d vs %d)", name, si.iterations, sm.iterations))
  its[name] = sm.iterations
end
T.check(its["3D 32"] - its["3D 16"] <= 4, "3D: iterations nearly flat from 16^3 to 32^3")
-- the interface block factored two ways (zarifi.h, tide_zarifi_split): the assembled A[I, I] by
-- supernodal Cholesky, or the quasi-definite augmented [X_II Y_I; Y_I^T -Z] by LDL^T -- the same
-- exact interface solve, so the same iterations and answer; "auto" takes the augmented form where
-- A[I, I] is much denser (the factored formulation's I + Rh Mz^-1 Rh^T couples every element pair
-- that shares a node: its assembled factor is 10x the augmented one here)
do
  local P = case.pool { dim = 3, res = 32, cells = { 3, 21, 3 } }
  local _, pc, vc = P.project { solver = "cholmod" }
  for _, form in ipairs { "spd", "factored" } do
    local r = {}
    for _, mode in ipairs { "auto", "augmented", "assembled" } do
      local st, p, v = P.project { solver = "mgpcg", formulation = form, interface_solve = mode }
      r[mode] = st
      T.check(st.converged and rel(p, pc) < 1e-7 and rel(v, vc) < 1e-7,
        string.format("%s, interface %s: MG-in-block equals CHOLMOD (%.1e, %.1e)", form, mode, rel(p, pc), rel(v, vc)))
      T.check(mode == "auto" or st.interface_solve == mode, form .. ", " .. mode .. ": the requested factor is used")
    end
    print(string.format("%s: interface factor nonzeros augmented %d, assembled %d; auto took %s; iterations %d / %d",
      form, r.augmented.interface_factor, r.assembled.interface_factor, r.auto.interface_solve,
      r.augmented.iterations, r.assembled.iterations))
    T.check(r.augmented.iterations == r.assembled.iterations,
      form .. ": both interface factors give the same iterations (both exact)")
    if form == "factored" then
      T.check(r.augmented.interface_factor * 5 < r.assembled.interface_factor and r.auto.interface_solve == "augmented",
        "factored: the augmented factor is a fraction of the assembled one and auto takes it")
    end
  end
  T.raises(function() P.project { solver = "mgpcg", interface_solve = "dense" } end, "interface_solve",
    "an unknown interface_solve is refused")
end
T.check(its["2D 128"] - its["2D 32"] <= 6, "2D: iterations nearly flat from 32^2 to 128^2")
-- the workspace (tide.couple.workspace): the hierarchy built once and re-analysed for the next
-- projection gives the one-shot hierarchy's answer; a kept system is refused once a later
-- projection re-analysed its workspace; a workspace of another grid or type is refused
do
  local P = case.pool { dim = 3, res = 16, cells = { 3, 21, 3 } }
  local W = tide.couple.workspace(P.grid)
  local s0, p0, v0 = P.project { solver = "mgpcg" }
  local s1, p1, v1 = P.project { solver = "mgpcg", workspace = W, keep = true }
  local s2, p2, v2 = P.project { solver = "mgpcg", workspace = W }
  T.check(s1.iterations == s0.iterations and s2.iterations == s0.iterations and rel(p1, p0) <= 1e-14 and rel(p2, p0) <= 1e-14
    and rel(v1, v0) <= 1e-14 and rel(v2, v0) <= 1e-14, string.format(
    "workspace: built (%d it) and re-analysed (%d it) as the one-shot hierarchy (%d it): p %.1e / %.1e, v %.1e / %.1e",
    s1.iterations, s2.iterations, s0.iterations, rel(p1, p0), rel(p2, p0), rel(v1, v0), rel(v2, v0)))
  -- the workspace's V-cycle arrays are reused without zeroing: after a deeper pool (more liquid
  -- cells, their residuals left in them) the shallower one's answer is still the one-shot's
  local Wd = tide.couple.workspace(P.grid)
  local D = case.pool { dim = 3, res = 16, cells = { 3, 21, 3 }, level = 0.85 }
  D.project { solver = "mgpcg", workspace = Wd }
  local s6, p6, v6 = P.project { solver = "mgpcg", workspace = Wd }
  T.check(s6.iterations == s0.iterations and rel(p6, p0) <= 1e-14 and rel(v6, v0) <= 1e-14, string.format(
    "workspace after a deeper pool: %d it (one-shot %d), p %.1e, v %.1e", s6.iterations, s0.iterations,
    rel(p6, p0), rel(v6, v0)))
  local h = P.grid:mac()
  T.raises(function() tide.couple.resolve { system = s1.system, u = h, solids = { P.beam } } end,
    "re-analysed by a later projection", "a kept system whose workspace a later projection re-analysed is refused")
  s1.system:free()
  -- a kept system's labels and fractions are the workspace's copies (any solver; a one-shot
  -- projection borrows the caller's): a direct solve kept, a one-shot projection with the same
  -- workspace leaves it valid, a second kept one rewrites the copies and the first's resolve is
  -- refused; copied and borrowed inputs give the same answer
  local s3, p3 = P.project { solver = "cholmod", workspace = W, keep = true }
  local _, p4 = P.project { solver = "cholmod", workspace = W }
  T.check(rel(p3, p4) == 0, "copied (kept) and borrowed (one-shot) inputs: the same pressure")
  T.check(pcall(tide.couple.resolve, { system = s3.system, u = h, solids = { P.beam } }),
    "a one-shot projection with the workspace leaves a kept system valid")
  local s5 = P.project { solver = "cholmod", workspace = W, keep = true }
  T.raises(function() tide.couple.resolve { system = s3.system, u = h, solids = { P.beam } } end,
    "rewrote the system's copies", "a kept system whose workspace inputs a later kept projection rewrote is refused")
  T.check(pcall(tide.couple.resolve, { system = s5.system, u = h, solids = { P.beam } }),
    "the later kept system resolves")
  s3.system:free()
  s5.system:free()
  local Q = case.pool { dim = 3, res = 12, cells = { 3, 21, 3 } }
  T.raises(function() Q.project { solver = "mgpcg", workspace = W } end, "workspace is for a 16x16x16 grid",
    "a workspace of another grid is refused")
  T.raises(function() P.project { solver = "mgpcg", workspace = P.grid } end, "workspace must be",
    "a workspace of another type is refused")
  T.check(tostring(W):find("tide.couple.Workspace(16x16x16", 1, true) ~= nil, "workspace prints its grid: " .. tostring(W))
end
local small = case.pool { dim = 2, res = 16, cells = { 2, 10 } }
T.raises(function() small.project { formulation = "indefinite", solver = "mgpcg" } end,
  "solver does not fit", "mgpcg is not for the indefinite system")
T.raises(function() small.project { solver = "mgpcg", ring = -1 } end, "ring", "a negative ring is refused")
-- the dam break's column option (bench/couple.lua's short warm-up): against the beam the first
-- step's interface holds liquid rows beside the solid ones; the thesis's column does not reach it
local zarifi = require "tide.zarifi"
local iface = {}
for _, cx in ipairs { 0.35, 0.55 } do
  local S = case.new { res = 12, dim = 3, paper = "coarse", scheme = "spd", solver = "mgpcg", column = cx }
  local st = zarifi.step(S, math.min(zarifi.max_dt(S), 1 / 60))
  iface[cx] = st.interface - st.solid_dofs
end
T.check(iface[0.35] == 0 and iface[0.55] > 0, string.format(
  "dam break: column 0.35 leaves the beam dry (%d liquid interface rows), 0.55 wets it (%d)", iface[0.35], iface[0.55]))
T.raises(function() case.new { res = 8, dim = 3, column = 1.5 } end, "column", "a column beyond the tank is refused")
-- the same answer, bit for bit, on 1 and 2 threads: J's faces summed in parallel (clip.c), the
-- entry counts' rows in parallel, the supernodal interface LDL^T, the V-cycle
do
  local th = tide.threads()
  local out = {}
  for _, n in ipairs { 1, 2 } do
    tide.threads(n)
    local Q = case.pool { dim = 3, res = 32, cells = { 3, 21, 3 } }
    local st, p, v = Q.project { solver = "mgpcg" }
    out[n] = { st = st, p = p, v = v }
  end
  tide.threads(th)
  local dp, dv = out[1].p:clone(), out[1].v:clone()
  dp:axpy(-1, out[2].p)
  dv:axpy(-1, out[2].v)
  T.check(out[1].st.iterations == out[2].st.iterations and dp:max() == 0 and dp:min() == 0 and dv:max() == 0
    and dv:min() == 0, string.format("32^3 pool: 1 and 2 threads give the same pressure and velocities "
    .. "bit for bit (%d / %d iterations, max |dp| %.1e)", out[1].st.iterations, out[2].st.iterations,
    math.max(dp:max(), -dp:min())))
end
T.report()
