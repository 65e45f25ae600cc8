"""Export and predict: the serialised model, run without the case or model code, equals in-process predictions."""
import h5py
import numpy as np

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
    case.module.datagen(case.config, quiet=True)
    run_dir = tmp_path / "run"
    cases.run(case, out=str(run_dir), quiet=True)
    with h5py.File(tmp_path / "d.h5") as f:
        x = f["test"]["21"]["inputs"][:5]
    with h5py.File(tmp_path / "pts.h5", "w") as f:
        f["inputs"] = x
    got = _roundtrip(tmp_path, run_dir, tmp_path / "pts.h5", capsys)
    fn, shape, dtype, _ = export_model(case.config, str(run_dir))
    np.testing.assert_allclose(got["prediction"], np.asarray(fn(x.astype(dtype))["prediction"]), rtol=1e-6, atol=1e-6)
    assert tuple(shape) == x.shape[1:]


def test_plate_export_matches_in_process(tmp_path, capsys):
    import jax

    from cli_cases import write_case
    from sciml.io import checkpoint
    from sciml.solvers.pinn import assemble

    case = cases.load(write_case(tmp_path, training__adam__steps=10))
    run_dir = tmp_path / "run"
    cases.run(case, out=str(run_dir), quiet=True)
    pts = np.random.default_rng(0).uniform([0.0, 0.0], [2.0, 3.0], (50, 2))
    np.savetxt(tmp_path / "pts.csv", pts, delimiter=",", header="x,y", comments="", fmt="%.17g")
    got = _roundtrip(tmp_path, run_dir, tmp_path / "pts.csv", capsys)
    problem = assemble(case.config)
    params = checkpoint.load_part(str(run_dir / "checkpoints" / "best.h5"), "params", problem.init(jax.random.PRNGKey(0)))
    want = problem.predict(params, pts)
    assert set(got) == {"inputs", *want} and {"w", "mx", "qy"} <= set(want)
    np.testing.assert_array_equal(got["inputs"], pts)
    for k, v in want.items():
        np.testing.assert_allclose(got[k], v, rtol=1e-6, atol=1e-9 * np.abs(v).max(), err_msg=k)
