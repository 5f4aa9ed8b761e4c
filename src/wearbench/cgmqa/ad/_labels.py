"""AD templates answered by the intervals where the fault label is in a set (one table, 33 ids).

Each row: the labels, optionally a day range and a clock window ``[a, b)`` (the mask is restricted
to them, so an interval is clipped at their edges), optionally a minimum run length in points
and a displayed-CGM bound (ad_42). The answer is the runs of the mask as intervals
(:func:`wearbench.cgmqa.to_intervals`); a record without any such interval has no answer (the
item is dropped). Spec slips read as documented in ``docs/cgm-templates.md``: ``bias_basal`` is
{positive_basal, negative_basal}; ad_52's ``positive_spike`` is ``positive_basal``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import clock_mask, days_points, long_runs, runs, to_intervals
from wearbench.cgmqa._template import Params, template

SPIKES = frozenset({"positive_spike", "negative_spike"})
BIAS = frozenset({"positive_bias", "negative_bias"})
BIAS_BASAL = frozenset({"positive_basal", "negative_basal"})
CGM_FAULTS = SPIKES | BIAS | {"missing_signal", "repeated_reading", "max_reading", "min_reading",
                              "repeated_episode", "zero_reading"}  # fmt: skip
PUMP = BIAS_BASAL | {"false_bolus", "max_basal", "min_basal"}


@dataclass(frozen=True)
class LabelRule:
    """One label-set interval template (see the module docstring)."""

    id: str
    level: str
    abilities: tuple[str, ...]
    labels: frozenset[str] | None  # None: the missing (NaN) readings
    question: str
    days: tuple[int, int] | None = None
    clock: tuple[int, int] | None = None
    min_points: int = 1
    below: float | None = None

    def mask(self, record: PatientRecord) -> np.ndarray | None:
        """Points that belong to an answer interval, or None when the record lacks the days."""
        if self.labels is None:
            m = np.isnan(record.bg)
        else:
            if record.fault is None:
                return None
            m = np.isin(record.fault, list(self.labels))
        if self.below is not None:
            with np.errstate(invalid="ignore"):
                m &= record.bg < self.below
        if self.days is not None:
            if self.days[1] > record.days:
                return None
            keep = np.zeros(len(m), dtype=bool)
            keep[days_points(*self.days)] = True
            m &= keep
        if self.clock is not None:
            m &= clock_mask(len(m), *self.clock)
        return np.asarray(m, dtype=bool)


_H = 60
RULES: tuple[LabelRule, ...] = (
    LabelRule("ad_3", "descriptive", ("QC",), None, "When were my glucose readings missing?"),
    LabelRule("ad_4", "descriptive", ("QC",), frozenset({"negative_spike"}),
              "When did my sensor show sudden false drops (negative spikes)?"),
    LabelRule("ad_5", "pattern", ("PR",), CGM_FAULTS, "When was my CGM sensor reading wrong in any way?"),
    LabelRule("ad_6", "pattern", ("PC",), frozenset({"repeated_reading"}),
              "When did my sensor keep repeating the same reading?"),
    LabelRule("ad_7", "pattern", ("PC",), frozenset({"repeated_reading"}),
              "When did my sensor repeat the same reading for 3 hours or more?", min_points=36),
    LabelRule("ad_8", "pattern", ("PC",), SPIKES | {"repeated_reading", "zero_reading"},
              "When might my sensor have been dislodged?"),
    LabelRule("ad_9", "pattern", ("PC",), BIAS,
              "When was my sensor miscalibrated (reading too high or too low)?"),
    LabelRule("ad_10", "pattern", ("PC",), SPIKES,
              "When did my readings spike and then return to normal right away?"),
    LabelRule("ad_11", "pattern", ("TR", "PC"), SPIKES | {"repeated_reading", "zero_reading"},
              "Between days 24 and 30, when did my sensor show spikes, repeated or zero readings?",
              days=(24, 30)),
    LabelRule("ad_12", "pattern", ("TR", "PC"), frozenset({"missing_signal"}),
              "On days 28 and 29, when did my sensor lose its signal?", days=(28, 29)),
    LabelRule("ad_13", "pattern", ("TR", "PC"), SPIKES,
              "Between days 24 and 30, when did my readings spike up or down?", days=(24, 30)),
    LabelRule("ad_14", "pattern", ("TR", "PC"), frozenset({"negative_spike"}),
              "On day 14, when did my sensor show a sudden false drop?", days=(14, 14)),
    LabelRule("ad_15", "pattern", ("TR", "PC"), frozenset({"negative_spike"}),
              "In the first week, when did my sensor show a sudden drop of more than 50 mg/dL?", days=(1, 7)),
    LabelRule("ad_16", "pattern", ("TR", "PC"), frozenset({"positive_spike"}),
              "On day 30 between 6 am and 12 pm, when did my readings spike up?", days=(30, 30),
              clock=(6 * _H, 12 * _H)),
    LabelRule("ad_33", "pattern", ("PC",), frozenset({"negative_spike"}),
              "Around lunchtime (12 pm to 2 pm) on any day, when did my sensor show a sudden false drop?",
              clock=(12 * _H, 14 * _H)),
    LabelRule("ad_40", "pattern", ("TR", "PC"), frozenset({"repeated_reading"}),
              "At night (midnight to 6 am), when did my sensor keep repeating the same reading?",
              clock=(0, 6 * _H)),
    LabelRule("ad_42", "pattern", ("PC",),
              frozenset({"zero_reading", "negative_bias", "min_reading", "repeated_reading",
                         "negative_spike"}),
              "When did my sensor show a false low below 80 mg/dL?", below=80.0),
    LabelRule("ad_43", "pattern", ("PC",), frozenset({"missing_signal"}),
              "When did my sensor lose its connection (no readings came through)?"),
    LabelRule("ad_44", "pattern", ("PR",), frozenset({"false_meal"}),
              "When was a meal recorded that I did not actually eat?"),
    LabelRule("ad_45", "pattern", ("PC",), frozenset({"false_bolus", "repeated_reading", "repeated_episode"}),
              "When were old readings or doses replayed by my devices?"),
    LabelRule("ad_47", "pattern", ("PC",), BIAS, "When were my readings shifted by a constant offset?"),
    LabelRule("ad_48", "pattern", ("PR",), PUMP, "When was my pump's insulin delivery changed remotely?"),
    LabelRule("ad_49", "pattern", ("PR",), PUMP, "When did my pump deliver unusual insulin doses?"),
    LabelRule("ad_50", "pattern", ("PC",), frozenset({"max_reading"}),
              "When was my sensor stuck at an implausibly high reading?"),
    LabelRule("ad_51", "pattern", ("PR",),
              SPIKES | {"missing_signal", "repeated_reading", "max_reading", "min_reading", "negative_bias"},
              "When was false data injected into my sensor readings?"),
    LabelRule("ad_52", "pattern", ("PR",),
              frozenset({"max_basal", "min_basal", "negative_basal", "positive_basal", "false_bolus"}),
              "When was my insulin pump's driver misbehaving?"),
    LabelRule("ad_53", "pattern", ("PC",), BIAS, "When did my sensor need recalibrating?"),
    LabelRule("ad_54", "pattern", ("PC",), frozenset({"negative_spike"}),
              "When was my sensor pressed on (pressure-induced false lows)?"),
    LabelRule("ad_56", "pattern", ("PC",), frozenset({"repeated_reading", "zero_reading"}),
              "When did my sensor lose its sensitivity?"),
    LabelRule("ad_57", "pattern", ("PC",), frozenset({"negative_bias"}),
              "When did my sensor read too low for 6 hours or more?", min_points=72),
    LabelRule("ad_58", "pattern", ("PC",), frozenset({"min_basal", "unknown_stop"}),
              "When did my insulin delivery stop?"),
    LabelRule("ad_59", "pattern", ("PC",), frozenset({"unknown_stop"}),
              "When did my pump look normal but deliver no insulin?"),
    LabelRule("ad_60", "pattern", ("PC",), frozenset({"min_basal", "negative_basal", "unknown_under"}),
              "When did I get less insulin than I should have?"),
    LabelRule("ad_61", "pattern", ("PC",), frozenset({"unknown_under"}),
              "When did my pump deliver less insulin than it showed?"),
    LabelRule("ad_62", "pattern", ("PC",), frozenset({"unknown_stop"}),
              "When might my insulin reservoir have been empty?"),
    LabelRule("ad_63", "pattern", ("PC",), frozenset({"unknown_stop"}),
              "When might my infusion set have been blocked?"),
    LabelRule("ad_64", "pattern", ("PC",), frozenset({"unknown_under"}),
              "When might insulin have leaked or been poorly absorbed?"),
)  # fmt: skip


def _truth(rule: LabelRule) -> Callable[[PatientRecord, Params], list[dict[str, int]] | None]:
    def truth(record: PatientRecord, params: Params) -> list[dict[str, int]] | None:
        m = rule.mask(record)
        found = [] if m is None else long_runs(runs(m), rule.min_points)
        return to_intervals(found) or None

    what = "missing readings" if rule.labels is None else ", ".join(sorted(rule.labels))
    extra = [f"days {rule.days[0]}-{rule.days[1]}"] if rule.days else []
    extra += [f"clock {rule.clock[0] // 60:02d}:00-{rule.clock[1] // 60:02d}:00"] if rule.clock else []
    extra += [f">= {rule.min_points} points"] if rule.min_points > 1 else []
    extra += [f"CGM < {rule.below:g} mg/dL"] if rule.below is not None else []
    truth.__doc__ = f"Intervals of {what}" + (f" ({'; '.join(extra)})" if extra else "") + "."
    truth.__qualname__ = f"label_intervals_{rule.id}"
    return truth


for _rule in RULES:
    template(
        _rule.id,
        level=_rule.level,
        abilities=_rule.abilities,
        answer_type="intervals",
        metric="affiliation",
        needs=() if _rule.labels is None else ("faults",),
        question=_rule.question,
    )(_truth(_rule))
