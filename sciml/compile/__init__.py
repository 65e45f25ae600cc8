"""The compiler layer: persistent compilation cache, dtype policy, and export of trained functions.

- :func:`enable_cache` points XLA's persistent cache at a folder (``$SCIML_CACHE_DIR``, default the user's
  cache folder: ``$XDG_CACHE_HOME/sciml/jax``, else ``~/.cache/sciml/jax``; never the working directory;
  ``SCIML_CACHE_DIR=off`` turns it off) so that a second run of a case, in a new process, loads its compiled
  programs instead of compiling them again. :func:`cases.run <sciml.cases.run>`
  turns it on for every run.
- :class:`Policy` names the parameter and compute dtypes: ``float32`` (the FNO default), ``float64`` (the
  PINN default: fourth derivatives need it), ``bfloat16`` (FNO only: ``bfloat16`` compute, ``float32``
  parameters, optimizer and loss; the FFTs run in ``float32``).
- :mod:`sciml.compile.export` serialises a prediction function with ``jax.export`` (StableHLO).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import jax
import jax.numpy as jnp

from .. import cores

OFF = ("off", "none", "0", "false", "no")
MIN_COMPILE_S = 0.1  # programs compiled faster than this are not worth a file


def marching_options(xla_flags: str) -> dict:
    """XLA's defaults for a long-running loop: full backend optimisation, and the MLIR fusion emitters only where
    ``xla_flags`` turns them off (an XLA build that lacks that option, a GPU's JAX 0.11 among them, refuses it as
    a compile option: "No such compile option")."""
    emitters = {"xla_cpu_use_fusion_emitters": True} if "xla_cpu_use_fusion_emitters" in xla_flags else {}
    return {"xla_backend_optimization_level": 3, **emitters}


MARCHING = marching_options(os.environ.get("XLA_FLAGS", ""))
"""``compiler_options`` of the classical solvers' time-marching loops (``jax.jit(..., compiler_options=
MARCHING)``): XLA's full backend optimisation and its MLIR fusion emitters (its defaults) whatever ``XLA_FLAGS``
asks for the process, since their run is long beside their compile (:func:`marching_options`). The test suite
compiles everything else at level 0 with the older emitters (tests/conftest.py): most of its programs run for less
time than they take to compile."""


def default_cache() -> str:
    """``$XDG_CACHE_HOME/sciml/jax`` (an absolute ``XDG_CACHE_HOME`` only, as the XDG spec says), else
    ``~/.cache/sciml/jax``."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sciml", "jax")


def cache_setting(path: str | None = None) -> str | None:
    """The cache folder asked for (argument, then ``$SCIML_CACHE_DIR``, then :func:`default_cache`); None when
    off. A process on fewer cores than the machine has (``taskset``, a batch system's share, a suite's pinned
    entry: :mod:`sciml.cores`) keeps its programs in the subfolder ``cores-N``: XLA splits a CPU program's loops
    among the threads of the process that compiles it, and JAX's cache key does not hold their number, so a
    program made on one core would run on one thread in a later run on every core, and round its sums otherwise
    than the same run compiled there."""
    value = path if path is not None else os.environ.get("SCIML_CACHE_DIR", default_cache())
    if value.strip().lower() in OFF or not value.strip():
        return None
    folder, n = os.path.abspath(value), cores.count()
    return folder if n >= (os.cpu_count() or n) else os.path.join(folder, f"cores-{n}")


def enable_cache(path: str | None = None) -> str | None:
    """Turn the persistent compilation cache on (or off, see :func:`cache_setting`); the folder used.

    Programs that take XLA over ``MIN_COMPILE_S`` to compile are written (JAX's own default, one second,
    would skip most of a small case's train steps; ``JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS`` still
    overrides it). Changing the folder within a process resets JAX's cache object, which reads the folder
    once.
    """
    from jax.experimental.compilation_cache import compilation_cache as cc

    folder = cache_setting(path)
    if folder != jax.config.jax_compilation_cache_dir:  # type: ignore[attr-defined]  # options: dynamic attributes
        if folder is not None:
            os.makedirs(folder, exist_ok=True)
        jax.config.update("jax_compilation_cache_dir", folder)
        cc.reset_cache()
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_S)
    return folder


@dataclass(frozen=True)
class Policy:
    """Parameter and compute dtypes."""

    param: str = "float32"
    compute: str = "float32"

    @staticmethod
    def of(name: str) -> Policy:
        table = {"float32": Policy("float32", "float32"), "float64": Policy("float64", "float64"),
                 "bfloat16": Policy("float32", "bfloat16")}
        return table[name]

    @property
    def param_dtype(self):
        return jnp.dtype(self.param)

    @property
    def compute_dtype(self):
        return jnp.dtype(self.compute)

    @property
    def x64(self) -> bool:
        return "float64" in (self.param, self.compute)

    def precision(self):
        """A context in which ``jax_enable_x64`` is what this policy needs; the previous value comes back after
        (Optax's ``x64_precision``). The drivers train inside it, so a float64 case leaves no float64 behind."""
        return jax.enable_x64(self.x64)

    def cast(self, tree):
        """Floating leaves in the compute dtype (parameters stay in their own dtype outside)."""
        dt = self.compute_dtype
        return jax.tree_util.tree_map(lambda a: a.astype(dt) if jnp.issubdtype(a.dtype, jnp.floating) else a, tree)
