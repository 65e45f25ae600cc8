"""One process of the multi-process test: a PINN case trained through ``sciml run`` on ``jax.distributed``.

``python distributed_worker.py CASE OUT PORT NUM_PROCESSES PROCESS_ID`` runs process PROCESS_ID of a
NUM_PROCESSES-process run (run folder ``OUT``, which only process 0 may create). With NUM_PROCESSES = 1 it
is the one-process reference, trained on the same points: the union of the streams that the processes of
``REFERENCE_STREAMS`` draw (seeded by ``(seed, process index)``), concatenated in process order.
"""
import sys

import numpy as np

REFERENCE_STREAMS = 2


def two_streams(assemble):
    """``assemble`` whose problem samples what ``REFERENCE_STREAMS`` processes draw together."""
    import jax

    def wrapped(cfg, *rest):
        problem = assemble(cfg, *rest)
        draw = problem.sample
        streams = [np.random.default_rng([cfg.seed, p]) for p in range(REFERENCE_STREAMS)]

        def sample(rng, share=lambda n: n):
            parts = [draw(g, lambda n: share(n) // REFERENCE_STREAMS) for g in streams]
            sampled = [{k: v for k, v in b.items() if k != "points"} for b in parts]
            joined = jax.tree_util.tree_map(lambda *a: np.concatenate(a), *sampled)
            return {**joined, "points": parts[0]["points"]}

        problem.sample = sample
        return problem

    return wrapped


def main(case, out, port, nproc, pid):
    from devices_worker import no_pictures
    from sciml.cli import main as sciml

    no_pictures()

    args = ["run", case, "--out", out, "--quiet"]
    if nproc > 1:
        args[2:2] = [f"parallel.distributed.coordinator=127.0.0.1:{port}",
                     f"parallel.distributed.num_processes={nproc}", f"parallel.distributed.process_id={pid}"]
    else:
        from sciml.solvers.pinn import run as driver

        driver.assemble = two_streams(driver.assemble)
    return sciml(args)


if __name__ == "__main__":
    case, out, port, nproc, pid = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    sys.exit(main(case, out, port, nproc, pid))
