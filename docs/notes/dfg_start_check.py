"""The DFG 2D-2 start flow alone at t = 0 (issue 73, docs/dfg_2d2.md): its forces by the dfg_cylinder check's own
formulas and its equations' residuals near the cylinder, for each way the lattice Boltzmann field can enter the
network's output. No training: with the start exact (``conditions.enforce.initial: exact``) the output at t0 is
``g + phi S`` whatever the network (its time factor is 0 there), so the zero network gives it, and its time
derivative is 0 (the frozen start). The ways (:data:`WAYS`):

- ``bilinear``: the ``start`` condition value as the case reads it (``equations/ns_start.py``), between the nodes;
- ``spline h``: the interpolating spline on the lattice's own nodes (``conditions.spacing`` = the lattice's h),
  the nodes within a cell of the walls and the cylinder filled (``solvers/pinn/exact.py``);
- ``least squares 2h``: ``conditions.fit={method: least_squares, refine: 2}`` on a grid of 2h: the lattice's nodes
  are its data.

Per way: ``c_D``, ``c_L`` (the volume integral over the ring, frozen: no time derivative), ``c_D_surface``,
``c_L_surface`` (the benchmark's line integral, which reads none) and ``delta_p``, against the solver's own at the
start time (the start file's ``history`` at t = 0); the rms of the continuity residual ``u_x + v_y`` and of the
momentum residual's steady part ``|(u.grad) u + grad p - nu lap u|`` (what the network's ``u_t`` must cancel at
t0) in bands of distance from the cylinder's wall, and far from it (r > 0.25). Seconds to a few minutes.

``python docs/notes/dfg_start_check.py [key=value ...]`` (overrides of ``cases/dfg_2d2.yaml``, e.g. the start's
``equation.start.path=...`` and ``equation.start.cells_per_diameter=...``).
"""
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from sciml import cases
from sciml.equations import ns_start
from sciml.equations.ns_dfg import _quantities, ring_outer
from sciml.solvers.pinn.problem import Problem

jax.config.update("jax_enable_x64", True)

SMALL = ["sampling.interior=256", "sampling.boundary=32", "sampling.parts={cylinder: 32}", "sampling.near={}",
         "sampling.boxes={}", "training.windows=1", "training.overlap=0"]  # the points do not enter the start
EXACT = ["conditions.enforce={walls: exact, cylinder: exact, inlet: exact, initial: exact}",
         "loss.weights={flux.u: 100.0}"]  # the start exact: no initial terms
WAYS = {  # name -> overrides (None: the bilinear start value), h the lattice's spacing
    "bilinear": lambda h: None,
    "spline h": lambda h: [*EXACT, f"conditions.spacing={h}"],
    "least squares 2h": lambda h: [*EXACT, f"conditions.spacing={2 * h}",
                                   "conditions.fit={method: least_squares, refine: 2}"],
}
BANDS = [(0.0, 0.0025), (0.0025, 0.005), (0.005, 0.01), (0.01, 0.02), (0.02, 0.05)]  # distance from the wall


def fields_of_problem(problem: Problem):
    """``physical point (3,) -> (u, v, p)`` of the zero network through the exact transform: the start."""
    eq = problem.equation
    zero = jax.tree_util.tree_map(jnp.zeros_like, problem.init(jax.random.PRNGKey(0)))
    net = problem._net(zero)
    scale = jnp.array([eq.U, eq.U, eq.rho * eq.U ** 2])
    return lambda x: scale * net(jnp.asarray(eq.to_nondim(x))[None])[0]


def fields_of_start(start):
    """``physical point (3,) -> (u, v, p)``: the start value, bilinear between the lattice's nodes."""
    value = ns_start.value(start)
    return lambda x: jnp.stack([value(q, x[None])[0] for q in ("u", "v", "p")])


