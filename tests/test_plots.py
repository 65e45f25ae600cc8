"""Run-folder figures: centred diverging maps for signed values, the loss plot's phase switch and errors, no file
within `plots.disabled`, and no matplotlib loaded until a figure is built."""
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.layout_engine import ConstrainedLayoutEngine

from sciml import plots


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_signed_values_get_a_diverging_map_centred_at_zero():
    scale = plots.colour_scale(np.array([-1.0, 0.5]), np.array([np.nan, 3.0]))
    assert scale["cmap"] == plots.DIVERGING and (scale["norm"].vmin, scale["norm"].vmax) == (-3.0, 3.0)
    assert scale["norm"](0.0) == 0.5
    scale = plots.colour_scale(np.array([0.5, 2.0]))
    assert scale["cmap"] == plots.SEQUENTIAL and (scale["norm"].vmin, scale["norm"].vmax) == (0.5, 2.0)


def rows(phases=(0, 0, 1, 1), errors=False):
    out = []
    for i, p in enumerate(phases):
        row = {"step": 10 * (i + 1), "loss": 1.0 / (i + 1), "loss.pde": 0.5 / (i + 1), "phase": p}
        if errors and i % 2:
            row["rel_l2_w"] = 0.1 / (i + 1)
        out.append(row)
    return out


def test_the_loss_plot_marks_the_switch_to_lbfgs_and_shows_the_errors():
    fig = plots.loss_history(rows(errors=True), "demo", ("Adam", "L-BFGS"), {"rel_l2_w": 0.01, "loss": 3.0})
    ax, err = fig.axes
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    switch = [line for line in ax.lines if line.get_label() == "Adam → L-BFGS"]
    assert len(switch) == 1 and list(switch[0].get_xdata()) == [20, 20]  # the last Adam row's step
    assert err.get_ylabel() == "relative L2 error (evaluation)"
    curves = {line.get_label(): line for line in err.lines}
    assert list(curves["rel_l2_w"].get_xdata()) == [20, 40]
    assert list(curves["rel_l2_w (final) 1.00e-02"].get_xydata()[0]) == [40, 0.01]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "Adam → L-BFGS" in labels and "rel_l2_w" in labels


def test_one_phase_and_no_evaluation_draw_neither():
    fig = plots.loss_history(rows(phases=(0, 0, 0)), "demo", ("Adam",))
    assert len(fig.axes) == 1 and [line.get_label() for line in fig.axes[0].lines] == ["loss", "loss.pde"]


def test_a_negative_term_an_energy_gets_a_symmetric_log_scale():
    assert plots.loss_history(rows(), "demo").axes[0].get_yscale() == "log"
    energy = [{**r, "loss": -r["loss"], "loss.energy": -r["loss"]} for r in rows()]
    ax = plots.loss_history(energy, "demo").axes[0]
    assert ax.get_yscale() == "symlog" and ax.yaxis.get_transform().linthresh == pytest.approx(0.125)


def test_labels_carry_units_when_known():
    assert plots.label("w", "m") == "w [m]" and plots.label("w", None) == "w"


@pytest.mark.figures
def test_within_disabled_save_writes_nothing_and_closes_the_figure(tmp_path):
    with plots.disabled():
        fig, _ = plots.figure()
        plots.save(fig, str(tmp_path / "off.png"))
    assert not plt.fignum_exists(fig.number) and not (tmp_path / "off.png").exists()
    fig, _ = plots.figure()
    plots.save(fig, str(tmp_path / "on.png"))  # and after it, as before
    assert not plt.fignum_exists(fig.number) and (tmp_path / "on.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.figures
def test_sciml_plots_off_in_the_environment_writes_nothing_unless_a_writing_block_asks(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIML_PLOTS", "off")
    with plots.writing(None):  # no block's say (the suite's marker gives one): the environment's
        fig, _ = plots.figure()
        plots.save(fig, str(tmp_path / "off.png"))
        with plots.writing(True):
            fig, _ = plots.figure()
            plots.save(fig, str(tmp_path / "on.png"))
    assert not (tmp_path / "off.png").exists() and (tmp_path / "on.png").is_file()
    monkeypatch.setenv("SCIML_PLOTS", "On")
    with plots.writing(None):
        assert plots.writes()


@pytest.mark.figures
def test_a_figure_handed_as_its_builder_is_built_only_when_written(tmp_path):
    built = []

    def build():
        built.append(1)
        return plots.figure()[0]

    with plots.disabled():
        plots.save(build, str(tmp_path / "off.png"))
    assert not built and not (tmp_path / "off.png").exists()  # off: not even built
    with plots.writing(frozenset({"on"})):
        plots.save(build, str(tmp_path / "skipped.png"))
        plots.save(build, str(tmp_path / "on.png"))
    assert len(built) == 1 and sorted(p.name for p in tmp_path.iterdir()) == ["on.png"]
    assert not plt.get_fignums()  # the built figure was closed after writing


def test_only_the_named_figures_are_written_by_environment_or_block(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIML_PLOTS", "only:loss, w")
    with plots.writing(None):  # the environment's say: the figures named (file names without .png)
        for name in ("loss", "w", "mx"):
            fig, _ = plots.figure()
            plots.save(fig, str(tmp_path / f"{name}.png"))
            assert not plt.fignum_exists(fig.number)  # closed, written or not
        assert not plots.writes() and plots.writes(str(tmp_path / "w.png"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loss.png", "w.png"]
    with plots.writing(frozenset({"mx"})):  # a block's names
        fig, _ = plots.figure()
        plots.save(fig, str(tmp_path / "mx.png"))
        fig, _ = plots.figure()
        plots.save(fig, str(tmp_path / "my.png"))
    assert (tmp_path / "mx.png").is_file() and not (tmp_path / "my.png").exists()


def test_a_run_loads_no_matplotlib_until_a_figure_is_built():
    """A run's modules load matplotlib only to build a figure (about 0.3 s of each process's start: a run whose
    figures are off, a datagen, a suite's worker)."""
    code = ("import sys; import sciml.cli, sciml.cases; from sciml.solvers.pinn import run; from sciml.solvers.fno "
            "import run as fno_run; from sciml import plots; print('matplotlib' in sys.modules); plots.figure(); "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
