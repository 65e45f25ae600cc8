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
"""
from __future__ import annotations

import os

import jax
import numpy as np

from ..errors import BadFile, UserError, warn
from . import hdf5
from .atomic import atomic_h5


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
        arrays = [(g[k].attrs["path"], np.asarray(g[k][()])) for k in sorted(g)]
        attrs = dict(f.attrs)
    stored = attrs.pop("sha256", None)
    if stored is not None and hdf5.digest(arrays) != stored:
        raise BadFile(f"{path}: damaged checkpoint: its arrays do not match the checksum stored in it")
    return arrays, attrs


def _good(path: str) -> bool:
    try:
        _read(path)
    except UserError:
        return False
    return True


def save(path: str, state, **attrs) -> None:
    """Write every leaf of ``state`` (in tree order) atomically; a good previous version becomes ``.prev``."""
    arrays = [(name, np.asarray(leaf)) for name, leaf in zip(_names(state), jax.tree_util.tree_leaves(state))]
    with atomic_h5(path, keep=previous(path) if _good(path) else None) as f:
        g = f.create_group("state")
        for i, (name, a) in enumerate(arrays):
            g.create_dataset(f"{i:05d}", data=a).attrs["path"] = name
        f.attrs.update(attrs)
        f.attrs["sha256"] = hdf5.digest(arrays)


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
    leaf by leaf)."""
    file, stored, attributes = _newest_good(path)
    names, (leaves, treedef) = _names(template), jax.tree_util.tree_flatten(template)
    if len(stored) != len(leaves):
        raise UserError(f"{file}: checkpoint holds {len(stored)} arrays, this case needs {len(leaves)}; "
                        "was it written by a different case or model size?")
    for (stored_name, a), name, leaf in zip(stored, names, leaves):
        if stored_name != name or a.shape != np.shape(leaf):
            raise UserError(f"{file}: array {stored_name} {a.shape} does not fit {name} "
                            f"{np.shape(leaf)}; was it written by a different case or model size?")
    return _fill(treedef, [a for _, a in stored], leaves), attributes


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
    """The checkpoint a run's model is taken from: ``best.h5`` (lowest loss), else ``latest.h5``."""
    for name in ("best", "latest"):
        path = os.path.join(run_dir, "checkpoints", f"{name}.h5")
        if exists(path):
            return path
    raise UserError(f"{run_dir}: no checkpoint (checkpoints/best.h5 or latest.h5); is it a run folder? "
                    "Train one with: sciml run CASE.yaml")
