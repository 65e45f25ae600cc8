"""PDE problems: residuals over named fields and coordinates, boundary conditions, references.

``EQUATIONS`` maps a case file's ``equation.type`` to ``(config dataclass, problem class)``. A problem class
is built by ``cls(config, domain)`` (:mod:`sciml.solvers.pinn.domain`) and gives ``fields``, ``coords``,
optional ``aliases``, ``to_nondim``/``to_physical``, residuals ``interior(d)`` and ``boundary(part, d,
normal)`` (dicts of per-point arrays), optional ``point_sets()``, ``periodic`` pairs with
``periodic_residual(da, db)``, ``derived(d)`` (physical fields), ``reference(points)``, ``gauge_free``
(fields known up to a constant) and ``checks(predict)``. A config may define ``check_geometry(domain)``.
User code adds an equation with :func:`register`.
"""
import dataclasses

from .navier_stokes import NavierStokes, NavierStokesConfig
from .plate import KirchhoffPlate, PlateConfig

EQUATIONS = {"kirchhoff_plate": (PlateConfig, KirchhoffPlate.from_domain),
             "navier_stokes": (NavierStokesConfig, NavierStokes)}


def register(name: str, config, factory) -> None:
    """Make ``equation.type: name`` usable in case files (e.g. an equation defined in a notebook).

    ``config`` is a dataclass with a field ``type: Literal[name]`` (the case file's ``equation`` section);
    ``factory(config, domain)`` builds the problem described above. Registering a name again replaces it,
    so a notebook cell can be run twice.
    """
    if not dataclasses.is_dataclass(config) or "type" not in {f.name for f in dataclasses.fields(config)}:
        raise TypeError(f"{config!r} must be a dataclass with a field 'type: Literal[{name!r}]'")
    EQUATIONS[name] = (config, factory)


__all__ = ["EQUATIONS", "KirchhoffPlate", "NavierStokes", "NavierStokesConfig", "PlateConfig", "register"]
