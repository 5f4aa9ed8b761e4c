"""HTML tables of the OpenMHC part of the report (every text escaped).

The skill and rank tables take the track score JSON of any track
(:func:`~wearbench.scoring.score_track_results`, ``wearbench track score --format json``): one
row per method, one column per scope.
Cells carry their exact values as ``data-*`` attributes so the page can be checked against that
JSON: ``data-method``, ``data-scope``, and ``data-skill``, ``data-ci-low``, ``data-ci-high`` (skill
table) or ``data-rank`` (rank table); a value the JSON gives as ``null`` has no attribute and
shows ``–``. The per-channel tables' cells carry ``data-method``, ``data-channel`` (index 0–18),
``data-mae`` or ``data-auroc`` (the mean) and ``data-n`` (the records averaged).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from wearbench.minutes import BINARY, CHANNELS, CONTINUOUS

#: Mean MAE per ``(method, channel)`` with its record count.
ChannelErrors = Mapping[tuple[str, int], tuple[float, int]]

CSS = """
td.skill small{display:block;color:#666;font-size:11px}
td.best{font-weight:600}
"""


def _f(x: float | None, digits: int = 3) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _attr(name: str, x: float | None) -> str:
    return "" if x is None else f' data-{name}="{float(x)!r}"'


def _head(first: str, cols: Sequence[str]) -> str:
    return f'<th class="l">{escape(first)}</th>' + "".join(f"<th>{escape(c)}</th>" for c in cols)


def _table(table_id: str, head: str, rows: Sequence[str]) -> str:
    return (
        f'<div class="scroll"><table id="{escape(table_id)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _method_cell(method: str, baseline: str) -> str:
    suffix = " (reference)" if method == baseline else ""
    return f'<td class="l">{escape(method + suffix)}</td>'


def skill_table(scored: Mapping[str, Any], table_id: str = "track-skill") -> str:
    """One row per method, one column per scope; cells ``skill`` over ``[ci_low, ci_high]``.

    Args:
        scored: The dict of :func:`~wearbench.scoring.score_imputation_results`.
        table_id: The table's ``id``.
    """
    scopes: list[str] = list(scored["scopes"])
    rows = []
    for method, cells in scored["methods"].items():
        tds = []
        for scope in scopes:
            c = cells[scope]
            attrs = (
                f' data-method="{escape(method)}" data-scope="{escape(scope)}"'
                + _attr("skill", c["skill"])
                + _attr("ci-low", c["ci_low"])
                + _attr("ci-high", c["ci_high"])
            )
            ci = f"<small>[{_f(c['ci_low'])}, {_f(c['ci_high'])}]</small>"
            tds.append(f'<td class="skill"{attrs}>{_f(c["skill"])}{ci}</td>')
        rows.append(f"<tr>{_method_cell(method, scored['baseline'])}{''.join(tds)}</tr>")
    return _table(table_id, _head("method", scopes), rows)


def rank_table(scored: Mapping[str, Any], table_id: str = "track-rank") -> str:
    """One row per method, one column per scope; cells the average rank (1 = best, ties averaged).

    Args:
        scored: The dict of :func:`~wearbench.scoring.score_imputation_results`.
        table_id: The table's ``id``.
    """
    scopes: list[str] = list(scored["scopes"])
    rows = []
    for method, cells in scored["methods"].items():
        best = [
            s
            for s in scopes
            if cells[s]["rank"] is not None
            and cells[s]["rank"] == min(_rank(m[s]["rank"]) for m in scored["methods"].values())
        ]
        tds = "".join(
            f'<td class="{"best" if s in best else ""}" data-method="{escape(method)}" '
            f'data-scope="{escape(s)}"{_attr("rank", cells[s]["rank"])}>{_f(cells[s]["rank"], 2)}</td>'
            for s in scopes
        )
        rows.append(f"<tr>{_method_cell(method, scored['baseline'])}{tds}</tr>")
    return _table(table_id, _head("method", scopes), rows)


def _rank(x: float | None) -> float:
    return math.inf if x is None else float(x)


def channel_table(
    errors: ChannelErrors,
    methods: Sequence[str],
    baseline: str,
    table_id: str = "track-channels",
    *,
    kind: str = "mae",
) -> str:
    """One row per method, one column per channel: the mean MAE (continuous) or AUROC (binary).

    MAE columns are every continuous channel (its unit per minute); AUROC columns are the binary
    channels with at least one record (single-class channels were never scored).

    Args:
        errors: ``(method, channel)`` → (mean over participants × approaches, records).
        methods: Row order.
        baseline: The reference method (marked).
        table_id: The table's ``id``.
        kind: ``"mae"`` or ``"auroc"``: which channels, and the ``data-*`` name of the mean.
    """
    if kind == "mae":
        channels = list(CONTINUOUS)
        cols = [f"{CHANNELS[c].name} ({CHANNELS[c].unit})" for c in channels]
    else:
        channels = [c for c in BINARY if any((m, c) in errors for m in methods)]
        cols = [CHANNELS[c].name for c in channels]
    rows = []
    for method in methods:
        tds = []
        for c in channels:
            got = errors.get((method, c))
            if got is None:
                tds.append("<td>–</td>")
                continue
            mean, n = got
            attrs = f' data-method="{escape(method)}" data-channel="{c}"{_attr(kind, mean)} data-n="{n}"'
            tds.append(f"<td{attrs}>{_f(mean)}</td>")
        rows.append(f"<tr>{_method_cell(method, baseline)}{''.join(tds)}</tr>")
    return _table(table_id, _head("method", cols), rows)


def task_table(
    by_task: Mapping[str, Mapping[str, Mapping[str, Any]]],
    methods: Sequence[str],
    baseline: str,
    table_id: str = "track-tasks",
) -> str:
    """One row per method, one column per outcome task: the task metric with its test participants.

    Args:
        by_task: ``breakdowns.by_task`` of the track score JSON: ``[method][task] = {metric,
            value, n, domain}``.
        methods: Row order.
        baseline: The reference method (marked).
        table_id: The table's ``id``.

    Cells carry ``data-method``, ``data-task``, ``data-metric``, ``data-value`` (absent when the
    metric is undefined) and ``data-n``.
    """
    tasks = list(dict.fromkeys(t for m in methods for t in by_task.get(m, {})))
    first = next((by_task[m] for m in methods if m in by_task), {})
    cols = [f"{t} ({first[t]['domain']}, {first[t]['metric']})" if t in first else t for t in tasks]
    rows = []
    for method in methods:
        tds = []
        for t in tasks:
            c = by_task.get(method, {}).get(t)
            if c is None:
                tds.append("<td>–</td>")
                continue
            attrs = (
                f' data-method="{escape(method)}" data-task="{escape(t)}" data-metric="{escape(c["metric"])}"'
                f'{_attr("value", c["value"])} data-n="{int(c["n"])}"'
            )
            tds.append(f'<td class="skill"{attrs}>{_f(c["value"])}<small>n = {int(c["n"])}</small></td>')
        rows.append(f"<tr>{_method_cell(method, baseline)}{''.join(tds)}</tr>")
    return _table(table_id, _head("method", cols), rows)
