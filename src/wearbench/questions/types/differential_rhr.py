"""Differential reasoning: which co-signals explain an elevated resting HR (health · cross · window).

Literature cards ``rhr_elevation_acute_illness``, ``hrv_decline_acute_illness`` and
``activity_drop_sleep_rise_acute_illness`` (the illness profiles) and ``stress_shortens_sleep``
(stress and sleep loss). Only windows whose last days show an elevated resting HR are asked (at
least two consecutive focus days ≥ 1.5 SD above the trailing 28-day personal mean, see
:mod:`.acute_strain`). The evidence adds bedtime regularity to the co-signals of
:mod:`.acute_strain`; each co-signal is *up*, *down* or unchanged at ±1 SD of its 28-day
baseline, and each option is a co-signal profile (:data:`EXPLANATIONS`, each a
:class:`~.acute_strain.Pattern`): four illness-like profiles that differ in which of HRV, sleep
and steps moved, then the profiles once named training load, sleep loss, stress, circadian
disruption, inactivity and "unexplained". The option text is generated from the pattern that
judges it, so exactly one fits as written. A cause label precedes the pattern only where it holds
against planted truth (:data:`KEPT`, docs/health-readings.md): the illness-like label of three
illness profiles. The other causes matched the planted cause in 7–17 % of items (HRV with sleep:
3 of 4; unexplained: 93 %, but it fired 0.79 times as often on a cross-user-permuted cohort), so
they state their pattern only.
The profiles are mutually exclusive by construction; a window that fits none is dropped, as is
a window where a value inside the ±0.25 SD dead-band of a threshold (resting HR's 1.5 SD
included) would change the answer. The two commonest profiles are thinned at random
(:attr:`DifferentialRhr.keep`). Every item shows the same ten texts, so the text alone carries only the class
share.
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
    BAND,
    BASELINE_DAYS,
    FOCUS_DAYS,
    K_RHR,
    T_CO,
    Cond,
    Pattern,
    candidate_ends,
    cosignal_phrase,
    option_text,
    reading_of,
    robust_reading,
    state_of,
    strain_graph,
)

COSIGNALS = ("hrv", "sleep_minutes", "steps", "exercise_minutes", "stress", "bedtime_regularity")

_SO_UP: Cond = "steady_or_up"
_SO_DOWN: Cond = "steady_or_down"
#: The ten explanations as co-signal patterns (resting HR is up in every asked window): the
#: option text and the check both come from the pattern, so exactly one text fits as written.
EXPLANATIONS: dict[str, Pattern] = {
    "illness_full": Pattern(
        None, (("hrv", "down"), ("sleep_minutes", "up"), ("steps", "down"), ("exercise_minutes", _SO_DOWN))
    ),
    "illness_hrv_sleep": Pattern(
        None, (("hrv", "down"), ("sleep_minutes", "up"), ("steps", _SO_UP), ("exercise_minutes", _SO_DOWN))
    ),
    "illness_hrv_steps": Pattern(
        None,
        (("hrv", "down"), ("sleep_minutes", "steady"), ("steps", "down"), ("exercise_minutes", _SO_DOWN)),
    ),
    "illness_rest": Pattern(
        None, (("hrv", _SO_UP), ("sleep_minutes", "up"), ("steps", "down"), ("exercise_minutes", _SO_DOWN))
    ),
    "training": Pattern(None, (("sleep_minutes", _SO_DOWN), ("exercise_minutes", "up"))),
    "sleep_loss": Pattern(
        None,
        (
            ("hrv", _SO_UP),
            ("sleep_minutes", "down"),
            ("steps", _SO_UP),
            ("exercise_minutes", _SO_DOWN),
            ("stress", _SO_DOWN),
        ),
    ),
    "stress": Pattern(
        None,
        (("sleep_minutes", "steady"), ("steps", _SO_UP), ("exercise_minutes", _SO_DOWN), ("stress", "up")),
    ),
    "circadian": Pattern(
        None,
        (
            *((m, "steady") for m in ("hrv", "sleep_minutes", "exercise_minutes", "stress")),
            ("steps", _SO_UP),
            ("bedtime_regularity", "up"),
        ),
    ),
    "inactivity": Pattern(
        None,
        (
            *((m, "steady") for m in ("hrv", "sleep_minutes", "stress")),
            ("steps", "down"),
            ("exercise_minutes", _SO_DOWN),
            ("bedtime_regularity", _SO_DOWN),
        ),
    ),
    "unexplained": Pattern(None, tuple((m, "steady") for m in COSIGNALS)),
}
#: Causal labels that hold against planted truth (docs/health-readings.md); the others are
#: stated as their pattern only.
KEPT: dict[str, str] = {
    "illness_full": "Illness-like",
    "illness_hrv_steps": "Illness-like",
    "illness_rest": "Illness-like",
}


@question()
@dataclass(frozen=True)
class DifferentialRhr(QuestionType):
    """Which co-signal profile accompanies an elevated resting HR in the last three days of a window.

    Evidence: as :class:`~wearbench.questions.types.acute_strain.AcuteStrain` plus bedtime
    regularity. Options: ten co-signal profiles in words (generated from the rules that judge
    them); exactly one fits the co-signal shifts.

    Attributes:
        keep: Share of windows kept per explanation (see :attr:`.AcuteStrain.keep`).
    """

    keep: Mapping[str, float] = table({"unexplained": 0.6, "training": 0.65})

    name = "differential_rhr"
    version = 4
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
        if state.high < K_RHR + BAND:  # the stem's premise must not sit on its threshold
            raise Drop("a value lies within the dead-band of a threshold")
        answer = robust_reading(state, EXPLANATIONS, index_band=False)
        thin(answer, self.keep, rng)
        options = [Option(option_text(k, p, KEPT), {"explanation": k}) for k, p in EXPLANATIONS.items()]
        correct = next(o for o in options if o.claim["explanation"] == answer)
        stem = (
            f"In the last {FOCUS_DAYS} days of the 28-day window ending {g.end_date}, this user's resting "
            f"heart rate was at least {K_RHR} SD above their trailing 28-day mean on two consecutive days. "
            f"Compare the {cosignal_phrase(COSIGNALS)} of those days (the co-signals) with the 28 days "
            f"before them by their mean shift in SD units: up at +{T_CO:g} SD or more, down at "
            f"−{T_CO:g} SD or less, steady in between ('steady or up' and 'steady or down' allow one "
            "side). Sleep means sleep minutes, exercise means exercise minutes, and bedtime SD is the "
            "bedtime regularity (SD of sleep onset; up means more erratic bedtimes). Each option names "
            "every condition it needs; a co-signal an option does not name may take any value. Which "
            "option describes the co-signals of these days?"
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
        """Resting HR is elevated and the claimed explanation is the single pattern that holds."""
        state = state_of(evidence, COSIGNALS)
        if state is None or not state.elevated:  # the stem's premise
            return False
        return bool(reading_of(state, EXPLANATIONS) == claim["explanation"])


def _card_for(answer: str) -> str:
    if answer in ("stress", "sleep_loss"):
        return "stress_shortens_sleep"
    if answer in ("illness_hrv_sleep", "illness_hrv_steps", "illness_full"):
        return "hrv_decline_acute_illness"
    if answer == "illness_rest":
        return "activity_drop_sleep_rise_acute_illness"
    return "rhr_elevation_acute_illness"
