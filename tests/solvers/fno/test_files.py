"""A dataset of your own (data.file, solvers/fno/files.py): a generator's samples written to HDF5, MATLAB v5 and
MATLAB v7.3 files make the same dataset as the generator, bit for bit, and train to the same errors; every
mismatch between the case and the file is one line naming the key (exit 2)."""
import copy
import pathlib

import h5py
import numpy as np
import pytest
from scipy import io

from cli_cases import TINY_DARCY
from sciml import cases
from sciml.cli import main
from sciml.solvers.fno import data, files
from cli_cases import write_case as write_file
from dataset_files import matlab73


def write_case(tmp_path, data=None, name="case.yaml", **changes):
    """A tiny case file in ``tmp_path``, its dataset beside it (``a__b=value`` sets key a.b)."""
    data = copy.deepcopy(data or TINY_DARCY)
    data["data"]["path"] = str(tmp_path / "data" / f"{name[:-5]}.h5")
    return write_file(tmp_path, data, name, **changes)


def from_file(tmp_path, path, **changes):
    """The tiny Darcy case reading ``path`` (arrays a, u) instead of its generator."""
    case = copy.deepcopy(TINY_DARCY)
    case["data"] = {k: v for k, v in case["data"].items() if k not in ("generator",)}
    case["data"].update({"file": str(path), "inputs": "a", "outputs": "u"})
    return write_case(tmp_path, case, name=f"from_{path.stem}.yaml", **changes)


@pytest.fixture
def generated(tmp_path_factory, fake_darcy):
    """The tiny Darcy case's dataset from its (stand-in) generator, and its samples on the solver's grid (17)
    as a user's files would hold them: (samples, x, y), training then test samples."""
    root = tmp_path_factory.mktemp("generated")
    path = write_case(root)
    assert main(["datagen", path, "--quiet"]) == 0
    cfg = cases.load(path).config
    chunks = [fake_darcy(n, 17, data.chunk_seed(cfg.data.seed, i)) for i, n in enumerate([24, 24])]
    arrays = {k: np.concatenate([c[k] for c in chunks]).astype(np.float32) for k in ("a", "u")}
    h5 = root / "darcy.h5"
    with h5py.File(h5, "w") as f:
        f["a"], f["u"] = arrays["a"], arrays["u"][..., None]  # one with a channel axis, one without
    io.savemat(root / "darcy_v5.mat", arrays)
    return cfg.data.path, {"hdf5": h5, "v5": root / "darcy_v5.mat",
                           "v7.3": pathlib.Path(matlab73(root / "darcy_v73.mat", arrays))}, arrays


def test_a_file_makes_the_generators_dataset_bit_for_bit(tmp_path, generated):
    made, paths, _ = generated
    with h5py.File(made) as f:
        want = {g: {k: f[f"{g}/{k}"][()] for k in ("inputs", "outputs", "grid")} for g in ("train", "test/9", "test/17")}
    for kind, path in paths.items():
        case = from_file(tmp_path, path)
        assert main(["datagen", case, "--quiet"]) == 0, kind
        with h5py.File(cases.load(case).config.data.path) as f:
            for g, arrays in want.items():
                for k, a in arrays.items():
                    np.testing.assert_array_equal(f[f"{g}/{k}"][()], a, err_msg=f"{kind} {g}/{k}")
            assert f.attrs["generator"] == "file" and f.attrs["grid_kind"] == "closed"
        assert main(["datagen", case]) == 0  # again: up to date, kept
        data.check(cases.load(case).config.data)


def test_pdebench_darcy_layout_by_an_indexed_key(tmp_path, generated):
    """PDEBench's 2D Darcy file: ``nu`` (samples, x, y) and ``tensor`` (samples, 1, x, y): ``tensor[:, 0]``."""
    made, _, arrays = generated
    path = tmp_path / "2D_DarcyFlow.hdf5"
    with h5py.File(path, "w") as f:
        f["nu"], f["tensor"] = arrays["a"], arrays["u"][:, None]
    case = from_file(tmp_path, path, data__inputs="nu", data__outputs="tensor[:, 0]")
    assert main(["datagen", case, "--quiet"]) == 0
    with h5py.File(made) as want, h5py.File(cases.load(case).config.data.path) as got:
        for k in ("train/inputs", "train/outputs", "test/17/outputs"):
            np.testing.assert_array_equal(got[k][()], want[k][()], err_msg=k)


def test_the_same_training_from_the_file_as_from_the_generator(tmp_path, generated, capsys):
    made, paths, _ = generated
    runs = {}
    for name, case in (("generator", write_case(tmp_path, name="gen.yaml", data__path=made)),
                       ("file", from_file(tmp_path, paths["v7.3"]))):
        assert main(["datagen", case, "--quiet"]) == 0
        summary = cases.run(cases.load(case, ["training.epochs=3"]), out=str(tmp_path / name), quiet=True)
        runs[name] = {k: v for k, v in summary["metrics"].items()}
    assert runs["file"] == runs["generator"] and runs["file"]["rel_l2"] > 0


