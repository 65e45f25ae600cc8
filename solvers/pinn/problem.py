r"""A PINN case as a :class:`Problem`: network, collocation batches, residuals, loss terms and predictions.

For network parameters :math:`\theta` and residuals :math:`r_t` (one per loss term :math:`t`: the equation's
interior residuals, then its conditions), the loss is

.. math:: L(\theta) = \sum_t w_t\, \lambda_t\, \frac{1}{N_t} \sum_{i=1}^{N_t} r_t(x_i; \theta)^2,

with fixed weights :math:`w_t` (``loss.weights``, by term or by group ``pde``/``bc``) and adaptive ones
:math:`\lambda_t` (``loss.balancing``, carried in the training state; 1 without). With ``loss.causal`` the
interior terms are weighted by time slab instead (:func:`_causal`).

Every method is a pure function of its arguments (jit-able). The derivative requests of each residual are
collected once (:func:`sciml.equations.fields.collect`) and each group of points is differentiated in one
planned call of the autodiff engine.

A batch holds nondimensional points (host NumPy arrays; the driver places them on the devices): ``interior``
(N, D); ``parts[part] = {"x", "n"}`` (points and outward normals) for every part whose condition has
residuals; ``points[name]`` for the equation's point sets (plate corners, a pressure gauge);
``periodic["a|b"] = {"a", "b"}`` (paired points on periodic parts); ``constants``, where given, numbers of the
equation section to pose it at (``{dotted name: value}``, :meth:`Problem.equation_at`: a curriculum stage's
value, an argument of the step rather than a number compiled into it, so that its stages share one program).
Loss terms are named ``<interior residual>`` (group ``pde``), ``<part>.<quantity>``, ``<point set>.<q>`` and
``periodic.<a|b>.<q>`` (group ``bc``).

**Inverse problems**: with ``unknowns`` (:mod:`.unknowns`) the parameters are ``{"net", "unknowns"}`` and every
residual and derived field is the equation's at the unknowns' values (:meth:`Problem.equation_at`); with
``data`` (:mod:`.observations`) the batch holds the observations (``batch["data"]``, replicated) and each
observed field adds a term ``data.<field>`` (group ``data``, weighed by ``data.weight``).

**Coefficient fields** (:meth:`~sciml.equations.Equation.coefficients`: a damaged plate's rigidity factor, or a
field unknown's network through :meth:`Problem.equation_at`) are appended to the network's outputs
(:meth:`Problem._net`), so each group of points differentiates them in the same planned call and the residuals
read them as fields (``d["s_xx"]``); the exact conditions' transform sees the network's outputs alone.

**A family** (``parameters``, :mod:`.parameters`): the network takes the coordinates and the parameters'
encoded values, every sampled array is ``(N, D + P)``, derivatives are taken in the coordinates, and each group
of points has the equation at its own values (:meth:`Problem.equation_at` with the points); ``predict`` takes
the values beside the points.

**Exact conditions** (``conditions.enforce: {part: exact}``): the network's outputs are transformed, ``u = g +
phi N`` (:mod:`.exact`), so that the conditions of those parts that can be exact (values of outputs, a
clamped edge's normal derivative) hold to round-off and leave the loss (a part with no other is not sampled).

**A time window after the first** (:mod:`.windows`) is the problem made with ``initial``: a function giving
the previous window's network fields (nondimensional) at physical points. Its initial part then matches
those values, ``initial.<q> = q - q_previous`` for each field ``q`` the case's initial condition sets, instead
of the case's condition; the values are computed when the points are drawn (``parts["initial"]["target"]``).

Sampled points (``interior``, ``parts``, ``periodic``) are cut along the data axis of the device mesh
(:meth:`Problem.place`); the equation's fixed ``points`` are the same everywhere and replicated. Under
several processes ``sample(rng, share)`` draws this process's share of every count.
"""
from __future__ import annotations

