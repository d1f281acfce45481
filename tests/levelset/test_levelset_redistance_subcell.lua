-- Interface-preserving redistancing (docs/levelsets.md, "Interface-preserving
-- redistancing"): tide.grid.redistance with the defaults (cubic init), with
-- closest = 4 (closest-point distances for the band + defect correction),
-- init = "subcell" (Russo & Smereka 2000 as the first layer of the march) and
-- method = "russo_smereka" (their PDE).  A non-distance phi of a sphere
-- (|x - c|^2 - R^2, centre off the lattice, R = 9.7 cells), 2D and 3D,
-- redistanced once and then 100 times more (3D: 30; the Russo-Smereka variants 5):
--   * the move of the linear zero crossings along the grid edges, first call
--     and over the repeated calls; the smoothed volume;
--   * |grad phi| (central differences) within 4 cells of the surface.
-- Asserts closest = 4 keeps the crossings to < 3e-5 dx over 100 calls (300x
-- less than the defaults) and the volume to 1e-5; the bounds of the others
-- are a few times what they measure (the Russo-Smereka variants drift:
-- asserted to drift more than closest, so that a fix shows up here).
local tide = require "tide"
local T = require "tide.testing"
local G = tide.grid

local function sphere(dim, n, Rc)
  local size = dim == 2 and { n, n } or { n, n, n }
  local g = G.new { size = size, dx = 1 }
  local c = { n / 2 + 0.37, n / 2 + 0.13, n / 2 + 0.29 }
  local phi = g:cells()
  local function r2(i, j, k)
    local x, y, z = i - .5 - c[1], j - .5 - c[2], dim == 3 and k - .5 - c[3] or 0
    return x * x + y * y + z * z
  end
  for i = 1, n do
    for j = 1, n do
      if dim == 2 then
        phi:set(i, j, r2(i, j) - Rc * Rc)
      else
        for k = 1, n do
          phi:set(i, j, k, r2(i, j, k) - Rc * Rc)
        end
      end
    end
  end
  return g, phi, c
end

-- every grid edge whose ends differ in sign in phi0: the exact crossing of the
-- sphere on it (cell units) and a function giving the linear crossing of phi
local function edges(g, phi0, c, Rc)
  local n, dim = g.size[1], g.dim
  local E = {}
  local function at(a, i, j, k) return dim == 2 and a:get(i, j) or a:get(i, j, k) end
  for i = 1, n do
    for j = 1, n do
      for k = 1, dim == 3 and n or 1 do
        local p = { i, j, k }
        for a = 1, dim do
          local q = { i, j, k }
          q[a] = q[a] + 1
          if q[a] <= n then
            local f0, f1 = at(phi0, p[1], p[2], p[3]), at(phi0, q[1], q[2], q[3])
            if (f0 < 0) ~= (f1 < 0) then
              -- exact: solve |y - c|^2 = R^2 along axis a
              local off2 = 0
              for b = 1, dim do
                if b ~= a then off2 = off2 + (p[b] - .5 - c[b]) ^ 2 end
              end
              local s = math.sqrt(Rc * Rc - off2)
              local y0 = p[a] - .5 - c[a]
              local t = (math.abs(s - y0) < math.abs(-s - y0)) and s - y0 or -s - y0
              if t < -1e-9 or t > 1 + 1e-9 then t = (t < 0) and -s - y0 or s - y0 end
              -- grazing edges (both roots within 4 cells) are left out: there
              -- the linear crossing of |x - c|^2 - R^2 is far off the sphere
              if s > 2 then E[#E + 1] = { p = p, q = q, exact = t } end
            end
          end
        end
      end
    end
  end
  local function cross(phi, e)
    local f0, f1 = at(phi, e.p[1], e.p[2], e.p[3]), at(phi, e.q[1], e.q[2], e.q[3])
    return f0 / (f0 - f1)
  end
  return E, cross, at
end

local function grad_error(g, phi, at)
  local n, dim, worst, sum, cnt = g.size[1], g.dim, 0, 0, 0
  for i = 2, n - 1 do
    for j = 2, n - 1 do
      for k = dim == 3 and 2 or 1, dim == 3 and n - 1 or 1 do
        local v = at(phi, i, j, k)
        if math.abs(v) < 4 then
          local gx = (at(phi, i + 1, j, k) - at(phi, i - 1, j, k)) / 2
          local gy = (at(phi, i, j + 1, k) - at(phi, i, j - 1, k)) / 2
          local gz = dim == 3 and (at(phi, i, j, k + 1) - at(phi, i, j, k - 1)) / 2 or 0
          local e = math.abs(math.sqrt(gx * gx + gy * gy + gz * gz) - 1)
          -- skip the cells whose stencil straddles the centre's kink (none at |phi| < 4 here)
          worst, sum, cnt = math.max(worst, e), sum + e, cnt + 1
        end
      end
    end
  end
  return worst, sum / cnt
end

local Rc = 9.7
for _, dim in ipairs { 2, 3 } do
  local n = dim == 2 and 32 or 26
  local g, phi0, c = sphere(dim, n, Rc)
  local E, cross, at = edges(g, phi0, c, Rc)
  local res = {}
  local work = G.advect_work()
  for _, init in ipairs { "cubic", "closest", "subcell", "russo_smereka" } do
    local opts = init == "closest" and { closest = 4, work = work } or init == "russo_smereka" and { method = init, work = work }
      or { init = init, work = work }
    local phi = phi0:clone()
    G.redistance(g, phi, opts)
    local first = phi:clone()
    local ex, ex0, mv = 0, 0, 0
    for _, e in ipairs(E) do
      mv = math.max(mv, math.abs(cross(phi, e) - cross(phi0, e)))
      ex = math.max(ex, math.abs(cross(phi, e) - e.exact))
      ex0 = math.max(ex0, math.abs(cross(phi0, e) - e.exact))
    end
    local gmax, gmean = grad_error(g, phi, at)
    local V1 = G.volume(g, phi)
    local drift5 = 0
    -- the Russo-Smereka variants only 5 (their 100-call drift is in docs/levelsets.md)
    local calls = (init == "cubic" or init == "closest") and (dim == 2 and 100 or 30) or 5
    for it = 1, calls do
      G.redistance(g, phi, opts)
      if it == 5 then
        for _, e in ipairs(E) do
          drift5 = math.max(drift5, math.abs(cross(phi, e) - cross(first, e)))
        end
      end
    end
    local drift, change = 0, 0
    for _, e in ipairs(E) do
      drift = math.max(drift, math.abs(cross(phi, e) - cross(first, e)))
    end
    for i = 1, n do
      for j = 1, n do
        for k = 1, dim == 3 and n or 1 do
          change = math.max(change, math.abs(at(phi, i, j, k) - at(first, i, j, k)))
        end
      end
    end
    local dV = math.abs(G.volume(g, phi) / V1 - 1)
    res[init] = { drift5 = drift5, mv = mv, ex = ex, drift = drift, dV = dV, gmax = gmax, gmean = gmean, change = change }
    print(string.format("%dD %-13s: %d crossings, first call moves them %.2e dx, max |linear crossing - sphere| %.2e dx (input %.2e); after 5 / %d more calls: "
      .. "crossings moved %.2e /  %.2e dx, max |phi change| %.2e dx, volume %.2e; |grad phi| - 1 within 4 dx: max %.2e, mean %.2e",
      dim, init, #E, mv, ex, ex0, calls, drift5, drift, change, dV, gmax, gmean))
  end
  local s, cu, cl, rs = res.subcell, res.cubic, res.closest, res.russo_smereka
  T.check(cl.mv < 0.02 and cl.drift < 3e-5 and cl.drift < cu.drift / 300 and cl.dV < 1e-5,
    string.format("%dD closest: 100 (3D: 30) calls move the crossings < 3e-5 dx, 300x less than cubic alone (%.2e vs %.2e), the volume < 1e-5 (%.2e)",
      dim, cl.drift, cu.drift, cl.dV))
  T.check(cl.gmean < 0.005 and cl.gmax < 0.06, string.format("%dD closest: |grad phi| = 1 in the band (mean %.2e, max %.2e)", dim, cl.gmean, cl.gmax))
  T.check(rs.drift5 > 10 * cl.drift, string.format("%dD russo_smereka (first-order Godunov, 10 steps) drifts: %.2e in 5 calls", dim, rs.drift5))
  local lim = 0.25 / Rc -- theta (1 - theta) dx / R: the rescaling's move of |x - c|^2 - R^2's crossings
  T.check(s.mv < 1.5 * lim, string.format("%dD subcell: one call moves the crossings < %.3f dx (%.2e)", dim, 1.5 * lim, s.mv))
  T.check(cu.mv < 0.02, string.format("%dD cubic: one call moves the crossings < 0.02 dx (%.2e)", dim, cu.mv))
  T.check(s.gmean < 0.015 and s.gmax < 0.08, string.format("%dD subcell: |grad phi| = 1 in the band (mean %.2e, max %.2e)", dim, s.gmean, s.gmax))
  T.check(cu.gmean < 0.01 and cu.gmax < 0.04, string.format("%dD cubic: |grad phi| = 1 in the band (mean %.2e, max %.2e)", dim, cu.gmean, cu.gmax))
  T.check(cu.drift < 0.02 and cu.dV < 1e-3, string.format("%dD cubic: 100 (3D: 30) calls move the crossings < 0.02 dx, the volume < 1e-3 (%.2e, %.2e)", dim, cu.drift, cu.dV))
  T.check(s.drift5 < 0.05, string.format("%dD subcell: 5 calls move the crossings < 0.05 dx (%.2e)", dim, s.drift5))
end
os.exit(T.report())
