"""FNO figures: truth and prediction share a colour scale, centred at zero for signed fields."""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import CenteredNorm
from matplotlib.layout_engine import ConstrainedLayoutEngine

from sciml.solvers.fno import plots
from sciml.solvers.fno.generators import coordinates


def test_a_signed_sample_shares_a_centred_scale():
    grid = coordinates(9, 2, "periodic")
    w = np.sin(2 * np.pi * grid[..., :1]) * np.cos(2 * np.pi * grid[..., 1:])  # (9, 9, 1), signed
    fig = plots.sample(grid, w + 2.0, w, 0.9 * w, "demo")
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    inp, truth, pred, err = (ax.images[0] for ax in fig.axes if ax.images)
    assert truth.norm is pred.norm and isinstance(truth.norm, CenteredNorm) and truth.cmap.name == "RdBu_r"
    assert truth.norm.vmax == -truth.norm.vmin == np.abs(w).max()
    assert inp.cmap.name == "viridis" and err.cmap.name == "magma"
    plt.close(fig)
