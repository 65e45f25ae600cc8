"""Checks of an XDMF sidecar against its HDF5 file, shared by the tests of the solvers' run folders."""
import math
import os
import xml.etree.ElementTree as ET

import h5py
import numpy as np


def _size(item) -> int:
    return math.prod(int(n) for n in item.get("Dimensions").split())


def _hdf(item, folder: str, f: h5py.File, h5name: str) -> None:
    """An HDF DataItem names a dataset of ``f`` with its shape and type."""
    name, _, path = item.text.strip().partition(":")
    assert name == h5name, item.text
    assert path in f, f"{path} not in {h5name}"
    d = f[path]
    assert tuple(int(n) for n in item.get("Dimensions").split()) == d.shape, path
    assert int(item.get("Precision")) == d.dtype.itemsize, path


def _values(item, folder, f, h5name) -> int:
    """The number of values a DataItem gives, checking what it reads."""
    if item.get("ItemType") == "HyperSlab":
        select, data = list(item)
        _hdf(data, folder, f, h5name)
        start, stride, count = (np.array(row.split(), int) for row in select.text.strip().splitlines())
        shape = np.array(f[data.text.split(":", 1)[1]].shape)
        assert (start >= 0).all() and (start + (count - 1) * stride < shape).all()
        assert math.prod(count) == _size(item)
    elif item.get("Format") == "HDF":
        _hdf(item, folder, f, h5name)
    return _size(item)


def check(path: str) -> list[dict]:
    """Parse the sidecar ``path`` (valid XML), check that every array it reads is in the HDF5 file with the
    declared shape and that every grid's fields have one value per point, in the grid's shape; its grids as
    ``{"name", "time", "points", "fields"}``."""
    root = ET.parse(path).getroot()
    assert root.tag == "Xdmf"
    folder = os.path.dirname(path)
    grids = []
    h5names = {i.text.strip().split(":")[0] for i in root.iter("DataItem") if i.get("Format") == "HDF"}
    assert len(h5names) == 1
    h5name = h5names.pop()
    with h5py.File(os.path.join(folder, h5name), "r") as f:
        for g in root.iter("Grid"):
            if g.get("GridType") == "Collection":
                continue
            topology = g.find("Topology")
            scattered = topology.get("TopologyType") == "Polyvertex"  # a point set's vertices
            points = int(topology.get("NumberOfElements")) if scattered else _size(topology)
            geometry = list(g.find("Geometry"))
            if scattered:
                assert len(geometry) == len(g.find("Geometry").get("GeometryType").split("_"))
                assert all(_values(i, folder, f, h5name) == points for i in geometry)
            elif g.find("Geometry").get("GeometryType") == "VXVYVZ":
                assert g.find("Topology").get("TopologyType") == "3DRectMesh"
                assert math.prod(_values(i, folder, f, h5name) for i in geometry) == points
            else:
                assert len(geometry) == int(g.find("Topology").get("TopologyType")[0])
                assert all(_values(i, folder, f, h5name) == points for i in geometry)
            fields = {}
            for a in g.findall("Attribute"):
                assert _values(a.find("DataItem"), folder, f, h5name) == points, a.get("Name")
                # readers (VTK's) take the array's rank from its Dimensions: they must be the grid's
                assert a.find("DataItem").get("Dimensions") == (str(points) if scattered else
                                                                topology.get("Dimensions")), a.get("Name")
                fields[a.get("Name")] = a.find("DataItem")
            time = g.find("Time")
            grids.append({"name": g.get("Name"), "time": None if time is None else float(time.get("Value")),
                          "points": points, "fields": fields})
    return grids


def values(item, f: h5py.File) -> np.ndarray:
    """The values a DataItem reads from ``f``, flat in C order (as a reader of the sidecar gets them)."""
    if item.get("ItemType") != "HyperSlab":
        return f[item.text.strip().split(":", 1)[1]][()].ravel()
    select, data = list(item)
    start, stride, count = (np.array(row.split(), int) for row in select.text.strip().splitlines())
    cut = tuple(slice(a, a + (n - 1) * s + 1, s) for a, s, n in zip(start, stride, count))
    return f[data.text.strip().split(":", 1)[1]][cut].ravel()
