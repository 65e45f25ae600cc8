"""``report.md`` and PNG plots for a suite's results.

The report holds, in order: the errors that have a published value (ours, the published one, their ratio, the
entry's wall time and training time, and where the run reports it the spread of its last evaluations: mean ±
std, min–max), the ones above their published value with the entry's reason (``why``), every metric with its
references, the runs' times and speeds, and the plots.
"""
from __future__ import annotations

import os

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from ..io.atomic import write_text
from ..plots import save
from .baseline import value


def _fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _ticks_at(ax, xs) -> None:
    """Label a log x axis at the measured abscissae only (no crowded minor labels)."""
    xs = sorted({float(x) for x in xs if np.isfinite(x) and x > 0})
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(xs, [f"{x:.0f}" if x.is_integer() else f"{x:.3g}" for x in xs])


def sweep_plot(name: str, sweep: dict, metrics: list[str], path: str) -> None:
    """Each metric against the swept value, log–log, with the fitted slope in the legend."""
    pts = [p for p in sweep["points"] if p.get("status") == "ok"]
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = np.array([float(p["value"]) for p in pts])
    for m in metrics:
        ys = np.array([p["metrics"].get(m, np.nan) for p in pts], dtype=float)
        ok = np.isfinite(ys) & (ys > 0) & (xs > 0)
        label = m
        if ok.sum() >= 2:
            slope = np.polyfit(np.log(xs[ok]), np.log(ys[ok]), 1)[0]
            label += f" (slope {slope:.2f})"
        ax.loglog(xs, ys, "o-", label=label)
    _ticks_at(ax, xs)
    ax.set_xlabel(sweep["key"])
    ax.set_ylabel("relative L2 error")
    ax.set_title(f"{name}: error against {sweep['key']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, path)


def order_plot(name: str, conv: dict, path: str) -> None:
    """A classical solver's error against its step size, with the theoretical slope for comparison."""
    h, err = np.asarray(conv["h"], float), np.asarray(conv["error"], float)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(h, err, "o-", label=f"observed order {conv['observed_order']:.2f}")
    if conv.get("theoretical_order"):
        p = conv["theoretical_order"]
        ax.loglog(h, err[-1] * (h / h[-1]) ** p, "k--", lw=1, label=f"theoretical order {p}")
    _ticks_at(ax, h)
    ax.set_xlabel(conv.get("h_label", "h"))
    ax.set_ylabel("error")
    ax.set_title(f"{name}: convergence under refinement")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, path)


