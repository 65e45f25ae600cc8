"""PDE problems: residuals over named fields and coordinates, boundary conditions, references.

``EQUATIONS`` maps a case file's ``equation.type`` to ``(config dataclass, equation class)``. An equation
class subclasses :class:`Equation` (its contract: :mod:`.base`) and is built by ``cls(config, domain)``
(:func:`create`). User code adds an equation with :func:`register`.
"""
import dataclasses

from .base import Equation, checking, missing
from .domain import Domain
from .heat import Heat, HeatConfig
from .navier_stokes import NavierStokes, NavierStokesConfig
from .plate import KirchhoffPlate, PlateConfig
from .semilinear import Semilinear, SemilinearConfig

EQUATIONS: dict[str, tuple[type, type[Equation]]] = {
    "heat": (HeatConfig, Heat),
    "kirchhoff_plate": (PlateConfig, KirchhoffPlate),
    "navier_stokes": (NavierStokesConfig, NavierStokes),
    "semilinear": (SemilinearConfig, Semilinear),
}


def register(name: str, config: type, cls: type) -> None:
    """Make ``equation.type: name`` usable in case files (e.g. an equation defined in a notebook).

    ``config`` is a dataclass with a field ``type: Literal[name]`` (the case file's ``equation`` section);
    ``cls`` a complete subclass of :class:`Equation`, built by ``cls(config, domain)``. Registering a name
    again replaces it, so a notebook cell can be run twice.
    """
    if not dataclasses.is_dataclass(config) or "type" not in {f.name for f in dataclasses.fields(config)}:
        raise TypeError(f"{config!r} must be a dataclass with a field 'type: Literal[{name!r}]'")
    if not (isinstance(cls, type) and issubclass(cls, Equation)):
        raise TypeError(f"{cls!r} must be a subclass of sciml.equations.Equation")
    if missing(cls):
        raise TypeError(f"{cls.__name__} does not define {', '.join(missing(cls))} (required by "
                        "sciml.equations.Equation)")
    EQUATIONS[name] = (config, cls)


def check_geometry(config, domain: Domain) -> None:
    """Check a case's ``equation`` section against its domain (the equation's :meth:`~Equation.check_geometry`)."""
    EQUATIONS[config.type][1].check_geometry(config, domain)


def densities(config) -> tuple[str, ...]:
    """The interior terms a case's ``equation`` section poses as energy densities (:meth:`Equation.densities`)."""
    return EQUATIONS[config.type][1].densities(config)


def create(config, domain: Domain) -> Equation:
    """The equation of a case's ``equation`` section on ``domain``, checked against it first."""
    cls = EQUATIONS[config.type][1]
    cls.check_geometry(config, domain)
    return cls(config, domain)


__all__ = ["EQUATIONS", "Domain", "Equation", "Heat", "HeatConfig", "KirchhoffPlate", "NavierStokes",
           "NavierStokesConfig", "PlateConfig", "Semilinear", "SemilinearConfig", "check_geometry", "checking",
           "create", "densities", "register"]
