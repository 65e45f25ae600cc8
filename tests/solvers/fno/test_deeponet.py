"""model.type: deeponet (solvers/fno/deeponet.py): trained by the operator driver on a generator's grid and on a
file's unstructured point set, exported, with hard zero edges; the FNO refuses a point set."""
import copy
import dataclasses

import h5py
import jax
import numpy as np
import pytest

import xdmf_sidecar
from cli_cases import TINY_DARCY, write_case
from export_check import assert_exported_model_scores_as_summary
from sciml import cases
from sciml.cli import main
from sciml.solvers.classical import darcy
from sciml.solvers.fno import data, deeponet, operators, run
from sciml.solvers.fno.generators import GENERATORS, coordinates, factor

DEEPONET = {"type": "deeponet", "branch": [32], "trunk": [32, 32], "basis": 16}
# a DeepONet learns in more steps than an FNO (a plateau, then the fall): 200 steps of 20 samples
TRAINING = {"epochs": 100, "batch_size": 20, "lr": 1.0e-2, "schedule": {"type": "cosine"}, "checkpoint_every": 50}


def tiny(tmp_path, name="deeponet", **changes):
    """The tiny Darcy case with a DeepONet, its dataset beside it (``a__b=value`` sets key a.b)."""
    case = copy.deepcopy(TINY_DARCY)
    case["model"] = dict(DEEPONET)
    case["training"] = dict(TRAINING)
    case["evaluation"]["every"] = 50
    case["data"]["path"] = str(tmp_path / f"{name}.h5")
    return write_case(tmp_path, case, f"{name}.yaml", **changes)


def _smooth(n_samples, resolution, seed, progress=None):
    """A stand-in for Darcy's generator whose operator a DeepONet learns in a few hundred steps: a = 2 + c0 + c1 x
    + c2 cos(pi y), u = sin(pi x) sin(pi y) (1 + c0 x y + c1 y^2 + c2 x) (the FNO's stand-in, a moving bump,
    takes it thousands)."""
    rng = np.random.default_rng(seed)
    X, Y = np.meshgrid(*[np.linspace(0.0, 1.0, resolution)] * 2, indexing="ij")
    c = rng.standard_normal((n_samples, 3, 1, 1))
    a = 2.0 + c[:, 0] + c[:, 1] * X + c[:, 2] * np.cos(np.pi * Y)
    u = np.sin(np.pi * X) * np.sin(np.pi * Y) * (1 + c[:, 0] * X * Y + c[:, 1] * Y ** 2 + c[:, 2] * X)
    if progress is not None:
        progress(n_samples)
    return {"a": a, "u": u}


@pytest.fixture
def smooth(monkeypatch):
    monkeypatch.setitem(GENERATORS, "darcy", dataclasses.replace(GENERATORS["darcy"], generate=_smooth))


@pytest.mark.figures("test_9_0", "test_17_0")
def test_a_deeponet_trains_on_a_generators_grid_and_answers_on_the_finer_one(tmp_path, smooth):
    cfg = cases.load(tiny(tmp_path)).config
    data.write(cfg.data, cfg.data.path)
    out = tmp_path / "run"
    s = cases.run(cases.load(tiny(tmp_path)), out=str(out), quiet=True)
    assert set(s["metrics"]) == {"rel_l2", "rel_l2_17"}
    assert s["metrics"]["rel_l2"] < 0.5 * s["initial_rel_l2"]
    assert s["metrics"]["rel_l2_17"] < 0.5 * s["initial_rel_l2"]  # the trunk answers at the finer grid's points
    assert s["params"] == (81 * 32 + 32 + 32 * 16 + 16) + (2 * 32 + 32 + 32 * 32 + 32 + 32 * 16 + 16) + 1
    for f in ("fields.h5", "checkpoints/model.h5", "plots/test_9_0.png", "plots/test_17_0.png"):
        assert (out / f).is_file(), f
    assert_exported_model_scores_as_summary(out, tmp_path)  # on the training grid: its sensors' points


def test_a_cnn_branch_trains_on_the_sensors_grid_and_answers_on_the_finer_one(tmp_path, smooth):
    """model.conv: convolutions on the 9 x 9 sensors (3 x 3 kernels at a stride of 2: 4 x 4 x 4 values), then the
    branch MLP; the same driver, metrics and export as the MLP branch's."""
    changes = {"model__conv": [4], "model__conv_kernel": 3}
    cfg = cases.load(tiny(tmp_path, **changes)).config
    data.write(cfg.data, cfg.data.path)
    out = tmp_path / "run"
    s = cases.run(cases.load(tiny(tmp_path, **changes)), out=str(out), quiet=True)
    assert s["metrics"]["rel_l2"] < 0.5 * s["initial_rel_l2"]
    assert s["metrics"]["rel_l2_17"] < 0.5 * s["initial_rel_l2"]
    assert s["params"] == (9 * 4 + 4) + (64 * 32 + 32 + 32 * 16 + 16) + (2 * 32 + 32 + 32 * 32 + 32 + 32 * 16 + 16) + 1
    assert_exported_model_scores_as_summary(out, tmp_path)


