r"""A PINN case as a :class:`Problem`: network, collocation batches, residuals, loss terms and predictions.

For network parameters :math:`\theta` and residuals :math:`r_t` (one per loss term :math:`t`: the equation's
interior residuals, then its conditions), the loss is

.. math:: L(\theta) = \sum_t w_t\, \lambda_t\, \frac{1}{N_t} \sum_{i=1}^{N_t} r_t(x_i; \theta)^2,

with fixed weights :math:`w_t` (``loss.weights``, by term or by group ``pde``/``bc``) and adaptive ones
:math:`\lambda_t` (``loss.balancing``, carried in the training state; 1 without). With ``loss.causal`` the
interior terms are weighted by time slab instead (:mod:`.features.causal`). An interior term the equation names a
density (:meth:`~sciml.equations.Equation.densities`: the plate's total potential energy, a Ritz form) enters by
its mean, :math:`\frac1{N_t}\sum_i r_t(x_i)`, the integral over the domain by its measure (the points are
uniform in it); the loss may then be negative, and what reads squared residuals or places points other than
uniformly and anew at every step (:data:`FOR_ENERGY`) is refused.

Every method is a pure function of its arguments (jit-able). The derivative requests of each residual are
collected once (:mod:`.layout`) and each group of points is differentiated in one planned call of the autodiff
engine (:class:`.derivatives.Derivatives`).

A batch holds nondimensional points (host NumPy arrays; the driver places them on the devices): ``interior``
(N, D); ``parts[part] = {"x", "n"}`` (points and outward normals) for every part whose condition has
residuals; ``points[name]`` for the equation's point sets (plate corners, a pressure gauge);
``periodic["a|b"] = {"a", "b"}`` (paired points on periodic parts); ``constants``, where given, numbers of the
equation section to pose it at (``{dotted name: value}``, :meth:`Problem.equation_at`: a curriculum stage's
value, an argument of the step rather than a number compiled into it, so that its stages share one program).
Loss terms are named ``<interior residual>`` (group ``pde``), ``<part>.<quantity>``, ``<point set>.<q>`` and
``periodic.<a|b>.<q>`` (group ``bc``).

**Inverse problems**: with ``unknowns`` (:mod:`.features.unknowns`) the parameters are ``{"net", "unknowns"}`` and every
residual and derived field is the equation's at the unknowns' values (:meth:`Problem.equation_at`); with
``data`` (:mod:`.features.observations`) the batch holds the observations (``batch["data"]``, replicated) and each
observed field adds a term ``data.<field>`` (group ``data``, weighed by ``data.weight``).

**Coefficient fields** (:meth:`~sciml.equations.Equation.coefficients`: a damaged plate's rigidity factor, or a
field unknown's network through :meth:`Problem.equation_at`) are appended to the network's outputs
(:meth:`Problem._net`), so each group of points differentiates them in the same planned call and the residuals
read them as fields (``d["s_xx"]``); the exact conditions' transform sees the network's outputs alone.

**A family** (``parameters``, :mod:`.features.parameters`): the network takes the coordinates and the parameters'
encoded values, every sampled array is ``(N, D + P)``, derivatives are taken in the coordinates, and each group
of points has the equation at its own values (:meth:`Problem.equation_at` with the points); ``predict`` takes
the values beside the points.

**Exact conditions** (``conditions.enforce: {part: exact}``): the network's outputs are transformed, ``u = g +
phi N`` (:mod:`.exact`), so that the conditions of those parts that can be exact (values of outputs, a
clamped edge's normal derivative) hold to round-off and leave the loss (a part with no other is not sampled).

**A time window after the first** (:mod:`.features.windows`) is the problem made with ``initial``: a function giving
the previous window's network fields (nondimensional) at physical points. Its initial part then matches
those values, ``initial.<q> = q - q_previous`` for each field ``q`` the case's initial condition sets, instead
of the case's condition; the values are computed when the points are drawn (``parts["initial"]["target"]``).

Sampled points (``interior``, ``parts``, ``periodic``) are cut along the data axis of the device mesh
(:meth:`Problem.place`); the equation's fixed ``points`` are the same everywhere and replicated. Under
several processes ``sample(rng, share)`` draws this process's share of every count.
"""
from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

