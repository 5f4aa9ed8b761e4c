"""Text representations of a :class:`DataView` (registered under kind ``representation``).

Each takes the view and returns the data section as a tuple of parts: the static context
(user profile, blood panel, cohort reference; see :func:`context_text`) followed by the
daily records in its own layout. Under ``no_series`` every representation returns the
static context only. Missing values are ``NA``, except in CSV where the cell is empty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wearbench._registry import registered
from wearbench.models import ImagePart, TextPart
from wearbench.prompts._format import (
    NA,
    STATS_COLUMNS,
    context_text,
    fmt,
    series_header,
    summary_stats,
)
from wearbench.prompts._view import DataView, column_name

Parts = tuple[TextPart | ImagePart, ...]

#: Decorator factory registering a representation (tags: ``image`` bool, ``stats`` bool).
representation: Callable[..., Callable[[Callable[[DataView], Parts]], Callable[[DataView], Parts]]] = (
    registered("representation")
)


def _section(view: DataView, body: str | None, missing: str = NA) -> Parts:
    """Static context, then (when there are series) the records header and ``body``."""
    text = context_text(view)
    if view.series and body is not None:
        text += "\n\n" + series_header(view, missing) + "\n" + body
    return (TextPart(text),)


def _csv_table(rows: Sequence[Sequence[str]]) -> str:
    return "\n".join(",".join(r) for r in rows)


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], right_from: int = 1) -> str:
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(r) + " |" for r in lines)


def _cells(view: DataView, missing: str) -> list[list[str]]:
    return [
        [date, *(fmt(s.values[i], s.decimals, missing) for s in view.series)]
        for i, date in enumerate(view.dates)
    ]


def _header(view: DataView) -> list[str]:
    return ["date", *(column_name(s.name, s.unit) for s in view.series)]


def _stats_rows(view: DataView) -> list[list[str]]:
    return [st.cells() for st in summary_stats(view.series)]


_STATS_TITLE = (
    "Summary statistics per metric over the shown days (n = days with a value; sd = sample "
    "standard deviation; mean_last7 = mean of the last 7 days):"
)


@representation(image=False, stats=False)
def row(view: DataView) -> Parts:
    """Row-wise: one line per day, ``date: metric=value unit, …`` (``metric=NA`` when missing)."""

    def cell(name: str, unit: str, text: str) -> str:
        return f"{name}={text}" if text == NA else f"{name}={text} {unit}"

    lines = [
        f"{date}: " + ", ".join(cell(s.name, s.unit, fmt(s.values[i], s.decimals)) for s in view.series)
        for i, date in enumerate(view.dates)
    ]
    return _section(view, "\n".join(lines))


@representation(image=False, stats=False)
def column(view: DataView) -> Parts:
    """Column-wise: the dates once, then one line per metric with its values in date order."""
    lines = ["dates: " + ", ".join(view.dates)]
    lines += [f"{s.name} ({s.unit}): " + ", ".join(fmt(v, s.decimals) for v in s.values) for s in view.series]
    return _section(view, "\n".join(lines))


@representation(image=False, stats=False)
def csv(view: DataView) -> Parts:
    """CSV table: header ``date,<metric> [<unit>],…``, one row per day, empty cell = missing."""
    table = _csv_table([_header(view), *_cells(view, "")])
    return _section(view, "```csv\n" + table + "\n```", missing="empty cell")


@representation(image=False, stats=False)
def markdown(view: DataView) -> Parts:
    """Markdown table: one row per day, one column per metric (``NA`` = missing)."""
    return _section(view, _md_table(_header(view), _cells(view, NA)))


@representation("csv+stats", image=False, stats=True)
def csv_stats(view: DataView) -> Parts:
    """The CSV table, then a CSV block of per-metric summary statistics (``NA`` = undefined)."""
    table = _csv_table([_header(view), *_cells(view, "")])
    stats = _csv_table([list(STATS_COLUMNS), *_stats_rows(view)])
    body = "```csv\n" + table + "\n```\n\n" + _STATS_TITLE + "\n```csv\n" + stats + "\n```"
    return _section(view, body, missing="empty cell")


@representation("markdown+stats", image=False, stats=True)
def markdown_stats(view: DataView) -> Parts:
    """The Markdown table, then a Markdown table of per-metric summary statistics."""
    table = _md_table(_header(view), _cells(view, NA))
    stats = _md_table(list(STATS_COLUMNS), _stats_rows(view), right_from=2)
    return _section(view, table + "\n\n" + _STATS_TITLE + "\n" + stats)
