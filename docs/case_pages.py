"""The site's page per shipped case (``cases/<name>.md``), its figures and the index of them, written when the site
is built (``docs/hooks.py`` adds them as generated files; nothing here is committed output).

A case's page holds, from the case file and the package alone:

- the title (the case's name and the first sentence of its header comment, a long one shortened:
  :func:`headline`) and the rest of the header as prose (all of it when the title was shortened);
- how to run it: ``sciml datagen`` first where that command makes files the case reads (:func:`makes_data`),
  then ``sciml run``;
- its line(s) of the README's results table (:func:`result_rows`), with the table's header and the footnotes
  the lines mark, and a link to the results notes;
- figures (:func:`plots`): a PINN's spatial domain with one draw of its collocation points, each boundary part in
  its colour, and for a steady 2-D case with a reference the reference's first field on the evaluation grid; an
  operator's one sample of its generator at the training resolution, input beside output;
- its main settings (:func:`settings`) and the whole case file.

Nothing here trains, reads ``data/`` or downloads. A case is read as its solver's schema reads it (defaults
filled in, keys checked), without the solver's own check, which assembles the problem (seconds of compiling for
some cases; the tests load every case). A reference or a generated sample that takes longer than
:data:`SECONDS` is left out, and the page says so. Measured on a quiet 2-core CPU, the costliest is the
Kovasznay flow's reference (its vorticity by JAX, compiled op by op: 1.4 s).
"""
from __future__ import annotations

import functools
import glob
import io
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "cases")
README = os.path.join(ROOT, "README.md")
RESULTS = "../notes/results.md"  # the results notes, from a case's page
REFERENCE = "../reference/cases.md"  # every key of a case file, from a case's page
TITLE = 100  # the most characters of a page's title after the case's name
# The most CPU seconds (of this process: another's load on the machine does not count) a figure's reference or
# generated sample may take at build time; above the ~2 s aimed at, so that a loaded machine does not drop one
# that takes 1.3-1.9 s (the Kovasznay references)
SECONDS = 3.0
DPI = 90
PLOT_POINTS = 101  # at most this many points per axis of a reference's map (every k-th of the evaluation grid)
NO_ROW = "No line of the README's results table names this case."
_CODE_SPAN = re.compile(r"(`[^`]*`)")
_MARKS = "¹²³⁴⁵⁶⁷⁸⁹"  # the results table's footnote marks
_ABBREVIATIONS = {"al", "e.g", "i.e", "cf", "vs", "approx"}  # lower-case words a full stop follows mid-sentence


# --- the case file -------------------------------------------------------------------------------------------
def names() -> list[str]:
    """The shipped cases' names, ``cases/<name>.yaml``, sorted."""
    return sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(CASES, "*.yaml")))


def path(name: str) -> str:
    return os.path.join(CASES, f"{name}.yaml")


def text(name: str) -> str:
    """The case file as written."""
    with open(path(name), encoding="utf-8") as f:
        return f.read()


@functools.cache
def config(name: str):
    """The case's typed config, as its solver's schema reads it (module notes: not the solver's check); read once
    a process (a page and its figures read it; nothing changes it)."""
    from sciml.cases import SOLVERS, read
    from sciml.config import validate

    source, raw = read(path(name))
    return validate(SOLVERS[raw["solver"]].schema, raw, source)


def header(case_text: str) -> list[str]:
    """The file's leading comment block, each line without its ``#`` and the one space after it."""
    lines = []
    for line in case_text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[2:] if line.startswith("# ") else line[1:])
    return lines