from collections.abc import Callable
from types import MethodType

import jax
import jax.numpy as jnp
import numpy as np

from sciml import equations
from sciml.compile import Policy
from sciml.config import suggest
from sciml.equations.fields import Fields, collect, evaluator
from sciml.errors import ConfigError, UserError

from . import batches, curriculum, ensemble, features, model, observations, parameters, unknowns
from .batches import Sampler
from .config import CausalConfig, PinnCase
from .exact import INITIAL, Exact
from .geometry import build_geometry
from .geometry.sampling import SOBOL_MAX_DIM, probe_method
from .observations import GROUP as DATA
from .observations import Observations
from .parameters import Parameters
from .unknowns import PRIOR, Unknowns

_TRACER_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                  jax.errors.TracerIntegerConversionError)


class Problem:
    """One PINN case: ``init``, ``sample``, ``residuals``, ``term_losses``, ``loss``, ``predict`` (module notes).

    Attributes: ``equation`` and ``geometry`` (physical), ``terms`` (loss term names, interior residuals
    first), ``dtype`` (of parameters and points).
    """

    def __init__(self, cfg: PinnCase, initial: Callable[[np.ndarray], dict] | None = None, observe: bool = True):
        self.geometry = build_geometry(cfg.geometry)
        self.equation = eq = equations.create(cfg.equation, self.geometry)
        self.dtype = Policy.of(cfg.dtype).param_dtype
        self._sampling, self._autodiff = cfg.sampling, cfg.autodiff
        self.parameters = Parameters(cfg, eq) if cfg.parameters else None
        self._extra = len(self.parameters) if self.parameters is not None else 0
        self._dim = len(eq.coords)
        embedded = cfg.model.fourier.inputs if cfg.model.fourier is not None else None
        self._model, self._embedded = cfg.model, None if embedded is None else [eq.coords.index(c) for c in embedded]
        self._init, self._apply = model.build(cfg.model, len(eq.coords) + self._extra, len(eq.fields), self.dtype,
                                              self._embedded)
        self.unknowns = Unknowns(cfg, self.geometry) if cfg.unknowns else None
        if self.unknowns is not None:  # the unknowns ride beside the network's parameters
            self._init, self._apply = self.unknowns.wrap(self._init, self._apply, self.dtype, len(eq.coords))
        # coefficient fields (a damaged plate's rigidity, a field unknown's): differentiated after the outputs
        self._coefficients = tuple(dict.fromkeys(
            (*eq.coefficients(), *(self.unknowns.coefficient_names.values() if self.unknowns else ()))))
        self._differentiated = tuple(eq.fields) + self._coefficients
        # the equation whose residuals say what to differentiate: with a field unknown, a varying one
        self._probe_eq = eq if self.unknowns is None or not self.unknowns.fields else eq.with_coefficients(
            {c: (lambda xh: jnp.ones(xh.shape[:-1], xh.dtype)) for c in self.unknowns.coefficient_names.values()})
        self._aliases = eq.aliases or None
        self._names = tuple(eq.fields) + tuple(a for a in (eq.aliases or {}) if a not in eq.fields)
        self.observations = None if cfg.data is None else \
            Observations.of(cfg.data, eq) if observe else Observations.stand_in(cfg.data, eq)
        if self.observations is not None:
            self._data_requests = self._requests(lambda d: self._observed(d, self._probe_eq))

        self._traced = jax.jit(self._residuals)  # traced once per batch layout (residuals)
        try:
            probe_terms = self._collect(cfg, initial)
        except _TRACER_ERRORS + (TypeError,) as e:  # an equation that takes a number of its section as a constant
            tracer = isinstance(e, _TRACER_ERRORS)
            if (self.unknowns is None or not tracer) and self.parameters is None:
                raise
            what, key = (f"{list(cfg.unknowns)} as trained values", "unknowns") if self.unknowns is not None else \
                (f"{list(cfg.parameters)} as values per point", "parameters")
            raise ConfigError(f"the equation cannot take {what}: {str(e).splitlines()[0]}", key=key) from None
        self.terms = tuple(sorted(probe_terms, key=lambda t: _group(t) != "pde"))
        defaults = {**(self.unknowns.prior_weights() if self.unknowns is not None else {}),
                    **({DATA: cfg.data.weight} if cfg.data else {})}
        self._weights = _weights(cfg.loss.weights, self.terms, defaults)
        interior_terms = tuple(t for t in self.terms if _group(t) == "pde")
        self._causal = _causal(cfg.loss.causal, _time_window(eq, self.geometry), interior_terms) \
            if cfg.loss.causal is not None else None

        # (params, nondimensional points (N, D)) -> {field: values}: the equation's derived fields
        self._outputs: dict[Callable, Callable] = {}
        self.derived = self.output(eq.derived)
        # (params, nondimensional interior points (N, D)) -> (N,): the sum of squared interior residuals
        self.residual_score = jax.jit(self._residual_score)

    def _collect(self, cfg: PinnCase, initial) -> dict:
        """What each residual asks for, the exact parts, the point sets and pairs; the loss terms' shapes."""
        eq = self.equation
        # the equation the requests are collected from: a family's at per-point stand-in values
        if self.parameters is not None:
            self._probe_eq = eq.at(self.parameters.values(jnp.zeros((1, self._extra), self.dtype)))
        # what each residual asks for, collected once; parts whose condition has no residual are not sampled
        dim, peq = len(eq.coords), self._probe_eq
        self._interior = self._requests(peq.interior)
        self._parts: dict = {}
        keys: dict[str, set[str]] = {}
        carried: tuple[str, ...] = ()
        for p in self.geometry.parts:
            probe: dict = {}
            req = self._requests(lambda d, p=p, probe=probe: probe.update(peq.boundary(p, d, jnp.ones((1, dim)))))
            if probe:
                self._parts[p], keys[p] = req, set(probe)
                carried = tuple(q for q in probe if q in self._names) if p == INITIAL else carried
        if cfg.training.windows > 1 and not carried:
            raise ConfigError("time windows carry the fields of the initial condition from one window to the "
                              "next; this case's initial part sets none", key="training.windows")
        self._initial = None if initial is None else (initial, carried)
        if cfg.sampling.method == "sobol" and dim > SOBOL_MAX_DIM:
            raise ConfigError(f"Sobol' points exist up to {SOBOL_MAX_DIM} dimensions, this case has {dim}; "
                              f"use sampling.method: uniform, halton or lhs", key="sampling.method")
        if cfg.conditions.shaped and eq.particular is not None:
            raise ConfigError("exact conditions hold for the network's output, not with the equation's particular "
                              "part added (equation.lid_corners): use penalty", key="conditions.enforce")
        self._exact = self._exact_parts(cfg) if cfg.conditions.shaped else None
        if self._exact is not None:  # exact quantities leave the loss; a part with no other is not sampled
            for p, held in self._exact.quantities.items():
                if keys[p] <= held:
                    del self._parts[p]
        self._point_sets = {name: (np.asarray(pts, float).reshape(-1, dim), fn, self._requests(probe_fn))
                            for (name, (pts, fn)), probe_fn in zip(eq.point_sets().items(),
                                                                   (f for _, f in peq.point_sets().values()))
                            if len(pts)}
        self._pairs = {f"{a}|{b}": (a, self.geometry.periodic_offset(a, b),
                                    self._requests(lambda d: peq.periodic_residual(d, d)))
                       for a, b in (tuple(p) for p in eq.periodic)}
        self._n_keys = 1 + len(self._parts) + len(self._point_sets) + 2 * len(self._pairs)
        self._sampler = Sampler(self._sampling, eq, self.geometry, tuple(self._parts), self._initial,
                                {name: pts for name, (pts, _, _) in self._point_sets.items()},
                                {name: (a, offset) for name, (a, offset, _) in self._pairs.items()},
                                self.observations, self.parameters, self.dtype)

        # term names, from one abstract evaluation
        first = self.sample(np.random.default_rng(0))  # outside the trace: it may evaluate a previous window
        probe_terms = jax.eval_shape(lambda k: self.residuals(self.init(k), first, k), jax.random.PRNGKey(0))
        return probe_terms

    # --- the network and its derivatives ------------------------------------------------------
    def init(self, key) -> object:
        """Fresh network parameters from a PRNG key."""
        return self._init(key)

    def equation_at(self, params, z=None, constants: dict | None = None):
        """The equation the residuals read, the one place its numbers vary (:meth:`~sciml.equations.Equation.at`):
        the case's at a batch's ``constants`` (``{dotted name: value}``: a curriculum stage's), at the unknowns'
        values in ``params`` (:mod:`.unknowns`) and, for a family, at the parameters' values of the network's
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

    def _observed(self, d: Fields, eq=None) -> dict:
        """The observed fields (derived, physical) from the fields ``d``, by equation ``eq`` (default: the case's)."""
        derived = (eq or self.equation).derived(d)
        assert self.observations is not None, "a case with data"
        return {q: derived[q] for q in self.observations.fields}

    def _net(self, params, constants: dict | None = None) -> Callable:
        """Nondimensional points to the fields: the network, through the exact conditions' transform, plus
        the equation's particular part (a cavity's corner flows); the equation at a batch's ``constants``."""
        net = lambda xh: self._apply(params, xh)
        if self._exact is not None and self.parameters is not None:
            net = self._exact.transform(lambda z: self.equation_at(params, z, constants), net, dim=self._dim)
        elif self._exact is not None:
            net = self._exact.transform(self.equation_at(params, constants=constants), net)
        particular = self.equation.at(constants or {}).particular
        if particular is not None:
            net = _plus(net, particular, self._dim)
        return net if not self._coefficients else self._with_coefficients(params, net, constants)

    def _with_coefficients(self, params, net: Callable, constants: dict | None = None) -> Callable:
        """``net`` with the coefficient fields (the equation's at the unknowns' values) as further outputs, in
        the order of ``_differentiated``, so that the engine differentiates them with the network's."""
        fns = self.equation_at(params, constants=constants).coefficients()
        coefs = [fns[c] for c in self._coefficients]
        return lambda xh: jnp.concatenate(
            [net(xh), jnp.stack([jnp.broadcast_to(c(xh[..., :self._dim]), xh.shape[:-1]) for c in coefs], -1)], -1)

    def _exact_parts(self, cfg: PinnCase) -> Exact:
        """The exact parts of ``conditions.enforce`` (:mod:`.exact`), probed on a few points of each part."""
        eq, rng, method = self.equation, np.random.default_rng(0), probe_method(len(self.equation.coords))
        for p in cfg.conditions.exact + ([INITIAL] if cfg.conditions.base else []):
            if p not in self._parts:
                raise ConfigError(f"part {p!r} has no condition to impose", key=f"conditions.enforce.{p}")

        def probe(part):
            pts, normals = self.geometry.boundary(part, 16, rng, method)
            xh, n = (jnp.asarray(a, self.dtype) for a in (eq.to_nondim(pts), normals))
            mode = "taylor" if self._autodiff.mode == "stochastic" else self._autodiff.mode
            fields = lambda net: evaluator(net, self._parts[part], eq.fields, eq.coords, self._aliases, mode=mode)(xh)
            return xh, n, lambda net: eq.boundary(part, fields(net), n)

        inside = jnp.asarray(eq.to_nondim(self.geometry.interior(16, rng, method)), self.dtype)
        assert cfg.conditions.length is not None, "ConditionsConfig.check: exact parts need a length"
        return Exact(eq, self.geometry, cfg.conditions.exact, cfg.conditions.length, probe, inside,
                     "conditions.enforce", cfg.conditions.spacing, None if self._initial is None else self._initial[0],
                     cfg.conditions.base)

    def _requests(self, fn) -> tuple:
        return collect(fn, self._differentiated, self.equation.coords, aliases=self._aliases)

    def _fields_at(self, f, requests, key, x) -> Fields:
        options: dict = {"mode": self._autodiff.mode}
        if self._autodiff.mode == "stochastic":
            options.update(key=key, samples=self._autodiff.samples, distribution=self._autodiff.distribution)
        return evaluator(f, requests, self._differentiated, self.equation.coords, self._aliases, extra=self._extra,
                         **options)(x)

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
        constants = batch.get("constants")
        eq, f = self.equation_at(params, constants=constants), self._net(params, constants)
        at = (lambda x: eq) if self.parameters is None else (lambda x: self.equation_at(params, x, constants))
        keys = iter(jax.random.split(key, self._n_keys))
        out = dict(at(batch["interior"]).interior(self._fields_at(f, self._interior, next(keys), batch["interior"])))
        for p, req in self._parts.items():
            b = batch["parts"][p]
            d = self._fields_at(f, req, next(keys), b["x"])
            res = {q: d[q] - t for q, t in b["target"].items()} if "target" in b else \
                at(b["x"]).boundary(p, d, b["n"])
            if self._exact is not None and p in self._exact.quantities:
                res = {q: r for q, r in res.items() if q not in self._exact.quantities[p]}
            out.update({f"{p}.{name}": r for name, r in res.items()})
        for name, (_, fn, req) in self._point_sets.items():
            d = self._fields_at(f, req, next(keys), batch["points"][name])
            eq_s = at(batch["points"][name])
            fn = fn if eq_s is self.equation else eq_s.point_sets()[name][1]
            out.update({f"{name}.{q}": r for q, r in fn(d).items()})
        for name, pb in batch["periodic"].items():
            req = self._pairs[name][2]
            da = self._fields_at(f, req, next(keys), pb["a"])
            db = self._fields_at(f, req, next(keys), pb["b"])
            out.update({f"periodic.{name}.{q}": r for q, r in at(pb["a"]).periodic_residual(da, db).items()})
        if self.observations is not None:  # exact derivatives (no stochastic estimate) at the data points
            mode = "taylor" if self._autodiff.mode == "stochastic" else self._autodiff.mode
            d = evaluator(f, self._data_requests, self._differentiated, eq.coords, self._aliases,
                          mode=mode)(batch["data"]["x"])
            out.update(self.observations.residuals(self._observed(d, eq), batch["data"]))
        if self.unknowns is not None:  # the field unknowns' priors at the interior points
            out.update(self.unknowns.priors(params, batch["interior"][..., :self._dim]))
        return out

    def term_losses(self, params, batch: dict, key, causal=None) -> dict:
        """``{term: mean square residual}`` before weighting (causally weighted interior terms with
        ``loss.causal``: by ``causal``, the slabs' weights, when given, else by the current residuals')."""
        res = self.residuals(params, batch, key)
        per_term = {t: jnp.mean(jnp.square(r)) for t, r in res.items()}
        if self._causal is not None:
            per_term.update(self._causal(res, batch["interior"], causal))
        return per_term

    def causal_weights(self, params, batch: dict, key):
        """The causal slabs' weights at ``params`` (None without ``loss.causal``): what the quasi-Newton phase
        holds fixed over a chunk (:func:`_causal`)."""
        if self._causal is None:
            return None
        res = self.residuals(params, batch, key)
        return self._causal.slab_weights(res, batch["interior"])  # type: ignore[attr-defined]

    def stacked_residuals(self, params, batch: dict, key):
        """Every term's residuals times ``sqrt(w_t / N_t)`` (fixed weights) in one vector ``r``: the loss
        without adaptive or causal weights is ``r @ r``."""
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

    def _residual_score(self, params, xh):
        d = self._fields_at(self._net(params), self._interior, jax.random.PRNGKey(0), xh)
        return sum(jnp.square(r) for r in self.equation_at(params, xh).interior(d).values())

    # --- output -------------------------------------------------------------------------------
    def network_fields(self, d: Fields) -> dict:
        """Every field the residuals read (network outputs and aliases), nondimensional: with
        ``predict(..., of=problem.network_fields)``, what a next time window's initial condition matches."""
        return {q: d[q] for q in self._names}

    def output(self, of: Callable) -> Callable:
        """``(params, nondimensional points) -> of(fields there)``, jitted once per function ``of``."""
        if of not in self._outputs:
            eq = self.equation
            own = getattr(of, "__self__", None) is eq
            req = self._requests(MethodType(of.__func__, self._probe_eq) if own else of)  # type: ignore[attr-defined]
            mode = "taylor" if self._autodiff.mode == "stochastic" else self._autodiff.mode
            self._outputs[of] = jax.jit(lambda p, xh: self._at(p, of, xh)(
                evaluator(self._net(p), req, self._differentiated, eq.coords, self._aliases, extra=self._extra,
                          mode=mode)(xh)))
        return self._outputs[of]

    def _at(self, params, of: Callable, z=None) -> Callable:
        """``of``, or the same method of the equation at the unknowns' values (and a family's parameters at the
        inputs ``z``) when ``of`` is the case equation's (its derived fields: the plate's deflection scale
        follows the identified ``D``)."""
        if (self.unknowns is None and self.parameters is None) or getattr(of, "__self__", None) is not self.equation:
            return of
        return MethodType(of.__func__, self.equation_at(params, z))  # type: ignore[attr-defined]

    def inputs(self, points, values: dict | None = None) -> np.ndarray:
        """The network's inputs at physical ``points (N, D)``: the nondimensional coordinates, and for a family
        the encoded ``values`` (name -> a number or ``(N,)`` values; :class:`UserError` outside the ranges)."""
        points = np.asarray(points, float)
        xh = np.asarray(self.equation.to_nondim(points), float)
        if self.parameters is None:
            return xh
        if values is None:
            raise UserError(f"a family needs the values of its parameters {list(self.parameters.names)}")
        return np.concatenate([xh, self.parameters.encode(values, len(xh))], axis=-1)

    def predict(self, params, points, chunk: int = 16384, of: Callable | None = None,
                values: dict | None = None) -> dict:
        """``{field: values (N,)}``: the derived fields at physical ``points (N, D)``, ``chunk`` at a time;
        ``of``: another function of the fields to report (e.g. the equation's physical gradients); ``values``:
        a family's parameters (:meth:`inputs`). Each piece is padded to one of a few sizes (:func:`bucket`), so
        that the many calls of a run's evaluation and checks (grids, rings, sections; one snapshot per time)
        compile a few shapes, not one per point count."""
        xh = np.asarray(self.inputs(points, values), float)
        fn = self.derived if of is None else self.output(of)
        pieces = []
        for i in range(0, len(xh), chunk):
            piece = xh[i:i + chunk]
            n = len(piece)
            padded = np.concatenate([piece, np.repeat(piece[-1:], bucket(n, chunk) - n, axis=0)])
            pieces.append((n, fn(params, jnp.asarray(padded, self.dtype))))
        return {k: np.concatenate([np.asarray(p[k])[:n] for n, p in pieces]) for k in pieces[0][1]}


def bucket(n: int, most: int, least: int = 256) -> int:
    """The rows a piece of ``n`` points is padded to in :meth:`Problem.predict`: the least of ``least``,
    ``4 least``, ``16 least``, ... that holds them, at most ``most`` (the chunk). Powers of four: a run's
    evaluation meets at most a handful, for at most four times the work of its smallest calls."""
    size = least
    while size < n:
        size *= 4
    return min(most, size)


def assemble(cfg: PinnCase, initial: Callable[[np.ndarray], dict] | None = None) -> Problem:
    """The problem of a PINN case (``initial``: a time window's initial values, :class:`Problem`)."""
    return Problem(cfg, initial)


def check(cfg: PinnCase) -> None:
    """The rules a case's schema cannot judge alone, run when a case is loaded (``sciml show`` as ``run``): the
    features that do not combine (:func:`.features.check`; a family's names before them), each feature's against
    the case and its domain (:func:`.parameters.check`, :func:`.curriculum.check`, :func:`.ensemble.check`,
    :func:`.unknowns.check`, :func:`.observations.check`), then those that need the assembled problem:
    ``loss.weights`` names loss terms or groups (:func:`_weights`, which training applies), the equation takes
    the unknowns as traced values and a family's parameters as values per point. Assembling traces the
    residuals abstractly (no compute; observations by a stand-in, so that a case loads before ``sciml datagen``
    made its data, and a start flow by zeros), and only a case that sets weights, time windows, exact
    conditions, unknowns or parameters pays for it."""
    domain = build_geometry(cfg.geometry)
    parameters.check(cfg, domain)  # first: a number that is both a parameter and an unknown says so
    features.check(cfg)
    if cfg.training.curriculum is not None:
        curriculum.check(cfg, domain)
    ensemble.check(cfg)
    unknowns.check(cfg, domain)
    observations.check(cfg, domain)
    if cfg.loss.weights or cfg.training.windows > 1 or cfg.conditions.shaped or cfg.unknowns or cfg.parameters:
        with Policy.of(cfg.dtype).precision(), equations.checking():
            Problem(cfg, observe=False)


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


def _time_window(equation, geometry) -> tuple[float, float]:
    """The nondimensional time interval of a space-time domain."""
    t0, t1 = geometry.time
    corners = np.zeros((2, geometry.dim))
    corners[:, -1] = t0, t1
    th0, th1 = (float(v) for v in equation.to_nondim(corners)[:, -1])
    return th0, th1


def _causal(c: CausalConfig, window: tuple[float, float], interior_terms) -> Callable:
    r"""``(per-point residuals, interior points, slab weights or None) -> {term: causally weighted loss}``
    (``loss.causal``).

    The time window is cut into ``chunks`` slabs with mean square residuals :math:`L_i`; slab :math:`i`
    weighs :math:`\exp(-\epsilon \sum_{j<i} L_j)` (no gradient through the weight). Given ``weights``, the
    slabs take those instead: the quasi-Newton phase holds the weights of a chunk's first step fixed over the
    chunk (:meth:`Problem.causal_weights`), so that its line search sees one objective and its gradient.
    """
    th0, th1 = window

    def per_slab(res: dict, x) -> dict:
        """``{term: mean square residual of each slab}``."""
        idx = jnp.clip(jnp.floor((x[:, -1] - th0) / (th1 - th0) * c.chunks), 0, c.chunks - 1).astype(jnp.int32)
        count = jnp.maximum(jax.ops.segment_sum(jnp.ones_like(x[:, -1]), idx, c.chunks), 1.0)
        return {t: jax.ops.segment_sum(jnp.square(res[t]), idx, c.chunks) / count for t in interior_terms}

    def of(slabs: dict):
        total = sum(slabs.values())
        return jax.lax.stop_gradient(jnp.exp(-c.epsilon * (jnp.cumsum(total) - total)))  # the earlier slabs' losses

    def weigh(res: dict, x, weights=None):
        slabs = per_slab(res, x)
        w = of(slabs) if weights is None else weights
        return {t: jnp.mean(w * slabs[t]) for t in interior_terms}

    weigh.slab_weights = lambda res, x: of(per_slab(res, x))  # type: ignore[attr-defined]
    return weigh

