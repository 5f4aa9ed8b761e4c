"""Latent per-user traits, demographics and personal physiological baselines.

Seven latent traits (:data:`TRAIT_NAMES`) are correlated standard-normal scores. Together
with age and sex they fix every personal baseline, so demographics, blood panel and daily
metrics agree with each other (e.g. fit users have a high VO2max, low resting HR, a low
BMI and a good metabolic blood profile).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from wearbench.cohort import ETHNICITIES
from wearbench.sources.synthetic._config import (
    ETHNICITY_WEIGHTS,
    PERSISTENCE,
    TRAIT_CORRELATION,
    TRAIT_NAMES,
    BoolArray,
    FloatArray,
)
from wearbench.sources.synthetic._streams import user_blocks

_NORMALS = (
    *TRAIT_NAMES,
    "height",
    "bmi",
    "vo2max",
    "resting_hr",
    "hrv",
    "steps",
    "sleep",
    "efficiency",
    "deep",
    "rem",
    "stress",
    "onset",
    "weekend_steps",
    "weight_drift",
    "exercise_met",
)
_UNIFORMS = (
    "age",
    "sex",
    "ethnicity",
    "hemisphere",
    "weekend_sleep",
    "weekend_onset",
    "weekend_stress",
    "weekend_exercise",
    "sd_resting_hr",
    "sd_hrv",
    "sd_steps",
    "sd_sleep",
    "sd_efficiency",
    "sd_deep",
    "sd_rem",
    "sd_stress",
    "sd_onset",
    "exercise_minutes",
    "steps_per_exercise_minute",
    "vo2max_update",
    "season",
    *(f"ar1_{m}" for m in PERSISTENCE),  # appended last: earlier draws stay as they were
)


def sigmoid(x: FloatArray) -> FloatArray:
    """Logistic function."""
    out: FloatArray = 1.0 / (1.0 + np.exp(-x))
    return out


@dataclass(frozen=True)
class Person:
    """Per-user scalars, each an array of shape ``(users,)``.

    Daily baselines are personal means on an ordinary weekday outside episodes; ``sd_*``
    are day-to-day biological SDs (log-scale for ``hrv`` and ``steps``); ``ar1`` holds the
    AR(1) coefficient of each :data:`PERSISTENCE` metric's day-to-day deviation.
    """

    traits: FloatArray  # (users, 7) latent z-scores in TRAIT_NAMES order
    age: FloatArray  # whole years
    male: BoolArray
    ethnicity: list[str]
    south: BoolArray  # southern hemisphere (season phase)
    height_cm: FloatArray
    weight_kg: FloatArray
    weight_drift_kg: FloatArray  # linear change over the record
    bmi: FloatArray
    vo2max: FloatArray  # mL/kg/min
    resting_hr: FloatArray  # bpm
    hrv: FloatArray  # ms (RMSSD)
    steps: FloatArray  # median non-exercise steps per day
    sleep_minutes: FloatArray
    sleep_efficiency: FloatArray  # %
    deep_pct: FloatArray
    rem_pct: FloatArray
    stress: FloatArray
    onset_min: FloatArray  # sleep onset, minutes after midnight (negative = before)
    sd: dict[str, FloatArray]
    ar1: dict[str, FloatArray]
    weekend: dict[str, FloatArray]
    exercise_p: FloatArray  # daily probability of an exercise session
    exercise_minutes: FloatArray  # median session length
    exercise_met: FloatArray  # session intensity, METs
    steps_per_exercise_minute: FloatArray
    vo2max_update_p: FloatArray  # chance an exercise day yields a VO2max estimate
    season_amp: FloatArray  # scales the annual cycle
    hr_max: FloatArray  # bpm

    def trait(self, name: str) -> FloatArray:
        """Latent z-score column ``name`` of :data:`TRAIT_NAMES`."""
        return self.traits[:, TRAIT_NAMES.index(name)]

    @property
    def bmr_kcal(self) -> FloatArray:
        """Mifflin–St Jeor basal metabolic rate at the start weight, kcal/day."""
        return mifflin_st_jeor(self.weight_kg, self.height_cm, self.age, self.male)

    def truth_rows(self, user_ids: list[str]) -> list[dict[str, Any]]:
        """JSON-ready trait rows (latent scores and personal baselines), rounded."""
        rows = []
        for i, uid in enumerate(user_ids):
            row: dict[str, Any] = {"user_id": uid}
            row.update({t: round(float(self.traits[i, k]), 4) for k, t in enumerate(TRAIT_NAMES)})
            row.update(
                hemisphere="south" if self.south[i] else "north",
                height_cm=round(float(self.height_cm[i]), 1),
                weight_kg=round(float(self.weight_kg[i]), 1),
                baseline_vo2max=round(float(self.vo2max[i]), 2),
                baseline_resting_hr=round(float(self.resting_hr[i]), 2),
                baseline_hrv=round(float(self.hrv[i]), 2),
                baseline_steps=round(float(self.steps[i]), 0),
                baseline_sleep_minutes=round(float(self.sleep_minutes[i]), 1),
                baseline_stress=round(float(self.stress[i]), 2),
                sleep_onset_min=round(float(self.onset_min[i]), 1),
                exercise_p=round(float(self.exercise_p[i]), 4),
            )
            row.update({f"ar1_{m}": round(float(phi[i]), 4) for m, phi in self.ar1.items()})
            rows.append(row)
        return rows


def mifflin_st_jeor(
    weight_kg: FloatArray, height_cm: FloatArray, age: FloatArray, male: BoolArray
) -> FloatArray:
    """Mifflin–St Jeor BMR in kcal/day (weight kg, height cm, age years)."""
    out: FloatArray = 10.0 * weight_kg + 6.25 * height_cm - 5.0 * age + np.where(male, 5.0, -161.0)
    return out


def _correlated(z: FloatArray) -> FloatArray:
    chol = np.linalg.cholesky(TRAIT_CORRELATION)
    out: FloatArray = z @ chol.T
    return out


def _body(n: dict[str, FloatArray], u: dict[str, FloatArray], t: FloatArray) -> dict[str, Any]:
    """Age, sex, ethnicity, hemisphere, height, BMI and weight."""
    fitness, metabolic, activity = t[:, 0], t[:, 4], t[:, 5]
    age = np.round(18.0 + 62.0 * stats.beta.ppf(u["age"], 1.6, 2.0))
    male = u["sex"] < 0.5
    cum = np.cumsum(ETHNICITY_WEIGHTS)
    eth = [
        ETHNICITIES[min(int(k), len(ETHNICITIES) - 1)] for k in np.searchsorted(cum, u["ethnicity"] * cum[-1])
    ]
    height = np.where(male, 176.0 + 7.0 * n["height"], 163.0 + 6.5 * n["height"])
    log_bmi = (
        np.log(26.0)
        - 0.07 * metabolic
        - 0.05 * activity
        - 0.02 * fitness
        + 0.003 * (age - 45)
        + 0.13 * n["bmi"]
    )
    bmi = np.round(np.clip(np.exp(log_bmi), 16.5, 55.0), 1)
    weight = bmi * (height / 100.0) ** 2
    return {
        "age": age,
        "male": male,
        "ethnicity": eth,
        "south": u["hemisphere"] < 0.12,
        "height_cm": height,
        "weight_kg": weight,
        "weight_drift_kg": 1.5 * n["weight_drift"],
        "bmi": bmi,
    }


def _cardio(n: dict[str, FloatArray], t: FloatArray, body: dict[str, Any]) -> dict[str, Any]:
    """VO2max, resting HR and HRV baselines."""
    fitness, stress_r, activity = t[:, 0], t[:, 3], t[:, 5]
    age, male, bmi = body["age"], body["male"], body["bmi"]
    vo2 = (50.0 - 0.40 * (age - 25)) * np.where(male, 1.0, 0.82)
    vo2 = vo2 + 4.5 * fitness + 1.5 * activity - 0.35 * (bmi - 25) + 2.5 * n["vo2max"]
    rhr = 63.0 - 4.0 * fitness - 1.0 * activity + 0.25 * (bmi - 25) + 2.5 * ~male + 3.0 * n["resting_hr"]
    log_hrv = np.log(42.0) - 0.017 * (age - 40) + 0.18 * fitness - 0.08 * stress_r + 0.2 * n["hrv"]
    return {
        "vo2max": np.clip(vo2, 14.0, 75.0),
        "resting_hr": np.clip(rhr, 42.0, 92.0),
        "hrv": np.clip(np.exp(log_hrv), 12.0, 150.0),
        "hr_max": 208.0 - 0.7 * age,
    }


def _behaviour(
    n: dict[str, FloatArray], u: dict[str, FloatArray], t: FloatArray, age: FloatArray
) -> dict[str, Any]:
    """Activity, sleep, stress baselines and their day-to-day variability."""
    fitness, chrono, sleep_need, stress_r, _, activity, diligence = t.T
    log_steps = np.log(6000.0) + 0.33 * activity + 0.08 * fitness - 0.005 * (age - 45) + 0.15 * n["steps"]
    sd = {
        "resting_hr": 2.0 + 1.5 * u["sd_resting_hr"],
        "hrv": 0.13 + 0.10 * u["sd_hrv"],
        "steps": 0.25 + 0.15 * u["sd_steps"],
        "sleep_minutes": 38.0 + 22.0 * u["sd_sleep"],
        "sleep_efficiency": 2.2 + 1.6 * u["sd_efficiency"],
        "deep_sleep_pct": 2.3 + 1.4 * u["sd_deep"],
        "rem_sleep_pct": 2.0 + 1.0 * u["sd_rem"],
        "stress": 6.0 + 5.0 * u["sd_stress"],
        "onset": np.clip(15.0 + 45.0 * u["sd_onset"] - 5.0 * diligence, 10.0, 80.0),
    }
    weekend = {
        "sleep_minutes": 15.0 + 40.0 * u["weekend_sleep"],
        "onset": 20.0 + 60.0 * u["weekend_onset"],
        "steps": -0.05 + 0.15 * n["weekend_steps"],
        "stress": 2.0 + 4.0 * u["weekend_stress"],
        "exercise": 0.8 + 0.7 * u["weekend_exercise"],
    }
    return {
        "steps": np.clip(np.exp(log_steps), 1500.0, 25_000.0),
        "sleep_minutes": np.clip(
            430.0 + 22.0 * sleep_need - 0.3 * (age - 45) + 15.0 * n["sleep"], 330.0, 540.0
        ),
        "sleep_efficiency": np.clip(
            89.0 - 0.07 * (age - 40) - 1.2 * stress_r + 1.8 * n["efficiency"], 78.0, 96.0
        ),
        "deep_pct": np.clip(17.0 - 0.09 * (age - 40) + 1.0 * fitness + 2.0 * n["deep"], 8.0, 26.0),
        "rem_pct": np.clip(21.5 - 0.03 * (age - 40) + 1.3 * n["rem"], 15.0, 27.0),
        "stress": np.clip(37.0 + 7.0 * stress_r - 2.0 * fitness + 4.0 * n["stress"], 15.0, 60.0),
        "onset_min": -45.0 + 45.0 * chrono + 15.0 * n["onset"],
        "sd": sd,
        "weekend": weekend,
        "exercise_p": sigmoid(-1.0 + 0.9 * activity + 0.5 * fitness),
        "exercise_minutes": 25.0 + 45.0 * u["exercise_minutes"],
        "exercise_met": np.clip(5.5 + 1.2 * fitness + 0.8 * n["exercise_met"], 3.5, 11.0),
        "steps_per_exercise_minute": 20.0 + 60.0 * u["steps_per_exercise_minute"],
        "vo2max_update_p": 0.35 + 0.5 * u["vo2max_update"],
        "season_amp": 0.5 + 1.0 * u["season"],
    }


def draw_persons(rngs: list[np.random.Generator]) -> Person:
    """Draw latent traits, demographics and baselines for one chunk of users.

    Args:
        rngs: One generator per user (the ``TRAITS`` component stream).
    """
    normals, uniforms = user_blocks(rngs, len(_NORMALS), len(_UNIFORMS), 1)
    n = {k: normals[i, :, 0] for i, k in enumerate(_NORMALS)}
    u = {k: uniforms[i, :, 0] for i, k in enumerate(_UNIFORMS)}
    traits = _correlated(np.stack([n[k] for k in TRAIT_NAMES], axis=1))
    body = _body(n, u, traits)
    ar1 = {m: lo + (hi - lo) * u[f"ar1_{m}"] for m, (lo, hi) in PERSISTENCE.items()}
    return Person(
        traits=traits, ar1=ar1, **body, **_cardio(n, traits, body), **_behaviour(n, u, traits, body["age"])
    )
