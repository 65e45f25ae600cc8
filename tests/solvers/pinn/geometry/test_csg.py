"""CSG domains (solvers/pinn/geometry/csg.py): membership of known points for each operation, interior points
inside, boundary points on the boundary with unit outward normals (a step along the normal leaves the domain, a
step against it enters), in 2-D (a square minus a disk) and 3-D (a box minus a ball, two boxes side by side),
the parts' names and measures, distances, one-line errors, and a run through the command line."""
import json
import os

import numpy as np
import pytest

from sciml.cli import main
from sciml.config import build
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import GeometryConfig, build_geometry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
SQUARE = {"type": "rectangle", "x": [0, 1], "y": [0, 1], "name": "plate"}
DISK = {"type": "disk", "center": [0.5, 0.5], "radius": 0.25, "name": "hole"}
PLATE = {"type": "csg", "op": "difference", "parts": [SQUARE, DISK]}
BOX = {"type": "box", "x": [0, 1], "y": [0, 1], "z": [0, 1]}
BALL = {"type": "disk", "center": [0.5, 0.5, 0.5], "radius": 0.3}
NEXT = {"type": "box", "x": [1, 2], "y": [0, 1], "z": [0, 0.5]}  # beside BOX, sharing part of its right face
RNG = np.random.default_rng


def csg(raw, key="geometry"):
    return build_geometry(build(GeometryConfig, raw, key))


def outward(domain, part, n=256, h=1e-5):
    """Points of ``part`` and normals, checked: on the part, unit, a step ``h`` along the normal outside, one
    against it inside."""
    pts, normals = domain.boundary(part, n, RNG(3), "sobol")
    assert pts.shape == normals.shape == (n, domain.dim)
    assert np.allclose(np.linalg.norm(normals, axis=1), 1.0)
    assert domain.on_part(part, pts).all() and domain.contains(pts, 1e-9).all()
    assert not domain.contains(pts + h * normals, 0.0).any(), part
    assert domain.contains(pts - h * normals, 0.0).all(), part
    return pts, normals


@pytest.mark.parametrize("op, inside, outside", [
    ("union", [[0.1, 0.1], [0.5, 0.5], [0.5, 1.02]], [[1.2, 0.5], [0.1, 1.1]]),
    ("intersection", [[0.5, 0.5], [0.6, 0.6]], [[0.1, 0.1], [0.5, 1.02]]),
    ("difference", [[0.1, 0.1], [0.1, 0.9]], [[0.5, 0.5], [0.6, 0.6], [1.2, 0.5]]),
])
def test_membership_of_known_points_for_each_operation(op, inside, outside):
    disk = {**DISK, "center": [0.5, 0.6], "radius": 0.45}  # reaching over the top edge, not to the bottom one
    domain = csg({**PLATE, "op": op, "parts": [SQUARE, disk]})
    assert domain.contains(np.array(inside)).all() and not domain.contains(np.array(outside)).any()
    pts = domain.interior(500, RNG(0), "sobol")
    assert domain.contains(pts).all() and (pts >= domain.lower).all() and (pts <= domain.upper).all()


def test_a_square_minus_a_disk_is_the_plate_with_a_hole():
    domain = csg(PLATE)
    assert domain.parts == ("plate.left", "plate.right", "plate.bottom", "plate.top", "hole.circle")
    assert domain.bounds == ((0.0, 1.0), (0.0, 1.0))
    pts = domain.interior(2000, RNG(0), "sobol")
    assert (np.linalg.norm(pts - 0.5, axis=1) >= 0.25).all()
    assert abs(domain.measure("hole.circle") - 2 * np.pi * 0.25) < 1e-12 and domain.measure("plate.top") == 1.0
    pts, normals = outward(domain, "hole.circle")
    assert np.allclose(normals, -(pts - 0.5) / 0.25)  # into the hole: out of the plate
    for part in domain.parts[:4]:
        outward(domain, part)
    # distances positive inside, 0 on the pieces: the box's lines and the circle turned round
    inside = domain.interior(200, RNG(1), "sobol")
    for part in domain.parts:
        (d,) = domain.distances(part)
        on = domain.boundary(part, 16, RNG(2))[0]
        assert (np.asarray(d(inside)) > 0).all() and np.allclose(np.asarray(d(on)), 0.0, atol=1e-12)


