"""cohort_position: bands and readings known by construction from hand-built reference percentiles."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.questions import CohortPool, Drop, UserContext
from wearbench.questions.types.cohort_position import (
    BANDS,
    METRICS,
    CohortPosition,
    near_cut,
    pick_options,
    reading,
    reading_prior,
)

PCTS = (5, 10, 25, 50, 75, 90, 95)
#: Metric → cuts at P5…P95.
REFS = {
    "resting_hr": (50.0, 52.0, 56.0, 60.0, 64.0, 68.0, 70.0),
    "steps": (2500.0, 3000.0, 4000.0, 6000.0, 8000.0, 10000.0, 12000.0),
    "hrv": (20.0, 24.0, 30.0, 40.0, 50.0, 62.0, 70.0),
    "sleep_minutes": (330.0, 350.0, 390.0, 420.0, 450.0, 480.0, 500.0),
}


def make_ctx(values: dict[str, float], n: int = 60, *, present: int | None = None) -> UserContext:
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    metrics = {}
    for m, v in values.items():
        arr = np.full(n, v)
        if present is not None:
            arr[: n - present] = np.nan
        metrics[m] = arr
    reference = {m: dict(zip(PCTS, REFS[m], strict=True)) for m in values}
    return UserContext("u1", dates, metrics, {"age": 45.0, "sex": "M"}, (), reference)


def seed_for(metric: str) -> int:
    """A seed whose first draw picks ``metric`` (the type picks the metric with ``rng.choice``)."""
    return next(s for s in range(100) if np.random.default_rng(s).choice(list(METRICS)) == metric)


def build(ctx: UserContext, seed: int = 0) -> Any:
    return CohortPosition().make(ctx, ctx.n_days - 1, np.random.default_rng(seed), CohortPool())


def drafts_by_metric(ctx: UserContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for seed in range(40):
        d = build(ctx, seed)
        out.setdefault(d.metrics[0], d)
    assert set(out) == set(METRICS)
    return out


def test_above_p95_reading_follows_each_cards_direction() -> None:
    ctx = make_ctx({"resting_hr": 75.0, "steps": 14000.0, "hrv": 80.0, "sleep_minutes": 540.0})
    got = {m: dict(d.correct.claim) for m, d in drafts_by_metric(ctx).items()}
    assert got["resting_hr"] == {"metric": "resting_hr", "band": ">P95", "reading": "less_favourable"}
    assert got["steps"]["reading"] == "more_favourable"
    assert got["hrv"]["reading"] == "more_favourable"
    assert got["sleep_minutes"]["reading"] == "less_favourable"  # U-shaped: long sleep


def test_middle_bands_read_as_typical_and_ten_distinct_options() -> None:
    ctx = make_ctx({"resting_hr": 58.0, "steps": 7000.0, "hrv": 45.0, "sleep_minutes": 405.0})
    for metric, d in drafts_by_metric(ctx).items():
        assert d.correct.claim["reading"] == "typical"
        options = (d.correct, *d.distractors)
        assert len({o.text for o in options}) == 10
        ev = d.graph.evidence()
        assert [CohortPosition.check(o.claim, ev) for o in options] == [True] + [False] * 9
        assert d.grounding_ref == METRICS[metric][1]
    assert drafts_by_metric(ctx)["resting_hr"].correct.claim["band"] == "P25-P50"


def test_reading_table() -> None:
    assert reading("resting_hr", "<P5") == "more_favourable"
    assert reading("resting_hr", "P10-P25") == "more_favourable"
    assert reading("steps", "P10-P25") == "less_favourable"
    assert reading("hrv", "P90-P95") == "more_favourable"
    assert reading("sleep_minutes", "<P5") == "less_favourable"
    assert reading("sleep_minutes", "P75-P90") == "typical"
    assert reading("sleep_minutes", ">P95") == "less_favourable"
    assert reading("steps", "P50-P75") == "typical"


def test_drop_near_a_percentile_cut() -> None:
    # steps P5-P95 range 9500 → margin 190 steps; 6100 is 100 from P50
    ctx = make_ctx({"steps": 6100.0})
    with pytest.raises(Drop, match="dead-band"):
        build(ctx, seed_for("steps"))
    assert build(make_ctx({"steps": 6300.0}), seed_for("steps")).correct.claim["band"] == "P50-P75"


def test_drop_without_reference_or_coverage() -> None:
    ctx = make_ctx({"steps": 7000.0})
    no_ref = UserContext(ctx.user_id, ctx.dates, ctx.metrics, ctx.demographics, (), {})
    with pytest.raises(Drop, match="no reference"):
        build(no_ref, seed_for("steps"))
    sparse = make_ctx(dict(zip(REFS, (58.0, 7000.0, 45.0, 405.0), strict=True)), present=10)
    with pytest.raises(Drop, match="too few days"):
        build(sparse)


def test_near_cut() -> None:
    cuts = dict(zip(PCTS, REFS["steps"], strict=True))
    assert near_cut(4150.0, cuts, 0.02)
    assert not near_cut(5000.0, cuts, 0.02)


def test_check_on_hand_made_evidence() -> None:
    ev = {"band": "P75-P90", "median": 66.0}
    assert CohortPosition.check({"metric": "resting_hr", "band": "P75-P90", "reading": "less_favourable"}, ev)
    assert not CohortPosition.check(
        {"metric": "resting_hr", "band": "P75-P90", "reading": "more_favourable"}, ev
    )
    assert not CohortPosition.check(
        {"metric": "resting_hr", "band": "P90-P95", "reading": "less_favourable"}, ev
    )
    assert not CohortPosition.check(
        {"metric": "sleep_efficiency", "band": "P75-P90", "reading": "typical"}, ev
    )
    assert not CohortPosition.check(
        {"metric": "steps", "band": "P75-P90", "reading": "more_favourable"}, {"band": None}
    )


def test_option_text_is_one_template() -> None:
    ctx = make_ctx({"steps": 7000.0})
    d = build(ctx, seed_for("steps"))
    assert d.correct.text == (
        "Quantile rank 0.50 to 0.75 among peers: an intermediate position for long-term risk"
    )
    texts = [o.text for o in (d.correct, *d.distractors)]
    assert not {"length_z", "digits_z", "stem_overlap"} & set(varying_features(d.question, texts))


@pytest.mark.parametrize(
    ("band", "allowed"), [("<P5", {0}), (">P95", {7, 8, 9}), ("P25-P50", set(range(10)))]
)
def test_correct_band_rank_is_spread(band: str, allowed: set[int]) -> None:
    below_counts = set()
    for seed in range(200):
        correct, distractors = pick_options("hrv", band, np.random.default_rng(seed))
        assert correct.claim == {"metric": "hrv", "band": band, "reading": reading("hrv", band)}
        assert len({o.text for o in (correct, *distractors)}) == 10
        claims = [(o.claim["band"], o.claim["reading"]) for o in distractors]
        assert (band, reading("hrv", band)) not in claims
        lower = sum(BANDS.index(b) < BANDS.index(band) for b, _ in claims)
        same = sum(b == band for b, _ in claims)
        below_counts.add(lower)
        assert same <= 2
    assert below_counts == allowed


def test_reading_prior_is_the_reference_population_share() -> None:
    assert reading_prior("steps") == pytest.approx(
        {"less_favourable": 0.25, "typical": 0.5, "more_favourable": 0.25}
    )
    assert reading_prior("sleep_minutes") == pytest.approx(
        {"less_favourable": 0.2, "typical": 0.8, "more_favourable": 0.0}
    )
