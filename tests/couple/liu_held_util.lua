-- Shared by test_liu_held.lua (2D) and test_liu_held3d.lua: steps a tide.liu state to `tend`,
-- checking after every step that no vertex is inside the liquid (liu.check); returns the counts
-- of penetrating vertices, the closest vertex, the largest volume drift, the steps, the liquid's
-- centre height y = centre(S) at the end, its mean velocity v over the last `window` seconds and,
-- when `every` is given, the centre every `every` seconds from t = 0 (track).
local liu = require "tide.liu"

local U = {}

function U.run(S, tend, centre, window, every)
  local V0 = liu.volume(S)
  local r = { pen = 0, min_d = math.huge, drift = 0, steps = 0, track = {} }
  local yw, tw
  while S.t < tend do
    local st = liu.step(S, liu.max_dt(S))
    liu.check(S)
    r.pen, r.min_d = r.pen + st.penetrating, math.min(r.min_d, st.min_d)
    r.drift = math.max(r.drift, math.abs(liu.volume(S) / V0 - 1))
    r.steps = r.steps + 1
    if not yw and S.t >= tend - window then yw, tw = centre(S), S.t end
    if every and S.t >= #r.track * every then r.track[#r.track + 1] = centre(S) end
  end
  r.y = centre(S)
  r.v = (r.y - yw) / (S.t - tw)
  return r
end

return U
