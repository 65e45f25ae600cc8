"""Data parallelism on JAX's own runtime: ``jax.sharding`` on one host, ``jax.distributed`` across hosts.

The user writes single-device code; a case's ``parallel:`` section picks the devices. Batches (collocation
points, FNO samples) are sharded along the mesh's data axis with ``NamedSharding``; parameters and optimizer
state are replicated; the train step stays one ``jit`` and XLA inserts the all-reduce of the mean loss.

Multi-host: ``jax.distributed.initialize`` from the case file or the standard environment variables
(``JAX_COORDINATOR_ADDRESS``, ``JAX_NUM_PROCESSES``, ``JAX_PROCESS_ID``); each process makes its own share
of the points from its own PRNG stream and the global arrays are assembled with
``jax.make_array_from_process_local_data``. Only process 0 writes files (:func:`is_writer`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from ..config import spec
from ..errors import Invalid, UserError


@dataclass
class DistributedConfig:
    coordinator: str = spec(help="host:port of process 0")
    num_processes: int = spec(ge=1)
    process_id: int = spec(ge=0)

    def check(self):
        if self.process_id >= self.num_processes:
            raise Invalid("process_id", f"must be < num_processes ({self.num_processes})")


@dataclass
class ParallelConfig:
    """Case-file section ``parallel``."""

    devices: int = spec(1, ge=0, help="devices of this host to use (0: all)")
    data_axis: str = "data"
    distributed: DistributedConfig | None = None


def initialize(cfg: ParallelConfig) -> None:
    """Start ``jax.distributed`` when the case or the environment asks for it (once per process)."""
    if jax.distributed.is_initialized():
        return
    if cfg.distributed is not None:
        d = cfg.distributed
        jax.distributed.initialize(d.coordinator, d.num_processes, d.process_id)
    elif os.environ.get("JAX_COORDINATOR_ADDRESS") and int(os.environ.get("JAX_NUM_PROCESSES", "1")) > 1:
        jax.distributed.initialize()


def mesh(cfg: ParallelConfig) -> Mesh:
    """A 1-D mesh over the requested devices (all processes' devices when distributed)."""
    local = jax.local_devices()
    n = cfg.devices or len(local)
    if n > len(local):
        raise UserError(f"parallel.devices: {n} devices requested, this host has {len(local)} "
                        f"({local[0].platform}); on CPU, XLA_FLAGS=--xla_force_host_platform_device_count={n} "
                        "makes that many")
    devices = [d for p in range(jax.process_count())
               for d in [x for x in jax.devices() if x.process_index == p][:n]]
    return Mesh(np.array(devices), (cfg.data_axis,))


def data_sharding(m: Mesh) -> NamedSharding:
    return NamedSharding(m, P(m.axis_names[0]))


def replicated(m: Mesh) -> NamedSharding:
    return NamedSharding(m, P())


def local_share(n: int, m: Mesh) -> int:
    """Points this process makes so that the global count is ``n`` rounded up to fill every device."""
    size = m.devices.size
    total = -(-n // size) * size
    return total // jax.process_count()


def shard(batch, m: Mesh):
    """Place a pytree of process-local arrays (leading axis = points/samples) along the data axis."""
    sharding = data_sharding(m)
    if jax.process_count() == 1:
        return jax.device_put(batch, sharding)
    return jax.tree_util.tree_map(lambda a: jax.make_array_from_process_local_data(sharding, np.asarray(a)), batch)


def replicate(tree, m: Mesh):
    return jax.device_put(tree, replicated(m))


def is_writer() -> bool:
    """Only process 0 writes run files."""
    return jax.process_index() == 0
