"""sciml: scientific machine learning on JAX.

The Python API is the one the command line uses::

    import sciml
    case = sciml.load_case("cases/plate.yaml", ["training.adam.steps=500"])
    summary = sciml.run_case(case, out="runs/try")
"""
__version__ = "0.1.0"


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
    return case.module.datagen(case.config, quiet=quiet, force=force, workers=workers)


def read_fields(run_dir: str) -> dict:
    """A run's ``fields.h5`` as nested dicts of arrays (e.g. ``fields["w"]["prediction"]``); a missing or
    damaged file is one :class:`~sciml.errors.BadFile` line naming it."""
    import os

    from .io import hdf5

    return hdf5.read(os.path.join(run_dir, "fields.h5"), "fields file")
