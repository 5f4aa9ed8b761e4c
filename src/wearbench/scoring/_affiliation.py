"""Affiliation precision, recall and F of predicted against true time intervals.

The metric of Huet, Navarro and Rossi, "Local Evaluation of Time Series Anomaly Detection
Algorithms", KDD 2022 (arXiv:2206.13167), written here from the paper's definitions:

- each true event ``J_j = [s_j, e_j]`` owns an *affiliation zone* ``I_j``: the points of the time
  range closer to ``J_j`` than to any other true event (zones meet half-way between events);
- the prediction is cut into the zones, ``Y_j = Y ∩ I_j``;
- individual precision: the mean, over predicted points ``y`` in ``Y_j``, of the probability that
  a point drawn uniformly in ``I_j`` lies at least as far from ``J_j`` as ``y`` does;
- individual recall: the mean, over true points ``x`` in ``J_j``, of the probability that a point
  drawn uniformly in ``I_j`` lies at least as far from ``x`` as the nearest point of ``Y_j`` does
  (0 when ``Y_j`` is empty);
- precision is the mean individual precision over zones that hold a prediction, recall the
  mean individual recall over all zones, and ``F = 2PR / (P + R)``.

Both integrals have closed forms (piecewise quadratic in the distance), so the metric is exact,
not sampled. Times are in any unit (minutes from the record start in HealthLoopQA).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: A closed time interval ``(start, end)`` with ``start < end``, in minutes from the record start.
Interval = tuple[float, float]


@dataclass(frozen=True)
class Affiliation:
    """Affiliation scores of one prediction, each in ``[0, 1]``.

    Attributes:
        precision: Mean individual precision over the true events whose zone holds a prediction.
        recall: Mean individual recall over all true events.
        f: ``2PR / (P + R)``; 0 when ``P + R = 0``.
        individual_precision: Per true event (time order); NaN where its zone holds no prediction.
        individual_recall: Per true event (time order).
        malformed: True when the prediction could not be read as intervals (all scores 0).
    """

    precision: float
    recall: float
    f: float
    individual_precision: tuple[float, ...] = ()
    individual_recall: tuple[float, ...] = ()
    malformed: bool = False


def _interval_of(item: Any) -> tuple[float, float] | None:
    """One ``{"start", "end"}`` mapping or ``[start, end]`` pair as floats; None when malformed."""
    if isinstance(item, dict):
        keys = {str(k).strip().lower(): v for k, v in item.items()}
        if "start" not in keys or "end" not in keys:
            return None
        pair: Sequence[Any] = (keys["start"], keys["end"])
    elif isinstance(item, list | tuple) and len(item) == 2:
        pair = item
    else:
        return None
    out: list[float] = []
    for x in pair:
        if isinstance(x, bool) or not isinstance(x, int | float | str):
            return None
        try:
            out.append(float(x))
        except ValueError:
            return None
    return out[0], out[1]


def clean_intervals(value: Any) -> list[Interval] | None:
    """Intervals as the scorer reads them: sorted, disjoint, each of positive length.

    Steps: a value that is not a list (or tuple) is no interval at all (``[]``); each element is
    a ``{"start", "end"}`` mapping or a ``[start, end]`` pair (numbers or numeric strings); pairs
    with a non-finite end are dropped, inverted pairs swapped, a point ``start == end`` widened to
    ``end = start + 1`` (one minute), then overlapping or touching intervals merged.

    Args:
        value: The parsed answer (or truth).

    Returns:
        The cleaned intervals, or None when an element is not an interval (malformed).
    """
    if not isinstance(value, list | tuple):
        return []
    pairs: list[Interval] = []
    for item in value:
        pair = _interval_of(item)
        if pair is None:
            return None
        a, b = pair
        if not (math.isfinite(a) and math.isfinite(b)):
            continue
        a, b = min(a, b), max(a, b)
        pairs.append((a, a + 1.0) if a == b else (a, b))
    pairs.sort()
    merged: list[Interval] = []
    for a, b in pairs:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _ramp_integral(c: float, d1: float, d2: float) -> float:
    """``∫ max(c - d, 0) dd`` over ``d1 <= d <= d2``, written without cancellation."""
    if c <= d1:
        return d1 * 0
    if c >= d2:
        return (d2 - d1) * ((c - d1) + (c - d2)) / 2
    return (c - d1) * (c - d1) / 2


def _min_integral(reach: float, t1: float, t2: float) -> float:
    """``∫ min(2t, reach) dt`` over ``t1 <= t <= t2``, written without cancellation."""
    half = reach / 2
    if t2 <= half:
        return (t2 - t1) * (t1 + t2)
    if t1 >= half:
        return (t2 - t1) * reach
    return (half - t1) * (half + t1) + (t2 - half) * reach


def _zones(truth: Sequence[Interval], time_range: Interval) -> list[Interval]:
    """Affiliation zone of each true event: the range cut half-way between consecutive events."""
    cuts = [(truth[i][1] + truth[i + 1][0]) / 2 for i in range(len(truth) - 1)]
    bounds = [time_range[0], *cuts, time_range[1]]
    return [(bounds[i], bounds[i + 1]) for i in range(len(truth))]


def _pieces(pred: Sequence[Interval], zone: Interval) -> list[Interval]:
    """The parts of the prediction inside ``zone`` that have positive length."""
    lo, hi = zone
    out = [(max(u, lo), min(v, hi)) for u, v in pred]
    return [(u, v) for u, v in out if v > u]


def _precision_mass(piece: Interval, event: Interval, zone: Interval) -> float:
    """Integral over ``piece`` of ``P(dist(X, event) >= dist(y, event))``, ``X ~ U(zone)``.

    Inside the event the distance is 0 and the probability 1. At distance ``d > 0`` the
    probability is ``(max(A - d, 0) + max(B - d, 0)) / L`` with ``A``, ``B`` the zone's lengths
    left and right of the event and ``L`` the zone length.
    """
    (u, v), (s, e), (lo, hi) = piece, event, zone
    left_len, right_len, length = s - lo, hi - e, hi - lo
    mass = max(0, min(v, e) - max(u, s))
    spans = []
    if u < s:
        spans.append((s - min(v, s), s - u))
    if v > e:
        spans.append((max(u, e) - e, v - e))
    for d1, d2 in spans:
        mass += (_ramp_integral(left_len, d1, d2) + _ramp_integral(right_len, d1, d2)) / length
    return mass


def _recall_span(t1: float, t2: float, reach: float, length: float) -> float:
    """Integral over distances ``t1..t2`` of ``1 - min(2t, reach) / length``.

    A true point at distance ``t`` from its nearest predicted point ``p`` on one side sees a
    uniform ``X`` closer than ``t`` on ``[p, x + t]`` (clipped at the zone end ``reach`` away
    from ``p``): length ``min(2t, reach)``.
    """
    return (t2 - t1) - _min_integral(reach, t1, t2) / length


def _recall_mass(pieces: Sequence[Interval], event: Interval, zone: Interval) -> float:
    """Integral over the event of ``P(|X - x| >= dist(x, pieces))``, ``X ~ U(zone)``."""
    (s, e), (lo, hi) = event, zone
    length = hi - lo
    mass: float = 0
    # regions of the line by nearest predicted point: ('in', a, b), ('left', a, b, p), ('right', a, b, q)
    regions: list[tuple[str, float, float, float]] = [("right", -math.inf, pieces[0][0], pieces[0][0])]
    for i, (u, v) in enumerate(pieces):
        regions.append(("in", u, v, 0.0))
        nxt = pieces[i + 1][0] if i + 1 < len(pieces) else math.inf
        mid = (v + nxt) / 2
        regions.append(("left", v, mid, v))
        if i + 1 < len(pieces):
            regions.append(("right", mid, nxt, nxt))
    for kind, a, b, anchor in regions:
        x1, x2 = max(a, s), min(b, e)
        if x2 <= x1:
            continue
        if kind == "in":
            mass += x2 - x1
        elif kind == "left":
            mass += _recall_span(x1 - anchor, x2 - anchor, hi - anchor, length)
        else:
            mass += _recall_span(anchor - x2, anchor - x1, anchor - lo, length)
    return mass


def affiliation_from_events(
    pred: Sequence[Interval], truth: Sequence[Interval], time_range: Interval
) -> Affiliation:
    """Affiliation scores of clean, non-empty event lists (the kernel).

    Args:
        pred: Predicted intervals, sorted, disjoint, each ``start < end``.
        truth: True intervals, likewise.
        time_range: ``(start, end)`` of the record; must contain every interval.

    Returns:
        The scores with their per-event parts.

    Raises:
        ValueError: On an empty list or a range that does not contain every interval.
    """
    if not pred or not truth:
        raise ValueError(f"affiliation needs events on both sides: {len(pred)} predicted, {len(truth)} true")
    first = min(pred[0][0], truth[0][0])
    last = max(pred[-1][1], truth[-1][1])
    if time_range[0] > first or time_range[1] < last:
        raise ValueError(f"time range {time_range} does not contain the events, which span ({first}, {last})")
    precisions: list[float] = []
    recalls: list[float] = []
    for event, zone in zip(truth, _zones(truth, time_range), strict=True):
        pieces = _pieces(pred, zone)
        if not pieces:
            precisions.append(math.nan)
            recalls.append(0 * event[0])  # a zero of the input's number type (Fractions stay exact)
            continue
        width = sum(v - u for u, v in pieces)
        precisions.append(sum(_precision_mass(p, event, zone) for p in pieces) / width)
        recalls.append(_recall_mass(pieces, event, zone) / (event[1] - event[0]))
    held = [p for p in precisions if not math.isnan(p)]
    precision = sum(held) / len(held)
    recall = sum(recalls) / len(recalls)
    return Affiliation(precision, recall, _f(precision, recall), tuple(precisions), tuple(recalls))


def _f(precision: float, recall: float) -> float:
    total = precision + recall
    return 2.0 * precision * recall / total if total > 0 else 0.0


def affiliation(prediction: Any, truth: Any, *, time_range: Interval | None = None) -> Affiliation:
    """Affiliation precision, recall and F of an interval answer, with the scorer's rules.

    Both sides go through :func:`clean_intervals`. Both empty: 1, 1, 1 (nothing to find, nothing
    claimed). Exactly one empty, or a malformed prediction: 0, 0, 0.

    Args:
        prediction: The parsed answer: a list of ``{"start", "end"}`` or ``[start, end]``, in
            minutes from the record start; anything that is not a list counts as empty.
        truth: The true intervals, in the same form.
        time_range: ``(start, end)`` of the whole record in minutes. Default: the span of the
            prediction and the truth together (the HealthLoopQA evaluator's choice). A given
            range is widened to contain every interval.

    Returns:
        The scores.

    Raises:
        ValueError: If the truth is malformed.
    """
    true_events = clean_intervals(truth)
    if true_events is None:
        raise ValueError(f"true intervals are malformed: {truth!r}")
    pred_events = clean_intervals(prediction)
    if pred_events is None:
        return Affiliation(0.0, 0.0, 0.0, malformed=True)
    if not pred_events and not true_events:
        return Affiliation(1.0, 1.0, 1.0)
    if not pred_events or not true_events:
        return Affiliation(0.0, 0.0, 0.0)
    first = min(pred_events[0][0], true_events[0][0])
    last = max(pred_events[-1][1], true_events[-1][1])
    span = (first, last) if time_range is None else (min(time_range[0], first), max(time_range[1], last))
    return affiliation_from_events(pred_events, true_events, span)
