"""One process of the multi-process test: data-parallel least squares through sciml.parallel.

Run as ``python distributed_worker.py PORT NUM_PROCESSES PROCESS_ID OUT.json``; with NUM_PROCESSES = 1 it
is the single-process reference. Each process makes its share of the rows from its own PRNG stream
(seeded by the *global* row index, so the union over processes equals the single-process data).
"""
import json
import sys

import jax

port, nproc, pid, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from sciml import parallel  # noqa: E402

cfg = parallel.ParallelConfig(devices=1, distributed=parallel.DistributedConfig(
    f"127.0.0.1:{port}", nproc, pid) if nproc > 1 else None)
parallel.initialize(cfg)
mesh = parallel.mesh(cfg)
n_global = 64
share = parallel.local_share(n_global, mesh)
rows = range(pid * share, (pid + 1) * share)
X = np.stack([np.random.default_rng(i).normal(size=3) for i in rows])
y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * np.sin(np.arange(pid * share, (pid + 1) * share))
batch = parallel.shard({"X": X, "y": y}, mesh)
w = parallel.replicate(jnp.zeros(3), mesh)


@jax.jit
def step(w, b):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((b["X"] @ w - b["y"]) ** 2))(w)
    return w - 0.1 * g, loss


losses = []
for _ in range(30):
    w, loss = step(w, batch)
    losses.append(float(loss))
if parallel.is_writer():
    with open(out, "w") as fh:
        json.dump({"losses": losses, "processes": jax.process_count(), "devices": mesh.devices.size}, fh)
