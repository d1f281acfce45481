-- Help entries of tide.figures (reproducible paper figures; docs/figures.md).
local see = "docs/figures.md"
return {
  ["tide.figures.figure"] = {
    sig = "F.figure{ paper =, number =, title =, shows =, quick = {..}, full = {..}, estimate = {quick =, full =} } -> fig",
    does = "Declare a figure: what it reproduces and its quick/full parameter sets (same keys); the returned object records CSV, plots, comparison rows and progress (fig:csv, fig:plot, fig:compare, fig:progress, fig:done).",
    args = { { "paper, number, title, shows", "strings", "required", "what is reproduced" }, { "quick, full", "tables", "required", "parameter sets" },
      { "estimate", "{quick =, full =}", "none", "seconds on 2 cores (first-run ETA)" } },
    returns = "figure object (fig.params: the chosen set with --key value overrides)", see = see,
  },
  ["tide.figures.main"] = {
    sig = "F.main(args) -> failed", does = "The runner: every figure in its own process with a manifest (versions, compiler, CPU, params, seed, threads, wall time, output hashes, content key), skipping unchanged ones, with progress and ETA.",
    args = { { "args", "list of strings", "required", "command-line arguments (--quick, --only, --threads, ...)" } }, returns = "number of failed figures", see = see,
  },
  ["tide.figures.docs"] = {
    sig = "F.docs([{ out = \"out/figures\" }])", does = "Write docs/figures.md (and copy the pictures to docs/figures/) from the manifests and figure.json files of a run; figures without a full run come from the quick run and are marked so.",
    args = { { "out", "string", "\"out/figures\"", "run directory" } }, returns = "nothing", see = see,
  },
  ["tide.figures.root"] = { sig = "F.root() -> path", does = "The source tree: TIDE_SOURCE_DIR, or the parent of the Lua library directory.", args = {}, returns = "string", see = see },
  ["tide.figures.list"] = { sig = "F.list(root) -> names", does = "The figure scripts figures/*.lua (names without _ prefix), sorted.", args = { { "root", "string", "required", "source tree" } }, returns = "list of strings", see = see },
  ["tide.figures.describe"] = {
    sig = "F.describe(root, name) -> metadata | nil, message", does = "A figure's metadata, read by running its script up to its F.figure call.",
    args = { { "root", "string", "required", "" }, { "name", "string", "required", "figure name" } }, returns = "table, or nil and a message", see = see,
  },
  ["tide.figures.program"] = { sig = "F.program() -> path", does = "The program running the figures (the lowest entry of arg).", args = {}, returns = "string", see = see },
  ["tide.figures.fmt_time"] = { sig = "F.fmt_time(seconds) -> text", does = "m:ss or h:mm:ss (--:-- when unknown).", args = { { "seconds", "number", "required", "" } }, returns = "string", see = see },
  ["tide.figures.short"] = { sig = "F.short(v) -> text", does = "A number in 5 significant digits (exponent form outside 1e-3..1e5).", args = { { "v", "any", "required", "" } }, returns = "string", see = see },
  ["tide.figures.fmt_diff"] = { sig = "F.fmt_diff(row) -> text", does = "The difference column of a comparison row: relative in % or absolute.", args = { { "row", "table", "required", "with rel or diff" } }, returns = "string", see = see },
}
