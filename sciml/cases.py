"""Case files to typed configs: the ``solver`` key picks the schema and the driver from ``SOLVERS``."""
from __future__ import annotations

import contextlib
import importlib
from dataclasses import dataclass
from typing import Callable

from .config import apply_overrides, read_yaml, suggest, validate
from .errors import ConfigError

# solver -> (module, schema class name). The module provides ``train(config, out, resume=None, quiet=False)``
# returning the summary dict, and optionally ``datagen(config, quiet=False)`` for solvers trained on data.
SOLVERS = {"pinn": ("sciml.solvers.pinn", "PinnCase"),
           "fno": ("sciml.solvers.fno", "FnoCase")}


@dataclass(frozen=True)
class Case:
    path: str
    config: object
    module: object
    overrides: tuple[str, ...] = ()

    @property
    def driver(self) -> Callable:
        return self.module.train


def load(path: str, overrides=()) -> Case:
    raw = apply_overrides(read_yaml(path), overrides)
    solver = raw.get("solver")
    if solver not in SOLVERS:
        hint = suggest(solver, SOLVERS)
        what = "missing" if solver is None else f"unknown solver {solver!r}"
        raise ConfigError(f"{what}; one of {sorted(SOLVERS)}{hint}", key="solver", source=path)
    module, schema = SOLVERS[solver]
    mod = importlib.import_module(module)
    return Case(path, validate(getattr(mod, schema), raw, path), mod, tuple(overrides))


def run(case: Case, out: str | None = None, resume: str | None = None, quiet: bool = False) -> dict:
    """Train ``case`` into a run folder (new under ``runs/<case>/``, ``out``, or ``resume``'s); the summary.

    The one entry of the CLI and the notebooks: it starts ``jax.distributed`` when the case's ``parallel``
    section (or the environment) asks for several processes, turns the persistent compilation cache on
    (:func:`sciml.compile.enable_cache`), and makes the run folder on process 0 only, which holds it
    (:func:`sciml.rundir.hold`: a second run on a folder a live run holds is refused).
    """
    from . import compile, parallel, rundir

    try:
        parallel.initialize(case.config.parallel)
        parallel.mesh(case.config.parallel)  # more devices than there are: say so before making a folder
        compile.enable_cache()
        writer = parallel.is_writer()
        folder = resume or (rundir.create(case.config.case, out) if writer else out or "")
        with rundir.hold(folder) if writer else contextlib.nullcontext():
            return case.driver(case.config, folder, resume=resume, quiet=quiet)
    except ConfigError as e:  # raised once the problem is assembled (e.g. loss term names)
        raise e.within(case.path, case.overrides) from None
