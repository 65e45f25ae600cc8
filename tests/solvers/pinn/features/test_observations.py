"""Observations: the data file (CSV, HDF5, missing file or columns), the generator, and the misfit term."""
import h5py
import jax
import numpy as np
import pytest
from inverse_cases import tiny_identify

from sciml import cases
from sciml.errors import BadFile, MissingFile
from sciml.solvers.pinn.features import observations
from sciml.solvers.pinn.geometry import build_geometry
from sciml.solvers.pinn.problem import Problem


def test_datagen_places_a_grid_inside_and_reads_the_reference(tmp_path):
    cfg = tiny_identify(tmp_path)["case"].config
    cols = observations.read(cfg.data.path, ["x", "y", "w"])
    assert len(cols["x"]) == 9 and sorted(set(cols["x"])) == pytest.approx([0.5, 1.0, 1.5])
    assert sorted(set(cols["y"])) == pytest.approx([0.75, 1.5, 2.25])
    # the Navier series of the sine load is its first mode: w = q0 sin sin / (D pi^4 (1/a^2 + 1/b^2)^2)
    exact = np.sin(np.pi * cols["x"] / 2) * np.sin(np.pi * cols["y"] / 3) / (2.0 * np.pi**4 * (1 / 4 + 1 / 9) ** 2)
    np.testing.assert_allclose(cols["w"], exact, rtol=1e-6)


def test_noise_is_relative_and_seeded(tmp_path):
    cfg = tiny_identify(tmp_path)["case"].config
    clean = observations.read(cfg.data.path, ["w"])["w"]
    noisy = [cases.load(tiny_identify(tmp_path / f"n{i}", data__noise=0.1, data__seed=s)["path"]).config
             for i, s in enumerate((0, 0, 1))]
    w = [observations.read(c.data.path, ["w"])["w"] for c in noisy]
    np.testing.assert_array_equal(w[0], w[1])
    assert not np.array_equal(w[0], w[2])
    rel = np.std(w[0] - clean) / np.sqrt(np.mean(clean**2))
    assert 0.03 < rel < 0.2  # 0.1 of the rms, from 9 draws


def test_random_sensors_lie_in_the_domain(tmp_path):
    cfg = tiny_identify(tmp_path, data__sensors={"layout": "random", "points": [50]})["case"].config
    cols = observations.read(cfg.data.path, ["x", "y"])
    pts = np.stack([cols["x"], cols["y"]], -1)
    assert len(pts) == 50 and build_geometry(cfg.geometry).contains(pts).all()


def test_hdf5_and_missing_pieces(tmp_path):
    path = tmp_path / "obs.h5"
    with h5py.File(path, "w") as f:
        f["x"], f["y"], f["w"] = [0.5, 1.0], [1.0, 2.0], [1e-3, 2e-3]
    assert observations.read(str(path), ["x", "y", "w"])["w"] == pytest.approx([1e-3, 2e-3])
    with pytest.raises(BadFile, match=r"obs.h5: no column\(s\) \['u'\]"):
        observations.read(str(path), ["x", "u"])
    with pytest.raises(MissingFile, match="does not exist; make it with `sciml datagen"):
        observations.read(str(tmp_path / "none.csv"), ["x"])


def test_the_misfit_vanishes_at_the_observed_values(tmp_path):
    cfg = tiny_identify(tmp_path)["case"].config
    problem = Problem(cfg)
    assert "data.w" in problem.terms and problem._weights["data.w"] == 1.0
    params = problem.init(jax.random.PRNGKey(0))
    batch = problem.sample(np.random.default_rng(0))
    pred = problem.predict(params, problem.observations.points)["w"]
    res = problem.residuals(params, batch, jax.random.PRNGKey(0))["data.w"]
    scale = problem.observations.scale["w"]
    obs = observations.read(cfg.data.path, ["w"])["w"]
    np.testing.assert_allclose(np.asarray(res), (pred - obs) / scale, rtol=1e-10, atol=1e-14)


def test_the_data_weight_weighs_the_data_terms(tmp_path):
    cfg = tiny_identify(tmp_path, data__weight=5.0)["case"].config
    assert Problem(cfg)._weights["data.w"] == 5.0
