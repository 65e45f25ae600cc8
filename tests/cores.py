"""The test suite's workers each on a share of the machine's cores (``tests/conftest.py``).

XLA sizes its CPU thread pool by the cores a process may run on (its CPU affinity) when JAX starts, and splits
each loop of a program among that many threads. Two processes of two threads each on two cores wait on each other
at every small step: a thread that has finished its half of a kernel waits for the other half, whose core the
other process holds. So processes run side by side each take a share of the cores of their own (:func:`take`),
before JAX starts; the processes they start inherit it. Measured on the 2-core machine (DESIGN.md, the test
suite's time): the lattice Boltzmann test's marches 28 s on both cores beside another worker, 13 s on one core of
its own; the whole suite's pytest 711 → 604 s.

Not for ``sciml bench --jobs``: its entries gained little (the smoke phase 350 → 334 s, each entry within a few
per cent either way), and JAX's persistent cache does not key a program by the cores it was made for, so a pinned
entry's programs (one thread's) would be loaded by a user's later run on every core.

This module imports nothing of JAX's, so that it can run before JAX starts.
"""
from __future__ import annotations

import os


def count() -> int:
    """The cores this process may run on (its CPU affinity; every core where the system has none)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def share(k: int, n: int, cores: list[int] | None = None) -> set[int]:
    """The ``k``-th of ``n`` shares of ``cores`` (default: those this process may run on), as equal as their
    count allows; with fewer cores than shares, share ``k`` is core ``k mod`` their count."""
    cores = sorted(os.sched_getaffinity(0)) if cores is None else sorted(cores)
    if n >= len(cores):
        return {cores[k % len(cores)]}
    return set(cores[k * len(cores) // n:(k + 1) * len(cores) // n])


def take(k: int, n: int) -> set[int] | None:
    """Run this process (and those it starts) on :func:`share` ``(k, n)``, where the system allows it and there
    is more than one core and one share; returns the cores taken, or None (left as they were)."""
    if n < 2 or not hasattr(os, "sched_setaffinity") or count() < 2:
        return None
    cores = share(k, n)
    os.sched_setaffinity(0, cores)
    return cores


def one_core() -> bool:
    """Whether this process runs on a single core (XLA's CPU programs are then made for one thread)."""
    return count() == 1
