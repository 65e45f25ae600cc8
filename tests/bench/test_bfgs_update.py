"""``sciml bench bfgs-update``: each size gets a row (its baseline takes sciml's steps: tests/solvers/pinn/test_optim.py)."""
from sciml.bench import bfgs_update


def test_each_size_gets_a_row(capsys):
    assert bfgs_update.main(["--sizes", "40,60", "--length", "2", "--repeats", "1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [r[0] for r in rows] == ["40", "60"] and all(r[3].endswith("x") for r in rows)
