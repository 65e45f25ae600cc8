"""The Darcy coefficients of the out-of-distribution study: each kind in order, drawn the same from a seed, with
the values its notes give."""
import numpy as np

from sciml.solvers.classical import darcy_kinds


def test_each_kind_in_order_with_its_values_and_drawn_the_same_from_a_seed():
    got = darcy_kinds.coefficients(21, seed=3, grf=2)
    kinds = [k for k, _ in got]
    assert kinds == ["grf"] * 2 + [k for k in darcy_kinds.KINDS[1:] for _ in range(2)]
    assert all(a.shape == (21, 21) for _, a in got)
    values = {k: np.unique(np.concatenate([a.ravel() for kk, a in got if kk == k])) for k in darcy_kinds.KINDS}
    for k in ("grf", "fine", "constant", "inclusion", "layers"):
        np.testing.assert_array_equal(values[k], [3.0, 12.0])
    np.testing.assert_array_equal(values["contrast"], [1.0, 30.0])
    assert 3.0 < values["smooth"].min() and values["smooth"].max() < 12.0 and len(values["smooth"]) > 100
    again = darcy_kinds.coefficients(21, seed=3, grf=2)
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(got, again))
    assert not np.array_equal(got[0][1], darcy_kinds.coefficients(21, seed=4, grf=2)[0][1])
