"""Griffe extension (mkdocs.yml): the Sphinx roles of our docstrings as Markdown code.

The docstrings name other objects the Sphinx way (``:func:`~sciml.compile.enable_cache```, ``:mod:`.base```),
which mkdocstrings leaves as it is: the page showed ``:func:`` before the name. Each role becomes the code span a
reader expects: the name as written, ``~`` keeping its last part only, a function's or method's with ``()``, and
``text <target>`` its text.
"""
from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(func|meth|class|mod|attr|data|exc|obj|const):`([^`]+)`")


def code(match: re.Match) -> str:
    """The code span of one role."""
    kind, text = match.group(1), match.group(2).strip()
    labelled = re.fullmatch(r"(.+?)\s*<([^>]+)>", text)
    if labelled:
        return f"`{labelled.group(1)}`"
    name = text.lstrip("!")
    if name.startswith("~"):
        name = name[1:].rsplit(".", 1)[-1]
    return f"`{name}()`" if kind in ("func", "meth") and not name.endswith(")") else f"`{name}`"


def plain(text: str) -> str:
    """``text`` with every Sphinx role written as Markdown code."""
    return ROLE.sub(code, text)


class SphinxRoles(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:  # a top package is not passed to on_object
        self.on_object(obj=pkg)
