"""The loads an operator trained on random fields never saw (issue 72): their sine series are the loads they name."""
import numpy as np
import pytest

from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.errors import UserError


def test_series_sum_to_the_loads_they_name_away_from_the_edges():
    x = np.linspace(0.0, 1.0, 17)
    inner = slice(4, 13)  # the series of a load not zero on the edges converge slowly there (Gibbs)
    np.testing.assert_allclose(ood_loads.on_grid(ood_loads.uniform(512), x)[inner, inner], 1.0, atol=0.01)
    X, _ = np.meshgrid(x, x, indexing="ij")
    np.testing.assert_allclose(ood_loads.on_grid(ood_loads.hydrostatic(512), x)[inner, inner], X[inner, inner],
                               atol=0.01)
    np.testing.assert_allclose(ood_loads.on_grid(ood_loads.mode(3, 2, 8), x),
                               np.outer(np.sin(3 * np.pi * x), np.sin(2 * np.pi * x)), atol=1e-12)


def test_the_loads_of_each_kind_in_order_and_drawn_the_same_from_a_seed():
    got = ood_loads.loads(9, seed=3, terms=16, grf=2, patches=1)
    assert [k for k, _, _ in got] == ["grf", "grf", "patch_large", "patch_medium", "patch_point", "uniform",
                                      "hydrostatic", "mode_3_2", "mode_1_5", "mode_1_1", "mode_2_2"]
    assert all(c.shape == (16, 16) and q.shape == (9, 9) for _, c, q in got)
    again = ood_loads.loads(9, seed=3, terms=16, grf=2, patches=1)
    assert all(np.array_equal(a[2], b[2]) for a, b in zip(got, again))


def test_the_basis_integrals_are_the_grids_quadrature_weights_and_integrate_its_interpolants():
    """Simpson's weights on an even number of intervals, the trapezoid rule's on an odd one; the piecewise
    quadratic (linear) basis reproduces x² (x) exactly: Σ_i x_i² ∫ψ_i f = ∫ x² f for f = 1."""
    for s, first in ((9, [1 / 3, 4 / 3, 2 / 3]), (8, [1 / 2, 1, 1])):
        W = ood_loads.basis_integrals(s, lambda x: np.ones((len(x), 1)))[:, 0]
        np.testing.assert_allclose(W[:3] * (s - 1), first, rtol=1e-12)
        assert abs(W.sum() - 1.0) < 1e-12
    x = np.linspace(0.0, 1.0, 9)
    A = ood_loads.basis_integrals(9, lambda t: np.sin(np.pi * t)[:, None])[:, 0]
    assert abs(A @ x ** 2 - (np.pi ** 2 - 4) / np.pi ** 3) < 1e-12  # ∫ x² sin πx: the quadratic interpolant of x²


def test_work_values_give_the_loads_exact_work_and_keep_smooth_loads():
    """The work values' quadrature is the exact work of the load (a patch, from its series) against any field of
    the grid's piecewise-quadratic interpolation, here sin πx sin πy's; a smooth load (the uniform one, from its
    series) keeps its values away from the edges."""
    s, terms = 17, 256
    rng = np.random.default_rng(0)
    c, f = random_loads.patches(rng, terms, patches=1, patch_width=(0.05, 0.1))
    q = ood_loads.work_values(c, s)
    W = ood_loads.basis_integrals(s, lambda x: np.ones((len(x), 1)))[:, 0]
    A = ood_loads.basis_integrals(s, lambda x: np.sin(np.pi * np.outer(x, np.arange(1, terms + 1))), 32 + terms)
    v = np.sin(np.pi * np.linspace(0.0, 1.0, s))
    exact = np.sum(c * np.outer(A.T @ v, A.T @ v))  # ∫ q I_h(sin πx sin πy), the series term by term
    assert np.sum(np.outer(W, W) * q * np.outer(v, v)) == pytest.approx(exact, rel=1e-10)
    x = np.linspace(0.0, 1.0, s)
    X, Y = np.meshgrid(x, x, indexing="ij")
    assert abs(np.sum(np.outer(W, W) * f(X, Y)) - np.sum(np.outer(W, W) * q)) > 0.05 * np.sum(np.outer(W, W) * q)
    np.testing.assert_allclose(ood_loads.work_values(ood_loads.uniform(terms), s)[4:13, 4:13], 1.0, atol=2e-3)


def test_sampling_keeps_the_values_on_the_edges_and_refuses_others():
    values = dict((k, q) for k, _, q in ood_loads.loads(9, terms=32, grf=1, patches=1))
    work = dict((k, q) for k, _, q in ood_loads.loads(9, terms=32, grf=1, patches=1, sampling="work"))
    np.testing.assert_array_equal(values["uniform"], 1.0)  # the load's values, not its series (1-3 % low)
    for kind in values:
        np.testing.assert_array_equal(work[kind][[0, -1]], values[kind][[0, -1]])
    assert not np.allclose(work["patch_point"], values["patch_point"])
    with pytest.raises(UserError, match="values or work"):
        ood_loads.loads(9, sampling="cells")
