"""A small typed schema: dataclasses with type hints are the schema, and ``build`` validates raw YAML.

Supported annotations: ``int``, ``float``, ``bool``, ``str``, ``Literal[...]``, ``list[T]``, ``tuple[T, ...]``,
``tuple[T1, T2]``, ``dict[str, T]``, ``T | None``, nested dataclasses, and unions of dataclasses told apart
by their ``type: Literal[...]`` field (a tagged union). Bounds and help come from :func:`spec`. A dataclass
may define ``check(self)`` for cross-field rules, raising :class:`~sciml.errors.Invalid`, and say how the keys
of an older form are written now: a table ``renamed`` (``{old: new}``, a class variable) or a hook
``unknown_key(key, value)`` returning the line to write.

Numbers are finite (``.inf``, ``.nan`` and ``1e400`` are refused, in untyped values too); an ``int`` may be
written as a whole float (``1e3``, ``2.0``) and lies within int64. Bounds apply to a number, to each item of a
list and to each value of a mapping. Every error names the dotted key and, for unknown keys, suggests the
closest valid one.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import re
import types
import typing
from typing import Annotated, Any, Literal, Union

from ..errors import Invalid

_MISSING = dataclasses.MISSING


def spec(default: Any = _MISSING, *, ge=None, gt=None, le=None, lt=None, help: str = "", factory=None):
    """A dataclass field with bounds (``ge``/``gt``/``le``/``lt``) and a help text."""
    meta = {"ge": ge, "gt": gt, "le": le, "lt": lt, "help": help}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


class Registry:
    """Annotation metadata for a tagged union whose members live in a table that can grow at run time.

    ``Annotated[object, Registry(EQUATIONS)]`` accepts any dataclass ``table[tag][0]`` selected by the
    mapping's ``type`` key; user code can add entries (e.g. a new equation defined in a notebook) before a
    case is validated.
    """

    def __init__(self, table: dict, pick=lambda entry: entry[0]):
        self.table, self.pick = table, pick

    def members(self) -> dict:
        return {tag: self.pick(entry) for tag, entry in self.table.items()}


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def suggest(word, options, otherwise: str = "") -> str:
    """`` (did you mean 'x'?)`` naming the option closest to ``word``, or ``otherwise`` when none is close."""
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else otherwise


class WrongKind(Invalid):
    """A value the annotation does not take, ``expected <kind>, got <what>``: where every member of a union
    refuses the value so, :func:`build` names all their kinds in one message."""

    def __init__(self, key: str, kind: str, got: str):
        super().__init__(key, f"expected {kind}, got {got}")
        self.kind = kind


def _describe(value: Any) -> str:
    return "null" if value is None else f"{type(value).__name__} {value!r}"


_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
INT64 = 2 ** 63


def _number(raw):
    """``raw`` as an ``int`` or ``float`` if it is one (not a bool) or is text a number is written as (YAML 1.1
    reads ``1e-3`` and ``1e12``, with no dot, as strings); else None."""
    if isinstance(raw, str) and _NUMBER.fullmatch(raw.strip()):
        return float(raw)
    return raw if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None


def _finite(value) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def _real(raw, path: str) -> float:
    """A finite float: a number, or text written as one; ``.inf``, ``.nan`` and ``1e400`` are refused."""
    value = _number(raw)
    if value is None:
        raise WrongKind(path, "a number", _describe(raw))
    if not _finite(value):
        raise Invalid(path, f"must be a finite number, got {raw}")
    return float(value)


def _integer(raw, path: str) -> int:
    """An int: an integer, or a float or text with a whole value (``1e3``, ``2.0``), within int64."""
    value = _number(raw)
    if value is None:
        raise WrongKind(path, "an integer", _describe(raw))
    if isinstance(value, float) and not value.is_integer():
        why = "not a whole number" if _finite(value) else "not a finite number"
        raise WrongKind(path, "an integer", f"{raw} ({why})")
    if not -INT64 <= int(value) < INT64:
        raise Invalid(path, f"{raw} is out of range (|n| < 2**63)")
    return int(value)


def _check_finite(raw, path: str) -> None:
    """No infinity or NaN anywhere in ``raw`` (a value the schema leaves untyped)."""
    if isinstance(raw, dict):
        for k, v in raw.items():
            _check_finite(v, _join(path, k))
    elif isinstance(raw, (list, tuple)):
        for i, v in enumerate(raw):
            _check_finite(v, f"{path}[{i}]")
    elif isinstance(raw, float) and not _finite(raw):
        raise Invalid(path, f"must be a finite number, got {raw}")


def _is_tagged_union(members) -> bool:
    return all(dataclasses.is_dataclass(m) for m in members) and all(
        "type" in {f.name for f in dataclasses.fields(m)} for m in members
    )


def _tag(cls) -> str:
    return typing.get_args(typing.get_type_hints(cls)["type"])[0]


def _check_bounds(value, meta, path):
    for name, op, word in (("ge", float.__ge__, ">="), ("gt", float.__gt__, ">"),
                           ("le", float.__le__, "<="), ("lt", float.__lt__, "<")):
        bound = meta.get(name)
        if bound is not None and not op(float(value), float(bound)):
            raise Invalid(path, f"must be {word} {bound}, got {value}")


def _build_dataclass(cls, raw, path):
    if not isinstance(raw, dict):
        raise WrongKind(path, f"a mapping with keys {[f.name for f in dataclasses.fields(cls)]}", _describe(raw))
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in raw:
        if key not in fields:
            raise Invalid(_join(path, key), _moved(cls, key, raw[key], path) or "unknown key" + suggest(key, fields))
    values = {}
    for name, f in fields.items():
        if name in raw:
            values[name] = build(hints[name], raw[name], _join(path, name))
            if values[name] is not None:
                _check_bounds_if_number(values[name], f.metadata, _join(path, name))
        elif f.default is _MISSING and f.default_factory is _MISSING:
            raise Invalid(_join(path, name), "missing required key" + (
                f" ({f.metadata['help']})" if f.metadata.get("help") else ""))
    obj = cls(**values)
    if hasattr(obj, "check"):
        try:
            obj.check()
        except Invalid as e:
            raise Invalid(_join(path, e.key), e.message) from None
    return obj


def _moved(cls, key: str, value, path: str) -> str | None:
    """How a key of an older form is written now, or None: a key of the section's table ``renamed`` (old name ->
    new) names the new key, ``unknown_key(key, value)`` (a hook) gives the line to write."""
    new = getattr(cls, "renamed", {}).get(key)
    if new is not None:
        return f"renamed: write {_join(path, new)}"
    return getattr(cls, "unknown_key", lambda k, v: None)(key, value)


def _check_bounds_if_number(value, meta, path):
    """Bounds hold for a number, each number of a list and each value of a mapping (``{pde: 1, bc: 10}``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_bounds(value, meta, path)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_bounds_if_number(v, meta, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_bounds_if_number(v, meta, _join(path, k))


def _build_tagged(tags: dict, raw, path: str):
    if isinstance(raw, dict) and "type" not in raw and len(tags) == 1:  # one member: its tag may be left out
        raw = {"type": next(iter(tags)), **raw}
    if not isinstance(raw, dict) or "type" not in raw:
        raise Invalid(_join(path, "type"), f"missing; one of {sorted(tags)}")
    if raw["type"] not in tags:
        raise Invalid(_join(path, "type"), f"unknown type {raw['type']!r}; one of {sorted(tags)}"
                      + suggest(raw["type"], tags))
    return _build_dataclass(tags[raw["type"]], raw, path)


def build(tp, raw, path: str = ""):
    """Validate ``raw`` (parsed YAML) against annotation ``tp``; return the typed value."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        _check_finite(raw, path)
        return raw
    if origin is Annotated:
        registry = next((m for m in tp.__metadata__ if isinstance(m, Registry)), None)
        if registry is not None:
            return _build_tagged(registry.members(), raw, path)
        return build(args[0], raw, path)
    if dataclasses.is_dataclass(tp):
        return _build_dataclass(tp, raw, path)
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if raw is None:
            if type(None) in args:
                return None
            raise Invalid(path, "must not be empty")
        if _is_tagged_union(members):
            return _build_tagged({_tag(m): m for m in members}, raw, path)
        errors = []
        for m in members:
            try:
                return build(m, raw, path)
            except Invalid as e:
                errors.append(e)
        kinds = [e.kind for e in errors if isinstance(e, WrongKind) and e.key == path]
        if len(kinds) == len(errors) > 1:  # no member takes this kind of value: name them all
            raise Invalid(path, f"expected {' or '.join(kinds)}, got {_describe(raw)}")
        raise errors[-1]
    if origin is Literal:
        if raw not in args:
            raise Invalid(path, f"must be one of {list(args)}, got {raw!r}" + suggest(raw, args))
        return raw
    if tp is bool:
        if not isinstance(raw, bool):
            raise WrongKind(path, "true or false", _describe(raw))
        return raw
    if tp is int:
        return _integer(raw, path)
    if tp is float:
        return _real(raw, path)
    if tp is str:
        if not isinstance(raw, str):
            raise WrongKind(path, "a string", _describe(raw))
        return raw
    if origin in (list, tuple):
        if not isinstance(raw, (list, tuple)):
            raise WrongKind(path, "a list", _describe(raw))
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(raw) != len(args):
                raise WrongKind(path, f"a list of {len(args)} items", str(len(raw)))
            return tuple(build(a, r, f"{path}[{i}]") for i, (a, r) in enumerate(zip(args, raw)))
        item = args[0] if args else Any
        out = [build(item, r, f"{path}[{i}]") for i, r in enumerate(raw)]
        return tuple(out) if origin is tuple else out
    if origin is dict:
        if not isinstance(raw, dict):
            raise WrongKind(path, "a mapping", _describe(raw))
        kt, vt = args if args else (Any, Any)
        return {build(kt, k, path): build(vt, v, _join(path, k)) for k, v in raw.items()}
    raise TypeError(f"schema annotation {tp!r} at {path!r} is not supported")


def to_dict(obj) -> Any:
    """The plain-data form of a typed config (for writing the resolved ``config.yaml``)."""
    if dataclasses.is_dataclass(obj):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {k: to_dict(v) for k, v in obj.items()}
    return obj
