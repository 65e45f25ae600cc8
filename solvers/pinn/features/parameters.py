r"""Parametric PINNs (``parameters:``): numbers of the equation section made inputs of the network.

Each parameter :math:`p` (a number the case's ``equation`` section sets or may set, e.g. the plate's ``aspect``
or ``q0``, the flow's Reynolds number) with range :math:`[l, h]` is an extra input of the network, mapped to
:math:`[-1, 1]`,

.. math:: \hat p = 2\,\frac{p - l}{h - l} - 1 \quad (\texttt{scale: linear}), \qquad
          \hat p = 2\,\frac{\log p - \log l}{\log h - \log l} - 1 \quad (\texttt{log}),

so that one network :math:`N(\hat x, \hat p)` answers for the whole family. Every point of a batch (interior,
boundary parts, the equation's fixed point sets, periodic pairs: both points of a pair get the same values) is
drawn with its own parameter values, uniform in :math:`\hat p` (the sampling method's sequence, shuffled so
that it does not line up with the points'); the columns :math:`\hat p` follow the coordinates in the batch's
arrays, ``(N, D + P)``.

Derivatives are taken in the coordinates only: the requests are padded with zero orders in the parameters'
columns (:func:`sciml.equations.fields.evaluator`, ``extra``), and the residuals read the coordinates alone
(``d.points`` is ``(N, D)``). The equation of a group of points is built again inside the trace with the
parameters' values of those points, one per point (arrays ``(N,)``, :meth:`Parameters.equation`), as
:mod:`.unknowns` does with its scalars: an equation must compute with those numbers arithmetically, and
loading a case traces it once to find out.

Evaluation (:mod:`sciml.solvers.pinn.run`) scores each combination of the listed ``values`` (one list per parameter,
their product) against the equation's reference built at those numbers; the summary lists every combination's
metrics (``family``) and takes the worst of each error as ``metrics``.

Not combined with: observations (``data``), unknowns, time windows, a Reynolds curriculum, adaptive
refinement, causal weighting, the stochastic autodiff mode (its operators would mix in the parameters'
columns).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from typing import TYPE_CHECKING

import numpy as np

from sciml.config import suggest
from sciml.errors import Invalid, UserError

from ..geometry.sampling import Method, unit_cube

if TYPE_CHECKING:
    from ..config import ParameterConfig, PinnCase

DEFAULT_VALUES = 5  # evaluated values of a parameter whose case lists none


def numbers(section, prefix: str = "") -> list[str]:
    """The names a parameter may take: the section's fields that hold, or may hold, a number, and those of its
    subsections by dotted name (the plate's ``patch.x``)."""
    out = []
    for f in dataclasses.fields(section):
        v = getattr(section, f.name)
        number = isinstance(v, (int, float)) and not isinstance(v, bool)
        if dataclasses.is_dataclass(v):
            out += numbers(v, f"{prefix}{f.name}.")
        elif number or (v is None and any(t in str(f.type) for t in ("float", "int"))):
            out.append(prefix + f.name)
    return out


def check(cfg: PinnCase, domain) -> None:
    """Names: a number of the equation, not a coordinate, not an unknown (:class:`Invalid` at
    ``parameters.<name>``; the sections a family does not combine with: :mod:`.features`)."""
    if not cfg.parameters:
        return
    known = numbers(cfg.equation)
    for name in cfg.parameters:
        key = f"parameters.{name}"
        if name in domain.coords:
            raise Invalid(key, f"{name!r} is a coordinate of the domain {list(domain.coords)}; a parameter names a "
                               f"number of the equation")
        if name not in known:
            raise Invalid(key, f"the equation ({cfg.equation.type}) sets no number {name!r}{suggest(name, known)}; "
                               f"its numbers are {sorted(known)}")
        if name in cfg.unknowns:
            raise Invalid(key, f"{name!r} is also an unknown: a number is either learnt or a parameter")


def _encode(c: ParameterConfig, v, xp):
    lo, hi = c.range
    if c.scale == "log":
        return 2.0 * (xp.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)) - 1.0
    return 2.0 * (v - lo) / (hi - lo) - 1.0


