"""The operator API's mode table: the engine's modes are registered, and an engine that fails to import fails
loudly instead of leaving ``mode="taylor"`` to a slower stand-in."""
import subprocess
import sys

from sciml import autodiff as ad
from sciml.autodiff import nested, taylor


def test_modes_are_the_engines():
    assert ad.MODES["taylor"] is taylor.derivatives
    assert ad.MODES["stochastic"] is taylor.stochastic_derivatives
    assert ad.MODES["nested"] is nested.derivatives
    assert ad.DEFAULT_MODE == "taylor"


def test_engine_import_failure_raises():
    code = "import sys; sys.modules['sciml.autodiff.taylor.rules'] = None; import sciml.autodiff"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError") and "sciml.autodiff.taylor.rules" in last
