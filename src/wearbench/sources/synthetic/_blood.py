"""Blood panel: one draw per user (a quarter of long records get a second draw).

Biomarkers follow the same latent traits as the daily data: adiposity (BMI), metabolic
health, activity and fitness drive the glycaemic and lipid profile and hs-CRP; age
drives eGFR (creatinine is its exact CKD-EPI 2021 inverse given age and sex); sex
shifts HDL, ferritin, uric acid and liver enzymes; vitamin D follows the season of the
draw. Each value = population model + between-person noise + within-person noise per draw.
Total cholesterol is LDL + HDL + TG/5 (Friedewald), up to a few mg/dL.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wearbench.cohort import BIOMARKER_NAMES
from wearbench.sources.synthetic._config import BoolArray, FloatArray
from wearbench.sources.synthetic._daily import Calendar
from wearbench.sources.synthetic._traits import Person, sigmoid

#: Clip bounds and rounding decimals per biomarker (inside the schema's plausible ranges).
_BOUNDS: dict[str, tuple[float, float, int]] = {
    "fasting_glucose": (60, 350, 0),
    "hba1c": (4.2, 13.0, 1),
    "insulin": (1.5, 80, 1),
    "triglycerides": (30, 900, 0),
    "hdl": (20, 110, 0),
    "ldl": (40, 260, 0),
    "total_cholesterol": (90, 420, 0),
    "hs_crp": (0.1, 40, 2),
    "alt": (6, 300, 0),
    "ast": (8, 300, 0),
    "ggt": (5, 400, 0),
    "creatinine": (0.3, 8.0, 2),
    "egfr": (20, 140, 0),
    "uric_acid": (2, 12, 1),
    "tsh": (0.1, 20, 2),
    "vitamin_d": (5, 90, 1),
    "ferritin": (8, 700, 0),
}


def creatinine_from_egfr(egfr: FloatArray, age: FloatArray, male: BoolArray) -> FloatArray:
    """Serum creatinine (mg/dL) that gives ``egfr`` under the CKD-EPI 2021 equation."""
    kappa = np.where(male, 0.9, 0.7)
    alpha = np.where(male, -0.302, -0.241)
    g = egfr / (142.0 * 0.9938**age * np.where(male, 1.0, 1.012))
    ratio = np.where(g >= 1.0, g ** (1.0 / alpha), g ** (-1.0 / 1.2))
    out: FloatArray = kappa * ratio
    return out


def _draw_days(rng: np.random.Generator, n_days: int) -> list[int]:
    if n_days >= 150 and rng.random() < 0.25:
        first = int(rng.integers(30, n_days - 90))
        return [first, int(rng.integers(first + 90, n_days))]
    return [int(rng.integers(min(30, n_days - 1), n_days))]


def _panel(
    p: Person, nb: FloatArray, nw: FloatArray, diabetic: FloatArray, season: FloatArray
) -> dict[str, FloatArray]:
    """Biomarkers for one draw per user; ``nb``/``nw`` are (17, users) normals."""
    adip = (p.bmi - 26.0) / 5.0
    mh, act, fit, age, male = (
        p.trait("metabolic_health"),
        p.trait("activity_habit"),
        p.trait("fitness"),
        p.age,
        p.male,
    )
    z = {k: nb[i] + 0.3 * nw[i] for i, k in enumerate(BIOMARKER_NAMES)}
    v: dict[str, FloatArray] = {}
    v["hba1c"] = (
        5.25 + 0.22 * adip - 0.18 * mh - 0.06 * act + 0.008 * (age - 45) + diabetic + 0.22 * z["hba1c"]
    )
    v["fasting_glucose"] = 28.7 * v["hba1c"] - 59.7 + 6.0 * z["fasting_glucose"]
    v["insulin"] = np.exp(
        np.log(8.0) + 0.35 * adip - 0.25 * mh - 0.12 * act + 0.3 * (diabetic > 0) + 0.3 * z["insulin"]
    )
    v["triglycerides"] = np.exp(
        np.log(105.0) + 0.22 * adip - 0.18 * mh - 0.12 * act + 0.1 * male + 0.3 * z["triglycerides"]
    )
    v["hdl"] = 52.0 + 11.0 * ~male - 5.0 * adip + 3.0 * act + 3.0 * mh + 8.0 * z["hdl"]
    v["ldl"] = 112.0 + 0.5 * (age - 45) + 7.0 * adip + 26.0 * z["ldl"]
    v["hs_crp"] = np.exp(np.log(1.1) + 0.5 * adip - 0.2 * mh - 0.15 * fit + 0.7 * z["hs_crp"])
    v["alt"] = np.exp(np.log(21.0) + 0.22 * adip + 0.18 * male + 0.35 * z["alt"])
    v["ast"] = np.exp(np.log(22.0) + 0.1 * adip + 0.1 * male + 0.25 * z["ast"])
    v["ggt"] = np.exp(np.log(20.0) + 0.25 * adip + 0.3 * male + 0.45 * z["ggt"])
    v["egfr"] = 122.0 - 0.85 * (age - 20) + 11.0 * z["egfr"]
    v["uric_acid"] = 4.4 + 1.3 * male + 0.4 * adip - 0.15 * act + 0.9 * z["uric_acid"]
    v["tsh"] = np.exp(np.log(1.8) + 0.5 * z["tsh"])
    black = np.array([e == "black" for e in p.ethnicity])
    v["vitamin_d"] = 28.0 + 3.0 * act - 3.0 * adip - 6.0 * black + 6.0 * season + 8.0 * z["vitamin_d"]
    log_ferritin = np.log(np.where(male, 140.0, 55.0)) + 0.2 * adip + 0.4 * (~male & (age >= 50))
    v["ferritin"] = np.exp(log_ferritin + 0.5 * z["ferritin"])
    for k in ("hba1c", "fasting_glucose", "triglycerides", "hdl", "ldl", "egfr"):
        lo, hi, _ = _BOUNDS[k]
        v[k] = np.clip(v[k], lo, hi)
    v["total_cholesterol"] = (
        v["ldl"] + v["hdl"] + v["triglycerides"] / 5.0 + 2.0 * nw[BIOMARKER_NAMES.index("total_cholesterol")]
    )
    v["creatinine"] = creatinine_from_egfr(v["egfr"], age, male)
    return v


def blood_panel(
    rngs: list[np.random.Generator], person: Person, cal: Calendar, user_ids: list[str]
) -> pd.DataFrame:
    """Blood draws for one chunk of users.

    Args:
        rngs: One generator per user (the ``BLOOD`` component stream).
        person: The chunk's users.
        cal: Calendar of the record (draw dates lie inside it).
        user_ids: The chunk's user identifiers.

    Returns:
        One row per draw: ``user_id``, ``draw_date``, then the 17 biomarkers, sorted.
    """
    k = len(BIOMARKER_NAMES)
    draws = [
        (g.standard_normal(k), g.standard_normal((2, k)), g.random(2), _draw_days(g, cal.dates.shape[0]))
        for g in rngs
    ]
    nb = np.stack([d[0] for d in draws], axis=1)
    adip, mh = (person.bmi - 26.0) / 5.0, person.trait("metabolic_health")
    p_diab = sigmoid(-3.3 + 0.6 * adip - 0.6 * mh + 0.03 * (person.age - 45))
    diabetic = np.where(
        np.array([d[2][0] for d in draws]) < p_diab, 0.8 + 2.2 * np.array([d[2][1] for d in draws]), 0.0
    )
    hemi = np.where(person.south, -1.0, 1.0) * person.season_amp
    rows = []
    for j in range(2):
        days = np.array([d[3][min(j, len(d[3]) - 1)] for d in draws])
        nw = np.stack([d[1][j] for d in draws], axis=1)
        panel = _panel(person, nb, nw, diabetic, hemi * cal.season[days])
        frame = pd.DataFrame({"user_id": user_ids, "draw_date": cal.dates[days]})
        for name in BIOMARKER_NAMES:
            lo, hi, decimals = _BOUNDS[name]
            frame[name] = np.round(np.clip(panel[name], lo, hi), decimals)
        has = np.array([len(d[3]) > j for d in draws])
        rows.append(frame[has])
    out = pd.concat(rows, ignore_index=True).sort_values(["user_id", "draw_date"], ignore_index=True)
    out["draw_date"] = out["draw_date"].astype("datetime64[us]")
    return out
