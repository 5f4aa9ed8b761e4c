"""Same-day concordance of two linked signals over the window, read clinically (health · cross · window).

Population-grounded. For a physiologically linked pair from :data:`PAIRS` (e.g. stress and
HRV), both signals are signed by their health polarity (lower resting HR and stress, higher
HRV and sleep are better); the same-day Pearson ``r`` of the signed values
(``lagged_correlation(max_lag=0)`` of the raw values times the product of the polarities)
says whether they moved together in health terms (*concordant*: a worse day in one was a worse
day in the other, one shared physiological state) or against each other (*discordant*: they
trade off), and how tightly (``|r|`` bins between :data:`wearbench.grounding.R_EDGES`).

Options: the two readings × five strength grades (A–E, the ``|r|`` bins, defined with the
clinical interpretation in the stem); the distractors are the opposite reading (a shared state
where the numbers show a trade-off, or the reverse) and wrong grades. Every option has one
template (``Grade C, concordant: as stress increased, HRV fell``): the same length within an
item and no numbers, because ``|r|`` is bounded and the gated answers sit in its upper bins, so
the rank of a numeric option could never be spread evenly.

Kept only when the pair passes the gates of :func:`wearbench.grounding.concordance_gates`
(``|r| ≥ 0.5`` outside the dead-band with the same sign in both halves, direction reproduced
in ≥ 24 of 30 day resamples and unchanged by leaving out any day, ``|r|`` not within 0.02 of a
bin edge). Among the linked pairs that pass in a window, one is picked at random with weight
1 / :data:`LABEL_PRIOR` of its reading. Pattern family ``concordance:<a>~<b>``; its null test
runs the same gates on mismatched users.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench.grounding import (
    POLARITY,
    R_EDGES,
    concordance_gates,
    concordance_label,
    concordance_pass_batch,
    family_null,
)
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

#: (signal a, signal b, the physiological state they share).
PAIRS: tuple[tuple[str, str, str], ...] = (
    ("stress", "hrv", "autonomic stress response"),
    ("sleep_minutes", "hrv", "overnight recovery"),
    ("stress", "sleep_efficiency", "stress-related sleep disruption"),
    ("sleep_minutes", "stress", "sleep and stress load"),
    ("sleep_efficiency", "resting_hr", "overnight cardiovascular recovery"),
    ("resting_hr", "hrv", "cardiac autonomic state"),
    ("stress", "resting_hr", "sympathetic arousal"),
)
#: Strength grades of |r| (bins between :data:`R_EDGES`), defined in the question stem.
_GRADE = ("A", "B", "C", "D", "E")
_NAME = {
    "resting_hr": "resting HR",
    "hrv": "HRV",
    "sleep_minutes": "sleep",
    "sleep_efficiency": "sleep efficiency",
}


def _name(metric: str) -> str:
    return _NAME.get(metric, metric.replace("_", " "))


MIN_COVERAGE = 0.7
#: Assumed frequency of each reading (direction, grade) as the answer: gated ``|r|`` sits mostly
#: in grades B–C and linked pairs mostly move together. A design prior: among several linked
#: pairs that pass the gates in one window, rarer readings are preferred (weight 1 / prior).
LABEL_PRIOR: Mapping[str, tuple[float, ...]] = {
    "concordant": (0.01, 0.40, 0.45, 0.08, 0.02),
    "discordant": (0.01, 0.02, 0.01, 0.005, 0.005),
}


def _options(a: str, b: str) -> list[Option]:
    """Both readings × five grades in one template (equal length, no numbers, no hedges)."""
    polarity = POLARITY[a] * POLARITY[b]
    out = []
    for direction in ("concordant", "discordant"):
        sign = polarity * (1 if direction == "concordant" else -1)  # sign of the raw r
        verb = "rose" if sign > 0 else "fell"
        for k, grade in enumerate(_GRADE):
            text = f"Grade {grade}, {direction}: as {_name(a)} increased, {_name(b)} {verb}"
            claim = {"a": a, "b": b, "polarity": polarity, "direction": direction, "bin": k}
            out.append(Option(text, claim))
    return out


def _grades() -> str:
    return ", ".join(f"{g} {R_EDGES[k]:.1f}–{R_EDGES[k + 1]:.1f}" for k, g in enumerate(_GRADE))


@question()
class Concordance(QuestionType):
    """Whether two linked signals moved together in health terms over the window, and how tightly."""

    name = "concordance"
    version = 2
    labels = Labels("health", "cross", "population", "window")
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Find a linked pair with a gated same-day co-movement and ask for its clinical reading."""
        w = self.window_days
        found = []
        for a, b, context in PAIRS:
            xa, xb = ctx.span(a, end, w), ctx.span(b, end, w)
            if min(np.isfinite(xa).mean(), np.isfinite(xb).mean()) < MIN_COVERAGE:
                continue
            label, gates = concordance_gates(POLARITY[a] * xa, POLARITY[b] * xb, rng)
            if label is not None and gates.passed:
                found.append((a, b, context, label, gates))
        if not found:
            raise Drop("no linked pair passes the population gates")
        # several pairs pass: prefer rarer readings (inverse LABEL_PRIOR) to flatten the answers
        weights = np.array([1.0 / LABEL_PRIOR[f[3][0]][f[3][1]] for f in found])
        a, b, context, label, gates = found[int(rng.choice(len(found), p=weights / weights.sum()))]
        g = Graph(ctx, str(ctx.dates[end]))
        lc = g.call("lagged_correlation", g.series(a, w), g.series(b, w), max_lag=0)
        g.output("r", lc["best_r"])
        options = _options(a, b)
        correct = next(o for o in options if (o.claim["direction"], o.claim["bin"]) == label)
        if not self.check(correct.claim, g.evidence()):
            raise Drop("primitive and gate kernel disagree")
        text = (
            f"Over the 28 days ending {g.end_date}, how did this user's {_name(a)} and {_name(b)} move "
            f"together from day to day, and what does that suggest? (Same-day Pearson r of the daily "
            f"values; higher resting HR and stress, and lower HRV, sleep and sleep efficiency, count as "
            f"poorer. Concordant: a poorer day in one was a poorer day in the other, one shared {context} "
            f"state; discordant: the two trade off. Grade of |r|: {_grades()}, the last closed at 1.)"
        )
        return Draft(
            text,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            (a, b),
            grounding_ref=f"concordance:{a}~{b}",
            gates=gates.to_dict(),
            variant=f"{a}~{b}",
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The polarity-signed same-day r has the claimed direction and strength bin."""
        r = evidence["r"]
        if r is None:
            return False
        return concordance_label(claim["polarity"] * float(r)) == (claim["direction"], claim["bin"])

    def null_statistics(
        self, contexts: Sequence[UserContext], rng: np.random.Generator
    ) -> Mapping[str, Mapping[str, float]]:
        """The concordance gates on matched vs mismatched users, per pair (``concordance:a~b``)."""
        out: dict[str, dict[str, float]] = {}
        for a, b, _ in PAIRS:

            def stat(
                x: NDArray[np.float64], y: NDArray[np.float64], a: str = a, b: str = b
            ) -> NDArray[np.bool_]:
                return concordance_pass_batch(POLARITY[a] * x, POLARITY[b] * y, rng)

            w = self.window_days
            res = family_null(stat, contexts, a, b, rng, days=w, step=w, min_end=w)
            if res is not None:
                out[f"concordance:{a}~{b}"] = res.to_dict()
        return out
