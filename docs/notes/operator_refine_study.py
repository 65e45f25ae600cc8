"""Issue 72, item 2: test-time refinement of the plate operator by the physics loss alone, one input at a time:
Adam on the operator's weights (instance-wise fine-tuning, Li et al., PINO 2021) minimising the plate's energy
(Ritz; w = 0 imposed by the model) of the decoded field for that input. ``python operator_refine_study.py RUN``
for a run of plate_operator_quick; prints the true error (Navier's series) and the estimate before and after."""
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

from operator_estimate_study import cfg, loads, op, params, stats, RL  # the same run and loads
from sciml.solvers.fno.physics import Plate

s = 17
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
lr = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-3
x, items = loads(s)
physics = Plate.of(cfg.data.params, s)


def error(p, q, ref):
    w = np.asarray(op.predict(p, stats, q))[0, ..., 0]
    return float(np.linalg.norm(w - ref) / np.linalg.norm(ref))


@jax.jit
def estimate(p, q):
    return physics.estimate(op.field(p, stats, q), q)[0]


tx = optax.adam(lr)


@jax.jit
def step(p, state, q):
    loss, g = jax.value_and_grad(lambda p: physics.energy(op.field(p, stats, q), q))(p)
    updates, state = tx.update(g, state, p)
    return optax.apply_updates(p, updates), state, loss


for name, c, qgrid in items[::3] + items[-6:]:
    q = jnp.asarray(qgrid[None, ..., None], jnp.float32)
    ref = RL.solution(c, x)["w"]
    p, state = params, tx.init(params)
    before, est0 = error(p, q, ref), float(estimate(p, q))
    t0 = time.perf_counter()
    for _ in range(steps):
        p, state, loss = step(p, state, q)
    jax.block_until_ready(p)
    t = time.perf_counter() - t0
    print(f"{name:12s} true {before:8.3g} -> {error(p, q, ref):8.3g}   estimate {est0:8.3g} -> "
          f"{float(estimate(p, q)):8.3g}   {steps} steps {t:5.1f} s")
