-- Help entries of the tide.liu recipe (Liu et al. 2024: level-set liquid and
-- solid vertices without penetration).
local see = "docs/couple.md"
local S_ = { "S", "liu state", "required", "from liu.new" }
return {
  ["tide.liu.keep_contact"] = {
    sig = "liu.keep_contact(S, before [, phi, only, raise_only, cap])", does = "After redistancing phi (default S.phi), put back the values of before in the cells around every vertex within 2 dhat of the liquid (the barrier's distances stay); only: a table of the vertices to consider (true at their index); raise_only: put back only the values above the redistanced ones; cap: a table of per-cell bounds (0-based linear cell index -> m, liu.record_raise's S.raised): a cell is put back at most cap above its redistanced value, a cell not in it not at all (keep_stencils = \"raised\").",
    args = { S_, { "before", "f64 cells", "required", "phi before the redistancing" } }, returns = "nothing", see = see,
  },
  ["tide.liu.record_raise"] = {
    sig = "liu.record_raise(S)", does = "After the solve of a step whose phi* was redistanced (S.phi_march, the march's values), S.raised = what the solve left every stencil cell of a vertex within the barrier's reach (d(phi^{n+1}, x) < dhat) above the march, phi^{n+1} - march(phi*) where positive (the barrier's raise; a vertex the liquid has left records nothing): the next step's keep_stencils = \"raised\" puts back at most that.",
    args = { S_ }, returns = "nothing", see = see,
  },
}
