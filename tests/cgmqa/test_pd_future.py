"""Hand-checked truths of the PD templates whose answer is the recorded future, and their "now".

Every record is built here; the comments give the arithmetic (point ``i`` is minute ``5 i``; day
``d`` is points ``288 (d − 1)`` … ``288 d − 1``).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
from tests.cgmqa._records import record

from wearbench.cgmqa import get_template, templates

FUTURE = ("pd_0", "pd_1", "pd_2", "pd_4", "pd_10", "pd_12", "pd_18", "pd_20")


def answer(id: str, rec: object, **params: int | str) -> object:
    return get_template(id).answer(rec, params)  # type: ignore[arg-type]


def test_there_are_20_pd_templates_all_pattern() -> None:
    ids = [t.id for t in templates("pd")]
    assert ids == [f"pd_{n}" for n in range(21) if n != 16]
    assert {t.level for t in templates("pd")} == {"pattern"}
    cf = {t.id for t in templates("pd") if "counterfactual" in t.needs}
    assert cf == {f"pd_{n}" for n in (3, 5, 6, 7, 8, 9, 11, 13, 14, 15, 17, 19)}
    assert cf.isdisjoint(FUTURE)


def test_peak_part_of_tomorrow() -> None:
    bg = np.full(576, 100.0)
    bg[288 + 150] = 200  # day 2, point 150 = 12:30: afternoon
    bg[100] = 300  # day 1 does not count
    rec = record(bg)
    assert get_template("pd_0").candidates(rec) == [{"day": 2}]
    assert answer("pd_0", rec, day=2) == "afternoon"
    bg[288 + 287] = 200  # a tie: the first maximum (12:30) wins
    assert answer("pd_0", record(bg), day=2) == "afternoon"
    bg[288 : 288 + 100] = np.nan  # 188 of 288 points (65 %) < 70 % coverage
    assert answer("pd_0", record(bg), day=2) is None


def test_glucose_in_30_minutes() -> None:
    bg = np.full(576, 100.0)
    bg[288 + 42] = 150.25  # day 2 03:30
    rec = record(bg)
    t = get_template("pd_1")
    assert len(t.candidates(rec)) == 16  # 8 clock times on days 1 and 2
    assert answer("pd_1", rec, day=2, time="03:00") == 150.2  # round(150.25, 1) = 150.2 (binary)
    assert t.context_end({"day": 2, "time": "03:00"}) == 1440 + 180
    bg[288 + 36] = np.nan  # no reading now
    assert answer("pd_1", record(bg), day=2, time="03:00") is None
    assert answer("pd_1", rec, day=2, time="23:45") is None  # 00:15 of day 3 is past the record


def test_monday_insulin() -> None:
    # 30 days from Monday 2024-01-01: Mondays are days 1, 8, 15, 22, 29 -> the 4th Monday, day 22
    ins = np.full(30 * 288, 10.0)  # 10 mU/min = 10 * 1440 / 1000 = 14.4 U a day
    ins[21 * 288 : 22 * 288] = 20.0  # day 22: 28.8 U
    rec = record(np.full(30 * 288, 100.0), insulin=ins)
    t = get_template("pd_2")
    assert t.candidates(rec) == [{"day": 22}]
    assert t.context_end({"day": 22}) == 21 * 1440
    assert answer("pd_2", rec, day=22) == 28.8
    # from Wednesday 2024-01-03 the Mondays are days 6, 13, 20, 27 -> day 27
    wed = record(np.full(30 * 288, 100.0), insulin=ins)
    wed = type(wed)(subject="w", start=datetime(2024, 1, 3), bg=wed.bg, insulin=ins)
    assert t.candidates(wed) == [{"day": 27}]
    assert answer("pd_2", wed, day=27) == 14.4
    assert answer("pd_2", record(np.full(30 * 288, 100.0)), day=22) is None  # no insulin


def test_time_in_range_tomorrow() -> None:
    bg = np.full(576, 100.0)
    bg[288 : 288 + 72] = 200  # day 2: 216 of 288 in range = 75 %
    assert answer("pd_4", record(bg), day=2) == 75.0
    bg[288 + 70] = 180  # the edges count as in range: 218 / 288 = 75.69 %
    bg[288 + 71] = 70
    assert answer("pd_4", record(bg), day=2) == 75.69


def test_in_range_rest_of_day() -> None:
    bg = np.full(576, 100.0)
    bg[288 + 100] = 250  # day 2 08:20, before 12:00: does not count
    rec = record(bg)
    assert answer("pd_10", rec, day=2, time="12:00") == "yes"
    bg[575] = 181  # day 2 23:55
    assert answer("pd_10", record(bg), day=2, time="12:00") == "no"
    assert answer("pd_10", record(bg), day=1, time="12:00") == "yes"  # the rest of day 1


def test_lower_mean_tomorrow() -> None:
    bg = np.full(576, 100.0)
    bg[288:] = 90.0
    assert answer("pd_12", record(bg), day=2) == "yes"
    assert answer("pd_12", record(np.full(576, 100.0)), day=2) == "no"  # equal means: not lower


def test_next_week_insulin() -> None:
    ins = np.full(28 * 288, 10.0)  # 100.8 U a week
    rec = record(np.full(28 * 288, 100.0), insulin=ins)
    t = get_template("pd_18")
    assert t.candidates(rec) == [{"week": 4}]
    assert t.context_end({"week": 4}) == 21 * 1440
    assert answer("pd_18", rec, week=4) == "less"  # equal: not more
    ins2 = ins.copy()
    ins2[25 * 288] = 20.0  # one more sample in week 4
    assert answer("pd_18", record(rec.bg, insulin=ins2), week=4) == "more"
    assert t.candidates(record(np.full(27 * 288, 100.0), insulin=ins[: 27 * 288])) == []


def test_night_hours_in_range() -> None:
    bg = np.full(576, 100.0)
    bg[288 + 30 : 288 + 72] = 200  # 30 of the 72 night points in range: 150 min -> 2 whole hours
    assert answer("pd_20", record(bg), day=2) == 2
    bg[288 : 288 + 30] = np.nan  # 42 of 72 valid (58 %) < 70 %
    assert answer("pd_20", record(bg), day=2) is None


def test_future_templates_answer_on_records_without_rerun_and_counterfactual_ones_decline() -> None:
    rec = record(np.full(3 * 288, 120.0), insulin=np.full(3 * 288, 10.0), meals=())
    for t in templates("pd"):
        values = [t.answer(rec, p) for p in t.candidates(rec)]
        if "counterfactual" in t.needs:
            assert values == [None] * len(values), t.id
        elif t.id not in ("pd_2", "pd_18"):  # 3 days: no 4th Monday, no week 4
            assert any(v is not None for v in values), t.id
