--- tide.timers: per-operator wall-clock timing.
--
--   tide.time("project", tide.liquid.project, args)   -- call and time
--   local t = tide.timers.start("p2g") ... tide.timers.stop(t)
--   print(tide.timers.format())
--
-- Timings accumulate by name until tide.timers.reset().  tide.run prints the
-- table at the end of a run and stores it in the run manifest.
local clock = require("tide.core").clock

local cpu = os.clock -- process CPU time, all threads

local M = { acc = {}, cpu = {}, calls = {}, order = {} }

local function add(name, dt, dc)
  if M.acc[name] == nil then
    M.acc[name] = 0
    M.cpu[name] = 0
    M.calls[name] = 0
    M.order[#M.order + 1] = name
  end
  M.acc[name] = M.acc[name] + dt
  M.cpu[name] = M.cpu[name] + dc
  M.calls[name] = M.calls[name] + 1
end

local function finish(name, t0, c0, ...)
  add(name, clock() - t0, cpu() - c0)
  return ...
end

--- Call f(...) and add its wall time to `name`; returns f's results.
function M.time(name, f, ...)
  local t0, c0 = clock(), cpu()
  return finish(name, t0, c0, f(...))
end

function M.start(name) return { name = name, t0 = clock(), c0 = cpu() } end
function M.stop(t) add(t.name, clock() - t.t0, cpu() - t.c0) end

function M.reset()
  M.acc, M.cpu, M.calls, M.order = {}, {}, {}, {}
end

--- List of {name, calls, seconds, cpu} in first-use order (cpu: CPU seconds of
-- the process, all threads, during the calls: what a loaded machine does not inflate).
function M.report()
  local r = {}
  for _, name in ipairs(M.order) do
    r[#r + 1] = { name = name, calls = M.calls[name], seconds = M.acc[name], cpu = M.cpu[name] }
  end
  return r
end

--- The timing table as text; `total` (seconds) gives the percentage column.
function M.format(total)
  local r = M.report()
  if #r == 0 then return "(no timings)" end
  local lines = { string.format("%-24s %8s %11s %11s %6s", "operator", "calls", "total [s]", "per call [ms]", "%") }
  for _, e in ipairs(r) do
    lines[#lines + 1] = string.format("%-24s %8d %11.3f %11.3f %6.1f", e.name, e.calls, e.seconds,
      1e3 * e.seconds / e.calls, total and total > 0 and 100 * e.seconds / total or 0)
  end
  return table.concat(lines, "\n")
end

--- The machine's load averages over 1, 5 and 15 minutes ("0.42 0.31 0.20"; "?" where
-- /proc/loadavg is missing): the benchmarks print it beside their figures.
function M.loadavg()
  local f = io.open("/proc/loadavg")
  if not f then return "?" end
  local s = f:read("l") or ""
  f:close()
  return s:match("^(%S+ %S+ %S+)") or s
end

return M
