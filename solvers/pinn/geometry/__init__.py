"""Geometry for collocation: the case file's ``geometry`` section and the domains it builds.

``type``: ``rectangle`` (2D), ``box`` (3D), ``disk`` (2D; 3D a solid ball), ``polygon`` (2D, any simple polygon, its
edges named by index, :mod:`.polygon`), ``ball`` (any dimension ``dim``, :mod:`.ball`), ``mesh`` (3D, the inside
of a closed triangle mesh from a file, its faces named by selectors, :mod:`.mesh`), ``csg`` (the union, difference
or intersection of other sections, its parts ``<name>.<part>``, :mod:`.csg`) or ``extrude`` (3D, a polygon times
``[z0, z1]``, parts ``bottom``, ``top`` and the polygon's as walls, :mod:`.extrude`); rectangles, boxes and disks
may have circular or spherical ``holes`` (boolean difference), polygons circular, polygonal or airfoil ones
(``naca``, :mod:`.airfoil`); ``time: [t0, t1]`` makes the domain space-time (coordinate ``t``, new part
``initial``); ``parts`` regroups and renames boundary parts, e.g. ``parts: {lid: [top], walls: [left, right,
bottom]}``. Domains and samplers live in :mod:`.domain`, :mod:`.shapes`, :mod:`.polygon`, :mod:`.spacetime` and
:mod:`.sampling`; this module holds the schema and the registry.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from sciml.config import build, spec
from sciml.config.schema import Registry
from sciml.errors import Invalid

from .airfoil import naca4
from .ball import Ball
from .csg import Csg
from .domain import Domain, EvalPoints, Piece
from .extrude import Extrusion
from .mesh import Mesh, read
from .polygon import Polygon
from .sampling import Method, draw, unit_cube
from .shapes import Box, Disk, Rectangle
from .spacetime import SpaceTime


@dataclass
class HoleConfig:
    """A circular (2D) or spherical (3D) hole."""

    center: list[float] = spec(help="centre, one number per coordinate")
    radius: float = spec(gt=0.0, help="radius")
    name: str = spec("hole", help="name of its boundary part")


def _interval(cfg, name):
    lo, hi = getattr(cfg, name)
    if not hi > lo:
        raise Invalid(name, f"needs {name}0 < {name}1, got [{lo}, {hi}]")


def _check_box(cfg, axes: tuple[str, ...]):
    """Intervals and hole centres of a rectangle or box, then the domain built once (holes, part names and
    the time interval raise :class:`Invalid` naming the key)."""
    for name in axes:
        _interval(cfg, name)
    for i, h in enumerate(cfg.holes):
        if len(h.center) != len(axes):
            raise Invalid(f"holes[{i}].center", f"expected [{', '.join(axes)}], got {h.center}")
    build_geometry(cfg)


def _holes(cfg):
    return [(h.center, h.radius, h.name) for h in cfg.holes]


@dataclass
class RectangleConfig:
    """Case-file section ``geometry`` for ``type: rectangle``: ``[x0, x1] × [y0, y1]`` minus holes."""

    type: Literal["rectangle"]
    x: tuple[float, float] = spec(help="[x0, x1]")
    y: tuple[float, float] = spec(help="[y0, y1]")
    holes: list[HoleConfig] = spec(factory=list, help="circular holes")
    parts: dict[str, list[str]] = spec(factory=dict, help="named groups of edges, e.g. {walls: [left, right]}")
    time: tuple[float, float] | None = spec(None, help="[t0, t1]: a space-time domain")

    def check(self):
        _check_box(self, ("x", "y"))


@dataclass
class BoxConfig:
    """``type: box``: ``[x0, x1] × [y0, y1] × [z0, z1]`` minus spherical holes."""

    type: Literal["box"]
    x: tuple[float, float] = spec(help="[x0, x1]")
    y: tuple[float, float] = spec(help="[y0, y1]")
    z: tuple[float, float] = spec(help="[z0, z1]")
    holes: list[HoleConfig] = spec(factory=list, help="spherical holes")
    parts: dict[str, list[str]] = spec(factory=dict, help="named groups of faces")
    time: tuple[float, float] | None = spec(None, help="[t0, t1]: a space-time domain")

    def check(self):
        _check_box(self, ("x", "y", "z"))


@dataclass
class DiskConfig:
    """``type: disk``: the disk of ``radius`` around ``center`` (boundary part ``circle``), or with ``center: [x, y,
    z]`` the solid ball (boundary part ``sphere``)."""

    type: Literal["disk"]
    center: list[float] = spec(factory=lambda: [0.0, 0.0], help="[x, y], or [x, y, z]: a solid ball")
    radius: float = spec(1.0, gt=0.0)
    holes: list[HoleConfig] = spec(factory=list, help="circular holes")
    parts: dict[str, list[str]] = spec(factory=dict, help="named groups of parts")
    time: tuple[float, float] | None = spec(None, help="[t0, t1]: a space-time domain")

    def check(self):
        if len(self.center) not in (2, 3):
            raise Invalid("center", f"expected [x, y] (a disk) or [x, y, z] (a solid ball), got {self.center}")
        build_geometry(self)


@dataclass
class NacaConfig:
    """A NACA four-digit profile as a polygon (:mod:`.airfoil`)."""

    digits: str = spec("0012", help="the four digits MPTT, quoted: camber M %, at P tenths, thickness TT %")
    chord: float = spec(1.0, gt=0.0, help="the chord length")
    angle: float = spec(0.0, help="the angle of attack in degrees, nose up against a flow along +x")
    leading_edge: tuple[float, float] = spec((0.0, 0.0), help="where the leading edge lies [x, y]")
    points: int = spec(64, help="intervals along each surface (cosine spacing): 2 points corners")

    def check(self):
        naca4(self.digits, self.chord, self.angle, self.leading_edge, self.points)


@dataclass
class PolygonHoleConfig:
    """A hole in a polygon: a polygon (``vertices``), a circle (``center``, ``radius``) or an airfoil (``naca``)."""

    vertices: list[tuple[float, float]] | None = spec(None, help="its corners [x, y] in order")
    center: tuple[float, float] | None = spec(None, help="a circle's centre [x, y]")
    radius: float | None = spec(None, gt=0.0, help="a circle's radius")
    naca: NacaConfig | None = spec(None, help="a NACA four-digit profile: {digits: '0012', chord, angle, "
                                              "leading_edge, points}")
    name: str = spec("hole", help="name of its boundary part")

    def check(self):
        if sum(k is not None for k in (self.vertices, self.center, self.naca)) != 1:
            raise Invalid("vertices", "give a hole either vertices (a polygon), center and radius (a circle) or "
                                      "naca (an airfoil)")
        if (self.center is None) != (self.radius is None):
            raise Invalid("radius" if self.radius is None else "center", "a circular hole needs center and radius")

    def spec(self) -> tuple:
        if self.naca is not None:
            n = self.naca
            return naca4(n.digits, n.chord, n.angle, n.leading_edge, n.points), self.name
        return (self.center, self.radius, self.name) if self.vertices is None else (self.vertices, self.name)


@dataclass
class PolygonConfig:
    """``type: polygon``: any simple polygon minus holes; edge ``i`` (vertex ``i`` to ``i + 1``) is the part
    ``edge<i>``, or the part ``names[i]`` (:mod:`.polygon`)."""

    type: Literal["polygon"]
    vertices: list[tuple[float, float]] = spec(help="the corners [x, y] in order, either way round")
    names: list[str] | None = spec(None, help="each edge's part, in order (default: edge0, edge1, ...)")
    holes: list[PolygonHoleConfig] = spec(factory=list, help="polygonal {vertices} or circular {center, radius} "
                                                             "holes")
    parts: dict[str, list[str]] = spec(factory=dict, help="named groups of parts, e.g. {clamped: [edge0, edge1]}")
    time: tuple[float, float] | None = spec(None, help="[t0, t1]: a space-time domain")

    def check(self):
        build_geometry(self)


@dataclass
class BallConfig:
    """``type: ball``: the ball of ``radius`` around the origin in ``dim`` dimensions (coordinates ``x1 … xd``,
    boundary part ``sphere``), evaluated on ``test_points`` held-out points (:mod:`.ball`)."""

    type: Literal["ball"]
    dim: int = spec(ge=1, help="dimension d")
    radius: float = spec(1.0, gt=0.0)
    test_points: int = spec(10000, ge=1, help="held-out points the errors are measured on (at most 10⁸ coordinates: "
                                                  "1000 points at dim 100000)")
    parts: dict[str, list[str]] = spec(factory=dict, help="named groups of parts")
    time: tuple[float, float] | None = spec(None, help="not supported: the ball has no time axis")

    def check(self):
        if self.time is not None:
            raise Invalid("time", "the ball in d dimensions is a spatial domain only (no time axis)")


@dataclass
class MeshConfig:
    """``type: mesh``: the inside of a closed triangle mesh read from a file (STL, OBJ, PLY, OFF), its faces
    grouped into parts by selectors (:mod:`.mesh`)."""

    type: Literal["mesh"]
    path: str = spec(help="the mesh file, relative to the working directory (trimesh reads it: pip install "
                          "'sciml[mesh]')")
    scale: float = spec(1.0, gt=0.0, help="factor on the file's coordinates (0.001: drawn in mm, solved in m)")
    select: dict[str, dict[str, Any]] = spec(factory=dict, help="named groups of faces, each {normal: [nx, ny, nz], "
                                                                "angle: 10} or {where: 'z < 0.001'} (at the face's "
                                                                "centroid); the rest is the part surface")
    parts: dict[str, list[str]] = spec(factory=dict, help="named groups of parts")
    time: tuple[float, float] | None = spec(None, help="[t0, t1]: a space-time domain")

    def check(self):
        build_geometry(self)


@dataclass
class CsgConfig:
    """``type: csg``: the ``union``, ``intersection`` or ``difference`` (the first minus the rest) of ``parts``,
    each a geometry section with an optional ``name`` (default ``a``, ``b``, …); boundary parts
    ``<name>.<part>`` (:mod:`.csg`)."""

    type: Literal["csg"]
    op: Literal["union", "intersection", "difference"] = spec(help="the operation; difference: the first part "
                                                                   "minus the others")
    parts: list[dict[str, Any]] = spec(help="the geometry sections combined, each with an optional name")
    groups: dict[str, list[str]] = spec(factory=dict, help="named groups of parts, e.g. {walls: [plate.left, "
                                                           "plate.right]}")
    time: tuple[float, float] | None = spec(None, help="[t0, t1]: a space-time domain")

    def check(self):
        build_geometry(self)

    def children(self) -> list[tuple[str, Domain]]:
        """The named parts, each built and checked as a geometry section (errors at ``parts[i]...``)."""
        if not self.parts:
            raise Invalid("parts", "needs at least one geometry section")
        out = []
        for i, raw in enumerate(self.parts):
            section = {k: v for k, v in raw.items() if k != "name"}
            if "time" in section:
                raise Invalid(f"parts[{i}].time", "give time on the csg section, not on its parts")
            if section.get("type") == "ball":
                raise Invalid(f"parts[{i}].type", "a ball in d dimensions has coordinates x1 … xd; a csg part in 3-D "
                                                  "is a disk with center [x, y, z]")
            cfg = build(PartConfig, section, f"parts[{i}]")
            name = raw.get("name", NAMES[i] if i < len(NAMES) else f"p{i}")
            if not isinstance(name, str) or not name:
                raise Invalid(f"parts[{i}].name", f"expected a name, got {name!r}")
            out.append((name, build_geometry(cfg)))
        return out


@dataclass
class ExtrudeConfig:
    """``type: extrude``: a polygon section (its ``vertices``, ``names``, ``holes``, ``parts``; no ``type``) times
    ``z: [z0, z1]``, a prism with parts ``bottom``, ``top`` and the polygon's parts as its walls (:mod:`.extrude`)."""

    type: Literal["extrude"]
    polygon: dict[str, Any] = spec(help="the plane section: {vertices: [[x, y], ...], names: [...], holes: [...]}, "
                                        "as a polygon geometry's keys")
    z: tuple[float, float] = spec(help="[z0, z1]: the extrusion's interval")
    parts: dict[str, list[str]] = spec(factory=dict, help="named groups of parts, e.g. {walls: [edge0, edge1]}")
    time: tuple[float, float] | None = spec(None, help="[t0, t1]: a space-time domain")

    def check(self):
        _interval(self, "z")
        build_geometry(self)

    def section(self) -> Polygon:
        """The plane polygon, built and checked as a polygon section (errors at ``polygon...``)."""
        raw = dict(self.polygon)
        for key in ("type", "time"):
            if key in raw:
                raise Invalid(f"polygon.{key}", "the extruded section is a polygon in the plane: leave out "
                                                f"{key}" + (" (give time on the extrude section)" if key == "time"
                                                            else ""))
        polygon = build_geometry(build(PolygonConfig, {"type": "polygon", **raw}, "polygon"))
        assert isinstance(polygon, Polygon), "a polygon section without time builds a Polygon"
        return polygon


