"""fitness_prediction: VO2max quartile band vs hand-made matched peers, prognosis and trend."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.cohort import ReferenceCell, ReferenceResolver
from wearbench.cohort import _resolve as resolve_module
from wearbench.cohort._external import ExternalReference
from wearbench.questions import CohortPool, Drop, UserContext, graph_references, run_graph
from wearbench.questions.types.fitness_prediction import (
    BANDS,
    RISKS,
    TREND_DAYS,
    TRENDS,
    FitnessPrediction,
    band_of,
    near_cut,
    option,
    risk_of,
    shown,
    trend_of,
)

N = 240
#: Matched peers (women 40-49) of an independent population: quartile cuts 35 / 40 / 45.
QUARTILES = {5: 28.0, 25: 35.0, 50: 40.0, 75: 45.0, 95: 52.0}
PEERS = ReferenceCell("vo2max", "population", "40-49", "F", QUARTILES, mean=40.0, sd=6.0, n_users=120)


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


def build(ctx: UserContext, qt: FitnessPrediction | None = None) -> Any:
    return (qt or FitnessPrediction()).make(ctx, N - 1, np.random.default_rng(0), CohortPool())


def test_high_fitness_improving() -> None:
    # rises linearly 44 → 56 over the record: last-90-day median 53.72 ≥ P75 = 45; slope > 0
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N))))
    assert dict(d.correct.claim) == {"band": "high", "risk": "lower", "trend": "improving"}
    ev = d.graph.evidence()
    assert ev["vo2max"] == pytest.approx(53.7155, abs=1e-4)
    assert (ev["ref_p25"], ev["ref_p50"], ev["ref_p75"]) == (35.0, 40.0, 45.0)
    options = (d.correct, *d.distractors)
    assert [FitnessPrediction.check(o.claim, ev) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert "age band 40-49, sex F, n = 120 users: P25 = 35, P50 = 40, P75 = 45 mL/kg/min" in d.question
    assert "poor below P25, fair from P25 to below P50, good from P50 to below P75, high at P75" in d.question
    assert "population reference independent of this cohort" in d.question
    assert d.grounding_ref == "crf_mortality"
    assert graph_references(d.graph.to_json())["vo2max"] == PEERS


def flat_vo2() -> np.ndarray:
    # alternating 36/38 around 37: median 37.0 in [P25 = 35, P50 = 40); CI of the slope straddles 0
    return every_third(np.where(np.arange(N) % 2 == 0, 36.0, 38.0) + np.sin(np.arange(N)))


def test_below_median_no_clear_change() -> None:
    keep_all = FitnessPrediction(keep_unclear=1.0)  # about the answer, not thinning
    assert dict(build(make_ctx(flat_vo2()), keep_all).correct.claim) == {
        "band": "below_median",
        "risk": "higher",
        "trend": "no_clear_change",
    }


def test_unclear_trend_windows_are_thinned() -> None:
    with pytest.raises(Drop, match="thinned"):
        build(make_ctx(flat_vo2()), FitnessPrediction(keep_unclear=0.0))


def test_low_and_declining() -> None:
    # falls 40 → 30: last-90-day median 31.90 < P25 = 35
    d = build(make_ctx(every_third(np.linspace(40.0, 30.0, N))))
    assert dict(d.correct.claim) == {"band": "low", "risk": "higher", "trend": "declining"}


def test_only_peers_of_the_same_sex_and_age_band() -> None:
    men = ReferenceCell("vo2max", "population", "40-49", "M", {25: 50.0, 50: 55.0, 75: 60.0}, n_users=90)
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N)), sex="M", res=resolver(PEERS, men)))
    assert d.correct.claim["band"] == "below_median"  # 53.72 in [50, 55) among men
    assert "sex M" in d.question


def test_external_friend_cell_when_no_independent_peers() -> None:
    # women 40-49 with no population or cohort peers: the shipped FRIEND 2015 treadmill cell
    # (P25 22.1, P50 26.7, P75 32.4; percentiles only). Rises 20 → 30: median 28.10 in [26.7, 32.4)
    d = build(make_ctx(every_third(np.linspace(20.0, 30.0, N)), res=resolver()))
    assert dict(d.correct.claim) == {"band": "above_median", "risk": "lower", "trend": "improving"}
    cell = graph_references(d.graph.to_json())["vo2max"]
    assert (cell.kind, cell.source, cell.mean, cell.sd) == ("external", "friend2015", None, None)
    assert "P25 = 22.1, P50 = 26.7, P75 = 32.4 mL/kg/min" in d.question
    assert "external published reference friend2015, age band 40-49, sex F" in d.question
    assert "Kaminsky 2015" in d.question
    # men 60+: FRIEND's men 60-69 y row (P25 23.7, P50 28.2, P75 34.5): 53.72 is high
    old = build(make_ctx(every_third(np.linspace(44.0, 56.0, N)), sex="M", age=62.0, res=resolver()))
    assert old.correct.claim["band"] == "high"
    assert "P25 = 23.7, P50 = 28.2, P75 = 34.5 mL/kg/min" in old.question


def test_leave_the_user_out_cohort_cell() -> None:
    # 31 other women 40-49 with constant VO2max 30, 31, …, 60 (4 estimates each, before the end
    # date) and one whose estimates all come after it: leave-u1-out quartiles of 30…60 by linear
    # interpolation are P25 37.5, P50 45, P75 52.5; u1's 53.72 is high
    day0 = int(np.datetime64("2024-01-01", "D").astype(np.int64))
    early, late = np.arange(day0, day0 + 4), np.arange(day0 + N, day0 + N + 4)
    series = {(f"p{k}", "vo2max"): resolve_module._UserSeries(early, np.full(4, 30.0 + k)) for k in range(31)}
    series[("late", "vo2max")] = resolve_module._UserSeries(late, np.full(4, 90.0))
    groups = {u: ("40-49", "F") for u, _ in series} | {"u1": ("40-49", "F")}
    res = ReferenceResolver("cohort_self", {}, groups, series)
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N)), res=res))
    cell = graph_references(d.graph.to_json())["vo2max"]
    assert (cell.kind, cell.n_users) == ("cohort", 31)
    assert dict(d.correct.claim) == {"band": "high", "risk": "lower", "trend": "improving"}
    assert "P25 = 37.5, P50 = 45, P75 = 52.5 mL/kg/min" in d.question
    assert "leave-this-user-out reference of other cohort users" in d.question


def test_external_reference_is_used_through_the_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    ext = ExternalReference(
        "vo2max", "40-49", "F", {25: 50.0, 50: 55.0, 75: 60.0}, None, None, 1000, "SRC", "Author 2020", "lab"
    )
    monkeypatch.setattr(resolve_module, "external_reference", lambda m, a, s: ext if m == "vo2max" else None)
    d = build(make_ctx(every_third(np.linspace(44.0, 56.0, N)), res=resolver()))
    assert dict(d.correct.claim)["band"] == "below_median"  # 53.72 in [50, 55)
    assert "external published reference SRC, age band 40-49, sex F, n = 1000 users" in d.question


@pytest.mark.parametrize(
    ("percentiles", "reason"),
    [
        ({50: 40.0}, "no P25, P50 and P75"),
        ({25: 40.0, 50: 40.0, 75: 45.0}, "quartiles do not increase"),
    ],
)
def test_drops_a_reference_without_increasing_quartiles(percentiles: dict[int, float], reason: str) -> None:
    bare = ReferenceCell("vo2max", "population", "40-49", "F", percentiles, mean=40.0, sd=6.0, n_users=120)
    with pytest.raises(Drop, match=reason):
        build(make_ctx(every_third(np.full(N, 47.0)), res=resolver(bare)))


@pytest.mark.parametrize(
    ("vo2", "reason"),
    [
        (np.full(N, np.nan), "too few VO2max estimates in the last 90 days"),
        (every_third(np.full(N, 40.4)), "dead-band of a quartile cut"),  # 0.4 ≤ 5% of IQR 10 from P50
        (every_third(np.full(N, 34.6)), "dead-band of a quartile cut"),  # 0.4 below P25
        (every_third(np.full(N, 47.0)), "CI ends within the dead-band"),  # zero-width CI at 0
    ],
)
def test_drops(vo2: np.ndarray, reason: str) -> None:
    with pytest.raises(Drop, match=reason):
        build(make_ctx(vo2))


def test_dead_bands_are_constructor_fields() -> None:
    # 40.4 is 0.4 from P50: inside 5% of the IQR (0.5), outside 2% (0.2), so the constant series
    # then reaches the trend gate, where its zero-width CI at 0 is knife-edge
    with pytest.raises(Drop, match="CI ends within the dead-band"):
        build(make_ctx(every_third(np.full(N, 40.4))), FitnessPrediction(cut_dead_band=0.02))
    # a CI straddling zero has an end within half its width of zero
    with pytest.raises(Drop, match="CI ends within the dead-band"):
        build(make_ctx(flat_vo2()), FitnessPrediction(keep_unclear=1.0, ci_dead_band=0.5))


def test_too_few_points_for_a_trend() -> None:
    vo2 = np.full(N, np.nan)
    vo2[-60::10] = 50.0
    with pytest.raises(Drop, match="for a trend"):
        build(make_ctx(vo2))


def test_helpers_and_history() -> None:
    cuts = (35.0, 40.0, 45.0)
    assert [band_of(v, cuts) for v in (30.0, 35.0, 39.99, 40.0, 44.9, 45.0, 60.0)] == [
        "low",
        "below_median",
        "below_median",
        "above_median",
        "above_median",
        "high",
        "high",
    ]
    assert FitnessPrediction().cut_dead_band == 0.05
    assert near_cut(40.5, cuts, 0.05)  # 0.5 = 5% of IQR 10
    assert near_cut(34.5, cuts, 0.05)
    assert not near_cut(40.6, cuts, 0.05)
    assert not near_cut(37.5, cuts, 0.05)
    assert near_cut(37.5, cuts, 0.25)  # 2.5 = 25% of IQR 10
    assert [shown(x) for x in (30.025, 22.1, 40.0, 39.675000000000004)] == ["30.02", "22.1", "40", "39.68"]
    assert trend_of(0.01, 0.05) == "improving"
    assert trend_of(-0.05, -0.01) == "declining"
    assert trend_of(-0.01, 0.02) == "no_clear_change"
    assert FitnessPrediction.min_history == TREND_DAYS


def test_check_on_hand_made_evidence() -> None:
    ev = {"vo2max": 46.0, "ref_p25": 35.0, "ref_p50": 40.0, "ref_p75": 45.0, "lo": -0.01, "hi": 0.02}
    claim = {"band": "high", "risk": "lower", "trend": "no_clear_change"}
    assert FitnessPrediction.check(claim, ev)
    assert not FitnessPrediction.check({**claim, "risk": "higher"}, ev)
    assert not FitnessPrediction.check({**claim, "band": "above_median"}, ev)
    assert not FitnessPrediction.check({**claim, "trend": "improving"}, ev)
    assert not FitnessPrediction.check(claim, {**ev, "ref_p75": None})
    assert not FitnessPrediction.check(claim, {**ev, "vo2max": None})
    assert not FitnessPrediction.check(claim, {**ev, "ref_p50": 45.0})  # cuts must increase


def test_check_bands_against_the_cuts_as_printed() -> None:
    # P25 = 30.025 prints as 30.02 (the float is 30.02499…): 30.021 is "fair" by the shown cut
    ev = {"vo2max": 30.021, "ref_p25": 30.025, "ref_p50": 35.0, "ref_p75": 40.0, "lo": 0.01, "hi": 0.02}
    assert FitnessPrediction.check({"band": "below_median", "risk": "higher", "trend": "improving"}, ev)


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
