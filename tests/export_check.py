"""One check for every kind of run (issue 74): the model that ``sciml export`` writes, evaluated through ``sciml
predict`` as a user would, scores what the run's summary says (relative 1e-6), and ``load_run(...).predict``
gives what the export gives.

A PINN's errors are recomputed on the case's evaluation grid (``fields.h5``'s reference, the driver's own error
rule, :func:`sciml.solvers.pinn.output.evaluation.errors`), and so are the equation's check metrics that read the
fields (Ghia's errors) or their gradients too (a flow's forces on a cylinder, from the export's ``u_x``, ...,
whose curves must also equal those the run wrote to ``plots/NAME.csv``); a family's at its first combination of
values (``fields.h5`` shows it). An
operator's test error is recomputed over its test set at the training resolution. A run whose model were another
state than the one its summary scores (a curriculum's first stage) fails here.
"""
from __future__ import annotations

import json
import os

import h5py
import numpy as np

from sciml import cases, equations, load_run
from sciml.cli import main
from sciml.compile import export
from sciml.io import checkpoint


def assert_exported_model_scores_as_summary(run_dir, tmp, checks: bool = True) -> dict:
    """The check above for run folder ``run_dir`` (files in folder ``tmp``); the metrics recomputed.
    ``checks``: also the equation's check metrics (those of a PINN whose checks read the fields alone)."""
    run_dir, tmp = str(run_dir), str(tmp)
    summary = json.load(open(os.path.join(run_dir, "summary.json")))
    assert checkpoint.attrs(checkpoint.trained(run_dir))["step"] == summary["steps"]  # the state the run ended with
    model = os.path.join(tmp, "export_check.jaxexport")
    assert main(["export", run_dir, "--out", model]) == 0
    case = cases.load(os.path.join(run_dir, "config.yaml")).config
    check = _pinn if case.solver == "pinn" else _operator
    got = check(case, summary, run_dir, tmp, model, checks)
    assert got, "nothing recomputed"
    return got


def _predict(model: str, tmp: str, x: np.ndarray) -> dict:
    """``sciml predict`` of the export on ``x`` (through an HDF5 file, as a user calls it)."""
    pts, out = os.path.join(tmp, "export_check_in.h5"), os.path.join(tmp, "export_check_out.h5")
    with h5py.File(pts, "w") as f:
        f["inputs"] = x
    assert main(["predict", model, pts, "--out", out]) == 0
    with h5py.File(out) as f:
        return {k: f[k][()] for k in f if k != "inputs"}


def _close(got: dict, want: dict, what: str) -> None:
    for k, v in got.items():
        assert k in want, f"{what}: {k} recomputed, not in the summary {sorted(want)}"
        np.testing.assert_allclose(v, want[k], rtol=1e-6, err_msg=f"{what}: {k}")


def _pinn(case, summary: dict, run_dir: str, tmp: str, model: str, checks: bool) -> dict:
    from sciml.solvers.pinn.geometry import build_geometry
    from sciml.solvers.pinn.output import evaluation

    geometry = build_geometry(case.geometry)
    ev = geometry.evaluation_points(case.evaluation.grid)
    eq = equations.create(case.equation, geometry)
    family = summary.get("family")
    values = family[0] if family else {}
    names = [k for k in values if k != "metrics"]
    x = np.column_stack([ev.points, *[np.full(len(ev.points), values[k], float) for k in names]])
    exported = _predict(model, tmp, x)
    in_process = load_run(run_dir).predict(x)
    assert set(in_process) == set(exported)
    for k, v in exported.items():
        np.testing.assert_allclose(in_process[k], v, rtol=1e-6, atol=1e-12 * np.abs(v).max(), err_msg=k)
    with h5py.File(os.path.join(run_dir, "fields.h5")) as f:
        reference = {k: f[k]["reference"][()] for k in f if isinstance(f[k], h5py.Group) and "reference" in f[k]}
    pred = {k: v.reshape(ev.shape) for k, v in exported.items()}
    _, got = evaluation.errors(pred, reference, ev, eq.gauge_free, eq.vectors)
    if checks and not family:
        call, _ = export.load(model)  # as sciml predict calls it; it reports the fields' gradients too
        for c in eq.checks(lambda pts, of=None: _reported(call, pts, of)):
            got.update(c.metrics)
            for name, series in c.series.items():  # the curves the run wrote (a flow's force history)
                _same_series(series, os.path.join(run_dir, "plots", f"{name}.csv"))
    want = family[0]["metrics"] if family else summary["metrics"]
    _close(got, want, run_dir)
    return got


def _reported(call, pts, of) -> dict:
    """The export's answer at ``pts``, which holds what ``of`` (the equation's gradients) gives too."""
    assert of is None or of.__name__ == "gradients", f"a check reads {of.__name__}, which no export reports"
    return {k: np.asarray(v) for k, v in call(np.asarray(pts, float)).items()}


def _same_series(series: dict, path: str) -> None:
    """A check's curves recomputed from the export equal the run's CSV of them (written to 10 digits)."""
    with open(path) as fh:
        header = fh.readline().strip().split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    np.testing.assert_allclose(table[:, 0], series["t"], rtol=1e-9, err_msg=path)
    assert header[1:] == list(series["curves"]), (path, header)
    for name, column in zip(header[1:], table[:, 1:].T):
        want = np.asarray(series["curves"][name], float)
        np.testing.assert_allclose(column, want, rtol=1e-6, atol=1e-9 * np.abs(want).max(), err_msg=f"{path}: {name}")


def _operator(case, summary: dict, run_dir: str, tmp: str, model: str, checks: bool) -> dict:
    from sciml.nn import losses
    from sciml.solvers.fno import data

    _, tests = data.open_splits(case.data.path, case.data.resolutions)
    x, y = tests[case.data.resolution].read(np.arange(tests[case.data.resolution].n))
    pred = _predict(model, tmp, x)["prediction"]
    # a float32 operator: the export's truncated DFTs round otherwise than the FFTs in process (~1e-6 of the field)
    scale = 1e-9 if pred.dtype == np.float64 else 1e-5
    np.testing.assert_allclose(load_run(run_dir).predict(x)["prediction"], pred, rtol=1e-6,
                               atol=scale * np.abs(pred).max())
    got = {"rel_l2": float(np.mean(losses.rel_l2(pred, y.astype(pred.dtype), reduce=False)))}
    _close(got, summary["metrics"], run_dir)
    return got
