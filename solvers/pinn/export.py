"""The PINN's prediction function for ``sciml export``: physical points ``(n, d)`` to every field it reports.

A family (``parameters``) takes its parameters' values as further columns after the coordinates; their ranges
are in the metadata (``ranges``), and ``sciml predict`` refuses values outside them. An ensemble
(``ensemble``, :mod:`.ensemble`) gives its members' mean of every field and, beside it, ``<field>_std``, from
the run's last checkpoint (the members' state; ``best`` may be the one network before them)."""
from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile import Policy
from sciml.errors import UserError
from sciml.io import checkpoint

from . import ensemble
from .config import PinnCase
from .parameters import encoding
from .problem import assemble


def export_model(cfg: PinnCase, run_dir: str):
    """``(fn, input_shape, dtype, meta)`` from the run's best checkpoint (its latest if there is no best)."""
    if cfg.training.windows > 1:
        raise UserError(f"{run_dir}: a run of {cfg.training.windows} time windows has a network per window; "
                        "export takes a run of one")
    policy = Policy.of(cfg.dtype)  # the caller traces inside policy.precision() (sciml export does)
    problem = assemble(cfg)
    members = cfg.ensemble.members if cfg.ensemble is not None else 1
    if members == 1:
        path = checkpoint.trained(run_dir)
        params = checkpoint.load_part(path, "params", problem.init(jax.random.PRNGKey(0)))
    else:
        path = os.path.join(run_dir, "checkpoints", "latest.h5")
        if not checkpoint.exists(path):
            raise UserError(f"{run_dir}: no checkpoints/latest.h5 (the ensemble's members); is it a run folder?")
        template = jax.vmap(problem.init)(ensemble.keys(jax.random.PRNGKey(0), members))
        params = checkpoint.load_part(path, "params", template)
    eq, dtype = problem.equation, policy.param_dtype

    def one(xh):  # a point at a time under vmap: the engine's plans need a concrete count of points
        if members == 1:
            return {k: v[0] for k, v in problem.derived(params, xh[None]).items()}
        each = jax.vmap(lambda p: problem.derived(p, xh[None]))(params)  # {field: (members, 1)}
        return {name: v for k, e in each.items()
                for name, v in ((k, jnp.mean(e[:, 0])), (f"{k}_std", jnp.std(e[:, 0], ddof=1)))}

    family, dim = problem.parameters, len(eq.coords)

    def fn(x):
        z = jnp.asarray(eq.to_nondim(x[:, :dim]), dtype)
        if family is not None:  # the parameters' columns, encoded as training saw them
            z = jnp.concatenate([z, encoding(family, x[:, dim:]).astype(dtype)], axis=-1)
        return jax.vmap(one)(z)

    coords = list(eq.coords) + (list(family.names) if family is not None else [])
    outputs = list(jax.eval_shape(fn, jax.ShapeDtypeStruct((1, len(coords)), dtype)))
    center, scale = eq.scaling()
    meta = {"solver": "pinn", "inputs": coords, "outputs": outputs, "equation": cfg.equation.type,
            **({"ranges": family.ranges()} if family is not None else {}),
            "checkpoint": path, "units": dict(eq.units) if eq.units else "those of the case file",
            "scalings": {"note": "applied inside: the network sees (x - center) / scale",
                         "center": np.asarray(center, float).tolist(), "scale": np.asarray(scale, float).tolist()}}
    return fn, (len(coords),), np.dtype(dtype), meta
