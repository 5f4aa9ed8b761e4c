"""Lag and sign of a cross-signal coupling over the 28-day window (data · cross · window).

Population-grounded. For a pair from the empirical menu (:data:`EMPIRICAL_PAIRS`),
``lagged_correlation(x, y, max_lag=3)`` over the window gives the lag (−3 … +3 days; positive:
the first signal leads) and sign of the largest ``|r|``. A pair is asked about only when that
outcome passes every gate (:func:`wearbench.grounding.coupling_gates`): ``|r| ≥ 0.5`` outside
the dead-band with the same sign in both halves, the best lag beating the runner-up lag by the
margin, reproduction in ≥ 24 of 30 day-bootstrap resamples and survival of every
leave-one-day-out. Among the pairs that pass, one is picked at random, weighted by the inverse
of its lag's :data:`LAG_PRIOR` and its sign's :data:`SIGN_PRIOR` (the common lags 0 and ±1 and
negative couplings are picked less, flattening the answers). The question asks in either order
(a seeded coin): about ``y`` with ``x`` the lag is negated, so drivers leading their responses
do not pile the answers onto positive lags.

Options are five consecutive lags × both signs, all in one template (``Positive r at lag +1
days: ...``; lag 0 is ``+0``, not "same day"). The window of lags is placed so the correct lag's
position among the five is spread evenly over items (:func:`wearbench.grounding.spread_window`
with :data:`LAG_PRIOR`), so neither an extreme nor a middle lag number gives the answer away;
the opposite sign at the correct lag is always shown. Windows whose answer is the textbook
sign (:data:`USUAL_COUPLING`) are thinned (:attr:`CouplingLag.usual_keep`), the most at or next to the
usual lag, so that the usual and the opposite sign are about equally often the answer and
physiology alone (usual sign, usual lag or one day off) does not pick it. Pattern family:
``coupling:<x>-><y>``; its cross-user null test uses the same gates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.grounding import (
    EMPIRICAL_PAIRS,
    MAX_LAG,
    N_RESAMPLES,
    CouplingOutcome,
    Pair,
    bootstrap_weights,
    coupling_gates,
    coupling_null,
    coupling_pass_batch,
    effect_prefilter,
    spread_window,
)
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import keep_share
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question, table

MIN_COVERAGE = 0.7
#: Fewest days with both values for a lag's r to count (stated in the stem).
MIN_OVERLAP = 14
#: Days between candidate window ends.
STEP_DAYS = 14


#: Assumed frequency of lags −3 … +3 as the answer (a design prior for :func:`spread_window`).
LAG_PRIOR = (0.05, 0.08, 0.22, 0.30, 0.22, 0.08, 0.05)
#: Assumed frequency of each sign of r as the answer (negative couplings pass more often).
SIGN_PRIOR = {-1: 0.6, 1: 0.4}
#: Lags shown per item (each with both signs: ten options).
N_LAGS_SHOWN = 5

#: Driver → response: (usual lag in days, usual sign of r). Sleep on a date is the night ending
#: that morning, so a night acts on the same date (lag 0) and a day's behaviour on the next
#: night (lag 1); training lowers resting HR and HRV over the following days.
USUAL_COUPLING: Mapping[str, tuple[int, int]] = {
    "sleep_minutes->hrv": (0, 1),
    "sleep_minutes->stress": (0, -1),
    "sleep_minutes->steps": (0, 1),
    "sleep_minutes->resting_hr": (0, -1),
    "sleep_efficiency->resting_hr": (0, -1),
    "sleep_efficiency->hrv": (0, 1),
    "steps->resting_hr": (1, -1),
    "steps->stress": (0, -1),
    "exercise_minutes->resting_hr": (1, -1),
    "exercise_minutes->deep_sleep_pct": (1, 1),
    "exercise_minutes->sleep_minutes": (1, 1),
    "mets->hrv": (1, -1),
    "stress->sleep_efficiency": (1, -1),
    "stress->hrv": (0, -1),
    "stress->resting_hr": (0, 1),
    "bedtime_regularity->sleep_efficiency": (0, -1),
    "steps->active_kcal": (0, 1),
    "exercise_minutes->active_kcal": (0, 1),
    "exercise_minutes->mets": (0, 1),
    "exercise_minutes->exercise_count": (0, 1),
}


def usual_offset(pair: Pair, lag: int, sign: int) -> int | None:
    """The lag minus the pair's usual lag (driver first) when the sign is the usual one, else None."""
    usual = USUAL_COUPLING.get(pair.name)
    if usual is None or sign != usual[1]:
        return None
    return lag - usual[0]


