r"""Incompressible Navier–Stokes in 2D and 3D, steady or unsteady, velocity–pressure or stream-function form.

.. math:: \partial_t u + (u\cdot\nabla)u = -\nabla p/\rho + \nu\Delta u + f, \qquad \nabla\cdot u = 0,

with :math:`\nu = U_{ref} L_{ref}/Re` when ``Re`` is given (``velocity`` and ``length`` are the scales that
define it, both 1 unless set). The coordinates are those of the domain: ``x, y[, z][, t]``.

**Nondimensionalisation** (done here, so a water channel trains like a unit box): with the centre
:math:`x_c` of the spatial bounding box, its half-extent :math:`\hat L` (the longest one), the time centre
:math:`t_c` and half-span :math:`\hat T`, put :math:`x = x_c + \hat L\hat x`, :math:`t = t_c + \hat T\hat t`,
:math:`u = U\hat u`, :math:`p = \rho U^2\hat p`, :math:`f = (U^2/\hat L)\hat f`. Then

.. math:: St\,\partial_{\hat t}\hat u + (\hat u\cdot\hat\nabla)\hat u + \hat\nabla\hat p
          - \tfrac{1}{\hat{Re}}\hat\Delta\hat u = \hat f, \qquad \hat\nabla\cdot\hat u = 0,
          \qquad St = \frac{\hat L}{U\hat T},\ \hat{Re} = \frac{U\hat L}{\nu},

and the network's inputs :math:`\hat x, \hat t` lie in :math:`[-1, 1]`.

**Stream function** (2D, ``formulation: stream_function``): the network gives :math:`\hat\psi, \hat p` and
:math:`\hat u = \hat\psi_{\hat y}`, :math:`\hat v = -\hat\psi_{\hat x}` (aliases, see :mod:`.fields`), so
continuity holds exactly and is not a loss term.

**Conditions** (``conditions``, by boundary part): a mapping of quantities to values, each a number, an
expression of the coordinates (:mod:`sciml.expr`), ``exact`` (from ``solution``) or, in the part ``initial``,
``start`` (a developed flow's field, ``equation.start``: :mod:`.ns_start`): ``u``, ``v``, ``w``,
``p``, ``psi`` (Dirichlet) and ``u_n``, ``v_n``, … (the outward normal derivative, Neumann). An outflow is
``{p: 0, u_n: 0, v_n: 0}``; ``{}`` leaves a part free. The part ``initial`` of a space-time domain takes
the initial condition. ``periodic: [[left, right]]`` ties opposite faces (values and first derivatives of
every network output); such parts need no condition. ``gauge: {point: [x, y], p: 0}`` pins the pressure
level of a closed cavity.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from sciml import expr
from sciml.config import spec, suggest
from sciml.errors import Invalid

from . import ns_flux, ns_start
from .base import Equation
from .domain import Domain
from .fields import Fields
from .ns_checks import GHIA_RE, forces, ghia1982, ghia_re, mass_flux, symmetry
from .ns_corners import lid_corners
from .ns_dfg import dfg_cylinder
from .ns_exact import SOLUTIONS
from .ns_start import START, StartConfig

VELOCITY = ("u", "v", "w")
EXACT = "exact"
# the checks named in ``checks``: (equation, predict) -> ns_checks.Check (:mod:`.ns_checks`, :mod:`.ns_dfg`)
CHECKS = {"ghia1982": ghia1982, "mass_flux": mass_flux, "symmetry": symmetry, "dfg_cylinder": dfg_cylinder}


@dataclass
class GaugeConfig:
    """A pressure gauge: ``p(point) = value`` (at every time of a space-time domain)."""

    point: list[float] = spec(help="the gauge point, one number per spatial coordinate")
    p: str | float = spec(0.0, help="the pressure there: a number, an expression of t, or exact")


@dataclass
class NavierStokesConfig:
    """Case-file section ``equation`` for ``type: navier_stokes``. Give ``Re`` or ``nu``."""

    type: Literal["navier_stokes"]
    Re: float | None = spec(None, gt=0.0, help="Reynolds number U L / nu (give Re or nu)")
    nu: float | None = spec(None, gt=0.0, help="kinematic viscosity")
    rho: float = spec(1.0, gt=0.0, help="density")
    velocity: float = spec(1.0, gt=0.0, help="velocity scale U of Re = U L / nu")
    length: float = spec(1.0, gt=0.0, help="length scale L of Re = U L / nu")
    formulation: Literal["velocity_pressure", "stream_function"] = "velocity_pressure"
    solution: Literal["kovasznay", "taylor_green", "beltrami"] | None = spec(
        None, help="exact solution: the reference, and the values of conditions set to 'exact'")
    conditions: dict[str, dict[str, str | float]] = spec(
        factory=dict, help="by boundary part: {u: 1, v: 0}, {p: 0, u_n: 0, v_n: 0}, {u: exact, ...}")
    periodic: list[tuple[str, str]] = spec(factory=list, help="pairs of opposite parts, e.g. [[left, right]]")
    gauge: GaugeConfig | None = None
    flux: ns_flux.FluxConfig | None = spec(None, help="the flux through sections x = const held at the inflow's "
                                                     "(equations/ns_flux.py): {value: U_mean H}")
    start: StartConfig | None = spec(None, help="a developed flow whose fields the initial part's 'start' values "
                                                "take (equations/ns_start.py)")
    force: dict[str, str | float] = spec(factory=dict, help="body force per unit mass by component (u, v, w)")
    lid_corners: bool = spec(False, help="a lid-driven cavity (stream_function, steady, the top edge moving at a "
                                         "constant u): add the Stokes flows of the lid's corners, where u jumps, "
                                         "to the network's psi and p (their singular part; equations.ns_corners)")
    checks: list[Literal["ghia1982", "mass_flux", "symmetry", "dfg_cylinder"]] = spec(
        factory=list, help="extra metrics: ghia1982 (cavity centrelines), mass_flux, symmetry, dfg_cylinder "
                           "(drag, lift and pressure difference of the hole named cylinder)")
    check_times: int = spec(201, ge=3, help="times from the first to the last at which an unsteady flow's "
                                            "dfg_cylinder check samples the forces and the mass flux (the "
                                            "Strouhal number and the maxima are read from them)")
    forces: list[str] = spec(factory=list, help="parts (obstacles of any shape) whose drag and lift coefficients "
                                                "the run reports, c_D_<part> and c_L_<part>: c = 2 F / (rho "
                                                "velocity^2 length) by the line integral along the part")

    def check(self):
        if self.Re is None and self.nu is None:
            raise Invalid("Re", "missing: give Re (or nu)")
        if self.Re is not None and self.nu is not None:
            raise Invalid("Re", "give Re or nu, not both")

    @property
    def viscosity(self) -> float:
        if self.nu is not None:
            return self.nu
        assert self.Re is not None, "check(): Re or nu"
        return self.velocity * self.length / self.Re

    @property
    def reynolds(self) -> float:
        if self.Re is not None:
            return self.Re
        assert self.nu is not None, "check(): Re or nu"
        return self.velocity * self.length / self.nu


def quantities(dim: int, formulation: str) -> list[str]:
    """What a condition may set: fields (Dirichlet) and ``<field>_n`` (normal derivative)."""
    fields = list(VELOCITY[:dim]) + ["p"] + (["psi"] if formulation == "stream_function" else [])
    return fields + [f"{f}_n" for f in fields]


def _check_value(value, variables, solution, key):
    if isinstance(value, str) and value.strip() == START:
        return  # ns_start.check
    if isinstance(value, str) and value.strip() == EXACT:
        if solution is None:
            raise Invalid(key, "'exact' needs an exact solution (equation.solution)")
        return
    try:
        expr.parse(value, tuple(variables))
    except ValueError as e:
        raise Invalid(key, str(e)) from None


def _lid(domain) -> str | None:
    """The part holding the domain's top edge (a rectangle's piece ``top``), if any."""
    return next((p for p, pieces in domain.groups.items() if "top" in pieces), None)


def _check_lid(config: NavierStokesConfig, domain) -> None:
    """``lid_corners``: a steady 2D stream function on a rectangle whose top edge moves at a constant u."""
    if config.formulation != "stream_function" or "t" in domain.coords or len(domain.coords) != 2:
        raise Invalid("lid_corners", "the corner flows are of a steady 2D cavity in stream_function form")
    lid = _lid(domain)
    speed = config.conditions.get(lid, {}).get("u") if lid is not None else None
    if lid is None or set(domain.pieces) != {"left", "right", "bottom", "top"}:
        raise Invalid("lid_corners", "the corner flows need a rectangle (its top edge is the lid)")
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or speed == 0:
        raise Invalid("lid_corners", f"the lid (part {lid!r}, the top edge) needs a constant u, not 0; its "
                                     f"conditions are {config.conditions.get(lid, {})}")


def check_section(config: NavierStokesConfig, domain: Domain) -> None:
    """Cross-checks against the domain; :class:`Invalid` keys are relative to ``equation``."""
    space = tuple(c for c in domain.coords if c != "t")
    unsteady = "t" in domain.coords
    dim = len(space)
    if dim not in (2, 3):
        raise Invalid("type", f"navier_stokes needs a 2D or 3D domain, got coordinates {list(domain.coords)}")
    if config.formulation == "stream_function" and dim != 2:
        raise Invalid("formulation", "the stream function is for 2D flows")
    if config.solution is not None:
        sol = SOLUTIONS[config.solution]
        if sol.dim != dim or sol.unsteady != unsteady:
            raise Invalid("solution", f"{config.solution} is {sol.note}; the domain has coordinates "
                                      f"{list(domain.coords)}")
    names = quantities(dim, config.formulation)
    parts = list(domain.parts)
    periodic_parts = set()
    for i, (a, b) in enumerate(config.periodic):
        for j, part in enumerate((a, b)):
            if part not in parts:
                raise Invalid(f"periodic[{i}][{j}]", f"unknown boundary part {part!r}{suggest(part, parts)}; "
                                                     f"parts are {parts}")
        try:
            domain.periodic_offset(a, b)
        except ValueError as e:
            raise Invalid(f"periodic[{i}]", str(e)) from None
        periodic_parts |= {a, b}
    variables = domain.coords
    for part, cond in config.conditions.items():
        if part not in parts:
            raise Invalid(f"conditions.{part}", f"unknown boundary part{suggest(part, parts)}; parts are {parts}")
        if part in periodic_parts:
            raise Invalid(f"conditions.{part}", "this part is periodic; it takes no other condition")
        for q, value in cond.items():
            allowed = names if part != "initial" else [n for n in names if not n.endswith("_n")]
            if q not in allowed:
                raise Invalid(f"conditions.{part}.{q}", f"unknown quantity{suggest(q, allowed)}; one of {allowed}")
            _check_value(value, variables, config.solution, f"conditions.{part}.{q}")
    missing = [p for p in parts if p not in config.conditions and p not in periodic_parts]
    if missing:
        raise Invalid("conditions", f"no condition for part(s) {missing} (use {{}} to leave a part free)")
    if config.gauge is not None:
        if len(config.gauge.point) != dim:
            raise Invalid("gauge.point", f"expected {dim} coordinates {list(space)}, got {config.gauge.point}")
        space_dom = domain.space
        if not space_dom.contains(np.asarray([config.gauge.point], float), 1e-9)[0]:
            raise Invalid("gauge.point", f"{config.gauge.point} is outside the domain")
        _check_value(config.gauge.p, ("t",) if unsteady else (), config.solution, "gauge.p")
    for q, value in config.force.items():
        if q not in VELOCITY[:dim]:
            raise Invalid(f"force.{q}", f"unknown component; one of {list(VELOCITY[:dim])}")
        _check_value(value, variables, None, f"force.{q}")
    if config.lid_corners:
        _check_lid(config, domain)
    if "ghia1982" in config.checks and (dim != 2 or unsteady):
        raise Invalid("checks", "ghia1982 compares a steady 2D cavity")
    if "ghia1982" in config.checks and ghia_re(config.reynolds) is None:
        raise Invalid("checks", f"ghia1982 has tables for Re = {', '.join(f'{r:g}' for r in GHIA_RE)} only; "
                                f"this case has Re = {config.reynolds:g} (leave ghia1982 out of the checks)")
    if "mass_flux" in config.checks:
        for p in ("inlet", "outlet"):
            if p not in parts:
                raise Invalid("checks", f"mass_flux needs boundary parts named inlet and outlet; parts are {parts}")
    if ("mass_flux" in config.checks or "symmetry" in config.checks) and (dim != 2 or unsteady):
        raise Invalid("checks", "mass_flux and symmetry are computed for steady 2D flows")
    ns_start.check(config, domain)
    ns_flux.check(config.flux, domain)
    for i, part in enumerate(config.forces):
        if part not in parts:
            raise Invalid(f"forces[{i}]", f"unknown boundary part {part!r}{suggest(part, parts)}; parts are {parts}")
    if config.forces and (dim != 2 or unsteady):
        raise Invalid("forces", "forces on a part are computed for steady 2D flows")
    if "dfg_cylinder" in config.checks:
        if dim != 2:
            raise Invalid("checks", "dfg_cylinder is computed for 2D flows")
        if "cylinder" not in parts or domain.sphere("cylinder") is None:
            raise Invalid("checks", f"dfg_cylinder needs a circular hole whose part is named cylinder; parts "
                                    f"are {parts}")


class NavierStokes(Equation):
    """The incompressible Navier–Stokes problem in nondimensional variables, with its physical scales."""

    @classmethod
    def continuation(cls, section: NavierStokesConfig, name: str) -> list[float] | None:
        """``Re``: Ghia's tabulated Reynolds numbers (100, 400, 1000, 3200) below the section's, then it (the
        cavity's ladder of Wang, Sankaran, Wang & Perdikaris 2023); other numbers: the case file gives them."""
        if name != "Re" or section.Re is None:
            return None
        return [re for re in GHIA_RE if re < section.Re * (1 - 1e-9)] + [float(section.Re)]

    @classmethod
    def check_geometry(cls, config: NavierStokesConfig, domain: Domain) -> None:
        """Cross-checks against the domain (:func:`check_section`)."""
        check_section(config, domain)

    def __init__(self, config: NavierStokesConfig, domain: Domain):
        self.config, self.domain = config, domain
        self.space = tuple(c for c in self.coords if c != "t")
        self.unsteady = "t" in self.coords
        self.velocity = VELOCITY[:len(self.space)]
        self.vectors = {"velocity": self.velocity}  # vector fields whose error is also reported as a whole
        self.stream = config.formulation == "stream_function"
        if self.stream:
            self.aliases = {"u": ("psi", (0, 1) + (0,) * self.unsteady, 1.0),
                            "v": ("psi", (1, 0) + (0,) * self.unsteady, -1.0)}

        # physical scales
        self.nu, self.rho, self.U = config.viscosity, config.rho, config.velocity
        bounds = np.array(domain.bounds, float)
        sb = bounds[:len(self.space)]
        self.L = float(np.max(sb[:, 1] - sb[:, 0]) / 2)
        center = list((sb[:, 0] + sb[:, 1]) / 2)
        scale = [self.L] * len(self.space)
        if self.unsteady:
            t0, t1 = bounds[-1]
            self.T = float(t1 - t0) / 2
            center.append((t0 + t1) / 2)
            scale.append(self.T)
        self.center, self.scale = np.array(center), np.array(scale)
        self.Re_hat = self.U * self.L / self.nu
        self.St = self.L / (self.U * self.T) if self.unsteady else 0.0
        self.field_scale = {"u": self.U, "v": self.U, "w": self.U, "p": self.rho * self.U**2,
                            "psi": self.U * self.L}

        if config.lid_corners:  # the singular part of a cavity's flow (equations.ns_corners)
            lid_speed = float(config.conditions[_lid(domain) or ""]["u"])
            box = tuple(tuple(b) for b in bounds[:2])
            self.particular = lambda xh: self._corner_flows(xh, box, lid_speed)

        self.exact = SOLUTIONS[config.solution].fn if config.solution else None
        self._conditions = {part: {q: self._value(v) for q, v in cond.items()}
                            for part, cond in config.conditions.items()}
        self.force = {q: self._value(v) for q, v in config.force.items()}
        self.periodic = [(a, b) for a, b in config.periodic]
        # fields known only up to a constant (per time): the pressure of a flow with no pressure condition
        fixes_p = config.gauge is not None or any(
            q in ("p", "p_n") for c in config.conditions.values() for q in c)
        self.gauge_free = () if fixes_p else ("p",)

    @property
    def coords(self) -> tuple[str, ...]:
        return tuple(self.domain.coords)

    @property
    def fields(self) -> tuple[str, ...]:
        """The network's outputs: velocity and pressure, or stream function and pressure."""
        return ("psi", "p") if self.stream else self.velocity + ("p",)

    # --- scales -------------------------------------------------------------------------------
    def to_nondim(self, x):
        return (x - self.center) / self.scale

    def scaling(self):
        return self.center, self.scale

    def to_physical(self, xh):
        return self.center + self.scale * xh

    def _value(self, value):
        """A condition value as ``(q, physical points) -> physical value`` (jnp)."""
        if isinstance(value, str) and value.strip() == START:
            assert self.config.start is not None, "validated: 'start' needs equation.start"
            return ns_start.value(self.config.start)
        if isinstance(value, str) and value.strip() == EXACT:
            exact = self.exact
            assert exact is not None, "validated: 'exact' needs an exact solution"
            return lambda q, x: exact(jnp, x, self.nu, self.rho)[q]
        e = expr.parse(value, self.coords)
        return lambda q, x: e(jnp, **{c: x[..., i] for i, c in enumerate(self.coords)}) + 0.0 * x[..., 0]

    def _target(self, q: str, value, xh, derivative: bool = False):
        """The nondimensional value of ``q`` (or of its normal derivative) at nondimensional points."""
        phys = value(q, self.to_physical(xh))
        s = self.field_scale[q] / (self.L if derivative else 1.0)
        return phys / s

    def _corner_flows(self, xh, box, lid_speed: float):
        """The nondimensional ``(psi, p)`` of the lid's corner flows at nondimensional points ``xh (..., 2)``."""
        x = self.to_physical(xh)
        psi, p = lid_corners(x[..., 0], x[..., 1], box, lid_speed, self.nu, self.rho, jnp)
        return jnp.stack([psi / self.field_scale["psi"], p / self.field_scale["p"]], axis=-1)

    # --- residuals ----------------------------------------------------------------------------
    def interior(self, d: Fields) -> dict:
        """Momentum (one per velocity component) and, unless a stream function is used, continuity."""
        U, X = self.velocity, self.space
        out = {}
        for ui, xi in zip(U, X):
            convection = sum(d[uj] * d[f"{ui}_{xj}"] for uj, xj in zip(U, X))
            r = convection + d[f"p_{xi}"] - d.lap(ui, over=X) / self.Re_hat
            if self.unsteady:
                r = self.St * d[f"{ui}_t"] + r
            if ui in self.force:
                r = r - self._target(ui, self.force[ui], d.points) * self.L / self.U
            out[f"momentum_{xi}"] = r
        if not self.stream:
            out["continuity"] = sum(d[f"{ui}_{xi}"] for ui, xi in zip(U, X))
        return out

    def boundary(self, part: str, d: Fields, normal) -> dict:
        """The residuals of the conditions on ``part`` (``{}`` for a free or periodic part)."""
        out = {}
        for q, value in self._conditions.get(part, {}).items():
            if q.endswith("_n"):
                f = q[:-2]
                dn = sum(normal[..., i] * d[f"{f}_{x}"] for i, x in enumerate(self.space))
                out[q] = dn - self._target(f, value, d.points, derivative=True)
            else:
                out[q] = d[q] - self._target(q, value, d.points)
        return out

    def periodic_residual(self, da: Fields, db: Fields) -> dict:
        """Matching values and first spatial derivatives of every network output on a periodic pair."""
        out = {}
        for f in self.fields:
            out[f] = da[f] - db[f]
            for x in self.space:
                out[f"{f}_{x}"] = da[f"{f}_{x}"] - db[f"{f}_{x}"]
        return out

    def point_sets(self) -> dict:
        """``name -> (physical points, residual)``: the pressure gauge, the flux through sections."""
        out = {} if self.config.flux is None else {"flux": ns_flux.point_set(self.config.flux, self.domain, self.U)}
        g = self.config.gauge
        if g is None:
            return out
        pts = np.asarray([g.point], float)
        if self.unsteady:
            assert self.domain.time is not None, "an unsteady flow's domain has a time interval"
            t0, t1 = self.domain.time
            t = np.linspace(t0, t1, 17)
            pts = np.concatenate([np.repeat(pts, len(t), 0), t[:, None]], -1)
        value = self._value(g.p)
        return {**out, "gauge": (pts, lambda d: {"p": d["p"] - self._target("p", value, d.points)})}

    # --- physical output ----------------------------------------------------------------------
    @property
    def derived_names(self) -> tuple[str, ...]:
        return self.velocity + ("p", "speed") + (("vorticity",) if len(self.space) == 2 else ())

    def derived(self, d: Fields) -> dict:
        """Velocity, pressure, speed and (2D) vorticity ``v_x - u_y`` in physical units."""
        out = {u: self.U * d[u] for u in self.velocity}
        out["p"] = self.rho * self.U**2 * d["p"]
        out["speed"] = jnp.sqrt(sum(out[u] ** 2 for u in self.velocity))
        if len(self.space) == 2:
            out["vorticity"] = self.U / self.L * (d["v_x"] - d["u_y"])
        return out

    def gradients(self, d: Fields) -> dict:
        """Velocity and pressure with their first spatial derivatives (``u_x``, ``p_y``, ...) and, unsteady, the
        velocity's time derivatives (``u_t``, ...), physical units."""
        out = {}
        for f in self.velocity + ("p",):
            scale = self.field_scale[f]
            out[f] = scale * d[f]
            out.update({f"{f}_{x}": scale / self.L * d[f"{f}_{x}"] for x in self.space})
            if self.unsteady and f != "p":
                out[f"{f}_t"] = scale / self.T * d[f"{f}_t"]
        return out

    def checks(self, predict) -> list:
        """The case's ``checks`` (:data:`CHECKS`) on ``predict(physical points) -> physical fields``, and the
        forces on the parts of ``forces`` (:func:`.ns_checks.forces`)."""
        return [CHECKS[name](self, predict) for name in self.config.checks] + (
            [forces(self, predict)] if self.config.forces else [])

    def reference(self, points: np.ndarray) -> dict | None:
        """The exact solution (with speed and vorticity) at physical points, or None."""
        exact = self.exact
        if exact is None:
            return None
        x64 = jax.config.jax_enable_x64  # type: ignore[attr-defined]  # options: dynamic attributes
        x = jnp.asarray(points, jnp.float64 if x64 else jnp.float32)
        ref = {k: np.asarray(v) for k, v in exact(jnp, x, self.nu, self.rho).items()}
        ref["speed"] = np.sqrt(sum(ref[u] ** 2 for u in self.velocity))
        if len(self.space) == 2:
            def uv(p):
                s = exact(jnp, p, self.nu, self.rho)
                return jnp.stack([s["u"], s["v"]])
            jac = jax.vmap(jax.jacfwd(uv))(x)  # (N, 2, D)
            ref["vorticity"] = np.asarray(jac[:, 1, 0] - jac[:, 0, 1])
        return ref
