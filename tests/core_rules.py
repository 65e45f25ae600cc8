"""The solver core's rules (issue 68; DESIGN.md, "The solver core"), run by ``make lint``:

- **no equation's number by name in the generic solvers**: ``Re`` appears nowhere in ``solvers/pinn/`` or
  ``solvers/fno/`` (code, strings or comments); a curriculum, an unknown or a family names a number of the
  ``equation`` section by its dotted name, and the equation is posed at it by ``Equation.at``;
- **no method rebound by name**: no ``getattr(x, f.__name__)``; a method of one equation taken to another is
  ``types.MethodType(f.__func__, other)``;
- **no class over 250 lines** (``OVERSIZE`` may list one being split, at the length it may not pass).

``python tests/core_rules.py [ROOT]``: each broken rule printed as ``path:line: what``; exit status 1 if any.
"""
from __future__ import annotations

import ast
import os
import re
import sys

GENERIC = ("solvers/pinn", "solvers/fno")  # the solvers that know no equation
NAMED = re.compile(r"\bRe\b")
SOURCES = ("sciml", "equations", "solvers")
MOST_LINES = 250
OVERSIZE: dict[str, int] = {}  # class -> a length it may not pass while it is split (none now)


def files(root: str, folders) -> list[str]:
    out = []
    for folder in folders:
        for here, _, names in os.walk(os.path.join(root, folder)):
            out += [os.path.join(here, n) for n in sorted(names) if n.endswith(".py")]
    return sorted(out)


def named_numbers(root: str) -> list[str]:
    return [f"{os.path.relpath(p, root)}:{i}: names Re (a number of one equation) in a generic solver"
            for p in files(root, GENERIC) for i, line in enumerate(open(p, encoding="utf-8"), 1)
            if NAMED.search(line)]


def rebound(tree: ast.AST, where: str) -> list[str]:
    return [f"{where}:{n.lineno}: rebinds a method by name (getattr(x, f.__name__))" for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr"
            and len(n.args) >= 2 and isinstance(n.args[1], ast.Attribute) and n.args[1].attr == "__name__"]


def oversize(tree: ast.AST, where: str) -> list[str]:
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            lines, name = n.end_lineno - n.lineno + 1, f"{where}:{n.name}"  # type: ignore[operator]
            most = OVERSIZE.get(name, MOST_LINES)
            if lines > most:
                out.append(f"{where}:{n.lineno}: class {n.name} is {lines} lines (at most {most})")
    return out


def main(root: str = ".") -> int:
    broken = named_numbers(root)
    for p in files(root, SOURCES):
        where = os.path.relpath(p, root)
        tree = ast.parse(open(p, encoding="utf-8").read(), p)
        broken += rebound(tree, where) + oversize(tree, where)
    print("\n".join(broken) or "core rules: none broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
