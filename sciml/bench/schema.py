"""The schema of a benchmark suite file (``cases/suites/<suite>.yaml``): a :class:`Suite` of :class:`Entry` items.

Validated by :func:`sciml.config.validate`; :mod:`.suite` runs the entries, :mod:`.baseline` checks their
results and :mod:`.report` writes them. Imports go one way: ``suite -> report -> baseline -> schema`` (an
import-linter contract), so this module imports none of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..config import spec
from ..errors import Invalid


@dataclass
class Reference:
    value: float
    source: str = ""


@dataclass
class Sweep:
    key: str = spec(help="dotted key to vary")
    values: list[Any] = spec(help="values of the key")


@dataclass
class Curve:
    """Metrics of one run read as a curve: ``points`` maps each metric to its abscissa."""
    x: str = spec(help="axis label, e.g. 'test resolution s (trained at 85)'")
    points: dict[str, float] = spec(help="metric -> abscissa")


@dataclass
class Tolerance:
    error: float = spec(0.25, ge=0.0, help="relative growth of an error allowed over the baseline")
    speed: float = spec(0.5, ge=0.0, lt=1.0, help="relative drop of a speed allowed under the baseline")


@dataclass
class Entry:
    name: str
    case: str | None = None
    overrides: list[str] = spec(factory=list)
    prepare: list[str] = spec(factory=list, help="a Python script and its arguments, run with the suite's Python "
                                                 "before the datagen and the run (paths from the working "
                                                 "directory): e.g. the script that makes a case's data.file")
    datagen: bool = False
    workers: int = spec(1, ge=1, help="processes of the datagen (sciml datagen --workers), for CPU solvers")
    sweep: Sweep | None = None
    study: str | None = spec(None, help="function name in sciml.bench.studies")
    args: dict[str, Any] = spec(factory=dict, help="keyword arguments of the study")
    metrics: list[str] = spec(factory=list, help="errors to report and check (lower is better)")
    speeds: list[str] = spec(factory=list, help="speeds or speed-ups to report and check (higher is better)")
    costs: list[str] = spec(factory=list, help="time ratios to report and check (lower is better)")
    info: list[str] = spec(factory=list, help="metrics to report without a check (e.g. observed orders)")
    references: dict[str, Reference | list[Reference]] = spec(factory=dict,
                                                              help="published values to show next to ours")
    curve: Curve | None = None
    timeout_s: float | None = spec(None, gt=0, help="per process (default: the suite's)")
    alone: bool | None = spec(None, help="under --jobs, run by itself after the others (default: a study that checks "
                                         "speeds or costs, which it times in its own process)")
    why: str = spec("", help="why an error of the entry may stay above its published value (the report prints it "
                             "under the published errors, beside each one that is)")
    tolerance: Tolerance | None = spec(None, help="the entry's own tolerances against the baseline, for a short run "
                                                  "whose errors move more between machines (default: the suite's; a "
                                                  "field it leaves out takes its default)")

    def check(self):
        if (self.case is None) == (self.study is None):
            raise Invalid("case", "give exactly one of case or study")
        if self.prepare and self.case is None:
            raise Invalid("prepare", "runs before a case; a study prepares what it needs itself")
        if self.prepare and not self.prepare[0].endswith(".py"):
            raise Invalid("prepare", f"starts with the Python script to run (a .py file), not {self.prepare[0]!r}")

    def refs(self, metric: str) -> list[Reference]:
        r = self.references.get(metric, [])
        return r if isinstance(r, list) else [r]


@dataclass
class Suite:
    suite: str
    description: str = ""
    tolerance: Tolerance = field(default_factory=Tolerance)
    timeout_s: float = spec(1800.0, gt=0, help="default time limit of each process an entry starts")
    entries: list[Entry] = spec(factory=list)
