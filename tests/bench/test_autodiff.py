"""The autodiff suite's metric names: what the suites ask for is what :func:`ratios` makes."""
import itertools
import os

import pytest

from sciml.bench import autodiff, suite
from sciml.errors import UserError

SUITES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "cases", "suites")


def _tables():
    """Tables shaped like ``operator_table``'s, with the methods it times and made-up milliseconds."""
    out = []
    for op, d in itertools.product(("laplacian", "biharmonic"), (2, 3)):
        rows = [{"method": m, "ms": float(i + 1), "err": None if m == "forward" else 1e-6}
                for i, m in enumerate(autodiff.methods(op, d, ()))]
        out.append({"op": op, "d": d, "rows": rows})
    return out


def test_ratios_divide_timings_of_one_table():
    train = {"rows": [{"mode": "taylor", "ms": 50.0, "compile_s": 1.0}, {"mode": "nested", "ms": 200.0}]}
    r = autodiff.ratios(_tables(), train)
    # methods in order forward (1 ms), engine (2 ms), nested (3 ms), ...
    assert r["laplacian_d2_speedup_nested"] == 1.5 and r["laplacian_d2_forward_passes"] == 2.0
    assert r["pinn_step_speedup_nested"] == 4.0 and r["pinn_step_compile_s"] == 1.0
    assert "biharmonic_d2_speedup_hessian" not in r  # jax.hessian is timed for Δ only


def test_suites_ask_only_for_metrics_the_study_makes():
    made = set(autodiff.ratios(_tables(), {"rows": [{"mode": "taylor", "ms": 1.0, "compile_s": 1.0},
                                                    {"mode": "nested", "ms": 2.0}]}))
    for name in ("smoke", "autodiff"):
        s, _ = suite.load_suite(os.path.join(SUITES, f"{name}.yaml"))
        for e in (e for e in s.entries if e.study == "autodiff_ratios"):
            asked = set(e.metrics + e.speeds + e.costs + e.info)
            assert asked <= made, (name, e.name, asked - made)


def test_suite_options_run_the_autodiff_suite(monkeypatch):
    """``sciml bench autodiff`` prints tables; with a suite option it is the suite cases/suites/autodiff.yaml."""
    monkeypatch.chdir(os.path.dirname(os.path.dirname(SUITES)))
    with pytest.raises(UserError, match="autodiff.yaml: no entry nope"):
        autodiff.main(["--only", "nope"])
