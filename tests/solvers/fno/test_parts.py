"""Dataset parts: an interrupted generation continues after its last complete chunk and gives the dataset one
uninterrupted run gives; a damaged part is solved again; ``fresh`` (``datagen --force``) solves every chunk.
(A real SIGKILL and restart through the command line: ``tests/test_faults.py``.)"""
import dataclasses
import functools
import os

import h5py
import numpy as np
import pytest

from sciml import cases
from sciml.cli import main
from sciml.solvers.fno import data
from sciml.solvers.fno.generators import GENERATORS

from fault_injection import flip_array

KEYS = ("train/inputs", "train/outputs", "test/9/inputs", "test/17/outputs")


def _arrays(path):
    with h5py.File(path) as f:
        return {k: f[k][()] for k in KEYS}


@pytest.fixture
def counted(monkeypatch, fake_darcy):
    """The stand-in Darcy generator, counting its calls; ``fail_at`` makes call number k raise."""
    calls = {"n": 0, "fail_at": None}

    @functools.wraps(fake_darcy)  # keeps its parameters (the case's data.params are checked against them)
    def generate(*args, **kw):
        calls["n"] += 1
        if calls["n"] == calls["fail_at"]:
            raise KeyboardInterrupt  # the run stops here (as a kill would)
        return fake_darcy(*args, **kw)

    monkeypatch.setitem(GENERATORS, "darcy", dataclasses.replace(GENERATORS["darcy"], generate=generate))
    return calls


@pytest.fixture
def cfg(tmp_path, case_file):
    """Tiny Darcy data in 4 chunks of 12 samples (40 train, 8 test)."""
    return cases.load(case_file(tmp_path, data__chunk=12)).config.data


def _interrupted(cfg, counted, at):
    counted.update(n=0, fail_at=at)
    with pytest.raises(KeyboardInterrupt):
        data.write(cfg, cfg.path)
    counted.update(n=0, fail_at=None)
    assert not os.path.exists(cfg.path)


def test_interrupted_generation_continues_and_equals_one_go(cfg, counted, tmp_path):
    _interrupted(cfg, counted, at=3)  # chunks 0 and 1 committed
    parts = data.dataset_parts.of(cfg.path, data.settings(cfg))
    assert sorted(f for f in os.listdir(parts.folder) if not f.startswith(".")) == ["part-00000.h5", "part-00001.h5"]
    data.write(cfg, cfg.path)
    assert counted["n"] == 2 and not os.path.exists(parts.folder)  # only chunks 2 and 3 were solved
    resumed = _arrays(cfg.path)
    one_go = tmp_path / "one_go.h5"
    data.write(cfg, str(one_go))
    for k, a in _arrays(one_go).items():
        np.testing.assert_array_equal(resumed[k], a, err_msg=k)
    assert not [f for f in os.listdir(os.path.dirname(cfg.path)) if f.startswith(".")]


def _rewritten(path):  # a part whose values changed behind its checksum (HDF5's own checks pass)
    with h5py.File(path, "r+") as f:
        f["outputs"][0] += 1.0


@pytest.mark.parametrize("damage,what", [
    (lambda p: flip_array(p, "outputs"), "damaged dataset part: a stored block fails its check"),
    (_rewritten, "damaged dataset part: its arrays do not match the checksum stored in it"),
])
def test_a_damaged_part_is_solved_again(cfg, counted, capsys, tmp_path, damage, what):
    data.write(cfg, str(tmp_path / "one_go.h5"))
    _interrupted(cfg, counted, at=3)
    parts = data.dataset_parts.of(cfg.path, data.settings(cfg))
    damage(parts.path(1))
    data.write(cfg, cfg.path)
    assert counted["n"] == 3  # chunks 2 and 3, and 1 again
    assert capsys.readouterr().err == f"warning: {parts.path(1)}: {what}; solving chunk 1 again\n"
    for k, a in _arrays(tmp_path / "one_go.h5").items():
        np.testing.assert_array_equal(_arrays(cfg.path)[k], a, err_msg=k)


def test_force_fresh_and_other_settings_solve_every_chunk(cfg, counted, tmp_path, case_file):
    _interrupted(cfg, counted, at=3)
    data.write(cfg, cfg.path, fresh=True)
    assert counted["n"] == 4
    os.remove(cfg.path)
    _interrupted(cfg, counted, at=3)
    assert main(["datagen", case_file(tmp_path, data__chunk=12), "--force", "--quiet"]) == 0
    assert counted["n"] == 4
    os.remove(cfg.path)
    _interrupted(cfg, counted, at=3)
    other = cases.load(case_file(tmp_path, data__chunk=12, data__params={"contrast": 2.0})).config.data
    data.write(other, other.path)  # the parts were made with another contrast: none is reused
    assert counted["n"] == 4


def test_unsolved_inputs_are_committed_without_outputs_and_resume(cfg, counted, tmp_path, monkeypatch, fake_darcy):
    """``data.n_physics``: the unsolved inputs' chunk comes after the solved ones, its part holds inputs alone,
    and a run stopped in it continues to the file one uninterrupted run gives (NaN outputs in its rows)."""
    cfg = dataclasses.replace(cfg, n_physics=10)
    drawn = {"n": 0}

    def inputs(*args, **kw):
        drawn["n"] += 1
        if drawn["n"] == 1:
            raise KeyboardInterrupt
        return fake_darcy(*args, **kw)  # the stand-in's arrays, its outputs dropped below

    def without_outputs(*args, **kw):
        return {k: v for k, v in inputs(*args, **kw).items() if k != "u"}

    monkeypatch.setitem(GENERATORS, "darcy", dataclasses.replace(GENERATORS["darcy"], inputs=without_outputs))
    with pytest.raises(KeyboardInterrupt):
        data.write(cfg, cfg.path)
    parts = data.dataset_parts.of(cfg.path, {**data.settings(cfg), "n_physics": 10})
    assert [parts.done(i) for i in range(5)] == [True] * 4 + [False] and counted["n"] == 4
    data.write(cfg, cfg.path)
    assert counted["n"] == 4 and drawn["n"] == 2  # only the unsolved chunk was made again
    one_go = tmp_path / "one_go.h5"
    data.write(cfg, str(one_go))
    with h5py.File(cfg.path) as f, h5py.File(one_go) as g:
        for k in (*KEYS, f"{data.PHYSICS_GROUP}/inputs", f"{data.PHYSICS_GROUP}/outputs"):
            np.testing.assert_array_equal(f[k][()], g[k][()], err_msg=k)
        x, y = f[data.PHYSICS_GROUP]["inputs"][()], f[data.PHYSICS_GROUP]["outputs"][()]
        assert x.shape[0] == y.shape[0] == 50 and f.attrs["n_physics"] == 10
        np.testing.assert_array_equal(x[:40], f["train/inputs"][()])
        assert np.isfinite(y[:40]).all() and np.isnan(y[40:]).all() and np.isfinite(x).all()
