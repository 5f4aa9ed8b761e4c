"""Free-form metrics, the 0–100 item score and the HealthLoopQA breakdown, on hand-computed values."""

from __future__ import annotations

import json
import math

import pytest

from wearbench.scoring import (
    METRICS,
    Parsed,
    accuracy_score,
    cluster_bootstrap_ci,
    extract_answer,
    healthloopqa_breakdown,
    mae,
    metric_name,
    score_item,
    set_f1,
    smape,
)

NAN = math.nan


@pytest.mark.parametrize(
    ("pred", "truth", "want"),
    [
        (12.5, 12.5, 1.0),
        (3, 3.0, 1.0),  # numbers compare by value
        (12.4, 12.5, 0.0),
        (NAN, NAN, 1.0),
        (NAN, 1.0, 0.0),
        ("morning", "morning", 1.0),
        ("morning", "afternoon", 0.0),
        ([1, 2, 3], [2, 3, 4], 0.5),  # Jaccard |{2,3}| / |{1,2,3,4}|
        ([1, 2], [1, 2], 1.0),
        ([], [], 1.0),
        ([], [1], 0.0),
        ([1], [], 0.0),
        ([1, 1, 2], [2], 0.5),  # sets: {1,2} vs {2}
        ([(1, 30)], [(1, 30), (2, 10)], 0.5),
        ([1], 1, 0.0),  # a list against a scalar
    ],
)
def test_accuracy(pred, truth, want):
    assert accuracy_score(pred, truth) == want


@pytest.mark.parametrize(
    ("pred", "truth", "want"),
    [
        ([1, 2, 3], [2, 3, 4], 2 / 3),  # P = R = 2/3
        ([1, 2], [1, 2, 3, 4], 2 / 3),  # P 1, R 1/2 -> 2/3
        ([5], [1, 2], 0.0),
        ([], [], 1.0),
        ([], [1], 0.0),
        ([1], [], 0.0),
        (7, [7, 8], 2 / 3),  # a scalar is a one-element set: P 1, R 1/2
    ],
)
def test_set_f1(pred, truth, want):
    assert set_f1(pred, truth) == pytest.approx(want)


@pytest.mark.parametrize(
    ("pred", "truth", "want"),
    [
        (110.0, 100.0, 20 / 210),  # 2 * 10 / 210
        (0.0, 0.0, 0.0),
        (0.0, 5.0, 2.0),
        (-5.0, 5.0, 2.0),  # 2 * 10 / 10
        (NAN, NAN, 0.0),
        (NAN, 5.0, 2.0),
        (5.0, NAN, 2.0),
        ([1.0, 3.0], [1.0, 1.0], 0.5),  # mean of 0 and 2 * 2 / 4 = 1
        ([1.0], [1.0, 2.0], 2.0),  # lengths differ
        ([], [], 0.0),
        ([(1, 30.0)], [(1, 10.0)], 0.5),  # pairs flattened: mean of 0 and 2 * 20 / 40 = 1
        ("high", 5.0, 2.0),
    ],
)
def test_smape(pred, truth, want):
    assert smape(pred, truth) == pytest.approx(want)


@pytest.mark.parametrize(
    ("pred", "truth", "want"),
    [
        (110.0, 100.0, 10.0),
        ([1.0, 5.0], [2.0, 2.0], 2.0),  # mean of 1 and 3
        (None, 40.0, 40.0),  # missing prediction: mean |e|
        (None, [-2.0, 4.0], 3.0),
        ([1.0], [2.0, 4.0], 3.0),  # wrong length counts as missing
        ("lots", 6.0, 6.0),
        (NAN, NAN, 0.0),
        (NAN, -7.0, 7.0),
        (3.0, NAN, 3.0),
    ],
)
def test_mae(pred, truth, want):
    assert mae(pred, truth) == pytest.approx(want)


def test_mae_needs_numeric_truth():
    with pytest.raises(ValueError, match="numeric truth"):
        mae(1.0, "high")


def test_metric_names():
    assert METRICS == ("accuracy", "f1", "smape", "mae", "affiliation_f")
    assert [metric_name(m) for m in ("Acc", "F1", "sMAPE", "MAE", "AffF", "jaccard")] == [
        "accuracy",
        "f1",
        "smape",
        "mae",
        "affiliation_f",
        "accuracy",
    ]
    with pytest.raises(ValueError, match="unknown metric 'rmse'"):
        metric_name("rmse")


def _score(text: str, truth, answer_type: str, metric: str, **kw):
    return score_item(extract_answer(text, answer_type), truth, answer_type, metric, **kw)


def test_item_score_numeric():
    # sMAPE 20/210 -> score 100 * (1 - 10/210) = 95.238...
    got = _score('{"answer": 110}', 100.0, "number", "smape")
    assert got.score == pytest.approx(100 * (1 - 10 / 210))
    assert got.value == pytest.approx(20 / 210)
    assert got.mae == pytest.approx(10.0)
    # an MAE template is scored by 1 - sMAPE/2 too, and reports its MAE as the value
    # ("1,10" has a decimal comma: 1.1; sMAPE 2 * 98.9 / 101.1)
    got = _score('{"answer": "1,10"}', 100.0, "number", "MAE")
    assert (got.metric, got.value, got.smape) == ("mae", pytest.approx(98.9), pytest.approx(197.8 / 101.1))
    assert got.score == pytest.approx(100 * (1 - 98.9 / 101.1))
    # None answers (pm_22 "no return") are NaN: NaN vs NaN is perfect
    assert _score('{"answer": null}', None, "integer", "smape").score == 100.0
    assert _score('{"answer": 30}', None, "integer", "smape").score == 0.0


