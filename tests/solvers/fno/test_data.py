"""FNO datasets: the HDF5 round trip, batch streaming, and the errors a user meets, damaged files included
(one line, exit 2)."""
import json
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

import sciml
from sciml import cases
from sciml.cli import main
from sciml.solvers.fno import data
from sciml.solvers.fno.generators import coordinates

from fault_injection import flip_array, truncate


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_round_trip(tmp_path, case_file, capsys, fake_darcy):
    path = case_file(tmp_path, data__params={"contrast": 2.0})
    code, out, _ = run_cli(capsys, "datagen", path, "--quiet")
    cfg = cases.load(path).config.data
    assert code == 0 and out.strip() == f"dataset: {cfg.path}"
    assert not [f for f in os.listdir(os.path.dirname(cfg.path)) if f.endswith(".tmp")]
    # what the generator makes for each chunk, on the solver's grid (17), subsampled by 2 for s = 9
    chunks = [fake_darcy(n, 17, data.chunk_seed(cfg.seed, i), contrast=2.0) for i, n in enumerate([24, 24])]
    a = np.concatenate([c["a"] for c in chunks])[..., None].astype(np.float32)
    u = np.concatenate([c["u"] for c in chunks])[..., None].astype(np.float32)
    with h5py.File(cfg.path) as f:
        attrs = dict(f.attrs)
        np.testing.assert_array_equal(f["train/inputs"][()], a[:40, ::2, ::2])
        np.testing.assert_array_equal(f["train/outputs"][()], u[:40, ::2, ::2])
        np.testing.assert_array_equal(f["test/9/inputs"][()], a[40:, ::2, ::2])
        np.testing.assert_array_equal(f["test/17/outputs"][()], u[40:])
        np.testing.assert_array_equal(f["test/17/grid"][()], coordinates(17, 2, "closed").astype(np.float32))
        ds = f["train/inputs"]
        assert ds.chunks == (1, 9, 9, 1) and ds.compression == "gzip"
    assert attrs["generator"] == "darcy" and json.loads(attrs["params"]) == {"contrast": 2.0}
    assert attrs["seed"] == 0 and attrs["n_train"] == 40 and attrs["n_test"] == 8
    assert attrs["solve_resolution"] == 17 and list(attrs["resolutions"]) == [9, 17]
    assert attrs["sciml_version"] == sciml.__version__ and attrs["grid_kind"] == "closed"


def test_super_resolution_samples_of_their_own(tmp_path, case_file, capsys, fake_darcy):
    """With data.n_test_super the training grid's samples are solved on it (9) and the finer test grid holds
    that many samples of its own, solved on it (17), with the seed of the chunk after the others."""
    path = case_file(tmp_path, data__n_test_super=5)
    assert run_cli(capsys, "datagen", path, "--quiet")[0] == 0
    cfg = cases.load(path).config.data
    chunks = [fake_darcy(n, 9, data.chunk_seed(cfg.seed, i)) for i, n in enumerate([24, 24])]
    a = np.concatenate([c["a"] for c in chunks])[..., None].astype(np.float32)
    fine = fake_darcy(5, 17, data.chunk_seed(cfg.seed, 2))
    with h5py.File(cfg.path) as f:
        np.testing.assert_array_equal(f["train/inputs"][()], a[:40])
        np.testing.assert_array_equal(f["test/9/inputs"][()], a[40:])
        np.testing.assert_array_equal(f["test/17/inputs"][()], fine["a"][..., None].astype(np.float32))
        np.testing.assert_array_equal(f["test/17/outputs"][()], fine["u"][..., None].astype(np.float32))
        assert f.attrs["solve_resolution"] == 9 and f.attrs["super_solve_resolution"] == 17
        assert f.attrs["n_test_super"] == 5
    assert data.check(cfg)["n_test"] == 8
    assert [len(s) for s in data.open_splits(cfg.path, cfg.resolutions)[1].values()] == [8, 5]
    code, _, err = run_cli(capsys, "datagen", path, "data.n_test_super=6", "--quiet")
    assert code == 2 and "made with other settings (n_test_super: 5, the case asks for 6)" in err


