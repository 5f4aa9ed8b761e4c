"""Effects of personal lows or highs of one signal on another, as readings (data · cross · history).

Population-grounded. A menu entry (*family*) is a condition from :data:`CONDITIONS` (e.g. a
short-sleep night: sleep below the user's own 20th percentile over the history shown) and a
response (resting HR, HRV, stress, ...); ``conditional_mean_difference`` over the whole history
(up to 500 days) gives the response's mean after condition days minus after other days, in SD
units of the response. Sleep on a date is the night ending that morning, so "after a
short-sleep night" reads the response on the same date (lag 0); day conditions (stress, steps)
read the next day (lag 1). Every condition is defined in the stem.

A *reading* is a family with a direction × magnitude class of its effect (bins in SD units,
:data:`wearbench.grounding.EFFECT_EDGES`; below 0.3 SD is no clear effect, 3 SD or more is
implausible), in one template (``After short-sleep nights, resting HR: +0.3 to +0.6 SD
(higher)``). The answer is the reading of one family that passes every gate
(:func:`wearbench.grounding.conditional_gates`: dead-band around every bin edge, 30-resample
day bootstrap (≥ 24), leave-one-day-out, stability with the personal cut moved by ±5
percentiles); among the families that pass, rarer readings are preferred (weight 1 /
``class_prior``). The nine distractors are readings of any covered family (the answer's
included) that its effect contradicts even when moved by the dead-band, drawn with weight
``class_prior`` of their class: real effects nearly always go the textbook way
(:data:`USUAL_DIRECTION`) at 0.3–1.3 SD, so those readings are also the commonest distractors
and each is right about one time in ten it is shown, while readings against the textbook
(implausible) appear about as often as they are answers. A model that knows only the usual
direction and size of each response then has several equally plausible options and no way to
tell which family is the measured one. Evidence: every shown family's effect
(``effect:<condition>-><response>``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.grounding import (
    EFFECT_DEAD_BAND,
    EFFECT_EDGES,
    conditional_gates,
    conditional_label,
    conditional_pass_batch,
    conditional_prefilter,
    family_null,
)
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import weighted_sample
from wearbench.questions._qtype import (
    HISTORY_DAYS,
    CohortPool,
    Draft,
    Drop,
    Option,
    QuestionType,
    question,
    table,
)


@dataclass(frozen=True)
class Condition:
    """A driver's personal low/high and the response read ``lag`` days later."""

    key: str
    driver: str
    side: Literal["below", "above"]
    quantile: float
    lag: int
    responses: tuple[str, ...]


CONDITIONS: tuple[Condition, ...] = (
    Condition(
        "short_sleep", "sleep_minutes", "below", 0.2, 0,
        ("resting_hr", "hrv", "stress"),
    ),
    Condition(
        "poor_sleep_efficiency", "sleep_efficiency", "below", 0.2, 0,
        ("resting_hr", "hrv", "stress"),
    ),
    Condition(
        "high_stress", "stress", "above", 0.8, 1,
        ("sleep_efficiency", "hrv", "resting_hr", "sleep_minutes"),
    ),
    Condition(
        "high_activity", "steps", "above", 0.8, 1,
        ("resting_hr", "stress", "sleep_minutes"),
    ),
)  # fmt: skip
_MENU = tuple((c, r) for c in CONDITIONS for r in c.responses)
_BY_KEY = {c.key: c for c in CONDITIONS}

#: Condition → response: the textbook direction of the response after such days (a design
#: table for the distractor weights; the knowledge-prior baseline holds the same knowledge).
USUAL_DIRECTION: Mapping[str, str] = {
    "short_sleep->resting_hr": "higher",
    "short_sleep->hrv": "lower",
    "short_sleep->stress": "higher",
    "poor_sleep_efficiency->resting_hr": "higher",
    "poor_sleep_efficiency->hrv": "lower",
    "poor_sleep_efficiency->stress": "higher",
    "high_stress->sleep_efficiency": "lower",
    "high_stress->hrv": "lower",
    "high_stress->resting_hr": "higher",
    "high_stress->sleep_minutes": "lower",
    "high_activity->resting_hr": "lower",
    "high_activity->stress": "lower",
    "high_activity->sleep_minutes": "higher",
}
_N_BINS = len(EFFECT_EDGES) - 1
#: A class prior: by usual direction or not, the assumed answer frequency of each magnitude bin.
ClassPrior = Mapping[bool, tuple[float, ...]]
N_OPTIONS = 10
_SHORT = {
    "short_sleep": "After short-sleep nights",
    "poor_sleep_efficiency": "After poor-efficiency nights",
    "high_stress": "After high-stress days",
    "high_activity": "After high-activity days",
}
_RESPONSE = {
    "resting_hr": "resting HR",
    "hrv": "HRV",
    "stress": "stress",
    "sleep_minutes": "sleep minutes",
    "sleep_efficiency": "sleep efficiency",
}


