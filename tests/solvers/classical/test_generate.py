"""The common interface ``generate(n_samples, resolution, seed, progress=None, **params) -> dict``: arrays and
shapes, determinism, per-sample seeding, progress increments, and the FNO dataset table's view of it."""
import numpy as np
import pytest

from sciml.solvers.classical import burgers, darcy, vorticity
from sciml.solvers.fno.generators import GENERATORS

CASES = {
    "darcy": (darcy, 9, {}),
    "burgers": (burgers, 32, {"dt": 1e-2, "batch_size": 2}),
    "vorticity": (vorticity, 8, {"T": 2.0, "dt": 1e-2, "batch_size": 2}),
}


@pytest.fixture(scope="module")
def runs():
    """Each generator run twice with seed 11 (3 samples, with a progress log), once with seed 12, once with
    2 samples."""
    out = {}
    for name, (mod, s, params) in CASES.items():
        log = []
        first = mod.generate(3, s, 11, progress=log.append, **params)
        out[name] = {"first": first, "again": mod.generate(3, s, 11, **params), "log": log,
                     "other": mod.generate(3, s, 12, **params), "fewer": mod.generate(2, s, 11, **params)}
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_arrays_and_shapes(runs, name):
    mod, s, params = CASES[name]
    d = runs[name]["first"]
    assert all(isinstance(v, np.ndarray) for v in d.values())
    spatial = (s,) if name == "burgers" else (s, s)
    assert d["a"].shape == (3, *spatial) and d["a"].dtype == np.float64
    out = d["w"] if name == "vorticity" else d["u"]
    assert out.shape[:1 + len(spatial)] == (3, *spatial) and np.all(np.isfinite(out))
    assert d["x"].shape == (s,)


@pytest.mark.parametrize("name", list(CASES))
def test_deterministic_and_seeded_per_sample(runs, name):
    r = runs[name]
    for key in r["first"]:
        np.testing.assert_array_equal(r["first"][key], r["again"][key])
    assert not np.allclose(r["first"]["a"], r["other"]["a"])
    # sample i depends on (seed, i) only: the first two of three are the two of two
    np.testing.assert_array_equal(r["fewer"]["a"], r["first"]["a"][:2])
    key = "w" if name == "vorticity" else "u"
    np.testing.assert_allclose(r["fewer"][key], r["first"][key][:2], rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_progress_increments(runs, name):
    log = runs[name]["log"]
    assert sum(log) == 3 and all(k >= 1 for k in log)


@pytest.mark.parametrize("name", list(CASES))
def test_fno_table_reads_the_output(runs, name):
    gen = GENERATORS[name]
    assert gen.generate is CASES[name][0].generate
    assert "r" in gen.parameters() and "progress" not in gen.parameters()
    x, y = gen.split(runs[name]["first"], 1, 1)
    s = CASES[name][1]
    assert x.shape[:1 + gen.dims] == (3,) + (s,) * gen.dims and y.shape[0] == 3
