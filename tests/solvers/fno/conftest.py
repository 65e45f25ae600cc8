"""Tiny FNO cases, and a stand-in generator for the tests of the dataset format (no classical solver)."""
import copy
import dataclasses

import numpy as np
import pytest

import cli_cases
from cli_cases import TINY_DARCY
from sciml.solvers.fno.generators import GENERATORS


def write_case(tmp_path, data=None, name="case.yaml", **changes):
    """A case file in ``tmp_path`` (``a__b=value`` sets key a.b); its dataset lies beside it by default."""
    data = copy.deepcopy(data or TINY_DARCY)
    data["data"]["path"] = str(tmp_path / "data" / f"{data['case']}.h5")
    return cli_cases.write_case(tmp_path, data, name, **changes)


@pytest.fixture
def case_file():
    return write_case


def _fake_darcy(n_samples, resolution, seed, progress=None, contrast=4.0):
    """Smooth random fields on a closed grid: a = 1 + contrast * (x-bump), u = a cumulative sum (not Darcy)."""
    rng = np.random.default_rng(seed)
    x = np.linspace(0.0, 1.0, resolution)
    c = rng.uniform(0.2, 0.8, (n_samples, 2, 1, 1))
    X, Y = np.meshgrid(x, x, indexing="ij")
    a = 1.0 + contrast * np.exp(-((X - c[:, 0]) ** 2 + (Y - c[:, 1]) ** 2) / 0.05)
    u = np.sin(np.pi * X) * np.sin(np.pi * Y) / a
    if progress is not None:
        progress(n_samples)
    return {"a": a, "u": u, "calls": np.array([resolution])}


@pytest.fixture
def fake_darcy(monkeypatch):
    """The FNO's Darcy generator runs a cheap stand-in instead of the classical solver; returns the stand-in."""
    monkeypatch.setitem(GENERATORS, "darcy", dataclasses.replace(GENERATORS["darcy"], generate=_fake_darcy))
    return _fake_darcy
