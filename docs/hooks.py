"""MkDocs hook: the case-file and CLI references and a page per shipped case, written from the code at build time
(never committed), and the notebooks of `notebooks/` added as pages (mkdocs-jupyter renders them as saved,
without running them).

`sciml.config.reference` renders the schemas of `sciml.cases.SOLVERS` and the parser of `sciml.cli`; the pages
are added to the site as generated files, `reference/cases.md` and `reference/cli.md`. `docs/case_pages.py`
writes `cases/<name>.md` for every `cases/<name>.yaml`, their figures (`cases/*.png`, drawn now) and the index
`cases/index.md`; their section of the navigation ("Cases", after "Results") is added here, as the pages are.

A page that shows a Sphinx role as it was written (``:func:`` before a name: a role `docs/griffe_roles.py` does
not know) fails the build.
"""
from __future__ import annotations

import functools
import glob
import importlib.util
import logging
import os
import re
import sys
import time

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
log = logging.getLogger("mkdocs.hooks")


@functools.cache
def _case_pages():
    """``docs/case_pages.py``, loaded by path (``docs/`` is no package), once."""
    spec = importlib.util.spec_from_file_location("case_pages", os.path.join(ROOT, "docs", "case_pages.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def on_config(config):
    """The cases' section of the navigation, after "Results" (the pages are generated: mkdocs.yml cannot list
    them)."""
    nav = config["nav"]
    if not any("Cases" in entry for entry in nav if isinstance(entry, dict)):
        after = next((i + 1 for i, entry in enumerate(nav) if isinstance(entry, dict) and "Results" in entry),
                     len(nav))
        nav.insert(after, _case_pages().nav())
    return config


def _add_cases(files, config) -> None:
    """Each case's page and figures, and the index (``docs/case_pages.py``); the time they took, logged."""
    pages = _case_pages()
    start, table, drawn = time.perf_counter(), pages.readme_table(), 0
    files.append(File.generated(config, "cases/index.md", content=pages.index()))
    for name in pages.names():
        shown = pages.plots(name)
        for plot in (p for p in shown if p.png is not None):
            files.append(File.generated(config, f"cases/{plot.file}", content=plot.png))
            drawn += len(plot.png)
        files.append(File.generated(config, f"cases/{name}.md", content=pages.page(name, shown, table)))
    log.info(f"case pages: {len(pages.names())} pages and {drawn / 1e6:.1f} MB of figures in "
             f"{time.perf_counter() - start:.1f} s")


@event_priority(100)  # before mkdocs-jupyter's, which turns the notebooks' files into pages
def on_files(files, config):
    from sciml.cases import SOLVERS
    from sciml.cli import parser
    from sciml.config.reference import case_reference, cli_reference

    pages = {"reference/cases.md": case_reference({name: s.schema for name, s in SOLVERS.items()}),
             "reference/cli.md": cli_reference(parser())}
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    _add_cases(files, config)
    for notebook in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))):
        files.append(File(os.path.relpath(notebook, ROOT), ROOT, config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_content(html, page, config, files):
    role = re.search(r":[a-z:]+:<code>[^<]*</code>", html)
    if role:
        raise PluginError(f"{page.file.src_path}: a Sphinx role shown as written, {role.group(0)!r}: "
                          "add its kind to docs/griffe_roles.py")
    return html
