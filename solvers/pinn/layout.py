"""What a PINN problem's residuals read, collected once: its :class:`Layout`.

Each residual of the equation (interior, each part's condition, each point set, each periodic pair) is run once
on stand-in fields (:meth:`.derivatives.Derivatives.requests`) to learn which partials it reads; a part whose
condition has no residual is not sampled, nor one whose every quantity an exact condition holds (:mod:`.exact`).
The batches' layout (:mod:`.batches`) and the residuals' loop (:meth:`.problem.Problem.residuals`) follow it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np

from sciml.equations.fields import evaluator
from sciml.errors import ConfigError

from .config import PinnCase
from .derivatives import Derivatives
from .exact import INITIAL, Exact
from .geometry.sampling import SOBOL_MAX_DIM, probe_method


@dataclass(frozen=True)
class Layout:
    """The requests of each residual: ``interior``; ``parts[part]`` (sampled parts); ``point_sets[name] =
    (points (n, D), residual, requests)``; ``pairs["a|b"] = (a, offset of b from a, requests)``; the ``exact``
    conditions (or None); ``initial = (values, carried fields)`` of a time window after the first (or None)."""

    interior: tuple
    parts: dict[str, tuple]
    point_sets: dict[str, tuple[np.ndarray, Callable, tuple]]
    pairs: dict[str, tuple[str, np.ndarray, tuple]]
    exact: Exact | None
    initial: tuple[Callable, tuple[str, ...]] | None

    @property
    def n_keys(self) -> int:
        """The random keys one evaluation of the residuals splits (a group of points each)."""
        return 1 + len(self.parts) + len(self.point_sets) + 2 * len(self.pairs)


def layout(cfg: PinnCase, eq, peq, geometry, derivs: Derivatives, names: tuple[str, ...], dtype,
           initial: Callable[[np.ndarray], dict] | None) -> Layout:
    """The layout of case ``cfg``'s residuals: ``eq`` the case's equation, ``peq`` the one the requests are
    collected from (a family's at stand-in values, a field unknown's with a varying coefficient), ``names`` the
    fields the residuals read, ``initial`` a time window's initial values (:class:`.problem.Problem`)."""
    dim = len(eq.coords)
    interior = derivs.requests(peq.interior)
    parts: dict = {}
    keys: dict[str, set[str]] = {}
    carried: tuple[str, ...] = ()
    for p in geometry.parts:
        probe: dict = {}
        req = derivs.requests(lambda d, p=p, probe=probe: probe.update(peq.boundary(p, d, jnp.ones((1, dim)))))
        if probe:
            parts[p], keys[p] = req, set(probe)
            carried = tuple(q for q in probe if q in names) if p == INITIAL else carried
    if cfg.training.windows > 1 and not carried:
        raise ConfigError("time windows carry the fields of the initial condition from one window to the "
                          "next; this case's initial part sets none", key="training.windows")
    held = None if initial is None else (initial, carried)
    if cfg.sampling.method == "sobol" and dim > SOBOL_MAX_DIM:
        raise ConfigError(f"Sobol' points exist up to {SOBOL_MAX_DIM} dimensions, this case has {dim}; "
                          f"use sampling.method: uniform, halton or lhs", key="sampling.method")
    if cfg.conditions.shaped and eq.particular is not None:
        raise ConfigError("exact conditions hold for the network's output, not with the equation's particular "
                          "part added (equation.lid_corners): use penalty", key="conditions.enforce")
    if eq.enrichment and not cfg.conditions.shaped:
        raise ConfigError(f"the equation adds a singular shape to the exact factor of {sorted(eq.enrichment)}: "
                          "impose those fields' edges exactly (conditions.enforce: {part: exact})",
                          key="conditions.enforce")
    exact = _exact(cfg, eq, geometry, derivs, parts, dtype, held) if cfg.conditions.shaped else None
    if exact is not None:  # exact quantities leave the loss; a part with no other is not sampled
        for p, quantities in exact.quantities.items():
            if keys[p] <= quantities:
                del parts[p]
    point_sets = {name: (np.asarray(pts, float).reshape(-1, dim), fn, derivs.requests(probe_fn))
                  for (name, (pts, fn)), probe_fn in zip(eq.point_sets().items(),
                                                         (f for _, f in peq.point_sets().values()))
                  if len(pts)}
    pairs = {f"{a}|{b}": (a, geometry.periodic_offset(a, b), derivs.requests(lambda d: peq.periodic_residual(d, d)))
             for a, b in (tuple(p) for p in eq.periodic)}
    return Layout(interior, parts, point_sets, pairs, exact, held)


def _exact(cfg: PinnCase, eq, geometry, derivs: Derivatives, parts: dict, dtype, initial) -> Exact:
    """The exact parts of ``conditions.enforce`` (:mod:`.exact`), probed on a few points of each part."""
    rng, method = np.random.default_rng(0), probe_method(len(eq.coords))
    for p in cfg.conditions.exact + ([INITIAL] if cfg.conditions.base else []):
        if p not in parts:
            raise ConfigError(f"part {p!r} has no condition to impose", key=f"conditions.enforce.{p}")

    def probe(part):
        pts, normals = geometry.boundary(part, 16, rng, method)
        xh, n = (jnp.asarray(a, dtype) for a in (eq.to_nondim(pts), normals))
        fields = lambda net: evaluator(net, parts[part], eq.fields, eq.coords, derivs.aliases,
                                       mode=derivs.exact_mode)(xh)
        return xh, n, lambda net: eq.boundary(part, fields(net), n)

    inside = jnp.asarray(eq.to_nondim(geometry.interior(16, rng, method)), dtype)
    assert cfg.conditions.length is not None, "ConditionsConfig.check: exact parts need a length"
    return Exact(eq, geometry, cfg.conditions.exact, cfg.conditions.length, probe, inside, "conditions.enforce",
                 cfg.conditions.spacing, None if initial is None else initial[0], cfg.conditions.base,
                 cfg.conditions.fit)