def usual_keep(pair: Pair, lag: int, sign: int, keep: Mapping[int, float]) -> float:
    """Keep share of a window whose answer (driver-first lag, sign) is ``lag``, ``sign``.

    ``keep`` maps the offset from the usual lag (usual sign only) to a share
    (:attr:`CouplingLag.usual_keep`).
    """
    offset = usual_offset(pair, lag, sign)
    return 1.0 if offset is None else keep.get(offset, 1.0)


def _lag_text(lag: int, sign: int) -> str:
    """One template for every option: same length, two numbers, no lag-0 special case.

    The signals are named in the stem only, so an option's wording (numbers aside) does not
    carry the pair, whose typical sign a text-only model could otherwise learn.
    """
    word = "Positive" if sign > 0 else "Negative"
    return f"{word} r at lag {lag:+d} days: the first signal on day t, the second on day t{lag:+d}"


def _options(
    pair: Pair, first: str, lag: int, sign: int, rng: np.random.Generator
) -> tuple[Option, list[Option]]:
    """Five consecutive lags × both signs; the answer's lag sits at a spread position among them.

    ``first`` is the signal the question names first (``lag`` is the other signal's delay).
    """
    window = spread_window(lag + MAX_LAG, 2 * MAX_LAG + 1, N_LAGS_SHOWN, LAG_PRIOR, rng)
    combos = [(i - MAX_LAG, s) for i in window for s in (1, -1)]

    def make(lg: int, s: int) -> Option:
        claim = {"pair": pair.name, "first": first, "lag": lg, "sign": s}
        return Option(_lag_text(lg, s), claim)

    return make(lag, sign), [make(lg, s) for lg, s in combos if (lg, s) != (lag, sign)]


def _find(
    ctx: UserContext, end: int, window: int, keep: Mapping[int, float], rng: np.random.Generator
) -> tuple[Pair, CouplingOutcome]:
    spans = {m: ctx.span(m, end, window) for p in EMPIRICAL_PAIRS for m in (p.x, p.y)}
    covered = [
        p
        for p in EMPIRICAL_PAIRS
        if min(np.isfinite(spans[p.x]).mean(), np.isfinite(spans[p.y]).mean()) >= MIN_COVERAGE
    ]
    if not covered:
        raise Drop("too few days present in the window")
    x = np.stack([spans[p.x] for p in covered])
    y = np.stack([spans[p.y] for p in covered])
    if not effect_prefilter(x, y).any():
        raise Drop("no menu pair passes the effect-size gate")
    weights = bootstrap_weights(window, N_RESAMPLES, rng)
    passed = np.flatnonzero(coupling_pass_batch(x, y, weights, lag_margin=True))
    found = []
    for i in passed:
        pair = covered[int(i)]
        outcome = coupling_gates(spans[pair.x], spans[pair.y], weights, lag_margin=True)
        if outcome is not None and outcome.gates.passed:
            found.append((pair, outcome))
    if not found:
        raise Drop("no menu pair passes the robustness gates")
    # several pairs pass: prefer rarer lags and signs (inverse priors) and answers off the
    # textbook lag and sign (they are thinned less) so the answers spread
    w = np.array(
        [
            usual_keep(p, o.lag, o.sign, keep) / (LAG_PRIOR[o.lag + MAX_LAG] * SIGN_PRIOR[o.sign])
            for p, o in found
        ]
    )
    return found[int(rng.choice(len(found), p=w / w.sum()))]


