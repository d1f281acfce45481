-- Help entries of the runtime: functions on the tide table, tide.run,
-- tide.params, tide.timers and tide.json.
local see = "docs/api.md"
return {
  ["tide.threads"] = {
    sig = "tide.threads([n]) -> n",
    does = "Set the OpenMP thread count of every operator (n <= 0: all cores); with no argument only report it. Results do not depend on it (deterministic reductions).",
    args = { { "n", "integer in -1..4096", "none (query)", "threads" } },
    returns = "the thread count in use", see = see,
  },
  ["tide.seed"] = {
    sig = "tide.seed([s]) -> s",
    does = "Set (or get) the global seed of all random numbers; they come from stateless hashes of (seed, stream, counter), so a fixed seed and thread count give bit-identical runs.",
    args = { { "s", "integer >= 0", "none (query)", "seed" } },
    returns = "the seed", see = see,
  },
  ["tide.rand"] = {
    sig = "tide.rand(stream, counter) -> u",
    does = "Uniform number in [0, 1) from the hash of (seed, stream, counter), without state.",
    args = { { "stream", "integer >= 0", "required", "independent sequence" }, { "counter", "integer >= 0", "required", "position in it" } },
    returns = "number in [0, 1)", see = see,
  },
  ["tide.memory"] = {
    sig = "tide.memory() -> native_bytes, lua_bytes",
    does = "Bytes held by Tide objects outside the Lua heap, and bytes of the Lua heap.",
    args = {}, returns = "two integers [bytes]", see = see,
  },
  ["tide.memory_pool"] = {
    sig = "tide.memory_pool([bytes | \"auto\"]) -> limit, held",
    does = "The pool of freed native blocks of 1 MB and more, kept so that the next step's arrays of about their size (up to a quarter smaller) reuse pages already touched (a fresh page costs ~10 us per 4 KB to fault in on a VM: ~40 ms for a 15 MB factor). Set its limit: bytes, 0 (no pool, the held blocks freed) or \"auto\" (the default: as much as Tide holds live, at least 1 GB, at most a quarter of the machine's memory). Held blocks are not in tide.memory() and count against a sandbox's memory limit (emptied before an allocation would fail); the least recently freed goes first.",
    args = { { "bytes", "integer >= 0 or \"auto\"", "none (query)", "bytes" } },
    returns = "the limit in effect and the bytes held [bytes]", see = see,
  },
  ["tide.clock"] = {
    sig = "tide.clock() -> seconds",
    does = "Monotonic wall clock.",
    args = {}, returns = "seconds [s] (a number)", see = see,
  },
  ["tide.versions"] = {
    sig = "tide.versions() -> { tide, lua, suitesparse, libpng, blas, git, threads, omp_wait, compiler, flags, target, cpu }",
    does = "Versions of Tide and its libraries (the BLAS actually loaded), the git revision, the OpenMP wait policy in effect and whose it is (`omp_wait`: the tide program sets OMP_WAIT_POLICY=passive unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set; a stock interpreter loading the module keeps its environment's: docs/performance.md), the compiler, build flags, the instruction-set extensions the build uses (`target`: -march=native sets them for the machine that compiled it; a CPU lacking one is refused at start with a message to rebuild) and the CPU.",
    args = {}, returns = "table of strings", see = see,
  },
  ["tide.mkdir"] = {
    sig = "tide.mkdir(path) -> true",
    does = "Create a directory and its parents (like mkdir -p); an existing directory is fine.",
    args = { { "path", "string", "required", "directory" } },
    returns = "true (raises on failure)", see = see,
  },
  ["tide.interrupted"] = {
    sig = "tide.interrupted() -> boolean",
    does = "True while a Ctrl-C (SIGINT) is pending; long loops of scenes may poll it (tide.run does).",
    args = {}, returns = "boolean", see = see,
  },
  ["tide.quiet"] = {
    sig = "tide.quiet() -> boolean",
    does = "True when the program was started with --quiet.",
    args = {}, returns = "boolean", see = see,
  },
  ["tide.progress_enabled"] = {
    sig = "tide.progress_enabled() -> boolean",
    does = "True when a progress bar should be drawn (stderr is a terminal, or --progress).",
    args = {}, returns = "boolean", see = see,
  },
  ["tide.time"] = {
    sig = "tide.time(name, f, ...) -> f(...)",
    does = "Call f(...) and add its wall time to the operator `name` of the timing table tide.run prints (tide.timers).",
    args = { { "name", "string", "required", "operator name" }, { "f", "function", "required", "what to call" }, { "...", "any", "", "its arguments" } },
    returns = "what f returns", see = see,
  },
  ["tide.help"] = {
    sig = "tide.help([what])",
    does = "Print help: the modules (no argument), one module with the signatures of its functions (\"liquid\" or tide.liquid), one function or method with its arguments (types, defaults, units), result and paper (tide.liquid.seed, \"liquid.seed\", \"Particles:seed\"), or the methods of a native object. The entries are lua/tide/help/*.lua; docs/reference.md lists them all.",
    args = { { "what", "nil, function, string, module table or object", "nil", "what to explain" } },
    returns = "nothing (prints)", see = "docs/reference.md",
  },
  ["tide.run"] = {
    sig = "tide.run{ step =, frames = 1, fps = 30, max_dt =, frame =, out =, params =, name =, max_substeps = 10000, t0 = 0, quiet, progress } -> { frames, steps, iterations, wall, t, timings }",
    does = "The frame driver: frame(0, t0), then per frame CFL-limited substeps step(dt, t) until exactly t0 + i/fps (what is left of a frame cut into ceil(left / max_dt(t)) equal steps; a bound that divides the frame is used as it is), then frame(i, t). Progress line or bar, operator timings at the end, the manifest out/run.json (versions, seed, threads, params, status).",
    args = {
      { "step", "function(dt, t)", "required", "advance the state by dt [s]; may return { iterations = n }" },
      { "frames", "integer >= 0", "1", "frames after frame 0" },
      { "fps", "number > 0", "30", "frames per simulated second [1/s]" },
      { "max_dt", "function(t) -> dt", "no limit", "largest stable step [s] (CFL); NaN or <= 0 is an error" },
      { "frame", "function(i, t)", "none", "write frame i (i = 0: the initial state)" },
      { "out", "string", "none", "output directory: run.json goes there" },
      { "params", "table", "tide.params.last", "recorded in the manifest" },
      { "name", "string", "none", "run name in the manifest" },
      { "max_substeps", "number", "10000", "substeps per frame before giving up (error)" },
      { "t0", "number", "0", "start time [s]" },
      { "quiet, progress", "booleans", "--quiet / --progress", "no output / a progress bar" },
    },
    returns = "summary table (steps, solver iterations, wall seconds, final t, timings)", see = see,
  },
  ["tide.params"] = {
    sig = "tide.params(defaults [, help]) -> P",
    does = "Scene parameters from the command line: --name value or --name=value coerced to the type of the default (integer, number, string, boolean: --flag, --no-flag); unknown flags are errors; --help prints them and exits. P is kept as tide.params.last for run.json.",
    args = { { "defaults", "table name -> number|string|boolean", "required", "parameters and defaults" }, { "help", "table name -> string", "none", "one-line descriptions for --help" } },
    returns = "table of values", see = see,
  },
  ["tide.timers.time"] = {
    sig = "tide.timers.time(name, f, ...) -> f(...)",
    does = "Call f(...) and add its wall time to `name` (the same as tide.time).",
    args = { { "name", "string", "required", "operator" }, { "f", "function", "required", "what to call" } },
    returns = "what f returns", see = see,
  },
  ["tide.timers.start"] = {
    sig = "tide.timers.start(name) -> t",
    does = "Start timing `name`; tide.timers.stop(t) adds the elapsed wall time.",
    args = { { "name", "string", "required", "operator" } }, returns = "a timer token", see = see,
  },
  ["tide.timers.stop"] = {
    sig = "tide.timers.stop(t)",
    does = "Add the wall time since tide.timers.start to its operator.",
    args = { { "t", "token of tide.timers.start", "required", "" } }, returns = "nothing", see = see,
  },
  ["tide.timers.reset"] = {
    sig = "tide.timers.reset()", does = "Forget all timings (tide.run does it at its start).",
    args = {}, returns = "nothing", see = see,
  },
  ["tide.timers.report"] = {
    sig = "tide.timers.report() -> { {name, calls, seconds, cpu}, ... }", does = "The timings in first-use order (seconds: wall; cpu: the process CPU seconds, all threads, during the calls).",
    args = {}, returns = "list of tables", see = see,
  },
  ["tide.timers.format"] = {
    sig = "tide.timers.format([total]) -> text", does = "The timing table as text (operator, calls, total, per call, % of total).",
    args = { { "total", "number", "none", "wall seconds of the run for the % column [s]" } }, returns = "string", see = see,
  },
  ["tide.timers.loadavg"] = {
    sig = "tide.timers.loadavg() -> text", does = "The machine's load averages over 1, 5 and 15 minutes (\"0.42 0.31 0.20\" from /proc/loadavg; \"?\" where it is missing): the benchmarks print it beside their figures.",
    args = {}, returns = "string", see = see,
  },
  ["tide.json.encode"] = {
    sig = "tide.json.encode(v [, indent]) -> text",
    does = "JSON text of a value: tables with keys 1..n become arrays, others objects with sorted keys (deterministic); non-finite numbers become null; cycles are errors.",
    args = { { "v", "table, string, number, boolean", "required", "" }, { "indent", "string", "none (compact)", "indentation per level" } },
    returns = "string", see = see,
  },
  ["tide.json.decode"] = {
    sig = "tide.json.decode(text) -> value | nil, message", does = "Parse JSON text.",
    args = { { "text", "string", "required", "" } }, returns = "the value, or nil and a message naming the character", see = see,
  },
  ["tide.json.write"] = {
    sig = "tide.json.write(path, v) -> true | nil, message", does = "Write tide.json.encode(v) to a temporary file and rename it to path.",
    args = { { "path", "string", "required", "" }, { "v", "value", "required", "" } }, returns = "true, or nil and a message", see = see,
  },
  ["tide.json.read"] = {
    sig = "tide.json.read(path) -> value | nil, message", does = "Read and decode a JSON file.",
    args = { { "path", "string", "required", "" } }, returns = "the value, or nil and a message", see = see,
  },
}
