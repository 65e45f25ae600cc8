"""The high-dimensional step benchmark: every method estimates the same thing, skips are reported."""
import jax
import numpy as np
import pytest

from sciml.bench import highdim


def test_methods_agree_and_report_memory():
    t = highdim.table(d=12, n=4, samples=3, dtype="float32", rounds=1)
    rows = {r["method"]: r for r in t["rows"]}
    assert t["base"] == "stde-sparse" and list(rows) == list(highdim.METHODS)
    # SDGD's and the Hessian-vector products' coordinates are the sparse jets': the same estimate
    for m in ("sdgd", "hvp"):
        assert rows[m]["grad_diff"] < 1e-4 and np.isclose(rows[m]["loss"], rows["stde-sparse"]["loss"], rtol=1e-4)
    # the dense jets and the exact operator give other values of the loss
    assert rows["exact"]["grad_diff"] > 1e-3 and rows["stde-dense"]["grad_diff"] > 1e-3
    assert all(r["memory_mb"] > 0 and r["s"] > 0 for r in rows.values())


def test_what_does_not_fit_is_skipped(capsys):
    t = highdim.table(d=40, n=4, samples=2, dtype="float32", rounds=1, methods=("stde-sparse", "exact"),
                      max_gb=highdim.estimated_bytes("stde-sparse", 4, 40, 2, 4) / 2**30)
    assert [r["method"] for r in t["rows"]] == ["stde-sparse", "exact"] and "skipped" in t["rows"][1]
    highdim.print_table(t)
    assert "exact        skipped: estimated over" in capsys.readouterr().out


def test_sparse_coordinates_are_the_stochastic_modes():
    """The bench's SDGD draws the coordinates the stochastic mode's sparse jets use."""
    from sciml.autodiff.taylor.stochastic import DISTRIBUTIONS

    key = jax.random.PRNGKey(7)
    v = np.asarray(DISTRIBUTIONS["sparse"][0](key, (3, 5, 9), np.float32))
    np.testing.assert_array_equal(np.argmax(v, axis=-1), np.asarray(highdim._coordinates(key, 3, 5, 9)))


@pytest.mark.figures("highdim")
def test_plot_of_time_and_memory_against_d(tmp_path):
    tables = [highdim.table(d=d, n=4, samples=2, dtype="float32", rounds=1, methods=("stde-sparse", "sdgd"))
              for d in (8, 16)]
    fig = highdim.plot(tables)
    time_ax, mem_ax = fig.axes[:2]
    assert [ln.get_label() for ln in time_ax.get_lines()] == ["stde-sparse", "sdgd"]
    assert list(time_ax.get_lines()[0].get_xdata()) == [8, 16] and time_ax.get_xscale() == "log"
    assert mem_ax.get_ylabel().startswith("XLA memory")
    out = tmp_path / "highdim.png"
    assert highdim.main(["--dims", "8", "--points", "4", "--samples", "2", "--rounds", "1",
                         "--methods", "stde-sparse,hvp", "--plot", str(out)]) == 0
    assert out.stat().st_size > 1000
