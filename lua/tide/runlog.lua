--- tide.runlog: the manifest out/run.json of tide.run, kept true through
-- deaths (used by tide.run; see docs/api.md "Runs that survive").
--
--   local log = runlog.open(out, manifest, { resume = checkpoint info or nil })
--   runlog.beat(log, frame, t)        -- after each completed frame
--   runlog.close(log, ok, err, extra) -- "finished" or "failed" with the reason
--
-- open() first removes the temporaries that killed runs left below `out`
-- (tide.fileio.clean_temps), then reads the old run.json: a "running" manifest
-- whose process still runs on this host is a live run (an error: two runs
-- must not write one folder); otherwise that run died (kill -9, power loss),
-- which is said on stderr and recorded as `previous` in the new manifest.
-- While running, the manifest carries pid, host, `heartbeat` (UTC time of the
-- last completed frame, `heartbeat_unix` in seconds) and `last_frame`.  A run
-- resumed from a checkpoint appends the earlier runs to `history` instead of
-- overwriting them.
local core = require "tide.core"
local json = require "tide.json"

local M = {}

local function read_manifest(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local m = json.decode(text)
  return type(m) == "table" and m or nil
end

-- the part of a manifest worth keeping in a later run's history
local function summary(m)
  return { started = m.started, finished = m.finished, status = m.status, error = m.error, pid = m.pid,
    host = m.host, first_frame = m.first_frame, last_frame = m.last_frame, heartbeat = m.heartbeat,
    steps = m.steps, wall_seconds = m.wall_seconds, resumed_from = m.resumed_from }
end

local function write(log)
  local ok, err = json.write(log.path, log.m)
  if not ok then core._raise("tide.run: cannot write " .. log.path .. ": " .. tostring(err)) end
end

function M.open(out, manifest, opts)
  opts = opts or {}
  local fio = require("tide.fileio")
  local n, bytes = fio.clean_temps(out)
  if n > 0 then
    io.stderr:write(string.format("tide.run: removed %d stale temporary file%s (%.1f MB) left in %s by killed runs\n",
      n, n == 1 and "" or "s", bytes / 2 ^ 20, out))
  end
  local pid, host = core._process()
  local path = out .. "/run.json"
  local old = read_manifest(path)
  local now = os.time()
  if old and old.status == "running" then
    local age = tonumber(old.heartbeat_unix) and now - old.heartbeat_unix or nil
    local desc = string.format("pid %s on %s, last heartbeat %s, last complete frame %s", tostring(old.pid),
      tostring(old.host), age and string.format("%d s ago", age) or "never", tostring(old.last_frame))
    local live
    if old.host == host then
      live = math.type(old.pid) == "integer" and old.pid ~= pid and core._process(old.pid)
    else -- another machine: only the heartbeat can tell
      live = age ~= nil and age < 600
    end
    if live then
      core._raise(string.format("tide.run: %s is in use by a live run (%s); stop it or choose another 'out'", out, desc))
    end
    io.stderr:write(string.format("tide.run: the previous run in %s died without a word (%s); recorded as 'died'\n",
      out, desc))
    old.status = "died"
    manifest.previous = summary(old)
  end
  if opts.resume and old then
    local h = {}
    for _, r in ipairs(type(old.history) == "table" and old.history or {}) do h[#h + 1] = r end
    h[#h + 1] = summary(old)
    manifest.history = h
    manifest.previous = nil
  end
  manifest.pid, manifest.host = pid, host
  manifest.heartbeat, manifest.heartbeat_unix = os.date("!%Y-%m-%dT%H:%M:%SZ", now), now
  local log = { path = path, m = manifest, out = out }
  write(log)
  return log
end

function M.beat(log, frame, t)
  local now = os.time()
  log.m.last_frame, log.m.t = frame, t
  log.m.heartbeat, log.m.heartbeat_unix = os.date("!%Y-%m-%dT%H:%M:%SZ", now), now
  write(log)
end

function M.close(log, ok, err, extra)
  -- writers stopped by the error (or the signal) may have left temporaries
  pcall(function() require("tide.fileio").clean_temps(log.out, { own = true }) end)
  local m = log.m
  m.status = ok and "finished" or "failed"
  m.error = (not ok) and tostring(err) or nil
  if not ok then
    local sig = core._signal()
    local e = tostring(err)
    if not sig and e:find("SIGTERM", 1, true) then sig = "SIGTERM" end
    if not sig and e:find("interrupted", 1, true) then sig = "SIGINT" end
    m.reason = sig and ("signal " .. sig) or "error"
  end
  m.finished = os.date("!%Y-%m-%dT%H:%M:%SZ")
  for k, v in pairs(extra or {}) do m[k] = v end
  json.write(log.path, m) -- best effort: the run's own error matters more
end

return M
