"""Reference pages written from the code: every key of a case-file schema, every argument of a command line.

The documentation site builds its case-file and CLI references with these (``docs/hooks.py``), so neither can
drift from the code. :func:`case_reference` reads the dataclasses of :mod:`sciml.config.schema`: a key's type,
default, bounds and help text are those of its ``spec(...)``; a mapping of names to sections is written
``key.<name>.sub``, a list of sections ``key[].sub``, and a section chosen by its ``type`` (an equation, a
geometry) gets a table per type. :func:`cli_reference` reads an ``argparse`` parser and its sub-commands.
This module imports no solver: the caller hands it the schemas (``sciml.cases.SOLVERS``) and the parser.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal, Union

from .schema import Registry

NAME = "<name>"  # a key the user names (a mapping of names to values)


@dataclasses.dataclass
class Row:
    """One key of a schema: ``key`` dotted from the top of the file."""

    key: str
    kind: str
    default: str
    bounds: str
    help: str


def _members(tp) -> dict[str, Any] | None:
    """The sections of a choice told apart by ``type`` (``{tag: dataclass}``), or None if ``tp`` is not one."""
    if typing.get_origin(tp) is Annotated:
        registry = next((m for m in tp.__metadata__ if isinstance(m, Registry)), None)
        return dict(sorted(registry.members().items())) if registry is not None else None
    if typing.get_origin(tp) in (Union, types.UnionType):
        sections = [a for a in typing.get_args(tp) if dataclasses.is_dataclass(a)]
        if len(sections) > 1 and all("type" in {f.name for f in dataclasses.fields(s)} for s in sections):
            return {typing.get_args(typing.get_type_hints(s)["type"])[0]: s for s in sections}
    return None


def kind(tp) -> str:
    """A type annotation of the schema in words."""
    if (members := _members(tp)) is not None:
        return "section, by `type`: " + ", ".join(f"`{t}`" for t in members)
    if typing.get_origin(tp) is Annotated:
        return kind(typing.get_args(tp)[0])
    if dataclasses.is_dataclass(tp):
        return "section"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        words = [kind(a) for a in args if a is not type(None)]
        return " or ".join(words) + (" or null" if type(None) in args else "")
    if origin is Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin in (list, tuple):
        if origin is tuple and args and args[-1] is not Ellipsis:
            return f"list of {len(args)}: " + ", ".join(kind(a) for a in args)
        return f"list of {kind(args[0]) if args else 'values'}"
    if origin is dict:
        return f"mapping of names to {kind(args[1]) if args else 'values'}"
    return {bool: "true or false", int: "integer", float: "number", str: "text"}.get(tp, "any value")


def _text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def _default(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "required"
    return "its keys' defaults" if dataclasses.is_dataclass(value) else f"`{_text(value)}`"


def _bounds(meta: Mapping[str, Any]) -> str:
    marks = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    return ", ".join(f"{mark} {meta[name]}" for name, mark in marks.items() if meta.get(name) is not None)


def _sections(tp) -> Iterator[tuple[str, Any]]:
    """The sections inside an annotation and the suffix their keys take: ``("", S)`` for a section (or a
    section or null), ``(".<name>", S)`` for a mapping of names to sections, ``("[]", S)`` for a list."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        yield "", tp
    elif origin is Annotated:
        yield from _sections(args[0])
    elif origin in (Union, types.UnionType):
        for a in args:
            yield from _sections(a)
    elif origin is dict and args:
        for suffix, s in _sections(args[1]):
            yield f".{NAME}{suffix}", s
    elif origin in (list, tuple) and args and (origin is list or args[-1] is Ellipsis):
        for suffix, s in _sections(args[0]):
            yield f"[]{suffix}", s


