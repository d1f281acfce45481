-- 01: arrays, parameters and the frame driver.
--   build/tide examples/01_arrays.lua --n 100000 --frames 10
-- A cloud of points falls under gravity and bounces on the floor y = 0,
-- written as array operations (each one an OpenMP loop in C).
local tide = require "tide"
local P = tide.params({ n = 10000, frames = 30, restitution = 0.8, out = "out/01_arrays" },
  { n = "number of points", restitution = "fraction of speed kept at a bounce" })

local A = tide.array
local y = A.zeros(P.n)      -- heights [m]
local v = A.zeros(P.n)      -- vertical velocities [m/s]
for i = 1, P.n do y[i] = 1 + tide.rand(1, i) end  -- stateless random: same for any thread count

tide.run {
  frames = P.frames, fps = 30, out = P.out, params = P,
  max_dt = function() return 1 / 240 end,
  step = function(dt)
    tide.time("gravity", function() v:axpy(-9.81 * dt, A.full(P.n, 1)) end)
    tide.time("advect", function() y:axpy(dt, v) end)
    tide.time("bounce", function()
      for i = 1, P.n do
        if y[i] < 0 then y[i], v[i] = -y[i], -P.restitution * v[i] end
      end
    end)
  end,
  frame = function(i, t)
    if i % 10 == 0 then print(string.format("t = %.2f s  lowest %.3f m  highest %.3f m", t, y:min(), y:max())) end
  end,
}
print("checksum", y:checksum())
