"""Case loading picks a solver record by the ``solver:`` key; the commands use the record's optional fields."""
import dataclasses
import os
import shutil
import typing

import pytest

from sciml import cases, cli
from sciml.errors import ConfigError, Invalid
from sciml.solvers.fno import FnoCase
from sciml.solvers.pinn import PinnCase

from cli_cases import TINY_DARCY, write_case


def test_each_record_is_keyed_by_its_name_and_schema():
    assert {name: s.name for name, s in cases.SOLVERS.items()} == {"pinn": "pinn", "fno": "fno"}
    for name, s in cases.SOLVERS.items():  # the schema's `solver` field accepts exactly the record's name
        assert typing.get_args(typing.get_type_hints(s.schema)["solver"]) == (name,)


@pytest.mark.parametrize("data, schema", [(None, PinnCase), (TINY_DARCY, FnoCase)])
def test_load_picks_the_record(tmp_path, data, schema):
    case = cases.load(write_case(tmp_path, data))
    assert case.solver is cases.SOLVERS[case.config.solver] and isinstance(case.config, schema)


def test_datagen_without_a_dataset_is_one_line(tmp_path, capsys, monkeypatch):
    path = write_case(tmp_path)  # a PINN case without observations
    assert cli.main(["datagen", path]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {path}: data: the case has nothing to generate (no data section, no equation.start)\n"
    monkeypatch.setitem(cases.SOLVERS, "pinn", dataclasses.replace(cases.SOLVERS["pinn"], datagen=None))
    assert cli.main(["datagen", path]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {path}: solver 'pinn' trains on no dataset; nothing to generate\n"


def test_export_without_export_model_is_one_line(tmp_path, capsys, monkeypatch):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    shutil.copy(write_case(tmp_path), run_dir / "config.yaml")
    bare = dataclasses.replace(cases.SOLVERS["pinn"], export_model=None)
    monkeypatch.setitem(cases.SOLVERS, "pinn", bare)
    assert cli.main(["export", str(run_dir)]) == 2
    assert capsys.readouterr().err == "error: solver 'pinn' has no export\n"


def test_bench_help_names_every_benchmark():
    help_text = " ".join(cli.parser().format_help().split())
    assert all(name in help_text for name in cli.benchmarks())
    assert all(callable(main) for main in cli.benchmarks().values())


@pytest.mark.parametrize("name", ["plate", "plate_2", "ns-fno3d.quick", "A1"])
def test_a_plain_case_name_loads(tmp_path, name):
    assert cases.load(write_case(tmp_path, case=name)).config.case == name


@pytest.mark.parametrize("name", ["../../etc", "/tmp/x", "a/b", ".hidden", "..", "", "a b", "runs\\x"])
def test_a_case_name_is_a_plain_name(tmp_path, name):
    path = write_case(tmp_path, case=name)
    with pytest.raises(ConfigError) as e:
        cases.load(path)
    assert (e.value.source, e.value.key) == (path, "case") and "must be a plain name" in e.value.message


def test_load_runs_the_records_check(tmp_path, monkeypatch):
    """A solver's check (rules beyond its schema) runs at load: its error names the file and the key."""
    def check(config):
        raise Invalid("training.adam.steps", f"too many for this solver: {config.training.adam.steps}")
    monkeypatch.setitem(cases.SOLVERS, "pinn", dataclasses.replace(cases.SOLVERS["pinn"], check=check))
    path = write_case(tmp_path)
    with pytest.raises(ConfigError) as e:
        cases.load(path)
    assert str(e.value) == f"{path}: training.adam.steps: too many for this solver: 40"


def test_the_pinn_check_assembles_only_a_case_with_weights(tmp_path, monkeypatch):
    from sciml.solvers.pinn import problem

    assembled = []
    monkeypatch.setattr(problem, "Problem", lambda cfg, **options: assembled.append(cfg))
    cases.load(write_case(tmp_path))
    assert assembled == []
    config = cases.load(write_case(tmp_path, loss={"weights": {"pde": 2.0}})).config
    assert assembled == [config]


def test_load_takes_a_path_a_name_a_mapping_or_yaml_text(tmp_path, monkeypatch):
    import yaml

    from cli_cases import TINY_PLATE

    path = write_case(tmp_path)
    text = open(path).read()
    monkeypatch.chdir(tmp_path)  # the name finds the shipped case from any folder
    configs = [cases.load(src, ["training.adam.steps=5"]) for src in (path, TINY_PLATE, text)]
    assert [c.path for c in configs] == [path, "<mapping>", "<YAML text>"]
    assert configs[0].config == configs[1].config == configs[2].config
    assert configs[0].config.training.adam.steps == 5 and TINY_PLATE["training"]["adam"]["steps"] == 40
    shipped = cases.load("plate")
    assert shipped.config.case == "plate" and shipped.path.endswith(os.path.join("", "plate.yaml"))
    assert yaml.safe_load(open(shipped.path)) == cases.read("plate")[1]


@pytest.mark.parametrize("source, message", [
    ({"solver": "pinn", "case": "x", "nosuch": 1}, "<mapping>: nosuch: unknown key"),
    ("solver: pinn\ncase: [unclosed\n", "<YAML text>: malformed YAML: "),
    ("solver: pinn\ncase: a\ncase: b\n", "<YAML text>: line 3: key 'case' is given twice (lines 2 and 3)"),
    ("- a list\n- of things\n", "<YAML text>: a case holds a mapping of sections, got list"),
    ("no_such_case", "no_such_case: no such case file; cases by name: "),
    (3.5, "a case is a file's path or name, a mapping or YAML text, not float"),
])
def test_a_bad_source_is_one_line_naming_it(tmp_path, monkeypatch, source, message):
    from sciml.errors import UserError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as e:
        cases.load(source)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)
