"""Darcy five-point scheme: the matrix is symmetric positive definite; thresholded data are positive with zero
boundary values (its order on a manufactured solution: tests/solvers/test_orders.py)."""
import numpy as np

from sciml.solvers.classical import darcy


def test_matrix_symmetric_positive_definite():
    a = 3.0 + 9.0 * np.random.default_rng(0).random((9, 9))
    for averaging in darcy.AVERAGES:
        A = darcy.matrix(a, averaging).toarray()
        np.testing.assert_array_equal(A, A.T)
        assert np.linalg.eigvalsh(A).min() > 0.0
    # a constant coefficient gives c times the standard five-point Laplacian
    A = darcy.matrix(np.full((5, 5), 2.0)).toarray()
    K = np.diag(np.full(3, 2.0)) - np.diag(np.ones(2), 1) - np.diag(np.ones(2), -1)
    np.testing.assert_allclose(A, 2.0 * 16.0 * (np.kron(K, np.eye(3)) + np.kron(np.eye(3), K)))


def test_generate_thresholded():
    d = darcy.generate(3, 17, seed=4)
    a, u = d["a"], d["u"]
    assert a.shape == u.shape == (3, 17, 17)
    assert set(np.unique(a)) <= {3.0, 12.0}
    np.testing.assert_array_equal(u[:, [0, -1], :], 0.0)
    np.testing.assert_array_equal(u[:, :, [0, -1]], 0.0)
    assert u[:, 1:-1, 1:-1].min() > 0.0  # f = 1 > 0 and an M-matrix: the discrete maximum principle
    # the compliance f^T A(a)^-1 f = h^2 Σ u decreases with a (A(a) grows with a in the Loewner order):
    # between those of the constant coefficients 12 and 3
    ones = np.ones((1, 17, 17))
    total = u.sum(axis=(1, 2))
    assert np.all(total < darcy.solve(3.0 * ones)[0].sum()) and np.all(total > darcy.solve(12.0 * ones)[0].sum())


def test_subsampled_solve_is_the_fine_solve():
    fine = darcy.generate(2, 17, seed=7)
    coarse = darcy.generate(2, 9, seed=7, r=2)
    np.testing.assert_array_equal(coarse["a"], fine["a"][:, ::2, ::2])
    np.testing.assert_array_equal(coarse["u"], fine["u"][:, ::2, ::2])


def test_coefficients_are_generate_s_draws_without_the_solve():
    """``coefficients`` (the unsolved inputs of ``data.n_physics``) draws what ``generate`` draws with the same
    arguments, the solver's settings read by neither, and solves nothing."""
    made = darcy.generate(3, 9, seed=5, r=2, tau=4.0, f=2.0)
    drawn = darcy.coefficients(3, 9, seed=5, r=2, tau=4.0, f=2.0, averaging="harmonic")
    assert set(drawn) == {"a", "x"}
    np.testing.assert_array_equal(drawn["a"], made["a"])
    np.testing.assert_array_equal(drawn["x"], made["x"])
