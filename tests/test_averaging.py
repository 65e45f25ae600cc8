"""Weight averaging rules on a small pytree, against the averages written out by hand."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import averaging

RNG = np.random.default_rng(0)
TRAJECTORY = [{"w": RNG.normal(size=(3, 2)).astype(np.float32), "b": RNG.normal(size=2).astype(np.float32)}
              for _ in range(7)]


def state_of(params):
    return {"params": jax.tree_util.tree_map(jnp.asarray, params)}


def close(a, b):
    jax.tree_util.tree_map(lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7), a, b)


def test_none_keeps_no_average_and_evaluates_the_parameters():
    rule = averaging.build("none")
    s = rule.init(state_of(TRAJECTORY[0]))
    assert rule.key == "params" and set(s) == {"params"}
    assert rule.step(s, 0) is s and rule.epoch(s, 1) is s


def test_ema_after_every_step_from_start_on():
    """Steps 1 and 2 in epoch 1 (before ``start = 1``: the average follows the parameters), steps 3..6 after."""
    d, rule = 0.75, averaging.build("ema", 0.75, start=1)
    s = rule.init(state_of(TRAJECTORY[0]))
    close(s["average"], TRAJECTORY[0])
    done = [0, 0, 1, 1, 2, 2]  # epochs completed before each step
    for p, e in zip(TRAJECTORY[1:], done):
        s = rule.step({**s, "params": jax.tree_util.tree_map(jnp.asarray, p)}, jnp.int32(e))
        s = rule.epoch(s, jnp.int32(e + 1))  # ema does nothing at an epoch's end
    p = [np.concatenate([np.ravel(t["w"]), t["b"]]) for t in TRAJECTORY]
    expected = p[2]
    for k in range(3, 7):
        expected = d * expected + (1 - d) * p[k]
    np.testing.assert_allclose(np.concatenate([np.ravel(s["average"]["w"]), s["average"]["b"]]), expected, rtol=1e-6)
    assert rule.key == "average"


def test_swa_is_the_mean_of_the_epoch_ends_after_start():
    rule = averaging.build("swa", start=3)
    s = rule.init(state_of(TRAJECTORY[0]))
    for epoch, p in enumerate(TRAJECTORY[1:], 1):
        s = rule.step({**s, "params": jax.tree_util.tree_map(jnp.asarray, p)}, jnp.int32(epoch - 1))  # no-op
        s = rule.epoch(s, jnp.int32(epoch))
        if epoch <= 3:
            close(s["average"], p)
    mean = jax.tree_util.tree_map(lambda *a: np.mean(a, axis=0), *TRAJECTORY[4:])
    close(s["average"], mean)


@pytest.mark.parametrize("kind", ["ema", "swa"])
def test_rules_trace_inside_jit(kind):
    rule = averaging.build(kind, 0.5, 0)
    s = rule.init(state_of(TRAJECTORY[0]))
    s2 = {**s, "params": jax.tree_util.tree_map(jnp.asarray, TRAJECTORY[1])}
    eager = rule.epoch(rule.step(s2, jnp.int32(0)), jnp.int32(1))
    jitted = jax.jit(lambda s, e: rule.epoch(rule.step(s, e), e + 1))(s2, jnp.int32(0))
    close(jitted["average"], eager["average"])
