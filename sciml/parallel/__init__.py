"""Data parallelism on JAX's own runtime: ``jax.sharding`` on one host, ``jax.distributed`` across hosts.

The user writes single-device code; a case's ``parallel:`` section picks the devices. Batches (collocation
points, FNO samples) are sharded along the mesh's data axis with ``NamedSharding``; parameters and optimizer
state are replicated (an FNO may shard its channels along a second mesh axis); the train step stays one
``jit`` and XLA inserts the all-reduce of the mean loss and its gradient.

Multi-host: ``jax.distributed.initialize`` from the case file or the environment (``JAX_COORDINATOR_ADDRESS``,
``JAX_NUM_PROCESSES``, ``JAX_PROCESS_ID``); each process makes its own share of the points from its own PRNG
stream (:func:`rng`) and the global arrays are assembled with ``jax.make_array_from_process_local_data``
(:func:`shard`). Only process 0 writes files (:func:`is_writer`).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from ..config import spec
from ..errors import ConfigError, Invalid, UserError

CHANNEL_AXIS = "channels"


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
    mesh: list[int] | None = spec(None, ge=1, help="mesh shape [data] or [data, channels] over all processes' "
                                                   "devices (default: [all of them]); channels > 1 shards "
                                                   "the FNO's channels")
    data_axis: str = spec("data", help="name of the mesh axis the batch is sharded along")
    distributed: DistributedConfig | None = spec(None, help="start jax.distributed (several processes/hosts)")

    def check(self):
        if self.mesh is not None and len(self.mesh) not in (1, 2):
            raise Invalid("mesh", f"expected [data] or [data, channels], got {self.mesh}")
        if self.data_axis == CHANNEL_AXIS:
            raise Invalid("data_axis", f"{CHANNEL_AXIS!r} names the channel axis; pick another name")


def _from_environment() -> tuple[str, int, int] | None:
    """``(coordinator, num_processes, process_id)`` from the standard variables, when they ask for > 1."""
    address = os.environ.get("JAX_COORDINATOR_ADDRESS")
    count = int(os.environ.get("JAX_NUM_PROCESSES", "1") or 1)
    if not address or count <= 1:
        return None
    if "JAX_PROCESS_ID" not in os.environ:
        raise UserError(f"JAX_COORDINATOR_ADDRESS and JAX_NUM_PROCESSES={count} are set, JAX_PROCESS_ID is not")
    return address, count, int(os.environ["JAX_PROCESS_ID"])


def initialize(cfg: ParallelConfig) -> None:
    """Start ``jax.distributed`` when the case or the environment asks for it (once per process, before any
    computation). CPU processes talk through JAX's CPU collectives (gloo by default)."""
    d = cfg.distributed
    settings = (d.coordinator, d.num_processes, d.process_id) if d is not None else _from_environment()
    if settings is None or jax.distributed.is_initialized():
        return
    try:
        jax.distributed.initialize(*settings)
    except RuntimeError as e:
        if "before any JAX" in str(e):
            raise UserError("parallel.distributed: jax.distributed must start before any JAX computation in "
                            "this process (start it from a fresh process)") from None
        raise


def mesh(cfg: ParallelConfig) -> Mesh:
    """The mesh over ``devices`` of every process: axes ``(data_axis,)`` or ``(data_axis, channels)``."""
    local = jax.local_devices()
    n = cfg.devices or len(local)
    if n > len(local):
        remedy = (f"; on CPU, XLA_FLAGS=--xla_force_host_platform_device_count={n} makes that many"
                  if local[0].platform == "cpu" else "")
        raise ConfigError(f"{n} devices requested, this host has {len(local)} ({local[0].platform}){remedy}",
                          key="parallel.devices")
    devices = [d for p in range(jax.process_count())
               for d in [x for x in jax.devices() if x.process_index == p][:n]]
    shape = list(cfg.mesh or [len(devices)])
    if int(np.prod(shape)) != len(devices):
        raise ConfigError(f"{shape} holds {int(np.prod(shape))} devices, but {jax.process_count()} process(es) "
                          f"x parallel.devices {n} = {len(devices)}", key="parallel.mesh")
    if len(shape) == 2 and n % shape[1]:
        raise ConfigError(f"the channel axis ({shape[1]}) must divide the devices of each host ({n})",
                          key="parallel.mesh")
    names = (cfg.data_axis, CHANNEL_AXIS)[:len(shape)]
    return Mesh(np.array(devices).reshape(shape), names)


