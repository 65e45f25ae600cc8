"""Export trained prediction functions with ``jax.export`` (StableHLO), and run them without the model code.

An export is two files: ``NAME.jaxexport`` (the serialised function, parameters baked in as constants, with a
symbolic batch size ``n``) and ``NAME.json`` (metadata: input and output names, units, dtype, case, version).
``load`` needs neither the case file nor the model's Python code.
"""
from __future__ import annotations

import json
import os
from typing import Callable

import jax
import numpy as np

from ..errors import UserError
from ..io.atomic import atomic_path, write_json

SUFFIX = ".jaxexport"


def save(path: str, fn: Callable, input_shape: tuple[int, ...], dtype, meta: dict) -> tuple[str, str]:
    """Serialise ``fn: (n, *input_shape) -> {name: (n, ...)}``; returns the two paths written."""
    base = path[: -len(SUFFIX)] if path.endswith(SUFFIX) else path
    n = jax.export.symbolic_shape("n")[0]
    exported = jax.export.export(jax.jit(fn))(jax.ShapeDtypeStruct((n, *input_shape), dtype))
    with atomic_path(base + SUFFIX) as tmp, open(tmp, "wb") as fh:
        fh.write(exported.serialize())
    from sciml import __version__

    write_json(base + ".json", {"format": "jax.export", "sciml": __version__, "jax": jax.__version__,
                                "input_shape": list(input_shape), "dtype": str(np.dtype(dtype)), **meta})
    return base + SUFFIX, base + ".json"


def load(path: str) -> tuple[Callable, dict]:
    """``(call, meta)``: ``call(array (n, ...)) -> {name: array}``."""
    base = path[: -len(SUFFIX)] if path.endswith(SUFFIX) else path
    for p in (base + SUFFIX, base + ".json"):
        if not os.path.isfile(p):
            raise UserError(f"{p}: not found; make an export with: sciml export RUN_DIR --out {base}{SUFFIX}")
    with open(base + SUFFIX, "rb") as fh:
        exported = jax.export.deserialize(bytearray(fh.read()))
    with open(base + ".json", encoding="utf-8") as fh:
        meta = json.load(fh)
    dtype = np.dtype(meta["dtype"])
    if dtype == np.float64:  # a float64 model takes float64 inputs: JAX must not narrow them
        jax.config.update("jax_enable_x64", True)
    return (lambda x: exported.call(np.asarray(x, dtype))), meta
