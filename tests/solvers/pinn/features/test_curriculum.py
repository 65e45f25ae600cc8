"""The curriculum (a continuation in one number of the equation: the cavity's Re, a plate's load): its stages,
each stage warm-started from the last, the stage records and the verdict in the summary, resume in the middle of a
stage; case-file mistakes name the key."""
import os
import signal

import h5py
import jax
import numpy as np
import pytest

from sciml import cases, loop
from sciml.cli import main
from sciml.errors import Interrupted, UserError
from sciml.solvers.pinn import run as driver
from sciml.solvers.pinn.features import curriculum
from sciml.solvers.pinn.problem import Problem

LDC = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "cases", "ldc.yaml")
# two stages (Re 100, then 400) of 20 Adam steps each, a tiny plain MLP in u, v, p (quicker to compile)
TINY = ["model.type=mlp", "model.hidden=[8,8]", "equation.formulation=velocity_pressure", "equation.lid_corners=false",
        "equation.Re=400",
        "sampling.interior=64", "sampling.boundary=16", "evaluation.grid=[11,11]", "training.log_every=10",
        "training.checkpoint_every=1000", "training.adam.steps=20", "training.lbfgs.steps=0",
        "training.curriculum={key: equation.Re, values: auto, adam: 20, lbfgs: 0}"]
PLATE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "cases", "plate.yaml")


def train(folder, resume=None):
    cfg = cases.load(LDC, TINY).config
    return driver.train(cfg, str(folder), resume=str(folder) if resume else None, quiet=True)


def ldc(target, values="auto"):
    return cases.load(LDC, [f"equation.Re={target}", f"training.curriculum={{key: equation.Re, values: {values}}}",
                            "equation.checks=[]"]).config


@pytest.mark.parametrize("target,expected", [
    (100, [100]), (50, [50]), (400, [100, 400]), (1000, [100, 400, 1000]), (3200, [100, 400, 1000, 3200]),
    (2000, [100, 400, 1000, 2000]),
])
def test_auto_stages_of_the_flow_are_ghias_reynolds_numbers_below_the_target(target, expected):
    assert curriculum.stages(ldc(target)) == expected


def test_a_stage_list_is_monotone_and_ends_at_the_section_s_value():
    assert curriculum.stages(ldc(1000, "[100, 300, 1000]")) == [100, 300, 1000]
    assert curriculum.stages(ldc(100, "[1000, 400, 100]")) == [1000, 400, 100]
    with pytest.raises(UserError, match="values: the stages must rise or fall, got"):
        ldc(1000, "[400, 100, 1000]")
    with pytest.raises(UserError, match="values: the last stage must be the section's equation.Re = 1000, got 400"):
        ldc(1000, "[100, 400]")


def test_any_number_of_the_section_is_continued_and_named_as_itself():
    """The solver knows no number by name: a plate's Poisson ratio, falling, gives stages labelled, posed and
    passed by its name."""
    from sciml.solvers.pinn import stages

    cfg = cases.load(PLATE, ["training.curriculum={key: equation.nu, values: [0.35, 0.3, 0.25]}"]).config
    plan = stages.plan(cfg)
    assert [s.label for s in plan] == ["nu 0.35", "nu 0.3", "nu 0.25"] and plan[-1].case is cfg
    assert [s.constants for s in plan] == [{"nu": 0.35}, {"nu": 0.3}, {"nu": 0.25}]
    assert [s.case.equation.nu for s in plan] == [0.35, 0.3, 0.25]


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """One whole curriculum run, with what the driver hands the optimizer at each phase's start ``(step,
    params)`` and what it assesses at each stage's end and at the verdict ``(Re, params)``."""
    starts, ends = [], []
    init_state, residual_rms = driver.optim.init_state, curriculum.residual_rms

    def spy_init(params, tx, key, step=0, weights=None):
        starts.append((int(step), jax.device_get(params)))
        return init_state(params, tx, key, step, weights)

    def spy_rms(problem, params, points):
        ends.append((problem.equation.section.Re, jax.device_get(params)))
        return residual_rms(problem, params, points)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(driver.optim, "init_state", spy_init)
        m.setattr(curriculum, "residual_rms", spy_rms)
        folder = tmp_path_factory.mktemp("full")
        return {"summary": train(folder), "folder": folder, "starts": starts, "ends": ends}


