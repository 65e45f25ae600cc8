"""Every classical and reference scheme converges at the order its module declares (``ORDER``), measured by the
same studies the benchmark suites report (:mod:`sciml.bench.studies`): the least-squares slope and the order
between every pair of successive steps."""
import pytest

from sciml.bench.studies import STUDIES

CASES = [  # (study, its arguments, tolerance on each observed order, bound on the finest error)
    ("plate_fd_order", {}, 0.15, None),
    ("darcy_fd_order", {"averaging": "arithmetic"}, 0.05, 6e-5),
    ("darcy_fd_order", {"averaging": "harmonic"}, 0.05, 6e-5),
    ("burgers_time_order", {}, 0.4, 5e-10),
    ("vorticity_time_order", {"scheme": "heun"}, 0.15, None),
    ("vorticity_time_order", {"scheme": "euler"}, 0.15, None),
    ("vorticity_time_order", {"scheme": "ifrk4"}, 0.15, 2e-9),
]


@pytest.mark.parametrize("study, args, tol, finest", CASES,
                         ids=[f"{c[0]}-{'-'.join(map(str, c[1].values())) or 'default'}" for c in CASES])
def test_observed_order_is_the_declared_one(study, args, tol, finest):
    result = STUDIES[study](**args)
    conv = result["convergence"]
    p = conv["theoretical_order"]
    assert abs(conv["observed_order"] - p) < tol, conv
    assert all(abs(o - p) < tol for o in conv["orders"]), conv
    if finest is not None:
        assert conv["error"][-1] < finest, conv
