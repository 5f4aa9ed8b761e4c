"""Acute strain / illness pattern over the last days of a window (health · cross · window).

Literature card ``rhr_elevation_acute_illness`` (with ``hrv_decline_acute_illness`` and
``activity_drop_sleep_rise_acute_illness``). The evidence (resting HR held on two consecutive
focus days, co-signal shifts of the focus days, all in personal SD units) and the dead-bands are
those of :mod:`wearbench.questions._strain`; the co-signals are HRV, sleep minutes, steps,
exercise minutes and stress.

The reading is one of ten patterns (:data:`READINGS`, each a :class:`Pattern`: a resting-HR
state, co-signal movements and optionally the illness balance). The option text is generated
from the same pattern that judges it, so exactly one option fits as written; co-signals a
pattern does not name may take any value. A causal label precedes the pattern only where it
holds against planted truth (:data:`KEPT`; PPV ≥ 0.8 and a noise ratio ≤ 0.25 in
docs/health-readings.md, measured by :func:`wearbench.audit.readings_table`): only the illness
onset. "Overreaching", "stress response", "sleep-loss strain", "isolated rise" and "improved
fitness" matched what the generator planted in 1–18 % of items (isolated rise: in 92 %, but it
fired 0.68 times as often on a cross-user-permuted cohort), so those options state their
pattern only.
The patterns are mutually exclusive except where two genuinely fit (the illness balance with
shorter sleep); such windows, windows that fit no pattern, and windows where moving any value
across a ±0.25 dead-band around its threshold would change the reading are dropped.
Windows are chosen around candidate resting-HR rises (the focus starts on the first day of a
run of elevated days), interleaved with windows whose focus shows a sleep, steps or HRV shift
and with plain windows every week (:attr:`AcuteStrain.plain_step`,
:attr:`AcuteStrain.off_gap`), so that the readings are not dominated by one class. Every item
shows the same ten texts, so a text-only model can learn only a reading's share of the answers;
windows with one of the commonest quiet readings are thinned at random
(:attr:`AcuteStrain.keep`, seeded by the item's ``rng``; illness onsets are never thinned).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.questions._helpers import thin
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question, table
from wearbench.questions._strain import (
    BASELINE_DAYS,
    FOCUS_DAYS,
    K_RHR,
    T_CO,
    Pattern,
    candidate_ends,
    cosignal_phrase,
    option_text,
    reading_of,
    robust_reading,
    state_of,
    strain_graph,
)

COSIGNALS = ("hrv", "sleep_minutes", "steps", "exercise_minutes", "stress")
#: The ten readings as patterns (mutually exclusive except where two genuinely fit; those
#: windows are dropped).
READINGS: dict[str, Pattern] = {
    "illness": Pattern("up", (("hrv", "steady_or_down"), ("exercise_minutes", "steady_or_down")), "yes"),
    "overreaching": Pattern("up", (("sleep_minutes", "steady_or_down"), ("exercise_minutes", "up"))),
    "sleep_loss": Pattern(
        "up",
        (("sleep_minutes", "down"), ("exercise_minutes", "steady_or_down"), ("stress", "steady_or_down")),
    ),
    "stress": Pattern(
        "up",
        (
            ("sleep_minutes", "steady"),
            ("steps", "steady_or_up"),
            ("exercise_minutes", "steady_or_down"),
            ("stress", "up"),
        ),
        "no",
    ),
    "isolated_rhr": Pattern("up", tuple((m, "steady") for m in COSIGNALS), "no"),
    "fitness": Pattern("under"),
    "no_deviation": Pattern("steady", tuple((m, "steady") for m in COSIGNALS)),
    "poor_sleep_only": Pattern(
        "steady",
        (("sleep_minutes", "down"), *((m, "steady") for m in ("hrv", "steps", "exercise_minutes", "stress"))),
    ),
    "reduced_activity_only": Pattern(
        "steady",
        (
            ("steps", "down"),
            *((m, "steady") for m in ("hrv", "sleep_minutes", "stress")),
            ("exercise_minutes", "steady_or_down"),
        ),
    ),
    "hrv_only": Pattern(
        "steady",
        (("hrv", "down"), *((m, "steady") for m in ("sleep_minutes", "steps", "exercise_minutes", "stress"))),
    ),
}
#: Causal labels that hold against planted truth (PPV ≥ 0.8, noise ratio ≤ 0.25 in
#: docs/health-readings.md); every other reading is stated as its pattern only.
KEPT: dict[str, str] = {"illness": "Illness-like onset"}


@question()
@dataclass(frozen=True)
class AcuteStrain(QuestionType):
    """Acute strain / illness reading of the last three days of a window.

    Evidence: two-consecutive-day resting-HR z-scores (trailing 28-day personal baseline) and the
    shift of HRV, sleep, steps, exercise and stress over the focus days (SD units of the 28 days
    before). Options: the ten patterns in words (generated from the rules that judge them);
    exactly one holds.

    Attributes:
        keep: Share of windows kept per reading (the rest are dropped, so the next candidate
            window is tried): readings that plain and quiet windows give most often are thinned
            so that the answer classes are flatter (a model guessing the commonest reading gains
            little). Tuned on full builds of ``wearbench.synth(200, 500, seed=s)``, seeds 0 and 1:
            kept counts of these four are then about that of illness (~150 each, ~15 % of ~1000
            items).
        plain_step: Days between plain candidate ends.
        off_gap: Least days between ends whose focus shows a co-signal shift. All ten readings
            are options of every item, so a reading's text prior is its share of the answers:
            illness onsets (never thinned) must be diluted by enough quiet windows to stay near a
            tenth of the answers, hence weekly candidates and a high ``max_per_user``.
    """

    keep: Mapping[str, float] = table(
        {"no_deviation": 0.5, "hrv_only": 0.7, "fitness": 0.8, "poor_sleep_only": 0.85}
    )
    plain_step: int = 7
    off_gap: int = 7

    name = "acute_strain"
    version = 4
    labels = Labels("health", "cross", "literature", "window")
    max_per_user = 24  # quiet windows dilute the illness onsets (see plain_step)
    min_history = BASELINE_DAYS + FOCUS_DAYS

    def end_dates(self, ctx: UserContext) -> list[int]:
        """Ends around candidate resting-HR rises, interleaved with quiet ends (latest first)."""
        return candidate_ends(ctx, self.min_history, step=self.plain_step, off_gap=self.off_gap)

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Build the reading question for the window ending at ``end``."""
        g = strain_graph(ctx, end, COSIGNALS)
        state = state_of(g.evidence(), COSIGNALS)
        if state is None:
            raise Drop("too few days present for the personal baselines")
        answer = robust_reading(state, READINGS)
        thin(answer, self.keep, rng)
        options = [Option(option_text(k, p, KEPT), {"reading": k}) for k, p in READINGS.items()]
        correct = next(o for o in options if o.claim["reading"] == answer)
        stem = (
            f"Consider the last {FOCUS_DAYS} days of the 28-day window ending {g.end_date}. Judge this "
            "user's resting heart rate (resting HR) day by day against their own trailing 28-day mean "
            f"and SD: it is up when at least two consecutive days are ≥ {K_RHR} SD above, under its "
            f"baseline when two days in a row are ≤ −{K_RHR} SD, and steady when neither holds. Judge "
            f"the {cosignal_phrase(COSIGNALS)} of those days (the co-signals) by their mean shift from "
            f"the 28 days before them, in SD units: up at +{T_CO:g} SD or more, down at −{T_CO:g} SD or "
            "less, steady in between ('steady or up' and 'steady or down' allow one side). The illness "
            "balance is the mean of three shifts: the HRV shift with its sign reversed, the sleep "
            "shift, and the steps shift with its sign reversed. Sleep means sleep minutes and "
            "exercise means exercise minutes. Each option names every condition it needs; a co-signal "
            "an option does not name may take any value. Which option describes these days?"
        )
        ref = "exercise_lowers_rhr" if answer == "fitness" else "rhr_elevation_acute_illness"
        return Draft(
            stem,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            ("resting_hr", *COSIGNALS),
            grounding_ref=ref,
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed reading is the single one whose rule holds for the evidence."""
        state = state_of(evidence, COSIGNALS)
        return state is not None and reading_of(state, READINGS) == claim["reading"]
