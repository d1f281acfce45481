-- Help entries of the tide.liu recipe (Liu et al. 2024: level-set liquid and
-- solid vertices without penetration).
local see = "docs/couple.md"
local S_ = { "S", "liu state", "required", "from liu.new" }
return {
  ["tide.liu.keep_contact"] = {
    sig = "liu.keep_contact(S, before [, phi, only, raise_only])", does = "After redistancing phi (default S.phi), put back the values of before in the cells around every vertex within 2 dhat of the liquid (the barrier's distances stay); only: a table of the vertices to consider (true at their index); raise_only: put back only the values above the redistanced ones.",
    args = { S_, { "before", "f64 cells", "required", "phi before the redistancing" } }, returns = "nothing", see = see,
  },
}
