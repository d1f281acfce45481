--- Liquid at rest in a circular (2D) / spherical (3D) container of radius
-- 0.45 m centred in the unit box, filled to 0.4 m (0.35 m deep at the
-- centre); FLIP particles seeded in the true container, CFL steps of the
-- tide.flip recipe.  `cut = true`: cut cells (face fractions from the
-- container's SDF, `exact` for clipped face areas, particles kept out of the
-- curved wall by its level set); `cut = false`: voxelized (cells whose centre
-- is outside the container are solid).  Exact answer: hydrostatic rest.
-- Shared by tests/liquid/test_liquid_cutcell.lua and figures/cutcell_container.lua.
--
--   local r = require("tide.cases.container").run { dim = 2, n = 32, cut = true, steps = 200 }
--   -- r.vmax = max|u| / sqrt(g H) at the end (particles and grid), r.disp = largest particle
--   -- displacement [cells], r.t, r.speed: the same speed measure after each step; r.S, r.g, r.ps
local tide = require "tide"
local flip = require "tide.flip"

local M = { H = 0.4 }

function M.run(o)
  local dim = o.dim
  local n = dim == 2 and { o.n, o.n } or { o.n, o.n, o.n }
  local g = tide.grid.new { size = n, dx = 1 / n[1] }
  local c = dim == 2 and { 0.5, 0.5 } or { 0.5, 0.5, 0.5 }
  local container = tide.shape.sphere { center = c, radius = 0.45 }
  local solid = tide.shape.complement(container)
  local H = M.H
  local lo = dim == 2 and { 0, 0 } or { 0, 0, 0 }
  local hi = dim == 2 and { 1, H } or { 1, H, 1 }
  local ps = tide.liquid.seed { grid = g, box = { min = lo, max = hi }, phi = container:sdf(g) }
  local opts = { grid = g, particles = ps }
  local solid_phi = solid:sdf(g)
  if o.cut then
    local fractions, solid_cells = g:face_fractions(solid, { exact = o.exact })
    opts.fractions, opts.solid, opts.solid_phi = fractions, solid_cells, solid_phi
  else
    local lab = g:cells("u8")
    local s, l = solid_phi:reshape(g.ncells), lab:reshape(g.ncells)
    for q = 1, g.ncells do if s[q] < 0 then l[q] = tide.liquid.SOLID end end
    opts.solid = lab
  end
  local S = flip.new(opts)
  local x0 = ps.x:clone()
  local cH = math.sqrt(9.81 * (H - 0.05))
  local function speed() return math.max(ps.v:max(), -ps.v:min(), S.u:max_speed()) / cH end
  local r = { t = {}, speed = {}, S = S, g = g, ps = ps, solid = opts.solid, x0 = x0 }
  for s = 1, o.steps or 200 do
    flip.step(S, flip.max_dt(S))
    r.t[s], r.speed[s] = S.t, speed()
    if o.progress then o.progress(s, o.steps or 200) end
  end
  r.vmax = speed()
  local d = ps.x:clone():axpy(-1, x0)
  r.disp = math.max(d:max(), -d:min()) / g.dx
  return r
end

return M
