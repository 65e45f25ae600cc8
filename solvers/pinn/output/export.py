"""The PINN's prediction function for ``sciml export``: physical points ``(n, d)`` to every field it reports
(the equation's :meth:`~sciml.equations.base.Equation.reported`: its derived fields, and where it defines them
its fields' first derivatives, so that a flow's wall forces can be computed from the export).

The model is the run's (:func:`sciml.io.checkpoint.trained`: ``checkpoints/model.h5``, the state the run ended
with, which its summary scores): a curriculum's last stage, an ensemble's members, a family's one network.

- A family (``parameters``) takes its parameters' values as further columns after the coordinates; their
  ranges are in the metadata (``ranges``), and ``sciml predict`` refuses values outside them.
- An ensemble (``ensemble``, :mod:`sciml.solvers.pinn.features.ensemble`) gives its members' mean of every field and,
  beside it, ``<field>_std``.
- Time windows (``training.windows``, :mod:`sciml.solvers.pinn.features.windows`) give each point from the window that
  holds its time, as the run's evaluation does: windows ``0 .. k-1`` from ``checkpoints/window_<j>.h5``, the window the
  model was saved in (its ``stage``) from the model; a run stopped in window ``k`` answers later times with window
  ``k``. A call computes only the windows that its points fall in (:func:`_where_held`).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile import Policy
from sciml.errors import UserError
from sciml.io import checkpoint

from ..config import PinnCase
from ..features import ensemble, windows
from ..features.parameters import encoding
from ..problem import Problem, assemble


def export_model(cfg: PinnCase, run_dir: str):
    """``(fn, input_shape, dtype, meta)`` of the run's model (module notes)."""
    policy = Policy.of(cfg.dtype)  # the caller traces inside policy.precision() (sciml export does)
    path = checkpoint.trained(run_dir)
    pieces, members = _pieces(cfg, run_dir, path)
    problem = pieces[-1][0]
    eq, dtype, dim = problem.equation, policy.param_dtype, len(problem.equation.coords)
    family = problem.parameters

    def one(problem: Problem, params):
        """A point's fields (nondimensional inputs ``(D[+P],)``), one at a time under vmap: the engine's plans
        need a concrete count of points."""
        reported = problem.output(problem.equation.reported)
        if members == 1:
            return lambda xh: {k: v[0] for k, v in reported(params, xh[None]).items()}

        def mean_std(xh):
            each = jax.vmap(lambda p: reported(p, xh[None]))(params)  # {field: (members, 1)}
            return {name: v for k, e in each.items()
                    for name, v in ((k, jnp.mean(e[:, 0])), (f"{k}_std", jnp.std(e[:, 0], ddof=1)))}

        return mean_std

    def fields(problem: Problem, params, x):
        z = jnp.asarray(problem.equation.to_nondim(x[:, :dim]), dtype)
        if family is not None:  # the parameters' columns, encoded as training saw them
            z = jnp.concatenate([z, encoding(family, x[:, dim:]).astype(dtype)], axis=-1)
        return jax.vmap(one(problem, params))(z)

    def fn(x):
        if len(pieces) == 1:
            return fields(*pieces[0], x)
        k = jnp.minimum(windows.index(cfg, x[:, dim - 1], jnp), len(pieces) - 1)  # time is the last coordinate
        each = [_where_held(k == j, lambda x, p=p, params=params: fields(p, params, x), x)
                for j, (p, params) in enumerate(pieces)]
        return {name: jnp.select([k == j for j in range(len(each))], [e[name] for e in each]) for name in each[0]}

    coords = list(eq.coords) + (list(family.names) if family is not None else [])
    outputs = list(jax.eval_shape(fn, jax.ShapeDtypeStruct((1, len(coords)), dtype)))
    center, scale = eq.scaling()
    meta = {"solver": "pinn", "inputs": coords, "outputs": outputs, "equation": cfg.equation.type,
            **({"ranges": family.ranges()} if family is not None else {}),
            **({"windows": len(pieces)} if cfg.training.windows > 1 else {}),
            "checkpoint": path, "units": dict(eq.units) if eq.units else "those of the case file",
            "scalings": {"note": "applied inside: the network sees (x - center) / scale",
                         "center": np.asarray(center, float).tolist(), "scale": np.asarray(scale, float).tolist()}}
    return fn, (len(coords),), np.dtype(dtype), meta


def _where_held(held, fields, x) -> dict:
    """A window's ``fields(x)`` where some point is ``held`` in it, zeros where none is: a call of the export
    computes the windows its points fall in, not every window (``sciml predict`` calls it in pieces, so points
    given in time order touch one or two windows a piece)."""
    shapes = jax.eval_shape(fields, x)
    return jax.lax.cond(jnp.any(held), fields, lambda x: {k: jnp.zeros(v.shape, v.dtype) for k, v in shapes.items()}, x)


def _pieces(cfg: PinnCase, run_dir: str, path: str) -> tuple[list[tuple[Problem, object]], int]:
    """``([(problem, params)], members)`` of the model in ``path``: one, or a time window's each (module notes);
    ``members``: of an ensemble, its networks, stacked in ``params``."""
    saved = checkpoint.attrs(path)
    if cfg.training.windows == 1:
        problem = assemble(cfg)
        params, members = _params(cfg, problem, path, saved)
        return [(problem, params)], members
    last = int(saved.get("stage", 0))
    if last >= cfg.training.windows:
        raise UserError(f"{path}: saved in window {last + 1}; this case has {cfg.training.windows}")
    first = assemble(windows.case(cfg, 0))
    template = first.init(jax.random.PRNGKey(0))
    for k in range(last):
        if not checkpoint.exists(windows.path(run_dir, k)):
            raise UserError(f"{windows.path(run_dir, k)}: missing; the model of window {last + 1} needs the windows "
                            "before it")
    params = [windows.load(run_dir, cfg, k, template) for k in range(last)]
    return windows.chain(cfg, [*params, checkpoint.load_part(path, "params", template)]), 1


def _params(cfg: PinnCase, problem: Problem, path: str, saved: dict) -> tuple[object, int]:
    """``(parameters in path, members)``: one network's, or an ensemble's members' stacked (when it was saved in
    the members' stage: a run stopped before it holds the one network it started from)."""
    e = cfg.ensemble
    if e is not None and int(saved.get("stage", 0)) == (0 if e.start == "seeds" else 1):
        template = jax.vmap(problem.init)(ensemble.keys(jax.random.PRNGKey(0), e.members))
        return checkpoint.load_part(path, "params", template), e.members
    return checkpoint.load_part(path, "params", problem.init(jax.random.PRNGKey(0))), 1
