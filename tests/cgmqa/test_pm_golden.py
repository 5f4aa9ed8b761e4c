"""Golden answers of every PM template on hand-built records (tests/cgmqa/_records.py).

Each expected value is worked out by hand in its comment from the values the record builder
documents; none is computed by wearbench code. A template added to the PM family without a row
here fails ``test_every_pm_template_has_a_golden_row``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from tests.cgmqa._records import (
    days_record,
    exercise_record,
    glucose_record,
    insulin_record,
    meals_record,
    record,
)

from wearbench.cgmqa import Meal, PatientRecord, get_template, templates

G, D, M, E, INS = glucose_record, days_record, meals_record, exercise_record, insulin_record
RUN1 = {"day": 1, "exercise": "running"}

GOLDEN: list[tuple[str, Callable[[], PatientRecord], dict[str, Any], Any]] = [
    # --- glucose record: 574 valid readings, 569 at 100, sum 57,710, sum of squares 5,861,100
    ("pm_0", G, {}, 100.5),  # 57,710 / 574 = 100.540
    ("pm_1", G, {}, 250.0),
    ("pm_2", G, {}, 50.0),
    ("pm_3", G, {}, 55),  # first 250 at point 11 -> minute 55
    ("pm_4", G, {}, 47.42),  # 569 readings x 5 min / 60 = 47.417 h
    ("pm_5", G, {}, 0.25),  # 200, 250, 250 -> 15 min
    ("pm_6", G, {}, 0.17),  # 60, 50 -> 10 min = 0.1667 h
    ("pm_7", G, {}, 2),
    ("pm_8", G, {}, 3),
    ("pm_9", G, {}, 10.13),  # sqrt(5,861,100/574 - (57,710/574)^2) = sqrt(102.670) = 10.133
    ("pm_10", G, {}, 99.13),  # 569 / 574 = 99.129 %
    ("pm_11", G, {}, 0.52),  # 3 / 574 = 0.5226 %
    ("pm_12", G, {}, 0.35),  # 2 / 574 = 0.3484 %
    ("pm_13", G, {}, "yes"),  # 100 -> 200 in 5 min = 20 mg/dL/min
    # --- days record (28 days)
    ("pm_14", D, {"week": 2, "day": 3}, 150.0),  # day 10, 14:00-16:00 constant 150
    ("pm_15", D, {}, [d for d in range(1, 29) if d not in (3, 7, 17)]),  # CV 50, 40, 40 % excluded
    ("pm_16", D, {}, 3),  # CV 50 %
    ("pm_17", D, {}, 5),  # CV 0 %
    # morning SDs: 50 (d3), 0 (d5), 40 (d7, d17), 10 x 24 days -> 370/28 = 13.21;
    # afternoon: 0 (d1), 50, 0, 40, 40, day 10 sqrt((26.67² + 6.67² + 33.33²)/3) = 24.94, 10 x 22
    # -> 374.94/28 = 13.39
    ("pm_18", D, {}, "afternoon"),
    # days 1-5 pooled: mean 100, sum of squared deviations 21,600 + 28,800 + 720,000 + 28,800 + 0
    # = 799,200 / 1,440 = 555 -> CV 23.56 %; days 6-7: (28,800 + 460,800) / 576 = 850 -> CV 29.15 %
    ("pm_19", D, {}, "weekend"),
    ("pm_38", D, {}, "yes"),  # week 2: 0 min < 70; week 3: day 17, 144 x 5 = 720 min
    ("pm_39", D, {}, "week 4"),  # week 4 CV 10 %; week 1 pooled CV 25.3 %
    # week 1: 288 of 2,016 points out of range (50s on day 3, 60s on day 7) -> 85.7 %;
    # week 3: 144 (day 17) -> 92.9 %
    ("pm_40", D, {}, "increased"),
    # --- meals record
    ("pm_21", M, {"week": 1, "day": 1}, 215.0),  # lunch peak, point 161
    ("pm_26", M, {"day": 1}, 215.0),
    ("pm_26", M, {"day": 2}, 130.0),  # point 440
    ("pm_22", M, {"day": 1}, 15),  # peak point 235, first <= 121 at point 238
    ("pm_22", M, {"day": 2}, 5),  # peak point 520, 100 <= 110 at point 521
    ("pm_23", M, {"day": 1}, "lunch"),  # rises 70, 120, 80
    ("pm_23", M, {"day": 2}, "dinner"),  # rises 40, 30, 130
    ("pm_24", M, {"day": 1}, 0.6),  # (118 - 100) / 30
    ("pm_24", M, {"day": 2}, None),  # no morning snack on day 2
    ("pm_25", M, {}, [[1, 80.0]]),  # day 1 dinner 85 g, rise 190 - 110; day 2 dinner 70 g
    # --- exercise record
    ("pm_28", E, RUN1, 150.0),
    ("pm_29", E, RUN1, 100.0),
    ("pm_29", E, {"day": 1, "exercise": "cycling"}, 80.0),  # point 202
    ("pm_30", E, RUN1, 90.0),  # points 79-114, lowest 90 at point 81
    ("pm_31", E, RUN1, -1.67),  # (100 at minute 390 - 150 at minute 360) / 30 min
    ("pm_32", E, RUN1, 60),  # first within 135-165 in points 78-102: point 90, 450 - 390
    ("pm_32", E, {"day": 1, "exercise": "cycling"}, 2),  # point 205 (minute 1025) = 100 = pre
    ("pm_33", E, RUN1, 101.4),  # points 79-90: (100 + 95 + 90 + 92 + 7 x 100 + 140) / 12 = 101.42
    ("pm_34", E, RUN1, 122.1),  # 855 / 7 = 122.14
    ("pm_35", E, RUN1, 60.0),  # 150 - 90
    ("pm_36", E, RUN1, 15),  # nadir point 81 = minute 405, end 390
    ("pm_28", E, {"day": 2, "exercise": "cycling"}, None),  # no cycling on day 2
    ("pm_37", E, {}, [1]),  # day 2's 2 h after alternate 40/160: CV 60 %
    # --- insulin record (30 days)
    ("pm_41", INS, {}, 468.0),  # 27 x 14.4 + 2 x 28.8 + 21.6
    ("pm_42", INS, {}, 20000),  # 8 U
    ("pm_43", INS, {}, 21.6),  # 15 mU/min x 1,440 min / 1,000
    ("pm_44", INS, {}, 4400),  # day 4: 5 U at 4400 and 5000 -> the earliest
    ("pm_45", INS, {}, "yes"),  # 28.8 > 14.4 U a day
]


@pytest.mark.parametrize(("tid", "build", "params", "expected"), GOLDEN)
def test_golden_answer(
    tid: str, build: Callable[[], PatientRecord], params: dict[str, Any], expected: Any
) -> None:
    assert get_template(tid).answer(build(), params) == expected


def test_every_pm_template_has_a_golden_row() -> None:
    assert {t.id for t in templates("pm")} == {row[0] for row in GOLDEN}
    assert len(templates("pm")) == 44


def test_flat_record_has_no_fast_change_and_no_spread() -> None:
    flat = record(np.full(288, 120.0))
    assert get_template("pm_13").answer(flat, {}) == "no"
    assert get_template("pm_9").answer(flat, {}) == 0.0
    # 2 mg/dL/min exactly is not faster than 2
    ramp = record(100.0 + 10.0 * (np.arange(288) % 2))
    assert get_template("pm_13").answer(ramp, {}) == "no"


@pytest.mark.parametrize("tid", ["pm_38", "pm_39", "pm_40", "pm_43"])
def test_week_templates_have_no_answer_on_a_short_record(tid: str) -> None:
    assert get_template(tid).answer(glucose_record(), {}) is None


def test_templates_without_their_tables_have_no_answer() -> None:
    g = glucose_record()
    assert get_template("pm_25").answer(g, {}) is None  # meals is None
    assert get_template("pm_37").answer(g, {}) is None  # exercise is None
    assert get_template("pm_41").answer(g, {}) is None  # insulin is None


def test_all_missing_record_has_no_glucose_answers() -> None:
    empty = record(np.full(288, np.nan))
    for tid in ("pm_0", "pm_1", "pm_3", "pm_4", "pm_9", "pm_10", "pm_13", "pm_15", "pm_16"):
        assert get_template(tid).answer(empty, {}) is None, tid


def test_meal_window_past_the_record_end_has_no_answer() -> None:
    # a lunch at 22:00 of the last day: its 3-hour window runs past the record
    late = record(np.full(288, 100.0), meals=(Meal(1320, 60, "lunch"),))
    assert get_template("pm_26").answer(late, {"day": 1}) is None
