"""Atomic writes: a full disk leaves the previous file intact, no temporary file, and one line naming the path."""
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

from sciml.io import atomic

from fault_injection import disk_with_room


def _leftovers(folder):
    return [f for f in os.listdir(folder) if f.endswith(".tmp")]


@pytest.mark.parametrize("write,read,room", [
    (lambda p, v: atomic.write_text(p, "x" * 100 + v), lambda p: open(p).read(), 50),
    (lambda p, v: atomic.write_bytes(p, b"y" * 100 + v.encode()), lambda p: open(p, "rb").read().decode(), 50),
    (lambda p, v: _h5(p, v), lambda p: h5py.File(p)["a"].attrs["v"], 50),
    (lambda p, v: _h5(p, v), lambda p: h5py.File(p)["a"].attrs["v"], 9000),  # fails as h5py closes the file
], ids=["text", "bytes", "hdf5", "hdf5-at-close"])
def test_full_disk_keeps_the_previous_version(tmp_path, monkeypatch, write, read, room):
    path = str(tmp_path / "f")
    write(path, "old")
    before = read(path)
    monkeypatch.setattr(atomic, "_open", disk_with_room(room))
    with pytest.raises(atomic.DiskFull) as e:
        write(path, "new")
    assert str(e.value) == (f"{path}: cannot write: no space left on the device (the previous version, if any, "
                            "is intact); free some space and run again")
    assert read(path) == before and before.endswith("old")
    assert not _leftovers(tmp_path)
    monkeypatch.setattr(atomic, "_open", disk_with_room(10**6))  # room again: the write goes through
    write(path, "new")
    assert read(path).endswith("new")


def _h5(path, value):
    with atomic.atomic_h5(path) as f:
        f["a"] = np.arange(1000.0)
        f["a"].attrs["v"] = value


def test_keep_moves_the_previous_version_aside(tmp_path):
    path, prev = str(tmp_path / "a.txt"), str(tmp_path / "a.prev.txt")
    for text in ("one", "two", "three"):
        with atomic.atomic_file(path, keep=prev) as fh:
            fh.write(text)
    assert open(path).read() == "three" and open(prev).read() == "two"


def test_other_errors_keep_their_type(tmp_path):
    path = str(tmp_path / "a.txt")
    atomic.write_text(path, "old")
    with pytest.raises(ZeroDivisionError):
        with atomic.atomic_file(path) as fh:
            fh.write("new")
            1 / 0
    assert open(path).read() == "old" and not _leftovers(tmp_path)


def test_a_real_size_limit_through_native_hdf5(tmp_path):
    """The operating system's own refusal (a file size limit: EFBIG), met by h5py's native driver as the
    drivers' fields.h5 writers use it: the same one line, the previous file intact."""
    path = tmp_path / "fields.h5"
    path.write_bytes(b"previous")
    script = f"""
import resource, signal, sys
import h5py, numpy as np
from sciml.io import atomic
from sciml.errors import UserError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit, write() fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
try:
    with atomic.atomic_path({str(path)!r}) as tmp, h5py.File(tmp, "w") as f:
        f["a"] = np.arange(100000.0)
except UserError as e:
    print(type(e).__name__, e)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stdout
    assert out == (f"DiskFull {path}: cannot write: file too large for the file system or the process's size limit "
                   "(the previous version, if any, is intact); free some space and run again\n")
    assert path.read_bytes() == b"previous" and not _leftovers(tmp_path)


@pytest.fixture
def umask():
    """Set the process's umask for a test (``umask(mask)``), the previous one restored after."""
    before = os.umask(0o022)
    yield os.umask
    os.umask(before)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)], ids=oct)
@pytest.mark.parametrize("write", [lambda p: atomic.write_text(p, "t"), lambda p: atomic.write_bytes(p, b"b"),
                                   lambda p: _h5(p, "h")], ids=["text", "bytes", "hdf5"])
def test_new_files_honour_the_umask(tmp_path, umask, mask, mode, write):
    umask(mask)
    path = tmp_path / "f"
    write(str(path))
    assert oct(path.stat().st_mode & 0o777) == oct(mode)
    assert not _leftovers(tmp_path)
