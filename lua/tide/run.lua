--- tide.run: the frame driver.
--
--   tide.run{
--     frames = 60, fps = 30,                 -- frames written after frame 0
--     out = "out/dam_break",                 -- output directory (run.json goes here)
--     params = P,                            -- recorded in the manifest
--     max_dt = function(t) return dt end,    -- largest stable step (CFL); math.huge = no limit
--     step = function(dt, t) return { iterations = n } end,  -- advance the state by dt
--     frame = function(i, t) end,            -- write frame i (i = 0 is the initial state)
--     probes = P,                            -- a tide.probes set: sampled at frame 0 and after
--   }                                        -- every frame, written to out/probes.csv (P.path)
--
-- Each frame of duration 1/fps is reached by CFL-limited substeps: what is
-- left of the frame is cut into ceil(left / max_dt(t)) equal steps (re-cut
-- after every step, as max_dt changes), so no tiny step is taken, and a bound
-- that divides the frame evenly is used as it is (max_dt = 1/120 at 30 fps:
-- 4 steps of exactly 1/120 per frame).  While running,
-- a progress bar goes to stderr when it is a terminal (or with --progress):
-- frame i/N, simulated time, substeps, linear-solver iterations, ETA; otherwise
-- one line per frame (none with --quiet).  Operator timings (tide.time) are
-- printed at the end.  The manifest out/run.json (versions, git revision,
-- seed, threads, params, timings) is written at the start and completed at
-- the end, or marked failed with the error if the run stops on one (or on
-- Ctrl-C/SIGTERM, with the signal as reason); while running it carries pid,
-- host, heartbeat and last_frame, so a later run tells a dead run from a live
-- one (tide.runlog).  checkpoint = {save, load, every, file} writes
-- out/checkpoint.ckpt every `every` frames; resume = true continues from it
-- and keeps the earlier runs in run.json's history (docs/api.md).
local raise = require("tide.core")._raise -- errors at the scene's line
local core = require "tide.core"
local timers = require "tide.timers"
local runlog = require "tide.runlog"

local clock = core.clock

local keys = { frames = "number", fps = "number", out = "string", params = "table", max_dt = "function",
  step = "function", frame = "function", max_substeps = "number", name = "string", t0 = "number",
  quiet = "boolean", progress = "boolean", probes = "table", checkpoint = "table", resume = "boolean" }
local ckpt_keys = { every = "number", save = "function", load = "function", file = "string" }

