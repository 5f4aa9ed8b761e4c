import numpy as np
import pytest

from wearbench.bench._prior import prior_scores
from wearbench.cohort import METRIC_NAMES
from wearbench.grounding import (
    DEFINITIONAL_PAIRS,
    EMPIRICAL_PAIRS,
    LOCKSTEP_PAIRS,
    MARGIN_DEAD_BAND,
    MIN_MARGIN,
    pair_by_name,
)
from wearbench.questions import CohortPool, Drop, UserContext, question_type
from wearbench.questions.types.strongest_pair import ALL_PAIRS, _shown_sets

StrongestPair = question_type("strongest_pair")


def _ctx(user_id: str, plant: tuple[str, str] | None, n: int = 60, seed: int = 0) -> UserContext:
    rng = np.random.default_rng(seed)
    metrics = {m: rng.normal(size=n) * 5 + 50 for m in METRIC_NAMES}
    if plant:
        x, y = plant
        metrics[y] = metrics[x] + rng.normal(size=n) * 1.0
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    return UserContext(user_id, dates, metrics, {"age": 40, "sex": "F", "bmi": 24, "ethnicity": "x"}, (), {})


def test_planted_pair_wins() -> None:
    ctx = _ctx("u0", ("stress", "hrv"))
    qt = StrongestPair()
    drafts = [qt.make(ctx, ctx.n_days - 1, np.random.default_rng(seed), CohortPool()) for seed in range(5)]
    shown = {o.claim["pair"] for d in drafts for o in d.distractors}
    assert len(shown) > 9  # the nine others vary between draws
    for draft in drafts:
        assert draft.correct.claim == {"pair": "stress->hrv"}
        ev = draft.graph.evidence()
        assert [qt.check(o.claim, ev) for o in (draft.correct, *draft.distractors)] == [True] + [False] * 9
        assert draft.pair_kind == "empirical"
        assert draft.grounding_ref == "strongest:stress->hrv"
        assert draft.gates is not None
        assert draft.gates["checks"]["margin"]


def test_menu_offers_definitional_pairs_but_no_lockstep_pair() -> None:
    names = [p.name for p in ALL_PAIRS]
    assert len(names) == len(set(names)) == len(EMPIRICAL_PAIRS) + len(DEFINITIONAL_PAIRS) == 21
    assert {pair_by_name(n).kind for n in names} == {"empirical", "definitional"}
    assert {"steps->exercise_minutes", "sleep_minutes->sleep_efficiency"} <= set(names)
    assert not {p.name for p in LOCKSTEP_PAIRS} & set(names)
    assert pair_by_name("steps->active_kcal").kind == "definitional"  # known, not offered


def test_definitional_pair_wins_and_is_labelled() -> None:
    # steps = base + 60 steps per exercise minute (a runner): the device-made link is planted
    rng = np.random.default_rng(4)
    n = 60
    metrics = {m: rng.normal(size=n) * 5 + 50 for m in METRIC_NAMES}
    minutes = np.where(rng.uniform(size=n) < 0.4, rng.uniform(20, 90, size=n), 0.0)
    metrics["exercise_minutes"] = minutes
    metrics["steps"] = 6000 + 60 * minutes + rng.normal(size=n) * 300
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    ctx = UserContext("u1", dates, metrics, {"age": 40, "sex": "F", "bmi": 24, "ethnicity": "x"}, (), {})
    draft = StrongestPair().make(ctx, n - 1, np.random.default_rng(0), CohortPool())
    assert draft.correct.claim == {"pair": "steps->exercise_minutes"}
    assert draft.correct.text == "steps ↔ exercise minutes"
    assert draft.pair_kind == "definitional"
    assert draft.grounding_ref == "strongest:steps->exercise_minutes"
    ev = draft.graph.evidence()
    verdicts = [StrongestPair.check(o.claim, ev) for o in (draft.correct, *draft.distractors)]
    assert verdicts == [True] + [False] * 9


def test_prior_ranks_every_definitional_pair_first() -> None:
    options = [(p.label(), {"pair": p.name}) for p in (*DEFINITIONAL_PAIRS[:2], *EMPIRICAL_PAIRS[:8])]
    scores = prior_scores("strongest_pair", "q", options)
    assert list(scores[:2]) == [3.0, 3.0]
    assert max(scores[2:]) < 3.0


