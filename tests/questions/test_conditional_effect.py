import re

import numpy as np
import pytest

from wearbench.cohort import METRIC_NAMES
from wearbench.questions import CohortPool, Drop, UserContext, question_type

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
    assert -1.3 < ev["effect"] < -0.9
    assert draft.correct.claim["bin"] == 2  # [0.9, 1.3)
    assert draft.correct.claim["direction"] == "lower"
    assert [qt.check(o.claim, ev) for o in (draft.correct, *draft.distractors)] == [True] + [False] * 9
    texts = [o.text for o in (draft.correct, *draft.distractors)]
    assert len(set(texts)) == 10
    assert len({len(t) for t in texts}) == 1  # one template: same length, two numbers each
    assert all(len(re.findall(r"\d\.\d", t)) == 2 for t in texts)


def test_correct_rank_is_spread() -> None:
    ctx = _ctx(0.62)
    ranks = set()
    for seed in range(12):
        draft = ConditionalEffect().make(ctx, ctx.n_days - 1, np.random.default_rng(seed), CohortPool())
        lows = sorted(float(o.text.split(" ")[0]) for o in (draft.correct, *draft.distractors))
        ranks.add(lows.index(float(draft.correct.text.split(" ")[0])))
    assert len(ranks) >= 3  # not always the same (extreme or middle) rank
    assert draft.gates is not None
    assert draft.gates["checks"]["baseline_stability"]


def test_no_effect_is_dropped() -> None:
    ctx = _ctx(None, seed=5)
    with pytest.raises(Drop):
        ConditionalEffect().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_check_on_hand_made_evidence() -> None:
    check = ConditionalEffect.check
    assert check({"direction": "lower", "bin": 1}, {"effect": -0.75})
    assert not check({"direction": "higher", "bin": 1}, {"effect": -0.75})
    assert not check({"direction": "lower", "bin": 0}, {"effect": -0.75})
    assert not check({"direction": "lower", "bin": 0}, {"effect": -0.1})
    assert not check({"direction": "lower", "bin": 0}, {"effect": None})
    assert check({"direction": "higher", "bin": 4}, {"effect": 2.0})
    assert check({"direction": "higher", "bin": 5}, {"effect": 2.3})
    assert check({"direction": "lower", "bin": 6}, {"effect": -2.9})
    assert not check({"direction": "higher", "bin": 6}, {"effect": 3.2})  # beyond the last edge
