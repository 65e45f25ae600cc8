"""The generated references: every key of every shipped case is named in the case-file reference, and every
sub-command in the CLI reference (no training, no compiling)."""
from __future__ import annotations

import glob
import os

import pytest
import yaml

from sciml.cases import SOLVERS
from sciml.cli import parser
from sciml.config.reference import NAME, case_reference, cli_reference, keys

CASES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "cases", "*.yaml")))


def _documented(raw, path: str, known: set[str]):
    """Each key of ``raw`` (a case's YAML) as the reference writes it, ``<name>`` for a key the user names;
    a key the reference does not name is yielded as None beside its path."""
    for key, value in raw.items():
        exact = f"{path}.{key}" if path else str(key)
        named = f"{path}.{NAME}" if path else NAME
        found = exact if exact in known else named if _names(named, known) else None
        yield exact, found
        if found is None:
            continue
        if isinstance(value, dict) and any(k.startswith(found + ".") for k in known):
            yield from _documented(value, found, known)
        elif isinstance(value, list) and any(k.startswith(found + "[].") for k in known):
            for item in value:
                if isinstance(item, dict):
                    yield from _documented(item, found + "[]", known)


def _names(key: str, known: set[str]) -> bool:
    """The reference names ``key``: as a row, or as the start of its rows (``unknowns.<name>.initial``)."""
    return key in known or any(k.startswith(key + ".") for k in known)


def _in(key: str, text: str) -> bool:
    return f"`{key}`" in text or f"`{key}." in text


def test_cases_found():
    assert len(CASES) >= 30


@pytest.mark.parametrize("path", CASES, ids=os.path.basename)
def test_every_key_of_a_shipped_case_is_in_the_reference(path):
    with open(path) as f:
        raw = yaml.safe_load(f)
    schema = SOLVERS[raw["solver"]].schema
    text = case_reference({raw["solver"]: schema})
    known = keys(schema)
    checked = list(_documented(raw, "", known))
    missing = [key for key, found in checked if found is None or not _in(found, text)]
    assert not missing, f"{os.path.basename(path)}: not in the case-file reference: {missing}"
    assert len(checked) >= 5


def test_reference_lists_each_solver_and_section():
    text = case_reference({name: s.schema for name, s in SOLVERS.items()})
    for name in SOLVERS:
        assert f"## `solver: {name}`" in text
    assert "`training.adam.steps` | integer | `5000` | ≥ 0" in text
    assert "`sampling.boxes.<name>.points`" in text
    assert "### `equation` with `type: kirchhoff_plate`" in text


def test_cli_reference_names_every_command_and_option():
    text = cli_reference(parser())
    for command in ("run", "show", "cases", "datagen", "export", "predict", "bench"):
        assert f"## `sciml {command}`" in text
    for option in ("--resume RUN_DIR", "--no-plots", "--workers N"):
        assert f"`{option}`" in text


def test_a_key_the_schema_lacks_is_found_missing():
    known = keys(SOLVERS["pinn"].schema)
    raw = {"training": {"adam": {"stpes": 1}}, "unknowns": {"D": {"initial": 1, "bound": [0, 2]}}}
    missing = [key for key, found in _documented(raw, "", known) if found is None]
    assert missing == ["training.adam.stpes", "unknowns.<name>.bound"]
