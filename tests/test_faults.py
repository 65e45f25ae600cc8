"""The fault-injection table (issue 23): each fault a long run meets, met as a user meets it (the real command
line in a fresh process), with the exit status and the first line it prints.

| fault | expected |
|---|---|
| ``latest.h5`` damaged, ``latest.prev.h5`` good; ``--resume`` | a warning naming both; the run resumes from the previous one and ends as the uninterrupted run did |
| every checkpoint damaged; ``--resume`` | exit 2, one line naming the file and what is wrong |
| an export with damaged bytes; ``sciml predict`` | exit 2, one line naming the file |
| a truncated dataset; ``sciml run`` | exit 2, one line naming the file |
| the disk fills while a run writes a checkpoint | exit 2, one line naming the path; the previous checkpoints unchanged, no temporary file |
| a second ``sciml run`` on a folder a live run holds | exit 2, one line naming the holder's PID |
| ``sciml datagen`` killed (SIGKILL) half-way, then started again | it continues after the last complete chunk; the dataset equals one made in one go |

(Graceful stops on SIGTERM/SIGINT, and resuming when only ``model.h5`` is left, have their rows with the
training loop's tests.)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Callable

import h5py
import numpy as np
import pytest

from sciml import cases
from sciml.compile import export
from sciml.solvers.fno import data

import fault_injection
from cli_cases import TINY_DARCY, write_case
from fault_injection import flip, flip_array, holder, truncate

WRAPPER = fault_injection.__file__


@dataclass
class Fault:
    """A command (``sciml`` arguments) with the fault in place, and what it must do."""

    argv: list[str]
    code: int
    first_line: str
    stream: str = "stderr"  # where the first line is read
    inject: list[str] = field(default_factory=list)  # fault_injection.py arguments, e.g. ["full-disk", "4096"]
    then: Callable[[], None] = lambda: None  # further checks once the command has run


@dataclass
class Env:
    """What a row may use: its own folder, a copy of the trained run, that run's summary, a tiny FNO case
    (its dataset not made yet), and the processes to stop after the row."""

    tmp: object
    run: object
    trained: tuple
    fno_case: str
    stop: list


def sciml(argv, inject=()):
    """``sciml ARGV`` in a fresh process (through the fault-injection wrapper when ``inject`` is given)."""
    prefix = [WRAPPER, *inject, "--"] if inject else ["-m", "sciml"]
    return subprocess.run([sys.executable, *prefix, *argv], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny plate run of 20 steps with checkpoints every 10 (so ``latest`` and ``latest.prev`` both exist)."""
    root = tmp_path_factory.mktemp("trained")
    case = cases.load(write_case(root, training__adam__steps=20))
    summary = cases.run(case, out=str(root / "run"), quiet=True)
    return root / "run", summary


@pytest.fixture
def run(trained, tmp_path):
    """A fresh copy of the trained run folder."""
    shutil.copytree(trained[0], tmp_path / "run")
    return tmp_path / "run"


def damaged_latest(env):
    ckpt = env.run / "checkpoints"
    flip_array(str(ckpt / "latest.h5"))
    summary = env.trained[1]

    def ends_as_the_uninterrupted_run():
        resumed = json.loads((env.run / "summary.json").read_text())
        assert resumed["steps"] == 20 and resumed["metrics"] == summary["metrics"]
    return Fault(["run", "--resume", str(env.run), "--quiet"], 0,
                 f"warning: {ckpt}/latest.h5: damaged checkpoint: its arrays do not match the checksum stored in "
                 f"it; using the previous checkpoint {ckpt}/latest.prev.h5 (step 10)",
                 then=ends_as_the_uninterrupted_run)


def all_checkpoints_damaged(env):
    ckpt = env.run / "checkpoints"
    flip_array(str(ckpt / "latest.h5"))
    truncate(str(ckpt / "latest.prev.h5"))
    return Fault(["run", "--resume", str(env.run), "--quiet"], 2,
                 f"error: {ckpt}/latest.h5: damaged checkpoint: its arrays do not match the checksum stored in it; "
                 f"the previous version is no better: {ckpt}/latest.prev.h5: unreadable checkpoint: truncated (a "
                 "damaged or unfinished copy)")


