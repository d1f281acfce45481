--- tide.shape: the signed-distance shapes of tide.grid (box, sphere, cylinder,
-- plane, capsule, torus, mesh and CSG), the same table as tide.grid.shape.
-- See docs/levelsets.md.
return require("tide.grid").shape
