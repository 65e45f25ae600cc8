"""Shares of the cores for processes side by side (``sciml/cores.py``): the test suite's workers, a suite's pool."""
import ast
import os
import subprocess
import sys

import pytest

from sciml import cores


@pytest.mark.parametrize("count, n, want", [
    (2, 2, [{0}, {1}]),
    (16, 2, [set(range(8)), set(range(8, 16))]),
    (5, 2, [{0, 1}, {2, 3, 4}]),  # as equal as the count allows, every core used
    (2, 4, [{0}, {1}, {0}, {1}]),  # more shares than cores: core k mod 2
    (1, 2, [{0}, {0}]),
])
def test_shares_split_the_cores_in_order_and_cover_them(count, n, want):
    assert [cores.share(k, n, list(range(count))) for k in range(n)] == want


def test_shares_are_of_the_cores_given_not_their_numbers():
    assert [cores.share(k, 2, [7, 3, 9, 5]) for k in range(2)] == [{3, 5}, {7, 9}]


WIDEN = ("import os, subprocess, sys\nfrom sciml import cores\n"
         "try:\n    os.sched_setaffinity(0, range(os.cpu_count()))\nexcept OSError:\n    pass\n")  # a worker's share


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_take_pins_this_process_and_what_it_starts_and_one_share_leaves_them_all():
    code = WIDEN + ("mine = sorted(os.sched_getaffinity(0))\nprint(mine)\nprint(cores.take(0, 1))\n"
                    "print(cores.take(1, 2), cores.one_core() == (len(os.sched_getaffinity(0)) == 1))\n"
                    "print(subprocess.check_output([sys.executable, '-c', "
                    "'import os; print(sorted(os.sched_getaffinity(0)))'], text=True).strip())\n")
    lines = subprocess.check_output([sys.executable, "-c", code], text=True).splitlines()
    mine = [int(c) for c in lines[0].strip("[]").split(",")]
    assert lines[1] == "None"  # one share: left as it was
    if len(mine) < 2:
        assert lines[2] == "None True"
        return
    want = sorted(cores.share(1, 2, mine))
    assert lines[2] == f"{set(want)} True" and lines[3] == str(want)  # the child inherits it



@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_a_pool_s_processes_each_take_a_share_of_their_own():
    """``take_from`` as a spawned pool's initializer: each of its two processes on one of the two shares."""
    code = WIDEN + ("import concurrent.futures, multiprocessing, time\n"
                    "if __name__ == '__main__':\n"
                    "    ctx = multiprocessing.get_context('spawn')\n"
                    "    shares = ctx.Queue()\n"
                    "    [shares.put(k) for k in range(2)]\n"
                    "    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx, initializer=cores.take_from,\n"
                    "                                                initargs=(shares, 2)) as pool:\n"
                    "        list(pool.map(time.sleep, [0.5, 0.5]))  # both processes started, each its share taken\n"
                    "        seen = sorted(sorted(os.sched_getaffinity(pid)) for pid in pool._processes)\n"
                    "    print(repr((sorted(os.sched_getaffinity(0)), seen)))\n")
    mine, seen = ast.literal_eval(subprocess.check_output([sys.executable, "-c", code], text=True))
    if len(mine) < 2:
        assert seen == [mine, mine]
        return
    assert seen == [sorted(cores.share(k, 2, mine)) for k in range(2)]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_a_refused_change_leaves_the_cores_as_they_were(monkeypatch):
    def refuse(pid, cpus):
        raise OSError(22, "Invalid argument")

    before = os.sched_getaffinity(0)
    monkeypatch.setattr(cores, "count", lambda: 2)  # as on a machine of two cores
    monkeypatch.setattr(cores, "share", lambda k, n: {0})
    monkeypatch.setattr(os, "sched_setaffinity", refuse)
    assert cores.take(0, 2) is None and os.sched_getaffinity(0) == before
