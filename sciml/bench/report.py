"""``report.md`` and PNG plots for a suite's results."""
from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..io.atomic import atomic_path, write_text  # noqa: E402


def _fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _save(fig, path):
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)


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
    ax.set_xlabel(sweep["key"])
    ax.set_ylabel("relative L2 error")
    ax.set_title(f"{name}: error against {sweep['key']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def order_plot(name: str, conv: dict, path: str) -> None:
    """A classical solver's error against its step size, with the theoretical slope for comparison."""
    h, err = np.asarray(conv["h"], float), np.asarray(conv["error"], float)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(h, err, "o-", label=f"observed order {conv['observed_order']:.2f}")
    if conv.get("theoretical_order"):
        p = conv["theoretical_order"]
        ax.loglog(h, err[-1] * (h / h[-1]) ** p, "k--", lw=1, label=f"order {p}")
    ax.set_xlabel(conv.get("h_label", "h"))
    ax.set_ylabel("error")
    ax.set_title(f"{name}: convergence under refinement")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def comparison_plot(rows: list[tuple], path: str, title: str) -> None:
    """Ours against the published value for every metric that has one (log scale bars)."""
    rows = [r for r in rows if r[3] is not None and isinstance(r[2], (int, float)) and r[2] > 0 and r[3] > 0]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows)), 4))
    idx = np.arange(len(rows))
    ax.bar(idx - 0.2, [r[2] for r in rows], 0.4, label="sciml")
    ax.bar(idx + 0.2, [r[3] for r in rows], 0.4, label="reference")
    ax.set_yscale("log")
    ax.set_xticks(idx, [f"{r[0]}\n{r[1]}" for r in rows], fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("error")
    ax.set_title(title)
    ax.legend()
    _save(fig, path)


def write(suite, results: dict, out: str) -> None:
    m = results["machine"]
    lines = [f"# Benchmark suite `{suite.suite}`", "", suite.description, "",
             f"Machine: {m['cpu']} ({m['cores']} cores), device {m['device']}, jax {m['jax']}, "
             f"python {m['python']}. Started {results['started']}; total wall time "
             f"{results.get('wall_time_s', 0):.0f} s.", "",
             "| entry | metric | ours | reference | source | ours / reference |",
             "|---|---|---|---|---|---|"]
    rows, speed = [], ["", "| entry | status | wall s | steps/s | compile s | peak MiB |", "|---|---|---|---|---|---|"]
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    for entry in suite.entries:
        r = results["entries"].get(entry.name)
        if r is None:
            continue
        for metric in [*entry.metrics, *entry.info]:
            ours = r.get("metrics", {}).get(metric)
            ref = entry.references.get(metric)
            ratio = ours / ref.value if ref and isinstance(ours, (int, float)) and ref.value else None
            lines.append(f"| {entry.name} | {metric} | {_fmt(ours)} | {_fmt(ref.value if ref else None)} | "
                         f"{ref.source if ref else ''} | {_fmt(ratio)} |")
            rows.append((entry.name, metric, ours, ref.value if ref else None))
        speed.append(f"| {entry.name} | {r.get('status')} | {_fmt(r.get('wall_time_s'))} | {_fmt(r.get('steps_per_s'))} "
                     f"| {_fmt(r.get('compile_time_s'))} | {_fmt(r.get('peak_mem_mib'))} |")
        if r.get("sweep"):
            sweep_plot(entry.name, r["sweep"], entry.metrics, os.path.join(out, "plots", f"{entry.name}.png"))
        if r.get("convergence"):
            order_plot(entry.name, r["convergence"], os.path.join(out, "plots", f"{entry.name}.png"))
    comparison_plot(rows, os.path.join(out, "plots", "comparison.png"), f"{suite.suite}: ours vs published")
    figures = sorted(f for f in os.listdir(os.path.join(out, "plots")) if f.endswith(".png"))
    lines += speed + ["", "## Plots", ""] + [f"![{f}](plots/{f})" for f in figures]
    write_text(os.path.join(out, "report.md"), "\n".join(lines) + "\n")
