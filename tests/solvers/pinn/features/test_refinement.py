"""Residual-based adaptive refinement: the added points are the candidates with the largest residual."""
import os

import jax
import jax.numpy as jnp
import numpy as np

from sciml import cases
from sciml.solvers.pinn import assemble
from sciml.solvers.pinn.features.refinement import Refiner


def test_adaptive_refinement_adds_the_worst_points():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "cases", "kovasznay.yaml")
    cfg = cases.load(path, ["model.hidden=[8,8]", "sampling.interior=64", "sampling.boundary=16",
                            "sampling.adaptive={every: 1, candidates: 400, add: 20, max_points: 30}"]).config
    problem = assemble(cfg)
    params = problem.init(jax.random.PRNGKey(0))
    refiner = Refiner(cfg.sampling.adaptive, np.random.default_rng(0))
    refiner.refine(problem, params)
    refiner.refine(problem, params)
    assert refiner.points.shape == (30, 2) and problem.geometry.contains(refiner.points).all()
    score = lambda pts: np.asarray(problem.residual_score(params, jnp.asarray(problem.equation.to_nondim(pts))))
    cand = problem.geometry.interior(400, np.random.default_rng(5), "uniform")
    assert score(refiner.points[:20]).min() >= np.quantile(score(cand), 0.8)
    batch = problem.sample(np.random.default_rng(1))
    assert problem.extend(batch, refiner.points)["interior"].shape == (64 + 30, 2)
