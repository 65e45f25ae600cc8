"""Test-wide settings: each xdist worker on a share of the cores of its own, float64 available (validation runs in
float64), a headless matplotlib backend, XLA's backend at optimisation level 0 (below), and the persistent
compilation cache, as every ``sciml run`` has one, in a fresh folder of each pytest process's own (each xdist
worker too: no two write one folder; removed at exit; subprocesses that tests start inherit it): the many tests
that build the same small programs (a run, then the same run resumed; an ensemble's members) compile each once.
``SCIML_CACHE_DIR`` set by the caller is kept (``off`` turns the cache off). Under xdist, a worker takes a test file
at a time, and each notebook's run is a unit of its own, handed out first (:func:`pytest_xdist_make_scheduler`).

The run ends with the ten test files that took longest (the sum of their tests' set-up, call and tear-down) and
the seconds XLA spent compiling for each, so that a file that grew slower is seen in the CI log the day it lands,
and whether compiling or computing made it so."""
import atexit
import collections
import os
import shutil
import tempfile

import pytest
import threadpoolctl

from sciml import cores  # imports nothing of JAX's (sciml/cores.py)

os.environ.setdefault("MPLBACKEND", "Agg")
# XLA's backend (LLVM) at optimisation level 0, and its CPU fusions emitted by the older emitters rather than the
# MLIR fusion emitters: most of the suite's programs run for less time than they take to compile, and level 0
# compiles them in about half the time, the older emitters in about half again (DESIGN.md, the test suite's time;
# the marching solvers keep XLA's defaults: sciml.compile.MARCHING). A flag the caller set in XLA_FLAGS is kept.
# Processes that tests start inherit the flags; a test that gives one flags of its own adds them to these.
# Each xdist worker runs on a share of the cores of its own (``sciml/cores.py``; ``SCIML_TEST_PIN=0`` leaves them
# all), taken before JAX starts; numpy's BLAS, loaded already (by a plugin), is held to as many threads, as the
# processes a test starts size theirs (a sum's rounding depends on them: a run resumed in a process of its own must
# end as the run in this one did). On one core XLA compiles each program as one LLVM module (no thread to compile its
# parts on beside it): on one core, level 0 and the older emitters compiled a program wrong when it was split
# (DESIGN.md, the test suite's time).
_FLAGS = [("xla_backend_optimization_level", "0"), ("xla_cpu_use_fusion_emitters", "false")]
if os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw") and os.environ.get("SCIML_TEST_PIN") != "0":
    _taken = cores.take(int(os.environ["PYTEST_XDIST_WORKER"][2:]), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", 1)))
    if _taken:
        threadpoolctl.threadpool_limits(len(_taken))
if cores.one_core():
    _FLAGS.append(("xla_cpu_parallel_codegen_split_count", "1"))
for _flag, _value in _FLAGS:
    if _flag not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --{_flag}={_value}".strip()
os.environ["SCIML_PLOTS"] = "off"  # figures not built, none written (:func:`_figures`)
if os.environ.get("SCIML_CACHE_DIR", os.environ.get("SCIML_TEST_CACHE")) == os.environ.get("SCIML_TEST_CACHE"):
    # unset, or this folder inherited from the pytest process that started this one
    os.environ["SCIML_CACHE_DIR"] = os.environ["SCIML_TEST_CACHE"] = tempfile.mkdtemp(prefix="sciml-test-cache-")
    atexit.register(shutil.rmtree, os.environ["SCIML_TEST_CACHE"], True)

import jax  # noqa: E402

from sciml.compile import enable_cache  # noqa: E402

jax.config.update("jax_enable_x64", True)
enable_cache()

_compiled = [0.0, 0.0]  # seconds XLA compiled in this process: in all, and when the last test phase ended


def _count_compiles(event: str, seconds: float, **_) -> None:
    if event == "/jax/core/compile/backend_compile_duration":
        _compiled[0] += seconds


jax.monitoring.register_event_duration_secs_listener(_count_compiles)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report carries the seconds compiled during it (xdist sends it to the controller)."""
    report = (yield).get_result()
    report.user_properties = [*report.user_properties, ("compile_s", _compiled[0] - _compiled[1])]
    _compiled[1] = _compiled[0]


ALONE = "tests/test_notebooks.py::test_runs_top_to_bottom_in_small_mode"  # tests that are a work unit each
# files of few tests that take 10 s or more each (whole runs in processes of their own; seconds summed, session 57):
# by their count they came last, where one left a worker alone at the end
EARLY = ("tests/bench/test_calibration.py",  # 61 s, 4 tests
         "tests/solvers/pinn/test_start.py",  # 46 s, 4 tests
         "tests/parallel/test_distributed.py")  # 30 s, 1 test


def pytest_collection_modifyitems(items):
    """The order xdist hands out work in (see :func:`pytest_xdist_make_scheduler`): the notebooks' runs first (the
    longest tests, each its own unit, so that no worker is left with them at the end), then the :data:`EARLY` files,
    then each file's tests together, the files with most tests first."""
    file = lambda item: item.nodeid.split("::")[0]  # noqa: E731
    count = collections.Counter(file(item) for item in items)
    items.sort(key=lambda item: (not item.nodeid.startswith(ALONE), file(item) not in EARLY, -count[file(item)]))


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` (``make test``) with the notebooks' runs each a unit of their own: a worker takes a test
    file at a time (a file's programs and module fixtures stay in one process), in collection order."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.startswith(ALONE) else super()._split_scope(nodeid)

    config.option.loadscopereorder = False  # the order is pytest_collection_modifyitems'
    return Scheduling(config, log)


def pytest_configure(config):
    config.addinivalue_line("markers", "figures(*names): the test reads the figures its runs write, these alone "
                                       "when named (file names without .png; no other test's runs write any)")


@pytest.fixture(autouse=True)
def _figures(request, monkeypatch):
    """The suite's runs neither build nor write their figures (``SCIML_PLOTS=off``, set above for this process and
    those it starts: drawing a PNG costs about 0.4 s, half the time of a small run's end, and building the figure
    about 0.1 s; every kind of figure is written by a marked test); a test marked
    ``figures`` writes them, in process and in the processes it starts: those it names alone
    (``@pytest.mark.figures("loss", "w")``, as ``SCIML_PLOTS=only:loss,w``), else all."""
    from sciml import plots

    marker = request.node.get_closest_marker("figures")
    if marker is None:
        yield
        return
    names = frozenset(marker.args)
    monkeypatch.setenv("SCIML_PLOTS", "only:" + ",".join(sorted(names)) if names else "on")
    with plots.writing(names or True):
        yield


_seconds: collections.Counter = collections.Counter()  # test file -> seconds (the controller's view under xdist)
_compiling: collections.Counter = collections.Counter()  # test file -> seconds of them XLA compiled


def pytest_runtest_logreport(report):
    name = report.nodeid.split("::")[0]
    _seconds[name] += report.duration
    _compiling[name] += sum(v for k, v in report.user_properties if k == "compile_s")


def pytest_terminal_summary(terminalreporter):
    if not _seconds:
        return
    terminalreporter.section("slowest test files")
    terminalreporter.write_line(f"{'seconds':>8}  {'compiling':>9}  file")
    for name, s in _seconds.most_common(10):
        terminalreporter.write_line(f"{s:8.1f}  {_compiling[name]:9.1f}  {name}")
    terminalreporter.write_line(f"{sum(_seconds.values()):8.1f}  {sum(_compiling.values()):9.1f}  "
                                f"in all ({len(_seconds)} files)")
