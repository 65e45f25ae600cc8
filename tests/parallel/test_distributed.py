"""Two processes on 127.0.0.1 through jax.distributed (CPU collectives) train a PINN case as one process does."""
import json
import os
import socket
import subprocess
import sys

import numpy as np

from cli_cases import write_case

WORKER = os.path.join(os.path.dirname(__file__), "distributed_worker.py")
ENV = {**os.environ, "JAX_PLATFORMS": "cpu", "SCIML_CACHE_DIR": "off"}  # the suite's XLA_FLAGS (conftest.py)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def losses(folder):
    return np.genfromtxt(folder / "metrics.csv", delimiter=",", names=True)


def test_two_processes_match_one(tmp_path):
    # even counts (each process draws half of each), new points every 10 steps
    case = write_case(tmp_path, sampling__interior=64, sampling__boundary=8, sampling__resample_every=10,
                      training__adam__steps=30, training__log_every=5)
    port = free_port()
    procs = [subprocess.Popen([sys.executable, WORKER, case, str(tmp_path / f"two{i}"), str(port), "2", str(i)],
                              env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for i in range(2)]
    one = subprocess.run([sys.executable, WORKER, case, str(tmp_path / "one"), "0", "1", "0"], env=ENV,
                         capture_output=True, text=True, timeout=300)
    assert one.returncode == 0, one.stdout[-2000:] + one.stderr[-2000:]
    for p in procs:
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0, out.decode()[-3000:]
    assert not (tmp_path / "two1").exists()  # only process 0 writes
    two, ref = losses(tmp_path / "two0"), losses(tmp_path / "one")
    assert len(two) == len(ref) == 6
    for column in ("loss", "losspde"):
        np.testing.assert_allclose(two[column], ref[column], rtol=1e-8)
    assert two["loss"][-1] < two["loss"][0]
    s2, s1 = (json.loads((tmp_path / f / "summary.json").read_text()) for f in ("two0", "one"))
    assert s2["parallel"]["processes"] == 2 and s2["parallel"]["devices"] == 2
    assert s2["parallel"]["interior_points"] == s1["parallel"]["interior_points"] == 64
    np.testing.assert_allclose(s2["metrics"]["rel_l2_w"], s1["metrics"]["rel_l2_w"], rtol=1e-6)
