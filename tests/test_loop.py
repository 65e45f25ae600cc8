"""The training loop on a toy driver (NumPy only, no compilation): rows, checkpoints, the NaN stop, resume,
stopping on a signal, the summary."""
import csv
import os
import signal
import sys
import warnings
from dataclasses import dataclass

import h5py
import numpy as np
import pytest

from sciml import loop
from sciml.errors import Interrupted, TrainingDiverged, UserError


@dataclass
class ToyCase:
    case: str = "toy"
    seed: int = 0
    dtype: str = "float64"


class Toy:
    """Chunks of 3 steps adding 1 to ``x``; the loss of step s is 1 / (1 + s); ``latest`` due every 6 steps.
    ``nan_at``: that step's loss is NaN; ``signal_at``: after that step the process signals itself;
    ``crash_at``: after that step's row, the driver fails (a crash between checkpoints)."""

    unit, total = "step", 12

    def __init__(self, nan_at=None, signal_at=None, signum=signal.SIGTERM, crash_at=None, warn_at=None):
        self.nan_at, self.signal_at, self.signum, self.crash_at = nan_at, signal_at, signum, crash_at
        self.warn_at, self.step = warn_at, 0

    def init(self):
        return {"x": np.zeros(3), "opt": {"m": np.zeros(4)}, "step": np.int32(0)}

    def template(self, attrs):
        return self.init()

    def start(self, state, attrs):
        self.step = int(state["step"])
        return state, self.step

    def attrs(self):
        return {"step": self.step}

    def advance(self, state, run):
        if self.step == self.crash_at:
            raise RuntimeError("crash")
        if self.step >= self.total:
            return None
        step, n = self.step, 3
        if step == 0:
            with run.compiling():
                pass
        if step == self.warn_at:
            run.write(f"step {step}: about to warn")
            warnings.warn(f"toy warning at step {step}")
        losses = 1.0 / (1.0 + step + np.arange(n))
        if self.nan_at is not None and step <= self.nan_at < step + n:
            losses[self.nan_at - step] = np.nan
        chunk = loop.Chunk({"x": state["x"] + 1, "opt": {"m": state["opt"]["m"] + n}, "step": np.int32(step + n)}, losses,
                           where=lambda i: f"at step {step + i}", good=f"step {step}")
        if not np.isfinite(losses).all():
            return chunk
        self.step = step + n
        chunk.row = {"step": self.step, "loss": float(losses[-1]), "wall_time_s": run.wall()}
        chunk.latest = self.step % 6 == 0
        if self.step == self.signal_at:
            os.kill(os.getpid(), self.signum)
        return chunk

    def summary(self):
        return {"toy": True}

    def finish(self, state, run, out):
        return {"metrics": {"x": float(state["x"][0]), "m": float(state["opt"]["m"][0])}}


def train(folder, driver, resume=False):
    return loop.run(ToyCase(), lambda: driver, str(folder), str(folder) if resume else None, quiet=True)


def rows(folder):
    with open(folder / "metrics.csv") as fh:
        return [int(r["step"]) for r in csv.DictReader(fh)]


def attrs(folder, name):
    with h5py.File(folder / "checkpoints" / f"{name}.h5") as f:
        x = [np.asarray(d) for d in f["state"].values() if d.attrs["path"] == "['x']"]
        return dict(f.attrs), x[0]


def stored(folder, name):
    """The tree paths a checkpoint file holds."""
    with h5py.File(folder / "checkpoints" / f"{name}.h5") as f:
        return [d.attrs["path"] for d in f["state"].values()]


def test_a_run_writes_rows_checkpoints_and_a_summary(tmp_path):
    s = train(tmp_path, Toy())
    assert s["status"] == "completed" and s["steps"] == 12 and s["metrics"] == {"x": 4.0, "m": 12.0} and s["toy"]
    assert s["final_loss"] == pytest.approx(1 / 12) and s["case"] == "toy"
    assert rows(tmp_path) == [3, 6, 9, 12]
    assert attrs(tmp_path, "latest")[0]["step"] == 12 and attrs(tmp_path, "model")[0]["step"] == 12
    assert (tmp_path / "config.yaml").read_text().startswith("case: toy")


