"""Differential reasoning: which co-signals explain an elevated resting HR (health · cross · window).

Literature cards ``rhr_elevation_acute_illness``, ``hrv_decline_acute_illness`` and
``activity_drop_sleep_rise_acute_illness`` (the illness profiles) and ``stress_shortens_sleep``
(stress and sleep loss). Only windows whose last days show an elevated resting HR are asked (at
least two consecutive focus days ≥ 1.5 SD above the trailing 28-day personal mean, see
:mod:`.acute_strain`). The evidence adds bedtime regularity to the co-signals of
:mod:`.acute_strain`; each co-signal is *up*, *down* or unchanged at ±1 SD of its 28-day
baseline, and each option is a differential explanation defined by a co-signal profile
(:data:`EXPLANATIONS`): four illness-like profiles that differ in which of HRV, sleep and steps
moved, training load, sleep loss, stress, circadian disruption, inactivity and "unexplained".
The profiles are mutually exclusive by construction; a window that fits none is dropped, as is
a window where a value inside the ±0.25 SD dead-band of a threshold would change the answer.
The two commonest explanations are thinned at random (:data:`KEEP`). Every option reads
"Cause: <explanation> (<profile>)" at one length, with no digits or negation words, and the stem
uses every word of every option, so the text alone does not point at the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench.questions._context import UserContext
from wearbench.questions._helpers import thin
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question
from wearbench.questions.types.acute_strain import (
    BASELINE_DAYS,
    FOCUS_DAYS,
    K_RHR,
    T_CO,
    Rule,
    State,
    candidate_ends,
    cosignal_phrase,
    reading_of,
    robust_reading,
    state_of,
    strain_graph,
)

COSIGNALS = ("hrv", "sleep_minutes", "steps", "exercise_minutes", "stress", "bedtime_regularity")

EXPLANATIONS: dict[str, tuple[str, Rule]] = {
    "illness_full": (
        "Cause: illness-like, full pattern (HRV down, more sleep and fewer steps at once)",
        lambda s: s.elevated and _ill(s) == (True, True, True),
    ),
    "illness_hrv_sleep": (
        "Cause: illness-like, HRV with sleep (HRV down, sleep longer, steps steady or up)",
        lambda s: s.elevated and _ill(s) == (True, True, False),
    ),
    "illness_hrv_steps": (
        "Cause: illness-like, HRV with steps (HRV down, fewer steps, sleep length steady)",
        lambda s: s.elevated and _ill(s) == (True, False, True) and not s.down("sleep_minutes"),
    ),
    "illness_rest": (
        "Cause: illness-like rest pattern (more sleep plus fewer steps, HRV steady or up)",
        lambda s: s.elevated and _ill(s) == (False, True, True),
    ),
    "training": (
        "Cause: training load (more exercise minutes than usual, sleep steady or shorter)",
        lambda s: s.elevated and s.up("exercise_minutes") and not s.up("sleep_minutes"),
    ),
    "sleep_loss": (
        "Cause: sleep loss alone (shorter sleep; HRV, steps and stress steady, or better)",
        lambda s: (
            s.elevated
            and s.down("sleep_minutes")
            and not (s.down("hrv") or s.down("steps") or s.up("stress") or s.up("exercise_minutes"))
        ),
    ),
    "stress": (
        "Cause: psychological stress (higher stress, sleep unchanged, steps steady or up)",
        lambda s: (
            s.elevated
            and s.up("stress")
            and s.flat("sleep_minutes")
            and not s.down("steps")
            and not s.up("exercise_minutes")
        ),
    ),
    "circadian": (
        "Cause: circadian disruption (erratic bedtime; HRV, sleep, stress, exercise flat)",
        lambda s: (
            s.elevated
            and s.up("bedtime_regularity")
            and s.flat("hrv", "sleep_minutes", "stress", "exercise_minutes")
            and not s.down("steps")
        ),
    ),
    "inactivity": (
        "Cause: inactivity alone (fewer steps; HRV, sleep, stress and bedtimes unchanged)",
        lambda s: (
            s.elevated
            and s.down("steps")
            and s.flat("hrv", "sleep_minutes", "stress")
            and not s.up("exercise_minutes")
            and not s.up("bedtime_regularity")
        ),
    ),
    "unexplained": (
        "Cause: unexplained rise (every co-signal steady and within its own normal range)",
        lambda s: s.elevated and s.flat(),
    ),
}

#: Share of windows kept per explanation (see :data:`.acute_strain.KEEP`).
KEEP: dict[str, float] = {"unexplained": 0.6, "training": 0.65}


def _ill(s: State) -> tuple[bool, bool, bool]:
    """(HRV down, sleep up, steps down), or all False when exercise is up (training instead)."""
    if s.up("exercise_minutes"):
        return (False, False, False)
    return (s.down("hrv"), s.up("sleep_minutes"), s.down("steps"))


@question()
class DifferentialRhr(QuestionType):
    """Which co-signal profile explains an elevated resting HR in the last three days of a window.

    Evidence: as :class:`~wearbench.questions.types.acute_strain.AcuteStrain` plus bedtime
    regularity. Options: ten differential explanations of one form; exactly one fits the
    co-signal shifts.
    """

    name = "differential_rhr"
    version = 2
    labels = Labels("health", "cross", "literature", "window")
    max_per_user = 3
    min_history = BASELINE_DAYS + FOCUS_DAYS

    def end_dates(self, ctx: UserContext) -> list[int]:
        """Ends whose focus starts a run of elevated resting HR (latest first)."""
        return candidate_ends(ctx, self.min_history, quiet=False)

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Build the differential question, or drop when resting HR is not clearly elevated."""
        g = strain_graph(ctx, end, COSIGNALS)
        state = state_of(g.evidence(), COSIGNALS)
        if state is None:
            raise Drop("too few days present for the personal baselines")
        if not state.elevated:
            raise Drop("resting HR not elevated in the focus days")
        answer = robust_reading(state, EXPLANATIONS, index_band=False)
        thin(answer, KEEP, rng)
        options = [Option(text, {"explanation": key}) for key, (text, _) in EXPLANATIONS.items()]
        correct = next(o for o in options if o.claim["explanation"] == answer)
        stem = (
            f"In the last {FOCUS_DAYS} days of the 28-day window ending {g.end_date}, this user's resting "
            f"heart rate was at least {K_RHR} SD above their trailing 28-day mean on two consecutive days. "
            f"Compare the {cosignal_phrase(COSIGNALS)} of those days (the co-signals) with the 28 days "
            f"before them: a change of at least {T_CO:g} SD makes a co-signal up or down (higher, more "
            "than usual, a longer sleep length; fewer, shorter, erratic bedtimes), and it is steady, "
            "flat or unchanged (within its own normal range) otherwise; better means steady or moved "
            "away from the illness pattern (HRV down, more sleep and fewer steps). Which cause "
            "explains the rise? The causes: an illness-like pattern in full (all three at once), HRV "
            "with sleep, HRV with steps, or a rest pattern (more sleep plus fewer steps); a training "
            "load; sleep loss alone; psychological stress; circadian disruption; inactivity alone; or "
            "an unexplained rise, where every co-signal is as usual."
        )
        return Draft(
            stem,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            ("resting_hr", *COSIGNALS),
            grounding_ref=_card_for(answer),
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed explanation is the single one whose co-signal rule holds."""
        state = state_of(evidence, COSIGNALS)
        return state is not None and reading_of(state, EXPLANATIONS) == claim["explanation"]


def _card_for(answer: str) -> str:
    if answer in ("stress", "sleep_loss"):
        return "stress_shortens_sleep"
    if answer in ("illness_hrv_sleep", "illness_hrv_steps", "illness_full"):
        return "hrv_decline_acute_illness"
    if answer == "illness_rest":
        return "activity_drop_sleep_rise_acute_illness"
    return "rhr_elevation_acute_illness"