def test_batches_stream_shuffled_by_seed(tmp_path, case_file, fake_darcy):
    cfg = cases.load(case_file(tmp_path)).config
    data.write(cfg.data, cfg.data.path)
    whole = data.Split(cfg.data.path, "train")
    streamed = data.Split(cfg.data.path, "train", memory_limit=0)  # h5py reads batch by batch
    assert whole._arrays is not None and streamed._arrays is None
    seen = []
    for (xa, ya), (xb, yb) in zip(whole.batches(8, np.random.default_rng([1, 0])),
                                  streamed.batches(8, np.random.default_rng([1, 0]))):
        np.testing.assert_array_equal(xa, xb)
        np.testing.assert_array_equal(ya, yb)
        seen.append(xa)
    assert len(seen) == 5 and seen[0].shape == (8, 9, 9, 1)
    allx = np.concatenate(seen)
    ref = whole.read(np.arange(40))[0]
    assert not np.array_equal(allx, ref)  # shuffled
    assert sorted(map(bytes, allx)) == sorted(map(bytes, ref))  # each sample once
    assert whole.num_batches(12, drop_last=True) == 3 and len(list(whole.batches(12, drop_last=True))) == 3


def test_missing_dataset_names_the_datagen_command(tmp_path, case_file, capsys):
    path = case_file(tmp_path)
    code, _, err = run_cli(capsys, "run", path, "--out", str(tmp_path / "r"), "--quiet")
    assert code == 2 and err.count("\n") == 1
    assert err == (f"error: {path}: data.path: dataset {tmp_path}/data/tiny_darcy.h5 does not exist; "
                   f"make it with `sciml datagen {path}`\n")
    other = tmp_path / "other dir" / "d.h5"  # an overridden path travels into the suggested command
    code, _, err = run_cli(capsys, "run", path, f"data.path={other}", "--out", str(tmp_path / "r"), "--quiet")
    assert code == 2 and err.endswith(f"make it with `sciml datagen {path} 'data.path={other}'`\n")


def test_datagen_keeps_a_matching_file_and_refuses_a_stale_one(tmp_path, case_file, capsys, fake_darcy):
    path = case_file(tmp_path)
    assert run_cli(capsys, "datagen", path, "--quiet")[0] == 0
    stamp = os.path.getmtime(cases.load(path).config.data.path)
    assert run_cli(capsys, "datagen", path, "--quiet")[0] == 0
    assert os.path.getmtime(cases.load(path).config.data.path) == stamp
    code, _, err = run_cli(capsys, "datagen", path, "data.n_train=30", "--quiet")
    assert code == 2 and "made with other settings (n_train: 40, the case asks for 30)" in err
    assert err.endswith("add --force to overwrite it\n") and err.count("\n") == 1
    assert run_cli(capsys, "datagen", path, "data.n_train=30", "--force", "--quiet")[0] == 0


@pytest.mark.parametrize("changes,expected", [
    ({"model__modes": [7, 4]}, "model.modes: 7 modes on axis 0 need a grid of at least 14 points, got 12 "
                               "(data.resolution 9 + padding)"),
    ({"model__modes": [4]}, "model.modes: expected 2 numbers (one per axis of the 2-D grid), got [4]"),
    ({"data__super_resolution": [16]}, "data.resolution: a closed grid of 9 points is not a subsample of the "
                                       "solver's grid of S = 16 points (the finest test grid)"),
    ({"data__solve_resolution": 20}, "data.resolution: a closed grid of 9 points is not a subsample of the "
                                     "solver's grid of S = 20 points (data.solve_resolution)"),
    ({"model__type": "recurrent"}, "model.type: 'recurrent' needs a time-dependent generator (vorticity)"),
    ({"data__n_test_super": 4, "data__super_resolution": []},
     "data.n_test_super: there is no super_resolution grid finer than data.resolution to test on"),
    ({"data__n_test_super": 4, "data__super_resolution": [13, 17]},
     "data.super_resolution[0]: a closed grid of 13 points is not a subsample of the solver's grid of S = 17 "
     "points (the finest super_resolution grid)"),
    ({"data__n_test_super": 4, "data__solve_resolution": 12},
     "data.resolution: a closed grid of 9 points is not a subsample of the solver's grid of S = 12 points "
     "(data.solve_resolution)"),
    ({"training__batch_size": 50}, "training.batch_size: 50 is more than data.n_train = 40"),
    ({"data__generator": "dracy"}, "data.generator: must be one of ['darcy', 'burgers', 'vorticity', 'plate'], "
                                   "got 'dracy' (did you mean 'darcy'?)"),
    ({"model__widht": 3}, "model.widht: unknown key (did you mean 'width'?)"),
    ({"data__params": {"alpah": 2}}, "data.params.alpah: unknown parameter of generator 'darcy' (did you mean "
                                     "'alpha'?)"),
    ({"training__schedule": {"type": "onecycle"}}, "training.schedule.warmup: onecycle needs a warm-up of at "
                                                   "least 1 epoch"),
    ({"training__schedule": {"type": "cosine", "warmup": 10}},
     "training.schedule.warmup: 10 epochs of warm-up leave none of the 10 epochs (training.epochs) after it"),
    ({"training__average": {"type": "emma"}}, "training.average.type: must be one of ['none', 'ema', 'swa'], got "
                                              "'emma' (did you mean 'ema'?)"),
    ({"training__average": {"type": "ema", "decay": 1.0}}, "training.average.decay: must be < 1.0, got 1.0"),
    ({"training__average": {"type": "swa", "start": 10}}, "training.average.start: 10 leaves no epoch to average "
                                                          "of the 10 (training.epochs)"),
    ({"evaluation__last_k": 0}, "evaluation.last_k: must be >= 1, got 0"),
])
def test_bad_input_gives_one_line_naming_the_key(tmp_path, case_file, capsys, changes, expected):
    path = case_file(tmp_path, **changes)
    code, _, err = run_cli(capsys, "show", path)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: {path}: ") and expected in err, err


