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
    assert len({len(t) for t in texts}) == 1  # one template, no numbers
    assert not any(c.isdigit() for t in texts for c in t)


def test_noise_is_dropped() -> None:
    ctx = _ctx(None, seed=3)
    with pytest.raises(Drop):
        Concordance().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_check_on_hand_made_evidence() -> None:
    check = Concordance.check
    claim = {"polarity": -1, "direction": "concordant", "bin": 2}
    assert check(claim, {"r": -0.75})
    assert not check(claim, {"r": 0.75})
    assert not check(claim, {"r": -0.55})
    assert not check(claim, {"r": None})
    assert check({"polarity": 1, "direction": "discordant", "bin": 4}, {"r": -0.95})
