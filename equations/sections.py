"""An ``equation`` section's numbers by dotted name: what unknowns, families and curricula vary.

A section is the case file's ``equation`` dataclass; its numbers are its int and float fields, those of its
subsections by dotted name (the plate's ``patch.x``). :meth:`~sciml.equations.Equation.at` poses an equation at
other values of them through :func:`replace`.
"""
from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any


def numbers(section, prefix: str = "") -> dict[str, float]:
    """``{dotted name: value}`` of the numbers ``section`` sets (booleans are not numbers)."""
    out: dict[str, float] = {}
    for f in dataclasses.fields(section):
        v = getattr(section, f.name)
        if dataclasses.is_dataclass(v):
            out.update(numbers(v, f"{prefix}{f.name}."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[prefix + f.name] = v
    return out


def replace(section, values: Mapping[str, Any]):
    """``section`` with the numbers ``{dotted name: value}`` replaced (values may be traced)."""
    inner: dict[str, dict] = {}
    for name, v in values.items():
        head, _, rest = name.partition(".")
        inner.setdefault(head, {}).update({rest: v} if rest else {"": v})
    return dataclasses.replace(section, **{k: v[""] if "" in v else replace(getattr(section, k), v)
                                           for k, v in inner.items()})


def leaves(section, prefix: str = "") -> dict[str, Any]:
    """``{dotted name: value}`` of the section's numbers typed ``float`` (or ``float | None`` and set): the
    leaves of an equation as a pytree (:mod:`.base`), each of which may be traced. Integers (a seed, a count) and
    fields that also take an expression (a load ``q(x, y)``) are the equation's structure."""
    hints = typing.get_type_hints(type(section))
    out: dict[str, Any] = {}
    for f in dataclasses.fields(section):
        v = getattr(section, f.name)
        if dataclasses.is_dataclass(v):
            out.update(leaves(v, f"{prefix}{f.name}."))
        elif v is not None and hints[f.name] in (float, float | None):
            out[prefix + f.name] = v
    return out
