-- Knowledge of tide.fileio for the wrong-argument sweep (tests/runtime/test_badargs.lua).
return {
  accepts = {
    ["tide.fileio.png_read"] = { string = "a missing file is an expected failure: returns nil, message" },
    ["tide.fileio.npy_read"] = { string = "a missing file is an expected failure: returns nil, message" },
    ["tide.fileio.restore"] = { string = "no checkpoint yet is an expected failure: returns nil, message" },
    ["tide.fileio.mkdirs"] = { string = "a file name without a directory part: nothing to create" },
  },
  method_accepts = {},
  samples = {},
}
