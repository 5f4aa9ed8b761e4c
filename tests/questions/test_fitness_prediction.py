"""fitness_prediction: VO2max band vs hand-made matched peers, prognosis and trend by construction."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.cohort import ReferenceCell, ReferenceResolver
from wearbench.cohort import _resolve as resolve_module
from wearbench.cohort._external import ExternalReference
from wearbench.questions import CohortPool, Drop, UserContext, graph_references, run_graph
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
#: Matched peers (women 40-49) of an independent population: mean 40, SD 6.
PEERS = ReferenceCell("vo2max", "population", "40-49", "F", {50: 40.0}, mean=40.0, sd=6.0, n_users=120)


def resolver(*cells: ReferenceCell) -> ReferenceResolver:
    return ReferenceResolver("population", {(c.metric, c.age_band, c.sex): c for c in cells}, {})


def make_ctx(
    vo2: np.ndarray, *, sex: str = "F", age: float = 45.0, res: ReferenceResolver | None = None
) -> UserContext:
    dates = np.datetime64("2024-01-01") + np.arange(N).astype("timedelta64[D]")
    demo = {"age": age, "sex": sex}
    return UserContext("u1", dates, {"vo2max": vo2}, demo, (), {}, res or resolver(PEERS))


def every_third(values: np.ndarray) -> np.ndarray:
    out = np.full(N, np.nan)
    out[::3] = values[::3]
    return out


def build(ctx: UserContext) -> Any:
    return FitnessPrediction().make(ctx, N - 1, np.random.default_rng(0), CohortPool())


def test_high_fitness_improving() -> None:
    # rises linearly 44 → 56 over the record: last-90-day median ≈ 53.8, z ≈ 2.3; slope > 0
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N))))
    assert dict(d.correct.claim) == {"band": "high", "risk": "lower", "trend": "improving"}
    ev = d.graph.evidence()
    assert (ev["ref_mean"], ev["ref_sd"]) == (40.0, 6.0)
    options = (d.correct, *d.distractors)
    assert [FitnessPrediction.check(o.claim, ev) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert "age band 40-49, sex F, n = 120 users: mean 40.00, SD 6.00 mL/kg/min" in d.question
    assert "population reference independent of this cohort" in d.question
    assert d.grounding_ref == "crf_mortality"
    assert graph_references(d.graph.to_json())["vo2max"] == PEERS


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


def test_only_peers_of_the_same_sex_and_age_band() -> None:
    men = ReferenceCell("vo2max", "population", "40-49", "M", {}, mean=55.0, sd=6.0, n_users=90)
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N)), sex="M", res=resolver(PEERS, men)))
    assert d.correct.claim["band"] == "below_average"  # 53.8 vs men's mean 55
    assert "sex M" in d.question
    with pytest.raises(
        Drop, match="no mean and SD"
    ):  # men 60+: no peers; the FRIEND cell has percentiles only
        build(make_ctx(every_third(np.linspace(44.0, 56.0, N)), sex="M", age=62.0))


def test_external_reference_when_no_independent_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    ext = ExternalReference(
        "vo2max", "40-49", "F", {}, 30.0, 7.0, 1000, "SRC", "Author 2020; doi", "lab test"
    )
    monkeypatch.setattr(resolve_module, "external_reference", lambda m, a, s: ext if m == "vo2max" else None)
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N)), res=resolver()))
    assert dict(d.correct.claim)["band"] == "high"  # (53.8 - 30) / 7 > 1
    assert "external published reference SRC, age band 40-49, sex F, n = 1000 users" in d.question
    assert graph_references(d.graph.to_json())["vo2max"].kind == "external"


def test_drops_a_reference_without_mean_and_sd() -> None:
    bare = ReferenceCell("vo2max", "population", "40-49", "F", {50: 40.0}, n_users=120)
    with pytest.raises(Drop, match="no mean and SD"):
        build(make_ctx(every_third(np.full(N, 47.0)), res=resolver(bare)))


@pytest.mark.parametrize(
    ("vo2", "reason"),
    [
        (np.full(N, np.nan), "too few VO2max estimates in the last 90 days"),
        (every_third(np.full(N, 40.3)), "dead-band of a band edge"),  # z = 0.05
        (every_third(np.full(N, 47.0)), "CI ends within the dead-band"),  # zero-width CI at 0
    ],
)
def test_drops(vo2: np.ndarray, reason: str) -> None:
    with pytest.raises(Drop, match=reason):
        build(make_ctx(vo2))


def test_too_few_points_for_a_trend() -> None:
    vo2 = np.full(N, np.nan)
    vo2[-60::10] = 50.0
    with pytest.raises(Drop, match="for a trend"):
        build(make_ctx(vo2))


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


def test_replay_needs_only_the_item_and_a_stored_context() -> None:
    ctx = make_ctx(every_third(np.linspace(44.0, 56.0, N)))
    d = build(ctx)
    stored = UserContext.load(ctx.dump())  # no resolver, no static reference
    assert stored.resolver is None
    assert run_graph(d.graph.to_json(), stored) == d.graph.evidence()
