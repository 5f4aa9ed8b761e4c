"""Hand-built patient records for the golden template tests (every value chosen by hand).

Each builder documents the values it sets; the tests compute their expected answers by hand
from these comments (point ``i`` is minute ``5 i``; day ``d`` is points ``288 (d − 1)`` …).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from wearbench.cgmqa import Bolus, Exercise, Meal, PatientRecord

START = datetime(2024, 1, 1)


def record(bg: np.ndarray, **tables: object) -> PatientRecord:
    """A record of ``bg`` (whole days) with the given tables."""
    return PatientRecord(subject="hand", start=START, bg=np.asarray(bg, dtype=np.float64), **tables)  # type: ignore[arg-type]


def glucose_record() -> PatientRecord:
    """2 days (576 points) at 100 mg/dL except:

    - points 10, 11, 12 (00:50–01:00): 200, 250, 250 (hyper; the first maximum is point 11, minute 55);
    - points 20, 21 (01:40, 01:45): 60, 50 (hypo);
    - points 30, 31: NaN (missing).

    Valid readings: 574; 569 of them at 100. Sum 569·100 + 200 + 250 + 250 + 60 + 50 = 57,710;
    sum of squares 569·10⁴ + 4·10⁴ + 2·62,500 + 3,600 + 2,500 = 5,861,100.
    """
    bg = np.full(576, 100.0)
    bg[[10, 11, 12]] = [200, 250, 250]
    bg[[20, 21]] = [60, 50]
    bg[[30, 31]] = np.nan
    return record(bg)


def _alternate(bg: np.ndarray, day: int, low: float, high: float) -> None:
    """Day ``day``: even points ``low``, odd points ``high`` (mean (low+high)/2, SD (high−low)/2)."""
    s = slice(288 * (day - 1), 288 * day)
    bg[s][0::2] = low
    bg[s][1::2] = high


def days_record() -> PatientRecord:
    """28 days; each day alternates 90/110 (mean 100, SD 10, CV 10 %) except:

    - day 1: its afternoon 12:00–18:00 (72 points) constant 100;
    - day 3: alternates 50/150 (SD 50, CV 50 %);
    - day 5: constant 100 (CV 0 %);
    - day 7 and day 17: alternate 60/140 (SD 40, CV 40 %; 144 points < 70 each);
    - day 10: its 14:00–16:00 (24 points, 168–191 of the day) constant 150.
    """
    bg = np.zeros(28 * 288)
    for day in range(1, 29):
        _alternate(bg, day, 90, 110)
    bg[144:216] = 100
    _alternate(bg, 3, 50, 150)
    bg[4 * 288 : 5 * 288] = 100
    _alternate(bg, 7, 60, 140)
    _alternate(bg, 17, 60, 140)
    bg[9 * 288 + 168 : 9 * 288 + 192] = 150
    return record(bg)


def meals_record() -> PatientRecord:
    """2 days at 100 mg/dL with these meals and readings:

    Day 1:
    - breakfast 08:01 (minute 481, 45 g): baseline point 96 = 100; window points 97–132;
      points 100–102 = 160, 170, 170 → peak 170 (point 101), rise 70.
    - morning snack 10:00 (minute 600, 15 g): baseline point 120 = 100; +30 min = minute 630 =
      point 126 = 118 → rate (118 − 100) / 30 = 0.6.
    - lunch 12:33 (minute 753, 70 g): point 150 NaN, point 149 = 95 → baseline 95; window points
      151–186; points 160–162 = 200, 215, 180 → peak 215 (point 161), rise 120.
    - dinner 19:00 (minute 1140, 85 g): baseline point 228 = 110; window 229–264; points 235–238 =
      190, 150, 125, 121 → peak 190 (point 235), rise 80; 1.1 × 110 = 121 first reached at point
      238 → 15 minutes after the peak.

    Day 2 (points 288–575):
    - breakfast 08:00 (minute 1920, 50 g): baseline point 384 = 100; point 390 = 140 → rise 40.
    - lunch 12:00 (minute 2160, 60 g): baseline point 432 = 100; point 440 = 130 → rise 30.
    - dinner 19:00 (minute 2580, 70 g, under 80 g): baseline point 516 = 100; window 517–552;
      point 520 = 230 → rise 130; point 521 = 100 ≤ 110 → 5 minutes after the peak.
    """
    bg = np.full(576, 100.0)
    bg[[100, 101, 102]] = [160, 170, 170]
    bg[126] = 118
    bg[150] = np.nan
    bg[149] = 95
    bg[[160, 161, 162]] = [200, 215, 180]
    bg[228] = 110
    bg[[235, 236, 237, 238]] = [190, 150, 125, 121]
    bg[390] = 140
    bg[440] = 130
    bg[520] = 230
    meals = (
        Meal(481, 45, "breakfast"),
        Meal(600, 15, "morning_snack"),
        Meal(753, 70, "lunch"),
        Meal(1140, 85, "dinner"),
        Meal(1920, 50, "breakfast"),
        Meal(2160, 60, "lunch"),
        Meal(2580, 70, "dinner"),
    )
    return record(bg, meals=meals)


def exercise_record() -> PatientRecord:
    """2 days at 100 mg/dL with three sessions:

    Day 1, running 06:00–06:30 (minutes 360–390):
    - point 72 (06:00) = 150: pre-exercise 150; during = points 72–78 = 150, 140, 130, 120, 110,
      105, 100 (max 150, min 100, mean 855 / 7 = 122.14);
    - after: points 80, 81, 82 = 95, 90, 92 and point 90 (minute 450) = 140, the rest 100.

    Day 1, cycling 16:40–17:03 (minutes 1000–1023): point 202 = 80, the rest 100; pre-exercise
    point 200 = 100; the first point at or after the end is 205 (minute 1025).

    Day 2, running 06:00–06:20 (minutes 1800–1820): the 24 points after it (365–388) alternate
    40/160 (mean 100, SD 60, CV 60 %).
    """
    bg = np.full(576, 100.0)
    bg[72:79] = [150, 140, 130, 120, 110, 105, 100]
    bg[[80, 81, 82]] = [95, 90, 92]
    bg[90] = 140
    bg[202] = 80
    bg[365:389:2] = 40
    bg[366:389:2] = 160
    sessions = (
        Exercise(360, 30, "running", 8.0),
        Exercise(1000, 23, "cycling", 90.0),
        Exercise(1800, 20, "running", 6.0),
    )
    return record(bg, exercise=sessions)


def insulin_record() -> PatientRecord:
    """30 days at 100 mg/dL; insulin 10 mU/min (14.4 U a day) except days 6–7 at 20 mU/min
    (28.8 U a day) and day 30 at 15 mU/min (21.6 U). Boluses: minute 500 (3 U), 4400 and 5000
    (day 4, 5 U each), 5100 (day 4, 2 U), 20000 (8 U).
    """
    ins = np.full(30 * 288, 10.0)
    ins[5 * 288 : 7 * 288] = 20
    ins[29 * 288 :] = 15
    boluses = tuple(Bolus(m, d, "rapid") for m, d in ((500, 3), (4400, 5), (5000, 5), (5100, 2), (20000, 8)))
    return record(np.full(30 * 288, 100.0), insulin=ins, boluses=boluses)
