"""Identifiability: the resolution from the Gauss-Newton matrix; D alone is identifiable, D with q0 is not."""
import jax
import numpy as np
import pytest
from inverse_cases import tiny_identify

from sciml.solvers.pinn import run as driver
from sciml.solvers.pinn.features import identifiability
from sciml.solvers.pinn.problem import Problem

BOTH = {"D": {"initial": 1.0, "bounds": [0.1, 10.0]}, "q0": {"initial": 2.0, "bounds": [0.1, 10.0]}}


def test_verdict_of_a_regular_and_a_singular_matrix():
    ok, res = identifiability.verdict(np.diag([4.0, 100.0]), loss=1e-2)
    assert ok.all()
    np.testing.assert_allclose(res, [0.05, 0.01])
    ok, res = identifiability.verdict(np.array([[1.0, -1.0], [-1.0, 1.0]]), loss=1e-8)
    assert not ok.any() and np.isinf(res).all()
    # a third unknown apart from the degenerate pair stays resolved
    ok, res = identifiability.verdict(np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), 1e-4)
    assert ok.tolist() == [False, False, True] and res[2] == pytest.approx(1e-2)
    # one unknown the loss does not see, and one it sees weakly against a large loss (still fixed)
    assert identifiability.verdict(np.zeros((1, 1)), 1.0)[0].tolist() == [False]
    assert identifiability.verdict(np.full((1, 1), 1e-6), 1.0)[0].tolist() == [True]


def test_deflections_see_only_q0_over_d(tmp_path):
    problem = Problem(tiny_identify(tmp_path, unknowns=BOTH)["case"].config)
    params = problem.init(jax.random.PRNGKey(0))
    F, loss = identifiability.fisher(problem, params, problem.sample(np.random.default_rng(0)))
    lam, v = np.linalg.eigh(F)
    assert lam[0] < 1e-12 * lam[1] and abs(abs(v[0, 0]) - abs(v[1, 0])) < 1e-6  # singular along (1, 1)
    assert loss > 0


def test_d_alone_is_identifiable_and_d_with_q0_is_not(tmp_path):
    budget = {"training__adam__steps": 20}
    alone = tiny_identify(tmp_path / "alone", **budget)["case"].config
    s = driver.train(alone, str(tmp_path / "alone" / "run"), quiet=True)
    assert isinstance(s["unknowns"]["D"], float) and s["identifiability"]["resolution"]["D"] > 0
    assert "D_rel_error" in s["metrics"]
    both = tiny_identify(tmp_path / "both", unknowns=BOTH, **budget)["case"].config
    s = driver.train(both, str(tmp_path / "both" / "run"), quiet=True)
    assert s["unknowns"] == {"D": "not identifiable", "q0": "not identifiable"}
    assert s["identifiability"]["resolution"] == {"D": None, "q0": None}
    assert "D_rel_error" not in s["metrics"] and "not identifiable" in s["identifiability"]["criterion"]
