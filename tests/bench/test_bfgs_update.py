"""``sciml bench bfgs-update``: the baseline is the same rule (the same steps as sciml's) and each size gets a row."""
import jax
import jax.numpy as jnp
import numpy as np

from sciml.bench import bfgs_update
from sciml.solvers.pinn import optim


def test_the_baseline_takes_sciml_s_steps():
    with jax.enable_x64(True):
        fn = lambda w: jnp.sum(jnp.linspace(1.0, 50.0, w.size) * w ** 2) + jnp.sum(jnp.cos(w))
        steps = {}
        for name, tx in (("rewritten", bfgs_update.rewritten()), ("columns", optim.scale_by_ssbfgs(rank=6))):
            w = jnp.linspace(-1.0, 1.0, 12)
            state, taken = tx.init(w), []
            for k in range(15):
                step, state = tx.update(jax.grad(fn)(w), state, w, value=fn(w) + (1.0 if k == 7 else 0.0))
                taken.append(step)
                w = w - 0.02 * step
            steps[name] = np.asarray(taken)
        np.testing.assert_allclose(steps["columns"], steps["rewritten"], rtol=1e-8, atol=1e-12)


def test_each_size_gets_a_row(capsys):
    assert bfgs_update.main(["--sizes", "40,60", "--length", "2", "--repeats", "1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [r[0] for r in rows] == ["40", "60"] and all(r[3].endswith("x") for r in rows)
