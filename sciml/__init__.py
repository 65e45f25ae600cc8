"""sciml: scientific machine learning on JAX.

The Python API is the one the command line uses::

    import sciml
    case = sciml.load_case("cases/plate.yaml", ["training.adam.steps=500"])
    summary = sciml.run_case(case, out="runs/try")

This package's own module is a front door (it reaches the solvers through :mod:`sciml.cases`), so library
code imports the modules it needs, never ``sciml`` itself; the version lives in :mod:`sciml.version`.
"""
from .version import __version__


def load_case(path: str, overrides=()):
    """Read and validate a case file with ``dotted.key=value`` overrides (see :mod:`sciml.cases`)."""
    from .cases import load

    return load(path, list(overrides))


def run_case(case, out: str | None = None, resume: str | None = None, quiet: bool = False) -> dict:
    """Train a loaded case into a run folder and return its summary."""
    from .cases import run

    return run(case, out, resume, quiet)


def datagen_case(case, quiet: bool = True, force: bool = False, workers: int = 1) -> str:
    """Make a case's dataset with its classical solver (``sciml datagen``); returns the dataset path."""
    from .cases import datagen

    return datagen(case, quiet, force, workers)


def read_fields(run_dir: str) -> dict:
    """A run's ``fields.h5`` as nested dicts of arrays (:func:`sciml.rundir.read_fields`)."""
    from .rundir import read_fields

    return read_fields(run_dir)


__all__ = ["__version__", "datagen_case", "load_case", "read_fields", "run_case"]