def test_shown_sets_beat_distractors_by_the_margin() -> None:
    pairs = list(EMPIRICAL_PAIRS)
    rng = np.random.default_rng(0)
    best = rng.uniform(-0.4, 0.4, size=len(pairs))
    names = [p.name for p in pairs]
    strong = [names.index("steps->resting_hr"), names.index("mets->hrv")]
    best[strong] = [0.95, -0.9]  # two strong pairs: either may be asked about, without the other
    winners = []
    for _ in range(300):
        for shown in _shown_sets(pairs, best, rng):
            assert len(shown) == 10 == len(set(shown))
            top = max(shown, key=lambda i: abs(best[i]))
            rest = sorted((abs(best[i]) for i in shown if i != top), reverse=True)
            assert abs(best[top]) - rest[0] >= MIN_MARGIN + MARGIN_DEAD_BAND
            winners.append(pairs[top].name)
            break
    assert len(winners) == 300
    assert set(winners) == {names[i] for i in strong}


def test_no_pair_clear_of_nine_others_gives_no_set() -> None:
    pairs = list(EMPIRICAL_PAIRS)
    best = np.full(len(pairs), 0.8)
    assert list(_shown_sets(pairs, best, np.random.default_rng(0))) == []


def test_no_decisive_winner_is_dropped() -> None:
    ctx = _ctx("u0", None, seed=2)
    with pytest.raises(Drop, match=r"gate|margin"):
        StrongestPair().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_check_on_hand_made_evidence() -> None:
    check = StrongestPair.check
    assert check({"pair": "a->b"}, {"winner": "a->b", "decisive": True})
    assert not check({"pair": "a->b"}, {"winner": "a->b", "decisive": False})
    assert not check({"pair": "c->d"}, {"winner": "a->b", "decisive": True})


def test_pool_weights_steer_the_shown_sets() -> None:
    from wearbench.questions.types.strongest_pair import (
        ALL_PAIRS,
        DISTRACTOR_WEIGHT,
        WINNER_WEIGHT,
        _menu_weights,
    )

    pairs = sorted(EMPIRICAL_PAIRS, key=lambda p: p.name)
    names = [p.name for p in pairs]
    assert _menu_weights(pairs, CohortPool()) == (None, None)  # absent: uniform
    best = np.linspace(-0.3, 0.3, len(pairs))
    a, b = names.index("steps->resting_hr"), names.index("mets->hrv")
    best[[a, b]] = [0.95, -0.9]
    favoured = names[3] if 3 not in (a, b) else names[4]
    u = np.ones(len(ALL_PAIRS))
    v = np.full(len(ALL_PAIRS), 0.01)
    all_names = [p.name for p in ALL_PAIRS]
    u[all_names.index("mets->hrv")] = 1000.0  # nearly always the intended winner
    v[[all_names.index(n) for n in names if n != favoured][:9]] = 1.0
    v[all_names.index(favoured)] = 1000.0  # nearly always shown as a distractor
    uw, dw = _menu_weights(pairs, CohortPool(extra={WINNER_WEIGHT: u, DISTRACTOR_WEIGHT: v}))
    assert uw is not None
    assert dw is not None
    rng = np.random.default_rng(0)
    firsts = [next(_shown_sets(pairs, best, rng, uw, dw)) for _ in range(200)]
    top = [max(s, key=lambda i: abs(best[i])) for s in firsts]
    assert np.mean([t == b for t in top]) > 0.95
    assert np.mean([names.index(favoured) in s for s in firsts]) > 0.95
    uniform = [next(_shown_sets(pairs, best, rng)) for _ in range(200)]
    assert 0.3 < np.mean([max(s, key=lambda i: abs(best[i])) == b for s in uniform]) < 0.7


