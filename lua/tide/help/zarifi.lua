-- Help entries of the tide.zarifi recipe (Zarifi 2017: FLIP/APIC liquids and
-- corotational FEM solids coupled through one pressure solve).
local see = "docs/couple.md"
local S_ = { "S", "zarifi state", "required", "from zarifi.new" }
return {
  ["tide.zarifi.new"] = {
    sig = "zarifi.new{ grid =, particles =, solids = {m, ...} [, obstacles, colliders, scheme = \"spd\", rho = 1000, tol = 1e-10, maxit, solver, sigma = 0.9, alpha, transfer = \"flip\", flip = 0.97, cfl = 1, layers, level_set = false, radius, walls = true, max_speed = 1e3, gravity] } -> S",
    does = "The coupled state: liquid particles and grid, the solids (tide.TetMesh with materials, same dimension), static obstacles and colliders. Empty particles are an error.",
    args = { { "grid", "tide.Grid", "required", "" }, { "particles", "tide.Particles", "required", "" }, { "solids", "list of tide.TetMesh", "required", "with materials" },
      { "obstacles", "tide.Shape", "none", "static solids closing faces with zero flux" }, { "colliders", "list of tide.solid.Collider", "none", "extra colliders of the solids" },
      { "scheme", "\"spd\" | \"indefinite\" | \"factored\" | \"damping\" | \"weak\"", "\"spd\"", "coupling scheme" }, { "rho", "number", "1000", "[kg/m^3]" },
      { "tol, maxit, solver", "number, integer, string", "1e-10, default, per formulation", "coupled solve" }, { "sigma", "number in (0, 1)", "0.9", "Z1 = sigma (1/dt + tau_M) M (5.31)" },
      { "alpha", "number", "|c1| / |c2|", "block scaling (5.36)" }, { "transfer", "\"pic\" | \"flip\" | \"apic\"", "\"flip\"", "" }, { "flip", "number", "0.97", "" },
      { "cfl", "number", "1", "" }, { "layers", "integer", "cfl + 2", "extrapolation sweeps" }, { "level_set", "false | \"union\" | \"zhu_bridson\"", "false", "ghost-fluid surface" },
      { "radius", "number", "", "its particle radius [m]" }, { "walls", "boolean", "true", "solids collide with the domain walls" },
      { "max_speed", "number", "1e3", "[m/s]; faster is reported as unstable" }, { "gravity", "{gx, gy[, gz]}", "{0, -9.81[, 0]}", "" } },
    returns = "the state S", ref = "Zarifi thesis Alg. 4", see = see,
  },
  ["tide.zarifi.step"] = {
    sig = "zarifi.step(S, dt) -> stats",
    does = "Algorithm 4: solid positions, particle advection, particle-to-grid transfer, gravity, solid distance fields and cut cells, active cells, the coupled pressure projection of the scheme, extrapolation; an unstable step (inverted, non-finite, too fast) raises.",
    args = { S_, { "dt", "number > 0", "required", "[s]" } }, returns = "projection statistics", ref = "Zarifi thesis Sec. 5.4, Alg. 4", see = see,
  },
  ["tide.zarifi.max_dt"] = {
    sig = "zarifi.max_dt(S) -> dt", does = "Largest stable step: the liquid's CFL step and cfl cells per step for the fastest solid node.", args = { S_ }, returns = "dt [s]", see = see,
  },
  ["tide.zarifi.geometry"] = {
    sig = "zarifi.geometry(S)", does = "Line 5: the solids' and obstacles' signed distance and open face fractions (node SDF, Fig. 5.2, clamped as Sec. 4.6) and the cells closed by them.",
    args = { S_ }, returns = "nothing", ref = "Zarifi Fig. 5.2, Sec. 4.6", see = see,
  },
  ["tide.zarifi.project"] = {
    sig = "zarifi.project(S, dt) -> stats", does = "Line 7: the pressure projection of the chosen scheme (tide.couple.project, or the weak scheme's alternation).",
    args = { S_, { "dt", "number > 0", "required", "[s]" } }, returns = "projection statistics", ref = "Zarifi ch. 5, Sec. 6.3", see = see,
  },
  ["tide.zarifi.walls"] = {
    sig = "zarifi.walls(g) -> colliders", does = "The 2 dim planes of the domain walls as colliders pushing solids back inside.",
    args = { { "g", "tide.Grid", "required", "" } }, returns = "list of tide.solid.Collider", ref = "Zarifi Sec. 7.1", see = see,
  },
  ["tide.zarifi.hydrostatic"] = {
    sig = "zarifi.hydrostatic{ dx = 0.05, params = 1 | 2, h = dx, x0, dt = 0.01, scheme, solver, tol, ... } -> S, info",
    does = "The Sec. 6.4 hydrostatic set-up: a deformed elastic rectangle in liquid at rest with the exact solution v = 0, u = 0, p = rho_f g (y - a); tractions of Eq. 6.6-6.9 integrated over the rest boundary.",
    args = { { "dx", "number", "0.05", "grid spacing of the unit square (1/dx an integer)" }, { "params", "1 | 2", "1", "Table 6.5 or 6.6" }, { "h", "number", "dx", "solid mesh spacing" },
      { "x0", "number", "centred", "left edge of the deformed solid" }, { "dt", "number", "0.01", "[s]" }, { "scheme, solver, tol, ...", "as zarifi.new", "as zarifi.new", "projection options" } },
    returns = "the state and the set-up's parameters", ref = "Zarifi Sec. 6.4, Eq. 6.1-6.10, Tables 6.5-6.6", see = see,
  },
  ["tide.zarifi.frame"] = {
    sig = "zarifi.frame(S, dir, i, t [, { png = true, vtk = false, width = 640, camera, title, speed_range = {0, 3} }])",
    does = "Output of one frame: a PNG of the liquid and the solids (2D particles by speed and meshes; 3D a particle level set surface and the solids) and optionally VTK files with .pvd collections.",
    args = { S_, { "dir", "string", "required", "output directory" }, { "i", "integer", "required", "frame number" }, { "t", "number", "required", "[s]" },
      { "options", "table", "png only", "png, vtk, width, camera, title, speed_range" } },
    returns = "nothing", see = see,
  },
  ["tide.zarifi.seed"] = {
    sig = "zarifi.seed(g, region, solids [, per_cell]) -> particles",
    does = "Liquid particles filling a region minus the solids: region.box = {min, max} and/or region.below = y (a pool up to height y), the solids' meshes kept clear.",
    args = { { "g", "tide.Grid", "required", "" }, { "region", "{ box = {min =, max =}, below = y }", "required", "[m]" }, { "solids", "list of tide.TetMesh", "none", "" },
      { "per_cell", "integer", "2^dim", "as tide.liquid.seed" } },
    returns = "tide.Particles", see = see,
  },
  ["tide.zarifi.scene_params"] = {
    sig = "zarifi.scene_params(own [, help]) -> P", does = "tide.params with the parameters every zarifi scene shares (res, dim, frames, fps, scheme, sampling, paper, per_cell, cfl, out, png, vtk, image) under the scene's own.",
    args = { { "own", "table", "required", "the scene's defaults" }, { "help", "table", "none", "descriptions" } }, returns = "parameter table", see = see,
  },
  ["tide.zarifi.scene_grid"] = {
    sig = "zarifi.scene_grid(P) -> grid, dim, dx", does = "The unit tank of a scene: P.res cells across (100 with --paper) in P.dim dimensions.",
    args = { { "P", "table", "required", "from scene_params" } }, returns = "tide.Grid, dimension, dx [m]", see = see,
  },
  ["tide.zarifi.run_scene"] = {
    sig = "zarifi.run_scene(S, P, name, title [, report [, on_step]]) -> result", does = "Run a scene's frames through tide.run with PNG/VTK output; report(S) prints the outcome, on_step(S, stats) runs after every step.",
    args = { { "S", "zarifi state", "required", "" }, { "P", "table", "required", "scene parameters" }, { "name, title", "strings", "required", "" },
      { "report", "function(S)", "none", "" }, { "on_step", "function(S, stats)", "none", "" } },
    returns = "tide.run's summary", see = see,
  },
  ["tide.zarifi.centroid"] = {
    sig = "zarifi.centroid(m) -> c, v", does = "Centre of mass and mean velocity of a solid (mass-weighted over its nodes).",
    args = { { "m", "tide.TetMesh", "required", "with a material" } }, returns = "two lists of dim numbers [m], [m/s]", see = see,
  },
}
