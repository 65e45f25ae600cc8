"""Checks shared by the reference-solver tests: equilibrium and edge conditions by finite differences of fields.

A solution is a function ``fields(x, y) -> {"w", "mx", "my", "mxy", "qx", "qy"}``. With 4th-order central
differences of step ``h`` it must satisfy ``Q_x = ∂x M_x + ∂y M_xy``, ``Q_y = ∂x M_xy + ∂y M_y``,
``∂x Q_x + ∂y Q_y = -q`` (that is, ``D Δ²w = q``) and ``M_x = -D(w_xx + ν w_yy)``, and its edge conditions.
"""
import numpy as np
import pytest

D1 = np.array([1.0, -8.0, 0.0, 8.0, -1.0]) / 12.0            # f' * h
D2 = np.array([-1.0, 16.0, -30.0, 16.0, -1.0]) / 12.0        # f'' * h^2
ONE_SIDED = np.array([-25.0, 48.0, -36.0, 16.0, -3.0]) / 12.0  # f'(0) * h from f(0), f(h), ..., f(4h)
SHIFTS = np.arange(-2, 3)


def _stencil(fields, x, y, h, axis):
    """Fields at the five points shifted along ``axis``: dict of arrays ``(5, *x.shape)``."""
    xs = x[None] + (SHIFTS[:, None] * h if axis == 0 else 0) * np.ones_like(x)[None]
    ys = y[None] + (SHIFTS[:, None] * h if axis == 1 else 0) * np.ones_like(y)[None]
    return fields(xs, ys)


def _d(vals, weights, h, power=1):
    return np.tensordot(weights, vals, axes=1) / h**power


class Checks:
    @staticmethod
    def equilibrium(fields, q, D, nu, x, y, h):
        """Largest relative residuals of the four relations at the interior points ``(x, y)``."""
        fx, fy, f0 = _stencil(fields, x, y, h, 0), _stencil(fields, x, y, h, 1), fields(x, y)
        qs, ms = np.abs(f0["qx"]).max() + np.abs(f0["qy"]).max(), np.abs(f0["mx"]).max() + np.abs(f0["my"]).max()
        load = q(x, y)
        return {
            "qx": np.abs(f0["qx"] - _d(fx["mx"], D1, h) - _d(fy["mxy"], D1, h)).max() / qs,
            "qy": np.abs(f0["qy"] - _d(fx["mxy"], D1, h) - _d(fy["my"], D1, h)).max() / qs,
            "pde": np.abs(_d(fx["qx"], D1, h) + _d(fy["qy"], D1, h) + load).max() / np.abs(load).max(),
            "mx": np.abs(f0["mx"] + D * (_d(fx["w"], D2, h, 2) + nu * _d(fy["w"], D2, h, 2))).max() / ms,
            "my": np.abs(f0["my"] + D * (_d(fy["w"], D2, h, 2) + nu * _d(fx["w"], D2, h, 2))).max() / ms,
        }

    @staticmethod
    def edges(fields, bounds, edges, h, n=9):
        """Largest relative residual of each edge's two conditions at ``n`` points inside each edge."""
        (x0, x1), (y0, y1) = bounds
        t = np.linspace(0.1, 0.9, n)
        interior = fields(*np.meshgrid(np.linspace(x0, x1, 9), np.linspace(y0, y1, 9)))
        wscale = np.abs(interior["w"]).max()
        mscale = max(np.abs(interior["mx"]).max(), np.abs(interior["my"]).max())
        qscale = max(np.abs(interior["qx"]).max(), np.abs(interior["qy"]).max())
        out = {}
        for name, cond in edges.items():
            along_x = name in ("bottom", "top")
            if along_x:
                px, py = x0 + (x1 - x0) * t, np.full(n, y0 if name == "bottom" else y1)
                inward = 1.0 if name == "bottom" else -1.0
            else:
                px, py = np.full(n, x0 if name == "left" else x1), y0 + (y1 - y0) * t
                inward = 1.0 if name == "left" else -1.0
            f = fields(px, py)
            normal_m = f["my"] if along_x else f["mx"]
            if cond == "simply_supported":
                res = [np.abs(f["w"]).max() / wscale, np.abs(normal_m).max() / mscale]
            elif cond == "clamped":
                steps = inward * h * np.arange(5.0)[:, None]
                w = fields(px[None] + (0 if along_x else steps), py[None] + (steps if along_x else 0))["w"]
                res = [np.abs(f["w"]).max() / wscale, np.abs(ONE_SIDED @ w / h).max() * (x1 - x0) / wscale]
            else:  # free: M_n = 0 and V_n = Q_n + d(M_nt)/dt = 0
                g = _stencil(fields, px, py, h, 0 if along_x else 1)
                v = (f["qy"] if along_x else f["qx"]) + _d(g["mxy"], D1, h)
                res = [np.abs(normal_m).max() / mscale, np.abs(v).max() / qscale]
            out[name] = max(res)
        return out


@pytest.fixture
def checks():
    return Checks
