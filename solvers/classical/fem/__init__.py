"""Finite-element references on polygons (scikit-fem on Triangle's meshes): Kirchhoff plates by Morley's and
Argyris' elements and steady incompressible flows by Taylor–Hood's, the independent classical answers the PINN's
plates and flows past obstacles are checked against; and in 3-D parts (Gmsh's tetrahedra) steady heat conduction
by quadratic tetrahedra.

- ``mesh``: :class:`Loop`, :class:`Region`, :func:`circle`, :func:`mesh` (a conforming triangulation, its boundary
  facets by edge name, graded toward re-entrant corners or by a size field: ``near_edges``);
- ``plate``: :func:`plate` (one solve, a :class:`PlateSolution` whose ``fields`` are evaluated at points) and
  :func:`reference` (halving ``h`` until the deflection at the points settles);
- ``flow``: :func:`steady` (one Newton solve, a :class:`FlowSolution` with ``fields`` at points and the forces
  on a part) and ``flow.reference`` (halving ``h`` until the velocity at the points settles);
- ``heat``: ``heat.tetrahedra`` (Gmsh's tetrahedra inside a closed triangle surface), ``heat.conduction`` (one P2
  solve) and ``heat.reference`` (halving ``h`` until the temperature at the points settles);
- ``elements``, ``probe``, ``recovery``, ``ordering``, ``refinement``: the elements in scaled coordinates, point
  location and evaluation, patch recovery of Morley's moments, the nested-dissection direct solve, the references'
  halving of ``h``.

The meshers and scikit-fem are an optional extra: ``pip install sciml[fem]`` (Gmsh is imported on use).
"""
from sciml.errors import MissingExtra

try:
    import skfem  # noqa: F401
    import triangle  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is in the dev install
    raise MissingExtra("sciml.solvers.classical.fem", "fem", error) from None

from .flow import FlowSolution, steady
from .mesh import Loop, Region, circle, mesh, polygon
from .plate import CONDITIONS, PlateSolution, plate, reference

__all__ = ["CONDITIONS", "FlowSolution", "Loop", "PlateSolution", "Region", "circle", "mesh", "plate", "polygon",
           "reference", "steady"]
