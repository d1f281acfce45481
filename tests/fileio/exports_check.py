"""Reads the files of exports_write.lua with independent readers (VTK's XML
readers, NumPy, a small PLY/OBJ parser) and compares every value."""
import os
import struct
import sys
import xml.etree.ElementTree as ET

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

d = sys.argv[1]
passed = failed = 0


def check(cond, msg):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("check failed:", msg)


def read(reader_cls, path):
    r = reader_cls()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


# ---- vti (3D): cell data c, cv (2 comps), label, point data p, velocity
img = read(vtk.vtkXMLImageDataReader, d + "/grid.vti")
check(img.GetDimensions() == (6, 5, 4), "vti dimensions %s" % (img.GetDimensions(),))
check(np.allclose(img.GetOrigin(), (1, 2, 3)) and np.allclose(img.GetSpacing(), (0.5, 0.5, 0.5)), "vti origin/spacing")
cd = img.GetCellData()
c = vtk_to_numpy(cd.GetArray("c")).reshape(3, 4, 5)  # VTK order: x fastest -> [k, j, i]
I, J, K = np.meshgrid(np.arange(1, 6), np.arange(1, 5), np.arange(1, 4), indexing="ij")
check(np.array_equal(c.transpose(2, 1, 0), 100 * I + 10 * J + K), "vti cell scalar c")
cv = vtk_to_numpy(cd.GetArray("cv")).reshape(3, 4, 5, 2).transpose(2, 1, 0, 3)
check(cd.GetArray("cv").GetDataType() == vtk.VTK_FLOAT, "cv stays Float32")
check(np.array_equal(cv[..., 0], I - J) and np.array_equal(cv[..., 1], K * 0.5), "vti cell vector cv")
lab = vtk_to_numpy(cd.GetArray("label")).reshape(3, 4, 5).transpose(2, 1, 0)
check(cd.GetArray("label").GetDataType() == vtk.VTK_UNSIGNED_CHAR and np.array_equal(lab, (I + J + K) % 3), "vti u8 labels")
vel = vtk_to_numpy(cd.GetArray("velocity")).reshape(3, 4, 5, 3).transpose(2, 1, 0, 3)
check(np.allclose(vel[..., 0], I + 0.5) and np.allclose(vel[..., 1], 2 * J + 1) and np.allclose(vel[..., 2], -(K + 0.5)),
      "vti MAC velocity averaged to cells")
p = vtk_to_numpy(img.GetPointData().GetArray("p")).reshape(4, 5, 6).transpose(2, 1, 0)
PI, PJ, PK = np.meshgrid(np.arange(1, 7), np.arange(1, 6), np.arange(1, 5), indexing="ij")
check(np.array_equal(p, PI * PJ - PK), "vti point data p (Int32)")

img2 = read(vtk.vtkXMLImageDataReader, d + "/grid2d.vti")
check(img2.GetDimensions() == (4, 3, 1) and img2.GetNumberOfCells() == 6, "2D vti: %s" % (img2.GetDimensions(),))
c2 = vtk_to_numpy(img2.GetCellData().GetArray("c2")).reshape(2, 3).T
check(np.allclose(c2, np.arange(1, 4)[:, None] + 0.25 * np.arange(1, 3)[None, :]), "2D vti cell values")

# ---- vtp particles
pd = read(vtk.vtkXMLPolyDataReader, d + "/particles.vtp")
q = np.arange(1, 8)
X = np.stack([q, q * q, -q], axis=1)
check(np.allclose(vtk_to_numpy(pd.GetPoints().GetData()), X), "vtp positions")
check(pd.GetNumberOfVerts() == 7, "vtp vertex cells: %d" % pd.GetNumberOfVerts())
check(np.allclose(vtk_to_numpy(pd.GetPointData().GetArray("speed")), q / 4), "vtp speed")
check(np.array_equal(vtk_to_numpy(pd.GetPointData().GetArray("id")), 10 * q), "vtp id")
check(np.allclose(vtk_to_numpy(pd.GetPointData().GetArray("velocity")), np.stack([q, 0 * q, 1 / q], 1)), "vtp velocity")