from sciml import equations
from sciml.compile import Policy
from sciml.config import suggest
from sciml.equations.sections import numbers
from sciml.errors import ConfigError

from . import batches, features, model
from .batches import Sampler
from .config import PinnCase
from .derivatives import Derivatives
from .features import curriculum
from .features.causal import Causal
from .features.observations import GROUP as DATA
from .features.observations import Misfit, Observations
from .features.parameters import Parameters
from .features.unknowns import PRIOR, Unknowns
from .geometry import build_geometry
from .layout import layout
from .output.predict import Outputs

# what an energy density (whose mean over uniform points is its integral) cannot take: key -> (is it set, why)
UNIFORM = "the mean of an energy's density is its integral only over uniform points"
FOR_ENERGY = {
    "loss.causal": (lambda c: c.loss.causal is not None, "weights time slabs by their squared residuals"),
    "sampling.adaptive": (lambda c: c.sampling.adaptive is not None, "places points by the squared residuals"),
    "training.curriculum": (lambda c: c.training.curriculum is not None, "ends its stages by the residuals' rms"),
    "sampling.near": (lambda c: bool(c.sampling.near), f"adds points that are not uniform ({UNIFORM})"),
    "sampling.boxes": (lambda c: bool(c.sampling.boxes), f"adds points that are not uniform ({UNIFORM})"),
    "sampling.avoid": (lambda c: c.sampling.avoid is not None, f"leaves balls without points ({UNIFORM})"),
    "unknowns": (lambda c: bool(c.unknowns), "an energy's minimum poses a forward problem, not an inverse one"),
    "data": (lambda c: c.data is not None, "an energy's minimum poses a forward problem, not a fit to data"),
    "sampling.resample_every": (lambda c: c.sampling.resample_every == 0 and c.training.adam.steps > 0,
                                "is 0: over points drawn once the network lowers the energy's mean between them (a "
                                "crease they miss); draw new ones every step (1)"),
}

_TRACER_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                  jax.errors.TracerIntegerConversionError)


