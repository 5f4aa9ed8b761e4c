import numpy as np
import pytest

from wearbench.cohort import METRIC_NAMES
from wearbench.grounding import Pair
from wearbench.questions import CohortPool, Drop, UserContext
from wearbench.questions.types import coupling_lag
from wearbench.questions.types.coupling_lag import CouplingLag


def test_usual_keep_thins_the_usual_sign_most_near_the_textbook_lag() -> None:
    keep = CouplingLag().usual_keep
    pair = Pair("sleep_minutes", "hrv")  # textbook: positive, same day (lag 0)
    assert coupling_lag.usual_keep(pair, 0, 1, keep) == 0.025
    assert coupling_lag.usual_keep(pair, -1, 1, keep) == 0.03
    assert coupling_lag.usual_keep(pair, 1, 1, keep) == 0.04
    assert coupling_lag.usual_keep(pair, 2, 1, keep) == 0.25
    assert coupling_lag.usual_keep(pair, -3, 1, keep) == 0.6
    assert coupling_lag.usual_keep(pair, 0, -1, keep) == 1.0  # the opposite sign: not thinned
    assert coupling_lag.usual_keep(pair, 3, -1, keep) == 1.0
    assert coupling_lag.usual_keep(Pair("stress", "steps"), 0, 1, keep) == 1.0  # no textbook entry
    # steps -> resting HR: usual lag +1 (driver first), negative; lag 0 is one day early
    assert coupling_lag.usual_keep(Pair("steps", "resting_hr"), 0, -1, keep) == 0.03
    assert coupling_lag.usual_keep(Pair("steps", "resting_hr"), 3, -1, keep) == 0.25


def test_a_textbook_answer_is_kept_at_its_share() -> None:
    qt = CouplingLag(usual_keep={0: 0.2})  # a share 40 draws can measure
    ctx = _ctx(plant=("sleep_minutes", "hrv", 0, 0.9), seed=3)
    kept, reasons = 0, set()
    for seed in range(40):
        try:
            qt.make(ctx, ctx.n_days - 1, np.random.default_rng(seed), CohortPool())
            kept += 1
        except Drop as e:
            reasons.add(str(e))
    assert reasons == {"answer class thinned for balance"}
    assert 2 <= kept <= 16  # Binomial(40, 0.2): mean 8, P(outside 2..16) < 0.01


def _ctx(n: int = 60, seed: int = 0, plant: tuple[str, str, int, float] | None = None) -> UserContext:
    rng = np.random.default_rng(seed)
    metrics = {m: rng.normal(size=n) * 5 + 50 for m in METRIC_NAMES}
    if plant:
        x, y, lag, beta = plant
        metrics[y] = 50 + 5 * (
            beta * np.roll(metrics[x] - 50, lag) / 5 + np.sqrt(1 - beta**2) * rng.normal(size=n)
        )
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    return UserContext("u1", dates, metrics, {"age": 40, "sex": "F", "bmi": 24, "ethnicity": "x"}, (), {})


def _holds(draft, qt) -> list[bool]:  # type: ignore[no-untyped-def]
    ev = draft.graph.evidence()
    return [qt.check(o.claim, ev) for o in (draft.correct, *draft.distractors)]


@pytest.mark.parametrize(("lag", "beta"), [(1, 0.95), (-2, -0.95), (0, 0.9)])
def test_planted_lag_and_sign(lag: int, beta: float) -> None:
    ctx = _ctx(plant=("sleep_minutes", "hrv", lag, beta), seed=abs(lag) + 3)
    qt = CouplingLag(usual_keep={})  # no thinning of the textbook answer here
    draft = qt.make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    first = draft.correct.claim["first"]
    asked = lag if first == "sleep_minutes" else -lag  # asked about hrv with sleep: lag negated
    assert first in ("sleep_minutes", "hrv")
    assert draft.correct.claim == {
        "pair": "sleep_minutes->hrv",
        "first": first,
        "lag": asked,
        "sign": int(np.sign(beta)),
    }
    assert _holds(draft, qt) == [True] + [False] * 9
    texts = [o.text for o in (draft.correct, *draft.distractors)]
    assert len(set(texts)) == 10
    assert len({len(t) for t in texts}) == 1  # one template, lag 0 written "+0"
    assert {o.claim["sign"] for o in draft.distractors if o.claim["lag"] == draft.correct.claim["lag"]} == {
        -draft.correct.claim["sign"]
    }
    assert draft.grounding_ref == "coupling:sleep_minutes->hrv"
    assert draft.pair_kind == "empirical"
    assert draft.gates is not None
    assert draft.gates["passed"]


def test_deterministic_under_seed() -> None:
    ctx = _ctx(plant=("stress", "hrv", 1, 0.95), seed=9)  # the opposite sign: not thinned
    a = CouplingLag().make(ctx, ctx.n_days - 1, np.random.default_rng(4), CohortPool())
    b = CouplingLag().make(ctx, ctx.n_days - 1, np.random.default_rng(4), CohortPool())
    assert a.correct == b.correct
    assert a.distractors == b.distractors
    assert a.gates == b.gates


def test_noise_is_dropped() -> None:
    ctx = _ctx(seed=1)
    with pytest.raises(Drop):
        CouplingLag().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_missing_data_is_dropped() -> None:
    ctx = _ctx(plant=("sleep_minutes", "hrv", 1, 0.95))
    for m in ctx.metrics.values():
        m[-20:] = np.nan
    with pytest.raises(Drop, match="too few days"):
        CouplingLag().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_check_on_hand_made_evidence() -> None:
    check = CouplingLag.check
    assert check({"lag": 2, "sign": -1}, {"best_lag": 2, "best_r": -0.7})
    assert not check({"lag": 2, "sign": 1}, {"best_lag": 2, "best_r": -0.7})
    assert not check({"lag": 1, "sign": -1}, {"best_lag": 2, "best_r": -0.7})
    assert not check({"lag": 0, "sign": 1}, {"best_lag": None, "best_r": None})
