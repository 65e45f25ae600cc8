"""A user's dataset file read as sciml reads it (sciml/io/datafile.py): HDF5, MATLAB v5 and v7.3 give the same
arrays, samples first; ``sciml data info`` describes them; every broken file is one line naming it."""
import h5py
import numpy as np
import pytest
from scipy import io

from sciml.cli import main
from sciml.errors import BadFile
from sciml.io import datafile

from dataset_files import matlab73

RNG = np.random.default_rng(0)
COEFF = RNG.uniform(3.0, 12.0, (5, 7, 6))  # (samples, x, y): the FNO paper's coeff
SOL = RNG.normal(size=(5, 7, 6))


@pytest.fixture
def files(tmp_path):
    h5 = tmp_path / "data.h5"
    with h5py.File(h5, "w") as f:
        f["coeff"], f["grid/sol"] = COEFF, SOL
    v5 = tmp_path / "data_v5.mat"
    io.savemat(v5, {"coeff": COEFF, "sol": SOL})
    return {"hdf5": str(h5), "matlab": str(v5), "matlab7.3": matlab73(tmp_path / "data_v73.mat",
                                                                      {"coeff": COEFF, "sol": SOL})}


def test_the_three_kinds_give_the_same_arrays_samples_first(files):
    for kind, path in files.items():
        assert datafile.kind(path) == kind
        np.testing.assert_array_equal(datafile.read(path, "coeff"), COEFF)
        np.testing.assert_array_equal(datafile.read(path, "grid/sol" if kind == "hdf5" else "sol"), SOL)
    assert datafile.keys(files["hdf5"]) == ["coeff", "grid/sol"]
    assert datafile.keys(files["matlab7.3"]) == ["coeff", "sol"]


def test_entries_give_shapes_as_read_ranges_and_nans(tmp_path, files):
    (e,) = [e for e in datafile.entries(files["matlab7.3"]) if e.key == "coeff"]
    assert e.shape == (5, 7, 6) and (e.low, e.high) == (COEFF.min(), COEFF.max()) and e.nans == 0
    holed = SOL.copy()
    holed[1, 2, 3] = holed[4, 0, 0] = np.nan
    with h5py.File(tmp_path / "holed.h5", "w") as f:
        f["sol"] = holed
    datafile.BLOCK, block = 7 * 6 * 8 * 2, datafile.BLOCK  # two samples a read: the range over blocks
    try:
        (e,) = datafile.entries(str(tmp_path / "holed.h5"))
    finally:
        datafile.BLOCK = block
    assert (e.low, e.high, e.nans) == (np.nanmin(holed), np.nanmax(holed), 2)


