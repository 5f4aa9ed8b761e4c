"""`write_eval_report`: one self-contained static HTML page scoring and comparing evaluation runs.

Sections: leaderboard, accuracy by label family (bars with Wilson whiskers), position bias
(chosen vs gold letters), pairwise comparisons (paired bootstrap CI and exact McNemar), and
example items (question, options, the user's series, each run's escaped response). Figures are
inline base64 PNGs; there is no script and no external reference. The same inputs give the same
bytes (fixed plot style, no timestamp unless ``generated`` is passed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from wearbench._errors import WearbenchError
from wearbench._folder import write_text_atomic
from wearbench._version import __version__
from wearbench.bench import load_context, read_items
from wearbench.questions import Item, UserContext
from wearbench.report import _eval_html as H
from wearbench.report._cgm import cgm_parts
from wearbench.report._cgm_html import CSS as CGM_CSS
from wearbench.report._track import TrackSource, folder_source, is_track_results, store_sources, track_parts
from wearbench.report._track_html import CSS as TRACK_CSS
from wearbench.runner import Judgement, ResultRow, RunInfo, RunStore
from wearbench.scoring import (
    LABEL_FAMILIES,
    RunScore,
    align_rows,
    check_bench,
    compare_runs,
    covered_items,
    is_cgm_run,
    score_run,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class _Run:
    tag: str
    info: RunInfo
    rows: Mapping[str, ResultRow]
    score: RunScore

    @property
    def label(self) -> str:
        return H.run_label(self.tag, self.info)


def _resolve_items(
    runs: Sequence[tuple[RunInfo, Sequence[ResultRow]]], bench_dir: Path | None, items: Sequence[Item] | None
) -> list[Item]:
    if items is not None:
        return list(items)
    if bench_dir is not None:
        return read_items(bench_dir)
    benches = sorted({info.bench for info, _ in runs})
    if len(benches) == 1 and Path(benches[0]).is_dir():
        return read_items(Path(benches[0]))
    raise WearbenchError("the report needs the benchmark's items: pass bench_dir (or items)")


def _render(fig: Figure | None, alt: str, caption: str = "") -> str:
    from wearbench.report._eval_plots import figure_uri

    return "" if fig is None else H.figure(figure_uri(fig), alt, caption)


def _label_figures(runs: Sequence[_Run]) -> str:
    from wearbench.report._eval_plots import plot_label_family

    parts = []
    for family in LABEL_FAMILIES:
        data = [(r.tag, r.score.by_label[family]) for r in runs if r.score.by_label[family]]
        if data:
            fig = plot_label_family(family, data)
            parts.append(_render(fig, f"accuracy by {family}"))
    if not parts:
        return '<p class="note">No scored items.</p>'
    key = "; ".join(f"{r.label}" for r in runs)
    return f'<p class="note">{escape(key)}</p><div class="figs">{"".join(parts)}</div>'


def _bias_figure(runs: Sequence[_Run]) -> str:
    from wearbench.report._eval_plots import plot_position_bias

    return _render(plot_position_bias([(r.label, r.score.position) for r in runs]), "position bias")


def _comparisons(runs: Sequence[_Run], items: Sequence[Item], seed: int, n_boot: int) -> str:
    pairs = []
    for a, b in combinations(runs, 2):
        c = compare_runs(a.rows.values(), b.rows.values(), items, seed=seed, n_boot=n_boot)
        if c.n:
            pairs.append((a.label, b.label, c))
    return H.comparison_table(pairs) if pairs else ""


def _pick_examples(items: Sequence[Item], runs: Sequence[_Run], n: int) -> list[Item]:
    """Round-robin over question types (sorted), items answered by some run, by id within a type."""
    answered = {i for r in runs for i in r.rows}
    by_type: dict[str, list[Item]] = {}
    for item in sorted(items, key=lambda i: i.id):
        if item.id in answered:
            by_type.setdefault(item.type, []).append(item)
    queues = [by_type[t] for t in sorted(by_type)]
    picked: list[Item] = []
    depth = 0
    while len(picked) < n and any(depth < len(q) for q in queues):
        picked.extend(q[depth] for q in queues if depth < len(q))
        depth += 1
    return picked[:n]


def _series(item: Item, bench_dir: Path | None, cache: dict[str, UserContext | None]) -> str:
    if bench_dir is None:
        return '<p class="note">Series not shown (no benchmark folder given).</p>'
    if item.user_id not in cache:
        try:
            cache[item.user_id] = load_context(bench_dir, item.user_id)
        except WearbenchError:
            cache[item.user_id] = None
    ctx = cache[item.user_id]
    if ctx is None:
        return '<p class="note">Series not shown (no stored context for this user).</p>'
    from wearbench.report._eval_plots import plot_blood, plot_series

    blood = _render(plot_blood(item, ctx), f"blood values of {item.id}")
    try:
        fig = plot_series(item, ctx)
    except WearbenchError:
        fig = None
    series = _render(fig, f"series of {item.id}")
    return blood + series or '<p class="note">No daily series or blood values for this item.</p>'


def _examples(items: Sequence[Item], runs: Sequence[_Run], bench_dir: Path | None, n: int) -> str:
    cache: dict[str, UserContext | None] = {}
    return "".join(
        H.example_item(item, [(r.tag, r.rows.get(item.id)) for r in runs], _series(item, bench_dir, cache))
        for item in _pick_examples(items, runs, n)
    )


def _meta(runs: Sequence[_Run], items: Sequence[Item], seed: int, n_boot: int) -> list[str]:
    hashes = sorted({r.info.bench_hash[:12] for r in runs})
    users = len({i.user_id for i in items})
    lines = [
        f"{len(runs)} run(s) on {len(items)} items of {users} users; benchmark hash {', '.join(hashes)}; "
        f"wearbench {__version__}",
        f"Accuracy intervals: Wilson 95%; per-user bootstrap 95% percentile intervals over users "
        f"({n_boot} replicates, seed {seed}). Chance is 0.1 (ten options).",
    ]
    return lines


def write_eval_report(
    runs: Sequence[tuple[RunInfo, Sequence[ResultRow]]],
    out: Path,
    *,
    bench_dir: Path | None = None,
    n_examples: int = 6,
    items: Sequence[Item] | None = None,
    seed: int = 0,
    n_boot: int = 2000,
    generated: str | None = None,
    title: str = "wearbench evaluation report",
) -> Path:
    """Write the evaluation report of one or more runs as one self-contained HTML file.

    Args:
        runs: ``(run info, its rows)`` per run; runs are tagged R1, R2 … in this order.
        out: HTML file to write (parent folders are created).
        bench_dir: Benchmark folder: its items, and the user contexts the example series are
            drawn from (without it, examples show no series).
        n_examples: Example items shown (round-robin over question types).
        items: The benchmark's items, if already loaded (else read from ``bench_dir``, or from the
            runs' common ``RunInfo.bench`` folder).
        seed: Bootstrap seed; ``n_boot`` its replicates.
        n_boot: Bootstrap replicates.
        generated: Text shown as the generation time (none by default, so output is reproducible).
        title: Page title.

    Returns:
        ``out``.

    Raises:
        WearbenchError: Without runs, without a way to find the items, or on rows that do not
            belong to the benchmark.
    """
    meta, sections = eval_parts(
        runs, bench_dir=bench_dir, n_examples=n_examples, items=items, seed=seed, n_boot=n_boot
    )
    meta += [f"Generated {generated}"] if generated else []
    page = H.document(title, meta, sections)
    return write_text_atomic(out, page)  # a failed write leaves the previous report intact


def eval_parts(
    runs: Sequence[tuple[RunInfo, Sequence[ResultRow]]],
    *,
    bench_dir: Path | None = None,
    n_examples: int = 6,
    items: Sequence[Item] | None = None,
    seed: int = 0,
    n_boot: int = 2000,
    prefix: str = "",
) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Meta lines and ``(id, title, html)`` sections of WearableQA runs (see :func:`write_eval_report`).

    Args:
        runs: As :func:`write_eval_report`; ``bench_dir``, ``n_examples``, ``items``, ``seed``
            and ``n_boot`` too.
        bench_dir: Benchmark folder.
        n_examples: Example items shown.
        items: The benchmark's items, if already loaded.
        seed: Bootstrap seed.
        n_boot: Bootstrap replicates.
        prefix: Put before every section title (``WearableQA: `` beside HealthLoopQA runs).

    Raises:
        WearbenchError: As :func:`write_eval_report`.
    """
    if not runs:
        raise WearbenchError("no runs to report")
    all_items = _resolve_items(runs, bench_dir, items)
    by_id = {i.id: i for i in all_items}
    scored = [
        _Run(
            f"R{n}",
            info,
            align_rows(rows, by_id),
            score_run(rows, covered_items(info, all_items), seed=seed, n_boot=n_boot),
        )
        for n, (info, rows) in enumerate(runs, start=1)
    ]
    board = sorted(scored, key=lambda r: (-(r.score.overall.k / max(r.score.overall.n, 1)), r.tag))
    from wearbench.report._eval_plots import plot_style

    with plot_style():
        sections = _sections(scored, board, all_items, bench_dir, n_examples, seed, n_boot, prefix)
    return _meta(scored, all_items, seed, n_boot), sections