def test_each_stage_starts_from_the_parameters_the_last_one_ended_with(full):
    starts, ends, summary = full["starts"], full["ends"], full["summary"]
    assert [s for s, _ in starts] == [0, 20]  # the fresh state, then stage 2's optimizer
    assert [re for re, _ in ends] == [100, 400, 400]  # stage ends, then the final verdict
    same = lambda a, b: all(np.array_equal(x, y) for x, y in zip(jax.tree_util.tree_leaves(a),
                                                                  jax.tree_util.tree_leaves(b)))
    assert same(starts[1][1], ends[0][1])  # stage 2 starts where stage 1 (Re 100) ended
    assert not same(starts[0][1], ends[0][1])  # ... which stage 1 trained
    assert same(ends[1][1], ends[2][1])

    rows = (full["folder"] / "metrics.csv").read_text().splitlines()
    header = rows[0].split(",")
    assert [r.split(",")[header.index("Re")] for r in rows[1:]] == ["100", "100", "400", "400"]
    first, second = summary["stages"]
    assert (first["Re"], first["step"], second["Re"], second["step"]) == (100, 20, 400, 40)
    assert {"residual_rms", "ghia_u_rel_l2", "ghia_v_rel_l2"} <= set(first)
    for k in ("residual_rms", "ghia_u_rel_l2", "ghia_v_rel_l2"):
        assert second[k] == pytest.approx(summary["metrics"][k], rel=1e-7)  # the same parameters, at Re 400
        assert first[k] != second[k]
    assert summary["converged"] is False  # 40 steps of a tiny net
    # stage 2's Adam phase has stage 1's settings: it runs the program stage 1 compiled (Re is in the batch)
    assert (full["folder"] / "log.txt").read_text().count("compiled in") == 1
    assert summary["convergence"].startswith("residual_rms ") and "> 0.05" in summary["convergence"]


def test_resume_in_the_middle_of_a_stage_continues_it_exactly(tmp_path, monkeypatch, full):
    rows = iter(range(100))
    monkeypatch.setattr(loop._Stop, "requested", lambda self: signal.SIGTERM if next(rows) == 2 else 0)
    with pytest.raises(Interrupted):  # after the row of step 30: stage 2 (Re 400), 10 of its 20 steps done
        train(tmp_path / "cut")
    with h5py.File(tmp_path / "cut" / "checkpoints" / "latest.h5") as f:
        assert (int(f.attrs["step"]), int(f.attrs["stage"]), f.attrs["phase"]) == (30, 1, "adam")
    monkeypatch.undo()
    resumed = train(tmp_path / "cut", resume=True)
    # bit-identical, though the resumed run compiled stage 2's program itself (the full run took stage 1's)
    assert resumed["steps"] == 40 and resumed["metrics"] == full["summary"]["metrics"]
    assert len(resumed["stages"]) == len(full["summary"]["stages"]) == 2
    for a, b in zip(resumed["stages"], full["summary"]["stages"]):  # stage 1's record read back from metrics.csv
        assert a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], rel=1e-7) for k in a if k != "wall_time_s")


@pytest.mark.parametrize("overrides,expected", [
    (["equation.Re=1000", "training.curriculum={key: equation.Re, values: [100, 700, 1000]}"],
     "training.curriculum.values[1]: stage Re = 700: equation.checks: ghia1982 has tables for Re = 100, 400, 1000"),
    (["training.curriculum={key: equation.Re, values: [100, 400]}"],
     "training.curriculum.values: the last stage must be the section's equation.Re = 100, got 400"),
    (["equation.Re=null", "equation.nu=0.01", "equation.checks=[]", "training.curriculum={key: equation.Re}"],
     "training.curriculum.key: 'equation.Re' is not a number of the equation section; its numbers are"),
    (["training.curriculum={key: Re}"], "training.curriculum.key: 'Re' is not a number of the equation section"),
    (["training.curriculum={key: equation.rho}"],
     "training.curriculum.values: the equation (navier_stokes) gives no values for rho: list them"),
    (["training.curriculum={key: equation.Re, values: autoo}"],
     "training.curriculum.values: must be one of ['auto'], got 'autoo'"),
    (["training.curriculum={adam: 5}"], "training.curriculum.key: missing required key"),
    (["training.curriculum={Re: auto, adam: 5}"],  # the form of before: how it is written now
     "training.curriculum.Re: a curriculum names its number by key: write training.curriculum: {key: equation.Re, "
     "values: auto}"),
])
def test_case_file_mistakes_are_one_line_naming_the_key(capsys, overrides, expected):
    code = main(["show", LDC, *overrides])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert expected in err, err


