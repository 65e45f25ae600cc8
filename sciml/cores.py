"""Processes side by side, each on a share of the machine's cores of its own.

XLA sizes its CPU thread pool by the cores a process may run on (its CPU affinity) when JAX starts, and splits
each loop of a program among that many threads. Two processes of two threads each on two cores wait on each other
at every small step: a thread that has finished its half of a kernel waits for the other half, whose core the
other process holds. So processes run side by side each take a share of the cores of their own (:func:`take`),
before JAX starts; the processes they start inherit it. Measured on the 2-core machine (DESIGN.md, the test
suite's time): the lattice Boltzmann test's marches 28 s on both cores beside another worker, 13 s on one core of
its own; the test suite's pytest 711 → 604 s; the smoke suite's ``--jobs 2`` pool (:func:`take_from`) 339 → 323 s
and 350 → 334 s in two A/B pairs.

A program is compiled for the threads of the process that compiles it, and JAX's persistent cache does not key it
by them: :func:`sciml.compile.cache_setting` keeps the programs of a process on fewer cores than the machine has
in a folder of their own.

This module imports nothing of JAX's, so that it can run before JAX starts (the test suite's ``conftest.py``).
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
    is more than one core and one share; returns the cores taken, or None (left as they were: also where the
    system refuses the change)."""
    if n < 2 or not hasattr(os, "sched_setaffinity") or count() < 2:
        return None
    cores = share(k, n)
    try:
        os.sched_setaffinity(0, cores)
    except OSError:  # a container's CPU set that does not hold them, a policy that forbids it
        return None
    return cores


def one_core() -> bool:
    """Whether this process runs on a single core (XLA's CPU programs are then made for one thread)."""
    return count() == 1


def take_from(shares, n: int) -> None:
    """A pool process's initializer: :func:`take` the share whose number it gets from the queue ``shares``
    (``0 .. n-1``, one each), before JAX starts in it."""
    take(shares.get(), n)
