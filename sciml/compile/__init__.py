"""The compiler layer: persistent compilation cache, dtype policy, and export of trained functions.

- :func:`enable_cache` points XLA's persistent cache at a folder (``$SCIML_CACHE_DIR`` or ``runs/.jax_cache``)
  so a second run of the same case skips compilation.
- :class:`Policy` names the parameter and compute dtypes (``float32``, ``float64``, or ``bfloat16`` compute
  with ``float32`` parameters for FNOs).
- :mod:`sciml.compile.export` serialises a prediction function with ``jax.export`` (StableHLO).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import jax
import jax.numpy as jnp

DEFAULT_CACHE = os.path.join("runs", ".jax_cache")


def enable_cache(path: str | None = None) -> str:
    """Turn on the persistent compilation cache; returns the folder used."""
    path = path or os.environ.get("SCIML_CACHE_DIR") or DEFAULT_CACHE
    os.makedirs(path, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", os.path.abspath(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    return path


@dataclass(frozen=True)
class Policy:
    """Parameter and compute dtypes."""

    param: str = "float32"
    compute: str = "float32"

    @staticmethod
    def of(name: str) -> "Policy":
        table = {"float32": Policy("float32", "float32"), "float64": Policy("float64", "float64"),
                 "bfloat16": Policy("float32", "bfloat16")}
        return table[name]

    @property
    def param_dtype(self):
        return jnp.dtype(self.param)

    @property
    def compute_dtype(self):
        return jnp.dtype(self.compute)

    def activate(self) -> None:
        """float64 needs ``jax_enable_x64`` (a process-wide switch)."""
        jax.config.update("jax_enable_x64", "float64" in (self.param, self.compute))

    def cast(self, tree):
        """Cast floating leaves to the compute dtype (parameters stay in their own dtype outside)."""
        dt = self.compute_dtype
        return jax.tree_util.tree_map(lambda a: a.astype(dt) if jnp.issubdtype(a.dtype, jnp.floating) else a, tree)
