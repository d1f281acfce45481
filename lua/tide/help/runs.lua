-- Help entries of the parts of Tide that keep runs safe: temporaries of killed
-- runs, the sandbox (docs/api.md "Runs that survive", docs/getting-started.md "Sandbox").
return {
  ["tide.fileio.clean_temps"] = {
    sig = "tide.fileio.clean_temps(dir [, { own = false }]) -> count, bytes",
    does = "Remove the temporaries <dir>/.<name>.tmp-<pid>-<n> (up to 8 levels deep) that writers of processes that no longer run left behind (a run killed while writing a frame or checkpoint); own = true removes this process's own instead. Other live processes' files are never touched; a missing dir removes nothing.",
    args = {
      { "dir", "string", "required", "the output folder" },
      { "own", "boolean", "false", "remove this process's temporaries (after an error) instead of dead ones" },
    },
    returns = "number of files and bytes removed",
    see = "docs/output.md",
  },
  ["tide.sandbox.run"] = {
    sig = "tide.sandbox.run{ script = \"scene.lua\", out = \"out\", memory = nil, time = nil, args = {} } -> true",
    does = "Run a scene file from a stranger in this process under the sandbox of tide --sandbox: its own globals without debug, no os.execute/io.popen/package.loadlib, text chunks only, reads below the scene's folder, Tide's library and out, writes below out (the C readers and writers check the same policy), memory and wall-clock limits that pcall cannot swallow. The sandbox stays on for the rest of the process.",
    args = {
      { "script", "string", "required", "the scene file" },
      { "out", "string", "\"out\"", "the only folder written (created)" },
      { "memory", "number > 0", "none", "limit on the Lua heap plus Tide's arrays [MB]" },
      { "time", "number > 0", "none", "wall-clock limit [s]" },
      { "args", "table of strings", "{}", "the scene's arg[1..n] and ..." },
    },
    returns = "true, or raises the scene's error (\"sandbox: ...\" for a refusal or a limit)",
    see = "docs/getting-started.md",
  },
}
