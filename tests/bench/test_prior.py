"""The knowledge prior: hand cases per type family, logic exclusion, ties, balancing, datasheet."""

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from wearbench.bench._balance import balance, prior_excess
from wearbench.bench._datasheet import audit_lines, render_datasheet
from wearbench.bench._generate import Pending
from wearbench.bench._prior import _band_mass, prior_pick, prior_scores
from wearbench.scoring import accuracy

Spec = tuple[str, Mapping[str, Any]]


def _lags(pair: str, first: str, lags: range) -> list[Spec]:
    return [
        (
            f"{'Positive' if s > 0 else 'Negative'} r at lag {lg:+d}",
            {"pair": pair, "first": first, "lag": lg, "sign": s},
        )
        for lg in lags
        for s in (1, -1)
    ]


def _pick(type_name: str, options: list[Spec], question: str = "q?", item: str = "wb-1") -> Spec:
    return options[prior_pick(item, type_name, question, options)]


def test_coupling_lag_picks_the_usual_lag_and_sign_in_the_asked_order() -> None:
    # stress lowers HRV on the same day
    assert _pick("coupling_lag", _lags("stress->hrv", "stress", range(-2, 3)))[1] == {
        "pair": "stress->hrv",
        "first": "stress",
        "lag": 0,
        "sign": -1,
    }
    # steps lower resting HR one day later; asked with resting HR first, the lag is -1
    picked = _pick("coupling_lag", _lags("steps->resting_hr", "resting_hr", range(-3, 2)))[1]
    assert (picked["lag"], picked["sign"]) == (-1, -1)
    # the usual lag not shown: the usual sign at the nearest shown lag
    picked = _pick("coupling_lag", _lags("steps->resting_hr", "steps", range(-3, 0)))[1]
    assert (picked["lag"], picked["sign"]) == (-1, -1)


def test_conditional_effect_picks_the_usual_direction_at_the_usual_size() -> None:
    options: list[Spec] = [
        (f"{d} {k}", {"family": "short_sleep->hrv", "direction": d, "bin": k})
        for d in ("lower", "higher")
        for k in range(5)
    ]
    assert _pick("conditional_effect", options)[1] == {
        "family": "short_sleep->hrv",
        "direction": "lower",
        "bin": 1,
    }


def test_period_comparison_follows_the_seasons() -> None:
    months = [(f"m{m}", {"metric": "steps", "period": f"2024-{m:02d}"}) for m in range(1, 11)]
    assert (
        _pick("period_comparison", months, "which month had the highest average steps?")[1]["period"]
        == "2024-07"
    )
    sleep = [(t, {**c, "metric": "sleep_minutes"}) for t, c in months]
    assert (
        _pick("period_comparison", sleep, "which month had the lowest average sleep?")[1]["period"]
        == "2024-07"
    )


def test_excursion_count_expects_the_normal_run_count() -> None:
    # k = 2 over 56 days: p = P(Z >= 2) = 0.02275, expected runs 56 * p * (1 - p) = 1.245
    options: list[Spec] = [(f"Excursions: {n}", {"metric": "hrv", "lo": n, "hi": n + 1}) for n in range(9)]
    options.append(("Excursions: 9 or more", {"metric": "hrv", "lo": 9, "hi": None}))
    stem = "Between a and b (56 days), how many excursions ... z ≥ +2 ..."
    assert _pick("excursion_count", options, stem)[1]["lo"] == 1
    assert (
        _pick("excursion_count", options, stem.replace("+2", "+1"))[1]["lo"] == 7
    )  # 56 * .1587 * .8413 = 7.5


def test_cohort_position_excludes_readings_that_contradict_the_direction() -> None:
    def opt(band: str, reading: str) -> Spec:
        return (f"{band} {reading}", {"metric": "resting_hr", "band": band, "reading": reading})

    options = [
        opt("<P10", "less_favourable"),  # a very low resting HR read as unfavourable: impossible
        opt("P40-P50", "more_favourable"),  # a middle decile read as advantageous: impossible
        opt("P30-P40", "typical"),
        opt(">P90", "less_favourable"),
    ]
    scores = prior_scores("cohort_position", "q?", options)
    assert scores[0] == -math.inf
    assert scores[1] == -math.inf
    # every decile holds 10% of peers: the consistent options tie (the seeded hash decides)
    assert scores[2] == pytest.approx(math.log(0.1))
    assert scores[3] == pytest.approx(math.log(0.1))
    assert _pick("cohort_position", options)[0] in ("P30-P40 typical", ">P90 less_favourable")


def test_band_mass_reads_percentile_band_names() -> None:
    assert _band_mass("<P5") == pytest.approx(0.05)
    assert _band_mass("P25-P50") == pytest.approx(0.25)
    assert _band_mass(">P90") == pytest.approx(0.10)
    assert _band_mass("odd") == pytest.approx(0.1)


def test_fitness_prediction_excludes_a_risk_that_contradicts_the_band() -> None:
    options: list[Spec] = [
        ("a", {"band": "high", "risk": "higher", "trend": "no_clear_change"}),  # fit yet higher risk
        ("b", {"band": "low", "risk": "higher", "trend": "declining"}),
        ("c", {"band": "above_median", "risk": "lower", "trend": "no_clear_change"}),
        ("d", {"band": "below_median", "risk": "higher", "trend": "declining"}),
    ]
    scores = prior_scores("fitness_prediction", "q?", options)
    assert scores[0] == -math.inf
    assert scores[1] == scores[3] == 0.0  # quartile bands: no band is likelier than another
    assert scores[2] == 0.5  # a flat VO2max is the usual state
    assert _pick("fitness_prediction", options)[0] == "c"


