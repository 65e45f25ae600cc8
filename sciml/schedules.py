"""Learning-rate schedules by name: one table for every solver (optax schedules underneath).

``build(kind, lr, total, ...)`` returns ``step -> learning rate``:

- ``constant``: ``lr``;
- ``exponential``: ``lr · rate^(step / decay_steps)`` (with ``staircase``, the exponent is floored: the FNO
  paper's step decay, ``gamma`` every ``every`` epochs);
- ``cosine``: ``lr`` decaying along half a cosine to ``final_lr`` over the ``total`` steps;

each after an optional linear warm-up from 0 over ``warmup`` steps.
"""
from __future__ import annotations

import optax


def build(kind: str, lr: float, total: int, *, decay_steps: int = 1, decay_rate: float = 1.0,
          staircase: bool = False, final_lr: float = 0.0, warmup: int = 0) -> optax.Schedule:
    """The schedule ``kind`` (a key of the table above) for a run of ``total`` steps."""
    table = {
        "constant": lambda: optax.constant_schedule(lr),
        "exponential": lambda: optax.exponential_decay(lr, decay_steps, decay_rate, staircase=staircase),
        "cosine": lambda: optax.cosine_decay_schedule(lr, max(total - warmup, 1), alpha=final_lr / lr),
    }
    main = table[kind]()
    if not warmup:
        return main
    return optax.join_schedules([optax.linear_schedule(0.0, lr, warmup), main], [warmup])