def _sections(
    runs: Sequence[_Run],
    board: Sequence[_Run],
    items: Sequence[Item],
    bench_dir: Path | None,
    n_examples: int,
    seed: int,
    n_boot: int,
    prefix: str = "",
) -> list[tuple[str, str, str]]:
    specs = [
        ("leaderboard", "Leaderboard", H.leaderboard_table([(r.tag, r.info, r.score) for r in board]),
         "Runs by accuracy. Errored and unparsed answers count as wrong; missing items are not scored."),
        ("labels", "Accuracy by label", _label_figures(runs),
         "One figure per label family (bars: runs; whiskers: Wilson 95% CI; dashed: chance); "
         "pair kind covers pair questions only. Runs:"),
        ("position-bias", "Position bias", _bias_figure(runs),
         "Share of parsed answers on each letter (bars) against the share of gold answers on it (line)."),
        ("comparisons", "Pairwise comparisons", _comparisons(runs, items, seed, n_boot),
         "B − A over items both runs answered; per-user paired bootstrap CI; exact McNemar test."),
        ("examples", "Example items", _examples(items, runs, bench_dir, n_examples),
         "Gold answer in green; each run's pick tagged blue (right) or red (wrong); responses verbatim."),
    ]  # fmt: skip
    return [
        (sid, prefix + title, H.section(sid, prefix + title, body, intro))
        for sid, title, body, intro in specs
        if body
    ]