def test_a_test_file_and_a_periodic_grid(tmp_path, generated):
    _, _, arrays = generated
    train, test = tmp_path / "train.h5", tmp_path / "test.h5"
    with h5py.File(train, "w") as f:
        f["a"], f["u"] = arrays["a"][:40, :16, :16], arrays["u"][:40, :16, :16]
    with h5py.File(test, "w") as f:
        f["a"], f["u"] = arrays["a"][40:, :16, :16], arrays["u"][40:, :16, :16]
    case = from_file(tmp_path, train, data__test_file=str(test), data__grid="periodic", data__resolution=8,
                     data__super_resolution=[16], model__padding=0)
    assert main(["datagen", case, "--quiet"]) == 0
    with h5py.File(cases.load(case).config.data.path) as f:
        np.testing.assert_array_equal(f["train/inputs"][..., 0], arrays["a"][:40, :16:2, :16:2])
        np.testing.assert_array_equal(f["test/16/outputs"][..., 0], arrays["u"][40:, :16, :16])
        np.testing.assert_array_equal(f["test/8/grid"][:, 0, 0], np.arange(8) / 8)


def broken(tmp_path, arrays) -> dict:
    """Each mismatch between a case and its file: (overrides, what the file holds) -> what the line says."""
    def h5(name, **held):
        path = tmp_path / f"{name}.h5"
        with h5py.File(path, "w") as f:
            for k, v in held.items():
                f[k] = v
        return path

    a, u = arrays["a"], arrays["u"]
    holed = u.copy()
    holed[42, 3, 3] = np.nan
    return {
        "data.outputs: no array 'v'": ({"data__outputs": "v"}, h5("keys", a=a, u=u)),
        "holds 48 samples; the case asks for n_train + n_test = 58": ({"data__n_test": 18}, h5("few", a=a, u=u)),
        "data.outputs: ": ({}, h5("nan", a=a, u=holed)),
        "sample 42 of the outputs holds NaN or inf": ({}, h5("nan2", a=a, u=holed)),
        "the arrays' samples and grids differ": ({"data__outputs": ["u", "w"]}, h5("grids", a=a, u=u, w=u[:, :9, :9])),
        "differ in samples or grid": ({}, h5("shapes", a=a, u=u[:, :9, :9])),
        "expected (samples, S, S) or (samples, S, S, channels)": ({}, h5("dims", a=a[:, :, 0], u=u)),
        "a closed grid of 10 points is not a subsample of": ({"data__resolution": 10, "data__super_resolution": []},
                                                             h5("stride", a=a, u=u)),
    }


def test_each_mismatch_is_one_line_naming_the_key(tmp_path, generated, capsys):
    _, _, arrays = generated
    for said, (changes, path) in broken(tmp_path, arrays).items():
        case = from_file(tmp_path, path, **changes)
        assert main(["datagen", case, "--quiet"]) == 2, said
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, (said, err)


def test_a_missing_file_is_one_line_naming_the_command_that_makes_it(tmp_path, capsys):
    """``data.made_by`` (never run) is named when the file, or the test file, is missing; without it, the path."""
    make = "python make_mine.py data/mine.h5"
    for changes, said in [({"data__made_by": make}, f"data.file: {tmp_path}/mine.h5 does not exist; make it with "
                                                    f"`{make}` (data.made_by)"),
                          ({}, f"data.file: {tmp_path}/mine.h5 does not exist\n")]:
        assert main(["datagen", from_file(tmp_path, tmp_path / "mine.h5", **changes), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    u = np.ones((48, 9, 9))
    with h5py.File(tmp_path / "train.h5", "w") as f:
        f["a"], f["u"] = u, u
    case = from_file(tmp_path, tmp_path / "train.h5", data__made_by=make, data__test_file=str(tmp_path / "t.h5"),
                     data__super_resolution=[])
    assert main(["datagen", case, "--quiet"]) == 2
    assert f"data.test_file: {tmp_path}/t.h5 does not exist; make it with `{make}`" in capsys.readouterr().err


@pytest.mark.parametrize("changes,said", [
    ({"data__generator": "darcy"}, "data.file: give one of data.generator"),
    ({"data__made_by": "python make.py", "data__generator": "darcy", "data__file": None},
     "data.made_by: names the command that makes a data.file; a generator's data is made by `sciml datagen`"),
    ({"data__file": None}, "data.generator: give one of data.generator"),
    ({"data__inputs": []}, "data.inputs: name the file's array(s)"),
    ({"data__params": {"contrast": 2.0}}, "data.params: a dataset from data.file has no generator parameters"),
    ({"data__n_test_super": 4}, "data.n_test_super: a dataset from data.file has no solver"),
    ({"training__terms": {"data": 1.0, "pde": 1.0}}, "physics terms need a generator with physics"),
    ({"evaluation__estimate": True}, "evaluation.estimate: needs a generator with physics (plate, darcy)"),
])
def test_a_case_with_a_file_is_checked_when_it_loads(tmp_path, changes, said, capsys):
    case = from_file(tmp_path, tmp_path / "absent.h5", **changes)
    assert main(["show", case]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err


def test_settings_of_a_file(tmp_path):
    cfg = cases.load(from_file(tmp_path, tmp_path / "x.mat")).config.data
    assert files.settings(cfg) == {"file": str(tmp_path / "x.mat"), "inputs": ["a"], "outputs": ["u"],
                                   "grid": "closed", "test_file": None, "n_train": 40, "n_test": 8,
                                   "resolutions": [9, 17]}
