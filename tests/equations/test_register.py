"""sciml.equations.register: an equation defined outside the package is usable in case files."""
import math
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


class Poisson:
    """-Δu = 2π² a sin(πx) sin(πy) on the unit square, u = 0 on the edges; u = a sin(πx) sin(πy)."""

    fields, coords = ("u",), ("x", "y")

    def __init__(self, config, domain):
        self.a = config.amplitude

    def to_nondim(self, points):
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