def blocks(lines: Sequence[str]) -> list[tuple[str, str]]:
    """The header as ``(kind, text)`` blocks: ``"code"`` for a run of indented lines (the commands a header
    shows, dedented), ``"text"`` for a paragraph, which a blank comment line, an indented line or a line that ends
    with a full stop (the next line begins a new thought in these headers) ends."""
    out: list[tuple[str, str]] = []
    for line in lines:
        kind = "code" if line.startswith("  ") else "text" if line.strip() else "blank"
        last = out[-1] if out else ("blank", "")
        if kind == "code" and last[0] == "code":
            out[-1] = ("code", last[1] + "\n" + line)
        elif kind == "text" and last[0] == "text" and not (last[1].endswith(".") and ends_sentence(last[1][:-1])):
            out[-1] = ("text", last[1] + " " + line.strip())
        else:
            out.append((kind, line if kind == "code" else line.strip()))
    return [(kind, _dedent(body) if kind == "code" else body) for kind, body in out if kind != "blank"]


def _dedent(block: str) -> str:
    lines = block.split("\n")
    indent = min(len(line) - len(line.lstrip()) for line in lines)
    return "\n".join(line[indent:] for line in lines)


def ends_sentence(before: str) -> bool:
    """Whether a full stop after ``before`` ends a sentence: not after an abbreviation, a capitalised word
    (``J.``, ``Comput.``; an acronym, ``FNO.``, may end one) or one of :data:`_ABBREVIATIONS`."""
    word = re.search(r"[A-Za-z.]*$", before).group(0)  # type: ignore[union-attr]  # matches the empty word too
    capitalised = word[:1].isupper() and not (len(word) > 1 and word.isupper())
    return not capitalised and word not in _ABBREVIATIONS


def _depths(text: str) -> list[int]:
    """The bracket depth at each character of ``text`` (a closing bracket counts inside)."""
    depths, depth = [], 0
    for ch in text:
        depth += ch in "([{"
        depths.append(depth)
        depth = max(0, depth - (ch in ")]}"))
    return depths


def first_sentence(paragraph: str) -> tuple[str, str]:
    """``(the first sentence without its full stop, the rest)``: a sentence ends at a full stop outside brackets
    that :func:`ends_sentence` accepts, followed by a space and a letter, digit or code span."""
    for i, depth in enumerate(_depths(paragraph)):
        after = paragraph[i + 1:i + 3]
        if (paragraph[i] == "." and depth == 0 and len(after) == 2 and after[0] == " "
                and (after[1].isalnum() or after[1] == "`") and ends_sentence(paragraph[:i])):
            return paragraph[:i], paragraph[i + 1:].strip()
    return paragraph.rstrip("."), ""


def headline(sentence: str, most: int = TITLE) -> str:
    """A sentence short enough for a title: itself up to ``most`` characters; else without its asides (a
    bracketed group after a space holding a word, ``(ICLR 2021)``; not ``(x, y, t)`` or a formula's
    ``(u^2/2)_x``), then its head before the first ``:`` or ``;`` outside brackets (if that says something), then
    up to its last comma that fits."""
    if len(sentence) <= most:
        return sentence
    text = re.sub(r" \((?:[^()]|\([^()]*\))*[A-Za-z]{4}(?:[^()]|\([^()]*\))*\)(?=[\s,;:.]|$)", "", sentence)
    depths = _depths(text)
    heads = [i for i, ch in enumerate(text) if ch in ":;" and depths[i] == 0 and i >= 12]
    text = text[:heads[0]] if heads and len(text) > most else text
    commas = [i for i, ch in enumerate(text[:most]) if ch == "," and depths[i] == 0]
    if len(text) <= most or not commas:
        return text if len(text) <= most else text[:most - 1].rstrip() + "…"
    return text[:commas[-1]]


def escape(plain: str) -> str:
    """Plain text as Markdown that shows it as written: ``*``, ``_``, ``|``, brackets and braces (emphasis, links,
    the attribute lists of ``attr_list``) escaped, ``<`` as an entity, a leading ``1. ``, ``- ``, ``# `` or ``> ``
    (a list, a heading, a quote) escaped; `code spans` kept as code."""
    parts = _CODE_SPAN.split(plain)
    out = "".join(part if i % 2 else re.sub(r"([\\*_\[\]{}|])", r"\\\1", part).replace("<", "&lt;")
                  for i, part in enumerate(parts))
    return re.sub(r"^(\d+)\. |^([#>+-]) ", lambda m: f"{m[1]}\\. " if m[1] else f"\\{m[2]} ", out)


