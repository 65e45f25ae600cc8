"""The 3-D heat reference (solvers/classical/fem/heat.py): Gmsh's tetrahedra of a closed surface (the shipped
bracket: its volume and its faces' areas by part), the P2 error's order O(h^3) in L2 on a manufactured solution in
the unit cube with a temperature, a flux and a source, the bracket's reference settling, and bad conditions.
The measured numbers: docs/notes/fem_reference.md."""
import os
import sys

import numpy as np
import pytest

pytest.importorskip("skfem")
pytest.importorskip("gmsh")
pytest.importorskip("trimesh")

import skfem  # noqa: E402
import trimesh  # noqa: E402

from sciml.solvers.classical.fem import heat  # noqa: E402
from sciml.solvers.pinn.geometry.mesh import read  # noqa: E402

BRACKET = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cases", "parts", "bracket.stl")
K = 2.0


def cube():
    box = trimesh.creation.box(extents=[1, 1, 1])
    box.apply_translation([0.5, 0.5, 0.5])
    return np.asarray(box.vertices), np.asarray(box.faces)


def exact(x, y, z):
    return np.sin(np.pi * x) * np.cos(np.pi * y / 2) * np.exp(z)


def source(x, y, z):  # -k Δu
    return K * (np.pi**2 + np.pi**2 / 4 - 1.0) * exact(x, y, z)


def cube_parts(c):  # the top face z = 1 takes a flux, the left x = 0 and the rest a temperature
    return np.where(c[:, 2] > 1 - 1e-9, "top", np.where(c[:, 0] < 1e-9, "left", "rest"))


def bracket_parts(c):  # the bracket scaled by 0.05: the end faces y = 2 and x = 2
    return np.where(c[:, 1] > 2 - 1e-9, "hot", np.where(c[:, 0] > 2 - 1e-9, "cold", "rest"))


def facet_areas(m, facets):
    a, b, c = (m.p[:, m.facets[i, facets]] for i in range(3))
    return 0.5 * np.linalg.norm(np.cross(b - a, c - a, axis=0), axis=0)


def test_bracket_mesh_fills_the_part_and_its_parts_cover_their_faces():
    vertices, faces = read(BRACKET, 0.05)
    m = heat.tetrahedra(vertices, faces, 0.2)
    volume = skfem.Functional(lambda w: 1.0 + 0.0 * w.x[0]).assemble(skfem.Basis(m, skfem.ElementTetP1()))
    np.testing.assert_allclose(volume, 2 * 2 * 0.5 - 1 * 1 * 0.5, rtol=1e-12)
    parts = heat.facets_by_part(m, bracket_parts)
    assert set(parts) == {"hot", "cold", "rest"}
    np.testing.assert_allclose([facet_areas(m, parts[p]).sum() for p in ("hot", "cold")], [0.5, 0.5], rtol=1e-12)
    assert np.all(np.abs(m.p[:, m.facets[:, parts["hot"]]][1] - 2.0) < 1e-12)  # on the face itself
    assert np.all(m.f2t[1, m.boundary_facets()] == -1)  # boundary facets have one element, as for a closed part


def test_p2_error_falls_as_h_cubed():
    vertices, faces = cube()
    conditions = {"top": ("flux", lambda x, y, z: K * exact(x, y, z)), "left": ("temperature", exact),
                  "rest": ("temperature", exact)}
    sizes, errors = [], []
    for h in (0.25, 0.18, 0.125, 0.09):
        m = heat.tetrahedra(vertices, faces, h)
        sol = heat.conduction(m, heat.facets_by_part(m, cube_parts), conditions, K, source)
        square = skfem.Functional(lambda w: (w["u"] - exact(*w.x)) ** 2)
        norm = skfem.Functional(lambda w: exact(*w.x) ** 2).assemble(sol.basis)
        errors.append(np.sqrt(square.assemble(sol.basis, u=sol.basis.interpolate(sol.u)) / norm))
        sizes.append(m.t.shape[1] ** (-1 / 3))  # the mean element's side, up to a constant
    order = np.polyfit(np.log(sizes), np.log(errors), 1)[0]
    assert 2.7 < order < 3.6, (order, errors)  # measured 3.1
    assert errors[-1] < 4e-4  # measured 2.1e-4 (6728 tetrahedra)
    points = np.array([[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.3, 0.9, 1.0]])
    np.testing.assert_allclose(sol.fields(points)["u"], exact(*points.T), atol=2e-3)


def test_bracket_reference_settles_between_its_two_temperatures():
    vertices, faces = read(BRACKET, 0.05)
    points = np.array([[0.5, 1.9, 0.25], [1.9, 0.5, 0.25], [0.5, 0.5, 0.25], [0.2, 0.2, 0.0], [1.0, 1.0, 0.5]])
    conditions = {"hot": ("temperature", 1.0), "cold": ("temperature", 0.0), "rest": ("flux", 0.0)}
    fields, info = heat.reference(vertices, faces, bracket_parts, conditions, 1.0, points, rtol=2e-3)
    assert info["changes"][-1] < 2e-3 and len(info["h"]) == len(info["elements"]) == len(info["changes"]) + 1
    u = fields["u"]
    assert np.all((u > 0) & (u < 1)) and u[0] > u[2] > u[1]
    np.testing.assert_allclose(u[2], 0.5, atol=1e-3)  # the L is symmetric about x = y, the ends at 1 and 0


@pytest.mark.parametrize("conditions,message", [
    ({"top": ("flux", 0.0), "left": ("temperature", 0.0)}, "no condition for part(s) ['rest']"),
    ({"top": ("flux", 0.0), "left": ("temperature", 0.0), "rest": ("flux", 0.0), "x": ("flux", 0.0)},
     "condition(s) for part(s) ['x'] that the mesh does not have"),
    ({"top": ("flux", 0.0), "left": ("heat", 0.0), "rest": ("flux", 0.0)}, "unknown condition 'heat'"),
    ({"top": ("flux", 0.0), "left": ("flux", 1.0), "rest": ("flux", 0.0)}, "no part is held at a temperature"),
])
def test_bad_conditions_name_the_problem(conditions, message):
    vertices, faces = cube()
    m = heat.tetrahedra(vertices, faces, 0.5)
    with pytest.raises(ValueError) as err:
        heat.conduction(m, heat.facets_by_part(m, cube_parts), conditions, 1.0)
    assert message in str(err.value)


def test_without_gmsh_the_mesher_names_the_extra_in_one_line(monkeypatch):
    from sciml.errors import MissingExtra, UserError

    monkeypatch.setitem(sys.modules, "gmsh", None)  # `import gmsh` raises ImportError
    with pytest.raises(MissingExtra, match=r"needs the optional extra 'fem' \(pip install 'sciml\[fem\]'\)") as info:
        with heat._gmsh():
            pass
    assert isinstance(info.value, UserError) and isinstance(info.value, ImportError)
    assert "\n" not in str(info.value)
