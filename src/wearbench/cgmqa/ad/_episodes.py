"""AD templates answered by intervals of low or high displayed glucose (one table, plus two patterns).

Hypoglycaemia is a valid displayed reading below 70 mg/dL, hyperglycaemia one above 180
(``zero_reading`` and the other CGM faults count, as upstream: the question is about what the
sensor showed); a missing (NaN) reading ends a run. A row of :data:`RULES` restricts that mask to a
day range (absolute days, or the record's last ``n`` days) and a clock window ``[a, b)``, so runs are
clipped at their edges, then keeps the runs of at least ``min_points`` points (all, or only the
last). A record without such a run has no answer (the item is dropped).

ad_21 and ad_37 look at consecutive episodes (:func:`episodes`): a hypo run whose next hyper run
starts within 2 h of the hypo start (ad_21: from the hypo start to that hyper run's end), and a
hyper → hypo → hyper sequence of consecutive episodes with at most 2 h from one episode's last
reading to the next one's first (ad_37: from the first hyper start to the second hyper end).
Overlapping answers are merged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import (
    HYPER_MGDL,
    HYPO_MGDL,
    STEP_MIN,
    clock_mask,
    days_points,
    long_runs,
    runs,
    to_intervals,
)
from wearbench.cgmqa._template import Params, template

Kind = Literal["hypo", "hyper"]
_H = 60
#: Points in 2 hours (the transition limit of ad_21 and ad_37).
TWO_HOURS = 120 // STEP_MIN


def below(bg: np.ndarray, bound: float) -> np.ndarray:
    """Valid readings strictly below ``bound`` (NaN: False)."""
    v = np.asarray(bg, dtype=np.float64)
    return np.asarray(np.where(np.isnan(v), False, np.nan_to_num(v) < bound), dtype=bool)


def above(bg: np.ndarray, bound: float) -> np.ndarray:
    """Valid readings strictly above ``bound`` (NaN: False)."""
    v = np.asarray(bg, dtype=np.float64)
    return np.asarray(np.where(np.isnan(v), False, np.nan_to_num(v) > bound), dtype=bool)


def hypo(bg: np.ndarray) -> np.ndarray:
    """Displayed readings below 70 mg/dL."""
    return below(bg, HYPO_MGDL)


def hyper(bg: np.ndarray) -> np.ndarray:
    """Displayed readings above 180 mg/dL."""
    return above(bg, HYPER_MGDL)


def last_days(record: PatientRecord, n: int) -> tuple[int, int] | None:
    """Day range (1-based, inclusive) of the record's last ``n`` days, or None when it is shorter."""
    return None if record.days < n else (record.days - n + 1, record.days)


def in_days(mask: np.ndarray, days: tuple[int, int]) -> np.ndarray:
    """``mask`` restricted to days ``days[0]`` … ``days[1]`` (1-based, inclusive)."""
    keep = np.zeros(len(mask), dtype=bool)
    keep[days_points(*days)] = True
    out: np.ndarray = mask & keep
    return out


@dataclass(frozen=True)
class GlucoseRule:
    """One glucose-interval template (see the module docstring).

    Attributes:
        above: Readings above this bound (mg/dL), else below ``below``.
        days: Absolute day range (1-based, inclusive), or None.
        last: The record's last ``last`` days, or None.
        clock: Clock window ``[a, b)`` in minutes after midnight, or None.
        min_points: Shortest run kept, points.
        only_last: Keep only the most recent run.
    """

    id: str
    level: str
    abilities: tuple[str, ...]
    question: str
    above: float | None = None
    below: float | None = None
    days: tuple[int, int] | None = None
    last: int | None = None
    clock: tuple[int, int] | None = None
    min_points: int = 1
    only_last: bool = False
    in_headline: bool = True

    def found(self, record: PatientRecord) -> list[tuple[int, int]]:
        """The answer's runs (point indices), ``[]`` when none or the record lacks the days."""
        m = above(record.bg, self.above) if self.above is not None else below(record.bg, self.below or 0.0)
        days = self.days if self.last is None else last_days(record, self.last)
        if days is not None:
            if days[1] > record.days:
                return []
            m = in_days(m, days)
        if self.clock is not None:
            m &= clock_mask(len(m), *self.clock)
        kept = long_runs(runs(m), self.min_points)
        return kept[-1:] if self.only_last else kept


