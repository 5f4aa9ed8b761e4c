import numpy as np
import pytest

from wearbench.cohort import METRIC_NAMES
from wearbench.questions import CohortPool, Drop, UserContext, question_type
from wearbench.questions.types.strongest_pair import _candidates, definitional_user

StrongestPair = question_type("strongest_pair")


def _user_id(definitional: bool) -> str:
    return next(f"u{i}" for i in range(1000) if definitional_user(f"u{i}") == definitional)


def _ctx(user_id: str, plant: tuple[str, str] | None, n: int = 60, seed: int = 0) -> UserContext:
    rng = np.random.default_rng(seed)
    metrics = {m: rng.normal(size=n) * 5 + 50 for m in METRIC_NAMES}
    if plant:
        x, y = plant
        metrics[y] = metrics[x] + rng.normal(size=n) * 1.0
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    return UserContext(user_id, dates, metrics, {"age": 40, "sex": "F", "bmi": 24, "ethnicity": "x"}, (), {})


def _seed_with(pair: str, definitional: bool) -> int:
    return next(
        s for s in range(500) if pair in {p.name for p in _candidates(np.random.default_rng(s), definitional)}
    )


def test_planted_pair_wins() -> None:
    uid = _user_id(False)
    seed = _seed_with("stress->hrv", False)
    ctx = _ctx(uid, ("stress", "hrv"))
    qt = StrongestPair()
    draft = qt.make(ctx, ctx.n_days - 1, np.random.default_rng(seed), CohortPool())
    assert draft.correct.claim == {"pair": "stress->hrv"}
    ev = draft.graph.evidence()
    assert [qt.check(o.claim, ev) for o in (draft.correct, *draft.distractors)] == [True] + [False] * 9
    assert draft.pair_kind == "empirical"
    assert draft.grounding_ref == "strongest:stress->hrv"
    assert draft.gates is not None
    assert draft.gates["checks"]["margin"]


def test_definitional_pairs_only_for_a_minority_of_users() -> None:
    share = np.mean([definitional_user(f"user{i}") for i in range(2000)])
    assert 0.03 < share < 0.07
    for s in range(20):
        kinds = [p.kind for p in _candidates(np.random.default_rng(s), False)]
        assert kinds == ["empirical"] * 10
        assert [p.kind for p in _candidates(np.random.default_rng(s), True)].count("definitional") == 1


def test_no_decisive_winner_is_dropped() -> None:
    uid = _user_id(False)
    ctx = _ctx(uid, None, seed=2)
    with pytest.raises(Drop, match="gate"):
        StrongestPair().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_check_on_hand_made_evidence() -> None:
    check = StrongestPair.check
    assert check({"pair": "a->b"}, {"winner": "a->b", "decisive": True})
    assert not check({"pair": "a->b"}, {"winner": "a->b", "decisive": False})
    assert not check({"pair": "c->d"}, {"winner": "a->b", "decisive": True})