def test_dihedral_augmentation_turns_inputs_and_outputs_alike_as_darcy_commutes_with_them(tmp_path):
    """training.augment: dihedral draws one of the square's 8 symmetries per sample, the same for its input and
    output: Darcy's solver (a constant source, zero edges) answers a turned coefficient with the turned solution to
    rounding, so the turned pairs are samples of the same operator; a DeepONet trains with them (on Darcy's own
    samples: the smooth stand-in does not commute with the turns)."""
    a = np.where(np.random.default_rng(0).standard_normal((1, 17, 17)) > 0, 12.0, 3.0)
    u = darcy.solve(a)
    turned = [run.dihedral(a[..., None], u[..., None], np.array([g])) for g in range(8)]
    assert len({ag.tobytes() for ag, _ in turned}) == 8  # eight distinct elements
    for ag, ug in turned:
        np.testing.assert_allclose(darcy.solve(ag[..., 0]), ug[..., 0], atol=1e-12 * np.abs(u).max())
    changes = {"training__augment": "dihedral"}
    cfg = cases.load(tiny(tmp_path, **changes)).config
    data.write(cfg.data, cfg.data.path)
    s = cases.run(cases.load(tiny(tmp_path, **changes)), out=str(tmp_path / "run"), quiet=True)
    assert s["metrics"]["rel_l2"] < 0.5 * s["initial_rel_l2"], s


@pytest.mark.parametrize("kind,train,n,stride", [("closed", 9, 17, 2), ("closed", 85, 421, 2), ("closed", 85, 141, 2),
                                                 ("periodic", 8, 16, 1), ("periodic", 8, 12, 3)])
def test_the_sensors_are_read_from_any_grid_by_linear_interpolation(kind, train, n, stride):
    """A grid that holds the sensors gives their values alone; another one interpolates linearly along the axis
    (round the period on a periodic grid): exact for a linear function."""
    w = deeponet.sensor_weights(n, train, stride, kind)
    x, sensors = coordinates(n, 1, kind)[:, 0], coordinates(train, 1, kind)[::stride, 0]
    assert w.shape == (len(sensors), n) and np.allclose(w.sum(1), 1) and (w >= 0).all()
    if factor(n, train, kind):
        assert set(np.unique(w)) == {0.0, 1.0}
    f = (lambda t: np.cos(2 * np.pi * t)) if kind == "periodic" else (lambda t: 2 + 3 * t)
    np.testing.assert_allclose(w @ f(x), f(sensors), atol=0.03 if kind == "periodic" else 1e-12)
    if kind == "periodic":  # a sensor between the last point and the period's end reads the first point too
        last = deeponet.sensor_weights(4, 8, 1, "periodic")[-1]
        np.testing.assert_allclose(last, [0.5, 0, 0, 0.5])


@pytest.mark.parametrize("power", [1, 2])
def test_vanish_on_edges_makes_the_outputs_zero_on_every_grids_edges(tmp_path, fake_darcy, monkeypatch, power):
    """The outputs times the edge factor (squared where a generator's edges are clamped): 0 on the edges of the
    training grid and of a finer one, whatever the output's mean."""
    monkeypatch.setitem(GENERATORS, "darcy", dataclasses.replace(GENERATORS["darcy"], edge_power=lambda p: power))
    cfg = cases.load(tiny(tmp_path, model__vanish_on_edges=True)).config
    grid = np.stack(np.meshgrid(*[np.linspace(0, 1, 9)] * 2, indexing="ij"), axis=-1)
    op = operators.build(cfg, 1, 1, grid)
    params = op.init(jax.random.PRNGKey(0))
    stats = op.stats(np.zeros(1), np.ones(1), np.full(1, 3.0), np.ones(1))  # a mean of 3: not zero by itself
    plain = operators.build(cases.load(tiny(tmp_path)).config, 1, 1, grid)
    for n in (9, 17):
        x = np.random.default_rng(n).standard_normal((2, n, n, 1)).astype(np.float32)
        u = np.asarray(op.predict(params, stats, x))[..., 0]
        for edge in (u[:, 0], u[:, -1], u[:, :, 0], u[:, :, -1]):
            np.testing.assert_array_equal(edge, 0.0)
        line = np.linspace(0, 1, n)
        factor = (16 * np.outer(line * (1 - line), line * (1 - line))) ** power
        np.testing.assert_allclose(u, np.asarray(plain.predict(params, stats, x))[..., 0] * factor, rtol=2e-5,
                                   atol=1e-6)


def test_a_deeponet_trains_from_a_file_on_a_grid_of_data_dims_axes(tmp_path):
    """A file's arrays on a tensor grid: data.dims names its axes (the DeepONet has no model.modes to count them)."""
    arrays = _smooth(48, 17, 0)
    with h5py.File(tmp_path / "grid.h5", "w") as f:
        f["a"], f["u"] = arrays["a"], arrays["u"]
    case = copy.deepcopy(TINY_DARCY)
    case["model"], case["training"]["epochs"] = dict(DEEPONET), 2
    case["data"] = {"file": str(tmp_path / "grid.h5"), "inputs": "a", "outputs": "u", "dims": 2, "resolution": 9,
                    "path": str(tmp_path / "grid_data.h5"), "super_resolution": [17], "n_train": 40, "n_test": 8}
    case = write_case(tmp_path, case, "grid.yaml")
    assert main(["datagen", case, "--quiet"]) == 0
    s = cases.run(cases.load(case), out=str(tmp_path / "run"), quiet=True)
    assert set(s["metrics"]) == {"rel_l2", "rel_l2_17"} and s["epochs"] == 2