@pytest.mark.parametrize("own", [{}, {"data__n_test_super": 2}], ids=["shared", "super-of-their-own"])
def test_workers_write_the_same_dataset(tmp_path, case_file, capsys, own):
    """Chunks solved in two processes (the real Darcy solver, tiny grid; the finest grid's first) give the file one
    process gives."""
    arrays = {}
    for workers in ("1", "2"):
        (tmp_path / workers).mkdir()
        path = case_file(tmp_path / workers, data__n_train=6, data__n_test=3, data__chunk=3, training__batch_size=3,
                         **own)
        code, _, err = run_cli(capsys, "datagen", path, "--quiet", "--workers", workers)
        assert code == 0, err
        with h5py.File(cases.load(path).config.data.path) as f:
            arrays[workers] = {k: f[k][()] for k in ("train/inputs", "train/outputs", "test/17/outputs")}
    for k, a in arrays["1"].items():
        assert a.std() > 0
        np.testing.assert_array_equal(arrays["2"][k], a)


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads processes from /proc")
def test_sigterm_stops_the_workers_at_once_and_keeps_the_committed_chunks(tmp_path, case_file):
    """SIGTERM while two worker processes solve (the real Darcy solver, a chunk per sample): the command exits
    143 with one line naming the chunks kept, no worker outlives it, and the same command goes on from them."""
    path = case_file(tmp_path, data__resolution=17, data__super_resolution=[33], data__n_train=300, data__n_test=8,
                     data__chunk=1)
    folder = cases.load(path).config.data.path + ".parts"
    command = [sys.executable, "-m", "sciml.cli", "datagen", path, "--quiet", "--workers", "2"]
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (os.path.isdir(folder) and any(f.startswith("part-") for f in os.listdir(folder))):
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()
        time.sleep(0.005)
    workers = _children(p.pid)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143 and err.count("\n") == 1, err
    assert err.startswith("stopped by SIGTERM: ") and f"chunks of {cases.load(path).config.data.path} are kept" in err
    kept = int(err.split(": ")[1].split()[0])
    assert 1 <= kept < 308 and kept == sum(f.startswith("part-") for f in os.listdir(folder)), err
    assert len(workers) >= 2
    while any(_alive(w) for w in workers):  # the pool ends its workers as the command stops
        assert time.monotonic() < deadline, [w for w in workers if _alive(w)]
        time.sleep(0.05)
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and not os.path.exists(folder), again.stderr


def test_workers_must_be_positive(tmp_path, case_file, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["datagen", case_file(tmp_path), "--workers", "0"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--workers: expected a positive integer, got '0'" in err


def _without_test_split(path):
    with h5py.File(path, "r+") as f:
        del f["test/17/outputs"]


def _a_checkpoint(path):
    from sciml.io import checkpoint

    checkpoint.save(path, {"params": np.zeros(3)}, step=1)


@pytest.mark.parametrize("damage,what", [
    (truncate, "unreadable dataset: truncated (a damaged or unfinished copy)"),
    (lambda p: open(p, "w").write("a,b\n1,2\n"), "unreadable dataset: not an HDF5 file"),
    (_a_checkpoint, "not a sciml dataset (no settings in its attributes)"),
    (_without_test_split, "damaged dataset: test/17/outputs is missing"),
    (lambda p: flip_array(p, "train/inputs"), "damaged dataset: a stored block fails its check"),
])
def test_a_damaged_dataset_is_one_line(tmp_path, case_file, capsys, fake_darcy, damage, what):
    path = case_file(tmp_path)
    cfg = cases.load(path).config.data
    data.write(cfg, cfg.path)
    damage(cfg.path)
    code, _, err = run_cli(capsys, "run", path, "--out", str(tmp_path / "r"), "--quiet")
    assert (code, err) == (2, f"error: {cfg.path}: {what}; make it again with `sciml datagen CASE.yaml --force`\n")