def flow(fields, nu: float, t0: float):
    """``spatial points (N, 2) -> {u, v, p, u_x, ..., continuity, momentum}`` (physical; frozen: no ``u_t``)."""
    jac, hess = jax.jit(jax.vmap(jax.jacfwd(fields))), jax.jit(jax.vmap(jax.hessian(fields)))
    val = jax.jit(jax.vmap(fields))

    def at(pts, of=None):
        x = jnp.asarray(np.column_stack([pts, np.full(len(pts), t0)]))
        f, j, h = (np.asarray(a) for a in (val(x), jac(x), hess(x)))
        out = {"u": f[:, 0], "v": f[:, 1], "p": f[:, 2], "u_x": j[:, 0, 0], "u_y": j[:, 0, 1], "v_x": j[:, 1, 0],
               "v_y": j[:, 1, 1]}
        out["continuity"] = out["u_x"] + out["v_y"]
        lap = h[:, :2, 0, 0] + h[:, :2, 1, 1]
        mx = f[:, 0] * j[:, 0, 0] + f[:, 1] * j[:, 0, 1] + j[:, 2, 0] - nu * lap[:, 0]
        my = f[:, 0] * j[:, 1, 0] + f[:, 1] * j[:, 1, 1] + j[:, 2, 1] - nu * lap[:, 1]
        out["momentum"] = np.hypot(mx, my)
        return out
    return at


def band_points(center, radius, lo, hi, n=4000, seed=0):
    """``n`` points uniform in the annulus ``lo <= r - radius < hi``."""
    rng = np.random.default_rng(seed)
    r = np.sqrt(rng.uniform((radius + lo) ** 2, (radius + hi) ** 2, n))
    a = rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([center[0] + r * np.cos(a), center[1] + r * np.sin(a)])


def far_points(eq, center, n=4000, seed=1):
    (x0, x1), (y0, y1) = eq.domain.bounds[:2]
    pts = np.random.default_rng(seed).uniform([x0, y0], [x1, y1], (4 * n, 2))
    return pts[np.hypot(*(pts - center).T) > 0.25][:n]


def main(overrides):
    base = cases.load("cases/dfg_2d2.yaml", [*overrides, *SMALL]).config
    start = base.equation.start
    h = 2 * 0.05 / start.cells_per_diameter
    lbm = ns_start.read(start)["history"]
    print(f"start {start.path} ({start.cells_per_diameter} cells per diameter, h = {h:g}); the solver at t = 0: "
          f"c_D {lbm['c_D'][0]:.4f}, c_L {lbm['c_L'][0]:.4f}, delta_p {lbm['delta_p'][0]:.4f}")
    rows = []
    for name, way in WAYS.items():
        began = time.time()
        extra = way(h)
        problem = Problem(cases.load("cases/dfg_2d2.yaml", [*overrides, *SMALL, *(extra or [])]).config)
        eq = problem.equation
        fields = fields_of_start(start) if extra is None else fields_of_problem(problem)
        center, radius = eq.domain.sphere("cylinder")
        at = flow(fields, eq.nu, eq.domain.time[0])
        q = _quantities(eq, at, center, radius, ring_outer(eq, center, radius))
        res = [at(band_points(center, radius, lo, hi)) for lo, hi in BANDS] + [at(far_points(eq, np.asarray(center)))]
        rms = lambda k, res=res: [float(np.sqrt(np.mean(r[k] ** 2))) for r in res]
        rows.append((name, q, rms("continuity"), rms("momentum"), time.time() - began))
        print(f"{name}: c_D {q['c_D']:.4f} c_L {q['c_L']:.4f} c_D_surface {q['c_D_surface']:.4f} c_L_surface "
              f"{q['c_L_surface']:.4f} delta_p {q['delta_p']:.4f} slip {q['cylinder_slip']:.2e} "
              f"({time.time() - began:.0f} s)", flush=True)
    bands = [f"{lo:g}-{hi:g}" for lo, hi in BANDS] + ["r > 0.25"]
    for k, title in ((2, "continuity rms"), (3, "momentum (steady part) rms")):
        print(f"\n{title} by distance from the wall: " + " | ".join(bands))
        for row in rows:
            print(f"  {row[0]:18s} " + " | ".join(f"{v:.3g}" for v in row[k]))


if __name__ == "__main__":
    main(sys.argv[1:])