def mesh_file(path, n_samples=60, seed=0):
    """A file of values at the nodes of an unstructured 2-D point set (a disk's scattered nodes, not a grid):
    inputs f = c0 + c1 x + c2 sin(pi y), outputs u = c0 x y + c1 cos(x) + c2 y^2 (linear in the c)."""
    rng = np.random.default_rng(seed)
    r, t = np.sqrt(rng.uniform(0, 1, 150)), rng.uniform(0, 2 * np.pi, 150)
    nodes = np.stack([0.5 + 0.4 * r * np.cos(t), 0.5 + 0.4 * r * np.sin(t)], axis=1)
    x, y = nodes[:, 0], nodes[:, 1]
    c = rng.standard_normal((n_samples, 3, 1))
    f_in = c[:, 0] + c[:, 1] * x + c[:, 2] * np.sin(np.pi * y)
    u_out = c[:, 0] * x * y + c[:, 1] * np.cos(x) + c[:, 2] * y ** 2
    with h5py.File(path, "w") as h:
        h["nodes"], h["f"], h["u"] = nodes, f_in, u_out[..., None]
    return nodes


def mesh_case(tmp_path, **changes):
    case = copy.deepcopy(TINY_DARCY)
    case["data"] = {"file": str(tmp_path / "mesh.h5"), "inputs": "f", "outputs": "u", "grid": "nodes",
                    "path": str(tmp_path / "mesh_data.h5"), "resolution": 150, "n_train": 48, "n_test": 12}
    case["model"] = dict(DEEPONET, sensors=3)
    case["training"] = dict(TRAINING, batch_size=16)
    case["evaluation"]["every"] = 50
    return write_case(tmp_path, case, "mesh.yaml", **changes)


@pytest.mark.figures("test_150_0")
def test_a_deeponet_trains_from_a_file_of_values_on_an_unstructured_point_set(tmp_path):
    nodes = mesh_file(tmp_path / "mesh.h5")
    case = mesh_case(tmp_path)
    assert main(["datagen", case, "--quiet"]) == 0
    cfg = cases.load(case).config
    with h5py.File(cfg.data.path) as f:
        assert f.attrs["grid_kind"] == "points" and f["train/inputs"].shape == (48, 150, 1)
        np.testing.assert_array_equal(f["test/150/grid"][()], nodes.astype(np.float32))
    out = tmp_path / "run"
    s = cases.run(cases.load(case), out=str(out), quiet=True)
    assert set(s["metrics"]) == {"rel_l2"} and s["metrics"]["rel_l2"] < 0.2 * s["initial_rel_l2"]  # 0.96 -> 0.025
    grids = xdmf_sidecar.check(str(out / "fields.xdmf"))  # the nodes as ParaView's scattered vertices
    assert [(g["name"], g["points"]) for g in grids] == [("s = 150", 150)]
    assert (out / "plots" / "test_150_0.png").is_file()
    assert_exported_model_scores_as_summary(out, tmp_path)


@pytest.mark.parametrize("changes,said", [
    ({"model__type": "fno"}, "data.grid: model.type fno needs a tensor grid (closed or periodic); a point set "
                             "('nodes') trains model.type deeponet"),
    ({"data__super_resolution": [300]}, "data.super_resolution: a point set (data.grid 'nodes') is one grid"),
    ({"model__vanish_on_edges": True}, "model.vanish_on_edges: needs model.type fno or deeponet on a closed grid"),
    ({"training__loss": "h1"}, "training.loss: h1 takes the derivatives of a periodic grid's series"),
])
def test_a_point_set_is_refused_where_it_cannot_serve(tmp_path, changes, said, capsys):
    assert main(["show", mesh_case(tmp_path, **changes)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err


def test_a_point_set_that_disagrees_with_the_case_is_one_line(tmp_path, capsys):
    nodes = mesh_file(tmp_path / "mesh.h5")
    for changes, said in [({"data__resolution": 149}, "holds 150 points (nodes); a point set is one grid: set "
                                                       "data.resolution to 150"),
                          ({"data__grid": "f"}, "data.grid: "),
                          ({"data__grid": "absent"}, "data.grid: no array 'absent'")]:
        assert main(["datagen", mesh_case(tmp_path, **changes), "--quiet"]) == 2, said
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, (said, err)
    with h5py.File(tmp_path / "mesh.h5", "a") as h:
        h["nodes"][0, 0] = np.nan
    assert main(["datagen", mesh_case(tmp_path), "--quiet", "--force"]) == 2
    assert "data.grid: " in capsys.readouterr().err and nodes.shape == (150, 2)
