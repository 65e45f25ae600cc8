"""The PINN driver: training lowers the error, NaN handling, resume and reproducibility."""
import json

import h5py
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import cases, loop
from sciml.errors import TrainingDiverged
from sciml.io import checkpoint
from sciml.solvers.pinn import run as driver

import xdmf_sidecar
from cli_cases import write_case


def train(tmp_path, name="run", **changes):
    case = cases.load(write_case(tmp_path, name=f"{name}.yaml", **changes))
    return driver.train(case.config, str(tmp_path / name), quiet=True), tmp_path / name


def test_training_lowers_error_and_loss(tmp_path):
    short, _ = train(tmp_path, "short", training__adam__steps=10, model__hidden=[16, 16])
    # the residual sits on a plateau (loss ≈ <q²> = 0.25) until the net learns a large Δ²w: L-BFGS leaves it
    long, folder = train(tmp_path, "long", training__adam__steps=100, training__lbfgs__steps=200,
                         training__log_every=100, model__hidden=[16, 16])
    assert long["metrics"]["rel_l2_w"] < 0.5 * short["metrics"]["rel_l2_w"]
    rows = (folder / "metrics.csv").read_text().splitlines()
    assert len(rows) == 4 and rows[0].startswith("step,loss,loss.pde")
    assert long["final_loss"] < 0.1 * short["final_loss"]


def test_nan_stops_and_keeps_last_good_checkpoint(tmp_path, monkeypatch):
    assemble = driver.assemble

    def poisoned(cfg, *rest):
        problem = assemble(cfg, *rest)
        real = problem.loss

        def loss(params, batch, key):  # NaN once the first weights grow past 3 (lr = 1 gets there fast)
            total, terms = real(params, batch, key)
            blown = jnp.abs(params[0]["W"]).max() > 3
            return jnp.where(blown, jnp.nan, total), terms

        problem.loss = loss
        return problem

    monkeypatch.setattr(driver, "assemble", poisoned)
    with pytest.raises(TrainingDiverged) as e:
        train(tmp_path, "nan", training__adam__lr=1.0, training__adam__steps=200)
    msg = str(e.value)
    assert "loss became nan at step" in msg and "last good state" in msg
    bad_step = int(msg.split("at step ")[1].split()[0])
    with h5py.File(tmp_path / "nan" / "checkpoints" / "latest.h5") as f:
        good_step = int(f.attrs["step"])
        leaves = [np.asarray(f["state"][k]) for k in f["state"]]
    assert good_step <= bad_step < good_step + 10
    assert all(np.isfinite(v).all() for v in leaves if v.dtype.kind == "f")


@pytest.mark.parametrize("where", ["adam", "bfgs"])
def test_resume_continues_exactly_on_the_points_drawn_since(tmp_path, monkeypatch, where):
    """New points during Adam (``sampling.resample_every``) or the dense BFGS (``training.lbfgs.resample_every``,
    the estimate kept): a resume draws as many batches again from the stage's stream (the checkpoint's
    ``draws``), so it trains on the points in use at the save and ends where an uninterrupted run does. The dense
    BFGS matrix counts as large here: ``latest.prev`` holds no optimizer, ``latest`` the whole state. A finished
    run resumed with more steps (the plain resume, without new points, ends as an uninterrupted run does in
    :func:`test_sigterm_mid_run_checkpoints_and_resume_continues_exactly`)."""
    monkeypatch.setattr(loop, "ALONE_BYTES", 0 if where == "bfgs" else loop.ALONE_BYTES)
    each = {"adam": dict(sampling__resample_every=10),
            "bfgs": dict(training__lbfgs__method="bfgs", training__lbfgs__resample_every=10,
                         training__lbfgs__keep_curvature=True)}[where]
    steps = lambda n: dict(training__adam__steps=n, training__lbfgs__steps=0) if where == "adam" else \
        dict(training__adam__steps=10, training__lbfgs__steps=n)
    common = dict(training__log_every=5, model__hidden=[8, 8], **each)
    full, _ = train(tmp_path, "full", **steps(50), **common)
    _, folder = train(tmp_path, "resumed", **steps(25), **common)  # saved after two new draws, before a third
    if where == "bfgs":  # latest at the end of Adam (10), then of the BFGS phase (35)
        prev = checkpoint.left_out(checkpoint.attrs(str(folder / "checkpoints" / "latest.prev.h5")))
        assert prev and all(n.startswith("['opt']") for n in prev)
        with h5py.File(folder / "checkpoints" / "latest.h5") as f:  # the matrix by its triangles
            base = [d for d in f["state"].values() if d.attrs["path"].endswith(".base")]
            assert len(base) == 1 and base[0].attrs["layout"] == "symmetric_bits"
    case = cases.load(write_case(tmp_path, name="again.yaml", **steps(50), **common))
    resumed = driver.train(case.config, str(folder), resume=str(folder), quiet=True)
    assert resumed["steps"] == full["steps"]
    np.testing.assert_allclose(resumed["final_loss"], full["final_loss"], rtol=1e-9)
    np.testing.assert_allclose(resumed["metrics"]["rel_l2_w"], full["metrics"]["rel_l2_w"], rtol=1e-9)


def test_same_seed_same_numbers(tmp_path):
    a, _ = train(tmp_path, "a")
    b, _ = train(tmp_path, "b")
    c, _ = train(tmp_path, "c", seed=4)
    assert a["metrics"] == b["metrics"]
    assert a["metrics"] != c["metrics"]


