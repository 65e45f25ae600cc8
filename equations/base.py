r"""The contract of a PDE problem: :class:`Equation`, what every equation gives the solvers.

An equation is posed on a domain (what it may ask of it: :class:`.domain.Domain`) in nondimensional variables: the
network sees :math:`\hat x = \mathrm{to\_nondim}(x)` and returns the fields ``fields`` (nondimensional);
residuals are written over derivative lookups ``d`` (:class:`~sciml.equations.fields.Fields`), e.g.
``d["u_t"] - k * d["u_xx"]``, and return ``{name: per-point values}``. The loss is the mean square of every
residual (the mean of an energy's density, :meth:`Equation.densities`).

A subclass must give (the abstract members; :func:`sciml.equations.register` refuses a class that lacks one):

- ``fields``, ``coords``: names of the network's outputs and of the coordinates (class attributes or
  properties);
- ``to_nondim(x)``, ``to_physical(xh)``: the map between physical points ``(N, D)`` and the network's
  inputs, and its inverse;
- ``interior(d)``: the residuals inside the domain;
- ``boundary(part, d, normal)``: the residuals on a named boundary part (``{}`` leaves it free).

It is built by ``cls(config, domain)``: ``config`` is the case file's ``equation`` section (a dataclass with
``type: Literal[name]``), kept as ``section`` beside ``domain``. Everything else is a hook with a default,
overridden where the equation needs it; the solvers read only these members.

**The equation at other values** of its section's numbers is :meth:`Equation.at` (``{dotted name: value}``,
:mod:`.sections`), the one way the solvers vary them: an unknown's trained value, a family's value at each point,
a curriculum's stage. The values may be traced, so an equation computes with its section's numbers
arithmetically (no ``float()`` of them) wherever they may vary.

**An equation is a pytree** of its section's ``float`` numbers (:func:`.sections.leaves`; the integers, the
fields that also take an expression, the rest of the section and the domain are its static structure): every
subclass is registered with JAX when it is defined, and unflattening with other leaves builds the equation as
:meth:`Equation.at` does, so ``jax.jit`` takes an equation as an argument with its numbers traced, and
``jax.grad`` of a function of an equation gives the derivative by each number (a shell holding them: numbers that
pose no equation, like the placeholders JAX's tree utilities pass, do not run the constructor).
"""
from __future__ import annotations

import abc
import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import jax
import numpy as np

from . import sections
from .domain import Domain
from .fields import Aliases, Fields

if TYPE_CHECKING:
    from jax.typing import ArrayLike

Residuals = Mapping[str, "ArrayLike"]  # name -> per-point values (N,)


class Section(Protocol):
    """What every case file's ``equation`` section gives the solvers: its tag ``type``, the name the equation
    is registered under (:func:`sciml.equations.register`); the rest is the equation's own."""

    @property
    def type(self) -> str: ...