# ---- vtp surface, rod
sd = read(vtk.vtkXMLPolyDataReader, d + "/surface.vtp")
check(sd.GetNumberOfPolys() == 2 and sd.GetNumberOfVerts() == 0, "surface polys")
ids = vtk.vtkIdList()
sd.GetPolys().InitTraversal()
tris = []
while sd.GetPolys().GetNextCell(ids):
    tris.append([ids.GetId(k) for k in range(ids.GetNumberOfIds())])
check(tris == [[0, 1, 2], [0, 2, 3]], "surface connectivity %s" % tris)
check(np.allclose(vtk_to_numpy(sd.GetCellData().GetArray("area")), [0.5, 0.5]), "surface cell data")
check(np.allclose(vtk_to_numpy(sd.GetPointData().GetArray("h")), [1, 2, 3, 4]), "surface point data")
rd = read(vtk.vtkXMLPolyDataReader, d + "/rod.vtp")
check(rd.GetNumberOfLines() == 2 and np.allclose(vtk_to_numpy(rd.GetPoints().GetData())[2], [2, 1, 0]), "rod lines, 2D points")

# ---- vtu tets, triangles
ug = read(vtk.vtkXMLUnstructuredGridReader, d + "/tets.vtu")
check(ug.GetNumberOfCells() == 2 and ug.GetCellType(0) == vtk.VTK_TETRA, "vtu tets")
check([ug.GetCell(1).GetPointId(k) for k in range(4)] == [1, 2, 3, 4], "vtu connectivity")
check(np.allclose(vtk_to_numpy(ug.GetCellData().GetArray("stress")), np.arange(1, 13).reshape(2, 6)), "vtu stress")
check(np.allclose(vtk_to_numpy(ug.GetCellData().GetArray("E")), [1e4, 2e4]), "vtu E")
check(np.allclose(vtk_to_numpy(ug.GetPointData().GetArray("T")), np.arange(5)), "vtu point data")
pts = [ug.GetPoint(ug.GetCell(0).GetPointId(k)) for k in range(4)]
check(abs(abs(vtk.vtkTetra.ComputeVolume(*pts)) - 1 / 6) < 1e-12, "vtu tet volume")
tu = read(vtk.vtkXMLUnstructuredGridReader, d + "/tris.vtu")
check(tu.GetNumberOfCells() == 2 and tu.GetCellType(0) == vtk.VTK_TRIANGLE, "vtu triangles")

# ---- pvd: sorted, rewritten entry replaced, relative names, readable files
root = ET.parse(d + "/series.pvd").getroot()
ds = root.find("Collection").findall("DataSet")
check([float(e.get("timestep")) for e in ds] == [0.0, 0.04, 0.08], "pvd times %s" % [e.get("timestep") for e in ds])
check([e.get("file") for e in ds] == ["series/frame_%04d.vtp" % k for k in range(3)], "pvd files")
for k, e in enumerate(ds):
    fp = read(vtk.vtkXMLPolyDataReader, os.path.join(d, e.get("file")))
    check(np.allclose(vtk_to_numpy(fp.GetPoints().GetData()), X * (k + 1)), "pvd frame %d data" % k)


