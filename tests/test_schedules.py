"""Learning-rate schedules: each kind's value at chosen steps, against its formula."""
import doctest

import numpy as np
import pytest

from sciml import schedules


def values(s, steps):
    return [float(s(t)) for t in steps]


def test_onecycle_ramps_along_a_cosine_then_decays_along_one():
    lr, final = 1e-2, 1e-3
    s = schedules.build("onecycle", lr, 100, warmup=20, final_lr=final)
    ramp = [lr * (1 - np.cos(np.pi * t / 20)) / 2 for t in (0, 5, 10, 15, 20)]
    assert values(s, (0, 5, 10, 15, 20)) == pytest.approx(ramp, rel=1e-6, abs=1e-12)
    decay = [final + (lr - final) * (1 + np.cos(np.pi * t / 80)) / 2 for t in (0, 20, 40, 80)]
    assert values(s, (20, 40, 60, 100)) == pytest.approx(decay, rel=1e-6)
    assert float(s(150)) == pytest.approx(final)  # stays at the end


def test_warmup_of_the_other_kinds_is_linear():
    s = schedules.build("cosine", 1.0, 100, warmup=10, final_lr=0.2)
    assert values(s, (0, 5, 10, 55, 100)) == pytest.approx([0.0, 0.5, 1.0, 0.6, 0.2], rel=1e-6)
    s = schedules.build("exponential", 1.0, 100, warmup=10, decay_steps=20, decay_rate=0.5, staircase=True)
    assert values(s, (5, 10, 29, 30, 50)) == pytest.approx([0.5, 1.0, 1.0, 0.5, 0.25], rel=1e-6)


def test_without_warmup_the_curve_starts_at_step_0():
    assert values(schedules.build("constant", 0.3, 10), (0, 9)) == pytest.approx([0.3, 0.3])
    s = schedules.build("exponential", 1.0, 100, decay_steps=10, decay_rate=0.5, staircase=True)
    assert values(s, (0, 9, 10, 35)) == pytest.approx([1.0, 1.0, 0.5, 0.125])
    assert values(schedules.build("cosine", 1.0, 100), (0, 50, 100)) == pytest.approx([1.0, 0.5, 0.0], abs=1e-7)


def test_the_table_says_which_kinds_span_the_run_and_need_a_warmup():
    """A curve that ``spans`` the run changes with its length; the others do not."""
    for name, kind in schedules.KINDS.items():
        a, b = (schedules.build(name, 1.0, total, warmup=5, decay_steps=7, decay_rate=0.5) for total in (50, 100))
        assert (values(a, range(0, 50, 3)) != values(b, range(0, 50, 3))) == kind.spans, name
    assert [n for n, k in schedules.KINDS.items() if k.needs_warmup] == ["onecycle"]


def test_docstring_example():
    result = doctest.testmod(schedules)
    assert result.attempted and not result.failed