def test_a_disk_cutting_an_edge_leaves_the_edge_in_two_and_the_arc_inside():
    domain = csg({**PLATE, "parts": [SQUARE, {**DISK, "center": [0.5, 1.0]}]})
    pts, _ = outward(domain, "plate.top")
    assert (np.abs(pts[:, 0] - 0.5) >= 0.25 - 1e-9).all()
    assert abs(domain.measure("plate.top") - 0.5) < 0.02  # the fraction of 4096 probe points
    pts, _ = outward(domain, "hole.circle")
    assert (pts[:, 1] <= 1.0 + 1e-12).all()
    assert abs(domain.measure("hole.circle") - np.pi * 0.25) < 0.02
    assert domain.distances("plate.top") and domain.distances("hole.circle")  # positive inside: kept
    bulge = csg({"type": "csg", "op": "union", "parts": [SQUARE, {**DISK, "center": [1.0, 0.5]}]})
    with pytest.raises(ValueError, match="without a distance"):  # the right edge's line runs into the disk
        bulge.distances("plate.right")


def test_a_box_minus_a_ball_in_3d():
    domain = csg({"type": "csg", "op": "difference", "parts": [BOX, BALL]})
    assert domain.coords == ("x", "y", "z") and "b.sphere" in domain.parts
    pts, normals = outward(domain, "b.sphere")
    assert np.allclose(np.linalg.norm(pts - 0.5, axis=1), 0.3)
    assert np.allclose(normals, -(pts - 0.5) / 0.3)
    for part in ("a.left", "a.top", "a.back"):
        outward(domain, part)
    assert not domain.contains(np.array([[0.5, 0.5, 0.5], [0.6, 0.5, 0.5]])).any()
    assert domain.contains(np.array([[0.05, 0.05, 0.05]])).all()


def test_two_boxes_side_by_side_lose_the_wall_between_them_and_keep_the_floor_once():
    domain = csg({"type": "csg", "op": "union", "parts": [BOX, NEXT]})
    assert domain.bounds == ((0.0, 2.0), (0.0, 1.0), (0.0, 1.0))
    assert "b.left" not in domain.parts  # all of it lies on a's right face, inside the union
    right = outward(domain, "a.right")[0]
    assert (right[:, 2] >= 0.5 - 1e-9).all()  # the lower half is the wall between the boxes
    assert abs(domain.measure("a.right") - 0.5) < 0.02
    floor = np.concatenate([outward(domain, p)[0] for p in ("a.bottom", "b.bottom")])
    assert (floor[:, 2] == 0).all() and abs(domain.measure("a.bottom") + domain.measure("b.bottom") - 2.0) < 1e-9
    assert domain.measure("b.bottom") == 1.0  # a's floor touches b's only along the line x = 1
    for part in domain.parts:
        outward(domain, part, 64)
    assert domain.contains(np.array([[1.5, 0.5, 0.25], [0.5, 0.5, 0.9]])).all()
    assert not domain.contains(np.array([[1.5, 0.5, 0.75]])).any()


def test_coincident_floors_are_kept_once_and_planes_into_the_domain_have_no_distance():
    wide = {"type": "rectangle", "x": [0, 2], "y": [0, 0.5]}
    domain = csg({"type": "csg", "op": "union", "parts": [SQUARE, wide]})  # an L: plate, then b
    assert abs(domain.measure("plate.bottom") - 1.0) < 1e-12 and abs(domain.measure("b.bottom") - 1.0) < 0.02
    pts = domain.boundary("b.bottom", 100, RNG(0), "sobol")[0]
    assert (pts[:, 0] > 1.0 - 1e-6).all()  # the part under the plate is the plate's
    assert domain.distances("plate.left") and domain.distances("plate.top")
    with pytest.raises(ValueError, match="without a distance"):  # b's top line runs on under the plate
        domain.distances("b.top")


