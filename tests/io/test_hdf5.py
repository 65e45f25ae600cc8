"""Reading HDF5 files a user hands us: every failure is one line naming the file; checksums of named arrays."""
import h5py
import numpy as np
import pytest

import sciml
from sciml.errors import BadFile
from sciml.io import hdf5

from fault_injection import flip_array, truncate


def _fields(folder):
    path = folder / "fields.h5"
    with h5py.File(path, "w") as f:
        f["x"] = np.linspace(0, 1, 5)
        f.create_dataset("w/prediction", data=np.arange(500.0), compression="gzip", chunks=(100,))
    return str(path)


def test_read_fields(tmp_path):
    _fields(tmp_path)
    f = sciml.read_fields(str(tmp_path))
    np.testing.assert_array_equal(f["w"]["prediction"], np.arange(500.0))
    assert sorted(f) == ["w", "x"]


@pytest.mark.parametrize("damage,what", [
    (truncate, "unreadable fields file: truncated (a damaged or unfinished copy)"),
    (lambda p: open(p, "w").write("{}"), "unreadable fields file: not an HDF5 file"),
    (lambda p: flip_array(p, "w/prediction"), "damaged fields file: a stored block fails its check"),
])
def test_a_damaged_file_is_one_line(tmp_path, damage, what):
    path = _fields(tmp_path)
    damage(path)
    with pytest.raises(BadFile) as e:
        sciml.read_fields(str(tmp_path))
    assert str(e.value) == f"{path}: {what}"


def test_a_missing_key_is_one_line(tmp_path):
    path = _fields(tmp_path)
    with pytest.raises(BadFile) as e:
        with hdf5.opened(path, "fields file", "; train it again") as f:
            f["u"]
    assert str(e.value) == f"{path}: damaged fields file: 'u' doesn't exist; train it again"
    with pytest.raises(BadFile, match="nowhere.h5: no such fields file$"):
        hdf5.read(str(tmp_path / "nowhere.h5"), "fields file")


def test_digest_sees_values_names_types_and_shapes():
    a = np.arange(6.0)
    base = hdf5.digest([("a", a)])
    changed = [[("a", a + np.eye(1, 6)[0])], [("b", a)], [("a", a.astype(np.float32))], [("a", a.reshape(2, 3))],
               [("a", a), ("a", a[:0])]]
    assert len({base, *(hdf5.digest(c) for c in changed)}) == 1 + len(changed)
    assert hdf5.digest([("a", a[::-1].copy()[::-1])]) == base  # layout in memory does not matter


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_square_matrix_by_its_triangles_comes_back_bit_for_bit(dtype):
    """The upper triangle kept, the lower one the XOR with its mirror: zero where the matrix is symmetric to the
    bit, and the map undone exactly (whatever the matrix: a NaN, a signed zero, an asymmetric one)."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((300, 3))
    a = ((w * [1.0, -2.0, 0.5]) @ w.T).astype(dtype)  # symmetric up to rounding, as BFGS's (U W')
    a[5, 7], a[7, 5], a[0, 1], a[2, 0] = np.nan, 1.0, -0.0, np.inf
    bits = hdf5.symmetric_bits(a)
    upper = np.triu(np.ones(a.shape, bool))
    assert np.array_equal(bits[upper], a.view(bits.dtype)[upper])
    lower = bits[~upper]
    assert 0.1 < np.mean(lower == 0) and np.mean(np.abs(a - a.T)[~upper] == 0) == np.mean(lower == 0)
    back = hdf5.from_symmetric_bits(bits, a.dtype)
    assert back.dtype == a.dtype and np.array_equal(back.view(bits.dtype), a.view(bits.dtype))
    assert hdf5.packs_symmetric(a) and not hdf5.packs_symmetric(a[:, :5]) and not hdf5.packs_symmetric(bits)