def test_the_log_has_what_the_console_showed_the_warnings_and_the_summary_line(tmp_path, capsys):
    stdout, show = sys.stdout, warnings.showwarning
    with pytest.warns(UserWarning, match="toy warning at step 6"):  # still a warning as before
        s = loop.run(ToyCase(), lambda: Toy(warn_at=6), str(tmp_path), quiet=False)
    assert sys.stdout is stdout and warnings.showwarning is show  # restored
    log = (tmp_path / "log.txt").read_text()
    console = capsys.readouterr()
    summary = loop.headline(s)
    assert summary == f"toy: completed, 12 steps in {s['wall_time_s']:.1f} s (compiling " \
                      f"{s['compile_time_s']:.1f} s); x 4, m 12; run folder {tmp_path}"
    for text in ("step 6: about to warn", summary):
        assert text in console.out and log.count(text) == 1
    assert log.count("UserWarning: toy warning at step 6") == 1
    assert "compiling…" in log and "compiled in" in log and "compiling…" in console.err  # on the progress bar
    assert "12/12" in console.err and "12/12" not in log  # the bar is the console's only


def test_a_quiet_run_logs_its_summary_line_and_a_resumed_one_appends(tmp_path, capsys):
    with pytest.raises(Interrupted):
        train(tmp_path, Toy(signal_at=3))
    s = train(tmp_path, Toy(), resume=True)
    assert capsys.readouterr().out == ""
    log = (tmp_path / "log.txt").read_text()
    assert log.count("--- ") == 2 and f"resuming {tmp_path}" in log
    assert "stopped by SIGTERM at step 3" in log and log.rstrip().endswith(loop.headline(s))


def test_nan_stops_keeping_the_state_before_the_chunk(tmp_path):
    with pytest.raises(TrainingDiverged) as e:
        train(tmp_path, Toy(nan_at=7))
    assert str(e.value) == (f"loss became nan at step 7; training stopped. The last good state (step 6) is in "
                            f"{tmp_path / 'checkpoints' / 'latest.h5'}")
    a, x = attrs(tmp_path, "latest")
    assert a["step"] == 6 and list(x) == [2.0] * 3
    assert rows(tmp_path) == [3, 6] and not (tmp_path / "summary.json").exists()
    assert (tmp_path / "log.txt").read_text().endswith(f"error: {e.value}\n")


@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_after_the_chunk_and_resume_continues(tmp_path, signum, code):
    before = signal.getsignal(signum)
    with pytest.raises(Interrupted) as e:
        train(tmp_path, Toy(signal_at=3, signum=signum))
    assert e.value.exit_code == code and signal.getsignal(signum) is before
    name = signal.Signals(signum).name
    assert str(e.value) == (f"stopped by {name} at step 3; the state is in {tmp_path / 'checkpoints' / 'latest.h5'}."
                            f" Continue with: sciml run --resume {tmp_path}")
    import json
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["steps"] == 3 and summary["metrics"] == {}
    assert attrs(tmp_path, "latest")[0]["step"] == 3  # written although not due (every 6)
    done = train(tmp_path, Toy(), resume=True)
    assert done["status"] == "completed" and done["steps"] == 12 and done["metrics"] == {"x": 4.0, "m": 12.0}
    assert rows(tmp_path) == [3, 6, 9, 12]


def test_resume_drops_rows_after_the_checkpoint(tmp_path):
    with pytest.raises(RuntimeError):
        train(tmp_path, Toy(crash_at=9))  # rows 3, 6, 9 written; latest at 6
    assert rows(tmp_path) == [3, 6, 9] and attrs(tmp_path, "latest")[0]["step"] == 6
    s = train(tmp_path, Toy(), resume=True)
    assert rows(tmp_path) == [3, 6, 9, 12] and s["metrics"] == {"x": 4.0, "m": 12.0}