def test_item_score_lists_categories_and_intervals():
    assert _score('{"answer": [1, 2, 3]}', [2, 3, 4], "day_list", "accuracy").score == 50.0
    assert _score('{"answer": [1, 2, 3]}', [2, 3, 4], "day_list", "f1").score == pytest.approx(200 / 3)
    assert _score('{"answer": "Yes"}', "yes", "yes_no", "accuracy").score == 100.0
    assert _score('{"answer": "Afternoon"}', "Morning", "category", "Acc").score == 0.0
    # affiliation: truth [0,10], prediction [10,20] (test_affiliation: P 0.25, R 0.625, F 5/14)
    got = _score('{"answer": [{"start": 10, "end": 20}]}', [{"start": 0, "end": 10}], "intervals", "AffF")
    assert got.score == pytest.approx(500 / 14)
    assert (got.precision, got.recall) == pytest.approx((0.25, 0.625))
    # whole-record range: truth [0,10], prediction [0,5] within (0,100) -> P 1, R 0.975
    got = _score("[[0, 5]]", [[0, 10]], "intervals", "affiliation_f", time_range=(0, 100))
    assert got.score == pytest.approx(100 * 2 * 0.975 / 1.975)
    # nothing predicted, nothing true
    assert _score('{"answer": []}', [], "intervals", "affiliation_f").score == 100.0


def test_parse_failure_scores_zero_and_is_flagged():
    got = _score("I am not sure.\nIt depends.", 100.0, "number", "smape")
    assert (got.score, got.value, got.parse_failed) == (0.0, None, True)
    got = score_item(Parsed(failure="no answer found"), [[0, 10]], "intervals", "affiliation_f")
    assert got.parse_failed


def test_bad_truth_raises():
    with pytest.raises(ValueError, match="true answer does not fit answer type 'number'"):
        _score('{"answer": 1}', "high", "number", "smape")


def _row(template, patient, score, *, failed=False, family=None, level="D", atomic="QC"):
    return {
        "family": family or template.split("_")[0],
        "level": level,
        "template": template,
        "atomic": atomic,
        "patient": patient,
        "score": score,
        "parse_failed": failed,
    }


def test_breakdown_hand_computed():
    rows = [
        _row("pm_2", "p1", 100.0, atomic="QC"),
        _row("pm_10", "p1", 50.0, atomic=["TR", "QC"], level="M"),
        _row("pm_2", "p2", 0.0, failed=True),
        _row("ad_3", "p2", 30.0, atomic="QC", level="P"),
        _row("ad_3", "p3", 70.0, atomic="TR,QC", level="P"),
    ]
    out = healthloopqa_breakdown(rows, seed=1, n_boot=500)
    json.dumps(out, allow_nan=False)  # plain JSON
    assert out["kind"] == "healthloopqa"
    assert out["score"] == pytest.approx(50.0)  # (100 + 50 + 0 + 30 + 70) / 5
    assert (out["n"], out["n_patients"], out["parse_failures"]) == (5, 3, 1)
    assert out["score_parsed_only"] == pytest.approx(62.5)  # the failure dropped: 250 / 4
    patients = ["p1", "p1", "p2", "p2", "p3"]
    lo, hi = cluster_bootstrap_ci(patients, [100, 50, 0, 30, 70], seed=1, n_boot=500)
    assert (out["ci_low"], out["ci_high"]) == (lo, hi)
    assert lo < 50 < hi
    assert out["by_family"]["pm"]["score"] == pytest.approx(50.0)  # (100 + 50 + 0) / 3
    assert out["by_family"]["ad"]["score"] == pytest.approx(50.0)
    assert out["by_family"]["pm"]["parse_failures"] == 1
    assert out["by_level"]["P"]["n"] == 2
    assert list(out["by_template"]) == ["ad_3", "pm_2", "pm_10"]  # natural order
    assert out["by_template"]["pm_2"]["score"] == pytest.approx(50.0)
    assert out["by_atomic_path"]["TR+QC"]["score"] == pytest.approx(60.0)  # (50 + 70) / 2
    assert out["by_atomic_path"]["QC"]["n"] == 3
    assert out["by_ability"]["QC"]["n"] == 5
    assert out["by_ability"]["TR"]["score"] == pytest.approx(60.0)
    assert out["by_complexity"]["2"]["n"] == 2
    # one patient: the interval collapses onto the mean
    one = out["by_template"]["pm_10"]
    assert (one["score"], one["ci_low"], one["ci_high"]) == (50.0, 50.0, 50.0)


def test_breakdown_empty_and_bad_rows():
    out = healthloopqa_breakdown([])
    assert (out["score"], out["ci_low"], out["n"], out["parse_failures"]) == (None, None, 0, 0)
    assert out["score_parsed_only"] is None
    assert out["by_family"] == {}
    with pytest.raises(ValueError, match="lacks patient"):
        healthloopqa_breakdown([{k: v for k, v in _row("pm_1", "p", 1.0).items() if k != "patient"}])
    with pytest.raises(ValueError, match="outside 0-100"):
        healthloopqa_breakdown([_row("pm_1", "p", 1.5 * 100)])
