"""The physics-informed DeepONet (model.type deeponet with training.terms): the plate's residual through the trunk
against nested ``jax.hessian`` in float64, a few steps of the physics loss lowering it, and a tiny run of the
plate operator from a tenth of its labels plus the physics on every load."""
import copy

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from cli_cases import write_case

from sciml import cases, load_run
from sciml.solvers.fno import data, operators, run
from sciml.solvers.fno.config import LossTerms
from sciml.solvers.fno.physics import PHYSICS, Plate

S = 9  # the training grid's points per axis
TINY = {
    "case": "tiny_plate_deeponet", "solver": "fno", "seed": 0, "dtype": "float64",
    "data": {"generator": "plate", "path": "PLACEHOLDER", "resolution": S, "super_resolution": [17],
             "n_train": 20, "n_test": 4, "n_labelled": 2, "params": {"terms": 16}},
    "model": {"type": "deeponet", "branch": [16], "trunk": [16, 16], "basis": 8, "activation": "tanh",
              "harmonics": 1, "vanish_on_edges": True},
    "training": {"epochs": 6, "batch_size": 4, "lr": 3.0e-3, "schedule": {"type": "constant"},
                 "terms": {"data": 0.1, "energy": 1.0}, "checkpoint_every": 3},
    "evaluation": {"every": 3, "batch_size": 4, "plots": 0},
}


@pytest.fixture(scope="module")
def plate_deeponet(tmp_path_factory):
    """``(cfg, operator, params, stats, loads)``: the tiny case's untrained DeepONet in float64, with scalings whose
    mean is not 0 (nothing cancels by chance), and two random loads on the training grid."""
    folder = tmp_path_factory.mktemp("pideeponet")
    case = copy.deepcopy(TINY)
    case["data"]["path"] = str(folder / "plate.h5")
    cfg = cases.load(write_case(folder, case)).config
    grid = np.stack(np.meshgrid(*[np.linspace(0.0, 1.0, S)] * 2, indexing="ij"), axis=-1)
    op = operators.build(cfg, 1, 1, grid)  # float64: the tests' conftest enables it
    params = op.init(jax.random.PRNGKey(3))
    stats = op.stats(np.full(1, 0.4), np.full(1, 1.3), np.full(1, 0.002), np.full(1, 0.01))
    loads = jnp.asarray(np.random.default_rng(0).standard_normal((2, S, S, 1)) + 1.0)
    return cfg, op, params, stats, loads


def test_the_plate_residual_through_the_trunk_is_nested_jax_s(plate_deeponet):
    """``D Δ²w - q`` of the DeepONet's field at the grid points (the Taylor engine through the trunk, harmonics and
    edge factor included) is nested ``jax.hessian``'s of the same network to float64 rounding, and ``predict`` is the
    field at the grid's points."""
    cfg, op, params, stats, loads = plate_deeponet
    plate = Plate.of(cfg.data.params, S)
    field = op.field(params, stats, loads)
    got = np.asarray(jax.jit(lambda q: plate.residual(field, q))(loads))  # (S², batch)
    points = jnp.asarray(plate.points()[0])
    laplacian = lambda f: lambda p: jnp.trace(jax.hessian(f)(p), axis1=-2, axis2=-1)
    w = lambda p: field(p[None])[0, :, 0]  # (batch,) at one point
    bilap = np.asarray(jax.jit(jax.vmap(laplacian(laplacian(w))))(points))  # (S², batch)
    want = plate.D * bilap - np.asarray(loads[..., 0]).reshape(loads.shape[0], -1).T
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
    assert np.abs(want).max() > 1.0
    np.testing.assert_allclose(np.moveaxis(np.asarray(field(points)), 1, 0).reshape(loads.shape),
                               op.predict(params, stats, loads), rtol=1e-13, atol=1e-16)
    nested = Plate.of(cfg.data.params, S, mode="nested")  # the moment condition on the edges: second derivatives
    edges = [float(jax.jit(lambda q, p=p: p.boundary(field, q))(loads)) for p in (plate, nested)]
    assert edges[0] == pytest.approx(edges[1], rel=1e-10)


@pytest.mark.parametrize("name,terms", [("plate", {"pde": 1.0, "boundary": 1.0}), ("plate", {"energy": 1.0}),
                                        ("darcy", {"pde": 1.0})])
