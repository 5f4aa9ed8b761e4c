import numpy as np
import pytest

from wearbench.cohort import METRIC_NAMES
from wearbench.questions import CohortPool, Drop, UserContext, question_type

Concordance = question_type("concordance")


def _ctx(coupled: float | None, n: int = 60, seed: int = 0) -> UserContext:
    rng = np.random.default_rng(seed)
    metrics = {m: rng.normal(size=n) * 5 + 50 for m in METRIC_NAMES}
    if coupled is not None:  # hrv = 50 + coupled * (stress - 50) + small noise
        metrics["hrv"] = 50 + coupled * (metrics["stress"] - 50) + rng.normal(size=n) * 0.5
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    return UserContext("u1", dates, metrics, {"age": 40, "sex": "F", "bmi": 24, "ethnicity": "x"}, (), {})


@pytest.mark.parametrize(("coupled", "direction"), [(-1.0, "concordant"), (1.0, "discordant")])
def test_stress_hrv_reading(coupled: float, direction: str) -> None:
    ctx = _ctx(coupled)
    qt = Concordance()
    draft = qt.make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    # higher stress with lower HRV: both worse together -> concordant
    assert draft.correct.claim["direction"] == direction
    assert draft.correct.claim["bin"] == 4
    assert draft.grounding_ref == "concordance:stress~hrv"
    ev = draft.graph.evidence()
    assert [qt.check(o.claim, ev) for o in (draft.correct, *draft.distractors)] == [True] + [False] * 9
    texts = [o.text for o in (draft.correct, *draft.distractors)]
    assert len(set(texts)) == 10
    assert all(t.startswith("Grade ") for t in texts)  # one template, no numbers
    assert not any(c.isdigit() for t in texts for c in t)
    assert len({(o.claim["a"], o.claim["b"]) for o in draft.distractors}) > 1  # several pairs


def test_distractors_are_clearly_false() -> None:
    from wearbench.questions.types.concordance import _clearly_false

    assert _clearly_false(0.75, "discordant", 2)
    assert _clearly_false(0.75, "concordant", 0)
    assert not _clearly_false(0.75, "concordant", 2)
    assert not _clearly_false(0.71, "concordant", 1)  # within the dead-band of the B/C edge
    assert not _clearly_false(0.49, "concordant", 0)  # within the dead-band of the A floor
    assert _clearly_false(0.2, "concordant", 0)


def test_min_coverage_is_a_constructor_field() -> None:
    # HRV missing on 12 of 60 days: coverage 0.8 clears the default 0.7 but not 0.9, and the
    # other pairs are noise, so the variant finds no pair
    ctx = _ctx(-1.0)
    ctx.metrics["hrv"][::5] = np.nan
    draft = Concordance().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    assert draft.grounding_ref == "concordance:stress~hrv"
    assert draft.correct.claim["direction"] == "concordant"
    with pytest.raises(Drop, match="no linked pair passes"):
        Concordance(min_coverage=0.9).make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_noise_is_dropped() -> None:
    ctx = _ctx(None, seed=3)
    with pytest.raises(Drop):
        Concordance().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_check_on_hand_made_evidence() -> None:
    check = Concordance.check
    claim = {"a": "stress", "b": "hrv", "polarity": -1, "direction": "concordant", "bin": 2}
    assert check(claim, {"r:stress~hrv": -0.75})
    assert not check(claim, {"r:stress~hrv": 0.75})
    assert not check(claim, {"r:stress~hrv": -0.55})
    assert not check(claim, {"r:stress~hrv": None})
    assert not check(claim, {"r:sleep_minutes~hrv": -0.75})  # another pair's r
    other = {"a": "sleep_minutes", "b": "hrv", "polarity": 1, "direction": "discordant", "bin": 4}
    assert check(other, {"r:sleep_minutes~hrv": -0.95, "r:stress~hrv": 0.1})
