"""The FNO driver: the run folder, NaN handling, stopping on a signal and exact resume (on a stand-in
generator's data)."""
import json

import h5py
import jax
import numpy as np
import pytest

from sciml import cases
from sciml.errors import TrainingDiverged
from sciml.solvers.fno import data, run

import xdmf_sidecar


@pytest.fixture
def dataset(tmp_path, case_file, fake_darcy):
    """A tiny case whose dataset exists; returns a function making its config with changes."""
    cfg = cases.load(case_file(tmp_path)).config
    data.write(cfg.data, cfg.data.path)
    return lambda name="case", **changes: cases.load(case_file(tmp_path, name=f"{name}.yaml", **changes)).config


def test_run_folder_and_training_lowers_the_error(tmp_path, dataset):
    out = tmp_path / "full"
    out.mkdir()
    s = run.train(dataset(), str(out), quiet=True)
    assert s["epochs"] == 10 and s["steps"] == 40 and s["s_per_epoch"] > 0
    assert set(s["metrics"]) == {"rel_l2", "rel_l2_17"}
    assert s["metrics"]["rel_l2"] < 0.5 * s["initial_rel_l2"]
    assert s["metrics"]["rel_l2_17"] < s["initial_rel_l2"]  # zero-shot on a finer grid
    assert json.loads((out / "summary.json").read_text()) == s
    header, *rows = (out / "metrics.csv").read_text().splitlines()
    assert header == "epoch,step,loss,test_rel_l2,eval_s,lr,epoch_s,wall_time_s" and len(rows) == 10
    # halved every 5 epochs (a float32 schedule: the FNO trains with float64 off)
    assert [float(r.split(",")[5]) for r in rows] == pytest.approx([1e-2] * 5 + [5e-3] * 5, rel=1e-6)
    for f in ("config.yaml", "fields.h5", "checkpoints/latest.h5", "checkpoints/best.h5", "plots/history.png",
              "plots/test_9_0.png", "plots/test_17_0.png"):
        assert (out / f).is_file(), f
    grids = xdmf_sidecar.check(str(out / "fields.xdmf"))  # ParaView opens every test sample of fields.h5
    assert [(g["name"], g["points"]) for g in grids] == [("s = 9", 81), ("s = 17", 289)]
    assert set(grids[0]["fields"]) == {"inputs_0", "outputs_0", "prediction_0", "error_0"}
    with h5py.File(out / "fields.h5") as f:
        assert f.attrs["case"] == "tiny_darcy" and f.attrs["generator"] == "darcy"
        np.testing.assert_array_equal(xdmf_sidecar.values(grids[1]["fields"]["prediction_0"], f),
                                      f["17/prediction"][0, ..., 0].ravel())
    with h5py.File(out / "fields.h5") as f:
        assert f["17/prediction"].shape == (1, 17, 17, 1)
        assert f["9"].attrs["rel_l2"] == pytest.approx(s["metrics"]["rel_l2"])


def test_a_super_resolution_test_set_of_its_own(tmp_path, case_file, fake_darcy):
    """Trained on data solved on its grid (9), tested zero-shot on 3 samples of its own solved on 17."""
    cfg = cases.load(case_file(tmp_path, data__n_test_super=3, training__epochs=2)).config
    data.write(cfg.data, cfg.data.path)
    out = tmp_path / "run"
    out.mkdir()
    s = run.train(cfg, str(out), quiet=True)
    assert set(s["metrics"]) == {"rel_l2", "rel_l2_17"} and np.isfinite(s["metrics"]["rel_l2_17"])
    with h5py.File(out / "fields.h5") as f:
        assert f["17/prediction"].shape == (1, 17, 17, 1) and f["9/prediction"].shape == (1, 9, 9, 1)


def test_nan_stops_and_keeps_the_last_good_epoch(tmp_path, dataset, monkeypatch):
    make_step = run.make_step

    def poisoned(*args):  # the real step, turning NaN from epoch 3 on (call 1 is the warm-up compile)
        real, calls = make_step(*args), [0]

        def step(state, x, y):
            calls[0] += 1
            state, loss = real(state, x, y)
            if calls[0] > 1 + 2 * 4:
                state = jax.tree_util.tree_map(lambda v: v * np.nan if v.dtype.kind == "f" else v, state)
                loss = loss * np.nan
            return state, loss

        return step

    monkeypatch.setattr(run, "make_step", poisoned)
    monkeypatch.setattr(run, "_CACHE", {})
    out = tmp_path / "nan"
    out.mkdir()
    with pytest.raises(TrainingDiverged) as e:
        run.train(dataset(), str(out), quiet=True)
    assert str(e.value).startswith("loss became nan in epoch 3 (batch 1 of 4); training stopped. "
                                   "The last good state (end of epoch 2) is in")
    with h5py.File(out / "checkpoints" / "latest.h5") as f:
        assert int(f.attrs["epoch"]) == 2
        leaves = [np.asarray(f["state"][k]) for k in f["state"]]
    assert all(np.isfinite(v).all() for v in leaves if v.dtype.kind == "f")
    assert len((out / "metrics.csv").read_text().splitlines()) == 3


def test_sigint_finishes_the_epoch_and_resume_continues_exactly(tmp_path, dataset, monkeypatch):
    """Ctrl-C in epoch 3 (call 1 of the step is the warm-up compile, then 4 batches an epoch): the epoch
    finishes, latest.h5 holds its end, the summary says interrupted; --resume ends as a run never stopped."""
    import os
    import signal

    from sciml.errors import Interrupted

    make_step = run.make_step

    def interrupting(*args):
        real, calls = make_step(*args), [0]

        def step(state, x, y):
            calls[0] += 1
            if calls[0] == 1 + 2 * 4 + 2:
                os.kill(os.getpid(), signal.SIGINT)
            return real(state, x, y)

        return step

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with monkeypatch.context() as m:
        m.setattr(run, "make_step", interrupting)
        m.setattr(run, "_CACHE", {})
        with pytest.raises(Interrupted) as e:
            run.train(dataset("b"), str(tmp_path / "b"), quiet=True)
    assert e.value.exit_code == 130 and str(e.value).startswith("stopped by SIGINT at step 12; ")
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["status"] == "interrupted"
    with h5py.File(tmp_path / "b" / "checkpoints" / "latest.h5") as f:
        assert int(f.attrs["epoch"]) == 3
    monkeypatch.setattr(run, "_CACHE", {})
    resumed = run.train(dataset("b2"), str(tmp_path / "b"), resume=str(tmp_path / "b"), quiet=True)
    full = run.train(dataset("a"), str(tmp_path / "a"), quiet=True)
    assert resumed["status"] == full["status"] == "completed" and resumed["epochs"] == 10
    assert resumed["metrics"] == full["metrics"] and resumed["final_loss"] == full["final_loss"]
    assert len((tmp_path / "b" / "metrics.csv").read_text().splitlines()) == 11
