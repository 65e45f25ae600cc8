"""Write `bracket.stl` beside this script: an L-shaped bracket, the L outline below extruded 10 units in z
(ASCII STL, outward normals, 20 triangles), the part that the mesh-domain examples and tests read.

    python cases/parts/make_bracket.py

The outline is listed from its re-entrant corner, which sees every other corner, so a fan of triangles from it
covers the L (top and bottom faces); each edge of the outline gives two side triangles.
"""
from __future__ import annotations

import os

import numpy as np

OUTLINE = [(20.0, 20.0), (20.0, 40.0), (0.0, 40.0), (0.0, 0.0), (40.0, 0.0), (40.0, 20.0)]  # counter-clockwise
HEIGHT = 10.0


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
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bracket.stl")
    with open(path, "w", encoding="ascii") as fh:
        fh.write(stl(bracket()))
    print(f"wrote {path}")
