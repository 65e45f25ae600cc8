"""Score a cavity run's exported model at Ghia's points through ``sciml predict``, as a user would:

    python docs/ghia_export.py RUN

exports RUN's model (``sciml export``), writes Ghia's centreline points of the run's Re as CSV files, evaluates
the export on them (``sciml predict``) and prints the relative L2 errors of u and v beside the summary's.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import numpy as np
import yaml

from sciml.equations.ns_checks import ghia_tables


def main(run: str) -> None:
    summary = json.load(open(os.path.join(run, "summary.json")))
    re = yaml.safe_load(open(os.path.join(run, "config.yaml")))["equation"]["Re"]
    sciml = os.path.join(os.path.dirname(sys.executable), "sciml")
    model = os.path.join(run, "ghia.jaxexport")
    subprocess.run([sciml, "export", run, "--out", model], check=True)
    for q, t in ghia_tables(re).items():
        s, ref = t["s"][t["scored"]], t["ref"][t["scored"]]
        half = np.full_like(s, 0.5)
        points, pred = os.path.join(run, f"ghia_{q}.csv"), os.path.join(run, f"ghia_{q}_pred.csv")
        np.savetxt(points, np.stack([half, s] if q == "u" else [s, half], -1), delimiter=",", header="x,y",
                   comments="", fmt="%.17g")
        subprocess.run([sciml, "predict", model, points, "--out", pred], check=True)
        with open(pred, newline="") as fh:
            got = np.array([float(r[q]) for r in csv.DictReader(fh)])
        err, want = float(np.linalg.norm(got - ref) / np.linalg.norm(ref)), summary["metrics"][f"ghia_{q}_rel_l2"]
        print(f"ghia_{q}_rel_l2: export {err:.6g}, summary {want:.6g} (ratio {err / want:.9f})")


if __name__ == "__main__":
    main(sys.argv[1])
