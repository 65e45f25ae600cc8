"""Checkpoints of the state pytree in HDF5: one dataset per leaf, named by its path in the tree.

Restoring needs a *template* state of the same structure (built from the case file), whose leaves are
replaced by the stored arrays; nothing is unpickled, so a checkpoint handed over by someone else is safe to
open. Attributes record the step and any metadata.

Surviving damage. Each file stores ``sha256`` = :func:`~sciml.io.hdf5.digest` of its leaves (tree path,
dtype, shape, bytes, in tree order), checked on load. Each name keeps two versions, ``NAME.h5`` and the one
before it, ``NAME.prev.h5``: a save writes the new file beside, then moves a *good* ``NAME.h5`` aside to
``NAME.prev.h5`` and puts the new one in its place (a damaged ``NAME.h5`` is replaced without moving it, so
the only good version is never overwritten). Loading takes the newest good version: ``NAME.h5``, else
``NAME.prev.h5`` with a one-line warning naming both, else a :class:`~sciml.errors.BadFile` naming the file
and what is wrong. Files written before checksums (no ``sha256``) load unchecked.

Leaving out. A file may hold fewer leaves than its state: ``save(..., alone=rule)`` keeps the leaves the rule
picks (the dense BFGS matrix of a training state, P² numbers) in ``NAME.h5`` alone, so the version before is
written to ``NAME.prev.h5`` without them instead of being moved there (the largest state is stored once, not
twice); :func:`part` gives a state without one of its entries (a run's model: the state without its
optimizer). Either file names what it leaves out in its ``without`` attribute (:func:`left_out`), and
:func:`load` fills those leaves from the template: the caller decides what they then mean (the training loop
starts the optimizer afresh).

Square matrices by their triangles. A square real matrix among the leaves ``alone`` picks (the inverse
Hessian of dense BFGS, symmetric up to rounding: the largest state there is) is stored as its upper triangle
and, below it, the XOR of each element's bits with its mirror's (:func:`sciml.io.hdf5.symmetric_bits`),
compressed (LZF, bytes shuffled): the mostly zero lower half takes little room, and loading gives the matrix
back bit for bit, so a resume is as exact as before. The cavity's 8 202² matrix (538 MB) takes 55-57 % of its
size, for about 5 s more a write (``docs/run_folder.md``).
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Sequence

import jax
import numpy as np

from ..errors import BadFile, UserError, warn
from . import hdf5
from .atomic import atomic_h5

SYMMETRIC = "symmetric_bits"  # a leaf's layout: a square matrix by its triangles (module notes)


def _names(tree) -> list[str]:
    paths, _ = jax.tree_util.tree_flatten_with_path(tree)
    return [jax.tree_util.keystr(p) or "root" for p, _ in paths]


def previous(path: str) -> str:
    """The file that keeps the version before ``path``: ``NAME.prev.h5`` beside ``NAME.h5``."""
    root, ext = os.path.splitext(path)
    return f"{root}.prev{ext}"


def exists(path: str) -> bool:
    """Whether checkpoint ``path`` has a version to load (itself or its previous one)."""
    return os.path.exists(path) or os.path.exists(previous(path))


def _read(path: str) -> tuple[list[tuple[str, np.ndarray]], dict]:
    """The stored leaves ``[(tree path, array)]`` in tree order and the attributes, checksum verified."""
    with hdf5.opened(path, "checkpoint") as f:
        g = f["state"]
        arrays = [(g[k].attrs["path"], _array(g[k])) for k in sorted(g)]
        attrs = dict(f.attrs)
    stored = attrs.pop("sha256", None)
    if stored is not None and hdf5.digest(arrays) != stored:
        raise BadFile(f"{path}: damaged checkpoint: its arrays do not match the checksum stored in it")
    return arrays, attrs


def _array(d) -> np.ndarray:
    """A stored leaf as it was saved (a matrix stored by its triangles decoded: module notes)."""
    if d.attrs.get("layout") == SYMMETRIC:
        return hdf5.from_symmetric_bits(d[()], d.attrs["dtype"])
    return np.asarray(d[()])


def _stored(path: str) -> tuple[list[tuple[str, np.ndarray]], dict] | None:
    """The leaves and attributes of ``path`` if it is a good checkpoint, else None."""
    try:
        return _read(path)
    except UserError:
        return None


def save(path: str, state, alone: Callable[[str, np.ndarray], bool] | None = None,
         without: Sequence[str] = (), **attrs) -> None:
    """Write every leaf of ``state`` (in tree order) atomically; a good previous version becomes ``.prev``, written
    without the leaves ``alone(name, array)`` picks when it holds any (module notes). ``without``: the names of the
    leaves of the whole state that ``state`` leaves out (:func:`part`), recorded for :func:`load`."""
    arrays = [(name, np.asarray(leaf)) for name, leaf in zip(_names(state), jax.tree_util.tree_leaves(state))]
    old = _stored(path)
    dropped = [] if old is None or alone is None else [n for n, a in old[0] if alone(n, a)]
    if old is not None and dropped:
        _write(previous(path), [(n, a) for n, a in old[0] if n not in dropped],
               {**old[1], "without": json.dumps([*left_out(old[1]), *dropped])})
    square = {n for n, a in arrays if alone is not None and alone(n, a) and hdf5.packs_symmetric(a)}
    _write(path, arrays, {**attrs, **({"without": json.dumps(list(without))} if without else {})},
           keep=previous(path) if old is not None and not dropped else None, square=square)


def _write(path: str, arrays: list[tuple[str, np.ndarray]], attrs: dict, keep: str | None = None,
           square: Collection[str] = ()) -> None:
    """``arrays`` in ``path``, those named in ``square`` by their triangles (module notes)."""
    with atomic_h5(path, keep=keep) as f:
        g = f.create_group("state")
        for i, (name, a) in enumerate(arrays):
            if name in square:
                d = g.create_dataset(f"{i:05d}", data=hdf5.symmetric_bits(a), compression="lzf", shuffle=True,
                                     chunks=(min(64, len(a)), len(a)))
                d.attrs.update(layout=SYMMETRIC, dtype=a.dtype.str)
            else:
                d = g.create_dataset(f"{i:05d}", data=a)
            d.attrs["path"] = name
        f.attrs.update(attrs)
        f.attrs["sha256"] = hdf5.digest(arrays)


def part(state: dict, leave: str) -> tuple[dict, list[str]]:
    """``(state without its entry leave, the names of the leaves that entry holds)``: what :func:`save` takes
    as ``state`` and ``without`` to store a part of a state that :func:`load` fills back into the whole."""
    prefix = jax.tree_util.keystr((jax.tree_util.DictKey(leave),))
    names = _names(state.get(leave)) if state.get(leave) is not None else []
    return {k: v for k, v in state.items() if k != leave}, [prefix + n if n != "root" else prefix for n in names]


def left_out(attrs: dict) -> list[str]:
    """The names of the leaves a checkpoint with attributes ``attrs`` leaves out (module notes)."""
    return list(json.loads(attrs.get("without", "[]")))


def _newest_good(path: str, quiet: bool = False) -> tuple[str, list[tuple[str, np.ndarray]], dict]:
    """``(file, leaves, attrs)`` of the newest good version of checkpoint ``path``."""
    try:
        return path, *_read(path)
    except BadFile as damaged:
        prev = previous(path)
        if not os.path.exists(prev):
            raise
        try:
            arrays, attrs = _read(prev)
        except BadFile as too:
            raise BadFile(f"{damaged}; the previous version is no better: {too}") from None
        if not quiet:
            step = f" (step {attrs['step']})" if "step" in attrs else ""
            warn(f"{damaged}; using the previous checkpoint {prev}{step}")
        return prev, arrays, attrs


def attrs(path: str) -> dict:
    """The attributes of the version :func:`load` takes (e.g. the phase, to build the template)."""
    return _newest_good(path, quiet=True)[2]


def load(path: str, template):
    """``(state, attrs)``: the newest good version of ``path``, with the structure of ``template`` (checked
    leaf by leaf); the leaves it leaves out (:func:`left_out` of ``attrs``) are the template's."""
    file, stored, attributes = _newest_good(path)
    names, (leaves, treedef) = _names(template), jax.tree_util.tree_flatten(template)
    missing = set(left_out(attributes))
    held = [(name, leaf) for name, leaf in zip(names, leaves) if name not in missing]
    if len(stored) != len(held):
        raise UserError(f"{file}: checkpoint holds {len(stored)} arrays, this case needs {len(held)}; "
                        "was it written by a different case or model size?")
    for (stored_name, a), (name, leaf) in zip(stored, held):
        if stored_name != name or a.shape != np.shape(leaf):
            raise UserError(f"{file}: array {stored_name} {a.shape} does not fit {name} "
                            f"{np.shape(leaf)}; was it written by a different case or model size?")
    arrays = iter(a for _, a in stored)
    return _fill(treedef, [np.asarray(leaf) if name in missing else next(arrays)
                           for name, leaf in zip(names, leaves)], leaves), attributes


