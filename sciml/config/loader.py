"""Reading case files: plain YAML, ``dotted.key=value`` overrides, validation against a schema.

Case files and override values are read by :class:`Loader`: ``yaml.safe_load`` (no Python objects) that also
refuses what a safe load lets pass silently or reports obscurely -- a key given twice in one mapping (named,
with both lines), any tag a safe load cannot construct (``!!python/object``, ``!custom``), bytes that are not
UTF-8, nesting too deep to read. Every failure becomes one :class:`~sciml.errors.ConfigError` line naming the
file (or ``command line``) and, where there is one, the line or the dotted key.
"""
from __future__ import annotations

import copy
import os
from collections.abc import Iterable
from typing import Any

import yaml

from ..errors import ConfigError, Invalid
from .schema import build

_STANDARD = "tag:yaml.org,2002:"


class _Refused(yaml.MarkedYAMLError):
    """A YAML construct a case file may not use (a duplicate key, a tag): ``problem`` says which, ``note``
    where else (for a file of several lines)."""

    def __init__(self, problem: str, mark, note: str = ""):
        super().__init__(problem=problem, problem_mark=mark)
        self.note = note


def _tag(tag: str) -> str:
    return "!!" + tag[len(_STANDARD):] if tag.startswith(_STANDARD) else tag


class Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate mapping keys and names unknown tags as tags."""

    def construct_mapping(self, node, deep=False):
        first: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == _STANDARD + "merge":  # `<<: *anchor` overrides by design
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in first:
                    raise _Refused(f"key {key!r} is given twice", key_node.start_mark,
                                   f" (lines {first[key]} and {line})")
                first[key] = line
            except TypeError:  # an unhashable key: the base class says so
                pass
        return super().construct_mapping(node, deep)

    def construct_undefined(self, node):
        raise _Refused(f"tag {_tag(node.tag)} is not allowed (case files hold plain YAML values, no tags)",
                       node.start_mark)


Loader.add_constructor(None, Loader.construct_undefined)


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def load_text(text: str, source: str, what: str = "malformed YAML", lines: bool = True) -> Any:
    """The YAML value of ``text``, or a one-line :class:`ConfigError` naming ``source`` (``what``: how a
    syntax error begins; ``lines``: name the lines of a refused key or tag, as in a file)."""
    try:
        return yaml.load(text, Loader=Loader)  # noqa: S506 -- a SafeLoader subclass
    except _Refused as e:
        where = f"line {e.problem_mark.line + 1}: " if lines else ""
        raise ConfigError(f"{where}{e.problem}{e.note if lines else ''}", source=source) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ConfigError(f"{what}: {where}{e.problem or e.context}", source=source) from None
    except yaml.reader.ReaderError as e:
        char = e.character if isinstance(e.character, int) else ord(e.character)
        raise ConfigError(f"{what}: line {_line(text, e.position)}: character U+{char:04X} is not allowed in YAML "
                          "(a binary file?)", source=source) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{what}: " + " ".join(str(e).split()), source=source) from None
    except RecursionError:
        raise ConfigError(f"{what}: nested too deeply to read", source=source) from None


def read_yaml(path: str) -> dict:
    """The mapping in a YAML file, or a one-line error for a missing or unreadable file, text that is not
    UTF-8, bad syntax, a duplicate key, a tag, or a value that is not a mapping."""
    if not os.path.isfile(path):
        raise ConfigError("no such case file" if not os.path.exists(path) else "not a file", source=path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        raise ConfigError(f"cannot read: {e.strerror}", source=path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ConfigError(f"not UTF-8 text: byte 0x{raw[e.start]:02x} on line {line}; save the file as UTF-8",
                          source=path) from None
    data = load_text(text, path)
    if data is None:
        raise ConfigError("the file is empty", source=path)
    if not isinstance(data, dict):
        raise ConfigError(f"a case file holds a mapping of sections, got {type(data).__name__}", source=path)
    return data


def parse_override(text: str) -> tuple[list[str], Any]:
    """``a.b.c=value`` -> (["a", "b", "c"], value parsed as YAML, as in a case file)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    parts = key.split(".")
    if not sep or not key or any(not p or p != p.strip() for p in parts):
        raise ConfigError(f"bad override {text!r}: expected dotted.key=value", source="command line")
    if not value.strip():
        return parts, ""
    try:
        return parts, load_text(value, "command line", what=f"bad override value {value!r}", lines=False)
    except ConfigError as e:
        raise ConfigError(e.message, key=key, source="command line") from None


def _step(node: dict, parts: list[str], i: int) -> int:
    """Where the key of ``node`` that ``parts[i:]`` starts with ends: the longest run of parts that, joined by
    dots, is a key already there (an unknown ``patch.x``, a loss term ``left.w``), else one part."""
    return next((j for j in range(len(parts), i + 1, -1) if ".".join(parts[i:j]) in node), i + 1)


def apply_overrides(data: dict, overrides: Iterable[str]) -> dict:
    """A copy of ``data`` with each ``dotted.key=value`` set (intermediate mappings are created; a dotted key
    of the file is matched whole, :func:`_step`)."""
    data = copy.deepcopy(data)
    for text in overrides:
        parts, value = parse_override(text)
        node, i = data, 0
        while (j := _step(node, parts, i)) < len(parts):
            nxt = node.get(".".join(parts[i:j]))
            if nxt is None:
                nxt = node[".".join(parts[i:j])] = {}
            if not isinstance(nxt, dict):
                raise ConfigError(f"cannot set {'.'.join(parts)}: {'.'.join(parts[:j])} is not a mapping",
                                  key=".".join(parts), source="command line")
            node, i = nxt, j
        node[".".join(parts[i:])] = value
    return data


def validate(schema, data: dict, source: str):
    """Build the typed config or raise a ConfigError naming ``source`` and the dotted key."""
    try:
        return build(schema, data)
    except Invalid as e:
        raise ConfigError(e.message, key=e.key, source=source) from None
