"""Carbs eaten to treat a low (``meal_type="hypo_treatment"``) are recorded and shown, never a meal.

The hand-built record has two days with the five meals at 07:00, 10:00, 12:30, 16:00 and 19:00 and
three hypo treatments of 15 g at 06:40, 12:10 and 18:50: each just before a main meal, inside that
meal's clock window, so a treatment counted as a meal (typed by its clock time, as an untyped
intake would be) would become the day's first breakfast, lunch or dinner.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.cgmqa import HYPO_TREATMENT, Meal, PatientRecord, read_records, templates
from wearbench.cgmqa._context import events_csv
from wearbench.cgmqa._now import now_candidates
from wearbench.cgmqa._read import meal_type

START = datetime(2024, 1, 1)
MEALS = ((7 * 60, 50.0, "breakfast"), (10 * 60, 20.0, "morning_snack"), (12 * 60 + 30, 70.0, "lunch"),
         (16 * 60, 15.0, "afternoon_snack"), (19 * 60, 80.0, "dinner"))  # fmt: skip
TREATMENTS = (6 * 60 + 40, 12 * 60 + 10, 18 * 60 + 50)


def _record(treated_as: str | None) -> PatientRecord:
    """The record; treatments typed ``hypo_treatment`` (None), or by their clock time ("clock")."""
    bg = 120.0 + np.cumsum(np.random.default_rng(3).normal(0.0, 4.0, 2 * 288))
    meals = [Meal(d * 1440.0 + m, g, t) for d in (0, 1) for m, g, t in MEALS]
    if treated_as is not None:
        meals += [
            Meal(d * 1440.0 + m, 15.0, HYPO_TREATMENT if treated_as == HYPO_TREATMENT else meal_type("", m))
            for d in (0, 1)
            for m in TREATMENTS
        ]
    return PatientRecord("s", START, bg, meals=tuple(sorted(meals, key=lambda m: m.minute)))


def test_meals_of_leaves_treatments_out() -> None:
    rec = _record(HYPO_TREATMENT)
    assert [m.meal_type for m in rec.meals_of(1)] == [t for _, _, t in MEALS]
    assert rec.meals_of(1, "lunch") == [Meal(750.0, 70.0, "lunch")]
    assert rec.meals_of(1, HYPO_TREATMENT) == []
    assert [m.minute for m in rec.treatments_of(2)] == [1440.0 + m for m in TREATMENTS]
    # the prediction "now" of a lunch question is the lunch, not the treatment before it
    assert now_candidates("meal_now:lunch", rec) == [{"day": 1, "time": "12:30"}, {"day": 2, "time": "12:30"}]


def test_meal_templates_ignore_hypo_treatments() -> None:
    plain, treated, as_meals = _record(None), _record(HYPO_TREATMENT), _record("clock")
    asked = [t for t in templates() if "meals" in t.needs and "counterfactual" not in t.needs]
    assert {"pm_21", "pm_22", "pm_23", "pm_24", "pm_25", "pm_26"} <= {t.id for t in asked}
    differ = 0
    for t in asked:
        assert t.candidates(treated) == t.candidates(plain), t.id
        for params in t.candidates(plain):
            assert t.answer(treated, params) == t.answer(plain, params), (t.id, params)
            differ += t.answer(as_meals, params) != t.answer(plain, params)
    assert differ > 0  # counted as meals, the treatments would change answers


def test_a_treatment_read_from_a_folder_is_shown_as_a_treatment(tmp_path: Path) -> None:
    times = pd.date_range(START, periods=288, freq="5min")
    pd.DataFrame({"subject_id": "s", "time": times, "glucose": 100.0}).to_parquet(
        tmp_path / "readings.parquet"
    )
    pd.DataFrame(
        {
            "subject_id": ["s", "s"],
            "time": [START.replace(hour=12, minute=10), START.replace(hour=12, minute=30)],
            "kind": ["carbs", "carbs"],
            "value": [15.0, 70.0],
            "detail": [HYPO_TREATMENT, ""],
            "meal_type": [HYPO_TREATMENT, "lunch"],
        }
    ).to_parquet(tmp_path / "events.parquet")
    rec = read_records(tmp_path)[0]
    assert rec.meals == (Meal(730.0, 15.0, HYPO_TREATMENT), Meal(750.0, 70.0, "lunch"))
    assert rec.meals_of(1) == [Meal(750.0, 70.0, "lunch")]
    assert events_csv(rec).decode().splitlines()[1:] == [
        "730,1,12:10,treatment,hypo_treatment,15,g,",
        "750,1,12:30,meal,lunch,70,g,",
    ]