def _interval(direction: str, k: int) -> tuple[float, float]:
    lo, hi = EFFECT_EDGES[k], EFFECT_EDGES[k + 1]
    return (lo, hi) if direction == "higher" else (-hi, -lo)


def class_weight(prior: ClassPrior, family: str, direction: str, k: int) -> float:
    """``prior`` of a reading (usual direction or not, magnitude bin ``k``)."""
    return prior[USUAL_DIRECTION.get(family) == direction][k]


def reading(family: str, direction: str, k: int) -> Option:
    """One reading of one family in the shared template."""
    cond, response = family.split("->")
    lo, hi = _interval(direction, k)
    text = f"{_SHORT[cond]}, {_RESPONSE[response]}: {lo:+.1f} to {hi:+.1f} SD ({direction})"
    return Option(text, {"family": family, "direction": direction, "bin": k})


def clearly_false(effect: float, direction: str, k: int, band: float = EFFECT_DEAD_BAND) -> bool:
    """The reading is wrong for ``effect`` even when it moves by ``band`` SD (NaN: never false)."""
    if not math.isfinite(effect):
        return False
    return all(conditional_label(effect + d) != (direction, k) for d in (-band, 0.0, band))


def distractor_pool(
    effects: Mapping[str, float], answer: tuple[str, str, int], band: float = EFFECT_DEAD_BAND
) -> list[tuple[str, str, int]]:
    """Every reading of a covered family that its effect clearly contradicts (not the answer)."""
    return [
        (family, direction, k)
        for family, effect in sorted(effects.items())
        for direction in ("higher", "lower")
        for k in range(_N_BINS)
        if (family, direction, k) != answer and clearly_false(effect, direction, k, band)
    ]


def _effects(ctx: UserContext, end: int, days: int, min_coverage: float) -> dict[str, float]:
    """Effect (SD) of every menu family with enough data (NaN where undefined)."""
    out = {}
    for cond, response in _MENU:
        x, y = ctx.span(cond.driver, end, days), ctx.span(response, end, days)
        if min(np.isfinite(x).mean(), np.isfinite(y).mean()) < min_coverage:
            continue
        eff, _ = conditional_prefilter(x, y, quantile=cond.quantile, side=cond.side, lag=cond.lag)
        out[f"{cond.key}->{response}"] = float(eff)
    return out


def _find(
    ctx: UserContext,
    end: int,
    days: int,
    covered: Sequence[str],
    prior: ClassPrior,
    rng: np.random.Generator,
) -> tuple[Condition, str, Any]:
    """A gated family among ``covered``, rarer readings preferred (weight 1 / class prior)."""
    found = []
    for family in covered:
        key, response = family.split("->")
        cond = _BY_KEY[key]
        x, y = ctx.span(cond.driver, end, days), ctx.span(response, end, days)
        gates = conditional_gates(x, y, rng, quantile=cond.quantile, side=cond.side, lag=cond.lag)
        label = conditional_label(float(gates.stats["effect"])) if gates.passed else None
        if label is not None:
            found.append((cond, response, gates, 1.0 / class_weight(prior, family, *label)))
    if not found:
        raise Drop("no condition and response pass the population gates")
    w = np.array([f[3] for f in found])
    cond, response, gates, _ = found[int(rng.choice(len(found), p=w / w.sum()))]
    return cond, response, gates


def _definitions() -> str:
    parts = []
    for c in CONDITIONS:
        where = "below" if c.side == "below" else "above"
        read = "the same date" if c.lag == 0 else "the next day"
        name = c.driver.replace("_", " ")
        parts.append(
            f"{_SHORT[c.key].removeprefix('After ').lower()}: {name} at or {where} the user's own "
            f"{round(c.quantile * 100)}th percentile over these days, response read on {read}"
        )
    return "; ".join(parts)