def _decode(c: ParameterConfig, u, xp):
    lo, hi = c.range
    t = (u + 1.0) / 2.0
    if c.scale == "log":
        return xp.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * t)
    return lo + (hi - lo) * t


class Parameters:
    """The parameters of a family: their columns' encoding, draws, the equation at their values."""

    def __init__(self, cfg: PinnCase, equation):
        self.specs: dict[str, ParameterConfig] = dict(cfg.parameters)
        self.names = tuple(self.specs)
        self.base = equation  # the case's: the family's equations are it at other values

    def __len__(self) -> int:
        return len(self.names)

    def draw(self, n: int, rng: np.random.Generator, method: Method) -> np.ndarray:
        """Encoded columns ``(n, P)`` in ``[-1, 1]``: uniform in the encoded value, by ``method``, shuffled."""
        u = unit_cube(n, len(self), rng, method)
        return 2.0 * u[rng.permutation(n)] - 1.0

    def encode(self, values: dict, n: int) -> np.ndarray:
        """Encoded columns ``(n, P)`` of ``values`` (name -> a number or ``(n,)`` values), checked in range."""
        self.check_values(values)
        cols = [np.broadcast_to(_encode(self.specs[k], np.asarray(values[k], float), np), (n,)) for k in self.names]
        return np.stack(cols, axis=-1)

    def check_values(self, values: dict) -> None:
        """Every parameter given, and inside its range (:class:`UserError` otherwise)."""
        for k, c in self.specs.items():
            if k not in values:
                raise UserError(f"no value for the parameter {k!r} (parameters: {list(self.names)})")
            v = np.asarray(values[k], float)
            lo, hi = c.range
            tol = 1e-9 * (hi - lo)
            if v.size and (not np.all(np.isfinite(v)) or v.min() < lo - tol or v.max() > hi + tol):
                raise UserError(f"parameter {k!r} = {v.min():g}..{v.max():g} is outside its range [{lo:g}, {hi:g}]")

    def values(self, columns) -> dict:
        """``{name: values (N,)}`` from encoded columns ``(N, P)`` (traced or not)."""
        import jax.numpy as jnp

        return {k: _decode(self.specs[k], columns[..., i], jnp) for i, k in enumerate(self.names)}

    def equation(self, columns):
        """The equation at the values of encoded ``columns (N, P)``, one per point."""
        return self.base.at(self.values(columns))

    def at(self, values: dict):
        """The equation at one combination of (plain) values."""
        return self.base.at({k: float(values[k]) for k in self.names})

    def grid(self) -> list[dict[str, float]]:
        """The combinations evaluated: the product of each parameter's ``values`` (default: 5 spread ones)."""
        lists = []
        for c in self.specs.values():
            if c.values is not None:
                lists.append([float(v) for v in c.values])
            else:
                u = np.linspace(-1.0, 1.0, DEFAULT_VALUES)
                lists.append([float(v) for v in _decode(c, u, np)])
        return [dict(zip(self.names, combo)) for combo in itertools.product(*lists)]

    def ranges(self) -> dict[str, list[float]]:
        return {k: [float(c.range[0]), float(c.range[1])] for k, c in self.specs.items()}


def encoding(family: Parameters, columns):
    """The encoded columns ``(N, P)`` of plain values ``(N, P)`` in the family's order (traced or not)."""
    import jax.numpy as jnp

    return jnp.stack([_encode(family.specs[k], columns[:, i], jnp) for i, k in enumerate(family.names)], axis=-1)


def label(values: dict) -> str:
    """``aspect=1.2`` (``, ``-joined for several)."""
    return ", ".join(f"{k}={v:g}" for k, v in values.items())
