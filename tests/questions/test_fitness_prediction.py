"""fitness_prediction: VO2max band vs a hand-made cohort reference, prognosis and trend by construction."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.questions import CohortPool, Drop, UserContext
from wearbench.questions.types import fitness_prediction
from wearbench.questions.types.fitness_prediction import (
    BANDS,
    RISKS,
    TREND_DAYS,
    TRENDS,
    FitnessPrediction,
    band_of,
    option,
    risk_of,
    trend_of,
)

N = 240
#: Cohort reference: 41 values 30.0, 30.5, …, 50.0 → mean 40, SD ≈ 6.06.
COHORT = np.linspace(30.0, 50.0, 41)


def make_ctx(vo2: np.ndarray, *, sex: str = "F", age: float = 45.0) -> UserContext:
    dates = np.datetime64("2024-01-01") + np.arange(N).astype("timedelta64[D]")
    return UserContext("u1", dates, {"vo2max": vo2}, {"age": age, "sex": sex}, (), {})


def every_third(values: np.ndarray) -> np.ndarray:
    out = np.full(N, np.nan)
    out[::3] = values[::3]
    return out


def build(ctx: UserContext, pool: CohortPool | None = None) -> Any:
    pool = pool or CohortPool(window_means={"vo2max": COHORT})
    return FitnessPrediction().make(ctx, N - 1, np.random.default_rng(0), pool)


def test_high_fitness_improving() -> None:
    # rises linearly 44 → 56 over the record: last-90-day median ≈ 53.8, z ≈ 2.3; slope > 0
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N))))
    assert dict(d.correct.claim) == {"band": "high", "risk": "lower", "trend": "improving"}
    ev = d.graph.evidence()
    assert ev["ref_mean"] == pytest.approx(40.0)
    options = (d.correct, *d.distractors)
    assert [FitnessPrediction.check(o.claim, ev) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert "whole cohort" in d.question
    assert d.grounding_ref == "crf_mortality"


def flat_vo2() -> np.ndarray:
    # alternating 36/38 around 37: z ≈ -0.5; flat trend whose CI straddles zero
    return every_third(np.where(np.arange(N) % 2 == 0, 36.0, 38.0) + np.sin(np.arange(N)))


def test_below_average_no_clear_change(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fitness_prediction, "KEEP_UNCLEAR", 1.0)  # about the answer, not thinning
    assert dict(build(make_ctx(flat_vo2())).correct.claim) == {
        "band": "below_average",
        "risk": "higher",
        "trend": "no_clear_change",
    }


def test_unclear_trend_windows_are_thinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fitness_prediction, "KEEP_UNCLEAR", 0.0)
    with pytest.raises(Drop, match="thinned"):
        build(make_ctx(flat_vo2()))


def test_low_and_declining() -> None:
    d = build(make_ctx(every_third(np.linspace(40.0, 30.0, N))))
    assert dict(d.correct.claim) == {"band": "low", "risk": "higher", "trend": "declining"}


def test_uses_peers_of_same_sex_and_age_band_when_provided() -> None:
    peers = np.linspace(45.0, 65.0, 41)  # mean 55: the rising user is now below average
    pool = CohortPool(window_means={"vo2max": COHORT}, extra={"vo2max|F|40-49": peers})
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N))), pool)
    assert d.correct.claim["band"] == "below_average"
    assert "same sex and age band" in d.question


@pytest.mark.parametrize(
    ("vo2", "pool", "reason"),
    [
        (np.full(N, np.nan), None, "too few VO2max estimates in the last 90 days"),
        (every_third(np.full(N, 40.3)), None, "dead-band of a band edge"),  # z ≈ 0.05
        (every_third(np.full(N, 47.0)), None, "CI ends within the dead-band"),  # zero-width CI at 0
        (
            every_third(np.full(N, 47.0)),
            CohortPool(window_means={"vo2max": COHORT[:10]}),
            "reference too small",
        ),
    ],
)
def test_drops(vo2: np.ndarray, pool: CohortPool | None, reason: str) -> None:
    with pytest.raises(Drop, match=reason):
        build(make_ctx(vo2), pool)


def test_too_few_points_for_a_trend() -> None:
    vo2 = np.full(N, np.nan)
    vo2[-60::10] = 50.0
    with pytest.raises(Drop, match="for a trend"):
        build(make_ctx(vo2))


def test_reference_values_hook() -> None:
    a = make_ctx(every_third(np.full(N, 50.0)))
    b = make_ctx(every_third(np.full(N, 30.0)), sex="M", age=62.0)
    got = FitnessPrediction.reference_values([a, b])
    assert sorted(got) == ["vo2max|F|40-49", "vo2max|M|60+"]
    assert got["vo2max|M|60+"].tolist() == [30.0]


def test_helpers_and_history() -> None:
    assert [band_of(z) for z in (-1.5, -1.0, -0.2, 0.0, 0.99, 1.0)] == [
        "low",
        "below_average",
        "below_average",
        "above_average",
        "above_average",
        "high",
    ]
    assert trend_of(0.01, 0.05) == "improving"
    assert trend_of(-0.05, -0.01) == "declining"
    assert trend_of(-0.01, 0.02) == "no_clear_change"
    assert FitnessPrediction.min_history == TREND_DAYS


def test_check_on_hand_made_evidence() -> None:
    ev = {"vo2max": 46.0, "ref_mean": 40.0, "ref_sd": 5.0, "lo": -0.01, "hi": 0.02}
    claim = {"band": "high", "risk": "lower", "trend": "no_clear_change"}
    assert FitnessPrediction.check(claim, ev)
    assert not FitnessPrediction.check({**claim, "risk": "higher"}, ev)
    assert not FitnessPrediction.check({**claim, "band": "above_average"}, ev)
    assert not FitnessPrediction.check({**claim, "trend": "improving"}, ev)
    assert not FitnessPrediction.check(claim, {**ev, "ref_sd": 0.0})
    assert not FitnessPrediction.check(claim, {**ev, "vo2max": None})


def test_too_few_peers_falls_back_to_the_whole_cohort() -> None:
    pool = CohortPool(window_means={"vo2max": COHORT}, extra={"vo2max|F|40-49": np.linspace(45.0, 65.0, 14)})
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N))), pool)
    assert "whole cohort" in d.question
    assert d.correct.claim["band"] == "high"


def test_option_text_is_one_template() -> None:
    assert option("low", "higher", "no_clear_change").text == (
        "Fitness band poor, increased long-term mortality risk, an unclear trend in VO2max"
    )
    texts = [option(b, r, t).text for b in BANDS for r in RISKS for t in TRENDS]
    assert len(set(texts)) == 24
    assert len({len(t) for t in texts}) == 1
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N))))
    assert varying_features(d.question, [o.text for o in (d.correct, *d.distractors)]) == []


def test_distractors_carry_the_prognosis_of_their_band() -> None:
    d = build(make_ctx(every_third(np.linspace(40.0, 30.0, N))))
    claims = [o.claim for o in (d.correct, *d.distractors)]
    assert all(c["risk"] == risk_of(c["band"]) for c in claims)
    assert len({(c["band"], c["trend"]) for c in claims}) == 10
    assert [risk_of(b) for b in BANDS] == ["higher", "higher", "lower", "lower"]
