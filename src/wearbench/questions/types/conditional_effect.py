"""Next-day effect of a personal low or high of one signal on another (data · cross · history).

Population-grounded. A condition from :data:`CONDITIONS` (e.g. a short-sleep night: sleep below
the user's own 20th percentile over the history shown) and a response (resting HR, HRV,
stress, ...) are chosen; ``conditional_mean_difference`` over the whole history (up to 500
days) gives the response's mean after condition days minus after other days, in SD units of
the response. Sleep on a date is the night ending that morning, so "after a short-sleep
night" reads the response on the same date (lag 0); day conditions (stress, steps) read the
next day (lag 1).

The answer is the direction × magnitude bin of the effect (bins in SD units,
:data:`wearbench.grounding.EFFECT_EDGES`; effects below 0.3 SD are dropped as no clear effect,
effects of 3 SD or more as implausible).
It is kept only when it passes every gate (:func:`wearbench.grounding.conditional_gates`):
dead-band around every bin edge, 30-resample day bootstrap (≥ 24), leave-one-day-out, and
stability of the label with the personal cut moved by ±5 percentiles. Options: ten consecutive
classes of the signed scale :data:`SCALE` (seven lower bins, largest first, then seven higher
bins), all in one template (``-0.9 to -0.6 SD: the response decreased after such days``; the
response is named in the stem only, so an option's wording does not carry it). The window is
placed so the answer's rank among the ten is spread evenly over items
(:func:`wearbench.grounding.spread_window` with :data:`SCALE_PRIOR`), so no option is guessable
from where its number falls. When several menu entries pass, the rarer direction ("higher") is
preferred with probability :data:`HIGHER_PREFERENCE`, flattening the answers.
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
    spread_window,
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


#: The signed scale of classes shown: lower bins (largest first), then higher bins.
SCALE: tuple[tuple[str, int], ...] = (
    *(("lower", k) for k in reversed(range(len(EFFECT_EDGES) - 1))),
    *(("higher", k) for k in range(len(EFFECT_EDGES) - 1)),
)
#: Assumed frequency of each class of :data:`SCALE` as the answer (a design prior for
#: :func:`spread_window`: effects of 0.3–1.3 SD dominate).
SCALE_PRIOR: tuple[float, ...] = (
    0.002, 0.002, 0.002, 0.01, 0.18, 0.21, 0.18, 0.17, 0.12, 0.15, 0.01, 0.002, 0.002, 0.002
)  # fmt: skip
N_SHOWN = 10
#: Chance that an item prefers a "higher" effect when several menu entries pass (lower
#: effects pass more often; preferring the rarer direction flattens the answers).
HIGHER_PREFERENCE = 0.6
_WORD = {"higher": "increased", "lower": "decreased"}


def _interval(direction: str, k: int) -> tuple[float, float]:
    lo, hi = EFFECT_EDGES[k], EFFECT_EDGES[k + 1]
    return (lo, hi) if direction == "higher" else (-hi, -lo)


def _options(
    cond: Condition, response: str, label: tuple[str, int], rng: np.random.Generator
) -> list[Option]:
    """Ten consecutive classes of :data:`SCALE` (one template), the answer at a spread position."""
    window = spread_window(SCALE.index(label), len(SCALE), N_SHOWN, SCALE_PRIOR, rng)
    out = []
    for direction, k in (SCALE[i] for i in window):
        lo, hi = _interval(direction, k)
        text = f"{lo:+.1f} to {hi:+.1f} SD: the response {_WORD[direction]} after such days"
        claim = {"family": f"{cond.key}->{response}", "direction": direction, "bin": k}
        out.append(Option(text, claim))
    return out


def _find(ctx: UserContext, end: int, days: int, rng: np.random.Generator) -> tuple[Condition, str, Any]:
    """A gated condition → response, preferring a drawn direction (the rarer one more often)."""
    prefer = "higher" if rng.random() < HIGHER_PREFERENCE else "lower"
    fallback = None
    for i in rng.permutation(len(_MENU)):
        cond, response = _MENU[int(i)]
        x, y = ctx.span(cond.driver, end, days), ctx.span(response, end, days)
        if min(np.isfinite(x).mean(), np.isfinite(y).mean()) < MIN_COVERAGE:
            continue
        gates = conditional_gates(x, y, rng, quantile=cond.quantile, side=cond.side, lag=cond.lag)
        if gates.passed:
            if (gates.stats["effect"] > 0) == (prefer == "higher"):
                return cond, response, gates
            fallback = fallback or (cond, response, gates)
    if fallback is None:
        raise Drop("no condition and response pass the population gates")
    return fallback


@question()
class ConditionalEffect(QuestionType):
    """Direction and size of a response's shift after a personal low or high of a driver."""

    name = "conditional_effect"
    version = 2
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
        options = _options(cond, response, label, rng)
        correct = next(o for o in options if (o.claim["direction"], o.claim["bin"]) == label)
        name = response.replace("_", " ")
        text = (
            f"Over the {days} days ending {g.end_date}, how does this user's {name} (the response) "
            f"{cond.phrase} compare with the other days? (Mean after such days minus mean after the "
            f"other days, in SDs of their daily {name}; 1 SD ≈ {fmt_value(float(ce.value.sd), response)}; "
            f"sleep on a date is the night ending that morning.)"
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
        if effect is None or not math.isfinite(float(effect)):
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
