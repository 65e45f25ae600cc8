"""``sciml.load_run``: a run folder read back (summary, metrics, fields, the trained model), its files readable
by others under the usual umask, and one line for a folder that is not a run."""
import csv
import json
import os
import stat

import numpy as np
import pytest

import sciml
from sciml.errors import BadFile, UserError

from cli_cases import write_case
from export_check import assert_exported_model_scores_as_summary


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A tiny plate trained under umask 022 (two logged rows)."""
    tmp = tmp_path_factory.mktemp("results")
    before = os.umask(0o022)
    try:
        case = sciml.load_case(write_case(tmp, training__adam__steps=20))
        sciml.run_case(case, out=str(tmp / "run"), quiet=True)
    finally:
        os.umask(before)
    return str(tmp / "run")


def test_every_file_of_a_run_folder_is_readable_by_group_and_others(run_dir):
    files = [os.path.join(d, f) for d, _, names in os.walk(run_dir) for f in names]
    assert {"summary.json", "metrics.csv", "fields.h5", "config.yaml"} <= {os.path.basename(f) for f in files}
    unreadable = [f for f in files if os.stat(f).st_mode & (stat.S_IRGRP | stat.S_IROTH) != stat.S_IRGRP | stat.S_IROTH]
    assert not unreadable


def test_load_run_gives_the_summary_and_metrics_as_written(run_dir):
    run = sciml.load_run(run_dir)
    with open(os.path.join(run_dir, "summary.json")) as fh:
        assert run.summary == json.load(fh) and run.summary["steps"] == 20
    with open(os.path.join(run_dir, "metrics.csv")) as fh:
        rows = list(csv.DictReader(fh))
    assert list(run.metrics) == list(rows[0])  # the columns, in the file's order
    np.testing.assert_array_equal(run.metrics["step"], [10, 20])
    np.testing.assert_allclose(run.metrics["loss"], [float(r["loss"]) for r in rows], rtol=1e-7)


def test_predict_reproduces_the_fields_the_run_wrote(run_dir):
    run = sciml.load_run(run_dir)
    f = run.fields
    assert f["w"]["prediction"].shape == f["x"].shape
    points = np.stack([f["x"].ravel(), f["y"].ravel()], axis=1)  # the evaluation grid, in metres
    out = run.predict(points)
    assert {"w", "mx", "my", "qx", "qy"} <= set(out) and out["w"].dtype == np.float64
    for name in ("w", "mx", "qy"):
        want = f[name]["prediction"]
        np.testing.assert_allclose(out[name].reshape(want.shape), want, rtol=1e-9, atol=1e-12 * np.abs(want).max())


def test_the_exported_model_scores_as_the_summary(run_dir, tmp_path):
    """A plain run (issue 74): ``sciml export`` and ``sciml predict`` give the summary's errors and checks."""
    got = assert_exported_model_scores_as_summary(run_dir, tmp_path)
    assert {"rel_l2_w", "rel_l2_mx", "center_w_err"} <= set(got)


def test_not_a_run_folder_is_one_line(tmp_path):
    with pytest.raises(UserError, match=f"^{tmp_path}/nope: no such run folder$"):
        sciml.load_run(str(tmp_path / "nope"))
    with pytest.raises(UserError, match=f"^{tmp_path}: not a run folder \\(no config.yaml\\)$"):
        sciml.load_run(str(tmp_path))
    (tmp_path / "config.yaml").write_text("case: x\n")
    (tmp_path / "summary.json").write_text("{not json")
    with pytest.raises(BadFile, match=f"^{tmp_path}/summary.json: damaged summary file"):
        sciml.load_run(str(tmp_path))
    (tmp_path / "summary.json").unlink()
    run = sciml.load_run(str(tmp_path))  # a run still going: no summary yet, no rows yet
    assert run.summary is None and run.metrics == {}