NAMES = "abcdefghijklmnopqrstuvwxyz"  # a csg's parts without a name


def _with_time(space: Domain, cfg) -> Domain:
    return SpaceTime(space, cfg.time) if cfg.time is not None else space


# type -> (config class, builder from the config)
GEOMETRIES = {
    "rectangle": (RectangleConfig, lambda c: _with_time(Rectangle(c.x, c.y, _holes(c), c.parts), c)),
    "box": (BoxConfig, lambda c: _with_time(Box(c.x, c.y, c.z, _holes(c), c.parts), c)),
    "disk": (DiskConfig, lambda c: _with_time(Disk(c.center, c.radius, _holes(c), c.parts), c)),
    "polygon": (PolygonConfig, lambda c: _with_time(Polygon(c.vertices, [h.spec() for h in c.holes], c.names,
                                                            c.parts), c)),
    "ball": (BallConfig, lambda c: Ball(c.dim, c.radius, c.parts, c.test_points)),
    "mesh": (MeshConfig, lambda c: _with_time(Mesh(*read(c.path, c.scale), c.select, c.parts), c)),
    "csg": (CsgConfig, lambda c: _with_time(Csg(c.op, c.children(), c.groups), c)),
    "extrude": (ExtrudeConfig, lambda c: _with_time(Extrusion(c.section(), c.z, c.parts), c)),
}
PartConfig = Annotated[object, Registry(GEOMETRIES)]  # a csg's part: any registered kind
if TYPE_CHECKING:  # mypy cannot read a union built at run time: the same union, written out
    GeometryConfig = (RectangleConfig | BoxConfig | DiskConfig | PolygonConfig | BallConfig | MeshConfig
                      | CsgConfig | ExtrudeConfig)
else:  # the union of the registered kinds, built from the table (`|` cannot spread a tuple)
    GeometryConfig = Union[tuple(cfg for cfg, _ in GEOMETRIES.values())]  # noqa: UP007


def build_geometry(cfg) -> Domain:
    """The domain described by a geometry config."""
    return GEOMETRIES[cfg.type][1](cfg)


__all__ = ["GEOMETRIES", "Ball", "BallConfig", "Box", "BoxConfig", "Csg", "CsgConfig", "Disk", "DiskConfig", "Domain",
           "EvalPoints", "ExtrudeConfig", "Extrusion", "GeometryConfig",
           "HoleConfig", "Mesh", "MeshConfig", "Method", "Piece", "Polygon",
           "PolygonConfig", "Rectangle", "RectangleConfig", "SpaceTime", "build_geometry", "draw", "unit_cube"]