def title(name: str) -> tuple[str, list[tuple[str, str]]]:
    """``(the title, the prose)``: the header's first sentence (:func:`headline`: a long one shortened) and
    the header's blocks after it (all of them, the first sentence too, when the title shortened it)."""
    parts = blocks(header(text(name)))
    if not parts or parts[0][0] != "text":
        return "", parts
    sentence, rest = first_sentence(parts[0][1])
    head = headline(sentence)
    if head != sentence:
        return head, parts
    return sentence, ([("text", rest)] if rest else []) + parts[1:]


# --- the README's results table ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """The README's results table: its header (two lines), rows and footnotes (mark -> text)."""

    header: tuple[str, str]
    rows: tuple[str, ...]
    notes: dict[str, str]


def results_table(readme: str) -> Table:
    """The first table under the README's ``## Results`` heading, and the footnotes after it (a line that
    begins with a mark, ``¹``, and its continuation lines)."""
    section = re.split(r"^## .*$", re.split(r"^## Results$", readme, flags=re.M)[1], flags=re.M)[0].splitlines()
    start = next(i for i, line in enumerate(section) if line.startswith("|"))
    end = next((i for i in range(start, len(section)) if not section[i].startswith("|")), len(section))
    notes: dict[str, str] = {}
    mark = None
    for line in section[end:]:
        if line[:1] and line[0] in _MARKS:
            mark = line[0]
            notes[mark] = line
        elif mark and line.strip():
            notes[mark] += "\n" + line
        else:
            mark = None
    lines = section[start:end]
    return Table((lines[0], lines[1]), tuple(lines[2:]), notes)


def row_names(row: str) -> list[str]:
    """The backticked names in a row's first cell, a name that begins with ``_`` completed from the one before
    it (``ns_fno_nu1e-4``, ``_nu1e-5`` -> ``ns_fno_nu1e-5``: the part before the earlier name's last ``_``)."""
    out: list[str] = []
    for item in re.findall(r"`([^`]+)`", row.strip().strip("|").split("|", 1)[0]):
        out.append(out[-1].rsplit("_", 1)[0] + item if item.startswith("_") and out else item)
    return out


def result_rows(name: str, table: Table) -> list[str]:
    """The rows for case ``name``: those whose first cell names it, alone or followed by overrides
    (``ldc``, ``ldc equation.Re=1000``; not ``plate_uniform`` for ``plate``)."""
    word = re.compile(re.escape(name) + r"(\s|$)")
    return [row for row in table.rows if any(word.match(n) for n in row_names(row))]


def readme_table() -> Table:
    with open(README, encoding="utf-8") as f:
        return results_table(f.read())


# --- how to run it, and its settings -------------------------------------------------------------------------
def makes_data(cfg) -> bool:
    """Whether ``sciml datagen`` makes files the case reads: an operator's dataset always; for a PINN, when one
    of its makers asks (observations, a developed start: ``sciml.solvers.pinn.datasets.MAKERS``)."""
    from sciml.cases import SOLVERS
    from sciml.solvers.pinn.datasets import MAKERS

    if SOLVERS[cfg.solver].datagen is None:
        return False
    return any(wants(cfg) for wants, _ in MAKERS) if cfg.solver == "pinn" else True


def made_by(cfg) -> str | None:
    """The command that makes an operator's ``data.file`` (its ``data.made_by``), or None."""
    return getattr(cfg.data, "made_by", None) if cfg.solver == "fno" else None


def commands(name: str, cfg) -> list[str]:
    run = [f"sciml run cases/{name}.yaml"]
    made = [made_by(cfg)] if made_by(cfg) else []
    return made + ([f"sciml datagen cases/{name}.yaml"] if makes_data(cfg) else []) + run