def tables(schema, path: str = "", title: str = "") -> dict[str, list[Row]]:
    """The rows of ``schema`` (a dataclass) grouped into tables: the top level's own keys, then one table per
    section of the top level, and one per type of a section chosen by ``type``."""
    out: dict[str, list[Row]] = {}
    own = title or "top level"
    hints = typing.get_type_hints(schema, include_extras=True)
    for f in dataclasses.fields(schema):
        key = f"{path}.{f.name}" if path else f.name
        tp = hints[f.name]
        members = _members(tp)
        table = own if path or (members is None and not list(_sections(tp))) else f"`{key}`"
        out.setdefault(table, []).append(
            Row(key, kind(tp), _default(f), _bounds(f.metadata), " ".join(f.metadata.get("help", "").split())))
        if members is not None:
            for tag, section in members.items():
                for name, rows in tables(section, key, f"`{key}` with `type: {tag}`").items():
                    out.setdefault(name, []).extend(rows)
            continue
        for suffix, section in _sections(tp):
            for name, rows in tables(section, key + suffix, title if path else f"`{key}`").items():
                out.setdefault(name, []).extend(rows)
    return out


def keys(schema) -> set[str]:
    """Every dotted key :func:`case_reference` names for ``schema``."""
    return {row.key for rows in tables(schema).values() for row in rows}


def _cell(text: str) -> str:
    """Text for Markdown outside code: no table breaks, tags or reference links."""
    for plain, escaped in (("|", "\\|"), ("<", "&lt;"), ("[", "\\["), ("]", "\\]"), ("\n", " ")):
        text = text.replace(plain, escaped)
    return text


def _table(rows: list[Row]) -> list[str]:
    lines = ["| key | type | default | bounds | what |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r.key}` | {_cell(r.kind)} | {_cell(r.default)} | {r.bounds} | {_cell(r.help)} |")
    return lines


def case_reference(schemas: Mapping[str, Any]) -> str:
    """The case-file reference as Markdown: for each solver (``{name: schema dataclass}``) a section per table of
    :func:`tables`."""
    lines = ["# Case-file reference", "",
             "Every key a case file may hold, for each solver, written from the schema when the site is built: "
             "its type, its default (`required`: no default), its bounds and what it does. Keys are dotted from "
             f"the top of the file, as an override writes them; `{NAME}` stands for a name you choose "
             "(`sampling.boxes.wake.points`), `[]` for each item of a list. `sciml show CASE` prints a case "
             "resolved with these defaults.", ""]
    for name, schema in schemas.items():
        lines += [f"## `solver: {name}`", ""]
        for title, rows in tables(schema).items():
            lines += [f"### {title}", "", *_table(rows), ""]
    return "\n".join(lines)


def _help(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    with contextlib.suppress(KeyError, TypeError, ValueError):  # a help with a lone % is taken as written
        text = text % {**vars(action), "prog": prog}
    return " ".join(text.split())


def _usage(p: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(p.prog, width=100)
    formatter.add_usage(p.usage, p._actions, p._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _arguments(p: argparse.ArgumentParser) -> list[str]:
    lines = ["| argument | what | default |", "|---|---|---|"]
    for a in p._actions:
        if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        metavar = a.metavar if isinstance(a.metavar, str) else a.dest
        name = ", ".join(a.option_strings) if a.option_strings else metavar
        if a.option_strings and a.nargs != 0:
            name += f" {metavar if a.metavar else a.dest.upper()}"
        default = "" if a.default in (None, False, argparse.SUPPRESS) else f"`{_text(a.default)}`"
        lines.append(f"| `{name}` | {_cell(_help(a, p.prog))} | {default} |")
    return lines


def cli_reference(parser: argparse.ArgumentParser) -> str:
    """The command line's reference as Markdown: the program's usage, then each sub-command's usage, description
    and arguments."""
    lines = ["# Command-line reference", "",
             "Written from the argument parsers of `sciml/cli.py` when the site is built; `sciml COMMAND --help` "
             "prints the same.", "", "```", _usage(parser), "```", ""]
    if parser.description:
        lines += [_cell(parser.description), ""]
    lines += _arguments(parser) + [""]
    if parser.epilog:
        lines += ["```", parser.epilog.strip(), "```", ""]
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for action in subs:
        helps = {c.dest: c.help for c in action._choices_actions}
        for name, sub in action.choices.items():
            lines += [f"## `sciml {name}`", "", _cell(helps.get(name) or ""), "", "```", _usage(sub), "```", ""]
            if sub.description:
                lines += [_cell(sub.description), ""]
            lines += _arguments(sub) + [""]
    return "\n".join(lines)
