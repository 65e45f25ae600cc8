"""Case files to typed configs: the ``solver`` key picks the solver record (:class:`~sciml.solver.Solver`) from
``SOLVERS``, whose schema validates the file and whose ``train`` runs it."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

from .config import apply_overrides, read_yaml, suggest, validate
from .errors import ConfigError, UserError
from .solver import Solver
from .solvers.fno import SOLVER as FNO
from .solvers.pinn import SOLVER as PINN

SOLVERS: dict[str, Solver] = {s.name: s for s in (PINN, FNO)}


@dataclass(frozen=True)
class Case:
    path: str
    config: object
    solver: Solver
    overrides: tuple[str, ...] = ()


def load(path: str, overrides=()) -> Case:
    raw = apply_overrides(read_yaml(path), overrides)
    solver = raw.get("solver")
    if solver not in SOLVERS:
        hint = suggest(solver, SOLVERS)
        what = "missing" if solver is None else f"unknown solver {solver!r}"
        raise ConfigError(f"{what}; one of {sorted(SOLVERS)}{hint}", key="solver", source=path)
    record = SOLVERS[solver]
    return Case(path, validate(record.schema, raw, path), record, tuple(overrides))


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
            return case.solver.train(case.config, folder, resume=resume, quiet=quiet)
    except ConfigError as e:  # raised once the problem is assembled (e.g. loss term names)
        raise e.within(case.path, case.overrides) from None


def datagen(case: Case, quiet: bool = True, force: bool = False, workers: int = 1) -> str:
    """Make ``case``'s dataset with its solver's classical solver (``sciml datagen``); the dataset's path.

    A solver that trains on no dataset (``datagen`` is ``None``) is one :class:`UserError` line."""
    if case.solver.datagen is None:
        raise UserError(f"{case.path}: solver {case.solver.name!r} trains on no dataset; nothing to generate")
    return case.solver.datagen(case.config, quiet=quiet, force=force, workers=workers)