def curve_plot(name: str, curve, metrics: dict, path: str) -> None:
    """Metrics of one run against the abscissae ``curve.points`` gives them (e.g. error against resolution)."""
    pts = sorted(((x, metrics.get(m)) for m, x in curve.points.items()), key=lambda p: p[0])
    xs = np.array([x for x, _ in pts], float)
    ys = np.array([np.nan if y is None else y for _, y in pts], float)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(xs, ys, "o-", label=", ".join(curve.points))
    _ticks_at(ax, xs)
    for x, y in zip(xs, ys):
        if np.isfinite(y):
            ax.annotate(f"{y:.3g}", (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax.set_xlabel(curve.x)
    ax.set_ylabel("relative L2 error")
    ax.set_title(f"{name}: error against {curve.x}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, path)


def comparison_plot(rows: list[tuple], path: str, title: str) -> None:
    """Ours against the published value for every error that has one (log scale bars); rows are
    ``(entry, metric, ours, reference, source)``, the source shown where a metric has several references."""
    rows = [r for r in rows if isinstance(r[2], (int, float)) and r[2] > 0 and r[3] > 0]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows)), 4))
    idx = np.arange(len(rows))
    ax.bar(idx - 0.2, [r[2] for r in rows], 0.4, label="sciml")
    ax.bar(idx + 0.2, [r[3] for r in rows], 0.4, label="reference")
    ax.set_yscale("log")
    twice = {k for k in {r[:2] for r in rows} if sum(r[:2] == k for r in rows) > 1}
    labels = [f"{r[0]}\n{r[1]}" + (f"\n{r[4][:24]}" if r[:2] in twice else "") for r in rows]
    ax.set_xticks(idx, labels, fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("error (lower is better)")
    ax.set_title(title)
    ax.legend()
    save(fig, path)


def speed_plot(rows: list[tuple], path: str, title: str) -> None:
    """Speed-ups (higher is better) as horizontal bars, with the reference (a target) marked where given."""
    rows = [r for r in rows if isinstance(r[2], (int, float))]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(rows) + 1.2))
    idx = np.arange(len(rows))
    ax.barh(idx, [r[2] for r in rows], color="C0", label="sciml")
    refs = [(i, r[3]) for i, r in enumerate(rows) if r[3] is not None]
    if refs:
        ax.plot([v for _, v in refs], [i for i, _ in refs], "k|", ms=14, mew=2, label="reference")
    ax.axvline(1.0, color="grey", lw=0.8)
    ax.set_yticks(idx, [f"{r[0]}: {r[1]}" for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ratio (higher is better)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    save(fig, path)


RUN_COLUMNS = ("wall_time_s", "datagen_s", "steps_per_s", "steps_per_calib", "compile_time_s", "peak_mem_mib")
KINDS = {"metrics": "error", "speeds": "speed", "costs": "cost", "info": "info"}  # entry field -> table label

PLOTS = (  # (file suffix, does the entry have it, draw(entry, result, path)): an entry's own figures
    ("", lambda e, r: bool(r.get("sweep")), lambda e, r, p: sweep_plot(e.name, r["sweep"], e.metrics, p)),
    ("", lambda e, r: bool(r.get("convergence")), lambda e, r, p: order_plot(e.name, r["convergence"], p)),
    ("_curve", lambda e, r: e.curve is not None and r.get("status") == "ok",
     lambda e, r, p: curve_plot(e.name, e.curve, r.get("metrics", {}), p)),
)


def spread(r: dict, metric: str) -> str:
    """The spread of ``metric`` over the run's last evaluations, if the run reports it (an FNO's ``last_k``)."""
    s = r.get("last_k") or {}
    if s.get("metric") != metric or not s.get("n"):
        return ""
    n = f"{s['n']}" + (f" of {s['k']}" if s["n"] < s["k"] else "")
    return f"{s['mean']:.4g} ± {s['std']:.2g} ({s['min']:.4g}–{s['max']:.4g}; last {n})"


PUBLISHED_HEADER = ("| entry | metric | ours | published | ours / published | wall s | training s | "
                    "last evaluations: mean ± std (min–max) | source |")


def _published_row(r: dict, name: str, metric: str, ours, ref, ratio) -> str:
    wall = _fmt(r.get("wall_time_s")) + (" (resumed)" if r.get("resumed") else "")
    return (f"| {name} | {metric} | {_fmt(ours)} | {_fmt(ref.value)} | {_fmt(ratio)} | {wall} | "
            f"{_fmt(r.get('training_s'))} | {spread(r, metric)} | {ref.source} |")


def _rows(entry, r: dict):
    """(entry, metric, kind, ours, reference or None) for every metric the entry reports."""
    for field, kind in KINDS.items():
        for metric in getattr(entry, field):
            ours = value(r, metric)
            for ref in entry.refs(metric) or [None]:
                yield entry.name, metric, kind, ours, ref


def _resumed(results: dict) -> str:
    times = [r["at"] for r in results.get("resumed", [])]
    return f" (resumed {', '.join(times)})" if times else ""


def write(suite, results: dict, out: str) -> None:
    m = results["machine"]
    head = [f"# Benchmark suite `{suite.suite}`", "", suite.description, "",
            f"Machine: {m['cpu']} ({m['cores']} cores), device {m['device']}, jax {m['jax']}, "
            f"python {m['python']}. Started {results['started']}; total wall time "
            f"{results.get('wall_time_s', 0):.0f} s" + _resumed(results) + "."]
    published: list[str] = []
    above: list[str] = []  # the published errors ours is above, with the entry's reason
    lines = ["", "## Every metric", "", "| entry | metric | kind | ours | reference | source | ours / reference |",
             "|---|---|---|---|---|---|---|"]
    errors, speeds = [], []
    runs = ["", "| entry | status | wall s | datagen s | steps/s | steps/calibration | compile s | peak MiB |",
            "|---|---|---|---|---|---|---|---|"]
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    for entry in suite.entries:
        r = results["entries"].get(entry.name)
        if r is None:
            continue
        for name, metric, kind, ours, ref in _rows(entry, r):
            ratio = ours / ref.value if ref and isinstance(ours, (int, float)) and ref.value else None
            lines.append(f"| {name} | {metric} | {kind} | {_fmt(ours)} | {_fmt(ref.value if ref else None)} | "
                         f"{ref.source if ref else ''} | {_fmt(ratio)} |")
            if kind == "error" and ref:
                errors.append((name, metric, ours, ref.value, ref.source))
                published.append(_published_row(r, name, metric, ours, ref, ratio))
                if isinstance(ratio, float) and ratio > 1:
                    above.append(f"- `{name}` {metric}: {_fmt(ours)} against {_fmt(ref.value)}, "
                                 f"{ratio:.2f}× the published value. {entry.why or 'No reason recorded.'}")
            if kind == "speed":
                speeds.append((name, metric, ours, ref.value if ref else None))
        cells = [entry.name, str(r.get("status"))] + [_fmt(r.get(k)) for k in RUN_COLUMNS]
        runs.append("| " + " | ".join(cells) + " |")
        for suffix, wanted, draw in PLOTS:
            if wanted(entry, r):
                draw(entry, r, os.path.join(out, "plots", f"{entry.name}{suffix}.png"))
    comparison_plot(errors, os.path.join(out, "plots", "comparison.png"), f"{suite.suite}: our errors vs published")
    speed_plot(speeds, os.path.join(out, "plots", "speeds.png"), f"{suite.suite}: speed-ups")
    figures = sorted(f for f in os.listdir(os.path.join(out, "plots")) if f.endswith(".png"))
    if published:
        head += ["", "## Errors against published values", "", PUBLISHED_HEADER, "|---" * 9 + "|", *published]
    if above:
        head += ["", "### Above the published value, and why", "", *above]
    lines = head + lines + runs + ["", "## Plots", ""] + [f"![{f}](plots/{f})" for f in figures]
    write_text(os.path.join(out, "report.md"), "\n".join(lines) + "\n")
