"""``sciml datagen`` of a start flow (the lattice Boltzmann solver on the case's channel) and a run of two time
windows that begins from it: the initial targets are the file's fields, the check compares the forces with the
file's."""
import os
import signal

import h5py
import jax
import numpy as np
import pytest

from export_check import assert_exported_model_scores_as_summary
from sciml import cases, cli
from sciml.solvers.classical import lbm
from sciml.solvers.pinn import run as driver
from sciml.solvers.pinn import start
from sciml.solvers.pinn.problem import Problem

CASE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cases", "dfg_2d2.yaml")
TINY = ["equation.start.time=0.2", "equation.start.cells_per_diameter=10", "equation.start.ramp=0.1",
        "geometry.time=[0.0,0.04]", "training.windows=2", "model.hidden=[8,8]", "sampling.interior=64",
        "sampling.boundary=16", "sampling.parts={cylinder: 16, initial: 32}", "sampling.near={}",
        "training.adam.steps=4", "training.lbfgs.steps=0", "training.log_every=2", "evaluation.grid=[12,5,3]",
        "equation.check_times=21", "sampling.boxes={}", "dtype=float64"]  # float64: the export's check is to 1e-6


@pytest.mark.figures("vorticity_1", "u", "cylinder_forces", "mass_flux")  # a check map, planes in time, series
def test_datagen_makes_the_start_and_a_run_begins_from_it(tmp_path, capsys):
    path = str(tmp_path / "start.h5")
    overrides = [f"equation.start.path={path}", *TINY]
    assert cli.main(["run", CASE, *overrides, "--out", str(tmp_path / "r"), "--quiet"]) == 2
    assert f"start file {path} does not exist; make it with `sciml datagen" in capsys.readouterr().err
    assert cli.main(["datagen", CASE, *overrides, "--quiet"]) == 0
    with h5py.File(path) as f:
        x, y, u = f["x"][()], f["y"][()], f["u"][()]
        t = f["history/t"][()]
        assert u.shape == (41, 220) and len(x) == 220 and len(y) == 41
        X, Y = np.meshgrid(x, y)
        assert np.all(u[np.hypot(X - 0.2, Y - 0.2) < 0.05] == 0) and u.max() > 1.0  # the inflow's peak is 1.5
        assert t[0] == 0.0 and t[-1] >= 0.04 - 1e-9 and np.all(np.isfinite(f["history/c_D"][()]))
    made = os.path.getmtime(path)
    assert cli.main(["datagen", CASE, *overrides, "--quiet"]) == 0 and os.path.getmtime(path) == made  # kept
    overrides.append("equation.start.ramp=0.05")
    assert cli.main(["datagen", CASE, *overrides]) == 0  # other settings: made again (the run below takes them)
    assert "was made with" in capsys.readouterr().out and os.path.getmtime(path) > made
    cfg = cases.load(CASE, overrides).config
    eq = Problem(cfg).equation
    with h5py.File(path) as f:
        u = f["u"][()]
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, 220, 40), rng.integers(0, 41, 40)
    with jax.enable_x64(True):
        at_nodes = eq._conditions["initial"]["u"]("u", np.column_stack([x[i], y[j], np.zeros(40)]))
    np.testing.assert_allclose(np.asarray(at_nodes), u[j, i], rtol=1e-12, atol=1e-14)
    summary = driver.train(cfg, str(tmp_path / "run"), quiet=True)  # two windows: the second from the first's end
    assert summary["windows"] == 2 and summary["status"] == "completed"
    m = summary["metrics"]
    assert np.isfinite(m["c_D_lbm_rms_diff"]) and np.isfinite(m["c_L_lbm_rms_diff"]) and "St_lbm" not in m
    assert all(os.path.isfile(tmp_path / "run" / "plots" / f"{name}.png")
               for name in ("vorticity_1", "u", "cylinder_forces", "mass_flux"))
    header = (tmp_path / "run" / "plots" / "cylinder_forces.csv").read_text().splitlines()[0]
    assert header == "t,c_D,c_L,c_D (surface),c_L (surface),c_D (lattice Boltzmann),c_L (lattice Boltzmann)"
    # the two windows exported as one model: its velocity gradients give the run's force history (issue 74)
    again = assert_exported_model_scores_as_summary(tmp_path / "run", tmp_path)
    assert {"c_D_lbm_rms_diff", "c_L_lbm_rms_diff", "c_D_max", "cylinder_slip"} <= set(again)


