"""PINN figures: units on axes and colour bars, a centred map for signed fields, one row per plane."""
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import CenteredNorm

from sciml.solvers.pinn.geometry import Box, Rectangle, SpaceTime
from sciml.solvers.pinn.output import evaluation, plots

UNITS = {"x": "m", "y": "m", "mx": "N m/m", "w": "m", "u": "m/s"}


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def plane(shift=0.0):
    X, Y = np.meshgrid(np.linspace(0, 2, 9), np.linspace(0, 3, 7), indexing="ij")
    return X, Y, np.sin(np.pi * X) * np.cos(Y) + shift


def test_a_signed_field_is_centred_and_labelled_with_its_units():
    X, Y, f = plane()
    fig = plots.field_maps([plots.Level(X, Y, f, 1.1 * f, "t = 1")], "mx", UNITS)
    pred, ref, err = (ax for ax in fig.axes if ax.get_label() != "<colorbar>")
    for ax in (pred, ref):
        norm = ax.collections[0].norm
        assert isinstance(norm, CenteredNorm) and norm.vmin == -norm.vmax == -1.1 * np.abs(f).max()
        assert ax.collections[0].get_cmap().name == "RdBu_r"
    assert err.collections[0].get_cmap().name == "magma" and err.collections[0].norm.vmin >= 0
    assert pred.get_xlabel() == "x [m]" and pred.get_ylabel() == "y [m]" and "t = 1" in pred.get_title()
    bars = [ax.get_ylabel() for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert bars == ["mx [N m/m]", "mx [N m/m]", "|mx error| [N m/m]"]


def test_a_positive_field_keeps_a_sequential_map_and_rows_follow_the_levels():
    X, Y, f = plane(shift=2.0)
    fig = plots.field_maps([plots.Level(X, Y, f, None, f"t = {t}") for t in (0, 0.5, 1)], "w")
    maps = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(maps) == 3 and [ax.get_title().split("\n")[1] for ax in maps] == ["t = 0", "t = 0.5", "t = 1"]
    assert all(ax.collections[0].get_cmap().name == "viridis" for ax in maps)
    assert maps[0].get_xlabel() == "x"  # no units given


def test_flow_is_labelled():
    X, Y, f = plane()
    fig = plots.flow(X, Y, f, -f, "t = 1", UNITS)
    ax, bar = fig.axes
    assert ax.get_xlabel() == "x [m]" and bar.get_ylabel() == "speed [m/s]" and "t = 1" in ax.get_title()


@pytest.mark.parametrize("domain,grid,expected", [
    (Rectangle((0, 1), (0, 1)), [5, 5], [""]),
    (SpaceTime(Rectangle((0, 1), (0, 1)), (0.0, 2.0)), [5, 5, 9], ["t = 0", "t = 1", "t = 2"]),
    (Box((0, 1), (0, 1), (0, 4)), [5, 5, 9], ["z = 1", "z = 2", "z = 3"]),
    (SpaceTime(Box((0, 1), (0, 1), (0, 4)), (0.0, 2.0)), [3, 3, 9, 2], ["z = 2, t = 0", "z = 2, t = 2"]),
])
def test_unsteady_cases_show_time_levels_and_3d_cases_planes(domain, grid, expected):
    ev = domain.evaluation_points(grid)
    levels = evaluation.levels(ev)
    assert [where for _, where in levels] == expected
    for index, _ in levels:
        assert evaluation.on_plane(ev, {"f": ev.points[:, 0].reshape(ev.shape)}, index)["f"].shape == (grid[0], grid[1])


def test_series_draws_each_curve_against_time():
    t = np.linspace(0.0, 1.0, 11)
    fig = plots.series({"t": t, "curves": {"c_D": 3 + t, "c_L": np.sin(t)}, "xlabel": "t", "ylabel": "c",
                        "title": "forces"})
    (ax,) = fig.axes
    assert [line.get_label() for line in ax.get_lines()] == ["c_D", "c_L"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), np.sin(t))
    assert ax.get_xlabel() == "t" and ax.get_title() == "forces"
