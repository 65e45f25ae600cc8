"""Export and predict: the serialised model, run without the case or model code, equals in-process predictions;
a damaged export is one line, exit 2."""
import json
import os

import h5py
import numpy as np
import pytest

from sciml import cases
from sciml.cli import main


def _roundtrip(tmp_path, run_dir, points_file, capsys):
    assert main(["export", str(run_dir), "--out", str(tmp_path / "m.jaxexport")]) == 0
    assert main(["predict", str(tmp_path / "m.jaxexport"), str(points_file), "--out", str(tmp_path / "p.h5")]) == 0
    capsys.readouterr()
    with h5py.File(tmp_path / "p.h5") as f:
        return {k: f[k][()] for k in f}


def test_fno_export_matches_in_process(tmp_path, capsys):
    from sciml.solvers.fno.export import export_model

    case = cases.load("cases/darcy_fno_quick.yaml", [f"data.path={tmp_path}/d.h5", "training.epochs=2",
                                                      "data.n_train=20", "data.n_test=10", "data.super_resolution=[]"])
    cases.datagen(case)
    run_dir = tmp_path / "run"
    cases.run(case, out=str(run_dir), quiet=True)
    with h5py.File(tmp_path / "d.h5") as f:
        x = f["test"]["21"]["inputs"][:5]
    with h5py.File(tmp_path / "pts.h5", "w") as f:
        f["inputs"] = x
    got = _roundtrip(tmp_path, run_dir, tmp_path / "pts.h5", capsys)
    fn, shape, dtype, _ = export_model(case.config, str(run_dir))
    np.testing.assert_allclose(got["prediction"], np.asarray(fn(x.astype(dtype))["prediction"]), rtol=1e-6, atol=1e-6)
    assert tuple(shape) == ("n1", "n2", x.shape[-1])  # any grid


def test_plate_export_matches_in_process(tmp_path, capsys):
    import jax

    from cli_cases import write_case
    from sciml.io import checkpoint
    from sciml.solvers.pinn import assemble

    case = cases.load(write_case(tmp_path, training__adam__steps=10))
    run_dir = tmp_path / "run"
    cases.run(case, out=str(run_dir), quiet=True)
    problem = assemble(case.config)
    params = checkpoint.load_part(str(run_dir / "checkpoints" / "model.h5"), "params", problem.init(jax.random.PRNGKey(0)))
    for n in (50, 1, 10, 100_000):  # one export, any number of points (CSV, then HDF5 for the large set)
        pts = np.random.default_rng(n).uniform([0.0, 0.0], [2.0, 3.0], (n, 2))
        if n < 100:
            np.savetxt(tmp_path / "pts.csv", pts, delimiter=",", header="x,y", comments="", fmt="%.17g")
            got = _roundtrip(tmp_path, run_dir, tmp_path / "pts.csv", capsys)
        else:
            with h5py.File(tmp_path / "pts.h5", "w") as f:
                f["x"], f["y"] = pts[:, 0], pts[:, 1]
            got = _roundtrip(tmp_path, run_dir, tmp_path / "pts.h5", capsys)
        want = problem.predict(params, pts)
        assert set(got) == {"inputs", *want} and {"w", "mx", "qy"} <= set(want)
        np.testing.assert_array_equal(got["inputs"], pts)
        for k, v in want.items():
            np.testing.assert_allclose(got[k], v, rtol=1e-6, atol=1e-9 * np.abs(v).max(), err_msg=f"{n} points: {k}")


