"""sciml.equations.register: an equation defined outside the package is usable in case files."""
import math
import os
from dataclasses import dataclass
from typing import Literal

import jax.numpy as jnp
import numpy as np
import pytest

import sciml
from sciml import equations
from sciml.config import spec
from sciml.errors import ConfigError


@dataclass
class PoissonConfig:
    type: Literal["test_poisson"]
    amplitude: float = spec(1.0, gt=0.0)


class Poisson(equations.Equation):
    """-Δu = 2π² a sin(πx) sin(πy) on the unit square, u = 0 on the edges; u = a sin(πx) sin(πy)."""

    fields, coords = ("u",), ("x", "y")

    def __init__(self, config, domain):
        self.a = config.amplitude

    def to_nondim(self, points):
        return points

    def to_physical(self, points):
        return points

    def interior(self, d):
        return {"poisson": d.lap("u") + 2 * math.pi**2 * self.a * jnp.sin(math.pi * d.x) * jnp.sin(math.pi * d.y)}

    def boundary(self, part, d, normal):
        return {"u": d["u"]}

    def derived(self, d):
        return {"u": d["u"]}

    def reference(self, points):
        return {"u": self.a * np.sin(math.pi * points[:, 0]) * np.sin(math.pi * points[:, 1])}


CASE = """
case: poisson
solver: pinn
geometry: {type: rectangle, x: [0, 1], y: [0, 1]}
equation: {type: test_poisson, amplitude: 2.0}
model: {hidden: [8, 8]}
sampling: {interior: 64, boundary: 16}
training: {adam: {steps: 20}, log_every: 10}
evaluation: {grid: [11, 11]}
"""


@pytest.fixture
def registered():
    equations.register("test_poisson", PoissonConfig, Poisson)
    yield
    equations.EQUATIONS.pop("test_poisson")


def test_a_registered_equation_loads_and_trains(registered, tmp_path):
    path = tmp_path / "poisson.yaml"
    path.write_text(CASE)
    case = sciml.load_case(str(path))
    assert isinstance(case.config.equation, PoissonConfig) and case.config.equation.amplitude == 2.0
    summary = sciml.run_case(case, out=str(tmp_path / "run"), quiet=True)
    assert summary["steps"] == 20 and np.isfinite(summary["metrics"]["rel_l2_u"])


def test_unknown_type_lists_registered_ones(registered, tmp_path):
    path = tmp_path / "poisson.yaml"
    path.write_text(CASE.replace("type: test_poisson", "type: test_poison"))
    with pytest.raises(ConfigError) as e:
        sciml.load_case(str(path))
    assert e.value.key == "equation.type" and "did you mean 'test_poisson'" in str(e.value)


def test_register_needs_a_dataclass_with_a_type():
    with pytest.raises(TypeError):
        equations.register("bad", dict, Poisson)
    assert "bad" not in equations.EQUATIONS


def test_register_refuses_an_incomplete_equation_naming_what_is_missing():
    class NoBoundary(equations.Equation):
        fields, coords = ("u",), ("x", "y")

        def to_nondim(self, x):
            return x

        def interior(self, d):
            return {"pde": d["u"]}

    with pytest.raises(TypeError) as e:
        equations.register("bad", PoissonConfig, NoBoundary)
    assert str(e.value) == ("NoBoundary does not define boundary, to_physical (required by "
                            "sciml.equations.Equation)")
    assert "bad" not in equations.EQUATIONS


def test_register_refuses_a_class_that_is_no_equation():
    class Duck:  # the members, but not the contract
        fields, coords = ("u",), ("x", "y")

    with pytest.raises(TypeError, match="must be a subclass of sciml.equations.Equation"):
        equations.register("bad", PoissonConfig, Duck)
    assert "bad" not in equations.EQUATIONS


def test_a_user_equation_trains_exports_and_predicts_in_fresh_processes(tmp_path):
    """Written only to the contract (no centre, scale, units, derived fields or reference): the hooks'
    defaults carry it through ``sciml run``, ``sciml export`` and, in another process, ``sciml predict``."""
    import json
    import subprocess
    import sys

    import h5py

    worker = os.path.join(os.path.dirname(__file__), "user_equation.py")
    done = subprocess.run([sys.executable, worker, str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    meta = json.loads((tmp_path / "model.json").read_text())
    assert meta["inputs"] == ["x", "t"] and meta["outputs"] == ["u"]
    assert meta["scalings"]["center"] == [1.0, 0.5] and meta["scalings"]["scale"] == [1.0, 0.5]
    assert meta["units"] == "those of the case file"
    pred = subprocess.run([sys.executable, "-m", "sciml", "predict", str(tmp_path / "model.jaxexport"),
                           str(tmp_path / "points.csv"), "--out", str(tmp_path / "pred.h5")],
                          capture_output=True, text=True)
    assert pred.returncode == 0, pred.stderr[-3000:]
    with h5py.File(tmp_path / "pred.h5") as f:
        got = f["u"][()]
    want = np.load(tmp_path / "want.npy")
    assert np.isfinite(want).all() and np.abs(want).max() > 0
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
