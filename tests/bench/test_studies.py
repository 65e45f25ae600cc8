"""Studies that are no convergence orders (those: tests/solvers/test_orders.py)."""
from sciml.bench.studies import STUDIES


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
