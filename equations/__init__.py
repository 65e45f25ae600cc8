"""PDE problems: residuals over named fields and coordinates, boundary conditions, references.

``EQUATIONS`` maps a case file's ``equation.type`` to ``(config dataclass, problem class)``. A problem class
is built by ``cls(config, domain)`` (:mod:`sciml.solvers.pinn.domain`) and gives ``fields``, ``coords``,
optional ``aliases``, ``to_nondim``/``to_physical``, residuals ``interior(d)`` and ``boundary(part, d,
normal)`` (dicts of per-point arrays), optional ``point_sets()``, ``periodic`` pairs with
``periodic_residual(da, db)``, ``derived(d)`` (physical fields), ``reference(points)``, ``gauge_free``
(fields known up to a constant) and ``checks(predict)``. A config may define ``check_geometry(domain)``.
"""
from .navier_stokes import NavierStokes, NavierStokesConfig
from .plate import KirchhoffPlate, PlateConfig

EQUATIONS = {"kirchhoff_plate": (PlateConfig, KirchhoffPlate.from_domain),
             "navier_stokes": (NavierStokesConfig, NavierStokes)}

__all__ = ["EQUATIONS", "KirchhoffPlate", "NavierStokes", "NavierStokesConfig", "PlateConfig"]
