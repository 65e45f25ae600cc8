"""Export trained prediction functions with ``jax.export`` (StableHLO), and run them without the model code.

An export is two files: ``NAME.jaxexport`` (the serialised function, parameters baked in as constants, with a
symbolic batch size ``n``) and ``NAME.json`` (metadata: input and output names, units, dtype, case, version).
Sizes per sample may be symbolic too (``jax.export`` shape polymorphism): an entry of ``input_shape`` that is
a name, such as an operator's grid ``("n1", "n2", 1)``, takes any size its ``constraints`` (``"n1 >= 9"``)
allow, so one export answers on every grid (zero-shot) and any batch.
``load`` needs neither the case file nor the model's Python code. The metadata holds the SHA-256 of the
serialised bytes; ``load`` checks it (and that the metadata is whole), so a damaged or mismatched pair is one
line naming the file (:class:`~sciml.errors.BadFile`), not a deserialiser's traceback. Exports written
before the checksum load unchecked.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable

import jax
import numpy as np

from ..errors import BadFile, UserError
from ..io.atomic import write_bytes, write_json
from ..version import __version__
from .pieces import in_pieces

SUFFIX = ".jaxexport"
PIECE = 1 << 16  # numbers of input a call of the export takes at once (:func:`load`)


def save(path: str, fn: Callable, input_shape: tuple[int | str, ...], dtype, meta: dict) -> tuple[str, str]:
    """Serialise ``fn: (n, *input_shape) -> {name: (n, ...)}``; returns the two paths written.

    ``input_shape``: sizes per sample, a name for a symbolic one; ``meta["constraints"]``: ``"NAME >= INT"``
    bounds on those names (checked again by :func:`check_input` before a call).
    """
    base = path[: -len(SUFFIX)] if path.endswith(SUFFIX) else path
    constraints = tuple(meta.get("constraints", ()))
    shape = jax.export.symbolic_shape(", ".join(["n", *map(str, input_shape)]), constraints=constraints)
    exported = jax.export.export(jax.jit(fn))(jax.ShapeDtypeStruct(shape, dtype))
    blob = bytes(exported.serialize())
    write_bytes(base + SUFFIX, blob)

    write_json(base + ".json", {"format": "jax.export", "sciml": __version__, "jax": jax.__version__,
                                "input_shape": list(input_shape), "dtype": str(np.dtype(dtype)),
                                "sha256": hashlib.sha256(blob).hexdigest(), **meta, "constraints": list(constraints)})
    return base + SUFFIX, base + ".json"


def check_input(shape: tuple[int, ...], meta: dict) -> str | None:
    """Why inputs of ``shape`` per sample do not fit the export (``None`` if they do): the fixed sizes must
    match, a symbolic size must meet its ``NAME >= INT`` constraints, and one name has one size."""
    want = meta["input_shape"]
    if len(shape) != len(want) or any(isinstance(w, int) and w != n for w, n in zip(want, shape)):
        return f"inputs of shape {tuple(shape)} per sample; the model takes {_shape_text(want)}"
    sizes: dict[str, int] = {}
    for w, n in zip(want, shape):
        if isinstance(w, str) and sizes.setdefault(w, n) != n:
            return f"inputs of shape {tuple(shape)} per sample: {w} cannot be both {sizes[w]} and {n}"
    for rule in meta.get("constraints", []):
        m = re.fullmatch(r"\s*(\w+)\s*>=\s*(\d+)\s*", rule)
        if m and m[1] in sizes and sizes[m[1]] < int(m[2]):
            return (f"inputs of shape {tuple(shape)} per sample; the model takes {_shape_text(want)} "
                    f"with {m[1]} >= {m[2]}")
    return None


def check_ranges(x: np.ndarray, meta: dict) -> str | None:
    """Why inputs ``x (n, k)`` fall outside the export's ``ranges`` (``{input name: [low, high]}``, a family's
    parameters), ``None`` if they do not: the first column out of range, with its extreme values."""
    names = list(meta.get("inputs", []))
    for name, (lo, hi) in (meta.get("ranges") or {}).items():
        if name not in names or x.ndim != 2:
            continue
        col = np.asarray(x[:, names.index(name)], float)
        tol = 1e-9 * (hi - lo)
        if col.size and (not np.all(np.isfinite(col)) or col.min() < lo - tol or col.max() > hi + tol):
            return (f"column {name!r} holds {col.min():g}..{col.max():g}, outside the range the model was trained "
                    f"on [{lo:g}, {hi:g}]")
    return None


def _shape_text(shape: list) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def load(path: str) -> tuple[Callable, dict]:
    """``(call, meta)``: ``call(array (n, ...)) -> {name: NumPy array}``, in pieces of about :data:`PIECE` input
    numbers (:func:`~sciml.compile.pieces.in_pieces`): any number of points or samples in bounded memory. A PINN's
    pieces of points are padded to one of a few sizes, so that the many sizes of a user's calls compile a few
    programs; an operator's samples are not (padding a few samples would multiply their work)."""
    base = path[: -len(SUFFIX)] if path.endswith(SUFFIX) else path
    for p in (base + SUFFIX, base + ".json"):
        if not os.path.isfile(p):
            raise UserError(f"{p}: not found; make an export with: sciml export RUN_DIR --out {base}{SUFFIX}")
    meta = _metadata(base + ".json")
    again = f"export it again with: sciml export {meta.get('run_dir', 'RUN_DIR')} --out {base}{SUFFIX}"
    with open(base + SUFFIX, "rb") as fh:
        blob = fh.read()
    digest = hashlib.sha256(blob).hexdigest()
    if meta.get("sha256", digest) != digest:
        raise BadFile(f"{base}{SUFFIX}: damaged export: its bytes do not match the checksum in {base}.json; {again}")
    try:
        exported = jax.export.deserialize(bytearray(blob))
    except Exception as e:  # the deserialiser meets bytes it cannot parse in many ways (struct, flatbuffer, XLA)
        raise BadFile(f"{base}{SUFFIX}: unreadable export ({type(e).__name__}: {e}); {again}") from None
    dtype = np.dtype(meta["dtype"])

    def call(x):
        x = np.asarray(x, dtype)
        size = max(1, int(np.prod(x.shape[1:])))  # numbers a row: a point's coordinates, an operator's input field
        most = 1 << max(0, (PIECE // size).bit_length() - 1)  # rows a piece: a power of two
        with jax.enable_x64(dtype == np.float64):  # a float64 model takes float64 inputs: JAX must not narrow them
            return in_pieces(exported.call, x, most, least=256 if meta.get("solver") == "pinn" else None)

    return call, meta


def _metadata(path: str) -> dict:
    """The export's metadata, checked to hold what :func:`load` and ``sciml predict`` read."""
    try:
        with open(path, encoding="utf-8") as fh:
            meta = json.load(fh)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadFile(f"{path}: damaged export metadata (not JSON: {e})") from None
    if not isinstance(meta, dict) or meta.get("format") != "jax.export":
        raise BadFile(f'{path}: not the metadata of a sciml export (no "format": "jax.export")')
    missing = [k for k in ("dtype", "input_shape", "inputs") if k not in meta]
    if missing:
        raise BadFile(f"{path}: damaged export metadata (missing {', '.join(missing)})")
    return meta
