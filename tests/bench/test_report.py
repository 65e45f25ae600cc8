"""report.md rows (several references per metric, kinds), the errors above their published value with the
entry's reason, and the figures it links."""
import copy
import os

import pytest

from sciml.bench import report, suite
from sciml.config import validate

SUITE = {
    "suite": "r",
    "entries": [
        {"name": "fno", "case": "x.yaml", "metrics": ["rel_l2", "rel_l2_41"],
         "curve": {"x": "test resolution s", "points": {"rel_l2": 21, "rel_l2_41": 41}},
         "references": {"rel_l2": [{"value": 0.02, "source": "paper A"}, {"value": 0.04, "source": "paper B"}]},
         "why": "Too few epochs."},
        {"name": "pts", "case": "x.yaml", "sweep": {"key": "sampling.interior", "values": [250, 500, 1000]},
         "metrics": ["rel_l2_w"]},
        {"name": "ad", "study": "autodiff_ratios", "speeds": ["lap_speedup"], "costs": ["lap_forward_passes"],
         "info": ["compile_s"], "references": {"lap_speedup": {"value": 1.4, "source": "target"}}},
    ],
}
RESULTS = {
    "suite": "r", "started": "now", "wall_time_s": 3.0,
    "machine": {"cpu": "cpu", "cores": 2, "device": "cpu", "jax": "0", "python": "3"},
    "entries": {
        "fno": {"status": "ok", "metrics": {"rel_l2": 0.03, "rel_l2_41": 0.05}, "wall_time_s": 1.0,
                "datagen_s": 2.0, "steps_per_s": 10.0, "training_s": 0.5,
                "last_k": {"metric": "rel_l2", "k": 5, "n": 3, "mean": 0.031, "std": 0.001, "min": 0.03,
                           "max": 0.032}},
        "pts": {"status": "ok", "metrics": {"rel_l2_w": 0.01}, "sweep": {"key": "sampling.interior", "points": [
            {"value": v, "status": "ok", "metrics": {"rel_l2_w": e}} for v, e in ((250, 0.04), (500, 0.02), (1000, 0.01))]}},
        "ad": {"status": "ok", "metrics": {"lap_speedup": 1.6, "lap_forward_passes": 2.5, "compile_s": 0.3}},
    },
}


@pytest.mark.figures("fno_curve", "pts", "comparison", "speeds")
def test_report_rows_and_figures(tmp_path):
    s = validate(suite.Suite, SUITE, "r.yaml")
    report.write(s, RESULTS, str(tmp_path))
    text = (tmp_path / "report.md").read_text()
    published = text[text.index("## Errors against published values"):text.index("## Every metric")]
    assert published.count("\n| fno |") == 2 and "| ad |" not in published  # errors with a reference only
    assert "| fno | rel_l2 | 0.03 | 0.04 | 0.75 | 1 | 0.5 | 0.031 ± 0.001 (0.03–0.032; last 3 of 5) | paper B |" \
        in published
    assert "| fno | rel_l2 | error | 0.03 | 0.02 | paper A | 1.5 |" in text
    assert "| fno | rel_l2 | error | 0.03 | 0.04 | paper B | 0.75 |" in text
    assert "| ad | lap_speedup | speed | 1.6 | 1.4 | target | 1.143 |" in text
    assert "| ad | lap_forward_passes | cost | 2.5 |" in text and "| ad | compile_s | info | 0.3 |" in text
    assert "| fno | ok | 1 | 2 | 10 |" in text
    for name in ("fno_curve.png", "pts.png", "comparison.png", "speeds.png"):
        assert f"plots/{name}" in text
        with open(os.path.join(tmp_path, "plots", name), "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_errors_above_their_published_value_come_with_the_reason(tmp_path):
    s = validate(suite.Suite, SUITE, "r.yaml")
    report.write(s, RESULTS, str(tmp_path))
    text = (tmp_path / "report.md").read_text()
    above = text[text.index("### Above the published value, and why"):text.index("## Every metric")]
    # above paper A's 0.02 (1.5x), below paper B's 0.04: one line
    assert above.strip().splitlines()[2:] == ["- `fno` rel_l2: 0.03 against 0.02, 1.50× the published value. "
                                              "Too few epochs."]
    plain = copy.deepcopy(SUITE)
    del plain["entries"][0]["why"]
    report.write(validate(suite.Suite, plain, "r.yaml"), RESULTS, str(tmp_path))
    assert "1.50× the published value. No reason recorded." in (tmp_path / "report.md").read_text()
    results = copy.deepcopy(RESULTS)
    results["entries"]["fno"]["metrics"]["rel_l2"] = 0.01  # below both: no such section
    report.write(s, results, str(tmp_path))
    assert "Above the published value" not in (tmp_path / "report.md").read_text()
