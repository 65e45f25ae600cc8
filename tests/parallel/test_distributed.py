"""Two processes on 127.0.0.1 through jax.distributed (CPU collectives) match one process."""
import json
import os
import socket
import subprocess
import sys

import numpy as np

WORKER = os.path.join(os.path.dirname(__file__), "distributed_worker.py")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_match_one(tmp_path):
    env = {**os.environ, "XLA_FLAGS": "", "JAX_PLATFORMS": "cpu"}
    one = tmp_path / "one.json"
    subprocess.run([sys.executable, WORKER, "0", "1", "0", str(one)], check=True, env=env, timeout=120)
    port, two = free_port(), tmp_path / "two.json"
    procs = [subprocess.Popen([sys.executable, WORKER, str(port), "2", str(i), str(two)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for i in range(2)]
    for p in procs:
        out, _ = p.communicate(timeout=180)
        assert p.returncode == 0, out.decode()[-2000:]
    a, b = json.loads(one.read_text()), json.loads(two.read_text())
    assert b["processes"] == 2 and b["devices"] == 2 and a["devices"] == 1
    np.testing.assert_allclose(b["losses"], a["losses"], rtol=1e-10)
    assert b["losses"][-1] < 0.1 * b["losses"][0]
