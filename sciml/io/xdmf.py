"""XDMF sidecars: the small XML file beside an HDF5 file that lets ParaView (or VisIt) open its fields directly.

The sidecar (XDMF 2, ParaView's "Xdmf Reader" and "XDMF Reader") describes structured :class:`Grid` s whose
arrays stay in the HDF5 file. A grid has a shape of 1 to 3 axes, the coordinates of its points and fields on
its points; each array is a :class:`Slab`: a whole dataset, or the part of one where some axes are held at an
index (a time level, a sample, a channel), which the sidecar writes as an XDMF hyperslab
(start / stride / count per axis of the dataset).

- 2 or 3 axes: a ``2DSMesh`` / ``3DSMesh`` with one coordinate array per axis (``X_Y`` / ``X_Y_Z``): every
  point carries its own position, so a grid stored with ``x`` varying slowest (``indexing="ij"``) is placed
  right;
- 1 axis: a ``3DRectMesh`` of 1 × 1 × n points along ``x``;
- scattered points (``Grid.scattered``, one axis of n points, 2 or 3 coordinates: an unstructured mesh's
  nodes): a ``Polyvertex`` of n vertices at ``X_Y`` / ``X_Y_Z``.

Grids with a ``time`` form a temporal collection (ParaView's time slider steps through them); others stand
side by side in the domain.
"""
from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .atomic import write_text

# numpy kind -> XDMF NumberType (a 1-byte unsigned integer or boolean is a UChar)
_NUMBER = {"f": "Float", "i": "Int", "u": "UInt", "b": "UChar"}


@dataclass(frozen=True)
class Slab:
    """Dataset ``path`` (of ``shape`` and ``dtype``) with the axes in ``held`` held at an index (axis -> index)."""

    path: str
    shape: tuple[int, ...]
    dtype: np.dtype
    held: Mapping[int, int] = field(default_factory=dict)

    @property
    def count(self) -> tuple[int, ...]:
        """Points taken along each axis of the dataset (1 on a held axis)."""
        return tuple(1 if a in self.held else n for a, n in enumerate(self.shape))


@dataclass(frozen=True)
class Grid:
    """A structured grid of ``shape``: ``coords`` (one slab per axis, x first) and ``fields`` (name -> slab),
    each slab holding one value per point; ``time``: the time level it shows, if any."""

    name: str
    shape: tuple[int, ...]
    coords: Sequence[Slab]
    fields: Mapping[str, Slab]
    time: float | None = None
    scattered: bool = False  # one axis of points, each at its 2 or 3 coordinates (not a structured grid)

    def __post_init__(self):
        points = math.prod(self.shape)
        wrong = [s.path for s in [*self.coords, *self.fields.values()] if math.prod(s.count) != points]
        axes = (len(self.shape) == 1 and len(self.coords) in (2, 3)) if self.scattered \
            else 1 <= len(self.shape) <= 3 and len(self.coords) == len(self.shape)
        if not axes or wrong:
            raise ValueError(f"grid {self.name!r} of shape {self.shape}: {len(self.coords)} coordinates; "
                             f"slabs of another size: {wrong}")


def _dims(shape) -> str:
    return " ".join(str(n) for n in shape)


def _item(h5: str, slab: Slab, dims: tuple[int, ...]) -> ET.Element:
    """The DataItem reading ``slab`` from file ``h5`` as an array of shape ``dims`` (of as many values): the
    dataset itself if that is its shape, else a hyperslab of it (readers take an array's rank from its
    ``Dimensions``, which must be the grid's)."""
    dtype = np.dtype(slab.dtype)
    data = ET.Element("DataItem", Format="HDF", NumberType=_NUMBER[dtype.kind], Precision=str(dtype.itemsize),
                      Dimensions=_dims(slab.shape))
    data.text = f"{h5}:{slab.path}"
    if not slab.held and tuple(dims) == tuple(slab.shape):
        return data
    start = [slab.held.get(a, 0) for a in range(len(slab.shape))]
    cut = ET.Element("DataItem", ItemType="HyperSlab", Type="HyperSlab", Dimensions=_dims(dims))
    select = ET.SubElement(cut, "DataItem", Format="XML", Dimensions=f"3 {len(slab.shape)}")
    select.text = "\n".join(_dims(v) for v in (start, [1] * len(start), slab.count))
    cut.append(data)
    return cut


def _grid(h5: str, grid: Grid) -> ET.Element:
    g = ET.Element("Grid", Name=grid.name, GridType="Uniform")
    if grid.time is not None:
        ET.SubElement(g, "Time", Value=repr(float(grid.time)))
    dims = (1, 1, grid.shape[0]) if len(grid.shape) == 1 and not grid.scattered else grid.shape
    if grid.scattered:
        ET.SubElement(g, "Topology", TopologyType="Polyvertex", NumberOfElements=str(grid.shape[0]),
                      NodesPerElement="1")
        geometry = ET.SubElement(g, "Geometry", GeometryType="X_Y" if len(grid.coords) == 2 else "X_Y_Z")
        for c in grid.coords:
            geometry.append(_item(h5, c, dims))
    elif len(grid.shape) == 1:
        ET.SubElement(g, "Topology", TopologyType="3DRectMesh", Dimensions=_dims(dims))
        geometry = ET.SubElement(g, "Geometry", GeometryType="VXVYVZ")
        geometry.append(_item(h5, grid.coords[0], grid.shape))
        for _ in "yz":
            zero = ET.SubElement(geometry, "DataItem", Format="XML", NumberType="Float", Dimensions="1")
            zero.text = "0"
    else:
        ET.SubElement(g, "Topology", TopologyType=f"{len(grid.shape)}DSMesh", Dimensions=_dims(grid.shape))
        geometry = ET.SubElement(g, "Geometry", GeometryType="X_Y" if len(grid.shape) == 2 else "X_Y_Z")
        for c in grid.coords:
            geometry.append(_item(h5, c, dims))
    for name, slab in grid.fields.items():
        ET.SubElement(g, "Attribute", Name=name, AttributeType="Scalar", Center="Node").append(_item(h5, slab, dims))
    return g


def document(h5: str, grids: Sequence[Grid]) -> str:
    """The XDMF text for ``grids`` whose slabs are datasets of the HDF5 file ``h5`` (a path relative to the
    sidecar, usually its bare name)."""
    root = ET.Element("Xdmf", Version="2.0")
    domain = ET.SubElement(root, "Domain")
    if grids and all(g.time is not None for g in grids):
        parent = ET.SubElement(domain, "Grid", Name="time levels", GridType="Collection", CollectionType="Temporal")
    else:
        parent = domain
    for g in grids:
        parent.append(_grid(h5, g))
    ET.indent(root)
    return '<?xml version="1.0" ?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write(h5_path: str, grids: Sequence[Grid]) -> str:
    """Write (atomically) the sidecar of ``grids`` in ``h5_path`` beside it, ``NAME.h5`` -> ``NAME.xdmf``;
    returns its path."""
    path = os.path.splitext(h5_path)[0] + ".xdmf"
    write_text(path, document(os.path.basename(h5_path), grids))
    return path
