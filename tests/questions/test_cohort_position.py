"""cohort_position: decile bands and stated readings known by construction from hand-built references."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.questions import CohortPool, Drop, UserContext, graph_references
from wearbench.questions.types.cohort_position import (
    BANDS,
    CUTS,
    METRICS,
    CohortPosition,
    near_cut,
    option,
    reading,
    rule_text,
)

PCTS = (5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 95)
#: Metric → cuts at P5, P10, P20, P25, P30, P40, P50, P60, P70, P75, P80, P90, P95.
REFS = {
    "resting_hr": (50.0, 52.0, 54.0, 56.0, 57.0, 59.0, 60.0, 61.0, 63.0, 64.0, 66.0, 68.0, 70.0),
    "steps": (
        2500.0,
        3000.0,
        3800.0,
        4000.0,
        4400.0,
        5200.0,
        6000.0,
        6800.0,
        7600.0,
        8000.0,
        8800.0,
        10000.0,
        12000.0,
    ),
    "hrv": (20.0, 24.0, 28.0, 30.0, 33.0, 37.0, 40.0, 44.0, 48.0, 50.0, 55.0, 62.0, 70.0),
    "sleep_minutes": (
        330.0,
        350.0,
        380.0,
        390.0,
        400.0,
        410.0,
        420.0,
        430.0,
        440.0,
        450.0,
        460.0,
        480.0,
        500.0,
    ),
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
    for seed in range(60):
        try:
            d = build(ctx, seed)
        except Drop:  # outer bands are thinned at random
            continue
        out.setdefault(d.metrics[0], d)
    assert set(out) == set(METRICS)
    return out


def test_top_decile_reading_follows_the_stated_rule() -> None:
    ctx = make_ctx({"resting_hr": 75.0, "steps": 14000.0, "hrv": 80.0, "sleep_minutes": 540.0})
    got = {m: dict(d.correct.claim) for m, d in drafts_by_metric(ctx).items()}
    assert got["resting_hr"] == {"metric": "resting_hr", "band": ">P90", "reading": "less_favourable"}
    assert got["steps"]["reading"] == "more_favourable"
    assert got["hrv"]["reading"] == "more_favourable"
    assert got["sleep_minutes"]["reading"] == "less_favourable"  # U-shaped: long sleep


def test_ten_options_are_the_ten_deciles_with_their_stated_readings() -> None:
    ctx = make_ctx({"resting_hr": 59.5, "steps": 7000.0, "hrv": 45.0, "sleep_minutes": 405.0})
    for metric, d in drafts_by_metric(ctx).items():
        options = (d.correct, *d.distractors)
        assert sorted(o.claim["band"] for o in options) == sorted(BANDS)
        assert all(o.claim["reading"] == reading(metric, o.claim["band"]) for o in options)
        ev = d.graph.evidence()
        assert [CohortPosition.check(o.claim, ev) for o in options] == [True] + [False] * 9
        assert d.grounding_ref == METRICS[metric][1]
        assert rule_text(metric) in d.question
    by = drafts_by_metric(ctx)
    assert by["resting_hr"].correct.claim["band"] == "P40-P50"  # 59 <= 59.5 < 60
    assert by["steps"].correct.claim["band"] == "P60-P70"  # 6800 <= 7000 < 7600


def test_the_item_stores_and_shows_the_decile_cuts_it_used() -> None:
    d = build(make_ctx({"steps": 7000.0}), seed_for("steps"))
    cells = graph_references(d.graph.to_json())
    assert set(cells) == {"steps"}
    assert sorted(cells["steps"].percentiles) == list(CUTS)
    assert cells["steps"].percentiles[60] == 6800.0


def test_reading_table_and_rule_text() -> None:
    assert reading("resting_hr", "<P10") == "more_favourable"
    assert reading("resting_hr", "P10-P20") == "more_favourable"
    assert reading("resting_hr", "P20-P30") == "typical"
    assert reading("resting_hr", "P80-P90") == "less_favourable"
    assert reading("steps", "P10-P20") == "less_favourable"
    assert reading("hrv", ">P90") == "more_favourable"
    assert reading("sleep_minutes", "<P10") == "less_favourable"
    assert reading("sleep_minutes", "P70-P80") == "typical"
    assert reading("sleep_minutes", ">P90") == "less_favourable"
    assert rule_text("resting_hr") == (
        "lower is more favourable, so a median below P20 is advantageous, above P80 unfavourable, "
        "and from P20 to P80 intermediate"
    )


def test_drop_near_a_percentile_cut() -> None:
    # steps P50=6000, neighbouring bands 800 wide → margin 80 steps; 6050 is 50 from P50
    with pytest.raises(Drop, match="dead-band"):
        build(make_ctx({"steps": 6050.0}), seed_for("steps"))
    assert build(make_ctx({"steps": 6100.0}), seed_for("steps")).correct.claim["band"] == "P50-P60"


def test_drop_without_reference_deciles_or_coverage() -> None:
    ctx = make_ctx({"steps": 7000.0})
    no_ref = UserContext(ctx.user_id, ctx.dates, ctx.metrics, ctx.demographics, (), {})
    with pytest.raises(Drop, match="no reference"):
        build(no_ref, seed_for("steps"))
    seven = {"steps": {p: v for p, v in ctx.reference["steps"].items() if p in (5, 10, 25, 50, 75, 90, 95)}}
    old = UserContext(ctx.user_id, ctx.dates, ctx.metrics, ctx.demographics, (), seven)
    with pytest.raises(Drop, match="decile cuts"):
        build(old, seed_for("steps"))
    sparse = make_ctx(dict(zip(REFS, (58.0, 7000.0, 45.0, 405.0), strict=True)), present=10)
    with pytest.raises(Drop, match="too few days"):
        build(sparse)


def test_near_cut_uses_the_local_band_width() -> None:
    cuts = {10: 3000.0, 20: 3800.0, 30: 4400.0}
    assert near_cut(3050.0, cuts, 0.1)  # P10: only inner neighbour, 800 wide → margin 80
    assert not near_cut(2900.0, cuts, 0.1)
    assert near_cut(3850.0, cuts, 0.1)  # P20: narrower neighbour 600 → margin 60
    assert not near_cut(3870.0, cuts, 0.1)


def test_check_on_hand_made_evidence() -> None:
    ev = {"band": "P80-P90", "median": 67.0}
    assert CohortPosition.check({"metric": "resting_hr", "band": "P80-P90", "reading": "less_favourable"}, ev)
    assert not CohortPosition.check({"metric": "resting_hr", "band": "P80-P90", "reading": "typical"}, ev)
    assert not CohortPosition.check(
        {"metric": "resting_hr", "band": ">P90", "reading": "less_favourable"}, ev
    )
    assert not CohortPosition.check(
        {"metric": "sleep_efficiency", "band": "P80-P90", "reading": "typical"}, ev
    )


def test_option_text_is_one_template() -> None:
    d = build(make_ctx({"steps": 7000.0}), seed_for("steps"))
    assert (
        d.correct.text
        == "Quantile rank 0.60 to 0.70 among peers: an intermediate position for long-term risk"
    )
    assert option("steps", "<P10").text.startswith("Quantile rank 0.00 to 0.10 among peers: an unfavourable")
    texts = [o.text for o in (d.correct, *d.distractors)]
    assert not {"length_z", "digits_z", "stem_overlap"} & set(varying_features(d.question, texts))
