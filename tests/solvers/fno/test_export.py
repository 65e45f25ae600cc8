"""The trained operator read back from a run folder: ``sciml.load_run(...).derived``, the plate operator's
moments of a load given by the user (``solvers/fno/export.py:derived_model``)."""
import copy

import numpy as np
import pytest

import sciml
from cli_cases import write_case
from sciml.errors import UserError
from sciml.solvers.fno import data
from sciml.solvers.fno.model import build

from .test_physics import TINY_PLATE_OPERATOR, exact_moments, loads, sine_mode


@pytest.fixture(scope="module")
def plate_run(tmp_path_factory):
    """A tiny physics-only plate operator (energy, w = 0 on the edges) trained for two epochs, in float64."""
    tmp = tmp_path_factory.mktemp("plate_operator")
    case = copy.deepcopy(TINY_PLATE_OPERATOR)
    case["data"]["path"] = str(tmp / "plate.h5")
    case["dtype"] = "float64"
    case["model"]["vanish_on_edges"] = True
    case["training"]["terms"] = {"data": 0.0, "energy": 1.0}
    loaded = sciml.load_case(write_case(tmp, case))
    sciml.datagen_case(loaded)
    summary = sciml.run_case(loaded, out=str(tmp / "run"), quiet=True)
    return loaded.config, summary


@pytest.mark.parametrize("resolution", [9, 17])
def test_derived_moments_of_user_loads_score_as_the_run_scored_them(plate_run, resolution):
    """``derived`` on the test loads, at the training grid and zero-shot, gives moments whose errors against the
    series are the run's own summary's (``rel_l2_mx``, ...), each ``(batch, s, s, 1)``."""
    cfg, summary = plate_run
    derived = sciml.load_run(summary["run_dir"]).derived
    inputs, reference = data.solve_test(cfg.data, resolution, fields=["mx", "my", "mxy"])
    got = derived(inputs)
    assert set(got) == {"mx", "my", "mxy"}
    suffix = "" if resolution == cfg.data.resolution else f"_{resolution}"
    for i, name in enumerate(("mx", "my", "mxy")):
        assert got[name].shape == inputs.shape and got[name].dtype == np.float64
        ref = reference[..., i]
        errors = np.linalg.norm((got[name][..., 0] - ref).reshape(len(ref), -1), axis=1) \
            / np.linalg.norm(ref.reshape(len(ref), -1), axis=1)
        np.testing.assert_allclose(errors.mean(), summary["metrics"][f"rel_l2_{name}{suffix}"], rtol=1e-8)


def test_derived_model_gives_the_moments_of_the_decoded_field(plate_run, monkeypatch):
    """With an operator whose decoded field is the sine mode ``A sin πx sin πy`` (A from the load's amplitude),
    the moments are the exact ones at every grid point."""
    cfg, summary = plate_run
    from sciml.solvers.fno import export, model
    from sciml.solvers.fno.physics import Plate

    real = build(cfg, 1, 1)
    plate = Plate(D=1.0, nu=0.3, resolution=9)
    amplitude = np.array([1.0, -0.5])
    fake = model.Operator(real.init, real.predict, real.stats,
                          lambda params, stats, x: sine_mode(x[:, 4, 4, 0] / (4 * np.pi ** 4)))
    monkeypatch.setattr(export, "build", lambda *_: fake)
    got = export.derived_model(cfg, summary["run_dir"])(loads(plate, amplitude))
    want = exact_moments(plate, amplitude, 9)
    for i, name in enumerate(("mx", "my", "mxy")):
        np.testing.assert_allclose(np.asarray(got[name])[..., 0], want[..., i], rtol=1e-9, atol=1e-9)


def test_derived_of_a_pinn_run_is_one_line(tmp_path):
    case = sciml.load_case(write_case(tmp_path, training__adam__steps=2))
    summary = sciml.run_case(case, out=str(tmp_path / "run"), quiet=True)
    with pytest.raises(UserError, match="solver 'pinn' has no derived fields of inputs; its predict gives every "
                                        "field$"):
        sciml.load_run(summary["run_dir"]).derived