class Problem:
    """One PINN case: ``init``, ``sample``, ``residuals``, ``term_losses``, ``loss``, ``predict`` (module notes).

    Attributes: ``equation`` and ``geometry`` (physical), ``terms`` (loss term names, interior residuals
    first), ``dtype`` (of parameters and points); ``parameters``, ``unknowns``, ``observations`` (a family's,
    the unknowns', the data's, or None). The parts: the residuals' :class:`~.layout.Layout`, the batches'
    :class:`~.batches.Sampler`, the features' further loss terms (:data:`~.features.Terms`: the observations'
    misfits, the field unknowns' priors), the causal weights (:class:`~.features.causal.Causal`) and the predictions
    (:class:`~.output.predict.Outputs`: ``predict``, ``output``, ``inputs``, ``derived``, ``network_fields``).
    """

    def __init__(self, cfg: PinnCase, initial: Callable[[np.ndarray], dict] | None = None, observe: bool = True):
        self.geometry = build_geometry(cfg.geometry)
        self.equation = eq = equations.create(cfg.equation, self.geometry)
        self.dtype = Policy.of(cfg.dtype).param_dtype
        self.parameters = Parameters(cfg, eq) if cfg.parameters else None
        extra, self._dim = len(self.parameters) if self.parameters is not None else 0, len(eq.coords)
        embedded = cfg.model.fourier.inputs if cfg.model.fourier is not None else None
        self._model, self._embedded = cfg.model, None if embedded is None else [eq.coords.index(c) for c in embedded]
        self._init, self._apply = model.build(cfg.model, self._dim + extra, len(eq.fields), self.dtype, self._embedded)
        self.unknowns = Unknowns(cfg, self.geometry) if cfg.unknowns else None
        if self.unknowns is not None:  # the unknowns ride beside the network's parameters
            self._init, self._apply = self.unknowns.wrap(self._init, self._apply, self.dtype, self._dim)
        # coefficient fields (a damaged plate's rigidity, a field unknown's): differentiated after the outputs
        self._coefficients = tuple(dict.fromkeys(
            (*eq.coefficients(), *(self.unknowns.coefficient_names.values() if self.unknowns else ()))))
        self._derivs = Derivatives(tuple(eq.fields) + self._coefficients, tuple(eq.coords), eq.aliases or None,
                                   extra, cfg.autodiff)
        names = tuple(eq.fields) + tuple(a for a in (eq.aliases or {}) if a not in eq.fields)
        self.observations = None if cfg.data is None else \
            Observations.of(cfg.data, eq) if observe else Observations.stand_in(cfg.data, eq)
        self._traced = jax.jit(self._residuals)  # traced once per batch layout (residuals)
        try:
            probe = self._probe(eq)  # the equation whose residuals say what to differentiate
            # the features' further loss terms, in this order: the observations' misfits, the field unknowns' priors
            self._more: tuple[features.Terms, ...] = tuple(t for t in (
                None if self.observations is None or cfg.data is None else
                Misfit.of(self.observations, self._derivs, probe, cfg.data),
                self.unknowns) if t is not None)
            self._layout = layout(cfg, eq, probe, self.geometry, self._derivs, names, self.dtype, initial)
            self._sampler = Sampler(cfg.sampling, eq, self.geometry, tuple(self._layout.parts), self._layout.initial,
                                    {name: pts for name, (pts, _, _) in self._layout.point_sets.items()},
                                    {name: (a, offset) for name, (a, offset, _) in self._layout.pairs.items()},
                                    self.observations, self.parameters, self.dtype)
            first = self.sample(np.random.default_rng(0))  # outside the trace: it may evaluate a previous window
            probe_terms = jax.eval_shape(lambda k: self.residuals(self.init(k), first, k), jax.random.PRNGKey(0))
        except _TRACER_ERRORS + (TypeError,) as e:  # an equation that takes a number of its section as a constant
            tracer = isinstance(e, _TRACER_ERRORS)
            if (self.unknowns is None or not tracer) and self.parameters is None:
                raise
            what, key = (f"{list(cfg.unknowns)} as trained values", "unknowns") if self.unknowns is not None else \
                (f"{list(cfg.parameters)} as values per point", "parameters")
            raise ConfigError(f"the equation cannot take {what}: {str(e).splitlines()[0]}", key=key) from None
        self.terms = tuple(sorted(probe_terms, key=lambda t: _group(t) != "pde"))
        self._densities = frozenset(equations.densities(cfg.equation)) & set(self.terms)
        for key, (used, why) in FOR_ENERGY.items() if self._densities else ():
            if used(cfg):
                raise ConfigError(f"{why}, which the energy density {sorted(self._densities)} cannot take (the "
                                  "equation's strong form can)", key=key)
        defaults = {k: v for more in self._more for k, v in more.weights().items()}  # the features' terms'
        self._weights = _weights(cfg.loss.weights, self.terms, defaults)
        self._causal = None if cfg.loss.causal is None else \
            Causal.of(cfg.loss.causal, eq, self.geometry, (t for t in self.terms if _group(t) == "pde"))
        # a curriculum stage's number, an argument of the programs that predict and score (not a constant in them),
        # and the batch's constants of the training chunks: the stages' problems compile one program each
        self.constants = _stage_constants(cfg, self.dtype)
        out = Outputs(self._net, self.equation_at, eq, probe, self._derivs, names, self.parameters,
                      self.unknowns is not None or self.parameters is not None, self.dtype, self.constants)
        self.predict, self.output, self.inputs, self.derived = out.predict, out.output, out.inputs, out.derived
        self.network_fields = out.network_fields
        # (params, nondimensional interior points (N, D)) -> (N,): the sum of squared interior residuals
        self.residual_score = functools.partial(jax.jit(self._residual_score), constants=self.constants)

    def _probe(self, eq):
        """The equation the requests are collected from: a family's at stand-in values per point, a field
        unknown's with a varying coefficient field; the case's otherwise."""
        if self.parameters is not None:
            return eq.at(self.parameters.values(jnp.zeros((1, self._derivs.extra), self.dtype)))
        if self.unknowns is None or not self.unknowns.fields:
            return eq
        return eq.with_coefficients({c: (lambda xh: jnp.ones(xh.shape[:-1], xh.dtype))
                                     for c in self.unknowns.coefficient_names.values()})

    # --- the network and its derivatives ------------------------------------------------------
    def init(self, key) -> object:
        """Fresh network parameters from a PRNG key."""
        return self._init(key)

    def equation_at(self, params, z=None, constants: dict | None = None):
        """The equation the residuals read, the one place its numbers vary (:meth:`~sciml.equations.Equation.at`):
        the case's at a batch's ``constants`` (``{dotted name: value}``: a curriculum stage's), at the unknowns'
        values in ``params`` (:mod:`.features.unknowns`) and, for a family, at the parameters' values of the network's
        inputs ``z (N, D + P)`` (one per point); ``equation`` itself when none applies."""
        eq = self.equation.at(constants or {})
        if self.parameters is not None and z is not None:
            return eq.at(self.parameters.values(z[..., self._dim:]))
        return eq if self.unknowns is None else self.unknowns.equation(eq, params)

    def continued(self, params, previous: Problem):
        """``params`` of ``previous``, the time window before this one's, such that this problem's network gives
        at every time what ``previous``'s gave (at its first time, the fields ``previous`` hands over): the time
        input rescaled from ``previous``'s nondimensional time to this one's (:func:`.model.shift_input`; scalar
        unknowns as they are). None where the time goes through the Fourier embedding (refused with the case)."""
        (c0, s0), (c1, s1) = previous.equation.scaling(), self.equation.scaling()
        t = self._dim - 1
        alpha, beta = float(s1[t] / s0[t]), float((c1[t] - c0[t]) / s0[t])
        net = model.shift_input(self._model, params if self.unknowns is None else params["net"], t, alpha, beta,
                                self._embedded)
        return net if net is None or self.unknowns is None else {**params, "net": net}

    def unknown_values(self, params) -> dict[str, float]:
        """``{name: value}`` of the unknowns in (host) ``params``; empty without unknowns."""
        return {} if self.unknowns is None else {k: float(v) for k, v in self.unknowns.values(params).items()}

    def _net(self, params, constants: dict | None = None) -> Callable:
        """Nondimensional points to the fields: the network, through the exact conditions' transform, plus
        the equation's particular part (a cavity's corner flows); the equation at a batch's ``constants``."""
        net = lambda xh: self._apply(params, xh)
        exact = self._layout.exact
        if exact is not None and self.parameters is not None:
            net = exact.transform(lambda z: self.equation_at(params, z, constants), net, dim=self._dim)
        elif exact is not None:
            net = exact.transform(self.equation_at(params, constants=constants), net)
        particular = self.equation.at(constants or {}).particular
        if particular is not None:
            net = _plus(net, particular, self._dim)
        return net if not self._coefficients else self._with_coefficients(params, net, constants)

    def _with_coefficients(self, params, net: Callable, constants: dict | None = None) -> Callable:
        """``net`` with the coefficient fields (the equation's at the unknowns' values) as further outputs, in
        the order of the differentiated fields, so that the engine differentiates them with the network's."""
        fns = self.equation_at(params, constants=constants).coefficients()
        coefs = [fns[c] for c in self._coefficients]
        return lambda xh: jnp.concatenate(
            [net(xh), jnp.stack([jnp.broadcast_to(c(xh[..., :self._dim]), xh.shape[:-1]) for c in coefs], -1)], -1)

    # --- points -------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, share: Callable[[int], int] = lambda n: n) -> dict:
        """A batch of nondimensional points in the parameters' dtype (module notes), drawn from ``rng``;
        ``share(count)`` is this process's part of each count (:meth:`.batches.Sampler.sample`)."""
        return self._sampler.sample(rng, share)

    def extend(self, batch: dict, points) -> dict:
        """``batch`` with physical ``points`` added to its interior points (adaptive refinement)."""
        return self._sampler.extend(batch, points)

    def place(self, batch: dict, mesh) -> dict:
        """The batch on the devices of ``mesh`` (:func:`.batches.place`)."""
        return batches.place(batch, mesh)

    # --- loss ---------------------------------------------------------------------------------
    def residuals(self, params, batch: dict, key) -> dict:
        """``{term: per-point residual}`` on ``batch``; ``key`` feeds the stochastic autodiff mode; the
        equation at the batch's ``constants`` when it has them (:meth:`equation_at`).

        Under ``jit``, traced once per layout of the batch and reused by every program that asks again (the
        optimisers' steps, line searches and weights each trace the loss): the autodiff engine's propagation
        is traced in Python once, not once per caller."""
        return self._traced(params, batch, key)

    def _residuals(self, params, batch: dict, key) -> dict:
        constants, lay, at_x = batch.get("constants"), self._layout, self._derivs.at
        eq, f = self.equation_at(params, constants=constants), self._net(params, constants)
        at = (lambda x: eq) if self.parameters is None else (lambda x: self.equation_at(params, x, constants))
        keys = iter(jax.random.split(key, lay.n_keys))
        out = dict(at(batch["interior"]).interior(at_x(f, lay.interior, batch["interior"], next(keys))))
        for p, req in lay.parts.items():
            b = batch["parts"][p]
            d = at_x(f, req, b["x"], next(keys))
            res = {q: d[q] - t for q, t in b["target"].items()} if "target" in b else \
                at(b["x"]).boundary(p, d, b["n"])
            if lay.exact is not None and p in lay.exact.quantities:
                res = {q: r for q, r in res.items() if q not in lay.exact.quantities[p]}
            out.update({f"{p}.{name}": r for name, r in res.items()})
        for name, (_, fn, req) in lay.point_sets.items():
            d = at_x(f, req, batch["points"][name], next(keys))
            eq_s = at(batch["points"][name])
            fn = fn if eq_s is self.equation else eq_s.point_sets()[name][1]
            out.update({f"{name}.{q}": r for q, r in fn(d).items()})
        for name, pb in batch["periodic"].items():
            req = lay.pairs[name][2]
            da, db = at_x(f, req, pb["a"], next(keys)), at_x(f, req, pb["b"], next(keys))
            out.update({f"periodic.{name}.{q}": r for q, r in at(pb["a"]).periodic_residual(da, db).items()})
        for more in self._more:  # the features' terms: the observations' misfits, the field unknowns' priors
            out.update(more.residuals(params, f, eq, batch))
        return out

    def term_losses(self, params, batch: dict, key, causal=None) -> dict:
        """``{term: mean square residual}`` before weighting (causally weighted interior terms with
        ``loss.causal``: by ``causal``, the slabs' weights, when given, else by the current residuals')."""
        res = self.residuals(params, batch, key)
        per_term = {t: jnp.mean(r) if t in self._densities else jnp.mean(jnp.square(r)) for t, r in res.items()}
        if self._causal is not None:
            per_term.update(self._causal(res, batch["interior"], causal))
        return per_term

    def causal_weights(self, params, batch: dict, key):
        """The causal slabs' weights at ``params`` (None without ``loss.causal``): what the quasi-Newton phase
        holds fixed over a chunk (:func:`_causal`)."""
        if self._causal is None:
            return None
        res = self.residuals(params, batch, key)
        return self._causal.slab_weights(res, batch["interior"])

    def stacked_residuals(self, params, batch: dict, key):
        """Every term's residuals times ``sqrt(w_t / N_t)`` (fixed weights) in one vector ``r``: the loss
        without adaptive or causal weights is ``r @ r`` (a problem with an energy density has no such vector)."""
        assert not self._densities, "FOR_ENERGY: an energy density is refused where residuals are stacked"
        res = self.residuals(params, batch, key)
        return jnp.concatenate([jnp.sqrt(self._weights[t] / jnp.size(r)) * jnp.ravel(r) for t, r in res.items()])

    def loss(self, params, batch: dict, key, adaptive: dict | None = None, causal=None):
        """``(total, {term: loss})``: the weighted sum of :meth:`term_losses` (fixed weights times the
        ``adaptive`` ones when given; ``causal``: the causal slabs' weights to hold, :meth:`causal_weights`)."""
        per_term = self.term_losses(params, batch, key, causal)
        w = self._weights
        if adaptive is None:
            total = sum(w[t] * v for t, v in per_term.items())
        else:
            total = sum(w[t] * adaptive[t] * v for t, v in per_term.items())
        return total, per_term

    def _residual_score(self, params, xh, constants=None):
        d = self._derivs.at(self._net(params, constants), self._layout.interior, xh, jax.random.PRNGKey(0))
        return sum(jnp.square(r) for r in self.equation_at(params, xh, constants).interior(d).values())