@question()
@dataclass(frozen=True)
class CouplingLag(QuestionType):
    """Lag and sign of the strongest coupling of a signal pair in the window.

    Attributes:
        usual_keep: Share kept of the windows whose answer has the usual sign, by the answer's lag minus the
            usual lag (driver-to-response order; offsets not listed: 1). Planted and real couplings
            mostly follow the textbook (about 85% of raw answers have the usual sign, most of them
            within a day of the usual lag), so a model that knows only physiology would pick the usual
            sign and lag. Thinning usual-sign answers, the most near the usual lag, makes the usual and
            the opposite sign about equally often the answer and flattens the lags within the usual sign,
            so no textbook guess (usual sign at the usual lag, a day earlier or later) beats chance; the
            windows tried per user go up instead (``max_per_user`` is reached later).
    """

    usual_keep: Mapping[int, float] = table({0: 0.025, -1: 0.03, 1: 0.04, -2: 0.2, 2: 0.25, -3: 0.6, 3: 0.6})

    name = "coupling_lag"
    version = 4
    labels = Labels("data", "cross", "population", "window")
    end_step = STEP_DAYS
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Pick a gated pair and ask at which lag and sign it couples."""
        pair, outcome = _find(ctx, end, self.window_days, self.usual_keep, rng)
        keep_share(usual_keep(pair, outcome.lag, outcome.sign, self.usual_keep), rng)
        # ask in either order (a seeded coin): the lag of y after x is the lag of x after y, negated
        flip = bool(rng.random() < 0.5)
        first, second = (pair.y, pair.x) if flip else (pair.x, pair.y)
        lag = -outcome.lag if flip else outcome.lag
        g = Graph(ctx, str(ctx.dates[end]))
        lc = g.call(
            "lagged_correlation",
            g.series(first, self.window_days),
            g.series(second, self.window_days),
            max_lag=MAX_LAG,
            min_overlap=MIN_OVERLAP,
        )
        g.output("best_lag", lc["best_lag"])
        g.output("best_r", lc["best_r"])
        if lc.value.best_lag != lag or np.sign(lc.value.best_r) != outcome.sign:
            raise Drop("primitive and gate kernel disagree")
        correct, distractors = _options(pair, first, lag, outcome.sign, rng)
        x, y = first.replace("_", " "), second.replace("_", " ")
        text = (
            f"Over the 28 days ending {g.end_date}, at which lag and with which sign is this user's {x} "
            f"most strongly correlated with their {y}? (Pearson correlation of {x}, the first signal, on "
            f"day t with {y}, the second, on "
            f"day t + lag, for lags −{MAX_LAG} … +{MAX_LAG} days; a lag counts only with at least "
            f"{MIN_OVERLAP} days where both values are present; the largest |r| wins.)"
        )
        return Draft(
            text,
            correct,
            tuple(distractors),
            g,
            (first, second),
            grounding_ref=f"coupling:{pair.name}",
            pair_kind="empirical",
            gates=outcome.gates.to_dict(),
            variant=pair.name,
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed lag is the best lag and the claimed sign is the sign of its r."""
        lag, r = evidence["best_lag"], evidence["best_r"]
        if lag is None or r is None or r == 0:
            return False
        return bool(claim["lag"] == lag and claim["sign"] == (1 if r > 0 else -1))

    def null_statistics(
        self, contexts: Sequence[UserContext], rng: np.random.Generator
    ) -> Mapping[str, Mapping[str, float]]:
        """Coupling gates on matched vs mismatched users, per menu pair (``coupling:x->y``)."""
        return coupling_null(
            contexts, EMPIRICAL_PAIRS, "coupling", rng, window_days=self.window_days, lag_margin=True
        )
