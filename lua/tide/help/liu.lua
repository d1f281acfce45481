-- Help entries of the tide.liu recipe (Liu et al. 2024: level-set liquid and
-- solid vertices without penetration).
local see = "docs/couple.md"
local S_ = { "S", "liu state", "required", "from liu.new" }
return {
  ["tide.liu.keep_contact"] = {
    sig = "liu.keep_contact(S, before)", does = "After redistancing, put back the optimized values of the cells around every vertex within dhat of the liquid (the barrier's distances stay).",
    args = { S_, { "before", "f64 cells", "required", "phi before the redistancing" } }, returns = "nothing", see = see,
  },
}