def load_part(path: str, key: str, template):
    """The subtree ``state[key]`` (e.g. the parameters) of a checkpoint, whatever the rest of the state holds."""
    file, stored, _ = _newest_good(path)
    prefix = jax.tree_util.keystr((jax.tree_util.DictKey(key),))
    stored = [(n, a) for n, a in stored if n.startswith(prefix)]
    names = [prefix + n if n != "root" else prefix for n in _names(template)]
    leaves, treedef = jax.tree_util.tree_flatten(template)
    if [n for n, _ in stored] != names or any(a.shape != np.shape(l) for (_, a), l in zip(stored, leaves)):
        raise UserError(f"{file}: its {key} do not fit this case; was it written by a different case or model size?")
    return _fill(treedef, [a for _, a in stored], leaves)


def _fill(treedef, arrays, leaves):
    """The tree of ``arrays``, each cast to the dtype of the template's leaf."""
    return jax.tree_util.tree_unflatten(treedef, [a.astype(np.asarray(l).dtype) for a, l in zip(arrays, leaves)])


def trained(run_dir: str) -> str:
    """The checkpoint a run's model is taken from: ``model.h5``, the state the run ended (or stopped) with, which
    its summary scores (``latest.h5`` in a run folder written before there were model files: the same state)."""
    for name in ("model", "latest"):
        path = os.path.join(run_dir, "checkpoints", f"{name}.h5")
        if exists(path):
            return path
    raise UserError(f"{run_dir}: no checkpoint (checkpoints/model.h5 or latest.h5); is it a run folder? "
                    "Train one with: sciml run CASE.yaml")
