"""Checkpoints of the state pytree in HDF5: one dataset per leaf, named by its path in the tree.

Restoring needs a *template* state of the same structure (built from the case file), whose leaves are
replaced by the stored arrays; nothing is unpickled, so a checkpoint handed over by someone else is safe to
open. Attributes record the step and any metadata.
"""
from __future__ import annotations

import os

import h5py
import jax
import numpy as np

from ..errors import UserError
from .atomic import atomic_path


def _names(tree) -> list[str]:
    paths, _ = jax.tree_util.tree_flatten_with_path(tree)
    return [jax.tree_util.keystr(p) or "root" for p, _ in paths]


def save(path: str, state, **attrs) -> None:
    """Write every leaf of ``state`` (in tree order) atomically."""
    leaves = jax.tree_util.tree_leaves(state)
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as f:
        g = f.create_group("state")
        for i, (name, leaf) in enumerate(zip(_names(state), leaves)):
            ds = g.create_dataset(f"{i:05d}", data=np.asarray(leaf))
            ds.attrs["path"] = name
        for k, v in attrs.items():
            f.attrs[k] = v


def load(path: str, template):
    """The state stored at ``path``, with the structure of ``template`` (checked leaf by leaf)."""
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise UserError(f"{path}: cannot open checkpoint ({e})") from None
    with f:
        g = f["state"]
        names, leaves, treedef = _names(template), *jax.tree_util.tree_flatten(template)
        if len(g) != len(leaves):
            raise UserError(f"{path}: checkpoint holds {len(g)} arrays, this case needs {len(leaves)}; "
                            "was it written by a different case or model size?")
        out = []
        for i, (name, leaf) in enumerate(zip(names, leaves)):
            ds = g[f"{i:05d}"]
            if ds.attrs["path"] != name or ds.shape != np.shape(leaf):
                raise UserError(f"{path}: array {ds.attrs['path']} {ds.shape} does not fit {name} "
                                f"{np.shape(leaf)}; was it written by a different case or model size?")
            out.append(np.asarray(ds[()]).astype(np.asarray(leaf).dtype))
        return jax.tree_util.tree_unflatten(treedef, out), dict(f.attrs)


def load_part(path: str, key: str, template):
    """The subtree ``state[key]`` (e.g. the parameters) of a checkpoint, whatever the rest of the state holds."""
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise UserError(f"{path}: cannot open checkpoint ({e})") from None
    prefix = jax.tree_util.keystr((jax.tree_util.DictKey(key),))
    with f:
        stored = [f["state"][k] for k in sorted(f["state"]) if f["state"][k].attrs["path"].startswith(prefix)]
        names = [prefix + n if n != "root" else prefix for n in _names(template)]
        leaves, treedef = jax.tree_util.tree_flatten(template)
        if [ds.attrs["path"] for ds in stored] != names or any(ds.shape != np.shape(l) for ds, l in zip(stored, leaves)):
            raise UserError(f"{path}: its {key} do not fit this case; was it written by a different case or model size?")
        return jax.tree_util.tree_unflatten(treedef, [np.asarray(ds[()]).astype(np.asarray(l).dtype)
                                                      for ds, l in zip(stored, leaves)])


def trained(run_dir: str) -> str:
    """The checkpoint a run's model is taken from: ``best.h5`` (lowest loss), else ``latest.h5``."""
    for name in ("best", "latest"):
        path = os.path.join(run_dir, "checkpoints", f"{name}.h5")
        if os.path.exists(path):
            return path
    raise UserError(f"{run_dir}: no checkpoint (checkpoints/best.h5 or latest.h5); is it a run folder? "
                    "Train one with: sciml run CASE.yaml")
