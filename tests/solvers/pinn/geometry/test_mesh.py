"""Mesh domains (solvers/pinn/geometry/mesh.py): the shipped bracket's inside against the L-prism it is drawn
from, points on its parts on the surface with the faces' normals and spread by area, selectors, and bad meshes
named in one line (exit 2 through the command line)."""
import os
import sys

import numpy as np
import pytest

from sciml.cli import main
from sciml.config import build
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import GeometryConfig, build_geometry, mesh

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
BRACKET = os.path.join(ROOT, "cases", "parts", "bracket.stl")
SELECT = {"base": {"normal": [0, 0, -1]}, "top": {"where": "z > 0.0099"}}


def bracket(**cfg):
    return build_geometry(build(GeometryConfig, {"type": "mesh", "path": BRACKET, "scale": 0.001, **cfg}))


def in_prism(p, tol=0.0):
    """The L-prism the bracket is drawn from (cases/parts/make_bracket.py), in metres (``tol``: its faces'
    rounding)."""
    x, y, z = np.asarray(p).T + tol
    x0, y0, z0 = np.asarray(p).T - tol
    return ((((x0 <= 0.02) & (y0 <= 0.04)) | ((y0 <= 0.02) & (x0 <= 0.04))) & (x >= 0) & (y >= 0) & (z >= 0)
            & (z0 <= 0.01))


def test_the_shipped_file_is_what_its_script_writes():
    sys.path.insert(0, os.path.dirname(BRACKET))
    try:
        import make_bracket
    finally:
        sys.path.pop(0)
    with open(BRACKET) as fh:
        assert fh.read() == make_bracket.stl(make_bracket.bracket())
    with open(os.path.join(os.path.dirname(BRACKET), "bracket_fillet.stl")) as fh:  # the heat case's part
        assert fh.read() == make_bracket.stl(make_bracket.bracket(make_bracket.filleted()), "bracket_fillet")


def test_inside_is_the_prism_and_the_volume_its_own():
    dom = bracket()
    assert dom.bounds == ((0.0, 0.04), (0.0, 0.04), (0.0, 0.01)) and dom.parts == ("surface",)
    np.testing.assert_allclose(dom.volume, 1.2e-5, rtol=1e-12)
    rng = np.random.default_rng(0)
    pts = dom.lower + (dom.upper - dom.lower) * rng.random((4000, 3))
    np.testing.assert_array_equal(dom.contains(pts, 0.0), in_prism(pts))
    inside = dom.interior(500, rng, "sobol")
    assert inside.shape == (500, 3) and in_prism(inside).all()
    # on the surface: out by the tolerance's test, in with it; the winding number 1 inside, 0 outside
    b, _ = dom.boundary("surface", 200, rng, "sobol")
    assert dom.contains(b, 1e-9).all()
    w = mesh.winding(np.array([[0.01, 0.01, 0.005], [0.03, 0.03, 0.005], [0.05, 0.0, 0.0]]), dom.triangles)
    np.testing.assert_allclose(np.abs(w), [1.0, 0.0, 0.0], atol=1e-12)
    grid = dom.evaluation_points([9, 9, 5])
    np.testing.assert_array_equal(grid.mask, in_prism(grid.points) | (mesh.triangle_distance(
        grid.points, dom.triangles) <= 1e-9))


def test_parts_by_selectors_lie_on_their_faces_with_their_normals_spread_by_area():
    dom = bracket(select=SELECT, parts={"sides": ["surface"]})
    assert dom.parts == ("sides", "base", "top")
    np.testing.assert_allclose([dom.measure(p) for p in ("base", "top", "sides")], [1.2e-3, 1.2e-3, 1.6e-3])
    rng = np.random.default_rng(1)
    for part, z in (("base", 0.0), ("top", 0.01)):
        p, n = dom.boundary(part, 256, rng, "sobol")
        np.testing.assert_allclose(p[:, 2], z, atol=1e-15)
        np.testing.assert_allclose(n, np.tile([0, 0, 1 if z else -1], (256, 1)), atol=1e-15)
        assert in_prism(p, 1e-15).all()
    p, n = dom.boundary("sides", 1024, rng, "sobol")
    assert np.max(mesh.triangle_distance(p, dom.triangles)) < 1e-15 and np.allclose(n[:, 2], 0.0)
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0)
    # outward: a step along the normal leaves, a step against it stays in
    assert not dom.contains(p + 1e-4 * n, 0.0).any() and dom.contains(p - 1e-4 * n, 0.0).all()
    # spread by area: the two 40 x 10 mm outer sides hold 2 x 400 / 1600 of the points
    outer = (np.abs(p[:, 0]) < 1e-12) | (np.abs(p[:, 1]) < 1e-12)
    assert abs(outer.mean() - 0.5) < 0.02


@pytest.mark.parametrize("select,key,message", [
    ({"a": {"normal": [0, 0, -1]}, "b": {"normal": [0, 0, -1]}}, "select.b", "selects no face"),
    ({"surface": {"where": "z > 0"}}, "select.surface", "names the faces no selector takes"),
    ({"a": {"where": "q > 0"}}, "select.a.where", "unknown name 'q'"),
    ({"a": {"normal": [0, 0]}}, "select.a.normal", "expected a direction"),
    ({"a": {"up": 1}}, "select.a", "a selector is"),
])
def test_bad_selectors_name_their_key(select, key, message):
    with pytest.raises(Invalid) as e:
        bracket(select=select)
    assert e.value.key.endswith(key) and message in str(e.value)


def test_a_bad_mesh_is_one_line_naming_the_file_and_key(tmp_path, capsys):
    import trimesh

    box = trimesh.creation.box((1.0, 1.0, 1.0))
    open_box = trimesh.Trimesh(box.vertices, box.faces[:-1], process=False)
    open_box.export(str(tmp_path / "open.stl"))
    (tmp_path / "junk.stl").write_text("solid nothing\nthis is not a mesh\n")
    case = os.path.join(ROOT, "cases", "beltrami.yaml")
    for name, said in (("open.stl", "the surface is not closed: 3 of its edges do not join exactly two faces"),
                       ("missing.stl", "no such file"), ("junk.stl", "")):
        path = tmp_path / name
        assert main(["show", case, f"geometry={{type: mesh, path: {path}, time: [0, 1]}}"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"geometry.path: {path}: " in err and said in err, err
        assert "Traceback" not in err


def test_exact_conditions_on_a_mesh_part_are_refused_in_one_line(capsys):
    case = os.path.join(ROOT, "cases", "beltrami_bracket.yaml")
    assert main(["show", case, "conditions={enforce: {faces: exact}, length: 0.1}"]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {case}: conditions.enforce.faces: 'faces' has no distance function to impose it by "
                   "(a mesh's faces have none yet, nor a csg piece whose line, plane or circle runs into the "
                   "domain): use penalty\n")


def test_the_shipped_case_finds_its_part_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["show", "beltrami_bracket"]) == 0
    assert "path: cases/parts/bracket.stl" in capsys.readouterr().out
    assert os.path.samefile(mesh.located("cases/parts/bracket.stl"), BRACKET)
    assert mesh.located("cases/parts/none.stl") == "cases/parts/none.stl"
