-- Help entries of tide.array and the tide.Array methods.
local see = "docs/api.md"
local DT = "\"f64\" | \"f32\" | \"i32\" | \"u8\""
return {
  ["tide.array.zeros"] = {
    sig = "tide.array.zeros(shape [, dtype]) -> Array",
    does = "A new array of zeros, row major, rank 1..4.",
    args = { { "shape", "integer or {n1, n2, ...}", "required", "extents" }, { "dtype", DT, "\"f64\"", "element type" } },
    returns = "tide.Array", see = see,
  },
  ["tide.array.full"] = {
    sig = "tide.array.full(shape, value [, dtype]) -> Array",
    does = "A new array with every element equal to value.",
    args = { { "shape", "integer or {n1, n2, ...}", "required", "extents" }, { "value", "number", "required", "" },
      { "dtype", DT, "\"f64\"", "element type" } },
    returns = "tide.Array", see = see,
  },
  ["tide.array.linspace"] = {
    sig = "tide.array.linspace(a, b, n) -> Array",
    does = "n equally spaced f64 values from a to b inclusive.",
    args = { { "a, b", "numbers", "required", "end points" }, { "n", "integer >= 1", "required", "count" } },
    returns = "tide.Array (n)", see = see,
  },
  ["tide.array.from"] = {
    sig = "tide.array.from(table [, dtype]) -> Array",
    does = "An array from nested Lua lists (rectangular; {} gives an empty 1-d array).",
    args = { { "table", "nested lists of numbers", "required", "values, outer list = first axis" }, { "dtype", DT, "\"f64\"", "" } },
    returns = "tide.Array", see = see,
  },
  ["tide.Array:get"] = {
    sig = "a:get(i, j, ...) -> value",
    does = "The element at the 1-based multi-index (one index per axis).",
    args = { { "i, j, ...", "integers", "required", "1-based indices" } },
    returns = "number (integer for i32/u8)", see = see,
  },
  ["tide.Array:set"] = {
    sig = "a:set(i, j, ..., v)",
    does = "Set the element at the 1-based multi-index (converted to the dtype).",
    args = { { "i, j, ...", "integers", "required", "1-based indices" }, { "v", "number", "required", "value" } },
    returns = "nothing", see = see,
  },
  ["tide.Array:fill"] = {
    sig = "a:fill(v) -> a", does = "Set every element to v (OpenMP).",
    args = { { "v", "finite number", "required", "value" } }, returns = "a", see = see,
  },
  ["tide.Array:copy"] = {
    sig = "a:copy(src) -> a", does = "Copy src's values into a (same element count, any dtypes).",
    args = { { "src", "tide.Array", "required", "source" } }, returns = "a", see = see,
  },
  ["tide.Array:clone"] = {
    sig = "a:clone([dtype]) -> Array", does = "A contiguous copy, optionally converted to another dtype.",
    args = { { "dtype", DT, "a.dtype", "element type of the copy" } }, returns = "tide.Array", see = see,
  },
  ["tide.Array:scale"] = {
    sig = "a:scale(s) -> a", does = "a <- s a in place.",
    args = { { "s", "finite number", "required", "factor" } }, returns = "a", see = see,
  },
  ["tide.Array:axpy"] = {
    sig = "y:axpy(alpha, x) -> y", does = "y <- y + alpha x in place (same element count).",
    args = { { "alpha", "finite number", "required", "" }, { "x", "tide.Array", "required", "" } }, returns = "y", see = see,
  },
  ["tide.Array:dot"] = {
    sig = "a:dot(b) -> number", does = "Sum of a_i b_i over all elements, in fixed blocks (bit-identical for any thread count).",
    args = { { "b", "tide.Array", "required", "same element count" } }, returns = "number", see = see,
  },
  ["tide.Array:sum"] = {
    sig = "a:sum() -> number", does = "Sum of the elements (deterministic blocked reduction).",
    args = {}, returns = "number", see = see,
  },
  ["tide.Array:norm"] = {
    sig = "a:norm() -> number", does = "Euclidean norm sqrt(sum a_i^2) over all elements.",
    args = {}, returns = "number", see = see,
  },
  ["tide.Array:min"] = {
    sig = "a:min() -> number", does = "Smallest element.", args = {}, returns = "number", see = see,
  },
  ["tide.Array:max"] = {
    sig = "a:max() -> number", does = "Largest element.", args = {}, returns = "number", see = see,
  },
  ["tide.Array:nonfinite"] = {
    sig = "a:nonfinite() -> count", does = "Number of NaN and infinite elements.", args = {}, returns = "integer", see = see,
  },
  ["tide.Array:size"] = {
    sig = "a:size() -> n", does = "Element count (the product of the extents; #a is the first extent).",
    args = {}, returns = "integer", see = see,
  },
  ["tide.Array:shape"] = {
    sig = "a:shape() -> {n1, n2, ...}", does = "The extents (also the field a.shape).", args = {}, returns = "list of integers", see = see,
  },
  ["tide.Array:slice"] = {
    sig = "a:slice(axis, first [, last [, step]]) -> view",
    does = "A view (no copy) of the inclusive 1-based range first..last along an axis.",
    args = { { "axis", "integer 1..ndim", "required", "" }, { "first", "integer", "required", "1-based" },
      { "last", "integer", "the extent", "inclusive" }, { "step", "integer >= 1", "1", "" } },
    returns = "tide.Array sharing a's memory", see = see,
  },
  ["tide.Array:select"] = {
    sig = "a:select(axis, i) -> view", does = "The sub-array at index i along an axis, dropping that axis (a view).",
    args = { { "axis", "integer 1..ndim", "required", "" }, { "i", "integer", "required", "1-based index" } },
    returns = "tide.Array sharing a's memory", see = see,
  },
  ["tide.Array:reshape"] = {
    sig = "a:reshape(n1, n2, ...) or a:reshape{n1, n2, ...} -> view",
    does = "A view with a new shape of the same element count (contiguous arrays).",
    args = { { "n1, n2, ...", "integers", "required", "new extents" } }, returns = "tide.Array sharing a's memory", see = see,
  },
  ["tide.Array:totable"] = {
    sig = "a:totable() -> nested lists", does = "The values as nested Lua lists (for small arrays).",
    args = {}, returns = "table", see = see,
  },
  ["tide.Array:checksum"] = {
    sig = "a:checksum() -> hex", does = "FNV-1a hash of the values in C order, for determinism checks.",
    args = {}, returns = "string (hex)", see = see,
  },
  ["tide.Array:free"] = {
    sig = "a:free()", does = "Release the memory now (views keep their base alive); later use is an error. Also by `local a <close> = ...`.",
    args = {}, returns = "nothing", see = see,
  },
}
