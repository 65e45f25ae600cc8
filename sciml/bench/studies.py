"""Studies for benchmark suites: functions that measure something and return metrics.

Each study is ``fn(**args) -> {"metrics": {...}, "convergence": {...}?}`` registered in ``STUDIES``. A
convergence result holds ``h`` (step sizes), ``error``, ``observed_order`` (least-squares slope of
log error against log h) and ``theoretical_order``. Run one in a fresh process with
``python -m sciml.bench.studies NAME --out DIR [--args JSON]``; it writes ``DIR/result.json``.
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Callable

import numpy as np

from ..io.atomic import write_json

STUDIES: dict[str, Callable[..., dict]] = {}


def study(fn: Callable) -> Callable:
    STUDIES[fn.__name__] = fn
    return fn


def convergence(h, error, theoretical_order: float, h_label: str = "h") -> dict:
    h, error = np.asarray(h, float), np.asarray(error, float)
    order = float(np.polyfit(np.log(h), np.log(error), 1)[0])
    return {"h": h.tolist(), "error": error.tolist(), "observed_order": order,
            "theoretical_order": theoretical_order, "h_label": h_label}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m sciml.bench.studies")
    p.add_argument("name", choices=sorted(STUDIES))
    p.add_argument("--out", required=True)
    p.add_argument("--args", default="{}", help="JSON keyword arguments")
    a = p.parse_args(argv)
    result = STUDIES[a.name](**json.loads(a.args))
    write_json(os.path.join(a.out, "result.json"), result)
    print(json.dumps(result.get("metrics", {}), indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