def _interval(lo_hi) -> str:
    return f"[{lo_hi[0]:g}, {lo_hi[1]:g}]"


def _domain(g) -> str:
    """A geometry section in words: its type and extent."""
    if g.type == "ball":
        shape = f"`ball`, d = {g.dim}, radius {g.radius:g}"
    elif g.type in ("rectangle", "box"):
        shape = f"`{g.type}` " + " × ".join(_interval(getattr(g, a)) for a in ("x", "y", "z") if hasattr(g, a))
    elif g.type == "disk":
        shape = f"`disk`, centre ({g.center[0]:g}, {g.center[1]:g}), radius {g.radius:g}"
    else:
        shape = f"`{g.type}`"
    holes = len(getattr(g, "holes", []))
    shape += f", {holes} hole{'s' * (holes != 1)}" if holes else ""
    return shape + (f", t ∈ {_interval(g.time)}" if getattr(g, "time", None) else "")


def _pinn_settings(cfg) -> list[tuple[str, str]]:
    t, s, m = cfg.training, cfg.sampling, cfg.model
    quasi_newton = {"lbfgs": "L-BFGS", "bfgs": "BFGS (dense)"}.get(t.lbfgs.method, t.lbfgs.method)
    phases = [f"Adam {t.adam.steps} steps"] + ([f"{quasi_newton} {t.lbfgs.steps} steps"] if t.lbfgs.steps else [])
    if t.curriculum is not None:
        phases.append(f"then a curriculum in `{t.curriculum.key}`")
    if t.windows > 1:
        phases.append(f"in {t.windows} time windows")
    rows = [("equation", f"`{cfg.equation.type}`"), ("geometry", _domain(cfg.geometry)),
            ("model", f"`{m.type}`, hidden {list(m.hidden)}, {m.activation}"),
            ("collocation", f"{s.interior} inside, {s.boundary} per boundary part ({s.method})"),
            ("training", ", ".join(phases)), ("autodiff", f"`{cfg.autodiff.mode}`")]
    rows += [("unknowns", ", ".join(f"`{k}`" for k in cfg.unknowns))] if cfg.unknowns else []
    rows += [("observed", ", ".join(cfg.data.fields))] if cfg.data is not None else []
    rows += [("family", ", ".join(f"`{k}` ∈ {_interval(p.range)}" for k, p in cfg.parameters.items()))] \
        if cfg.parameters else []
    return rows


def _fno_settings(cfg) -> list[tuple[str, str]]:
    d, m, t = cfg.data, cfg.model, cfg.training
    zero_shot = f"; zero-shot at {', '.join(map(str, d.resolutions[1:]))}" if len(d.resolutions) > 1 else ""
    weights = {k: v for k, v in vars(t.terms).items() if isinstance(v, (int, float)) and v}
    terms = ", ".join(f"{k} {v:g}" for k, v in weights.items()) if weights != {"data": 1} else ""
    source = ("generator", f"`{d.generator}`") if d.file is None else ("file", f"`{d.file}`")
    at = (f"at the {d.resolution} points of the file's `{d.grid}`" if d.points else
          f"at {d.resolution} points per axis (solved at {d.solver_grid}{zero_shot})" if d.file is None else
          f"at {d.resolution} points per axis{zero_shot}")
    return [source, ("data", f"{d.n_train} training and {d.n_test} test samples {at}"),
            ("model", f"`{m.type}`, branch {list(m.branch)}, trunk {list(m.trunk)}, basis {m.basis}, sensors every "
                      f"{m.sensors}" if m.type == "deeponet" else
                      f"`{m.type}`, modes {list(m.modes)}, width {m.width}, {m.layers} layers"),
            ("training", f"{t.epochs} epochs, batch {t.batch_size}, lr {t.lr:g}" + (f"; terms: {terms}"
                                                                                 if terms else ""))]