# ---- ply (own parser of the binary little-endian format)
def read_ply(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().split("\n")
    check(header[1] == "format binary_little_endian 1.0", "ply format line")
    elements, cur = [], None
    for line in header:
        w = line.split()
        if w[:1] == ["element"]:
            cur = [w[1], int(w[2]), []]
            elements.append(cur)
        elif w[:1] == ["property"]:
            cur[2].append(w[1:])
    types = {"float": "<f4", "double": "<f8", "int": "<i4", "uchar": "u1"}
    pos, out = end, {}
    for name, count, props in elements:
        if props[0][0] == "list":
            rows = []
            for _ in range(count):
                k = data[pos]
                rows.append(list(struct.unpack_from("<%di" % k, data, pos + 1)))
                pos += 1 + 4 * k
            out[name] = rows
        else:
            dt = np.dtype([(p[1], types[p[0]]) for p in props])
            out[name] = np.frombuffer(data, dt, count, pos)
            pos += dt.itemsize * count
    check(pos == len(data), "ply: whole file consumed (%d of %d bytes)" % (pos, len(data)))
    return out


pl = read_ply(d + "/particles.ply")["vertex"]
check(np.allclose(np.stack([pl["x"], pl["y"], pl["z"]], 1), X), "ply positions")
check(np.allclose(pl["speed"], q / 4) and pl["speed"].dtype == np.float32, "ply speed")
check(np.array_equal(pl["id"], 10 * q), "ply id")
check(np.allclose(np.stack([pl["velocity_x"], pl["velocity_y"], pl["velocity_z"]], 1), np.stack([q, 0 * q, 1 / q], 1)), "ply velocity")
sp = read_ply(d + "/surface.ply")
check(sp["face"] == [[0, 1, 2], [0, 2, 3]], "ply faces")
check(np.allclose(sp["vertex"]["nz"], 1), "ply normals as nx ny nz")

# ---- obj
vs, vns, fs = [], [], []
for line in open(d + "/surface.obj"):
    w = line.split()
    if w[:1] == ["v"]:
        vs.append([float(t) for t in w[1:4]])
    elif w[:1] == ["vn"]:
        vns.append([float(t) for t in w[1:4]])
    elif w[:1] == ["f"]:
        fs.append([int(t.split("/")[0]) for t in w[1:]])
check(np.allclose(vs, [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.5]]) and len(vns) == 4, "obj vertices, normals")
check(fs == [[1, 2, 3], [1, 3, 4]], "obj faces 1-based %s" % fs)

# ---- native objects
nps, ntet = [int(t) for t in open(d + "/native.txt").read().split()]
npd = read(vtk.vtkXMLPolyDataReader, d + "/native_particles.vtp")
nv = vtk_to_numpy(npd.GetPointData().GetArray("velocity"))
check(npd.GetNumberOfPoints() == nps and np.allclose(nv, [1, 2, 3]), "particle set: positions and velocity")
pts = vtk_to_numpy(npd.GetPoints().GetData())
check(pts.min() >= 0 and pts.max() <= 0.5, "particles inside their seeding box")
mu = read(vtk.vtkXMLUnstructuredGridReader, d + "/native_mesh.vtu")
check(mu.GetNumberOfCells() == ntet and mu.GetCellType(0) == vtk.VTK_TETRA, "tet mesh: %d cells" % mu.GetNumberOfCells())
vols = [abs(vtk.vtkTetra.ComputeVolume(*[mu.GetPoint(mu.GetCell(c).GetPointId(k)) for k in range(4)])) for c in range(ntet)]
check(abs(sum(vols) - 6.0) < 1e-9, "tet volumes sum to the box volume: %g" % sum(vols))
check(np.allclose(vtk_to_numpy(mu.GetPointData().GetArray("displacement")), 0), "displacement at rest is zero")

# ---- npy
m = np.load(d + "/m.npy")
M = np.arange(1, 4)[:, None] * 10 + np.arange(1, 5)[None, :] + 0.5
check(m.dtype == np.float64 and np.array_equal(m, M), "npy f64 matrix")
check(np.array_equal(np.load(d + "/col.npy"), M[:, 1:2]), "npy of a strided view")
check(np.allclose(np.load(d + "/f32.npy"), np.linspace(0, 1, 5)), "npy linspace")
i32 = np.load(d + "/i32.npy")
check(i32.dtype == np.int32 and list(i32) == [-1, 2, 3], "npy i32")
u8 = np.load(d + "/u8.npy")
check(u8.dtype == np.uint8 and u8.tolist() == [[1, 2], [254, 255]], "npy u8")
check(np.array_equal(np.load(d + "/cube.npy"), 100 * I + 10 * J + K), "npy 3D cell array in C order")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
