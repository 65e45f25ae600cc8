"""XDMF sidecars: grids of 1 to 3 axes over datasets and slabs of them."""
import h5py
import numpy as np
import pytest

from sciml.io import xdmf

import xdmf_sidecar


def slab(f, path, **held):
    return xdmf.Slab(path, f[path].shape, f[path].dtype, {int(k[1:]): v for k, v in held.items()})


def test_a_line_and_samples_held_at_an_index(tmp_path):
    with h5py.File(tmp_path / "d.h5", "w") as f:
        f["grid"] = np.linspace(0, 1, 7)[:, None]
        f["a"] = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3)
        grid = xdmf.Grid("line", (7,), [slab(f, "/grid", a1=0)], {"a_1_c2": slab(f, "/a", a0=1, a2=2)})
    (g,) = xdmf_sidecar.check(xdmf.write(str(tmp_path / "d.h5"), [grid]))
    with h5py.File(tmp_path / "d.h5") as f:
        np.testing.assert_array_equal(xdmf_sidecar.values(g["fields"]["a_1_c2"], f), f["a"][1, :, 2])


def test_a_slab_of_another_size_is_refused(tmp_path):
    x, u = xdmf.Slab("/x", (4, 4), np.dtype("f8")), xdmf.Slab("/u", (4, 5), np.dtype("f8"))
    xdmf.Grid("g", (4, 4), [x, x], {"u": x})
    with pytest.raises(ValueError, match=r"slabs of another size: \['/u'\]"):
        xdmf.Grid("g", (4, 4), [x, x], {"u": u})


def test_scattered_points_are_polyvertex_with_their_coordinates(tmp_path):
    with h5py.File(tmp_path / "d.h5", "w") as f:
        f["grid"] = np.random.default_rng(0).uniform(size=(9, 2))
        f["u"] = np.arange(2 * 9, dtype=np.float32).reshape(2, 9, 1)
        coords = [slab(f, "/grid", a1=j) for j in range(2)]
        grid = xdmf.Grid("points", (9,), coords, {"u_1": slab(f, "/u", a0=1, a2=0)}, scattered=True)
    (g,) = xdmf_sidecar.check(xdmf.write(str(tmp_path / "d.h5"), [grid]))
    assert g["points"] == 9 and 'TopologyType="Polyvertex"' in (tmp_path / "d.xdmf").read_text()
    with h5py.File(tmp_path / "d.h5") as f:
        np.testing.assert_array_equal(xdmf_sidecar.values(g["fields"]["u_1"], f), f["u"][1, :, 0])
    with pytest.raises(ValueError, match="1 coordinates"):
        xdmf.Grid("points", (9,), coords[:1], {}, scattered=True)
