"""Write `bracket.stl` beside this script: an L-shaped bracket, the L outline below extruded 10 units in z
(ASCII STL, outward normals, 20 triangles), the part that the mesh-domain examples and tests read; and
`bracket_fillet.stl`, the same bracket with its inner edge rounded (a fillet of radius 5 in 8 facets, 52 triangles),
the part of the heat case.

    python cases/parts/make_bracket.py

The outline is listed from a corner that sees every other corner (the re-entrant one of the sharp L, the outer
corner at the origin of the filleted one), so a fan of triangles from it covers the L (top and bottom faces); each
edge of the outline gives two side triangles.

Why a fillet for heat: at the sharp inner edge (interior angle 3 pi / 2) the temperature goes as r^(2/3), and a
PINN with new points every few hundred steps still missed the goal (rel-L2 1.4e-2 against the finite elements,
with 1000 more points round the edge); the rounded edge's temperature is smooth (4.5e-3: docs/notes/fem_reference.md).
"""
from __future__ import annotations

import os

import numpy as np

OUTLINE = [(20.0, 20.0), (20.0, 40.0), (0.0, 40.0), (0.0, 0.0), (40.0, 0.0), (40.0, 20.0)]  # counter-clockwise
HEIGHT = 10.0
FILLET = (5.0, 8)  # radius and facets of the rounded inner edge of bracket_fillet.stl


def filleted(radius: float = FILLET[0], segments: int = FILLET[1]) -> list[tuple[float, float]]:
    """The L outline from the origin, counter-clockwise, its re-entrant corner (20, 20) replaced by a quarter circle
    of ``radius`` about (20 + radius, 20 + radius) in ``segments`` facets."""
    angles = np.radians(np.linspace(270.0, 180.0, segments + 1))
    arc = [(20.0 + radius + radius * np.cos(a), 20.0 + radius + radius * np.sin(a)) for a in angles]
    return [(0.0, 0.0), (40.0, 0.0), (40.0, 20.0), *arc, (20.0, 40.0), (0.0, 40.0)]


def bracket(outline=OUTLINE, height: float = HEIGHT) -> np.ndarray:
    """The triangles ``(F, 3, 3)`` of the extruded outline, each wound counter-clockwise seen from outside."""
    xy = np.asarray(outline, float)
    n = len(xy)
    low, high = (np.column_stack([xy, np.full(n, z)]) for z in (0.0, height))
    fan = [(0, i, i + 1) for i in range(1, n - 1)]
    tris = [high[[a, b, c]] for a, b, c in fan] + [low[[a, c, b]] for a, b, c in fan]
    for i in range(n):
        j = (i + 1) % n
        tris += [np.array([low[i], low[j], high[j]]), np.array([low[i], high[j], high[i]])]
    return np.array(tris)


def stl(triangles: np.ndarray, name: str = "bracket") -> str:
    """ASCII STL text of ``triangles``."""
    lines = [f"solid {name}"]
    for t in triangles:
        normal = np.cross(t[1] - t[0], t[2] - t[0])
        normal /= np.linalg.norm(normal)
        lines += [f"  facet normal {normal[0]:.6g} {normal[1]:.6g} {normal[2]:.6g}", "    outer loop",
                  *(f"      vertex {p[0]:.6g} {p[1]:.6g} {p[2]:.6g}" for p in t), "    endloop", "  endfacet"]
    return "\n".join([*lines, f"endsolid {name}", ""])


if __name__ == "__main__":
    for name, outline in (("bracket", OUTLINE), ("bracket_fillet", filleted())):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.stl")
        with open(path, "w", encoding="ascii") as fh:
            fh.write(stl(bracket(outline), name))
        print(f"wrote {path}")
