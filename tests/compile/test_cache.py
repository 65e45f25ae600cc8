"""The persistent compilation cache: a second process running the same case loads what the first compiled; a
process on fewer cores than the machine has keeps its programs apart."""
import json
import os
import subprocess
import sys

import pytest

from cli_cases import write_case
from sciml import cores
from sciml.compile import cache_setting, default_cache, enable_cache

WORKER = os.path.join(os.path.dirname(__file__), "cache_worker.py")


def entries(folder) -> set:
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


def kept(folder: str) -> str:
    """Where this process (and those it starts) keeps the programs of cache ``folder``: the folder itself on
    every core, ``cores-N`` within it on fewer (an xdist worker on its share)."""
    n = cores.count()
    return folder if n >= os.cpu_count() else os.path.join(folder, f"cores-{n}")


def test_second_run_compiles_from_the_cache(tmp_path):
    case = write_case(tmp_path, training__adam__steps=4, training__log_every=2)
    cache = tmp_path / "cache"
    programs = type(cache)(kept(str(cache)))
    # every program is written (so that the test does not hang on how long XLA takes to compile)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "SCIML_CACHE_DIR": str(cache),  # the suite's XLA_FLAGS
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    runs = []
    for name in ("first", "second"):
        res = subprocess.run([sys.executable, WORKER, case, str(tmp_path / name)], env=env, capture_output=True,
                             text=True, timeout=300)
        assert res.returncode == 0, res.stderr[-3000:]
        summary = json.loads((tmp_path / name / "summary.json").read_text())
        runs.append((entries(programs), int(res.stdout.rsplit("cache hits:", 1)[1]), summary))
    (first, first_hits, s1), (second, second_hits, s2) = runs
    assert first and first_hits == 0  # an empty cache: everything compiled, and written
    assert second == first  # nothing new to write: every program came from the cache
    assert second_hits >= len([e for e in first if e.endswith("-cache")]) > 0
    assert s1["compile_cache"] == s2["compile_cache"] == str(programs)
    assert s1["metrics"] == s2["metrics"] and s2["compile_time_s"] >= 0


@pytest.mark.parametrize("value, expected", [
    (None, "XDG_CACHE_HOME/sciml/jax"), ("off", None), ("OFF", None), ("", None),
    ("somewhere/else", os.path.abspath("somewhere/else")),
])
def test_cache_folder_from_the_environment(monkeypatch, tmp_path, value, expected):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "XDG_CACHE_HOME"))
    if value is None:
        monkeypatch.delenv("SCIML_CACHE_DIR", raising=False)
    else:
        monkeypatch.setenv("SCIML_CACHE_DIR", value)
    expected = str(tmp_path / expected) if value is None else expected
    assert cache_setting() == (expected and kept(expected))


@pytest.mark.parametrize("xdg", ["", "relative/cache"])  # unset or not absolute: ignored, as the XDG spec says
def test_default_cache_falls_back_to_the_home_folder(monkeypatch, tmp_path, xdg):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert default_cache() == os.path.join(tmp_path, "home", ".cache", "sciml", "jax")


def test_the_cache_goes_to_the_user_cache_folder_never_the_working_directory(monkeypatch, tmp_path):
    import jax

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SCIML_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    before = jax.config.jax_compilation_cache_dir
    try:
        folder = enable_cache()
        assert folder == kept(str(tmp_path / "xdg" / "sciml" / "jax")) == jax.config.jax_compilation_cache_dir
        assert os.path.isdir(folder) and os.listdir(tmp_path) == ["xdg"]  # nothing else made where we stand
    finally:
        enable_cache(before or "off")


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or (os.cpu_count() or 1) < 2, reason="one core")
def test_a_process_on_fewer_cores_keeps_its_programs_apart(tmp_path):
    """The folder itself on every core; ``cores-1`` within it on one (its programs are made for one thread)."""
    code = ("import os\nfrom sciml import cores\nfrom sciml.compile import cache_setting\n"
            "os.sched_setaffinity(0, range(os.cpu_count()))\nprint(cache_setting())\n"
            "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\nprint(cache_setting())\n")
    env = {**os.environ, "SCIML_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(tmp_path), str(tmp_path / "cores-1")]
