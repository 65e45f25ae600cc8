"""A user's equation written only to the contract (the abstract members of ``Equation``), trained and exported
through the command line in a fresh process: ``python user_equation.py FOLDER``.

Writes ``FOLDER/case.yaml``, the run ``FOLDER/run``, the export ``FOLDER/model.jaxexport`` and, for the test
to compare with, ``FOLDER/points.csv`` and the in-process predictions there ``FOLDER/want.npy``.
"""
import os
import sys
from dataclasses import dataclass
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from sciml import cases, equations
from sciml.cli import main as sciml
from sciml.config import spec

CASE = """
case: user_heat
solver: pinn
geometry: {type: rectangle, x: [0.0, 2.0], y: [0.0, 1.0], parts: {initial: [bottom], ends: [left, right]}}
equation: {type: user_heat, k: 0.1}
model: {hidden: [8, 8]}
sampling: {interior: 64, boundary: 16}
training: {adam: {steps: 20}, log_every: 10}
evaluation: {grid: [9, 9]}
"""


@dataclass
class HeatConfig:
    type: Literal["user_heat"]
    k: float = spec(0.1, gt=0.0)


class Heat(equations.Equation):
    """u_t = k u_xx on [0, 2] x [0, 1] (x, t), scaled to [-1, 1]^2; u(x, 0) = sin(pi x / 2), u = 0 at the ends."""

    fields, coords = ("u",), ("x", "t")
    centre, half = np.array([1.0, 0.5]), np.array([1.0, 0.5])

    def __init__(self, config, domain):
        self.k = config.k

    def to_nondim(self, x):
        return (x - self.centre) / self.half

    def to_physical(self, xh):
        return self.centre + self.half * xh

    def interior(self, d):  # derivatives in the network's variables, so d/dx = d/dxh / half
        return {"heat": d["u_t"] / self.half[1] - self.k * d["u_xx"] / self.half[0] ** 2}

    def boundary(self, part, d, normal):
        x = self.to_physical(d.points)[:, 0]
        return {"u": d["u"] - jnp.sin(jnp.pi * x / 2)} if part == "initial" else {"u": d["u"]}


def main(folder: str) -> int:
    equations.register("user_heat", HeatConfig, Heat)
    case, run, model = (os.path.join(folder, n) for n in ("case.yaml", "run", "model.jaxexport"))
    with open(case, "w") as fh:
        fh.write(CASE)
    assert sciml(["run", case, "--out", run, "--quiet"]) == 0
    assert sciml(["export", run, "--out", model]) == 0

    from sciml.io import checkpoint
    from sciml.solvers.pinn import assemble

    from sciml.compile import Policy

    cfg = cases.load(case).config
    with Policy.of(cfg.dtype).precision():  # the run left the process as it found it: float64 is asked for here
        problem = assemble(cfg)
        params = checkpoint.load_part(os.path.join(run, "checkpoints", "model.h5"), "params",
                                      problem.init(jax.random.PRNGKey(0)))
        pts = np.random.default_rng(0).uniform([0.0, 0.0], [2.0, 1.0], (20, 2))
        np.savetxt(os.path.join(folder, "points.csv"), pts, delimiter=",", header="x,t", comments="", fmt="%.17g")
        np.save(os.path.join(folder, "want.npy"), problem.predict(params, pts)["u"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
