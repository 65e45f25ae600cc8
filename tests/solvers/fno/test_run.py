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
from export_check import assert_exported_model_scores_as_summary


@pytest.fixture
def dataset(tmp_path, case_file, fake_darcy):
    """A tiny case whose dataset exists; returns a function making its config with changes."""
    cfg = cases.load(case_file(tmp_path)).config
    data.write(cfg.data, cfg.data.path)
    return lambda name="case", **changes: cases.load(case_file(tmp_path, name=f"{name}.yaml", **changes)).config


@pytest.mark.figures("history", "test_9_0", "test_17_0")
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
    last = np.array([float(r.split(",")[3]) for r in rows[-5:]])  # the summary's spread of the last 5 errors
    spread = dict(s["last_k"])
    assert spread.pop("metric") == "rel_l2" and spread["max"] > spread["min"]
    assert spread == pytest.approx({"k": 5, "n": 5, "mean": last.mean(), "std": last.std(), "min": last.min(),
                                    "max": last.max()}, rel=1e-6)
    for f in ("config.yaml", "fields.h5", "checkpoints/latest.h5", "checkpoints/model.h5", "plots/history.png",
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
    assert_exported_model_scores_as_summary(out, tmp_path)  # issue 74


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


@pytest.mark.parametrize("average", ["none", "ema"])
def test_sigint_finishes_the_epoch_and_resume_continues_exactly(tmp_path, dataset, monkeypatch, average):
    """Ctrl-C in epoch 3 (call 1 of the step is the warm-up compile, then 4 batches an epoch): the epoch
    finishes, latest.h5 holds its end, the summary says interrupted; --resume ends as a run never stopped
    (with an EMA of the parameters too: it is part of the checkpointed state)."""
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
    changes = {"training__average": {"type": average, "decay": 0.8}}
    with monkeypatch.context() as m:
        m.setattr(run, "make_step", interrupting)
        m.setattr(run, "_CACHE", {})
        with pytest.raises(Interrupted) as e:
            run.train(dataset("b", **changes), str(tmp_path / "b"), quiet=True)
    assert e.value.exit_code == 130 and str(e.value).startswith("stopped by SIGINT at step 12; ")
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["status"] == "interrupted"
    with h5py.File(tmp_path / "b" / "checkpoints" / "latest.h5") as f:
        assert int(f.attrs["epoch"]) == 3
    monkeypatch.setattr(run, "_CACHE", {})
    resumed = run.train(dataset("b2", **changes), str(tmp_path / "b"), resume=str(tmp_path / "b"), quiet=True)
    full = run.train(dataset("a", **changes), str(tmp_path / "a"), quiet=True)
    assert resumed["status"] == full["status"] == "completed" and resumed["epochs"] == 10
    assert resumed["metrics"] == full["metrics"] and resumed["final_loss"] == full["final_loss"]
    assert resumed["last_k"] == full["last_k"]
    assert len((tmp_path / "b" / "metrics.csv").read_text().splitlines()) == 11
    stored = [_leaves(tmp_path / name / "checkpoints" / "latest.h5") for name in ("a", "b")]
    assert stored[0].keys() == stored[1].keys() and any("average" in k for k in stored[0]) == (average == "ema")
    for k in stored[0]:
        np.testing.assert_array_equal(stored[0][k], stored[1][k], err_msg=k)


def _leaves(path) -> dict:
    """A checkpoint's arrays by their path in the state."""
    with h5py.File(path) as f:
        return {f["state"][k].attrs["path"]: np.asarray(f["state"][k]) for k in f["state"]}


def test_ema_in_the_train_step_is_the_average_written_out_by_hand(dataset):
    """Three real steps of a tiny FNO with ``decay = 0.5``: the state's average is ``a3 = d³ p0 + d² (1-d) p1 +
    d (1-d) p2 + (1-d) p3``, from the parameters each step returned; the parameters themselves move as without
    averaging."""
    from sciml.compile import Policy

    cfg = dataset("ema", training__average={"type": "ema", "decay": 0.5})
    with Policy.of(cfg.dtype).precision():
        driver = run._Fno(cfg, quiet=True)
        plain = run._Fno(dataset("plain"), quiet=True)
        state, other = driver.init(), plain.init()
        trajectory = [state["params"]]
        for i in range(3):
            batch = driver.put(*driver.train_set.read(np.arange(10 * i, 10 * i + 10)))
            state, _ = driver.step_fn(state, *batch)
            other, _ = plain.step_fn(other, *batch)
            trajectory.append(state["params"])
            jax.tree_util.tree_map(np.testing.assert_array_equal, state["params"], other["params"])
    p = [np.concatenate([np.ravel(v) for v in jax.tree_util.tree_leaves(t)]) for t in trajectory]
    by_hand = 0.125 * p[0] + 0.125 * p[1] + 0.25 * p[2] + 0.5 * p[3]
    average = np.concatenate([np.ravel(v) for v in jax.tree_util.tree_leaves(state["average"])])
    np.testing.assert_allclose(average, by_hand, rtol=1e-5, atol=1e-7)
    assert np.abs(average - p[3]).max() > 1e-3  # it is not the parameters


def test_swa_averages_the_epoch_ends_and_everything_evaluates_the_average(tmp_path, dataset, monkeypatch):
    """SWA from epoch 7 of 10: the average is the mean of the parameters at the ends of epochs 8, 9, 10; the
    metrics rows, the final errors, fields.h5 and the exported model use it; the raw parameters' error is the
    error of a run without averaging."""
    from sciml import load_run

    seen = {}
    host = run._Fno.host

    def spying(self, state, key=None):  # called after each epoch's end to compute its test errors
        seen.setdefault(int(state["epoch"]), {k: state[k] for k in ("params", "average")})
        return host(self, state, key)

    monkeypatch.setattr(run._Fno, "host", spying)
    out, plain = tmp_path / "swa", tmp_path / "plain"
    s = run.train(dataset("swa", training__average={"type": "swa", "start": 7}), str(out), quiet=True)
    monkeypatch.setattr(run._Fno, "host", host)
    p = run.train(dataset("plain"), str(plain), quiet=True)

    for epoch in range(1, 8):  # before the start the average is the parameters
        jax.tree_util.tree_map(np.testing.assert_array_equal, seen[epoch]["average"], seen[epoch]["params"])
    mean = jax.tree_util.tree_map(lambda *a: np.mean(a, axis=0), *(seen[e]["params"] for e in (8, 9, 10)))
    jax.tree_util.tree_map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7),
                           seen[10]["average"], mean)
    stored = [v for k, v in _leaves(out / "checkpoints" / "latest.h5").items() if k.startswith("['average']")]
    for a, b in zip(stored, jax.tree_util.tree_leaves(seen[10]["average"]), strict=True):
        np.testing.assert_array_equal(a, b)
    header, *rows = (out / "metrics.csv").read_text().splitlines()
    assert header == "epoch,step,loss,test_rel_l2,test_rel_l2_raw,eval_s,lr,epoch_s,wall_time_s"
    cols = np.array([[float(v) for v in r.split(",")[2:5]] for r in rows])
    plain_rows = (plain / "metrics.csv").read_text().splitlines()[1:]
    plain_cols = np.array([[float(v) for v in r.split(",")[2:4]] for r in plain_rows])
    np.testing.assert_array_equal(cols[:, [0, 2]], plain_cols)  # the training is the same; its raw error too
    np.testing.assert_array_equal(cols[:7, 1], cols[:7, 2])  # averaged = raw until the start
    assert not np.array_equal(cols[7:, 1], cols[7:, 2])
    assert s["metrics"]["rel_l2"] == pytest.approx(cols[-1, 1], rel=1e-6) != p["metrics"]["rel_l2"]

    # fields.h5 holds the average's predictions; so does the exported model (model.h5: the last epoch's state)
    written = load_run(str(out))
    with h5py.File(out / "fields.h5") as f:
        assert f["9"].attrs["rel_l2"] == s["metrics"]["rel_l2"]
    with h5py.File(out / "checkpoints" / "model.h5") as f:
        assert int(f.attrs["epoch"]) == 10
    fields = written.fields["9"]
    np.testing.assert_allclose(written.predict(fields["inputs"])["prediction"], fields["prediction"], rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("kind,at_2,at_4", [("onecycle", (1 - np.cos(np.pi / 4)) / 2, 0.5), ("cosine", 0.25, 0.5)])
def test_warmup_is_counted_in_epochs_then_the_cosine_ends_at_final_lr(dataset, kind, at_2, at_4):
    """4 batches an epoch, 10 epochs, lr 1e-2, a warm-up of 2 epochs (8 steps): half a cosine (onecycle) or a
    line (cosine) up to lr, then half a cosine down to final_lr over the other 32 steps."""
    cfg = dataset(training__schedule={"type": kind, "warmup": 2, "final_lr": 1e-3})
    s = run.schedule(cfg, 4)
    lr = 1e-2
    assert [float(s(t)) for t in (0, 2, 4, 8, 24, 40)] == pytest.approx(
        [0.0, lr * at_2, lr * at_4, lr, (lr + 1e-3) / 2, 1e-3], rel=1e-5, abs=1e-12)


def test_last_k_says_how_many_evaluations_it_had():
    rows = [{"test_rel_l2": v} for v in (0.5, np.nan, 0.3, 0.1, np.nan, 0.2)] + [{"loss": 1.0}]
    three = run.last_k(rows, 3)
    assert {k: v for k, v in three.items() if k != "metric"} == pytest.approx(
        {"k": 3, "n": 3, "mean": 0.2, "std": np.sqrt(0.02 / 3), "min": 0.1, "max": 0.3})
    assert run.describe(three) == "last 3 evaluations of rel_l2: mean 0.2 ± 0.082 (min 0.1, max 0.3)"
    assert run.last_k(rows, 10)["n"] == 4 and run.describe(run.last_k(rows, 10)).startswith("last 4 (of 10 asked) ")
    assert run.last_k([], 5) == {"metric": "rel_l2", "k": 5, "n": 0}
    assert run.describe(run.last_k([], 5)) == "no evaluation for the last 5"


def _gradient(state) -> list[np.ndarray]:
    """The gradient of the step that made ``state`` from a fresh one: Adam's first moment after one step is
    ``(1 - b1)`` times it. (The parameters themselves are not compared: Adam's first update is ``lr g / (|g| +
    eps)``, which turns the rounding of a gradient entry near zero into a change of up to ``lr``.)"""
    mu = [np.asarray(leaf) for path, leaf in jax.tree_util.tree_leaves_with_path(state["opt"])
          if "mu" in jax.tree_util.keystr(path)]
    assert len(mu) == len(jax.tree_util.tree_leaves(state["params"]))
    return mu


def test_micro_batches_take_the_same_step(tmp_path, case_file):
    """``training.micro_batch``: the gradient summed over micro-batches is the whole batch's, to rounding."""
    from sciml.bench import fno_step

    changes = {"training__batch_size": 4, "model__spectral": "dft"}
    cfg = cases.load(case_file(tmp_path, **changes)).config
    step, state, (x, y), _ = fno_step.build(str(tmp_path / "case.yaml"), [])
    whole, loss = step(state, x, y)
    for micro in (1, 2):
        split, split_loss = fno_step.build(str(tmp_path / "case.yaml"), [f"training.micro_batch={micro}"])[0](state, x, y)
        np.testing.assert_allclose(float(split_loss), float(loss), rtol=1e-6)
        for a, b in zip(_gradient(split), _gradient(whole)):  # each leaf to rounding of its own scale
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * np.abs(b).max())
    assert cfg.training.micro_batch is None
    with pytest.raises(Exception, match="training.micro_batch.*does not divide training.batch_size = 4"):
        cases.load(case_file(tmp_path, training__micro_batch=3, **changes))


