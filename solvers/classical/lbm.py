r"""Flow around a circular cylinder in a channel by the lattice Boltzmann method: the reference and the start
of the DFG benchmarks (Schäfer & Turek 1996).

**Lattice.** D2Q9 with the nodes at the centres of square cells of side :math:`h`: the channel
:math:`[x_0, x_1]\times[y_0, y_1]` is ``nx`` :math:`\times` ``ny`` cells, node :math:`(i, j)` at
:math:`(x_0 + (i + \frac12)h,\ y_0 + (j + \frac12)h)`, so every side of the channel lies half-way between a
node and its image outside. Lattice units: :math:`h = 1`, a step :math:`\delta t = u_{lat} h / U_{mean}` (the
mean inflow speed is :math:`u_{lat}` lattice units, 0.05 by default: Mach number 0.09 at the inflow's peak),
:math:`\nu_{lat} = u_{lat} D_{lat} / Re`.

**Collision**: two-relaxation-time (TRT; Ginzburg 2008) with :math:`\tau_+ = 3\nu_{lat} + \frac12` and the
"magic" product :math:`(\tau_+ - \frac12)(\tau_- - \frac12) = 3/16`, for which half-way bounce-back puts a
straight wall exactly half-way, whatever the viscosity.

**Boundaries** (each fills the populations that stream into a fluid node from outside the fluid):

- walls: half-way bounce-back, :math:`f_i(x, t+1) = f^*_{\bar\imath}(x, t)`;
- inflow: bounce-back of a moving wall (Ladd), :math:`f_i = f^*_{\bar\imath} + 6 w_i\, c_i\cdot u_b`, with
  the inflow's velocity :math:`u_b` at the link's middle (zero outside the channel's height);
- outflow: anti-bounce-back at :math:`p = 0` (Ginzburg), :math:`f_i = -f^*_{\bar\imath} + 2 w_i
  [1 + \frac92 (c_i\cdot u_b)^2 - \frac32 |u_b|^2]`, :math:`u_b` extrapolated from the last two nodes;
- the cylinder: Bouzidi's linear interpolated bounce-back on each link that the circle cuts at the fraction
  :math:`q` of the link from the fluid node, :math:`f_{\bar\imath}(x) = 2q f^*_i(x) + (1-2q) f^*_i(x - c_i)`
  for :math:`q < \frac12`, :math:`f^*_i(x)/(2q) + (1 - 1/(2q)) f^*_{\bar\imath}(x)` otherwise (second order
  in :math:`h` for a curved wall).

**Forces** by momentum exchange over the cut links, :math:`F = \sum c_i (f^*_i(x) + f_{\bar\imath}(x, t+1))`,
and :math:`c = 2F/(\rho U_{mean}^2 D)`; the pressure :math:`p = (\rho - 1)/3` lattice units,
:math:`\rho U_{mean}^2 (\rho_{lat} - 1)/(3 u_{lat}^2)` physical, bilinear between nodes.

:func:`marching` marches the lattice (``jax.lax.fori_loop`` chunks under ``jit``), records ``c_D``,
``c_L``, ``delta_p`` every ``record`` physical time units and the fields at the requested times, and yields
where it stands (a :class:`March`) after each chunk, which it can be continued from; :func:`simulate` runs it
to the end. The tests
(``tests/solvers/classical/test_lbm.py``) check the DFG 2D-1 numbers and the order of convergence; the
benchmark entry ``dfg_2d2_lbm`` checks 2D-2's Strouhal number and force maxima against the published ranges.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile import MARCHING

# D2Q9: rest, 4 axis, 4 diagonal directions; OPP[i] is the direction opposite to i
C = np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [-1, -1], [1, -1]])
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])
MAGIC = 3.0 / 16.0


@dataclass(frozen=True)
class Channel:
    """The set-up: the channel box, the cylinder, the inflow profile ``inflow(y) -> u`` (physical), its mean
    speed (the coefficients' velocity scale) and the viscosity."""

    box: tuple[tuple[float, float], tuple[float, float]]
    center: tuple[float, float]
    radius: float
    inflow: Callable[[np.ndarray], np.ndarray]
    u_mean: float
    nu: float


def dfg(u_max: float) -> Channel:
    """The DFG channel (2.2 x 0.41, cylinder r = 0.05 at (0.2, 0.2), nu = 1e-3) with the parabolic inflow of
    peak ``u_max`` (0.3: 2D-1, Re 20; 1.5: 2D-2, Re 100)."""
    return Channel(((0.0, 2.2), (0.0, 0.41)), (0.2, 0.2), 0.05,
                   lambda y: 4 * u_max * y * (0.41 - y) / 0.41**2, 2 * u_max / 3, 1e-3)


@dataclass(frozen=True)
class Lattice:
    """A channel on a lattice: sizes, relaxation rates, masks and the cylinder's cut links."""

    channel: Channel
    h: float
    dt: float
    u_lat: float
    nx: int
    ny: int
    omega: tuple[float, float]  # (omega_+, omega_-)
    solid: np.ndarray  # (ny, nx) bool
    inflow: np.ndarray  # (9, ny) lattice velocity of the inflow at each entering link's middle (x only)
    links: dict  # the cut links: "i", "j" (the fluid node), "k" (the direction into the solid), "q"

    @property
    def x(self) -> np.ndarray:
        return self.channel.box[0][0] + (np.arange(self.nx) + 0.5) * self.h

    @property
    def y(self) -> np.ndarray:
        return self.channel.box[1][0] + (np.arange(self.ny) + 0.5) * self.h


def lattice(channel: Channel, cells_per_diameter: int, u_lat: float = 0.05) -> Lattice:
    """The lattice with ``cells_per_diameter`` cells across the cylinder (the box's sides must be whole
    numbers of cells)."""
    (x0, x1), (y0, y1) = channel.box
    h = 2 * channel.radius / cells_per_diameter
    nx, ny = round((x1 - x0) / h), round((y1 - y0) / h)
    if abs(nx * h - (x1 - x0)) > 1e-9 * (x1 - x0) or abs(ny * h - (y1 - y0)) > 1e-9 * (y1 - y0):
        raise ValueError(f"{cells_per_diameter} cells per diameter do not divide the channel "
                         f"{x1 - x0:g} x {y1 - y0:g} into whole cells")
    nu_lat = u_lat * cells_per_diameter * channel.nu / (channel.u_mean * 2 * channel.radius)
    tau = 3 * nu_lat + 0.5
    tau_minus = 0.5 + MAGIC / (tau - 0.5)
    xs = x0 + (np.arange(nx) + 0.5) * h
    ys = y0 + (np.arange(ny) + 0.5) * h
    X, Y = np.meshgrid(xs, ys)
    cx, cy = channel.center
    solid = (X - cx) ** 2 + (Y - cy) ** 2 < channel.radius**2
    inflow = np.zeros((9, ny))
    for k in range(9):
        if C[k, 0] == 1:  # enters through the inflow side from the image node at x0 - h/2
            ym = ys - C[k, 1] * h / 2
            inside = (ym > y0) & (ym < y1)
            inflow[k] = np.where(inside, channel.inflow(np.clip(ym, y0, y1)), 0.0) * u_lat / channel.u_mean
    return Lattice(channel, h, u_lat * h / channel.u_mean, u_lat, nx, ny, (1 / tau, 1 / tau_minus), solid, inflow,
                   _cut_links(solid, X, Y, channel, h))


def _cut_links(solid, X, Y, channel: Channel, h: float) -> dict:
    """The links from a fluid node into the cylinder, with the fraction ``q`` of the link at the circle."""
    rows: dict[str, list[np.ndarray]] = {"i": [], "j": [], "k": [], "q": []}
    cx, cy = channel.center
    for k in range(1, 9):
        dx, dy = C[k]
        nbr = _shifted(solid, dx, dy)
        j, i = np.nonzero(~solid & nbr)
        # |p + s c - centre| = r, smallest s in (0, 1]
        px, py = X[j, i] - cx, Y[j, i] - cy
        a = (dx * dx + dy * dy) * h * h
        b = 2 * h * (px * dx + py * dy)
        c = px**2 + py**2 - channel.radius**2
        s = (-b - np.sqrt(b * b - 4 * a * c)) / (2 * a)
        for key, v in zip("ijkq", (i, j, np.full(len(i), k), s)):
            rows[key].append(v)
    out = {key: np.concatenate(v) for key, v in rows.items()}
    back_i, back_j = out["i"] - C[out["k"], 0], out["j"] - C[out["k"], 1]
    if np.any(solid[back_j, back_i]):
        raise ValueError("the cylinder is too thin for its lattice (a cut link's back node is solid)")
    return out


def _shifted(a: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``out[j, i] = a[j + dy, i + dx]`` (False outside)."""
    out = np.zeros_like(a)
    ny, nx = a.shape
    out[max(0, -dy):ny - max(0, dy), max(0, -dx):nx - max(0, dx)] = \
        a[max(0, dy):ny + min(0, dy), max(0, dx):nx + min(0, dx)]
    return out


def equilibrium(rho, u, v):
    """The D2Q9 equilibria ``(9, ...)`` of density ``rho`` and velocity ``(u, v)`` (lattice units)."""
    cu = C[:, 0, None, None] * u + C[:, 1, None, None] * v
    usq = u * u + v * v
    return jnp.asarray(W, rho.dtype)[:, None, None] * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq)


def moments(f):
    """``(rho, u, v)`` of populations ``(9, ny, nx)``."""
    rho = f.sum(0)
    u = jnp.tensordot(C[:, 0].astype(f.dtype), f, 1) / rho
    v = jnp.tensordot(C[:, 1].astype(f.dtype), f, 1) / rho
    return rho, u, v


def make_step(lat: Lattice, dtype=jnp.float64) -> Callable:
    """``step(f, ramp) -> (f, force (2,))``: collide, stream, apply the boundaries with the inflow times
    ``ramp``; the force on the cylinder."""
    wp, wm = lat.omega
    fluid = jnp.asarray(~lat.solid)
    links = lat.links
    li, lj, lk = (jnp.asarray(links[n]) for n in ("i", "j", "k"))
    q = jnp.asarray(links["q"], dtype)
    lo = OPP[links["k"]]
    bi, bj = jnp.asarray(links["i"] - C[links["k"], 0]), jnp.asarray(links["j"] - C[links["k"], 1])
    ck = jnp.asarray(C[links["k"]], dtype)
    inflow = jnp.asarray(lat.inflow, dtype)
    w = jnp.asarray(W, dtype)
    opp = np.asarray(OPP)

    def step(f, ramp):
        rho, u, v = moments(f)
        feq = equilibrium(rho, u, v)
        fp, fm = 0.5 * (f + f[opp]), 0.5 * (f - f[opp])
        ep, em = 0.5 * (feq + feq[opp]), 0.5 * (feq - feq[opp])
        post = f - wp * (fp - ep) - wm * (fm - em)
        post = jnp.where(fluid, post, feq)
        new = jnp.stack([jnp.roll(post[k], (int(C[k, 1]), int(C[k, 0])), (0, 1)) for k in range(9)])
        # walls (bottom, top): half-way bounce-back of what left towards them
        for k in range(9):
            if C[k, 1] == 1:
                new = new.at[k, 0, :].set(post[opp[k], 0, :])
            elif C[k, 1] == -1:
                new = new.at[k, -1, :].set(post[opp[k], -1, :])
        # inflow: moving-wall bounce-back (the corner links too: u_b is zero outside the channel's height)
        for k in range(9):
            if C[k, 0] == 1:
                new = new.at[k, :, 0].set(post[opp[k], :, 0] + 6 * w[k] * ramp * inflow[k])
        # outflow: anti-bounce-back at rho = 1 with the velocity extrapolated to the side
        ub = 1.5 * u[:, -1] - 0.5 * u[:, -2]
        vb = 1.5 * v[:, -1] - 0.5 * v[:, -2]
        for k in range(9):
            if C[k, 0] == -1:
                cu = C[k, 0] * ub + C[k, 1] * vb
                new = new.at[k, :, -1].set(-post[opp[k], :, -1] + 2 * w[k] * (1 + 4.5 * cu * cu
                                                                               - 1.5 * (ub * ub + vb * vb)))
        # the cylinder: Bouzidi's interpolated bounce-back on the cut links
        out = post[lk, lj, li]  # f*_k(x), towards the solid
        near = jnp.where(q < 0.5, 2 * q * out + (1 - 2 * q) * post[lk, bj, bi],
                         out / (2 * q) + (1 - 1 / (2 * q)) * post[lo, lj, li])
        new = new.at[lo, lj, li].set(near)
        force = ((out + near)[:, None] * ck).sum(0)
        return new, force

    return step


@dataclass
class History:
    """What :func:`simulate` recorded: times (physical), coefficients, pressure difference and snapshots."""

    t: np.ndarray
    c_D: np.ndarray
    c_L: np.ndarray
    delta_p: np.ndarray
    snapshots: dict  # time -> {"u", "v", "p": (ny, nx) physical, zero velocity in the solid}


def fields(lat: Lattice, f) -> dict[str, np.ndarray]:
    """Velocity and pressure (physical units) on the nodes; zero velocity inside the cylinder."""
    rho, u, v = (np.asarray(a) for a in moments(f))
    s = lat.channel.u_mean / lat.u_lat
    keep = ~lat.solid
    p = (rho - 1) / 3 * s**2
    return {"u": np.where(keep, u * s, 0.0), "v": np.where(keep, v * s, 0.0), "p": p}


def surface_pressure(lat: Lattice, rho: np.ndarray, angle: float) -> float:
    """The lattice pressure ``(rho - 1) / 3`` on the cylinder at ``angle`` (radians from the x axis): the
    quadratic through the bilinear values at 1, 2, 3 cells out along the normal, at the surface."""
    (cx, cy), a = lat.channel.center, lat.channel.radius
    n = np.array([np.cos(angle), np.sin(angle)])
    p = [_bilinear(lat, rho, *(np.array([cx, cy]) + (a + m * lat.h) * n)) for m in (1, 2, 3)]
    return (3 * p[0] - 3 * p[1] + p[2] - 1) / 3


def _bilinear(lat: Lattice, a: np.ndarray, x: float, y: float) -> float:
    fx = (x - lat.channel.box[0][0]) / lat.h - 0.5
    fy = (y - lat.channel.box[1][0]) / lat.h - 0.5
    i, j = int(np.floor(fx)), int(np.floor(fy))
    sx, sy = fx - i, fy - j
    return float((1 - sy) * ((1 - sx) * a[j, i] + sx * a[j, i + 1])
                 + sy * ((1 - sx) * a[j + 1, i] + sx * a[j + 1, i + 1]))


@dataclass(frozen=True)
class March:
    """Where a march stands after ``done`` chunks of ``record`` time units: the populations ``f``, the rows
    ``(t, c_D, c_L, delta_p)`` recorded so far and the snapshots kept (time -> :func:`fields`). A march
    continued from one gives the numbers of one never stopped (the chunks are the same programs on the same
    values)."""

    done: int
    f: Any
    rows: tuple[tuple[float, float, float, float], ...] = ()
    snapshots: dict = field(default_factory=dict)

    def history(self) -> History:
        arr = np.array(self.rows, float).reshape(-1, 4)
        return History(arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], dict(self.snapshots))


def marching(lat: Lattice, t_end: float, record: float, snapshots=(), ramp: float = 0.0, dtype=jnp.float64,
             resume: March | None = None) -> Iterator[March]:
    r"""March from rest (or from ``resume``) to ``t_end`` (physical), recording every ``record`` time units;
    yields the :class:`March` after each chunk (its ``f`` a device array). The inflow grows as
    :math:`\sin^2(\pi t / 2 t_r)` over ``ramp`` :math:`= t_r` time units (0: at once), which keeps the start's
    pressure waves small. ``snapshots``: physical times whose fields to keep (the nearest record)."""
    step = make_step(lat, dtype)
    every = max(1, round(record / lat.dt))
    ramp_steps = ramp / lat.dt

    @partial(jax.jit, compiler_options=MARCHING)
    def chunk(f, start):
        def body(s, carry):
            f, force = carry
            r = 1.0 if ramp_steps <= 0 else jnp.sin(0.5 * jnp.pi * jnp.minimum(1.0, (start + s + 1) / ramp_steps)) ** 2
            f, fr = step(f, jnp.asarray(r, dtype))
            return f, force + fr
        f, force = jax.lax.fori_loop(0, every, body, (f, jnp.zeros(2, dtype)))
        return f, force / every  # the mean force over the chunk's steps

    if resume is None:
        ny, nx = lat.ny, lat.nx
        resume = March(0, equilibrium(jnp.ones((ny, nx), dtype), jnp.zeros((ny, nx), dtype),
                                      jnp.zeros((ny, nx), dtype)))
    f, rows, snaps = jnp.asarray(resume.f, dtype), list(resume.rows), dict(resume.snapshots)
    k = 2 / (lat.u_lat**2 * 2 * lat.channel.radius / lat.h)
    scale = lat.channel.u_mean / lat.u_lat  # lattice to physical velocity
    wanted = sorted(s for s in snapshots if s not in snaps)
    n = int(np.ceil(t_end / (every * lat.dt) - 1e-9))
    for m in range(resume.done + 1, n + 1):
        f, force = chunk(f, (m - 1) * every)
        t = m * every * lat.dt
        rho = np.asarray(f.sum(0))
        force = np.asarray(force)
        with np.errstate(over="ignore", invalid="ignore"):  # a lattice blowing up: reported just below
            row = (t, k * force[0], k * force[1],
                   (surface_pressure(lat, rho, np.pi) - surface_pressure(lat, rho, 0.0)) * scale**2)
        if not np.all(np.isfinite(row)):
            raise FloatingPointError(f"the lattice blew up at t = {t:.4g}")
        rows.append(row)
        while wanted and wanted[0] <= t + 0.5 * every * lat.dt:
            snaps = {**snaps, wanted.pop(0): fields(lat, f)}  # a new dict: a March yielded is never changed
        yield March(m, f, tuple(rows), snaps)


def simulate(lat: Lattice, t_end: float, record: float, snapshots=(), ramp: float = 0.0, dtype=jnp.float64,
             progress: Callable[[float], None] | None = None) -> tuple[History, np.ndarray]:
    """:func:`marching` from rest to ``t_end``: ``(history, final populations)``; ``progress(t)`` after each
    chunk."""
    state = March(0, None)
    for state in marching(lat, t_end, record, snapshots, ramp, dtype):
        if progress is not None:
            progress(state.rows[-1][0])
    return state.history(), np.asarray(state.f)
