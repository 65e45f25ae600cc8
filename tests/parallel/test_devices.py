"""Four (host) devices: the sharded train steps give the single-device loss trajectories, for a PINN case
(points sharded) and an FNO case (samples sharded; also channels on a 2 x 2 mesh)."""
import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from cli_cases import write_case
from sciml import cases
from sciml.errors import ConfigError

WORKER = os.path.join(os.path.dirname(__file__), "devices_worker.py")

TINY_DARCY = {  # a real (small) Darcy dataset: 5 minibatches of 8 per epoch, 10 epochs = 50 steps
    "case": "tiny_darcy", "solver": "fno", "seed": 1,
    "data": {"generator": "darcy", "path": "PLACEHOLDER", "resolution": 9, "n_train": 40, "n_test": 8,
             "params": {"alpha": 2.0, "tau": 3.0}},
    "model": {"modes": [3, 3], "width": 8, "layers": 2, "padding": 2, "projection": [16]},
    "training": {"epochs": 10, "batch_size": 8, "lr": 1.0e-2, "schedule": {"type": "step", "every": 5}},
    "evaluation": {"every": 5, "batch_size": 16, "plots": 0},
}


def test_sharded_steps_match_one_device(tmp_path):
    pinn = write_case(tmp_path, name="pinn.yaml", sampling__interior=64, sampling__boundary=8,
                      training__adam__steps=50, training__log_every=1)
    darcy = copy.deepcopy(TINY_DARCY)
    darcy["data"]["path"] = str(tmp_path / "darcy.h5")
    fno = write_case(tmp_path, darcy, name="fno.yaml")
    env = {**os.environ, "XLA_FLAGS": f"{os.environ['XLA_FLAGS']} --xla_force_host_platform_device_count=4",
           "JAX_PLATFORMS": "cpu", "SCIML_CACHE_DIR": "off"}
    res = subprocess.run([sys.executable, WORKER, pinn, fno, str(tmp_path)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    runs = json.loads(res.stdout.strip().splitlines()[-1])
    layouts = {k: (v["parallel"]["devices"], v["parallel"]["mesh"]) for k, v in runs.items()}
    assert layouts == {"pinn_one": (1, {"data": 1}), "pinn_four": (4, {"data": 4}),
                       "fno_one": (1, {"data": 1}), "fno_four": (4, {"data": 4}),
                       "fno_channels": (4, {"data": 2, "channels": 2})}
    loss = {k: np.array([r["loss"] for r in v["rows"]]) for k, v in runs.items()}
    assert len(loss["pinn_one"]) == 50 and len(loss["fno_one"]) == 10  # every step; every epoch of 5 steps
    for sharded, single in (("pinn_four", "pinn_one"), ("fno_four", "fno_one"), ("fno_channels", "fno_one")):
        np.testing.assert_allclose(loss[sharded], loss[single], rtol=1e-5, err_msg=sharded)
        assert loss[single][-1] < loss[single][0]
    for k in ("fno_four", "fno_channels"):
        np.testing.assert_allclose(runs[k]["metrics"]["rel_l2"], runs["fno_one"]["metrics"]["rel_l2"], rtol=1e-4)


@pytest.mark.parametrize("overrides, key", [
    (["parallel.devices=64"], "parallel.devices"),
    (["parallel.mesh=[3]"], "parallel.mesh"),
])
def test_impossible_layouts_name_the_key(tmp_path, overrides, key):
    case = cases.load(write_case(tmp_path), overrides)
    with pytest.raises(ConfigError) as e:
        cases.run(case, out=str(tmp_path / "run"), quiet=True)
    assert str(e.value).startswith(f"{case.path}: {key}: ")
    if key == "parallel.devices":
        assert "XLA_FLAGS=--xla_force_host_platform_device_count=64" in str(e.value)
    assert not (tmp_path / "run").exists()
