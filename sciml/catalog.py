"""The case files and benchmark suites shipped with sciml, and how a name on the command line finds one.

They install as the data package ``sciml.cases_data`` (the repository's ``cases/`` folder, mapped by
``setup.py``): ``NAME.yaml`` cases, ``suites/NAME.yaml`` suites, ``suites/baselines/<cpu|gpu>/NAME.json``
their baselines. A reference resolves by one rule, the same for cases and suites:

- a path to an existing file is that file (``cases/plate.yaml``, ``~/my_case.yaml``): paths work as they did
  before cases were shipped;
- otherwise a bare name (no folder; ``.yaml`` optional) is ``NAME.yaml`` in the working directory's
  ``cases/`` (``cases/suites/`` for a suite) if there is one, else the shipped file of that name:
  ``sciml run plate``, ``sciml bench smoke`` work from any folder, and a checkout's own files come first;
- otherwise it is one :class:`~sciml.errors.ConfigError` line naming the reference and the names there are.

A suite's baseline lies beside the suite file (:func:`sciml.bench.baseline.baseline_path`).

Files are read where the package lies (an installed wheel or an editable checkout); a zipped install is not
supported. This module imports nothing heavy: ``sciml cases`` lists without loading JAX.
"""
from __future__ import annotations

import os
from importlib import resources

from .errors import ConfigError

PACKAGE = "sciml.cases_data"
LOCAL = "cases"  # the working directory's own cases, searched before the shipped ones
SUFFIX = ".yaml"
LINE = 100  # characters of a description shown by ``sciml cases``


def root() -> str:
    """The folder holding the shipped cases (``suites/`` inside it)."""
    return str(resources.files(PACKAGE))


def suites_dir() -> str:
    return os.path.join(root(), "suites")


def _names(*folders: str) -> list[str]:
    return sorted({f[: -len(SUFFIX)] for d in folders if os.path.isdir(d) for f in os.listdir(d) if f.endswith(SUFFIX)})


def _bare(ref: str) -> str | None:
    """The name in ``ref`` if it names no folder (``plate`` or ``plate.yaml``), else None."""
    if not ref or os.sep in ref or "/" in ref or ref.startswith("."):
        return None
    return ref[: -len(SUFFIX)] if ref.endswith(SUFFIX) else ref


def _resolve(ref: str, folders: tuple[str, ...], kind: str) -> str:
    name = _bare(ref)
    found = [p for p in (os.path.join(d, name + SUFFIX) for d in folders) if os.path.isfile(p)] if name else []
    if os.path.isfile(ref) or (os.path.exists(ref) and not found):  # a path (the reader says if it is no file)
        return ref
    if found:
        return found[0]
    raise ConfigError(f"no such {kind} file; {kind}s by name: {', '.join(_names(*folders)) or 'none'} "
                      "(sciml cases lists them)", source=ref)


def case_path(ref: str) -> str:
    """The case file ``ref`` names: an existing path, else a case's name (see the module's rule)."""
    return _resolve(ref, (LOCAL, root()), "case")


def suite_path(ref: str) -> str:
    """The suite file ``ref`` names: an existing path, else a suite's name."""
    return _resolve(ref, (os.path.join(LOCAL, "suites"), suites_dir()), "suite")


def describe_case(path: str) -> str:
    """A case file's first comment line (its title), without the ``#``."""
    with open(path, encoding="utf-8") as fh:
        first = next((line for line in fh if line.strip()), "")
    return first.lstrip("#").strip() if first.lstrip().startswith("#") else ""


def describe_suite(path: str) -> str:
    """A suite's ``description`` up to its first full stop."""
    import yaml

    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    text = " ".join(str(data.get("description", "")).split()) if isinstance(data, dict) else ""
    return text.split(". ", 1)[0].rstrip(".")


def _short(text: str) -> str:
    return text if len(text) <= LINE else text[: LINE - 1].rstrip() + "…"


def listing() -> str:
    """What ``sciml cases`` prints: each shipped case and suite, one line each."""
    blocks = [("cases (sciml run NAME, sciml show NAME)", root(), describe_case),
              ("suites (sciml bench NAME)", suites_dir(), describe_suite)]
    lines = []
    for title, folder, describe in blocks:
        names = _names(folder)
        width = max(map(len, names), default=0)
        lines += [f"{title}:"] + [f"  {n:<{width}}  {_short(describe(os.path.join(folder, n + '.yaml')))}"
                                  for n in names]
    return "\n".join(lines)