def test_a_lattice_too_coarse_for_the_flow_is_one_line_naming_the_key_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "start.h5"
    # 10 cells a diameter at Re 100: relaxation time 0.515, which the shedding flow does not survive past t ~ 1
    overrides = [f"equation.start.path={path}", *TINY, "geometry.time=[0.0, 0.8]"]
    assert cli.main(["datagen", CASE, *overrides, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {CASE}: equation.start.cells_per_diameter: the lattice blew up at t = "), err
    assert "relaxation time 0.515" in err and "raise it" in err and "Traceback" not in err
    assert not path.exists() and os.listdir(tmp_path) == []


def sigterm_after(monkeypatch, chunks: list[int]) -> list[int]:
    """``lbm.marching`` sends this process SIGTERM after each chunk of ``chunks`` (counted from rest) in turn;
    ``chunks``, which a test may add to."""
    marching = lbm.marching

    def signalled(*args, **kwargs):
        for march in marching(*args, **kwargs):
            if chunks and march.done == chunks[0]:
                chunks.pop(0)
                os.kill(os.getpid(), signal.SIGTERM)
            yield march

    monkeypatch.setattr(lbm, "marching", signalled)
    return chunks


def test_a_datagen_stopped_by_sigterm_keeps_its_march_and_the_same_command_ends_it_as_one_never_stopped(
        tmp_path, monkeypatch, capsys):
    straight, stopped = str(tmp_path / "straight.h5"), str(tmp_path / "stopped.h5")
    assert cli.main(["datagen", CASE, f"equation.start.path={straight}", *TINY, "--quiet"]) == 0
    sigterm_after(monkeypatch, [31, 110])  # of the 120 chunks
    overrides = [f"equation.start.path={stopped}", *TINY]
    kept = start.partial_path(stopped)
    assert cli.main(["datagen", CASE, *overrides, "--quiet"]) == 143  # before the start's time 0.2 (chunk 100)
    assert capsys.readouterr().err == (f"stopped by SIGTERM at t = 0.062 of 0.24: the lattice Boltzmann march is "
                                       f"kept in {kept}; the same command continues from it\n")
    assert os.path.exists(kept) and not os.path.exists(stopped)
    assert cli.main(["datagen", CASE, *overrides]) == 143  # past it: the start's fields are kept too
    assert f"continuing the lattice Boltzmann march from t = 0.062 ({kept})" in capsys.readouterr().out
    assert cli.main(["datagen", CASE, *overrides, "--quiet"]) == 0
    assert not os.path.exists(kept)
    with h5py.File(straight) as a, h5py.File(stopped) as b:
        for name in ("x", "y", "u", "v", "p", "history/t", "history/c_D", "history/c_L", "history/delta_p"):
            np.testing.assert_array_equal(a[name][()], b[name][()], err_msg=name)


def test_a_march_kept_before_the_start_s_time_serves_a_start_at_another_time(tmp_path, monkeypatch, capsys):
    path = str(tmp_path / "start.h5")
    kept = start.partial_path(path)
    kills = sigterm_after(monkeypatch, [])
    made = lambda t, *more: cli.main(["datagen", CASE, f"equation.start.path={path}", *TINY, f"equation.start.time={t}",
                                      *more])
    kills.append(31)
    assert made(0.2, "--quiet") == 143 and os.path.exists(kept)  # at t = 0.062
    assert made(0.1) == 0 and not os.path.exists(kept)  # 0.1 not reached: the march goes on, keeping its fields
    assert f"continuing the lattice Boltzmann march from t = 0.062 ({kept})" in capsys.readouterr().out
    straight = str(tmp_path / "straight.h5")
    assert cli.main(["datagen", CASE, f"equation.start.path={straight}", *TINY, "equation.start.time=0.1",
                     "--quiet"]) == 0
    with h5py.File(straight) as a, h5py.File(path) as b:
        for name in ("u", "v", "p", "history/t", "history/c_L"):
            np.testing.assert_array_equal(a[name][()], b[name][()], err_msg=name)
    kills.append(31)
    assert made(0.2, "--quiet") == 143
    assert made(0.05) == 0  # past 0.05 without its fields: from rest again
    assert "is past the start's time without its fields: the march starts again" in capsys.readouterr().out