local function check_opts(o)
  if type(o) ~= "table" then raise("tide.run: table of named arguments expected, got " .. type(o)) end
  for k, v in pairs(o) do
    local want = keys[k]
    if not want then
      local known = {}
      for n in pairs(keys) do known[#known + 1] = n end
      table.sort(known)
      raise(string.format("tide.run: unknown option '%s' (accepted: %s)", tostring(k), table.concat(known, ", ")))
    end
    if type(v) ~= want then
      raise(string.format("tide.run: option '%s' must be a %s, got %s", k, want, type(v)))
    end
  end
  if not o.step then raise("tide.run: missing option 'step' (function(dt, t) advancing the state)") end
  local frames = o.frames or 1
  if math.type(frames) ~= "integer" or frames < 0 then raise("tide.run: 'frames' must be a non-negative integer") end
  local fps = o.fps or 30
  if not (fps > 0 and fps < math.huge) then raise("tide.run: 'fps' must be positive and finite") end
  local c = o.checkpoint
  if c then
    for k, v in pairs(c) do
      if not ckpt_keys[k] then raise(string.format("tide.run: unknown checkpoint option '%s' (accepted: every, file, load, save)", tostring(k))) end
      if type(v) ~= ckpt_keys[k] then raise(string.format("tide.run: checkpoint option '%s' must be a %s, got %s", k, ckpt_keys[k], type(v))) end
    end
    if not (c.save and c.load) then raise("tide.run: 'checkpoint' needs save = function() -> table and load = function(table)") end
    if c.every and (math.type(c.every) ~= "integer" or c.every < 1) then raise("tide.run: checkpoint 'every' must be a positive integer (frames)") end
    if not o.out then raise("tide.run: 'checkpoint' needs 'out' (the checkpoint is written there)") end
  end
  if o.resume and not c then raise("tide.run: 'resume' needs 'checkpoint' (what to restore)") end
end

--- The substep toward the end of a frame `left` seconds away under the bound
-- dt: the frame is cut into n = ceil(left / dt) equal parts (so no tiny step
-- is left over), and a bound that divides what is left evenly (to 1e-10
-- relative, round-off of t) is taken as it is: max_dt = 1/120 at 30 fps gives
-- exactly 4 steps of 1/120 per frame.  The last step ends on the frame time.
local function substep(dt, left)
  local n = math.ceil(left / dt * (1 - 1e-10))
  if n <= 1 then return left end
  if math.abs(n * dt - left) <= 1e-10 * left then return dt end
  return left / n
end

local function fmt_time(s)
  if s ~= s or s == math.huge then return "--:--" end
  s = math.floor(s + 0.5)
  if s >= 3600 then return string.format("%d:%02d:%02d", s // 3600, (s % 3600) // 60, s % 60) end
  return string.format("%d:%02d", s // 60, s % 60)
end

local function versions()
  local v = core.versions()
  return { tide = v.tide, lua = v.lua, suitesparse = v.suitesparse, libpng = v.libpng, blas = v.blas,
    compiler = v.compiler, flags = v.flags, target = v.target, cpu = v.cpu, omp_wait = v.omp_wait }, v.git
end

local function mkdir(path)
  if core.mkdir then return core.mkdir(path) end
  return os.execute(string.format("mkdir -p '%s'", path:gsub("'", "'\\''")))
end

return function(o)
  check_opts(o)
  local frames, fps = o.frames or 1, o.fps or 30
  local max_substeps = o.max_substeps or 10000
  local quiet = o.quiet; if quiet == nil then quiet = core.quiet == true end
  local progress = o.progress; if progress == nil then progress = core.progress == true end
  progress = progress and not quiet
  local max_dt = o.max_dt or function() return math.huge end
  local step, frame = o.step, o.frame or function() end
  local probes = o.probes
  if probes then
    if type(probes.sample) ~= "function" then raise("tide.run: 'probes' must be a probe set (tide.probes.new)") end
    probes.path = probes.path or (o.out and o.out .. "/probes.csv")
  end
  local function sample(t_now)
    if not probes then return end
    probes:sample(t_now)
    if probes.path then probes:write() end
  end

  timers.reset()
  local manifest, log
  local wall0 = clock()
  local t = o.t0 or 0.0
  local steps_total, iters_total = 0, 0
  local first = 1 -- the first frame computed (after a resume: the one after the checkpoint's)
  local ck = o.checkpoint
  local ck_path = ck and (o.out .. "/" .. (ck.file or "checkpoint.ckpt"))
  if o.out then
    assert(mkdir(o.out), "tide.run: cannot create output directory " .. o.out)
    local vers, git = versions()
    manifest = {
      scene = _G.arg and _G.arg[0] or "?", name = o.name, status = "running",
      started = os.date("!%Y-%m-%dT%H:%M:%SZ"), versions = vers, git = git,
      seed = core.seed(), threads = core.threads(), params = o.params or (require "tide.params").last or {},
      frames = frames, fps = fps,
    }
    log = runlog.open(o.out, manifest, { resume = o.resume })
  end
  if o.resume then
    local data = require("tide.fileio").restore(ck_path) -- nil when there is none yet: a fresh start
    if data then
      if math.type(data.frame) ~= "integer" or type(data.t) ~= "number" or data.state == nil then
        raise("tide.run: " .. ck_path .. " is not a checkpoint of tide.run (no frame, t and state)")
      end
      ck.load(data.state)
      first, t, steps_total = data.frame + 1, data.t, data.steps or 0
      manifest.resumed_from = { frame = data.frame, t = data.t, checkpoint = ck_path }
    end
  end
  if manifest then manifest.first_frame = first end

  local function completed(i)
    if ck and i > 0 and (i % (ck.every or 1) == 0 or i == frames) then
      timers.time("checkpoint", require("tide.fileio").checkpoint, ck_path,
        { frame = i, t = t, steps = steps_total, state = ck.save() })
    end
    if log then runlog.beat(log, i, t) end
  end

  local ok, err = xpcall(function()
    if first == 1 then
      timers.time("frame output", frame, 0, t)
      timers.time("probes", sample, t)
      completed(0)
    end
    for i = first, frames do
      local t_end = (o.t0 or 0.0) + i / fps
      local sub, iters = 0, 0
      while t < t_end - 1e-12 * math.max(1, math.abs(t_end)) do
        local dt = max_dt(t)
        if type(dt) ~= "number" or dt ~= dt or dt <= 0 then
          error(string.format("tide.run: max_dt returned %s at t = %g (frame %d): the state is not finite or the step bound is broken",
            tostring(dt), t, i), 0)
        end
        local left = t_end - t
        dt = substep(dt, left)
        local stats = timers.time("step", step, dt, t)
        t = (left - dt <= 1e-12 * math.max(1, math.abs(t_end))) and t_end or t + dt
        sub = sub + 1
        if type(stats) == "table" and stats.iterations then iters = iters + stats.iterations end
        if sub > max_substeps then
          error(string.format("tide.run: more than %d substeps in frame %d (dt = %g): raise max_substeps or check the CFL bound",
            max_substeps, i, dt), 0)
        end
        if core.interrupted() then error(core._signal() == "SIGTERM" and "terminated (SIGTERM)" or "interrupted", 0) end
      end
      steps_total, iters_total = steps_total + sub, iters_total + iters
      timers.time("frame output", frame, i, t)
      timers.time("probes", sample, t)
      completed(i)
      local elapsed = clock() - wall0
      local eta = elapsed / (i - first + 1) * (frames - i)
      if progress then
        local width = 24
        local filled = math.floor(width * i / frames + 0.5)
        io.stderr:write(string.format("\r[%s%s] frame %d/%d  t=%.3fs  substeps %d  iters %d  ETA %s ",
          string.rep("#", filled), string.rep(".", width - filled), i, frames, t, sub, iters, fmt_time(eta)))
        if i == frames then io.stderr:write("\n") end
      elseif not quiet then
        print(string.format("frame %d/%d  t=%.4f s  substeps %d  solver iterations %d  (%.2f s, ETA %s)",
          i, frames, t, sub, iters, elapsed, fmt_time(eta)))
      end
    end
  end, function(e)
    return type(e) == "string" and debug.traceback(core._locate(e), 2) or e
  end)
  local wall = clock() - wall0
  local report = timers.report()
  if log then
    runlog.close(log, ok, err, { wall_seconds = wall, steps = steps_total, solver_iterations = iters_total,
      timings = report })
  end
  if not ok then
    if progress then io.stderr:write("\n") end
    error(err, 0)
  end
  if not quiet then
    print(string.format("%d frames, %d steps, %.2f s wall", frames, steps_total, wall))
    print(timers.format(wall))
  end
  return { frames = frames, steps = steps_total, iterations = iters_total, wall = wall, t = t, timings = report }
end
