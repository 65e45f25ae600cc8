"""Learning-rate schedules: each kind's value at chosen steps, against its formula; the one case-file section of
both solvers, its old keys refused with the new ones named, and every shipped case's schedule the same as it was
in the two vocabularies before it."""
import doctest
import glob
import os
import typing

import jax.numpy as jnp
import numpy as np
import optax
import pytest
import yaml

from sciml import schedules
from sciml.cases import SOLVERS
from sciml.config import build, validate
from sciml.errors import ConfigError, Invalid
from sciml.solvers.fno.config import EpochSchedule

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = sorted(glob.glob(os.path.join(ROOT, "cases", "*.yaml")))


def read(path: str) -> dict:
    with open(path) as f:
        return yaml.safe_load(f)


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
    s = schedules.build("step", 1.0, 100, warmup=10, every=20, decay=0.5)
    assert values(s, (5, 10, 29, 30, 50)) == pytest.approx([0.5, 1.0, 1.0, 0.5, 0.25], rel=1e-6)


def test_without_warmup_the_curve_starts_at_step_0():
    assert values(schedules.build("constant", 0.3, 10), (0, 9)) == pytest.approx([0.3, 0.3])
    s = schedules.build("step", 1.0, 100, every=10, decay=0.5)
    assert values(s, (0, 9, 10, 35)) == pytest.approx([1.0, 1.0, 0.5, 0.125])
    s = schedules.build("exponential", 1.0, 100, every=10, decay=0.5)
    assert values(s, (0, 5, 10, 35)) == pytest.approx([1.0, 0.5 ** 0.5, 0.5, 0.5 ** 3.5], rel=1e-6)
    assert values(schedules.build("cosine", 1.0, 100), (0, 50, 100)) == pytest.approx([1.0, 0.5, 0.0], abs=1e-7)


def test_the_table_says_which_kinds_span_the_run_and_need_a_warmup():
    """A curve that ``spans`` the run changes with its length; the others do not."""
    for name, kind in schedules.KINDS.items():
        a, b = (schedules.build(name, 1.0, total, warmup=5, every=7, decay=0.5) for total in (50, 100))
        assert (values(a, range(0, 50, 3)) != values(b, range(0, 50, 3))) == kind.spans, name
    assert [n for n, k in schedules.KINDS.items() if k.needs_warmup] == ["onecycle"]


def test_docstring_example():
    result = doctest.testmod(schedules)
    assert result.attempted and not result.failed


def test_the_section_names_each_kind_of_the_table():
    assert set(typing.get_args(typing.get_type_hints(schedules.ScheduleConfig)["type"])) == set(schedules.KINDS)


def test_every_and_warmup_count_the_solvers_unit():
    """An operator's ``every`` and ``warmup`` are epochs: ``unit`` steps each."""
    cfg = schedules.ScheduleConfig(type="step", decay=0.5, every=3, warmup=2)
    assert values(cfg.learning_rate(1.0, 100, unit=4), (4, 8, 19, 20, 32)) == pytest.approx(
        [0.5, 1.0, 1.0, 0.5, 0.25])
    assert values(cfg.learning_rate(1.0, 100), (1, 2, 4, 5, 8)) == pytest.approx([0.5, 1.0, 1.0, 0.5, 0.25])


@pytest.mark.parametrize("schema,unit", [(schedules.ScheduleConfig, "step"), (EpochSchedule, "epoch")])
def test_onecycle_without_a_warmup_names_the_unit(schema, unit):
    with pytest.raises(Invalid, match=f"^warmup: onecycle needs a warm-up of at least 1 {unit}$"):
        build(schema, {"type": "onecycle"})


# the keys of the two vocabularies before this one (a PINN's training.adam.schedule, an operator's
# training.schedule) and the key each is written as now
OLD_KEYS = [("pinn", "training.adam.schedule", "decay_rate", 0.5, "decay"),
            ("pinn", "training.adam.schedule", "decay_steps", 100, "every"),
            ("pinn", "training.adam.schedule", "warmup_steps", 10, "warmup"),
            ("fno", "training.schedule", "gamma", 0.5, "decay")]


@pytest.mark.parametrize("solver,section,old,value,new", OLD_KEYS, ids=[k[2] for k in OLD_KEYS])
def test_an_old_key_is_one_line_naming_the_new_one(solver, section, old, value, new):
    case = next(p for p in CASES if read(p)["solver"] == solver)
    raw = read(case)
    node = raw
    for part in section.split("."):
        node = node.setdefault(part, {})
    node[old] = value
    with pytest.raises(ConfigError) as e:
        validate(SOLVERS[solver].schema, raw, case)
    assert str(e.value) == f"{case}: {section}.{old}: renamed: write {section}.{new}"


# The schedules before the one vocabulary, as the solvers built them (git 10dd1e8: solvers/pinn/optim.py,
# solvers/fno/run.py and sciml/schedules.py): the same optax calls with the same arguments, written out here.
OLD_DEFAULTS = {"pinn": {"type": "exponential", "decay_rate": 0.9, "decay_steps": 1000, "final_lr": 0.0,
                         "warmup_steps": 0},
                "fno": {"type": "step", "every": 100, "gamma": 0.5, "final_lr": 0.0, "warmup": 0}}
