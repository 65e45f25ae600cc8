"""A run's plan of stages: one for a plain case, one per value of a curriculum (later ones with the curriculum's
step counts), one per time window (the case on the window's interval); the two do not combine."""
import os

import pytest

from sciml import cases
from sciml.errors import UserError
from sciml.solvers.pinn import stages

CASES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cases")


def load(name, *overrides):
    return cases.load(os.path.join(CASES, name), list(overrides)).config


def test_a_plain_case_is_one_stage_of_itself():
    cfg = load("kovasznay.yaml")
    (only,) = stages.plan(cfg)
    assert only.case is cfg and only.adam == cfg.training.adam and only.label == "" and only.window is None


def test_a_curriculum_is_a_stage_per_re_ending_with_the_case_itself():
    assert [s.label for s in stages.plan(load("ldc.yaml", "equation.Re=100"))] == ["Re 100"]  # the shipped case
    cfg = load("ldc.yaml", "equation.Re=1000", "training.adam.steps=7", "training.curriculum={key: equation.Re, adam: 5}")
    plan = stages.plan(cfg)
    assert [s.constants for s in plan] == [{"Re": 100}, {"Re": 400}, {"Re": 1000}] and [s.label for s in plan] == ["Re 100", "Re 400", "Re 1000"]
    assert [s.case.equation.Re for s in plan] == [100, 400, 1000] and plan[-1].case is cfg
    assert [s.adam.steps for s in plan] == [7, 5, 5] and [s.lbfgs.steps for s in plan] == [cfg.training.lbfgs.steps,
                                                                                           3000, 3000]


def test_time_windows_are_a_stage_per_interval():
    cfg = load("taylor_green.yaml", "geometry.time=[0.0,1.0]", "training.windows=4")
    plan = stages.plan(cfg)
    assert [s.window for s in plan] == [0, 1, 2, 3] and [s.case.geometry.time for s in plan][1] == (0.25, 0.5)
    assert all(s.adam == cfg.training.adam for s in plan) and plan[2].label == "window 3"


def test_windows_and_a_curriculum_do_not_combine():
    with pytest.raises(UserError, match="training.windows: time windows and a curriculum do not combine"):
        load("taylor_green.yaml", "training.windows=2", "training.curriculum={key: equation.Re, values: [10, 100]}")