def test_data_info_prints_the_file_as_read(files, capsys):
    assert main(["data", "info", files["matlab7.3"]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("MATLAB v7.3 (HDF5; arrays shown as MATLAB shows them, axes reversed), 2 numeric arrays")
    assert out[2].split()[:5] == ["coeff", "(5,", "7,", "6)", "float64"]
    assert f"{COEFF.min():.6g} .. {COEFF.max():.6g}" in out[2]


def broken(tmp_path, files) -> dict:
    """Each kind of broken input -> (path, key or None)."""
    text = tmp_path / "notes.txt"
    text.write_text("not data\n")
    bad_mat = tmp_path / "bad.mat"
    bad_mat.write_bytes(b"\x00" * 300)
    cut = tmp_path / "cut.h5"
    cut.write_bytes(open(files["hdf5"], "rb").read()[:1500])
    strings = tmp_path / "strings.mat"
    io.savemat(strings, {"names": np.array(["a", "b"])})
    return {"no such dataset file": (str(tmp_path / "missing.h5"), "coeff"), "not a dataset file": (str(text), "coeff"),
            "unreadable MATLAB file": (str(bad_mat), "coeff"), "truncated": (str(cut), "coeff"),
            "no array 'cof' (did you mean 'coeff'?)": (files["hdf5"], "cof"),
            "no array 'solution'": (files["matlab"], "solution"),
            "data.outputs: no array 'x'": (files["matlab7.3"], "x"),
            "holds <U1 values, not numbers": (str(strings), "names"),
            "'coeff[:, x]' is not an array's key with an index": (files["hdf5"], "coeff[:, x]"),
            "coeff[:, 9]: cannot index an array of shape (5, 7, 6)": (files["matlab7.3"], "coeff[:, 9]"),
            "coeff[::-1]: cannot index an array of shape (5, 7, 6)": (files["hdf5"], "coeff[::-1]"),
            "no array '*/data'": (files["hdf5"], "*/data")}


def test_each_broken_input_is_one_line_naming_the_file(tmp_path, files, capsys):
    for said, (path, key) in broken(tmp_path, files).items():
        with pytest.raises(BadFile) as e:
            datafile.read(path, key, "data.outputs" if key == "x" else "")
        message = str(e.value)
        assert message.startswith(path) and said in message and "\n" not in message, message
        if key != "names" and key != "x" and "array" not in said:  # the file itself is broken: info says so too
            assert main(["data", "info", path]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and said in err


@pytest.mark.parametrize("key,index", [("coeff[:, 0]", np.s_[:, 0]), ("coeff[..., -1]", np.s_[..., -1]),
                                       ("coeff[1:4, ::2, 2]", np.s_[1:4, ::2, 2]), ("coeff [3]", np.s_[3])])
def test_a_key_indexes_its_array_samples_first(files, key, index):
    for kind, path in files.items():
        np.testing.assert_array_equal(datafile.read(path, key), COEFF[index], err_msg=kind)


def test_the_pdebench_layouts(tmp_path, capsys):
    """A 1D file (``tensor`` as (samples, t, x) beside its coordinates) indexed by time, and a 2D file with a
    group per sample (``0000/data`` as (t, x, y, channels), ``0000/grid/x``) read as ``*/PATH``."""
    one = tmp_path / "1D_Burgers.hdf5"
    tensor = RNG.normal(size=(4, 6, 8)).astype(np.float32)
    with h5py.File(one, "w") as f:
        f["tensor"], f["x-coordinate"], f["t-coordinate"] = tensor, np.linspace(0, 1, 8), np.linspace(0, 2, 7)
    np.testing.assert_array_equal(datafile.read(str(one), "tensor[:, 0]"), tensor[:, 0])
    np.testing.assert_array_equal(datafile.read(str(one), "tensor[:, -1]"), tensor[:, -1])
    two = tmp_path / "2D_diff-react.h5"
    samples = RNG.normal(size=(3, 5, 4, 4, 2))
    with h5py.File(two, "w") as f:
        for i, d in enumerate(samples):
            f[f"{i:04d}/data"], f[f"{i:04d}/grid/x"] = d, np.linspace(-1, 1, 4)
    assert [(e.key, e.shape) for e in datafile.entries(str(two))] == [("*/data", (3, 5, 4, 4, 2)),
                                                                      ("*/grid/x", (3, 4))]
    entry = datafile.entries(str(two))[0]
    assert (entry.low, entry.high) == (samples.min(), samples.max())
    np.testing.assert_array_equal(datafile.read(str(two), "*/data[:, 0, ..., 1]"), samples[:, 0, ..., 1])
    np.testing.assert_array_equal(datafile.read(str(two), "*/data[1:, -1]"), samples[1:, -1])
    np.testing.assert_array_equal(datafile.read(str(two), "*/data[2, 0]"), samples[2, 0])
    with pytest.raises(BadFile, match=r"no array '\*/dat' \(did you mean '\*/data'\?\)"):
        datafile.read(str(two), "*/dat")
    assert main(["data", "info", str(two)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[2].startswith("*/data") and "(3, 5, 4, 4, 2)" in out[2]
