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