def test_one_fno_export_answers_on_every_grid(tmp_path, capsys):
    """Zero-shot through the export: a Darcy FNO trained at 85² answers at 85², 141², 211², 421² and on a
    rectangle as the model does in process (FFTs there, truncated DFTs in the export); a grid too coarse for
    its modes is one line."""
    import jax

    from sciml.solvers.fno.export import export_model

    case = cases.load("cases/darcy_fno.yaml", [f"data.path={tmp_path}/d.h5", "data.n_train=4", "data.n_test=2",
                                                "data.super_resolution=[]", "model.width=4", "model.layers=1",
                                                "model.projection=[8]", "training.epochs=1", "training.batch_size=2",
                                                "training.schedule.warmup=0", "evaluation.batch_size=2"])
    cases.datagen(case, quiet=True)
    cases.run(case, out=str(tmp_path / "run"), quiet=True)
    model = export_model(case.config, str(tmp_path / "run"))[0]
    fn = jax.jit(lambda x: model(x)["prediction"])
    rng = np.random.default_rng(0)
    for grid in ((85, 85), (141, 141), (211, 211), (421, 421), (141, 85)):
        x = np.where(rng.random((2, *grid, 1)) > 0.5, 12.0, 3.0).astype(np.float32)  # piecewise-constant a(x)
        with h5py.File(tmp_path / "pts.h5", "w") as f:
            f["inputs"] = x
        got = _roundtrip(tmp_path, tmp_path / "run", tmp_path / "pts.h5", capsys)["prediction"]
        want = np.asarray(fn(x))
        assert got.shape == want.shape == (2, *grid, 1)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max(), err_msg=str(grid))
    with h5py.File(tmp_path / "pts.h5", "w") as f:
        f["inputs"] = np.ones((1, 23, 6, 1), np.float32)  # 12 modes need 24 points per axis
    assert main(["predict", str(tmp_path / "m.jaxexport"), str(tmp_path / "pts.h5")]) == 2
    assert capsys.readouterr().err == (f"error: {tmp_path}/pts.h5: inputs of shape (23, 6, 1) per sample; the model "
                                       "takes (n1, n2, 1) with n1 >= 24\n")


def _tiny_export(tmp_path):
    """An export of ``(a, b) -> {"y": a + 10 b}`` (no training), with a points file; the export's path."""
    from sciml.compile import export

    path = str(tmp_path / "m.jaxexport")
    export.save(path, lambda x: {"y": x[:, 0] + 10.0 * x[:, 1]}, (2,), np.float32, {"inputs": ["a", "b"], "run_dir": "RUN"})
    (tmp_path / "pts.csv").write_text("a,b\n1,2\n3,4\n")
    return path


def _predict(tmp_path, capsys, model):
    code = main(["predict", model, str(tmp_path / "pts.csv"), "--out", str(tmp_path / "p.csv")])
    return code, capsys.readouterr().err


def test_a_good_export_predicts(tmp_path, capsys):
    code, err = _predict(tmp_path, capsys, _tiny_export(tmp_path))
    assert code == 0, err
    assert (tmp_path / "p.csv").read_text().splitlines() == ["a,b,y", "1,2,21", "3,4,43"]


def _flip(path):
    from fault_injection import flip

    flip(path, os.path.getsize(path) // 2)


def _unchecked_and_truncated(path):  # an export from before checksums, then cut short
    from fault_injection import truncate

    meta = json.loads(open(path[:-10] + ".json").read())
    del meta["sha256"]
    open(path[:-10] + ".json", "w").write(json.dumps(meta))
    truncate(path, 0.3)


@pytest.mark.parametrize("damage,first_line", [
    (_flip, "error: {m}: damaged export: its bytes do not match the checksum in {j}; export it again with: "
            "sciml export RUN --out {m}"),
    (_unchecked_and_truncated, "error: {m}: unreadable export ("),
    (lambda p: open(p[:-10] + ".json", "w").write('{"format": "jax.exp'),
     "error: {j}: damaged export metadata (not JSON: Unterminated string starting at: line 1 column 12 (char 11))"),
    (lambda p: open(p[:-10] + ".json", "w").write('{"format": "jax.export"}'),
     "error: {j}: damaged export metadata (missing dtype, input_shape, inputs)"),
])
def test_a_damaged_export_is_one_line(tmp_path, capsys, damage, first_line):
    model = _tiny_export(tmp_path)
    damage(model)
    code, err = _predict(tmp_path, capsys, model)
    expected = first_line.format(m=model, j=model[:-10] + ".json")
    assert code == 2 and err.count("\n") == 1 and err.startswith(expected), err
    assert not (tmp_path / "p.csv").exists()
