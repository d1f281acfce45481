-- Where the horizontal momentum of a water-filled ring goes through an impact (issue 14 [zarifi]):
-- the uneven water-filled ring of scenes/zarifi_hollow_sphere.lua --uneven (2D, 32^2) dropped
-- onto the floor, every step of lua/tide/zarifi.lua split into the terms that change
-- P_x = sum_p m_p v_p,x + sum_q M_q v_q,x (the floor's impulse, explicit or barrier, is vertical).
-- du = the projection's change of u (line 7), m_f = m_p sum_p w_fp the particles' kernel mass of
-- face f (from p2g's weights), r the FLIP ratio, old the field line 2's g2p subtracts:
--   wall     the explicit wall correction of line 1 on the solid (external, along the normal)
--   damp     the solid's Rayleigh mass damping -dt tau_M M v in the projection (a drag, external)
--   proj     the projection's own imbalance: dP_solid + sum_f rho A_f dx^d du_f - damp (under a
--            level set theta_f A_f on the liquid-air faces: the ghost fluid's mass);
--            0 to the solver tolerance with cell sampling and exact unclamped fractions
--   flip     what the FLIP part of the next g2p gives the particles beyond the projection's
--            change: r (sum_f m_f (u - old)_f - sum_f rho A_f dx^d du_f); without
--            mass_consistent old is u after p2g and this is r (mass + extrap):
--     mass     sum_f (m_f - rho A_f dx^d) du_f (kernel mass vs the projection's face mass)
--     extrap   sum_f m_f (u - u_proj)_f: line 8 (extrapolation, walls, solid faces) on faces
--              the particles read
--   pic      the same for the PIC part, (1 - r) (mass + extrap), plus (1 - r) (sum_f m_f
--            u_p2g,f - P_particles): what line 3's extrapolation, walls and solid faces
--            overwrote on faces the particles reach
--   rest     the particles' actual change at line 2 minus flip, pic and the projection's change
--            (interpolation: the g2p weights' mismatch with p2g's); 0 to round-off
--   build/tide scripts/zarifi_momentum_budget.lua [--sampling cell] [--fractions exact] [--T 0.4] [--transfer flip]
local tide = require "tide"
local zarifi = require "tide.zarifi"
local flip = require "tide.flip"
local liquid, couple = tide.liquid, tide.couple

local P = tide.params({ res = 32, T = 0.4, sampling = "linear", fractions = "node", transfer = "flip", solid_faces = true,
  contact = "barrier", every = 1, mass_consistent = false, cap = 4.0, tau_m = 0.5, clamp = 0.15, level_set = "" },
  { res = "cells across", T = "simulated time [s]", sampling = "linear or cell", fractions = "node or exact",
    transfer = "flip, apic or pic", solid_faces = "zarifi.new's solid_faces", contact = "barrier or explicit",
    every = "print every n-th step", mass_consistent = "zarifi.new's mass_consistent", cap = "zarifi.new's mass_cap",
    tau_m = "the ring's Rayleigh mass damping [1/s]", clamp = "zarifi.new's clamp",
    level_set = "zarifi.new's level_set (\"\": the voxel surface)" })

local n, R, r = P.res, 0.2, 0.14
local g = tide.grid.new { size = { n, n }, dx = 1 / n }
local dx, d = g.dx, 2
local c = { 0.4, 0.5 }
local m = tide.solid.bcc { shape = tide.shape.difference(tide.shape.sphere { center = c, radius = R },
  tide.shape.sphere { center = c, radius = r }), h = math.max((R - r) / 3, 0.75 * dx) }
m:material { model = "corotational", E = 1e6, nu = 0.3, density = 500, rayleigh_mass = P.tau_m, rayleigh_stiffness = 0.002 }
local phi = tide.shape.intersection(tide.shape.sphere { center = c, radius = r - 0.25 * dx },
  tide.shape.box { min = { c[1] + 0.2 * r, 0 }, max = { 1, 1 } }):sdf(g)
local ps = tide.liquid.seed { grid = g, phi = phi }
local opts = { grid = g, particles = ps, solids = { m }, sampling = P.sampling, fractions = P.fractions,
  solid_faces = P.solid_faces, transfer = P.transfer, contact = P.contact, clamp = P.clamp }
if P.level_set ~= "" then opts.level_set = P.level_set end
if P.mass_consistent then opts.mass_consistent, opts.mass_cap = true, P.cap end
local S = zarifi.new(opts)
local rho, mp, rfl = S.rho, S.rho * dx ^ d / 2 ^ d, P.transfer == "flip" and S.flip or (P.transfer == "pic" and 0 or 1)

local function Pp() return ps.v:select(2, 1):sum() * mp end
local function Ps() local s = 0; for q = 1, m.nv do s = s + m.mass[q] * m.v:get(q, 1) end; return s end
local W = g:mac()          -- sum_p w_fp of the last particle-to-grid transfer
local tmp = g:mac()
local u_proj = g:mac()     -- u right after the projection
local function kernel(field) return mp * W.u:dot(field.u) end -- x faces only: horizontal momentum
-- the projection's face masses rho A_f dx^d, times the ghost fluid's theta_f on the liquid-air faces
-- under a level set (what tide.couple.flip_increment uses; TIDE_MAC_THETA_MIN = 0.01)
local Ath = g:mac()
local LIQ, AIR = liquid.LIQUID, liquid.AIR
local function face_masses(labels, phi)
  Ath.u:copy(S.fractions.u)
  if not phi then return end
  for i = 2, n do
    for j = 1, n do
      local ll, lh = labels:get(i - 1, j), labels:get(i, j)
      local pl, pa
      if ll == LIQ and lh == AIR then pl, pa = phi:get(i - 1, j), phi:get(i, j) end
      if lh == LIQ and ll == AIR then pl, pa = phi:get(i, j), phi:get(i - 1, j) end
      if pl and pl <= 0 and pa > 0 then
        Ath.u:set(i, j, Ath.u:get(i, j) * math.max(math.min(pl / (pl - pa), 1), 0.01))
      end
    end
  end
end
local function opened(field) return rho * dx ^ d * Ath.u:dot(field.u) end

local term = { wall = 0, damp = 0, proj = 0, flip = 0, pic = 0, rest = 0, mass = 0, extrap = 0 }
local total = {}
for k in pairs(term) do total[k] = 0 end
local pending -- the prediction of the next g2p: the terms the particles receive
-- wrap the calls of zarifi.step (looked up through their tables at call time)
local orig = { g2p = liquid.g2p, t2g = flip.transfer_to_grid, project = couple.project }
liquid.g2p = function(u, pset, o)
  local before = Pp()
  local res = orig.g2p(u, pset, o)
  if pending then term.rest = Pp() - before - pending end
  return res
end
flip.transfer_to_grid = function(L)
  local res = orig.t2g(L)
  liquid.p2g(ps, tmp, { scheme = L.scheme, weights = W })
  return res
end
local p2g_loss, given
local u_p2g = g:mac()
couple.project = function(a)
  -- u here is u_old + dt g; u_old is after p2g and solid_faces
  p2g_loss = (1 - rfl) * (kernel(S.liquid.u_old) - Pp())
  u_p2g:copy(S.liquid.u_old)
  face_masses(a.labels, a.phi)
  local ub, sb = a.u:clone(), Ps()
  local st = orig.project(a)
  u_proj:copy(a.u)
  tmp:copy(a.u); tmp.u:axpy(-1, ub.u)
  term.damp = -a.dt * m.rayleigh_mass * Ps() -- D v's mass part, -tau_M M v (5.1): an external drag
  term.proj = Ps() - sb + opened(tmp) - term.damp
  term.mass = kernel(tmp) - opened(tmp)
  given = opened(tmp)
  return st
end

local t, step, Pstart = 0, 0, Pp() + Ps()
print(string.format("uneven water-filled ring dropped on the floor, %d^2, %s sampling, %s fractions, %s, solid_faces %s, contact %s%s: water %.2f kg, ring %.2f kg",
  n, P.sampling, P.fractions, P.transfer, tostring(P.solid_faces), P.contact, P.mass_consistent and ", mass_consistent" or "",
  #ps * mp, m.mass:sum()))
print("    t [s]   P_x [N s]  wall        damp        proj        flip        pic         rest        mass        extrap      (this step's terms [N s]); lowest node [m]")
local worst, Py_max, orphan = 0, 0, 0
while t < P.T - 1e-12 do
  local dt = math.min(zarifi.max_dt(S), P.T - t)
  local s0 = Ps()
  -- line 1's wall correction: the solid's change between x += dt v and g2p
  for k in pairs(term) do term[k] = 0 end
  local g2p_first = liquid.g2p
  liquid.g2p = function(...)
    term.wall = Ps() - s0
    liquid.g2p = g2p_first
    return g2p_first(...)
  end
  local st = zarifi.step(S, dt)
  local inc = st.increment
  if inc then orphan = orphan + inc.orphan[1] * rho * dx ^ d end
  liquid.g2p = g2p_first
  -- line 8 (extrapolation, walls, solid faces) on what the particles will read
  tmp:copy(S.u); tmp.u:axpy(-1, u_proj.u)
  term.extrap = kernel(tmp)
  tmp:copy(S.u); tmp.u:axpy(-1, S.liquid.u_old.u)
  term.flip = rfl * (kernel(tmp) - given)
  tmp:copy(S.u); tmp.u:axpy(-1, u_p2g.u)
  term.pic = (1 - rfl) * (kernel(tmp) - given) + p2g_loss
  -- the next g2p gives the particles r sum_f m_f (u - old)_f + (1 - r)(sum_f m_f u_f - P_p)
  pending = given + term.flip + term.pic
  t, step = t + dt, step + 1
  local P1 = Pp() + pending + Ps() -- the particles' momentum once line 2 has given them the grid's change
  local Pz = zarifi.momentum(S)[1]
  if math.abs(Pz - P1) > 1e-9 * (1 + math.abs(P1)) then error(string.format("zarifi.momentum %.12g, the budget %.12g", Pz, P1)) end
  for k, v in pairs(term) do total[k] = total[k] + v end
  worst = math.max(worst, math.abs(P1 - Pstart))
  local py = ps.v:select(2, 2):sum() * mp
  for q = 1, m.nv do py = py + m.mass[q] * m.v:get(q, 2) end
  Py_max = math.max(Py_max, math.abs(py))
  if step % P.every == 0 then
    print(string.format("%9.4f %10.4f %11.3e %11.3e %11.3e %11.3e %11.3e %11.3e %11.3e  %.4f%s", t, P1 - Pstart, term.wall, term.damp, term.proj,
      term.flip, term.pic, term.rest, term.mass, term.extrap, m.x:select(2, 2):min(), inc and string.format(
        "  orphans %d (%.2e N s), max scale %.2f", inc.orphans, inc.orphan[1] * rho * dx ^ d, inc.max_scale) or ""))
  end
end
print(string.format("totals over %.2f s (%d steps): wall %.3f, damping %.3f, proj %.3f, flip %.3f, pic %.3f, rest %.3f N s "
  .. "(the last step's flip/pic reach the particles after the end); mass %.3f, extrap %.3f", t, step, total.wall, total.damp,
  total.proj, total.flip, total.pic, total.rest, total.mass, total.extrap))
if P.mass_consistent then print(string.format("the projection's change on faces the particles could not take (cap %g): %.3f N s", P.cap, orphan)) end
print(string.format("horizontal momentum of water + ring (the particles' once line 2 gives them the grid's change): now %.4f N s, worst %.4f N s from the start; largest |P_y| %.2f N s",
  Pp() + pending + Ps() - Pstart, worst, Py_max))
return { worst = worst, now = Pp() + pending + Ps() - Pstart, Py_max = Py_max, total = total }
