"""The examples in the docstrings of ``sciml.autodiff`` and ``sciml.nn`` run and print what they show, with
float32 (JAX's default) and with float64 (what the test process enables)."""
import doctest
import importlib
import pkgutil

import jax
import pytest

import sciml.autodiff
import sciml.nn

PACKAGES = (sciml.autodiff, sciml.nn)
MODULES = sorted(
    {pkg.__name__ for pkg in PACKAGES}
    | {info.name for pkg in PACKAGES for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")}
)
# the public operator API: each function shows an example
DOCUMENTED = ("derivatives", "partial", "laplacian", "biharmonic", "hessian", "grad", "jacobian",
              "linear_operator", "divergence")


@pytest.mark.parametrize("x64", [False, True], ids=["float32", "float64"])
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, x64):
    module = importlib.import_module(name)
    with jax.enable_x64(x64):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (output above)"


@pytest.mark.parametrize("name", DOCUMENTED)
def test_public_api_has_an_example(name):
    """Each function documents its arguments and returns, and has examples (run by the test above)."""
    doc = getattr(sciml.autodiff, name).__doc__
    assert "Args:" in doc and "Returns:" in doc
    (found,) = [t for t in doctest.DocTestFinder().find(sciml.autodiff.api) if t.name.endswith("." + name)]
    assert found.examples
