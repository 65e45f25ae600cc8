"""The ``parallel`` section of case files, and the layout helpers on one device."""
import numpy as np
import pytest

from cli_cases import write_case
from sciml import cases, parallel
from sciml.cli import main
from sciml.errors import ConfigError, UserError

DARCY = {"case": "d", "solver": "fno", "data": {"generator": "darcy", "path": "unused.h5", "resolution": 9,
                                                "n_train": 40, "n_test": 2},
         "model": {"modes": [3, 3], "width": 8, "layers": 2}}


def test_both_solvers_take_a_parallel_section(tmp_path, capsys):
    assert main(["show", "cases/plate.yaml", "parallel.devices=4"]) == 0
    assert "parallel:\n  devices: 4\n  mesh: null\n  data_axis: data\n" in capsys.readouterr().out
    cfg = cases.load(write_case(tmp_path, DARCY), ["parallel.devices=4", "parallel.mesh=[2,2]"]).config
    assert (cfg.parallel.devices, cfg.parallel.mesh) == (4, [2, 2])
    assert cases.load("cases/plate.yaml").config.parallel == parallel.ParallelConfig()  # one device by default


@pytest.mark.parametrize("data, overrides, key, words", [
    (None, ["parallel.mesh=[2,2]"], "parallel.mesh", "a PINN shards only its points"),
    (DARCY, ["parallel.mesh=[1,3]"], "parallel.mesh", "must divide model.width (8)"),
    (DARCY, ["parallel.mesh=[1,2,2]"], "parallel.mesh", "expected [data] or [data, channels]"),
    (None, ["parallel.data_axis=channels"], "parallel.data_axis", "names the channel axis"),
    (None, ["parallel.devices=-1"], "parallel.devices", "must be >= 0"),
    (None, ["parallel.distributed={coordinator: 'h:1', num_processes: 2, process_id: 2}"],
     "parallel.distributed.process_id", "must be < num_processes"),
])
def test_mistakes_name_the_key(tmp_path, data, overrides, key, words):
    with pytest.raises(ConfigError) as e:
        cases.load(write_case(tmp_path, data), overrides)
    assert e.value.key == key and words in e.value.message


def test_distributed_settings_from_the_environment(monkeypatch):
    for k in ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID"):
        monkeypatch.delenv(k, raising=False)
    assert parallel._from_environment() is None
    monkeypatch.setenv("JAX_COORDINATOR_ADDRESS", "host0:1234")
    monkeypatch.setenv("JAX_NUM_PROCESSES", "1")
    assert parallel._from_environment() is None  # one process: nothing to start
    monkeypatch.setenv("JAX_NUM_PROCESSES", "3")
    with pytest.raises(UserError, match="JAX_PROCESS_ID is not"):
        parallel._from_environment()
    monkeypatch.setenv("JAX_PROCESS_ID", "2")
    assert parallel._from_environment() == ("host0:1234", 3, 2)


def test_one_device_layout_changes_nothing():
    mesh = parallel.mesh(parallel.ParallelConfig())
    assert mesh.axis_names == ("data",) and parallel.data_size(mesh) == 1 and parallel.channel_size(mesh) == 1
    assert [parallel.local_share(n, mesh) for n in (1, 125, 2000)] == [1, 125, 2000]
    assert parallel.local_rows(10) == slice(0, 10)
    a, b = parallel.rng(7), np.random.default_rng(7)
    assert a.random() == b.random()  # one process: the case's seed, as before
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(parallel.to_host(parallel.shard({"x": x}, mesh))["x"], x)