def test_lbfgs_phase_runs_after_adam(tmp_path):
    s, folder = train(tmp_path, "lb", training__adam__steps=20, training__lbfgs__steps=20)
    assert s["steps"] == 40
    phases = [r.split(",")[-1] for r in (folder / "metrics.csv").read_text().splitlines()[1:]]
    assert phases == ["0", "0", "1", "1"]
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["final_loss"] < 1.0
    (grid,) = xdmf_sidecar.check(str(folder / "fields.xdmf"))  # ParaView opens every field of fields.h5
    assert {"w", "w_reference", "w_error", "mx", "mx_reference", "inside"} <= set(grid["fields"])
    with h5py.File(folder / "fields.h5") as f:
        assert f.attrs["case"] == "tiny_plate" and f["w"].attrs["units"] == "m" and f["x"].attrs["units"] == "m"


def test_lbfgs_restarts_on_new_points(tmp_path, monkeypatch):
    """``training.lbfgs.resample_every``: new points every k L-BFGS steps (not after the last), each time a
    fresh L-BFGS state; the loss keeps falling."""
    fresh, drawn = [], []
    init_state, assemble = driver.optim.init_state, driver.assemble

    def counted(cfg, *rest):
        problem = assemble(cfg, *rest)
        sample = problem.sample
        problem.sample = lambda *a, **k: drawn.append(1) or sample(*a, **k)
        return problem

    monkeypatch.setattr(driver.optim, "init_state", lambda *a, **k: fresh.append(1) or init_state(*a, **k))
    monkeypatch.setattr(driver, "assemble", counted)
    s, folder = train(tmp_path, "re", training__adam__steps=10, training__lbfgs__steps=40,
                      training__lbfgs__resample_every=20, training__log_every=10)
    assert len(drawn) == 2  # the first points, and new ones after 20 L-BFGS steps (none after the last 20)
    assert len(fresh) == 3  # optimizer states: Adam's, L-BFGS's at its start, and again on the new points
    losses = [float(r.split(",")[1]) for r in (folder / "metrics.csv").read_text().splitlines()[1:]]
    assert s["steps"] == 50 and np.isfinite(losses).all() and losses[-1] < losses[0]


def test_dense_bfgs_keeps_its_curvature_on_new_points(tmp_path, monkeypatch):
    """``training.lbfgs.keep_curvature``: new points every k dense BFGS steps with the estimate kept (no fresh
    optimizer state after the BFGS phase's first), its last pair rebased on the new points; the loss falls."""
    fresh, init_state = [], driver.optim.init_state
    monkeypatch.setattr(driver.optim, "init_state", lambda *a, **k: fresh.append(1) or init_state(*a, **k))
    s, folder = train(tmp_path, "keep", training__adam__steps=10, training__lbfgs__steps=40,
                      training__lbfgs__method="bfgs", training__lbfgs__resample_every=20,
                      training__lbfgs__keep_curvature=True, training__log_every=10, model__hidden=[8, 8])
    assert len(fresh) == 2  # Adam's and the BFGS phase's: none on the new points
    losses = [float(r.split(",")[1]) for r in (folder / "metrics.csv").read_text().splitlines()[1:]]
    assert s["steps"] == 50 and np.isfinite(losses).all() and losses[-1] < losses[1]


def test_sigterm_mid_run_checkpoints_and_resume_continues_exactly(tmp_path):
    """A real ``sciml run`` process receives SIGTERM (what a scheduler sends before it kills a job) while it
    trains: it finishes the chunk, writes latest.h5 (none was due) and an interrupted summary, exits 143;
    ``--resume`` then ends with the numbers of a run never interrupted (run beside it)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    path = write_case(tmp_path, training__adam__steps=400, training__log_every=10,
                      training__checkpoint_every=100000)
    env = {**os.environ, "SCIML_CACHE_DIR": str(tmp_path / "cache")}
    worker = os.path.join(os.path.dirname(__file__), "cli_worker.py")
    sciml = lambda *args, **kw: subprocess.Popen([sys.executable, worker, "run", *args, "--quiet"], env=env,
                                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    folder, reference = tmp_path / "stopped", tmp_path / "full"
    full, proc = sciml(path, "--out", str(reference)), sciml(path, "--out", str(folder))
    metrics = folder / "metrics.csv"
    while proc.poll() is None and not (metrics.exists() and len(metrics.read_text().splitlines()) > 1):
        time.sleep(0.01)  # training has begun once a row is written
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    summary = json.loads((folder / "summary.json").read_text())
    stopped = summary["steps"]
    assert proc.returncode == 143, err[-2000:]
    assert summary["status"] == "interrupted" and 0 < stopped < 400 and stopped % 10 == 0
    latest = folder / "checkpoints" / "latest.h5"
    assert err.splitlines()[-1] == (f"stopped by SIGTERM at step {stopped}; the state is in {latest}. "
                                    f"Continue with: sciml run --resume {folder}")
    with h5py.File(latest) as f:
        assert int(f.attrs["step"]) == stopped

    resumed = sciml("--resume", str(folder))
    for p in (resumed, full):
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
    a = json.loads((folder / "summary.json").read_text())
    b = json.loads((reference / "summary.json").read_text())
    assert a["status"] == b["status"] == "completed" and a["steps"] == b["steps"] == 400
    assert a["metrics"] == b["metrics"] and a["final_loss"] == b["final_loss"]  # bit-identical
    loss = lambda p: [r.split(",")[:2] for r in (p / "metrics.csv").read_text().splitlines()]
    assert loss(folder) == loss(reference)
