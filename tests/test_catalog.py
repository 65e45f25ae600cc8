"""Shipped cases and suites: declared as package data, found by name from any folder, listed by ``sciml cases``."""
import glob
import importlib.util
import os
from importlib import resources

import pytest

from sciml import catalog, cli
from sciml.errors import ConfigError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "cases")


def _data_files() -> set[str]:
    """Every file under cases/ but the package's own Python (relative paths)."""
    return {os.path.relpath(p, CASES) for p in glob.glob(os.path.join(CASES, "**", "*"), recursive=True)
            if os.path.isfile(p) and not p.endswith((".py", ".pyc"))}


def test_setup_declares_every_file_under_cases_as_package_data():
    spec = importlib.util.spec_from_file_location("setup_module", os.path.join(ROOT, "setup.py"))
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)  # defines the tables; setup() runs only as the main module
    assert setup.ROOTS["cases"] == catalog.PACKAGE
    declared = {os.path.relpath(p, CASES) for pattern in setup.PACKAGE_DATA[catalog.PACKAGE]
                for p in glob.glob(os.path.join(CASES, pattern))}  # as setuptools globs them
    assert declared == _data_files() and {"plate.yaml", "suites/smoke.yaml"} <= declared


def test_every_file_is_found_through_the_package_resources():
    shipped = resources.files(catalog.PACKAGE)
    assert all(shipped.joinpath(rel).is_file() for rel in _data_files())
    assert os.path.samefile(catalog.root(), CASES)  # the editable install maps the package onto cases/


@pytest.mark.parametrize("ref", ["plate", "plate.yaml"])
def test_a_bare_name_is_the_shipped_case_from_any_folder(tmp_path, monkeypatch, ref):
    monkeypatch.chdir(tmp_path)
    assert catalog.case_path(ref) == os.path.join(catalog.root(), "plate.yaml")
    assert catalog.suite_path("smoke") == os.path.join(catalog.suites_dir(), "smoke.yaml")


def test_an_existing_path_wins_then_the_working_directory_cases(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plate").write_text("a file named like a case")
    assert catalog.case_path("plate") == "plate"
    os.makedirs("cases/suites")
    for path in ("cases/plate_uniform.yaml", "cases/suites/smoke.yaml", "mine.yaml"):
        (tmp_path / path).write_text("case: x\n")
    assert catalog.case_path("plate_uniform") == os.path.join("cases", "plate_uniform.yaml")
    assert catalog.suite_path("smoke") == os.path.join("cases", "suites", "smoke.yaml")
    assert catalog.case_path("mine.yaml") == "mine.yaml"


@pytest.mark.parametrize("find, ref, kind", [(catalog.case_path, "nope", "case"),
                                             (catalog.case_path, "sub/plate.yaml", "case"),
                                             (catalog.suite_path, "nope", "suite")])
def test_an_unknown_name_is_one_line_naming_what_there_is(tmp_path, monkeypatch, find, ref, kind):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as e:
        find(ref)
    message = str(e.value)
    assert message.startswith(f"{ref}: no such {kind} file; {kind}s by name: ") and "\n" not in message
    assert ("plate_uniform" if kind == "case" else "smoke, standard") in message


def test_sciml_cases_lists_each_shipped_case_and_suite_on_one_line(capsys):
    assert cli.main(["cases"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = [i for i, line in enumerate(lines) if not line.startswith("  ")]
    assert len(titles) == 2 and lines[titles[1]].startswith("suites")
    listed = {block: dict(line.split(None, 1) for line in lines[start + 1:end])
              for block, start, end in (("cases", titles[0], titles[1]), ("suites", titles[1], len(lines)))}
    names = lambda folder: {f[:-5] for f in os.listdir(folder) if f.endswith(".yaml")}  # noqa: E731
    assert set(listed["cases"]) == names(CASES) and set(listed["suites"]) == names(os.path.join(CASES, "suites"))
    assert listed["cases"]["plate"].startswith("Simply supported 2 m x 3 m steel plate")
    assert listed["suites"]["smoke"].startswith("Runs in CI after the tests")
    assert all(len(text) <= catalog.LINE for block in listed.values() for text in block.values())


def test_show_and_bench_take_a_name_from_another_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["show", "plate", "training.adam.steps=7"]) == 0
    out = capsys.readouterr().out
    assert "case: plate" in out and "steps: 7" in out
    from sciml.bench import baseline, suite

    s, path = suite.load_suite("smoke")
    assert path == os.path.join(catalog.suites_dir(), "smoke.yaml")
    assert os.path.isfile(baseline.baseline_path(s.suite, os.path.dirname(path)))  # --check finds it
    assert all(os.path.isfile(catalog.case_path(e.case)) for e in s.entries if e.case)
