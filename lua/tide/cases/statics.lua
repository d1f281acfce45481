--- Static validation set-ups of tide.solid's m:solve_static (issue 12), shared by
-- tests/solid/test_solid_static_validation.lua:
--
--   local C = require "tide.cases.statics"
--   C.tip_cantilever{ dim = 2 | 3, n = 16 }   -- linear cantilever, tip shear load, vs Timoshenko
--   C.lame{ n = 16, model = "neohookean", follower = true }  -- thick cylinder, internal pressure, vs Lame
--   C.elastica{ n = 16, ratio = 20, alpha = 2 }  -- large-deflection cantilever vs the elastica
--
-- Each returns a table with the measured value(s), the reference and the stats of the solve.
local tide = require "tide"
local S = tide.solid

local M = {}

--- Cantilever L = 1 m, square section h = 0.1 m (2D: height h, plane stress,
-- unit thickness), E = 1e7 Pa, clamped at x = 0, total tip load P = 1 N as a
-- uniform shear traction on the end face.  2D: nu = 0.3, cells 10n x n
-- (2 triangles each).  3D: nu = 0, cells 10n x n x 1 (6 tetrahedra each; with
-- nu = 0 the width needs no resolution; o.nu, o.across change them).  Timoshenko beam theory:
--   delta = P L^3 / (3 E I) + P L / (k G A),  k = 5/6 (rectangle; 3D: Cowper's
--   10(1 + nu)/(12 + 11 nu), 5/6 at nu = 0).
-- The measured tip deflection is the mean over the end-face nodes.
function M.tip_cantilever(o)
  local L, h, E, P = 1.0, 0.1, 1e7, 1.0
  local dim, n = o.dim, o.n
  local nu = o.nu or (dim == 2 and 0.3 or 0)
  local m
  if dim == 2 then
    m = S.box { min = { 0, -h / 2 }, max = { L, h / 2 }, cells = { 10 * n, n } }
    m:material { model = "linear", E = E, nu = nu, plane_stress = true }
  else
    m = S.box { min = { 0, -h / 2, -h / 2 }, max = { L, h / 2, h / 2 }, cells = { 10 * n, n, o.across or 1 } }
    m:material { model = "linear", E = E, nu = nu }
  end
  m:pin(function(x) return x < 1e-9 end)
  local A = dim == 2 and h or h * h
  local t = dim == 2 and { 0, -P / A } or { 0, -P / A, 0 }
  local lo = dim == 2 and { L - 1e-9, -1 } or { L - 1e-9, -1, -1 }
  local hi = dim == 2 and { 2, 1 } or { 2, 1, 1 }
  local st = m:solve_static { gravity = false, loads = { { faces = m:select_faces { min = lo, max = hi }, traction = t } } }
  local tip, c = 0, 0
  for i = 1, m.nv do
    if m.rest:get(i, 1) > L - 1e-9 then tip, c = tip - (m.x:get(i, 2) - m.rest:get(i, 2)), c + 1 end
  end
  local I, G = (dim == 2 and h ^ 3 or h ^ 4) / 12, E / (2 * (1 + nu))
  -- shear coefficient of a rectangle: 5/6 (Cowper's 10(1 + nu)/(12 + 11 nu) for the 3D section)
  local k = dim == 3 and 10 * (1 + nu) / (12 + 11 * nu) or 5 / 6
  local timo = P * L ^ 3 / (3 * E * I) + P * L / (k * G * A)
  return { tip = tip / c, exact = timo, error = tip / c / timo - 1, ne = m.ne, stats = st }
end

--- Structured quarter annulus a <= r <= b (2D, nr x nt cells, two triangles
-- each, alternating diagonals), nodes on the arcs.
function M.annulus(a, b, nr, nt)
  local nodes, els = {}, {}
  local function id(i, j) return i * (nt + 1) + j + 1 end
  for i = 0, nr do
    local r = a + (b - a) * i / nr
    for j = 0, nt do
      local th = 0.5 * math.pi * j / nt
      nodes[#nodes + 1] = { r * math.cos(th), r * math.sin(th) }
    end
  end
  for i = 0, nr - 1 do
    for j = 0, nt - 1 do
      local p00, p10, p01, p11 = id(i, j), id(i + 1, j), id(i, j + 1), id(i + 1, j + 1)
      if (i + j) % 2 == 0 then
        els[#els + 1] = { p00, p10, p11 }; els[#els + 1] = { p00, p11, p01 }
      else
        els[#els + 1] = { p00, p10, p01 }; els[#els + 1] = { p10, p11, p01 }
      end
    end
  end
  return S.mesh { nodes = tide.array.from(nodes), elements = tide.array.from(els, "i32") }
end

--- The same quarter annulus as a slab of tetrahedra, thickness t in z: a
-- Kuhn box in (r, theta, z) mapped to (r cos theta, r sin theta, z) (the map
-- keeps the orientation: its Jacobian determinant is r > 0).
function M.annulus3(a, b, t, nr, nt)
  local box = S.box { min = { a, 0, 0 }, max = { b, 0.5 * math.pi, t }, cells = { nr, nt, 1 } }
  local nodes = {}
  for i = 1, box.nv do
    local r, th, z = box.rest:get(i, 1), box.rest:get(i, 2), box.rest:get(i, 3)
    nodes[i] = { r * math.cos(th), r * math.sin(th), z }
  end
  return S.mesh { nodes = tide.array.from(nodes), elements = box:elements() }
end

--- Thick-walled cylinder (plane strain) a = 0.5 m, b = 1 m, E = 1e6 Pa,
-- nu = 0.3, internal pressure p = 2 kPa on the inner arc (follower: on the
-- current surface), quarter model with symmetry conditions (x = 0: u_x = 0,
-- y = 0: u_y = 0), mesh n x 4n (o.dim = 3: a slab of tetrahedra 0.05 m thick
-- with u_z = 0 everywhere).  Lame (plane strain):
--   u_r(r) = (1 + nu) p a^2 / (E (b^2 - a^2)) ((1 - 2 nu) r + b^2 / r).
-- Returns the relative errors of u_r at r = a and r = b and the largest
-- over all nodes.
function M.lame(o)
  local a, b, E, nu, p = 0.5, 1.0, 1e6, 0.3, o.p or 2e3
  local m = o.dim == 3 and M.annulus3(a, b, 0.05, o.n, 4 * o.n) or M.annulus(a, b, o.n, 4 * o.n)
  m:material { model = o.model or "neohookean", E = E, nu = nu }
  local inner = m:select_faces(function(x, y) return x * x + y * y < (a * (1 + 1e-9)) ^ 2 end)
  local fix = { { nodes = function(x) return math.abs(x) < 1e-9 end, components = { 1 } },
    { nodes = function(_, y) return math.abs(y) < 1e-9 end, components = { 2 } } }
  if o.dim == 3 then fix[3] = { nodes = function() return true end, components = { 3 } } end -- plane strain
  local st = m:solve_static { gravity = false, steps = o.steps or 1,
    loads = { { faces = inner, pressure = p, follower = o.follower ~= false } }, fix = fix }
  local function exact(r) return (1 + nu) * p * a * a / (E * (b * b - a * a)) * ((1 - 2 * nu) * r + b * b / r) end
  local r = { inner_faces = inner:size(), stats = st, ne = m.ne, max = 0 }
  for i = 1, m.nv do
    local X, Y = m.rest:get(i, 1), m.rest:get(i, 2)
    local rr = math.sqrt(X * X + Y * Y)
    local ur = ((m.x:get(i, 1) - X) * X + (m.x:get(i, 2) - Y) * Y) / rr
    local e = ur / exact(rr) - 1
    r.max = math.max(r.max, math.abs(e))
    if math.abs(rr - a) < 1e-9 then r.inner = e end
    if math.abs(rr - b) < 1e-9 then r.outer = e end
  end
  r.exact_a = exact(a)
  return r
end

--- Large-deflection cantilever (the elastica): L = 1 m, height L/ratio,
-- plane stress, nu = 0, neo-Hookean E = 1e6 Pa (strains below 3%), cells
-- ratio*n x n, dead tip load P = alpha E I / L^2 (vertical, uniform shear on
-- the end face) in `steps` load steps.  Reference: Mattiasson (1981),
-- "Numerical results from large deflection beam and frame problems analysed
-- by means of elliptic integrals", Int. J. Numer. Meth. Eng. 17, 145-153,
-- Table 1: for P L^2 / (E I) = 2, tip deflection v/L = 0.49346 and
-- horizontal displacement u/L = 0.16064 (1: 0.30172, 0.05643; 3: 0.60325,
-- 0.25442).  Measured: mean over the end-face nodes.
M.mattiasson = { [1] = { 0.30172, 0.05643 }, [2] = { 0.49346, 0.16064 }, [3] = { 0.60325, 0.25442 } }
function M.elastica(o)
  local L, E, alpha, ratio, n = 1.0, 1e6, o.alpha or 2, o.ratio or 20, o.n
  local h = L / ratio
  local m = S.box { min = { 0, -h / 2 }, max = { L, h / 2 }, cells = { ratio * n, n } }
  m:material { model = o.model or "neohookean", E = E, nu = 0, plane_stress = true }
  m:pin(function(x) return x < 1e-9 end)
  local P = alpha * E * h ^ 3 / 12 / L ^ 2
  local st = m:solve_static { gravity = false, steps = o.steps or 8,
    loads = { { faces = m:select_faces { min = { L - 1e-9, -1 }, max = { 2, 1 } }, traction = { 0, -P / h } } } }
  local c, ux, uy = 0, 0, 0
  for i = 1, m.nv do
    if m.rest:get(i, 1) > L - 1e-9 then
      c = c + 1
      ux, uy = ux + m.x:get(i, 1) - m.rest:get(i, 1), uy + m.x:get(i, 2) - m.rest:get(i, 2)
    end
  end
  local ref = M.mattiasson[alpha]
  local v, u = -uy / c / L, -ux / c / L
  return { v = v, u = u, v_ref = ref and ref[1], u_ref = ref and ref[2], ne = m.ne, stats = st,
    v_error = ref and v / ref[1] - 1, u_error = ref and u / ref[2] - 1 }
end

return M
