"""Test-time refinement by correcting the decoded field (issue 72, :mod:`sciml.solvers.fno.correction`): the
conjugate gradients bring any operator's answer to the plate's solution in the correction's space, the edge
conditions hold for every correction, and the energy falls at every iteration."""
import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_cases import write_case

from sciml import cases
from sciml.equations.plate_reference.ood_loads import mode, work_values
from sciml.errors import UserError
from sciml.nn import fno_field
from sciml.solvers.fno import correction, estimate
from sciml.solvers.fno.model import build
from sciml.solvers.fno.physics import Plate

from .test_physics import TINY_PLATE_OPERATOR


def untrained(tmp_path, edges: str):
    """The tiny plate operator of ``edges`` at its random initial weights (``model.vanish_on_edges``): an answer far
    from any plate's. ``(operator, params, stats, its physics at 9²)``."""
    case = copy.deepcopy(TINY_PLATE_OPERATOR)
    case["data"] = {**case["data"], "path": str(tmp_path / "plate.h5"),
                    "params": {**case["data"]["params"], "edges": edges}}
    case["model"]["vanish_on_edges"] = True
    case["dtype"] = "float64"
    cfg = cases.load(write_case(tmp_path, case)).config
    op = build(cfg, 1, 1)
    ones = [np.ones(1)] * 4
    return op, op.init(jax.random.PRNGKey(0)), op.stats(*ones), Plate.of(cfg.data.params, 9)


def test_conjugate_gradients_take_an_untrained_operator_s_answer_to_navier_s_series_the_energy_falling(tmp_path):
    """The load ``sin 2πx sin πy`` (given by its work values at 9²) on the simply supported plate: from the random
    operator's answer (its ``w`` 2500 times the series' off) the corrected answer comes within 1e-2 of Navier's
    series in 1200 iterations, each chunk of them lowering the correction's energy. (Measured: 0.0026; the
    residual, not monotone in conjugate gradients, moves the error between chunks, 0.004-0.008 at 1000-1100: the
    series of period 2 and its edge factor are a redundant set on the square, which slows the iterations.)"""
    with jax.enable_x64(True):
        op, params, stats, plate = untrained(tmp_path, "simply_supported")
        basis = correction.Basis(9, 1)
        model = correction.corrected(op, basis)
        loss = correction.energy_of(plate)
        start, solver, advance = correction.conjugate_gradients(model, loss)
        x = jnp.asarray(work_values(mode(2, 1, 8), 9)[None, ..., None])
        grid = np.linspace(0.0, 1.0, 9)
        exact = np.outer(np.sin(2 * np.pi * grid), np.sin(np.pi * grid)) / (np.pi ** 4 * 25 * plate.D)
        error = lambda p: np.linalg.norm(np.asarray(model.predict(p, stats, x))[0, ..., 0] - exact) / np.linalg.norm(
            exact)
        p = start(correction.lift(params, jnp.float64, basis), stats, x)
        energy = jax.jit(lambda p: loss(model.field(p, stats, x), x))
        first, energies, state = error(p), [float(energy(p))], solver.init(p)
        for _ in range(12):
            p, state = advance(p, state, stats, x, 100)
            energies.append(float(energy(p)))
        assert first > 1e3 and error(p) < 1e-2, (first, error(p))
        assert all(b <= a + 1e-12 * abs(a) for a, b in zip(energies, energies[1:])), energies


def test_every_correction_keeps_the_clamped_edges_and_adds_to_the_answer_s_first_channel(tmp_path):
    """On clamped edges ``w`` and ``∂w/∂n`` of the corrected field are 0 on the edges whatever the correction's
    variables; on the grid the corrected prediction is the operator's scaled by ``1 + scale·a`` plus the
    correction's values there, as the field is at the grid points."""
    with jax.enable_x64(True):
        op, params, stats, _ = untrained(tmp_path, "clamped")
        basis = correction.Basis(9, 2)
        model = correction.corrected(op, basis)
        v = jax.random.normal(jax.random.PRNGKey(1), basis.zeros(jnp.float64).shape, jnp.float64)
        p = {**correction.lift(params, jnp.float64, basis), "c": v, "a": jnp.asarray(0.3)}
        x = jax.random.normal(jax.random.PRNGKey(2), (1, 9, 9, 1), jnp.float64)
        field = model.field(p, stats, x)
        t = jnp.linspace(0.0, 1.0, 7)
        edge = jnp.concatenate([jnp.stack([t, jnp.zeros_like(t)], -1), jnp.stack([jnp.ones_like(t), t], -1)])
        normal_slope = jax.vmap(jax.grad(lambda q, n: field(q)[0, 0], argnums=0))(edge, edge)
        assert np.abs(np.asarray(field(edge))).max() < 1e-12
        assert np.abs(np.asarray(normal_slope)).max() < 1e-9
        points = jnp.asarray(fno_field.grid_points([np.linspace(0, 1, 9)] * 2))
        np.testing.assert_allclose(np.asarray(model.predict(p, stats, x)).reshape(-1),
                                   np.asarray(field(points)).reshape(-1), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(np.asarray(model.predict(p, stats, x)),
                                   1.3 * np.asarray(op.predict(params, stats, x)) + np.asarray(basis.on_grid(v, x.dtype)),
                                   rtol=1e-12)


def test_the_default_method_is_the_field_s_for_a_plate_finer_than_its_training_grid_and_a_wrong_one_is_one_line():
    """:func:`.estimate.method`: by default ``field`` for a plate on a grid finer than the training grid (none
    given: ``weights``), ``weights`` on the training grid or a coarser one, with a learning rate or schedule, and for
    Darcy; ``field`` for a plate when asked; an unknown method, ``field`` for Darcy, or a learning rate or schedule
    given to ``field`` is one line."""
    darcy = object()
    plate = lambda s: Plate(1.0, 0.3, s)
    assert estimate.method(plate(33), trained=17) == "field"
    assert [estimate.method(plate(s), trained=17) for s in (17, 9)] == ["weights", "weights"]
    assert estimate.method(plate(33)) == "weights" and estimate.method(darcy, trained=17) == "weights"
    assert estimate.method(plate(33), lr=1e-2, trained=17) == "weights"
    assert estimate.method(plate(33), schedule="constant", trained=17) == "weights"
    assert estimate.method(plate(9), "field", trained=17) == "field"
    assert estimate.method(plate(33), "weights", lr=1e-2) == "weights"
    for kwargs, says in (({"chosen": "newton"}, "one of weights, field"),
                         ({"chosen": "field", "lr": 1e-2}, "conjugate gradients"),
                         ({"chosen": "field", "schedule": "cosine"}, "conjugate gradients")):
        with pytest.raises(UserError, match=says):
            estimate.method(plate(9), **kwargs)
    with pytest.raises(UserError, match="method 'weights'"):
        estimate.method(darcy, "field")
