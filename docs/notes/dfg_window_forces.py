"""The forces of a DFG 2D-2 run's single window at each of its saved models, against the lattice Boltzmann
solver's (issue 73, docs/dfg_2d2.md): for comparing recipes at the same steps while a run trains.

``python docs/notes/dfg_window_forces.py RUN MODEL.h5 [MODEL.h5 ...]``: ``RUN`` a run folder of one window
(``training.windows=1``; its ``config.yaml`` is the case), each ``MODEL.h5`` a copy of its
``checkpoints/model.h5`` taken while it trained. The problem is assembled once (the exact start's fit with it);
per model: its step, the volume integral's and the line integral's ``c_D``, ``c_L`` (the dfg_cylinder check's
own formulas, :func:`sciml.equations.ns_dfg._quantities_in_time`) at a few times, and the rms differences from
the solver's over the window (41 times), as the check's ``*_lbm_rms_diff``.
"""
import os
import sys

import jax
import numpy as np

from sciml import cases
from sciml.equations import ns_start
from sciml.equations.ns_dfg import _quantities_in_time, ring_outer
from sciml.io import checkpoint
from sciml.solvers.pinn.problem import assemble

jax.config.update("jax_enable_x64", True)

SHOWN = 7  # times printed, evenly over the window


def main(run, models):
    cfg = cases.load(os.path.join(run, "config.yaml")).config
    problem = assemble(cfg)
    eq = problem.equation
    center, radius = eq.domain.sphere("cylinder")
    outer = ring_outer(eq, center, radius)
    t0, t1 = eq.domain.time
    t = np.linspace(t0, t1, 41)
    lbm = ns_start.read(cfg.equation.start)["history"]
    ref = {k: np.interp(t, lbm["t"], lbm[k]) for k in ("c_D", "c_L")}
    shown = np.linspace(0, len(t) - 1, SHOWN).round().astype(int)
    print(f"{run}: t " + " ".join(f"{t[i]:.4f}" for i in shown))
    for k in ("c_D", "c_L"):
        print(f"  {k} lattice Boltzmann: " + " ".join(f"{ref[k][i]:.3f}" for i in shown))
    template = problem.init(jax.random.PRNGKey(0))
    for path in models:
        step = checkpoint.attrs(path).get("step", "?")
        params = checkpoint.load_part(path, "params", template)
        predict = lambda pts, of=None, params=params: problem.predict(params, pts, of=of)
        q = _quantities_in_time(eq, predict, t, center, radius, outer)
        c = {k: np.array([h[k] for h in q]) for k in ("c_D", "c_L", "c_D_surface", "c_L_surface")}
        rms = {k: float(np.sqrt(np.mean((c[k] - ref[k.split("_s")[0]]) ** 2))) for k in c}
        print(f" step {step} ({os.path.basename(path)}): rms diff " + ", ".join(f"{k} {v:.3f}" for k, v in rms.items()))
        for k in c:
            print(f"  {k:12s} " + " ".join(f"{c[k][i]:.3f}" for i in shown), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