def test_the_residual_is_measured_in_the_core_of_the_cavity():
    """A 64 x 64 grid of cell midpoints, less those within 5 % of a wall (the lid's corners are singular)."""
    cfg = cases.load(LDC, ["geometry.x=[0, 2]", "geometry.y=[-1, 0]"]).config
    pts = curriculum.residual_points(driver.assemble(cfg))
    assert pts.shape == (58 * 58, 2)
    assert pts[:, 0].min() > 0.1 and pts[:, 0].max() < 1.9 and pts[:, 1].min() > -0.95 and pts[:, 1].max() < -0.05
    assert np.allclose(np.sort(np.unique(pts[:, 1])), -1 + (np.arange(3, 61) + 0.5) / 64)


def test_the_stages_step_is_one_program_with_re_as_an_argument():
    """The stage's Re rides in the batch: stage 2's chunk lowers to the same program as stage 1's (so stage 2 may
    run the chunk stage 1 compiled), and the loss with Re 400 given is the loss of the problem posed at Re 400."""
    pinn = driver._Pinn(cases.load(LDC, TINY).config)
    state, texts, batches = pinn.init(), [], []
    for k in (0, 1):
        pinn._enter(k)
        phase = next(p for p in pinn.phases if p.stage == k)
        texts.append(driver._chunk(pinn.cfg, phase, pinn.problem, 1).lower(state, pinn.batch, 10).as_text())
        batches.append(pinn.batch)
    assert [float(b["constants"]["Re"]) for b in batches] == [100.0, 400.0]
    assert texts[0] == texts[1]

    params, key = state["params"], jax.random.PRNGKey(1)
    at_400, bare = pinn.problem, {k: v for k, v in batches[1].items() if k != "constants"}
    pinn._enter(0)
    at_100 = pinn.problem
    assert at_100.equation.section.Re == 100
    given = at_100.loss(params, batches[1], key)[0]
    assert float(given) == pytest.approx(float(at_400.loss(params, bare, key)[0]), rel=1e-12)
    assert abs(float(given) - float(at_100.loss(params, bare, key)[0])) > 1e-6 * float(given)  # Re matters


def test_re_in_the_batch_reaches_an_equation_posed_at_unknowns():
    """With unknowns the residuals take the equation from the unknowns (``Problem.equation_at``): the batch's Re
    must reach it there too, else a later stage running an earlier stage's program would train at its Re."""
    cfg = cases.load(LDC, TINY + ["unknowns={rho: {initial: 1.0, bounds: [0.5, 2.0]}}"]).config
    at_400, at_100 = Problem(cfg), Problem(curriculum.stage_case(cfg, 100))
    params, key = at_100.init(jax.random.PRNGKey(0)), jax.random.PRNGKey(1)
    bare = at_400.sample(np.random.default_rng(0))
    given = at_100.loss(params, {**bare, "constants": {"Re": np.asarray(400.0)}}, key)[0]
    assert float(given) == pytest.approx(float(at_400.loss(params, bare, key)[0]), rel=1e-12)
    assert abs(float(given) - float(at_100.loss(params, bare, key)[0])) > 1e-6 * float(given)


def test_the_exported_model_is_the_last_stage_s_and_scores_as_the_summary(full, tmp_path):
    """Issue 74: a curriculum exported its first stage's network (the lowest loss of the run)."""
    from export_check import assert_exported_model_scores_as_summary

    got = assert_exported_model_scores_as_summary(full["folder"], tmp_path)
    assert {"ghia_u_rel_l2", "ghia_v_rel_l2"} <= set(got)
