"""Case files to typed configs: the ``solver`` key picks the solver record (:class:`~sciml.solver.Solver`) from
``SOLVERS``, whose schema validates the file and whose ``train`` runs it.

A case comes from one of three sources (:data:`SOURCES`, tried in order): a mapping (as ``yaml.safe_load``
gives), YAML text (a string holding a line break), or a case file named by path or by name
(:func:`sciml.catalog.case_path`: ``plate`` is the shipped ``plate.yaml``). Errors name the file, or
``<mapping>`` / ``<YAML text>``.

:func:`load` is the one place a case is judged, for every command (``show``, ``run``, ``datagen``, the
notebooks): the case and overrides are read (:func:`read`, :mod:`sciml.config.loader`), validated against
the solver's schema, the case name checked as a plain name (it names the run folder), and the solver's
``check`` run (rules that need the assembled problem). A case that loads is one ``run`` accepts, up to what only the
machine can tell (devices, a dataset on disk).
"""
from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .catalog import case_path
from .config import apply_overrides, load_text, read_yaml, suggest, validate
from .errors import ConfigError, Invalid, UserError
from .solver import CaseConfig, Solver
from .solvers.fno import SOLVER as FNO
from .solvers.pinn import SOLVER as PINN

SOLVERS: dict[str, Solver] = {s.name: s for s in (PINN, FNO)}


@dataclass(frozen=True)
class Case:
    path: str
    config: CaseConfig
    solver: Solver
    overrides: tuple[str, ...] = ()


PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_name(name: str) -> None:
    """A case name is a plain name (it names the folder ``runs/<case>/``): letters, digits, ``.``, ``_``,
    ``-``, beginning with a letter or digit; :class:`Invalid` at key ``case`` otherwise."""
    if not PLAIN_NAME.fullmatch(name):
        raise Invalid("case", f"must be a plain name (letters, digits, '.', '_', '-'; no '/' and no leading '.'), "
                              f"got {name!r}")


def _text(text: str) -> Any:
    return load_text(text, "<YAML text>")


def _file(ref: str) -> tuple[str, Any]:
    path = case_path(ref)
    return path, read_yaml(path)


# (is this the source?, source -> (its name in errors, the raw mapping)), the first that matches reads it
SOURCES: list[tuple[Callable[[Any], bool], Callable[[Any], tuple[str, Any]]]] = [
    (lambda s: isinstance(s, dict), lambda s: ("<mapping>", s)),
    (lambda s: isinstance(s, str) and "\n" in s, lambda s: ("<YAML text>", _text(s))),
    (lambda s: isinstance(s, (str, os.PathLike)), lambda s: _file(os.fspath(s))),
]


def read(source) -> tuple[str, dict]:
    """``(name, raw mapping)`` of a case given as a mapping, YAML text, or a file's path or name."""
    reader = next((r for matches, r in SOURCES if matches(source)), None)
    if reader is None:
        raise UserError(f"a case is a file's path or name, a mapping or YAML text, not {type(source).__name__}")
    name, raw = reader(source)
    if not isinstance(raw, dict):
        raise ConfigError(f"a case holds a mapping of sections, got {type(raw).__name__}", source=name)
    return name, raw


def load(source, overrides=()) -> Case:
    """Read (:func:`read`), override and validate a case (module notes); ``Case.path`` is its name in errors,
    and any mistake is one :class:`ConfigError` naming it (or the command line) and the key."""
    path, raw = read(source)
    raw = apply_overrides(raw, overrides)
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


@contextlib.contextmanager
def trained(run_dir: str) -> Iterator[tuple[Case, tuple]]:
    """``(case, (fn, input_shape, dtype, meta))``: a run's case (its ``config.yaml``) and the trained prediction
    function its solver's ``export_model`` builds from the run's checkpoint, within the case's dtype policy
    (float64 on for a float64 case), where ``fn`` must also be traced and called."""
    from .compile import Policy

    case = load(os.path.join(run_dir, "config.yaml"))
    if case.solver.export_model is None:
        raise UserError(f"solver {case.solver.name!r} has no export")
    with Policy.of(case.config.dtype).precision():
        yield case, case.solver.export_model(case.config, run_dir)


def datagen(case: Case, quiet: bool = True, force: bool = False, workers: int = 1) -> str:
    """Make ``case``'s dataset with its solver's classical solver (``sciml datagen``); the dataset's path.

    A solver that trains on no dataset (``datagen`` is ``None``) is one :class:`UserError` line."""
    if case.solver.datagen is None:
        raise UserError(f"{case.path}: solver {case.solver.name!r} trains on no dataset; nothing to generate")
    try:
        return case.solver.datagen(case.config, quiet=quiet, force=force, workers=workers)
    except ConfigError as e:  # a key of the case (a PINN case without observations)
        raise e.within(case.path, case.overrides) from None