def test_regrouped_and_nested_parts():
    domain = csg({**PLATE, "groups": {"edges": ["plate.left", "plate.right", "plate.bottom", "plate.top"]}})
    assert set(domain.parts) == {"edges", "hole.circle"} and domain.measure("edges") == 4.0
    nested = csg({"type": "csg", "op": "union", "parts": [
        {**PLATE, "name": "holed"}, {"type": "rectangle", "x": [1, 2], "y": [0, 1], "name": "tail"}]})
    assert "holed.hole.circle" in nested.parts and "holed.plate.right" not in nested.parts
    outward(nested, "holed.hole.circle")
    spacetime = csg({**PLATE, "time": [0, 1]})
    assert spacetime.coords == ("x", "y", "t") and "initial" in spacetime.parts
    pts, normals = spacetime.boundary("hole.circle", 64, RNG(0), "sobol")
    assert np.allclose(np.linalg.norm(pts[:, :2] - 0.5, axis=1), 0.25) and np.allclose(normals[:, 2], 0)


@pytest.mark.parametrize("change, key, message", [
    ({"parts": []}, "geometry.parts", "needs at least one geometry section"),
    ({"op": "xor"}, "geometry.op", "must be one of ['union', 'intersection', 'difference'], got 'xor'"),
    ({"parts": [SQUARE]}, "geometry.parts", "a difference needs at least 2 parts"),
    ({"parts": [SQUARE, BALL]}, "geometry.parts[1]", "has coordinates ['x', 'y', 'z'], parts[0] ['x', 'y']"),
    ({"parts": [SQUARE, {**DISK, "name": "plate"}]}, "geometry.parts[1].name", "'plate' names parts[0] already"),
    ({"parts": [SQUARE, {**DISK, "radius": -1}]}, "geometry.parts[1].radius", "must be > 0.0"),
    ({"parts": [SQUARE, {**DISK, "time": [0, 1]}]}, "geometry.parts[1].time", "give time on the csg section"),
    ({"parts": [SQUARE, {"type": "ball", "dim": 2}]}, "geometry.parts[1].type", "coordinates x1"),
    ({"parts": [SQUARE, {**DISK, "radius": 2}]}, "geometry.parts", "the difference of the parts is empty"),
    ({"groups": {"edges": ["plate.lft"]}}, "geometry.groups.edges[0]", "did you mean 'plate.left'?"),
    ({"parts": [SQUARE, {**DISK, "radius": 0.1, "center": [0.2, 0.2]},
                {"type": "disk", "center": [0.2, 0.2], "radius": 0.2}], "groups": {"x": ["hole.circle"]}},
     "geometry.groups.x[0]", "'hole.circle' is not on the boundary of the difference"),
])
def test_bad_sections_are_one_line_naming_the_key(change, key, message):
    with pytest.raises(Invalid) as e:
        csg({**PLATE, **change})
    assert e.value.key == key and message in e.value.message, str(e.value)
    assert "\n" not in str(e.value)


def test_exact_conditions_on_a_part_without_a_distance_are_refused_in_one_line(capsys):
    case = os.path.join(ROOT, "cases", "kovasznay.yaml")
    geometry = ("geometry={type: csg, op: union, parts: [{type: rectangle, x: [-0.5, 1], y: [-0.5, 0.5]}, "
                "{type: rectangle, x: [-0.5, 0.25], y: [0.5, 1.5]}], groups: {boundary: [a.left, a.right, a.bottom, "
                "a.top, b.left, b.right, b.top]}}")
    assert main(["show", case, geometry, "conditions={enforce: {boundary: exact}, length: 0.1}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "conditions.enforce.boundary: 'boundary' has no distance function" in err, err


def test_a_flow_past_a_hole_cut_from_a_rectangle_runs_end_to_end(tmp_path, capsys):
    case = os.path.join(ROOT, "cases", "kovasznay.yaml")
    geometry = ("geometry={type: csg, op: difference, parts: [{type: rectangle, x: [-0.5, 1], y: [-0.5, 1.5], "
                "name: box}, {type: disk, center: [0.25, 0.5], radius: 0.2, name: hole}], groups: {boundary: "
                "[box.left, box.right, box.bottom, box.top, hole.circle]}}")
    out = tmp_path / "run"
    code = main(["run", case, geometry, "model.hidden=[8,8]", "sampling.interior=64", "sampling.boundary=32",
                 "training.adam.steps=10", "training.lbfgs.steps=0", "training.log_every=5",
                 "evaluation.grid=[16,16]", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 10, summary
    assert summary["metrics"] and all(np.isfinite(v) for v in summary["metrics"].values()), summary["metrics"]
