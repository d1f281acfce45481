-- Help entries of tide.solid's shells and rods (modules/solid/thin.h, thingen.h).
local see = "docs/shells.md"
local ref_shell = "Grinspun et al. 2003 (Discrete shells); Irving thesis 2.8; Liu et al. 2024 Sec. 4.1"
local ref_rod = "Bergou et al. 2008 (Discrete elastic rods, without twist); Liu et al. 2024 Sec. 4.1"
return {
  ["tide.solid.sheet"] = {
    sig = "tide.solid.sheet{ origin = {x,y,z}, u = {..}, v = {..}, cells = {nu, nv}, diagonals = \"alternate\", bulge = {bu, bv}, slits = {{along =, at =, from =, to =}, ...} } -> tide.TetMesh",
    does = "A rectangular triangle surface (cloth, band, leaf, kirigami): nodes origin + s u + t v on an (nu+1) x (nv+1) grid, node (i, j) at index i (nv+1) + j + 1.",
    args = {
      { "origin, u, v", "{x, y, z}", "required", "corner [m] and the two edge vectors [m]; normals along u x v" },
      { "cells", "{nu, nv}", "required", "cells along u and v, 1..4096" },
      { "diagonals", "\"same\" | \"alternate\" | \"cross\"", "\"alternate\"", "cell split: one diagonal, checkerboard of both, or four triangles around a centre node" },
      { "bulge", "{bu, bv}", "none", "heights [m] of the parabolic cap bu (1-(2s-1)^2) + bv (1-(2t-1)^2) along the normal: a curved rest shape" },
      { "slits", "list of {along = \"u\"|\"v\", at = line, from = i0, to = i1}", "none", "cuts along grid line `at` between grid positions i0 < i1 (nodes strictly between are split)" },
    },
    returns = "tide.TetMesh (kind \"shell\")",
    ref = ref_shell,
    see = see,
  },
  ["tide.solid.disc"] = {
    sig = "tide.solid.disc{ center = {0,0,0}, normal = {0,1,0}, radius =, rings = 8 } -> tide.TetMesh",
    does = "A disc of near-equal triangles: a centre node and rings of 6 r nodes (6 rings^2 triangles).",
    args = {
      { "center, normal", "{x, y, z}", "{0,0,0}, {0,1,0}", "centre [m] and normal" },
      { "radius", "number > 0", "required", "[m]" },
      { "rings", "integer 1..2048", "8", "rings of nodes" },
    },
    returns = "tide.TetMesh (kind \"shell\")",
    see = see,
  },
  ["tide.solid.rod"] = {
    sig = "tide.solid.rod{ from = {..}, to = {..}, segments = 10 } -> tide.TetMesh",
    does = "A straight rod (segment mesh) in 2D or 3D.",
    args = {
      { "from, to", "{x, y[, z]}", "required", "end points [m]" },
      { "segments", "integer >= 1", "10", "segments" },
    },
    returns = "tide.TetMesh (kind \"rod\")",
    ref = ref_rod,
    see = see,
  },
  ["tide.solid.polyline"] = {
    sig = "tide.solid.polyline{ points = Array (n, d) | {{x, y[, z]}, ...}, closed = false } -> tide.TetMesh",
    does = "A rod through the given points (closed: back to the first).",
    args = {
      { "points", "Array (n, 2|3) or list of points", "required", "[m], at least 2" },
      { "closed", "boolean", "false", "add the segment from the last point to the first" },
    },
    returns = "tide.TetMesh (kind \"rod\")",
    see = see,
  },
  ["tide.solid.bundle"] = {
    sig = "tide.solid.bundle{ from = {x,y,z}, to = {..}, segments = 10, count = {2, 2}, spacing = } -> tide.TetMesh",
    does = "na x nb parallel straight rods offset on a square lattice in the plane normal to them.",
    args = {
      { "from, to", "{x, y, z}", "required", "axis of the bundle [m]" },
      { "segments", "integer", "10", "segments per rod" },
      { "count", "{na, nb}", "{2, 2}", "rods per lattice direction" },
      { "spacing", "number > 0", "required", "lattice spacing [m]" },
    },
    returns = "tide.TetMesh (kind \"rod\")",
    see = see,
  },
  ["tide.solid.helix"] = {
    sig = "tide.solid.helix{ center = {0,0,0}, radius =, pitch =, turns =, per_turn = 16 } -> tide.TetMesh",
    does = "A helical rod about the vertical axis: x = R cos a, z = R sin a, y = pitch a / (2 pi).",
    args = {
      { "radius, pitch", "numbers", "required", "[m]; pitch per turn" },
      { "turns", "number > 0", "required", "turns" },
      { "per_turn", "integer 3..4096", "16", "segments per turn" },
    },
    returns = "tide.TetMesh (kind \"rod\"); 3D rods have no twist energy (docs/shells.md)",
    see = see,
  },
  ["tide.solid.web"] = {
    sig = "tide.solid.web{ center = {0,0,0}, radius =, rings = 5, spokes = 12, per_arc = 2 } -> tide.TetMesh",
    does = "A spider web in the x-y plane: spokes from a hub and rings sharing the junction nodes (non-manifold).",
    args = {
      { "radius", "number > 0", "required", "outer ring radius [m]" },
      { "rings, spokes", "integers", "5, 12", "rings (1..512), spokes (3..512)" },
      { "per_arc", "integer 1..64", "2", "segments of each ring arc between two spokes" },
    },
    returns = "tide.TetMesh (kind \"rod\")",
    see = see,
  },
  ["tide.solid.merge"] = {
    sig = "tide.solid.merge{ m1, m2, ... } -> tide.TetMesh",
    does = "One mesh holding the nodes of all (in order), their volume elements, shells and rods with their own parameters, masses, pins, targets, forces, x and v: one step_newton, one Hessian.",
    args = { { "list", "tide.TetMesh with materials", "required", "one dimension; volume meshes share one material" } },
    returns = "tide.TetMesh",
    see = see,
  },
  ["tide.TetMesh:shell"] = {
    sig = "m:shell{ model = \"neohookean\", E =, nu = 0.3 | mu =, lambda =, thickness =, bending = E h^3/(12(1-nu^2)), density = 1000 | area_density =, damping = 0, bend_yield = 0, bending_model = \"hinge\", gravity = {0,-9.81,0} } -> m",
    does = "Make a triangle surface a discrete shell: membrane h A Psi(F^) (plane stress) plus hinge bending (D/2) |e|^2/(A1+A2) (theta - theta0)^2, or with bending_model = \"triangle\" the plate energy (D A/2)((1-nu) S:S + nu tr(S)^2) of each triangle's shape operator S fitted to its three hinge angles, or with \"morley\" the same energy of Morley's element on mid-edge slopes shared by the two triangles of each edge.",
    args = {
      { "model", "string", "\"neohookean\"", "membrane model: neohookean, stvk, fixed_corotated, neohookean_j, rotated_linear, spline" },
      { "E, nu", "numbers", "E required, nu 0.3", "Young's modulus [Pa], Poisson ratio (or mu, lambda)" },
      { "thickness", "number > 0", "required", "h [m]" },
      { "bending", "number >= 0", "E h^3 / (12 (1 - nu^2))", "plate bending stiffness D [N m]" },
      { "density | area_density", "number > 0", "1000 kg/m^3", "mass per volume (times h) or per area [kg/m^2]" },
      { "damping", "number >= 0", "0", "Rayleigh stiffness damping beta [s] in the incremental potential" },
      { "bend_yield", "angle [rad] >= 0", "0", "plastic bending: rest angles flow toward the angles beyond this difference (Irving Fig. 2.6)" },
      { "bending_model", "\"hinge\" | \"triangle\" | \"morley\"", "\"hinge\"", "hinge: Grinspun et al. 2003 (mesh dependent: square cells of the sheet grids bend 14-22% too soft); triangle: per-triangle shape operator, exact for every constant curvature, mesh independent on diagonals = \"same\" grids only (35-45% too soft on \"alternate\" and \"cross\"); morley: Morley's element with shared mid-edge slopes, the plate answer on all three grid patterns, about 4x the triangle model's cost (docs/shells.md)" },
      { "gravity", "{gx, gy, gz}", "{0, -9.81, 0}", "[m/s^2]" },
    },
    returns = "m",
    ref = ref_shell,
    see = see,
  },
  ["tide.TetMesh:rod"] = {
    sig = "m:rod{ E =, radius = | EA =, EI =, density = 1000 | line_density =, damping = 0, twist = 0, gravity = } -> m",
    does = "Make a segment mesh a discrete rod: stretching (EA/2) L (l/L - 1)^2 per segment, bending (EI/l0) (|kb| - kbar)^2 per bend.",
    args = {
      { "E, radius", "numbers", "one of the two forms", "circular section: EA = E pi r^2, EI = E pi r^4/4" },
      { "EA, EI", "numbers", "", "axial [N] and bending [N m^2] stiffness" },
      { "density | line_density", "number > 0", "1000 kg/m^3", "per volume (times pi r^2) or per length [kg/m]" },
      { "damping", "number >= 0", "0", "Rayleigh stiffness damping beta [s]: forces beta H v, each energy (stretching, bending, twist) with its own stiffness; damping ratio beta omega / 2" },
      { "twist", "number >= 0", "0", "3D geometric torsion stiffness GJ [N m^2] (dihedral angles of consecutive osculating planes); 0 as Liu et al." },
    },
    returns = "m",
    ref = ref_rod,
    see = see,
  },
  ["tide.TetMesh:hinges"] = {
    sig = "m:hinges() -> Array (nh, 4) i32",
    does = "The hinge stencils of the shells, 1-based: edge nodes, then the two wing nodes.",
    returns = "Array",
    see = see,
  },
  ["tide.TetMesh:bends"] = {
    sig = "m:bends() -> Array (nb, 3) i32",
    does = "The bend stencils of the rods, 1-based: previous, middle, next node.",
    returns = "Array",
    see = see,
  },
  ["tide.TetMesh:intersections"] = {
    sig = "m:intersections() -> count [, {edge nodes}, {triangle nodes}]",
    does = "Segment-triangle intersections between the mesh's edges (triangle edges and rod segments) and its triangles at the current positions, pairs sharing a node excluded (spatial-hash broad phase, orientation tests): the never-intersect check of IPC; the first pair's nodes, 1-based. 3D meshes.",
    returns = "integer count, and when > 0 the first crossing edge and triangle",
    see = see,
  },
}
