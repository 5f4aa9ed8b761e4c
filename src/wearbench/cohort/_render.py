"""Plain-text rendering of :func:`~wearbench.cohort.describe_cohort` output."""

from __future__ import annotations

import io
import math
from typing import Any

from rich.console import Console
from rich.table import Table

from wearbench.cohort._published import PUBLISHED_CAVEAT, PUBLISHED_HEADER, published_table_rows


def _f(x: Any, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.{digits}f}"


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def render_describe(desc: dict[str, Any], *, width: int = 120) -> str:
    """Readable plain-text tables (no colour) of a ``describe_cohort`` result."""
    console = Console(record=True, width=width, file=io.StringIO(), color_system=None, force_terminal=False)
    c = desc.get("counts", {})
    dpu = c.get("days_per_user") or {}
    dr = c.get("date_range") or {}
    console.print(
        f"Cohort: {_f(c.get('users'))} users, {_f(c.get('user_days'))} user-days "
        f"(days per user min {_f(dpu.get('min'))}, median {_f(dpu.get('median'))}, "
        f"max {_f(dpu.get('max'))}); "
        f"{dr.get('first', '–')} to {dr.get('last', '–')}; {_f(c.get('blood_draws'))} blood draws; "
        f"{_f(c.get('reference_rows'))} reference rows"
    )
    console.print(_metrics_table(desc.get("metrics", {})))
    miss = desc.get("missingness", {})
    ms, cov = miss.get("missing_share", {}), miss.get("calendar_coverage", {})
    console.print(
        f"Per-user missing share: median {_pct(ms.get('p50'))} (P5 {_pct(ms.get('p5'))}, "
        f"P95 {_pct(ms.get('p95'))}); calendar days with a row: median {_pct(cov.get('p50'))}"
    )
    console.print(_pairs_table(desc.get("correlations", {})))
    console.print(_demographics_table(desc.get("demographics", {})))
    console.print(_blood_table(desc.get("blood", {})))
    if desc.get("metrics"):
        console.print(_published_table(desc))
        console.print(f"Caveat: {PUBLISHED_CAVEAT}")
    return console.export_text(styles=False)


def _published_table(desc: dict[str, Any]) -> Table:
    t = Table(title="Against published population figures (docs/published-figures.md)", title_justify="left")
    for col in PUBLISHED_HEADER:
        t.add_column(
            col,
            justify="right" if col in ("this cohort", "published") else "left",
            overflow="fold",  # never cut a DOI
            ratio=3 if col == "caveat" else None,
        )
    for row in published_table_rows(desc):
        t.add_row(*row)
    return t


def _metrics_table(metrics: dict[str, Any]) -> Table:
    t = Table(
        title="Daily metrics (mean … P95 over all user-days; last column over users)", title_justify="left"
    )
    t.add_column("metric", no_wrap=True)
    for col in ("unit", "non-missing", "user-day mean", "SD", "P5", "P50", "P95", "P50 of per-user means"):
        t.add_column(col, justify="left" if col == "unit" else "right")
    for name, m in metrics.items():
        d, u = m.get("daily", {}), m.get("user_means", {})
        t.add_row(
            name,
            m.get("unit", ""),
            _pct(m.get("present_share")),
            *(_f(d.get(k)) for k in ("mean", "sd", "p5", "p50", "p95")),
            _f(u.get("p50")),
        )
    return t


def _pairs_table(corr: dict[str, Any], top: int = 8) -> Table:
    t = Table(title=f"Strongest pooled correlations (top {top})", title_justify="left")
    for col in ("pair", "pooled r", "median within-user r"):
        t.add_column(col, justify="left" if col == "pair" else "right")
    names, pooled, within = (
        corr.get("metrics", []),
        corr.get("pooled", []),
        corr.get("within_user_median", []),
    )
    pairs = [
        (abs(pooled[i][j]), i, j)
        for i in range(len(pooled))
        for j in range(i + 1, len(pooled))
        if pooled[i][j] is not None
    ]
    for _, i, j in sorted(pairs, reverse=True)[:top]:
        w = within[i][j] if within else None
        t.add_row(f"{names[i]} ~ {names[j]}", _f(pooled[i][j], 2), _f(w, 2))
    return t


def _demographics_table(demo: dict[str, Any]) -> Table:
    t = Table(title=f"Demographics ({_f(demo.get('users'))} users)", title_justify="left")
    t.add_column("field")
    t.add_column("summary")
    for col in ("age", "bmi"):
        s = demo.get(col)
        if s:
            t.add_row(col, f"median {_f(s.get('p50'))} (P5 {_f(s.get('p5'))}, P95 {_f(s.get('p95'))})")
    for col in ("sex", "ethnicity"):
        counts = demo.get(col)
        if counts:
            t.add_row(col, ", ".join(f"{k} {v}" for k, v in counts.items()))
    return t


def _blood_table(blood: dict[str, Any]) -> Table:
    t = Table(title=f"Blood panel ({_f(blood.get('draws'))} draws)", title_justify="left")
    for col in ("biomarker", "unit", "n", "P5", "P50", "P95"):
        t.add_column(col, justify="left" if col in ("biomarker", "unit") else "right")
    rows = dict(blood.get("biomarkers", {}))
    if "homa_ir" in blood:
        rows["homa_ir (derived)"] = blood["homa_ir"]
    for name, s in rows.items():
        t.add_row(name, s.get("unit", ""), _f(s.get("n")), *(_f(s.get(k), 2) for k in ("p5", "p50", "p95")))
    return t