def _unique_tracks(found: Sequence[TrackSource]) -> list[TrackSource]:
    """Each track run once (the first seen: a RESULTS folder before the store it was recorded in)."""
    seen: dict[str, TrackSource] = {}
    for t in found:
        seen.setdefault(t.run_id, t)
    return list(seen.values())


def report_runs(
    rundirs: Sequence[Path],
    out: Path,
    *,
    n_examples: int = 6,
    seed: int = 0,
    n_boot: int = 2000,
    track_n_boot: int = 1000,
) -> Path:
    """Write the evaluation report of every run in the given run folders, of either kind.

    WearableQA runs must share one benchmark (same ``items.jsonl`` hash), whose folder, as
    recorded in the runs, provides the items and the series of the examples; so must
    HealthLoopQA runs (a run folder may hold runs of both kinds). The page shows the
    WearableQA sections first, then the HealthLoopQA ones (``report/_cgm.py``, with an LLM-judge
    table when the store holds ``wearbench cgm judge`` grades); the two kinds never share a table.
    OpenMHC track runs (imputation, forecasting, outcome prediction) add their sections last
    (``report/_track.py``, skill against each track's reference, ``track_n_boot`` replicates as
    ``wearbench track score``): a folder that is a RESULTS folder (``wearbench track
    impute|forecast|predict``, told by its ``manifest.json``), and every track run recorded in a
    folder's run store (``wearbench track run`` records a whole grid in ``ROOT/runs.sqlite``); a
    track run found twice (a RESULTS folder and the store it was recorded in) is shown once.

    Raises:
        WearbenchError: Without runs or results, with runs of one kind on different benchmarks,
            or when a benchmark folder is gone or changed.
    """
    runs: list[tuple[RunInfo, Sequence[ResultRow]]] = []
    judgements: dict[str, list[Judgement]] = {}
    found: list[TrackSource] = []
    for rundir in rundirs:
        is_results = is_track_results(rundir)
        found += [folder_source(rundir)] if is_results else []
        if not (Path(rundir) / "runs.sqlite").is_file():
            if is_results:
                continue
            raise WearbenchError(f"{rundir}: no run store (runs.sqlite) and no track results")
        with RunStore(rundir) as store:
            for info in store.runs():
                runs.append((info, store.rows(info.run_id)))
                judgements[info.run_id] = store.judgements(info.run_id)
            found += store_sources(store)
    tracks = _unique_tracks(found)
    cgm = [(info, rows) for info, rows in runs if is_cgm_run(info)]
    wqa = [(info, rows) for info, rows in runs if not is_cgm_run(info)]
    meta: list[str] = []
    sections: list[tuple[str, str, str]] = []
    if wqa:
        if len({info.bench_hash for info, _ in wqa}) > 1:
            raise WearbenchError("the runs were made on different benchmarks; report them separately")
        check_bench(wqa[0][0])
        m, s = eval_parts(
            wqa, bench_dir=Path(wqa[0][0].bench), n_examples=n_examples, seed=seed, n_boot=n_boot,
            prefix="WearableQA: " if cgm else "",
        )  # fmt: skip
        meta, sections = m, s
    if cgm:
        from wearbench.report._eval_plots import plot_style

        with plot_style():
            m, s = cgm_parts(cgm, judgements=judgements, seed=seed, n_boot=n_boot)
        meta += m if wqa else [*m, f"wearbench {__version__}"]
        sections += s
    if tracks:
        from wearbench.report._eval_plots import plot_style

        with plot_style():
            m, s = track_parts(tracks, seed=seed, n_boot=track_n_boot)
        meta += m if runs else [*m, f"wearbench {__version__}"]
        sections += s
    css = (CGM_CSS if cgm else "") + (TRACK_CSS if tracks else "")
    page = H.document("wearbench evaluation report", meta, sections, css=css)
    return write_text_atomic(out, page)
