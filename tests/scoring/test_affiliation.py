"""Affiliation precision/recall/F (Huet et al., KDD 2022) on hand-computed cases.

Notation in the comments: zone ``[lo, hi]`` of length ``L``; a predicted point at distance
``d`` from its true event keeps the probability ``(max(A-d,0) + max(B-d,0)) / L`` (``A``, ``B``:
zone length left and right of the event); a true point ``x`` whose nearest prediction is ``t``
away keeps ``1 - covered/L``, ``covered`` = the part of ``[x-t, x+t]`` inside the zone.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from wearbench.scoring import Affiliation, affiliation, affiliation_from_events, clean_intervals


def _check(got: Affiliation, p: float, r: float) -> None:
    f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    assert (got.precision, got.recall, got.f) == pytest.approx((p, r, f), rel=1e-12, abs=1e-15)


def test_authors_readme_example():
    # The example of the paper's companion code: truth (3,4), (7,10); prediction (4,5), (8,9);
    # range (0,10). Zones cut at (4+7)/2 = 5.5: [0,5.5] and [5.5,10].
    # Zone 1, precision: d = y-4 on [0,1], A = 3, B = 1.5, L = 5.5 -> (4.5-2d)/5.5, mean 3.5/5.5 = 7/11.
    # Zone 1, recall: x in [3,4], t = 4-x, [x-t, x+t] = [2x-4, 4] inside -> 1 - 2t/5.5, mean 9/11.
    # Zone 2, precision: (8,9) lies inside (7,10) -> 1.
    # Zone 2, recall: x in [7,8]: 1 - 2t/4.5, mean 7/9; [8,9]: 1; [9,10]: covered min(2t, 1),
    #   integral 0.25 + 0.5 -> 1 - 0.75/4.5 = 5/6; mean (7/9 + 1 + 5/6)/3 = 47/54.
    # P = (7/11 + 1)/2 = 9/11; R = (9/11 + 47/54)/2 = 1003/1188.
    got = affiliation_from_events([(4, 5), (8, 9)], [(3, 4), (7, 10)], (0, 10))
    _check(got, 9 / 11, 1003 / 1188)
    assert got.individual_precision == pytest.approx((7 / 11, 1.0))
    assert got.individual_recall == pytest.approx((9 / 11, 47 / 54))
    # the default range is the span of both sides, here (3, 10): zone 1 = [3, 5.5] shrinks
    # precision: A = 0, B = 1.5, L = 2.5 -> (1.5-d)/2.5 on d in [0,1]: 1/2.5 = 0.4
    # recall: x in [3,4], t = 4-x, covered = 4 - max(3, 2x-4) = min(2t, 1): integral 0.75 -> 1 - 0.3 = 0.7
    _check(affiliation([[4, 5], [8, 9]], [[3, 4], [7, 10]]), (0.4 + 1) / 2, (0.7 + 47 / 54) / 2)


def test_perfect_and_empty_sides():
    _check(affiliation([{"start": 10, "end": 20}], [[10, 20]]), 1.0, 1.0)
    _check(affiliation([], []), 1.0, 1.0)  # nothing to find, nothing claimed
    _check(affiliation("none", []), 1.0, 1.0)  # a non-list prediction is an empty one
    _check(affiliation([], [[0, 10]]), 0.0, 0.0)
    _check(affiliation([[0, 10]], []), 0.0, 0.0)
    _check(affiliation(None, [[0, 10]]), 0.0, 0.0)


def test_malformed_prediction_scores_zero_and_bad_truth_raises():
    got = affiliation([[1, 2, 3]], [[0, 10]])
    assert got == Affiliation(0.0, 0.0, 0.0, malformed=True)
    assert affiliation([{"from": 1, "to": 2}], [[0, 10]]).malformed
    assert affiliation([["a", 2]], [[0, 10]]).malformed
    with pytest.raises(ValueError, match="true intervals are malformed"):
        affiliation([[0, 1]], [[0, 1, 2]])


def test_adjacent_prediction():
    # truth [0,10], prediction [10,20], range (0,20): one zone, A = 0, B = 10, L = 20.
    # precision: d in [0,10] -> (10-d)/20, mean 5/20 = 0.25.
    # recall: nearest prediction point 10, t = 10-x in [0,10], covered = min(2t, 10):
    #   integral 25 + 50 = 75 -> (10 - 75/20)/10 = 0.625. F = 5/14.
    got = affiliation([[10, 20]], [[0, 10]])
    _check(got, 0.25, 0.625)
    assert got.f == pytest.approx(5 / 14)


def test_half_found_span_vs_whole_record():
    # truth [0,10], prediction [0,5]. Default range (0,10): zone = the event, precision 1.
    # recall: [0,5] found (5); x in [5,10], t = x-5, covered = min(2t, 10-5): integral
    #   6.25 + 12.5 = 18.75 -> 5 - 18.75/10 = 3.125; R = 8.125/10 = 0.8125, F = 26/29.
    got = affiliation([[0, 5]], [[0, 10]])
    _check(got, 1.0, 0.8125)
    assert got.f == pytest.approx(26 / 29)
    # whole record (0,100): covered = 2t (never clipped), integral 25 -> 5 - 0.25; R = 0.975
    _check(affiliation([[0, 5]], [[0, 10]], time_range=(0, 100)), 1.0, 0.975)


def test_missed_event_counts_in_recall_only():
    # truth [0,10], [90,100]; prediction [0,10]; zones [0,50], [50,100].
    # zone 1: P = R = 1; zone 2: no prediction -> precision undefined (left out), recall 0.
    got = affiliation([[0, 10]], [[0, 10], [90, 100]])
    _check(got, 1.0, 0.5)
    assert math.isnan(got.individual_precision[1])
    assert got.individual_recall == (1.0, 0.0)


def test_point_answers_are_widened_by_one_minute():
    # [5,5] -> [5,6] on both sides: a perfect match
    _check(affiliation([[5, 5]], [{"start": 5, "end": 5}]), 1.0, 1.0)
    # prediction [5,5] -> [5,6]; truth [0,10], range (0,10): precision 1 (inside)
    # recall: [5,6] found (1); left x in [0,5], t = 5-x, covered = min(2t, 5-0): integral 18.75;
    #   right x in [6,10], t = x-6 in [0,4], covered = min(2t, 10-6): 4 + 8 = 12.
    #   (1 + 5 - 1.875 + 4 - 1.2)/10 = 0.6925
    _check(affiliation([[5, 5]], [[0, 10]]), 1.0, 0.6925)


def test_inverted_overlapping_and_nonfinite_intervals_are_cleaned():
    # [20,10] swapped, merged with [15,25] -> [10,25]; the NaN pair is dropped
    assert clean_intervals([[20, 10], [15, 25], [float("nan"), 3]]) == [(10.0, 25.0)]
    _check(affiliation([[20, 10], [15, 25], ["nan", 3]], [[10, 25]]), 1.0, 1.0)
    # touching intervals merge too; string numbers are read
    assert clean_intervals([{"Start": "0", "End": "5"}, [5, 8]]) == [(0.0, 8.0)]
    # infinite ends are dropped, so only infinite pairs means empty
    _check(affiliation([[0, float("inf")]], []), 1.0, 1.0)


def test_far_prediction():
    # truth [0,10], prediction [90,100], range (0,100), one zone: A = 0, B = 90, L = 100.
    # precision: d in [80,90] -> (90-d)/100, mean 5/100 = 0.05.
    # recall: nearest point 90, t in [80,90], covered = min(2t, 90) = 90 -> 1 - 0.9 = 0.1 each.
    got = affiliation([[90, 100]], [[0, 10]])
    _check(got, 0.05, 0.1)
    assert got.f == pytest.approx(1 / 15)


def test_prediction_split_around_a_gap():
    # truth [0,10], prediction [0,2] and [8,10], range (0,10): precision 1.
    # recall: 4 minutes found; gap [2,8] split at 5: each half t in [0,3], covered = 2t
    #   (never clipped: reach 8), integral 9 -> 3 - 0.9 = 2.1; R = (4 + 4.2)/10 = 0.82.
    _check(affiliation([[0, 2], [8, 10]], [[0, 10]]), 1.0, 0.82)


def test_prediction_between_two_events():
    # truth [0,10] and [30,40]; prediction [15,25], range (0,40): zones [0,20], [20,40].
    # zone 1: piece [15,20], A = 0, B = 10, L = 20, d in [5,10]: (10-d)/20, mean 2.5/20 = 0.125.
    #   recall: nearest point 15, t = 15-x in [5,15], covered = min(2t, 15): integral
    #   (2.5^2 - ... ) = [5,7.5]: t^2 -> 56.25-25 = 31.25; [7.5,15]: 15*7.5 = 112.5 -> 143.75;
    #   (10 - 143.75/20)/10 = 0.28125.
    # zone 2 mirrors zone 1. P = 0.125, R = 0.28125.
    _check(affiliation([[15, 25]], [[0, 10], [30, 40]]), 0.125, 0.28125)


def test_range_is_widened_to_the_events():
    # a given range that misses a predicted interval is widened to contain it
    _check(
        affiliation([[90, 100]], [[0, 10]], time_range=(0, 50)),
        *_pr(affiliation([[90, 100]], [[0, 10]], time_range=(0, 100))),
    )
    with pytest.raises(ValueError, match="does not contain"):
        affiliation_from_events([(0, 5)], [(0, 10)], (1, 10))
    with pytest.raises(ValueError, match="events on both sides"):
        affiliation_from_events([], [(0, 10)], (0, 10))


def _pr(a: Affiliation) -> tuple[float, float]:
    return a.precision, a.recall


def test_exact_in_rational_arithmetic():
    # the kernel works on Fractions as well, so the README example is exact
    got = affiliation_from_events(
        [(Fraction(4), Fraction(5)), (Fraction(8), Fraction(9))],
        [(Fraction(3), Fraction(4)), (Fraction(7), Fraction(10))],
        (Fraction(0), Fraction(10)),
    )
    assert got.precision == Fraction(9, 11)
    assert got.recall == Fraction(1003, 1188)