def test_cohort_calibration_evens_the_answer_rate() -> None:
    from wearbench.questions.types.strongest_pair import ALL_PAIRS, DISTRACTOR_WEIGHT, WIN_RATE, WINNER_WEIGHT

    ctxs = [_ctx("u0", ("stress", "hrv") if i % 2 else None, seed=i) for i in range(6)]
    dists = StrongestPair().cohort_distributions(ctxs)
    assert set(dists) == {WINNER_WEIGHT, DISTRACTOR_WEIGHT, WIN_RATE}
    names = [p.name for p in ALL_PAIRS]
    for key in dists:
        assert dists[key].shape == (len(ALL_PAIRS),)
    i = names.index("stress->hrv")
    assert dists[WIN_RATE][i] > 0
    # a pair that often wins is down-weighted as the winner and up-weighted as a distractor
    assert dists[WINNER_WEIGHT][i] < np.median(dists[WINNER_WEIGHT])
    assert dists[DISTRACTOR_WEIGHT][i] > np.median(dists[DISTRACTOR_WEIGHT])
    pool = CohortPool(extra=dict(dists))
    draft = StrongestPair().make(ctxs[1], ctxs[1].n_days - 1, np.random.default_rng(0), pool)
    assert draft.correct.claim == {"pair": "stress->hrv"}


def test_datasheet_states_pair_kind_counts() -> None:
    from wearbench.bench._datasheet import render_datasheet

    stats = {
        "n_items": 5,
        "n_users": 2,
        "by_label": {},
        "by_type": {"strongest_pair": 5},
        "pair_kind": {"definitional": 2, "empirical": 3},
        "answer_positions": {},
        "drops": {},
        "null_fdr": {},
    }
    text = render_datasheet(stats, {"seed": 0, "cohort_hash": "h", "wearbench_version": "v"})
    line = "Pair questions by the winning pair's kind (scored separately): definitional 2, empirical 3."
    assert line in text
    assert "winning pair's kind" not in render_datasheet(
        {**stats, "pair_kind": {}}, {"seed": 0, "cohort_hash": "h", "wearbench_version": "v"}
    )


def test_tries_and_calibration_are_constructor_fields() -> None:
    from wearbench.questions.types.strongest_pair import DISTRACTOR_WEIGHT, WINNER_WEIGHT

    ctx = _ctx("u0", ("stress", "hrv"))
    with pytest.raises(Drop, match="no pair beats nine others"):  # no candidate set tried
        StrongestPair(max_tries=0).make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    ctxs = [_ctx("u0", ("stress", "hrv") if i % 2 else None, seed=i) for i in range(6)]
    uniform = StrongestPair(calibration_iters=0).cohort_distributions(ctxs)
    assert np.all(uniform[WINNER_WEIGHT] == 1.0)
    assert np.all(uniform[DISTRACTOR_WEIGHT] == 1.0)
    default = StrongestPair().cohort_distributions(ctxs)
    tight = StrongestPair(weight_bounds=(0.5, 2.0)).cohort_distributions(ctxs)
    # the often-winning stress->hrv sinks to the floor of the bounds as the intended winner
    assert default[WINNER_WEIGHT].min() == pytest.approx(1e-3)
    assert tight[WINNER_WEIGHT].min() == pytest.approx(0.5)
    for key in (WINNER_WEIGHT, DISTRACTOR_WEIGHT):
        assert np.all((tight[key] >= 0.5) & (tight[key] <= 2.0))


def test_calibration_fits_at_most_max_windows_of_the_first_users() -> None:
    from wearbench.questions.types.strongest_pair import WINNER_WEIGHT

    ctxs = [_ctx(f"u{i}", ("stress", "hrv") if i % 2 else None, seed=i) for i in range(6)]
    qt = StrongestPair()
    parts = [qt.cohort_summary([c]) for c in ctxs]
    n = sum(len(p) for p in parts)
    first = sum(len(p) for p in parts[:2])
    assert 0 < first < n
    capped = StrongestPair(calibration_max_windows=first).cohort_distributions(ctxs)
    assert np.array_equal(capped[WINNER_WEIGHT], qt.cohort_distributions(ctxs[:2])[WINNER_WEIGHT])
    assert np.array_equal(
        qt.cohort_distributions_from(parts)[WINNER_WEIGHT], qt.cohort_distributions(ctxs)[WINNER_WEIGHT]
    )
