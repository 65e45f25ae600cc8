"""Loss balancing by gradient norms, causal weighting, schedules with warm-up."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml.solvers.pinn import balancing, optim, problem as problem_module
from sciml.solvers.pinn.config import CausalConfig, ScheduleConfig


def test_grad_norm_weights_equalise_gradients():
    terms = lambda p, b, k: {"a": 10.0 * p["w"][0], "b": p["w"][1] + 0.0 * p["w"][0]}
    update = balancing.grad_norm(terms, alpha=0.0)
    w = update({"w": jnp.array([1.0, 2.0])}, None, None, {"a": 1.0, "b": 1.0})
    assert float(w["a"]) == pytest.approx(5.5 / 10.0) and float(w["b"]) == pytest.approx(5.5)
    slow = balancing.grad_norm(terms, alpha=0.9)({"w": jnp.array([1.0, 2.0])}, None, None, {"a": 1.0, "b": 1.0})
    assert float(slow["b"]) == pytest.approx(0.9 + 0.1 * 5.5)


@pytest.mark.parametrize("late,expected", [(False, (1 + np.exp(-1)) / 2), (True, 0.5)])
def test_causal_weights_wait_for_earlier_times(late, expected):
    weigh = problem_module._causal(CausalConfig(chunks=2, epsilon=1.0), (0.0, 1.0), ("pde",))
    t = jnp.linspace(0.01, 0.99, 100)
    x = jnp.stack([jnp.zeros_like(t), t], -1)
    r = jnp.where(t > 0.5, 1.0, 0.0) if late else jnp.ones_like(t)
    assert float(weigh({"pde": r}, x)["pde"]) == pytest.approx(expected)
    # with a large early residual the late slab is all but ignored
    r = jnp.where(t < 0.5, 10.0, 1.0)
    assert float(weigh({"pde": r}, x)["pde"]) == pytest.approx(100 / 2 + np.exp(-100) / 2)


def test_warmup_schedule():
    s = optim.schedule(build(ScheduleConfig, {"type": "constant", "warmup_steps": 10}), 1e-3, 100)
    assert float(s(0)) == 0.0 and float(s(5)) == pytest.approx(5e-4) and float(s(50)) == pytest.approx(1e-3)


def test_adam_chunk_carries_balanced_weights():
    loss_terms = lambda p, b, k: {"a": jnp.sum((p - 1.0) ** 2), "b": 100 * jnp.sum(p**2)}

    def loss(p, b, k, w=None):
        t = loss_terms(p, b, k)
        w = w or {"a": 1.0, "b": 1.0}
        return sum(w[n] * t[n] for n in t), t

    import optax
    tx = optax.adam(1e-2)
    state = optim.init_state(jnp.ones(3), tx, jax.random.PRNGKey(0), weights={"a": 1.0, "b": 1.0})
    chunk = optim.adam_chunk(loss, tx, 5, balancing.grad_norm(loss_terms, 0.0), every=2)
    state, losses = chunk(state, None, 5)
    assert np.isfinite(np.asarray(losses)).all() and int(state["step"]) == 5
    # at p ~ 1 the pde-like term b dominates the gradients: its weight drops below a's
    assert float(state["weights"]["b"]) < float(state["weights"]["a"])