def settings(cfg) -> list[tuple[str, str]]:
    """The case's main choices, ``(what, value)``, read from its config."""
    rows = _pinn_settings(cfg) if cfg.solver == "pinn" else _fno_settings(cfg)
    return [("solver", f"`{cfg.solver}`"), *rows, ("dtype", cfg.dtype)]


# --- figures -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plot:
    """A figure of a case's page: ``file`` (beside the page) and its caption, or ``note`` in its place (a figure
    not drawn, and why); ``seconds``: the CPU time it took to make."""

    file: str
    caption: str
    png: bytes | None = None
    note: str = ""
    seconds: float = 0.0


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _size(bounds, beside: float) -> tuple[float, float]:
    """A figure's size for a 2-D domain drawn to scale in at most 4.4 x 3.6 inches, ``beside`` inches more in
    width for a legend or a colour bar."""
    (x0, x1), (y0, y1) = bounds[:2]
    scale = min(4.4 / (x1 - x0), 3.6 / (y1 - y0))
    return (x1 - x0) * scale + beside, max(2.0, (y1 - y0) * scale + 0.7)


def domain_figure(cfg, geometry):
    """The spatial domain (of ``geometry``, the case's built) and one draw of the case's collocation points: the
    interior in grey, each boundary part in its colour (the counts the case samples, ``sampling.boundary`` or
    ``sampling.parts``)."""
    space = geometry.space
    rng, method = np.random.default_rng(cfg.seed), cfg.sampling.method
    solid = space.dim == 3  # a box or a part from a mesh file: its boundary points in perspective
    fig = _figure(*((5.4, 4.0) if solid else _size(space.bounds, 2.0)))
    ax = fig.add_subplot(projection="3d") if solid else fig.add_subplot()
    axes = lambda pts: [pts[:, k] for k in range(space.dim)]
    inside = space.interior(cfg.sampling.interior, rng, method)
    ax.scatter(*axes(inside), s=0.2 if solid else 0.6, color="0.7", alpha=0.3 if solid else 1.0,
               label=f"inside ({len(inside)})", rasterized=True)
    for i, part in enumerate(space.parts):
        n = cfg.sampling.parts.get(part, cfg.sampling.boundary)
        pts, _ = space.boundary(part, n, rng, method)
        ax.scatter(*axes(pts), s=2 if solid else 5, color=f"C{i}", label=f"{part} ({n})")
    if solid:
        ax.set_box_aspect([hi - lo for lo, hi in space.bounds])
        ax.set_zlabel(space.coords[2])
    else:
        ax.set_aspect("equal")
    ax.set_xlabel(space.coords[0])
    ax.set_ylabel(space.coords[1])
    fig.legend(loc="outside right upper", fontsize=8, markerscale=2, title="part (points)", title_fontsize=8)
    return fig


def reference_figure(field: str, values: np.ndarray, ev):
    """A map of one reference field on the (strided) evaluation grid ``ev``, NaN outside the domain."""
    from sciml.plots import colour_scale

    (x0, x1), (y0, y1) = ((a[0], a[-1]) for a in ev.axes)
    grid = np.where(ev.mask, values, np.nan).reshape(ev.shape)
    fig = _figure(*_size([(x0, x1), (y0, y1)], 1.4))
    ax = fig.add_subplot()
    image = ax.imshow(grid.T, origin="lower", extent=(x0, x1, y0, y1), interpolation="nearest",
                      **colour_scale(grid))
    fig.colorbar(image, ax=ax, label=field, shrink=0.9)
    ax.set_xlabel(ev.coords[0])
    ax.set_ylabel(ev.coords[1])
    return fig


