"""Run folders: one run per folder (a lock that a dead process does not keep), a damaged metrics file, the log."""
import errno
import os
import signal
import sys

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


def test_the_log_keeps_a_bugs_traceback_and_restores_the_streams(tmp_path):
    stdout, stderr = sys.stdout, sys.stderr
    with pytest.raises(ZeroDivisionError):
        with rundir.logging_to(str(tmp_path)) as log:
            print("before the bug")
            print("on the bar's stream", file=log.console)
            1 / 0
    assert (sys.stdout, sys.stderr) == (stdout, stderr)
    text = (tmp_path / rundir.LOG).read_text()
    assert text.startswith("before the bug\nTraceback") and text.endswith("ZeroDivisionError: division by zero\n")
    assert "on the bar's stream" not in text


def test_other_processes_log_nothing(tmp_path, capsys):
    with rundir.logging_to(None):
        print("shown")
    assert capsys.readouterr().out == "shown\n" and os.listdir(tmp_path) == []


def test_a_log_that_cannot_be_written_is_closed_with_a_warning(tmp_path, capsys):
    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            pass

    with rundir.logging_to(str(tmp_path)) as log:
        log._fh = Full()
        print("the run goes on")
        print("and on")
    out, err = capsys.readouterr()
    assert out == "the run goes on\nand on\n"
    assert err == f"warning: {tmp_path / rundir.LOG}: cannot write (No space left on device); the run goes on " \
                  "without its log\n"
