"""Which of ten signal pairs is most strongly coupled over the 28-day window (data · cross · window).

Population-grounded. Ten candidate pairs are drawn at random from fixed menus; each is scored
by ``lagged_correlation(max_lag=3)`` (its best-lag ``r``) and ``argmax_pair(margin=0.15)``
picks the pair with the largest ``|r|``. The item is kept only when the winner passes every
gate (:func:`wearbench.grounding.strongest_gates`): it beats the runner-up by the margin
(outside the margin dead-band), its ``|r|`` passes the effect-size gate and dead-band with the
same sign in both halves, it stays the winner in ≥ 24 of 30 day-bootstrap resamples and under
every leave-one-day-out.

Shortcut audit: definitional pairs (steps ↔ active calories, exercise minutes ↔ METs,
exercise minutes ↔ exercise count, ...) are trivially strong, so a definitional pair is put
among the candidates only for a fixed :data:`DEFINITIONAL_SHARE` (5 %) of users, chosen by a
hash of the user id (one pair per window, and it then usually wins); the other users' windows
offer empirical pairs only. Deciding per user rather than per window keeps definitional items
a minority even though they pass the gates far more often than empirical ones. Items carry
``pair_kind`` (the winner's kind) so scores can be reported separately.

Pattern family: ``strongest:<x>-><y>`` of the winning pair; its null test gates the pair's
coupling (effect size, bootstrap, leave-one-day-out) on matched vs mismatched users.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from wearbench.grounding import (
    DEFINITIONAL_PAIRS,
    EMPIRICAL_PAIRS,
    MAX_LAG,
    MIN_MARGIN,
    Pair,
    coupling_null,
    pair_by_name,
    strongest_gates,
)
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

#: Share of users whose candidate sets include one definitional pair.
DEFINITIONAL_SHARE = 0.05
N_CANDIDATES = 10
MIN_COVERAGE = 0.7
#: Days between candidate window ends.
STEP_DAYS = 14


def definitional_user(user_id: str) -> bool:
    """Whether this user's candidate sets include a definitional pair (a fixed 5 % of users)."""
    bucket = int.from_bytes(hashlib.sha256(f"strongest_pair|{user_id}".encode()).digest()[:4], "little")
    return bucket % 1000 < DEFINITIONAL_SHARE * 1000


def _candidates(rng: np.random.Generator, with_def: bool) -> list[Pair]:
    n_emp = N_CANDIDATES - int(with_def)
    picks = [EMPIRICAL_PAIRS[int(i)] for i in rng.choice(len(EMPIRICAL_PAIRS), size=n_emp, replace=False)]
    if with_def:
        picks.append(DEFINITIONAL_PAIRS[int(rng.integers(len(DEFINITIONAL_PAIRS)))])
    return sorted(picks, key=lambda p: p.name)


_GATE_ORDER = (
    "effect_size",
    "r_dead_band",
    "split_half_sign",
    "margin",
    "margin_dead_band",
    "bootstrap",
    "lodo",
)


def _first_failed(checks: Mapping[str, bool]) -> str:
    return next((k for k in _GATE_ORDER if not checks.get(k, True)), "definition")


@question()
class StrongestPair(QuestionType):
    """Strongest lagged coupling among ten candidate signal pairs."""

    name = "strongest_pair"
    version = 1
    labels = Labels("data", "cross", "population", "window")
    max_per_user = 2

    def end_dates(self, ctx: UserContext) -> list[int]:
        """Window ends every 14 days back from the last day (windows overlap by half)."""
        return list(range(ctx.n_days - 1, self.min_history - 2, -STEP_DAYS))

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Score ten random menu pairs and ask which one is most strongly coupled."""
        pairs = _candidates(rng, definitional_user(ctx.user_id))
        spans = {m: ctx.span(m, end, self.window_days) for p in pairs for m in (p.x, p.y)}
        if min(np.isfinite(s).mean() for s in spans.values()) < MIN_COVERAGE:
            raise Drop("too few days present in the window")
        names = [p.name for p in pairs]
        x = np.stack([spans[p.x] for p in pairs])
        y = np.stack([spans[p.y] for p in pairs])
        winner, gates = strongest_gates(x, y, names, rng)
        if winner is None or not gates.passed:
            raise Drop(f"winner fails the {_first_failed(gates.checks)} gate")
        g = Graph(ctx, str(ctx.dates[end]))
        scores = {}
        for p in pairs:
            lc = g.call(
                "lagged_correlation",
                g.series(p.x, self.window_days),
                g.series(p.y, self.window_days),
                max_lag=MAX_LAG,
            )
            scores[p.name] = lc["best_r"]
        best = g.call("argmax_pair", scores, margin=MIN_MARGIN)
        g.output("winner", best["winner"])
        g.output("decisive", best["decisive"])
        if best.value.winner != winner or not best.value.decisive:
            raise Drop("primitive and gate kernel disagree")
        options = [Option(p.label(), {"pair": p.name}) for p in pairs]
        correct = next(o for o in options if o.claim["pair"] == winner)
        text = (
            f"Over the 28 days ending {g.end_date}, which of these signal pairs is most strongly coupled "
            f"in this user's data? (For each pair, the largest |Pearson r| between the first signal on "
            f"day t and the second on day t + lag, lags −{MAX_LAG} … +{MAX_LAG} days.)"
        )
        return Draft(
            text,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            tuple(dict.fromkeys(m for p in pairs for m in (p.x, p.y))),
            grounding_ref=f"strongest:{winner}",
            pair_kind=pair_by_name(winner).kind,
            gates=gates.to_dict(),
            variant=winner,
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed pair is the decisive winner of ``argmax_pair``."""
        return bool(evidence["decisive"] and claim["pair"] == evidence["winner"])

    def null_statistics(
        self, contexts: Sequence[UserContext], rng: np.random.Generator
    ) -> Mapping[str, Mapping[str, float]]:
        """Coupling gates of each menu pair on matched vs mismatched users (``strongest:x->y``)."""
        pairs = (*EMPIRICAL_PAIRS, *DEFINITIONAL_PAIRS)
        return coupling_null(
            contexts, pairs, "strongest", rng, window_days=self.window_days, lag_margin=False
        )
