"""Locating a patch load: a tiny inverse run whose unknown centre moves to the truth; the summary's errors
against the plate's side."""
import csv

import numpy as np
import pytest

from sciml.solvers.pinn import run as driver

from inverse_cases import PATCH_TRUE, tiny_locate


def test_the_patch_centre_moves_to_the_truth(tmp_path):
    """From (0.8, 1.8), 0.57 m from the truth (1.2, 1.4), 300 Adam steps of a 16 x 16 network bring the centre
    within a quarter of that; each history is a column of metrics.csv, the summary gives the errors."""
    made = tiny_locate(tmp_path)
    out = driver.train(made["case"].config, str(tmp_path / "run"), quiet=True)
    with open(tmp_path / "run" / "metrics.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    path = np.array([[float(r["unknown.patch.x"]), float(r["unknown.patch.y"])] for r in rows])
    distance = np.hypot(*(path - [PATCH_TRUE["x"], PATCH_TRUE["y"]]).T)
    start = np.hypot(0.8 - PATCH_TRUE["x"], 1.8 - PATCH_TRUE["y"])
    assert len(rows) == 6 and distance[-1] < start / 4, path
    x, y = out["unknowns"]["patch.x"], out["unknowns"]["patch.y"]  # identifiable: numbers
    assert (x, y) == (pytest.approx(path[-1, 0], rel=1e-7), pytest.approx(path[-1, 1], rel=1e-7))
    m = out["metrics"]
    assert m["patch.x_side_error"] == pytest.approx(abs(x - PATCH_TRUE["x"]) / 2.0, rel=1e-12)
    assert m["patch.y_side_error"] == pytest.approx(abs(y - PATCH_TRUE["y"]) / 3.0, rel=1e-12)