def test_the_model_is_the_final_state_written_beside_latest(tmp_path, monkeypatch):
    """``model`` (the state without its optimizer: what prediction reads) is written with every ``latest``, so the
    state a run ends, stops or fails with is the model its summary scores; a crash leaves the last written."""
    written = []
    save = loop.checkpoint.save
    monkeypatch.setattr(loop.checkpoint, "save",
                        lambda path, state, **a: (written.append((os.path.basename(path), a["step"])),
                                                  save(path, state, **a)))
    train(tmp_path / "whole", Toy())
    assert written == [("latest.h5", 6), ("model.h5", 6), ("latest.h5", 12), ("model.h5", 12)]
    assert stored(tmp_path / "whole", "model") == ["['step']", "['x']"]
    assert stored(tmp_path / "whole", "latest") == ["['opt']['m']", "['step']", "['x']"]
    assert loop.checkpoint.left_out(attrs(tmp_path / "whole", "model")[0]) == ["['opt']['m']"]
    written.clear()
    with pytest.raises(RuntimeError):
        train(tmp_path / "crash", Toy(crash_at=9))  # rows at 3, 6, 9; latest due at 6
    assert written == [("latest.h5", 6), ("model.h5", 6)]
    written.clear()
    with pytest.raises(TrainingDiverged):
        train(tmp_path / "nan", Toy(nan_at=10))
    assert written == [("latest.h5", 6), ("model.h5", 6), ("latest.h5", 9), ("model.h5", 9)]
    written.clear()
    toy = Toy()
    toy.total = 9  # the last chunk is not a multiple of 6: the end still writes both
    train(tmp_path / "odd", toy)
    assert written == [("latest.h5", 6), ("model.h5", 6), ("latest.h5", 9), ("model.h5", 9)]


def test_the_large_optimizer_arrays_are_kept_once_and_a_resume_without_them_starts_it_afresh(tmp_path, monkeypatch,
                                                                                             capsys):
    """``latest.prev`` holds no optimizer when it has an array larger than ``ALONE_BYTES`` (the dense BFGS matrix): a
    resume from it (``latest`` damaged) takes the template's optimizer, and says so; the rest is exact."""
    monkeypatch.setattr(loop, "ALONE_BYTES", 16)  # the toy's m (4 float64) counts as large
    train(tmp_path, Toy())  # latest at 6 and 12
    assert stored(tmp_path, "latest.prev") == ["['step']", "['x']"] and attrs(tmp_path, "latest.prev")[0]["step"] == 6
    assert stored(tmp_path, "latest") == ["['opt']['m']", "['step']", "['x']"]
    (tmp_path / "checkpoints" / "latest.h5").write_bytes(b"damaged")
    toy = Toy()
    toy.total = 15
    s = train(tmp_path, toy, resume=True)
    err = capsys.readouterr().err
    assert "using the previous checkpoint" in err and "the optimizer starts afresh from its parameters at step 6" in err
    assert s["metrics"] == {"x": 5.0, "m": 9.0}  # x continued from step 6; m from the template's zeros


def test_resume_with_only_the_model_says_how_to_continue_from_it(tmp_path, capsys):
    train(tmp_path, Toy())
    for name in ("latest.h5", "latest.prev.h5", "model.prev.h5"):  # model.h5 alone is left
        (tmp_path / "checkpoints" / name).unlink()
    latest, model = tmp_path / "checkpoints" / "latest.h5", tmp_path / "checkpoints" / "model.h5"
    with pytest.raises(UserError) as e:
        train(tmp_path, Toy(), resume=True)
    assert str(e.value) == (f"{latest}: no checkpoint to resume from, but {model} exists (the model, step 12, "
                            f"without the optimizer's state); to continue from it, the optimizer starting afresh: "
                            f"cp {model} {latest} && sciml run --resume {tmp_path}")
    os.rename(model, latest)  # as the message says (a copy)
    toy = Toy()
    toy.total = 15
    assert train(tmp_path, toy, resume=True)["metrics"] == {"x": 5.0, "m": 3.0}
    assert "the optimizer starts afresh from its parameters at step 12" in capsys.readouterr().err
    for f in (tmp_path / "checkpoints").iterdir():
        f.unlink()
    with pytest.raises(UserError, match="latest.h5: no checkpoint to resume from$"):
        train(tmp_path, Toy(), resume=True)


def test_a_second_signal_acts_at_once():
    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    with loop._Stop() as stop:
        assert stop.requested() == 0
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.requested() == signal.SIGINT
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # a second SIGTERM ends the process
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            signal.getsignal(signal.SIGINT)  # any bytecode: Python runs the handler
    assert {s: signal.getsignal(s) for s in previous} == previous
