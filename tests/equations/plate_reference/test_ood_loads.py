"""The loads an operator trained on random fields never saw (issue 72): their sine series are the loads they name."""
import numpy as np

from sciml.equations.plate_reference import ood_loads


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
