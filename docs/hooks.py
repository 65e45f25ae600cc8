"""MkDocs hook: the case-file and CLI references, written from the code at build time (never committed), and
the notebooks of `notebooks/` added as pages (mkdocs-jupyter renders them as saved, without running them).

`sciml.config.reference` renders the schemas of `sciml.cases.SOLVERS` and the parser of `sciml.cli`; the pages
are added to the site as generated files, `reference/cases.md` and `reference/cli.md`.

A page that shows a Sphinx role as it was written (``:func:`` before a name: a role `docs/griffe_roles.py` does
not know) fails the build.
"""
from __future__ import annotations

import glob
import os
import re

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@event_priority(100)  # before mkdocs-jupyter's, which turns the notebooks' files into pages
def on_files(files, config):
    from sciml.cases import SOLVERS
    from sciml.cli import parser
    from sciml.config.reference import case_reference, cli_reference

    pages = {"reference/cases.md": case_reference({name: s.schema for name, s in SOLVERS.items()}),
             "reference/cli.md": cli_reference(parser())}
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    for notebook in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))):
        files.append(File(os.path.relpath(notebook, ROOT), ROOT, config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_content(html, page, config, files):
    role = re.search(r":[a-z:]+:<code>[^<]*</code>", html)
    if role:
        raise PluginError(f"{page.file.src_path}: a Sphinx role shown as written, {role.group(0)!r}: "
                          "add its kind to docs/griffe_roles.py")
    return html
