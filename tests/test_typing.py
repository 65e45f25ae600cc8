"""jaxtyping is for readers and type checkers only: sciml imports and runs without it (it is a dev extra)."""
import subprocess
import sys
import textwrap

_SCRIPT = textwrap.dedent("""
    import importlib, pkgutil, sys

    class Block:  # an environment without jaxtyping
        def find_spec(self, name, path=None, target=None):
            if name == "jaxtyping" or name.startswith("jaxtyping."):
                raise ModuleNotFoundError(f"No module named {name!r}")

    sys.meta_path.insert(0, Block())
    names = []
    for package in ("sciml", "sciml.equations", "sciml.solvers"):
        found = importlib.import_module(package)
        names += [m.name for m in pkgutil.walk_packages(found.__path__, package + ".")
                  if not m.name.endswith("__main__")]  # importing __main__ runs the CLI
    for name in names:
        importlib.import_module(name)
    import jax.numpy as jnp
    from sciml import autodiff as ad
    from sciml.nn import mlp
    f = lambda x: mlp.apply(mlp.init(__import__("jax").random.PRNGKey(0), [2, 8, 1]), x)[..., 0]
    print(len(names), float(ad.laplacian(f)(jnp.ones((3, 2))).sum() * 0.0), "jaxtyping" in sys.modules)
""")


def test_sciml_imports_and_runs_without_jaxtyping():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    count, value, imported = out.stdout.split()
    assert int(count) > 50  # the modules of sciml, sciml.equations and sciml.solvers were imported
    assert value == "0.0" and imported == "False"
