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
        rows = [{"method": m, "ms": float(i + 1), "err": None if m == "forward" else 1e-6, "compile_s": 0.5,
                 "x_engine": (i + 1) / 2.0, "x_forward": float(i + 1)}
                for i, m in enumerate(autodiff.methods(op, d, ()))]
        out.append({"op": op, "d": d, "n": 8192, "dtype": "float32", "rows": rows, "arrays": 4, "directions": d,
                    "flops_x_forward": 6.0})
    return out


TRAIN = {"n": 8192, "dtype": "float32", "d": 2,
         "rows": [{"mode": "taylor", "ms": 50.0, "compile_s": 1.0}, {"mode": "taylor-vmap", "ms": 55.0},
                  {"mode": "nested", "ms": 200.0}]}


def test_ratios_divide_timings_of_one_table():
    r = autodiff.ratios(_tables(), TRAIN)
    # methods in order forward (1 ms), engine (2 ms), nested (3 ms), ..., vmap last (6 ms for Δ, 5 ms for Δ²)
    assert r["laplacian_d2_speedup_nested"] == 1.5 and r["laplacian_d2_forward_passes"] == 2.0
    assert r["laplacian_d2_speedup_vmap"] == 3.0 and r["biharmonic_d3_speedup_vmap"] == 2.5
    assert r["pinn_step_speedup_nested"] == 4.0 and r["pinn_step_compile_s"] == 1.0
    assert r["pinn_step_speedup_vmap"] == 1.1
    assert "biharmonic_d2_speedup_hessian" not in r  # jax.hessian is timed for Δ only
    # the floor: 4 arrays × 1 ms forward; the engine takes 2 ms and 6 forward passes' flops
    assert r["laplacian_d2_floor_passes"] == 4.0 and r["laplacian_d2_over_floor"] == 0.5
    assert r["laplacian_d2_flops_over_floor"] == 1.5


def test_printed_tables_and_summary_show_batched_vmap_floor_and_nested(capsys):
    tables = _tables()
    autodiff.print_table(tables[0])
    autodiff.print_summary(tables, TRAIN)
    out = capsys.readouterr().out
    assert "floor: 4 arrays × forward = 4.00 ms; engine 0.50× the floor in time, 1.50× in XLA flops" in out
    lap = next(line for line in out.splitlines() if line.strip().startswith("laplacian d=2"))
    # batched 2, vmap 6 (×3.00), floor 4 (batched 0.50×), nested 3 (1.50× the batched)
    assert lap.split()[2:] == ["8192", "float32", "2.00", "6.00", "3.00", "4.00", "0.50", "3.00", "1.50"]
    step = next(line for line in out.splitlines() if line.strip().startswith("PINN step"))
    assert step.split()[3:] == ["8192", "float32", "50.00", "55.00", "1.10", "200.00", "4.00"]
    checks = {name: ok for name, ok, _ in autodiff.check_targets(tables, TRAIN)}
    assert checks["Δ d=2: vmap within 10% of batched"] is False
    assert checks["PINN step d=2: vmap within 10% of batched"] is True


def test_suites_ask_only_for_metrics_the_study_makes():
    made = set(autodiff.ratios(_tables(), TRAIN))
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
