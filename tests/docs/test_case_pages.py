"""The documentation's case pages (``docs/case_pages.py``): every shipped case gets a page that names its commands
and its line of the README's results table, the table's rows are picked by name, and a PINN's figure is a PNG.
Pages are written without their figures here, but for the one drawn (a plate: no training, no data files)."""
from __future__ import annotations

import glob
import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAMES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(ROOT, "cases", "*.yaml")))


def _load():
    spec = importlib.util.spec_from_file_location("case_pages", os.path.join(ROOT, "docs", "case_pages.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


pages = _load()
TABLE = pages.readme_table()
with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
    README_LINES = set(f.read().splitlines())


def test_every_case_file_is_a_page():
    assert pages.names() == NAMES and len(NAMES) >= 30
    index = pages.index()
    assert all(f"[{name}]({name}.md)" in index for name in NAMES)
    listed = [next(iter(e.values())) for group in pages.nav()["Cases"][1:] for e in next(iter(group.values()))]
    assert sorted(listed) == [f"cases/{name}.md" for name in NAMES]


@pytest.mark.parametrize("name", NAMES)
def test_a_page_names_its_commands_and_its_result(name):
    text = pages.page(name, table=TABLE)
    assert text.startswith(f"# {name}")
    assert f"sciml run cases/{name}.yaml" in text
    datagen = f"sciml datagen cases/{name}.yaml\nsciml run"  # in "Run it", before the run
    assert (datagen in text) == pages.makes_data(pages.config(name))
    rows = pages.result_rows(name, TABLE)
    assert all(row in text and row in README_LINES for row in rows)
    assert (pages.NO_ROW in text) == (not rows)
    assert "](../notes/results.md)" in text or not rows
    assert pages.text(name).rstrip("\n") in text  # the case file, whole


def test_which_cases_make_data_first():
    made = {name for name in NAMES if pages.makes_data(pages.config(name))}
    assert {"plate_identify", "kovasznay_identify", "dfg_2d2", "darcy_fno_quick", "ns_fno"} <= made
    assert not made & {"plate", "ldc", "kovasznay", "beltrami", "poisson_hd", "taylor_green"}


def test_the_rows_picked_by_name():
    ldc = pages.result_rows("ldc", TABLE)
    assert [pages.row_names(r)[0] for r in ldc] == ["ldc", "ldc equation.Re=1000", "ldc equation.Re=3200"]
    combined = pages.result_rows("ns_fno_nu1e-4", TABLE)
    assert len(combined) == 1 and "`ns_fno_nu1e-4`, `_nu1e-5`" in combined[0]
    assert pages.result_rows("ns_fno3d_nu1e-5", TABLE) == combined  # `_nu1e-5` after `ns_fno3d_nu1e-4`
    assert [pages.row_names(r) for r in pages.result_rows("plate", TABLE)] == [["plate"]]  # not plate_uniform
    assert [pages.row_names(r) for r in pages.result_rows("ns_fno", TABLE)] == [["ns_fno"]]
    assert pages.result_rows("no_such_case", TABLE) == []


def test_a_table_without_the_case():
    table = pages.results_table("## Results\n\n| case | what |\n|---|---|\n| `plate` ¹ | a plate |\n\n"
                                "¹ a note,\ncontinued.\n\n## Next\n")
    assert table.rows == ("| `plate` ¹ | a plate |",) and table.notes == {"¹": "¹ a note,\ncontinued."}
    assert pages.NO_ROW in pages.page("ldc", table=table)
    assert "¹ a note,\ncontinued." in pages.page("plate", table=table)


def test_the_header_as_prose():
    title, prose = pages.title("ldc")
    assert title == "Lid-driven cavity"  # a long first sentence cut to its head; the prose then has it all
    assert prose[0][1].startswith("Lid-driven cavity: unit square") and "J. Comput. Phys. 48" in prose[0][1]
    title, prose = pages.title("plate_identify")
    assert title.startswith("Inverse: the plate's rigidity D") and prose[0][1].startswith("The simply supported")
    assert ("code", "sciml datagen cases/plate_identify.yaml && sciml run cases/plate_identify.yaml") in prose
    assert pages.escape("u* = x_i {a: 1} [0, 1] <b> `k_j*`") == r"u\* = x\_i \{a: 1\} \[0, 1\] &lt;b> `k_j*`"


def test_a_plate_page_has_its_figures():
    shown = pages.plots("plate")
    files = {p.file: p.png for p in shown}
    assert set(files) == {"plate.png", "plate_reference.png"}
    assert all(png[:8] == b"\x89PNG\r\n\x1a\n" and 5_000 < len(png) < 200_000 for png in files.values())
    text = pages.page("plate", shown, TABLE)
    assert "](plate.png)" in text and "](plate_reference.png)" in text


def test_a_solid_is_drawn_in_perspective_and_a_ball_in_many_dimensions_is_a_note():
    (shown,) = pages.plots("beltrami_bracket")  # a part from a mesh file
    assert shown.png[:8] == b"\x89PNG\r\n\x1a\n" and 5_000 < len(shown.png) < 200_000
    (ball,) = pages.plots("poisson_hd")
    assert ball.png is None and "1000-dimensional (`ball`" in ball.note


def test_a_file_cases_page_makes_its_file_first_and_draws_no_sample():
    cfg = pages.config("lshape_poisson_deeponet")
    assert pages.commands("lshape_poisson_deeponet", cfg) == [
        "python cases/files/make_lshape_poisson.py data/lshape_poisson.h5",
        "sciml datagen cases/lshape_poisson_deeponet.yaml", "sciml run cases/lshape_poisson_deeponet.yaml"]
    [plot] = pages.plots("lshape_poisson_deeponet")
    assert plot.png is None and "made by `python cases/files/make_lshape_poisson.py" in plot.note
    assert ("| data | 2000 training and 200 test samples at the 906 points of the file's `nodes` |"
            in pages.page("lshape_poisson_deeponet", [plot]))
