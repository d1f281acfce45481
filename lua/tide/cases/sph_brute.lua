-- Reference sums for the SPH boundary tests (tests/sph/test_sph_sdf_map.lua,
-- test_sph_sdf_rotating.lua): tide.sph's cubic spline (support H = 2h),
-- inline for the loops, and the kernel summed over a fine lattice of a solid.
--   local B = require "tide.cases.sph_brute"
--   local rho, G = B.solid_sum { x = {..}, inside = function(p) .. end, dim = 2, h = dx, del = dx/40, c = m/dx^d }
local M = {}

--- The cubic spline W(r) and dW/dr of smoothing length h in dimension dim.
function M.cubic(dim, h)
  local sig = dim == 2 and 10 / (7 * math.pi * h * h) or 1 / (math.pi * h ^ 3)
  local function W(r)
    local s = r / h
    if s >= 2 then return 0 elseif s < 1 then return sig * (1 - 1.5 * s * s + 0.75 * s ^ 3) end
    return sig * 0.25 * (2 - s) ^ 3
  end
  local function dW(r)
    local s = r / h
    if s >= 2 then return 0 elseif s < 1 then return sig / h * (-3 * s + 2.25 * s * s) end
    return -sig / h * 0.75 * (2 - s) ^ 2
  end
  return W, dW
end

--- c sum del^d W(|x - p|) and its gradient in x over the cell centres p of
-- the lattice of spacing del (cells aligned with multiples of del) with
-- inside(p) and |x - p| < H = 2h: the density and gradient terms of the solid.
function M.solid_sum(o)
  local dim, h, del, c, x, inside = o.dim, o.h, o.del, o.c, o.x, o.inside
  local W, dW = M.cubic(dim, h)
  local H = 2 * h
  local rho, G, p, m = 0, { 0, 0, 0 }, { 0, 0, 0 }, math.ceil(H / del) + 1
  local base = { math.floor(x[1] / del), math.floor(x[2] / del), math.floor((x[3] or 0) / del) }
  local kz, w = dim == 3 and m or 0, c * del ^ dim
  for i = -m, m do for j = -m, m do for l = -kz, kz do
    p[1], p[2], p[3] = (base[1] + i + 0.5) * del, (base[2] + j + 0.5) * del, (base[3] + l + 0.5) * del
    local r2 = 0
    for q = 1, dim do r2 = r2 + (p[q] - x[q]) ^ 2 end
    if r2 < H * H and inside(p) then
      local r = math.sqrt(r2)
      rho = rho + w * W(r)
      for q = 1, dim do G[q] = G[q] + w * dW(r) / r * (x[q] - p[q]) end
    end
  end end end
  return rho, G
end

return M