NEW_TO_OLD = {"pinn": {"decay": "decay_rate", "every": "decay_steps", "warmup": "warmup_steps"},
              "fno": {"decay": "gamma"}}


def old_schedule(solver: str, section: dict, lr: float, total: int, unit: int) -> optax.Schedule:
    """The schedule of ``section`` (old keys) as the solver built it then (``unit``: an operator's steps per
    epoch; a PINN's 1)."""
    s = {**OLD_DEFAULTS[solver], **section}
    if solver == "pinn":
        kind, warmup, period, rate, staircase = s["type"], s["warmup_steps"], s["decay_steps"], s["decay_rate"], False
    else:
        kind, warmup, period, rate, staircase = s["type"], s["warmup"] * unit, s["every"] * unit, s["gamma"], True
        kind = "exponential" if kind == "step" else kind
    cosine = lambda: optax.cosine_decay_schedule(lr, max(total - warmup, 1), alpha=s["final_lr"] / lr)
    curve = {"constant": lambda: optax.constant_schedule(lr), "cosine": cosine, "onecycle": cosine,
             "exponential": lambda: optax.exponential_decay(lr, period, rate, staircase=staircase)}[kind]()
    if not warmup:
        return curve
    ramp = (optax.linear_schedule(0.0, lr, warmup) if kind != "onecycle" else
            lambda t: lr * (1.0 - jnp.cos(jnp.pi * jnp.minimum(t / warmup, 1.0))) / 2.0)
    return optax.join_schedules([ramp, curve], [warmup])


def old_section(solver: str, section: dict) -> dict:
    """A case's schedule section (its keys now) in the solver's vocabulary before."""
    return {NEW_TO_OLD[solver].get(k, k): v for k, v in section.items()}


def section_of(raw: dict) -> dict:
    """The schedule section of a case file as written (empty: the defaults)."""
    training = raw.get("training", {})
    return (training.get("adam", {}) if raw["solver"] == "pinn" else training).get("schedule", {})


def steps_of(total: int, every: int, warmup: int) -> list[int]:
    """The steps to compare at: the ends, the warm-up's and the first decays' edges, points in between."""
    edges = [0, 1, warmup - 1, warmup, warmup + 1, total // 3, total // 2, total - 1, total, total + 7]
    edges += [warmup + k * every + d for k in (1, 2) for d in (-1, 0, 1)]
    return sorted({t for t in edges if t >= 0})


def same_to_the_bit(solver: str, section: dict, new: schedules.ScheduleConfig, lr: float, total: int, unit: int):
    """``new``'s schedule equals that of ``section`` (its keys now) in the solver's old vocabulary, bit for bit."""
    old = old_schedule(solver, old_section(solver, section), lr, total, unit)
    steps = steps_of(total, new.every * unit, new.warmup * unit)
    got = np.array([new.learning_rate(lr, total, unit)(t) for t in steps])
    want = np.array([old(t) for t in steps])
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (steps, got, want)


@pytest.mark.parametrize("path", CASES, ids=os.path.basename)
def test_a_shipped_cases_schedule_is_the_old_one_to_the_bit(path):
    """With an operator's epochs of 7 steps."""
    raw = read(path)
    cfg = validate(SOLVERS[raw["solver"]].schema, raw, path)
    if raw["solver"] == "pinn":
        same_to_the_bit("pinn", section_of(raw), cfg.training.adam.schedule, cfg.training.adam.lr,
                        cfg.training.adam.steps, 1)
    else:
        same_to_the_bit("fno", section_of(raw), cfg.training.schedule, cfg.training.lr, 7 * cfg.training.epochs, 7)


def test_every_shipped_case_is_checked_and_both_solvers():
    assert len(CASES) >= 30 and {read(p)["solver"] for p in CASES} == {"pinn", "fno"}


# sections no shipped case has: a warm-up, the kinds, the defaults (keys now)
OTHERS = [("pinn", {"type": "cosine", "final_lr": 1e-4, "warmup": 50}, 1e-3, 500, 1),
          ("pinn", {"type": "constant", "warmup": 10}, 2e-3, 100, 1),
          ("pinn", {"decay": 0.5, "every": 30, "warmup": 5}, 1e-2, 200, 1),
          ("fno", {"type": "onecycle", "warmup": 2, "final_lr": 1e-3}, 1e-2, 40, 4),
          ("fno", {"type": "step", "every": 3, "decay": 0.7, "warmup": 1}, 1e-2, 60, 5),
          ("fno", {"type": "constant", "warmup": 2}, 1e-2, 40, 4),
          ("fno", {}, 1e-3, 2000, 3)]


@pytest.mark.parametrize("solver,section,lr,total,unit", OTHERS)
def test_other_sections_give_the_old_schedule_to_the_bit(solver, section, lr, total, unit):
    new = build(schedules.ScheduleConfig if solver == "pinn" else EpochSchedule, section)
    same_to_the_bit(solver, section, new, lr, total, unit)