def damaged_export(env):
    model = str(env.tmp / "m.jaxexport")
    export.save(model, lambda x: {"y": 2.0 * x}, (2,), np.float32, {"inputs": ["a", "b"], "run_dir": "RUN"})
    flip(model, os.path.getsize(model) // 2)
    (env.tmp / "pts.csv").write_text("a,b\n1,2\n")
    return Fault(["predict", model, str(env.tmp / "pts.csv")], 2,
                 f"error: {model}: damaged export: its bytes do not match the checksum in {model[:-10]}.json; "
                 f"export it again with: sciml export RUN --out {model}")


def damaged_dataset(env):
    cfg = cases.load(env.fno_case).config.data
    data.write(cfg, cfg.path)
    truncate(cfg.path)
    return Fault(["run", env.fno_case, "--out", str(env.tmp / "fno"), "--quiet"], 2,
                 f"error: {cfg.path}: unreadable dataset: truncated (a damaged or unfinished copy); make it again "
                 "with `sciml datagen CASE.yaml --force`")


def full_disk(env):
    """Each file has room for 4 kB: config.yaml and metrics.csv fit, the checkpoint at step 30 (latest) does
    not."""
    ckpt = env.run / "checkpoints"
    before = {f: (ckpt / f).read_bytes() for f in os.listdir(ckpt)}

    def previous_checkpoints_intact():
        assert {f: (ckpt / f).read_bytes() for f in os.listdir(ckpt)} == before  # no .tmp either
    return Fault(["run", "--resume", str(env.run), "training.adam.steps=30", "--quiet"], 2,
                 f"error: {ckpt}/latest.h5: cannot write: no space left on the device (the previous version, if any, "
                 "is intact); free some space and run again", inject=["full-disk", "4096"],
                 then=previous_checkpoints_intact)


def held_folder(env):
    live = holder(str(env.run))
    env.stop.append(live)
    return Fault(["run", "--resume", str(env.run), "--quiet"], 2,
                 f"error: {env.run}: in use by another run (PID {live.pid}); wait for it to end, stop it, or "
                 "give another --out")


def datagen_killed(env):
    cfg = cases.load(env.fno_case).config.data
    killed = sciml(["datagen", env.fno_case, "--quiet"], inject=["kill-after-parts", "2"])
    assert killed.returncode == -signal.SIGKILL
    folder = cfg.path + ".parts"
    assert sorted(f[:10] for f in os.listdir(folder)) == [".part-0000", "part-00000", "part-00001"]
    one_go = str(env.tmp / "one_go.h5")
    data.write(cfg, one_go)

    def equals_one_go():
        with h5py.File(cfg.path) as a, h5py.File(one_go) as b:
            names = []
            a.visititems(lambda k, v: names.append(k) if isinstance(v, h5py.Dataset) else None)
            assert len(names) == 9  # train and two test grids, inputs, outputs and grid each
            for k in names:
                np.testing.assert_array_equal(a[k][()], b[k][()], err_msg=k)
        assert not os.path.exists(folder) and os.listdir(os.path.dirname(cfg.path)) == ["tiny_darcy.h5"]
    return Fault(["datagen", env.fno_case, "--quiet"], 0, f"dataset: {cfg.path}", stream="stdout",
                 then=equals_one_go)


ROWS = [damaged_latest, all_checkpoints_damaged, damaged_export, damaged_dataset, full_disk, held_folder,
        datagen_killed]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.__name__)
def test_fault(row, tmp_path, run, trained):
    fno = {**TINY_DARCY, "data": {**TINY_DARCY["data"], "path": str(tmp_path / "data" / "tiny_darcy.h5"),
                                  "chunk": 12}}
    env = Env(tmp_path, run, trained, write_case(tmp_path, fno, name="fno.yaml"), [])
    try:
        fault = row(env)
        p = sciml(fault.argv, fault.inject)
        out = getattr(p, fault.stream)
        assert (p.returncode, out.splitlines()[:1]) == (fault.code, [fault.first_line]), p.stderr
        assert "Traceback" not in p.stderr
        fault.then()
    finally:
        for proc in env.stop:
            proc.kill()
            proc.wait()
