"""Build the tour notebooks from their sources in ``notebooks/src/*.py`` (stored without outputs).

A source file is plain Python split into cells by lines ``# %%`` (code) and ``# %% [markdown]`` (markdown,
each line starting with ``# ``). Run ``python notebooks/build.py`` after editing a source; a test checks the
notebooks are up to date and free of outputs.
"""
from __future__ import annotations

import glob
import os
import sys

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))


def cells(text: str):
    blocks, kind, lines = [], None, []
    for line in text.splitlines():
        if line.startswith("# %%"):
            if kind:
                blocks.append((kind, lines))
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        elif kind:
            lines.append(line)
    if kind:
        blocks.append((kind, lines))
    for kind, lines in blocks:
        while lines and not lines[-1].strip():
            lines.pop()
        if kind == "markdown":
            yield nbformat.v4.new_markdown_cell("\n".join(l[2:] if l.startswith("# ") else l.lstrip("#") for l in lines))
        else:
            yield nbformat.v4.new_code_cell("\n".join(lines))


def build(src: str) -> nbformat.NotebookNode:
    with open(src, encoding="utf-8") as fh:
        nb = nbformat.v4.new_notebook(cells=list(cells(fh.read())))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for i, c in enumerate(nb.cells):
        c["id"] = f"cell-{i}"
    return nb


def target(src: str) -> str:
    return os.path.join(HERE, os.path.basename(src)[:-3] + ".ipynb")


def main() -> int:
    for src in sorted(glob.glob(os.path.join(HERE, "src", "*.py"))):
        nbformat.write(build(src), target(src))
        print("wrote", target(src))
    return 0


if __name__ == "__main__":
    sys.exit(main())
