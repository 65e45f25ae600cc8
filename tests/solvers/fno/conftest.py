"""Tiny FNO cases, and a stand-in generator for the tests of the dataset format (no classical solver)."""
import copy
import sys
import types

import numpy as np
import pytest

import cli_cases

TINY_DARCY = {
    "case": "tiny_darcy",
    "solver": "fno",
    "seed": 1,
    "data": {"generator": "darcy", "path": "PLACEHOLDER", "resolution": 9, "super_resolution": [17],
             "n_train": 40, "n_test": 8, "chunk": 24},
    "model": {"modes": [4, 4], "width": 8, "layers": 2, "padding": 3, "projection": [16]},
    "training": {"epochs": 10, "batch_size": 10, "lr": 1.0e-2, "schedule": {"type": "step", "every": 5},
                 "checkpoint_every": 2},
    "evaluation": {"every": 1, "batch_size": 16, "plots": 1},
}


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
    """``sciml.solvers.classical.darcy`` replaced by a cheap stand-in; returns its ``generate``."""
    mod = types.ModuleType("sciml.solvers.classical.darcy")
    mod.generate = _fake_darcy
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    return _fake_darcy
