"""Finite-element references for Kirchhoff plates on polygons (scikit-fem's Morley and Argyris elements on
Triangle's meshes): the independent classical answers the PINN's plates are checked against.

- ``mesh``: :class:`Loop`, :class:`Region`, :func:`circle`, :func:`mesh` (a conforming triangulation, its boundary
  facets by edge name, graded toward re-entrant corners);
- ``plate``: :func:`plate` (one solve, a :class:`PlateSolution` whose ``fields`` are evaluated at points) and
  :func:`reference` (halving ``h`` until the deflection at the points settles);
- ``elements``, ``probe``, ``recovery``, ``ordering``: the elements in scaled coordinates, point location and
  evaluation, patch recovery of Morley's moments, the nested-dissection direct solve.

The mesher and scikit-fem are an optional extra: ``pip install sciml[fem]``.
"""
try:
    import skfem  # noqa: F401
    import triangle  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is in the dev install
    raise ImportError(f"sciml.solvers.classical.fem needs the optional extra 'fem' (pip install 'sciml[fem]'): "
                      f"{error}") from error

from .mesh import Loop, Region, circle, mesh, polygon
from .plate import CONDITIONS, PlateSolution, plate, reference

__all__ = ["CONDITIONS", "Loop", "PlateSolution", "Region", "circle", "mesh", "plate", "polygon", "reference"]