@question()
@dataclass(frozen=True)
class ConditionalEffect(QuestionType):
    """Which reading (family, direction and size) of responses after personal lows/highs holds.

    Attributes:
        class_prior: Assumed frequency of each reading as the answer, by whether its direction is
            the family's usual one (:data:`USUAL_DIRECTION`) and by magnitude bin (a design prior,
            measured on the default synthetic cohort: gated effects go the usual way at 0.3–1.3 SD).
            Distractors are drawn with this weight and answers preferred with its inverse, so each
            reading is right about one time in ten shown.
        min_coverage: Least share of days with a value, in both the driver and the response, for a
            family to be covered (offered as answer or distractor).
        dead_band: Distractor dead-band (SD): a reading is a distractor only if the effect moved by
            this much either way still contradicts it.
        null_step: Days between the windows of the cross-user null test.
        null_windows: Latest windows per user the null test scores.
    """

    class_prior: Mapping[bool, tuple[float, ...]] = table(
        {
            True: (0.36, 0.28, 0.36, 0.01, 0.003, 0.002, 0.002),
            False: (0.02, 0.005, 0.003, 0.001, 0.001, 0.001, 0.001),
        }
    )
    min_coverage: float = 0.6
    dead_band: float = EFFECT_DEAD_BAND
    null_step: int = 56
    null_windows: int = 2

    name = "conditional_effect"
    version = 3
    labels = Labels("data", "cross", "population", "history")
    min_history = 120
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Find a gated family over the history; ask which of ten readings of families is right."""
        days = min(HISTORY_DAYS, end + 1)
        effects = _effects(ctx, end, days, self.min_coverage)
        cond, response, gates = _find(ctx, end, days, sorted(effects), self.class_prior, rng)
        family = f"{cond.key}->{response}"
        label = conditional_label(float(gates.stats["effect"]))
        if label is None:  # _find keeps labelled effects only
            raise Drop("primitive and gate kernel disagree")
        answer = (family, *label)
        pool_opts = distractor_pool(effects, answer, self.dead_band)
        if len(pool_opts) < N_OPTIONS - 1:
            raise Drop("too few families covered for distractors")
        weights = [class_weight(self.class_prior, *o) for o in pool_opts]
        chosen = weighted_sample(pool_opts, weights, N_OPTIONS - 1, rng)
        g = Graph(ctx, str(ctx.dates[end]))
        for fam in sorted({family, *(o[0] for o in chosen)}):
            key, resp = fam.split("->")
            c = _BY_KEY[key]
            ce = g.call(
                "conditional_mean_difference",
                g.series(c.driver, days),
                g.series(resp, days),
                quantile=c.quantile,
                side=c.side,
                lag=c.lag,
            )
            g.output(f"effect:{fam}", ce["effect"])
        correct = reading(*answer)
        distractors = tuple(reading(*o) for o in chosen)
        ev = g.evidence()
        if not self.check(correct.claim, ev) or any(self.check(o.claim, ev) for o in distractors):
            raise Drop("primitive and gate kernel disagree")
        metrics = tuple(
            dict.fromkeys(
                m
                for o in (correct, *distractors)
                for m in (_BY_KEY[o.claim["family"].split("->")[0]].driver, o.claim["family"].split("->")[1])
            )
        )
        text = (
            f"Over the {days} days ending {g.end_date}, which of these readings of how this user's "
            f"signals responded after their personal lows or highs is correct? ({_definitions()}. "
            f"Each reading is the mean of the response after such days minus its mean after the other "
            f"days, in SDs of the response's daily values over the days compared; sleep on a date is "
            f"the night ending that morning.)"
        )
        return Draft(
            text,
            correct,
            distractors,
            g,
            metrics,
            grounding_ref=f"conditional:{family}",
            gates=gates.to_dict(),
            variant=family,
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """Direction and magnitude bin of the claimed family's effect equal the claim's."""
        effect = evidence.get(f"effect:{claim['family']}")
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
                stat,
                contexts,
                cond.driver,
                response,
                rng,
                days=days,
                step=self.null_step,
                min_end=days,
                max_windows=self.null_windows,
            )
            if res is not None:
                out[f"conditional:{cond.key}->{response}"] = res.to_dict()
        return out
