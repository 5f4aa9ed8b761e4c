"""Same-day concordance of two linked signals over the window, read clinically (health · cross · window).

Population-grounded. For a physiologically linked pair from :data:`PAIRS` (e.g. stress and
HRV), both signals are signed by their health polarity (lower resting HR and stress, higher
HRV and sleep are better); the same-day Pearson ``r`` of the signed values
(``lagged_correlation(max_lag=0)`` of the raw values times the product of the polarities)
says whether they moved together in health terms (*concordant*: a worse day in one was a worse
day in the other, one shared physiological state) or against each other (*discordant*: they
trade off), and how tightly (``|r|`` bins between :data:`wearbench.grounding.R_EDGES`).

Options: ten *readings* (direction × strength grade A–E, the ``|r|`` bins, defined with the
clinical interpretation in the stem), each of one linked pair, in one template without
numbers (``Grade C, concordant: as stress increased, HRV fell``); the question asks which one
is correct. The answer is the gated reading of one pair; the nine distractors are readings of
any linked pair with enough data that its ``r`` contradicts even when moved by the bin
dead-band (:func:`_clearly_false`), drawn with weight ``pair_prior`` × ``label_prior``
(how often the reading is an answer). Since the answers pile onto a few readings (concordant,
grades B–C), a one-pair question would let a text-only model guess the reading; here the
likely readings are also the likely distractors, so each wording is right about one time in
ten it is shown. The evidence is every shown pair's ``r`` (``r:<a>~<b>``).

Kept only when the pair passes the gates of :func:`wearbench.grounding.concordance_gates`
(``|r| ≥ 0.5`` outside the dead-band with the same sign in both halves, direction reproduced
in ≥ 24 of 30 day resamples and unchanged by leaving out any day, ``|r|`` not within 0.02 of a
bin edge). Among the linked pairs that pass in a window, one is picked at random with weight
1 / ``label_prior`` of its reading. Pattern family ``concordance:<a>~<b>``; its null test
runs the same gates on mismatched users.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.grounding import (
    BIN_DEAD_BAND,
    POLARITY,
    R_EDGES,
    concordance_gates,
    concordance_label,
    concordance_pass_batch,
    family_null,
)
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import weighted_sample
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question, table

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


#: Fewest days with both values for a pair's r to be defined (stated in the stem).
MIN_OVERLAP = 14
N_OPTIONS = 10


def _statement(a: str, b: str, direction: str, k: int) -> Option:
    """One reading of one pair, in the shared template (no numbers, no hedges)."""
    polarity = POLARITY[a] * POLARITY[b]
    sign = polarity * (1 if direction == "concordant" else -1)  # sign of the raw r
    verb = "rose" if sign > 0 else "fell"
    text = f"Grade {_GRADE[k]}, {direction}: as {_name(a)} increased, {_name(b)} {verb}"
    return Option(text, {"a": a, "b": b, "polarity": polarity, "direction": direction, "bin": k})


def _clearly_false(signed_r: float, direction: str, k: int, band: float = BIN_DEAD_BAND) -> bool:
    """The reading is wrong for ``signed_r`` even when ``r`` moves by ``band``."""
    return all(concordance_label(signed_r + d) != (direction, k) for d in (-band, 0.0, band))


def _grades() -> str:
    return ", ".join(f"{g} {R_EDGES[k]:.1f}–{R_EDGES[k + 1]:.1f}" for k, g in enumerate(_GRADE))


@question()
@dataclass(frozen=True)
class Concordance(QuestionType):
    """Whether two linked signals moved together in health terms over the window, and how tightly.

    Attributes:
        pair_prior: Assumed share of each linked pair (``a~b``) among the answers (a design prior,
            as ``label_prior``).
        label_prior: Assumed frequency of each reading (direction, grade) as the answer: gated
            ``|r|`` sits mostly in grades B–C and linked pairs mostly move together. A design
            prior: among several linked pairs that pass the gates in one window, rarer readings are
            preferred (weight 1 / prior), and distractors are drawn with weight prior.
        min_coverage: Least share of window days with a value, in both signals, for a pair to be
            considered (as answer or distractor).
        dead_band: Distractor dead-band (in ``r``): a reading is a distractor only if ``r`` moved
            by this much either way still contradicts it.
    """

    pair_prior: Mapping[str, float] = table({f"{a}~{b}": 1.0 for a, b, _ in PAIRS})
    label_prior: Mapping[str, tuple[float, ...]] = table(
        {
            "concordant": (0.01, 0.40, 0.45, 0.08, 0.02),
            "discordant": (0.01, 0.02, 0.01, 0.005, 0.005),
        }
    )
    min_coverage: float = 0.7
    dead_band: float = BIN_DEAD_BAND

    name = "concordance"
    version = 4
    labels = Labels("health", "cross", "population", "window")
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Find a linked pair with a gated same-day co-movement; ask which listed reading is right."""
        w = self.window_days
        found = []
        signed: dict[tuple[str, str], float] = {}
        for a, b, _ in PAIRS:
            xa, xb = ctx.span(a, end, w), ctx.span(b, end, w)
            if min(np.isfinite(xa).mean(), np.isfinite(xb).mean()) < self.min_coverage:
                continue
            label, gates = concordance_gates(POLARITY[a] * xa, POLARITY[b] * xb, rng)
            ok = np.isfinite(xa) & np.isfinite(xb)
            if ok.sum() >= MIN_OVERLAP:
                signed[(a, b)] = float(np.corrcoef(POLARITY[a] * xa[ok], POLARITY[b] * xb[ok])[0, 1])
            if label is not None and gates.passed:
                found.append((a, b, label, gates))
        if not found:
            raise Drop("no linked pair passes the population gates")
        # several pairs pass: prefer rarer readings (inverse label_prior) to flatten the answers
        weights = np.array([1.0 / self._weight(f[0], f[1], *f[2]) for f in found])
        a, b, label, gates = found[int(rng.choice(len(found), p=weights / weights.sum()))]
        correct = _statement(a, b, *label)
        # distractors: readings of any covered pair that its data clearly contradict, drawn with
        # weight = how often the reading is the answer, so every wording is right ~1 time in 10
        pool_opts = [
            (pa, pb, d, k)
            for (pa, pb), r in sorted(signed.items())
            if np.isfinite(r)
            for d in ("concordant", "discordant")
            for k in range(len(_GRADE))
            if (pa, pb, d, k) != (a, b, *label) and _clearly_false(r, d, k, self.dead_band)
        ]
        if len(pool_opts) < N_OPTIONS - 1:
            raise Drop("too few linked pairs covered for distractors")
        chosen = weighted_sample(pool_opts, [self._weight(*o) for o in pool_opts], N_OPTIONS - 1, rng)
        g = Graph(ctx, str(ctx.dates[end]))
        for pa, pb in sorted({(a, b), *((o[0], o[1]) for o in chosen)}):
            lc = g.call(
                "lagged_correlation", g.series(pa, w), g.series(pb, w), max_lag=0, min_overlap=MIN_OVERLAP
            )
            g.output(f"r:{pa}~{pb}", lc["best_r"])
        distractors = tuple(_statement(*o) for o in chosen)
        ev = g.evidence()
        if not self.check(correct.claim, ev) or any(self.check(o.claim, ev) for o in distractors):
            raise Drop("primitive and gate kernel disagree")
        metrics = tuple(
            dict.fromkeys(m for o in (correct, *distractors) for m in (o.claim["a"], o.claim["b"]))
        )
        text = (
            f"Over the 28 days ending {g.end_date}, which of these readings of how two of this user's "
            f"linked signals moved together from day to day is correct? (Same-day Pearson r of the "
            f"daily values over the days where both are present, defined only with at least "
            f"{MIN_OVERLAP} such days; higher resting HR and stress, and lower HRV, sleep and sleep "
            f"efficiency, count as poorer. Concordant: a poorer day in one was a poorer day in the "
            f"other, one shared physiological state; discordant: the two trade off. Grade of |r|: "
            f"{_grades()}, the last closed at 1.)"
        )
        return Draft(
            text,
            correct,
            distractors,
            g,
            metrics,
            grounding_ref=f"concordance:{a}~{b}",
            gates=gates.to_dict(),
            variant=f"{a}~{b}",
        )

    def _weight(self, a: str, b: str, direction: str, k: int) -> float:
        """Assumed answer frequency of a reading: ``pair_prior`` × ``label_prior``."""
        return self.pair_prior[f"{a}~{b}"] * self.label_prior[direction][k]

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The polarity-signed same-day r has the claimed direction and strength bin."""
        r = evidence.get(f"r:{claim['a']}~{claim['b']}")
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
