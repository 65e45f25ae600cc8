"""A PINN run's fields.h5 (units, case, times) and its XDMF sidecar, on grids of 2D, 2D + t and 3D domains."""
import json

import h5py
import numpy as np
import pytest
import xdmf_sidecar

from sciml.solvers.pinn.geometry import Box, Rectangle, SpaceTime
from sciml.solvers.pinn.output import fields_h5

UNITS = {"x": "m", "y": "m", "z": "m", "t": "s", "u": "m/s", "p": "Pa"}


def write(tmp_path, domain, grid, units=UNITS, reference=True):
    ev = domain.evaluation_points(grid)
    x = [ev.points[:, i].reshape(ev.shape) for i in range(len(ev.shape))]
    pred = {"u": np.sin(sum(x)), "p": np.cos(x[0]) * x[-1]}
    ref = {k: v + 0.01 for k, v in pred.items()} if reference else None
    fields_h5.write(str(tmp_path / "fields.h5"), ev, pred, ref, "demo", units)
    return ev, pred


@pytest.mark.parametrize("domain,grid", [
    (Rectangle((0, 2), (0, 1), holes=[((1.0, 0.5), 0.2, "hole")]), [9, 5]),
    (Box((0, 2), (-1, 1), (0, 0.5)), [5, 4, 3]),
])
def test_steady_fields_are_one_grid_with_units(tmp_path, domain, grid):
    ev, pred = write(tmp_path, domain, grid)
    with h5py.File(tmp_path / "fields.h5") as f:
        assert f.attrs["case"] == "demo" and list(f.attrs["coords"]) == list(ev.coords) and "times" not in f.attrs
        assert json.loads(f.attrs["units"]) == UNITS
        assert [f[c].attrs["units"] for c in ev.coords] == ["m"] * len(ev.coords)
        assert f["u"].attrs["units"] == "m/s" and f["p"].attrs["units"] == "Pa"
        (g,) = xdmf_sidecar.check(str(tmp_path / "fields.xdmf"))
        assert g["time"] is None and g["points"] == np.prod(grid)
        assert set(g["fields"]) == {"inside", "u", "u_reference", "u_error", "p", "p_reference", "p_error"}
        np.testing.assert_array_equal(xdmf_sidecar.values(g["fields"]["u"], f), pred["u"].ravel())
        np.testing.assert_array_equal(xdmf_sidecar.values(g["fields"]["inside"], f), ev.mask)


@pytest.mark.parametrize("space,grid", [(Rectangle((0, 2), (0, 1)), [6, 5, 4]), (Box((0, 1), (0, 1), (0, 1)), [3, 4, 5, 3])])
def test_unsteady_fields_are_a_time_series(tmp_path, space, grid):
    ev, pred = write(tmp_path, SpaceTime(space, (0.0, 1.5)), grid, reference=False)
    times = np.linspace(0.0, 1.5, grid[-1])
    grids = xdmf_sidecar.check(str(tmp_path / "fields.xdmf"))
    assert [g["time"] for g in grids] == list(times) and all(g["points"] == np.prod(grid[:-1]) for g in grids)
    with h5py.File(tmp_path / "fields.h5") as f:
        np.testing.assert_array_equal(f.attrs["times"], times)
        assert f["t"].attrs["units"] == "s"
        for k, g in enumerate(grids):  # each time level reads its slice of the space-time arrays
            assert set(g["fields"]) == {"inside", "u", "p"}
            np.testing.assert_array_equal(xdmf_sidecar.values(g["fields"]["p"], f), pred["p"][..., k].ravel())


def test_an_equation_without_units_says_so(tmp_path):
    write(tmp_path, Rectangle((0, 1), (0, 1)), [3, 3], units=None)
    with h5py.File(tmp_path / "fields.h5") as f:
        assert f.attrs["units"] == fields_h5.UNKNOWN_UNITS and "units" not in f["u"].attrs
