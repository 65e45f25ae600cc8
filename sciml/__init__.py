"""sciml: scientific machine learning on JAX.

The Python API is the one the command line uses::

    import sciml
    case = sciml.load_case("plate", ["training.adam.steps=500"])   # a shipped case, a path, a dict or YAML text
    summary = sciml.run_case(case, out="runs/try")
    run = sciml.load_run("runs/try")     # run.summary, run.metrics["loss"], run.fields, run.predict(points)

This package's own module is a front door (it reaches the solvers through :mod:`sciml.cases`), so library
code imports the modules it needs, never ``sciml`` itself; the version lives in :mod:`sciml.version`.
"""
from .version import __version__


def load_case(source, overrides=()):
    """Read and validate a case with ``dotted.key=value`` overrides: ``source`` is a case file's path or a
    shipped case's name (``"plate"``), a dict, or YAML text (a string with a line break); see
    :mod:`sciml.cases`."""
    from .cases import load

    return load(source, list(overrides))


def run_case(case, out: str | None = None, resume: str | None = None, quiet: bool = False,
             plots: bool | None = None) -> dict:
    """Train a loaded case into a run folder and return its summary. ``plots=False`` writes no figures (as
    ``sciml run --no-plots``); None (the default): as the environment's ``SCIML_PLOTS`` says (on unless off)."""
    import contextlib

    from . import plots as figures
    from .cases import run

    with contextlib.nullcontext() if plots is None else figures.writing(plots):
        return run(case, out, resume, quiet)


def datagen_case(case, quiet: bool = True, force: bool = False, workers: int = 1) -> str:
    """Make a case's dataset with its classical solver (``sciml datagen``); returns the dataset path."""
    from .cases import datagen

    return datagen(case, quiet, force, workers)


def read_fields(run_dir: str) -> dict:
    """A run's ``fields.h5`` as nested dicts of arrays (:func:`sciml.rundir.read_fields`)."""
    from .rundir import read_fields

    return read_fields(run_dir)


def load_run(run_dir: str):
    """A run folder read back: ``summary``, ``metrics`` (column arrays), ``fields`` and ``predict`` (the
    trained model), see :mod:`sciml.results`."""
    from .results import load_run

    return load_run(run_dir)


__all__ = ["__version__", "datagen_case", "load_case", "load_run", "read_fields", "run_case"]
