"""Lag and sign of a cross-signal coupling over the 28-day window (data · cross · window).

Population-grounded. For a pair from the empirical menu (:data:`EMPIRICAL_PAIRS`),
``lagged_correlation(x, y, max_lag=3)`` over the window gives the lag (−3 … +3 days; positive:
the first signal leads) and sign of the largest ``|r|``. A pair is asked about only when that
outcome passes every gate (:func:`wearbench.grounding.coupling_gates`): ``|r| ≥ 0.5`` outside
the dead-band with the same sign in both halves, the best lag beating the runner-up lag by the
margin, reproduction in ≥ 24 of 30 day-bootstrap resamples and survival of every
leave-one-day-out. Among the pairs that pass, one is picked at random.

Options are lag × sign combinations: the opposite sign at the same lag, the same sign at the
adjacent lags, and six more drawn at random from the remaining combinations. Pattern family:
``coupling:<x>-><y>``; its cross-user null test uses the same gates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

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
)
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

MIN_COVERAGE = 0.7
#: Days between candidate window ends.
STEP_DAYS = 14


def _lag_text(pair: Pair, lag: int, sign: int) -> str:
    x, y = pair.x.replace("_", " "), pair.y.replace("_", " ")
    direction = "positive (higher goes with higher)" if sign > 0 else "negative (higher goes with lower)"
    if lag == 0:
        when = "same day"
    elif lag > 0:
        when = f"{x} leads {y} by {lag} day{'s' if lag > 1 else ''}"
    else:
        when = f"{y} leads {x} by {-lag} day{'s' if lag < -1 else ''}"
    return f"{when}, {direction}"


def _options(pair: Pair, lag: int, sign: int, rng: np.random.Generator) -> tuple[Option, list[Option]]:
    combos = [(lg, s) for lg in range(-MAX_LAG, MAX_LAG + 1) for s in (1, -1)]
    near = [(lag, -sign), (lag - 1, sign), (lag + 1, sign)]
    first = [c for c in near if c in combos]
    rest = [c for c in combos if c not in first and c != (lag, sign)]
    picks = [rest[int(i)] for i in rng.choice(len(rest), size=9 - len(first), replace=False)]

    def make(lg: int, s: int) -> Option:
        return Option(_lag_text(pair, lg, s), {"pair": pair.name, "lag": lg, "sign": s})

    return make(lag, sign), [make(lg, s) for lg, s in (*first, *picks)]


def _find(ctx: UserContext, end: int, window: int, rng: np.random.Generator) -> tuple[Pair, CouplingOutcome]:
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
    for i in rng.permutation(passed):
        pair = covered[int(i)]
        outcome = coupling_gates(spans[pair.x], spans[pair.y], weights, lag_margin=True)
        if outcome is not None and outcome.gates.passed:
            return pair, outcome
    raise Drop("no menu pair passes the robustness gates")


@question()
class CouplingLag(QuestionType):
    """Lag and sign of the strongest coupling of a signal pair in the window."""

    name = "coupling_lag"
    version = 1
    labels = Labels("data", "cross", "population", "window")
    max_per_user = 2

    def end_dates(self, ctx: UserContext) -> list[int]:
        """Window ends every 14 days back from the last day (windows overlap by half)."""
        return list(range(ctx.n_days - 1, self.min_history - 2, -STEP_DAYS))

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Pick a gated pair and ask at which lag and sign it couples."""
        pair, outcome = _find(ctx, end, self.window_days, rng)
        g = Graph(ctx, str(ctx.dates[end]))
        lc = g.call(
            "lagged_correlation",
            g.series(pair.x, self.window_days),
            g.series(pair.y, self.window_days),
            max_lag=MAX_LAG,
        )
        g.output("best_lag", lc["best_lag"])
        g.output("best_r", lc["best_r"])
        if lc.value.best_lag != outcome.lag or np.sign(lc.value.best_r) != outcome.sign:
            raise Drop("primitive and gate kernel disagree")
        correct, distractors = _options(pair, outcome.lag, outcome.sign, rng)
        x, y = pair.x.replace("_", " "), pair.y.replace("_", " ")
        text = (
            f"Over the 28 days ending {g.end_date}, at which lag and with which sign is this user's {x} "
            f"most strongly correlated with their {y}? (Pearson correlation of {x} on day t with {y} on "
            f"day t + lag, for lags −{MAX_LAG} … +{MAX_LAG} days; the largest |r| wins.)"
        )
        return Draft(
            text,
            correct,
            tuple(distractors),
            g,
            (pair.x, pair.y),
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