class Equation(abc.ABC):
    """A PDE problem in nondimensional variables (see the module notes for the contract)."""

    if TYPE_CHECKING:  # built by ``cls(config, domain)``; declared for type checkers only, so that an equation
        # made without a case file (a test's) keeps the default constructor

        def __init__(self, config: Any, domain: Domain) -> None: ...

    section: Any
    """The case file's ``equation`` section the equation was built from (None for one built without)."""
    domain: Domain
    """The domain it is posed on (what an equation may ask of it: :class:`~.domain.Domain`)."""

    def __new__(cls, config: Any = None, domain: Any = None, *args: Any, **kwargs: Any):
        self = super().__new__(cls)
        self.section, self.domain = config, domain  # what at() builds the equation again from
        return self

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        jax.tree_util.register_pytree_node(cls, _flatten, functools.partial(_unflatten, cls))

    def at(self, values: Mapping[str, Any]) -> Equation:
        """This equation with its section's numbers ``values`` (``{dotted name: value}``, traced or not) in place
        of the section's own: the same class built again on the same domain; itself when ``values`` is empty."""
        if not values:
            return self
        return type(self)(sections.replace(self.section, values), self.domain)

    # --- required -----------------------------------------------------------------------------
    @property
    @abc.abstractmethod
    def fields(self) -> tuple[str, ...]:
        """Names of the network's outputs, e.g. ``("u", "v", "p")``."""

    @property
    @abc.abstractmethod
    def coords(self) -> tuple[str, ...]:
        """Names of the coordinates, in the order of the points' columns, e.g. ``("x", "y", "t")``."""

    @abc.abstractmethod
    def to_nondim(self, x):
        """Physical points ``(N, D)`` to the network's inputs ``(N, D)``."""

    @abc.abstractmethod
    def to_physical(self, xh):
        """The inverse of :meth:`to_nondim`."""

    @abc.abstractmethod
    def interior(self, d: Fields) -> Residuals:
        """Residuals at interior points (``d.points`` are nondimensional)."""

    @abc.abstractmethod
    def boundary(self, part: str, d: Fields, normal) -> Residuals:
        """Residuals on boundary part ``part`` with outward unit normals ``normal (N, D)``; ``{}``: free."""

    # --- hooks with defaults ------------------------------------------------------------------
    aliases: Aliases = MappingProxyType({})
    """Fields that are derivatives of network outputs (:mod:`.fields`); default none."""

    periodic: Sequence[tuple[str, str]] = ()
    """Pairs of boundary parts tied by :meth:`periodic_residual`; default none."""

    gauge_free: tuple[str, ...] = ()
    """Fields known only up to a constant (aligned to the reference before errors); default none."""

    vectors: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    """Vector fields whose error is also reported as a whole, e.g. ``{"velocity": ("u", "v")}``."""

    particular: Callable | None = None
    """A known part of the solution added to the network's outputs: nondimensional points ``(N, D)`` to
    nondimensional values ``(N, len(fields))`` (jnp, differentiable), e.g. a singular part no network
    represents (:mod:`.ns_corners`); default none."""

    enrichment: Mapping[str, Callable] = MappingProxyType({})
    """Per field, a known function of the nondimensional points added to the field's exact factor: ``u_f = g_f +
    (phi_f + e_f) N_f``, a singular shape the network times ``phi_f`` cannot take (a plate's re-entrant clamped
    corner, :mod:`.plate_corners`); it must vanish where ``phi_f`` holds a condition. Needs the field's conditions
    exact (``conditions.enforce``); default none."""

    units: Mapping[str, str] | None = None
    """Units of the coordinates and derived fields (written into exports); default: those of the case file."""

    field_coefficients: Mapping[str, str] = MappingProxyType({})
    """Numbers of the section that may vary in space (a field unknown, ``unknowns: {D: {field: ...}}``): name ->
    the coefficient field (:meth:`coefficients`) the residuals then read, the number's field over the section's
    value (the plate's ``{"D": "s"}``); default none."""

    def coefficients(self) -> Mapping[str, Callable]:
        """Fields the residuals read besides the network's outputs, known functions of the point: name ->
        nondimensional points ``(N, D)`` to values ``(N,)`` (jnp arithmetic the engine differentiates together with
        the network's outputs, so ``d["s_xy"]`` reads as ``d["w_xy"]``; a damaged plate's rigidity factor);
        default none."""
        return {}

    def with_coefficients(self, fns: Mapping[str, Callable]) -> Equation:
        """This equation with the coefficient fields ``fns`` (name -> function, as :meth:`coefficients`) in place
        of its own: a field unknown's network. Needed when :attr:`field_coefficients` is set."""
        raise NotImplementedError(f"{type(self).__name__} declares no coefficient fields")

    def field_summary(self, name: str, points: np.ndarray, values: np.ndarray) -> tuple[dict, dict]:
        """``(report, metrics)`` of an identified field ``name`` (a field unknown) with ``values`` at physical
        ``points`` spread over the domain: what the summary shows of it and its errors against the section's
        truth (the plate's damaged zone: its centre and drop); default none."""
        return {}, {}

    @property
    def derived_names(self) -> tuple[str, ...]:
        """Names of the fields :meth:`derived` returns; default: the network's fields."""
        return tuple(self.fields)

    def derived(self, d: Fields) -> Residuals:
        """The physical fields reported, written and compared with the reference; default: the network's
        fields as they are."""
        return {f: d[f] for f in self.fields}

    def gradients(self, d: Fields) -> Residuals:
        """The fields with their first derivatives in physical units (``u_x``, ``p_y``, ...), which checks read
        (``predict(points, of=eq.gradients)``: a flow's wall forces) and an export reports beside
        :meth:`derived` (:meth:`reported`); default none."""
        return {}

    def reported(self, d: Fields) -> Residuals:
        """What a trained model answers at a point (``sciml export``, ``load_run(...).predict``): the
        :meth:`gradients` and the :meth:`derived` fields (the derived ones where a name is in both)."""
        return {**self.gradients(d), **self.derived(d)}

    def periodic_residual(self, da: Fields, db: Fields) -> Residuals:
        """Residuals tying paired points ``a`` and ``b`` of a periodic pair; needed when ``periodic`` is set."""
        raise NotImplementedError(f"{type(self).__name__} declares periodic pairs {list(self.periodic)} but "
                                  "defines no periodic_residual(da, db)")

    def point_sets(self) -> Mapping[str, tuple[np.ndarray, Callable[[Fields], Residuals]]]:
        """``name -> (physical points (N, D), residual)``: conditions at fixed points; default none."""
        return {}

    def checks(self, predict: Callable[..., dict]) -> list:
        """Extra metrics from ``predict(physical points, of=None) -> physical fields`` (``of``: a function of
        the fields :class:`Fields` to report instead of :meth:`derived`, e.g. gradients): objects with
        ``metrics`` (dict), ``notes`` (list of str), ``profiles``, ``maps`` and ``series`` (name -> plot data);
        default none."""
        return []

    def error_regions(self, points: np.ndarray) -> Mapping[str, np.ndarray]:
        """``{suffix: mask (N,)}`` over physical ``points``: regions the errors are also reported on, as
        ``rel_l2_<field>_<suffix>`` (a plate's points away from its re-entrant corners, where no smooth reference
        or network holds the moments); default none."""
        return {}

    def error_scales(self) -> Mapping[str, tuple[str, float]]:
        """``{number: (label, scale)}``: numbers of the section (dotted names) whose error, as an unknown's, is
        also reported against a scale of the problem rather than their own value, ``<name>_<label>_error =
        |value - truth| / scale`` (a load's position against the plate's side); default none."""
        return {}

    def reference(self, points: np.ndarray) -> dict | None:
        """Reference values of the derived fields at physical points, or None (no errors reported)."""
        return None

    def scaling(self) -> tuple[np.ndarray, np.ndarray]:
        """``(centre, scale)`` with ``to_nondim(x) = (x - centre) / scale`` (recorded in exports); by default
        read off :meth:`to_physical` (exact for the affine maps used here)."""
        dim = len(self.coords)
        centre = np.asarray(self.to_physical(np.zeros((1, dim))), float).reshape(dim)
        ones = np.asarray(self.to_physical(np.ones((1, dim))), float).reshape(dim)
        return centre, ones - centre

    @classmethod
    def densities(cls, section) -> tuple[str, ...]:
        """The interior terms that, posed by ``section``, are densities of an energy to minimise (a Ritz form), not
        residuals: the loss takes their mean over the domain's points, not their mean square; default none."""
        return ()

    @classmethod
    def continuation(cls, section, name: str) -> list[float] | None:
        """The values a continuation in the number ``name`` of ``section`` passes through, rising to the section's
        own (a curriculum's ``values: auto``); default None: the case file gives them."""
        return None

    @classmethod  # noqa: B027 (an optional hook: by default, any domain)
    def check_geometry(cls, config, domain: Domain) -> None:
        """Raise :class:`~sciml.errors.Invalid` (key relative to the ``equation`` section) if the equation
        cannot be posed on ``domain``; called when a case is validated. Default: any domain."""


