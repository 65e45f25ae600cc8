"""Reading case files: ``yaml.safe_load``, ``dotted.key=value`` overrides, validation against a schema.

Every failure becomes a :class:`~sciml.errors.ConfigError` naming the file and the dotted key.
"""
from __future__ import annotations

import copy
import os
from typing import Any, Iterable

import yaml

from ..errors import ConfigError, Invalid
from .schema import build


def read_yaml(path: str) -> dict:
    """The mapping in a YAML file, or a one-line error for a missing file, bad syntax or a non-mapping."""
    if not os.path.isfile(path):
        raise ConfigError("no such case file" if not os.path.exists(path) else "not a file", source=path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ConfigError(f"malformed YAML: {where}{e.problem or e}", source=path) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"malformed YAML: {e}", source=path) from None
    if data is None:
        raise ConfigError("the file is empty", source=path)
    if not isinstance(data, dict):
        raise ConfigError(f"a case file holds a mapping of sections, got {type(data).__name__}", source=path)
    return data


def parse_override(text: str) -> tuple[list[str], Any]:
    """``a.b.c=value`` -> (["a", "b", "c"], value parsed as YAML)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    parts = key.split(".")
    if not sep or not key or any(not p or p != p.strip() for p in parts):
        raise ConfigError(f"bad override {text!r}: expected dotted.key=value", source="command line")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        raise ConfigError(f"bad override value {value!r}", key=key, source="command line") from None
    return parts, parsed


def apply_overrides(data: dict, overrides: Iterable[str]) -> dict:
    """A copy of ``data`` with each ``dotted.key=value`` set (intermediate mappings are created)."""
    data = copy.deepcopy(data)
    for text in overrides:
        parts, value = parse_override(text)
        node = data
        for i, p in enumerate(parts[:-1]):
            nxt = node.get(p)
            if nxt is None:
                nxt = node[p] = {}
            if not isinstance(nxt, dict):
                raise ConfigError(f"cannot set {'.'.join(parts)}: {'.'.join(parts[:i + 1])} is not a mapping",
                                  key=".".join(parts), source="command line")
            node = nxt
        node[parts[-1]] = value
    return data


def validate(schema, data: dict, source: str):
    """Build the typed config or raise a ConfigError naming ``source`` and the dotted key."""
    try:
        return build(schema, data)
    except Invalid as e:
        raise ConfigError(e.message, key=e.key, source=source) from None