def test_ties_are_broken_by_item_and_text_not_by_order() -> None:
    options: list[Spec] = [(f"option {k}", {}) for k in range(10)]
    picks = {options[prior_pick(f"wb-{n}", "recovery_time", "q?", options)][0] for n in range(40)}
    assert len(picks) > 5  # no knowledge: the tie-break spreads over the options
    reordered = options[::-1]
    for n in range(20):
        a = options[prior_pick(f"wb-{n}", "recovery_time", "q?", options)]
        assert a == reordered[prior_pick(f"wb-{n}", "recovery_time", "q?", reordered)]


@pytest.mark.parametrize(("hits", "n"), [(0, 50), (10, 100), (30, 100), (121, 297), (50, 60)])
def test_prior_excess_is_the_fewest_drops_reaching_chance(hits: int, n: int) -> None:
    drop = prior_excess(hits, n)
    assert (hits - drop) <= 0.10 * (n - drop) + 1e-9
    if drop:
        assert (hits - drop + 1) > 0.10 * (n - drop + 1)


def test_prior_excess_hand_computed() -> None:
    # 10/100 is chance: nothing to drop. 20/100: drop 12 -> 8/88 = 0.0909 (11 -> 9/89 = 0.101)
    assert prior_excess(10, 100) == 0
    assert prior_excess(20, 100) == 12
    assert prior_excess(11, 100) == 2  # 9/98 = 0.0918; one drop leaves 10/99 = 0.101
    assert prior_excess(0, 0) == 0
    with pytest.raises(ValueError, match="hits"):
        prior_excess(5, 3)


def _coupling(i: int, usual: bool) -> Pending:
    """A stress -> HRV item whose answer is the usual (lag 0, negative) or lag +2 positive."""
    opts = _lags("stress->hrv", "stress", range(-2, 3))
    answer = (0, -1) if usual else (2, 1)
    correct = next(o for o in opts if (o[1]["lag"], o[1]["sign"]) == answer)
    return Pending(
        id=f"wb-{i:04d}",
        type="coupling_lag",
        type_version=3,
        labels={},
        user_id=f"u{i % 9}",
        end_date="2025-01-01",
        history_days=0,
        window_days=28,
        metrics=("stress", "hrv"),
        question="q?",
        correct=correct,
        distractors=tuple(o for o in opts if o is not correct),
        graph={},
        evidence={},
        grounding_ref=None,
        pair_kind=None,
        gates=None,
    )


def test_balance_drops_items_the_prior_answers_until_chance_explains_it() -> None:
    items = [_coupling(i, usual=i % 3 == 0) for i in range(300)]  # the prior answers 100 of 300
    drops: Counter[str] = Counter()
    kept = balance(items, seed=0, drops=drops, max_share=1.0, wording_alpha=0.0)
    hits = sum(p.correct[1]["lag"] == 0 for p in kept)
    # 100 of 300: drop ceil((100 - 30) / 0.9) = 78 hits -> 22 / 222 = 0.099
    assert (hits, len(kept)) == (22, 222)
    assert (hits + 1) / (len(kept) + 1) > 0.10  # one item fewer dropped would not do
    assert drops == Counter({"coupling_lag: knowledge prior answers too often (balancing)": 300 - len(kept)})
    assert all(p.correct[1]["lag"] == 0 for p in items if p not in kept)  # only hits are dropped


def _audit(by_type: dict[str, tuple[int, int]]) -> dict[str, Any]:
    acc = {t: accuracy(k, n).to_dict() for t, (k, n) in by_type.items()}
    k, n = (sum(v[i] for v in by_type.values()) for i in (0, 1))
    return {"overall": accuracy(k, n).to_dict(), "by_type": acc, "folds": 5, "weights": {}}


def test_datasheet_reports_both_audits_per_type_with_wilson_cis() -> None:
    stats = {
        "n_items": 300,
        "n_users": 9,
        "by_label": {},
        "by_type": {"coupling_lag": 200, "trend": 100},
        "answer_positions": {},
        "drops": {},
        "null_fdr": {},
        "shortcut_audit": _audit({"coupling_lag": (20, 200), "trend": (9, 100)}),
        "prior_audit": _audit({"coupling_lag": (40, 200), "trend": (10, 100)}),
    }
    text = render_datasheet(stats, {"seed": 0, "cohort_hash": "h", "wearbench_version": "v"})
    assert "## Knowledge-prior audit (textbook physiology and option logic, no data; chance 10%)" in text
    # 40/200: Wilson 95% CI 0.1503-0.2611; 10/100: 0.0552-0.1744; 50/300: 0.1288-0.2130
    assert "| coupling_lag | 0.200 | 0.150–0.261 | 200 |" in text
    assert "| trend | 0.100 | 0.055–0.174 | 100 |" in text
    assert "| all | 0.167 | 0.129–0.213 | 300 |" in text
    assert text.rstrip().endswith("CI lies above 0.10: coupling_lag (prior 0.150–0.261)")


def test_audit_lines_say_none_when_every_ci_reaches_chance() -> None:
    ok = _audit({"trend": (10, 100)})
    assert audit_lines(ok, ok) == ["", "- types whose no-data audit CI lies above 0.10: none"]
    assert np.isclose(accuracy(10, 100).lo, 0.0552, atol=1e-4)
