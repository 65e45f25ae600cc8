r"""Classical reference solutions of Kirchhoff plate bending, :math:`D\,\Delta^2 w = q`, on a rectangle: the
plate equation's own maths (:meth:`sciml.equations.plate.KirchhoffPlate.reference` answers with them).

Three solvers (Timoshenko & Woinowsky-Krieger, *Theory of Plates and Shells*, 2nd ed., McGraw-Hill 1959; section
chapters are named rather than section numbers):

- ``navier``: Navier's double sine series, all four edges simply supported (Ch. 5, Navier's solution);
- ``levy``: Lévy's single series, two opposite edges simply supported and each other edge simply supported,
  clamped or free (Ch. 5, Lévy's solution; Ch. 6), exact per mode for loads constant along the supported
  edges, ultraspherical Chebyshev per mode otherwise;
- ``fd``: second-order 13-point finite differences with Richardson extrapolation, clamped and/or simply
  supported edges (the standard 13-point operator).

``plate_solution`` picks the best applicable one. Every solver returns the fields ``w``, ``mx``, ``my``,
``mxy``, ``qx``, ``qy`` (sign conventions in ``plate.py``) at the given points.
"""
from __future__ import annotations

from .fd import FDSolution, fd_plate, fd_solve
from .levy import levy_plate
from .navier import navier_coefficients, navier_plate
from .plate import CONDITIONS, EDGE_NAMES, FIELDS, make_plate

__all__ = ["CONDITIONS", "EDGE_NAMES", "FDSolution", "FIELDS", "choose_method", "fd_plate", "fd_solve",
           "levy_plate", "navier_coefficients", "navier_plate", "plate_solution"]

_SS = "simply_supported"


def choose_method(edges) -> str:
    """``"navier"`` (all simply supported), ``"levy"`` (an opposite simply supported pair), else ``"fd"``.

    Raises ``ValueError`` for a free edge without an opposite pair of simply supported edges, which none of
    the solvers handles.
    """
    e = edges
    if all(e[k] == _SS for k in EDGE_NAMES):
        return "navier"
    if (e["left"] == e["right"] == _SS) or (e["bottom"] == e["top"] == _SS):
        return "levy"
    if "free" not in e.values():
        return "fd"
    raise ValueError(
        f"no reference solver for edges {dict(e)}: a free edge needs the two edges perpendicular to it "
        "(an opposite pair: left and right, or bottom and top) simply supported, for the Lévy series; "
        "finite differences handle clamped and simply supported edges only")


def plate_solution(bounds, edges, D, nu, load, x, y, *, uniform: bool | None = None, method: str = "auto",
                   **options) -> dict:
    """Reference fields ``w, mx, my, mxy, qx, qy`` of a rectangular Kirchhoff plate at the points ``(x, y)``.

    ``bounds = ((x0, x1), (y0, y1))``; ``edges``: a mapping (or an object with attributes) ``left``, ``right``,
    ``bottom``, ``top`` -> ``"simply_supported" | "clamped" | "free"``; ``D``: flexural rigidity; ``nu``: Poisson's
    ratio; ``load``: a number (uniform load) or a vectorised callable ``q(x, y)``; ``uniform``: whether to treat
    a callable load as uniform (``None``: detect, see ``plate.make_load``). ``method``: ``"auto"`` (see
    ``choose_method``), ``"navier"``, ``"levy"`` or ``"fd"``; ``options`` go to that solver (``terms``,
    ``quad_nodes``, ``y_solver`` for the series; ``n``, ``richardson`` for finite differences).
    """
    plate = make_plate(bounds, edges, D, nu)
    auto = choose_method(plate.edges)
    method = auto if method == "auto" else method
    if method == "navier":
        if auto != "navier":
            raise ValueError("the Navier series needs all four edges simply supported")
        return navier_plate(plate.bounds, plate.D, plate.nu, load, x, y, uniform=uniform, **options)
    if method == "levy":
        return levy_plate(plate.bounds, plate.edges, plate.D, plate.nu, load, x, y, uniform=uniform, **options)
    if method == "fd":
        return fd_plate(plate.bounds, plate.edges, plate.D, plate.nu, load, x, y, uniform=uniform, **options)
    raise ValueError(f"method must be 'auto', 'navier', 'levy' or 'fd', got {method!r}")