_CHECKING = contextvars.ContextVar("equations_checking", default=False)


@contextlib.contextmanager
def checking() -> Iterator[None]:
    """Within it an equation reads no data file of its own (a flow's start file): the values it would read are
    zeros. For checking a case, an abstract trace of its residuals, before ``sciml datagen`` has made the files
    (or while it makes them again); an equation that reads a file asks :func:`is_checking` first."""
    token = _CHECKING.set(True)
    try:
        yield
    finally:
        _CHECKING.reset(token)


def is_checking() -> bool:
    """Whether the caller runs within :func:`checking`."""
    return _CHECKING.get()


def missing(cls: type) -> list[str]:
    """The abstract members ``cls`` does not define (empty for a complete equation class)."""
    return sorted(cls.__abstractmethods__)  # type: ignore[attr-defined]


class _Static:
    """An equation's structure as a pytree: the dotted names of its section's numbers (the leaves, in this order),
    the section with those numbers blanked (``None``), the domain; equal for the same equation at other values.
    An equation built without a section (a test's) has no leaves and is its own structure (``alone``)."""

    def __init__(self, names: tuple[str, ...], section: Any, domain: Any, alone: Any = None):
        self.names, self.domain, self.alone = names, domain, alone
        self.skeleton = None if section is None else sections.replace(section, dict.fromkeys(names))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _Static) and self.names == other.names and self.domain is other.domain
                and self.alone is other.alone and self.skeleton == other.skeleton)

    def __hash__(self) -> int:
        return hash((self.names, type(self.skeleton), id(self.domain), id(self.alone)))


def _flatten(eq: Equation) -> tuple[list, _Static]:
    """An equation's leaves: its section's ``float`` numbers (:func:`.sections.leaves`), traced or not."""
    shell = getattr(eq, "_shell", None)
    if shell is not None:
        return list(shell[1]), shell[0]
    if eq.section is None:
        return [], _Static((), None, eq.domain, alone=eq)
    values = sections.leaves(eq.section)
    return list(values.values()), _Static(tuple(values), eq.section, eq.domain)


def _is_number(leaf: Any) -> bool:
    return isinstance(leaf, (int, float, np.ndarray, np.generic, jax.Array)) and not isinstance(leaf, bool)


def _unflatten(cls: type[Equation], static: _Static, leaves: Sequence[Any]) -> Equation:
    """The equation at the numbers ``leaves``: built again as :meth:`Equation.at` builds it. Leaves that pose no
    equation (the placeholders JAX's tree utilities pass, ``None`` and ``object()``; numbers its constructor refuses,
    such as a gradient's zeros) give a shell that holds the structure and the leaves and nothing else."""
    if static.alone is not None:
        return static.alone
    if all(_is_number(v) for v in leaves):
        with contextlib.suppress(Exception):  # numbers that pose no equation (a gradient's zeros): a shell
            return cls(sections.replace(static.skeleton, dict(zip(static.names, leaves))), static.domain)
    shell = object.__new__(cls)
    shell.section, shell.domain = static.skeleton, static.domain
    shell._shell = (static, tuple(leaves))  # type: ignore[attr-defined]
    return shell