def strided(ev, most: int = PLOT_POINTS):
    """Every k-th point of an evaluation grid along each axis, at most ``most`` per axis (the ends kept where
    ``k`` divides the intervals): the same box and grid, fewer points to compute and draw."""
    from sciml.solvers.pinn.geometry import EvalPoints

    steps = [max(1, -(-(len(a) - 1) // (most - 1))) for a in ev.axes]
    index = tuple(slice(None, None, k) for k in steps)
    axes = tuple(a[k] for a, k in zip(ev.axes, index))
    keep = np.zeros(ev.shape, bool)
    keep[index] = True
    keep = keep.ravel()
    return EvalPoints(ev.points[keep], tuple(len(a) for a in axes), axes, ev.mask[keep], ev.coords)


def _timed(fn: Callable):
    """``(fn(), the CPU seconds it took)``."""
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def _slow(what: str, seconds: float) -> str:
    return f"{what} took {seconds:.1f} s of CPU here, more than the {SECONDS:g} s a build gives it: not drawn."


def reference_plot(name: str, cfg, geometry) -> Plot | None:
    """The reference's first field on the evaluation grid, for a steady 2-D case whose equation has one
    (``geometry``: the case's, built)."""
    from sciml import equations
    from sciml.compile import Policy

    if geometry.time is not None or geometry.dim != 2:
        return None
    full = geometry.evaluation_points(cfg.evaluation.grid)
    ev = strided(full)
    with Policy.of(cfg.dtype).precision():
        reference, seconds = _timed(lambda: equations.create(cfg.equation, geometry).reference(ev.points))
    if not reference:
        return None
    field = next(iter(reference))
    caption = (f"{field}, the reference, on the evaluation grid ({' × '.join(map(str, full.shape))}"
               + (f"; drawn at {' × '.join(map(str, ev.shape))} of its points" if ev.shape != full.shape else "")
               + ")" + (" at the equation section's own numbers (the family's other members are not drawn)"
                        if cfg.parameters else ""))
    if seconds > SECONDS:
        return Plot(f"{name}_reference.png", caption, note=_slow("The reference", seconds), seconds=seconds)
    png, drawn = _timed(lambda: _png(reference_figure(field, np.asarray(reference[field], float), ev)))
    return Plot(f"{name}_reference.png", caption, png, seconds=seconds + drawn)


def _not_drawn(space, g) -> str:
    """The note in place of a domain of more than three space dimensions: what it is, and its parts' pieces."""
    what = f"{space.dim}-dimensional"
    parts = "; ".join(f"`{part}` ({', '.join(pieces)})" if tuple(pieces) != (part,) else f"`{part}`"
                      for part, pieces in space.groups.items())
    return f"The domain is {what} ({_domain(g)}) and is not drawn; its boundary parts: {parts}."


def pinn_plots(name: str, cfg) -> list[Plot]:
    """A PINN case's domain (in perspective in three space dimensions; for more, a note) and its reference, from
    its geometry built once (a polygon's takes 0.3-0.6 s)."""
    from sciml.solvers.pinn.geometry import build_geometry

    g = cfg.geometry
    geometry = build_geometry(g)
    space = geometry.space
    if space.dim not in (2, 3):
        return [Plot(f"{name}.png", "the domain", note=_not_drawn(space, g))]
    png, seconds = _timed(lambda: _png(domain_figure(cfg, geometry)))
    time_note = (f"; the domain over t ∈ {_interval(g.time)}, with the part `initial` (the domain at "
                 f"t = {g.time[0]:g})" if g.time else "")
    domain = Plot(f"{name}.png", f"The domain and one draw of its collocation points ({cfg.sampling.method}), "
                                 f"each boundary part in its colour{time_note}", png, seconds=seconds)
    reference = reference_plot(name, cfg, geometry)
    return [domain] + ([reference] if reference is not None else [])


def _channel(arrays: dict, a: np.ndarray, params: dict) -> str:
    """The name of the last channel of ``a``, a view the generator's split made of one of its ``arrays``: that
    array's name, or, where a parameter of that name lists the channels (the plate's ``fields: [w]``), the last
    one's."""
    key = next((k for k, v in arrays.items() if isinstance(v, np.ndarray) and np.shares_memory(v, a)), "?")
    listed = params.get(key)
    return str(listed[a.shape[-1] - 1]) if isinstance(listed, list) and len(listed) == a.shape[-1] else key


def sample_figure(arrays: dict, x: np.ndarray, y: np.ndarray, gen, t_in: int, params: dict):
    """One sample's input beside its output (their last channel: a trajectory's last given and last predicted
    snapshots), or, in one dimension, both on one axes."""
    from sciml.plots import colour_scale

    names = [_channel(arrays, x, params), _channel(arrays, y, params)]
    if gen.trajectory and "t" in arrays:
        t = np.asarray(arrays["t"])
        names = [f"{names[0]} at t = {t[t_in - 1]:g}", f"{names[1]} at t = {t[-1]:g}"]
    labels = (f"input: {names[0]}", f"output: {names[1]}")
    if gen.dims == 1:
        fig = _figure(6.0, 3.6)
        grid = np.asarray(arrays.get("x", np.linspace(0, 1, x.shape[1])))
        for i, (a, label) in enumerate(zip((x, y), labels)):
            ax = fig.add_subplot(2, 1, i + 1)
            ax.plot(grid, a[0, :, -1], lw=1.2, color=f"C{i}")
            ax.set_ylabel(label, fontsize=9)
        ax.set_xlabel("x")
        return fig
    fig = _figure(8.0, 3.4)
    for i, (a, label) in enumerate(zip((x, y), labels)):
        ax = fig.add_subplot(1, 2, i + 1)
        image = ax.imshow(a[0, ..., -1].T, origin="lower", extent=(0, 1, 0, 1), **colour_scale(a[0, ..., -1]))
        fig.colorbar(image, ax=ax, shrink=0.85)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    return fig


@functools.cache
def sample_png(generator: str, resolution: int, seed: int, params: str, t_in: int, t_out: int) -> tuple:
    """``(PNG or None, seconds)``: one sample of ``generator`` (``params`` as JSON) drawn, None when it took
    more than :data:`SECONDS`; kept for the cases that share the data (``ns_fno`` and ``ns_fno3d``: one file)."""
    from sciml.solvers.fno.generators import GENERATORS

    gen, kwargs = GENERATORS[generator], json.loads(params)
    arrays, seconds = _timed(lambda: gen.generate(1, resolution, seed, None, **kwargs))
    if seconds > SECONDS:
        return None, seconds
    x, y = gen.split(arrays, t_in, t_out)
    png, drawn = _timed(lambda: _png(sample_figure(arrays, x, y, gen, t_in, kwargs)))
    return png, seconds + drawn


def fno_plots(name: str, cfg) -> list[Plot]:
    """One sample of an operator's generator at the training resolution, input and output (none of a file's)."""
    d = cfg.data
    if d.file is not None:
        made = f", made by `{d.made_by}`" if d.made_by else ""
        return [Plot(f"{name}.png", "", None, f"The samples are those of a file (`{d.file}`{made}), not of a "
                                              "generator: none is drawn when this site is built.")]
    png, seconds = sample_png(d.generator, d.resolution, d.seed, json.dumps(d.params, sort_keys=True), d.t_in,
                              d.t_out)
    solved = (f"solved on that grid (the dataset solves on {d.solver_grid} and subsamples)"
              if d.solver_grid != d.resolution else "as the dataset solves it")
    caption = (f"One sample of the `{d.generator}` generator at the training resolution, {d.resolution} points per "
               f"axis, {solved}: the operator's input and its output")
    note = "" if png is not None else _slow("One sample", seconds)
    return [Plot(f"{name}.png", caption, png, note, seconds)]


def plots(name: str) -> list[Plot]:
    """The figures of case ``name``'s page (module notes), drawn now."""
    cfg = config(name)
    return pinn_plots(name, cfg) if cfg.solver == "pinn" else fno_plots(name, cfg)


def figures(name: str) -> dict[str, bytes]:
    """The PNG files of case ``name``'s page, by file name (beside the page, ``cases/``)."""
    return {p.file: p.png for p in plots(name) if p.png is not None}


# --- the pages -----------------------------------------------------------------------------------------------
def _table(rows: Sequence[tuple[str, str]], head: tuple[str, str]) -> list[str]:
    return [f"| {head[0]} | {head[1]} |", "|---|---|", *(f"| {a} | {b.replace('|', '&#124;')} |" for a, b in rows)]


def _prose(parts: Sequence[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for kind, body in parts:
        out += ["```sh", body, "```", ""] if kind == "code" else [escape(body), ""]
    return out


def _result(name: str, table: Table) -> list[str]:
    rows = result_rows(name, table)
    if not rows:
        return [NO_ROW, ""]
    marks = [m for m in table.notes if any(m in row for row in rows)]
    notes = [line for m in marks for line in (table.notes[m], "")]
    return ["From the README's results table:", "", *table.header, *rows, "", *notes,
            f"How each number was measured, and the runs around it: [the results notes]({RESULTS}).", ""]


def _figures(shown: Sequence[Plot]) -> list[str]:
    out = ["## Figures", "", "Drawn when this site was built, from the case file and the package (no training, no "
           "data files).", ""]
    for p in shown:
        if p.png is None:
            out += [escape(p.note), ""]
        else:
            alt = escape(p.caption.replace("`", ""))
            out += [f"![{alt}]({p.file})", "", f"*{escape(p.caption)}.*", ""]
    return out


def page(name: str, shown: Sequence[Plot] = (), table: Table | None = None) -> str:
    """Case ``name``'s page (module notes), in Markdown; ``shown``: its figures (:func:`plots`), none by
    default; ``table``: the README's results table (read from README.md by default)."""
    cfg = config(name)
    sentence, rest = title(name)
    lines = [f"# {name}: {escape(sentence)}" if sentence else f"# {name}", "", *_prose(rest)]
    lines += ["## Run it", "", "```sh", *commands(name, cfg), "```", ""]
    if made_by(cfg):
        lines += ["The first command makes the file the case reads (its `data.made_by`), `sciml datagen` copies its "
                  "samples into the case's dataset (where it exists with the same settings it keeps it); `sciml "
                  "run` then trains and scores the case.", ""]
    elif makes_data(cfg):
        lines += ["`sciml datagen` makes the files the case reads, with its classical solver (where they exist "
                  "with the same settings it keeps them); `sciml run` then trains and scores the case.", ""]
    lines += ["## Result", "", *_result(name, table or readme_table())]
    lines += _figures(shown) if shown else []
    lines += ["## Settings", "", *_table(settings(cfg), ("setting", "value")), "",
              f"The case file, `cases/{name}.yaml` (every key: [the case-file reference]({REFERENCE})):", "",
              "```yaml", text(name).rstrip("\n"), "```", ""]
    return "\n".join(lines)


def index() -> str:
    """The cases' index page: each case, what it is (its title) and its page."""
    lines = ["# Cases", "", "Every case file shipped in `cases/` has a page: what it is, how to run it, what it "
             f"measured (its line of the README's results table; how, in [the results notes]({RESULTS})), figures "
             "drawn when this site was built, and its settings.", "", "| case | what | page |", "|---|---|---|"]
    for name in names():
        what = escape(title(name)[0])  # its "|" escaped too: one cell
        lines.append(f"| `{name}` | {what} | [{name}]({name}.md) |")
    return "\n".join(lines) + "\n"


def nav() -> dict:
    """The site's navigation section for the pages: the index, then the cases by solver."""
    import yaml

    groups: dict[str, list] = {"PINNs": [], "Operators": []}
    for name in names():
        solver = yaml.safe_load(text(name)).get("solver")
        groups["PINNs" if solver == "pinn" else "Operators"].append({name: f"cases/{name}.md"})
    return {"Cases": [{"Overview": "cases/index.md"}, *({k: v} for k, v in groups.items() if v)]}
