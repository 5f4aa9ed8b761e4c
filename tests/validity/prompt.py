"""Render an item's prompt as a model sees it, and parse that text back into numbers.

The prompt-only solver sees nothing but the text :func:`prompt_text` returns (the user message
of ``wearbench eval`` in the ``csv`` representation, ``direct`` mode). :func:`parse_prompt`
reads it with plain string handling: the user profile, the blood panel, the cohort reference
percentiles, the CSV daily records, the question stem and the ten options.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from wearbench.bench import load_context, read_items
from wearbench.prompts import build_messages
from wearbench.questions import Item
from wearbench.runner import Setting

__all__ = ["LETTERS", "PHRASES", "Prompt", "bench_prompts", "find_metric", "parse_prompt", "prompt_text"]

LETTERS = "ABCDEFGHIJ"
SETTING = Setting(representation="csv", mode="direct")

#: How stems name metrics (a reader's own glossary, longest first when matched).
PHRASES: Mapping[str, str] = {
    "resting heart rate": "resting_hr",
    "resting hr": "resting_hr",
    "heart-rate variability": "hrv",
    "hrv": "hrv",
    "estimated vo2max": "vo2max",
    "vo2max": "vo2max",
    "daily step count": "steps",
    "daily steps": "steps",
    "steps": "steps",
    "active energy burned": "active_kcal",
    "active kcal": "active_kcal",
    "main sleep duration": "sleep_minutes",
    "sleep duration": "sleep_minutes",
    "sleep minutes": "sleep_minutes",
    "time asleep / time in bed": "sleep_efficiency",
    "sleep efficiency": "sleep_efficiency",
    "average stress level": "stress",
    "stress": "stress",
    "deep sleep share of sleep": "deep_sleep_pct",
    "deep sleep pct": "deep_sleep_pct",
    "rem sleep share of sleep": "rem_sleep_pct",
    "rem sleep pct": "rem_sleep_pct",
    "exercise duration": "exercise_minutes",
    "exercise minutes": "exercise_minutes",
    "exercise sessions": "exercise_count",
    "exercise count": "exercise_count",
    "daily exercise met-hours": "mets",
    "mets": "mets",
}


@dataclass(frozen=True)
class Prompt:
    """What the prompt text says, parsed.

    Attributes:
        text: The whole user message.
        profile: ``age`` (years), ``sex``, ``bmi`` (kg/m2) as printed.
        blood_date: Date of the shown draw, or None.
        blood: Biomarker name → value (as printed; NaN for ``NA``).
        reference_group: ``(age band, sex)`` of the shown percentiles, or None.
        reference: Metric → {percentile: value}.
        dates: Shown days (datetime64[D], oldest first).
        window_days: Days of the question window (the last ones shown).
        series: Metric → daily values aligned with ``dates`` (NaN = empty cell).
        units: Metric → unit from the table header.
        question: The stem.
        options: Letter → option text.
    """

    text: str
    profile: Mapping[str, str]
    blood_date: str | None
    blood: Mapping[str, float]
    reference_group: tuple[str, str] | None
    reference: Mapping[str, Mapping[int, float]]
    dates: np.ndarray
    window_days: int
    series: Mapping[str, np.ndarray]
    units: Mapping[str, str] = field(default_factory=dict)
    question: str = ""
    options: Mapping[str, str] = field(default_factory=dict)

    def values(self, metric: str) -> np.ndarray:
        """All shown days of ``metric`` (NaN where missing or not shown at all)."""
        return self.series.get(metric, np.full(len(self.dates), np.nan))

    def span(self, metric: str, days: int) -> np.ndarray:
        """The last ``days`` shown days of ``metric`` (NaN-padded in front if fewer are shown)."""
        v = self.values(metric)
        if days <= len(v):
            return v[len(v) - days :]
        return np.concatenate([np.full(days - len(v), np.nan), v])

    def index(self, date: str) -> int:
        """Row of an ISO date in the table."""
        hit = np.flatnonzero(self.dates == np.datetime64(date, "D"))
        if hit.size != 1:
            raise ValueError(f"date {date} is not shown")
        return int(hit[0])


def prompt_text(item: Item, bench: Path) -> str:
    """The user message ``wearbench eval`` shows for ``item`` (csv representation, direct mode)."""
    messages = build_messages(item, load_context(bench, item.user_id), SETTING, vision=False)
    content = messages[-1].content
    if not isinstance(content, str):
        raise TypeError(f"item {item.id}: the csv prompt is not plain text")
    return content


def bench_prompts(bench: Path) -> list[tuple[Item, str]]:
    """Every item of a benchmark with its prompt text."""
    return [(item, prompt_text(item, bench)) for item in read_items(bench)]


def _section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    return m.group(1) if m else ""


def _number(text: str) -> float:
    return math.nan if text in ("", "NA") else float(text.replace(",", ""))


def _profile(text: str) -> dict[str, str]:
    m = re.search(r"Age (\S+) years, sex (\S+), BMI (\S+) kg/m2", text)
    return {} if m is None else {"age": m.group(1), "sex": m.group(2), "bmi": m.group(3)}


def _blood(text: str) -> tuple[str | None, dict[str, float]]:
    body = _section(text, "Blood panel")
    m = re.search(r"drawn (\d{4}-\d{2}-\d{2})", body)
    values = {}
    for line in body.splitlines():
        hit = re.match(r"- (\w+)(?: \(.*\))?: (\S+)", line)
        if hit:
            values[hit.group(1)] = _number(hit.group(2))
    return (m.group(1) if m else None), values


def _reference(text: str) -> tuple[tuple[str, str] | None, dict[str, dict[int, float]]]:
    body = _section(text, "Cohort reference")
    group = re.search(r"age band (\S+), sex (\w+)", body)
    ref: dict[str, dict[int, float]] = {}
    for line in body.splitlines():
        hit = re.match(r"- (\w+) \([^)]*\): (.*)$", line)
        if hit:
            pairs = re.findall(r"P(\d+)=(NA|-?\d[\d,]*(?:\.\d+)?)(?=, P|$)", hit.group(2))
            ref[hit.group(1)] = {int(p): _number(v) for p, v in pairs}
    return ((group.group(1), group.group(2)) if group else None), ref


def _records(text: str) -> tuple[np.ndarray, int, dict[str, np.ndarray], dict[str, str]]:
    body = _section(text, "Daily records")
    win = re.search(r"the question window is the last (\d+) days", body)
    table = re.search(r"```csv\n(.*?)\n```", body, flags=re.S)
    if table is None:
        return np.array([], dtype="datetime64[D]"), 0, {}, {}
    rows = [line.split(",") for line in table.group(1).splitlines()]
    header, cells = rows[0], rows[1:]
    dates = np.array([r[0] for r in cells], dtype="datetime64[D]")
    series, units = {}, {}
    for j, col in enumerate(header[1:], start=1):
        name, unit = re.match(r"(\w+) \[(.*)\]$", col).groups()  # type: ignore[union-attr]
        series[name] = np.array([_number(r[j]) for r in cells], dtype=np.float64)
        units[name] = unit
    return dates, int(win.group(1)) if win else len(dates), series, units


def _question(text: str) -> tuple[str, dict[str, str]]:
    body = text[text.rindex("## Question\n") + len("## Question\n") :]
    stem, _, opts = body.partition("\n\nOptions:\n")
    options = {}
    for line in opts.splitlines():
        if len(line) > 2 and line[0] in LETTERS and line[1:3] == ". ":
            options[line[0]] = line[3:]
    return stem.strip(), options


def parse_prompt(text: str) -> Prompt:
    """Parse a rendered prompt (see module docstring) into a :class:`Prompt`."""
    blood_date, blood = _blood(text)
    group, ref = _reference(text)
    dates, window, series, units = _records(text)
    stem, options = _question(text)
    return Prompt(
        text, _profile(text), blood_date, blood, group, ref, dates, window, series, units, stem, options
    )


def find_metric(text: str, candidates: Mapping[str, str] = PHRASES) -> str:
    """The metric a phrase of ``text`` names (longest glossary phrase found first)."""
    low = text.lower()
    for phrase in sorted(candidates, key=len, reverse=True):
        if phrase in low:
            return candidates[phrase]
    raise ValueError(f"no metric named in {text[:120]!r}")