def _stage_constants(cfg: PinnCase, dtype) -> dict | None:
    """A curriculum's number at this case's value, ``{dotted name: array}`` (:meth:`Problem.equation_at`'s
    ``constants``); None without a curriculum."""
    if cfg.training.curriculum is None:
        return None
    name = curriculum.number(cfg)
    return {name: np.asarray(numbers(cfg.equation)[name], dtype)}


def assemble(cfg: PinnCase, initial: Callable[[np.ndarray], dict] | None = None) -> Problem:
    """The problem of a PINN case (``initial``: a time window's initial values, :class:`Problem`)."""
    return Problem(cfg, initial)


def check(cfg: PinnCase) -> None:
    """The rules a case's schema cannot judge alone, run when a case is loaded (``sciml show`` as ``run``): the
    features' (:func:`.features.check`: the pairs that do not combine, each feature's against the case and its
    domain), then those that need the assembled problem: ``loss.weights`` names loss terms or groups
    (:func:`_weights`, which training applies), the equation takes the unknowns as traced values and a family's
    parameters as values per point, an energy density meets nothing it cannot take (:data:`FOR_ENERGY`).
    Assembling traces the residuals abstractly (no compute; observations by a
    stand-in, so that a case loads before ``sciml datagen`` made its data, and a start flow by zeros), and only a
    case that sets weights, time windows, exact conditions, unknowns, parameters or an energy form pays for it,
    once a process for the same case on the same files (:func:`_stamp`)."""
    features.check(cfg, build_geometry(cfg.geometry))
    needs = cfg.loss.weights or cfg.training.windows > 1 or cfg.conditions.shaped or cfg.unknowns or \
        cfg.parameters or equations.densities(cfg.equation)
    if needs and _stamp(cfg) not in _ASSEMBLED:
        with Policy.of(cfg.dtype).precision(), equations.checking():
            Problem(cfg, observe=False)
        _ASSEMBLED.add(_stamp(cfg))


