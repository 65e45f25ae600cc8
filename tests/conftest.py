"""Test-wide settings: float64 available (validation runs in float64), a headless matplotlib backend."""
import os

os.environ.setdefault("MPLBACKEND", "Agg")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
