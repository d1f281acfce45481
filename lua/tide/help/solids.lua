-- Help entries of the tide.solids helpers (steppers, ground, stairs, render
-- surfaces, energies) used by the solid scenes.
local see = "docs/solids.md"
return {
  ["tide.solids.stepper"] = {
    sig = "solids.stepper(mesh, { method = \"newton\" | \"linear\" | \"newmark\", before, advance, after, ... }) -> function(dt)",
    does = "A step function for tide.run advancing the mesh with the chosen integrator (the other options go to it); before(dt) runs first, colliders in advance move with their velocity, after(stats) receives the integrator's stats of each step.",
    args = { { "mesh", "tide.TetMesh", "required", "with a material" }, { "method", "\"newton\" | \"linear\" | \"newmark\"", "required", "" },
      { "before", "function(dt)", "none", "" }, { "advance", "list of colliders", "none", "" },
      { "after", "function(stats)", "none", "the integrator's stats of each step" } },
    returns = "function(dt) -> stats", see = see,
  },
  ["tide.solids.contact"] = {
    sig = "solids.contact(opts, contact, dhat, mu) -> opts",
    does = "Sets a stepper's contact options: \"barrier\" (IPC: colliders and, in 3D, the mesh's own primitives as barriers at distance dhat, friction mu between the primitives, CCD line search: no penetration) or \"friction\" / \"simple\" (the colliders' projected-Newton constraints).",
    args = { { "opts", "table", "required", "the stepper's options, changed" }, { "contact", "\"barrier\" | \"friction\" | \"simple\"", "required", "" },
      { "dhat", "number > 0", "required for barrier", "barrier distance [m]" }, { "mu", "number >= 0", "0", "friction between the mesh's primitives (barrier)" } },
    returns = "opts", see = "docs/shells.md",
  },
  ["tide.solids.ground"] = {
    sig = "solids.ground(height, mu, dim) -> Collider", does = "A frictional ground plane y = height.",
    args = { { "height", "number", "required", "[m]" }, { "mu", "number >= 0", "required", "friction" }, { "dim", "2 | 3", "required", "" } }, returns = "tide.solid.Collider", see = see,
  },
  ["tide.solids.stairs"] = {
    sig = "solids.stairs{ steps = 3, width = 0.2, rise = 0.1, depth = 0.4, x0 = 0 } -> shape, boxes", does = "Stairs of n boxes (3D): step k spans x in [x0 + k width, x0 + (k+1) width] up to height (n - k) rise, z in [-depth/2, depth/2].",
    args = { { "steps", "integer", "3", "" }, { "width", "number", "0.2", "[m]" }, { "rise", "number", "0.1", "[m]" }, { "depth", "number", "0.4", "[m]" }, { "x0", "number", "0", "[m]" } },
    returns = "the union tide.Shape and a list of {min, max} boxes", see = see,
  },
  ["tide.solids.surface"] = {
    sig = "solids.surface(mesh [, color [, extra]]) -> table", does = "The boundary surface of a mesh as an entry of tide.fileio.png3d's meshes list.",
    args = { { "mesh", "tide.TetMesh", "required", "" }, { "color", "{r, g, b}", "{0.85, 0.45, 0.3}", "" }, { "extra", "table", "none", "more mesh options" } }, returns = "table", see = see,
  },
  ["tide.solids.box_surface"] = {
    sig = "solids.box_surface(lo, hi [, color]) -> table", does = "A box as a render mesh (its boundary triangles).",
    args = { { "lo, hi", "{x, y, z}", "required", "[m]" }, { "color", "{r, g, b}", "grey", "" } }, returns = "table", see = see,
  },
  ["tide.solids.png3d"] = {
    sig = "solids.png3d(pattern, i, meshes [, options]) -> path",
    does = "Write frame i of a 3D sequence: the frames of one pattern keep the camera and box of frame 0 (a png3d view) unless the options give camera, view or bounds.",
    args = { { "pattern", "string with %d", "required", "" }, { "i", "integer", "required", "frame" }, { "meshes", "list", "required", "png3d meshes" }, { "options", "table", "none", "more png3d options" } },
    returns = "path", see = "docs/output.md",
  },
  ["tide.solids.energies"] = {
    sig = "solids.energies(mesh) -> { kinetic, elastic, total }", does = "Energies of a mesh with a material (total includes gravity).", args = { { "mesh", "tide.TetMesh", "required", "" } }, returns = "table [J]", see = see,
  },
  ["tide.solids.volume_ratio"] = {
    sig = "solids.volume_ratio(mesh) -> r", does = "Current volume over rest volume.", args = { { "mesh", "tide.TetMesh", "required", "" } }, returns = "number", see = see,
  },
  ["tide.solids.tubes"] = {
    sig = "solids.tubes(mesh, radius [, color [, sides = 6]]) -> table", does = "The rods of a segment mesh as render tubes for tide.fileio.png3d: each segment a prism of `sides` faces (3D meshes).",
    args = { { "mesh", "tide.TetMesh (segments, 3D)", "required", "" }, { "radius", "number > 0", "required", "[m]" }, { "color", "{r, g, b}", "default", "" }, { "sides", "integer", "6", "" } },
    returns = "a png3d mesh table", see = see,
  },
}