RULES: tuple[GlucoseRule, ...] = (
    GlucoseRule("ad_17", "descriptive", ("QC",), "When was my most recent low (below 70 mg/dL)?",
                below=HYPO_MGDL, only_last=True),
    GlucoseRule("ad_18", "memory", ("TR", "QC"),
                "When was my glucose below 70 mg/dL overnight (midnight to 6 am)?",
                below=HYPO_MGDL, clock=(0, 6 * _H), in_headline=False),
    GlucoseRule("ad_19", "memory", ("TR", "QC"),
                "When was my glucose below 70 mg/dL for an hour or more overnight (midnight to 6 am)?",
                below=HYPO_MGDL, clock=(0, 6 * _H), min_points=_H // STEP_MIN, in_headline=False),
    GlucoseRule("ad_20", "memory", ("ER", "QC"),
                "Between days 24 and 30, when was my glucose below 70 mg/dL?",
                below=HYPO_MGDL, days=(24, 30)),
    GlucoseRule("ad_23", "memory", ("TR", "QC"), "On day 25, when was my glucose above 180 mg/dL?",
                above=HYPER_MGDL, days=(25, 25)),
    GlucoseRule("ad_28", "memory", ("TR", "QC"),
                "In the last 7 days, when was my glucose above 180 mg/dL for 4 hours or more?",
                above=HYPER_MGDL, last=7, min_points=4 * _H // STEP_MIN),
    GlucoseRule("ad_36", "pattern", ("PC",),
                "Around lunchtime (12 pm to 2 pm), when did my glucose go above 220 mg/dL?",
                above=220.0, clock=(12 * _H, 14 * _H)),
)  # fmt: skip


def _rule_truth(rule: GlucoseRule) -> Callable[[PatientRecord, Params], list[dict[str, int]] | None]:
    def truth(record: PatientRecord, params: Params) -> list[dict[str, int]] | None:
        return to_intervals(rule.found(record)) or None

    bound = f"CGM > {rule.above:g}" if rule.above is not None else f"CGM < {rule.below:g}"
    extra = [f"days {rule.days[0]}-{rule.days[1]}"] if rule.days else []
    extra += [f"last {rule.last} days"] if rule.last else []
    extra += [f"clock {rule.clock[0] // 60:02d}:00-{rule.clock[1] // 60:02d}:00"] if rule.clock else []
    extra += [f">= {rule.min_points} points"] if rule.min_points > 1 else []
    extra += ["the most recent run only"] if rule.only_last else []
    truth.__doc__ = f"Runs of {bound} mg/dL" + (f" ({'; '.join(extra)})" if extra else "") + "."
    truth.__qualname__ = f"glucose_intervals_{rule.id}"
    return truth


for _rule in RULES:
    template(
        _rule.id,
        level=_rule.level,
        abilities=_rule.abilities,
        answer_type="intervals",
        metric="affiliation",
        in_headline=_rule.in_headline,
        question=_rule.question,
    )(_rule_truth(_rule))


def episodes(bg: np.ndarray) -> list[tuple[Kind, int, int]]:
    """Hypo and hyper runs of the whole record in time order, as ``(kind, first, last)`` points."""
    found: list[tuple[Kind, int, int]] = [("hypo", a, b) for a, b in runs(hypo(bg))]
    found += [("hyper", a, b) for a, b in runs(hyper(bg))]
    return sorted(found, key=lambda e: e[1])


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Point spans sorted, overlapping or touching ones merged."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


@template(
    "ad_21",
    level="pattern",
    abilities=("PC",),
    answer_type="intervals",
    metric="affiliation",
    question="When did a low (below 70 mg/dL) turn into a high (above 180 mg/dL) within 2 hours?",
)
def rebound(record: PatientRecord, params: Params) -> list[dict[str, int]] | None:
    """From each hypo start to the end of the first hyper run starting (0, 120] min after it."""
    found = episodes(record.bg)
    spans = []
    for kind, a, _ in found:
        if kind != "hypo":
            continue
        nxt = next((e for e in found if e[0] == "hyper" and 0 < e[1] - a <= TWO_HOURS), None)
        if nxt is not None:
            spans.append((a, nxt[2]))
    return to_intervals(merged(spans)) or None


@template(
    "ad_37",
    level="pattern",
    abilities=("PC",),
    answer_type="intervals",
    metric="affiliation",
    question="When did my glucose swing from high to low and back to high, each change within 2 hours?",
)
def swing(record: PatientRecord, params: Params) -> list[dict[str, int]] | None:
    """Consecutive hyper, hypo, hyper episodes, each gap (last point to next first point) ≤ 2 h."""
    found = episodes(record.bg)
    spans = []
    for h1, lo, h2 in zip(found, found[1:], found[2:], strict=False):
        shape = (h1[0], lo[0], h2[0]) == ("hyper", "hypo", "hyper")
        if shape and lo[1] - h1[2] <= TWO_HOURS and h2[1] - lo[2] <= TWO_HOURS:
            spans.append((h1[1], h2[2]))
    return to_intervals(merged(spans)) or None