def test_micro_batch_per_backend(tmp_path, case_file, monkeypatch):
    """``training.micro_batch: {cpu: 2}``: 2 on a CPU, the whole batch on a backend the mapping does not name;
    each entry must divide the batch, and the step on this machine takes the entry of its backend."""

    changes = {"training__batch_size": 4, "model__spectral": "dft"}
    training = cases.load(case_file(tmp_path, training__micro_batch={"cpu": 2, "tpu": 1}, **changes)).config.training
    assert (training.micro("cpu"), training.micro("gpu"), training.micro("tpu")) == (2, None, 1)
    assert cases.load(case_file(tmp_path, training__micro_batch=2, **changes)).config.training.micro("gpu") == 2
    with pytest.raises(Exception, match="training.micro_batch.gpu: 3 does not divide training.batch_size = 4"):
        cases.load(case_file(tmp_path, training__micro_batch={"cpu": 2, "gpu": 3}, **changes))
    taken = []  # the micro-batch each step is built with: this backend's entry, whatever the others say
    monkeypatch.setattr(run, "make_step", lambda *args: taken.append(args[4]))
    monkeypatch.setattr(run, "_CACHE", {})
    micro = {"cpu": 1, "gpu": 1, "tpu": 1} | {jax.default_backend(): 2}
    cfg = cases.load(case_file(tmp_path, training__micro_batch=micro, **changes)).config
    run.functions(cfg, 3, 1, 10)
    assert taken == [2]