_ASSEMBLED: set[tuple] = set()
"""The :func:`_stamp` of each case whose problem :func:`check` assembled in this process: the same case loaded
again (a run's ``config.yaml`` read back, a resume, a sweep) is not assembled again (1-2 s for a flow's)."""


def _stamp(cfg: PinnCase) -> tuple:
    """The case's settings, the size and time of every file it names and its equation's class (a name registered
    again is another equation): equal only for the same case on the same files."""
    files = sorted({v for v in _strings(cfg) if os.path.isfile(v)})
    return repr(cfg), tuple((f, os.stat(f).st_size, os.stat(f).st_mtime_ns) for f in files), \
        equations.EQUATIONS[cfg.equation.type][1]


def _strings(value) -> Iterator[str]:
    """Every string in a config (dataclasses, mappings and sequences of them)."""
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from _strings(getattr(value, f.name))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _plus(net: Callable, particular: Callable, dim: int) -> Callable:
    """``net`` plus the equation's particular part (of the coordinates, the first ``dim`` inputs)."""
    return lambda xh: net(xh) + particular(xh[..., :dim])


def _group(term: str) -> str:
    """A term's group: ``pde`` (the interior residuals), ``data``, ``prior`` (a field unknown's), else ``bc``."""
    head = term.partition(".")[0]
    return "pde" if "." not in term else head if head in (DATA, PRIOR) else "bc"


def _weights(weights: dict[str, float], terms: tuple[str, ...], defaults: dict | None = None) -> dict[str, float]:
    """The fixed weight of each term from ``loss.weights`` (by term, else by group), else from ``defaults`` (by
    term, else by group: ``data.weight``, a field's ``sparsity``), else 1."""
    known = set(terms) | {_group(t) for t in terms}
    for key in weights:
        if key not in known:
            hint = suggest(key, sorted(known), f"; terms are {sorted(known)}")
            raise ConfigError("unknown loss term" + hint, key=f"loss.weights.{key}")
    return {t: float(next((source[k] for source in (weights, defaults or {}) for k in (t, _group(t)) if k in source),
                          1.0)) for t in terms}
