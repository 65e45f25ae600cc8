"""The ``Domain`` protocol (``equations/domain.py``): every member an equation reads off its domain is one the
protocol states, and every PINN geometry answers all of them."""
import ast
import os

import numpy as np
import pytest

from sciml.config import build
from sciml.equations.domain import Domain
from sciml.solvers.pinn.geometry import GEOMETRIES, build_geometry

EQUATIONS = os.path.join(os.path.dirname(__file__), "..", "..", "equations")


def stated() -> set[str]:
    tree = ast.parse(open(os.path.join(EQUATIONS, "domain.py")).read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Domain")
    return {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}


def _on_domain(node) -> bool:
    """``domain``, ``x.domain`` or a domain's ``space`` (``domain.space``, ``eq.domain.space``)."""
    if isinstance(node, ast.Name):
        return node.id == "domain"
    if isinstance(node, ast.Attribute):
        return node.attr == "domain" or (node.attr == "space" and _on_domain(node.value))
    return False


def asked() -> dict[str, set[str]]:
    """``{member: files}`` of every ``<domain>.member`` read in ``equations/``."""
    out: dict[str, set[str]] = {}
    for here, _, names in os.walk(EQUATIONS):
        for name in names:
            if name.endswith(".py") and name != "domain.py":
                path = os.path.join(here, name)
                for n in ast.walk(ast.parse(open(path).read())):
                    if isinstance(n, ast.Attribute) and _on_domain(n.value):
                        out.setdefault(n.attr, set()).add(os.path.relpath(path, EQUATIONS))
    return out


def test_the_equations_ask_their_domain_only_what_the_protocol_states():
    members, reads = stated(), asked()
    assert {"bounds", "coords", "space", "time", "sphere"} <= set(reads)  # the scan sees the reads
    unstated = {m: sorted(f) for m, f in reads.items() if m not in members}
    assert not unstated, f"read off a domain but not in equations/domain.py:Domain: {unstated}"


SECTIONS = [
    {"type": "rectangle", "x": [0, 2], "y": [0, 1], "holes": [{"center": [0.5, 0.5], "radius": 0.1,
                                                               "name": "cylinder"}], "parts": {"walls": ["top", "bottom"]}},
    {"type": "rectangle", "x": [0, 1], "y": [0, 1], "time": [0, 1]},
    {"type": "box", "x": [0, 1], "y": [0, 1], "z": [0, 1]},
    {"type": "disk", "radius": 1.0, "time": [0, 0.5]},
    {"type": "ball", "dim": 5, "test_points": 16},
    {"type": "polygon", "vertices": [[0, 0], [1, 0], [1, 0.5], [0.5, 0.5], [0.5, 1], [0, 1]],
     "holes": [{"vertices": [[0.1, 0.1], [0.3, 0.1], [0.2, 0.3]]}, {"center": [0.7, 0.2], "radius": 0.1}]},
    {"type": "mesh", "path": os.path.join(os.path.dirname(__file__), "..", "..", "cases", "parts", "bracket.stl"),
     "select": {"base": {"normal": [0, 0, -1]}}, "time": [0, 1]},
    {"type": "csg", "op": "difference", "parts": [{"type": "box", "x": [0, 1], "y": [0, 1], "z": [0, 1]},
                                                  {"type": "disk", "center": [0.5, 0.5, 1.0], "radius": 0.3}]},
    {"type": "extrude", "z": [0, 0.5], "polygon": {"vertices": [[0, 0], [1, 0], [0.5, 1]],
                                                  "holes": [{"center": [0.5, 0.3], "radius": 0.1}]}},
    {"type": "csg", "op": "union", "time": [0, 1], "parts": [{"type": "rectangle", "x": [0, 1], "y": [0, 1]},
                                                             {"type": "disk", "center": [1, 0.5], "radius": 0.3}]},
]


@pytest.mark.parametrize("raw", SECTIONS, ids=lambda r: r["type"] + ("+time" if "time" in r else ""))
def test_every_pinn_geometry_is_a_domain(raw):
    assert {r["type"] for r in SECTIONS} == set(GEOMETRIES)
    domain = build_geometry(build(GEOMETRIES[raw["type"]][0], raw))
    assert isinstance(domain, Domain) and isinstance(domain.space, Domain)
    part = domain.parts[0]
    pts, normals = domain.boundary(part, 8, np.random.default_rng(0))
    assert pts.shape == normals.shape == (8, len(domain.coords)) and domain.contains(pts, 1e-9).all()
    assert domain.measure(part) > 0 and set(domain.parts) == set(domain.groups)
    assert all(p in domain.pieces for group in domain.groups.values() for p in group)
