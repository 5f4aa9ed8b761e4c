import re

import numpy as np
import pytest

from wearbench.cohort import METRIC_NAMES
from wearbench.questions import CohortPool, Drop, UserContext, question_type
from wearbench.questions.types import conditional_effect

ConditionalEffect = question_type("conditional_effect")


def _ctx(effect_sd: float | None, n: int = 400, seed: int = 0) -> UserContext:
    rng = np.random.default_rng(seed)
    metrics = {m: rng.normal(size=n) * 5 + 50 for m in METRIC_NAMES}
    if effect_sd is not None:  # HRV correlated with sleep: corr effect_sd
        z = (metrics["sleep_minutes"] - 50) / 5
        metrics["hrv"] = 50 + 5 * (effect_sd * z + np.sqrt(1 - effect_sd**2) * rng.normal(size=n))
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    return UserContext("u1", dates, metrics, {"age": 40, "sex": "F", "bmi": 24, "ethnicity": "x"}, (), {})


def test_short_sleep_lowers_hrv() -> None:
    # corr 0.62: lows of sleep (P15/P20/P25 cuts) give effects ≈ -1.13/-1.09/-1.05 SD, all in [0.9, 1.3)
    ctx = _ctx(0.62)
    qt = ConditionalEffect()
    draft = qt.make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    assert draft.grounding_ref == "conditional:short_sleep->hrv"
    ev = draft.graph.evidence()
    assert -1.3 < ev["effect:short_sleep->hrv"] < -0.9
    assert draft.correct.claim == {"family": "short_sleep->hrv", "direction": "lower", "bin": 2}
    assert draft.correct.text == "After short-sleep nights, HRV: -1.3 to -0.9 SD (lower)"
    assert [qt.check(o.claim, ev) for o in (draft.correct, *draft.distractors)] == [True] + [False] * 9
    texts = [o.text for o in (draft.correct, *draft.distractors)]
    assert len(set(texts)) == 10
    assert all(len(re.findall(r"\d\.\d", t)) == 2 for t in texts)
    # every shown family's effect is evidence, and the stem defines every condition
    assert {f"effect:{o.claim['family']}" for o in draft.distractors} <= set(ev)
    assert "high-activity days: steps at or above the user's own 80th percentile" in draft.question


def test_distractors_span_families() -> None:
    ctx = _ctx(0.62)
    families = set()
    for seed in range(6):
        draft = ConditionalEffect().make(ctx, ctx.n_days - 1, np.random.default_rng(seed), CohortPool())
        families |= {o.claim["family"] for o in draft.distractors}
    assert len(families) >= 6  # readings of many condition → response families, not one
    assert draft.gates is not None
    assert draft.gates["checks"]["baseline_stability"]


def test_reading_text_and_class_weight() -> None:
    assert conditional_effect.reading("short_sleep->resting_hr", "higher", 0).text == (
        "After short-sleep nights, resting HR: +0.3 to +0.6 SD (higher)"
    )
    assert conditional_effect.reading("high_activity->stress", "lower", 3).text == (
        "After high-activity days, stress: -1.8 to -1.3 SD (lower)"
    )
    prior = ConditionalEffect().class_prior
    assert conditional_effect.class_weight(prior, "short_sleep->hrv", "lower", 0) == 0.36  # usual direction
    assert conditional_effect.class_weight(prior, "short_sleep->hrv", "higher", 0) == 0.02  # against it


def test_clearly_false_respects_the_dead_band() -> None:
    cf = conditional_effect.clearly_false
    assert not cf(0.62, "higher", 1)  # the true class
    assert not cf(0.62, "higher", 0)  # 0.62 - 0.05 = 0.57 falls in [0.3, 0.6)
    assert cf(0.62, "higher", 2)
    assert cf(0.62, "lower", 1)
    assert cf(0.1, "higher", 0)  # 0.15 < 0.3: no clear effect, every reading false
    assert not cf(float("nan"), "higher", 0)  # undefined: never offered


def test_distractor_pool_counts() -> None:
    effects = {"short_sleep->hrv": -1.0, "high_stress->hrv": 0.1, "high_activity->stress": float("nan")}
    pool = conditional_effect.distractor_pool(effects, ("short_sleep->hrv", "lower", 2))
    # -1.0 ± 0.05 stays in [0.9, 1.3): the other 13 classes; 0.1: all 14; NaN: none
    assert len(pool) == 13 + 14
    assert ("short_sleep->hrv", "lower", 2) not in pool
    assert ("high_stress->hrv", "higher", 0) in pool


def test_min_coverage_is_a_constructor_field() -> None:
    # HRV missing on 120 of 400 days: coverage 0.7 clears the default 0.6 but not 0.75, and no
    # other family has an effect, so the variant finds nothing
    ctx = _ctx(0.62)
    ctx.metrics["hrv"][::10] = np.nan
    ctx.metrics["hrv"][1::10] = np.nan
    ctx.metrics["hrv"][2::10] = np.nan
    draft = ConditionalEffect().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    assert draft.grounding_ref == "conditional:short_sleep->hrv"
    assert ConditionalEffect(min_coverage=0.75).spec()["min_coverage"] == 0.75
    with pytest.raises(Drop, match="no condition and response pass"):
        ConditionalEffect(min_coverage=0.75).make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_no_effect_is_dropped() -> None:
    ctx = _ctx(None, seed=5)
    with pytest.raises(Drop):
        ConditionalEffect().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_check_on_hand_made_evidence() -> None:
    check = ConditionalEffect.check
    fam = "short_sleep->hrv"
    ev = {f"effect:{fam}": -0.75, "effect:high_stress->hrv": 2.3}
    assert check({"family": fam, "direction": "lower", "bin": 1}, ev)
    assert not check({"family": fam, "direction": "higher", "bin": 1}, ev)
    assert not check({"family": fam, "direction": "lower", "bin": 0}, ev)
    assert check({"family": "high_stress->hrv", "direction": "higher", "bin": 5}, ev)
    assert not check({"family": "high_activity->stress", "direction": "lower", "bin": 0}, ev)  # not shown
    assert not check({"family": fam, "direction": "lower", "bin": 0}, {f"effect:{fam}": -0.1})
    assert not check({"family": fam, "direction": "lower", "bin": 0}, {f"effect:{fam}": None})
    assert not check({"family": fam, "direction": "higher", "bin": 6}, {f"effect:{fam}": 3.2})  # beyond
