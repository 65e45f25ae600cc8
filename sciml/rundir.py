"""Run folders: ``runs/<case>/<timestamp>/`` with config, metrics, checkpoints, fields, plots and summary."""
from __future__ import annotations

import csv
import io
import os
import time

from .io.atomic import write_text


def create(case: str, out: str | None = None, root: str = "runs") -> str:
    """Make (and return) the run folder: ``out`` if given, else a new timestamped one under ``root``."""
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = os.path.join(root, case, stamp)
        n = 1
        while os.path.exists(out):
            out = os.path.join(root, case, f"{stamp}-{n}")
            n += 1
    for sub in ("", "checkpoints", "plots"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    return out


class Metrics:
    """Rows of ``metrics.csv``; the whole file is rewritten atomically after each row (it stays small)."""

    def __init__(self, path: str, rows: list[dict] | None = None):
        self.path, self.rows = path, list(rows or [])

    @staticmethod
    def read(path: str) -> list[dict]:
        if not os.path.exists(path):
            return []
        with open(path, newline="", encoding="utf-8") as fh:
            return [{k: float(v) if v not in ("", None) else float("nan") for k, v in r.items()}
                    for r in csv.DictReader(fh)]

    def append(self, row: dict) -> None:
        self.rows.append(row)
        columns = list(dict.fromkeys(k for r in self.rows for k in r))
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns)
        writer.writeheader()
        for r in self.rows:
            writer.writerow({k: (f"{v:.8g}" if isinstance(v, float) else v) for k, v in r.items()})
        write_text(self.path, buf.getvalue())
