"""Next-day effect of a personal low or high of one signal on another (data · cross · history).

Population-grounded. A condition from :data:`CONDITIONS` (e.g. a short-sleep night: sleep below
the user's own 20th percentile over the history shown) and a response (resting HR, HRV,
stress, ...) are chosen; ``conditional_mean_difference`` over the whole history (up to 500
days) gives the response's mean after condition days minus after other days, in SD units of
the response. Sleep on a date is the night ending that morning, so "after a short-sleep
night" reads the response on the same date (lag 0); day conditions (stress, steps) read the
next day (lag 1).

The answer is the direction × magnitude bin of the effect (bins in SD units,
:data:`wearbench.grounding.EFFECT_EDGES`; effects below 0.3 SD are dropped as no clear effect).
It is kept only when it passes every gate (:func:`wearbench.grounding.conditional_gates`):
dead-band around every bin edge, 30-resample day bootstrap (≥ 24), leave-one-day-out, and
stability of the label with the personal cut moved by ±5 percentiles. Options: both
directions × the five magnitude bins (opposite direction and wrong magnitudes). Pattern
family: ``conditional:<condition>-><response>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from wearbench.grounding import (
    EFFECT_EDGES,
    conditional_gates,
    conditional_label,
    conditional_pass_batch,
    family_null,
)
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import fmt_value
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import HISTORY_DAYS, CohortPool, Draft, Drop, Option, QuestionType, question

MIN_COVERAGE = 0.6


@dataclass(frozen=True)
class Condition:
    """A driver's personal low/high and the response read ``lag`` days later."""

    key: str
    driver: str
    side: Literal["below", "above"]
    quantile: float
    lag: int
    phrase: str
    responses: tuple[str, ...]


CONDITIONS: tuple[Condition, ...] = (
    Condition(
        "short_sleep", "sleep_minutes", "below", 0.2, 0,
        "after a short-sleep night (sleep minutes at or below the user's own 20th percentile)",
        ("resting_hr", "hrv", "stress"),
    ),
    Condition(
        "poor_sleep_efficiency", "sleep_efficiency", "below", 0.2, 0,
        "after a night of poor sleep efficiency (at or below the user's own 20th percentile)",
        ("resting_hr", "hrv", "stress"),
    ),
    Condition(
        "high_stress", "stress", "above", 0.8, 1,
        "on the day after a high-stress day (stress at or above the user's own 80th percentile)",
        ("sleep_efficiency", "hrv", "resting_hr", "sleep_minutes"),
    ),
    Condition(
        "high_activity", "steps", "above", 0.8, 1,
        "on the day after a high-activity day (steps at or above the user's own 80th percentile)",
        ("resting_hr", "stress", "sleep_minutes"),
    ),
)  # fmt: skip
_MENU = tuple((c, r) for c in CONDITIONS for r in c.responses)


def _options(cond: Condition, response: str, sd: float) -> list[Option]:
    edges = (*EFFECT_EDGES, math.inf)
    out = []
    for direction in ("higher", "lower"):
        for k in range(len(EFFECT_EDGES)):
            lo, hi = edges[k], edges[k + 1]
            size = f"more than {lo:g} SD" if math.isinf(hi) else f"{lo:g}–{hi:g} SD"
            approx = (
                f"over {fmt_value(lo * sd, response)}"
                if math.isinf(hi)
                else f"{fmt_value(lo * sd, response)} to {fmt_value(hi * sd, response)}"
            )
            text = f"{direction.capitalize()} than on other days, by {size} (≈ {approx})"
            claim = {"family": f"{cond.key}->{response}", "direction": direction, "bin": k}
            out.append(Option(text, claim))
    return out


def _find(ctx: UserContext, end: int, days: int, rng: np.random.Generator) -> tuple[Condition, str, Any]:
    for i in rng.permutation(len(_MENU)):
        cond, response = _MENU[int(i)]
        x, y = ctx.span(cond.driver, end, days), ctx.span(response, end, days)
        if min(np.isfinite(x).mean(), np.isfinite(y).mean()) < MIN_COVERAGE:
            continue
        gates = conditional_gates(x, y, rng, quantile=cond.quantile, side=cond.side, lag=cond.lag)
        if gates.passed:
            return cond, response, gates
    raise Drop("no condition and response pass the population gates")


@question()
class ConditionalEffect(QuestionType):
    """Direction and size of a response's shift after a personal low or high of a driver."""

    name = "conditional_effect"
    version = 1
    labels = Labels("data", "cross", "population", "history")
    min_history = 120
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Find a gated condition → response effect over the history and ask for its size."""
        days = min(HISTORY_DAYS, end + 1)
        cond, response, gates = _find(ctx, end, days, rng)
        g = Graph(ctx, str(ctx.dates[end]))
        ce = g.call(
            "conditional_mean_difference",
            g.series(cond.driver, days),
            g.series(response, days),
            quantile=cond.quantile,
            side=cond.side,
            lag=cond.lag,
        )
        g.output("effect", ce["effect"])
        label = conditional_label(float(ce.value.effect))
        if label is None or label != conditional_label(float(gates.stats["effect"])):
            raise Drop("primitive and gate kernel disagree")
        options = _options(cond, response, float(ce.value.sd))
        correct = next(o for o in options if (o.claim["direction"], o.claim["bin"]) == label)
        text = (
            f"Over the {days} days ending {g.end_date}, how does this user's {response.replace('_', ' ')} "
            f"{cond.phrase} compare with the other days? (Difference of means, in SDs of their daily "
            f"{response.replace('_', ' ')}; sleep on a date is the night ending that morning.)"
        )
        return Draft(
            text,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            (cond.driver, response),
            grounding_ref=f"conditional:{cond.key}->{response}",
            gates=gates.to_dict(),
            variant=f"{cond.key}->{response}",
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """Direction and magnitude bin of the effect equal the claim's."""
        effect = evidence["effect"]
        if effect is None:
            return False
        return conditional_label(float(effect)) == (claim["direction"], claim["bin"])

    def null_statistics(
        self, contexts: Sequence[UserContext], rng: np.random.Generator
    ) -> Mapping[str, Mapping[str, float]]:
        """Gated effect on matched vs mismatched users' latest histories, per condition → response."""
        if not contexts:
            return {}
        days = min(HISTORY_DAYS, min(c.n_days for c in contexts))
        out: dict[str, dict[str, float]] = {}
        for cond, response in _MENU:

            def stat(x: np.ndarray, y: np.ndarray, c: Condition = cond) -> np.ndarray:
                return conditional_pass_batch(x, y, rng, quantile=c.quantile, side=c.side, lag=c.lag)

            res = family_null(
                stat, contexts, cond.driver, response, rng, days=days, step=56, min_end=days, max_windows=2
            )
            if res is not None:
                out[f"conditional:{cond.key}->{response}"] = res.to_dict()
        return out
