"""Write the demo/cohort report as self-contained HTML (figures embedded) and as Markdown."""

from __future__ import annotations

import base64
import html
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench._version import __version__
from wearbench.audit import PlantedAudit
from wearbench.cohort import METRICS, PUBLISHED_CAVEAT, PUBLISHED_HEADER, published_table_rows
from wearbench.report._bench import bench_tables

#: Heading of each demo figure, by file stem.
FIGURE_TITLES: dict[str, str] = {
    "distributions": "Distributions of the daily metrics over all user-days",
    "timeline": "One user's metrics against their rolling baseline, planted episodes shaded",
    "correlations": "Correlations between daily metrics, pooled over user-days",
    "missingness": "Which metrics are present on each user-day",
    "lag_recovery": "Planted coupling lags against the lags re-discovered from the data",
    "benchmark": "Items per question type, and how often a text-only model guesses them",
}


def figure_title(fig: Path) -> str:
    """The heading of a figure file: :data:`FIGURE_TITLES`, else its stem in words."""
    return FIGURE_TITLES.get(fig.stem, fig.stem.replace("_", " ").capitalize())


Table = tuple[str, list[str], list[list[str]]]

_CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
img{max-width:100%;border:1px solid #eee;margin:0.5em 0}
.meta,.note{color:#666;font-size:13px}.note{max-width:60em}
"""


def _fmt(value: Any, digits: int = 1) -> str:
    if isinstance(value, float):
        return "–" if value != value else f"{value:,.{digits}f}"
    return str(value)


def _metric_table(desc: Mapping[str, Any]) -> Table:
    header = ["metric", "unit", "present", "user-day mean", "SD", "P5", "median", "P95"]
    rows = []
    for m in METRICS:
        d = desc["metrics"][m.name]
        q = d["daily"]
        rows.append(
            [
                m.name,
                m.unit,
                f"{d['present_share']:.0%}",
                _fmt(q["mean"]),
                _fmt(q["sd"]),
                _fmt(q["p5"]),
                _fmt(q["p50"]),
                _fmt(q["p95"]),
            ]
        )
    return "Daily metrics over all user-days (pooled, not per user)", header, rows


def _coupling_table(audit: PlantedAudit) -> Table:
    groups: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for c in audit.couplings:
        groups[(c.driver, c.response)].append(c.ok)
    rows = [[f"{d} → {r}", str(len(v)), f"{sum(v) / len(v):.0%}"] for (d, r), v in sorted(groups.items())]
    rows.append(["all", str(len(audit.couplings)), f"{audit.lag_recovery_rate:.0%}"])
    title = f"Planted couplings re-discovered by lagged_correlation (max lag {audit.max_lag} days)"
    return title, ["driver → response", "planted", "lag and sign recovered"], rows


def _episode_table(audit: PlantedAudit) -> Table:
    groups: dict[str, list[bool]] = defaultdict(list)
    for e in audit.episodes:
        groups[f"{e.kind} ({e.marker})"].append(e.detected)
    rows = [[k, str(len(v)), f"{sum(v) / len(v):.0%}"] for k, v in sorted(groups.items())]
    title = f"Planted episodes overlapped by an excursion ≥ {audit.k} SD above the 28-day baseline"
    return title, ["episode (marker)", "planted", "detected"], rows


def _published_table(desc: Mapping[str, Any]) -> Table:
    rows = [list(r) for r in published_table_rows(dict(desc))]
    return _PUBLISHED_TITLE, list(PUBLISHED_HEADER), rows


_PUBLISHED_TITLE = "Against published population figures"
#: A note printed under a table, by table title.
_NOTES = {_PUBLISHED_TITLE: "Caveat: " + PUBLISHED_CAVEAT}


def report_tables(context: Mapping[str, Any]) -> list[Table]:
    """The report's tables as ``(title, header, rows)``."""
    desc, audit = context["desc"], context["audit"]
    tables = [_metric_table(desc), _published_table(desc), _coupling_table(audit), _episode_table(audit)]
    return tables + (bench_tables(context["bench"]) if context.get("bench") else [])


def _intro(context: Mapping[str, Any]) -> tuple[str, str]:
    counts = context["desc"]["counts"]
    title = "wearbench demo: synthetic cohort report"
    meta = (
        f"{counts['users']} users, {counts['user_days']} user-days; seed {context['seed']}; "
        f"content hash {context['content_hash'][:16]}…; wearbench {__version__}"
    )
    return title, meta


def write_html_report(path: Path, context: Mapping[str, Any], figures: Sequence[Path]) -> Path:
    """Write a self-contained HTML report (figures embedded as base64 PNG)."""
    title, meta = _intro(context)
    parts = [f"<!doctype html><meta charset='utf-8'><title>{title}</title><style>{_CSS}</style>"]
    parts.append(f"<h1>{html.escape(title)}</h1><p class='meta'>{html.escape(meta)}</p>")
    for caption, header, rows in report_tables(context):
        parts.append(f"<h2>{html.escape(caption)}</h2><table><tr>")
        parts.extend(f"<th>{html.escape(h)}</th>" for h in header)
        parts.append("</tr>")
        parts.extend("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
        parts.append("</table>")
        if caption in _NOTES:
            parts.append(f"<p class='note'>{html.escape(_NOTES[caption])}</p>")
    parts.append("<h2>Figures</h2>")
    for fig in figures:
        data = base64.b64encode(fig.read_bytes()).decode("ascii")
        title = html.escape(figure_title(fig), quote=True)
        parts.append(f"<h3>{title}</h3><img alt='{title}' src='data:image/png;base64,{data}'>")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path


def write_markdown_report(path: Path, context: Mapping[str, Any], figures: Sequence[Path]) -> Path:
    """Write the report as Markdown; figures are linked by relative path."""
    title, meta = _intro(context)
    lines = [f"# {title}", "", meta, ""]
    for caption, header, rows in report_tables(context):
        lines += [f"## {caption}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
        if caption in _NOTES:
            lines += [_NOTES[caption], ""]
    lines += ["## Figures", ""]
    for fig in figures:
        rel = fig.relative_to(path.parent) if fig.is_relative_to(path.parent) else fig
        title = figure_title(fig)
        lines += [f"### {title}", "", f"![{title}]({rel.as_posix()})", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
