"""Studies that are no convergence orders (those: tests/solvers/test_orders.py)."""
import pytest

from sciml.bench.studies import STUDIES
from sciml.solvers.fno import estimate


def test_vorticity_grid_gap_separates_aliasing_from_resolution_and_time_stepping():
    """On 16² against 64² the coarse grid under-resolves the flow: the gap is about 1% however the solve starts,
    the start from the subsampled field (aliased) farther than from its truncation; the time step's own error is
    orders of magnitude below either."""
    r = STUDIES["vorticity_grid_gap"](samples=2, coarse=16, fine=64, T=4.0, times=(1, 4))
    gaps = r["gaps"]
    assert r["times"] == [1, 4] and set(r["metrics"]) == {f"{k}_t{t}" for k in gaps for t in (1, 4)}
    for i in range(2):
        assert 1e-4 < gaps["truncated"][i] < gaps["subsampled"][i] < 0.1
        assert gaps["time_step"][i] < 1e-4 * gaps["truncated"][i]


def test_damage_identifiability_shows_the_sensors_fix_the_drop_only_with_the_zones_size():
    """plate_damage's 100 sensors at 1 % noise: with the zone's radius known the least-squares fit of the
    finite-difference plate finds the drop to about a point (linearised standard deviation), the centre to a
    few per cent of the side; with the radius free too the drop and the radius trade against each other
    (correlation near -1) and the drop's deviation grows several-fold, the centre's hardly."""
    m = STUDIES["damage_identifiability"](draws=1, start=(0.6, 0.6, 0.25, 1.2))["metrics"]
    assert m["known_chi2_per_reading"] < 1.5 and m["free_chi2_per_reading"] <= m["known_chi2_per_reading"] + 1e-9
    assert m["known_drop_sd_linear"] < 2.0 and m["known_drop_error_mean"] < 5.0
    assert max(m["known_x_sd_linear"], m["known_y_sd_linear"]) < 0.03
    assert m["free_drop_radius_correlation"] < -0.95
    assert m["free_drop_sd_linear"] > 4 * m["known_drop_sd_linear"]
    assert m["free_x_sd_linear"] < 1.5 * m["known_x_sd_linear"]


TINY_OPERATOR = ("data.n_train=8", "data.n_test=4", "data.resolution=9", "data.super_resolution=[]",
                 "data.params.terms=32", "model.modes=[3,3]", "model.width=6", "model.layers=2", "model.padding=2",
                 "model.projection=[8]", "training.epochs=2", "training.batch_size=4", "evaluation.batch_size=4")


@pytest.fixture(scope="module")
def operator_ood(tmp_path_factory):
    """The out-of-distribution study of the plate operator on a tiny budget: one load of each kind."""
    return STUDIES["plate_operator_ood"](overrides=TINY_OPERATOR, steps=10, grf=1, patches=1, terms=32,
                                         folder=str(tmp_path_factory.mktemp("ood")))


def test_plate_operator_ood_scores_every_kind_of_load_its_flag_and_its_refinement(operator_ood):
    """Every kind of load is scored; the flag misses and the loads made worse are counted as the loads say; a
    load estimated below half the flag threshold is not refined, and a refined answer is kept only where its
    estimate fell to 0.4 times the trained one's (estimate.FLOOR, estimate.FACTOR) or the trained answer's energy
    is not below 0 or its own fell below it by a quarter of its size (estimate.DROP), else the trained one; the
    estimate's fall admits it only where its energy fell too, by estimate.FALL of its size (estimate.admissible)."""
    m, loads = operator_ood["metrics"], operator_ood["loads"]
    kinds = ["grf", "patch_large", "patch_medium", "patch_point", "uniform", "hydrostatic", "mode_3_2",
             "mode_1_5", "mode_1_1", "mode_2_2"]
    assert [e["kind"] for e in loads] == kinds
    assert {f"{k}_{what}" for k in kinds for what in ("error", "estimate", "flagged", "refined_error",
                                                      "moments_error", "refined_moments_error")} <= set(m)
    assert m["refined_moments_error_max"] == max(e["refined_moments_error"] for e in loads)
    assert m["flag_misses"] == sum(e["error"] > 0.1 and not e["flagged"] for e in loads)
    assert m["worse"] == sum(e["refined_error"] > e["error"] * (1 + 1e-3) for e in loads)
    for e in loads:
        assert e["flagged"] == (e["estimate"] >= m["threshold"])
        kept = estimate.admissible(e["refined_estimate"], e["estimate"] * (1 + 1e-5), energy_first=e["energy"],
                                   energy=e["refined_energy"])
        assert kept or e["refined_error"] == pytest.approx(e["error"], rel=1e-4)
        assert kept or e["refined_moments_error"] == pytest.approx(e["moments_error"], rel=1e-3)  # the trained ones
        assert not kept or e["estimate"] >= estimate.FLOOR * m["threshold"]
    assert m["predict_s_per_input"] > 0 and m["refine_s_per_input"] > 0


