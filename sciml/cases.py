"""Case files to typed configs: the ``solver`` key picks the solver record (:class:`~sciml.solver.Solver`) from
``SOLVERS``, whose schema validates the file and whose ``train`` runs it.

:func:`load` is the one place a case is judged, for every command (``show``, ``run``, ``datagen``, the
notebooks): the file and overrides are read (:mod:`sciml.config.loader`), validated against the solver's
schema, the case name checked as a plain name (it names the run folder), and the solver's ``check`` run
(rules that need the assembled problem). A case that loads is one ``run`` accepts, up to what only the
machine can tell (devices, a dataset on disk).
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

from .config import apply_overrides, read_yaml, suggest, validate
from .errors import ConfigError, Invalid, UserError
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


PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_name(name: str) -> None:
    """A case name is a plain name (it names the folder ``runs/<case>/``): letters, digits, ``.``, ``_``,
    ``-``, beginning with a letter or digit; :class:`Invalid` at key ``case`` otherwise."""
    if not PLAIN_NAME.fullmatch(name):
        raise Invalid("case", f"must be a plain name (letters, digits, '.', '_', '-'; no '/' and no leading '.'), "
                              f"got {name!r}")


def load(path: str, overrides=()) -> Case:
    """The case in YAML file ``path`` with ``dotted.key=value`` overrides, validated (module notes); any
    mistake is one :class:`ConfigError` naming the file (or the command line) and the key."""
    raw = apply_overrides(read_yaml(path), overrides)
    solver = raw.get("solver")
    if not isinstance(solver, str) or solver not in SOLVERS:
        hint = suggest(solver, SOLVERS)
        what = "missing" if solver is None else f"unknown solver {solver!r}"
        raise ConfigError(f"{what}; one of {sorted(SOLVERS)}{hint}", key="solver", source=path)
    record = SOLVERS[solver]
    config = validate(record.schema, raw, path)
    try:
        check_name(config.case)
        if record.check is not None:
            record.check(config)
    except Invalid as e:
        raise ConfigError(e.message, key=e.key, source=path) from None
    except ConfigError as e:
        raise e.within(path) from None
    return Case(path, config, record, tuple(overrides))


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
