"""Free-form answer metrics of HealthLoopQA, the 0–100 item score, and run breakdowns.

Metrics follow the HealthLoopQA evaluator's rules (see ``docs/cgm-scoring.md``): accuracy
(Jaccard for lists), set F1, sMAPE, MAE and affiliation F. The item score puts them on one
0–100 scale: accuracy, F1 and affiliation F as they are, ``1 - sMAPE/2`` for every numeric
template (also those whose metric is MAE; the MAE is still reported). A parse failure scores 0
and is counted, never dropped.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from wearbench.scoring._affiliation import Interval, affiliation
from wearbench.scoring._bootstrap import cluster_bootstrap_ci
from wearbench.scoring._extract import Parsed, normalize_answer

#: Per-item metrics (names shared with the templates in ``cgmqa``).
Metric = Literal["accuracy", "f1", "smape", "mae", "affiliation_f"]
METRICS: tuple[str, ...] = get_args(Metric)

_ALIASES = {
    "acc": "accuracy",
    "jaccard": "accuracy",
    "exact": "accuracy",
    "set_f1": "f1",
    "afff": "affiliation_f",
    "aff_f": "affiliation_f",
    "affiliation": "affiliation_f",
    "affinity_f": "affiliation_f",
}


def metric_name(name: str) -> str:
    """The canonical metric name of ``name`` (case-insensitive; ``Acc``, ``sMAPE``, ``AffF`` …).

    Raises:
        ValueError: On an unknown metric.
    """
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in METRICS:
        raise ValueError(f"unknown metric {name!r}; expected one of {', '.join(METRICS)}")
    return key


def _is_nan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _as_set(values: Sequence[Any]) -> set[Any]:
    """Elements as a set; NaN elements dropped (they never equal anything)."""
    return {v for v in values if not _is_nan(v)}


def accuracy_score(pred: Any, truth: Any) -> float:
    """Exact match after normalisation, in ``[0, 1]``.

    Two lists score their Jaccard index ``|P ∩ E| / |P ∪ E|`` (both empty 1, one empty 0);
    a list against a scalar 0; NaN against NaN 1; numbers compare by value (``3 == 3.0``).
    """
    if isinstance(pred, list | tuple) and isinstance(truth, list | tuple):
        p, e = _as_set(pred), _as_set(truth)
        if not p and not e:
            return 1.0
        return len(p & e) / len(p | e)
    if isinstance(pred, list | tuple) or isinstance(truth, list | tuple):
        return 0.0
    if _is_nan(pred) and _is_nan(truth):
        return 1.0
    return 1.0 if pred == truth else 0.0


def set_f1(pred: Any, truth: Any) -> float:
    """F1 of the predicted set against the true set, in ``[0, 1]``; both empty 1, one empty 0.

    A scalar counts as a one-element set.
    """
    p = _as_set(pred if isinstance(pred, list | tuple) else [pred])
    e = _as_set(truth if isinstance(truth, list | tuple) else [truth])
    if not p and not e:
        return 1.0
    hits = len(p & e)
    if not p or not e or not hits:
        return 0.0
    precision, recall = hits / len(p), hits / len(e)
    return 2 * precision * recall / (precision + recall)


def _flat_numbers(x: Any) -> list[float] | None:
    """Numbers of a scalar, a list, or a list of tuples (flattened); None when not numeric."""
    items = list(x) if isinstance(x, list | tuple) else [x]
    out: list[float] = []
    for item in items:
        if isinstance(item, list | tuple):
            sub = _flat_numbers(item)
            if sub is None:
                return None
            out += sub
        elif isinstance(item, int | float) and not isinstance(item, bool):
            out.append(float(item))
        else:
            return None
    return out


def _smape_one(p: float, e: float) -> float:
    if math.isnan(p) and math.isnan(e):
        return 0.0
    if math.isnan(p) or math.isnan(e):
        return 2.0
    if p == 0 and e == 0:
        return 0.0
    return 2 * abs(p - e) / (abs(p) + abs(e))


def smape(pred: Any, truth: Any) -> float:
    """Symmetric mean absolute percentage error, in ``[0, 2]`` (0 is perfect).

    Mean over elements of ``2|p - e| / (|p| + |e|)``: 0 when both are 0 or both NaN, 2 when
    exactly one is NaN. Lists must have the same length (else 2); two empty lists score 0.
    Non-numeric answers score 2.
    """
    p, e = _flat_numbers(pred), _flat_numbers(truth)
    if p is None or e is None or len(p) != len(e):
        return 2.0
    if not p:
        return 0.0
    return sum(_smape_one(a, b) for a, b in zip(p, e, strict=True)) / len(p)


def mae(pred: Any, truth: Any) -> float:
    """Mean absolute error, in the answer's unit.

    A missing prediction (None, non-numeric, or a list of another length) scores the mean
    ``|e|`` (the evaluator's penalty). Per element: both NaN 0; a NaN prediction costs ``|e|``;
    a NaN truth costs ``|p|``.

    Raises:
        ValueError: If the truth is not numeric.
    """
    e = _flat_numbers(truth)
    if e is None:
        raise ValueError(f"MAE needs a numeric truth, got {truth!r}")
    p = None if pred is None else _flat_numbers(pred)
    if p is None or len(p) != len(e):
        p = [math.nan] * len(e)
    if not e:
        return 0.0
    return sum(_abs_error(a, b) for a, b in zip(p, e, strict=True)) / len(e)


def _abs_error(p: float, e: float) -> float:
    if math.isnan(p) and math.isnan(e):
        return 0.0
    if math.isnan(p):
        return abs(e)
    return abs(p) if math.isnan(e) else abs(p - e)


@dataclass(frozen=True)
class ItemScore:
    """Score of one free-form answer.

    Attributes:
        score: The item score on 0–100 (0 on a parse failure).
        metric: Canonical metric name (:data:`METRICS`).
        value: The metric's own value (accuracy or F in ``[0, 1]``, sMAPE in ``[0, 2]``, MAE in
            the answer's unit); None on a parse failure.
        parse_failed: True when the answer could not be read.
        smape: sMAPE of a numeric template (None otherwise).
        mae: MAE of a numeric template (None otherwise).
        precision: Affiliation precision of an interval template (None otherwise).
        recall: Affiliation recall of an interval template (None otherwise).
    """

    score: float
    metric: str
    value: float | None
    parse_failed: bool = False
    smape: float | None = None
    mae: float | None = None
    precision: float | None = None
    recall: float | None = None


def score_item(
    answer: Parsed,
    truth: Any,
    answer_type: str,
    metric: str,
    *,
    time_range: Interval | None = None,
) -> ItemScore:
    """Score one extracted answer against its truth on the 0–100 item scale.

    Args:
        answer: The extraction result (:func:`extract_answer`).
        truth: The item's true answer, normalised like the prediction.
        answer_type: The item's answer type.
        metric: The item's metric (aliases accepted, see :func:`metric_name`).
        time_range: ``(start, end)`` in minutes for affiliation; default the span of both sides.

    Returns:
        The item score with the metric's own values.

    Raises:
        ValueError: If the truth does not fit the answer type, or the metric is unknown.
    """
    name = metric_name(metric)
    if not answer.ok:
        return ItemScore(0.0, name, None, parse_failed=True)
    expected, failure = normalize_answer(truth, answer_type)
    if failure is not None:
        raise ValueError(f"true answer does not fit answer type {answer_type!r}: {failure}")
    pred = answer.value
    if name == "accuracy":
        value = accuracy_score(pred, expected)
        return ItemScore(100 * value, name, value)
    if name == "f1":
        value = set_f1(pred, expected)
        return ItemScore(100 * value, name, value)
    if name == "affiliation_f":
        aff = affiliation(pred, expected, time_range=time_range)
        return ItemScore(100 * aff.f, name, aff.f, precision=aff.precision, recall=aff.recall)
    s = smape(pred, expected)
    m = mae(pred, expected)
    return ItemScore(100 * (1 - s / 2), name, s if name == "smape" else m, smape=s, mae=m)


#: Item fields a HealthLoopQA breakdown needs.
ROW_FIELDS: tuple[str, ...] = ("family", "level", "template", "atomic", "patient", "score", "parse_failed")


def _abilities(atomic: Any) -> tuple[str, ...]:
    """Atomic abilities in their given order, from a list or a ``"TR,QC"`` string."""
    parts = atomic.replace("+", ",").split(",") if isinstance(atomic, str) else list(atomic or ())
    return tuple(str(a).strip() for a in parts if str(a).strip())


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _summary(rows: Sequence[Mapping[str, Any]], *, seed: int, n_boot: int, level: float) -> dict[str, Any]:
    """Mean 0–100 score with its patient-clustered bootstrap interval, n and parse failures."""
    if not rows:
        return {"score": None, "ci_low": None, "ci_high": None, "n": 0, "n_patients": 0, "parse_failures": 0}
    scores = [float(r["score"]) for r in rows]
    patients = [str(r["patient"]) for r in rows]
    lo, hi = cluster_bootstrap_ci(patients, scores, seed=seed, n_boot=n_boot, level=level)
    return {
        "score": sum(scores) / len(scores),
        "ci_low": _finite_or_none(lo),
        "ci_high": _finite_or_none(hi),
        "n": len(rows),
        "n_patients": len(set(patients)),
        "parse_failures": sum(bool(r["parse_failed"]) for r in rows),
    }


def _check_rows(rows: Sequence[Mapping[str, Any]]) -> None:
    for i, row in enumerate(rows):
        missing = [f for f in ROW_FIELDS if f not in row]
        if missing:
            raise ValueError(f"item row {i} lacks {', '.join(missing)} (needs {', '.join(ROW_FIELDS)})")
        score = float(row["score"])
        if not 0 <= score <= 100:
            raise ValueError(f"item row {i} ({row['template']}): score {score} is outside 0-100")


def healthloopqa_breakdown(
    rows: Iterable[Mapping[str, Any]], *, seed: int = 0, n_boot: int = 2000, level: float = 0.95
) -> dict[str, Any]:
    """Overall and grouped item scores of a HealthLoopQA run, with patient-clustered intervals.

    Every group's interval resamples patients (:func:`cluster_bootstrap_ci`), as items of one
    patient share a record. Parse failures are in the means (as 0) and counted; the mean over
    parsed items alone (the upstream evaluator's number, which drops failures) is reported
    beside it as ``score_parsed_only``.

    Args:
        rows: One mapping per item with :data:`ROW_FIELDS`: ``family`` (``ad``/``pm``/``pd``),
            ``level``, ``template`` (``pm_14``), ``atomic`` (abilities, list or ``"TR,QC"``),
            ``patient``, ``score`` (0–100), ``parse_failed``.
        seed: Bootstrap seed.
        n_boot: Bootstrap replicates.
        level: Interval coverage.

    Returns:
        ``{"kind": "healthloopqa", "score", "ci_low", "ci_high", "n", "n_patients",
        "parse_failures", "score_parsed_only", "by_family", "by_level", "by_template",
        "by_atomic_path", "by_ability", "by_complexity"}``; each ``by_*`` maps a group to
        ``{"score", "ci_low", "ci_high", "n", "n_patients", "parse_failures"}``. Scores are on
        0–100; None where a group is empty or an interval undefined. ``by_ability`` counts an
        item under each of its abilities; ``by_complexity`` groups by the number of abilities.

    Raises:
        ValueError: If a row lacks a field or has a score outside 0–100.
    """
    items = list(rows)
    _check_rows(items)
    groups: dict[str, dict[str, list[Mapping[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in items:
        abilities = _abilities(row["atomic"])
        groups["by_family"][str(row["family"])].append(row)
        groups["by_level"][str(row["level"])].append(row)
        groups["by_template"][str(row["template"])].append(row)
        groups["by_atomic_path"]["+".join(abilities) or "-"].append(row)
        groups["by_complexity"][str(len(abilities))].append(row)
        for ability in dict.fromkeys(abilities):
            groups["by_ability"][ability].append(row)
    parsed = [float(r["score"]) for r in items if not r["parse_failed"]]
    out: dict[str, Any] = {"kind": "healthloopqa", **_summary(items, seed=seed, n_boot=n_boot, level=level)}
    out["score_parsed_only"] = sum(parsed) / len(parsed) if parsed else None
    for key in ("by_family", "by_level", "by_template", "by_atomic_path", "by_ability", "by_complexity"):
        ordered = sorted(groups[key].items(), key=lambda kv: _order(kv[0]))
        out[key] = {g: _summary(rs, seed=seed, n_boot=n_boot, level=level) for g, rs in ordered}
    return out


def _order(key: str) -> tuple[str, int, str]:
    """Group keys in natural order: ``pm_2`` before ``pm_10``."""
    head, _, tail = key.rpartition("_")
    return (head, int(tail), "") if tail.isdigit() and head else (key, -1, "")