def data_size(m: Mesh) -> int:
    """Devices along the data axis (the batch is cut into this many shards)."""
    return m.shape[m.axis_names[0]]


def channel_size(m: Mesh) -> int:
    return m.shape.get(CHANNEL_AXIS, 1)


def data_sharding(m: Mesh) -> NamedSharding:
    return NamedSharding(m, P(m.axis_names[0]))


def replicated(m: Mesh) -> NamedSharding:
    return NamedSharding(m, P())


def local_share(n: int, m: Mesh) -> int:
    """Points this process makes so that the global count is ``n`` rounded up to fill the data axis."""
    size = data_size(m)
    return -(-n // size) * size // jax.process_count()


def local_rows(n: int) -> slice:
    """This process's rows of a global batch of ``n`` (``n`` divisible by the process count)."""
    k = n // jax.process_count()
    return slice(jax.process_index() * k, (jax.process_index() + 1) * k)


def rng(seed: int, *stream: int) -> np.random.Generator:
    """This process's NumPy stream: ``seed`` alone on one process, ``(seed, process index)`` on several;
    ``stream`` (e.g. a time window's index) comes between them and makes an independent stream."""
    if jax.process_count() == 1:
        return np.random.default_rng([seed, *stream] if stream else seed)
    return np.random.default_rng([seed, *stream, jax.process_index()])


def _alone(m: Mesh):
    """The device of a mesh of one device on one process (else None). Arrays go there by a plain
    ``device_put``, not with a ``NamedSharding``: a jitted function called on them then finds the program it
    traced for arrays without one (a PINN problem traces its residuals so when it is assembled; with a
    ``NamedSharding`` the training traced them a second time: DESIGN.md, the test suite's time)."""
    return m.devices.flat[0] if jax.process_count() == 1 and m.devices.size == 1 else None


def shard(tree, m: Mesh):
    """Place a pytree of process-local arrays (leading axis = points/samples) along the data axis; the global
    array is the processes' shares in process order."""
    if (alone := _alone(m)) is not None:
        return jax.device_put(tree, alone)
    sharding = data_sharding(m)
    if jax.process_count() == 1:
        return jax.device_put(tree, sharding)
    return jax.tree_util.tree_map(lambda a: jax.make_array_from_process_local_data(sharding, np.asarray(a)), tree)


def place(tree, m: Mesh, rule: Callable = lambda path, leaf: P()):
    """Place a pytree that every process holds whole (parameters, optimizer state): each leaf gets the
    ``PartitionSpec`` that ``rule(path, leaf)`` gives (default: replicated)."""
    if (alone := _alone(m)) is not None:
        return jax.device_put(tree, alone)

    def put(path, leaf):
        a = np.asarray(leaf) if jax.process_count() > 1 else leaf
        sharding = NamedSharding(m, rule(path, leaf))
        if jax.process_count() == 1:
            return jax.device_put(a, sharding)
        return jax.make_array_from_callback(np.shape(a), sharding, lambda index: a[index])

    return jax.tree_util.tree_map_with_path(put, tree)


def replicate(tree, m: Mesh):
    return place(tree, m)


def to_host(tree):
    """Whole NumPy copies of the leaves, on every process (for evaluation on one device and checkpoints).

    Replicated and local arrays are copied; an array sharded across processes is gathered, which is a
    collective: every process must call this at the same point."""
    def get(a):
        if not isinstance(a, jax.Array) or a.is_fully_addressable or a.is_fully_replicated:
            return np.asarray(a)
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(a, tiled=True))

    return jax.tree_util.tree_map(get, tree)


def largest(value: int) -> int:
    """The largest of ``value`` over all processes (a collective on several: every process calls it at the
    same point)."""
    if jax.process_count() == 1:
        return int(value)
    from jax.experimental import multihost_utils

    return int(np.max(multihost_utils.process_allgather(np.int32(value))))


def is_writer() -> bool:
    """Only process 0 writes run files."""
    return jax.process_index() == 0


def describe(m: Mesh) -> dict:
    """What a summary records about the layout."""
    return {"devices": int(m.devices.size), "processes": jax.process_count(),
            "mesh": dict(zip(m.axis_names, (int(s) for s in m.devices.shape))),
            "platform": m.devices.flat[0].platform}
