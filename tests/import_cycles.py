"""No import cycle among sciml's modules (DESIGN.md, "Layers and the import rules"), run by ``make lint-imports``.

``python tests/import_cycles.py VIEW``: grimp's import graph of the package ``sciml`` in ``VIEW``, the view of the
installed tree that import-linter reads (``sciml/`` with ``equations/`` and ``solvers/`` linked inside), counting
imports inside functions and under ``TYPE_CHECKING`` like any other (as the contracts do). Each cycle is printed
with its imports, and any makes the exit status 1. A script, not a contract: import-linter's cycle contract
(``acyclic_siblings``) compares the children of each package, each with its descendants, so a cycle through a
package's own ``__init__`` (a module importing its package, which imports it) is not one it sees.
"""
from __future__ import annotations

import sys

import grimp


def cycles(graph) -> list[set[str]]:
    """The import cycles of ``graph``: the sets of two or more modules each of which imports every other one,
    directly or through a chain (its strongly connected components)."""
    out: list[set[str]] = []
    seen: set[str] = set()
    for module in sorted(graph.modules):
        if module in seen:
            continue
        ring = graph.find_upstream_modules(module) & graph.find_downstream_modules(module)
        if ring:
            ring = ring | {module}
            seen |= ring
            out.append(ring)
    return out


def main(view: str) -> int:
    sys.path.insert(0, view)  # before the installed sciml, whose finder does not map equations/ and solvers/
    graph = grimp.build_graph("sciml", cache_dir=None)
    for package in ("sciml.equations", "sciml.solvers"):
        if package not in graph.modules:
            print(f"import cycles: {package} is not in the graph of {view} (not the view of the installed tree?)")
            return 2
    found = cycles(graph)
    for ring in found:
        print(f"import cycle among {len(ring)} modules:")
        for importer in sorted(ring):
            for imported in sorted(graph.find_modules_directly_imported_by(importer) & ring):
                for d in graph.get_import_details(importer=importer, imported=imported):
                    print(f"  {importer} -> {imported} (l.{d['line_number']}: {d['line_contents']})")
    print(f"import cycles: {len(found)} among {len(graph.modules)} modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
