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
}