def test_a_few_steps_of_the_physics_loss_lower_it(plate_deeponet, name, terms):
    """Twenty Adam steps of the physics terms alone on one batch of inputs lower them (no solved output read): the
    plate's through the trunk, Darcy's on the outputs at the grid points (the inputs its positive coefficients)."""
    cfg, op, params, stats, loads = plate_deeponet
    physics = PHYSICS[name].of(cfg.data.params if name == "plate" else {}, S)
    loads = loads if name == "plate" else jnp.abs(loads) + 0.5
    tx = optax.adam(3e-3)
    step = run.make_step(op, tx, "rel_l2", 2, terms=LossTerms(data=0.0, **terms), physics=physics)
    state = {"params": params, "opt": tx.init(params), "stats": stats, "epoch": jnp.asarray(0, jnp.int32)}
    nan = jnp.full_like(loads, jnp.nan)  # the outputs: never read by a physics-only loss
    values = []
    for _ in range(20):
        state, value = step(state, loads, nan)
        values.append(float(value))
    assert np.isfinite(values).all() and values[-1] < 0.5 * values[0], values


def test_a_plate_deeponet_learns_from_a_tenth_of_the_labels_and_the_physics(tmp_path):
    """data.n_labelled 2 of 20 loads for the data term, the energy on all 20: the test error falls, the summary
    scores the bending moments of the trunk's field and the physics' error estimate, and the export scores as the
    summary says."""
    from export_check import assert_exported_model_scores_as_summary

    case = copy.deepcopy(TINY)
    case["data"]["path"] = str(tmp_path / "plate.h5")
    case["evaluation"]["estimate"] = True
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    m = s["metrics"]
    assert m["rel_l2"] < 0.5 * s["initial_rel_l2"], (m, s["initial_rel_l2"])
    assert {f"rel_l2_{k}{r}" for k in ("mx", "my", "mxy") for r in ("", "_17")} <= set(m)
    assert all(0 < m[f"estimate{r}"] < 10 and -1 <= m[f"estimate_spearman{r}"] <= 1 for r in ("", "_17"))
    assert_exported_model_scores_as_summary(tmp_path / "run", tmp_path)
    x, _ = data.Split(cfg.data.path, "test/9").read(np.arange(2))  # the run's estimates and refinement, as an FNO's
    model = load_run(str(tmp_path / "run"))
    plain, refined = model.predict(x, estimate=True), model.predict(x, refine=4, every=2)
    np.testing.assert_allclose(plain["prediction"], model.predict(x)["prediction"], rtol=1e-6)
    assert np.all(refined["estimate"] <= refined["estimate_before"] * (1 + 1e-6))
    np.testing.assert_allclose(refined["estimate_before"], plain["estimate"], rtol=1e-5)
    corrected = model.predict(x, refine=20, every=10, method="field")  # the trunk's field corrected by a series
    assert np.all(corrected["energy"] <= corrected["energy_before"] + 1e-12)
    assert np.all(np.isfinite(corrected["prediction"]))


def test_dihedral_augmentation_turns_the_labelled_batches_and_trains_with_the_physics(tmp_path):
    """training.augment: dihedral with data.n_labelled: each labelled batch's samples are labelled samples turned by
    one of the square's 8 symmetries, input and output alike (the simply supported square commutes with them), more
    than one of them drawn; the tiny case trains with the turned labels and the energy on turned loads."""
    case = copy.deepcopy(TINY)
    case["data"]["path"] = str(tmp_path / "plate.h5")
    case["training"]["augment"] = "dihedral"
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    driver = run._Fno(cfg, quiet=True)
    n = cfg.data.n_labelled
    xs, ys = driver.train_set.read(np.arange(n))
    turned = {(i, g): run.dihedral(xs[i:i + 1], ys[i:i + 1], np.array([g])) for i in range(n) for g in range(8)}
    drawn, batches = set(), driver.labelled(0)
    for _ in range(6):
        x, y = (np.asarray(a) for a in next(batches))
        assert x.shape == (n, S, S, 1)
        for xi, yi in zip(x, y):
            (i, g), = [key for key, (xt, _) in turned.items() if np.array_equal(xt[0], xi)][:1]
            np.testing.assert_allclose(yi, turned[i, g][1][0], rtol=1e-12, atol=1e-14)
            drawn.add(g)
    assert len(drawn) > 1, drawn
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    assert s["metrics"]["rel_l2"] < 0.5 * s["initial_rel_l2"], s
