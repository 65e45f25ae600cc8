"""Run folders: one run per folder (a lock that a dead process does not keep), and a damaged metrics file."""
import os
import signal

import pytest

from sciml import rundir
from sciml.errors import BadFile

from fault_injection import holder


def test_a_held_folder_is_refused_naming_the_holder(tmp_path):
    with rundir.hold(str(tmp_path)):
        with pytest.raises(rundir.FolderInUse) as e:
            with rundir.hold(str(tmp_path)):
                pass
    assert str(e.value) == (f"{tmp_path}: in use by another run (PID {os.getpid()}); wait for it to end, stop it, "
                            "or give another --out")
    with rundir.hold(str(tmp_path)):  # released at the end of the block
        pass


def test_a_dead_holder_blocks_nothing(tmp_path):
    p = holder(str(tmp_path))
    try:
        with pytest.raises(rundir.FolderInUse, match=f"PID {p.pid}\\)"):
            with rundir.hold(str(tmp_path)):
                pass
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert (tmp_path / rundir.LOCK).read_text() == f"{p.pid}\n"  # the dead run's lock file is still there
    with rundir.hold(str(tmp_path)):
        assert (tmp_path / rundir.LOCK).read_text() == f"{os.getpid()}\n"


def test_a_damaged_metrics_file_is_one_line(tmp_path):
    path = tmp_path / "metrics.csv"
    path.write_bytes(b"step,loss\n10,0.5\n20,\x00\x13\n")
    with pytest.raises(BadFile) as e:
        rundir.Metrics.read(str(path))
    assert str(e.value) == f"{path}: damaged metrics file (could not convert string to float: '\\x00\\x13')"