def test_clamped_references_vanish_with_their_slope_and_measure_their_solver_where_the_series_is_exact():
    """The clamped plate's reference (Argyris on a mesh whose lines hold the load's jumps): w and its slope across
    the edges vanish, it deflects less than the simply supported plate, and its solver on the simply supported plate
    is Navier's series to the reference's trust, a point-like patch too (finite differences were 0.5-41 % off)."""
    import numpy as np

    from sciml.bench.studies import REFERENCE_TRUST, plate_references
    from sciml.equations.plate_reference import ood_loads, random_loads

    grid = np.linspace(0.0, 1.0, 17)
    got = {k: (c, f) for k, c, f in ood_loads.drawn(grf=0, patches=1, terms=64)}
    w, off = plate_references(got["mode_1_1"][1], got["mode_1_1"][0], grid, h=1 / 8)
    assert np.abs(w[[0, -1]]).max() < 1e-12 and np.abs(w[:, [0, -1]]).max() < 1e-12
    assert abs(w[1, 8]) < 0.1 * abs(w[8, 8])  # the slope vanishes at the edge: w grows like its square there
    assert w[8, 8] < 0.7 * random_loads.solution(got["mode_1_1"][0], grid)["w"][8, 8]
    assert off < 1e-4 and plate_references(got["patch_point"][1], got["patch_point"][0], grid, h=1 / 8)[1] < \
        REFERENCE_TRUST / 10
    fields, again = plate_references(got["mode_1_1"][1], got["mode_1_1"][0], grid, h=1 / 8, fields=("mx", "mxy"))
    assert set(fields) == {"w", "mx", "mxy"} and np.array_equal(fields["w"], w) and again == off
    assert abs(fields["mx"][0, 8]) > abs(fields["mx"][8, 8])  # a clamped edge's moment exceeds the centre's


def test_a_reference_is_trusted_per_kind_only_where_every_load_s_solver_error_is_small():
    from sciml.bench.studies import REFERENCE_TRUST, reference_trust

    got = reference_trust(["grf", "grf", "patch", "mode"], [0.0, REFERENCE_TRUST, 0.2, 2 * REFERENCE_TRUST],
                          [0.004, 0.008, 0.5, 0.003])
    assert got["grf_reference_trusted"] and not got["patch_reference_trusted"] and not got["mode_reference_trusted"]
    assert got["refined_error_max_trusted"] == 0.008 and got["untrusted"] == 2  # not the patch's 0.5
    assert got["patch_reference_error"] == 0.2 and got["grf_reference_error"] == REFERENCE_TRUST / 2
    assert reference_trust(["patch"], [0.2], [0.1])["refined_error_max_trusted"] != 0.1  # NaN: none trusted


def test_plate_operator_ood_refuses_a_sampling_it_does_not_know_in_one_line_before_training(tmp_path, capsys):
    from sciml.bench.studies import main

    code = main(["plate_operator_ood", "--out", str(tmp_path), "--args", '{"sampling": "cells"}'])
    assert code == 2 and capsys.readouterr().err.strip().count("\n") == 0
    assert not (tmp_path / "run").exists()  # refused before the training


TINY_DARCY = ("data.n_train=8", "data.n_test=4", "data.n_labelled=4", "data.resolution=9", "data.physics_resolution=null",
              "data.super_resolution=[]", "model.modes=[3,3]", "model.width=6", "model.layers=2", "model.padding=2",
              "model.projection=[8]", "training.epochs=2", "training.batch_size=4", "evaluation.batch_size=4")


def test_darcy_pino_ood_scores_every_kind_of_coefficient_against_the_solver(tmp_path):
    """The Darcy PINO on a tiny budget: every kind of coefficient scored against the finite-difference solver that
    made its data, its estimate ranked against the true errors, the flags and the refinement counted as the inputs
    say."""
    from sciml.solvers.classical import darcy_kinds

    r = STUDIES["darcy_pino_ood"](overrides=TINY_DARCY, steps=10, grf=1, folder=str(tmp_path))
    m, inputs = r["metrics"], r["inputs"]
    assert [e["kind"] for e in inputs] == ["grf"] + [k for k in darcy_kinds.KINDS[1:] for _ in range(2)]
    assert {f"{k}_{what}" for k in darcy_kinds.KINDS for what in ("error", "estimate", "flagged")} <= set(m)
    assert -1.0 <= m["spearman"] <= 1.0 and m["flag_misses"] == sum(e["error"] > 0.1 and not e["flagged"]
                                                                     for e in inputs)
    assert m["worse"] == sum(e["refined_error"] > e["error"] * (1 + 1e-3) for e in inputs)
    assert all(e["flagged"] == (e["estimate"] >= m["threshold"]) for e in inputs)


def test_the_out_of_distribution_score_refines_at_the_learning_rate_it_is_given():
    """``lr`` reaches every refinement of the study (its warm-up's too); without it ``predict`` keeps its own."""
    import numpy as np

    from sciml.bench.studies import scored_out_of_distribution

    class Stub:
        def __init__(self):
            self.rates = []

        def predict(self, x, estimate=False, refine=0, **kw):
            if refine:
                self.rates.append(kw.get("lr"))
            n = len(x)
            return {"prediction": x, "estimate": np.ones(n), "flagged": np.zeros(n, bool), "threshold": np.ones(n),
                    "energy_before": -np.ones(n), "energy": -np.ones(n)}

    x, truth = np.ones((2, 3, 3, 1)), np.ones((2, 3, 3))
    for lr, expected in ((0.01, [0.01, 0.01]), (None, [None, None])):
        model = Stub()
        metrics, rows = scored_out_of_distribution(model, ["a", "b"], x, truth, 5, lr=lr)
        assert model.rates == expected and metrics["worse"] == 0 and len(rows) == 2
